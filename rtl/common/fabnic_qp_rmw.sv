// SPDX-License-Identifier: Apache-2.0
//
// fabnic_qp_rmw: the one owner of a table of per-QP state. A pipelined
// read-modify-write: requests {qpn, op} come in, the block reads the QP's state
// from block RAM, hands {qpn, op, state} to the engine's update logic (the
// compute hook, one combinational stage that the block registers), writes the new
// state back and reports {qpn, op, old state, new state}. The block owns the read,
// the hazard check and the write-back; the engine owns only the update function.
// It knows nothing about RoCE (an index, an opaque op, an opaque state word), so
// it lives in rtl/common/ and serves any per-index table (QP context, DCQCN rate
// state, virtqueue state).
//
// Parameters
//   NUM_QP     entries, a power of two, 64..16384 ($error otherwise)
//   STATE_W    bits of state per entry, >= 1 (one RAM word; block RAM from
//              fabnic_ram_sdp, so 16K entries cost RAM, not LUTs)
//   OP_W       bits of opaque operation carried with a request, >= 1
//   RAM_LAT    RAM read latency, 1 (read register) or 2 (plus output register,
//              block RAM / UltraRAM with DOB_REG)
//   FORWARD    hazard rule: 0 stall, 1 forward (below)
//   RES_DEPTH  result FIFO entries, a power of two >= RAM_LAT + 5 (a slot is held
//              from issue to the cycle after the result is popped: L+5 cycles
//              with no back-pressure, so this depth keeps one operation per cycle)
//   QPN_W      derived, $clog2(NUM_QP): do not override
//
// Ports
//   s_req_*   request: qpn, op. valid/ready.
//   s_ctl_*   control write (host/driver): set state[qpn] = s_ctl_state.
//   cmp_*     compute hook. The block drives cmp_valid/qpn/op/state from flops in
//             the compute stage C; the engine returns cmp_new_state and cmp_we as a
//             combinational function of them (and of its own flops) in the same
//             cycle; the block registers them at the end of C. The engine's logic
//             is therefore one register-to-register stage of its own (6 levels of
//             budget). cmp_we = 0 keeps the state (no RAM write; new = old). The
//             hook is not consulted for control writes (cmp_valid = 0 then) and
//             never stalls.
//   m_res_*   result, one per request and one per control write, in issue order:
//             ctl (1 = a control write), qpn, op (0 for a control write), old state
//             (before the operation), new state (after it; old when cmp_we = 0).
//
// Stages (s = stage number, L = RAM_LAT; every stage advances every cycle)
//   0       issue: the request head (a skid buffer) or the control write issues if
//           the hazard rule allows it and a result FIFO slot is free (credit); the
//           RAM read starts. The hazard compares are made one cycle ahead: at each
//           edge the operations entering stages 1..W are compared with every
//           register that can be a candidate in the next cycle, and registered, so
//           the issue decision sees flops only.
//   1..L    read: RAM read in flight. Stage L is the read stage: the RAM word (or,
//           FORWARD = 1, the forwarded newest value) is loaded into C.
//   L+1     C, compute: cmp_* presented; new state and write enable registered.
//   L+2     W, write-back: RAM write (when cmp_we or a control write), result into
//           the result FIFO.
//   L+3..2L+2  P1..PL (FORWARD = 1 only): the last L written values, kept for
//           forwarding (a RAM read started up to L cycles before a write does not
//           see it: read-first RAM).
//
// The hazard rule, in one place (HAZ below, applied in one loop over the stages):
//   FORWARD = 0 (stall): an operation whose QP is in any of stages 1..L+2 waits at
//     issue. Its RAM read therefore sees every earlier write of that QP.
//   FORWARD = 1 (forward): an operation whose QP is in stage 1 (issued the cycle
//     before) waits one cycle; every other earlier operation of the same QP is
//     forwarded: at the read stage, the newest value among W, P1..PL whose QP
//     matches replaces the RAM word. (Stage 1 cannot be forwarded: its new state
//     is computed in the same cycle the later operation loads C, which would put
//     the engine's logic and the forward mux in one cycle.)
//   Control writes obey the same rule and are forwarded like any write.
//
// Issue priority: a pending control write goes first; it issues no earlier than the
// second cycle after its handshake, and while it waits (for that cycle or a hazard,
// at most L+3 cycles) the request head waits too. One control write is in flight at
// a time (its data stays in the control register until write-back): s_ctl_ready is
// high again the cycle after its write-back, so the port takes one write per L+5
// cycles at best. Order between the ports is the issue order, visible on m_res_*.
//
// Latency and throughput
//   s_req handshake to m_res_valid: L+4 cycles (stage 0 is the cycle after the
//   handshake). One operation per cycle for different QPs. Back-to-back operations
//   on one QP: one per L+3 cycles with FORWARD = 0 (4 / 5 for L = 1 / 2), one per
//   2 cycles with FORWARD = 1. Two QPs alternating: two per L+3 cycles (stall), one
//   per cycle (forward). Requests issue in order (a waiting head blocks those behind
//   it).
//
// Handshakes: s_req_ready is a flop (two-entry skid buffer: head + skid); s_ctl_ready
// is a function of the control register's flags only; m_res_valid and m_res_* come
// from the result FIFO's pointers and storage (fabnic_fifo, a distributed-RAM read).
// No combinational path from an input valid/ready to an output valid/ready:
// m_res_ready reaches only the FIFO read pointer and a registered pop (credits).
//
// Behaviour when full: back-pressure. Issue waits for a free result FIFO slot; the
// pipeline after issue never stalls, so no result is ever dropped. The state table
// is not reset: write every entry through s_ctl before its first request.
`default_nettype none

module fabnic_qp_rmw #(
    parameter int NUM_QP    = 1024,
    parameter int STATE_W   = 64,
    parameter int OP_W      = 16,
    parameter int RAM_LAT   = 2,
    parameter bit FORWARD   = 1'b1,
    parameter int RES_DEPTH = 8,
    parameter int QPN_W     = $clog2(NUM_QP)
) (
    input  wire logic               clk,
    input  wire logic               rst,

    input  wire logic               s_req_valid,
    output logic                    s_req_ready,
    input  wire logic [QPN_W-1:0]   s_req_qpn,
    input  wire logic [OP_W-1:0]    s_req_op,

    input  wire logic               s_ctl_valid,
    output logic                    s_ctl_ready,
    input  wire logic [QPN_W-1:0]   s_ctl_qpn,
    input  wire logic [STATE_W-1:0] s_ctl_state,

    output logic                    cmp_valid,
    output logic      [QPN_W-1:0]   cmp_qpn,
    output logic      [OP_W-1:0]    cmp_op,
    output logic      [STATE_W-1:0] cmp_state,
    input  wire logic [STATE_W-1:0] cmp_new_state,
    input  wire logic               cmp_we,

    output logic                    m_res_valid,
    input  wire logic               m_res_ready,
    output logic                    m_res_ctl,
    output logic      [QPN_W-1:0]   m_res_qpn,
    output logic      [OP_W-1:0]    m_res_op,
    output logic      [STATE_W-1:0] m_res_old_state,
    output logic      [STATE_W-1:0] m_res_new_state
);

  // ------------------------------------------------------------------ parameters
  if (NUM_QP < 64 || NUM_QP > 16384 || (1 << $clog2(NUM_QP)) != NUM_QP) begin : g_check_qp
    $error("fabnic_qp_rmw: NUM_QP must be a power of two in 64..16384");
  end
  if (QPN_W != $clog2(NUM_QP)) begin : g_check_qpn_w
    $error("fabnic_qp_rmw: QPN_W is derived from NUM_QP; do not override it");
  end
  if (STATE_W < 1 || OP_W < 1) begin : g_check_w
    $error("fabnic_qp_rmw: STATE_W and OP_W must be >= 1");
  end
  if (RAM_LAT != 1 && RAM_LAT != 2) begin : g_check_lat
    $error("fabnic_qp_rmw: RAM_LAT must be 1 or 2");
  end
  if (RES_DEPTH < RAM_LAT + 5 || (1 << $clog2(RES_DEPTH)) != RES_DEPTH) begin : g_check_res
    $error("fabnic_qp_rmw: RES_DEPTH must be a power of two >= RAM_LAT + 5");
  end

  localparam int RD = RAM_LAT;             // read stage: RAM word available
  localparam int CS = RAM_LAT + 1;         // compute stage
  localparam int WS = RAM_LAT + 2;         // write-back stage
  localparam int NP = FORWARD ? RAM_LAT : 0;  // post-write stages kept for forwarding
  localparam int CW = $clog2(RES_DEPTH) + 1;

  // The hazard rule: bit s set = an operation in stage s holds back a new
  // operation on the same QP at issue. Stall: every stage up to write-back.
  // Forward: only stage 1; later stages are forwarded at the read stage.
  localparam logic [WS:1] HAZ = FORWARD ? WS'(1) : {WS{1'b1}};

  typedef struct packed {
    logic             v;
    logic             ctl;
    logic [QPN_W-1:0] qpn;
    logic [OP_W-1:0]  op;
  } stage_t;

  typedef struct packed {
    logic               ctl;
    logic [QPN_W-1:0]   qpn;
    logic [OP_W-1:0]    op;
    logic [STATE_W-1:0] old_state;
    logic [STATE_W-1:0] new_state;
  } res_t;

  // ------------------------------------------------------------------ request skid buffer
  logic               hd_v_q, sk_v_q;      // head (issue candidate), skid
  logic [QPN_W-1:0]   hd_qpn_q, sk_qpn_q;
  logic [OP_W-1:0]    hd_op_q, sk_op_q;
  logic               req_go;              // the head issues this cycle
  logic               hd_free;             // the head register loads this cycle

  assign s_req_ready = !sk_v_q;
  assign hd_free     = !hd_v_q || req_go;

  // The skid register captures the input whenever it is empty, the head loads when
  // it is free: only the valid bits and the head's load enable depend on the issue.
  always_ff @(posedge clk) begin
    if (!sk_v_q) begin
      sk_qpn_q <= s_req_qpn;
      sk_op_q  <= s_req_op;
    end
    if (hd_free) begin
      hd_qpn_q <= sk_v_q ? sk_qpn_q : s_req_qpn;
      hd_op_q  <= sk_v_q ? sk_op_q : s_req_op;
    end
    hd_v_q <= hd_free ? (sk_v_q || s_req_valid) : 1'b1;
    sk_v_q <= !hd_free && (sk_v_q || s_req_valid);
    if (rst) begin
      hd_v_q <= 1'b0;
      sk_v_q <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ control register
  // full: taken, not yet written back; wait: taken, not yet issued (wait implies full)
  logic               ctl_full_q, ctl_wait_q;
  logic               ctl_new_q;           // taken at the last edge: does not issue yet
  logic [QPN_W-1:0]   ctl_qpn_q;
  logic [STATE_W-1:0] ctl_state_q;
  logic               ctl_go;              // the control write issues this cycle
  stage_t             st_q [1:WS];         // the operation pipe, one register per stage

  assign s_ctl_ready = !ctl_full_q;

  always_ff @(posedge clk) begin
    if (s_ctl_valid && !ctl_full_q) begin
      ctl_qpn_q   <= s_ctl_qpn;
      ctl_state_q <= s_ctl_state;
      ctl_full_q  <= 1'b1;
      ctl_wait_q  <= 1'b1;
    end
    ctl_new_q <= s_ctl_valid && !ctl_full_q;
    if (ctl_go) ctl_wait_q <= 1'b0;
    if (st_q[WS].v && st_q[WS].ctl) ctl_full_q <= 1'b0;
    if (rst) begin
      ctl_full_q <= 1'b0;
      ctl_wait_q <= 1'b0;
      ctl_new_q  <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ stage 0: issue
  logic          req_haz, ctl_haz, res_pop;
  logic [CW-1:0] cred_q;                   // result slots reserved: issued, not yet returned
  logic          cred_ok;                  // a result slot is free (cred_q != RES_DEPTH)
  stage_t        iss;                      // the operation issuing now (enters stage 1)
  stage_t        nx [1:WS];                // the operation entering stage s at the next edge

  // The hazard check is done one cycle ahead: at each edge the operations entering
  // stages 1..W (the issue and stages 1..W-1, since every stage advances every cycle)
  // are compared with every register that can be an issue candidate in the next
  // cycle, and the result is registered. The issue decision itself sees no compare.
  //   hold: the request head as it is (when it does not load)
  //   new:  the skid register, else the input (what the head loads when it is free)
  //   ctl:  the control register (a control write taken at this edge does not issue
  //         in the next cycle: its compare here saw the register's previous QP)
  logic             haz_hold_d, haz_new_d, haz_ctl_d;
  logic             haz_hold_q, haz_new_q, haz_ctl_q;
  logic             hd_new_q;              // the head loaded at the last edge
  logic [QPN_W-1:0] new_qpn;

  assign new_qpn = sk_v_q ? sk_qpn_q : s_req_qpn;

  always_comb begin
    nx[1] = iss;
    for (int s = 2; s <= WS; s++) nx[s] = st_q[s-1];
  end

  // the hazard rule applied: one loop over the stages
  always_comb begin
    haz_hold_d = 1'b0;
    haz_new_d  = 1'b0;
    haz_ctl_d  = 1'b0;
    for (int s = 1; s <= WS; s++) begin
      if (HAZ[s] && nx[s].v && nx[s].qpn == hd_qpn_q)  haz_hold_d = 1'b1;
      if (HAZ[s] && nx[s].v && nx[s].qpn == new_qpn)   haz_new_d  = 1'b1;
      if (HAZ[s] && nx[s].v && nx[s].qpn == ctl_qpn_q) haz_ctl_d  = 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    haz_hold_q <= haz_hold_d;
    haz_new_q  <= haz_new_d;
    haz_ctl_q  <= haz_ctl_d;
    hd_new_q   <= hd_free;
  end

  assign req_haz = hd_new_q ? haz_new_q : haz_hold_q;
  assign ctl_haz = haz_ctl_q;

  assign ctl_go  = ctl_wait_q && !ctl_new_q && !ctl_haz && cred_ok;
  assign req_go  = hd_v_q && !ctl_wait_q && !req_haz && cred_ok;

  always_comb begin
    iss.v   = ctl_go || req_go;
    iss.ctl = ctl_wait_q;
    iss.qpn = ctl_wait_q ? ctl_qpn_q : hd_qpn_q;
    iss.op  = ctl_wait_q ? '0 : hd_op_q;
  end

  // A result slot is reserved at issue and returned the cycle after its result
  // leaves (the pop is registered): the issue only selects between two counts
  // computed from flops.
  logic          res_pop_q;
  logic [CW-1:0] cred_hold, cred_inc;
  assign cred_hold = cred_q - CW'(res_pop_q);
  assign cred_inc  = cred_q + CW'(!res_pop_q);

  always_ff @(posedge clk) begin
    cred_q    <= iss.v ? cred_inc : cred_hold;
    cred_ok   <= iss.v ? (cred_inc != CW'(RES_DEPTH)) : (cred_hold != CW'(RES_DEPTH));
    res_pop_q <= res_pop;
    if (rst) begin
      cred_q    <= '0;
      cred_ok   <= 1'b1;
      res_pop_q <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ stages 1..W: operation pipe
  always_ff @(posedge clk) begin
    st_q[1] <= iss;
    for (int s = 2; s <= WS; s++) st_q[s] <= st_q[s-1];
    if (rst) begin
      for (int s = 1; s <= WS; s++) st_q[s].v <= 1'b0;
    end
  end

  // ------------------------------------------------------------------ state RAM
  logic               ram_we;
  logic [STATE_W-1:0] ram_rd_data;
  logic [STATE_W-1:0] w_new_q, w_old_q;     // write-back stage: new (effective) and old state
  logic               w_we_q;               // write-back stage: write the RAM

  assign ram_we = st_q[WS].v && w_we_q;

  fabnic_ram_sdp #(
      .DATA_W(STATE_W), .DEPTH(NUM_QP), .OUT_REG(RAM_LAT == 2)
  ) u_ram (
      .clk,
      .wr_en(ram_we), .wr_be(1'b1), .wr_addr(st_q[WS].qpn), .wr_data(w_new_q),
      .rd_en(iss.v), .rd_regce(1'b1), .rd_addr(iss.qpn), .rd_data(ram_rd_data)
  );

  // ------------------------------------------------------------------ read stage: forwarding
  logic [STATE_W-1:0] rd_state;            // the QP's current state as loaded into C

  if (FORWARD) begin : g_fwd
    // P1..PL: the values written back in the last L cycles (P1 newest)
    logic               p_v_q     [1:NP];
    logic [QPN_W-1:0]   p_qpn_q   [1:NP];
    logic [STATE_W-1:0] p_state_q [1:NP];

    always_ff @(posedge clk) begin
      p_v_q[1]     <= st_q[WS].v;
      p_qpn_q[1]   <= st_q[WS].qpn;
      p_state_q[1] <= w_new_q;
      for (int j = 2; j <= NP; j++) begin
        p_v_q[j]     <= p_v_q[j-1];
        p_qpn_q[j]   <= p_qpn_q[j-1];
        p_state_q[j] <= p_state_q[j-1];
      end
      if (rst) begin
        for (int j = 1; j <= NP; j++) p_v_q[j] <= 1'b0;
      end
    end

    // oldest first, so the newest match (W) is the one that stays
    always_comb begin
      rd_state = ram_rd_data;
      for (int j = NP; j >= 1; j--) begin
        if (p_v_q[j] && p_qpn_q[j] == st_q[RD].qpn) rd_state = p_state_q[j];
      end
      if (st_q[WS].v && st_q[WS].qpn == st_q[RD].qpn) rd_state = w_new_q;
    end
  end else begin : g_stall
    assign rd_state = ram_rd_data;
  end

  // ------------------------------------------------------------------ C: compute hook
  logic [STATE_W-1:0] c_state_q;

  always_ff @(posedge clk) begin
    c_state_q <= rd_state;
  end

  assign cmp_valid = st_q[CS].v && !st_q[CS].ctl;
  assign cmp_qpn   = st_q[CS].qpn;
  assign cmp_op    = st_q[CS].op;
  assign cmp_state = c_state_q;

  // ------------------------------------------------------------------ W: write-back
  always_ff @(posedge clk) begin
    w_old_q <= c_state_q;
    if (st_q[CS].ctl) begin
      w_new_q <= ctl_state_q;
      w_we_q  <= 1'b1;
    end else begin
      w_new_q <= cmp_we ? cmp_new_state : c_state_q;
      w_we_q  <= cmp_we;
    end
  end

  // ------------------------------------------------------------------ result FIFO
  res_t              res_in, res_out;
  logic              res_in_ready;
  logic [CW-1:0]     res_count;

  always_comb begin
    res_in.ctl       = st_q[WS].ctl;
    res_in.qpn       = st_q[WS].qpn;
    res_in.op        = st_q[WS].op;
    res_in.old_state = w_old_q;
    res_in.new_state = w_new_q;
  end

  fabnic_fifo #(.WIDTH($bits(res_t)), .DEPTH(RES_DEPTH)) u_res (
      .clk, .rst,
      .in_valid(st_q[WS].v), .in_ready(res_in_ready), .in_data(res_in),
      .out_valid(m_res_valid), .out_ready(m_res_ready), .out_data(res_out),
      .status_count(res_count)
  );

  assign res_pop         = m_res_valid && m_res_ready;
  assign m_res_ctl       = res_out.ctl;
  assign m_res_qpn       = res_out.qpn;
  assign m_res_op        = res_out.op;
  assign m_res_old_state = res_out.old_state;
  assign m_res_new_state = res_out.new_state;

  logic unused;
  assign unused = ^{res_in_ready, res_count};

  // ------------------------------------------------------------------ assertions
`ifndef SYNTHESIS
  // stage 0 (the operation issuing now, whose RAM read samples at this edge) and 1..W
  int               inflight;
  logic             a_v   [WS+1];
  logic [QPN_W-1:0] a_qpn [WS+1];
  always_comb begin
    inflight = 0;
    a_v[0]   = iss.v;
    a_qpn[0] = iss.qpn;
    for (int s = 1; s <= WS; s++) begin
      inflight += int'(st_q[s].v);
      a_v[s]   = st_q[s].v;
      a_qpn[s] = st_q[s].qpn;
    end
  end

  function automatic logic live_haz(logic [QPN_W-1:0] qpn);
    live_haz = 1'b0;
    for (int s = 1; s <= WS; s++) begin
      if (HAZ[s] && st_q[s].v && st_q[s].qpn == qpn) live_haz = 1'b1;
    end
  endfunction

  always_ff @(posedge clk) begin
    if (!rst) begin
      // two operations on one QP between issue and write-back only where the rule
      // allows it: never (stall); never in adjacent stages (forward)
      for (int i = 0; i <= WS; i++) begin
        for (int j = i + 1; j <= WS; j++) begin
          if (a_v[i] && a_v[j] && a_qpn[i] == a_qpn[j])
            assert (FORWARD && j > i + 1)
              else $error("fabnic_qp_rmw: QP %0d in stages %0d and %0d", a_qpn[i], i, j);
        end
      end
      // no write to a QP while an operation on it is between its RAM read (issue) and
      // its write-back, except one that takes the written value at the read stage
      // (forward: stages 0..L)
      if (ram_we) begin
        for (int s = 0; s <= CS; s++) begin
          if (a_v[s] && a_qpn[s] == st_q[WS].qpn)
            assert (FORWARD && s <= RD)
              else $error("fabnic_qp_rmw: write of QP %0d with an operation on it in stage %0d",
                          st_q[WS].qpn, s);
        end
      end
      // the hazards registered one cycle ahead are those of the candidates now
      if (hd_v_q) assert (req_haz == live_haz(hd_qpn_q))
        else $error("fabnic_qp_rmw: request hazard %0d, stages say %0d", req_haz, !req_haz);
      if (ctl_wait_q && !ctl_new_q) assert (ctl_haz == live_haz(ctl_qpn_q))
        else $error("fabnic_qp_rmw: control hazard %0d, stages say %0d", ctl_haz, !ctl_haz);
      // skid buffer and control register states
      assert (!sk_v_q || hd_v_q) else $error("fabnic_qp_rmw: skid holds a request, head empty");
      assert (!ctl_wait_q || ctl_full_q) else $error("fabnic_qp_rmw: control register state");
      // credits: every reserved slot is an operation in flight, a result in the FIFO
      // or a result popped at the last edge (its slot returns now)
      assert (cred_ok == (cred_q != CW'(RES_DEPTH)))
        else $error("fabnic_qp_rmw: credit flag");
      assert (int'(cred_q) == inflight + int'(res_count) + int'(res_pop_q)
              && cred_q <= CW'(RES_DEPTH))
        else $error("fabnic_qp_rmw: credit %0d != %0d in flight + %0d queued + %0d popped",
                    cred_q, inflight, res_count, res_pop_q);
      if (st_q[WS].v) assert (res_in_ready) else $error("fabnic_qp_rmw: result FIFO overflow");
      // one control write in flight, and only while the control register holds it
      for (int s = 1; s <= WS; s++) begin
        if (st_q[s].v && st_q[s].ctl) assert (ctl_full_q && !ctl_wait_q)
          else $error("fabnic_qp_rmw: control operation without its register");
      end
    end
  end
`endif

endmodule

`resetall
