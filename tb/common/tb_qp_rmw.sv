// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_qp_rmw with a compute hook standing in for an engine's
// per-QP update: new = state * MUL + op (mod 2^STATE_W), written only when op's two
// low bits are not both zero (a quarter of the requests leave the state unchanged).
`default_nettype none

module tb_qp_rmw #(
    parameter int NUM_QP  = 64,
    parameter int STATE_W = 32,
    parameter int OP_W    = 8,
    parameter int RAM_LAT = 1,
    parameter bit FORWARD = 1'b1,
    parameter int QPN_W   = $clog2(NUM_QP),
    parameter logic [63:0] MUL = 64'h9e37_79b9_7f4a_7c15
) (
    input  wire logic               clk,
    input  wire logic               rst,

    input  wire logic               s_req_valid,
    output logic                    s_req_ready,
    input  wire logic [QPN_W-1:0]   s_req_qpn,
    input  wire logic [OP_W-1:0]    s_req_op,

    input  wire logic               s_ctl_valid,
    output logic                    s_ctl_ready,
    input  wire logic [QPN_W-1:0]   s_ctl_qpn,
    input  wire logic [STATE_W-1:0] s_ctl_state,

    output logic                    m_res_valid,
    input  wire logic               m_res_ready,
    output logic                    m_res_ctl,
    output logic      [QPN_W-1:0]   m_res_qpn,
    output logic      [OP_W-1:0]    m_res_op,
    output logic      [STATE_W-1:0] m_res_old_state,
    output logic      [STATE_W-1:0] m_res_new_state,

    output logic      [31:0]        hook_calls   // cycles with cmp_valid
);
  logic               cmp_valid, cmp_we;
  logic [QPN_W-1:0]   cmp_qpn;
  logic [OP_W-1:0]    cmp_op;
  logic [STATE_W-1:0] cmp_state, cmp_new_state;

  assign cmp_new_state = STATE_W'(cmp_state * MUL[STATE_W-1:0]) + STATE_W'(cmp_op);
  assign cmp_we        = |cmp_op[1:0];

  always_ff @(posedge clk) begin
    if (cmp_valid) hook_calls <= hook_calls + 1;
    if (rst) hook_calls <= '0;
  end

  fabnic_qp_rmw #(
      .NUM_QP(NUM_QP), .STATE_W(STATE_W), .OP_W(OP_W), .RAM_LAT(RAM_LAT), .FORWARD(FORWARD)
  ) u_dut (
      .clk, .rst,
      .s_req_valid, .s_req_ready, .s_req_qpn, .s_req_op,
      .s_ctl_valid, .s_ctl_ready, .s_ctl_qpn, .s_ctl_state,
      .cmp_valid, .cmp_qpn, .cmp_op, .cmp_state, .cmp_new_state, .cmp_we,
      .m_res_valid, .m_res_ready, .m_res_ctl, .m_res_qpn, .m_res_op,
      .m_res_old_state, .m_res_new_state
  );

  logic unused;
  assign unused = ^cmp_qpn;
endmodule
`resetall
