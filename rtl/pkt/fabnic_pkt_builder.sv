// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pkt_builder: metadata + payload stream -> Ethernet frame.
//
// One fabnic_pkt_pkg::pkt_meta_t per frame on s_meta_* and the frame's payload on
// s_axis_*. The header is Ethernet [802.1Q] [IPv4 | IPv6] [UDP]:
//   - Ethernet: dst_mac, src_mac; 802.1Q tag when vlan_valid (pcp, DEI 0, vid);
//     EtherType 0x0800/0x86DD for IP, meta.ethertype otherwise (no IP header then).
//   - IPv4: version 4, IHL 5, DSCP/ECN, total length = 20 [+8] + payload_len,
//     identification 0, flags DF, fragment offset 0, TTL, protocol (17 when is_udp,
//     else ip_proto), header checksum computed, addresses from the low 32 bits.
//   - IPv6: traffic class = DSCP/ECN, flow label, payload length = [8 +] payload_len,
//     next header (17 when is_udp, else ip_proto), hop limit = ttl.
//   - UDP (is_udp and IP): ports, length = 8 + payload_len, checksum 0 (UDP_CSUM=0;
//     legal for IPv4, RFC 8200 requires a checksum for IPv6 - see docs/pkt.md).
// The payload must be payload_len - TRAILER_BYTES bytes (for IP frames; TRAILER_BYTES=4
// when fabnic_roce_icrc_gen appends the ICRC after the builder); a different length is
// forwarded but gets tuser[0]=1 on its last beat and counts in cnt_len_mismatch.
// A payload of one beat with tkeep=0 means an empty payload.
// Latency: 2 cycles from meta + first payload beat to the first output beat;
// one output beat per cycle.
`default_nettype none

module fabnic_pkt_builder #(
    parameter int DATA_W   = 64,
    parameter int KEEP_W   = DATA_W / 8,
    parameter bit UDP_CSUM = 1'b0,
    parameter int TRAILER_BYTES = 0,  // bytes counted in payload_len but appended later (ICRC: 4)
    parameter int CNT_W    = 32
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    input  fabnic_pkt_pkg::pkt_meta_t s_meta_data,
    input  wire logic                 s_meta_valid,
    output logic                      s_meta_ready,

    input  wire logic [DATA_W-1:0]    s_axis_tdata,
    input  wire logic [KEEP_W-1:0]    s_axis_tkeep,
    input  wire logic                 s_axis_tvalid,
    output logic                      s_axis_tready,
    input  wire logic                 s_axis_tlast,
    input  wire logic                 s_axis_tuser,

    output logic      [DATA_W-1:0]    m_axis_tdata,
    output logic      [KEEP_W-1:0]    m_axis_tkeep,
    output logic                      m_axis_tvalid,
    input  wire logic                 m_axis_tready,
    output logic                      m_axis_tlast,
    output logic                      m_axis_tuser,

    output logic      [CNT_W-1:0]     cnt_frames,
    output logic      [CNT_W-1:0]     cnt_len_mismatch
);

  localparam int HMAX   = 18 + 40 + 8;
  localparam int HLEN_W = $clog2(HMAX + 1);
  localparam int HW     = HMAX * 8;

  if (UDP_CSUM) begin : g_check_csum
    $error("fabnic_pkt_builder: UDP_CSUM=1 (store-and-forward checksum) is not implemented");
  end

  function automatic logic [HMAX*8-1:0] to_lane(input logic [HMAX*8-1:0] v, input int nbytes);
    // network-order value in the low nbytes bytes -> lane order (first byte in lane 0)
    logic [HMAX*8-1:0] r;
    r = '0;
    for (int i = 0; i < HMAX; i++) begin
      if (i < nbytes) r[8*i +: 8] = v[8*(nbytes-1-i) +: 8];
    end
    return r;
  endfunction

  // ---------------------------------------------------------------- header build
  fabnic_pkt_pkg::pkt_meta_t md;
  fabnic_pkt_pkg::ipv4_hdr_t ip4;
  fabnic_pkt_pkg::ipv6_hdr_t ip6;
  fabnic_pkt_pkg::udp_hdr_t  udp;
  logic [HMAX*8-1:0] lane, hdr_net;
  logic [HLEN_W-1:0] hlen;
  logic [31:0]       sum;
  logic              is_ip, is_udp;
  logic              unused_md;

  // fields the builder does not take from the metadata (it computes or fixes them)
  assign unused_md = ^{md.udp_checksum, md.ip_frag, md.l3_offset, md.l4_offset,
                       md.payload_offset, md.err};

  always_comb begin
    logic [7:0] l3, l4;
    logic [15:0] l4_len, etype;
    md     = s_meta_data;
    is_ip  = md.is_ipv4 || md.is_ipv6;
    is_udp = is_ip && md.is_udp;
    l3     = md.vlan_valid ? 8'd18 : 8'd14;
    l4     = l3 + (md.is_ipv4 ? 8'd20 : (md.is_ipv6 ? 8'd40 : 8'd0));
    l4_len = md.payload_len + (is_udp ? 16'd8 : 16'd0);

    udp = '{src_port: md.src_port, dst_port: md.dst_port, length: l4_len, checksum: 16'h0};

    ip4 = '0;
    ip4.version      = 4'd4;
    ip4.ihl          = 4'd5;
    ip4.dscp         = md.dscp;
    ip4.ecn          = md.ecn;
    ip4.total_length = l4_len + 16'd20;
    ip4.flags        = 3'b010;
    ip4.ttl          = md.ttl;
    ip4.protocol     = is_udp ? fabnic_pkt_pkg::IP_PROTO_UDP : md.ip_proto;
    ip4.src_ip       = md.src_ip[31:0];
    ip4.dst_ip       = md.dst_ip[31:0];
    sum = '0;
    for (int w = 0; w < 10; w++) sum = sum + {16'h0, ip4[16*w +: 16]};
    sum = {16'h0, sum[15:0]} + {16'h0, sum[31:16]};
    sum = {16'h0, sum[15:0]} + {16'h0, sum[31:16]};
    ip4.checksum = ~sum[15:0];

    ip6 = '{version: 4'd6, dscp: md.dscp, ecn: md.ecn, flow_label: md.flow_label,
            payload_length: l4_len,
            next_header: is_udp ? fabnic_pkt_pkg::IP_PROTO_UDP : md.ip_proto,
            hop_limit: md.ttl, src_ip: md.src_ip, dst_ip: md.dst_ip};

    lane = to_lane(HW'({md.dst_mac, md.src_mac}), 12);
    if (md.vlan_valid) begin
      lane |= to_lane(HW'({fabnic_pkt_pkg::ETHERTYPE_VLAN, md.vlan_pcp, 1'b0, md.vlan_vid}), 4) << (8 * 12);
    end
    etype = md.is_ipv4 ? fabnic_pkt_pkg::ETHERTYPE_IPV4 :
            (md.is_ipv6 ? fabnic_pkt_pkg::ETHERTYPE_IPV6 : md.ethertype);
    lane |= to_lane(HW'(etype), 2) << (8 * (l3 - 8'd2));
    if (md.is_ipv4) lane |= to_lane(HW'(ip4), 20) << (8 * l3);
    else if (md.is_ipv6) lane |= to_lane(HW'(ip6), 40) << (8 * l3);
    if (is_udp) lane |= to_lane(HW'(udp), 8) << (8 * l4);
    hlen = HLEN_W'(l4) + (is_udp ? HLEN_W'(8) : HLEN_W'(0));
    for (int i = 0; i < HMAX; i++) hdr_net[8*(HMAX-1-i) +: 8] = lane[8*i +: 8];
  end

  // ---------------------------------------------------------------- stage register
  logic              st_valid_q, st_chk_q;
  logic [HMAX*8-1:0] st_hdr_q;
  logic [HLEN_W-1:0] st_len_q;
  logic [15:0]       st_plen_q;
  logic              hdr_ready, hdr_fire;

  assign s_meta_ready = !st_valid_q || hdr_ready;
  assign hdr_fire     = st_valid_q && hdr_ready;

  always_ff @(posedge clk) begin
    if (hdr_fire) st_valid_q <= 1'b0;
    if (s_meta_valid && s_meta_ready) begin
      st_valid_q <= 1'b1;
      st_hdr_q   <= hdr_net;
      st_len_q   <= hlen;
      st_plen_q  <= md.payload_len;
      st_chk_q   <= is_ip;
    end
    if (rst) st_valid_q <= 1'b0;
  end

  // ---------------------------------------------------------------- payload length check
  logic        chk_q, mid_q, p_fire, mismatch, chk_cur;
  logic [15:0] plen_q, plen_cur;
  logic [16:0] pcnt_q, pcnt;

  assign p_fire   = s_axis_tvalid && s_axis_tready;
  assign plen_cur = hdr_fire ? st_plen_q : plen_q;
  assign chk_cur  = hdr_fire ? st_chk_q : chk_q;

  always_comb begin
    pcnt = mid_q ? pcnt_q : '0;
    for (int i = 0; i < KEEP_W; i++) pcnt = pcnt + 17'(s_axis_tkeep[i]);
    mismatch = chk_cur && s_axis_tlast && pcnt + 17'(TRAILER_BYTES) != 17'(plen_cur);
  end

  always_ff @(posedge clk) begin
    if (hdr_fire) begin
      plen_q <= st_plen_q;
      chk_q  <= st_chk_q;
    end
    if (p_fire) begin
      pcnt_q <= pcnt;
      mid_q  <= !s_axis_tlast;
      if (s_axis_tlast) begin
        cnt_frames       <= cnt_frames + 1'b1;
        cnt_len_mismatch <= cnt_len_mismatch + CNT_W'(mismatch);
      end
    end
    if (rst) begin
      mid_q            <= 1'b0;
      chk_q            <= 1'b0;
      cnt_frames       <= '0;
      cnt_len_mismatch <= '0;
    end
  end

  fabnic_axis_hdr_insert #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .HDR_BYTES(HMAX)) u_insert (
      .clk, .rst,
      .s_hdr_tdata(st_hdr_q), .s_hdr_len(st_len_q), .s_hdr_tvalid(st_valid_q),
      .s_hdr_tready(hdr_ready),
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser(s_axis_tuser || mismatch),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser
  );

endmodule

`resetall
