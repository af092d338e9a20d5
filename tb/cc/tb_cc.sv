// SPDX-License-Identifier: Apache-2.0
//
// tb_cc: fabnic_cc (the congestion-control room) with its struct ports as flat signals
// for cocotb (tb/cc/test_cc.py).
`default_nettype none

module tb_cc #(
    parameter int NUM_QP = 64,
    parameter int QPN_W  = $clog2(NUM_QP)
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              cfg_rp_on,
    input  wire logic              cfg_np_on,
    input  wire logic [4:0]        cfg_g_shift,
    input  wire logic [31:0]       cfg_alpha_period,
    input  wire logic [31:0]       cfg_timer_period,
    input  wire logic [31:0]       cfg_byte_counter,
    input  wire logic [7:0]        cfg_f,
    input  wire logic [31:0]       cfg_rate_ai,
    input  wire logic [31:0]       cfg_rate_hai,
    input  wire logic [31:0]       cfg_rate_min,
    input  wire logic [31:0]       cfg_rate_line,
    input  wire logic [31:0]       cfg_rate_init,
    input  wire logic              cfg_clamp_tgt,
    input  wire logic [31:0]       cfg_cnp_interval,
    input  wire logic [15:0]       cfg_limiter_slack,

    input  wire logic              s_qp_valid,
    output logic                   s_qp_ready,
    input  wire logic              s_qp_read,
    input  wire logic [23:0]       s_qp_qpn,
    input  wire logic              s_qp_enable,
    output logic                   m_qp_state_valid,
    output logic                   m_qp_state_enable,
    output logic      [31:0]       m_qp_state_w0,

    input  wire logic              s_tx_valid,
    input  wire logic [23:0]       s_tx_qpn,
    input  wire logic [15:0]       s_tx_bytes,
    input  wire logic              s_cnp_valid,
    input  wire logic [23:0]       s_cnp_qpn,
    input  wire logic              s_ce_valid,
    input  wire logic [23:0]       s_ce_qpn,

    input  wire logic              s_pace_valid,
    output logic                   s_pace_ready,
    input  wire logic [23:0]       s_pace_qpn,
    input  wire logic [15:0]       s_pace_bytes,
    output logic                   m_pace_valid,
    output logic                   m_pace_grant,

    output logic                   m_cnp_valid,
    input  wire logic              m_cnp_ready,
    output logic      [QPN_W-1:0]  m_cnp_qpn,

    output logic                   status_busy,
    output logic      [31:0]       cnt_cnp_rx,
    output logic      [31:0]       cnt_rate_decrease,
    output logic      [31:0]       cnt_rate_increase,
    output logic      [31:0]       cnt_ecn_marked_rx,
    output logic      [31:0]       cnt_cnp_tx,
    output logic      [31:0]       cnt_ev_dropped
);
  import fabnic_cc_pkg::*;

  cc_cfg_t      cfg;
  cc_qp_state_t st;
  cc_pace_rsp_t pace;
  cc_cnt_t      cnt;
  logic [47:0]  unused_now;
  logic         unused_upd_v;
  logic [QPN_W-1:0] unused_upd_qpn;

  assign cfg = '{rp_on: cfg_rp_on, np_on: cfg_np_on, g_shift: cfg_g_shift,
                 alpha_period: cfg_alpha_period, timer_period: cfg_timer_period,
                 byte_counter: cfg_byte_counter, f: cfg_f, rate_ai: cfg_rate_ai,
                 rate_hai: cfg_rate_hai, rate_min: cfg_rate_min, rate_line: cfg_rate_line,
                 rate_init: cfg_rate_init, clamp_tgt: cfg_clamp_tgt,
                 cnp_interval: cfg_cnp_interval, limiter_slack: cfg_limiter_slack};

  fabnic_cc #(.NUM_QP(NUM_QP)) u_cc (
      .clk, .rst, .cfg,
      .s_qp_valid, .s_qp_ready,
      .s_qp('{op: s_qp_read ? CC_QP_READ : CC_QP_INIT, qpn: s_qp_qpn, enable: s_qp_enable}),
      .m_qp_state_valid, .m_qp_state(st),
      .s_tx_valid, .s_tx('{qpn: s_tx_qpn, bytes: s_tx_bytes}),
      .s_cnp_valid, .s_cnp('{qpn: s_cnp_qpn}),
      .s_ce_valid, .s_ce('{qpn: s_ce_qpn, ecn: 2'b11}),
      .s_pace_valid, .s_pace_ready, .s_pace('{qpn: s_pace_qpn, bytes: s_pace_bytes}),
      .m_pace_valid, .m_pace(pace), .pace_now(unused_now),
      .m_rate_upd_valid(unused_upd_v), .m_rate_upd_qpn(unused_upd_qpn),
      .m_cnp_valid, .m_cnp_ready, .m_cnp_qpn,
      .status_busy, .cnt
  );
  assign m_qp_state_enable = st.enable;
  assign m_qp_state_w0     = st.w0;
  assign m_pace_grant      = pace.grant;
  assign cnt_cnp_rx        = cnt.cnp_rx;
  assign cnt_rate_decrease = cnt.rate_decrease;
  assign cnt_rate_increase = cnt.rate_increase;
  assign cnt_ecn_marked_rx = cnt.ecn_marked_rx;
  assign cnt_cnp_tx        = cnt.cnp_tx;
  assign cnt_ev_dropped    = cnt.tx_ev_dropped;

  logic unused;
  assign unused = ^{unused_now, unused_upd_v, unused_upd_qpn, st.w1, st.w2, pace.at,
                    cnt.cnp_rx_ignored, cnt.rp_catchup, cnt.cnp_suppressed, cnt.lim_grant,
                    cnt.lim_deny, cnt.lim_rate_set};
endmodule

`resetall
