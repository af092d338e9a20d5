// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_ram_sdp without (s0_*) and with (s1_*) output register,
// and fabnic_ram_tdp (both ports on clk), all with byte enables.
`default_nettype none

module tb_ram #(
    parameter int DATA_W = 32,
    parameter int DEPTH  = 64,
    parameter int BYTE_W = 8,
    parameter int AW     = $clog2(DEPTH),
    parameter int BE_W   = DATA_W / BYTE_W
) (
    input  wire logic clk,

    input  wire logic              s0_wr_en, s1_wr_en,
    input  wire logic [BE_W-1:0]   s0_wr_be, s1_wr_be,
    input  wire logic [AW-1:0]     s0_wr_addr, s1_wr_addr,
    input  wire logic [DATA_W-1:0] s0_wr_data, s1_wr_data,
    input  wire logic              s0_rd_en, s1_rd_en, s1_rd_regce,
    input  wire logic [AW-1:0]     s0_rd_addr, s1_rd_addr,
    output logic      [DATA_W-1:0] s0_rd_data, s1_rd_data,

    input  wire logic              a_en, b_en, a_regce, b_regce,
    input  wire logic [BE_W-1:0]   a_we, b_we,
    input  wire logic [AW-1:0]     a_addr, b_addr,
    input  wire logic [DATA_W-1:0] a_wdata, b_wdata,
    output logic      [DATA_W-1:0] a_rdata, b_rdata
);
  fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(DEPTH), .BYTE_W(BYTE_W), .OUT_REG(1'b0)) u_s0 (
      .clk, .wr_en(s0_wr_en), .wr_be(s0_wr_be), .wr_addr(s0_wr_addr), .wr_data(s0_wr_data),
      .rd_en(s0_rd_en), .rd_regce(1'b0), .rd_addr(s0_rd_addr), .rd_data(s0_rd_data));
  fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(DEPTH), .BYTE_W(BYTE_W), .OUT_REG(1'b1)) u_s1 (
      .clk, .wr_en(s1_wr_en), .wr_be(s1_wr_be), .wr_addr(s1_wr_addr), .wr_data(s1_wr_data),
      .rd_en(s1_rd_en), .rd_regce(s1_rd_regce), .rd_addr(s1_rd_addr), .rd_data(s1_rd_data));
  fabnic_ram_tdp #(.DATA_W(DATA_W), .DEPTH(DEPTH), .BYTE_W(BYTE_W), .OUT_REG(1'b1)) u_t (
      .a_clk(clk), .a_en, .a_we, .a_addr, .a_wdata, .a_regce, .a_rdata,
      .b_clk(clk), .b_en, .b_we, .b_addr, .b_wdata, .b_regce, .b_rdata);
endmodule
`resetall
