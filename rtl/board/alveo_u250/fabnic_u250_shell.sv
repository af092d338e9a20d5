// SPDX-License-Identifier: Apache-2.0
//
// fabnic_u250_shell: fabnic_nic between a PCIe AXI bridge (XDMA in AXI Bridge mode) and
// a 100 G MAC with a 512-bit AXI-Stream user side (CMAC), with every clock crossing,
// reset and interrupt on the way. Technology independent: no vendor module is used
// here; fabnic_u250_top instantiates the IP and the pins around it (docs/synthesis.md,
// "Alveo U250 board target").
//
// Clock domains
//   core_clk  the XDMA's axi_aclk (250 MHz at Gen3 x16 with a 512-bit AXI): fabnic_nic,
//             both AXI bridges, the interrupts, the board registers. core_arst is the
//             XDMA's reset (!axi_aresetn), synchronized here.
//   mac_clk   the CMAC's gt_txusrclk2 (322.265625 MHz), which also clocks the CMAC's RX
//             user side (rx_clk = gt_txusrclk2, RX FIFO inside the CMAC). mac_tx_arst /
//             mac_rx_arst are the CMAC's usr_tx_reset / usr_rx_reset, synchronized here.
//
// Datapaths
//   host memory  fabnic_nic m_axi (RoCE, index 0) and m_vio_axi (virtio, index 1)
//                -> fabnic_axi_rd_mux / fabnic_vnic_axi_wr_mux (ID_W 1: the index; the
//                engine's own ID rides above the address) -> skid registers ->
//                m_axi_* with ID = {index, engine ID} (AXI_ID_W+1 bits) = XDMA S_AXI_B.
//                B and R are routed back by ID bit AXI_ID_W. The two engines share the
//                R channel: if the bridge returns reads in order across IDs, an engine
//                that holds RREADY low delays the other (docs/vnic_dev.md, "Shared read
//                channel"; fabnic_dma_rd holds it only while its output is full).
//   registers    s_axi_* (XDMA M_AXI_B, BAR0) -> fabnic_u250_bar_bridge -> fabnic_nic
//                s_axil (offset 0 .. 32 MB) and the board registers (32 MB + 4*i).
//   wire TX      fabnic_nic m_mac_tx -> fabnic_u250_frame_guard (core_clk; pads to 60
//                bytes) -> fabnic_axis_async_fifo (core_clk -> mac_clk) ->
//                fabnic_axis_fifo FRAME_FIFO (mac_clk, store and forward: the CMAC needs a
//                frame without gaps once started, and mac_clk is faster than core_clk)
//                -> mac_tx_axis_*.
//   wire RX      mac_rx_axis_* (no back-pressure) -> fabnic_u250_frame_guard (mac_clk)
//                -> fabnic_axis_fifo FRAME_FIFO DROP_WHEN_FULL (mac_clk: a frame that
//                does not fit is dropped whole and counted) -> fabnic_axis_async_fifo
//                (mac_clk -> core_clk) -> fabnic_nic s_mac_rx.
//
// Resets and frames (neither the NIC nor the wire may see a frame tail as a frame):
//   TX  the async FIFO is emptied by the core reset or the CMAC's TX reset, the TX frame
//       FIFO with it (m_rst_active); the guard in front discards the rest of a frame
//       cut that way, and drops whole frames while the Ethernet link is down, so the
//       NIC never stalls on a dead link. A frame being sent when the core resets is cut
//       (the CMAC flags an underflow and sends it with a bad FCS).
//   RX  the FIFOs are reset only with the core (which resets the NIC too). A CMAC RX
//       reset in the middle of a frame makes the guard close that frame with a bad last
//       beat, which the NIC drops as a bad frame.
// Frames stored in a FIFO at a reset are discarded.
//
// Drops are counted, never silent: board registers 3..8 (below). Bad frames from the
// CMAC (tuser on the last beat: FCS error) are passed on; fabnic_nic counts them.
//
// Interrupts: XDMA user interrupts usr_irq_req[IRQ_LINES-1:0] (MSI). RoCE CQ vector v
// -> line v mod (IRQ_LINES/2); virtio queue vector v -> line IRQ_LINES/2 + v mod
// (IRQ_LINES/4); virtio configuration change -> line IRQ_LINES-1. A line is raised on
// an event and dropped on usr_irq_ack; an event while raised raises it again after
// the ack (one cycle low in between), so no event is lost (extra interrupts are).
//
// Board registers (read-only, BAR0 + 0x2000000 + 4*i):
//   0 0x55323530 ("U250")   1 shell version 0x00010000
//   2 status: [0] Ethernet RX aligned, [1] QSFP0 module present, [2] QSFP0 interrupt,
//     [3] QSFP1 module present, [4] QSFP1 interrupt, [5] fabnic_nic init_done
//   3 RX frames dropped, RX FIFO full          4 RX frames dropped, longer than the RX FIFO
//   5 RX frames lost to a reset (discarded, or closed as bad at a CMAC RX reset)
//   6 TX frames dropped: Ethernet link down, CMAC TX reset or core reset
//   7 TX frames dropped, longer than the TX FIFO
//   8 CMAC TX underflow (cycles with tx_unfout high)                9..15 zero
// Counters are 32 bits, wrap, and are zeroed by the core reset.
//
// Parameters:
//   DATA_W          512 (fabnic_nic and the CMAC AXI-Stream width; the XDMA AXI width)
//   AXI_ID_W        fabnic_nic AXI ID width; the host-memory port has AXI_ID_W+1
//   BAR_ID_W        ID width of the XDMA master bridge (BAR) port
//   IRQ_LINES       XDMA user interrupt lines: 8 or 16
//   DEV_MAC         the virtio device's MAC address
//   RX_FIFO_DEPTH   RX frame FIFO (mac_clk), beats, power of two; holds the frames that
//                   arrive while the core is slower than the wire for a moment
//   TX_FIFO_DEPTH   TX frame FIFO (mac_clk), beats, power of two; must hold the largest
//                   TX frame (a longer one is dropped and counted): 256 beats = 16 KB
//   CDC_DEPTH       async FIFOs, beats, power of two >= 2*(SYNC_STAGES+2)
//   SYNC_STAGES     synchronizer flops of every crossing, >= 2
`default_nettype none

module fabnic_u250_shell #(
    parameter int          DATA_W        = 512,
    parameter int          AXI_ID_W      = 4,
    parameter int          BAR_ID_W      = 4,
    parameter int          IRQ_LINES     = 16,
    parameter logic [47:0] DEV_MAC       = 48'h02_46_4E_00_00_01,
    parameter int          RX_FIFO_DEPTH = 512,
    parameter int          TX_FIFO_DEPTH = 256,
    parameter int          CDC_DEPTH     = 32,
    parameter int          SYNC_STAGES   = 2,
    parameter int          KEEP_W        = DATA_W / 8,
    parameter int          HID_W         = AXI_ID_W + 1
) (
    // ---- core clock domain (XDMA axi_aclk)
    input  wire logic                 core_clk,
    input  wire logic                 core_arst,     // asynchronous, active high

    // host memory: AXI4 master to the XDMA slave bridge (S_AXI_B)
    output logic      [HID_W-1:0]     m_axi_awid,
    output logic      [63:0]          m_axi_awaddr,
    output logic      [7:0]           m_axi_awlen,
    output logic      [2:0]           m_axi_awsize,
    output logic      [1:0]           m_axi_awburst,
    output logic                      m_axi_awvalid,
    input  wire logic                 m_axi_awready,
    output logic      [DATA_W-1:0]    m_axi_wdata,
    output logic      [KEEP_W-1:0]    m_axi_wstrb,
    output logic                      m_axi_wlast,
    output logic                      m_axi_wvalid,
    input  wire logic                 m_axi_wready,
    input  wire logic [HID_W-1:0]     m_axi_bid,
    input  wire logic [1:0]           m_axi_bresp,
    input  wire logic                 m_axi_bvalid,
    output logic                      m_axi_bready,
    output logic      [HID_W-1:0]     m_axi_arid,
    output logic      [63:0]          m_axi_araddr,
    output logic      [7:0]           m_axi_arlen,
    output logic      [2:0]           m_axi_arsize,
    output logic      [1:0]           m_axi_arburst,
    output logic                      m_axi_arvalid,
    input  wire logic                 m_axi_arready,
    input  wire logic [HID_W-1:0]     m_axi_rid,
    input  wire logic [DATA_W-1:0]    m_axi_rdata,
    input  wire logic [1:0]           m_axi_rresp,
    input  wire logic                 m_axi_rlast,
    input  wire logic                 m_axi_rvalid,
    output logic                      m_axi_rready,

    // registers: AXI4 slave from the XDMA master bridge (M_AXI_B, BAR0)
    input  wire logic [BAR_ID_W-1:0]  s_axi_awid,
    input  wire logic [63:0]          s_axi_awaddr,
    input  wire logic [7:0]           s_axi_awlen,
    input  wire logic [2:0]           s_axi_awsize,
    input  wire logic                 s_axi_awvalid,
    output logic                      s_axi_awready,
    input  wire logic [DATA_W-1:0]    s_axi_wdata,
    input  wire logic [KEEP_W-1:0]    s_axi_wstrb,
    input  wire logic                 s_axi_wlast,
    input  wire logic                 s_axi_wvalid,
    output logic                      s_axi_wready,
    output logic      [BAR_ID_W-1:0]  s_axi_bid,
    output logic      [1:0]           s_axi_bresp,
    output logic                      s_axi_bvalid,
    input  wire logic                 s_axi_bready,
    input  wire logic [BAR_ID_W-1:0]  s_axi_arid,
    input  wire logic [63:0]          s_axi_araddr,
    input  wire logic [7:0]           s_axi_arlen,
    input  wire logic [2:0]           s_axi_arsize,
    input  wire logic                 s_axi_arvalid,
    output logic                      s_axi_arready,
    output logic      [BAR_ID_W-1:0]  s_axi_rid,
    output logic      [DATA_W-1:0]    s_axi_rdata,
    output logic      [1:0]           s_axi_rresp,
    output logic                      s_axi_rlast,
    output logic                      s_axi_rvalid,
    input  wire logic                 s_axi_rready,

    // XDMA user interrupts
    output logic      [IRQ_LINES-1:0] usr_irq_req,
    input  wire logic [IRQ_LINES-1:0] usr_irq_ack,

    // ---- MAC clock domain (CMAC gt_txusrclk2)
    input  wire logic                 mac_clk,
    input  wire logic                 mac_tx_arst,   // asynchronous, active high
    input  wire logic                 mac_rx_arst,   // asynchronous, active high
    output logic      [DATA_W-1:0]    mac_tx_axis_tdata,
    output logic      [KEEP_W-1:0]    mac_tx_axis_tkeep,
    output logic                      mac_tx_axis_tvalid,
    input  wire logic                 mac_tx_axis_tready,
    output logic                      mac_tx_axis_tlast,
    output logic                      mac_tx_axis_tuser,
    input  wire logic [DATA_W-1:0]    mac_rx_axis_tdata,
    input  wire logic [KEEP_W-1:0]    mac_rx_axis_tkeep,
    input  wire logic                 mac_rx_axis_tvalid,
    input  wire logic                 mac_rx_axis_tlast,
    input  wire logic                 mac_rx_axis_tuser,
    input  wire logic                 mac_rx_aligned,     // level (stat_rx_aligned)
    input  wire logic                 mac_tx_underflow,   // pulse (tx_unfout)

    // ---- board pins (asynchronous levels, active high)
    input  wire logic                 qsfp0_present,
    input  wire logic                 qsfp0_irq,
    input  wire logic                 qsfp1_present,
    input  wire logic                 qsfp1_irq
);

  localparam int MA_W = 64 + AXI_ID_W;   // mux address: {engine ID, address}
  localparam int RL   = IRQ_LINES / 2;   // RoCE lines 0 .. RL-1
  localparam int VL   = IRQ_LINES / 4;   // virtio queue lines RL .. RL+VL-1
  localparam int NBRD = 16;

  if (DATA_W != 512 || KEEP_W != DATA_W / 8) begin : g_chk_w
    $error("fabnic_u250_shell: DATA_W must be 512 (fabnic_nic, CMAC AXI-Stream)");
  end
  if (IRQ_LINES != 8 && IRQ_LINES != 16) begin : g_chk_irq
    $error("fabnic_u250_shell: IRQ_LINES must be 8 or 16");
  end
  if (AXI_ID_W < 1 || BAR_ID_W < 1 || SYNC_STAGES < 2) begin : g_chk_id
    $error("fabnic_u250_shell: AXI_ID_W, BAR_ID_W >= 1, SYNC_STAGES >= 2");
  end

  // =====================================================================
  // resets
  // =====================================================================
  logic rst, mac_tx_rst, mac_rx_rst, mac_core_rst;
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_core (
      .clk(core_clk), .arst(core_arst), .rst(rst));
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_mac_tx (
      .clk(mac_clk), .arst(mac_tx_arst), .rst(mac_tx_rst));
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_mac_rx (
      .clk(mac_clk), .arst(mac_rx_arst), .rst(mac_rx_rst));
  // the core reset in the MAC domain: RX FIFOs and MAC-side counters (a link flap or a
  // CMAC reset does not empty them or zero the counters)
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_mac_core (
      .clk(mac_clk), .arst(rst), .rst(mac_core_rst));

  // =====================================================================
  // fabnic_nic
  // =====================================================================
  logic [24:0]         nl_awaddr, nl_araddr;
  logic [2:0]          nl_awprot, nl_arprot;
  logic                nl_awvalid, nl_awready, nl_wvalid, nl_wready, nl_bvalid, nl_bready;
  logic                nl_arvalid, nl_arready, nl_rvalid, nl_rready;
  logic [31:0]         nl_wdata, nl_rdata;
  logic [3:0]          nl_wstrb;
  logic [1:0]          nl_bresp, nl_rresp;

  // the two AXI4 masters, index 0 = RoCE (m_axi), 1 = virtio (m_vio_axi)
  logic [AXI_ID_W-1:0] e_awid [2], e_arid [2];
  logic [63:0]         e_awaddr [2], e_araddr [2];
  logic [7:0]          e_awlen [2], e_arlen [2];
  logic [2:0]          e_awsize [2], e_arsize [2];
  logic [1:0]          e_awburst [2], e_arburst [2];
  logic [1:0]          e_awvalid, e_awready, e_wvalid, e_wready, e_wlast, e_bvalid, e_bready;
  logic [1:0]          e_arvalid, e_arready, e_rvalid, e_rready;
  logic [DATA_W-1:0]   e_wdata [2];
  logic [KEEP_W-1:0]   e_wstrb [2];
  logic [1:0]          e_bresp, e_rresp;
  logic                e_rlast;
  logic [DATA_W-1:0]   e_rdata;
  logic [AXI_ID_W-1:0] e_bid, e_rid;

  logic [DATA_W-1:0]   ntx_tdata, nrx_tdata;
  logic [KEEP_W-1:0]   ntx_tkeep, nrx_tkeep;
  logic                ntx_tvalid, ntx_tready, ntx_tlast, ntx_tuser;
  logic                nrx_tvalid, nrx_tready, nrx_tlast, nrx_tuser;

  logic                roce_irq_valid, vio_irq_valid, vio_cfg_irq_valid, nic_init_done;
  logic [15:0]         roce_irq_vector, vio_irq_vector, vio_cfg_irq_vector;
  logic                link_up;

  fabnic_nic #(.DATA_W(DATA_W), .AXI_ID_W(AXI_ID_W)) u_nic (
      .clk(core_clk), .rst,
      .s_axil_awaddr(nl_awaddr), .s_axil_awprot(nl_awprot), .s_axil_awvalid(nl_awvalid),
      .s_axil_awready(nl_awready), .s_axil_wdata(nl_wdata), .s_axil_wstrb(nl_wstrb),
      .s_axil_wvalid(nl_wvalid), .s_axil_wready(nl_wready), .s_axil_bresp(nl_bresp),
      .s_axil_bvalid(nl_bvalid), .s_axil_bready(nl_bready), .s_axil_araddr(nl_araddr),
      .s_axil_arprot(nl_arprot), .s_axil_arvalid(nl_arvalid), .s_axil_arready(nl_arready),
      .s_axil_rdata(nl_rdata), .s_axil_rresp(nl_rresp), .s_axil_rvalid(nl_rvalid),
      .s_axil_rready(nl_rready),
      .m_axi_awid(e_awid[0]), .m_axi_awaddr(e_awaddr[0]), .m_axi_awlen(e_awlen[0]),
      .m_axi_awsize(e_awsize[0]), .m_axi_awburst(e_awburst[0]), .m_axi_awlock(),
      .m_axi_awcache(), .m_axi_awprot(), .m_axi_awvalid(e_awvalid[0]),
      .m_axi_awready(e_awready[0]), .m_axi_wdata(e_wdata[0]), .m_axi_wstrb(e_wstrb[0]),
      .m_axi_wlast(e_wlast[0]), .m_axi_wvalid(e_wvalid[0]), .m_axi_wready(e_wready[0]),
      .m_axi_bid(e_bid), .m_axi_bresp(e_bresp), .m_axi_bvalid(e_bvalid[0]),
      .m_axi_bready(e_bready[0]), .m_axi_arid(e_arid[0]), .m_axi_araddr(e_araddr[0]),
      .m_axi_arlen(e_arlen[0]), .m_axi_arsize(e_arsize[0]), .m_axi_arburst(e_arburst[0]),
      .m_axi_arlock(), .m_axi_arcache(), .m_axi_arprot(), .m_axi_arvalid(e_arvalid[0]),
      .m_axi_arready(e_arready[0]), .m_axi_rid(e_rid), .m_axi_rdata(e_rdata),
      .m_axi_rresp(e_rresp), .m_axi_rlast(e_rlast), .m_axi_rvalid(e_rvalid[0]),
      .m_axi_rready(e_rready[0]),
      .m_vio_axi_awid(e_awid[1]), .m_vio_axi_awaddr(e_awaddr[1]), .m_vio_axi_awlen(e_awlen[1]),
      .m_vio_axi_awsize(e_awsize[1]), .m_vio_axi_awburst(e_awburst[1]), .m_vio_axi_awlock(),
      .m_vio_axi_awcache(), .m_vio_axi_awprot(), .m_vio_axi_awvalid(e_awvalid[1]),
      .m_vio_axi_awready(e_awready[1]), .m_vio_axi_wdata(e_wdata[1]),
      .m_vio_axi_wstrb(e_wstrb[1]), .m_vio_axi_wlast(e_wlast[1]),
      .m_vio_axi_wvalid(e_wvalid[1]), .m_vio_axi_wready(e_wready[1]), .m_vio_axi_bid(e_bid),
      .m_vio_axi_bresp(e_bresp), .m_vio_axi_bvalid(e_bvalid[1]),
      .m_vio_axi_bready(e_bready[1]), .m_vio_axi_arid(e_arid[1]),
      .m_vio_axi_araddr(e_araddr[1]), .m_vio_axi_arlen(e_arlen[1]),
      .m_vio_axi_arsize(e_arsize[1]), .m_vio_axi_arburst(e_arburst[1]), .m_vio_axi_arlock(),
      .m_vio_axi_arcache(), .m_vio_axi_arprot(), .m_vio_axi_arvalid(e_arvalid[1]),
      .m_vio_axi_arready(e_arready[1]), .m_vio_axi_rid(e_rid), .m_vio_axi_rdata(e_rdata),
      .m_vio_axi_rresp(e_rresp), .m_vio_axi_rlast(e_rlast), .m_vio_axi_rvalid(e_rvalid[1]),
      .m_vio_axi_rready(e_rready[1]),
      .s_mac_rx_tdata(nrx_tdata), .s_mac_rx_tkeep(nrx_tkeep), .s_mac_rx_tvalid(nrx_tvalid),
      .s_mac_rx_tready(nrx_tready), .s_mac_rx_tlast(nrx_tlast), .s_mac_rx_tuser(nrx_tuser),
      .m_mac_tx_tdata(ntx_tdata), .m_mac_tx_tkeep(ntx_tkeep), .m_mac_tx_tvalid(ntx_tvalid),
      .m_mac_tx_tready(ntx_tready), .m_mac_tx_tlast(ntx_tlast), .m_mac_tx_tuser(ntx_tuser),
      .m_irq_valid(roce_irq_valid), .m_irq_vector(roce_irq_vector),
      .dev_mac(DEV_MAC), .link_up,
      .vio_irq_valid, .vio_irq_vector, .vio_cfg_irq_valid, .vio_cfg_irq_vector,
      .init_done(nic_init_done)
  );

  // =====================================================================
  // host memory: two engines onto the XDMA slave bridge
  // =====================================================================
  // mux side (ID = engine index, address = {engine ID, address})
  logic [0:0]        x_awid [2], x_arid [2];
  logic [MA_W-1:0]   x_awaddr [2], x_araddr [2];
  logic [0:0]        mw_awid, mr_arid, mb_bid, mr_rid;
  logic [MA_W-1:0]   mw_awaddr, mr_araddr;
  logic [7:0]        mw_awlen, mr_arlen;
  logic [2:0]        mw_awsize, mr_arsize;
  logic [1:0]        mw_awburst, mr_arburst, mb_bresp, mr_rresp;
  logic              mw_awvalid, mw_awready, mw_wlast, mw_wvalid, mw_wready;
  logic              mb_bvalid, mb_bready, mr_arvalid, mr_arready;
  logic              mr_rlast, mr_rvalid, mr_rready;
  logic [DATA_W-1:0] mw_wdata, mr_rdata;
  logic [KEEP_W-1:0] mw_wstrb;
  logic [HID_W-1:0]  hb_bid, hr_rid;

  for (genvar i = 0; i < 2; i++) begin : g_eng
    assign x_awid[i]   = 1'(i);
    assign x_arid[i]   = 1'(i);
    assign x_awaddr[i] = {e_awid[i], e_awaddr[i]};
    assign x_araddr[i] = {e_arid[i], e_araddr[i]};
  end

  fabnic_vnic_axi_wr_mux #(.N(2), .ID_W(1), .ADDR_W(MA_W), .DATA_W(DATA_W), .ORDER_DEPTH(8))
  u_wr_mux (
      .clk(core_clk), .rst,
      .s_awid(x_awid), .s_awaddr(x_awaddr), .s_awlen(e_awlen), .s_awsize(e_awsize),
      .s_awburst(e_awburst), .s_awvalid(e_awvalid), .s_awready(e_awready),
      .s_wdata(e_wdata), .s_wstrb(e_wstrb), .s_wlast(e_wlast), .s_wvalid(e_wvalid),
      .s_wready(e_wready), .s_bresp(e_bresp), .s_bvalid(e_bvalid), .s_bready(e_bready),
      .m_axi_awid(mw_awid), .m_axi_awaddr(mw_awaddr), .m_axi_awlen(mw_awlen),
      .m_axi_awsize(mw_awsize), .m_axi_awburst(mw_awburst), .m_axi_awvalid(mw_awvalid),
      .m_axi_awready(mw_awready), .m_axi_wdata(mw_wdata), .m_axi_wstrb(mw_wstrb),
      .m_axi_wlast(mw_wlast), .m_axi_wvalid(mw_wvalid), .m_axi_wready(mw_wready),
      .m_axi_bid(mb_bid), .m_axi_bresp(mb_bresp), .m_axi_bvalid(mb_bvalid),
      .m_axi_bready(mb_bready)
  );

  fabnic_axi_rd_mux #(.N(2), .ID_W(1), .ADDR_W(MA_W), .DATA_W(DATA_W)) u_rd_mux (
      .clk(core_clk), .rst,
      .s_arid(x_arid), .s_araddr(x_araddr), .s_arlen(e_arlen), .s_arsize(e_arsize),
      .s_arburst(e_arburst), .s_arvalid(e_arvalid), .s_arready(e_arready),
      .s_rdata(e_rdata), .s_rresp(e_rresp), .s_rlast(e_rlast), .s_rvalid(e_rvalid),
      .s_rready(e_rready),
      .m_axi_arid(mr_arid), .m_axi_araddr(mr_araddr), .m_axi_arlen(mr_arlen),
      .m_axi_arsize(mr_arsize), .m_axi_arburst(mr_arburst), .m_axi_arvalid(mr_arvalid),
      .m_axi_arready(mr_arready), .m_axi_rid(mr_rid), .m_axi_rdata(mr_rdata),
      .m_axi_rresp(mr_rresp), .m_axi_rlast(mr_rlast), .m_axi_rvalid(mr_rvalid),
      .m_axi_rready(mr_rready)
  );

  // responses: the index bit routes, the engine's own ID goes to both engines
  assign mb_bid = hb_bid[AXI_ID_W];
  assign mr_rid = hr_rid[AXI_ID_W];
  assign e_bid  = hb_bid[AXI_ID_W-1:0];
  assign e_rid  = hr_rid[AXI_ID_W-1:0];

  // skid registers on all five channels between the muxes and the XDMA
  localparam int AX_W = HID_W + 64 + 8 + 3 + 2;

  fabnic_axis_register #(.DATA_W(AX_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_reg_aw (
      .clk(core_clk), .rst,
      .s_axis_tdata({mw_awid, mw_awaddr, mw_awlen, mw_awsize, mw_awburst}), .s_axis_tkeep(1'b1),
      .s_axis_tvalid(mw_awvalid), .s_axis_tready(mw_awready), .s_axis_tlast(1'b0),
      .s_axis_tuser(1'b0),
      .m_axis_tdata({m_axi_awid, m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst}),
      .m_axis_tkeep(), .m_axis_tvalid(m_axi_awvalid), .m_axis_tready(m_axi_awready),
      .m_axis_tlast(), .m_axis_tuser());

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_reg_w (
      .clk(core_clk), .rst,
      .s_axis_tdata(mw_wdata), .s_axis_tkeep(mw_wstrb), .s_axis_tvalid(mw_wvalid),
      .s_axis_tready(mw_wready), .s_axis_tlast(mw_wlast), .s_axis_tuser(1'b0),
      .m_axis_tdata(m_axi_wdata), .m_axis_tkeep(m_axi_wstrb), .m_axis_tvalid(m_axi_wvalid),
      .m_axis_tready(m_axi_wready), .m_axis_tlast(m_axi_wlast), .m_axis_tuser());

  fabnic_axis_register #(.DATA_W(HID_W + 2), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_reg_b (
      .clk(core_clk), .rst,
      .s_axis_tdata({m_axi_bid, m_axi_bresp}), .s_axis_tkeep(1'b1), .s_axis_tvalid(m_axi_bvalid),
      .s_axis_tready(m_axi_bready), .s_axis_tlast(1'b0), .s_axis_tuser(1'b0),
      .m_axis_tdata({hb_bid, mb_bresp}), .m_axis_tkeep(), .m_axis_tvalid(mb_bvalid),
      .m_axis_tready(mb_bready), .m_axis_tlast(), .m_axis_tuser());

  fabnic_axis_register #(.DATA_W(AX_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_reg_ar (
      .clk(core_clk), .rst,
      .s_axis_tdata({mr_arid, mr_araddr, mr_arlen, mr_arsize, mr_arburst}), .s_axis_tkeep(1'b1),
      .s_axis_tvalid(mr_arvalid), .s_axis_tready(mr_arready), .s_axis_tlast(1'b0),
      .s_axis_tuser(1'b0),
      .m_axis_tdata({m_axi_arid, m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst}),
      .m_axis_tkeep(), .m_axis_tvalid(m_axi_arvalid), .m_axis_tready(m_axi_arready),
      .m_axis_tlast(), .m_axis_tuser());

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(1), .USER_W(HID_W + 2), .REG_TYPE(2))
  u_reg_r (
      .clk(core_clk), .rst,
      .s_axis_tdata(m_axi_rdata), .s_axis_tkeep(1'b1), .s_axis_tvalid(m_axi_rvalid),
      .s_axis_tready(m_axi_rready), .s_axis_tlast(m_axi_rlast),
      .s_axis_tuser({m_axi_rid, m_axi_rresp}),
      .m_axis_tdata(mr_rdata), .m_axis_tkeep(), .m_axis_tvalid(mr_rvalid),
      .m_axis_tready(mr_rready), .m_axis_tlast(mr_rlast), .m_axis_tuser({hr_rid, mr_rresp}));

  // =====================================================================
  // registers: BAR0 -> NIC AXI-Lite + board registers
  // =====================================================================
  logic [31:0] brd [NBRD];

  fabnic_u250_bar_bridge #(.DATA_W(DATA_W), .ID_W(BAR_ID_W), .ADDR_W(64), .NIC_ADDR_W(25),
                           .BRD_REGS(NBRD)) u_bar (
      .clk(core_clk), .rst,
      .s_axi_awid, .s_axi_awaddr, .s_axi_awlen, .s_axi_awsize, .s_axi_awvalid, .s_axi_awready,
      .s_axi_wdata, .s_axi_wstrb, .s_axi_wlast, .s_axi_wvalid, .s_axi_wready,
      .s_axi_bid, .s_axi_bresp, .s_axi_bvalid, .s_axi_bready,
      .s_axi_arid, .s_axi_araddr, .s_axi_arlen, .s_axi_arsize, .s_axi_arvalid, .s_axi_arready,
      .s_axi_rid, .s_axi_rdata, .s_axi_rresp, .s_axi_rlast, .s_axi_rvalid, .s_axi_rready,
      .m_axil_awaddr(nl_awaddr), .m_axil_awprot(nl_awprot), .m_axil_awvalid(nl_awvalid),
      .m_axil_awready(nl_awready), .m_axil_wdata(nl_wdata), .m_axil_wstrb(nl_wstrb),
      .m_axil_wvalid(nl_wvalid), .m_axil_wready(nl_wready), .m_axil_bresp(nl_bresp),
      .m_axil_bvalid(nl_bvalid), .m_axil_bready(nl_bready), .m_axil_araddr(nl_araddr),
      .m_axil_arprot(nl_arprot), .m_axil_arvalid(nl_arvalid), .m_axil_arready(nl_arready),
      .m_axil_rdata(nl_rdata), .m_axil_rresp(nl_rresp), .m_axil_rvalid(nl_rvalid),
      .m_axil_rready(nl_rready),
      .brd_regs(brd)
  );

  // =====================================================================
  // interrupts
  // =====================================================================
  logic [IRQ_LINES-1:0] irq_ev, irq_pend_q, irq_again_q;

  always_comb begin
    irq_ev = '0;
    if (roce_irq_valid) irq_ev[int'(roce_irq_vector[$clog2(RL)-1:0])] = 1'b1;
    if (vio_irq_valid)  irq_ev[RL + int'(vio_irq_vector[$clog2(VL)-1:0])] = 1'b1;
    if (vio_cfg_irq_valid) irq_ev[IRQ_LINES-1] = 1'b1;
  end

  always_ff @(posedge core_clk) begin
    for (int i = 0; i < IRQ_LINES; i++) begin
      if (irq_pend_q[i]) begin
        if (irq_ev[i])      irq_again_q[i] <= 1'b1;
        if (usr_irq_ack[i]) irq_pend_q[i]  <= 1'b0;
      end else if (irq_again_q[i] || irq_ev[i]) begin
        irq_pend_q[i]  <= 1'b1;
        irq_again_q[i] <= 1'b0;
      end
    end
    if (rst) begin
      irq_pend_q  <= '0;
      irq_again_q <= '0;
    end
  end
  assign usr_irq_req = irq_pend_q;

  logic unused_irq;
  assign unused_irq = ^{roce_irq_vector[15:$clog2(RL)], vio_irq_vector[15:$clog2(VL)],
                        vio_cfg_irq_vector};

  // =====================================================================
  // wire TX: core_clk -> mac_clk
  // =====================================================================
  logic [DATA_W-1:0] tg_tdata, tc_tdata;
  logic [KEEP_W-1:0] tg_tkeep, tc_tkeep;
  logic              tg_tvalid, tg_tready, tg_tlast, tg_tuser;
  logic              tc_tvalid, tc_tready, tc_tlast, tc_tuser;
  logic              txc_s_rst, txc_m_rst, tx_reset_drop;
  logic              tx_oversize;
  logic [$clog2(TX_FIFO_DEPTH):0] unused_tx_depth;
  logic              unused_tx_good, unused_tx_bad, unused_tx_ovf;

  fabnic_u250_frame_guard #(.DATA_W(DATA_W), .MIN_BYTES(60)) u_tx_guard (
      .clk(core_clk), .rst, .flush(txc_s_rst), .block(!link_up), .src_abort(1'b0),
      .s_axis_tdata(ntx_tdata), .s_axis_tkeep(ntx_tkeep), .s_axis_tvalid(ntx_tvalid),
      .s_axis_tready(ntx_tready), .s_axis_tlast(ntx_tlast), .s_axis_tuser(ntx_tuser),
      .m_axis_tdata(tg_tdata), .m_axis_tkeep(tg_tkeep), .m_axis_tvalid(tg_tvalid),
      .m_axis_tready(tg_tready), .m_axis_tlast(tg_tlast), .m_axis_tuser(tg_tuser),
      .drop(tx_reset_drop));

  fabnic_axis_async_fifo #(.DATA_W(DATA_W), .DEPTH(CDC_DEPTH), .SYNC_STAGES(SYNC_STAGES))
  u_tx_cdc (
      .s_clk(core_clk), .s_rst(rst),
      .s_axis_tdata(tg_tdata), .s_axis_tkeep(tg_tkeep), .s_axis_tvalid(tg_tvalid),
      .s_axis_tready(tg_tready), .s_axis_tlast(tg_tlast), .s_axis_tuser(tg_tuser),
      .s_rst_active(txc_s_rst),
      .m_clk(mac_clk), .m_rst(mac_tx_rst),
      .m_axis_tdata(tc_tdata), .m_axis_tkeep(tc_tkeep), .m_axis_tvalid(tc_tvalid),
      .m_axis_tready(tc_tready), .m_axis_tlast(tc_tlast), .m_axis_tuser(tc_tuser),
      .m_rst_active(txc_m_rst));

  fabnic_axis_fifo #(.DATA_W(DATA_W), .DEPTH(TX_FIFO_DEPTH), .FRAME_FIFO(1'b1),
                     .DROP_BAD_FRAME(1'b0), .DROP_WHEN_FULL(1'b0)) u_tx_frame (
      .clk(mac_clk), .rst(txc_m_rst),
      .s_axis_tdata(tc_tdata), .s_axis_tkeep(tc_tkeep), .s_axis_tvalid(tc_tvalid),
      .s_axis_tready(tc_tready), .s_axis_tlast(tc_tlast), .s_axis_tuser(tc_tuser),
      .m_axis_tdata(mac_tx_axis_tdata), .m_axis_tkeep(mac_tx_axis_tkeep),
      .m_axis_tvalid(mac_tx_axis_tvalid), .m_axis_tready(mac_tx_axis_tready),
      .m_axis_tlast(mac_tx_axis_tlast), .m_axis_tuser(mac_tx_axis_tuser),
      .status_depth(unused_tx_depth), .status_good_frame(unused_tx_good),
      .status_bad_frame(unused_tx_bad), .status_overflow(unused_tx_ovf),
      .status_oversize(tx_oversize));

  // =====================================================================
  // wire RX: mac_clk -> core_clk
  // =====================================================================
  logic [DATA_W-1:0] rg_tdata, rf_tdata;
  logic [KEEP_W-1:0] rg_tkeep, rf_tkeep;
  logic              rg_tvalid, rg_tready, rg_tlast, rg_tuser;
  logic              rf_tvalid, rf_tready, rf_tlast, rf_tuser;
  logic              rxc_s_rst, rxc_m_rst, rx_reset_drop, rx_overflow, rx_oversize;
  logic [$clog2(RX_FIFO_DEPTH):0] unused_rx_depth;
  logic              unused_rx_good, unused_rx_bad, unused_rx_m_rst;

  fabnic_u250_frame_guard #(.DATA_W(DATA_W), .MIN_BYTES(0)) u_rx_guard (
      .clk(mac_clk), .rst(mac_core_rst), .flush(rxc_s_rst), .block(1'b0),
      .src_abort(mac_rx_rst),
      .s_axis_tdata(mac_rx_axis_tdata), .s_axis_tkeep(mac_rx_axis_tkeep),
      .s_axis_tvalid(mac_rx_axis_tvalid), .s_axis_tready(),   // the CMAC cannot wait
      .s_axis_tlast(mac_rx_axis_tlast), .s_axis_tuser(mac_rx_axis_tuser),
      .m_axis_tdata(rg_tdata), .m_axis_tkeep(rg_tkeep), .m_axis_tvalid(rg_tvalid),
      .m_axis_tready(rg_tready), .m_axis_tlast(rg_tlast), .m_axis_tuser(rg_tuser),
      .drop(rx_reset_drop));

  // never back-pressures (DROP_WHEN_FULL): rg_tready is always 1
  fabnic_axis_fifo #(.DATA_W(DATA_W), .DEPTH(RX_FIFO_DEPTH), .FRAME_FIFO(1'b1),
                     .DROP_BAD_FRAME(1'b0), .DROP_WHEN_FULL(1'b1)) u_rx_frame (
      .clk(mac_clk), .rst(rxc_s_rst),
      .s_axis_tdata(rg_tdata), .s_axis_tkeep(rg_tkeep), .s_axis_tvalid(rg_tvalid),
      .s_axis_tready(rg_tready), .s_axis_tlast(rg_tlast), .s_axis_tuser(rg_tuser),
      .m_axis_tdata(rf_tdata), .m_axis_tkeep(rf_tkeep), .m_axis_tvalid(rf_tvalid),
      .m_axis_tready(rf_tready), .m_axis_tlast(rf_tlast), .m_axis_tuser(rf_tuser),
      .status_depth(unused_rx_depth), .status_good_frame(unused_rx_good),
      .status_bad_frame(unused_rx_bad), .status_overflow(rx_overflow),
      .status_oversize(rx_oversize));

  fabnic_axis_async_fifo #(.DATA_W(DATA_W), .DEPTH(CDC_DEPTH), .SYNC_STAGES(SYNC_STAGES))
  u_rx_cdc (
      .s_clk(mac_clk), .s_rst(mac_core_rst),
      .s_axis_tdata(rf_tdata), .s_axis_tkeep(rf_tkeep), .s_axis_tvalid(rf_tvalid),
      .s_axis_tready(rf_tready), .s_axis_tlast(rf_tlast), .s_axis_tuser(rf_tuser),
      .s_rst_active(rxc_s_rst),
      .m_clk(core_clk), .m_rst(rst),
      .m_axis_tdata(nrx_tdata), .m_axis_tkeep(nrx_tkeep), .m_axis_tvalid(nrx_tvalid),
      .m_axis_tready(nrx_tready), .m_axis_tlast(nrx_tlast), .m_axis_tuser(nrx_tuser),
      .m_rst_active(rxc_m_rst));
  assign unused_rx_m_rst = rxc_m_rst;

  // =====================================================================
  // status: MAC side and pins into core_clk, board registers
  // =====================================================================
  localparam int NCNT = 5;
  logic [31:0] mac_cnt [NCNT];
  logic [31:0] pin_cnt_unused [1];
  logic [3:0]  pins;
  logic [31:0] tx_reset_drop_cnt_q;

  fabnic_u250_status_cdc #(.LEVELS(1), .COUNTS(NCNT), .CNT_W(32), .SYNC_STAGES(SYNC_STAGES))
  u_mac_status (
      .src_clk(mac_clk), .src_rst(mac_core_rst), .src_level(mac_rx_aligned),
      .src_event({mac_tx_underflow, tx_oversize, rx_reset_drop, rx_oversize, rx_overflow}),
      .dst_clk(core_clk), .dst_rst(rst), .dst_level(link_up), .dst_count(mac_cnt));

  fabnic_u250_status_cdc #(.LEVELS(4), .COUNTS(0), .SYNC_STAGES(SYNC_STAGES)) u_pin_status (
      .src_clk(core_clk), .src_rst(1'b0),
      .src_level({qsfp1_irq, qsfp1_present, qsfp0_irq, qsfp0_present}), .src_event(1'b0),
      .dst_clk(core_clk), .dst_rst(rst), .dst_level(pins), .dst_count(pin_cnt_unused));

  always_ff @(posedge core_clk) begin
    if (tx_reset_drop) tx_reset_drop_cnt_q <= tx_reset_drop_cnt_q + 1'b1;
    if (rst) tx_reset_drop_cnt_q <= '0;
  end

  always_comb begin
    for (int i = 0; i < NBRD; i++) brd[i] = '0;
    brd[0] = 32'h5532_3530;                                 // "U250"
    brd[1] = 32'h0001_0000;                                 // shell version 1.0
    brd[2] = {26'd0, nic_init_done, pins, link_up};
    brd[3] = mac_cnt[0];                                    // RX dropped: FIFO full
    brd[4] = mac_cnt[1];                                    // RX dropped: longer than FIFO
    brd[5] = mac_cnt[2];                                    // RX lost to a reset
    brd[6] = tx_reset_drop_cnt_q;                           // TX dropped: link/reset
    brd[7] = mac_cnt[3];                                    // TX dropped: longer than FIFO
    brd[8] = mac_cnt[4];                                    // CMAC TX underflow cycles
  end

  logic unused_status;
  assign unused_status = ^{pin_cnt_unused[0], unused_tx_depth, unused_tx_good, unused_tx_bad,
                           unused_tx_ovf, unused_rx_depth, unused_rx_good, unused_rx_bad,
                           unused_rx_m_rst};

endmodule

`resetall
