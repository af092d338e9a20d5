// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_arb_mux: N-input AXI-Stream multiplexer with frame-granular
// round-robin arbitration and an input enable mask.
//
// - A frame is never interleaved: once an input wins, the output stays on it
//   until its tlast beat has been accepted.
// - Round robin: the search for the next winner starts after the input that
//   sent the last frame.
// - enable[i]=0 removes input i from arbitration. It only matters at
//   arbitration time; a frame already started (its first beat presented on the
//   output) is always completed.
// - No bubbles: a new frame can be presented in the cycle after the previous
//   tlast handshake (the choice is combinational and locked as soon as a beat
//   is presented, so tdata/tvalid stay stable until accepted).
// - The round-robin state is a registered priority mask (the inputs after the
//   last winner), so the pick is a one-hot priority search of req & mask, then
//   of req: no index arithmetic between the registers and the grant.
// - Combinational valid/ready paths, by design (a zero-latency mux): the selected
//   s_axis_tvalid -> m_axis_tvalid, m_axis_tready -> s_axis_tready[sel], and
//   s_axis_tvalid -> s_axis_tready (the grant). Put a fabnic_axis_register on
//   either side where a neighbour needs the handshake registered.
//
// Inputs are packed: input i uses s_axis_tdata[i*DATA_W +: DATA_W] etc.
`default_nettype none

module fabnic_axis_arb_mux #(
    parameter int N      = 4,
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int USER_W = 1,
    localparam int SEL_W = (N > 1) ? $clog2(N) : 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [N-1:0]          enable,

    input  wire logic [N*DATA_W-1:0]   s_axis_tdata,
    input  wire logic [N*KEEP_W-1:0]   s_axis_tkeep,
    input  wire logic [N-1:0]          s_axis_tvalid,
    output logic      [N-1:0]          s_axis_tready,
    input  wire logic [N-1:0]          s_axis_tlast,
    input  wire logic [N*USER_W-1:0]   s_axis_tuser,

    output logic      [DATA_W-1:0]     m_axis_tdata,
    output logic      [KEEP_W-1:0]     m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic      [USER_W-1:0]     m_axis_tuser,

    output logic      [SEL_W-1:0]      sel           // input currently on the output
);

  if (N < 1) begin : g_check_n
    $error("fabnic_axis_arb_mux: N must be at least 1");
  end

  logic             active_q;  // a frame is in progress (locked on sel_q)
  logic [SEL_W-1:0] sel_q;
  logic [N-1:0]     prio_q;    // round-robin mask: inputs after the one that sent the last frame

  logic [N-1:0]     req, hi_req, gnt;
  logic [SEL_W-1:0] pick;
  logic             any_req, pick_last;

  assign req     = s_axis_tvalid & enable;
  assign any_req = |req;
  assign hi_req  = req & prio_q;

  // round-robin pick as a one-hot grant: the lowest requester above the last winner,
  // else the lowest requester
  always_comb begin
    logic found_hi, found;
    gnt      = '0;
    found_hi = 1'b0;
    found    = 1'b0;
    for (int i = 0; i < N; i++) begin
      if (hi_req[i] && !found_hi) begin
        gnt[i]   = 1'b1;
        found_hi = 1'b1;
      end
    end
    if (!found_hi) begin
      for (int i = 0; i < N; i++) begin
        if (req[i] && !found) begin
          gnt[i] = 1'b1;
          found  = 1'b1;
        end
      end
    end
    pick = '0;
    for (int i = 0; i < N; i++) if (gnt[i]) pick = pick | SEL_W'(i);
    pick_last = |(gnt & s_axis_tlast);
  end

  // the inputs above a one-hot winner (next round's priority)
  function automatic logic [N-1:0] above(input logic [N-1:0] g);
    logic [N-1:0] m;
    m = '0;
    for (int i = 1; i < N; i++) m[i] = m[i-1] | g[i-1];
    return m;
  endfunction

  assign sel = active_q ? sel_q : pick;

  logic out_valid;
  assign out_valid = active_q ? s_axis_tvalid[sel_q] : any_req;

  always_comb begin
    m_axis_tdata  = s_axis_tdata[sel*DATA_W +: DATA_W];
    m_axis_tkeep  = s_axis_tkeep[sel*KEEP_W +: KEEP_W];
    m_axis_tlast  = s_axis_tlast[sel];
    m_axis_tuser  = s_axis_tuser[sel*USER_W +: USER_W];
    m_axis_tvalid = out_valid;
    s_axis_tready = '0;
    s_axis_tready[sel] = m_axis_tready && (active_q || any_req);
  end

  logic [N-1:0] sel_oh;
  always_comb begin
    for (int i = 0; i < N; i++) sel_oh[i] = sel_q == SEL_W'(i);
  end

  always_ff @(posedge clk) begin
    if (!active_q) begin
      if (any_req) begin
        sel_q <= pick;
        if (m_axis_tready && pick_last) begin
          prio_q <= above(gnt);    // single-beat frame: done at once
        end else begin
          active_q <= 1'b1;        // locked until tlast
        end
      end
    end else if (s_axis_tvalid[sel_q] && m_axis_tready && s_axis_tlast[sel_q]) begin
      active_q <= 1'b0;
      prio_q   <= above(sel_oh);
    end
    if (rst) begin
      active_q <= 1'b0;
      sel_q    <= '0;
      prio_q   <= '0;
    end
  end

endmodule

`resetall
