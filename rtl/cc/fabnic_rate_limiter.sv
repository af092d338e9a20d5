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
// Pipeline: S0 issue (RAM read), S1 decide and write back, response registered.
// A rate write from the divider has priority over requests; an op is not issued
// while an op for the same QP is in S1 (one bubble). Update FIFO full: upd_ready
// low (back-pressure toward the reaction point). The divider takes
// ceil(N_W / DIV_BITS) + 1 cycles per update (25 cycles with the defaults).
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
  // restoring division DIVIDEND / rate, DIV_BITS quotient bits per cycle
  logic              div_busy_q, div_done_q;
  logic [$clog2(STEPS+1)-1:0] div_cnt_q;
  logic [NW-1:0]     div_num_q;     // dividend bits still to shift in (MSB first)
  logic [NW-1:0]     div_quo_q;
  logic [RATE_W:0]   div_rem_q;
  logic [RATE_W-1:0] div_den_q;
  logic [QPN_W-1:0]  div_qpn_q;
  logic              div_init_q;
  logic              set_take;      // the pipeline takes the finished result

  logic [RATE_W:0]   rem_nx;
  logic [NW-1:0]     quo_nx, num_nx;
  always_comb begin
    rem_nx = div_rem_q;
    quo_nx = div_quo_q;
    num_nx = div_num_q;
    for (int j = 0; j < DIV_BITS; j++) begin
      rem_nx = {rem_nx[RATE_W-1:0], num_nx[NW-1]};
      num_nx = num_nx << 1;
      quo_nx = quo_nx << 1;
      if (rem_nx >= {1'b0, div_den_q}) begin
        rem_nx    = rem_nx - {1'b0, div_den_q};
        quo_nx[0] = 1'b1;
      end
    end
  end

  assign uf_ready = !div_busy_q && !div_done_q && !clr_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      div_busy_q <= 1'b0;
      div_done_q <= 1'b0;
    end else begin
      if (uf_valid && uf_ready) begin
        div_busy_q <= 1'b1;
        div_cnt_q  <= '0;
        div_num_q  <= DIVIDEND;
        div_quo_q  <= '0;
        div_rem_q  <= '0;
        {div_qpn_q, div_den_q, div_init_q} <= uf_data;
      end else if (div_busy_q) begin
        div_num_q <= num_nx;
        div_quo_q <= quo_nx;
        div_rem_q <= rem_nx;
        div_cnt_q <= div_cnt_q + 1'b1;
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
  logic             s1_valid_q, s1_set_q, s1_init_q;
  logic [QPN_W-1:0] s1_qpn_q;
  logic [LEN_W-1:0] s1_len_q;
  logic [CPB_W-1:0] s1_cpb_q;
  logic             issue_set, issue_req;
  logic [QPN_W-1:0] issue_qpn;

  assign issue_set = !clr_q && div_done_q && !(s1_valid_q && s1_qpn_q == div_qpn_q);
  assign set_take  = issue_set;
  assign req_ready = !clr_q && !issue_set && !(s1_valid_q && s1_qpn_q == req_qpn);
  assign issue_req = req_valid && req_ready;
  assign issue_qpn = issue_set ? div_qpn_q : req_qpn;

  always_ff @(posedge clk) begin
    if (rst) s1_valid_q <= 1'b0;
    else     s1_valid_q <= issue_set || issue_req;
    s1_set_q  <= issue_set;
    s1_init_q <= div_init_q;
    s1_qpn_q  <= issue_qpn;
    s1_len_q  <= req_len;
    s1_cpb_q  <= div_cpb;
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

  // ---------------------------------------------------------------- S1
  logic [TW-1:0]    next, now_fx, floor_fx, base, next_new, prod, cap, over, set_next;
  logic [CPB_W-1:0] cpb;
  logic [LEN_W-1:0] last_len;
  logic [TS_W-1:0]  next_int, late;
  logic [TW-1:0]    ahead;
  logic             grant;
  assign {next, cpb, last_len} = ram_rd_data;
  assign next_int = next[TW-1:FRAC_W];
  assign now_fx   = {now_q, FRAC_W'(0)};
  assign floor_fx = {now_q - TS_W'(cfg_slack), FRAC_W'(0)};
  assign late     = now_q - next_int;
  assign ahead    = next - floor_fx;
  assign grant    = !s1_set_q && !late[TS_W-1];      // now >= floor(next), modular
  // next behind now - slack (modular compare): restart from now - slack
  assign base     = ahead[TW-1] ? floor_fx : next;
  // one multiplier: request length x cpb (grant), or last length x new cpb (rate set)
  assign prod     = s1_set_q ? TW'(last_len) * TW'(s1_cpb_q) : TW'(s1_len_q) * TW'(cpb);
  assign next_new = base + prod;
  assign cap      = now_fx + prod;
  assign over     = next - cap;                       // modular: next >= cap iff MSB clear
  assign set_next = s1_init_q ? now_fx : (over[TW-1] ? next : cap);

  always_comb begin
    ram_wr_en   = clr_q;
    ram_wr_addr = clr_addr_q;
    ram_wr_data = '0;
    if (!clr_q && s1_valid_q) begin
      ram_wr_addr = s1_qpn_q;
      if (s1_set_q) begin
        ram_wr_en   = 1'b1;
        ram_wr_data = {set_next, s1_cpb_q, last_len};
      end else if (grant) begin
        ram_wr_en   = 1'b1;
        ram_wr_data = {next_new, cpb, s1_len_q};
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      rsp_valid    <= 1'b0;
      cnt_grant    <= '0;
      cnt_deny     <= '0;
      cnt_rate_set <= '0;
    end else begin
      rsp_valid <= s1_valid_q && !s1_set_q;
      if (s1_valid_q && s1_set_q) cnt_rate_set <= cnt_rate_set + 1'b1;
      if (s1_valid_q && !s1_set_q) begin
        if (grant) cnt_grant <= cnt_grant + 1'b1;
        else       cnt_deny  <= cnt_deny + 1'b1;
      end
    end
    rsp_qpn   <= s1_qpn_q;
    rsp_grant <= grant;
    rsp_time  <= grant ? now_q : next_int;
  end

  logic unused;
  assign unused = ^{uf_count, div_rem_q[RATE_W], now_fx[FRAC_W-1:0], late[TS_W-2:0], ahead[TW-2:0],
                    over[TW-2:0]};

endmodule

`resetall
