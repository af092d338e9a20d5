// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fec_pkg: GF(2^8) arithmetic, the FEC generator matrix and the FEC
// sideband carried in AXI-Stream tuser by fabnic_fec_enc / fabnic_fec_dec.
//
// Field: GF(2^8) with primitive polynomial x^8+x^4+x^3+x^2+1 (0x11D).
// Code: systematic, repair row r (0..3), data index i (0..251):
//     G[r][i] = y_i / (y_i + x_r),  x_r = r,  y_i = i + 4
// i.e. a Cauchy matrix 1/(x_r + y_i) with every column scaled so that row 0 is
// all ones (row 0 = plain XOR parity). Row/column scaling keeps every square
// submatrix of a Cauchy matrix nonsingular, so any R erasures among K+R
// packets are recoverable, and Gaussian elimination never meets a zero pivot.
// See docs/fec.md.
`default_nettype none

package fabnic_fec_pkg;

  localparam logic [8:0] GF_POLY = 9'h11D;

  // FEC sideband, constant over all beats of a packet. tuser = {fec_meta_t, bad}.
  //   data packet  : is_repair=0, gid, idx = index in group, cnt = K of the block,
  //                  len = payload bytes (decoder output) / 0 (encoder output)
  //   repair packet: is_repair=1, gid, idx = repair row r, cnt = data packets
  //                  in the group, len = coded length field
  typedef struct packed {
    logic [15:0] len;
    logic [7:0]  cnt;
    logic [7:0]  idx;
    logic [15:0] gid;
    logic        is_repair;
  } fec_meta_t;

  localparam int META_W = $bits(fec_meta_t);

  function automatic logic [7:0] gf_xtime(input logic [7:0] a);
    return a[7] ? ((a << 1) ^ GF_POLY[7:0]) : (a << 1);
  endfunction

  function automatic logic [7:0] gf_mul(input logic [7:0] a, input logic [7:0] b);
    logic [7:0] p;
    logic [7:0] s;
    p = '0;
    s = a;
    for (int j = 0; j < 8; j++) begin
      if (b[j]) p = p ^ s;
      s = gf_xtime(s);
    end
    return p;
  endfunction

  // a^254 = a^-1 (0 -> 0)
  function automatic logic [7:0] gf_inv(input logic [7:0] a);
    logic [7:0] r;
    logic [7:0] sq;
    r  = 8'd1;
    sq = a;
    for (int j = 0; j < 8; j++) begin
      if (j != 0) r = gf_mul(r, sq);  // exponent 254 = 0b11111110
      sq = gf_mul(sq, sq);
    end
    return r;
  endfunction

  function automatic logic [7:0] fec_coef(input logic [7:0] r, input logic [7:0] i);
    logic [7:0] y;
    y = i + 8'd4;
    return gf_mul(y, gf_inv(y ^ r));
  endfunction

  // c * x^j for j = 0..7, packed with j=0 in the low byte: a byte b is then
  // multiplied by c as the XOR of the entries selected by the bits of b.
  function automatic logic [63:0] gf_cx(input logic [7:0] c);
    logic [63:0] v;
    logic [7:0]  s;
    s = c;
    for (int j = 0; j < 8; j++) begin
      v[8*j +: 8] = s;
      s = gf_xtime(s);
    end
    return v;
  endfunction

  function automatic logic [7:0] gf_mul_cx(input logic [63:0] cx, input logic [7:0] b);
    logic [7:0] p;
    p = '0;
    for (int j = 0; j < 8; j++) begin
      if (b[j]) p = p ^ cx[8*j +: 8];
    end
    return p;
  endfunction

endpackage

`resetall
