// SPDX-License-Identifier: Apache-2.0
//
// fabnic_irq: interrupt request generator.
//
// irq_req[v] (one cycle per event, any number of vectors per cycle) sets
// pending[v]. A request for a vector that is already pending is coalesced
// into it (status_coalesced pulses once per such cycle). Pending vectors
// that are not masked (mask[v] = 0) are offered on m_irq_vector/m_irq_valid,
// chosen round robin; valid stays high and the vector stable until
// m_irq_ready, and the handshake clears pending[v]. A request for v in the
// same cycle as v's handshake leaves v pending (a new event after delivery).
// A vector masked while pending stays pending and is offered once unmasked;
// masking does not withdraw a vector already being offered.
//
// Two stages, decide then act:
//   pick   a one-entry candidate register (one-hot cand_q) is refilled with
//          the first eligible vector (pending, unmasked, neither offered nor
//          the current candidate) at or after the round-robin pointer; the
//          pointer (a thermometer mask of the vectors after the pick) moves
//          with every pick. The search is one carry chain per half of the
//          doubled request vector (x & -x isolates the first one, x ^ -x marks
//          the vectors after it).
//   offer  the candidate is loaded into m_irq_vector/m_irq_valid when the
//          output is free, if it is still unmasked in that cycle (mask is
//          checked again there); a candidate masked meanwhile is dropped and
//          the pick stage refills.
// The candidate is never the offered vector and, once picked, stays pending
// until it is offered and delivered. Latency: a request at cycle t is offered
// (m_irq_valid) at t+3 when the output is free (pending at t+1, picked at t+2,
// offered at t+3). Throughput: one offer per cycle while vectors are pending
// and m_irq_ready is high. No combinational path from m_irq_ready to
// m_irq_valid.
`default_nettype none

module fabnic_irq #(
    parameter int NUM_VECTORS = 32,
    parameter int VEC_W       = (NUM_VECTORS > 1) ? $clog2(NUM_VECTORS) : 1
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [NUM_VECTORS-1:0] irq_req,
    input  wire logic [NUM_VECTORS-1:0] mask,

    output logic      [VEC_W-1:0]       m_irq_vector,
    output logic                        m_irq_valid,
    input  wire logic                   m_irq_ready,

    output logic      [NUM_VECTORS-1:0] pending,
    output logic                        status_coalesced
);

  localparam int N = NUM_VECTORS;

  if (N < 1 || VEC_W < 1 || (N > 1 && (1 << VEC_W) < N)) begin : g_check
    $error("fabnic_irq: NUM_VECTORS must be >= 1 and VEC_W wide enough to index it");
  end

  logic [N-1:0] pend_q;     // pending bits
  logic [N-1:0] offer_q;    // one-hot of the offered vector, 0 when m_irq_valid is low
  logic [N-1:0] cand_q;     // one-hot candidate, 0 when there is none
  logic [N-1:0] after_q;    // round-robin pointer: vectors after the last pick

  assign pending = pend_q;

  // ---------------------------------------------------------------- offer stage
  logic         out_free, cand_ok, load, deliver;
  logic [N-1:0] delivered;

  assign out_free  = !m_irq_valid || m_irq_ready;
  assign cand_ok   = (cand_q & ~mask) != '0;     // a candidate, still unmasked
  assign load      = cand_ok && out_free;
  assign deliver   = m_irq_valid && m_irq_ready;
  assign delivered = deliver ? offer_q : '0;

  function automatic logic [VEC_W-1:0] encode(input logic [N-1:0] oh);
    encode = '0;
    for (int i = 0; i < N; i++) if (oh[i]) encode = encode | VEC_W'(i);
  endfunction

  // ---------------------------------------------------------------- pick stage
  // refill the candidate register when it is empty, taken, or masked
  logic         refill, any_hi, any_all;
  logic [N-1:0] elig, elig_hi, neg_hi, neg_all, pick, pick_after;

  assign refill  = !cand_ok || out_free;
  assign elig    = pend_q & ~mask & ~offer_q & ~cand_q;
  assign elig_hi = elig & after_q;
  assign neg_hi  = -elig_hi;
  assign neg_all = -elig;
  assign any_hi  = elig_hi != '0;
  assign any_all = elig != '0;
  // first eligible vector at or after the pointer, else the first one overall
  assign pick       = any_hi ? (elig_hi & neg_hi) : (elig & neg_all);
  assign pick_after = any_hi ? (elig_hi ^ neg_hi) : (elig ^ neg_all);

  always_ff @(posedge clk) begin
    pend_q           <= (pend_q & ~delivered) | irq_req;
    status_coalesced <= |(irq_req & pend_q & ~delivered);
    if (m_irq_ready) begin
      m_irq_valid <= 1'b0;
      offer_q     <= '0;
    end
    if (load) begin
      m_irq_valid  <= 1'b1;
      m_irq_vector <= encode(cand_q);
      offer_q      <= cand_q;
    end
    if (refill) begin
      cand_q <= pick;
      if (any_all) after_q <= pick_after;
    end
    if (rst) begin
      pend_q           <= '0;
      offer_q          <= '0;
      cand_q           <= '0;
      after_q          <= '0;
      m_irq_valid      <= 1'b0;
      m_irq_vector     <= '0;
      status_coalesced <= 1'b0;
    end
  end

endmodule

`resetall
