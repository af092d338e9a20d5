// SPDX-License-Identifier: Apache-2.0
//
// fabnic_u250_top: board top for the AMD Alveo U250 (xcu250-figd2104-2L-e): fabnic_nic
// on QSFP28 cage 0 at 100 G behind the hard CMAC, and on PCIe Gen3 x16 behind XDMA in
// AXI Bridge mode. Pins: constraints/alveo_u250.xdc; flow: fpga/alveo_u250/; notes:
// docs/synthesis.md, "Alveo U250 board target".
//
//   PCIe x16 <-> [xdma_0, AXI Bridge]  S_AXI_B <- host memory AXI4 (NIC DMA masters)
//                                       M_AXI_B -> BAR0 registers (NIC AXI-Lite + board)
//                                       usr_irq <- NIC interrupts
//                      axi_aclk 250 MHz = core clock
//                 [fabnic_u250_shell: fabnic_nic, AXI merge, BAR bridge, CDC FIFOs]
//                      gt_txusrclk2 322.265625 MHz = MAC clock
//   QSFP0 4x25G <-> [cmac_usplus_0, CAUI-4, RS-FEC] tx_axis / rx_axis (512 bits)
//
// Vendor blocks are instantiated by their own names (xdma_0, cmac_usplus_0, IBUFDS_GTE4,
// IBUFDS). For Verilator (lint) and other open tools the black-box stubs fabnic_bb_*.svh
// are included below; the Vivado flow defines FABNIC_VENDOR_IP and gets the real IP
// and primitives.
//
// Clocks
//   core:  XDMA axi_aclk, 250 MHz (Gen3 x16, 512-bit AXI). Chosen over an MMCM from a
//          board clock because every host-side interface (both AXI bridges, the
//          interrupts) is synchronous to it, so only the MAC side needs a crossing; the
//          NIC has nothing to do without the host, and PG195 notes that axi_aclk may
//          stop while axi_aresetn is asserted, which is when the core is in reset.
//   mac:   CMAC gt_txusrclk2, 322.265625 MHz; also the CMAC's rx_clk.
//   init:  USER_SI570_CLOCK, 156.25 MHz LVDS, free running from power-up: CMAC init_clk
//          and DRP clock, power-on reset, QSFP sideband, LEDs.
//   PCIe:  PEX_REFCLK 100 MHz through IBUFDS_GTE4 (O -> sys_clk_gt, ODIV2 -> sys_clk).
//
// Resets
//   init:  a counter of 2^POR_BITS init cycles after configuration (flops start at 0):
//          CMAC sys_reset, QSFP0 ResetL (>= 10 us; 2^16 cycles = 419 us).
//   core:  XDMA axi_aresetn (follows PCIe PERST# and link training), synchronized in the
//          shell. mac: CMAC usr_tx_reset / usr_rx_reset, synchronized in the shell.
//
// QSFP28 cage 0 carries the NIC. Cage 1 is constrained in the XDC but unused: its
// module is held in reset and low-power mode, its GTY lanes (quad 230) are left
// unconnected. Both cages' SI5335 reference clocks are left at 161.1328125 MHz (FS =
// 2'b10, the default with the pins floating). I2C to the modules is not used
// (ModSelL high).
//
// LEDs (three on the bracket, STATUS_LED0..2): led[0] heartbeat (about 1.2 Hz, init
// clock: the bitstream is loaded), led[1] Ethernet RX aligned (CMAC stat_rx_aligned),
// led[2] PCIe link up (XDMA user_lnk_up). Active high assumed (not verified).
//
// Parameters:
//   DEV_MAC   the virtio device's MAC address (locally administered by default)
//   RSFEC     1: Clause 91 RS-FEC on (100GBASE-SR4 / CR4 modules need it), 0: off (LR4)
//   POR_BITS  power-on reset length 2^POR_BITS init cycles, >= 12 (QSFP ResetL >= 10 us)
`default_nettype none
`ifndef FABNIC_VENDOR_IP
`ifdef VERILATOR
// (lint) includes are found from the working directory, the repository root
`include "rtl/board/alveo_u250/fabnic_bb_xdma.svh"
`include "rtl/board/alveo_u250/fabnic_bb_cmac_usplus.svh"
`include "rtl/board/alveo_u250/fabnic_bb_ibufds_gte4.svh"
`include "rtl/board/alveo_u250/fabnic_bb_ibufds.svh"
`else
// other tools (slang, Vivado) look next to the including file first
`include "fabnic_bb_xdma.svh"
`include "fabnic_bb_cmac_usplus.svh"
`include "fabnic_bb_ibufds_gte4.svh"
`include "fabnic_bb_ibufds.svh"
`endif
`endif

module fabnic_u250_top #(
    parameter logic [47:0] DEV_MAC  = 48'h02_46_4E_00_00_01,
    parameter bit          RSFEC    = 1'b1,
    parameter int          POR_BITS = 16
) (
    // PCIe edge connector (Gen3 x16)
    input  wire logic        pcie_refclk_p,
    input  wire logic        pcie_refclk_n,
    input  wire logic        pcie_perst_n,
    input  wire logic [15:0] pcie_rx_p,
    input  wire logic [15:0] pcie_rx_n,
    output logic      [15:0] pcie_tx_p,
    output logic      [15:0] pcie_tx_n,

    // 156.25 MHz user clock (SI570 via SI53340)
    input  wire logic        user_clk_p,
    input  wire logic        user_clk_n,

    // QSFP28 cage 0: the NIC's port
    input  wire logic        qsfp0_refclk_p,     // 161.1328125 MHz (SI5335, FS = 2'b10)
    input  wire logic        qsfp0_refclk_n,
    input  wire logic [3:0]  qsfp0_rx_p,
    input  wire logic [3:0]  qsfp0_rx_n,
    output logic      [3:0]  qsfp0_tx_p,
    output logic      [3:0]  qsfp0_tx_n,
    output logic             qsfp0_resetl,
    output logic             qsfp0_lpmode,
    output logic             qsfp0_modsell,
    input  wire logic        qsfp0_modprsl,
    input  wire logic        qsfp0_intl,
    output logic      [1:0]  qsfp0_fs,
    output logic             qsfp0_refclk_reset,

    // QSFP28 cage 1: sideband only (unused cage)
    output logic             qsfp1_resetl,
    output logic             qsfp1_lpmode,
    output logic             qsfp1_modsell,
    input  wire logic        qsfp1_modprsl,
    input  wire logic        qsfp1_intl,
    output logic      [1:0]  qsfp1_fs,
    output logic             qsfp1_refclk_reset,

    output logic      [2:0]  led
);

  if (POR_BITS < 12 || POR_BITS > 30) begin : g_chk
    $error("fabnic_u250_top: POR_BITS must be 12..30 (QSFP ResetL needs >= 10 us)");
  end

  // =====================================================================
  // clocks
  // =====================================================================
  logic pcie_refclk_gt, pcie_refclk_div2, init_clk;

  IBUFDS_GTE4 #(.REFCLK_EN_TX_PATH(1'b0), .REFCLK_HROW_CK_SEL(2'b00), .REFCLK_ICNTL_RX(2'b00))
  u_pcie_refclk (
      .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt),
      .ODIV2(pcie_refclk_div2));

  // 156.25 MHz on a global clock input; Vivado inserts the BUFG
  IBUFDS u_user_clk (.I(user_clk_p), .IB(user_clk_n), .O(init_clk));

  // =====================================================================
  // init clock domain: power-on reset, heartbeat
  // =====================================================================
  // Flops power up at 0 after configuration: the counter starts at 0 and por_done_q
  // (reset released) starts low, so the reset is asserted from the first cycle on.
  logic [POR_BITS-1:0] por_q;
  logic                por_done_q, init_rst;
  logic [26:0]         beat_q;

  always_ff @(posedge init_clk) begin
    if (!(&por_q)) por_q <= por_q + 1'b1;
    por_done_q <= &por_q;
    beat_q     <= beat_q + 1'b1;
    if (init_rst) beat_q <= '0;
  end
  assign init_rst = !por_done_q;

  // =====================================================================
  // PCIe: XDMA in AXI Bridge mode
  // =====================================================================
  logic         axi_aclk, axi_aresetn, user_lnk_up;
  logic [15:0]  usr_irq_req, usr_irq_ack;

  logic [4:0]   hs_awid, hs_arid, hs_bid, hs_rid;
  logic [63:0]  hs_awaddr, hs_araddr;
  logic [7:0]   hs_awlen, hs_arlen;
  logic [2:0]   hs_awsize, hs_arsize;
  logic [1:0]   hs_awburst, hs_arburst, hs_bresp, hs_rresp;
  logic         hs_awvalid, hs_awready, hs_wlast, hs_wvalid, hs_wready, hs_bvalid, hs_bready;
  logic         hs_arvalid, hs_arready, hs_rlast, hs_rvalid, hs_rready;
  logic [511:0] hs_wdata, hs_rdata;
  logic [63:0]  hs_wstrb;

  logic [3:0]   bm_awid, bm_arid, bm_bid, bm_rid;
  logic [63:0]  bm_awaddr, bm_araddr;
  logic [7:0]   bm_awlen, bm_arlen;
  logic [2:0]   bm_awsize, bm_arsize;
  logic [1:0]   bm_bresp, bm_rresp;
  logic         bm_awvalid, bm_awready, bm_wlast, bm_wvalid, bm_wready, bm_bvalid, bm_bready;
  logic         bm_arvalid, bm_arready, bm_rlast, bm_rvalid, bm_rready;
  logic [511:0] bm_wdata, bm_rdata;
  logic [63:0]  bm_wstrb;

  xdma_0 u_xdma (
      .sys_clk(pcie_refclk_div2), .sys_clk_gt(pcie_refclk_gt), .sys_rst_n(pcie_perst_n),
      .user_lnk_up, .pci_exp_txp(pcie_tx_p), .pci_exp_txn(pcie_tx_n),
      .pci_exp_rxp(pcie_rx_p), .pci_exp_rxn(pcie_rx_n),
      .axi_aclk, .axi_aresetn, .axi_ctl_aresetn(), .interrupt_out(),
      .usr_irq_req, .usr_irq_ack, .msi_enable(),
      // S_AXI_B: the NIC's DMA into host memory
      .s_axib_awid(hs_awid), .s_axib_awaddr(hs_awaddr), .s_axib_awregion(4'd0),
      .s_axib_awlen(hs_awlen), .s_axib_awsize(hs_awsize), .s_axib_awburst(hs_awburst),
      .s_axib_awvalid(hs_awvalid), .s_axib_awready(hs_awready),
      .s_axib_wdata(hs_wdata), .s_axib_wstrb(hs_wstrb), .s_axib_wlast(hs_wlast),
      .s_axib_wvalid(hs_wvalid), .s_axib_wready(hs_wready),
      .s_axib_bid(hs_bid), .s_axib_bresp(hs_bresp), .s_axib_bvalid(hs_bvalid),
      .s_axib_bready(hs_bready),
      .s_axib_arid(hs_arid), .s_axib_araddr(hs_araddr), .s_axib_arregion(4'd0),
      .s_axib_arlen(hs_arlen), .s_axib_arsize(hs_arsize), .s_axib_arburst(hs_arburst),
      .s_axib_arvalid(hs_arvalid), .s_axib_arready(hs_arready),
      .s_axib_rid(hs_rid), .s_axib_rdata(hs_rdata), .s_axib_rresp(hs_rresp),
      .s_axib_rlast(hs_rlast), .s_axib_rvalid(hs_rvalid), .s_axib_rready(hs_rready),
      // M_AXI_B: BAR0 register accesses
      .m_axib_awid(bm_awid), .m_axib_awaddr(bm_awaddr), .m_axib_awlen(bm_awlen),
      .m_axib_awsize(bm_awsize), .m_axib_awburst(), .m_axib_awprot(), .m_axib_awlock(),
      .m_axib_awcache(), .m_axib_awvalid(bm_awvalid), .m_axib_awready(bm_awready),
      .m_axib_wdata(bm_wdata), .m_axib_wstrb(bm_wstrb), .m_axib_wlast(bm_wlast),
      .m_axib_wvalid(bm_wvalid), .m_axib_wready(bm_wready),
      .m_axib_bid(bm_bid), .m_axib_bresp(bm_bresp), .m_axib_bvalid(bm_bvalid),
      .m_axib_bready(bm_bready),
      .m_axib_arid(bm_arid), .m_axib_araddr(bm_araddr), .m_axib_arlen(bm_arlen),
      .m_axib_arsize(bm_arsize), .m_axib_arburst(), .m_axib_arprot(), .m_axib_arlock(),
      .m_axib_arcache(), .m_axib_arvalid(bm_arvalid), .m_axib_arready(bm_arready),
      .m_axib_rid(bm_rid), .m_axib_rdata(bm_rdata), .m_axib_rresp(bm_rresp),
      .m_axib_rlast(bm_rlast), .m_axib_rvalid(bm_rvalid), .m_axib_rready(bm_rready),
      // S_AXI_LITE: the bridge's own registers, not used
      .s_axil_awaddr(32'd0), .s_axil_awprot(3'd0), .s_axil_awvalid(1'b0), .s_axil_awready(),
      .s_axil_wdata(32'd0), .s_axil_wstrb(4'd0), .s_axil_wvalid(1'b0), .s_axil_wready(),
      .s_axil_bresp(), .s_axil_bvalid(), .s_axil_bready(1'b1),
      .s_axil_araddr(32'd0), .s_axil_arprot(3'd0), .s_axil_arvalid(1'b0), .s_axil_arready(),
      .s_axil_rdata(), .s_axil_rresp(), .s_axil_rvalid(), .s_axil_rready(1'b1)
  );

  // =====================================================================
  // Ethernet: CMAC on QSFP0
  // =====================================================================
  logic         mac_clk, mac_tx_rst, mac_rx_rst, rx_aligned, tx_underflow;
  logic         tx_enable_q;
  logic [511:0] mtx_tdata, mrx_tdata;
  logic [63:0]  mtx_tkeep, mrx_tkeep;
  logic         mtx_tvalid, mtx_tready, mtx_tlast, mtx_tuser;
  logic         mrx_tvalid, mrx_tlast, mrx_tuser;

  cmac_usplus_0 u_cmac (
      .gt_rxp_in(qsfp0_rx_p), .gt_rxn_in(qsfp0_rx_n), .gt_txp_out(qsfp0_tx_p),
      .gt_txn_out(qsfp0_tx_n), .gt_txusrclk2(mac_clk), .gt_rxusrclk2(),
      .gt_loopback_in(12'd0), .gt_rxrecclkout(), .gt_powergoodout(), .gt_ref_clk_out(),
      .gtwiz_reset_tx_datapath(1'b0), .gtwiz_reset_rx_datapath(1'b0),
      .sys_reset(init_rst), .gt_ref_clk_p(qsfp0_refclk_p), .gt_ref_clk_n(qsfp0_refclk_n),
      .init_clk,
      .rx_axis_tvalid(mrx_tvalid), .rx_axis_tdata(mrx_tdata), .rx_axis_tlast(mrx_tlast),
      .rx_axis_tkeep(mrx_tkeep), .rx_axis_tuser(mrx_tuser), .rx_preambleout(),
      .usr_rx_reset(mac_rx_rst), .rx_clk(mac_clk), .core_rx_reset(1'b0),
      .ctl_rx_enable(1'b1), .ctl_rx_force_resync(1'b0), .ctl_rx_test_pattern(1'b0),
      .stat_rx_aligned(rx_aligned), .stat_rx_aligned_err(), .stat_rx_status(),
      .stat_rx_local_fault(), .stat_rx_remote_fault(), .stat_rx_hi_ber(),
      .stat_rx_bad_fcs(), .stat_rx_total_packets(),
      .tx_axis_tready(mtx_tready), .tx_axis_tvalid(mtx_tvalid), .tx_axis_tdata(mtx_tdata),
      .tx_axis_tlast(mtx_tlast), .tx_axis_tkeep(mtx_tkeep), .tx_axis_tuser(mtx_tuser),
      .tx_ovfout(), .tx_unfout(tx_underflow), .tx_preamblein(56'd0),
      .usr_tx_reset(mac_tx_rst), .core_tx_reset(1'b0),
      // PG203 start-up: send remote fault until the receiver is aligned, then enable TX
      .ctl_tx_enable(tx_enable_q), .ctl_tx_test_pattern(1'b0), .ctl_tx_send_idle(1'b0),
      .ctl_tx_send_rfi(!tx_enable_q), .ctl_tx_send_lfi(1'b0),
      .stat_tx_total_packets(), .stat_tx_frame_error(),
      .ctl_rsfec_ieee_error_indication_mode(1'b0), .ctl_rx_rsfec_enable(RSFEC),
      .ctl_rx_rsfec_enable_correction(RSFEC), .ctl_rx_rsfec_enable_indication(RSFEC),
      .ctl_tx_rsfec_enable(RSFEC),
      .core_drp_reset(1'b0), .drp_clk(init_clk), .drp_addr(10'd0), .drp_di(16'd0),
      .drp_en(1'b0), .drp_do(), .drp_rdy(), .drp_we(1'b0)
  );

  // stat_rx_aligned is in the rx_clk (= gt_txusrclk2) domain, as are the ctl_tx_* inputs
  always_ff @(posedge mac_clk) tx_enable_q <= rx_aligned;

  // =====================================================================
  // the shell: fabnic_nic and everything between it and the two IP blocks
  // =====================================================================
  fabnic_u250_shell #(.DATA_W(512), .AXI_ID_W(4), .BAR_ID_W(4), .IRQ_LINES(16),
                      .DEV_MAC(DEV_MAC)) u_shell (
      .core_clk(axi_aclk), .core_arst(!axi_aresetn),
      .m_axi_awid(hs_awid), .m_axi_awaddr(hs_awaddr), .m_axi_awlen(hs_awlen),
      .m_axi_awsize(hs_awsize), .m_axi_awburst(hs_awburst), .m_axi_awvalid(hs_awvalid),
      .m_axi_awready(hs_awready), .m_axi_wdata(hs_wdata), .m_axi_wstrb(hs_wstrb),
      .m_axi_wlast(hs_wlast), .m_axi_wvalid(hs_wvalid), .m_axi_wready(hs_wready),
      .m_axi_bid(hs_bid), .m_axi_bresp(hs_bresp), .m_axi_bvalid(hs_bvalid),
      .m_axi_bready(hs_bready), .m_axi_arid(hs_arid), .m_axi_araddr(hs_araddr),
      .m_axi_arlen(hs_arlen), .m_axi_arsize(hs_arsize), .m_axi_arburst(hs_arburst),
      .m_axi_arvalid(hs_arvalid), .m_axi_arready(hs_arready), .m_axi_rid(hs_rid),
      .m_axi_rdata(hs_rdata), .m_axi_rresp(hs_rresp), .m_axi_rlast(hs_rlast),
      .m_axi_rvalid(hs_rvalid), .m_axi_rready(hs_rready),
      .s_axi_awid(bm_awid), .s_axi_awaddr(bm_awaddr), .s_axi_awlen(bm_awlen),
      .s_axi_awsize(bm_awsize), .s_axi_awvalid(bm_awvalid), .s_axi_awready(bm_awready),
      .s_axi_wdata(bm_wdata), .s_axi_wstrb(bm_wstrb), .s_axi_wlast(bm_wlast),
      .s_axi_wvalid(bm_wvalid), .s_axi_wready(bm_wready), .s_axi_bid(bm_bid),
      .s_axi_bresp(bm_bresp), .s_axi_bvalid(bm_bvalid), .s_axi_bready(bm_bready),
      .s_axi_arid(bm_arid), .s_axi_araddr(bm_araddr), .s_axi_arlen(bm_arlen),
      .s_axi_arsize(bm_arsize), .s_axi_arvalid(bm_arvalid), .s_axi_arready(bm_arready),
      .s_axi_rid(bm_rid), .s_axi_rdata(bm_rdata), .s_axi_rresp(bm_rresp),
      .s_axi_rlast(bm_rlast), .s_axi_rvalid(bm_rvalid), .s_axi_rready(bm_rready),
      .usr_irq_req, .usr_irq_ack,
      .mac_clk, .mac_tx_arst(mac_tx_rst), .mac_rx_arst(mac_rx_rst),
      .mac_tx_axis_tdata(mtx_tdata), .mac_tx_axis_tkeep(mtx_tkeep),
      .mac_tx_axis_tvalid(mtx_tvalid), .mac_tx_axis_tready(mtx_tready),
      .mac_tx_axis_tlast(mtx_tlast), .mac_tx_axis_tuser(mtx_tuser),
      .mac_rx_axis_tdata(mrx_tdata), .mac_rx_axis_tkeep(mrx_tkeep),
      .mac_rx_axis_tvalid(mrx_tvalid), .mac_rx_axis_tlast(mrx_tlast),
      .mac_rx_axis_tuser(mrx_tuser),
      .mac_rx_aligned(tx_enable_q), .mac_tx_underflow(tx_underflow),
      .qsfp0_present(!qsfp0_modprsl), .qsfp0_irq(!qsfp0_intl),
      .qsfp1_present(!qsfp1_modprsl), .qsfp1_irq(!qsfp1_intl)
  );

  // =====================================================================
  // QSFP sideband and LEDs
  // =====================================================================
  assign qsfp0_resetl       = !init_rst;   // out of reset after the power-on reset
  assign qsfp0_lpmode       = 1'b0;          // high-power mode (optics on)
  assign qsfp0_modsell      = 1'b1;          // not selected: I2C unused
  assign qsfp0_fs           = 2'b10;         // SI5335 at 161.1328125 MHz
  assign qsfp0_refclk_reset = 1'b0;
  assign qsfp1_resetl       = 1'b0;          // unused cage: module held in reset
  assign qsfp1_lpmode       = 1'b1;          // and in low-power mode
  assign qsfp1_modsell      = 1'b1;
  assign qsfp1_fs           = 2'b10;
  assign qsfp1_refclk_reset = 1'b0;

  logic [1:0]  led_lvl;
  logic [31:0] unused_led_cnt [1];
  fabnic_u250_status_cdc #(.LEVELS(2), .COUNTS(0)) u_led_sync (
      .src_clk(init_clk), .src_rst(1'b0), .src_level({user_lnk_up, tx_enable_q}),
      .src_event(1'b0), .dst_clk(init_clk), .dst_rst(init_rst), .dst_level(led_lvl),
      .dst_count(unused_led_cnt));
  assign led = {led_lvl[1], led_lvl[0], beat_q[26]};

  logic unused_top;
  assign unused_top = ^unused_led_cnt[0];

endmodule

`resetall
