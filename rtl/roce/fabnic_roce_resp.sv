// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_resp: RC responder (the receive side of every QP for requests).
//
// Per request packet, in order: QP state check (RTR/RTS), PSN check against the
// expected PSN (new / duplicate / gap), opcode-sequence check, then
//   SEND:   receive WQE fetched by DMA on the first packet (RNR NAK when none is
//           posted), its lkey checked, payload placed at buffer + message offset;
//           a receive CQE on the last packet;
//   WRITE:  rkey/PD/bounds/rights checked on the first packet (the whole message),
//           payload placed at the running address; WRITE with immediate consumes a
//           receive WQE and completes it;
//   READ:   rkey checked, a read-response job (fabnic_roce_rresp) for PSNs
//           psn .. psn+n-1;
//   ATOMIC: rkey checked (8 bytes, aligned), 8 bytes read, CmpSwap/FetchAdd
//           computed, written back, atomic ACK with the original value (kept per QP
//           so a duplicate gets the same answer without executing twice).
// ACK on AckReq (coalescing is the requester's cadence); duplicates are re-ACKed and
// duplicate READs re-executed; the first packet after a gap gets one sequence NAK
// (later ones are dropped until the gap fills); remote access violations and invalid
// requests get NAKs, and nothing is written to host memory for them.
// Selective repeat (QP context bit sr, docs/roce_sr.md): every request packet is
// classified by fabnic_roce_sr_window (one request in flight, 4-cycle round trip);
// WRITE packets without immediate are placed out of order (per-packet RETH: rkey, PD,
// rights and bounds checked for [va, va+payload)), and so are SEND packets (per-packet
// SOFFETH: message offset, SSN, message length; the receive WQE is rq_ci + (SSN -
// rq_ci) mod 2^16, fetched into a one-entry side register when it is not the next one,
// checked before the window sees the packet so that a packet that cannot be placed is
// dropped unmarked and comes back); the last packet of WRITE-with-immediate, READ and
// atomics only at the expected PSN (ORDERED_EARLY: dropped, not marked). The MSN
// advances and receive CQEs are written only when the expected PSN passes a message's
// last packet (per-QP end-of-message maps): the CQE fields of a SEND whose LAST came out
// of order (byte_len, immediate) wait in a small shared stash (SR_STASH entries, keyed
// by QP and PSN; a full stash makes such a LAST wait for its in-order resend) and are
// written, oldest first, after the packet that moved the expected PSN past them. A SACK
// (0xC0) replaces the sequence NAK, a plain ACK is sent when the window has no holes.
// The expected PSN of the state word mirrors the window's.
// Placement is synchronous: payload is streamed into the DMA write engine before the
// CQE request is issued, so (same AXI ID, in order) the data lands before the CQE.
// RQE prefetch (RQE_PREFETCH=1): the next receive WQE is fetched and its lkey checked
// ahead of the SEND that consumes it - on an RQ doorbell that finds none loaded, and
// right after a packet consumed one while more are posted - so a SEND's path to its
// CQE has no RQE round trip. A prefetched RQE carries the MR-table write epoch of its
// check; if any MR was written since, the first packet that would use it fetches and
// checks it again (protection is as strict as checking on arrival). Its lkey error is
// counted when a SEND meets it.
// Structure: one FSM (states in fabnic_roce_resp_pkg, one-hot: a state test is one
// flop) as two processes, the next-state block (st_d, defaults and unique case) and the
// register updates of each state; submodules: u_ack (fabnic_roce_resp_ack: ACK / NAK /
// atomic ACK / CNP / SACK jobs and the READ response job), u_cqe_out
// (fabnic_roce_resp_out: receive CQEs), u_mr (fabnic_roce_mr_table: rkey / lkey
// checks), u_win (fabnic_roce_sr_window: SR receive window), u_rkc
// (fabnic_roce_xlate_cache: the fast path's rkey cache).
// Timing structure (docs/roce_engine.md, "Responder structure and logic depth"): decide
// in one stage, act in the next. S_DISPATCH decides a request packet's outcome into dp_q
// and S_NEW acts on it (S_DISPATCH itself acts only on the cached-rkey WRITE fast path);
// the FSM's decisions read values registered one or more cycles ahead (opcode classes,
// context-derived sizes, S_DISPATCH's PSN, RQ and RQE-epoch compares, S_DISPATCH's and
// S_NEW's whole decisions, the SEND and WRITE length checks, the fast path's rkey
// lookup and length checks, S_FIN's pick and prefetch flags, S_PF's and S_RQE_RD's
// batch compares, the next batch's size, the SR window request's span, the SR stash
// lookup, the MSN advance), each under a rule checked by an assertion at the end of
// the module. The state RAM is read every cycle at the QP the next pick would take,
// and written one cycle after the write-back decision from r_q (one event in flight;
// the state an event starts from is checked against a shadow of the RAM in
// simulation).
// ACK/NAK jobs and receive CQEs leave through bypass hold registers
// (fabnic_roce_resp_out): the FSM offers one only while the register is empty (a flop)
// and never waits for m_job_ready / m_cqe_ready, which drive only those registers.
// Handshakes with the submodules: u_ack's job offer and u_cqe_out's offer are flops
// (state and event registers) gated by the room flops; S_RJOB's READ job handshake
// passes through u_ack (m_rjob_ready -> the FSM); u_mr's check request is issued from
// registered flags (S_DISPATCH's speculative check, S_MR_CHK, S_RQE_CHK) and its
// result is not back-pressured; u_win's request and response readies are state flops.
// Combinational handshake paths (not registered): S_PLACE passes the payload stream
// through (s_axis_tvalid -> m_wr_tvalid, m_wr_tready -> s_axis_tready) and its last
// beat commits and may pick the next event in the same cycle (fast finish: both ->
// s_hdr_ready, s_ctl_ready, s_db_ready, s_cnp_ready, s_wf_ready); the input valids
// arbitrate the picks (s_*_valid -> s_*_ready of the same and lower priority inputs); an
// MR-table write cancels the fast path's write descriptor (mr_wr_valid -> m_wr_valid).
`default_nettype none

module fabnic_roce_resp #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_QP = 1024,
    parameter int NUM_MR = 1024,
    parameter int CNT_W  = 32,
    parameter bit RQE_PREFETCH = 1'b1,
    parameter int RQE_BATCH = 32,   // receive WQEs per background prefetch read (1..32)
    parameter int SR_STASH = 16,    // SR: receive CQEs of out-of-order SEND LASTs parked
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

    // control: op 0 = init receive side (psn), 1 = query (expected PSN)
    input  wire logic                         s_ctl_valid,
    output logic                              s_ctl_ready,
    input  wire logic                         s_ctl_op,
    input  wire logic [QPN_W-1:0]             s_ctl_qpn,
    input  wire logic [23:0]                  s_ctl_psn,
    output logic                              m_ctl_done,
    output logic      [23:0]                  m_ctl_result,
    output logic                              m_ctl_err,     // receive side in error

    input  wire logic                         s_db_valid,
    output logic                              s_db_ready,
    input  wire logic [QPN_W-1:0]             s_db_qpn,
    input  wire logic [15:0]                  s_db_pi,

    // CNP requests of the notification point (local QPN): a CNP goes to the peer QP
    input  wire logic                         s_cnp_valid,
    output logic                              s_cnp_ready,
    input  wire logic [QPN_W-1:0]             s_cnp_qpn,

    // host memory faults: a placement write of this QP (packet PSN) got a BRESP error,
    // or (s_wf_rd) a READ response frame of this QP (its PSN) left flagged bad, its
    // payload read having failed
    input  wire logic                         s_wf_valid,
    output logic                              s_wf_ready,
    input  wire logic [QPN_W-1:0]             s_wf_qpn,
    input  wire logic [23:0]                  s_wf_psn,
    input  wire logic                         s_wf_rd,

    input  wire fabnic_roce_pkg::roce_hdr_t   s_hdr,
    input  wire logic [15:0]                  s_hdr_plen,
    input  wire logic                         s_hdr_valid,
    output logic                              s_hdr_ready,
    input  wire logic [DATA_W-1:0]            s_axis_tdata,
    input  wire logic [KEEP_W-1:0]            s_axis_tkeep,
    input  wire logic                         s_axis_tvalid,
    output logic                              s_axis_tready,
    input  wire logic                         s_axis_tlast,
    input  wire logic                         s_axis_tuser,

    output logic      [63:0]                  m_rd_addr,
    output logic      [31:0]                  m_rd_len,
    output logic                              m_rd_valid,
    input  wire logic                         m_rd_ready,
    input  wire logic [511:0]                 s_rd_tdata,
    input  wire logic                         s_rd_tvalid,
    output logic                              s_rd_tready,
    input  wire logic                         s_rd_tlast,
    input  wire logic                         s_rd_tuser,

    output logic      [63:0]                  m_wr_addr,
    output logic      [31:0]                  m_wr_len,
    output logic      [QPN_W-1:0]             m_wr_qpn,      // the write's QP and PSN
    output logic      [23:0]                  m_wr_psn,      // (write-fault attribution)
    output logic                              m_wr_valid,
    input  wire logic                         m_wr_ready,
    output logic      [DATA_W-1:0]            m_wr_tdata,
    output logic      [KEEP_W-1:0]            m_wr_tkeep,
    output logic                              m_wr_tvalid,
    input  wire logic                         m_wr_tready,
    output logic                              m_wr_tlast,

    // ACK / NAK / atomic ACK packets
    output fabnic_roce_pkg::tx_job_t          m_job,
    output logic                              m_job_valid,
    input  wire logic                         m_job_ready,

    // READ response work: job template (dest, BTH, AETH msn), first PSN, host address,
    // length; fabnic_roce_rresp segments it
    output fabnic_roce_pkg::tx_job_t          m_rjob,
    output logic      [31:0]                  m_rjob_len,
    output logic      [3:0]                   m_rjob_lg,
    output logic                              m_rjob_valid,
    input  wire logic                         m_rjob_ready,

    output fabnic_roce_pkg::cqe_req_t         m_cqe,
    output logic                              m_cqe_valid,
    input  wire logic                         m_cqe_ready,

    output logic      [CNT_W-1:0]             cnt_drop_qp_state,
    output logic      [CNT_W-1:0]             cnt_drop_psn,
    output logic      [CNT_W-1:0]             cnt_dup,
    output logic      [CNT_W-1:0]             cnt_seq_nak,
    output logic      [CNT_W-1:0]             cnt_rnr_nak,
    output logic      [CNT_W-1:0]             cnt_access_err,
    output logic      [CNT_W-1:0]             cnt_inv_req,
    output logic      [CNT_W-1:0]             cnt_acks_sent,
    output logic      [CNT_W-1:0]             cnt_lkey_err,
    output logic      [CNT_W-1:0]             cnt_cnp_sent,
    // selective repeat
    output logic      [CNT_W-1:0]             cnt_sack_sent,
    output logic      [CNT_W-1:0]             cnt_ooo_placed,
    output logic      [CNT_W-1:0]             cnt_sr_drop,    // ORDERED_EARLY + BEYOND_WINDOW
    output logic      [CNT_W-1:0]             cnt_sr_spurious // SR: a request received twice
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;
  import fabnic_roce_resp_pkg::*;

  typedef struct packed {
    logic [23:0] epsn;
    logic [23:0] msn;
    logic [15:0] rq_pi;
    logic [15:0] rq_ci;
    logic        rqe_valid;
    logic        rqe_ok;
    logic        rqe_dmaerr; // its host read returned an AXI error (rqe_ok = 0)
    logic        rqe_pf;     // loaded ahead (prefetch), not used by a packet yet
    logic [15:0] rqe_epoch;  // MR-table write epoch when its lkey was checked
    logic [63:0] rqe_haddr;
    logic [31:0] rqe_len;
    logic [63:0] rqe_wrid;
    logic [31:0] msg_off;
    logic        in_send;
    logic        sr_part;    // SR: a packet of the SEND of receive rq_ci placed (no CQE yet)
    logic        in_write;
    logic [63:0] wr_haddr;
    logic [31:0] wr_rem;
    logic [31:0] wr_len;
    logic        nak_sent;
    logic        atom_valid;
    logic [23:0] atom_psn;
    logic [63:0] atom_orig;
    logic [63:0] eom;        // SR: bit i = PSN epsn+i is a message's last packet (placed)
    logic [63:0] reom;       // SR: bit i = that LAST is a SEND placed out of order (stashed CQE)
    logic        err;        // receive side in ERR (a request NAKed invalid / access / op)
  } rstate_t;

  qpc_t             st_rd, qc_q;
  rstate_t          rs_rd, r_q;
  rstate_t          r_cm;         // r_q after the commit of the current request
  logic             fast_fin;     // (both below, at the commit)
  logic             rd_en, wr_en;
  logic [QPN_W-1:0] rd_addr, qpn_q;

  fabnic_ram_sdp #(.DATA_W($bits(qpc_t)), .DEPTH(NUM_QP)) u_static (
      .clk, .wr_en(st_wr_en), .wr_be(1'b1), .wr_addr(st_wr_addr), .wr_data(st_wr_data),
      .rd_en(1'b1), .rd_regce(1'b1), .rd_addr, .rd_data(st_rd)
  );
  // The state RAM is written one cycle after the write-back decision (wr_en), from r_q:
  // in that cycle r_q holds exactly the state being written back (S_WB and S_FIN do not
  // write r_q at their edge, a fast finish loads r_cm, the state it writes back, and any
  // state changes r_q only at the end of its cycle). wb_en_q/wb_qpn_q are the registered
  // write enable and QP; a pick that reads that QP in the write cycle is forwarded
  // (fwd_q) like one in the decision cycle: r_q is its state in S_LOAD.
  logic             wb_en_q;
  logic [QPN_W-1:0] wb_qpn_q;
  always_ff @(posedge clk) begin
    wb_en_q  <= wr_en;
    wb_qpn_q <= qpn_q;
    if (rst) wb_en_q <= 1'b0;
  end
  fabnic_ram_sdp #(.DATA_W($bits(rstate_t)), .DEPTH(NUM_QP)) u_state (
      .clk, .wr_en(wb_en_q), .wr_be(1'b1), .wr_addr(wb_qpn_q), .wr_data(r_q),
      .rd_en(1'b1), .rd_regce(1'b1), .rd_addr, .rd_data(rs_rd)
  );

  logic [31:0] rqe_lkey_q;
  logic [63:0] rd_haddr_q;   // host address of the READ being answered (S_RJOB)
  // MR-table writes seen (wraps): a prefetched RQE is re-checked if this moved
  logic [15:0] mr_epoch_q, rqe_ep_q;
  logic        rqe_pf_q;     // the RQE being fetched is a prefetch
  logic        rqe_bad_q;    // the RQE just read came with an AXI error: not used
  always_ff @(posedge clk) begin
    if (mr_wr_valid) mr_epoch_q <= mr_epoch_q + 16'd1;
    if (rst) mr_epoch_q <= '0;
  end
  // MR table copy
  logic        chk_valid, chk_ready, chk_res_valid, chk_ok, unused_mr_wr_ready;
  logic [63:0] chk_addr, chk_va;
  logic [31:0] chk_key, chk_len;
  logic [3:0]  chk_acc;
  mr_err_e     unused_chk_err;
  logic [7:0]  unused_chk_id;
  logic [CNT_W-1:0] unused_mr_cnt [6];
  logic [63:0] chk_lo, chk_off;   // region of an ok check (rkey translation cache)
  logic [64:0] chk_hi;
  logic [3:0]  chk_racc;
  fabnic_roce_mr_table #(.NUM_MR(NUM_MR), .CNT_W(CNT_W)) u_mr (
      .clk, .rst,
      .wr_valid(mr_wr_valid), .wr_ready(unused_mr_wr_ready), .wr_index(mr_wr_index),
      .wr_entry(mr_wr_entry),
      .s_chk_valid(chk_valid), .s_chk_ready(chk_ready), .s_chk_key(chk_key),
      .s_chk_va(chk_va), .s_chk_len(chk_len), .s_chk_access(chk_acc), .s_chk_pd(qc_q.pd),
      .s_chk_id(8'd0),
      .m_chk_valid(chk_res_valid), .m_chk_ready(1'b1), .m_chk_ok(chk_ok),
      .m_chk_err(unused_chk_err), .m_chk_addr(chk_addr), .m_chk_id(unused_chk_id),
      .m_chk_lo(chk_lo), .m_chk_hi(chk_hi), .m_chk_off(chk_off), .m_chk_acc(chk_racc),
      .cnt_chk(unused_mr_cnt[0]), .cnt_err_invalid(unused_mr_cnt[1]),
      .cnt_err_tag(unused_mr_cnt[2]), .cnt_err_pd(unused_mr_cnt[3]),
      .cnt_err_access(unused_mr_cnt[4]), .cnt_err_bounds(unused_mr_cnt[5])
  );

  resp_st_e st_q, st_d, after_rqe_q;

  resp_src_e        src_q;
  logic [23:0] wf_psn_q;    // SRC_WF: PSN of the packet whose placement failed
  logic        wf_rd_q;     // SRC_WF: ... or of the READ response whose payload read failed
  logic        wf_first_q;  // S_RFL: the first receive flushed was in use (LOC_QP_OP_ERR)

  // background RQE reader (see the DMA read section)
  localparam int BGW = $clog2(RQE_BATCH + 1);
  localparam int BGI = (RQE_BATCH > 1) ? $clog2(RQE_BATCH) : 1;
  typedef enum logic [2:0] { BG_IDLE, BG_RD, BG_WAIT, BG_HAVE, BG_NX1, BG_NX2 } bg_e;
  bg_e              bg_st_q;
  logic [QPN_W-1:0] bg_qpn_q;
  logic [15:0]      bg_base_q;                  // RQ index of entry 0
  logic [BGW-1:0]   bg_n_q, bg_lo_q;            // entries read; first one not used
  logic [BGW:0]     bg_rx_q;                    // entries received
  logic             bg_stale_q, bg_new_q;
  logic [63:0]      bg_addr_q;
  rqe_t             bg_e_q [RQE_BATCH];
  logic             bg_busy, bg_hit, bg_pend, bg_pop, bg_launch;
  logic             bg_hit_r, bg_pend_r;         // from compares registered (S_PF, S_RQE_RD)
  logic [15:0]      bg_off;
  rqe_t             bg_ent;
  typedef enum logic [1:0] { PF_NONE, PF_FSM, PF_LAUNCH } pf_e;
  pf_e         pf_act, fin_pf_act;
  rstate_t     fr;          // r_q as S_FIN will see it
  logic        pt_ne0, pt_ne1;   // rq_ci != rq_pi, rq_ci + 1 != rq_pi (of r_q)
  logic        cm_cqe;      // the commit completes a receive (CQE)
  logic        cm_err;      // the commit moves the receive side to ERR
  logic        fp_ok_q;     // S_FIN may pick: receive side not in ERR, no stashed CQEs
  logic        fp_cmp_q;    // S_FIN: stashed completions passed (cmp_map_q != 0)
  logic        fp_pt_q;     // S_FIN is a prefetch point (the QP's RQE used up, more posted)
  logic        fp_qm_q, fp_lt_q, fp_ge_q;   // the batch is the QP's; its rq_ci inside it
  logic        fin_bg_pend, fin_bg_hit;
  logic        commit_now;
  logic        pf_point;
  logic [15:0] pf_pi;
  logic [16:0] pf_room, pf_posted;
  logic [BGW-1:0] pf_cnt;
  logic fin_done;
  logic signed [23:0] pd_diff;
  // S_DISPATCH's registered PSN / RQ checks (see pd0_q below)
  logic        dq_eq, dq_pos, dq_neg, dq_w64, dq_sknz, dq_skge, dq_arep, dq_epne, dq_oqh, dq_emp;
  logic        pd_eq, pd0_q;   // the packet is at the expected PSN
  logic        ctl_op_q;
  logic [23:0] ctl_psn_q;
  logic [15:0] db_pi_q;
  roce_hdr_t   h_q;
  logic [15:0] plen_q;

  // what to send after the packet (ack_kind) and complete (cqe_q)
  resp_ack_e        ack_q;
  logic [7:0]  syn_q;
  logic [23:0] ack_psn_q;
  logic        cqe_pend_q;
  cqe_req_t    cqe_q;
  logic        drain_q;        // payload still to drain
  logic        accept_q;       // the SEND/WRITE packet is accepted: commit after placement
  logic [63:0] atom_orig_q, atom_new_q;

  // opcode classes, decoded from the header port and registered with h_q at the pick
  resp_opc_t oc_q;
  logic is_send, is_write, is_first, is_last, has_imm, is_read, is_atomic, is_req;
  logic needs_rqe;   // this packet consumes a receive WQE
  assign is_send   = oc_q.send;
  assign is_write  = oc_q.write;
  assign is_first  = oc_q.first;
  assign is_last   = oc_q.last;
  assign has_imm   = oc_q.imm;
  assign is_read   = oc_q.read;
  assign is_atomic = oc_q.atomic;
  assign is_req    = oc_q.req;
  assign needs_rqe = oc_q.rqe;

  // values derived from the static context, registered with qc_q in S_LOAD
  logic [3:0]  lg;          // log2 of the path MTU
  logic [31:0] pmtu_b;      // path MTU in bytes
  logic [15:0] rq_mask;     // RQ index mask (ring size - 1)
  logic [16:0] rq_size;     // RQ ring size
  logic        qps_ok;      // QP in RTR or RTS
  logic [31:0] pmtu_m1;     // path MTU - 1
  logic [31:0] rd_sum_q;
  logic [23:0] rd_np_q;
  always_ff @(posedge clk) begin
    if (st_q[I_LOAD]) begin
      lg      <= pmtu_log(st_rd.pmtu);
      pmtu_b  <= 32'd1 << pmtu_log(st_rd.pmtu);
      rq_mask <= 16'((32'd1 << st_rd.rq_log) - 1);
      rq_size <= 17'(32'd1 << st_rd.rq_log);
      qps_ok  <= st_rd.state == QPS_RTR || st_rd.state == QPS_RTS;
      pmtu_m1 <= (32'd1 << pmtu_log(st_rd.pmtu)) - 32'd1;
    end
  end
  // PSNs of the READ being answered (npkts of its length), two register stages from h_q
  // and lg: S_RJOB is at least three cycles after S_DISPATCH (asserted at the end)
  always_ff @(posedge clk) begin
    logic [31:0] n;
    rd_sum_q <= h_q.reth.dma_len + pmtu_m1;
    n        = rd_sum_q >> lg;
    rd_np_q  <= (n == 0) ? 24'd1 : n[23:0];
  end

  // ---------------------------------------------------------------- SR SEND (SOFFETH)
  // SOFFETH in the reth field: va = message offset, rkey[23:0] = SSN, dma_len = length
  logic        sr_send;
  logic [15:0] sk, posted;        // receive WQE distance from rq_ci; WQEs posted
  logic [31:0] send_off;          // byte offset of the packet in the message
  logic        soff_bad;          // SOFFETH inconsistent with the opcode / payload
  logic        soff_bad_q;        // registered: read in S_SCHK / S_EXEC, after S_DISPATCH
  logic        side_q;            // the RQE in use is the side one (sk != 0)
  assign sr_send  = qc_q.sr && is_send;
  assign sk       = h_q.reth.rkey[15:0] - r_q.rq_ci;
  // RQ index of the packet's receive WQE: rq_ci + sk = the SSN's low bits
  logic [15:0] ssn_idx;
  logic        sk_nz;             // sk != 0
  assign ssn_idx = h_q.reth.rkey[15:0];
  assign sk_nz   = ssn_idx != r_q.rq_ci;
  assign posted   = r_q.rq_pi - r_q.rq_ci;
  assign send_off = qc_q.sr ? h_q.reth.va[31:0] : r_q.msg_off;
  always_comb begin
    logic [32:0] e;
    e        = 33'(h_q.reth.va[31:0]) + 33'(plen_q);
    soff_bad = h_q.reth.va[63:32] != 0 || e > 33'(h_q.reth.dma_len) || h_q.reth.rkey[31:24] != 0
               || (is_first && h_q.reth.va[31:0] != 0)
               || (is_last && e != 33'(h_q.reth.dma_len))
               || (!is_last && 32'(plen_q) != pmtu_b);
  end
  always_ff @(posedge clk) soff_bad_q <= soff_bad;
  // side RQE: the receive WQE of an out-of-order SEND that is not the next one
  logic             oq_valid, oq_ok;
  logic [QPN_W-1:0] oq_qpn;
  logic [15:0]      oq_idx, oq_epoch;
  logic [63:0]      oq_haddr;
  logic [31:0]      oq_len;
  logic             oq_hit;
  assign oq_hit = oq_valid && oq_qpn == qpn_q && oq_idx == ssn_idx
                  && oq_epoch == mr_epoch_q;
  // the RQE a SEND packet uses
  logic        u_ok;
  logic [63:0] u_haddr;
  logic [31:0] u_len;
  assign u_ok    = side_q ? oq_ok : r_q.rqe_ok;
  assign u_haddr = side_q ? oq_haddr : r_q.rqe_haddr;
  assign u_len   = side_q ? oq_len : r_q.rqe_len;
  // The SEND length checks, registered one cycle ahead of S_EXEC, S_SCHK, S_SRW and the
  // commit that read them: the cycle before never writes their inputs (msg_off, the RQE
  // fields, oq_*, h_q, plen_q, the context; an RQE install passes S_RQE_DONE first).
  // Both RQE choices side by side: side_q may be written in the cycle before S_SCHK.
  logic [31:0] se_end, se_end_q;  // send_off + payload length (wraps as in the check)
  logic        sb0_q, sb1_q;      // se_end > the length of r_q's RQE / the side RQE
  logic        send_lbad;         // se_end > u_len
  assign se_end = send_off + 32'(plen_q);
  always_ff @(posedge clk) begin
    se_end_q <= se_end;
    sb0_q    <= se_end > r_q.rqe_len;
    sb1_q    <= se_end > oq_len;
  end
  assign send_lbad = side_q ? sb1_q : sb0_q;

  // CQE stash of out-of-order SEND LASTs: {QP, PSN of the LAST, byte_len, immediate}
  localparam int STI_W = (SR_STASH > 1) ? $clog2(SR_STASH) : 1;
  logic [SR_STASH-1:0] stv, stimm;
  logic [QPN_W-1:0]    stq [SR_STASH];
  logic [23:0]         stp [SR_STASH];
  logic [31:0]         stl [SR_STASH];
  logic [31:0]         sti [SR_STASH];
  logic                st_free_any;
  logic                st_free_q;   // st_free_any of the cycle before (S_DISPATCH: the
                                    // stash is not written in S_LOAD or a pick cycle)
  logic [STI_W-1:0]    st_free_idx;
  // completions the last advance passed: bit i = PSN cmp_base_q + i
  logic [63:0]         cmp_map_q;
  logic [23:0]         cmp_base_q;
  always_comb begin
    st_free_any = 1'b0;
    st_free_idx = '0;
    for (int i = SR_STASH - 1; i >= 0; i--) begin
      if (!stv[i]) begin
        st_free_any = 1'b1;
        st_free_idx = STI_W'(i);
      end
    end
  end
  always_ff @(posedge clk) st_free_q <= st_free_any;
  // Stash lookup for S_CMP, two register stages (lk1: lowest map bit, each entry's PSN
  // offset from cmp_base_q; lk2: the oldest matching entry). Rule: S_CMP acts only when
  // lk_age_q == 2, i.e. no input of the lookup (map, base, stash, qpn_q) was written in
  // the two cycles before; lk_chg marks every cycle that may write one.
  logic [5:0]          lk_low_q;                  // lowest set bit of cmp_map_q
  logic                lk_any_q;                  // cmp_map_q != 0
  logic [SR_STASH-1:0] lk_near_q;                 // stp[i] - cmp_base_q < 64
  logic [5:0]          lk_d_q [SR_STASH];         // stp[i] - cmp_base_q (low bits)
  logic                lk_hit_q;                  // an entry holds PSN cmp_base_q + lk_low_q
  logic [STI_W-1:0]    lk_idx_q;                  // the first such entry
  logic [1:0]          lk_age_q;
  logic                lk_chg, lk_ok;
  always_ff @(posedge clk) begin
    logic [5:0]  low;
    logic [63:0] low1;
    logic [23:0] d;
    logic        hit;
    logic [STI_W-1:0] idx;
    // lowest set bit: isolated by x & -x (one carry chain), then encoded (OR trees)
    low1 = cmp_map_q & (~cmp_map_q + 64'd1);
    low  = '0;
    for (int b = 0; b < 6; b++)
      for (int i = 0; i < 64; i++) if (((i >> b) & 1) == 1) low[b] = low[b] | low1[i];
    lk_low_q <= low;
    lk_any_q <= cmp_map_q != '0;
    for (int i = 0; i < SR_STASH; i++) begin
      d = stp[i] - cmp_base_q;
      lk_near_q[i] <= d[23:6] == '0;
      lk_d_q[i]    <= d[5:0];
    end
    hit = 1'b0;
    idx = '0;
    for (int i = SR_STASH - 1; i >= 0; i--) begin
      if (stv[i] && stq[i] == qpn_q && lk_near_q[i] && lk_d_q[i] == lk_low_q) begin
        hit = 1'b1;
        idx = STI_W'(i);
      end
    end
    lk_hit_q <= hit;
    lk_idx_q <= idx;
    if (lk_chg) lk_age_q <= 2'd0;
    else if (lk_age_q != 2'd2) lk_age_q <= lk_age_q + 2'd1;
    if (rst) lk_age_q <= 2'd0;
  end
  assign lk_ok = lk_age_q == 2'd2;

  // ---------------------------------------------------------------- SR receive window
  // PSN span of the request: a READ's packet count from rd_sum_q (len + PMTU - 1,
  // registered from h_q and pmtu_m1), itself registered (sr_span_q): S_SRQ is at least
  // two cycles after S_DISPATCH (S_NEW is between them), and h_q and the context are
  // unchanged from S_DISPATCH on (asserted at the end)
  logic [23:0] sr_span, sr_span_q;
  always_comb begin
    logic [31:0] n;
    n       = rd_sum_q >> lg;
    sr_span = !is_read ? 24'd1 : (n == 0) ? 24'd1 : n[23:0];
  end
  always_ff @(posedge clk) sr_span_q <= sr_span;
  localparam int SRW = 64;
  logic              sw_init_ready, sw_req_ready, sw_rsp_valid;
  logic [QPN_W-1:0]  unused_sw_qpn;
  logic [23:0]       unused_sw_psn, sw_epsn, sw_adv;
  logic              unused_sw_user;
  logic [SRW-1:0]    sw_bmp;
  fabnic_roce_sr_pkg::sr_class_e sw_class;
  logic [CNT_W-1:0]  unused_sw_cnt [6];
  fabnic_roce_sr_window #(.NUM_QP(NUM_QP), .W(SRW), .USER_W(1), .CNT_W(CNT_W), .OUT_REG(1'b1)) u_win (
      .clk, .rst,
      .s_init_valid(st_q[I_SRI]), .s_init_ready(sw_init_ready), .s_init_qpn(qpn_q),
      .s_init_epsn(ctl_psn_q),
      .s_req_valid(st_q[I_SRQ]), .s_req_ready(sw_req_ready), .s_req_qpn(qpn_q),
      .s_req_psn(h_q.bth.psn),
      .s_req_span(sr_span_q),
      .s_req_ordered(!(is_write && !has_imm) && !is_send), .s_req_user(1'b0),
      .m_rsp_valid(sw_rsp_valid), .m_rsp_ready(st_q[I_SRW]), .m_rsp_qpn(unused_sw_qpn),
      .m_rsp_psn(unused_sw_psn), .m_rsp_user(unused_sw_user), .m_rsp_class(sw_class),
      .m_rsp_epsn(sw_epsn), .m_rsp_adv(sw_adv), .m_rsp_bitmap(sw_bmp),
      .cnt_in_order(unused_sw_cnt[0]), .cnt_out_of_order(unused_sw_cnt[1]),
      .cnt_duplicate(unused_sw_cnt[2]), .cnt_beyond(unused_sw_cnt[3]),
      .cnt_ordered_early(unused_sw_cnt[4]), .cnt_init(unused_sw_cnt[5])
  );

  // SR bookkeeping of the current packet
  fabnic_roce_sr_pkg::sr_class_e sr_cls_q;
  logic [23:0]    sr_epsn_q, sr_adv_q;
  logic [SRW-1:0] sr_bmp_q;
  logic           sr_ack_q;      // answer with SACK / ACK after the packet
  logic [5:0]     sr_d;          // offset of the packet from the expected PSN
  logic [SRW-1:0] sr_adv_mask;   // end-of-message bits passed by the advance
  // messages the in-order advance completed (placed LASTs it passed): added to r_q.msn
  // two cycles after S_SRW (masked bits in S_SRW, counted in S_NEW, added in the state
  // after it; nothing reads or writes the MSN of an SR QP in between)
  logic [SRW-1:0] eom_pass_q;
  logic [6:0]     eom_cnt_q;
  logic           mp1_q, mp2_q;
  assign sr_d = 6'(h_q.bth.psn - r_q.epsn);
  always_comb begin
    sr_adv_mask = (sw_adv >= 24'(SRW)) ? '1 : ((SRW'(1) << sw_adv[5:0]) - SRW'(1));
  end
  // population count as a tree: six-bit groups (one LUT per output bit, a truth table
  // indexed by the group) summed pairwise, not a chain of SRW one-bit adds
  function automatic logic [2:0] pc6(input logic [5:0] v);
    logic [2:0] t [64];
    for (int k = 0; k < 64; k++)
      t[k] = 3'(((k >> 0) & 1) + ((k >> 1) & 1) + ((k >> 2) & 1) + ((k >> 3) & 1)
                + ((k >> 4) & 1) + ((k >> 5) & 1));
    return t[v];
  endfunction
  function automatic logic [6:0] pc64(input logic [63:0] x);
    logic [65:0] y;
    logic [6:0]  g [11];
    y = {2'b00, x};
    for (int i = 0; i < 11; i++) g[i] = 7'(pc6(y[6*i +: 6]));
    for (int i = 0; i < 5; i++) g[i] = g[2*i] + g[2*i+1];        // 11 -> 6 (g[5] <- g[10])
    g[5] = g[10];
    for (int i = 0; i < 3; i++) g[i] = g[2*i] + g[2*i+1];        // 6 -> 3
    return (g[0] + g[1]) + g[2];
  endfunction
  always_ff @(posedge clk) begin
    eom_cnt_q <= pc64(eom_pass_q);
    mp1_q     <= st_q[I_SRW] && sw_rsp_valid && sw_class == fabnic_roce_sr_pkg::SR_NEW_IN_ORDER;
    mp2_q     <= mp1_q;
    if (rst) begin
      mp1_q <= 1'b0;
      mp2_q <= 1'b0;
    end
  end

  // picks
  logic take_rqe, take_wf, take_ctl, take_db, take_cnp, take_pkt, idle_like, fin_next, fwd_q;
  // S_FIN with nothing to do after the packet picks the next event itself
  assign fin_next  = fin_done && fp_ok_q && fin_pf_act != PF_FSM;
  assign idle_like = st_q[I_IDLE] || fin_next || fast_fin;
  // cycles that may write an input of the S_CMP stash lookup
  assign lk_chg = idle_like || st_q[I_DISPATCH] || st_q[I_SRW] || st_q[I_RFL]
                  || (st_q[I_CMP] && lk_ok);
  // (S_LOAD, the cycle after a pick, is the only reader of fwd_q)
  always_ff @(posedge clk) fwd_q <= (wr_en && rd_addr == qpn_q)
                                     || (wb_en_q && rd_addr == wb_qpn_q);
  // S_FIN -> S_DISPATCH without S_LOAD for a packet of the same QP: r_q is the state
  // written back in that cycle, and qc_q is current unless a static-context write came
  // after it was read (st_dirty_q, any QP: conservative)
  // The same from S_IDLE: r_hot_q says r_q is what was last written back for qpn_q (set
  // by a write-back, cleared by every pick, after which the FSM may change r_q).
  logic st_dirty_q, r_hot_q;
  always_ff @(posedge clk) begin
    if (st_wr_en)   st_dirty_q <= 1'b1;
    else if (rd_en) st_dirty_q <= 1'b0;
    if (rd_en)      r_hot_q <= 1'b0;
    else if (wr_en) r_hot_q <= 1'b1;
    if (rst) begin
      st_dirty_q <= 1'b1;
      r_hot_q    <= 1'b0;
    end
  end
  // (under idle_like, S_FIN and S_PLACE stand for fin_next and fast_fin)
  logic pick_any, pick_same, pick_pkt;
  resp_src_e pick_src;
  assign pick_same = pick_pkt && QPN_W'(s_hdr.bth.dest_qp) == qpn_q && !st_dirty_q
                     && !st_wr_en
                     && (((st_q[I_FIN] || st_q[I_PLACE]) && src_q == SRC_PKT)
                         || (st_q[I_IDLE] && r_hot_q));
  // The context RAMs read every cycle at the QP of the event that would be picked
  // (sel_rqe and the valids, not idle_like): S_LOAD, the cycle after a pick, sees the
  // picked QP's words.
  logic sel_rqe;
  always_comb begin
    // fetched RQEs first: installing one is short and frees the background reader
    sel_rqe  = bg_new_q && bg_st_q == BG_HAVE && !bg_stale_q;
    // then write faults: a QP whose data could not be placed stops before its next packet
    pick_pkt = !sel_rqe && !s_wf_valid && !s_ctl_valid && !s_db_valid && !s_cnp_valid
               && s_hdr_valid;
    pick_any = sel_rqe || s_wf_valid || s_ctl_valid || s_db_valid || s_cnp_valid
               || s_hdr_valid;
    pick_src = sel_rqe ? SRC_RQE : s_wf_valid ? SRC_WF : s_ctl_valid ? SRC_CTL
             : s_db_valid ? SRC_DB : s_cnp_valid ? SRC_CNP : SRC_PKT;
    take_rqe = idle_like && sel_rqe;
    take_wf  = idle_like && !sel_rqe && s_wf_valid;
    take_ctl = idle_like && !sel_rqe && !s_wf_valid && s_ctl_valid;
    take_db  = idle_like && !sel_rqe && !s_wf_valid && !s_ctl_valid && s_db_valid;
    take_cnp = idle_like && !sel_rqe && !s_wf_valid && !s_ctl_valid && !s_db_valid
               && s_cnp_valid;
    take_pkt = idle_like && !sel_rqe && !s_wf_valid && !s_ctl_valid && !s_db_valid
               && !s_cnp_valid && s_hdr_valid;
    rd_en    = take_rqe || take_wf || take_ctl || take_db || take_cnp || take_pkt;
    rd_addr  = sel_rqe ? bg_qpn_q : s_wf_valid ? s_wf_qpn : s_ctl_valid ? s_ctl_qpn
             : s_db_valid ? s_db_qpn : s_cnp_valid ? s_cnp_qpn : QPN_W'(s_hdr.bth.dest_qp);
  end
  // The packet registers take the header port in every cycle in which they are dead (no
  // state after S_IDLE, S_FIN or a fast finish reads them before the next pick), so the
  // pick itself is not their enable.
  always_ff @(posedge clk) begin
    if (st_q[I_IDLE] || st_q[I_FIN] || fast_fin) begin
      h_q    <= s_hdr;
      oc_q   <= op_class(s_hdr.bth.opcode);
      plen_q <= s_hdr_plen;
    end
  end
  assign s_ctl_ready = take_ctl;
  assign s_db_ready  = take_db;
  assign s_cnp_ready = take_cnp;
  assign s_hdr_ready = take_pkt;

  // DMA reads: RQE (32 B) or atomic operand (8 B)
  // (the FSM reads only while the background RQE reader has nothing outstanding, so
  // the in-order read data belongs to whoever is waiting)
  logic fsm_rd_valid;
  assign fsm_rd_valid = ((st_q[I_RQE_RD] && !(bg_hit_r && !side_q)) || st_q[I_ATOM_RD])
                        && !bg_busy;
  assign m_rd_valid  = fsm_rd_valid || bg_st_q == BG_RD;
  assign m_rd_addr   = (bg_st_q == BG_RD) ? bg_addr_q
                     : (st_q[I_ATOM_RD]) ? r_q.wr_haddr
                     : qc_q.rq_base + {43'd0, ((side_q ? ssn_idx : r_q.rq_ci) & rq_mask), 5'd0};
  assign m_rd_len    = (bg_st_q == BG_RD) ? (32'(bg_n_q) << 5)
                     : (st_q[I_ATOM_RD]) ? 32'd8 : 32'd32;
  assign s_rd_tready = st_q[I_RQE_WAIT] || st_q[I_ATOM_WAIT] || bg_st_q == BG_WAIT;

  // ---------------------------------------------------------------- background RQE reads
  // Prefetching is not done in the FSM's own read states (which would stall every packet
  // behind one host round trip): one read of up to RQE_BATCH consecutive posted RQEs of
  // one QP is issued and the FSM moves on. When the data is back, an SRC_RQE pass
  // installs the QP's next RQE (lkey checked then, so the MR-table epoch rule holds);
  // further entries are installed from here as SENDs use them up, without a host read.
  // Entries are tagged with their RQ index: only the QP's rq_ci entry is ever used, and
  // a QP reset or context write marks the batch stale. A newer prefetch of another QP
  // replaces a batch that is back; one still in flight makes the other QP prefetch in
  // the FSM as before.
  assign bg_busy = bg_st_q == BG_RD || bg_st_q == BG_WAIT;
  assign bg_off  = r_q.rq_ci - bg_base_q;
  assign bg_hit  = bg_st_q == BG_HAVE && !bg_stale_q && bg_qpn_q == qpn_q
                   && bg_off >= 16'(bg_lo_q) && bg_off < 16'(bg_n_q);
  assign bg_pend = bg_busy && !bg_stale_q && bg_qpn_q == qpn_q && bg_off < 16'(bg_n_q);
  assign bg_ent  = bg_e_q[BGI'(bg_off)];
  assign bg_pop  = st_q[I_RQE_RD] && !side_q && bg_hit_r;

  // S_FIN's inputs, registered in the cycle that enters S_FIN and held while it lasts:
  // r_q (r_cm at a commit), qpn_q, cmp_map_q and the batch's QP, base, size and low
  // index do not change from that edge until S_FIN is left (asserted at the end).
  assign fr     = commit_now ? r_cm : r_q;
  logic [15:0] fo0, fo1;   // fr_off without and with the commit's rq_ci + 1
  assign fo0 = r_q.rq_ci - bg_base_q;
  assign fo1 = r_q.rq_ci + 16'd1 - bg_base_q;
  always_ff @(posedge clk) begin
    if (!st_q[I_FIN]) begin
      fp_ok_q <= !fr.err && cmp_map_q == '0;
      fp_cmp_q <= cmp_map_q != '0;
      // (the same as from fr, with the commit's two outcomes computed side by side:
      // rq_ci + 1 when it completes a receive, ERR when its NAK is an error NAK)
      fp_pt_q <= RQE_PREFETCH && qps_ok && src_q == SRC_PKT && cmp_map_q == '0 && !r_q.err
                 && !(commit_now && cm_err)
                 && ((commit_now && cm_cqe) ? pt_ne1 : (!r_q.rqe_valid && pt_ne0));
      fp_qm_q <= bg_qpn_q == qpn_q;
      // (fr.rq_ci is r_q.rq_ci, + 1 when the commit completes a receive: both compared)
      fp_lt_q <= (commit_now && cm_cqe) ? fo1 < 16'(bg_n_q) : fo0 < 16'(bg_n_q);
      fp_ge_q <= (commit_now && cm_cqe) ? fo1 >= 16'(bg_lo_q) : fo0 >= 16'(bg_lo_q);
    end
  end
  assign pt_ne0 = r_q.rq_ci != r_q.rq_pi;
  assign pt_ne1 = r_q.rq_pi - r_q.rq_ci != 16'd1;
  assign fin_bg_pend = bg_busy && !bg_stale_q && fp_qm_q && fp_lt_q;
  assign fin_bg_hit  = bg_st_q == BG_HAVE && !bg_stale_q && fp_qm_q && fp_ge_q && fp_lt_q;

  // prefetch points (RQ doorbell, a packet that used the RQE up, stashed completions
  // done): what to do for the QP's next RQE
  // S_PF decides from compares registered in the cycle before it (S_DISPATCH of a
  // doorbell or of a fetched batch, S_CMP with no completion left), and S_RQE_RD from
  // those of the cycle before it: in that cycle r_q's RQ indices, qpn_q and the batch's
  // QP, base, size and low index do not change (the doorbell's new producer index is
  // pf_pi; asserted at the end). The batch's state (bg_st_q, bg_stale_q) is read live.
  // batch size: min(RQE_BATCH, posted, room to the ring's end), the three compares side
  // by side
  function automatic logic [BGW-1:0] bmin(input logic [16:0] room, input logic [16:0] pst);
    if (room < 17'(RQE_BATCH) && room < pst) return BGW'(room);
    else if (pst < 17'(RQE_BATCH))           return BGW'(pst);
    else                                        return BGW'(RQE_BATCH);
  endfunction
  logic pf_ne_q, bgo_lt_q, bgo_ge_q, bgq_q;
  logic [BGW-1:0] pf_cnt_q, fp_cnt;   // (from the registered room / posted)
  logic [16:0]    pf_room_q, pf_posted_q;
  always_comb begin
    pf_pi     = (st_q[I_DISPATCH] && src_q == SRC_DB) ? db_pi_q : r_q.rq_pi;
    pf_room   = rq_size - 17'(r_q.rq_ci & rq_mask);
    pf_posted = 17'(pf_pi - r_q.rq_ci);
    pf_cnt    = BGW'(RQE_BATCH);
    if (pf_posted < 17'(pf_cnt)) pf_cnt = BGW'(pf_posted);
    if (pf_room < 17'(pf_cnt))   pf_cnt = BGW'(pf_room);
  end
  always_ff @(posedge clk) begin
    pf_ne_q  <= r_q.rq_ci != pf_pi;
    bgo_lt_q <= bg_off < 16'(bg_n_q);
    bgo_ge_q <= bg_off >= 16'(bg_lo_q);
    bgq_q    <= bg_qpn_q == qpn_q;
    pf_room_q   <= pf_room;
    pf_posted_q <= pf_posted;
  end
  assign pf_cnt_q = bmin(pf_room_q, pf_posted_q);
  assign bg_hit_r  = bg_st_q == BG_HAVE && !bg_stale_q && bgq_q && bgo_ge_q && bgo_lt_q;
  assign bg_pend_r = bg_busy && !bg_stale_q && bgq_q && bgo_lt_q;
  always_comb begin
    // (a fetched batch's pass installs or does nothing: it never launches a read)
    pf_point  = RQE_PREFETCH && !r_q.rqe_valid && pf_ne_q && !r_q.err && qps_ok
                && st_q[I_PF];
    if (!pf_point || bg_pend_r)              pf_act = PF_NONE;  // on its way: installed on arrival
    else if (bg_hit_r)                       pf_act = PF_FSM;   // here: S_RQE_RD takes it
    else if (!bg_busy && src_q != SRC_RQE)   pf_act = PF_LAUNCH;
    else if (!bg_busy)                       pf_act = PF_NONE;
    else                                     pf_act = PF_FSM;   // reader busy for another QP
    // the same in S_FIN, at the end of a packet that may have used the RQE up
    if (!(fp_pt_q && fin_done) || fin_bg_pend) fin_pf_act = PF_NONE;
    else if (fin_bg_hit)                      fin_pf_act = PF_FSM;
    else if (!bg_busy)                        fin_pf_act = PF_LAUNCH;
    else                                      fin_pf_act = PF_FSM;
  end
  assign bg_launch = (st_q[I_FIN]) ? fin_pf_act == PF_LAUNCH : pf_act == PF_LAUNCH;
  // S_FIN's batch size, from the committed state (rq_ci + 1 when the commit completes a
  // receive: both computed), registered on entering S_FIN like fp_*_q
  // (the room to the ring's end and the posted count, registered on entering S_FIN for
  // rq_ci and rq_ci + 1 side by side with the commit's choice; the minimum in S_FIN)
  logic [16:0] fp_room0_q, fp_room1_q, fp_posted0_q, fp_posted1_q;
  logic        fp_sel1_q;     // the commit completed a receive: rq_ci + 1
  logic [15:0] fp_ci1;
  assign fp_ci1 = r_q.rq_ci + 16'd1;
  always_ff @(posedge clk) begin
    if (!st_q[I_FIN]) begin
      fp_room0_q   <= rq_size - 17'(r_q.rq_ci & rq_mask);
      fp_room1_q   <= rq_size - 17'(fp_ci1 & rq_mask);
      fp_posted0_q <= 17'(r_q.rq_pi - r_q.rq_ci);
      fp_posted1_q <= 17'(r_q.rq_pi - fp_ci1);
      fp_sel1_q    <= commit_now && cm_cqe;
    end
  end
  assign fp_cnt = fp_sel1_q ? bmin(fp_room1_q, fp_posted1_q) : bmin(fp_room0_q, fp_posted0_q);
  // next batch after the one being used up (posted entries behind rq_ci + 1), in two
  // register stages from r_q and the context: the pop that uses the batch up moves the
  // reader to BG_NX1, BG_NX2 launches the read from nx_*_q. r_q's RQ indices and the
  // context do not change in the pop cycle and the one after it (S_RQE_RD with a pop,
  // then S_RQE_CHK), so nx_*_q describe the state of the pop (asserted at the end).
  logic [16:0] nx_room, nx_posted, nx_room_q, nx_posted_q;
  logic        nx_none_q;
  logic [15:0] nx_base_q;
  logic [63:0] nx_addr_q;
  logic [BGW-1:0] nx_cnt, nx_cnt_q;
  assign nx_room   = rq_size - 17'((r_q.rq_ci + 16'd1) & rq_mask);
  assign nx_posted = 17'(r_q.rq_pi - r_q.rq_ci - 16'd1);
  always_ff @(posedge clk) begin
    // stage 1: from r_q
    nx_room_q   <= nx_room;
    nx_posted_q <= nx_posted;
    nx_none_q   <= !RQE_PREFETCH || r_q.rq_ci == r_q.rq_pi;
    nx_base_q   <= r_q.rq_ci + 16'd1;
    nx_addr_q   <= qc_q.rq_base + {43'd0, ((r_q.rq_ci + 16'd1) & rq_mask), 5'd0};
    // stage 2: the count
    nx_cnt_q <= nx_none_q ? '0 : bmin(nx_room_q, nx_posted_q);
  end
  always_comb begin
    nx_cnt = BGW'(RQE_BATCH);
    if (nx_posted < 17'(nx_cnt)) nx_cnt = BGW'(nx_posted);
    if (nx_room < 17'(nx_cnt))   nx_cnt = BGW'(nx_room);
    if (!RQE_PREFETCH || r_q.rq_ci == r_q.rq_pi) nx_cnt = '0;
  end

  always_ff @(posedge clk) begin
    if (bg_launch) begin
      bg_st_q    <= BG_RD;
      bg_qpn_q   <= qpn_q;
      bg_base_q  <= r_q.rq_ci;
      bg_n_q     <= (st_q[I_FIN]) ? fp_cnt : pf_cnt_q;
      bg_lo_q    <= '0;
      bg_rx_q    <= '0;
      bg_stale_q <= 1'b0;
      bg_new_q   <= 1'b0;
      bg_addr_q  <= qc_q.rq_base + {43'd0, (r_q.rq_ci & rq_mask), 5'd0};
    end else begin
      case (bg_st_q)
        BG_RD: if (m_rd_ready) bg_st_q <= BG_WAIT;
        BG_WAIT: if (s_rd_tvalid) begin
          for (int k = 0; k < 2; k++)
            if (32'(bg_rx_q) + k < RQE_BATCH)
              bg_e_q[BGI'(32'(bg_rx_q) + k)] <= rqe_decode(s_rd_tdata[256*k +: 256]);
          bg_rx_q <= bg_rx_q + (BGW+1)'(2);
          // a batch whose read returned an AXI error is discarded: the FSM reads the
          // RQE itself when a packet needs it (and then sees the error)
          if (s_rd_tlast) begin
            bg_st_q  <= s_rd_tuser ? BG_IDLE : BG_HAVE;
            bg_new_q <= !s_rd_tuser;
          end
        end
        BG_HAVE: if (bg_pop) begin
          bg_lo_q <= BGW'(bg_off + 16'd1);
          // the last entry of the batch is being installed: read the next batch two
          // cycles on (nx_*_q), while the QP still holds one (double buffering via r_q)
          if (bg_off + 16'd1 >= 16'(bg_n_q)) bg_st_q <= BG_NX1;
        end
        BG_NX1: bg_st_q <= BG_NX2;
        BG_NX2: begin
          bg_st_q <= BG_IDLE;
          if (nx_cnt_q != '0) begin
            bg_st_q   <= BG_RD;
            bg_base_q <= nx_base_q;
            bg_n_q    <= nx_cnt_q;
            bg_lo_q   <= '0;
            bg_rx_q   <= '0;
            bg_new_q  <= 1'b0;
            bg_addr_q <= nx_addr_q;
          end
        end
        default: ;
      endcase
      if (take_rqe || bg_stale_q) bg_new_q <= 1'b0;
    end
    // (conservative: a context write of either QP marks the batch stale, launched or not;
    // a stale batch is only not used)
    if ((st_wr_en && (st_wr_addr == qpn_q || st_wr_addr == bg_qpn_q))
        || (st_q[I_DISPATCH] && src_q == SRC_CTL && !ctl_op_q && qpn_q == bg_qpn_q))
      bg_stale_q <= 1'b1;
    if (rst) begin
      bg_st_q  <= BG_IDLE;
      bg_new_q <= 1'b0;
      bg_stale_q <= 1'b0;
    end
  end

  // MR checks: RQE buffer (local write) or the remote access of the request
  always_comb begin
    if (st_q[I_RQE_CHK]) begin
      chk_key = rqe_lkey_q;
      chk_va  = u_haddr;
      chk_len = u_len;
      chk_acc = 4'(1 << MR_ACC_LOCAL_WRITE);
    end else if (is_atomic) begin
      chk_key = h_q.atomic_eth.rkey;
      chk_va  = h_q.atomic_eth.va;
      chk_len = 32'd8;
      chk_acc = 4'(1 << MR_ACC_REMOTE_ATOMIC);
    end else begin
      chk_key = h_q.reth.rkey;
      chk_va  = h_q.reth.va;
      chk_len = (qc_q.sr && is_write) ? 32'(plen_q) : h_q.reth.dma_len;  // SR: this packet
      chk_acc = is_read ? 4'(1 << MR_ACC_REMOTE_READ) : 4'(1 << MR_ACC_REMOTE_WRITE);
    end
  end
  // The remote-access check of an in-order request (go-back-N QP) is issued in
  // S_DISPATCH, before S_NEW has judged the opcode sequence: its result (2 cycles) is
  // then ready when S_NEW hands over to S_MR_CHKW. When S_NEW goes elsewhere the
  // result goes unused (the checker's output is never back-pressured, and no other
  // check can be waiting for a result in that cycle: S_RQE_CHKW is at least 3 states on).
  logic spec_fire, spec_q;
  // a WRITE packet's length against the message (remaining length: the RETH's in
  // S_MR_CHKW, which takes it, the cursor's later) and the PMTU
  logic [31:0] wr_rem_now;
  logic        wr_len_bad;
  assign wr_rem_now = (st_q[I_MR_CHKW] || st_q[I_DISPATCH]) ? h_q.reth.dma_len
                                                                  : r_q.wr_rem;
  assign wr_len_bad = (!qc_q.sr && (32'(plen_q) > wr_rem_now
                                    || (is_last && 32'(plen_q) != wr_rem_now)))
                      || (qc_q.sr && 32'(plen_q) > pmtu_b)
                      || (!is_last && 32'(plen_q) != pmtu_b);
  // registered one cycle ahead for S_MR_CHKW (the RETH's length) and S_EXEC (the
  // cursor's): neither state's previous cycle writes plen_q, h_q, r_q.wr_rem or the context
  function automatic logic wlb_f(input logic [31:0] rem, input logic [15:0] pl,
                                 input logic sr, input logic last, input logic [31:0] pm);
    return (!sr && (32'(pl) > rem || (last && 32'(pl) != rem)))
           || (sr && 32'(pl) > pm) || (!last && 32'(pl) != pm);
  endfunction
  logic wlb_h_q, wlb_r_q, wr_len_bad_q;
  always_ff @(posedge clk) begin
    wlb_h_q <= wlb_f(h_q.reth.dma_len, plen_q, qc_q.sr, is_last, pmtu_b);
    wlb_r_q <= wlb_f(r_q.wr_rem, plen_q, qc_q.sr, is_last, pmtu_b);
  end
  assign wr_len_bad_q = (st_q[I_MR_CHKW]) ? wlb_h_q : wlb_r_q;
  assign spec_fire = st_q[I_DISPATCH] && src_q == SRC_PKT && !qc_q.sr && dq_eq
                     && qps_ok && !r_q.err
                     && (is_read || is_atomic || (is_write && is_first));
  // rkey translation cache (fabnic_roce_xlate_cache, one entry): the region of the last passed remote-write check
  // (key, PD, VA range, access bits, host offset), as in the requester's lkey cache:
  // emptied by any MR-table write, not filled from a check whose table read may predate
  // one. An in-order go-back-N WRITE FIRST/ONLY (no immediate) that passes S_NEW's
  // checks and whose RETH range lies inside it is decided in S_DISPATCH itself
  // (fast_disp): S_MR_CHKW's bookkeeping, its write descriptor out, then S_PLACE.
  logic [63:0] rc_off;
  logic        rc_hit, fast_disp;
  // The fast path's lookup and length checks are made one cycle ahead of S_DISPATCH,
  // which always follows either S_LOAD (h_q and the context word being read) or a pick
  // of a packet of the same QP (the header port and the current context): fd_hit_q,
  // fd_lok_q. The cache cannot fill in either cycle; an MR-table write in the
  // S_DISPATCH cycle still cancels the hit (!mr_wr_valid).
  roce_hdr_t   fl_h;
  logic [23:0] fl_pd;
  logic        fd_hit_q, fd_lok_q;
  resp_opc_t        fl_oc;
  assign fl_oc = op_class(s_hdr.bth.opcode);
  function automatic logic lok_f(input logic [31:0] len, input logic [15:0] pl,
                                 input logic last, input logic [31:0] pm);
    return !(32'(pl) > len || (last && 32'(pl) != len) || (!last && 32'(pl) != pm))
           && pl != 0;
  endfunction
  always_comb begin
    if (st_q[I_LOAD]) begin
      fl_h    = h_q;
      fl_pd   = st_rd.pd;
    end else begin
      fl_h    = s_hdr;
      fl_pd   = qc_q.pd;
    end
  end
  fabnic_roce_xlate_cache u_rkc (
      .clk, .rst, .mr_wr_valid,
      .fill(st_q[I_MR_CHKW] && chk_res_valid && chk_ok && is_write
            && h_q.reth.dma_len != 0),
      .fill_key(h_q.reth.rkey), .fill_pd(qc_q.pd), .fill_acc(chk_racc), .fill_lo(chk_lo),
      .fill_hi(chk_hi), .fill_off(chk_off),
      .key(fl_h.reth.rkey), .pd(fl_pd), .va(fl_h.reth.va), .len(fl_h.reth.dma_len),
      .need(4'(1 << MR_ACC_REMOTE_WRITE)), .hit(rc_hit), .off(rc_off)
  );
  always_ff @(posedge clk) begin
    fd_hit_q <= rc_hit;
    // (both sources' checks side by side, the state picks one)
    fd_lok_q <= st_q[I_LOAD] ? lok_f(h_q.reth.dma_len, plen_q, oc_q.last,
                                     32'd1 << pmtu_log(st_rd.pmtu))
                             : lok_f(s_hdr.reth.dma_len, s_hdr_plen, fl_oc.last, pmtu_b);
  end
  assign fast_disp = st_q[I_DISPATCH] && src_q == SRC_PKT && !qc_q.sr && dq_eq
                     && qps_ok && !r_q.err
                     && is_write && is_first && !needs_rqe && !r_q.in_write
                     && qc_q.access[MR_ACC_REMOTE_WRITE] && fd_hit_q && !mr_wr_valid
                     && fd_lok_q;
  assign chk_valid = st_q[I_RQE_CHK] || st_q[I_MR_CHK] || (spec_fire && !fast_disp);

  // placement
  logic place_send;
  assign place_send = is_send;
  // The write descriptor of a packet that passes its checks goes out in the deciding
  // state itself (S_MR_CHKW: the translated address straight from the checker; S_EXEC),
  // S_PLACE_D only when the arbiter did not take it in that cycle.
  logic desc_chkw, desc_exec, send_bad;
  assign send_bad  = !u_ok || send_lbad || (qc_q.sr && soff_bad_q);
  assign desc_chkw = st_q[I_MR_CHKW] && chk_res_valid && chk_ok && is_write && !wr_len_bad_q
                     && plen_q != 0;
  assign desc_exec = st_q[I_EXEC] && plen_q != 0 && (is_send ? !send_bad : !wr_len_bad_q);
  assign m_wr_valid = st_q[I_PLACE_D] || st_q[I_ATOM_WD] || desc_chkw || desc_exec
                      || fast_disp;
  assign m_wr_addr  = (st_q[I_ATOM_WD]) ? r_q.wr_haddr
                    : (st_q[I_MR_CHKW]) ? chk_addr
                    : (st_q[I_DISPATCH]) ? h_q.reth.va + rc_off
                    : place_send ? u_haddr + 64'(send_off) : r_q.wr_haddr;
  assign m_wr_len   = (st_q[I_ATOM_WD]) ? 32'd8 : 32'(plen_q);
  assign m_wr_qpn   = qpn_q;
  assign m_wr_psn   = h_q.bth.psn;
  assign s_wf_ready = take_wf;
  always_comb begin
    if (st_q[I_ATOM_W]) begin
      m_wr_tdata  = DATA_W'(atom_new_q);
      m_wr_tkeep  = KEEP_W'(8'hFF);
      m_wr_tvalid = 1'b1;
      m_wr_tlast  = 1'b1;
    end else begin
      m_wr_tdata  = s_axis_tdata;
      m_wr_tkeep  = s_axis_tkeep;
      m_wr_tvalid = st_q[I_PLACE] && s_axis_tvalid;
      m_wr_tlast  = s_axis_tlast;
    end
  end
  assign s_axis_tready = (st_q[I_PLACE]) ? m_wr_tready : st_q[I_DRAIN];
  assign commit_now = (st_q[I_DRAIN] && (!drain_q || (s_axis_tvalid && s_axis_tlast)))
                      || (st_q[I_PLACE] && s_axis_tvalid && m_wr_tready && s_axis_tlast);
  // the state after the commit (written into r_q in that cycle; S_FIN writes it back)
  always_comb begin
    r_cm   = r_q;
    cm_cqe = accept_q && is_last && needs_rqe
             && !(qc_q.sr && sr_cls_q == fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER);
    // a request NAKed invalid, access or operational error moves the receive side
    // to ERR (IBA class C/J, as rxe): later requests dropped, receives flushed
    cm_err = ack_q == A_NAK && (syn_q == SYN_NAK_INV || syn_q == SYN_NAK_ACCESS
                                || syn_q == SYN_NAK_OP);
    if (cm_err) r_cm.err = 1'b1;
    if (accept_q) begin
      if (!qc_q.sr) r_cm.epsn = r_q.epsn + 24'd1;
      if (is_send && !qc_q.sr) begin
        r_cm.msg_off = r_q.msg_off + 32'(plen_q);
        r_cm.in_send = !is_last;
      end else if (!is_send && !qc_q.sr) begin
        r_cm.wr_haddr = r_q.wr_haddr + 64'(plen_q);
        r_cm.wr_rem   = r_q.wr_rem - 32'(plen_q);
        r_cm.in_write = !is_last;
      end
      if (is_last && !qc_q.sr) r_cm.msn = r_q.msn + 24'd1;
      // (an SR SEND LAST placed out of order completes from the stash later)
      if (sr_send && !side_q) r_cm.sr_part = 1'b1;
      if (cm_cqe) begin
        r_cm.rqe_valid = 1'b0;
        r_cm.rq_ci     = r_q.rq_ci + 16'd1;
        r_cm.sr_part   = 1'b0;
      end
    end
  end
  // Fast finish: a placed go-back-N WRITE packet that asks for no ACK and completes no
  // receive has nothing for S_FIN to send, and no RQE prefetch is due: the commit
  // cycle itself writes the state back (r_cm) and picks the next event.
  // Its packet/QP terms are registered one cycle ahead (ff_pre_q): none of them changes
  // in the cycle that enters S_PLACE or while it lasts (asserted at the end).
  logic ff_pre, ff_pre_q;
  assign ff_pre = !qc_q.sr && is_write && !needs_rqe && !h_q.bth.ack_req && ack_q == A_NONE
                  && !cqe_pend_q && cmp_map_q == '0 && (r_q.rqe_valid || r_q.rq_ci == r_q.rq_pi);
  always_ff @(posedge clk) ff_pre_q <= ff_pre;
  assign fast_fin = commit_now && st_q[I_PLACE] && accept_q && ff_pre_q;

  // ACK / NAK / atomic ACK / CNP / SACK job and READ response job (fabnic_roce_resp_ack).
  // ACK jobs and CQEs leave through bypass hold registers (fabnic_roce_resp_out): an
  // offer is made only while the register is empty (job_room, cqe_room: flops) and is
  // always taken, so the consumers' readies reach no decision of the FSM.
  logic job_offer, job_room, cqe_offer, cqe_room, rjob_ready;
  assign job_offer = st_q[I_FIN] && ack_q != A_NONE && job_room;
  fabnic_roce_resp_ack #(.QPN_W(QPN_W)) u_ack (
      .clk, .rst,
      .qpn(qpn_q), .qc(qc_q), .kind(ack_q), .syndrome(syn_q), .psn(ack_psn_q), .msn(r_q.msn),
      .atom_orig(atom_orig_q), .sack_epsn(sr_epsn_q), .sack_bmp(sr_bmp_q),
      .rd_psn(h_q.bth.psn), .rd_haddr(rd_haddr_q), .rd_len(h_q.reth.dma_len), .rd_lg(lg),
      .s_job_valid(job_offer), .s_job_room(job_room),
      .s_rjob_valid(st_q[I_RJOB]), .s_rjob_ready(rjob_ready),
      .m_job, .m_job_valid, .m_job_ready,
      .m_rjob, .m_rjob_len, .m_rjob_lg, .m_rjob_valid, .m_rjob_ready
  );

  assign cqe_offer = ((st_q[I_FIN] && cqe_pend_q) || st_q[I_CMPQ] || st_q[I_RFLQ])
                     && cqe_room;
  fabnic_roce_resp_out #(.W($bits(cqe_req_t))) u_cqe_out (
      .clk, .rst, .s_valid(cqe_offer), .s_data(cqe_q), .s_room(cqe_room),
      .m_valid(m_cqe_valid), .m_data(m_cqe), .m_ready(m_cqe_ready)
  );
  // S_FIN: the CQE and the ACK are offered in parallel; the state is written back in the
  // cycle both are offered
  assign fin_done = st_q[I_FIN] && (!cqe_pend_q || cqe_room)
                    && (ack_q == A_NONE || job_room);

  assign wr_en = st_q[I_WB] || fin_done || fast_fin;

  assign pd_diff = psn_diff(h_q.bth.psn, r_q.epsn);
  assign pd_eq   = h_q.bth.psn == r_q.epsn;
  // the same, registered: S_RJOB and S_SCHK come after S_DISPATCH with h_q and the
  // expected PSN unchanged since (asserted at the end)
  always_ff @(posedge clk) pd0_q <= pd_eq;
  // S_DISPATCH's PSN and RQ checks, registered one cycle ahead (like fd_hit_q): S_DISPATCH
  // follows either S_LOAD (header h_q; state read from the RAM, or r_q when forwarded) or
  // a same-QP pick (header port; state r_q, or after a fast finish the committed state,
  // which differs from r_q only in the expected PSN, + 1, for the fields read here).
  // Asserted equal to the expressions they replace at the end of the module.
  // Each source's flags are computed side by side from its own registers (one carry
  // chain each) and the state picks one: S_LOAD (RAM word, or r_q when forwarded), a
  // pick from S_PLACE (fast finish: psn - (epsn + 1) = psn + ~epsn), any other pick.
  // The MR-table epoch compares (prefetched RQE, side RQE) see mr_epoch_q of the cycle
  // before: an MR write in that cycle (mrw_q) counts as a change (conservative: the RQE
  // is fetched and checked again).
  typedef struct packed { logic eq, pos, neg, w64, sknz, skge, arep, epne, oqh, emp; } dflags_t;
  function automatic dflags_t dflags(input logic [23:0] d, input logic [23:0] psn,
                                     input logic [15:0] ssn, input logic [15:0] ci,
                                     input logic [15:0] pi, input logic av,
                                     input logic [23:0] apsn, input logic [15:0] rep,
                                     input logic oqh_r);
    dflags_t f;
    f.eq   = d == '0;
    f.pos  = !d[23] && d != '0;
    f.neg  = d[23];
    f.w64  = d[23:6] == '0;
    f.sknz = ssn != ci;
    f.skge = 16'(ssn - ci) >= 16'(pi - ci);
    f.arep = av && apsn == psn;
    f.epne = rep != mr_epoch_q;
    f.oqh  = oqh_r && oq_idx == ssn;
    f.emp  = ci == pi;
    return f;
  endfunction
  dflags_t dk_l, dk_f, dk_p0, dk_p1, dk_sel;
  logic    oqh_r;   // the side RQE is valid, of qpn_q and of the current MR epoch
  logic    mrw_q;   // an MR-table write in the cycle before
  logic    pdn_q;   // pd_diff < 0 (S_MR_CHKW, S_SRW: epsn and h_q unchanged the cycle before)
  logic    arep_q;  // the atomic replay match of r_q (S_SRW: unchanged the cycle before)
  assign oqh_r = oq_valid && oq_qpn == qpn_q && oq_epoch == mr_epoch_q;
  always_ff @(posedge clk) begin
    mrw_q  <= mr_wr_valid;
    pdn_q  <= pd_diff < 0;
    arep_q <= r_q.atom_valid && r_q.atom_psn == h_q.bth.psn;
  end
  always_comb begin
    dk_l  = dflags(h_q.bth.psn - rs_rd.epsn, h_q.bth.psn, h_q.reth.rkey[15:0],
                   rs_rd.rq_ci, rs_rd.rq_pi, rs_rd.atom_valid, rs_rd.atom_psn,
                   rs_rd.rqe_epoch, oqh_r);
    dk_f  = dflags(h_q.bth.psn - r_q.epsn, h_q.bth.psn, h_q.reth.rkey[15:0],
                   r_q.rq_ci, r_q.rq_pi, r_q.atom_valid, r_q.atom_psn, r_q.rqe_epoch, oqh_r);
    dk_p0 = dflags(s_hdr.bth.psn - r_q.epsn, s_hdr.bth.psn, s_hdr.reth.rkey[15:0],
                   r_q.rq_ci, r_q.rq_pi, r_q.atom_valid, r_q.atom_psn, r_q.rqe_epoch, oqh_r);
    dk_p1 = dflags(s_hdr.bth.psn + ~r_q.epsn, s_hdr.bth.psn, s_hdr.reth.rkey[15:0],
                   r_q.rq_ci, r_q.rq_pi, r_q.atom_valid, r_q.atom_psn, r_q.rqe_epoch, oqh_r);
    dk_sel = (st_q[I_LOAD]) ? (fwd_q ? dk_f : dk_l) : (st_q[I_PLACE]) ? dk_p1 : dk_p0;
  end
  always_ff @(posedge clk) begin
    dq_eq   <= dk_sel.eq;
    dq_pos  <= dk_sel.pos;
    dq_neg  <= dk_sel.neg;
    dq_w64  <= dk_sel.w64;
    dq_sknz <= dk_sel.sknz;
    dq_skge <= dk_sel.skge;
    dq_arep <= dk_sel.arep;
    dq_epne <= dk_sel.epne;
    dq_oqh  <= dk_sel.oqh;
    dq_emp  <= dk_sel.emp;
  end

  // S_NEW's decision, made one cycle ahead (decide in one stage, act in the next):
  // computed every cycle from the packet, the context and r_q, and read in S_NEW, whose
  // previous cycle (S_DISPATCH, S_SRW, S_RQE_DONE) writes none of its inputs. The
  // MR-epoch term sees the epoch of the cycle before S_NEW and counts an MR write in
  // that cycle as a change (conservative: the RQE is fetched and checked again).
  resp_nw_e nw_d, nw_q;
  always_comb begin
    if ((is_send && !qc_q.sr && (is_first == r_q.in_send))
        || (is_write && !qc_q.sr && (is_first == r_q.in_write))
        || ((is_read || is_atomic) && (r_q.in_send || r_q.in_write)))
      nw_d = NW_SEQ;
    else if (needs_rqe && !sr_send && r_q.rqe_valid && r_q.rqe_pf
             && (r_q.rqe_epoch != mr_epoch_q || mr_wr_valid))
      nw_d = NW_REFETCH;
    else if (needs_rqe && !sr_send && !r_q.rqe_valid)
      nw_d = (r_q.rq_ci == r_q.rq_pi) ? NW_RNR : NW_RQE;
    else if (is_read || is_atomic || (is_write && (is_first || qc_q.sr))) begin
      if ((is_read && !qc_q.access[MR_ACC_REMOTE_READ])
          || (is_atomic && !qc_q.access[MR_ACC_REMOTE_ATOMIC])
          || (is_write && !qc_q.access[MR_ACC_REMOTE_WRITE]))
        nw_d = NW_ACC;
      else if (is_atomic && h_q.atomic_eth.va[2:0] != 3'd0)
        nw_d = NW_ALIGN;
      else
        nw_d = NW_MR;
    end else
      nw_d = NW_EXEC;
  end
  always_ff @(posedge clk) nw_q <= nw_d;

  // S_DISPATCH's decision for a request packet (decide in S_DISPATCH, act in S_NEW):
  // from the registered dq_* flags, the opcode classes, the context and r_q. S_DISPATCH
  // itself acts only on the fast path (fast_disp) and otherwise goes to S_NEW, which acts
  // on dp_q; S_DISPATCH writes none of the decision's inputs (asserted at the end).
  typedef struct packed {
    logic qps_ok, err, req, sr, send, last, rqe, read, atomic, rqe_valid, rqe_pf, nak_sent,
          st_free, mrw;
  } dpin_t;
  function automatic resp_dp_e dp_f(input dpin_t i, input dflags_t f);
    resp_dp_e d;
    if (!i.qps_ok || i.err || !i.req)
      d = i.req ? DP_DROP_QPS : DP_DROP_INV;
    else if (i.sr && i.send && f.w64) begin
      // SR SEND inside the window: its receive WQE first (SSN), then the window
      if (f.eq && f.sknz)
        d = DP_SR_BADSSN;                 // in order but not the next RQE: a bad SSN
      else if (f.skge)
        d = f.eq ? DP_RNR : DP_SR_DROP;   // not posted yet: RNR in order, else comes back
      else if (!f.eq && i.last && !i.st_free)
        d = DP_SR_DROP;                   // no stash entry: in order later
      else if (f.sknz ? (f.oqh && !i.mrw) : (i.rqe_valid && !(i.rqe_pf && (f.epne || i.mrw))))
        d = DP_SR_SCHK;
      else
        d = DP_SR_RQE;
    end else if (i.sr)
      // RNR before the window sees the packet: it stays unreceived
      d = (f.eq && i.rqe && !i.send && !i.rqe_valid && f.emp) ? DP_RNR : DP_SRQ;
    else if (f.pos)
      d = i.nak_sent ? DP_GAP_DROP : DP_GAP_NAK;
    else if (f.neg)
      d = i.read ? DP_DUP_READ : (i.atomic && f.arep) ? DP_DUP_ATOM : DP_DUP_ACK;
    else
      d = DP_NEW;
    return d;
  endfunction
  dpin_t dp_in;
  resp_dp_e   dp_d, dp_q;
  logic  dp_side_q;   // the SR SEND's RQE is the side one (dq_sknz of S_DISPATCH)
  assign dp_in = '{qps_ok: qps_ok, err: r_q.err, req: is_req, sr: qc_q.sr, send: is_send,
                   last: is_last, rqe: needs_rqe, read: is_read, atomic: is_atomic,
                   rqe_valid: r_q.rqe_valid, rqe_pf: r_q.rqe_pf, nak_sent: r_q.nak_sent,
                   st_free: st_free_q, mrw: mrw_q};
  assign dp_d  = dp_f(dp_in, '{eq: dq_eq, pos: dq_pos, neg: dq_neg, w64: dq_w64,
                               sknz: dq_sknz, skge: dq_skge, arep: dq_arep, epne: dq_epne,
                               oqh: dq_oqh, emp: dq_emp});
  always_ff @(posedge clk) begin
    dp_q      <= (st_q[I_DISPATCH] && src_q == SRC_PKT) ? dp_d : DP_NONE;
    dp_side_q <= dq_sknz;
    if (rst) dp_q <= DP_NONE;
  end
  // the RNR NAK's syndrome (RNR timer code 1)
  logic [7:0] rnr_syn;
  assign rnr_syn = SYN_RNR | 8'(qc_q.min_rnr_timer);   // the QP's min_rnr_timer code

  // receive CQE template from the loaded RQE
  function automatic cqe_req_t recv_cqe(input logic [63:0] wrid, input logic [15:0] rcq,
                                        input logic [7:0] status, input logic [7:0] opc,
                                        input logic [31:0] blen, input logic [31:0] wire_imm,
                                        input logic imm, input logic [QPN_W-1:0] qpn);
    cqe_req_t c;
    c = '0;
    c.cqn       = rcq;
    c.wr_id     = wrid;
    c.byte_len  = blen;
    c.imm       = imm ? bswap32(wire_imm) : 32'd0;
    c.imm_valid = imm;
    c.qpn       = 24'(qpn);
    c.opcode    = opc;
    c.status    = status;
    return c;
  endfunction

  // ---------------------------------------------------------------- FSM next state
  // Two processes: this block computes the next state (default: stay), the flop below
  // takes it; each state's register updates are in the always_ff after it, under the
  // same conditions. (The states are described in fabnic_roce_resp_pkg.)
  always_comb begin
    st_d = st_q;
    unique case (1'b1)
      st_q[I_IDLE]: ;
      st_q[I_LOAD]: st_d = S_DISPATCH;
      st_q[I_DISPATCH]: begin
        unique case (src_q)
          SRC_CTL: st_d = ctl_op_q ? S_IDLE : S_SRI;   // init: the QP's SR window too
          // a doorbell: receives posted in ERR complete flushed; else the prefetch point
          SRC_DB:  st_d = r_q.err ? S_RFL : S_PF;
          // the background read is back: S_PF installs the QP's next RQE if still wanted
          SRC_RQE: st_d = S_PF;
          SRC_WF:  st_d = (qps_ok && !r_q.err) ? S_WFE : S_IDLE;
          SRC_CNP: st_d = qps_ok ? S_FIN : S_IDLE;
          default: st_d = !fast_disp ? S_NEW : m_wr_ready ? S_PLACE : S_PLACE_D;
        endcase
      end
      st_q[I_NEW]: begin
        unique case (dp_q)
          DP_SR_SCHK:  st_d = S_SCHK;
          DP_SR_RQE:   st_d = S_RQE_RD;
          DP_SRQ:      st_d = S_SRQ;
          DP_DUP_READ: st_d = S_MR_CHK;
          DP_NEW, DP_NONE: begin
            unique case (nw_q)
              NW_REFETCH, NW_RQE: st_d = S_RQE_RD;
              NW_MR:              st_d = spec_q ? S_MR_CHKW : S_MR_CHK;
              NW_EXEC:            st_d = S_EXEC;
              default:            st_d = S_DRAIN;   // NW_SEQ, NW_RNR, NW_ACC, NW_ALIGN
            endcase
          end
          default: st_d = S_DRAIN;
        endcase
      end
      st_q[I_RQE_RD]: begin
        if (bg_pop)                          st_d = S_RQE_CHK;
        else if (fsm_rd_valid && m_rd_ready) st_d = S_RQE_WAIT;
      end
      st_q[I_RQE_WAIT]: if (s_rd_tvalid && s_rd_tlast) st_d = S_RQE_CHK;
      st_q[I_RQE_CHK]: if (chk_ready) st_d = S_RQE_CHKW;
      st_q[I_RQE_CHKW]: begin
        if (chk_res_valid) begin
          unique case (1'b1)
            after_rqe_q[I_SCHK], after_rqe_q[I_EXEC], after_rqe_q[I_NEW]: st_d = S_RQE_DONE;
            after_rqe_q[I_CMP]: st_d = S_CMP;
            after_rqe_q[I_RFL]: st_d = S_RFL;
            default:            st_d = S_WB;
          endcase
        end
      end
      st_q[I_RQE_DONE]: st_d = after_rqe_q[I_SCHK] ? S_SCHK : after_rqe_q[I_NEW] ? S_NEW : S_EXEC;
      st_q[I_MR_CHK]: if (chk_ready) st_d = S_MR_CHKW;
      st_q[I_MR_CHKW]: begin
        if (chk_res_valid) begin
          if (!chk_ok)                       st_d = S_DRAIN;
          else if (is_read)                  st_d = S_RJOB;
          else if (is_atomic)                st_d = S_ATOM_RD;
          else if (wr_len_bad_q || plen_q == 0) st_d = S_DRAIN;
          else                               st_d = m_wr_ready ? S_PLACE : S_PLACE_D;
        end
      end
      st_q[I_EXEC]: begin
        if ((is_send ? send_bad : wr_len_bad_q) || plen_q == 0) st_d = S_DRAIN;
        else                                                    st_d = m_wr_ready ? S_PLACE : S_PLACE_D;
      end
      st_q[I_PLACE_D]: if (m_wr_ready) st_d = S_PLACE;
      st_q[I_PLACE]: ;   // commit_now, below
      st_q[I_DRAIN]: ;   // commit_now, below
      st_q[I_ATOM_RD]: if (fsm_rd_valid && m_rd_ready) st_d = S_ATOM_WAIT;
      st_q[I_ATOM_WAIT]: if (s_rd_tvalid && s_rd_tlast) st_d = s_rd_tuser ? S_DRAIN : S_ATOM_WD;
      st_q[I_ATOM_WD]: if (m_wr_ready) st_d = S_ATOM_W;
      st_q[I_ATOM_W]: if (m_wr_tready) st_d = S_DRAIN;
      st_q[I_RJOB]: if (rjob_ready) st_d = S_DRAIN;
      st_q[I_FIN]: begin
        if (fin_done) begin
          if (r_q.err)                     st_d = S_RFL;
          else if (fp_cmp_q)               st_d = S_CMP;
          else if (fin_pf_act == PF_FSM)   st_d = S_RQE_RD;
          else                             st_d = S_IDLE;   // (the pick below may override)
        end
      end
      st_q[I_SRI]: if (sw_init_ready) st_d = S_WB;
      st_q[I_SCHK]: st_d = (u_ok && !soff_bad_q && !send_lbad) ? S_SRQ : pd0_q ? S_EXEC : S_DRAIN;
      st_q[I_CMP]: begin
        if (lk_ok) begin
          if (!lk_any_q)              st_d = S_PF;
          else if (!pf_ne_q)          st_d = S_CMP;
          else if (!r_q.rqe_valid)    st_d = S_RQE_RD;
          else                        st_d = S_CMPQ;
        end
      end
      st_q[I_CMPQ]: if (cqe_room) st_d = S_CMP;
      st_q[I_RFL]: st_d = !pf_ne_q ? S_WB : !r_q.rqe_valid ? S_RQE_RD : S_RFLQ;
      st_q[I_RFLQ]: if (cqe_room) st_d = S_RFL;
      st_q[I_PF]: st_d = (pf_act == PF_FSM) ? S_RQE_RD : (src_q == SRC_RQE) ? S_IDLE : S_WB;
      st_q[I_WFE]: st_d = S_FIN;
      st_q[I_SRQ]: if (sw_req_ready) st_d = S_SRW;
      st_q[I_SRW]: begin
        if (sw_rsp_valid) begin
          unique case (sw_class)
            fabnic_roce_sr_pkg::SR_NEW_IN_ORDER, fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER:
              st_d = S_NEW;
            fabnic_roce_sr_pkg::SR_DUPLICATE: st_d = (pdn_q && is_read) ? S_MR_CHK : S_DRAIN;
            default: st_d = S_DRAIN;   // ORDERED_EARLY, BEYOND_WINDOW
          endcase
        end
      end
      st_q[I_WB]: st_d = S_IDLE;
      default: st_d = S_IDLE;
    endcase
    // the commit of a request (S_PLACE's last beat, S_DRAIN's end), then the pick
    if (commit_now)              st_d = fast_fin ? S_IDLE : S_FIN;
    // (the next packet of the QP just finished skips S_LOAD: its context is in qc_q/r_q)
    if (idle_like && pick_any)   st_d = pick_same ? S_DISPATCH : S_LOAD;
  end
  always_ff @(posedge clk) begin
    st_q <= st_d;
    if (rst) st_q <= S_IDLE;
  end

  always_ff @(posedge clk) begin
    m_ctl_done <= 1'b0;
    unique case (1'b1)
      st_q[I_IDLE]: ;   // picks: after the case (also taken from S_FIN, see fin_next)
      st_q[I_LOAD]: begin
        qc_q <= st_rd;
        r_q  <= fwd_q ? r_q : rs_rd;   // read in the cycle the same QP's state was written
      end
      st_q[I_DISPATCH]: begin
        spec_q <= spec_fire && !fast_disp && chk_ready;
        case (src_q)
          SRC_CTL: begin
            m_ctl_result <= r_q.epsn;
            m_ctl_err    <= r_q.err;
            m_ctl_done   <= 1'b1;
            if (!ctl_op_q) begin
              r_q      <= '0;
              r_q.epsn <= ctl_psn_q;
              oq_valid <= 1'b0;
              for (int i = 0; i < SR_STASH; i++) if (stq[i] == qpn_q) stv[i] <= 1'b0;
            end
          end
          SRC_DB: r_q.rq_pi <= db_pi_q;
          SRC_WF: begin
            // a placement write failed (BRESP), or a READ response's payload read: IBA
            // remote operational error. NAK at the failing packet's PSN (acted upon by
            // the requester while that PSN is outstanding), the receive side to ERR,
            // posted receives flushed (after a write fault, the one a SEND in progress
            // was using completes LOC_QP_OP_ERR: go-back-N in_send, SR sr_part). S_WFE
            // lets S_FIN's registered inputs see the ERR state.
            ack_psn_q <= wf_psn_q;
            if (qps_ok && !r_q.err) begin
              r_q.err    <= 1'b1;
              wf_first_q <= !wf_rd_q && (qc_q.sr ? r_q.sr_part : r_q.in_send);
              ack_q <= A_NAK; syn_q <= SYN_NAK_OP;
            end
          end
          SRC_CNP: begin
            ack_psn_q <= '0;
            if (qps_ok) ack_q <= A_CNP;
          end
          default: begin
            // a request packet: decided here (dp_q), acted on in S_NEW, except the fast
            // path: S_NEW's and S_MR_CHKW's decisions for a cached-rkey WRITE FIRST/ONLY
            ack_psn_q <= h_q.bth.psn;
            if (fast_disp) begin
              r_q.nak_sent <= 1'b0;
              r_q.wr_haddr <= h_q.reth.va + rc_off;
              r_q.wr_rem   <= h_q.reth.dma_len;
              r_q.wr_len   <= h_q.reth.dma_len;
              accept_q     <= 1'b1;
            end
          end
        endcase
      end
      // ------------------------------------------------ a new request at the expected PSN
      st_q[I_NEW]: begin
        unique case (dp_q)
          DP_DROP_QPS: begin
            cnt_drop_qp_state <= cnt_drop_qp_state + 1'b1;
          end
          DP_DROP_INV: begin
            cnt_inv_req <= cnt_inv_req + 1'b1;
          end
          DP_SR_BADSSN: begin
            ack_q <= A_NAK; syn_q <= SYN_NAK_INV;
            cnt_inv_req <= cnt_inv_req + 1'b1;
          end
          DP_RNR: begin
            ack_q <= A_NAK; syn_q <= rnr_syn;
            cnt_rnr_nak <= cnt_rnr_nak + 1'b1;
          end
          DP_SR_DROP: begin
            cnt_sr_drop <= cnt_sr_drop + 1'b1;
          end
          DP_SR_SCHK: begin
            side_q <= dp_side_q;
          end
          DP_SR_RQE: begin
            side_q      <= dp_side_q;
            rqe_pf_q    <= 1'b0;
            after_rqe_q <= S_SCHK;
          end
          DP_GAP_NAK: begin
            // gap: one sequence NAK, then silence until the expected PSN arrives
            r_q.nak_sent <= 1'b1;
            ack_q     <= A_NAK;
            syn_q     <= SYN_NAK_SEQ;
            ack_psn_q <= r_q.epsn;
            cnt_seq_nak <= cnt_seq_nak + 1'b1;
          end
          DP_GAP_DROP: begin
            cnt_drop_psn <= cnt_drop_psn + 1'b1;
          end
          DP_DUP_READ: begin
            cnt_dup <= cnt_dup + 1'b1;
          end
          DP_DUP_ATOM: begin
            cnt_dup     <= cnt_dup + 1'b1;
            ack_q       <= A_ATOMIC;
            syn_q       <= SYN_ACK;
            atom_orig_q <= r_q.atom_orig;
          end
          DP_DUP_ACK: begin
            cnt_dup   <= cnt_dup + 1'b1;
            ack_q     <= A_ACK;
            syn_q     <= SYN_ACK;
            ack_psn_q <= r_q.epsn - 24'd1;
          end
          default: begin   // DP_NEW (from S_DISPATCH), DP_NONE (from S_SRW, S_RQE_DONE)
            if (dp_q == DP_NEW) r_q.nak_sent <= 1'b0;
            unique case (nw_q)
              NW_SEQ: begin
                // opcode out of sequence
                ack_q <= A_NAK; syn_q <= SYN_NAK_INV;
                cnt_inv_req <= cnt_inv_req + 1'b1;
              end
              NW_REFETCH: begin
                // prefetched before an MR-table write: fetch and check it again
                rqe_pf_q    <= 1'b0;
                after_rqe_q <= is_send ? S_EXEC : S_NEW;
              end
              NW_RNR: begin
                // the RNR NAK answers for the packets behind it too: they meet a gap and
                // are dropped without a sequence NAK (which would rewind the requester out
                // of its RNR wait and spend its retry budget) until this PSN comes back
                rqe_pf_q <= 1'b0;
                r_q.nak_sent <= 1'b1;
                ack_q <= A_NAK; syn_q <= rnr_syn;
                cnt_rnr_nak <= cnt_rnr_nak + 1'b1;
              end
              NW_RQE: begin
                // a SEND has passed every S_NEW check but the RQE one: straight to S_EXEC
                // after the RQE (WRITE with immediate still needs its MR check in S_NEW)
                rqe_pf_q    <= 1'b0;
                after_rqe_q <= is_send ? S_EXEC : S_NEW;
              end
              NW_ACC: begin
                ack_q <= A_NAK; syn_q <= SYN_NAK_ACCESS;
                cnt_access_err <= cnt_access_err + 1'b1;
              end
              NW_ALIGN: begin
                ack_q <= A_NAK; syn_q <= SYN_NAK_INV;
                cnt_inv_req <= cnt_inv_req + 1'b1;
              end
              default: ;   // NW_MR, NW_EXEC: S_MR_CHK(W), S_EXEC
            endcase
          end
        endcase
        spec_q <= 1'b0;
      end
      st_q[I_RQE_RD]: begin
        rqe_bad_q <= 1'b0;
        if (bg_pop) begin
          // the background reader has it: no host read
          r_q.rqe_wrid  <= bg_ent.wr_id;
          r_q.rqe_haddr <= bg_ent.addr;
          r_q.rqe_len   <= bg_ent.len;
          rqe_lkey_q    <= bg_ent.lkey;
        end
      end
      st_q[I_RQE_WAIT]: begin
        if (s_rd_tvalid && s_rd_tlast) begin
          // an AXI error: the entry is not used (its check is overridden in S_RQE_CHKW);
          // the receive completes LOC_QP_OP_ERR with ones above its RQ index as wr_id
          rqe_bad_q <= s_rd_tuser;
          if (side_q) begin
            oq_haddr <= rqe_decode(s_rd_tdata[255:0]).addr;
            oq_len   <= rqe_decode(s_rd_tdata[255:0]).len;
          end else begin
            r_q.rqe_wrid  <= s_rd_tuser ? {48'hFFFF_FFFF_FFFF, r_q.rq_ci}
                                        : rqe_decode(s_rd_tdata[255:0]).wr_id;
            r_q.rqe_haddr <= rqe_decode(s_rd_tdata[255:0]).addr;
            r_q.rqe_len   <= rqe_decode(s_rd_tdata[255:0]).len;
          end
          rqe_lkey_q    <= rqe_decode(s_rd_tdata[255:0]).lkey;
        end
      end
      st_q[I_RQE_CHK]: if (chk_ready) begin
        rqe_ep_q <= mr_epoch_q;
      end
      st_q[I_RQE_CHKW]: begin
        if (chk_res_valid && side_q) begin
          oq_valid <= 1'b1;
          oq_ok    <= chk_ok && !rqe_bad_q;
          oq_qpn   <= qpn_q;
          oq_idx   <= ssn_idx;
          oq_epoch <= rqe_ep_q;
          if (chk_ok) oq_haddr <= chk_addr;
        end else if (chk_res_valid) begin
          r_q.rqe_valid <= 1'b1;
          // WRITE_IMM places nothing in it; a prefetched one keeps the verdict for the
          // SEND that will use it
          r_q.rqe_ok    <= (chk_ok && !rqe_bad_q) || (!rqe_pf_q && !is_send);
          r_q.rqe_dmaerr <= rqe_bad_q;
          r_q.rqe_pf    <= rqe_pf_q;
          r_q.rqe_epoch <= rqe_ep_q;
          r_q.msg_off   <= '0;
          if (chk_ok) r_q.rqe_haddr <= chk_addr;
          cnt_lkey_err <= cnt_lkey_err + CNT_W'(!chk_ok && is_send && !rqe_pf_q
                                                && !after_rqe_q[I_CMP]);
        end
      end
      st_q[I_MR_CHKW]: begin
        if (chk_res_valid) begin
          // (a duplicate READ that fails the check again is dropped, counted as a
          // duplicate: anyone can forge a PSN behind the expected one, so it may
          // neither NAK nor move the receive side to ERR)
          if (!chk_ok && !pdn_q) begin
            ack_q <= A_NAK; syn_q <= SYN_NAK_ACCESS;
            cnt_access_err <= cnt_access_err + 1'b1;
          end else if (chk_ok) begin
            // a READ (new or duplicate) keeps its address out of the QP state: a
            // duplicate READ may arrive in the middle of a WRITE message, whose MIDDLE
            // and LAST packets still place at r_q.wr_haddr
            rd_haddr_q <= chk_addr;
            if (!is_read) r_q.wr_haddr <= chk_addr;
            if (is_write) begin
              r_q.wr_rem <= h_q.reth.dma_len;
              r_q.wr_len <= h_q.reth.dma_len;
            end
            // S_EXEC's decisions for a WRITE, made here (its remaining length is the
            // RETH length it just took)
            if (is_read || is_atomic) begin
              ;   // S_RJOB, S_ATOM_RD
            end else if (wr_len_bad_q) begin
              ack_q <= A_NAK; syn_q <= SYN_NAK_INV;
              cnt_inv_req <= cnt_inv_req + 1'b1;
              r_q.in_write <= 1'b0;
            end else begin
              accept_q <= 1'b1;
            end
          end
        end
      end
      // SENDs, and WRITE packets without a remote-access check (MIDDLE / LAST of a
      // go-back-N QP); READ, atomics and checked WRITEs are decided in S_MR_CHKW
      st_q[I_EXEC]: begin
        if (is_send) begin
          if (!side_q) r_q.rqe_pf <= 1'b0;
          if (!u_ok) begin
            cnt_lkey_err <= cnt_lkey_err + CNT_W'(r_q.rqe_pf);
            // receive buffer not accessible: local protection error, nothing placed
            ack_q <= A_NAK; syn_q <= SYN_NAK_OP;
            cqe_q <= recv_cqe(r_q.rqe_wrid, qc_q.rcq,
                              (!side_q && r_q.rqe_dmaerr) ? WS_LOC_QP_OP_ERR : WS_LOC_PROT_ERR,
                              WC_RECV, send_off, 32'd0, 1'b0, qpn_q);
            cqe_pend_q <= 1'b1;
            r_q.rqe_valid <= 1'b0; r_q.rq_ci <= r_q.rq_ci + 16'd1; r_q.in_send <= 1'b0;
            r_q.sr_part <= 1'b0;
          end else if (send_lbad || (qc_q.sr && soff_bad_q)) begin
            ack_q <= A_NAK; syn_q <= SYN_NAK_INV;
            cnt_inv_req <= cnt_inv_req + 1'b1;
            cqe_q <= recv_cqe(r_q.rqe_wrid, qc_q.rcq, WS_LOC_LEN_ERR, WC_RECV, send_off, 32'd0, 1'b0, qpn_q);
            cqe_pend_q <= 1'b1;
            r_q.rqe_valid <= 1'b0; r_q.rq_ci <= r_q.rq_ci + 16'd1; r_q.in_send <= 1'b0;
            r_q.sr_part <= 1'b0;
          end else begin
            accept_q <= 1'b1;
          end
        end else begin  // write
          if (wr_len_bad_q) begin
            ack_q <= A_NAK; syn_q <= SYN_NAK_INV;
            cnt_inv_req <= cnt_inv_req + 1'b1;
            r_q.in_write <= 1'b0;
          end else begin
            accept_q <= 1'b1;
          end
        end
      end
      st_q[I_PLACE]: begin
        ;   // the last beat commits in the same cycle (commit_now, after the case)
      end
      st_q[I_DRAIN]: ;   // commit_now: after the case
      // ------------------------------------------------ atomics
      st_q[I_ATOM_WAIT]: begin
        if (s_rd_tvalid && s_rd_tlast && s_rd_tuser) begin
          // the target could not be read: nothing is written, NAK remote operational
          // error (the receive side enters ERR with it)
          ack_q <= A_NAK; syn_q <= SYN_NAK_OP;
        end else if (s_rd_tvalid && s_rd_tlast) begin
          atom_orig_q <= s_rd_tdata[63:0];
          if (oc_q.cas)
            atom_new_q <= (s_rd_tdata[63:0] == h_q.atomic_eth.compare)
                          ? h_q.atomic_eth.swap_add : s_rd_tdata[63:0];
          else
            atom_new_q <= s_rd_tdata[63:0] + h_q.atomic_eth.swap_add;
        end
      end
      st_q[I_ATOM_W]: begin
        if (m_wr_tready) begin
          r_q.atom_valid <= 1'b1;
          r_q.atom_psn   <= h_q.bth.psn;
          r_q.atom_orig  <= atom_orig_q;
          if (!qc_q.sr) begin
            r_q.epsn <= r_q.epsn + 24'd1;
            r_q.msn  <= r_q.msn + 24'd1;
          end
          ack_q <= A_ATOMIC; syn_q <= SYN_ACK;
          drain_q <= 1'b1;
        end
      end
      // ------------------------------------------------ READ
      st_q[I_RJOB]: begin
        if (rjob_ready) begin
          if (pd0_q && !qc_q.sr) begin
            r_q.epsn <= r_q.epsn + rd_np_q;
            r_q.msn  <= r_q.msn + 24'd1;
          end
        end
      end
      st_q[I_FIN]: begin
        if (cqe_offer) cqe_pend_q <= 1'b0;
        if (job_offer) begin
          ack_q <= A_NONE;
          cnt_acks_sent <= cnt_acks_sent + CNT_W'(ack_q != A_CNP && ack_q != A_SACK);
          cnt_cnp_sent  <= cnt_cnp_sent + CNT_W'(ack_q == A_CNP);
          cnt_sack_sent <= cnt_sack_sent + CNT_W'(ack_q == A_SACK);
        end
        // (next: S_RFL when the receive side just entered ERR, S_CMP for stashed SEND
        // completions the advance passed, else an RQE load when the packet used it up)
        if (fin_done && !r_q.err && !fp_cmp_q && fin_pf_act == PF_FSM) begin
          side_q      <= 1'b0;
          rqe_pf_q    <= 1'b1;      // the packet used the RQE up: load the next one
          after_rqe_q <= S_WB;
        end
      end
      // ------------------------------------------------ selective repeat
      // SR SEND: is the packet placeable with its RQE? An out-of-order one that is not is
      // dropped unmarked (its in-order resend gets the error CQE and NAK)
      // (in order: the error CQE and NAK of S_EXEC, without the window: the PSN is not
      // marked, and no parked completion behind it is released; the requester goes to ERR
      // and flushes those messages)
      st_q[I_SCHK]: if ((!u_ok || soff_bad_q || send_lbad) && !pd0_q) cnt_sr_drop <= cnt_sr_drop + 1'b1;
      // completions of stashed SEND LASTs, oldest first: RQE rq_ci, CQE from the stash
      st_q[I_CMP]: begin
        side_q <= 1'b0;
        if (!lk_ok || !lk_any_q) begin
          ;   // the lookup has not seen the last change yet; or none left (S_PF)
        end else if (!pf_ne_q) begin
          // cannot happen (accepted with a posted RQE): drop the parked completion
          if (lk_hit_q) stv[lk_idx_q] <= 1'b0;
          cmp_map_q[lk_low_q] <= 1'b0;
          cnt_inv_req <= cnt_inv_req + 1'b1;
        end else if (!r_q.rqe_valid) begin
          rqe_pf_q    <= 1'b0;
          after_rqe_q <= S_CMP;
        end else begin
          cqe_q <= recv_cqe(r_q.rqe_wrid, qc_q.rcq, lk_hit_q ? WS_SUCCESS : WS_LOC_LEN_ERR,
                            WC_RECV, stl[lk_idx_q], sti[lk_idx_q], stimm[lk_idx_q], qpn_q);
          if (lk_hit_q) stv[lk_idx_q] <= 1'b0;
          cmp_map_q[lk_low_q] <= 1'b0;
          r_q.rqe_valid <= 1'b0;
          r_q.rq_ci     <= r_q.rq_ci + 16'd1;
          r_q.sr_part   <= 1'b0;
          if (oq_qpn == qpn_q) oq_valid <= 1'b0;
        end
      end
      // ERR: every posted receive WQE completes with WR_FLUSH_ERR, in order (its wr_id
      // read like a prefetch); the QP's parked SR completions are dropped
      st_q[I_RFL]: begin
        side_q    <= 1'b0;
        cmp_map_q <= '0;
        for (int i = 0; i < SR_STASH; i++) if (stq[i] == qpn_q) stv[i] <= 1'b0;
        if (!pf_ne_q) begin
          wf_first_q <= 1'b0;
        end else if (!r_q.rqe_valid) begin
          rqe_pf_q    <= 1'b1;
          after_rqe_q <= S_RFL;
        end else begin
          wf_first_q <= 1'b0;
          cqe_q <= recv_cqe(r_q.rqe_wrid, qc_q.rcq,
                            wf_first_q ? WS_LOC_QP_OP_ERR : WS_WR_FLUSH_ERR, WC_RECV, 32'd0,
                            32'd0, 1'b0, qpn_q);
          r_q.rqe_valid <= 1'b0;
          r_q.rq_ci     <= r_q.rq_ci + 16'd1;
          if (oq_qpn == qpn_q) oq_valid <= 1'b0;
        end
      end
      // prefetch point (after a doorbell, a fetched batch, the last stashed completion):
      // take the batch's entry now, have the background reader fetch a batch (the
      // launch, bg_launch), or nothing; a fetched batch's pass writes nothing back
      st_q[I_PF]: begin
        if (pf_act == PF_FSM) begin
          rqe_pf_q    <= 1'b1;      // load the next RQE now, not when a SEND needs it
          after_rqe_q <= S_WB;
        end
      end
      st_q[I_SRW]: begin
        if (sw_rsp_valid) begin
          sr_cls_q  <= sw_class;
          sr_epsn_q <= sw_epsn;
          sr_adv_q  <= sw_adv;
          sr_bmp_q  <= sw_bmp;
          sr_ack_q  <= 1'b0;
          r_q.epsn  <= sw_epsn;            // mirror of the window
          case (sw_class)
            fabnic_roce_sr_pkg::SR_NEW_IN_ORDER: begin
              // messages completed by the advance: this packet's, and the placed LASTs
              // the advance passes
              r_q.msn <= r_q.msn + 24'(is_last || is_read || is_atomic);
              eom_pass_q <= r_q.eom & sr_adv_mask;
              r_q.eom <= (sw_adv >= 24'(SRW)) ? '0 : r_q.eom >> sw_adv[5:0];
              r_q.reom   <= (sw_adv >= 24'(SRW)) ? '0 : r_q.reom >> sw_adv[5:0];
              cmp_map_q  <= r_q.reom & sr_adv_mask;
              cmp_base_q <= r_q.epsn;
              sr_ack_q <= is_send || is_write;
            end
            fabnic_roce_sr_pkg::SR_NEW_OUT_OF_ORDER: begin
              if (is_last) r_q.eom[sr_d] <= 1'b1;
              if (is_last && is_send) begin
                // its CQE waits for the in-order advance (entry checked free at dispatch)
                r_q.reom[sr_d]   <= 1'b1;
                stv[st_free_idx] <= 1'b1;
                stq[st_free_idx] <= qpn_q;
                stp[st_free_idx] <= h_q.bth.psn;
                stl[st_free_idx] <= se_end_q;
                sti[st_free_idx] <= h_q.immdt.imm;
                stimm[st_free_idx] <= has_imm;
              end
              cnt_ooo_placed <= cnt_ooo_placed + 1'b1;
              sr_ack_q <= 1'b1;
            end
            fabnic_roce_sr_pkg::SR_DUPLICATE: begin
              cnt_dup <= cnt_dup + 1'b1;
              // a packet the window had already: the sender resent it needlessly (READ
              // requests excluded: the requester re-asks for lost responses with them)
              cnt_sr_spurious <= cnt_sr_spurious + CNT_W'(!is_read);
              if (pdn_q && is_read) begin
                ;                          // re-executed (S_MR_CHK)
              end else if (pdn_q && is_atomic && arep_q) begin
                ack_q       <= A_ATOMIC;
                syn_q       <= SYN_ACK;
                atom_orig_q <= r_q.atom_orig;
              end else begin
                sr_ack_q <= 1'b1;          // (S)ACK from S_DRAIN
              end
            end
            default: begin                 // ORDERED_EARLY, BEYOND_WINDOW
              cnt_sr_drop <= cnt_sr_drop + 1'b1;
            end
          endcase
        end
      end
      default: ;   // states without register updates of their own
    endcase
    // Commit of a request: in S_DRAIN once no beats are left, or in S_PLACE in the cycle
    // its last beat goes into the arbiter (then S_FIN follows that handshake, so the CQE
    // still cannot overtake the data).
    if (commit_now) begin
      drain_q <= 1'b0;
      r_q     <= r_cm;
      // commit of an accepted SEND/WRITE: the receive CQE and the ACK
      if (accept_q) begin
        if (cm_cqe) begin
          cqe_q <= recv_cqe(r_q.rqe_wrid, qc_q.rcq, WS_SUCCESS,
                            is_send ? WC_RECV : WC_RECV_RDMA_IMM,
                            is_send ? se_end_q : r_q.wr_len,
                            h_q.immdt.imm, has_imm, qpn_q);
          cqe_pend_q    <= 1'b1;
          if (oq_qpn == qpn_q) oq_valid <= 1'b0;
        end
        if (h_q.bth.ack_req) begin
          ack_q <= A_ACK; syn_q <= SYN_ACK;
        end
      end
      // SR: SACK while the window has holes, else an ACK when asked for, for a
      // duplicate, or when the packet filled a hole; cumulative PSN epsn - 1
      if (qc_q.sr && sr_ack_q && ack_q != A_NAK && ack_q != A_ATOMIC) begin
        syn_q     <= SYN_ACK;
        ack_psn_q <= sr_epsn_q - 24'd1;
        if (sr_bmp_q != '0) ack_q <= A_SACK;
        else if (h_q.bth.ack_req || sr_cls_q == fabnic_roce_sr_pkg::SR_DUPLICATE
                 || sr_adv_q > 24'd1) ack_q <= A_ACK;
        else ack_q <= A_NONE;
      end
    end
    if (mp2_q) r_q.msn <= r_q.msn + 24'(eom_cnt_q);
    // pick the next event in S_IDLE, or straight from S_FIN when nothing else follows
    // the packet (the state write of that cycle is forwarded to S_LOAD if the next
    // event is for the same QP)
    if (idle_like) begin
      ack_q      <= A_NONE;
      cqe_pend_q <= 1'b0;
      drain_q    <= 1'b1;
      accept_q   <= 1'b0;
      sr_ack_q   <= 1'b0;
      side_q     <= 1'b0;
      cmp_map_q  <= '0;
      // the pick: source and QP from the valids alone (pick_*; the next state in st_d),
      // enabled by idle_like; the event registers of every source are loaded (only the
      // picked source's are read)
      wf_psn_q  <= s_wf_psn;
      wf_rd_q   <= s_wf_rd;
      ctl_op_q  <= s_ctl_op;
      ctl_psn_q <= s_ctl_psn;
      db_pi_q   <= s_db_pi;
      if (pick_any) begin
        src_q <= pick_src;
        qpn_q <= rd_addr;
      end
    end
    if (rst) begin
      m_ctl_done        <= 1'b0;
      wf_first_q        <= 1'b0;
      oq_valid          <= 1'b0;
      stv               <= '0;
      cnt_drop_qp_state <= '0;
      cnt_drop_psn      <= '0;
      cnt_dup           <= '0;
      cnt_seq_nak       <= '0;
      cnt_rnr_nak       <= '0;
      cnt_access_err    <= '0;
      cnt_inv_req       <= '0;
      cnt_acks_sent     <= '0;
      cnt_lkey_err      <= '0;
      cnt_cnp_sent      <= '0;
      cnt_sack_sent     <= '0;
      cnt_ooo_placed    <= '0;
      cnt_sr_drop       <= '0;
      cnt_sr_spurious   <= '0;
    end
  end

`ifndef SYNTHESIS
  // One operation per QP in flight, and its state is the last one written back: a
  // shadow of the state RAM (written where the RAM is, wb_en_q/wb_qpn_q/r_q) gives the
  // state every event must start from; in S_DISPATCH (after S_LOAD's RAM read or
  // forward, or straight from a same-QP pick) r_q must equal it, counting a write-back
  // still on its way to the RAM in that cycle. Only QPs written once are checked (the
  // RAM starts uninitialised).
  rstate_t          a_shadow [NUM_QP];
  logic [NUM_QP-1:0] a_seen;
  rstate_t          a_want;
  always_comb a_want = (wb_en_q && wb_qpn_q == qpn_q) ? r_q : a_shadow[qpn_q];
  always_ff @(posedge clk) begin
    if (wb_en_q) begin
      a_shadow[wb_qpn_q] <= r_q;
      a_seen[wb_qpn_q]   <= 1'b1;
    end
    if (rst) a_seen <= '0;
    if (!rst) begin
      assert (!$isunknown(st_q)) else $error("fabnic_roce_resp: unknown state");
      assert ($onehot(st_q)) else $error("fabnic_roce_resp: state not one-hot");
      assert (!(wr_en && wb_en_q && wb_qpn_q != qpn_q && rd_en))
      else $error("fabnic_roce_resp: two write-backs in flight for a pick");
      if (st_q[I_DISPATCH] && a_seen[qpn_q])
        assert (r_q == a_want)
        else $error("fabnic_roce_resp: QP %0d starts from a state not its last write-back",
                    qpn_q);
    end
  end
  // The registered shortcuts equal the expressions they stand for where they are used.
  logic [5:0]       a_low;
  logic             a_hit;
  logic [STI_W-1:0] a_idx;
  pf_e a_pf_act;
  logic a_pt;
  always_comb begin
    a_pt = RQE_PREFETCH && !r_q.rqe_valid && r_q.rq_ci != r_q.rq_pi && !r_q.err && qps_ok
           && fin_done && src_q == SRC_PKT && cmp_map_q == '0;
    if (!a_pt || bg_pend)  a_pf_act = PF_NONE;
    else if (bg_hit)       a_pf_act = PF_FSM;
    else if (!bg_busy)     a_pf_act = PF_LAUNCH;
    else                   a_pf_act = PF_FSM;
    a_low = '0;
    for (int i = 63; i >= 0; i--) if (cmp_map_q[i]) a_low = 6'(i);
    a_hit = 1'b0;
    a_idx = '0;
    for (int i = SR_STASH - 1; i >= 0; i--) begin
      if (stv[i] && stq[i] == qpn_q && stp[i] == cmp_base_q + 24'(a_low)) begin
        a_hit = 1'b1;
        a_idx = STI_W'(i);
      end
    end
  end
  logic [6:0]  a_cnt;
  logic [23:0] a_msn_q;
  logic        a_mrw2_q;   // an MR-table write two cycles before
  resp_dp_e         a_dp;       // dp_f from the unregistered compares
  always_ff @(posedge clk) a_mrw2_q <= mrw_q;
  always_comb begin
    a_dp = dp_f('{qps_ok: qps_ok, err: r_q.err, req: is_req, sr: qc_q.sr, send: is_send,
                  last: is_last, rqe: needs_rqe, read: is_read, atomic: is_atomic,
                  rqe_valid: r_q.rqe_valid, rqe_pf: r_q.rqe_pf, nak_sent: r_q.nak_sent,
                  st_free: st_free_any, mrw: a_mrw2_q},
                '{eq: pd_eq, pos: pd_diff > 0, neg: pd_diff < 0,
                  w64: pd_diff >= 0 && pd_diff < 24'sd64, sknz: sk_nz, skge: sk >= posted,
                  arep: r_q.atom_valid && r_q.atom_psn == h_q.bth.psn,
                  epne: r_q.rqe_epoch != mr_epoch_q, oqh: oq_hit,
                  emp: r_q.rq_ci == r_q.rq_pi});
  end
  always_comb begin
    a_cnt = '0;
    for (int i = 0; i < SRW; i++) a_cnt = a_cnt + 7'(r_q.eom[i] & sr_adv_mask[i]);
  end
  always_ff @(posedge clk) begin
    if (st_q[I_SRW] && sw_rsp_valid && sw_class == fabnic_roce_sr_pkg::SR_NEW_IN_ORDER)
      a_msn_q <= r_q.msn + 24'(a_cnt) + 24'(is_last || is_read || is_atomic);
    if (!rst) begin
      if (mp2_q)
        assert (r_q.msn + 24'(eom_cnt_q) == a_msn_q)
        else $error("fabnic_roce_resp: deferred MSN add differs");
      if (st_q[I_PLACE])
        assert (ff_pre_q == ff_pre) else $error("fabnic_roce_resp: ff_pre_q stale in S_PLACE");
      if (st_q[I_DISPATCH] && src_q == SRC_PKT && !qc_q.sr)
        assert (fd_lok_q == (!wr_len_bad && plen_q != 0))
        else $error("fabnic_roce_resp: fd_lok_q differs in S_DISPATCH");
      if (st_q[I_DISPATCH]) begin
        assert (dq_eq == pd_eq && dq_pos == (pd_diff > 0) && dq_neg == (pd_diff < 0)
                && dq_w64 == (pd_diff >= 0 && pd_diff < 24'sd64) && dq_sknz == sk_nz
                && dq_skge == (sk >= posted)
                && dq_arep == (r_q.atom_valid && r_q.atom_psn == h_q.bth.psn))
        else $error("fabnic_roce_resp: registered dispatch checks differ");
        if (!mrw_q)
          assert (dq_oqh == oq_hit && dq_epne == (r_q.rqe_epoch != mr_epoch_q))
          else $error("fabnic_roce_resp: registered RQE epoch checks differ");
      end
      // S_NEW's registered decision: the same outcome as from its inputs now, except
      // that an MR write in the cycle before may turn it into a conservative refetch
      if (st_q[I_NEW] && (dp_q == DP_NEW || dp_q == DP_NONE))
        assert (nw_q == nw_d || (nw_q == NW_REFETCH && mrw_q)
                || (nw_d == NW_REFETCH && mr_wr_valid))
        else $error("fabnic_roce_resp: S_NEW decision stale");
      // S_DISPATCH's registered decision: S_NEW follows S_DISPATCH, which writes none of
      // its inputs; the same outcome from the unregistered compares now (checked when no
      // MR write came in the S_DISPATCH cycle, whose epoch the decision has not seen)
      if (st_q[I_NEW] && dp_q != DP_NONE && !mrw_q)
        assert (dp_q == a_dp) else $error("fabnic_roce_resp: S_DISPATCH decision stale");
      if (dp_q != DP_NONE)
        assert (st_q[I_NEW] || (dp_q == DP_NEW && (st_q[I_PLACE] || st_q[I_PLACE_D])))
        else $error("fabnic_roce_resp: S_DISPATCH decision not acted on in S_NEW");
      if (st_q[I_MR_CHKW] || st_q[I_SRW]) begin
        assert (pdn_q == (pd_diff < 0)) else $error("fabnic_roce_resp: pdn_q stale");
        assert (arep_q == (r_q.atom_valid && r_q.atom_psn == h_q.bth.psn))
        else $error("fabnic_roce_resp: arep_q stale");
      end
      if (st_q[I_SCHK] || st_q[I_EXEC])
        assert (soff_bad_q == soff_bad) else $error("fabnic_roce_resp: soff_bad_q stale");
      if (((st_q[I_SCHK] || st_q[I_EXEC]) && is_send) || st_q[I_SRW]
          || (commit_now && accept_q && is_send))
        assert (se_end_q == se_end && send_lbad == (se_end > u_len))
        else $error("fabnic_roce_resp: registered SEND checks stale");
      if (st_q[I_PF] || st_q[I_RQE_RD])
        assert (bg_hit_r == bg_hit && bg_pend_r == bg_pend)
        else $error("fabnic_roce_resp: registered batch compares stale");
      if (st_q[I_NEW] || st_q[I_CMP] || st_q[I_RFL])
        assert (pf_ne_q == (r_q.rq_ci != r_q.rq_pi)) else $error("fabnic_roce_resp: pf_ne_q stale");
      if (st_q[I_DISPATCH])
        assert (st_free_q == st_free_any) else $error("fabnic_roce_resp: st_free_q stale");
      if (st_q[I_DISPATCH])
        assert (dq_emp == (r_q.rq_ci == r_q.rq_pi)) else $error("fabnic_roce_resp: dq_emp differs");
      if (st_q[I_PF])
        assert (pf_ne_q == (r_q.rq_ci != r_q.rq_pi) && pf_cnt_q == pf_cnt)
        else $error("fabnic_roce_resp: registered prefetch point stale");
      if (st_q[I_FIN] && bg_launch)
        assert (fp_cnt == pf_cnt) else $error("fabnic_roce_resp: fp_cnt stale");
      if (bg_st_q == BG_NX2 && !bg_launch)
        assert (nx_cnt_q == nx_cnt && nx_base_q == r_q.rq_ci + 16'd1
                && nx_addr_q == qc_q.rq_base + {43'd0, ((r_q.rq_ci + 16'd1) & rq_mask), 5'd0})
        else $error("fabnic_roce_resp: next RQE batch registers stale");
      if (st_q[I_MR_CHKW] || (st_q[I_EXEC] && !is_send))
        assert (wr_len_bad_q == wr_len_bad) else $error("fabnic_roce_resp: wr_len_bad_q stale");
      if (st_q[I_RJOB] || st_q[I_SCHK])
        assert (pd0_q == pd_eq) else $error("fabnic_roce_resp: pd0_q stale");
      if (st_q[I_SRQ])
        assert (sr_span_q == (is_read ? npkts(h_q.reth.dma_len, lg) : 24'd1))
        else $error("fabnic_roce_resp: sr_span stale in S_SRQ");
      if (st_q[I_RJOB])
        assert (rd_np_q == npkts(h_q.reth.dma_len, lg))
        else $error("fabnic_roce_resp: rd_np_q stale in S_RJOB");
      if (st_q[I_FIN]) begin
        assert (fp_cmp_q == (cmp_map_q != '0)) else $error("fabnic_roce_resp: fp_cmp_q stale");
        assert (fp_ok_q == (!r_q.err && cmp_map_q == '0))
        else $error("fabnic_roce_resp: fp_ok_q stale in S_FIN");
        assert (fin_pf_act == a_pf_act) else $error("fabnic_roce_resp: fin_pf_act differs");
      end
      if (st_q[I_CMP] && lk_ok) begin
        assert (lk_any_q == (cmp_map_q != '0)) else $error("fabnic_roce_resp: lk_any_q stale");
        if (cmp_map_q != '0)
          assert (lk_low_q == a_low && lk_hit_q == a_hit && (!a_hit || lk_idx_q == a_idx))
          else $error("fabnic_roce_resp: stash lookup stale in S_CMP");
      end
    end
  end
`endif

  logic unused;
  assign unused = ^{s_axis_tuser, unused_mr_wr_ready, unused_chk_err, fl_h, fl_oc, fr,
                    unused_chk_id, s_rd_tdata[511:256], h_q, qc_q, unused_sw_qpn, unused_sw_psn,
                    unused_sw_user, unused_sw_cnt[0], unused_sw_cnt[1], unused_sw_cnt[2],
                    unused_sw_cnt[3], unused_sw_cnt[4], unused_sw_cnt[5]};

endmodule

`resetall
