// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_wr_arb: N clients share one DMA write engine (fabnic_dma_wr). A client
// presents a descriptor (address, length, META_W bits of meta: its QP, CQ, PSN, ...)
// and then exactly that transfer's data frame; the arbiter grants one client
// round-robin, forwards its descriptor, then its frame up to tlast, then releases. A
// client's writes therefore reach the engine (and the AXI bus, in order on one ID) in
// the order it issued them, and a client that streams its data before raising its next
// request (the responder, before a CQE) is ordered before that later request.
//
// Write-fault attribution: every descriptor leaves with the tag {client, meta}
// (m_tag). The engine keeps its descriptors' tags in issue order and completes each
// one, with the OR of its bursts' B responses, after its last B (fabnic_dma_wr), so
// its completion stream (s_cpl_*) is the in-order record of outstanding bursts,
// matched to their B responses. A completion with status[0] (some BRESP was SLVERR or
// DECERR) is registered and leaves the next cycle as one fault (m_err_valid, with the
// client index and the meta); a completion with only status[1] (the client's frame
// did not match its length: a client bug, not a host fault) leaves as m_mis_valid.
// Both are single-cycle pulses, one per descriptor; the completion stream is always
// accepted (s_cpl_ready is not a port: the engine's m_cpl_ready is tied high).
`default_nettype none

module fabnic_roce_wr_arb #(
    parameter int N      = 3,
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int META_W = 16,
    parameter int IW     = (N > 1) ? $clog2(N) : 1,
    parameter int TAG_W  = IW + META_W
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    input  wire logic [63:0]              s_addr [N],
    input  wire logic [31:0]              s_len  [N],
    input  wire logic [META_W-1:0]        s_meta [N],
    input  wire logic [N-1:0]             s_valid,
    output logic      [N-1:0]             s_ready,
    input  wire logic [DATA_W-1:0]        s_tdata [N],
    input  wire logic [KEEP_W-1:0]        s_tkeep [N],
    input  wire logic [N-1:0]             s_tvalid,
    output logic      [N-1:0]             s_tready,
    input  wire logic [N-1:0]             s_tlast,

    output logic      [63:0]              m_addr,
    output logic      [31:0]              m_len,
    output logic      [TAG_W-1:0]         m_tag,
    output logic                          m_valid,
    input  wire logic                     m_ready,
    output logic      [DATA_W-1:0]        m_tdata,
    output logic      [KEEP_W-1:0]        m_tkeep,
    output logic                          m_tvalid,
    input  wire logic                     m_tready,
    output logic                          m_tlast,

    // the engine's completions (descriptor order)
    input  wire logic [TAG_W-1:0]         s_cpl_tag,
    input  wire logic [1:0]               s_cpl_status,
    input  wire logic                     s_cpl_valid,

    // faults, registered: one pulse per descriptor with a BRESP error
    output logic                          m_err_valid,
    output logic      [IW-1:0]            m_err_src,
    output logic      [META_W-1:0]        m_err_meta,
    output logic                          m_mis_valid    // length mismatch only
);
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
  assign m_tag     = {gnt_idx, s_meta[gnt_idx]};
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

  // fault attribution: decide (completion status) in this stage, act in the client
  always_ff @(posedge clk) begin
    m_err_valid <= s_cpl_valid && s_cpl_status[0];
    m_mis_valid <= s_cpl_valid && s_cpl_status == 2'b10;
    {m_err_src, m_err_meta} <= s_cpl_tag;
    if (rst) begin
      m_err_valid <= 1'b0;
      m_mis_valid <= 1'b0;
    end
  end

endmodule

`resetall
