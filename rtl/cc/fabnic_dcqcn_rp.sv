// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dcqcn_rp: DCQCN reaction point for NUM_QP queue pairs (docs/cc.md).
//
// All per-QP state (Rc, Rt, alpha, timer/byte stage counts, byte counter, the
// timestamps of the last alpha update and of the last rate-increase timer
// event, enable) lives in one simple dual-port RAM and is updated by ONE shared
// read-modify-write engine, so the logic does not grow with NUM_QP:
//
//   S0 issue (RAM read) -> S1 RAM data, timer arithmetic, first alpha decays ->
//   S2 remaining alpha decays, due rate-timer event -> S3 byte-counter event /
//   multiply Rc*alpha -> S4 CNP cut, RAM write, rate update, read response.
//
// Hazards: an op is not issued while an op for the same QP is in S1..S4
// (interlock); the RAM write at the end of S4 is visible to any read issued
// after it.
//
// Events (QP init, CNP, bytes sent, state read) are stamped with the free-running
// cycle counter when accepted and queued in one FIFO (one event per cycle, fixed
// priority init > cnp > tx > rd; FIFO full -> ready low on every input). The
// engine processes them in stamp order and, for each, first applies the timer
// events that fell due at or before the stamp (tie: timer first). Timers need no
// per-QP counters: a background sweep visits every QP (at least every other issue
// slot belongs to it) and applies due alpha-decay / rate-increase events at a
// "safe now" no later than any queued or in-flight event stamp. An op applies up
// to ALPHA_STEPS due alpha decays (each with the single-step rounding, so any
// grouping of the periods gives the same alpha) and at most one rate-timer event;
// if more are due at an event, the op applies only the timers and is replayed
// (cnt_catchup), so the order is exact whatever the sweep speed. Rates: Mb/s with RATE_FRAC fraction bits; alpha: ALPHA_FRAC
// fraction bits (1.0 = 2**ALPHA_FRAC); periods in clock cycles; 0 disables a timer.
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
    parameter int UPD_DEPTH  = 16,
    parameter int ALPHA_STEPS = 10,  // alpha decays one op can apply (half in S1, half in S2)
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

  localparam int AF    = ALPHA_FRAC;
  localparam int NSTG  = 4;                 // S1..S4
  localparam int UPD_CW = $clog2(UPD_DEPTH) + 1;
  localparam int EVT_CW = $clog2(EVT_DEPTH) + 1;

  if (NUM_QP < 2 || QPN_W < $clog2(NUM_QP)) begin : g_check_qp
    $error("fabnic_dcqcn_rp: NUM_QP must be >= 2 and fit in QPN_W");
  end
  if (UPD_DEPTH < 2 * (NSTG + 1)) begin : g_check_upd
    $error("fabnic_dcqcn_rp: UPD_DEPTH must be >= 10");
  end
  if (AF < 10 || AF > 30) begin : g_check_alpha
    $error("fabnic_dcqcn_rp: ALPHA_FRAC must be 10..30");
  end
  if (ALPHA_STEPS < 2 || ALPHA_STEPS > 30) begin : g_check_steps
    $error("fabnic_dcqcn_rp: ALPHA_STEPS must be 2..30");
  end

  localparam int AS1 = (ALPHA_STEPS + 1) / 2;   // decays applied in S1 (rest in S2)
  localparam int MW  = TS_W + 5;                // width of the multiples k * alpha period
  localparam int NW  = $clog2(ALPHA_STEPS + 1);

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
    logic              en;
    logic [RATE_W-1:0] rc;
    logic [RATE_W-1:0] rt;
    logic [AF:0]       alpha;
    logic [STAGE_W-1:0] ts;
    logic [STAGE_W-1:0] bs;
    logic [BC_W-1:0]   bytes;
    logic [TS_W-1:0]   t_alpha;
    logic [TS_W-1:0]   t_rate;
  } qp_state_t;

  localparam int SW = $bits(qp_state_t);
  localparam int OW = $bits(op_t);

  // ---------------------------------------------------------------- helpers
  function automatic logic [AF:0] alpha_decay(input logic [AF:0] a, input logic [4:0] g);
    logic [AF+1:0] t;
    t = {1'b0, a} + (((AF+2)'(1)) << g) - (AF+2)'(1);
    return a - (AF+1)'(t >> g);      // a - ceil(a / 2**g)
  endfunction

  function automatic logic [STAGE_W-1:0] sat_inc(input logic [STAGE_W-1:0] v);
    return (&v) ? v : v + 1'b1;
  endfunction

  // one rate-increase event with the stage counts after the increment; returns {rc, rt}
  function automatic logic [2*RATE_W-1:0] rate_increase(
      input logic [RATE_W-1:0] rc, input logic [RATE_W-1:0] rt,
      input logic [STAGE_W-1:0] ts, input logic [STAGE_W-1:0] bs,
      input logic [STAGE_W-1:0] f, input logic [RATE_W-1:0] ai, input logic [RATE_W-1:0] hai,
      input logic [RATE_W-1:0] rmin, input logic [RATE_W-1:0] line);
    logic [STAGE_W-1:0]         hi, lo;
    logic [RATE_W+STAGE_W:0]    rt_w;
    logic [RATE_W-1:0]          rt_n;
    logic [RATE_W:0]            sum;
    logic [RATE_W-1:0]          rc_n;
    logic [STAGE_W-1:0]         i;
    i  = '0;
    hi = (ts > bs) ? ts : bs;
    lo = (ts > bs) ? bs : ts;
    if (hi <= f)      rt_w = (RATE_W+STAGE_W+1)'(rt);
    else if (lo <= f) rt_w = (RATE_W+STAGE_W+1)'(rt) + (RATE_W+STAGE_W+1)'(ai);
    else begin
      i    = lo - f;                 // hyper-increase step number
      rt_w = (RATE_W+STAGE_W+1)'(rt) + (RATE_W+STAGE_W+1)'(i) * (RATE_W+STAGE_W+1)'(hai);
    end
    rt_n = (rt_w > (RATE_W+STAGE_W+1)'(line)) ? line : rt_w[RATE_W-1:0];
    sum  = {1'b0, rt_n} + {1'b0, rc} + (RATE_W+1)'(1);
    rc_n = RATE_W'(sum >> 1);       // (Rt+Rc)/2 rounded up, so Rc reaches Rt
    if (rc_n > line) rc_n = line;
    if (rc_n < rmin) rc_n = rmin;
    return {rc_n, rt_n};
  endfunction

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

  // ---------------------------------------------------------------- event FIFO
  op_t evt_in, evt_head;
  logic evt_in_valid, evt_in_ready, evt_out_valid, evt_out_ready;
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
  assign init_ready   = !clr_q && evt_in_ready;
  assign cnp_ready    = !clr_q && evt_in_ready && !init_valid;
  assign tx_ready     = !clr_q && evt_in_ready && !init_valid && !cnp_valid;
  assign rd_ready     = !clr_q && evt_in_ready && !init_valid && !cnp_valid && !tx_valid;

  fabnic_fifo #(.WIDTH(OW), .DEPTH(EVT_DEPTH)) u_evt_fifo (
    .clk, .rst,
    .in_valid(evt_in_valid), .in_ready(evt_in_ready), .in_data(evt_in),
    .out_valid(evt_out_valid), .out_ready(evt_out_ready), .out_data(evt_head),
    .status_count(evt_count)
  );

  // ---------------------------------------------------------------- pipeline regs
  logic      s_valid [1:NSTG];
  op_t       s_op    [1:NSTG];
  qp_state_t s2_st, s3_st, s4_st;
  logic [RATE_W-1:0] s2_rc0, s3_rc0, s4_rc0;    // Rc as read (to detect a change)
  logic      s2_rdue, s2_rdue2;
  logic [ALPHA_STEPS:0] s2_adue;     // at least k+1 alpha periods due
  logic [AF:0] s2_alpha;             // alpha after the first AS1 due decays (S1)
  logic      s3_replay, s4_replay;
  logic [1:0] s3_inc, s4_inc;
  logic [RATE_W+AF:0] s4_prod;

  // ---------------------------------------------------------------- issue (S0)
  logic             replay_q;
  op_t              replay_op_q;
  logic [QPN_W-1:0] sweep_qpn_q;
  logic             sweep_turn_q;
  logic [UPD_CW-1:0] upd_count;

  function automatic logic hazard(input logic [QPN_W-1:0] q);
    logic h;
    h = 1'b0;
    for (int i = 1; i <= NSTG; i++) h |= s_valid[i] && (s_op[i].qpn == q);
    return h;
  endfunction

  // safe now for the sweep: the oldest in-flight event stamp, else the FIFO head, else now
  logic [TS_W-1:0] safe_now;
  always_comb begin
    safe_now = evt_out_valid ? evt_head.now : now_q;
    for (int i = 1; i <= NSTG; i++) begin  // deepest stage wins (highest index last)
      if (s_valid[i] && s_op[i].kind != OP_SWEEP) safe_now = s_op[i].now;
    end
  end

  logic space_ok, ev_ok, sw_ok, rp_ok, issue_ev, issue_sw, issue_rp, issue;
  op_t  issue_op;
  assign space_ok = (upd_count <= UPD_CW'(UPD_DEPTH - NSTG - 1));
  assign rp_ok    = !clr_q && replay_q && space_ok && !hazard(replay_op_q.qpn);
  assign ev_ok    = !clr_q && !replay_q && evt_out_valid && space_ok && !hazard(evt_head.qpn);
  assign sw_ok    = !clr_q && !replay_q && space_ok && !hazard(sweep_qpn_q);
  assign issue_rp = rp_ok;
  assign issue_ev = ev_ok && (!sw_ok || !sweep_turn_q);
  assign issue_sw = sw_ok && !issue_ev;
  assign issue    = issue_rp || issue_ev || issue_sw;
  assign evt_out_ready = issue_ev;

  always_comb begin
    issue_op = evt_head;
    if (issue_rp) begin
      issue_op = replay_op_q;
    end else if (issue_sw) begin
      issue_op      = '0;
      issue_op.kind = OP_SWEEP;
      issue_op.qpn  = sweep_qpn_q;
      issue_op.now  = safe_now;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      sweep_qpn_q  <= '0;
      sweep_turn_q <= 1'b0;
    end else begin
      if (issue_sw) sweep_qpn_q <= (sweep_qpn_q == QPN_W'(NUM_QP - 1)) ? '0 : sweep_qpn_q + 1'b1;
      if (ev_ok && sw_ok) sweep_turn_q <= !sweep_turn_q;
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

  // ---------------------------------------------------------------- alpha period multiples
  // amul_q[k-1] = k * cfg_alpha_period, k = 1..ALPHA_STEPS+1 (registered: a configuration
  // change takes effect one cycle later)
  logic [MW-1:0] amul_q [ALPHA_STEPS+1];
  always_ff @(posedge clk) begin
    for (int k = 1; k <= ALPHA_STEPS + 1; k++) amul_q[k-1] <= MW'(cfg_alpha_period) * MW'(k);
  end

  // ---------------------------------------------------------------- S1: timer arithmetic
  // alpha: count the due periods (thermometer s1_adue[k-1] = at least k due, k up to
  // ALPHA_STEPS+1) and apply the first AS1 of them
  qp_state_t s1_st;
  logic [TS_W-1:0] s1_da, s1_dr;
  logic [ALPHA_STEPS:0] s1_adue;
  logic [AF:0] s1_alpha;
  assign s1_st = qp_state_t'(ram_rd_data);
  assign s1_da = s_op[1].now - s1_st.t_alpha;
  assign s1_dr = s_op[1].now - s1_st.t_rate;

  always_comb begin
    for (int k = 0; k <= ALPHA_STEPS; k++) begin
      // a negative difference (MSB set) is never due
      s1_adue[k] = !s1_da[TS_W-1] && (cfg_alpha_period != '0) && (MW'(s1_da) >= amul_q[k]);
    end
    s1_alpha = s1_st.alpha;
    for (int k = 0; k < AS1; k++) begin
      if (s1_adue[k]) s1_alpha = alpha_decay(s1_alpha, cfg_g_shift);
    end
  end

  always_ff @(posedge clk) begin
    s2_st    <= s1_st;
    s2_rc0   <= s1_st.rc;
    s2_adue  <= s1_adue;
    s2_alpha <= s1_alpha;
    s2_rdue  <= !s1_dr[TS_W-1] && (cfg_timer_period != '0) && (s1_dr >= cfg_timer_period);
    s2_rdue2 <= !s1_dr[TS_W-1] && (cfg_timer_period != '0) && (s1_dr >= {cfg_timer_period[TS_W-2:0], 1'b0});
  end

  // ---------------------------------------------------------------- S2: due timer events
  qp_state_t s2_nx;
  logic      s2_replay;
  logic [1:0] s2_inc;
  always_comb begin
    logic [2*RATE_W-1:0] r;
    logic                a_snap, r_snap;
    logic [AF:0]         a;
    logic [NW-1:0]       na;
    s2_nx  = s2_st;
    s2_inc = '0;
    a_snap = 1'b0;
    r_snap = 1'b0;
    r      = '0;
    a      = s2_alpha;
    na     = '0;
    for (int k = 0; k < ALPHA_STEPS; k++) begin
      if (s2_adue[k]) na = NW'(k + 1);                       // due periods applied (<= STEPS)
      if (k >= AS1 && s2_adue[k]) a = alpha_decay(a, cfg_g_shift);
    end
    if (s2_st.en && s_op[2].kind != OP_INIT) begin
      if (cfg_alpha_period == '0) begin
        s2_nx.t_alpha = s_op[2].now;
      end else if (s2_adue[0]) begin
        s2_nx.alpha = a;
        if (a == '0) begin
          a_snap        = 1'b1;            // decay of 0 is 0: restart the period
          s2_nx.t_alpha = s_op[2].now;
        end else begin
          s2_nx.t_alpha = s2_st.t_alpha + TS_W'(amul_q[na - NW'(1)]);
        end
      end
      if (cfg_timer_period == '0) begin
        s2_nx.t_rate = s_op[2].now;
      end else if (s2_rdue) begin
        s2_nx.ts = sat_inc(s2_st.ts);
        r = rate_increase(s2_st.rc, s2_st.rt, s2_nx.ts, s2_st.bs, cfg_f, cfg_rate_ai,
                          cfg_rate_hai, cfg_rate_min, cfg_rate_line);
        s2_nx.rc  = r[2*RATE_W-1:RATE_W];
        s2_nx.rt  = r[RATE_W-1:0];
        s2_inc    = 2'd1;
        // at line rate every further increase is a no-op until the next CNP resets the stages
        r_snap       = (s2_nx.rc == cfg_rate_line) && (s2_nx.rt == cfg_rate_line);
        s2_nx.t_rate = r_snap ? s_op[2].now : s2_st.t_rate + cfg_timer_period;
      end
    end
    s2_replay = s2_st.en && s_op[2].kind != OP_INIT && s_op[2].kind != OP_SWEEP &&
                ((s2_adue[ALPHA_STEPS] && !a_snap) || (s2_rdue2 && !r_snap));
  end

  always_ff @(posedge clk) begin
    s3_st     <= s2_nx;
    s3_rc0    <= s2_rc0;
    s3_replay <= s2_replay;
    s3_inc    <= s2_inc;
  end

  // ---------------------------------------------------------------- S3: byte counter, multiply
  qp_state_t s3_nx;
  logic [1:0] s3_inc_nx;
  always_comb begin
    logic [BC_W:0]       b1;
    logic [2*RATE_W-1:0] r;
    s3_nx     = s3_st;
    s3_inc_nx = s3_inc;
    b1        = {1'b0, s3_st.bytes} + (BC_W+1)'(s_op[3].arg);
    r         = '0;
    if (s3_st.en && s_op[3].kind == OP_TX && !s3_replay && cfg_byte_counter != '0) begin
      if (b1 >= (BC_W+1)'(cfg_byte_counter)) begin
        s3_nx.bytes = BC_W'(b1 - (BC_W+1)'(cfg_byte_counter));
        s3_nx.bs    = sat_inc(s3_st.bs);
        r = rate_increase(s3_st.rc, s3_st.rt, s3_st.ts, s3_nx.bs, cfg_f, cfg_rate_ai,
                          cfg_rate_hai, cfg_rate_min, cfg_rate_line);
        s3_nx.rc  = r[2*RATE_W-1:RATE_W];
        s3_nx.rt  = r[RATE_W-1:0];
        s3_inc_nx = s3_inc + 2'd1;
      end else begin
        s3_nx.bytes = BC_W'(b1);
      end
    end
  end

  always_ff @(posedge clk) begin
    s4_st     <= s3_nx;
    s4_rc0    <= s3_rc0;
    s4_replay <= s3_replay;
    s4_inc    <= s3_inc_nx;
    s4_prod   <= s3_st.rc * s3_st.alpha;
  end

  // ---------------------------------------------------------------- S4: CNP, init, write back
  qp_state_t s4_nx;
  logic      s4_cut, s4_commit;
  always_comb begin
    logic [RATE_W-1:0] dec;
    logic [RATE_W-1:0] rc_cut;
    s4_nx     = s4_st;
    s4_commit = !s4_replay;
    s4_cut    = 1'b0;
    dec       = RATE_W'(s4_prod >> (AF + 1));
    rc_cut    = s4_st.rc - dec;
    if (rc_cut < cfg_rate_min) rc_cut = cfg_rate_min;
    if (s_op[4].kind == OP_INIT) begin
      s4_nx.en      = s_op[4].arg[0];
      s4_nx.rc      = cfg_rate_init;
      s4_nx.rt      = cfg_rate_init;
      s4_nx.alpha   = (AF+1)'(1) << AF;
      s4_nx.ts      = '0;
      s4_nx.bs      = '0;
      s4_nx.bytes   = '0;
      s4_nx.t_alpha = s_op[4].now;
      s4_nx.t_rate  = s_op[4].now;
    end else if (s_op[4].kind == OP_CNP && s4_st.en && s4_commit) begin
      s4_cut        = 1'b1;
      s4_nx.rt      = (cfg_clamp_tgt || s4_st.ts != '0) ? s4_st.rc : s4_st.rt;
      s4_nx.rc      = rc_cut;
      s4_nx.alpha   = alpha_decay(s4_st.alpha, cfg_g_shift) + (((AF+1)'(1) << AF) >> cfg_g_shift);
      s4_nx.ts      = '0;
      s4_nx.bs      = '0;
      s4_nx.bytes   = '0;
      s4_nx.t_alpha = s_op[4].now;
      s4_nx.t_rate  = s_op[4].now;
    end
  end

  assign ram_wr_en   = clr_q || s_valid[4];
  assign ram_wr_addr = clr_q ? clr_addr_q : s_op[4].qpn;
  assign ram_wr_data = clr_q ? '0 : s4_nx;

  // rate update FIFO
  logic upd_push, upd_in_ready;  // never full: issue reserves space (space_ok)
  logic [QPN_W+RATE_W:0] upd_in, upd_out;
  assign upd_push = s_valid[4] && (s_op[4].kind == OP_INIT ? s_op[4].arg[0]
                                                            : (s4_st.en && s4_nx.rc != s4_rc0));
  assign upd_in   = {s_op[4].qpn, s4_nx.rc, s_op[4].kind == OP_INIT};

  fabnic_fifo #(.WIDTH(QPN_W + RATE_W + 1), .DEPTH(UPD_DEPTH)) u_upd_fifo (
    .clk, .rst,
    .in_valid(upd_push), .in_ready(upd_in_ready), .in_data(upd_in),
    .out_valid(upd_valid), .out_ready(upd_ready), .out_data(upd_out),
    .status_count(upd_count)
  );
  assign {upd_qpn, upd_rate, upd_init} = upd_out;

  // ---------------------------------------------------------------- pipeline control
  always_ff @(posedge clk) begin
    if (rst) begin
      for (int i = 1; i <= NSTG; i++) s_valid[i] <= 1'b0;
      replay_q <= 1'b0;
    end else begin
      s_valid[1] <= issue;
      for (int i = 2; i <= NSTG; i++) s_valid[i] <= s_valid[i-1];
      if (issue_rp) replay_q <= 1'b0;
      if (s_valid[4] && s4_replay) replay_q <= 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    s_op[1] <= issue_op;
    for (int i = 2; i <= NSTG; i++) s_op[i] <= s_op[i-1];
    if (s_valid[4] && s4_replay) replay_op_q <= s_op[4];
  end

  // read responses
  always_ff @(posedge clk) begin
    if (rst) begin
      rd_rsp_valid <= 1'b0;
    end else begin
      rd_rsp_valid <= s_valid[4] && s4_commit && s_op[4].kind == OP_RD;
    end
    rd_rsp_qpn    <= s_op[4].qpn;
    rd_rsp_enable <= s4_nx.en;
    rd_rsp_rc     <= s4_nx.rc;
    rd_rsp_rt     <= s4_nx.rt;
    rd_rsp_alpha  <= s4_nx.alpha;
  end

  // counters
  always_ff @(posedge clk) begin
    if (rst) begin
      cnt_cnp         <= '0;
      cnt_cnp_ignored <= '0;
      cnt_decrease    <= '0;
      cnt_increase    <= '0;
      cnt_catchup     <= '0;
    end else if (s_valid[4]) begin
      if (s_op[4].kind == OP_CNP && s4_commit) begin
        cnt_cnp <= cnt_cnp + 1'b1;
        if (!s4_st.en) cnt_cnp_ignored <= cnt_cnp_ignored + 1'b1;
      end
      if (s4_cut) cnt_decrease <= cnt_decrease + 1'b1;
      cnt_increase <= cnt_increase + CNT_W'(s4_inc);
      if (s4_replay) cnt_catchup <= cnt_catchup + 1'b1;
    end
  end

  logic unused;
  assign unused = ^{evt_count, upd_in_ready};

endmodule

`resetall
