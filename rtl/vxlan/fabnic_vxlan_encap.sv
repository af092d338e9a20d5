// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vxlan_encap: inner Ethernet frame + {VNI, length} -> outer
// Ethernet / IPv4 or IPv6 / UDP 4789 / VXLAN / inner frame (docs/vxlan.md).
//
// Sideband (s_vni, s_len, s_tun_sel, s_tun) is sampled with the frame's first beat.
// s_len is the inner frame length in bytes (the virtio TX side knows it from its
// descriptors), so no store-and-forward is needed: the outer lengths are written
// before the payload passes. A frame whose real length differs from s_len is still
// sent, with tuser[0]=1 on its last beat (cnt_len_mismatch, from fabnic_pkt_builder).
//
// Tunnel parameters come from the vSwitch table's port B (combinational): the VNI's
// default tunnel, or tunnel s_tun when s_tun_sel. VNI not configured: frame dropped,
// cnt_drop_no_vni.
//
// Outer header: Ethernet src/dst MAC, IPv4 (DF, checksum by the builder) or IPv6
// (flow label = the flow hash), DSCP and TTL from the tunnel, ECN copied from the
// inner IP header (RFC 6040 normal mode; Not-ECT for non-IP inner frames), UDP source
// port = 0xC000 | hash14 (49152..65535, RFC 7348), destination port 4789, UDP checksum
// 0 (RFC 7348 for IPv4; RFC 6935/6936 zero-checksum tunnel mode for IPv6) unless
// s_csum_valid gives the inner frame's ones-complement sum: then the UDP checksum is
// computed (pseudo header + UDP + VXLAN + s_csum) and patched into the outer frame.
// Flow hash: over the first 64 bytes of the inner frame (docs/vxlan.md): XOR fold to
// 16 bits of {dst MAC, src MAC, EtherType, src IP, dst IP, protocol, src port, dst port}.
//
// Structure: the inner frame goes into a beat FIFO (DATA_DEPTH) while its first 64
// bytes are captured; then the lookup + hash build one command (outer metadata and
// VXLAN header) into a command FIFO; fabnic_axis_hdr_insert adds the VXLAN header and
// fabnic_pkt_builder the outer headers. Back-pressure only.
`default_nettype none

module fabnic_vxlan_encap #(
    parameter int DATA_W     = 64,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int TUN_W      = 4,
    parameter int DATA_DEPTH = 32,   // beats, power of two, > 64 / KEEP_W
    parameter int CMD_DEPTH  = 4,
    parameter int CNT_W      = 32
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic                   s_axis_tuser,
    input  wire logic [23:0]            s_vni,
    input  wire logic [15:0]            s_len,
    input  wire logic                   s_tun_sel,
    input  wire logic [TUN_W-1:0]       s_tun,
    input  wire logic                   s_csum_valid, // s_csum given: write the UDP checksum
    input  wire logic [15:0]            s_csum,       // ones-complement sum of the inner frame

    // vSwitch table port B
    output logic      [23:0]            lb_vni,
    output logic                        lb_tun_sel,
    output logic      [TUN_W-1:0]       lb_tun,
    input  wire logic                   rb_hit,
    input  fabnic_vxlan_pkg::tunnel_t   rb_tunnel,

    output logic      [DATA_W-1:0]      m_axis_tdata,
    output logic      [KEEP_W-1:0]      m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic                        m_axis_tuser,

    output logic      [CNT_W-1:0]       cnt_frames_in,
    output logic      [CNT_W-1:0]       cnt_frames_out,
    output logic      [CNT_W-1:0]       cnt_drop_no_vni,
    output logic      [CNT_W-1:0]       cnt_len_mismatch
);

  localparam int WIN   = 64;                              // bytes hashed
  localparam int WINB  = (WIN + KEEP_W - 1) / KEEP_W;     // beats holding them
  localparam int WB_W  = $clog2(WINB + 1);

  if (DATA_DEPTH <= WINB + 2) begin : g_check_depth
    $error("fabnic_vxlan_encap: DATA_DEPTH must exceed the hash window beats");
  end

  // ---------------------------------------------------------------- input, window capture
  logic              in_first_q, pend_q, pend_clr, s_fire, f_in_ready;
  logic [WB_W-1:0]   bidx_q;
  logic [WINB*DATA_W-1:0] win_q;
  logic [23:0]       vni_q;
  logic [15:0]       len_q;
  logic              tsel_q;
  logic [TUN_W-1:0]  tun_q;
  logic              csv_q;
  logic [15:0]       csum_q;
  logic [DATA_W-1:0] kmask;

  always_comb begin
    for (int i = 0; i < KEEP_W; i++) kmask[8*i +: 8] = {8{s_axis_tkeep[i]}};
  end

  assign s_axis_tready = f_in_ready && !(in_first_q && pend_q && !pend_clr);
  assign s_fire        = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk) begin
    if (s_fire) begin
      in_first_q <= s_axis_tlast;
      if (in_first_q) begin
        win_q   <= '0;
        win_q[DATA_W-1:0] <= s_axis_tdata & kmask;
        vni_q   <= s_vni;
        len_q   <= s_len;
        tsel_q  <= s_tun_sel;
        tun_q   <= s_tun;
        csv_q   <= s_csum_valid;
        csum_q  <= s_csum;
        bidx_q  <= WB_W'(1);
      end else if (bidx_q < WB_W'(WINB)) begin
        for (int b = 1; b < WINB; b++) begin
          if (bidx_q == WB_W'(b)) win_q[b*DATA_W +: DATA_W] <= s_axis_tdata & kmask;
        end
        bidx_q <= bidx_q + 1'b1;
      end
    end
    // the window is complete at the beat that fills it or at the frame's end
    if (s_fire && (s_axis_tlast || (in_first_q ? WINB == 1 : bidx_q == WB_W'(WINB - 1))
                   ) && (in_first_q || bidx_q < WB_W'(WINB))) begin
      pend_q <= 1'b1;
    end else if (pend_clr) begin
      pend_q <= 1'b0;
    end
    if (rst) begin
      in_first_q <= 1'b1;
      pend_q     <= 1'b0;
      bidx_q     <= '0;
    end
  end

  // ---------------------------------------------------------------- flow hash
  logic [8*WIN-1:0] w;       // window, byte i in bits [8i +: 8]
  assign w = win_q[8*WIN-1:0];

  function automatic logic [7:0] wb(input logic [8*WIN-1:0] v, input int i);
    return (i < WIN) ? v[8*i +: 8] : 8'h00;
  endfunction

  logic [47:0]  h_dmac, h_smac;
  logic [15:0]  h_type, h_sport, h_dport;
  logic [127:0] h_sip, h_dip;
  logic [7:0]   h_proto;
  logic [1:0]   in_ecn;
  logic [415:0] tuple;
  logic [15:0]  h16;
  logic         vlan, ports;

  always_comb begin
    h_dmac = '0;
    h_smac = '0;
    for (int i = 0; i < 6; i++) begin
      h_dmac[8*(5-i) +: 8] = wb(w, i);
      h_smac[8*(5-i) +: 8] = wb(w, 6 + i);
    end
    vlan    = {wb(w, 12), wb(w, 13)} == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    h_type  = vlan ? {wb(w, 16), wb(w, 17)} : {wb(w, 12), wb(w, 13)};
    h_sip   = '0;
    h_dip   = '0;
    h_proto = '0;
    h_sport = '0;
    h_dport = '0;
    in_ecn  = 2'b00;
    ports   = 1'b0;
    for (int v = 0; v < 2; v++) begin
      if ((v == 1) == vlan) begin
        if (h_type == fabnic_pkt_pkg::ETHERTYPE_IPV4 && wb(w, 14 + 4*v)[7:4] == 4'd4) begin
          h_proto = wb(w, 14 + 4*v + 9);
          in_ecn  = wb(w, 14 + 4*v + 1)[1:0];
          for (int i = 0; i < 4; i++) begin
            h_sip[8*(3-i) +: 8] = wb(w, 14 + 4*v + 12 + i);
            h_dip[8*(3-i) +: 8] = wb(w, 14 + 4*v + 16 + i);
          end
          // ports only for unfragmented TCP/UDP whose ports sit in the window
          if ((h_proto == 8'd6 || h_proto == 8'd17)
              && ({wb(w, 14 + 4*v + 6), wb(w, 14 + 4*v + 7)} & 16'h3FFF) == 16'h0000) begin
            for (int ihl = 5; ihl < 16; ihl++) begin
              if (wb(w, 14 + 4*v)[3:0] == 4'(ihl) && 14 + 4*v + 4*ihl + 4 <= WIN) begin
                ports   = 1'b1;
                h_sport = {wb(w, 14 + 4*v + 4*ihl), wb(w, 14 + 4*v + 4*ihl + 1)};
                h_dport = {wb(w, 14 + 4*v + 4*ihl + 2), wb(w, 14 + 4*v + 4*ihl + 3)};
              end
            end
          end
        end else if (h_type == fabnic_pkt_pkg::ETHERTYPE_IPV6
                     && wb(w, 14 + 4*v)[7:4] == 4'd6) begin
          h_proto = wb(w, 14 + 4*v + 6);
          in_ecn  = wb(w, 14 + 4*v + 1)[5:4];  // traffic class bits 1:0
          for (int i = 0; i < 16; i++) begin
            h_sip[8*(15-i) +: 8] = wb(w, 14 + 4*v + 8 + i);
            h_dip[8*(15-i) +: 8] = wb(w, 14 + 4*v + 24 + i);
          end
          if (h_proto == 8'd6 || h_proto == 8'd17) begin
            ports   = 1'b1;
            h_sport = {wb(w, 14 + 4*v + 40), wb(w, 14 + 4*v + 41)};
            h_dport = {wb(w, 14 + 4*v + 42), wb(w, 14 + 4*v + 43)};
          end
        end
      end
    end
    tuple = {8'h00, h_dmac, h_smac, h_type, h_sip, h_dip, h_proto, h_sport, h_dport};
    h16   = '0;
    for (int i = 0; i < 26; i++) h16 ^= tuple[16*i +: 16];
  end

  // ---------------------------------------------------------------- command
  typedef struct packed {
    logic                        drop;
    logic                        csum_en;
    logic [15:0]                 csum;
    fabnic_pkt_pkg::pkt_meta_t   meta;
    fabnic_pkt_pkg::vxlan_hdr_t  vxh;
  } cmd_t;

  cmd_t c_in, c;
  logic c_in_ready, c_valid, c_pop;
  logic [15:0] udp_len, udp_csum;
  logic [$clog2(CMD_DEPTH):0] unused_ccnt;
  logic [13:0] h14;

  assign lb_vni     = vni_q;
  assign lb_tun_sel = tsel_q;
  assign lb_tun     = tun_q;
  assign h14        = h16[13:0] ^ {12'h000, h16[15:14]};

  always_comb begin
    c_in                     = '0;
    c_in.drop                = !rb_hit;
    c_in.meta.dst_mac        = rb_tunnel.dst_mac;
    c_in.meta.src_mac        = rb_tunnel.src_mac;
    c_in.meta.is_ipv4        = !rb_tunnel.is_ipv6;
    c_in.meta.is_ipv6        = rb_tunnel.is_ipv6;
    c_in.meta.dscp           = rb_tunnel.dscp;
    c_in.meta.ecn            = in_ecn;
    c_in.meta.ttl            = rb_tunnel.ttl;
    c_in.meta.ip_proto       = fabnic_pkt_pkg::IP_PROTO_UDP;
    c_in.meta.flow_label     = {4'h0, h16};
    c_in.meta.src_ip         = rb_tunnel.src_ip;
    c_in.meta.dst_ip         = rb_tunnel.dst_ip;
    c_in.meta.is_udp         = 1'b1;
    c_in.meta.src_port       = {2'b11, h14};
    c_in.meta.dst_port       = fabnic_pkt_pkg::UDP_PORT_VXLAN;
    c_in.meta.payload_len    = len_q + 16'(fabnic_pkt_pkg::VXLAN_HDR_BYTES);
    c_in.vxh.flags           = fabnic_vxlan_pkg::VXLAN_FLAG_I;
    c_in.vxh.vni             = vni_q;
    c_in.csum_en             = csv_q;
    c_in.csum                = udp_csum;
  end

  // UDP checksum (RFC 768 / RFC 8200 8.1): pseudo header + UDP header + VXLAN header +
  // the inner frame's sum (s_csum)
  logic [31:0] cs;
  logic [16:0] cf1;
  logic [15:0] cf2;
  always_comb begin
    udp_len = len_q + 16'(8 + fabnic_pkt_pkg::VXLAN_HDR_BYTES);
    cs = 32'(csum_q) + 32'({2'b11, h14}) + 32'(fabnic_pkt_pkg::UDP_PORT_VXLAN) + 32'(udp_len)
       + 32'({fabnic_vxlan_pkg::VXLAN_FLAG_I, 8'h00}) + 32'(vni_q[23:8]) + 32'({vni_q[7:0], 8'h00})
       + 32'(udp_len) + 32'(fabnic_pkt_pkg::IP_PROTO_UDP);
    for (int i = 0; i < 8; i++) begin
      if (rb_tunnel.is_ipv6 || i < 2) begin
        cs += 32'(rb_tunnel.src_ip[16*i +: 16]) + 32'(rb_tunnel.dst_ip[16*i +: 16]);
      end
    end
    cf1 = 17'(cs[31:16]) + 17'(cs[15:0]);
    cf2 = cf1[15:0] + 16'(cf1[16]);
    udp_csum = ~cf2 == 16'h0000 ? 16'hFFFF : ~cf2;
  end

  assign pend_clr = pend_q && c_in_ready;

  fabnic_fifo #(.WIDTH($bits(cmd_t)), .DEPTH(CMD_DEPTH)) u_cmd (
      .clk, .rst,
      .in_valid(pend_q), .in_ready(c_in_ready), .in_data(c_in),
      .out_valid(c_valid), .out_ready(c_pop), .out_data(c),
      .status_count(unused_ccnt)
  );

  // ---------------------------------------------------------------- data FIFO
  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic              f_tvalid, f_tready, f_tlast, f_tuser;
  logic [$clog2(DATA_DEPTH):0] unused_depth;
  logic unused_good, unused_bad, unused_ovf, unused_ovs;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(DATA_DEPTH)) u_data (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(s_axis_tvalid && s_axis_tready),
      .s_axis_tready(f_in_ready), .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
      .status_depth(unused_depth), .status_good_frame(unused_good),
      .status_bad_frame(unused_bad), .status_overflow(unused_ovf), .status_oversize(unused_ovs)
  );

  // ---------------------------------------------------------------- gate: drop or send
  logic ck_in_ready;
  logic hdr_done_q, meta_done_q, data_done_q;
  logic hdr_valid, hdr_ready, meta_valid, meta_ready;
  logic g_tvalid, g_tready, d_last_fire;
  logic hdr_done, meta_done, data_done;

  assign hdr_valid   = c_valid && !c.drop && !hdr_done_q;
  assign meta_valid  = c_valid && !c.drop && !meta_done_q && ck_in_ready;
  assign g_tvalid    = f_tvalid && c_valid && !c.drop && !data_done_q;
  assign f_tready    = c_valid && !data_done_q && (c.drop || g_tready);
  assign d_last_fire = f_tvalid && f_tready && f_tlast;
  assign hdr_done    = hdr_done_q || (hdr_valid && hdr_ready);
  assign meta_done   = meta_done_q || (meta_valid && meta_ready);
  assign data_done   = data_done_q || d_last_fire;
  assign c_pop       = c_valid && data_done && (c.drop || (hdr_done && meta_done));

  always_ff @(posedge clk) begin
    hdr_done_q  <= hdr_done && !c_pop;
    meta_done_q <= meta_done && !c_pop;
    data_done_q <= data_done && !c_pop;
    if (rst) begin
      hdr_done_q  <= 1'b0;
      meta_done_q <= 1'b0;
      data_done_q <= 1'b0;
    end
  end

  logic [DATA_W-1:0] i_tdata;
  logic [KEEP_W-1:0] i_tkeep;
  logic              i_tvalid, i_tready, i_tlast, i_tuser;

  fabnic_axis_hdr_insert #(.DATA_W(DATA_W), .KEEP_W(KEEP_W),
                           .HDR_BYTES(fabnic_pkt_pkg::VXLAN_HDR_BYTES)) u_vxh (
      .clk, .rst,
      .s_hdr_tdata(c.vxh), .s_hdr_len(4'(fabnic_pkt_pkg::VXLAN_HDR_BYTES)),
      .s_hdr_tvalid(hdr_valid), .s_hdr_tready(hdr_ready),
      .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(g_tvalid),
      .s_axis_tready(g_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
      .m_axis_tdata(i_tdata), .m_axis_tkeep(i_tkeep), .m_axis_tvalid(i_tvalid),
      .m_axis_tready(i_tready), .m_axis_tlast(i_tlast), .m_axis_tuser(i_tuser)
  );

  logic [CNT_W-1:0] b_frames;
  logic [DATA_W-1:0] b_tdata;
  logic              b_tvalid, b_tready;

  fabnic_pkt_builder #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .CNT_W(CNT_W)) u_build (
      .clk, .rst,
      .s_meta_data(c.meta), .s_meta_valid(meta_valid), .s_meta_ready(meta_ready),
      .s_axis_tdata(i_tdata), .s_axis_tkeep(i_tkeep), .s_axis_tvalid(i_tvalid),
      .s_axis_tready(i_tready), .s_axis_tlast(i_tlast), .s_axis_tuser(i_tuser),
      .m_axis_tdata(b_tdata), .m_axis_tkeep, .m_axis_tvalid(b_tvalid), .m_axis_tready(b_tready),
      .m_axis_tlast, .m_axis_tuser, .cnt_frames(b_frames), .cnt_len_mismatch
  );
  assign cnt_frames_out = b_frames;

  // ---------------------------------------------------------------- UDP checksum patch
  // The builder writes checksum 0; the checksum of each frame (queued when its metadata
  // enters the builder) replaces bytes 40..41 (IPv4) / 60..61 (IPv6) of the outer frame.
  typedef struct packed {
    logic        en;
    logic        v6;
    logic [15:0] csum;
  } ck_t;
  ck_t ck_in, ck;
  logic ck_valid;
  logic [$clog2(CMD_DEPTH):0] unused_ckcnt;
  logic [15:0] obeat_q;

  assign ck_in = '{en: c.csum_en, v6: c.meta.is_ipv6, csum: c.csum};
  fabnic_fifo #(.WIDTH($bits(ck_t)), .DEPTH(CMD_DEPTH)) u_ck (
      .clk, .rst,
      .in_valid(meta_valid && meta_ready), .in_ready(ck_in_ready), .in_data(ck_in),
      .out_valid(ck_valid), .out_ready(b_tvalid && b_tready && m_axis_tlast),
      .out_data(ck), .status_count(unused_ckcnt)
  );

  assign m_axis_tvalid = b_tvalid && ck_valid;
  assign b_tready      = m_axis_tready && ck_valid;

  always_comb begin
    m_axis_tdata = b_tdata;
    for (int o = 40; o <= 60; o += 20) begin
      if (ck.en && (o == 60) == ck.v6 && obeat_q == 16'(o / KEEP_W)) begin
        m_axis_tdata[8*(o % KEEP_W) +: 16] = {ck.csum[7:0], ck.csum[15:8]};
      end
    end
  end

  always_ff @(posedge clk) begin
    if (b_tvalid && b_tready) obeat_q <= m_axis_tlast ? '0 : obeat_q + 1'b1;
    if (rst) obeat_q <= '0;
  end

  always_ff @(posedge clk) begin
    if (s_fire && in_first_q) cnt_frames_in <= cnt_frames_in + 1'b1;
    if (c_pop && c.drop) cnt_drop_no_vni <= cnt_drop_no_vni + 1'b1;
    if (rst) begin
      cnt_frames_in   <= '0;
      cnt_drop_no_vni <= '0;
    end
  end

  logic unused_bits;
  assign unused_bits = ^{ports, w};

endmodule

`resetall
