// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_xlate_cache: one-entry key translation cache in front of the MR table.
//
// Holds the region of the last passed check (key, PD, access bits, VA range [lo, hi),
// host offset: the MR table's m_chk_lo/hi/off/acc outputs). A lookup of (key, PD, va,
// len, access needed) hits when the key and the PD are the cached ones, the cached
// access bits include the needed ones, len is not zero and [va, va + len) lies inside
// the range (no 64-bit wrap); the host address is then va + off, what the table would
// answer, without its 2-cycle check. The engine adds its own conditions (opcode, length
// rules) on top of `hit`.
//
// Coherence with the table: any MR-table write (mr_wr_valid) empties the cache and
// makes `hit` low in that cycle, and a fill is ignored while a write happened in its
// cycle or the two before (the check's table read may predate the write), so a hit is
// always what the table would answer now.
//
// Used by the requester (lkeys of SQE buffers), the responder (rkeys of WRITEs) and the
// completer (lkeys of READ/atomic result buffers).
`default_nettype none

module fabnic_roce_xlate_cache (
    input  wire logic        clk,
    input  wire logic        rst,

    input  wire logic        mr_wr_valid,

    // fill: a check that passed, and the region it found
    input  wire logic        fill,
    input  wire logic [31:0] fill_key,
    input  wire logic [23:0] fill_pd,
    input  wire logic [3:0]  fill_acc,
    input  wire logic [63:0] fill_lo,
    input  wire logic [64:0] fill_hi,
    input  wire logic [63:0] fill_off,

    // lookup (combinational)
    input  wire logic [31:0] key,
    input  wire logic [23:0] pd,
    input  wire logic [63:0] va,
    input  wire logic [31:0] len,
    input  wire logic [3:0]  need,
    output logic             hit,
    output logic      [63:0] off
);

  logic        v_q;
  logic [31:0] key_q;
  logic [23:0] pd_q;
  logic [3:0]  acc_q;
  logic [63:0] lo_q, off_q;
  logic [64:0] hi_q, end_va;
  logic [1:0]  mw_q;   // MR-table writes in the last two cycles

  assign end_va = {1'b0, va} + 65'(len);
  assign hit    = v_q && !mr_wr_valid && key == key_q && pd == pd_q && (need & ~acc_q) == 4'd0
                  && len != 32'd0 && va >= lo_q && end_va <= hi_q && !end_va[64];
  assign off    = off_q;

  always_ff @(posedge clk) begin
    mw_q <= {mw_q[0], mr_wr_valid};
    if (fill && mw_q == 2'b00 && !mr_wr_valid) begin
      v_q   <= 1'b1;
      key_q <= fill_key;
      pd_q  <= fill_pd;
      acc_q <= fill_acc;
      lo_q  <= fill_lo;
      hi_q  <= fill_hi;
      off_q <= fill_off;
    end
    if (mr_wr_valid || rst) v_q <= 1'b0;
    if (rst) mw_q <= '0;
  end

endmodule

`default_nettype wire
