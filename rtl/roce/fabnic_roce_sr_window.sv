// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_sr_window: per-QP receive window of the selective-repeat (SR) responder.
//
// Per QP the block keeps the expected PSN (epsn) and a W-bit bitmap of the PSNs
// epsn .. epsn+W-1 already received (bit i = PSN epsn+i; bit 0 is always 0 at rest).
// The state lives in one fabnic_ram_sdp of NUM_QP words ({epsn, bitmap}); nothing per
// QP is held in flops. Rules (docs/roce_sr.md, "Receiver"):
//
//   d = (psn - epsn) mod 2^24
//   d == 0              NEW_IN_ORDER    bits [0, span) set, epsn advances over the
//                                       contiguous run of received PSNs
//   0 < d < W, bit clr  NEW_OUT_OF_ORDER bit d set (ordered = 0)
//   0 < d < W, ordered  ORDERED_EARLY   not accepted, nothing changes (READ/atomic
//                                       requests are executed only in order)
//   0 < d < W, bit set  DUPLICATE       (already received out of order)
//   d >= 2^23           DUPLICATE       (behind epsn, IBTA duplicate region)
//   W <= d < 2^23       BEYOND_WINDOW   dropped, nothing changes
//
// span (>= 1) is the number of PSNs the packet consumes: 1, or the number of READ
// response packets for a READ request (span >= W: epsn += span, bitmap cleared).
// Every response reports the state after the update: the new epsn (= SACK base,
// the first missing PSN), the bitmap relative to it (the SACK bitmap) and how many
// PSNs epsn advanced by (0 unless NEW_IN_ORDER).
//
// Init (s_init_*) sets a QP to {epsn, bitmap 0}; it has priority over a request in
// the same cycle and travels through the same pipeline (no response). RAM contents
// are undefined after configuration: init every QP before its first request.
//
// Pipeline (L = 1 + OUT_REG RAM read stages):
//   accept: RAM read issued -> L stages -> compute (bypass + update) -> D register
//   (response valid, RAM write when D advances).
//   Latency: a request accepted in cycle 0 has its response valid in cycle L+1
//   (3 with OUT_REG=1, 2 with OUT_REG=0). Throughput: one request per cycle, any QP
//   mix, including back-to-back requests to the same QP: the compute stage takes the
//   newest state of its QP from the D register and the last L RAM writes (which
//   its read could not see) before the RAM word. No stall except output back-pressure
//   (m_rsp_ready low freezes the whole pipeline; the RAM read registers hold).
//
// Counters (CNT_W bits, wrapping), one per class plus inits.
`default_nettype none

module fabnic_roce_sr_window #(
    parameter int NUM_QP  = 1024,
    parameter int W       = 64,     // window / SACK bitmap width (PSNs)
    parameter int USER_W  = 8,      // opaque tag carried from request to response
    parameter int CNT_W   = 32,
    parameter bit OUT_REG = 1'b1,   // block RAM output register (timing), +1 latency
    parameter int QPN_W   = (NUM_QP > 1) ? $clog2(NUM_QP) : 1,
    parameter int PSN_W   = 24
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // init: epsn of a QP, bitmap cleared
    input  wire logic              s_init_valid,
    output logic                   s_init_ready,
    input  wire logic [QPN_W-1:0]  s_init_qpn,
    input  wire logic [PSN_W-1:0]  s_init_epsn,

    // packet arrival
    input  wire logic              s_req_valid,
    output logic                   s_req_ready,
    input  wire logic [QPN_W-1:0]  s_req_qpn,
    input  wire logic [PSN_W-1:0]  s_req_psn,
    input  wire logic [PSN_W-1:0]  s_req_span,     // PSNs consumed (>= 1; 0 is taken as 1)
    input  wire logic              s_req_ordered,  // accept only at epsn (READ, atomic)
    input  wire logic [USER_W-1:0] s_req_user,

    // response, in request order
    output logic                   m_rsp_valid,
    input  wire logic              m_rsp_ready,
    output logic [QPN_W-1:0]       m_rsp_qpn,
    output logic [PSN_W-1:0]       m_rsp_psn,
    output logic [USER_W-1:0]      m_rsp_user,
    output fabnic_roce_sr_pkg::sr_class_e m_rsp_class,
    output logic [PSN_W-1:0]       m_rsp_epsn,     // new epsn = SACK base PSN
    output logic [PSN_W-1:0]       m_rsp_adv,      // PSNs epsn advanced by
    output logic [W-1:0]           m_rsp_bitmap,   // bit i: PSN m_rsp_epsn+i received

    output logic [CNT_W-1:0]       cnt_in_order,
    output logic [CNT_W-1:0]       cnt_out_of_order,
    output logic [CNT_W-1:0]       cnt_duplicate,
    output logic [CNT_W-1:0]       cnt_beyond,
    output logic [CNT_W-1:0]       cnt_ordered_early,
    output logic [CNT_W-1:0]       cnt_init
);

  localparam int L      = OUT_REG ? 2 : 1;          // request stages before compute
  localparam int IDX_W  = (W > 1) ? $clog2(W) : 1;
  localparam int CNT1_W = $clog2(W + 1);            // 0 .. W
  localparam int ST_W   = PSN_W + W;

  if (W < 2 || W > (1 << (PSN_W - 2))) begin : g_check_w
    $error("fabnic_roce_sr_window: W must be in 2 .. 2^(PSN_W-2)");
  end
  if ((1 << IDX_W) != W) begin : g_check_pow2
    $error("fabnic_roce_sr_window: W must be a power of two");
  end
  if (NUM_QP < 2) begin : g_check_qp
    $error("fabnic_roce_sr_window: NUM_QP must be at least 2");
  end

  typedef struct packed {
    logic [PSN_W-1:0] epsn;
    logic [W-1:0]     bmp;
  } st_t;

  typedef struct packed {
    logic              valid;
    logic              init;
    logic [QPN_W-1:0]  qpn;
    logic [PSN_W-1:0]  psn;      // request PSN, or the init epsn
    logic [PSN_W-1:0]  span;
    logic              ordered;
    logic [USER_W-1:0] user;
  } req_t;

  typedef struct packed {
    logic             valid;
    logic [QPN_W-1:0] qpn;
    st_t              st;
  } wr_t;

  // ---------------------------------------------------------------- handshake
  logic d_valid, d_init, stall, adv;
  assign stall        = d_valid && !d_init && !m_rsp_ready;
  assign adv          = !stall;
  assign s_init_ready = adv;
  assign s_req_ready  = adv && !s_init_valid;

  req_t in_r;
  always_comb begin
    in_r         = '0;
    in_r.valid   = (s_init_valid || s_req_valid) && adv;
    in_r.init    = s_init_valid;
    in_r.qpn     = s_init_valid ? s_init_qpn : s_req_qpn;
    in_r.psn     = s_init_valid ? s_init_epsn : s_req_psn;
    in_r.span    = (s_req_span == '0) ? PSN_W'(1) : s_req_span;
    in_r.ordered = s_req_ordered;
    in_r.user    = s_req_user;
  end

  // ---------------------------------------------------------------- state RAM
  logic             wr_en;
  logic [QPN_W-1:0] wr_addr;
  st_t              wr_data, rd_data;

  fabnic_ram_sdp #(.DATA_W(ST_W), .DEPTH(NUM_QP), .OUT_REG(OUT_REG), .ADDR_W(QPN_W)) u_state (
      .clk,
      .wr_en, .wr_be(1'b1), .wr_addr, .wr_data,
      .rd_en(in_r.valid), .rd_regce(adv), .rd_addr(in_r.qpn), .rd_data
  );

  // ---------------------------------------------------------------- request stages
  req_t p_q [L];
  always_ff @(posedge clk) begin
    if (adv) begin
      p_q[0] <= in_r;
      for (int i = 1; i < L; i++) p_q[i] <= p_q[i-1];
    end
    if (rst) begin
      for (int i = 0; i < L; i++) p_q[i].valid <= 1'b0;
    end
  end

  req_t c_r;
  assign c_r = p_q[L-1];

  // ---------------------------------------------------------------- bypass
  // D register (writes this cycle if it advances) and the last L writes.
  wr_t d_wr;
  wr_t hist_q [L];
  st_t cur;
  always_comb begin
    cur = rd_data;
    for (int i = L - 1; i >= 0; i--) begin
      if (hist_q[i].valid && hist_q[i].qpn == c_r.qpn) cur = hist_q[i].st;
    end
    if (d_wr.valid && d_wr.qpn == c_r.qpn) cur = d_wr.st;
  end

  // ---------------------------------------------------------------- compute
  // span mask from the request register only (off the bypass path)
  logic          span_big;
  logic [W-1:0]  span_mask;
  always_comb begin
    span_big  = (c_r.span >= PSN_W'(W));
    span_mask = '1;
    if (!span_big) span_mask = (W'(1) << c_r.span[IDX_W-1:0]) - W'(1);
    span_mask[0] = 1'b1;
  end

  logic [PSN_W-1:0]  psn_off;
  logic              behind, in_win, bit_set;
  logic [W-1:0]      comb_bmp;
  logic [CNT1_W-1:0] ones;
  fabnic_roce_sr_pkg::sr_class_e c_class;
  st_t               nxt;
  logic [PSN_W-1:0]  c_adv;

  always_comb begin
    psn_off = c_r.psn - cur.epsn;
    behind  = psn_off[PSN_W-1];
    in_win  = (psn_off[PSN_W-1:IDX_W] == '0);
    bit_set = cur.bmp[psn_off[IDX_W-1:0]];
    comb_bmp = cur.bmp | span_mask;
    ones     = CNT1_W'(W);
    for (int i = W - 1; i >= 0; i--) begin
      if (!comb_bmp[i]) ones = CNT1_W'(i);
    end

    nxt     = cur;
    c_adv   = '0;
    c_class = fabnic_roce_sr_pkg::SR_BEYOND_WINDOW;
    if (c_r.init) begin
      nxt.epsn = c_r.psn;
      nxt.bmp  = '0;
    end else if (behind) begin
      c_class = fabnic_roce_sr_pkg::SR_DUPLICATE;
    end else if (in_win) begin
      if (psn_off == '0) begin
        c_class = fabnic_roce_sr_pkg::SR_NEW_IN_ORDER;
        if (span_big) begin
          c_adv   = c_r.span;
          nxt.bmp = '0;
        end else begin
          c_adv   = PSN_W'(ones);
          nxt.bmp = comb_bmp >> ones;
        end
        nxt.epsn = cur.epsn + c_adv;
      end else if (bit_set) begin
        c_class = fabnic_roce_sr_pkg::SR_DUPLICATE;
      end else if (c_r.ordered) begin
        c_class = fabnic_roce_sr_pkg::SR_ORDERED_EARLY;
      end else begin
        c_class = fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER;
        nxt.bmp[psn_off[IDX_W-1:0]] = 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------- D register
  always_ff @(posedge clk) begin
    if (adv) begin
      d_valid      <= c_r.valid;
      d_init       <= c_r.init;
      d_wr.valid   <= c_r.valid;
      d_wr.qpn     <= c_r.qpn;
      d_wr.st      <= nxt;
      m_rsp_qpn    <= c_r.qpn;
      m_rsp_psn    <= c_r.psn;
      m_rsp_user   <= c_r.user;
      m_rsp_class  <= c_class;
      m_rsp_adv    <= c_adv;
      hist_q[0]    <= d_wr;
      for (int i = 1; i < L; i++) hist_q[i] <= hist_q[i-1];
    end
    if (rst) begin
      d_valid    <= 1'b0;
      d_init     <= 1'b0;
      d_wr.valid <= 1'b0;
      for (int i = 0; i < L; i++) hist_q[i].valid <= 1'b0;
    end
  end

  assign m_rsp_valid  = d_valid && !d_init;
  assign m_rsp_epsn   = d_wr.st.epsn;
  assign m_rsp_bitmap = d_wr.st.bmp;

  assign wr_en   = d_wr.valid && adv;
  assign wr_addr = d_wr.qpn;
  assign wr_data = d_wr.st;

  // ---------------------------------------------------------------- counters
  always_ff @(posedge clk) begin
    if (adv && c_r.valid) begin
      if (c_r.init) cnt_init <= cnt_init + 1'b1;
      else begin
        unique case (c_class)
          fabnic_roce_sr_pkg::SR_NEW_IN_ORDER:     cnt_in_order      <= cnt_in_order + 1'b1;
          fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER: cnt_out_of_order  <= cnt_out_of_order + 1'b1;
          fabnic_roce_sr_pkg::SR_DUPLICATE:        cnt_duplicate     <= cnt_duplicate + 1'b1;
          fabnic_roce_sr_pkg::SR_BEYOND_WINDOW:    cnt_beyond        <= cnt_beyond + 1'b1;
          fabnic_roce_sr_pkg::SR_ORDERED_EARLY:    cnt_ordered_early <= cnt_ordered_early + 1'b1;
          default: ;
        endcase
      end
    end
    if (rst) begin
      cnt_in_order      <= '0;
      cnt_out_of_order  <= '0;
      cnt_duplicate     <= '0;
      cnt_beyond        <= '0;
      cnt_ordered_early <= '0;
      cnt_init          <= '0;
    end
  end

endmodule

`resetall
