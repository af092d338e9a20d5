// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vxlan_tx_repl: TX frame buffer and replicator of the VTEP (docs/vxlan.md).
//
// Frames (s_axis_*) are stored whole in a RAM ring of DEPTH beats (store-and-forward:
// the frame's byte length is then known for the outer headers). Each frame is paired
// with one forwarding decision (s_dec_*, from the vSwitch lookup, in frame order) and
// sent as up to 1 + RFLOOD_MAX copies on m_axis_*:
//   copy 0 (if s_dec_local)     local copy: m_local=1 with the queue list (qcnt/qlist,
//                               flood); the consumer writes it to each listed queue
//   copies for j < s_dec_rcnt   uplink copies: m_local=0, m_tun = tunnel j of s_dec_rlist
//                               (head-end replication of a flood, or 1 unicast copy)
// Copies are replayed from the RAM; the last copy frees each beat as it reads it.
// Dropped and counted (one reason each, first that applies):
//   cnt_drop_oversize   frame longer than DEPTH-1 beats (the rest is skipped on input)
//   cnt_drop_bad        tuser[0]=1 on the frame's last beat
//   cnt_drop_novni      s_dec_novni (the VNI is not configured)
//   cnt_drop_no_route   no copy at all (no local queue and no tunnel)
// Sideband m_* is constant over each output frame. Back-pressure only: s_axis_tready is
// low unless the ring had two free beats and (for a last beat) the frame-descriptor FIFO
// (DESC_DEPTH) two free entries in the cycle before (registered flags: one write per
// cycle leaves one free), so the ring holds at most DEPTH-1 beats (the longest frame).
// Throughput: one beat per cycle in and out, no gap between frames or copies (the next
// frame's job waits in the job register while the current one is sent).
// Latency: the whole frame (store-and-forward) + 1 cycle (job register: descriptor,
// sum and decision popped together) + 1 cycle (RAM read); a frame whose decision is
// already waiting starts up to two cycles later (its sum's two stages after the
// descriptor).
// Handshakes: s_dec_ready and the queues' pops are a flop (the job register's ready)
// and the queues' valid; s_axis_tready is one LUT of flops (the room flags, swallow_q,
// near_q) and s_axis_tlast.
`default_nettype none

module fabnic_vxlan_tx_repl #(
    parameter int DATA_W     = 64,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int DEPTH      = 2048,   // beats, power of two; frames up to DEPTH-1 beats
    parameter int DESC_DEPTH = 8,
    parameter int QP_W       = 8,
    parameter int FLOOD_MAX  = 4,
    parameter int RFLOOD_MAX = 4,
    parameter int TUN_W      = 4,
    parameter int CNT_W      = 32,
    parameter int FC_W       = $clog2(FLOOD_MAX + 1),
    parameter int RFC_W      = $clog2(RFLOOD_MAX + 1)
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    input  wire logic [DATA_W-1:0]          s_axis_tdata,
    input  wire logic [KEEP_W-1:0]          s_axis_tkeep,
    input  wire logic                       s_axis_tvalid,
    output logic                            s_axis_tready,
    input  wire logic                       s_axis_tlast,
    input  wire logic                       s_axis_tuser,

    input  wire logic                       s_dec_valid,
    output logic                            s_dec_ready,
    input  wire logic                       s_dec_novni,
    input  wire logic [23:0]                s_dec_vni,
    input  wire logic                       s_dec_local,
    input  wire logic                       s_dec_flood,
    input  wire logic [FC_W-1:0]            s_dec_qcnt,
    input  wire logic [FLOOD_MAX*QP_W-1:0]  s_dec_qlist,
    input  wire logic [RFC_W-1:0]           s_dec_rcnt,
    input  wire logic [RFLOOD_MAX*TUN_W-1:0] s_dec_rlist,

    output logic      [DATA_W-1:0]          m_axis_tdata,
    output logic      [KEEP_W-1:0]          m_axis_tkeep,
    output logic                            m_axis_tvalid,
    input  wire logic                       m_axis_tready,
    output logic                            m_axis_tlast,
    output logic                            m_local,
    output logic      [TUN_W-1:0]           m_tun,
    output logic      [23:0]                m_vni,
    output logic      [15:0]                m_len,
    output logic      [15:0]                m_csum,   // ones-complement sum of the frame
    output logic                            m_flood,
    output logic      [FC_W-1:0]            m_qcnt,
    output logic      [FLOOD_MAX*QP_W-1:0]  m_qlist,

    output logic      [CNT_W-1:0]           cnt_frames,      // frames with >= 1 copy sent
    output logic      [CNT_W-1:0]           cnt_copies,      // output frames
    output logic      [CNT_W-1:0]           cnt_flood,       // sent frames with s_dec_flood
    output logic      [CNT_W-1:0]           cnt_drop_oversize,
    output logic      [CNT_W-1:0]           cnt_drop_bad,
    output logic      [CNT_W-1:0]           cnt_drop_novni,
    output logic      [CNT_W-1:0]           cnt_drop_no_route
);

  localparam int AW = $clog2(DEPTH);
  localparam int KC_W = $clog2(KEEP_W + 1);

  if ((1 << AW) != DEPTH || DEPTH < 4 || DEPTH * KEEP_W > 65535) begin : g_check
    $error("fabnic_vxlan_tx_repl: DEPTH must be a power of two >= 4, DEPTH*KEEP_W < 64 KiB");
  end

  typedef struct packed {
    logic [AW:0]  start;
    logic [AW:0]  nbeats;
    logic [AW:0]  fin;      // start + nbeats
    logic [15:0]  len;
    logic         bad;
    logic         trunc;
  } desc_t;

  function automatic logic [15:0] fold(input logic [31:0] v);
    logic [16:0] t;
    t = 17'(v[31:16]) + 17'(v[15:0]);
    return t[15:0] + 16'(t[16]);
  endfunction

  // ---------------------------------------------------------------- write side
  logic [AW:0]  wr_ptr_q, rel_ptr_q, fstart_q, fbeats_q;
  logic [15:0]  flen_q;
  logic [31:0]  fsum_q;
  logic         swallow_q;
  logic         near_q;      // fbeats_q == DEPTH - 2 (a flop: the compare is made as
                             // fbeats_q counts)
  logic         d_in_ready, d_push, room_q, d_room_q, wr_fire, force_last;
  logic [KC_W-1:0] kcnt;
  desc_t        d_in, d;
  logic         d_valid, d_pop;
  logic [$clog2(DESC_DEPTH):0] dcnt;

  always_comb begin
    // bytes in the beat: tkeep is packed from lane 0 (a thermometer code), so bit b of
    // the count is set where the code crosses j * 2^(b+1) + 2^b without reaching
    // (j+1) * 2^(b+1)
    kcnt = '0;
    for (int b = 0; b < KC_W; b++) begin
      for (int j = 0; j * (2 << b) + (1 << b) <= KEEP_W; j++) begin
        if (s_axis_tkeep[j * (2 << b) + (1 << b) - 1]
            && !((j + 1) * (2 << b) <= KEEP_W && s_axis_tkeep[(j + 1) * (2 << b) - 1])) begin
          kcnt[b] = 1'b1;
        end
      end
    end
  end

  // Frame sum, pipelined: stage 1 registers NPA partial sums of the beat's 16-bit
  // big-endian words (lanes 2j, 2j+1; a missing byte reads 0), stage 1b adds them in
  // pairs (NPART sums), stage 2 adds those to the running sum and, at the frame's last
  // beat, queues the frame's sum (u_sum), two cycles after its descriptor. A frame
  // starts when both are queued.
  localparam int NW    = KEEP_W / 2 > 0 ? KEEP_W / 2 : 1;   // words per beat
  localparam int NPA   = NW > 8 ? 8 : 1;
  localparam int NPART = NW > 8 ? 4 : 1;
  localparam int WPA   = (NW + NPA - 1) / NPA;              // words per stage-1 partial
  logic [31:0] bpart [NPA];
  logic [31:0] b1_part_q [NPA];
  logic [31:0] b2_part_q [NPART];
  logic        b1_v_q, b1_last_q, b2_v_q, b2_last_q;
  logic [31:0] bsum1;
  always_comb begin
    for (int p = 0; p < NPA; p++) begin
      bpart[p] = '0;
      for (int j = p * WPA; j < (p + 1) * WPA; j++) begin
        if (j < KEEP_W / 2) begin
          bpart[p] += 32'({s_axis_tkeep[2*j] ? s_axis_tdata[16*j +: 8] : 8'h00,
                           s_axis_tkeep[2*j+1] ? s_axis_tdata[16*j+8 +: 8] : 8'h00});
        end
      end
    end
  end
  always_ff @(posedge clk) begin
    if (wr_fire) begin
      b1_part_q <= bpart;
      b1_last_q <= s_axis_tlast || force_last;
    end
    if (b1_v_q) begin
      for (int p = 0; p < NPART; p++) begin
        b2_part_q[p] <= NPA > NPART ? b1_part_q[2*p] + b1_part_q[2*p+1] : b1_part_q[p];
      end
      b2_last_q <= b1_last_q;
    end
    b1_v_q <= wr_fire;
    b2_v_q <= b1_v_q;
    if (rst) begin
      b1_v_q <= 1'b0;
      b2_v_q <= 1'b0;
    end
  end
  always_comb begin
    bsum1 = fsum_q;
    for (int p = 0; p < NPART; p++) bsum1 += b2_part_q[p];
  end

  logic        sum_valid, sum_pop;
  logic [31:0] sum_head;
  logic [$clog2(DESC_DEPTH):0] unused_scnt;
  logic        unused_sum_ready;
  // entries follow the descriptors two cycles later and leave with them: never full
  fabnic_fifo #(.WIDTH(32), .DEPTH(DESC_DEPTH)) u_sum (
      .clk, .rst,
      .in_valid(b2_v_q && b2_last_q), .in_ready(unused_sum_ready), .in_data(bsum1),
      .out_valid(sum_valid), .out_ready(sum_pop), .out_data(sum_head),
      .status_count(unused_scnt)
  );

  always_ff @(posedge clk) begin
    if (b2_v_q) fsum_q <= b2_last_q ? '0 : bsum1;
    if (rst) fsum_q <= '0;
  end

  // room flags: at most one write per cycle, so two free a cycle ago is one free now
  always_ff @(posedge clk) begin
    room_q   <= (wr_ptr_q - rel_ptr_q) <= (AW + 1)'(DEPTH - 2);
    d_room_q <= dcnt <= ($clog2(DESC_DEPTH) + 1)'(DESC_DEPTH - 2);
    if (rst) begin
      room_q   <= 1'b0;
      d_room_q <= 1'b0;
    end
  end
  // beat DEPTH-1 of a longer frame ends it as truncated
  assign force_last    = !s_axis_tlast && near_q;
  assign s_axis_tready = swallow_q || (room_q && (!(s_axis_tlast || force_last) || d_room_q));
  assign wr_fire       = s_axis_tvalid && s_axis_tready && !swallow_q;
  assign d_push        = wr_fire && (s_axis_tlast || force_last);

  always_comb begin
    d_in.start  = fstart_q;
    d_in.nbeats = fbeats_q + 1'b1;
    d_in.fin    = fstart_q + fbeats_q + 1'b1;
    d_in.len    = flen_q + 16'(kcnt);
    d_in.bad    = s_axis_tuser && s_axis_tlast;
    d_in.trunc  = force_last;
  end

  always_ff @(posedge clk) begin
    if (wr_fire) begin
      wr_ptr_q <= wr_ptr_q + 1'b1;
      if (s_axis_tlast || force_last) begin
        fstart_q <= wr_ptr_q + 1'b1;
        fbeats_q <= '0;
        near_q   <= 1'b0;
        flen_q   <= '0;
      end else begin
        fbeats_q <= fbeats_q + 1'b1;
        near_q   <= fbeats_q == (AW + 1)'(DEPTH - 3);
        flen_q   <= flen_q + 16'(KEEP_W);   // a beat before the last is full
      end
      if (force_last) swallow_q <= 1'b1;
    end
    if (swallow_q && s_axis_tvalid && s_axis_tlast) swallow_q <= 1'b0;
    if (rst) begin
      wr_ptr_q  <= '0;
      fstart_q  <= '0;
      fbeats_q  <= '0;
      near_q    <= 1'b0;
      flen_q    <= '0;
      swallow_q <= 1'b0;
    end
  end

  fabnic_fifo #(.WIDTH($bits(desc_t)), .DEPTH(DESC_DEPTH)) u_desc (
      .clk, .rst,
      .in_valid(d_push), .in_ready(d_in_ready), .in_data(d_in),
      .out_valid(d_valid), .out_ready(d_pop), .out_data(d),
      .status_count(dcnt)
  );

  // ---------------------------------------------------------------- RAM
  logic              rd_en;
  logic [AW:0]       rd_ptr;
  logic [DATA_W+KEEP_W-1:0] rd_data;

  fabnic_ram_sdp #(.DATA_W(DATA_W + KEEP_W), .DEPTH(DEPTH)) u_ram (
      .clk,
      .wr_en(wr_fire), .wr_be(1'b1), .wr_addr(wr_ptr_q[AW-1:0]),
      .wr_data({s_axis_tkeep, s_axis_tdata}),
      .rd_en, .rd_regce(1'b1), .rd_addr(rd_ptr[AW-1:0]), .rd_data
  );

  // ---------------------------------------------------------------- job register
  // A frame's descriptor, sum and decision are popped together into a skid register
  // (the job), with the flags the read side needs precomputed: the read side's issue
  // decision starts from flops, not from the queues' pointers, and the queues' pops
  // from a flop (the skid's ready).
  typedef struct packed {
    logic [AW:0]                 start;
    logic [AW:0]                 nbeats;
    logic [AW:0]                 fin;
    logic [15:0]                 len;
    logic [31:0]                 sum;
    logic                        drop;      // dropped whole (one of the reasons below)
    logic                        trunc;
    logic                        bad;
    logic                        novni;
    logic                        nb1;       // a one-beat frame
    logic                        mr0;       // another copy after the first
    logic [23:0]                 vni;
    logic                        local_copy;
    logic                        flood;
    logic [FC_W-1:0]             qcnt;
    logic [FLOOD_MAX*QP_W-1:0]   qlist;
    logic [RFC_W-1:0]            rcnt;
    logic [RFLOOD_MAX*TUN_W-1:0] rlist;
  } job_t;

  // a frame's sum is queued after its descriptor and leaves with it: sum_valid implies
  // d_valid
  logic both, j_in_ready, j_valid, j_done;
  job_t j_in, j;
  assign both = sum_valid && s_dec_valid;
  always_comb begin
    j_in.start      = d.start;
    j_in.nbeats     = d.nbeats;
    j_in.fin        = d.fin;
    j_in.len        = d.len;
    j_in.sum        = sum_head;
    j_in.drop       = d.trunc || d.bad || s_dec_novni || (!s_dec_local && s_dec_rcnt == '0);
    j_in.trunc      = d.trunc;
    j_in.bad        = d.bad;
    j_in.novni      = s_dec_novni;
    j_in.nb1        = d.nbeats == (AW + 1)'(1);
    j_in.mr0        = s_dec_local ? s_dec_rcnt != '0 : RFC_W'(1) < s_dec_rcnt;
    j_in.vni        = s_dec_vni;
    j_in.local_copy = s_dec_local;
    j_in.flood      = s_dec_flood;
    j_in.qcnt       = s_dec_qcnt;
    j_in.qlist      = s_dec_qlist;
    j_in.rcnt       = s_dec_rcnt;
    j_in.rlist      = s_dec_rlist;
  end
  assign d_pop       = both && j_in_ready;
  assign sum_pop     = d_pop;
  assign s_dec_ready = d_pop;

  logic [0:0] unused_j_keep;
  logic       unused_j_last, unused_j_user;
  fabnic_axis_register #(.DATA_W($bits(job_t)), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_job (
      .clk, .rst,
      .s_axis_tdata(j_in), .s_axis_tkeep(1'b1), .s_axis_tvalid(both),
      .s_axis_tready(j_in_ready), .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata(j), .m_axis_tkeep(unused_j_keep), .m_axis_tvalid(j_valid),
      .m_axis_tready(j_done), .m_axis_tlast(unused_j_last), .m_axis_tuser(unused_j_user)
  );

  // ---------------------------------------------------------------- read side
  logic              act_q, cur_local_q, rem1_q, mr_q;
  logic [AW:0]       ptr_q, rem_q;
  logic [RFC_W-1:0]  ridx_q;
  logic              drop_it, start_ok, o_valid_q, can_issue, cur_local;
  logic [AW:0]       cur_rem;
  logic [RFC_W-1:0]  cur_ridx;
  logic              last_beat, more_remote, finish;

  assign drop_it  = j_valid && j.drop;
  assign start_ok = !act_q && j_valid && !j.drop;

  assign cur_local = act_q ? cur_local_q : j.local_copy;
  assign cur_rem   = act_q ? rem_q : j.nbeats;
  assign cur_ridx  = act_q ? ridx_q : '0;
  assign rd_ptr    = act_q ? ptr_q : j.start;

  assign can_issue   = (act_q || start_ok) && (!o_valid_q || m_axis_tready);
  assign rd_en       = can_issue;
  assign last_beat   = act_q ? rem1_q : j.nb1;
  // after this copy: another uplink copy? (a flop: the first copy's from the job, the
  // next copies' updated as each copy starts)
  assign more_remote = act_q ? mr_q : j.mr0;
  assign finish      = (can_issue && last_beat && !more_remote) || (!act_q && drop_it);
  assign j_done      = finish;

  always_ff @(posedge clk) begin
    if (can_issue) begin
      if (last_beat) begin
        act_q       <= more_remote;
        cur_local_q <= 1'b0;
        ridx_q      <= cur_local ? '0 : cur_ridx + 1'b1;
        mr_q        <= (cur_local ? (RFC_W + 1)'(1) : (RFC_W + 1)'(cur_ridx) + (RFC_W + 1)'(2))
                       < (RFC_W + 1)'(j.rcnt);
        ptr_q       <= j.start;
        rem_q       <= j.nbeats;
        rem1_q      <= j.nb1;
      end else begin
        act_q       <= 1'b1;
        cur_local_q <= cur_local;
        ridx_q      <= cur_ridx;
        mr_q        <= more_remote;
        ptr_q       <= rd_ptr + 1'b1;
        rem_q       <= cur_rem - 1'b1;
        rem1_q      <= cur_rem == (AW + 1)'(2);
      end
      m_axis_tlast <= last_beat;
      m_local      <= cur_local;
      m_tun        <= j.rlist[cur_ridx * TUN_W +: TUN_W];
      m_vni        <= j.vni;
      m_len        <= j.len;
      m_csum       <= fold(j.sum);
      m_flood      <= j.flood;
      m_qcnt       <= j.qcnt;
      m_qlist      <= j.qlist;
    end
    if (can_issue) o_valid_q <= 1'b1;
    else if (m_axis_tready) o_valid_q <= 1'b0;
    // the last copy frees each beat as it is read; a dropped frame is freed at once
    if (can_issue && !more_remote) rel_ptr_q <= rd_ptr + 1'b1;
    else if (finish) rel_ptr_q <= j.fin;
    if (rst) begin
      act_q     <= 1'b0;
      o_valid_q <= 1'b0;
      rel_ptr_q <= '0;
    end
  end

  assign m_axis_tvalid = o_valid_q;
  assign {m_axis_tkeep, m_axis_tdata} = rd_data;

  // counters: events registered, counted one cycle later
  logic ev_copy_q, ev_frame_q, ev_flood_q, ev_drop_q, ev_trunc_q, ev_bad_q, ev_novni_q;
  always_ff @(posedge clk) begin
    ev_copy_q  <= can_issue && last_beat;
    ev_frame_q <= can_issue && last_beat && !more_remote;
    ev_flood_q <= j.flood;
    ev_drop_q  <= !act_q && drop_it;
    ev_trunc_q <= j.trunc;
    ev_bad_q   <= j.bad;
    ev_novni_q <= j.novni;
    if (ev_copy_q) cnt_copies <= cnt_copies + 1'b1;
    if (ev_frame_q) begin
      cnt_frames <= cnt_frames + 1'b1;
      if (ev_flood_q) cnt_flood <= cnt_flood + 1'b1;
    end
    if (ev_drop_q) begin
      if (ev_trunc_q) cnt_drop_oversize <= cnt_drop_oversize + 1'b1;
      else if (ev_bad_q) cnt_drop_bad <= cnt_drop_bad + 1'b1;
      else if (ev_novni_q) cnt_drop_novni <= cnt_drop_novni + 1'b1;
      else cnt_drop_no_route <= cnt_drop_no_route + 1'b1;
    end
    if (rst) begin
      ev_copy_q         <= 1'b0;
      ev_frame_q        <= 1'b0;
      ev_drop_q         <= 1'b0;
      cnt_frames        <= '0;
      cnt_copies        <= '0;
      cnt_flood         <= '0;
      cnt_drop_oversize <= '0;
      cnt_drop_bad      <= '0;
      cnt_drop_novni    <= '0;
      cnt_drop_no_route <= '0;
    end
  end

  logic unused_d_valid;
  assign unused_d_valid = ^{d_valid, d_in_ready, unused_j_keep, unused_j_last, unused_j_user};
  // d_valid is implied by sum_valid (checked below)

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) assert (!sum_valid || d_valid) else $error("fabnic_vxlan_tx_repl: sum without descriptor");
    if (!rst) assert (near_q == (fbeats_q == (AW + 1)'(DEPTH - 2)))
      else $error("fabnic_vxlan_tx_repl: near_q");
    if (!rst && wr_fire) assert ((wr_ptr_q - rel_ptr_q) != (AW + 1)'(DEPTH))
      else $error("fabnic_vxlan_tx_repl: ring overflow");
    if (!rst && d_push) assert (d_in_ready) else $error("fabnic_vxlan_tx_repl: descriptor overflow");
  end
`endif

endmodule

`resetall
