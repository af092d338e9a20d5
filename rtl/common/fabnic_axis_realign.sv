// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_realign: per-frame "remove the first OFF bytes, keep the next LEN bytes"
// on an AXI-Stream, with the output realigned to lane 0. The shared engine of
// fabnic_axis_hdr_extract, fabnic_pkt_parser and fabnic_roce_rx_hdr.
//
// A command (off, len, trim, chk, drop, bad) is taken together with the first beat of
// each frame (cmd_ready pulses then). The frame's bytes [off, off+len) (or
// [off, end) when trim=0) leave on m_axis, starting at lane 0:
//   - a frame with nothing left to emit gives one beat with tkeep=0, tlast=1;
//   - trim=1: bytes after off+len are discarded; the last output beat is held back
//     until the input's tlast so that the input's tuser[0] still reaches it;
//   - tuser[0] on the last output beat = input tuser[0] (last beat) | bad |
//     (chk & frame shorter than off+len); status_done/status_short pulse per frame;
//   - drop=1: the frame is consumed and nothing is emitted.
//   - tkeep is contiguous from lane 0 (partial only on a last beat); bytes of output
//     lanes with tkeep=0 are zero.
//
// Structure (decide in one stage, act in the next), KEEP_W lanes, s = off mod KEEP_W:
//   P  capture: the input beat, the command (first beat), off+len and the beat's byte
//      count (a thermometer-to-binary encode of tkeep) are registered.
//   D  decide: the beat is classed against the frame's first taken beat b = off/KEEP_W
//      and the trim-end beat eb = (off+len)/KEEP_W (down-counters with registered
//      "next beat" classes), which gives whether it emits, flushes, ends the frame or
//      cuts at the trim end; tdata/tkeep are rotated by the high bits of s.
//   A  act: rotation by the low bits of s, merge with the residual register (lanes
//      below KEEP_W-s come from the previous beat), trim cut by a per-frame
//      thermometer of len mod KEEP_W, residual update; the beat enters the output
//      skid buffer (fabnic_axis_register REG_TYPE 2), whose registered s_axis_tready
//      is the pipeline's advance enable.
// Latency: three cycles (P, D, output register) from an input handshake to the output
// beat it completes. status_done/status_short pulse two cycles after the frame's last
// input beat is taken.
// Throughput: one input beat per cycle; when a frame's realigned tail needs one more
// output beat (flush), the next frame's first beat still moves on in that cycle if it
// produces no output itself, else the pipeline waits one cycle.
// Combinational handshake paths, by design (the command is taken with the first
// beat): cmd_valid -> s_axis_tready, cmd_valid/s_axis_tvalid -> cmd_ready. m_axis_tready
// only reaches flops.
`default_nettype none

module fabnic_axis_realign #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int LEN_W  = 17
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              cmd_valid,
    output logic                   cmd_ready,
    input  wire logic [LEN_W-1:0]  cmd_off,
    input  wire logic [LEN_W-1:0]  cmd_len,
    input  wire logic              cmd_trim,
    input  wire logic              cmd_chk,
    input  wire logic              cmd_drop,
    input  wire logic              cmd_bad,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic                   m_axis_tuser,

    output logic                   status_done,   // a frame's last input beat was taken
    output logic                   status_short   // ... and it was shorter than off+len (chk)
);

  localparam int S_W   = $clog2(KEEP_W);      // lane index bits
  localparam int LO_W  = S_W / 2;             // rotated in stage A
  localparam int HI_W  = S_W - LO_W;          // rotated in stage D
  localparam int POS_W = LEN_W + 1;
  localparam int B_W   = POS_W - S_W;         // beat index bits
  localparam int N_W   = S_W + 1;             // byte count of a beat, 0..KEEP_W

  if (KEEP_W < 4 || (1 << S_W) != KEEP_W || DATA_W != 8 * KEEP_W) begin : g_check_w
    $error("fabnic_axis_realign: KEEP_W must be a power of two >= 4 and DATA_W = 8*KEEP_W");
  end
  if (LEN_W <= S_W) begin : g_check_len
    $error("fabnic_axis_realign: LEN_W must be larger than log2(KEEP_W)");
  end

  // byte count of a contiguous tkeep: n == i <=> lane i-1 set and lane i clear
  function automatic logic [N_W-1:0] count_of(input logic [KEEP_W-1:0] k);
    logic [N_W-1:0] c;
    c = {k[KEEP_W-1], {S_W{1'b0}}};
    for (int i = 1; i < KEEP_W; i++) c = c | ({N_W{k[i-1] & !k[i]}} & N_W'(i));
    return c;
  endfunction

  function automatic logic [DATA_W-1:0] bits_of(input logic [KEEP_W-1:0] k);
    logic [DATA_W-1:0] b;
    for (int i = 0; i < KEEP_W; i++) b[8*i +: 8] = {8{k[i]}};
    return b;
  endfunction

  // ---------------------------------------------------------------- handshakes
  logic go;          // every stage advances (output skid has room, no flush conflict)
  logic in_frame_q;  // capture side: a frame's command has been taken
  logic s_fire;

  assign s_axis_tready = go && (in_frame_q || cmd_valid);
  assign s_fire        = s_axis_tvalid && s_axis_tready;
  assign cmd_ready     = s_fire && !in_frame_q;

  // ---------------------------------------------------------------- P: capture
  logic              p_v, p_first, p_last, p_user;
  logic [DATA_W-1:0] p_data;
  logic [KEEP_W-1:0] p_keep;
  logic [N_W-1:0]    p_n;
  logic [LEN_W-1:0]  p_off, p_len;
  logic [POS_W-1:0]  p_ne;      // off + len
  logic              p_trim, p_chk, p_drop, p_bad;

  always_ff @(posedge clk) begin
    if (go) begin
      p_v     <= s_fire;
      p_first <= !in_frame_q;
      p_last  <= s_axis_tlast;
      p_user  <= s_axis_tuser;
      p_data  <= s_axis_tdata;
      p_keep  <= s_axis_tkeep;
      p_n     <= count_of(s_axis_tkeep);
      p_off   <= cmd_off;
      p_len   <= cmd_len;
      p_ne    <= POS_W'(cmd_off) + POS_W'(cmd_len);
      p_trim  <= cmd_trim;
      p_chk   <= cmd_chk;
      p_drop  <= cmd_drop;
      p_bad   <= cmd_bad;
    end
    if (s_fire) in_frame_q <= !s_axis_tlast;
    if (rst) begin
      p_v        <= 1'b0;
      in_frame_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- D: decide
  // beat classes against b (first taken beat) and eb (trim-end beat)
  typedef enum logic [1:0] {B_BEFORE, B_AT, B_AFTER} bcls_e;
  typedef enum logic [1:0] {E_LT2, E_LT1, E_EQ, E_GT} ecls_e;

  // frame state of the beat in D (loaded when a frame's first beat enters D)
  logic [S_W-1:0]    s_q, elo_q;
  logic              trim_q, chk_q, drop_q, bad_q, egs_q;
  logic [B_W-1:0]    cb_q, ce_q;      // b - j, eb - j of the next beat
  // per-frame lane masks, in the rotated (output) lane order
  logic [KEEP_W-1:0] atw, atw_q;      // lanes of the first taken beat (L < KEEP_W - s)
  logic [KEEP_W-1:0] ssm, ssm_q;      // lanes taken from the residual (atw, s != 0)
  logic [KEEP_W-1:0] ktm, ktm_q;      // trim cut: L < len mod KEEP_W (all if 0; none if len 0)
  bcls_e             bc_q;            // class of the next beat
  ecls_e             ec_q;

  logic              d_v, d_emit, d_olast, d_user, d_flush;
  logic              d_at, d_take, d_hold, d_after, d_updrot, d_cutm, d_cutr;
  logic [DATA_W-1:0] d_data;          // rotated by the high bits of s
  logic [KEEP_W-1:0] d_keep;

  logic [S_W-1:0]    s_c, elo_c;
  logic              trim_c, chk_c, drop_c, bad_c, egs_c, s0_c, elo0_c;
  logic [B_W-1:0]    cb_c, ce_c;
  bcls_e             bc_c, bc_n;
  ecls_e             ec_c, ec_n;
  logic              pre_b, at_b, post_b, hold, tend, split, en_nl, flush, short_c, n_gt_s;
  logic [B_W-1:0]    b_first;
  logic [POS_W-S_W-1:0] eb_first;

  always_comb begin
    b_first  = B_W'(p_off[LEN_W-1:S_W]);
    eb_first = p_ne[POS_W-1:S_W];
    if (p_first) begin
      s_c    = p_off[S_W-1:0];
      elo_c  = p_ne[S_W-1:0];
      trim_c = p_trim;
      chk_c  = p_chk;
      drop_c = p_drop;
      bad_c  = p_bad;
      egs_c  = p_off[S_W-1:0] != '0 && p_ne[S_W-1:0] > p_off[S_W-1:0];
      cb_c   = b_first;
      ce_c   = eb_first;
      bc_c   = (b_first == '0) ? B_AT : B_BEFORE;
      ec_c   = (eb_first == '0) ? E_EQ : (eb_first == B_W'(1)) ? E_LT1 : E_LT2;
    end else begin
      s_c    = s_q;
      elo_c  = elo_q;
      trim_c = trim_q;
      chk_c  = chk_q;
      drop_c = drop_q;
      bad_c  = bad_q;
      egs_c  = egs_q;
      cb_c   = cb_q;
      ce_c   = ce_q;
      bc_c   = bc_q;
      ec_c   = ec_q;
    end
    // next beat's classes
    if (bc_c != B_BEFORE) bc_n = B_AFTER;
    else bc_n = (cb_c == B_W'(1)) ? B_AT : B_BEFORE;
    if (ec_c == E_EQ || ec_c == E_GT) ec_n = E_GT;
    else if (ec_c == E_LT1) ec_n = E_EQ;
    else ec_n = (ce_c == B_W'(2)) ? E_LT1 : E_LT2;

    for (int l = 0; l < KEEP_W; l++) begin
      atw[l] = p_first ? (N_W'(l) + N_W'(p_off[S_W-1:0])) < N_W'(KEEP_W) : atw_q[l];
      ssm[l] = p_first ? atw[l] && p_off[S_W-1:0] != '0 : ssm_q[l];
      ktm[l] = p_first ? p_len != '0 && (p_len[S_W-1:0] == '0 || S_W'(l) < p_len[S_W-1:0])
                       : ktm_q[l];
    end
    s0_c   = s_c == '0;
    elo0_c = elo_c == '0;
    pre_b  = bc_c == B_BEFORE;
    at_b   = bc_c == B_AT;
    post_b = bc_c == B_AFTER;
    // trim end passed before this beat: nothing more is taken
    hold   = post_b && trim_c && (ec_c == E_GT || (ec_c == E_EQ && elo0_c));
    // the trim end lies in this beat or at its end
    tend   = trim_c && !hold && (ec_c == E_EQ || (ec_c == E_LT1 && elo0_c));
    // ... and the merged beat is full with bytes left over (the rest is the residual)
    split  = post_b && !s0_c && (ec_c == E_EQ ? egs_c : (ec_c == E_LT1 && elo0_c));
    // a non-last beat completes an output beat
    en_nl  = !drop_c && !pre_b && !hold && (at_b ? (s0_c && !tend) : (!tend || split));
    n_gt_s = p_n > N_W'(s_q);   // only used on beats after b (never a frame's first)
    flush  = p_last && !drop_c && post_b && !hold && !s0_c && (!tend || split) && n_gt_s;
    // frame length 64j+n < off+len (64eb+elo), j the last beat
    short_c = chk_c && (ec_c == E_LT2 || (ec_c == E_LT1 && !(p_n[S_W] && elo0_c)) ||
                        (ec_c == E_EQ && p_n < N_W'(elo_c)));
  end

  // rotations: lane L <- lane (L + k) mod KEEP_W
  function automatic logic [DATA_W-1:0] rot_data(input logic [DATA_W-1:0] x,
                                                 input logic [S_W-1:0] k);
    logic [2*DATA_W-1:0] xx;
    xx = {x, x};
    return xx[8*int'(k) +: DATA_W];
  endfunction

  function automatic logic [KEEP_W-1:0] rot_keep(input logic [KEEP_W-1:0] x,
                                                 input logic [S_W-1:0] k);
    logic [2*KEEP_W-1:0] xx;
    xx = {x, x};
    return xx[int'(k) +: KEEP_W];
  endfunction

  logic [S_W-1:0] s_hi_c;
  assign s_hi_c = {s_c[S_W-1:LO_W], {LO_W{1'b0}}};

  always_ff @(posedge clk) begin
    if (go) begin
      d_v      <= p_v;
      d_data   <= rot_data(p_data, s_hi_c);
      d_keep   <= rot_keep(p_keep, s_hi_c);
      d_emit   <= p_last ? !drop_c : en_nl;
      d_olast  <= p_last && !flush;
      d_flush  <= flush;
      d_user   <= p_user || bad_c || short_c;
      d_at     <= at_b;
      d_take   <= !pre_b && !hold;
      d_hold   <= hold;
      d_after  <= post_b && !hold;
      d_updrot <= (!p_last && en_nl) || flush;
      d_cutm   <= tend && !split;
      d_cutr   <= tend && split;
      status_done  <= p_v && p_last;
      status_short <= p_v && p_last && short_c;
      if (p_v) begin
        s_q    <= s_c;
        atw_q  <= atw;
        ssm_q  <= ssm;
        ktm_q  <= ktm;
        elo_q  <= elo_c;
        trim_q <= trim_c;
        chk_q  <= chk_c;
        drop_q <= drop_c;
        bad_q  <= bad_c;
        egs_q  <= egs_c;
        cb_q   <= cb_c - 1'b1;
        ce_q   <= ce_c - 1'b1;
        bc_q   <= bc_n;
        ec_q   <= ec_n;
      end
    end else begin
      status_done  <= 1'b0;
      status_short <= 1'b0;
    end
    if (rst) begin
      d_v          <= 1'b0;
      status_done  <= 1'b0;
      status_short <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- A: act

  logic              flush_q, flush_user_q;
  logic [DATA_W-1:0] r_q;              // residual bytes
  logic [KEEP_W-1:0] rv_q;             // residual valid lanes

  logic [DATA_W-1:0] a_rd, o_data, r_next;
  logic [KEEP_W-1:0] a_rk, a_cv, a_sel, a_mv, o_keep, rv_next, win;
  logic              o_valid, o_last, o_user, sk_ready;

  always_comb begin
    a_rd = rot_data(d_data, {{HI_W{1'b0}}, s_q[LO_W-1:0]});
    a_rk = rot_keep(d_keep, {{HI_W{1'b0}}, s_q[LO_W-1:0]});
    win  = d_at ? atw_q : {KEEP_W{d_take}};
    a_cv = a_rk & win;                                    // this beat's taken lanes
    a_sel = {KEEP_W{d_hold}} | ({KEEP_W{d_after}} & ssm_q); // lanes from the residual
    a_mv = (a_sel & rv_q) | (~a_sel & a_cv);
    if (flush_q) begin
      o_keep = rv_q;
      o_data = r_q & bits_of(rv_q);
      o_last = 1'b1;
      o_user = flush_user_q;
    end else begin
      o_keep = a_mv & (d_cutm ? ktm_q : '1);
      o_data = ((r_q & bits_of(a_sel)) | (a_rd & ~bits_of(a_sel))) & bits_of(o_keep);
      o_last = d_olast;
      o_user = d_user && d_olast;
    end
    o_valid = flush_q || (d_v && d_emit);
    r_next  = (r_q & bits_of(a_sel & ~{KEEP_W{d_updrot}})) |
              (a_rd & ~bits_of(a_sel & ~{KEEP_W{d_updrot}}));
    rv_next = d_updrot ? (a_cv & ssm_q & (d_cutr ? ktm_q : '1)) : (a_mv & (d_cutm ? ktm_q : '1));
  end

  assign go = sk_ready && !(flush_q && d_v && d_emit);

  always_ff @(posedge clk) begin
    if (sk_ready && flush_q) flush_q <= 1'b0;
    if (go && d_v) begin
      r_q  <= r_next;
      rv_q <= rv_next;
      if (d_flush) begin
        flush_q      <= 1'b1;
        flush_user_q <= d_user;
      end
    end
    if (rst) begin
      flush_q <= 1'b0;
      rv_q    <= '0;
    end
  end

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_out (
      .clk, .rst,
      .s_axis_tdata(o_data), .s_axis_tkeep(o_keep), .s_axis_tvalid(o_valid),
      .s_axis_tready(sk_ready), .s_axis_tlast(o_last), .s_axis_tuser(o_user),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser
  );

endmodule

`resetall
