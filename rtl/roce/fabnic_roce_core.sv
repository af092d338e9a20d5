// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_core: RoCEv2 RC transport engine with its host interface.
//
//   AXI-Lite (s_axil) -> registers (fabnic_regs_roce), command engine, doorbells
//   AXI4 master (m_axi) <- DMA: SQE reads (requester, completer), RQE/atomic reads
//                          (responder), payload reads (transmit), one write engine
//                          shared by placement, atomics and CQEs
//   m_axis_tx -> Ethernet frames to the MAC (no FCS); s_axis_rx <- frames from it
//   m_irq_*   -> interrupt request per armed CQ that got a completion
// Address map of s_axil (24 bits): 0x000000.. registers (docs/registers.md, map
// "roce"); 0x100000 + 8*qpn: SQ producer index doorbell, +4: RQ producer index;
// 0x180000 + 8*cqn: CQ consumer index | arm << 31. A doorbell write waits while its
// FIFO is full (back-pressure, never dropped). See docs/roce.md.
`default_nettype none

module fabnic_roce_core #(
    parameter int DATA_W   = 512,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int NUM_QP   = 1024,
    parameter int NUM_CQ   = 256,
    parameter int NUM_MR   = 1024,
    parameter int AXI_ID_W = 4,
    parameter int CNT_W    = 32,
    parameter int QPN_W    = (NUM_QP > 1) ? $clog2(NUM_QP) : 1,
    parameter int CQN_W    = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1,
    parameter int MR_W     = (NUM_MR > 1) ? $clog2(NUM_MR) : 1,
    // hold ACKs and CQEs until the host writes before them have their B responses
    // (fabnic_roce_wr_gate; about one host write round trip of latency each)
    parameter bit WR_GATE  = 1'b1
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [23:0]         s_axil_awaddr,
    input  wire logic [2:0]          s_axil_awprot,
    input  wire logic                s_axil_awvalid,
    output logic                     s_axil_awready,
    input  wire logic [31:0]         s_axil_wdata,
    input  wire logic [3:0]          s_axil_wstrb,
    input  wire logic                s_axil_wvalid,
    output logic                     s_axil_wready,
    output logic [1:0]               s_axil_bresp,
    output logic                     s_axil_bvalid,
    input  wire logic                s_axil_bready,
    input  wire logic [23:0]         s_axil_araddr,
    input  wire logic [2:0]          s_axil_arprot,
    input  wire logic                s_axil_arvalid,
    output logic                     s_axil_arready,
    output logic [31:0]              s_axil_rdata,
    output logic [1:0]               s_axil_rresp,
    output logic                     s_axil_rvalid,
    input  wire logic                s_axil_rready,

    output logic [AXI_ID_W-1:0]      m_axi_awid,
    output logic [63:0]              m_axi_awaddr,
    output logic [7:0]               m_axi_awlen,
    output logic [2:0]               m_axi_awsize,
    output logic [1:0]               m_axi_awburst,
    output logic                     m_axi_awlock,
    output logic [3:0]               m_axi_awcache,
    output logic [2:0]               m_axi_awprot,
    output logic                     m_axi_awvalid,
    input  wire logic                m_axi_awready,
    output logic [DATA_W-1:0]        m_axi_wdata,
    output logic [KEEP_W-1:0]        m_axi_wstrb,
    output logic                     m_axi_wlast,
    output logic                     m_axi_wvalid,
    input  wire logic                m_axi_wready,
    input  wire logic [AXI_ID_W-1:0] m_axi_bid,
    input  wire logic [1:0]          m_axi_bresp,
    input  wire logic                m_axi_bvalid,
    output logic                     m_axi_bready,
    output logic [AXI_ID_W-1:0]      m_axi_arid,
    output logic [63:0]              m_axi_araddr,
    output logic [7:0]               m_axi_arlen,
    output logic [2:0]               m_axi_arsize,
    output logic [1:0]               m_axi_arburst,
    output logic                     m_axi_arlock,
    output logic [3:0]               m_axi_arcache,
    output logic [2:0]               m_axi_arprot,
    output logic                     m_axi_arvalid,
    input  wire logic                m_axi_arready,
    input  wire logic [AXI_ID_W-1:0] m_axi_rid,
    input  wire logic [DATA_W-1:0]   m_axi_rdata,
    input  wire logic [1:0]          m_axi_rresp,
    input  wire logic                m_axi_rlast,
    input  wire logic                m_axi_rvalid,
    output logic                     m_axi_rready,

    output logic [DATA_W-1:0]        m_axis_tx_tdata,
    output logic [KEEP_W-1:0]        m_axis_tx_tkeep,
    output logic                     m_axis_tx_tvalid,
    input  wire logic                m_axis_tx_tready,
    output logic                     m_axis_tx_tlast,
    output logic                     m_axis_tx_tuser,
    output logic [23:0]              m_axis_tx_tqpn,    // local QPN of the frame (sideband)

    input  wire logic [DATA_W-1:0]   s_axis_rx_tdata,
    input  wire logic [KEEP_W-1:0]   s_axis_rx_tkeep,
    input  wire logic                s_axis_rx_tvalid,
    output logic                     s_axis_rx_tready,
    input  wire logic                s_axis_rx_tlast,
    input  wire logic                s_axis_rx_tuser,

    output logic                     m_irq_valid,
    output logic [15:0]              m_irq_vector,

    // settings of the port's FEC shim (register block "fec", docs/fec.md) and its
    // twenty-one 32-bit counters (fabnic_fec_port stat layout)
    output logic [1:0]               fec_mode,
    output logic [7:0]               fec_k,
    output logic [7:0]               fec_r,
    output logic [7:0]               fec_d,
    output logic [15:0]              fec_flush_cycles,
    output logic [15:0]              fec_rob_timeout,
    output logic                     fec_rx_bypass,
    output logic [15:0]              fec_nak_delay,
    output logic [15:0]              fec_nak_retry,
    output logic                     fec_qp_we,
    output logic [23:0]              fec_qp_idx,
    output logic                     fec_qp_val,
    input  wire logic [671:0]        fec_stat
);
  import fabnic_roce_pkg::*;

  if (DATA_W != 512) begin : g_chk_width
    $error("fabnic_roce_core: DATA_W must be 512 (SQE fetch and classification assume it)");
  end

  // ---------------------------------------------------------------- register bus
  logic        rq_valid, rq_write;
  logic [23:0] rq_addr;
  logic [31:0] rq_wdata;
  logic [3:0]  rq_wstrb;
  logic        ak_valid, ak_err;
  logic [31:0] ak_rdata;
  logic        unused_axil_timeout;
  fabnic_axil_slave #(.ADDR_W(24), .TIMEOUT(0)) u_axil (
      .clk, .rst,
      .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
      .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
      .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
      .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
      .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
      .req_valid(rq_valid), .req_write(rq_write), .req_addr(rq_addr), .req_wdata(rq_wdata),
      .req_wstrb(rq_wstrb), .ack_valid(ak_valid), .ack_rdata(ak_rdata), .ack_err(ak_err),
      .status_timeout(unused_axil_timeout)
  );

  // register file: addresses below 0x100000
  logic        rg_valid, rg_write, rg_ack_valid, rg_ack_err;
  logic [15:0] rg_addr;
  logic [31:0] rg_wdata, rg_ack_rdata;
  logic [3:0]  rg_wstrb;
  assign rg_valid = rq_valid && !rq_addr[20];
  assign rg_write = rq_write;
  assign rg_addr  = rq_addr[15:0];
  assign rg_wdata = rq_wdata;
  assign rg_wstrb = rq_wstrb;

  // doorbells: 0x100000-0x17FFFF QPs, 0x180000-0x1FFFFF CQs
  logic        db_pend_q, db_is_cq_q, db_is_rq_q;
  logic [31:0] db_val_q;
  logic [18:0] db_idx_q;
  logic        sq_db_push, rq_db_push, cq_db_push, sq_db_rdy, rq_db_rdy, cq_db_rdy;
  logic        db_ack;
  always_ff @(posedge clk) begin
    if (rq_valid && rq_addr[20]) begin
      db_pend_q  <= rq_write;
      db_is_cq_q <= rq_addr[19];
      db_is_rq_q <= rq_addr[2];
      db_idx_q   <= {3'd0, rq_addr[18:3]};
      db_val_q   <= rq_wdata;
    end
    if (db_ack) db_pend_q <= 1'b0;
    if (rst) db_pend_q <= 1'b0;
  end
  logic db_read_ack_q;
  always_ff @(posedge clk) begin
    db_read_ack_q <= rq_valid && rq_addr[20] && !rq_write;
    if (rst) db_read_ack_q <= 1'b0;
  end
  assign sq_db_push = db_pend_q && !db_is_cq_q && !db_is_rq_q;
  assign rq_db_push = db_pend_q && !db_is_cq_q && db_is_rq_q;
  assign cq_db_push = db_pend_q && db_is_cq_q;
  logic db_out_of_range;
  assign db_out_of_range = db_is_cq_q ? (32'(db_idx_q) >= NUM_CQ) : (32'(db_idx_q) >= NUM_QP);
  assign db_ack = db_pend_q && (db_out_of_range || (sq_db_push && sq_db_rdy)
                                || (rq_db_push && rq_db_rdy) || (cq_db_push && cq_db_rdy));
  assign ak_valid = rg_ack_valid || db_ack || db_read_ack_q;
  assign ak_rdata = rg_ack_valid ? rg_ack_rdata : 32'd0;
  assign ak_err   = rg_ack_valid ? rg_ack_err : (db_ack && db_out_of_range);

  logic             sqdb_valid, sqdb_ready, rqdb_valid, rqdb_ready, cqdb_valid, cqdb_ready;
  logic [QPN_W+15:0] sqdb_data, rqdb_data;
  logic [CQN_W+31:0] cqdb_data;
  logic [4:0]        unused_fc0, unused_fc1, unused_fc2;
  fabnic_fifo #(.WIDTH(QPN_W+16), .DEPTH(16)) u_sqdb (
      .clk, .rst, .in_valid(sq_db_push && !db_out_of_range), .in_ready(sq_db_rdy),
      .in_data({QPN_W'(db_idx_q), db_val_q[15:0]}),
      .out_valid(sqdb_valid), .out_ready(sqdb_ready), .out_data(sqdb_data),
      .status_count(unused_fc0)
  );
  fabnic_fifo #(.WIDTH(QPN_W+16), .DEPTH(16)) u_rqdb (
      .clk, .rst, .in_valid(rq_db_push && !db_out_of_range), .in_ready(rq_db_rdy),
      .in_data({QPN_W'(db_idx_q), db_val_q[15:0]}),
      .out_valid(rqdb_valid), .out_ready(rqdb_ready), .out_data(rqdb_data),
      .status_count(unused_fc1)
  );
  fabnic_fifo #(.WIDTH(CQN_W+32), .DEPTH(16)) u_cqdb (
      .clk, .rst, .in_valid(cq_db_push && !db_out_of_range), .in_ready(cq_db_rdy),
      .in_data({CQN_W'(db_idx_q), db_val_q}),
      .out_valid(cqdb_valid), .out_ready(cqdb_ready), .out_data(cqdb_data),
      .status_count(unused_fc2)
  );

  // ---------------------------------------------------------------- registers
  logic [31:0] cfg_device_scratch;
  logic [31:0] cfg_roce_local_mac_lo, cfg_roce_local_ip0, cfg_roce_local_ip1;
  logic [31:0] cfg_roce_local_ip2, cfg_roce_local_ip3;
  logic [15:0] cfg_roce_local_mac_hi, cfg_roce_ack_cadence;
  logic [23:0] cfg_roce_timer_tick;
  logic [5:0]  cfg_roce_sr_reorder;
  logic [7:0]  cfg_roce_sr_probe;
  logic [6:0]  cfg_roce_sr_max_inflight;
  logic        cmd_roce_cmd;
  logic [31:0] cmd_roce_cmd_data;
  logic [31:0] sts_roce_cmd_status, sts_roce_result0, sts_roce_result1, sts_roce_result2;
  logic [31:0] sts_roce_result3;
  logic [31:0] sts_roce_async_event;
  logic        cmd_roce_async_event_pop;
  logic [0:0]  cmd_roce_async_event_pop_data;
  logic [31:0] c_cq_err_drop;
  logic [31:0] cmd_w [CMD_WORDS];
  logic [1:0] cfg_cc_ctrl;
  logic [4:0] cfg_cc_g_shift;
  logic [31:0] cfg_cc_alpha_period;
  logic [31:0] cfg_cc_timer_period;
  logic [31:0] cfg_cc_byte_counter;
  logic [7:0] cfg_cc_f;
  logic [31:0] cfg_cc_rate_ai;
  logic [31:0] cfg_cc_rate_hai;
  logic [31:0] cfg_cc_rate_min;
  logic [31:0] cfg_cc_rate_line;
  logic [31:0] cfg_cc_rate_init;
  logic [0:0] cfg_cc_clamp_tgt;
  logic [31:0] cfg_cc_cnp_interval;
  logic [15:0] cfg_cc_limiter_slack;
  logic  cmd_cc_qp_cmd;
  logic [31:0] cmd_cc_qp_cmd_data;
  logic [31:0] sts_cc_qp_status;
  logic [31:0] sts_cc_qp_rc;
  logic [31:0] sts_cc_qp_rt;
  logic [20:0] sts_cc_qp_alpha;
  logic [31:0] sts_cc_cnp_rx;
  logic [31:0] sts_cc_cnp_rx_ignored;
  logic [31:0] sts_cc_rate_decrease;
  logic [31:0] sts_cc_rate_increase;
  logic [31:0] sts_cc_rp_catchup;
  logic [31:0] sts_cc_ecn_marked_rx;
  logic [31:0] sts_cc_cnp_tx;
  logic [31:0] sts_cc_cnp_suppressed;
  logic [31:0] sts_cc_lim_grant;
  logic [31:0] sts_cc_lim_deny;
  logic [31:0] sts_cc_lim_rate_set;
  logic [31:0] sts_cc_ev_dropped;
  logic [31:0] c_rx_frames, c_rx_roce, c_rx_drop_bad, c_rx_drop_not_roce, c_rx_drop_icrc, c_rx_drop_hdr, c_rx_drop_qpn, c_rx_drop_qp_state, c_rx_drop_psn, c_rx_dup, c_rx_seq_nak, c_rx_rnr_nak, c_rx_access_err, c_rx_inv_req, c_rx_acks, c_rx_naks, c_rx_read_resp, c_rx_cnp, c_tx_frames, c_tx_req_pkts, c_tx_retx_pkts, c_tx_acks, c_tx_read_resp, c_tx_cnp, c_timeouts, c_retry_exc, c_cqe, c_cq_overflow, c_cqe_err, c_dma_err, c_lkey_err, c_irq, c_tx_len_err;
  logic [31:0] c_sr_sack_tx, c_sr_sack_rx, c_sr_retx, c_sr_ooo_placed, c_sr_drop, c_sr_probe;
  logic [31:0] c_sr_rresp_ooo, c_sr_spurious;
  logic [31:0] c_sqe_shadow_hit, c_sqe_shadow_miss;
  logic [31:0] c_rx_drop_dst_mac, c_rx_drop_dst_ip, c_rx_drop_ip_frag, c_rx_drop_oversize, c_rx_drop_ip_hdr, c_rx_drop_ip_csum, c_rx_drop_udp_len, c_rx_drop_frame_len, c_rx_drop_pad, c_rx_drop_op_len, c_rx_drop_pmtu, c_rx_drop_reth_len;
  logic [31:0] c_wr_err_resp, c_wr_err_cpl, c_wr_err_cq, c_wr_err_lost;
  logic [2:0]  cfg_roce_rx_filter;

  logic [24:0] fec_qp_en_data;
  assign fec_qp_idx = fec_qp_en_data[23:0];
  assign fec_qp_val = fec_qp_en_data[24];

  fabnic_regs_roce #(.ADDR_W(16), .DATA_W(DATA_W), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_QP(NUM_QP)) u_regs (
      .clk, .rst,
      .req_valid(rg_valid),
      .req_write(rg_write),
      .req_addr(rg_addr),
      .req_wdata(rg_wdata),
      .req_wstrb(rg_wstrb),
      .ack_valid(rg_ack_valid),
      .ack_rdata(rg_ack_rdata),
      .ack_err(rg_ack_err),
      .cfg_device_scratch(cfg_device_scratch),
      .cfg_roce_local_mac_lo(cfg_roce_local_mac_lo),
      .cfg_roce_local_mac_hi(cfg_roce_local_mac_hi),
      .cfg_roce_local_ip0(cfg_roce_local_ip0),
      .cfg_roce_local_ip1(cfg_roce_local_ip1),
      .cfg_roce_local_ip2(cfg_roce_local_ip2),
      .cfg_roce_local_ip3(cfg_roce_local_ip3),
      .cfg_roce_ack_cadence(cfg_roce_ack_cadence),
      .cfg_roce_timer_tick(cfg_roce_timer_tick),
      .cfg_roce_sr_reorder(cfg_roce_sr_reorder),
      .cfg_roce_sr_probe(cfg_roce_sr_probe),
      .cfg_roce_sr_max_inflight(cfg_roce_sr_max_inflight),
      .cfg_roce_rx_filter(cfg_roce_rx_filter),
      .cmd_roce_cmd(cmd_roce_cmd),
      .cmd_roce_cmd_data(cmd_roce_cmd_data),
      .sts_roce_cmd_status(sts_roce_cmd_status),
      .sts_roce_result0(sts_roce_result0),
      .sts_roce_result1(sts_roce_result1),
      .sts_roce_result2(sts_roce_result2),
      .sts_roce_result3(sts_roce_result3),
      .sts_roce_async_event(sts_roce_async_event),
      .cmd_roce_async_event_pop(cmd_roce_async_event_pop),
      .cmd_roce_async_event_pop_data(cmd_roce_async_event_pop_data),
      .cfg_roce_data0(cmd_w[0]),
      .cfg_roce_data1(cmd_w[1]),
      .cfg_roce_data2(cmd_w[2]),
      .cfg_roce_data3(cmd_w[3]),
      .cfg_roce_data4(cmd_w[4]),
      .cfg_roce_data5(cmd_w[5]),
      .cfg_roce_data6(cmd_w[6]),
      .cfg_roce_data7(cmd_w[7]),
      .cfg_roce_data8(cmd_w[8]),
      .cfg_roce_data9(cmd_w[9]),
      .cfg_roce_data10(cmd_w[10]),
      .cfg_roce_data11(cmd_w[11]),
      .cfg_roce_data12(cmd_w[12]),
      .cfg_roce_data13(cmd_w[13]),
      .cfg_roce_data14(cmd_w[14]),
      .cfg_roce_data15(cmd_w[15]),
      .cfg_roce_data16(cmd_w[16]),
      .cfg_roce_data17(cmd_w[17]),
      .cfg_roce_data18(cmd_w[18]),
      .cfg_roce_data19(cmd_w[19]),
      .cfg_roce_data20(cmd_w[20]),
      .cfg_roce_data21(cmd_w[21]),
      .cfg_roce_data22(cmd_w[22]),
      .cfg_roce_data23(cmd_w[23]),
      .sts_roce_cnt_rx_frames(c_rx_frames),
      .sts_roce_cnt_rx_roce(c_rx_roce),
      .sts_roce_cnt_rx_drop_bad(c_rx_drop_bad),
      .sts_roce_cnt_rx_drop_not_roce(c_rx_drop_not_roce),
      .sts_roce_cnt_rx_drop_icrc(c_rx_drop_icrc),
      .sts_roce_cnt_rx_drop_hdr(c_rx_drop_hdr),
      .sts_roce_cnt_rx_drop_qpn(c_rx_drop_qpn),
      .sts_roce_cnt_rx_drop_qp_state(c_rx_drop_qp_state),
      .sts_roce_cnt_rx_drop_psn(c_rx_drop_psn),
      .sts_roce_cnt_rx_dup(c_rx_dup),
      .sts_roce_cnt_rx_seq_nak(c_rx_seq_nak),
      .sts_roce_cnt_rx_rnr_nak(c_rx_rnr_nak),
      .sts_roce_cnt_rx_access_err(c_rx_access_err),
      .sts_roce_cnt_rx_inv_req(c_rx_inv_req),
      .sts_roce_cnt_rx_acks(c_rx_acks),
      .sts_roce_cnt_rx_naks(c_rx_naks),
      .sts_roce_cnt_rx_read_resp(c_rx_read_resp),
      .sts_roce_cnt_rx_cnp(c_rx_cnp),
      .sts_roce_cnt_tx_frames(c_tx_frames),
      .sts_roce_cnt_tx_req_pkts(c_tx_req_pkts),
      .sts_roce_cnt_tx_retx_pkts(c_tx_retx_pkts),
      .sts_roce_cnt_tx_acks(c_tx_acks),
      .sts_roce_cnt_tx_read_resp(c_tx_read_resp),
      .sts_roce_cnt_tx_cnp(c_tx_cnp),
      .sts_roce_cnt_timeouts(c_timeouts),
      .sts_roce_cnt_retry_exc(c_retry_exc),
      .sts_roce_cnt_cqe(c_cqe),
      .sts_roce_cnt_cq_overflow(c_cq_overflow),
      .sts_roce_cnt_cqe_err(c_cqe_err),
      .sts_roce_cnt_dma_err(c_dma_err),
      .sts_roce_cnt_lkey_err(c_lkey_err),
      .sts_roce_cnt_irq(c_irq),
      .sts_roce_cnt_tx_len_err(c_tx_len_err),
      .sts_roce_cnt_sr_sack_tx(c_sr_sack_tx),
      .sts_roce_cnt_sr_sack_rx(c_sr_sack_rx),
      .sts_roce_cnt_sr_retx(c_sr_retx),
      .sts_roce_cnt_sr_ooo_placed(c_sr_ooo_placed),
      .sts_roce_cnt_sr_drop(c_sr_drop),
      .sts_roce_cnt_sr_probe(c_sr_probe),
      .sts_roce_cnt_sr_rresp_ooo(c_sr_rresp_ooo),
      .sts_roce_cnt_sr_spurious(c_sr_spurious),
      .sts_roce_cnt_sqe_shadow_hit(c_sqe_shadow_hit),
      .sts_roce_cnt_sqe_shadow_miss(c_sqe_shadow_miss),
      .sts_roce_cnt_rx_drop_dst_mac(c_rx_drop_dst_mac),
      .sts_roce_cnt_rx_drop_dst_ip(c_rx_drop_dst_ip),
      .sts_roce_cnt_rx_drop_ip_frag(c_rx_drop_ip_frag),
      .sts_roce_cnt_rx_drop_oversize(c_rx_drop_oversize),
      .sts_roce_cnt_rx_drop_ip_hdr(c_rx_drop_ip_hdr),
      .sts_roce_cnt_rx_drop_ip_csum(c_rx_drop_ip_csum),
      .sts_roce_cnt_rx_drop_udp_len(c_rx_drop_udp_len),
      .sts_roce_cnt_rx_drop_frame_len(c_rx_drop_frame_len),
      .sts_roce_cnt_rx_drop_pad(c_rx_drop_pad),
      .sts_roce_cnt_rx_drop_op_len(c_rx_drop_op_len),
      .sts_roce_cnt_rx_drop_pmtu(c_rx_drop_pmtu),
      .sts_roce_cnt_rx_drop_reth_len(c_rx_drop_reth_len),
      .sts_roce_cnt_wr_err_resp(c_wr_err_resp),
      .sts_roce_cnt_wr_err_cpl(c_wr_err_cpl),
      .sts_roce_cnt_wr_err_cq(c_wr_err_cq),
      .sts_roce_cnt_wr_err_lost(c_wr_err_lost),
      .sts_roce_cnt_cq_err_drop(c_cq_err_drop),
      .cfg_cc_ctrl(cfg_cc_ctrl),
      .cfg_cc_g_shift(cfg_cc_g_shift),
      .cfg_cc_alpha_period(cfg_cc_alpha_period),
      .cfg_cc_timer_period(cfg_cc_timer_period),
      .cfg_cc_byte_counter(cfg_cc_byte_counter),
      .cfg_cc_f(cfg_cc_f),
      .cfg_cc_rate_ai(cfg_cc_rate_ai),
      .cfg_cc_rate_hai(cfg_cc_rate_hai),
      .cfg_cc_rate_min(cfg_cc_rate_min),
      .cfg_cc_rate_line(cfg_cc_rate_line),
      .cfg_cc_rate_init(cfg_cc_rate_init),
      .cfg_cc_clamp_tgt(cfg_cc_clamp_tgt),
      .cfg_cc_cnp_interval(cfg_cc_cnp_interval),
      .cfg_cc_limiter_slack(cfg_cc_limiter_slack),
      .cmd_cc_qp_cmd(cmd_cc_qp_cmd),
      .cmd_cc_qp_cmd_data(cmd_cc_qp_cmd_data),
      .sts_cc_qp_status(sts_cc_qp_status),
      .sts_cc_qp_rc(sts_cc_qp_rc),
      .sts_cc_qp_rt(sts_cc_qp_rt),
      .sts_cc_qp_alpha(sts_cc_qp_alpha),
      .sts_cc_cnp_rx(sts_cc_cnp_rx),
      .sts_cc_cnp_rx_ignored(sts_cc_cnp_rx_ignored),
      .sts_cc_rate_decrease(sts_cc_rate_decrease),
      .sts_cc_rate_increase(sts_cc_rate_increase),
      .sts_cc_rp_catchup(sts_cc_rp_catchup),
      .sts_cc_ecn_marked_rx(sts_cc_ecn_marked_rx),
      .sts_cc_cnp_tx(sts_cc_cnp_tx),
      .sts_cc_cnp_suppressed(sts_cc_cnp_suppressed),
      .sts_cc_lim_grant(sts_cc_lim_grant),
      .sts_cc_lim_deny(sts_cc_lim_deny),
      .sts_cc_lim_rate_set(sts_cc_lim_rate_set),
      .sts_cc_ev_dropped(sts_cc_ev_dropped),
      .cfg_fec_mode(fec_mode),
      .cfg_fec_k(fec_k),
      .cfg_fec_r(fec_r),
      .cfg_fec_d(fec_d),
      .cfg_fec_flush_cycles(fec_flush_cycles),
      .cfg_fec_rob_timeout(fec_rob_timeout),
      .cfg_fec_rx_bypass(fec_rx_bypass),
      .cfg_fec_nak_delay(fec_nak_delay),
      .cfg_fec_nak_retry(fec_nak_retry),
      .cmd_fec_qp_en(fec_qp_we),
      .cmd_fec_qp_en_data(fec_qp_en_data),
      .sts_fec_cnt_tx_prot(fec_stat[31:0]),
      .sts_fec_cnt_tx_bypass(fec_stat[63:32]),
      .sts_fec_cnt_tx_repairs(fec_stat[95:64]),
      .sts_fec_cnt_tx_flushes(fec_stat[127:96]),
      .sts_fec_cnt_rx_data(fec_stat[159:128]),
      .sts_fec_cnt_rx_repair(fec_stat[191:160]),
      .sts_fec_cnt_rx_plain(fec_stat[223:192]),
      .sts_fec_cnt_rx_malformed(fec_stat[255:224]),
      .sts_fec_cnt_rx_oversize(fec_stat[287:256]),
      .sts_fec_cnt_repaired(fec_stat[319:288]),
      .sts_fec_cnt_unrepairable(fec_stat[351:320]),
      .sts_fec_cnt_given_up(fec_stat[383:352]),
      .sts_fec_cnt_late(fec_stat[415:384]),
      .sts_fec_cnt_dup(fec_stat[447:416]),
      .sts_fec_cnt_resync(fec_stat[479:448]),
      .sts_fec_cnt_noseq(fec_stat[511:480]),
      .sts_fec_cnt_rtx_frames(fec_stat[543:512]),
      .sts_fec_cnt_rtx_miss(fec_stat[575:544]),
      .sts_fec_cnt_naks_sent(fec_stat[607:576]),
      .sts_fec_cnt_naks_rcvd(fec_stat[639:608]),
      .sts_fec_cnt_rx_src_full(fec_stat[671:640])
  );

  logic [47:0]  local_mac;
  logic [127:0] local_ip;
  assign local_mac = {cfg_roce_local_mac_hi, cfg_roce_local_mac_lo};
  assign local_ip  = {cfg_roce_local_ip3, cfg_roce_local_ip2, cfg_roce_local_ip1,
                      cfg_roce_local_ip0};
  logic [CMD_WORDS*32-1:0] cmd_flat;
  always_comb for (int i = 0; i < CMD_WORDS; i++) cmd_flat[32*i +: 32] = cmd_w[i];

  // ---------------------------------------------------------------- command engine
  typedef enum logic [2:0] { C_IDLE, C_INIT, C_WAIT, C_QUERY, C_QWAIT, C_CQ } c_e;
  c_e          c_q;
  logic [3:0]  c_op_q;
  logic [1:0]  c_flags_q;
  logic [23:0] c_idx_q;
  logic        c_refused_q;
  // command word and operands (layouts: rdl/layouts.toml, docs/fw.md)
  cmd_layout_t    cmd_word;
  cq_ctx_layout_t cq_ctx;
  qpc_t           qpc_new;
  assign cmd_word = cmd_roce_cmd_data;
  assign cq_ctx   = cmd_flat[$bits(cq_ctx_layout_t)-1:0];
  assign qpc_new  = qpc_decode(cmd_flat);

  logic        st_wr_en;
  logic [QPN_W-1:0] st_wr_addr;
  logic        mr_wr_valid;
  logic [MR_W-1:0] mr_wr_index;
  mr_entry_t   mr_wr_entry;
  assign mr_wr_entry = mr_decode(cmd_flat);

  logic        rq_ctl_valid, rq_ctl_ready, rq_ctl_op, rq_ctl_done;
  logic        cp_ctl_valid, cp_ctl_ready, cp_ctl_op, cp_ctl_done;
  logic        rs_ctl_valid, rs_ctl_ready, rs_ctl_op, rs_ctl_done;
  logic [23:0] rq_ctl_res, cp_ctl_una, rs_ctl_res;
  logic        cp_ctl_err;
  logic [7:0]  cp_ctl_err_status;
  logic [2:0]  cp_ctl_state;
  logic        rs_ctl_err, rs_err_q;
  logic        cq_ctl_valid, cq_ctl_ready;
  logic        need_rq_q, need_cp_q, need_rs_q, sent_rq_q, sent_cp_q, sent_rs_q;
  logic        cmd_fire;
  logic        idx_ok;
  always_comb begin
    case (cmd_word.op)
      CMD_QP_WRITE, CMD_QP_QUERY: idx_ok = 32'(cmd_word.index) < NUM_QP;
      CMD_CQ_WRITE:               idx_ok = 32'(cmd_word.index) < NUM_CQ;
      CMD_MR_WRITE:               idx_ok = 32'(cmd_word.index) < NUM_MR;
      default:                    idx_ok = 1'b0;
    endcase
  end
  assign cmd_fire = cmd_roce_cmd && c_q == C_IDLE;

  assign st_wr_en    = cmd_fire && idx_ok && cmd_word.op == CMD_QP_WRITE;
  assign st_wr_addr  = QPN_W'(cmd_word.index);
  assign mr_wr_valid = cmd_fire && idx_ok && cmd_word.op == CMD_MR_WRITE;
  assign mr_wr_index = MR_W'(cmd_word.index);

  assign rq_ctl_valid = (c_q == C_WAIT) && need_rq_q && !sent_rq_q;
  assign cp_ctl_valid = (c_q == C_WAIT) && need_cp_q && !sent_cp_q;
  assign rs_ctl_valid = (c_q == C_WAIT) && need_rs_q && !sent_rs_q;
  assign rq_ctl_op    = c_op_q == CMD_QP_QUERY;
  assign cp_ctl_op    = c_op_q == CMD_QP_QUERY;
  assign rs_ctl_op    = c_op_q == CMD_QP_QUERY;
  assign cq_ctl_valid = c_q == C_CQ;

  logic done_rq_q, done_cp_q, done_rs_q;
  assign sts_roce_cmd_status = {30'd0, c_refused_q, c_q != C_IDLE};

  always_ff @(posedge clk) begin
    case (c_q)
      C_IDLE: begin
        if (cmd_roce_cmd) begin
          c_op_q    <= cmd_word.op;
          c_flags_q <= {cmd_word.reset_rq, cmd_word.reset_sq};
          c_idx_q   <= cmd_word.index;
          c_refused_q <= !idx_ok;
          sent_rq_q <= 1'b0; sent_cp_q <= 1'b0; sent_rs_q <= 1'b0;
          done_rq_q <= 1'b0; done_cp_q <= 1'b0; done_rs_q <= 1'b0;
          if (idx_ok) begin
            case (cmd_word.op)
              CMD_QP_WRITE: begin
                need_rq_q <= cmd_word.reset_sq;
                need_cp_q <= cmd_word.reset_sq;
                need_rs_q <= cmd_word.reset_rq;
                c_q <= C_INIT;
              end
              CMD_QP_QUERY: begin
                need_rq_q <= 1'b1; need_cp_q <= 1'b1; need_rs_q <= 1'b1;
                c_q <= C_INIT;
              end
              CMD_CQ_WRITE: c_q <= C_CQ;
              default: ;
            endcase
          end
        end
      end
      C_INIT: c_q <= C_WAIT;   // let the static write land before the engines read it
      C_WAIT: begin
        if (rq_ctl_valid && rq_ctl_ready) sent_rq_q <= 1'b1;
        if (cp_ctl_valid && cp_ctl_ready) sent_cp_q <= 1'b1;
        if (rs_ctl_valid && rs_ctl_ready) sent_rs_q <= 1'b1;
        if (rq_ctl_done) begin done_rq_q <= 1'b1; sts_roce_result1 <= {8'd0, rq_ctl_res}; end
        if (rs_ctl_done) begin
          done_rs_q <= 1'b1;
          rs_err_q  <= rs_ctl_err;
          sts_roce_result2 <= {8'd0, rs_ctl_res};
        end
        if (cp_ctl_done) begin
          done_cp_q <= 1'b1;
          sts_roce_result3 <= {8'd0, cp_ctl_una};
          sts_roce_result0 <= {8'd0, cp_ctl_err_status, 12'd0, cp_ctl_err,
                               cp_ctl_err ? QPS_ERR : cp_ctl_state};
        end
        if ((!need_rq_q || done_rq_q) && (!need_cp_q || done_cp_q) && (!need_rs_q || done_rs_q))
        begin
          c_q <= C_IDLE;
          // the state reads ERR when either side is in error (receive side: a request
          // it NAKed with an invalid / access / operational error)
          if (need_rs_q && (rs_ctl_done ? rs_ctl_err : rs_err_q)) sts_roce_result0[2:0] <= QPS_ERR;
        end
      end
      C_CQ: if (cq_ctl_ready) c_q <= C_IDLE;
      default: c_q <= C_IDLE;
    endcase
    if (rst) begin
      c_q         <= C_IDLE;
      c_refused_q <= 1'b0;
      need_rq_q <= 1'b0; need_cp_q <= 1'b0; need_rs_q <= 1'b0;
      sts_roce_result0 <= '0; sts_roce_result1 <= '0; sts_roce_result2 <= '0;
      sts_roce_result3 <= '0;
    end
  end

  // ---------------------------------------------------------------- DMA
  localparam int NRD = 4;   // 0 requester SQE, 1 completer SQE, 2 responder, 3 payload
  logic [63:0]         rd_desc_addr  [NRD];
  logic [31:0]         rd_desc_len   [NRD];
  logic [NRD-1:0]      rd_desc_valid, rd_desc_ready;
  logic [DATA_W-1:0]   rd_tdata  [NRD];
  logic [KEEP_W-1:0]   rd_tkeep  [NRD];
  logic [NRD-1:0]      rd_tvalid, rd_tready, rd_tlast, rd_tuser;
  logic [AXI_ID_W-1:0] ar_id [NRD];
  logic [63:0]         ar_addr [NRD];
  logic [7:0]          ar_len [NRD];
  logic [2:0]          ar_size [NRD];
  logic [1:0]          ar_burst [NRD];
  logic [NRD-1:0]      ar_valid, ar_ready, r_valid, r_ready;
  logic [DATA_W-1:0]   r_data;
  logic [1:0]          r_resp;
  logic                r_last;
  logic [NRD-1:0]      rd_cpl_valid, rd_cpl_err;

  for (genvar g = 0; g < NRD; g++) begin : g_rd
    logic [7:0] unused_tag, unused_tid;
    logic [1:0] cpl_status;
    logic       unused_lock;
    logic [3:0] unused_cache;
    logic [2:0] unused_prot;
    localparam int RD_OS = (g == 3) ? 128 : 16;
    logic [$clog2(RD_OS+1)-1:0] unused_out;
    // the payload reader (3) queues more descriptors: packets keep flowing while an
    // SQE read waits behind up to MAX_OUTSTANDING payload bursts in host memory. It
    // keeps 128 bursts in flight: with one read per small packet, the 100 G wire's 0.31
    // 64 B packets per cycle behind a 1 us (250-cycle) host round trip need about 85
    fabnic_dma_rd #(.AXI_DATA_W(DATA_W), .ID_W(AXI_ID_W), .AXI_ID(AXI_ID_W'(g)),
                    .MAX_OUTSTANDING(RD_OS), .TUSER_EACH(g <= 1),
                    .DESC_DEPTH(g == 3 ? 128 : 16)) u_rd (
        .clk, .rst,
        .s_desc_addr(rd_desc_addr[g]), .s_desc_len(rd_desc_len[g]), .s_desc_tag(8'd0),
        .s_desc_valid(rd_desc_valid[g]), .s_desc_ready(rd_desc_ready[g]),
        .m_cpl_tag(unused_tag), .m_cpl_status(cpl_status), .m_cpl_valid(rd_cpl_valid[g]),
        .m_cpl_ready(1'b1),
        .m_axis_tdata(rd_tdata[g]), .m_axis_tkeep(rd_tkeep[g]), .m_axis_tvalid(rd_tvalid[g]),
        .m_axis_tready(rd_tready[g]), .m_axis_tlast(rd_tlast[g]), .m_axis_tid(unused_tid),
        .m_axis_tuser(rd_tuser[g]),
        .m_axi_arid(ar_id[g]), .m_axi_araddr(ar_addr[g]), .m_axi_arlen(ar_len[g]),
        .m_axi_arsize(ar_size[g]), .m_axi_arburst(ar_burst[g]), .m_axi_arlock(unused_lock),
        .m_axi_arcache(unused_cache), .m_axi_arprot(unused_prot), .m_axi_arvalid(ar_valid[g]),
        .m_axi_arready(ar_ready[g]), .m_axi_rid(m_axi_rid), .m_axi_rdata(r_data),
        .m_axi_rresp(r_resp), .m_axi_rlast(r_last), .m_axi_rvalid(r_valid[g]),
        .m_axi_rready(r_ready[g]),
        .status_outstanding(unused_out)
    );
    assign rd_cpl_err[g] = rd_cpl_valid[g] && cpl_status != 2'd0;
    logic unused_g;
    assign unused_g = ^{unused_tag, unused_tid, unused_lock, unused_cache, unused_prot,
                        unused_out, rd_tkeep[g]};
  end

  // SQE reads of the requester and the completer land in FIFOs that hold a whole
  // fetch (SQE_BATCH SQEs), so a client busy with something else never stalls the shared
  // R channel (that would block the payload reads the transmit path needs). 32 SQEs per
  // read: one host-memory round trip per 32 WQEs instead of per 8 (small-message rate).
  // The completer's FIFO holds two fetches (the shadow's RES_DEPTH); the requester's
  // SQE_FIFO beats: the batch being walked and up to two read-aheads in flight (about 85
  // SQEs are under way at the 100 G wire's 64 B message rate behind a 250-cycle host).
  localparam int SQE_BATCH = 32;
  localparam int SQE_FIFO  = 4 * SQE_BATCH;
  localparam int SR_W      = 64;   // selective repeat window (PSNs), requester and completer
  // SR packets in flight at most: the register, capped by the window (0 = the window)
  logic [23:0] sr_inflight;
  assign sr_inflight = (cfg_roce_sr_max_inflight == '0 || 24'(cfg_roce_sr_max_inflight) > 24'(SR_W))
                       ? 24'(SR_W) : 24'(cfg_roce_sr_max_inflight);
  logic [511:0] sq_tdata [2];
  logic [1:0]   sq_tvalid, sq_tready, sq_tlast, sq_tuser;
  for (genvar g = 0; g < 2; g++) begin : g_sqf
    localparam int SQF_DEPTH = (g == 0) ? SQE_FIFO : 2 * SQE_BATCH;
    logic [$clog2(SQF_DEPTH):0] unused_cnt;
    fabnic_fifo #(.WIDTH(DATA_W + 2), .DEPTH(SQF_DEPTH)) u_f (
        .clk, .rst,
        .in_valid(rd_tvalid[g]), .in_ready(rd_tready[g]),
        .in_data({rd_tdata[g], rd_tlast[g], rd_tuser[g]}),
        .out_valid(sq_tvalid[g]), .out_ready(sq_tready[g]),
        .out_data({sq_tdata[g], sq_tlast[g], sq_tuser[g]}), .status_count(unused_cnt)
    );
  end

  // SQE shadow: the completer's SQE re-reads are served from the SQEs the requester
  // read (fabnic_roce_sqe_shadow); only misses go to host memory (port 1). The
  // completer's FIFO above holds 2 * SQE_BATCH beats, the shadow's RES_DEPTH.
  logic [63:0]  rq_rd_addr, cp_rd_addr;
  logic [31:0]  rq_rd_len, cp_rd_len;
  logic [15:0]  cp_rd_nok;
  logic         rq_rd_valid, rq_rd_ready, cp_rd_valid, cp_rd_ready;
  logic [511:0] cp_tdata;
  logic         cp_tvalid, cp_tready, cp_tlast, cp_tuser;
  assign rd_desc_addr[0] = rq_rd_addr;
  assign rd_desc_len[0]  = rq_rd_len;
  fabnic_roce_sqe_shadow #(.RES_DEPTH(2 * SQE_BATCH)) u_shadow (
      .clk, .rst,
      .s_fdesc_addr(rq_rd_addr), .s_fdesc_len(rq_rd_len), .s_fdesc_valid(rq_rd_valid),
      .s_fdesc_ready(rq_rd_ready), .m_fdesc_valid(rd_desc_valid[0]),
      .m_fdesc_ready(rd_desc_ready[0]),
      .f_beat(rd_tvalid[0] && rd_tready[0]), .f_data(rd_tdata[0][223:0]),
      .f_last(rd_tlast[0]), .f_err(rd_tuser[0]),
      .s_desc_addr(cp_rd_addr), .s_desc_len(cp_rd_len), .s_desc_nok(cp_rd_nok),
      .s_desc_valid(cp_rd_valid), .s_desc_ready(cp_rd_ready),
      .m_desc_addr(rd_desc_addr[1]), .m_desc_len(rd_desc_len[1]),
      .m_desc_valid(rd_desc_valid[1]), .m_desc_ready(rd_desc_ready[1]),
      .s_dma_tdata(sq_tdata[1]), .s_dma_tvalid(sq_tvalid[1]), .s_dma_tready(sq_tready[1]),
      .s_dma_tuser(sq_tuser[1]),
      .m_tdata(cp_tdata), .m_tvalid(cp_tvalid), .m_tready(cp_tready), .m_tlast(cp_tlast),
      .m_tuser(cp_tuser),
      .cnt_hit(c_sqe_shadow_hit), .cnt_miss(c_sqe_shadow_miss)
  );

  fabnic_axi_rd_mux #(.N(NRD), .ID_W(AXI_ID_W), .ADDR_W(64), .DATA_W(DATA_W)) u_rdmux (
      .clk, .rst,
      .s_arid(ar_id), .s_araddr(ar_addr), .s_arlen(ar_len), .s_arsize(ar_size),
      .s_arburst(ar_burst), .s_arvalid(ar_valid), .s_arready(ar_ready),
      .s_rdata(r_data), .s_rresp(r_resp), .s_rlast(r_last), .s_rvalid(r_valid),
      .s_rready(r_ready),
      .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst,
      .m_axi_arvalid, .m_axi_arready, .m_axi_rid, .m_axi_rdata, .m_axi_rresp,
      .m_axi_rlast, .m_axi_rvalid, .m_axi_rready
  );
  assign m_axi_arlock  = 1'b0;
  assign m_axi_arcache = 4'b0011;
  assign m_axi_arprot  = 3'b010;

  localparam int NWR = 3;   // 0 responder, 1 completer, 2 CQ writer
  // write meta (write-fault attribution, fabnic_roce_wr_arb): responder {SEND, PSN,
  // QPN}, completer QPN; the CQ writer's faults are only counted (no meta)
  localparam int WMETA_W = 25 + QPN_W;
  localparam int WTAG_W  = 2 + WMETA_W;
  logic [63:0]       wr_addr [NWR];
  logic [31:0]       wr_len  [NWR];
  logic [WMETA_W-1:0] wr_meta [NWR];
  logic [WTAG_W-1:0]  w_tag, wcpl_tag;
  logic               wf_valid, wf_mis;
  logic [1:0]         wcpl_status;
  logic               wcpl_valid, unused_wmis;
  logic [1:0]         wf_src;
  logic [WMETA_W-1:0] wf_meta;
  logic [QPN_W-1:0]   rs_wr_qpn, cp_wr_qpn;
  logic [CQN_W-1:0]   cq_wr_cqn;
  logic [23:0]        rs_wr_psn;
  logic               rs_wr_send;
  assign wr_meta[0] = {rs_wr_send, rs_wr_psn, rs_wr_qpn};
  assign wr_meta[1] = WMETA_W'(cp_wr_qpn);
  assign wr_meta[2] = WMETA_W'(cq_wr_cqn);
  logic [NWR-1:0]    wr_valid, wr_ready, wr_tvalid, wr_tready, wr_tlast;
  logic [DATA_W-1:0] wr_tdata [NWR];
  logic [KEEP_W-1:0] wr_tkeep [NWR];
  logic [63:0]       w_addr;
  logic [31:0]       w_len;
  logic              w_valid, w_ready, w_tvalid, w_tready, w_tlast;
  logic [DATA_W-1:0] w_tdata;
  logic [KEEP_W-1:0] w_tkeep;
  // responder and completer write faults are queued (below): both under the arbiter's
  // fault-credit rule, with as many credits as the write engine can hold descriptors
  // (queued + bursts outstanding), so a fault always finds room in its queue
  localparam int WR_OS = 128;
  localparam int WR_DESC = 128;
  localparam int WF_Q = WR_OS + WR_DESC;
  logic [NWR-1:0] wf_ret;
  fabnic_roce_wr_arb #(.N(NWR), .DATA_W(DATA_W), .META_W(WMETA_W), .CRED_MASK(NWR'(3)),
                       .CRED(WF_Q)) u_wrarb (
      .clk, .rst,
      .s_addr(wr_addr), .s_len(wr_len), .s_meta(wr_meta), .s_valid(wr_valid),
      .s_ready(wr_ready),
      .s_tdata(wr_tdata), .s_tkeep(wr_tkeep), .s_tvalid(wr_tvalid), .s_tready(wr_tready),
      .s_tlast(wr_tlast),
      .m_addr(w_addr), .m_len(w_len), .m_tag(w_tag), .m_valid(w_valid), .m_ready(w_ready),
      .m_tdata(w_tdata), .m_tkeep(w_tkeep), .m_tvalid(w_tvalid), .m_tready(w_tready),
      .m_tlast(w_tlast),
      .s_cpl_tag(wcpl_tag), .s_cpl_status(wcpl_status), .s_cpl_valid(wcpl_valid),
      .m_err_valid(wf_valid), .m_err_src(wf_src), .m_err_meta(wf_meta), .m_mis_valid(wf_mis),
      .s_cred_ret(wf_ret)
  );
  // 128 bursts with B outstanding (WR_OS above): every small packet placed and every
  // CQE pair is one burst, and the 100 G wire's 0.31 64 B packets per cycle behind a
  // 1 us (250-cycle) write response time keep about 80 in flight (32 allowed 0.125 per
  // cycle)
  logic [$clog2(WR_OS+1)-1:0] unused_wout;
  fabnic_dma_wr #(.AXI_DATA_W(DATA_W), .ID_W(AXI_ID_W), .MAX_OUTSTANDING(WR_OS),
                  .DESC_DEPTH(WR_DESC), .TAG_W(WTAG_W)) u_wr (
      .clk, .rst,
      .s_desc_addr(w_addr), .s_desc_len(w_len), .s_desc_tag(w_tag), .s_desc_valid(w_valid),
      .s_desc_ready(w_ready),
      .m_cpl_tag(wcpl_tag), .m_cpl_status(wcpl_status), .m_cpl_valid(wcpl_valid),
      .m_cpl_ready(1'b1),
      .s_axis_tdata(w_tdata), .s_axis_tkeep(w_tkeep), .s_axis_tvalid(w_tvalid),
      .s_axis_tready(w_tready), .s_axis_tlast(w_tlast),
      .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
      .m_axi_awlock, .m_axi_awcache, .m_axi_awprot, .m_axi_awvalid, .m_axi_awready,
      .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready,
      .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready,
      .status_outstanding(unused_wout), .status_len_mismatch(unused_wmis)
  );

  // Write faults to the engine that owns the write: one queue each (WF_Q entries) in
  // front of the responder's and the completer's fault inputs. The arbiter's credit
  // rule keeps room for every fault (wr_err_lost stays 0: it counts a fault that found
  // its queue full, which an assertion below also rules out). CQE write faults go to
  // the CQ writer (its CQ enters the error state) through a third queue of WF_Q entries,
  // as many as the write engine holds writes.
  logic                    rwf_in_ready, rwf_valid, rwf_ready, cwf_in_ready, cwf_valid, cwf_ready;
  logic [QPN_W+23:0]       rwf_data;
  logic [QPN_W-1:0]        cwf_qpn;
  logic [$clog2(WF_Q):0]   unused_rwf_cnt, unused_cwf_cnt;
  logic                    wf_rs, wf_cp, wf_cq, qwf_in_ready, qwf_valid, qwf_ready;
  logic [CQN_W-1:0]        qwf_cqn;
  logic [$clog2(WF_Q):0]   unused_qwf_cnt;
  logic                    unused_wf_send;   // the gate takes it from the completions
  assign unused_wf_send = wf_meta[WMETA_W-1];
  assign wf_rs = wf_valid && wf_src == 2'd0;
  assign wf_cp = wf_valid && wf_src == 2'd1;
  assign wf_cq = wf_valid && wf_src == 2'd2;
  fabnic_fifo #(.WIDTH(CQN_W), .DEPTH(WF_Q)) u_qwf_q (
      .clk, .rst,
      .in_valid(wf_cq), .in_ready(qwf_in_ready), .in_data(wf_meta[CQN_W-1:0]),
      .out_valid(qwf_valid), .out_ready(qwf_ready), .out_data(qwf_cqn),
      .status_count(unused_qwf_cnt)
  );
  assign wf_ret = {1'b0, cwf_valid && cwf_ready, rwf_valid && rwf_ready};
  fabnic_fifo #(.WIDTH(QPN_W + 24), .DEPTH(WF_Q)) u_rwf_q (
      .clk, .rst,
      .in_valid(wf_rs), .in_ready(rwf_in_ready), .in_data(wf_meta[QPN_W+23:0]),
      .out_valid(rwf_valid), .out_ready(rwf_ready), .out_data(rwf_data),
      .status_count(unused_rwf_cnt)
  );
  fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(WF_Q)) u_cwf_q (
      .clk, .rst,
      .in_valid(wf_cp), .in_ready(cwf_in_ready), .in_data(wf_meta[QPN_W-1:0]),
      .out_valid(cwf_valid), .out_ready(cwf_ready), .out_data(cwf_qpn),
      .status_count(unused_cwf_cnt)
  );
  always_ff @(posedge clk) begin
    c_wr_err_resp <= c_wr_err_resp + 32'(wf_rs && rwf_in_ready);
    c_wr_err_cpl  <= c_wr_err_cpl + 32'(wf_cp && cwf_in_ready);
    c_wr_err_cq   <= c_wr_err_cq + 32'(wf_cq && qwf_in_ready);
    c_wr_err_lost <= c_wr_err_lost + 32'((wf_rs && !rwf_in_ready) || (wf_cp && !cwf_in_ready)
                                         || (wf_cq && !qwf_in_ready));
`ifndef SYNTHESIS
    if (!rst) assert (!((wf_rs && !rwf_in_ready) || (wf_cp && !cwf_in_ready)
                        || (wf_cq && !qwf_in_ready)))
      else $error("roce_core: a write fault found its queue full (credit rule broken)");
`endif
    if (rst) begin
      c_wr_err_resp <= '0;
      c_wr_err_cpl  <= '0;
      c_wr_err_cq   <= '0;
      c_wr_err_lost <= '0;
    end
  end

  // READ response frames sent flagged bad (their payload read failed at this
  // responder): the transmit path's bad-frame event {QPN, PSN} (READ response source
  // only) is queued (RRF_Q entries; when full the event is not kept and the peer's
  // READ ends in RETRY_EXC_ERR) to the responder, which answers with a NAK remote
  // operational error at that PSN (the responder's fault events, below)
  localparam int RRF_Q = 64;
  logic                    rrb_valid, rrf_valid, rrf_ready, unused_rrf_in_ready;
  logic [23:0]             rrb_qpn, rrb_psn;
  logic [QPN_W+23:0]       rrf_data;
  logic [$clog2(RRF_Q):0]  unused_rrf_cnt;
  logic                    unused_rrb_qpn;    // (the high bits: QPNs are QPN_W wide)
  assign unused_rrb_qpn = ^rrb_qpn;
  fabnic_fifo #(.WIDTH(QPN_W + 24), .DEPTH(RRF_Q)) u_rrf_q (
      .clk, .rst,
      .in_valid(rrb_valid), .in_ready(unused_rrf_in_ready),
      .in_data({rrb_psn, rrb_qpn[QPN_W-1:0]}),
      .out_valid(rrf_valid), .out_ready(rrf_ready), .out_data(rrf_data),
      .status_count(unused_rrf_cnt)
  );

  // The responder's fault events: its write faults (u_rwf_q) first, then READ
  // response payload read faults (u_rrf_q), through one event register (rfe_*: an
  // event every two cycles at most; rfe_rd_q marks a read fault). A write fault's
  // credit goes back when the register takes it (its queue slot is free).
  logic             rfe_valid_q, rfe_ready, rfe_rd_q;
  logic [QPN_W-1:0] rfe_qpn_q;
  logic [23:0]      rfe_psn_q;
  assign rwf_ready = !rfe_valid_q;
  assign rrf_ready = !rfe_valid_q && !rwf_valid;
  always_ff @(posedge clk) begin
    if (!rfe_valid_q) begin
      rfe_valid_q <= rwf_valid || rrf_valid;
      rfe_rd_q    <= !rwf_valid;
      rfe_qpn_q   <= rwf_valid ? rwf_data[QPN_W-1:0] : rrf_data[QPN_W-1:0];
      rfe_psn_q   <= rwf_valid ? rwf_data[QPN_W+23:QPN_W] : rrf_data[QPN_W+23:QPN_W];
    end else if (rfe_ready) begin
      rfe_valid_q <= 1'b0;
    end
    if (rst) rfe_valid_q <= 1'b0;
  end

  logic             lim_req_valid, lim_req_ready, lim_rsp_valid, lim_rsp_grant;
  logic [QPN_W-1:0] lim_req_qpn;
  logic [15:0]      lim_req_len;
  logic [47:0]      lim_rsp_time, lim_time;
  logic             sent_valid, req_sent_valid;      // frames sent (u_tx); req's own view unused
  logic [23:0]      sent_qpn;
  logic [QPN_W-1:0] req_sent_qpn;
  logic [15:0]      sent_bytes, req_sent_bytes;
  logic             np_cnp_valid, np_cnp_ready;
  logic [QPN_W-1:0] np_cnp_qpn;
  logic             upd_valid;
  logic [QPN_W-1:0] upd_qpn;
  logic [31:0]      unused_rp_time;
  logic [47:0]      unused_np_time;
  logic             unused_rp_cnp_ready, unused_rp_tx_ready, unused_np_s_ready;

  // Request frames sent flagged bad (their payload read failed): the transmit path's
  // sent-frame event (requester frames only) comes two cycles after the frame's last
  // beat (fabnic_roce_tx), the bad mark is delayed to meet it; the QPN goes to the
  // completer (queue of WF_Q; when full the mark is not kept and the QP's exhausted
  // retries end in RETRY_EXC_ERR as before)
  logic                    txbad1_q, txbad2_q, pfq_valid, pfq_ready, unused_pfq_in_ready;
  logic [QPN_W-1:0]        pfq_qpn;
  logic [$clog2(WF_Q):0]   unused_pfq_cnt;
  always_ff @(posedge clk) begin
    txbad1_q <= m_axis_tx_tvalid && m_axis_tx_tready && m_axis_tx_tlast && m_axis_tx_tuser;
    txbad2_q <= txbad1_q;
    if (rst) begin
      txbad1_q <= 1'b0;
      txbad2_q <= 1'b0;
    end
  end
  fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(WF_Q)) u_pf_q (
      .clk, .rst,
      .in_valid(sent_valid && txbad2_q), .in_ready(unused_pfq_in_ready),
      .in_data(sent_qpn[QPN_W-1:0]),
      .out_valid(pfq_valid), .out_ready(pfq_ready), .out_data(pfq_qpn),
      .status_count(unused_pfq_cnt)
  );

  // ---------------------------------------------------------------- engines
  localparam int NJ = 3;    // transmit sources: 0 requester, 1 responder ACKs, 2 READ responses
  tx_job_t        jobs [NJ];
  logic [NJ-1:0]  job_valid, job_ready;

  // requester
  logic             pub_wr_en, pub_lerr;
  logic [QPN_W-1:0] pub_wr_addr;
  logic [15:0]      pub_sq_pi, pub_sq_hi, pub_lerr_idx;
  logic [23:0]      pub_psn_hi;
  logic [7:0]       pub_lerr_status;
  logic             ev_valid, ev_ready;
  logic [1:0]       ev_type;
  logic             una_wr_en;
  logic [QPN_W-1:0] una_wr_addr;
  logic [23:0]      una_wr_data;
  logic [QPN_W-1:0] ev_qpn;
  logic [15:0]      ev_wqe_idx;
  logic [23:0]      ev_wqe_psn, ev_psn, ev_wqe_ssn;
  logic             ev_one;
  logic             kick_valid, kick_ready;
  logic [QPN_W-1:0] kick_qpn;
  logic [CNT_W-1:0] req_lkey_err;
  fabnic_roce_req #(.NUM_QP(NUM_QP), .NUM_MR(NUM_MR), .CNT_W(CNT_W), .SQE_BATCH(SQE_BATCH),
                   .SQE_FIFO(SQE_FIFO),
                   .SR_W(SR_W)) u_req (
      .clk, .rst,
      .st_wr_en, .st_wr_addr, .st_wr_data(qpc_new),
      .mr_wr_valid, .mr_wr_index, .mr_wr_entry,
      .cfg_ack_cadence(cfg_roce_ack_cadence),
      .cfg_sr_inflight(sr_inflight),
      .s_ctl_valid(rq_ctl_valid), .s_ctl_ready(rq_ctl_ready), .s_ctl_op(rq_ctl_op),
      .s_ctl_qpn(QPN_W'(c_idx_q)), .s_ctl_psn(qpc_new.sq_psn), .m_ctl_done(rq_ctl_done),
      .m_ctl_result(rq_ctl_res),
      .s_db_valid(sqdb_valid), .s_db_ready(sqdb_ready), .s_db_qpn(sqdb_data[QPN_W+15:16]),
      .s_db_pi(sqdb_data[15:0]),
      .s_ev_valid(ev_valid), .s_ev_ready(ev_ready), .s_ev_type(ev_type), .s_ev_qpn(ev_qpn),
      .s_ev_wqe_idx(ev_wqe_idx), .s_ev_wqe_psn(ev_wqe_psn), .s_ev_psn(ev_psn),
      .s_ev_wqe_ssn(ev_wqe_ssn), .s_ev_one(ev_one),
      .m_kick_valid(kick_valid), .m_kick_ready(kick_ready), .m_kick_qpn(kick_qpn),
      .una_wr_en, .una_wr_addr, .una_wr_data,
      .pub_wr_en, .pub_wr_addr, .pub_sq_pi, .pub_sq_hi, .pub_psn_hi, .pub_lerr,
      .pub_lerr_idx, .pub_lerr_status,
      .m_rd_addr(rq_rd_addr), .m_rd_len(rq_rd_len), .m_rd_valid(rq_rd_valid),
      .m_rd_ready(rq_rd_ready), .s_rd_tdata(sq_tdata[0]), .s_rd_tvalid(sq_tvalid[0]),
      .s_rd_tready(sq_tready[0]), .s_rd_tlast(sq_tlast[0]), .s_rd_tuser(sq_tuser[0]),
      .m_job(jobs[0]), .m_job_valid(job_valid[0]), .m_job_ready(job_ready[0]),
      .cfg_cc_on(cfg_cc_ctrl[0]), .m_lim_valid(lim_req_valid), .m_lim_ready(lim_req_ready),
      .m_lim_qpn(lim_req_qpn), .m_lim_len(lim_req_len), .s_lim_rsp_valid(lim_rsp_valid),
      .s_lim_rsp_grant(lim_rsp_grant), .s_lim_rsp_time(lim_rsp_time), .lim_time(lim_time),
      .lim_upd_valid(upd_valid), .lim_upd_qpn(upd_qpn),
      .m_sent_valid(req_sent_valid), .m_sent_qpn(req_sent_qpn), .m_sent_bytes(req_sent_bytes),
      .cnt_req_pkts(c_tx_req_pkts), .cnt_retx_pkts(c_tx_retx_pkts), .cnt_lkey_err(req_lkey_err),
      .cnt_sr_retx(c_sr_retx)
  );

  // receive front
  roce_hdr_t         rq_hdr, rp_hdr;
  logic [15:0]       rq_plen, rp_plen;
  logic              rqh_valid, rqh_ready, rph_valid, rph_ready;
  logic [DATA_W-1:0] rqd_tdata, rpd_tdata;
  logic [KEEP_W-1:0] rqd_tkeep, rpd_tkeep;
  logic              rqd_tvalid, rqd_tready, rqd_tlast, rqd_tuser;
  logic              rpd_tvalid, rpd_tready, rpd_tlast, rpd_tuser;
  logic              rx_cnp_valid, rx_ce_valid;
  logic [23:0]       rx_cnp_qpn, rx_ce_qpn;
  // Payload queues (RX_PQ beats) between the receive front and the responder (0) and
  // the completer (1). The front routes a packet's payload only after its header was
  // taken and presents no further header until that payload has left; without a queue
  // the next header waited for the engine to reach its placement state (about 5 cycles
  // per 64 B WRITE: the front, not the responder, set the small-packet rate).
  localparam int RX_PQ = 8;
  logic [DATA_W-1:0] rqx_tdata [2];
  logic [KEEP_W-1:0] rqx_tkeep [2];
  logic [1:0]        rqx_tvalid, rqx_tready, rqx_tlast, rqx_tuser;
  logic [DATA_W-1:0] rqq_tdata [2];
  logic [KEEP_W-1:0] rqq_tkeep [2];
  logic [1:0]        rqq_tvalid, rqq_tready, rqq_tlast, rqq_tuser;
  for (genvar g = 0; g < 2; g++) begin : g_rxpq
    logic [$clog2(RX_PQ):0] unused_cnt;
    fabnic_fifo #(.WIDTH(DATA_W + KEEP_W + 2), .DEPTH(RX_PQ)) u_q (
        .clk, .rst,
        .in_valid(rqx_tvalid[g]), .in_ready(rqx_tready[g]),
        .in_data({rqx_tdata[g], rqx_tkeep[g], rqx_tlast[g], rqx_tuser[g]}),
        .out_valid(rqq_tvalid[g]), .out_ready(rqq_tready[g]),
        .out_data({rqq_tdata[g], rqq_tkeep[g], rqq_tlast[g], rqq_tuser[g]}),
        .status_count(unused_cnt)
    );
  end
  assign rqd_tdata  = rqq_tdata[0];
  assign rqd_tkeep  = rqq_tkeep[0];
  assign rqd_tvalid = rqq_tvalid[0];
  assign rqd_tlast  = rqq_tlast[0];
  assign rqd_tuser  = rqq_tuser[0];
  assign rqq_tready[0] = rqd_tready;
  assign rpd_tdata  = rqq_tdata[1];
  assign rpd_tkeep  = rqq_tkeep[1];
  assign rpd_tvalid = rqq_tvalid[1];
  assign rpd_tlast  = rqq_tlast[1];
  assign rpd_tuser  = rqq_tuser[1];
  assign rqq_tready[1] = rpd_tready;
  fabnic_roce_rx #(.DATA_W(DATA_W), .NUM_QP(NUM_QP), .CNT_W(CNT_W)) u_rx (
      .clk, .rst, .cfg_local_ip(local_ip), .cfg_local_mac(local_mac),
      .cfg_rx_filter(cfg_roce_rx_filter),
      .st_sr_we(st_wr_en), .st_sr_qpn(24'(st_wr_addr)), .st_sr_val(qpc_new.sr),
      .st_pmtu_val(qpc_new.pmtu),
      .s_axis_tdata(s_axis_rx_tdata), .s_axis_tkeep(s_axis_rx_tkeep),
      .s_axis_tvalid(s_axis_rx_tvalid), .s_axis_tready(s_axis_rx_tready),
      .s_axis_tlast(s_axis_rx_tlast), .s_axis_tuser(s_axis_rx_tuser),
      .m_req_hdr(rq_hdr), .m_req_plen(rq_plen), .m_req_valid(rqh_valid),
      .m_req_ready(rqh_ready), .m_req_tdata(rqx_tdata[0]), .m_req_tkeep(rqx_tkeep[0]),
      .m_req_tvalid(rqx_tvalid[0]), .m_req_tready(rqx_tready[0]), .m_req_tlast(rqx_tlast[0]),
      .m_req_tuser(rqx_tuser[0]),
      .m_rsp_hdr(rp_hdr), .m_rsp_plen(rp_plen), .m_rsp_valid(rph_valid),
      .m_rsp_ready(rph_ready), .m_rsp_tdata(rqx_tdata[1]), .m_rsp_tkeep(rqx_tkeep[1]),
      .m_rsp_tvalid(rqx_tvalid[1]), .m_rsp_tready(rqx_tready[1]), .m_rsp_tlast(rqx_tlast[1]),
      .m_rsp_tuser(rqx_tuser[1]),
      .m_cnp_valid(rx_cnp_valid), .m_cnp_qpn(rx_cnp_qpn),
      .m_ce_valid(rx_ce_valid), .m_ce_qpn(rx_ce_qpn),
      .cnt_frames(c_rx_frames), .cnt_roce(c_rx_roce), .cnt_cnp(c_rx_cnp),
      .cnt_drop_bad(c_rx_drop_bad), .cnt_drop_dst_mac(c_rx_drop_dst_mac),
      .cnt_drop_not_roce(c_rx_drop_not_roce), .cnt_drop_dst_ip(c_rx_drop_dst_ip),
      .cnt_drop_ip_frag(c_rx_drop_ip_frag), .cnt_drop_icrc(c_rx_drop_icrc),
      .cnt_drop_oversize(c_rx_drop_oversize), .cnt_drop_ip_hdr(c_rx_drop_ip_hdr),
      .cnt_drop_ip_csum(c_rx_drop_ip_csum), .cnt_drop_udp_len(c_rx_drop_udp_len),
      .cnt_drop_frame_len(c_rx_drop_frame_len), .cnt_drop_hdr(c_rx_drop_hdr),
      .cnt_drop_pad(c_rx_drop_pad), .cnt_drop_qpn(c_rx_drop_qpn),
      .cnt_drop_op_len(c_rx_drop_op_len), .cnt_drop_pmtu(c_rx_drop_pmtu),
      .cnt_drop_reth_len(c_rx_drop_reth_len)
  );

  // completer
  cqe_req_t         cqes [2];
  logic [1:0]       cqe_valid, cqe_ready;
  // the completer's CQEs pass a 4-entry queue to the CQ writer, so a run of completions
  // (one ACK completing several WQEs) does not wait for each CQE write; a CQE only gets
  // later, never earlier, so it still follows the data it completes
  cqe_req_t         cp_cqe, cp_cqe_g;
  logic             cp_cqe_valid, cp_cqe_ready, cp_cqe_g_valid, cp_cqe_g_ready;
  logic [2:0]       unused_cp_cqe_cnt;
  fabnic_fifo #(.WIDTH($bits(cqe_req_t)), .DEPTH(4)) u_cp_cqe_q (
      .clk, .rst,
      .in_valid(cp_cqe_g_valid), .in_ready(cp_cqe_g_ready), .in_data(cp_cqe_g),
      .out_valid(cqe_valid[1]), .out_ready(cqe_ready[1]), .out_data(cqes[1]),
      .status_count(unused_cp_cqe_cnt)
  );
  logic [CNT_W-1:0] cp_drop_psn;
  fabnic_roce_cpl #(.DATA_W(DATA_W), .NUM_QP(NUM_QP), .NUM_MR(NUM_MR), .CNT_W(CNT_W),
                   .SQE_BATCH(SQE_BATCH), .SR_W(SR_W)) u_cpl (
      .clk, .rst,
      .st_wr_en, .st_wr_addr, .st_wr_data(qpc_new),
      .mr_wr_valid, .mr_wr_index, .mr_wr_entry,
      .pub_wr_en, .pub_wr_addr, .pub_sq_pi, .pub_sq_hi, .pub_psn_hi, .pub_lerr,
      .pub_lerr_idx, .pub_lerr_status,
      .cfg_timer_tick(cfg_roce_timer_tick),
      .cfg_sr_reorder(cfg_roce_sr_reorder), .cfg_sr_probe(cfg_roce_sr_probe),
      .cfg_sr_inflight(sr_inflight),
      .s_ctl_valid(cp_ctl_valid), .s_ctl_ready(cp_ctl_ready), .s_ctl_op(cp_ctl_op),
      .s_ctl_qpn(QPN_W'(c_idx_q)), .s_ctl_psn(qpc_new.sq_psn), .m_ctl_done(cp_ctl_done),
      .m_ctl_una(cp_ctl_una), .m_ctl_err(cp_ctl_err), .m_ctl_err_status(cp_ctl_err_status),
      .m_ctl_state(cp_ctl_state),
      .s_hdr(rp_hdr), .s_hdr_valid(rph_valid), .s_hdr_ready(rph_ready),
      .s_axis_tdata(rpd_tdata), .s_axis_tkeep(rpd_tkeep), .s_axis_tvalid(rpd_tvalid),
      .s_axis_tready(rpd_tready), .s_axis_tlast(rpd_tlast), .s_axis_tuser(rpd_tuser),
      .s_hdr_plen(rp_plen),
      .s_kick_valid(kick_valid), .s_kick_ready(kick_ready), .s_kick_qpn(kick_qpn),
      .s_wf_valid(cwf_valid), .s_wf_ready(cwf_ready), .s_wf_qpn(cwf_qpn),
      .s_pf_valid(pfq_valid), .s_pf_ready(pfq_ready), .s_pf_qpn(pfq_qpn),
      .m_ev_valid(ev_valid), .m_ev_ready(ev_ready), .m_ev_type(ev_type), .m_ev_qpn(ev_qpn),
      .m_ev_wqe_idx(ev_wqe_idx), .m_ev_wqe_psn(ev_wqe_psn), .m_ev_psn(ev_psn),
      .m_ev_wqe_ssn(ev_wqe_ssn), .m_ev_one(ev_one),
      .m_rd_addr(cp_rd_addr), .m_rd_len(cp_rd_len), .m_rd_nok(cp_rd_nok),
      .m_rd_valid(cp_rd_valid), .m_rd_ready(cp_rd_ready), .s_rd_tdata(cp_tdata),
      .s_rd_tvalid(cp_tvalid), .s_rd_tready(cp_tready), .s_rd_tlast(cp_tlast),
      .s_rd_tuser(cp_tuser),
      .m_wr_addr(wr_addr[1]), .m_wr_len(wr_len[1]), .m_wr_qpn(cp_wr_qpn),
      .m_wr_valid(wr_valid[1]),
      .m_wr_ready(wr_ready[1]), .m_wr_tdata(wr_tdata[1]), .m_wr_tkeep(wr_tkeep[1]),
      .m_wr_tvalid(wr_tvalid[1]), .m_wr_tready(wr_tready[1]), .m_wr_tlast(wr_tlast[1]),
      .m_cqe(cp_cqe), .m_cqe_valid(cp_cqe_valid), .m_cqe_ready(cp_cqe_ready),
      .cnt_acks(c_rx_acks), .cnt_naks(c_rx_naks), .cnt_read_resp(c_rx_read_resp),
      .cnt_drop_psn(cp_drop_psn), .cnt_timeouts(c_timeouts), .cnt_retry_exc(c_retry_exc),
      .cnt_sack_rx(c_sr_sack_rx), .cnt_sr_probe(c_sr_probe), .cnt_rr_ooo(c_sr_rresp_ooo),
      .una_wr_en, .una_wr_addr, .una_wr_data
  );

  // responder
  tx_job_t          rjob, rs_rjob, rs_job;
  logic [31:0]      rjob_len, rs_rjob_len;
  logic [3:0]       rjob_lg, rs_rjob_lg;
  logic             rjob_valid, rjob_ready, rs_rjob_valid, rs_rjob_ready;
  logic             rs_job_valid, rs_job_ready, rs_cqe_valid, rs_cqe_ready;
  cqe_req_t         rs_cqe;
  logic [CNT_W-1:0] rs_drop_psn, rs_lkey_err;
  fabnic_roce_resp #(.DATA_W(DATA_W), .NUM_QP(NUM_QP), .NUM_MR(NUM_MR), .CNT_W(CNT_W)) u_resp (
      .clk, .rst,
      .st_wr_en, .st_wr_addr, .st_wr_data(qpc_new),
      .mr_wr_valid, .mr_wr_index, .mr_wr_entry,
      .s_ctl_valid(rs_ctl_valid), .s_ctl_ready(rs_ctl_ready), .s_ctl_op(rs_ctl_op),
      .s_ctl_qpn(QPN_W'(c_idx_q)), .s_ctl_psn(qpc_new.rq_psn), .m_ctl_done(rs_ctl_done),
      .m_ctl_result(rs_ctl_res), .m_ctl_err(rs_ctl_err),
      .s_db_valid(rqdb_valid), .s_db_ready(rqdb_ready), .s_db_qpn(rqdb_data[QPN_W+15:16]),
      .s_db_pi(rqdb_data[15:0]),
      .s_cnp_valid(np_cnp_valid), .s_cnp_ready(np_cnp_ready), .s_cnp_qpn(np_cnp_qpn),
      .s_wf_valid(rfe_valid_q), .s_wf_ready(rfe_ready), .s_wf_qpn(rfe_qpn_q),
      .s_wf_psn(rfe_psn_q), .s_wf_rd(rfe_rd_q),
      .s_hdr(rq_hdr), .s_hdr_plen(rq_plen), .s_hdr_valid(rqh_valid), .s_hdr_ready(rqh_ready),
      .s_axis_tdata(rqd_tdata), .s_axis_tkeep(rqd_tkeep), .s_axis_tvalid(rqd_tvalid),
      .s_axis_tready(rqd_tready), .s_axis_tlast(rqd_tlast), .s_axis_tuser(rqd_tuser),
      .m_rd_addr(rd_desc_addr[2]), .m_rd_len(rd_desc_len[2]), .m_rd_valid(rd_desc_valid[2]),
      .m_rd_ready(rd_desc_ready[2]), .s_rd_tdata(rd_tdata[2]), .s_rd_tvalid(rd_tvalid[2]),
      .s_rd_tready(rd_tready[2]), .s_rd_tlast(rd_tlast[2]), .s_rd_tuser(rd_tuser[2]),
      .m_wr_addr(wr_addr[0]), .m_wr_len(wr_len[0]), .m_wr_qpn(rs_wr_qpn),
      .m_wr_psn(rs_wr_psn), .m_wr_valid(wr_valid[0]),
      .m_wr_ready(wr_ready[0]), .m_wr_tdata(wr_tdata[0]), .m_wr_tkeep(wr_tkeep[0]),
      .m_wr_tvalid(wr_tvalid[0]), .m_wr_tready(wr_tready[0]), .m_wr_tlast(wr_tlast[0]),
      .m_job(rs_job), .m_job_valid(rs_job_valid), .m_job_ready(rs_job_ready),
      .m_rjob(rs_rjob), .m_rjob_len(rs_rjob_len), .m_rjob_lg(rs_rjob_lg),
      .m_rjob_valid(rs_rjob_valid), .m_rjob_ready(rs_rjob_ready),
      .m_cqe(rs_cqe), .m_cqe_valid(rs_cqe_valid), .m_cqe_ready(rs_cqe_ready),
      .cnt_drop_qp_state(c_rx_drop_qp_state), .cnt_drop_psn(rs_drop_psn), .cnt_dup(c_rx_dup),
      .cnt_seq_nak(c_rx_seq_nak), .cnt_rnr_nak(c_rx_rnr_nak), .cnt_access_err(c_rx_access_err),
      .cnt_inv_req(c_rx_inv_req), .cnt_acks_sent(c_tx_acks), .cnt_lkey_err(rs_lkey_err),
      .cnt_cnp_sent(c_tx_cnp),
      .cnt_sack_sent(c_sr_sack_tx), .cnt_ooo_placed(c_sr_ooo_placed), .cnt_sr_drop(c_sr_drop),
      .cnt_sr_spurious(c_sr_spurious)
  );

  // The responder's ACK jobs, READ response jobs and receive CQEs and the completer's
  // CQEs wait until the host writes issued before them have their B responses, and a
  // write fault of their QP turns them into what the engine would have produced had it
  // known (fabnic_roce_wr_gate; docs/roce_engine.md "Host-memory faults"). The
  // responder's placement writes carry whether their packet was a SEND: the header the
  // responder took last is the one it places (one event at a time).
  always_ff @(posedge clk) begin
    if (rqh_valid && rqh_ready)
      rs_wr_send <= rq_hdr.bth.opcode inside {
          fabnic_pkt_pkg::OP_SEND_FIRST, fabnic_pkt_pkg::OP_SEND_MIDDLE,
          fabnic_pkt_pkg::OP_SEND_LAST, fabnic_pkt_pkg::OP_SEND_LAST_IMM,
          fabnic_pkt_pkg::OP_SEND_ONLY, fabnic_pkt_pkg::OP_SEND_ONLY_IMM,
          fabnic_pkt_pkg::OP_SEND_LAST_INV, fabnic_pkt_pkg::OP_SEND_ONLY_INV};
    if (rst) rs_wr_send <= 1'b0;
  end
  fabnic_roce_wr_gate #(.NUM_QP(NUM_QP), .GATE(WR_GATE)) u_wr_gate (
      .clk, .rst,
      .s_wr_issue(w_valid && w_ready),
      .s_cpl_valid(wcpl_valid), .s_cpl_err(wcpl_status[0]),
      .s_cpl_src(wcpl_tag[WTAG_W-1 -: 2]), .s_cpl_qpn(wcpl_tag[QPN_W-1:0]),
      .s_cpl_psn(wcpl_tag[QPN_W+23:QPN_W]), .s_cpl_send(wcpl_tag[QPN_W+24]),
      .s_st_we(st_wr_en), .s_st_qpn(st_wr_addr),
      .s_st_reset(qpc_new.state == 3'(QPS_RESET) || qpc_new.state == 3'(QPS_INIT)),
      .s_job(rs_job), .s_job_valid(rs_job_valid), .s_job_ready(rs_job_ready),
      .m_job(jobs[1]), .m_job_valid(job_valid[1]), .m_job_ready(job_ready[1]),
      .s_rjob(rs_rjob), .s_rjob_len(rs_rjob_len), .s_rjob_lg(rs_rjob_lg),
      .s_rjob_valid(rs_rjob_valid), .s_rjob_ready(rs_rjob_ready),
      .m_rjob(rjob), .m_rjob_len(rjob_len), .m_rjob_lg(rjob_lg), .m_rjob_valid(rjob_valid),
      .m_rjob_ready(rjob_ready),
      .s_rcqe(rs_cqe), .s_rcqe_valid(rs_cqe_valid), .s_rcqe_ready(rs_cqe_ready),
      .m_rcqe(cqes[0]), .m_rcqe_valid(cqe_valid[0]), .m_rcqe_ready(cqe_ready[0]),
      .s_ccqe(cp_cqe), .s_ccqe_valid(cp_cqe_valid), .s_ccqe_ready(cp_cqe_ready),
      .m_ccqe(cp_cqe_g), .m_ccqe_valid(cp_cqe_g_valid), .m_ccqe_ready(cp_cqe_g_ready)
  );

  fabnic_roce_rresp u_rresp (
      .clk, .rst,
      .s_rjob(rjob), .s_rjob_len(rjob_len), .s_rjob_lg(rjob_lg), .s_rjob_valid(rjob_valid),
      .s_rjob_ready(rjob_ready),
      .m_job(jobs[2]), .m_job_valid(job_valid[2]), .m_job_ready(job_ready[2])
  );

  // CQ writer
  fabnic_roce_cq #(.DATA_W(DATA_W), .NUM_CQ(NUM_CQ), .CNT_W(CNT_W)) u_cq (
      .clk, .rst,
      .s_ctl_valid(cq_ctl_valid), .s_ctl_ready(cq_ctl_ready), .s_ctl_cqn(CQN_W'(c_idx_q)),
      .s_ctl_base(cq_ctx.base), .s_ctl_log(cq_ctx.log_size),
      .s_ctl_vector(cq_ctx.vector), .s_ctl_en(cq_ctx.valid),
      .s_db_valid(cqdb_valid), .s_db_ready(cqdb_ready), .s_db_cqn(cqdb_data[CQN_W+31:32]),
      .s_db_value(cqdb_data[31:0]),
      .s_flt_valid(qwf_valid), .s_flt_ready(qwf_ready), .s_flt_cqn(qwf_cqn),
      .s_cqe(cqes), .s_cqe_valid(cqe_valid), .s_cqe_ready(cqe_ready),
      .m_wr_addr(wr_addr[2]), .m_wr_cqn(cq_wr_cqn), .m_wr_len(wr_len[2]), .m_wr_valid(wr_valid[2]),
      .m_wr_ready(wr_ready[2]), .m_wr_tdata(wr_tdata[2]), .m_wr_tkeep(wr_tkeep[2]),
      .m_wr_tvalid(wr_tvalid[2]), .m_wr_tready(wr_tready[2]), .m_wr_tlast(wr_tlast[2]),
      .m_irq_valid, .m_irq_vector,
      .m_ev_valid(cq_ev_valid), .m_ev_kind(cq_ev_kind), .m_ev_cqn(cq_ev_cqn),
      .cnt_cqe(c_cqe), .cnt_cqe_err(c_cqe_err), .cnt_overflow(c_cq_overflow),
      .cnt_err_drop(c_cq_err_drop), .cnt_irq(c_irq)
  );

  // Asynchronous events (roce.async_event / async_event_pop): a CQ that enters the error
  // state sends one event, and only a control write (CQ_WRITE) lets it send another, so
  // NUM_CQ entries hold every event unless the host re-creates a CQ before taking the
  // event of its failure (an assertion checks that no event is lost).
  logic                  cq_ev_valid, aev_in_ready, aev_valid;
  logic [1:0]            cq_ev_kind, aev_kind;
  logic [CQN_W-1:0]      cq_ev_cqn, aev_cqn;
  logic [$clog2(NUM_CQ):0] unused_aev_cnt;
  fabnic_fifo #(.WIDTH(2 + CQN_W), .DEPTH(NUM_CQ)) u_aev_q (
      .clk, .rst,
      .in_valid(cq_ev_valid), .in_ready(aev_in_ready), .in_data({cq_ev_kind, cq_ev_cqn}),
      .out_valid(aev_valid), .out_ready(cmd_roce_async_event_pop && cmd_roce_async_event_pop_data[0]),
      .out_data({aev_kind, aev_cqn}), .status_count(unused_aev_cnt)
  );
  assign sts_roce_async_event = {24'(aev_cqn), 5'd0, aev_valid ? aev_kind : 2'd0, aev_valid};
`ifndef SYNTHESIS
  always_ff @(posedge clk)
    if (!rst) assert (!(cq_ev_valid && !aev_in_ready))
      else $error("roce_core: an asynchronous event found its queue full");
`endif

  // transmit
  // Payload landing queue (PAY_Q beats) between the payload reader and the transmit
  // path: the host's read data returns in order on one R channel, so a payload beat the
  // frame pipeline cannot take yet would stall every read behind it (SQE batches too).
  // With small packets the pipeline takes one payload beat per frame (3 beats of output
  // for a 64 B WRITE) while the reads arrive back to back; measured before the queue:
  // R held by the payload 1.8 cycles per 64 B message, 25 of 32 reads in flight.
  localparam int PAY_Q = 32;
  logic [DATA_W-1:0] pay_tdata;
  logic [KEEP_W-1:0] pay_tkeep;
  logic              pay_tvalid, pay_tready, pay_tlast, pay_tuser;
  logic [$clog2(PAY_Q):0] unused_payq_cnt;
  fabnic_fifo #(.WIDTH(DATA_W + KEEP_W + 2), .DEPTH(PAY_Q)) u_payq (
      .clk, .rst,
      .in_valid(rd_tvalid[3]), .in_ready(rd_tready[3]),
      .in_data({rd_tdata[3], rd_tkeep[3], rd_tlast[3], rd_tuser[3]}),
      .out_valid(pay_tvalid), .out_ready(pay_tready),
      .out_data({pay_tdata, pay_tkeep, pay_tlast, pay_tuser}), .status_count(unused_payq_cnt)
  );

  fabnic_roce_tx #(.DATA_W(DATA_W), .NJ(NJ), .FIFO_DEPTH(128), .CNT_W(CNT_W),
                   .BAD_JOBS(NJ'(4))) u_tx (
      .clk, .rst, .cfg_local_mac(local_mac), .cfg_local_ip(local_ip),
      .s_job(jobs), .s_job_valid(job_valid), .s_job_ready(job_ready),
      .m_desc_addr(rd_desc_addr[3]), .m_desc_len(rd_desc_len[3]), .m_desc_valid(rd_desc_valid[3]),
      .m_desc_ready(rd_desc_ready[3]),
      .s_pay_tdata(pay_tdata), .s_pay_tkeep(pay_tkeep), .s_pay_tvalid(pay_tvalid),
      .s_pay_tready(pay_tready), .s_pay_tlast(pay_tlast), .s_pay_tuser(pay_tuser),
      .m_axis_tdata(m_axis_tx_tdata), .m_axis_tkeep(m_axis_tx_tkeep),
      .m_axis_tvalid(m_axis_tx_tvalid), .m_axis_tready(m_axis_tx_tready),
      .m_axis_tlast(m_axis_tx_tlast), .m_axis_tuser(m_axis_tx_tuser),
      .m_axis_tqpn(m_axis_tx_tqpn),
      .m_sent_valid(sent_valid), .m_sent_qpn(sent_qpn), .m_sent_bytes(sent_bytes),
      .m_bad_valid(rrb_valid), .m_bad_qpn(rrb_qpn), .m_bad_psn(rrb_psn),
      .cnt_frames(c_tx_frames), .cnt_len_err(c_tx_len_err)
  );

  // ---------------------------------------------------------------- congestion control
  // The room behind one interface (fabnic_cc, docs/cc.md): frames sent (wire bytes from
  // the packet builder, u_tx), CNPs and CE-marked requests received, QP commands in;
  // pacing answers for the requester and CNP requests for the responder out.
  // cc.ctrl bit0 = reaction point and pacing on, bit1 = notification point on.
  // QP commands: from the cc.qp_cmd register (enable/disable/read) and from a QP write
  // that resets the send side (init with the QP's cc bit).
  logic             ccq_pend_q, ccq_read_q, ccq_en_q, cc_rd_en_q;
  logic [QPN_W-1:0] ccq_qpn_q;
  logic             qpw_init, ccq_ready, ccq_rsp_valid, cc_busy;
  fabnic_cc_pkg::cc_qp_state_t ccq_rsp;
  fabnic_cc_pkg::cc_cfg_t      cc_cfg;
  fabnic_cc_pkg::cc_cnt_t      cc_cnt;
  fabnic_cc_pkg::cc_pace_rsp_t lim_rsp;
  assign qpw_init = cmd_fire && idx_ok && cmd_word.op == CMD_QP_WRITE && cmd_word.reset_sq;
  always_ff @(posedge clk) begin
    if (cmd_cc_qp_cmd && !ccq_pend_q && cmd_cc_qp_cmd_data[1:0] != 2'd0
        && 32'(cmd_cc_qp_cmd_data[31:8]) < NUM_QP) begin
      ccq_pend_q <= 1'b1;
      ccq_read_q <= cmd_cc_qp_cmd_data[1:0] == 2'd3;
      ccq_en_q   <= cmd_cc_qp_cmd_data[1:0] == 2'd1;
      ccq_qpn_q  <= QPN_W'(cmd_cc_qp_cmd_data[31:8]);
    end else if (qpw_init && !ccq_pend_q) begin
      ccq_pend_q <= 1'b1;
      ccq_read_q <= 1'b0;
      ccq_en_q   <= qpc_new.cc;
      ccq_qpn_q  <= QPN_W'(cmd_word.index);
    end
    // an init is done when the room takes it, a read when its answer comes back
    if (ccq_pend_q && ccq_ready && !ccq_read_q) ccq_pend_q <= 1'b0;
    if (ccq_rsp_valid) begin
      ccq_pend_q      <= 1'b0;
      sts_cc_qp_rc    <= ccq_rsp.w0;
      sts_cc_qp_rt    <= ccq_rsp.w1;
      sts_cc_qp_alpha <= ccq_rsp.w2[20:0];
      cc_rd_en_q      <= ccq_rsp.enable;
    end
    if (rst) begin
      ccq_pend_q <= 1'b0;
      sts_cc_qp_rc <= '0; sts_cc_qp_rt <= '0; sts_cc_qp_alpha <= '0; cc_rd_en_q <= 1'b0;
    end
  end
  // a read stays pending (ccq_pend_q) until its answer; it is offered once
  logic ccq_offered_q;
  always_ff @(posedge clk) begin
    if (ccq_pend_q && ccq_ready) ccq_offered_q <= 1'b1;
    if (!ccq_pend_q) ccq_offered_q <= 1'b0;
    if (rst) ccq_offered_q <= 1'b0;
  end
  assign sts_cc_qp_status = {29'd0, cc_busy, cc_rd_en_q, ccq_pend_q};

  assign cc_cfg = '{
      rp_on: cfg_cc_ctrl[0], np_on: cfg_cc_ctrl[1], g_shift: cfg_cc_g_shift,
      alpha_period: cfg_cc_alpha_period, timer_period: cfg_cc_timer_period,
      byte_counter: cfg_cc_byte_counter, f: cfg_cc_f, rate_ai: cfg_cc_rate_ai,
      rate_hai: cfg_cc_rate_hai, rate_min: cfg_cc_rate_min, rate_line: cfg_cc_rate_line,
      rate_init: cfg_cc_rate_init, clamp_tgt: cfg_cc_clamp_tgt[0],
      cnp_interval: cfg_cc_cnp_interval, limiter_slack: cfg_cc_limiter_slack};

  fabnic_cc #(.NUM_QP(NUM_QP)) u_cc (
      .clk, .rst, .cfg(cc_cfg),
      .s_qp_valid(ccq_pend_q && !ccq_offered_q), .s_qp_ready(ccq_ready),
      .s_qp('{op: ccq_read_q ? fabnic_cc_pkg::CC_QP_READ : fabnic_cc_pkg::CC_QP_INIT,
              qpn: 24'(ccq_qpn_q), enable: ccq_en_q}),
      .m_qp_state_valid(ccq_rsp_valid), .m_qp_state(ccq_rsp),
      .s_tx_valid(sent_valid), .s_tx('{qpn: sent_qpn, bytes: sent_bytes}),
      .s_cnp_valid(rx_cnp_valid), .s_cnp('{qpn: rx_cnp_qpn}),
      .s_ce_valid(rx_ce_valid), .s_ce('{qpn: rx_ce_qpn, ecn: 2'b11}),
      .s_pace_valid(lim_req_valid), .s_pace_ready(lim_req_ready),
      .s_pace('{qpn: 24'(lim_req_qpn), bytes: lim_req_len}),
      .m_pace_valid(lim_rsp_valid), .m_pace(lim_rsp), .pace_now(lim_time),
      .m_rate_upd_valid(upd_valid), .m_rate_upd_qpn(upd_qpn),
      .m_cnp_valid(np_cnp_valid), .m_cnp_ready(np_cnp_ready), .m_cnp_qpn(np_cnp_qpn),
      .status_busy(cc_busy), .cnt(cc_cnt)
  );
  assign lim_rsp_grant = lim_rsp.grant;
  assign lim_rsp_time  = lim_rsp.at;
  assign sts_cc_cnp_rx         = cc_cnt.cnp_rx;
  assign sts_cc_cnp_rx_ignored = cc_cnt.cnp_rx_ignored;
  assign sts_cc_rate_decrease  = cc_cnt.rate_decrease;
  assign sts_cc_rate_increase  = cc_cnt.rate_increase;
  assign sts_cc_rp_catchup     = cc_cnt.rp_catchup;
  assign sts_cc_ecn_marked_rx  = cc_cnt.ecn_marked_rx;
  assign sts_cc_cnp_tx         = cc_cnt.cnp_tx;
  assign sts_cc_cnp_suppressed = cc_cnt.cnp_suppressed;
  assign sts_cc_lim_grant      = cc_cnt.lim_grant;
  assign sts_cc_lim_deny       = cc_cnt.lim_deny;
  assign sts_cc_lim_rate_set   = cc_cnt.lim_rate_set;
  assign sts_cc_ev_dropped     = cc_cnt.tx_ev_dropped;
  logic unused_dcqcn;
  assign unused_dcqcn = ^{cmd_cc_qp_cmd_data[7:2], req_sent_valid, req_sent_qpn, req_sent_bytes};

  // ---------------------------------------------------------------- remaining counters
  always_ff @(posedge clk) begin
    if (job_valid[2] && job_ready[2]) c_tx_read_resp <= c_tx_read_resp + 1'b1;
    // reads with an AXI error, writes whose frame did not match the length (a write with
    // a BRESP error counts in wr_err_*, by engine)
    c_dma_err <= c_dma_err + 32'(rd_cpl_err[0]) + 32'(rd_cpl_err[1]) + 32'(rd_cpl_err[2])
                 + 32'(rd_cpl_err[3]) + 32'(wf_mis);
    if (rst) begin
      c_tx_read_resp <= '0;
      c_dma_err      <= '0;
    end
  end
  assign c_rx_drop_psn = rs_drop_psn + cp_drop_psn;
  assign c_lkey_err    = req_lkey_err + rs_lkey_err;

  logic unused;
  assign unused = ^{unused_axil_timeout, unused_fc0, unused_fc1, unused_fc2, cfg_device_scratch,
                    unused_wmis, unused_rwf_cnt, unused_cwf_cnt, unused_pfq_cnt,
                    unused_pfq_in_ready, unused_wout, rx_cnp_qpn[23:QPN_W],
                    rx_ce_qpn[23:QPN_W], unused_dcqcn, c_op_q,
                    c_flags_q, rd_cpl_valid, rq_addr[23:21],
                    cmd_word, cq_ctx, c_idx_q, sq_tlast[1]};   // cmd_word, cq_ctx: reserved bits

endmodule

`resetall
