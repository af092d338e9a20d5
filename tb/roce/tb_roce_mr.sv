// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: fabnic_roce_mr_table with the entry flattened to fields, and the
// fabnic_roce_pkg PSN helpers as combinational outputs (psn_a, psn_b -> results).
`default_nettype none

module tb_roce_mr #(
    parameter int NUM_MR = 200,
    parameter int IDX_W  = $clog2(NUM_MR)
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              wr_valid,
    output logic                   wr_ready,
    input  wire logic [IDX_W-1:0]  wr_index,
    input  wire logic              wr_e_valid,
    input  wire logic [7:0]        wr_e_tag,
    input  wire logic [23:0]       wr_e_pd,
    input  wire logic [3:0]        wr_e_access,
    input  wire logic [63:0]       wr_e_base,
    input  wire logic [63:0]       wr_e_length,
    input  wire logic [63:0]       wr_e_host_base,
    input  wire logic              s_chk_valid,
    output logic                   s_chk_ready,
    input  wire logic [31:0]       s_chk_key,
    input  wire logic [63:0]       s_chk_va,
    input  wire logic [31:0]       s_chk_len,
    input  wire logic [3:0]        s_chk_access,
    input  wire logic [23:0]       s_chk_pd,
    input  wire logic [15:0]       s_chk_id,
    output logic                   m_chk_valid,
    input  wire logic              m_chk_ready,
    output logic                   m_chk_ok,
    output logic [2:0]             m_chk_err,
    output logic [63:0]            m_chk_addr,
    output logic [15:0]            m_chk_id,
    output logic [63:0]            m_chk_lo,
    output logic [64:0]            m_chk_hi,
    output logic [63:0]            m_chk_off,
    output logic [3:0]             m_chk_acc,
    output logic [31:0]            cnt_chk, cnt_err_invalid, cnt_err_tag, cnt_err_pd,
    output logic [31:0]            cnt_err_access, cnt_err_bounds,
    input  wire logic [23:0]       psn_a,
    input  wire logic [23:0]       psn_b,
    output logic                   psn_lt,
    output logic                   psn_le,
    output logic [23:0]            psn_diff,
    output logic [23:0]            psn_sum
);

  fabnic_roce_pkg::mr_entry_t e;
  fabnic_roce_pkg::mr_err_e   err;
  always_comb begin
    e.valid = wr_e_valid;  e.tag = wr_e_tag;  e.pd = wr_e_pd;  e.access = wr_e_access;
    e.base = wr_e_base;  e.length = wr_e_length;  e.host_base = wr_e_host_base;
  end
  assign m_chk_err = err;

  fabnic_roce_mr_table #(.NUM_MR(NUM_MR), .ID_W(16)) u_mr (
      .clk, .rst,
      .wr_valid, .wr_ready, .wr_index, .wr_entry(e),
      .s_chk_valid, .s_chk_ready, .s_chk_key, .s_chk_va, .s_chk_len, .s_chk_access,
      .s_chk_pd, .s_chk_id,
      .m_chk_valid, .m_chk_ready, .m_chk_ok, .m_chk_err(err), .m_chk_addr, .m_chk_id,
      .m_chk_lo, .m_chk_hi, .m_chk_off, .m_chk_acc,
      .cnt_chk, .cnt_err_invalid, .cnt_err_tag, .cnt_err_pd, .cnt_err_access, .cnt_err_bounds
  );

  assign psn_lt   = fabnic_roce_pkg::psn_lt(psn_a, psn_b);
  assign psn_le   = fabnic_roce_pkg::psn_le(psn_a, psn_b);
  assign psn_diff = fabnic_roce_pkg::psn_diff(psn_a, psn_b);
  assign psn_sum  = fabnic_roce_pkg::psn_add(psn_a, psn_b);

endmodule

`resetall
