// SPDX-License-Identifier: Apache-2.0
//
// Testbench wrapper: fabnic_pkt_parser (STRIP=1) -> fabnic_vtep. Struct sidebands are
// flattened to vectors for cocotb. Not synthesized.
`default_nettype none

module tb_vtep #(
    parameter int DATA_W      = 64,
    parameter int ENTRIES     = 64,
    parameter int WAYS        = 4,
    parameter int VNI_ENTRIES = 4,
    parameter int TUN_ENTRIES = 4,
    parameter int QP_W        = 8,
    parameter int FLOOD_MAX   = 4,
    parameter int RFLOOD_MAX  = 4,
    parameter int TX_DEPTH    = 256
) (
    input  wire logic                  clk,
    input  wire logic                  rst,
    output logic                       init_done,

    input  wire logic [DATA_W-1:0]     s_axis_tdata,
    input  wire logic [DATA_W/8-1:0]   s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output logic                       s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic                  s_axis_tuser,

    output logic      [DATA_W-1:0]     m_local_tdata,
    output logic      [DATA_W/8-1:0]   m_local_tkeep,
    output logic                       m_local_tvalid,
    input  wire logic                  m_local_tready,
    output logic                       m_local_tlast,
    output logic                       m_local_tuser,
    output logic      [23:0]           m_local_vni,
    output logic                       m_local_flood,
    output logic      [$clog2(FLOOD_MAX+1)-1:0] m_local_qcnt,
    output logic      [FLOOD_MAX*QP_W-1:0] m_local_qlist,
    output logic                       m_local_from_tx,

    output logic      [DATA_W-1:0]     m_roce_tdata,
    output logic      [DATA_W/8-1:0]   m_roce_tkeep,
    output logic                       m_roce_tvalid,
    input  wire logic                  m_roce_tready,
    output logic                       m_roce_tlast,
    output logic                       m_roce_tuser,
    output logic      [$bits(fabnic_vxlan_pkg::decap_sb_t)-1:0] m_roce_sb,

    input  wire logic [DATA_W-1:0]     s_tx_tdata,
    input  wire logic [DATA_W/8-1:0]   s_tx_tkeep,
    input  wire logic                  s_tx_tvalid,
    output logic                       s_tx_tready,
    input  wire logic                  s_tx_tlast,
    input  wire logic                  s_tx_tuser,
    input  wire logic [23:0]           s_tx_vni,
    input  wire logic [QP_W-1:0]       s_tx_qp,
    input  wire logic [DATA_W-1:0]     s_rtx_tdata,
    input  wire logic [DATA_W/8-1:0]   s_rtx_tkeep,
    input  wire logic                  s_rtx_tvalid,
    output logic                       s_rtx_tready,
    input  wire logic                  s_rtx_tlast,
    input  wire logic                  s_rtx_tuser,
    input  wire logic [23:0]           s_rtx_vni,
    output logic      [DATA_W-1:0]     m_up_tdata,
    output logic      [DATA_W/8-1:0]   m_up_tkeep,
    output logic                       m_up_tvalid,
    input  wire logic                  m_up_tready,
    output logic                       m_up_tlast,
    output logic                       m_up_tuser,

    input  wire logic                  cmd_valid,
    output logic                       cmd_ready,
    input  wire logic [1:0]            cmd_op,
    input  wire logic [1:0]            cmd_table,
    input  wire logic [71:0]           cmd_key,
    input  wire logic [15:0]           cmd_index,
    input  wire logic [366:0]          cmd_value,
    output logic                       rsp_valid,
    input  wire logic                  rsp_ready,
    output logic      [1:0]            rsp_status,
    output logic      [366:0]          rsp_value,

    output logic [31:0] cnt_rx_in, cnt_rx_local, cnt_rx_flood, cnt_rx_roce, cnt_drop_outer,
    output logic [31:0] cnt_drop_bad_vxlan, cnt_drop_short, cnt_drop_unknown_vni,
    output logic [31:0] cnt_drop_no_flood, cnt_drop_loop, cnt_tx_in, cnt_tx_out,
    output logic [31:0] cnt_ce_marked, cnt_ce_not_ect,
    output logic [31:0] cnt_tx_drop_unknown_vni, cnt_tx_len_mismatch, cnt_lookups,
    output logic [31:0] cnt_add_full,
    output logic [31:0] cnt_tx_local, cnt_tx_flood, cnt_tx_drop_no_route, cnt_tx_drop_oversize,
    output logic [31:0] cnt_tx_drop_bad,
    output logic [$clog2(ENTRIES+1)-1:0] status_mac_entries,
    // parser counters (docs/pkt.md)
    output logic [31:0] p_cnt_frames_in, p_cnt_bytes_in, p_cnt_bad_in, p_cnt_frames_out,
    output logic [31:0] p_cnt_dropped, p_cnt_non_ip, p_cnt_ip_frag, p_cnt_err_runt,
    output logic [31:0] p_cnt_err_ip_version, p_cnt_err_ipv4_ihl, p_cnt_err_ipv4_csum,
    output logic [31:0] p_cnt_err_ip_length, p_cnt_err_udp_length,
    output logic [31:0] cycle
);

  fabnic_pkt_pkg::pkt_meta_t meta;
  logic meta_valid, meta_ready;
  logic [DATA_W-1:0]   p_tdata;
  logic [DATA_W/8-1:0] p_tkeep;
  logic p_tvalid, p_tready, p_tlast, p_tuser;
  fabnic_vxlan_pkg::decap_sb_t roce_sb;

  always_ff @(posedge clk) cycle <= rst ? 32'd0 : cycle + 32'd1;

  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b1)) u_parser (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_meta_data(meta), .m_meta_valid(meta_valid), .m_meta_ready(meta_ready),
      .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
      .m_axis_tready(p_tready), .m_axis_tlast(p_tlast), .m_axis_tuser(p_tuser),
      .cnt_frames_in(p_cnt_frames_in), .cnt_bytes_in(p_cnt_bytes_in),
      .cnt_bad_in(p_cnt_bad_in), .cnt_frames_out(p_cnt_frames_out),
      .cnt_dropped(p_cnt_dropped), .cnt_non_ip(p_cnt_non_ip), .cnt_ip_frag(p_cnt_ip_frag),
      .cnt_err_runt(p_cnt_err_runt), .cnt_err_ip_version(p_cnt_err_ip_version),
      .cnt_err_ipv4_ihl(p_cnt_err_ipv4_ihl), .cnt_err_ipv4_csum(p_cnt_err_ipv4_csum),
      .cnt_err_ip_length(p_cnt_err_ip_length), .cnt_err_udp_length(p_cnt_err_udp_length)
  );

  fabnic_vtep #(
      .DATA_W(DATA_W), .ENTRIES(ENTRIES), .WAYS(WAYS), .VNI_ENTRIES(VNI_ENTRIES),
      .TUN_ENTRIES(TUN_ENTRIES), .QP_W(QP_W), .FLOOD_MAX(FLOOD_MAX),
      .RFLOOD_MAX(RFLOOD_MAX), .TX_DEPTH(TX_DEPTH)
  ) u_vtep (
      .clk, .rst, .init_done,
      .s_meta_data(meta), .s_meta_valid(meta_valid), .s_meta_ready(meta_ready),
      .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
      .s_axis_tready(p_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
      .m_local_tdata, .m_local_tkeep, .m_local_tvalid, .m_local_tready, .m_local_tlast,
      .m_local_tuser, .m_local_vni, .m_local_flood, .m_local_qcnt, .m_local_qlist,
      .m_local_from_tx,
      .m_roce_tdata, .m_roce_tkeep, .m_roce_tvalid, .m_roce_tready, .m_roce_tlast,
      .m_roce_tuser, .m_roce_sb(roce_sb),
      .s_tx_tdata, .s_tx_tkeep, .s_tx_tvalid, .s_tx_tready, .s_tx_tlast, .s_tx_tuser,
      .s_tx_vni, .s_tx_qp,
      .s_rtx_tdata, .s_rtx_tkeep, .s_rtx_tvalid, .s_rtx_tready, .s_rtx_tlast, .s_rtx_tuser,
      .s_rtx_vni,
      .m_up_tdata, .m_up_tkeep, .m_up_tvalid, .m_up_tready, .m_up_tlast, .m_up_tuser,
      .cmd_valid, .cmd_ready, .cmd_op, .cmd_table, .cmd_key, .cmd_index, .cmd_value,
      .rsp_valid, .rsp_ready, .rsp_status, .rsp_value,
      .cnt_rx_in, .cnt_rx_local, .cnt_rx_flood, .cnt_rx_roce, .cnt_drop_outer,
      .cnt_drop_bad_vxlan, .cnt_drop_short, .cnt_drop_unknown_vni, .cnt_drop_no_flood,
      .cnt_drop_loop, .cnt_ce_marked, .cnt_ce_not_ect, .cnt_tx_in, .cnt_tx_out, .cnt_tx_drop_unknown_vni, .cnt_tx_len_mismatch,
      .cnt_tx_local, .cnt_tx_flood, .cnt_tx_drop_no_route, .cnt_tx_drop_oversize,
      .cnt_tx_drop_bad,
      .cnt_lookups, .cnt_add_full, .status_mac_entries
  );

  assign m_roce_sb = roce_sb;

endmodule

`resetall
