// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl_rd: the completer's SQE reads (fabnic_roce_cpl): the FSM's own read of
// the oldest WQE (S_FETCH) and the SQE look-ahead, which reads ahead for the next
// response's QP or for the QP being handled.
//
// Look-ahead: PF_IDLE -(pf_go: read the waiting header's QP state on the RAM read port,
// which the FSM uses only in S_IDLE)-> PF_LOAD -> PF_CALC -> PF_NOK -> PF_REQ (issue the
// read) -> PF_IDLE with the slot filled; the read-ahead for the current QP (pf_cont:
// its next posted SQEs after the current read, at most SQE_BATCH, so the core's
// 2 * SQE_BATCH-beat FIFO never makes the R channel wait) enters at PF_CALC. PF_LOAD
// captures the RAM words' distances, PF_CALC clamps them to SQE_BATCH, PF_NOK takes the
// minima (SQEs to read, and those the requester sent). The stages after PF_IDLE are
// abandoned when the FSM returns to S_IDLE (the header may be taken next); PF_LOAD also
// when the QP needs no read. SQE reads return in issue order, so the look-ahead runs
// only in states where the FSM's own read for this event is already out or will not be
// needed (pf_ok: never between a fetch decision and its fetch); its read sits in a
// one-entry slot until the FSM takes it over (pf_take, at a fetch decision with the
// current read's beats consumed). A control op that re-initialises a QP marks a pending
// slot stale (stale_mark).
//
// The FSM's read: its length (distances clamped to SQE_BATCH) and address are
// registered every cycle; S_FETCH follows a decision state (S_ADV, S_ERR, S_FLUSH) in
// which wqe_idx, the published word and the SQ mask do not change, so in S_FETCH they
// are those of the current WQE.
//
// Handshakes: m_rd_valid is a decode of the FSM's state and the stage's state, m_rd_*
// are registers and 7-bit minima of registers. No valid/ready path crosses this block.
`default_nettype none

module fabnic_roce_cpl_rd #(
    parameter int NUM_QP    = 1024,
    parameter int SQE_BATCH = 32,
    parameter bit PREFETCH  = 1'b1,
    parameter int QPN_W     = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic                          clk,
    input  wire logic                          rst,

    input  wire fabnic_roce_cpl_pkg::cpl_st_e  st,          // the FSM's state
    input  wire logic                          adv_lim,     // S_FETCH: up to sq_hi (else sq_pi)
    input  wire logic                          hdr_valid,   // the waiting response header
    input  wire logic [QPN_W-1:0]              hdr_qpn,
    input  wire logic                          ctl_pend,
    input  wire logic [QPN_W-1:0]              qpn,         // the event's QP and its words
    input  wire fabnic_roce_cpl_pkg::cpl_state_t a,
    input  wire fabnic_roce_pkg::qpc_t         qc,
    input  wire fabnic_roce_cpl_pkg::cpl_pub_t pb,
    input  wire logic [15:0]                   sq_mask,
    input  wire logic                          more,        // the FSM's SQE cache
    input  wire logic                          stale,
    input  wire logic [QPN_W-1:0]              cache_qpn,
    input  wire logic                          cache_own,   // cache_qpn == qpn (kept)
    input  wire logic                          fetched,     // S_FETCH's read left last cycle
    input  wire logic [15:0]                   cache_end,
    input  wire fabnic_roce_pkg::qpc_t         st_rd,       // RAM words of the pf_go read
    input  wire fabnic_roce_cpl_pkg::cpl_state_t as_rd,
    input  wire fabnic_roce_cpl_pkg::cpl_pub_t pb_rd,
    input  wire logic                          pf_take,
    input  wire logic                          stale_mark,

    output logic                               pf_go,
    output logic                               slot,        // a look-ahead read is out ...
    output logic      [QPN_W-1:0]              slot_qpn,    // ... for this QP
    output logic      [15:0]                   slot_idx,    // ... from this SQ index
    output logic      [15:0]                   slot_end,    // ... to this one
    output logic                               slot_stale,
    output logic      [15:0]                   fetch_end,   // after S_FETCH: its end index

    output logic      [63:0]                   m_rd_addr,
    output logic      [31:0]                   m_rd_len,
    output logic      [15:0]                   m_rd_nok,
    output logic                               m_rd_valid,
    input  wire logic                          m_rd_ready
);
  import fabnic_roce_pkg::*;
  import fabnic_roce_cpl_pkg::*;

  function automatic logic [6:0] clamp_batch(input logic [15:0] v);
    return (v > 16'(SQE_BATCH)) ? 7'(SQE_BATCH) : 7'(v);
  endfunction

  cpl_pf_e          pf_st;
  logic [15:0]      pf_n_q, pf_nok_q;
  logic [15:0]      pf_pend_q, pf_end_q, pf_dhi_q;   // SQEs posted / to the ring end / sent
  logic [6:0]       pf_pend_c, pf_end_c, pf_dhi_c;   // the same, at most SQE_BATCH
  logic [63:0]      pf_addr_q;
  logic             pf_ok, pf_issue, pf_cont, fetch;
  logic [15:0]      nfetch;   // S_FETCH: SQEs read

  // states in which the FSM is neither deciding on nor issuing an SQE read
  always_comb begin
    pf_ok = |(st & (S_WAIT | S_CHK | S_CHKW | S_CQE | S_POST | S_PLACE_D | S_PLACE | S_DRAIN
                    | S_EV | S_SREV | S_WB));
    fetch = st[I_FETCH];
  end
  assign pf_go    = PREFETCH && pf_st == PF_IDLE && !slot && pf_ok && hdr_valid
                    && !ctl_pend && hdr_qpn != qpn && !(more && cache_qpn == hdr_qpn);
  assign pf_issue = pf_st == PF_REQ && pf_ok;
  assign pf_cont  = PREFETCH && pf_st == PF_IDLE && !slot && pf_ok && !pf_go
                    && more && !stale && cache_own && !a.err
                    && qc.state == QPS_RTS && pb.sq_pi != cache_end && !fetched;

  always_ff @(posedge clk) begin
    pf_pend_c <= clamp_batch(pf_pend_q);
    pf_end_c  <= clamp_batch(pf_end_q);
    pf_dhi_c  <= pf_dhi_q[15] ? 7'd0 : clamp_batch(pf_dhi_q);   // idx above sq_hi: none
    unique case (pf_st)
      PF_IDLE: if (pf_go) begin
        slot_qpn <= hdr_qpn;
        pf_st    <= PF_LOAD;
      end else if (pf_cont) begin
        slot_qpn  <= qpn;
        slot_idx  <= cache_end;
        pf_pend_q <= pb.sq_pi - cache_end;
        pf_end_q  <= (sq_mask + 16'd1) - (cache_end & sq_mask);
        pf_dhi_q  <= pb.sq_hi - cache_end;
        pf_addr_q <= qc.sq_base + {42'd0, (cache_end & sq_mask), 6'd0};
        pf_st     <= PF_CALC;
      end
      PF_LOAD: begin
        begin
          logic [15:0] msk;
          msk       = 16'((32'd1 << st_rd.sq_log) - 1);
          pf_pend_q <= pb_rd.sq_hi - as_rd.wqe_idx;
          pf_end_q  <= (msk + 16'd1) - (as_rd.wqe_idx & msk);
          pf_dhi_q  <= pb_rd.sq_hi - as_rd.wqe_idx;
          slot_idx  <= as_rd.wqe_idx;
          pf_addr_q <= st_rd.sq_base + {42'd0, (as_rd.wqe_idx & msk), 6'd0};
        end
        pf_st <= (!st[I_IDLE] && st_rd.state == QPS_RTS && !as_rd.err && !as_rd.loaded
                  && as_rd.wqe_idx != pb_rd.sq_hi) ? PF_CALC : PF_IDLE;
      end
      PF_CALC: pf_st <= (st[I_IDLE]) ? PF_IDLE : PF_NOK;
      PF_NOK: begin
        begin
          logic [6:0] n, k;
          n = (pf_pend_c < pf_end_c) ? pf_pend_c : pf_end_c;
          k = (pf_dhi_c < n) ? pf_dhi_c : n;
          pf_n_q   <= 16'(n);
          pf_nok_q <= 16'(k);
          slot_end <= slot_idx + 16'(n);
        end
        pf_st <= (st[I_IDLE]) ? PF_IDLE : PF_REQ;
      end
      default: begin   // PF_REQ
        if (st[I_IDLE]) pf_st <= PF_IDLE;
        else if (pf_issue && m_rd_ready) begin
          slot       <= 1'b1;
          slot_stale <= 1'b0;
          pf_st      <= PF_IDLE;
        end
      end
    endcase
    if (pf_take) slot <= 1'b0;
    // a control op re-initialising a QP: the slot's SQEs may be the old incarnation's
    if (stale_mark) slot_stale <= 1'b1;
    if (rst) begin
      pf_st <= PF_IDLE;
      slot  <= 1'b0;
    end
  end

  // the FSM's read: distances clamped to SQE_BATCH and the address, every cycle
  logic [6:0]  fe_hi_c, fe_pi_c, fe_end_c, fe_dhi_c, fe_n, fe_nok;
  logic [63:0] fe_addr_q;
  always_ff @(posedge clk) begin
    logic [15:0] dhi;
    dhi       = pb.sq_hi - a.wqe_idx;
    fetch_end <= a.wqe_idx + nfetch;   // (the cache descriptor takes it a cycle late)
    fe_hi_c   <= clamp_batch(dhi);
    fe_dhi_c  <= dhi[15] ? 7'd0 : clamp_batch(dhi);
    fe_pi_c   <= clamp_batch(pb.sq_pi - a.wqe_idx);
    fe_end_c  <= clamp_batch((sq_mask + 16'd1) - (a.wqe_idx & sq_mask));
    fe_addr_q <= qc.sq_base + {42'd0, (a.wqe_idx & sq_mask), 6'd0};
  end
  always_comb begin
    fe_n   = adv_lim ? fe_hi_c : fe_pi_c;
    if (fe_end_c < fe_n) fe_n = fe_end_c;
    nfetch = (fe_n == '0) ? 16'd1 : 16'(fe_n);
    // the SQEs of the read that the requester has sent (below its sq_hi): the core's
    // SQE shadow may serve only those
    fe_nok = (fe_dhi_c < 7'(nfetch)) ? fe_dhi_c : 7'(nfetch);
  end
  assign m_rd_valid = fetch || pf_issue;
  assign m_rd_addr  = fetch ? fe_addr_q : pf_addr_q;
  assign m_rd_len   = {10'd0, fetch ? nfetch : pf_n_q, 6'd0};
  assign m_rd_nok   = fetch ? 16'(fe_nok) : pf_nok_q;

  logic unused;
  assign unused = ^{qc, pb, a, st_rd, as_rd, pb_rd, cache_qpn};

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (pf_st inside {PF_IDLE, PF_LOAD, PF_CALC, PF_NOK, PF_REQ})
        else $error("fabnic_roce_cpl_rd: illegal look-ahead state");
      assert (!(fetch && pf_issue)) else $error("fabnic_roce_cpl_rd: two reads at once");
      assert (!(pf_issue && pf_n_q == '0)) else $error("fabnic_roce_cpl_rd: empty read");
      assert (!(pf_take && !slot)) else $error("fabnic_roce_cpl_rd: take without a slot");
      if (fetch) begin
        logic [15:0] lim, pend, to_end, n, d;
        lim    = adv_lim ? pb.sq_hi : pb.sq_pi;
        pend   = lim - a.wqe_idx;
        to_end = (sq_mask + 16'd1) - (a.wqe_idx & sq_mask);
        n      = (pend < to_end) ? pend : to_end;
        if (n > 16'(SQE_BATCH)) n = 16'(SQE_BATCH);
        if (n == 16'd0) n = 16'd1;
        assert (nfetch == n) else $error("fabnic_roce_cpl_rd: nfetch");
        assert (cache_own == (cache_qpn == qpn));
        d = pb.sq_hi - a.wqe_idx;
        if (d[15]) d = 16'd0;
        assert (m_rd_nok == ((d < n) ? d : n)) else $error("fabnic_roce_cpl_rd: nok");
        assert (m_rd_addr == qc.sq_base + {42'd0, (a.wqe_idx & sq_mask), 6'd0});
      end
    end
  end
`endif

endmodule

`resetall
