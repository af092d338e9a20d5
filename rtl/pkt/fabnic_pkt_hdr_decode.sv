// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pkt_hdr_decode: combinational decode of the first WIN_BYTES bytes of a frame
// (lane order: byte i at hdr[8*i +: 8]) into fabnic_pkt_pkg::pkt_meta_t.
//
// len is the number of valid bytes in the window (the frame's length if ended=1).
// need = bytes the headers announce (Ethernet [+802.1Q] [+IPv4/IPv6 [+UDP]]); it only
// depends on bytes before position need, so it may be evaluated on a partly filled
// window: whenever len < need, need is exact or larger than len.
// ip_end = frame offset where the IP datagram ends (l3 + IP length); 0 for non-IP.
// The error bits are valid when the window holds the whole header (runt otherwise).
`default_nettype none

module fabnic_pkt_hdr_decode #(
    parameter int WIN_BYTES = 88
) (
    input  wire logic [WIN_BYTES*8-1:0]  hdr,
    input  wire logic [7:0]              len,
    input  wire logic                    ended,  // the frame ended within the window
    output fabnic_pkt_pkg::pkt_meta_t    meta,
    output logic [7:0]                   need,
    output logic [16:0]                  ip_end
);

  localparam int IPW = 68;  // IP header window (60) + UDP header (8)

  if (WIN_BYTES < 86) begin : g_check
    $error("fabnic_pkt_hdr_decode: WIN_BYTES must cover 18+60+8 bytes");
  end

  function automatic logic [7:0] byte_at(input logic [WIN_BYTES*8-1:0] v, input int p);
    return v[8*p +: 8];
  endfunction

  logic            vlan, et_v4, et_v6, ver_ok, ihl_bad, udp, frag_nz, csum_ok;
  logic [15:0]     et, tot_len, ip_pay, udp_len, pay_len;
  logic [7:0]      l3, l4, pay_off, iphl, ip0;
  logic [IPW*8-1:0] ip;
  logic [63:0]      l4v;
  logic [31:0]     sum;

  always_comb begin
    vlan = {byte_at(hdr, 12), byte_at(hdr, 13)} == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    l3   = vlan ? 8'd18 : 8'd14;
    et   = vlan ? {byte_at(hdr, 16), byte_at(hdr, 17)} : {byte_at(hdr, 12), byte_at(hdr, 13)};
    ip   = vlan ? hdr[18*8 +: IPW*8] : hdr[14*8 +: IPW*8];
    ip0  = ip[7:0];
    et_v4 = et == fabnic_pkt_pkg::ETHERTYPE_IPV4;
    et_v6 = et == fabnic_pkt_pkg::ETHERTYPE_IPV6;
    ver_ok = et_v4 ? ip0[7:4] == 4'd4 : (et_v6 ? ip0[7:4] == 4'd6 : 1'b0);
    ihl_bad = et_v4 && ip0[3:0] < 4'd5;
    iphl = et_v6 ? 8'd40 : (ihl_bad ? 8'd20 : {2'b00, ip0[3:0], 2'b00});
    frag_nz = {ip[6*8 +: 8], ip[7*8 +: 8]} [12:0] != '0;

    // IPv4 header checksum over iphl bytes (ones' complement sum must be 0xFFFF)
    sum = '0;
    for (int w = 0; w < 30; w++) begin
      if (8'(2 * w) < iphl) sum = sum + {16'h0, ip[16*w +: 8], ip[16*w + 8 +: 8]};
    end
    sum = {16'h0, sum[15:0]} + {16'h0, sum[31:16]};
    sum = {16'h0, sum[15:0]} + {16'h0, sum[31:16]};
    csum_ok = sum[15:0] == 16'hFFFF;

    meta = '0;
    meta.dst_mac   = {byte_at(hdr, 0), byte_at(hdr, 1), byte_at(hdr, 2), byte_at(hdr, 3),
                      byte_at(hdr, 4), byte_at(hdr, 5)};
    meta.src_mac   = {byte_at(hdr, 6), byte_at(hdr, 7), byte_at(hdr, 8), byte_at(hdr, 9),
                      byte_at(hdr, 10), byte_at(hdr, 11)};
    meta.vlan_valid = vlan;
    meta.vlan_pcp  = vlan ? hdr[14*8 + 5 +: 3] : 3'd0;
    meta.vlan_vid  = vlan ? {byte_at(hdr, 14), byte_at(hdr, 15)} [11:0] : 12'd0;
    meta.ethertype = et;
    meta.l3_offset = l3;
    meta.is_ipv4   = et_v4 && ver_ok;
    meta.is_ipv6   = et_v6 && ver_ok;

    tot_len = 16'h0;
    ip_pay  = 16'h0;
    ip_end  = '0;
    udp     = 1'b0;
    if (meta.is_ipv4) begin
      meta.dscp     = ip[8 + 2 +: 6];
      meta.ecn      = ip[8 +: 2];
      tot_len       = {ip[2*8 +: 8], ip[3*8 +: 8]};
      meta.ip_frag  = ip[6*8 + 5] || frag_nz;
      meta.ttl      = ip[8*8 +: 8];
      meta.ip_proto = ip[9*8 +: 8];
      for (int i = 0; i < 4; i++) begin
        meta.src_ip[8*(3-i) +: 8] = ip[(12+i)*8 +: 8];
        meta.dst_ip[8*(3-i) +: 8] = ip[(16+i)*8 +: 8];
      end
      ip_pay = tot_len - 16'(iphl);
      ip_end = 17'(l3) + 17'(tot_len);
      udp    = meta.ip_proto == fabnic_pkt_pkg::IP_PROTO_UDP && !frag_nz && !ihl_bad;
    end else if (meta.is_ipv6) begin
      meta.dscp       = {ip[3:0], ip[15:14]};
      meta.ecn        = ip[13:12];
      meta.flow_label = {ip[11:8], ip[2*8 +: 8], ip[3*8 +: 8]};
      ip_pay          = {ip[4*8 +: 8], ip[5*8 +: 8]};
      meta.ip_proto   = ip[6*8 +: 8];
      meta.ttl        = ip[7*8 +: 8];
      for (int i = 0; i < 16; i++) begin
        meta.src_ip[8*(15-i) +: 8] = ip[(8+i)*8 +: 8];
        meta.dst_ip[8*(15-i) +: 8] = ip[(24+i)*8 +: 8];
      end
      ip_end = 17'(l3) + 17'd40 + 17'(ip_pay);
      udp    = meta.ip_proto == fabnic_pkt_pkg::IP_PROTO_UDP;
    end
    l4v = '0;
    for (int k = 5; k <= 15; k++) begin
      if (iphl == 8'(4 * k)) l4v = ip[32*k +: 64];
    end
    l4  = (meta.is_ipv4 || meta.is_ipv6) ? l3 + iphl : l3;
    meta.l4_offset = l4;
    meta.is_udp    = udp;
    udp_len        = {l4v[4*8 +: 8], l4v[5*8 +: 8]};
    if (udp) begin
      meta.src_port     = {l4v[0 +: 8], l4v[8 +: 8]};
      meta.dst_port     = {l4v[2*8 +: 8], l4v[3*8 +: 8]};
      meta.udp_checksum = {l4v[6*8 +: 8], l4v[7*8 +: 8]};
    end
    pay_off = udp ? l4 + 8'd8 : l4;
    meta.payload_offset = pay_off;
    pay_len = '0;
    if (ip_end > 17'(pay_off)) pay_len = 16'(ip_end - 17'(pay_off));
    meta.payload_len = (meta.is_ipv4 || meta.is_ipv6) ? pay_len : 16'd0;

    // header bytes announced
    if (et_v4 || et_v6) need = ver_ok ? pay_off : l3 + 8'd1;
    else need = l3;

    // errors
    meta.err.ip_version = (et_v4 || et_v6) && !ver_ok;
    meta.err.ipv4_ihl   = ihl_bad && ver_ok;
    meta.err.ipv4_csum  = meta.is_ipv4 && !ihl_bad && !csum_ok;
    meta.err.udp_length = udp && !meta.ip_frag && udp_len != ip_pay;
    meta.err.ip_length  = (meta.is_ipv4 && tot_len < 16'(iphl)) ||
                          ((meta.is_ipv4 || meta.is_ipv6) && ended && 17'(len) < ip_end);
    meta.err.runt       = 1'b0;
    if (len < need) meta.err = '{runt: 1'b1, default: 1'b0};
  end

endmodule

`resetall
