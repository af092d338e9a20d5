// SPDX-License-Identifier: Apache-2.0
// DCQCN closed-loop incast testbench (docs/cc.md, "Closed-loop experiments").
//
//   sender i (fabnic_tb_dcqcn_sender: real fabnic_dcqcn_rp + fabnic_rate_limiter)
//     -> link up[i] -> switch port i                       (i = 0 .. N-1)
//   switch port N -> link rx_dn -> receiver (fabnic_tb_dcqcn_receiver: real NP)
//   receiver CNPs -> link rx_up -> switch port N -> port i -> link dn[i] -> sender i
//   switch PFC toward sender i goes the same way (dn[i]).
//
// Host h MAC 02:00:00:00:00:(h+1), IP 10.0.0.(h+1); the receiver is host N.
// Sender i: QPN 0x100 + i, sends to receiver QP 0x200 + i (receiver QP index i).
// Everything runs per cycle in SystemVerilog; Python writes the configuration
// signals below and samples counters. bneck_qsum accumulates the bottleneck queue
// (switch egress N) every cycle, so the mean queue over any interval is exact.
`default_nettype none
module tb_incast #(
    parameter int DATA_W      = 512,
    parameter int KEEP_W      = DATA_W / 8,
    parameter int N           = 8,          // senders
    parameter int QUEUE_BYTES = 1 << 21,    // switch ring per egress (>= buffer used)
    parameter int LINK_BUF    = 1 << 17,    // link ring: delay * rate + one frame
    parameter bit ECN_DEQ     = 1'b1        // switch RED/ECN at dequeue (0: at enqueue)
) (
    input wire logic clk,
    input wire logic rst
);
  localparam int P    = N + 1;
  localparam int NMAC = N + 1;

  logic [63:0] cycle;
  always_ff @(posedge clk) begin
    if (rst) cycle <= '0;
    else     cycle <= cycle + 64'd1;
  end

  // ---------------------------------------------------------------- configuration (Python)
  // links / switch
  logic [31:0] rate;            // 16.16 bytes/cycle, every link and the switch egress
  logic [15:0] ovh;
  logic [31:0] link_delay;      // cycles, every link
  logic [31:0] buf_size, q_cap, kmin, kmax, pmax, xoff, xon, pfc_refresh;
  logic [15:0] pfc_quanta;
  logic        ecn_en, pfc_en;
  logic [63:0] seed;
  // DCQCN
  logic        dcqcn_en;
  logic [N-1:0] tx_en;
  logic [15:0] payload_len;
  logic [4:0]  cfg_g_shift;
  logic [31:0] cfg_alpha_period, cfg_timer_period, cfg_byte_counter;
  logic [7:0]  cfg_f;
  logic [31:0] cfg_rate_ai, cfg_rate_hai, cfg_rate_min, cfg_rate_line, cfg_rate_init;
  logic [15:0] cfg_slack;
  logic [47:0] cfg_interval;
  logic        cfg_clamp_tgt;

  function automatic logic [47:0] host_mac(input int h);
    return 48'h0200_0000_0000 + 48'(h + 1);
  endfunction
  function automatic logic [31:0] host_ip(input int h);
    return 32'h0A00_0000 + 32'(h + 1);
  endfunction

  logic [NMAC-1:0]    mac_valid;
  logic [NMAC*48-1:0] mac_addr;
  logic [NMAC*8-1:0]  mac_port;
  always_comb begin
    for (int h = 0; h < NMAC; h++) begin
      mac_valid[h] = 1'b1;
      mac_addr[48*h +: 48] = host_mac(h);
      mac_port[8*h +: 8] = 8'(h);
    end
  end

  // ---------------------------------------------------------------- switch
  logic [P*DATA_W-1:0] s_tdata, m_tdata;
  logic [P*KEEP_W-1:0] s_tkeep, m_tkeep;
  logic [P-1:0] s_tvalid, s_tready, s_tlast, s_tuser, m_tvalid, m_tready, m_tlast, m_tuser;
  logic [P*32-1:0] qlen, ing_bytes, cnt_drop_tail, cnt_ecn_mark, cnt_pfc_xoff_tx, cnt_pfc_xon_tx;
  logic [P*32-1:0] peak_qlen, cnt_tx_frames;
  logic [P*64-1:0] cnt_tx_bytes;
  logic [31:0] buf_used;

  fabnic_tb_switch #(.N_PORTS(P), .DATA_W(DATA_W), .N_MAC(NMAC), .QUEUE_BYTES(QUEUE_BYTES),
                     .QDESC(4096), .TRACE_DEPTH(2), .ECN_DEQ(ECN_DEQ)) sw (
    .clk, .rst,
    .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
    .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
    .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
    .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
    .rate, .ovh, .buf_size, .q_cap, .mac_valid, .mac_addr, .mac_port,
    .dflt_port({P{8'hFF}}), .ecn_en, .kmin, .kmax, .pmax, .seed, .pfc_en, .pfc_obey(1'b1),
    .pfc_prio(3'd3), .xoff, .xon, .pfc_quanta, .pfc_refresh, .sw_mac(48'h0200_0000_FF00),
    .sample_period(32'd0),
    .qlen, .ing_bytes, .buf_used, .paused(), .xoff_state(), .cnt_rx_frames(), .cnt_rx_bytes(),
    .cnt_tx_frames, .cnt_tx_bytes, .cnt_drop_tail, .cnt_drop_noroute(), .cnt_drop_bad(),
    .cnt_ecn_mark, .cnt_pfc_xoff_tx, .cnt_pfc_xon_tx, .cnt_pfc_rx(), .peak_qlen,
    .trace_count(), .trace_rd_idx(32'd0), .trace_rd_cycle(), .trace_rd_q()
  );

  // bottleneck queue integral (bytes x cycles)
  logic [31:0] bneck_q;
  logic [63:0] bneck_qsum;
  assign bneck_q = qlen[32*N +: 32];
  always_ff @(posedge clk) begin
    if (rst) bneck_qsum <= '0;
    else     bneck_qsum <= bneck_qsum + 64'(bneck_q);
  end

  // one cable direction with no faults
  `define INCAST_LINK(NAME, SD, SK, SV, SR, SL, SU, MD, MK, MV, MR, ML, MU) \
    fabnic_tb_link #(.DATA_W(DATA_W), .BUF_BYTES(LINK_BUF), .DESC_DEPTH(256)) NAME ( \
      .clk, .rst, \
      .s_axis_tdata(SD), .s_axis_tkeep(SK), .s_axis_tvalid(SV), .s_axis_tready(SR), \
      .s_axis_tlast(SL), .s_axis_tuser(SU), \
      .m_axis_tdata(MD), .m_axis_tkeep(MK), .m_axis_tvalid(MV), .m_axis_tready(MR), \
      .m_axis_tlast(ML), .m_axis_tuser(MU), \
      .rate, .ovh, .delay(link_delay), .seed(64'd0), .link_down(1'b0), \
      .loss_en(1'b0), .loss_p('0), .ge_en(1'b0), .ge_p_gb('0), .ge_p_bg('0), .ge_loss('0), \
      .dup_en(1'b0), .dup_p('0), .reorder_en(1'b0), .reorder_p('0), .hold_timeout('0), \
      .biterr_en(1'b0), .biterr_p('0), .drop_list_en('0), .drop_list('0), \
      .cnt_frames_in(), .cnt_bytes_in(), .cnt_frames_out(), .cnt_bytes_out(), \
      .cnt_drop_down(), .cnt_drop_list(), .cnt_drop_ge(), .cnt_drop_loss(), \
      .cnt_drop_oversize(), .cnt_dup(), .cnt_reorder(), .cnt_biterr(), .cnt_ge_bad(), .ge_bad() \
    );

  // ---------------------------------------------------------------- senders
  for (genvar i = 0; i < N; i++) begin : g_snd
    logic [DATA_W-1:0] u_tdata, d_tdata;
    logic [KEEP_W-1:0] u_tkeep, d_tkeep;
    logic u_tvalid, u_tready, u_tlast, d_tvalid, d_tready, d_tlast;
    logic [0:0] u_tuser, d_tuser;

    logic [31:0] cur_rate, rd_rc, rd_rt, cnt_tx_frames_s, cnt_cnp_rx, cnt_pfc_rx;
    logic [31:0] cnt_rp_cnp, cnt_rp_decrease, cnt_rp_increase;
    logic [20:0] rd_alpha;
    logic [63:0] cnt_tx_bytes_s;
    logic        paused;

    fabnic_tb_dcqcn_sender #(.DATA_W(DATA_W), .NUM_QP(2)) snd (
      .clk, .rst,
      .m_axis_tdata(u_tdata), .m_axis_tkeep(u_tkeep), .m_axis_tvalid(u_tvalid),
      .m_axis_tready(u_tready), .m_axis_tlast(u_tlast), .m_axis_tuser(u_tuser),
      .s_axis_tdata(d_tdata), .s_axis_tkeep(d_tkeep), .s_axis_tvalid(d_tvalid),
      .s_axis_tready(d_tready), .s_axis_tlast(d_tlast), .s_axis_tuser(d_tuser),
      .tx_en(tx_en[i]), .dcqcn_en, .src_mac(host_mac(i)), .dst_mac(host_mac(N)),
      .src_ip(host_ip(i)), .dst_ip(host_ip(N)), .dst_qpn(24'h000200 + 24'(i)),
      .local_qpn(24'h000100 + 24'(i)), .flow_id(8'(i)), .payload_len, .line_rate(rate),
      .pfc_prio(3'd3),
      .cfg_g_shift, .cfg_alpha_period, .cfg_timer_period, .cfg_byte_counter, .cfg_f,
      .cfg_rate_ai, .cfg_rate_hai, .cfg_rate_min, .cfg_rate_line, .cfg_rate_init, .cfg_slack,
      .cfg_clamp_tgt,
      .cur_rate, .rd_rc, .rd_rt, .rd_alpha, .paused,
      .cnt_tx_frames(cnt_tx_frames_s), .cnt_tx_bytes(cnt_tx_bytes_s), .cnt_cnp_rx, .cnt_pfc_rx,
      .cnt_rp_cnp, .cnt_rp_decrease, .cnt_rp_increase, .cycle()
    );

    `INCAST_LINK(up, u_tdata, u_tkeep, u_tvalid, u_tready, u_tlast, u_tuser,
                 s_tdata[i*DATA_W +: DATA_W], s_tkeep[i*KEEP_W +: KEEP_W], s_tvalid[i],
                 s_tready[i], s_tlast[i], s_tuser[i:i])
    `INCAST_LINK(dn, m_tdata[i*DATA_W +: DATA_W], m_tkeep[i*KEEP_W +: KEEP_W], m_tvalid[i],
                 m_tready[i], m_tlast[i], m_tuser[i:i],
                 d_tdata, d_tkeep, d_tvalid, d_tready, d_tlast, d_tuser)
  end

  // ---------------------------------------------------------------- receiver
  logic [DATA_W-1:0] r_in_tdata, r_out_tdata;
  logic [KEEP_W-1:0] r_in_tkeep, r_out_tkeep;
  logic r_in_tvalid, r_in_tready, r_in_tlast, r_out_tvalid, r_out_tready, r_out_tlast;
  logic [0:0] r_in_tuser, r_out_tuser;
  logic [N*32-1:0] rcv_frames, rcv_ce;
  logic [N*64-1:0] rcv_bytes;
  logic [31:0] rcv_cnp_tx, rcv_other, rcv_np_overflow, np_marked, np_cnp, np_suppressed;

  fabnic_tb_dcqcn_receiver #(.DATA_W(DATA_W), .NUM_QP(N < 2 ? 2 : N)) rcv (
    .clk, .rst,
    .s_axis_tdata(r_in_tdata), .s_axis_tkeep(r_in_tkeep), .s_axis_tvalid(r_in_tvalid),
    .s_axis_tready(r_in_tready), .s_axis_tlast(r_in_tlast), .s_axis_tuser(r_in_tuser),
    .m_axis_tdata(r_out_tdata), .m_axis_tkeep(r_out_tkeep), .m_axis_tvalid(r_out_tvalid),
    .m_axis_tready(r_out_tready), .m_axis_tlast(r_out_tlast), .m_axis_tuser(r_out_tuser),
    .my_mac(host_mac(N)), .my_ip(host_ip(N)), .local_qpn(24'h000200),
    .peer_qpn_base(24'h000100), .cfg_interval,
    .cnt_frames(rcv_frames), .cnt_bytes(rcv_bytes), .cnt_ce(rcv_ce), .cnt_cnp_tx(rcv_cnp_tx),
    .cnt_other(rcv_other), .cnt_np_overflow(rcv_np_overflow),
    .np_marked, .np_cnp, .np_suppressed
  );

  `INCAST_LINK(rx_dn, m_tdata[N*DATA_W +: DATA_W], m_tkeep[N*KEEP_W +: KEEP_W], m_tvalid[N],
               m_tready[N], m_tlast[N], m_tuser[N:N],
               r_in_tdata, r_in_tkeep, r_in_tvalid, r_in_tready, r_in_tlast, r_in_tuser)
  `INCAST_LINK(rx_up, r_out_tdata, r_out_tkeep, r_out_tvalid, r_out_tready, r_out_tlast,
               r_out_tuser,
               s_tdata[N*DATA_W +: DATA_W], s_tkeep[N*KEEP_W +: KEEP_W], s_tvalid[N],
               s_tready[N], s_tlast[N], s_tuser[N:N])

  `undef INCAST_LINK

endmodule
`resetall
