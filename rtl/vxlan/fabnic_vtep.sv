// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vtep: VXLAN tunnel end point with the vSwitch table (docs/vxlan.md).
//
// RX: parser output for UDP 4789 frames (s_meta_*, s_axis_*) -> fabnic_vxlan_decap
//     -> fabnic_vxlan_ecn_decap (ECN_DECAP: outer CE -> inner CE, RFC 6040)
//     -> lookup {VNI, inner dst MAC} in fabnic_vswitch_table at the inner frame's
//     first beat -> the frame waits in a beat FIFO (RX_DEPTH) for its result ->
//       VNI not configured                 drop, cnt_drop_unknown_vni
//       hit, action LOCAL q                m_local, qcnt 1, qlist[0] = q
//       hit, action ROCE                   m_roce (with the decap sideband)
//       hit, action UPLINK                 drop, cnt_drop_loop (split horizon: a frame
//                                          from the underlay never goes back to it)
//       miss, or group MAC without entry   flood: m_local with the VNI's flood list
//                                          (m_local_flood=1); empty list: drop,
//                                          cnt_drop_no_flood
//     A lookup is keyed by the frame's own VNI and flood lists are per VNI, so a frame
//     never leaves its VNI. Replication to the listed queues is left to the consumer
//     (the virtio RX side writes one frame to each listed queue).
// TX: guest frames (s_tx_*, with s_tx_vni and the sending queue pair s_tx_qp) and the
//     RoCE transport's inner frames (s_rtx_*, with s_rtx_vni per QP) are merged
//     (frame round robin) -> lookup {VNI, inner dst MAC} (port A, shared with RX,
//     alternating) -> fabnic_vxlan_tx_repl (frame buffer + replication) ->
//       VNI not configured                 drop, cnt_tx_drop_unknown_vni
//       hit, action LOCAL q                VM-to-VM inside the host: m_local (qlist [q])
//       hit, action UPLINK t               encap with tunnel t -> m_up
//       miss (unknown unicast, broadcast)  flood within the VNI: one m_local copy with the
//                                          VNI's local flood list minus the sender's queue,
//                                          and one encapsulated copy per remote VTEP of
//                                          the VNI (head-end replication) -> m_up
//       hit ROCE / NONE, or nothing to send to   drop, cnt_tx_drop_no_route
//     Local copies of TX frames share m_local with RX frames (frame round robin;
//     m_local_from_tx tells them apart).
// Commands: the table's command port (cmd_*, rsp_*).
`default_nettype none

module fabnic_vtep #(
    parameter int DATA_W      = 64,
    parameter int KEEP_W      = DATA_W / 8,
    parameter int ENTRIES     = 4096,
    parameter int WAYS        = 4,
    parameter int VNI_ENTRIES = 16,
    parameter int TUN_ENTRIES = 16,
    parameter int QP_W        = 8,
    parameter int FLOOD_MAX   = 4,
    parameter int RFLOOD_MAX  = 4,
    parameter int RX_DEPTH    = 64,   // beats
    parameter int TX_DEPTH    = 16384 / (DATA_W / 8), // TX frame buffer, beats (power of 2)
    parameter bit ECN_DECAP   = 1'b1, // RFC 6040 CE propagation into the inner header
    parameter bit UDP_CSUM    = 1'b1, // outer UDP checksum computed (else 0)
    parameter int CNT_W       = 32,
    parameter int TUN_W       = TUN_ENTRIES > 1 ? $clog2(TUN_ENTRIES) : 1,
    parameter int FC_W        = $clog2(FLOOD_MAX + 1),
    parameter int RFC_W       = $clog2(RFLOOD_MAX + 1),
    parameter int VAL_W       = 367
) (
    input  wire logic                       clk,
    input  wire logic                       rst,
    output logic                            init_done,

    // ---- RX in (parser, STRIP=1)
    input  fabnic_pkt_pkg::pkt_meta_t       s_meta_data,
    input  wire logic                       s_meta_valid,
    output logic                            s_meta_ready,
    input  wire logic [DATA_W-1:0]          s_axis_tdata,
    input  wire logic [KEEP_W-1:0]          s_axis_tkeep,
    input  wire logic                       s_axis_tvalid,
    output logic                            s_axis_tready,
    input  wire logic                       s_axis_tlast,
    input  wire logic                       s_axis_tuser,

    // ---- RX out: local queues
    output logic      [DATA_W-1:0]          m_local_tdata,
    output logic      [KEEP_W-1:0]          m_local_tkeep,
    output logic                            m_local_tvalid,
    input  wire logic                       m_local_tready,
    output logic                            m_local_tlast,
    output logic                            m_local_tuser,
    output logic      [23:0]                m_local_vni,
    output logic                            m_local_flood,
    output logic      [FC_W-1:0]            m_local_qcnt,
    output logic      [FLOOD_MAX*QP_W-1:0]  m_local_qlist,
    output logic                            m_local_from_tx,

    // ---- RX out: RoCE engine (inner frame, outer ECN in the sideband)
    output logic      [DATA_W-1:0]          m_roce_tdata,
    output logic      [KEEP_W-1:0]          m_roce_tkeep,
    output logic                            m_roce_tvalid,
    input  wire logic                       m_roce_tready,
    output logic                            m_roce_tlast,
    output logic                            m_roce_tuser,
    output fabnic_vxlan_pkg::decap_sb_t     m_roce_sb,

    // ---- TX in (local virtio queue pair s_tx_qp), RoCE TX in, and out (uplink)
    input  wire logic [DATA_W-1:0]          s_tx_tdata,
    input  wire logic [KEEP_W-1:0]          s_tx_tkeep,
    input  wire logic                       s_tx_tvalid,
    output logic                            s_tx_tready,
    input  wire logic                       s_tx_tlast,
    input  wire logic                       s_tx_tuser,
    input  wire logic [23:0]                s_tx_vni,
    input  wire logic [QP_W-1:0]            s_tx_qp,
    input  wire logic [DATA_W-1:0]          s_rtx_tdata,
    input  wire logic [KEEP_W-1:0]          s_rtx_tkeep,
    input  wire logic                       s_rtx_tvalid,
    output logic                            s_rtx_tready,
    input  wire logic                       s_rtx_tlast,
    input  wire logic                       s_rtx_tuser,
    input  wire logic [23:0]                s_rtx_vni,
    output logic      [DATA_W-1:0]          m_up_tdata,
    output logic      [KEEP_W-1:0]          m_up_tkeep,
    output logic                            m_up_tvalid,
    input  wire logic                       m_up_tready,
    output logic                            m_up_tlast,
    output logic                            m_up_tuser,

    // ---- table commands
    input  wire logic                       cmd_valid,
    output logic                            cmd_ready,
    input  wire logic [1:0]                 cmd_op,
    input  wire logic [1:0]                 cmd_table,
    input  wire logic [71:0]                cmd_key,
    input  wire logic [15:0]                cmd_index,
    input  wire logic [VAL_W-1:0]           cmd_value,
    output logic                            rsp_valid,
    input  wire logic                       rsp_ready,
    output logic      [1:0]                 rsp_status,
    output logic      [VAL_W-1:0]           rsp_value,

    // ---- counters
    output logic      [CNT_W-1:0]           cnt_rx_in,
    output logic      [CNT_W-1:0]           cnt_rx_local,
    output logic      [CNT_W-1:0]           cnt_rx_flood,
    output logic      [CNT_W-1:0]           cnt_rx_roce,
    output logic      [CNT_W-1:0]           cnt_drop_outer,
    output logic      [CNT_W-1:0]           cnt_drop_bad_vxlan,
    output logic      [CNT_W-1:0]           cnt_drop_short,
    output logic      [CNT_W-1:0]           cnt_drop_unknown_vni,
    output logic      [CNT_W-1:0]           cnt_drop_no_flood,
    output logic      [CNT_W-1:0]           cnt_drop_loop,
    output logic      [CNT_W-1:0]           cnt_ce_marked,
    output logic      [CNT_W-1:0]           cnt_ce_not_ect,
    output logic      [CNT_W-1:0]           cnt_tx_in,
    output logic      [CNT_W-1:0]           cnt_tx_out,
    output logic      [CNT_W-1:0]           cnt_tx_drop_unknown_vni,
    output logic      [CNT_W-1:0]           cnt_tx_len_mismatch,
    output logic      [CNT_W-1:0]           cnt_tx_local,      // local copies of TX frames
    output logic      [CNT_W-1:0]           cnt_tx_flood,      // TX frames flooded (miss)
    output logic      [CNT_W-1:0]           cnt_tx_drop_no_route,
    output logic      [CNT_W-1:0]           cnt_tx_drop_oversize,
    output logic      [CNT_W-1:0]           cnt_tx_drop_bad,
    output logic      [CNT_W-1:0]           cnt_lookups,
    output logic      [CNT_W-1:0]           cnt_add_full,
    output logic      [$clog2(ENTRIES+1)-1:0] status_mac_entries
);

  localparam int IDX_W = QP_W > TUN_W ? QP_W : TUN_W;
  localparam int SB_W  = $bits(fabnic_vxlan_pkg::decap_sb_t);

  // ---------------------------------------------------------------- decap
  logic [DATA_W-1:0] x_tdata, d_tdata;
  logic [KEEP_W-1:0] x_tkeep, d_tkeep;
  logic              x_tvalid, x_tready, x_tlast, x_tuser;
  logic              d_tvalid, d_tready, d_tlast, d_tuser;
  fabnic_vxlan_pkg::decap_sb_t d_sb;
  logic [CNT_W-1:0]  unused_dec_out;

  fabnic_vxlan_decap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .CNT_W(CNT_W)) u_decap (
      .clk, .rst,
      .s_meta_data, .s_meta_valid, .s_meta_ready,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_axis_tdata(x_tdata), .m_axis_tkeep(x_tkeep), .m_axis_tvalid(x_tvalid),
      .m_axis_tready(x_tready), .m_axis_tlast(x_tlast), .m_axis_tuser(x_tuser), .m_sb(d_sb),
      .cnt_frames_in(cnt_rx_in), .cnt_frames_out(unused_dec_out),
      .cnt_drop_outer, .cnt_drop_short, .cnt_drop_flag(cnt_drop_bad_vxlan)
  );

  // RFC 6040: outer CE -> inner CE (combinational, no latency)
  if (ECN_DECAP) begin : g_ecn
    fabnic_vxlan_ecn_decap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .CNT_W(CNT_W)) u_ecn (
        .clk, .rst,
        .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid),
        .s_axis_tready(x_tready), .s_axis_tlast(x_tlast), .s_axis_tuser(x_tuser),
        .s_ecn(d_sb.outer_ecn),
        .m_axis_tdata(d_tdata), .m_axis_tkeep(d_tkeep), .m_axis_tvalid(d_tvalid),
        .m_axis_tready(d_tready), .m_axis_tlast(d_tlast), .m_axis_tuser(d_tuser),
        .cnt_ce_marked, .cnt_ce_not_ect
    );
  end else begin : g_no_ecn
    assign d_tdata  = x_tdata;
    assign d_tkeep  = x_tkeep;
    assign d_tvalid = x_tvalid;
    assign x_tready = d_tready;
    assign d_tlast  = x_tlast;
    assign d_tuser  = x_tuser;
    assign cnt_ce_marked  = '0;
    assign cnt_ce_not_ect = '0;
  end

  // ---------------------------------------------------------------- TX input merge
  localparam int TXU_W = 1 + 1 + QP_W + 24;   // {bad, from_roce, qp, vni}
  logic [DATA_W-1:0] t_tdata;
  logic [KEEP_W-1:0] t_tkeep;
  logic              t_tvalid, t_tready, t_tlast;
  logic [TXU_W-1:0]  t_tuser;
  logic              unused_tsel;

  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(TXU_W)) u_txmux (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata({s_rtx_tdata, s_tx_tdata}), .s_axis_tkeep({s_rtx_tkeep, s_tx_tkeep}),
      .s_axis_tvalid({s_rtx_tvalid, s_tx_tvalid}), .s_axis_tready({s_rtx_tready, s_tx_tready}),
      .s_axis_tlast({s_rtx_tlast, s_tx_tlast}),
      .s_axis_tuser({s_rtx_tuser, 1'b1, QP_W'(0), s_rtx_vni, s_tx_tuser, 1'b0, s_tx_qp, s_tx_vni}),
      .m_axis_tdata(t_tdata), .m_axis_tkeep(t_tkeep), .m_axis_tvalid(t_tvalid),
      .m_axis_tready(t_tready), .m_axis_tlast(t_tlast), .m_axis_tuser(t_tuser),
      .sel(unused_tsel)
  );

  // ---------------------------------------------------------------- lookups at the first beat
  // Port A is shared: RX and TX requests alternate when both wait. la_user = {is_tx, tag}.
  localparam int LU_W = 1 + SB_W;
  logic              first_q, df_ready, rx_req, tx_req, rx_gnt, tx_gnt, prio_tx_q;
  logic              t_first_q, tb_ready, la_valid, la_ready;
  logic [47:0]       inner_dmac, tx_dmac;
  logic [LU_W-1:0]   la_user, ra_user;
  logic [23:0]       la_vni;
  logic [47:0]       la_mac;

  always_comb begin
    for (int i = 0; i < 6; i++) begin
      inner_dmac[8*(5-i) +: 8] = d_tdata[8*i +: 8];
      tx_dmac[8*(5-i) +: 8]    = t_tdata[8*i +: 8];
    end
  end

  assign rx_req   = d_tvalid && first_q && df_ready;
  assign tx_req   = t_tvalid && t_first_q && tb_ready;
  assign tx_gnt   = tx_req && (!rx_req || prio_tx_q);
  assign rx_gnt   = rx_req && !tx_gnt;
  assign la_valid = rx_req || tx_req;
  assign la_vni   = tx_gnt ? t_tuser[23:0] : d_sb.vni;
  assign la_mac   = tx_gnt ? tx_dmac : inner_dmac;
  assign la_user  = tx_gnt ? {1'b1, SB_W'(t_tuser[TXU_W-2:0])} : {1'b0, d_sb};

  assign d_tready = df_ready && (!first_q || (la_ready && rx_gnt));
  assign t_tready = tb_ready && (!t_first_q || (la_ready && tx_gnt));

  always_ff @(posedge clk) begin
    if (d_tvalid && d_tready) first_q <= d_tlast;
    if (t_tvalid && t_tready) t_first_q <= t_tlast;
    if (la_valid && la_ready) prio_tx_q <= !tx_gnt;
    if (rst) begin
      first_q   <= 1'b1;
      t_first_q <= 1'b1;
      prio_tx_q <= 1'b0;
    end
  end

  logic                    ra_valid, ra_ready, ra_vni_hit, ra_mac_hit, ra_group;
  logic [23:0]             ra_vni;
  logic [1:0]              ra_action;
  logic [IDX_W-1:0]        ra_index;
  logic [TUN_W-1:0]        unused_ra_tun;
  logic [FC_W-1:0]         ra_fcnt;
  logic [FLOOD_MAX*QP_W-1:0] ra_flist;
  logic [RFC_W-1:0]        ra_rcnt;
  logic [RFLOOD_MAX*TUN_W-1:0] ra_rlist;
  logic [CNT_W-1:0]        unused_hits;
  logic                    rx_res_ready, tx_res_ready, ra_is_tx;

  logic [23:0]             lb_vni;
  logic                    lb_tun_sel, rb_hit;
  logic [TUN_W-1:0]        lb_tun;
  fabnic_vxlan_pkg::tunnel_t rb_tunnel;
  logic [19:0]             rb_tsum;

  fabnic_vswitch_table #(
      .ENTRIES(ENTRIES), .WAYS(WAYS), .VNI_ENTRIES(VNI_ENTRIES), .TUN_ENTRIES(TUN_ENTRIES),
      .QP_W(QP_W), .FLOOD_MAX(FLOOD_MAX), .RFLOOD_MAX(RFLOOD_MAX), .USER_W(LU_W),
      .CNT_W(CNT_W), .TUN_W(TUN_W), .IDX_W(IDX_W), .FC_W(FC_W), .RFC_W(RFC_W), .VAL_W(VAL_W)
  ) u_table (
      .clk, .rst, .init_done,
      .la_valid, .la_ready, .la_vni, .la_mac, .la_user,
      .ra_valid, .ra_ready, .ra_user, .ra_vni, .ra_vni_hit, .ra_mac_hit, .ra_group,
      .ra_action, .ra_index, .ra_vni_tun(unused_ra_tun), .ra_flood_cnt(ra_fcnt),
      .ra_flood_list(ra_flist), .ra_rflood_cnt(ra_rcnt), .ra_rflood_list(ra_rlist),
      .lb_vni, .lb_tun_sel, .lb_tun, .rb_hit, .rb_tunnel, .rb_tsum,
      .cmd_valid, .cmd_ready, .cmd_op, .cmd_table, .cmd_key, .cmd_index, .cmd_value,
      .rsp_valid, .rsp_ready, .rsp_status, .rsp_value,
      .cnt_lookups, .cnt_mac_hits(unused_hits), .cnt_add_full, .status_mac_entries
  );

  assign ra_is_tx = ra_user[LU_W-1];
  assign ra_ready = ra_is_tx ? tx_res_ready : rx_res_ready;

  // ---------------------------------------------------------------- RX per-frame decision
  localparam logic [2:0] D_LOCAL = 3'd0, D_FLOOD = 3'd1, D_ROCE = 3'd2, D_NOVNI = 3'd3,
                         D_LOOP = 3'd4, D_NOFLOOD = 3'd5;

  typedef struct packed {
    logic [2:0]                 dest;
    logic [23:0]                vni;
    logic [FC_W-1:0]            qcnt;
    logic [FLOOD_MAX*QP_W-1:0]  qlist;
    logic [SB_W-1:0]            sb;
  } res_t;

  res_t r_in, r;
  logic r_valid, r_pop;
  logic [2:0] unused_rcnt;

  always_comb begin
    r_in.vni   = ra_vni;
    r_in.sb    = ra_user[SB_W-1:0];
    r_in.qcnt  = FC_W'(1);
    r_in.qlist = '0;
    r_in.qlist[QP_W-1:0] = ra_index[QP_W-1:0];
    if (!ra_vni_hit) begin
      r_in.dest = D_NOVNI;
    end else if (ra_mac_hit) begin
      case (ra_action)
        fabnic_vxlan_pkg::ACT_LOCAL: r_in.dest = D_LOCAL;
        fabnic_vxlan_pkg::ACT_ROCE:  r_in.dest = D_ROCE;
        fabnic_vxlan_pkg::ACT_UPLINK: r_in.dest = D_LOOP;
        default:                     r_in.dest = D_NOFLOOD;  // ACT_NONE entry: treat as no route
      endcase
    end else begin
      r_in.dest  = ra_fcnt == '0 ? D_NOFLOOD : D_FLOOD;
      r_in.qcnt  = ra_fcnt;
      r_in.qlist = ra_flist;
    end
  end

  logic unused_group;
  assign unused_group = ra_group;  // group MACs flood unless the table has an entry for them

  fabnic_fifo #(.WIDTH($bits(res_t)), .DEPTH(4)) u_res (
      .clk, .rst,
      .in_valid(ra_valid && !ra_is_tx), .in_ready(rx_res_ready), .in_data(r_in),
      .out_valid(r_valid), .out_ready(r_pop), .out_data(r),
      .status_count(unused_rcnt)
  );

  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic              f_tvalid, f_tready, f_tlast, f_tuser;
  logic [$clog2(RX_DEPTH):0] unused_depth;
  logic unused_good, unused_bad, unused_ovf, unused_ovs;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(RX_DEPTH)) u_rxf (
      .clk, .rst,
      .s_axis_tdata(d_tdata), .s_axis_tkeep(d_tkeep), .s_axis_tvalid(d_tvalid && d_tready),
      .s_axis_tready(df_ready), .s_axis_tlast(d_tlast), .s_axis_tuser(d_tuser),
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
      .status_depth(unused_depth), .status_good_frame(unused_good),
      .status_bad_frame(unused_bad), .status_overflow(unused_ovf), .status_oversize(unused_ovs)
  );

  logic to_local, to_roce, rl_tvalid, rl_tready;
  assign to_local = r.dest == D_LOCAL || r.dest == D_FLOOD;
  assign to_roce  = r.dest == D_ROCE;

  assign rl_tvalid      = f_tvalid && r_valid && to_local;

  assign m_roce_tdata   = f_tdata;
  assign m_roce_tkeep   = f_tkeep;
  assign m_roce_tlast   = f_tlast;
  assign m_roce_tuser   = f_tuser;
  assign m_roce_tvalid  = f_tvalid && r_valid && to_roce;
  assign m_roce_sb      = fabnic_vxlan_pkg::decap_sb_t'(r.sb);

  assign f_tready = r_valid && (to_local ? rl_tready : to_roce ? m_roce_tready : 1'b1);
  assign r_pop    = f_tvalid && f_tready && f_tlast;

  always_ff @(posedge clk) begin
    if (r_pop) begin
      case (r.dest)
        D_LOCAL:   cnt_rx_local         <= cnt_rx_local + 1'b1;
        D_FLOOD:   cnt_rx_flood         <= cnt_rx_flood + 1'b1;
        D_ROCE:    cnt_rx_roce          <= cnt_rx_roce + 1'b1;
        D_NOVNI:   cnt_drop_unknown_vni <= cnt_drop_unknown_vni + 1'b1;
        D_LOOP:    cnt_drop_loop        <= cnt_drop_loop + 1'b1;
        default:   cnt_drop_no_flood    <= cnt_drop_no_flood + 1'b1;
      endcase
    end
    if (rst) begin
      cnt_rx_local         <= '0;
      cnt_rx_flood         <= '0;
      cnt_rx_roce          <= '0;
      cnt_drop_unknown_vni <= '0;
      cnt_drop_loop        <= '0;
      cnt_drop_no_flood    <= '0;
    end
  end

  // ---------------------------------------------------------------- TX per-frame decision
  typedef struct packed {
    logic                        novni;
    logic [23:0]                 vni;
    logic                        local_copy;
    logic                        flood;
    logic [FC_W-1:0]             qcnt;
    logic [FLOOD_MAX*QP_W-1:0]   qlist;
    logic [RFC_W-1:0]            rcnt;
    logic [RFLOOD_MAX*TUN_W-1:0] rlist;
  } tres_t;

  tres_t tr_in, tr;
  logic tr_valid, tr_ready;
  logic [2:0] unused_trcnt;
  logic [QP_W-1:0] tx_src_qp;
  logic            tx_from_roce;
  logic [FC_W-1:0] kept;

  assign tx_src_qp    = ra_user[24 +: QP_W];
  assign tx_from_roce = ra_user[24 + QP_W];

  always_comb begin
    tr_in            = '0;
    tr_in.novni      = !ra_vni_hit;
    tr_in.vni        = ra_vni;
    kept             = '0;
    if (ra_mac_hit) begin
      if (ra_action == fabnic_vxlan_pkg::ACT_LOCAL) begin
        tr_in.local_copy       = 1'b1;
        tr_in.qcnt             = FC_W'(1);
        tr_in.qlist[QP_W-1:0]  = ra_index[QP_W-1:0];
      end else if (ra_action == fabnic_vxlan_pkg::ACT_UPLINK) begin
        tr_in.rcnt             = RFC_W'(1);
        tr_in.rlist[TUN_W-1:0] = ra_index[TUN_W-1:0];
      end
      // ACT_ROCE / ACT_NONE: no copy -> dropped as "no route"
    end else begin
      // flood within the VNI: local list without the sender, and every remote VTEP
      tr_in.flood = 1'b1;
      for (int i = 0; i < FLOOD_MAX; i++) begin
        if (FC_W'(i) < ra_fcnt
            && (tx_from_roce || ra_flist[i*QP_W +: QP_W] != tx_src_qp)) begin
          tr_in.qlist[kept*QP_W +: QP_W] = ra_flist[i*QP_W +: QP_W];
          kept = kept + 1'b1;
        end
      end
      tr_in.qcnt       = kept;
      tr_in.local_copy = kept != '0;
      tr_in.rcnt       = ra_rcnt;
      tr_in.rlist      = ra_rlist;
    end
  end

  fabnic_fifo #(.WIDTH($bits(tres_t)), .DEPTH(4)) u_tres (
      .clk, .rst,
      .in_valid(ra_valid && ra_is_tx), .in_ready(tx_res_ready), .in_data(tr_in),
      .out_valid(tr_valid), .out_ready(tr_ready), .out_data(tr),
      .status_count(unused_trcnt)
  );

  // ---------------------------------------------------------------- TX buffer + replication
  logic [DATA_W-1:0] x2_tdata;
  logic [KEEP_W-1:0] x2_tkeep;
  logic              x2_tvalid, x2_tready, x2_tlast, x2_local, x2_flood;
  logic [TUN_W-1:0]  x2_tun;
  logic [23:0]       x2_vni;
  logic [15:0]       x2_len, x2_csum;
  logic [FC_W-1:0]   x2_qcnt;
  logic [FLOOD_MAX*QP_W-1:0] x2_qlist;
  logic [CNT_W-1:0]  unused_rep_frames, unused_rep_copies, rep_novni, enc_novni, enc_in;

  fabnic_vxlan_tx_repl #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .DEPTH(TX_DEPTH), .QP_W(QP_W), .FLOOD_MAX(FLOOD_MAX),
      .RFLOOD_MAX(RFLOOD_MAX), .TUN_W(TUN_W), .CNT_W(CNT_W), .FC_W(FC_W), .RFC_W(RFC_W)
  ) u_repl (
      .clk, .rst,
      .s_axis_tdata(t_tdata), .s_axis_tkeep(t_tkeep), .s_axis_tvalid(t_tvalid && t_tready),
      .s_axis_tready(tb_ready), .s_axis_tlast(t_tlast), .s_axis_tuser(t_tuser[TXU_W-1]),
      .s_dec_valid(tr_valid), .s_dec_ready(tr_ready), .s_dec_novni(tr.novni),
      .s_dec_vni(tr.vni), .s_dec_local(tr.local_copy), .s_dec_flood(tr.flood),
      .s_dec_qcnt(tr.qcnt), .s_dec_qlist(tr.qlist), .s_dec_rcnt(tr.rcnt),
      .s_dec_rlist(tr.rlist),
      .m_axis_tdata(x2_tdata), .m_axis_tkeep(x2_tkeep), .m_axis_tvalid(x2_tvalid),
      .m_axis_tready(x2_tready), .m_axis_tlast(x2_tlast), .m_local(x2_local), .m_tun(x2_tun),
      .m_vni(x2_vni), .m_len(x2_len), .m_csum(x2_csum), .m_flood(x2_flood), .m_qcnt(x2_qcnt),
      .m_qlist(x2_qlist),
      .cnt_frames(unused_rep_frames), .cnt_copies(unused_rep_copies), .cnt_flood(cnt_tx_flood),
      .cnt_drop_oversize(cnt_tx_drop_oversize), .cnt_drop_bad(cnt_tx_drop_bad),
      .cnt_drop_novni(rep_novni), .cnt_drop_no_route(cnt_tx_drop_no_route)
  );

  // split: local copies -> m_local (merged with RX), uplink copies -> encap
  logic enc_tready, tl_tready;
  assign x2_tready = x2_local ? tl_tready : enc_tready;

  // ---------------------------------------------------------------- m_local: RX + TX local
  localparam int LSB_W = 1 + 24 + 1 + FC_W + FLOOD_MAX * QP_W;  // {bad, vni, flood, qcnt, qlist}
  logic [LSB_W-1:0] lo_user;
  logic unused_lsel;

  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(LSB_W)) u_lmux (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata({x2_tdata, f_tdata}), .s_axis_tkeep({x2_tkeep, f_tkeep}),
      .s_axis_tvalid({x2_tvalid && x2_local, rl_tvalid}), .s_axis_tready({tl_tready, rl_tready}),
      .s_axis_tlast({x2_tlast, f_tlast}),
      .s_axis_tuser({1'b0, x2_vni, x2_flood, x2_qcnt, x2_qlist,
                     f_tuser, r.vni, r.dest == D_FLOOD, r.qcnt, r.qlist}),
      .m_axis_tdata(m_local_tdata), .m_axis_tkeep(m_local_tkeep),
      .m_axis_tvalid(m_local_tvalid), .m_axis_tready(m_local_tready),
      .m_axis_tlast(m_local_tlast), .m_axis_tuser(lo_user), .sel(unused_lsel)
  );
  assign m_local_from_tx = unused_lsel;
  assign {m_local_tuser, m_local_vni, m_local_flood, m_local_qcnt, m_local_qlist} = lo_user;

  always_ff @(posedge clk) begin
    if (x2_tvalid && x2_tready && x2_tlast && x2_local) cnt_tx_local <= cnt_tx_local + 1'b1;
    if (t_tvalid && t_tready && t_tlast) cnt_tx_in <= cnt_tx_in + 1'b1;
    if (rst) begin
      cnt_tx_local <= '0;
      cnt_tx_in    <= '0;
    end
  end

  // ---------------------------------------------------------------- TX: encap
  fabnic_vxlan_encap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .TUN_W(TUN_W), .CNT_W(CNT_W)) u_encap (
      .clk, .rst,
      .s_axis_tdata(x2_tdata), .s_axis_tkeep(x2_tkeep), .s_axis_tvalid(x2_tvalid && !x2_local),
      .s_axis_tready(enc_tready), .s_axis_tlast(x2_tlast), .s_axis_tuser(1'b0),
      .s_vni(x2_vni), .s_len(x2_len), .s_tun_sel(1'b1), .s_tun(x2_tun),
      .s_csum_valid(UDP_CSUM), .s_csum(x2_csum),
      .lb_vni, .lb_tun_sel, .lb_tun, .rb_hit, .rb_tunnel, .rb_tsum,
      .m_axis_tdata(m_up_tdata), .m_axis_tkeep(m_up_tkeep), .m_axis_tvalid(m_up_tvalid),
      .m_axis_tready(m_up_tready), .m_axis_tlast(m_up_tlast), .m_axis_tuser(m_up_tuser),
      .cnt_frames_in(enc_in), .cnt_frames_out(cnt_tx_out),
      .cnt_drop_no_vni(enc_novni), .cnt_len_mismatch(cnt_tx_len_mismatch)
  );
  // a VNI deleted between lookup and encap is dropped there
  assign cnt_tx_drop_unknown_vni = rep_novni + enc_novni;

  logic unused_enc_in;
  assign unused_enc_in = ^enc_in;

endmodule

`resetall
