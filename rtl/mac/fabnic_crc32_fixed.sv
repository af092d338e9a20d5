// SPDX-License-Identifier: Apache-2.0
//
// fabnic_crc32_fixed: combinational CRC-32 (IEEE 802.3, reflected, poly
// 0x04C11DB7) update over exactly N_BYTES bytes, written as one XOR reduction
// per output bit.
//
// The update is linear in {data, crc}: bit o of the result is the XOR of the
// input bits selected by a constant mask, computed at elaboration by running
// the bit-serial definition on unit vectors. A reduction XOR maps to a
// balanced LUT tree (at N_BYTES=8, up to 96 inputs: 3 LUT6 levels), where the
// bit-serial loop written out would leave synthesis a long chain to rebalance.
//
// Byte i of data_in (bits 8*i+7:8*i) is the i-th byte on the wire. crc_in /
// crc_out are the running (un-inverted) state: start with 32'hFFFF_FFFF, the
// final CRC is ~crc_out, least significant byte first on the wire.
// N_BYTES = 0 passes crc_in through.
`default_nettype none

module fabnic_crc32_fixed #(
    parameter int N_BYTES = 8,
    parameter int DATA_W  = 64             // width of data_in, >= 8*N_BYTES
) (
    input  wire logic [31:0]       crc_in,
    input  wire logic [DATA_W-1:0] data_in,
    output logic      [31:0]       crc_out
);

  if (N_BYTES < 0 || DATA_W < 8 * N_BYTES || DATA_W < 8) begin : g_check
    $error("fabnic_crc32_fixed: need 0 <= N_BYTES and 8*N_BYTES <= DATA_W");
  end

  localparam int IN_W = 32 + DATA_W;       // {data, crc}

  // bit-serial reference: CRC state after the first n bytes of d
  function automatic logic [31:0] crc_serial(input logic [31:0] c, input logic [DATA_W-1:0] d,
                                             input int n);
    logic [31:0] r;
    r = c;
    for (int b = 0; b < n; b++) begin
      for (int i = 0; i < 8; i++) begin
        r = (r >> 1) ^ (32'hEDB8_8320 & {32{r[0] ^ d[8*b+i]}});
      end
    end
    return r;
  endfunction

  // masks of all output bits over {data, crc}: bit o uses MASKS[o*IN_W +: IN_W]
  function automatic logic [32*IN_W-1:0] crc_masks();
    logic [32*IN_W-1:0] m;
    logic [IN_W-1:0]    u;
    logic [31:0]        r;
    m = '0;
    for (int b = 0; b < IN_W; b++) begin
      u    = '0;
      u[b] = 1'b1;
      r    = crc_serial(u[31:0], u[IN_W-1:32], N_BYTES);
      for (int o = 0; o < 32; o++) m[o*IN_W + b] = r[o];
    end
    return m;
  endfunction

  localparam logic [32*IN_W-1:0] MASKS = crc_masks();

  logic [IN_W-1:0] x;
  assign x = {data_in, crc_in};

  for (genvar o = 0; o < 32; o++) begin : g_bit
    assign crc_out[o] = ^(x & MASKS[o*IN_W +: IN_W]);
  end

endmodule

`resetall
