// SPDX-License-Identifier: Apache-2.0
//
// fabnic_reset_sync: reset synchronizer (CDC primitive). Turns a reset from anywhere
// (a board pin, a PLL lock, a hard IP's reset output, the reset of another clock
// domain) into the synchronous active-high `rst` that the fabnic blocks of one clock
// domain use.
//
//   arst (async, active high) --+--> [sync_q[0]] -> [sync_q[1]] -> ... -> [sync_q[STAGES-1]] -> rst
//                               +---- async preset of every stage
//
// Assertion is asynchronous: `rst` rises as soon as `arst` does, even with `clk`
// stopped. Release is synchronous: `rst` falls on the STAGES-th rising edge of `clk`
// after `arst` fell, so every flop of the domain leaves reset in the same cycle and
// the release cannot be metastable at the consumers (the first stages absorb it).
//
// Parameters:
//   STAGES  flops in the chain, >= 2 (2 is the usual choice; 3 for a very fast `clk`
//           or a part whose MTBF figure asks for it). `rst` stays high for at least
//           STAGES cycles after `arst` falls.
//
// Requirements on the user:
//   - `arst` must be glitch-free: a flop output or a board pin, never a combination of
//     signals from different domains (a glitch is a reset).
//   - Active-low sources are inverted at the instance (`.arst(!perst_n)`).
//   - Timing: the path into the preset pins is asynchronous (no setup check needed);
//     the stages carry ASYNC_REG so Vivado keeps them together in one slice and treats
//     them as a synchronizer. fpga/alveo_u250/cdc.tcl puts a false path on `arst`.
//
// This module is the one place in rtl/ where an asynchronous reset is used; every
// consumer of `rst` uses it synchronously.
`default_nettype none

module fabnic_reset_sync #(
    parameter int STAGES = 2
) (
    input  wire logic clk,
    input  wire logic arst,
    output logic      rst
);

  if (STAGES < 2) begin : g_chk
    $error("fabnic_reset_sync: STAGES must be at least 2");
  end

  // (SYNCASYNCNET is waived in rtl/lint_waivers.vlt: a synchronized reset is used
  // synchronously in its own domain and as the `arst` of another domain's synchronizer.)
  (* ASYNC_REG = "TRUE" *) logic [STAGES-1:0] sync_q;

  always_ff @(posedge clk or posedge arst) begin
    if (arst) sync_q <= '1;
    else      sync_q <= {sync_q[STAGES-2:0], 1'b0};
  end

  assign rst = sync_q[STAGES-1];

endmodule

`resetall
