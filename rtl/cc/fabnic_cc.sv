// SPDX-License-Identifier: Apache-2.0
//
// fabnic_cc: the congestion-control room as the transport sees it. One instance per
// NIC, between the RoCE transport (fabnic_roce_core) and the algorithm, with one set
// of ports whatever the algorithm (the structs of fabnic_cc_pkg, docs/cc.md "The
// congestion-control interface"):
//
//   in   per-QP events: a frame sent (wire bytes from the packet builder), a CNP
//        received, a request received with ECN-CE; QP commands (init, read state)
//   out  pacing answers (grant now, or the earliest cycle a grant is possible) for
//        the send scheduler, a "rate changed" pulse per QP, CNP requests for the
//        transport to send, counters
//
// An algorithm is a branch of the CC_ALG generate below: it consumes the events and
// answers the pacing requests; nothing outside rtl/cc changes when one is added.
// CC_DCQCN: fabnic_dcqcn_rp (reaction point), fabnic_rate_limiter (pacing) and
// fabnic_dcqcn_np (notification point), with fabnic_cc_tx_acc in front of the
// reaction point (it takes one event per QP every 17 cycles; the accumulator turns
// one event per frame into one per CHUNK bytes).
//
// Events are facts: the transport does not wait for the room. Every event input is
// registered, then queued (CNP and CE events in EV_DEPTH-entry FIFOs, frames in the
// accumulator); an event that finds its queue full is counted in cnt.ev_dropped and
// lost. With the NIC's traffic the queues do not fill (the accumulator takes a frame
// per cycle for different QPs, one per two cycles for one QP: tb/cc/test_cc_tx_acc.py;
// dcqcn_loop in tb/roce/test_roce_pair.py checks the counter stays 0).
//
// Parameters
//   CC_ALG    the algorithm (fabnic_cc_pkg::cc_alg_e); an unknown one stops elaboration
//   NUM_QP    QPs, a power of two 64..16384
//   CHUNK     bytes per reaction-point event (fabnic_cc_tx_acc), power of two 64..32768
//   EV_DEPTH  entries of the CNP and CE event FIFOs, a power of two >= 2
//   CNT_W     per-block counter width inside the algorithm (32; the counters out are
//             32 bits)
//
// Handshakes: the event inputs are registered; s_qp_ready is a flop (a command is
// taken the cycle after the accumulator and the reaction point have both taken it);
// s_pace_ready, m_pace_*, pace_now and m_rate_upd_* are the rate limiter's ports
// (fabnic_rate_limiter header); m_cnp_* is the notification point's output FIFO.
`default_nettype none

module fabnic_cc
  import fabnic_cc_pkg::*;
#(
    parameter cc_alg_e CC_ALG  = CC_DCQCN,
    parameter int     NUM_QP   = 1024,
    parameter int     CHUNK    = 1024,
    parameter int     EV_DEPTH = 8,
    parameter int     CNT_W    = 32,
    parameter int     QPN_W    = $clog2(NUM_QP)
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire cc_cfg_t           cfg,

    // control plane: QP init (state reset + enable) and state read
    input  wire logic              s_qp_valid,
    output logic                   s_qp_ready,
    input  wire cc_qp_cmd_t        s_qp,
    output logic                   m_qp_state_valid,
    output cc_qp_state_t           m_qp_state,

    // transport events (no ready; see the header)
    input  wire logic              s_tx_valid,
    input  wire cc_tx_ev_t         s_tx,
    input  wire logic              s_cnp_valid,
    input  wire cc_cnp_ev_t        s_cnp,
    input  wire logic              s_ce_valid,
    input  wire cc_ce_ev_t         s_ce,

    // pacing of the send scheduler
    input  wire logic              s_pace_valid,
    output logic                   s_pace_ready,
    input  wire cc_pace_req_t      s_pace,
    output logic                   m_pace_valid,
    output cc_pace_rsp_t           m_pace,
    output logic      [47:0]       pace_now,
    output logic                   m_rate_upd_valid,
    output logic      [QPN_W-1:0]  m_rate_upd_qpn,

    // CNPs the transport is asked to send (to the peer of the local QP m_cnp_qpn)
    output logic                   m_cnp_valid,
    input  wire logic              m_cnp_ready,
    output logic      [QPN_W-1:0]  m_cnp_qpn,

    output logic                   status_busy,
    output cc_cnt_t                cnt
);

  if (NUM_QP < 64 || NUM_QP > 16384 || (1 << $clog2(NUM_QP)) != NUM_QP) begin : g_check_qp
    $error("fabnic_cc: NUM_QP must be a power of two in 64..16384");
  end
  if (QPN_W != $clog2(NUM_QP)) begin : g_check_qpn_w
    $error("fabnic_cc: QPN_W is derived from NUM_QP; do not override it");
  end
  if (EV_DEPTH < 2 || (1 << $clog2(EV_DEPTH)) != EV_DEPTH) begin : g_check_depth
    $error("fabnic_cc: EV_DEPTH must be a power of two >= 2");
  end
  if (CNT_W != 32) begin : g_check_cnt
    $error("fabnic_cc: CNT_W must be 32 (cc_cnt_t)");
  end

  if (CC_ALG == CC_DCQCN) begin : g_dcqcn
    // ------------------------------------------------------------ event inputs
    // frames: per-QP byte accumulation
    localparam int AW = $clog2(CHUNK) > 16 ? $clog2(CHUNK) + 1 : 17;
    logic             acc_valid, acc_ready, clr_valid, clr_ready;
    logic [QPN_W-1:0] acc_qpn;
    logic [AW-1:0]    acc_bytes;
    logic [31:0]      tx_dropped;
    fabnic_cc_tx_acc #(.NUM_QP(NUM_QP), .CHUNK(CHUNK), .LEN_W(16), .CNT_W(32)) u_acc (
        .clk, .rst,
        .s_ev_valid(s_tx_valid && cfg.rp_on), .s_ev_qpn(QPN_W'(s_tx.qpn)),
        .s_ev_bytes(s_tx.bytes),
        .s_clr_valid(clr_valid), .s_clr_ready(clr_ready), .s_clr_qpn(QPN_W'(s_qp.qpn)),
        .m_ev_valid(acc_valid), .m_ev_ready(acc_ready), .m_ev_qpn(acc_qpn),
        .m_ev_bytes(acc_bytes), .cnt_dropped(tx_dropped)
    );

    // CNP and CE events: input register, then a FIFO
    logic             cnp_in_q, ce_in_q;
    logic [QPN_W-1:0] cnp_qpn_q, ce_qpn_q;
    logic [1:0]       ce_ecn_q;
    always_ff @(posedge clk) begin
      cnp_in_q  <= s_cnp_valid && cfg.rp_on;
      cnp_qpn_q <= QPN_W'(s_cnp.qpn);
      ce_in_q   <= s_ce_valid && cfg.np_on;
      ce_qpn_q  <= QPN_W'(s_ce.qpn);
      ce_ecn_q  <= s_ce.ecn;
      if (rst) begin
        cnp_in_q <= 1'b0;
        ce_in_q  <= 1'b0;
      end
    end
    logic                      cnpq_ready, cnpq_valid, rp_cnp_ready;
    logic                      ceq_ready, ceq_valid, np_s_ready;
    logic [QPN_W-1:0]          cnpq_qpn, ceq_qpn;
    logic [1:0]                ceq_ecn;
    logic [$clog2(EV_DEPTH):0] unused_c0, unused_c1;
    fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(EV_DEPTH)) u_cnpq (
        .clk, .rst, .in_valid(cnp_in_q), .in_ready(cnpq_ready), .in_data(cnp_qpn_q),
        .out_valid(cnpq_valid), .out_ready(rp_cnp_ready), .out_data(cnpq_qpn),
        .status_count(unused_c0)
    );
    fabnic_fifo #(.WIDTH(QPN_W + 2), .DEPTH(EV_DEPTH)) u_ceq (
        .clk, .rst, .in_valid(ce_in_q), .in_ready(ceq_ready), .in_data({ce_qpn_q, ce_ecn_q}),
        .out_valid(ceq_valid), .out_ready(np_s_ready), .out_data({ceq_qpn, ceq_ecn}),
        .status_count(unused_c1)
    );

    logic [31:0] ev_lost_q;
    always_ff @(posedge clk) begin
      ev_lost_q <= ev_lost_q + 32'(cnp_in_q && !cnpq_ready) + 32'(ce_in_q && !ceq_ready);
      if (rst) ev_lost_q <= '0;
    end
    assign cnt.tx_ev_dropped = ev_lost_q + tx_dropped;

    // ------------------------------------------------------------ QP commands
    // INIT goes to the accumulator (sum = 0) and the reaction point (state reset); READ
    // goes to the reaction point only. Each side's handshake sets its done flag (a READ
    // marks the accumulator side done at once); the command is taken in the cycle after
    // both are set, so s_qp_ready is a flop.
    logic cmd_acc_done_q, cmd_rp_done_q, rp_init_ready, rp_rd_ready, is_init;
    logic rp_init_valid, rp_rd_valid;
    assign is_init       = s_qp.op == CC_QP_INIT;
    assign clr_valid     = s_qp_valid && is_init && !cmd_acc_done_q;
    assign rp_init_valid = s_qp_valid && is_init && !cmd_rp_done_q;
    assign rp_rd_valid   = s_qp_valid && !is_init && !cmd_rp_done_q;
    assign s_qp_ready    = cmd_acc_done_q && cmd_rp_done_q;
    always_ff @(posedge clk) begin
      if ((clr_valid && clr_ready) || (s_qp_valid && !is_init)) cmd_acc_done_q <= 1'b1;
      if ((rp_init_valid && rp_init_ready) || (rp_rd_valid && rp_rd_ready))
        cmd_rp_done_q <= 1'b1;
      if (s_qp_valid && s_qp_ready) begin
        cmd_acc_done_q <= 1'b0;
        cmd_rp_done_q  <= 1'b0;
      end
      if (rst) begin
        cmd_acc_done_q <= 1'b0;
        cmd_rp_done_q  <= 1'b0;
      end
    end

    // ------------------------------------------------------------ the algorithm
    logic             upd_valid, upd_ready, upd_init, rp_busy, lim_busy, np_busy;
    logic [QPN_W-1:0] upd_qpn, unused_rsp_qpn, unused_lim_qpn;
    logic [31:0]      upd_rate, unused_rp_time;
    logic [47:0]      unused_np_time;
    logic             rsp_en;
    logic [31:0]      rsp_rc, rsp_rt;
    logic [20:0]      rsp_alpha;

    fabnic_dcqcn_rp #(.NUM_QP(NUM_QP), .QPN_W(QPN_W), .LEN_W(AW), .CNT_W(32)) u_rp (
        .clk, .rst,
        .cfg_g_shift(cfg.g_shift), .cfg_alpha_period(cfg.alpha_period),
        .cfg_timer_period(cfg.timer_period), .cfg_byte_counter(cfg.byte_counter),
        .cfg_f(cfg.f), .cfg_rate_ai(cfg.rate_ai), .cfg_rate_hai(cfg.rate_hai),
        .cfg_rate_min(cfg.rate_min), .cfg_rate_line(cfg.rate_line),
        .cfg_rate_init(cfg.rate_init), .cfg_clamp_tgt(cfg.clamp_tgt),
        .init_valid(rp_init_valid), .init_ready(rp_init_ready), .init_qpn(QPN_W'(s_qp.qpn)),
        .init_enable(s_qp.enable),
        .cnp_valid(cnpq_valid), .cnp_ready(rp_cnp_ready), .cnp_qpn(cnpq_qpn),
        .tx_valid(acc_valid), .tx_ready(acc_ready), .tx_qpn(acc_qpn), .tx_bytes(acc_bytes),
        .rd_valid(rp_rd_valid), .rd_ready(rp_rd_ready), .rd_qpn(QPN_W'(s_qp.qpn)),
        .rd_rsp_valid(m_qp_state_valid), .rd_rsp_qpn(unused_rsp_qpn), .rd_rsp_enable(rsp_en),
        .rd_rsp_rc(rsp_rc), .rd_rsp_rt(rsp_rt), .rd_rsp_alpha(rsp_alpha),
        .upd_valid, .upd_ready, .upd_qpn, .upd_rate, .upd_init,
        .status_time(unused_rp_time), .status_busy(rp_busy),
        .cnt_cnp(cnt.cnp_rx), .cnt_cnp_ignored(cnt.cnp_rx_ignored),
        .cnt_decrease(cnt.rate_decrease), .cnt_increase(cnt.rate_increase),
        .cnt_catchup(cnt.rp_catchup)
    );
    assign m_qp_state = '{enable: rsp_en, w0: rsp_rc, w1: rsp_rt, w2: 32'(rsp_alpha)};

    fabnic_rate_limiter #(.NUM_QP(NUM_QP), .QPN_W(QPN_W), .CNT_W(32)) u_lim (
        .clk, .rst, .cfg_slack(cfg.limiter_slack),
        .upd_valid, .upd_ready, .upd_qpn, .upd_rate, .upd_init,
        .req_valid(s_pace_valid), .req_ready(s_pace_ready), .req_qpn(QPN_W'(s_pace.qpn)),
        .req_len(s_pace.bytes),
        .rsp_valid(m_pace_valid), .rsp_qpn(unused_lim_qpn), .rsp_grant(m_pace.grant),
        .rsp_time(m_pace.at), .status_time(pace_now), .status_busy(lim_busy),
        .cnt_grant(cnt.lim_grant), .cnt_deny(cnt.lim_deny), .cnt_rate_set(cnt.lim_rate_set)
    );
    assign m_rate_upd_valid = upd_valid && upd_ready;
    assign m_rate_upd_qpn   = upd_qpn;

    fabnic_dcqcn_np #(.NUM_QP(NUM_QP), .QPN_W(QPN_W), .CNT_W(32)) u_np (
        .clk, .rst, .cfg_interval({16'd0, cfg.cnp_interval}),
        .s_valid(ceq_valid), .s_ready(np_s_ready), .s_qpn(ceq_qpn), .s_ecn(ceq_ecn),
        .cnp_valid(m_cnp_valid), .cnp_ready(m_cnp_ready), .cnp_qpn(m_cnp_qpn),
        .status_time(unused_np_time), .status_busy(np_busy),
        .cnt_marked(cnt.ecn_marked_rx), .cnt_cnp(cnt.cnp_tx),
        .cnt_suppressed(cnt.cnp_suppressed)
    );
    assign status_busy = rp_busy || lim_busy || np_busy;

    logic unused;
    assign unused = ^{unused_c0, unused_c1, unused_rsp_qpn, unused_lim_qpn, unused_rp_time,
                      unused_np_time, s_tx.qpn, s_cnp.qpn, s_ce.qpn, s_qp.qpn, s_pace.qpn};
  end else begin : g_unknown
    $error("fabnic_cc: unknown CC_ALG");
  end

endmodule

`resetall
