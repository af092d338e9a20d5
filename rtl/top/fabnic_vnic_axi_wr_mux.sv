// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vnic_axi_wr_mux: N AXI4 write masters onto one port (the write twin of
// fabnic_axi_rd_mux). Each master must drive a distinct AWID equal to its index (its
// fabnic_dma_wr is built with AXI_ID = index). AW requests are arbitrated round robin;
// the index of every accepted AW goes into an order FIFO (ORDER_DEPTH entries) and the
// W channel is connected to the master at the FIFO head until its WLAST, so W bursts
// follow AW order as AXI requires (a master never sends W before its AW handshake:
// fabnic_dma_wr guarantees it). When the FIFO is full, AW waits (back-pressure). B
// responses are routed back by BID; a BID of no master is consumed.
`default_nettype none

module fabnic_vnic_axi_wr_mux #(
    parameter int N           = 2,
    parameter int ID_W        = 4,
    parameter int ADDR_W      = 64,
    parameter int DATA_W      = 512,
    parameter int ORDER_DEPTH = 8,
    parameter int STRB_W      = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [ID_W-1:0]   s_awid    [N],
    input  wire logic [ADDR_W-1:0] s_awaddr  [N],
    input  wire logic [7:0]        s_awlen   [N],
    input  wire logic [2:0]        s_awsize  [N],
    input  wire logic [1:0]        s_awburst [N],
    input  wire logic [N-1:0]      s_awvalid,
    output logic      [N-1:0]      s_awready,
    input  wire logic [DATA_W-1:0] s_wdata   [N],
    input  wire logic [STRB_W-1:0] s_wstrb   [N],
    input  wire logic [N-1:0]      s_wlast,
    input  wire logic [N-1:0]      s_wvalid,
    output logic      [N-1:0]      s_wready,
    output logic      [1:0]        s_bresp,
    output logic      [N-1:0]      s_bvalid,
    input  wire logic [N-1:0]      s_bready,

    output logic      [ID_W-1:0]   m_axi_awid,
    output logic      [ADDR_W-1:0] m_axi_awaddr,
    output logic      [7:0]        m_axi_awlen,
    output logic      [2:0]        m_axi_awsize,
    output logic      [1:0]        m_axi_awburst,
    output logic                   m_axi_awvalid,
    input  wire logic              m_axi_awready,
    output logic      [DATA_W-1:0] m_axi_wdata,
    output logic      [STRB_W-1:0] m_axi_wstrb,
    output logic                   m_axi_wlast,
    output logic                   m_axi_wvalid,
    input  wire logic              m_axi_wready,
    input  wire logic [ID_W-1:0]   m_axi_bid,
    input  wire logic [1:0]        m_axi_bresp,
    input  wire logic              m_axi_bvalid,
    output logic                   m_axi_bready
);
  localparam int IW = (N > 1) ? $clog2(N) : 1;

  if (N < 1 || N > (1 << ID_W) || ORDER_DEPTH < 2 || (ORDER_DEPTH & (ORDER_DEPTH - 1)) != 0)
  begin : g_chk
    $error("fabnic_vnic_axi_wr_mux: 1 <= N <= 2^ID_W, ORDER_DEPTH a power of two >= 2");
  end

  // ---------------- AW: round robin, index into the order FIFO
  logic [N-1:0]  gnt;
  logic          gnt_valid, aw_fire, ord_in_ready;
  logic [IW-1:0] gnt_idx;

  fabnic_rr_arbiter #(.N(N), .HOLD(1'b0)) u_arb (
      .clk, .rst, .req(ord_in_ready ? s_awvalid : '0), .accept(aw_fire), .hold(1'b0),
      .gnt, .gnt_valid, .gnt_idx
  );
  assign m_axi_awvalid = gnt_valid;
  assign m_axi_awid    = s_awid[gnt_idx];
  assign m_axi_awaddr  = s_awaddr[gnt_idx];
  assign m_axi_awlen   = s_awlen[gnt_idx];
  assign m_axi_awsize  = s_awsize[gnt_idx];
  assign m_axi_awburst = s_awburst[gnt_idx];
  assign aw_fire       = m_axi_awvalid && m_axi_awready;
  assign s_awready     = aw_fire ? gnt : '0;

  // ---------------- W: the master at the head of the order FIFO, until WLAST
  logic          ord_valid, w_fire;
  logic [IW-1:0] ord_idx;
  logic [$clog2(ORDER_DEPTH):0] unused_cnt;

  fabnic_fifo #(.WIDTH(IW), .DEPTH(ORDER_DEPTH)) u_order (
      .clk, .rst,
      .in_valid(aw_fire), .in_ready(ord_in_ready), .in_data(gnt_idx),
      .out_valid(ord_valid), .out_ready(w_fire && m_axi_wlast), .out_data(ord_idx),
      .status_count(unused_cnt)
  );

  assign m_axi_wdata  = s_wdata[ord_idx];
  assign m_axi_wstrb  = s_wstrb[ord_idx];
  assign m_axi_wlast  = s_wlast[ord_idx];
  assign m_axi_wvalid = ord_valid && s_wvalid[ord_idx];
  assign w_fire       = m_axi_wvalid && m_axi_wready;
  always_comb begin
    s_wready = '0;
    s_wready[ord_idx] = ord_valid && m_axi_wready;
  end

  // ---------------- B: by ID
  assign s_bresp = m_axi_bresp;
  always_comb begin
    s_bvalid = '0;
    m_axi_bready = 1'b1;   // a response with an ID of no master is consumed
    for (int i = 0; i < N; i++) begin
      if (32'(m_axi_bid) == i) begin
        s_bvalid[i]  = m_axi_bvalid;
        m_axi_bready = s_bready[i];
      end
    end
  end

  logic unused_bits;
  assign unused_bits = ^unused_cnt;

endmodule

`resetall
