// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_req: RC requester (send side of every QP).
//
// Per QP it keeps, in block RAM, the SQ producer index from the doorbell, the index of
// the next SQE to send, the byte offset inside it, the next PSN and the highest PSN
// ever sent. A QP with work sits in the active FIFO (at most once); a visit fetches
// the QP's next SQE by DMA (64 bytes), checks its lkey against the local copy of the
// MR table, and emits up to QUANTUM packets (PMTU segments of SEND/WRITE, one READ
// request, one atomic) as transmit jobs, fetching further SQEs as needed; then the QP
// goes to the back of the FIFO if it still has work. SQEs are read up to SQE_BATCH per DMA
// read (one 512-bit beat each); prefetched SQEs a visit does not use are discarded
// and read again on the next visit. Small-message path (session 9): the visit reads
// the next SQEs ahead while it walks the current ones, takes doorbells for its own QP
// without ending, translates buffers inside the last checked MR region from a one-entry
// lkey cache (no checker round trip), and sends one single-packet WQE per cycle when the
// transmit path takes it.
//
// Cross-QP SQE prefetch (PREFETCH=1): while a visit is under way, a small prefetch stage
// takes the next QP from the active FIFO, reads its context on the (otherwise idle) RAM
// read port and issues the DMA read of its SQEs, so that the next visit finds them in
// flight or arrived instead of paying a host-memory round trip per QP (with one WQE per
// QP and many QPs that round trip was the per-message cost). SQE reads return in issue
// order on one stream, so the stage queues its entries in issue order (PF_DEPTH of them:
// with one WQE per QP, a visit lasts about one message's wire time while an SQE read
// waits behind the payload reads already queued in host memory, longer than that; one
// entry left the requester waiting for SQEs) and the visit FSM obeys two rules:
// (1) a prefetch is only issued while the visit has already issued its own read and is
// not walking a selective-repeat resend, and once one is out the visit ends at its
// batch's last SQE instead of fetching more; (2) in IDLE the prefetched QPs are visited
// before any event but a control op and doorbells (a doorbell reads no SQEs; doorbells
// and prefetched visits take turns), and completer events wait (the stage starts
// nothing while one is pending, so they cannot starve). A visit re-loads the QP's context and uses the
// prefetched SQEs only if the send position is still the one they were read for;
// otherwise (QP re-initialised in between) it discards them and visits the QP as usual.
// The core's SQE FIFO holds two batches, so prefetched SQEs never stall the shared
// R channel.
//
// PSN assignment is deterministic from the SQE sequence (a WQE takes max(1,
// ceil(len/PMTU)) PSNs; READ: as many as its response packets; atomics one), which is
// what lets fabnic_roce_cpl find WQE boundaries by re-reading SQEs, with no per-WQE
// state here. A rewind event (go-back-N from PSN p inside WQE i whose first PSN is f)
// sets the SQ index back to i and the offset to (p - f) * PMTU; a READ is re-issued
// for its remaining part, as IBTA allows.
//
// Selective repeat (QP context bit sr, docs/roce_sr.md): WRITE MIDDLE/LAST carry a
// RETH with the VA of the packet's first byte (has_reth in the job), new packets are
// sent only while next_psn - una < cfg_sr_inflight (<= SR_W; una: the completer's oldest unacknowledged
// PSN, mirrored here in a RAM it writes; a QP at the cap gives up its visit and is
// polled again from the active FIFO), and completer event types 2/3 resend exactly one
// PSN: the SQEs are re-read from the given oldest WQE, walked to the WQE holding the
// PSN, and that one packet is rebuilt (AckReq set) and sent; the QP's send position
// is then restored.
// SR SENDs carry a SOFFETH (docs/roce_sr.md) in the RETH slot of the job: the packet's
// byte offset in the message, the message's SSN (per-QP count of the messages before it
// that consume a receive WQE: SEND and WRITE with immediate, from 0 at init) and the
// message length. The SSN of the WQE at the send position is kept in the state; a
// resend walk starts from the completer's SSN of the oldest uncompleted WQE (event
// field) and counts the WQEs it walks past.
// Events are taken one at a time in this priority: control (init/query), completer
// (rewind/error), doorbell, active FIFO. A local protection error (lkey check) stops
// the QP: the failing SQ index and status are published for the completer, which
// completes the WQEs before it and then flushes. The published state (SQ producer
// index, WQEs started, highest PSN sent) is rewritten after every packet, so a
// response never arrives for a PSN the completer does not know was sent.
// Atomic fence: a new atomic waits (the visit ends, the QP is polled again) until the
// QP's previous atomic is acknowledged; the responder keeps one atomic result per QP.
// Host-memory errors: an SQE read whose beat carries tuser (an AXI error so far in the
// read) is not used; the QP reads it again on a later visit, and after SQE_RETRIES
// failed reads in a row the WQE completes with LOC_QP_OP_ERR like a local error.
`default_nettype none

module fabnic_roce_req #(
    parameter int NUM_QP  = 1024,
    parameter int NUM_MR  = 1024,
    parameter int QUANTUM = 64,     // packets per visit before yielding to other QPs
    parameter int CNT_W   = 32,
    parameter int SR_W    = 64,     // selective repeat: packets in flight (receiver window)
    parameter int SQE_BATCH = 32,   // SQEs per read at most
    parameter int SQE_RETRIES = 3,  // 0..3: SQE reads retried after an AXI error before
                                    // the WQE completes with LOC_QP_OP_ERR
    parameter int PF_DEPTH = 4,     // prefetched QPs queued at most (power of two >= 2)
    parameter bit PREFETCH = 1'b1,  // cross-QP SQE prefetch (the core's SQE FIFO then holds
                                    // 2 * SQE_BATCH beats: a visit's batch + a prefetch)
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

  // active FIFO: QPs with work, each at most once (in_sched)
  logic             act_in_valid, act_in_ready, act_out_valid, act_out_ready;
  logic [QPN_W-1:0] act_in_qpn, act_out_qpn;
  logic [$clog2(NUM_QP):0] unused_act_count;
  fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(NUM_QP)) u_active (
      .clk, .rst,
      .in_valid(act_in_valid), .in_ready(act_in_ready), .in_data(act_in_qpn),
      .out_valid(act_out_valid), .out_ready(act_out_ready), .out_data(act_out_qpn),
      .status_count(unused_act_count)
  );

  // MR table (local copy) for lkey checks
  logic        chk_valid, chk_ready, chk_res_valid, chk_ok;
  logic [63:0] chk_addr;
  mr_err_e     unused_chk_err;
  logic [7:0]  unused_chk_id;
  logic [CNT_W-1:0] unused_mr_cnt [7];
  logic [31:0] chk_key, chk_len;
  logic [63:0] chk_va;
  logic [3:0]  chk_acc;
  logic [23:0] chk_pd;
  logic        unused_mr_wr_ready;
  logic [63:0] chk_lo, chk_off;
  logic [64:0] chk_hi;
  logic [3:0]  chk_racc;
  fabnic_roce_mr_table #(.NUM_MR(NUM_MR), .CNT_W(CNT_W)) u_mr (
      .clk, .rst,
      .wr_valid(mr_wr_valid), .wr_ready(unused_mr_wr_ready), .wr_index(mr_wr_index),
      .wr_entry(mr_wr_entry),
      .s_chk_valid(chk_valid), .s_chk_ready(chk_ready), .s_chk_key(chk_key),
      .s_chk_va(chk_va), .s_chk_len(chk_len), .s_chk_access(chk_acc), .s_chk_pd(chk_pd),
      .s_chk_id(8'd0),
      .m_chk_valid(chk_res_valid), .m_chk_ready(1'b1), .m_chk_ok(chk_ok),
      .m_chk_err(unused_chk_err), .m_chk_addr(chk_addr), .m_chk_id(unused_chk_id),
      .m_chk_lo(chk_lo), .m_chk_hi(chk_hi), .m_chk_off(chk_off), .m_chk_acc(chk_racc),
      .cnt_chk(unused_mr_cnt[0]), .cnt_err_invalid(unused_mr_cnt[1]),
      .cnt_err_tag(unused_mr_cnt[2]), .cnt_err_pd(unused_mr_cnt[3]),
      .cnt_err_access(unused_mr_cnt[4]), .cnt_err_bounds(unused_mr_cnt[5])
  );
  assign unused_mr_cnt[6] = '0;

  // ---------------------------------------------------------------- FSM
  typedef enum logic [3:0] {
    S_IDLE, S_LOAD, S_DISPATCH, S_FETCH, S_WAIT, S_CHK, S_CHKW, S_PKT, S_SKIP, S_WB, S_KICK,
    S_RLREQ, S_RLRSP, S_RLWAIT
  } st_e;
  st_e st_q;

  typedef enum logic [2:0] { E_CTL, E_EV, E_DB, E_ACT, E_PF } ev_e;
  ev_e              ev_q;
  logic             ev_op_q;        // control op / completer event type bit 0
  logic             resend_q;       // SR: emitting one rebuilt packet (event type 2)
  logic [15:0]      sv_sq_ci;       // send position saved during a resend
  logic [31:0]      sv_off;
  logic [23:0]      sv_next_psn;
  logic [23:0]      wpsn_q;         // first PSN of the WQE being walked in a resend
  logic [23:0]      wssn_q;         // its SSN
  logic [23:0]      ev_ssn_q;
  logic             ev_one_q;
  logic [QPN_W-1:0] qpn_q;
  logic [23:0]      ev_psn_q, ev_wqe_psn_q;
  logic [15:0]      ev_idx_q;
  qpc_t             qc_q;
  rstate_t          rs_q;
  sqe_t             sqe_q;
  logic [63:0]      haddr_q;        // host address of the SQE's local buffer
  logic [$clog2(QUANTUM+1)-1:0] quantum_q;
  logic [15:0]      pk_q;           // packets since the last AckReq in this WQE
  logic             requeue_q, kick_q;
  logic             more_q;         // SQE beats of the visit's reads still to come
  logic [1:0]       vr_q;           // the visit's SQE reads whose last beat is not taken
  logic [15:0]      ra_idx_q;       // SQ index after the last SQE the visit asked for
  logic [$clog2(2*SQE_BATCH+1)-1:0] ob_q;   // SQE beats asked for and not yet taken
  logic             redo_q;         // discarding stale prefetched SQEs, then visit as E_ACT
  logic             pfv_rd_q;       // the visit's prefetch entry: a read was issued ...
  logic [15:0]      pfv_ci_q;       // ... for the SQEs from this index

  logic [3:0]  lg;
  logic [31:0] pmtu_bytes, rem, seg;
  logic        first, last, is_send, is_write, is_read, is_atomic, has_imm, uses_rqe;
  logic [15:0] sq_mask;

  always_comb begin
    lg         = pmtu_log(qc_q.pmtu);
    pmtu_bytes = 32'd1 << lg;
    rem        = sqe_q.len - rs_q.off;
    seg        = (rem > pmtu_bytes) ? pmtu_bytes : rem;
    first      = rs_q.off == 0;
    last       = rem <= pmtu_bytes;
    is_send    = sqe_q.opcode == WR_SEND || sqe_q.opcode == WR_SEND_IMM;
    is_write   = sqe_q.opcode == WR_WRITE || sqe_q.opcode == WR_WRITE_IMM;
    is_read    = sqe_q.opcode == WR_READ;
    is_atomic  = sqe_q.opcode == WR_CMP_SWAP || sqe_q.opcode == WR_FETCH_ADD;
    has_imm    = sqe_q.opcode == WR_SEND_IMM || sqe_q.opcode == WR_WRITE_IMM;
    uses_rqe   = is_send || sqe_q.opcode == WR_WRITE_IMM;
    sq_mask    = 16'((32'd1 << qc_q.sq_log) - 1);
  end

  // the packet of the current position
  tx_job_t job;
  always_comb begin
    job = '0;
    job.lqpn  = 24'(qpn_q);
    job.dmac  = qc_q.dmac;
    job.dip   = qc_q.dip;
    job.ipv6  = qc_q.ipv6;
    job.sport = qc_q.sport;
    job.dscp  = qc_q.dscp;
    job.ecn   = 2'b10;   // ECT(0)
    job.hdr.bth.pkey    = 16'hFFFF;
    job.hdr.bth.dest_qp = qc_q.dqpn;
    job.hdr.bth.psn     = rs_q.next_psn;
    job.addr = haddr_q + 64'(rs_q.off);
    // SR: RETH on every WRITE packet, VA of this packet's first byte
    if (is_send || is_write) begin
      job.plen = seg[15:0];
      // AckReq every cfg_ack_cadence packets (across messages), on the last packet of the
      // last posted WQE, and on the last packet of a visit, so every WQE gets acknowledged
      job.hdr.bth.ack_req = (cfg_ack_cadence != 0 && pk_q + 16'd1 >= cfg_ack_cadence)
                            || (last && (cfg_ack_cadence == 0 || rs_q.sq_ci + 16'd1 == rs_q.sq_pi
                                         || quantum_q == 1))
                            || (!last && quantum_q == 1);
      if (is_send) begin
        job.hdr.bth.opcode = (first && last) ? (has_imm ? OP_SEND_ONLY_IMM : OP_SEND_ONLY)
                           : first ? OP_SEND_FIRST
                           : last  ? (has_imm ? OP_SEND_LAST_IMM : OP_SEND_LAST)
                           : OP_SEND_MIDDLE;
        job.hdr.bth.se = last && sqe_q.flags[1];
      end else begin
        job.hdr.bth.opcode = (first && last) ? (has_imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY)
                           : first ? OP_WRITE_FIRST
                           : last  ? (has_imm ? OP_WRITE_LAST_IMM : OP_WRITE_LAST)
                           : OP_WRITE_MIDDLE;
      end
      job.hdr.reth.va      = qc_q.sr ? sqe_q.raddr + 64'(rs_q.off) : sqe_q.raddr;
      job.hdr.reth.rkey    = sqe_q.rkey;
      job.hdr.reth.dma_len = sqe_q.len;
      if (is_send) begin
        // SR: SOFFETH {message offset, rsvd, SSN, message length} in the RETH slot
        job.hdr.reth.va   = 64'(rs_q.off);
        job.hdr.reth.rkey = {8'd0, resend_q ? wssn_q : rs_q.ssn};
      end
      job.hdr.has_reth     = qc_q.sr;
      job.hdr.immdt.imm    = bswap32(sqe_q.imm);
      if (resend_q) job.hdr.bth.ack_req = 1'b1;
    end else if (is_read) begin
      job.hdr.bth.opcode   = OP_READ_REQUEST;
      job.hdr.bth.ack_req  = 1'b1;
      job.hdr.reth.va      = sqe_q.raddr + 64'(rs_q.off);
      job.hdr.reth.rkey    = sqe_q.rkey;
      job.hdr.reth.dma_len = sqe_q.len - rs_q.off;
      // SR: one missing response of an executed READ is asked for on its own
      if (resend_q && ev_one_q && sqe_q.len - rs_q.off > pmtu_bytes)
        job.hdr.reth.dma_len = pmtu_bytes;
    end else begin
      job.hdr.bth.opcode = (sqe_q.opcode == WR_CMP_SWAP) ? OP_COMPARE_SWAP : OP_FETCH_ADD;
      job.hdr.bth.ack_req = 1'b1;
      job.hdr.atomic_eth.va       = sqe_q.raddr;
      job.hdr.atomic_eth.rkey     = sqe_q.rkey;
      job.hdr.atomic_eth.swap_add = (sqe_q.opcode == WR_CMP_SWAP) ? sqe_q.swap : sqe_q.cmp_add;
      job.hdr.atomic_eth.compare  = sqe_q.cmp_add;
    end
  end
  assign m_job = job;

  // PSNs this packet consumes
  logic [23:0] psn_step;
  always_comb begin
    if (is_read) psn_step = npkts(sqe_q.len - rs_q.off, lg);
    else         psn_step = 24'd1;
  end
  // SR resend walk: PSNs of the SQE arriving on the read stream
  logic [23:0] rs_span;
  logic        rs_rqe;     // that SQE's message consumes a receive WQE (SSN + 1)
  always_comb begin
    logic [7:0] e_op;
    e_op    = s_rd_tdata[8*8 +: 8];                 // sqe_decode(): opcode, len
    rs_span = (e_op == WR_CMP_SWAP || e_op == WR_FETCH_ADD) ? 24'd1
            : npkts(s_rd_tdata[12*8 +: 32], lg);
    rs_rqe  = e_op == WR_SEND || e_op == WR_SEND_IMM || e_op == WR_WRITE_IMM;
  end
  logic pkt_done_wqe;   // this packet finishes the WQE
  assign pkt_done_wqe = is_read || is_atomic || last;

  // rate limiting: a packet of a paced QP needs a grant first
  logic        paced, granted_q;
  logic [47:0] retry_at_q;
  logic [15:0] wire_len;
  assign paced    = cfg_cc_on && qc_q.cc;
  assign wire_len = job.plen + 16'd66;   // Eth+IPv4+UDP+BTH+RETH/ICRC+FCS, approximately
  assign m_lim_valid = st_q == S_RLREQ;
  assign m_lim_qpn   = qpn_q;
  assign m_lim_len   = wire_len;

  // SR window cap on new packets
  logic win_full;
  logic [23:0] win_cap;
  assign win_cap  = (cfg_sr_inflight == '0 || cfg_sr_inflight > 24'(SR_W)) ? 24'(SR_W)
                                                                            : cfg_sr_inflight;
  assign win_full = qc_q.sr && !resend_q && (rs_q.next_psn - una_q) >= win_cap;

  // Atomic fence: a new atomic is sent only once the QP's previous atomic is
  // acknowledged (una past its PSN). The responder keeps the result of one atomic per
  // QP for duplicates (fabnic_roce_resp), so at most one may be unacknowledged: with
  // two, a retransmitted older one would find its result overwritten. Re-sending the
  // outstanding atomic itself (a go-back-N rewind) is not held. A held QP ends its
  // visit and is polled again, as at the SR window cap.
  logic atom_wait;
  assign atom_wait = is_atomic && rs_q.atom_v && rs_q.atom_psn != rs_q.next_psn
                     && !psn_lt(rs_q.atom_psn, una_q);

  logic job_fire;
  assign m_job_valid = st_q == S_PKT && (!paced || granted_q) && !win_full && !atom_wait;
  assign job_fire    = m_job_valid && m_job_ready;
  assign m_sent_valid = job_fire;
  assign m_sent_qpn   = qpn_q;
  assign m_sent_bytes = wire_len;

  // ---------------------------------------------------------------- SQE prefetch stage
  // P_IDLE -> (pf_go: pop the active FIFO, read the context RAMs) P_LOAD -> P_REQ (issue
  // the SQE read) -> entry queued for the visit FSM (pq); P_LOAD queues it without a
  // read when the QP has nothing to send (the visit then sorts it out as E_ACT would).
  typedef enum logic [1:0] { P_IDLE, P_LOAD, P_REQ } pf_e;
  pf_e              pf_st;
  logic [QPN_W-1:0] pf_qpn;
  logic [15:0]      pf_ci;          // SQ index of its first SQE
  logic [63:0]      pf_addr;
  logic [15:0]      pf_n;
  // queued entries: QP, a read was issued, SQ index of its first SQE, index after its last
  typedef struct packed {
    logic [QPN_W-1:0] qpn;
    logic             rd;
    logic [15:0]      ci;
    logic [15:0]      ie;
  } pfe_t;
  pfe_t             pq_in, pq_out;
  logic             pq_push, pq_valid, pq_in_ready;
  // Order rule for the queue: a visit that issues its own SQE read must find no later
  // entry's read out (its beats would come first). Entries without a read (an SR QP,
  // or a QP the stage found nothing to read for) fetch at their visit, so nothing is
  // queued behind one (pq_nr_q); a visit whose prefetched SQEs turned out stale (a
  // control op in between) puts its QP back in the active FIFO instead of fetching
  // while later entries are queued.
  logic             pq_nr_q;
  logic [$clog2(PF_DEPTH):0] pq_cnt;
  logic [15:0]      room, ra_pend, ra_end, ra_n, pf_neff;   // read-ahead (below)
  logic             ra_go, rd_fire, pop;
  logic [15:0]      pend, to_end, nfetch;   // the visit's own SQE read (below)
  sqe_t             sqe_in, sqe_c;          // lkey check, translation cache (below)
  logic             c_rdat, wait_chk, pkt_chain, chain_ok, hit_in;
  logic             pf_go, pf_busy, pf_out, visit_read, others;

  // SQEs to read from index ci: up to SQE_BATCH, not past the posted ones nor the ring's end
  function automatic logic [15:0] sqe_count(input logic [15:0] pi, input logic [15:0] ci,
                                            input logic [4:0] sq_log);
    logic [15:0] f_mask, f_pend, f_end, n;
    f_mask = 16'((32'd1 << sq_log) - 1);
    f_pend = pi - ci;
    f_end  = (f_mask + 16'd1) - (ci & f_mask);
    n      = (f_pend < f_end) ? f_pend : f_end;
    if (n > 16'(SQE_BATCH)) n = 16'(SQE_BATCH);
    return n;
  endfunction
  function automatic logic [63:0] sqe_addr(input logic [63:0] base, input logic [15:0] ci,
                                           input logic [4:0] sq_log);
    return base + {42'd0, ci & 16'((32'd1 << sq_log) - 1), 6'd0};
  endfunction

  // a visit whose own SQE read is out (not an SR resend walk, which fetches again)
  assign visit_read = (st_q == S_WAIT || st_q == S_CHK || st_q == S_CHKW || st_q == S_PKT
                       || st_q == S_RLREQ || st_q == S_RLRSP || st_q == S_RLWAIT)
                      && !resend_q;
  assign pf_go   = PREFETCH && pf_st == P_IDLE && visit_read && act_out_valid
                   && pq_cnt < ($clog2(PF_DEPTH)+1)'(PF_DEPTH) && !pq_nr_q
                   && !s_ctl_valid && !s_ev_valid;
  assign pf_busy = pf_st != P_IDLE || pq_valid;   // the stage or its queue holds a QP
  assign pf_out  = pf_busy || pf_go;           // no further fetch in this visit
  assign others  = act_out_valid || pf_busy;   // other QPs are waiting for a visit

  // event acceptance in IDLE: control first, then prefetched QPs and doorbells taking
  // turns (a doorbell reads no SQEs, so it may come between prefetched visits; with many
  // QPs posting at once, holding doorbells until the prefetch queue ran dry left the
  // active FIFO, and so the prefetch, empty); completer events and plain visits (their
  // SQE reads would come after the queued ones) only while the prefetch holds no QP
  // pq_old_q: prefetch entries (queued or in the stage) older than the last QP init. A
  // QP re-initialised while queued has in_sched 0 and its visit drops it; a doorbell
  // taken before that visit would schedule the QP again, and the old entry would then
  // pass as current (same SQ index 0) and send the old SQEs. So doorbells wait until
  // those entries are visited (inits are rare: QP set-up).
  logic [7:0] pq_old_q;
  logic take_ctl, take_pf, take_ev, take_db, take_act, db_last_q;
  always_comb begin
    take_ctl = st_q == S_IDLE && s_ctl_valid;
    take_ev  = st_q == S_IDLE && !s_ctl_valid && !pf_busy && s_ev_valid;
    take_pf  = st_q == S_IDLE && !s_ctl_valid && pq_valid && !(s_db_valid && !db_last_q);
    take_db  = st_q == S_IDLE && !s_ctl_valid && !take_ev && !take_pf && s_db_valid
               && pq_old_q == '0;
    take_act = st_q == S_IDLE && !s_ctl_valid && !pf_busy && !s_ev_valid && !s_db_valid
               && act_out_valid;
  end
  always_ff @(posedge clk) begin
    if (take_db)      db_last_q <= 1'b1;
    else if (take_pf) db_last_q <= 1'b0;
    if (take_ctl && !s_ctl_op)         pq_old_q <= 8'(pq_cnt) + 8'(pf_st != P_IDLE);
    else if (take_pf && pq_old_q != '0) pq_old_q <= pq_old_q - 8'd1;
    if (rst) begin
      db_last_q <= 1'b0;
      pq_old_q  <= '0;
    end
  end
  fabnic_fifo #(.WIDTH($bits(pfe_t)), .DEPTH(PF_DEPTH)) u_pq (
      .clk, .rst,
      .in_valid(pq_push), .in_ready(pq_in_ready), .in_data(pq_in),
      .out_valid(pq_valid), .out_ready(take_pf), .out_data(pq_out), .status_count(pq_cnt)
  );
  assign s_ctl_ready   = take_ctl;
  assign s_ev_ready    = take_ev;
  // A doorbell for the QP being visited is taken by the visit itself (its SQ producer
  // index goes into rs_q, written back at the end of the visit) in S_WAIT and in S_PKT
  // cycles that send nothing (no decision on the producer index is made then): the
  // visit, and its SQE read-ahead, go on with the newly posted WQEs instead of ending,
  // taking the doorbell in S_IDLE and starting a new visit with a fresh SQE read.
  logic db_absorb;
  assign db_absorb = s_db_valid && s_db_qpn == qpn_q && !resend_q
                     && (ev_q == E_ACT || ev_q == E_PF)
                     && (st_q == S_WAIT || (st_q == S_PKT && !job_fire));
  assign s_db_ready    = take_db || db_absorb;
  assign act_out_ready = take_act || pf_go;

  // one read port on the context RAMs: the visit FSM reads in IDLE, the prefetch stage
  // only while a visit is under way
  always_comb begin
    rd_en   = take_ctl || take_pf || take_ev || take_db || take_act || pf_go;
    rd_addr = take_ctl ? s_ctl_qpn : take_pf ? pq_out.qpn : take_ev ? s_ev_qpn
            : take_db ? s_db_qpn : act_out_qpn;
  end

  // SR QPs (window cap, resends) are not prefetched
  logic pf_ld_rd, pf_req_fire;
  assign pf_ld_rd    = rs_rd.in_sched && !rs_rd.err && st_rd.state == QPS_RTS && !st_rd.sr
                       && rs_rd.sq_ci != rs_rd.sq_pi;
  assign pf_req_fire = pf_st == P_REQ && st_q != S_FETCH && pf_neff != 16'd0 && m_rd_ready;
  // queued from P_LOAD (no read) or when P_REQ's read is issued; pf_go checked the room
  assign pq_push = (pf_st == P_LOAD && !pf_ld_rd) || pf_req_fire;
  always_comb begin
    pq_in.qpn = pf_qpn;
    pq_in.rd  = pf_st == P_REQ;
    pq_in.ci  = (pf_st == P_REQ) ? pf_ci : rs_rd.sq_ci;
    pq_in.ie  = pf_ci + pf_neff;
  end
  always_ff @(posedge clk) begin
    if (pf_st == P_LOAD && !pf_ld_rd) pq_nr_q <= 1'b1;
    else if (take_pf && !pq_out.rd)   pq_nr_q <= 1'b0;   // (nothing was queued after it)
    if (rst) pq_nr_q <= 1'b0;
    case (pf_st)
      P_IDLE: if (pf_go) begin
        pf_qpn <= act_out_qpn;
        pf_st  <= P_LOAD;
      end
      P_LOAD: begin
        pf_ci   <= rs_rd.sq_ci;
        pf_n    <= sqe_count(rs_rd.sq_pi, rs_rd.sq_ci, st_rd.sq_log);
        pf_addr <= sqe_addr(st_rd.sq_base, rs_rd.sq_ci, st_rd.sq_log);
        pf_st   <= pf_ld_rd ? P_REQ : P_IDLE;
      end
      default: if (pf_req_fire) pf_st <= P_IDLE;   // P_REQ
    endcase
    if (rst) pf_st <= P_IDLE;
  end

  // Read-ahead for the QP being visited: while the visit's read is being used and more
  // SQEs are posted after it, the next ones are read (as many as the core's
  // 2 * SQE_BATCH-beat FIFO has room for: the whole FIFO is then two batches of this
  // QP), so a stream of small WQEs does not wait a host round trip per batch. One read-ahead at a time, never while the prefetch stage holds
  // a QP (its SQEs must come after the visit's), not for SR QPs and resend walks, and not
  // when the quantum ends the visit before the current read is used up.
  localparam int FIFO_BEATS = 2 * SQE_BATCH;
  always_comb begin
    room    = 16'(FIFO_BEATS) - 16'(ob_q);
    ra_pend = rs_q.sq_pi - ra_idx_q;
    ra_end  = (sq_mask + 16'd1) - (ra_idx_q & sq_mask);
    ra_n    = 16'(SQE_BATCH);
    if (ra_pend < ra_n) ra_n = ra_pend;
    if (ra_end < ra_n)  ra_n = ra_end;
    if (room < ra_n)    ra_n = room;
    pf_neff = (room < pf_n) ? room : pf_n;
  end
  assign ra_go = (st_q == S_CHKW || st_q == S_PKT) && !resend_q && !qc_q.sr && !rs_q.err
                 && vr_q == 2'd1 && !pf_busy && !pf_go && ra_n != 16'd0
                 && (!others || 16'(quantum_q) > ra_idx_q - rs_q.sq_ci);
  assign m_rd_valid  = st_q == S_FETCH || (pf_st == P_REQ && pf_neff != 16'd0) || ra_go;
  assign rd_fire     = m_rd_valid && m_rd_ready;
  assign pop         = s_rd_tvalid && s_rd_tready;
  assign more_q      = vr_q != 2'd0;
  always_ff @(posedge clk) begin
    ob_q <= ob_q + (rd_fire ? ($bits(ob_q))'(m_rd_len[21:6]) : '0) - ($bits(ob_q))'(pop);
    vr_q <= vr_q + 2'((st_q == S_FETCH || ra_go) && m_rd_ready) - 2'(pop && s_rd_tlast);
    if (take_pf) vr_q <= 2'(pq_out.rd);
    if (st_q == S_FETCH && m_rd_ready) ra_idx_q <= rs_q.sq_ci + nfetch;
    else if (ra_go && m_rd_ready)      ra_idx_q <= ra_idx_q + ra_n;
    if (take_pf) ra_idx_q <= pq_out.ie;
    if (rst) begin
      ob_q <= '0;
      vr_q <= '0;
    end
  end
  // up to SQE_BATCH SQEs per read, not past the posted ones nor the ring's end
  always_comb begin
    pend   = rs_q.sq_pi - rs_q.sq_ci;
    to_end = (sq_mask + 16'd1) - (rs_q.sq_ci & sq_mask);
    nfetch = (pend < to_end) ? pend : to_end;
    if (nfetch > 16'(SQE_BATCH)) nfetch = 16'(SQE_BATCH);
  end
  assign m_rd_addr   = (st_q == S_FETCH) ? qc_q.sq_base + {42'd0, (rs_q.sq_ci & sq_mask), 6'd0}
                     : ra_go ? qc_q.sq_base + {42'd0, (ra_idx_q & sq_mask), 6'd0}
                     : pf_addr;
  assign m_rd_len    = {10'd0, (st_q == S_FETCH) ? nfetch : ra_go ? ra_n : pf_neff, 6'd0};
  assign s_rd_tready = st_q == S_WAIT || st_q == S_SKIP || pkt_chain;

  // The lkey check of a WQE is issued in the cycle its SQE beat is taken (S_WAIT, or
  // S_PKT chaining the next WQE after a packet), straight from the beat; S_CHK issues
  // it from sqe_q (resend walks, or the checker was busy).
  assign sqe_in   = sqe_decode(s_rd_tdata);
  assign sqe_c    = (st_q == S_CHK) ? sqe_q : sqe_in;
  assign c_rdat   = sqe_c.opcode == WR_READ || sqe_c.opcode == WR_CMP_SWAP
                    || sqe_c.opcode == WR_FETCH_ADD;
  logic nxt_ok;
  assign wait_chk = st_q == S_WAIT && s_rd_tvalid && !resend_q && !s_rd_tuser
                    && !hit_in;
  // the packet just sent finished its WQE, the visit goes on and the next SQE is here
  assign chain_ok  = (quantum_q > 1 || !others) && rs_q.sq_ci + 16'd1 != rs_q.sq_pi && more_q;
  assign nxt_ok    = st_q == S_PKT && !resend_q && job_fire && pkt_done_wqe && chain_ok
                     && s_rd_tvalid && !s_rd_tuser;
  assign pkt_chain = nxt_ok && (hit_in || chk_ready);
  assign chk_valid = st_q == S_CHK || wait_chk || (nxt_ok && !hit_in);
  assign chk_key   = sqe_c.lkey;
  assign chk_va    = sqe_c.laddr;
  assign chk_len   = (sqe_c.opcode == WR_CMP_SWAP || sqe_c.opcode == WR_FETCH_ADD) ? 32'd8
                                                                                  : sqe_c.len;
  assign chk_acc   = c_rdat ? 4'(1 << MR_ACC_LOCAL_WRITE) : 4'd0;
  assign chk_pd    = qc_q.pd;

  // lkey translation cache (fabnic_roce_xlate_cache, one entry): the region of the last passed check (key, PD,
  // VA range, access bits, host offset). An SQE whose buffer lies inside it, with the
  // same key and the QP's PD, needing no other access, is translated here (va + off)
  // and skips the checker: S_WAIT -> S_PKT, and S_PKT goes on to the next WQE in one
  // cycle. Any MR-table write empties the cache, and a check whose table read may
  // predate a write (one in its issue cycle or the cycle after) does not fill it, so a
  // hit is always what the table would answer now.
  logic [63:0] mc_off;
  logic        mc_hit, in_atom, in_rdat;
  assign in_atom = sqe_in.opcode == WR_CMP_SWAP || sqe_in.opcode == WR_FETCH_ADD;
  assign in_rdat = in_atom || sqe_in.opcode == WR_READ;
  // the result of a check issued two cycles ago, for the SQE now in sqe_q
  fabnic_roce_xlate_cache u_lkc (
      .clk, .rst, .mr_wr_valid,
      .fill(st_q == S_CHKW && chk_res_valid && chk_ok && sqe_q.len != 32'd0),
      .fill_key(sqe_q.lkey), .fill_pd(qc_q.pd), .fill_acc(chk_racc), .fill_lo(chk_lo),
      .fill_hi(chk_hi), .fill_off(chk_off),
      .key(sqe_in.lkey), .pd(qc_q.pd), .va(sqe_in.laddr),
      .len(in_atom ? 32'd8 : sqe_in.len), .need(in_rdat ? 4'(1 << MR_ACC_LOCAL_WRITE) : 4'd0),
      .hit(mc_hit), .off(mc_off)
  );
  assign hit_in = mc_hit && !sqe_in.len[31] && sqe_in.opcode <= WR_FETCH_ADD
                  && !(in_atom && sqe_in.len != 32'd8);

  assign m_kick_valid = st_q == S_KICK;
  assign m_kick_qpn   = qpn_q;

  // writeback and publication (the same cycle)
  logic push_act, pub_now_q;
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
    push_act        = st_q == S_WB && requeue_q;
    act_in_valid    = push_act;
    act_in_qpn      = qpn_q;
  end

  logic        unused_act_in_ready;
  assign unused_act_in_ready = act_in_ready;   // depth NUM_QP and one entry per QP: never full

  always_ff @(posedge clk) begin
    m_ctl_done <= 1'b0;
    case (st_q)
      S_IDLE: begin
        requeue_q <= 1'b0;
        kick_q    <= 1'b0;
        resend_q  <= 1'b0;
        if (take_ctl) begin
          ev_q <= E_CTL; ev_op_q <= s_ctl_op; qpn_q <= s_ctl_qpn; ev_psn_q <= s_ctl_psn;
          st_q <= S_LOAD;
        end else if (take_ev) begin
          ev_q <= E_EV; ev_op_q <= s_ev_type[0]; qpn_q <= s_ev_qpn; ev_psn_q <= s_ev_psn;
          resend_q <= s_ev_type[1];
          ev_wqe_psn_q <= s_ev_wqe_psn; ev_idx_q <= s_ev_wqe_idx; ev_ssn_q <= s_ev_wqe_ssn;
          ev_one_q <= s_ev_one;
          st_q <= S_LOAD;
        end else if (take_db) begin
          ev_q <= E_DB; qpn_q <= s_db_qpn; ev_idx_q <= s_db_pi;
          st_q <= S_LOAD;
        end else if (take_act) begin
          ev_q <= E_ACT; qpn_q <= act_out_qpn;
          st_q <= S_LOAD;
        end else if (take_pf) begin
          ev_q <= E_PF; qpn_q <= pq_out.qpn; pfv_rd_q <= pq_out.rd; pfv_ci_q <= pq_out.ci;
          st_q <= S_LOAD;
        end
      end
      S_LOAD: begin
        qc_q  <= st_rd;
        rs_q  <= rs_rd;
        una_q <= una_rd;
        st_q <= S_DISPATCH;
      end
      S_DISPATCH: begin
        quantum_q <= ($clog2(QUANTUM+1))'(QUANTUM);
        pk_q      <= '0;
        case (ev_q)
          E_CTL: begin
            if (!ev_op_q) begin
              rs_q <= '0;
              rs_q.next_psn <= ev_psn_q;
              rs_q.psn_hi   <= ev_psn_q;
              st_q <= S_WB;
            end else begin
              m_ctl_result <= rs_q.next_psn;
              m_ctl_done   <= 1'b1;
              st_q <= S_IDLE;
            end
            if (!ev_op_q) begin
              m_ctl_done <= 1'b1;
            end
          end
          E_EV: begin
            if (resend_q) begin
              // SR: walk the SQEs from the oldest uncompleted WQE to the PSN's WQE
              if (rs_q.err || qc_q.state != QPS_RTS) begin
                st_q <= S_IDLE;
              end else begin
                sv_sq_ci    <= rs_q.sq_ci;
                sv_off      <= rs_q.off;
                sv_next_psn <= rs_q.next_psn;
                rs_q.sq_ci  <= ev_idx_q;
                wpsn_q      <= ev_wqe_psn_q;
                wssn_q      <= ev_ssn_q;
                st_q <= S_FETCH;
              end
            end else if (ev_op_q) begin
              rs_q.err <= 1'b1;
              st_q <= S_WB;
            end else if (!rs_q.err) begin
              rs_q.sq_ci    <= ev_idx_q;
              rs_q.ssn      <= ev_ssn_q;
              rs_q.next_psn <= ev_psn_q;
              rs_q.off      <= 32'(ev_psn_q - ev_wqe_psn_q) << pmtu_log(qc_q.pmtu);
              if (!rs_q.in_sched) begin
                rs_q.in_sched <= 1'b1;
                requeue_q     <= 1'b1;
              end
              st_q <= S_WB;
            end else begin
              st_q <= S_IDLE;
            end
          end
          E_DB: begin
            rs_q.sq_pi <= ev_idx_q;
            if (rs_q.err || qc_q.state == QPS_ERR) begin
              kick_q <= 1'b1;   // the completer flushes what was just posted
            end else if (!rs_q.in_sched && qc_q.state == QPS_RTS) begin
              rs_q.in_sched <= 1'b1;
              requeue_q     <= 1'b1;
            end
            st_q <= S_WB;
          end
          default: begin  // E_ACT, E_PF
            if (ev_q == E_PF && pfv_rd_q
                && !(rs_q.in_sched && !rs_q.err && qc_q.state == QPS_RTS && !win_full
                     && rs_q.sq_ci != rs_q.sq_pi && rs_q.sq_ci == pfv_ci_q)) begin
              redo_q <= 1'b1;        // prefetched SQEs are stale: drop them, then as E_ACT
              st_q <= S_SKIP;
            end else if (!rs_q.in_sched) begin
              st_q <= S_IDLE;        // stale entry (QP re-initialised)
            end else if (rs_q.err || qc_q.state != QPS_RTS || rs_q.sq_ci == rs_q.sq_pi) begin
              rs_q.in_sched <= 1'b0;
              st_q <= S_WB;
            end else if (win_full) begin
              requeue_q <= 1'b1;     // SR window full: poll again later
              st_q <= S_WB;
            end else begin
              st_q <= (ev_q == E_PF && pfv_rd_q) ? S_WAIT : S_FETCH;
            end
          end
        endcase
      end
      S_FETCH: if (m_rd_ready) st_q <= S_WAIT;
      S_WAIT: begin
        if (s_rd_tvalid) begin
          sqe_q  <= sqe_decode(s_rd_tdata);
          if (!s_rd_tuser) rs_q.sqe_errs <= '0;
          // an AXI error on a beat (tuser: an error so far in this read) means its SQE
          // and every later one of the read are not used
          if (resend_q && s_rd_tuser) begin
            rs_q.sq_ci <= sv_sq_ci;        // resend abandoned (the timer covers it)
            st_q <= (s_rd_tlast && vr_q <= 2'd1) ? S_WB : S_SKIP;
          end else if (resend_q && psn_le(wpsn_q + rs_span, ev_psn_q)) begin
            // the PSN is beyond this WQE: next SQE
            rs_q.sq_ci <= rs_q.sq_ci + 16'd1;
            wpsn_q     <= wpsn_q + rs_span;
            wssn_q     <= wssn_q + 24'(rs_rqe);
            if (rs_q.sq_ci + 16'd1 == rs_q.sq_hi) begin
              rs_q.sq_ci <= sv_sq_ci;      // not a sent PSN: nothing to do
              st_q <= s_rd_tlast ? S_WB : S_SKIP;
            end else begin
              st_q <= s_rd_tlast ? S_FETCH : S_WAIT;
            end
          end else if (resend_q && ev_op_q && !ev_one_q && ev_psn_q != wpsn_q
                       && s_rd_tdata[8*8 +: 8] == WR_READ) begin
            rs_q.sq_ci <= sv_sq_ci;        // SACK hole inside a READ: the READ's first PSN
            st_q <= s_rd_tlast ? S_WB : S_SKIP;   // is resent (or executed) on its own
          end else if (resend_q) begin
            rs_q.off      <= 32'(ev_psn_q - wpsn_q) << lg;
            rs_q.next_psn <= ev_psn_q;
            st_q <= S_CHK;
          end else if (s_rd_tuser) begin
            // the QP stays scheduled and reads the SQE again on its next visit, up to
            // SQE_RETRIES times in a row; then the WQE completes with LOC_QP_OP_ERR
            // and the QP's send side stops (the completer flushes the rest)
            if (rs_q.sqe_errs == 2'(SQE_RETRIES)) begin
              rs_q.err         <= 1'b1;
              rs_q.in_sched    <= 1'b0;
              rs_q.lerr        <= 1'b1;
              rs_q.lerr_idx    <= rs_q.sq_ci;
              rs_q.lerr_status <= WS_LOC_QP_OP_ERR;
              kick_q           <= 1'b1;
            end else begin
              rs_q.sqe_errs <= rs_q.sqe_errs + 2'd1;
              requeue_q     <= 1'b1;
            end
            // the rest of this read and a read-ahead's beats follow
            st_q <= (s_rd_tlast && vr_q <= 2'd1) ? S_WB : S_SKIP;
          end else if (hit_in) begin
            haddr_q <= sqe_in.laddr + mc_off;       // translated by the cache
            st_q <= S_PKT;
          end else begin
            st_q <= chk_ready ? S_CHKW : S_CHK;     // (wait_chk issued the check)
          end
        end
      end
      S_SKIP: if (s_rd_tvalid && s_rd_tlast && vr_q == 2'd1) begin   // SQEs not used
        if (redo_q && pf_busy && rs_q.in_sched && !rs_q.err && qc_q.state == QPS_RTS
            && rs_q.sq_ci != rs_q.sq_pi) begin
          redo_q    <= 1'b0;      // later entries' reads are out: visit it again later
          requeue_q <= 1'b1;
          st_q      <= S_WB;
        end else if (redo_q) begin
          redo_q <= 1'b0;
          ev_q   <= E_ACT;
          st_q   <= S_DISPATCH;
        end else begin
          st_q <= S_WB;
        end
      end
      S_CHK: if (chk_ready) st_q <= S_CHKW;
      S_CHKW: begin
        if (chk_res_valid) begin
          haddr_q <= chk_addr;
          if (!chk_ok || sqe_q.opcode > WR_FETCH_ADD || sqe_q.len[31]
              || (is_atomic && (sqe_q.len != 32'd8))) begin
            rs_q.err         <= 1'b1;
            rs_q.in_sched    <= 1'b0;
            rs_q.lerr        <= 1'b1;
            rs_q.lerr_idx    <= rs_q.sq_ci;
            rs_q.lerr_status <= !chk_ok ? WS_LOC_PROT_ERR : WS_LOC_LEN_ERR;
            cnt_lkey_err     <= cnt_lkey_err + CNT_W'(!chk_ok);
            kick_q           <= 1'b1;
            st_q             <= more_q ? S_SKIP : S_WB;
          end else begin
            st_q <= S_PKT;
          end
        end
      end
      S_RLREQ: if (m_lim_ready) st_q <= S_RLRSP;
      S_RLRSP: begin
        if (s_lim_rsp_valid) begin
          if (s_lim_rsp_grant) begin
            granted_q <= 1'b1;
            st_q <= S_PKT;
          end else if (others && !resend_q) begin
            // other QPs are waiting: give way, come back later
            requeue_q <= 1'b1;
            st_q <= more_q ? S_SKIP : S_WB;
          end else begin
            retry_at_q <= s_lim_rsp_time;
            st_q <= S_RLWAIT;
          end
        end
      end
      S_RLWAIT: if (lim_time >= retry_at_q || others ||
                    (lim_upd_valid && lim_upd_qpn == qpn_q)) st_q <= S_RLREQ;
      S_PKT: begin
        if (paced && !granted_q) st_q <= S_RLREQ;
        if (resend_q) begin
          if (job_fire) begin
            granted_q     <= 1'b0;
            cnt_req_pkts  <= cnt_req_pkts + 1'b1;
            cnt_retx_pkts <= cnt_retx_pkts + 1'b1;
            cnt_sr_retx   <= cnt_sr_retx + 1'b1;
            rs_q.sq_ci    <= sv_sq_ci;
            rs_q.off      <= sv_off;
            rs_q.next_psn <= sv_next_psn;
            st_q <= more_q ? S_SKIP : S_WB;
          end
        end else if (win_full || atom_wait) begin
          // SR window full / atomic fence: end the visit at this position, poll later
          requeue_q <= 1'b1;
          st_q <= more_q ? S_SKIP : S_WB;
        end else if (job_fire) begin
          granted_q <= 1'b0;
          cnt_req_pkts  <= cnt_req_pkts + 1'b1;
          cnt_retx_pkts <= cnt_retx_pkts + CNT_W'(psn_lt(rs_q.next_psn, rs_q.psn_hi));
          rs_q.next_psn <= rs_q.next_psn + psn_step;
          if (!psn_lt(rs_q.next_psn + psn_step, rs_q.psn_hi))
            rs_q.psn_hi <= rs_q.next_psn + psn_step;
          if (is_atomic) begin
            rs_q.atom_v   <= 1'b1;
            rs_q.atom_psn <= rs_q.next_psn;
          end
          pk_q      <= job.hdr.bth.ack_req ? 16'd0 : pk_q + 16'd1;
          quantum_q <= quantum_q - 1'b1;
          if (pkt_done_wqe) begin
            rs_q.off   <= '0;
            rs_q.sq_ci <= rs_q.sq_ci + 16'd1;
            rs_q.ssn   <= rs_q.ssn + 24'(uses_rqe);
            if (rs_q.sq_ci == rs_q.sq_hi) rs_q.sq_hi <= rs_q.sq_hi + 16'd1;
            // go on with the next WQE (a new fetch only if no prefetch is out)
            if ((quantum_q > 1 || !others) && rs_q.sq_ci + 16'd1 != rs_q.sq_pi
                && (more_q || !pf_out)) begin
              if (quantum_q == 1) quantum_q <= ($clog2(QUANTUM+1))'(QUANTUM);
              st_q <= more_q ? S_WAIT : S_FETCH;
              if (pkt_chain) begin         // next SQE taken: translated, or its check issued
                sqe_q <= sqe_in;
                st_q  <= S_CHKW;
                if (hit_in) begin
                  haddr_q <= sqe_in.laddr + mc_off;
                  st_q    <= S_PKT;
                end
              end
            end else begin
              requeue_q <= rs_q.sq_ci + 16'd1 != rs_q.sq_pi;
              if (rs_q.sq_ci + 16'd1 == rs_q.sq_pi) rs_q.in_sched <= 1'b0;
              st_q <= more_q ? S_SKIP : S_WB;
            end
          end else begin
            rs_q.off <= rs_q.off + seg;
            if (quantum_q == 1) begin
              if (others) begin
                requeue_q <= 1'b1;
                st_q      <= more_q ? S_SKIP : S_WB;
              end else begin
                // no other QP is waiting: keep going with a fresh quantum (no SQE re-read)
                quantum_q <= ($clog2(QUANTUM+1))'(QUANTUM);
              end
            end
          end
        end
      end
      S_WB: st_q <= kick_q ? S_KICK : S_IDLE;
      S_KICK: if (m_kick_ready) st_q <= S_IDLE;
      default: st_q <= S_IDLE;
    endcase
    if (db_absorb) rs_q.sq_pi <= s_db_pi;
    if (rst) begin
      st_q          <= S_IDLE;
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
    end
  end

  logic unused;
  assign unused = ^{s_rd_tdata[511:0], rs_rd.lerr, qc_q, sqe_q, sqe_c,
                  pq_in_ready};   // pf_go checks the room

endmodule

`resetall
