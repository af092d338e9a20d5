// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_csum_check: receive-side TCP/UDP checksum verification for the
// virtio_net_hdr DATA_VALID flag (VirtIO 1.2, 5.1.6.4).
//
// A stream of Ethernet frames (without FCS) passes through an eight-stage pipeline
// (latency 8 cycles, full throughput). s_axis_tready comes from a flop (a skid
// register takes the beat in flight when the pipeline stalls), so there is no
// combinational path from m_axis_tready to s_axis_tready.
// While a frame passes, the bytes of its L4 segment are summed (RFC 1071 ones'
// complement, big-endian 16-bit words) and, on the last beat, the pseudo header
// (RFC 768 / RFC 793 for IPv4, RFC 8200 8.1 for IPv6) is added. The last beat
// leaves with m_axis_tuser[1] = 1 when the frame is
//   Ethernet (optionally one 802.1Q tag) / IPv4 (not a fragment, IHL >= 5) or
//   IPv6 (next header directly TCP or UDP, no extension headers) / TCP or UDP,
//   the IP datagram fits in the frame (Ethernet padding after it is ignored),
//   UDP: length field == IP payload length and checksum field != 0,
// and the checksum verifies (folded sum 0xFFFF). tuser[0] (bad) passes through.
// Counters (frames not marked bad, counted one cycle after their last beat reaches
// the output register):
//   cnt_ok   verified good (tuser[1] = 1)
//   cnt_bad  TCP/UDP with a wrong checksum (tuser[1] = 0)
//   cnt_skip not verifiable by the rules above (tuser[1] = 0)
// Header fields are taken from the first HB (96) bytes, captured as they pass:
// the L4 start is at most 18 + 60 = 78 and UDP's length/checksum at most 86. Every
// beat is judged with the fields of the bytes captured up to and including it (the
// fields a beat's L4 byte mask needs lie before byte 24; L4 bytes start at 34).
//
// Pipeline (one global enable: every stage moves when the output register is free):
//   S0  input register; the beat's header bytes captured into hdr_q at the same edge
//   S1  header fields from hdr_q, per VLAN case then picked by the VLAN flag (IPv4/IPv6,
//       IHL, protocol flags, IP end and L4 start for IPv4 and IPv6, the 16 address words,
//       the 11 UDP field candidates); kept lanes counted per 16
//   S2  L4 start / IP end picked, the beat index compared with their beat indices;
//       UDP fields picked; address words summed by fours; lane count summed
//   S3  L4 byte mask applied (bytes outside the L4 segment zeroed)
//   S4  masked words summed by eights; frame length; L4 checks; pseudo-header base
//   S5  the beat's sum into the frame accumulator; frame fits; pseudo-header total
//   S6  accumulator + pseudo header
//   S7  output register: end-around fold and the verdict; counter pulses
`default_nettype none

module fabnic_virtio_csum_check #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int DEST_W = 2,
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,     // bad frame (last beat)
    input  wire logic [DEST_W-1:0] s_axis_tdest,

    output logic [DATA_W-1:0]      m_axis_tdata,
    output logic [KEEP_W-1:0]      m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic [1:0]             m_axis_tuser,     // [0] bad, [1] checksum verified (last beat)
    output logic [DEST_W-1:0]      m_axis_tdest,

    output logic [CNT_W-1:0]       cnt_ok,
    output logic [CNT_W-1:0]       cnt_bad,
    output logic [CNT_W-1:0]       cnt_skip
);

  localparam int B    = KEEP_W;
  localparam int LB   = $clog2(B);
  localparam int HB   = 96;                   // header bytes captured
  localparam int NCH  = (HB + B - 1) / B;     // beats that hold header bytes
  localparam int NW   = (B / 2 < 8) ? 8 : B / 2;   // 16-bit words summed (padded to >= 8)
  localparam int NG8  = NW / 8;               // groups of eight words (S3)
  localparam int NG16 = (B + 15) / 16;        // keep counts per 16 lanes (S1)
  localparam int NAW  = 16;                   // pseudo-header address words (IPv6; IPv4 = 2..5)
  localparam int NUW  = 11;                   // UDP header candidates: L4 at l3 + 20 + 4j

  if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0 || KEEP_W * 8 != DATA_W) begin : g_chk
    $error("fabnic_virtio_csum_check: DATA_W must be a power of two >= 64, KEEP_W = DATA_W/8");
  end

  // ---------------------------------------------------------------- input skid, global enable
  logic              en, fire;
  logic              sk_v;
  logic [DATA_W-1:0] sk_data;
  logic [KEEP_W-1:0] sk_keep;
  logic              sk_last, sk_user;
  logic [DEST_W-1:0] sk_dest;
  logic              in_v, in_last, in_user;
  logic [DATA_W-1:0] in_data;
  logic [KEEP_W-1:0] in_keep;
  logic [DEST_W-1:0] in_dest;

  assign en            = !m_axis_tvalid || m_axis_tready;
  assign s_axis_tready = !sk_v;
  assign in_v          = sk_v || s_axis_tvalid;
  assign in_data       = sk_v ? sk_data : s_axis_tdata;
  assign in_keep       = sk_v ? sk_keep : s_axis_tkeep;
  assign in_last       = sk_v ? sk_last : s_axis_tlast;
  assign in_user       = sk_v ? sk_user : s_axis_tuser;
  assign in_dest       = sk_v ? sk_dest : s_axis_tdest;
  assign fire          = in_v && en;

  always_ff @(posedge clk) begin
    if (!sk_v && s_axis_tvalid && !en) begin
      sk_v    <= 1'b1;
      sk_data <= s_axis_tdata;
      sk_keep <= s_axis_tkeep;
      sk_last <= s_axis_tlast;
      sk_user <= s_axis_tuser;
      sk_dest <= s_axis_tdest;
    end
    if (sk_v && en) sk_v <= 1'b0;
    if (rst) sk_v <= 1'b0;
  end

  // ---------------------------------------------------------------- header capture
  logic [15:0]     pos_q;           // byte position of the next input beat in its frame
  logic [NCH:0]    hsel_q;          // one-hot: header beat index of the next input beat
  logic [8*HB-1:0] hdr_q;           // captured bytes 0..HB-1 of this frame, up to the S0 beat
  logic [8*HB-1:0] hv;

  assign hv = hdr_q;

  // ---------------------------------------------------------------- S0: input register
  logic [DATA_W-1:0] s0_data;
  logic [KEEP_W-1:0] s0_keep;
  logic              s0_v, s0_last, s0_user, s0_first;
  logic [DEST_W-1:0] s0_dest;
  logic [15:0]       s0_pos;

  always_ff @(posedge clk) begin
    if (en) begin
      s0_v     <= fire;
      s0_data  <= in_data;
      s0_keep  <= in_keep;
      s0_last  <= in_last;
      s0_user  <= in_user;
      s0_dest  <= in_dest;
      s0_pos   <= pos_q;
      s0_first <= hsel_q[0];
    end
    if (rst) s0_v <= 1'b0;
  end

  always_ff @(posedge clk) begin
    if (fire) begin
      for (int i = 0; i < HB; i++) begin
        if (hsel_q[i / B]) hdr_q[8*i +: 8] <= in_data[8*(i % B) +: 8];
      end
      if (in_last) begin
        pos_q  <= '0;
        hsel_q <= (NCH + 1)'(1);
      end else begin
        pos_q  <= (pos_q > 16'(65535 - B)) ? pos_q : pos_q + 16'(B);   // saturates (> 64 KB)
        hsel_q <= hsel_q[NCH] ? hsel_q : {hsel_q[NCH-1:0], 1'b0};
      end
    end
    if (rst) begin
      pos_q  <= '0;
      hsel_q <= (NCH + 1)'(1);
      hdr_q  <= '0;
    end
  end

  function automatic logic [7:0] hb(input logic [8*HB-1:0] v, input int at);
    return v[8*at +: 8];
  endfunction
  function automatic logic [15:0] hw(input logic [8*HB-1:0] v, input int at);
    return {v[8*at +: 8], v[8*(at + 1) +: 8]};
  endfunction
  function automatic logic [2:0] ones4(input logic [3:0] k);
    return 3'(k[0]) + 3'(k[1]) + 3'(k[2]) + 3'(k[3]);
  endfunction

  // ---------------------------------------------------------------- S1: header fields
  // per VLAN case c (L3 at 14 + 4c), then picked by the VLAN flag
  logic        s1_ip4, s1_ip6, s1_fragnz, s1_t4, s1_u4, s1_t6, s1_u6;
  logic [3:0]  s1_ihl;
  logic [7:0]  s1_l4v4;             // L4 start for IPv4 (l3 + 4 IHL)
  logic [7:0]  s1_l4v6;             // L4 start for IPv6 (l3 + 40)
  logic [15:0] s1_len4, s1_len6;    // IPv4 total length, IPv6 payload length
  logic [16:0] s1_end4, s1_end6;    // IP datagram end for IPv4 / IPv6
  logic [15:0] s1_aw [NAW];
  logic [15:0] s1_ul [NUW];         // UDP length candidates
  logic        s1_uc [NUW];         // UDP checksum != 0 candidates
  logic [4:0]  s1_pc [NG16];        // kept lanes per 16

  logic [DATA_W-1:0] s1_data;
  logic [KEEP_W-1:0] s1_keep;
  logic              s1_v, s1_last, s1_user, s1_first;
  logic [DEST_W-1:0] s1_dest;
  logic [15:0]       s1_pos;

  logic        c1_vl, c1_ip4, c1_ip6, c1_fragnz, c1_t4, c1_u4, c1_t6, c1_u6;
  logic [3:0]  c1_ihl;
  logic [7:0]  c1_l4v4, c1_l4v6;
  logic [15:0] c1_len4, c1_len6;
  logic [16:0] c1_end4, c1_end6;
  logic [15:0] c1_aw [NAW];
  logic [15:0] c1_ul [NUW];
  logic        c1_uc [NUW];
  logic [4:0]  c1_pc [NG16];
  always_comb begin
    // each field is computed for both L3 offsets (14, 18) and then picked by the VLAN flag
    logic        ip4 [2], ip6 [2], fragnz [2], t4 [2], u4 [2], t6 [2], u6 [2];
    logic [3:0]  ihl [2];
    logic [7:0]  l4v4 [2];
    logic [15:0] len4 [2], len6 [2];
    logic [16:0] end4 [2], end6 [2];
    logic [15:0] aw [2][NAW];
    logic [15:0] ul [2][NUW];
    logic        uc [2][NUW];
    for (int c = 0; c < 2; c++) begin
      int l3;
      l3        = 14 + 4 * c;
      ip4[c]    = hw(hv, l3 - 2) == 16'h0800 && hb(hv, l3)[7:4] == 4'd4 && hb(hv, l3)[3:0] >= 4'd5;
      ip6[c]    = hw(hv, l3 - 2) == 16'h86DD && hb(hv, l3)[7:4] == 4'd6;
      ihl[c]    = hb(hv, l3)[3:0];
      fragnz[c] = (hw(hv, l3 + 6) & 16'h3FFF) != 16'd0;   // MF or fragment offset
      t4[c]     = hb(hv, l3 + 9) == 8'd6;
      u4[c]     = hb(hv, l3 + 9) == 8'd17;
      t6[c]     = hb(hv, l3 + 6) == 8'd6;
      u6[c]     = hb(hv, l3 + 6) == 8'd17;
      len4[c]   = hw(hv, l3 + 2);
      len6[c]   = hw(hv, l3 + 4);
      l4v4[c]   = 8'(l3) + {2'b00, hb(hv, l3)[3:0], 2'b00};
      end4[c]   = 17'(l3) + 17'(hw(hv, l3 + 2));
      end6[c]   = 17'(l3 + 40) + 17'(hw(hv, l3 + 4));
      for (int k = 0; k < NAW; k++) aw[c][k] = hw(hv, l3 + 8 + 2 * k);
      for (int j = 0; j < NUW; j++) begin
        ul[c][j] = hw(hv, l3 + 20 + 4 * j + 4);
        uc[c][j] = hw(hv, l3 + 20 + 4 * j + 6) != 16'd0;
      end
    end
    c1_vl     = hw(hv, 12) == 16'h8100;
    c1_ip4    = c1_vl ? ip4[1]    : ip4[0];
    c1_ip6    = c1_vl ? ip6[1]    : ip6[0];
    c1_ihl    = c1_vl ? ihl[1]    : ihl[0];
    c1_fragnz = c1_vl ? fragnz[1] : fragnz[0];
    c1_t4     = c1_vl ? t4[1]     : t4[0];
    c1_u4     = c1_vl ? u4[1]     : u4[0];
    c1_t6     = c1_vl ? t6[1]     : t6[0];
    c1_u6     = c1_vl ? u6[1]     : u6[0];
    c1_len4   = c1_vl ? len4[1]   : len4[0];
    c1_len6   = c1_vl ? len6[1]   : len6[0];
    c1_l4v4   = c1_vl ? l4v4[1]   : l4v4[0];
    c1_l4v6   = c1_vl ? 8'd58     : 8'd54;
    c1_end4   = c1_vl ? end4[1]   : end4[0];
    c1_end6   = c1_vl ? end6[1]   : end6[0];
    for (int k = 0; k < NAW; k++) c1_aw[k] = c1_vl ? aw[1][k] : aw[0][k];
    for (int j = 0; j < NUW; j++) begin
      c1_ul[j] = c1_vl ? ul[1][j] : ul[0][j];
      c1_uc[j] = c1_vl ? uc[1][j] : uc[0][j];
    end
    for (int g = 0; g < NG16; g++) begin
      logic [15:0] k16;
      logic [3:0]  a0, a1;
      k16 = '0;
      for (int i = 0; i < 16; i++) if (16 * g + i < B) k16[i] = s0_keep[16 * g + i];
      a0 = 4'(ones4(k16[3:0])) + 4'(ones4(k16[7:4]));
      a1 = 4'(ones4(k16[11:8])) + 4'(ones4(k16[15:12]));
      c1_pc[g] = 5'(a0) + 5'(a1);
    end
  end

  always_ff @(posedge clk) begin
    if (en) begin
      s1_ip4    <= c1_ip4;
      s1_ip6    <= c1_ip6;
      s1_ihl    <= c1_ihl;
      s1_fragnz <= c1_fragnz;
      s1_t4     <= c1_t4;
      s1_u4     <= c1_u4;
      s1_t6     <= c1_t6;
      s1_u6     <= c1_u6;
      s1_len4   <= c1_len4;
      s1_len6   <= c1_len6;
      s1_l4v4   <= c1_l4v4;
      s1_l4v6   <= c1_l4v6;
      s1_end4   <= c1_end4;
      s1_end6   <= c1_end6;
      s1_aw     <= c1_aw;
      s1_ul     <= c1_ul;
      s1_uc     <= c1_uc;
      s1_pc     <= c1_pc;
      s1_v      <= s0_v;
      s1_data   <= s0_data;
      s1_keep   <= s0_keep;
      s1_last   <= s0_last;
      s1_user   <= s0_user;
      s1_dest   <= s0_dest;
      s1_pos    <= s0_pos;
      s1_first  <= s0_first;
    end
    if (rst) s1_v <= 1'b0;
  end

  // ---------------------------------------------------------------- S2: L4 start, IP end
  logic [16:0] s2_end, s2_l4len;
  logic [7:0]  s2_l4;
  logic        s2_ip4, s2_tcp, s2_udp, s2_uc;
  logic [15:0] s2_ul;
  logic        s2_lt, s2_eq, s2_gt, s2_eql;   // beat index vs IP end / L4 start beat
  logic [17:0] s2_q [4];            // address words by fours
  logic [17:0] s2_s4;               // IPv4 address words (2..5)
  logic [16:0] s2_pc;

  logic [DATA_W-1:0] s2_data;
  logic [KEEP_W-1:0] s2_keep;
  logic              s2_v, s2_last, s2_user, s2_first;
  logic [DEST_W-1:0] s2_dest;
  logic [15:0]       s2_pos;

  logic [16:0] c2_end;
  logic [7:0]  c2_l4;
  logic        c2_lt, c2_eq, c2_gt, c2_eql;
  always_comb begin
    // the beat index is compared with both candidates (IPv4, IPv6), picked after
    logic [16-LB:0] bidx, ehi4, ehi6, lhi4, lhi6;
    c2_end = s1_ip4 ? s1_end4 : s1_end6;
    c2_l4  = s1_ip4 ? s1_l4v4 : s1_l4v6;
    bidx   = (17 - LB)'(s1_pos >> LB);
    ehi4   = (17 - LB)'(s1_end4 >> LB);
    ehi6   = (17 - LB)'(s1_end6 >> LB);
    lhi4   = (17 - LB)'(s1_l4v4 >> LB);
    lhi6   = (17 - LB)'(s1_l4v6 >> LB);
    c2_lt  = s1_ip4 ? bidx < ehi4  : bidx < ehi6;
    c2_eq  = s1_ip4 ? bidx == ehi4 : bidx == ehi6;
    c2_gt  = s1_ip4 ? bidx > lhi4  : bidx > lhi6;
    c2_eql = s1_ip4 ? bidx == lhi4 : bidx == lhi6;
  end

  logic [16:0] c2_l4len, c2_pc;
  logic        c2_tcp, c2_udp, c2_uc;
  logic [15:0] c2_ul;
  logic [17:0] c2_q [4];
  logic [17:0] c2_s4;
  always_comb begin
    logic [16:0] t [NG16];
    c2_tcp   = (s1_ip4 && !s1_fragnz && s1_t4) || (!s1_ip4 && s1_ip6 && s1_t6);
    c2_udp   = (s1_ip4 && !s1_fragnz && s1_u4) || (!s1_ip4 && s1_ip6 && s1_u6);
    c2_l4len = s1_ip4 ? 17'(s1_len4) - 17'({s1_ihl, 2'b00}) : 17'(s1_len6);
    // L4 start - l3 = 4 IHL (IPv4, IHL 5..15: candidate IHL - 5) or 40 (IPv6: candidate 5);
    // a one-hot AND-OR pick
    c2_ul = '0;
    c2_uc = 1'b0;
    for (int j = 0; j < NUW; j++) begin
      logic pick;
      pick  = s1_ip4 ? (32'(s1_ihl) == j + 5) : (j == 5);
      c2_ul = c2_ul | (pick ? s1_ul[j] : 16'd0);
      c2_uc = c2_uc | (pick && s1_uc[j]);
    end
    for (int k = 0; k < 4; k++) begin
      c2_q[k] = (18'(s1_aw[4*k]) + 18'(s1_aw[4*k+1])) + (18'(s1_aw[4*k+2]) + 18'(s1_aw[4*k+3]));
    end
    c2_s4 = (18'(s1_aw[2]) + 18'(s1_aw[3])) + (18'(s1_aw[4]) + 18'(s1_aw[5]));
    for (int g = 0; g < NG16; g++) t[g] = 17'(s1_pc[g]);
    for (int w = 1; w < NG16; w = 2 * w) begin
      for (int g = 0; g + w < NG16; g += 2 * w) t[g] = t[g] + t[g + w];
    end
    c2_pc = t[0];
  end

  always_ff @(posedge clk) begin
    if (en) begin
      s2_end   <= c2_end;
      s2_l4    <= c2_l4;
      s2_lt    <= c2_lt;
      s2_eq    <= c2_eq;
      s2_gt    <= c2_gt;
      s2_eql   <= c2_eql;
      s2_ip4   <= s1_ip4;
      s2_tcp   <= c2_tcp;
      s2_udp   <= c2_udp;
      s2_l4len <= c2_l4len;
      s2_ul    <= c2_ul;
      s2_uc    <= c2_uc;
      s2_q     <= c2_q;
      s2_s4    <= c2_s4;
      s2_pc    <= c2_pc;
      s2_v     <= s1_v;
      s2_data  <= s1_data;
      s2_keep  <= s1_keep;
      s2_last  <= s1_last;
      s2_user  <= s1_user;
      s2_dest  <= s1_dest;
      s2_pos   <= s1_pos;
      s2_first <= s1_first;
    end
    if (rst) s2_v <= 1'b0;
  end

  // ---------------------------------------------------------------- S3: L4 byte mask
  logic [DATA_W-1:0] s3_mdata;      // the beat with every byte outside the L4 segment zeroed
  logic [16:0]       s3_end, s3_l4len, s3_pc;
  logic [7:0]        s3_l4;
  logic              s3_ip4, s3_tcp, s3_udp, s3_uc;
  logic [15:0]       s3_ul;
  logic [17:0]       s3_q [4];
  logic [17:0]       s3_s4;

  logic [DATA_W-1:0] s3_data;
  logic [KEEP_W-1:0] s3_keep;
  logic              s3_v, s3_last, s3_user, s3_first;
  logic [DEST_W-1:0] s3_dest;
  logic [15:0]       s3_pos;

  logic [DATA_W-1:0] c3_mdata;
  always_comb begin
    for (int i = 0; i < B; i++) begin
      logic m;
      m = s2_keep[i] && (s2_lt || (s2_eq && LB'(i) < s2_end[LB-1:0]))
                     && (s2_gt || (s2_eql && LB'(i) >= s2_l4[LB-1:0]));
      c3_mdata[8*i +: 8] = m ? s2_data[8*i +: 8] : 8'd0;
    end
  end

  always_ff @(posedge clk) begin
    if (en) begin
      s3_mdata <= c3_mdata;
      s3_end   <= s2_end;
      s3_l4    <= s2_l4;
      s3_l4len <= s2_l4len;
      s3_pc    <= s2_pc;
      s3_ip4   <= s2_ip4;
      s3_tcp   <= s2_tcp;
      s3_udp   <= s2_udp;
      s3_uc    <= s2_uc;
      s3_ul    <= s2_ul;
      s3_q     <= s2_q;
      s3_s4    <= s2_s4;
      s3_v     <= s2_v;
      s3_data  <= s2_data;
      s3_keep  <= s2_keep;
      s3_last  <= s2_last;
      s3_user  <= s2_user;
      s3_dest  <= s2_dest;
      s3_pos   <= s2_pos;
      s3_first <= s2_first;
    end
    if (rst) s3_v <= 1'b0;
  end

  // ---------------------------------------------------------------- S4: word sums, L4 checks
  logic [18:0] s4_t [NG8];          // masked words summed by eights
  logic [16:0] s4_flen, s4_end;
  logic        s4_l4ok, s4_l4le;
  logic [19:0] s4_pbase;            // address words
  logic [17:0] s4_pl;               // protocol + L4 length

  logic [DATA_W-1:0] s4_data;
  logic [KEEP_W-1:0] s4_keep;
  logic              s4_v, s4_last, s4_user, s4_first;
  logic [DEST_W-1:0] s4_dest;

  logic [18:0] c4_t [NG8];
  always_comb begin
    for (int g = 0; g < NG8; g++) begin
      logic [15:0] w [8];
      for (int k = 0; k < 8; k++) begin
        w[k] = '0;
        if (8 * g + k < B / 2) begin
          w[k] = {s3_mdata[8*(2*(8*g+k)) +: 8], s3_mdata[8*(2*(8*g+k)+1) +: 8]};
        end
      end
      c4_t[g] = ((19'(w[0]) + 19'(w[1])) + (19'(w[2]) + 19'(w[3])))
              + ((19'(w[4]) + 19'(w[5])) + (19'(w[6]) + 19'(w[7])));
    end
  end

  always_ff @(posedge clk) begin
    if (en) begin
      s4_t     <= c4_t;
      s4_flen  <= 17'(s3_pos) + s3_pc;
      s4_end   <= s3_end;
      s4_l4le  <= 17'(s3_l4) <= s3_end;
      s4_l4ok  <= s3_tcp ? (s3_l4len >= 17'd20)
                : s3_udp ? (s3_l4len >= 17'd8 && 17'(s3_ul) == s3_l4len && s3_uc)
                : 1'b0;
      s4_pbase <= s3_ip4 ? 20'(s3_s4)
                         : (20'(s3_q[0]) + 20'(s3_q[1])) + (20'(s3_q[2]) + 20'(s3_q[3]));
      s4_pl    <= 18'(s3_l4len) + (s3_tcp ? 18'd6 : 18'd17);
      s4_v     <= s3_v;
      s4_data  <= s3_data;
      s4_keep  <= s3_keep;
      s4_last  <= s3_last;
      s4_user  <= s3_user;
      s4_dest  <= s3_dest;
      s4_first <= s3_first;
    end
    if (rst) s4_v <= 1'b0;
  end

  // ---------------------------------------------------------------- S5: accumulate
  logic [31:0] acc_q;               // L4 sum of this frame up to the beat in S5
  logic [20:0] s5_pseudo;
  logic        s5_okc;              // frame fits and L4 checks pass (checksum aside)

  logic [DATA_W-1:0] s5_data;
  logic [KEEP_W-1:0] s5_keep;
  logic              s5_v, s5_last, s5_user;
  logic [DEST_W-1:0] s5_dest;

  logic [31:0] c5_bsum;
  always_comb begin
    logic [31:0] t [NG8];
    for (int g = 0; g < NG8; g++) t[g] = 32'(s4_t[g]);
    for (int w = 1; w < NG8; w = 2 * w) begin
      for (int g = 0; g + w < NG8; g += 2 * w) t[g] = t[g] + t[g + w];
    end
    c5_bsum = t[0];
  end

  always_ff @(posedge clk) begin
    if (en) begin
      if (s4_v) acc_q <= (s4_first ? 32'd0 : acc_q) + c5_bsum;
      s5_okc    <= s4_l4ok && s4_l4le && s4_end <= s4_flen;
      s5_pseudo <= 21'(s4_pbase) + 21'(s4_pl);
      s5_v      <= s4_v;
      s5_data   <= s4_data;
      s5_keep   <= s4_keep;
      s5_last   <= s4_last;
      s5_user   <= s4_user;
      s5_dest   <= s4_dest;
    end
    if (rst) begin
      s5_v  <= 1'b0;
      acc_q <= '0;
    end
  end

  // ---------------------------------------------------------------- S6: + pseudo header
  logic [31:0] s6_tot;
  logic        s6_okc;

  logic [DATA_W-1:0] s6_data;
  logic [KEEP_W-1:0] s6_keep;
  logic              s6_v, s6_last, s6_user;
  logic [DEST_W-1:0] s6_dest;

  always_ff @(posedge clk) begin
    if (en) begin
      s6_tot  <= acc_q + 32'(s5_pseudo);
      s6_okc  <= s5_okc;
      s6_v    <= s5_v;
      s6_data <= s5_data;
      s6_keep <= s5_keep;
      s6_last <= s5_last;
      s6_user <= s5_user;
      s6_dest <= s5_dest;
    end
    if (rst) s6_v <= 1'b0;
  end

  // ---------------------------------------------------------------- S7: fold, verdict, output
  // tot = hi * 2^16 + lo; s = hi + lo <= 0x1FFFE; the folded sum is s + s[16] (16 bits),
  // which is 0xFFFF when s = 0x0FFFF or s = 0x1FFFE
  logic [16:0] c7_s;
  logic        c7_sum_ok, c7_judge, c7_ok, c7_bad;
  always_comb begin
    c7_s      = 17'(s6_tot[15:0]) + 17'(s6_tot[31:16]);
    c7_sum_ok = &c7_s[15:1] && (c7_s[16] ? !c7_s[0] : c7_s[0]);
    c7_judge  = s6_v && s6_last && !s6_user;
    c7_ok     = s6_okc && c7_sum_ok;
    c7_bad    = s6_okc && !c7_sum_ok;
  end

  logic p_ok_q, p_bad_q, p_skip_q;   // counter pulses
  always_ff @(posedge clk) begin
    p_ok_q   <= 1'b0;
    p_bad_q  <= 1'b0;
    p_skip_q <= 1'b0;
    if (en) begin
      m_axis_tvalid <= s6_v;
      m_axis_tdata  <= s6_data;
      m_axis_tkeep  <= s6_keep;
      m_axis_tlast  <= s6_last;
      m_axis_tdest  <= s6_dest;
      m_axis_tuser  <= {s6_last && c7_ok, s6_last && s6_user};
      p_ok_q        <= c7_judge && c7_ok;
      p_bad_q       <= c7_judge && c7_bad;
      p_skip_q      <= c7_judge && !s6_okc;
    end
    if (p_ok_q)   cnt_ok   <= cnt_ok + 1'b1;
    if (p_bad_q)  cnt_bad  <= cnt_bad + 1'b1;
    if (p_skip_q) cnt_skip <= cnt_skip + 1'b1;
    if (rst) begin
      m_axis_tvalid <= 1'b0;
      p_ok_q        <= 1'b0;
      p_bad_q       <= 1'b0;
      p_skip_q      <= 1'b0;
      cnt_ok        <= '0;
      cnt_bad       <= '0;
      cnt_skip      <= '0;
    end
  end

endmodule

`resetall
