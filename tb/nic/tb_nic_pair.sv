// SPDX-License-Identifier: Apache-2.0
//
// tb_nic_pair (testbench only): two fabnic_nic (A, B), each with two SystemVerilog host
// memories (tb_host_axi_mem: m_axi = RoCE host memory, m_vio_axi = virtio guest
// memory), joined by two fabnic_tb_link cables (lab: A -> B, lba: B -> A). Each NIC's
// wire TX is recorded by a fabnic_tb_net_tap (tap_a, tap_b: whole frames up to
// CAP_BYTES), read by Python at the end. The AXI-Lite slaves are ports (fw driver).
`default_nettype none

module tb_nic_pair #(
    parameter int NUM_QP  = 64,
    parameter int NUM_CQ  = 16,
    parameter int NUM_MR  = 64,
    parameter int MEM_AW  = 20,
    parameter int VMEM_AW = 18
) (
    input  wire logic clk,
    input  wire logic rst,
    input  wire logic [15:0] mem_latency,
    input  wire logic [24:0] a_s_axil_awaddr,
    input  wire logic [2:0] a_s_axil_awprot,
    input  wire logic  a_s_axil_awvalid,
    output logic  a_s_axil_awready,
    input  wire logic [31:0] a_s_axil_wdata,
    input  wire logic [3:0] a_s_axil_wstrb,
    input  wire logic  a_s_axil_wvalid,
    output logic  a_s_axil_wready,
    output logic [1:0] a_s_axil_bresp,
    output logic  a_s_axil_bvalid,
    input  wire logic  a_s_axil_bready,
    input  wire logic [24:0] a_s_axil_araddr,
    input  wire logic [2:0] a_s_axil_arprot,
    input  wire logic  a_s_axil_arvalid,
    output logic  a_s_axil_arready,
    output logic [31:0] a_s_axil_rdata,
    output logic [1:0] a_s_axil_rresp,
    output logic  a_s_axil_rvalid,
    input  wire logic  a_s_axil_rready,
    input  wire logic [24:0] b_s_axil_awaddr,
    input  wire logic [2:0] b_s_axil_awprot,
    input  wire logic  b_s_axil_awvalid,
    output logic  b_s_axil_awready,
    input  wire logic [31:0] b_s_axil_wdata,
    input  wire logic [3:0] b_s_axil_wstrb,
    input  wire logic  b_s_axil_wvalid,
    output logic  b_s_axil_wready,
    output logic [1:0] b_s_axil_bresp,
    output logic  b_s_axil_bvalid,
    input  wire logic  b_s_axil_bready,
    input  wire logic [24:0] b_s_axil_araddr,
    input  wire logic [2:0] b_s_axil_arprot,
    input  wire logic  b_s_axil_arvalid,
    output logic  b_s_axil_arready,
    output logic [31:0] b_s_axil_rdata,
    output logic [1:0] b_s_axil_rresp,
    output logic  b_s_axil_rvalid,
    input  wire logic  b_s_axil_rready,
    input  wire logic [31:0] lab_rate,
    input  wire logic [31:0] lab_delay,
    input  wire logic        lab_link_down,
    input  wire logic [31:0] lba_rate,
    input  wire logic [31:0] lba_delay,
    input  wire logic        lba_link_down,
    output logic [31:0]      lab_frames,
    output logic [31:0]      lba_frames,
    output logic             a_init_done,
    output logic             b_init_done,
    // switch stand-in on A -> B: ECT -> CE on the outer IPv4/IPv6 header of A's frames
    input  wire logic        ce_mark_ab,
    output logic [31:0]      ce_marked_ab,
    // third-party frames into B's receive wire, taken only between link frames (an
    // idle injector leaves the link timing unchanged)
    input  wire logic [511:0] inj_tdata,
    input  wire logic [63:0]  inj_tkeep,
    input  wire logic         inj_tvalid,
    output logic              inj_tready,
    input  wire logic         inj_tlast
);
  logic [511:0] a_tx_tdata, b_tx_tdata, a_rx_tdata, b_rx_tdata;
  logic [63:0]  a_tx_tkeep, b_tx_tkeep, a_rx_tkeep, b_rx_tkeep;
  logic         a_tx_tvalid, a_tx_tready, a_tx_tlast, a_tx_tuser;
  logic         b_tx_tvalid, b_tx_tready, b_tx_tlast, b_tx_tuser;
  logic         a_rx_tvalid, a_rx_tready, a_rx_tlast, b_rx_tvalid, b_rx_tready, b_rx_tlast;
  logic [0:0]   a_rx_tuser, b_rx_tuser;
  logic [63:0]  cycle;

  always_ff @(posedge clk) begin
    cycle <= rst ? 64'd0 : cycle + 64'd1;
  end

  logic [3:0] a_axi_awid;
  logic [63:0] a_axi_awaddr;
  logic [7:0] a_axi_awlen;
  logic [2:0] a_axi_awsize;
  logic [1:0] a_axi_awburst;
  logic a_axi_awlock;
  logic [3:0] a_axi_awcache;
  logic [2:0] a_axi_awprot;
  logic a_axi_awvalid;
  logic a_axi_awready;
  logic [511:0] a_axi_wdata;
  logic [63:0] a_axi_wstrb;
  logic a_axi_wlast;
  logic a_axi_wvalid;
  logic a_axi_wready;
  logic [3:0] a_axi_bid;
  logic [1:0] a_axi_bresp;
  logic a_axi_bvalid;
  logic a_axi_bready;
  logic [3:0] a_axi_arid;
  logic [63:0] a_axi_araddr;
  logic [7:0] a_axi_arlen;
  logic [2:0] a_axi_arsize;
  logic [1:0] a_axi_arburst;
  logic a_axi_arlock;
  logic [3:0] a_axi_arcache;
  logic [2:0] a_axi_arprot;
  logic a_axi_arvalid;
  logic a_axi_arready;
  logic [3:0] a_axi_rid;
  logic [511:0] a_axi_rdata;
  logic [1:0] a_axi_rresp;
  logic a_axi_rlast;
  logic a_axi_rvalid;
  logic a_axi_rready;
  logic [3:0] a_vaxi_awid;
  logic [63:0] a_vaxi_awaddr;
  logic [7:0] a_vaxi_awlen;
  logic [2:0] a_vaxi_awsize;
  logic [1:0] a_vaxi_awburst;
  logic a_vaxi_awlock;
  logic [3:0] a_vaxi_awcache;
  logic [2:0] a_vaxi_awprot;
  logic a_vaxi_awvalid;
  logic a_vaxi_awready;
  logic [511:0] a_vaxi_wdata;
  logic [63:0] a_vaxi_wstrb;
  logic a_vaxi_wlast;
  logic a_vaxi_wvalid;
  logic a_vaxi_wready;
  logic [3:0] a_vaxi_bid;
  logic [1:0] a_vaxi_bresp;
  logic a_vaxi_bvalid;
  logic a_vaxi_bready;
  logic [3:0] a_vaxi_arid;
  logic [63:0] a_vaxi_araddr;
  logic [7:0] a_vaxi_arlen;
  logic [2:0] a_vaxi_arsize;
  logic [1:0] a_vaxi_arburst;
  logic a_vaxi_arlock;
  logic [3:0] a_vaxi_arcache;
  logic [2:0] a_vaxi_arprot;
  logic a_vaxi_arvalid;
  logic a_vaxi_arready;
  logic [3:0] a_vaxi_rid;
  logic [511:0] a_vaxi_rdata;
  logic [1:0] a_vaxi_rresp;
  logic a_vaxi_rlast;
  logic a_vaxi_rvalid;
  logic a_vaxi_rready;
  logic [3:0] b_axi_awid;
  logic [63:0] b_axi_awaddr;
  logic [7:0] b_axi_awlen;
  logic [2:0] b_axi_awsize;
  logic [1:0] b_axi_awburst;
  logic b_axi_awlock;
  logic [3:0] b_axi_awcache;
  logic [2:0] b_axi_awprot;
  logic b_axi_awvalid;
  logic b_axi_awready;
  logic [511:0] b_axi_wdata;
  logic [63:0] b_axi_wstrb;
  logic b_axi_wlast;
  logic b_axi_wvalid;
  logic b_axi_wready;
  logic [3:0] b_axi_bid;
  logic [1:0] b_axi_bresp;
  logic b_axi_bvalid;
  logic b_axi_bready;
  logic [3:0] b_axi_arid;
  logic [63:0] b_axi_araddr;
  logic [7:0] b_axi_arlen;
  logic [2:0] b_axi_arsize;
  logic [1:0] b_axi_arburst;
  logic b_axi_arlock;
  logic [3:0] b_axi_arcache;
  logic [2:0] b_axi_arprot;
  logic b_axi_arvalid;
  logic b_axi_arready;
  logic [3:0] b_axi_rid;
  logic [511:0] b_axi_rdata;
  logic [1:0] b_axi_rresp;
  logic b_axi_rlast;
  logic b_axi_rvalid;
  logic b_axi_rready;
  logic [3:0] b_vaxi_awid;
  logic [63:0] b_vaxi_awaddr;
  logic [7:0] b_vaxi_awlen;
  logic [2:0] b_vaxi_awsize;
  logic [1:0] b_vaxi_awburst;
  logic b_vaxi_awlock;
  logic [3:0] b_vaxi_awcache;
  logic [2:0] b_vaxi_awprot;
  logic b_vaxi_awvalid;
  logic b_vaxi_awready;
  logic [511:0] b_vaxi_wdata;
  logic [63:0] b_vaxi_wstrb;
  logic b_vaxi_wlast;
  logic b_vaxi_wvalid;
  logic b_vaxi_wready;
  logic [3:0] b_vaxi_bid;
  logic [1:0] b_vaxi_bresp;
  logic b_vaxi_bvalid;
  logic b_vaxi_bready;
  logic [3:0] b_vaxi_arid;
  logic [63:0] b_vaxi_araddr;
  logic [7:0] b_vaxi_arlen;
  logic [2:0] b_vaxi_arsize;
  logic [1:0] b_vaxi_arburst;
  logic b_vaxi_arlock;
  logic [3:0] b_vaxi_arcache;
  logic [2:0] b_vaxi_arprot;
  logic b_vaxi_arvalid;
  logic b_vaxi_arready;
  logic [3:0] b_vaxi_rid;
  logic [511:0] b_vaxi_rdata;
  logic [1:0] b_vaxi_rresp;
  logic b_vaxi_rlast;
  logic b_vaxi_rvalid;
  logic b_vaxi_rready;

  fabnic_nic #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .PAIRS(2), .VS_ENTRIES(64),
               .VNI_ENTRIES(4), .TUN_ENTRIES(4)) u_nic_a (
      .clk, .rst,
      .s_axil_awaddr(a_s_axil_awaddr), .s_axil_awprot(a_s_axil_awprot),
      .s_axil_awvalid(a_s_axil_awvalid), .s_axil_awready(a_s_axil_awready),
      .s_axil_wdata(a_s_axil_wdata), .s_axil_wstrb(a_s_axil_wstrb),
      .s_axil_wvalid(a_s_axil_wvalid), .s_axil_wready(a_s_axil_wready),
      .s_axil_bresp(a_s_axil_bresp), .s_axil_bvalid(a_s_axil_bvalid),
      .s_axil_bready(a_s_axil_bready), .s_axil_araddr(a_s_axil_araddr),
      .s_axil_arprot(a_s_axil_arprot), .s_axil_arvalid(a_s_axil_arvalid),
      .s_axil_arready(a_s_axil_arready), .s_axil_rdata(a_s_axil_rdata),
      .s_axil_rresp(a_s_axil_rresp), .s_axil_rvalid(a_s_axil_rvalid),
      .s_axil_rready(a_s_axil_rready),
      .m_axi_awid(a_axi_awid), .m_axi_awaddr(a_axi_awaddr), .m_axi_awlen(a_axi_awlen),
      .m_axi_awsize(a_axi_awsize), .m_axi_awburst(a_axi_awburst), .m_axi_awlock(a_axi_awlock),
      .m_axi_awcache(a_axi_awcache), .m_axi_awprot(a_axi_awprot),
      .m_axi_awvalid(a_axi_awvalid), .m_axi_awready(a_axi_awready), .m_axi_wdata(a_axi_wdata),
      .m_axi_wstrb(a_axi_wstrb), .m_axi_wlast(a_axi_wlast), .m_axi_wvalid(a_axi_wvalid),
      .m_axi_wready(a_axi_wready), .m_axi_bid(a_axi_bid), .m_axi_bresp(a_axi_bresp),
      .m_axi_bvalid(a_axi_bvalid), .m_axi_bready(a_axi_bready), .m_axi_arid(a_axi_arid),
      .m_axi_araddr(a_axi_araddr), .m_axi_arlen(a_axi_arlen), .m_axi_arsize(a_axi_arsize),
      .m_axi_arburst(a_axi_arburst), .m_axi_arlock(a_axi_arlock),
      .m_axi_arcache(a_axi_arcache), .m_axi_arprot(a_axi_arprot),
      .m_axi_arvalid(a_axi_arvalid), .m_axi_arready(a_axi_arready), .m_axi_rid(a_axi_rid),
      .m_axi_rdata(a_axi_rdata), .m_axi_rresp(a_axi_rresp), .m_axi_rlast(a_axi_rlast),
      .m_axi_rvalid(a_axi_rvalid), .m_axi_rready(a_axi_rready),
      .m_vio_axi_awid(a_vaxi_awid), .m_vio_axi_awaddr(a_vaxi_awaddr),
      .m_vio_axi_awlen(a_vaxi_awlen), .m_vio_axi_awsize(a_vaxi_awsize),
      .m_vio_axi_awburst(a_vaxi_awburst), .m_vio_axi_awlock(a_vaxi_awlock),
      .m_vio_axi_awcache(a_vaxi_awcache), .m_vio_axi_awprot(a_vaxi_awprot),
      .m_vio_axi_awvalid(a_vaxi_awvalid), .m_vio_axi_awready(a_vaxi_awready),
      .m_vio_axi_wdata(a_vaxi_wdata), .m_vio_axi_wstrb(a_vaxi_wstrb),
      .m_vio_axi_wlast(a_vaxi_wlast), .m_vio_axi_wvalid(a_vaxi_wvalid),
      .m_vio_axi_wready(a_vaxi_wready), .m_vio_axi_bid(a_vaxi_bid),
      .m_vio_axi_bresp(a_vaxi_bresp), .m_vio_axi_bvalid(a_vaxi_bvalid),
      .m_vio_axi_bready(a_vaxi_bready), .m_vio_axi_arid(a_vaxi_arid),
      .m_vio_axi_araddr(a_vaxi_araddr), .m_vio_axi_arlen(a_vaxi_arlen),
      .m_vio_axi_arsize(a_vaxi_arsize), .m_vio_axi_arburst(a_vaxi_arburst),
      .m_vio_axi_arlock(a_vaxi_arlock), .m_vio_axi_arcache(a_vaxi_arcache),
      .m_vio_axi_arprot(a_vaxi_arprot), .m_vio_axi_arvalid(a_vaxi_arvalid),
      .m_vio_axi_arready(a_vaxi_arready), .m_vio_axi_rid(a_vaxi_rid),
      .m_vio_axi_rdata(a_vaxi_rdata), .m_vio_axi_rresp(a_vaxi_rresp),
      .m_vio_axi_rlast(a_vaxi_rlast), .m_vio_axi_rvalid(a_vaxi_rvalid),
      .m_vio_axi_rready(a_vaxi_rready),
      .s_mac_rx_tdata(a_rx_tdata), .s_mac_rx_tkeep(a_rx_tkeep), .s_mac_rx_tvalid(a_rx_tvalid),
      .s_mac_rx_tready(a_rx_tready), .s_mac_rx_tlast(a_rx_tlast), .s_mac_rx_tuser(a_rx_tuser[0]),
      .m_mac_tx_tdata(a_tx_tdata), .m_mac_tx_tkeep(a_tx_tkeep), .m_mac_tx_tvalid(a_tx_tvalid),
      .m_mac_tx_tready(a_tx_tready), .m_mac_tx_tlast(a_tx_tlast), .m_mac_tx_tuser(a_tx_tuser),
      .m_irq_valid(), .m_irq_vector(), .dev_mac(48'h0a_00_00_00_00_52), .link_up(1'b1),
      .vio_irq_valid(), .vio_irq_vector(), .vio_cfg_irq_valid(), .vio_cfg_irq_vector(),
      .init_done(a_init_done)
  );
  tb_host_axi_mem #(.DATA_W(512), .ID_W(4), .MEM_AW(MEM_AW)) u_mem_a (
      .clk, .rst, .latency(mem_latency),
      .s_axi_arid(a_axi_arid), .s_axi_araddr(a_axi_araddr), .s_axi_arlen(a_axi_arlen),
      .s_axi_arvalid(a_axi_arvalid), .s_axi_arready(a_axi_arready), .s_axi_rid(a_axi_rid),
      .s_axi_rdata(a_axi_rdata), .s_axi_rresp(a_axi_rresp), .s_axi_rlast(a_axi_rlast),
      .s_axi_rvalid(a_axi_rvalid), .s_axi_rready(a_axi_rready), .s_axi_awid(a_axi_awid),
      .s_axi_awaddr(a_axi_awaddr), .s_axi_awlen(a_axi_awlen), .s_axi_awvalid(a_axi_awvalid),
      .s_axi_awready(a_axi_awready), .s_axi_wdata(a_axi_wdata), .s_axi_wstrb(a_axi_wstrb),
      .s_axi_wlast(a_axi_wlast), .s_axi_wvalid(a_axi_wvalid), .s_axi_wready(a_axi_wready),
      .s_axi_bid(a_axi_bid), .s_axi_bresp(a_axi_bresp), .s_axi_bvalid(a_axi_bvalid),
      .s_axi_bready(a_axi_bready)
  );
  tb_host_axi_mem #(.DATA_W(512), .ID_W(4), .MEM_AW(VMEM_AW)) u_vmem_a (
      .clk, .rst, .latency(mem_latency),
      .s_axi_arid(a_vaxi_arid), .s_axi_araddr(a_vaxi_araddr), .s_axi_arlen(a_vaxi_arlen),
      .s_axi_arvalid(a_vaxi_arvalid), .s_axi_arready(a_vaxi_arready), .s_axi_rid(a_vaxi_rid),
      .s_axi_rdata(a_vaxi_rdata), .s_axi_rresp(a_vaxi_rresp), .s_axi_rlast(a_vaxi_rlast),
      .s_axi_rvalid(a_vaxi_rvalid), .s_axi_rready(a_vaxi_rready), .s_axi_awid(a_vaxi_awid),
      .s_axi_awaddr(a_vaxi_awaddr), .s_axi_awlen(a_vaxi_awlen),
      .s_axi_awvalid(a_vaxi_awvalid), .s_axi_awready(a_vaxi_awready),
      .s_axi_wdata(a_vaxi_wdata), .s_axi_wstrb(a_vaxi_wstrb), .s_axi_wlast(a_vaxi_wlast),
      .s_axi_wvalid(a_vaxi_wvalid), .s_axi_wready(a_vaxi_wready), .s_axi_bid(a_vaxi_bid),
      .s_axi_bresp(a_vaxi_bresp), .s_axi_bvalid(a_vaxi_bvalid), .s_axi_bready(a_vaxi_bready)
  );
  fabnic_nic #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .PAIRS(2), .VS_ENTRIES(64),
               .VNI_ENTRIES(4), .TUN_ENTRIES(4)) u_nic_b (
      .clk, .rst,
      .s_axil_awaddr(b_s_axil_awaddr), .s_axil_awprot(b_s_axil_awprot),
      .s_axil_awvalid(b_s_axil_awvalid), .s_axil_awready(b_s_axil_awready),
      .s_axil_wdata(b_s_axil_wdata), .s_axil_wstrb(b_s_axil_wstrb),
      .s_axil_wvalid(b_s_axil_wvalid), .s_axil_wready(b_s_axil_wready),
      .s_axil_bresp(b_s_axil_bresp), .s_axil_bvalid(b_s_axil_bvalid),
      .s_axil_bready(b_s_axil_bready), .s_axil_araddr(b_s_axil_araddr),
      .s_axil_arprot(b_s_axil_arprot), .s_axil_arvalid(b_s_axil_arvalid),
      .s_axil_arready(b_s_axil_arready), .s_axil_rdata(b_s_axil_rdata),
      .s_axil_rresp(b_s_axil_rresp), .s_axil_rvalid(b_s_axil_rvalid),
      .s_axil_rready(b_s_axil_rready),
      .m_axi_awid(b_axi_awid), .m_axi_awaddr(b_axi_awaddr), .m_axi_awlen(b_axi_awlen),
      .m_axi_awsize(b_axi_awsize), .m_axi_awburst(b_axi_awburst), .m_axi_awlock(b_axi_awlock),
      .m_axi_awcache(b_axi_awcache), .m_axi_awprot(b_axi_awprot),
      .m_axi_awvalid(b_axi_awvalid), .m_axi_awready(b_axi_awready), .m_axi_wdata(b_axi_wdata),
      .m_axi_wstrb(b_axi_wstrb), .m_axi_wlast(b_axi_wlast), .m_axi_wvalid(b_axi_wvalid),
      .m_axi_wready(b_axi_wready), .m_axi_bid(b_axi_bid), .m_axi_bresp(b_axi_bresp),
      .m_axi_bvalid(b_axi_bvalid), .m_axi_bready(b_axi_bready), .m_axi_arid(b_axi_arid),
      .m_axi_araddr(b_axi_araddr), .m_axi_arlen(b_axi_arlen), .m_axi_arsize(b_axi_arsize),
      .m_axi_arburst(b_axi_arburst), .m_axi_arlock(b_axi_arlock),
      .m_axi_arcache(b_axi_arcache), .m_axi_arprot(b_axi_arprot),
      .m_axi_arvalid(b_axi_arvalid), .m_axi_arready(b_axi_arready), .m_axi_rid(b_axi_rid),
      .m_axi_rdata(b_axi_rdata), .m_axi_rresp(b_axi_rresp), .m_axi_rlast(b_axi_rlast),
      .m_axi_rvalid(b_axi_rvalid), .m_axi_rready(b_axi_rready),
      .m_vio_axi_awid(b_vaxi_awid), .m_vio_axi_awaddr(b_vaxi_awaddr),
      .m_vio_axi_awlen(b_vaxi_awlen), .m_vio_axi_awsize(b_vaxi_awsize),
      .m_vio_axi_awburst(b_vaxi_awburst), .m_vio_axi_awlock(b_vaxi_awlock),
      .m_vio_axi_awcache(b_vaxi_awcache), .m_vio_axi_awprot(b_vaxi_awprot),
      .m_vio_axi_awvalid(b_vaxi_awvalid), .m_vio_axi_awready(b_vaxi_awready),
      .m_vio_axi_wdata(b_vaxi_wdata), .m_vio_axi_wstrb(b_vaxi_wstrb),
      .m_vio_axi_wlast(b_vaxi_wlast), .m_vio_axi_wvalid(b_vaxi_wvalid),
      .m_vio_axi_wready(b_vaxi_wready), .m_vio_axi_bid(b_vaxi_bid),
      .m_vio_axi_bresp(b_vaxi_bresp), .m_vio_axi_bvalid(b_vaxi_bvalid),
      .m_vio_axi_bready(b_vaxi_bready), .m_vio_axi_arid(b_vaxi_arid),
      .m_vio_axi_araddr(b_vaxi_araddr), .m_vio_axi_arlen(b_vaxi_arlen),
      .m_vio_axi_arsize(b_vaxi_arsize), .m_vio_axi_arburst(b_vaxi_arburst),
      .m_vio_axi_arlock(b_vaxi_arlock), .m_vio_axi_arcache(b_vaxi_arcache),
      .m_vio_axi_arprot(b_vaxi_arprot), .m_vio_axi_arvalid(b_vaxi_arvalid),
      .m_vio_axi_arready(b_vaxi_arready), .m_vio_axi_rid(b_vaxi_rid),
      .m_vio_axi_rdata(b_vaxi_rdata), .m_vio_axi_rresp(b_vaxi_rresp),
      .m_vio_axi_rlast(b_vaxi_rlast), .m_vio_axi_rvalid(b_vaxi_rvalid),
      .m_vio_axi_rready(b_vaxi_rready),
      .s_mac_rx_tdata(b_rx_tdata), .s_mac_rx_tkeep(b_rx_tkeep), .s_mac_rx_tvalid(b_rx_tvalid),
      .s_mac_rx_tready(b_rx_tready), .s_mac_rx_tlast(b_rx_tlast), .s_mac_rx_tuser(b_rx_tuser[0]),
      .m_mac_tx_tdata(b_tx_tdata), .m_mac_tx_tkeep(b_tx_tkeep), .m_mac_tx_tvalid(b_tx_tvalid),
      .m_mac_tx_tready(b_tx_tready), .m_mac_tx_tlast(b_tx_tlast), .m_mac_tx_tuser(b_tx_tuser),
      .m_irq_valid(), .m_irq_vector(), .dev_mac(48'h0b_00_00_00_00_52), .link_up(1'b1),
      .vio_irq_valid(), .vio_irq_vector(), .vio_cfg_irq_valid(), .vio_cfg_irq_vector(),
      .init_done(b_init_done)
  );
  tb_host_axi_mem #(.DATA_W(512), .ID_W(4), .MEM_AW(MEM_AW)) u_mem_b (
      .clk, .rst, .latency(mem_latency),
      .s_axi_arid(b_axi_arid), .s_axi_araddr(b_axi_araddr), .s_axi_arlen(b_axi_arlen),
      .s_axi_arvalid(b_axi_arvalid), .s_axi_arready(b_axi_arready), .s_axi_rid(b_axi_rid),
      .s_axi_rdata(b_axi_rdata), .s_axi_rresp(b_axi_rresp), .s_axi_rlast(b_axi_rlast),
      .s_axi_rvalid(b_axi_rvalid), .s_axi_rready(b_axi_rready), .s_axi_awid(b_axi_awid),
      .s_axi_awaddr(b_axi_awaddr), .s_axi_awlen(b_axi_awlen), .s_axi_awvalid(b_axi_awvalid),
      .s_axi_awready(b_axi_awready), .s_axi_wdata(b_axi_wdata), .s_axi_wstrb(b_axi_wstrb),
      .s_axi_wlast(b_axi_wlast), .s_axi_wvalid(b_axi_wvalid), .s_axi_wready(b_axi_wready),
      .s_axi_bid(b_axi_bid), .s_axi_bresp(b_axi_bresp), .s_axi_bvalid(b_axi_bvalid),
      .s_axi_bready(b_axi_bready)
  );
  tb_host_axi_mem #(.DATA_W(512), .ID_W(4), .MEM_AW(VMEM_AW)) u_vmem_b (
      .clk, .rst, .latency(mem_latency),
      .s_axi_arid(b_vaxi_arid), .s_axi_araddr(b_vaxi_araddr), .s_axi_arlen(b_vaxi_arlen),
      .s_axi_arvalid(b_vaxi_arvalid), .s_axi_arready(b_vaxi_arready), .s_axi_rid(b_vaxi_rid),
      .s_axi_rdata(b_vaxi_rdata), .s_axi_rresp(b_vaxi_rresp), .s_axi_rlast(b_vaxi_rlast),
      .s_axi_rvalid(b_vaxi_rvalid), .s_axi_rready(b_vaxi_rready), .s_axi_awid(b_vaxi_awid),
      .s_axi_awaddr(b_vaxi_awaddr), .s_axi_awlen(b_vaxi_awlen),
      .s_axi_awvalid(b_vaxi_awvalid), .s_axi_awready(b_vaxi_awready),
      .s_axi_wdata(b_vaxi_wdata), .s_axi_wstrb(b_vaxi_wstrb), .s_axi_wlast(b_vaxi_wlast),
      .s_axi_wvalid(b_vaxi_wvalid), .s_axi_wready(b_vaxi_wready), .s_axi_bid(b_vaxi_bid),
      .s_axi_bresp(b_vaxi_bresp), .s_axi_bvalid(b_vaxi_bvalid), .s_axi_bready(b_vaxi_bready)
  );

  logic [511:0] a_txm_tdata;
  logic         lab_m_tready;     // link A -> B output ready (from the injector mux)
  fabnic_tb_ce_mark #(.DATA_W(512)) u_ce_mark (
      .clk, .rst, .enable(ce_mark_ab), .s_tdata(a_tx_tdata), .s_tvalid(a_tx_tvalid),
      .s_tready(a_tx_tready), .s_tlast(a_tx_tlast), .m_tdata(a_txm_tdata),
      .cnt_marked(ce_marked_ab)
  );

  logic [1:0]   c_tready, l_tvalid, l_tlast;
  logic [511:0] l_tdata [2];
  logic [63:0]  l_tkeep [2];
  logic [0:0]   l_tuser [2];
  logic [31:0]  f_in [2];
  for (genvar n = 0; n < 2; n++) begin : g_link
    logic [31:0] c [10];
    logic [63:0] b0, b1;
    logic        ge;
    fabnic_tb_link #(.DATA_W(512), .BUF_BYTES(65536), .DESC_DEPTH(256)) u_link (
        .clk, .rst,
        .s_axis_tdata(n == 0 ? a_txm_tdata : b_tx_tdata),
        .s_axis_tkeep(n == 0 ? a_tx_tkeep : b_tx_tkeep),
        .s_axis_tvalid(n == 0 ? a_tx_tvalid : b_tx_tvalid),
        .s_axis_tready(c_tready[n]),
        .s_axis_tlast(n == 0 ? a_tx_tlast : b_tx_tlast),
        .s_axis_tuser(n == 0 ? a_tx_tuser : b_tx_tuser),
        .m_axis_tdata(l_tdata[n]), .m_axis_tkeep(l_tkeep[n]), .m_axis_tvalid(l_tvalid[n]),
        .m_axis_tready(n == 0 ? lab_m_tready : a_rx_tready),
        .m_axis_tlast(l_tlast[n]), .m_axis_tuser(l_tuser[n]),
        .rate(n == 0 ? lab_rate : lba_rate), .ovh(16'd24),
        .delay(n == 0 ? lab_delay : lba_delay), .seed(64'(n + 1)),
        .link_down(n == 0 ? lab_link_down : lba_link_down),
        .loss_en(1'b0), .loss_p('0), .ge_en(1'b0), .ge_p_gb('0), .ge_p_bg('0), .ge_loss('0),
        .dup_en(1'b0), .dup_p('0), .reorder_en(1'b0), .reorder_p('0), .hold_timeout(32'd0),
        .biterr_en(1'b0), .biterr_p('0), .drop_list_en('0), .drop_list('0),
        .cnt_frames_in(f_in[n]), .cnt_bytes_in(b0), .cnt_frames_out(c[0]), .cnt_bytes_out(b1),
        .cnt_drop_down(c[1]), .cnt_drop_list(c[2]), .cnt_drop_ge(c[3]), .cnt_drop_loss(c[4]),
        .cnt_drop_oversize(c[5]), .cnt_dup(c[6]), .cnt_reorder(c[7]), .cnt_biterr(c[8]),
        .cnt_ge_bad(c[9]), .ge_bad(ge)
    );
  end
  assign a_tx_tready = c_tready[0];
  assign b_tx_tready = c_tready[1];
  assign a_rx_tdata = l_tdata[1];
  assign a_rx_tkeep = l_tkeep[1];
  assign a_rx_tvalid = l_tvalid[1];
  assign a_rx_tlast = l_tlast[1];
  assign a_rx_tuser = l_tuser[1];
  // B's receive wire: the link, and between its frames the injector
  fabnic_tb_wire_inject #(.DATA_W(512)) u_inject (
      .clk, .rst,
      .s_link_tdata(l_tdata[0]), .s_link_tkeep(l_tkeep[0]), .s_link_tvalid(l_tvalid[0]),
      .s_link_tready(lab_m_tready), .s_link_tlast(l_tlast[0]), .s_link_tuser(l_tuser[0]),
      .s_inj_tdata(inj_tdata), .s_inj_tkeep(inj_tkeep), .s_inj_tvalid(inj_tvalid),
      .s_inj_tready(inj_tready), .s_inj_tlast(inj_tlast),
      .m_tdata(b_rx_tdata), .m_tkeep(b_rx_tkeep), .m_tvalid(b_rx_tvalid),
      .m_tready(b_rx_tready), .m_tlast(b_rx_tlast), .m_tuser(b_rx_tuser)
  );
  assign lab_frames = f_in[0];
  assign lba_frames = f_in[1];

  // what each NIC puts on the wire (u_tap_a: NIC A, u_tap_b: NIC B)
  logic [31:0]  ta_frames;
  logic [63:0]  ta_bytes, ta_rf, ta_rl;
  logic [15:0]  ta_rlen;
  logic         ta_rbad;
  logic [31:0]  ta_rcrc;
  logic [8*1280-1:0] ta_rdata;
  fabnic_tb_net_tap #(.DATA_W(512), .CAP_BYTES(1280), .DEPTH(1024)) u_tap_a (
      .clk, .rst,
      .tdata(a_tx_tdata), .tkeep(a_tx_tkeep),
      .tvalid(a_tx_tvalid), .tready(c_tready[0]),
      .tlast(a_tx_tlast),
      .tuser(a_tx_tuser), .cycle,
      .frames(ta_frames), .bytes(ta_bytes), .rd_idx(32'd0), .rd_first(ta_rf), .rd_last(ta_rl), .rd_len(ta_rlen),
      .rd_bad(ta_rbad), .rd_crc(ta_rcrc), .rd_data(ta_rdata)
  );
  logic [31:0]  tb_frames;
  logic [63:0]  tb_bytes, tb_rf, tb_rl;
  logic [15:0]  tb_rlen;
  logic         tb_rbad;
  logic [31:0]  tb_rcrc;
  logic [8*1280-1:0] tb_rdata;
  fabnic_tb_net_tap #(.DATA_W(512), .CAP_BYTES(1280), .DEPTH(1024)) u_tap_b (
      .clk, .rst,
      .tdata(b_tx_tdata), .tkeep(b_tx_tkeep),
      .tvalid(b_tx_tvalid), .tready(c_tready[1]),
      .tlast(b_tx_tlast),
      .tuser(b_tx_tuser), .cycle,
      .frames(tb_frames), .bytes(tb_bytes), .rd_idx(32'd0), .rd_first(tb_rf), .rd_last(tb_rl), .rd_len(tb_rlen),
      .rd_bad(tb_rbad), .rd_crc(tb_rcrc), .rd_data(tb_rdata)
  );

endmodule

`resetall
