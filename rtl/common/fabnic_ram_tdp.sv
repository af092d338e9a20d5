// SPDX-License-Identifier: Apache-2.0
//
// fabnic_ram_tdp: true dual-port RAM, two independent read/write ports (A, B),
// each with its own clock (tie a_clk and b_clk together for a single-clock RAM).
//
// Written in the template Yosys (memory_libmap) and vendor tools map to block RAM
// in true dual-port mode (Xilinx RAMB36E2/RAMB18E2, Lattice DP16KD). Block RAM
// limits the width of a true dual-port port (36 bits Xilinx, 18 bits ECP5), so a
// wide TDP RAM costs more blocks than an SDP RAM of the same size.
//
// Per port p in {a, b}:
//   p_en enables the port; p_we[i] (with p_en) writes lane i (BYTE_W bits).
//   Every enabled cycle also reads: p_rdata = mem[p_addr] one cycle later
//   (latency 1; with OUT_REG=1 a second register, enabled by p_regce: latency 2).
//   Same-port read during write: read-first (p_rdata returns the old word).
//   Cross-port collisions are undefined, as in the block RAM: both ports
//   writing one address in the same cycle leaves an undefined word, and a read
//   on one port of an address the other port writes in the same cycle returns
//   an undefined word; the caller must avoid both. (Separate clocks are what
//   lets Yosys map this: with one clock it would have to guarantee old data
//   across ports, which DP16KD/RAMB36 cannot, and it falls back to flip-flops.)
//   Simulation returns the old word on such a read and lets port B win.
//
// Contents undefined after configuration; no reset of the array or read registers.
`default_nettype none

module fabnic_ram_tdp #(
    parameter int DATA_W  = 64,
    parameter int DEPTH   = 512,
    parameter int BYTE_W  = DATA_W,          // bits per write-enable lane
    parameter bit OUT_REG = 1'b0,
    parameter int ADDR_W  = (DEPTH > 1) ? $clog2(DEPTH) : 1,
    parameter int BE_W    = DATA_W / BYTE_W
) (
    input  wire logic              a_clk,
    input  wire logic              a_en,
    input  wire logic [BE_W-1:0]   a_we,
    input  wire logic [ADDR_W-1:0] a_addr,
    input  wire logic [DATA_W-1:0] a_wdata,
    input  wire logic              a_regce,
    output logic      [DATA_W-1:0] a_rdata,

    input  wire logic              b_clk,
    input  wire logic              b_en,
    input  wire logic [BE_W-1:0]   b_we,
    input  wire logic [ADDR_W-1:0] b_addr,
    input  wire logic [DATA_W-1:0] b_wdata,
    input  wire logic              b_regce,
    output logic      [DATA_W-1:0] b_rdata
);

  if (BE_W * BYTE_W != DATA_W) begin : g_check_be
    $error("fabnic_ram_tdp: DATA_W must be a multiple of BYTE_W");
  end

  // Written from both ports' clocked processes (MULTIDRIVEN waived in
  // rtl/lint_waivers.vlt): the template block RAM inference needs.
  logic [DATA_W-1:0] mem [DEPTH];
  /* verilator lint_on MULTIDRIVEN */
  logic [DATA_W-1:0] a_q, b_q;

  always_ff @(posedge a_clk) begin
    if (a_en) begin
      for (int i = 0; i < BE_W; i++) begin
        if (a_we[i]) mem[a_addr][i*BYTE_W +: BYTE_W] <= a_wdata[i*BYTE_W +: BYTE_W];
      end
      a_q <= mem[a_addr];
    end
  end

  always_ff @(posedge b_clk) begin
    if (b_en) begin
      for (int i = 0; i < BE_W; i++) begin
        if (b_we[i]) mem[b_addr][i*BYTE_W +: BYTE_W] <= b_wdata[i*BYTE_W +: BYTE_W];
      end
      b_q <= mem[b_addr];
    end
  end

  if (OUT_REG) begin : g_out_reg
    logic [DATA_W-1:0] a_out_q, b_out_q;
    always_ff @(posedge a_clk) begin
      if (a_regce) a_out_q <= a_q;
    end
    always_ff @(posedge b_clk) begin
      if (b_regce) b_out_q <= b_q;
    end
    assign a_rdata = a_out_q;
    assign b_rdata = b_out_q;
  end else begin : g_no_out_reg
    logic unused_regce;
    assign unused_regce = a_regce ^ b_regce;
    assign a_rdata = a_q;
    assign b_rdata = b_q;
  end

endmodule

`resetall
