// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cq: completion queue writer. NUM_CQ rings in host memory (32-byte CQEs,
// fabnic_roce_pkg::cqe_encode). Per CQE: one 32-byte DMA write at base + (pi mod size)
// * 32 with the owner/phase bit = 1 on even passes, then pi + 1; if the CQ is armed an
// interrupt request (vector) goes out after the CQE's data beat and the arm is cleared.
// Nothing is written for a CQE that finds its CQ disabled (cnt_overflow), full (an
// overrun: cnt_overflow, and the CQ enters the error state) or in the error state
// (cnt_err_drop). The error state (IBTA CQ error) is entered on an overrun or on a
// failed CQE write (s_flt, from the write engine's fault path); entering it sends one
// event (m_ev) and an interrupt request on the CQ's vector, armed or not; it lasts
// until the next control write. The QPs are not moved to ERR.
// Doorbells carry the host's consumer index and the arm bit (sticky until the next CQE);
// a control write sets base, log2 size, vector and enable and clears pi, ci, arm and
// the error state.
//
// Parameters
//   DATA_W  write data width, >= 256 ($error otherwise); CQE pairs need >= 512
//   KEEP_W  DATA_W / 8
//   NUM_CQ  CQ contexts, >= 2 (one block RAM word each)
//   CNT_W   counter width
//   CQN_W   derived, $clog2(NUM_CQ), <= 16 (the CQE request's cqn field)
//
// Structure (decide in one stage, act in the next). The per-CQ context has one owner,
// a pipelined read-modify-write in the shape of fabnic_qp_rmw (RAM_LAT 1, FORWARD 1):
//   input   s_ctl, s_flt and s_db land in one register each (ready = register empty). Each CQE
//           source has a two-entry buffer (ready = fewer than two held, a flop); its
//           head is the older held entry or, when none is held, the port itself
//           (the CQE can issue in its handshake cycle). Two CQEs at the head of one
//           source for the same CQ issue together as one operation (a pair).
//   0 issue the candidate is picked without looking at hazards: a held control write,
//           else a held write fault, else a held doorbell, else the CQE sources
//           round-robin. It issues when the
//           hazard rule allows it and (CQE) a job slot is free (credit); otherwise
//           nothing issues this cycle. The context RAM is read at the candidate's CQ.
//   1 read  the RAM word, or the newest of W / P1 for the same CQ (forward), loads C.
//   C       decide: ring full (one and two slots), slot, phase, 64-byte pair or two
//           writes at the wrap, interrupt; the new context is registered into W and
//           the CQE operation's write job is pushed into the job FIFO (a fault
//           operation pushes an empty job carrying the error interrupt, if any). CQE
//           operations issue against JOB_DEPTH credits, a fault operation against a
//           slot of its own (fcred_q), so the fault path adds no term to the CQE issue.
//   W       context write-back; drops counted; event out. P1 keeps the value written.
//   out     job FIFO head: descriptor (m_wr_valid), then its data beat; a pair that
//           crosses the end of the ring is two writes (slot pi, then slot 0).
// Hazard rule: an operation whose CQ is in stage 1 (issued the cycle before) waits one
// cycle; every later one reads W or P1 by forwarding (read-first RAM: a read started up
// to one cycle before a write does not see it). One CQ therefore takes one operation
// per two cycles (two CQEs with pairs); distinct CQs one per cycle.
// Pairs: a pair from a slot below the last one of the ring with room for both goes out
// as one 64-byte write (the write arbiter takes one write per two cycles); room for one
// writes the first and drops the second; at the last slot the two are written apart.
// Latency: a CQE whose handshake is in cycle h (empty buffer, no hazard) raises
// m_wr_valid in cycle h + 3 (issue h, read h+1, decide h+2). Interrupt one cycle after
// the data beat of the first write of its job.
// Handshakes: every ready is a flop (s_ctl_ready, s_db_ready, s_cqe_ready); m_wr_valid
// and m_wr_tvalid come from the output state flop and the job FIFO's pointers;
// m_wr_ready / m_wr_tready reach only flops. No combinational valid/ready path through
// the module. m_ev_valid is a flop (no ready: at most one event per CQ per control
// write, so a queue of NUM_CQ entries behind it suffices). Full: back-pressure on every
// input; nothing is lost except a CQE for a full, disabled or failed CQ (counted).
`default_nettype none

module fabnic_roce_cq #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_CQ = 256,
    parameter int CNT_W  = 32,
    parameter int CQN_W  = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    // context write from the control block (base, log2 size, vector, valid): also
    // resets pi/ci/arm
    input  wire logic                       s_ctl_valid,
    output logic                            s_ctl_ready,
    input  wire logic [CQN_W-1:0]           s_ctl_cqn,
    input  wire logic [63:0]                s_ctl_base,
    input  wire logic [4:0]                 s_ctl_log,
    input  wire logic [15:0]                s_ctl_vector,
    input  wire logic                       s_ctl_en,

    input  wire logic                       s_db_valid,
    output logic                            s_db_ready,
    input  wire logic [CQN_W-1:0]           s_db_cqn,
    input  wire logic [31:0]                s_db_value,   // [30:0] consumer index, [31] arm

    // a CQE write of this CQ was answered with an error (BRESP): the CQ enters ERR
    input  wire logic                       s_flt_valid,
    output logic                            s_flt_ready,
    input  wire logic [CQN_W-1:0]           s_flt_cqn,

    input  wire fabnic_roce_pkg::cqe_req_t  s_cqe [2],
    input  wire logic [1:0]                 s_cqe_valid,
    output logic      [1:0]                 s_cqe_ready,

    output logic      [63:0]                m_wr_addr,
    output logic      [CQN_W-1:0]           m_wr_cqn,     // the write's CQ (fault attribution)
    output logic      [31:0]                m_wr_len,
    output logic                            m_wr_valid,
    input  wire logic                       m_wr_ready,
    output logic      [DATA_W-1:0]          m_wr_tdata,
    output logic      [KEEP_W-1:0]          m_wr_tkeep,
    output logic                            m_wr_tvalid,
    input  wire logic                       m_wr_tready,
    output logic                            m_wr_tlast,

    output logic                            m_irq_valid,
    output logic      [15:0]                m_irq_vector,

    // the CQ entered the error state: kind 1 overrun, 2 CQE write error
    output logic                            m_ev_valid,
    output logic      [1:0]                 m_ev_kind,
    output logic      [CQN_W-1:0]           m_ev_cqn,

    output logic      [CNT_W-1:0]           cnt_cqe,
    output logic      [CNT_W-1:0]           cnt_cqe_err,
    output logic      [CNT_W-1:0]           cnt_overflow,
    output logic      [CNT_W-1:0]           cnt_err_drop,
    output logic      [CNT_W-1:0]           cnt_irq
);
  import fabnic_roce_pkg::*;

  if (DATA_W < 256 || KEEP_W != DATA_W / 8) begin : g_check_data_w
    $error("fabnic_roce_cq: DATA_W must be >= 256 (one 32-byte CQE per beat), KEEP_W = DATA_W/8");
  end
  if (NUM_CQ < 2 || CQN_W != $clog2(NUM_CQ) || CQN_W > 16) begin : g_check_cq
    $error("fabnic_roce_cq: NUM_CQ must be 2..65536 and CQN_W = $clog2(NUM_CQ)");
  end

  localparam bit PAIRS     = DATA_W >= 512;   // two CQEs in one beat
  localparam int JOB_DEPTH = 4;               // CQE jobs in the job FIFO (credits)
  localparam int JOB_SLOTS = 2 * JOB_DEPTH;   // FIFO entries: CQE jobs + one fault job
  localparam int CRED_W    = $clog2(JOB_DEPTH) + 1;

  // per-CQ context (one RAM word). used = pi - ci (the host's consumer index), kept
  // instead of ci so that the full checks are one compare; mask = size - 1.
  typedef struct packed {
    logic [63:0] base;
    logic [31:0] mask;
    logic [4:0]  lg;
    logic [15:0] vector;
    logic        en;
    logic [31:0] pi;
    logic [31:0] used;
    logic        arm;
    logic        err;      // error state (overrun or failed CQE write)
  } cq_t;

  typedef enum logic [1:0] { OP_CQE, OP_DB, OP_CTL, OP_FLT } op_e;

  // one write job (one CQE operation): written by C, read by the output stage
  typedef struct packed {
    logic        drop;     // nothing to write (ring full, CQ disabled or in error)
    logic        flt;      // a fault operation's job (its own credit, fcred_q)
    logic [CQN_W-1:0] cqn;
    logic        len64;    // c0 and c1 in one 64-byte write at addr0
    logic        split;    // c0 at addr0, then c1 at addr1 (the ring wrapped)
    logic [63:0] addr0;
    logic [63:0] addr1;
    logic        phase0;
    logic        phase1;
    logic        irq;      // interrupt after the first data beat (a dropped job: at once)
    logic [15:0] vector;
    logic        err0;     // c0 / c1 carry an error status (cnt_cqe_err)
    logic        err1;
    cqe_req_t    c0;
    cqe_req_t    c1;
  } job_t;

  // ------------------------------------------------------------------ input registers
  logic             ctl_v_q, db_v_q, flt_v_q;
  logic [CQN_W-1:0] ctl_cqn_q, db_cqn_q, flt_cqn_q;
  logic [63:0]      ctl_base_q;
  logic [4:0]       ctl_log_q;
  logic [15:0]      ctl_vec_q;
  logic             ctl_en_q;
  logic [31:0]      db_val_q;

  assign s_ctl_ready = !ctl_v_q;
  assign s_db_ready  = !db_v_q;
  assign s_flt_ready = !flt_v_q;

  // CQE sources: two held entries (e0 older) and the port
  logic [1:0] n_held [2];             // entries held, 0..2 (g_src[s].n_q)
  logic       vv0 [2], vv1 [2];       // head / second of the source present
  cqe_req_t   view0 [2], view1 [2];
  logic       pair [2];               // head and second for one CQ
  logic       haz_src [2];            // head's CQ is in stage 1
  logic [1:0] take_n [2];             // entries leaving the source this cycle

  // ------------------------------------------------------------------ stage registers
  logic             s1_v, c_v, w_v, p1_v;
  op_e              s1_op, c_op;
  logic [CQN_W-1:0] s1_cqn, c_cqn, w_cqn, p1_cqn;
  logic             s1_pair, c_pair;
  cqe_req_t         s1_c0, s1_c1, c_c0, c_c1;
  logic [63:0]      s1_base, c_base;
  logic [4:0]       s1_lg, c_lg;
  logic [15:0]      s1_vec, c_vec;
  logic             s1_en, c_en;
  logic [31:0]      s1_dbv, c_dbv;
  cq_t              c_st, w_st, p1_st, rd_data;
  logic [1:0]       w_ovf, w_edrop;

  // ------------------------------------------------------------------ stage 0: issue
  logic             rr_q;
  logic [CRED_W-1:0] cred_q;           // free job FIFO slots not reserved by an issue
  logic             pick_ctl, pick_flt, pick_db, pick_src;
  logic [CQN_W-1:0] cand_cqn;
  logic             issue, issue_cqe, job_pop;
  logic             cqe_gate, issue_ctl, issue_db, issue_flt;
  logic             fcred_q;            // the fault job's FIFO slot is free
  logic             head_v;             // job FIFO head (output stage)
  job_t             head;
  logic             sel [2], issue_src [2];

  for (genvar s = 0; s < 2; s++) begin : g_src
    logic [1:0] n_q;
    cqe_req_t   e0_q, e1_q;
    logic       in_fire;
    assign n_held[s]      = n_q;
    assign s_cqe_ready[s] = n_q != 2'd2;
    assign in_fire        = s_cqe_valid[s] && n_q != 2'd2;
    assign vv0[s]         = n_q != 2'd0 || s_cqe_valid[s];
    assign view0[s]       = (n_q != 2'd0) ? e0_q : s_cqe[s];
    assign vv1[s]         = n_q == 2'd2 || (n_q == 2'd1 && s_cqe_valid[s]);
    assign view1[s]       = (n_q == 2'd2) ? e1_q : s_cqe[s];
    assign pair[s]        = PAIRS && vv1[s]
                            && CQN_W'(view1[s].cqn) == CQN_W'(view0[s].cqn);
    // the head's CQ against stage 1: held entry and port compared apart, then chosen
    assign haz_src[s]     = s1_v && ((n_q != 2'd0) ? s1_cqn == CQN_W'(e0_q.cqn)
                                                   : s1_cqn == CQN_W'(s_cqe[s].cqn));
    assign take_n[s]      = issue_src[s] ? (pair[s] ? 2'd2 : 2'd1) : 2'd0;

    always_ff @(posedge clk) begin
      n_q  <= n_q + 2'(in_fire) - take_n[s];
      e0_q <= (take_n[s] == 2'd0) ? view0[s] : view1[s];
      e1_q <= view1[s];
      if (rst) n_q <= 2'd0;
    end
  end

  // The candidate and the RAM address do not depend on hazards; only the issue does.
  // A CQE source issues when it is the round-robin pick, no control write or doorbell
  // is held, a job slot is free and its head's CQ is not in stage 1 (per source, so
  // that the buffer updates see a short path).
  always_comb begin
    pick_ctl  = ctl_v_q;
    pick_flt  = !ctl_v_q && flt_v_q;
    pick_db   = !ctl_v_q && !flt_v_q && db_v_q;
    pick_src  = (vv0[0] && vv0[1]) ? rr_q : vv0[1];
    cand_cqn  = pick_ctl ? ctl_cqn_q : pick_flt ? flt_cqn_q : pick_db ? db_cqn_q :
                CQN_W'(view0[pick_src].cqn);
    sel[0]    = vv0[0] && (!vv0[1] || !rr_q);
    sel[1]    = vv0[1] && (!vv0[0] || rr_q);
    cqe_gate  = !ctl_v_q && !flt_v_q && !db_v_q && cred_q != '0;
    issue_ctl = ctl_v_q && !(s1_v && s1_cqn == ctl_cqn_q);
    issue_flt = !ctl_v_q && flt_v_q && fcred_q && !(s1_v && s1_cqn == flt_cqn_q);
    issue_db  = !ctl_v_q && !flt_v_q && db_v_q && !(s1_v && s1_cqn == db_cqn_q);
    issue_src[0] = cqe_gate && sel[0] && !haz_src[0];
    issue_src[1] = cqe_gate && sel[1] && !haz_src[1];
    issue_cqe = issue_src[0] || issue_src[1];
    issue     = issue_ctl || issue_flt || issue_db || issue_cqe;
  end

  // context RAM: read every cycle at the candidate (stage 1 uses it when s1_v)
  logic wr_en;
  fabnic_ram_sdp #(.DATA_W($bits(cq_t)), .DEPTH(NUM_CQ)) u_ctx (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr(w_cqn), .wr_data(w_st),
      .rd_en(1'b1), .rd_regce(1'b1), .rd_addr(cand_cqn), .rd_data
  );
  assign wr_en = w_v;

  always_ff @(posedge clk) begin
    if (s_ctl_valid && s_ctl_ready) begin
      ctl_v_q    <= 1'b1;
      ctl_cqn_q  <= s_ctl_cqn;
      ctl_base_q <= s_ctl_base;
      ctl_log_q  <= s_ctl_log;
      ctl_vec_q  <= s_ctl_vector;
      ctl_en_q   <= s_ctl_en;
    end else if (issue_ctl) begin
      ctl_v_q <= 1'b0;
    end
    if (s_flt_valid && s_flt_ready) begin
      flt_v_q   <= 1'b1;
      flt_cqn_q <= s_flt_cqn;
    end else if (issue_flt) begin
      flt_v_q <= 1'b0;
    end
    if (s_db_valid && s_db_ready) begin
      db_v_q   <= 1'b1;
      db_cqn_q <= s_db_cqn;
      db_val_q <= s_db_value;
    end else if (issue_db) begin
      db_v_q <= 1'b0;
    end
    if (issue_cqe) rr_q <= issue_src[0];
    cred_q  <= cred_q - CRED_W'(issue_cqe) + CRED_W'(job_pop && !head.flt);
    fcred_q <= (fcred_q && !issue_flt) || (job_pop && head.flt);

    // stage 1 (hazard-free candidate data; s1_v says whether it issued)
    s1_v    <= issue;
    s1_op   <= pick_ctl ? OP_CTL : pick_flt ? OP_FLT : pick_db ? OP_DB : OP_CQE;
    s1_cqn  <= cand_cqn;
    s1_pair <= pair[pick_src];
    s1_c0   <= view0[pick_src];
    s1_c1   <= view1[pick_src];
    s1_base <= ctl_base_q;
    s1_lg   <= ctl_log_q;
    s1_vec  <= ctl_vec_q;
    s1_en   <= ctl_en_q;
    s1_dbv  <= db_val_q;

    // stage 1 -> C: the context, newest first (W, then P1, then the RAM)
    c_v    <= s1_v;
    c_op   <= s1_op;
    c_cqn  <= s1_cqn;
    c_pair <= s1_pair;
    c_c0   <= s1_c0;
    c_c1   <= s1_c1;
    c_base <= s1_base;
    c_lg   <= s1_lg;
    c_vec  <= s1_vec;
    c_en   <= s1_en;
    c_dbv  <= s1_dbv;
    if (w_v && w_cqn == s1_cqn) c_st <= w_st;
    else if (p1_v && p1_cqn == s1_cqn) c_st <= p1_st;
    else c_st <= rd_data;

    if (rst) begin
      ctl_v_q <= 1'b0;
      flt_v_q <= 1'b0;
      db_v_q  <= 1'b0;
      rr_q    <= 1'b0;
      cred_q  <= CRED_W'(JOB_DEPTH);
      fcred_q <= 1'b1;
      s1_v    <= 1'b0;
      c_v     <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ stage C: decide
  cq_t        n_st;
  job_t       job;
  logic [1:0] n_ovf, n_edrop, n_cnt, n_ev;
  logic       ring1, ring2, full1, full2, acc1, acc2, wrap, live, overrun;
  always_comb begin
    // ring full for the first CQE (used >= size) and for the second (used + 1 >= size;
    // only asked when the first fits, so used <= mask and used + 1 cannot wrap)
    ring1   = c_st.used > c_st.mask;
    ring2   = c_st.used >= c_st.mask;
    live    = c_st.en && !c_st.err;
    full1   = !live || ring1;
    full2   = ring2;
    acc1    = !full1;
    acc2    = !full1 && c_pair && !full2;
    overrun = live && (ring1 || (c_pair && ring2));
    wrap    = (c_st.pi & c_st.mask) == c_st.mask;   // slot pi is the ring's last
    n_cnt   = c_pair ? 2'd2 : 2'd1;                 // CQEs of the operation

    n_st    = c_st;
    n_ovf   = 2'd0;
    n_edrop = 2'd0;
    n_ev    = 2'd0;
    unique case (c_op)
      // control write: a fresh context (pi = ci = 0, disarmed)
      OP_CTL: begin
        n_st        = '0;          // also leaves the error state
        n_st.base   = c_base;
        n_st.lg     = c_lg;
        n_st.mask   = (32'd1 << c_lg) - 32'd1;
        n_st.vector = c_vec;
        n_st.en     = c_en;
      end
      // doorbell: consumer index (used = pi - ci), arm is sticky until the next CQE
      OP_DB: begin
        n_st.used = c_st.pi - {1'b0, c_dbv[30:0]};
        n_st.arm  = c_st.arm || c_dbv[31];
      end
      // failed CQE write: an enabled CQ enters the error state (one event)
      OP_FLT: begin
        n_st.err = c_st.err || c_st.en;
        n_ev     = live ? 2'd2 : 2'd0;
      end
      // CQE or pair: pi and used advance by the CQEs written, the arm clears; a CQE
      // that does not fit is an overrun (error state, one event)
      default: begin
        n_st.pi   = acc2 ? c_st.pi + 32'd2 : acc1 ? c_st.pi + 32'd1 : c_st.pi;
        n_st.used = acc2 ? c_st.used + 32'd2 : acc1 ? c_st.used + 32'd1 : c_st.used;
        n_st.arm  = c_st.arm && !acc1;
        n_st.err  = c_st.err || overrun;
        n_ev      = overrun ? 2'd1 : 2'd0;
        n_ovf     = !c_st.en ? n_cnt : c_st.err ? 2'd0 : ring1 ? n_cnt : 2'(c_pair && ring2);
        n_edrop   = (c_st.en && c_st.err) ? n_cnt : 2'd0;
      end
    endcase

    job.drop   = full1 || c_op == OP_FLT;
    job.flt    = c_op == OP_FLT;
    job.cqn    = c_cqn;
    job.len64  = acc2 && !wrap;
    job.split  = acc2 && wrap;
    job.addr0  = c_st.base + {27'd0, c_st.pi & c_st.mask, 5'd0};
    job.addr1  = c_st.base;
    job.phase0 = !c_st.pi[c_st.lg];
    job.phase1 = wrap ? c_st.pi[c_st.lg] : !c_st.pi[c_st.lg];
    job.irq    = (c_st.arm && acc1) || n_ev != 2'd0;
    job.vector = c_st.vector;
    job.err0   = c_c0.status != WS_SUCCESS;
    job.err1   = c_c1.status != WS_SUCCESS;
    job.c0     = c_c0;
    job.c1     = c_c1;
  end

  always_ff @(posedge clk) begin
    w_v    <= c_v;
    w_cqn  <= c_cqn;
    w_st   <= n_st;
    w_ovf  <= c_v ? n_ovf : 2'd0;
    w_edrop <= c_v ? n_edrop : 2'd0;
    m_ev_valid <= c_v && n_ev != 2'd0;
    m_ev_kind  <= n_ev;
    m_ev_cqn   <= c_cqn;
    p1_v   <= w_v;
    p1_cqn <= w_cqn;
    p1_st  <= w_st;
    cnt_overflow <= cnt_overflow + CNT_W'(w_ovf);
    cnt_err_drop <= cnt_err_drop + CNT_W'(w_edrop);
    if (rst) begin
      w_v          <= 1'b0;
      p1_v         <= 1'b0;
      w_ovf        <= 2'd0;
      w_edrop      <= 2'd0;
      m_ev_valid   <= 1'b0;
      cnt_overflow <= '0;
      cnt_err_drop <= '0;
    end
  end

  // ------------------------------------------------------------------ job FIFO
  logic push, push_ready;
  logic [$clog2(JOB_SLOTS):0] unused_job_cnt;
  assign push = c_v && (c_op == OP_CQE || c_op == OP_FLT);
  fabnic_fifo #(.WIDTH($bits(job_t)), .DEPTH(JOB_SLOTS)) u_jobs (
      .clk, .rst,
      .in_valid(push), .in_ready(push_ready), .in_data(job),
      .out_valid(head_v), .out_ready(job_pop), .out_data(head),
      .status_count(unused_job_cnt)
  );

  // ------------------------------------------------------------------ output FSM
  typedef enum logic { O_DESC, O_DATA } ost_e;
  ost_e ost_q, ost_d;
  logic half_q;       // the second write of a split job
  logic desc_fire, beat_fire, last_write, drop_pop;

  assign desc_fire  = m_wr_valid && m_wr_ready;
  assign beat_fire  = m_wr_tvalid && m_wr_tready;
  assign last_write = !head.split || half_q;
  assign drop_pop   = ost_q == O_DESC && head_v && head.drop;
  assign job_pop    = drop_pop || (beat_fire && last_write);

  always_comb begin
    ost_d = ost_q;
    unique case (ost_q)
      // a job at the FIFO head: its descriptor (a dropped job leaves without one)
      O_DESC: if (desc_fire) ost_d = O_DATA;
      // the descriptor's one data beat
      O_DATA: if (m_wr_tready) ost_d = O_DESC;
      default: ost_d = O_DESC;
    endcase
  end

  always_ff @(posedge clk) begin
    ost_q <= ost_d;
    if (rst) ost_q <= O_DESC;
  end

  logic [255:0] enc0, enc1;
  assign enc0 = cqe_encode(half_q ? head.c1 : head.c0, half_q ? head.phase1 : head.phase0);
  assign enc1 = cqe_encode(head.c1, head.phase0);

  assign m_wr_valid  = ost_q == O_DESC && head_v && !head.drop;
  assign m_wr_addr   = half_q ? head.addr1 : head.addr0;
  assign m_wr_cqn    = head.cqn;
  assign m_wr_len    = head.len64 ? 32'd64 : 32'd32;
  assign m_wr_tvalid = ost_q == O_DATA;
  assign m_wr_tlast  = 1'b1;
  if (PAIRS) begin : g_pair_data
    assign m_wr_tdata = head.len64 ? DATA_W'({enc1, enc0}) : DATA_W'(enc0);
    assign m_wr_tkeep = head.len64 ? KEEP_W'({64{1'b1}}) : KEEP_W'({32{1'b1}});
  end else begin : g_single_data
    assign m_wr_tdata = DATA_W'(enc0);
    assign m_wr_tkeep = KEEP_W'({32{1'b1}});
    logic unused_enc1;
    assign unused_enc1 = ^enc1;
  end

  always_ff @(posedge clk) begin
    // a written job's interrupt after its first data beat, a dropped job's (the error
    // state entered) when it leaves the FIFO
    m_irq_valid <= ((beat_fire && !half_q) || drop_pop) && head.irq;
    cnt_irq     <= cnt_irq + CNT_W'(((beat_fire && !half_q) || drop_pop) && head.irq);
    if (beat_fire || drop_pop) m_irq_vector <= head.vector;
    if (beat_fire) begin
      half_q       <= head.split && !half_q;
      cnt_cqe      <= cnt_cqe + (head.len64 ? CNT_W'(2) : CNT_W'(1));
      cnt_cqe_err  <= cnt_cqe_err + CNT_W'(half_q ? head.err1 : head.err0)
                      + CNT_W'(head.len64 && head.err1);
    end
    if (rst) begin
      half_q      <= 1'b0;
      m_irq_valid <= 1'b0;
      cnt_irq     <= '0;
      cnt_cqe     <= '0;
      cnt_cqe_err <= '0;
    end
  end

  // ------------------------------------------------------------------ assertions
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (ost_q == O_DESC || ost_q == O_DATA)
        else $error("fabnic_roce_cq: illegal output state");
      assert (!push || push_ready)
        else $error("fabnic_roce_cq: job FIFO overflow (credit bug)");
      assert (!(push && c_op == OP_FLT && fcred_q))
        else $error("fabnic_roce_cq: fault job pushed without its slot");
      assert (cred_q <= CRED_W'(JOB_DEPTH))
        else $error("fabnic_roce_cq: credit counter above the FIFO depth");
      assert (!(s1_v && c_v && s1_cqn == c_cqn))
        else $error("fabnic_roce_cq: two operations on CQ %0d in stages 1 and C", s1_cqn);
      assert (n_held[0] != 2'd3 && n_held[1] != 2'd3)
        else $error("fabnic_roce_cq: CQE input buffer overflow");
      assert (!(ost_q == O_DATA && !head_v))
        else $error("fabnic_roce_cq: data beat without a job");
      assert (!(half_q && !head.split))
        else $error("fabnic_roce_cq: second write of a job that is not split");
    end
  end
`endif

endmodule

`resetall
