// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_req_fetch: SQE reads of the requester (fabnic_roce_req): the visit's own
// read, the read-ahead for the visited QP, and the cross-QP prefetch stage with its queue.
// All three share one read-descriptor port (m_rd_*) and the core's SQE FIFO of
// SQE_FIFO beats, whose use this block counts (iss_q - tak_q: beats asked for and not yet
// taken), so no read is issued that the FIFO could not hold.
//
// Visit read: while the visit FSM is in S_FETCH (fetch_st) it is issued from registered
// length and address (computed every cycle from sq_ci/sq_pi; fetch_ok says sq_ci held
// for a cycle). Read-ahead: while the visit walks its read (ra_st) and more SQEs are
// posted after it, the next ones are read, up to RA_READS (2) read-aheads in flight behind
// the read being walked (vr_q: the visit's reads whose last beat is not taken), so that
// a host round trip of 1 us is covered at the 100 G wire's small-message rate; a
// read-ahead waits two cycles after any read (its registered length and address); not
// while the
// prefetch stage holds a QP (its SQEs must come after the visit's), not for SR QPs and
// resend walks, and not when the quantum ends the visit before the current read is used
// up. Prefetch: P_IDLE -> (pf_go: pop the active FIFO, read the context RAMs) P_LOAD (RAM
// words registered) -> P_CALC (read length and address registered; queued without a read
// when the QP has nothing to send) -> P_REQ (one cycle for the room-limited length, then
// the read) -> entry queued (pq) for the visit FSM, which takes it with take_pf.
//
// Every read length and address is registered a cycle ahead. The values they come from
// can only be stale towards less: the FIFO room shrinks only by a read issued, and no
// read is issued in the cycle before a read-ahead or a prefetch read; the producer index
// only grows.
//
// Order rule for the queue: a visit that issues its own SQE read must find no later
// entry's read out (its beats would come first). Entries without a read (an SR QP, or a
// QP the stage found nothing to read for) fetch at their visit, so nothing is queued
// behind one (pq_nr_q).
//
// Parameters
//   QPN_W      QP number width, >= 1
//   QW         the visit's quantum counter width, <= 16
//   SQE_BATCH  SQEs per read at most, >= 1
//   SQE_FIFO   beats of the core's SQE FIFO, >= 2 * SQE_BATCH
//   RA_READS   read-aheads in flight at most, 1..2
//   PF_DEPTH   prefetch queue entries, a power of two >= 2
//   PREFETCH   0: no cross-QP prefetch
`default_nettype none

module fabnic_roce_req_fetch #(
    parameter int QPN_W     = 10,
    parameter int QW        = 7,
    parameter int SQE_BATCH = 32,
    parameter int SQE_FIFO  = 2 * SQE_BATCH,
    parameter int RA_READS  = 2,   // read-aheads in flight behind the walked read (1..2)
    parameter int PF_DEPTH  = 4,
    parameter bit PREFETCH  = 1'b1
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    // the visit
    input  wire logic                 fetch_st,    // visit FSM in S_FETCH
    input  wire logic                 fetch_ok,    // sq_ci held for two cycles (or S_LOAD)
    input  wire logic                 ra_st,       // visit FSM walks its read (S_CHKW, S_PKT)
    input  wire logic                 visit_read,  // the visit's own read is out
    input  wire logic                 resend,
    input  wire logic                 sr,          // the visited QP is an SR QP
    input  wire logic                 err,
    input  wire logic [63:0]          sq_base,
    input  wire logic [4:0]           sq_log,
    input  wire logic [15:0]          sq_ci,
    input  wire logic [15:0]          sq_pi,
    input  wire logic                 ld,          // S_LOAD/S_DISPATCH: the RAM words ...
    input  wire logic [15:0]          ld_ci,       // ... its sq_ci
    input  wire logic [15:0]          ld_pi,       // ... and producer index
    input  wire logic [4:0]           ld_log,
    input  wire logic [QW-1:0]        quantum,
    input  wire logic                 others_wait, // other QPs wait for a visit
    input  wire logic                 ev_pending,  // a control op or completer event waits
    output logic                      fetch_go,    // the visit's read is offered
    output logic                      more,        // beats of the visit's reads to come
    output logic                      one_read,    // ... of one read only

    // active FIFO head, and the context RAM words read for the prefetch (the cycle after
    // pf_go)
    input  wire logic                 act_valid,
    input  wire logic [QPN_W-1:0]     act_qpn,
    input  wire fabnic_roce_pkg::qpc_t st_rd,
    input  wire logic [15:0]          rd_sq_ci,
    input  wire logic [15:0]          rd_sq_pi,
    input  wire logic                 rd_in_sched,
    input  wire logic                 rd_err,
    output logic                      pf_go,       // pops the active FIFO, reads the RAMs
    output logic                      pf_busy,     // the stage or its queue holds a QP
    output logic                      pf_active,   // the stage holds a QP
    output logic [$clog2(PF_DEPTH):0] pq_cnt,
    output logic                      pq_valid,
    input  wire logic                 take_pf,
    output logic [QPN_W-1:0]          pq_qpn,
    output logic                      pq_rd,       // a read was issued for the entry ...
    output logic [15:0]               pq_ci,       // ... from this SQ index

    // SQE beats taken by the visit FSM
    input  wire logic                 pop,
    input  wire logic                 pop_last,

    output logic      [63:0]          m_rd_addr,
    output logic      [31:0]          m_rd_len,
    output logic                      m_rd_valid,
    input  wire logic                 m_rd_ready
);
  import fabnic_roce_pkg::*;

  if (PF_DEPTH < 2 || (1 << $clog2(PF_DEPTH)) != PF_DEPTH) begin : g_chk_pf
    $error("fabnic_roce_req_fetch: PF_DEPTH must be a power of two >= 2");
  end
  if (SQE_BATCH < 1 || QW > 16 || SQE_FIFO < 2 * SQE_BATCH || RA_READS < 1 || RA_READS > 2)
  begin : g_chk_batch
    $error("fabnic_roce_req_fetch: SQE_BATCH, SQE_FIFO, QW or RA_READS out of range");
  end

  localparam int FIFO_BEATS = SQE_FIFO;

  function automatic logic [15:0] min3(input logic [15:0] a, input logic [15:0] b,
                                       input logic [15:0] c);
    logic ab, ac, bc;
    ab = a <= b;
    ac = a <= c;
    bc = b <= c;
    return (ab && ac) ? a : (!ab && bc) ? b : c;
  endfunction
  function automatic logic [63:0] sqe_addr(input logic [63:0] base, input logic [15:0] ci,
                                           input logic [4:0] lg);
    return base + {42'd0, ci & 16'((32'd1 << lg) - 1), 6'd0};
  endfunction

  // ---------------------------------------------------------------- prefetch stage
  typedef enum logic [1:0] {
    P_IDLE,   // wait for pf_go
    P_LOAD,   // context RAM words registered
    P_CALC,   // read length and address registered, or queued without a read
    P_REQ     // issue the read (after one cycle for the room-limited length)
  } pf_e;
  pf_e              pf_st, pf_st_d;
  logic [QPN_W-1:0] pf_qpn;
  logic [15:0]      pf_ci, pf_pend, pf_end, pf_n, pf_neff_q, rd_mask;
  assign rd_mask = 16'((32'd1 << st_rd.sq_log) - 1);
  logic [4:0]       pf_log;
  logic [63:0]      pf_base, pf_addr;
  logic             pf_ld_rd_q, pf_nv_q, pq_nr_q, pf_req_fire, pq_push, pq_in_ready;
  logic             ra_go;

  typedef struct packed {
    logic [QPN_W-1:0] qpn;
    logic             rd;
    logic [15:0]      ci;
    logic [15:0]      ie;
  } pfe_t;
  pfe_t pq_in, pq_out;

  logic pq_room_q;   // pq_cnt < PF_DEPTH, a register
  assign pf_go     = PREFETCH && pf_st == P_IDLE && visit_read && act_valid
                     && pq_room_q && !pq_nr_q && !ev_pending;
  assign pf_active = pf_st != P_IDLE;
  logic pf_busy_q;   // pf_active || pq_valid, a register (below)
  assign pf_busy   = pf_busy_q;

  // pq_valid is a register equal to the FIFO's out_valid (its not-empty compare of the
  // two pointers is not on the event pick's path)
  logic pq_fifo_valid, pq_v_q;
  fabnic_fifo #(.WIDTH($bits(pfe_t)), .DEPTH(PF_DEPTH)) u_pq (
      .clk, .rst,
      .in_valid(pq_push), .in_ready(pq_in_ready), .in_data(pq_in),
      .out_valid(pq_fifo_valid), .out_ready(take_pf), .out_data(pq_out), .status_count(pq_cnt)
  );
  logic pq_v_d;
  assign pq_v_d = pq_push || (take_pf ? pq_cnt > ($clog2(PF_DEPTH)+1)'(1) : pq_cnt != '0);
  always_ff @(posedge clk) begin
    pq_v_q    <= pq_v_d;
    pf_busy_q <= pf_st_d != P_IDLE || pq_v_d;
    if (pq_push && !take_pf)      pq_room_q <= pq_cnt < ($clog2(PF_DEPTH)+1)'(PF_DEPTH - 1);
    else if (take_pf && !pq_push) pq_room_q <= 1'b1;
    if (rst) begin
      pq_v_q    <= 1'b0;
      pf_busy_q <= 1'b0;
      pq_room_q <= 1'b1;
    end
  end
  assign pq_valid = pq_v_q;
  assign pq_qpn = pq_out.qpn;
  assign pq_rd  = pq_out.rd;
  assign pq_ci  = pq_out.ci;

  assign pf_req_fire = pf_st == P_REQ && pf_nv_q && !fetch_st && pf_neff_q != 16'd0
                       && m_rd_ready;
  // queued from P_CALC (no read) or when P_REQ's read is issued; pf_go checked the room
  assign pq_push = (pf_st == P_CALC && !pf_ld_rd_q) || pf_req_fire;
  always_comb begin
    pq_in.qpn = pf_qpn;
    pq_in.rd  = pf_st == P_REQ;
    pq_in.ci  = pf_ci;
    pq_in.ie  = pf_ci + pf_neff_q;
  end

  always_comb begin
    pf_st_d = pf_st;
    unique case (pf_st)
      P_IDLE: if (pf_go) pf_st_d = P_LOAD;
      P_LOAD: pf_st_d = P_CALC;
      P_CALC: pf_st_d = pf_ld_rd_q ? P_REQ : P_IDLE;
      default: if (pf_req_fire) pf_st_d = P_IDLE;   // P_REQ
    endcase
  end
  always_ff @(posedge clk) begin
    pf_st <= pf_st_d;
    if (rst) pf_st <= P_IDLE;
  end

  always_ff @(posedge clk) begin
    if (pf_st == P_CALC && !pf_ld_rd_q) pq_nr_q <= 1'b1;
    else if (take_pf && !pq_out.rd)     pq_nr_q <= 1'b0;   // (nothing was queued after it)
    pf_nv_q <= pf_st == P_REQ;
    if (pf_go) pf_qpn <= act_qpn;
    if (pf_st == P_LOAD) begin
      pf_ci      <= rd_sq_ci;
      pf_pend    <= rd_sq_pi - rd_sq_ci;
      pf_end     <= (rd_mask + 16'd1) - (rd_sq_ci & rd_mask);
      pf_log     <= st_rd.sq_log;
      pf_base    <= st_rd.sq_base;
      // SR QPs (window cap, resends) are not prefetched
      pf_ld_rd_q <= rd_in_sched && !rd_err && st_rd.state == QPS_RTS && !st_rd.sr
                    && rd_sq_ci != rd_sq_pi;
    end
    if (pf_st == P_CALC) begin
      pf_n    <= min3(pf_pend, pf_end, 16'(SQE_BATCH));
      pf_addr <= sqe_addr(pf_base, pf_ci, pf_log);
    end
    if (rst) pq_nr_q <= 1'b0;
  end

  // ---------------------------------------------------------------- visit read, read-ahead
  // Two register layers: A (differences: posted SQEs, SQEs to the ring's end, FIFO room)
  // and B (the minimum of them and SQE_BATCH). For the visit's read, layer A is loaded
  // from the context RAM words in S_LOAD and S_DISPATCH (ld_*; a doorbell's producer
  // index in place of the RAM's), so the read can go out in the cycle after S_DISPATCH;
  // after any other change of sq_ci the user waits two cycles (fetch_ok).
  // SQE beats asked for and not yet taken: ob = iss_q - tak_q (beats asked for, beats
  // taken, both modulo 2^OB_W), two counters so that neither adds a read's length and
  // subtracts a taken beat in one step
  localparam int OB_W = $clog2(FIFO_BEATS+1);
  logic [OB_W-1:0] iss_q, tak_q, ob;
  logic [1:0]  vr_q;                       // the visit's reads whose last beat is not taken
  logic [15:0] sq_mask, ld_mask, ra_idx_q, ra_span;
  logic [15:0] room_q, ra_pend_q, ra_end_q, ra_n_q, fa_pend_q, fa_end_q, fd_n_q;
  logic [63:0] ra_addr_q, fd_addr_q;
  logic        ra_nz_q, ra_qok_q, rd_fire;
  logic [1:0]  rf_q;                       // a read was issued one / two cycles ago


  assign ob = iss_q - tak_q;
  always_comb begin
    sq_mask = 16'((32'd1 << sq_log) - 1);
    ld_mask = 16'((32'd1 << ld_log) - 1);
    ra_span = ra_idx_q - sq_ci;
  end
  always_ff @(posedge clk) begin
    // layer A
    room_q    <= 16'(FIFO_BEATS) - 16'(ob);
    ra_pend_q <= sq_pi - ra_idx_q;
    ra_end_q  <= (sq_mask + 16'd1) - (ra_idx_q & sq_mask);
    if (ld) begin
      fa_pend_q <= ld_pi - ld_ci;
      fa_end_q  <= (ld_mask + 16'd1) - (ld_ci & ld_mask);
    end else begin
      fa_pend_q <= sq_pi - sq_ci;
      fa_end_q  <= (sq_mask + 16'd1) - (sq_ci & sq_mask);
    end
    // layer B
    ra_n_q    <= (room_q < 16'(SQE_BATCH)) ? min3(ra_pend_q, ra_end_q, room_q)
                                          : min3(ra_pend_q, ra_end_q, 16'(SQE_BATCH));
    ra_nz_q   <= ra_pend_q != 16'd0 && ra_end_q != 16'd0 && room_q != 16'd0;
    fd_n_q    <= min3(fa_pend_q, fa_end_q, 16'(SQE_BATCH));
    pf_neff_q <= (room_q < pf_n) ? room_q : pf_n;
    // one layer
    ra_qok_q  <= 16'(quantum) > ra_span;
    ra_addr_q <= sq_base + {42'd0, (ra_idx_q & sq_mask), 6'd0};
    fd_addr_q <= sq_base + {42'd0, (sq_ci & sq_mask), 6'd0};
  end

  assign fetch_go   = fetch_st && fetch_ok;
  // a read-ahead waits two cycles after any read: its index (ra_idx_q), then layer A,
  // then layer B are registered from the read before it (rf_q)
  assign ra_go      = ra_st && !resend && !sr && !err && vr_q != 2'd0 && 32'(vr_q) <= RA_READS
                      && rf_q == 2'd0 && !pf_busy && ra_nz_q
                      && (!others_wait || ra_qok_q);
  assign m_rd_valid = fetch_go || ra_go
                      || (pf_st == P_REQ && pf_nv_q && !fetch_st && pf_neff_q != 16'd0);
  assign rd_fire    = m_rd_valid && m_rd_ready;
  assign more       = vr_q != 2'd0;
  assign one_read   = vr_q == 2'd1;
  assign m_rd_addr  = fetch_st ? fd_addr_q : ra_go ? ra_addr_q : pf_addr;
  assign m_rd_len   = {10'd0, fetch_st ? fd_n_q : ra_go ? ra_n_q : pf_neff_q, 6'd0};

  always_ff @(posedge clk) begin
    iss_q <= iss_q + (rd_fire ? OB_W'(m_rd_len[21:6]) : '0);
    rf_q  <= {rf_q[0], rd_fire};
    tak_q <= tak_q + OB_W'(pop);
    vr_q <= vr_q + 2'((fetch_go || ra_go) && m_rd_ready) - 2'(pop && pop_last);
    if (take_pf) vr_q <= 2'(pq_out.rd);
    if (fetch_go && m_rd_ready)   ra_idx_q <= sq_ci + fd_n_q;
    else if (ra_go && m_rd_ready) ra_idx_q <= ra_idx_q + ra_n_q;
    if (take_pf) ra_idx_q <= pq_out.ie;
    if (rst) begin
      iss_q <= '0;
      tak_q <= '0;
      rf_q  <= '0;
      vr_q  <= '0;
    end
  end

  logic unused;
  assign unused = ^{st_rd, pq_in_ready, pq_fifo_valid};   // pf_go checks the room

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (pq_room_q == (pq_cnt < ($clog2(PF_DEPTH)+1)'(PF_DEPTH)))
        else $error("fabnic_roce_req_fetch: pq_room_q differs from the FIFO's count");
      assert (pf_busy_q == (pf_active || pq_v_q))
        else $error("fabnic_roce_req_fetch: pf_busy_q differs from its definition");
      assert (pq_v_q == pq_fifo_valid)
        else $error("fabnic_roce_req_fetch: pq_valid differs from the FIFO's out_valid");
      assert (!pq_push || pq_in_ready)
        else $error("fabnic_roce_req_fetch: prefetch queue overflow");
      assert (32'(ob) <= FIFO_BEATS)
        else $error("fabnic_roce_req_fetch: more SQE beats asked for than the FIFO holds");
      assert (!(rd_fire && m_rd_len == 32'd0))
        else $error("fabnic_roce_req_fetch: SQE read of length 0");
      assert (!(fetch_go && (ra_go || pf_req_fire)) && !(ra_go && pf_req_fire))
        else $error("fabnic_roce_req_fetch: two SQE reads issued in one cycle");
      assert (!(pop && pop_last && vr_q == 2'd0 && !take_pf))
        else $error("fabnic_roce_req_fetch: last SQE beat of a read that was not counted");
    end
  end
`endif

endmodule

`resetall
