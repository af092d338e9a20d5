// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl_ev: event intake of the completer (fabnic_roce_cpl). Picks the next
// event while the completer's FSM is idle (idle = S_IDLE) and drives the one read port
// of its context RAMs.
//
// Sources, in priority order: control ops, host write faults, response headers, kicks
// from the requester, payload-read faults, and (when none is waiting) a timer visit of
// the next QP of a round-robin sweep. Control ops, write faults, kicks and payload-read
// faults are rare; each lands in a one-entry register whose ready is the register's
// empty flag (a flop), so no combinational path runs from a valid to a ready. Response
// headers are the hot path and are taken straight from the port: s_hdr_ready is a
// function of flops only (idle and the two higher-priority registers), so the header is
// taken in the cycle it is offered (no added cycle on the ACK and READ-response paths).
//
// The take_* outputs are exclusive and are flat products of idle, the registers' full
// flags and s_hdr_valid. rd_en / rd_addr: the RAM read of the taken event, or (while the
// FSM is busy) the SQE look-ahead's read of the waiting header's QP (pf_go).
//
// Parameters
//   NUM_QP   QPs (the sweep wraps at NUM_QP - 1)
//   QPN_W    derived
`default_nettype none

module fabnic_roce_cpl_ev #(
    parameter int NUM_QP = 1024,
    parameter int QPN_W  = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic             idle,        // the FSM is in S_IDLE
    input  wire logic             pf_go,       // the look-ahead reads the header's QP

    input  wire logic             s_ctl_valid,
    output logic                  s_ctl_ready,
    input  wire logic             s_ctl_op,
    input  wire logic [QPN_W-1:0] s_ctl_qpn,
    input  wire logic [23:0]      s_ctl_psn,
    input  wire logic             s_hdr_valid,
    output logic                  s_hdr_ready,
    input  wire logic [QPN_W-1:0] s_hdr_qpn,
    input  wire logic             s_kick_valid,
    output logic                  s_kick_ready,
    input  wire logic [QPN_W-1:0] s_kick_qpn,
    input  wire logic             s_wf_valid,
    output logic                  s_wf_ready,
    input  wire logic [QPN_W-1:0] s_wf_qpn,
    input  wire logic             s_pf_valid,
    output logic                  s_pf_ready,
    input  wire logic [QPN_W-1:0] s_pf_qpn,

    output logic                  ctl_pend,    // a control op is waiting (for the look-ahead)
    output logic                  take_ctl,
    output logic                  take_wf,
    output logic                  take_pkt,
    output logic                  take_kick,
    output logic                  take_pf,
    output logic                  take_tmr,
    output logic                  ctl_op,      // the waiting control op's fields
    output logic      [23:0]      ctl_psn,

    output logic                  rd_en,
    output logic      [QPN_W-1:0] rd_addr
);
  logic             ctl_v_q, wf_v_q, kick_v_q, pf_v_q;
  logic [QPN_W-1:0] ctl_qpn_q, wf_qpn_q, kick_qpn_q, pf_qpn_q, sweep_q;

  assign s_ctl_ready  = !ctl_v_q;
  assign s_wf_ready   = !wf_v_q;
  assign s_kick_ready = !kick_v_q;
  assign s_pf_ready   = !pf_v_q;
  assign s_hdr_ready  = idle && !ctl_v_q && !wf_v_q;
  assign ctl_pend     = ctl_v_q;

  always_comb begin
    take_ctl  = idle && ctl_v_q;
    take_wf   = idle && !ctl_v_q && wf_v_q;
    take_pkt  = idle && !ctl_v_q && !wf_v_q && s_hdr_valid;
    take_kick = idle && !ctl_v_q && !wf_v_q && !s_hdr_valid && kick_v_q;
    take_pf   = idle && !ctl_v_q && !wf_v_q && !s_hdr_valid && !kick_v_q && pf_v_q;
    take_tmr  = idle && !ctl_v_q && !wf_v_q && !s_hdr_valid && !kick_v_q && !pf_v_q;
    rd_en     = idle || pf_go;
    // an AND-OR of the takes (exclusive); the header's QP also when not idle (pf_go)
    rd_addr   = ({QPN_W{take_ctl}} & ctl_qpn_q) | ({QPN_W{take_wf}} & wf_qpn_q)
              | ({QPN_W{take_pkt || !idle}} & s_hdr_qpn) | ({QPN_W{take_kick}} & kick_qpn_q)
              | ({QPN_W{take_pf}} & pf_qpn_q) | ({QPN_W{take_tmr}} & sweep_q);
  end

  always_ff @(posedge clk) begin
    if (s_ctl_valid && s_ctl_ready) begin
      ctl_v_q <= 1'b1; ctl_qpn_q <= s_ctl_qpn; ctl_op <= s_ctl_op; ctl_psn <= s_ctl_psn;
    end else if (take_ctl) begin
      ctl_v_q <= 1'b0;
    end
    if (s_wf_valid && s_wf_ready) begin
      wf_v_q <= 1'b1; wf_qpn_q <= s_wf_qpn;
    end else if (take_wf) begin
      wf_v_q <= 1'b0;
    end
    if (s_kick_valid && s_kick_ready) begin
      kick_v_q <= 1'b1; kick_qpn_q <= s_kick_qpn;
    end else if (take_kick) begin
      kick_v_q <= 1'b0;
    end
    if (s_pf_valid && s_pf_ready) begin
      pf_v_q <= 1'b1; pf_qpn_q <= s_pf_qpn;
    end else if (take_pf) begin
      pf_v_q <= 1'b0;
    end
    if (take_tmr) sweep_q <= (32'(sweep_q) == NUM_QP - 1) ? '0 : sweep_q + 1'b1;
    if (rst) begin
      ctl_v_q  <= 1'b0;
      wf_v_q   <= 1'b0;
      kick_v_q <= 1'b0;
      pf_v_q   <= 1'b0;
      sweep_q  <= '0;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert ($onehot0({take_ctl, take_wf, take_pkt, take_kick, take_pf, take_tmr}))
        else $error("fabnic_roce_cpl_ev: takes not exclusive");
      assert (!idle || $onehot({take_ctl, take_wf, take_pkt, take_kick, take_pf, take_tmr}))
        else $error("fabnic_roce_cpl_ev: idle without a take");
      // a one-entry register is written only when empty (never overflows)
      assert (!(s_ctl_valid && s_ctl_ready && ctl_v_q && !take_ctl));
      assert (!(s_wf_valid && s_wf_ready && wf_v_q && !take_wf));
    end
  end
`endif

endmodule

`resetall
