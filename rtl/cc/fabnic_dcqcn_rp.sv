// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dcqcn_rp: DCQCN reaction point for NUM_QP queue pairs (docs/cc.md).
//
// All per-QP state (Rc, Rt, alpha, timer/byte stage counts, byte counter, the
// timestamps of the last alpha update and of the last rate-increase timer
// event, enable) lives in one simple dual-port RAM and is updated by ONE shared
// pipelined read-modify-write engine, so the logic does not grow with NUM_QP.
// The equations are applied one step per stage (the stage list is above the
// stage logic, "the stages"); each stage is one register-to-register cycle:
//
//   S0 issue (RAM read) -> S1 time differences -> S2 timers due -> S3..S(2+ALPHA_STEPS)
//   one alpha decay each, in parallel S3..S11 the timer and byte-counter increases ->
//   SJ replay, CNP decay -> SM Rc x alpha (DSP) -> SC CNP cut -> NSTG new state, RAM
//   write, rate update, read response.  (NSTG = 16 stages with the defaults)
//
// Hazard rule (stall): an op is not issued while an op for the same QP is in
// stages 1..NSTG; the RAM write at the end of NSTG is visible to a read issued in
// the next cycle. Same-QP ops are therefore NSTG+1 = 17 cycles apart; ops on other
// QPs issue one per cycle. The compares are registered one cycle ahead (issue sees
// flops only; fabnic_cc_match builds the compare trees): an event that has just
// reached the head register waits one cycle.
//
// Events (QP init, CNP, bytes sent, state read) are stamped with the free-running
// cycle counter when accepted and queued in one FIFO (one event per cycle, fixed
// priority init > cnp > tx > rd; FIFO full -> ready low on every input). The
// engine processes them in stamp order and, for each, first applies the timer
// events that fell due at or before the stamp (tie: timer first). Timers need no
// per-QP counters: a background sweep visits every QP, once per NUM_QP sweep ops in
// the order k * SWEEP_STEP mod NUM_QP (a golden-ratio step coprime with NUM_QP, so
// that its ops in flight are scattered and strided or sequential event streams do
// not run into them; contested issue slots alternate between events and the sweep),
// and applies due alpha-decay / rate-increase events at a "safe now" (the stamp of
// the last event written back while events are pending, else the current time). An
// op applies up to ALPHA_STEPS due alpha decays (each with the single-step rounding,
// so any grouping of the periods gives the same alpha) and at most one rate-timer
// event; if more are due at an event, the op applies only the timers and is
// replayed (cnt_catchup), so the order is exact whatever the sweep speed. Rates: Mb/s with RATE_FRAC fraction bits;
// alpha: ALPHA_FRAC fraction bits (1.0 = 2**ALPHA_FRAC); periods in clock cycles;
// 0 disables a timer. Configuration inputs are registered (a change applies one
// cycle later).
//
// Latency: an event accepted in cycle c reaches the head register at c+1, issues at
// c+3 at the earliest and is written at the end of c+3+NSTG; its read response is
// visible in cycle c+4+NSTG (20 with the defaults), its rate update (one register
// before the update FIFO) in c+5+NSTG.
// Handshakes: *_ready depend on the other ports' valid (priority) and a flop (the event
// FIFO's registered "not full");
// upd_valid and rd_rsp_* come from flops/FIFO storage.
`default_nettype none

module fabnic_dcqcn_rp #(
    parameter int NUM_QP     = 1024,
    parameter int QPN_W      = $clog2(NUM_QP),
    parameter int RATE_W     = 32,   // Mb/s * 2**RATE_FRAC (RATE_FRAC is a docs convention: 12)
    parameter int ALPHA_FRAC = 20,
    parameter int STAGE_W    = 8,    // timer / byte-counter stage counts (saturating)
    parameter int BC_W       = 32,   // byte counter
    parameter int LEN_W      = 16,   // bytes per bytes-sent event
    parameter int TS_W       = 32,   // timestamps, cycles (periods must be < 2**(TS_W-2))
    parameter int EVT_DEPTH  = 16,
    parameter int UPD_DEPTH  = 32,   // power of two, >= NSTG + 8 (24 with the defaults)
    parameter int ALPHA_STEPS = 10,  // alpha decays one op can apply (one per stage)
    parameter int CNT_W      = 32
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // configuration (static or changed between experiments)
    input  wire logic [4:0]            cfg_g_shift,       // g = 2**-cfg_g_shift
    input  wire logic [TS_W-1:0]       cfg_alpha_period,  // cycles, 0 = no alpha decay
    input  wire logic [TS_W-1:0]       cfg_timer_period,  // cycles, 0 = no timer increase
    input  wire logic [BC_W-1:0]       cfg_byte_counter,  // bytes,  0 = no byte-counter increase
    input  wire logic [STAGE_W-1:0]    cfg_f,             // fast-recovery steps F
    input  wire logic [RATE_W-1:0]     cfg_rate_ai,
    input  wire logic [RATE_W-1:0]     cfg_rate_hai,
    input  wire logic [RATE_W-1:0]     cfg_rate_min,
    input  wire logic [RATE_W-1:0]     cfg_rate_line,
    input  wire logic [RATE_W-1:0]     cfg_rate_init,
    input  wire logic                  cfg_clamp_tgt,     // 1: Rt = Rc at every CNP (paper);
                                                          // 0: only after a timer increase (Mellanox/ns-3)

    // QP init: resets the QP's state (Rc = Rt = init rate, alpha = 1), sets enable
    input  wire logic                  init_valid,
    output logic                       init_ready,
    input  wire logic [QPN_W-1:0]      init_qpn,
    input  wire logic                  init_enable,

    // CNP received for a QP
    input  wire logic                  cnp_valid,
    output logic                       cnp_ready,
    input  wire logic [QPN_W-1:0]      cnp_qpn,

    // bytes sent by the TX scheduler
    input  wire logic                  tx_valid,
    output logic                       tx_ready,
    input  wire logic [QPN_W-1:0]      tx_qpn,
    input  wire logic [LEN_W-1:0]      tx_bytes,

    // state read (ordered with the events; timers caught up to the request time)
    input  wire logic                  rd_valid,
    output logic                       rd_ready,
    input  wire logic [QPN_W-1:0]      rd_qpn,
    output logic                       rd_rsp_valid,      // one-cycle pulse, no back-pressure
    output logic [QPN_W-1:0]           rd_rsp_qpn,
    output logic                       rd_rsp_enable,
    output logic [RATE_W-1:0]          rd_rsp_rc,
    output logic [RATE_W-1:0]          rd_rsp_rt,
    output logic [ALPHA_FRAC:0]        rd_rsp_alpha,

    // rate updates toward the rate limiter (Rc changed, or QP init)
    output logic                       upd_valid,
    input  wire logic                  upd_ready,
    output logic [QPN_W-1:0]           upd_qpn,
    output logic [RATE_W-1:0]          upd_rate,
    output logic                       upd_init,

    output logic [TS_W-1:0]            status_time,       // event stamps come from this
    output logic                       status_busy,       // clearing the state RAM after reset
    output logic [CNT_W-1:0]           cnt_cnp,           // CNP events processed
    output logic [CNT_W-1:0]           cnt_cnp_ignored,   // ... of which for a disabled QP
    output logic [CNT_W-1:0]           cnt_decrease,      // rate cuts applied
    output logic [CNT_W-1:0]           cnt_increase,      // timer + byte-counter increase events
    output logic [CNT_W-1:0]           cnt_catchup        // ops replayed to catch up timers
);


  localparam int AF     = ALPHA_FRAC;
  localparam int CW     = AF + 2;               // alpha - 1, signed (the decay domain)
  // stage numbers (stage 0 issues; the RAM word arrives in stage 1)
  localparam int S_DUE  = 2;                    // timers due
  localparam int S_CNT  = 3;                    // stage counts, next timestamps
  localparam int S_HL   = 4;                    // hi/lo stage counts per event
  localparam int S_MODE = 5;                    // fast / additive / hyper, i = lo - F
  localparam int S_HAI  = 6;                    // i x R_HAI (DSP)
  localparam int S_INC  = 7;                    // Rt increase per event
  localparam int S_RTA  = 8;                    // timer event: Rt
  localparam int S_RCA  = 9;                    // timer event: Rc
  localparam int S_RTB  = 10;                   // byte event: Rt
  localparam int S_RCB  = 11;                   // byte event: Rc
  localparam int S_DEC0 = 3;                    // first alpha-decay stage
  localparam int S_DECL = S_DEC0 + ALPHA_STEPS - 1;  // last alpha-decay stage
  localparam int SJ     = (S_DECL + 1 > S_RCB + 1) ? S_DECL + 1 : S_RCB + 1;  // join
  localparam int SM     = SJ + 1;               // Rc x alpha multiply
  localparam int SC     = SJ + 2;               // rate cut
  localparam int NSTG   = SJ + 3;               // write-back (16 with the defaults)
  localparam int UPD_CW = $clog2(UPD_DEPTH) + 1;
  localparam int EVT_CW = $clog2(EVT_DEPTH) + 1;
  localparam int MW     = TS_W + 5;             // width of the multiples k * alpha period
  localparam int IW     = RATE_W + STAGE_W + 1; // Rt + increase before the line clamp
  localparam int HH     = RATE_W / 2;           // multiplier split of R_HAI and of Rc

  // The sweep's step: the integer nearest NUM_QP * 0.618 (golden ratio) that is coprime
  // with NUM_QP, so that QP (k * SWEEP_STEP) mod NUM_QP, k = 0..NUM_QP-1, visits every QP
  // once per NUM_QP sweep ops and the ops in flight are scattered over the QP space.
  function automatic int gcd(input int x, input int y);
    int a, b, t;
    a = x;
    b = y;
    while (b != 0) begin
      t = a % b;
      a = b;
      b = t;
    end
    return a;
  endfunction
  function automatic int sweep_step(input int n);
    int base, s, best;
    base = int'((longint'(n) * 40503 + 32768) >>> 16);   // 40503 / 2**16 = 0.61803
    best = 0;
    // nearest first, below before above (a coprime neighbour is always within a few
    // steps for the QP counts this block takes; 1 if none within 64)
    for (int d = 0; d < 64; d++) begin
      s = base - d;
      if (best == 0 && s >= 1 && s < n && gcd(n, s) == 1) best = s;
      s = base + d;
      if (best == 0 && s >= 1 && s < n && gcd(n, s) == 1) best = s;
    end
    return (best == 0) ? 1 : best;
  endfunction
  localparam int SWEEP_STEP = sweep_step(NUM_QP);

  if (NUM_QP < 2 || QPN_W < $clog2(NUM_QP)) begin : g_check_qp
    $error("fabnic_dcqcn_rp: NUM_QP must be >= 2 and fit in QPN_W");
  end
  if (UPD_DEPTH < NSTG + 8) begin : g_check_upd
    $error("fabnic_dcqcn_rp: UPD_DEPTH must be >= pipeline stages + 8 (24 with the defaults)");
  end
  if (AF < 10 || AF > 30) begin : g_check_alpha
    $error("fabnic_dcqcn_rp: ALPHA_FRAC must be 10..30");
  end
  if (ALPHA_STEPS < 2 || ALPHA_STEPS > 30) begin : g_check_steps
    $error("fabnic_dcqcn_rp: ALPHA_STEPS must be 2..30");
  end
  if (RATE_W % 2 != 0 || HH > 17 || AF + 1 > 26 || STAGE_W > 17) begin : g_check_dsp
    $error("fabnic_dcqcn_rp: RATE_W must be even and <= 34, ALPHA_FRAC <= 25, STAGE_W <= 17");
  end

  typedef enum logic [2:0] {
    OP_INIT  = 3'd0,
    OP_CNP   = 3'd1,
    OP_TX    = 3'd2,
    OP_RD    = 3'd3,
    OP_SWEEP = 3'd4
  } op_kind_e;

  typedef struct packed {
    logic [2:0]       kind;
    logic [QPN_W-1:0] qpn;
    logic [LEN_W-1:0] arg;   // tx bytes, or init enable in bit 0
    logic [TS_W-1:0]  now;   // event stamp, or the sweep's safe now
  } op_t;

  typedef struct packed {
    logic               en;
    logic [RATE_W-1:0]  rc;
    logic [RATE_W-1:0]  rt;
    logic [AF:0]        alpha;
    logic [STAGE_W-1:0] ts;
    logic [STAGE_W-1:0] bs;
    logic [BC_W-1:0]    bytes;
    logic [TS_W-1:0]    t_alpha;
    logic [TS_W-1:0]    t_rate;
  } qp_state_t;

  // One op's work as it walks the pipeline: the op, the state as read, and the values
  // the stages derive from it. Every stage register holds the whole record; fields a
  // later stage does not read are removed by synthesis.
  typedef struct packed {
    op_t                op;
    qp_state_t          st;        // as read from the RAM
    // S1: differences; S2: timers due, byte counter
    logic [TS_W-1:0]    da, dr;    // now - t_alpha, now - t_rate
    logic [ALPHA_STEPS:0] adue;    // adue[k]: at least k+1 alpha periods due
    logic               rdue;      // a rate-increase timer event is due (enabled, not init)
    logic               rdue2;     // two or more are due
    logic               bdue;      // tx op crosses the byte counter (before the replay check)
    logic               btx;       // tx op counts bytes (enabled QP, counter on)
    logic [BC_W:0]      b1;        // byte counter + tx bytes
    logic               upd;       // timers apply (enabled QP, not init)
    // S2
    logic [STAGE_W-1:0] ts1;       // timer stage after the timer event
    logic [STAGE_W-1:0] bs1;       // byte stage after the byte event
    logic [BC_W-1:0]    bytes_b;   // byte counter after the tx event
    logic [TS_W-1:0]    t_rate_step;
    logic [TS_W-1:0]    t_alpha_step;
    // S3, S4: increase kind of the timer event (_t) and of the byte event (_b)
    logic [STAGE_W-1:0] hi_t, lo_t, hi_b, lo_b;
    logic               fast_t, add_t, fast_b, add_b;
    logic [STAGE_W-1:0] i_t, i_b;  // hyper-increase step numbers
    // S5: i x R_HAI (two DSPs each)
    logic [STAGE_W+HH-1:0] pt_lo, pt_hi, pb_lo, pb_hi;
    // S6..S10: the two increases
    logic [IW-1:0]      inc_t, inc_b;
    logic [RATE_W-1:0]  rt_a, rc_a;  // after the timer event
    logic [RATE_W-1:0]  rt_b, rc_b;  // after the byte event too
    logic               rta_line;    // Rt after the timer event is the line rate
    logic               r_snap;      // the timer event left Rc = Rt = line: restart the timer
    logic [TS_W-1:0]    t_rate_n;
    // decay stages: alpha - 1 after the due decays
    logic signed [CW-1:0] c;
    // SJ: alpha known, replay decided
    logic [AF:0]        a_n;         // alpha after the due decays
    logic               replay;
    logic [TS_W-1:0]    t_alpha_n;
    logic signed [CW-1:0] c_cnp;     // CNP: decay(alpha) - 1
    logic [RATE_W:0]    rcm;         // Rc - R_min (33-bit signed) for the cut clamp
    logic               ne_a, ne_b;  // Rc after the timer / byte event differs from Rc read
    // SM: Rc x alpha, CNP alpha
    logic [AF+HH:0]     pc_lo, pc_hi;
    logic [AF:0]        a_cnp;
    // SC: cut
    logic [RATE_W-1:0]  rc_cut;
  } work_t;

  localparam int SW = $bits(qp_state_t);
  localparam int OW = $bits(op_t);

  // ---------------------------------------------------------------- helpers
  // one alpha decay on c = alpha - 1, if due: alpha - ceil(alpha * 2**-g) - 1
  // = c - floor(c * 2**-g) - 1 = c + ~(c >>> g); c = -1 (alpha = 0) stays -1.
  // The due bit folds into the adder's input LUTs.
  function automatic logic [CW-1:0] decay_c(input logic [CW-1:0] c, input logic [4:0] g,
                                            input logic due);
    logic signed [CW-1:0] sh;
    sh = $signed(c) >>> g;
    return c + (~sh & {CW{due}});
  endfunction

  function automatic logic [STAGE_W-1:0] sat_inc(input logic [STAGE_W-1:0] v);
    return (&v) ? v : v + 1'b1;
  endfunction

  // ---------------------------------------------------------------- configuration
  // registered once: a change takes effect one cycle later
  logic [4:0]         g_q;
  logic [TS_W-1:0]    tper_q;
  logic [BC_W-1:0]    bc_q;
  logic [STAGE_W-1:0] f_q;
  logic [RATE_W-1:0]  ai_q, hai_q, rmin_q, line_q, rinit_q;
  logic               clamp_q, aper_nz_q, tper_nz_q, bc_nz_q, line_lt_min_q;
  logic [AF:0]        gterm1_q;   // 2**AF * g + 1 (CNP alpha increase, with the +1 of the domain)
  logic [MW-1:0]      amul_q [ALPHA_STEPS+1];  // amul_q[k-1] = k * alpha period

  always_ff @(posedge clk) begin
    g_q           <= cfg_g_shift;
    tper_q        <= cfg_timer_period;
    bc_q          <= cfg_byte_counter;
    f_q           <= cfg_f;
    ai_q          <= cfg_rate_ai;
    hai_q         <= cfg_rate_hai;
    rmin_q        <= cfg_rate_min;
    line_q        <= cfg_rate_line;
    rinit_q       <= cfg_rate_init;
    clamp_q       <= cfg_clamp_tgt;
    aper_nz_q     <= cfg_alpha_period != '0;
    tper_nz_q     <= cfg_timer_period != '0;
    bc_nz_q       <= cfg_byte_counter != '0;
    line_lt_min_q <= cfg_rate_line < cfg_rate_min;
    gterm1_q      <= ((((AF+1)'(1)) << AF) >> cfg_g_shift) + (AF+1)'(1);
    for (int k = 1; k <= ALPHA_STEPS + 1; k++) amul_q[k-1] <= MW'(cfg_alpha_period) * MW'(k);
  end

  // ---------------------------------------------------------------- time, clear
  logic [TS_W-1:0]  now_q;
  logic             clr_q;
  logic [QPN_W-1:0] clr_addr_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      now_q      <= '0;
      clr_q      <= 1'b1;
      clr_addr_q <= '0;
    end else begin
      now_q <= now_q + 1'b1;
      if (clr_q) begin
        clr_addr_q <= clr_addr_q + 1'b1;
        if (clr_addr_q == QPN_W'(NUM_QP - 1)) clr_q <= 1'b0;
      end
    end
  end
  assign status_time = now_q;
  assign status_busy = clr_q;

  // ---------------------------------------------------------------- event FIFO, head register
  op_t evt_in, evt_out;
  logic evt_in_valid, evt_in_ready, evt_out_valid, evt_out_ready;
  logic evt_rdy_q, evt_push, evt_pop, evt_fifo_ready;
  logic [EVT_CW-1:0] evt_count;

  always_comb begin
    evt_in     = '0;
    evt_in.now = now_q;
    if (init_valid) begin
      evt_in.kind = OP_INIT; evt_in.qpn = init_qpn; evt_in.arg = LEN_W'(init_enable);
    end else if (cnp_valid) begin
      evt_in.kind = OP_CNP;  evt_in.qpn = cnp_qpn;
    end else if (tx_valid) begin
      evt_in.kind = OP_TX;   evt_in.qpn = tx_qpn;  evt_in.arg = tx_bytes;
    end else begin
      evt_in.kind = OP_RD;   evt_in.qpn = rd_qpn;
    end
  end
  assign evt_in_valid = !clr_q && (init_valid || cnp_valid || tx_valid || rd_valid);
  assign evt_in_ready = evt_rdy_q;
  assign init_ready   = !clr_q && evt_in_ready;
  assign cnp_ready    = !clr_q && evt_in_ready && !init_valid;
  assign tx_ready     = !clr_q && evt_in_ready && !init_valid && !cnp_valid;
  assign rd_ready     = !clr_q && evt_in_ready && !init_valid && !cnp_valid && !tx_valid;

  // The FIFO's "not full" as a flop, so the inputs' ready paths start at flops: set
  // when the FIFO pops or holds fewer than EVT_DEPTH - 1 events, so a push in the next
  // cycle always has room. It does not look at this cycle's push (that would put the
  // inputs' valid paths in front of it): with EVT_DEPTH - 1 events, no push and no
  // pop, the last slot waits for the next pop.
  assign evt_push = evt_in_valid && evt_rdy_q;
  assign evt_pop  = evt_out_valid && evt_out_ready;
  always_ff @(posedge clk) begin
    evt_rdy_q <= evt_pop || evt_count < EVT_CW'(EVT_DEPTH - 1);
    if (rst) evt_rdy_q <= 1'b1;   // empty
  end

  fabnic_fifo #(.WIDTH(OW), .DEPTH(EVT_DEPTH)) u_evt_fifo (
    .clk, .rst,
    .in_valid(evt_push), .in_ready(evt_fifo_ready), .in_data(evt_in),
    .out_valid(evt_out_valid), .out_ready(evt_out_ready), .out_data(evt_out),
    .status_count(evt_count)
  );

  // ---------------------------------------------------------------- pipeline registers
  logic [NSTG:1] v_q;              // stage s holds an op
  logic [NSTG:1] ev_v_q;           // ... an event op (not a sweep op)
  work_t [NSTG:1] w_q;             // stage s registers
  work_t [NSTG:1] w_d;             // stage s results (loaded into stage s+1)

  // ---------------------------------------------------------------- issue (S0) and hazards
  // Candidates: the replayed op, the event at the head register, the sweep's QP.
  // Hazard rule (stall): an op is not issued while an op for the same QP is in
  // stages 1..NSTG. The compares are registered one cycle ahead: at each edge each
  // candidate of the next cycle is compared with the ops that will then be in
  // stages 1..NSTG (the op issuing now and stages 1..NSTG-1), so the issue decision
  // reads flops only.
  //   event head: loaded from the FIFO; a newly loaded head waits one cycle (its
  //     compare is made in that cycle);
  //   sweep: both its QP and the next QP are compared (either is the candidate);
  //   replay: never has a hazard (no other op of its QP can be in flight).
  logic             hd_v_q, hd_new_q;
  op_t              hd_q;
  logic             hz_hd_q, hz_sw_q;
  logic             replay_q;
  op_t              replay_op_q;
  logic [QPN_W-1:0] sweep_qpn_q, sweep_nxt_q;   // sweep QP and the one after it
  logic             sweep_turn_q;   // 1: the sweep has the next contested slot
  logic             space_ok_q;     // the update FIFO has room for every op in flight
  logic [UPD_CW-1:0] upd_count;
  logic [TS_W-1:0]  last_done_q;    // stamp of the last event op written back, or the
                                    // last cycle with no event pending
  logic             ev_inflight;    // an event op is in a stage, queued or to be replayed
  // The sweep's now: no later than any event still to be processed. Events are
  // processed in stamp order, so while one is pending the stamp of the last one
  // written back is a safe bound; else the current time. Registered: one cycle old,
  // which is still safe (an event accepted in that cycle has a stamp >= now - 1, and
  // a timer due at the same cycle goes first).
  logic [TS_W-1:0]  safe_now_q;

  // the sweep QP after q: (q + SWEEP_STEP) mod NUM_QP (two constant adders and a mux)
  function automatic logic [QPN_W-1:0] sweep_adv(input logic [QPN_W-1:0] q);
    return (q >= QPN_W'(NUM_QP - SWEEP_STEP)) ? q - QPN_W'(NUM_QP - SWEEP_STEP)
                                              : q + QPN_W'(SWEEP_STEP);
  endfunction

  logic rp_ok, ev_ok, sw_ok, issue_rp, issue_ev, issue_sw, issue, hd_load;
  op_t  issue_op;

  assign rp_ok    = replay_q && space_ok_q;
  assign ev_ok    = !clr_q && !replay_q && hd_v_q && !hd_new_q && !hz_hd_q && space_ok_q;
  assign sw_ok    = !clr_q && !replay_q && !hz_sw_q && space_ok_q;
  assign issue_rp = rp_ok;
  assign issue_ev = ev_ok && (!sw_ok || !sweep_turn_q);
  assign issue_sw = sw_ok && !issue_ev;
  assign issue    = issue_rp || issue_ev || issue_sw;
  assign hd_load  = evt_out_valid && (!hd_v_q || issue_ev);
  assign evt_out_ready = hd_load;

  assign ev_inflight = hd_v_q || evt_out_valid || replay_q || (|ev_v_q);

  always_comb begin
    issue_op = hd_q;
    if (issue_rp) begin
      issue_op = replay_op_q;
    end else if (issue_sw) begin
      issue_op      = '0;
      issue_op.kind = OP_SWEEP;
      issue_op.qpn  = sweep_qpn_q;
      issue_op.now  = safe_now_q;
    end
  end

  // hazards of the next cycle's candidates (fabnic_cc_match: balanced compare trees)
  logic hz_hd_d, hz_sw_cur_d, hz_sw_nxt_d;
  logic [NSTG-1:1] stg_v;
  logic [(NSTG-1)*QPN_W-1:0] stg_qpn;
  logic any_hd, any_cur, any_nxt, eq_sw_hd, eq_rp_hd, eq_hd_nxt, eq_rp_cur, eq_rp_nxt;
  always_comb begin
    for (int s = 1; s < NSTG; s++) begin
      stg_v[s] = v_q[s];
      stg_qpn[(s-1)*QPN_W +: QPN_W] = w_q[s].op.qpn;
    end
  end

  fabnic_cc_match #(.W(QPN_W), .N(NSTG - 1)) u_hz_hd (
    .key(hd_q.qpn), .valid(stg_v), .entries(stg_qpn), .hit(), .any(any_hd));
  fabnic_cc_match #(.W(QPN_W), .N(NSTG - 1)) u_hz_cur (
    .key(sweep_qpn_q), .valid(stg_v), .entries(stg_qpn), .hit(), .any(any_cur));
  fabnic_cc_match #(.W(QPN_W), .N(NSTG - 1)) u_hz_nxt (
    .key(sweep_nxt_q), .valid(stg_v), .entries(stg_qpn), .hit(), .any(any_nxt));
  // the candidates against each other (the op issuing now enters stage 1)
  fabnic_cc_match #(.W(QPN_W), .N(2)) u_hz_hd_iss (
    .key(hd_q.qpn), .valid(2'b11), .entries({replay_op_q.qpn, sweep_qpn_q}),
    .hit({eq_rp_hd, eq_sw_hd}), .any());
  fabnic_cc_match #(.W(QPN_W), .N(2)) u_hz_nxt_iss (
    .key(sweep_nxt_q), .valid(2'b11), .entries({replay_op_q.qpn, hd_q.qpn}),
    .hit({eq_rp_nxt, eq_hd_nxt}), .any());
  fabnic_cc_match #(.W(QPN_W), .N(1)) u_hz_cur_iss (
    .key(sweep_qpn_q), .valid(1'b1), .entries(replay_op_q.qpn), .hit(eq_rp_cur), .any());

  always_comb begin
    hz_hd_d     = any_hd || (issue_sw && eq_sw_hd) || (issue_rp && eq_rp_hd);
    hz_sw_cur_d = any_cur || (issue_ev && eq_sw_hd) || (issue_rp && eq_rp_cur);
    hz_sw_nxt_d = any_nxt || (issue_ev && eq_hd_nxt) || (issue_rp && eq_rp_nxt);
  end

  always_ff @(posedge clk) begin
    if (hd_load) hd_q <= evt_out;
    hd_v_q   <= hd_load || (hd_v_q && !issue_ev);
    hd_new_q <= hd_load;
    hz_hd_q  <= hz_hd_d;
    hz_sw_q  <= issue_sw ? hz_sw_nxt_d : hz_sw_cur_d;
    if (issue_sw) begin
      sweep_qpn_q <= sweep_nxt_q;
      sweep_nxt_q <= sweep_adv(sweep_nxt_q);
    end
    // contested slots alternate; a head that waits its first cycle counts as its turn
    if (issue_ev) sweep_turn_q <= 1'b1;
    else if (issue_sw) sweep_turn_q <= 1'b0;
    space_ok_q <= (upd_count <= UPD_CW'(UPD_DEPTH - NSTG - 4));
    // idle (no event queued or in flight): any later event is stamped now or later
    if (!ev_inflight) last_done_q <= now_q;
    else if (ev_v_q[NSTG]) last_done_q <= w_q[NSTG].op.now;
    safe_now_q <= ev_inflight ? last_done_q : now_q;
    if (rst) begin
      hd_v_q       <= 1'b0;
      hd_new_q     <= 1'b0;
      hz_hd_q      <= 1'b0;
      hz_sw_q      <= 1'b0;
      sweep_qpn_q  <= '0;
      sweep_nxt_q  <= QPN_W'(SWEEP_STEP);
      sweep_turn_q <= 1'b0;
      space_ok_q   <= 1'b0;
      last_done_q  <= '0;
      safe_now_q   <= '0;
    end
  end

  // ---------------------------------------------------------------- state RAM
  logic [SW-1:0]    ram_rd_data, ram_wr_data;
  logic             ram_wr_en;
  logic [QPN_W-1:0] ram_wr_addr;

  fabnic_ram_sdp #(.DATA_W(SW), .DEPTH(NUM_QP), .ADDR_W(QPN_W)) u_state_ram (
    .clk,
    .wr_en(ram_wr_en), .wr_be(1'b1), .wr_addr(ram_wr_addr), .wr_data(ram_wr_data),
    .rd_en(issue), .rd_regce(1'b1), .rd_addr(issue_op.qpn), .rd_data(ram_rd_data)
  );

  // ---------------------------------------------------------------- the stages
  // The DCQCN equations (docs/cc.md), one step per stage:
  //   S1        now - t_alpha, now - t_rate; byte counter + bytes; alpha - 1
  //   S2        timers due: alpha periods (thermometer), rate timer; byte counter >= B
  //   S3        stage counts after the events; next timestamps
  //   S3..SD    alpha decays, one per stage: alpha - ceil(alpha * 2**-g), computed as
  //             c - 1 - floor(c * 2**-g) on c = alpha - 1 (c + ~(c >>> g): one adder)
  //   S4, S5    increase kind of each event: hi/lo stages vs F (fast, additive, hyper)
  //   S6        i x R_HAI (DSP)
  //   S7        the increase of each event
  //   S8, S9    timer event: Rt = min(Rt + inc, line); Rc = clamp(ceil((Rt + Rc) / 2))
  //   S10, S11  byte event: the same on the result
  //   SJ        alpha known: replay decision, alpha timestamp, CNP decay
  //   SM        Rc x alpha (DSP), CNP alpha = decay(alpha) + g
  //   SC        CNP cut: Rc = max(Rc - Rc * alpha / 2, R_min)
  //   NSTG      the new state by op kind; RAM write, rate update, read response
  always_comb begin
    work_t x;
    qp_state_t st;
    logic [IW-1:0] rtw;
    logic [RATE_W:0] sum;
    logic [RATE_W-1:0] rcn;
    logic [2*HH+AF:0] prod;
    logic [RATE_W-1:0] dec;
    logic [TS_W-1:0] step;

    for (int s = 1; s <= NSTG; s++) w_d[s] = w_q[s];

    // ---- S1: time since the last alpha update / rate-timer event, byte count
    x    = '0;
    st   = qp_state_t'(ram_rd_data);
    x.op = w_q[1].op;
    x.st = st;
    x.da = x.op.now - st.t_alpha;
    x.dr = x.op.now - st.t_rate;
    x.upd = st.en && x.op.kind != OP_INIT;
    x.btx = st.en && x.op.kind == OP_TX && bc_nz_q;
    x.b1  = {1'b0, st.bytes} + (BC_W+1)'(x.op.arg);
    x.c   = CW'(st.alpha) - CW'(1);
    w_d[1] = x;

    // ---- S_DUE (S2): timers due (a negative difference, MSB set, is never due)
    x = w_q[S_DUE];
    for (int k = 0; k <= ALPHA_STEPS; k++) begin
      x.adue[k] = !x.da[TS_W-1] && aper_nz_q && (MW'(x.da) >= amul_q[k]);
    end
    x.rdue  = x.upd && !x.dr[TS_W-1] && tper_nz_q && (x.dr >= tper_q);
    x.rdue2 = x.upd && !x.dr[TS_W-1] && tper_nz_q && (x.dr >= {tper_q[TS_W-2:0], 1'b0});
    x.bdue  = x.btx && (x.b1 >= (BC_W+1)'(bc_q));
    w_d[S_DUE] = x;

    // ---- S_CNT (S3): stage counts, byte counter, next timestamps
    x = w_q[S_CNT];
    x.ts1     = x.rdue ? sat_inc(x.st.ts) : x.st.ts;
    x.bs1     = x.bdue ? sat_inc(x.st.bs) : x.st.bs;
    x.bytes_b = !x.btx ? x.st.bytes : x.bdue ? BC_W'(x.b1 - (BC_W+1)'(bc_q)) : BC_W'(x.b1);
    x.t_rate_step = x.st.t_rate + tper_q;
    step = '0;                          // (number of due periods applied) x period
    for (int k = 0; k < ALPHA_STEPS; k++) begin
      if (x.adue[k] && !x.adue[k+1]) step = TS_W'(amul_q[k]);
    end
    if (x.adue[ALPHA_STEPS]) step = TS_W'(amul_q[ALPHA_STEPS-1]);
    x.t_alpha_step = x.st.t_alpha + step;
    w_d[S_CNT] = x;

    // ---- S_HL (S4): hi/lo stage counts of each event (stage counts after that event)
    x = w_q[S_HL];
    x.hi_t = (x.ts1 > x.st.bs) ? x.ts1 : x.st.bs;
    x.lo_t = (x.ts1 > x.st.bs) ? x.st.bs : x.ts1;
    x.hi_b = (x.ts1 > x.bs1) ? x.ts1 : x.bs1;
    x.lo_b = (x.ts1 > x.bs1) ? x.bs1 : x.ts1;
    w_d[S_HL] = x;

    // ---- S_MODE (S5): fast recovery (hi <= F), additive (lo <= F), else hyper with i = lo - F
    x = w_q[S_MODE];
    x.fast_t = x.hi_t <= f_q;
    x.add_t  = x.lo_t <= f_q;
    x.i_t    = x.lo_t - f_q;
    x.fast_b = x.hi_b <= f_q;
    x.add_b  = x.lo_b <= f_q;
    x.i_b    = x.lo_b - f_q;
    w_d[S_MODE] = x;

    // ---- S_HAI (S6): i x R_HAI, two 16-bit halves (one DSP each, output registered)
    x = w_q[S_HAI];
    x.pt_lo = x.i_t * hai_q[HH-1:0];
    x.pt_hi = x.i_t * hai_q[RATE_W-1:HH];
    x.pb_lo = x.i_b * hai_q[HH-1:0];
    x.pb_hi = x.i_b * hai_q[RATE_W-1:HH];
    w_d[S_HAI] = x;

    // ---- S_INC (S7): the increase of Rt for each event
    x = w_q[S_INC];
    x.inc_t = x.fast_t ? '0 : x.add_t ? IW'(ai_q) : IW'(x.pt_lo) + (IW'(x.pt_hi) << HH);
    x.inc_b = x.fast_b ? '0 : x.add_b ? IW'(ai_q) : IW'(x.pb_lo) + (IW'(x.pb_hi) << HH);
    w_d[S_INC] = x;

    // ---- S_RTA (S8): timer event, Rt = min(Rt + inc, line)
    x = w_q[S_RTA];
    rtw    = IW'(x.st.rt) + x.inc_t;
    x.rt_a = !x.rdue ? x.st.rt : (rtw > IW'(line_q)) ? line_q : RATE_W'(rtw);
    w_d[S_RTA] = x;

    // ---- S_RCA (S9): timer event, Rc = ceil((Rt + Rc) / 2) within [R_min, line]
    x = w_q[S_RCA];
    sum = {1'b0, x.rt_a} + {1'b0, x.st.rc} + (RATE_W+1)'(1);
    rcn = RATE_W'(sum >> 1);
    x.rc_a = !x.rdue ? x.st.rc
           : (rcn > line_q) ? (line_lt_min_q ? rmin_q : line_q)
           : (rcn < rmin_q) ? rmin_q : rcn;
    x.rta_line = x.rt_a == line_q;
    w_d[S_RCA] = x;

    // ---- S_RTB (S10): byte event, Rt = min(Rt + inc, line); timer restart at line rate
    x = w_q[S_RTB];
    rtw      = IW'(x.rt_a) + x.inc_b;
    x.rt_b   = !x.bdue ? x.rt_a : (rtw > IW'(line_q)) ? line_q : RATE_W'(rtw);
    // at line rate every further increase is a no-op until the next CNP resets the stages
    x.r_snap = x.rdue && (x.rc_a == line_q) && x.rta_line;
    w_d[S_RTB] = x;

    // ---- S_RCB (S11): byte event, Rc = ceil((Rt + Rc) / 2) within [R_min, line]; t_rate
    x = w_q[S_RCB];
    sum = {1'b0, x.rt_b} + {1'b0, x.rc_a} + (RATE_W+1)'(1);
    rcn = RATE_W'(sum >> 1);
    x.rc_b = !x.bdue ? x.rc_a
           : (rcn > line_q) ? (line_lt_min_q ? rmin_q : line_q)
           : (rcn < rmin_q) ? rmin_q : rcn;
    x.t_rate_n = (x.upd && !tper_nz_q) ? x.op.now
               : !x.rdue ? x.st.t_rate
               : x.r_snap ? x.op.now : x.t_rate_step;
    w_d[S_RCB] = x;

    // ---- S3..S(2+ALPHA_STEPS): alpha decays, decay k applied in stage S_DEC0 + k
    for (int s = S_DEC0; s <= S_DECL; s++) begin
      w_d[s].c = decay_c(w_q[s].c, g_q, w_q[s].adue[s - S_DEC0]);
    end

    // ---- SJ: alpha after the decays, replay, alpha timestamp, CNP decay, Rc - R_min
    x = w_q[SJ];
    begin
      logic a_zero, a_snap;
      a_zero  = &x.c;                 // alpha reached 0 (c = -1)
      a_snap  = x.adue[0] && a_zero;  // decay of 0 is 0: restart the period
      x.a_n   = (AF+1)'(x.c + CW'(1));
      x.replay = x.upd && x.op.kind != OP_SWEEP &&
                 ((x.adue[ALPHA_STEPS] && !a_snap) || (x.rdue2 && !x.r_snap));
      x.t_alpha_n = (x.upd && !aper_nz_q) ? x.op.now
                  : !(x.upd && x.adue[0]) ? x.st.t_alpha
                  : a_snap ? x.op.now : x.t_alpha_step;
    end
    x.c_cnp = decay_c(x.c, g_q, 1'b1);
    x.rcm   = {1'b0, x.rc_b} - {1'b0, rmin_q};
    x.ne_a  = x.rc_a != x.st.rc;
    x.ne_b  = x.rc_b != x.st.rc;
    w_d[SJ] = x;

    // ---- SM: Rc x alpha (two DSPs), CNP alpha = decay(alpha) + 2**AF * g
    x = w_q[SM];
    x.pc_lo = x.a_n * x.rc_b[HH-1:0];
    x.pc_hi = x.a_n * x.rc_b[RATE_W-1:HH];
    x.a_cnp = (AF+1)'(x.c_cnp) + gterm1_q;
    w_d[SM] = x;

    // ---- SC: Rc = max(Rc - floor(Rc * alpha / 2**(AF+1)), R_min)
    x = w_q[SC];
    prod     = (2*HH+AF+1)'(x.pc_lo) + ((2*HH+AF+1)'(x.pc_hi) << HH);
    dec      = RATE_W'(prod >> (AF + 1));
    x.rc_cut = (x.rcm[RATE_W] || ({1'b0, dec} > x.rcm)) ? rmin_q : x.rc_b - dec;
    w_d[SC] = x;
  end

  // ---------------------------------------------------------------- write-back (NSTG)
  work_t     wb;
  qp_state_t wb_nx;
  logic      wb_cut, wb_commit, wb_inc_b;
  assign wb = w_q[NSTG];

  always_comb begin
    wb_commit = !wb.replay;
    wb_cut    = 1'b0;
    wb_inc_b  = wb.bdue && wb_commit;
    wb_nx     = wb.st;
    if (wb.op.kind == OP_INIT) begin
      wb_nx.en      = wb.op.arg[0];
      wb_nx.rc      = rinit_q;
      wb_nx.rt      = rinit_q;
      wb_nx.alpha   = (AF+1)'(1) << AF;
      wb_nx.ts      = '0;
      wb_nx.bs      = '0;
      wb_nx.bytes   = '0;
      wb_nx.t_alpha = wb.op.now;
      wb_nx.t_rate  = wb.op.now;
    end else if (wb.st.en) begin
      // timers (applied on a replay too), then the byte event unless replayed
      wb_nx.alpha   = wb.a_n;
      wb_nx.t_alpha = wb.t_alpha_n;
      wb_nx.ts      = wb.ts1;
      wb_nx.t_rate  = wb.t_rate_n;
      wb_nx.rc      = wb_commit ? wb.rc_b : wb.rc_a;
      wb_nx.rt      = wb_commit ? wb.rt_b : wb.rt_a;
      if (wb.btx && wb_commit) begin
        wb_nx.bs    = wb.bs1;
        wb_nx.bytes = wb.bytes_b;
      end
      if (wb.op.kind == OP_CNP && wb_commit) begin
        wb_cut        = 1'b1;
        wb_nx.rt      = (clamp_q || wb.ts1 != '0) ? wb.rc_b : wb.rt_b;
        wb_nx.rc      = wb.rc_cut;
        wb_nx.alpha   = wb.a_cnp;
        wb_nx.ts      = '0;
        wb_nx.bs      = '0;
        wb_nx.bytes   = '0;
        wb_nx.t_alpha = wb.op.now;
        wb_nx.t_rate  = wb.op.now;
      end
    end
  end

  assign ram_wr_en   = clr_q || v_q[NSTG];
  assign ram_wr_addr = clr_q ? clr_addr_q : wb.op.qpn;
  assign ram_wr_data = clr_q ? '0 : wb_nx;

  // rate update FIFO
  logic upd_push, upd_in_ready;  // never full: issue reserves space (space_ok_q)
  logic [QPN_W+RATE_W:0] upd_in, upd_out;
  // Rc changed: the compares of the non-cut candidates were made in SJ; the cut's
  // compare is an explicit balanced tree of kept nets (3-bit chunks, then ORs of up to
  // 6), so that synthesis does not chain it into the muxes after it
  localparam int RNCH = (RATE_W + 2) / 3;   // 3-bit chunks of a rate
  localparam int RNG  = (RNCH + 5) / 6;     // groups of 6 chunks
  logic [RNCH*3-1:0] cut_a, cut_b;
  (* keep *) logic [RNCH-1:0] cut_ch;
  (* keep *) logic [RNG-1:0]  cut_grp;
  logic cut_ne;
  always_comb begin
    cut_a = (RNCH*3)'(wb.rc_cut);
    cut_b = (RNCH*3)'(wb.st.rc);
    for (int j = 0; j < RNCH; j++) cut_ch[j] = cut_a[j*3 +: 3] != cut_b[j*3 +: 3];
    for (int g = 0; g < RNG; g++) begin
      cut_grp[g] = 1'b0;
      for (int j = g * 6; j < g * 6 + 6 && j < RNCH; j++) cut_grp[g] |= cut_ch[j];
    end
    cut_ne = |cut_grp;
  end
  assign upd_push = v_q[NSTG] && (wb.op.kind == OP_INIT ? wb.op.arg[0]
                                 : wb.st.en && (wb_cut ? cut_ne
                                                       : wb_commit ? wb.ne_b : wb.ne_a));
  assign upd_in   = {wb.op.qpn, wb_nx.rc, wb.op.kind == OP_INIT};

  // one register between the write-back and the FIFO (counted in the reservation)
  logic upd_push_q;
  logic [QPN_W+RATE_W:0] upd_in_q;
  always_ff @(posedge clk) begin
    upd_push_q <= upd_push;
    upd_in_q   <= upd_in;
    if (rst) upd_push_q <= 1'b0;
  end

  fabnic_fifo #(.WIDTH(QPN_W + RATE_W + 1), .DEPTH(UPD_DEPTH)) u_upd_fifo (
    .clk, .rst,
    .in_valid(upd_push_q), .in_ready(upd_in_ready), .in_data(upd_in_q),
    .out_valid(upd_valid), .out_ready(upd_ready), .out_data(upd_out),
    .status_count(upd_count)
  );
  assign {upd_qpn, upd_rate, upd_init} = upd_out;

  // ---------------------------------------------------------------- pipeline control
  always_ff @(posedge clk) begin
    v_q <= {v_q[NSTG-1:1], issue};
    ev_v_q <= {ev_v_q[NSTG-1:1], issue_rp || issue_ev};
    w_q[1]    <= '0;
    w_q[1].op <= issue_op;
    for (int s = 1; s < NSTG; s++) w_q[s+1] <= w_d[s];
    if (rst) begin
      v_q    <= '0;
      ev_v_q <= '0;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      replay_q <= 1'b0;
    end else begin
      if (issue_rp) replay_q <= 1'b0;
      if (v_q[NSTG] && wb.replay) replay_q <= 1'b1;
    end
    if (v_q[NSTG] && wb.replay) replay_op_q <= wb.op;
  end

  // read responses
  always_ff @(posedge clk) begin
    if (rst) begin
      rd_rsp_valid <= 1'b0;
    end else begin
      rd_rsp_valid <= v_q[NSTG] && wb_commit && wb.op.kind == OP_RD;
    end
    rd_rsp_qpn    <= wb.op.qpn;
    rd_rsp_enable <= wb_nx.en;
    rd_rsp_rc     <= wb_nx.rc;
    rd_rsp_rt     <= wb_nx.rt;
    rd_rsp_alpha  <= wb_nx.alpha;
  end

  // counters
  always_ff @(posedge clk) begin
    if (rst) begin
      cnt_cnp         <= '0;
      cnt_cnp_ignored <= '0;
      cnt_decrease    <= '0;
      cnt_increase    <= '0;
      cnt_catchup     <= '0;
    end else if (v_q[NSTG]) begin
      if (wb.op.kind == OP_CNP && wb_commit) begin
        cnt_cnp <= cnt_cnp + 1'b1;
        if (!wb.st.en) cnt_cnp_ignored <= cnt_cnp_ignored + 1'b1;
      end
      if (wb_cut) cnt_decrease <= cnt_decrease + 1'b1;
      cnt_increase <= cnt_increase + CNT_W'(wb.rdue) + CNT_W'(wb_inc_b);
      if (wb.replay) cnt_catchup <= cnt_catchup + 1'b1;
    end
  end

  logic unused;
  assign unused = ^{evt_fifo_ready, upd_in_ready, wb};  // wb: fields the write-back does not read

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // the hazard rule: never two ops of one QP between issue and write-back
      for (int s = 1; s <= NSTG; s++) begin
        if (issue && v_q[s]) assert (w_q[s].op.qpn != issue_op.qpn)
          else $error("fabnic_dcqcn_rp: QP %0d issued while in stage %0d", issue_op.qpn, s);
      end
      // the registered hazards are those of the candidates now
      if (hd_v_q && !hd_new_q) assert (hz_hd_q == (|hz_now(hd_q.qpn)))
        else $error("fabnic_dcqcn_rp: event head hazard %0d", hz_hd_q);
      assert (hz_sw_q == (|hz_now(sweep_qpn_q)))
        else $error("fabnic_dcqcn_rp: sweep hazard %0d", hz_sw_q);
      assert (sweep_nxt_q == sweep_adv(sweep_qpn_q))
        else $error("fabnic_dcqcn_rp: sweep next QP");
      for (int s = 1; s <= NSTG; s++) begin
        assert (ev_v_q[s] == (v_q[s] && w_q[s].op.kind != OP_SWEEP))
          else $error("fabnic_dcqcn_rp: event op flag of stage %0d", s);
      end
      // the registered "not full" never promises room the event FIFO does not have
      if (evt_rdy_q) assert (evt_fifo_ready) else $error("fabnic_dcqcn_rp: event FIFO ready");
      // the update FIFO is never overrun (issue reserves its space)
      if (upd_push_q) assert (upd_in_ready) else $error("fabnic_dcqcn_rp: update FIFO overrun");
    end
  end

  function automatic logic [NSTG:1] hz_now(input logic [QPN_W-1:0] q);
    for (int s = 1; s <= NSTG; s++) hz_now[s] = v_q[s] && w_q[s].op.qpn == q;
  endfunction
`endif  // wb: fields the write-back does not read

endmodule

`resetall
