// SPDX-License-Identifier: Apache-2.0
//
// fabnic_cc_tx_acc: per-QP accumulation of the bytes each QP sends, in front of a
// congestion-control algorithm whose per-QP update is slow (the DCQCN reaction point
// takes one operation per QP every 17 cycles). The transport reports every frame it
// sends (one event per frame, a fact: it cannot wait); this block adds the frame's
// bytes to the QP's running sum and passes the sum on as one event when it reaches
// CHUNK bytes. A QP sending at 100 G then produces one event per CHUNK / 50 cycles
// (at least 20 cycles apart for CHUNK = 1024), which the reaction point takes without
// back-pressure, and no frame's bytes are lost.
//
// Cost of the accumulation: the algorithm sees a QP's bytes up to CHUNK - 1 bytes late
// (bytes below CHUNK wait for the QP's next frame), so a byte-counter event of the
// reaction point can come that much later, and bytes sent shortly before a CNP can be
// counted after it. With the DCQCN byte counter at its usual size (10 MB) that is a
// shift of at most 0.01 %.
//
// The per-QP sum has one owner, fabnic_qp_rmw (FORWARD = 1): one frame per cycle for
// different QPs, one per two cycles for one QP (frames are at least two beats, so the
// transport never reports one QP faster).
//
// Parameters
//   NUM_QP   QPs, a power of two 64..16384 (fabnic_qp_rmw)
//   CHUNK    bytes per event passed on, a power of two 64..32768 ($error otherwise)
//   LEN_W    bits of an input event's byte count (a frame), 8..16
//   OUT_W    bits of an output event's byte count: derived, enough for CHUNK - 1 plus
//            one frame; the algorithm's input must be this wide
//   CNT_W    counter width
//
// Ports
//   s_ev_*    a frame sent: QPN (below NUM_QP), bytes. No ready: an event the block
//             cannot take (the owner's input is full; not reached with frames of two
//             beats or more) is counted in cnt_dropped and lost.
//   s_clr_*   set the QP's sum to 0 (QP init), valid/ready. The state table is not
//             reset: clear a QP before its first event (the NIC clears a QP when the
//             driver creates it; a QP never cleared only feeds events of a QP the
//             algorithm ignores).
//   m_ev_*    accumulated events, valid/ready, from a FIFO (EV_DEPTH entries).
//
// Latency: s_ev to m_ev 1 (input register) + 5 (fabnic_qp_rmw, RAM_LAT 1) + 1 (FIFO)
// cycles for the event that reaches CHUNK. Handshakes: s_clr_ready is the owner's
// control ready (flops); m_ev_valid comes from the FIFO; m_ev_ready reaches only the
// FIFO. Every path is register to register.
`default_nettype none

module fabnic_cc_tx_acc #(
    parameter int NUM_QP   = 1024,
    parameter int CHUNK    = 1024,
    parameter int LEN_W    = 16,
    parameter int EV_DEPTH = 16,
    parameter int CNT_W    = 32,
    parameter int QPN_W    = $clog2(NUM_QP),
    parameter int OUT_W    = (LEN_W > $clog2(CHUNK) ? LEN_W : $clog2(CHUNK)) + 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              s_ev_valid,
    input  wire logic [QPN_W-1:0]  s_ev_qpn,
    input  wire logic [LEN_W-1:0]  s_ev_bytes,

    input  wire logic              s_clr_valid,
    output logic                   s_clr_ready,
    input  wire logic [QPN_W-1:0]  s_clr_qpn,

    output logic                   m_ev_valid,
    input  wire logic              m_ev_ready,
    output logic      [QPN_W-1:0]  m_ev_qpn,
    output logic      [OUT_W-1:0]  m_ev_bytes,

    output logic      [CNT_W-1:0]  cnt_dropped
);

  localparam int CW = $clog2(CHUNK);

  if (CHUNK < 64 || CHUNK > 32768 || (1 << CW) != CHUNK) begin : g_check_chunk
    $error("fabnic_cc_tx_acc: CHUNK must be a power of two in 64..32768");
  end
  if (LEN_W < 8 || LEN_W > 16) begin : g_check_len
    $error("fabnic_cc_tx_acc: LEN_W must be 8..16");
  end
  if (OUT_W != (LEN_W > CW ? LEN_W : CW) + 1) begin : g_check_out
    $error("fabnic_cc_tx_acc: OUT_W is derived; do not override it");
  end
  if (EV_DEPTH < 8 || (1 << $clog2(EV_DEPTH)) != EV_DEPTH) begin : g_check_depth
    $error("fabnic_cc_tx_acc: EV_DEPTH must be a power of two >= 8");
  end

  // State per QP: {sent, sum}. sent = 1: the sum was passed on (it reached CHUNK), so
  // the QP's running sum is 0. Keeping the passed-on sum in the state lets the result
  // carry the event without a second adder.
  localparam int SW = OUT_W + 1;

  // ---------------------------------------------------------------- input register
  logic             in_v_q;
  logic [QPN_W-1:0] in_qpn_q;
  logic [LEN_W-1:0] in_bytes_q;
  logic             req_ready;
  always_ff @(posedge clk) begin
    in_v_q     <= s_ev_valid;
    in_qpn_q   <= s_ev_qpn;
    in_bytes_q <= s_ev_bytes;
    if (rst) in_v_q <= 1'b0;
  end

  always_ff @(posedge clk) begin
    if (in_v_q && !req_ready) cnt_dropped <= cnt_dropped + 1'b1;
    if (rst) cnt_dropped <= '0;
  end

  // ---------------------------------------------------------------- per-QP owner
  logic             cmp_valid, res_valid, res_ready, unused_res_ctl;
  logic [QPN_W-1:0] cmp_qpn, res_qpn;
  logic [LEN_W-1:0] cmp_op, unused_res_op;
  logic [SW-1:0]    cmp_state, new_state, unused_res_old, res_new;

  fabnic_qp_rmw #(
      .NUM_QP(NUM_QP), .STATE_W(SW), .OP_W(LEN_W), .RAM_LAT(1), .FORWARD(1'b1),
      .RES_DEPTH(8)
  ) u_own (
      .clk, .rst,
      .s_req_valid(in_v_q), .s_req_ready(req_ready), .s_req_qpn(in_qpn_q),
      .s_req_op(in_bytes_q),
      .s_ctl_valid(s_clr_valid), .s_ctl_ready(s_clr_ready), .s_ctl_qpn(s_clr_qpn),
      .s_ctl_state('0),
      .cmp_valid, .cmp_qpn, .cmp_op, .cmp_state, .cmp_new_state(new_state),
      .cmp_we(cmp_valid),
      .m_res_valid(res_valid), .m_res_ready(res_ready), .m_res_ctl(unused_res_ctl),
      .m_res_qpn(res_qpn), .m_res_op(unused_res_op), .m_res_old_state(unused_res_old),
      .m_res_new_state(res_new)
  );

  // The update (one stage of the owner): sum = (sent ? 0 : old sum) + bytes; pass it
  // on when it reaches CHUNK.
  logic [OUT_W-1:0] sum;
  always_comb begin
    sum       = (cmp_state[SW-1] ? '0 : cmp_state[OUT_W-1:0]) + OUT_W'(cmp_op);
    new_state = {|sum[OUT_W-1:CW], sum};
  end

  // ---------------------------------------------------------------- output FIFO
  // Results are popped while the FIFO has room; results that pass nothing on (and
  // control-write results, whose state is 0) are discarded.
  logic             fifo_ready;
  logic [$clog2(EV_DEPTH):0] unused_count;
  assign res_ready = fifo_ready;
  fabnic_fifo #(.WIDTH(QPN_W + OUT_W), .DEPTH(EV_DEPTH)) u_out (
      .clk, .rst,
      .in_valid(res_valid && res_new[SW-1]), .in_ready(fifo_ready),
      .in_data({res_qpn, res_new[OUT_W-1:0]}),
      .out_valid(m_ev_valid), .out_ready(m_ev_ready), .out_data({m_ev_qpn, m_ev_bytes}),
      .status_count(unused_count)
  );

  logic unused;
  assign unused = ^{unused_res_ctl, unused_res_op, unused_res_old, unused_count, cmp_qpn};

`ifndef SYNTHESIS
  // every event passed on carries at least CHUNK bytes and less than CHUNK plus one
  // frame (the sum before the last frame was below CHUNK)
  always @(posedge clk) begin
    if (!rst && m_ev_valid)
      assert (int'(m_ev_bytes) >= CHUNK && int'(m_ev_bytes) < CHUNK + (1 << LEN_W))
        else $error("fabnic_cc_tx_acc: event of %0d bytes", m_ev_bytes);
  end
`endif

endmodule

`resetall
