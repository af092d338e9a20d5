// SPDX-License-Identifier: Apache-2.0
//
// Testbench wrapper: fabnic_virtq_split + fabnic_virtio_net_tx with their DMA
// engines. AXI port m_axi_q (read + write) carries the ring accesses, m_axi_t
// (read only) the TX buffer reads; the test backs both with one memory image.
// The RX side of the engine (request, elements, returns) is driven from Python
// when rx_py = 1, else by fabnic_virtio_net_rx (frames in on s_axis_rx, buffer
// writes on the write-only AXI port m_axi_r).
// use_regs = 1: configuration and doorbells come from fabnic_virtio_regs
// behind fabnic_axil_slave (AXI-Lite port s_axil, 4 KB window) instead of the
// Python cfg/notify ports; MRG_RXBUF and GUEST_CSUM then follow the negotiated
// features.
`default_nettype none

module tb_virtio #(
    parameter int DATA_W    = 64,
    parameter int NUM_Q     = 8,
    parameter int MAX_FRAME = 2048,
    parameter int QID_W     = $clog2(NUM_Q),
    parameter int TX_SLOTS  = 4,         // fabnic_virtio_net_tx SLOTS
    parameter bit TX_CREDIT = 1'b1,      // fabnic_virtio_net_tx READ_CREDIT
    parameter int RET_DEPTH = 16,        // fabnic_virtq_split return FIFOs
    parameter int RET_BATCH = 16,        // fabnic_virtq_split used elements per idx write
    parameter int RET_HOLD  = 64,        // fabnic_virtq_split return batching window (cycles)
    parameter int KEEP_W    = DATA_W / 8
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    input  wire logic                 use_regs,
    input  wire logic [15:0]          mem_lat,     // extra AR / B latency (cycles), 0 = none
    input  wire logic                 wr_ordered,  // engine strap (see fabnic_virtq_split)
    input  wire logic [11:0]          s_axil_awaddr,
    input  wire logic [2:0]           s_axil_awprot,
    input  wire logic                 s_axil_awvalid,
    output logic                      s_axil_awready,
    input  wire logic [31:0]          s_axil_wdata,
    input  wire logic [3:0]           s_axil_wstrb,
    input  wire logic                 s_axil_wvalid,
    output logic                      s_axil_wready,
    output logic [1:0]                s_axil_bresp,
    output logic                      s_axil_bvalid,
    input  wire logic                 s_axil_bready,
    input  wire logic [11:0]          s_axil_araddr,
    input  wire logic [2:0]           s_axil_arprot,
    input  wire logic                 s_axil_arvalid,
    output logic                      s_axil_arready,
    output logic [31:0]               s_axil_rdata,
    output logic [1:0]                s_axil_rresp,
    output logic                      s_axil_rvalid,
    input  wire logic                 s_axil_rready,
    input  wire logic [47:0]          dev_mac,
    input  wire logic                 link_up,
    output logic                      cfg_irq_valid,
    output logic [15:0]               cfg_irq_vector,
    output logic [7:0]                device_status,
    output logic [31:0]               cnt_bad_notify,
    output logic [31:0]               cnt_ignored,
    output logic [15:0]               ctrl_pairs,
    output logic [31:0]               cnt_ctrl_ok,
    output logic [31:0]               cnt_ctrl_err,

    input  wire logic                 cfg_valid,
    output logic                      cfg_ready,
    input  wire logic                 cfg_write,
    input  wire logic [QID_W-1:0]     cfg_queue,
    input  wire logic [3:0]           cfg_field,
    input  wire logic [63:0]          cfg_wdata,
    output logic [63:0]               cfg_rdata,
    input  wire logic                 notify_valid,
    input  wire logic [QID_W-1:0]     notify_queue,

    input  wire logic                 rx_py,
    input  wire logic                 mrg_rxbuf,
    input  wire logic [DATA_W-1:0]    s_axis_rx_tdata,
    input  wire logic [KEEP_W-1:0]    s_axis_rx_tkeep,
    input  wire logic                 s_axis_rx_tvalid,
    output logic                      s_axis_rx_tready,
    input  wire logic                 s_axis_rx_tlast,
    input  wire logic [1:0]           s_axis_rx_tuser,
    input  wire logic [QID_W-1:0]     s_axis_rx_tdest,
    output logic [4*32-1:0]           cnt_rxdrop,
    output logic [31:0]               cnt_rxframes,
    output logic [31:0]               cnt_rxbadchain,
    output logic [31:0]               cnt_rxdmaerr,
    output logic [3:0]                m_axi_r_awid,
    output logic [63:0]               m_axi_r_awaddr,
    output logic [7:0]                m_axi_r_awlen,
    output logic [2:0]                m_axi_r_awsize,
    output logic [1:0]                m_axi_r_awburst,
    output logic                      m_axi_r_awlock,
    output logic [3:0]                m_axi_r_awcache,
    output logic [2:0]                m_axi_r_awprot,
    output logic                      m_axi_r_awvalid,
    input  wire logic                 m_axi_r_awready,
    output logic [DATA_W-1:0]         m_axi_r_wdata,
    output logic [KEEP_W-1:0]         m_axi_r_wstrb,
    output logic                      m_axi_r_wlast,
    output logic                      m_axi_r_wvalid,
    input  wire logic                 m_axi_r_wready,
    input  wire logic [3:0]           m_axi_r_bid,
    input  wire logic [1:0]           m_axi_r_bresp,
    input  wire logic                 m_axi_r_bvalid,
    output logic                      m_axi_r_bready,

    input  wire logic                 rxreq_valid,
    output logic                      rxreq_ready,
    input  wire logic [QID_W-1:0]     rxreq_queue,
    output logic                      rxbuf_valid,
    input  wire logic                 rxbuf_ready,
    output logic [63:0]               buf_addr,
    output logic [31:0]               buf_len,
    output logic                      buf_write,
    output logic [15:0]               buf_head,
    output logic [QID_W-1:0]          buf_queue,
    output logic                      buf_last,
    output logic [1:0]                buf_status,
    input  wire logic                 rxret_valid,
    output logic                      rxret_ready,
    input  wire logic [QID_W-1:0]     rxret_queue,
    input  wire logic [15:0]          rxret_id,
    input  wire logic [31:0]          rxret_len,
    input  wire logic                 rxret_more,

    output logic                      irq_valid,
    output logic [15:0]               irq_vector,
    output logic [QID_W-1:0]          irq_queue,

    output logic [DATA_W-1:0]         m_axis_tdata,
    output logic [KEEP_W-1:0]         m_axis_tkeep,
    output logic                      m_axis_tvalid,
    input  wire logic                 m_axis_tready,
    output logic                      m_axis_tlast,
    output logic [QID_W-1:0]          m_axis_tid,
    output logic [16:0]               m_axis_tuser,

    output logic [NUM_Q-1:0]          q_needs_reset,
    output logic [10*32-1:0]          cnt_err,
    output logic [7*32-1:0]           cnt_stat,
    output logic [6*32-1:0]           cnt_txdrop,
    output logic [31:0]               cnt_txframes,
    output logic [31:0]               cnt_txcsum,

    // AXI: rings
    output logic [3:0]                m_axi_q_arid,
    output logic [63:0]               m_axi_q_araddr,
    output logic [7:0]                m_axi_q_arlen,
    output logic [2:0]                m_axi_q_arsize,
    output logic [1:0]                m_axi_q_arburst,
    output logic                      m_axi_q_arlock,
    output logic [3:0]                m_axi_q_arcache,
    output logic [2:0]                m_axi_q_arprot,
    output logic                      m_axi_q_arvalid,
    input  wire logic                 m_axi_q_arready,
    input  wire logic [3:0]           m_axi_q_rid,
    input  wire logic [DATA_W-1:0]    m_axi_q_rdata,
    input  wire logic [1:0]           m_axi_q_rresp,
    input  wire logic                 m_axi_q_rlast,
    input  wire logic                 m_axi_q_rvalid,
    output logic                      m_axi_q_rready,
    output logic [3:0]                m_axi_q_awid,
    output logic [63:0]               m_axi_q_awaddr,
    output logic [7:0]                m_axi_q_awlen,
    output logic [2:0]                m_axi_q_awsize,
    output logic [1:0]                m_axi_q_awburst,
    output logic                      m_axi_q_awlock,
    output logic [3:0]                m_axi_q_awcache,
    output logic [2:0]                m_axi_q_awprot,
    output logic                      m_axi_q_awvalid,
    input  wire logic                 m_axi_q_awready,
    output logic [DATA_W-1:0]         m_axi_q_wdata,
    output logic [KEEP_W-1:0]         m_axi_q_wstrb,
    output logic                      m_axi_q_wlast,
    output logic                      m_axi_q_wvalid,
    input  wire logic                 m_axi_q_wready,
    input  wire logic [3:0]           m_axi_q_bid,
    input  wire logic [1:0]           m_axi_q_bresp,
    input  wire logic                 m_axi_q_bvalid,
    output logic                      m_axi_q_bready,
    // AXI: TX data reads
    output logic [3:0]                m_axi_t_arid,
    output logic [63:0]               m_axi_t_araddr,
    output logic [7:0]                m_axi_t_arlen,
    output logic [2:0]                m_axi_t_arsize,
    output logic [1:0]                m_axi_t_arburst,
    output logic                      m_axi_t_arlock,
    output logic [3:0]                m_axi_t_arcache,
    output logic [2:0]                m_axi_t_arprot,
    output logic                      m_axi_t_arvalid,
    input  wire logic                 m_axi_t_arready,
    input  wire logic [3:0]           m_axi_t_rid,
    input  wire logic [DATA_W-1:0]    m_axi_t_rdata,
    input  wire logic [1:0]           m_axi_t_rresp,
    input  wire logic                 m_axi_t_rlast,
    input  wire logic                 m_axi_t_rvalid,
    output logic                      m_axi_t_rready
);
    localparam int MBL = (DATA_W >= 512) ? 64 : 16;

    // ---------------- host latency model (AR and B channels) ----------------
    logic [3:0]  dq_arid, dt_arid, dq_bid, dr_bid;
    logic [63:0] dq_araddr, dt_araddr;
    logic [7:0]  dq_arlen, dt_arlen;
    logic [2:0]  dq_arsize, dt_arsize, dq_arprot, dt_arprot;
    logic [1:0]  dq_arburst, dt_arburst, dq_bresp, dr_bresp;
    logic        dq_arlock, dt_arlock, dq_arvalid, dt_arvalid, dq_arready, dt_arready;
    logic [3:0]  dq_arcache, dt_arcache;
    logic        dq_bvalid, dq_bready, dr_bvalid, dr_bready;
    localparam int ARW = 4 + 64 + 8 + 3 + 2 + 1 + 4 + 3;

    tb_virtio_delay #(.W(ARW)) u_dly_qar (
        .clk, .rst, .lat(mem_lat),
        .in_valid(dq_arvalid), .in_ready(dq_arready),
        .in_data({dq_arid, dq_araddr, dq_arlen, dq_arsize, dq_arburst, dq_arlock, dq_arcache, dq_arprot}),
        .out_valid(m_axi_q_arvalid), .out_ready(m_axi_q_arready),
        .out_data({m_axi_q_arid, m_axi_q_araddr, m_axi_q_arlen, m_axi_q_arsize, m_axi_q_arburst,
                   m_axi_q_arlock, m_axi_q_arcache, m_axi_q_arprot}));
    tb_virtio_delay #(.W(ARW)) u_dly_tar (
        .clk, .rst, .lat(mem_lat),
        .in_valid(dt_arvalid), .in_ready(dt_arready),
        .in_data({dt_arid, dt_araddr, dt_arlen, dt_arsize, dt_arburst, dt_arlock, dt_arcache, dt_arprot}),
        .out_valid(m_axi_t_arvalid), .out_ready(m_axi_t_arready),
        .out_data({m_axi_t_arid, m_axi_t_araddr, m_axi_t_arlen, m_axi_t_arsize, m_axi_t_arburst,
                   m_axi_t_arlock, m_axi_t_arcache, m_axi_t_arprot}));
    tb_virtio_delay #(.W(6)) u_dly_qb (
        .clk, .rst, .lat(mem_lat),
        .in_valid(m_axi_q_bvalid), .in_ready(m_axi_q_bready), .in_data({m_axi_q_bid, m_axi_q_bresp}),
        .out_valid(dq_bvalid), .out_ready(dq_bready), .out_data({dq_bid, dq_bresp}));
    tb_virtio_delay #(.W(6)) u_dly_rb (
        .clk, .rst, .lat(mem_lat),
        .in_valid(m_axi_r_bvalid), .in_ready(m_axi_r_bready), .in_data({m_axi_r_bid, m_axi_r_bresp}),
        .out_valid(dr_bvalid), .out_ready(dr_bready), .out_data({dr_bid, dr_bresp}));

    // ---------------- register block (use_regs) ----------------
    logic              rq_valid, rq_write, ak_valid, ak_err;
    logic [11:0]       rq_addr;
    logic [31:0]       rq_wdata, ak_rdata;
    logic [3:0]        rq_wstrb;
    logic              g_cfg_valid, g_cfg_write, g_notify_valid, e_cfg_ready;
    logic [QID_W-1:0]  g_cfg_queue, g_notify_queue;
    logic [3:0]        g_cfg_field;
    logic [63:0]       g_cfg_wdata;
    logic              g_mrg, g_gcsum;

    fabnic_axil_slave #(.ADDR_W(12)) u_axil (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .req_valid(rq_valid), .req_write(rq_write), .req_addr(rq_addr), .req_wdata(rq_wdata),
        .req_wstrb(rq_wstrb), .ack_valid(ak_valid), .ack_rdata(ak_rdata), .ack_err(ak_err),
        .status_timeout());

    fabnic_virtio_regs #(.MAX_PAIRS(2), .CTRL_VQ(1'b1), .QID_W(QID_W), .QMAX(256)) u_regs (
        .clk, .rst,
        .req_valid(rq_valid), .req_write(rq_write), .req_addr(rq_addr), .req_wdata(rq_wdata),
        .req_wstrb(rq_wstrb), .ack_valid(ak_valid), .ack_rdata(ak_rdata), .ack_err(ak_err),
        .dev_mac, .link_up,
        .cfg_valid(g_cfg_valid), .cfg_ready(use_regs && e_cfg_ready), .cfg_write(g_cfg_write),
        .cfg_queue(g_cfg_queue), .cfg_field(g_cfg_field), .cfg_wdata(g_cfg_wdata),
        .notify_valid(g_notify_valid), .notify_queue(g_notify_queue),
        .q_needs_reset(q_needs_reset[4:0]), .irq_valid,
        .drv_features(), .feat_mrg_rxbuf(g_mrg), .feat_guest_csum(g_gcsum), .driver_ok(),
        .device_status, .cfg_irq_valid, .cfg_irq_vector, .cnt_bad_notify, .cnt_ignored);

    logic              e_cfg_valid, e_cfg_write, e_notify_valid, e_mrg;
    logic [QID_W-1:0]  e_cfg_queue, e_notify_queue;
    logic [3:0]        e_cfg_field;
    logic [63:0]       e_cfg_wdata;
    logic [1:0]        e_rx_tuser;
    assign e_cfg_valid    = use_regs ? g_cfg_valid : cfg_valid;
    assign e_cfg_write    = use_regs ? g_cfg_write : cfg_write;
    assign e_cfg_queue    = use_regs ? g_cfg_queue : cfg_queue;
    assign e_cfg_field    = use_regs ? g_cfg_field : cfg_field;
    assign e_cfg_wdata    = use_regs ? g_cfg_wdata : cfg_wdata;
    assign cfg_ready      = !use_regs && e_cfg_ready;
    assign e_notify_valid = use_regs ? g_notify_valid : notify_valid;
    assign e_notify_queue = use_regs ? g_notify_queue : notify_queue;
    assign e_mrg          = use_regs ? g_mrg : mrg_rxbuf;
    // DATA_VALID only when GUEST_CSUM was negotiated
    assign e_rx_tuser     = {s_axis_rx_tuser[1] && (!use_regs || g_gcsum), s_axis_rx_tuser[0]};

    // engine <-> ring DMA
    logic [63:0] qrd_addr, qwr_addr, trd_addr;
    logic [31:0] qrd_len, qwr_len, trd_len;
    logic [7:0]  qrd_tag, qwr_tag, trd_tag, qrd_ctag, qwr_ctag, trd_ctag, qrd_tid, trd_tid;
    logic        qrd_v, qrd_r, qwr_v, qwr_r, trd_v, trd_r;
    logic [1:0]  qrd_cs, qwr_cs, trd_cs;
    logic        qrd_cv, qrd_cr, qwr_cv, qwr_cr, trd_cv, trd_cr;
    logic [DATA_W-1:0] qrd_d, qwr_d, trd_d;
    logic [KEEP_W-1:0] qrd_k, qwr_k, trd_k;
    logic        qrd_sv, qrd_sr, qrd_sl, qwr_sv, qwr_sr, qwr_sl, trd_sv, trd_sr, trd_sl;
    logic [0:0]  qrd_su, trd_su;

    logic        txbuf_valid, txbuf_ready, txbuf_idle;
    logic        txret_valid, txret_ready;
    logic [QID_W-1:0] txret_queue;
    logic [15:0] txret_id;
    logic [31:0] txret_len;

    // RX side: Python or the RX data mover
    logic e_rxreq_valid, e_rxreq_ready, e_rxbuf_valid, e_rxbuf_ready;
    logic e_rxret_valid, e_rxret_ready, e_rxret_more;
    logic [QID_W-1:0] e_rxreq_queue, e_rxret_queue;
    logic [15:0] e_rxret_id;
    logic [31:0] e_rxret_len;
    logic mv_req_valid, mv_buf_ready, mv_ret_valid, mv_ret_more;
    logic [QID_W-1:0] mv_req_queue, mv_ret_queue;
    logic [15:0] mv_ret_id;
    logic [31:0] mv_ret_len;
    assign e_rxreq_valid = rx_py ? rxreq_valid : mv_req_valid;
    assign e_rxreq_queue = rx_py ? rxreq_queue : mv_req_queue;
    assign rxreq_ready   = rx_py & e_rxreq_ready;
    assign e_rxbuf_ready = rx_py ? rxbuf_ready : mv_buf_ready;
    assign rxbuf_valid   = rx_py & e_rxbuf_valid;
    assign e_rxret_valid = rx_py ? rxret_valid : mv_ret_valid;
    assign e_rxret_queue = rx_py ? rxret_queue : mv_ret_queue;
    assign e_rxret_id    = rx_py ? rxret_id : mv_ret_id;
    assign e_rxret_len   = rx_py ? rxret_len : mv_ret_len;
    assign e_rxret_more  = rx_py ? rxret_more : mv_ret_more;
    assign rxret_ready   = rx_py & e_rxret_ready;

    logic [63:0] rwr_addr;
    logic [31:0] rwr_len;
    logic [7:0]  rwr_tag, rwr_ctag;
    logic        rwr_v, rwr_r, rwr_cv, rwr_cr, rwr_sv, rwr_sr, rwr_sl;
    logic [1:0]  rwr_cs;
    logic [DATA_W-1:0] rwr_d;
    logic [KEEP_W-1:0] rwr_k;

    fabnic_virtio_net_rx #(.DATA_W(DATA_W), .QID_W(QID_W), .MAX_FRAME(MAX_FRAME - 12),
                           .MAX_ELEMS(8), .MAX_CHAINS(4)) u_rx (
        .clk, .rst, .mrg_rxbuf(e_mrg),
        .s_axis_tdata(s_axis_rx_tdata), .s_axis_tkeep(s_axis_rx_tkeep),
        .s_axis_tvalid(s_axis_rx_tvalid), .s_axis_tready(s_axis_rx_tready),
        .s_axis_tlast(s_axis_rx_tlast), .s_axis_tuser(e_rx_tuser),
        .s_axis_tdest(s_axis_rx_tdest),
        .m_rxreq_valid(mv_req_valid), .m_rxreq_ready(!rx_py && e_rxreq_ready),
        .m_rxreq_queue(mv_req_queue),
        .s_buf_valid(!rx_py && e_rxbuf_valid), .s_buf_ready(mv_buf_ready), .s_buf_addr(buf_addr),
        .s_buf_len(buf_len), .s_buf_head(buf_head), .s_buf_last(buf_last),
        .s_buf_status(buf_status),
        .m_wr_desc_addr(rwr_addr), .m_wr_desc_len(rwr_len), .m_wr_desc_tag(rwr_tag),
        .m_wr_desc_valid(rwr_v), .m_wr_desc_ready(rwr_r),
        .s_wr_cpl_tag(rwr_ctag), .s_wr_cpl_status(rwr_cs), .s_wr_cpl_valid(rwr_cv),
        .s_wr_cpl_ready(rwr_cr),
        .m_wr_axis_tdata(rwr_d), .m_wr_axis_tkeep(rwr_k), .m_wr_axis_tvalid(rwr_sv),
        .m_wr_axis_tready(rwr_sr), .m_wr_axis_tlast(rwr_sl),
        .m_ret_valid(mv_ret_valid), .m_ret_ready(!rx_py && e_rxret_ready),
        .m_ret_queue(mv_ret_queue), .m_ret_id(mv_ret_id), .m_ret_len(mv_ret_len),
        .m_ret_more(mv_ret_more),
        .cnt_drop(cnt_rxdrop), .cnt_frames(cnt_rxframes), .cnt_bad_chain(cnt_rxbadchain),
        .cnt_dma_err(cnt_rxdmaerr));

    fabnic_dma_wr #(.AXI_DATA_W(DATA_W), .MAX_BURST_LEN(MBL), .MAX_OUTSTANDING(16),
                    .DESC_DEPTH(16)) u_rwr (
        .clk, .rst,
        .s_desc_addr(rwr_addr), .s_desc_len(rwr_len), .s_desc_tag(rwr_tag),
        .s_desc_valid(rwr_v), .s_desc_ready(rwr_r),
        .m_cpl_tag(rwr_ctag), .m_cpl_status(rwr_cs), .m_cpl_valid(rwr_cv), .m_cpl_ready(rwr_cr),
        .s_axis_tdata(rwr_d), .s_axis_tkeep(rwr_k), .s_axis_tvalid(rwr_sv),
        .s_axis_tready(rwr_sr), .s_axis_tlast(rwr_sl),
        .m_axi_awid(m_axi_r_awid), .m_axi_awaddr(m_axi_r_awaddr), .m_axi_awlen(m_axi_r_awlen),
        .m_axi_awsize(m_axi_r_awsize), .m_axi_awburst(m_axi_r_awburst),
        .m_axi_awlock(m_axi_r_awlock), .m_axi_awcache(m_axi_r_awcache),
        .m_axi_awprot(m_axi_r_awprot), .m_axi_awvalid(m_axi_r_awvalid),
        .m_axi_awready(m_axi_r_awready), .m_axi_wdata(m_axi_r_wdata),
        .m_axi_wstrb(m_axi_r_wstrb), .m_axi_wlast(m_axi_r_wlast), .m_axi_wvalid(m_axi_r_wvalid),
        .m_axi_wready(m_axi_r_wready), .m_axi_bid(dr_bid), .m_axi_bresp(dr_bresp),
        .m_axi_bvalid(dr_bvalid), .m_axi_bready(dr_bready),
        .status_outstanding(), .status_len_mismatch());

    fabnic_virtq_split #(.NUM_Q(NUM_Q), .DATA_W(DATA_W), .CTRL_Q(4), .CTRL_MAX_PAIRS(2),
                         .RET_DEPTH(RET_DEPTH), .RET_BATCH(RET_BATCH), .RET_HOLD(RET_HOLD)) u_vq (
        .clk, .rst, .wr_ordered,
        .cfg_valid(e_cfg_valid), .cfg_ready(e_cfg_ready), .cfg_write(e_cfg_write),
        .cfg_queue(e_cfg_queue), .cfg_field(e_cfg_field), .cfg_wdata(e_cfg_wdata), .cfg_rdata,
        .notify_valid(e_notify_valid), .notify_queue(e_notify_queue),
        .s_rxreq_valid(e_rxreq_valid), .s_rxreq_ready(e_rxreq_ready), .s_rxreq_queue(e_rxreq_queue),
        .m_txbuf_valid(txbuf_valid), .m_txbuf_ready(txbuf_ready), .txbuf_idle(txbuf_idle),
        .m_rxbuf_valid(e_rxbuf_valid), .m_rxbuf_ready(e_rxbuf_ready),
        .m_buf_addr(buf_addr), .m_buf_len(buf_len), .m_buf_write(buf_write),
        .m_buf_head(buf_head), .m_buf_queue(buf_queue), .m_buf_last(buf_last),
        .m_buf_status(buf_status),
        .s_txret_valid(txret_valid), .s_txret_ready(txret_ready), .s_txret_queue(txret_queue),
        .s_txret_id(txret_id), .s_txret_len(txret_len),
        .s_rxret_valid(e_rxret_valid), .s_rxret_ready(e_rxret_ready), .s_rxret_queue(e_rxret_queue),
        .s_rxret_id(e_rxret_id), .s_rxret_len(e_rxret_len), .s_rxret_more(e_rxret_more),
        .irq_valid, .irq_vector, .irq_queue,
        .m_rd_desc_addr(qrd_addr), .m_rd_desc_len(qrd_len), .m_rd_desc_tag(qrd_tag),
        .m_rd_desc_valid(qrd_v), .m_rd_desc_ready(qrd_r),
        .s_rd_cpl_tag(qrd_ctag), .s_rd_cpl_status(qrd_cs), .s_rd_cpl_valid(qrd_cv),
        .s_rd_cpl_ready(qrd_cr),
        .s_rd_axis_tdata(qrd_d), .s_rd_axis_tkeep(qrd_k), .s_rd_axis_tvalid(qrd_sv),
        .s_rd_axis_tready(qrd_sr), .s_rd_axis_tlast(qrd_sl), .s_rd_axis_tuser(qrd_su),
        .m_wr_desc_addr(qwr_addr), .m_wr_desc_len(qwr_len), .m_wr_desc_tag(qwr_tag),
        .m_wr_desc_valid(qwr_v), .m_wr_desc_ready(qwr_r),
        .s_wr_cpl_tag(qwr_ctag), .s_wr_cpl_status(qwr_cs), .s_wr_cpl_valid(qwr_cv),
        .s_wr_cpl_ready(qwr_cr),
        .m_wr_axis_tdata(qwr_d), .m_wr_axis_tkeep(qwr_k), .m_wr_axis_tvalid(qwr_sv),
        .m_wr_axis_tready(qwr_sr), .m_wr_axis_tlast(qwr_sl),
        .q_needs_reset, .q_pending(), .cnt_err, .cnt_stat,
        .ctrl_pairs, .cnt_ctrl_ok, .cnt_ctrl_err);

    fabnic_virtio_net_tx #(.DATA_W(DATA_W), .QID_W(QID_W), .MAX_FRAME(MAX_FRAME),
                           .SLOTS(TX_SLOTS), .READ_CREDIT(TX_CREDIT)) u_tx (
        .clk, .rst,
        .s_buf_valid(txbuf_valid), .s_buf_ready(txbuf_ready), .s_buf_addr(buf_addr),
        .s_buf_len(buf_len), .s_buf_head(buf_head), .s_buf_queue(buf_queue),
        .s_buf_last(buf_last), .s_buf_status(buf_status), .s_buf_idle(txbuf_idle),
        .m_rd_desc_addr(trd_addr), .m_rd_desc_len(trd_len), .m_rd_desc_tag(trd_tag),
        .m_rd_desc_valid(trd_v), .m_rd_desc_ready(trd_r),
        .s_rd_cpl_tag(trd_ctag), .s_rd_cpl_status(trd_cs), .s_rd_cpl_valid(trd_cv),
        .s_rd_cpl_ready(trd_cr),
        .s_rd_axis_tdata(trd_d), .s_rd_axis_tkeep(trd_k), .s_rd_axis_tvalid(trd_sv),
        .s_rd_axis_tready(trd_sr), .s_rd_axis_tlast(trd_sl), .s_rd_axis_tuser(trd_su),
        .m_ret_valid(txret_valid), .m_ret_ready(txret_ready), .m_ret_queue(txret_queue),
        .m_ret_id(txret_id), .m_ret_len(txret_len),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
        .m_axis_tid, .m_axis_tuser,
        .cnt_drop(cnt_txdrop), .cnt_frames(cnt_txframes), .cnt_csum(cnt_txcsum));

    fabnic_dma_rd #(.AXI_DATA_W(DATA_W), .MAX_BURST_LEN(MBL), .MAX_OUTSTANDING(16),
                    .DESC_DEPTH(16)) u_qrd (
        .clk, .rst,
        .s_desc_addr(qrd_addr), .s_desc_len(qrd_len), .s_desc_tag(qrd_tag),
        .s_desc_valid(qrd_v), .s_desc_ready(qrd_r),
        .m_cpl_tag(qrd_ctag), .m_cpl_status(qrd_cs), .m_cpl_valid(qrd_cv), .m_cpl_ready(qrd_cr),
        .m_axis_tdata(qrd_d), .m_axis_tkeep(qrd_k), .m_axis_tvalid(qrd_sv),
        .m_axis_tready(qrd_sr), .m_axis_tlast(qrd_sl), .m_axis_tid(qrd_tid),
        .m_axis_tuser(qrd_su),
        .m_axi_arid(dq_arid), .m_axi_araddr(dq_araddr), .m_axi_arlen(dq_arlen),
        .m_axi_arsize(dq_arsize), .m_axi_arburst(dq_arburst),
        .m_axi_arlock(dq_arlock), .m_axi_arcache(dq_arcache),
        .m_axi_arprot(dq_arprot), .m_axi_arvalid(dq_arvalid),
        .m_axi_arready(dq_arready), .m_axi_rid(m_axi_q_rid), .m_axi_rdata(m_axi_q_rdata),
        .m_axi_rresp(m_axi_q_rresp), .m_axi_rlast(m_axi_q_rlast), .m_axi_rvalid(m_axi_q_rvalid),
        .m_axi_rready(m_axi_q_rready), .status_outstanding());

    fabnic_dma_wr #(.AXI_DATA_W(DATA_W), .MAX_BURST_LEN(MBL), .MAX_OUTSTANDING(16),
                    .DESC_DEPTH(16)) u_qwr (
        .clk, .rst,
        .s_desc_addr(qwr_addr), .s_desc_len(qwr_len), .s_desc_tag(qwr_tag),
        .s_desc_valid(qwr_v), .s_desc_ready(qwr_r),
        .m_cpl_tag(qwr_ctag), .m_cpl_status(qwr_cs), .m_cpl_valid(qwr_cv), .m_cpl_ready(qwr_cr),
        .s_axis_tdata(qwr_d), .s_axis_tkeep(qwr_k), .s_axis_tvalid(qwr_sv),
        .s_axis_tready(qwr_sr), .s_axis_tlast(qwr_sl),
        .m_axi_awid(m_axi_q_awid), .m_axi_awaddr(m_axi_q_awaddr), .m_axi_awlen(m_axi_q_awlen),
        .m_axi_awsize(m_axi_q_awsize), .m_axi_awburst(m_axi_q_awburst),
        .m_axi_awlock(m_axi_q_awlock), .m_axi_awcache(m_axi_q_awcache),
        .m_axi_awprot(m_axi_q_awprot), .m_axi_awvalid(m_axi_q_awvalid),
        .m_axi_awready(m_axi_q_awready), .m_axi_wdata(m_axi_q_wdata),
        .m_axi_wstrb(m_axi_q_wstrb), .m_axi_wlast(m_axi_q_wlast), .m_axi_wvalid(m_axi_q_wvalid),
        .m_axi_wready(m_axi_q_wready), .m_axi_bid(dq_bid), .m_axi_bresp(dq_bresp),
        .m_axi_bvalid(dq_bvalid), .m_axi_bready(dq_bready),
        .status_outstanding(), .status_len_mismatch());

    fabnic_dma_rd #(.AXI_DATA_W(DATA_W), .MAX_BURST_LEN(MBL), .MAX_OUTSTANDING(16),
                    .DESC_DEPTH(16)) u_trd (
        .clk, .rst,
        .s_desc_addr(trd_addr), .s_desc_len(trd_len), .s_desc_tag(trd_tag),
        .s_desc_valid(trd_v), .s_desc_ready(trd_r),
        .m_cpl_tag(trd_ctag), .m_cpl_status(trd_cs), .m_cpl_valid(trd_cv), .m_cpl_ready(trd_cr),
        .m_axis_tdata(trd_d), .m_axis_tkeep(trd_k), .m_axis_tvalid(trd_sv),
        .m_axis_tready(trd_sr), .m_axis_tlast(trd_sl), .m_axis_tid(trd_tid),
        .m_axis_tuser(trd_su),
        .m_axi_arid(dt_arid), .m_axi_araddr(dt_araddr), .m_axi_arlen(dt_arlen),
        .m_axi_arsize(dt_arsize), .m_axi_arburst(dt_arburst),
        .m_axi_arlock(dt_arlock), .m_axi_arcache(dt_arcache),
        .m_axi_arprot(dt_arprot), .m_axi_arvalid(dt_arvalid),
        .m_axi_arready(dt_arready), .m_axi_rid(m_axi_t_rid), .m_axi_rdata(m_axi_t_rdata),
        .m_axi_rresp(m_axi_t_rresp), .m_axi_rlast(m_axi_t_rlast), .m_axi_rvalid(m_axi_t_rvalid),
        .m_axi_rready(m_axi_t_rready), .status_outstanding());

endmodule

`resetall
