// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_vni: per-QP VNI binding between the RoCE transport (fabnic_roce_core)
// and the VTEP (fabnic_vtep through fabnic_vnic_dev). docs/nic.md.
//
//   binding table: NUM_QP x {bound, vni[23:0]} (fabnic_ram_sdp, one copy per read
//   port: TX lookup, RX lookup, register read-back; all written together)
//
//   TX: engine frame + local QPN (s_tx_tqpn) -> table[tqpn]:
//         bound   -> m_rtx_* with m_rtx_vni = the QP's VNI (to the VTEP: encapsulated)
//         unbound -> m_wire_* (plain RoCEv2 to the wire)
//   RX: s_plain_* (plain RoCEv2 from the wire) and s_tun_* + s_tun_vni (decapsulated
//       inner frames from the VTEP) -> frame-atomic round robin -> skid register ->
//       header window -> D (fixed fields; port, length and DestQP at each of the twelve
//       possible L4 offsets) -> D2 (the frame's offset; table[BTH DestQP] read) ->
//       E (decision):
//         tunnel frame of VNI v: passed iff the QP is bound to v
//         plain frame:           passed iff the QP is not bound
//       -> m_rx_* (the engine's single RX input). Everything else is dropped and
//       counted per reason. "A frame never leaves its VNI."
//
// Latency: TX 1 cycle per frame (table read before the first beat moves; one idle
// cycle between frames). RX: 1 cycle (skid register), then the decision needs the
// first WIN_BEATS beats (128 bytes at 512 bits, 96 at 64) or the frame's end, then 3
// cycles; beats wait in a FIFO (RX_DEPTH beats) meanwhile.
// Handshakes: the RX merge's ready is a flop (skid register); the TX path is a mux with
// combinational paths m_wire_tready / m_rtx_tready -> s_tx_tready and s_tx_tvalid ->
// m_wire_tvalid / m_rtx_tvalid; s_plain/s_tun valid -> ready through the round-robin
// grant (fabnic_axis_arb_mux). Full: back-pressure everywhere (nothing is dropped for
// lack of space). After reset the table is cleared (NUM_QP cycles, init_done), no
// frame moves before.
`default_nettype none

module fabnic_roce_vni #(
    parameter int DATA_W   = 512,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int NUM_QP   = 1024,          // table entries = the engine's QPs
    parameter int RX_DEPTH = (DATA_W < 128) ? 32 : 16,  // RX beat FIFO (power of two, >= WIN_BEATS + 2)
    parameter int DEC_DEPTH = 8,            // RX decisions in flight (power of two)
    parameter int CNT_W    = 32,
    parameter int QPN_W    = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic              clk,
    input  wire logic              rst,
    output logic                   init_done,

    // ---- binding table (from registers)
    input  wire logic              cfg_we,        // write {cfg_bound, cfg_vni} to cfg_qpn
    input  wire logic [23:0]       cfg_qpn,
    input  wire logic              cfg_bound,
    input  wire logic [23:0]       cfg_vni,
    input  wire logic [23:0]       cfg_rd_qpn,    // read-back (1 cycle, continuous)
    output logic                   cfg_rd_bound,
    output logic [23:0]            cfg_rd_vni,

    // ---- TX: from the engine
    input  wire logic [DATA_W-1:0] s_tx_tdata,
    input  wire logic [KEEP_W-1:0] s_tx_tkeep,
    input  wire logic              s_tx_tvalid,
    output logic                   s_tx_tready,
    input  wire logic              s_tx_tlast,
    input  wire logic              s_tx_tuser,
    input  wire logic [23:0]       s_tx_tqpn,
    //      plain RoCEv2 to the wire
    output logic [DATA_W-1:0]      m_wire_tdata,
    output logic [KEEP_W-1:0]      m_wire_tkeep,
    output logic                   m_wire_tvalid,
    input  wire logic              m_wire_tready,
    output logic                   m_wire_tlast,
    output logic                   m_wire_tuser,
    //      inner frames to the VTEP
    output logic [DATA_W-1:0]      m_rtx_tdata,
    output logic [KEEP_W-1:0]      m_rtx_tkeep,
    output logic                   m_rtx_tvalid,
    input  wire logic              m_rtx_tready,
    output logic                   m_rtx_tlast,
    output logic                   m_rtx_tuser,
    output logic [23:0]            m_rtx_vni,

    // ---- RX: plain RoCEv2 from the wire
    input  wire logic [DATA_W-1:0] s_plain_tdata,
    input  wire logic [KEEP_W-1:0] s_plain_tkeep,
    input  wire logic              s_plain_tvalid,
    output logic                   s_plain_tready,
    input  wire logic              s_plain_tlast,
    input  wire logic              s_plain_tuser,
    //      decapsulated inner frames from the VTEP
    input  wire logic [DATA_W-1:0] s_tun_tdata,
    input  wire logic [KEEP_W-1:0] s_tun_tkeep,
    input  wire logic              s_tun_tvalid,
    output logic                   s_tun_tready,
    input  wire logic              s_tun_tlast,
    input  wire logic              s_tun_tuser,
    input  wire logic [23:0]       s_tun_vni,
    //      to the engine
    output logic [DATA_W-1:0]      m_rx_tdata,
    output logic [KEEP_W-1:0]      m_rx_tkeep,
    output logic                   m_rx_tvalid,
    input  wire logic              m_rx_tready,
    output logic                   m_rx_tlast,
    output logic                   m_rx_tuser,

    // ---- counters (frames; wrap)
    output logic [CNT_W-1:0]       cnt_tx_plain,          // engine -> wire
    output logic [CNT_W-1:0]       cnt_tx_tunnel,         // engine -> VTEP
    output logic [CNT_W-1:0]       cnt_rx_plain,          // wire -> engine
    output logic [CNT_W-1:0]       cnt_rx_tunnel,         // VTEP -> engine
    output logic [CNT_W-1:0]       cnt_drop_vni_mismatch, // tunnel frame, QP bound to another VNI
    output logic [CNT_W-1:0]       cnt_drop_unbound_tun,  // tunnel frame, QP not bound (or >= NUM_QP)
    output logic [CNT_W-1:0]       cnt_drop_bound_plain,  // plain frame for a bound QP
    output logic [CNT_W-1:0]       cnt_drop_not_roce      // no UDP 4791 + BTH in the header window
);

  localparam int WIN_BEATS = (96 + KEEP_W - 1) / KEEP_W;
  localparam int WIN_BYTES = WIN_BEATS * KEEP_W;
  localparam int WB_W      = (WIN_BEATS > 1) ? $clog2(WIN_BEATS + 1) : 1;
  localparam int EW        = 25;   // {bound, vni}

  if (DATA_W % 64 != 0 || KEEP_W != DATA_W / 8 || RX_DEPTH < WIN_BEATS + 2
      || DEC_DEPTH < 4 || NUM_QP < 1 || WIN_BYTES > 255) begin : g_chk
    $error("fabnic_roce_vni: DATA_W multiple of 64, RX_DEPTH >= WIN_BEATS+2, DEC_DEPTH >= 4");
  end

  // =====================================================================
  // binding table: clear after reset, then register writes
  // =====================================================================
  logic [QPN_W-1:0] clr_q;
  logic             init_q, wr_en;
  logic [QPN_W-1:0] wr_addr;
  logic [EW-1:0]    wr_data;
  logic             pend_q, pend_bound_q;
  logic [23:0]      pend_qpn_q, pend_vni_q;

  always_ff @(posedge clk) begin
    if (!init_q) begin
      clr_q <= clr_q + 1'b1;
      if (32'(clr_q) == NUM_QP - 1) init_q <= 1'b1;
    end
    if (cfg_we) begin
      pend_q       <= 1'b1;
      pend_qpn_q   <= cfg_qpn;
      pend_bound_q <= cfg_bound;
      pend_vni_q   <= cfg_vni;
    end else if (init_q) begin
      pend_q <= 1'b0;
    end
    if (rst) begin
      clr_q  <= '0;
      init_q <= 1'b0;
      pend_q <= 1'b0;
    end
  end
  assign init_done = init_q;
  // a write to a QPN >= NUM_QP is ignored (the QP does not exist)
  assign wr_en   = !init_q || (pend_q && 32'(pend_qpn_q) < NUM_QP);
  assign wr_addr = init_q ? QPN_W'(pend_qpn_q) : clr_q;
  assign wr_data = init_q ? {pend_bound_q, pend_vni_q} : '0;

  logic             tx_rd_en, rx_rd_en;
  logic [QPN_W-1:0] tx_rd_addr, rx_rd_addr;
  logic [EW-1:0]    tx_rd_data, rx_rd_data, cfg_rd_data;

  fabnic_ram_sdp #(.DATA_W(EW), .DEPTH(NUM_QP)) u_tbl_tx (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr, .wr_data,
      .rd_en(tx_rd_en), .rd_regce(1'b1), .rd_addr(tx_rd_addr), .rd_data(tx_rd_data)
  );
  fabnic_ram_sdp #(.DATA_W(EW), .DEPTH(NUM_QP)) u_tbl_rx (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr, .wr_data,
      .rd_en(rx_rd_en), .rd_regce(1'b1), .rd_addr(rx_rd_addr), .rd_data(rx_rd_data)
  );
  fabnic_ram_sdp #(.DATA_W(EW), .DEPTH(NUM_QP)) u_tbl_cfg (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr, .wr_data,
      .rd_en(1'b1), .rd_regce(1'b1), .rd_addr(QPN_W'(cfg_rd_qpn)), .rd_data(cfg_rd_data)
  );
  logic unused_cfg_rd_hi;
  assign unused_cfg_rd_hi = ^cfg_rd_qpn;
  assign cfg_rd_bound = cfg_rd_data[24];
  assign cfg_rd_vni   = cfg_rd_data[23:0];

  // =====================================================================
  // TX: route per frame from the local QPN
  // =====================================================================
  // The read register holds the entry while rd_en is low, i.e. for the whole frame.
  logic        tx_rt_q, tx_bound;
  logic [23:0] tx_vni;
  logic        tx_fire;

  assign tx_rd_en   = init_q && s_tx_tvalid && !tx_rt_q;
  assign tx_rd_addr = QPN_W'(s_tx_tqpn);
  assign tx_bound   = tx_rd_data[24];
  assign tx_vni     = tx_rd_data[23:0];
  logic unused_tqpn;
  assign unused_tqpn = ^s_tx_tqpn;

  always_ff @(posedge clk) begin
    if (tx_rd_en) tx_rt_q <= 1'b1;
    if (tx_fire && s_tx_tlast) tx_rt_q <= 1'b0;
    if (rst) tx_rt_q <= 1'b0;
  end

  assign m_wire_tdata  = s_tx_tdata;
  assign m_wire_tkeep  = s_tx_tkeep;
  assign m_wire_tlast  = s_tx_tlast;
  assign m_wire_tuser  = s_tx_tuser;
  assign m_wire_tvalid = s_tx_tvalid && tx_rt_q && !tx_bound;
  assign m_rtx_tdata   = s_tx_tdata;
  assign m_rtx_tkeep   = s_tx_tkeep;
  assign m_rtx_tlast   = s_tx_tlast;
  assign m_rtx_tuser   = s_tx_tuser;
  assign m_rtx_vni     = tx_vni;
  assign m_rtx_tvalid  = s_tx_tvalid && tx_rt_q && tx_bound;
  assign s_tx_tready   = tx_rt_q && (tx_bound ? m_rtx_tready : m_wire_tready);
  assign tx_fire       = s_tx_tvalid && s_tx_tready;

  // =====================================================================
  // RX: merge (frame-atomic round robin), sideband {vni, tunnel, bad} in tuser
  // =====================================================================
  localparam int UW = 26;
  logic [DATA_W-1:0] mx_tdata;
  logic [KEEP_W-1:0] mx_tkeep;
  logic              mx_tvalid, mx_tready, mx_tlast;
  logic [UW-1:0]     mx_tuser;
  logic [1:0]        mx_s_ready;
  logic              unused_sel;

  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .USER_W(UW)) u_rx_mux (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata({s_tun_tdata, s_plain_tdata}),
      .s_axis_tkeep({s_tun_tkeep, s_plain_tkeep}),
      .s_axis_tvalid({s_tun_tvalid && init_q, s_plain_tvalid && init_q}),
      .s_axis_tready(mx_s_ready),
      .s_axis_tlast({s_tun_tlast, s_plain_tlast}),
      .s_axis_tuser({s_tun_vni, 1'b1, s_tun_tuser, 24'd0, 1'b0, s_plain_tuser}),
      .m_axis_tdata(mx_tdata), .m_axis_tkeep(mx_tkeep), .m_axis_tvalid(mx_tvalid),
      .m_axis_tready(mx_tready), .m_axis_tlast(mx_tlast), .m_axis_tuser(mx_tuser),
      .sel(unused_sel)
  );
  assign s_plain_tready = mx_s_ready[0] && init_q;
  assign s_tun_tready   = mx_s_ready[1] && init_q;

  // ---- skid register after the merge: the capture logic below reads flops, and the
  // merge's ready (mx_tready) is a flop
  logic [DATA_W-1:0] c_tdata;
  logic [KEEP_W-1:0] c_tkeep;
  logic              c_tvalid, c_tready, c_tlast;
  logic [UW-1:0]     c_tuser;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(UW), .REG_TYPE(2)) u_rx_reg (
      .clk, .rst,
      .s_axis_tdata(mx_tdata), .s_axis_tkeep(mx_tkeep), .s_axis_tvalid(mx_tvalid),
      .s_axis_tready(mx_tready), .s_axis_tlast(mx_tlast), .s_axis_tuser(mx_tuser),
      .m_axis_tdata(c_tdata), .m_axis_tkeep(c_tkeep), .m_axis_tvalid(c_tvalid),
      .m_axis_tready(c_tready), .m_axis_tlast(c_tlast), .m_axis_tuser(c_tuser)
  );

  // ---- header window capture (beat granular: tkeep is full except on the last beat)
  localparam int DR_W = $clog2(DEC_DEPTH) + 1;
  logic [DATA_W-1:0] win_q [WIN_BEATS];
  logic [WB_W-1:0]   wb_q;          // beats of the current frame captured (WIN_BEATS = done)
  logic [24:0]       wsb_q;         // {vni, tunnel} of the frame
  logic [DR_W-1:0]   dec_res_q;     // decisions reserved: in D, D2, E or the decision FIFO
                                    // (freed the cycle after their pop)
  logic              c_fire, hdr_fire, capturing, dec_space, dq_pop, dq_pop_q;

  logic              d_valid_q, d_tun_q;
  logic              vlan_q, d_vlan_q, c_vlan;   // 802.1Q tag (bytes 12..13), in C
  logic [23:0]       d_vni_q;
  logic [7:0]        d_len_q;       // bytes in the window
  logic [WIN_BYTES*8-1:0] d_win_q;
  logic              e_valid_q, e_roce_q, e_range_q, e_tun_q;
  logic [23:0]       e_vni_q;

  logic              dq_in_valid, dq_in_ready, dq_out_valid, dq_out_ready;
  logic [0:0]        dq_out_data;
  logic [$clog2(DEC_DEPTH):0] dq_count;

  logic              bf_in_ready;

  // the byte count of a beat's tkeep (contiguous from lane 0): the position of its last
  // one plus one, from the one-hot edge (no adder tree)
  function automatic logic [7:0] keep_bytes(input logic [KEEP_W-1:0] k);
    logic [KEEP_W-1:0] edge_oh;
    logic [7:0]        n;
    for (int i = 0; i < KEEP_W; i++) edge_oh[i] = k[i] && (i == KEEP_W - 1 || !k[i+1]);
    n = '0;
    for (int i = 0; i < KEEP_W; i++) if (edge_oh[i]) n = n | 8'(i + 1);
    return n;
  endfunction

  assign capturing = 32'(wb_q) < WIN_BEATS;
  // room for this frame's decision besides those reserved
  assign dec_space = 32'(dec_res_q) < DEC_DEPTH;
  assign c_tready  = bf_in_ready && (!capturing || dec_space);
  assign c_fire    = c_tvalid && c_tready;
  assign hdr_fire  = c_fire && capturing && (32'(wb_q) == WIN_BEATS - 1 || c_tlast);
  assign dq_pop    = dq_out_valid && dq_out_ready;
  // bytes 12..13 lie in one beat (KEEP_W is a multiple of 8): the tag is compared as
  // that beat is captured, so stage D starts from it
  localparam int VB = 12 / KEEP_W, VO = 12 % KEEP_W;
  assign c_vlan = {c_tdata[8*VO +: 8], c_tdata[8*(VO+1) +: 8]}
                  == fabnic_pkt_pkg::ETHERTYPE_VLAN;

  always_ff @(posedge clk) begin
    d_valid_q <= 1'b0;
    if (c_fire) begin
      if (capturing) begin
        for (int b = 0; b < WIN_BEATS; b++) if (32'(wb_q) == b) win_q[b] <= c_tdata;
        wb_q <= wb_q + 1'b1;
        if (wb_q == '0) wsb_q <= c_tuser[UW-1:1];
        if (32'(wb_q) == VB) vlan_q <= c_vlan;
      end
      if (c_tlast) wb_q <= '0;
    end
    if (hdr_fire) begin
      d_valid_q <= 1'b1;
      d_vlan_q  <= (32'(wb_q) == VB) ? c_vlan : vlan_q;   // a frame ending before: a runt
      // the beats before the last one of the window are full
      d_len_q   <= 8'(32'(wb_q) * KEEP_W) + keep_bytes(c_tkeep);
      {d_vni_q, d_tun_q} <= (wb_q == '0) ? c_tuser[UW-1:1] : wsb_q;
      for (int b = 0; b < WIN_BEATS; b++) begin
        if (32'(wb_q) == b) d_win_q[b*DATA_W +: DATA_W] <= c_tdata;
        else if (32'(wb_q) > b) d_win_q[b*DATA_W +: DATA_W] <= win_q[b];
        else d_win_q[b*DATA_W +: DATA_W] <= '0;
      end
    end
    dq_pop_q  <= dq_pop;
    dec_res_q <= dec_res_q + DR_W'(hdr_fire) - DR_W'(dq_pop_q);
    if (rst) begin
      wb_q      <= '0;
      d_valid_q <= 1'b0;
      dq_pop_q  <= 1'b0;
      dec_res_q <= '0;
    end
  end

  // ---- stage D: decode the window's fixed fields; per candidate L4 offset, the UDP
  // port check and the BTH DestQP
  // A RoCEv2 frame is Ethernet [802.1Q] + IPv4 (IHL 5..15, not a fragment) or IPv6
  // (next header UDP) + UDP 4791 + BTH: the L4 offset is 34 + 4 * NC_K with
  // NC_K = vlan + (IHL - 5) for IPv4, vlan + 5 for IPv6 (0..11). Stage D computes the
  // index and, for all twelve offsets at once, the port compare, the length check (the
  // frame must hold the BTH: length >= L4 + 20) and the DestQP; stage D2 picks one by
  // the registered index.
  localparam int NC = 16;   // index range; offsets 12..15 never hold a RoCE frame
  localparam int LEN_MIN = 34 + 8 + fabnic_pkt_pkg::BTH_BYTES;   // L4 + UDP + BTH at NC_K = 0

  function automatic logic [7:0] d_byte(input logic [WIN_BYTES*8-1:0] w, input int p);
    return (p < WIN_BYTES) ? w[8*p +: 8] : 8'd0;
  endfunction

  logic              d_vlan, d_v4_hdr, d_v4_udp, d_v6, d_et_v6;
  logic [15:0]       d_et;
  logic [7:0]        d_ip0, d_ip6, d_ip7, d_ip9;
  logic [3:0]        d_k;
  logic [NC-1:0]     d_cand_ok, d_range_ok;
  logic [QPN_W-1:0]  d_qpn [NC];
  always_comb begin
    d_vlan = d_vlan_q;
    d_et   = d_vlan ? {d_byte(d_win_q, 16), d_byte(d_win_q, 17)}
                    : {d_byte(d_win_q, 12), d_byte(d_win_q, 13)};
    d_ip0  = d_vlan ? d_byte(d_win_q, 18) : d_byte(d_win_q, 14);
    d_ip6  = d_vlan ? d_byte(d_win_q, 24) : d_byte(d_win_q, 20);
    d_ip7  = d_vlan ? d_byte(d_win_q, 25) : d_byte(d_win_q, 21);
    d_ip9  = d_vlan ? d_byte(d_win_q, 27) : d_byte(d_win_q, 23);
    // IPv4 with a valid IHL; UDP, not a fragment (MF = 0, offset = 0)
    d_v4_hdr = d_et == fabnic_pkt_pkg::ETHERTYPE_IPV4 && d_ip0[7:4] == 4'd4
               && d_ip0[3:0] >= 4'd5;
    d_v4_udp = d_ip9 == fabnic_pkt_pkg::IP_PROTO_UDP && !d_ip6[5] && d_ip6[4:0] == '0
               && d_ip7 == '0;
    // IPv6, next header UDP
    d_v6 = d_et == fabnic_pkt_pkg::ETHERTYPE_IPV6 && d_ip0[7:4] == 4'd6
           && d_ip6 == fabnic_pkt_pkg::IP_PROTO_UDP;
    // the index from the EtherType alone (a frame that is neither is not passed)
    d_et_v6 = d_et == fabnic_pkt_pkg::ETHERTYPE_IPV6;
    d_k     = d_et_v6 ? 4'd5 + 4'(d_vlan) : d_ip0[3:0] - 4'd5 + 4'(d_vlan);
    for (int j = 0; j < NC; j++) begin
      logic [23:0] dqp;
      int l4;
      l4 = 34 + 4 * j;
      dqp = {d_byte(d_win_q, l4 + 13), d_byte(d_win_q, l4 + 14), d_byte(d_win_q, l4 + 15)};
      d_cand_ok[j]  = j < 12 && 32'(d_len_q) >= LEN_MIN + 4 * j
                      && {d_byte(d_win_q, l4 + 2), d_byte(d_win_q, l4 + 3)}
                         == fabnic_pkt_pkg::UDP_PORT_ROCEV2;
      d_range_ok[j] = 32'(dqp) < NUM_QP;
      d_qpn[j]      = (j < 12) ? QPN_W'(dqp) : '0;
    end
  end

  // ---- stage D2: pick the frame's offset, read the table
  logic              d2_valid_q, d2_v4_hdr_q, d2_v4_udp_q, d2_v6_q, d2_tun_q;
  logic [23:0]       d2_vni_q;
  logic [3:0]        d2_k_q;
  logic [NC-1:0]     d2_cand_ok_q, d2_range_ok_q;
  logic [QPN_W-1:0]  d2_qpn_q [NC];
  always_ff @(posedge clk) begin
    d2_valid_q <= d_valid_q;
    if (d_valid_q) begin
      d2_v4_hdr_q   <= d_v4_hdr;
      d2_v4_udp_q   <= d_v4_udp;
      d2_v6_q       <= d_v6;
      d2_k_q        <= d_k;
      d2_cand_ok_q  <= d_cand_ok;
      d2_range_ok_q <= d_range_ok;
      d2_qpn_q      <= d_qpn;
      d2_tun_q      <= d_tun_q;
      d2_vni_q      <= d_vni_q;
    end
    if (rst) d2_valid_q <= 1'b0;
  end

  logic [QPN_W-1:0] d2_qpn;
  logic             d2_roce, d2_range;
  assign d2_qpn   = d2_qpn_q[d2_k_q];
  assign d2_roce  = ((d2_v4_hdr_q && d2_v4_udp_q) || d2_v6_q) && d2_cand_ok_q[d2_k_q];
  assign d2_range = d2_range_ok_q[d2_k_q];

  assign rx_rd_en   = d2_valid_q;
  assign rx_rd_addr = d2_qpn;

  always_ff @(posedge clk) begin
    e_valid_q <= d2_valid_q;
    if (d2_valid_q) begin
      e_roce_q  <= d2_roce;
      e_range_q <= d2_range;
      e_tun_q   <= d2_tun_q;
      e_vni_q   <= d2_vni_q;
    end
    if (rst) e_valid_q <= 1'b0;
  end

  // ---- stage E: decide, count
  logic e_bound, e_pass, e_vni_mis, e_unb_tun, e_bnd_plain, e_not_roce;
  always_comb begin
    e_bound     = e_range_q && rx_rd_data[24];
    e_not_roce  = !e_roce_q;
    e_vni_mis   = e_roce_q && e_tun_q && e_bound && rx_rd_data[23:0] != e_vni_q;
    e_unb_tun   = e_roce_q && e_tun_q && !e_bound;
    e_bnd_plain = e_roce_q && !e_tun_q && e_bound;
    e_pass      = e_roce_q && !e_vni_mis && !e_unb_tun && !e_bnd_plain;
  end
  assign dq_in_valid = e_valid_q;

  fabnic_fifo #(.WIDTH(1), .DEPTH(DEC_DEPTH)) u_dec_q (
      .clk, .rst, .in_valid(dq_in_valid), .in_ready(dq_in_ready), .in_data(e_pass),
      .out_valid(dq_out_valid), .out_ready(dq_out_ready), .out_data(dq_out_data),
      .status_count(dq_count)
  );
  logic unused_dq_ready;
  assign unused_dq_ready = ^{dq_in_ready, dq_count};  // space is reserved (dec_res_q)

  always_ff @(posedge clk) begin
    if (e_valid_q) begin
      if (e_pass && e_tun_q) cnt_rx_tunnel <= cnt_rx_tunnel + 1'b1;
      if (e_pass && !e_tun_q) cnt_rx_plain <= cnt_rx_plain + 1'b1;
      if (e_vni_mis) cnt_drop_vni_mismatch <= cnt_drop_vni_mismatch + 1'b1;
      if (e_unb_tun) cnt_drop_unbound_tun <= cnt_drop_unbound_tun + 1'b1;
      if (e_bnd_plain) cnt_drop_bound_plain <= cnt_drop_bound_plain + 1'b1;
      if (e_not_roce) cnt_drop_not_roce <= cnt_drop_not_roce + 1'b1;
    end
    if (tx_fire && s_tx_tlast) begin
      if (tx_bound) cnt_tx_tunnel <= cnt_tx_tunnel + 1'b1;
      else cnt_tx_plain <= cnt_tx_plain + 1'b1;
    end
    if (rst) begin
      cnt_rx_tunnel <= '0;
      cnt_rx_plain <= '0;
      cnt_drop_vni_mismatch <= '0;
      cnt_drop_unbound_tun <= '0;
      cnt_drop_bound_plain <= '0;
      cnt_drop_not_roce <= '0;
      cnt_tx_tunnel <= '0;
      cnt_tx_plain <= '0;
    end
  end

  // ---- beat FIFO and the output gate
  logic [DATA_W-1:0] bf_tdata;
  logic [KEEP_W-1:0] bf_tkeep;
  logic              bf_tvalid, bf_tready, bf_tlast;
  logic [0:0]        bf_tuser;
  logic [$clog2(RX_DEPTH):0] unused_bf_depth;
  logic              unused_bf_good, unused_bf_bad, unused_bf_ovf, unused_bf_osz;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .USER_W(1), .DEPTH(RX_DEPTH)) u_beats (
      .clk, .rst,
      .s_axis_tdata(c_tdata), .s_axis_tkeep(c_tkeep),
      .s_axis_tvalid(c_tvalid && (!capturing || dec_space)), .s_axis_tready(bf_in_ready),
      .s_axis_tlast(c_tlast), .s_axis_tuser(c_tuser[0]),
      .m_axis_tdata(bf_tdata), .m_axis_tkeep(bf_tkeep), .m_axis_tvalid(bf_tvalid),
      .m_axis_tready(bf_tready), .m_axis_tlast(bf_tlast), .m_axis_tuser(bf_tuser),
      .status_depth(unused_bf_depth), .status_good_frame(unused_bf_good),
      .status_bad_frame(unused_bf_bad), .status_overflow(unused_bf_ovf),
      .status_oversize(unused_bf_osz)
  );

  assign m_rx_tdata   = bf_tdata;
  assign m_rx_tkeep   = bf_tkeep;
  assign m_rx_tlast   = bf_tlast;
  assign m_rx_tuser   = bf_tuser[0];
  assign m_rx_tvalid  = bf_tvalid && dq_out_valid && dq_out_data[0];
  assign bf_tready    = dq_out_valid && (dq_out_data[0] ? m_rx_tready : 1'b1);
  assign dq_out_ready = bf_tvalid && bf_tready && bf_tlast;

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (32'(dec_res_q) == 32'(dq_count) + 32'(d_valid_q) + 32'(d2_valid_q)
                                + 32'(e_valid_q) + 32'(dq_pop_q))
        else $error("fabnic_roce_vni: reserved decisions %0d", dec_res_q);
      if (dq_in_valid) assert (dq_in_ready) else $error("fabnic_roce_vni: decision FIFO full");
    end
  end
`endif

endmodule

`resetall
