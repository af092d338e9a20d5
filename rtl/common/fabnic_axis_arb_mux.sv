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
  logic [SEL_W-1:0] last_q;    // input that sent the last frame (round-robin pointer)

  logic [N-1:0]     req;
  logic [SEL_W-1:0] pick;
  logic             any_req;

  assign req     = s_axis_tvalid & enable;
  assign any_req = |req;

  // round-robin pick: first requesting input after last_q
  always_comb begin
    logic found;
    int   idx;
    pick  = last_q;
    found = 1'b0;
    for (int k = 1; k <= N; k++) begin
      idx = int'(last_q) + k;
      if (idx >= N) idx = idx - N;
      if (!found && req[idx]) begin
        pick  = SEL_W'(idx);
        found = 1'b1;
      end
    end
  end

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

  logic fire;
  assign fire = out_valid && m_axis_tready;

  always_ff @(posedge clk) begin
    if (!active_q) begin
      if (any_req) begin
        sel_q <= pick;
        if (fire && m_axis_tlast) begin
          last_q <= pick;        // single-beat frame: done at once
        end else begin
          active_q <= 1'b1;      // locked until tlast
        end
      end
    end else if (fire && m_axis_tlast) begin
      active_q <= 1'b0;
      last_q   <= sel_q;
    end
    if (rst) begin
      active_q <= 1'b0;
      sel_q    <= '0;
      last_q   <= SEL_W'(N - 1);
    end
  end

endmodule

`resetall
