// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_realign: per-frame "remove the first OFF bytes, keep the next LEN bytes"
// on an AXI-Stream, with the output realigned to lane 0. The shared engine of
// fabnic_axis_hdr_extract, fabnic_pkt_parser and fabnic_roce_rx_hdr.
//
// Parameters:
//   DATA_W  tdata width; must be 8*KEEP_W.
//   KEEP_W  byte lanes; must be a power of two >= 4 ($error otherwise).
//   LEN_W   width of cmd_off/cmd_len; must be larger than log2(KEEP_W).
//   CNT_IN  1: s_axis_tcnt carries the beat's byte count (tkeep's population, from the
//           producer's register: the count is then not computed here, which takes
//           the count's levels off the paths from tkeep); 0: s_axis_tcnt is unused.
//   CMD_REG 0: the command fields are decoded in the cycle of the frame's first beat
//           (cmd_off..cmd_bad are read together with cmd_valid; cmd_load is unused).
//           1: the command fields are decoded into the realigner's command register on
//           each cycle with cmd_load high, and cmd_valid/cmd_ready refer to that
//           register's content: the parent keeps the command's valid bit and loads the
//           register like its own command register (cmd_load only while no command is
//           offered or in the cycle it is taken, checked by an assertion). The first
//           beat then reads flops only, one cycle of decode earlier; the latency from
//           cmd_valid is unchanged.
//
// A command (off, len, trim, chk, drop, bad) is taken together with the first beat of
// each frame (cmd_ready is that beat's handshake). The frame's bytes [off, off+len)
// (or [off, end) when trim=0) leave on m_axis, starting at lane 0:
//   - a frame with nothing left to emit gives one beat with tkeep=0, tlast=1;
//   - trim=1: bytes after off+len are discarded; the last output beat is held back
//     until the input's tlast so that the input's tuser[0] still reaches it;
//   - tuser[0] on the last output beat = input tuser[0] (last beat) | bad |
//     (chk & frame shorter than off+len); status_done/status_short pulse one cycle
//     after the frame's last input beat is taken;
//   - drop=1: the frame is consumed and nothing is emitted.
// tkeep must be contiguous from lane 0 (partial only on a last beat); output bytes of
// lanes with tkeep=0 are zero.
//
// Structure, s = off mod KEEP_W, b = off / KEEP_W. One stage: each beat is acted on in
// its handshake cycle and its output beat enters the output queue.
//   - Rotation: the beat, its bytes beyond tkeep zeroed, is rotated by s (lane L <-
//     lane (L+s) mod KEEP_W) in two steps, by the high and by the low bits of s. Each
//     step is a one-hot multiplexer per bit built on the carry chain (one carry level
//     per step); the one-hot selects come from the command decode on a frame's first
//     beat and from a register after it.
//   - Merge: output beat m takes the lanes below KEEP_W-s from input beat b+m and the
//     lanes above from beat b+m+1, so the residual register keeps the last rotated beat
//     and an output beat is a lane-wise select between the residual and the rotated
//     beat.
//   - Decisions: which lanes come from where and whether a beat emits, flushes or ends
//     the frame are registered for the next beat while the current one is taken: its
//     class (before b / at b / after b / trim end passed, its place against the trim
//     end and against off+len) and the lane masks that follow from it and from the
//     per-frame masks. A frame's first beat decides from the command decode (dec_t:
//     the frame's constants, the first beat's flags and what it leaves for the second
//     beat), combinational from the command ports (CMD_REG = 0) or registered
//     (CMD_REG = 1).
//   - Output queue: three beats, its head is the m_axis register. A frame whose last
//     input beat leaves bytes for one more output beat (flush) writes that beat from
//     the residual in the next cycle, ahead of that cycle's beat output.
// Latency: 1 cycle from the input beat that completes an output beat to that beat on
// m_axis (queue empty or its head leaving); the flush beat 1 cycle after the frame's
// other last output beat.
// Throughput: one input beat per cycle while the queue holds at most one beat (it never
// overflows: a taken beat adds at most its output beat and its flush beat, and a
// pending flush beat excludes a flush of the beat taken with it). With m_axis_tready
// high the queue holds two beats only after a cycle that wrote a flush beat and the
// output of the next frame's first beat; the input then waits one cycle. Back-to-back
// one-beat frames go at one frame per cycle.
// Combinational handshake paths, by design (the command is taken with the first
// beat): cmd_valid -> s_axis_tready and cmd_valid/s_axis_tvalid -> cmd_ready. The rest
// of s_axis_tready is a flop; m_axis_tready only reaches flops.
`default_nettype none

module fabnic_axis_realign #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int LEN_W  = 17,
    parameter bit CNT_IN = 1'b0,
    parameter bit CMD_REG = 1'b0
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
    input  wire logic              cmd_load,      // CMD_REG = 1: sample the command fields

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic [$clog2(KEEP_W):0] s_axis_tcnt,   // CNT_IN = 1: bytes in the beat
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

  localparam int S_W   = $clog2(KEEP_W);        // lane index bits
  localparam int LO_W  = S_W / 2;               // low bits of s (second rotation step)
  localparam int HI_W  = S_W - LO_W;            // high bits of s (first rotation step)
  localparam int NH    = 1 << HI_W;             // one-hot widths
  localparam int NL    = 1 << LO_W;
  localparam int N_W   = S_W + 1;               // byte count of a beat, 0..KEEP_W
  localparam int POS_W = LEN_W + 1;             // off + len
  localparam int B_W   = LEN_W - S_W;           // beat index of off
  localparam int TC_W  = LEN_W - S_W + 1;       // signed output-beat distance to the trim end
  localparam int CE_W  = POS_W - S_W + 1;       // signed input-beat distance to off+len
  localparam int NQ    = 3;                     // output queue beats

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

  // x[j] for the one set bit j of oh, as the carry out of (x | ~oh) + (x & oh): every
  // position but j propagates the carry, position j generates (x[j] = 1) or kills it
  // (x[j] = 0). Maps onto one carry chain with x on its data inputs.
  function automatic logic cmux_h(input logic [NH-1:0] x, input logic [NH-1:0] oh);
    logic [NH:0] sum;
    sum = {1'b0, x | ~oh} + {1'b0, x & oh};
    return sum[NH];
  endfunction

  function automatic logic cmux_l(input logic [NL-1:0] x, input logic [NL-1:0] oh);
    logic [NL:0] sum;
    sum = {1'b0, x | ~oh} + {1'b0, x & oh};
    return sum[NL];
  endfunction

  // ---------------------------------------------------------------- state
  logic              in_frame_q;     // a frame's command has been taken
  // per frame (loaded with the first beat)
  logic [S_W-1:0]    s_q;
  logic [NH-1:0]     ohh_q;          // one-hot of s / NL
  logic [NL-1:0]     ohl_q;          // one-hot of s mod NL
  logic              s0_q, egs_q, trim_q, chk_q, drop_q, bad_q;
  logic [KEEP_W-1:0] atw_q;          // lanes below KEEP_W-s (all when s = 0)
  logic [KEEP_W-1:0] ktm_q;          // lanes of the trim-end output beat (below len mod KEEP_W, all if 0)
  logic [S_W-1:0]    rnm1_q;         // (off+len-1) mod KEEP_W: last byte of off+len in its beat
  // the frame's next beat: class, counters, lane masks and flags
  logic              pre_q, at_q, post_q, hold_q;  // before b, at b, after b, trim end passed
  logic              nb_gt_q, nb_eq_q;             // off+len ends after / in this beat
  logic [B_W-1:0]    cb_q;           // b - j
  logic              cb_gt1_q, cb_eq1_q;  // cb_q > 1, cb_q = 1 (while before b)
  logic [TC_W-1:0]   tc_q;           // trim-end output beat - output beat of this beat's low lanes
  logic [CE_W-1:0]   ce_q;           // beat of the last byte of off+len - j
  logic [KEEP_W-1:0] bq_q, aq_q, rq_q, kq_q;  // its lane masks (see b_m, a_m, r_m, ka_m)
  logic              enl_q, flq_q;   // it completes an output beat; it may flush when last
  logic              hin_q;          // the trim end is passed after it
  logic              t_gt0_q, t_gt1_q, t_eq0_q, t_eq1_q, t_m1_q;  // tc_q > 0, > 1, 0, 1, -1
  // residual: the last rotated beat (or the held last output beat)
  logic [DATA_W-1:0] r_q;
  logic [KEEP_W-1:0] rv_q;           // lanes of r_q that belong to the pending output beat
  logic              flush_q, flush_user_q;
  // output queue
  logic [NQ-1:0]     q_v_q;          // slots in use, contiguous from 0
  logic [NQ:0]       q_n_q;          // beats in the queue, one-hot
  logic [DATA_W-1:0] q_d_q [NQ];
  logic [KEEP_W-1:0] q_k_q [NQ];
  logic [NQ-1:0]     q_l_q, q_u_q;

  // ---------------------------------------------------------------- handshakes
  logic first, s_fire;

  assign first         = !in_frame_q;
  assign s_axis_tready = !q_v_q[1] && (in_frame_q || cmd_valid);
  assign s_fire        = s_axis_tvalid && s_axis_tready;
  assign cmd_ready     = s_fire && first;

  // ---------------------------------------------------------------- command decode
  // Everything a frame's first beat takes from its command, from the command fields
  // alone: the frame's constants, the first beat's own flags, and the class and flags
  // it leaves for the second beat (its counters follow from bi, len and need in the
  // first beat's cycle). Read in the first beat's cycle (CMD_REG = 0) or from the
  // command register (CMD_REG = 1).
  typedef struct packed {
    logic [S_W-1:0]    s;            // off mod KEEP_W
    logic [NH-1:0]     ohh;          // one-hot of s / NL
    logic [NL-1:0]     ohl;          // one-hot of s mod NL
    logic              trim, chk, drop, bad;
    logic [POS_W-1:0]  need;         // off + len
    logic [KEEP_W-1:0] b;            // lanes of the first output beat from the first beat
    logic              emit;         // the first beat completes an output beat by itself
    logic              hold;         // the trim end is passed after the first beat
    // what the first beat leaves for the second (its counters are computed in the
    // first beat's cycle from bi, len and need)
    logic              pre, at, post, tpos, tz, tm1, s0, egs;
    logic [KEEP_W-1:0] atw, ktm;
    logic [B_W-1:0]    bi;           // off / KEEP_W
    logic [LEN_W-1:0]  len;
    logic              t_gt0, t_gt1, t_eq0, t_eq1, t_m1;
  } dec_t;

  dec_t dec_c, dec;

  // Written as ANDs and ORs of compares made directly on the fields (no multiplexer
  // between two compares, which synthesis would share into one compare behind a
  // multiplexed operand, and no compare behind an adder where a compare on the fields
  // gives the same flag), and with the counters left to the first beat's cycle: with
  // CMD_REG = 1 the decode is a stage of its own behind the parent's queue read.
  always_comb begin
    logic              b0, lz, lhi, g1, g2, g3, tpos1, tz1, tneg1;
    logic [N_W-1:0]    lm;
    logic [B_W-1:0]    bi;
    bi    = cmd_off[LEN_W-1:S_W];
    b0    = bi == '0;
    lz    = cmd_len == '0;
    lhi   = cmd_len[LEN_W-1:S_W] != '0;                        // len >= KEEP_W
    g1    = POS_W'(cmd_len) > POS_W'(KEEP_W);                  // len > KEEP_W
    g2    = POS_W'(cmd_len) > POS_W'(2 * KEEP_W);
    g3    = POS_W'(cmd_len) > POS_W'(3 * KEEP_W);
    tpos1 = !cmd_trim || g1;
    tz1   = cmd_trim && !lz && !g1;
    tneg1 = cmd_trim && lz;
    dec_c.s    = cmd_off[S_W-1:0];
    for (int h = 0; h < NH; h++) dec_c.ohh[h] = cmd_off[S_W-1:LO_W] == HI_W'(h);
    for (int j = 0; j < NL; j++) dec_c.ohl[j] = cmd_off[LO_W-1:0] == LO_W'(j);
    dec_c.trim = cmd_trim;
    dec_c.chk  = cmd_chk;
    dec_c.drop = cmd_drop;
    dec_c.bad  = cmd_bad;
    dec_c.s0   = cmd_off[S_W-1:0] == '0;
    // ktm: lanes below len mod KEEP_W, all when it is 0, as one compare against a
    // KEEP_W-based count (KEEP_W for 0) like atw
    lm    = {cmd_len[S_W-1:0] == '0, cmd_len[S_W-1:0]};
    for (int l = 0; l < KEEP_W; l++) begin
      dec_c.atw[l] = N_W'(l) + N_W'(cmd_off[S_W-1:0]) < N_W'(KEEP_W);
      dec_c.ktm[l] = N_W'(l) < lm;
      // lane l of the first output beat: from this beat (b = 0), below len or no trim
      dec_c.b[l]   = b0 && dec_c.atw[l] && (!cmd_trim || lhi || (dec_c.ktm[l] && !lm[S_W]));
    end
    // the trim-end output beat (len <= KEEP_W) also needs the next input beat
    dec_c.egs  = !dec_c.s0 && (cmd_len[S_W-1:0] == '0 ||
                               N_W'(cmd_len[S_W-1:0]) + N_W'(cmd_off[S_W-1:0]) > N_W'(KEEP_W));
    dec_c.need = POS_W'(cmd_off) + POS_W'(cmd_len);
    dec_c.emit = b0 && dec_c.s0 && tpos1;
    dec_c.hold = b0 && ((tz1 && (dec_c.s0 || !dec_c.egs)) || tneg1);
    // the second beat's class
    dec_c.pre  = bi > B_W'(1);
    dec_c.at   = bi == B_W'(1);
    dec_c.post = b0;
    dec_c.bi   = bi;
    dec_c.len  = cmd_len;
    // flags of the second beat's trim counter (tc below), from len directly
    dec_c.t_gt0 = (b0 && g2) || (!b0 && g1);
    dec_c.t_gt1 = (b0 && g3) || (!b0 && g2);
    dec_c.t_eq0 = (b0 && g1 && !g2) || (!b0 && !lz && !g1);
    dec_c.t_eq1 = (b0 && g2 && !g3) || (!b0 && g1 && !g2);
    dec_c.t_m1  = (b0 && !lz && !g1) || (!b0 && lz);
    dec_c.tpos  = !cmd_trim || dec_c.t_gt0;
    dec_c.tz    = cmd_trim && dec_c.t_eq0;
    dec_c.tm1   = cmd_trim && dec_c.t_m1;
  end

  // the first beat's counters for the second beat, from the decode
  logic [S_W-1:0]    f_rnm1;   // (off+len-1) mod KEEP_W
  logic [B_W-1:0]    f_cb;     // b - 1
  logic [CE_W-1:0]   f_ce;     // beat of the last byte of off+len, less one
  logic              f_nb_gt, f_nb_eq;
  logic [TC_W-1:0]   f_tc;     // output beat of the trim end, less one when b = 0

  always_comb begin
    f_rnm1  = dec.need[S_W-1:0] - 1'b1;
    f_cb    = dec.bi - 1'b1;
    // ((off+len-1) >> log2(KEEP_W)) - 1 (-2 when off+len = 0); > 0 and = 0 from need
    f_ce    = CE_W'($signed({1'b0, dec.need} - (POS_W+1)'(KEEP_W + 1)) >>> S_W);
    f_nb_gt = dec.need > POS_W'(2 * KEEP_W);
    f_nb_eq = dec.need > POS_W'(KEEP_W) && dec.need <= POS_W'(2 * KEEP_W);
    // floor((len-1)/KEEP_W) (-1 when len = 0), less one when b = 0 (the first beat's
    // low lanes are output beat 0)
    f_tc    = TC_W'($signed({1'b0, dec.len} - (LEN_W+1)'({dec.post, S_W'(1)})) >>> S_W);
  end

  if (CMD_REG) begin : g_cmd_reg
    dec_t dec_q;
    always_ff @(posedge clk) begin
      if (cmd_load) dec_q <= dec_c;
    end
    assign dec = dec_q;
  end else begin : g_cmd_comb
    logic unused_load;
    assign dec         = dec_c;
    assign unused_load = cmd_load;
  end

  // ---------------------------------------------------------------- decisions
  logic [N_W-1:0]    n;                     // bytes in the beat
  logic [KEEP_W-1:0] a_m, b_m, r_m, ka_m;   // lanes: from residual, from beat, new residual,
                                            // residual kept
  logic              emit, flush, last_e, user_l, short_c, hold_in, drop_c;

  assign n = CNT_IN ? N_W'(s_axis_tcnt) : count_of(s_axis_tkeep);

  // later beats: lane masks and flags registered for them, classes for the next beat
  logic at_c, post_c;
  assign at_c   = at_q && !hold_q;
  assign post_c = post_q && !hold_q;

  always_comb begin
    b_m    = first ? dec.b : bq_q;
    a_m    = first ? '0 : aq_q;
    r_m    = first ? dec.b : rq_q;
    ka_m   = first ? '0 : kq_q;
    drop_c = first ? dec.drop : drop_q;
    if (first) begin
      emit    = s_axis_tlast || dec.emit;
      flush   = 1'b0;
      hold_in = dec.hold;
      short_c = dec.chk && POS_W'(n) < dec.need;
      user_l  = s_axis_tuser || dec.bad || short_c;
    end else begin
      emit    = s_axis_tlast || enl_q;
      // the beat's low lanes hold bytes: n > s
      flush   = s_axis_tlast && flq_q && n > N_W'(s_q);
      hold_in = hin_q;
      short_c = chk_q && (nb_gt_q || (nb_eq_q && n <= N_W'(rnm1_q)));
      user_l  = s_axis_tuser || bad_q || short_c;
    end
    emit   = emit && !drop_c;
    flush  = flush && !drop_c;
    last_e = s_axis_tlast && !flush;
  end

  // counters and classes of the next beat
  logic [TC_W-1:0]   n_tc;
  logic [CE_W-1:0]   n_ce;
  logic              n_pre, n_at, n_post, n_hold, n_tpos, n_tz, n_tm1, n_s0, n_egs;
  logic [KEEP_W-1:0] n_atw, n_ktm;

  always_comb begin
    n_tc  = (at_c || post_c) ? tc_q - 1'b1 : tc_q;
    n_ce  = ce_q[CE_W-1] ? ce_q : ce_q - 1'b1;
    if (first) begin
      n_pre  = dec.pre;
      n_at   = dec.at;
      n_post = dec.post;
      n_hold = dec.hold;
      n_tpos = dec.tpos;
      n_tz   = dec.tz;
      n_tm1  = dec.tm1;
      n_s0   = dec.s0;
      n_egs  = dec.egs;
      n_atw  = dec.atw;
      n_ktm  = dec.ktm;
    end else begin
      n_pre  = pre_q && !hold_q && cb_gt1_q;
      n_at   = pre_q && !hold_q && cb_eq1_q;
      n_post = !(pre_q && !hold_q) || post_q;
      n_hold = hold_q || hold_in;
      if (at_c || post_c) begin
        n_tpos = !trim_q || t_gt1_q;
        n_tz   = trim_q && t_eq1_q;
        n_tm1  = trim_q && t_eq0_q;
      end else begin
        n_tpos = !trim_q || t_gt0_q;
        n_tz   = trim_q && t_eq0_q;
        n_tm1  = trim_q && t_m1_q;
      end
      n_s0   = s0_q;
      n_egs  = egs_q;
      n_atw  = atw_q;
      n_ktm  = ktm_q;
    end
  end

  // lane masks and flags of the next beat (when it is not a frame's first)
  logic [KEEP_W-1:0] n_bq, n_aq, n_rq, n_kq;
  logic              n_enl, n_flq, n_hin;

  always_comb begin
    logic nat, npost, m1n, m2n;
    nat   = n_at && !n_hold;
    npost = n_post && !n_hold;
    m1n   = nat || (npost && n_s0);       // the beat's low lanes complete an output beat
    m2n   = npost && !n_s0;               // residual low lanes + beat high lanes
    for (int l = 0; l < KEEP_W; l++) begin
      n_bq[l] = n_atw[l] ? (m1n && (n_tpos || (n_tz && n_ktm[l])))
                         : (m2n && (n_tpos || n_tz || (n_tm1 && n_ktm[l])));
      n_aq[l] = n_hold || (m2n && n_atw[l]);
      n_rq[l] = n_atw[l] ? ((nat || npost) && (n_tpos || (n_tz && n_ktm[l])))
                         : (m2n && n_tm1 && n_ktm[l]);
      n_kq[l] = n_hold || (m2n && n_tm1 && n_atw[l]);
    end
    n_enl = (m1n && n_s0 && n_tpos) || (m2n && (n_tpos || n_tz));
    n_flq = m2n && (n_tpos || n_tz);
    // the trim end is passed after it: its output beat is complete (in its low lanes,
    // or with the high lanes of the trim-end beat), or len = 0
    n_hin = ((nat || npost) && n_tz && (n_s0 || !n_egs)) || (nat && !n_tpos && !n_tz) ||
            (m2n && n_tm1);
  end


  // ---------------------------------------------------------------- rotation
  // lane L <- lane (L + h*NL + j) mod KEEP_W for the one-hot amounts h (ohh) and j (ohl)
  logic [DATA_W-1:0] dm, rot_h, rot;
  logic [KEEP_W-1:0] rotk_h, rotk;
  logic [NH-1:0]     ohh;
  logic [NL-1:0]     ohl;

  always_comb begin
    ohh = first ? dec.ohh : ohh_q;
    ohl = first ? dec.ohl : ohl_q;
  end

  assign dm = s_axis_tdata & bits_of(s_axis_tkeep);

`ifdef VERILATOR
`ifndef FABNIC_GATE_MUX
`define FABNIC_REALIGN_VECTOR_MUX
`endif
`endif
`ifdef FABNIC_REALIGN_VECTOR_MUX
  // Simulation form: the same rotation as whole-vector shifts, selected by the one-hot
  // amounts (an AND-OR, equal to the carry-chain form below while ohh and ohl are
  // one-hot, which the assertion at the end checks). Verilator turns the gate form's
  // 2 x 9 x KEEP_W per-bit blocks into megabytes of C++ at DATA_W = 512 (minutes of
  // compile in every build that holds a 512-bit realigner); this form is a few word
  // loops. Synthesis and `make lint` read the gate form; the unit test
  // (tb/common/test_axis_realign.py) runs both.
  always_comb begin
    logic [2*DATA_W-1:0] dd;
    logic [2*KEEP_W-1:0] kk;
    rot_h  = '0;
    rotk_h = '0;
    dd     = {dm, dm};
    kk     = {s_axis_tkeep, s_axis_tkeep};
    for (int h = 0; h < NH; h++) begin
      rot_h  = rot_h  | ({DATA_W{ohh[h]}} & DATA_W'(dd >> (8 * h * NL)));
      rotk_h = rotk_h | ({KEEP_W{ohh[h]}} & KEEP_W'(kk >> (h * NL)));
    end
  end
  always_comb begin
    logic [2*DATA_W-1:0] dd;
    logic [2*KEEP_W-1:0] kk;
    rot  = '0;
    rotk = '0;
    dd   = {rot_h, rot_h};
    kk   = {rotk_h, rotk_h};
    for (int j = 0; j < NL; j++) begin
      rot  = rot  | ({DATA_W{ohl[j]}} & DATA_W'(dd >> (8 * j)));
      rotk = rotk | ({KEEP_W{ohl[j]}} & KEEP_W'(kk >> j));
    end
  end
`else
  for (genvar l = 0; l < KEEP_W; l++) begin : g_lane
    for (genvar b = 0; b < 9; b++) begin : g_bit     // 8 data bits, then tkeep
      logic [NH-1:0] ch;
      logic [NL-1:0] cl;
      logic          yh, yl;
      always_comb begin
        for (int h = 0; h < NH; h++) begin
          ch[h] = b < 8 ? dm[(8 * ((l + h * NL) % KEEP_W) + b) % DATA_W]
                        : s_axis_tkeep[(l + h * NL) % KEEP_W];
        end
        for (int j = 0; j < NL; j++) begin
          cl[j] = b < 8 ? rot_h[(8 * ((l + j) % KEEP_W) + b) % DATA_W] : rotk_h[(l + j) % KEEP_W];
        end
      end
      assign yh = cmux_h(ch, ohh);
      assign yl = cmux_l(cl, ohl);
      if (b < 8) begin : g_d
        assign rot_h[8*l + b] = yh;
        assign rot[8*l + b]   = yl;
      end else begin : g_k
        assign rotk_h[l] = yh;
        assign rotk[l]   = yl;
      end
    end
  end

`endif

  // ---------------------------------------------------------------- frame state, residual
  always_ff @(posedge clk) begin
    status_done  <= s_fire && s_axis_tlast;
    status_short <= s_fire && s_axis_tlast && short_c;
    flush_q      <= s_fire && flush;
    if (s_fire) flush_user_q <= user_l;

    if (s_fire) begin
      in_frame_q <= !s_axis_tlast;
      for (int l = 0; l < KEEP_W; l++) begin
        if (!ka_m[l]) r_q[8*l +: 8] <= rot[8*l +: 8];
      end
      rv_q <= (ka_m & rv_q) | (r_m & rotk);
      pre_q  <= n_pre;
      at_q   <= n_at;
      post_q <= n_post;
      hold_q <= n_hold;
      s0_q   <= n_s0;
      egs_q  <= n_egs;
      atw_q  <= n_atw;
      ktm_q  <= n_ktm;
      bq_q   <= n_bq;
      aq_q   <= n_aq;
      rq_q   <= n_rq;
      kq_q   <= n_kq;
      enl_q  <= n_enl;
      flq_q  <= n_flq;
      hin_q  <= n_hin;
      if (first) begin
        s_q     <= dec.s;
        ohh_q   <= dec.ohh;
        ohl_q   <= dec.ohl;
        trim_q  <= dec.trim;
        chk_q   <= dec.chk;
        drop_q  <= dec.drop;
        bad_q   <= dec.bad;
        rnm1_q  <= f_rnm1;
        cb_q    <= f_cb;
        cb_gt1_q <= dec.bi > B_W'(2);
        cb_eq1_q <= dec.bi == B_W'(2);
        ce_q    <= f_ce;
        nb_gt_q <= f_nb_gt;
        nb_eq_q <= f_nb_eq;
        tc_q    <= f_tc;
        t_gt0_q <= dec.t_gt0;
        t_gt1_q <= dec.t_gt1;
        t_eq0_q <= dec.t_eq0;
        t_eq1_q <= dec.t_eq1;
        t_m1_q  <= dec.t_m1;
      end else begin
        if (pre_q && !hold_q) begin
          cb_q     <= cb_q - 1'b1;
          cb_gt1_q <= cb_q > B_W'(2);
          cb_eq1_q <= cb_q == B_W'(2);
        end
        ce_q    <= n_ce;
        nb_gt_q <= $signed(ce_q) > 1;
        nb_eq_q <= ce_q == CE_W'(1);
        tc_q    <= n_tc;
        t_gt0_q <= $signed(n_tc) > 0;
        t_gt1_q <= $signed(n_tc) > 1;
        t_eq0_q <= n_tc == '0;
        t_eq1_q <= n_tc == TC_W'(1);
        t_m1_q  <= n_tc == '1;
      end
    end

    if (rst) begin
      in_frame_q   <= 1'b0;
      flush_q      <= 1'b0;
      status_done  <= 1'b0;
      status_short <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- output queue
  // Slot 0 is the m_axis register. Per cycle the head may leave; the pending flush beat
  // (new0) and/or the taken beat's output (new0, or new1 behind a flush) join.
  logic              pop, e_v, w0, w1;
  logic [KEEP_W-1:0] x_a;                      // residual lanes of the beat's output
  logic [NQ:0]       occ_oh;                   // beats left after the head leaves, one-hot
  logic [NQ-1:0]     k_old, n0, n1, g_e, g_f;  // slot keeps a beat; is the first / second
                                               // free slot; takes the output / the flush beat

  always_comb begin
    pop = q_v_q[0] && m_axis_tready;
    e_v = s_fire && emit;
    x_a = a_m & rv_q;
    for (int j = 0; j <= NQ; j++) occ_oh[j] = pop ? (j < NQ && q_n_q[(j + 1) % (NQ + 1)]) : q_n_q[j];
    w0 = flush_q || e_v;
    w1 = flush_q && e_v;
    // each role straight from the registers and the head's handshake
    for (int i = 0; i < NQ; i++) begin
      logic vn, vp, c0n, c0p, c1n, c1p;
      vn       = q_v_q[i];
      vp       = i + 1 < NQ && q_v_q[(i + 1) % NQ];
      c0n      = q_n_q[i];
      c0p      = q_n_q[i + 1];
      c1n      = i >= 1 && q_n_q[(i + NQ) % (NQ + 1)];
      c1p      = q_n_q[i];
      k_old[i] = pop ? vp : vn;
      n0[i]    = pop ? c0p : c0n;
      n1[i]    = i >= 1 && (pop ? c1p : c1n);
      g_e[i]   = pop ? ((c0p && !flush_q) || (i >= 1 && c1p)) : ((c0n && !flush_q) || c1n);
      g_f[i]   = flush_q && (pop ? c0p : c0n);
    end
  end

  always_ff @(posedge clk) begin
    for (int j = 0; j <= NQ; j++) begin
      q_n_q[j] <= (occ_oh[j] && !w0) ||
                  (j >= 1 && occ_oh[(j + NQ) % (NQ + 1)] && w0 && !w1) ||
                  (j >= 2 && occ_oh[(j + NQ - 1) % (NQ + 1)] && w1);
    end
    if (rst) q_n_q <= (NQ + 1)'(1);
  end

  // New slot contents: the flush beat is the residual's valid lanes; the beat's output
  // takes x_a lanes from the residual and b_m lanes from the rotated beat. Free slots
  // load whatever comes; their valid bit stays low.
  always_ff @(posedge clk) begin
    for (int i = 0; i < NQ; i++) begin
      logic [KEEP_W-1:0] c_r, c_b, k_o;
      logic [DATA_W-1:0] d_o;
      logic              l_o, u_o;
      c_r = ({KEEP_W{g_f[i]}} & rv_q) | ({KEEP_W{g_e[i]}} & x_a);
      c_b = {KEEP_W{g_e[i]}} & b_m;
      if (pop && i + 1 < NQ) begin
        d_o = q_d_q[(i + 1) % NQ];
        k_o = q_k_q[(i + 1) % NQ];
        l_o = q_l_q[(i + 1) % NQ];
        u_o = q_u_q[(i + 1) % NQ];
      end else begin
        d_o = q_d_q[i];
        k_o = q_k_q[i];
        l_o = q_l_q[i];
        u_o = q_u_q[i];
      end
      q_d_q[i] <= (d_o & {DATA_W{k_old[i]}}) | (r_q & bits_of(c_r)) | (rot & bits_of(c_b));
      q_k_q[i] <= (k_o & {KEEP_W{k_old[i]}}) | c_r | (rotk & c_b);
      q_l_q[i] <= (k_old[i] && l_o) || g_f[i] || (g_e[i] && last_e);
      q_u_q[i] <= (k_old[i] && u_o) || (g_f[i] && flush_user_q) || (g_e[i] && last_e && user_l);
      q_v_q[i] <= k_old[i] || (n0[i] && w0) || (n1[i] && w1);
    end
    if (rst) q_v_q <= '0;
  end

  assign m_axis_tdata  = q_d_q[0];
  assign m_axis_tkeep  = q_k_q[0];
  assign m_axis_tvalid = q_v_q[0];
  assign m_axis_tlast  = q_l_q[0];
  assign m_axis_tuser  = q_u_q[0];

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // the queue's one-hot count and its slot valid bits agree; no write beyond the
      // last slot
      assert ($onehot(q_n_q)) else $error("fabnic_axis_realign: queue count not one-hot");
      for (int i = 0; i < NQ; i++) begin
        assert (q_v_q[i] == ((q_n_q >> (i + 1)) != '0))
          else $error("fabnic_axis_realign: queue slot %0d valid bit", i);
      end
      assert (!(w0 && occ_oh[NQ]) && !(w1 && (occ_oh[NQ] || occ_oh[NQ-1])))
        else $error("fabnic_axis_realign: output queue overflow");
      // CMD_REG = 1: the command register is not loaded while its command is offered
      // and not taken
      assert (!CMD_REG || !(cmd_load && cmd_valid && !cmd_ready))
        else $error("fabnic_axis_realign: command register loaded under an offered command");
      // the rotation amounts of a taken beat are one-hot (both rotation forms rely on it)
      assert (!s_fire || ($onehot(ohh) && $onehot(ohl)))
        else $error("fabnic_axis_realign: rotation amount not one-hot");
      // the beat taken next to a flush beat is a frame's first (no residual lanes)
      assert (!(flush_q && s_fire && (!first || x_a != '0)))
        else $error("fabnic_axis_realign: flush beat next to a beat that uses the residual");
    end
  end
`endif

  if (!CNT_IN) begin : g_no_cnt
    logic unused_tcnt;
    assign unused_tcnt = ^s_axis_tcnt;
  end

endmodule

`resetall
