// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_axis_realign with CMD_REG = 1 behind a parent's command
// register, as fabnic_pkt_parser drives it. The cmd_* ports here are a command stream
// (valid/ready, a command is taken into the register when cmd_valid && cmd_ready); the
// register's command goes to the realigner with the frame's first beat. r_cmd_ready is
// the realigner's own cmd_ready (the first beat's handshake).
`default_nettype none

module tb_axis_realign_reg #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int LEN_W  = 17
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              cmd_valid,
    output logic                   cmd_ready,
    input  wire logic [LEN_W-1:0]  cmd_off,
    input  wire logic [LEN_W-1:0]  cmd_len,
    input  wire logic              cmd_trim,
    input  wire logic              cmd_chk,
    input  wire logic              cmd_drop,
    input  wire logic              cmd_bad,
    output logic                   r_cmd_ready,
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,
    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic                   m_axis_tuser,
    output logic                   status_done,
    output logic                   status_short
);
  logic c_valid_q, c_load;

  assign c_load    = !c_valid_q || r_cmd_ready;
  assign cmd_ready = c_load;

  always_ff @(posedge clk) begin
    if (c_load) c_valid_q <= cmd_valid;
    if (rst) c_valid_q <= 1'b0;
  end

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(LEN_W), .CMD_REG(1'b1)) u_dut (
      .clk, .rst,
      .cmd_valid(c_valid_q), .cmd_ready(r_cmd_ready), .cmd_off, .cmd_len, .cmd_trim, .cmd_chk,
      .cmd_drop, .cmd_bad, .cmd_load(c_load),
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tcnt('0), .s_axis_tvalid, .s_axis_tready,
      .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
      .status_done, .status_short
  );
endmodule

`resetall
