// SPDX-License-Identifier: Apache-2.0
//
// fabnic_rate_limiter: per-QP pacing for the transport's send scheduler (docs/cc.md).
//
// The scheduler asks "may QP q send a packet of L bytes now?" (req_*); two cycles
// later the answer comes back (rsp_*): grant, or deny with the earliest cycle at
// which a request can be granted. Per QP the RAM holds the next allowed send time
// (TS_W.FRAC_W cycles, fractional so no byte is lost to rounding) and the pacing
// cost in cycles per byte (CPB_W bits, FRAC_W fraction bits), the reciprocal of
// the rate, computed by one shared sequential divider when a rate update
// (upd_*, from fabnic_dcqcn_rp) arrives:
//
//   cpb = 8 * CLK_MHZ / rate_Mbps            (saturates at 2**CPB_W - 1)
//   grant  iff now >= floor(next)
//   on grant: next = max(next, now - cfg_slack) + L * cpb;  last_len = L
//   on a rate set: next = min(next, now + last_len * cpb_new)
//
// The rate-set rule: a QP waiting out a packet priced at the old rate waits at most
// one packet of the last granted length at the new rate (a QP at R_min with 4 KB
// frames would otherwise ignore an increase for up to 335 us). It never lets the QP
// go faster than the new rate (the packet is re-priced from the update time, not
// from its grant) and never delays a QP (min).
//
// A backlogged QP therefore sends exactly L*cpb cycles apart on average: the
// remainder of every packet is carried in the fraction of next. cfg_slack keeps
// that many cycles of credit for a scheduler that comes back a little late.
// A QP whose rate was never set (state cleared after reset) has cpb = 0: not
// paced. upd_init = 1 also restarts the QP's clock (next = now).
//
// Pipeline: S0 issue (RAM read) -> S1 decide (grant, base of the new next time,
// multiplier operands; the response is registered from S1, so it comes 2 cycles after
// the request) -> S2 L x cpb (two DSPs, output registered) -> S3 new next time, RAM
// write. Hazard rule (stall): an op is not issued while an op for the same QP is in
// S1..S3, so same-QP ops are 4 cycles apart; other QPs one per cycle. A rate write
// from the divider has priority over requests (its hazard is registered one cycle
// ahead). Update FIFO full: upd_ready low (back-pressure toward the reaction point).
// The divider (radix 2**DIV_BITS, the multiples of the rate compared in parallel)
// takes ceil(N_W / DIV_BITS) + 2 cycles per update (26 cycles with the defaults:
// one to form the multiples).
// req_ready depends on req_qpn (same-QP hazard) and on a divider result waiting,
// never on req_valid.
`default_nettype none

module fabnic_rate_limiter #(
    parameter int NUM_QP    = 1024,
    parameter int QPN_W     = $clog2(NUM_QP),
    parameter int RATE_W    = 32,
    parameter int RATE_FRAC = 12,    // rate = Mb/s * 2**RATE_FRAC (same as fabnic_dcqcn_rp)
    parameter int LEN_W     = 16,
    parameter int TS_W      = 48,    // integer cycles of the time base
    parameter int FRAC_W    = 24,    // fraction bits of times and of cpb
    parameter int CPB_W     = 32,    // cycles per byte, FRAC_W fraction bits
    parameter int CLK_MHZ   = 250,
    parameter int DIV_BITS  = 2,     // quotient bits per cycle
    parameter int UPD_DEPTH = 8,
    parameter int CNT_W     = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [15:0]       cfg_slack,     // cycles of send credit a late QP keeps

    input  wire logic              upd_valid,
    output logic                   upd_ready,
    input  wire logic [QPN_W-1:0]  upd_qpn,
    input  wire logic [RATE_W-1:0] upd_rate,
    input  wire logic              upd_init,

    input  wire logic              req_valid,
    output logic                   req_ready,
    input  wire logic [QPN_W-1:0]  req_qpn,
    input  wire logic [LEN_W-1:0]  req_len,

    output logic                   rsp_valid,
    output logic [QPN_W-1:0]       rsp_qpn,
    output logic                   rsp_grant,
    output logic [TS_W-1:0]        rsp_time,      // grant: now; deny: earliest grant cycle

    output logic [TS_W-1:0]        status_time,
    output logic                   status_busy,
    output logic [CNT_W-1:0]       cnt_grant,
    output logic [CNT_W-1:0]       cnt_deny,
    output logic [CNT_W-1:0]       cnt_rate_set
);

  localparam longint KINT = 8 * CLK_MHZ;
  localparam int     N_W  = $clog2(KINT + 1) + FRAC_W + RATE_FRAC;   // dividend bits
  localparam int     STEPS = (N_W + DIV_BITS - 1) / DIV_BITS;
  localparam int     NW    = STEPS * DIV_BITS;                         // padded
  localparam int     TW    = TS_W + FRAC_W;
  localparam int     UCW   = $clog2(UPD_DEPTH) + 1;

  if (NUM_QP < 2 || QPN_W < $clog2(NUM_QP)) begin : g_check_qp
    $error("fabnic_rate_limiter: NUM_QP must be >= 2 and fit in QPN_W");
  end
  if (DIV_BITS < 1 || DIV_BITS > 4) begin : g_check_div
    $error("fabnic_rate_limiter: DIV_BITS must be 1..4");
  end
  if (N_W > 63) begin : g_check_n
    $error("fabnic_rate_limiter: dividend too wide");
  end

  localparam logic [NW-1:0] DIVIDEND = NW'(KINT) << (FRAC_W + RATE_FRAC);

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

  // ---------------------------------------------------------------- update FIFO
  logic                    uf_valid, uf_ready;
  logic [QPN_W+RATE_W:0]   uf_data;
  logic [UCW-1:0]          uf_count;

  fabnic_fifo #(.WIDTH(QPN_W + RATE_W + 1), .DEPTH(UPD_DEPTH)) u_upd_fifo (
    .clk, .rst,
    .in_valid(upd_valid), .in_ready(upd_ready), .in_data({upd_qpn, upd_rate, upd_init}),
    .out_valid(uf_valid), .out_ready(uf_ready), .out_data(uf_data),
    .status_count(uf_count)
  );

  // ---------------------------------------------------------------- divider
  // restoring division DIVIDEND / rate, radix 2**DIV_BITS: each cycle the remainder,
  // extended by the next DIV_BITS dividend bits, is compared with the multiples
  // k x rate (k = 1 .. 2**DIV_BITS - 1, registered when the division starts) in
  // parallel; the largest multiple that fits is subtracted and k is the quotient digit.
  localparam int NMUL = (1 << DIV_BITS) - 1;
  localparam int RW   = RATE_W + DIV_BITS;    // extended remainder, multiples

  logic              div_prep_q, div_busy_q, div_done_q;
  logic [RATE_W-1:0] div_den_q;
  logic [$clog2(STEPS+1)-1:0] div_cnt_q;
  logic [NW-1:0]     div_num_q;     // dividend bits still to shift in (MSB first)
  logic [NW-1:0]     div_quo_q;
  logic [RATE_W-1:0] div_rem_q;
  logic [RW-1:0]     div_mul_q [1:NMUL];   // k x rate
  logic [QPN_W-1:0]  div_qpn_q;
  logic              div_init_q;
  logic              set_take;      // the pipeline takes the finished result

  logic [RATE_W-1:0] rem_nx;
  logic [NW-1:0]     quo_nx, num_nx;
  always_comb begin
    logic [RW-1:0]       r;
    logic [RW:0]         d;
    logic [DIV_BITS-1:0] digit;
    r      = {div_rem_q, div_num_q[NW-1 -: DIV_BITS]};
    num_nx = div_num_q << DIV_BITS;
    digit  = '0;
    rem_nx = RATE_W'(r);
    for (int k = 1; k <= NMUL; k++) begin
      d = {1'b0, r} - {1'b0, div_mul_q[k]};
      if (!d[RW]) begin                        // r >= k x rate (multiples increase with k)
        digit  = DIV_BITS'(k);
        rem_nx = RATE_W'(d);
      end
    end
    quo_nx = {div_quo_q[NW-DIV_BITS-1:0], digit};
  end

  assign uf_ready = !div_prep_q && !div_busy_q && !div_done_q && !clr_q;

  always_ff @(posedge clk) begin
    if (uf_valid && uf_ready) begin
      div_cnt_q  <= '0;
      div_num_q  <= DIVIDEND;
      div_quo_q  <= '0;
      div_rem_q  <= '0;
      {div_qpn_q, div_den_q, div_init_q} <= uf_data;
    end else if (div_prep_q) begin
      // the multiples k x rate, from the registered rate (shift-and-add, constant k)
      for (int k = 1; k <= NMUL; k++) begin
        logic [RW-1:0] acc;
        acc = '0;
        for (int b = 0; b < DIV_BITS; b++) begin
          if (k[b]) acc = acc + (RW'(div_den_q) << b);
        end
        div_mul_q[k] <= acc;
      end
    end else if (div_busy_q) begin
      div_num_q <= num_nx;
      div_quo_q <= quo_nx;
      div_rem_q <= rem_nx;
      div_cnt_q <= div_cnt_q + 1'b1;
    end
    if (rst) begin
      div_prep_q <= 1'b0;
      div_busy_q <= 1'b0;
      div_done_q <= 1'b0;
    end else begin
      if (uf_valid && uf_ready) begin
        div_prep_q <= 1'b1;
      end else if (div_prep_q) begin
        div_prep_q <= 1'b0;
        div_busy_q <= 1'b1;
      end else if (div_busy_q) begin
        if (div_cnt_q == ($clog2(STEPS+1))'(STEPS - 1)) begin
          div_busy_q <= 1'b0;
          div_done_q <= 1'b1;
        end
      end else if (set_take) begin
        div_done_q <= 1'b0;
      end
    end
  end

  logic [CPB_W-1:0] div_cpb;
  assign div_cpb = (div_quo_q > NW'({CPB_W{1'b1}})) ? {CPB_W{1'b1}} : CPB_W'(div_quo_q);

  // ---------------------------------------------------------------- issue (S0)
  // Hazard rule (stall): an op is not issued while an op for the same QP is in S1..S3;
  // the RAM write at the end of S3 is visible to a read issued in the next cycle.
  localparam int NSTG = 3;
  localparam int CH   = CPB_W / 2;          // multiplier split: cpb = {hi, lo}, lo CH bits

  logic             s_valid [1:NSTG];
  logic [QPN_W-1:0] s_qpn   [1:NSTG];
  logic             s1_set_q, s1_init_q;
  logic [LEN_W-1:0] s1_len_q;
  logic [CPB_W-1:0] s1_cpb_q;
  logic [TS_W-1:0]  nowm_slack_q;           // now_q - cfg_slack (cfg_slack one cycle late)
  logic             issue_set, issue_req;
  logic [QPN_W-1:0] issue_qpn;

  // the request's QP against S1..S3 (fabnic_cc_match: balanced compare trees)
  logic [NSTG-1:0]       stg_v;
  logic [NSTG*QPN_W-1:0] stg_qpn;
  logic                  req_hz;
  always_comb begin
    for (int i = 1; i <= NSTG; i++) begin
      stg_v[i-1] = s_valid[i];
      stg_qpn[(i-1)*QPN_W +: QPN_W] = s_qpn[i];
    end
  end
  fabnic_cc_match #(.W(QPN_W), .N(NSTG)) u_req_hz (
    .key(req_qpn), .valid(stg_v), .entries(stg_qpn), .hit(), .any(req_hz));

  // The divider's QP changes only when a division starts (DIV cycles before its
  // result), so its hazard is registered one cycle ahead: compared with the ops that
  // will be in S1..S3 in the next cycle (the request issuing now, S1, S2).
  logic hz_div_q;
  logic req_div_eq, hz_div_d;
  fabnic_cc_match #(.W(QPN_W), .N(NSTG - 1)) u_div_hz (
    .key(div_qpn_q), .valid(stg_v[NSTG-2:0]), .entries(stg_qpn[(NSTG-1)*QPN_W-1:0]), .hit(),
    .any(hz_div_d));
  fabnic_cc_match #(.W(QPN_W), .N(1)) u_req_div (
    .key(req_qpn), .valid(1'b1), .entries(div_qpn_q), .hit(req_div_eq), .any());
  assign issue_set = !clr_q && div_done_q && !hz_div_q;
  assign set_take  = issue_set;
  assign req_ready = !clr_q && !issue_set && !req_hz;
  assign issue_req = req_valid && req_ready;
  assign issue_qpn = issue_set ? div_qpn_q : req_qpn;

  always_ff @(posedge clk) begin
    s_valid[1] <= issue_set || issue_req;
    for (int i = 2; i <= NSTG; i++) s_valid[i] <= s_valid[i-1];
    s_qpn[1] <= issue_qpn;
    for (int i = 2; i <= NSTG; i++) s_qpn[i] <= s_qpn[i-1];
    s1_set_q     <= issue_set;
    s1_init_q    <= div_init_q;
    s1_len_q     <= req_len;
    s1_cpb_q     <= div_cpb;
    nowm_slack_q <= now_q + TS_W'(1) - TS_W'(cfg_slack);
    hz_div_q     <= (issue_req && req_div_eq) || hz_div_d;
    if (rst) begin
      for (int i = 1; i <= NSTG; i++) s_valid[i] <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- RAM
  logic [TW+CPB_W+LEN_W-1:0] ram_rd_data, ram_wr_data;
  logic                ram_wr_en;
  logic [QPN_W-1:0]    ram_wr_addr;

  fabnic_ram_sdp #(.DATA_W(TW + CPB_W + LEN_W), .DEPTH(NUM_QP), .ADDR_W(QPN_W)) u_pace_ram (
    .clk,
    .wr_en(ram_wr_en), .wr_be(1'b1), .wr_addr(ram_wr_addr), .wr_data(ram_wr_data),
    .rd_en(issue_set || issue_req), .rd_regce(1'b1), .rd_addr(issue_qpn), .rd_data(ram_rd_data)
  );

  // ---------------------------------------------------------------- S1: decide
  // grant iff now >= floor(next); the base of the new next time (max(next, now - slack));
  // the multiplier operands (request length x cpb, or last length x new cpb).
  logic [TW-1:0]    next, now_fx, floor_fx, ahead, delta;
  logic [CPB_W-1:0] cpb;
  logic [LEN_W-1:0] last_len;
  logic [TS_W-1:0]  next_int, late;
  logic             grant;
  assign {next, cpb, last_len} = ram_rd_data;
  assign next_int = next[TW-1:FRAC_W];
  assign now_fx   = {now_q, FRAC_W'(0)};
  assign floor_fx = {nowm_slack_q, FRAC_W'(0)};
  assign late     = now_q - next_int;
  assign ahead    = next - floor_fx;
  assign delta    = next - now_fx;
  assign grant    = !s1_set_q && !late[TS_W-1];      // now >= floor(next), modular

  logic             s2_set_q, s2_init_q, s2_grant_q;
  logic [TW-1:0]    s2_base_q, s2_next_q, s2_delta_q, s2_now_fx_q;
  logic [CPB_W-1:0] s2_cpb_q;                        // cpb written back
  logic [LEN_W-1:0] s2_len_q;                        // last length written back
  logic [LEN_W-1:0] s2_ma_q;                         // multiplier operands
  logic [CPB_W-1:0] s2_mb_q;

  always_ff @(posedge clk) begin
    s2_set_q    <= s1_set_q;
    s2_init_q   <= s1_init_q;
    s2_grant_q  <= grant;
    // next behind now - slack (modular compare): restart from now - slack
    s2_base_q   <= ahead[TW-1] ? floor_fx : next;
    s2_next_q   <= next;
    s2_delta_q  <= delta;
    s2_now_fx_q <= now_fx;
    s2_cpb_q    <= s1_set_q ? s1_cpb_q : cpb;
    s2_len_q    <= s1_set_q ? last_len : s1_len_q;
    s2_ma_q     <= s1_set_q ? last_len : s1_len_q;
    s2_mb_q     <= s1_set_q ? s1_cpb_q : cpb;
  end

  // ---------------------------------------------------------------- S2: multiply
  // two LEN_W x CH partial products, each one DSP with its output register
  logic [LEN_W+CH-1:0]         s3_plo_q;
  logic [LEN_W+CPB_W-CH-1:0]   s3_phi_q;
  logic                        s3_set_q, s3_init_q, s3_grant_q;
  logic [TW-1:0]               s3_base_q, s3_next_q, s3_delta_q, s3_now_fx_q;
  logic [CPB_W-1:0]            s3_cpb_q;
  logic [LEN_W-1:0]            s3_len_q;

  always_ff @(posedge clk) begin
    s3_plo_q    <= s2_ma_q * s2_mb_q[CH-1:0];
    s3_phi_q    <= s2_ma_q * s2_mb_q[CPB_W-1:CH];
    s3_set_q    <= s2_set_q;
    s3_init_q   <= s2_init_q;
    s3_grant_q  <= s2_grant_q;
    s3_base_q   <= s2_base_q;
    s3_next_q   <= s2_next_q;
    s3_delta_q  <= s2_delta_q;
    s3_now_fx_q <= s2_now_fx_q;
    s3_cpb_q    <= s2_cpb_q;
    s3_len_q    <= s2_len_q;
  end

  // ---------------------------------------------------------------- S3: new next, write back
  //   grant:    next = base + L * cpb
  //   rate set: next = init ? now : min(next, now + last_len * cpb_new)
  logic [TW-1:0] prod, next_new, cap, over, set_next;
  assign prod     = TW'(s3_plo_q) + (TW'(s3_phi_q) << CH);
  assign next_new = s3_base_q + prod;
  assign cap      = s3_now_fx_q + prod;
  assign over     = s3_delta_q - prod;                // = next - cap: next >= cap iff MSB clear
  assign set_next = s3_init_q ? s3_now_fx_q : (over[TW-1] ? s3_next_q : cap);

  always_comb begin
    ram_wr_en   = clr_q;
    ram_wr_addr = clr_addr_q;
    ram_wr_data = '0;
    if (!clr_q && s_valid[NSTG]) begin
      ram_wr_addr = s_qpn[NSTG];
      if (s3_set_q) begin
        ram_wr_en   = 1'b1;
        ram_wr_data = {set_next, s3_cpb_q, s3_len_q};
      end else if (s3_grant_q) begin
        ram_wr_en   = 1'b1;
        ram_wr_data = {next_new, s3_cpb_q, s3_len_q};
      end
    end
  end

  // ---------------------------------------------------------------- response, counters
  always_ff @(posedge clk) begin
    if (rst) begin
      rsp_valid    <= 1'b0;
      cnt_grant    <= '0;
      cnt_deny     <= '0;
      cnt_rate_set <= '0;
    end else begin
      rsp_valid <= s_valid[1] && !s1_set_q;
      if (s_valid[NSTG] && s3_set_q) cnt_rate_set <= cnt_rate_set + 1'b1;
      if (s_valid[1] && !s1_set_q) begin
        if (grant) cnt_grant <= cnt_grant + 1'b1;
        else       cnt_deny  <= cnt_deny + 1'b1;
      end
    end
    rsp_qpn   <= s_qpn[1];
    rsp_grant <= grant;
    rsp_time  <= grant ? now_q : next_int;
  end

  logic unused;
  assign unused = ^{uf_count, late[TS_W-2:0], ahead[TW-2:0], over[TW-2:0]};

endmodule

`resetall
