// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_tail_append: appends 0..TAIL_MAX bytes to the end of every frame.
//
// s_axis_ttail / s_axis_ttail_len are per-frame sideband, sampled on the frame's
// last beat: byte t of the tail (t = 0 first on the wire) is s_axis_ttail[8*t +: 8],
// s_axis_ttail_len bytes are appended after the frame's last byte (0 = frame
// unchanged). tuser[0] of the last beat stays on the (new) last beat; the other
// tuser bits ride along unchanged.
// Throughput: one beat per cycle; a frame whose last beat has more than
// KEEP_W - tail_len bytes needs one more output beat (the input waits one cycle).
// Latency: one cycle (registered output).
`default_nettype none

module fabnic_axis_tail_append #(
    parameter int DATA_W   = 64,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int USER_W   = 1,
    parameter int TAIL_MAX = 8,                       // bytes, 1..KEEP_W
    parameter int TLEN_W   = $clog2(TAIL_MAX + 1)
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_W-1:0]     s_axis_tdata,
    input  wire logic [KEEP_W-1:0]     s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output logic                       s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic [USER_W-1:0]     s_axis_tuser,
    input  wire logic [TAIL_MAX*8-1:0] s_axis_ttail,
    input  wire logic [TLEN_W-1:0]     s_axis_ttail_len,

    output logic      [DATA_W-1:0]     m_axis_tdata,
    output logic      [KEEP_W-1:0]     m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic      [USER_W-1:0]     m_axis_tuser
);

  localparam int CNT_W = $clog2(2 * KEEP_W + 1);

  if (TAIL_MAX < 1 || TAIL_MAX > KEEP_W) begin : g_chk
    $error("fabnic_axis_tail_append: TAIL_MAX must be 1..KEEP_W");
  end

  logic              out_valid_q, out_last_q, extra_q;
  logic [DATA_W-1:0] out_data_q, extra_data_q;
  logic [KEEP_W-1:0] out_keep_q, extra_keep_q;
  logic [USER_W-1:0] out_user_q, extra_user_q;
  logic              out_load;

  logic [CNT_W-1:0]    n, total;
  logic [2*DATA_W-1:0] merged, tail_sh, kbits;
  logic [2*KEEP_W-1:0] mkeep;

  assign out_load      = !out_valid_q || m_axis_tready;
  assign s_axis_tready = out_load && !extra_q;

  always_comb begin
    n = '0;
    for (int i = 0; i < KEEP_W; i++) n = n + CNT_W'(s_axis_tkeep[i]);
    total = n + CNT_W'(s_axis_ttail_len);
    kbits = '0;
    for (int i = 0; i < KEEP_W; i++) kbits[8*i +: 8] = {8{s_axis_tkeep[i]}};
    tail_sh = '0;
    for (int t = 0; t < TAIL_MAX; t++) begin
      if (TLEN_W'(t) < s_axis_ttail_len) tail_sh[8*t +: 8] = s_axis_ttail[8*t +: 8];
    end
    tail_sh = tail_sh << (8 * n);
    merged  = ({{DATA_W{1'b0}}, s_axis_tdata} & kbits) | tail_sh;
    for (int i = 0; i < 2 * KEEP_W; i++) mkeep[i] = CNT_W'(i) < total;
  end

  always_ff @(posedge clk) begin
    if (out_load) begin
      if (extra_q) begin
        out_valid_q <= 1'b1;
        out_data_q  <= extra_data_q;
        out_keep_q  <= extra_keep_q;
        out_last_q  <= 1'b1;
        out_user_q  <= extra_user_q;
        extra_q     <= 1'b0;
      end else begin
        out_valid_q <= s_axis_tvalid;
        if (s_axis_tvalid) begin
          out_data_q <= merged[DATA_W-1:0];
          if (s_axis_tlast) begin
            out_keep_q <= mkeep[KEEP_W-1:0];
            if (total > CNT_W'(KEEP_W)) begin
              // tail spills into one more beat; tuser[0] goes with the last one
              out_last_q   <= 1'b0;
              out_user_q   <= s_axis_tuser & ~USER_W'(1);
              extra_q      <= 1'b1;
              extra_data_q <= merged[2*DATA_W-1:DATA_W];
              extra_keep_q <= mkeep[2*KEEP_W-1:KEEP_W];
              extra_user_q <= s_axis_tuser;
            end else begin
              out_last_q <= 1'b1;
              out_user_q <= s_axis_tuser;
            end
          end else begin
            out_keep_q <= s_axis_tkeep;
            out_last_q <= 1'b0;
            out_user_q <= s_axis_tuser;
          end
        end
      end
    end
    if (rst) begin
      out_valid_q <= 1'b0;
      extra_q     <= 1'b0;
    end
  end

  assign m_axis_tvalid = out_valid_q;
  assign m_axis_tdata  = out_data_q;
  assign m_axis_tkeep  = out_keep_q;
  assign m_axis_tlast  = out_last_q;
  assign m_axis_tuser  = out_user_q;

endmodule

`resetall
