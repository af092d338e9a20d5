// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vnic_dev: virtio-net device with VXLAN tunnel offload (docs/vnic_dev.md).
//
//   guest memory (one AXI4 master m_axi_*):
//     ring reads  (fabnic_dma_rd, ARID 0) --+-- fabnic_axi_rd_mux --------+
//     TX data     (fabnic_dma_rd, ARID 1) --+                              +-- m_axi_*
//     ring writes (fabnic_dma_wr, AWID 0) --+-- fabnic_vnic_axi_wr_mux ---+
//     RX data     (fabnic_dma_wr, AWID 1) --+
//   virtio: fabnic_virtio_regs -> fabnic_virtq_split (PAIRS queue pairs + control queue)
//     transmitq n -> fabnic_virtio_net_tx -> (queue pair n, VNI of pair n)
//                 -> fabnic_vnic_core s_gtx (vSwitch/VTEP: VM to VM, uplink encap, flood)
//     fabnic_vnic_core m_grx (tdest = queue pair) -> queue check -> fabnic_virtio_csum_check
//                 (inner TCP/UDP checksum -> DATA_VALID if GUEST_CSUM) -> fabnic_virtio_net_rx
//                 (receiveq 2n) -> guest buffers
//   TX data reads share the AXI read channel with ring reads; fabnic_virtio_net_tx only
//   walks a chain when a frame slot is reserved for it, so its reads never hold R.
//   wire: s_mac_rx_* / m_mac_tx_* of fabnic_vnic_core (frames without FCS)
//   RoCE: m_roce_* / s_rtx_* of fabnic_vnic_core passed through
//
// Register window (one AXI-Lite slave, ADDR_W bits; fabnic_axil_slave -> decoder):
//   0x1000..0x1FFF  fabnic_virtio_regs (VirtIO 1.2 modern layout, fabnic.regmap_virtio)
//   0x2800..0x28FF  this block ("vnicdev": queue pair VNIs and data path counters;
//                   fabnic_regs_vnicdev, generated from fw/fabnic/regmap_vnicdev.py)
//   anything else   fabnic_vnic_core (device 0x0000, vxlan 0x2000) through
//                   fabnic_vnic_axil_bridge
`default_nettype none

module fabnic_vnic_dev #(
    parameter int DATA_W      = 64,
    parameter int KEEP_W      = DATA_W / 8,
    parameter int ADDR_W      = 16,
    parameter int PAIRS       = 2,       // virtio queue pairs = vSwitch queue pairs 0..PAIRS-1
    parameter int QMAX        = 256,     // largest virtqueue size
    parameter int MTU         = 1500,
    parameter int MAX_FRAME   = 2048,    // virtio TX: 12-byte header + frame; RX: frame + 12
    parameter int AXI_ID_W    = 4,
    parameter int ENTRIES     = 1024,
    parameter int WAYS        = 4,
    parameter int VNI_ENTRIES = 16,
    parameter int TUN_ENTRIES = 16,
    parameter int QP_W        = 8,
    parameter int FLOOD_MAX   = 4,
    parameter int RFLOOD_MAX  = 4,
    parameter int RX_DEPTH    = 64,
    parameter int TX_DEPTH    = 16384 / (DATA_W / 8),
    parameter int GRX_DEPTH   = 16384 / (DATA_W / 8),
    parameter int CNT_W       = 32,
    parameter int NUM_Q       = 2 * PAIRS + 1,
    parameter int QID_W       = $clog2(NUM_Q)
) (
    input  wire logic              clk,
    input  wire logic              rst,
    output logic                   init_done,

    // ---- AXI-Lite registers (one window)
    input  wire logic [ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]        s_axil_awprot,
    input  wire logic              s_axil_awvalid,
    output logic                   s_axil_awready,
    input  wire logic [31:0]       s_axil_wdata,
    input  wire logic [3:0]        s_axil_wstrb,
    input  wire logic              s_axil_wvalid,
    output logic                   s_axil_wready,
    output logic [1:0]             s_axil_bresp,
    output logic                   s_axil_bvalid,
    input  wire logic              s_axil_bready,
    input  wire logic [ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]        s_axil_arprot,
    input  wire logic              s_axil_arvalid,
    output logic                   s_axil_arready,
    output logic [31:0]            s_axil_rdata,
    output logic [1:0]             s_axil_rresp,
    output logic                   s_axil_rvalid,
    input  wire logic              s_axil_rready,

    // ---- device configuration / interrupts
    input  wire logic [47:0]       dev_mac,       // byte i (first on the wire) = [8i +: 8]
    input  wire logic              link_up,
    output logic                   irq_valid,     // MSI-X message: queue interrupts
    output logic [15:0]            irq_vector,
    output logic [QID_W-1:0]       irq_queue,
    output logic                   cfg_irq_valid, // configuration change
    output logic [15:0]            cfg_irq_vector,
    output logic [7:0]             device_status,

    // ---- AXI4 master to guest memory
    output logic [AXI_ID_W-1:0]    m_axi_awid,
    output logic [63:0]            m_axi_awaddr,
    output logic [7:0]             m_axi_awlen,
    output logic [2:0]             m_axi_awsize,
    output logic [1:0]             m_axi_awburst,
    output logic                   m_axi_awlock,
    output logic [3:0]             m_axi_awcache,
    output logic [2:0]             m_axi_awprot,
    output logic                   m_axi_awvalid,
    input  wire logic              m_axi_awready,
    output logic [DATA_W-1:0]      m_axi_wdata,
    output logic [KEEP_W-1:0]      m_axi_wstrb,
    output logic                   m_axi_wlast,
    output logic                   m_axi_wvalid,
    input  wire logic              m_axi_wready,
    input  wire logic [AXI_ID_W-1:0] m_axi_bid,
    input  wire logic [1:0]        m_axi_bresp,
    input  wire logic              m_axi_bvalid,
    output logic                   m_axi_bready,
    output logic [AXI_ID_W-1:0]    m_axi_arid,
    output logic [63:0]            m_axi_araddr,
    output logic [7:0]             m_axi_arlen,
    output logic [2:0]             m_axi_arsize,
    output logic [1:0]             m_axi_arburst,
    output logic                   m_axi_arlock,
    output logic [3:0]             m_axi_arcache,
    output logic [2:0]             m_axi_arprot,
    output logic                   m_axi_arvalid,
    input  wire logic              m_axi_arready,
    input  wire logic [AXI_ID_W-1:0] m_axi_rid,
    input  wire logic [DATA_W-1:0] m_axi_rdata,
    input  wire logic [1:0]        m_axi_rresp,
    input  wire logic              m_axi_rlast,
    input  wire logic              m_axi_rvalid,
    output logic                   m_axi_rready,

    // ---- MAC side (frames without FCS, tuser = bad)
    input  wire logic [DATA_W-1:0] s_mac_rx_tdata,
    input  wire logic [KEEP_W-1:0] s_mac_rx_tkeep,
    input  wire logic              s_mac_rx_tvalid,
    output logic                   s_mac_rx_tready,
    input  wire logic              s_mac_rx_tlast,
    input  wire logic              s_mac_rx_tuser,
    output logic [DATA_W-1:0]      m_mac_tx_tdata,
    output logic [KEEP_W-1:0]      m_mac_tx_tkeep,
    output logic                   m_mac_tx_tvalid,
    input  wire logic              m_mac_tx_tready,
    output logic                   m_mac_tx_tlast,
    output logic                   m_mac_tx_tuser,

    // ---- RoCE transport (fabnic_vnic_core pass-through; tie s_rtx_tvalid 0 and
    //      m_roce_tready 1 when there is no RoCE engine)
    output logic [DATA_W-1:0]      m_roce_tdata,
    output logic [KEEP_W-1:0]      m_roce_tkeep,
    output logic                   m_roce_tvalid,
    input  wire logic              m_roce_tready,
    output logic                   m_roce_tlast,
    output logic                   m_roce_tuser,
    output logic [23:0]            m_roce_vni,
    output logic                   m_roce_outer_ipv6,
    output logic [127:0]           m_roce_outer_src_ip,
    output logic [15:0]            m_roce_outer_src_port,
    output logic [1:0]             m_roce_outer_ecn,
    input  wire logic [DATA_W-1:0] s_rtx_tdata,
    input  wire logic [KEEP_W-1:0] s_rtx_tkeep,
    input  wire logic              s_rtx_tvalid,
    output logic                   s_rtx_tready,
    input  wire logic              s_rtx_tlast,
    input  wire logic              s_rtx_tuser,
    input  wire logic [23:0]       s_rtx_vni
);

  localparam int MBL      = (DATA_W >= 512) ? 64 : 16;
  localparam int RX_FRAME = MAX_FRAME - 12;
  localparam int PW       = (PAIRS > 1) ? $clog2(PAIRS) : 1;
  localparam int TX_SLOTS = 8;   // TX frames (chains) with buffer reads in flight

  if (PAIRS < 1 || PAIRS > 16 || NUM_Q != 2 * PAIRS + 1 || QID_W != $clog2(NUM_Q)
      || PAIRS > (1 << QP_W) || ADDR_W < 14) begin : g_chk
    $error("fabnic_vnic_dev: 1 <= PAIRS <= 16 (and < 2^QP_W), NUM_Q/QID_W derived, ADDR_W >= 14");
  end

  // =====================================================================
  // registers: one AXI-Lite window, decoded on the request bus
  // =====================================================================
  logic              rq_valid, rq_write, ak_valid, ak_err, unused_to;
  logic [ADDR_W-1:0] rq_addr;
  logic [31:0]       rq_wdata, ak_rdata;
  logic [3:0]        rq_wstrb;

  // the core's own AXI-Lite slave answers (or times out at 256 cycles) first
  fabnic_axil_slave #(.ADDR_W(ADDR_W), .TIMEOUT(1024)) u_axil (
      .clk, .rst,
      .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
      .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
      .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
      .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
      .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
      .req_valid(rq_valid), .req_write(rq_write), .req_addr(rq_addr), .req_wdata(rq_wdata),
      .req_wstrb(rq_wstrb), .ack_valid(ak_valid), .ack_rdata(ak_rdata), .ack_err(ak_err),
      .status_timeout(unused_to));

  logic sel_vio, sel_loc, sel_core;
  assign sel_vio  = rq_addr[ADDR_W-1:12] == (ADDR_W - 12)'(1);
  assign sel_loc  = rq_addr[ADDR_W-1:8] == (ADDR_W - 8)'(8'h28);
  assign sel_core = !sel_vio && !sel_loc;

  logic        v_ack, v_err, c_ack, c_err, l_ack, l_err;
  logic [31:0] v_rdata, c_rdata, l_rdata;
  assign ak_valid = v_ack || c_ack || l_ack;
  assign ak_rdata = v_ack ? v_rdata : c_ack ? c_rdata : l_rdata;
  assign ak_err   = v_ack ? v_err : c_ack ? c_err : l_err;

  // ---- to fabnic_vnic_core
  logic [ADDR_W-1:0] ca_awaddr, ca_araddr;
  logic [2:0]        ca_awprot, ca_arprot;
  logic              ca_awvalid, ca_awready, ca_wvalid, ca_wready, ca_bvalid, ca_bready;
  logic              ca_arvalid, ca_arready, ca_rvalid, ca_rready;
  logic [31:0]       ca_wdata, ca_rdata;
  logic [3:0]        ca_wstrb;
  logic [1:0]        ca_bresp, ca_rresp;

  fabnic_vnic_axil_bridge #(.ADDR_W(ADDR_W)) u_bridge (
      .clk, .rst,
      .req_valid(rq_valid && sel_core), .req_write(rq_write), .req_addr(rq_addr),
      .req_wdata(rq_wdata), .req_wstrb(rq_wstrb),
      .ack_valid(c_ack), .ack_rdata(c_rdata), .ack_err(c_err),
      .m_axil_awaddr(ca_awaddr), .m_axil_awprot(ca_awprot), .m_axil_awvalid(ca_awvalid),
      .m_axil_awready(ca_awready), .m_axil_wdata(ca_wdata), .m_axil_wstrb(ca_wstrb),
      .m_axil_wvalid(ca_wvalid), .m_axil_wready(ca_wready), .m_axil_bresp(ca_bresp),
      .m_axil_bvalid(ca_bvalid), .m_axil_bready(ca_bready), .m_axil_araddr(ca_araddr),
      .m_axil_arprot(ca_arprot), .m_axil_arvalid(ca_arvalid), .m_axil_arready(ca_arready),
      .m_axil_rdata(ca_rdata), .m_axil_rresp(ca_rresp), .m_axil_rvalid(ca_rvalid),
      .m_axil_rready(ca_rready));

  // ---- virtio register window
  logic              g_cfg_valid, e_cfg_ready, g_cfg_write, g_notify_valid, g_mrg, g_gcsum;
  logic [QID_W-1:0]  g_cfg_queue, g_notify_queue;
  logic [3:0]        g_cfg_field;
  logic [63:0]       g_cfg_wdata, unused_drv_feat;
  logic [NUM_Q-1:0]  q_needs_reset;
  logic              unused_drv_ok;
  logic [CNT_W-1:0]  vio_bad_notify, vio_ignored;

  fabnic_virtio_regs #(.MAX_PAIRS(PAIRS), .CTRL_VQ(1'b1), .NUM_Q(NUM_Q), .QID_W(QID_W),
                       .QMAX(QMAX), .MTU(MTU), .CNT_W(CNT_W), .ADDR_W(12)) u_vregs (
      .clk, .rst,
      .req_valid(rq_valid && sel_vio), .req_write(rq_write), .req_addr(rq_addr[11:0]),
      .req_wdata(rq_wdata), .req_wstrb(rq_wstrb),
      .ack_valid(v_ack), .ack_rdata(v_rdata), .ack_err(v_err),
      .dev_mac, .link_up,
      .cfg_valid(g_cfg_valid), .cfg_ready(e_cfg_ready), .cfg_write(g_cfg_write),
      .cfg_queue(g_cfg_queue), .cfg_field(g_cfg_field), .cfg_wdata(g_cfg_wdata),
      .notify_valid(g_notify_valid), .notify_queue(g_notify_queue),
      .q_needs_reset, .irq_valid,
      .drv_features(unused_drv_feat), .feat_mrg_rxbuf(g_mrg), .feat_guest_csum(g_gcsum),
      .driver_ok(unused_drv_ok), .device_status, .cfg_irq_valid, .cfg_irq_vector,
      .cnt_bad_notify(vio_bad_notify), .cnt_ignored(vio_ignored));

  // ---- local block "vnicdev" (0x2800): queue pair VNIs and counters, register file
  //      generated from fw/fabnic/regmap_vnicdev.py (fabnic_regs_vnicdev)
  localparam int NRXD = 4;
  localparam int NTXD = 6;
  localparam int MAXP = 16;   // qp_vni registers in the map (PAIRS <= 16)
  logic [MAXP-1:0][23:0]       qp_vni;
  logic [CNT_W-1:0]            cnt_grx_drop_qp, cnt_grx_drop_bad, rx_frames, tx_frames, tx_csum;
  logic [CNT_W-1:0]            rx_bad_chain, rx_dma_err, ck_ok, ck_bad, ck_skip;
  logic [NRXD-1:0][CNT_W-1:0]  rx_drop;
  logic [NTXD-1:0][CNT_W-1:0]  tx_drop;
  logic [CNT_W-1:0]            tx_drop_sum;
  assign tx_drop_sum = tx_drop[0] + tx_drop[1] + tx_drop[2] + tx_drop[3] + tx_drop[4]
                       + tx_drop[5];

  fabnic_regs_vnicdev #(.ADDR_W(ADDR_W), .PAIRS(PAIRS)) u_lregs (
      .clk, .rst,
      .req_valid(rq_valid && sel_loc), .req_write(rq_write), .req_addr(rq_addr),
      .req_wdata(rq_wdata), .req_wstrb(rq_wstrb),
      .ack_valid(l_ack), .ack_rdata(l_rdata), .ack_err(l_err),
      .sts_vnicdev_grx_drop_qp(32'(cnt_grx_drop_qp)),
      .sts_vnicdev_grx_drop_bad(32'(cnt_grx_drop_bad)),
      .sts_vnicdev_rx_frames(32'(rx_frames)),
      .sts_vnicdev_rx_drop_bad(32'(rx_drop[0])),
      .sts_vnicdev_rx_drop_big(32'(rx_drop[1])),
      .sts_vnicdev_rx_drop_nobuf(32'(rx_drop[2])),
      .sts_vnicdev_rx_drop_small(32'(rx_drop[3])),
      .sts_vnicdev_rx_bad_chain(32'(rx_bad_chain)),
      .sts_vnicdev_rx_dma_err(32'(rx_dma_err)),
      .sts_vnicdev_tx_frames(32'(tx_frames)),
      .sts_vnicdev_tx_csum(32'(tx_csum)),
      .sts_vnicdev_tx_drop(32'(tx_drop_sum)),
      .sts_vnicdev_rx_csum_ok(32'(ck_ok)),
      .sts_vnicdev_rx_csum_bad(32'(ck_bad)),
      .sts_vnicdev_rx_csum_skip(32'(ck_skip)),
      .cfg_vnicdev_qp_vni0(qp_vni[0]),   .cfg_vnicdev_qp_vni1(qp_vni[1]),
      .cfg_vnicdev_qp_vni2(qp_vni[2]),   .cfg_vnicdev_qp_vni3(qp_vni[3]),
      .cfg_vnicdev_qp_vni4(qp_vni[4]),   .cfg_vnicdev_qp_vni5(qp_vni[5]),
      .cfg_vnicdev_qp_vni6(qp_vni[6]),   .cfg_vnicdev_qp_vni7(qp_vni[7]),
      .cfg_vnicdev_qp_vni8(qp_vni[8]),   .cfg_vnicdev_qp_vni9(qp_vni[9]),
      .cfg_vnicdev_qp_vni10(qp_vni[10]), .cfg_vnicdev_qp_vni11(qp_vni[11]),
      .cfg_vnicdev_qp_vni12(qp_vni[12]), .cfg_vnicdev_qp_vni13(qp_vni[13]),
      .cfg_vnicdev_qp_vni14(qp_vni[14]), .cfg_vnicdev_qp_vni15(qp_vni[15]),
      .sts_vnicdev_tx_drop_bad_chain(32'(tx_drop[0])),
      .sts_vnicdev_tx_drop_big(32'(tx_drop[1])),
      .sts_vnicdev_tx_drop_runt(32'(tx_drop[2])),
      .sts_vnicdev_tx_drop_dma(32'(tx_drop[3])),
      .sts_vnicdev_tx_drop_gso(32'(tx_drop[4])),
      .sts_vnicdev_tx_drop_csum(32'(tx_drop[5])));

  // =====================================================================
  // virtqueue engine and data movers
  // =====================================================================
  logic [63:0] qrd_addr, qwr_addr, trd_addr, rwr_addr;
  logic [31:0] qrd_len, qwr_len, trd_len, rwr_len;
  logic [7:0]  qrd_tag, qwr_tag, trd_tag, rwr_tag, qrd_ctag, qwr_ctag, trd_ctag, rwr_ctag;
  logic [7:0]  unused_qrd_tid, unused_trd_tid;
  logic        qrd_v, qrd_r, qwr_v, qwr_r, trd_v, trd_r, rwr_v, rwr_r;
  logic [1:0]  qrd_cs, qwr_cs, trd_cs, rwr_cs;
  logic        qrd_cv, qrd_cr, qwr_cv, qwr_cr, trd_cv, trd_cr, rwr_cv, rwr_cr;
  logic [DATA_W-1:0] qrd_d, qwr_d, trd_d, rwr_d;
  logic [KEEP_W-1:0] qrd_k, qwr_k, trd_k, rwr_k;
  logic        qrd_sv, qrd_sr, qrd_sl, qwr_sv, qwr_sr, qwr_sl, trd_sv, trd_sr, trd_sl;
  logic        rwr_sv, rwr_sr, rwr_sl;
  logic [0:0]  qrd_su, trd_su;

  logic        txbuf_valid, txbuf_ready, txbuf_idle, rxbuf_valid, rxbuf_ready;
  logic [63:0] buf_addr;
  logic [31:0] buf_len;
  logic        buf_write, buf_last;
  logic [15:0] buf_head;
  logic [QID_W-1:0] buf_queue;
  logic [1:0]  buf_status;
  logic        txret_valid, txret_ready, rxret_valid, rxret_ready, rxret_more;
  logic        rxreq_valid, rxreq_ready;
  logic [QID_W-1:0] txret_queue, rxret_queue, rxreq_queue;
  logic [15:0] txret_id, rxret_id;
  logic [31:0] txret_len, rxret_len;
  logic [NUM_Q-1:0] unused_q_pending;
  logic [9:0][CNT_W-1:0] unused_cnt_err;
  logic [6:0][CNT_W-1:0] unused_cnt_stat;
  logic [15:0] unused_ctrl_pairs;
  logic [CNT_W-1:0] unused_ctrl_ok, unused_ctrl_err;

  fabnic_virtq_split #(.NUM_Q(NUM_Q), .DATA_W(DATA_W), .CNT_W(CNT_W), .CTRL_Q(2 * PAIRS),
                       .CTRL_MAX_PAIRS(PAIRS), .QID_W(QID_W)) u_vq (
      .clk, .rst, .wr_ordered(1'b0),
      .cfg_valid(g_cfg_valid), .cfg_ready(e_cfg_ready), .cfg_write(g_cfg_write),
      .cfg_queue(g_cfg_queue), .cfg_field(g_cfg_field), .cfg_wdata(g_cfg_wdata),
      .cfg_rdata(),
      .notify_valid(g_notify_valid), .notify_queue(g_notify_queue),
      .s_rxreq_valid(rxreq_valid), .s_rxreq_ready(rxreq_ready), .s_rxreq_queue(rxreq_queue),
      .m_txbuf_valid(txbuf_valid), .m_txbuf_ready(txbuf_ready), .txbuf_idle(txbuf_idle),
      .m_rxbuf_valid(rxbuf_valid), .m_rxbuf_ready(rxbuf_ready),
      .m_buf_addr(buf_addr), .m_buf_len(buf_len), .m_buf_write(buf_write),
      .m_buf_head(buf_head), .m_buf_queue(buf_queue), .m_buf_last(buf_last),
      .m_buf_status(buf_status),
      .s_txret_valid(txret_valid), .s_txret_ready(txret_ready), .s_txret_queue(txret_queue),
      .s_txret_id(txret_id), .s_txret_len(txret_len),
      .s_rxret_valid(rxret_valid), .s_rxret_ready(rxret_ready), .s_rxret_queue(rxret_queue),
      .s_rxret_id(rxret_id), .s_rxret_len(rxret_len), .s_rxret_more(rxret_more),
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
      .q_needs_reset, .q_pending(unused_q_pending), .cnt_err(unused_cnt_err),
      .cnt_stat(unused_cnt_stat), .ctrl_pairs(unused_ctrl_pairs),
      .cnt_ctrl_ok(unused_ctrl_ok), .cnt_ctrl_err(unused_ctrl_err));

  // ---- TX: transmitq 2n+1 -> queue pair n with its VNI -> vSwitch
  logic [DATA_W-1:0] vt_tdata;
  logic [KEEP_W-1:0] vt_tkeep;
  logic              vt_tvalid, vt_tready, vt_tlast;
  logic [QID_W-1:0]  vt_tid;
  logic [16:0]       vt_tuser;
  logic [PW-1:0]     vt_pair;

  fabnic_virtio_net_tx #(.DATA_W(DATA_W), .QID_W(QID_W), .MAX_FRAME(MAX_FRAME),
                         .CNT_W(CNT_W), .SLOTS(TX_SLOTS)) u_tx (
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
      .m_axis_tdata(vt_tdata), .m_axis_tkeep(vt_tkeep), .m_axis_tvalid(vt_tvalid),
      .m_axis_tready(vt_tready), .m_axis_tlast(vt_tlast), .m_axis_tid(vt_tid),
      .m_axis_tuser(vt_tuser),
      .cnt_drop(tx_drop), .cnt_frames(tx_frames), .cnt_csum(tx_csum));

  assign vt_pair = PW'(vt_tid >> 1);   // transmitq 2n+1 -> pair n

  // ---- RX: vSwitch copy for queue pair n -> receiveq 2n (pairs >= PAIRS: dropped, counted)
  logic [DATA_W-1:0] gr_tdata;
  logic [KEEP_W-1:0] gr_tkeep;
  logic              gr_tvalid, gr_tready, gr_tlast, gr_tuser, gr_ok, vr_tready;
  logic [QP_W-1:0]   gr_tdest;
  logic [23:0]       unused_gr_vni;
  logic              unused_gr_flood;

  assign gr_ok     = 32'(gr_tdest) < PAIRS;
  assign gr_tready = gr_ok ? vr_tready : 1'b1;

  always_ff @(posedge clk) begin
    if (gr_tvalid && !gr_ok && gr_tlast) cnt_grx_drop_qp <= cnt_grx_drop_qp + 1'b1;
    if (rst) cnt_grx_drop_qp <= '0;
  end

  // inner TCP/UDP checksum check -> DATA_VALID (only with GUEST_CSUM negotiated)
  logic [DATA_W-1:0] ck_tdata;
  logic [KEEP_W-1:0] ck_tkeep;
  logic              ck_tvalid, ck_tready, ck_tlast;
  logic [1:0]        ck_tuser;
  logic [QID_W-1:0]  ck_tdest;

  fabnic_virtio_csum_check #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .DEST_W(QID_W),
                             .CNT_W(CNT_W)) u_csum (
      .clk, .rst,
      .s_axis_tdata(gr_tdata), .s_axis_tkeep(gr_tkeep), .s_axis_tvalid(gr_tvalid && gr_ok),
      .s_axis_tready(vr_tready), .s_axis_tlast(gr_tlast), .s_axis_tuser(gr_tuser),
      .s_axis_tdest({gr_tdest[QID_W-2:0], 1'b0}),
      .m_axis_tdata(ck_tdata), .m_axis_tkeep(ck_tkeep), .m_axis_tvalid(ck_tvalid),
      .m_axis_tready(ck_tready), .m_axis_tlast(ck_tlast), .m_axis_tuser(ck_tuser),
      .m_axis_tdest(ck_tdest),
      .cnt_ok(ck_ok), .cnt_bad(ck_bad), .cnt_skip(ck_skip));

  fabnic_virtio_net_rx #(.DATA_W(DATA_W), .QID_W(QID_W), .MAX_FRAME(RX_FRAME),
                         .CNT_W(CNT_W), .MAX_ELEMS(8), .MAX_CHAINS(4)) u_rx (
      .clk, .rst, .mrg_rxbuf(g_mrg),
      .s_axis_tdata(ck_tdata), .s_axis_tkeep(ck_tkeep), .s_axis_tvalid(ck_tvalid),
      .s_axis_tready(ck_tready), .s_axis_tlast(ck_tlast),
      .s_axis_tuser({ck_tuser[1] && g_gcsum, ck_tuser[0]}),
      .s_axis_tdest(ck_tdest),
      .m_rxreq_valid(rxreq_valid), .m_rxreq_ready(rxreq_ready), .m_rxreq_queue(rxreq_queue),
      .s_buf_valid(rxbuf_valid), .s_buf_ready(rxbuf_ready), .s_buf_addr(buf_addr),
      .s_buf_len(buf_len), .s_buf_head(buf_head), .s_buf_last(buf_last),
      .s_buf_status(buf_status),
      .m_wr_desc_addr(rwr_addr), .m_wr_desc_len(rwr_len), .m_wr_desc_tag(rwr_tag),
      .m_wr_desc_valid(rwr_v), .m_wr_desc_ready(rwr_r),
      .s_wr_cpl_tag(rwr_ctag), .s_wr_cpl_status(rwr_cs), .s_wr_cpl_valid(rwr_cv),
      .s_wr_cpl_ready(rwr_cr),
      .m_wr_axis_tdata(rwr_d), .m_wr_axis_tkeep(rwr_k), .m_wr_axis_tvalid(rwr_sv),
      .m_wr_axis_tready(rwr_sr), .m_wr_axis_tlast(rwr_sl),
      .m_ret_valid(rxret_valid), .m_ret_ready(rxret_ready), .m_ret_queue(rxret_queue),
      .m_ret_id(rxret_id), .m_ret_len(rxret_len), .m_ret_more(rxret_more),
      .cnt_drop(rx_drop), .cnt_frames(rx_frames), .cnt_bad_chain(rx_bad_chain),
      .cnt_dma_err(rx_dma_err));

  // =====================================================================
  // vSwitch / VTEP core
  // =====================================================================
  fabnic_vnic_core #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .ADDR_W(ADDR_W), .ENTRIES(ENTRIES), .WAYS(WAYS),
      .VNI_ENTRIES(VNI_ENTRIES), .TUN_ENTRIES(TUN_ENTRIES), .QP_W(QP_W),
      .FLOOD_MAX(FLOOD_MAX), .RFLOOD_MAX(RFLOOD_MAX), .RX_DEPTH(RX_DEPTH),
      .TX_DEPTH(TX_DEPTH), .GRX_DEPTH(GRX_DEPTH), .CNT_W(CNT_W)
  ) u_core (
      .clk, .rst, .init_done,
      .s_axil_awaddr(ca_awaddr), .s_axil_awprot(ca_awprot), .s_axil_awvalid(ca_awvalid),
      .s_axil_awready(ca_awready), .s_axil_wdata(ca_wdata), .s_axil_wstrb(ca_wstrb),
      .s_axil_wvalid(ca_wvalid), .s_axil_wready(ca_wready), .s_axil_bresp(ca_bresp),
      .s_axil_bvalid(ca_bvalid), .s_axil_bready(ca_bready), .s_axil_araddr(ca_araddr),
      .s_axil_arprot(ca_arprot), .s_axil_arvalid(ca_arvalid), .s_axil_arready(ca_arready),
      .s_axil_rdata(ca_rdata), .s_axil_rresp(ca_rresp), .s_axil_rvalid(ca_rvalid),
      .s_axil_rready(ca_rready),
      .s_mac_rx_tdata, .s_mac_rx_tkeep, .s_mac_rx_tvalid, .s_mac_rx_tready, .s_mac_rx_tlast,
      .s_mac_rx_tuser,
      .m_mac_tx_tdata, .m_mac_tx_tkeep, .m_mac_tx_tvalid, .m_mac_tx_tready, .m_mac_tx_tlast,
      .m_mac_tx_tuser,
      .m_grx_tdata(gr_tdata), .m_grx_tkeep(gr_tkeep), .m_grx_tvalid(gr_tvalid),
      .m_grx_tready(gr_tready), .m_grx_tlast(gr_tlast), .m_grx_tuser(gr_tuser),
      .m_grx_tdest(gr_tdest), .m_grx_vni(unused_gr_vni), .m_grx_flood(unused_gr_flood),
      .s_gtx_tdata(vt_tdata), .s_gtx_tkeep(vt_tkeep), .s_gtx_tvalid(vt_tvalid),
      .s_gtx_tready(vt_tready), .s_gtx_tlast(vt_tlast), .s_gtx_tuser(vt_tuser[0]),
      .s_gtx_vni(qp_vni[4'(vt_pair)]), .s_gtx_qp(QP_W'(vt_pair)),
      .m_roce_tdata, .m_roce_tkeep, .m_roce_tvalid, .m_roce_tready, .m_roce_tlast,
      .m_roce_tuser, .m_roce_vni, .m_roce_outer_ipv6, .m_roce_outer_src_ip,
      .m_roce_outer_src_port, .m_roce_outer_ecn,
      .s_rtx_tdata, .s_rtx_tkeep, .s_rtx_tvalid, .s_rtx_tready, .s_rtx_tlast, .s_rtx_tuser,
      .s_rtx_vni,
      .cnt_grx_drop_bad(cnt_grx_drop_bad));

  // =====================================================================
  // DMA engines and the AXI master
  // =====================================================================
  logic [AXI_ID_W-1:0] ar_id [2];
  logic [63:0]         ar_addr [2];
  logic [7:0]          ar_len [2];
  logic [2:0]          ar_size [2];
  logic [1:0]          ar_burst [2];
  logic [1:0]          ar_valid, ar_ready, r_valid, r_ready;
  logic [DATA_W-1:0]   r_data;
  logic [1:0]          r_resp;
  logic                r_last;
  logic [1:0]          unused_ar_lock;
  logic [3:0]          unused_ar_cache [2];
  logic [2:0]          unused_ar_prot [2];
  logic [AXI_ID_W-1:0] aw_id [2];
  logic [63:0]         aw_addr [2];
  logic [7:0]          aw_len [2];
  logic [2:0]          aw_size [2];
  logic [1:0]          aw_burst [2];
  logic [1:0]          aw_valid, aw_ready, w_valid, w_ready, w_last, b_valid, b_ready;
  logic [DATA_W-1:0]   w_data [2];
  logic [KEEP_W-1:0]   w_strb [2];
  logic [1:0]          b_resp;
  logic [1:0]          unused_aw_lock;
  logic [3:0]          unused_aw_cache [2];
  logic [2:0]          unused_aw_prot [2];
  logic [1:0]          unused_lm;

  // ARID 0: ring reads
  fabnic_dma_rd #(.AXI_DATA_W(DATA_W), .ID_W(AXI_ID_W), .MAX_BURST_LEN(MBL),
                  .MAX_OUTSTANDING(16), .DESC_DEPTH(16), .AXI_ID(AXI_ID_W'(0))) u_qrd (
      .clk, .rst,
      .s_desc_addr(qrd_addr), .s_desc_len(qrd_len), .s_desc_tag(qrd_tag),
      .s_desc_valid(qrd_v), .s_desc_ready(qrd_r),
      .m_cpl_tag(qrd_ctag), .m_cpl_status(qrd_cs), .m_cpl_valid(qrd_cv), .m_cpl_ready(qrd_cr),
      .m_axis_tdata(qrd_d), .m_axis_tkeep(qrd_k), .m_axis_tvalid(qrd_sv),
      .m_axis_tready(qrd_sr), .m_axis_tlast(qrd_sl), .m_axis_tid(unused_qrd_tid),
      .m_axis_tuser(qrd_su),
      .m_axi_arid(ar_id[0]), .m_axi_araddr(ar_addr[0]), .m_axi_arlen(ar_len[0]),
      .m_axi_arsize(ar_size[0]), .m_axi_arburst(ar_burst[0]), .m_axi_arlock(unused_ar_lock[0]),
      .m_axi_arcache(unused_ar_cache[0]), .m_axi_arprot(unused_ar_prot[0]),
      .m_axi_arvalid(ar_valid[0]), .m_axi_arready(ar_ready[0]),
      .m_axi_rid(m_axi_rid), .m_axi_rdata(r_data), .m_axi_rresp(r_resp), .m_axi_rlast(r_last),
      .m_axi_rvalid(r_valid[0]), .m_axi_rready(r_ready[0]), .status_outstanding());

  // ARID 1: TX buffer reads
  fabnic_dma_rd #(.AXI_DATA_W(DATA_W), .ID_W(AXI_ID_W), .MAX_BURST_LEN(MBL),
                  .MAX_OUTSTANDING(16), .DESC_DEPTH(16), .AXI_ID(AXI_ID_W'(1))) u_trd (
      .clk, .rst,
      .s_desc_addr(trd_addr), .s_desc_len(trd_len), .s_desc_tag(trd_tag),
      .s_desc_valid(trd_v), .s_desc_ready(trd_r),
      .m_cpl_tag(trd_ctag), .m_cpl_status(trd_cs), .m_cpl_valid(trd_cv), .m_cpl_ready(trd_cr),
      .m_axis_tdata(trd_d), .m_axis_tkeep(trd_k), .m_axis_tvalid(trd_sv),
      .m_axis_tready(trd_sr), .m_axis_tlast(trd_sl), .m_axis_tid(unused_trd_tid),
      .m_axis_tuser(trd_su),
      .m_axi_arid(ar_id[1]), .m_axi_araddr(ar_addr[1]), .m_axi_arlen(ar_len[1]),
      .m_axi_arsize(ar_size[1]), .m_axi_arburst(ar_burst[1]), .m_axi_arlock(unused_ar_lock[1]),
      .m_axi_arcache(unused_ar_cache[1]), .m_axi_arprot(unused_ar_prot[1]),
      .m_axi_arvalid(ar_valid[1]), .m_axi_arready(ar_ready[1]),
      .m_axi_rid(m_axi_rid), .m_axi_rdata(r_data), .m_axi_rresp(r_resp), .m_axi_rlast(r_last),
      .m_axi_rvalid(r_valid[1]), .m_axi_rready(r_ready[1]), .status_outstanding());

  fabnic_axi_rd_mux #(.N(2), .ID_W(AXI_ID_W), .ADDR_W(64), .DATA_W(DATA_W)) u_rd_mux (
      .clk, .rst,
      .s_arid(ar_id), .s_araddr(ar_addr), .s_arlen(ar_len), .s_arsize(ar_size),
      .s_arburst(ar_burst), .s_arvalid(ar_valid), .s_arready(ar_ready),
      .s_rdata(r_data), .s_rresp(r_resp), .s_rlast(r_last), .s_rvalid(r_valid),
      .s_rready(r_ready),
      .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst,
      .m_axi_arvalid, .m_axi_arready, .m_axi_rid, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast,
      .m_axi_rvalid, .m_axi_rready);

  // AWID 0: ring writes (used elements, used->idx, control acks)
  fabnic_dma_wr #(.AXI_DATA_W(DATA_W), .ID_W(AXI_ID_W), .MAX_BURST_LEN(MBL),
                  .MAX_OUTSTANDING(16), .DESC_DEPTH(16), .AXI_ID(AXI_ID_W'(0))) u_qwr (
      .clk, .rst,
      .s_desc_addr(qwr_addr), .s_desc_len(qwr_len), .s_desc_tag(qwr_tag),
      .s_desc_valid(qwr_v), .s_desc_ready(qwr_r),
      .m_cpl_tag(qwr_ctag), .m_cpl_status(qwr_cs), .m_cpl_valid(qwr_cv), .m_cpl_ready(qwr_cr),
      .s_axis_tdata(qwr_d), .s_axis_tkeep(qwr_k), .s_axis_tvalid(qwr_sv),
      .s_axis_tready(qwr_sr), .s_axis_tlast(qwr_sl),
      .m_axi_awid(aw_id[0]), .m_axi_awaddr(aw_addr[0]), .m_axi_awlen(aw_len[0]),
      .m_axi_awsize(aw_size[0]), .m_axi_awburst(aw_burst[0]), .m_axi_awlock(unused_aw_lock[0]),
      .m_axi_awcache(unused_aw_cache[0]), .m_axi_awprot(unused_aw_prot[0]),
      .m_axi_awvalid(aw_valid[0]), .m_axi_awready(aw_ready[0]),
      .m_axi_wdata(w_data[0]), .m_axi_wstrb(w_strb[0]), .m_axi_wlast(w_last[0]),
      .m_axi_wvalid(w_valid[0]), .m_axi_wready(w_ready[0]),
      .m_axi_bid(m_axi_bid), .m_axi_bresp(b_resp), .m_axi_bvalid(b_valid[0]),
      .m_axi_bready(b_ready[0]), .status_outstanding(), .status_len_mismatch(unused_lm[0]));

  // AWID 1: RX buffer writes (virtio_net_hdr + frame)
  fabnic_dma_wr #(.AXI_DATA_W(DATA_W), .ID_W(AXI_ID_W), .MAX_BURST_LEN(MBL),
                  .MAX_OUTSTANDING(16), .DESC_DEPTH(16), .AXI_ID(AXI_ID_W'(1))) u_rwr (
      .clk, .rst,
      .s_desc_addr(rwr_addr), .s_desc_len(rwr_len), .s_desc_tag(rwr_tag),
      .s_desc_valid(rwr_v), .s_desc_ready(rwr_r),
      .m_cpl_tag(rwr_ctag), .m_cpl_status(rwr_cs), .m_cpl_valid(rwr_cv), .m_cpl_ready(rwr_cr),
      .s_axis_tdata(rwr_d), .s_axis_tkeep(rwr_k), .s_axis_tvalid(rwr_sv),
      .s_axis_tready(rwr_sr), .s_axis_tlast(rwr_sl),
      .m_axi_awid(aw_id[1]), .m_axi_awaddr(aw_addr[1]), .m_axi_awlen(aw_len[1]),
      .m_axi_awsize(aw_size[1]), .m_axi_awburst(aw_burst[1]), .m_axi_awlock(unused_aw_lock[1]),
      .m_axi_awcache(unused_aw_cache[1]), .m_axi_awprot(unused_aw_prot[1]),
      .m_axi_awvalid(aw_valid[1]), .m_axi_awready(aw_ready[1]),
      .m_axi_wdata(w_data[1]), .m_axi_wstrb(w_strb[1]), .m_axi_wlast(w_last[1]),
      .m_axi_wvalid(w_valid[1]), .m_axi_wready(w_ready[1]),
      .m_axi_bid(m_axi_bid), .m_axi_bresp(b_resp), .m_axi_bvalid(b_valid[1]),
      .m_axi_bready(b_ready[1]), .status_outstanding(), .status_len_mismatch(unused_lm[1]));

  fabnic_vnic_axi_wr_mux #(.N(2), .ID_W(AXI_ID_W), .ADDR_W(64), .DATA_W(DATA_W)) u_wr_mux (
      .clk, .rst,
      .s_awid(aw_id), .s_awaddr(aw_addr), .s_awlen(aw_len), .s_awsize(aw_size),
      .s_awburst(aw_burst), .s_awvalid(aw_valid), .s_awready(aw_ready),
      .s_wdata(w_data), .s_wstrb(w_strb), .s_wlast(w_last), .s_wvalid(w_valid),
      .s_wready(w_ready), .s_bresp(b_resp), .s_bvalid(b_valid), .s_bready(b_ready),
      .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
      .m_axi_awvalid, .m_axi_awready, .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast,
      .m_axi_wvalid, .m_axi_wready, .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready);

  assign m_axi_awlock  = 1'b0;
  assign m_axi_awcache = 4'b0011;
  assign m_axi_awprot  = 3'b000;
  assign m_axi_arlock  = 1'b0;
  assign m_axi_arcache = 4'b0011;
  assign m_axi_arprot  = 3'b000;

  logic unused_bits;
  assign unused_bits = ^{unused_to, buf_write, unused_drv_feat, unused_drv_ok, vio_bad_notify,
                         vio_ignored, unused_qrd_tid, unused_trd_tid, unused_q_pending,
                         unused_cnt_err, unused_cnt_stat, unused_ctrl_pairs, unused_ctrl_ok,
                         unused_ctrl_err, vt_tuser[16:1], unused_gr_vni, unused_gr_flood,
                         unused_ar_lock, unused_ar_cache[0], unused_ar_cache[1],
                         unused_ar_prot[0], unused_ar_prot[1], unused_aw_lock,
                         unused_aw_cache[0], unused_aw_cache[1], unused_aw_prot[0],
                         unused_aw_prot[1], unused_lm, qp_vni};

endmodule

`resetall
