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
// Tunnel parameters come from the vSwitch table's port B: the VNI's default tunnel, or
// tunnel s_tun when s_tun_sel. lb_* is presented in the cycle a frame's window enters
// the command pipeline; rb_* (rb_hit, rb_tunnel, rb_tsum) are taken two cycles later
// (port B is a two-stage pipeline, fabnic_vswitch_table). VNI not configured: frame
// dropped, cnt_drop_no_vni.
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
// bytes are captured; then a three-stage command pipeline (parse, hash fold, lookup
// result) builds one command (outer metadata, VXLAN header, checksum terms) into a
// command FIFO; the FIFO's head is moved into a register and a gate acts on it (drop,
// or VXLAN header and metadata first, then the frame's beats, each through a skid
// register); fabnic_axis_hdr_insert adds the VXLAN header and fabnic_pkt_builder the
// outer headers; the UDP checksum is finished in three stages while the builder works
// on the frame and patched into its output. Back-pressure only.
// Latency (idle, 512 bits): 2 cycles more than a single-cycle command stage (p1, p2),
// 2 more for the head register and the beats' skid register, and for a one-beat inner
// frame 1 more (its beat waits until the header and metadata handshakes are done).
// Throughput: one beat per cycle; a one-beat inner frame takes 2 cycles at the gate. A
// command slot is reused 5 cycles after its window was admitted at the earliest.
`default_nettype none

module fabnic_vxlan_encap #(
    parameter int DATA_W     = 64,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int TUN_W      = 4,
    parameter int DATA_DEPTH = 32,   // beats, power of two, > 64 / KEEP_W
    parameter int CMD_DEPTH  = 4,    // commands (power of two) queued ahead of their frames
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
    input  wire logic [19:0]            rb_tsum,      // tunnel address words summed

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

  // ---------------------------------------------------------------- command pipeline
  // A completed window enters a three-stage pipeline that never stalls (p0: admission,
  // p1, p2: push into the command FIFO); admission takes a credit (a free command FIFO
  // slot, returned when the command is popped), so the push always finds room.
  //   p0 -> p1  EtherType / VLAN, the L3 bytes aligned, fold of MACs + EtherType, the
  //             checksum terms that do not depend on the tunnel; table port B sampled
  //   p1 -> p2  IPv4/IPv6 decode, fold of addresses, protocol and ports per variant,
  //             tunnel address words summed (IPv4 words / IPv6-only words)
  //   p2        flow hash selected, command written (checksum sum without the source
  //             port; the checksum is finished after the command leaves the FIFO)
  localparam int L3B = 48;   // L3 bytes kept: IPv4 ports at IHL*4 + 3 <= 47

  logic [8*WIN-1:0] w;       // window, byte i in bits [8i +: 8]
  assign w = win_q[8*WIN-1:0];

  function automatic logic [7:0] wb(input logic [8*WIN-1:0] v, input int i);
    return (i < WIN) ? v[8*i +: 8] : 8'h00;
  endfunction

  // XOR fold of the 416-bit tuple to 16 bits, for one byte placed at bit offset off
  function automatic logic [15:0] fold8(input logic [7:0] v, input int off);
    logic [31:0] x;
    x = 32'(v) << (off % 16);
    return x[15:0] ^ x[31:16];
  endfunction

  // tuple bit offsets: {8'h00, dmac, smac, type, sip, dip, proto, sport (16), dport (0)};
  // the ports fold to sport ^ dport
  localparam int O_PROTO = 32, O_DIP = 40, O_SIP = 168, O_TYPE = 296, O_SMAC = 312,
                 O_DMAC = 360;
  localparam logic [31:0] SUM_CONST = 32'(2 * (8 + fabnic_pkt_pkg::VXLAN_HDR_BYTES))
      + 32'(fabnic_pkt_pkg::UDP_PORT_VXLAN) + 32'({fabnic_vxlan_pkg::VXLAN_FLAG_I, 8'h00})
      + 32'(fabnic_pkt_pkg::IP_PROTO_UDP);

  logic p0_go, p1_v_q, p2_v_q;
  logic [$clog2(CMD_DEPTH+1)-1:0] cred_q;

  assign p0_go = pend_q && cred_q != '0;

  // p0 -> p1
  logic              p0_vlan;
  logic [15:0]       p0_type;
  logic [8*L3B-1:0]  p0_l3;
  logic [15:0]       p0_hmt;
  logic [47:0]       p0_dmac, p0_smac;
  logic [31:0]       p0_sum;
  always_comb begin
    p0_vlan = {wb(w, 12), wb(w, 13)} == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    p0_type = p0_vlan ? {wb(w, 16), wb(w, 17)} : {wb(w, 12), wb(w, 13)};
    for (int i = 0; i < L3B; i++) p0_l3[8*i +: 8] = p0_vlan ? wb(w, 18 + i) : wb(w, 14 + i);
    for (int i = 0; i < 6; i++) begin
      p0_dmac[8*(5-i) +: 8] = wb(w, i);
      p0_smac[8*(5-i) +: 8] = wb(w, 6 + i);
    end
    p0_hmt = fold8(p0_type[7:0], O_TYPE) ^ fold8(p0_type[15:8], O_TYPE + 8);
    for (int i = 0; i < 6; i++) begin
      p0_hmt ^= fold8(p0_dmac[8*i +: 8], O_DMAC + 8 * i) ^ fold8(p0_smac[8*i +: 8], O_SMAC + 8 * i);
    end
    // UDP checksum terms without the tunnel addresses and the source port: inner sum,
    // 2 x UDP length (UDP header + pseudo header), VNI words, VXLAN flags, port 4789, 17
    p0_sum = 32'(csum_q) + 32'(vni_q[23:8]) + 32'({vni_q[7:0], 8'h00}) + 32'({len_q, 1'b0})
           + SUM_CONST;
  end

  logic              p1_vlan, p1_csv;
  logic [15:0]       p1_type, p1_hmt, p1_len;
  logic [8*L3B-1:0]  p1_l3;
  logic [23:0]       p1_vni;
  logic [31:0]       p1_sum;

  always_ff @(posedge clk) begin
    if (p0_go) begin
      p1_vlan <= p0_vlan;
      p1_type <= p0_type;
      p1_l3   <= p0_l3;
      p1_hmt  <= p0_hmt;
      p1_sum  <= p0_sum;
      p1_vni  <= vni_q;
      p1_len  <= len_q;
      p1_csv  <= csv_q;
    end
  end

  function automatic logic [7:0] l3b(input logic [8*L3B-1:0] v, input int i);
    return v[8*i +: 8];
  endfunction

  // p1 -> p2
  logic        p1_is4, p1_is6, p1_p4ok, p1_p6ok, p1_ihl_ok;
  logic [15:0] p1_f4, p1_f6, p1_fp4, p1_fp6;
  logic [31:0] p1_ports4;
  always_comb begin
    p1_is4 = p1_type == fabnic_pkt_pkg::ETHERTYPE_IPV4 && l3b(p1_l3, 0)[7:4] == 4'd4;
    p1_is6 = p1_type == fabnic_pkt_pkg::ETHERTYPE_IPV6 && l3b(p1_l3, 0)[7:4] == 4'd6;
    // IPv4: addresses and protocol; ports at IHL*4 when inside the window
    p1_f4 = fold8(l3b(p1_l3, 9), O_PROTO);
    for (int i = 0; i < 4; i++) begin
      p1_f4 ^= fold8(l3b(p1_l3, 12 + i), O_SIP + 8 * (3 - i))
             ^ fold8(l3b(p1_l3, 16 + i), O_DIP + 8 * (3 - i));
    end
    p1_ports4 = '0;
    p1_ihl_ok = 1'b0;
    for (int ihl = 5; ihl < 16; ihl++) begin
      if (l3b(p1_l3, 0)[3:0] == 4'(ihl) && 4 * ihl + 4 <= L3B
          && (p1_vlan ? 18 : 14) + 4 * ihl + 4 <= WIN) begin
        p1_ihl_ok = 1'b1;
        for (int k = 0; k < 4; k++) begin
          if (4 * ihl + 4 <= L3B) p1_ports4[8*(3-k) +: 8] = l3b(p1_l3, 4 * ihl + k);
        end
      end
    end
    p1_fp4  = p1_ports4[31:16] ^ p1_ports4[15:0];
    p1_p4ok = (l3b(p1_l3, 9) == 8'd6 || l3b(p1_l3, 9) == 8'd17)
              && ({l3b(p1_l3, 6), l3b(p1_l3, 7)} & 16'h3FFF) == 16'h0000 && p1_ihl_ok;
    // IPv6: addresses and next header; ports right after the 40-byte header
    p1_f6 = fold8(l3b(p1_l3, 6), O_PROTO);
    for (int i = 0; i < 16; i++) begin
      p1_f6 ^= fold8(l3b(p1_l3, 8 + i), O_SIP + 8 * (15 - i))
             ^ fold8(l3b(p1_l3, 24 + i), O_DIP + 8 * (15 - i));
    end
    p1_fp6  = {l3b(p1_l3, 40), l3b(p1_l3, 41)} ^ {l3b(p1_l3, 42), l3b(p1_l3, 43)};
    p1_p6ok = l3b(p1_l3, 6) == 8'd6 || l3b(p1_l3, 6) == 8'd17;
  end

  logic        p2_is4, p2_is6, p2_p4ok, p2_p6ok, p2_csv;
  logic [15:0] p2_hmt, p2_f4, p2_f6, p2_fp4, p2_fp6, p2_len;
  logic [1:0]  p2_ecn4, p2_ecn6;
  logic [23:0] p2_vni;
  logic [31:0] p2_sum;

  always_ff @(posedge clk) begin
    if (p1_v_q) begin
      p2_is4  <= p1_is4;
      p2_is6  <= p1_is6;
      p2_p4ok <= p1_p4ok;
      p2_p6ok <= p1_p6ok;
      p2_hmt  <= p1_hmt;
      p2_f4   <= p1_f4;
      p2_f6   <= p1_f6;
      p2_fp4  <= p1_fp4;
      p2_fp6  <= p1_fp6;
      p2_ecn4 <= l3b(p1_l3, 1)[1:0];
      p2_ecn6 <= l3b(p1_l3, 1)[5:4];   // traffic class bits 1:0
      p2_sum  <= p1_sum;
      p2_vni  <= p1_vni;
      p2_len  <= p1_len;
      p2_csv  <= p1_csv;
    end
  end

  always_ff @(posedge clk) begin
    p1_v_q <= p0_go;
    p2_v_q <= p1_v_q;
    if (rst) begin
      p1_v_q <= 1'b0;
      p2_v_q <= 1'b0;
    end
  end

  // p2: flow hash
  logic [15:0] h16;
  logic [13:0] h14;
  logic [1:0]  in_ecn;
  always_comb begin
    h16    = p2_hmt;
    in_ecn = 2'b00;
    if (p2_is4) begin
      h16    ^= p2_f4 ^ (p2_p4ok ? p2_fp4 : 16'h0000);
      in_ecn  = p2_ecn4;
    end else if (p2_is6) begin
      h16    ^= p2_f6 ^ (p2_p6ok ? p2_fp6 : 16'h0000);
      in_ecn  = p2_ecn6;
    end
    h14 = h16[13:0] ^ {12'h000, h16[15:14]};
  end

  // ---------------------------------------------------------------- command
  typedef struct packed {
    logic                        drop;
    logic                        csum_en;
    logic [31:0]                 csum_part;  // UDP checksum terms except the source port
    fabnic_pkt_pkg::pkt_meta_t   meta;
    fabnic_pkt_pkg::vxlan_hdr_t  vxh;
  } cmd_t;

  cmd_t c_in, c;
  logic c_in_ready, c_valid, c_pop;
  logic [$clog2(CMD_DEPTH):0] unused_ccnt;

  assign lb_vni     = vni_q;
  assign lb_tun_sel = tsel_q;
  assign lb_tun     = tun_q;

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
    c_in.meta.payload_len    = p2_len + 16'(fabnic_pkt_pkg::VXLAN_HDR_BYTES);
    c_in.vxh.flags           = fabnic_vxlan_pkg::VXLAN_FLAG_I;
    c_in.vxh.vni             = p2_vni;
    c_in.csum_en             = p2_csv;
    c_in.csum_part           = p2_sum + 32'(rb_tsum);
  end

  assign pend_clr = p0_go;

  // credits: free command FIFO slots not yet claimed by a window in the pipeline (a
  // popped slot is returned one cycle later)
  logic c_pop_q;
  always_ff @(posedge clk) begin
    c_pop_q <= c_pop;
    cred_q  <= cred_q - ($bits(cred_q))'(p0_go) + ($bits(cred_q))'(c_pop_q);
    if (rst) begin
      c_pop_q <= 1'b0;
      cred_q  <= ($bits(cred_q))'(CMD_DEPTH);
    end
  end

  fabnic_fifo #(.WIDTH($bits(cmd_t)), .DEPTH(CMD_DEPTH)) u_cmd (
      .clk, .rst,
      .in_valid(p2_v_q), .in_ready(c_in_ready), .in_data(c_in),
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

  // ---------------------------------------------------------------- command head
  // The command FIFO's head is moved into a register (h_q) before it is acted on, so
  // the gate's decision (drop or send, what is done) starts from flops; the next
  // command is loaded in the cycle the current one is finished.
  cmd_t h_q;
  logic hv_q, h_pop, h_load;

  assign h_load = !hv_q || h_pop;
  assign c_pop  = c_valid && h_load;

  always_ff @(posedge clk) begin
    if (h_load) begin
      hv_q <= c_valid;
      h_q  <= c;
    end
    if (rst) hv_q <= 1'b0;
  end

  // ---------------------------------------------------------------- gate: drop or send
  // Decide, then act: the head command says drop or send; a sent frame's VXLAN header
  // goes to a skid register (x_*) and its metadata to the builder, each handshake
  // remembered in a done flag, and the frame's beats go to the header inserter through
  // a skid register (g_*). The frame's last beat passes only when both done flags are
  // set (registered), so the head is popped on the last beat alone: the pop, the FIFO's
  // read pointer and the head register start from flops and the skid registers' readies.
  // A one-beat frame thus takes two cycles (header and metadata, then the beat).
  logic ck_in_ready;
  logic hdr_done_q, meta_done_q;
  logic send, hdr_valid, hdr_ready, meta_valid, meta_ready, meta_fire;
  logic g_tvalid, g_tready, g_pass, d_last_fire;

  assign send        = hv_q && !h_q.drop;
  assign hdr_valid   = send && !hdr_done_q;
  assign meta_valid  = send && !meta_done_q && ck_in_ready;
  assign meta_fire   = meta_valid && meta_ready;
  assign g_pass      = !f_tlast || (hdr_done_q && meta_done_q);
  assign g_tvalid    = f_tvalid && send && g_pass;
  assign f_tready    = hv_q && (h_q.drop || (g_tready && g_pass));
  assign d_last_fire = f_tvalid && f_tready && f_tlast;
  assign h_pop       = d_last_fire;

  always_ff @(posedge clk) begin
    if (hdr_valid && hdr_ready) hdr_done_q <= 1'b1;
    if (meta_fire) meta_done_q <= 1'b1;
    if (h_pop) begin
      hdr_done_q  <= 1'b0;
      meta_done_q <= 1'b0;
    end
    if (rst) begin
      hdr_done_q  <= 1'b0;
      meta_done_q <= 1'b0;
    end
  end

  localparam int XH_W = 8 * fabnic_pkt_pkg::VXLAN_HDR_BYTES;

  logic [DATA_W-1:0] g_tdata;
  logic [KEEP_W-1:0] g_tkeep;
  logic              gq_tvalid, gq_tready, g_tlast, g_tuser;

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_gsk (
      .clk, .rst,
      .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(g_tvalid),
      .s_axis_tready(g_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
      .m_axis_tdata(g_tdata), .m_axis_tkeep(g_tkeep), .m_axis_tvalid(gq_tvalid),
      .m_axis_tready(gq_tready), .m_axis_tlast(g_tlast), .m_axis_tuser(g_tuser)
  );

  logic [XH_W-1:0]   x_tdata;
  logic [XH_W/8-1:0] unused_x_tkeep;
  logic              x_tvalid, x_tready, unused_x_tlast, unused_x_tuser;

  fabnic_axis_register #(.DATA_W(XH_W), .KEEP_W(XH_W / 8), .USER_W(1), .REG_TYPE(2)) u_xsk (
      .clk, .rst,
      .s_axis_tdata(h_q.vxh), .s_axis_tkeep('1), .s_axis_tvalid(hdr_valid),
      .s_axis_tready(hdr_ready), .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata(x_tdata), .m_axis_tkeep(unused_x_tkeep), .m_axis_tvalid(x_tvalid),
      .m_axis_tready(x_tready), .m_axis_tlast(unused_x_tlast), .m_axis_tuser(unused_x_tuser)
  );

  logic [DATA_W-1:0] i_tdata;
  logic [KEEP_W-1:0] i_tkeep;
  logic              i_tvalid, i_tready, i_tlast, i_tuser;

  fabnic_axis_hdr_insert #(.DATA_W(DATA_W), .KEEP_W(KEEP_W),
                           .HDR_BYTES(fabnic_pkt_pkg::VXLAN_HDR_BYTES),
                           .HDR_READY_REG(1'b1)) u_vxh (
      .clk, .rst,
      .s_hdr_tdata(x_tdata), .s_hdr_len(4'(fabnic_pkt_pkg::VXLAN_HDR_BYTES)),
      .s_hdr_tvalid(x_tvalid), .s_hdr_tready(x_tready),
      .s_axis_tdata(g_tdata), .s_axis_tkeep(g_tkeep), .s_axis_tvalid(gq_tvalid),
      .s_axis_tready(gq_tready), .s_axis_tlast(g_tlast), .s_axis_tuser(g_tuser),
      .m_axis_tdata(i_tdata), .m_axis_tkeep(i_tkeep), .m_axis_tvalid(i_tvalid),
      .m_axis_tready(i_tready), .m_axis_tlast(i_tlast), .m_axis_tuser(i_tuser)
  );

  logic [CNT_W-1:0] b_frames;
  logic [DATA_W-1:0] b_tdata;
  logic              b_tvalid, b_tready;

  fabnic_pkt_builder #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .CNT_W(CNT_W)) u_build (
      .clk, .rst,
      .s_meta_data(h_q.meta), .s_meta_valid(meta_valid), .s_meta_ready(meta_ready),
      .s_axis_tdata(i_tdata), .s_axis_tkeep(i_tkeep), .s_axis_tvalid(i_tvalid),
      .s_axis_tready(i_tready), .s_axis_tlast(i_tlast), .s_axis_tuser(i_tuser),
      .m_axis_tdata(b_tdata), .m_axis_tkeep, .m_axis_tvalid(b_tvalid), .m_axis_tready(b_tready),
      .m_axis_tlast, .m_axis_tuser, .cnt_frames(b_frames), .cnt_len_mismatch
  );
  assign cnt_frames_out = b_frames;

  // ---------------------------------------------------------------- UDP checksum patch
  // The builder writes checksum 0; the checksum of each frame replaces bytes 40..41
  // (IPv4) / 60..61 (IPv6) of the outer frame. It is finished after the frame's
  // metadata enters the builder (cycle m: + source port, first carry fold, registered;
  // m + 1: second fold, registered; m + 2: complement, 0 -> 0xFFFF, queued), so it is
  // queued from m + 3 on: the builder's first output beat of that frame comes 5 cycles
  // after the metadata at the earliest (fabnic_pkt_builder latency), so the output never
  // waits for it (checked by an assertion). A metadata handshake takes a credit (a free checksum
  // FIFO slot, returned one cycle after the frame's last beat).
  // frames whose checksum is queued, from the metadata handshake to the frame's last
  // output beat: about 11 cycles for a two-beat outer frame, one such frame every 2
  // cycles, so 8 entries keep the output busy
  localparam int CK_DEPTH = 8;

  typedef struct packed {
    logic        en;
    logic        v6;
    logic [15:0] csum;
  } ck_t;
  ck_t ck_in, ck;
  logic ck_valid, ck_pop, ck_pop_q, ck_ne_q;
  logic [$clog2(CK_DEPTH+1)-1:0] ck_n_q;   // entries in u_ck
  logic [$clog2(CK_DEPTH):0] unused_ckcnt;
  logic unused_ck_ready;
  logic [$clog2(CK_DEPTH+1)-1:0] ck_cred_q;
  logic [15:0] obeat_q;

  logic        k1_v_q, k1_en_q, k1_v6_q;
  logic [16:0] k1_cf_q;
  logic [15:0] k_cf2;
  logic        k2_v_q, k2_en_q, k2_v6_q;
  logic [15:0] k2_cf_q;
  logic [31:0] k_cs;
  logic [16:0] k_cf1;
  always_comb begin
    k_cs  = h_q.csum_part + 32'(h_q.meta.src_port);
    k_cf1 = 17'(k_cs[31:16]) + 17'(k_cs[15:0]);
  end

  always_ff @(posedge clk) begin
    if (meta_fire) begin
      k1_en_q <= h_q.csum_en;
      k1_v6_q <= h_q.meta.is_ipv6;
      k1_cf_q <= k_cf1;
    end
    k1_v_q    <= meta_fire;
    if (k1_v_q) begin
      k2_en_q <= k1_en_q;
      k2_v6_q <= k1_v6_q;
      k2_cf_q <= k_cf2;
    end
    k2_v_q    <= k1_v_q;
    ck_pop_q  <= ck_pop;
    ck_cred_q <= ck_cred_q - ($bits(ck_cred_q))'(meta_fire) + ($bits(ck_cred_q))'(ck_pop_q);
    // occupancy of u_ck kept here so that its "not empty" is a register
    ck_n_q    <= ck_n_q + ($bits(ck_n_q))'(k2_v_q) - ($bits(ck_n_q))'(ck_pop);
    ck_ne_q   <= (ck_n_q + ($bits(ck_n_q))'(k2_v_q) - ($bits(ck_n_q))'(ck_pop)) != '0;
    if (rst) begin
      k1_v_q    <= 1'b0;
      k2_v_q    <= 1'b0;
      ck_pop_q  <= 1'b0;
      ck_cred_q <= ($bits(ck_cred_q))'(CK_DEPTH);
      ck_n_q    <= '0;
      ck_ne_q   <= 1'b0;
    end
  end

  assign k_cf2     = k1_cf_q[15:0] + 16'(k1_cf_q[16]);
  assign ck_in     = '{en: k2_en_q, v6: k2_v6_q,
                       csum: k2_cf_q == 16'hFFFF ? 16'hFFFF : ~k2_cf_q};
  assign ck_pop    = b_tvalid && b_tready && m_axis_tlast;
  assign ck_in_ready = ck_cred_q != '0;

  fabnic_fifo #(.WIDTH($bits(ck_t)), .DEPTH(CK_DEPTH)) u_ck (
      .clk, .rst,
      .in_valid(k2_v_q), .in_ready(unused_ck_ready), .in_data(ck_in),
      .out_valid(ck_valid), .out_ready(ck_pop && ck_ne_q),
      .out_data(ck), .status_count(unused_ckcnt)
  );

  assign m_axis_tvalid = b_tvalid;
  assign b_tready      = m_axis_tready;

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
    if (h_pop && h_q.drop) cnt_drop_no_vni <= cnt_drop_no_vni + 1'b1;
    if (rst) begin
      cnt_frames_in   <= '0;
      cnt_drop_no_vni <= '0;
    end
  end


`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (ck_ne_q == ck_valid) else $error("fabnic_vxlan_encap: checksum occupancy");
      assert (!k2_v_q || ck_n_q != ($bits(ck_n_q))'(CK_DEPTH))
        else $error("fabnic_vxlan_encap: checksum FIFO overflow");
      assert (!b_tvalid || ck_ne_q) else $error("fabnic_vxlan_encap: frame before its checksum");
    end
  end
`endif

  logic unused_bits;
  assign unused_bits = ^{c_in_ready, ck_valid, w};

endmodule

`resetall
