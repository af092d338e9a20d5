// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dp_core: everything of the foundation datapath between the MAC edges:
// fabnic_dp_echo_path (parser, UDP echo, builder) plus the AXI-Lite slave and the
// register file generated from fw/fabnic/regmap.py (map "datapath"). The MAC's
// counters come in as sts_mac_* and its PFC configuration goes out as cfg_*, so
// the 10 G and 100 G tops are just a MAC plus this core.
`default_nettype none

module fabnic_dp_core #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int ADDR_W = 16,
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // frames from the MAC / to the MAC
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,
    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic                   m_axis_tuser,

    // MAC configuration and status
    output logic [47:0]            cfg_src_mac,
    output logic [7:0]             cfg_pfc_req,
    output logic [15:0]            cfg_quanta,
    output logic [31:0]            cfg_refresh,
    output logic [15:0]            cfg_cycles_per_quantum,
    input  wire logic [7:0]        sts_pause,
    input  wire logic [CNT_W-1:0]  sts_mac_tx_frames,
    input  wire logic [CNT_W-1:0]  sts_mac_tx_underflow,
    input  wire logic [CNT_W-1:0]  sts_mac_tx_bad,
    input  wire logic [CNT_W-1:0]  sts_mac_tx_oversize,
    input  wire logic [CNT_W-1:0]  sts_mac_tx_pfc,
    input  wire logic [CNT_W-1:0]  sts_mac_tx_xon,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_frames,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_bad_fcs,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_runt,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_oversize,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_xgmii_err,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_framing,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_pfc,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_pause,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_ctrl_other,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_ctrl_bad,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_bad,
    input  wire logic [CNT_W-1:0]  sts_mac_rx_overflow,
    input  wire logic [63:0]       sts_mac_tx_bytes,
    input  wire logic [63:0]       sts_mac_rx_bytes,

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
    input  wire logic              s_axil_rready
);

  logic              req_valid, req_write, ack_valid, ack_err;
  logic [ADDR_W-1:0] req_addr;
  logic [31:0]       req_wdata, ack_rdata;
  logic [3:0]        req_wstrb;

  fabnic_axil_slave #(.ADDR_W(ADDR_W)) u_axil (
    .clk, .rst,
    .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
    .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
    .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
    .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
    .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
    .req_valid, .req_write, .req_addr, .req_wdata, .req_wstrb,
    .ack_valid, .ack_rdata, .ack_err, .status_timeout()
  );

  logic [31:0] src_mac_lo;
  logic [15:0] src_mac_hi;
  assign cfg_src_mac = {src_mac_hi, src_mac_lo};
  logic [CNT_W-1:0] parser_frames_in;
  logic [CNT_W-1:0] parser_bytes_in;
  logic [CNT_W-1:0] parser_bad_in;
  logic [CNT_W-1:0] parser_frames_out;
  logic [CNT_W-1:0] parser_dropped;
  logic [CNT_W-1:0] parser_non_ip;
  logic [CNT_W-1:0] parser_ip_frag;
  logic [CNT_W-1:0] parser_err_runt;
  logic [CNT_W-1:0] parser_err_ip_version;
  logic [CNT_W-1:0] parser_err_ipv4_ihl;
  logic [CNT_W-1:0] parser_err_ipv4_csum;
  logic [CNT_W-1:0] parser_err_ip_length;
  logic [CNT_W-1:0] parser_err_udp_length;
  logic [CNT_W-1:0] echo_echoed;
  logic [CNT_W-1:0] echo_roce;
  logic [CNT_W-1:0] echo_vxlan;
  logic [CNT_W-1:0] echo_other;
  logic [CNT_W-1:0] echo_bad;
  logic [CNT_W-1:0] echo_built;
  logic [CNT_W-1:0] echo_len_mismatch;

  fabnic_regs_datapath #(.ADDR_W(ADDR_W), .DATA_W(DATA_W)) u_regs (
    .clk, .rst, .req_valid, .req_write, .req_addr, .req_wdata, .req_wstrb,
    .ack_valid, .ack_rdata, .ack_err,
    .cfg_device_scratch(),
    .cfg_mac_src_mac_lo(src_mac_lo), .cfg_mac_src_mac_hi(src_mac_hi),
    .cfg_mac_pfc_req(cfg_pfc_req), .cfg_mac_quanta(cfg_quanta), .cfg_mac_refresh(cfg_refresh),
    .cfg_mac_cycles_per_quantum(cfg_cycles_per_quantum),
    .sts_mac_pause(sts_pause),
    .sts_mac_tx_frames,
    .sts_mac_tx_underflow,
    .sts_mac_tx_bad,
    .sts_mac_tx_oversize,
    .sts_mac_tx_pfc,
    .sts_mac_tx_xon,
    .sts_mac_rx_frames,
    .sts_mac_rx_bad_fcs,
    .sts_mac_rx_runt,
    .sts_mac_rx_oversize,
    .sts_mac_rx_xgmii_err,
    .sts_mac_rx_framing,
    .sts_mac_rx_pfc,
    .sts_mac_rx_pause,
    .sts_mac_rx_ctrl_other,
    .sts_mac_rx_ctrl_bad,
    .sts_mac_rx_bad,
    .sts_mac_rx_overflow,
    .sts_mac_tx_bytes,
    .sts_mac_rx_bytes,
    .sts_parser_frames_in(parser_frames_in),
    .sts_parser_bytes_in(parser_bytes_in),
    .sts_parser_bad_in(parser_bad_in),
    .sts_parser_frames_out(parser_frames_out),
    .sts_parser_dropped(parser_dropped),
    .sts_parser_non_ip(parser_non_ip),
    .sts_parser_ip_frag(parser_ip_frag),
    .sts_parser_err_runt(parser_err_runt),
    .sts_parser_err_ip_version(parser_err_ip_version),
    .sts_parser_err_ipv4_ihl(parser_err_ipv4_ihl),
    .sts_parser_err_ipv4_csum(parser_err_ipv4_csum),
    .sts_parser_err_ip_length(parser_err_ip_length),
    .sts_parser_err_udp_length(parser_err_udp_length),
    .sts_echo_echoed(echo_echoed),
    .sts_echo_roce(echo_roce),
    .sts_echo_vxlan(echo_vxlan),
    .sts_echo_other(echo_other),
    .sts_echo_bad(echo_bad),
    .sts_echo_built(echo_built),
    .sts_echo_len_mismatch(echo_len_mismatch)
  );

  fabnic_dp_echo_path #(.DATA_W(DATA_W), .CNT_W(CNT_W)) u_path (
    .clk, .rst,
    .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast, .s_axis_tuser,
    .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
    .cnt_frames_in(parser_frames_in),
    .cnt_bytes_in(parser_bytes_in),
    .cnt_bad_in(parser_bad_in),
    .cnt_frames_out(parser_frames_out),
    .cnt_dropped(parser_dropped),
    .cnt_non_ip(parser_non_ip),
    .cnt_ip_frag(parser_ip_frag),
    .cnt_err_runt(parser_err_runt),
    .cnt_err_ip_version(parser_err_ip_version),
    .cnt_err_ipv4_ihl(parser_err_ipv4_ihl),
    .cnt_err_ipv4_csum(parser_err_ipv4_csum),
    .cnt_err_ip_length(parser_err_ip_length),
    .cnt_err_udp_length(parser_err_udp_length),
    .cnt_echoed(echo_echoed),
    .cnt_roce(echo_roce),
    .cnt_vxlan(echo_vxlan),
    .cnt_other(echo_other),
    .cnt_bad(echo_bad),
    .cnt_built(echo_built),
    .cnt_len_mismatch(echo_len_mismatch)
  );

endmodule

`resetall
