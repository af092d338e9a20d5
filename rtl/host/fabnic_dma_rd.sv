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
// sits in lane 0 of the first m_axis beat; tkeep is all ones except on the last
// beat (contiguous from lane 0); tlast closes each descriptor; tid holds
// the tag and tuser[0] on the last beat is 1 if any RRESP of the descriptor
// was not OKAY (the data of such a beat is what the slave returned). With
// TUSER_EACH=1, every beat's tuser[0] says whether an RRESP of the descriptor up to
// and including the AXI beats that beat was built from was not OKAY (a beat whose
// tuser is 0 holds data the slave returned OKAY).
// Zero-length descriptors produce no stream beats and no bus traffic, only a
// completion. Completions (tag, status) come out in descriptor order after the
// last stream beat of the descriptor has been accepted.
//
// Pipeline (decide in one stage, act in the next):
//   desc   s_desc_* enters a skid register (fabnic_axis_register, REG_TYPE 2);
//          len-1 and len==0 are computed on the way in.
//   prep   one register stage computes everything the splitter and the
//          realigner need from narrow adds: bursts after the first (from
//          address-in-block + len-1), the last burst's beat, the first/last/
//          single-burst ARLEN values, AXI and stream beat counts minus one and
//          their ==0/==1 flags.
//   split  the burst splitter issues one AR per cycle from registered values:
//          the next burst starts at the next block, a down-counter of bursts
//          with a registered "last" flag; a new descriptor is loaded in the
//          cycle the previous one's last AR is registered.
//   R      m_axi_r* enters a skid register; the outstanding count is released
//          on the bus-side R handshake.
//   align  the current descriptor is held in registers (loaded from the info
//          FIFO head when the previous one completes), with down-counters of
//          stream and AXI beats and registered last/one flags, so no count is
//          compared in the cycle it is used.
// Latency against a single-cycle design: +2 cycles from s_desc to ARVALID (desc
// skid and prep), +1 cycle from R to m_axis (R skid). Throughput: one AR and
// one stream beat per cycle, also across descriptor boundaries: in the cycle a
// descriptor whose R beats are all in emits its last stream beat, an R beat
// (which can only be the first of a later non-zero descriptor, as R data of this
// engine's ID is in order) is taken for it and carried over zero-length
// descriptors in between.
//
// Back-pressure: m_axis_tready low stalls the R channel (the R skid fills, then
// rready goes low); the completion port back-pressures the stream on its last
// beat. Every handshake at the boundary is registered: no combinational path
// from a valid/ready input to a valid/ready output.
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
  localparam int BI_W        = BB_W - OFF_W;           // beat index inside a burst block
  localparam int BLK_BEATS   = BURST_BYTES / B;
  localparam int CNT_W       = LEN_W - OFF_W + 1;      // beats of one descriptor
  localparam int NB_W        = LEN_W + 1 - BB_W;       // bursts after the first
  localparam int BEAT_W      = ADDR_W - OFF_W;         // beat address
  localparam int OS_W        = $clog2(MAX_OUTSTANDING + 1);
  localparam int D_W         = TAG_W + ADDR_W + LEN_W + 1;

  if (B * 8 != AXI_DATA_W || (1 << OFF_W) != B || B < 2) begin : g_check_w
    $error("fabnic_dma_rd: AXI_DATA_W must be a power of two >= 16");
  end
  if ((1 << $clog2(MAX_BURST_LEN)) != MAX_BURST_LEN || MAX_BURST_LEN > 256
      || MAX_BURST_LEN < 2) begin : g_check_bl
    $error("fabnic_dma_rd: MAX_BURST_LEN must be a power of two in 2..256");
  end
  if (LEN_W <= BB_W || ADDR_W <= BB_W) begin : g_check_len
    $error("fabnic_dma_rd: LEN_W and ADDR_W must exceed log2(burst bytes)");
  end
  if (MAX_OUTSTANDING < 1 || DESC_DEPTH < 2) begin : g_check_os
    $error("fabnic_dma_rd: MAX_OUTSTANDING >= 1 and DESC_DEPTH >= 2 required");
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

  // ---------------------------------------------------------------- descriptor info
  // what the realigner needs, queued in descriptor order
  typedef struct packed {
    logic [TAG_W-1:0] tag;
    logic             zero;       // zero-length descriptor
    logic [OFF_W-1:0] off;        // address mod bytes-per-beat
    logic             off_nz;     // off != 0
    logic [OFF_W-1:0] last_lane;  // (len-1) mod B
    logic             extra_in;   // one AXI beat more than stream beats
    logic [CNT_W-1:0] ol;         // stream beats - 1
    logic             ol0, ol1;   // ol == 0, ol == 1
    logic [CNT_W-1:0] ib;         // AXI beats
    logic [CNT_W-1:0] ib_m1;      // AXI beats - 1
    logic             ib_eq1;     // AXI beats == 1
    logic             ib_eq2;     // AXI beats == 2
  } info_t;

  // ---------------------------------------------------------------- prep stage
  logic              q_valid, q_ready, q_fire;
  info_t             q_info;
  logic [BEAT_W-1:0] q_beat;      // first beat address
  logic [NB_W-1:0]   q_nb;        // bursts after the first
  logic              q_nb0, q_nb1;
  logic [7:0]        q_alen_f, q_alen_l, q_alen_s;  // first / last / single burst ARLEN

  logic [LEN_W:0]    s_blk, s_in, s_in1;
  logic [OFF_W:0]    s_lane;
  logic [NB_W-1:0]   nb;
  logic [BI_W-1:0]   first_lo_n;  // ~(first beat in its block): beats after it in the block
  info_t             p_info;

  always_comb begin
    s_blk  = {1'b0, d_len_m1} + (LEN_W+1)'(d_addr[BB_W-1:0]);        // last byte, in-block base
    s_in   = {1'b0, d_len_m1} + (LEN_W+1)'(d_addr[OFF_W-1:0]);       // last byte, beat base
    s_in1  = {1'b0, d_len_m1} + (LEN_W+1)'({1'b1, d_addr[OFF_W-1:0]});
    s_lane = {1'b0, d_len_m1[OFF_W-1:0]} + {1'b0, d_addr[OFF_W-1:0]};
    nb     = s_blk[LEN_W:BB_W];
    first_lo_n = ~d_addr[BB_W-1:OFF_W];
    p_info.tag       = d_tag;
    p_info.zero      = d_zero;
    p_info.off       = d_addr[OFF_W-1:0];
    p_info.off_nz    = d_addr[OFF_W-1:0] != '0;
    p_info.last_lane = d_len_m1[OFF_W-1:0];
    p_info.extra_in  = s_lane[OFF_W];
    p_info.ol        = CNT_W'(d_len_m1[LEN_W-1:OFF_W]);
    p_info.ol0       = d_len_m1[LEN_W-1:OFF_W] == '0;
    p_info.ol1       = d_len_m1[LEN_W-1:OFF_W] == (LEN_W-OFF_W)'(1);
    p_info.ib        = s_in1[LEN_W:OFF_W];
    p_info.ib_m1     = s_in[LEN_W:OFF_W];
    p_info.ib_eq1    = s_in[LEN_W:OFF_W] == '0;
    p_info.ib_eq2    = s_in[LEN_W:OFF_W] == CNT_W'(1);
  end

  assign d_ready = !q_valid || q_fire;

  always_ff @(posedge clk) begin
    if (d_ready) begin
      q_valid  <= d_valid;
      q_info   <= p_info;
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
  logic              act_q, first_q, last_q, nb1_q, os_ok;
  logic [BEAT_W-1:0] beat_q;
  logic [NB_W-1:0]   nbr_q;       // bursts after the current one
  logic [7:0]        alen_f_q, alen_l_q, alen_s_q;
  logic [OS_W-1:0]   outstanding_q;
  logic              issue, take, r_last_fire;
  logic              info_in_ready, info_out_valid, info_out_ready;
  info_t             info_out;

  assign os_ok   = outstanding_q < OS_W'(MAX_OUTSTANDING);
  assign issue   = act_q && (!m_axi_arvalid || m_axi_arready) && os_ok;
  // a new descriptor is taken when idle or in the cycle its predecessor's last burst issues
  assign take    = !act_q || (issue && last_q);
  assign q_ready = take && info_in_ready;
  assign q_fire  = q_valid && q_ready;

  fabnic_fifo #(.WIDTH($bits(info_t)), .DEPTH(DESC_DEPTH)) u_info (
      .clk, .rst,
      .in_data(q_info), .in_valid(q_fire), .in_ready(info_in_ready),
      .out_data(info_out), .out_valid(info_out_valid), .out_ready(info_out_ready),
      .status_count());

  always_ff @(posedge clk) begin
    if (m_axi_arready) m_axi_arvalid <= 1'b0;
    if (issue) begin
      m_axi_arvalid <= 1'b1;
      m_axi_araddr  <= {beat_q, OFF_W'(0)};
      m_axi_arlen   <= first_q ? (last_q ? alen_s_q : alen_f_q)
                               : (last_q ? alen_l_q : 8'(BLK_BEATS - 1));
      beat_q        <= {beat_q[BEAT_W-1:BI_W] + 1'b1, BI_W'(0)};  // next block
      nbr_q         <= nbr_q - 1'b1;
      last_q        <= nb1_q;
      nb1_q         <= nbr_q == NB_W'(2);
      first_q       <= 1'b0;
      if (last_q) act_q <= 1'b0;
    end
    if (q_fire && !q_info.zero) begin
      act_q    <= 1'b1;
      first_q  <= 1'b1;
      beat_q   <= q_beat;
      nbr_q    <= q_nb;
      last_q   <= q_nb0;
      nb1_q    <= q_nb1;
      alen_f_q <= q_alen_f;
      alen_l_q <= q_alen_l;
      alen_s_q <= q_alen_s;
    end
    outstanding_q <= outstanding_q + OS_W'(issue) - OS_W'(r_last_fire);
    if (rst) begin
      act_q         <= 1'b0;
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

  // ---------------------------------------------------------------- R skid
  logic [AXI_DATA_W-1:0] r_data;
  logic                  r_valid, r_ready, r_err, r_unused_keep, r_unused_last;

  assign r_last_fire = m_axi_rvalid && m_axi_rready && m_axi_rlast;

  fabnic_axis_register #(.DATA_W(AXI_DATA_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_r_reg (
      .clk, .rst,
      .s_axis_tdata(m_axi_rdata), .s_axis_tkeep(1'b0), .s_axis_tvalid(m_axi_rvalid),
      .s_axis_tready(m_axi_rready), .s_axis_tlast(1'b0), .s_axis_tuser(m_axi_rresp[1]),
      .m_axis_tdata(r_data), .m_axis_tkeep(r_unused_keep), .m_axis_tvalid(r_valid),
      .m_axis_tready(r_ready), .m_axis_tlast(r_unused_last), .m_axis_tuser(r_err));

  // ---------------------------------------------------------------- realigner
  // Stream beat k = AXI beat k bytes [off..B-1] followed by AXI beat k+1 bytes
  // [0..off-1]. prev holds AXI beat k; the R skid presents beat k+1.
  logic                  c_valid_q, c_zero_q, c_off_nz_q, c_extra_q;
  logic [TAG_W-1:0]      c_tag_q;
  logic [OFF_W-1:0]      c_off_q, c_lane_q;
  logic [CNT_W-1:0]      o_rem_q, i_rem_q;   // stream beats after this one; AXI beats to take
  logic                  o_last_q, o_one_q;  // o_rem == 0, o_rem == 1
  logic                  i_left_q, i_one_q;  // i_rem != 0, i_rem == 1
  logic [AXI_DATA_W-1:0] prev_q;
  logic                  have_prev_q, err_q;

  logic c_act, cpl_slot, out_ok, need_next, out_fire, early, in_fire, in_cur, early_take;
  logic out_done, zero_done, load, taken, beat_err;

  assign c_act      = c_valid_q && !c_zero_q;
  assign cpl_slot   = !m_cpl_valid || m_cpl_ready;
  assign out_ok     = (!m_axis_tvalid || m_axis_tready) && (!o_last_q || cpl_slot);
  assign need_next  = o_last_q ? c_extra_q : c_off_nz_q;
  assign out_fire   = c_act && have_prev_q && out_ok && (!need_next || r_valid);
  // early: in the cycle a descriptor whose beats are all in emits its last stream beat,
  // an R beat (the first of a later non-zero descriptor) is taken into prev_q for it
  assign early      = out_fire && o_last_q && !i_left_q;
  assign r_ready    = (c_act && i_left_q && (!have_prev_q || out_ok)) || early;
  assign in_fire    = r_valid && r_ready;
  assign in_cur     = in_fire && !early;   // a beat of the current descriptor
  assign early_take = early && r_valid;
  assign beat_err   = err_q || (in_cur && r_err);
  assign out_done   = out_fire && o_last_q;
  assign zero_done  = c_valid_q && c_zero_q && cpl_slot;
  // the next descriptor becomes current when this one completes (or none is current)
  assign load           = (out_done || zero_done || !c_valid_q) && info_out_valid;
  assign info_out_ready = load;
  // the new descriptor's first AXI beat is already in prev_q
  assign taken          = out_done ? early_take : have_prev_q;

  logic [AXI_DATA_W-1:0] shifted;
  logic [STRB_W-1:0]     last_keep;
  always_comb begin
    shifted   = AXI_DATA_W'({r_data, prev_q} >> (8 * int'(c_off_q)));
    last_keep = {STRB_W{1'b1}} >> (B - 1 - int'(c_lane_q));
  end

  always_ff @(posedge clk) begin
    if (in_fire) prev_q <= r_data;
    if (out_done || zero_done || !c_valid_q) c_valid_q <= info_out_valid;
    if (load) begin
      c_zero_q   <= info_out.zero;
      c_tag_q    <= info_out.tag;
      c_off_q    <= info_out.off;
      c_off_nz_q <= info_out.off_nz;
      c_lane_q   <= info_out.last_lane;
      c_extra_q  <= info_out.extra_in;
      o_rem_q    <= info_out.ol;
      o_last_q   <= info_out.ol0;
      o_one_q    <= info_out.ol1;
      i_rem_q    <= taken ? info_out.ib_m1 : info_out.ib;
      i_left_q   <= taken ? !info_out.ib_eq1 : 1'b1;
      i_one_q    <= taken ? info_out.ib_eq2 : info_out.ib_eq1;
    end else begin
      if (out_fire) begin
        o_rem_q  <= o_rem_q - 1'b1;
        o_last_q <= o_one_q;
        o_one_q  <= o_rem_q == CNT_W'(2);
      end
      if (in_cur) begin
        i_rem_q  <= i_rem_q - 1'b1;
        i_left_q <= !i_one_q;
        i_one_q  <= i_rem_q == CNT_W'(2);
      end
    end
    if (out_done) begin              // (zero-length: an early beat stays)
      have_prev_q <= early_take;
      err_q       <= early_take && r_err;
    end else if (!zero_done) begin
      if (in_fire) have_prev_q <= 1'b1;
      else if (out_fire) have_prev_q <= 1'b0;
      err_q <= beat_err;
    end

    if (m_axis_tready) m_axis_tvalid <= 1'b0;
    if (out_fire) begin
      m_axis_tvalid <= 1'b1;
      m_axis_tdata  <= shifted;
      m_axis_tkeep  <= o_last_q ? last_keep : {STRB_W{1'b1}};
      m_axis_tlast  <= o_last_q;
      m_axis_tid    <= c_tag_q;
      m_axis_tuser  <= (TUSER_EACH || o_last_q) && beat_err;
    end

    if (m_cpl_ready) m_cpl_valid <= 1'b0;
    if (out_done || zero_done) begin
      m_cpl_valid  <= 1'b1;
      m_cpl_tag    <= c_tag_q;
      m_cpl_status <= {1'b0, !c_zero_q && beat_err};
    end

    if (rst) begin
      c_valid_q     <= 1'b0;
      have_prev_q   <= 1'b0;
      err_q         <= 1'b0;
      m_axis_tvalid <= 1'b0;
      m_cpl_valid   <= 1'b0;
    end
  end

  // rid is not checked: the engine issues a single ID and relies on in-order data;
  // rlast only counts outstanding bursts (the beat counts come from the descriptor).
  logic unused_ok;
  assign unused_ok = ^{m_axi_rid, m_axi_rresp[0], d_unused_keep, d_unused_last, d_unused_user,
                       r_unused_keep, r_unused_last, s_blk[OFF_W-1:0], s_in[OFF_W-1:0],
                       s_in1[OFF_W-1:0], 1'b0};

endmodule

`resetall
