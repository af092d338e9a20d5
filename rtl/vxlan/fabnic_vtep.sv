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
// TX: inner frame + {vni, len} (s_tx_*) -> fabnic_vxlan_encap (tunnel from the
//     table's port B) -> m_up_* (to the MAC).
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
    parameter int RX_DEPTH    = 64,   // beats
    parameter bit ECN_DECAP   = 1'b1, // RFC 6040 CE propagation into the inner header
    parameter int CNT_W       = 32,
    parameter int TUN_W       = TUN_ENTRIES > 1 ? $clog2(TUN_ENTRIES) : 1,
    parameter int FC_W        = $clog2(FLOOD_MAX + 1),
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

    // ---- RX out: RoCE engine (inner frame, outer ECN in the sideband)
    output logic      [DATA_W-1:0]          m_roce_tdata,
    output logic      [KEEP_W-1:0]          m_roce_tkeep,
    output logic                            m_roce_tvalid,
    input  wire logic                       m_roce_tready,
    output logic                            m_roce_tlast,
    output logic                            m_roce_tuser,
    output fabnic_vxlan_pkg::decap_sb_t     m_roce_sb,

    // ---- TX in (local virtio queue) and out (uplink)
    input  wire logic [DATA_W-1:0]          s_tx_tdata,
    input  wire logic [KEEP_W-1:0]          s_tx_tkeep,
    input  wire logic                       s_tx_tvalid,
    output logic                            s_tx_tready,
    input  wire logic                       s_tx_tlast,
    input  wire logic                       s_tx_tuser,
    input  wire logic [23:0]                s_tx_vni,
    input  wire logic [15:0]                s_tx_len,
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

  // ---------------------------------------------------------------- lookup at the first beat
  logic              first_q, df_ready, la_valid, la_ready;
  logic [47:0]       inner_dmac;

  always_comb begin
    for (int i = 0; i < 6; i++) inner_dmac[8*(5-i) +: 8] = d_tdata[8*i +: 8];
  end

  assign la_valid = d_tvalid && first_q && df_ready;
  assign d_tready = df_ready && (!first_q || la_ready);

  always_ff @(posedge clk) begin
    if (d_tvalid && d_tready) first_q <= d_tlast;
    if (rst) first_q <= 1'b1;
  end

  logic                    ra_valid, ra_ready, ra_vni_hit, ra_mac_hit, ra_group;
  logic [SB_W-1:0]         ra_user;
  logic [23:0]             ra_vni;
  logic [1:0]              ra_action;
  logic [IDX_W-1:0]        ra_index;
  logic [TUN_W-1:0]        unused_ra_tun;
  logic [FC_W-1:0]         ra_fcnt;
  logic [FLOOD_MAX*QP_W-1:0] ra_flist;
  logic [CNT_W-1:0]        unused_hits;

  logic [23:0]             lb_vni;
  logic                    lb_tun_sel, rb_hit;
  logic [TUN_W-1:0]        lb_tun;
  fabnic_vxlan_pkg::tunnel_t rb_tunnel;

  fabnic_vswitch_table #(
      .ENTRIES(ENTRIES), .WAYS(WAYS), .VNI_ENTRIES(VNI_ENTRIES), .TUN_ENTRIES(TUN_ENTRIES),
      .QP_W(QP_W), .FLOOD_MAX(FLOOD_MAX), .USER_W(SB_W), .CNT_W(CNT_W), .TUN_W(TUN_W),
      .IDX_W(IDX_W), .FC_W(FC_W), .VAL_W(VAL_W)
  ) u_table (
      .clk, .rst, .init_done,
      .la_valid, .la_ready, .la_vni(d_sb.vni), .la_mac(inner_dmac), .la_user(d_sb),
      .ra_valid, .ra_ready, .ra_user, .ra_vni, .ra_vni_hit, .ra_mac_hit, .ra_group,
      .ra_action, .ra_index, .ra_vni_tun(unused_ra_tun), .ra_flood_cnt(ra_fcnt),
      .ra_flood_list(ra_flist),
      .lb_vni, .lb_tun_sel, .lb_tun, .rb_hit, .rb_tunnel,
      .cmd_valid, .cmd_ready, .cmd_op, .cmd_table, .cmd_key, .cmd_index, .cmd_value,
      .rsp_valid, .rsp_ready, .rsp_status, .rsp_value,
      .cnt_lookups, .cnt_mac_hits(unused_hits), .cnt_add_full, .status_mac_entries
  );

  // ---------------------------------------------------------------- per-frame decision
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
    r_in.sb    = ra_user;
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
      .in_valid(ra_valid), .in_ready(ra_ready), .in_data(r_in),
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

  logic to_local, to_roce;
  assign to_local = r.dest == D_LOCAL || r.dest == D_FLOOD;
  assign to_roce  = r.dest == D_ROCE;

  assign m_local_tdata  = f_tdata;
  assign m_local_tkeep  = f_tkeep;
  assign m_local_tlast  = f_tlast;
  assign m_local_tuser  = f_tuser;
  assign m_local_tvalid = f_tvalid && r_valid && to_local;
  assign m_local_vni    = r.vni;
  assign m_local_flood  = r.dest == D_FLOOD;
  assign m_local_qcnt   = r.qcnt;
  assign m_local_qlist  = r.qlist;

  assign m_roce_tdata   = f_tdata;
  assign m_roce_tkeep   = f_tkeep;
  assign m_roce_tlast   = f_tlast;
  assign m_roce_tuser   = f_tuser;
  assign m_roce_tvalid  = f_tvalid && r_valid && to_roce;
  assign m_roce_sb      = fabnic_vxlan_pkg::decap_sb_t'(r.sb);

  assign f_tready = r_valid && (to_local ? m_local_tready : to_roce ? m_roce_tready : 1'b1);
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

  // ---------------------------------------------------------------- TX: encap
  fabnic_vxlan_encap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .TUN_W(TUN_W), .CNT_W(CNT_W)) u_encap (
      .clk, .rst,
      .s_axis_tdata(s_tx_tdata), .s_axis_tkeep(s_tx_tkeep), .s_axis_tvalid(s_tx_tvalid),
      .s_axis_tready(s_tx_tready), .s_axis_tlast(s_tx_tlast), .s_axis_tuser(s_tx_tuser),
      .s_vni(s_tx_vni), .s_len(s_tx_len), .s_tun_sel(1'b0), .s_tun('0),
      .lb_vni, .lb_tun_sel, .lb_tun, .rb_hit, .rb_tunnel,
      .m_axis_tdata(m_up_tdata), .m_axis_tkeep(m_up_tkeep), .m_axis_tvalid(m_up_tvalid),
      .m_axis_tready(m_up_tready), .m_axis_tlast(m_up_tlast), .m_axis_tuser(m_up_tuser),
      .cnt_frames_in(cnt_tx_in), .cnt_frames_out(cnt_tx_out),
      .cnt_drop_no_vni(cnt_tx_drop_unknown_vni), .cnt_len_mismatch(cnt_tx_len_mismatch)
  );

endmodule

`resetall
