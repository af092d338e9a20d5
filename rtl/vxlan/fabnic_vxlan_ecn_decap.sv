// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vxlan_ecn_decap: RFC 6040 ECN decapsulation on the inner frame.
//
// s_ecn is the outer header's ECN field (constant while the frame's beats are offered).
// When it is CE (11) and the inner frame is IPv4 or IPv6 (after at most one 802.1Q tag):
//   inner ECT(0)/ECT(1)  -> the inner ECN field is set to CE; for IPv4 the header
//                           checksum is updated incrementally (RFC 1624, eqn. 3);
//   inner CE             -> unchanged;
//   inner Not-ECT        -> frame marked bad (tuser[0]=1 on its last beat: RFC 6040 says
//                           drop) and counted in cnt_ce_not_ect.
// Other outer ECN values and non-IP inner frames pass unchanged. cnt_ce_marked counts
// frames whose inner header was changed. Purely combinational on the data path (no
// added latency); the first 32 bytes are remembered across beats. The counters follow
// a frame's last beat by one cycle.
`default_nettype none

module fabnic_vxlan_ecn_decap #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
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

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic                   m_axis_tuser,

    output logic      [CNT_W-1:0]  cnt_ce_marked,
    output logic      [CNT_W-1:0]  cnt_ce_not_ect
);

  localparam int HB   = 32;                          // header bytes looked at
  localparam int BIDX = (HB + KEEP_W - 1) / KEEP_W;  // beats covering them
  localparam int BI_W = $clog2(BIDX + 1);

  logic [BI_W-1:0]  beat_q;          // beat index within the frame (saturates at BIDX)
  logic [8*HB-1:0]  seen_q, hv;      // header bytes seen so far / incl. this beat
  logic [HB-1:0]    have_q, hhave;
  logic             notect_q, marked_q;

  // header view: bytes of earlier beats plus this beat. It is only used while
  // beat_q < BIDX (hdr_beat); when the header fits one beat (BIDX = 1) it is that beat
  // alone, so the decode below starts at the input and not at beat_q / seen_q.
  logic [BI_W-1:0] vbeat;
  logic            hdr_beat;
  assign vbeat    = BIDX > 1 ? beat_q : '0;
  assign hdr_beat = beat_q < BI_W'(BIDX);

  always_comb begin
    hv    = BIDX > 1 ? seen_q : '0;
    hhave = BIDX > 1 ? have_q : '0;
    for (int b = 0; b < HB; b++) begin
      for (int l = 0; l < KEEP_W; l++) begin
        if (int'(vbeat) * KEEP_W + l == b && s_axis_tkeep[l]) begin
          hv[8*b +: 8] = s_axis_tdata[8*l +: 8];
          hhave[b]     = 1'b1;
        end
      end
    end
  end

  logic        vlan, is4, is6, ce_out, ect_in, notect_in;
  logic [4:0]  l3;
  logic [7:0]  tos, ver;
  logic [15:0] csum_old, csum_new, m_old, m_new, ncsum, nm_old;
  logic [16:0] s1;
  logic [17:0] acc;

  always_comb begin
    vlan     = {hv[8*12 +: 8], hv[8*13 +: 8]} == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    l3       = vlan ? 5'd18 : 5'd14;
    ver      = hv[8*l3 +: 8];
    tos      = hv[8*(l3 + 5'd1) +: 8];
    is4      = (vlan ? {hv[8*16 +: 8], hv[8*17 +: 8]} : {hv[8*12 +: 8], hv[8*13 +: 8]})
               == fabnic_pkt_pkg::ETHERTYPE_IPV4 && ver[7:4] == 4'd4 && hhave[l3 + 5'd1];
    is6      = (vlan ? {hv[8*16 +: 8], hv[8*17 +: 8]} : {hv[8*12 +: 8], hv[8*13 +: 8]})
               == fabnic_pkt_pkg::ETHERTYPE_IPV6 && ver[7:4] == 4'd6 && hhave[l3 + 5'd1];
    ce_out   = s_ecn == fabnic_pkt_pkg::ECN_CE;
    // IPv4 ECN = TOS[1:0]; IPv6 ECN = traffic class[1:0] = bits 5:4 of byte 1
    ect_in   = is4 ? (tos[1:0] == 2'b01 || tos[1:0] == 2'b10)
                   : (tos[5:4] == 2'b01 || tos[5:4] == 2'b10);
    notect_in = (is4 && tos[1:0] == 2'b00) || (is6 && tos[5:4] == 2'b00);
    // RFC 1624: HC' = ~(~HC + ~m + m')
    csum_old = {hv[8*(l3 + 5'd10) +: 8], hv[8*(l3 + 5'd11) +: 8]};
    m_old    = {ver, tos};
    m_new    = {ver, tos | 8'h03};
    ncsum    = ~csum_old;   // 16-bit complements first (a cast would widen before ~)
    nm_old   = ~m_old;
    acc      = 18'(ncsum) + 18'(nm_old) + 18'(m_new);
    s1       = 17'(acc[15:0]) + 17'(acc[17:16]);
    csum_new = ~(s1[15:0] + 16'(s1[16]));
  end

  logic mark, notect;
  assign mark   = hdr_beat && ce_out && ect_in && (is4 || is6);
  assign notect = hdr_beat && ce_out && notect_in;

  always_comb begin
    m_axis_tdata = s_axis_tdata;
    for (int l = 0; l < KEEP_W; l++) begin
      if (mark) begin
        if (int'(beat_q) * KEEP_W + l == int'(l3) + 1) begin
          m_axis_tdata[8*l +: 8] = is4 ? (tos | 8'h03) : (tos | 8'h30);
        end
        if (is4 && int'(beat_q) * KEEP_W + l == int'(l3) + 10) m_axis_tdata[8*l +: 8] = csum_new[15:8];
        if (is4 && int'(beat_q) * KEEP_W + l == int'(l3) + 11) m_axis_tdata[8*l +: 8] = csum_new[7:0];
      end
    end
  end

  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tvalid = s_axis_tvalid;
  assign s_axis_tready = m_axis_tready;
  assign m_axis_tlast  = s_axis_tlast;
  assign m_axis_tuser  = s_axis_tuser || (s_axis_tlast && (notect_q || notect));

  logic fire;
  assign fire = s_axis_tvalid && s_axis_tready;

  // counters: the frame's outcome is registered at its last beat and counted a cycle later
  logic inc_marked_q, inc_notect_q;

  always_ff @(posedge clk) begin
    inc_marked_q <= 1'b0;
    inc_notect_q <= 1'b0;
    if (fire) begin
      if (hdr_beat) begin
        seen_q   <= hv;
        have_q   <= hhave;
        beat_q   <= beat_q + 1'b1;
      end
      notect_q <= notect_q || notect;
      marked_q <= marked_q || mark;
      if (s_axis_tlast) begin
        seen_q       <= '0;
        have_q       <= '0;
        beat_q       <= '0;
        notect_q     <= 1'b0;
        marked_q     <= 1'b0;
        inc_marked_q <= marked_q || mark;
        inc_notect_q <= notect_q || notect;
      end
    end
    if (inc_marked_q) cnt_ce_marked <= cnt_ce_marked + 1'b1;
    if (inc_notect_q) cnt_ce_not_ect <= cnt_ce_not_ect + 1'b1;
    if (rst) begin
      seen_q         <= '0;
      have_q         <= '0;
      beat_q         <= '0;
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
