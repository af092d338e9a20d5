// SPDX-License-Identifier: Apache-2.0
//
// fabnic_rr_arbiter: N-way round-robin arbiter, one-hot grant.
//
// The grant is combinational from req (and the registered state), so a
// requester can be granted in the cycle it first asks. A registered priority
// pointer names the requester with the highest priority; it moves to the one
// after the granted requester whenever a grant is accepted (gnt_valid &&
// accept), so every requester that keeps asking is served within N accepted
// grants (fair round robin).
//
// Grant hold (HOLD=1): at a clock edge where gnt_valid && hold, the arbiter
// locks onto the current grant; while locked it grants only that requester
// (gnt is zero if it drops req) and ignores the others. The lock is released
// at the first clock edge where hold is low. A packet mux drives
// hold = !tlast of the granted stream and accept = beat transfer, so a frame
// is never interleaved with another. With HOLD=0 the hold input is ignored.
`default_nettype none

module fabnic_rr_arbiter #(
    parameter int N    = 4,
    parameter bit HOLD = 1'b1,
    parameter int IDX_W = (N > 1) ? $clog2(N) : 1
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic [N-1:0]     req,
    input  wire logic             accept,    // the current grant is used this cycle
    input  wire logic             hold,      // keep the current grant (HOLD=1 only)

    output logic      [N-1:0]     gnt,       // one-hot or zero
    output logic                  gnt_valid, // |gnt
    output logic      [IDX_W-1:0] gnt_idx    // index of the granted requester
);

  if (N < 1) begin : g_check_n
    $error("fabnic_rr_arbiter: N must be at least 1");
  end

  logic [N-1:0]     ptr_mask_q;  // ones at and above the highest-priority position
  logic             locked_q;
  logic [N-1:0]     locked_gnt_q;

  // round robin: lowest set bit of the requests at/after the pointer, else lowest overall
  logic [N-1:0] req_masked, pick_masked, pick_all, rr_gnt;
  always_comb begin
    req_masked  = req & ptr_mask_q;
    pick_masked = req_masked & (~req_masked + 1'b1);
    pick_all    = req & (~req + 1'b1);
    rr_gnt      = (|req_masked) ? pick_masked : pick_all;
    gnt         = (HOLD && locked_q) ? (locked_gnt_q & req) : rr_gnt;
    gnt_valid   = |gnt;
  end

  always_comb begin
    gnt_idx = '0;
    for (int i = 0; i < N; i++) begin
      if (gnt[i]) gnt_idx = IDX_W'(i);
    end
  end

  // mask for the next pointer: positions strictly above the granted one
  logic [N-1:0] next_mask;
  always_comb begin
    next_mask = '0;
    for (int i = 0; i < N; i++) begin
      for (int j = 0; j < i; j++) begin
        if (gnt[j]) next_mask[i] = 1'b1;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (gnt_valid && accept) begin
      // wrap: after the last requester the mask is empty and the plain pick is used
      ptr_mask_q <= next_mask;
    end
    if (HOLD) begin
      if (!hold) begin
        locked_q <= 1'b0;
      end else if (!locked_q && gnt_valid) begin
        locked_q     <= 1'b1;
        locked_gnt_q <= gnt;
      end
    end
    if (rst) begin
      ptr_mask_q   <= '1;
      locked_q     <= 1'b0;
      locked_gnt_q <= '0;
    end
  end

endmodule

`resetall
