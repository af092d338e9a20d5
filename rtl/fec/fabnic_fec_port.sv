// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fec_port: the FEC shims of one RoCE port: fabnic_fec_tx between the
// transport's frame output and the MAC, fabnic_fec_rx between the MAC and the
// transport's frame input (docs/fec.md, "Port shim"). ENABLE=0 builds plain
// wires (no logic, counters read 0).
// The receiver's NAKs leave through this port's transmitter, the peer's NAKs
// drive this port's retransmit buffer (selective retransmission).
// stat packs NSTAT = 21 32-bit counters, counter i at stat[32*i +: 32]:
//   0 tx protected  1 tx bypass  2 tx repairs  3 tx idle flushes
//   4 rx data  5 rx repair  6 rx plain  7 rx malformed  8 rx oversize
//   9 repaired  10 unrepairable groups  11 given up  12 late  13 dup  14 resync  15 noseq
//   16 frames resent  17 NAKed seqs not buffered  18 NAKs sent  19 NAKs received
`default_nettype none

module fabnic_fec_port #(
    parameter bit ENABLE   = 1'b1,
    parameter int DATA_W   = 512,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int MAX_K    = 16,
    parameter int MAX_R    = 4,
    parameter int MAX_D    = 4,
    parameter int MAX_LEN  = 8192,
    parameter int NUM_QP   = 1024,
    parameter int NGROUP   = 16,
    parameter int IN_DEPTH = 256,
    parameter int NROB     = 64,
    parameter int NRTX     = 64,
    parameter int NSRC     = 1,     // FEC senders the receive side tells apart (fabnic_fec_rx)
    parameter int QPN_W    = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [1:0]        cfg_mode,          // 0 off, 1 all RC data frames, 2 per QP
    input  wire logic [7:0]        cfg_k,
    input  wire logic [7:0]        cfg_r,
    input  wire logic [7:0]        cfg_d,
    input  wire logic [15:0]       cfg_flush_cycles,
    input  wire logic [15:0]       cfg_rob_timeout,
    input  wire logic              cfg_rx_bypass,     // RX: no reorder buffer (engine SR)
    input  wire logic [15:0]       cfg_nak_delay,
    input  wire logic [15:0]       cfg_nak_retry,
    input  wire logic              cfg_qp_we,
    input  wire logic [QPN_W-1:0]  cfg_qp_idx,
    input  wire logic              cfg_qp_val,

    // transport -> wire
    input  wire logic [DATA_W-1:0] s_core_tdata,
    input  wire logic [KEEP_W-1:0] s_core_tkeep,
    input  wire logic              s_core_tvalid,
    output logic                   s_core_tready,
    input  wire logic              s_core_tlast,
    input  wire logic              s_core_tuser,
    output logic      [DATA_W-1:0] m_wire_tdata,
    output logic      [KEEP_W-1:0] m_wire_tkeep,
    output logic                   m_wire_tvalid,
    input  wire logic              m_wire_tready,
    output logic                   m_wire_tlast,
    output logic                   m_wire_tuser,

    // wire -> transport
    input  wire logic [DATA_W-1:0] s_wire_tdata,
    input  wire logic [KEEP_W-1:0] s_wire_tkeep,
    input  wire logic              s_wire_tvalid,
    output logic                   s_wire_tready,
    input  wire logic              s_wire_tlast,
    input  wire logic              s_wire_tuser,
    output logic      [DATA_W-1:0] m_core_tdata,
    output logic      [KEEP_W-1:0] m_core_tkeep,
    output logic                   m_core_tvalid,
    input  wire logic              m_core_tready,
    output logic                   m_core_tlast,
    output logic                   m_core_tuser,

    output logic [21*32-1:0]       stat
);

  if (ENABLE) begin : g_fec
    logic [31:0] st [21];
    logic [31:0] tx_over_unused, tx_stall_unused;
    logic        nak_valid, nak_ready, rtx_valid;
    logic [15:0] nak_seq, rtx_seq;
    logic [31:0] nak_map, rtx_map;

    fabnic_fec_tx #(
        .DATA_W(DATA_W), .KEEP_W(KEEP_W), .MAX_K(MAX_K), .MAX_R(MAX_R), .MAX_D(MAX_D),
        .MAX_LEN(MAX_LEN), .NUM_QP(NUM_QP), .NRTX(NRTX)
    ) u_tx (
        .clk, .rst,
        .cfg_mode, .cfg_k, .cfg_r, .cfg_d, .cfg_flush_cycles, .cfg_qp_we, .cfg_qp_idx, .cfg_qp_val,
        .s_nak_valid(nak_valid), .s_nak_ready(nak_ready), .s_nak_seq(nak_seq),
        .s_nak_map(nak_map),
        .rtx_req_valid(rtx_valid), .rtx_req_seq(rtx_seq), .rtx_req_map(rtx_map),
        .s_axis_tdata(s_core_tdata), .s_axis_tkeep(s_core_tkeep), .s_axis_tvalid(s_core_tvalid),
        .s_axis_tready(s_core_tready), .s_axis_tlast(s_core_tlast), .s_axis_tuser(s_core_tuser),
        .m_axis_tdata(m_wire_tdata), .m_axis_tkeep(m_wire_tkeep), .m_axis_tvalid(m_wire_tvalid),
        .m_axis_tready(m_wire_tready), .m_axis_tlast(m_wire_tlast), .m_axis_tuser(m_wire_tuser),
        .stat_prot_frames(st[0]), .stat_bypass_frames(st[1]), .stat_repair_frames(st[2]),
        .stat_flushes(st[3]), .stat_oversize(tx_over_unused), .stat_stall_cycles(tx_stall_unused),
        .stat_rtx_frames(st[16]), .stat_rtx_miss(st[17])
    );

    fabnic_fec_rx #(
        .DATA_W(DATA_W), .KEEP_W(KEEP_W), .MAX_K(MAX_K), .MAX_R(MAX_R), .NGROUP(NGROUP),
        .MAX_LEN(MAX_LEN), .IN_DEPTH(IN_DEPTH), .NROB(NROB), .NSRC(NSRC)
    ) u_rx (
        .clk, .rst,
        .cfg_en(cfg_mode != 2'd0), .cfg_k, .cfg_rob_timeout, .cfg_rx_bypass, .cfg_nak_delay,
        .cfg_nak_retry,
        .m_nak_valid(nak_valid), .m_nak_ready(nak_ready), .m_nak_seq(nak_seq),
        .m_nak_map(nak_map),
        .rtx_req_valid(rtx_valid), .rtx_req_seq(rtx_seq), .rtx_req_map(rtx_map),
        .s_axis_tdata(s_wire_tdata), .s_axis_tkeep(s_wire_tkeep), .s_axis_tvalid(s_wire_tvalid),
        .s_axis_tready(s_wire_tready), .s_axis_tlast(s_wire_tlast), .s_axis_tuser(s_wire_tuser),
        .m_axis_tdata(m_core_tdata), .m_axis_tkeep(m_core_tkeep), .m_axis_tvalid(m_core_tvalid),
        .m_axis_tready(m_core_tready), .m_axis_tlast(m_core_tlast), .m_axis_tuser(m_core_tuser),
        .stat_data_frames(st[4]), .stat_repair_frames(st[5]), .stat_plain_frames(st[6]),
        .stat_drop_malformed(st[7]), .stat_drop_oversize(st[8]), .stat_repaired(st[9]),
        .stat_unrepairable(st[10]), .stat_rob_given_up(st[11]), .stat_rob_late(st[12]),
        .stat_rob_dup(st[13]), .stat_rob_resync(st[14]), .stat_rob_noseq(st[15]),
        .stat_naks_sent(st[18]), .stat_naks_rcvd(st[19]), .stat_src_full(st[20])
    );

    for (genvar i = 0; i < 21; i++) begin : g_st
      assign stat[32*i +: 32] = st[i];
    end
  end else begin : g_wire
    assign m_wire_tdata  = s_core_tdata;
    assign m_wire_tkeep  = s_core_tkeep;
    assign m_wire_tvalid = s_core_tvalid;
    assign s_core_tready = m_wire_tready;
    assign m_wire_tlast  = s_core_tlast;
    assign m_wire_tuser  = s_core_tuser;
    assign m_core_tdata  = s_wire_tdata;
    assign m_core_tkeep  = s_wire_tkeep;
    assign m_core_tvalid = s_wire_tvalid;
    assign s_wire_tready = m_core_tready;
    assign m_core_tlast  = s_wire_tlast;
    assign m_core_tuser  = s_wire_tuser;
    assign stat          = '0;
    logic unused_cfg;
    assign unused_cfg = ^{cfg_mode, cfg_k, cfg_r, cfg_d, cfg_flush_cycles, cfg_rob_timeout,
                          cfg_rx_bypass, cfg_nak_delay, cfg_nak_retry,
                          cfg_qp_we, cfg_qp_idx, cfg_qp_val};
  end

endmodule

`resetall
