// SPDX-License-Identifier: Apache-2.0
// Benchmark wrapper: frame generator -> fabnic_axis_fifo -> stream monitor.
`default_nettype none
module tb_fifo_bench #(
    parameter int DATA_W = 512,
    parameter int FRAME_FIFO = 1
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
  logic a_tvalid, a_tready, a_tlast, b_tvalid, b_tready, b_tlast;
  logic [0:0] a_tuser, b_tuser;

  fabnic_tb_frame_gen #(.DATA_W(DATA_W)) gen (
    .clk, .rst, .hdr, .hdr_len, .len_min, .len_max, .n_frames, .gap, .rate_q8, .overhead, .start,
    .m_axis_tdata(a_tdata), .m_axis_tkeep(a_tkeep), .m_axis_tvalid(a_tvalid),
    .m_axis_tready(a_tready), .m_axis_tlast(a_tlast), .m_axis_tuser(a_tuser),
    .busy(), .frames_sent(), .bytes_sent(), .cycle, .first_cycle(), .last_cycle()
  );

  fabnic_axis_fifo #(.DATA_W(DATA_W), .DEPTH(512), .FRAME_FIFO(FRAME_FIFO[0])) dut (
    .clk, .rst,
    .s_axis_tdata(a_tdata), .s_axis_tkeep(a_tkeep), .s_axis_tvalid(a_tvalid),
    .s_axis_tready(a_tready), .s_axis_tlast(a_tlast), .s_axis_tuser(a_tuser),
    .m_axis_tdata(b_tdata), .m_axis_tkeep(b_tkeep), .m_axis_tvalid(b_tvalid),
    .m_axis_tready(b_tready), .m_axis_tlast(b_tlast), .m_axis_tuser(b_tuser),
    .status_depth(), .status_good_frame(), .status_bad_frame(), .status_overflow(),
    .status_oversize()
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
