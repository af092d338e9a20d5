// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vnic_core: VXLAN vNIC device core (docs/vxlan.md, "Device core").
//
//   s_axil_* -> fabnic_axil_slave -> fabnic_regs_vnic (map fabnic.regmap_vxlan.MAP_VNIC)
//            -> fabnic_vswitch_cmd (table mailbox) and the VTEP counters
//   MAC RX (s_mac_rx_*, frames without FCS, tuser[0] = bad) -> fabnic_pkt_parser
//            (STRIP=1) -> fabnic_vtep RX -> local frames -> per-queue replication
//            (fabnic_vxlan_tx_repl as a queue replicator) -> m_grx_* (one copy per
//            destination queue pair in m_grx_tdest, VNI in m_grx_vni)
//                                       -> RoCE frames -> m_roce_* (+ outer info)
//   guest TX (s_gtx_* with s_gtx_vni, s_gtx_qp) and RoCE TX (s_rtx_* with s_rtx_vni)
//            -> fabnic_vtep TX (lookup, VM-to-VM switching, flooding, head-end
//            replication, encap) -> MAC TX (m_mac_tx_*)
//
// The guest side is AXI-Stream: a virtio-net queue pair (fabnic_virtio_net_rx/tx with
// their virtqueue and DMA engines) attaches to m_grx_* (tdest = queue) and s_gtx_*
// (qp = the queue pair); that integration is not in this core yet (no AXI master).
// Frames for MAC addresses not in the table and without a flood list are dropped and
// counted (registers of block "vxlan").
`default_nettype none

module fabnic_vnic_core #(
    parameter int DATA_W      = 64,
    parameter int KEEP_W      = DATA_W / 8,
    parameter int ADDR_W      = 16,
    parameter int ENTRIES     = 1024,
    parameter int WAYS        = 4,
    parameter int VNI_ENTRIES = 16,
    parameter int TUN_ENTRIES = 16,
    parameter int QP_W        = 8,
    parameter int FLOOD_MAX   = 4,
    parameter int RFLOOD_MAX  = 4,
    parameter int RX_DEPTH    = 64,
    parameter int TX_DEPTH    = 16384 / (DATA_W / 8),  // TX frame buffer (beats)
    parameter int GRX_DEPTH   = 16384 / (DATA_W / 8),  // guest RX replication buffer (beats)
    parameter int CNT_W       = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,
    output logic                   init_done,

    // ---- AXI-Lite registers
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

    // ---- MAC side
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

    // ---- guest queues: RX (one frame per destination queue) and TX
    output logic [DATA_W-1:0]      m_grx_tdata,
    output logic [KEEP_W-1:0]      m_grx_tkeep,
    output logic                   m_grx_tvalid,
    input  wire logic              m_grx_tready,
    output logic                   m_grx_tlast,
    output logic                   m_grx_tuser,
    output logic [QP_W-1:0]        m_grx_tdest,
    output logic [23:0]            m_grx_vni,
    output logic                   m_grx_flood,
    input  wire logic [DATA_W-1:0] s_gtx_tdata,
    input  wire logic [KEEP_W-1:0] s_gtx_tkeep,
    input  wire logic              s_gtx_tvalid,
    output logic                   s_gtx_tready,
    input  wire logic              s_gtx_tlast,
    input  wire logic              s_gtx_tuser,
    input  wire logic [23:0]       s_gtx_vni,
    input  wire logic [QP_W-1:0]   s_gtx_qp,

    // ---- RoCE transport: inner RoCE frames of a VNI (RX) and frames to encapsulate (TX)
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
    input  wire logic [23:0]       s_rtx_vni,

    // guest RX replication drops (bad frames); the rest are in the registers
    output logic [CNT_W-1:0]       cnt_grx_drop_bad
);

  localparam int VAL_W = 367;
  localparam int FC_W  = $clog2(FLOOD_MAX + 1);

  // ---------------------------------------------------------------- registers
  logic              req_valid, req_write, ack_valid, ack_err;
  logic [ADDR_W-1:0] req_addr;
  logic [31:0]       req_wdata, ack_rdata;
  logic [3:0]        req_wstrb;
  logic              unused_timeout;

  fabnic_axil_slave #(.ADDR_W(ADDR_W)) u_axil (
      .clk, .rst,
      .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
      .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
      .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
      .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
      .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
      .req_valid, .req_write, .req_addr, .req_wdata, .req_wstrb,
      .ack_valid, .ack_rdata, .ack_err, .status_timeout(unused_timeout)
  );

  logic [31:0]       scratch, key_lo;
  logic [15:0]       key_hi, index;
  logic [23:0]       key_vni;
  logic              go;
  logic [3:0]        go_data;
  logic [12*32-1:0]  cval, rval;
  logic              busy, done, overrun;
  logic [1:0]        rstat;
  logic [VAL_W-1:0]  rsp_q;
  logic [$clog2(ENTRIES+1)-1:0] n_mac;
  logic [CNT_W-1:0]  c_rx_in, c_rx_local, c_rx_flood, c_rx_roce, c_drop_outer, c_drop_bad_vxlan,
                     c_drop_short, c_drop_unknown_vni, c_drop_no_flood, c_drop_loop,
                     c_ce_marked, c_ce_not_ect, c_tx_in, c_tx_out, c_tx_local, c_tx_flood,
                     c_tx_drop_unknown_vni, c_tx_drop_no_route, c_tx_drop_oversize,
                     c_tx_drop_bad, c_lookups, c_add_full, c_tx_len_mismatch;

  assign rval = {(12*32 - VAL_W)'(0), rsp_q};

  fabnic_regs_vnic #(
      .ADDR_W(ADDR_W), .DATA_W(DATA_W), .ENTRIES(ENTRIES), .FLOOD_MAX(FLOOD_MAX),
      .RFLOOD_MAX(RFLOOD_MAX), .TUN_ENTRIES(TUN_ENTRIES), .VNI_ENTRIES(VNI_ENTRIES)
  ) u_regs (
      .clk, .rst, .req_valid, .req_write, .req_addr, .req_wdata, .req_wstrb,
      .ack_valid, .ack_rdata, .ack_err,
      .cfg_device_scratch(scratch),
      .cfg_vxlan_cmd_key_lo(key_lo), .cfg_vxlan_cmd_key_hi(key_hi),
      .cfg_vxlan_cmd_vni(key_vni), .cfg_vxlan_cmd_index(index),
      .cmd_vxlan_cmd(go), .cmd_vxlan_cmd_data(go_data),
      .sts_vxlan_cmd_status({overrun, rstat, done, busy}),
      .sts_vxlan_mac_entries(16'(n_mac)),
      .cfg_vxlan_cmd_value0(cval[0*32 +: 32]), .cfg_vxlan_cmd_value1(cval[1*32 +: 32]),
      .cfg_vxlan_cmd_value2(cval[2*32 +: 32]), .cfg_vxlan_cmd_value3(cval[3*32 +: 32]),
      .cfg_vxlan_cmd_value4(cval[4*32 +: 32]), .cfg_vxlan_cmd_value5(cval[5*32 +: 32]),
      .cfg_vxlan_cmd_value6(cval[6*32 +: 32]), .cfg_vxlan_cmd_value7(cval[7*32 +: 32]),
      .cfg_vxlan_cmd_value8(cval[8*32 +: 32]), .cfg_vxlan_cmd_value9(cval[9*32 +: 32]),
      .cfg_vxlan_cmd_value10(cval[10*32 +: 32]), .cfg_vxlan_cmd_value11(cval[11*32 +: 32]),
      .sts_vxlan_rsp_value0(rval[0*32 +: 32]), .sts_vxlan_rsp_value1(rval[1*32 +: 32]),
      .sts_vxlan_rsp_value2(rval[2*32 +: 32]), .sts_vxlan_rsp_value3(rval[3*32 +: 32]),
      .sts_vxlan_rsp_value4(rval[4*32 +: 32]), .sts_vxlan_rsp_value5(rval[5*32 +: 32]),
      .sts_vxlan_rsp_value6(rval[6*32 +: 32]), .sts_vxlan_rsp_value7(rval[7*32 +: 32]),
      .sts_vxlan_rsp_value8(rval[8*32 +: 32]), .sts_vxlan_rsp_value9(rval[9*32 +: 32]),
      .sts_vxlan_rsp_value10(rval[10*32 +: 32]), .sts_vxlan_rsp_value11(rval[11*32 +: 32]),
      .sts_vxlan_rx_in(32'(c_rx_in)), .sts_vxlan_rx_local(32'(c_rx_local)),
      .sts_vxlan_rx_flood(32'(c_rx_flood)), .sts_vxlan_rx_roce(32'(c_rx_roce)),
      .sts_vxlan_drop_outer(32'(c_drop_outer)), .sts_vxlan_drop_bad_vxlan(32'(c_drop_bad_vxlan)),
      .sts_vxlan_drop_short(32'(c_drop_short)),
      .sts_vxlan_drop_unknown_vni(32'(c_drop_unknown_vni)),
      .sts_vxlan_drop_no_flood(32'(c_drop_no_flood)), .sts_vxlan_drop_loop(32'(c_drop_loop)),
      .sts_vxlan_ce_marked(32'(c_ce_marked)), .sts_vxlan_ce_not_ect(32'(c_ce_not_ect)),
      .sts_vxlan_tx_in(32'(c_tx_in)), .sts_vxlan_tx_out(32'(c_tx_out)),
      .sts_vxlan_tx_local(32'(c_tx_local)), .sts_vxlan_tx_flood(32'(c_tx_flood)),
      .sts_vxlan_tx_drop_unknown_vni(32'(c_tx_drop_unknown_vni)),
      .sts_vxlan_tx_drop_no_route(32'(c_tx_drop_no_route)),
      .sts_vxlan_tx_drop_oversize(32'(c_tx_drop_oversize)),
      .sts_vxlan_tx_drop_bad(32'(c_tx_drop_bad)),
      .sts_vxlan_lookups(32'(c_lookups)), .sts_vxlan_add_full(32'(c_add_full))
  );

  logic              cmd_valid, cmd_ready, rsp_valid, rsp_ready;
  logic [1:0]        cmd_op, cmd_table, rsp_status;
  logic [71:0]       cmd_key;
  logic [15:0]       cmd_index;
  logic [VAL_W-1:0]  cmd_value, rsp_value;

  fabnic_vswitch_cmd #(.VAL_W(VAL_W)) u_cmd (
      .clk, .rst,
      .go, .go_op(go_data[1:0]), .go_table(go_data[3:2]), .key_mac({key_hi, key_lo}),
      .key_vni, .index, .value(cval[VAL_W-1:0]),
      .busy, .done, .overrun, .rsp_status_q(rstat), .rsp_value_q(rsp_q),
      .cmd_valid, .cmd_ready, .cmd_op, .cmd_table, .cmd_key, .cmd_index, .cmd_value,
      .rsp_valid, .rsp_ready, .rsp_status, .rsp_value
  );

  // ---------------------------------------------------------------- parser
  fabnic_pkt_pkg::pkt_meta_t meta;
  logic              meta_valid, meta_ready;
  logic [DATA_W-1:0] p_tdata;
  logic [KEEP_W-1:0] p_tkeep;
  logic              p_tvalid, p_tready, p_tlast, p_tuser;
  logic [CNT_W-1:0]  unused_p [13];

  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b1)) u_parser (
      .clk, .rst,
      .s_axis_tdata(s_mac_rx_tdata), .s_axis_tkeep(s_mac_rx_tkeep),
      .s_axis_tvalid(s_mac_rx_tvalid), .s_axis_tready(s_mac_rx_tready),
      .s_axis_tlast(s_mac_rx_tlast), .s_axis_tuser(s_mac_rx_tuser),
      .m_meta_data(meta), .m_meta_valid(meta_valid), .m_meta_ready(meta_ready),
      .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
      .m_axis_tready(p_tready), .m_axis_tlast(p_tlast), .m_axis_tuser(p_tuser),
      .cnt_frames_in(unused_p[0]), .cnt_bytes_in(unused_p[1]), .cnt_bad_in(unused_p[2]),
      .cnt_frames_out(unused_p[3]), .cnt_dropped(unused_p[4]), .cnt_non_ip(unused_p[5]),
      .cnt_ip_frag(unused_p[6]), .cnt_err_runt(unused_p[7]),
      .cnt_err_ip_version(unused_p[8]), .cnt_err_ipv4_ihl(unused_p[9]),
      .cnt_err_ipv4_csum(unused_p[10]), .cnt_err_ip_length(unused_p[11]),
      .cnt_err_udp_length(unused_p[12])
  );

  // ---------------------------------------------------------------- VTEP
  logic [DATA_W-1:0] l_tdata;
  logic [KEEP_W-1:0] l_tkeep;
  logic              l_tvalid, l_tready, l_tlast, l_tuser, l_flood, unused_from_tx;
  logic [23:0]       l_vni;
  logic [FC_W-1:0]   l_qcnt;
  logic [FLOOD_MAX*QP_W-1:0] l_qlist;
  fabnic_vxlan_pkg::decap_sb_t roce_sb;

  fabnic_vtep #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .ENTRIES(ENTRIES), .WAYS(WAYS),
      .VNI_ENTRIES(VNI_ENTRIES), .TUN_ENTRIES(TUN_ENTRIES), .QP_W(QP_W),
      .FLOOD_MAX(FLOOD_MAX), .RFLOOD_MAX(RFLOOD_MAX), .RX_DEPTH(RX_DEPTH),
      .TX_DEPTH(TX_DEPTH), .CNT_W(CNT_W)
  ) u_vtep (
      .clk, .rst, .init_done,
      .s_meta_data(meta), .s_meta_valid(meta_valid), .s_meta_ready(meta_ready),
      .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
      .s_axis_tready(p_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
      .m_local_tdata(l_tdata), .m_local_tkeep(l_tkeep), .m_local_tvalid(l_tvalid),
      .m_local_tready(l_tready), .m_local_tlast(l_tlast), .m_local_tuser(l_tuser),
      .m_local_vni(l_vni), .m_local_flood(l_flood), .m_local_qcnt(l_qcnt),
      .m_local_qlist(l_qlist), .m_local_from_tx(unused_from_tx),
      .m_roce_tdata, .m_roce_tkeep, .m_roce_tvalid, .m_roce_tready, .m_roce_tlast,
      .m_roce_tuser, .m_roce_sb(roce_sb),
      .s_tx_tdata(s_gtx_tdata), .s_tx_tkeep(s_gtx_tkeep), .s_tx_tvalid(s_gtx_tvalid),
      .s_tx_tready(s_gtx_tready), .s_tx_tlast(s_gtx_tlast), .s_tx_tuser(s_gtx_tuser),
      .s_tx_vni(s_gtx_vni), .s_tx_qp(s_gtx_qp),
      .s_rtx_tdata, .s_rtx_tkeep, .s_rtx_tvalid, .s_rtx_tready, .s_rtx_tlast, .s_rtx_tuser,
      .s_rtx_vni,
      .m_up_tdata(m_mac_tx_tdata), .m_up_tkeep(m_mac_tx_tkeep), .m_up_tvalid(m_mac_tx_tvalid),
      .m_up_tready(m_mac_tx_tready), .m_up_tlast(m_mac_tx_tlast), .m_up_tuser(m_mac_tx_tuser),
      .cmd_valid, .cmd_ready, .cmd_op, .cmd_table, .cmd_key, .cmd_index, .cmd_value,
      .rsp_valid, .rsp_ready, .rsp_status, .rsp_value,
      .cnt_rx_in(c_rx_in), .cnt_rx_local(c_rx_local), .cnt_rx_flood(c_rx_flood),
      .cnt_rx_roce(c_rx_roce), .cnt_drop_outer(c_drop_outer),
      .cnt_drop_bad_vxlan(c_drop_bad_vxlan), .cnt_drop_short(c_drop_short),
      .cnt_drop_unknown_vni(c_drop_unknown_vni), .cnt_drop_no_flood(c_drop_no_flood),
      .cnt_drop_loop(c_drop_loop), .cnt_ce_marked(c_ce_marked), .cnt_ce_not_ect(c_ce_not_ect),
      .cnt_tx_in(c_tx_in), .cnt_tx_out(c_tx_out),
      .cnt_tx_drop_unknown_vni(c_tx_drop_unknown_vni), .cnt_tx_len_mismatch(c_tx_len_mismatch),
      .cnt_tx_local(c_tx_local), .cnt_tx_flood(c_tx_flood),
      .cnt_tx_drop_no_route(c_tx_drop_no_route), .cnt_tx_drop_oversize(c_tx_drop_oversize),
      .cnt_tx_drop_bad(c_tx_drop_bad), .cnt_lookups(c_lookups), .cnt_add_full(c_add_full),
      .status_mac_entries(n_mac)
  );

  assign m_roce_vni            = roce_sb.vni;
  assign m_roce_outer_ipv6     = roce_sb.outer_ipv6;
  assign m_roce_outer_src_ip   = roce_sb.outer_src_ip;
  assign m_roce_outer_src_port = roce_sb.outer_src_port;
  assign m_roce_outer_ecn      = roce_sb.outer_ecn;

  // ---------------------------------------------------------------- guest RX: one copy per queue
  // The queue list of each local frame is taken at its first beat into a small FIFO;
  // the replicator (its "remote" copies are the queues here) sends one copy per queue.
  typedef struct packed {
    logic [23:0]               vni;
    logic                      flood;
    logic [FC_W-1:0]           qcnt;
    logic [FLOOD_MAX*QP_W-1:0] qlist;
  } gdec_t;

  gdec_t g_in, g;
  logic  l_first_q, gd_in_ready, gd_valid, gd_ready, l_fire, rp_ready;
  logic [2:0] unused_gcnt;
  assign g_in   = '{vni: l_vni, flood: l_flood, qcnt: l_qcnt, qlist: l_qlist};
  assign l_tready = rp_ready && (!l_first_q || gd_in_ready);
  assign l_fire   = l_tvalid && l_tready;

  always_ff @(posedge clk) begin
    if (l_fire) l_first_q <= l_tlast;
    if (rst) l_first_q <= 1'b1;
  end

  fabnic_fifo #(.WIDTH($bits(gdec_t)), .DEPTH(4)) u_gdec (
      .clk, .rst,
      .in_valid(l_fire && l_first_q), .in_ready(gd_in_ready), .in_data(g_in),
      .out_valid(gd_valid), .out_ready(gd_ready), .out_data(g),
      .status_count(unused_gcnt)
  );

  logic              unused_glocal;
  logic [15:0]       unused_glen, unused_gcsum;
  logic [FC_W-1:0]   unused_gqcnt;
  logic [FLOOD_MAX*QP_W-1:0] unused_gqlist;
  logic [CNT_W-1:0]  unused_gc [6];
  logic              unused_gsum;
  assign unused_gsum = ^unused_gcsum;

  fabnic_vxlan_tx_repl #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .DEPTH(GRX_DEPTH), .QP_W(QP_W),
      .FLOOD_MAX(FLOOD_MAX), .RFLOOD_MAX(FLOOD_MAX), .TUN_W(QP_W), .CNT_W(CNT_W)
  ) u_grx (
      .clk, .rst,
      .s_axis_tdata(l_tdata), .s_axis_tkeep(l_tkeep), .s_axis_tvalid(l_tvalid && l_tready),
      .s_axis_tready(rp_ready), .s_axis_tlast(l_tlast), .s_axis_tuser(l_tuser),
      .s_dec_valid(gd_valid), .s_dec_ready(gd_ready), .s_dec_novni(1'b0), .s_dec_vni(g.vni),
      .s_dec_local(1'b0), .s_dec_flood(g.flood), .s_dec_qcnt(g.qcnt), .s_dec_qlist(g.qlist),
      .s_dec_rcnt(g.qcnt), .s_dec_rlist(g.qlist),
      .m_axis_tdata(m_grx_tdata), .m_axis_tkeep(m_grx_tkeep), .m_axis_tvalid(m_grx_tvalid),
      .m_axis_tready(m_grx_tready), .m_axis_tlast(m_grx_tlast), .m_local(unused_glocal),
      .m_tun(m_grx_tdest), .m_vni(m_grx_vni), .m_len(unused_glen), .m_csum(unused_gcsum), .m_flood(m_grx_flood),
      .m_qcnt(unused_gqcnt), .m_qlist(unused_gqlist),
      .cnt_frames(unused_gc[0]), .cnt_copies(unused_gc[1]), .cnt_flood(unused_gc[2]),
      .cnt_drop_oversize(unused_gc[3]), .cnt_drop_bad(cnt_grx_drop_bad),
      .cnt_drop_novni(unused_gc[4]), .cnt_drop_no_route(unused_gc[5])
  );
  assign m_grx_tuser = 1'b0;   // bad frames are dropped by the replicator

  logic unused_bits;
  assign unused_bits = ^{scratch, unused_timeout, unused_from_tx, c_tx_len_mismatch,
                         unused_glocal, cval[12*32-1:VAL_W]};

endmodule

`resetall
