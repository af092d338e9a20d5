// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_req_ev: event intake of the requester (fabnic_roce_req). Chooses the next
// event while the visit FSM is idle (idle = S_IDLE), holds the active FIFO (QPs with work,
// each at most once) and drives the one read port of the context RAMs.
//
// Priority in S_IDLE: control first, then prefetched QPs and doorbells taking turns (a
// doorbell reads no SQEs, so it may come between prefetched visits; with many QPs
// posting at once, holding doorbells until the prefetch queue ran dry left the active
// FIFO, and so the prefetch, empty); completer events and plain visits (their SQE reads
// would come after the queued ones) only while the prefetch holds no QP.
// pq_old_q: prefetch entries (queued or in the stage) older than the last QP init. A QP
// re-initialised while queued has in_sched 0 and its visit drops it; a doorbell taken
// before that visit would schedule the QP again, and the old entry would then pass as
// current (same SQ index 0) and send the old SQEs. So doorbells wait until those entries
// are visited (inits are rare: QP set-up).
//
// The take_* outputs are the handshakes of the event ports (combinational from their
// valids, by priority). The RAM read port serves the visit FSM in S_IDLE and the
// prefetch stage (pf_go) only while a visit is under way.
//
// Parameters
//   NUM_QP    QPs, the active FIFO's depth (one entry per QP: never full)
//   PF_DEPTH  the prefetch queue's depth (for the width of pq_cnt)
//   QPN_W     derived
`default_nettype none

module fabnic_roce_req_ev #(
    parameter int NUM_QP   = 1024,
    parameter int PF_DEPTH = 4,
    parameter int QPN_W    = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic                      idle,
    input  wire logic                      ctl_valid,
    input  wire logic                      ctl_init,    // control op 0 (init send side)
    input  wire logic [QPN_W-1:0]          ctl_qpn,
    input  wire logic                      ev_valid,
    input  wire logic [QPN_W-1:0]          ev_qpn,
    input  wire logic                      db_valid,
    input  wire logic [QPN_W-1:0]          db_qpn,
    input  wire logic                      pq_valid,
    input  wire logic [QPN_W-1:0]          pq_qpn,
    input  wire logic [$clog2(PF_DEPTH):0] pq_cnt,
    input  wire logic                      pf_active,
    input  wire logic                      pf_busy,
    input  wire logic                      pf_go,

    output logic                           take_ctl,
    output logic                           take_ev,
    output logic                           take_pf,
    output logic                           take_db,
    output logic                           take_act,

    // active FIFO
    input  wire logic                      act_in_valid,
    input  wire logic [QPN_W-1:0]          act_in_qpn,
    output logic                           act_valid,
    output logic      [QPN_W-1:0]          act_qpn,

    output logic                           rd_en,
    output logic      [QPN_W-1:0]          rd_addr
);

  logic [7:0] pq_old_q;
  logic       db_last_q, pq_old0_q;   // pq_old0_q: pq_old_q == 0
  // the five takes are exclusive; each is one flat product of valids and registers
  always_comb begin
    take_ctl = idle && ctl_valid;
    take_ev  = idle && !ctl_valid && !pf_busy && ev_valid;
    take_pf  = idle && !ctl_valid && pq_valid && !(db_valid && !db_last_q);
    take_db  = idle && !ctl_valid && db_valid && pq_old0_q && !(ev_valid && !pf_busy)
               && !(pq_valid && db_last_q);
    take_act = idle && !ctl_valid && !pf_busy && !ev_valid && !db_valid && act_valid;
  end
  always_ff @(posedge clk) begin
    if (take_db)      db_last_q <= 1'b1;
    else if (take_pf) db_last_q <= 1'b0;
    if (take_ctl && ctl_init) begin
      pq_old_q  <= 8'(pq_cnt) + 8'(pf_active);
      pq_old0_q <= pq_cnt == '0 && !pf_active;
    end else if (take_pf && !pq_old0_q) begin
      pq_old_q  <= pq_old_q - 8'd1;
      pq_old0_q <= pq_old_q == 8'd1;
    end
    if (rst) begin
      db_last_q <= 1'b0;
      pq_old_q  <= '0;
      pq_old0_q <= 1'b1;
    end
  end

  // act_valid is a register equal to the FIFO's out_valid (the pointer compare of a
  // NUM_QP-deep FIFO is not on the event pick's path)
  logic                    act_in_ready, act_fifo_valid, act_pop, act_v_q;
  logic [$clog2(NUM_QP):0] act_cnt;
  assign act_pop = take_act || pf_go;
  fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(NUM_QP)) u_active (
      .clk, .rst,
      .in_valid(act_in_valid), .in_ready(act_in_ready), .in_data(act_in_qpn),
      .out_valid(act_fifo_valid), .out_ready(act_pop), .out_data(act_qpn),
      .status_count(act_cnt)
  );
  // act_v_q: the FIFO holds an entry, act_m_q: two or more (from registers and the push
  // and pop of the cycle; the FIFO's count is only compared with 3)
  logic act_m_q;
  always_ff @(posedge clk) begin
    act_v_q <= act_in_valid || (act_pop ? act_m_q : act_v_q);
    if (act_in_valid && !act_pop)      act_m_q <= act_v_q;
    else if (act_pop && !act_in_valid) act_m_q <= act_cnt > ($clog2(NUM_QP)+1)'(2);
    if (rst) begin
      act_v_q <= 1'b0;
      act_m_q <= 1'b0;
    end
  end
  assign act_valid = act_v_q;

  // the read address: an AND-OR of the exclusive takes (pf_go never in S_IDLE)
  always_comb begin
    rd_en   = take_ctl || take_pf || take_ev || take_db || act_pop;
    rd_addr = ({QPN_W{take_ctl}} & ctl_qpn) | ({QPN_W{take_pf}} & pq_qpn)
            | ({QPN_W{take_ev}} & ev_qpn) | ({QPN_W{take_db}} & db_qpn)
            | ({QPN_W{act_pop}} & act_qpn);
  end

  logic unused;
  assign unused = act_fifo_valid;   // (checked against act_v_q)

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (act_m_q == (act_cnt > ($clog2(NUM_QP)+1)'(1)))
        else $error("fabnic_roce_req_ev: act_m_q differs from the FIFO's count");
      assert (act_v_q == act_fifo_valid)
        else $error("fabnic_roce_req_ev: act_valid differs from the FIFO's out_valid");
      assert (!act_in_valid || act_in_ready)
        else $error("fabnic_roce_req_ev: active FIFO overflow (QP queued twice)");
      assert (pq_old0_q == (pq_old_q == '0))
        else $error("fabnic_roce_req_ev: pq_old0_q differs from pq_old_q == 0");
      assert ($onehot0({take_ctl, take_ev, take_pf, take_db, take_act, pf_go}))
        else $error("fabnic_roce_req_ev: two events taken in one cycle");
    end
  end
`endif

endmodule

`resetall
