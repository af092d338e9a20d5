// SPDX-License-Identifier: Apache-2.0
// Test wrapper: (frame generator | external s_axis) -> tap_in -> fabnic_tb_link
// -> tap_out -> (stream monitor | external m_axis). Configuration signals are
// plain wrapper signals that cocotb writes.
`default_nettype none
module tb_net_link #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [0:0]        s_axis_tuser,
    output logic [DATA_W-1:0]      m_axis_tdata,
    output logic [KEEP_W-1:0]      m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic [0:0]             m_axis_tuser
);
  localparam int NDROP = 8;
  // mode: 0 = generator + monitor, 1 = external (cocotbext-axi) source and sink
  logic use_ext;
  // generator / monitor
  logic [8*128-1:0] hdr;
  logic [15:0] hdr_len, len_min, len_max, gap;
  logic [31:0] n_frames;
  logic start;
  logic [7:0] busy_per_256;
  logic [63:0] cycle;
  // link configuration
  logic [31:0] rate, delay, loss_p, ge_p_gb, ge_p_bg, ge_loss, dup_p, reorder_p, hold_timeout;
  logic [31:0] biterr_p;
  logic [15:0] ovh;
  logic [63:0] seed;
  logic link_down, loss_en, ge_en, dup_en, reorder_en, biterr_en;
  logic [NDROP-1:0] drop_list_en;
  logic [32*NDROP-1:0] drop_list;
  logic [31:0] tap_rd_idx;

  logic [DATA_W-1:0] g_tdata, a_tdata, b_tdata;
  logic [KEEP_W-1:0] g_tkeep, a_tkeep, b_tkeep;
  logic g_tvalid, g_tready, g_tlast, a_tvalid, a_tready, a_tlast, b_tvalid, b_tready, b_tlast;
  logic mon_tready;
  logic [0:0] g_tuser, a_tuser, b_tuser;

  fabnic_tb_frame_gen #(.DATA_W(DATA_W)) gen (
    .clk, .rst, .hdr, .hdr_len, .len_min, .len_max, .n_frames, .gap, .start,
    .m_axis_tdata(g_tdata), .m_axis_tkeep(g_tkeep), .m_axis_tvalid(g_tvalid),
    .m_axis_tready(g_tready), .m_axis_tlast(g_tlast), .m_axis_tuser(g_tuser),
    .busy(), .frames_sent(), .bytes_sent(), .cycle, .first_cycle(), .last_cycle()
  );

  always_comb begin
    a_tdata  = use_ext ? s_axis_tdata  : g_tdata;
    a_tkeep  = use_ext ? s_axis_tkeep  : g_tkeep;
    a_tvalid = use_ext ? s_axis_tvalid : g_tvalid;
    a_tlast  = use_ext ? s_axis_tlast  : g_tlast;
    a_tuser  = use_ext ? s_axis_tuser  : g_tuser;
    s_axis_tready = use_ext && a_tready;
    g_tready = !use_ext && a_tready;
    m_axis_tdata = b_tdata;
    m_axis_tkeep = b_tkeep;
    m_axis_tlast = b_tlast;
    m_axis_tuser = b_tuser;
    m_axis_tvalid = use_ext && b_tvalid;
    b_tready = use_ext ? m_axis_tready : mon_tready;
  end

  fabnic_tb_net_tap #(.DATA_W(DATA_W), .CAP_BYTES(64), .DEPTH(32768)) tap_in (
    .clk, .rst, .tdata(a_tdata), .tkeep(a_tkeep), .tvalid(a_tvalid), .tready(a_tready),
    .tlast(a_tlast), .tuser(a_tuser), .cycle, .frames(), .bytes(), .rd_idx(tap_rd_idx),
    .rd_first(), .rd_last(), .rd_len(), .rd_bad(), .rd_crc(), .rd_data()
  );

  fabnic_tb_link #(.DATA_W(DATA_W), .DROP_LIST(NDROP)) link (
    .clk, .rst,
    .s_axis_tdata(a_tdata), .s_axis_tkeep(a_tkeep), .s_axis_tvalid(a_tvalid),
    .s_axis_tready(a_tready), .s_axis_tlast(a_tlast), .s_axis_tuser(a_tuser),
    .m_axis_tdata(b_tdata), .m_axis_tkeep(b_tkeep), .m_axis_tvalid(b_tvalid),
    .m_axis_tready(b_tready), .m_axis_tlast(b_tlast), .m_axis_tuser(b_tuser),
    .rate, .ovh, .delay, .seed, .link_down, .loss_en, .loss_p, .ge_en, .ge_p_gb, .ge_p_bg,
    .ge_loss, .dup_en, .dup_p, .reorder_en, .reorder_p, .hold_timeout, .biterr_en, .biterr_p,
    .drop_list_en, .drop_list,
    .cnt_frames_in(), .cnt_bytes_in(), .cnt_frames_out(), .cnt_bytes_out(), .cnt_drop_down(),
    .cnt_drop_list(), .cnt_drop_ge(), .cnt_drop_loss(), .cnt_drop_oversize(), .cnt_dup(),
    .cnt_reorder(), .cnt_biterr(), .cnt_ge_bad(), .ge_bad()
  );

  fabnic_tb_net_tap #(.DATA_W(DATA_W), .CAP_BYTES(64), .DEPTH(32768)) tap_out (
    .clk, .rst, .tdata(b_tdata), .tkeep(b_tkeep), .tvalid(b_tvalid), .tready(b_tready),
    .tlast(b_tlast), .tuser(b_tuser), .cycle, .frames(), .bytes(), .rd_idx(tap_rd_idx),
    .rd_first(), .rd_last(), .rd_len(), .rd_bad(), .rd_crc(), .rd_data()
  );

  fabnic_tb_stream_mon #(.DATA_W(DATA_W)) mon (
    .clk, .rst,
    .s_axis_tdata(b_tdata), .s_axis_tkeep(b_tkeep), .s_axis_tvalid(b_tvalid && !use_ext),
    .s_axis_tready(mon_tready), .s_axis_tlast(b_tlast), .s_axis_tuser(b_tuser),
    .busy_per_256, .cycle, .frames(), .bad_frames(), .bytes(), .beats(),
    .first_cycle(), .last_cycle(), .first_frame_latency_ref()
  );
endmodule
`resetall
