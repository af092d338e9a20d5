// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dma_wr: host-memory write DMA engine.
//
// A descriptor (host address, byte length, tag) plus one AXI-Stream frame
// (first byte in lane 0) become AXI4 INCR write bursts of at most
// BURST_BYTES = min(MAX_BURST_LEN * bytes-per-beat, 4096) bytes, each inside
// its BURST_BYTES-aligned block (never crossing 4 KB). WSTRB enables exactly
// the bytes of [address, address+length) that the stream supplied. One fixed
// AWID; B responses return in order; up to MAX_OUTSTANDING bursts are in
// flight (AW issued, B not yet received). The W beats of a burst are presented
// no earlier than the cycle after its AWVALID is raised (AXI4 lets WVALID lead
// AWREADY; a slave may hold WREADY low until it has the AW).
//
// Completion (tag, status) is given in descriptor order, only after every B
// response of the descriptor arrived. status[0] = some BRESP was not OKAY,
// status[1] = the stream frame did not match the length:
//   shorter: the missing bytes are not written (WSTRB 0 padding keeps the
//            already-issued bursts complete);
//   longer:  the extra bytes are discarded up to and including tlast.
// Either way nothing outside [address, address+length) is written. A
// zero-length descriptor uses no stream frame and no bus traffic; it completes
// (status 0) as soon as every earlier descriptor completed.
//
// Pipeline (decide in one stage, act in the next):
//   desc   s_desc_* enters a skid register (fabnic_axis_register, REG_TYPE 2);
//          len-1 and len==0 are computed on the way in.
//   prep   one register stage computes, from narrow adds, the bursts after the
//          first, the last burst's beat, the first/last/single-burst AWLEN
//          values, AXI and stream beat counts minus one with their ==0/==1
//          flags, and the last lane of the last AXI beat.
//   split  the burst splitter issues one AW per cycle from registered values
//          (next burst at the next block, a down-counter of bursts with a
//          registered "last" flag); a descriptor is loaded in the cycle the
//          previous one's last AW is registered; a zero-length one waits for an
//          idle splitter.
//   W      s_axis_* enters a skid register. The current descriptor is held in
//          registers (loaded from the W info FIFO head when the previous one is
//          done) with down-counters of AXI and stream beats, the beat index in
//          the burst block and registered last/one flags; each lane is a B:1
//          multiplexer on the registered offset (stages of 4:1); WSTRB is the
//          shifted keep AND a lane gate of registered values (first/last lane
//          masks loaded with the descriptor, "stream beat needed").
//          m_axi_w* leave through a skid register (wready reaches no decision).
//          FIFO room (B info, W info, stream status) is a registered flag from
//          the previous cycle's occupancy; the stream-status push is registered
//          one cycle after the W decision.
//   B      bready comes from a head register in front of the B-info FIFO (flops
//          only); the last B of a descriptor queues {tag, error} in a completion
//          FIFO (with a head register), and a completion leaves when its stream
//          status is there. The outstanding count is released on the B
//          handshake.
// Latency: AWVALID 3 cycles after a descriptor is accepted on an idle engine
// (desc skid, prep, AW register; 2 more than a single-cycle front end), WVALID
// one cycle after AWVALID when the data is there (s_axis skid included);
// m_cpl_valid 2 cycles after the last B handshake (completion FIFO and its head
// register). Throughput: one AW and one W beat per cycle, no bubble between
// descriptors. Every handshake at the boundary is registered: no combinational
// path from a valid/ready input to a valid/ready output.
`default_nettype none

module fabnic_dma_wr #(
    parameter int AXI_DATA_W      = 512,
    parameter int ADDR_W          = 64,
    parameter int ID_W            = 4,
    parameter int LEN_W           = 32,   // max length 2^LEN_W-1
    parameter int TAG_W           = 8,
    parameter int MAX_BURST_LEN   = 64,   // beats per burst, power of two, <= 256
    parameter int MAX_OUTSTANDING = 16,   // bursts with AW issued and B outstanding
    parameter int DESC_DEPTH      = 16,   // descriptors queued for the W path (pow2)
    parameter logic [ID_W-1:0] AXI_ID = '0,
    parameter int STRB_W          = AXI_DATA_W / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [ADDR_W-1:0]     s_desc_addr,
    input  wire logic [LEN_W-1:0]      s_desc_len,
    input  wire logic [TAG_W-1:0]      s_desc_tag,
    input  wire logic                  s_desc_valid,
    output logic                       s_desc_ready,

    output logic [TAG_W-1:0]           m_cpl_tag,
    output logic [1:0]                 m_cpl_status,
    output logic                       m_cpl_valid,
    input  wire logic                  m_cpl_ready,

    input  wire logic [AXI_DATA_W-1:0] s_axis_tdata,
    input  wire logic [STRB_W-1:0]     s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output logic                       s_axis_tready,
    input  wire logic                  s_axis_tlast,

    output logic [ID_W-1:0]            m_axi_awid,
    output logic [ADDR_W-1:0]          m_axi_awaddr,
    output logic [7:0]                 m_axi_awlen,
    output logic [2:0]                 m_axi_awsize,
    output logic [1:0]                 m_axi_awburst,
    output logic                       m_axi_awlock,
    output logic [3:0]                 m_axi_awcache,
    output logic [2:0]                 m_axi_awprot,
    output logic                       m_axi_awvalid,
    input  wire logic                  m_axi_awready,
    output logic [AXI_DATA_W-1:0]      m_axi_wdata,
    output logic [STRB_W-1:0]          m_axi_wstrb,
    output logic                       m_axi_wlast,
    output logic                       m_axi_wvalid,
    input  wire logic                  m_axi_wready,
    input  wire logic [ID_W-1:0]       m_axi_bid,
    input  wire logic [1:0]            m_axi_bresp,
    input  wire logic                  m_axi_bvalid,
    output logic                       m_axi_bready,

    output logic [$clog2(MAX_OUTSTANDING+1)-1:0] status_outstanding,
    output logic                       status_len_mismatch  // pulse per mismatching frame
);

  localparam int B           = STRB_W;
  localparam int OFF_W       = $clog2(B);
  localparam int BURST_BYTES = (MAX_BURST_LEN * B > 4096) ? 4096 : MAX_BURST_LEN * B;
  localparam int BB_W        = $clog2(BURST_BYTES);
  localparam int BI_W        = BB_W - OFF_W;          // beat index inside a burst block
  localparam int BLK_BEATS   = BURST_BYTES / B;
  localparam int CNT_W       = LEN_W - OFF_W + 1;
  localparam int NB_W        = LEN_W + 1 - BB_W;      // bursts after the first
  localparam int BEAT_W      = ADDR_W - OFF_W;        // beat address
  localparam int OS_W        = $clog2(MAX_OUTSTANDING + 1);
  localparam int D_W         = TAG_W + ADDR_W + LEN_W + 1;

  if (B * 8 != AXI_DATA_W || (1 << OFF_W) != B || B < 2) begin : g_check_w
    $error("fabnic_dma_wr: AXI_DATA_W must be a power of two >= 16");
  end
  if ((1 << $clog2(MAX_BURST_LEN)) != MAX_BURST_LEN || MAX_BURST_LEN > 256
      || MAX_BURST_LEN < 2) begin : g_check_bl
    $error("fabnic_dma_wr: MAX_BURST_LEN must be a power of two in 2..256");
  end
  if (LEN_W <= BB_W || ADDR_W <= BB_W) begin : g_check_len
    $error("fabnic_dma_wr: LEN_W and ADDR_W must exceed log2(burst bytes)");
  end
  if (MAX_OUTSTANDING < 1 || DESC_DEPTH < 2) begin : g_check_os
    $error("fabnic_dma_wr: MAX_OUTSTANDING >= 1 and DESC_DEPTH >= 2 required");
  end

  // ---------------------------------------------------------------- desc skid
  logic [D_W-1:0]    d_in, d_out;
  logic              d_valid, d_ready;
  logic [TAG_W-1:0]  d_tag;
  logic [ADDR_W-1:0] d_addr;
  logic [LEN_W-1:0]  d_len_m1;
  logic              d_zero;
  logic              d_unused_keep, d_unused_last, d_unused_user;

  assign d_in = {s_desc_tag, s_desc_addr, s_desc_len - 1'b1, s_desc_len == '0};
  assign {d_tag, d_addr, d_len_m1, d_zero} = d_out;

  fabnic_axis_register #(.DATA_W(D_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_desc_reg (
      .clk, .rst,
      .s_axis_tdata(d_in), .s_axis_tkeep(1'b0), .s_axis_tvalid(s_desc_valid),
      .s_axis_tready(s_desc_ready), .s_axis_tlast(1'b0), .s_axis_tuser(1'b0),
      .m_axis_tdata(d_out), .m_axis_tkeep(d_unused_keep), .m_axis_tvalid(d_valid),
      .m_axis_tready(d_ready), .m_axis_tlast(d_unused_last), .m_axis_tuser(d_unused_user));

  // ---------------------------------------------------------------- FIFOs
  typedef struct packed {
    logic [OFF_W-1:0] off;        // address mod B
    logic [OFF_W-1:0] end_lane;   // last byte lane of the last AXI beat
    logic [OFF_W-1:0] last_lane;  // (len-1) mod B: last byte lane of the stream
    logic [BI_W-1:0]  beat0;      // beat index of the first beat inside its burst block
    logic             blk0;       // beat0 is the last beat of its block
    logic [CNT_W-1:0] ob;         // stream beats
    logic             ob1;        // stream beats == 1
    logic [CNT_W-1:0] ib_m1;      // AXI beats - 1
    logic             ib_eq1;     // AXI beats == 1
    logic             ib_eq2;     // AXI beats == 2
  } winfo_t;

  typedef struct packed {
    logic [TAG_W-1:0] tag;
    logic             last;       // last burst of its descriptor
    logic             zero;       // zero-length descriptor, no B to wait for
  } binfo_t;

  localparam int BQ_DEPTH = 2 * MAX_OUTSTANDING;  // B-info entries
  localparam int WS_DEPTH = 2 * DESC_DEPTH;       // stream-status entries
  localparam int WQ_DEPTH = 2 * DESC_DEPTH;       // W-info entries (DESC_DEPTH used)

  winfo_t winfo_in, winfo;
  logic   winfo_room_q, winfo_valid, winfo_pop, winfo_unused_ready;
  logic [$clog2(WQ_DEPTH):0] winfo_count;
  binfo_t binfo_in, bq_data, binfo;   // binfo: head register in front of the B-info FIFO
  logic   binfo_in_valid, bq_valid, bq_pop, binfo_valid, binfo_pop;
  logic   wst_in, wst, wst_push, wst_valid, wst_pop;
  logic   wst_in_q, wst_push_q;       // the status push, one cycle after the W decision
  // room flags registered from the occupancy of the previous cycle: at most one push a
  // cycle, so one free slot then is one free slot now (the FIFO's own in_ready is a
  // pointer compare, too deep to feed the issue and W decisions)
  logic   binfo_room_q, wst_room_q;
  logic [$clog2(BQ_DEPTH):0] binfo_count;
  logic [$clog2(WS_DEPTH):0] wst_count;
  logic   binfo_unused_ready, wst_unused_ready;

  // ---------------------------------------------------------------- prep stage
  logic              q_valid, q_ready, q_fire, q_zero;
  logic [TAG_W-1:0]  q_tag;
  logic [BEAT_W-1:0] q_beat;      // first beat address
  logic [NB_W-1:0]   q_nb;        // bursts after the first
  logic              q_nb0, q_nb1;
  logic [7:0]        q_alen_f, q_alen_l, q_alen_s;  // first / last / single burst AWLEN

  logic [LEN_W:0]    s_blk, s_in;
  logic [OFF_W-1:0]  s_lane;
  logic [NB_W-1:0]   nb;
  logic [BI_W-1:0]   first_lo_n;  // ~(first beat in its block): beats after it in the block
  winfo_t            p_winfo;

  always_comb begin
    s_blk  = {1'b0, d_len_m1} + (LEN_W+1)'(d_addr[BB_W-1:0]);   // last byte, in-block base
    s_in   = {1'b0, d_len_m1} + (LEN_W+1)'(d_addr[OFF_W-1:0]);  // last byte, beat base
    s_lane = d_len_m1[OFF_W-1:0] + d_addr[OFF_W-1:0];   // mod B
    nb     = s_blk[LEN_W:BB_W];
    first_lo_n = ~d_addr[BB_W-1:OFF_W];
    p_winfo.off       = d_addr[OFF_W-1:0];
    p_winfo.end_lane  = s_lane;
    p_winfo.last_lane = d_len_m1[OFF_W-1:0];
    p_winfo.beat0     = d_addr[BB_W-1:OFF_W];
    p_winfo.blk0      = &d_addr[BB_W-1:OFF_W];
    p_winfo.ob        = CNT_W'(d_len_m1[LEN_W-1:OFF_W]) + 1'b1;
    p_winfo.ob1       = d_len_m1[LEN_W-1:OFF_W] == '0;
    p_winfo.ib_m1     = s_in[LEN_W:OFF_W];
    p_winfo.ib_eq1    = s_in[LEN_W:OFF_W] == '0;
    p_winfo.ib_eq2    = s_in[LEN_W:OFF_W] == CNT_W'(1);
  end

  assign d_ready = !q_valid || q_ready;

  always_ff @(posedge clk) begin
    if (d_ready) begin
      q_valid  <= d_valid;
      q_zero   <= d_zero;
      q_tag    <= d_tag;
      winfo_in <= p_winfo;
      q_beat   <= d_addr[ADDR_W-1:OFF_W];
      q_nb     <= nb;
      q_nb0    <= nb == '0;
      q_nb1    <= nb == NB_W'(1);
      q_alen_f <= 8'(first_lo_n);
      q_alen_l <= 8'(s_blk[BB_W-1:OFF_W]);
      q_alen_s <= 8'(s_in[LEN_W:OFF_W]);
    end
    if (rst) q_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- burst splitter
  logic              act_q, first_q, last_q, nb1_q, os_ok_q;  // os_ok_q: outstanding < MAX
  logic [BEAT_W-1:0] beat_q;
  logic [NB_W-1:0]   nbr_q;       // bursts after the current one
  logic [7:0]        alen_f_q, alen_l_q, alen_s_q;
  logic [TAG_W-1:0]  tag_q;
  logic [OS_W-1:0]   outstanding_q;
  logic              b_bus_fire;
  // kept nets: one LUT each, so that synthesis cannot chain the handshake terms
  // (issue 1 level, issue_last 1, q_ready 2, d_ready and q_fire 3)
  (* keep *) logic   issue, issue_last, q_ready_k;

  assign issue      = act_q && (!m_axi_awvalid || m_axi_awready) && binfo_room_q && os_ok_q;
  assign issue_last = act_q && last_q && (!m_axi_awvalid || m_axi_awready) && binfo_room_q
                      && os_ok_q;
  // a descriptor is loaded when idle or in the cycle its predecessor's last burst issues;
  // a zero-length one needs an idle splitter (its B-info entry follows every burst)
  assign q_ready_k = q_zero ? (!act_q && binfo_room_q)
                            : ((!act_q || issue_last) && winfo_room_q);
  assign q_ready   = q_ready_k;
  assign q_fire    = q_valid && q_ready_k;

  assign binfo_in_valid = issue || (q_fire && q_zero);
  assign binfo_in.tag   = issue ? tag_q : q_tag;
  assign binfo_in.last  = issue ? last_q : 1'b1;
  assign binfo_in.zero  = !issue;

  fabnic_fifo #(.WIDTH($bits(winfo_t)), .DEPTH(WQ_DEPTH)) u_winfo (
      .clk, .rst,
      .in_data(winfo_in), .in_valid(q_fire && !q_zero), .in_ready(winfo_unused_ready),
      .out_data(winfo), .out_valid(winfo_valid), .out_ready(winfo_pop),
      .status_count(winfo_count));

  // one entry per burst plus one per zero-length descriptor
  fabnic_fifo #(.WIDTH($bits(binfo_t)), .DEPTH(BQ_DEPTH)) u_binfo (
      .clk, .rst,
      .in_data(binfo_in), .in_valid(binfo_in_valid), .in_ready(binfo_unused_ready),
      .out_data(bq_data), .out_valid(bq_valid), .out_ready(bq_pop),
      .status_count(binfo_count));

  // the head entry sits in a register, so bready comes from flops
  assign bq_pop = (!binfo_valid || binfo_pop) && bq_valid;

  always_ff @(posedge clk) begin
    if (!binfo_valid || binfo_pop) begin
      binfo_valid <= bq_valid;
      binfo       <= bq_data;
    end
    if (rst) binfo_valid <= 1'b0;
  end

  // stream status per descriptor, written by the W path, read with the last B
  fabnic_fifo #(.WIDTH(1), .DEPTH(WS_DEPTH)) u_wst (
      .clk, .rst,
      .in_data(wst_in_q), .in_valid(wst_push_q), .in_ready(wst_unused_ready),
      .out_data(wst), .out_valid(wst_valid), .out_ready(wst_pop), .status_count(wst_count));

  always_ff @(posedge clk) begin
    binfo_room_q <= binfo_count < ($clog2(BQ_DEPTH)+1)'(BQ_DEPTH - 1);
    winfo_room_q <= winfo_count < ($clog2(WQ_DEPTH)+1)'(DESC_DEPTH);
    // two free slots: a push decided with this flag lands one cycle later
    wst_room_q   <= wst_count < ($clog2(WS_DEPTH)+1)'(WS_DEPTH - 2);
    if (rst) begin
      binfo_room_q <= 1'b0;
      winfo_room_q <= 1'b0;
      wst_room_q   <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (m_axi_awready) m_axi_awvalid <= 1'b0;
    if (issue) begin
      m_axi_awvalid <= 1'b1;
      m_axi_awaddr  <= {beat_q, OFF_W'(0)};
      m_axi_awlen   <= first_q ? (last_q ? alen_s_q : alen_f_q)
                               : (last_q ? alen_l_q : 8'(BLK_BEATS - 1));
      beat_q        <= {beat_q[BEAT_W-1:BI_W] + 1'b1, BI_W'(0)};  // next block
      nbr_q         <= nbr_q - 1'b1;
      last_q        <= nb1_q;
      nb1_q         <= nbr_q == NB_W'(2);
      first_q       <= 1'b0;
      if (last_q) act_q <= 1'b0;
    end
    if (q_fire && !q_zero) begin
      act_q    <= 1'b1;
      first_q  <= 1'b1;
      tag_q    <= q_tag;
      beat_q   <= q_beat;
      nbr_q    <= q_nb;
      last_q   <= q_nb0;
      nb1_q    <= q_nb1;
      alen_f_q <= q_alen_f;
      alen_l_q <= q_alen_l;
      alen_s_q <= q_alen_s;
    end
    outstanding_q <= outstanding_q + OS_W'(issue) - OS_W'(b_bus_fire);
    // outstanding_q + issue - b < MAX, from compares of the current count
    os_ok_q       <= (issue && !b_bus_fire) ? outstanding_q < OS_W'(MAX_OUTSTANDING - 1)
                   : (!issue && b_bus_fire) || outstanding_q < OS_W'(MAX_OUTSTANDING);
    if (rst) begin
      act_q         <= 1'b0;
      m_axi_awvalid <= 1'b0;
      outstanding_q <= '0;
      os_ok_q       <= 1'b1;
    end
  end

  assign m_axi_awid    = AXI_ID;
  assign m_axi_awsize  = 3'(OFF_W);
  assign m_axi_awburst = 2'b01;
  assign m_axi_awlock  = 1'b0;
  assign m_axi_awcache = 4'b0011;
  assign m_axi_awprot  = 3'b010;
  assign status_outstanding = outstanding_q;

  // ---------------------------------------------------------------- s_axis skid
  logic [AXI_DATA_W-1:0] t_data;
  logic [STRB_W-1:0]     t_keep;
  logic                  t_valid, t_ready, t_last, t_unused_user;

  fabnic_axis_register #(.DATA_W(AXI_DATA_W), .KEEP_W(STRB_W), .USER_W(1), .REG_TYPE(2)) u_t_reg (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser(1'b0),
      .m_axis_tdata(t_data), .m_axis_tkeep(t_keep), .m_axis_tvalid(t_valid),
      .m_axis_tready(t_ready), .m_axis_tlast(t_last), .m_axis_tuser(t_unused_user));

  // ---------------------------------------------------------------- W path
  // AXI beat j, lanes [off..B-1] = stream beat j lanes [0..B-off-1];
  //             lanes [0..off-1] = stream beat j-1 lanes [B-off..B-1].
  logic                  c_valid_q, first_q_w;
  logic [OFF_W-1:0]      c_off_q;
  logic [STRB_W-1:0]     c_exp_keep_q;     // tkeep expected on the last stream beat
  logic [CNT_W-1:0]      t_rem_q, s_rem_q; // AXI beats after this one; stream beats to take
  logic                  t_last_q, t_one_q;   // t_rem == 0, t_rem == 1
  logic                  s_left_q, s_one_q;   // s_rem != 0, s_rem == 1
  logic [BI_W-1:0]       bidx_q;           // beat index inside the burst block
  logic                  blk_last_q;       // bidx_q is the block's last beat
  logic [AXI_DATA_W-1:0] prev_data_q;
  logic [STRB_W-1:0]     prev_keep_q;
  logic                  ended_q, mism_q, drain_q;
  logic [OS_W-1:0]       aw_credit_q;   // AWs issued (AWVALID raised) minus W bursts emitted
  logic                  credit_q;      // aw_credit_q != 0
  logic                  w_burst_end;

  logic w_slot, need_in, w_ok, w_fire, in_fire, wlast, ends_now, w_done;
  logic w_in_ready, w_unused_user;
  logic [STRB_W-1:0] wstrb;
  logic mism_now, drain_fire, drain_end, keep_bad;
  logic [STRB_W-1:0]     c_fmask_q;        // lanes >= c_off_q
  logic [STRB_W-1:0]     c_lmask_q;        // lanes <= the last AXI beat's end lane
  logic [STRB_W-1:0]     keep_sh;
  logic [AXI_DATA_W-1:0] data_sh;

  assign w_slot     = w_in_ready;   // the W register slice has room (a flop)
  assign need_in    = s_left_q && !ended_q;
  assign w_ok       = c_valid_q && !drain_q && w_slot && credit_q
                      && (!t_last_q || wst_room_q);
  assign w_fire     = w_ok && (!need_in || t_valid);
  assign in_fire    = w_fire && need_in;
  assign drain_fire = drain_q && t_valid && wst_room_q;
  assign drain_end  = drain_fire && t_last;
  assign t_ready    = (w_ok && need_in) || (drain_q && wst_room_q);
  assign wlast      = t_last_q || blk_last_q;
  assign w_burst_end = w_fire && wlast;
  assign ends_now   = ended_q || (in_fire && t_last);
  // keep_bad = t_keep != c_exp_keep_q as a balanced tree of kept nets: 3-lane chunks
  // (one LUT each), then groups of 6 chunks, then the OR of the groups
  localparam int KB_NCH = (STRB_W + 2) / 3;
  localparam int KB_NG  = (KB_NCH + 5) / 6;
  (* keep *) logic [KB_NCH-1:0] kb_ch;
  (* keep *) logic [KB_NG-1:0]  kb_grp;
  always_comb begin
    for (int j = 0; j < KB_NCH; j++) begin
      kb_ch[j] = 1'b0;
      for (int i = 3 * j; i < 3 * j + 3 && i < STRB_W; i++)
        kb_ch[j] |= t_keep[i] ^ c_exp_keep_q[i];
    end
    for (int g = 0; g < KB_NG; g++) begin
      kb_grp[g] = 1'b0;
      for (int j = 6 * g; j < 6 * g + 6 && j < KB_NCH; j++) kb_grp[g] |= kb_ch[j];
    end
  end
  assign keep_bad   = |kb_grp;

  // lane i: stream byte i-off of this beat if i >= off, else byte B-off+i of the
  // previous one: the upper half of {this, previous} shifted left by off lanes, a lane
  // being {keep bit, data byte}. The shifter is written as stages of 4:1 multiplexers
  // (two bits of the offset each, one LUT level per stage, kept nets between stages).
  localparam int SH_ST = (OFF_W + 1) / 2;
  (* keep *) logic [2*B*9-1:0] sh_v [SH_ST+1];
  always_comb begin
    for (int i = 0; i < B; i++) begin
      sh_v[0][9*i +: 9]     = {prev_keep_q[i], prev_data_q[8*i +: 8]};
      sh_v[0][9*(B+i) +: 9] = {t_keep[i], t_data[8*i +: 8]};
    end
    for (int st = 0; st < SH_ST; st++) begin
      logic [1:0] sel;
      sel = 2'(c_off_q >> (2 * st));
      for (int i = 0; i < 2 * B; i++) begin
        sh_v[st+1][9*i +: 9] = '0;
        for (int k = 0; k < 4; k++)
          if (sel == 2'(k) && i >= (k << (2 * st)))
            sh_v[st+1][9*i +: 9] = sh_v[st][9*(i - (k << (2 * st))) +: 9];
      end
    end
    for (int i = 0; i < B; i++) begin
      data_sh[8*i +: 8] = sh_v[SH_ST][9*(B+i) +: 8];
      keep_sh[i]        = sh_v[SH_ST][9*(B+i) + 8];
    end
    // frame/length mismatch seen on this stream beat
    mism_now = in_fire && ((t_last ^ s_one_q) || (s_one_q && keep_bad));
  end

  // W register slice (skid): m_axi_w* from flops, wready does not reach the W decision.
  // Lanes below the offset carry the previous stream beat (masked on the first AXI beat),
  // the others the current one (taken only when a stream beat is needed: in a W beat
  // in_fire == need_in); the last AXI beat ends at its end lane. The lane gate is one
  // LUT of registered values, kept.
  (* keep *) logic [STRB_W-1:0] strb_gate;
  always_comb begin
    for (int i = 0; i < STRB_W; i++)
      strb_gate[i] = (!t_last_q || c_lmask_q[i])
                     && (c_fmask_q[i] ? (s_left_q && !ended_q) : !first_q_w);
  end
  assign wstrb = keep_sh & strb_gate;

  fabnic_axis_register #(.DATA_W(AXI_DATA_W), .KEEP_W(STRB_W), .USER_W(1), .REG_TYPE(2)) u_w_reg (
      .clk, .rst,
      .s_axis_tdata(data_sh), .s_axis_tkeep(wstrb), .s_axis_tvalid(w_fire),
      .s_axis_tready(w_in_ready), .s_axis_tlast(wlast), .s_axis_tuser(1'b0),
      .m_axis_tdata(m_axi_wdata), .m_axis_tkeep(m_axi_wstrb), .m_axis_tvalid(m_axi_wvalid),
      .m_axis_tready(m_axi_wready), .m_axis_tlast(m_axi_wlast), .m_axis_tuser(w_unused_user));

  // the descriptor's W beats are done (and its frame consumed)
  // = (w_fire && t_last_q && ends_now) || drain_end, written flat (w_fire && ends_now
  // needs no stream beat once the frame ended, else the frame's tlast beat)
  assign w_done    = (w_ok && t_last_q && (ended_q || (s_left_q && t_valid && t_last)))
                     || drain_end;
  // out_ready of the W-info FIFO (which pops only when valid); a load when it is valid
  assign winfo_pop = w_done || !c_valid_q;
  assign wst_push  = w_done;
  assign wst_in    = mism_q || mism_now || drain_q;
  assign status_len_mismatch = wst_push_q && wst_in_q;

  always_ff @(posedge clk) begin
    wst_push_q <= wst_push;
    wst_in_q   <= wst_in;
    if (w_fire) begin
      prev_data_q  <= t_data;
      prev_keep_q  <= need_in ? t_keep : '0;
    end
    aw_credit_q <= aw_credit_q + OS_W'(issue) - OS_W'(w_burst_end);
    credit_q    <= issue || (w_burst_end ? aw_credit_q > OS_W'(1) : aw_credit_q != '0);
    if (w_done || !c_valid_q) c_valid_q <= winfo_valid;
    if (winfo_pop) begin           // (an empty FIFO loads junk that c_valid_q marks unused)
      first_q_w    <= 1'b1;
      c_off_q      <= winfo.off;
      c_exp_keep_q <= {STRB_W{1'b1}} >> (B - 1 - int'(winfo.last_lane));
      c_fmask_q    <= {STRB_W{1'b1}} << winfo.off;
      c_lmask_q    <= {STRB_W{1'b1}} >> (B - 1 - int'(winfo.end_lane));
      t_rem_q      <= winfo.ib_m1;
      t_last_q     <= winfo.ib_eq1;
      t_one_q      <= winfo.ib_eq2;
      s_rem_q      <= winfo.ob;
      s_left_q     <= 1'b1;
      s_one_q      <= winfo.ob1;
      bidx_q       <= winfo.beat0;
      blk_last_q   <= winfo.blk0;
    end else begin
      if (w_fire) begin
        first_q_w  <= 1'b0;
        t_rem_q    <= t_rem_q - 1'b1;
        t_last_q   <= t_one_q;
        t_one_q    <= t_rem_q == CNT_W'(2);
        bidx_q     <= bidx_q + 1'b1;
        blk_last_q <= bidx_q == BI_W'(BLK_BEATS - 2);
      end
      if (in_fire) begin
        s_rem_q  <= s_rem_q - 1'b1;
        s_left_q <= !s_one_q;
        s_one_q  <= s_rem_q == CNT_W'(2);
      end
    end
    if (w_done) begin
      ended_q     <= 1'b0;
      mism_q      <= 1'b0;
      drain_q     <= 1'b0;
      prev_keep_q <= '0;
    end else begin
      if (in_fire && t_last) ended_q <= 1'b1;
      if (mism_now) mism_q <= 1'b1;
      if (w_fire && t_last_q && !ends_now) drain_q <= 1'b1;
    end
    if (rst) begin
      c_valid_q    <= 1'b0;
      aw_credit_q  <= '0;
      credit_q     <= 1'b0;
      ended_q      <= 1'b0;
      mism_q       <= 1'b0;
      drain_q      <= 1'b0;
      prev_keep_q  <= '0;
      wst_push_q   <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- B tracking
  // B responses are taken against the B-info FIFO (bready from registered state only);
  // the last B of a descriptor (or its zero-length entry) queues {tag, error} in the
  // completion FIFO, and a completion leaves when its stream status is there too.
  typedef struct packed {
    logic [TAG_W-1:0] tag;
    logic             berr;       // some BRESP of the descriptor was not OKAY
    logic             zero;       // zero-length: no stream status to wait for
  } cinfo_t;

  localparam int CQ_DEPTH = DESC_DEPTH;

  cinfo_t cinfo_in, cq_data, cinfo;  // cinfo: head register in front of the FIFO
  logic   cinfo_push, cq_valid, cq_pop, cinfo_valid, cinfo_pop, cq_room_q, cq_unused_ready;
  logic   berr_q, cpl_slot, zero_done, cpl_fire;
  logic [$clog2(CQ_DEPTH):0] cq_count;

  assign m_axi_bready = binfo_valid && !binfo.zero && cq_room_q;
  assign b_bus_fire   = m_axi_bvalid && m_axi_bready;
  assign zero_done    = binfo_valid && binfo.zero && cq_room_q;
  assign binfo_pop    = b_bus_fire || zero_done;
  assign cinfo_push   = (b_bus_fire && binfo.last) || zero_done;
  assign cinfo_in.tag  = binfo.tag;
  assign cinfo_in.berr = !binfo.zero && (berr_q || m_axi_bresp[1]);
  assign cinfo_in.zero = binfo.zero;

  fabnic_fifo #(.WIDTH($bits(cinfo_t)), .DEPTH(CQ_DEPTH)) u_cinfo (
      .clk, .rst,
      .in_data(cinfo_in), .in_valid(cinfo_push), .in_ready(cq_unused_ready),
      .out_data(cq_data), .out_valid(cq_valid), .out_ready(cq_pop),
      .status_count(cq_count));

  assign cq_pop = (!cinfo_valid || cinfo_pop) && cq_valid;

  always_ff @(posedge clk) begin
    if (!cinfo_valid || cinfo_pop) begin
      cinfo_valid <= cq_valid;
      cinfo       <= cq_data;
    end
    if (rst) cinfo_valid <= 1'b0;
  end

  assign cpl_slot  = !m_cpl_valid || m_cpl_ready;
  assign cpl_fire  = cinfo_valid && (cinfo.zero || wst_valid) && cpl_slot;
  assign cinfo_pop = cpl_fire;
  assign wst_pop   = cpl_fire && !cinfo.zero;

  always_ff @(posedge clk) begin
    cq_room_q <= cq_count < ($clog2(CQ_DEPTH)+1)'(CQ_DEPTH - 1);
    if (b_bus_fire) berr_q <= binfo.last ? 1'b0 : (berr_q || m_axi_bresp[1]);
    if (m_cpl_ready) m_cpl_valid <= 1'b0;
    if (cpl_fire) begin
      m_cpl_valid  <= 1'b1;
      m_cpl_tag    <= cinfo.tag;
      m_cpl_status <= {!cinfo.zero && wst, cinfo.berr};
    end
    if (rst) begin
      cq_room_q   <= 1'b0;
      m_cpl_valid <= 1'b0;
      berr_q      <= 1'b0;
    end
  end

  logic unused_ok;
  assign unused_ok = ^{m_axi_bid, m_axi_bresp[0], d_unused_keep, d_unused_last, d_unused_user,
                       t_unused_user, w_unused_user, sh_v[SH_ST][9*B-1:0], binfo_unused_ready,
                       wst_unused_ready, winfo_unused_ready, cq_unused_ready,
                       s_blk[OFF_W-1:0], s_in[OFF_W-1:0], 1'b0};

endmodule

`resetall
