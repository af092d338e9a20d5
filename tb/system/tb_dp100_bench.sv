// SPDX-License-Identifier: Apache-2.0
// Benchmark wrapper: line-rate paced frame generator -> fabnic_datapath_100g
// (as if from a hard MAC: no back-pressure) -> stream monitor (the hard MAC's TX).
`default_nettype none
module tb_dp100_bench #(
    parameter int DATA_W = 512
) (
    input wire logic clk,
    input wire logic rst
);
  localparam int KEEP_W = DATA_W / 8;
  logic [8*128-1:0] hdr;
  logic [15:0] hdr_len, len_min, len_max, gap, rate_q8, overhead;
  logic [31:0] n_frames;
  logic start;
  logic [7:0] busy_per_256;
  logic [63:0] cycle;

  logic [DATA_W-1:0] a_tdata, b_tdata;
  logic [KEEP_W-1:0] a_tkeep, b_tkeep;
  logic a_tvalid, a_tlast, b_tvalid, b_tready, b_tlast;
  logic [0:0] a_tuser, b_tuser;

  fabnic_tb_frame_gen #(.DATA_W(DATA_W)) gen (
    .clk, .rst, .hdr, .hdr_len, .len_min, .len_max, .n_frames, .gap, .rate_q8, .overhead,
    .start,
    .m_axis_tdata(a_tdata), .m_axis_tkeep(a_tkeep), .m_axis_tvalid(a_tvalid),
    .m_axis_tready(1'b1), .m_axis_tlast(a_tlast), .m_axis_tuser(a_tuser),
    .busy(), .frames_sent(), .bytes_sent(), .cycle, .first_cycle(), .last_cycle()
  );

  fabnic_datapath_100g #(.DATA_W(DATA_W)) dut (
    .clk, .rst,
    .m_axis_mac_tx_tdata(b_tdata), .m_axis_mac_tx_tkeep(b_tkeep),
    .m_axis_mac_tx_tvalid(b_tvalid), .m_axis_mac_tx_tready(b_tready),
    .m_axis_mac_tx_tlast(b_tlast), .m_axis_mac_tx_tuser(b_tuser[0]),
    .s_axis_mac_rx_tdata(a_tdata), .s_axis_mac_rx_tkeep(a_tkeep),
    .s_axis_mac_rx_tvalid(a_tvalid), .s_axis_mac_rx_tlast(a_tlast),
    .s_axis_mac_rx_tuser(a_tuser[0]),
    .s_axil_awaddr('0), .s_axil_awprot('0), .s_axil_awvalid(1'b0), .s_axil_awready(),
    .s_axil_wdata('0), .s_axil_wstrb('0), .s_axil_wvalid(1'b0), .s_axil_wready(),
    .s_axil_bresp(), .s_axil_bvalid(), .s_axil_bready(1'b1),
    .s_axil_araddr('0), .s_axil_arprot('0), .s_axil_arvalid(1'b0), .s_axil_arready(),
    .s_axil_rdata(), .s_axil_rresp(), .s_axil_rvalid(), .s_axil_rready(1'b1)
  );

  fabnic_tb_stream_mon #(.DATA_W(DATA_W)) mon (
    .clk, .rst,
    .s_axis_tdata(b_tdata), .s_axis_tkeep(b_tkeep), .s_axis_tvalid(b_tvalid),
    .s_axis_tready(b_tready), .s_axis_tlast(b_tlast), .s_axis_tuser(b_tuser),
    .busy_per_256, .cycle, .frames(), .bad_frames(), .bytes(), .beats(),
    .first_cycle(), .last_cycle(), .first_frame_latency_ref()
  );
endmodule
`resetall
