// SPDX-License-Identifier: Apache-2.0
//
// tb_pkt: test wrapper (generated layout, written once) holding every pkt-layer DUT
// so each data width is one Verilator build:
//   p1_ parser STRIP=1 DROP_ERRORS=0   p0_ parser STRIP=0 DROP_ERRORS=1
//   b_  builder   g_ ICRC gen   c1_/c0_ ICRC check STRIP_ICRC=1/0
//   x_  hdr_extract   i_ hdr_insert (HDR_BYTES: 14 at 64 bits, 70 at 512 bits)
`default_nettype none

module tb_pkt #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int HDR_BYTES = (DATA_W > 64) ? 70 : 14,
    parameter int MW        = $bits(fabnic_pkt_pkg::pkt_meta_t),
    parameter int HLW       = $clog2(HDR_BYTES + 1)
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [DATA_W-1:0] p1_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] p1_s_axis_tkeep,
    input  wire logic              p1_s_axis_tvalid,
    output logic                   p1_s_axis_tready,
    input  wire logic              p1_s_axis_tlast,
    input  wire logic              p1_s_axis_tuser,
    output logic      [DATA_W-1:0] p1_m_axis_tdata,
    output logic      [KEEP_W-1:0] p1_m_axis_tkeep,
    output logic                   p1_m_axis_tvalid,
    input  wire logic              p1_m_axis_tready,
    output logic                   p1_m_axis_tlast,
    output logic                   p1_m_axis_tuser,
    output logic [MW-1:0]          p1_m_meta_data,
    output logic                   p1_m_meta_valid,
    input  wire logic              p1_m_meta_ready,
    output logic [31:0]            p1_cnt_frames_in,
    output logic [31:0]            p1_cnt_bytes_in,
    output logic [31:0]            p1_cnt_bad_in,
    output logic [31:0]            p1_cnt_frames_out,
    output logic [31:0]            p1_cnt_dropped,
    output logic [31:0]            p1_cnt_non_ip,
    output logic [31:0]            p1_cnt_ip_frag,
    output logic [31:0]            p1_cnt_err_runt,
    output logic [31:0]            p1_cnt_err_ip_version,
    output logic [31:0]            p1_cnt_err_ipv4_ihl,
    output logic [31:0]            p1_cnt_err_ipv4_csum,
    output logic [31:0]            p1_cnt_err_ip_length,
    output logic [31:0]            p1_cnt_err_udp_length,
    input  wire logic [DATA_W-1:0] p0_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] p0_s_axis_tkeep,
    input  wire logic              p0_s_axis_tvalid,
    output logic                   p0_s_axis_tready,
    input  wire logic              p0_s_axis_tlast,
    input  wire logic              p0_s_axis_tuser,
    output logic      [DATA_W-1:0] p0_m_axis_tdata,
    output logic      [KEEP_W-1:0] p0_m_axis_tkeep,
    output logic                   p0_m_axis_tvalid,
    input  wire logic              p0_m_axis_tready,
    output logic                   p0_m_axis_tlast,
    output logic                   p0_m_axis_tuser,
    output logic [MW-1:0]          p0_m_meta_data,
    output logic                   p0_m_meta_valid,
    input  wire logic              p0_m_meta_ready,
    output logic [31:0]            p0_cnt_frames_in,
    output logic [31:0]            p0_cnt_bytes_in,
    output logic [31:0]            p0_cnt_bad_in,
    output logic [31:0]            p0_cnt_frames_out,
    output logic [31:0]            p0_cnt_dropped,
    output logic [31:0]            p0_cnt_non_ip,
    output logic [31:0]            p0_cnt_ip_frag,
    output logic [31:0]            p0_cnt_err_runt,
    output logic [31:0]            p0_cnt_err_ip_version,
    output logic [31:0]            p0_cnt_err_ipv4_ihl,
    output logic [31:0]            p0_cnt_err_ipv4_csum,
    output logic [31:0]            p0_cnt_err_ip_length,
    output logic [31:0]            p0_cnt_err_udp_length,
    input  wire logic [DATA_W-1:0] b_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] b_s_axis_tkeep,
    input  wire logic              b_s_axis_tvalid,
    output logic                   b_s_axis_tready,
    input  wire logic              b_s_axis_tlast,
    input  wire logic              b_s_axis_tuser,
    output logic      [DATA_W-1:0] b_m_axis_tdata,
    output logic      [KEEP_W-1:0] b_m_axis_tkeep,
    output logic                   b_m_axis_tvalid,
    input  wire logic              b_m_axis_tready,
    output logic                   b_m_axis_tlast,
    output logic                   b_m_axis_tuser,
    input  wire logic [MW-1:0]     b_s_meta_data,
    input  wire logic              b_s_meta_valid,
    output logic                   b_s_meta_ready,
    output logic [31:0]            b_cnt_frames,
    output logic [31:0]            b_cnt_len_mismatch,
    input  wire logic [DATA_W-1:0] g_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] g_s_axis_tkeep,
    input  wire logic              g_s_axis_tvalid,
    output logic                   g_s_axis_tready,
    input  wire logic              g_s_axis_tlast,
    input  wire logic              g_s_axis_tuser,
    output logic      [DATA_W-1:0] g_m_axis_tdata,
    output logic      [KEEP_W-1:0] g_m_axis_tkeep,
    output logic                   g_m_axis_tvalid,
    input  wire logic              g_m_axis_tready,
    output logic                   g_m_axis_tlast,
    output logic                   g_m_axis_tuser,
    input  wire logic [DATA_W-1:0] c1_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] c1_s_axis_tkeep,
    input  wire logic              c1_s_axis_tvalid,
    output logic                   c1_s_axis_tready,
    input  wire logic              c1_s_axis_tlast,
    input  wire logic              c1_s_axis_tuser,
    output logic      [DATA_W-1:0] c1_m_axis_tdata,
    output logic      [KEEP_W-1:0] c1_m_axis_tkeep,
    output logic                   c1_m_axis_tvalid,
    input  wire logic              c1_m_axis_tready,
    output logic                   c1_m_axis_tlast,
    output logic                   c1_m_axis_tuser,
    output logic [31:0]            c1_cnt_frames,
    output logic [31:0]            c1_cnt_icrc_bad,
    input  wire logic [DATA_W-1:0] c0_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] c0_s_axis_tkeep,
    input  wire logic              c0_s_axis_tvalid,
    output logic                   c0_s_axis_tready,
    input  wire logic              c0_s_axis_tlast,
    input  wire logic              c0_s_axis_tuser,
    output logic      [DATA_W-1:0] c0_m_axis_tdata,
    output logic      [KEEP_W-1:0] c0_m_axis_tkeep,
    output logic                   c0_m_axis_tvalid,
    input  wire logic              c0_m_axis_tready,
    output logic                   c0_m_axis_tlast,
    output logic                   c0_m_axis_tuser,
    output logic [31:0]            c0_cnt_frames,
    output logic [31:0]            c0_cnt_icrc_bad,
    input  wire logic [DATA_W-1:0] x_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] x_s_axis_tkeep,
    input  wire logic              x_s_axis_tvalid,
    output logic                   x_s_axis_tready,
    input  wire logic              x_s_axis_tlast,
    input  wire logic              x_s_axis_tuser,
    output logic      [DATA_W-1:0] x_m_axis_tdata,
    output logic      [KEEP_W-1:0] x_m_axis_tkeep,
    output logic                   x_m_axis_tvalid,
    input  wire logic              x_m_axis_tready,
    output logic                   x_m_axis_tlast,
    output logic                   x_m_axis_tuser,
    output logic [HDR_BYTES*8-1:0] x_m_hdr_tdata,
    output logic                   x_m_hdr_short,
    output logic                   x_m_hdr_tvalid,
    input  wire logic              x_m_hdr_tready,
    input  wire logic [DATA_W-1:0] i_s_axis_tdata,
    input  wire logic [KEEP_W-1:0] i_s_axis_tkeep,
    input  wire logic              i_s_axis_tvalid,
    output logic                   i_s_axis_tready,
    input  wire logic              i_s_axis_tlast,
    input  wire logic              i_s_axis_tuser,
    output logic      [DATA_W-1:0] i_m_axis_tdata,
    output logic      [KEEP_W-1:0] i_m_axis_tkeep,
    output logic                   i_m_axis_tvalid,
    input  wire logic              i_m_axis_tready,
    output logic                   i_m_axis_tlast,
    output logic                   i_m_axis_tuser,
    input  wire logic [HDR_BYTES*8-1:0] i_s_hdr_tdata,
    input  wire logic              i_s_hdr_tvalid,
    output logic                   i_s_hdr_tready
);

  fabnic_pkt_pkg::pkt_meta_t p1_meta;
  assign p1_m_meta_data = p1_meta;
  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b1), .DROP_ERRORS(1'b0)) u_p1 (
      .clk, .rst,
      .s_axis_tdata(p1_s_axis_tdata), .s_axis_tkeep(p1_s_axis_tkeep), .s_axis_tvalid(p1_s_axis_tvalid), .s_axis_tready(p1_s_axis_tready), .s_axis_tlast(p1_s_axis_tlast), .s_axis_tuser(p1_s_axis_tuser),
      .m_axis_tdata(p1_m_axis_tdata), .m_axis_tkeep(p1_m_axis_tkeep), .m_axis_tvalid(p1_m_axis_tvalid), .m_axis_tready(p1_m_axis_tready), .m_axis_tlast(p1_m_axis_tlast), .m_axis_tuser(p1_m_axis_tuser),
      .m_meta_data(p1_meta), .m_meta_valid(p1_m_meta_valid), .m_meta_ready(p1_m_meta_ready),
      .cnt_frames_in(p1_cnt_frames_in), .cnt_bytes_in(p1_cnt_bytes_in), .cnt_bad_in(p1_cnt_bad_in), .cnt_frames_out(p1_cnt_frames_out), .cnt_dropped(p1_cnt_dropped), .cnt_non_ip(p1_cnt_non_ip), .cnt_ip_frag(p1_cnt_ip_frag), .cnt_err_runt(p1_cnt_err_runt), .cnt_err_ip_version(p1_cnt_err_ip_version), .cnt_err_ipv4_ihl(p1_cnt_err_ipv4_ihl), .cnt_err_ipv4_csum(p1_cnt_err_ipv4_csum), .cnt_err_ip_length(p1_cnt_err_ip_length), .cnt_err_udp_length(p1_cnt_err_udp_length)
  );
  fabnic_pkt_pkg::pkt_meta_t p0_meta;
  assign p0_m_meta_data = p0_meta;
  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b0), .DROP_ERRORS(1'b1)) u_p0 (
      .clk, .rst,
      .s_axis_tdata(p0_s_axis_tdata), .s_axis_tkeep(p0_s_axis_tkeep), .s_axis_tvalid(p0_s_axis_tvalid), .s_axis_tready(p0_s_axis_tready), .s_axis_tlast(p0_s_axis_tlast), .s_axis_tuser(p0_s_axis_tuser),
      .m_axis_tdata(p0_m_axis_tdata), .m_axis_tkeep(p0_m_axis_tkeep), .m_axis_tvalid(p0_m_axis_tvalid), .m_axis_tready(p0_m_axis_tready), .m_axis_tlast(p0_m_axis_tlast), .m_axis_tuser(p0_m_axis_tuser),
      .m_meta_data(p0_meta), .m_meta_valid(p0_m_meta_valid), .m_meta_ready(p0_m_meta_ready),
      .cnt_frames_in(p0_cnt_frames_in), .cnt_bytes_in(p0_cnt_bytes_in), .cnt_bad_in(p0_cnt_bad_in), .cnt_frames_out(p0_cnt_frames_out), .cnt_dropped(p0_cnt_dropped), .cnt_non_ip(p0_cnt_non_ip), .cnt_ip_frag(p0_cnt_ip_frag), .cnt_err_runt(p0_cnt_err_runt), .cnt_err_ip_version(p0_cnt_err_ip_version), .cnt_err_ipv4_ihl(p0_cnt_err_ipv4_ihl), .cnt_err_ipv4_csum(p0_cnt_err_ipv4_csum), .cnt_err_ip_length(p0_cnt_err_ip_length), .cnt_err_udp_length(p0_cnt_err_udp_length)
  );
  fabnic_pkt_builder #(.DATA_W(DATA_W)) u_b (
      .clk, .rst, .s_meta_data(fabnic_pkt_pkg::pkt_meta_t'(b_s_meta_data)),
      .s_meta_valid(b_s_meta_valid), .s_meta_ready(b_s_meta_ready),
      .s_axis_tdata(b_s_axis_tdata), .s_axis_tkeep(b_s_axis_tkeep), .s_axis_tvalid(b_s_axis_tvalid), .s_axis_tready(b_s_axis_tready), .s_axis_tlast(b_s_axis_tlast), .s_axis_tuser(b_s_axis_tuser),
      .m_axis_tdata(b_m_axis_tdata), .m_axis_tkeep(b_m_axis_tkeep), .m_axis_tvalid(b_m_axis_tvalid), .m_axis_tready(b_m_axis_tready), .m_axis_tlast(b_m_axis_tlast), .m_axis_tuser(b_m_axis_tuser),
      .cnt_frames(b_cnt_frames), .cnt_len_mismatch(b_cnt_len_mismatch)
  );
  fabnic_roce_icrc_gen #(.DATA_W(DATA_W)) u_g (
      .clk, .rst,
      .s_axis_tdata(g_s_axis_tdata), .s_axis_tkeep(g_s_axis_tkeep), .s_axis_tvalid(g_s_axis_tvalid), .s_axis_tready(g_s_axis_tready), .s_axis_tlast(g_s_axis_tlast), .s_axis_tuser(g_s_axis_tuser),
      .m_axis_tdata(g_m_axis_tdata), .m_axis_tkeep(g_m_axis_tkeep), .m_axis_tvalid(g_m_axis_tvalid), .m_axis_tready(g_m_axis_tready), .m_axis_tlast(g_m_axis_tlast), .m_axis_tuser(g_m_axis_tuser)
  );
  fabnic_roce_icrc_check #(.DATA_W(DATA_W), .STRIP_ICRC(1'b1)) u_c1 (
      .clk, .rst,
      .s_axis_tdata(c1_s_axis_tdata), .s_axis_tkeep(c1_s_axis_tkeep), .s_axis_tvalid(c1_s_axis_tvalid), .s_axis_tready(c1_s_axis_tready), .s_axis_tlast(c1_s_axis_tlast), .s_axis_tuser(c1_s_axis_tuser),
      .m_axis_tdata(c1_m_axis_tdata), .m_axis_tkeep(c1_m_axis_tkeep), .m_axis_tvalid(c1_m_axis_tvalid), .m_axis_tready(c1_m_axis_tready), .m_axis_tlast(c1_m_axis_tlast), .m_axis_tuser(c1_m_axis_tuser),
      .cnt_frames(c1_cnt_frames), .cnt_icrc_bad(c1_cnt_icrc_bad)
  );
  fabnic_roce_icrc_check #(.DATA_W(DATA_W), .STRIP_ICRC(1'b0)) u_c0 (
      .clk, .rst,
      .s_axis_tdata(c0_s_axis_tdata), .s_axis_tkeep(c0_s_axis_tkeep), .s_axis_tvalid(c0_s_axis_tvalid), .s_axis_tready(c0_s_axis_tready), .s_axis_tlast(c0_s_axis_tlast), .s_axis_tuser(c0_s_axis_tuser),
      .m_axis_tdata(c0_m_axis_tdata), .m_axis_tkeep(c0_m_axis_tkeep), .m_axis_tvalid(c0_m_axis_tvalid), .m_axis_tready(c0_m_axis_tready), .m_axis_tlast(c0_m_axis_tlast), .m_axis_tuser(c0_m_axis_tuser),
      .cnt_frames(c0_cnt_frames), .cnt_icrc_bad(c0_cnt_icrc_bad)
  );
  fabnic_axis_hdr_extract #(.DATA_W(DATA_W), .HDR_BYTES(HDR_BYTES)) u_x (
      .clk, .rst,
      .s_axis_tdata(x_s_axis_tdata), .s_axis_tkeep(x_s_axis_tkeep), .s_axis_tvalid(x_s_axis_tvalid), .s_axis_tready(x_s_axis_tready), .s_axis_tlast(x_s_axis_tlast), .s_axis_tuser(x_s_axis_tuser),
      .m_axis_tdata(x_m_axis_tdata), .m_axis_tkeep(x_m_axis_tkeep), .m_axis_tvalid(x_m_axis_tvalid), .m_axis_tready(x_m_axis_tready), .m_axis_tlast(x_m_axis_tlast), .m_axis_tuser(x_m_axis_tuser),
      .m_hdr_tdata(x_m_hdr_tdata), .m_hdr_short(x_m_hdr_short), .m_hdr_tvalid(x_m_hdr_tvalid),
      .m_hdr_tready(x_m_hdr_tready)
  );
  fabnic_axis_hdr_insert #(.DATA_W(DATA_W), .HDR_BYTES(HDR_BYTES)) u_i (
      .clk, .rst,
      .s_hdr_tdata(i_s_hdr_tdata), .s_hdr_len(HLW'(HDR_BYTES)), .s_hdr_tvalid(i_s_hdr_tvalid),
      .s_hdr_tready(i_s_hdr_tready),
      .s_axis_tdata(i_s_axis_tdata), .s_axis_tkeep(i_s_axis_tkeep), .s_axis_tvalid(i_s_axis_tvalid), .s_axis_tready(i_s_axis_tready), .s_axis_tlast(i_s_axis_tlast), .s_axis_tuser(i_s_axis_tuser),
      .m_axis_tdata(i_m_axis_tdata), .m_axis_tkeep(i_m_axis_tkeep), .m_axis_tvalid(i_m_axis_tvalid), .m_axis_tready(i_m_axis_tready), .m_axis_tlast(i_m_axis_tlast), .m_axis_tuser(i_m_axis_tuser)
  );

endmodule

`resetall
