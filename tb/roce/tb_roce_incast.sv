// SPDX-License-Identifier: Apache-2.0
//
// tb_roce_incast: N+1 real fabnic NICs around one switch model, for N:1 incast
// experiments with the RoCE transport (tb/roce/bench_incast_roce.py,
// tb/roce/test_roce_incast.py).
//
//   NIC h = fabnic_roce_core + fabnic_fec_port (FEC shims, plain wires when FEC=0)
//           + tb_host_axi_mem (SystemVerilog host memory, fixed latency)
//   NIC h -> link g_nic[h].u_up -> switch port h -> ... -> switch port j
//         -> link g_nic[j].u_dn -> NIC j
//
// NIC h has MAC 02:00:00:00:00:(h+1) (the switch's MAC table maps it to port h),
// IP 10.0.0.(h+1) by convention of the Python side (the firmware sets both). NIC N
// is the receiver of the incast, NICs 0..N-1 the senders; the bottleneck is the
// switch egress N. Links are fault free (rate, delay); the switch tail-drops when
// its shared buffer (buf_size) or the per-queue cap (q_cap) is exceeded, and may
// mark ECN / send PFC (inputs below).
//
// One AXI-Lite slave port reaches every NIC: axil_sel picks the NIC (the others see
// no valid); Python changes axil_sel only between accesses. Host memories are
// g_nic[h].u_mem (the fw/ driver's rings and buffers, backdoor mem[]).
// rx_peak_q: highest queue (bytes) of the receiver's egress since peak_clr.
// up_frames[h] counts the frames NIC h sent, rx_frames_from[h] the frames that reached
// the receiver NIC with source MAC of host h: their difference (once the network is
// idle) is what the switch dropped of sender h's traffic.
`default_nettype none

module tb_roce_incast #(
    parameter int N           = 8,          // senders; NIC N receives
    parameter int NUM_QP      = 16,
    parameter int NUM_CQ      = 4,
    parameter int NUM_MR      = 8,
    parameter int MEM_AW      = 22,         // host memory per NIC: 2^MEM_AW bytes
    parameter bit FEC         = 1'b1,       // FEC port shims built in
    parameter int NGROUP      = 32,         // FEC decoder groups per receive shim
    parameter int NSRC        = 8,          // FEC senders a receive shim tells apart
    parameter int QUEUE_BYTES = 1 << 21,    // switch ring per egress (>= deepest queue)
    parameter int LINK_BUF    = 1 << 16     // link ring: delay * rate + one frame
) (
    input  wire logic         clk,
    input  wire logic         rst,
    input  wire logic [15:0]  mem_latency,

    // AXI-Lite to NIC axil_sel
    input  wire logic [7:0]   axil_sel,
    input  wire logic [23:0]  s_axil_awaddr,
    input  wire logic [2:0]   s_axil_awprot,
    input  wire logic         s_axil_awvalid,
    output logic              s_axil_awready,
    input  wire logic [31:0]  s_axil_wdata,
    input  wire logic [3:0]   s_axil_wstrb,
    input  wire logic         s_axil_wvalid,
    output logic              s_axil_wready,
    output logic [1:0]        s_axil_bresp,
    output logic              s_axil_bvalid,
    input  wire logic         s_axil_bready,
    input  wire logic [23:0]  s_axil_araddr,
    input  wire logic [2:0]   s_axil_arprot,
    input  wire logic         s_axil_arvalid,
    output logic              s_axil_arready,
    output logic [31:0]       s_axil_rdata,
    output logic [1:0]        s_axil_rresp,
    output logic              s_axil_rvalid,
    input  wire logic         s_axil_rready,

    // links (every one) and switch
    input  wire logic [31:0]  rate,          // bytes/cycle 16.16 (links and switch egress)
    input  wire logic [31:0]  link_delay,    // cycles
    input  wire logic [31:0]  buf_size,      // switch shared buffer, bytes
    input  wire logic [31:0]  q_cap,         // per egress queue, bytes (0 = none)
    input  wire logic         ecn_en,
    input  wire logic [31:0]  kmin,
    input  wire logic [31:0]  kmax,
    input  wire logic [31:0]  pmax,          // probability * 2^32
    input  wire logic         pfc_en,
    input  wire logic [31:0]  xoff,
    input  wire logic [31:0]  xon,
    input  wire logic [15:0]  pfc_quanta,
    input  wire logic [63:0]  seed,
    input  wire logic         peak_clr,      // clears rx_peak_q

    output logic [63:0]        cycle,
    output logic [(N+1)*32-1:0] cnt_drop_tail,   // per egress port
    output logic [(N+1)*32-1:0] cnt_ecn_mark,    // per egress port
    output logic [(N+1)*32-1:0] cnt_tx_frames,   // per egress port (data frames)
    output logic [(N+1)*32-1:0] cnt_pfc_xoff_tx, // per port
    output logic [(N+1)*32-1:0] peak_qlen,       // per egress port, since reset
    output logic [31:0]        rx_qlen,          // receiver egress (port N) queue now
    output logic [31:0]        rx_peak_q,        // its peak since peak_clr
    output logic [(N+1)*32-1:0] up_frames,       // frames NIC h put on its link (FEC repairs too)
    output logic [(N+1)*32-1:0] rx_frames_from   // frames the receiver NIC got from host h
);
  localparam int P      = N + 1;
  localparam int DATA_W = 512;
  localparam int KEEP_W = DATA_W / 8;
  localparam int NSTAT  = 21;  // fabnic_fec_port stat counters

  always_ff @(posedge clk) begin
    if (rst) cycle <= '0;
    else     cycle <= cycle + 64'd1;
  end

  function automatic logic [47:0] host_mac(input int h);
    return 48'h0200_0000_0000 + 48'(h + 1);
  endfunction

  // ---------------------------------------------------------------- switch
  logic [P-1:0]    mac_valid;
  logic [P*48-1:0] mac_addr;
  logic [P*8-1:0]  mac_port;
  always_comb begin
    for (int h = 0; h < P; h++) begin
      mac_valid[h]         = 1'b1;
      mac_addr[48*h +: 48] = host_mac(h);
      mac_port[8*h +: 8]   = 8'(h);
    end
  end

  logic [P*DATA_W-1:0] s_tdata, m_tdata;
  logic [P*KEEP_W-1:0] s_tkeep, m_tkeep;
  logic [P-1:0] s_tvalid, s_tready, s_tlast, s_tuser, m_tvalid, m_tready, m_tlast, m_tuser;
  logic [P*32-1:0] qlen;

  fabnic_tb_switch #(.N_PORTS(P), .DATA_W(DATA_W), .N_MAC(P), .QUEUE_BYTES(QUEUE_BYTES),
                     .QDESC(4096), .TRACE_DEPTH(2)) u_sw (
    .clk, .rst,
    .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
    .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
    .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
    .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
    .rate, .ovh(16'd24), .buf_size, .q_cap, .mac_valid, .mac_addr, .mac_port,
    .dflt_port({P{8'hFF}}), .ecn_en, .kmin, .kmax, .pmax, .seed, .pfc_en, .pfc_obey(1'b1),
    .pfc_prio(3'd3), .xoff, .xon, .pfc_quanta, .pfc_refresh(32'd0),
    .sw_mac(48'h0200_0000_FF00), .sample_period(32'd0),
    .qlen, .ing_bytes(), .buf_used(), .paused(), .xoff_state(), .cnt_rx_frames(),
    .cnt_rx_bytes(), .cnt_tx_frames, .cnt_tx_bytes(), .cnt_drop_tail, .cnt_drop_noroute(),
    .cnt_drop_bad(), .cnt_ecn_mark, .cnt_pfc_xoff_tx, .cnt_pfc_xon_tx(), .cnt_pfc_rx(),
    .peak_qlen, .trace_count(), .trace_rd_idx(32'd0), .trace_rd_cycle(), .trace_rd_q()
  );

  assign rx_qlen = qlen[32*N +: 32];
  always_ff @(posedge clk) begin
    if (rst || peak_clr)         rx_peak_q <= '0;
    else if (rx_qlen > rx_peak_q) rx_peak_q <= rx_qlen;
  end

  // ---------------------------------------------------------------- AXI-Lite select
  logic [P-1:0]    n_awready, n_wready, n_bvalid, n_arready, n_rvalid;
  logic [P*2-1:0]  n_bresp, n_rresp;
  logic [P*32-1:0] n_rdata;
  always_comb begin
    s_axil_awready = 1'b0;
    s_axil_wready  = 1'b0;
    s_axil_bvalid  = 1'b0;
    s_axil_bresp   = 2'b00;
    s_axil_arready = 1'b0;
    s_axil_rvalid  = 1'b0;
    s_axil_rresp   = 2'b00;
    s_axil_rdata   = '0;
    for (int h = 0; h < P; h++) begin
      if (int'(axil_sel) == h) begin
        s_axil_awready = n_awready[h];
        s_axil_wready  = n_wready[h];
        s_axil_bvalid  = n_bvalid[h];
        s_axil_bresp   = n_bresp[2*h +: 2];
        s_axil_arready = n_arready[h];
        s_axil_rvalid  = n_rvalid[h];
        s_axil_rresp   = n_rresp[2*h +: 2];
        s_axil_rdata   = n_rdata[32*h +: 32];
      end
    end
  end

  // one cable direction without faults
  `define INCAST_ROCE_LINK(NAME, SD, SK, SV, SR, SL, SU, MD, MK, MV, MR, ML, MU) \
    fabnic_tb_link #(.DATA_W(DATA_W), .BUF_BYTES(LINK_BUF), .DESC_DEPTH(256)) NAME ( \
      .clk, .rst, \
      .s_axis_tdata(SD), .s_axis_tkeep(SK), .s_axis_tvalid(SV), .s_axis_tready(SR), \
      .s_axis_tlast(SL), .s_axis_tuser(SU), \
      .m_axis_tdata(MD), .m_axis_tkeep(MK), .m_axis_tvalid(MV), .m_axis_tready(MR), \
      .m_axis_tlast(ML), .m_axis_tuser(MU), \
      .rate, .ovh(16'd24), .delay(link_delay), .seed(64'd0), .link_down(1'b0), \
      .loss_en(1'b0), .loss_p('0), .ge_en(1'b0), .ge_p_gb('0), .ge_p_bg('0), .ge_loss('0), \
      .dup_en(1'b0), .dup_p('0), .reorder_en(1'b0), .reorder_p('0), .hold_timeout('0), \
      .biterr_en(1'b0), .biterr_p('0), .drop_list_en('0), .drop_list('0), \
      .cnt_frames_in(), .cnt_bytes_in(), .cnt_frames_out(), .cnt_bytes_out(), \
      .cnt_drop_down(), .cnt_drop_list(), .cnt_drop_ge(), .cnt_drop_loss(), \
      .cnt_drop_oversize(), .cnt_dup(), .cnt_reorder(), .cnt_biterr(), .cnt_ge_bad(), .ge_bad() \
    );

  // ---------------------------------------------------------------- NICs
  for (genvar h = 0; h < P; h++) begin : g_nic
    logic sel;
    assign sel = int'(axil_sel) == h;

    // host memory bus
    logic [3:0]        awid, arid, bid, rid;
    logic [63:0]       awaddr, araddr;
    logic [7:0]        awlen, arlen;
    logic              awvalid, awready, wlast, wvalid, wready, bvalid, bready;
    logic              arvalid, arready, rlast, rvalid, rready;
    logic [DATA_W-1:0] wdata, rdata;
    logic [KEEP_W-1:0] wstrb;
    logic [1:0]        rresp;

    // core <-> FEC shim <-> links
    logic [DATA_W-1:0] ctx_tdata, crx_tdata, tx_tdata, rx_tdata;
    logic [KEEP_W-1:0] ctx_tkeep, crx_tkeep, tx_tkeep, rx_tkeep;
    logic              ctx_tvalid, ctx_tready, ctx_tlast, ctx_tuser;
    logic              crx_tvalid, crx_tready, crx_tlast, crx_tuser;
    logic              tx_tvalid, tx_tready, tx_tlast, rx_tvalid, rx_tready, rx_tlast;
    logic [0:0]        tx_tuser, rx_tuser;

    // FEC settings from the core's register block, counters back to it
    logic [1:0]          f_mode;
    logic [7:0]          f_k, f_r, f_d;
    logic [15:0]         f_flush, f_rob, f_nd, f_nr;
    logic                f_byp, f_qp_we, f_qp_val;
    logic [23:0]         f_qp_idx;
    logic [NSTAT*32-1:0] f_stat;

    fabnic_roce_core #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR)) u_core (
        .clk, .rst,
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid(s_axil_awvalid && sel),
        .s_axil_awready(n_awready[h]),
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid(s_axil_wvalid && sel),
        .s_axil_wready(n_wready[h]),
        .s_axil_bresp(n_bresp[2*h +: 2]), .s_axil_bvalid(n_bvalid[h]),
        .s_axil_bready(s_axil_bready && sel),
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid(s_axil_arvalid && sel),
        .s_axil_arready(n_arready[h]),
        .s_axil_rdata(n_rdata[32*h +: 32]), .s_axil_rresp(n_rresp[2*h +: 2]),
        .s_axil_rvalid(n_rvalid[h]), .s_axil_rready(s_axil_rready && sel),
        .m_axi_awid(awid), .m_axi_awaddr(awaddr), .m_axi_awlen(awlen), .m_axi_awsize(),
        .m_axi_awburst(), .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(),
        .m_axi_awvalid(awvalid), .m_axi_awready(awready),
        .m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wlast(wlast), .m_axi_wvalid(wvalid),
        .m_axi_wready(wready),
        .m_axi_bid(bid), .m_axi_bresp(2'b00), .m_axi_bvalid(bvalid), .m_axi_bready(bready),
        .m_axi_arid(arid), .m_axi_araddr(araddr), .m_axi_arlen(arlen), .m_axi_arsize(),
        .m_axi_arburst(), .m_axi_arlock(), .m_axi_arcache(), .m_axi_arprot(),
        .m_axi_arvalid(arvalid), .m_axi_arready(arready),
        .m_axi_rid(rid), .m_axi_rdata(rdata), .m_axi_rresp(rresp), .m_axi_rlast(rlast),
        .m_axi_rvalid(rvalid), .m_axi_rready(rready),
        .m_irq_valid(), .m_irq_vector(),
        .fec_mode(f_mode), .fec_k(f_k), .fec_r(f_r), .fec_d(f_d),
        .fec_flush_cycles(f_flush), .fec_rob_timeout(f_rob), .fec_rx_bypass(f_byp),
        .fec_nak_delay(f_nd), .fec_nak_retry(f_nr), .fec_qp_we(f_qp_we),
        .fec_qp_idx(f_qp_idx), .fec_qp_val(f_qp_val), .fec_stat(f_stat),
        .m_axis_tx_tdata(ctx_tdata), .m_axis_tx_tkeep(ctx_tkeep), .m_axis_tx_tvalid(ctx_tvalid),
        .m_axis_tx_tready(ctx_tready), .m_axis_tx_tlast(ctx_tlast), .m_axis_tx_tuser(ctx_tuser),
        .m_axis_tx_tqpn(),
        .s_axis_rx_tdata(crx_tdata), .s_axis_rx_tkeep(crx_tkeep), .s_axis_rx_tvalid(crx_tvalid),
        .s_axis_rx_tready(crx_tready), .s_axis_rx_tlast(crx_tlast), .s_axis_rx_tuser(crx_tuser)
    );

    fabnic_fec_port #(.ENABLE(FEC), .NUM_QP(NUM_QP), .MAX_K(32), .NGROUP(NGROUP),
                      .NSRC(NSRC)) u_fec (
        .clk, .rst,
        .cfg_mode(f_mode), .cfg_k(f_k), .cfg_r(f_r), .cfg_d(f_d),
        .cfg_flush_cycles(f_flush), .cfg_rob_timeout(f_rob), .cfg_rx_bypass(f_byp),
        .cfg_nak_delay(f_nd), .cfg_nak_retry(f_nr),
        .cfg_qp_we(f_qp_we), .cfg_qp_idx(f_qp_idx[$clog2(NUM_QP)-1:0]), .cfg_qp_val(f_qp_val),
        .s_core_tdata(ctx_tdata), .s_core_tkeep(ctx_tkeep), .s_core_tvalid(ctx_tvalid),
        .s_core_tready(ctx_tready), .s_core_tlast(ctx_tlast), .s_core_tuser(ctx_tuser),
        .m_wire_tdata(tx_tdata), .m_wire_tkeep(tx_tkeep), .m_wire_tvalid(tx_tvalid),
        .m_wire_tready(tx_tready), .m_wire_tlast(tx_tlast), .m_wire_tuser(tx_tuser[0]),
        .s_wire_tdata(rx_tdata), .s_wire_tkeep(rx_tkeep), .s_wire_tvalid(rx_tvalid),
        .s_wire_tready(rx_tready), .s_wire_tlast(rx_tlast), .s_wire_tuser(rx_tuser[0]),
        .m_core_tdata(crx_tdata), .m_core_tkeep(crx_tkeep), .m_core_tvalid(crx_tvalid),
        .m_core_tready(crx_tready), .m_core_tlast(crx_tlast), .m_core_tuser(crx_tuser),
        .stat(f_stat)
    );

    tb_host_axi_mem #(.DATA_W(DATA_W), .ID_W(4), .MEM_AW(MEM_AW)) u_mem (
        .clk, .rst, .latency(mem_latency),
        .s_axi_arid(arid), .s_axi_araddr(araddr), .s_axi_arlen(arlen),
        .s_axi_arvalid(arvalid), .s_axi_arready(arready),
        .s_axi_rid(rid), .s_axi_rdata(rdata), .s_axi_rresp(rresp),
        .s_axi_rlast(rlast), .s_axi_rvalid(rvalid), .s_axi_rready(rready),
        .s_axi_awid(awid), .s_axi_awaddr(awaddr), .s_axi_awlen(awlen),
        .s_axi_awvalid(awvalid), .s_axi_awready(awready),
        .s_axi_wdata(wdata), .s_axi_wstrb(wstrb), .s_axi_wlast(wlast),
        .s_axi_wvalid(wvalid), .s_axi_wready(wready),
        .s_axi_bid(bid), .s_axi_bresp(), .s_axi_bvalid(bvalid), .s_axi_bready(bready)
    );

    // NIC h -> switch port h, switch port h -> NIC h
    `INCAST_ROCE_LINK(u_up, tx_tdata, tx_tkeep, tx_tvalid, tx_tready, tx_tlast, tx_tuser,
                      s_tdata[h*DATA_W +: DATA_W], s_tkeep[h*KEEP_W +: KEEP_W], s_tvalid[h],
                      s_tready[h], s_tlast[h], s_tuser[h:h])
    `INCAST_ROCE_LINK(u_dn, m_tdata[h*DATA_W +: DATA_W], m_tkeep[h*KEEP_W +: KEEP_W],
                      m_tvalid[h], m_tready[h], m_tlast[h], m_tuser[h:h],
                      rx_tdata, rx_tkeep, rx_tvalid, rx_tready, rx_tlast, rx_tuser)
  end

  `undef INCAST_ROCE_LINK

  // per-sender frame accounting (source MAC low byte = h + 1 on the first beat)
  logic rx_first_q;
  logic [7:0] rx_src;
  assign rx_src = g_nic[N].rx_tdata[8*11 +: 8];
  always_ff @(posedge clk) begin
    if (g_nic[N].rx_tvalid && g_nic[N].rx_tready) begin
      rx_first_q <= g_nic[N].rx_tlast;
      if (rx_first_q) begin
        for (int h = 0; h < P; h++) begin
          if (int'(rx_src) == h + 1) rx_frames_from[32*h +: 32] <= rx_frames_from[32*h +: 32] + 1;
        end
      end
    end
    if (rst) begin
      rx_first_q     <= 1'b1;
      rx_frames_from <= '0;
    end
  end
  for (genvar h = 0; h < P; h++) begin : g_cnt
    always_ff @(posedge clk) begin
      if (rst) up_frames[32*h +: 32] <= '0;
      else if (g_nic[h].tx_tvalid && g_nic[h].tx_tready && g_nic[h].tx_tlast)
        up_frames[32*h +: 32] <= up_frames[32*h +: 32] + 1;
    end
  end

endmodule

`resetall
