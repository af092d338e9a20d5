// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl_post: the completer's decide helpers for S_POST and S_PLACE
// (fabnic_roce_cpl). What those states branch on is computed here a cycle (or two)
// ahead from the event's registers and registered, so the states decide on flops and
// a one-hot choice: the new una after an advance (una_n, registered in S_ADV / S_WAIT /
// S_CHKW, the only states before S_POST) and which of {una, wqe_psn, tgt} it is, the
// response PSN and the loaded una against each of those candidates, the READ
// response's offset and end in its WQE, and the run of marked READ responses after it
// (SR). Each input the registered values are taken from does not change in the cycle
// (two for the run) before the state that uses them; the completer's assertions check
// each against the expression it replaces.
//
// Parameters
//   SR_W   selective repeat: the requester's window in PSNs (<= 64)
`default_nettype none

module fabnic_roce_cpl_post #(
    parameter int SR_W = 64
) (
    input  wire logic                          clk,
    input  wire fabnic_roce_cpl_pkg::cpl_st_e  st,       // the completer's state
    input  wire logic                          cqe_hold, // S_CQE deciding as S_ADV (to S_POST)
    input  wire fabnic_roce_cpl_pkg::cpl_state_t a,      // the event's state word
    input  wire logic [23:0]                   psn,      // the response's PSN
    input  wire logic [23:0]                   tgt,      // ACK target
    input  wire logic [23:0]                   una0,     // una as loaded
    input  wire logic [23:0]                   psn_hi,   // the requester's highest PSN
    input  wire logic [3:0]                    lg,       // log2 path MTU
    input  wire logic [15:0]                   plen,     // payload bytes of the response
    input  wire logic [23:0]                   dpw,      // psn - wqe_psn (kept)
    input  wire logic [23:0]                   dpe,      // psn - w_end (kept)
    input  wire logic                          hi0,      // wqe_idx == sq_hi (kept)

    output logic      [23:0]                   una_n,    // S_POST, S_PLACE: una after the advance
    output logic      [5:0]                    rr_dist,  // S_PLACE: psn - una
    output logic      [6:0]                    rr_run,   // 1 + marked responses after psn
    output logic      [23:0]                   rr_una,   // una + rr_run
    output logic                               rr_lt_end,  // psn_lt(rr_una, w_end)
    output logic                               rr_any,   // rr_bmp != 0
    output logic      [31:0]                   rd_off,   // the response's byte offset
    output logic                               psn_is_una_n,
    output logic                               psn_ooo,  // SR: above una_n, slot free
    output logic                               prog,     // psn_lt(una0, una_n)
    output logic                               una_lt_phi, // psn_lt(una_n, psn_hi)
    output logic                               una_ne_wp,  // una_n != wqe_psn
    output logic                               f_eq_wqe,   // psn == wqe_psn
    output logic                               rd_fits,    // the loaded READ may hold it
    output logic                               rd_place_in // ... and it is the next one
);
  import fabnic_roce_pkg::*;
  import fabnic_roce_cpl_pkg::*;

  // una after an in-order READ response: past it and the marked run that follows
  // rr_run = 1 + the ones of rr_bmp from bit 1 up, in two registered steps (4 x 16,
  // then the groups): rr_bmp does not change in the two cycles before S_PLACE (S_POST
  // and the state before it change no rr_bmp), so S_PLACE sees the current value
  logic [3:0]  rr_gall_q;          // group g of rr_bmp[64:1] (bit 64 = 0) all ones
  logic [4:0]  rr_gcnt_q [4];      // leading ones of group g
  always_ff @(posedge clk) begin
    logic [63:0] b;
    b = {1'b0, a.rr_bmp[63:1]};
    for (int g = 0; g < 4; g++) begin
      rr_gall_q[g] <= &b[16*g +: 16];
      rr_gcnt_q[g] <= 5'd16;
      for (int i = 15; i >= 0; i--) if (!b[16*g + i]) rr_gcnt_q[g] <= 5'(i);
    end
    rr_run <= 7'd1 + (!rr_gall_q[0] ? 7'(rr_gcnt_q[0])
                     : !rr_gall_q[1] ? 7'd16 + 7'(rr_gcnt_q[1])
                     : !rr_gall_q[2] ? 7'd32 + 7'(rr_gcnt_q[2]) : 7'd48 + 7'(rr_gcnt_q[3]));
  end
  assign rr_una  = a.una + 24'(rr_run);
  assign rr_dist = 6'(psn - a.una);   // (in S_PLACE: una already una_n)
  // psn_lt(rr_una, w_end) in S_PLACE, where una is the response's PSN: the sign of
  // (psn - w_end) + rr_run (dpe: psn - w_end)
  logic [23:0] rr_lt_sum;
  assign rr_lt_sum = dpe + 24'(rr_run);
  assign rr_lt_end = rr_lt_sum[23];

  // (h_q, wqe_psn and lg are stable for a cycle before S_POST and S_PLACE_D)
  always_ff @(posedge clk) rd_off <= 32'(dpw) << lg;
  // una after the advance: up to the target, but not past a READ/atomic still waiting.
  // S_POST is entered only from S_ADV (a_q unchanged there) and from S_WAIT / S_CHKW
  // having loaded a READ / atomic below sq_hi, so una_n is registered in those states:
  // from a_q in S_ADV, with the WQE taken as a loaded READ / atomic in the other two.
  // S_POST moves a.una to it, so it is also una_n of S_PLACE (the rule is idempotent).
  // una_sel_q says which of {una, wqe_psn, tgt} it is (one-hot), so S_POST compares
  // with it through flags registered against each candidate.
  logic [23:0] una_c, una_rd, una_n_q;
  logic [2:0]  sel_c, sel_rd, una_sel_q;
  always_comb begin
    una_c = a.una;
    sel_c = 3'b001;
    if (!hi0 && a.loaded && (a.w_rd || a.w_at) && psn_lt(a.wqe_psn, tgt)) begin
      if (psn_lt(a.una, a.wqe_psn)) begin
        una_c = a.wqe_psn;
        sel_c = 3'b010;
      end
    end else if (psn_lt(a.una, tgt)) begin
      una_c = tgt;
      sel_c = 3'b100;
    end
    una_rd = a.una;
    sel_rd = 3'b001;
    if (psn_lt(a.wqe_psn, tgt)) begin
      if (psn_lt(a.una, a.wqe_psn)) begin
        una_rd = a.wqe_psn;
        sel_rd = 3'b010;
      end
    end else if (psn_lt(a.una, tgt)) begin
      una_rd = tgt;
      sel_rd = 3'b100;
    end
  end
  always_ff @(posedge clk) begin
    if (st[I_ADV] || cqe_hold) begin
      una_n_q   <= una_c;
      una_sel_q <= sel_c;
    end else if (st[I_WAIT] || st[I_CHKW]) begin
      una_n_q   <= una_rd;
      una_sel_q <= sel_rd;
    end
  end
  assign una_n = una_n_q;

  // The response PSN and una0 against una, wqe_psn and tgt, registered every cycle:
  // none of them (nor rr_bmp, lg, psn_hi, the payload length) changes in the cycle
  // before S_POST, so in S_POST these are the current comparisons; the candidate in
  // una_sel_q picks.
  logic [2:0]  f_eq_q, f_ooo_q, f_prog_q, f_phi_q, f_wp_q;
  logic        f_ge_wqe_q;
  logic [31:0] rd_end_q;            // rd_off + payload bytes
  always_ff @(posedge clk) begin
    logic [23:0] c [3];
    c = '{a.una, a.wqe_psn, tgt};
    for (int k = 0; k < 3; k++) begin
      logic [23:0] d;
      d = psn - c[k];
      f_eq_q[k]   <= psn == c[k];
      f_ooo_q[k]  <= psn_lt(c[k], psn) && d < 24'(SR_W) && !a.rr_bmp[d[5:0]];
      f_prog_q[k] <= psn_lt(una0, c[k]);        // progress
      f_phi_q[k]  <= psn_lt(c[k], psn_hi);   // PSNs outstanding after it
      f_wp_q[k]   <= c[k] != a.wqe_psn;
    end
    f_ge_wqe_q <= psn_le(a.wqe_psn, psn);
    rd_end_q   <= (32'(dpw) << lg) + 32'(plen);
    rr_any     <= a.rr_bmp != '0;
  end
  assign psn_is_una_n = |(una_sel_q & f_eq_q);
  assign psn_ooo      = |(una_sel_q & f_ooo_q);
  assign prog         = |(una_sel_q & f_prog_q);
  assign una_lt_phi   = |(una_sel_q & f_phi_q);
  assign una_ne_wp    = |(una_sel_q & f_wp_q);
  // the loaded READ may hold this response: inside it, it fits, its buffer was translated
  assign rd_fits      = !hi0 && a.loaded && a.w_rd && f_ge_wqe_q && dpe[23]
                        && rd_end_q <= a.w_len && a.w_ok;
  assign rd_place_in  = rd_fits && psn_is_una_n;
  assign f_eq_wqe = f_eq_q[1];

  logic unused;
  assign unused = ^{a, rr_gall_q[3], rr_lt_sum[22:0]};

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (st[I_POST]) begin
      assert (una_n_q == una_c) else $error("fabnic_roce_cpl_post: una_n_q");
      assert ((una_sel_q == 3'b001 && una_n_q == a.una)
              || (una_sel_q == 3'b010 && una_n_q == a.wqe_psn)
              || (una_sel_q == 3'b100 && una_n_q == tgt));
      assert ($onehot(una_sel_q));
    end
  end
`endif

endmodule

`resetall
