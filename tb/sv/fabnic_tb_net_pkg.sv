// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_net_pkg (testbench only): stateless random numbers for the network
// models. rnd(seed, n, k) is the SplitMix64 output for stream position
// 8*n + k + 1, so draw k of frame n never depends on what happened to other
// frames and a Python model reproduces every decision exactly
// (tb/net/net_models.py: rnd()).
`default_nettype none

package fabnic_tb_net_pkg;

  localparam logic [63:0] GAMMA = 64'h9E37_79B9_7F4A_7C15;

  function automatic logic [63:0] mix64(input logic [63:0] x);
    logic [63:0] z;
    z = x;
    z = (z ^ (z >> 30)) * 64'hBF58_476D_1CE4_E5B9;
    z = (z ^ (z >> 27)) * 64'h94D0_49BB_1331_11EB;
    return z ^ (z >> 31);
  endfunction

  // 64-bit draw number k (0..7) of event n
  function automatic logic [63:0] rnd(input logic [63:0] seed, input logic [31:0] n,
                                      input logic [2:0] k);
    return mix64(seed + GAMMA * ({29'd0, n, k} + 64'd1));
  endfunction

  // upper 32 bits of a draw, compared against probability thresholds p * 2^32
  function automatic logic [31:0] rnd32(input logic [63:0] seed, input logic [31:0] n,
                                        input logic [2:0] k);
    return 32'(rnd(seed, n, k) >> 32);
  endfunction

endpackage

`resetall
