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

  logic [NUM_VECTORS-1:0] pend_q, eligible, delivered;
  logic [VEC_W-1:0]       rr_q, pick;
  logic                   found, load;

  assign pending  = pend_q;
  // the vector being offered is not eligible again until delivered
  assign eligible = pend_q & ~mask & ~(m_irq_valid ? (NUM_VECTORS'(1) << m_irq_vector) : '0);

  // round robin: first eligible vector at or after rr_q
  always_comb begin
    found = 1'b0;
    pick  = '0;
    for (int i = 0; i < NUM_VECTORS; i++) begin
      logic [VEC_W:0] v;
      v = {1'b0, rr_q} + (VEC_W+1)'(i);
      if (v >= (VEC_W+1)'(NUM_VECTORS)) v = v - (VEC_W+1)'(NUM_VECTORS);
      if (!found && eligible[v[VEC_W-1:0]]) begin
        found = 1'b1;
        pick  = v[VEC_W-1:0];
      end
    end
  end

  assign load      = found && (!m_irq_valid || m_irq_ready);
  assign delivered = (m_irq_valid && m_irq_ready) ? (NUM_VECTORS'(1) << m_irq_vector) : '0;

  always_ff @(posedge clk) begin
    pend_q           <= (pend_q & ~delivered) | irq_req;
    status_coalesced <= |(irq_req & pend_q & ~delivered);
    if (m_irq_ready) m_irq_valid <= 1'b0;
    if (load) begin
      m_irq_valid  <= 1'b1;
      m_irq_vector <= pick;
      rr_q         <= (int'(pick) == NUM_VECTORS - 1) ? '0 : pick + 1'b1;
    end
    if (rst) begin
      pend_q           <= '0;
      m_irq_valid      <= 1'b0;
      m_irq_vector     <= '0;
      rr_q             <= '0;
      status_coalesced <= 1'b0;
    end
  end

endmodule

`resetall
