// SPDX-License-Identifier: Apache-2.0
//
// tb_roce_bench: tb_roce_pair with SystemVerilog host memories (tb_host_axi_mem, fixed
// latency) instead of Python ones, so that long transfers simulate at Verilator speed;
// Python only programs the NICs (AXI-Lite), writes/reads rings through the memories'
// backdoor and polls sparsely. Probes: a free-running cycle counter, the cycle of
// A's last doorbell write, of A's first transmitted beat after it, of B's last
// received frame end and of B's last host-memory write beat (the CQE).
`default_nettype none

module tb_roce_bench #(
    parameter int NUM_QP = 64,
    parameter int NUM_CQ = 16,
    parameter int NUM_MR = 64,
    parameter int MEM_AW = 22,
    parameter bit FEC    = 1'b0,
    parameter int PLAY_DEPTH = 65536,
    parameter bit WR_GATE = 1'b1    // the cores' write gate (ROCE_WR_GATE=0: off, to compare)
) (
    input  wire logic clk,
    input  wire logic rst,
    input  wire logic [15:0] mem_latency,
    input  wire logic [23:0] a_s_axil_awaddr,
    input  wire logic [23:0] b_s_axil_awaddr,
    input  wire logic [2:0] a_s_axil_awprot,
    input  wire logic [2:0] b_s_axil_awprot,
    input  wire logic  a_s_axil_awvalid,
    input  wire logic  b_s_axil_awvalid,
    output logic  a_s_axil_awready,
    output logic  b_s_axil_awready,
    input  wire logic [31:0] a_s_axil_wdata,
    input  wire logic [31:0] b_s_axil_wdata,
    input  wire logic [3:0] a_s_axil_wstrb,
    input  wire logic [3:0] b_s_axil_wstrb,
    input  wire logic  a_s_axil_wvalid,
    input  wire logic  b_s_axil_wvalid,
    output logic  a_s_axil_wready,
    output logic  b_s_axil_wready,
    output logic [1:0] a_s_axil_bresp,
    output logic [1:0] b_s_axil_bresp,
    output logic  a_s_axil_bvalid,
    output logic  b_s_axil_bvalid,
    input  wire logic  a_s_axil_bready,
    input  wire logic  b_s_axil_bready,
    input  wire logic [23:0] a_s_axil_araddr,
    input  wire logic [23:0] b_s_axil_araddr,
    input  wire logic [2:0] a_s_axil_arprot,
    input  wire logic [2:0] b_s_axil_arprot,
    input  wire logic  a_s_axil_arvalid,
    input  wire logic  b_s_axil_arvalid,
    output logic  a_s_axil_arready,
    output logic  b_s_axil_arready,
    output logic [31:0] a_s_axil_rdata,
    output logic [31:0] b_s_axil_rdata,
    output logic [1:0] a_s_axil_rresp,
    output logic [1:0] b_s_axil_rresp,
    output logic  a_s_axil_rvalid,
    output logic  b_s_axil_rvalid,
    input  wire logic  a_s_axil_rready,
    input  wire logic  b_s_axil_rready,
    output logic  a_m_irq_valid,
    output logic  b_m_irq_valid,
    output logic [15:0] a_m_irq_vector,
    output logic [15:0] b_m_irq_vector,
    input  wire logic [31:0] lab_rate,
    input  wire logic [31:0] lab_delay,
    input  wire logic [63:0] lab_seed,
    input  wire logic  lab_link_down,
    input  wire logic  lab_loss_en,
    input  wire logic [31:0] lab_loss_p,
    input  wire logic  lab_ge_en,
    input  wire logic [31:0] lab_ge_p_gb,
    input  wire logic [31:0] lab_ge_p_bg,
    input  wire logic [31:0] lab_ge_loss,
    input  wire logic  lab_dup_en,
    input  wire logic [31:0] lab_dup_p,
    input  wire logic  lab_reorder_en,
    input  wire logic [31:0] lab_reorder_p,
    input  wire logic  lab_biterr_en,
    input  wire logic [31:0] lab_biterr_p,
    input  wire logic [7:0] lab_drop_list_en,
    input  wire logic [255:0] lab_drop_list,
    output logic [31:0] lab_cnt_frames_in,
    output logic [31:0] lab_cnt_drops,
    output logic [31:0] lab_cnt_drop_ge,
    output logic [31:0] lab_cnt_ge_bad,
    input  wire logic [31:0] lba_rate,
    input  wire logic [31:0] lba_delay,
    input  wire logic [63:0] lba_seed,
    input  wire logic  lba_link_down,
    input  wire logic  lba_loss_en,
    input  wire logic [31:0] lba_loss_p,
    input  wire logic  lba_ge_en,
    input  wire logic [31:0] lba_ge_p_gb,
    input  wire logic [31:0] lba_ge_p_bg,
    input  wire logic [31:0] lba_ge_loss,
    input  wire logic  lba_dup_en,
    input  wire logic [31:0] lba_dup_p,
    input  wire logic  lba_reorder_en,
    input  wire logic [31:0] lba_reorder_p,
    input  wire logic  lba_biterr_en,
    input  wire logic [31:0] lba_biterr_p,
    input  wire logic [7:0] lba_drop_list_en,
    input  wire logic [255:0] lba_drop_list,
    output logic [31:0] lba_cnt_frames_in,
    output logic [31:0] lba_cnt_drops,
    output logic [31:0] lba_cnt_drop_ge,
    output logic [31:0] lba_cnt_ge_bad,
    output logic [511:0] a_tx_tdata,
    output logic [63:0] a_tx_tkeep,
    output logic  a_tx_tvalid,
    output logic  a_tx_tready,
    output logic  a_tx_tlast,
    output logic [511:0] b_tx_tdata,
    output logic [63:0] b_tx_tkeep,
    output logic  b_tx_tvalid,
    output logic  b_tx_tready,
    output logic  b_tx_tlast,
    output logic [63:0] cycle,
    output logic [63:0] p_db,
    output logic [63:0] p_tx_first,
    output logic [63:0] p_b_rx_last,
    output logic [63:0] p_b_w_last,
    output logic [63:0] a_tx_beats,
    output logic [63:0] b_rx_frames,
    input  wire logic        a_play_start,
    input  wire logic [31:0] a_play_count,
    output logic             a_play_busy,
    output logic [31:0]      a_play_errors,
    output logic [31:0]      a_play_err_index,
    input  wire logic        b_play_start,
    input  wire logic [31:0] b_play_count,
    output logic             b_play_busy,
    output logic [31:0]      b_play_errors,
    output logic [31:0]      b_play_err_index
);
  logic [3:0] a_m_axi_awid;
  logic [3:0] b_m_axi_awid;
  logic [63:0] a_m_axi_awaddr;
  logic [63:0] b_m_axi_awaddr;
  logic [7:0] a_m_axi_awlen;
  logic [7:0] b_m_axi_awlen;
  logic [2:0] a_m_axi_awsize;
  logic [2:0] b_m_axi_awsize;
  logic [1:0] a_m_axi_awburst;
  logic [1:0] b_m_axi_awburst;
  logic  a_m_axi_awlock;
  logic  b_m_axi_awlock;
  logic [3:0] a_m_axi_awcache;
  logic [3:0] b_m_axi_awcache;
  logic [2:0] a_m_axi_awprot;
  logic [2:0] b_m_axi_awprot;
  logic  a_m_axi_awvalid;
  logic  b_m_axi_awvalid;
  logic  a_m_axi_awready;
  logic  b_m_axi_awready;
  logic [511:0] a_m_axi_wdata;
  logic [511:0] b_m_axi_wdata;
  logic [63:0] a_m_axi_wstrb;
  logic [63:0] b_m_axi_wstrb;
  logic  a_m_axi_wlast;
  logic  b_m_axi_wlast;
  logic  a_m_axi_wvalid;
  logic  b_m_axi_wvalid;
  logic  a_m_axi_wready;
  logic  b_m_axi_wready;
  logic [3:0] a_m_axi_bid;
  logic [3:0] b_m_axi_bid;
  logic [1:0] a_m_axi_bresp;
  logic [1:0] b_m_axi_bresp;
  logic  a_m_axi_bvalid;
  logic  b_m_axi_bvalid;
  logic  a_m_axi_bready;
  logic  b_m_axi_bready;
  logic [3:0] a_m_axi_arid;
  logic [3:0] b_m_axi_arid;
  logic [63:0] a_m_axi_araddr;
  logic [63:0] b_m_axi_araddr;
  logic [7:0] a_m_axi_arlen;
  logic [7:0] b_m_axi_arlen;
  logic [2:0] a_m_axi_arsize;
  logic [2:0] b_m_axi_arsize;
  logic [1:0] a_m_axi_arburst;
  logic [1:0] b_m_axi_arburst;
  logic  a_m_axi_arlock;
  logic  b_m_axi_arlock;
  logic [3:0] a_m_axi_arcache;
  logic [3:0] b_m_axi_arcache;
  logic [2:0] a_m_axi_arprot;
  logic [2:0] b_m_axi_arprot;
  logic  a_m_axi_arvalid;
  logic  b_m_axi_arvalid;
  logic  a_m_axi_arready;
  logic  b_m_axi_arready;
  logic [3:0] a_m_axi_rid;
  logic [3:0] b_m_axi_rid;
  logic [511:0] a_m_axi_rdata;
  logic [511:0] b_m_axi_rdata;
  logic [1:0] a_m_axi_rresp;
  logic [1:0] b_m_axi_rresp;
  logic  a_m_axi_rlast;
  logic  b_m_axi_rlast;
  logic  a_m_axi_rvalid;
  logic  b_m_axi_rvalid;
  logic  a_m_axi_rready;
  logic  b_m_axi_rready;


  // register-script players (tb/fabnic_tb/axil_script.py): bulk QP set-up at
  // simulator speed; transparent for the cocotb AXI-Lite masters while idle
  logic [23:0] a_p_awaddr;
  logic [2:0] a_p_awprot;
  logic a_p_awvalid;
  logic a_p_awready;
  logic [31:0] a_p_wdata;
  logic [3:0] a_p_wstrb;
  logic a_p_wvalid;
  logic a_p_wready;
  logic [1:0] a_p_bresp;
  logic a_p_bvalid;
  logic a_p_bready;
  logic [23:0] a_p_araddr;
  logic [2:0] a_p_arprot;
  logic a_p_arvalid;
  logic a_p_arready;
  logic [31:0] a_p_rdata;
  logic [1:0] a_p_rresp;
  logic a_p_rvalid;
  logic a_p_rready;
  logic [31:0] unused_a_play_done;
  fabnic_tb_axil_player #(.AW(24), .DEPTH(PLAY_DEPTH)) u_play_a (
      .clk, .rst, .start(a_play_start), .count(a_play_count), .busy(a_play_busy),
      .errors(a_play_errors), .err_index(a_play_err_index), .done_entries(unused_a_play_done),
      .s_awaddr(a_s_axil_awaddr), .m_awaddr(a_p_awaddr),
      .s_awprot(a_s_axil_awprot), .m_awprot(a_p_awprot),
      .s_awvalid(a_s_axil_awvalid), .m_awvalid(a_p_awvalid),
      .s_awready(a_s_axil_awready), .m_awready(a_p_awready),
      .s_wdata(a_s_axil_wdata), .m_wdata(a_p_wdata),
      .s_wstrb(a_s_axil_wstrb), .m_wstrb(a_p_wstrb),
      .s_wvalid(a_s_axil_wvalid), .m_wvalid(a_p_wvalid),
      .s_wready(a_s_axil_wready), .m_wready(a_p_wready),
      .s_bresp(a_s_axil_bresp), .m_bresp(a_p_bresp),
      .s_bvalid(a_s_axil_bvalid), .m_bvalid(a_p_bvalid),
      .s_bready(a_s_axil_bready), .m_bready(a_p_bready),
      .s_araddr(a_s_axil_araddr), .m_araddr(a_p_araddr),
      .s_arprot(a_s_axil_arprot), .m_arprot(a_p_arprot),
      .s_arvalid(a_s_axil_arvalid), .m_arvalid(a_p_arvalid),
      .s_arready(a_s_axil_arready), .m_arready(a_p_arready),
      .s_rdata(a_s_axil_rdata), .m_rdata(a_p_rdata),
      .s_rresp(a_s_axil_rresp), .m_rresp(a_p_rresp),
      .s_rvalid(a_s_axil_rvalid), .m_rvalid(a_p_rvalid),
      .s_rready(a_s_axil_rready), .m_rready(a_p_rready)
  );
  logic [23:0] b_p_awaddr;
  logic [2:0] b_p_awprot;
  logic b_p_awvalid;
  logic b_p_awready;
  logic [31:0] b_p_wdata;
  logic [3:0] b_p_wstrb;
  logic b_p_wvalid;
  logic b_p_wready;
  logic [1:0] b_p_bresp;
  logic b_p_bvalid;
  logic b_p_bready;
  logic [23:0] b_p_araddr;
  logic [2:0] b_p_arprot;
  logic b_p_arvalid;
  logic b_p_arready;
  logic [31:0] b_p_rdata;
  logic [1:0] b_p_rresp;
  logic b_p_rvalid;
  logic b_p_rready;
  logic [31:0] unused_b_play_done;
  fabnic_tb_axil_player #(.AW(24), .DEPTH(PLAY_DEPTH)) u_play_b (
      .clk, .rst, .start(b_play_start), .count(b_play_count), .busy(b_play_busy),
      .errors(b_play_errors), .err_index(b_play_err_index), .done_entries(unused_b_play_done),
      .s_awaddr(b_s_axil_awaddr), .m_awaddr(b_p_awaddr),
      .s_awprot(b_s_axil_awprot), .m_awprot(b_p_awprot),
      .s_awvalid(b_s_axil_awvalid), .m_awvalid(b_p_awvalid),
      .s_awready(b_s_axil_awready), .m_awready(b_p_awready),
      .s_wdata(b_s_axil_wdata), .m_wdata(b_p_wdata),
      .s_wstrb(b_s_axil_wstrb), .m_wstrb(b_p_wstrb),
      .s_wvalid(b_s_axil_wvalid), .m_wvalid(b_p_wvalid),
      .s_wready(b_s_axil_wready), .m_wready(b_p_wready),
      .s_bresp(b_s_axil_bresp), .m_bresp(b_p_bresp),
      .s_bvalid(b_s_axil_bvalid), .m_bvalid(b_p_bvalid),
      .s_bready(b_s_axil_bready), .m_bready(b_p_bready),
      .s_araddr(b_s_axil_araddr), .m_araddr(b_p_araddr),
      .s_arprot(b_s_axil_arprot), .m_arprot(b_p_arprot),
      .s_arvalid(b_s_axil_arvalid), .m_arvalid(b_p_arvalid),
      .s_arready(b_s_axil_arready), .m_arready(b_p_arready),
      .s_rdata(b_s_axil_rdata), .m_rdata(b_p_rdata),
      .s_rresp(b_s_axil_rresp), .m_rresp(b_p_rresp),
      .s_rvalid(b_s_axil_rvalid), .m_rvalid(b_p_rvalid),
      .s_rready(b_s_axil_rready), .m_rready(b_p_rready)
  );

  tb_roce_pair #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .FEC(FEC),
                 .WR_GATE(WR_GATE)) u_pair (
      .clk, .rst, .ce_mark_ab(1'b0),
      .a_s_axil_awaddr(a_p_awaddr),
      .b_s_axil_awaddr(b_p_awaddr),
      .a_s_axil_awprot(a_p_awprot),
      .b_s_axil_awprot(b_p_awprot),
      .a_s_axil_awvalid(a_p_awvalid),
      .b_s_axil_awvalid(b_p_awvalid),
      .a_s_axil_awready(a_p_awready),
      .b_s_axil_awready(b_p_awready),
      .a_s_axil_wdata(a_p_wdata),
      .b_s_axil_wdata(b_p_wdata),
      .a_s_axil_wstrb(a_p_wstrb),
      .b_s_axil_wstrb(b_p_wstrb),
      .a_s_axil_wvalid(a_p_wvalid),
      .b_s_axil_wvalid(b_p_wvalid),
      .a_s_axil_wready(a_p_wready),
      .b_s_axil_wready(b_p_wready),
      .a_s_axil_bresp(a_p_bresp),
      .b_s_axil_bresp(b_p_bresp),
      .a_s_axil_bvalid(a_p_bvalid),
      .b_s_axil_bvalid(b_p_bvalid),
      .a_s_axil_bready(a_p_bready),
      .b_s_axil_bready(b_p_bready),
      .a_s_axil_araddr(a_p_araddr),
      .b_s_axil_araddr(b_p_araddr),
      .a_s_axil_arprot(a_p_arprot),
      .b_s_axil_arprot(b_p_arprot),
      .a_s_axil_arvalid(a_p_arvalid),
      .b_s_axil_arvalid(b_p_arvalid),
      .a_s_axil_arready(a_p_arready),
      .b_s_axil_arready(b_p_arready),
      .a_s_axil_rdata(a_p_rdata),
      .b_s_axil_rdata(b_p_rdata),
      .a_s_axil_rresp(a_p_rresp),
      .b_s_axil_rresp(b_p_rresp),
      .a_s_axil_rvalid(a_p_rvalid),
      .b_s_axil_rvalid(b_p_rvalid),
      .a_s_axil_rready(a_p_rready),
      .b_s_axil_rready(b_p_rready),
      .a_m_axi_awid(a_m_axi_awid),
      .b_m_axi_awid(b_m_axi_awid),
      .a_m_axi_awaddr(a_m_axi_awaddr),
      .b_m_axi_awaddr(b_m_axi_awaddr),
      .a_m_axi_awlen(a_m_axi_awlen),
      .b_m_axi_awlen(b_m_axi_awlen),
      .a_m_axi_awsize(a_m_axi_awsize),
      .b_m_axi_awsize(b_m_axi_awsize),
      .a_m_axi_awburst(a_m_axi_awburst),
      .b_m_axi_awburst(b_m_axi_awburst),
      .a_m_axi_awlock(a_m_axi_awlock),
      .b_m_axi_awlock(b_m_axi_awlock),
      .a_m_axi_awcache(a_m_axi_awcache),
      .b_m_axi_awcache(b_m_axi_awcache),
      .a_m_axi_awprot(a_m_axi_awprot),
      .b_m_axi_awprot(b_m_axi_awprot),
      .a_m_axi_awvalid(a_m_axi_awvalid),
      .b_m_axi_awvalid(b_m_axi_awvalid),
      .a_m_axi_awready(a_m_axi_awready),
      .b_m_axi_awready(b_m_axi_awready),
      .a_m_axi_wdata(a_m_axi_wdata),
      .b_m_axi_wdata(b_m_axi_wdata),
      .a_m_axi_wstrb(a_m_axi_wstrb),
      .b_m_axi_wstrb(b_m_axi_wstrb),
      .a_m_axi_wlast(a_m_axi_wlast),
      .b_m_axi_wlast(b_m_axi_wlast),
      .a_m_axi_wvalid(a_m_axi_wvalid),
      .b_m_axi_wvalid(b_m_axi_wvalid),
      .a_m_axi_wready(a_m_axi_wready),
      .b_m_axi_wready(b_m_axi_wready),
      .a_m_axi_bid(a_m_axi_bid),
      .b_m_axi_bid(b_m_axi_bid),
      .a_m_axi_bresp(a_m_axi_bresp),
      .b_m_axi_bresp(b_m_axi_bresp),
      .a_m_axi_bvalid(a_m_axi_bvalid),
      .b_m_axi_bvalid(b_m_axi_bvalid),
      .a_m_axi_bready(a_m_axi_bready),
      .b_m_axi_bready(b_m_axi_bready),
      .a_m_axi_arid(a_m_axi_arid),
      .b_m_axi_arid(b_m_axi_arid),
      .a_m_axi_araddr(a_m_axi_araddr),
      .b_m_axi_araddr(b_m_axi_araddr),
      .a_m_axi_arlen(a_m_axi_arlen),
      .b_m_axi_arlen(b_m_axi_arlen),
      .a_m_axi_arsize(a_m_axi_arsize),
      .b_m_axi_arsize(b_m_axi_arsize),
      .a_m_axi_arburst(a_m_axi_arburst),
      .b_m_axi_arburst(b_m_axi_arburst),
      .a_m_axi_arlock(a_m_axi_arlock),
      .b_m_axi_arlock(b_m_axi_arlock),
      .a_m_axi_arcache(a_m_axi_arcache),
      .b_m_axi_arcache(b_m_axi_arcache),
      .a_m_axi_arprot(a_m_axi_arprot),
      .b_m_axi_arprot(b_m_axi_arprot),
      .a_m_axi_arvalid(a_m_axi_arvalid),
      .b_m_axi_arvalid(b_m_axi_arvalid),
      .a_m_axi_arready(a_m_axi_arready),
      .b_m_axi_arready(b_m_axi_arready),
      .a_m_axi_rid(a_m_axi_rid),
      .b_m_axi_rid(b_m_axi_rid),
      .a_m_axi_rdata(a_m_axi_rdata),
      .b_m_axi_rdata(b_m_axi_rdata),
      .a_m_axi_rresp(a_m_axi_rresp),
      .b_m_axi_rresp(b_m_axi_rresp),
      .a_m_axi_rlast(a_m_axi_rlast),
      .b_m_axi_rlast(b_m_axi_rlast),
      .a_m_axi_rvalid(a_m_axi_rvalid),
      .b_m_axi_rvalid(b_m_axi_rvalid),
      .a_m_axi_rready(a_m_axi_rready),
      .b_m_axi_rready(b_m_axi_rready),
      .a_m_irq_valid(a_m_irq_valid),
      .b_m_irq_valid(b_m_irq_valid),
      .a_m_irq_vector(a_m_irq_vector),
      .b_m_irq_vector(b_m_irq_vector),
      .lab_rate(lab_rate),
      .lab_delay(lab_delay),
      .lab_seed(lab_seed),
      .lab_link_down(lab_link_down),
      .lab_loss_en(lab_loss_en),
      .lab_loss_p(lab_loss_p),
      .lab_ge_en(lab_ge_en), .lab_ge_p_gb(lab_ge_p_gb), .lab_ge_p_bg(lab_ge_p_bg),
      .lab_ge_loss(lab_ge_loss),
      .lab_dup_en(lab_dup_en),
      .lab_dup_p(lab_dup_p),
      .lab_reorder_en(lab_reorder_en),
      .lab_reorder_p(lab_reorder_p),
      .lab_biterr_en(lab_biterr_en),
      .lab_biterr_p(lab_biterr_p),
      .lab_drop_list_en(lab_drop_list_en),
      .lab_drop_list(lab_drop_list),
      .lab_cnt_frames_in(lab_cnt_frames_in),
      .lab_cnt_drops(lab_cnt_drops),
      .lab_cnt_drop_ge(lab_cnt_drop_ge), .lab_cnt_ge_bad(lab_cnt_ge_bad),
      .lba_rate(lba_rate),
      .lba_delay(lba_delay),
      .lba_seed(lba_seed),
      .lba_link_down(lba_link_down),
      .lba_loss_en(lba_loss_en),
      .lba_loss_p(lba_loss_p),
      .lba_ge_en(lba_ge_en), .lba_ge_p_gb(lba_ge_p_gb), .lba_ge_p_bg(lba_ge_p_bg),
      .lba_ge_loss(lba_ge_loss),
      .lba_dup_en(lba_dup_en),
      .lba_dup_p(lba_dup_p),
      .lba_reorder_en(lba_reorder_en),
      .lba_reorder_p(lba_reorder_p),
      .lba_biterr_en(lba_biterr_en),
      .lba_biterr_p(lba_biterr_p),
      .lba_drop_list_en(lba_drop_list_en),
      .lba_drop_list(lba_drop_list),
      .lba_cnt_frames_in(lba_cnt_frames_in),
      .lba_cnt_drops(lba_cnt_drops),
      .lba_cnt_drop_ge(lba_cnt_drop_ge), .lba_cnt_ge_bad(lba_cnt_ge_bad),
      .a_tx_tdata(a_tx_tdata),
      .a_tx_tkeep(a_tx_tkeep),
      .a_tx_tvalid(a_tx_tvalid),
      .a_tx_tready(a_tx_tready),
      .a_tx_tlast(a_tx_tlast),
      .b_tx_tdata(b_tx_tdata),
      .b_tx_tkeep(b_tx_tkeep),
      .b_tx_tvalid(b_tx_tvalid),
      .b_tx_tready(b_tx_tready),
      .b_tx_tlast(b_tx_tlast)
  );

  assign a_m_axi_bresp = 2'b00;
  // 256 requests in flight each way, as a PCIe Gen4 root complex with 8-bit tags: the
  // NIC keeps up to about 150 reads in flight at the 100 G wire's 64 B message rate
  // behind a 250-cycle host
  tb_host_axi_mem #(.DATA_W(512), .ID_W(4), .MEM_AW(MEM_AW), .MAX_REQ(256)) u_mem_a (
      .clk, .rst, .latency(mem_latency),
      .s_axi_arid(a_m_axi_arid), .s_axi_araddr(a_m_axi_araddr), .s_axi_arlen(a_m_axi_arlen),
      .s_axi_arvalid(a_m_axi_arvalid), .s_axi_arready(a_m_axi_arready),
      .s_axi_rid(a_m_axi_rid), .s_axi_rdata(a_m_axi_rdata), .s_axi_rresp(a_m_axi_rresp),
      .s_axi_rlast(a_m_axi_rlast), .s_axi_rvalid(a_m_axi_rvalid), .s_axi_rready(a_m_axi_rready),
      .s_axi_awid(a_m_axi_awid), .s_axi_awaddr(a_m_axi_awaddr), .s_axi_awlen(a_m_axi_awlen),
      .s_axi_awvalid(a_m_axi_awvalid), .s_axi_awready(a_m_axi_awready),
      .s_axi_wdata(a_m_axi_wdata), .s_axi_wstrb(a_m_axi_wstrb), .s_axi_wlast(a_m_axi_wlast),
      .s_axi_wvalid(a_m_axi_wvalid), .s_axi_wready(a_m_axi_wready),
      .s_axi_bid(a_m_axi_bid), .s_axi_bresp(), .s_axi_bvalid(a_m_axi_bvalid),
      .s_axi_bready(a_m_axi_bready)
  );

  assign b_m_axi_bresp = 2'b00;
  tb_host_axi_mem #(.DATA_W(512), .ID_W(4), .MEM_AW(MEM_AW), .MAX_REQ(256)) u_mem_b (
      .clk, .rst, .latency(mem_latency),
      .s_axi_arid(b_m_axi_arid), .s_axi_araddr(b_m_axi_araddr), .s_axi_arlen(b_m_axi_arlen),
      .s_axi_arvalid(b_m_axi_arvalid), .s_axi_arready(b_m_axi_arready),
      .s_axi_rid(b_m_axi_rid), .s_axi_rdata(b_m_axi_rdata), .s_axi_rresp(b_m_axi_rresp),
      .s_axi_rlast(b_m_axi_rlast), .s_axi_rvalid(b_m_axi_rvalid), .s_axi_rready(b_m_axi_rready),
      .s_axi_awid(b_m_axi_awid), .s_axi_awaddr(b_m_axi_awaddr), .s_axi_awlen(b_m_axi_awlen),
      .s_axi_awvalid(b_m_axi_awvalid), .s_axi_awready(b_m_axi_awready),
      .s_axi_wdata(b_m_axi_wdata), .s_axi_wstrb(b_m_axi_wstrb), .s_axi_wlast(b_m_axi_wlast),
      .s_axi_wvalid(b_m_axi_wvalid), .s_axi_wready(b_m_axi_wready),
      .s_axi_bid(b_m_axi_bid), .s_axi_bresp(), .s_axi_bvalid(b_m_axi_bvalid),
      .s_axi_bready(b_m_axi_bready)
  );

  logic armed_q;
  always_ff @(posedge clk) begin
    cycle <= cycle + 1;
    if (a_s_axil_wvalid && a_s_axil_wready && a_s_axil_awaddr[20] && !a_s_axil_awaddr[19]) begin
      p_db    <= cycle;
      armed_q <= 1'b1;
    end
    if (a_tx_tvalid && a_tx_tready) begin
      a_tx_beats <= a_tx_beats + 1;
      if (armed_q) begin
        p_tx_first <= cycle;
        armed_q    <= 1'b0;
      end
    end
    if (u_pair.b_rx_tvalid && u_pair.b_rx_tready && u_pair.b_rx_tlast) begin
      p_b_rx_last <= cycle;
      b_rx_frames <= b_rx_frames + 1;
    end
    if (b_m_axi_wvalid && b_m_axi_wready) p_b_w_last <= cycle;
    if (rst) begin
      cycle <= '0; armed_q <= 1'b0; a_tx_beats <= '0; b_rx_frames <= '0;
      p_db <= '0; p_tx_first <= '0; p_b_rx_last <= '0; p_b_w_last <= '0;
    end
  end
endmodule

`resetall
