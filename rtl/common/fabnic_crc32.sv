// SPDX-License-Identifier: Apache-2.0
//
// fabnic_crc32: combinational CRC-32 (IEEE 802.3, reflected, poly 0x04C11DB7)
// update over one AXI-Stream beat of DATA_W bits with a byte-enable mask.
//
// Byte lane i of data_in (bits 8*i+7:8*i) is the i-th byte on the wire. Lanes
// must be contiguous from lane 0 (the AXI-Stream packed-tkeep convention); a
// beat with fewer valid bytes is folded in by a log2 chain of fixed-size
// updates (KEEP_W, KEEP_W/2, ... 1 bytes), so the XOR network is about twice
// the size of a full-width update instead of one copy per possible length.
//
// crc_in/crc_out hold the running (un-inverted) LFSR state: start with
// 32'hFFFF_FFFF and take ~crc_out as the final CRC, least significant byte
// first on the wire.
`default_nettype none

module fabnic_crc32 #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic [31:0]     crc_in,
    input  wire logic [DATA_W-1:0] data_in,
    input  wire logic [KEEP_W-1:0] keep_in,
    output logic      [31:0]     crc_out
);

  localparam int CNT_W = $clog2(KEEP_W + 1);

  // reflected polynomial
  localparam logic [31:0] POLY = 32'hEDB8_8320;

  logic [CNT_W-1:0] count;

  always_comb begin
    count = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      count = count + CNT_W'(keep_in[i]);
    end
  end

`ifdef VERILATOR
`ifndef FABNIC_GATE_MUX
`define FABNIC_CRC32_TABLE
`endif
`endif
`ifdef FABNIC_CRC32_TABLE
  // Simulation form (docs/verification.md, "Simulation forms"): the same chunk chain, a
  // byte per step through a 256-entry table (entry a: the state a leaves after eight
  // zero-input steps). Verilator evaluates the serial form as 8*KEEP_W dependent bit steps
  // per chunk on every input change; this is KEEP_W table look-ups.
  function automatic logic [256*32-1:0] gen_table();
    logic [256*32-1:0] t;
    for (int a = 0; a < 256; a++) begin
      logic [31:0] r;
      r = 32'(a);
      for (int i = 0; i < 8; i++) r = (r >> 1) ^ (POLY & {32{r[0]}});
      t[a*32 +: 32] = r;
    end
    return t;
  endfunction

  localparam logic [256*32-1:0] TBL = gen_table();

  function automatic logic [31:0] crc_bytes(input logic [31:0] c, input logic [DATA_W-1:0] d,
                                            input int n);
    logic [31:0] r;
    r = c;
    for (int b = 0; b < KEEP_W; b++) begin
      if (b < n) r = (r >> 8) ^ TBL[32 * (r[7:0] ^ d[8*b +: 8]) +: 32];
    end
    return r;
  endfunction

`else
  function automatic logic [31:0] crc_bytes(input logic [31:0] c, input logic [DATA_W-1:0] d,
                                            input int n);
    logic [31:0] r;
    r = c;
    for (int b = 0; b < KEEP_W; b++) begin
      if (b < n) begin
        for (int i = 0; i < 8; i++) begin
          r = (r >> 1) ^ (POLY & {32{r[0] ^ d[8*b+i]}});
        end
      end
    end
    return r;
  endfunction
`endif

  always_comb begin
    logic [31:0] c;
    logic [DATA_W-1:0] d;
    c = crc_in;
    d = data_in;
    if (&keep_in) begin
      crc_out = crc_bytes(crc_in, data_in, KEEP_W);
    end else begin
      // largest chunk first: bytes stay in wire order
      for (int k = CNT_W - 1; k >= 0; k--) begin
        if ((1 << k) < KEEP_W && count[k]) begin
          c = crc_bytes(c, d, 1 << k);
          d = d >> (8 * (1 << k));
        end
      end
      crc_out = c;
    end
  end

endmodule

`resetall
