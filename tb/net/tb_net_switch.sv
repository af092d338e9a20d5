// SPDX-License-Identifier: Apache-2.0
// Test wrapper: 4-port fabnic_tb_switch. Port i: frame generator -> link (rate,
// delay) -> tap -> switch ingress i; switch egress i -> tap -> link -> stream
// monitor. With loop_en, ports 2 and 3 are cabled to each other instead
// (egress 2 -> ingress 3, egress 3 -> ingress 2), which makes a second switch hop
// for PFC tests. Per-port signals live in g_port[i]; the rest are wrapper signals.
`default_nettype none
module tb_net_switch #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int N = 4
) (
    input wire logic clk,
    input wire logic rst
);
  localparam int NMAC = 8;
  logic [63:0] cycle;
  logic loop_en;
  // switch configuration
  logic [31:0] rate, buf_size, q_cap, kmin, kmax, pmax, xoff, xon, pfc_refresh, sample_period;
  logic [15:0] ovh, pfc_quanta;
  logic [NMAC-1:0] mac_valid;
  logic [NMAC*48-1:0] mac_addr;
  logic [NMAC*8-1:0] mac_port;
  logic [N*8-1:0] dflt_port;
  logic ecn_en, pfc_en, pfc_obey;
  logic [2:0] pfc_prio;
  logic [63:0] seed;
  logic [47:0] sw_mac;
  logic [31:0] trace_rd_idx, tap_rd_idx;

  logic [N*DATA_W-1:0] s_tdata, m_tdata;
  logic [N*KEEP_W-1:0] s_tkeep, m_tkeep;
  logic [N-1:0] s_tvalid, s_tready, s_tlast, s_tuser, m_tvalid, m_tready, m_tlast, m_tuser;

  // ingress link outputs and egress link outputs
  logic [DATA_W-1:0] li_tdata [N], lo_tdata [N];
  logic [KEEP_W-1:0] li_tkeep [N], lo_tkeep [N];
  logic [N-1:0] li_tvalid, li_tready, li_tlast, li_tuser, lo_tvalid, lo_tready, lo_tlast, lo_tuser;
  logic [N-1:0] mon_tready;

  // cabling: loop_en crosses ports 2 and 3
  always_comb begin
    for (int i = 0; i < N; i++) begin
      int j;
      logic looped;
      looped = loop_en && (i == 2 || i == 3);
      j = i ^ 1;
      s_tdata[i*DATA_W +: DATA_W] = looped ? lo_tdata[j] : li_tdata[i];
      s_tkeep[i*KEEP_W +: KEEP_W] = looped ? lo_tkeep[j] : li_tkeep[i];
      s_tvalid[i] = looped ? lo_tvalid[j] : li_tvalid[i];
      s_tlast[i]  = looped ? lo_tlast[j] : li_tlast[i];
      s_tuser[i]  = looped ? lo_tuser[j] : li_tuser[i];
      li_tready[i] = !looped && s_tready[i];
      lo_tready[i] = looped ? s_tready[j] : mon_tready[i];
    end
  end

  for (genvar i = 0; i < N; i++) begin : g_port
    logic [8*128-1:0] hdr;
    logic [15:0] hdr_len, len_min, len_max, gap;
    logic [31:0] n_frames, in_rate, out_rate, in_delay, out_delay;
    logic start;
    logic [7:0] busy_per_256;
    logic [DATA_W-1:0] g_tdata;
    logic [KEEP_W-1:0] g_tkeep;
    logic g_tvalid, g_tready, g_tlast;
    logic [0:0] g_tuser;

    fabnic_tb_frame_gen #(.DATA_W(DATA_W)) gen (
      .clk, .rst, .hdr, .hdr_len, .len_min, .len_max, .n_frames, .gap, .start,
      .m_axis_tdata(g_tdata), .m_axis_tkeep(g_tkeep), .m_axis_tvalid(g_tvalid),
      .m_axis_tready(g_tready), .m_axis_tlast(g_tlast), .m_axis_tuser(g_tuser),
      .busy(), .frames_sent(), .bytes_sent(), .cycle(), .first_cycle(), .last_cycle()
    );

    fabnic_tb_link #(.DATA_W(DATA_W)) lk_in (
      .clk, .rst,
      .s_axis_tdata(g_tdata), .s_axis_tkeep(g_tkeep), .s_axis_tvalid(g_tvalid),
      .s_axis_tready(g_tready), .s_axis_tlast(g_tlast), .s_axis_tuser(g_tuser),
      .m_axis_tdata(li_tdata[i]), .m_axis_tkeep(li_tkeep[i]), .m_axis_tvalid(li_tvalid[i]),
      .m_axis_tready(li_tready[i]), .m_axis_tlast(li_tlast[i]), .m_axis_tuser(li_tuser[i:i]),
      .rate(in_rate), .ovh, .delay(in_delay), .seed(64'd0), .link_down(1'b0),
      .loss_en(1'b0), .loss_p('0), .ge_en(1'b0), .ge_p_gb('0), .ge_p_bg('0), .ge_loss('0),
      .dup_en(1'b0), .dup_p('0), .reorder_en(1'b0), .reorder_p('0), .hold_timeout('0),
      .biterr_en(1'b0), .biterr_p('0), .drop_list_en('0), .drop_list('0),
      .cnt_frames_in(), .cnt_bytes_in(), .cnt_frames_out(), .cnt_bytes_out(), .cnt_drop_down(),
      .cnt_drop_list(), .cnt_drop_ge(), .cnt_drop_loss(), .cnt_drop_oversize(), .cnt_dup(),
      .cnt_reorder(), .cnt_biterr(), .cnt_ge_bad(), .ge_bad()
    );

    fabnic_tb_net_tap #(.DATA_W(DATA_W), .CAP_BYTES(64), .DEPTH(8192)) tap_i (
      .clk, .rst, .tdata(s_tdata[i*DATA_W +: DATA_W]), .tkeep(s_tkeep[i*KEEP_W +: KEEP_W]),
      .tvalid(s_tvalid[i]), .tready(s_tready[i]), .tlast(s_tlast[i]), .tuser(s_tuser[i:i]),
      .cycle, .frames(), .bytes(), .rd_idx(tap_rd_idx), .rd_first(), .rd_last(), .rd_len(),
      .rd_bad(), .rd_crc(), .rd_data()
    );

    fabnic_tb_net_tap #(.DATA_W(DATA_W), .CAP_BYTES(64), .DEPTH(8192)) tap_e (
      .clk, .rst, .tdata(m_tdata[i*DATA_W +: DATA_W]), .tkeep(m_tkeep[i*KEEP_W +: KEEP_W]),
      .tvalid(m_tvalid[i]), .tready(m_tready[i]), .tlast(m_tlast[i]), .tuser(m_tuser[i:i]),
      .cycle, .frames(), .bytes(), .rd_idx(tap_rd_idx), .rd_first(), .rd_last(), .rd_len(),
      .rd_bad(), .rd_crc(), .rd_data()
    );

    fabnic_tb_link #(.DATA_W(DATA_W)) lk_out (
      .clk, .rst,
      .s_axis_tdata(m_tdata[i*DATA_W +: DATA_W]), .s_axis_tkeep(m_tkeep[i*KEEP_W +: KEEP_W]),
      .s_axis_tvalid(m_tvalid[i]), .s_axis_tready(m_tready[i]), .s_axis_tlast(m_tlast[i]),
      .s_axis_tuser(m_tuser[i:i]),
      .m_axis_tdata(lo_tdata[i]), .m_axis_tkeep(lo_tkeep[i]), .m_axis_tvalid(lo_tvalid[i]),
      .m_axis_tready(lo_tready[i]), .m_axis_tlast(lo_tlast[i]), .m_axis_tuser(lo_tuser[i:i]),
      .rate(out_rate), .ovh, .delay(out_delay), .seed(64'd0), .link_down(1'b0),
      .loss_en(1'b0), .loss_p('0), .ge_en(1'b0), .ge_p_gb('0), .ge_p_bg('0), .ge_loss('0),
      .dup_en(1'b0), .dup_p('0), .reorder_en(1'b0), .reorder_p('0), .hold_timeout('0),
      .biterr_en(1'b0), .biterr_p('0), .drop_list_en('0), .drop_list('0),
      .cnt_frames_in(), .cnt_bytes_in(), .cnt_frames_out(), .cnt_bytes_out(), .cnt_drop_down(),
      .cnt_drop_list(), .cnt_drop_ge(), .cnt_drop_loss(), .cnt_drop_oversize(), .cnt_dup(),
      .cnt_reorder(), .cnt_biterr(), .cnt_ge_bad(), .ge_bad()
    );

    fabnic_tb_stream_mon #(.DATA_W(DATA_W)) mon (
      .clk, .rst,
      .s_axis_tdata(lo_tdata[i]), .s_axis_tkeep(lo_tkeep[i]),
      .s_axis_tvalid(lo_tvalid[i] && !(loop_en && (i == 2 || i == 3))),
      .s_axis_tready(mon_tready[i]), .s_axis_tlast(lo_tlast[i]), .s_axis_tuser(lo_tuser[i:i]),
      .busy_per_256, .cycle, .frames(), .bad_frames(), .bytes(), .beats(),
      .first_cycle(), .last_cycle(), .first_frame_latency_ref()
    );
  end

  always_ff @(posedge clk) begin
    if (rst) cycle <= '0;
    else cycle <= cycle + 64'd1;
  end

  fabnic_tb_switch #(.N_PORTS(N), .DATA_W(DATA_W), .N_MAC(NMAC), .QDESC(8192)) sw (
    .clk, .rst,
    .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
    .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
    .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
    .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
    .rate, .ovh, .buf_size, .q_cap, .mac_valid, .mac_addr, .mac_port, .dflt_port, .ecn_en,
    .kmin, .kmax, .pmax, .seed, .pfc_en, .pfc_obey, .pfc_prio, .xoff, .xon, .pfc_quanta,
    .pfc_refresh, .sw_mac, .sample_period,
    .qlen(), .ing_bytes(), .buf_used(), .paused(), .xoff_state(), .cnt_rx_frames(),
    .cnt_rx_bytes(), .cnt_tx_frames(), .cnt_tx_bytes(), .cnt_drop_tail(), .cnt_drop_noroute(),
    .cnt_drop_bad(), .cnt_ecn_mark(), .cnt_pfc_xoff_tx(), .cnt_pfc_xon_tx(), .cnt_pfc_rx(),
    .peak_qlen(), .trace_count(), .trace_rd_idx, .trace_rd_cycle(), .trace_rd_q()
  );
endmodule
`resetall
