// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pkt_hdr_pipe: pipelined decode of the first WIN_BYTES bytes of a frame
// (lane order: byte i at in_hdr[8*i +: 8]) into fabnic_pkt_pkg::pkt_meta_t: the decode
// of fabnic_pkt_hdr_decode (combinational, kept for fabnic_roce_vni) as registered
// stages of at most 6 logic levels each, used by fabnic_pkt_parser.
//
// One window per cycle may enter (in_valid); the result leaves LAT = 5 cycles later
// (out_valid), in order. The stages never stall: the user reserves room for the
// results it will receive. in_hdr and the in_* fields are read in the in_valid cycle
// only.
//   S1  802.1Q tag check, the four EtherType compares (after 12 and after 16 bytes),
//       the L3 header (+ UDP) aligned to byte 0 of a 68-byte window; frame bytes in the
//       window (in_base + in_bytes).
//   S2  EtherType selected, version/IHL agreement, IPv4/IPv6 field selection, UDP
//       decision, UDP header candidates (IPv4 at IHL, IPv6 at 40), IPv4 checksum: 30
//       16-bit words masked by IHL, added in pairs (15 partial sums).
//   S3  checksum 15 -> 4 partial sums; UDP header selected; l4/payload offsets, IP
//       end, IP payload length.
//   S4  checksum 4 -> 1; header bytes announced ("need"), runt, length compares,
//       payload length.
//   S5  checksum check, error bits (runt overrides the others), output registers.
//
// The IPv4 checksum check uses that the ones' complement sum of the words is 0xFFFF
// exactly when their plain sum S (< 30 * 2^16) is a non-zero multiple of 0xFFFF, i.e.
// S[15:0] == ~S[20:16] (16-bit): no end-around-carry fold is needed.
//
// in_base is the window offset of the last beat collected, in_bytes its valid bytes,
// in_ended whether the frame ended with it. need (bytes the headers announce) only
// depends on bytes before position need. out_ended_hdr: the frame ended on the beat
// that completed the headers (the beat holding byte need-1, or an earlier end: runt).
// out_ip_end = frame offset where the IP datagram ends (l3 + IP length); 0 for non-IP.
// The error bits are valid when the window holds the whole header (runt otherwise).
`default_nettype none

module fabnic_pkt_hdr_pipe #(
    parameter int WIN_BYTES = 88
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic                    in_valid,
    input  wire logic [WIN_BYTES*8-1:0]  in_hdr,
    input  wire logic [7:0]              in_base,   // window offset of the last beat
    input  wire logic [7:0]              in_bytes,  // valid bytes in the last beat
    input  wire logic                    in_ended,  // the frame ended with that beat

    output logic                         out_valid,
    output fabnic_pkt_pkg::pkt_meta_t    out_meta,
    output logic [16:0]                  out_ip_end,
    output logic                         out_ended_hdr
);

  localparam int IPW = 68;  // IP header window (60) + UDP header (8)
  localparam int NW  = 30;  // 16-bit words of the largest IPv4 header

  if (WIN_BYTES < 18 + IPW || WIN_BYTES > 255) begin : g_check
    $error("fabnic_pkt_hdr_pipe: WIN_BYTES must cover 18+60+8 bytes and fit 8 bits");
  end

  function automatic logic [7:0] byte_at(input logic [WIN_BYTES*8-1:0] v, input int p);
    return v[8*p +: 8];
  endfunction

  function automatic logic [7:0] ipb(input logic [IPW*8-1:0] v, input int p);
    return v[8*p +: 8];
  endfunction

  // ---------------------------------------------------------------- S1: L2, align L3
  logic             s1_valid, s1_vlan, s1_ended;
  logic             s1_c12v4, s1_c12v6, s1_c16v4, s1_c16v6;  // EtherType compares, both places
  logic [15:0]      s1_et;
  logic [47:0]      s1_dst, s1_src;
  logic [2:0]       s1_pcp;
  logic [11:0]      s1_vid;
  logic [IPW*8-1:0] s1_ip;
  logic [7:0]       s1_len, s1_base;

  always_ff @(posedge clk) begin
    logic        vlan;
    logic [15:0] e12, e16;
    e12  = {byte_at(in_hdr, 12), byte_at(in_hdr, 13)};
    e16  = {byte_at(in_hdr, 16), byte_at(in_hdr, 17)};
    vlan = e12 == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    s1_valid <= in_valid;
    s1_vlan  <= vlan;
    s1_et    <= vlan ? e16 : e12;
    s1_c12v4 <= e12 == fabnic_pkt_pkg::ETHERTYPE_IPV4;
    s1_c12v6 <= e12 == fabnic_pkt_pkg::ETHERTYPE_IPV6;
    s1_c16v4 <= e16 == fabnic_pkt_pkg::ETHERTYPE_IPV4;
    s1_c16v6 <= e16 == fabnic_pkt_pkg::ETHERTYPE_IPV6;
    s1_ip    <= vlan ? in_hdr[18*8 +: IPW*8] : in_hdr[14*8 +: IPW*8];
    for (int i = 0; i < 6; i++) begin
      s1_dst[8*(5-i) +: 8] <= byte_at(in_hdr, i);
      s1_src[8*(5-i) +: 8] <= byte_at(in_hdr, 6 + i);
    end
    s1_pcp   <= vlan ? in_hdr[14*8 + 5 +: 3] : 3'd0;
    s1_vid   <= vlan ? {byte_at(in_hdr, 14), byte_at(in_hdr, 15)} [11:0] : 12'd0;
    s1_len   <= in_base + in_bytes;
    s1_base  <= in_base;
    s1_ended <= in_ended;
    if (rst) s1_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- S2: IP fields, UDP, csum 30 -> 8
  logic          s2_valid, s2_vlan, s2_ended, s2_etip, s2_ver_ok, s2_is4, s2_is6, s2_ihl_bad;
  logic          s2_udp, s2_frag;
  logic [15:0]   s2_et, s2_iplen;
  logic [47:0]   s2_dst, s2_src;
  logic [2:0]    s2_pcp;
  logic [11:0]   s2_vid;
  logic [7:0]    s2_len, s2_base, s2_iphl, s2_ttl, s2_proto;
  logic [5:0]    s2_dscp;
  logic [1:0]    s2_ecn;
  logic [19:0]   s2_flow;
  logic [127:0]  s2_sip, s2_dip;
  logic [63:0]   s2_l4v4, s2_l4v6;     // UDP header candidates: IPv4 (at IHL), IPv6 (at 40)
  logic          s2_etv6;
  logic [16:0]   s2_ps [15];

  always_ff @(posedge clk) begin
    logic [7:0]  ip0;
    logic [3:0]  ihl;
    logic [63:0] cand [16];
    logic        ver_ok, is4, is6, ihl_bad, frag_nz, etv4, etv6;
    logic [15:0] w [NW];
    etv4    = s1_vlan ? s1_c16v4 : s1_c12v4;
    etv6    = s1_vlan ? s1_c16v6 : s1_c12v6;
    ip0     = ipb(s1_ip, 0);
    ihl     = ip0[3:0];
    ver_ok  = etv4 ? ip0[7:4] == 4'd4 : (etv6 ? ip0[7:4] == 4'd6 : 1'b0);
    is4     = etv4 && ver_ok;
    is6     = etv6 && ver_ok;
    ihl_bad = etv4 && ihl < 4'd5;
    frag_nz = {ipb(s1_ip, 6), ipb(s1_ip, 7)} [12:0] != '0;

    s2_valid   <= s1_valid;
    s2_vlan    <= s1_vlan;
    s2_ended   <= s1_ended;
    s2_et      <= s1_et;
    s2_dst     <= s1_dst;
    s2_src     <= s1_src;
    s2_pcp     <= s1_pcp;
    s2_vid     <= s1_vid;
    s2_len     <= s1_len;
    s2_base    <= s1_base;
    s2_etip    <= etv4 || etv6;
    s2_ver_ok  <= ver_ok;
    s2_is4     <= is4;
    s2_is6     <= is6;
    s2_ihl_bad <= ihl_bad;
    s2_iphl    <= etv6 ? 8'd40 : (ihl_bad ? 8'd20 : {2'b00, ihl, 2'b00});

    s2_dscp  <= '0;
    s2_ecn   <= '0;
    s2_ttl   <= '0;
    s2_proto <= '0;
    s2_flow  <= '0;
    s2_sip   <= '0;
    s2_dip   <= '0;
    s2_frag  <= 1'b0;
    s2_udp   <= 1'b0;
    s2_iplen <= {ipb(s1_ip, 4), ipb(s1_ip, 5)};  // IPv6 payload length
    if (is4) begin
      s2_dscp  <= ipb(s1_ip, 1) [7:2];
      s2_ecn   <= ipb(s1_ip, 1) [1:0];
      s2_ttl   <= ipb(s1_ip, 8);
      s2_proto <= ipb(s1_ip, 9);
      for (int i = 0; i < 4; i++) begin
        s2_sip[8*(3-i) +: 8] <= ipb(s1_ip, 12 + i);
        s2_dip[8*(3-i) +: 8] <= ipb(s1_ip, 16 + i);
      end
      s2_frag  <= s1_ip[6*8 + 5] || frag_nz;
      s2_udp   <= ipb(s1_ip, 9) == fabnic_pkt_pkg::IP_PROTO_UDP && !frag_nz && !ihl_bad;
      s2_iplen <= {ipb(s1_ip, 2), ipb(s1_ip, 3)};  // IPv4 total length
    end else if (is6) begin
      s2_dscp  <= {s1_ip[3:0], s1_ip[15:14]};
      s2_ecn   <= s1_ip[13:12];
      s2_flow  <= {s1_ip[11:8], ipb(s1_ip, 2), ipb(s1_ip, 3)};
      s2_proto <= ipb(s1_ip, 6);
      s2_ttl   <= ipb(s1_ip, 7);
      for (int i = 0; i < 16; i++) begin
        s2_sip[8*(15-i) +: 8] <= ipb(s1_ip, 8 + i);
        s2_dip[8*(15-i) +: 8] <= ipb(s1_ip, 24 + i);
      end
      s2_udp   <= ipb(s1_ip, 6) == fabnic_pkt_pkg::IP_PROTO_UDP;
    end

    // UDP header at the IP header length: IPv4 IHL 32-bit words (20 B if IHL < 5), IPv6
    // 40 B; the IPv4 candidate is a 16:1 multiplexer on the IHL bits alone
    for (int j = 0; j < 16; j++) cand[j] = s1_ip[32*(j < 5 ? 5 : j) +: 64];
    s2_l4v4 <= cand[ihl];
    s2_l4v6 <= s1_ip[40*8 +: 64];
    s2_etv6 <= etv6;

    // IPv4 checksum: words 0..9 always, word w >= 10 while w < 2 * IHL
    for (int i = 0; i < NW; i++) begin
      w[i] = {ipb(s1_ip, 2 * i), ipb(s1_ip, 2 * i + 1)};
      if (i >= 10 && !(5'(i) < {ihl, 1'b0})) w[i] = '0;
    end
    for (int i = 0; i < 15; i++) s2_ps[i] <= 17'(w[2 * i]) + 17'(w[2 * i + 1]);

    if (rst) s2_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- S3: csum 8 -> 2, offsets
  logic          s3_valid, s3_vlan, s3_ended, s3_etip, s3_ver_ok, s3_is4, s3_is6, s3_ihl_bad;
  logic          s3_udp, s3_frag, s3_totlt;
  logic [15:0]   s3_et, s3_ip_pay, s3_udp_len;
  logic [47:0]   s3_dst, s3_src;
  logic [2:0]    s3_pcp;
  logic [11:0]   s3_vid;
  logic [7:0]    s3_len, s3_base, s3_ttl, s3_proto, s3_l3, s3_l4, s3_pay_off;
  logic [5:0]    s3_dscp;
  logic [1:0]    s3_ecn;
  logic [19:0]   s3_flow;
  logic [127:0]  s3_sip, s3_dip;
  logic [15:0]   s3_sport, s3_dport, s3_ucsum;
  logic [16:0]   s3_ip_end;
  logic [18:0]   s3_cs [4];

  always_ff @(posedge clk) begin
    logic [7:0]  l3, l3u, l3x;
    logic        is_ip;
    logic [63:0] l4v;
    l4v   = s2_etv6 ? s2_l4v6 : s2_l4v4;
    l3    = s2_vlan ? 8'd18 : 8'd14;
    unique case ({s2_vlan, s2_udp})  // l3 + UDP header
      2'b00:   l3u = 8'd14;
      2'b01:   l3u = 8'd22;
      2'b10:   l3u = 8'd18;
      default: l3u = 8'd26;
    endcase
    l3x = s2_is4 ? l3 : (s2_vlan ? 8'd58 : 8'd54);  // where the IP length field counts from
    is_ip = s2_is4 || s2_is6;

    s3_valid   <= s2_valid;
    s3_vlan    <= s2_vlan;
    s3_ended   <= s2_ended;
    s3_etip    <= s2_etip;
    s3_ver_ok  <= s2_ver_ok;
    s3_is4     <= s2_is4;
    s3_is6     <= s2_is6;
    s3_ihl_bad <= s2_ihl_bad;
    s3_udp     <= s2_udp;
    s3_frag    <= s2_frag;
    s3_et      <= s2_et;
    s3_dst     <= s2_dst;
    s3_src     <= s2_src;
    s3_pcp     <= s2_pcp;
    s3_vid     <= s2_vid;
    s3_len     <= s2_len;
    s3_base    <= s2_base;
    s3_ttl     <= s2_ttl;
    s3_proto   <= s2_proto;
    s3_dscp    <= s2_dscp;
    s3_ecn     <= s2_ecn;
    s3_flow    <= s2_flow;
    s3_sip     <= s2_sip;
    s3_dip     <= s2_dip;
    s3_l3      <= l3;

    s3_l4      <= is_ip ? l3 + s2_iphl : l3;
    s3_pay_off <= is_ip ? l3u + s2_iphl : l3;
    s3_ip_pay  <= s2_is4 ? s2_iplen - 16'(s2_iphl) : s2_iplen;
    s3_ip_end  <= is_ip ? 17'(l3x) + 17'(s2_iplen) : '0;
    s3_totlt   <= s2_is4 && s2_iplen < 16'(s2_iphl);

    s3_udp_len <= {l4v[4*8 +: 8], l4v[5*8 +: 8]};
    s3_sport   <= s2_udp ? {l4v[0 +: 8], l4v[8 +: 8]} : 16'd0;
    s3_dport   <= s2_udp ? {l4v[2*8 +: 8], l4v[3*8 +: 8]} : 16'd0;
    s3_ucsum   <= s2_udp ? {l4v[6*8 +: 8], l4v[7*8 +: 8]} : 16'd0;

    // checksum 15 -> 4 partial sums (two pairwise levels)
    for (int i = 0; i < 3; i++) begin
      s3_cs[i] <= (19'(s2_ps[4*i]) + 19'(s2_ps[4*i + 1])) + (19'(s2_ps[4*i + 2]) + 19'(s2_ps[4*i + 3]));
    end
    s3_cs[3] <= (19'(s2_ps[12]) + 19'(s2_ps[13])) + 19'(s2_ps[14]);

    if (rst) s3_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- S4: csum check, need, compares
  logic          s4_valid, s4_vlan, s4_etip, s4_ver_ok, s4_is4, s4_is6, s4_ihl_bad;
  logic          s4_udp, s4_frag, s4_totlt, s4_runt, s4_ended_hdr, s4_len_lt, s4_udp_ne;
  logic [20:0]   s4_sum;
  logic [15:0]   s4_et, s4_pay_len;
  logic [47:0]   s4_dst, s4_src;
  logic [2:0]    s4_pcp;
  logic [11:0]   s4_vid;
  logic [7:0]    s4_ttl, s4_proto, s4_l3, s4_l4, s4_pay_off;
  logic [5:0]    s4_dscp;
  logic [1:0]    s4_ecn;
  logic [19:0]   s4_flow;
  logic [127:0]  s4_sip, s4_dip;
  logic [15:0]   s4_sport, s4_dport, s4_ucsum;
  logic [16:0]   s4_ip_end;

  always_ff @(posedge clk) begin
    logic [7:0]  need;
    need = s3_etip ? (s3_ver_ok ? s3_pay_off : s3_l3 + 8'd1) : s3_l3;

    s4_valid     <= s3_valid;
    s4_vlan      <= s3_vlan;
    s4_etip      <= s3_etip;
    s4_ver_ok    <= s3_ver_ok;
    s4_is4       <= s3_is4;
    s4_is6       <= s3_is6;
    s4_ihl_bad   <= s3_ihl_bad;
    s4_udp       <= s3_udp;
    s4_frag      <= s3_frag;
    s4_totlt     <= s3_totlt;
    s4_et        <= s3_et;
    s4_dst       <= s3_dst;
    s4_src       <= s3_src;
    s4_pcp       <= s3_pcp;
    s4_vid       <= s3_vid;
    s4_ttl       <= s3_ttl;
    s4_proto     <= s3_proto;
    s4_l3        <= s3_l3;
    s4_l4        <= s3_l4;
    s4_pay_off   <= s3_pay_off;
    s4_dscp      <= s3_dscp;
    s4_ecn       <= s3_ecn;
    s4_flow      <= s3_flow;
    s4_sip       <= s3_sip;
    s4_dip       <= s3_dip;
    s4_sport     <= s3_sport;
    s4_dport     <= s3_dport;
    s4_ucsum     <= s3_ucsum;
    s4_ip_end    <= s3_ip_end;

    s4_sum       <= (21'(s3_cs[0]) + 21'(s3_cs[1])) + (21'(s3_cs[2]) + 21'(s3_cs[3]));
    s4_runt      <= s3_len < need;
    s4_ended_hdr <= s3_ended && need > s3_base;
    s4_len_lt    <= 17'(s3_len) < s3_ip_end;
    s4_udp_ne    <= s3_udp_len != s3_ip_pay;
    s4_pay_len   <= s3_ip_end > 17'(s3_pay_off) ? 16'(s3_ip_end - 17'(s3_pay_off)) : 16'd0;

    if (rst) s4_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- S5: errors, output
  always_ff @(posedge clk) begin
    fabnic_pkt_pkg::pkt_meta_t m;
    logic csum_ok;
    csum_ok = s4_sum[15:5] == '1 && (s4_sum[4:0] ^ s4_sum[20:16]) == '1;
    m = '0;
    m.dst_mac        = s4_dst;
    m.src_mac        = s4_src;
    m.vlan_valid     = s4_vlan;
    m.vlan_pcp       = s4_pcp;
    m.vlan_vid       = s4_vid;
    m.ethertype      = s4_et;
    m.is_ipv4        = s4_is4;
    m.is_ipv6        = s4_is6;
    m.dscp           = s4_dscp;
    m.ecn            = s4_ecn;
    m.ttl            = s4_ttl;
    m.ip_proto       = s4_proto;
    m.flow_label     = s4_flow;
    m.src_ip         = s4_sip;
    m.dst_ip         = s4_dip;
    m.ip_frag        = s4_frag;
    m.is_udp         = s4_udp;
    m.src_port       = s4_sport;
    m.dst_port       = s4_dport;
    m.udp_checksum   = s4_ucsum;
    m.l3_offset      = s4_l3;
    m.l4_offset      = s4_l4;
    m.payload_offset = s4_pay_off;
    m.payload_len    = s4_pay_len;
    if (s4_runt) begin
      m.err = '{runt: 1'b1, default: 1'b0};
    end else begin
      m.err.ip_version = s4_etip && !s4_ver_ok;
      m.err.ipv4_ihl   = s4_ihl_bad && s4_ver_ok;
      m.err.ipv4_csum  = s4_is4 && !s4_ihl_bad && !csum_ok;
      m.err.udp_length = s4_udp && !s4_frag && s4_udp_ne;
      m.err.ip_length  = s4_totlt || ((s4_is4 || s4_is6) && s4_ended_hdr && s4_len_lt);
    end
    out_valid     <= s4_valid;
    out_meta      <= m;
    out_ip_end    <= s4_ip_end;
    out_ended_hdr <= s4_ended_hdr;
    if (rst) out_valid <= 1'b0;
  end

endmodule

`resetall
