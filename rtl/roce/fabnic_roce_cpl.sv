// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl: RC completer (the requester's receive side and its timers).
//
// Per QP (block RAM): the oldest unacknowledged PSN (una), the SQ index and first PSN
// of the oldest uncompleted WQE, a copy of that WQE's SQE fields once loaded, retry
// and RNR-retry budgets, the retransmission timer, and the error state.
//
// Inputs, one at a time: control (init/query), response packets (ACK, NAK, RNR NAK,
// READ responses, atomic ACKs) with their payload, kicks from the requester, local
// faults from the core (a write of this engine answered with a BRESP error; a request
// frame sent with its payload read failed), and a timer sweep that visits QPs
// round-robin between packets.
//
// Completion ("advance"): starting at the oldest WQE, re-read its SQE (DMA, up to SQE_BATCH per
// read, one 512-bit beat each; unused ones are discarded), compute
// its PSN span (deterministic, see fabnic_roce_req), and complete SEND/WRITE WQEs
// whose last PSN is acknowledged; READ and atomic WQEs complete when their response
// arrives. A CQE goes out for signaled WQEs and for every error. An ACK never moves
// una past a READ/atomic whose response is missing (the timer re-requests it).
//
// Errors: NAK sequence error -> go-back-N rewind (retry budget); RNR NAK -> wait one
// timeout then rewind (RNR budget, 7 = infinite); remote access/invalid/operational
// NAK, exhausted budgets, and the requester's local errors -> the oldest WQE completes
// with the error status, the QP enters ERR (the requester is told to stop) and every
// further posted WQE completes with WR_FLUSH_ERR. A write fault (READ data or atomic
// value not written) is such an error with LOC_QP_OP_ERR; a payload-read fault is
// remembered (pay_err) until the next progress, and a retry budget spent with it set
// ends in LOC_QP_OP_ERR instead of RETRY_EXC_ERR. Both are decided in S_FLT from
// terms registered in S_DISPATCH.
//
// Selective repeat (QP context bit sr, docs/roce_sr.md): a SACK (0xC0) acknowledges
// like an ACK of its PSN; its bitmap (base = PSN + 1) asks for the missing PSNs below
// the highest PSN it marks that were not resent yet (per-QP rtx_hi): one event of type
// 3 ("resend this PSN", with the oldest uncompleted WQE as the start of the requester's
// SQE walk; PSNs inside a READ other than its first are skipped there) per missing PSN. The retransmission timer (and the wait after an RNR NAK)
// resends only una (type 2) instead of rewinding, and lowers rtx_hi to una + 1 so the
// next SACK asks again for holes whose resends were lost. una is exported to the
// requester (window cap) on every state write.
// SR probe (cfg_sr_probe ticks, 0 = off): an SR QP whose requester is stalled (every
// posted WQE sent, or cfg_sr_inflight PSNs in flight) and which has heard no response at
// all for that long (packets still queued in the NIC or on the wire keep bringing SACKs;
// only silence means nothing more will come) resends, if every posted WQE was sent (a
// tail), every PSN of [una, psn_hi) once, else (window stall) una only (type 3 events,
// as for a SACK; rtx_hi set past the resent PSNs) without spending its retry budget.
// If silence goes on, it probes again after twice the time, then four times (3 probes
// per no-progress period at most: a loss burst can take the first probe's resends
// too); the retransmission timer runs from the first probe; progress re-arms the
// probe. (Resending only una recovered an incast's tail drops one packet per probe
// period.)
// READ responses of an SR QP are placed out of order too: a response for a PSN above
// una inside the oldest WQE (a READ whose request was executed) and less than SR_W
// above una is placed at its offset and marked in a per-QP bitmap (rr_bmp, bit i = PSN
// una + i); an in-order response moves una over the marked run after it. Holes at least
// cfg_sr_reorder below the highest marked response are asked for once each (rtx_hi),
// as SACK holes are, with events that carry `one`: the requester re-requests exactly
// that response packet (a READ request of one PMTU at its PSN, which the responder
// re-executes as a duplicate READ), not the rest of the READ.
// A stalled requester sends nothing that could bring a SACK, so this recovers tail
// losses (fewer than sr_reorder packets after the hole), lost resends and lost ACKs in
// a few microseconds instead of an RTO.
//
// SQE look-ahead (PREFETCH=1): with many QPs, each response usually belongs to another
// QP than the last, and re-reading that QP's oldest SQE cost a host-memory round trip
// per response. While a response is being handled, a prefetch stage looks at the next
// response header waiting at s_hdr, reads that QP's state (on the RAM read port, which
// the FSM uses only when it takes an event) and, if its oldest sent WQE is not loaded,
// issues the SQE read. SQE reads return in issue order, so the prefetch is issued only
// in states where the FSM's own read for this event is already out or will not be
// needed (never between a fetch decision and its fetch), and it sits in a one-entry
// slot until the FSM's current beats are consumed: at the next fetch decision the slot
// becomes the cache descriptor (cache_qpn_q/next_idx_q/more_q), and the ordinary cache
// logic then uses its beats (hit) or drains them (miss) before fetching. A control op
// that re-initialises a QP marks a pending slot stale, as it does the cache.
// The same slot also reads ahead for the QP being handled: while its current read is
// being consumed and more SQEs are posted behind it, the next SQEs (up to SQE_BATCH;
// the FIFO holds two batches) are read into the slot, so a stream of small WQEs on one
// QP does not wait a host round trip per batch.
//
// Per-QP state and hazards: one event at a time owns the QP's state words (read in the
// pick cycle, loaded in S_LOAD, written back in S_WB), so two operations on one QP are
// never in flight; the prefetch stage only reads. Decisions are registered one state
// ahead of the state that acts on them: S_LOAD registers the timer, probe and window
// checks S_DISPATCH branches on; S_ADV / S_WAIT / S_CHKW register the new una for
// S_POST; the path-MTU one-hot, the SQ mask and wqe_idx + 1 are registers of the loaded
// QP; the distances tgt_q - wqe_psn and tgt_q - w_end are kept beside those registers
// (the end PSN of a loaded WQE is part of the state word), so a completion test is the
// sign of one subtraction; the READ-response run length over rr_bmp is a two-step
// registered count; counters count a registered event flag. The selective-repeat
// resend planning (SACK holes, READ-response holes, probe resends) is the submodule
// fabnic_roce_cpl_sack, a pipelined planner with a registered handshake, whose PSNs
// leave as type 3 events while the FSM waits in S_SREV. docs/roce_engine.md has the
// measured depth and the cycles each SR step takes.
//
// Handshakes: the event sources are picked in S_IDLE by priority (control, write
// faults, response packets, kicks, payload-read faults, timer), so s_wf_ready,
// s_hdr_ready, s_kick_ready and s_pf_ready depend on the higher sources' valids (one
// pick a cycle).
// Two combinational paths cross the module by design: in S_PLACE the READ-response
// payload streams through (s_axis_tvalid -> m_wr_tvalid, m_wr_tready -> s_axis_tready),
// and S_CQE takes the next SQE beat in the cycle the CQE is accepted (m_cqe_ready ->
// s_rd_tready; s_rd_tvalid -> s_rd_tready there). In the core the other ends are the
// receive payload queue, the write arbiter, the SQE FIFO and the CQE queue.
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

  if (SQE_BATCH < 1 || SQE_BATCH > 64) begin : g_check_batch
    $error("fabnic_roce_cpl: SQE_BATCH must be 1..64");
  end
  if (SR_W > 64) begin : g_check_sr_w
    $error("fabnic_roce_cpl: SR_W must be <= 64 (the SACK and READ-response bitmaps)");
  end

  typedef struct packed {
    logic [23:0] una;
    logic [15:0] wqe_idx;
    logic [23:0] wqe_psn;
    logic [23:0] wqe_ssn;    // SR: SSN of that WQE (receive-WQE-consuming messages before it)
    logic        loaded;
    logic [7:0]  w_opcode;
    logic [7:0]  w_flags;
    logic [31:0] w_len;
    logic [63:0] w_wr_id;
    logic [63:0] w_haddr;
    logic [23:0] w_end;      // first PSN after that WQE (valid while loaded)
    logic [2:0]  retry_left;
    logic        pay_err;    // a request frame since the last progress had its payload read fail
    logic [2:0]  rnr_left;
    logic        armed;
    logic        rnr_wait;
    logic [15:0] t_start;
    logic        err;
    logic [7:0]  err_status;
    logic [23:0] rtx_hi;     // SR: PSNs below this were already resent from SACKs
    logic [23:0] rr_rtx_hi;  // SR: READ responses below this were already re-requested
    logic [1:0]  probes;     // SR: probes sent in this no-progress period (at most 3)
    logic [15:0] fb_t;       // SR: tick of the last response (ACK/SACK/NAK) for the QP
    logic [63:0] rr_bmp;     // SR: READ responses placed out of order, bit i = PSN una+i
  } astate_t;

  typedef struct packed {
    logic [15:0] sq_pi;
    logic [15:0] sq_hi;
    logic [23:0] psn_hi;
    logic        lerr;
    logic [15:0] lerr_idx;
    logic [7:0]  lerr_status;
  } pub_t;

  // ---------------------------------------------------------------- tables
  qpc_t             st_rd;
  astate_t          as_rd;
  pub_t             pb_rd;
  logic             rd_en, as_wr_en;
  logic [QPN_W-1:0] rd_addr, qpn_q;
  astate_t          a_q;
  qpc_t             qc_q;
  pub_t             pb_q;

  fabnic_ram_sdp #(.DATA_W($bits(qpc_t)), .DEPTH(NUM_QP)) u_static (
      .clk, .wr_en(st_wr_en), .wr_be(1'b1), .wr_addr(st_wr_addr), .wr_data(st_wr_data),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(st_rd)
  );
  fabnic_ram_sdp #(.DATA_W($bits(astate_t)), .DEPTH(NUM_QP)) u_state (
      .clk, .wr_en(as_wr_en), .wr_be(1'b1), .wr_addr(qpn_q), .wr_data(a_q),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(as_rd)
  );
  fabnic_ram_sdp #(.DATA_W($bits(pub_t)), .DEPTH(NUM_QP)) u_pub (
      .clk, .wr_en(pub_wr_en), .wr_be(1'b1), .wr_addr(pub_wr_addr),
      .wr_data({pub_sq_pi, pub_sq_hi, pub_psn_hi, pub_lerr, pub_lerr_idx, pub_lerr_status}),
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data(pb_rd)
  );

  logic [31:0] sqe_lkey_q;
  logic [15:0] s_axis_plen_q;
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
      .s_chk_va(a_q.w_haddr), .s_chk_len(a_q.w_len), .s_chk_access(4'(1 << MR_ACC_LOCAL_WRITE)),
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
  logic [15:0] now_q, now_nx_q;
  always_ff @(posedge clk) begin
    if (tick_cnt_q + 24'd1 >= cfg_timer_tick) begin
      tick_cnt_q <= '0;
      now_nx_q   <= now_nx_q + 16'd1;
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
  logic [QPN_W-1:0] sweep_q;

  // ---------------------------------------------------------------- FSM
  typedef enum logic [4:0] {
    S_IDLE, S_LOAD, S_DISPATCH, S_ADV, S_FETCH, S_WAIT, S_CHK, S_CHKW, S_CQE,
    S_POST, S_PLACE_D, S_PLACE, S_DRAIN, S_EV, S_ERR, S_FLUSH, S_SKIP, S_WB, S_SREV, S_FLT
  } st_e;
  logic flt_skip_q;   // S_FLT: the QP takes no fault (in ERR already, or not in RTS)
  st_e st_q, cqe_ret_q, load_ret_q, ev_ret_q;
  logic drop_q;
  logic more_q;   // SQE beats of the current read still to come
  // S_CQE retiring a WQE of an advance takes the next SQE beat itself when that WQE is a
  // SEND/WRITE the target acknowledges too (S_ADV's and S_WAIT's work in the same cycle)
  logic        cqe_chain;
  // Prefetched SQE beats stay in the FIFO between packets: they belong to QP
  // cache_qpn_q, the next one is SQ index next_idx_q. A load that matches takes the
  // next beat without a new read; any other load discards them first.
  logic [QPN_W-1:0] cache_qpn_q;
  logic [15:0]      next_idx_q;
  logic [15:0]      cache_end_q;   // SQ index after the last SQE of the current read
  logic [15:0]      sq_mask;       // of the loaded QP (set in S_LOAD)
  logic             stale_q, cache_hit;
  assign cache_hit = more_q && !stale_q && cache_qpn_q == qpn_q && next_idx_q == a_q.wqe_idx;
  logic [23:0] una_n;
  logic [23:0] una0_q;   // una when the event's state was loaded

  typedef enum logic [2:0] { SRC_CTL, SRC_PKT, SRC_KICK, SRC_TMR, SRC_WF, SRC_PF } src_e;
  src_e        src_q;
  logic        ctl_op_q;
  logic [23:0] ctl_psn_q;
  roce_hdr_t   h_q;
  logic [23:0] tgt_q;              // ACK target (first PSN not acknowledged)
  logic        flushing_q;
  logic [7:0]  cqe_status_q;
  logic [1:0]  ev_type_q;
  logic        ev_one_q;           // resend events of a READ-response hole (one packet)
  logic        rr_ooo_q;           // placing a READ response out of order
  logic [5:0]  rr_d;               // its distance from una
  logic [23:0] sk_base_q;          // SR: SACK base PSN and bitmap
  logic [63:0] sk_bmp_q;
  localparam logic [1:0] SK_HOLES = 2'd0, SK_TAIL = 2'd1, SK_ONE = 2'd2;
  logic        sk_req_q, sk_req_ready, sk_gate_q, sk_ev_valid, sk_done;
  logic [1:0]  sk_mode_q, sk_kind_q;   // kind: 0 probe, 1 SACK (rtx_hi), 2 READ holes
  logic [23:0] sk_mark_q, sk_una_q, sk_phi_q, sk_ev_psn, sk_done_mark;
  logic [23:0] ev_psn_q;
  logic        placing_atomic_q;
  logic [7:0]  post_q;             // 0 none, else: what to do after the advance
  localparam logic [7:0] P_NONE = 8'd0, P_READ = 8'd1, P_ATOMIC = 8'd2, P_SEQ = 8'd3,
                         P_RNR = 8'd4, P_ERRNAK = 8'd5, P_TMO = 8'd6, P_SACK = 8'd7,
                         P_PROBE = 8'd8;
  logic [7:0]  nak_status_q;

  // path MTU of the loaded QP (qc_q changes only in S_LOAD): log2 and one-hot of
  // 2^8..2^12, so a packet count is a 5:1 choice of fixed shifts
  logic [3:0]  lg_q;
  logic [4:0]  lg_oh_q;
  logic [23:0] w_end;
  logic        w_is_rdat;          // READ or atomic
  always_comb begin
    w_is_rdat = a_q.w_opcode == WR_READ || a_q.w_opcode == WR_CMP_SWAP
                || a_q.w_opcode == WR_FETCH_ADD;
    w_end     = a_q.w_end;         // first PSN after the loaded WQE (set when loaded)
  end
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
  logic [23:0] span_nx;            // span of the SQE beat at s_rd
  // Distances kept beside the registers they are taken from (written wherever tgt_q,
  // a_q.wqe_psn or a_q.w_end is): dtw_q = tgt_q - wqe_psn, dtg_q = tgt_q - w_end, so
  // "psn_le(x, tgt_q)" is the sign of one subtraction. (x exactly 2^23 behind tgt_q,
  // half the PSN space, counts as not reached; the PSNs in flight never span that.)
  // wqe_idx1_q = a_q.wqe_idx + 1, likewise.
  logic [23:0] dtw_q, dtg_q, dtw_nx, dtg_nx, dw0, dw1, dg0, dg1;
  logic [15:0] wqe_idx1_q;
  always_comb begin
    dw0 = h_q.bth.psn - a_q.wqe_psn;
    dw1 = h_q.bth.psn + 24'd1 - a_q.wqe_psn;
    dg0 = h_q.bth.psn - a_q.w_end;
    dg1 = h_q.bth.psn + 24'd1 - a_q.w_end;
  end

  // decided in S_LOAD from the RAM words (the values S_DISPATCH sees in a_q/pb_q/qc_q)
  logic outstanding, tmo_q, probe_due_q, infl_q, in_win_q;
  always_comb begin
    logic [7:0] nop;
    nop       = sqe_decode(s_rd_tdata).opcode;
    span_nx   = span_of(nop, sqe_decode(s_rd_tdata).len, lg_oh_q);
    dtw_nx    = dtw_q - span_nx;
    dtg_nx    = dtg_q - span_nx;
    cqe_chain = st_q == S_CQE && (!m_cqe_valid || m_cqe_ready) && cqe_ret_q == S_ADV
                && wqe_idx1_q != pb_q.sq_hi && more_q && !stale_q
                && cache_qpn_q == qpn_q && next_idx_q == wqe_idx1_q && s_rd_tvalid
                && nop != WR_READ && nop != WR_CMP_SWAP && nop != WR_FETCH_ADD
                && !dtg_nx[23];   // psn_le(w_end_nx, tgt_q)
  end

  // SQEs of a read of n from SQ index idx that the requester has sent (below its sq_hi),
  // so read itself: the core's SQE shadow may serve only those
  function automatic logic [15:0] sent_n(input logic [15:0] hi, input logic [15:0] idx,
                                         input logic [15:0] n);
    logic [15:0] d;
    d = hi - idx;
    if (d[15]) d = 16'd0;   // idx above hi (not expected): nothing
    return (d < n) ? d : n;
  endfunction

  // ---------------------------------------------------------------- SQE look-ahead
  // P_IDLE -(pf_go: read the next header's QP state)-> P_LOAD -> P_CALC -> P_NOK -> P_REQ
  // (issue the read) -> P_IDLE with the slot (pf_slot_q) filled; the read-ahead for the
  // current QP (pf_cont) enters at P_CALC. P_LOAD captures the RAM words' distances,
  // P_CALC clamps them to SQE_BATCH, P_NOK takes the minima (SQEs to read, and those
  // the requester sent). The stages after P_IDLE are abandoned when the FSM returns to
  // IDLE (the header may be taken next); P_LOAD also when the QP needs no read.
  typedef enum logic [2:0] { P_IDLE, P_LOAD, P_CALC, P_NOK, P_REQ } pf_e;
  pf_e              pf_st;
  logic [QPN_W-1:0] pf_qpn_q;
  logic [15:0]      pf_idx_q, pf_n_q, pf_nok_q;
  logic [15:0]      pf_pend_q, pf_end_q, pf_dhi_q;   // SQEs posted / to the ring end / sent
  logic [6:0]       pf_pend_c, pf_end_c, pf_dhi_c;   // the same, at most SQE_BATCH
  logic [63:0]      pf_addr_q;
  logic             pf_slot_q, pf_stale_q;   // slot: a read is out for (pf_qpn_q, pf_idx_q)
  logic             pf_ok_st, pf_go, pf_issue, pf_take, pf_cont;
  // states in which the FSM is neither deciding on nor issuing an SQE read
  always_comb begin
    case (st_q)
      S_WAIT, S_CHK, S_CHKW, S_CQE, S_POST, S_PLACE_D, S_PLACE, S_DRAIN, S_EV, S_SREV,
      S_WB:    pf_ok_st = 1'b1;
      default: pf_ok_st = 1'b0;
    endcase
  end
  assign pf_go    = PREFETCH && pf_st == P_IDLE && !pf_slot_q && pf_ok_st && s_hdr_valid
                    && !s_ctl_valid && QPN_W'(s_hdr.bth.dest_qp) != qpn_q
                    && !(more_q && cache_qpn_q == QPN_W'(s_hdr.bth.dest_qp));
  assign pf_issue = pf_st == P_REQ && pf_ok_st;
  // read-ahead for the current QP: its next posted SQEs after the current read (at most
  // SQE_BATCH: with the current read's at most SQE_BATCH, the 2 * SQE_BATCH-beat FIFO
  // never makes the R channel wait), issued as soon as the slot is free, so the SQEs
  // are double-buffered
  assign pf_cont = PREFETCH && pf_st == P_IDLE && !pf_slot_q && pf_ok_st && !pf_go
                   && more_q && !stale_q && cache_qpn_q == qpn_q && !a_q.err
                   && qc_q.state == QPS_RTS && pb_q.sq_pi != cache_end_q;
  // a fetch decision (advance, error, flush with the oldest WQE not loaded) takes the
  // slot over once the current read's beats are all consumed
  always_comb begin
    case (st_q)
      S_ADV:   pf_take = a_q.wqe_idx != pb_q.sq_hi && !a_q.loaded;
      S_ERR, S_FLUSH: pf_take = a_q.wqe_idx != pb_q.sq_pi && !a_q.loaded;
      default: pf_take = 1'b0;
    endcase
    pf_take = pf_take && pf_slot_q && !more_q;
  end

  function automatic logic [6:0] clamp_batch(input logic [15:0] v);
    return (v > 16'(SQE_BATCH)) ? 7'(SQE_BATCH) : 7'(v);
  endfunction

  always_ff @(posedge clk) begin
    pf_pend_c <= clamp_batch(pf_pend_q);
    pf_end_c  <= clamp_batch(pf_end_q);
    pf_dhi_c  <= pf_dhi_q[15] ? 7'd0 : clamp_batch(pf_dhi_q);   // idx above sq_hi: none
    case (pf_st)
      P_IDLE: if (pf_go) begin
        pf_qpn_q <= QPN_W'(s_hdr.bth.dest_qp);
        pf_st    <= P_LOAD;
      end else if (pf_cont) begin
        pf_qpn_q  <= qpn_q;
        pf_idx_q  <= cache_end_q;
        pf_pend_q <= pb_q.sq_pi - cache_end_q;
        pf_end_q  <= (sq_mask + 16'd1) - (cache_end_q & sq_mask);
        pf_dhi_q  <= pb_q.sq_hi - cache_end_q;
        pf_addr_q <= qc_q.sq_base + {42'd0, (cache_end_q & sq_mask), 6'd0};
        pf_st     <= P_CALC;
      end
      P_LOAD: begin
        begin
          logic [15:0] msk;
          msk       = 16'((32'd1 << st_rd.sq_log) - 1);
          pf_pend_q <= pb_rd.sq_hi - as_rd.wqe_idx;
          pf_end_q  <= (msk + 16'd1) - (as_rd.wqe_idx & msk);
          pf_dhi_q  <= pb_rd.sq_hi - as_rd.wqe_idx;
          pf_idx_q  <= as_rd.wqe_idx;
          pf_addr_q <= st_rd.sq_base + {42'd0, (as_rd.wqe_idx & msk), 6'd0};
        end
        pf_st <= (st_q != S_IDLE && st_rd.state == QPS_RTS && !as_rd.err && !as_rd.loaded
                  && as_rd.wqe_idx != pb_rd.sq_hi) ? P_CALC : P_IDLE;
      end
      P_CALC: pf_st <= (st_q == S_IDLE) ? P_IDLE : P_NOK;
      P_NOK: begin
        begin
          logic [6:0] n, k;
          n = (pf_pend_c < pf_end_c) ? pf_pend_c : pf_end_c;
          k = (pf_dhi_c < n) ? pf_dhi_c : n;
          pf_n_q   <= 16'(n);
          pf_nok_q <= 16'(k);
        end
        pf_st <= (st_q == S_IDLE) ? P_IDLE : P_REQ;
      end
      default: begin   // P_REQ
        if (st_q == S_IDLE) pf_st <= P_IDLE;
        else if (pf_issue && m_rd_ready) begin
          pf_slot_q  <= 1'b1;
          pf_stale_q <= 1'b0;
          pf_st      <= P_IDLE;
        end
      end
    endcase
    if (pf_take) pf_slot_q <= 1'b0;
    // a control op re-initialising a QP: the slot's SQEs may be the old incarnation's
    if (st_q == S_DISPATCH && src_q == SRC_CTL && !ctl_op_q) pf_stale_q <= 1'b1;
    if (rst) begin
      pf_st     <= P_IDLE;
      pf_slot_q <= 1'b0;
    end
  end

  // picks
  logic take_ctl, take_wf, take_pkt, take_kick, take_pf, take_tmr;
  always_comb begin
    take_ctl  = st_q == S_IDLE && s_ctl_valid;
    take_wf   = st_q == S_IDLE && !s_ctl_valid && s_wf_valid;
    take_pkt  = st_q == S_IDLE && !s_ctl_valid && !s_wf_valid && s_hdr_valid;
    take_kick = st_q == S_IDLE && !s_ctl_valid && !s_wf_valid && !s_hdr_valid && s_kick_valid;
    take_pf   = st_q == S_IDLE && !s_ctl_valid && !s_wf_valid && !s_hdr_valid
                && !s_kick_valid && s_pf_valid;
    take_tmr  = st_q == S_IDLE && !s_ctl_valid && !s_wf_valid && !s_hdr_valid
                && !s_kick_valid && !s_pf_valid;
    rd_en     = take_ctl || take_wf || take_pkt || take_kick || take_pf || take_tmr || pf_go;
    rd_addr   = take_ctl ? s_ctl_qpn : take_wf ? s_wf_qpn : take_pkt ? QPN_W'(s_hdr.bth.dest_qp)
              : take_kick ? s_kick_qpn : take_pf ? s_pf_qpn : take_tmr ? sweep_q
              : QPN_W'(s_hdr.bth.dest_qp);
  end
  assign s_wf_ready   = take_wf;
  assign s_pf_ready   = take_pf;
  assign s_ctl_ready  = take_ctl;
  assign s_hdr_ready  = take_pkt;
  assign s_kick_ready = take_kick;

  // SQE fetch
  assign m_rd_valid  = st_q == S_FETCH || pf_issue;
  // up to SQE_BATCH SQEs per read: the WQEs the advance or the flush will walk next
  // The distances are registered every cycle, clamped to SQE_BATCH: S_FETCH follows a
  // decision state (S_ADV, S_ERR, S_FLUSH) in which wqe_idx, pb_q and sq_mask did not
  // change, so in S_FETCH they are those of the current WQE
  logic [6:0]  fe_hi_c, fe_pi_c, fe_end_c, fe_n;
  logic [15:0] nfetch;
  always_ff @(posedge clk) begin
    fe_hi_c  <= clamp_batch(pb_q.sq_hi - a_q.wqe_idx);
    fe_pi_c  <= clamp_batch(pb_q.sq_pi - a_q.wqe_idx);
    fe_end_c <= clamp_batch((sq_mask + 16'd1) - (a_q.wqe_idx & sq_mask));
  end
  always_comb begin
    fe_n   = (load_ret_q == S_ADV) ? fe_hi_c : fe_pi_c;
    if (fe_end_c < fe_n) fe_n = fe_end_c;
    nfetch = (fe_n == '0) ? 16'd1 : 16'(fe_n);
  end
  assign m_rd_addr   = (st_q == S_FETCH) ? qc_q.sq_base + {42'd0, (a_q.wqe_idx & sq_mask), 6'd0}
                                         : pf_addr_q;
  assign m_rd_len    = {10'd0, (st_q == S_FETCH) ? nfetch : pf_n_q, 6'd0};
  assign m_rd_nok    = (st_q == S_FETCH) ? sent_n(pb_q.sq_hi, a_q.wqe_idx, nfetch) : pf_nok_q;
  assign s_rd_tready = st_q == S_WAIT || st_q == S_SKIP || cqe_chain;
  assign chk_valid   = st_q == S_CHK;

  // lkey translation cache (fabnic_roce_xlate_cache, one entry, as the requester's)
  // for the local buffers of READ / atomic WQEs: the region of the last passed check;
  // emptied by any MR-table write, not filled from a check whose table read may predate
  // one. A hit in S_WAIT translates the SQE's buffer at once (no S_CHK / S_CHKW).
  logic        lc_hit;
  logic [63:0] lc_off;
  fabnic_roce_xlate_cache u_lkc (
      .clk, .rst, .mr_wr_valid,
      .fill(st_q == S_CHKW && chk_res_valid && chk_ok && a_q.w_len != 32'd0),
      .fill_key(sqe_lkey_q), .fill_pd(qc_q.pd), .fill_acc(chk_racc), .fill_lo(chk_lo),
      .fill_hi(chk_hi), .fill_off(chk_off),
      .key(sqe_decode(s_rd_tdata).lkey), .pd(qc_q.pd), .va(sqe_decode(s_rd_tdata).laddr),
      .len((sqe_decode(s_rd_tdata).opcode == WR_READ) ? sqe_decode(s_rd_tdata).len : 32'd8),
      .need(4'(1 << MR_ACC_LOCAL_WRITE)), .hit(lc_hit), .off(lc_off)
  );

  // CQE
  cqe_req_t cqe;
  always_comb begin
    cqe = '0;
    cqe.cqn      = qc_q.scq;
    cqe.wr_id    = a_q.w_wr_id;
    cqe.byte_len = a_q.w_len;
    cqe.qpn      = 24'(qpn_q);
    cqe.status   = cqe_status_q;
    case (a_q.w_opcode)
      WR_SEND, WR_SEND_IMM:   cqe.opcode = WC_SEND;
      WR_WRITE, WR_WRITE_IMM: cqe.opcode = WC_WRITE;
      WR_READ:                cqe.opcode = WC_READ;
      WR_CMP_SWAP:            cqe.opcode = WC_CMP_SWAP;
      default:                cqe.opcode = WC_FETCH_ADD;
    endcase
  end
  assign m_cqe       = cqe;
  assign m_cqe_valid = st_q == S_CQE && (a_q.w_flags[0] || cqe_status_q != WS_SUCCESS);

  // events
  assign m_ev_valid   = st_q == S_EV || (st_q == S_SREV && sk_ev_valid);
  assign m_ev_type    = (st_q == S_SREV) ? 2'd3 : ev_type_q;
  assign m_ev_qpn     = qpn_q;
  assign m_ev_wqe_idx = a_q.wqe_idx;
  assign m_ev_wqe_psn = a_q.wqe_psn;
  assign m_ev_psn     = (st_q == S_SREV) ? sk_ev_psn : ev_psn_q;
  assign m_ev_wqe_ssn = a_q.wqe_ssn;
  assign m_ev_one     = ev_one_q;
  assign rr_d         = 6'(h_q.bth.psn - a_q.una);   // (in S_PLACE: una already una_n)
  // una after an in-order READ response: past it and the marked run that follows
  // rr_run = 1 + the ones of rr_bmp from bit 1 up, in two registered steps (4 x 16,
  // then the groups): rr_bmp does not change in the two cycles before S_PLACE (S_POST
  // and the state before it change no rr_bmp), so S_PLACE sees the current value
  logic [23:0] rr_una;
  logic [6:0]  rr_run;
  logic [3:0]  rr_gall_q;            // group g of rr_bmp[64:1] (bit 64 = 0) all ones
  logic [4:0]  rr_gcnt_q [4];        // leading ones of group g
  always_ff @(posedge clk) begin
    logic [63:0] b;
    b = {1'b0, a_q.rr_bmp[63:1]};
    for (int g = 0; g < 4; g++) begin
      rr_gall_q[g] <= &b[16*g +: 16];
      rr_gcnt_q[g] <= 5'd16;
      for (int i = 15; i >= 0; i--) if (!b[16*g + i]) rr_gcnt_q[g] <= 5'(i);
    end
    rr_run <= 7'd1 + (!rr_gall_q[0] ? 7'(rr_gcnt_q[0])
                     : !rr_gall_q[1] ? 7'd16 + 7'(rr_gcnt_q[1])
                     : !rr_gall_q[2] ? 7'd32 + 7'(rr_gcnt_q[2]) : 7'd48 + 7'(rr_gcnt_q[3]));
  end
  assign rr_una = a_q.una + 24'(rr_run);
  // psn_lt(rr_una, w_end) in S_PLACE, where una is the response's PSN: the sign of
  // (psn - w_end) + rr_run, the difference registered (w_end does not change in S_POST)
  logic [23:0] pwe_q, rr_lt_sum;
  logic        rr_lt_end;
  always_ff @(posedge clk) pwe_q <= h_q.bth.psn - a_q.w_end;
  assign rr_lt_sum = pwe_q + 24'(rr_run);
  assign rr_lt_end = rr_lt_sum[23];

  // placement
  // (h_q, wqe_psn and lg_q are stable for a cycle before S_POST and S_PLACE_D)
  logic [31:0] rd_off;
  always_ff @(posedge clk) rd_off <= 32'(h_q.bth.psn - a_q.wqe_psn) << lg_q;
  // an in-order READ response is placed from S_POST: its write descriptor goes out there
  logic rd_place_in, post_desc;
  logic psn_is_una_n, psn_ooo, rd_fits;   // (below, with una_n)
  assign rd_place_in = rd_fits && psn_is_una_n;
  assign post_desc   = st_q == S_POST && post_q == P_READ && rd_place_in && s_axis_plen_q != 0;
  assign m_wr_valid  = st_q == S_PLACE_D || post_desc;
  assign m_wr_addr  = placing_atomic_q ? a_q.w_haddr : a_q.w_haddr + 64'(rd_off);
  assign m_wr_len   = placing_atomic_q ? 32'd8 : 32'(s_axis_plen_q);
  assign m_wr_qpn   = qpn_q;
  // una after the advance: up to the target, but not past a READ/atomic still waiting.
  // S_POST is entered only from S_ADV (a_q unchanged there) and from S_WAIT / S_CHKW
  // having loaded a READ / atomic below sq_hi, so una_n is registered in those states:
  // from a_q in S_ADV, with the WQE taken as a loaded READ / atomic in the other two.
  // S_POST moves a_q.una to it, so it is also una_n of S_PLACE (the rule is idempotent).
  // una_sel_q says which of {una, wqe_psn, tgt_q} it is (one-hot), so S_POST compares
  // the response PSN with it through flags registered against each candidate.
  logic [23:0] una_c, una_rd, una_n_q;
  logic [2:0]  sel_c, sel_rd, una_sel_q;
  always_comb begin
    una_c = a_q.una;
    sel_c = 3'b001;
    if (a_q.wqe_idx != pb_q.sq_hi && a_q.loaded && w_is_rdat && psn_lt(a_q.wqe_psn, tgt_q)) begin
      if (psn_lt(a_q.una, a_q.wqe_psn)) begin
        una_c = a_q.wqe_psn;
        sel_c = 3'b010;
      end
    end else if (psn_lt(a_q.una, tgt_q)) begin
      una_c = tgt_q;
      sel_c = 3'b100;
    end
    una_rd = a_q.una;
    sel_rd = 3'b001;
    if (psn_lt(a_q.wqe_psn, tgt_q)) begin
      if (psn_lt(a_q.una, a_q.wqe_psn)) begin
        una_rd = a_q.wqe_psn;
        sel_rd = 3'b010;
      end
    end else if (psn_lt(a_q.una, tgt_q)) begin
      una_rd = tgt_q;
      sel_rd = 3'b100;
    end
  end
  always_ff @(posedge clk) begin
    if (st_q == S_ADV) begin
      una_n_q   <= una_c;
      una_sel_q <= sel_c;
    end else if (st_q == S_WAIT || st_q == S_CHKW) begin
      una_n_q   <= una_rd;
      una_sel_q <= sel_rd;
    end
  end
  assign una_n = una_n_q;

  // The response PSN against una, wqe_psn and tgt_q, registered every cycle: none of
  // them (nor rr_bmp, lg_q, the payload length) changes in the cycle before S_POST, so
  // in S_POST these are the current comparisons; the candidate in una_sel_q picks.
  logic [2:0]  f_eq_q, f_ooo_q;
  logic        f_ge_wqe_q;
  logic [31:0] rd_end_q;            // rd_off + payload bytes
  always_ff @(posedge clk) begin
    logic [23:0] c [3];
    c = '{a_q.una, a_q.wqe_psn, tgt_q};
    for (int k = 0; k < 3; k++) begin
      logic [23:0] d;
      d = h_q.bth.psn - c[k];
      f_eq_q[k]  <= h_q.bth.psn == c[k];
      f_ooo_q[k] <= psn_lt(c[k], h_q.bth.psn) && d < 24'(SR_W) && !a_q.rr_bmp[d[5:0]];
    end
    f_ge_wqe_q <= psn_le(a_q.wqe_psn, h_q.bth.psn);
    rd_end_q   <= (32'(h_q.bth.psn - a_q.wqe_psn) << lg_q) + 32'(s_axis_plen_q);
  end
  assign psn_is_una_n = |(una_sel_q & f_eq_q);
  assign psn_ooo      = |(una_sel_q & f_ooo_q);
  // the loaded READ may hold this response: inside it, it fits, its buffer was translated
  assign rd_fits      = a_q.wqe_idx != pb_q.sq_hi && a_q.loaded && a_q.w_opcode == WR_READ
                        && f_ge_wqe_q && psn_lt(h_q.bth.psn, w_end) && rd_end_q <= a_q.w_len
                        && a_q.w_haddr != 0;
  always_comb begin
    if (placing_atomic_q) begin
      m_wr_tdata  = DATA_W'(h_q.atomic_ack_eth.orig_data);
      m_wr_tkeep  = KEEP_W'(8'hFF);
      m_wr_tvalid = st_q == S_PLACE;
      m_wr_tlast  = 1'b1;
    end else begin
      m_wr_tdata  = s_axis_tdata;
      m_wr_tkeep  = s_axis_tkeep;
      m_wr_tvalid = st_q == S_PLACE && s_axis_tvalid && s_axis_plen_q != 0;
      m_wr_tlast  = s_axis_tlast;
    end
  end
  always_comb begin
    if (st_q == S_PLACE) s_axis_tready = placing_atomic_q ? 1'b0
                                       : (s_axis_plen_q == 0 || m_wr_tready);
    else                 s_axis_tready = st_q == S_DRAIN;
  end

  assign as_wr_en = st_q == S_WB;
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
      .m_ev_valid(sk_ev_valid), .m_ev_ready(st_q == S_SREV && m_ev_ready),
      .m_ev_psn(sk_ev_psn), .m_done(sk_done), .m_done_mark(sk_done_mark)
  );

  // ACK of PSN p moves the target to p+1 when p is inside [una, psn_hi)
  function automatic logic in_window(input logic [23:0] p, input logic [23:0] lo,
                                     input logic [23:0] hi);
    return psn_le(lo, p) && psn_lt(p, hi);
  endfunction

  logic [2:0] syn_kind;
  assign syn_kind = h_q.aeth.syndrome[7:5];

  // an SQE beat taken for the oldest WQE (S_WAIT, or S_CQE chaining the next WQE)
  logic sqe_take;
  assign sqe_take = (st_q == S_WAIT && s_rd_tvalid) || cqe_chain;

  // Counter events are registered and counted in the next cycle, so a counter's
  // enable is a flop and not the decision logic of the state that found the event.
  logic inc_acks, inc_naks, inc_read_resp, inc_rr_ooo, inc_drop_psn, inc_timeouts,
        inc_retry_exc, inc_sack_rx, inc_sr_probe;
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

  always_ff @(posedge clk) begin
    m_ctl_done <= 1'b0;
    {inc_acks, inc_naks, inc_read_resp, inc_rr_ooo, inc_drop_psn, inc_timeouts, inc_retry_exc,
     inc_sack_rx, inc_sr_probe} <= '0;
    // the taken SQE's fields (the states below may override w_haddr: translated)
    if (sqe_take) begin
      more_q       <= !s_rd_tlast;
      next_idx_q   <= next_idx_q + 16'd1;
      a_q.w_opcode <= sqe_decode(s_rd_tdata).opcode;
      a_q.w_flags  <= sqe_decode(s_rd_tdata).flags;
      a_q.w_len    <= sqe_decode(s_rd_tdata).len;
      // a beat with an AXI error is not data: the wr_id is reported as unknown, ones
      // above the SQ index (the driver names the WR from its own ring bookkeeping)
      a_q.w_wr_id  <= s_rd_tuser ? {48'hFFFF_FFFF_FFFF, next_idx_q}
                                 : sqe_decode(s_rd_tdata).wr_id;
      a_q.w_haddr  <= sqe_decode(s_rd_tdata).laddr;
      // its end: after the WQE before it when S_CQE chains it (wqe_psn moves to w_end)
      a_q.w_end    <= (cqe_chain ? w_end : a_q.wqe_psn) + span_nx;
      dtg_q        <= (cqe_chain ? dtg_q : dtw_q) - span_nx;
      sqe_lkey_q   <= sqe_decode(s_rd_tdata).lkey;
      if (sqe_decode(s_rd_tdata).opcode == WR_CMP_SWAP
          || sqe_decode(s_rd_tdata).opcode == WR_FETCH_ADD)
        a_q.w_len <= 32'd8;
    end
    case (st_q)
      S_IDLE: begin
        flushing_q       <= 1'b0;
        placing_atomic_q <= 1'b0;
        post_q           <= P_NONE;
        drop_q           <= 1'b0;
        ev_ret_q         <= S_WB;
        ev_one_q         <= 1'b0;
        rr_ooo_q         <= 1'b0;
        if (take_ctl) begin
          src_q <= SRC_CTL; qpn_q <= s_ctl_qpn; ctl_op_q <= s_ctl_op; ctl_psn_q <= s_ctl_psn;
          st_q <= S_LOAD;
        end else if (take_wf) begin
          src_q <= SRC_WF; qpn_q <= s_wf_qpn;
          st_q <= S_LOAD;
        end else if (take_pkt) begin
          src_q <= SRC_PKT; qpn_q <= QPN_W'(s_hdr.bth.dest_qp); h_q <= s_hdr;
          s_axis_plen_q <= s_hdr_plen;
          st_q <= S_LOAD;
        end else if (take_kick) begin
          src_q <= SRC_KICK; qpn_q <= s_kick_qpn;
          st_q <= S_LOAD;
        end else if (take_pf) begin
          src_q <= SRC_PF; qpn_q <= s_pf_qpn;
          st_q <= S_LOAD;
        end else if (take_tmr) begin
          src_q   <= SRC_TMR; qpn_q <= sweep_q;
          sweep_q <= (32'(sweep_q) == NUM_QP - 1) ? '0 : sweep_q + 1'b1;
          st_q    <= S_LOAD;
        end
      end
      S_LOAD: begin
        outstanding <= as_rd.una != pb_rd.psn_hi;
        tmo_q       <= 32'(16'(now_nx_q - as_rd.t_start)) >= (32'd1 << st_rd.timeout);
        probe_due_q <= 16'(now_nx_q - as_rd.fb_t) >= (16'(cfg_sr_probe) << as_rd.probes);
        infl_q      <= (pb_rd.psn_hi - as_rd.una) >= cfg_sr_inflight;
        in_win_q    <= in_window(h_q.bth.psn, as_rd.una, pb_rd.psn_hi);
        qc_q <= st_rd;
        sq_mask <= 16'((32'd1 << st_rd.sq_log) - 1);
        lg_q    <= pmtu_log(st_rd.pmtu);
        for (int k = 0; k < 5; k++) lg_oh_q[k] <= pmtu_log(st_rd.pmtu) == 4'(8 + k);
        a_q  <= as_rd;
        wqe_idx1_q <= as_rd.wqe_idx + 16'd1;
        pb_q <= pb_rd;
        tgt_q <= as_rd.una;
        dtw_q <= as_rd.una - as_rd.wqe_psn;
        dtg_q <= as_rd.una - as_rd.w_end;
        una0_q <= as_rd.una;
        st_q <= S_DISPATCH;
      end
      S_DISPATCH: begin
        case (src_q)
          SRC_CTL: begin
            if (!ctl_op_q) begin
              stale_q <= 1'b1;     // prefetched SQEs may belong to the old incarnation
              a_q <= '0;
              a_q.una        <= ctl_psn_q;
              a_q.wqe_psn    <= ctl_psn_q;
              wqe_idx1_q     <= 16'd1;
              dtw_q          <= tgt_q - ctl_psn_q;
              dtg_q          <= tgt_q;            // (w_end = 0)
              a_q.retry_left <= qc_q.retry_cnt;
              a_q.rnr_left   <= qc_q.rnr_retry;
              a_q.rtx_hi     <= ctl_psn_q;
              a_q.rr_rtx_hi  <= ctl_psn_q;
              st_q <= S_WB;
            end else begin
              st_q <= S_IDLE;
            end
            m_ctl_una        <= a_q.una;
            m_ctl_err        <= a_q.err;
            m_ctl_err_status <= a_q.err_status;
            m_ctl_state      <= qc_q.state;
            m_ctl_done       <= 1'b1;
          end
          SRC_PKT: begin
            if (a_q.err || qc_q.state != QPS_RTS) begin
              inc_drop_psn <= 1'b1;
              drop_q <= 1'b1;
              st_q <= S_DRAIN;
            end else begin
              case (h_q.bth.opcode)
                OP_ACK: begin
                  // acted upon (and counted as an ACK/NAK) only for an outstanding PSN;
                  // any other ACK/NAK is a drop, so a frame forged without knowing an
                  // outstanding PSN cannot move the QP
                  if (!in_win_q) begin
                    inc_drop_psn <= 1'b1;
                  end else if (syn_kind == 3'b000) begin
                    inc_acks <= 1'b1;
                    tgt_q <= h_q.bth.psn + 24'd1;
                    dtw_q <= dw1;
                    dtg_q <= dg1;
                  end else begin
                    inc_naks <= 1'b1;
                    tgt_q <= h_q.bth.psn;
                    dtw_q <= dw0;
                    dtg_q <= dg0;
                    if (syn_kind == 3'b001) post_q <= P_RNR;
                    else if (h_q.aeth.syndrome[4:0] == 5'd0) post_q <= P_SEQ;
                    else begin
                      post_q <= P_ERRNAK;
                      nak_status_q <= (h_q.aeth.syndrome[4:0] == 5'd1) ? WS_REM_INV_REQ
                                    : (h_q.aeth.syndrome[4:0] == 5'd2) ? WS_REM_ACCESS
                                    : WS_REM_OP_ERR;
                    end
                  end
                  st_q <= S_DRAIN;    // ACK payload frame is empty; drain it first
                end
                OP_SR_SACK: begin
                  if (qc_q.sr && syn_kind == 3'b000) begin
                    inc_sack_rx <= 1'b1;
                    if (in_win_q) begin
                      tgt_q <= h_q.bth.psn + 24'd1;
                      dtw_q <= dw1;
                      dtg_q <= dg1;
                    end
                    sk_base_q <= h_q.reth.va[55:32];
                    sk_bmp_q  <= {h_q.reth.va[31:0], h_q.reth.rkey};
                    post_q    <= P_SACK;
                  end else begin
                    inc_drop_psn <= 1'b1;   // not an SR QP: opcode error
                    drop_q <= 1'b1;
                  end
                  st_q <= S_DRAIN;
                end
                OP_READ_RESP_FIRST, OP_READ_RESP_MIDDLE, OP_READ_RESP_LAST,
                OP_READ_RESP_ONLY: begin
                  if (in_win_q) begin
                    tgt_q  <= h_q.bth.psn;   // a response acknowledges what came before
                    dtw_q  <= dw0;
                    dtg_q  <= dg0;
                    post_q <= P_READ;
                    st_q   <= S_ADV;
                  end else begin
                    inc_drop_psn <= 1'b1;
                    drop_q <= 1'b1;
                    st_q <= S_DRAIN;
                  end
                end
                OP_ATOMIC_ACK: begin
                  if (in_win_q) begin
                    tgt_q  <= h_q.bth.psn;
                    dtw_q  <= dw0;
                    dtg_q  <= dg0;
                    post_q <= P_ATOMIC;
                    st_q   <= S_DRAIN;
                  end else begin
                    inc_drop_psn <= 1'b1;
                    drop_q <= 1'b1;
                    st_q <= S_DRAIN;
                  end
                end
                default: begin
                  inc_drop_psn <= 1'b1;
                  drop_q <= 1'b1;
                  st_q <= S_DRAIN;
                end
              endcase
            end
          end
          SRC_KICK: st_q <= S_ADV;
          SRC_PF, SRC_WF: begin   // decided in S_FLT from registered terms
            flt_skip_q <= a_q.err || qc_q.state != QPS_RTS;
            st_q <= S_FLT;
          end
          default: begin   // timer visit
            if (a_q.err || qc_q.state != QPS_RTS || !outstanding) begin
              if (a_q.armed) begin
                a_q.armed <= 1'b0;
                st_q <= S_WB;
              end else begin
                st_q <= S_IDLE;
              end
            end else if (!a_q.armed) begin
              a_q.armed   <= 1'b1;
              a_q.t_start <= now_q;
              a_q.probes  <= '0;
              a_q.fb_t    <= now_q;
              st_q <= S_WB;
            end else if (tmo_q) begin
              inc_timeouts <= 1'b1;
              post_q <= P_TMO;
              st_q   <= S_ADV;
            end else if (qc_q.sr && cfg_sr_probe != '0 && a_q.probes != 2'd3 && !a_q.rnr_wait
                         && (pb_q.sq_hi == pb_q.sq_pi || infl_q) && probe_due_q) begin
              post_q <= P_PROBE;
              st_q   <= S_ADV;
            end else begin
              st_q <= S_IDLE;
            end
          end
        endcase
      end
      // ------------------------------------------------ advance over acknowledged WQEs
      S_ADV: begin
        if (a_q.wqe_idx == pb_q.sq_hi) begin
          st_q <= S_POST;
        end else if (!a_q.loaded) begin
          load_ret_q <= S_ADV;
          if (!pf_take) st_q <= cache_hit ? S_WAIT : more_q ? S_SKIP : S_FETCH;
        end else if (!w_is_rdat && !dtg_q[23]) begin   // psn_le(w_end, tgt_q)
          cqe_status_q <= WS_SUCCESS;
          cqe_ret_q    <= S_ADV;
          st_q         <= S_CQE;
        end else begin
          st_q <= S_POST;
        end
      end
      S_FETCH: begin
        if (m_rd_ready) begin
          cache_qpn_q <= qpn_q;
          next_idx_q  <= a_q.wqe_idx;
          cache_end_q <= a_q.wqe_idx + nfetch;
          stale_q     <= 1'b0;
          st_q <= S_WAIT;
        end
      end
      S_WAIT: begin
        if (s_rd_tvalid) begin   // (the SQE's fields: sqe_take, before the case)
          // only READ and atomic WQEs place data here: their buffer is translated (and
          // checked again); SEND / WRITE WQEs skip the MR check
          if (sqe_decode(s_rd_tdata).opcode == WR_READ
              || sqe_decode(s_rd_tdata).opcode == WR_CMP_SWAP
              || sqe_decode(s_rd_tdata).opcode == WR_FETCH_ADD) begin
            st_q <= S_CHK;
            if (lc_hit) begin
              a_q.w_haddr <= sqe_decode(s_rd_tdata).laddr + lc_off;
              a_q.loaded  <= 1'b1;
              // a loaded READ / atomic: S_ADV would only go on to S_POST
              st_q <= (load_ret_q == S_ADV) ? S_POST : load_ret_q;
            end
          end else begin
            a_q.loaded <= 1'b1;
            st_q <= load_ret_q;
            // an advance (the WQE is below sq_hi: S_ADV checked that before the read):
            // S_ADV's completion decision made here, from the beat
            if (load_ret_q == S_ADV
                && !dtw_nx[23]) begin   // psn_le(wqe_psn + span, tgt_q)
              cqe_status_q <= WS_SUCCESS;
              cqe_ret_q    <= S_ADV;
              st_q         <= S_CQE;
            end
          end
        end
      end
      S_CHK: if (chk_ready) st_q <= S_CHKW;
      S_CHKW: begin
        if (chk_res_valid) begin
          // the requester checked this buffer before sending; a failure here means the
          // MR went away meanwhile: nothing is placed (address 0 marks it)
          a_q.w_haddr <= chk_ok ? chk_addr : 64'd0;
          a_q.loaded  <= 1'b1;
          st_q <= (load_ret_q == S_ADV) ? S_POST : load_ret_q;   // (as above)
        end
      end
      S_CQE: begin
        if (!m_cqe_valid || m_cqe_ready) begin
          a_q.wqe_idx <= a_q.wqe_idx + 16'd1;
          wqe_idx1_q  <= wqe_idx1_q + 16'd1;
          a_q.wqe_psn <= w_end;
          dtw_q       <= dtg_q;
          a_q.wqe_ssn <= a_q.wqe_ssn + 24'(a_q.w_opcode == WR_SEND || a_q.w_opcode == WR_SEND_IMM
                                          || a_q.w_opcode == WR_WRITE_IMM);
          a_q.rr_bmp  <= '0;
          a_q.loaded  <= 1'b0;
          if (cqe_status_q == WS_SUCCESS && psn_lt(a_q.una, w_end)) a_q.una <= w_end;
          st_q <= cqe_ret_q;
          // advancing and the next SQE is the next beat of the current read: S_ADV's
          // decision for it (not loaded, cache hit) made here
          if (cqe_ret_q == S_ADV && wqe_idx1_q != pb_q.sq_hi && more_q && !stale_q
              && cache_qpn_q == qpn_q && next_idx_q == wqe_idx1_q) begin
            load_ret_q <= S_ADV;
            st_q       <= S_WAIT;
          end
          if (cqe_chain) begin       // (the SQE's fields: sqe_take, before the case)
            a_q.loaded   <= 1'b1;
            cqe_status_q <= WS_SUCCESS;
            st_q         <= S_CQE;
          end
        end
      end
      // ------------------------------------------------ after the advance
      S_POST: begin
        a_q.una <= una_n;
        if (src_q == SRC_PKT) a_q.fb_t <= now_q;    // a response: the peer is talking
        // progress against una as loaded: S_ADV may already have moved a_q.una over
        // the WQEs it completed (an ACK ending on a WQE boundary)
        if (psn_lt(una0_q, una_n)) begin
          a_q.t_start    <= now_q;            // progress
          a_q.retry_left <= qc_q.retry_cnt;
          a_q.pay_err    <= 1'b0;
          a_q.rnr_wait   <= 1'b0;
          a_q.probes     <= '0;
        end
        case (post_q)
          P_READ: begin
            if (rd_place_in) begin
              // (post_desc: the write descriptor went out in this cycle if taken)
              st_q <= (s_axis_plen_q == 0 || m_wr_ready) ? S_PLACE : S_PLACE_D;
            end else if (qc_q.sr && rd_fits && psn_ooo) begin
              // SR: a later response of the READ (its request was executed): place now
              rr_ooo_q <= 1'b1;
              st_q <= (s_axis_plen_q == 0) ? S_PLACE : S_PLACE_D;
            end else begin
              inc_drop_psn <= 1'b1;
              st_q <= S_DRAIN;
              post_q <= P_NONE;
            end
          end
          P_ATOMIC: begin
            if (a_q.wqe_idx != pb_q.sq_hi && a_q.loaded
                && (a_q.w_opcode == WR_CMP_SWAP || a_q.w_opcode == WR_FETCH_ADD)
                && f_eq_q[1] && psn_is_una_n && a_q.w_haddr != 0) begin
              placing_atomic_q <= 1'b1;
              st_q <= S_PLACE_D;
            end else begin
              inc_drop_psn <= 1'b1;
              post_q <= P_NONE;
              st_q <= S_WB;
            end
          end
          P_SEQ, P_RNR, P_TMO: begin
            if (post_q == P_SEQ || (post_q == P_TMO && !a_q.rnr_wait)) begin
              if (a_q.retry_left == 3'd0) begin
                // budget spent: a local payload-read failure since the last progress is
                // the cause (LOC_QP_OP_ERR, the read errors count in dma_err), else the
                // peer did not answer (RETRY_EXC_ERR)
                cqe_status_q  <= a_q.pay_err ? WS_LOC_QP_OP_ERR : WS_RETRY_EXC;
                inc_retry_exc <= !a_q.pay_err;
                st_q <= S_ERR;
              end else begin
                a_q.retry_left <= a_q.retry_left - 3'd1;
                a_q.t_start <= now_q;
                a_q.armed   <= 1'b1;
                // SR: resend only una; the SACK it brings back asks for the rest
                ev_type_q <= qc_q.sr ? 2'd2 : 2'd0;
                if (qc_q.sr) a_q.rtx_hi <= una_n + 24'd1;
                if (qc_q.sr) a_q.rr_rtx_hi <= una_n + 24'd1;
                ev_psn_q  <= una_n;
                ev_ret_q  <= S_WB;
                st_q <= S_EV;
              end
            end else if (post_q == P_RNR) begin
              // wait one timeout, then rewind (below, as P_TMO with rnr_wait)
              a_q.rnr_wait <= 1'b1;
              a_q.armed    <= 1'b1;
              a_q.t_start  <= now_q;
              st_q <= S_WB;
            end else begin   // timeout after an RNR NAK
              if (a_q.rnr_left == 3'd0) begin
                cqe_status_q <= WS_RNR_RETRY_EXC;
                inc_retry_exc <= 1'b1;
                st_q <= S_ERR;
              end else begin
                if (a_q.rnr_left != 3'd7) a_q.rnr_left <= a_q.rnr_left - 3'd1;
                a_q.rnr_wait <= 1'b0;
                a_q.t_start  <= now_q;
                ev_type_q <= qc_q.sr ? 2'd2 : 2'd0;
                if (qc_q.sr) a_q.rtx_hi <= a_q.una + 24'd1;
                ev_psn_q  <= a_q.una;
                ev_ret_q  <= S_WB;
                st_q <= S_EV;
              end
            end
          end
          P_ERRNAK: begin
            cqe_status_q <= nak_status_q;
            st_q <= S_ERR;
          end
          P_PROBE: begin
            if (psn_lt(una_n, pb_q.psn_hi) && !a_q.err) begin
              // tail-loss probe: silence while stalled means that nothing more is on
              // its way; after the last posted WQE every PSN not acknowledged was lost
              // (or its ACK was): resend all of [una, psn_hi) (the window caps it at
              // SR_W <= 64) through the SACK resend path; in a window stall resend
              // una only. The ordinary timeout counts from here
              inc_sr_probe <= 1'b1;
              // a probe whose resends are lost too (a loss burst) is repeated after twice
              // the silence, up to 3 per no-progress period; the first one restarts the
              // retransmission timer
              a_q.probes  <= a_q.probes + 2'd1;
              a_q.fb_t    <= now_q;
              if (a_q.probes == '0) a_q.t_start <= now_q;
              if (a_q.wqe_idx != pb_q.sq_hi && a_q.loaded && a_q.w_opcode == WR_READ
                  && (una_n != a_q.wqe_psn || a_q.rr_bmp != '0) && psn_lt(una_n, w_end)) begin
                // the tail of an executed READ's responses: re-issue it from una for the
                // rest (type 2), as the timer would
                ev_type_q <= 2'd2;
                ev_psn_q  <= una_n;
                ev_ret_q  <= S_WB;
                st_q <= S_EV;
              end else begin
                a_q.rtx_hi  <= (pb_q.sq_hi == pb_q.sq_pi) ? pb_q.psn_hi : una_n + 24'd1;
                sk_base_q   <= una_n;
                // at the end of the posted work (a true tail) everything after the last
                // acknowledgement is missing; in a window stall only una is known to be
                sk_mode_q   <= (pb_q.sq_hi == pb_q.sq_pi) ? SK_TAIL : SK_ONE;
                sk_phi_q    <= pb_q.psn_hi;
                sk_kind_q   <= 2'd0;
                sk_gate_q   <= 1'b0;
                sk_req_q    <= 1'b1;
                st_q <= S_SREV;
              end
            end else begin
              st_q <= S_WB;
            end
          end
          P_SACK: begin
            // the planner moves rtx_hi; it resends while PSNs are outstanding - including
            // inside a WQE still being sent (a message longer than the window: sq_hi has
            // not moved past it yet)
            sk_mode_q <= SK_HOLES;
            sk_mark_q <= a_q.rtx_hi;
            sk_una_q  <= una_n;
            sk_phi_q  <= pb_q.psn_hi;
            sk_gate_q <= 1'b1;
            sk_kind_q <= 2'd1;
            sk_req_q  <= 1'b1;
            st_q <= S_SREV;
          end
          default: begin
            if (pb_q.lerr && a_q.wqe_idx == pb_q.lerr_idx && !a_q.err) begin
              cqe_status_q <= pb_q.lerr_status;
              st_q <= S_ERR;
            end else if (a_q.err && a_q.wqe_idx != pb_q.sq_pi) begin
              flushing_q <= 1'b1;
              cqe_status_q <= WS_WR_FLUSH_ERR;
              st_q <= S_FLUSH;
            end else begin
              st_q <= S_WB;
            end
          end
        endcase
      end
      S_PLACE_D: if (m_wr_ready) st_q <= S_PLACE;
      S_PLACE: begin
        if (placing_atomic_q) begin
          if (m_wr_tready) begin
            a_q.una <= a_q.una + 24'd1;
            cqe_status_q <= WS_SUCCESS;
            cqe_ret_q <= S_WB;
            st_q <= S_CQE;
          end
        end else if (s_axis_tvalid && s_axis_tready && s_axis_tlast && rr_ooo_q) begin
          // out of order: mark it; holes far enough below the highest mark are asked for
          inc_read_resp    <= 1'b1;
          inc_rr_ooo       <= 1'b1;
          a_q.rr_bmp[rr_d] <= 1'b1;
          sk_base_q        <= a_q.una;
          sk_bmp_q         <= a_q.rr_bmp | (64'd1 << rr_d);
          // holes as a SACK's, with one-packet re-requests
          sk_mode_q        <= SK_HOLES;
          sk_mark_q        <= a_q.rr_rtx_hi;
          sk_una_q         <= una_n;
          sk_phi_q         <= pb_q.psn_hi;
          sk_gate_q        <= 1'b0;
          sk_kind_q        <= 2'd2;
          sk_req_q         <= 1'b1;
          ev_one_q         <= 1'b1;
          st_q <= S_SREV;
        end else if (s_axis_tvalid && s_axis_tready && s_axis_tlast) begin
          inc_read_resp <= 1'b1;
          a_q.una     <= rr_una;                   // (rr_bmp is 0 on a standard QP)
          a_q.rr_bmp  <= a_q.rr_bmp >> rr_run;
          a_q.t_start <= now_q;
          a_q.probes  <= '0;                       // progress re-arms the probe
          a_q.retry_left <= qc_q.retry_cnt;
          a_q.pay_err    <= 1'b0;
          if (!rr_lt_end) begin   // rr_una at or past the READ's end
            cqe_status_q <= WS_SUCCESS;
            cqe_ret_q <= S_WB;
            st_q <= S_CQE;
          end else begin
            st_q <= S_WB;
          end
        end
      end
      S_DRAIN: begin
        if (s_axis_tvalid && s_axis_tlast) begin
          st_q <= drop_q ? S_WB : S_ADV;
        end
      end
      S_EV: if (m_ev_ready) st_q <= ev_ret_q;
      // SR: the planner's resend events go out (m_ev, type 3) until it is done; then
      // the mark it moved is kept
      S_SREV: begin
        if (sk_done) begin
          if (sk_kind_q == 2'd1) a_q.rtx_hi    <= sk_done_mark;
          if (sk_kind_q == 2'd2) a_q.rr_rtx_hi <= sk_done_mark;
          st_q <= S_WB;
        end
      end
      // ------------------------------------------------ local faults
      S_FLT: begin
        if (src_q == SRC_PF) begin
          // a request frame left with its payload read failed: remembered until the
          // next progress, so retries that keep failing end in LOC_QP_OP_ERR, not
          // RETRY_EXC_ERR
          a_q.pay_err <= 1'b1;
          st_q <= S_WB;
        end else if (flt_skip_q) begin
          st_q <= S_IDLE;
        end else begin
          // a READ response or atomic result could not be written (BRESP): the data
          // is lost, so the WQE it belongs to (the oldest not complete: the advance
          // completes the acknowledged ones before it first, as for a NAK) completes
          // LOC_QP_OP_ERR, the QP enters ERR and the rest are flushed
          nak_status_q <= WS_LOC_QP_OP_ERR;
          post_q <= P_ERRNAK;
          st_q   <= S_ADV;
        end
      end
      // ------------------------------------------------ errors
      S_ERR: begin
        // complete the oldest WQE with the error status, stop the requester, flush
        if (a_q.wqe_idx == pb_q.sq_pi) begin
          a_q.err        <= 1'b1;
          a_q.err_status <= cqe_status_q;
          ev_type_q <= 2'd1;
          st_q <= S_EV;
        end else if (!a_q.loaded) begin
          load_ret_q <= S_ERR;
          if (!pf_take) st_q <= cache_hit ? S_WAIT : more_q ? S_SKIP : S_FETCH;
        end else begin
          a_q.err        <= 1'b1;
          a_q.err_status <= cqe_status_q;
          cqe_ret_q  <= S_FLUSH;
          flushing_q <= 1'b1;
          st_q <= S_CQE;
        end
      end
      S_FLUSH: begin
        cqe_status_q <= WS_WR_FLUSH_ERR;
        if (a_q.wqe_idx == pb_q.sq_pi) begin
          ev_type_q <= 2'd1;
          st_q <= S_EV;
        end else if (!a_q.loaded) begin
          load_ret_q <= S_FLUSH;
          if (!pf_take) st_q <= cache_hit ? S_WAIT : more_q ? S_SKIP : S_FETCH;
        end else begin
          cqe_ret_q <= S_FLUSH;
          st_q <= S_CQE;
        end
      end
      S_SKIP: begin
        if (s_rd_tvalid && s_rd_tlast) begin
          more_q  <= 1'b0;
          stale_q <= 1'b0;
          st_q    <= load_ret_q;   // decide again: the prefetch slot, or a fetch
        end
      end
      S_WB: st_q <= S_IDLE;
      default: st_q <= S_IDLE;
    endcase
    if (sk_req_q && sk_req_ready) sk_req_q <= 1'b0;
    // the prefetch slot becomes the cache descriptor (its beats follow the consumed ones)
    if (pf_take) begin
      cache_qpn_q <= pf_qpn_q;
      next_idx_q  <= pf_idx_q;
      cache_end_q <= pf_idx_q + pf_n_q;
      more_q      <= 1'b1;
      stale_q     <= pf_stale_q;
    end
    if (rst) begin
      st_q          <= S_IDLE;
      sk_req_q      <= 1'b0;
      more_q        <= 1'b0;
      stale_q       <= 1'b0;
      load_ret_q    <= S_ADV;
      sweep_q       <= '0;
      m_ctl_done    <= 1'b0;
      {inc_acks, inc_naks, inc_read_resp, inc_rr_ooo, inc_drop_psn, inc_timeouts,
       inc_retry_exc, inc_sack_rx, inc_sr_probe} <= '0;
    end
  end

  logic unused;
  assign unused = ^{s_axis_tuser, s_rd_tuser, unused_mr_wr_ready, unused_chk_err,
                    unused_chk_id, as_rd.err_status, h_q, qc_q, flushing_q, dtw_nx[22:0],
                    dtg_nx[22:0], rr_lt_sum[22:0], rr_gall_q[3]};

`ifndef SYNTHESIS
  // The registered decisions equal the expressions they replace, in the states that use
  // them; one event owns the QP's state at a time (no second pick before S_IDLE).
  logic loaded_st;   // a_q, tgt_q and the registers kept beside them are the event's
  assign loaded_st = st_q != S_IDLE && st_q != S_LOAD;
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (st_q <= S_FLT) else $error("fabnic_roce_cpl: illegal state %0d", st_q);
      assert (pf_st <= P_REQ) else $error("fabnic_roce_cpl: illegal prefetch state");
      assert (!rd_en || st_q == S_IDLE || pf_go);
      assert (!(st_q != S_IDLE && (s_ctl_ready || s_hdr_ready || s_kick_ready || s_wf_ready
                                   || s_pf_ready)));
      if (loaded_st) begin
        assert (dtw_q == tgt_q - a_q.wqe_psn) else $error("fabnic_roce_cpl: dtw_q");
        assert (dtg_q == tgt_q - a_q.w_end) else $error("fabnic_roce_cpl: dtg_q");
        assert (wqe_idx1_q == a_q.wqe_idx + 16'd1);
        assert (lg_q == pmtu_log(qc_q.pmtu) && $onehot(lg_oh_q));
        assert (sq_mask == 16'((32'd1 << qc_q.sq_log) - 1));
        if (a_q.loaded)
          assert (a_q.w_end == a_q.wqe_psn + ((a_q.w_opcode == WR_CMP_SWAP
                                               || a_q.w_opcode == WR_FETCH_ADD)
                                              ? 24'd1 : npkts(a_q.w_len, lg_q)))
            else $error("fabnic_roce_cpl: w_end of the loaded WQE");
      end
      if (st_q == S_DISPATCH) begin
        assert (outstanding == (a_q.una != pb_q.psn_hi));
        assert (tmo_q == (32'(16'(now_q - a_q.t_start)) >= (32'd1 << qc_q.timeout)));
        assert (probe_due_q == (16'(now_q - a_q.fb_t) >= (16'(cfg_sr_probe) << a_q.probes)));
        assert (infl_q == ((pb_q.psn_hi - a_q.una) >= cfg_sr_inflight));
        assert (src_q != SRC_PKT || in_win_q == in_window(h_q.bth.psn, a_q.una, pb_q.psn_hi));
      end
      if (st_q == S_POST) begin
        assert (una_n_q == una_c) else $error("fabnic_roce_cpl: una_n_q");
        assert ((una_sel_q == 3'b001 && una_n_q == a_q.una)
                || (una_sel_q == 3'b010 && una_n_q == a_q.wqe_psn)
                || (una_sel_q == 3'b100 && una_n_q == tgt_q));
        assert (rd_place_in == (a_q.wqe_idx != pb_q.sq_hi && a_q.loaded
                                && a_q.w_opcode == WR_READ && h_q.bth.psn == una_n
                                && in_window(h_q.bth.psn, a_q.wqe_psn, w_end)
                                && rd_off + 32'(s_axis_plen_q) <= a_q.w_len
                                && a_q.w_haddr != 0)) else $error("fabnic_roce_cpl: rd_place_in");
        assert ((rd_fits && psn_ooo) == (a_q.wqe_idx != pb_q.sq_hi && a_q.loaded
                                && a_q.w_opcode == WR_READ && psn_lt(una_n, h_q.bth.psn)
                                && (h_q.bth.psn - una_n) < 24'(SR_W)
                                && in_window(h_q.bth.psn, a_q.wqe_psn, w_end)
                                && !a_q.rr_bmp[6'(h_q.bth.psn - una_n)]
                                && rd_off + 32'(s_axis_plen_q) <= a_q.w_len
                                && a_q.w_haddr != 0)) else $error("fabnic_roce_cpl: rr ooo");
        assert (psn_is_una_n == (h_q.bth.psn == una_n) && f_eq_q[1] == (h_q.bth.psn == a_q.wqe_psn));
        assert (rd_off == 32'(h_q.bth.psn - a_q.wqe_psn) << lg_q);
      end
      if (st_q == S_PLACE_D) assert (placing_atomic_q || rd_off == 32'(h_q.bth.psn - a_q.wqe_psn) << lg_q);
      if (st_q == S_PLACE && !placing_atomic_q) begin
        logic [6:0] r;
        r = 7'd1;
        for (int i = 1; i < 64; i++) if (a_q.rr_bmp[i] && r == 7'(i)) r = 7'(i + 1);
        assert (rr_run == r) else $error("fabnic_roce_cpl: rr_run");
        assert (rr_ooo_q || a_q.una == h_q.bth.psn);
        assert (rr_ooo_q || rr_lt_end == psn_lt(rr_una, w_end));
      end
      if (st_q == S_FETCH) begin
        logic [15:0] lim, pend, to_end, n;
        lim    = (load_ret_q == S_ADV) ? pb_q.sq_hi : pb_q.sq_pi;
        pend   = lim - a_q.wqe_idx;
        to_end = (sq_mask + 16'd1) - (a_q.wqe_idx & sq_mask);
        n      = (pend < to_end) ? pend : to_end;
        if (n > 16'(SQE_BATCH)) n = 16'(SQE_BATCH);
        if (n == 16'd0) n = 16'd1;
        assert (nfetch == n) else $error("fabnic_roce_cpl: nfetch");
      end
      // the resend planner takes a request at once (it is idle outside S_SREV)
      assert (!sk_req_q || sk_req_ready);
      assert (!sk_ev_valid || st_q == S_SREV);
    end
  end
`endif

endmodule

`resetall
