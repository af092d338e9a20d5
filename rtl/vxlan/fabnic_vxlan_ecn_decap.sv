// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vxlan_ecn_decap: RFC 6040 ECN decapsulation on the inner frame.
//
// s_ecn is the outer header's ECN field and s_sb a sideband of SB_W bits (both constant
// while the frame's beats are offered; they ride with each beat, m_sb is s_sb delayed
// with the data). When s_ecn is CE (11) and the inner frame is IPv4 or IPv6 (after at
// most one 802.1Q tag):
//   inner ECT(0)/ECT(1)  -> the inner ECN field is set to CE; for IPv4 the header
//                           checksum is updated incrementally (RFC 1624, eqn. 3);
//   inner CE             -> unchanged;
//   inner Not-ECT        -> frame marked bad (tuser[0]=1 on its last beat: RFC 6040 says
//                           drop) and counted in cnt_ce_not_ect.
// Other outer ECN values and non-IP inner frames pass unchanged. cnt_ce_marked counts
// frames whose inner header was changed. The first 32 bytes are remembered across beats.
// Pipeline (decide in one stage, act in the next), each stage a skid register
// (fabnic_axis_register type 2), so every handshake is registered both ways:
//   I  input register (s_ecn and s_sb in its tuser)
//   D  header fields of this beat's view: 802.1Q tag, EtherType compares, version, TOS
//      byte, old checksum, beat index
//   A  decision (mark / Not-ECT) and the new checksum (RFC 1624), the lanes to patch
//   output: the marked lanes replaced (one LUT level from the A register)
// Latency 3 cycles, one beat per cycle. The counters follow a frame's last beat out of
// stage D by two cycles.
`default_nettype none

module fabnic_vxlan_ecn_decap #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int SB_W   = 1,   // sideband carried with the beats
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,
    input  wire logic [1:0]        s_ecn,
    input  wire logic [SB_W-1:0]   s_sb,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic                   m_axis_tuser,
    output logic      [SB_W-1:0]   m_sb,

    output logic      [CNT_W-1:0]  cnt_ce_marked,
    output logic      [CNT_W-1:0]  cnt_ce_not_ect
);

  localparam int HB   = 32;                          // header bytes looked at
  localparam int BIDX = (HB + KEEP_W - 1) / KEEP_W;  // beats covering them
  localparam int BI_W = $clog2(BIDX + 1);

  // ---------------------------------------------------------------- I: input register
  logic [DATA_W-1:0]   i_tdata;
  logic [KEEP_W-1:0]   i_tkeep;
  logic                i_tvalid, i_tready, i_tlast, i_fire;
  logic [SB_W+2:0]     i_tuser;   // {sb, ecn, user}

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(SB_W + 3), .REG_TYPE(2)) u_in (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser({s_sb, s_ecn, s_axis_tuser}),
      .m_axis_tdata(i_tdata), .m_axis_tkeep(i_tkeep), .m_axis_tvalid(i_tvalid),
      .m_axis_tready(i_tready), .m_axis_tlast(i_tlast), .m_axis_tuser(i_tuser)
  );
  assign i_fire = i_tvalid && i_tready;

  // ---------------------------------------------------------------- D: header fields
  logic [BI_W-1:0]  beat_q;          // beat index within the frame (saturates at BIDX)
  logic [8*HB-1:0]  seen_q, hv;      // header bytes seen so far / incl. this beat
  logic [HB-1:0]    have_q, hhave;

  // header view: bytes of earlier beats plus this beat. It is only used while
  // beat_q < BIDX (hdr_beat); when the header fits one beat (BIDX = 1) it is that beat
  // alone, so the decode starts at the input register and not at beat_q / seen_q.
  logic [BI_W-1:0] vbeat;
  assign vbeat = BIDX > 1 ? beat_q : '0;

  always_comb begin
    hv    = BIDX > 1 ? seen_q : '0;
    hhave = BIDX > 1 ? have_q : '0;
    for (int b = 0; b < HB; b++) begin
      for (int l = 0; l < KEEP_W; l++) begin
        if (int'(vbeat) * KEEP_W + l == b && i_tkeep[l]) begin
          hv[8*b +: 8] = i_tdata[8*l +: 8];
          hhave[b]     = 1'b1;
        end
      end
    end
  end

  // Both header layouts (no tag: L3 at byte 14; one 802.1Q tag: byte 18) are decoded in
  // parallel and the tag compare picks one in stage A.
  typedef struct packed {
    logic            vlan;       // one 802.1Q tag
    logic            is4_p;      // IPv4 (EtherType, version, TOS byte in view), no tag
    logic            is4_t;      // the same behind a tag
    logic            mk_p;       // IPv4/IPv6 with ECT(0)/ECT(1), no tag / tag
    logic            mk_t;
    logic            nt_p;       // IPv4/IPv6 with Not-ECT, no tag / tag
    logic            nt_t;
    logic            hdr_beat;   // beat_q < BIDX
    logic            ce_out;     // outer ECN is CE
    logic [BI_W-1:0] beat;
    logic [7:0]      tos;        // its second byte (IPv4 TOS, IPv6 traffic class bits)
    logic [15:0]     csum_old;   // IPv4 header checksum
  } dec_t;

  // ECT(0)/ECT(1) and Not-ECT: IPv4 ECN = TOS[1:0]; IPv6 ECN = traffic class[1:0] = bits
  // 5:4 of the header's second byte
  function automatic logic ect(input logic [1:0] e);
    return e == 2'b01 || e == 2'b10;
  endfunction

  dec_t        dec_in, dec;
  logic [15:0] et_plain, et_tag;
  logic [3:0]  ver_p, ver_t;     // version nibbles
  logic [7:0]  tos_p, tos_t;
  logic        is6_p, is6_t;
  always_comb begin
    et_plain        = {hv[8*12 +: 8], hv[8*13 +: 8]};
    et_tag          = {hv[8*16 +: 8], hv[8*17 +: 8]};
    ver_p           = hv[8*14+4 +: 4];
    tos_p           = hv[8*15 +: 8];
    ver_t           = hv[8*18+4 +: 4];
    tos_t           = hv[8*19 +: 8];
    dec_in.vlan     = et_plain == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    dec_in.is4_p    = et_plain == fabnic_pkt_pkg::ETHERTYPE_IPV4 && ver_p == 4'd4 && hhave[15];
    is6_p           = et_plain == fabnic_pkt_pkg::ETHERTYPE_IPV6 && ver_p == 4'd6 && hhave[15];
    dec_in.is4_t    = et_tag == fabnic_pkt_pkg::ETHERTYPE_IPV4 && ver_t == 4'd4 && hhave[19];
    is6_t           = et_tag == fabnic_pkt_pkg::ETHERTYPE_IPV6 && ver_t == 4'd6 && hhave[19];
    dec_in.mk_p     = (dec_in.is4_p && ect(tos_p[1:0])) || (is6_p && ect(tos_p[5:4]));
    dec_in.mk_t     = (dec_in.is4_t && ect(tos_t[1:0])) || (is6_t && ect(tos_t[5:4]));
    dec_in.nt_p     = (dec_in.is4_p && tos_p[1:0] == 2'b00) || (is6_p && tos_p[5:4] == 2'b00);
    dec_in.nt_t     = (dec_in.is4_t && tos_t[1:0] == 2'b00) || (is6_t && tos_t[5:4] == 2'b00);
    dec_in.hdr_beat = beat_q < BI_W'(BIDX);
    dec_in.ce_out   = i_tuser[2:1] == fabnic_pkt_pkg::ECN_CE;
    dec_in.beat     = beat_q;
    dec_in.tos      = dec_in.vlan ? tos_t : tos_p;
    dec_in.csum_old = dec_in.vlan ? {hv[8*28 +: 8], hv[8*29 +: 8]}
                                  : {hv[8*24 +: 8], hv[8*25 +: 8]};
  end

  always_ff @(posedge clk) begin
    if (i_fire) begin
      if (dec_in.hdr_beat) begin
        seen_q <= hv;
        have_q <= hhave;
        beat_q <= beat_q + 1'b1;
      end
      if (i_tlast) begin
        seen_q <= '0;
        have_q <= '0;
        beat_q <= '0;
      end
    end
    if (rst) begin
      seen_q <= '0;
      have_q <= '0;
      beat_q <= '0;
    end
  end

  logic [DATA_W-1:0]         d_tdata;
  logic [KEEP_W-1:0]         d_tkeep;
  logic                      d_tvalid, d_tready, d_tlast, d_fire, d_user;
  logic [SB_W-1:0]           d_sb;

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(SB_W + $bits(dec_t) + 1),
                         .REG_TYPE(2)) u_dec (
      .clk, .rst,
      .s_axis_tdata(i_tdata), .s_axis_tkeep(i_tkeep), .s_axis_tvalid(i_tvalid),
      .s_axis_tready(i_tready), .s_axis_tlast(i_tlast),
      .s_axis_tuser({i_tuser[SB_W+2:3], dec_in, i_tuser[0]}),
      .m_axis_tdata(d_tdata), .m_axis_tkeep(d_tkeep), .m_axis_tvalid(d_tvalid),
      .m_axis_tready(d_tready), .m_axis_tlast(d_tlast), .m_axis_tuser({d_sb, dec, d_user})
  );
  assign d_fire = d_tvalid && d_tready;

  // ---------------------------------------------------------------- A: decision, checksum
  logic        is4, mark, notect;
  logic [15:0] csum_new, ncsum;
  logic [1:0]  inc;
  logic [16:0] y;

  always_comb begin
    is4       = dec.vlan ? dec.is4_t : dec.is4_p;
    mark      = dec.hdr_beat && dec.ce_out && (dec.vlan ? dec.mk_t : dec.mk_p);
    notect    = dec.hdr_beat && dec.ce_out && (dec.vlan ? dec.nt_t : dec.nt_p);
    // RFC 1624: HC' = ~(~HC + ~m + m') in ones' complement, m = {version byte, TOS}.
    // Only the TOS's two ECN bits change, so ~m + m' = m' - m = inc (1 for ECT(0), 2 for
    // ECT(1), the only cases that are patched): HC' = ~(~HC + inc), end-around carry.
    inc       = 2'b11 - dec.tos[1:0];
    ncsum     = ~dec.csum_old;   // 16-bit complement first (a cast would widen before ~)
    y         = 17'(ncsum) + 17'(inc);
    csum_new  = ~(y[15:0] + 16'(y[16]));
  end

  // the lanes to patch: the TOS byte (L3 + 1) and, for IPv4, the checksum (L3 + 10, 11)
  // when this beat holds them
  localparam int P_TOS = 15, P_CS = 24;   // without a tag; +4 with one
  function automatic logic in_beat(input logic [BI_W-1:0] beat, input logic vlan,
                                   input int pos);
    return int'(beat) == (vlan ? pos + 4 : pos) / KEEP_W;
  endfunction

  typedef struct packed {
    logic        vlan;
    logic        p_tos;      // patch the TOS lane in this beat
    logic        p_cs_hi;    // patch the checksum's high / low byte lane in this beat
    logic        p_cs_lo;
    logic [7:0]  tos_new;
    logic [15:0] csum_new;
  } act_t;

  act_t act_in, act;
  logic notect_q, marked_q, a_user;
  always_comb begin
    act_in.vlan     = dec.vlan;
    act_in.p_tos    = mark && in_beat(dec.beat, dec.vlan, P_TOS);
    act_in.p_cs_hi  = mark && is4 && in_beat(dec.beat, dec.vlan, P_CS);
    act_in.p_cs_lo  = mark && is4 && in_beat(dec.beat, dec.vlan, P_CS + 1);
    act_in.tos_new  = is4 ? (dec.tos | 8'h03) : (dec.tos | 8'h30);
    act_in.csum_new = csum_new;
    a_user          = d_user || (d_tlast && (notect_q || notect));
  end

  logic [DATA_W-1:0] a_tdata;

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(SB_W + $bits(act_t) + 1),
                         .REG_TYPE(2)) u_act (
      .clk, .rst,
      .s_axis_tdata(d_tdata), .s_axis_tkeep(d_tkeep), .s_axis_tvalid(d_tvalid),
      .s_axis_tready(d_tready), .s_axis_tlast(d_tlast), .s_axis_tuser({d_sb, act_in, a_user}),
      .m_axis_tdata(a_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
      .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast),
      .m_axis_tuser({m_sb, act, m_axis_tuser})
  );

  // ---------------------------------------------------------------- output: patch
  always_comb begin
    m_axis_tdata = a_tdata;
    for (int l = 0; l < KEEP_W; l++) begin
      if (act.p_tos && l == (act.vlan ? P_TOS + 4 : P_TOS) % KEEP_W)
        m_axis_tdata[8*l +: 8] = act.tos_new;
      if (act.p_cs_hi && l == (act.vlan ? P_CS + 4 : P_CS) % KEEP_W)
        m_axis_tdata[8*l +: 8] = act.csum_new[15:8];
      if (act.p_cs_lo && l == (act.vlan ? P_CS + 5 : P_CS + 1) % KEEP_W)
        m_axis_tdata[8*l +: 8] = act.csum_new[7:0];
    end
  end

  // counters: the frame's outcome is registered at its last beat and counted a cycle later
  logic inc_marked_q, inc_notect_q;

  always_ff @(posedge clk) begin
    inc_marked_q <= 1'b0;
    inc_notect_q <= 1'b0;
    if (d_fire) begin
      notect_q <= notect_q || notect;
      marked_q <= marked_q || mark;
      if (d_tlast) begin
        notect_q     <= 1'b0;
        marked_q     <= 1'b0;
        inc_marked_q <= marked_q || mark;
        inc_notect_q <= notect_q || notect;
      end
    end
    if (inc_marked_q) cnt_ce_marked <= cnt_ce_marked + 1'b1;
    if (inc_notect_q) cnt_ce_not_ect <= cnt_ce_not_ect + 1'b1;
    if (rst) begin
      notect_q       <= 1'b0;
      marked_q       <= 1'b0;
      inc_marked_q   <= 1'b0;
      inc_notect_q   <= 1'b0;
      cnt_ce_marked  <= '0;
      cnt_ce_not_ect <= '0;
    end
  end

endmodule

`resetall
