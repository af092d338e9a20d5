// SPDX-License-Identifier: Apache-2.0
//
// fabnic_datapath_100g: the foundation datapath at 100 G (512-bit AXI-Stream toward a hard MAC, 250 MHz):
// fabnic_eth_mac_axis + fabnic_dp_core (parser, UDP echo, builder, AXI-Lite
// registers generated from fw/fabnic/regmap.py).
`default_nettype none

module fabnic_datapath_100g #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int ADDR_W = 16
) (
    input  wire logic              clk,
    input  wire logic              rst,
    output logic      [DATA_W-1:0] m_axis_mac_tx_tdata,
    output logic      [KEEP_W-1:0] m_axis_mac_tx_tkeep,
    output logic                   m_axis_mac_tx_tvalid,
    input  wire logic              m_axis_mac_tx_tready,
    output logic                   m_axis_mac_tx_tlast,
    output logic                   m_axis_mac_tx_tuser,
    input  wire logic [DATA_W-1:0] s_axis_mac_rx_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_mac_rx_tkeep,
    input  wire logic              s_axis_mac_rx_tvalid,
    input  wire logic              s_axis_mac_rx_tlast,
    input  wire logic              s_axis_mac_rx_tuser,
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

  localparam int CNT_W = 32;

  logic [DATA_W-1:0] rx_tdata, tx_tdata;
  logic [KEEP_W-1:0] rx_tkeep, tx_tkeep;
  logic rx_tvalid, rx_tready, rx_tlast, rx_tuser;
  logic tx_tvalid, tx_tready, tx_tlast, tx_tuser;
  logic [47:0] cfg_src_mac;
  logic [31:0] cfg_refresh;
  logic [15:0] cfg_quanta, cfg_cycles_per_quantum;
  logic [7:0]  cfg_pfc_req, pause;
  logic [CNT_W-1:0] mac_tx_frames;
  logic [CNT_W-1:0] mac_tx_underflow;
  logic [CNT_W-1:0] mac_tx_bad;
  logic [CNT_W-1:0] mac_tx_oversize;
  logic [CNT_W-1:0] mac_tx_pfc;
  logic [CNT_W-1:0] mac_tx_xon;
  logic [CNT_W-1:0] mac_rx_frames;
  logic [CNT_W-1:0] mac_rx_bad_fcs;
  logic [CNT_W-1:0] mac_rx_runt;
  logic [CNT_W-1:0] mac_rx_oversize;
  logic [CNT_W-1:0] mac_rx_xgmii_err;
  logic [CNT_W-1:0] mac_rx_framing;
  logic [CNT_W-1:0] mac_rx_pfc;
  logic [CNT_W-1:0] mac_rx_pause;
  logic [CNT_W-1:0] mac_rx_ctrl_other;
  logic [CNT_W-1:0] mac_rx_ctrl_bad;
  logic [CNT_W-1:0] mac_rx_bad;
  logic [CNT_W-1:0] mac_rx_overflow;
  logic [63:0] mac_tx_bytes, mac_rx_bytes;

  fabnic_eth_mac_axis #(.DATA_W(DATA_W), .N_PRIO(1), .CNT_W(CNT_W)) u_mac (
    .clk, .rst,
    .s_axis_tdata(tx_tdata), .s_axis_tkeep(tx_tkeep), .s_axis_tvalid(tx_tvalid),
    .s_axis_tready(tx_tready), .s_axis_tlast(tx_tlast), .s_axis_tuser(tx_tuser),
    .m_axis_tdata(rx_tdata), .m_axis_tkeep(rx_tkeep), .m_axis_tvalid(rx_tvalid),
    .m_axis_tready(rx_tready), .m_axis_tlast(rx_tlast), .m_axis_tuser(rx_tuser),
    .m_axis_mac_tx_tdata, .m_axis_mac_tx_tkeep, .m_axis_mac_tx_tvalid, .m_axis_mac_tx_tready,
    .m_axis_mac_tx_tlast, .m_axis_mac_tx_tuser,
    .s_axis_mac_rx_tdata, .s_axis_mac_rx_tkeep, .s_axis_mac_rx_tvalid, .s_axis_mac_rx_tlast,
    .s_axis_mac_rx_tuser,
    .cycles_per_quantum(cfg_cycles_per_quantum), .pfc_req(cfg_pfc_req),
    .cfg_src_mac, .cfg_quanta, .cfg_refresh, .pause,
    .stat_tx_oversize(mac_tx_oversize), .stat_tx_pfc(mac_tx_pfc), .stat_tx_xon(mac_tx_xon),
    .stat_rx_pfc(mac_rx_pfc), .stat_rx_pause(mac_rx_pause),
    .stat_rx_ctrl_other(mac_rx_ctrl_other), .stat_rx_ctrl_bad(mac_rx_ctrl_bad),
    .stat_rx_bad(mac_rx_bad), .stat_rx_overflow(mac_rx_overflow)
  );

  // counted by the hard MAC, not here
  assign mac_tx_frames = '0;
  assign mac_tx_underflow = '0;
  assign mac_tx_bad = '0;
  assign mac_rx_frames = '0;
  assign mac_rx_bad_fcs = '0;
  assign mac_rx_runt = '0;
  assign mac_rx_oversize = '0;
  assign mac_rx_xgmii_err = '0;
  assign mac_rx_framing = '0;
  assign mac_tx_bytes = '0;
  assign mac_rx_bytes = '0;

  fabnic_dp_core #(.DATA_W(DATA_W), .ADDR_W(ADDR_W), .CNT_W(CNT_W)) u_core (
    .clk, .rst,
    .s_axis_tdata(rx_tdata), .s_axis_tkeep(rx_tkeep), .s_axis_tvalid(rx_tvalid),
    .s_axis_tready(rx_tready), .s_axis_tlast(rx_tlast), .s_axis_tuser(rx_tuser),
    .m_axis_tdata(tx_tdata), .m_axis_tkeep(tx_tkeep), .m_axis_tvalid(tx_tvalid),
    .m_axis_tready(tx_tready), .m_axis_tlast(tx_tlast), .m_axis_tuser(tx_tuser),
    .cfg_src_mac, .cfg_pfc_req, .cfg_quanta, .cfg_refresh, .cfg_cycles_per_quantum,
    .sts_pause(pause),
    .sts_mac_tx_frames(mac_tx_frames),
    .sts_mac_tx_underflow(mac_tx_underflow),
    .sts_mac_tx_bad(mac_tx_bad),
    .sts_mac_tx_oversize(mac_tx_oversize),
    .sts_mac_tx_pfc(mac_tx_pfc),
    .sts_mac_tx_xon(mac_tx_xon),
    .sts_mac_rx_frames(mac_rx_frames),
    .sts_mac_rx_bad_fcs(mac_rx_bad_fcs),
    .sts_mac_rx_runt(mac_rx_runt),
    .sts_mac_rx_oversize(mac_rx_oversize),
    .sts_mac_rx_xgmii_err(mac_rx_xgmii_err),
    .sts_mac_rx_framing(mac_rx_framing),
    .sts_mac_rx_pfc(mac_rx_pfc),
    .sts_mac_rx_pause(mac_rx_pause),
    .sts_mac_rx_ctrl_other(mac_rx_ctrl_other),
    .sts_mac_rx_ctrl_bad(mac_rx_ctrl_bad),
    .sts_mac_rx_bad(mac_rx_bad),
    .sts_mac_rx_overflow(mac_rx_overflow),
    .sts_mac_tx_bytes(mac_tx_bytes),
    .sts_mac_rx_bytes(mac_rx_bytes),
    .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
    .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
    .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
    .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
    .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready
  );

endmodule

`resetall
