// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: an upsizer (up_*), a downsizer (dn_*) and a passthrough
// (ps_*, PS_W -> PS_W) fabnic_axis_adapter side by side.
`default_nettype none

module tb_axis_adapter #(
    parameter int UP_S_W = 64,
    parameter int UP_M_W = 512,
    parameter int DN_S_W = 512,
    parameter int DN_M_W = 64,
    parameter int PS_W   = 64
) (
    input  wire logic clk,
    input  wire logic rst,

    input  wire logic [UP_S_W-1:0]   up_s_axis_tdata,
    input  wire logic [UP_S_W/8-1:0] up_s_axis_tkeep,
    input  wire logic                up_s_axis_tvalid,
    output logic                     up_s_axis_tready,
    input  wire logic                up_s_axis_tlast,
    input  wire logic [0:0]          up_s_axis_tuser,
    output logic      [UP_M_W-1:0]   up_m_axis_tdata,
    output logic      [UP_M_W/8-1:0] up_m_axis_tkeep,
    output logic                     up_m_axis_tvalid,
    input  wire logic                up_m_axis_tready,
    output logic                     up_m_axis_tlast,
    output logic      [0:0]          up_m_axis_tuser,

    input  wire logic [DN_S_W-1:0]   dn_s_axis_tdata,
    input  wire logic [DN_S_W/8-1:0] dn_s_axis_tkeep,
    input  wire logic                dn_s_axis_tvalid,
    output logic                     dn_s_axis_tready,
    input  wire logic                dn_s_axis_tlast,
    input  wire logic [0:0]          dn_s_axis_tuser,
    output logic      [DN_M_W-1:0]   dn_m_axis_tdata,
    output logic      [DN_M_W/8-1:0] dn_m_axis_tkeep,
    output logic                     dn_m_axis_tvalid,
    input  wire logic                dn_m_axis_tready,
    output logic                     dn_m_axis_tlast,
    output logic      [0:0]          dn_m_axis_tuser,

    input  wire logic [PS_W-1:0]     ps_s_axis_tdata,
    input  wire logic [PS_W/8-1:0]   ps_s_axis_tkeep,
    input  wire logic                ps_s_axis_tvalid,
    output logic                     ps_s_axis_tready,
    input  wire logic                ps_s_axis_tlast,
    input  wire logic [0:0]          ps_s_axis_tuser,
    output logic      [PS_W-1:0]     ps_m_axis_tdata,
    output logic      [PS_W/8-1:0]   ps_m_axis_tkeep,
    output logic                     ps_m_axis_tvalid,
    input  wire logic                ps_m_axis_tready,
    output logic                     ps_m_axis_tlast,
    output logic      [0:0]          ps_m_axis_tuser
);
  fabnic_axis_adapter #(.S_DATA_W(UP_S_W), .M_DATA_W(UP_M_W)) u_up (
      .clk, .rst,
      .s_axis_tdata(up_s_axis_tdata), .s_axis_tkeep(up_s_axis_tkeep),
      .s_axis_tvalid(up_s_axis_tvalid), .s_axis_tready(up_s_axis_tready),
      .s_axis_tlast(up_s_axis_tlast), .s_axis_tuser(up_s_axis_tuser),
      .m_axis_tdata(up_m_axis_tdata), .m_axis_tkeep(up_m_axis_tkeep),
      .m_axis_tvalid(up_m_axis_tvalid), .m_axis_tready(up_m_axis_tready),
      .m_axis_tlast(up_m_axis_tlast), .m_axis_tuser(up_m_axis_tuser));
  fabnic_axis_adapter #(.S_DATA_W(DN_S_W), .M_DATA_W(DN_M_W)) u_dn (
      .clk, .rst,
      .s_axis_tdata(dn_s_axis_tdata), .s_axis_tkeep(dn_s_axis_tkeep),
      .s_axis_tvalid(dn_s_axis_tvalid), .s_axis_tready(dn_s_axis_tready),
      .s_axis_tlast(dn_s_axis_tlast), .s_axis_tuser(dn_s_axis_tuser),
      .m_axis_tdata(dn_m_axis_tdata), .m_axis_tkeep(dn_m_axis_tkeep),
      .m_axis_tvalid(dn_m_axis_tvalid), .m_axis_tready(dn_m_axis_tready),
      .m_axis_tlast(dn_m_axis_tlast), .m_axis_tuser(dn_m_axis_tuser));
  fabnic_axis_adapter #(.S_DATA_W(PS_W), .M_DATA_W(PS_W)) u_ps (
      .clk, .rst,
      .s_axis_tdata(ps_s_axis_tdata), .s_axis_tkeep(ps_s_axis_tkeep),
      .s_axis_tvalid(ps_s_axis_tvalid), .s_axis_tready(ps_s_axis_tready),
      .s_axis_tlast(ps_s_axis_tlast), .s_axis_tuser(ps_s_axis_tuser),
      .m_axis_tdata(ps_m_axis_tdata), .m_axis_tkeep(ps_m_axis_tkeep),
      .m_axis_tvalid(ps_m_axis_tvalid), .m_axis_tready(ps_m_axis_tready),
      .m_axis_tlast(ps_m_axis_tlast), .m_axis_tuser(ps_m_axis_tuser));
endmodule
`resetall
