// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dma_rd: host-memory read DMA engine.
//
// A descriptor (host address, byte length, tag) is cut into AXI4 INCR read
// bursts of at most BURST_BYTES = min(MAX_BURST_LEN * bytes-per-beat, 4096)
// bytes, each aligned so that it never leaves its BURST_BYTES-aligned block
// (so a burst never crosses a 4 KB boundary). Bursts use one fixed ARID and
// the engine relies on AXI's in-order return of same-ID read data: no
// reordering buffer. Up to MAX_OUTSTANDING bursts are in flight.
//
// The returned beats are shifted so that the byte at the descriptor's address
// sits in lane 0 of the first m_axis beat; tkeep is all ones except on the
// last beat (contiguous from lane 0); tlast closes each descriptor; tid holds
// the tag and tuser[0] on the last beat is 1 if any RRESP of the descriptor
// was not OKAY (the data of such a beat is what the slave returned). With
// TUSER_EACH=1, every beat's tuser[0] says whether an RRESP of the descriptor up to
// and including the AXI beats that beat was built from was not OKAY (a beat whose
// tuser is 0 holds data the slave returned OKAY).
// Zero-length descriptors produce no stream beats and no bus traffic, only a
// completion. Completions (tag, status) come out in descriptor order after the
// last stream beat of the descriptor has been accepted.
//
// Back-pressure: m_axis_tready low stalls the R channel (rready low); the
// completion port back-pressures the stream on its last beat.
`default_nettype none

module fabnic_dma_rd #(
    parameter int AXI_DATA_W      = 512,
    parameter int ADDR_W          = 64,
    parameter int ID_W            = 4,
    parameter int LEN_W           = 32,   // descriptor length field; max length 2^LEN_W-1
    parameter int TAG_W           = 8,
    parameter int MAX_BURST_LEN   = 64,   // beats per burst, power of two, <= 256
    parameter int MAX_OUTSTANDING = 16,   // bursts in flight (AR issued, last R not seen)
    parameter int DESC_DEPTH      = 16,   // descriptors accepted but not completed (pow2)
    parameter logic [ID_W-1:0] AXI_ID = '0,
    parameter bit TUSER_EACH      = 1'b0, // tuser on every beat: an error so far in the descriptor
    parameter int STRB_W          = AXI_DATA_W / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // descriptor in
    input  wire logic [ADDR_W-1:0]     s_desc_addr,
    input  wire logic [LEN_W-1:0]      s_desc_len,
    input  wire logic [TAG_W-1:0]      s_desc_tag,
    input  wire logic                  s_desc_valid,
    output logic                       s_desc_ready,

    // completion out: status[0] = AXI error (some RRESP != OKAY), status[1] = 0
    output logic [TAG_W-1:0]           m_cpl_tag,
    output logic [1:0]                 m_cpl_status,
    output logic                       m_cpl_valid,
    input  wire logic                  m_cpl_ready,

    // read data stream out
    output logic [AXI_DATA_W-1:0]      m_axis_tdata,
    output logic [STRB_W-1:0]          m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic [TAG_W-1:0]           m_axis_tid,
    output logic [0:0]                 m_axis_tuser,

    // AXI4 master, read channels
    output logic [ID_W-1:0]            m_axi_arid,
    output logic [ADDR_W-1:0]          m_axi_araddr,
    output logic [7:0]                 m_axi_arlen,
    output logic [2:0]                 m_axi_arsize,
    output logic [1:0]                 m_axi_arburst,
    output logic                       m_axi_arlock,
    output logic [3:0]                 m_axi_arcache,
    output logic [2:0]                 m_axi_arprot,
    output logic                       m_axi_arvalid,
    input  wire logic                  m_axi_arready,
    input  wire logic [ID_W-1:0]       m_axi_rid,
    input  wire logic [AXI_DATA_W-1:0] m_axi_rdata,
    input  wire logic [1:0]            m_axi_rresp,
    input  wire logic                  m_axi_rlast,
    input  wire logic                  m_axi_rvalid,
    output logic                       m_axi_rready,

    output logic [$clog2(MAX_OUTSTANDING+1)-1:0] status_outstanding
);

  localparam int B           = STRB_W;
  localparam int OFF_W       = $clog2(B);
  localparam int BURST_BYTES = (MAX_BURST_LEN * B > 4096) ? 4096 : MAX_BURST_LEN * B;
  localparam int BB_W        = $clog2(BURST_BYTES);
  localparam int CNT_W       = LEN_W - OFF_W + 1;  // beats of one descriptor
  localparam int OS_W        = $clog2(MAX_OUTSTANDING + 1);

  if (B * 8 != AXI_DATA_W || (1 << OFF_W) != B || B < 2) begin : g_check_w
    $error("fabnic_dma_rd: AXI_DATA_W must be a power of two >= 16");
  end
  if ((1 << $clog2(MAX_BURST_LEN)) != MAX_BURST_LEN || MAX_BURST_LEN > 256) begin : g_check_bl
    $error("fabnic_dma_rd: MAX_BURST_LEN must be a power of two <= 256");
  end
  if (LEN_W <= BB_W || ADDR_W <= BB_W) begin : g_check_len
    $error("fabnic_dma_rd: LEN_W and ADDR_W must exceed log2(burst bytes)");
  end

  // ---------------------------------------------------------------- descriptor info
  typedef struct packed {
    logic [TAG_W-1:0] tag;
    logic [OFF_W-1:0] off;        // address mod bytes-per-beat
    logic [CNT_W-1:0] in_beats;   // AXI beats (0 for a zero-length descriptor)
    logic [CNT_W-1:0] out_last;   // index of the last stream beat
    logic             extra_in;   // in_beats == out_beats + 1
    logic [OFF_W-1:0] last_lane;  // (len-1) mod B
    logic             zero;       // zero-length descriptor
  } info_t;

  info_t info_in, info_out;
  logic  info_in_valid, info_in_ready, info_out_valid, info_out_ready;

  fabnic_fifo #(.WIDTH($bits(info_t)), .DEPTH(DESC_DEPTH)) u_info (
      .clk, .rst,
      .in_data(info_in), .in_valid(info_in_valid), .in_ready(info_in_ready),
      .out_data(info_out), .out_valid(info_out_valid), .out_ready(info_out_ready), .status_count());

  logic [LEN_W:0] in_bytes_end;   // off + len
  logic [LEN_W:0] len_m1;
  always_comb begin
    in_bytes_end           = {1'b0, s_desc_len} + (LEN_W+1)'(s_desc_addr[OFF_W-1:0]);
    len_m1                 = {1'b0, s_desc_len} - 1'b1;
    info_in.tag            = s_desc_tag;
    info_in.off            = s_desc_addr[OFF_W-1:0];
    info_in.in_beats       = CNT_W'((in_bytes_end + (LEN_W+1)'(B - 1)) >> OFF_W);
    info_in.out_last       = CNT_W'(len_m1 >> OFF_W);
    info_in.extra_in       = ((in_bytes_end + (LEN_W+1)'(B - 1)) >> OFF_W)
                             != ((len_m1 >> OFF_W) + 1'b1);
    info_in.last_lane      = len_m1[OFF_W-1:0];
    info_in.zero           = s_desc_len == '0;
  end

  // ---------------------------------------------------------------- burst splitter
  logic              active_q;
  logic [ADDR_W-1:0] cur_addr_q;
  logic [LEN_W-1:0]  rem_q;
  logic [OS_W-1:0]   outstanding_q;

  logic [BB_W:0]     chunk, take, beats;
  logic              last_burst, issue, r_last_fire, take_desc;

  always_comb begin
    chunk      = (BB_W+1)'(BURST_BYTES) - {1'b0, cur_addr_q[BB_W-1:0]};
    last_burst = rem_q <= LEN_W'(chunk);
    take       = last_burst ? rem_q[BB_W:0] : chunk;
    beats      = (take + (BB_W+1)'(cur_addr_q[OFF_W-1:0]) + (BB_W+1)'(B - 1)) >> OFF_W;
  end

  // a new descriptor is taken when idle or in the cycle its predecessor's last burst issues
  assign take_desc     = !active_q || (issue && last_burst);
  assign s_desc_ready  = take_desc && info_in_ready;
  assign info_in_valid = s_desc_valid && take_desc;
  assign issue         = active_q && (!m_axi_arvalid || m_axi_arready)
                         && (outstanding_q < OS_W'(MAX_OUTSTANDING));
  assign r_last_fire   = m_axi_rvalid && m_axi_rready && m_axi_rlast;

  always_ff @(posedge clk) begin
    if (m_axi_arready) m_axi_arvalid <= 1'b0;
    if (issue) begin
      m_axi_arvalid <= 1'b1;
      m_axi_araddr  <= {cur_addr_q[ADDR_W-1:OFF_W], OFF_W'(0)};
      m_axi_arlen   <= 8'(beats - 1'b1);
      cur_addr_q    <= cur_addr_q + ADDR_W'(take);
      rem_q         <= rem_q - LEN_W'(take);
      if (last_burst) active_q <= 1'b0;
    end
    if (s_desc_valid && s_desc_ready && s_desc_len != '0) begin
      active_q   <= 1'b1;
      cur_addr_q <= s_desc_addr;
      rem_q      <= s_desc_len;
    end
    outstanding_q <= outstanding_q + OS_W'(issue) - OS_W'(r_last_fire);
    if (rst) begin
      active_q      <= 1'b0;
      m_axi_arvalid <= 1'b0;
      outstanding_q <= '0;
    end
  end

  assign m_axi_arid    = AXI_ID;
  assign m_axi_arsize  = 3'(OFF_W);
  assign m_axi_arburst = 2'b01;    // INCR
  assign m_axi_arlock  = 1'b0;
  assign m_axi_arcache = 4'b0011;  // normal non-cacheable bufferable
  assign m_axi_arprot  = 3'b010;   // unprivileged, non-secure, data
  assign status_outstanding = outstanding_q;

  // ---------------------------------------------------------------- realigner
  // Stream beat k = AXI beat k bytes [off..B-1] followed by AXI beat k+1 bytes
  // [0..off-1]. prev holds AXI beat k; the R channel presents beat k+1.
  logic [AXI_DATA_W-1:0] prev_q;
  logic                  have_prev_q;
  logic [CNT_W-1:0]      in_cnt_q, out_cnt_q;
  logic                  err_q;

  logic out_slot, cpl_slot, is_last_out, need_next, in_left, out_ok, out_fire, in_fire;
  logic zero_done, desc_done, rerr, early, in_cur;

  assign out_slot    = !m_axis_tvalid || m_axis_tready;
  assign cpl_slot    = !m_cpl_valid || m_cpl_ready;
  assign is_last_out = out_cnt_q == info_out.out_last;
  assign need_next   = is_last_out ? info_out.extra_in : (info_out.off != '0);
  assign in_left     = info_out_valid && !info_out.zero && (in_cnt_q != info_out.in_beats);
  assign out_ok      = out_slot && (!is_last_out || cpl_slot);
  assign out_fire    = info_out_valid && !info_out.zero && have_prev_q && out_ok
                       && (!need_next || m_axi_rvalid);
  // early: in the cycle a descriptor whose beats are all in emits its last stream beat,
  // an R beat (which can only be the first of a later non-zero descriptor, as R data of
  // this engine's ID is in order) is taken into prev_q for it, so back-to-back one-beat
  // descriptors take one R beat per cycle instead of one per two. The beat is carried
  // over any zero-length descriptors in between (they leave prev_q and the counts).
  assign early       = out_fire && is_last_out && !in_left;
  assign m_axi_rready = (in_left && (!have_prev_q || out_ok)) || early;
  assign in_fire     = m_axi_rvalid && m_axi_rready;
  assign in_cur      = in_fire && !early;   // a beat of the current descriptor
  assign rerr        = m_axi_rresp[1];
  assign zero_done   = info_out_valid && info_out.zero && cpl_slot;
  assign desc_done   = zero_done || (out_fire && is_last_out);
  assign info_out_ready = desc_done;

  logic [AXI_DATA_W-1:0]   shifted;
  logic [STRB_W-1:0]       last_keep;
  always_comb begin
    shifted   = AXI_DATA_W'({m_axi_rdata, prev_q} >> (8 * int'(info_out.off)));
    last_keep = {STRB_W{1'b1}} >> (B - 1 - int'(info_out.last_lane));
  end

  always_ff @(posedge clk) begin
    if (in_fire) prev_q <= m_axi_rdata;
    if (desc_done) begin
      out_cnt_q <= '0;
      if (early && in_fire) begin     // the next descriptor's first beat
        have_prev_q <= 1'b1;
        in_cnt_q    <= CNT_W'(1);
        err_q       <= rerr;
      end else if (!info_out.zero) begin
        have_prev_q <= 1'b0;
        in_cnt_q    <= '0;
        err_q       <= 1'b0;
      end                             // (zero-length: an early beat stays)
    end else begin
      if (in_fire) have_prev_q <= 1'b1;
      else if (out_fire) have_prev_q <= 1'b0;
      in_cnt_q  <= in_cnt_q + CNT_W'(in_fire);
      out_cnt_q <= out_cnt_q + CNT_W'(out_fire);
      err_q     <= err_q || (in_fire && rerr);
    end

    if (m_axis_tready) m_axis_tvalid <= 1'b0;
    if (out_fire) begin
      m_axis_tvalid <= 1'b1;
      m_axis_tdata  <= shifted;
      m_axis_tkeep  <= is_last_out ? last_keep : {STRB_W{1'b1}};
      m_axis_tlast  <= is_last_out;
      m_axis_tid    <= info_out.tag;
      m_axis_tuser  <= (TUSER_EACH || is_last_out) && (err_q || (in_cur && rerr));
    end

    if (m_cpl_ready) m_cpl_valid <= 1'b0;
    if (desc_done) begin
      m_cpl_valid  <= 1'b1;
      m_cpl_tag    <= info_out.tag;
      m_cpl_status <= {1'b0, !info_out.zero && (err_q || (in_cur && rerr))};
    end

    if (rst) begin
      have_prev_q   <= 1'b0;
      in_cnt_q      <= '0;
      out_cnt_q     <= '0;
      err_q         <= 1'b0;
      m_axis_tvalid <= 1'b0;
      m_cpl_valid   <= 1'b0;
    end
  end

  // rid is not checked: the engine issues a single ID and relies on in-order data.
  logic unused_ok;
  assign unused_ok = ^{m_axi_rid, m_axi_rresp[0], 1'b0};

endmodule

`resetall
