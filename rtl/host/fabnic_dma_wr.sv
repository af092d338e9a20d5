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
// no earlier than the cycle its AWVALID is raised (AXI4 lets WVALID lead AWREADY;
// a slave may hold WREADY low until it has the AW). An idle splitter issues the
// first AW of a descriptor in the cycle the descriptor is accepted, so a one-beat
// write shows AWVALID one cycle and WVALID two cycles after its descriptor.
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
  localparam int CNT_W       = LEN_W - OFF_W + 1;
  localparam int OS_W        = $clog2(MAX_OUTSTANDING + 1);

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

  // ---------------------------------------------------------------- FIFOs
  typedef struct packed {
    logic [OFF_W-1:0] off;        // address mod B
    logic [BI_W-1:0]  beat0;      // beat index of the first beat inside its burst block
    logic [CNT_W-1:0] s_last;     // index of the last stream beat
    logic [CNT_W-1:0] t_last;     // index of the last AXI beat
    logic [OFF_W-1:0] last_lane;  // (len-1) mod B: last byte lane of the stream
  } winfo_t;

  typedef struct packed {
    logic [TAG_W-1:0] tag;
    logic             last;       // last burst of its descriptor
    logic             zero;       // zero-length descriptor, no B to wait for
  } binfo_t;

  winfo_t winfo_in, winfo;
  logic   winfo_in_valid, winfo_in_ready, winfo_valid, winfo_pop;
  binfo_t binfo_in, binfo;
  logic   binfo_in_valid, binfo_in_ready, binfo_valid, binfo_pop;
  logic   wst_in, wst, wst_push, wst_in_ready, wst_valid, wst_pop;

  fabnic_fifo #(.WIDTH($bits(winfo_t)), .DEPTH(DESC_DEPTH)) u_winfo (
      .clk, .rst,
      .in_data(winfo_in), .in_valid(winfo_in_valid), .in_ready(winfo_in_ready),
      .out_data(winfo), .out_valid(winfo_valid), .out_ready(winfo_pop), .status_count());

  // one entry per burst plus one per zero-length descriptor
  fabnic_fifo #(.WIDTH($bits(binfo_t)), .DEPTH(2 * MAX_OUTSTANDING)) u_binfo (
      .clk, .rst,
      .in_data(binfo_in), .in_valid(binfo_in_valid), .in_ready(binfo_in_ready),
      .out_data(binfo), .out_valid(binfo_valid), .out_ready(binfo_pop), .status_count());

  // stream status per descriptor, written by the W path, read with the last B
  fabnic_fifo #(.WIDTH(1), .DEPTH(DESC_DEPTH)) u_wst (
      .clk, .rst,
      .in_data(wst_in), .in_valid(wst_push), .in_ready(wst_in_ready),
      .out_data(wst), .out_valid(wst_valid), .out_ready(wst_pop), .status_count());

  // ---------------------------------------------------------------- burst splitter
  logic              active_q;
  logic [ADDR_W-1:0] cur_addr_q;
  logic [LEN_W-1:0]  rem_q;
  logic [TAG_W-1:0]  tag_q;
  logic [OS_W-1:0]   outstanding_q;

  logic [BB_W:0]     chunk, take, beats;
  logic              last_burst, issue, desc_fire, desc_zero, b_fire, take_desc;
  logic              use_in;      // idle splitter: the incoming descriptor issues at once
  logic [ADDR_W-1:0] cur_addr;
  logic [LEN_W-1:0]  cur_rem;
  logic [TAG_W-1:0]  cur_tag;
  logic [LEN_W:0]    end_bytes, len_m1;

  always_comb begin
    cur_addr   = active_q ? cur_addr_q : s_desc_addr;
    cur_rem    = active_q ? rem_q : s_desc_len;
    cur_tag    = active_q ? tag_q : s_desc_tag;
    chunk      = (BB_W+1)'(BURST_BYTES) - {1'b0, cur_addr[BB_W-1:0]};
    last_burst = cur_rem <= LEN_W'(chunk);
    take       = last_burst ? cur_rem[BB_W:0] : chunk;
    beats      = (take + (BB_W+1)'(cur_addr[OFF_W-1:0]) + (BB_W+1)'(B - 1)) >> OFF_W;

    end_bytes          = {1'b0, s_desc_len} + (LEN_W+1)'(s_desc_addr[OFF_W-1:0]) - 1'b1;
    len_m1             = {1'b0, s_desc_len} - 1'b1;
    winfo_in.off       = s_desc_addr[OFF_W-1:0];
    winfo_in.beat0     = s_desc_addr[BB_W-1:OFF_W];
    winfo_in.s_last    = CNT_W'(len_m1 >> OFF_W);
    winfo_in.t_last    = CNT_W'(end_bytes >> OFF_W);
    winfo_in.last_lane = len_m1[OFF_W-1:0];
  end

  assign desc_zero      = s_desc_len == '0;
  // A zero-length descriptor needs a binfo slot and an idle splitter; any other one
  // needs a winfo slot and is also taken in the cycle the previous last burst issues.
  assign use_in         = !active_q && s_desc_valid && !desc_zero && winfo_in_ready;
  assign issue          = (active_q || use_in) && (!m_axi_awvalid || m_axi_awready)
                          && binfo_in_ready && (outstanding_q < OS_W'(MAX_OUTSTANDING));
  assign take_desc      = !active_q || (issue && last_burst);
  assign s_desc_ready   = desc_zero ? (!active_q && binfo_in_ready)
                                    : (take_desc && winfo_in_ready);
  assign desc_fire      = s_desc_valid && s_desc_ready;
  assign winfo_in_valid = s_desc_valid && take_desc && !desc_zero;
  assign binfo_in_valid = issue || (s_desc_valid && !active_q && desc_zero);
  assign binfo_in.tag   = issue ? cur_tag : s_desc_tag;
  assign binfo_in.last  = issue ? last_burst : 1'b1;
  assign binfo_in.zero  = !issue;
  assign b_fire         = m_axi_bvalid && m_axi_bready;

  always_ff @(posedge clk) begin
    if (m_axi_awready) m_axi_awvalid <= 1'b0;
    if (issue) begin
      m_axi_awvalid <= 1'b1;
      m_axi_awaddr  <= {cur_addr[ADDR_W-1:OFF_W], OFF_W'(0)};
      m_axi_awlen   <= 8'(beats - 1'b1);
      cur_addr_q    <= cur_addr + ADDR_W'(take);
      rem_q         <= cur_rem - LEN_W'(take);
      tag_q         <= cur_tag;
      active_q      <= !last_burst;
    end
    // a descriptor taken behind the last burst of the previous one, or while idle but
    // unable to issue this cycle (an idle splitter that issued used it above)
    if (desc_fire && !desc_zero && !(issue && !active_q)) begin
      active_q   <= 1'b1;
      cur_addr_q <= s_desc_addr;
      rem_q      <= s_desc_len;
      tag_q      <= s_desc_tag;
    end
    outstanding_q <= outstanding_q + OS_W'(issue) - OS_W'(b_fire);
    if (rst) begin
      active_q      <= 1'b0;
      m_axi_awvalid <= 1'b0;
      outstanding_q <= '0;
    end
  end

  assign m_axi_awid    = AXI_ID;
  assign m_axi_awsize  = 3'(OFF_W);
  assign m_axi_awburst = 2'b01;
  assign m_axi_awlock  = 1'b0;
  assign m_axi_awcache = 4'b0011;
  assign m_axi_awprot  = 3'b010;
  assign status_outstanding = outstanding_q;

  // ---------------------------------------------------------------- W path
  // AXI beat j, lanes [off..B-1] = stream beat j lanes [0..B-off-1];
  //             lanes [0..off-1] = stream beat j-1 lanes [B-off..B-1].
  logic [AXI_DATA_W-1:0] prev_data_q;
  logic [STRB_W-1:0]     prev_keep_q;
  logic [CNT_W-1:0]      j_q;
  logic                  ended_q, mism_q, drain_q;
  logic [OS_W-1:0]       aw_credit_q;   // AWs issued (AWVALID raised) minus W bursts emitted

  logic w_slot, need_in, is_last_t, w_ok, w_fire, in_fire, wlast, ends_now;
  logic mism_now, drain_fire, drain_end;
  logic [BI_W-1:0]       beat_idx;
  logic [STRB_W-1:0]     cur_keep, keep_sh, first_mask, last_mask, exp_keep;
  logic [AXI_DATA_W-1:0] data_sh;
  logic [OFF_W-1:0]      end_lane;

  assign w_slot    = !m_axi_wvalid || m_axi_wready;
  assign need_in   = (j_q <= winfo.s_last) && !ended_q;
  assign is_last_t = j_q == winfo.t_last;
  assign w_ok      = winfo_valid && !drain_q && w_slot && (aw_credit_q != '0)
                     && (!is_last_t || wst_in_ready);
  assign w_fire    = w_ok && (!need_in || s_axis_tvalid);
  assign in_fire   = w_fire && need_in;
  assign drain_fire = drain_q && s_axis_tvalid && wst_in_ready;
  assign drain_end  = drain_fire && s_axis_tlast;
  assign s_axis_tready = (w_ok && need_in) || (drain_q && wst_in_ready);

  assign beat_idx  = winfo.beat0 + BI_W'(j_q);
  assign wlast     = is_last_t || (&beat_idx);
  assign end_lane  = winfo.off + winfo.last_lane;
  assign ends_now  = ended_q || (in_fire && s_axis_tlast);

  always_comb begin
    cur_keep   = in_fire ? s_axis_tkeep : '0;
    data_sh    = AXI_DATA_W'({s_axis_tdata, prev_data_q} >> (8 * (B - int'(winfo.off))));
    keep_sh    = STRB_W'({cur_keep, prev_keep_q} >> (B - int'(winfo.off)));
    first_mask = (j_q == '0) ? ({STRB_W{1'b1}} << winfo.off) : {STRB_W{1'b1}};
    last_mask  = is_last_t ? ({STRB_W{1'b1}} >> (B - 1 - int'(end_lane))) : {STRB_W{1'b1}};
    exp_keep   = {STRB_W{1'b1}} >> (B - 1 - int'(winfo.last_lane));
    // frame/length mismatch seen on this stream beat
    mism_now   = in_fire && ((s_axis_tlast && j_q != winfo.s_last)
                             || (j_q == winfo.s_last
                                 && (!s_axis_tlast || s_axis_tkeep != exp_keep)));
  end

  assign winfo_pop = (w_fire && is_last_t && ends_now) || drain_end;
  assign wst_push  = winfo_pop;
  assign wst_in    = mism_q || mism_now || drain_q;

  always_ff @(posedge clk) begin
    status_len_mismatch <= winfo_pop && wst_in;
    if (m_axi_wready) m_axi_wvalid <= 1'b0;
    if (w_fire) begin
      m_axi_wvalid <= 1'b1;
      m_axi_wdata  <= data_sh;
      m_axi_wstrb  <= first_mask & last_mask & keep_sh;
      m_axi_wlast  <= wlast;
      prev_data_q  <= s_axis_tdata;
      prev_keep_q  <= cur_keep;
    end
    aw_credit_q <= aw_credit_q + OS_W'(issue) - OS_W'(w_fire && wlast);
    if (winfo_pop) begin
      j_q         <= '0;
      ended_q     <= 1'b0;
      mism_q      <= 1'b0;
      drain_q     <= 1'b0;
      prev_keep_q <= '0;
    end else begin
      if (w_fire) j_q <= j_q + 1'b1;
      if (in_fire && s_axis_tlast) ended_q <= 1'b1;
      if (mism_now) mism_q <= 1'b1;
      if (w_fire && is_last_t && !ends_now) drain_q <= 1'b1;
    end
    if (rst) begin
      m_axi_wvalid <= 1'b0;
      aw_credit_q  <= '0;
      j_q          <= '0;
      ended_q      <= 1'b0;
      mism_q       <= 1'b0;
      drain_q      <= 1'b0;
      prev_keep_q  <= '0;
      status_len_mismatch <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- B tracking
  logic berr_q, cpl_slot, zero_done, last_b_ok;
  assign cpl_slot     = !m_cpl_valid || m_cpl_ready;
  assign last_b_ok    = !binfo.last || (wst_valid && cpl_slot);
  assign m_axi_bready = binfo_valid && !binfo.zero && last_b_ok;
  assign zero_done    = binfo_valid && binfo.zero && cpl_slot;
  assign binfo_pop    = b_fire || zero_done;
  assign wst_pop      = b_fire && binfo.last;

  always_ff @(posedge clk) begin
    if (m_cpl_ready) m_cpl_valid <= 1'b0;
    if (b_fire) berr_q <= binfo.last ? 1'b0 : (berr_q || m_axi_bresp[1]);
    if (zero_done) begin
      m_cpl_valid  <= 1'b1;
      m_cpl_tag    <= binfo.tag;
      m_cpl_status <= 2'b00;
    end else if (b_fire && binfo.last) begin
      m_cpl_valid  <= 1'b1;
      m_cpl_tag    <= binfo.tag;
      m_cpl_status <= {wst, berr_q || m_axi_bresp[1]};
    end
    if (rst) begin
      m_cpl_valid <= 1'b0;
      berr_q      <= 1'b0;
    end
  end

  logic unused_ok;
  assign unused_ok = ^{m_axi_bid, m_axi_bresp[0], 1'b0};

endmodule

`resetall
