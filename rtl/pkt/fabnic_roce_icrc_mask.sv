// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_icrc_mask: the RoCEv2 ICRC view of a frame, one beat at a time.
//
// For the beat on data/keep (taken when fire=1) it returns the bytes the ICRC's CRC-32
// must see at those positions, so that one CRC over the whole masked frame from byte 0
// equals the ICRC computation of IBTA Annex A17 (8 bytes 0xFF for the LRH, then the
// IP/UDP/BTH headers with the mutable fields forced to ones, then the rest):
//   - Ethernet (+802.1Q) bytes [0, l3): replaced by FF FF FF FF, 00 .. 00, FF FF FF FF.
//     From the CRC's initial state 0xFFFFFFFF four 0xFF bytes give state 0, zeros keep
//     it at 0, and four more 0xFF bytes give the state that 8 x 0xFF gives from the
//     initial state: the prefix is equivalent to the 8-byte pseudo-LRH.
//   - IPv4: DSCP/ECN, TTL, header checksum -> ones. IPv6: traffic class, flow label,
//     hop limit -> ones (the version nibble is kept).
//   - UDP checksum -> ones; BTH byte 4 (FECN, BECN, resv6) -> ones.
// Every rule depends only on header bytes at or before the byte it changes, so the
// masks are computed on the header window merged with the current beat.
`default_nettype none

module fabnic_roce_icrc_mask #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [DATA_W-1:0] data,
    input  wire logic [KEEP_W-1:0] keep,
    input  wire logic              last,
    input  wire logic              fire,
    output logic      [DATA_W-1:0] masked
);

  localparam int HBEATS = (91 + KEEP_W - 1) / KEEP_W;  // last masked byte: 18+60+12
  localparam int WIN    = HBEATS * KEEP_W;
  localparam int BI_W   = $clog2(HBEATS + 1);

  logic [BI_W-1:0]  bidx_q;   // beats of this frame seen, saturating at HBEATS
  logic [WIN*8-1:0] hbuf_q, hv, or_bits, and_bits, m;
  logic [DATA_W-1:0] kbits;

  function automatic logic [7:0] b(input logic [WIN*8-1:0] v, input int p);
    return v[8*p +: 8];
  endfunction

  always_comb begin
    logic        vlan, v4, v6;
    logic [7:0]  l3, l4;
    logic [3:0]  ihl;
    logic [15:0] et;
    for (int i = 0; i < KEEP_W; i++) kbits[8*i +: 8] = {8{keep[i]}};
    hv = hbuf_q;
    for (int k = 0; k < HBEATS; k++) begin
      if (BI_W'(k) == bidx_q) hv[k*DATA_W +: DATA_W] = data & kbits;
    end
    vlan = {b(hv, 12), b(hv, 13)} == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    l3   = vlan ? 8'd18 : 8'd14;
    et   = vlan ? {b(hv, 16), b(hv, 17)} : {b(hv, 12), b(hv, 13)};
    ihl  = vlan ? hv[18*8 +: 4] : hv[14*8 +: 4];
    v4   = et == fabnic_pkt_pkg::ETHERTYPE_IPV4;
    v6   = et == fabnic_pkt_pkg::ETHERTYPE_IPV6;
    if (v6) l4 = l3 + 8'd40;
    else l4 = l3 + ((ihl < 4'd5) ? 8'd20 : {2'b00, ihl, 2'b00});
    or_bits  = '0;
    and_bits = '1;
    for (int p = 0; p < WIN; p++) begin
      if (p < 4 || (8'(p) >= l3 - 8'd4 && 8'(p) < l3)) or_bits[8*p +: 8] = 8'hFF;
      else if (8'(p) < l3) and_bits[8*p +: 8] = 8'h00;
      if (v4 && (8'(p) == l3 + 8'd1 || 8'(p) == l3 + 8'd8 || 8'(p) == l3 + 8'd10 ||
                 8'(p) == l3 + 8'd11)) or_bits[8*p +: 8] = 8'hFF;
      if (v6 && 8'(p) == l3) or_bits[8*p +: 8] = 8'h0F;
      if (v6 && (8'(p) == l3 + 8'd1 || 8'(p) == l3 + 8'd2 || 8'(p) == l3 + 8'd3 ||
                 8'(p) == l3 + 8'd7)) or_bits[8*p +: 8] = 8'hFF;
      if ((v4 || v6) && (8'(p) == l4 + 8'd6 || 8'(p) == l4 + 8'd7 || 8'(p) == l4 + 8'd12))
        or_bits[8*p +: 8] = 8'hFF;
    end
    m = (hv & and_bits) | or_bits;
    masked = data;
    for (int k = 0; k < HBEATS; k++) begin
      if (BI_W'(k) == bidx_q) masked = m[k*DATA_W +: DATA_W];
    end
  end

  always_ff @(posedge clk) begin
    if (fire) begin
      if (last) bidx_q <= '0;
      else if (bidx_q < BI_W'(HBEATS)) begin
        bidx_q <= bidx_q + 1'b1;
        hbuf_q <= hv;
      end
    end
    if (rst) begin
      bidx_q <= '0;
      hbuf_q <= '0;
    end
  end

endmodule

`resetall
