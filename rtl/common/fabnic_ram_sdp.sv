// SPDX-License-Identifier: Apache-2.0
//
// fabnic_ram_sdp: simple dual-port RAM, one write port and one read port, one clock.
//
// Written in the template Yosys (memory_libmap) and vendor tools map to block RAM
// (Xilinx RAMB36E2/RAMB18E2, Lattice DP16KD/PDPW16KD) or, when small, LUT RAM.
//
//   Write: wr_en && wr_be[i] writes lane i (BYTE_W bits) of wr_data at wr_addr.
//          BYTE_W = DATA_W (default) means one enable for the whole word.
//   Read:  rd_en latches mem[rd_addr] into the read register: rd_data is valid
//          the cycle after rd_en (latency 1). With OUT_REG=1 a second register
//          (the block RAM's own output register, enabled by rd_regce) follows:
//          latency 2, and the clock can go much faster (ECP5: >140 MHz needs it).
//          The read registers hold their value while their enable is low.
//   Read during write to the same address: read-first, rd_data returns the
//          old contents. (Block RAM in SDP mode gives this or "undefined" for a
//          collision on some families; do not rely on it across clocks.)
//
// Contents are undefined after configuration/reset (no reset of the array or of
// the read registers); there is no full condition (it is a plain memory).
`default_nettype none

module fabnic_ram_sdp #(
    parameter int DATA_W  = 64,
    parameter int DEPTH   = 512,
    parameter int BYTE_W  = DATA_W,          // bits per write-enable lane
    parameter bit OUT_REG = 1'b0,
    parameter int ADDR_W  = (DEPTH > 1) ? $clog2(DEPTH) : 1,
    parameter int BE_W    = DATA_W / BYTE_W
) (
    input  wire logic              clk,

    input  wire logic              wr_en,
    input  wire logic [BE_W-1:0]   wr_be,
    input  wire logic [ADDR_W-1:0] wr_addr,
    input  wire logic [DATA_W-1:0] wr_data,

    input  wire logic              rd_en,
    input  wire logic              rd_regce,  // output register enable (OUT_REG=1)
    input  wire logic [ADDR_W-1:0] rd_addr,
    output logic      [DATA_W-1:0] rd_data
);

  if (BE_W * BYTE_W != DATA_W) begin : g_check_be
    $error("fabnic_ram_sdp: DATA_W must be a multiple of BYTE_W");
  end

  logic [DATA_W-1:0] mem [DEPTH];
  logic [DATA_W-1:0] rd_q;

  always_ff @(posedge clk) begin
    if (wr_en) begin
      for (int i = 0; i < BE_W; i++) begin
        if (wr_be[i]) mem[wr_addr][i*BYTE_W +: BYTE_W] <= wr_data[i*BYTE_W +: BYTE_W];
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rd_en) rd_q <= mem[rd_addr];
  end

  if (OUT_REG) begin : g_out_reg
    logic [DATA_W-1:0] out_q;
    always_ff @(posedge clk) begin
      if (rd_regce) out_q <= rd_q;
    end
    assign rd_data = out_q;
  end else begin : g_no_out_reg
    logic unused_regce;
    assign unused_regce = rd_regce;
    assign rd_data = rd_q;
  end

endmodule

`resetall
