// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: the three REG_TYPEs of fabnic_axis_register side by side,
// each with its own r<N>_s_axis / r<N>_m_axis ports.
`default_nettype none

module tb_axis_register #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int USER_W = 1
) (
    input  wire logic clk,
    input  wire logic rst,
    input  wire logic [DATA_W-1:0] r0_s_axis_tdata, r1_s_axis_tdata, r2_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] r0_s_axis_tkeep, r1_s_axis_tkeep, r2_s_axis_tkeep,
    input  wire logic              r0_s_axis_tvalid, r1_s_axis_tvalid, r2_s_axis_tvalid,
    output logic                   r0_s_axis_tready, r1_s_axis_tready, r2_s_axis_tready,
    input  wire logic              r0_s_axis_tlast, r1_s_axis_tlast, r2_s_axis_tlast,
    input  wire logic [USER_W-1:0] r0_s_axis_tuser, r1_s_axis_tuser, r2_s_axis_tuser,
    output logic      [DATA_W-1:0] r0_m_axis_tdata, r1_m_axis_tdata, r2_m_axis_tdata,
    output logic      [KEEP_W-1:0] r0_m_axis_tkeep, r1_m_axis_tkeep, r2_m_axis_tkeep,
    output logic                   r0_m_axis_tvalid, r1_m_axis_tvalid, r2_m_axis_tvalid,
    input  wire logic              r0_m_axis_tready, r1_m_axis_tready, r2_m_axis_tready,
    output logic                   r0_m_axis_tlast, r1_m_axis_tlast, r2_m_axis_tlast,
    output logic      [USER_W-1:0] r0_m_axis_tuser, r1_m_axis_tuser, r2_m_axis_tuser
);
  fabnic_axis_register #(.DATA_W(DATA_W), .USER_W(USER_W), .REG_TYPE(0)) u_r0 (
      .clk, .rst,
      .s_axis_tdata(r0_s_axis_tdata), .s_axis_tkeep(r0_s_axis_tkeep),
      .s_axis_tvalid(r0_s_axis_tvalid), .s_axis_tready(r0_s_axis_tready),
      .s_axis_tlast(r0_s_axis_tlast), .s_axis_tuser(r0_s_axis_tuser),
      .m_axis_tdata(r0_m_axis_tdata), .m_axis_tkeep(r0_m_axis_tkeep),
      .m_axis_tvalid(r0_m_axis_tvalid), .m_axis_tready(r0_m_axis_tready),
      .m_axis_tlast(r0_m_axis_tlast), .m_axis_tuser(r0_m_axis_tuser));
  fabnic_axis_register #(.DATA_W(DATA_W), .USER_W(USER_W), .REG_TYPE(1)) u_r1 (
      .clk, .rst,
      .s_axis_tdata(r1_s_axis_tdata), .s_axis_tkeep(r1_s_axis_tkeep),
      .s_axis_tvalid(r1_s_axis_tvalid), .s_axis_tready(r1_s_axis_tready),
      .s_axis_tlast(r1_s_axis_tlast), .s_axis_tuser(r1_s_axis_tuser),
      .m_axis_tdata(r1_m_axis_tdata), .m_axis_tkeep(r1_m_axis_tkeep),
      .m_axis_tvalid(r1_m_axis_tvalid), .m_axis_tready(r1_m_axis_tready),
      .m_axis_tlast(r1_m_axis_tlast), .m_axis_tuser(r1_m_axis_tuser));
  fabnic_axis_register #(.DATA_W(DATA_W), .USER_W(USER_W), .REG_TYPE(2)) u_r2 (
      .clk, .rst,
      .s_axis_tdata(r2_s_axis_tdata), .s_axis_tkeep(r2_s_axis_tkeep),
      .s_axis_tvalid(r2_s_axis_tvalid), .s_axis_tready(r2_s_axis_tready),
      .s_axis_tlast(r2_s_axis_tlast), .s_axis_tuser(r2_s_axis_tuser),
      .m_axis_tdata(r2_m_axis_tdata), .m_axis_tkeep(r2_m_axis_tkeep),
      .m_axis_tvalid(r2_m_axis_tvalid), .m_axis_tready(r2_m_axis_tready),
      .m_axis_tlast(r2_m_axis_tlast), .m_axis_tuser(r2_m_axis_tuser));
endmodule
`resetall
