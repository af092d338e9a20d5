// SPDX-License-Identifier: Apache-2.0
//
// Testbench wrapper: fabnic_dma_rd and fabnic_dma_wr sharing one AXI4 master
// port (read channels from the read engine, write channels from the write
// engine), so one cocotbext-axi AxiRam serves both.
`default_nettype none

module tb_host_dma #(
    parameter int AXI_DATA_W      = 64,
    parameter int ADDR_W          = 64,
    parameter int ID_W            = 4,
    parameter int LEN_W           = 32,
    parameter int TAG_W           = 8,
    parameter int MAX_BURST_LEN   = 16,
    parameter int MAX_OUTSTANDING = 8,
    parameter int DESC_DEPTH      = 8,
    parameter int STRB_W          = AXI_DATA_W / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [ADDR_W-1:0]     rd_desc_addr,
    input  wire logic [LEN_W-1:0]      rd_desc_len,
    input  wire logic [TAG_W-1:0]      rd_desc_tag,
    input  wire logic                  rd_desc_valid,
    output logic                       rd_desc_ready,
    output logic [TAG_W-1:0]           rd_cpl_tag,
    output logic [1:0]                 rd_cpl_status,
    output logic                       rd_cpl_valid,
    input  wire logic                  rd_cpl_ready,
    output logic [AXI_DATA_W-1:0]      m_axis_rd_tdata,
    output logic [STRB_W-1:0]          m_axis_rd_tkeep,
    output logic                       m_axis_rd_tvalid,
    input  wire logic                  m_axis_rd_tready,
    output logic                       m_axis_rd_tlast,
    output logic [TAG_W-1:0]           m_axis_rd_tid,
    output logic [0:0]                 m_axis_rd_tuser,

    input  wire logic [ADDR_W-1:0]     wr_desc_addr,
    input  wire logic [LEN_W-1:0]      wr_desc_len,
    input  wire logic [TAG_W-1:0]      wr_desc_tag,
    input  wire logic                  wr_desc_valid,
    output logic                       wr_desc_ready,
    output logic [TAG_W-1:0]           wr_cpl_tag,
    output logic [1:0]                 wr_cpl_status,
    output logic                       wr_cpl_valid,
    input  wire logic                  wr_cpl_ready,
    input  wire logic [AXI_DATA_W-1:0] s_axis_wr_tdata,
    input  wire logic [STRB_W-1:0]     s_axis_wr_tkeep,
    input  wire logic                  s_axis_wr_tvalid,
    output logic                       s_axis_wr_tready,
    input  wire logic                  s_axis_wr_tlast,

    output logic [ID_W-1:0]            m_axi_arid,
    output logic [ADDR_W-1:0]          m_axi_araddr,
    output logic [7:0]                 m_axi_arlen,
    output logic [2:0]                 m_axi_arsize,
    output logic [1:0]                 m_axi_arburst,
    output logic                       m_axi_arlock,
    output logic [3:0]                 m_axi_arcache,
    output logic [2:0]                 m_axi_arprot,
    output logic                       m_axi_arvalid,
    input  wire logic                  m_axi_arready,
    input  wire logic [ID_W-1:0]       m_axi_rid,
    input  wire logic [AXI_DATA_W-1:0] m_axi_rdata,
    input  wire logic [1:0]            m_axi_rresp,
    input  wire logic                  m_axi_rlast,
    input  wire logic                  m_axi_rvalid,
    output logic                       m_axi_rready,
    output logic [ID_W-1:0]            m_axi_awid,
    output logic [ADDR_W-1:0]          m_axi_awaddr,
    output logic [7:0]                 m_axi_awlen,
    output logic [2:0]                 m_axi_awsize,
    output logic [1:0]                 m_axi_awburst,
    output logic                       m_axi_awlock,
    output logic [3:0]                 m_axi_awcache,
    output logic [2:0]                 m_axi_awprot,
    output logic                       m_axi_awvalid,
    input  wire logic                  m_axi_awready,
    output logic [AXI_DATA_W-1:0]      m_axi_wdata,
    output logic [STRB_W-1:0]          m_axi_wstrb,
    output logic                       m_axi_wlast,
    output logic                       m_axi_wvalid,
    input  wire logic                  m_axi_wready,
    input  wire logic [ID_W-1:0]       m_axi_bid,
    input  wire logic [1:0]            m_axi_bresp,
    input  wire logic                  m_axi_bvalid,
    output logic                       m_axi_bready,

    output logic [$clog2(MAX_OUTSTANDING+1)-1:0] rd_outstanding,
    output logic [$clog2(MAX_OUTSTANDING+1)-1:0] wr_outstanding,
    output logic                       wr_len_mismatch
);

  fabnic_dma_rd #(
      .AXI_DATA_W(AXI_DATA_W), .ADDR_W(ADDR_W), .ID_W(ID_W), .LEN_W(LEN_W), .TAG_W(TAG_W),
      .MAX_BURST_LEN(MAX_BURST_LEN), .MAX_OUTSTANDING(MAX_OUTSTANDING), .DESC_DEPTH(DESC_DEPTH)
  ) u_rd (
      .clk, .rst,
      .s_desc_addr(rd_desc_addr), .s_desc_len(rd_desc_len), .s_desc_tag(rd_desc_tag),
      .s_desc_valid(rd_desc_valid), .s_desc_ready(rd_desc_ready),
      .m_cpl_tag(rd_cpl_tag), .m_cpl_status(rd_cpl_status), .m_cpl_valid(rd_cpl_valid),
      .m_cpl_ready(rd_cpl_ready),
      .m_axis_tdata(m_axis_rd_tdata), .m_axis_tkeep(m_axis_rd_tkeep),
      .m_axis_tvalid(m_axis_rd_tvalid), .m_axis_tready(m_axis_rd_tready),
      .m_axis_tlast(m_axis_rd_tlast), .m_axis_tid(m_axis_rd_tid), .m_axis_tuser(m_axis_rd_tuser),
      .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst, .m_axi_arlock,
      .m_axi_arcache, .m_axi_arprot, .m_axi_arvalid, .m_axi_arready,
      .m_axi_rid, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast, .m_axi_rvalid, .m_axi_rready,
      .status_outstanding(rd_outstanding));

  fabnic_dma_wr #(
      .AXI_DATA_W(AXI_DATA_W), .ADDR_W(ADDR_W), .ID_W(ID_W), .LEN_W(LEN_W), .TAG_W(TAG_W),
      .MAX_BURST_LEN(MAX_BURST_LEN), .MAX_OUTSTANDING(MAX_OUTSTANDING), .DESC_DEPTH(DESC_DEPTH)
  ) u_wr (
      .clk, .rst,
      .s_desc_addr(wr_desc_addr), .s_desc_len(wr_desc_len), .s_desc_tag(wr_desc_tag),
      .s_desc_valid(wr_desc_valid), .s_desc_ready(wr_desc_ready),
      .m_cpl_tag(wr_cpl_tag), .m_cpl_status(wr_cpl_status), .m_cpl_valid(wr_cpl_valid),
      .m_cpl_ready(wr_cpl_ready),
      .s_axis_tdata(s_axis_wr_tdata), .s_axis_tkeep(s_axis_wr_tkeep),
      .s_axis_tvalid(s_axis_wr_tvalid), .s_axis_tready(s_axis_wr_tready),
      .s_axis_tlast(s_axis_wr_tlast),
      .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst, .m_axi_awlock,
      .m_axi_awcache, .m_axi_awprot, .m_axi_awvalid, .m_axi_awready,
      .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready,
      .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready,
      .status_outstanding(wr_outstanding), .status_len_mismatch(wr_len_mismatch));

endmodule

`resetall
