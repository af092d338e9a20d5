// SPDX-License-Identifier: Apache-2.0
//
// fabnic_eth_mac_axis: MAC edge toward a MAC with an AXI-Stream frame
// interface (100 G: a CMAC-style hard MAC that adds/checks the FCS; 10 G:
// fabnic_eth_mac_10g puts fabnic_xgmii_tx/rx behind it at DATA_W=64).
//
// TX: N_PRIO priority queues (store-and-forward frame FIFOs, TXQ_DEPTH beats
//     each, back-pressure when full; a frame longer than TXQ_DEPTH beats is
//     dropped and counted) -> arbiter (frame round robin; queue p is skipped
//     while pause[p], the PFC state received from the partner) ->
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
// Registered boundaries (every register-to-register path at most 6 logic levels
// at DATA_W=512 on UltraScale+; no handshake port depends combinationally on
// another):
// - the arbiter holds its grant in a register and ends in a skid register
//   (fabnic_axis_register REG_TYPE 2), so the queues' tready is one gate of flops
//   and pfc_tx sees registered valid and data; an output skid register (fabnic_axis_register REG_TYPE 2) sits
//   between fabnic_pfc_tx and m_axis_mac_tx, so m_axis_mac_tx_tready reaches only
//   its control flops and pfc_tx sees a registered ready.
//   TX latency: 2 cycles (queue output to m_axis_mac_tx), full rate kept; a frame
//   that starts from a queue other than the last granted one on an idle arbiter
//   waits one more cycle for the grant.
// - the arbiter's enable mask is ~pause (flops in fabnic_pfc_rx): a PFC frame
//   stops new frames of its priority from the cycle `pause` rises.
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
  // Frame round robin over the queues with a registered one-hot grant (g_q): the
  // data path is an AND-OR of the queue outputs with it into a skid register, and a
  // queue's tready is one gate of flops. A frame is never interleaved (the grant is
  // locked from its first beat to its tlast). Queue p starts no new frame while
  // pause[p] (a flop in fabnic_pfc_rx); a frame already started completes. The next
  // grant is chosen one cycle ahead from the queues' tvalid (frame FIFOs hold it):
  // when a frame's last beat is taken (the first requester after the current grant,
  // else the first requester, else the grant stays), and in every cycle without a
  // locked frame in which the granted queue offers nothing. Frames of several queues
  // follow each other without a bubble. While nothing is requested the grant stays on
  // the last queue served (queue 0 after reset): a frame of that queue starts at once,
  // a frame of another queue arriving at the idle arbiter waits one cycle.
  logic [N_PRIO-1:0] g_q;     // granted queue, one-hot
  logic [N_PRIO-1:0] ab_q;    // queues after the granted one (round-robin priority)
  logic              lock_q;  // a frame of the granted queue is in progress
  logic [N_PRIO-1:0] a_go, a_req, a_hi;
  logic [DATA_W-1:0] a_tdata;
  logic [KEEP_W-1:0] a_tkeep;
  logic              a_tvalid, a_tready, a_tlast, a_tuser, a_take, a_rearb;

  // the first set bit of x, and the bits above the first set bit
  function automatic logic [N_PRIO-1:0] first_of(input logic [N_PRIO-1:0] x);
    logic [N_PRIO-1:0] f;
    logic              seen;
    seen = 1'b0;
    for (int i = 0; i < N_PRIO; i++) begin
      f[i] = x[i] && !seen;
      seen = seen || x[i];
    end
    return f;
  endfunction

  function automatic logic [N_PRIO-1:0] above_first(input logic [N_PRIO-1:0] x);
    logic [N_PRIO-1:0] m;
    m[0] = 1'b0;
    for (int i = 1; i < N_PRIO; i++) m[i] = m[i-1] || x[i-1];
    return m;
  endfunction

  // a queue may send when granted and (mid-frame or not paused)
  assign a_go     = g_q & (~pause[N_PRIO-1:0] | {N_PRIO{lock_q}});
  assign q_tready = a_go & {N_PRIO{a_tready}};
  assign a_req    = q_tvalid & ~pause[N_PRIO-1:0];
  assign a_hi     = a_req & ab_q;

  always_comb begin
    a_tdata = '0;
    a_tkeep = '0;
    for (int p = 0; p < N_PRIO; p++) begin
      a_tdata = a_tdata | (q_tdata[p*DATA_W +: DATA_W] & {DATA_W{g_q[p]}});
      a_tkeep = a_tkeep | (q_tkeep[p*KEEP_W +: KEEP_W] & {KEEP_W{g_q[p]}});
    end
    a_tlast  = (g_q & q_tlast) != '0;
    a_tuser  = (g_q & q_tuser) != '0;
    a_tvalid = (a_go & q_tvalid) != '0;
  end

  assign a_take  = a_tvalid && a_tready;
  assign a_rearb = a_take ? a_tlast : !lock_q;

  always_ff @(posedge clk) begin
    if (a_take) lock_q <= !a_tlast;
    if (a_rearb && a_req != '0) begin
      if (a_hi != '0) begin
        g_q  <= first_of(a_hi);
        ab_q <= above_first(a_hi);
      end else begin
        g_q  <= first_of(a_req);
        ab_q <= above_first(a_req);
      end
    end
    if (rst) begin
      lock_q <= 1'b0;
      g_q    <= N_PRIO'(1);
      ab_q   <= above_first(N_PRIO'(1));
    end
  end

  // skid register: arbiter -> pfc_tx
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

  // output skid register: pfc_tx -> MAC; m_axis_mac_tx_tready reaches only its
  // own control flops, pfc_tx sees a registered ready
  fabnic_axis_register #(.DATA_W(DATA_W), .USER_W(1), .REG_TYPE(2)) u_tx_reg (
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
  // the queues' oversize drops of a cycle are summed into a register first
  logic [3:0] n_over_q;
  always_ff @(posedge clk) begin
    logic [3:0] n;
    n = '0;
    for (int p = 0; p < N_PRIO; p++) n = n + 4'(q_oversize[p]);
    n_over_q         <= n;
    stat_tx_oversize <= stat_tx_oversize + CNT_W'(n_over_q);
    if (rxq_bad)            stat_rx_bad      <= stat_rx_bad + 1'b1;
    if (rxq_ovf || rxq_over) stat_rx_overflow <= stat_rx_overflow + 1'b1;
    if (rst) begin
      n_over_q         <= '0;
      stat_tx_oversize <= '0;
      stat_rx_bad      <= '0;
      stat_rx_overflow <= '0;
    end
  end

endmodule

`resetall
