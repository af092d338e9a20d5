// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dp_echo_path: receive frames -> fabnic_pkt_parser (STRIP=1, drops
// header errors) -> fabnic_udp_echo -> fabnic_pkt_builder -> transmit frames.
// The foundation demo's datapath between the MAC edges; every stage keeps its
// per-reason counters, collected here for the register file.
`default_nettype none

module fabnic_dp_echo_path #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

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

    // parser
    output logic [CNT_W-1:0] cnt_frames_in,
    output logic [CNT_W-1:0] cnt_bytes_in,
    output logic [CNT_W-1:0] cnt_bad_in,
    output logic [CNT_W-1:0] cnt_frames_out,
    output logic [CNT_W-1:0] cnt_dropped,
    output logic [CNT_W-1:0] cnt_non_ip,
    output logic [CNT_W-1:0] cnt_ip_frag,
    output logic [CNT_W-1:0] cnt_err_runt,
    output logic [CNT_W-1:0] cnt_err_ip_version,
    output logic [CNT_W-1:0] cnt_err_ipv4_ihl,
    output logic [CNT_W-1:0] cnt_err_ipv4_csum,
    output logic [CNT_W-1:0] cnt_err_ip_length,
    output logic [CNT_W-1:0] cnt_err_udp_length,
    // echo + builder
    output logic [CNT_W-1:0] cnt_echoed,
    output logic [CNT_W-1:0] cnt_roce,
    output logic [CNT_W-1:0] cnt_vxlan,
    output logic [CNT_W-1:0] cnt_other,
    output logic [CNT_W-1:0] cnt_bad,
    output logic [CNT_W-1:0] cnt_built,
    output logic [CNT_W-1:0] cnt_len_mismatch
);

  fabnic_pkt_pkg::pkt_meta_t p_meta, e_meta;
  logic p_meta_valid, p_meta_ready, e_meta_valid, e_meta_ready;

  logic [DATA_W-1:0] p_tdata, e_tdata;
  logic [KEEP_W-1:0] p_tkeep, e_tkeep;
  logic p_tvalid, p_tready, p_tlast, p_tuser;
  logic e_tvalid, e_tready, e_tlast, e_tuser;

  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b1), .DROP_ERRORS(1'b1), .CNT_W(CNT_W)) u_parser (
    .clk, .rst,
    .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast, .s_axis_tuser,
    .m_meta_data(p_meta), .m_meta_valid(p_meta_valid), .m_meta_ready(p_meta_ready),
    .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
    .m_axis_tready(p_tready), .m_axis_tlast(p_tlast), .m_axis_tuser(p_tuser),
    .cnt_frames_in, .cnt_bytes_in, .cnt_bad_in, .cnt_frames_out, .cnt_dropped, .cnt_non_ip,
    .cnt_ip_frag, .cnt_err_runt, .cnt_err_ip_version, .cnt_err_ipv4_ihl, .cnt_err_ipv4_csum,
    .cnt_err_ip_length, .cnt_err_udp_length
  );

  fabnic_udp_echo #(.DATA_W(DATA_W), .CNT_W(CNT_W)) u_echo (
    .clk, .rst,
    .s_meta_data(p_meta), .s_meta_valid(p_meta_valid), .s_meta_ready(p_meta_ready),
    .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
    .s_axis_tready(p_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
    .m_meta_data(e_meta), .m_meta_valid(e_meta_valid), .m_meta_ready(e_meta_ready),
    .m_axis_tdata(e_tdata), .m_axis_tkeep(e_tkeep), .m_axis_tvalid(e_tvalid),
    .m_axis_tready(e_tready), .m_axis_tlast(e_tlast), .m_axis_tuser(e_tuser),
    .cnt_echoed, .cnt_roce, .cnt_vxlan, .cnt_other, .cnt_bad
  );

  fabnic_pkt_builder #(.DATA_W(DATA_W), .UDP_CSUM(1'b0), .CNT_W(CNT_W)) u_builder (
    .clk, .rst,
    .s_meta_data(e_meta), .s_meta_valid(e_meta_valid), .s_meta_ready(e_meta_ready),
    .s_axis_tdata(e_tdata), .s_axis_tkeep(e_tkeep), .s_axis_tvalid(e_tvalid),
    .s_axis_tready(e_tready), .s_axis_tlast(e_tlast), .s_axis_tuser(e_tuser),
    .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
    .cnt_frames(cnt_built), .cnt_len_mismatch
  );

endmodule

`resetall
