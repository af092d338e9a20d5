// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pfc_tx: IEEE 802.1Qbb PFC frame generator, inserted in the transmit
// AXI-Stream in front of the MAC (any DATA_W >= 64, power of two).
//
// - pfc_req[p]=1 asks the link partner to stop priority p (XOFF). The block
//   keeps `sent` = the XOFF set last announced. A PFC frame is sent when
//   pfc_req differs from `sent` (a priority asserted: quanta cfg_quanta; a
//   priority released: quanta 0 = XON), and again every cfg_refresh cycles
//   while any priority stays asserted (choose cfg_refresh below
//   cfg_quanta * cycles per quantum so the partner's timer never runs out).
//   The class-enable vector holds every asserted or just released priority.
// - Frame (60 bytes, the MAC adds FCS): DA 01-80-C2-00-00-01, SA cfg_src_mac
//   (bits 47:40 first on the wire), EtherType 0x8808, opcode 0x0101, class
//   enable vector (16 bit), 8 x 16-bit quanta, zero padding. Big endian.
// - Control frames have priority over data but only at frame boundaries: a
//   data frame is never interrupted. pfc_req is sampled into a register and
//   frozen while a control frame is being presented, so the frame sent is
//   consistent; a change during that time causes the next frame. The decision
//   that a frame is due is registered: a frame starts (at a frame boundary) 2
//   cycles after pfc_req changes, and cfg_refresh + 2 cycles after the end of the
//   last PFC frame at the earliest for a refresh.
// - Data passes combinationally (no added latency, no bubbles): combinational
//   handshake paths by design, s_axis_tvalid -> m_axis_tvalid and s_axis_tready,
//   m_axis_tready -> s_axis_tready (fabnic_eth_mac_axis puts registers on both
//   sides).
// - Counters (wrap): PFC frames sent, of which frames carrying at least one
//   XON (quanta 0 for a released priority).
`default_nettype none

module fabnic_pfc_tx #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int USER_W = 1,
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    input  wire logic [7:0]        pfc_req,
    input  wire logic [47:0]       cfg_src_mac,
    input  wire logic [15:0]       cfg_quanta,
    input  wire logic [31:0]       cfg_refresh,   // cycles between refreshes

    output logic      [CNT_W-1:0]  stat_pfc_frames,
    output logic      [CNT_W-1:0]  stat_xon_frames
);

  if (KEEP_W < 8 || (KEEP_W & (KEEP_W - 1)) != 0) begin : g_check_w
    $error("fabnic_pfc_tx: DATA_W must be a power of two >= 64");
  end

  localparam int FRAME_B = 60;
  localparam int NB      = (FRAME_B + KEEP_W - 1) / KEEP_W;   // beats per control frame
  localparam int LAST_B  = FRAME_B - (NB - 1) * KEEP_W;       // bytes in the last beat
  localparam int BI_W    = (NB > 1) ? $clog2(NB) : 1;

  typedef enum logic [1:0] {
    C_NONE,
    C_DATA,
    C_CTRL
  } src_e;

  src_e            mode_q;       // frame in progress (C_NONE between frames)
  logic            lock_q;       // a first beat was presented and not yet taken
  src_e            lock_sel_q;
  logic [BI_W-1:0] cbeat_q;
  logic [7:0]      snap_q;       // sampled pfc_req
  logic [7:0]      sent_q;       // XOFF set last announced
  logic [31:0]     rc_q;         // cycles since the last PFC frame

  // "a control frame is due", registered: computed from snap/sent/rc one cycle
  // earlier and cleared when a control frame ends (sent and rc change then)
  logic pend_q, c_end;

  src_e cur;
  always_comb begin
    if (mode_q != C_NONE)    cur = mode_q;
    else if (lock_q)         cur = lock_sel_q;
    else if (pend_q)         cur = C_CTRL;
    else if (s_axis_tvalid)  cur = C_DATA;
    else                     cur = C_NONE;
  end

  // control frame image, byte i at bits 8*i+7:8*i
  logic [NB*DATA_W-1:0] img;
  logic [7:0]           cev;
  assign cev = snap_q | sent_q;
  always_comb begin
    img = '0;
    img[0 +: 48] = 48'h01_00_00_C2_80_01;            // 01-80-C2-00-00-01
    for (int i = 0; i < 6; i++) img[8*(6 + i) +: 8] = cfg_src_mac[8*(5 - i) +: 8];
    img[8*12 +: 8] = 8'h88;
    img[8*13 +: 8] = 8'h08;
    img[8*14 +: 8] = 8'h01;
    img[8*15 +: 8] = 8'h01;
    img[8*16 +: 8] = 8'h00;
    img[8*17 +: 8] = cev;
    for (int p = 0; p < 8; p++) begin
      img[8*(18 + 2*p) +: 8] = snap_q[p] ? cfg_quanta[15:8] : 8'h00;
      img[8*(19 + 2*p) +: 8] = snap_q[p] ? cfg_quanta[7:0]  : 8'h00;
    end
  end

  logic c_last;
  assign c_last = int'(cbeat_q) == NB - 1;

  always_comb begin
    m_axis_tdata  = s_axis_tdata;
    m_axis_tkeep  = s_axis_tkeep;
    m_axis_tlast  = s_axis_tlast;
    m_axis_tuser  = s_axis_tuser;
    m_axis_tvalid = 1'b0;
    s_axis_tready = 1'b0;
    if (cur == C_DATA) begin
      m_axis_tvalid = s_axis_tvalid;
      s_axis_tready = m_axis_tready;
    end else if (cur == C_CTRL) begin
      m_axis_tvalid = 1'b1;
      m_axis_tdata  = img[int'(cbeat_q)*DATA_W +: DATA_W];
      for (int i = 0; i < KEEP_W; i++) m_axis_tkeep[i] = !c_last || i < LAST_B;
      m_axis_tlast  = c_last;
      m_axis_tuser  = '0;
    end
  end

  logic fire;
  assign fire = m_axis_tvalid && m_axis_tready;

  assign c_end = cur == C_CTRL && fire && c_last;

  always_ff @(posedge clk) begin
    pend_q <= !c_end && ((snap_q != sent_q) || ((sent_q != '0) && (rc_q >= cfg_refresh)));
    if (cur != C_CTRL) snap_q <= pfc_req;
    if (rc_q != '1) rc_q <= rc_q + 1'b1;

    if (mode_q == C_NONE && cur != C_NONE) begin
      lock_q     <= !fire;
      lock_sel_q <= cur;
      if (fire && !m_axis_tlast) mode_q <= cur;
    end else if (fire && m_axis_tlast) begin
      mode_q <= C_NONE;
    end

    if (cur == C_CTRL && fire) begin
      cbeat_q <= c_last ? '0 : cbeat_q + 1'b1;
      if (c_last) begin
        sent_q          <= snap_q;
        rc_q            <= '0;
        stat_pfc_frames <= stat_pfc_frames + 1'b1;
        if ((sent_q & ~snap_q) != '0) stat_xon_frames <= stat_xon_frames + 1'b1;
      end
    end

    if (rst) begin
      pend_q  <= 1'b0;
      mode_q  <= C_NONE;
      lock_q  <= 1'b0;
      cbeat_q <= '0;
      snap_q  <= '0;
      sent_q  <= '0;
      rc_q    <= '0;
      stat_pfc_frames <= '0;
      stat_xon_frames <= '0;
    end
  end

endmodule

`resetall
