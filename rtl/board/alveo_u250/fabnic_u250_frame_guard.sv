// SPDX-License-Identifier: Apache-2.0
//
// fabnic_u250_frame_guard: keeps frames whole between a source and a sink whose resets
// are independent (a MAC, a CDC FIFO), drops whole frames on request, and optionally
// pads short frames.
//
//   s_axis (source) -> [guard] -> m_axis (sink)
//
// The guard tracks the frame boundaries of the input stream (mid_q: the next beat
// continues a frame) and acts only on whole frames:
//   flush      the sink is held in reset. Every input beat is accepted and discarded
//              (s_axis_tready = 1, m_axis_tvalid = 0); a frame that loses any beat this
//              way is discarded up to its tlast even after flush falls (skip_q), so
//              the sink never receives the tail of a frame as if it were a frame. A
//              frame partly passed when flush rises is discarded by the sink's reset
//              and its remaining beats here.
//   block      frames that start while block is high are discarded whole (a link that
//              is down); a frame already started is passed to its end.
//   src_abort  the source has restarted (its reset): a frame it left unfinished is
//              closed with one extra beat (tlast = 1, tuser = all ones, tkeep = lane 0,
//              data 0), so the sink sees a bad frame rather than the start of the next
//              frame appended to it. Input beats are discarded while src_abort is high.
//              The closing beat is offered from the cycle after src_abort rises, with
//              s_axis_tready low; not while flush is high (the sink is in reset then).
// Each frame lost in any of these ways pulses `drop` exactly once (count it: no silent
// loss); a closed frame also reaches the sink flagged bad. `rst` is the guard's own
// reset (it forgets the frame state: use the reset that the source and the sink share,
// or the source's).
//
// A source without back-pressure (a MAC receiver) works too: it ignores s_axis_tready,
// and the sink must then always be ready (a frame FIFO with DROP_WHEN_FULL = 1; the
// closing beat is taken in one cycle), and src_abort must stay high for at least two
// cycles (a fabnic_reset_sync output does), so that the closing beat leaves while the
// source is still in reset rather than in a cycle where it may show a beat.
//
// Outside those cases the guard is a wire: m_axis_tvalid = s_axis_tvalid and
// s_axis_tready = m_axis_tready. Combinational handshake paths (by design, one gate
// each; the neighbours in the U250 shell are registered): s_axis_tvalid ->
// m_axis_tvalid and m_axis_tready -> s_axis_tready.
//
// Padding (MIN_BYTES > 0): a frame shorter than MIN_BYTES (it is a single beat, as
// MIN_BYTES <= KEEP_W) leaves with tkeep covering MIN_BYTES bytes and the added bytes
// zero (Ethernet: 60 bytes without FCS, for a MAC that does not pad). Every byte whose
// tkeep bit is clear is driven zero. tkeep must be contiguous from lane 0.
//
// Parameters:
//   DATA_W, KEEP_W, USER_W  beat fields (KEEP_W = DATA_W / 8 when MIN_BYTES > 0)
//   MIN_BYTES               0 (no padding) or 1..KEEP_W
`default_nettype none

module fabnic_u250_frame_guard #(
    parameter int DATA_W    = 512,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int USER_W    = 1,
    parameter int MIN_BYTES = 0
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              flush,      // the sink is held in reset
    input  wire logic              block,      // discard frames that start now
    input  wire logic              src_abort,  // the source restarted

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    output logic                   drop        // one pulse per lost frame
);

  if (MIN_BYTES < 0 || MIN_BYTES > KEEP_W || (MIN_BYTES > 0 && KEEP_W * 8 != DATA_W))
  begin : g_chk
    $error("fabnic_u250_frame_guard: 0 <= MIN_BYTES <= KEEP_W, and KEEP_W = DATA_W/8 to pad");
  end

  logic mid_q;     // the next input beat continues a frame
  logic skip_q;    // discarding the rest of the current frame
  logic close_q;   // sending the closing beat of a frame the source abandoned
  logic closing;   // the closing beat is offered (not while the sink is in reset)
  logic pass, fire;

  // forward the current input beat; a frame's first beat is checked against `block`
  assign pass = !flush && !skip_q && !close_q && !src_abort && !(!mid_q && block);
  assign closing       = close_q && !flush;
  assign s_axis_tready = closing ? 1'b0 : (pass ? m_axis_tready : 1'b1);
  assign fire          = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk) begin
    drop <= 1'b0;
    // the closing beat leaves when the sink takes it, or is moot once the sink resets
    if ((close_q && m_axis_tready) || flush) close_q <= 1'b0;
    if (src_abort) begin
      // a frame with beats already in the sink is closed there as a bad frame
      if (mid_q && !skip_q && !flush) close_q <= 1'b1;
      if (mid_q && !skip_q) drop <= 1'b1;
      mid_q  <= 1'b0;
      skip_q <= 1'b0;
    end else begin
      if (fire) mid_q <= !s_axis_tlast;
      if (fire && !pass) begin
        // a discarded beat: the first one of a frame counts the frame
        if (!skip_q) drop <= 1'b1;
        skip_q <= !s_axis_tlast;
      end else if (flush && mid_q && !skip_q) begin
        // the sink is reset while a frame is partly passed and no beat moves now
        drop   <= 1'b1;
        skip_q <= 1'b1;
      end
    end
    if (rst) begin
      mid_q   <= 1'b0;
      skip_q  <= 1'b0;
      close_q <= 1'b0;
      drop    <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- output beat
  logic [DATA_W-1:0] fwd_tdata;
  logic [KEEP_W-1:0] fwd_tkeep;

  if (MIN_BYTES > 0) begin : g_pad
    logic [KEEP_W-1:0] pad_keep;
    assign pad_keep  = KEEP_W'((KEEP_W + 1)'(1) << MIN_BYTES) - KEEP_W'(1);
    assign fwd_tkeep = (!mid_q && s_axis_tlast) ? (s_axis_tkeep | pad_keep) : s_axis_tkeep;
    always_comb begin
      for (int i = 0; i < KEEP_W; i++) begin
        fwd_tdata[8*i +: 8] = s_axis_tkeep[i] ? s_axis_tdata[8*i +: 8] : 8'h00;
      end
    end
  end else begin : g_no_pad
    assign fwd_tkeep = s_axis_tkeep;
    assign fwd_tdata = s_axis_tdata;
  end

  assign m_axis_tvalid = closing || (s_axis_tvalid && pass);
  assign m_axis_tdata  = close_q ? '0 : fwd_tdata;
  assign m_axis_tkeep  = close_q ? KEEP_W'(1) : fwd_tkeep;
  assign m_axis_tlast  = close_q || s_axis_tlast;
  assign m_axis_tuser  = close_q ? '1 : s_axis_tuser;

endmodule

`resetall
