// SPDX-License-Identifier: Apache-2.0
//
// fabnic_eth_mac_10g: 10 G Ethernet MAC with PFC, 64-bit XGMII (156.25 MHz,
// single clock `clk`).
//
//   s_axis (N_PRIO queues) -> fabnic_eth_mac_axis (queues, pause-masked round
//   robin, PFC insertion) -> fabnic_xgmii_tx -> xgmii_txd/txc
//   xgmii_rxd/rxc -> fabnic_xgmii_rx (FCS check/strip) -> fabnic_eth_mac_axis
//   (PFC/PAUSE consume + timers, RX FIFO dropping bad frames) -> m_axis
//
// Frames on s_axis/m_axis carry no FCS. The TX queues are store-and-forward,
// so the XGMII transmitter never underflows for frames up to TXQ_DEPTH beats.
// Latency: TX 2 cycles in fabnic_eth_mac_axis (registers around pfc_tx) plus
// 4 to the /S/ column in fabnic_xgmii_tx; RX 5 cycles in fabnic_xgmii_rx (XGMII
// column to AXIS beat). pause rises 8 cycles after a PFC frame's /T/ column.
`default_nettype none

module fabnic_eth_mac_10g #(
    parameter int N_PRIO     = 8,
    parameter int TXQ_DEPTH  = 2048,        // beats (8 bytes) per priority queue
    parameter int RXQ_DEPTH  = 2048,        // beats
    parameter int MAX_FRAME  = 9216 + 18,   // bytes DA..FCS, longer RX frames are cut
    parameter int CNT_W      = 32,
    parameter int BYTE_CNT_W = 48
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    input  wire logic [N_PRIO*64-1:0]     s_axis_tdata,
    input  wire logic [N_PRIO*8-1:0]      s_axis_tkeep,
    input  wire logic [N_PRIO-1:0]        s_axis_tvalid,
    output logic      [N_PRIO-1:0]        s_axis_tready,
    input  wire logic [N_PRIO-1:0]        s_axis_tlast,
    input  wire logic [N_PRIO-1:0]        s_axis_tuser,

    output logic      [63:0]              m_axis_tdata,
    output logic      [7:0]               m_axis_tkeep,
    output logic                          m_axis_tvalid,
    input  wire logic                     m_axis_tready,
    output logic                          m_axis_tlast,
    output logic                          m_axis_tuser,

    output logic      [63:0]              xgmii_txd,
    output logic      [7:0]               xgmii_txc,
    input  wire logic [63:0]              xgmii_rxd,
    input  wire logic [7:0]               xgmii_rxc,

    input  wire logic [15:0]              cycles_per_quantum,  // Q8.8, 16'h0800 at 10 G
    input  wire logic [7:0]               pfc_req,
    input  wire logic [47:0]              cfg_src_mac,
    input  wire logic [15:0]              cfg_quanta,
    input  wire logic [31:0]              cfg_refresh,
    output logic      [7:0]               pause,

    output logic      [CNT_W-1:0]         stat_tx_frames,
    output logic      [BYTE_CNT_W-1:0]    stat_tx_bytes,
    output logic      [CNT_W-1:0]         stat_tx_underflow,
    output logic      [CNT_W-1:0]         stat_tx_bad,
    output logic      [CNT_W-1:0]         stat_tx_oversize,
    output logic      [CNT_W-1:0]         stat_tx_pfc,
    output logic      [CNT_W-1:0]         stat_tx_xon,
    output logic      [CNT_W-1:0]         stat_rx_frames,
    output logic      [BYTE_CNT_W-1:0]    stat_rx_bytes,
    output logic      [CNT_W-1:0]         stat_rx_bad_fcs,
    output logic      [CNT_W-1:0]         stat_rx_runt,
    output logic      [CNT_W-1:0]         stat_rx_oversize,
    output logic      [CNT_W-1:0]         stat_rx_xgmii_err,
    output logic      [CNT_W-1:0]         stat_rx_framing,
    output logic      [CNT_W-1:0]         stat_rx_pfc,
    output logic      [CNT_W-1:0]         stat_rx_pause,
    output logic      [CNT_W-1:0]         stat_rx_ctrl_other,
    output logic      [CNT_W-1:0]         stat_rx_ctrl_bad,
    output logic      [CNT_W-1:0]         stat_rx_bad,
    output logic      [CNT_W-1:0]         stat_rx_overflow
);

  logic [63:0] tx_tdata;
  logic [7:0]  tx_tkeep;
  logic        tx_tvalid, tx_tready, tx_tlast, tx_tuser;
  logic [63:0] rx_tdata;
  logic [7:0]  rx_tkeep;
  logic        rx_tvalid, rx_tlast, rx_tuser;

  fabnic_eth_mac_axis #(
      .DATA_W(64), .N_PRIO(N_PRIO), .TXQ_DEPTH(TXQ_DEPTH), .RXQ_DEPTH(RXQ_DEPTH), .CNT_W(CNT_W)
  ) u_edge (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
      .m_axis_mac_tx_tdata (tx_tdata),
      .m_axis_mac_tx_tkeep (tx_tkeep),
      .m_axis_mac_tx_tvalid(tx_tvalid),
      .m_axis_mac_tx_tready(tx_tready),
      .m_axis_mac_tx_tlast (tx_tlast),
      .m_axis_mac_tx_tuser (tx_tuser),
      .s_axis_mac_rx_tdata (rx_tdata),
      .s_axis_mac_rx_tkeep (rx_tkeep),
      .s_axis_mac_rx_tvalid(rx_tvalid),
      .s_axis_mac_rx_tlast (rx_tlast),
      .s_axis_mac_rx_tuser (rx_tuser),
      .cycles_per_quantum, .pfc_req, .cfg_src_mac, .cfg_quanta, .cfg_refresh, .pause,
      .stat_tx_oversize, .stat_tx_pfc, .stat_tx_xon,
      .stat_rx_pfc, .stat_rx_pause, .stat_rx_ctrl_other, .stat_rx_ctrl_bad,
      .stat_rx_bad, .stat_rx_overflow
  );

  fabnic_xgmii_tx #(.CNT_W(CNT_W), .BYTE_CNT_W(BYTE_CNT_W)) u_tx (
      .clk, .rst,
      .s_axis_tdata (tx_tdata),
      .s_axis_tkeep (tx_tkeep),
      .s_axis_tvalid(tx_tvalid),
      .s_axis_tready(tx_tready),
      .s_axis_tlast (tx_tlast),
      .s_axis_tuser (tx_tuser),
      .xgmii_txd, .xgmii_txc,
      .stat_frames   (stat_tx_frames),
      .stat_bytes    (stat_tx_bytes),
      .stat_underflow(stat_tx_underflow),
      .stat_bad      (stat_tx_bad)
  );

  fabnic_xgmii_rx #(.MAX_FRAME(MAX_FRAME), .CNT_W(CNT_W), .BYTE_CNT_W(BYTE_CNT_W)) u_rx (
      .clk, .rst,
      .xgmii_rxd, .xgmii_rxc,
      .m_axis_tdata (rx_tdata),
      .m_axis_tkeep (rx_tkeep),
      .m_axis_tvalid(rx_tvalid),
      .m_axis_tlast (rx_tlast),
      .m_axis_tuser (rx_tuser),
      .stat_frames   (stat_rx_frames),
      .stat_bytes    (stat_rx_bytes),
      .stat_bad_fcs  (stat_rx_bad_fcs),
      .stat_runt     (stat_rx_runt),
      .stat_oversize (stat_rx_oversize),
      .stat_xgmii_err(stat_rx_xgmii_err),
      .stat_framing  (stat_rx_framing)
  );

endmodule

`resetall
