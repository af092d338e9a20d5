// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_wr_gate: holds what a message's host writes vouch for until those writes
// have their B responses, and turns it into an error when one of them failed.
//
// A host write fault (BRESP SLVERR/DECERR) is known only when the write's B response
// is back, after the engine that issued the write has moved on. Four outputs of the
// engines claim that earlier writes landed, and pass this gate:
//   lane 0  the responder's ACK / NAK / atomic ACK / SACK / CNP jobs (acknowledge the
//           PSNs whose payload was placed),
//   lane 1  the responder's READ response jobs (a READ response acknowledges every
//           earlier PSN too),
//   lane 2  the responder's receive CQEs,
//   lane 3  the completer's send CQEs (READ data and atomic original values placed).
//
// Rule (write-completion order). The write engine (fabnic_dma_wr behind
// fabnic_roce_wr_arb) completes descriptors in the order they were accepted, all
// clients together. The gate counts accepted descriptors (s_wr_issue) and completions
// (s_cpl_valid); an entry entering a lane is tagged with the issue count of the cycle
// it was first offered, and leaves when the completion count reaches its tag: every
// write issued before it (its own message's among them: an engine issues a
// message's writes before its ACK or CQE) has its B response. Each lane is in order.
//
// Faults. A completion with an error (s_cpl_err) from the responder (client 0: meta
// QPN, PSN, and whether the packet was a SEND) or the completer (client 1: QPN) marks
// its QP in that engine's fault table, with the completion's sequence number k and,
// for the responder, the packet's PSN p and SEND flag; the first fault of a QP is kept
// until the QP is written in state RESET or INIT (s_st_*). An entry of a marked QP
// tagged after the failing write (tag > k: made after the write was issued, so it may
// vouch for it) is "hit", and leaves as the engine would have produced it had the
// fault been known:
//   lane 0  a CNP passes; the responder's NAK remote operational error at p (its own
//           answer to the fault) passes; another NAK that moves the QP to ERR (invalid
//           request, remote access, remote operational at another PSN: the responder
//           was in ERR already and sends no fault NAK) becomes NAK remote operational
//           error at p; anything else (ACK, atomic ACK, SACK, sequence or RNR NAK) is
//           dropped. The requester then sees the NAK at p while p is outstanding:
//           REM_OP_ERR.
//   lane 1  dropped (the responder's QP is in ERR once the fault is handled).
//   lane 2  a SUCCESS or LOC_QP_OP_ERR receive CQE becomes LOC_QP_OP_ERR if it is the
//           first such of the fault and the failing packet was a SEND (its receive
//           lost data), else WR_FLUSH_ERR (a receive after the failing message, or the
//           failing message was a WRITE: the receive side entered ERR before it).
//   lane 3  likewise, the first is LOC_QP_OP_ERR (the READ or atomic whose data was
//           lost; the completer's own LOC_QP_OP_ERR for the oldest incomplete WQE when
//           that one's CQE left already becomes WR_FLUSH_ERR), the rest WR_FLUSH_ERR.
// Converted CQEs carry byte_len 0 and no immediate (error completions).
// Not covered: an unsignaled READ or atomic whose data write failed has no CQE here;
// the completer's LOC_QP_OP_ERR then names the next WR (if any).
// Limits (checked by tb/roce_wr_gate): up to 5 QP context writes in RESET/INIT wait for
// the table port (a 4-entry queue and its head register) (the command engine writes contexts far apart; an
// assertion checks the queue never overflows); a fault completed
// during the table sweep after reset (the first NUM_QP cycles) may be swept away; the
// hit rule compares tags modulo 2^CW, so an entry more than 2^(CW-1) writes younger than
// its QP's fault is not hit (a QP in ERR produces no SUCCESS CQE or ACK that late).
//
// Pipeline per lane (decide in one stage, act in the next):
//   FIFO (DEPTH entries, LUT-RAM) -> P0 (head register: completion count >= tag?) ->
//   P1 (fault-table read at the entry's QPN) -> P2 (table samples registered; hit =
//   act && tag > k) -> P3 (hit, class registered; decision) -> output register.
// An entry enters P1 only once its writes are complete, so the table it reads already
// holds every fault it can be hit by (table writes and the completion count move on
// the same edge); only the "first conversion done" bit of the CQE lanes changes later,
// by this lane's own releases, and the two entries behind a release compare QPNs
// with it. P1..P3 and the output register advance together when the output is free
// (m_*_ready: enables only). One entry per cycle per lane.
// Fault events: completion registered (E1), table act bit read (E2: set on the first
// fault of the QP, with a bypass for a fault of the same QP one event ahead).
//
// Latency: about one host write round trip per ACK and CQE (the last write before it
// must have its B response), plus 6 cycles from the input handshake to m_*_valid (FIFO
// write and read, P0..P3, output register). GATE = 0
// passes every lane through (no added latency, the write-fault gaps of
// docs/roce_engine.md "Host-memory faults" come back).
//
// Handshakes: s_*_ready is the FIFO's not-full flag (flops); m_*_valid is a flop;
// m_*_ready enables the lane's pipeline registers only.
`default_nettype none

module fabnic_roce_wr_gate #(
    parameter int NUM_QP = 1024,
    parameter bit GATE   = 1'b1,
    parameter int DEPTH  = 128,   // entries per lane (a host write round trip of them)
    parameter int CW     = 16,    // write sequence counters (> 2x the writes in flight)
    parameter int QPN_W  = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    // the write engine: descriptors accepted, completions (in that order)
    input  wire logic                        s_wr_issue,
    input  wire logic                        s_cpl_valid,
    input  wire logic                        s_cpl_err,
    input  wire logic [1:0]                  s_cpl_src,    // 0 responder, 1 completer
    input  wire logic [QPN_W-1:0]            s_cpl_qpn,
    input  wire logic [23:0]                 s_cpl_psn,
    input  wire logic                        s_cpl_send,

    // QP context writes (a write in RESET or INIT forgets the QP's faults)
    input  wire logic                        s_st_we,
    input  wire logic [QPN_W-1:0]            s_st_qpn,
    input  wire logic                        s_st_reset,

    input  wire fabnic_roce_pkg::tx_job_t    s_job,
    input  wire logic                        s_job_valid,
    output logic                             s_job_ready,
    output fabnic_roce_pkg::tx_job_t         m_job,
    output logic                             m_job_valid,
    input  wire logic                        m_job_ready,

    input  wire fabnic_roce_pkg::tx_job_t    s_rjob,
    input  wire logic [31:0]                 s_rjob_len,
    input  wire logic [3:0]                  s_rjob_lg,
    input  wire logic                        s_rjob_valid,
    output logic                             s_rjob_ready,
    output fabnic_roce_pkg::tx_job_t         m_rjob,
    output logic      [31:0]                 m_rjob_len,
    output logic      [3:0]                  m_rjob_lg,
    output logic                             m_rjob_valid,
    input  wire logic                        m_rjob_ready,

    input  wire fabnic_roce_pkg::cqe_req_t   s_rcqe,
    input  wire logic                        s_rcqe_valid,
    output logic                             s_rcqe_ready,
    output fabnic_roce_pkg::cqe_req_t        m_rcqe,
    output logic                             m_rcqe_valid,
    input  wire logic                        m_rcqe_ready,

    input  wire fabnic_roce_pkg::cqe_req_t   s_ccqe,
    input  wire logic                        s_ccqe_valid,
    output logic                             s_ccqe_ready,
    output fabnic_roce_pkg::cqe_req_t        m_ccqe,
    output logic                             m_ccqe_valid,
    input  wire logic                        m_ccqe_ready
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  localparam int JW = $bits(tx_job_t);
  localparam int RW = JW + 36;
  localparam int CQW = $bits(cqe_req_t);

  if (!GATE) begin : g_off
    assign m_job        = s_job;
    assign m_job_valid  = s_job_valid;
    assign s_job_ready  = m_job_ready;
    assign m_rjob       = s_rjob;
    assign m_rjob_len   = s_rjob_len;
    assign m_rjob_lg    = s_rjob_lg;
    assign m_rjob_valid = s_rjob_valid;
    assign s_rjob_ready = m_rjob_ready;
    assign m_rcqe       = s_rcqe;
    assign m_rcqe_valid = s_rcqe_valid;
    assign s_rcqe_ready = m_rcqe_ready;
    assign m_ccqe       = s_ccqe;
    assign m_ccqe_valid = s_ccqe_valid;
    assign s_ccqe_ready = m_ccqe_ready;
    logic unused_off;
    assign unused_off = ^{clk, rst, s_wr_issue, s_cpl_valid, s_cpl_err, s_cpl_src, s_cpl_qpn,
                          s_cpl_psn, s_cpl_send, s_st_we, s_st_qpn, s_st_reset};
  end else begin : g_on
    // ------------------------------------------------------------ write sequence
    logic [CW-1:0] iss_cnt, cpl_cnt;
    always_ff @(posedge clk) begin
      if (s_wr_issue) iss_cnt <= iss_cnt + 1'b1;
      if (rst) iss_cnt <= '0;
    end

    // ------------------------------------------------------------ fault tables
    // LUT-RAMs, one write port each: rt {act, p, k, send} (responder faults), ct {act,
    // k} (completer faults), rfd / cfd: lane 2's / lane 3's first conversion to
    // LOC_QP_OP_ERR is done. act: a fault is recorded. Cleared after reset (a sweep of
    // every QP) and when a QP is written in RESET or INIT, in a cycle no other write
    // uses the ports (faults and conversions are rare).
    logic [25+CW:0]    rt_ram [NUM_QP];
    logic [CW:0]       ct_ram [NUM_QP];
    logic              rfd_ram [NUM_QP];
    logic              cfd_ram [NUM_QP];

    // E1: the completion, registered
    logic             e1_v, e1_err, e1_cp;
    logic [QPN_W-1:0] e1_qpn;
    logic [23:0]      e1_psn;
    logic             e1_send;
    always_ff @(posedge clk) begin
      e1_v    <= s_cpl_valid;
      e1_err  <= s_cpl_valid && s_cpl_err && s_cpl_src[1] == 1'b0;
      e1_cp   <= s_cpl_src[0];
      e1_qpn  <= s_cpl_qpn;
      e1_psn  <= s_cpl_psn;
      e1_send <= s_cpl_send;
      if (rst) begin
        e1_v   <= 1'b0;
        e1_err <= 1'b0;
      end
    end
    // E2: the QP's act bit read (a fault of the same QP one or two events ahead is not
    // in it yet: compared); E3: the table is written and the completion counted (the
    // same edge), from registers
    logic             e2_v, e2_err, e2_cp, e2_act, e2_send, e2_set;
    logic [QPN_W-1:0] e2_qpn;
    logic [23:0]      e2_psn;
    logic             e3_v, e3_set, e3_cp, e3_send, lw_v, lw_cp;
    logic [QPN_W-1:0] e3_qpn, lw_qpn;
    logic [23:0]      e3_psn;
    always_ff @(posedge clk) begin
      e2_v    <= e1_v;
      e2_err  <= e1_err;
      e2_cp   <= e1_cp;
      e2_qpn  <= e1_qpn;
      e2_psn  <= e1_psn;
      e2_send <= e1_send;
      e2_act  <= e1_cp ? ct_ram[e1_qpn][CW] : rt_ram[e1_qpn][25+CW];
      if (rst) begin
        e2_v   <= 1'b0;
        e2_err <= 1'b0;
      end
    end
    assign e2_set = e2_err && !e2_act && !(e3_set && e3_cp == e2_cp && e3_qpn == e2_qpn)
                    && !(lw_v && lw_cp == e2_cp && lw_qpn == e2_qpn);
    always_ff @(posedge clk) begin
      e3_v    <= e2_v;
      e3_set  <= e2_set;
      e3_cp   <= e2_cp;
      e3_qpn  <= e2_qpn;
      e3_psn  <= e2_psn;
      e3_send <= e2_send;
      lw_v    <= e3_set;
      lw_cp   <= e3_cp;
      lw_qpn  <= e3_qpn;
      if (e3_v) cpl_cnt <= cpl_cnt + 1'b1;
      if (rst) begin
        e3_v    <= 1'b0;
        e3_set  <= 1'b0;
        lw_v    <= 1'b0;
        cpl_cnt <= '0;
      end
    end

    // lane releases that convert a CQE to LOC_QP_OP_ERR (set fd), registered
    logic             fd_set [4];
    logic [QPN_W-1:0] fd_qpn [4];
    logic             fdw2_v, fdw3_v;
    logic [QPN_W-1:0] fdw2_q, fdw3_q;
    always_ff @(posedge clk) begin
      fdw2_v <= fd_set[2];
      fdw2_q <= fd_qpn[2];
      fdw3_v <= fd_set[3];
      fdw3_q <= fd_qpn[3];
      if (rst) begin
        fdw2_v <= 1'b0;
        fdw3_v <= 1'b0;
      end
    end

    // clears: the sweep after reset (init_q), then QP context writes in RESET / INIT,
    // queued (ST_Q entries), the head in a register (st_pend_q, st_qpn_q) until a cycle
    // without another table write
    localparam int ST_Q = 4;
    logic             init_q, clr_v, clr_go, st_pend_q, st_in_rdy, st_v, st_take;
    logic [QPN_W-1:0] init_idx_q, st_qpn, st_qpn_q, clr_q;
    logic [$clog2(ST_Q):0] unused_st_cnt;
    fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(ST_Q)) u_st_q (
        .clk, .rst, .in_valid(s_st_we && s_st_reset), .in_ready(st_in_rdy),
        .in_data(s_st_qpn), .out_valid(st_v), .out_ready(st_take),
        .out_data(st_qpn), .status_count(unused_st_cnt)
    );
    assign st_take = !st_pend_q || (clr_go && !init_q);
    assign clr_v  = init_q || st_pend_q;
    assign clr_q  = init_q ? init_idx_q : st_qpn_q;
    assign clr_go = clr_v && !e3_set && !fdw2_v && !fdw3_v;
    always_ff @(posedge clk) begin
      if (st_take) begin
        st_pend_q <= st_v;
        st_qpn_q  <= st_qpn;
      end
      if (clr_go && init_q) begin
        init_idx_q <= init_idx_q + 1'b1;
        if (32'(init_idx_q) == NUM_QP - 1) init_q <= 1'b0;
      end
      if (rst) begin
        init_q     <= 1'b1;
        init_idx_q <= '0;
        st_pend_q  <= 1'b0;
      end
    end
    always_ff @(posedge clk) begin
      if (e3_set && !e3_cp) rt_ram[e3_qpn] <= {1'b1, e3_psn, cpl_cnt, e3_send};
      else if (clr_go) rt_ram[clr_q] <= '0;
      if (e3_set && e3_cp) ct_ram[e3_qpn] <= {1'b1, cpl_cnt};
      else if (clr_go) ct_ram[clr_q] <= '0;
      if (fdw2_v) rfd_ram[fdw2_q] <= 1'b1;
      else if (clr_go) rfd_ram[clr_q] <= 1'b0;
      if (fdw3_v) cfd_ram[fdw3_q] <= 1'b1;
      else if (clr_go) cfd_ram[clr_q] <= 1'b0;
    end

    // ------------------------------------------------------------ lanes
    // Per lane: input (data, QPN, class bits), output.
    localparam int LW = RW;     // widest lane
    localparam int CLW = 4;
    logic [LW-1:0]    l_in   [4];
    logic [QPN_W-1:0] l_iq   [4];
    logic [CLW-1:0]   l_icls [4];
    logic [3:0]       l_iv, l_ir, l_ov, l_or;
    logic [LW-1:0]    l_out  [4];

    // lane 0: ACK jobs; class {cnp, NAK that moves the QP to ERR, NAK remote op. error}
    assign l_in[0]  = LW'(s_job);
    assign l_iq[0]  = s_job.lqpn[QPN_W-1:0];
    assign l_icls[0] = {1'b0, s_job.hdr.bth.opcode == OP_CNP,
                        s_job.hdr.bth.opcode == OP_ACK
                          && (s_job.hdr.aeth.syndrome == SYN_NAK_INV
                              || s_job.hdr.aeth.syndrome == SYN_NAK_ACCESS
                              || s_job.hdr.aeth.syndrome == SYN_NAK_OP),
                        s_job.hdr.aeth.syndrome == SYN_NAK_OP};
    assign l_iv[0] = s_job_valid;
    assign s_job_ready = l_ir[0];
    assign m_job = tx_job_t'(l_out[0][JW-1:0]);
    assign m_job_valid = l_ov[0];
    assign l_or[0] = m_job_ready;
    // lane 1: READ response jobs
    assign l_in[1]   = {s_rjob, s_rjob_len, s_rjob_lg};
    assign l_iq[1]   = s_rjob.lqpn[QPN_W-1:0];
    assign l_icls[1] = '0;
    assign l_iv[1]   = s_rjob_valid;
    assign s_rjob_ready = l_ir[1];
    assign {m_rjob, m_rjob_len, m_rjob_lg} = l_out[1];
    assign m_rjob_valid = l_ov[1];
    assign l_or[1] = m_rjob_ready;
    // lanes 2, 3: CQEs; class {SUCCESS or LOC_QP_OP_ERR}
    assign l_in[2]   = LW'(s_rcqe);
    assign l_iq[2]   = s_rcqe.qpn[QPN_W-1:0];
    assign l_icls[2] = {3'b0, s_rcqe.status == 8'(WS_SUCCESS)
                              || s_rcqe.status == 8'(WS_LOC_QP_OP_ERR)};
    assign l_iv[2]   = s_rcqe_valid;
    assign s_rcqe_ready = l_ir[2];
    assign m_rcqe = cqe_req_t'(l_out[2][CQW-1:0]);
    assign m_rcqe_valid = l_ov[2];
    assign l_or[2] = m_rcqe_ready;
    assign l_in[3]   = LW'(s_ccqe);
    assign l_iq[3]   = s_ccqe.qpn[QPN_W-1:0];
    assign l_icls[3] = {3'b0, s_ccqe.status == 8'(WS_SUCCESS)
                              || s_ccqe.status == 8'(WS_LOC_QP_OP_ERR)};
    assign l_iv[3]   = s_ccqe_valid;
    assign s_ccqe_ready = l_ir[3];
    assign m_ccqe = cqe_req_t'(l_out[3][CQW-1:0]);
    assign m_ccqe_valid = l_ov[3];
    assign l_or[3] = m_ccqe_ready;

    for (genvar L = 0; L < 4; L++) begin : g_lane
      localparam int W = (L == 0) ? JW : (L == 1) ? RW : CQW;
      localparam int EW = W + QPN_W + CW + CLW;
      typedef struct packed {
        logic [W-1:0]     d;
        logic [QPN_W-1:0] q;
        logic [CW-1:0]    t;
        logic [CLW-1:0]   c;
      } ent_t;

      // tag: the issue count of the cycle the entry was first offered
      logic          pend_q;
      logic [CW-1:0] pend_tag_q;
      always_ff @(posedge clk) begin
        pend_q <= l_iv[L] && !l_ir[L];
        if (!pend_q) pend_tag_q <= iss_cnt;
        if (rst) pend_q <= 1'b0;
      end
      ent_t in_e, f_e;
      assign in_e = '{d: l_in[L][W-1:0], q: l_iq[L], t: pend_q ? pend_tag_q : iss_cnt,
                      c: l_icls[L]};
      logic f_v, f_r;
      logic [$clog2(DEPTH):0] unused_cnt;
      fabnic_fifo #(.WIDTH(EW), .DEPTH(DEPTH)) u_q (
          .clk, .rst, .in_valid(l_iv[L]), .in_ready(l_ir[L]), .in_data(in_e),
          .out_valid(f_v), .out_ready(f_r), .out_data(f_e), .status_count(unused_cnt)
      );

      // P0..P3 and the output register
      logic          adv, p0_v, p0_done, p0_mv, p1_v, p2_v, p3_v, o_v;
      ent_t          p0, p1, p2, p3;
      logic [W-1:0]  o_d;
      logic [CW-1:0] dt, dk;
      // P2 samples of the table; P3 registered decision terms
      logic          s_act, s_fd, s_send, p1_fix, p2_fix;
      logic [23:0]   s_p;
      logic [CW-1:0] s_k;
      logic          h3, fd3, send3, p3_fix;
      logic [23:0]   p3_p;
      logic          keep, conv, first, setfd;
      logic [W-1:0]  nd;

      assign adv     = !o_v || l_or[L];
      assign p0_done = !dt[CW-1];
      assign dt      = cpl_cnt - p0.t;
      assign p0_mv   = p0_v && p0_done && adv && !init_q;   // tables cleared first
      assign dk      = p2.t - s_k;
      assign f_r     = !p0_v || p0_mv;
      always_ff @(posedge clk) begin
        if (f_r) begin
          p0_v <= f_v;
          p0   <= f_e;
        end
        if (rst) p0_v <= 1'b0;
      end

      always_ff @(posedge clk) begin
        if (adv) begin
          p1_v <= p0_mv;
          p1   <= p0;
          p2_v <= p1_v;
          p2   <= p1;
          p3_v <= p2_v;
          p3   <= p2;
          o_v  <= p3_v && keep;
          o_d  <= nd;
          // the table at P1's QPN
          if (L == 3) begin
            {s_act, s_k} <= ct_ram[p1.q];
            s_fd   <= cfd_ram[p1.q];
            s_p    <= '0;
            s_send <= 1'b1;
          end else begin
            {s_act, s_p, s_k, s_send} <= rt_ram[p1.q];
            s_fd   <= rfd_ram[p1.q];
          end
          // fd set by this cycle's release reaches the RAM two edges later: the
          // entries that read before (P1, P2) or at the next advance (the one
          // entering P1) carry it
          p1_fix <= setfd && p0.q == p3.q;
          p2_fix <= p1_fix || (setfd && p1.q == p3.q);
          p3_fix <= p2_fix || (setfd && p2.q == p3.q);
          // P2 -> P3: hit = act && tag > k
          h3    <= s_act && dk != '0 && !dk[CW-1];
          fd3   <= s_fd;
          send3 <= s_send;
          p3_p  <= s_p;
        end
        if (rst) begin
          p1_v <= 1'b0;
          p2_v <= 1'b0;
          p3_v <= 1'b0;
          o_v  <= 1'b0;
        end
      end
      assign l_ov[L]  = o_v;
      assign l_out[L] = LW'(o_d);

      // decision at P3
      if (L == 0) begin : g_ack
        tx_job_t j2, j3, jn;
        logic    own3_q;
        logic    unused_j2;
        assign unused_j2 = ^j2;
        assign j2 = tx_job_t'(p2.d);
        assign j3 = tx_job_t'(p3.d);
        always_ff @(posedge clk) begin
          if (adv) own3_q <= p2.c[0] && j2.hdr.bth.psn == s_p;
        end
        // c: {-, cnp, err NAK, NAK op}
        assign keep = !h3 || p3.c[2] || p3.c[1];   // own NAK-op passes, other ERR NAKs convert
        assign conv = h3 && !p3.c[2] && p3.c[1] && !own3_q;
        always_comb begin
          jn = j3;
          if (conv) begin
            jn.hdr.bth.psn = p3_p;
            jn.hdr.aeth.syndrome = SYN_NAK_OP;
          end
        end
        assign nd    = W'(jn);
        assign first = 1'b0;
        assign setfd = 1'b0;
      end else if (L == 1) begin : g_rd
        assign keep  = !h3;
        assign conv  = 1'b0;
        assign nd    = p3.d;
        assign first = 1'b0;
        assign setfd = 1'b0;
      end else begin : g_cqe
        cqe_req_t c3, cn;
        assign c3 = cqe_req_t'(p3.d);
        assign keep  = 1'b1;
        assign conv  = h3 && p3.c[0];
        assign first = !(fd3 || p3_fix) && send3;
        assign setfd = p3_v && adv && conv && first;
        always_comb begin
          cn = c3;
          if (conv) begin
            cn.status    = first ? 8'(WS_LOC_QP_OP_ERR) : 8'(WS_WR_FLUSH_ERR);
            cn.byte_len  = '0;
            cn.imm       = '0;
            cn.imm_valid = 1'b0;
          end
        end
        assign nd = W'(cn);
      end
      assign fd_set[L] = setfd;
      assign fd_qpn[L] = p3.q;
      logic unused_l;
      assign unused_l = ^{conv, first, p3, l_in[L], fd3, send3, p3_fix, p3_p};
    end

`ifndef SYNTHESIS
    // at most ST_Q QP resets wait for the table port (see Limits in the header)
    always_ff @(posedge clk) begin
      if (!rst) begin
        assert (!(s_st_we && s_st_reset && !st_in_rdy))
          else $error("fabnic_roce_wr_gate: QP reset %0d with %0d waiting", s_st_qpn, ST_Q);
      end
    end
`endif
  end

endmodule

`resetall
