// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_req: RC requester (send side of every QP).
//
// Per QP it keeps, in block RAM, the SQ producer index from the doorbell, the index of
// the next SQE to send, the byte offset inside it, the next PSN and the highest PSN
// ever sent. A QP with work sits in the active FIFO (at most once); a visit fetches
// the QP's next SQEs by DMA (one 512-bit beat each, up to SQE_BATCH per read), checks
// each one's lkey against the local copy of the MR table (or translates it from a
// one-entry cache of the last checked region), and emits up to QUANTUM packets (PMTU
// segments of SEND/WRITE, one READ request, one atomic) as transmit jobs; then the QP
// goes to the back of the FIFO if it still has work. A visit reads the next SQEs ahead
// while it walks the current ones (up to two more reads of SQE_BATCH in flight behind the
// one being walked, as the SQE FIFO allows) and takes doorbells for its own QP without
// ending.
//
// Ownership and hazards: the per-QP state (u_state) has one owner, the visit FSM. It is
// read in S_LOAD, held in rs_q for the whole visit and written back in S_WB; the visit
// is the only operation in flight on any QP (one visit at a time), and the prefetch
// stage below only reads (its read of a QP is re-checked by that QP's own visit, which
// loads the state again). So the hazard rule is: one operation per QP, the visit, from
// S_LOAD to S_WB.
//
// Pipeline (decide in one stage, act in the next):
//   - S_LOAD registers the context words and the flags S_DISPATCH decides on.
//   - An SQE beat is taken in S_WAIT (or by S_PKT, below) into decode registers
//     (fields, cache hit and translated address, PSN span for SR walks); S_SQE decides on
//     it the next cycle: hit -> S_PKT, miss -> S_CHK/S_CHKW (lkey check), read error,
//     SR resend walk.
//   - fabnic_roce_req_pkt computes, every cycle, the job of the packet at the send
//     position and the next values of the position, all registered; S_PKT sends job_q
//     and applies them. A packet is valid one cycle after its inputs settled (two for a
//     READ, whose PSN count is a division by the PMTU); pv_q counts those cycles. The SR
//     window cap and the atomic fence (a new atomic waits until the QP's previous one is
//     acknowledged: una past its PSN) are among the registered flags.
//   - In the cycle S_PKT sends the last packet of a WQE and the visit goes on, it takes
//     the next SQE beat, so single-packet WQEs leave one every two cycles.
//   - SQE read lengths and addresses (visit, read-ahead, prefetch) are registered a
//     cycle ahead (S_FETCH waits one cycle after sq_ci changed; P_REQ one cycle).
//   - SR resend walk: the WQE's PSN span and its compare with the PSN to resend are three
//     register layers computed from S_SQE on; S_WALK decides in its third cycle.
//   - The event intake (fabnic_roce_req_ev, fabnic_roce_req_fetch) sees the FIFOs'
//     not-empty, room and busy conditions as registers kept from each cycle's push and
//     pop, not as pointer compares.
//
// Cross-QP SQE prefetch (PREFETCH=1, fabnic_roce_req_fetch): while a visit is under way
// the next QP's context is read and its SQE read issued, so the next visit finds its SQEs
// in flight; in IDLE prefetched QPs are visited first (doorbells take turns with them,
// a control op goes first). A visit uses the prefetched SQEs only if the send position is
// still the one they were read for; otherwise it drains them and visits the QP as usual.
//
// PSN assignment is deterministic from the SQE sequence (a WQE takes max(1,
// ceil(len/PMTU)) PSNs; READ: as many as its response packets; atomics one), which is
// what lets fabnic_roce_cpl find WQE boundaries by re-reading SQEs, with no per-WQE
// state here. A rewind event (go-back-N from PSN p inside WQE i whose first PSN is f)
// sets the SQ index back to i and the offset to (p - f) * PMTU; a READ is re-issued
// for its remaining part, as IBTA allows.
//
// Selective repeat (QP context bit sr, docs/roce_sr.md): WRITE MIDDLE/LAST carry a RETH
// with the VA of the packet's first byte, new packets are sent only while next_psn - una
// < cfg_sr_inflight (<= SR_W; una: the completer's oldest unacknowledged PSN, mirrored
// here in a RAM it writes; a QP at the cap gives up its visit and is polled again), and
// completer event types 2/3 resend exactly one PSN: the SQEs are re-read from the given
// oldest WQE, walked to the WQE holding the PSN, and that one packet is rebuilt (AckReq
// set) and sent; the QP's send position is then restored. SR SENDs carry a SOFFETH in the
// RETH slot of the job (packet offset, SSN, message length).
// Events are taken one at a time in this priority: control (init/query), completer
// (rewind/error), doorbell, active FIFO. A local error (lkey check, an SQE that cannot
// be read) stops the QP: the failing SQ index and status are published for the
// completer, which completes the WQEs before it and then flushes; resend events (types
// 2/3) are still served after it (a rewind or new work is not), so the completer can
// get the ACK of WQEs sent before the error whose last packet had no AckReq. The
// published state (SQ producer index, WQEs started, highest PSN sent) is rewritten
// after every packet, so a response never arrives for a PSN the completer does not know
// was sent.
// Host-memory errors: an SQE read whose beat carries tuser (an AXI error so far in the
// read) is not used; the QP reads it again on a later visit, and after SQE_RETRIES
// failed reads in a row the WQE completes with LOC_QP_OP_ERR like a local error.
//
// Handshakes: s_rd_tready depends on the state and, in S_PKT, on m_job_ready (the
// packet that ends a WQE leaves in the cycle the next SQE beat is taken): a documented
// combinational m_job_ready -> s_rd_tready path, never on the beat's contents. s_ctl,
// s_ev and s_db are taken in S_IDLE (their ready depends on the other event valids, by
// priority); s_db_ready also for the visited QP in S_WAIT and in S_PKT cycles that offer
// no packet. m_job, m_rd_addr/len, m_lim_len and m_sent_* are registers, m_job_valid and
// m_rd_valid a few gates of registered flags.
`default_nettype none

module fabnic_roce_req #(
    parameter int NUM_QP  = 1024,
    parameter int NUM_MR  = 1024,
    parameter int QUANTUM = 64,     // packets per visit before yielding to other QPs
    parameter int CNT_W   = 32,
    parameter int SR_W    = 64,     // selective repeat: packets in flight (receiver window)
    parameter int SQE_BATCH = 32,   // SQEs per read at most
    parameter int SQE_FIFO  = 128,  // beats of the core's SQE FIFO (>= 2 * SQE_BATCH): SQEs
                                    // read ahead and not yet taken, at most
    parameter int SQE_RETRIES = 3,  // 0..3: SQE reads retried after an AXI error before
                                    // the WQE completes with LOC_QP_OP_ERR
    parameter int PF_DEPTH = 4,     // prefetched QPs queued at most (power of two >= 2)
    parameter bit PREFETCH = 1'b1,  // cross-QP SQE prefetch
    parameter int QPN_W   = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic                         clk,
    input  wire logic                         rst,

    // static context writes (from the control block)
    input  wire logic                         st_wr_en,
    input  wire logic [QPN_W-1:0]             st_wr_addr,
    input  wire fabnic_roce_pkg::qpc_t        st_wr_data,
    // MR table writes (broadcast)
    input  wire logic                         mr_wr_valid,
    input  wire logic [$clog2(NUM_MR)-1:0]    mr_wr_index,
    input  wire fabnic_roce_pkg::mr_entry_t   mr_wr_entry,

    input  wire logic [15:0]                  cfg_ack_cadence,
    input  wire logic [23:0]                  cfg_sr_inflight,  // SR: PSNs in flight at most
                                                                // (1 .. SR_W)

    // control: op 0 = init send side (psn), op 1 = query (returns next PSN)
    input  wire logic                         s_ctl_valid,
    output logic                              s_ctl_ready,
    input  wire logic                         s_ctl_op,
    input  wire logic [QPN_W-1:0]             s_ctl_qpn,
    input  wire logic [23:0]                  s_ctl_psn,
    output logic                              m_ctl_done,
    output logic      [23:0]                  m_ctl_result,

    // SQ doorbells
    input  wire logic                         s_db_valid,
    output logic                              s_db_ready,
    input  wire logic [QPN_W-1:0]             s_db_qpn,
    input  wire logic [15:0]                  s_db_pi,

    // completer events: type 0 = rewind, 1 = error (stop the QP), 2 = resend one PSN
    // (timer: a PSN inside a READ re-issues the READ for the rest), 3 = resend one PSN
    // (SACK hole: a PSN inside a READ other than its first is skipped; with s_ev_one, a
    // missing response of an executed READ: a READ of one PMTU at that PSN)
    input  wire logic                         s_ev_valid,
    output logic                              s_ev_ready,
    input  wire logic [1:0]                   s_ev_type,
    input  wire logic [QPN_W-1:0]             s_ev_qpn,
    input  wire logic [15:0]                  s_ev_wqe_idx,
    input  wire logic [23:0]                  s_ev_wqe_psn,
    input  wire logic [23:0]                  s_ev_psn,
    input  wire logic [23:0]                  s_ev_wqe_ssn,   // SSN of that WQE (SR)
    input  wire logic                         s_ev_one,       // type 3: re-request one READ
                                                              // response (one-PMTU READ)

    // kick to the completer: the QP needs a look (local error, doorbell while in error)
    output logic                              m_kick_valid,
    input  wire logic                         m_kick_ready,
    output logic      [QPN_W-1:0]             m_kick_qpn,

    // published state for the completer (written here, read there)
    // completer's una (oldest unacknowledged PSN) per QP, for the SR window cap
    input  wire logic                         una_wr_en,
    input  wire logic [QPN_W-1:0]             una_wr_addr,
    input  wire logic [23:0]                  una_wr_data,

    output logic                              pub_wr_en,
    output logic      [QPN_W-1:0]             pub_wr_addr,
    output logic      [15:0]                  pub_sq_pi,
    output logic      [15:0]                  pub_sq_hi,
    output logic      [23:0]                  pub_psn_hi,
    output logic                              pub_lerr,
    output logic      [15:0]                  pub_lerr_idx,
    output logic      [7:0]                   pub_lerr_status,

    // SQE fetch (DMA read engine of this block)
    output logic      [63:0]                  m_rd_addr,
    output logic      [31:0]                  m_rd_len,
    output logic                              m_rd_valid,
    input  wire logic                         m_rd_ready,
    input  wire logic [511:0]                 s_rd_tdata,
    input  wire logic                         s_rd_tvalid,
    output logic                              s_rd_tready,
    input  wire logic                         s_rd_tlast,
    input  wire logic                         s_rd_tuser,

    // transmit jobs
    output fabnic_roce_pkg::tx_job_t          m_job,
    output logic                              m_job_valid,
    input  wire logic                         m_job_ready,

    // DCQCN: per-QP rate limiter (asked before every packet of a QP with cc enabled
    // while cfg_cc_on), and the bytes each packet put on the wire (reaction point)
    input  wire logic                         cfg_cc_on,
    output logic                              m_lim_valid,
    input  wire logic                         m_lim_ready,
    output logic      [QPN_W-1:0]             m_lim_qpn,
    output logic      [15:0]                  m_lim_len,
    input  wire logic                         s_lim_rsp_valid,
    input  wire logic                         s_lim_rsp_grant,
    input  wire logic [47:0]                  s_lim_rsp_time,
    input  wire logic [47:0]                  lim_time,
    // the limiter applied a new rate to this QP: a waiting QP asks again at once
    input  wire logic                         lim_upd_valid,
    input  wire logic [QPN_W-1:0]             lim_upd_qpn,
    output logic                              m_sent_valid,
    output logic      [QPN_W-1:0]             m_sent_qpn,
    output logic      [15:0]                  m_sent_bytes,

    output logic      [CNT_W-1:0]             cnt_req_pkts,
    output logic      [CNT_W-1:0]             cnt_retx_pkts,
    output logic      [CNT_W-1:0]             cnt_lkey_err,
    output logic      [CNT_W-1:0]             cnt_sr_retx     // SR single-packet resends
);
  import fabnic_pkt_pkg::*;

  import fabnic_roce_pkg::*;

  if (SQE_RETRIES < 0 || SQE_RETRIES > 3) begin : g_chk_retries
    $error("fabnic_roce_req: SQE_RETRIES must be 0..3");
  end

  typedef struct packed {
    logic [15:0] sq_pi;
    logic [15:0] sq_ci;
    logic [15:0] sq_hi;
    logic [31:0] off;
    logic [23:0] next_psn;
    logic [23:0] psn_hi;
    logic [23:0] ssn;        // SR: SSN of the WQE at sq_ci
    logic        in_sched;
    logic        err;
    logic        lerr;
    logic [15:0] lerr_idx;
    logic [7:0]  lerr_status;
    logic [1:0]  sqe_errs;   // SQE reads in a row that returned an AXI error
    logic        atom_v;     // an atomic was sent since init ...
    logic [23:0] atom_psn;   // ... at this PSN (the atomic fence, below)
  } rstate_t;

  // ---------------------------------------------------------------- tables
  qpc_t              st_rd;
  rstate_t           rs_rd, rs_wr_data;
  logic              rd_en, rs_wr_en;
  logic [QPN_W-1:0]  rd_addr, rs_wr_addr;

  fabnic_ram_sdp #(.DATA_W($bits(qpc_t)), .DEPTH(NUM_QP)) u_static (
      .clk, .wr_en(st_wr_en), .wr_be(1'b1), .wr_addr(st_wr_addr), .wr_data(st_wr_data),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(st_rd)
  );
  logic [23:0] una_rd, una_q;
  fabnic_ram_sdp #(.DATA_W(24), .DEPTH(NUM_QP)) u_una (
      .clk, .wr_en(una_wr_en), .wr_be(1'b1), .wr_addr(una_wr_addr), .wr_data(una_wr_data),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(una_rd)
  );
  fabnic_ram_sdp #(.DATA_W($bits(rstate_t)), .DEPTH(NUM_QP)) u_state (
      .clk, .wr_en(rs_wr_en), .wr_be(1'b1), .wr_addr(rs_wr_addr), .wr_data(rs_wr_data),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(rs_rd)
  );


  // ---------------------------------------------------------------- visit FSM registers
  typedef enum logic [3:0] {
    S_IDLE,      // take the next event (control, completer, prefetched QP, doorbell, FIFO)
    S_LOAD,      // context RAM words arrive; dispatch flags computed from them
    S_DISPATCH,  // decide what the event does (registered flags only)
    S_FETCH,     // issue the visit's SQE read (descriptor registered a cycle ahead)
    S_WAIT,      // take the next SQE beat into the decode registers
    S_SQE,       // decide on the SQE taken: read error, cache hit or check, resend walk
    S_WALK,      // SR resend walk: is the PSN in this WQE (registered compares, 2 cycles)
    S_CHK,       // issue the lkey check of sqe_q
    S_CHKW,      // wait for the check result
    S_PKT,       // act: a decided packet leaves (job_q), the position advances
    S_SKIP,      // drain SQE beats the visit does not use
    S_WB,        // write the state back, publish it, requeue the QP
    S_KICK,      // tell the completer (local error, doorbell in error)
    S_RLREQ,     // ask the rate limiter
    S_RLRSP,     // its answer
    S_RLWAIT     // wait for the grant time (or another QP / a rate update)
  } st_e;
  st_e st_q, st_d;

  typedef enum logic [2:0] { E_CTL, E_EV, E_DB, E_ACT, E_PF } ev_e;
  ev_e              ev_q, ev_d;
  logic             ev_op_q, ev_op_d;      // control op / completer event type bit 0
  logic             resend_q, resend_d;    // SR: emitting one rebuilt packet (event type 2)
  logic [15:0]      sv_sq_ci, sv_sq_ci_d;  // send position saved during a resend
  logic [31:0]      sv_off, sv_off_d;
  logic [23:0]      sv_next_psn, sv_next_psn_d;
  logic [23:0]      wpsn_q, wpsn_d;        // first PSN of the WQE being walked in a resend
  logic [23:0]      wssn_q, wssn_d;        // its SSN
  logic [23:0]      ev_ssn_q, ev_ssn_d;
  logic             ev_one_q, ev_one_d;
  logic [QPN_W-1:0] qpn_q, qpn_d;
  logic [23:0]      ev_psn_q, ev_psn_d, ev_wqe_psn_q, ev_wqe_psn_d;
  logic [15:0]      ev_idx_q, ev_idx_d;
  qpc_t             qc_q, qc_d;
  rstate_t          rs_q, rs_d;
  logic [23:0]      una_d;
  sqe_t             sqe_q, sqe_d;
  logic [63:0]      haddr_q, haddr_d;      // host address of the SQE's local buffer
  localparam int QW = $clog2(QUANTUM+1);
  logic [QW-1:0]    quantum_q, quantum_d;
  logic [15:0]      pk_q, pk_d;            // packets since the last AckReq
  logic             requeue_q, requeue_d, kick_q, kick_d;
  logic             redo_q, redo_d;        // discarding stale prefetched SQEs, then E_ACT
  logic             pfv_rd_q, pfv_rd_d;    // the visit's prefetch entry: a read was issued ...
  logic [15:0]      pfv_ci_q, pfv_ci_d;    // ... for the SQEs from this index
  logic             granted_q, granted_d;
  logic [47:0]      retry_at_q, retry_at_d;
  logic [23:0]      ctl_res_d;
  logic             ctl_done_d;
  logic [CNT_W-1:0] cnt_req_d, cnt_retx_d, cnt_lkey_d, cnt_srr_d;
  // decide/act bookkeeping: cycles since the packet stage's inputs last changed (0..2),
  // and since sq_ci last changed (0..2; the fetch descriptor's two register layers)
  logic [1:0]       pv_q, pv_d;
  logic [1:0]       fv_q, fv_d;
  // the SQE beat taken (S_WAIT, or S_PKT chaining the next WQE): decoded fields for S_SQE
  logic             f_user_q, f_user_d, f_hit_q, f_hit_d;
  logic             more_q;                // SQE beats of the visit's reads still to come

  // ---------------------------------------------------------------- decide stage
  tx_job_t     job_q;
  logic        p_done_q, p_read_q, p_atomic_q, p_bad_q, p_hold_q;
  logic        p_retx_q, p_hi1_q, p_hi2_q, p_hi_inc_q, p_q1_q;
  logic [23:0] p_nxt1_q, p_nxt2_q, p_ssn1_q;
  logic [31:0] p_off_seg_q;
  logic [15:0] p_ci1_q;
  logic        p_more_q;
  fabnic_roce_req_pkt #(.QPN_W(QPN_W), .QW(QW), .SR_W(SR_W)) u_pkt (
      .clk,
      .qc(qc_q), .qpn(qpn_q), .sqe(sqe_q), .haddr(haddr_q), .off(rs_q.off),
      .next_psn(rs_q.next_psn), .psn_hi(rs_q.psn_hi), .sq_ci(rs_q.sq_ci), .sq_pi(rs_q.sq_pi),
      .sq_hi(rs_q.sq_hi), .ssn(rs_q.ssn), .atom_v(rs_q.atom_v), .atom_psn(rs_q.atom_psn),
      .una(una_q), .pk(pk_q), .quantum(quantum_q), .resend(resend_q), .wssn(wssn_q),
      .ev_one(ev_one_q), .cfg_ack_cadence, .cfg_sr_inflight,
      .job_q, .p_done_q, .p_read_q, .p_atomic_q, .p_bad_q, .p_hold_q,
      .p_retx_q, .p_nxt1_q, .p_hi1_q, .p_off_seg_q, .p_ci1_q, .p_more_q, .p_hi_inc_q, .p_ssn1_q,
      .p_q1_q, .p_nxt2_q, .p_hi2_q
  );
  // the decided packet is valid: one cycle after its inputs settled, two for a READ
  logic p_ok;
  assign p_ok = pv_q[1] || (pv_q[0] && !p_read_q);

  // rate limiting: a packet of a paced QP needs a grant first
  logic        paced, paced_q;
  logic [15:0] wire_len;
  // (qc_q is loaded in S_LOAD; a visit's first packet is at least three cycles later)
  always_ff @(posedge clk) paced_q <= cfg_cc_on && qc_q.cc;
  assign paced    = paced_q;
  assign wire_len = job_q.plen + 16'd66;   // Eth+IPv4+UDP+BTH+RETH/ICRC+FCS, approximately
  assign m_lim_valid = st_q == S_RLREQ;
  assign m_lim_qpn   = qpn_q;
  assign m_lim_len   = wire_len;

  logic job_fire;
  assign m_job       = job_q;
  assign m_job_valid = st_q == S_PKT && p_ok && (!paced || granted_q) && !p_hold_q;
  assign job_fire    = m_job_valid && m_job_ready;
  // bytes-sent event of the DCQCN reaction point, registered (one cycle after the packet)
  always_ff @(posedge clk) begin
    m_sent_valid <= job_fire;
    m_sent_qpn   <= qpn_q;
    m_sent_bytes <= wire_len;
    if (rst) m_sent_valid <= 1'b0;
  end

  // ---------------------------------------------------------------- SQE reads
  logic             pf_go, pf_busy, pf_active, visit_read, others, pq_valid;
  logic             fetch_go, pop, last_read;
  logic [$clog2(PF_DEPTH):0] pq_cnt;
  logic [QPN_W-1:0] pq_qpn;
  logic             pq_rd;
  logic [15:0]      pq_ci;
  logic             take_ctl, take_pf, take_ev, take_db, take_act;
  logic             act_in_valid, act_out_valid;
  logic [QPN_W-1:0] act_in_qpn, act_out_qpn;

  // a visit whose own SQE read is out (not an SR resend walk, which fetches again)
  assign visit_read = (st_q == S_WAIT || st_q == S_SQE || st_q == S_CHK || st_q == S_CHKW
                       || st_q == S_PKT || st_q == S_RLREQ || st_q == S_RLRSP
                       || st_q == S_RLWAIT) && !resend_q;
  // other QPs are waiting for a visit (registered: it only steers turn-taking)
  logic others_q;
  always_ff @(posedge clk) others_q <= !rst && (act_out_valid || pf_busy);
  assign others  = others_q;

  fabnic_roce_req_fetch #(.QPN_W(QPN_W), .QW(QW), .SQE_BATCH(SQE_BATCH), .SQE_FIFO(SQE_FIFO),
                          .PF_DEPTH(PF_DEPTH), .PREFETCH(PREFETCH)) u_fetch (
      .clk, .rst,
      .fetch_st(st_q == S_FETCH), .fetch_ok(fv_q[1]), .ra_st(st_q == S_CHKW || st_q == S_PKT),
      .visit_read, .resend(resend_q), .sr(qc_q.sr), .err(rs_q.err), .sq_base(qc_q.sq_base),
      .sq_log(qc_q.sq_log), .sq_ci(rs_q.sq_ci), .sq_pi(rs_q.sq_pi),
      .ld(st_q == S_LOAD || st_q == S_DISPATCH), .ld_ci(rs_rd.sq_ci),
      .ld_pi(ev_q == E_DB ? ev_idx_q : rs_rd.sq_pi),
      .ld_log(st_rd.sq_log), .quantum(quantum_q),
      .others_wait(others), .ev_pending(s_ctl_valid || s_ev_valid), .fetch_go,
      .more(more_q), .one_read(last_read),
      .act_valid(act_out_valid), .act_qpn(act_out_qpn), .st_rd, .rd_sq_ci(rs_rd.sq_ci),
      .rd_sq_pi(rs_rd.sq_pi), .rd_in_sched(rs_rd.in_sched), .rd_err(rs_rd.err),
      .pf_go, .pf_busy, .pf_active, .pq_cnt, .pq_valid, .take_pf, .pq_qpn, .pq_rd, .pq_ci,
      .pop, .pop_last(s_rd_tlast),
      .m_rd_addr, .m_rd_len, .m_rd_valid, .m_rd_ready
  );

  // event intake, active FIFO, context RAM read port
  fabnic_roce_req_ev #(.NUM_QP(NUM_QP), .PF_DEPTH(PF_DEPTH), .QPN_W(QPN_W)) u_ev (
      .clk, .rst, .idle(st_q == S_IDLE), .ctl_valid(s_ctl_valid), .ctl_init(!s_ctl_op),
      .ctl_qpn(s_ctl_qpn), .ev_valid(s_ev_valid), .ev_qpn(s_ev_qpn), .db_valid(s_db_valid),
      .db_qpn(s_db_qpn), .pq_valid, .pq_qpn, .pq_cnt, .pf_active, .pf_busy, .pf_go,
      .take_ctl, .take_ev, .take_pf, .take_db, .take_act,
      .act_in_valid, .act_in_qpn, .act_valid(act_out_valid), .act_qpn(act_out_qpn),
      .rd_en, .rd_addr
  );
  // the event taken in S_IDLE (an AND-OR of the exclusive takes; E_CTL is 0)
  logic take_any;
  ev_e  ev_take;
  assign take_any = take_ctl || take_ev || take_db || take_act || take_pf;
  assign ev_take  = ev_e'(({3{take_ev}} & 3'(E_EV)) | ({3{take_db}} & 3'(E_DB))
                         | ({3{take_act}} & 3'(E_ACT)) | ({3{take_pf}} & 3'(E_PF)));
  assign s_ctl_ready   = take_ctl;
  assign s_ev_ready    = take_ev;
  // A doorbell for the QP being visited is taken by the visit itself (its SQ producer
  // index goes into rs_q, written back at the end of the visit) in S_WAIT and in S_PKT
  // cycles that offer no packet (no decision on the producer index is made then): the
  // visit, and its SQE read-ahead, go on with the newly posted WQEs instead of ending,
  // taking the doorbell in S_IDLE and starting a new visit with a fresh SQE read.
  logic db_absorb;
  assign db_absorb = s_db_valid && s_db_qpn == qpn_q && !resend_q
                     && (ev_q == E_ACT || ev_q == E_PF)
                     && (st_q == S_WAIT || (st_q == S_PKT && !m_job_valid));
  assign s_db_ready    = take_db || db_absorb;
  // SQE beats are taken in S_WAIT, in S_SKIP (not used), and by S_PKT in the cycle its
  // packet ends a WQE and the visit goes on (chain_take): the next WQE's SQE is then
  // decided in S_SQE while that packet leaves. The take never depends on the beat's
  // contents; only on the state, on m_job_ready (the chaining packet leaves) and on
  // registered flags.
  logic chain_ok, chain_take;
  // (a fetch decided in the cycle the prefetch stage starts still goes first: the stage's
  // read waits while the visit is in S_FETCH)
  // (p_more_q lags a doorbell the visit took by a cycle: the visit then ends and is
  // requeued, by the exact compare below)
  assign chain_ok   = (!p_q1_q || !others) && p_more_q && (more_q || !pf_busy);
  assign chain_take = st_q == S_PKT && !resend_q && job_fire && p_done_q && chain_ok && more_q
                      && s_rd_tvalid;
  assign s_rd_tready = st_q == S_WAIT || st_q == S_SKIP || chain_take;
  assign pop         = s_rd_tvalid && s_rd_tready;

  // SQE decode, translation cache and lkey checks (S_CHK issues the check of sqe_q)
  sqe_t        sqe_in;
  logic        hit_in, chk_ready, chk_res_valid, chk_ok;
  logic [63:0] mc_off, chk_addr;
  fabnic_roce_req_sqe #(.NUM_MR(NUM_MR), .CNT_W(CNT_W)) u_sqe (
      .clk, .rst, .mr_wr_valid, .mr_wr_index, .mr_wr_entry, .pd(qc_q.pd),
      .beat(s_rd_tdata), .sqe(sqe_in), .hit(hit_in), .off(mc_off),
      .chk_valid(st_q == S_CHK), .chk_ready, .chk_sqe(sqe_q), .chk_atomic(p_atomic_q),
      .chk_res_valid, .chk_ok, .chk_addr, .fill(st_q == S_CHKW && chk_res_valid && chk_ok)
  );

  assign m_kick_valid = st_q == S_KICK;
  assign m_kick_qpn   = qpn_q;

  // writeback and publication (the same cycle)
  logic pub_now_q;
  always_ff @(posedge clk) pub_now_q <= !rst && job_fire;
  always_comb begin
    rs_wr_en   = st_q == S_WB;
    rs_wr_addr = qpn_q;
    rs_wr_data = rs_q;
    pub_wr_en       = rs_wr_en || pub_now_q;   // also right after every packet sent
    pub_wr_addr     = qpn_q;
    pub_sq_pi       = rs_q.sq_pi;
    pub_sq_hi       = rs_q.sq_hi;
    pub_psn_hi      = rs_q.psn_hi;
    pub_lerr        = rs_q.lerr;
    pub_lerr_idx    = rs_q.lerr_idx;
    pub_lerr_status = rs_q.lerr_status;
    act_in_valid    = st_q == S_WB && requeue_q;
    act_in_qpn      = qpn_q;
  end

  // dispatch flags, computed in S_LOAD from the RAM words (S_DISPATCH sees flops only)
  logic        d_sched, d_err, d_rts, d_qerr, d_empty, d_pfci, d_win_full, d_db_fast;
  logic        d_lerr;
  logic [31:0] d_rw_off;
  logic [23:0] d_win_cap;
  assign d_win_cap = (cfg_sr_inflight == '0 || cfg_sr_inflight > 24'(SR_W)) ? 24'(SR_W)
                                                                            : cfg_sr_inflight;
  always_ff @(posedge clk) begin
    if (st_q == S_LOAD) begin
      d_sched    <= rs_rd.in_sched;
      d_err      <= rs_rd.err;
      d_lerr     <= rs_rd.lerr;
      d_rts      <= st_rd.state == QPS_RTS;
      d_qerr     <= st_rd.state == QPS_ERR;
      d_empty    <= rs_rd.sq_ci == rs_rd.sq_pi;
      d_pfci     <= rs_rd.sq_ci == pfv_ci_q;
      // a doorbell that may start the visit at once: the QP is idle, RTS, not SR, and
      // the doorbell posts new SQEs
      d_db_fast  <= !rs_rd.in_sched && !rs_rd.err && st_rd.state == QPS_RTS && !st_rd.sr
                    && rs_rd.sq_ci != ev_idx_q;
      d_win_full <= st_rd.sr && (rs_rd.next_psn - una_rd) >= d_win_cap;
      d_rw_off   <= 32'(ev_psn_q - ev_wqe_psn_q) << pmtu_log(st_rd.pmtu);
    end
  end

  // SR resend walk: computed every cycle from sqe_q and the walk registers in three
  // layers (the path MTU of qc_q as a mask and one-hot; len + mask and the PSN distance;
  // the span max(1, ceil(len / PMTU)) and the offset; the compare with the PSN to resend).
  // sqe_q is taken on the S_WAIT -> S_SQE edge, so layer 1 is computed in S_SQE and the
  // compare is valid in the third cycle of S_WALK, when S_WALK decides (pv_q == 2).
  logic [31:0] w_m1_q, w_n_q, w_dp_q;
  logic [4:0]  w_1h_q;       // one-hot: PMTU 256 .. 4096
  logic        w_one_q;      // span 1: atomic, or length 0
  logic [23:0] w_span, w_span_q;
  logic [31:0] w_off, w_off_q;
  logic        w_beyond_q, w_rdh_q, w_rqe_q, w_last_q;
  logic [23:0] w_x;
  assign w_x = w_span_q - w_dp_q[23:0];
  always_comb begin
    w_span = '0;
    w_off  = '0;
    for (int i = 0; i < 5; i++) begin
      if (w_1h_q[i]) begin
        w_span = w_span | 24'(w_n_q >> (8 + i));
        w_off  = w_off | (w_dp_q << (8 + i));
      end
    end
  end
  always_ff @(posedge clk) begin
    w_m1_q     <= (32'd1 << pmtu_log(qc_q.pmtu)) - 32'd1;
    for (int i = 0; i < 5; i++) w_1h_q[i] <= pmtu_log(qc_q.pmtu) == 4'(8 + i);
    w_n_q      <= sqe_q.len + w_m1_q;
    w_one_q    <= sqe_q.opcode == WR_CMP_SWAP || sqe_q.opcode == WR_FETCH_ADD
                  || sqe_q.len == 32'd0;
    w_dp_q     <= 32'(ev_psn_q - wpsn_q);
    w_span_q   <= w_one_q ? 24'd1 : w_span;
    w_off_q    <= w_off;
    // psn_le(wpsn_q + w_span_q, ev_psn_q), from the registered distance ev_psn_q - wpsn_q
    w_beyond_q <= w_x[23] || w_x == 24'd0;
    w_rdh_q    <= ev_op_q && !ev_one_q && ev_psn_q != wpsn_q && sqe_q.opcode == WR_READ;
    w_rqe_q    <= sqe_q.opcode == WR_SEND || sqe_q.opcode == WR_SEND_IMM
                  || sqe_q.opcode == WR_WRITE_IMM;
    w_last_q   <= rs_q.sq_ci + 16'd1 == rs_q.sq_hi;
  end

  // ---------------------------------------------------------------- visit FSM
  // One process computes the next state and the next value of every visit register
  // (defaults: hold); the flops below take them. Each state decides from registers only:
  // the SQE beat is decoded into registers before S_SQE decides on it, the packet is
  // decided by fabnic_roce_req_pkt before S_PKT sends it.
  logic [1:0] pv_inc, fv_inc;
  assign pv_inc = pv_q[1] ? 2'd2 : pv_q + 2'd1;
  assign fv_inc = fv_q[1] ? 2'd2 : fv_q + 2'd1;
  always_comb begin
    st_d = st_q;
    ev_d = ev_q; ev_op_d = ev_op_q; resend_d = resend_q; qpn_d = qpn_q;
    ev_psn_d = ev_psn_q; ev_wqe_psn_d = ev_wqe_psn_q; ev_idx_d = ev_idx_q;
    ev_ssn_d = ev_ssn_q; ev_one_d = ev_one_q; pfv_rd_d = pfv_rd_q; pfv_ci_d = pfv_ci_q;
    sv_sq_ci_d = sv_sq_ci; sv_off_d = sv_off; sv_next_psn_d = sv_next_psn;
    wpsn_d = wpsn_q; wssn_d = wssn_q;
    qc_d = qc_q; rs_d = rs_q; una_d = una_q; sqe_d = sqe_q; haddr_d = haddr_q;
    quantum_d = quantum_q; pk_d = pk_q; requeue_d = requeue_q; kick_d = kick_q;
    redo_d = redo_q; granted_d = granted_q; retry_at_d = retry_at_q;
    ctl_res_d = m_ctl_result; ctl_done_d = 1'b0;
    cnt_req_d = cnt_req_pkts; cnt_retx_d = cnt_retx_pkts; cnt_lkey_d = cnt_lkey_err;
    cnt_srr_d = cnt_sr_retx;
    f_user_d = f_user_q; f_hit_d = f_hit_q;
    pv_d = 2'd0;        // the packet stage's inputs change unless a state says otherwise
    fv_d = fv_inc;      // sq_ci holds unless a state says otherwise

    unique case (st_q)
      S_IDLE: begin
        // the takes are exclusive (fabnic_roce_req_ev): each register takes its source
        // under its own take, the QP number is the RAM read address
        requeue_d = 1'b0;
        kick_d    = 1'b0;
        resend_d  = take_ev && s_ev_type[1];
        if (take_ctl || take_ev) begin
          ev_op_d  = take_ctl ? s_ctl_op : s_ev_type[0];
          ev_psn_d = take_ctl ? s_ctl_psn : s_ev_psn;
        end
        if (take_ev) begin
          ev_wqe_psn_d = s_ev_wqe_psn; ev_idx_d = s_ev_wqe_idx; ev_ssn_d = s_ev_wqe_ssn;
          ev_one_d = s_ev_one;
        end
        if (take_db) ev_idx_d = s_db_pi;
        if (take_pf) begin
          pfv_rd_d = pq_rd; pfv_ci_d = pq_ci;
        end
        if (take_any) begin
          ev_d  = ev_take;
          qpn_d = rd_addr;
          st_d  = S_LOAD;
        end
      end
      S_LOAD: begin
        qc_d  = st_rd;
        rs_d  = rs_rd;
        una_d = una_rd;
        fv_d  = 2'd1;       // layer A of the fetch descriptor comes from the RAM words
        st_d  = S_DISPATCH;
      end
      S_DISPATCH: begin
        quantum_d = QW'(QUANTUM);
        pk_d      = '0;
        unique case (ev_q)
          E_CTL: begin
            ctl_done_d = 1'b1;
            if (!ev_op_q) begin
              rs_d = '0;
              rs_d.next_psn = ev_psn_q;
              rs_d.psn_hi   = ev_psn_q;
              st_d = S_WB;
            end else begin
              ctl_res_d = rs_q.next_psn;
              st_d = S_IDLE;
            end
          end
          E_EV: begin
            if (resend_q) begin
              // SR: walk the SQEs from the oldest uncompleted WQE to the PSN's WQE.
              // Also after a local error (lerr): the send side is stopped, but a PSN
              // it sent before the error is still resent when the completer asks (the
              // completer asks for una alone, and its AckReq gets the cumulative ACK of
              // the WQEs before the failing one)
              if ((d_err && !d_lerr) || !d_rts) begin
                st_d = S_IDLE;
              end else begin
                sv_sq_ci_d    = rs_q.sq_ci;
                sv_off_d      = rs_q.off;
                sv_next_psn_d = rs_q.next_psn;
                rs_d.sq_ci    = ev_idx_q;
                fv_d          = 2'd0;
                wpsn_d        = ev_wqe_psn_q;
                wssn_d        = ev_ssn_q;
                st_d = S_FETCH;
              end
            end else if (ev_op_q) begin
              rs_d.err = 1'b1;
              st_d = S_WB;
            end else if (!d_err) begin
              rs_d.sq_ci    = ev_idx_q;
              rs_d.ssn      = ev_ssn_q;
              rs_d.next_psn = ev_psn_q;
              rs_d.off      = d_rw_off;
              if (!d_sched) begin
                rs_d.in_sched = 1'b1;
                requeue_d     = 1'b1;
              end
              st_d = S_WB;
            end else begin
              st_d = S_IDLE;
            end
          end
          E_DB: begin
            rs_d.sq_pi = ev_idx_q;
            st_d = S_WB;
            if (d_err || d_qerr) begin
              kick_d = 1'b1;   // the completer flushes what was just posted
            end else if (!d_sched && d_rts) begin
              rs_d.in_sched = 1'b1;
              if (d_db_fast && !others && !s_ctl_valid && !s_ev_valid) begin
                // nothing else waits: the visit starts here instead of after a turn
                // through the active FIFO (the QP is scheduled and being visited)
                ev_d = E_ACT;
                st_d = S_FETCH;
              end else begin
                requeue_d = 1'b1;
              end
            end
          end
          default: begin  // E_ACT, E_PF
            if (ev_q == E_PF && pfv_rd_q
                && !(d_sched && !d_err && d_rts && !d_win_full && !d_empty && d_pfci)) begin
              redo_d = 1'b1;         // prefetched SQEs are stale: drop them, then as E_ACT
              st_d = S_SKIP;
            end else if (!d_sched) begin
              st_d = S_IDLE;         // stale entry (QP re-initialised)
            end else if (d_err || !d_rts || d_empty) begin
              rs_d.in_sched = 1'b0;
              st_d = S_WB;
            end else if (d_win_full) begin
              requeue_d = 1'b1;      // SR window full: poll again later
              st_d = S_WB;
            end else begin
              st_d = (ev_q == E_PF && pfv_rd_q) ? S_WAIT : S_FETCH;
            end
          end
        endcase
      end
      S_FETCH: if (fetch_go && m_rd_ready) st_d = S_WAIT;
      S_WAIT: begin
        if (s_rd_tvalid) begin
          sqe_d    = sqe_in;
          haddr_d  = sqe_in.laddr + mc_off;      // used when the cache hits
          f_user_d = s_rd_tuser;
          f_hit_d  = hit_in;
          st_d     = S_SQE;
        end
      end
      S_SQE: begin
        // an AXI error on a beat (tuser: an error so far in this read) means its SQE
        // and every later one of the read are not used
        if (!f_user_q) rs_d.sqe_errs = '0;
        if (resend_q && f_user_q) begin
          rs_d.sq_ci = sv_sq_ci;                 // resend abandoned (the timer covers it)
          fv_d = 2'd0;
          st_d = more_q ? S_SKIP : S_WB;
        end else if (resend_q) begin
          st_d = S_WALK;
        end else if (f_user_q) begin
          // the QP stays scheduled and reads the SQE again on its next visit, up to
          // SQE_RETRIES times in a row; then the WQE completes with LOC_QP_OP_ERR
          // and the QP's send side stops (the completer flushes the rest)
          if (rs_q.sqe_errs == 2'(SQE_RETRIES)) begin
            rs_d.err         = 1'b1;
            rs_d.in_sched    = 1'b0;
            rs_d.lerr        = 1'b1;
            rs_d.lerr_idx    = rs_q.sq_ci;
            rs_d.lerr_status = WS_LOC_QP_OP_ERR;
            kick_d           = 1'b1;
          end else begin
            rs_d.sqe_errs = rs_q.sqe_errs + 2'd1;
            requeue_d     = 1'b1;
          end
          // the rest of this read and a read-ahead's beats follow
          st_d = more_q ? S_SKIP : S_WB;
        end else if (f_hit_q && !mr_wr_valid) begin
          pv_d = pv_inc;                         // translated by the cache (haddr_q)
          st_d = S_PKT;
        end else begin
          pv_d = pv_inc;
          st_d = S_CHK;
        end
      end
      S_WALK: begin
        if (!pv_q[1]) begin
          pv_d = pv_inc;                         // w_* settle: span, then the compare
        end else if (w_beyond_q) begin
          // the PSN is beyond this WQE: next SQE
          fv_d       = 2'd0;
          rs_d.sq_ci = rs_q.sq_ci + 16'd1;
          wpsn_d     = wpsn_q + w_span_q;
          wssn_d     = wssn_q + 24'(w_rqe_q);
          if (w_last_q) begin
            rs_d.sq_ci = sv_sq_ci;               // not a sent PSN: nothing to do
            st_d = more_q ? S_SKIP : S_WB;
          end else begin
            st_d = more_q ? S_WAIT : S_FETCH;
          end
        end else if (w_rdh_q) begin
          rs_d.sq_ci = sv_sq_ci;                 // SACK hole inside a READ: the READ's first
          fv_d = 2'd0;                           // PSN is resent (or executed) on its own
          st_d = more_q ? S_SKIP : S_WB;
        end else begin
          rs_d.off      = w_off_q;
          rs_d.next_psn = ev_psn_q;
          st_d = S_CHK;
        end
      end
      S_SKIP: if (s_rd_tvalid && s_rd_tlast && last_read) begin   // SQEs not used
        if (redo_q && pf_busy && d_sched && !d_err && d_rts && !d_empty) begin
          redo_d    = 1'b0;      // later entries' reads are out: visit it again later
          requeue_d = 1'b1;
          st_d      = S_WB;
        end else if (redo_q) begin
          redo_d = 1'b0;
          ev_d   = E_ACT;
          st_d   = S_DISPATCH;
        end else begin
          st_d = S_WB;
        end
      end
      S_CHK: begin
        pv_d = pv_inc;
        if (chk_ready) st_d = S_CHKW;
      end
      S_CHKW: begin
        pv_d = pv_inc;
        if (chk_res_valid) begin
          pv_d    = 2'd0;
          haddr_d = chk_addr;
          if (!chk_ok || p_bad_q) begin
            rs_d.err         = 1'b1;
            rs_d.in_sched    = 1'b0;
            rs_d.lerr        = 1'b1;
            rs_d.lerr_idx    = rs_q.sq_ci;
            rs_d.lerr_status = !chk_ok ? WS_LOC_PROT_ERR : WS_LOC_LEN_ERR;
            cnt_lkey_d       = cnt_lkey_err + CNT_W'(!chk_ok);
            kick_d           = 1'b1;
            st_d             = more_q ? S_SKIP : S_WB;
          end else begin
            st_d = S_PKT;
          end
        end
      end
      S_RLREQ: begin
        pv_d = pv_inc;
        if (m_lim_ready) st_d = S_RLRSP;
      end
      S_RLRSP: begin
        pv_d = pv_inc;
        if (s_lim_rsp_valid) begin
          if (s_lim_rsp_grant) begin
            granted_d = 1'b1;
            st_d = S_PKT;
          end else if (others && !resend_q) begin
            // other QPs are waiting: give way, come back later
            requeue_d = 1'b1;
            st_d = more_q ? S_SKIP : S_WB;
          end else begin
            retry_at_d = s_lim_rsp_time;
            st_d = S_RLWAIT;
          end
        end
      end
      S_RLWAIT: begin
        pv_d = pv_inc;
        if (lim_time >= retry_at_q || others || (lim_upd_valid && lim_upd_qpn == qpn_q))
          st_d = S_RLREQ;
      end
      S_PKT: begin
        pv_d = pv_inc;
        if (paced && !granted_q) st_d = S_RLREQ;
        if (resend_q) begin
          if (job_fire) begin
            granted_d     = 1'b0;
            cnt_req_d     = cnt_req_pkts + 1'b1;
            cnt_retx_d    = cnt_retx_pkts + 1'b1;
            cnt_srr_d     = cnt_sr_retx + 1'b1;
            rs_d.sq_ci    = sv_sq_ci;
            rs_d.off      = sv_off;
            rs_d.next_psn = sv_next_psn;
            pv_d          = 2'd0;
            fv_d          = 2'd0;
            st_d = more_q ? S_SKIP : S_WB;
          end
        end else if (p_ok && p_hold_q) begin
          // SR window full / atomic fence: end the visit at this position, poll later
          requeue_d = 1'b1;
          st_d = more_q ? S_SKIP : S_WB;
        end else if (job_fire) begin
          pv_d       = 2'd0;
          granted_d  = 1'b0;
          cnt_req_d  = cnt_req_pkts + 1'b1;
          cnt_retx_d = cnt_retx_pkts + CNT_W'(p_retx_q);
          rs_d.next_psn = p_read_q ? p_nxt2_q : p_nxt1_q;
          if (p_read_q ? p_hi2_q : p_hi1_q) rs_d.psn_hi = p_read_q ? p_nxt2_q : p_nxt1_q;
          if (p_atomic_q) begin
            rs_d.atom_v   = 1'b1;
            rs_d.atom_psn = rs_q.next_psn;
          end
          pk_d      = job_q.hdr.bth.ack_req ? 16'd0 : pk_q + 16'd1;
          quantum_d = quantum_q - 1'b1;
          if (p_done_q) begin
            rs_d.off   = '0;
            rs_d.sq_ci = p_ci1_q;
            fv_d       = 2'd0;
            rs_d.ssn   = p_ssn1_q;
            if (p_hi_inc_q) rs_d.sq_hi = p_ci1_q;
            // go on with the next WQE (a new fetch only if no prefetch is out)
            if (chain_ok) begin
              if (p_q1_q) quantum_d = QW'(QUANTUM);
              st_d = more_q ? S_WAIT : S_FETCH;
              if (chain_take) begin            // next SQE taken: decided in S_SQE
                sqe_d    = sqe_in;
                haddr_d  = sqe_in.laddr + mc_off;
                f_user_d = s_rd_tuser;
                f_hit_d  = hit_in;
                st_d     = S_SQE;
              end
            end else begin
              requeue_d = p_ci1_q != rs_q.sq_pi;
              if (p_ci1_q == rs_q.sq_pi) rs_d.in_sched = 1'b0;
              st_d = more_q ? S_SKIP : S_WB;
            end
          end else begin
            rs_d.off = p_off_seg_q;
            if (p_q1_q) begin
              if (others) begin
                requeue_d = 1'b1;
                st_d      = more_q ? S_SKIP : S_WB;
              end else begin
                // no other QP is waiting: keep going with a fresh quantum (no SQE re-read)
                quantum_d = QW'(QUANTUM);
              end
            end
          end
        end
      end
      S_WB: st_d = kick_q ? S_KICK : S_IDLE;
      S_KICK: if (m_kick_ready) st_d = S_IDLE;
      default: st_d = S_IDLE;
    endcase
    if (db_absorb) rs_d.sq_pi = s_db_pi;
  end

  // the state flop
  always_ff @(posedge clk) begin
    st_q <= st_d;
    if (rst) st_q <= S_IDLE;
  end

  // the visit registers
  always_ff @(posedge clk) begin
    ev_q <= ev_d; ev_op_q <= ev_op_d; resend_q <= resend_d; qpn_q <= qpn_d;
    ev_psn_q <= ev_psn_d; ev_wqe_psn_q <= ev_wqe_psn_d; ev_idx_q <= ev_idx_d;
    ev_ssn_q <= ev_ssn_d; ev_one_q <= ev_one_d; pfv_rd_q <= pfv_rd_d; pfv_ci_q <= pfv_ci_d;
    sv_sq_ci <= sv_sq_ci_d; sv_off <= sv_off_d; sv_next_psn <= sv_next_psn_d;
    wpsn_q <= wpsn_d; wssn_q <= wssn_d;
    qc_q <= qc_d; rs_q <= rs_d; una_q <= una_d; sqe_q <= sqe_d; haddr_q <= haddr_d;
    quantum_q <= quantum_d; pk_q <= pk_d; requeue_q <= requeue_d; kick_q <= kick_d;
    redo_q <= redo_d; granted_q <= granted_d; retry_at_q <= retry_at_d;
    m_ctl_result <= ctl_res_d; m_ctl_done <= ctl_done_d;
    cnt_req_pkts <= cnt_req_d; cnt_retx_pkts <= cnt_retx_d; cnt_lkey_err <= cnt_lkey_d;
    cnt_sr_retx <= cnt_srr_d;
    f_user_q <= f_user_d; f_hit_q <= f_hit_d;
    pv_q <= pv_d; fv_q <= fv_d;
    if (rst) begin
      cnt_req_pkts  <= '0;
      cnt_retx_pkts <= '0;
      cnt_lkey_err  <= '0;
      cnt_sr_retx   <= '0;
      resend_q      <= 1'b0;
      redo_q        <= 1'b0;
      requeue_q     <= 1'b0;
      kick_q        <= 1'b0;
      m_ctl_done    <= 1'b0;
      granted_q     <= 1'b0;
      pv_q          <= '0;
      fv_q          <= '0;
    end
  end

  logic unused;
  assign unused = ^{rs_rd.lerr, qc_q, sqe_q};

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (st_q inside {S_IDLE, S_LOAD, S_DISPATCH, S_FETCH, S_WAIT, S_SQE, S_WALK, S_CHK,
                           S_CHKW,
                           S_PKT, S_SKIP, S_WB, S_KICK, S_RLREQ, S_RLRSP, S_RLWAIT})
        else $error("fabnic_roce_req: illegal visit state");
      assert (!(job_fire && !p_ok))
        else $error("fabnic_roce_req: packet sent before its decide stage settled");
      // the atomic fence: at most one unacknowledged atomic per QP
      assert (!(job_fire && p_atomic_q && !resend_q && rs_q.atom_v
                && rs_q.atom_psn != rs_q.next_psn && !psn_lt(rs_q.atom_psn, una_q)))
        else $error("fabnic_roce_req: atomic sent past the fence on QP %0d", qpn_q);
      // the SR window cap on new packets
      assert (!(job_fire && qc_q.sr && !resend_q && (rs_q.next_psn - una_q) >= d_win_cap))
        else $error("fabnic_roce_req: SR packet sent at the window cap on QP %0d", qpn_q);
      assert (!(pop && !(st_q inside {S_WAIT, S_SKIP, S_PKT})))
        else $error("fabnic_roce_req: SQE beat taken outside S_WAIT/S_SKIP/S_PKT");
      assert (!(st_q == S_WALK && pv_q[1]
                && w_beyond_q != psn_le(wpsn_q + w_span_q, ev_psn_q)))
        else $error("fabnic_roce_req: resend walk compare differs from psn_le");
    end
  end
`endif

endmodule

`resetall
