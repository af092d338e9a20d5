// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_roce_wr_gate with its packed lane records as fields.
// Lane 0 (ACK jobs): lqpn, BTH opcode and PSN, AETH syndrome and MSN, an id (job addr)
// and aux (RETH VA); lane 1 (READ response jobs): lqpn, id (job addr), len, lg; lanes
// 2 and 3 (CQEs): every cqe_req_t field. The other bits of a job record are a pattern
// of aux (lane 0) or id (lane 1); m_*_rest_ok: the record that leaves still holds the
// pattern of its own aux / id there.
`default_nettype none

module tb_wr_gate #(
    parameter int NUM_QP = 1024,
    parameter bit GATE   = 1'b1,
    parameter int DEPTH  = 128,
    parameter int CW     = 16,
    parameter int QPN_W  = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              s_wr_issue,
    input  wire logic              s_cpl_valid,
    input  wire logic              s_cpl_err,
    input  wire logic [1:0]        s_cpl_src,
    input  wire logic [QPN_W-1:0]  s_cpl_qpn,
    input  wire logic [23:0]       s_cpl_psn,
    input  wire logic              s_cpl_send,
    input  wire logic              s_st_we,
    input  wire logic [QPN_W-1:0]  s_st_qpn,
    input  wire logic              s_st_reset,

    // lane 0
    input  wire logic              s_job_valid,
    output logic                   s_job_ready,
    input  wire logic [23:0]       s_job_lqpn,
    input  wire logic [7:0]        s_job_opcode,
    input  wire logic [23:0]       s_job_psn,
    input  wire logic [7:0]        s_job_syn,
    input  wire logic [23:0]       s_job_msn,
    input  wire logic [63:0]       s_job_id,
    input  wire logic [63:0]       s_job_aux,
    output logic                   m_job_valid,
    input  wire logic              m_job_ready,
    output logic [23:0]            m_job_lqpn,
    output logic [7:0]             m_job_opcode,
    output logic [23:0]            m_job_psn,
    output logic [7:0]             m_job_syn,
    output logic [23:0]            m_job_msn,
    output logic [63:0]            m_job_id,
    output logic [63:0]            m_job_aux,
    output logic                   m_job_rest_ok,

    // lane 1
    input  wire logic              s_rjob_valid,
    output logic                   s_rjob_ready,
    input  wire logic [23:0]       s_rjob_lqpn,
    input  wire logic [63:0]       s_rjob_id,
    input  wire logic [31:0]       s_rjob_len,
    input  wire logic [3:0]        s_rjob_lg,
    output logic                   m_rjob_valid,
    input  wire logic              m_rjob_ready,
    output logic [23:0]            m_rjob_lqpn,
    output logic [63:0]            m_rjob_id,
    output logic [31:0]            m_rjob_len,
    output logic [3:0]             m_rjob_lg,
    output logic                   m_rjob_rest_ok,

    // lane 2
    input  wire logic              s_rcqe_valid,
    output logic                   s_rcqe_ready,
    input  wire logic [15:0]       s_rcqe_cqn,
    input  wire logic [63:0]       s_rcqe_wr_id,
    input  wire logic [31:0]       s_rcqe_byte_len,
    input  wire logic [31:0]       s_rcqe_imm,
    input  wire logic [23:0]       s_rcqe_qpn,
    input  wire logic [7:0]        s_rcqe_opcode,
    input  wire logic [7:0]        s_rcqe_status,
    input  wire logic              s_rcqe_imm_valid,
    output logic                   m_rcqe_valid,
    input  wire logic              m_rcqe_ready,
    output logic [15:0]            m_rcqe_cqn,
    output logic [63:0]            m_rcqe_wr_id,
    output logic [31:0]            m_rcqe_byte_len,
    output logic [31:0]            m_rcqe_imm,
    output logic [23:0]            m_rcqe_qpn,
    output logic [7:0]             m_rcqe_opcode,
    output logic [7:0]             m_rcqe_status,
    output logic                   m_rcqe_imm_valid,

    // lane 3
    input  wire logic              s_ccqe_valid,
    output logic                   s_ccqe_ready,
    input  wire logic [15:0]       s_ccqe_cqn,
    input  wire logic [63:0]       s_ccqe_wr_id,
    input  wire logic [31:0]       s_ccqe_byte_len,
    input  wire logic [31:0]       s_ccqe_imm,
    input  wire logic [23:0]       s_ccqe_qpn,
    input  wire logic [7:0]        s_ccqe_opcode,
    input  wire logic [7:0]        s_ccqe_status,
    input  wire logic              s_ccqe_imm_valid,
    output logic                   m_ccqe_valid,
    input  wire logic              m_ccqe_ready,
    output logic [15:0]            m_ccqe_cqn,
    output logic [63:0]            m_ccqe_wr_id,
    output logic [31:0]            m_ccqe_byte_len,
    output logic [31:0]            m_ccqe_imm,
    output logic [23:0]            m_ccqe_qpn,
    output logic [7:0]             m_ccqe_opcode,
    output logic [7:0]             m_ccqe_status,
    output logic                   m_ccqe_imm_valid
);
  import fabnic_roce_pkg::*;

  localparam int JW = $bits(tx_job_t);

  // a job record: the pattern of seed v (v times an odd number per 64-bit chunk)
  function automatic tx_job_t job_fill(input logic [63:0] v);
    logic [JW+63:0] p;
    for (int i = 0; i < JW / 64 + 1; i++) p[64*i +: 64] = v * 64'(2 * i + 1);
    return tx_job_t'(p[JW-1:0]);
  endfunction
  function automatic tx_job_t job_lane0(input tx_job_t b, input logic [23:0] lqpn,
      input logic [7:0] opcode, input logic [23:0] psn, input logic [7:0] syn,
      input logic [23:0] msn, input logic [63:0] id, input logic [63:0] aux);
    tx_job_t j;
    j = b;
    j.hdr.bth.opcode    = opcode;
    j.hdr.bth.psn       = psn;
    j.hdr.aeth.syndrome = syn;
    j.hdr.aeth.msn      = msn;
    j.hdr.reth.va       = aux;
    j.addr              = id;
    j.lqpn              = lqpn;
    return j;
  endfunction
  function automatic tx_job_t job_lane1(input tx_job_t b, input logic [23:0] lqpn,
      input logic [63:0] id);
    tx_job_t j;
    j = b;
    j.addr = id;
    j.lqpn = lqpn;
    return j;
  endfunction

  tx_job_t  s_job, m_job, s_rjob, m_rjob;
  cqe_req_t s_rcqe, m_rcqe, s_ccqe, m_ccqe;

  always_comb begin
    s_job  = job_lane0(job_fill(s_job_aux), s_job_lqpn, s_job_opcode, s_job_psn, s_job_syn,
                       s_job_msn, s_job_id, s_job_aux);
    s_rjob = job_lane1(job_fill(s_rjob_id), s_rjob_lqpn, s_rjob_id);
    s_rcqe = '{cqn: s_rcqe_cqn, wr_id: s_rcqe_wr_id, byte_len: s_rcqe_byte_len,
               imm: s_rcqe_imm, qpn: s_rcqe_qpn, opcode: s_rcqe_opcode,
               status: s_rcqe_status, imm_valid: s_rcqe_imm_valid};
    s_ccqe = '{cqn: s_ccqe_cqn, wr_id: s_ccqe_wr_id, byte_len: s_ccqe_byte_len,
               imm: s_ccqe_imm, qpn: s_ccqe_qpn, opcode: s_ccqe_opcode,
               status: s_ccqe_status, imm_valid: s_ccqe_imm_valid};
  end

  assign m_job_lqpn   = m_job.lqpn;
  assign m_job_opcode = m_job.hdr.bth.opcode;
  assign m_job_psn    = m_job.hdr.bth.psn;
  assign m_job_syn    = m_job.hdr.aeth.syndrome;
  assign m_job_msn    = m_job.hdr.aeth.msn;
  assign m_job_id     = m_job.addr;
  assign m_job_aux    = m_job.hdr.reth.va;
  assign m_job_rest_ok = m_job == job_lane0(job_fill(m_job.hdr.reth.va), m_job.lqpn,
                                            m_job.hdr.bth.opcode, m_job.hdr.bth.psn,
                                            m_job.hdr.aeth.syndrome, m_job.hdr.aeth.msn,
                                            m_job.addr, m_job.hdr.reth.va);
  assign m_rjob_rest_ok = m_rjob == job_lane1(job_fill(m_rjob.addr), m_rjob.lqpn, m_rjob.addr);
  assign m_rjob_lqpn  = m_rjob.lqpn;
  assign m_rjob_id    = m_rjob.addr;
  assign {m_rcqe_cqn, m_rcqe_wr_id, m_rcqe_byte_len, m_rcqe_imm, m_rcqe_qpn,
          m_rcqe_opcode, m_rcqe_status, m_rcqe_imm_valid} = m_rcqe;
  assign {m_ccqe_cqn, m_ccqe_wr_id, m_ccqe_byte_len, m_ccqe_imm, m_ccqe_qpn,
          m_ccqe_opcode, m_ccqe_status, m_ccqe_imm_valid} = m_ccqe;

  fabnic_roce_wr_gate #(.NUM_QP(NUM_QP), .GATE(GATE), .DEPTH(DEPTH), .CW(CW)) u_gate (
      .clk, .rst,
      .s_wr_issue, .s_cpl_valid, .s_cpl_err, .s_cpl_src, .s_cpl_qpn, .s_cpl_psn,
      .s_cpl_send, .s_st_we, .s_st_qpn, .s_st_reset,
      .s_job, .s_job_valid, .s_job_ready, .m_job, .m_job_valid, .m_job_ready,
      .s_rjob, .s_rjob_len, .s_rjob_lg, .s_rjob_valid, .s_rjob_ready,
      .m_rjob, .m_rjob_len, .m_rjob_lg, .m_rjob_valid, .m_rjob_ready,
      .s_rcqe, .s_rcqe_valid, .s_rcqe_ready, .m_rcqe, .m_rcqe_valid, .m_rcqe_ready,
      .s_ccqe, .s_ccqe_valid, .s_ccqe_ready, .m_ccqe, .m_ccqe_valid, .m_ccqe_ready
  );

endmodule

`resetall
