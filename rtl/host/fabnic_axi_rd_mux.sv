// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axi_rd_mux: N AXI4 read masters onto one port. Each master must drive a
// distinct ARID equal to its index (its fabnic_dma_rd instance is built with
// AXI_ID = index); AR requests are arbitrated round-robin, R beats are routed back by
// RID. The slave may interleave or reorder responses of different IDs.
`default_nettype none

module fabnic_axi_rd_mux #(
    parameter int N      = 4,
    parameter int ID_W   = 4,
    parameter int ADDR_W = 64,
    parameter int DATA_W = 512
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [ID_W-1:0]   s_arid    [N],
    input  wire logic [ADDR_W-1:0] s_araddr  [N],
    input  wire logic [7:0]        s_arlen   [N],
    input  wire logic [2:0]        s_arsize  [N],
    input  wire logic [1:0]        s_arburst [N],
    input  wire logic [N-1:0]      s_arvalid,
    output logic      [N-1:0]      s_arready,
    output logic      [DATA_W-1:0] s_rdata,
    output logic      [1:0]        s_rresp,
    output logic                   s_rlast,
    output logic      [N-1:0]      s_rvalid,
    input  wire logic [N-1:0]      s_rready,

    output logic      [ID_W-1:0]   m_axi_arid,
    output logic      [ADDR_W-1:0] m_axi_araddr,
    output logic      [7:0]        m_axi_arlen,
    output logic      [2:0]        m_axi_arsize,
    output logic      [1:0]        m_axi_arburst,
    output logic                   m_axi_arvalid,
    input  wire logic              m_axi_arready,
    input  wire logic [ID_W-1:0]   m_axi_rid,
    input  wire logic [DATA_W-1:0] m_axi_rdata,
    input  wire logic [1:0]        m_axi_rresp,
    input  wire logic              m_axi_rlast,
    input  wire logic              m_axi_rvalid,
    output logic                   m_axi_rready
);
  localparam int IW = (N > 1) ? $clog2(N) : 1;

  logic [N-1:0]  gnt;
  logic          gnt_valid, fire;
  logic [IW-1:0] gnt_idx;
  fabnic_rr_arbiter #(.N(N), .HOLD(1'b0)) u_arb (
      .clk, .rst, .req(s_arvalid), .accept(fire), .hold(1'b0), .gnt, .gnt_valid, .gnt_idx
  );
  assign m_axi_arvalid = gnt_valid;
  assign m_axi_arid    = s_arid[gnt_idx];
  assign m_axi_araddr  = s_araddr[gnt_idx];
  assign m_axi_arlen   = s_arlen[gnt_idx];
  assign m_axi_arsize  = s_arsize[gnt_idx];
  assign m_axi_arburst = s_arburst[gnt_idx];
  assign fire          = m_axi_arvalid && m_axi_arready;
  assign s_arready     = fire ? gnt : '0;

  assign s_rdata = m_axi_rdata;
  assign s_rresp = m_axi_rresp;
  assign s_rlast = m_axi_rlast;
  always_comb begin
    s_rvalid = '0;
    m_axi_rready = 1'b1;   // a response with an ID of no master is consumed
    for (int i = 0; i < N; i++) begin
      if (32'(m_axi_rid) == i) begin
        s_rvalid[i]  = m_axi_rvalid;
        m_axi_rready = s_rready[i];
      end
    end
  end

endmodule

`resetall
