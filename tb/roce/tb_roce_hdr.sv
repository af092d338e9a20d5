// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_roce_rx_hdr (rx_*), fabnic_roce_tx_hdr (tx_*) and a
// tx -> rx loopback (lb_*), header records flattened to vectors for cocotb.
`default_nettype none

module tb_roce_hdr #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,
    // rx
    input  wire logic [DATA_W-1:0] rx_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] rx_s_axis_tkeep,
    input  wire logic              rx_s_axis_tvalid,
    output logic                   rx_s_axis_tready,
    input  wire logic              rx_s_axis_tlast,
    input  wire logic              rx_s_axis_tuser,
    output logic [$bits(fabnic_roce_pkg::roce_hdr_t)-1:0] rx_m_hdr_data,
    output logic                   rx_m_hdr_valid,
    input  wire logic              rx_m_hdr_ready,
    output logic [DATA_W-1:0]      rx_m_axis_tdata,
    output logic [KEEP_W-1:0]      rx_m_axis_tkeep,
    output logic                   rx_m_axis_tvalid,
    input  wire logic              rx_m_axis_tready,
    output logic                   rx_m_axis_tlast,
    output logic                   rx_m_axis_tuser,
    output logic [15:0]            rx_m_axis_plen,
    output logic [31:0]            rx_cnt_pkts, rx_cnt_err_short, rx_cnt_err_tver,
    output logic [31:0]            rx_cnt_err_opcode, rx_cnt_err_pad,
    // tx
    input  wire logic [$bits(fabnic_roce_pkg::roce_hdr_t)-1:0] tx_s_hdr_data,
    input  wire logic [15:0]       tx_s_hdr_plen,
    input  wire logic              tx_s_hdr_valid,
    output logic                   tx_s_hdr_ready,
    output logic [16:0]            tx_hdr_udp_len,
    input  wire logic [DATA_W-1:0] tx_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] tx_s_axis_tkeep,
    input  wire logic              tx_s_axis_tvalid,
    output logic                   tx_s_axis_tready,
    input  wire logic              tx_s_axis_tlast,
    input  wire logic              tx_s_axis_tuser,
    output logic [DATA_W-1:0]      tx_m_axis_tdata,
    output logic [KEEP_W-1:0]      tx_m_axis_tkeep,
    output logic                   tx_m_axis_tvalid,
    input  wire logic              tx_m_axis_tready,
    output logic                   tx_m_axis_tlast,
    output logic                   tx_m_axis_tuser,
    output logic [31:0]            tx_cnt_pkts, tx_cnt_err_len,
    // loopback tx -> rx
    input  wire logic [$bits(fabnic_roce_pkg::roce_hdr_t)-1:0] lb_s_hdr_data,
    input  wire logic [15:0]       lb_s_hdr_plen,
    input  wire logic              lb_s_hdr_valid,
    output logic                   lb_s_hdr_ready,
    input  wire logic [DATA_W-1:0] lb_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] lb_s_axis_tkeep,
    input  wire logic              lb_s_axis_tvalid,
    output logic                   lb_s_axis_tready,
    input  wire logic              lb_s_axis_tlast,
    input  wire logic              lb_s_axis_tuser,
    output logic [$bits(fabnic_roce_pkg::roce_hdr_t)-1:0] lb_m_hdr_data,
    output logic                   lb_m_hdr_valid,
    input  wire logic              lb_m_hdr_ready,
    output logic [DATA_W-1:0]      lb_m_axis_tdata,
    output logic [KEEP_W-1:0]      lb_m_axis_tkeep,
    output logic                   lb_m_axis_tvalid,
    input  wire logic              lb_m_axis_tready,
    output logic                   lb_m_axis_tlast,
    output logic                   lb_m_axis_tuser,
    output logic [15:0]            lb_m_axis_plen
);

  fabnic_roce_pkg::roce_hdr_t rx_hdr, lb_hdr;
  assign rx_m_hdr_data = rx_hdr;
  assign lb_m_hdr_data = lb_hdr;

  fabnic_roce_rx_hdr #(.DATA_W(DATA_W)) u_rx (
      .clk, .rst,
      .s_axis_tdata(rx_s_axis_tdata), .s_axis_tkeep(rx_s_axis_tkeep),
      .s_axis_tvalid(rx_s_axis_tvalid), .s_axis_tready(rx_s_axis_tready),
      .s_axis_tlast(rx_s_axis_tlast), .s_axis_tuser(rx_s_axis_tuser),
      .m_hdr_data(rx_hdr), .m_hdr_valid(rx_m_hdr_valid), .m_hdr_ready(rx_m_hdr_ready),
      .m_axis_tdata(rx_m_axis_tdata), .m_axis_tkeep(rx_m_axis_tkeep),
      .m_axis_tvalid(rx_m_axis_tvalid), .m_axis_tready(rx_m_axis_tready),
      .m_axis_tlast(rx_m_axis_tlast), .m_axis_tuser(rx_m_axis_tuser),
      .m_axis_plen(rx_m_axis_plen),
      .cnt_pkts(rx_cnt_pkts), .cnt_err_short(rx_cnt_err_short), .cnt_err_tver(rx_cnt_err_tver),
      .cnt_err_opcode(rx_cnt_err_opcode), .cnt_err_pad(rx_cnt_err_pad)
  );

  fabnic_roce_tx_hdr #(.DATA_W(DATA_W)) u_tx (
      .clk, .rst,
      .s_hdr_data(tx_s_hdr_data), .s_hdr_plen(tx_s_hdr_plen), .s_hdr_valid(tx_s_hdr_valid),
      .s_hdr_ready(tx_s_hdr_ready), .hdr_udp_len(tx_hdr_udp_len),
      .s_axis_tdata(tx_s_axis_tdata), .s_axis_tkeep(tx_s_axis_tkeep),
      .s_axis_tvalid(tx_s_axis_tvalid), .s_axis_tready(tx_s_axis_tready),
      .s_axis_tlast(tx_s_axis_tlast), .s_axis_tuser(tx_s_axis_tuser),
      .m_axis_tdata(tx_m_axis_tdata), .m_axis_tkeep(tx_m_axis_tkeep),
      .m_axis_tvalid(tx_m_axis_tvalid), .m_axis_tready(tx_m_axis_tready),
      .m_axis_tlast(tx_m_axis_tlast), .m_axis_tuser(tx_m_axis_tuser),
      .cnt_pkts(tx_cnt_pkts), .cnt_err_len(tx_cnt_err_len)
  );

  logic [DATA_W-1:0] l_tdata;
  logic [KEEP_W-1:0] l_tkeep;
  logic              l_tvalid, l_tready, l_tlast, l_tuser;
  logic [16:0]       unused_len;
  logic [31:0]       unused_c0, unused_c1, unused_c2, unused_c3, unused_c4, unused_c5, unused_c6;

  fabnic_roce_tx_hdr #(.DATA_W(DATA_W)) u_lb_tx (
      .clk, .rst,
      .s_hdr_data(lb_s_hdr_data), .s_hdr_plen(lb_s_hdr_plen), .s_hdr_valid(lb_s_hdr_valid),
      .s_hdr_ready(lb_s_hdr_ready), .hdr_udp_len(unused_len),
      .s_axis_tdata(lb_s_axis_tdata), .s_axis_tkeep(lb_s_axis_tkeep),
      .s_axis_tvalid(lb_s_axis_tvalid), .s_axis_tready(lb_s_axis_tready),
      .s_axis_tlast(lb_s_axis_tlast), .s_axis_tuser(lb_s_axis_tuser),
      .m_axis_tdata(l_tdata), .m_axis_tkeep(l_tkeep), .m_axis_tvalid(l_tvalid),
      .m_axis_tready(l_tready), .m_axis_tlast(l_tlast), .m_axis_tuser(l_tuser),
      .cnt_pkts(unused_c0), .cnt_err_len(unused_c1)
  );

  fabnic_roce_rx_hdr #(.DATA_W(DATA_W)) u_lb_rx (
      .clk, .rst,
      .s_axis_tdata(l_tdata), .s_axis_tkeep(l_tkeep), .s_axis_tvalid(l_tvalid),
      .s_axis_tready(l_tready), .s_axis_tlast(l_tlast), .s_axis_tuser(l_tuser),
      .m_hdr_data(lb_hdr), .m_hdr_valid(lb_m_hdr_valid), .m_hdr_ready(lb_m_hdr_ready),
      .m_axis_tdata(lb_m_axis_tdata), .m_axis_tkeep(lb_m_axis_tkeep),
      .m_axis_tvalid(lb_m_axis_tvalid), .m_axis_tready(lb_m_axis_tready),
      .m_axis_tlast(lb_m_axis_tlast), .m_axis_tuser(lb_m_axis_tuser),
      .m_axis_plen(lb_m_axis_plen),
      .cnt_pkts(unused_c2), .cnt_err_short(unused_c3), .cnt_err_tver(unused_c4),
      .cnt_err_opcode(unused_c5), .cnt_err_pad(unused_c6)
  );

endmodule

`resetall
