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
// Registers between the blocks (fabnic_axis_register type 2 unless said otherwise), so
// no valid/ready chain crosses two blocks: the ECN decap's three stages (or one register
// after the decap without ECN_DECAP), a lookup request register per direction (u_rq,
// u_tq) and one after their arbiter (u_la), the table's result head (u_ra), the TX
// decision's keep stage (u_tk), the RX decision head (u_rreg), the RX frames for
// m_local (u_rlreg), the TX merge's output (u_treg), the TX buffer's output (u_xreg),
// its local copies (u_xl) and its uplink copies (u_xe). The RX beat FIFO's and the RX result FIFO's room are flags
// registered a cycle ahead (two free then, one free now), so they hold RX_DEPTH-1 beats
// and 3 results. Combinational valid/ready paths left, by design of fabnic_axis_arb_mux
// (the TX merge's grant): s_tx_tvalid / s_rtx_tvalid -> s_tx_tready / s_rtx_tready.
// Throughput: one beat per cycle each way, one lookup per cycle.
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
  fabnic_vxlan_pkg::decap_sb_t x_sb, d_sb;
  logic [CNT_W-1:0]  unused_dec_out;

  fabnic_vxlan_decap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .CNT_W(CNT_W)) u_decap (
      .clk, .rst,
      .s_meta_data, .s_meta_valid, .s_meta_ready,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_axis_tdata(x_tdata), .m_axis_tkeep(x_tkeep), .m_axis_tvalid(x_tvalid),
      .m_axis_tready(x_tready), .m_axis_tlast(x_tlast), .m_axis_tuser(x_tuser), .m_sb(x_sb),
      .cnt_frames_in(cnt_rx_in), .cnt_frames_out(unused_dec_out),
      .cnt_drop_outer, .cnt_drop_short, .cnt_drop_flag(cnt_drop_bad_vxlan)
  );

  // RFC 6040: outer CE -> inner CE (3 register stages; the sideband rides with the beats)
  if (ECN_DECAP) begin : g_ecn
    fabnic_vxlan_ecn_decap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .SB_W(SB_W), .CNT_W(CNT_W)) u_ecn (
        .clk, .rst,
        .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid),
        .s_axis_tready(x_tready), .s_axis_tlast(x_tlast), .s_axis_tuser(x_tuser),
        .s_ecn(x_sb.outer_ecn), .s_sb(x_sb),
        .m_axis_tdata(d_tdata), .m_axis_tkeep(d_tkeep), .m_axis_tvalid(d_tvalid),
        .m_axis_tready(d_tready), .m_axis_tlast(d_tlast), .m_axis_tuser(d_tuser), .m_sb(d_sb),
        .cnt_ce_marked, .cnt_ce_not_ect
    );
  end else begin : g_no_ecn
    // the decap's output registered (sideband in tuser)
    fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(SB_W + 1), .REG_TYPE(2)) u_dreg (
        .clk, .rst,
        .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid),
        .s_axis_tready(x_tready), .s_axis_tlast(x_tlast), .s_axis_tuser({x_sb, x_tuser}),
        .m_axis_tdata(d_tdata), .m_axis_tkeep(d_tkeep), .m_axis_tvalid(d_tvalid),
        .m_axis_tready(d_tready), .m_axis_tlast(d_tlast), .m_axis_tuser({d_sb, d_tuser})
    );
    assign cnt_ce_marked  = '0;
    assign cnt_ce_not_ect = '0;
  end

  // ---------------------------------------------------------------- TX input merge
  localparam int TXU_W = 1 + 1 + QP_W + 24;   // {bad, from_roce, qp, vni}
  logic [DATA_W-1:0] tm_tdata, t_tdata;
  logic [KEEP_W-1:0] tm_tkeep, t_tkeep;
  logic              tm_tvalid, tm_tready, tm_tlast;
  logic              t_tvalid, t_tready, t_tlast;
  logic [TXU_W-1:0]  tm_tuser, t_tuser;
  logic              unused_tsel;

  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(TXU_W)) u_txmux (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata({s_rtx_tdata, s_tx_tdata}), .s_axis_tkeep({s_rtx_tkeep, s_tx_tkeep}),
      .s_axis_tvalid({s_rtx_tvalid, s_tx_tvalid}), .s_axis_tready({s_rtx_tready, s_tx_tready}),
      .s_axis_tlast({s_rtx_tlast, s_tx_tlast}),
      .s_axis_tuser({s_rtx_tuser, 1'b1, QP_W'(0), s_rtx_vni, s_tx_tuser, 1'b0, s_tx_qp, s_tx_vni}),
      .m_axis_tdata(tm_tdata), .m_axis_tkeep(tm_tkeep), .m_axis_tvalid(tm_tvalid),
      .m_axis_tready(tm_tready), .m_axis_tlast(tm_tlast), .m_axis_tuser(tm_tuser),
      .sel(unused_tsel)
  );

  // the merged stream registered: the TX buffer's input and the lookup request start at flops
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(TXU_W), .REG_TYPE(2)) u_treg (
      .clk, .rst,
      .s_axis_tdata(tm_tdata), .s_axis_tkeep(tm_tkeep), .s_axis_tvalid(tm_tvalid),
      .s_axis_tready(tm_tready), .s_axis_tlast(tm_tlast), .s_axis_tuser(tm_tuser),
      .m_axis_tdata(t_tdata), .m_axis_tkeep(t_tkeep), .m_axis_tvalid(t_tvalid),
      .m_axis_tready(t_tready), .m_axis_tlast(t_tlast), .m_axis_tuser(t_tuser)
  );

  // ---------------------------------------------------------------- lookups at the first beat
  // A frame's first beat is taken together with its lookup request, which waits in a skid
  // register per direction (u_rq RX, u_tq TX). Port A is shared: the two waiting
  // requests alternate into a third skid register (u_la) in front of the table.
  // la_user = {is_tx, tag}; a request is {VNI, MAC, user}.
  localparam int LU_W = 1 + SB_W;
  localparam int LQ_W = 24 + 48 + LU_W;
  logic              first_q, df_ready, rx_gnt, tx_gnt, prio_tx_q;
  logic              t_first_q, tb_ready, la_valid, la_ready;
  logic [47:0]       inner_dmac, tx_dmac;
  logic [LU_W-1:0]   la_user, ra_user;
  logic [23:0]       la_vni;
  logic [47:0]       la_mac;
  logic              rq_in_valid, rq_in_ready, rq_valid, rq_ready;
  logic              tq_in_valid, tq_in_ready, tq_valid, tq_ready;
  logic [LQ_W-1:0]   rq, tq, lq;
  logic              lq_valid, lq_ready;
  logic [0:0]        unused_la_keep;
  logic              unused_la_last, unused_la_user;
  logic [0:0]        unused_rq_keep, unused_tq_keep;
  logic              unused_rq_last, unused_rq_user, unused_tq_last, unused_tq_user;

  always_comb begin
    for (int i = 0; i < 6; i++) begin
      inner_dmac[8*(5-i) +: 8] = d_tdata[8*i +: 8];
      tx_dmac[8*(5-i) +: 8]    = t_tdata[8*i +: 8];
    end
  end

  assign rq_in_valid = d_tvalid && first_q && df_ready;
  assign tq_in_valid = t_tvalid && t_first_q && tb_ready;
  assign d_tready    = df_ready && (!first_q || rq_in_ready);
  assign t_tready    = tb_ready && (!t_first_q || tq_in_ready);

  fabnic_axis_register #(.DATA_W(LQ_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_rq (
      .clk, .rst,
      .s_axis_tdata({d_sb.vni, inner_dmac, 1'b0, d_sb}), .s_axis_tkeep(1'b1),
      .s_axis_tvalid(rq_in_valid), .s_axis_tready(rq_in_ready), .s_axis_tlast(1'b1),
      .s_axis_tuser(1'b0),
      .m_axis_tdata(rq), .m_axis_tkeep(unused_rq_keep), .m_axis_tvalid(rq_valid),
      .m_axis_tready(rq_ready), .m_axis_tlast(unused_rq_last), .m_axis_tuser(unused_rq_user)
  );

  fabnic_axis_register #(.DATA_W(LQ_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_tq (
      .clk, .rst,
      .s_axis_tdata({t_tuser[23:0], tx_dmac, 1'b1, SB_W'(t_tuser[TXU_W-2:0])}),
      .s_axis_tkeep(1'b1),
      .s_axis_tvalid(tq_in_valid), .s_axis_tready(tq_in_ready), .s_axis_tlast(1'b1),
      .s_axis_tuser(1'b0),
      .m_axis_tdata(tq), .m_axis_tkeep(unused_tq_keep), .m_axis_tvalid(tq_valid),
      .m_axis_tready(tq_ready), .m_axis_tlast(unused_tq_last), .m_axis_tuser(unused_tq_user)
  );

  assign tx_gnt   = tq_valid && (!rq_valid || prio_tx_q);
  assign rx_gnt   = rq_valid && !tx_gnt;
  assign lq_valid = rq_valid || tq_valid;
  assign lq       = tx_gnt ? tq : rq;
  assign rq_ready = lq_ready && rx_gnt;
  assign tq_ready = lq_ready && tx_gnt;

  fabnic_axis_register #(.DATA_W(LQ_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_la (
      .clk, .rst,
      .s_axis_tdata(lq), .s_axis_tkeep(1'b1), .s_axis_tvalid(lq_valid),
      .s_axis_tready(lq_ready), .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata({la_vni, la_mac, la_user}), .m_axis_tkeep(unused_la_keep),
      .m_axis_tvalid(la_valid), .m_axis_tready(la_ready), .m_axis_tlast(unused_la_last),
      .m_axis_tuser(unused_la_user)
  );

  always_ff @(posedge clk) begin
    if (d_tvalid && d_tready) first_q <= d_tlast;
    if (t_tvalid && t_tready) t_first_q <= t_tlast;
    if (lq_valid && lq_ready) prio_tx_q <= !tx_gnt;
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
  logic                    rx_res_ready, tx_res_ready, tk_in_ready, ra_is_tx;

  // the table's result head (ta_*) registered: the per-frame decisions start at flops
  localparam int RA_W = LU_W + 24 + 3 + 2 + IDX_W + FC_W + FLOOD_MAX * QP_W + RFC_W
                        + RFLOOD_MAX * TUN_W;
  logic                    ta_valid, ta_ready, ta_vni_hit, ta_mac_hit, ta_group;
  logic [LU_W-1:0]         ta_user;
  logic [23:0]             ta_vni;
  logic [1:0]              ta_action;
  logic [IDX_W-1:0]        ta_index;
  logic [FC_W-1:0]         ta_fcnt;
  logic [FLOOD_MAX*QP_W-1:0] ta_flist;
  logic [RFC_W-1:0]        ta_rcnt;
  logic [RFLOOD_MAX*TUN_W-1:0] ta_rlist;
  logic [0:0]              unused_ra_keep;
  logic                    unused_ra_last, unused_ra_xuser;

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
      .ra_valid(ta_valid), .ra_ready(ta_ready), .ra_user(ta_user), .ra_vni(ta_vni),
      .ra_vni_hit(ta_vni_hit), .ra_mac_hit(ta_mac_hit), .ra_group(ta_group),
      .ra_action(ta_action), .ra_index(ta_index), .ra_vni_tun(unused_ra_tun),
      .ra_flood_cnt(ta_fcnt), .ra_flood_list(ta_flist), .ra_rflood_cnt(ta_rcnt),
      .ra_rflood_list(ta_rlist),
      .lb_vni, .lb_tun_sel, .lb_tun, .rb_hit, .rb_tunnel, .rb_tsum,
      .cmd_valid, .cmd_ready, .cmd_op, .cmd_table, .cmd_key, .cmd_index, .cmd_value,
      .rsp_valid, .rsp_ready, .rsp_status, .rsp_value,
      .cnt_lookups, .cnt_mac_hits(unused_hits), .cnt_add_full, .status_mac_entries
  );

  fabnic_axis_register #(.DATA_W(RA_W), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_ra (
      .clk, .rst,
      .s_axis_tdata({ta_user, ta_vni, ta_vni_hit, ta_mac_hit, ta_group, ta_action, ta_index,
                     ta_fcnt, ta_flist, ta_rcnt, ta_rlist}),
      .s_axis_tkeep(1'b1), .s_axis_tvalid(ta_valid), .s_axis_tready(ta_ready),
      .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata({ra_user, ra_vni, ra_vni_hit, ra_mac_hit, ra_group, ra_action, ra_index,
                     ra_fcnt, ra_flist, ra_rcnt, ra_rlist}),
      .m_axis_tkeep(unused_ra_keep), .m_axis_tvalid(ra_valid), .m_axis_tready(ra_ready),
      .m_axis_tlast(unused_ra_last), .m_axis_tuser(unused_ra_xuser)
  );

  assign ra_is_tx = ra_user[LU_W-1];
  assign ra_ready = ra_is_tx ? tk_in_ready : rx_res_ready;

  // ---------------------------------------------------------------- RX per-frame decision
  localparam logic [2:0] D_LOCAL = 3'd0, D_FLOOD = 3'd1, D_ROCE = 3'd2, D_NOVNI = 3'd3,
                         D_LOOP = 3'd4, D_NOFLOOD = 3'd5;

  typedef struct packed {
    logic [2:0]                 dest;
    logic                       loc;     // dest is D_LOCAL or D_FLOOD: to m_local
    logic                       roce;    // dest is D_ROCE: to m_roce
    logic                       flood;   // dest is D_FLOOD
    logic [23:0]                vni;
    logic [FC_W-1:0]            qcnt;
    logic [FLOOD_MAX*QP_W-1:0]  qlist;
    logic [SB_W-1:0]            sb;
  } res_t;

  res_t r_in, r0, r;
  logic r0_valid, r0_ready, r_valid, r_pop, res_in_ready, res_room_q;
  logic [2:0] rcnt;
  logic [0:0] unused_r_keep;
  logic       unused_r_last, unused_r_user;

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
    r_in.loc   = r_in.dest == D_LOCAL || r_in.dest == D_FLOOD;
    r_in.roce  = r_in.dest == D_ROCE;
    r_in.flood = r_in.dest == D_FLOOD;
  end

  logic unused_group;
  assign unused_group = ra_group;  // group MACs flood unless the table has an entry for them

  fabnic_fifo #(.WIDTH($bits(res_t)), .DEPTH(4)) u_res (
      .clk, .rst,
      .in_valid(ra_valid && !ra_is_tx && rx_res_ready), .in_ready(res_in_ready),
      .in_data(r_in), .out_valid(r0_valid), .out_ready(r0_ready), .out_data(r0),
      .status_count(rcnt)
  );
  // room, registered: two free a cycle ago is one free now (so 3 of the 4 entries are used)
  always_ff @(posedge clk) begin
    res_room_q <= rcnt <= 3'd2;
    if (rst) res_room_q <= 1'b0;
  end
  assign rx_res_ready = res_room_q;

  // the head decision in a register: the dispatch starts at flops
  fabnic_axis_register #(.DATA_W($bits(res_t)), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_rreg (
      .clk, .rst,
      .s_axis_tdata(r0), .s_axis_tkeep(1'b1), .s_axis_tvalid(r0_valid),
      .s_axis_tready(r0_ready), .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata(r), .m_axis_tkeep(unused_r_keep), .m_axis_tvalid(r_valid),
      .m_axis_tready(r_pop), .m_axis_tlast(unused_r_last), .m_axis_tuser(unused_r_user)
  );

  // RX beat FIFO room, registered: two free a cycle ago is one free now (one write per
  // cycle), so at most RX_DEPTH-1 beats are held
  logic [$clog2(RX_DEPTH):0] rx_depth;
  logic rx_room_q;
  always_ff @(posedge clk) begin
    rx_room_q <= rx_depth <= ($clog2(RX_DEPTH) + 1)'(RX_DEPTH - 2);
    if (rst) rx_room_q <= 1'b0;
  end
  assign df_ready = rx_room_q;

  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic              f_tvalid, f_tready, f_tlast, f_tuser;
  logic unused_good, unused_bad, unused_ovf, unused_ovs, rxf_ready;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(RX_DEPTH)) u_rxf (
      .clk, .rst,
      .s_axis_tdata(d_tdata), .s_axis_tkeep(d_tkeep), .s_axis_tvalid(d_tvalid && d_tready),
      .s_axis_tready(rxf_ready), .s_axis_tlast(d_tlast), .s_axis_tuser(d_tuser),
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
      .status_depth(rx_depth), .status_good_frame(unused_good),
      .status_bad_frame(unused_bad), .status_overflow(unused_ovf), .status_oversize(unused_ovs)
  );

  logic rl_tvalid, rl_tready;
  assign rl_tvalid      = f_tvalid && r_valid && r.loc;

  assign m_roce_tdata   = f_tdata;
  assign m_roce_tkeep   = f_tkeep;
  assign m_roce_tlast   = f_tlast;
  assign m_roce_tuser   = f_tuser;
  assign m_roce_tvalid  = f_tvalid && r_valid && r.roce;
  assign m_roce_sb      = fabnic_vxlan_pkg::decap_sb_t'(r.sb);

  assign f_tready = r_valid && (r.loc ? rl_tready : r.roce ? m_roce_tready : 1'b1);
  assign r_pop    = f_tvalid && f_tready && f_tlast;

  // counters: the settled frame's destination registered, counted a cycle later
  logic       ev_rx_q;
  logic [2:0] ev_dest_q;
  always_ff @(posedge clk) begin
    ev_rx_q   <= r_pop;
    ev_dest_q <= r.dest;
    if (ev_rx_q) begin
      case (ev_dest_q)
        D_LOCAL:   cnt_rx_local         <= cnt_rx_local + 1'b1;
        D_FLOOD:   cnt_rx_flood         <= cnt_rx_flood + 1'b1;
        D_ROCE:    cnt_rx_roce          <= cnt_rx_roce + 1'b1;
        D_NOVNI:   cnt_drop_unknown_vni <= cnt_drop_unknown_vni + 1'b1;
        D_LOOP:    cnt_drop_loop        <= cnt_drop_loop + 1'b1;
        default:   cnt_drop_no_flood    <= cnt_drop_no_flood + 1'b1;
      endcase
    end
    if (rst) begin
      ev_rx_q              <= 1'b0;
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

  // stage 1 (decide): the VNI's flood entries to keep, i.e. the listed ones other than the
  // sender's queue, registered with the result
  typedef struct packed {
    logic                        vni_hit;
    logic                        mac_hit;
    logic [1:0]                  action;
    logic [IDX_W-1:0]            index;
    logic [23:0]                 vni;
    logic [FLOOD_MAX-1:0]        keep;
    logic [FLOOD_MAX*QP_W-1:0]   flist;
    logic [RFC_W-1:0]            rcnt;
    logic [RFLOOD_MAX*TUN_W-1:0] rlist;
  } tk_t;

  tk_t  tk_in, tk;
  logic tk_valid;
  logic [0:0] unused_tk_keep;
  logic       unused_tk_last, unused_tk_user;

  assign tx_src_qp    = ra_user[24 +: QP_W];
  assign tx_from_roce = ra_user[24 + QP_W];

  always_comb begin
    tk_in.vni_hit = ra_vni_hit;
    tk_in.mac_hit = ra_mac_hit;
    tk_in.action  = ra_action;
    tk_in.index   = ra_index;
    tk_in.vni     = ra_vni;
    tk_in.flist   = ra_flist;
    tk_in.rcnt    = ra_rcnt;
    tk_in.rlist   = ra_rlist;
    for (int i = 0; i < FLOOD_MAX; i++) begin
      tk_in.keep[i] = FC_W'(i) < ra_fcnt
                      && (tx_from_roce || ra_flist[i*QP_W +: QP_W] != tx_src_qp);
    end
  end

  fabnic_axis_register #(.DATA_W($bits(tk_t)), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_tk (
      .clk, .rst,
      .s_axis_tdata(tk_in), .s_axis_tkeep(1'b1), .s_axis_tvalid(ra_valid && ra_is_tx),
      .s_axis_tready(tk_in_ready), .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata(tk), .m_axis_tkeep(unused_tk_keep), .m_axis_tvalid(tk_valid),
      .m_axis_tready(tx_res_ready), .m_axis_tlast(unused_tk_last), .m_axis_tuser(unused_tk_user)
  );

  // kept entries below entry i
  function automatic logic [FC_W-1:0] kept_below(input logic [FLOOD_MAX-1:0] keep, input int i);
    logic [FC_W-1:0] n;
    n = '0;
    for (int j = 0; j < FLOOD_MAX; j++) if (j < i && keep[j]) n = n + 1'b1;
    return n;
  endfunction

  // stage 2 (act): the decision; a flood's kept entries move down in order (slot k takes
  // the kept entry with k kept entries below it)
  always_comb begin
    tr_in            = '0;
    tr_in.novni      = !tk.vni_hit;
    tr_in.vni        = tk.vni;
    if (tk.mac_hit) begin
      if (tk.action == fabnic_vxlan_pkg::ACT_LOCAL) begin
        tr_in.local_copy       = 1'b1;
        tr_in.qcnt             = FC_W'(1);
        tr_in.qlist[QP_W-1:0]  = tk.index[QP_W-1:0];
      end else if (tk.action == fabnic_vxlan_pkg::ACT_UPLINK) begin
        tr_in.rcnt             = RFC_W'(1);
        tr_in.rlist[TUN_W-1:0] = tk.index[TUN_W-1:0];
      end
      // ACT_ROCE / ACT_NONE: no copy -> dropped as "no route"
    end else begin
      // flood within the VNI: local list without the sender, and every remote VTEP
      tr_in.flood = 1'b1;
      for (int k = 0; k < FLOOD_MAX; k++) begin
        for (int i = k; i < FLOOD_MAX; i++) begin
          if (tk.keep[i] && kept_below(tk.keep, i) == FC_W'(k)) begin
            tr_in.qlist[k*QP_W +: QP_W] |= tk.flist[i*QP_W +: QP_W];
          end
        end
      end
      tr_in.qcnt       = kept_below(tk.keep, FLOOD_MAX);
      tr_in.local_copy = tk.keep != '0;
      tr_in.rcnt       = tk.rcnt;
      tr_in.rlist      = tk.rlist;
    end
  end

  fabnic_fifo #(.WIDTH($bits(tres_t)), .DEPTH(4)) u_tres (
      .clk, .rst,
      .in_valid(tk_valid), .in_ready(tx_res_ready), .in_data(tr_in),
      .out_valid(tr_valid), .out_ready(tr_ready), .out_data(tr),
      .status_count(unused_trcnt)
  );

  // ---------------------------------------------------------------- TX buffer + replication
  localparam int XU_W = 1 + TUN_W + 24 + 16 + 16 + 1 + FC_W + FLOOD_MAX * QP_W;
  logic [DATA_W-1:0] x1_tdata, x2_tdata;
  logic [KEEP_W-1:0] x1_tkeep, x2_tkeep;
  logic              x1_tvalid, x1_tready, x1_tlast, x1_local, x1_flood;
  logic              x2_tvalid, x2_tready, x2_tlast, x2_local, x2_flood;
  logic [TUN_W-1:0]  x1_tun, x2_tun;
  logic [23:0]       x1_vni, x2_vni;
  logic [15:0]       x1_len, x1_csum, x2_len, x2_csum;
  logic [FC_W-1:0]   x1_qcnt, x2_qcnt;
  logic [FLOOD_MAX*QP_W-1:0] x1_qlist, x2_qlist;
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
      .m_axis_tdata(x1_tdata), .m_axis_tkeep(x1_tkeep), .m_axis_tvalid(x1_tvalid),
      .m_axis_tready(x1_tready), .m_axis_tlast(x1_tlast), .m_local(x1_local), .m_tun(x1_tun),
      .m_vni(x1_vni), .m_len(x1_len), .m_csum(x1_csum), .m_flood(x1_flood), .m_qcnt(x1_qcnt),
      .m_qlist(x1_qlist),
      .cnt_frames(unused_rep_frames), .cnt_copies(unused_rep_copies), .cnt_flood(cnt_tx_flood),
      .cnt_drop_oversize(cnt_tx_drop_oversize), .cnt_drop_bad(cnt_tx_drop_bad),
      .cnt_drop_novni(rep_novni), .cnt_drop_no_route(cnt_tx_drop_no_route)
  );

  // the TX buffer's output registered (sideband in tuser): the m_local merge's and the
  // encap's ready stop here
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(XU_W), .REG_TYPE(2)) u_xreg (
      .clk, .rst,
      .s_axis_tdata(x1_tdata), .s_axis_tkeep(x1_tkeep), .s_axis_tvalid(x1_tvalid),
      .s_axis_tready(x1_tready), .s_axis_tlast(x1_tlast),
      .s_axis_tuser({x1_local, x1_tun, x1_vni, x1_len, x1_csum, x1_flood, x1_qcnt, x1_qlist}),
      .m_axis_tdata(x2_tdata), .m_axis_tkeep(x2_tkeep), .m_axis_tvalid(x2_tvalid),
      .m_axis_tready(x2_tready), .m_axis_tlast(x2_tlast),
      .m_axis_tuser({x2_local, x2_tun, x2_vni, x2_len, x2_csum, x2_flood, x2_qcnt, x2_qlist})
  );

  // split: local copies -> m_local (merged with RX, through one more register), uplink
  // copies -> encap
  localparam int LSB_W = 1 + 24 + 1 + FC_W + FLOOD_MAX * QP_W;  // {bad, vni, flood, qcnt, qlist}
  logic enc_tready, xl_tready, xe_tready, tl_tready, tl_tvalid, tl_tlast;
  logic [DATA_W-1:0] tl_tdata;
  logic [KEEP_W-1:0] tl_tkeep;
  logic [LSB_W-1:0]  tl_tuser;
  assign x2_tready = x2_local ? xl_tready : xe_tready;

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(LSB_W), .REG_TYPE(2)) u_xl (
      .clk, .rst,
      .s_axis_tdata(x2_tdata), .s_axis_tkeep(x2_tkeep), .s_axis_tvalid(x2_tvalid && x2_local),
      .s_axis_tready(xl_tready), .s_axis_tlast(x2_tlast),
      .s_axis_tuser({1'b0, x2_vni, x2_flood, x2_qcnt, x2_qlist}),
      .m_axis_tdata(tl_tdata), .m_axis_tkeep(tl_tkeep), .m_axis_tvalid(tl_tvalid),
      .m_axis_tready(tl_tready), .m_axis_tlast(tl_tlast), .m_axis_tuser(tl_tuser)
  );

  // ---------------------------------------------------------------- m_local: RX + TX local
  logic [LSB_W-1:0] lo_user, rl2_tuser;
  logic unused_lsel;
  logic [DATA_W-1:0] rl2_tdata;
  logic [KEEP_W-1:0] rl2_tkeep;
  logic              rl2_tvalid, rl2_tready, rl2_tlast;

  // RX frames for m_local registered before the merge (the dispatch's ready stops here)
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(LSB_W), .REG_TYPE(2)) u_rlreg (
      .clk, .rst,
      .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(rl_tvalid),
      .s_axis_tready(rl_tready), .s_axis_tlast(f_tlast),
      .s_axis_tuser({f_tuser, r.vni, r.flood, r.qcnt, r.qlist}),
      .m_axis_tdata(rl2_tdata), .m_axis_tkeep(rl2_tkeep), .m_axis_tvalid(rl2_tvalid),
      .m_axis_tready(rl2_tready), .m_axis_tlast(rl2_tlast), .m_axis_tuser(rl2_tuser)
  );

  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(LSB_W)) u_lmux (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata({tl_tdata, rl2_tdata}), .s_axis_tkeep({tl_tkeep, rl2_tkeep}),
      .s_axis_tvalid({tl_tvalid, rl2_tvalid}),
      .s_axis_tready({tl_tready, rl2_tready}), .s_axis_tlast({tl_tlast, rl2_tlast}),
      .s_axis_tuser({tl_tuser, rl2_tuser}),
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
  // uplink copies registered in front of the encap (its ready stops here)
  localparam int EU_W = TUN_W + 24 + 16 + 16;
  logic [DATA_W-1:0] e_tdata;
  logic [KEEP_W-1:0] e_tkeep;
  logic              e_tvalid, e_tlast, e_tuser;
  logic [TUN_W-1:0]  e_tun;
  logic [23:0]       e_vni;
  logic [15:0]       e_len, e_csum;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(EU_W + 1), .REG_TYPE(2)) u_xe (
      .clk, .rst,
      .s_axis_tdata(x2_tdata), .s_axis_tkeep(x2_tkeep), .s_axis_tvalid(x2_tvalid && !x2_local),
      .s_axis_tready(xe_tready), .s_axis_tlast(x2_tlast),
      .s_axis_tuser({x2_tun, x2_vni, x2_len, x2_csum, 1'b0}),
      .m_axis_tdata(e_tdata), .m_axis_tkeep(e_tkeep), .m_axis_tvalid(e_tvalid),
      .m_axis_tready(enc_tready), .m_axis_tlast(e_tlast),
      .m_axis_tuser({e_tun, e_vni, e_len, e_csum, e_tuser})
  );

  fabnic_vxlan_encap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .TUN_W(TUN_W), .CNT_W(CNT_W)) u_encap (
      .clk, .rst,
      .s_axis_tdata(e_tdata), .s_axis_tkeep(e_tkeep), .s_axis_tvalid(e_tvalid),
      .s_axis_tready(enc_tready), .s_axis_tlast(e_tlast), .s_axis_tuser(e_tuser),
      .s_vni(e_vni), .s_len(e_len), .s_tun_sel(1'b1), .s_tun(e_tun),
      .s_csum_valid(UDP_CSUM), .s_csum(e_csum),
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

`ifndef SYNTHESIS
  // the registered room flags never let a write meet a full queue
  always_ff @(posedge clk) begin
    if (!rst && d_tvalid && d_tready) assert (rxf_ready) else $error("fabnic_vtep: RX FIFO overflow");
    if (!rst && ra_valid && !ra_is_tx && rx_res_ready) assert (res_in_ready)
      else $error("fabnic_vtep: RX result FIFO overflow");
  end
`endif

endmodule

`resetall
