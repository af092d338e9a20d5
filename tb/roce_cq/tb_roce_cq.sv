// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_roce_cq with the two CQE request ports flattened into
// packed words (cqe_req_t) so that cocotb can drive them.
`default_nettype none

module tb_roce_cq #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_CQ = 16,
    parameter int CNT_W  = 32,
    parameter int CQN_W  = $clog2(NUM_CQ),
    parameter int CQE_W  = $bits(fabnic_roce_pkg::cqe_req_t)
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              s_ctl_valid,
    output logic                   s_ctl_ready,
    input  wire logic [CQN_W-1:0]  s_ctl_cqn,
    input  wire logic [63:0]       s_ctl_base,
    input  wire logic [4:0]        s_ctl_log,
    input  wire logic [15:0]       s_ctl_vector,
    input  wire logic              s_ctl_en,

    input  wire logic              s_db_valid,
    output logic                   s_db_ready,
    input  wire logic [CQN_W-1:0]  s_db_cqn,
    input  wire logic [31:0]       s_db_value,

    input  wire logic              s_flt_valid,
    output logic                   s_flt_ready,
    input  wire logic [CQN_W-1:0]  s_flt_cqn,

    input  wire logic [CQE_W-1:0]  s_cqe0,
    input  wire logic [CQE_W-1:0]  s_cqe1,
    input  wire logic [1:0]        s_cqe_valid,
    output logic      [1:0]        s_cqe_ready,

    output logic      [63:0]       m_wr_addr,
    output logic      [CQN_W-1:0]  m_wr_cqn,
    output logic      [31:0]       m_wr_len,
    output logic                   m_wr_valid,
    input  wire logic              m_wr_ready,
    output logic      [DATA_W-1:0] m_wr_tdata,
    output logic      [KEEP_W-1:0] m_wr_tkeep,
    output logic                   m_wr_tvalid,
    input  wire logic              m_wr_tready,
    output logic                   m_wr_tlast,

    output logic                   m_irq_valid,
    output logic      [15:0]       m_irq_vector,

    output logic                   m_ev_valid,
    output logic      [1:0]        m_ev_kind,
    output logic      [CQN_W-1:0]  m_ev_cqn,

    output logic      [CNT_W-1:0]  cnt_cqe,
    output logic      [CNT_W-1:0]  cnt_cqe_err,
    output logic      [CNT_W-1:0]  cnt_overflow,
    output logic      [CNT_W-1:0]  cnt_err_drop,
    output logic      [CNT_W-1:0]  cnt_irq
);
  fabnic_roce_pkg::cqe_req_t cqes [2];
  assign cqes[0] = s_cqe0;
  assign cqes[1] = s_cqe1;

  fabnic_roce_cq #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .NUM_CQ(NUM_CQ), .CNT_W(CNT_W)) u_dut (
      .clk, .rst,
      .s_ctl_valid, .s_ctl_ready, .s_ctl_cqn, .s_ctl_base, .s_ctl_log, .s_ctl_vector,
      .s_ctl_en,
      .s_db_valid, .s_db_ready, .s_db_cqn, .s_db_value,
      .s_flt_valid, .s_flt_ready, .s_flt_cqn,
      .s_cqe(cqes), .s_cqe_valid, .s_cqe_ready,
      .m_wr_addr, .m_wr_cqn, .m_wr_len, .m_wr_valid, .m_wr_ready, .m_wr_tdata, .m_wr_tkeep,
      .m_wr_tvalid, .m_wr_tready, .m_wr_tlast,
      .m_irq_valid, .m_irq_vector,
      .m_ev_valid, .m_ev_kind, .m_ev_cqn,
      .cnt_cqe, .cnt_cqe_err, .cnt_overflow, .cnt_err_drop, .cnt_irq
  );
endmodule

`resetall
