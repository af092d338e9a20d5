// SPDX-License-Identifier: Apache-2.0
//
// fabnic_nic: the complete NIC (docs/nic.md): RoCE transport + virtio-net device with
// VXLAN VTEP / vSwitch + per-QP VNI binding, on one wire port (DATA_W = 512).
//
//   wire RX s_mac_rx -> split (first beat): UDP 4791 -> fabnic_roce_vni plain input
//                                           anything else -> fabnic_vnic_dev (VXLAN; other
//                                           frames are dropped there as drop_outer)
//   fabnic_vnic_dev m_roce (decapsulated, ACT_ROCE) -> fabnic_roce_vni tunnel input
//   fabnic_roce_vni m_rx -> fabnic_roce_core s_axis_rx
//   fabnic_roce_core m_axis_tx (+ tqpn) -> fabnic_roce_vni: bound QP -> fabnic_vnic_dev
//                                          s_rtx (VNI); unbound -> plain
//   wire TX m_mac_tx <- frame-atomic round robin {fabnic_vnic_dev m_mac_tx, plain RoCE}
//
// AXI-Lite (one slave, 25-bit addresses):
//   0x0000000..0x0FFFFFF fabnic_roce_core (map "roce", doorbells 0x100000..)
//   0x1000000..0x100FFFF fabnic_vnic_dev (its 16-bit window)
//   0x1010000..0x10100FF map "nic" (fabnic_regs_nic: binding table, counters)
//   anything else: SLVERR
// AXI4: two masters: m_axi_* = the RoCE engine's host memory, m_vio_axi_* = the virtio
// device's guest memory (each keeps its own ID use).
`default_nettype none

module fabnic_nic #(
    parameter int DATA_W      = 512,
    parameter int KEEP_W      = DATA_W / 8,
    parameter int NUM_QP      = 1024,
    parameter int NUM_CQ      = 256,
    parameter int NUM_MR      = 1024,
    parameter int AXI_ID_W    = 4,
    parameter int PAIRS       = 2,
    parameter int VS_ENTRIES  = 1024,
    parameter int VNI_ENTRIES = 16,
    parameter int TUN_ENTRIES = 16,
    parameter int RX_DEPTH    = 16       // fabnic_roce_vni RX beat FIFO
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [24:0]           s_axil_awaddr,
    input  wire logic [2:0]            s_axil_awprot,
    input  wire logic                  s_axil_awvalid,
    output logic                       s_axil_awready,
    input  wire logic [31:0]           s_axil_wdata,
    input  wire logic [3:0]            s_axil_wstrb,
    input  wire logic                  s_axil_wvalid,
    output logic                       s_axil_wready,
    output logic [1:0]                 s_axil_bresp,
    output logic                       s_axil_bvalid,
    input  wire logic                  s_axil_bready,
    input  wire logic [24:0]           s_axil_araddr,
    input  wire logic [2:0]            s_axil_arprot,
    input  wire logic                  s_axil_arvalid,
    output logic                       s_axil_arready,
    output logic [31:0]                s_axil_rdata,
    output logic [1:0]                 s_axil_rresp,
    output logic                       s_axil_rvalid,
    input  wire logic                  s_axil_rready,

    // ---- AXI4 master: RoCE engine: host memory
    output logic [AXI_ID_W-1:0]       m_axi_awid,
    output logic [63:0]               m_axi_awaddr,
    output logic [7:0]                m_axi_awlen,
    output logic [2:0]                m_axi_awsize,
    output logic [1:0]                m_axi_awburst,
    output logic                      m_axi_awlock,
    output logic [3:0]                m_axi_awcache,
    output logic [2:0]                m_axi_awprot,
    output logic                      m_axi_awvalid,
    input  wire logic                 m_axi_awready,
    output logic [DATA_W-1:0]         m_axi_wdata,
    output logic [KEEP_W-1:0]         m_axi_wstrb,
    output logic                      m_axi_wlast,
    output logic                      m_axi_wvalid,
    input  wire logic                 m_axi_wready,
    input  wire logic [AXI_ID_W-1:0]  m_axi_bid,
    input  wire logic [1:0]           m_axi_bresp,
    input  wire logic                 m_axi_bvalid,
    output logic                      m_axi_bready,
    output logic [AXI_ID_W-1:0]       m_axi_arid,
    output logic [63:0]               m_axi_araddr,
    output logic [7:0]                m_axi_arlen,
    output logic [2:0]                m_axi_arsize,
    output logic [1:0]                m_axi_arburst,
    output logic                      m_axi_arlock,
    output logic [3:0]                m_axi_arcache,
    output logic [2:0]                m_axi_arprot,
    output logic                      m_axi_arvalid,
    input  wire logic                 m_axi_arready,
    input  wire logic [AXI_ID_W-1:0]  m_axi_rid,
    input  wire logic [DATA_W-1:0]    m_axi_rdata,
    input  wire logic [1:0]           m_axi_rresp,
    input  wire logic                 m_axi_rlast,
    input  wire logic                 m_axi_rvalid,
    output logic                      m_axi_rready,

    // ---- AXI4 master: virtio device: guest memory
    output logic [AXI_ID_W-1:0]       m_vio_axi_awid,
    output logic [63:0]               m_vio_axi_awaddr,
    output logic [7:0]                m_vio_axi_awlen,
    output logic [2:0]                m_vio_axi_awsize,
    output logic [1:0]                m_vio_axi_awburst,
    output logic                      m_vio_axi_awlock,
    output logic [3:0]                m_vio_axi_awcache,
    output logic [2:0]                m_vio_axi_awprot,
    output logic                      m_vio_axi_awvalid,
    input  wire logic                 m_vio_axi_awready,
    output logic [DATA_W-1:0]         m_vio_axi_wdata,
    output logic [KEEP_W-1:0]         m_vio_axi_wstrb,
    output logic                      m_vio_axi_wlast,
    output logic                      m_vio_axi_wvalid,
    input  wire logic                 m_vio_axi_wready,
    input  wire logic [AXI_ID_W-1:0]  m_vio_axi_bid,
    input  wire logic [1:0]           m_vio_axi_bresp,
    input  wire logic                 m_vio_axi_bvalid,
    output logic                      m_vio_axi_bready,
    output logic [AXI_ID_W-1:0]       m_vio_axi_arid,
    output logic [63:0]               m_vio_axi_araddr,
    output logic [7:0]                m_vio_axi_arlen,
    output logic [2:0]                m_vio_axi_arsize,
    output logic [1:0]                m_vio_axi_arburst,
    output logic                      m_vio_axi_arlock,
    output logic [3:0]                m_vio_axi_arcache,
    output logic [2:0]                m_vio_axi_arprot,
    output logic                      m_vio_axi_arvalid,
    input  wire logic                 m_vio_axi_arready,
    input  wire logic [AXI_ID_W-1:0]  m_vio_axi_rid,
    input  wire logic [DATA_W-1:0]    m_vio_axi_rdata,
    input  wire logic [1:0]           m_vio_axi_rresp,
    input  wire logic                 m_vio_axi_rlast,
    input  wire logic                 m_vio_axi_rvalid,
    output logic                      m_vio_axi_rready,

    // ---- wire (frames without FCS, tuser = bad)
    input  wire logic [DATA_W-1:0]     s_mac_rx_tdata,
    input  wire logic [KEEP_W-1:0]     s_mac_rx_tkeep,
    input  wire logic                  s_mac_rx_tvalid,
    output logic                       s_mac_rx_tready,
    input  wire logic                  s_mac_rx_tlast,
    input  wire logic                  s_mac_rx_tuser,
    output logic [DATA_W-1:0]          m_mac_tx_tdata,
    output logic [KEEP_W-1:0]          m_mac_tx_tkeep,
    output logic                       m_mac_tx_tvalid,
    input  wire logic                  m_mac_tx_tready,
    output logic                       m_mac_tx_tlast,
    output logic                       m_mac_tx_tuser,

    // ---- interrupts and virtio device configuration
    output logic                       m_irq_valid,     // RoCE CQ interrupts
    output logic [15:0]                m_irq_vector,
    input  wire logic [47:0]           dev_mac,         // virtio device MAC
    input  wire logic                  link_up,
    output logic                       vio_irq_valid,   // virtio queue interrupts
    output logic [15:0]                vio_irq_vector,
    output logic                       vio_cfg_irq_valid,
    output logic [15:0]                vio_cfg_irq_vector,
    output logic                       init_done        // binding and vSwitch tables cleared
);

  if (DATA_W != 512 || KEEP_W != DATA_W / 8) begin : g_chk
    $error("fabnic_nic: DATA_W must be 512 (fabnic_roce_core, first-beat RX split)");
  end

  // =====================================================================
  // AXI-Lite: one slave, decoded on the request bus
  // =====================================================================
  logic        rq_valid, rq_write, ak_valid, ak_err, unused_axil_to;
  logic [24:0] rq_addr;
  logic [31:0] rq_wdata, ak_rdata;
  logic [3:0]  rq_wstrb;

  fabnic_axil_slave #(.ADDR_W(25), .TIMEOUT(0)) u_axil (
      .clk, .rst,
      .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
      .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
      .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
      .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
      .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
      .req_valid(rq_valid), .req_write(rq_write), .req_addr(rq_addr), .req_wdata(rq_wdata),
      .req_wstrb(rq_wstrb), .ack_valid(ak_valid), .ack_rdata(ak_rdata), .ack_err(ak_err),
      .status_timeout(unused_axil_to)
  );

  logic sel_roce, sel_vnic, sel_regs, unm_q;
  assign sel_roce = !rq_addr[24];
  assign sel_vnic = rq_addr[24] && rq_addr[23:16] == 8'h00;
  assign sel_regs = rq_addr[24] && rq_addr[23:16] == 8'h01;
  always_ff @(posedge clk) begin
    unm_q <= rq_valid && !sel_roce && !sel_vnic && !sel_regs;
    if (rst) unm_q <= 1'b0;
  end

  logic        rb_ack, rb_err, vb_ack, vb_err, rg_ack, rg_err;
  logic [31:0] rb_rdata, vb_rdata, rg_rdata;
  assign ak_valid = rb_ack || vb_ack || rg_ack || unm_q;
  assign ak_err   = rb_ack ? rb_err : vb_ack ? vb_err : rg_ack ? rg_err : 1'b1;
  assign ak_rdata = rb_ack ? rb_rdata : vb_ack ? vb_rdata : rg_ack ? rg_rdata : 32'd0;

  // roce core's AXI-Lite
  logic [23:0] ra_awaddr, ra_araddr;
  logic [2:0]  ra_awprot, ra_arprot;
  logic        ra_awvalid, ra_awready, ra_wvalid, ra_wready, ra_bvalid, ra_bready;
  logic        ra_arvalid, ra_arready, ra_rvalid, ra_rready;
  logic [31:0] ra_wdata, ra_rdata;
  logic [3:0]  ra_wstrb;
  logic [1:0]  ra_bresp, ra_rresp;
  fabnic_vnic_axil_bridge #(.ADDR_W(24)) u_rbr (
      .clk, .rst, .req_valid(rq_valid && sel_roce), .req_write(rq_write),
      .req_addr(rq_addr[23:0]), .req_wdata(rq_wdata), .req_wstrb(rq_wstrb),
      .ack_valid(rb_ack), .ack_rdata(rb_rdata), .ack_err(rb_err),
      .m_axil_awaddr(ra_awaddr), .m_axil_awprot(ra_awprot), .m_axil_awvalid(ra_awvalid),
      .m_axil_awready(ra_awready), .m_axil_wdata(ra_wdata), .m_axil_wstrb(ra_wstrb),
      .m_axil_wvalid(ra_wvalid), .m_axil_wready(ra_wready), .m_axil_bresp(ra_bresp),
      .m_axil_bvalid(ra_bvalid), .m_axil_bready(ra_bready), .m_axil_araddr(ra_araddr),
      .m_axil_arprot(ra_arprot), .m_axil_arvalid(ra_arvalid), .m_axil_arready(ra_arready),
      .m_axil_rdata(ra_rdata), .m_axil_rresp(ra_rresp), .m_axil_rvalid(ra_rvalid),
      .m_axil_rready(ra_rready)
  );

  // vnic_dev's AXI-Lite
  logic [15:0] va_awaddr, va_araddr;
  logic [2:0]  va_awprot, va_arprot;
  logic        va_awvalid, va_awready, va_wvalid, va_wready, va_bvalid, va_bready;
  logic        va_arvalid, va_arready, va_rvalid, va_rready;
  logic [31:0] va_wdata, va_rdata;
  logic [3:0]  va_wstrb;
  logic [1:0]  va_bresp, va_rresp;
  fabnic_vnic_axil_bridge #(.ADDR_W(16)) u_vbr (
      .clk, .rst, .req_valid(rq_valid && sel_vnic), .req_write(rq_write),
      .req_addr(rq_addr[15:0]), .req_wdata(rq_wdata), .req_wstrb(rq_wstrb),
      .ack_valid(vb_ack), .ack_rdata(vb_rdata), .ack_err(vb_err),
      .m_axil_awaddr(va_awaddr), .m_axil_awprot(va_awprot), .m_axil_awvalid(va_awvalid),
      .m_axil_awready(va_awready), .m_axil_wdata(va_wdata), .m_axil_wstrb(va_wstrb),
      .m_axil_wvalid(va_wvalid), .m_axil_wready(va_wready), .m_axil_bresp(va_bresp),
      .m_axil_bvalid(va_bvalid), .m_axil_bready(va_bready), .m_axil_araddr(va_araddr),
      .m_axil_arprot(va_arprot), .m_axil_arvalid(va_arvalid), .m_axil_arready(va_arready),
      .m_axil_rdata(va_rdata), .m_axil_rresp(va_rresp), .m_axil_rvalid(va_rvalid),
      .m_axil_rready(va_rready)
  );

  // this top's registers
  logic        bind_we;
  logic [23:0] bind_qp, bind_rd_vni;
  logic [24:0] bind_data;
  logic        bind_rd_bound, bv_init, vs_init;
  logic [31:0] c_rx_roce, c_rx_vxlan, c_rx_other, c_tx_wire;
  logic [31:0] c_tx_plain, c_tx_tun, c_rx_plain, c_rx_tun, c_vni_mis, c_unb_tun, c_bnd_plain,
               c_not_roce;
  fabnic_regs_nic #(.ADDR_W(16), .NUM_QP(NUM_QP)) u_regs (
      .clk, .rst, .req_valid(rq_valid && sel_regs), .req_write(rq_write),
      .req_addr(rq_addr[15:0]), .req_wdata(rq_wdata), .req_wstrb(rq_wstrb),
      .ack_valid(rg_ack), .ack_rdata(rg_rdata), .ack_err(rg_err),
      .sts_nic_status({vs_init, bv_init}),
      .cfg_nic_bind_qp(bind_qp), .cmd_nic_bind(bind_we), .cmd_nic_bind_data(bind_data),
      .sts_nic_bind_rd({bind_rd_bound, bind_rd_vni}),
      .sts_nic_rx_wire_roce(c_rx_roce), .sts_nic_rx_wire_vxlan(c_rx_vxlan),
      .sts_nic_rx_wire_other(c_rx_other), .sts_nic_tx_wire(c_tx_wire),
      .sts_nic_tx_plain(c_tx_plain), .sts_nic_tx_tunnel(c_tx_tun),
      .sts_nic_rx_plain(c_rx_plain), .sts_nic_rx_tunnel(c_rx_tun),
      .sts_nic_drop_vni_mismatch(c_vni_mis), .sts_nic_drop_unbound_tun(c_unb_tun),
      .sts_nic_drop_bound_plain(c_bnd_plain), .sts_nic_drop_not_roce(c_not_roce)
  );
  assign init_done = bv_init && vs_init;

  // =====================================================================
  // RoCE core
  // =====================================================================
  logic [DATA_W-1:0] etx_tdata, erx_tdata;
  logic [KEEP_W-1:0] etx_tkeep, erx_tkeep;
  logic              etx_tvalid, etx_tready, etx_tlast, etx_tuser;
  logic              erx_tvalid, erx_tready, erx_tlast, erx_tuser;
  logic [23:0]       etx_tqpn;

  fabnic_roce_core #(.DATA_W(DATA_W), .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR),
                     .AXI_ID_W(AXI_ID_W)) u_roce (
      .clk, .rst,
      .s_axil_awaddr(ra_awaddr), .s_axil_awprot(ra_awprot), .s_axil_awvalid(ra_awvalid),
      .s_axil_awready(ra_awready), .s_axil_wdata(ra_wdata), .s_axil_wstrb(ra_wstrb),
      .s_axil_wvalid(ra_wvalid), .s_axil_wready(ra_wready), .s_axil_bresp(ra_bresp),
      .s_axil_bvalid(ra_bvalid), .s_axil_bready(ra_bready), .s_axil_araddr(ra_araddr),
      .s_axil_arprot(ra_arprot), .s_axil_arvalid(ra_arvalid), .s_axil_arready(ra_arready),
      .s_axil_rdata(ra_rdata), .s_axil_rresp(ra_rresp), .s_axil_rvalid(ra_rvalid),
      .s_axil_rready(ra_rready),
      .m_axi_awid(m_axi_awid), .m_axi_awaddr(m_axi_awaddr), .m_axi_awlen(m_axi_awlen),
      .m_axi_awsize(m_axi_awsize), .m_axi_awburst(m_axi_awburst), .m_axi_awlock(m_axi_awlock),
      .m_axi_awcache(m_axi_awcache), .m_axi_awprot(m_axi_awprot),
      .m_axi_awvalid(m_axi_awvalid), .m_axi_awready(m_axi_awready), .m_axi_wdata(m_axi_wdata),
      .m_axi_wstrb(m_axi_wstrb), .m_axi_wlast(m_axi_wlast), .m_axi_wvalid(m_axi_wvalid),
      .m_axi_wready(m_axi_wready), .m_axi_bid(m_axi_bid), .m_axi_bresp(m_axi_bresp),
      .m_axi_bvalid(m_axi_bvalid), .m_axi_bready(m_axi_bready), .m_axi_arid(m_axi_arid),
      .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen), .m_axi_arsize(m_axi_arsize),
      .m_axi_arburst(m_axi_arburst), .m_axi_arlock(m_axi_arlock),
      .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot),
      .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready), .m_axi_rid(m_axi_rid),
      .m_axi_rdata(m_axi_rdata), .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast),
      .m_axi_rvalid(m_axi_rvalid), .m_axi_rready(m_axi_rready),
      .m_axis_tx_tdata(etx_tdata), .m_axis_tx_tkeep(etx_tkeep), .m_axis_tx_tvalid(etx_tvalid),
      .m_axis_tx_tready(etx_tready), .m_axis_tx_tlast(etx_tlast), .m_axis_tx_tuser(etx_tuser),
      .m_axis_tx_tqpn(etx_tqpn),
      .s_axis_rx_tdata(erx_tdata), .s_axis_rx_tkeep(erx_tkeep), .s_axis_rx_tvalid(erx_tvalid),
      .s_axis_rx_tready(erx_tready), .s_axis_rx_tlast(erx_tlast), .s_axis_rx_tuser(erx_tuser),
      .m_irq_valid, .m_irq_vector,
      // no FEC shim on this port: settings unused, counters read 0
      .fec_mode(), .fec_k(), .fec_r(), .fec_d(), .fec_flush_cycles(), .fec_rob_timeout(),
      .fec_rx_bypass(),
      .fec_nak_delay(), .fec_nak_retry(), .fec_qp_we(), .fec_qp_idx(), .fec_qp_val(),
      .fec_stat('0)
  );

  // =====================================================================
  // virtio-net + VXLAN device
  // =====================================================================
  logic [DATA_W-1:0] vrx_tdata, vtx_tdata, vro_tdata, vrt_tdata;
  logic [KEEP_W-1:0] vrx_tkeep, vtx_tkeep, vro_tkeep, vrt_tkeep;
  logic              vrx_tvalid, vrx_tready, vrx_tlast, vrx_tuser;
  logic              vtx_tvalid, vtx_tready, vtx_tlast, vtx_tuser;
  logic              vro_tvalid, vro_tready, vro_tlast, vro_tuser;
  logic              vrt_tvalid, vrt_tready, vrt_tlast, vrt_tuser;
  logic [23:0]       vro_vni, vrt_vni;
  logic              unused_vro_v6;
  logic [127:0]      unused_vro_ip;
  logic [15:0]       unused_vro_port;
  logic [1:0]        unused_vro_ecn;

  fabnic_vnic_dev #(.DATA_W(DATA_W), .ADDR_W(16), .PAIRS(PAIRS), .AXI_ID_W(AXI_ID_W),
                    .ENTRIES(VS_ENTRIES), .VNI_ENTRIES(VNI_ENTRIES),
                    .TUN_ENTRIES(TUN_ENTRIES)) u_vnic (
      .clk, .rst, .init_done(vs_init),
      .s_axil_awaddr(va_awaddr), .s_axil_awprot(va_awprot), .s_axil_awvalid(va_awvalid),
      .s_axil_awready(va_awready), .s_axil_wdata(va_wdata), .s_axil_wstrb(va_wstrb),
      .s_axil_wvalid(va_wvalid), .s_axil_wready(va_wready), .s_axil_bresp(va_bresp),
      .s_axil_bvalid(va_bvalid), .s_axil_bready(va_bready), .s_axil_araddr(va_araddr),
      .s_axil_arprot(va_arprot), .s_axil_arvalid(va_arvalid), .s_axil_arready(va_arready),
      .s_axil_rdata(va_rdata), .s_axil_rresp(va_rresp), .s_axil_rvalid(va_rvalid),
      .s_axil_rready(va_rready),
      .dev_mac, .link_up, .irq_valid(vio_irq_valid), .irq_vector(vio_irq_vector),
      .irq_queue(), .cfg_irq_valid(vio_cfg_irq_valid), .cfg_irq_vector(vio_cfg_irq_vector),
      .device_status(),
      .m_axi_awid(m_vio_axi_awid), .m_axi_awaddr(m_vio_axi_awaddr),
      .m_axi_awlen(m_vio_axi_awlen), .m_axi_awsize(m_vio_axi_awsize),
      .m_axi_awburst(m_vio_axi_awburst), .m_axi_awlock(m_vio_axi_awlock),
      .m_axi_awcache(m_vio_axi_awcache), .m_axi_awprot(m_vio_axi_awprot),
      .m_axi_awvalid(m_vio_axi_awvalid), .m_axi_awready(m_vio_axi_awready),
      .m_axi_wdata(m_vio_axi_wdata), .m_axi_wstrb(m_vio_axi_wstrb),
      .m_axi_wlast(m_vio_axi_wlast), .m_axi_wvalid(m_vio_axi_wvalid),
      .m_axi_wready(m_vio_axi_wready), .m_axi_bid(m_vio_axi_bid),
      .m_axi_bresp(m_vio_axi_bresp), .m_axi_bvalid(m_vio_axi_bvalid),
      .m_axi_bready(m_vio_axi_bready), .m_axi_arid(m_vio_axi_arid),
      .m_axi_araddr(m_vio_axi_araddr), .m_axi_arlen(m_vio_axi_arlen),
      .m_axi_arsize(m_vio_axi_arsize), .m_axi_arburst(m_vio_axi_arburst),
      .m_axi_arlock(m_vio_axi_arlock), .m_axi_arcache(m_vio_axi_arcache),
      .m_axi_arprot(m_vio_axi_arprot), .m_axi_arvalid(m_vio_axi_arvalid),
      .m_axi_arready(m_vio_axi_arready), .m_axi_rid(m_vio_axi_rid),
      .m_axi_rdata(m_vio_axi_rdata), .m_axi_rresp(m_vio_axi_rresp),
      .m_axi_rlast(m_vio_axi_rlast), .m_axi_rvalid(m_vio_axi_rvalid),
      .m_axi_rready(m_vio_axi_rready),
      .s_mac_rx_tdata(vrx_tdata), .s_mac_rx_tkeep(vrx_tkeep), .s_mac_rx_tvalid(vrx_tvalid),
      .s_mac_rx_tready(vrx_tready), .s_mac_rx_tlast(vrx_tlast), .s_mac_rx_tuser(vrx_tuser),
      .m_mac_tx_tdata(vtx_tdata), .m_mac_tx_tkeep(vtx_tkeep), .m_mac_tx_tvalid(vtx_tvalid),
      .m_mac_tx_tready(vtx_tready), .m_mac_tx_tlast(vtx_tlast), .m_mac_tx_tuser(vtx_tuser),
      .m_roce_tdata(vro_tdata), .m_roce_tkeep(vro_tkeep), .m_roce_tvalid(vro_tvalid),
      .m_roce_tready(vro_tready), .m_roce_tlast(vro_tlast), .m_roce_tuser(vro_tuser),
      .m_roce_vni(vro_vni), .m_roce_outer_ipv6(unused_vro_v6),
      .m_roce_outer_src_ip(unused_vro_ip), .m_roce_outer_src_port(unused_vro_port),
      .m_roce_outer_ecn(unused_vro_ecn),
      .s_rtx_tdata(vrt_tdata), .s_rtx_tkeep(vrt_tkeep), .s_rtx_tvalid(vrt_tvalid),
      .s_rtx_tready(vrt_tready), .s_rtx_tlast(vrt_tlast), .s_rtx_tuser(vrt_tuser),
      .s_rtx_vni(vrt_vni)
  );

  // =====================================================================
  // per-QP VNI binding
  // =====================================================================
  logic [DATA_W-1:0] prx_tdata, ptx_tdata;
  logic [KEEP_W-1:0] prx_tkeep, ptx_tkeep;
  logic              prx_tvalid, prx_tready, prx_tlast, prx_tuser;
  logic              ptx_tvalid, ptx_tready, ptx_tlast, ptx_tuser;

  fabnic_roce_vni #(.DATA_W(DATA_W), .NUM_QP(NUM_QP), .RX_DEPTH(RX_DEPTH), .CNT_W(32)) u_bind (
      .clk, .rst, .init_done(bv_init),
      .cfg_we(bind_we), .cfg_qpn(bind_qp), .cfg_bound(bind_data[24]), .cfg_vni(bind_data[23:0]),
      .cfg_rd_qpn(bind_qp), .cfg_rd_bound(bind_rd_bound), .cfg_rd_vni(bind_rd_vni),
      .s_tx_tdata(etx_tdata), .s_tx_tkeep(etx_tkeep), .s_tx_tvalid(etx_tvalid),
      .s_tx_tready(etx_tready), .s_tx_tlast(etx_tlast), .s_tx_tuser(etx_tuser),
      .s_tx_tqpn(etx_tqpn),
      .m_wire_tdata(ptx_tdata), .m_wire_tkeep(ptx_tkeep), .m_wire_tvalid(ptx_tvalid),
      .m_wire_tready(ptx_tready), .m_wire_tlast(ptx_tlast), .m_wire_tuser(ptx_tuser),
      .m_rtx_tdata(vrt_tdata), .m_rtx_tkeep(vrt_tkeep), .m_rtx_tvalid(vrt_tvalid),
      .m_rtx_tready(vrt_tready), .m_rtx_tlast(vrt_tlast), .m_rtx_tuser(vrt_tuser),
      .m_rtx_vni(vrt_vni),
      .s_plain_tdata(prx_tdata), .s_plain_tkeep(prx_tkeep), .s_plain_tvalid(prx_tvalid),
      .s_plain_tready(prx_tready), .s_plain_tlast(prx_tlast), .s_plain_tuser(prx_tuser),
      .s_tun_tdata(vro_tdata), .s_tun_tkeep(vro_tkeep), .s_tun_tvalid(vro_tvalid),
      .s_tun_tready(vro_tready), .s_tun_tlast(vro_tlast), .s_tun_tuser(vro_tuser),
      .s_tun_vni(vro_vni),
      .m_rx_tdata(erx_tdata), .m_rx_tkeep(erx_tkeep), .m_rx_tvalid(erx_tvalid),
      .m_rx_tready(erx_tready), .m_rx_tlast(erx_tlast), .m_rx_tuser(erx_tuser),
      .cnt_tx_plain(c_tx_plain), .cnt_tx_tunnel(c_tx_tun), .cnt_rx_plain(c_rx_plain),
      .cnt_rx_tunnel(c_rx_tun), .cnt_drop_vni_mismatch(c_vni_mis),
      .cnt_drop_unbound_tun(c_unb_tun), .cnt_drop_bound_plain(c_bnd_plain),
      .cnt_drop_not_roce(c_not_roce)
  );

  // =====================================================================
  // wire RX split: decided on the first beat (all of Eth [+802.1Q] / IPv4 without
  // options beyond 40 bytes, or IPv6 / UDP ports lie in it)
  // =====================================================================
  localparam logic [1:0] R_VNIC = 2'd0, R_ROCE = 2'd1, R_OTHER = 2'd2;
  logic       rx_first_q;
  logic [1:0] rx_route_q, rx_cls;

  function automatic logic [7:0] bt(input logic [DATA_W-1:0] d, input int i);
    return d[8*i +: 8];
  endfunction

  always_comb begin
    logic        vlan, v4, v6, udp;
    logic [15:0] et, dport;
    int          l3, l4;
    logic [7:0]  vb;
    vlan = {bt(s_mac_rx_tdata, 12), bt(s_mac_rx_tdata, 13)} == fabnic_pkt_pkg::ETHERTYPE_VLAN;
    l3   = vlan ? 18 : 14;
    et   = vlan ? {bt(s_mac_rx_tdata, 16), bt(s_mac_rx_tdata, 17)}
                : {bt(s_mac_rx_tdata, 12), bt(s_mac_rx_tdata, 13)};
    vb   = bt(s_mac_rx_tdata, l3);
    v4   = et == fabnic_pkt_pkg::ETHERTYPE_IPV4 && vb[7:4] == 4'd4 && vb[3:0] >= 4'd5;
    v6   = et == fabnic_pkt_pkg::ETHERTYPE_IPV6 && vb[7:4] == 4'd6;
    l4   = v6 ? l3 + 40 : l3 + 4 * int'(vb[3:0]);
    udp  = (v4 && bt(s_mac_rx_tdata, l3 + 9) == fabnic_pkt_pkg::IP_PROTO_UDP
            && {bt(s_mac_rx_tdata, l3 + 6) & 8'h3F, bt(s_mac_rx_tdata, l3 + 7)} == 16'd0)
           || (v6 && bt(s_mac_rx_tdata, l3 + 6) == fabnic_pkt_pkg::IP_PROTO_UDP);
    dport = '0;
    if (l4 + 3 < KEEP_W) dport = {bt(s_mac_rx_tdata, l4 + 2), bt(s_mac_rx_tdata, l4 + 3)};
    else udp = 1'b0;
    if (udp && dport == fabnic_pkt_pkg::UDP_PORT_ROCEV2) rx_cls = R_ROCE;
    else if (udp && dport == fabnic_pkt_pkg::UDP_PORT_VXLAN) rx_cls = R_VNIC;
    else rx_cls = R_OTHER;
  end

  logic [1:0] rx_route;
  logic       rx_fire;
  assign rx_route = rx_first_q ? rx_cls : rx_route_q;
  assign prx_tdata = s_mac_rx_tdata;
  assign prx_tkeep = s_mac_rx_tkeep;
  assign prx_tlast = s_mac_rx_tlast;
  assign prx_tuser = s_mac_rx_tuser;
  assign vrx_tdata = s_mac_rx_tdata;
  assign vrx_tkeep = s_mac_rx_tkeep;
  assign vrx_tlast = s_mac_rx_tlast;
  assign vrx_tuser = s_mac_rx_tuser;
  assign prx_tvalid = s_mac_rx_tvalid && rx_route == R_ROCE;
  assign vrx_tvalid = s_mac_rx_tvalid && rx_route != R_ROCE;
  assign s_mac_rx_tready = (rx_route == R_ROCE) ? prx_tready : vrx_tready;
  assign rx_fire = s_mac_rx_tvalid && s_mac_rx_tready;

  always_ff @(posedge clk) begin
    if (rx_fire) begin
      rx_first_q <= s_mac_rx_tlast;
      if (rx_first_q) begin
        rx_route_q <= rx_cls;
        if (rx_cls == R_ROCE) c_rx_roce <= c_rx_roce + 1'b1;
        else if (rx_cls == R_VNIC) c_rx_vxlan <= c_rx_vxlan + 1'b1;
        else c_rx_other <= c_rx_other + 1'b1;
      end
    end
    if (m_mac_tx_tvalid && m_mac_tx_tready && m_mac_tx_tlast) c_tx_wire <= c_tx_wire + 1'b1;
    if (rst) begin
      rx_first_q <= 1'b1;
      rx_route_q <= R_VNIC;
      c_rx_roce  <= '0;
      c_rx_vxlan <= '0;
      c_rx_other <= '0;
      c_tx_wire  <= '0;
    end
  end

  // =====================================================================
  // wire TX merge: vSwitch uplink and plain RoCE, frame-atomic round robin
  // =====================================================================
  logic unused_tx_sel;
  logic [1:0] tx_s_ready;
  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .USER_W(1)) u_tx_mux (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata({ptx_tdata, vtx_tdata}), .s_axis_tkeep({ptx_tkeep, vtx_tkeep}),
      .s_axis_tvalid({ptx_tvalid, vtx_tvalid}), .s_axis_tready(tx_s_ready),
      .s_axis_tlast({ptx_tlast, vtx_tlast}), .s_axis_tuser({ptx_tuser, vtx_tuser}),
      .m_axis_tdata(m_mac_tx_tdata), .m_axis_tkeep(m_mac_tx_tkeep),
      .m_axis_tvalid(m_mac_tx_tvalid), .m_axis_tready(m_mac_tx_tready),
      .m_axis_tlast(m_mac_tx_tlast), .m_axis_tuser(m_mac_tx_tuser), .sel(unused_tx_sel)
  );
  assign vtx_tready = tx_s_ready[0];
  assign ptx_tready = tx_s_ready[1];

endmodule

`resetall
