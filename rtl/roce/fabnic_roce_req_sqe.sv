// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_req_sqe: the SQE side of the requester (fabnic_roce_req): decodes the SQE
// beat on the read stream, looks its local buffer up in a one-entry translation cache
// (fabnic_roce_xlate_cache) and checks lkeys against the requester's copy of the MR
// table (fabnic_roce_mr_table).
//
// Lookup (combinational, from the beat): sqe, hit (the buffer lies inside the cached
// region of the last passed check, with the same key and the QP's PD, needing no other
// access, and the opcode and length are sendable), off (its host offset: the host
// address is sqe.laddr + off). The user registers both when it takes the beat.
// Any MR-table write empties the cache and makes hit low in that cycle, and a check whose
// table read may predate a write does not fill it.
//
// Check (chk_*): the check of the user's registered SQE, issued with chk_valid, answered
// two cycles later (chk_res_*, never back-pressured); fill puts the region of a passed
// check into the cache.
//
// Parameters
//   NUM_MR  MR table entries (fabnic_roce_mr_table)
//   CNT_W   counter width of the MR table (its counters are not used here)
`default_nettype none

module fabnic_roce_req_sqe #(
    parameter int NUM_MR = 1024,
    parameter int CNT_W  = 32
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    input  wire logic                        mr_wr_valid,
    input  wire logic [$clog2(NUM_MR)-1:0]   mr_wr_index,
    input  wire fabnic_roce_pkg::mr_entry_t  mr_wr_entry,

    input  wire logic [23:0]                 pd,        // the visited QP's PD

    // lookup of the beat
    input  wire logic [511:0]                beat,
    output fabnic_roce_pkg::sqe_t            sqe,
    output logic                             hit,
    output logic      [63:0]                 off,

    // check of the registered SQE
    input  wire logic                        chk_valid,
    output logic                             chk_ready,
    input  wire fabnic_roce_pkg::sqe_t       chk_sqe,
    input  wire logic                        chk_atomic,
    output logic                             chk_res_valid,
    output logic                             chk_ok,
    output logic      [63:0]                 chk_addr,
    input  wire logic                        fill       // chk_res_valid && chk_ok, use it
);
  import fabnic_roce_pkg::*;

  logic in_atom, in_rdat;
  assign sqe     = sqe_decode(beat);
  assign in_atom = sqe.opcode == WR_CMP_SWAP || sqe.opcode == WR_FETCH_ADD;
  assign in_rdat = in_atom || sqe.opcode == WR_READ;

  mr_err_e          unused_chk_err;
  logic [7:0]       unused_chk_id;
  logic [CNT_W-1:0] unused_mr_cnt [6];
  logic             unused_mr_wr_ready;
  logic [63:0]      chk_lo, chk_off;
  logic [64:0]      chk_hi;
  logic [3:0]       chk_racc;
  fabnic_roce_mr_table #(.NUM_MR(NUM_MR), .CNT_W(CNT_W)) u_mr (
      .clk, .rst,
      .wr_valid(mr_wr_valid), .wr_ready(unused_mr_wr_ready), .wr_index(mr_wr_index),
      .wr_entry(mr_wr_entry),
      .s_chk_valid(chk_valid), .s_chk_ready(chk_ready), .s_chk_key(chk_sqe.lkey),
      .s_chk_va(chk_sqe.laddr), .s_chk_len(chk_atomic ? 32'd8 : chk_sqe.len),
      .s_chk_access((chk_sqe.opcode == WR_READ || chk_atomic) ? 4'(1 << MR_ACC_LOCAL_WRITE)
                                                               : 4'd0),
      .s_chk_pd(pd), .s_chk_id(8'd0),
      .m_chk_valid(chk_res_valid), .m_chk_ready(1'b1), .m_chk_ok(chk_ok),
      .m_chk_err(unused_chk_err), .m_chk_addr(chk_addr), .m_chk_id(unused_chk_id),
      .m_chk_lo(chk_lo), .m_chk_hi(chk_hi), .m_chk_off(chk_off), .m_chk_acc(chk_racc),
      .cnt_chk(unused_mr_cnt[0]), .cnt_err_invalid(unused_mr_cnt[1]),
      .cnt_err_tag(unused_mr_cnt[2]), .cnt_err_pd(unused_mr_cnt[3]),
      .cnt_err_access(unused_mr_cnt[4]), .cnt_err_bounds(unused_mr_cnt[5])
  );

  logic mc_hit;
  fabnic_roce_xlate_cache u_lkc (
      .clk, .rst, .mr_wr_valid,
      .fill(fill && chk_sqe.len != 32'd0),
      .fill_key(chk_sqe.lkey), .fill_pd(pd), .fill_acc(chk_racc), .fill_lo(chk_lo),
      .fill_hi(chk_hi), .fill_off(chk_off),
      .key(sqe.lkey), .pd, .va(sqe.laddr),
      .len(in_atom ? 32'd8 : sqe.len), .need(in_rdat ? 4'(1 << MR_ACC_LOCAL_WRITE) : 4'd0),
      .hit(mc_hit), .off
  );
  assign hit = mc_hit && !sqe.len[31] && sqe.opcode <= WR_FETCH_ADD
               && !(in_atom && sqe.len != 32'd8);

  logic unused;
  assign unused = ^{chk_sqe, unused_chk_err, unused_chk_id, unused_mr_wr_ready, unused_mr_cnt[0],
                    unused_mr_cnt[1], unused_mr_cnt[2], unused_mr_cnt[3], unused_mr_cnt[4],
                    unused_mr_cnt[5]};

endmodule

`resetall
