// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_rx_filter: station filter of the RoCE receive front (fabnic_roce_rx).
//
// Passes the frames addressed to this NIC's RoCEv2 transport and drops the others,
// each counted under one reason, decided on the frame's first beat (DATA_W >= 512 holds
// every header it needs), in this order:
//   dst_mac   cfg_rx_filter bit 0 set and the destination MAC is not cfg_local_mac;
//             broadcast passes only with bit 1, other multicast (I/G bit) with bit 2
//   not_roce  not IPv4 with version 4 and IHL 5 nor IPv6 with version 6 (after at most
//             one 802.1Q tag), not UDP, or UDP destination port not 4791
//   dst_ip    destination address not cfg_local_ip (IPv4: bits 31:0)
//   ip_frag   IPv4 with MF set or a fragment offset
// cnt_frames counts every frame in. Bytes beyond tkeep read as zero. A passing frame of
// one beat is cut at its IP length (Ethernet padding: the ICRC is then its last 4
// bytes); longer frames pass unchanged. tuser passes through.
//
// Pipeline: input skid slice (both directions registered at s_axis), stage A (field
// compares at both L3 offsets 14 and 18, both registered with the VLAN flag), stage B
// (one offset's flags selected by the VLAN flag, the frame's verdict, the trim). Counters count stage B's
// registered verdict a cycle later. m_axis_tready reaches the slice's output handshake
// and the two stage enables combinationally, inside this module only; s_axis_tready is
// a flop. Latency 3 cycles, one beat per cycle.
`default_nettype none

module fabnic_roce_rx_filter #(
    parameter int DATA_W = 512,   // >= 512: every header in the first beat
    parameter int KEEP_W = DATA_W / 8,
    parameter int CNT_W  = 32
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [127:0]        cfg_local_ip,
    input  wire logic [47:0]         cfg_local_mac,
    input  wire logic [2:0]          cfg_rx_filter,

    input  wire logic [DATA_W-1:0]   s_axis_tdata,
    input  wire logic [KEEP_W-1:0]   s_axis_tkeep,
    input  wire logic                s_axis_tvalid,
    output logic                     s_axis_tready,
    input  wire logic                s_axis_tlast,
    input  wire logic                s_axis_tuser,

    output logic      [DATA_W-1:0]   m_axis_tdata,
    output logic      [KEEP_W-1:0]   m_axis_tkeep,
    output logic                     m_axis_tvalid,
    input  wire logic                m_axis_tready,
    output logic                     m_axis_tlast,
    output logic                     m_axis_tuser,

    output logic      [CNT_W-1:0]    cnt_frames,
    output logic      [CNT_W-1:0]    cnt_drop_dst_mac,
    output logic      [CNT_W-1:0]    cnt_drop_not_roce,
    output logic      [CNT_W-1:0]    cnt_drop_dst_ip,
    output logic      [CNT_W-1:0]    cnt_drop_ip_frag
);

  if (KEEP_W < 64 || KEEP_W * 8 != DATA_W) begin : g_chk_width
    $error("fabnic_roce_rx_filter: DATA_W must be >= 512 and KEEP_W = DATA_W / 8");
  end

  function automatic logic [15:0] be16(input logic [DATA_W-1:0] d, input int off);
    return {d[8*off +: 8], d[8*(off+1) +: 8]};
  endfunction

  function automatic logic [31:0] be32(input logic [DATA_W-1:0] d, input int off);
    return {be16(d, off), be16(d, off + 2)};
  endfunction

  function automatic logic [127:0] be128(input logic [DATA_W-1:0] d, input int off);
    logic [127:0] v;
    for (int i = 0; i < 16; i++) v[8*(15-i) +: 8] = d[8*(off+i) +: 8];
    return v;
  endfunction

  // ---------------------------------------------------------------- input slice
  logic [DATA_W-1:0] r_tdata;
  logic [KEEP_W-1:0] r_tkeep;
  logic              r_tvalid, r_tready, r_tlast;
  logic [0:0]        r_tuser;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .REG_TYPE(2)) u_in (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser(s_axis_tuser),
      .m_axis_tdata(r_tdata), .m_axis_tkeep(r_tkeep), .m_axis_tvalid(r_tvalid),
      .m_axis_tready(r_tready), .m_axis_tlast(r_tlast), .m_axis_tuser(r_tuser)
  );

  // ---------------------------------------------------------------- station filter
  // Stage A: compares on the beat, the L3 fields taken at both offsets (14 and 18),
  // each offset's flags registered. Stage B: the VLAN EtherType selects one offset's
  // flags, the frame's outcome (first beat), the single-beat trim, the counters.
  typedef struct packed {
    logic        roce4;        // IPv4, IHL 5, UDP, port 4791
    logic        roce6;        // IPv6, UDP, port 4791
    logic        v4;
    logic        dip4;
    logic [7:0]  dip6;         // 16-bit groups of the IPv6 destination equal (ANDed in B)
    logic        frag4;
  } l3f_t;

  typedef struct packed {
    logic        mac_uni, mac_bcast, mac_mcast;
    logic        vlan;         // EtherType 0x8100 at byte 12: the L3 header at 18
    l3f_t        f14, f18;     // flags with the L3 header at byte 14 / 18
    logic        end_hi;       // the IP datagram ends at or beyond byte 64
    logic [5:0]  end_lo;       // ... else at this byte offset
  } cls_t;

  // v + base (mod 2^16) >= 64, for a constant base in 1..63
  function automatic logic in_range(input logic [15:0] v, input logic [5:0] lo);
    logic nz_hi, ones_hi;
    nz_hi   = v[15:6] != '0;
    ones_hi = v[15:6] == '1;
    // v >= lo (lo < 64) and not v >= 65536 - base (= 0xFFC0 + lo)
    return (nz_hi || v[5:0] >= lo) && !(ones_hi && v[5:0] >= lo);
  endfunction

  function automatic l3f_t l3f_at(input logic [DATA_W-1:0] d, input int l3,
                                  input logic [127:0] ip);
    l3f_t c;
    logic v6;
    c.v4    = be16(d, l3 - 2) == 16'h0800 && d[8*l3 + 4 +: 4] == 4'd4;
    v6      = be16(d, l3 - 2) == 16'h86DD && d[8*l3 + 4 +: 4] == 4'd6;
    c.roce4 = c.v4 && d[8*l3 +: 4] == 4'd5 && d[8*(l3+9) +: 8] == 8'd17
              && be16(d, l3 + 22) == 16'd4791;
    c.roce6 = v6 && d[8*(l3+6) +: 8] == 8'd17 && be16(d, l3 + 42) == 16'd4791;
    c.dip4  = be32(d, l3 + 16) == ip[31:0];
    for (int g = 0; g < 8; g++)
      c.dip6[g] = be128(d, l3 + 24)[16*g +: 16] == ip[16*g +: 16];
    c.frag4 = d[8*(l3+6) + 5] || d[8*(l3+6) +: 5] != '0 || d[8*(l3+7) +: 8] != '0;
    return c;
  endfunction

  // IP end (L3 offset + header bytes outside the length field + length, modulo 2^16):
  // {end >= 64, end mod 64}. "end >= 64" is the length field in [64 - base,
  // 65535 - base], written without an adder. IPv4 or IPv6 is chosen by one bit of the
  // EtherType's first byte (0x08 or 0x86), which is all a passing frame needs (below).
  function automatic logic [6:0] end_at(input logic [DATA_W-1:0] d, input int l3);
    logic [15:0] len4, len6;
    len4 = be16(d, l3 + 2);
    len6 = be16(d, l3 + 4);
    if (d[8*(l3-2) + 7])
      return {in_range(len6, 6'(64 - (l3 + 40))), len6[5:0] + 6'(l3 + 40)};
    return {in_range(len4, 6'(64 - l3)), len4[5:0] + 6'(l3)};
  endfunction

  // bytes beyond tkeep read as zero, so a frame shorter than its headers is judged
  // on its own bytes only (the first 64 bytes hold every header field read)
  localparam int MAC_CH = 16;   // 3-bit chunks of the 48-bit destination MAC
  logic [DATA_W-1:0] r_masked;
  (* keep *) logic [MAC_CH-1:0] mac_ch;
  (* keep *) logic [2:0]        mac_grp;
  (* keep *) logic [3:0]        vlan_ch;  // the masked EtherType at byte 12 is 0x8100
  cls_t cls_a;
  logic [47:0] mac_be;
  always_comb begin
    r_masked = '0;
    for (int i = 0; i < 64; i++) r_masked[8*i +: 8] = r_tdata[8*i +: 8] & {8{r_tkeep[i]}};
    cls_a.f14 = l3f_at(r_masked, 14, cfg_local_ip);
    cls_a.f18 = l3f_at(r_masked, 18, cfg_local_ip);
    vlan_ch[0] = r_tdata[8*12 +: 6] == 6'h01;
    vlan_ch[1] = r_tkeep[12] && r_tdata[8*12 + 6 +: 2] == 2'b10;
    vlan_ch[2] = !r_tkeep[13] || r_tdata[8*13 +: 4] == '0;
    vlan_ch[3] = !r_tkeep[13] || r_tdata[8*13 + 4 +: 4] == '0;
    cls_a.vlan = &vlan_ch;
    // the end fields are read only for a passing frame (the trim of stage B; a dropped
    // frame never reaches m_axis), whose byte 12 is 0x81 (VLAN), 0x08 or 0x86 (IPv4 or
    // IPv6 EtherType): its bit 0 alone picks the L3 offset, off the EtherType compare
    {cls_a.end_hi, cls_a.end_lo} = r_masked[8*12] ? end_at(r_masked, 18)
                                                  : end_at(r_masked, 14);
    mac_be = {cfg_local_mac[7:0], cfg_local_mac[15:8], cfg_local_mac[23:16],
              cfg_local_mac[31:24], cfg_local_mac[39:32], cfg_local_mac[47:40]};
    for (int j = 0; j < MAC_CH; j++) mac_ch[j] = r_masked[3*j +: 3] == mac_be[3*j +: 3];
    for (int g = 0; g < 3; g++) begin
      mac_grp[g] = 1'b1;
      for (int j = 6 * g; j < 6 * g + 6 && j < MAC_CH; j++) mac_grp[g] &= mac_ch[j];
    end
    cls_a.mac_uni   = &mac_grp;
    cls_a.mac_bcast = r_masked[47:0] == '1;
    cls_a.mac_mcast = r_masked[0];
  end

  typedef enum logic [2:0] {
    SF_PASS, SF_DST_MAC, SF_NOT_ROCE, SF_DST_IP, SF_IP_FRAG
  } sf_e;

  // stage registers
  logic              a_valid_q, a_first_q, first_in_q;
  logic [DATA_W-1:0] a_tdata_q;
  logic [KEEP_W-1:0] a_tkeep_q;
  logic              a_tlast_q, a_tuser_q;
  cls_t              a_cls_q;
  logic              b_valid_q, b_pass_q, keep_q;
  logic [DATA_W-1:0] b_tdata_q;
  logic [KEEP_W-1:0] b_tkeep_q;
  logic              b_tlast_q, b_tuser_q;
  logic              b_new_q;      // a frame's first beat entered stage B
  sf_e               b_reason_q;

  logic c_tready, en;
  assign c_tready = m_axis_tready;
  assign en       = !b_valid_q || !b_pass_q || c_tready;
  assign r_tready = en;

  // stage B decision from stage A's flags
  logic mac_ok, is_roce, dip_ok, frag;
  l3f_t l3f;
  sf_e  sf;
  logic [KEEP_W-1:0] keep_trim;
  always_comb begin
    l3f     = a_cls_q.vlan ? a_cls_q.f18 : a_cls_q.f14;
    mac_ok  = !cfg_rx_filter[0] || a_cls_q.mac_uni
              || (a_cls_q.mac_bcast ? cfg_rx_filter[1] : (a_cls_q.mac_mcast && cfg_rx_filter[2]));
    is_roce = l3f.roce4 || l3f.roce6;
    dip_ok  = l3f.v4 ? l3f.dip4 : &l3f.dip6;
    frag    = l3f.v4 && l3f.frag4;
    if (!mac_ok)       sf = SF_DST_MAC;
    else if (!is_roce) sf = SF_NOT_ROCE;
    else if (!dip_ok)  sf = SF_DST_IP;
    else if (frag)     sf = SF_IP_FRAG;
    else               sf = SF_PASS;
    // a single-beat frame is cut at its IP end (Ethernet padding)
    // (lanes 64 and up of a wider beat: the end offset's high bits decide)
    keep_trim = a_tkeep_q;
    if (a_first_q && a_tlast_q && !a_cls_q.end_hi)
      for (int i = 0; i < KEEP_W; i++)
        if (i >= 64 || a_cls_q.end_lo <= 6'(i)) keep_trim[i] = 1'b0;
  end

  always_ff @(posedge clk) begin
    b_new_q <= 1'b0;
    if (en) begin
      a_valid_q <= r_tvalid;
      if (r_tvalid) begin
        a_tdata_q  <= r_tdata;
        a_tkeep_q  <= r_tkeep;
        a_tlast_q  <= r_tlast;
        a_tuser_q  <= r_tuser[0];
        a_cls_q    <= cls_a;
        a_first_q  <= first_in_q;
        first_in_q <= r_tlast;
      end
      b_valid_q <= a_valid_q;
      if (a_valid_q) begin
        b_tdata_q <= a_tdata_q;
        b_tkeep_q <= keep_trim;
        b_tlast_q <= a_tlast_q;
        b_tuser_q <= a_tuser_q;
        if (a_first_q) begin
          b_pass_q   <= sf == SF_PASS;
          keep_q     <= sf == SF_PASS;
          b_new_q    <= 1'b1;
        end else begin
          b_pass_q <= keep_q;
        end
      end
    end
    // b_reason_q is read only in the cycle after b_new_q rises, and it was loaded at
    // that same edge from the same stage A beat: loading it every cycle keeps the
    // stage enable off its path
    b_reason_q <= sf;
    if (rst) begin
      a_valid_q  <= 1'b0;
      b_valid_q  <= 1'b0;
      first_in_q <= 1'b1;
      b_new_q    <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (b_new_q) begin
      cnt_frames <= cnt_frames + 1'b1;
      unique case (b_reason_q)
        SF_DST_MAC:  cnt_drop_dst_mac  <= cnt_drop_dst_mac + 1'b1;
        SF_NOT_ROCE: cnt_drop_not_roce <= cnt_drop_not_roce + 1'b1;
        SF_DST_IP:   cnt_drop_dst_ip   <= cnt_drop_dst_ip + 1'b1;
        SF_IP_FRAG:  cnt_drop_ip_frag  <= cnt_drop_ip_frag + 1'b1;
        default: ;
      endcase
    end
    if (rst) begin
      cnt_frames        <= '0;
      cnt_drop_dst_mac  <= '0;
      cnt_drop_not_roce <= '0;
      cnt_drop_dst_ip   <= '0;
      cnt_drop_ip_frag  <= '0;
    end
  end

  assign m_axis_tdata  = b_tdata_q;
  assign m_axis_tkeep  = b_tkeep_q;
  assign m_axis_tvalid = b_valid_q && b_pass_q;
  assign m_axis_tlast  = b_tlast_q;
  assign m_axis_tuser  = b_tuser_q;

endmodule

`resetall
