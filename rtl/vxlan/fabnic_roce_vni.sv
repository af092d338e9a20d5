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
//       inner frames from the VTEP) -> frame-atomic round robin -> header window ->
//       BTH DestQP -> table[DestQP]:
//         tunnel frame of VNI v: passed iff the QP is bound to v
//         plain frame:           passed iff the QP is not bound
//       -> m_rx_* (the engine's single RX input). Everything else is dropped and
//       counted per reason. "A frame never leaves its VNI."
//
// Latency: TX 1 cycle per frame (table read before the first beat moves; one idle
// cycle between frames). RX: the decision needs the first WIN_BEATS beats (128 bytes at
// 512 bits, 96 at 64) or the frame's end, then 2 cycles; beats wait in a FIFO
// (RX_DEPTH beats) meanwhile. Full: back-pressure everywhere (nothing is dropped for
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

  // ---- header window capture (beat granular: tkeep is full except on the last beat)
  logic [DATA_W-1:0] win_q [WIN_BEATS];
  logic [WB_W-1:0]   wb_q;          // beats of the current frame captured (WIN_BEATS = done)
  logic [7:0]        wlen_q;        // bytes captured
  logic [24:0]       wsb_q;         // {vni, tunnel} of the frame
  logic              mx_fire, hdr_fire, capturing, dec_space;
  logic [7:0]        beat_bytes;

  logic              d_valid_q, d_end_q, d_tun_q;
  logic [23:0]       d_vni_q;
  logic [7:0]        d_len_q;
  logic [WIN_BYTES*8-1:0] d_win_q;
  logic              e_valid_q, e_roce_q, e_range_q, e_tun_q;
  logic [23:0]       e_vni_q;

  logic              dq_in_valid, dq_in_ready, dq_out_valid, dq_out_ready;
  logic [0:0]        dq_out_data;
  logic [$clog2(DEC_DEPTH):0] dq_count;

  logic              bf_in_ready;

  assign capturing  = 32'(wb_q) < WIN_BEATS;
  // room for this frame's decision besides those in the D/E stages
  assign dec_space  = 32'(dq_count) + 32'(d_valid_q) + 32'(e_valid_q) < DEC_DEPTH;
  assign mx_tready  = bf_in_ready && (!capturing || dec_space);
  assign mx_fire    = mx_tvalid && mx_tready;
  assign hdr_fire   = mx_fire && capturing && (32'(wb_q) == WIN_BEATS - 1 || mx_tlast);
  assign beat_bytes = 8'($countones(mx_tkeep));

  always_ff @(posedge clk) begin
    d_valid_q <= 1'b0;
    if (mx_fire) begin
      if (capturing) begin
        for (int b = 0; b < WIN_BEATS; b++) if (32'(wb_q) == b) win_q[b] <= mx_tdata;
        wlen_q      <= wlen_q + beat_bytes;
        wb_q        <= wb_q + 1'b1;
        if (wb_q == '0) wsb_q <= mx_tuser[UW-1:1];
      end
      if (mx_tlast) begin
        wb_q   <= '0;
        wlen_q <= '0;
      end
    end
    if (hdr_fire) begin
      d_valid_q <= 1'b1;
      d_end_q   <= mx_tlast;
      d_len_q   <= wlen_q + beat_bytes;
      {d_vni_q, d_tun_q} <= (wb_q == '0) ? mx_tuser[UW-1:1] : wsb_q;
      for (int b = 0; b < WIN_BEATS; b++) begin
        if (32'(wb_q) == b) d_win_q[b*DATA_W +: DATA_W] <= mx_tdata;
        else if (32'(wb_q) > b) d_win_q[b*DATA_W +: DATA_W] <= win_q[b];
        else d_win_q[b*DATA_W +: DATA_W] <= '0;
      end
    end
    if (rst) begin
      wb_q      <= '0;
      wlen_q    <= '0;
      d_valid_q <= 1'b0;
    end
  end

  // ---- stage D: decode the window, read the table
  fabnic_pkt_pkg::pkt_meta_t d_meta;
  logic [7:0]  unused_need;
  logic [16:0] unused_ip_end;
  fabnic_pkt_hdr_decode #(.WIN_BYTES(WIN_BYTES)) u_dec (
      .hdr(d_win_q), .len(d_len_q), .ended(d_end_q), .meta(d_meta),
      .need(unused_need), .ip_end(unused_ip_end)
  );

  logic        d_roce;
  logic [23:0] d_dqp;
  always_comb begin
    int po;
    po = int'(d_meta.payload_offset);
    d_roce = (d_meta.is_ipv4 || d_meta.is_ipv6) && d_meta.is_udp && !d_meta.ip_frag
             && d_meta.dst_port == fabnic_pkt_pkg::UDP_PORT_ROCEV2 && !d_meta.err.runt
             && 32'(d_len_q) >= po + fabnic_pkt_pkg::BTH_BYTES;
    d_dqp = '0;
    for (int k = 0; k < 3; k++) begin
      if (po + 5 + k < WIN_BYTES) d_dqp[8*(2-k) +: 8] = d_win_q[8*(po + 5 + k) +: 8];
    end
  end
  logic unused_meta;
  assign unused_meta = ^d_meta;

  assign rx_rd_en   = d_valid_q;
  assign rx_rd_addr = QPN_W'(d_dqp);

  always_ff @(posedge clk) begin
    e_valid_q <= d_valid_q;
    if (d_valid_q) begin
      e_roce_q  <= d_roce;
      e_range_q <= 32'(d_dqp) < NUM_QP;
      e_tun_q   <= d_tun_q;
      e_vni_q   <= d_vni_q;
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
  assign unused_dq_ready = dq_in_ready;   // space is reserved before the header beat

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
      .s_axis_tdata(mx_tdata), .s_axis_tkeep(mx_tkeep),
      .s_axis_tvalid(mx_tvalid && (!capturing || dec_space)), .s_axis_tready(bf_in_ready),
      .s_axis_tlast(mx_tlast), .s_axis_tuser(mx_tuser[0]),
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

endmodule

`resetall
