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
//
// Fault credits (no fault is ever lost): a client whose bit is set in CRED_MASK owns
// CRED credits, one per descriptor it may have between issue and the end of its fault
// handling. A credit is taken when the client's descriptor is accepted and given back
// when that descriptor completes without a fault, or, for a fault, when the client's
// fault consumer takes the fault from its queue (s_cred_ret, one pulse per fault). A
// client with no credit left is not granted. So with a fault queue of CRED entries per
// client (the core's), a fault always finds room. Every event is registered before it
// moves the counter (the grant as a one-hot, the clean completion, s_cred_ret), and
// the no-credit flag is registered from the counter's next value: counter -> add ->
// compare -> flop. The flag is still exact: a grant is followed by at least one data
// beat, so two grants are at least two cycles apart and the flag that blocks the next
// one already counts the last (an assertion checks the counter never passes CRED);
// returns count one cycle late, which only holds a credit a cycle longer. With CRED
// at least the engine's descriptors in flight (queued plus outstanding bursts) the
// rule never binds while faults are drained.
`default_nettype none

module fabnic_roce_wr_arb #(
    parameter int N      = 3,
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int META_W = 16,
    parameter int IW     = (N > 1) ? $clog2(N) : 1,
    parameter int TAG_W  = IW + META_W,
    parameter logic [N-1:0] CRED_MASK = '0, // clients under the fault-credit rule
    parameter int CRED   = 64,              // credits per such client, >= 2
    parameter int CW     = $clog2(CRED + 1)
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
    output logic                          m_mis_valid,   // length mismatch only
    input  wire logic [N-1:0]             s_cred_ret     // a client's fault consumed
);
  if (CRED < 2 && CRED_MASK != '0) begin : g_check_cred
    $error("fabnic_roce_wr_arb: CRED >= 2 required when CRED_MASK is set");
  end
  logic [N-1:0]  no_cred_q;
  logic [N-1:0]  gnt;
  logic          gnt_valid, desc_fire, data_q;
  logic [IW-1:0] gnt_idx, cur_q;
  fabnic_rr_arbiter #(.N(N), .HOLD(1'b0)) u_arb (
      .clk, .rst, .req(data_q ? '0 : s_valid & ~no_cred_q), .accept(desc_fire), .hold(1'b0),
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

  // fault credits (header): taken at descriptor accept, returned at a clean completion
  // (registered here, one cycle after it) or when the client consumes its fault
  logic          ok_valid;
  logic [IW-1:0] ok_src;
  logic [N-1:0]  take_q, ret_q;
  always_ff @(posedge clk) begin
    ok_valid <= s_cpl_valid && !s_cpl_status[0];
    ok_src   <= s_cpl_tag[TAG_W-1 -: IW];
    take_q   <= desc_fire ? gnt : '0;
    ret_q    <= s_cred_ret & CRED_MASK;
    if (rst) begin
      ok_valid <= 1'b0;
      take_q   <= '0;
      ret_q    <= '0;
    end
  end
  for (genvar i = 0; i < N; i++) begin : g_cred
    if (CRED_MASK[i]) begin : g_on
      logic [CW-1:0] cred_q, cred_d;
      logic          take, give_ok, nc_q;
      assign no_cred_q[i] = nc_q;
      assign take    = take_q[i];
      assign give_ok = ok_valid && ok_src == IW'(i);
      always_comb begin
        cred_d = cred_q;
        unique case ({take, give_ok, ret_q[i]})
          3'b100:                 cred_d = cred_q + 1'b1;
          3'b010, 3'b001:         cred_d = cred_q - 1'b1;
          3'b011:                 cred_d = cred_q - CW'(2);
          3'b111:                 cred_d = cred_q - 1'b1;
          default:                cred_d = cred_q;      // none, or one in and one out
        endcase
      end
      always_ff @(posedge clk) begin
        cred_q <= cred_d;
        nc_q   <= cred_d >= CW'(CRED);
        if (rst) begin
          cred_q <= '0;
          nc_q   <= 1'b0;
        end
      end
`ifndef SYNTHESIS
      // credits never go below zero or above CRED
      always_ff @(posedge clk) begin
        if (!rst) begin
          assert (cred_d <= CW'(CRED)) else $error("wr_arb: client %0d credit overflow", i);
          assert (!(cred_q == '0 && (give_ok || ret_q[i]) && !take))
            else $error("wr_arb: client %0d credit underflow", i);
        end
      end
`endif
    end else begin : g_off
      assign no_cred_q[i] = 1'b0;
      logic unused_ret;
      assign unused_ret = ^{s_cred_ret[i], take_q[i], ret_q[i]};
      if (i == 0 && CRED_MASK == '0) begin : g_unused_ok
        logic unused_ok;
        assign unused_ok = ^{ok_valid, ok_src};
      end
    end
  end

endmodule

`resetall
