// SPDX-License-Identifier: Apache-2.0
//
// fabnic_cc_match: compare one key (a QPN) with N valid entries (the QPNs in the
// stages of a pipeline), for the hazard checks of the congestion-control engines.
//
// Purely combinational. hit[i] = valid[i] && entries[i] == key; any = |hit.
// The logic is built as explicit balanced trees with kept intermediate nets, so that
// synthesis cannot chain the compares: key chunks of 3 bits (one LUT each), then one
// LUT per entry (the chunk results and valid; W <= 15), then the OR of the entries
// (one LUT up to 6 entries, one more level up to 36). Depth: 3 logic levels for
// N <= 6, 4 for N <= 36.
//
// Parameters
//   W  key width, 1..15 ($error otherwise)
//   N  entries, 1..36
`default_nettype none

module fabnic_cc_match #(
    parameter int W = 10,
    parameter int N = 4
) (
    input  wire logic [W-1:0]   key,
    input  wire logic [N-1:0]   valid,
    input  wire logic [N*W-1:0] entries,   // entry i in bits [i*W +: W]
    output logic      [N-1:0]   hit,
    output logic                any
);

  localparam int NCH = (W + 2) / 3;        // 3-bit chunks per key
  localparam int NG  = (N + 5) / 6;        // groups of 6 entries

  if (W < 1 || W > 15 || N < 1 || N > 36) begin : g_check
    $error("fabnic_cc_match: W must be 1..15 and N 1..36");
  end

  logic [NCH*3-1:0] key_p;
  assign key_p = (NCH*3)'(key);

  (* keep *) logic [N*NCH-1:0] ch;         // chunk j of entry i equal
  (* keep *) logic [N-1:0]     hit_k;

  always_comb begin
    for (int i = 0; i < N; i++) begin
      logic [NCH*3-1:0] e;
      e = (NCH*3)'(entries[i*W +: W]);
      for (int j = 0; j < NCH; j++) ch[i*NCH + j] = e[j*3 +: 3] == key_p[j*3 +: 3];
      hit_k[i] = valid[i] && (&ch[i*NCH +: NCH]);
    end
  end
  assign hit = hit_k;

  if (N <= 6) begin : g_one
    assign any = |hit_k;
  end else begin : g_two
    (* keep *) logic [NG-1:0] grp;
    always_comb begin
      for (int g = 0; g < NG; g++) begin
        grp[g] = 1'b0;
        for (int i = g * 6; i < g * 6 + 6 && i < N; i++) grp[g] |= hit_k[i];
      end
    end
    assign any = |grp;
  end

endmodule

`resetall
