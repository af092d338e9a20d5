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
// A payload of one beat with tkeep=0 means an empty payload. Payload tkeep is packed
// from lane 0 (partial only on a last beat); output bytes with tkeep=0 are zero.
//
// The header is one of ten lengths (14/18 bytes of Ethernet [+ tag], + 0, 20, 28, 40
// or 48), so the payload's lane shift h = length mod KEEP_W is one of at most ten
// values, known per frame as a one-hot select: the payload rotation is an AND-OR
// over those values, not a barrel shifter. (All ten lengths are 2 mod 4, so h is
// never 0 for KEEP_W >= 4.)
//
// Structure (every register-to-register path at most 6 logic levels at DATA_W 512;
// s_meta_ready depends on three flops only, s_axis_tready and m_axis_* are flops; no
// handshake input reaches a handshake output):
//   header side, one metadata record per cycle:
//     M1  input register (s_meta_ready = M1 empty or M2 ready).
//     M2  register: the header image in lane order with the IPv4 checksum bytes
//         zero, the per-frame shift (one-hot h, lanes below h, full header beats),
//         the expected payload length, the IPv4 checksum words summed two by two.
//     M3  skid register (its ready toward M2 is a flop): the same with the four
//         sums added into one 19-bit sum.
//   payload side and join:
//     P   skid register (fabnic_axis_register REG_TYPE 2) for the payload, bytes with
//         tkeep=0 cleared. A frame's first beat leaves P only together with its
//         header from M3.
//     D   register: the beat rotated up by h, its tkeep rotated, its byte count, the
//         flush decision (last beat with more than KEEP_W-h bytes); with a first beat
//         the frame's header image, the checksum folded (ones' complement) and placed
//         into it, its full header beat count and lane mask.
//     A   act: the full header beats, then one merged beat per D beat (lanes below h
//         from the residual: the header's tail, then the previous beat's top bytes;
//         the rest from the rotated beat), then the flush beat, into the output skid
//         register (fabnic_axis_register REG_TYPE 2). The length check runs here: the
//         bytes still expected against the last beat's count.
// Counters: updated one cycle after the frame's last beat leaves D.
// Latency: payload beat in -> out 3 cycles (P, D, output register); metadata
// accepted -> the frame's first beat can leave P 3 cycles later (M1, M2, M3), so a
// frame whose metadata and first payload beat arrive together leaves 5 cycles after
// them. One output beat per cycle (a frame is ceil((header + payload) / KEEP_W)
// beats): one-beat frames leave one per cycle.
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
  localparam int S_W    = $clog2(KEEP_W);
  localparam int N_W    = S_W + 1;                      // byte count of a beat, 0..KEEP_W
  localparam int HBM    = (HMAX + KEEP_W - 1) / KEEP_W; // beats of the header image
  localparam int HB_W   = $clog2(HBM + 1);
  localparam int HQ_W   = HBM * DATA_W;
  localparam int CK_LO  = 14 + 10;                      // IPv4 checksum offset, untagged
  localparam int CK_HI  = 18 + 10;                      // IPv4 checksum offset, tagged
  localparam int NKIND  = 10;                           // header lengths

  if (UDP_CSUM) begin : g_check_csum
    $error("fabnic_pkt_builder: UDP_CSUM=1 (store-and-forward checksum) is not implemented");
  end
  if (KEEP_W < 4 || (1 << S_W) != KEEP_W || DATA_W != 8 * KEEP_W) begin : g_check_w
    $error("fabnic_pkt_builder: KEEP_W must be a power of two >= 4 and DATA_W = 8*KEEP_W");
  end

  // header length of kind i: Ethernet (14) or tagged (18), then nothing, IPv4, IPv4+UDP,
  // IPv6, IPv6+UDP
  function automatic int kind_len(input int i);
    int l3;
    case (i % 5)
      0: l3 = 0;
      1: l3 = 20;
      2: l3 = 28;
      3: l3 = 40;
      default: l3 = 48;
    endcase
    return ((i >= 5) ? 18 : 14) + l3;
  endfunction

  // the distinct lane shifts (length mod KEEP_W): how many, and the idx-th
  function automatic bit h_first(input int i);
    bit f;
    f = 1'b1;
    for (int j = 0; j < i; j++) begin
      if (kind_len(j) % KEEP_W == kind_len(i) % KEEP_W) f = 1'b0;
    end
    return f;
  endfunction

  function automatic int h_count();
    int n;
    n = 0;
    for (int i = 0; i < NKIND; i++) n += int'(h_first(i));
    return n;
  endfunction

  function automatic int h_val(input int idx);
    int n, v;
    n = 0;
    v = 0;
    for (int i = 0; i < NKIND; i++) begin
      if (h_first(i)) begin
        if (n == idx) v = kind_len(i) % KEEP_W;
        n++;
      end
    end
    return v;
  endfunction

  localparam int NH = h_count();

  function automatic logic [HW-1:0] to_lane(input logic [HW-1:0] v, input int nbytes);
    // network-order value in the low nbytes bytes -> lane order (first byte in lane 0)
    logic [HW-1:0] r;
    r = '0;
    for (int i = 0; i < HMAX; i++) begin
      if (i < nbytes) r[8*i +: 8] = v[8*(nbytes-1-i) +: 8];
    end
    return r;
  endfunction

  // byte count of a beat whose tkeep is packed from lane 0: the position of its last
  // set bit (edge detect, no adder)
  function automatic logic [N_W-1:0] count_of(input logic [KEEP_W-1:0] k);
    logic [N_W-1:0] c;
    c = {k[KEEP_W-1], {S_W{1'b0}}};
    for (int i = 1; i < KEEP_W; i++) c = c | ({N_W{k[i-1] & !k[i]}} & N_W'(i));
    return c;
  endfunction

  function automatic logic [DATA_W-1:0] bits_of(input logic [KEEP_W-1:0] k);
    logic [DATA_W-1:0] b;
    for (int i = 0; i < KEEP_W; i++) b[8*i +: 8] = {8{k[i]}};
    return b;
  endfunction

  typedef struct packed {
    logic [HW-1:0]     lane;    // header in lane order, IPv4 checksum bytes zero
    logic [1:0]        ckpos;   // IPv4 checksum at CK_LO (bit 0) / CK_HI (bit 1)
    logic [NH-1:0]     hoh;     // lane shift h, one-hot over the distinct values
    logic [KEEP_W-1:0] selh;    // lanes below h
    logic [HB_W-1:0]   hb;      // full header beats
    logic [16:0]       plen;    // payload bytes expected: payload_len - TRAILER_BYTES
    logic              chk;     // IP frame: the payload length is checked
  } hdr_t;

  // ---------------------------------------------------------------- M1: input register
  fabnic_pkt_pkg::pkt_meta_t m1_q;
  logic                      m1_v_q, m2_v_q, m2_ready, m3_rdy_q;

  assign m2_ready     = !m2_v_q || m3_rdy_q;
  assign s_meta_ready = !m1_v_q || m2_ready;

  always_ff @(posedge clk) begin
    if (s_meta_ready) begin
      m1_v_q <= s_meta_valid;
      m1_q   <= s_meta_data;
    end
    if (rst) m1_v_q <= 1'b0;
  end

  // ---------------------------------------------------------------- M2: image, partial sums
  hdr_t              m2_d, m2_q;
  logic [16:0]       m2_sum_d [4], m2_sum_q [4];   // checksum: four 2-word sums
  logic [HLEN_W-1:0] hlen;
  logic [NH-1:0]     m2_hoh;
  logic              unused_md;

  // fields the builder does not take from the metadata (it computes or fixes them)
  assign unused_md = ^{m1_q.udp_checksum, m1_q.ip_frag, m1_q.l3_offset, m1_q.l4_offset,
                       m1_q.payload_offset, m1_q.err};

  always_comb begin
    fabnic_pkt_pkg::ipv4_hdr_t ip4;
    fabnic_pkt_pkg::ipv6_hdr_t ip6;
    fabnic_pkt_pkg::udp_hdr_t  udp;
    logic [HW-1:0] post;   // from the EtherType on: EtherType, IP header, UDP header
    logic          v4, v6, is_ip, is_udp, vlan;
    logic [15:0]   l4_len, tot_len, etype;
    logic [7:0]    proto;

    vlan   = m1_q.vlan_valid;
    v4     = m1_q.is_ipv4;
    v6     = !m1_q.is_ipv4 && m1_q.is_ipv6;
    is_ip  = v4 || v6;
    is_udp = is_ip && m1_q.is_udp;
    l4_len  = m1_q.payload_len + (is_udp ? 16'd8 : 16'd0);
    tot_len = m1_q.payload_len + (is_udp ? 16'd28 : 16'd20);
    proto   = is_udp ? fabnic_pkt_pkg::IP_PROTO_UDP : m1_q.ip_proto;
    etype   = v4 ? fabnic_pkt_pkg::ETHERTYPE_IPV4 :
              (v6 ? fabnic_pkt_pkg::ETHERTYPE_IPV6 : m1_q.ethertype);

    udp = '{src_port: m1_q.src_port, dst_port: m1_q.dst_port, length: l4_len, checksum: 16'h0};

    ip4 = '0;
    ip4.version      = 4'd4;
    ip4.ihl          = 4'd5;
    ip4.dscp         = m1_q.dscp;
    ip4.ecn          = m1_q.ecn;
    ip4.total_length = tot_len;
    ip4.flags        = 3'b010;
    ip4.ttl          = m1_q.ttl;
    ip4.protocol     = proto;
    ip4.src_ip       = m1_q.src_ip[31:0];
    ip4.dst_ip       = m1_q.dst_ip[31:0];

    ip6 = '{version: 4'd6, dscp: m1_q.dscp, ecn: m1_q.ecn, flow_label: m1_q.flow_label,
            payload_length: l4_len, next_header: proto, hop_limit: m1_q.ttl,
            src_ip: m1_q.src_ip, dst_ip: m1_q.dst_ip};

    post = to_lane(HW'(etype), 2);
    if (v4) post |= to_lane(HW'(ip4), 20) << (8 * 2);
    if (v6) post |= to_lane(HW'(ip6), 40) << (8 * 2);
    if (is_udp && v4) post |= to_lane(HW'(udp), 8) << (8 * 22);
    if (is_udp && v6) post |= to_lane(HW'(udp), 8) << (8 * 42);

    m2_d.lane = to_lane(HW'({m1_q.dst_mac, m1_q.src_mac}), 12);
    if (vlan) begin
      m2_d.lane |= to_lane(HW'({fabnic_pkt_pkg::ETHERTYPE_VLAN, m1_q.vlan_pcp, 1'b0,
                                m1_q.vlan_vid}), 4) << (8 * 12);
      m2_d.lane |= post << (8 * 16);
    end else begin
      m2_d.lane |= post << (8 * 12);
    end
    for (int l = 0; l < KEEP_W; l++) m2_d.selh[l] = S_W'(l) < hlen[S_W-1:0];
    m2_d.hb    = HB_W'(hlen >> S_W);
    m2_d.hoh   = m2_hoh;
    m2_d.plen  = {1'b0, m1_q.payload_len} - 17'(TRAILER_BYTES);
    m2_d.chk   = is_ip;
    m2_d.ckpos = {v4 && vlan, v4 && !vlan};

    // IPv4 checksum words, two by two: {4'h4, 4'h5, dscp, ecn} + 16'h4000 (flags DF)
    // is {8'h85, dscp, ecn}; identification, fragment offset and the checksum are 0
    m2_sum_d[0] = {9'h085, m1_q.dscp, m1_q.ecn} + {1'b0, m1_q.ttl, proto};
    m2_sum_d[1] = {1'b0, tot_len};
    m2_sum_d[2] = 17'(m1_q.src_ip[31:16]) + 17'(m1_q.src_ip[15:0]);
    m2_sum_d[3] = 17'(m1_q.dst_ip[31:16]) + 17'(m1_q.dst_ip[15:0]);
  end

  // header length: a function of the four flags (vlan, IPv4, IPv6, UDP)
  always_comb begin
    logic v4, v6, is_udp;
    v4     = m1_q.is_ipv4;
    v6     = !m1_q.is_ipv4 && m1_q.is_ipv6;
    is_udp = (v4 || v6) && m1_q.is_udp;
    hlen   = HLEN_W'(m1_q.vlan_valid ? 18 : 14) + HLEN_W'(v4 ? 20 : (v6 ? 40 : 0)) +
             HLEN_W'(is_udp ? 8 : 0);
  end

  for (genvar k = 0; k < NH; k++) begin : g_hoh
    assign m2_hoh[k] = hlen[S_W-1:0] == S_W'(h_val(k));
  end

  always_ff @(posedge clk) begin
    if (m2_ready) begin
      m2_v_q   <= m1_v_q;
      m2_q     <= m2_d;
      m2_sum_q <= m2_sum_d;
    end
    if (rst) m2_v_q <= 1'b0;
  end

  // ---------------------------------------------------------------- M3: checksum sum
  // A skid register (m3_rdy_q, its ready, comes from a flop): the 19-bit sum of the
  // checksum words beside the header; stage D folds it when it takes the header.
  hdr_t        m3_q, m3_sk_q;
  logic [18:0] m3_sum_d, m3_sum_q, m3_sk_sum_q;
  logic        m3_v_q, m3_sk_v_q, hdr_take;

  assign m3_sum_d = (19'(m2_sum_q[0]) + 19'(m2_sum_q[1])) +
                    (19'(m2_sum_q[2]) + 19'(m2_sum_q[3]));

  always_ff @(posedge clk) begin
    if (m3_sk_v_q) begin
      if (hdr_take) begin
        m3_q      <= m3_sk_q;
        m3_sum_q  <= m3_sk_sum_q;
        m3_sk_v_q <= 1'b0;
        m3_rdy_q  <= 1'b1;
      end
    end else if (!m3_v_q || hdr_take) begin
      m3_q     <= m2_q;
      m3_sum_q <= m3_sum_d;
      m3_v_q   <= m2_v_q;
    end else if (m2_v_q) begin
      m3_sk_q     <= m2_q;
      m3_sk_sum_q <= m3_sum_d;
      m3_sk_v_q   <= 1'b1;
      m3_rdy_q    <= 1'b0;
    end
    if (rst) begin
      m3_v_q    <= 1'b0;
      m3_sk_v_q <= 1'b0;
      m3_rdy_q  <= 1'b1;
    end
  end

  // the header image with its checksum, for stage D: ones' complement fold of the
  // 19-bit sum (add the carries back; when that carries again, one more: f1)
  logic [HW-1:0] img;
  logic [15:0]   ck;
  always_comb begin
    logic [16:0] f0;
    logic [15:0] f1;
    f0  = {1'b0, m3_sum_q[15:0]} + 17'(m3_sum_q[18:16]);
    f1  = m3_sum_q[15:0] + 16'(m3_sum_q[18:16]) + 16'd1;
    ck  = ~(f0[16] ? f1 : f0[15:0]);
    img = m3_q.lane;
    img[8*CK_LO +: 16] |= {ck[7:0], ck[15:8]} & {16{m3_q.ckpos[0]}};
    img[8*CK_HI +: 16] |= {ck[7:0], ck[15:8]} & {16{m3_q.ckpos[1]}};
  end

  // ---------------------------------------------------------------- P: payload skid register
  logic [DATA_W-1:0] p_tdata;
  logic [KEEP_W-1:0] p_tkeep;
  logic              p_tvalid, p_tready, p_tlast, p_user, p_fire;

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_pay (
      .clk, .rst,
      .s_axis_tdata(s_axis_tdata & bits_of(s_axis_tkeep)), .s_axis_tkeep, .s_axis_tvalid,
      .s_axis_tready, .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
      .m_axis_tready(p_tready), .m_axis_tlast(p_tlast), .m_axis_tuser(p_user)
  );

  // ---------------------------------------------------------------- D: rotate, decide
  logic              p_first_q;   // the beat on offer at P is its frame's first
  logic              go_d, consume, flush_in;
  logic [NH-1:0]     hoh_q, hoh_cur;
  logic [DATA_W-1:0] rot;
  logic [KEEP_W-1:0] rotk;

  // a first beat leaves P only together with its header
  assign p_tready = go_d && (!p_first_q || m3_v_q);
  assign p_fire   = p_tvalid && p_tready;
  assign hdr_take = p_fire && p_first_q;
  assign hoh_cur  = p_first_q ? m3_q.hoh : hoh_q;

  // rotation up by h (lane L <- lane L-h mod KEEP_W) as an AND-OR over the shifts
  logic [DATA_W-1:0] rot_k  [NH];
  logic [KEEP_W-1:0] rotk_k [NH];
  logic [NH-1:0]     over_k;   // the beat has more than KEEP_W-h bytes
  for (genvar k = 0; k < NH; k++) begin : g_rot
    localparam int H = h_val(k);
    assign rot_k[k]  = ((p_tdata << (8 * H)) | (p_tdata >> (DATA_W - 8 * H))) &
                       {DATA_W{hoh_cur[k]}};
    assign rotk_k[k] = ((p_tkeep << H) | (p_tkeep >> (KEEP_W - H))) & {KEEP_W{hoh_cur[k]}};
    assign over_k[k] = p_tkeep[KEEP_W - H] && hoh_cur[k];
  end

  always_comb begin
    rot  = '0;
    rotk = '0;
    for (int k = 0; k < NH; k++) begin
      rot  = rot | rot_k[k];
      rotk = rotk | rotk_k[k];
    end
    flush_in = p_tlast && (over_k != '0);
  end

  logic              d_v_q, d_first_q, d_last_q, d_user_q, d_flush_q;
  logic [N_W-1:0]    d_n_q;       // bytes in the beat
  logic [DATA_W-1:0] d_rot_q;
  logic [KEEP_W-1:0] d_rotk_q, selh_q;
  logic [HQ_W-1:0]   hq_q;        // header image, lane 0 = next header byte to send
  logic [HB_W-1:0]   hbr_q;       // full header beats still to send
  logic              hp_q;        // the D beat waits for header beats
  logic [16:0]       plen_q;      // the frame's expected payload bytes
  logic              chk_q;
  logic              emit_hdr;

  always_ff @(posedge clk) begin
    if (go_d) begin
      d_v_q     <= p_fire;
      d_first_q <= p_first_q;
      d_last_q  <= p_tlast;
      d_user_q  <= p_user;
      d_flush_q <= flush_in;
      d_n_q     <= count_of(p_tkeep);
      d_rot_q   <= rot;
      d_rotk_q  <= rotk;
      hp_q      <= hdr_take && m3_q.hb != '0;
    end
    if (hdr_take) begin
      hq_q   <= HQ_W'(img);
      hbr_q  <= m3_q.hb;
      selh_q <= m3_q.selh;
      hoh_q  <= m3_q.hoh;
      plen_q <= m3_q.plen;
      chk_q  <= m3_q.chk;
    end
    if (emit_hdr) begin
      hq_q  <= HQ_W'({{DATA_W{1'b0}}, hq_q} >> DATA_W);
      hbr_q <= hbr_q - 1'b1;
      hp_q  <= hbr_q != HB_W'(1);
    end
    if (p_fire) p_first_q <= p_tlast;
    if (rst) begin
      d_v_q     <= 1'b0;
      hp_q      <= 1'b0;
      p_first_q <= 1'b1;
    end
  end

  // ---------------------------------------------------------------- A: act
  logic              fl_q;        // the flush beat of the frame just consumed is due
  logic [DATA_W-1:0] r_q;         // residual: lanes below h of the last consumed beat
  logic [KEEP_W-1:0] rv_q;        // residual lanes holding bytes (flush)
  logic              fuser_q;
  logic [16:0]       rem_q, rem_cur;   // payload bytes still expected (with the D beat)
  logic              mismatch, d_bad;
  logic              ev_last_q, ev_mis_q;
  logic              o_valid, o_last, o_user, o_ready;
  logic [DATA_W-1:0] o_data, res;
  logic [KEEP_W-1:0] o_keep;

  always_comb begin
    // length check on the frame's last beat (IP frames only)
    rem_cur  = d_first_q ? plen_q : rem_q;
    mismatch = chk_q && d_last_q && rem_cur != 17'(d_n_q);
    d_bad    = d_user_q || mismatch;

    res     = d_first_q ? hq_q[DATA_W-1:0] : r_q;
    o_valid = fl_q || d_v_q;
    if (fl_q) begin
      o_data = r_q;
      o_keep = rv_q;
      o_last = 1'b1;
      o_user = fuser_q;
    end else if (hp_q) begin
      o_data = hq_q[DATA_W-1:0];
      o_keep = '1;
      o_last = 1'b0;
      o_user = 1'b0;
    end else begin
      o_data = (res & bits_of(selh_q)) | (d_rot_q & ~bits_of(selh_q));
      o_keep = selh_q | d_rotk_q;
      o_last = d_last_q && !d_flush_q;
      o_user = d_bad && d_last_q && !d_flush_q;
    end
  end

  assign consume  = o_ready && !fl_q && d_v_q && !hp_q;
  assign emit_hdr = o_ready && !fl_q && d_v_q && hp_q;
  assign go_d     = !d_v_q || (o_ready && !fl_q && !hp_q);

  always_ff @(posedge clk) begin
    if (consume) begin
      r_q     <= d_rot_q & bits_of(selh_q);
      rv_q    <= d_rotk_q & selh_q;
      fuser_q <= d_bad;
      fl_q    <= d_last_q && d_flush_q;
      rem_q   <= rem_cur - 17'(d_n_q);
    end
    if (fl_q && o_ready) fl_q <= 1'b0;
    ev_last_q <= consume && d_last_q;
    ev_mis_q  <= mismatch;
    if (ev_last_q) begin
      cnt_frames       <= cnt_frames + 1'b1;
      cnt_len_mismatch <= cnt_len_mismatch + CNT_W'(ev_mis_q);
    end
    if (rst) begin
      fl_q             <= 1'b0;
      ev_last_q        <= 1'b0;
      cnt_frames       <= '0;
      cnt_len_mismatch <= '0;
    end
  end

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_out (
      .clk, .rst,
      .s_axis_tdata(o_data), .s_axis_tkeep(o_keep), .s_axis_tvalid(o_valid),
      .s_axis_tready(o_ready), .s_axis_tlast(o_last), .s_axis_tuser(o_user),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser
  );

endmodule

`resetall
