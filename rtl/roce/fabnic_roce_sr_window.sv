// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_sr_window: per-QP receive window of the selective-repeat (SR) responder.
//
// Per QP the block keeps the expected PSN (epsn) and the set of PSNs epsn+1 ..
// epsn+W-1 already received. Rules (docs/roce_sr.md, "Receiver"):
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
// the first missing PSN), the bitmap relative to it (the SACK bitmap, bit i = PSN
// epsn+i) and how many PSNs epsn advanced by (0 unless NEW_IN_ORDER).
//
// State: one fabnic_ram_sdp word per QP, {epsn, abm}, where abm is the received set
// in absolute form: bit (p mod W) set = PSN p in (epsn, epsn+W) received (bit epsn mod
// W is 0). The absolute form makes the bit test and the out-of-order set independent
// of the subtraction psn - epsn (they use the request's one-hot psn mod W, decoded a
// stage earlier); the relative bitmap of the response is abm rotated by epsn mod W.
//
// Init (s_init_*) sets a QP to {epsn, nothing received}; it has priority over a
// request in the same cycle and travels through the same pipeline (no response). RAM
// contents are undefined after configuration: init every QP before its first request.
//
// Pipeline (L = 1 + OUT_REG RAM read stages):
//   accept: RAM read issued -> L stages -> compute -> D register (response valid,
//   RAM write when D advances). In the stage before compute, the request-side values
//   (psn + span, span mask, one-hot psn mod W) are decoded and the QP compared with
//   the requests ahead of it; compute takes its QP's state from the D register (the
//   request just ahead, same QP), or from the newest of the last L RAM writes its read
//   could not see (pre-selected into fwd_q one stage earlier), or from the RAM word.
//   Latency: a request accepted in cycle 0 has its response valid in cycle L+1 (3 with
//   OUT_REG=1, 2 with OUT_REG=0), one request per cycle for any QP mix, including
//   back-to-back requests to the same QP, with one exception: an in-order arrival
//   (d == 0, span < W) to a QP that has PSNs received ahead (a hole being filled)
//   stops the pipeline for three cycles (slow path: mark the run of received PSNs,
//   count it, then shift and add); its response comes three cycles later and so does
//   everything behind it. m_rsp_ready low freezes the whole pipeline (the RAM read registers
//   hold); m_rsp_ready combinationally drives s_req_ready and s_init_ready.
// Registered: every path from the ports ends in a register except that
// m_rsp_ready -> s_req_ready/s_init_ready/RAM read enable; outputs are registers
// except m_rsp_valid (D valid and the slow-path state, one gate).
//
// Counters (CNT_W bits, wrapping), one per class plus inits.
`default_nettype none

module fabnic_roce_sr_window #(
    parameter int NUM_QP  = 1024,   // QPs, >= 2
    parameter int W       = 64,     // window / SACK bitmap width (PSNs), power of two
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
    logic [W-1:0]     abm;      // bit p mod W: PSN p in (epsn, epsn+W) received
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

  // request-side values, decoded in the stage before compute
  typedef struct packed {
    logic [PSN_W-1:0] psn_span;   // psn + span
    logic             span_big;   // span >= W
    logic [W-1:0]     span_mask;  // bits [0, min(span, W))
    logic [W-1:0]     psn_oh;     // one-hot psn mod W
  } pre_t;

  typedef struct packed {
    logic             valid;
    logic [QPN_W-1:0] qpn;
    st_t              st;
  } wr_t;

  // slow path of an in-order arrival into a window with PSNs received ahead
  typedef enum logic [1:0] {
    SL_IDLE  = 2'd0,
    SL_SCAN  = 2'd1,
    SL_COUNT = 2'd2,
    SL_APPLY = 2'd3
  } sl_e;

  function automatic logic [W-1:0] rotr(input logic [W-1:0] x, input logic [IDX_W-1:0] k);
    return W'({x, x} >> k);
  endfunction

  function automatic logic [W-1:0] rotl(input logic [W-1:0] x, input logic [IDX_W-1:0] k);
    return W'(({x, x} << k) >> W);
  endfunction

  // number of ones in a thermometer code t (t[i] set implies t[i-1] set): 0 .. W
  function automatic logic [IDX_W:0] therm_cnt(input logic [W-1:0] t);
    logic [IDX_W:0] c;
    c         = '0;
    c[IDX_W]  = t[W-1];
    for (int k = 0; k < IDX_W; k++) begin
      for (int j = 0; j < W / (2 << k); j++) begin
        c[k] = c[k] | (t[j * (2 << k) + (1 << k) - 1] & !t[(j + 1) * (2 << k) - 1]);
      end
    end
    return c;
  endfunction

  function automatic pre_t pre_decode(input logic [PSN_W-1:0] psn, input logic [PSN_W-1:0] span);
    pre_t p;
    p.psn_span  = psn + span;
    p.span_big  = (span >= PSN_W'(W));
    p.span_mask = p.span_big ? '1 : ((W'(1) << span[IDX_W-1:0]) - W'(1));
    p.span_mask[0] = 1'b1;
    p.psn_oh    = W'(1) << psn[IDX_W-1:0];
    return p;
  endfunction

  // ---------------------------------------------------------------- handshake
  logic d_valid, d_init, stall, adv;
  sl_e  sl_q, sl_d;
  assign stall        = (sl_q != SL_IDLE) || (d_valid && !d_init && !m_rsp_ready);
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

  req_t c_r;   // in compute
  req_t pv;    // one stage before compute (only its PSN and span are decoded early)
  logic unused_pv;
  assign unused_pv = ^{pv.valid, pv.init, pv.qpn, pv.ordered, pv.user};
  assign c_r = p_q[L-1];
  if (L == 1) begin : g_pv_in
    assign pv = in_r;
  end else begin : g_pv_q
    assign pv = p_q[L-2];
  end

  // ---------------------------------------------------------------- bypass selection
  // D register: the request now in compute (same QP as pv: sel_d_q). Writes pv's read
  // misses besides that one: D now and (L = 2) the D register one advance ago.
  wr_t  d_wr;
  logic h_hit;
  st_t  h_st;
  if (L == 2) begin : g_hist
    wr_t h_q;
    always_ff @(posedge clk) begin
      if (adv) h_q <= d_wr;
      if (rst) h_q.valid <= 1'b0;
    end
    assign h_hit = h_q.valid && h_q.qpn == pv.qpn;
    assign h_st  = h_q.st;
  end else begin : g_no_hist
    assign h_hit = 1'b0;
    assign h_st  = '0;
  end

  logic d_hit;
  assign d_hit = d_wr.valid && d_wr.qpn == pv.qpn;

  pre_t x_q;
  st_t  fwd_q;
  logic sel_d_q, sel_f_q;
  always_ff @(posedge clk) begin
    if (adv) begin
      x_q     <= pre_decode(pv.psn, pv.span);
      sel_d_q <= c_r.valid && c_r.qpn == pv.qpn;
      sel_f_q <= d_hit || h_hit;
      fwd_q   <= d_hit ? d_wr.st : h_st;
    end
    if (rst) begin
      sel_d_q <= 1'b0;
      sel_f_q <= 1'b0;
    end
  end

  st_t cur;
  assign cur = sel_d_q ? d_wr.st : (sel_f_q ? fwd_q : rd_data);

  // ---------------------------------------------------------------- compute
  logic [PSN_W-1:0]  psn_off;
  logic              behind, in_win, d_zero, bit_set, empty, io, simple, c_slow, keep, set_g;
  logic [W-1:0]      dec, rel, nxt_bmp;
  fabnic_roce_sr_pkg::sr_class_e c_class;
  st_t               nxt;
  logic [PSN_W-1:0]  c_adv;

  always_comb begin
    psn_off = c_r.psn - cur.epsn;
    behind  = psn_off[PSN_W-1];
    in_win  = (psn_off[PSN_W-1:IDX_W] == '0);
    d_zero  = (c_r.psn == cur.epsn);
    bit_set = |(cur.abm & x_q.psn_oh);
    empty   = (cur.abm == '0);
    dec     = W'(1) << psn_off[IDX_W-1:0];
    rel     = rotr(cur.abm, cur.epsn[IDX_W-1:0]);
    io      = !c_r.init && d_zero;
    simple  = io && (empty || x_q.span_big);   // epsn += span, nothing left ahead
    c_slow  = io && !empty && !x_q.span_big;
    keep    = !c_r.init && !simple;
    set_g   = !c_r.init && in_win && !d_zero && !c_r.ordered;

    nxt.abm  = keep ? (cur.abm | (x_q.psn_oh & {W{set_g}})) : '0;
    nxt_bmp  = keep ? (rel | (dec & {W{set_g}})) : '0;
    nxt.epsn = c_r.init ? c_r.psn : (simple ? x_q.psn_span : cur.epsn);
    c_adv    = simple ? c_r.span : '0;

    c_class = fabnic_roce_sr_pkg::SR_BEYOND_WINDOW;
    if (behind) c_class = fabnic_roce_sr_pkg::SR_DUPLICATE;
    else if (d_zero) c_class = fabnic_roce_sr_pkg::SR_NEW_IN_ORDER;
    else if (in_win) begin
      if (bit_set) c_class = fabnic_roce_sr_pkg::SR_DUPLICATE;
      else if (c_r.ordered) c_class = fabnic_roce_sr_pkg::SR_ORDERED_EARLY;
      else c_class = fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER;
    end
  end

  // ---------------------------------------------------------------- slow path
  always_comb begin
    sl_d = sl_q;
    unique case (sl_q)
      // fast path; an in-order arrival with PSNs received ahead enters the slow path
      SL_IDLE:  if (adv && c_r.valid && c_slow) sl_d = SL_SCAN;
      // mark the run of ones of {bitmap | span mask} from bit 0 (pipeline stopped)
      SL_SCAN:  sl_d = SL_COUNT;
      // count it
      SL_COUNT: sl_d = SL_APPLY;
      // shift the bitmap, advance epsn, rebuild abm into the D register
      SL_APPLY: sl_d = SL_IDLE;
      default:  sl_d = SL_IDLE;
    endcase
  end

  always_ff @(posedge clk) begin
    sl_q <= sl_d;
    if (rst) sl_q <= SL_IDLE;
  end

  logic [W-1:0]     d_bmp, sm_q, low_q, s_comb, s_low, s_hi;
  logic [IDX_W:0]   ones_q;
  always_comb begin
    s_comb = d_bmp | sm_q;
    // the run of ones from bit 0 (bit i set when bits 0..i all are): x & ~(x + 1), one
    // carry chain instead of a prefix AND tree
    s_low  = s_comb & ~(s_comb + W'(1));
    s_hi   = s_comb & ~low_q;
  end

  always_ff @(posedge clk) begin
    if (sl_q == SL_SCAN) low_q <= s_low;
    if (sl_q == SL_COUNT) ones_q <= therm_cnt(low_q);
  end

  // ---------------------------------------------------------------- D register
  always_ff @(posedge clk) begin
    if (adv) begin
      d_valid      <= c_r.valid;
      d_init       <= c_r.init;
      d_wr.valid   <= c_r.valid;
      d_wr.qpn     <= c_r.qpn;
      d_wr.st      <= nxt;
      d_bmp        <= nxt_bmp;
      sm_q         <= x_q.span_mask;
      m_rsp_qpn    <= c_r.qpn;
      m_rsp_psn    <= c_r.psn;
      m_rsp_user   <= c_r.user;
      m_rsp_class  <= c_class;
      m_rsp_adv    <= c_adv;
    end else if (sl_q == SL_APPLY) begin
      d_wr.st.epsn <= m_rsp_psn + PSN_W'(ones_q);
      d_wr.st.abm  <= rotl(s_hi, m_rsp_psn[IDX_W-1:0]);
      d_bmp        <= s_hi >> ones_q[IDX_W-1:0];
      m_rsp_adv    <= PSN_W'(ones_q);
    end
    if (rst) begin
      d_valid    <= 1'b0;
      d_init     <= 1'b0;
      d_wr.valid <= 1'b0;
    end
  end

  assign m_rsp_valid  = d_valid && !d_init && sl_q == SL_IDLE;
  assign m_rsp_epsn   = d_wr.st.epsn;
  assign m_rsp_bitmap = d_bmp;

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

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // the relative bitmap of a response never has bit 0 (epsn itself) set
      if (m_rsp_valid) assert (!d_bmp[0]) else $error("sr_window: bitmap bit 0 set");
      // the absolute bitmap agrees with the relative one in the D register
      if (d_valid && sl_q == SL_IDLE)
        assert (rotl(d_bmp, d_wr.st.epsn[IDX_W-1:0]) == d_wr.st.abm)
          else $error("sr_window: absolute and relative bitmaps disagree");
      // the slow path advances by at least the span of its request
      if (sl_q == SL_APPLY) assert (ones_q != '0) else $error("sr_window: no advance");
    end
  end
`endif

endmodule

`resetall
