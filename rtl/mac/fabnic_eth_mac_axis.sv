// SPDX-License-Identifier: Apache-2.0
//
// fabnic_eth_mac_axis: MAC edge toward a MAC with an AXI-Stream frame
// interface (100 G: a CMAC-style hard MAC that adds/checks the FCS; 10 G:
// fabnic_eth_mac_10g puts fabnic_xgmii_tx/rx behind it at DATA_W=64).
//
// TX: N_PRIO priority queues (store-and-forward frame FIFOs, TXQ_DEPTH beats
//     each, back-pressure when full; a frame longer than TXQ_DEPTH beats is
//     dropped and counted) -> fabnic_axis_arb_mux (frame round robin; queue p
//     is skipped while pause[p], the PFC state received from the partner) ->
//     fabnic_pfc_tx (inserts PFC frames for pfc_req) -> m_axis_mac_tx.
//     The MAC side must take a frame without gaps once started if it is
//     cut-through (the queues are store-and-forward, so they never run dry).
// RX: s_axis_mac_rx (no back-pressure; tuser[0]=1 on the last beat of a bad
//     frame) -> fabnic_pfc_rx (consumes MAC Control frames, runs the pause
//     timers) -> frame FIFO (RXQ_DEPTH beats, drops bad frames, drops the
//     frame being written when full: counted, never back-pressures the wire)
//     -> m_axis.
// Queue p maps to PFC priority p (N_PRIO <= 8).
//
// Registered boundaries (every path of this block is at most 6 logic levels
// deep at DATA_W=512 on UltraScale+, apart from what the arb mux holds inside):
// - a skid register (fabnic_axis_register, REG_TYPE 2) between the arb mux and
//   fabnic_pfc_tx, and an output register (REG_TYPE 1) between fabnic_pfc_tx
//   and m_axis_mac_tx: valid and data are registered on both sides of pfc_tx;
//   m_axis_mac_tx_tready reaches only the skid register (through the output
//   register's ready and pfc_tx's ready, two levels), so no handshake port of
//   this block depends combinationally on another.
//   TX latency: 2 cycles (queue output to m_axis_mac_tx), full rate kept.
// - the arb mux's enable mask is ~pause registered once (pause_q): a PFC
//   frame stops new frames of its priority one cycle after `pause` rises. The
//   `pause` output itself is not delayed.
`default_nettype none

module fabnic_eth_mac_axis #(
    parameter int DATA_W    = 512,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int N_PRIO    = 8,
    parameter int TXQ_DEPTH = 256,   // beats per priority queue, power of two
    parameter int RXQ_DEPTH = 256,   // beats, power of two
    parameter int CNT_W     = 32
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    // transmit priority queues (queue p: bits [p*DATA_W +: DATA_W], ...)
    input  wire logic [N_PRIO*DATA_W-1:0] s_axis_tdata,
    input  wire logic [N_PRIO*KEEP_W-1:0] s_axis_tkeep,
    input  wire logic [N_PRIO-1:0]        s_axis_tvalid,
    output logic      [N_PRIO-1:0]        s_axis_tready,
    input  wire logic [N_PRIO-1:0]        s_axis_tlast,
    input  wire logic [N_PRIO-1:0]        s_axis_tuser,

    // received frames
    output logic      [DATA_W-1:0]        m_axis_tdata,
    output logic      [KEEP_W-1:0]        m_axis_tkeep,
    output logic                          m_axis_tvalid,
    input  wire logic                     m_axis_tready,
    output logic                          m_axis_tlast,
    output logic                          m_axis_tuser,

    // toward the MAC
    output logic      [DATA_W-1:0]        m_axis_mac_tx_tdata,
    output logic      [KEEP_W-1:0]        m_axis_mac_tx_tkeep,
    output logic                          m_axis_mac_tx_tvalid,
    input  wire logic                     m_axis_mac_tx_tready,
    output logic                          m_axis_mac_tx_tlast,
    output logic                          m_axis_mac_tx_tuser,

    input  wire logic [DATA_W-1:0]        s_axis_mac_rx_tdata,
    input  wire logic [KEEP_W-1:0]        s_axis_mac_rx_tkeep,
    input  wire logic                     s_axis_mac_rx_tvalid,
    input  wire logic                     s_axis_mac_rx_tlast,
    input  wire logic                     s_axis_mac_rx_tuser,

    // PFC configuration and state
    input  wire logic [15:0]              cycles_per_quantum,  // Q8.8
    input  wire logic [7:0]               pfc_req,
    input  wire logic [47:0]              cfg_src_mac,
    input  wire logic [15:0]              cfg_quanta,
    input  wire logic [31:0]              cfg_refresh,
    output logic      [7:0]               pause,

    output logic      [CNT_W-1:0]         stat_tx_oversize,     // queue drops: frame > TXQ_DEPTH
    output logic      [CNT_W-1:0]         stat_tx_pfc,
    output logic      [CNT_W-1:0]         stat_tx_xon,
    output logic      [CNT_W-1:0]         stat_rx_pfc,
    output logic      [CNT_W-1:0]         stat_rx_pause,
    output logic      [CNT_W-1:0]         stat_rx_ctrl_other,
    output logic      [CNT_W-1:0]         stat_rx_ctrl_bad,
    output logic      [CNT_W-1:0]         stat_rx_bad,          // bad frames dropped
    output logic      [CNT_W-1:0]         stat_rx_overflow      // RX FIFO full / frame > RXQ_DEPTH
);

  if (N_PRIO < 1 || N_PRIO > 8) begin : g_check_prio
    $error("fabnic_eth_mac_axis: N_PRIO must be 1..8");
  end

  // ---------------------------------------------------------------- TX queues
  logic [N_PRIO*DATA_W-1:0] q_tdata;
  logic [N_PRIO*KEEP_W-1:0] q_tkeep;
  logic [N_PRIO-1:0]        q_tvalid, q_tready, q_tlast, q_tuser, q_oversize;

  for (genvar p = 0; p < N_PRIO; p++) begin : g_txq
    logic [$clog2(TXQ_DEPTH):0] unused_depth;
    logic unused_good, unused_bad, unused_ovf;
    fabnic_axis_fifo #(
        .DATA_W(DATA_W), .USER_W(1), .DEPTH(TXQ_DEPTH),
        .FRAME_FIFO(1'b1), .DROP_BAD_FRAME(1'b0), .DROP_WHEN_FULL(1'b0)
    ) u_fifo (
        .clk, .rst,
        .s_axis_tdata (s_axis_tdata[p*DATA_W +: DATA_W]),
        .s_axis_tkeep (s_axis_tkeep[p*KEEP_W +: KEEP_W]),
        .s_axis_tvalid(s_axis_tvalid[p]),
        .s_axis_tready(s_axis_tready[p]),
        .s_axis_tlast (s_axis_tlast[p]),
        .s_axis_tuser (s_axis_tuser[p]),
        .m_axis_tdata (q_tdata[p*DATA_W +: DATA_W]),
        .m_axis_tkeep (q_tkeep[p*KEEP_W +: KEEP_W]),
        .m_axis_tvalid(q_tvalid[p]),
        .m_axis_tready(q_tready[p]),
        .m_axis_tlast (q_tlast[p]),
        .m_axis_tuser (q_tuser[p]),
        .status_depth     (unused_depth),
        .status_good_frame(unused_good),
        .status_bad_frame (unused_bad),
        .status_overflow  (unused_ovf),
        .status_oversize  (q_oversize[p])
    );
  end

  // ---------------------------------------------------------------- arbitration
  logic [DATA_W-1:0] a_tdata;
  logic [KEEP_W-1:0] a_tkeep;
  logic              a_tvalid, a_tready, a_tlast, a_tuser;
  logic [(N_PRIO > 1 ? $clog2(N_PRIO) : 1)-1:0] unused_sel;

  // pause mask registered: the arbitration never sees the pause timers'
  // compare logic in the same cycle
  logic [N_PRIO-1:0] pause_q;
  always_ff @(posedge clk) begin
    pause_q <= pause[N_PRIO-1:0];
    if (rst) pause_q <= '0;
  end

  fabnic_axis_arb_mux #(.N(N_PRIO), .DATA_W(DATA_W), .USER_W(1)) u_arb (
      .clk, .rst,
      .enable       (~pause_q),
      .s_axis_tdata (q_tdata),
      .s_axis_tkeep (q_tkeep),
      .s_axis_tvalid(q_tvalid),
      .s_axis_tready(q_tready),
      .s_axis_tlast (q_tlast),
      .s_axis_tuser (q_tuser),
      .m_axis_tdata (a_tdata),
      .m_axis_tkeep (a_tkeep),
      .m_axis_tvalid(a_tvalid),
      .m_axis_tready(a_tready),
      .m_axis_tlast (a_tlast),
      .m_axis_tuser (a_tuser),
      .sel          (unused_sel)
  );

  // skid register: arb mux -> pfc_tx
  logic [DATA_W-1:0] b_tdata;
  logic [KEEP_W-1:0] b_tkeep;
  logic              b_tvalid, b_tready, b_tlast, b_tuser;

  fabnic_axis_register #(.DATA_W(DATA_W), .USER_W(1), .REG_TYPE(2)) u_arb_reg (
      .clk, .rst,
      .s_axis_tdata (a_tdata),
      .s_axis_tkeep (a_tkeep),
      .s_axis_tvalid(a_tvalid),
      .s_axis_tready(a_tready),
      .s_axis_tlast (a_tlast),
      .s_axis_tuser (a_tuser),
      .m_axis_tdata (b_tdata),
      .m_axis_tkeep (b_tkeep),
      .m_axis_tvalid(b_tvalid),
      .m_axis_tready(b_tready),
      .m_axis_tlast (b_tlast),
      .m_axis_tuser (b_tuser)
  );

  logic [DATA_W-1:0] c_tdata;
  logic [KEEP_W-1:0] c_tkeep;
  logic              c_tvalid, c_tready, c_tlast, c_tuser;

  fabnic_pfc_tx #(.DATA_W(DATA_W), .USER_W(1), .CNT_W(CNT_W)) u_pfc_tx (
      .clk, .rst,
      .s_axis_tdata (b_tdata),
      .s_axis_tkeep (b_tkeep),
      .s_axis_tvalid(b_tvalid),
      .s_axis_tready(b_tready),
      .s_axis_tlast (b_tlast),
      .s_axis_tuser (b_tuser),
      .m_axis_tdata (c_tdata),
      .m_axis_tkeep (c_tkeep),
      .m_axis_tvalid(c_tvalid),
      .m_axis_tready(c_tready),
      .m_axis_tlast (c_tlast),
      .m_axis_tuser (c_tuser),
      .pfc_req, .cfg_src_mac, .cfg_quanta, .cfg_refresh,
      .stat_pfc_frames(stat_tx_pfc),
      .stat_xon_frames(stat_tx_xon)
  );

  // output register: pfc_tx -> MAC. A simple register (REG_TYPE 1): its
  // flops take pfc_tx's valid and data with no logic in front (pfc_tx decides
  // them 6 levels deep); its s_axis_tready is !valid || m_axis_mac_tx_tready,
  // one level on a path that ends in the arb-side skid register.
  fabnic_axis_register #(.DATA_W(DATA_W), .USER_W(1), .REG_TYPE(1)) u_tx_reg (
      .clk, .rst,
      .s_axis_tdata (c_tdata),
      .s_axis_tkeep (c_tkeep),
      .s_axis_tvalid(c_tvalid),
      .s_axis_tready(c_tready),
      .s_axis_tlast (c_tlast),
      .s_axis_tuser (c_tuser),
      .m_axis_tdata (m_axis_mac_tx_tdata),
      .m_axis_tkeep (m_axis_mac_tx_tkeep),
      .m_axis_tvalid(m_axis_mac_tx_tvalid),
      .m_axis_tready(m_axis_mac_tx_tready),
      .m_axis_tlast (m_axis_mac_tx_tlast),
      .m_axis_tuser (m_axis_mac_tx_tuser)
  );

  // ---------------------------------------------------------------- RX
  logic [DATA_W-1:0] r_tdata;
  logic [KEEP_W-1:0] r_tkeep;
  logic              r_tvalid, r_tready, r_tlast, r_tuser;
  logic              unused_rx_ready;   // always 1: the RX FIFO never back-pressures

  fabnic_pfc_rx #(.DATA_W(DATA_W), .USER_W(1), .CNT_W(CNT_W)) u_pfc_rx (
      .clk, .rst,
      .s_axis_tdata (s_axis_mac_rx_tdata),
      .s_axis_tkeep (s_axis_mac_rx_tkeep),
      .s_axis_tvalid(s_axis_mac_rx_tvalid),
      .s_axis_tready(unused_rx_ready),
      .s_axis_tlast (s_axis_mac_rx_tlast),
      .s_axis_tuser (s_axis_mac_rx_tuser),
      .m_axis_tdata (r_tdata),
      .m_axis_tkeep (r_tkeep),
      .m_axis_tvalid(r_tvalid),
      .m_axis_tready(r_tready),
      .m_axis_tlast (r_tlast),
      .m_axis_tuser (r_tuser),
      .cycles_per_quantum,
      .pause,
      .stat_pfc       (stat_rx_pfc),
      .stat_pause     (stat_rx_pause),
      .stat_ctrl_other(stat_rx_ctrl_other),
      .stat_ctrl_bad  (stat_rx_ctrl_bad)
  );

  logic [$clog2(RXQ_DEPTH):0] unused_rx_depth;
  logic unused_rx_good, rxq_bad, rxq_ovf, rxq_over;

  fabnic_axis_fifo #(
      .DATA_W(DATA_W), .USER_W(1), .DEPTH(RXQ_DEPTH),
      .FRAME_FIFO(1'b1), .DROP_BAD_FRAME(1'b1), .DROP_WHEN_FULL(1'b1)
  ) u_rxq (
      .clk, .rst,
      .s_axis_tdata (r_tdata),
      .s_axis_tkeep (r_tkeep),
      .s_axis_tvalid(r_tvalid),
      .s_axis_tready(r_tready),
      .s_axis_tlast (r_tlast),
      .s_axis_tuser (r_tuser),
      .m_axis_tdata,
      .m_axis_tkeep,
      .m_axis_tvalid,
      .m_axis_tready,
      .m_axis_tlast,
      .m_axis_tuser,
      .status_depth     (unused_rx_depth),
      .status_good_frame(unused_rx_good),
      .status_bad_frame (rxq_bad),
      .status_overflow  (rxq_ovf),
      .status_oversize  (rxq_over)
  );

  // ---------------------------------------------------------------- counters
  always_ff @(posedge clk) begin
    logic [CNT_W-1:0] n;
    n = '0;
    for (int p = 0; p < N_PRIO; p++) n = n + CNT_W'(q_oversize[p]);
    stat_tx_oversize <= stat_tx_oversize + n;
    if (rxq_bad)            stat_rx_bad      <= stat_rx_bad + 1'b1;
    if (rxq_ovf || rxq_over) stat_rx_overflow <= stat_rx_overflow + 1'b1;
    if (rst) begin
      stat_tx_oversize <= '0;
      stat_rx_bad      <= '0;
      stat_rx_overflow <= '0;
    end
  end

endmodule

`resetall
