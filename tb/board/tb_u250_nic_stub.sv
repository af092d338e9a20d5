// SPDX-License-Identifier: Apache-2.0
// Testbench stand-in for fabnic_nic inside fabnic_u250_shell (the real NIC is too large
// a build for a shell smoke test). It has fabnic_nic's ports and:
//   AXI-Lite  16 read/write words at 0x000..0x03C (byte strobes); a write to 0x100 /
//             0x104 / 0x108 raises m_irq_valid / vio_irq_valid / vio_cfg_irq_valid for
//             one cycle with the written vector; other addresses below 0x1000 read 0;
//             0x1000 and up answer SLVERR. One access at a time per direction.
//   wire      s_mac_rx looped back to m_mac_tx (a wire, back-pressure included)
//   memory    one DMA probe per AXI4 master (engine 0 = m_axi, 1 = m_vio_axi), at
//             0x200 + 0x40*e: +0x00/+0x04 address low/high, +0x08 AxLEN, a write to +0x0C
//             starts a burst (data bit 0: 1 = write, 0 = read; bits 7:4 the AXI ID);
//             +0x10 reads {beats of the last read [23:16], its RRESP of the last beat
//             [13:12], its RID [11:8], reads done [7:0]}, +0x14 bits 31:0 of the last
//             read beat, +0x18 {BRESP [13:12], BID [11:8], writes done [7:0]}. Write
//             beat k carries 32'hD000_0000 | e << 24 | k << 8 | lane in each 32-bit lane.
//   init_done high from the second cycle after reset
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
    parameter int RX_DEPTH    = 16
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
    output logic                       m_irq_valid,
    output logic [15:0]                m_irq_vector,
    input  wire logic [47:0]           dev_mac,
    input  wire logic                  link_up,
    output logic                       vio_irq_valid,
    output logic [15:0]                vio_irq_vector,
    output logic                       vio_cfg_irq_valid,
    output logic [15:0]                vio_cfg_irq_vector,
    output logic                       init_done
);
  // ---- wire loopback
  assign m_mac_tx_tdata  = s_mac_rx_tdata;
  assign m_mac_tx_tkeep  = s_mac_rx_tkeep;
  assign m_mac_tx_tvalid = s_mac_rx_tvalid;
  assign m_mac_tx_tlast  = s_mac_rx_tlast;
  assign m_mac_tx_tuser  = s_mac_rx_tuser;
  assign s_mac_rx_tready = m_mac_tx_tready;

  // ---- host-memory masters: one DMA probe per engine (0 = m_axi, 1 = m_vio_axi)
  logic        pr_go [2];
  logic [31:0] pr_stat_rd [2], pr_stat_wr [2], pr_word [2];
  logic [31:0] pr_lo [2], pr_hi [2], pr_len [2];

  tb_u250_dma_probe #(.DATA_W(DATA_W), .AXI_ID_W(AXI_ID_W), .ENGINE(0)) u_probe0 (
      .clk, .rst, .go(pr_go[0]), .cmd(wdata_q), .addr({pr_hi[0], pr_lo[0]}),
      .len(pr_len[0][7:0]), .stat_rd(pr_stat_rd[0]), .stat_wr(pr_stat_wr[0]),
      .word(pr_word[0]),
      .awid(m_axi_awid), .awaddr(m_axi_awaddr), .awlen(m_axi_awlen), .awsize(m_axi_awsize),
      .awburst(m_axi_awburst), .awvalid(m_axi_awvalid), .awready(m_axi_awready),
      .wdata(m_axi_wdata), .wstrb(m_axi_wstrb), .wlast(m_axi_wlast), .wvalid(m_axi_wvalid),
      .wready(m_axi_wready), .bid(m_axi_bid), .bresp(m_axi_bresp), .bvalid(m_axi_bvalid),
      .bready(m_axi_bready), .arid(m_axi_arid), .araddr(m_axi_araddr), .arlen(m_axi_arlen),
      .arsize(m_axi_arsize), .arburst(m_axi_arburst), .arvalid(m_axi_arvalid),
      .arready(m_axi_arready), .rid(m_axi_rid), .rdata(m_axi_rdata), .rresp(m_axi_rresp),
      .rlast(m_axi_rlast), .rvalid(m_axi_rvalid), .rready(m_axi_rready));

  tb_u250_dma_probe #(.DATA_W(DATA_W), .AXI_ID_W(AXI_ID_W), .ENGINE(1)) u_probe1 (
      .clk, .rst, .go(pr_go[1]), .cmd(wdata_q), .addr({pr_hi[1], pr_lo[1]}),
      .len(pr_len[1][7:0]), .stat_rd(pr_stat_rd[1]), .stat_wr(pr_stat_wr[1]),
      .word(pr_word[1]),
      .awid(m_vio_axi_awid), .awaddr(m_vio_axi_awaddr), .awlen(m_vio_axi_awlen),
      .awsize(m_vio_axi_awsize), .awburst(m_vio_axi_awburst), .awvalid(m_vio_axi_awvalid),
      .awready(m_vio_axi_awready), .wdata(m_vio_axi_wdata), .wstrb(m_vio_axi_wstrb),
      .wlast(m_vio_axi_wlast), .wvalid(m_vio_axi_wvalid), .wready(m_vio_axi_wready),
      .bid(m_vio_axi_bid), .bresp(m_vio_axi_bresp), .bvalid(m_vio_axi_bvalid),
      .bready(m_vio_axi_bready), .arid(m_vio_axi_arid), .araddr(m_vio_axi_araddr),
      .arlen(m_vio_axi_arlen), .arsize(m_vio_axi_arsize), .arburst(m_vio_axi_arburst),
      .arvalid(m_vio_axi_arvalid), .arready(m_vio_axi_arready), .rid(m_vio_axi_rid),
      .rdata(m_vio_axi_rdata), .rresp(m_vio_axi_rresp), .rlast(m_vio_axi_rlast),
      .rvalid(m_vio_axi_rvalid), .rready(m_vio_axi_rready));

  assign {m_axi_awlock, m_axi_awcache, m_axi_awprot, m_axi_arlock, m_axi_arcache,
          m_axi_arprot} = '0;
  assign {m_vio_axi_awlock, m_vio_axi_awcache, m_vio_axi_awprot, m_vio_axi_arlock,
          m_vio_axi_arcache, m_vio_axi_arprot} = '0;

  // ---- registers
  logic [31:0] regs [16];
  logic aw_q, w_q, b_q, r_q;
  logic [24:0] awaddr_q;
  logic [31:0] wdata_q;
  logic [3:0]  wstrb_q;

  assign s_axil_awready = !aw_q && !b_q;
  assign s_axil_wready  = !w_q && !b_q;
  assign s_axil_bvalid  = b_q;
  assign s_axil_arready = !r_q;
  assign s_axil_rvalid  = r_q;

  always_ff @(posedge clk) begin
    m_irq_valid       <= 1'b0;
    pr_go[0]          <= 1'b0;
    pr_go[1]          <= 1'b0;
    vio_irq_valid     <= 1'b0;
    vio_cfg_irq_valid <= 1'b0;
    if (s_axil_awvalid && s_axil_awready) begin aw_q <= 1'b1; awaddr_q <= s_axil_awaddr; end
    if (s_axil_wvalid && s_axil_wready) begin
      w_q <= 1'b1; wdata_q <= s_axil_wdata; wstrb_q <= s_axil_wstrb;
    end
    if (aw_q && w_q) begin
      aw_q <= 1'b0;
      w_q  <= 1'b0;
      b_q  <= 1'b1;
      s_axil_bresp <= awaddr_q >= 25'h1000 ? 2'b10 : 2'b00;
      if (awaddr_q < 25'h40) begin
        for (int i = 0; i < 4; i++)
          if (wstrb_q[i]) regs[awaddr_q[5:2]][8*i +: 8] <= wdata_q[8*i +: 8];
      end
      for (int e = 0; e < 2; e++) begin
        if (awaddr_q == 25'h200 + 25'(64 * e)) pr_lo[e]  <= wdata_q;
        if (awaddr_q == 25'h204 + 25'(64 * e)) pr_hi[e]  <= wdata_q;
        if (awaddr_q == 25'h208 + 25'(64 * e)) pr_len[e] <= wdata_q;
        if (awaddr_q == 25'h20C + 25'(64 * e)) pr_go[e]  <= 1'b1;
      end
      if (awaddr_q == 25'h100) begin m_irq_valid <= 1'b1; m_irq_vector <= wdata_q[15:0]; end
      if (awaddr_q == 25'h104) begin vio_irq_valid <= 1'b1; vio_irq_vector <= wdata_q[15:0]; end
      if (awaddr_q == 25'h108) begin
        vio_cfg_irq_valid <= 1'b1; vio_cfg_irq_vector <= wdata_q[15:0];
      end
    end
    if (b_q && s_axil_bready) b_q <= 1'b0;
    if (s_axil_arvalid && s_axil_arready) begin
      r_q <= 1'b1;
      s_axil_rdata <= s_axil_araddr < 25'h40 ? regs[s_axil_araddr[5:2]] : 32'd0;
      for (int e = 0; e < 2; e++) begin
        if (s_axil_araddr == 25'h210 + 25'(64 * e)) s_axil_rdata <= pr_stat_rd[e];
        if (s_axil_araddr == 25'h214 + 25'(64 * e)) s_axil_rdata <= pr_word[e];
        if (s_axil_araddr == 25'h218 + 25'(64 * e)) s_axil_rdata <= pr_stat_wr[e];
      end
      s_axil_rresp <= s_axil_araddr >= 25'h1000 ? 2'b10 : 2'b00;
    end
    if (r_q && s_axil_rready) r_q <= 1'b0;
    init_done <= 1'b1;
    if (rst) begin
      aw_q <= 1'b0; w_q <= 1'b0; b_q <= 1'b0; r_q <= 1'b0;
      m_irq_valid <= 1'b0; vio_irq_valid <= 1'b0; vio_cfg_irq_valid <= 1'b0;
      init_done <= 1'b0;
      pr_go[0] <= 1'b0;
      pr_go[1] <= 1'b0;
      for (int i = 0; i < 16; i++) regs[i] <= '0;
    end
  end

  logic unused;
  assign unused = ^{s_axil_awprot, s_axil_arprot, dev_mac, link_up};
endmodule


// One AXI4 burst at a time for the NIC stand-in above.
module tb_u250_dma_probe #(
    parameter int DATA_W   = 512,
    parameter int AXI_ID_W = 4,
    parameter int ENGINE   = 0
) (
    input  wire logic                 clk,
    input  wire logic                 rst,
    input  wire logic                 go,
    input  wire logic [31:0]          cmd,
    input  wire logic [63:0]          addr,
    input  wire logic [7:0]           len,
    output logic      [31:0]          stat_rd,
    output logic      [31:0]          stat_wr,
    output logic      [31:0]          word,
    output logic      [AXI_ID_W-1:0]  awid,
    output logic      [63:0]          awaddr,
    output logic      [7:0]           awlen,
    output logic      [2:0]           awsize,
    output logic      [1:0]           awburst,
    output logic                      awvalid,
    input  wire logic                 awready,
    output logic      [DATA_W-1:0]    wdata,
    output logic      [DATA_W/8-1:0]  wstrb,
    output logic                      wlast,
    output logic                      wvalid,
    input  wire logic                 wready,
    input  wire logic [AXI_ID_W-1:0]  bid,
    input  wire logic [1:0]           bresp,
    input  wire logic                 bvalid,
    output logic                      bready,
    output logic      [AXI_ID_W-1:0]  arid,
    output logic      [63:0]          araddr,
    output logic      [7:0]           arlen,
    output logic      [2:0]           arsize,
    output logic      [1:0]           arburst,
    output logic                      arvalid,
    input  wire logic                 arready,
    input  wire logic [AXI_ID_W-1:0]  rid,
    input  wire logic [DATA_W-1:0]    rdata,
    input  wire logic [1:0]           rresp,
    input  wire logic                 rlast,
    input  wire logic                 rvalid,
    output logic                      rready
);
  localparam int LANES = DATA_W / 32;
  logic [7:0] beat_q, rbeats_q, rd_cnt_q, wr_cnt_q;
  logic       w_act_q;

  assign awsize  = 3'($clog2(DATA_W / 8));
  assign arsize  = 3'($clog2(DATA_W / 8));
  assign awburst = 2'b01;
  assign arburst = 2'b01;
  assign wstrb   = '1;
  assign wvalid  = w_act_q;
  assign wlast   = beat_q == awlen;
  assign bready  = 1'b1;
  assign rready  = 1'b1;
  always_comb begin
    for (int i = 0; i < LANES; i++)
      wdata[32*i +: 32] = 32'hD000_0000 | (32'(ENGINE) << 24) | (32'(beat_q) << 8) | 32'(i);
  end

  always_ff @(posedge clk) begin
    if (go && cmd[0]) begin
      awid <= cmd[4 +: AXI_ID_W]; awaddr <= addr; awlen <= len; awvalid <= 1'b1;
      w_act_q <= 1'b1; beat_q <= '0;
    end
    if (go && !cmd[0]) begin
      arid <= cmd[4 +: AXI_ID_W]; araddr <= addr; arlen <= len; arvalid <= 1'b1;
      rbeats_q <= '0;
    end
    if (awvalid && awready) awvalid <= 1'b0;
    if (arvalid && arready) arvalid <= 1'b0;
    if (wvalid && wready) begin
      beat_q <= beat_q + 1'b1;
      if (wlast) w_act_q <= 1'b0;
    end
    if (bvalid) begin
      wr_cnt_q <= wr_cnt_q + 1'b1;
      stat_wr  <= {18'd0, bresp, 4'(bid), wr_cnt_q + 8'd1};
    end
    if (rvalid) begin
      rbeats_q <= rbeats_q + 1'b1;
      word     <= rdata[31:0];
      if (rlast) begin
        rd_cnt_q <= rd_cnt_q + 1'b1;
        stat_rd  <= {8'd0, rbeats_q + 8'd1, 2'd0, rresp, 4'(rid), rd_cnt_q + 8'd1};
      end
    end
    if (rst) begin
      awvalid <= 1'b0; arvalid <= 1'b0; w_act_q <= 1'b0; beat_q <= '0;
      rd_cnt_q <= '0; wr_cnt_q <= '0; stat_rd <= '0; stat_wr <= '0; word <= '0;
    end
  end
endmodule

`resetall
