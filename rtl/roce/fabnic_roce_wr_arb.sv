// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_wr_arb: N clients share one DMA write engine. A client presents a
// descriptor (address, length) and then exactly that transfer's data frame; the
// arbiter grants one client round-robin, forwards its descriptor, then its frame up
// to tlast, then releases. A client's writes therefore reach the engine (and the AXI
// bus, in order on one ID) in the order it issued them, and a client that streams its
// data before raising its next request (the responder, before a CQE) is ordered
// before that later request.
`default_nettype none

module fabnic_roce_wr_arb #(
    parameter int N      = 3,
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    input  wire logic [63:0]              s_addr [N],
    input  wire logic [31:0]              s_len  [N],
    input  wire logic [N-1:0]             s_valid,
    output logic      [N-1:0]             s_ready,
    input  wire logic [DATA_W-1:0]        s_tdata [N],
    input  wire logic [KEEP_W-1:0]        s_tkeep [N],
    input  wire logic [N-1:0]             s_tvalid,
    output logic      [N-1:0]             s_tready,
    input  wire logic [N-1:0]             s_tlast,

    output logic      [63:0]              m_addr,
    output logic      [31:0]              m_len,
    output logic                          m_valid,
    input  wire logic                     m_ready,
    output logic      [DATA_W-1:0]        m_tdata,
    output logic      [KEEP_W-1:0]        m_tkeep,
    output logic                          m_tvalid,
    input  wire logic                     m_tready,
    output logic                          m_tlast
);
  localparam int IW = (N > 1) ? $clog2(N) : 1;

  logic [N-1:0]  gnt;
  logic          gnt_valid, desc_fire, data_q;
  logic [IW-1:0] gnt_idx, cur_q;
  fabnic_rr_arbiter #(.N(N), .HOLD(1'b0)) u_arb (
      .clk, .rst, .req(data_q ? '0 : s_valid), .accept(desc_fire), .hold(1'b0),
      .gnt, .gnt_valid, .gnt_idx
  );

  assign m_valid   = !data_q && gnt_valid;
  assign m_addr    = s_addr[gnt_idx];
  assign m_len     = s_len[gnt_idx];
  assign desc_fire = m_valid && m_ready;
  assign s_ready   = desc_fire ? gnt : '0;

  assign m_tvalid = data_q && s_tvalid[cur_q];
  assign m_tdata  = s_tdata[cur_q];
  assign m_tkeep  = s_tkeep[cur_q];
  assign m_tlast  = s_tlast[cur_q];
  always_comb begin
    s_tready = '0;
    s_tready[cur_q] = data_q && m_tready;
  end

  always_ff @(posedge clk) begin
    if (desc_fire) begin
      data_q <= 1'b1;
      cur_q  <= gnt_idx;
    end
    if (m_tvalid && m_tready && m_tlast) data_q <= 1'b0;
    if (rst) begin
      data_q <= 1'b0;
      cur_q  <= '0;
    end
  end

endmodule

`resetall
