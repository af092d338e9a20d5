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
// Pipeline: accept (RAM read issued) -> P -> C (decide) -> E (act) -> D register
// (response valid, RAM write when D advances). The RAM word reaches C (the block RAM
// output register with OUT_REG=1, a fabric register with OUT_REG=0).
//   P: the request-side values (psn + span, span mask, one-hot psn mod W) are decoded
//      and the QP is compared with the requests ahead of it.
//   C: takes its QP's state from D (a request ahead of it, same QP), or from the
//      newer of the last two RAM writes (D and a history register, pre-selected into
//      fwd_q in P), or from the RAM word; computes the decision flags (behind,
//      in window, d == 0, bit set, window empty) and the one-hot (psn - epsn) mod W,
//      registered with the state it used.
//   E: class, next state, response bitmap (abm rotated by epsn mod W) and advance
//      from the registered flags.
// Hazard rule (one owner per QP: the state of a QP is final only in D): a request
// does not enter C while the request in C (about to enter E) is for the same QP; it
// waits one cycle in P (C gets a bubble) and takes that request's result from D.
// Latency: a request accepted in cycle 0 has its response valid in cycle 4 (either
// OUT_REG). Throughput: one request per cycle when consecutive requests are for
// different QPs; a request for the same QP as the one accepted just before it costs
// one more cycle (the bubble). An in-order arrival (d == 0, span < W) to a QP that has
// PSNs received ahead (a hole being filled) stops the pipeline for three cycles (slow
// path: mark the run of received PSNs, count it and clear it, then shift and add); its
// response comes three cycles later and so does everything behind it. m_rsp_ready low
// freezes the whole pipeline (the RAM read registers hold); m_rsp_ready combinationally
// drives s_req_ready and s_init_ready, and s_init_valid drives s_req_ready (init
// priority).
// Registered: every path from the ports ends in a register except those; outputs are
// registers except m_rsp_valid (D valid and the slow-path state, one gate).
//
// Counters (CNT_W bits, wrapping), one per class plus inits.
`default_nettype none

module fabnic_roce_sr_window #(
    parameter int NUM_QP  = 1024,   // QPs, >= 2
    parameter int W       = 64,     // window / SACK bitmap width (PSNs), power of two
    parameter int USER_W  = 8,      // opaque tag carried from request to response
    parameter int CNT_W   = 32,
    parameter bit OUT_REG = 1'b1,   // RAM word into C: block RAM output register (1) or fabric (0)
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

  // request-side values, decoded in P
  typedef struct packed {
    logic [PSN_W-1:0] psn_span;   // psn + span
    logic             span_big;   // span >= W
    logic [W-1:0]     span_mask;  // bits [0, min(span, W))
    logic [W-1:0]     psn_oh;     // one-hot psn mod W
  } pre_t;

  // decision flags of C, registered for E
  typedef struct packed {
    logic             behind;     // psn - epsn >= 2^23
    logic             in_win;     // psn - epsn < W
    logic             d_zero;     // psn == epsn
    logic             bit_set;    // psn already received out of order
    logic             empty;      // nothing received ahead of epsn
    logic [W-1:0]     dec;        // one-hot (psn - epsn) mod W
  } dec_t;

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

  // rotate by k (right: bit i of the result is bit i + k of x), written as radix-4
  // stages (one 4:1 mux, one LUT, per bit and two bits of k) so that synthesis does
  // not build a chain of 2:1 muxes
  function automatic logic [W-1:0] rot(input logic [W-1:0] x, input logic [IDX_W-1:0] k,
                                       input bit left);
    logic [W-1:0]       y, t;
    logic [IDX_W+1:0]   kk;
    y  = x;
    kk = (IDX_W + 2)'(k);
    for (int s = 0; s < IDX_W; s += 2) begin
      for (int i = 0; i < W; i++) begin
        for (int j = 0; j < 4; j++) begin
          if (kk[s +: 2] == 2'(j))
            t[i] = y[left ? (i + W - ((j << s) % W)) % W : (i + (j << s)) % W];
        end
      end
      y = t;
    end
    return y;
  endfunction

  function automatic logic [W-1:0] rotr(input logic [W-1:0] x, input logic [IDX_W-1:0] k);
    return rot(x, k, 1'b0);
  endfunction

  function automatic logic [W-1:0] rotl(input logic [W-1:0] x, input logic [IDX_W-1:0] k);
    return rot(x, k, 1'b1);
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
  // adv: the back of the pipeline (C -> E -> D, history) moves; adv_f: the front
  // (accept, P, RAM read registers) moves too (not during a hazard bubble)
  logic d_valid, d_init, stall, adv, adv_f, haz_q;
  sl_e  sl_q, sl_d;
  assign stall        = (sl_q != SL_IDLE) || (d_valid && !d_init && !m_rsp_ready);
  assign adv          = !stall;
  assign adv_f        = adv && !haz_q;
  assign s_init_ready = adv_f;
  assign s_req_ready  = adv_f && !s_init_valid;

  req_t in_r;
  always_comb begin
    in_r         = '0;
    in_r.valid   = (s_init_valid || s_req_valid) && adv_f;
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
  st_t              wr_data, ram_q, rd_st;

  fabnic_ram_sdp #(.DATA_W(ST_W), .DEPTH(NUM_QP), .OUT_REG(OUT_REG), .ADDR_W(QPN_W)) u_state (
      .clk,
      .wr_en, .wr_be(1'b1), .wr_addr, .wr_data,
      .rd_en(in_r.valid), .rd_regce(adv_f), .rd_addr(in_r.qpn), .rd_data(ram_q)
  );

  if (OUT_REG) begin : g_rd_bram
    assign rd_st = ram_q;
  end else begin : g_rd_fabric
    st_t rd_q;
    always_ff @(posedge clk) begin
      if (adv_f) rd_q <= ram_q;
    end
    assign rd_st = rd_q;
  end

  // ---------------------------------------------------------------- request stages
  req_t p_r, c_r;   // in P, in C
  always_ff @(posedge clk) begin
    if (adv_f) p_r <= in_r;
    if (adv) begin
      c_r <= p_r;
      if (haz_q) c_r.valid <= 1'b0;
      // the pair (P, C) of the next cycle is for one QP: bubble then
      haz_q <= !haz_q && in_r.valid && p_r.valid && in_r.qpn == p_r.qpn;
    end
    if (rst) begin
      p_r.valid <= 1'b0;
      c_r.valid <= 1'b0;
      haz_q     <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- bypass selection
  // Selected in P for the request entering C: D of the next cycle (the request now in
  // E), else the newer of D and the history register h1_q (the RAM writes of this and
  // the last advance, which its read could not see; an older match holds what the RAM
  // holds), else the RAM word. A request that waited a bubble in P (hazard) always
  // takes D: the request it waited for is its QP's newest.
  wr_t  d_wr, h1_q;
  logic v_q;                       // E holds a request
  logic [QPN_W-1:0] e_qpn;
  always_ff @(posedge clk) begin
    if (adv) begin
      h1_q <= d_wr;
    end
    if (rst) begin
      h1_q.valid <= 1'b0;
    end
  end

  logic hit_d, hit_1;
  assign hit_d = d_wr.valid && d_wr.qpn == p_r.qpn;
  assign hit_1 = h1_q.valid && h1_q.qpn == p_r.qpn;

  pre_t x_q;
  st_t  fwd_q;
  logic sel_d_q, sel_f_q;
  always_ff @(posedge clk) begin
    if (adv) begin
      x_q     <= pre_decode(p_r.psn, p_r.span);
      sel_d_q <= v_q && e_qpn == p_r.qpn;
      sel_f_q <= hit_d || hit_1;
      fwd_q   <= hit_d ? d_wr.st : h1_q.st;
    end
    if (rst) begin
      sel_d_q <= 1'b0;
      sel_f_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- C: decide
  st_t  cur;
  dec_t c_dec;
  logic [PSN_W-1:0] psn_off;
  assign cur = sel_d_q ? d_wr.st : (sel_f_q ? fwd_q : rd_st);

  always_comb begin
    psn_off        = c_r.psn - cur.epsn;
    c_dec.behind   = psn_off[PSN_W-1];
    c_dec.in_win   = (psn_off[PSN_W-1:IDX_W] == '0);
    c_dec.d_zero   = (c_r.psn == cur.epsn);
    c_dec.bit_set  = |(cur.abm & x_q.psn_oh);
    c_dec.empty    = (cur.abm == '0);
    c_dec.dec      = W'(1) << psn_off[IDX_W-1:0];
  end

  // ---------------------------------------------------------------- E: act
  req_t e_r;
  pre_t e_x;
  dec_t e_d;
  st_t  e_st;
  always_ff @(posedge clk) begin
    if (adv) begin
      e_r  <= c_r;
      e_x  <= x_q;
      e_d  <= c_dec;
      e_st <= cur;
    end
    if (rst) e_r.valid <= 1'b0;
  end
  assign v_q   = e_r.valid;
  assign e_qpn = e_r.qpn;

  logic              io, simple, e_slow, keep, set_g;
  logic [W-1:0]      nxt_bmp;
  fabnic_roce_sr_pkg::sr_class_e e_class;
  st_t               nxt;
  logic [PSN_W-1:0]  e_adv;

  always_comb begin
    io      = !e_r.init && e_d.d_zero;
    simple  = io && (e_d.empty || e_x.span_big);   // epsn += span, nothing left ahead
    e_slow  = io && !e_d.empty && !e_x.span_big;
    keep    = !e_r.init && !simple;
    set_g   = !e_r.init && e_d.in_win && !e_d.d_zero && !e_r.ordered;

    nxt.abm  = keep ? (e_st.abm | (e_x.psn_oh & {W{set_g}})) : '0;
    nxt_bmp  = keep ? (rotr(e_st.abm, e_st.epsn[IDX_W-1:0]) | (e_d.dec & {W{set_g}})) : '0;
    nxt.epsn = e_r.init ? e_r.psn : (simple ? e_x.psn_span : e_st.epsn);
    e_adv    = simple ? e_r.span : '0;

    e_class = fabnic_roce_sr_pkg::SR_BEYOND_WINDOW;
    if (e_d.behind) e_class = fabnic_roce_sr_pkg::SR_DUPLICATE;
    else if (e_d.d_zero) e_class = fabnic_roce_sr_pkg::SR_NEW_IN_ORDER;
    else if (e_d.in_win) begin
      if (e_d.bit_set) e_class = fabnic_roce_sr_pkg::SR_DUPLICATE;
      else if (e_r.ordered) e_class = fabnic_roce_sr_pkg::SR_ORDERED_EARLY;
      else e_class = fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER;
    end
  end

  // ---------------------------------------------------------------- slow path
  always_comb begin
    sl_d = sl_q;
    unique case (sl_q)
      // fast path; an in-order arrival with PSNs received ahead enters the slow path
      SL_IDLE:  if (adv && e_r.valid && e_slow) sl_d = SL_SCAN;
      // mark the run of ones of {bitmap | span mask} from bit 0 (pipeline stopped)
      SL_SCAN:  sl_d = SL_COUNT;
      // count it; clear it from the bitmap
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

  logic [W-1:0]     d_bmp, sm_q, low_q, hi_q, s_comb, s_low;
  logic [IDX_W:0]   ones_q;
  always_comb begin
    s_comb = d_bmp | sm_q;
    // the run of ones from bit 0 (bit i set when bits 0..i all are): x & ~(x + 1), one
    // carry chain instead of a prefix AND tree
    s_low  = s_comb & ~(s_comb + W'(1));
  end

  always_ff @(posedge clk) begin
    if (sl_q == SL_SCAN) low_q <= s_low;
    if (sl_q == SL_COUNT) begin
      ones_q <= therm_cnt(low_q);
      hi_q   <= s_comb & ~low_q;
    end
  end

  // ---------------------------------------------------------------- D register
  always_ff @(posedge clk) begin
    if (adv) begin
      d_valid      <= e_r.valid;
      d_init       <= e_r.init;
      d_wr.valid   <= e_r.valid;
      d_wr.qpn     <= e_r.qpn;
      d_wr.st      <= nxt;
      d_bmp        <= nxt_bmp;
      sm_q         <= e_x.span_mask;
      m_rsp_qpn    <= e_r.qpn;
      m_rsp_psn    <= e_r.psn;
      m_rsp_user   <= e_r.user;
      m_rsp_class  <= e_class;
      m_rsp_adv    <= e_adv;
    end else if (sl_q == SL_APPLY) begin
      d_wr.st.epsn <= m_rsp_psn + PSN_W'(ones_q);
      d_wr.st.abm  <= rotl(hi_q, m_rsp_psn[IDX_W-1:0]);
      d_bmp        <= rotr(hi_q, ones_q[IDX_W-1:0]);   // bits below ones_q are clear
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
    if (adv && e_r.valid) begin
      if (e_r.init) cnt_init <= cnt_init + 1'b1;
      else begin
        unique case (e_class)
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
