// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl: RC completer (the requester's receive side and its timers).
//
// Per QP (block RAM): the oldest unacknowledged PSN (una), the SQ index and first PSN
// of the oldest uncompleted WQE, a copy of that WQE's SQE fields once loaded, retry
// and RNR-retry budgets, the retransmission timer, and the error state
// (fabnic_roce_cpl_pkg::cpl_state_t).
//
// Inputs, one at a time (fabnic_roce_cpl_ev picks them): control (init/query), local
// faults from the core (a write of this engine answered with a BRESP error; a request
// frame sent with its payload read failed), response packets (ACK, NAK, RNR NAK, READ
// responses, atomic ACKs) with their payload, kicks from the requester, and a timer
// sweep that visits QPs round-robin between packets.
//
// Completion ("advance"): starting at the oldest WQE, re-read its SQE (DMA, up to
// SQE_BATCH per read, one 512-bit beat each, fabnic_roce_cpl_rd; unused ones are
// discarded), compute its PSN span (deterministic, see fabnic_roce_req), and complete
// SEND/WRITE WQEs whose last PSN is acknowledged; READ and atomic WQEs complete when
// their response arrives. A CQE goes out for signaled WQEs and for every error. An ACK
// never moves una past a READ/atomic whose response is missing (the timer re-requests
// it).
//
// Errors: NAK sequence error -> go-back-N rewind (retry budget); RNR NAK -> wait the
// time its timer code means (IBTA table, fabnic_roce_cpl_pkg::RNR_TICKS: in ticks of
// cfg_timer_tick cycles, exact at 4.096 us a tick, the code kept in the state word
// while rnr_wait is set), then rewind (RNR budget, 7 = infinite); remote
// access/invalid/operational NAK, exhausted budgets, and the requester's local errors ->
// the oldest WQE completes with the error status, the QP enters ERR (the requester is
// told to stop) and every further posted WQE completes with WR_FLUSH_ERR. A write fault (READ data or atomic
// value not written) is such an error with LOC_QP_OP_ERR; a payload-read fault is
// remembered (pay_err) until the next progress, and a retry budget spent with it set
// ends in LOC_QP_OP_ERR instead of RETRY_EXC_ERR. Both are decided in S_FLT from
// terms registered in S_DISPATCH. The requester's local error (lerr) is acted upon
// when the advance reaches its WQE; the WQEs sent before it may lack an AckReq (the
// visit ended on the error), so for such a QP the timer asks for una alone (a type 2
// event, which the requester serves although stopped) instead of a rewind.
// An SQE beat with an AXI error (s_rd_tuser) is not data: the CQE of that WQE carries
// its SQ index (ones above it) for the wr_id, opcode SEND and byte_len 0; in an
// advance S_WAIT, or S_CQE when it chains the beat, sends it to S_ERR: the WQE
// completes LOC_QP_OP_ERR, the QP enters ERR and the rest are flushed (a re-read for
// S_ERR / S_FLUSH completes with that state's status).
//
// Selective repeat (QP context bit sr, docs/roce_sr.md): a SACK (0xC0) acknowledges
// like an ACK of its PSN; its bitmap (base = PSN + 1) asks for the missing PSNs below
// the highest PSN it marks that were not resent yet (per-QP rtx_hi): one event of type
// 3 ("resend this PSN", with the oldest uncompleted WQE as the start of the requester's
// SQE walk; PSNs inside a READ other than its first are skipped there) per missing
// PSN. The retransmission timer (and the wait after an RNR NAK) resends only una (type
// 2) instead of rewinding, and lowers rtx_hi to una + 1 so the next SACK asks again for
// holes whose resends were lost. una is exported to the requester (window cap) on
// every state write.
// SR probe (cfg_sr_probe ticks, 0 = off): an SR QP whose requester is stalled (every
// posted WQE sent, or cfg_sr_inflight PSNs in flight) and which has heard no response at
// all for that long resends, if every posted WQE was sent (a tail), every PSN of
// [una, psn_hi) once, else (window stall) una only (type 3 events, as for a SACK;
// rtx_hi set past the resent PSNs) without spending its retry budget. If silence goes
// on, it probes again after twice the time, then four times (3 probes per no-progress
// period at most); the retransmission timer runs from the first probe; progress
// re-arms the probe.
// READ responses of an SR QP are placed out of order too: a response for a PSN above
// una inside the oldest WQE (a READ whose request was executed) and less than SR_W
// above una is placed at its offset and marked in a per-QP bitmap (rr_bmp, bit i = PSN
// una + i); an in-order response moves una over the marked run after it. Holes at least
// cfg_sr_reorder below the highest marked response are asked for once each (rr_rtx_hi),
// as SACK holes are, with events that carry `one`: the requester re-requests exactly
// that response packet.
//
// SQE look-ahead (PREFETCH=1, fabnic_roce_cpl_rd): while a response is being handled,
// the look-ahead reads the next waiting header's QP state and, if its oldest sent WQE
// is not loaded, issues the SQE read; it also reads ahead for the QP being handled. Its
// read sits in a one-entry slot that becomes the cache descriptor (cache_qpn_q /
// next_idx_q / cache_end_q / more_q) at the next fetch decision with the current read's
// beats consumed; the cache logic then uses its beats (hit) or drains them (miss).
//
// Submodules: fabnic_roce_cpl_ev (event intake, registered readies), fabnic_roce_cpl_rd
// (SQE reads and the look-ahead), fabnic_roce_cpl_post (S_POST / S_PLACE decide
// helpers), fabnic_roce_cpl_sack (SR resend planner), fabnic_roce_mr_table +
// fabnic_roce_xlate_cache (READ / atomic buffer translation).
//
// Per-QP state and hazards: one event at a time owns the QP's state word (read in the
// pick cycle, loaded in S_LOAD, written back in S_WB), so two operations on one QP are
// never in flight; the look-ahead only reads. Rule: one operation per QP in flight, the
// event, from S_LOAD to S_WB (asserted: no pick and no state write outside those).
// FSM: two-process form (cpl_st_e in fabnic_roce_cpl_pkg, one-hot; one combinational
// block computes the next state and the next value of every event register, defaults
// hold; the flops only take them). Decisions are registered one state ahead of the state
// that acts on them ("decide in one stage, act in the next"); the registered
// stand-ins and the states that keep them are listed in docs/roce_engine.md
// ("Completer") and each is checked by an assertion at the end of this file.
//
// Handshakes: s_ctl_ready, s_wf_ready, s_kick_ready, s_pf_ready are flops (one-entry
// registers in fabnic_roce_cpl_ev) and s_hdr_ready depends on flops only. m_cqe_valid,
// m_ev_valid, m_rd_valid, m_wr_valid are decodes of registers. Four combinational
// paths cross the module by design: in S_PLACE the READ-response payload streams
// through (s_axis_tvalid -> m_wr_tvalid, m_wr_tready -> s_axis_tready), and S_CQE
// takes the next SQE beat in the cycle the CQE is accepted (m_cqe_ready ->
// s_rd_tready) when that beat is there (s_rd_tvalid -> s_rd_tready). In the core the
// other ends are the receive payload queue, the write arbiter, the CQE queue and the
// SQE FIFO.
`default_nettype none

module fabnic_roce_cpl #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_QP = 1024,
    parameter int NUM_MR = 1024,
    parameter int SQE_BATCH = 32,   // SQEs per read at most
    parameter int SR_W   = 64,      // selective repeat: the requester's window (PSNs)
    parameter bit PREFETCH = 1'b1,  // SQE look-ahead for the next response's QP (the core's
                                    // SQE FIFO then holds 2 * SQE_BATCH beats)
    parameter int CNT_W  = 32,
    parameter int QPN_W  = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic                         clk,
    input  wire logic                         rst,

    input  wire logic                         st_wr_en,
    input  wire logic [QPN_W-1:0]             st_wr_addr,
    input  wire fabnic_roce_pkg::qpc_t        st_wr_data,
    input  wire logic                         mr_wr_valid,
    input  wire logic [$clog2(NUM_MR)-1:0]    mr_wr_index,
    input  wire fabnic_roce_pkg::mr_entry_t   mr_wr_entry,
    input  wire logic                         pub_wr_en,
    input  wire logic [QPN_W-1:0]             pub_wr_addr,
    input  wire logic [15:0]                  pub_sq_pi,
    input  wire logic [15:0]                  pub_sq_hi,
    input  wire logic [23:0]                  pub_psn_hi,
    input  wire logic                         pub_lerr,
    input  wire logic [15:0]                  pub_lerr_idx,
    input  wire logic [7:0]                   pub_lerr_status,

    input  wire logic [23:0]                  cfg_timer_tick,
    // SR: resend a SACK hole only when a PSN at least this far above it is marked
    input  wire logic [5:0]                   cfg_sr_reorder,
    input  wire logic [23:0]                  cfg_sr_inflight,  // SR: the requester's cap (<= SR_W)
    // SR: ticks without progress before one probe resend of una (0 = off)
    input  wire logic [7:0]                   cfg_sr_probe,

    // control: op 0 = init (psn), 1 = query (una, error)
    input  wire logic                         s_ctl_valid,
    output logic                              s_ctl_ready,
    input  wire logic                         s_ctl_op,
    input  wire logic [QPN_W-1:0]             s_ctl_qpn,
    input  wire logic [23:0]                  s_ctl_psn,
    output logic                              m_ctl_done,
    output logic      [23:0]                  m_ctl_una,
    output logic                              m_ctl_err,
    output logic      [7:0]                   m_ctl_err_status,
    output logic      [2:0]                   m_ctl_state,      // QP state in the context

    // response packets
    input  wire fabnic_roce_pkg::roce_hdr_t   s_hdr,
    input  wire logic                         s_hdr_valid,
    output logic                              s_hdr_ready,
    input  wire logic [DATA_W-1:0]            s_axis_tdata,
    input  wire logic [KEEP_W-1:0]            s_axis_tkeep,
    input  wire logic                         s_axis_tvalid,
    output logic                              s_axis_tready,
    input  wire logic                         s_axis_tlast,
    input  wire logic                         s_axis_tuser,
    input  wire logic [15:0]                  s_hdr_plen,     // payload bytes of the packet

    input  wire logic                         s_kick_valid,
    output logic                              s_kick_ready,
    input  wire logic [QPN_W-1:0]             s_kick_qpn,

    // host write faults: a placement write (READ response, atomic result) of this QP
    // got a BRESP error
    input  wire logic                         s_wf_valid,
    output logic                              s_wf_ready,
    input  wire logic [QPN_W-1:0]             s_wf_qpn,
    // a request frame of this QP left with its payload read failed (sent flagged bad)
    input  wire logic                         s_pf_valid,
    output logic                              s_pf_ready,
    input  wire logic [QPN_W-1:0]             s_pf_qpn,

    // events to the requester: type 0 rewind, 1 error, 2 resend one PSN (SR timer),
    // 3 resend one PSN (SR SACK hole; the requester skips PSNs inside a READ)
    output logic                              m_ev_valid,
    input  wire logic                         m_ev_ready,
    output logic      [1:0]                   m_ev_type,
    output logic      [QPN_W-1:0]             m_ev_qpn,
    output logic      [15:0]                  m_ev_wqe_idx,
    output logic      [23:0]                  m_ev_wqe_psn,
    output logic      [23:0]                  m_ev_psn,
    output logic      [23:0]                  m_ev_wqe_ssn,   // SSN of the oldest WQE (SR)
    output logic                              m_ev_one,       // type 3: one READ response

    // SQE re-reads
    output logic      [63:0]                  m_rd_addr,
    output logic      [31:0]                  m_rd_len,
    output logic      [15:0]                  m_rd_nok,   // leading SQEs the requester sent
    output logic                              m_rd_valid,
    input  wire logic                         m_rd_ready,
    input  wire logic [511:0]                 s_rd_tdata,
    input  wire logic                         s_rd_tvalid,
    output logic                              s_rd_tready,
    input  wire logic                         s_rd_tlast,
    input  wire logic                         s_rd_tuser,

    // placement of READ responses and atomic results
    output logic      [63:0]                  m_wr_addr,
    output logic      [31:0]                  m_wr_len,
    output logic      [QPN_W-1:0]             m_wr_qpn,   // (write-fault attribution)
    output logic                              m_wr_valid,
    input  wire logic                         m_wr_ready,
    output logic      [DATA_W-1:0]            m_wr_tdata,
    output logic      [KEEP_W-1:0]            m_wr_tkeep,
    output logic                              m_wr_tvalid,
    input  wire logic                         m_wr_tready,
    output logic                              m_wr_tlast,

    output fabnic_roce_pkg::cqe_req_t         m_cqe,
    output logic                              m_cqe_valid,
    input  wire logic                         m_cqe_ready,

    output logic      [CNT_W-1:0]             cnt_acks,
    output logic      [CNT_W-1:0]             cnt_naks,
    output logic      [CNT_W-1:0]             cnt_read_resp,
    output logic      [CNT_W-1:0]             cnt_rr_ooo,     // SR: READ responses out of order
    output logic      [CNT_W-1:0]             cnt_drop_psn,
    output logic      [CNT_W-1:0]             cnt_timeouts,
    output logic      [CNT_W-1:0]             cnt_retry_exc,
    output logic      [CNT_W-1:0]             cnt_sack_rx,
    output logic      [CNT_W-1:0]             cnt_sr_probe,

    // una of every state write (the requester's SR window cap)
    output logic                              una_wr_en,
    output logic      [QPN_W-1:0]             una_wr_addr,
    output logic      [23:0]                  una_wr_data
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;
  import fabnic_roce_cpl_pkg::*;

  if (SQE_BATCH < 1 || SQE_BATCH > 64) begin : g_check_batch
    $error("fabnic_roce_cpl: SQE_BATCH must be 1..64");
  end
  if (SR_W > 64) begin : g_check_sr_w
    $error("fabnic_roce_cpl: SR_W must be <= 64 (the SACK and READ-response bitmaps)");
  end

  // ---------------------------------------------------------------- tables
  qpc_t             st_rd;
  cpl_state_t       as_rd;
  cpl_pub_t         pb_rd;
  logic             rd_en, as_wr_en;
  logic [QPN_W-1:0] rd_addr;

  // event registers (next value *_d, computed by the FSM's combinational block)
  cpl_st_e          st_q, st_d;
  logic [QPN_W-1:0] qpn_q, qpn_d;
  cpl_state_t       a_q, a_d;
  qpc_t             qc_q, qc_d;
  cpl_pub_t         pb_q, pb_d;

  fabnic_ram_sdp #(.DATA_W($bits(qpc_t)), .DEPTH(NUM_QP)) u_static (
      .clk, .wr_en(st_wr_en), .wr_be(1'b1), .wr_addr(st_wr_addr), .wr_data(st_wr_data),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(st_rd)
  );
  fabnic_ram_sdp #(.DATA_W($bits(cpl_state_t)), .DEPTH(NUM_QP)) u_state (
      .clk, .wr_en(as_wr_en), .wr_be(1'b1), .wr_addr(qpn_q), .wr_data(a_q),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(as_rd)
  );
  fabnic_ram_sdp #(.DATA_W($bits(cpl_pub_t)), .DEPTH(NUM_QP)) u_pub (
      .clk, .wr_en(pub_wr_en), .wr_be(1'b1), .wr_addr(pub_wr_addr),
      .wr_data({pub_sq_pi, pub_sq_hi, pub_psn_hi, pub_lerr, pub_lerr_idx, pub_lerr_status}),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(pb_rd)
  );

  logic [31:0] sqe_lkey_q, sqe_lkey_d;   // the loaded READ / atomic's lkey and local address
  logic [63:0] sqe_va_q, sqe_va_d;       // (the MR check's key and VA)
  logic [15:0] plen_q, plen_d;       // payload bytes of the response being handled
  logic        plen0_q, plen0_d;     // ... is 0
  // MR copy: translation of READ/atomic local buffers
  logic        chk_valid, chk_ready, chk_res_valid, chk_ok, unused_mr_wr_ready;
  logic [63:0] chk_addr;
  mr_err_e     unused_chk_err;
  logic [7:0]  unused_chk_id;
  logic [CNT_W-1:0] unused_mr_cnt [6];
  logic [63:0] chk_lo, chk_off;   // region of an ok check (lkey translation cache)
  logic [64:0] chk_hi;
  logic [3:0]  chk_racc;
  fabnic_roce_mr_table #(.NUM_MR(NUM_MR), .CNT_W(CNT_W)) u_mr (
      .clk, .rst,
      .wr_valid(mr_wr_valid), .wr_ready(unused_mr_wr_ready), .wr_index(mr_wr_index),
      .wr_entry(mr_wr_entry),
      .s_chk_valid(chk_valid), .s_chk_ready(chk_ready), .s_chk_key(sqe_lkey_q),
      .s_chk_va(sqe_va_q), .s_chk_len(a_q.w_len), .s_chk_access(4'(1 << MR_ACC_LOCAL_WRITE)),
      .s_chk_pd(qc_q.pd), .s_chk_id(8'd0),
      .m_chk_valid(chk_res_valid), .m_chk_ready(1'b1), .m_chk_ok(chk_ok),
      .m_chk_err(unused_chk_err), .m_chk_addr(chk_addr), .m_chk_id(unused_chk_id),
      .m_chk_lo(chk_lo), .m_chk_hi(chk_hi), .m_chk_off(chk_off), .m_chk_acc(chk_racc),
      .cnt_chk(unused_mr_cnt[0]), .cnt_err_invalid(unused_mr_cnt[1]),
      .cnt_err_tag(unused_mr_cnt[2]), .cnt_err_pd(unused_mr_cnt[3]),
      .cnt_err_access(unused_mr_cnt[4]), .cnt_err_bounds(unused_mr_cnt[5])
  );

  // ---------------------------------------------------------------- timer base
  // now_nx_q counts ticks; now_q is its value one cycle later, so S_LOAD can compare
  // the loaded timestamps against the now_q of S_DISPATCH
  logic [23:0] tick_cnt_q;
  logic [RNR_TICK_W-1:0] now_q, now_nx_q;   // 18 bits: the longest RNR wait (16 for the rest)
  always_ff @(posedge clk) begin
    if (tick_cnt_q + 24'd1 >= cfg_timer_tick) begin
      tick_cnt_q <= '0;
      now_nx_q   <= now_nx_q + 1'b1;
    end else begin
      tick_cnt_q <= tick_cnt_q + 24'd1;
    end
    now_q <= now_nx_q;
    if (rst) begin
      tick_cnt_q <= '0;
      now_nx_q   <= '0;
      now_q      <= '0;
    end
  end

  // ---------------------------------------------------------------- event intake
  logic take_ctl, take_wf, take_pkt, take_kick, take_pf, take_tmr, ctl_pend, ev_ctl_op;
  logic [23:0] ev_ctl_psn;
  logic        pf_go;
  fabnic_roce_cpl_ev #(.NUM_QP(NUM_QP)) u_ev (
      .clk, .rst, .idle(st_q[I_IDLE]), .pf_go,
      .s_ctl_valid, .s_ctl_ready, .s_ctl_op, .s_ctl_qpn, .s_ctl_psn,
      .s_hdr_valid, .s_hdr_ready, .s_hdr_qpn(QPN_W'(s_hdr.bth.dest_qp)),
      .s_kick_valid, .s_kick_ready, .s_kick_qpn,
      .s_wf_valid, .s_wf_ready, .s_wf_qpn,
      .s_pf_valid, .s_pf_ready, .s_pf_qpn,
      .ctl_pend, .take_ctl, .take_wf, .take_pkt, .take_kick, .take_pf, .take_tmr,
      .ctl_op(ev_ctl_op), .ctl_psn(ev_ctl_psn), .rd_en, .rd_addr
  );

  // ---------------------------------------------------------------- event registers
  cpl_src_e    src_q, src_d;
  cpl_st_e     cqe_ret_q, cqe_ret_d, load_ret_q, load_ret_d, ev_ret_q, ev_ret_d;
  cpl_post_e   post_q, post_d;
  logic        ctl_op_q, ctl_op_d;
  logic [23:0] ctl_psn_q, ctl_psn_d;
  roce_hdr_t   h_q, h_d;
  logic [23:0] tgt_q, tgt_d;       // ACK target (first PSN not acknowledged)
  logic        drop_q, drop_d, flushing_q, flushing_d, placing_atomic_q, placing_atomic_d;
  logic        flt_skip_q, flt_skip_d;   // S_FLT: the QP takes no fault
  logic [7:0]  cqe_status_q, cqe_status_d, nak_status_q, nak_status_d;
  logic        cqe_sig_q, cqe_sig_d;     // in S_CQE: a CQE goes out (signaled or error)
  logic        cmpl_q, cmpl_d;           // in S_CQE: the loaded WQE completes (else S_POST)
  logic        chkp_q, chkp_d;           // the loaded READ / atomic awaits its MR check
  logic        w_bad_q, w_bad_d;         // the WQE loaded in this event came with an AXI error
  logic [1:0]  ev_type_q, ev_type_d;
  logic        ev_one_q, ev_one_d;       // resend events of a READ-response hole
  logic [23:0] ev_psn_q, ev_psn_d;
  logic        rr_ooo_q, rr_ooo_d;       // placing a READ response out of order
  logic [23:0] una0_q, una0_d;           // una when the event's state was loaded
  // the SQE cache: beats of the current read belong to QP cache_qpn_q, the next one is
  // SQ index next_idx_q, the read ends before cache_end_q
  logic             more_q, more_d, stale_q, stale_d;
  logic [QPN_W-1:0] cache_qpn_q, cache_qpn_d;
  logic [15:0]      next_idx_q, next_idx_d, cache_end_q, cache_end_d;
  // registered at S_LOAD from the RAM words (the values S_DISPATCH sees)
  logic        outstanding, outstanding_d, tmo_q, tmo_d, probe_go_q, probe_go_d;
  logic        probe_due_q, probe_due_d, rnr_due_q, rnr_due_d;
  // the retransmission timeout's exponent; 31 (never, for a 16-bit tick count) while an
  // RNR wait runs: the gate sits in the decoder of 1 << t, not after the compare
  logic [4:0] tmo_exp;
  assign tmo_exp = as_rd.rnr_wait ? 5'd31 : st_rd.timeout;
  logic        in_win_q, in_win_d, rts_q, rts_d, hipi_q, hipi_d;
  logic        h_ack_q, h_ack_d, h_sack_q, h_sack_d, h_rresp_q, h_rresp_d, h_aack_q, h_aack_d;
  logic [15:0] sq_mask, sq_mask_d;
  logic [3:0]  lg_q, lg_d;
  logic [4:0]  lg_oh_q, lg_oh_d;
  // distances kept beside the registers they are taken from (see the assertions):
  // dtw = tgt - wqe_psn, dtg = tgt - w_end, dpw = psn - wqe_psn, dpe = psn - w_end
  // (psn: the response's), dhi / dpi / dle / dnx = sq_hi / sq_pi / lerr_idx / next_idx
  // - wqe_idx, each with its "is 0" and "is 1" flags
  logic [23:0] dtw_q, dtw_d, dtg_q, dtg_d, dpw_q, dpw_d, dpe_q, dpe_d;
  logic [15:0] dhi_q, dhi_d, dpi_q, dpi_d, dle_q, dle_d, dnx_q, dnx_d;
  logic        hi0_q, hi0_d, hi1_q, hi1_d, pi0_q, pi0_d, le0_q, le0_d, le1_q, le1_d;
  logic        nx0_q, nx0_d, nx1_q, nx1_d, cq_eq_q, cq_eq_d;
  logic [15:0] wqe_idx1_q, wqe_idx1_d;
  logic        m_ctl_done_d, m_ctl_err_d;
  logic [23:0] m_ctl_una_d;
  logic [7:0]  m_ctl_err_status_d;
  logic [2:0]  m_ctl_state_d;
  // SR resend planner request
  logic        sk_req_q, sk_req_d, sk_gate_q, sk_gate_d, sk_req_ready, sk_ev_valid, sk_done;
  logic [1:0]  sk_mode_q, sk_mode_d, sk_kind_q, sk_kind_d;   // kind: 0 probe, 1 SACK, 2 READ holes
  logic [23:0] sk_base_q, sk_base_d, sk_mark_q, sk_mark_d, sk_una_q, sk_una_d;
  logic [23:0] sk_phi_q, sk_phi_d, sk_ev_psn, sk_done_mark;
  logic [63:0] sk_bmp_q, sk_bmp_d;
  logic        inc_acks, inc_naks, inc_read_resp, inc_rr_ooo, inc_drop_psn, inc_timeouts,
               inc_retry_exc, inc_sack_rx, inc_sr_probe;
  logic        inc_acks_d, inc_naks_d, inc_read_resp_d, inc_rr_ooo_d, inc_drop_psn_d,
               inc_timeouts_d, inc_retry_exc_d, inc_sack_rx_d, inc_sr_probe_d;

  logic cache_hit, hit1;
  assign cache_hit = more_q && !stale_q && cq_eq_q && nx0_q;   // next beat: wqe_idx
  assign hit1      = more_q && !stale_q && cq_eq_q && nx1_q;   // next beat: wqe_idx + 1

  // ---------------------------------------------------------------- SQE beat
  // PSNs a WQE of len bytes takes (npkts at the loaded path MTU; an atomic: 1)
  function automatic logic [23:0] span_of(input logic [7:0] op, input logic [31:0] len,
                                          input logic [4:0] oh);
    logic [23:0] n;
    n = '0;
    for (int k = 0; k < 5; k++) begin
      if (oh[k]) n = n | 24'((len + ((32'd1 << (8 + k)) - 32'd1)) >> (8 + k));
    end
    if (op == WR_CMP_SWAP || op == WR_FETCH_ADD || len == '0) n = 24'd1;
    return n;
  endfunction
  sqe_t        sqe_b;              // the SQE beat at s_rd
  logic        b_rd, b_at;         // it is a READ / an atomic
  logic [23:0] span_nx, dtw_nx, dtg_nx;
  logic        cqe_go, cqe_chain, sqe_take;
  always_comb begin
    sqe_b   = sqe_decode(s_rd_tdata);
    b_rd    = sqe_b.opcode == WR_READ;
    b_at    = sqe_b.opcode == WR_CMP_SWAP || sqe_b.opcode == WR_FETCH_ADD;
    span_nx = span_of(sqe_b.opcode, sqe_b.len, lg_oh_q);
    dtw_nx  = dtw_q - span_nx;
    dtg_nx  = dtg_q - span_nx;
    // S_CQE: the CQE leaves (or none is due)
    cqe_go  = !cqe_sig_q || m_cqe_ready;
    // S_CQE retiring a WQE of an advance takes the next SQE beat itself when that WQE
    // is a SEND/WRITE the target acknowledges too (S_ADV's and S_WAIT's work in one cycle)
    // (whether that WQE completes too, psn_le(w_end_nx, tgt), is registered in cmpl_q
    // and acted upon in the next S_CQE cycle). A chained beat with an AXI error is
    // taken but not completed: S_CQE sends the advance to S_ERR (s_rd_tuser is kept out
    // of this term, which selects every field of the taken SQE)
    cqe_chain = st_q[I_CQE] && cmpl_q && cqe_go && cqe_ret_q[I_ADV] && !hi1_q && hit1
                && s_rd_tvalid && !b_rd && !b_at;
    // an SQE beat taken for the oldest WQE (S_WAIT, or S_CQE chaining the next WQE)
    sqe_take  = (st_q[I_WAIT] && s_rd_tvalid) || cqe_chain;
  end

  // ---------------------------------------------------------------- SQE reads
  logic             pf_take, slot, slot_stale;
  logic             fetched_q;   // S_FETCH's read left last cycle: cache_end_q takes its end now
  always_ff @(posedge clk) fetched_q <= !rst && st_q[I_FETCH] && m_rd_ready;
  logic [QPN_W-1:0] slot_qpn;
  logic [15:0]      slot_idx, slot_end, fetch_end;
  fabnic_roce_cpl_rd #(.NUM_QP(NUM_QP), .SQE_BATCH(SQE_BATCH), .PREFETCH(PREFETCH)) u_rd (
      .clk, .rst, .st(st_q), .adv_lim(load_ret_q[I_ADV]),
      .hdr_valid(s_hdr_valid), .hdr_qpn(QPN_W'(s_hdr.bth.dest_qp)), .ctl_pend,
      .qpn(qpn_q), .a(a_q), .qc(qc_q), .pb(pb_q), .sq_mask, .more(more_q), .stale(stale_q),
      .cache_qpn(cache_qpn_q), .cache_own(cq_eq_q), .fetched(fetched_q),
      .cache_end(cache_end_q), .st_rd, .as_rd, .pb_rd, .pf_take,
      .stale_mark(st_q[I_DISPATCH] && src_q == SRC_CTL && !ctl_op_q),
      .pf_go, .slot, .slot_qpn, .slot_idx, .slot_end, .slot_stale, .fetch_end,
      .m_rd_addr, .m_rd_len, .m_rd_nok, .m_rd_valid, .m_rd_ready
  );
  // a fetch decision (advance, error, flush with the oldest WQE not loaded) takes the
  // slot over once the current read's beats are all consumed
  always_comb begin
    pf_take = ((st_q[I_ADV] && !hi0_q) || ((st_q[I_ERR] || st_q[I_FLUSH]) && !pi0_q))
              && !a_q.loaded && slot && !more_q;
  end
  assign s_rd_tready = st_q[I_WAIT] || st_q[I_SKIP] || cqe_chain;
  assign chk_valid   = st_q[I_CHK];

  // lkey translation cache (fabnic_roce_xlate_cache, one entry, as the requester's)
  // for the local buffers of READ / atomic WQEs: the region of the last passed check;
  // emptied by any MR-table write, not filled from a check whose table read may predate
  // one. A hit in S_WAIT translates the SQE's buffer at once (no S_CHK / S_CHKW).
  logic        lc_hit;
  logic [63:0] lc_off;
  fabnic_roce_xlate_cache u_lkc (
      .clk, .rst, .mr_wr_valid,
      .fill(st_q[I_CHKW] && chk_res_valid && chk_ok && a_q.w_len != 32'd0),
      .fill_key(sqe_lkey_q), .fill_pd(qc_q.pd), .fill_acc(chk_racc), .fill_lo(chk_lo),
      .fill_hi(chk_hi), .fill_off(chk_off),
      .key(sqe_b.lkey), .pd(qc_q.pd), .va(sqe_b.laddr),
      .len(b_rd ? sqe_b.len : 32'd8),
      .need(4'(1 << MR_ACC_LOCAL_WRITE)), .hit(lc_hit), .off(lc_off)
  );

  // ---------------------------------------------------------------- CQE, events
  cqe_req_t cqe;
  always_comb begin
    cqe = '0;
    cqe.cqn      = qc_q.scq;
    cqe.wr_id    = a_q.w_wr_id;   // (the SQ index for a WQE read with an error)
    cqe.byte_len = w_bad_q ? 32'd0 : a_q.w_len;
    cqe.qpn      = 24'(qpn_q);
    cqe.status   = cqe_status_q;
    // a WQE read with an AXI error (always an error CQE) names no field of its data:
    // opcode SEND, byte_len 0
    case (w_bad_q ? WR_SEND : a_q.w_opcode)
      WR_SEND, WR_SEND_IMM:   cqe.opcode = WC_SEND;
      WR_WRITE, WR_WRITE_IMM: cqe.opcode = WC_WRITE;
      WR_READ:                cqe.opcode = WC_READ;
      WR_CMP_SWAP:            cqe.opcode = WC_CMP_SWAP;
      default:                cqe.opcode = WC_FETCH_ADD;
    endcase
  end
  assign m_cqe       = cqe;
  assign m_cqe_valid = st_q[I_CQE] && cqe_sig_q;

  assign m_ev_valid   = st_q[I_EV] || (st_q[I_SREV] && sk_ev_valid);
  assign m_ev_type    = (st_q[I_SREV]) ? 2'd3 : ev_type_q;
  assign m_ev_qpn     = qpn_q;
  assign m_ev_wqe_idx = a_q.wqe_idx;
  assign m_ev_wqe_psn = a_q.wqe_psn;
  assign m_ev_psn     = (st_q[I_SREV]) ? sk_ev_psn : ev_psn_q;
  assign m_ev_wqe_ssn = a_q.wqe_ssn;
  assign m_ev_one     = ev_one_q;

  // ---------------------------------------------------------------- placement
  // the decide helpers of S_POST and S_PLACE (registered a state ahead)
  logic [5:0]  rr_dist;            // the response's distance from una (in S_PLACE)
  logic [23:0] rr_una, una_n;
  logic [6:0]  rr_run;
  logic        rr_lt_end, rr_any_q, psn_is_una_n, psn_ooo, prog, una_lt_phi, una_ne_wp;
  logic        rd_fits, rd_place_in, post_desc, f_eq_wqe;
  logic [31:0] rd_off;
  fabnic_roce_cpl_post #(.SR_W(SR_W)) u_post (
      .clk, .st(st_q), .cqe_hold(st_q[I_CQE] && !cmpl_q), .a(a_q), .psn(h_q.bth.psn),
      .tgt(tgt_q), .una0(una0_q),
      .psn_hi(pb_q.psn_hi), .lg(lg_q), .plen(plen_q), .dpw(dpw_q), .dpe(dpe_q), .hi0(hi0_q),
      .una_n, .rr_dist, .rr_run, .rr_una, .rr_lt_end, .rr_any(rr_any_q), .rd_off,
      .psn_is_una_n, .psn_ooo, .prog, .una_lt_phi, .una_ne_wp, .f_eq_wqe, .rd_fits,
      .rd_place_in
  );
  // an in-order READ response is placed from S_POST: its write descriptor goes out there
  assign post_desc    = st_q[I_POST] && !chkp_q && post_q == P_READ && rd_place_in && !plen0_q;
  assign m_wr_valid   = st_q[I_PLACE_D] || post_desc;
  assign m_wr_addr    = placing_atomic_q ? a_q.w_haddr : a_q.w_haddr + 64'(rd_off);
  assign m_wr_len     = placing_atomic_q ? 32'd8 : 32'(plen_q);
  assign m_wr_qpn     = qpn_q;
  always_comb begin
    if (placing_atomic_q) begin
      m_wr_tdata  = DATA_W'(h_q.atomic_ack_eth.orig_data);
      m_wr_tkeep  = KEEP_W'(8'hFF);
      m_wr_tvalid = st_q[I_PLACE];
      m_wr_tlast  = 1'b1;
    end else begin
      m_wr_tdata  = s_axis_tdata;
      m_wr_tkeep  = s_axis_tkeep;
      m_wr_tvalid = st_q[I_PLACE] && s_axis_tvalid && !plen0_q;
      m_wr_tlast  = s_axis_tlast;
    end
    s_axis_tready = (st_q[I_PLACE] && !placing_atomic_q && (plen0_q || m_wr_tready))
                    || st_q[I_DRAIN];
  end

  assign as_wr_en    = st_q[I_WB];
  assign una_wr_en   = as_wr_en;
  assign una_wr_addr = qpn_q;
  assign una_wr_data = a_q.una;

  // SR: the resend planner (SACK holes, READ-response holes, probes), one request at a
  // time from S_SREV; its PSNs go out as type 3 events while the FSM waits in S_SREV
  fabnic_roce_cpl_sack u_sack (
      .clk, .rst,
      .s_valid(sk_req_q), .s_ready(sk_req_ready), .s_mode(sk_mode_q), .s_base(sk_base_q),
      .s_bmp(sk_bmp_q), .s_mark(sk_mark_q), .s_una(sk_una_q), .s_psn_hi(sk_phi_q),
      .s_reorder(cfg_sr_reorder), .s_gate(sk_gate_q),
      .m_ev_valid(sk_ev_valid), .m_ev_ready(st_q[I_SREV] && m_ev_ready),
      .m_ev_psn(sk_ev_psn), .m_done(sk_done), .m_done_mark(sk_done_mark)
  );

  // ACK of PSN p moves the target to p+1 when p is inside [una, psn_hi)
  function automatic logic in_window(input logic [23:0] p, input logic [23:0] lo,
                                     input logic [23:0] hi);
    return psn_le(lo, p) && psn_lt(p, hi);
  endfunction

  logic [2:0] syn_kind;
  assign syn_kind = h_q.aeth.syndrome[7:5];

  // Counter events are registered and counted in the next cycle, so a counter's
  // enable is a flop and not the decision logic of the state that found the event.
  always_ff @(posedge clk) begin
    if (inc_acks)      cnt_acks      <= cnt_acks + 1'b1;
    if (inc_naks)      cnt_naks      <= cnt_naks + 1'b1;
    if (inc_read_resp) cnt_read_resp <= cnt_read_resp + 1'b1;
    if (inc_rr_ooo)    cnt_rr_ooo    <= cnt_rr_ooo + 1'b1;
    if (inc_drop_psn)  cnt_drop_psn  <= cnt_drop_psn + 1'b1;
    if (inc_timeouts)  cnt_timeouts  <= cnt_timeouts + 1'b1;
    if (inc_retry_exc) cnt_retry_exc <= cnt_retry_exc + 1'b1;
    if (inc_sack_rx)   cnt_sack_rx   <= cnt_sack_rx + 1'b1;
    if (inc_sr_probe)  cnt_sr_probe  <= cnt_sr_probe + 1'b1;
    if (rst) begin
      cnt_acks      <= '0;
      cnt_naks      <= '0;
      cnt_read_resp <= '0;
      cnt_rr_ooo    <= '0;
      cnt_drop_psn  <= '0;
      cnt_timeouts  <= '0;
      cnt_retry_exc <= '0;
      cnt_sack_rx   <= '0;
      cnt_sr_probe  <= '0;
    end
  end

  // ---------------------------------------------------------------- FSM
  // One process computes the next state and the next value of every event register
  // (defaults: hold); the flops below take them. Each state decides from registers
  // (flags kept beside the registers they are taken from, or registered a state ahead)
  // and, in S_WAIT / S_CQE, from the SQE beat at s_rd.
  always_comb begin
    st_d = st_q;
    qpn_d = qpn_q; a_d = a_q; qc_d = qc_q; pb_d = pb_q; src_d = src_q;
    cqe_ret_d = cqe_ret_q; load_ret_d = load_ret_q; ev_ret_d = ev_ret_q; post_d = post_q;
    ctl_op_d = ctl_op_q; ctl_psn_d = ctl_psn_q; h_d = h_q; plen_d = plen_q; plen0_d = plen0_q;
    tgt_d = tgt_q;
    drop_d = drop_q; flushing_d = flushing_q; placing_atomic_d = placing_atomic_q;
    flt_skip_d = flt_skip_q; cqe_status_d = cqe_status_q; nak_status_d = nak_status_q;
    cqe_sig_d = cqe_sig_q; cmpl_d = cmpl_q; chkp_d = chkp_q; sqe_va_d = sqe_va_q;
    w_bad_d = w_bad_q;
    ev_type_d = ev_type_q; ev_one_d = ev_one_q; ev_psn_d = ev_psn_q;
    rr_ooo_d = rr_ooo_q; una0_d = una0_q; sqe_lkey_d = sqe_lkey_q;
    more_d = more_q; stale_d = stale_q; cache_qpn_d = cache_qpn_q; next_idx_d = next_idx_q;
    cache_end_d = cache_end_q;
    outstanding_d = outstanding; tmo_d = tmo_q; probe_go_d = probe_go_q; probe_due_d = probe_due_q;
    rnr_due_d = rnr_due_q;
    in_win_d = in_win_q;
    rts_d = rts_q; hipi_d = hipi_q; h_ack_d = h_ack_q; h_sack_d = h_sack_q;
    h_rresp_d = h_rresp_q; h_aack_d = h_aack_q;
    sq_mask_d = sq_mask; lg_d = lg_q; lg_oh_d = lg_oh_q;
    dtw_d = dtw_q; dtg_d = dtg_q; dpw_d = dpw_q; dpe_d = dpe_q;
    dhi_d = dhi_q; dpi_d = dpi_q; dle_d = dle_q; dnx_d = dnx_q;
    hi0_d = hi0_q; hi1_d = hi1_q; pi0_d = pi0_q; le0_d = le0_q; le1_d = le1_q;
    nx0_d = nx0_q; nx1_d = nx1_q; cq_eq_d = cq_eq_q; wqe_idx1_d = wqe_idx1_q;
    m_ctl_done_d = 1'b0; m_ctl_una_d = m_ctl_una; m_ctl_err_d = m_ctl_err;
    m_ctl_err_status_d = m_ctl_err_status; m_ctl_state_d = m_ctl_state;
    sk_req_d = sk_req_q && !sk_req_ready; sk_gate_d = sk_gate_q; sk_mode_d = sk_mode_q;
    sk_kind_d = sk_kind_q; sk_base_d = sk_base_q; sk_mark_d = sk_mark_q; sk_una_d = sk_una_q;
    sk_phi_d = sk_phi_q; sk_bmp_d = sk_bmp_q;
    {inc_acks_d, inc_naks_d, inc_read_resp_d, inc_rr_ooo_d, inc_drop_psn_d, inc_timeouts_d,
     inc_retry_exc_d, inc_sack_rx_d, inc_sr_probe_d} = '0;

    // the taken SQE's fields (the states below may override w_haddr: translated)
    if (sqe_take) begin
      more_d       = !s_rd_tlast;
      next_idx_d   = next_idx_q + 16'd1;
      a_d.w_opcode = sqe_b.opcode;
      a_d.w_rd     = b_rd;
      a_d.w_at     = b_at;
      a_d.w_ok     = 1'b0;
      a_d.w_flags  = sqe_b.flags;
      a_d.w_len    = b_at ? 32'd8 : sqe_b.len;
      w_bad_d      = s_rd_tuser;
      // a beat with an AXI error is not data: the wr_id is reported as unknown, ones
      // above the SQ index (the driver names the WR from its own ring bookkeeping)
      a_d.w_wr_id  = s_rd_tuser ? {48'hFFFF_FFFF_FFFF, next_idx_q} : sqe_b.wr_id;
      a_d.w_haddr  = sqe_b.laddr;
      // its end: after the WQE before it when S_CQE chains it (wqe_psn moves to w_end)
      a_d.w_end    = cqe_chain ? a_q.w_end + span_nx : a_q.wqe_psn + span_nx;
      dtg_d        = cqe_chain ? dtg_nx : dtw_nx;
      dpe_d        = cqe_chain ? dpe_q - span_nx : dpw_q - span_nx;
      sqe_va_d     = sqe_b.laddr;
      chkp_d       = 1'b0;
      sqe_lkey_d   = sqe_b.lkey;
      // the beat was SQ index wqe_idx (S_WAIT) or wqe_idx + 1 (chained): next_idx is
      // wqe_idx + 1 after either
      dnx_d = 16'd1; nx0_d = 1'b0; nx1_d = 1'b1;
    end

    unique case (1'b1)
      // pick (fabnic_roce_cpl_ev): the takes are exclusive, the RAM read is under way
      st_q[I_IDLE]: begin
        flushing_d       = 1'b0;
        placing_atomic_d = 1'b0;
        post_d           = P_NONE;
        drop_d           = 1'b0;
        chkp_d           = 1'b0;
        w_bad_d          = 1'b0;   // (a WQE loaded from the state word was read cleanly)
        ev_ret_d         = S_WB;
        ev_one_d         = 1'b0;
        rr_ooo_d         = 1'b0;
        qpn_d            = rd_addr;
        ctl_op_d         = ev_ctl_op;
        ctl_psn_d        = ev_ctl_psn;
        h_d              = s_hdr;
        plen_d           = s_hdr_plen;
        plen0_d          = s_hdr_plen == '0;
        src_d = take_ctl ? SRC_CTL : take_wf ? SRC_WF : take_pkt ? SRC_PKT
              : take_kick ? SRC_KICK : take_pf ? SRC_PF : SRC_TMR;
        st_d  = S_LOAD;
      end
      // the RAM words: loaded, and the flags S_DISPATCH decides on registered
      st_q[I_LOAD]: begin
        outstanding_d = as_rd.una != pb_rd.psn_hi;
        // expired: the retransmission timeout (2^t ticks; not during an RNR wait), or
        // the RNR wait (the time of the code its NAK carried)
        tmo_d         = 32'(16'(now_nx_q - as_rd.t_start)) >= (32'd1 << tmo_exp);
        rnr_due_d     = as_rd.rnr_wait
                        && (now_nx_q - as_rd.t_start) >= rnr_ticks(as_rd.rnr_code);
        probe_go_d    = st_rd.sr && cfg_sr_probe != '0 && as_rd.probes != 2'd3
                        && !as_rd.rnr_wait
                        && (pb_rd.sq_hi == pb_rd.sq_pi
                            || (pb_rd.psn_hi - as_rd.una) >= cfg_sr_inflight);
        probe_due_d   = 16'(now_nx_q[15:0] - as_rd.fb_t) >= (16'(cfg_sr_probe) << as_rd.probes);
        in_win_d      = in_window(h_q.bth.psn, as_rd.una, pb_rd.psn_hi);
        rts_d         = st_rd.state == QPS_RTS;
        hipi_d        = pb_rd.sq_hi == pb_rd.sq_pi;
        h_ack_d       = h_q.bth.opcode == OP_ACK;
        h_sack_d      = h_q.bth.opcode == OP_SR_SACK;
        h_rresp_d     = h_q.bth.opcode inside {OP_READ_RESP_FIRST, OP_READ_RESP_MIDDLE,
                                               OP_READ_RESP_LAST, OP_READ_RESP_ONLY};
        h_aack_d      = h_q.bth.opcode == OP_ATOMIC_ACK;
        qc_d          = st_rd;
        sq_mask_d     = 16'((32'd1 << st_rd.sq_log) - 1);
        lg_d          = pmtu_log(st_rd.pmtu);
        for (int k = 0; k < 5; k++) lg_oh_d[k] = pmtu_log(st_rd.pmtu) == 4'(8 + k);
        a_d           = as_rd;
        wqe_idx1_d    = as_rd.wqe_idx + 16'd1;
        pb_d          = pb_rd;
        tgt_d         = as_rd.una;
        dtw_d         = as_rd.una - as_rd.wqe_psn;
        dtg_d         = as_rd.una - as_rd.w_end;
        dpw_d         = h_q.bth.psn - as_rd.wqe_psn;
        dpe_d         = h_q.bth.psn - as_rd.w_end;
        dhi_d         = pb_rd.sq_hi - as_rd.wqe_idx;
        hi0_d         = pb_rd.sq_hi == as_rd.wqe_idx;
        dpi_d         = pb_rd.sq_pi - as_rd.wqe_idx;
        pi0_d         = pb_rd.sq_pi == as_rd.wqe_idx;
        dle_d         = pb_rd.lerr_idx - as_rd.wqe_idx;
        le0_d         = pb_rd.lerr && pb_rd.lerr_idx == as_rd.wqe_idx;
        dnx_d         = next_idx_q - as_rd.wqe_idx;
        nx0_d         = next_idx_q == as_rd.wqe_idx;
        cq_eq_d       = cache_qpn_q == qpn_q;
        una0_d        = as_rd.una;
        st_d          = S_DISPATCH;
      end
      // the event's decision, from the flags of S_LOAD
      st_q[I_DISPATCH]: begin
        // the "is 1" flags from the distances of S_LOAD (first used in S_CQE)
        hi1_d = dhi_q == 16'd1;
        le1_d = pb_q.lerr && dle_q == 16'd1;
        nx1_d = dnx_q == 16'd1;
        unique case (src_q)
          SRC_CTL: begin
            if (!ctl_op_q) begin
              stale_d = 1'b1;     // prefetched SQEs may belong to the old incarnation
              a_d = '0;
              a_d.una        = ctl_psn_q;
              a_d.wqe_psn    = ctl_psn_q;
              a_d.retry_left = qc_q.retry_cnt;
              a_d.rnr_left   = qc_q.rnr_retry;
              a_d.rtx_hi     = ctl_psn_q;
              a_d.rr_rtx_hi  = ctl_psn_q;
              st_d = S_WB;
            end else begin
              st_d = S_IDLE;
            end
            m_ctl_una_d        = a_q.una;
            m_ctl_err_d        = a_q.err;
            m_ctl_err_status_d = a_q.err_status;
            m_ctl_state_d      = qc_q.state;
            m_ctl_done_d       = 1'b1;
          end
          SRC_PKT: begin
            st_d = S_DRAIN;       // (ACK payload frames are empty; drain them first)
            if (a_q.err || !rts_q) begin
              inc_drop_psn_d = 1'b1;
              drop_d = 1'b1;
            end else if (h_ack_q) begin
              // acted upon (and counted as an ACK/NAK) only for an outstanding PSN;
              // any other ACK/NAK is a drop, so a frame forged without knowing an
              // outstanding PSN cannot move the QP
              if (!in_win_q) begin
                inc_drop_psn_d = 1'b1;
              end else if (syn_kind == 3'b000) begin
                inc_acks_d = 1'b1;
                tgt_d = h_q.bth.psn + 24'd1;
                dtw_d = dpw_q + 24'd1;
                dtg_d = dpe_q + 24'd1;
              end else begin
                inc_naks_d = 1'b1;
                tgt_d = h_q.bth.psn;
                dtw_d = dpw_q;
                dtg_d = dpe_q;
                if (syn_kind == 3'b001) post_d = P_RNR;
                else if (h_q.aeth.syndrome[4:0] == 5'd0) post_d = P_SEQ;
                else begin
                  post_d = P_ERRNAK;
                  nak_status_d = (h_q.aeth.syndrome[4:0] == 5'd1) ? WS_REM_INV_REQ
                               : (h_q.aeth.syndrome[4:0] == 5'd2) ? WS_REM_ACCESS
                               : WS_REM_OP_ERR;
                end
              end
            end else if (h_sack_q) begin
              if (qc_q.sr && syn_kind == 3'b000) begin
                inc_sack_rx_d = 1'b1;
                if (in_win_q) begin
                  tgt_d = h_q.bth.psn + 24'd1;
                  dtw_d = dpw_q + 24'd1;
                  dtg_d = dpe_q + 24'd1;
                end
                sk_base_d = h_q.reth.va[55:32];
                sk_bmp_d  = {h_q.reth.va[31:0], h_q.reth.rkey};
                post_d    = P_SACK;
              end else begin
                inc_drop_psn_d = 1'b1;   // not an SR QP: opcode error
                drop_d = 1'b1;
              end
            end else if ((h_rresp_q || h_aack_q) && in_win_q) begin
              tgt_d  = h_q.bth.psn;   // a response acknowledges what came before
              dtw_d  = dpw_q;
              dtg_d  = dpe_q;
              post_d = h_rresp_q ? P_READ : P_ATOMIC;
              if (h_rresp_q) st_d = S_ADV;
            end else begin
              inc_drop_psn_d = 1'b1;
              drop_d = 1'b1;
            end
          end
          SRC_KICK: st_d = S_ADV;
          SRC_PF, SRC_WF: begin   // decided in S_FLT from registered terms
            flt_skip_d = a_q.err || !rts_q;
            st_d = S_FLT;
          end
          default: begin   // timer visit
            if (a_q.err || !rts_q || !outstanding) begin
              if (a_q.armed) begin
                a_d.armed = 1'b0;
                st_d = S_WB;
              end else begin
                st_d = S_IDLE;
              end
            end else if (!a_q.armed) begin
              a_d.armed   = 1'b1;
              a_d.t_start = now_q;
              a_d.probes  = '0;
              a_d.fb_t    = now_q[15:0];
              st_d = S_WB;
            end else if (tmo_q || rnr_due_q) begin
              inc_timeouts_d = tmo_q;   // (the end of an RNR wait is no timeout)
              post_d = P_TMO;
              st_d   = S_ADV;
            end else if (probe_go_q && probe_due_q) begin
              post_d = P_PROBE;
              st_d   = S_ADV;
            end else begin
              st_d = S_IDLE;
            end
          end
        endcase
      end
      // advance over acknowledged WQEs: load the oldest, complete it, or go on
      st_q[I_ADV]: begin
        if (hi0_q) begin
          st_d = S_POST;
        end else if (!a_q.loaded) begin
          load_ret_d = S_ADV;
          if (!pf_take) st_d = cache_hit ? S_WAIT : more_q ? S_SKIP : S_FETCH;
        end else if (!a_q.w_rd && !a_q.w_at && !dtg_q[23]) begin   // psn_le(w_end, tgt_q)
          cqe_status_d = WS_SUCCESS;
          cqe_sig_d    = a_q.w_flags[0];
          cmpl_d       = 1'b1;
          cqe_ret_d    = S_ADV;
          st_d         = S_CQE;
        end else begin
          st_d = S_POST;
        end
      end
      // the oldest WQE's SQE read (fabnic_roce_cpl_rd drives m_rd)
      st_q[I_FETCH]: begin
        if (m_rd_ready) begin
          cache_qpn_d = qpn_q;
          next_idx_d  = a_q.wqe_idx;
          stale_d     = 1'b0;
          cq_eq_d = 1'b1; dnx_d = '0; nx0_d = 1'b1; nx1_d = 1'b0;
          st_d = S_WAIT;
        end
      end
      // the SQE beat of the oldest WQE (its fields: sqe_take, above)
      st_q[I_WAIT]: begin
        if (s_rd_tvalid) begin
          a_d.loaded = 1'b1;
          st_d = load_ret_q;
          if (b_rd || b_at) begin
            // only READ and atomic WQEs place data here: their buffer is translated
            // (the lkey cache's hit, registered: w_ok) or checked again (chkp: S_POST
            // sends it to S_CHK first); SEND / WRITE WQEs skip the MR check
            a_d.w_haddr = sqe_b.laddr + lc_off;
            a_d.w_ok    = lc_hit;
            chkp_d      = !lc_hit;
            // a loaded READ / atomic: S_ADV would only go on to S_POST
            if (load_ret_q[I_ADV]) st_d = S_POST;
          end else if (load_ret_q[I_ADV]) begin
            // an advance (the WQE is below sq_hi: S_ADV checked that before the read):
            // S_ADV's completion decision, psn_le(wqe_psn + span, tgt_q), registered here
            // and acted upon in S_CQE
            cmpl_d       = !dtw_nx[23];
            cqe_status_d = WS_SUCCESS;
            cqe_sig_d    = sqe_b.flags[0] && !dtw_nx[23];
            cqe_ret_d    = S_ADV;
            st_d         = S_CQE;
          end
          // a beat with an AXI error is not data: in an advance, the WQE completes
          // LOC_QP_OP_ERR with its SQ index for the wr_id and the rest are flushed
          // (S_ERR; the event's own action is dropped, and a READ response's payload is
          // drained after the flush). A re-read for S_ERR / S_FLUSH completes the WQE
          // with that state's error status anyway.
          if (s_rd_tuser && load_ret_q[I_ADV]) begin
            cqe_status_d = WS_LOC_QP_OP_ERR;
            st_d         = S_ERR;
            if (post_q == P_READ) begin
              drop_d   = 1'b1;
              ev_ret_d = S_DRAIN;
            end
          end
        end
      end
      // MR check of a READ / atomic buffer
      st_q[I_CHK]: if (chk_ready) st_d = S_CHKW;
      // its result: the requester checked this buffer before sending; a failure here
      // means the MR went away meanwhile: nothing is placed (w_ok 0)
      st_q[I_CHKW]: begin
        if (chk_res_valid) begin
          a_d.w_haddr = chk_addr;
          a_d.w_ok    = chk_ok;
          a_d.loaded  = 1'b1;
          chkp_d      = 1'b0;
          st_d = S_POST;   // (S_CHK is entered from S_POST only)
        end
      end
      // complete the loaded WQE (its CQE leaves when signaled or an error)
      st_q[I_CQE]: begin
        if (!cmpl_q) begin
          // the WQE loaded for an advance is not acknowledged yet: as S_ADV would
          st_d = S_POST;
        end else if (cqe_go) begin
          a_d.wqe_idx = a_q.wqe_idx + 16'd1;
          wqe_idx1_d  = wqe_idx1_q + 16'd1;
          a_d.wqe_psn = a_q.w_end;
          dtw_d       = dtg_q;
          dpw_d       = dpe_q;
          a_d.wqe_ssn = a_q.wqe_ssn + 24'(a_q.w_opcode == WR_SEND
                                          || a_q.w_opcode == WR_SEND_IMM
                                          || a_q.w_opcode == WR_WRITE_IMM);
          a_d.rr_bmp  = '0;
          a_d.loaded  = 1'b0;
          chkp_d      = 1'b0;   // (an error / flush completes a READ without its check)
          if (cqe_status_q == WS_SUCCESS && psn_lt(a_q.una, a_q.w_end)) a_d.una = a_q.w_end;
          // the distances to wqe_idx move by one
          dhi_d = dhi_q - 16'd1; hi0_d = hi1_q; hi1_d = dhi_q == 16'd2;
          dpi_d = dpi_q - 16'd1; pi0_d = dpi_q == 16'd1;
          dle_d = dle_q - 16'd1; le0_d = le1_q; le1_d = pb_q.lerr && dle_q == 16'd2;
          if (!cqe_chain) begin
            dnx_d = dnx_q - 16'd1; nx0_d = nx1_q; nx1_d = dnx_q == 16'd2;
          end
          st_d = cqe_ret_q;
          // advancing and the next SQE is the next beat of the current read: S_ADV's
          // decision for it (not loaded, cache hit) made here
          if (cqe_ret_q[I_ADV] && !hi1_q && hit1) begin
            load_ret_d = S_ADV;
            st_d       = S_WAIT;
          end
          if (cqe_chain) begin       // (the SQE's fields: sqe_take, above)
            a_d.loaded   = 1'b1;
            cmpl_d       = !dtg_nx[23];   // psn_le(w_end_nx, tgt)
            cqe_status_d = WS_SUCCESS;
            cqe_sig_d    = sqe_b.flags[0] && !dtg_nx[23];
            st_d         = S_CQE;
            // a beat with an AXI error: as in S_WAIT (S_ERR sets cmpl / sig)
            if (s_rd_tuser) begin
              cqe_status_d = WS_LOC_QP_OP_ERR;
              st_d         = S_ERR;
              if (post_q == P_READ) begin
                drop_d   = 1'b1;
                ev_ret_d = S_DRAIN;
              end
            end
          end
        end
      end
      // after the advance: una moves, the event's own action
      st_q[I_POST]: begin
        if (chkp_q) begin
          st_d = S_CHK;   // the loaded READ / atomic's buffer: MR check first
        end else begin
          a_d.una = una_n;
          if (src_q == SRC_PKT) a_d.fb_t = now_q[15:0];    // a response: the peer is talking
          // progress against una as loaded: S_ADV may already have moved a_q.una over
          // the WQEs it completed (an ACK ending on a WQE boundary)
          if (prog) begin
            a_d.t_start    = now_q;
            a_d.retry_left = qc_q.retry_cnt;
            a_d.pay_err    = 1'b0;
            a_d.rnr_wait   = 1'b0;
            a_d.probes     = '0;
          end
          unique case (post_q)
            P_READ: begin
              if (rd_place_in) begin
                // (post_desc: the write descriptor went out in this cycle if taken)
                st_d = (plen0_q || m_wr_ready) ? S_PLACE : S_PLACE_D;
              end else if (qc_q.sr && rd_fits && psn_ooo) begin
                // SR: a later response of the READ (its request was executed): place now
                rr_ooo_d = 1'b1;
                st_d = plen0_q ? S_PLACE : S_PLACE_D;
              end else begin
                inc_drop_psn_d = 1'b1;
                st_d   = S_DRAIN;
                post_d = P_NONE;
              end
            end
            P_ATOMIC: begin
              if (!hi0_q && a_q.loaded && a_q.w_at && f_eq_wqe && psn_is_una_n && a_q.w_ok) begin
                placing_atomic_d = 1'b1;
                st_d = S_PLACE_D;
              end else begin
                inc_drop_psn_d = 1'b1;
                post_d = P_NONE;
                st_d   = S_WB;
              end
            end
            P_SEQ, P_RNR, P_TMO: begin
              if (post_q == P_SEQ || (post_q == P_TMO && !a_q.rnr_wait)) begin
                if (a_q.retry_left == 3'd0) begin
                  // budget spent: a local payload-read failure since the last progress is
                  // the cause (LOC_QP_OP_ERR, the read errors count in dma_err), else the
                  // peer did not answer (RETRY_EXC_ERR)
                  cqe_status_d    = a_q.pay_err ? WS_LOC_QP_OP_ERR : WS_RETRY_EXC;
                  inc_retry_exc_d = !a_q.pay_err;
                  st_d = S_ERR;
                end else begin
                  a_d.retry_left = a_q.retry_left - 3'd1;
                  a_d.t_start    = now_q;
                  a_d.armed      = 1'b1;
                  // SR: resend only una; the SACK it brings back asks for the rest.
                  // A requester stopped by a local error (lerr) does not go back: it
                  // resends una alone too, and its AckReq brings the cumulative ACK of
                  // what it sent before the error
                  ev_type_d = (qc_q.sr || pb_q.lerr) ? 2'd2 : 2'd0;
                  if (qc_q.sr) a_d.rtx_hi = una_n + 24'd1;
                  if (qc_q.sr) a_d.rr_rtx_hi = una_n + 24'd1;
                  ev_psn_d = una_n;
                  ev_ret_d = S_WB;
                  st_d = S_EV;
                end
              end else if (post_q == P_RNR) begin
                // wait the time of the NAK's timer code, then rewind (below, as P_TMO
                // with rnr_wait)
                a_d.rnr_wait = 1'b1;
                a_d.rnr_code = h_q.aeth.syndrome[4:0];
                a_d.armed    = 1'b1;
                a_d.t_start  = now_q;
                st_d = S_WB;
              end else begin   // timeout after an RNR NAK
                if (a_q.rnr_left == 3'd0) begin
                  cqe_status_d    = WS_RNR_RETRY_EXC;
                  inc_retry_exc_d = 1'b1;
                  st_d = S_ERR;
                end else begin
                  if (a_q.rnr_left != 3'd7) a_d.rnr_left = a_q.rnr_left - 3'd1;
                  a_d.rnr_wait = 1'b0;
                  a_d.t_start  = now_q;
                  ev_type_d = (qc_q.sr || pb_q.lerr) ? 2'd2 : 2'd0;   // (as above)
                  if (qc_q.sr) a_d.rtx_hi = a_q.una + 24'd1;
                  ev_psn_d = a_q.una;
                  ev_ret_d = S_WB;
                  st_d = S_EV;
                end
              end
            end
            P_ERRNAK: begin
              cqe_status_d = nak_status_q;
              st_d = S_ERR;
            end
            P_PROBE: begin
              if (una_lt_phi && !a_q.err) begin
                // tail-loss probe: silence while stalled means that nothing more is on
                // its way; after the last posted WQE every PSN not acknowledged was lost
                // (or its ACK was): resend all of [una, psn_hi) (the window caps it at
                // SR_W <= 64) through the SACK resend path; in a window stall resend
                // una only. The ordinary timeout counts from here
                inc_sr_probe_d = 1'b1;
                // a probe whose resends are lost too (a loss burst) is repeated after twice
                // the silence, up to 3 per no-progress period; the first one restarts the
                // retransmission timer
                a_d.probes = a_q.probes + 2'd1;
                a_d.fb_t   = now_q[15:0];
                if (a_q.probes == '0) a_d.t_start = now_q;
                if (!hi0_q && a_q.loaded && a_q.w_rd && (una_ne_wp || rr_any_q)
                    && psn_lt(una_n, a_q.w_end)) begin
                  // the tail of an executed READ's responses: re-issue it from una for the
                  // rest (type 2), as the timer would
                  ev_type_d = 2'd2;
                  ev_psn_d  = una_n;
                  ev_ret_d  = S_WB;
                  st_d = S_EV;
                end else begin
                  a_d.rtx_hi = hipi_q ? pb_q.psn_hi : una_n + 24'd1;
                  sk_base_d  = una_n;
                  // at the end of the posted work (a true tail) everything after the last
                  // acknowledgement is missing; in a window stall only una is known to be
                  sk_mode_d  = hipi_q ? SK_TAIL : SK_ONE;
                  sk_phi_d   = pb_q.psn_hi;
                  sk_kind_d  = 2'd0;
                  sk_gate_d  = 1'b0;
                  sk_req_d   = 1'b1;
                  st_d = S_SREV;
                end
              end else begin
                st_d = S_WB;
              end
            end
            P_SACK: begin
              // the planner moves rtx_hi; it resends while PSNs are outstanding - including
              // inside a WQE still being sent (a message longer than the window: sq_hi has
              // not moved past it yet)
              sk_mode_d = SK_HOLES;
              sk_mark_d = a_q.rtx_hi;
              sk_una_d  = una_n;
              sk_phi_d  = pb_q.psn_hi;
              sk_gate_d = 1'b1;
              sk_kind_d = 2'd1;
              sk_req_d  = 1'b1;
              st_d = S_SREV;
            end
            default: begin   // P_NONE
              if (le0_q && !a_q.err) begin
                cqe_status_d = pb_q.lerr_status;
                st_d = S_ERR;
              end else if (a_q.err && !pi0_q) begin
                flushing_d   = 1'b1;
                cqe_status_d = WS_WR_FLUSH_ERR;
                st_d = S_FLUSH;
              end else begin
                st_d = S_WB;
              end
            end
          endcase
        end
      end
      // the placement write's descriptor
      st_q[I_PLACE_D]: if (m_wr_ready) st_d = S_PLACE;
      // the placement payload: the READ response streams through, or the atomic value
      st_q[I_PLACE]: begin
        if (placing_atomic_q) begin
          if (m_wr_tready) begin
            a_d.una      = a_q.una + 24'd1;
            cqe_status_d = WS_SUCCESS;
            cqe_sig_d    = a_q.w_flags[0];
            cmpl_d       = 1'b1;
            cqe_ret_d    = S_WB;
            st_d = S_CQE;
          end
        end else if (s_axis_tvalid && (plen0_q || m_wr_tready) && s_axis_tlast && rr_ooo_q) begin
          // out of order: mark it; holes far enough below the highest mark are asked for
          inc_read_resp_d = 1'b1;
          inc_rr_ooo_d    = 1'b1;
          a_d.rr_bmp[rr_dist] = 1'b1;
          sk_base_d = a_q.una;
          sk_bmp_d  = a_q.rr_bmp | (64'd1 << rr_dist);
          // holes as a SACK's, with one-packet re-requests
          sk_mode_d = SK_HOLES;
          sk_mark_d = a_q.rr_rtx_hi;
          sk_una_d  = una_n;
          sk_phi_d  = pb_q.psn_hi;
          sk_gate_d = 1'b0;
          sk_kind_d = 2'd2;
          sk_req_d  = 1'b1;
          ev_one_d  = 1'b1;
          st_d = S_SREV;
        end else if (s_axis_tvalid && (plen0_q || m_wr_tready) && s_axis_tlast) begin
          inc_read_resp_d = 1'b1;
          a_d.una        = rr_una;                   // (rr_bmp is 0 on a standard QP)
          a_d.rr_bmp     = a_q.rr_bmp >> rr_run;
          a_d.t_start    = now_q;
          a_d.probes     = '0;                       // progress re-arms the probe
          a_d.retry_left = qc_q.retry_cnt;
          a_d.pay_err    = 1'b0;
          if (!rr_lt_end) begin   // rr_una at or past the READ's end
            cqe_status_d = WS_SUCCESS;
            cqe_sig_d    = a_q.w_flags[0];
            cmpl_d       = 1'b1;
            cqe_ret_d    = S_WB;
            st_d = S_CQE;
          end else begin
            st_d = S_WB;
          end
        end
      end
      // drain the response payload (ACK frames, drops), then advance
      st_q[I_DRAIN]: begin
        if (s_axis_tvalid && s_axis_tlast) st_d = drop_q ? S_WB : S_ADV;
      end
      // one event to the requester
      st_q[I_EV]: if (m_ev_ready) st_d = ev_ret_q;
      // SR: the planner's resend events go out (m_ev, type 3) until it is done; then
      // the mark it moved is kept
      st_q[I_SREV]: begin
        if (sk_done) begin
          if (sk_kind_q == 2'd1) a_d.rtx_hi    = sk_done_mark;
          if (sk_kind_q == 2'd2) a_d.rr_rtx_hi = sk_done_mark;
          st_d = S_WB;
        end
      end
      // local faults
      st_q[I_FLT]: begin
        if (src_q == SRC_PF) begin
          // a request frame left with its payload read failed: remembered until the
          // next progress, so retries that keep failing end in LOC_QP_OP_ERR, not
          // RETRY_EXC_ERR
          a_d.pay_err = 1'b1;
          st_d = S_WB;
        end else if (flt_skip_q) begin
          st_d = S_IDLE;
        end else begin
          // a READ response or atomic result could not be written (BRESP): the data
          // is lost, so the WQE it belongs to (the oldest not complete: the advance
          // completes the acknowledged ones before it first, as for a NAK) completes
          // LOC_QP_OP_ERR, the QP enters ERR and the rest are flushed
          nak_status_d = WS_LOC_QP_OP_ERR;
          post_d = P_ERRNAK;
          st_d   = S_ADV;
        end
      end
      // complete the oldest WQE with the error status, stop the requester, flush
      st_q[I_ERR]: begin
        if (pi0_q) begin
          a_d.err        = 1'b1;
          a_d.err_status = cqe_status_q;
          ev_type_d = 2'd1;
          st_d = S_EV;
        end else if (!a_q.loaded) begin
          load_ret_d = S_ERR;
          if (!pf_take) st_d = cache_hit ? S_WAIT : more_q ? S_SKIP : S_FETCH;
        end else begin
          a_d.err        = 1'b1;
          a_d.err_status = cqe_status_q;
          cqe_sig_d  = a_q.w_flags[0] || cqe_status_q != WS_SUCCESS;
          cmpl_d       = 1'b1;
          cqe_ret_d  = S_FLUSH;
          flushing_d = 1'b1;
          st_d = S_CQE;
        end
      end
      // complete every further posted WQE WR_FLUSH_ERR
      st_q[I_FLUSH]: begin
        cqe_status_d = WS_WR_FLUSH_ERR;
        if (pi0_q) begin
          ev_type_d = 2'd1;
          st_d = S_EV;
        end else if (!a_q.loaded) begin
          load_ret_d = S_FLUSH;
          if (!pf_take) st_d = cache_hit ? S_WAIT : more_q ? S_SKIP : S_FETCH;
        end else begin
          cqe_sig_d = 1'b1;
          cmpl_d       = 1'b1;
          cqe_ret_d = S_FLUSH;
          st_d = S_CQE;
        end
      end
      // discard the beats of a read that does not serve this WQE, then decide again
      st_q[I_SKIP]: begin
        if (s_rd_tvalid && s_rd_tlast) begin
          more_d  = 1'b0;
          stale_d = 1'b0;
          st_d    = load_ret_q;
        end
      end
      // write the state word back (and una to the requester)
      st_q[I_WB]: st_d = S_IDLE;
      default: st_d = S_IDLE;
    endcase
    // the look-ahead slot becomes the cache descriptor (its beats follow the consumed
    // ones)
    if (fetched_q) cache_end_d = fetch_end;
    if (pf_take) begin
      cache_qpn_d = slot_qpn;
      next_idx_d  = slot_idx;
      cache_end_d = slot_end;
      more_d      = 1'b1;
      stale_d     = slot_stale;
      cq_eq_d     = slot_qpn == qpn_q;
      dnx_d       = slot_idx - a_q.wqe_idx;
      nx0_d       = slot_idx == a_q.wqe_idx;
      nx1_d       = slot_idx == wqe_idx1_q;
    end
  end

  // the state flop
  always_ff @(posedge clk) begin
    st_q <= st_d;
    if (rst) st_q <= S_IDLE;
  end

  // the event registers
  always_ff @(posedge clk) begin
    qpn_q <= qpn_d; a_q <= a_d; qc_q <= qc_d; pb_q <= pb_d; src_q <= src_d;
    cqe_ret_q <= cqe_ret_d; load_ret_q <= load_ret_d; ev_ret_q <= ev_ret_d; post_q <= post_d;
    ctl_op_q <= ctl_op_d; ctl_psn_q <= ctl_psn_d; h_q <= h_d; plen_q <= plen_d; plen0_q <= plen0_d;
    tgt_q <= tgt_d;
    drop_q <= drop_d; flushing_q <= flushing_d; placing_atomic_q <= placing_atomic_d;
    flt_skip_q <= flt_skip_d; cqe_status_q <= cqe_status_d; nak_status_q <= nak_status_d;
    cqe_sig_q <= cqe_sig_d; cmpl_q <= cmpl_d; chkp_q <= chkp_d; sqe_va_q <= sqe_va_d;
    w_bad_q <= w_bad_d;
    ev_type_q <= ev_type_d; ev_one_q <= ev_one_d; ev_psn_q <= ev_psn_d;
    rr_ooo_q <= rr_ooo_d; una0_q <= una0_d; sqe_lkey_q <= sqe_lkey_d;
    more_q <= more_d; stale_q <= stale_d; cache_qpn_q <= cache_qpn_d; next_idx_q <= next_idx_d;
    cache_end_q <= cache_end_d;
    outstanding <= outstanding_d; tmo_q <= tmo_d; probe_go_q <= probe_go_d;
    probe_due_q <= probe_due_d;
    rnr_due_q   <= rnr_due_d;
    in_win_q <= in_win_d; rts_q <= rts_d; hipi_q <= hipi_d; h_ack_q <= h_ack_d;
    h_sack_q <= h_sack_d; h_rresp_q <= h_rresp_d; h_aack_q <= h_aack_d;
    sq_mask <= sq_mask_d; lg_q <= lg_d; lg_oh_q <= lg_oh_d;
    dtw_q <= dtw_d; dtg_q <= dtg_d; dpw_q <= dpw_d; dpe_q <= dpe_d;
    dhi_q <= dhi_d; dpi_q <= dpi_d; dle_q <= dle_d; dnx_q <= dnx_d;
    hi0_q <= hi0_d; hi1_q <= hi1_d; pi0_q <= pi0_d; le0_q <= le0_d; le1_q <= le1_d;
    nx0_q <= nx0_d; nx1_q <= nx1_d; cq_eq_q <= cq_eq_d; wqe_idx1_q <= wqe_idx1_d;
    m_ctl_done <= m_ctl_done_d; m_ctl_una <= m_ctl_una_d; m_ctl_err <= m_ctl_err_d;
    m_ctl_err_status <= m_ctl_err_status_d; m_ctl_state <= m_ctl_state_d;
    sk_req_q <= sk_req_d; sk_gate_q <= sk_gate_d; sk_mode_q <= sk_mode_d;
    sk_kind_q <= sk_kind_d; sk_base_q <= sk_base_d; sk_mark_q <= sk_mark_d;
    sk_una_q <= sk_una_d; sk_phi_q <= sk_phi_d; sk_bmp_q <= sk_bmp_d;
    {inc_acks, inc_naks, inc_read_resp, inc_rr_ooo, inc_drop_psn, inc_timeouts,
     inc_retry_exc, inc_sack_rx, inc_sr_probe} <= {inc_acks_d, inc_naks_d, inc_read_resp_d,
     inc_rr_ooo_d, inc_drop_psn_d, inc_timeouts_d, inc_retry_exc_d, inc_sack_rx_d,
     inc_sr_probe_d};
    if (rst) begin
      sk_req_q   <= 1'b0;
      more_q     <= 1'b0;
      stale_q    <= 1'b0;
      load_ret_q <= S_ADV;
      m_ctl_done <= 1'b0;
      {inc_acks, inc_naks, inc_read_resp, inc_rr_ooo, inc_drop_psn, inc_timeouts,
       inc_retry_exc, inc_sack_rx, inc_sr_probe} <= '0;
    end
  end

  logic unused;
  assign unused = ^{s_axis_tuser, unused_mr_wr_ready, unused_chk_err,
                    unused_chk_id, as_rd.err_status, h_q, qc_q, flushing_q, dtw_nx[22:0],
                    dtg_nx[22:0], take_wf, take_pkt,
                    take_kick, take_pf, take_tmr, dhi_q, dpi_q, dle_q, dnx_q, wqe_idx1_q,
                    sqe_b, pb_q, sk_una_q};

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
  // The registered stand-ins equal the expressions they replace, in the states that use
  // them; one event owns the QP's state at a time.
  logic loaded_st;   // a_q, tgt_q and the registers kept beside them are the event's
  assign loaded_st = !(st_q inside {S_IDLE, S_LOAD, S_WB});
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert ($onehot(st_q) && plen0_q == (plen_q == '0));
      assert (st_q inside {S_IDLE, S_LOAD, S_DISPATCH, S_ADV, S_FETCH, S_WAIT, S_CHK, S_CHKW,
                           S_CQE, S_POST, S_PLACE_D, S_PLACE, S_DRAIN, S_EV, S_ERR, S_FLUSH,
                           S_SKIP, S_WB, S_SREV, S_FLT})
        else $error("fabnic_roce_cpl: illegal state %0d", st_q);
      assert (post_q inside {P_NONE, P_READ, P_ATOMIC, P_SEQ, P_RNR, P_ERRNAK, P_TMO,
                             P_SACK, P_PROBE}) else $error("fabnic_roce_cpl: illegal post");
      // one operation per QP in flight: the event, from the pick to its write-back (no
      // pick while one is under way; the state word is written only in S_WB)
      assert (!(!st_q[I_IDLE] && (take_ctl || take_wf || take_pkt || take_kick || take_pf
                                   || take_tmr))) else $error("fabnic_roce_cpl: pick while busy");
      assert (!(rd_en && !st_q[I_IDLE] && !pf_go));
      assert (!(as_wr_en && !st_q[I_WB]));
      // SQE beats are taken only where the FSM takes them
      assert (!(s_rd_tvalid && s_rd_tready && !(st_q inside {S_WAIT, S_SKIP, S_CQE})));
      // a beat with an AXI error taken in an advance (S_WAIT, or chained) ends in S_ERR
      assert (!(((st_q[I_WAIT] && s_rd_tvalid && load_ret_q[I_ADV]) || cqe_chain)
                && s_rd_tuser && st_d != S_ERR))
        else $error("fabnic_roce_cpl: errored SQE beat used");
      // a beat taken in S_WAIT is the oldest WQE's
      assert (!(st_q[I_WAIT] && s_rd_tvalid && (!nx0_q || dnx_q != '0 || !cq_eq_q)))
        else $error("fabnic_roce_cpl: S_WAIT beat not the oldest WQE's");
      assert (!(st_q[I_CQE] && cmpl_q
                && cqe_sig_q != (a_q.w_flags[0] || cqe_status_q != WS_SUCCESS)))
        else $error("fabnic_roce_cpl: cqe_sig_q");
      if (loaded_st && !st_q[I_DISPATCH]) begin
        assert (dtw_q == tgt_q - a_q.wqe_psn) else $error("fabnic_roce_cpl: dtw_q");
        assert (dtg_q == tgt_q - a_q.w_end) else $error("fabnic_roce_cpl: dtg_q");
        assert (wqe_idx1_q == a_q.wqe_idx + 16'd1);
        assert (lg_q == pmtu_log(qc_q.pmtu) && $onehot(lg_oh_q));
        assert (sq_mask == 16'((32'd1 << qc_q.sq_log) - 1));
        assert (dhi_q == pb_q.sq_hi - a_q.wqe_idx && hi0_q == (dhi_q == '0)
                && hi1_q == (dhi_q == 16'd1)) else $error("fabnic_roce_cpl: hi flags");
        assert (dpi_q == pb_q.sq_pi - a_q.wqe_idx && pi0_q == (dpi_q == '0))
          else $error("fabnic_roce_cpl: pi flags");
        assert (dle_q == pb_q.lerr_idx - a_q.wqe_idx && le0_q == (pb_q.lerr && dle_q == '0)
                && le1_q == (pb_q.lerr && dle_q == 16'd1))
          else $error("fabnic_roce_cpl: lerr flags");
        assert (dnx_q == next_idx_q - a_q.wqe_idx && nx0_q == (dnx_q == '0)
                && nx1_q == (dnx_q == 16'd1)) else $error("fabnic_roce_cpl: next_idx flags");
        assert (cq_eq_q == (cache_qpn_q == qpn_q)) else $error("fabnic_roce_cpl: cq_eq_q");
        // a pending MR check belongs to the event's loaded READ / atomic
        assert (!chkp_q || (a_q.loaded && (a_q.w_rd || a_q.w_at)))
          else $error("fabnic_roce_cpl: chkp_q without a loaded READ / atomic");
        assert (cache_hit == (more_q && !stale_q && cache_qpn_q == qpn_q
                              && next_idx_q == a_q.wqe_idx));
        if (src_q == SRC_PKT) begin
          assert (dpw_q == h_q.bth.psn - a_q.wqe_psn) else $error("fabnic_roce_cpl: dpw_q");
          assert (dpe_q == h_q.bth.psn - a_q.w_end) else $error("fabnic_roce_cpl: dpe_q");
        end
        if (a_q.loaded) begin
          assert (a_q.w_end == a_q.wqe_psn + ((a_q.w_opcode == WR_CMP_SWAP
                                               || a_q.w_opcode == WR_FETCH_ADD)
                                              ? 24'd1 : npkts(a_q.w_len, lg_q)))
            else $error("fabnic_roce_cpl: w_end of the loaded WQE");
          assert (a_q.w_rd == (a_q.w_opcode == WR_READ)
                  && a_q.w_at == (a_q.w_opcode == WR_CMP_SWAP || a_q.w_opcode == WR_FETCH_ADD));
        end
      end
      if (st_q[I_DISPATCH]) begin
        assert (outstanding == (a_q.una != pb_q.psn_hi));
        assert (tmo_q == (!a_q.rnr_wait
                          && 32'(16'(now_q - a_q.t_start)) >= (32'd1 << qc_q.timeout)));
        assert (rnr_due_q == (a_q.rnr_wait && (now_q - a_q.t_start) >= rnr_ticks(a_q.rnr_code)));
        assert (probe_go_q == (qc_q.sr && cfg_sr_probe != '0 && a_q.probes != 2'd3
                               && !a_q.rnr_wait && (pb_q.sq_hi == pb_q.sq_pi
                                   || (pb_q.psn_hi - a_q.una) >= cfg_sr_inflight)));
        assert (probe_due_q == (16'(now_q[15:0] - a_q.fb_t) >= (16'(cfg_sr_probe) << a_q.probes)));
        assert (rts_q == (qc_q.state == QPS_RTS) && hipi_q == (pb_q.sq_hi == pb_q.sq_pi));
        assert (src_q != SRC_PKT || in_win_q == in_window(h_q.bth.psn, a_q.una, pb_q.psn_hi));
      end
      if (st_q[I_CQE] && cqe_ret_q[I_ADV])
        assert (a_q.loaded && !a_q.w_rd && !a_q.w_at && cmpl_q == !dtg_q[23])
          else $error("fabnic_roce_cpl: cmpl_q");
      assert (!(st_q[I_CQE] && !cmpl_q && cqe_sig_q));
      if (st_q[I_POST] && !chkp_q) begin
        assert (prog == psn_lt(una0_q, una_n) && una_lt_phi == psn_lt(una_n, pb_q.psn_hi)
                && una_ne_wp == (una_n != a_q.wqe_psn) && rr_any_q == (a_q.rr_bmp != '0))
          else $error("fabnic_roce_cpl: S_POST flags");
        if (src_q == SRC_PKT) begin
          assert (rd_place_in == (!hi0_q && a_q.loaded && a_q.w_opcode == WR_READ
                                  && h_q.bth.psn == una_n
                                  && in_window(h_q.bth.psn, a_q.wqe_psn, a_q.w_end)
                                  && rd_off + 32'(plen_q) <= a_q.w_len && a_q.w_ok))
            else $error("fabnic_roce_cpl: rd_place_in");
          assert ((rd_fits && psn_ooo) == (!hi0_q && a_q.loaded && a_q.w_opcode == WR_READ
                                  && psn_lt(una_n, h_q.bth.psn)
                                  && (h_q.bth.psn - una_n) < 24'(SR_W)
                                  && in_window(h_q.bth.psn, a_q.wqe_psn, a_q.w_end)
                                  && !a_q.rr_bmp[6'(h_q.bth.psn - una_n)]
                                  && rd_off + 32'(plen_q) <= a_q.w_len && a_q.w_ok))
            else $error("fabnic_roce_cpl: rr ooo");
          assert (psn_is_una_n == (h_q.bth.psn == una_n)
                  && f_eq_wqe == (h_q.bth.psn == a_q.wqe_psn));
          assert (rd_off == 32'(h_q.bth.psn - a_q.wqe_psn) << lg_q);
        end
      end
      if (st_q[I_PLACE_D] && src_q == SRC_PKT)
        assert (placing_atomic_q || rd_off == 32'(h_q.bth.psn - a_q.wqe_psn) << lg_q);
      if (st_q[I_PLACE] && !placing_atomic_q) begin
        logic [6:0] r;
        r = 7'd1;
        for (int i = 1; i < 64; i++) if (a_q.rr_bmp[i] && r == 7'(i)) r = 7'(i + 1);
        assert (rr_run == r) else $error("fabnic_roce_cpl: rr_run");
        assert (rr_ooo_q || a_q.una == h_q.bth.psn);
        assert (rr_ooo_q || rr_lt_end == psn_lt(rr_una, a_q.w_end));
      end
      // the resend planner takes a request at once (it is idle outside S_SREV)
      assert (!sk_req_q || sk_req_ready);
      assert (!sk_ev_valid || st_q[I_SREV]);
    end
  end
`endif

endmodule

`resetall
