// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pkt_parser: Ethernet / 802.1Q / IPv4 or IPv6 / UDP header parser.
//
// Per frame: one fabnic_pkt_pkg::pkt_meta_t on m_meta_* (valid no later than the
// frame's first m_axis beat) and one frame on m_axis_*:
//   STRIP=1  the bytes after the last parsed header (UDP payload for UDP, IP payload
//            for other IP, the EtherType payload for non-IP), realigned to lane 0 and
//            cut at the IP length (Ethernet padding removed);
//   STRIP=0  the whole frame unchanged.
// Errors found in the headers are in meta.err and set tuser[0] on the frame's last
// beat; an IP length larger than the frame is only known at the frame's end unless
// the frame ended on the beat that completed the headers: then it is in meta.err,
// otherwise it sets tuser[0] on the last beat and is counted at that point (see
// docs/pkt.md). DROP_ERRORS=1 drops frames with any meta.err bit (no meta, no data).
//
// Structure (every stage registered; one input beat per cycle):
//   input   fabnic_axis_register (skid): s_axis_tready comes from a flop; the beat goes
//           to the beat FIFO (fabnic_axis_fifo, DATA_FIFO_DEPTH, with its byte count for
//           the realigner's CNT_IN) and, while the frame's header window is open, into
//           the window (HBEATS = ceil(88/KEEP_W) beats).
//   launch  fixed rule, no decode on the live beat: the window is decoded when it is
//           full (beat HBEATS-1) or the frame ends, whichever comes first. The headers
//           the frame announces (at most 18+60+8 = 86 bytes) are always inside it.
//   decode  fabnic_pkt_hdr_pipe, 5 registered stages (see its header). Which beat
//           completed the headers (for the ip_length rule above) is derived from need,
//           so the results equal a decision taken on that beat.
//   queues  the decoded command (fabnic_fifo) and metadata (fabnic_fifo, not written
//           for dropped frames); the command is decoded into fabnic_axis_realign's
//           command register (CMD_REG = 1) and released to it once the frame's metadata
//           has been taken (or at once for a dropped frame). Frames in flight between the input and the realigner are
//           bounded by 2*META_DEPTH credits (a frame's first beat waits for one), so
//           the queues never overflow and the decode pipeline never stalls.
// Latency, from the launching beat on the input register's output to cmd_valid: 1
// (window register) + 5 (decode) + 1 (queue write; the metadata is offered the next
// cycle) + 1 (command register, released the cycle after its metadata is taken); before
// it the input register (1) and the wait for the launching beat (beat min(HBEATS, frame
// beats) - 1), after it the realigner's output register (1). Idle
// pipeline, 1500 B UDP/IPv4, first input beat -> first output beat (STRIP=0): 11 cycles
// at DATA_W 512, 20 at 64 (docs/pkt.md, measured by tb/pkt/bench_pkt.py).
// Back-pressure only (no overflow drops). No combinational valid/ready path from an
// input port to an output port.
`default_nettype none

module fabnic_pkt_parser #(
    parameter int DATA_W          = 64,
    parameter int KEEP_W          = DATA_W / 8,
    parameter bit STRIP           = 1'b1,
    parameter bit DROP_ERRORS     = 1'b0,
    parameter int DATA_FIFO_DEPTH = 32,   // beats, power of two
    parameter int META_DEPTH      = 8,    // frames, power of two
    parameter int CNT_W           = 32
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [DATA_W-1:0]         s_axis_tdata,
    input  wire logic [KEEP_W-1:0]         s_axis_tkeep,
    input  wire logic                      s_axis_tvalid,
    output logic                           s_axis_tready,
    input  wire logic                      s_axis_tlast,
    input  wire logic                      s_axis_tuser,

    output fabnic_pkt_pkg::pkt_meta_t      m_meta_data,
    output logic                           m_meta_valid,
    input  wire logic                      m_meta_ready,

    output logic      [DATA_W-1:0]         m_axis_tdata,
    output logic      [KEEP_W-1:0]         m_axis_tkeep,
    output logic                           m_axis_tvalid,
    input  wire logic                      m_axis_tready,
    output logic                           m_axis_tlast,
    output logic                           m_axis_tuser,

    output logic      [CNT_W-1:0]          cnt_frames_in,
    output logic      [CNT_W-1:0]          cnt_bytes_in,
    output logic      [CNT_W-1:0]          cnt_bad_in,      // input tuser[0] on the last beat
    output logic      [CNT_W-1:0]          cnt_frames_out,
    output logic      [CNT_W-1:0]          cnt_dropped,     // DROP_ERRORS drops
    output logic      [CNT_W-1:0]          cnt_non_ip,
    output logic      [CNT_W-1:0]          cnt_ip_frag,
    output logic      [CNT_W-1:0]          cnt_err_runt,
    output logic      [CNT_W-1:0]          cnt_err_ip_version,
    output logic      [CNT_W-1:0]          cnt_err_ipv4_ihl,
    output logic      [CNT_W-1:0]          cnt_err_ipv4_csum,
    output logic      [CNT_W-1:0]          cnt_err_ip_length,
    output logic      [CNT_W-1:0]          cnt_err_udp_length
);

  localparam int HBEATS = (88 + KEEP_W - 1) / KEEP_W;   // 18 + 60 + 8 header bytes max
  localparam int WIN    = HBEATS * KEEP_W;
  localparam int BI_W   = $clog2(HBEATS + 1);
  localparam int LEN_W  = 17;
  localparam int NB_W   = $clog2(KEEP_W + 1);
  localparam int FD     = 2 * META_DEPTH;             // frames in flight (credits)

  if (DATA_FIFO_DEPTH < HBEATS + 4) begin : g_check_fifo
    $error("fabnic_pkt_parser: DATA_FIFO_DEPTH must exceed the header beats + 4");
  end
  if ((1 << $clog2(META_DEPTH)) != META_DEPTH || META_DEPTH < 4) begin : g_check_meta
    $error("fabnic_pkt_parser: META_DEPTH must be a power of two >= 4");
  end
  if (WIN > 255) begin : g_check_win
    $error("fabnic_pkt_parser: DATA_W too large for the 8-bit header window length");
  end

  typedef struct packed {
    logic [LEN_W-1:0] off;
    logic [LEN_W-1:0] len;
    logic             trim;
    logic             chk;
    logic             drop;
    logic             bad;
  } cmd_t;

  // ---------------------------------------------------------------- input register (skid)
  logic [DATA_W-1:0] x_data;
  logic [KEEP_W-1:0] x_keep;
  logic              x_valid, x_ready, x_last, x_user, x_go, x_fire;
  logic              fifo_ready;
  logic              x_inframe_q;        // inside a frame (its first beat was taken)
  logic [FD-1:0]     cr_q;               // free credits, thermometer (bit k: more than k)

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_in (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_axis_tdata(x_data), .m_axis_tkeep(x_keep), .m_axis_tvalid(x_valid),
      .m_axis_tready(x_ready), .m_axis_tlast(x_last), .m_axis_tuser(x_user)
  );

  // a frame starts only with a free credit (one meta/command entry reserved for it)
  // take_q: a credit taken last cycle, not yet in cr_q
  logic take_q;
  assign x_go    = x_inframe_q || (take_q ? cr_q[1] : cr_q[0]);
  assign x_ready = fifo_ready && x_go;
  assign x_fire  = x_valid && x_ready;

  // ---------------------------------------------------------------- header window
  // The first HBEATS beats of a frame (fewer if it ends earlier) are written into the
  // window; the beat that fills it, or the frame's last beat, launches the decode.
  logic               coll_q;            // collecting the current frame's window
  logic [BI_W-1:0]    bidx_q;
  logic [WIN*8-1:0]   hbuf_q;
  logic [DATA_W-1:0]  kbits;
  logic [NB_W-1:0]    nbytes;
  logic               launch;
  logic               l_valid_q, l_ended_q;
  logic [7:0]         l_base_q;
  logic [NB_W-1:0]    l_bytes_q;

  // bytes in the beat: tkeep is packed from lane 0, so the count is the position of its
  // last 1 (an OR of one-hot edges, no adder tree)
  always_comb begin
    logic [KEEP_W:0] kp;
    kp     = {1'b0, x_keep};
    nbytes = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      if (kp[i] && !kp[i+1]) nbytes = nbytes | NB_W'(i + 1);
      kbits[8*i +: 8] = {8{x_keep[i]}};
    end
  end

  assign launch = x_fire && coll_q && (x_last || bidx_q == BI_W'(HBEATS - 1));

  always_ff @(posedge clk) begin
    // a beat offered but not yet taken stays on x_* unchanged: writing it early is harmless
    for (int b = 0; b < HBEATS; b++) begin
      if (x_valid && coll_q && bidx_q == BI_W'(b)) hbuf_q[b*DATA_W +: DATA_W] <= x_data & kbits;
    end
    if (x_fire) begin
      x_inframe_q <= !x_last;
      if (coll_q) bidx_q <= bidx_q + 1'b1;
      if (launch) coll_q <= 1'b0;
      if (x_last) begin
        coll_q <= 1'b1;
        bidx_q <= '0;
      end
    end
    l_valid_q <= launch;
    l_base_q  <= 8'(32'(bidx_q) * KEEP_W);
    l_bytes_q <= nbytes;
    l_ended_q <= x_last;
    if (rst) begin
      x_inframe_q <= 1'b0;
      coll_q      <= 1'b1;
      bidx_q      <= '0;
      l_valid_q   <= 1'b0;
      hbuf_q      <= '0;
    end
  end

  // ---------------------------------------------------------------- decode (LAT cycles)
  logic                      d_valid, d_ended_hdr;
  fabnic_pkt_pkg::pkt_meta_t d_meta;
  logic [16:0]               d_ip_end;

  fabnic_pkt_hdr_pipe #(.WIN_BYTES(WIN)) u_decode (
      .clk, .rst,
      .in_valid(l_valid_q), .in_hdr(hbuf_q), .in_base(l_base_q), .in_bytes(8'(l_bytes_q)),
      .in_ended(l_ended_q),
      .out_valid(d_valid), .out_meta(d_meta), .out_ip_end(d_ip_end), .out_ended_hdr(d_ended_hdr)
  );

  // ---------------------------------------------------------------- command and meta queues
  cmd_t  d_cmd;
  logic  d_is_ip, d_bad;

  always_comb begin
    d_is_ip    = (d_meta.is_ipv4 || d_meta.is_ipv6) && !d_meta.err.runt;
    d_bad      = |d_meta.err;
    d_cmd.bad  = d_bad;
    d_cmd.drop = DROP_ERRORS && d_bad;
    d_cmd.chk  = d_is_ip && !d_ended_hdr && !d_meta.err.ip_length;
    if (STRIP) begin
      d_cmd.off  = LEN_W'(d_meta.payload_offset);
      d_cmd.len  = LEN_W'(d_meta.payload_len);
      d_cmd.trim = d_is_ip;
    end else begin
      d_cmd.off  = '0;
      d_cmd.len  = d_ip_end;
      d_cmd.trim = 1'b0;
    end
  end

  // Credits bound the frames between the input and the realigner's command to FD, so
  // neither queue can overflow (the decode pipeline does not stall).
  logic                            cq_valid, cq_ready, unused_cq_in_ready, unused_mq_in_ready;
  cmd_t                            cq_data;
  logic [$clog2(FD):0]             unused_cq_count, unused_mq_count;

  fabnic_fifo #(.WIDTH($bits(cmd_t)), .DEPTH(FD)) u_cmdq (
      .clk, .rst,
      .in_valid(d_valid), .in_ready(unused_cq_in_ready), .in_data(d_cmd),
      .out_valid(cq_valid), .out_ready(cq_ready), .out_data(cq_data),
      .status_count(unused_cq_count)
  );

  fabnic_fifo #(.WIDTH($bits(fabnic_pkt_pkg::pkt_meta_t)), .DEPTH(FD)) u_metaq (
      .clk, .rst,
      .in_valid(d_valid && !d_cmd.drop), .in_ready(unused_mq_in_ready), .in_data(d_meta),
      .out_valid(m_meta_valid), .out_ready(m_meta_ready), .out_data(m_meta_data),
      .status_count(unused_mq_count)
  );

  // command register: the queue's head is decoded into the realigner's command
  // register (CMD_REG = 1, loaded with c_load), so the realigner's first beat sees flops
  // only; its valid bit and drop flag are kept here. A frame's command is released once
  // its metadata has been taken (tokens: metadata taken, command not yet issued) or
  // when it is dropped (no metadata).
  logic          cmd_valid, cmd_ready, c_valid_q, c_drop_q, c_load, m_meta_fire, tok_dec;
  logic [FD-1:0] tok_q;                  // thermometer

  assign c_load      = !c_valid_q || cmd_ready;
  assign cq_ready    = c_load;
  assign cmd_valid   = c_valid_q && (c_drop_q || tok_q[0]);
  assign m_meta_fire = m_meta_valid && m_meta_ready;
  assign tok_dec     = cmd_ready && !c_drop_q;

  always_ff @(posedge clk) begin
    if (c_load) begin
      c_valid_q <= cq_valid;
      c_drop_q  <= cq_data.drop;
    end
    if (m_meta_fire && !tok_dec) tok_q <= {tok_q[FD-2:0], 1'b1};
    else if (tok_dec && !m_meta_fire) tok_q <= {1'b0, tok_q[FD-1:1]};
    take_q <= x_fire && !x_inframe_q;
    if (take_q && !cmd_ready) cr_q <= {1'b0, cr_q[FD-1:1]};
    else if (cmd_ready && !take_q) cr_q <= {cr_q[FD-2:0], 1'b1};
    if (rst) begin
      c_valid_q <= 1'b0;
      tok_q     <= '0;
      cr_q      <= '1;
      take_q    <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- data path
  // the beat FIFO carries each beat's byte count next to tuser, so the realigner's
  // short and flush checks start from a register (CNT_IN)
  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic [NB_W-1:0]   f_tcnt;
  logic              f_tvalid, f_tready, f_tlast, f_tuser;
  logic [$clog2(DATA_FIFO_DEPTH):0] unused_depth;
  logic unused_good, unused_bad, unused_ovf, unused_ovs;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1 + NB_W),
                     .DEPTH(DATA_FIFO_DEPTH))
  u_fifo (
      .clk, .rst,
      .s_axis_tdata(x_data), .s_axis_tkeep(x_keep), .s_axis_tvalid(x_valid && x_go),
      .s_axis_tready(fifo_ready), .s_axis_tlast(x_last), .s_axis_tuser({nbytes, x_user}),
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser({f_tcnt, f_tuser}),
      .status_depth(unused_depth), .status_good_frame(unused_good),
      .status_bad_frame(unused_bad), .status_overflow(unused_ovf), .status_oversize(unused_ovs)
  );

  logic st_done, st_short;

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(LEN_W), .CNT_IN(1'b1),
                        .CMD_REG(1'b1))
  u_realign (
      .clk, .rst,
      .cmd_valid, .cmd_ready, .cmd_off(cq_data.off), .cmd_len(cq_data.len),
      .cmd_trim(cq_data.trim), .cmd_chk(cq_data.chk), .cmd_drop(cq_data.drop),
      .cmd_bad(cq_data.bad), .cmd_load(c_load),
      .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tcnt(f_tcnt), .s_axis_tvalid(f_tvalid),
      .s_axis_tready(f_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser, .status_done(st_done), .status_short(st_short)
  );

  // ---------------------------------------------------------------- counters (wrap)
  fabnic_pkt_pkg::pkt_err_t e;
  logic       in_fire_q, in_last_q, in_bad_q, out_last_q;
  logic [1:0] iplen_inc;
  assign e         = d_meta.err;
  assign iplen_inc = 2'(d_valid && e.ip_length) + 2'(st_done && st_short);

  always_ff @(posedge clk) begin
    in_fire_q  <= x_fire;
    in_last_q  <= x_fire && x_last;
    in_bad_q   <= x_fire && x_last && x_user;
    out_last_q <= m_axis_tvalid && m_axis_tready && m_axis_tlast;
    if (in_fire_q) cnt_bytes_in <= cnt_bytes_in + CNT_W'(l_bytes_q);
    if (in_last_q) cnt_frames_in <= cnt_frames_in + 1'b1;
    if (in_bad_q) cnt_bad_in <= cnt_bad_in + 1'b1;
    if (out_last_q) cnt_frames_out <= cnt_frames_out + 1'b1;
    if (d_valid) begin
      cnt_dropped        <= cnt_dropped + CNT_W'(d_cmd.drop);
      cnt_non_ip         <= cnt_non_ip + CNT_W'(!d_meta.is_ipv4 && !d_meta.is_ipv6 && !e.runt);
      cnt_ip_frag        <= cnt_ip_frag + CNT_W'(d_meta.ip_frag && !e.runt);
      cnt_err_runt       <= cnt_err_runt + CNT_W'(e.runt);
      cnt_err_ip_version <= cnt_err_ip_version + CNT_W'(e.ip_version);
      cnt_err_ipv4_ihl   <= cnt_err_ipv4_ihl + CNT_W'(e.ipv4_ihl);
      cnt_err_ipv4_csum  <= cnt_err_ipv4_csum + CNT_W'(e.ipv4_csum);
      cnt_err_udp_length <= cnt_err_udp_length + CNT_W'(e.udp_length);
    end
    cnt_err_ip_length <= cnt_err_ip_length + CNT_W'(iplen_inc);
    if (rst) begin
      in_fire_q          <= 1'b0;
      in_last_q          <= 1'b0;
      in_bad_q           <= 1'b0;
      out_last_q         <= 1'b0;
      cnt_frames_in      <= '0;
      cnt_bytes_in       <= '0;
      cnt_bad_in         <= '0;
      cnt_frames_out     <= '0;
      cnt_dropped        <= '0;
      cnt_non_ip         <= '0;
      cnt_ip_frag        <= '0;
      cnt_err_runt       <= '0;
      cnt_err_ip_version <= '0;
      cnt_err_ipv4_ihl   <= '0;
      cnt_err_ipv4_csum  <= '0;
      cnt_err_ip_length  <= '0;
      cnt_err_udp_length <= '0;
    end
  end

endmodule

`resetall
