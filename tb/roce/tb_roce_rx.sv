// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_roce_rx with its header records flattened to vectors and
// its counters in one vector (order: CNT_NAMES in test_roce_rx.py) for cocotb.
`default_nettype none

module tb_roce_rx #(
    parameter int DATA_W     = 512,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int NUM_QP     = 64,
    parameter int FIFO_DEPTH = 64
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [127:0]      cfg_local_ip,
    input  wire logic [47:0]       cfg_local_mac,
    input  wire logic [2:0]        cfg_rx_filter,
    input  wire logic              st_we,
    input  wire logic [23:0]       st_qpn,
    input  wire logic              st_sr,
    input  wire logic [2:0]        st_pmtu,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,

    output logic [$bits(fabnic_roce_pkg::roce_hdr_t)-1:0] req_hdr_data,
    output logic [15:0]            req_hdr_plen,
    output logic                   req_hdr_valid,
    input  wire logic              req_hdr_ready,
    output logic [DATA_W-1:0]      req_axis_tdata,
    output logic [KEEP_W-1:0]      req_axis_tkeep,
    output logic                   req_axis_tvalid,
    input  wire logic              req_axis_tready,
    output logic                   req_axis_tlast,
    output logic                   req_axis_tuser,

    output logic [$bits(fabnic_roce_pkg::roce_hdr_t)-1:0] rsp_hdr_data,
    output logic [15:0]            rsp_hdr_plen,
    output logic                   rsp_hdr_valid,
    input  wire logic              rsp_hdr_ready,
    output logic [DATA_W-1:0]      rsp_axis_tdata,
    output logic [KEEP_W-1:0]      rsp_axis_tkeep,
    output logic                   rsp_axis_tvalid,
    input  wire logic              rsp_axis_tready,
    output logic                   rsp_axis_tlast,
    output logic                   rsp_axis_tuser,

    output logic                   cnp_valid,
    output logic [23:0]            cnp_qpn,
    output logic                   ce_valid,
    output logic [23:0]            ce_qpn,
    output logic [20*32-1:0]       cnts
);
  fabnic_roce_pkg::roce_hdr_t rq, rp;
  logic [31:0] c [20];
  assign req_hdr_data = rq;
  assign rsp_hdr_data = rp;
  for (genvar i = 0; i < 20; i++) begin : g_cnt
    assign cnts[32*i +: 32] = c[i];
  end

  fabnic_roce_rx #(.DATA_W(DATA_W), .NUM_QP(NUM_QP), .FIFO_DEPTH(FIFO_DEPTH)) u_rx (
      .clk, .rst, .cfg_local_ip, .cfg_local_mac, .cfg_rx_filter,
      .st_sr_we(st_we), .st_sr_qpn(st_qpn), .st_sr_val(st_sr), .st_pmtu_val(st_pmtu),
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_req_hdr(rq), .m_req_plen(req_hdr_plen), .m_req_valid(req_hdr_valid),
      .m_req_ready(req_hdr_ready), .m_req_tdata(req_axis_tdata), .m_req_tkeep(req_axis_tkeep),
      .m_req_tvalid(req_axis_tvalid), .m_req_tready(req_axis_tready),
      .m_req_tlast(req_axis_tlast), .m_req_tuser(req_axis_tuser),
      .m_rsp_hdr(rp), .m_rsp_plen(rsp_hdr_plen), .m_rsp_valid(rsp_hdr_valid),
      .m_rsp_ready(rsp_hdr_ready), .m_rsp_tdata(rsp_axis_tdata), .m_rsp_tkeep(rsp_axis_tkeep),
      .m_rsp_tvalid(rsp_axis_tvalid), .m_rsp_tready(rsp_axis_tready),
      .m_rsp_tlast(rsp_axis_tlast), .m_rsp_tuser(rsp_axis_tuser),
      .m_cnp_valid(cnp_valid), .m_cnp_qpn(cnp_qpn), .m_ce_valid(ce_valid), .m_ce_qpn(ce_qpn),
      .cnt_frames(c[0]), .cnt_roce(c[1]), .cnt_cnp(c[2]), .cnt_drop_bad(c[3]),
      .cnt_drop_dst_mac(c[4]), .cnt_drop_not_roce(c[5]), .cnt_drop_dst_ip(c[6]),
      .cnt_drop_ip_frag(c[7]), .cnt_drop_icrc(c[8]), .cnt_drop_oversize(c[9]),
      .cnt_drop_ip_hdr(c[10]), .cnt_drop_ip_csum(c[11]), .cnt_drop_udp_len(c[12]),
      .cnt_drop_frame_len(c[13]), .cnt_drop_hdr(c[14]), .cnt_drop_pad(c[15]),
      .cnt_drop_qpn(c[16]), .cnt_drop_op_len(c[17]), .cnt_drop_pmtu(c[18]),
      .cnt_drop_reth_len(c[19])
  );
endmodule

`resetall
