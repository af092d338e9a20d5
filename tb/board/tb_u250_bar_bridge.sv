// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_u250_bar_bridge with AXI4 burst-type inputs (unused by the
// bridge; cocotbext-axi's AXI4 channel models need them) and the board registers as one
// packed vector (brd_flat[32*i +: 32] = register i).
`default_nettype none

module tb_u250_bar_bridge #(
    parameter int DATA_W     = 512,
    parameter int ID_W       = 4,
    parameter int ADDR_W     = 64,
    parameter int NIC_ADDR_W = 25,
    parameter int BRD_REGS   = 16,
    parameter int STRB_W     = DATA_W / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,
    input  wire logic [ID_W-1:0]       s_axi_awid,
    input  wire logic [ADDR_W-1:0]     s_axi_awaddr,
    input  wire logic [7:0]            s_axi_awlen,
    input  wire logic [2:0]            s_axi_awsize,
    input  wire logic [1:0]            s_axi_awburst,
    input  wire logic                  s_axi_awvalid,
    output logic                       s_axi_awready,
    input  wire logic [DATA_W-1:0]     s_axi_wdata,
    input  wire logic [STRB_W-1:0]     s_axi_wstrb,
    input  wire logic                  s_axi_wlast,
    input  wire logic                  s_axi_wvalid,
    output logic                       s_axi_wready,
    output logic      [ID_W-1:0]       s_axi_bid,
    output logic      [1:0]            s_axi_bresp,
    output logic                       s_axi_bvalid,
    input  wire logic                  s_axi_bready,
    input  wire logic [ID_W-1:0]       s_axi_arid,
    input  wire logic [ADDR_W-1:0]     s_axi_araddr,
    input  wire logic [7:0]            s_axi_arlen,
    input  wire logic [2:0]            s_axi_arsize,
    input  wire logic [1:0]            s_axi_arburst,
    input  wire logic                  s_axi_arvalid,
    output logic                       s_axi_arready,
    output logic      [ID_W-1:0]       s_axi_rid,
    output logic      [DATA_W-1:0]     s_axi_rdata,
    output logic      [1:0]            s_axi_rresp,
    output logic                       s_axi_rlast,
    output logic                       s_axi_rvalid,
    input  wire logic                  s_axi_rready,
    output logic      [NIC_ADDR_W-1:0] m_axil_awaddr,
    output logic      [2:0]            m_axil_awprot,
    output logic                       m_axil_awvalid,
    input  wire logic                  m_axil_awready,
    output logic      [31:0]           m_axil_wdata,
    output logic      [3:0]            m_axil_wstrb,
    output logic                       m_axil_wvalid,
    input  wire logic                  m_axil_wready,
    input  wire logic [1:0]            m_axil_bresp,
    input  wire logic                  m_axil_bvalid,
    output logic                       m_axil_bready,
    output logic      [NIC_ADDR_W-1:0] m_axil_araddr,
    output logic      [2:0]            m_axil_arprot,
    output logic                       m_axil_arvalid,
    input  wire logic                  m_axil_arready,
    input  wire logic [31:0]           m_axil_rdata,
    input  wire logic [1:0]            m_axil_rresp,
    input  wire logic                  m_axil_rvalid,
    output logic                       m_axil_rready,
    input  wire logic [32*BRD_REGS-1:0] brd_flat
);
  logic [31:0] brd [BRD_REGS];
  for (genvar i = 0; i < BRD_REGS; i++) begin : g_brd
    assign brd[i] = brd_flat[32*i +: 32];
  end

  logic unused_burst;
  assign unused_burst = ^{s_axi_awburst, s_axi_arburst};

  fabnic_u250_bar_bridge #(.DATA_W(DATA_W), .ID_W(ID_W), .ADDR_W(ADDR_W),
                           .NIC_ADDR_W(NIC_ADDR_W), .BRD_REGS(BRD_REGS)) u_dut (
      .clk, .rst,
      .s_axi_awid, .s_axi_awaddr, .s_axi_awlen, .s_axi_awsize, .s_axi_awvalid, .s_axi_awready,
      .s_axi_wdata, .s_axi_wstrb, .s_axi_wlast, .s_axi_wvalid, .s_axi_wready,
      .s_axi_bid, .s_axi_bresp, .s_axi_bvalid, .s_axi_bready,
      .s_axi_arid, .s_axi_araddr, .s_axi_arlen, .s_axi_arsize, .s_axi_arvalid, .s_axi_arready,
      .s_axi_rid, .s_axi_rdata, .s_axi_rresp, .s_axi_rlast, .s_axi_rvalid, .s_axi_rready,
      .m_axil_awaddr, .m_axil_awprot, .m_axil_awvalid, .m_axil_awready,
      .m_axil_wdata, .m_axil_wstrb, .m_axil_wvalid, .m_axil_wready,
      .m_axil_bresp, .m_axil_bvalid, .m_axil_bready,
      .m_axil_araddr, .m_axil_arprot, .m_axil_arvalid, .m_axil_arready,
      .m_axil_rdata, .m_axil_rresp, .m_axil_rvalid, .m_axil_rready,
      .brd_regs(brd));
endmodule

`resetall
