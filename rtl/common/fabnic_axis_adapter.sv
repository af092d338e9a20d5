// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_adapter: AXI-Stream width adapter between power-of-two byte widths.
//
// Byte lane order is kept: byte i of a frame is byte (i mod KEEP_W) of beat
// (i / KEEP_W) on both sides. tkeep must be contiguous from lane 0 and partial
// only on the last beat (the project convention); the adapter keeps that form.
//
//   S_DATA_W == M_DATA_W  passthrough (wires).
//   S_DATA_W <  M_DATA_W  upsize: R = M/S input beats are packed into one output
//                         beat; a frame's last output beat carries the bytes
//                         left over (tkeep zero above them). Output tuser is the
//                         OR of the tuser of the input beats packed into it, so
//                         a bad-frame flag on the last input beat reaches the
//                         last output beat. One output register; 1 cycle latency
//                         after the completing input beat. The narrow side runs
//                         at one beat per cycle while the sink takes data.
//   S_DATA_W >  M_DATA_W  downsize: each input beat is held and sent as up to
//                         R = S/M output beats; empty segments (tkeep zero) of
//                         a last beat are skipped, so the output tkeep is again
//                         contiguous with the last beat partial. tuser is copied
//                         to every output beat. The next input beat is taken in
//                         the cycle the last segment goes out, so the narrow
//                         (output) side runs at one beat per cycle.
//                         A malformed input last beat with tkeep all zero still
//                         produces one output beat (tkeep 0, tlast 1): it never
//                         hangs and never swallows tlast.
//
// Behaviour when full: back-pressure on s_axis_tready; nothing is dropped.
`default_nettype none

module fabnic_axis_adapter #(
    parameter int S_DATA_W = 64,
    parameter int S_KEEP_W = S_DATA_W / 8,
    parameter int M_DATA_W = 512,
    parameter int M_KEEP_W = M_DATA_W / 8,
    parameter int USER_W   = 1
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [S_DATA_W-1:0] s_axis_tdata,
    input  wire logic [S_KEEP_W-1:0] s_axis_tkeep,
    input  wire logic                s_axis_tvalid,
    output logic                     s_axis_tready,
    input  wire logic                s_axis_tlast,
    input  wire logic [USER_W-1:0]   s_axis_tuser,

    output logic      [M_DATA_W-1:0] m_axis_tdata,
    output logic      [M_KEEP_W-1:0] m_axis_tkeep,
    output logic                     m_axis_tvalid,
    input  wire logic                m_axis_tready,
    output logic                     m_axis_tlast,
    output logic      [USER_W-1:0]   m_axis_tuser
);

  if (S_KEEP_W * 8 != S_DATA_W || M_KEEP_W * 8 != M_DATA_W) begin : g_check_keep
    $error("fabnic_axis_adapter: tkeep must have one bit per byte");
  end
  if ((1 << $clog2(S_KEEP_W)) != S_KEEP_W || (1 << $clog2(M_KEEP_W)) != M_KEEP_W) begin : g_check_pow2
    $error("fabnic_axis_adapter: widths must be power-of-two bytes");
  end

  if (S_DATA_W == M_DATA_W) begin : g_pass

    logic unused_clk_rst;
    assign unused_clk_rst = clk ^ rst;

    assign m_axis_tdata  = s_axis_tdata;
    assign m_axis_tkeep  = s_axis_tkeep;
    assign m_axis_tvalid = s_axis_tvalid;
    assign m_axis_tlast  = s_axis_tlast;
    assign m_axis_tuser  = s_axis_tuser;
    assign s_axis_tready = m_axis_tready;

  end else if (S_DATA_W < M_DATA_W) begin : g_up

    localparam int R   = M_DATA_W / S_DATA_W;
    localparam int SEG = $clog2(R);

    // partially filled beat (segments below seg_q are valid)
    logic [M_DATA_W-1:0] acc_data_q;
    logic [M_KEEP_W-1:0] acc_keep_q;
    logic [USER_W-1:0]   acc_user_q;
    logic [SEG-1:0]      seg_q;
    // output register
    logic [M_DATA_W-1:0] out_data_q;
    logic [M_KEEP_W-1:0] out_keep_q;
    logic [USER_W-1:0]   out_user_q;
    logic                out_last_q, out_valid_q;

    // the incoming beat merged into the accumulator
    logic [M_DATA_W-1:0] merge_data;
    logic [M_KEEP_W-1:0] merge_keep;
    logic                in_fire, complete;

    assign s_axis_tready = !out_valid_q || m_axis_tready;
    assign in_fire       = s_axis_tvalid && s_axis_tready;
    assign complete      = s_axis_tlast || (seg_q == SEG'(R - 1));

    always_comb begin
      merge_data = acc_data_q;
      merge_keep = acc_keep_q;
      for (int i = 0; i < R; i++) begin
        if (seg_q == SEG'(i)) begin
          merge_data[i*S_DATA_W +: S_DATA_W] = s_axis_tdata;
          merge_keep[i*S_KEEP_W +: S_KEEP_W] = s_axis_tkeep;
        end
      end
    end

    always_ff @(posedge clk) begin
      if (m_axis_tready) out_valid_q <= 1'b0;
      if (in_fire) begin
        if (complete) begin
          out_data_q  <= merge_data;
          out_keep_q  <= merge_keep;
          out_user_q  <= acc_user_q | s_axis_tuser;
          out_last_q  <= s_axis_tlast;
          out_valid_q <= 1'b1;
          seg_q       <= '0;
          acc_keep_q  <= '0;
          acc_user_q  <= '0;
        end else begin
          acc_data_q <= merge_data;
          acc_keep_q <= merge_keep;
          acc_user_q <= acc_user_q | s_axis_tuser;
          seg_q      <= seg_q + 1'b1;
        end
      end
      if (rst) begin
        out_valid_q <= 1'b0;
        seg_q       <= '0;
        acc_keep_q  <= '0;
        acc_user_q  <= '0;
      end
    end

    assign m_axis_tdata  = out_data_q;
    assign m_axis_tkeep  = out_keep_q;
    assign m_axis_tvalid = out_valid_q;
    assign m_axis_tlast  = out_last_q;
    assign m_axis_tuser  = out_user_q;

  end else begin : g_down

    localparam int R   = S_DATA_W / M_DATA_W;
    localparam int SEG = $clog2(R);

    logic [S_DATA_W-1:0] in_data_q;
    logic [S_KEEP_W-1:0] in_keep_q;
    logic [USER_W-1:0]   in_user_q;
    logic                in_last_q, in_valid_q;
    logic [SEG-1:0]      seg_q;

    logic [M_KEEP_W-1:0] seg_keep, next_keep;
    logic                seg_is_last, out_fire;

    always_comb begin
      seg_keep  = '0;
      next_keep = '0;
      m_axis_tdata = '0;
      for (int i = 0; i < R; i++) begin
        if (seg_q == SEG'(i)) begin
          m_axis_tdata = in_data_q[i*M_DATA_W +: M_DATA_W];
          seg_keep     = in_keep_q[i*M_KEEP_W +: M_KEEP_W];
        end
        if (i > 0 && seg_q == SEG'(i - 1)) begin
          next_keep = in_keep_q[i*M_KEEP_W +: M_KEEP_W];
        end
      end
      // last segment of this input beat: the final one, or (on a last beat)
      // the next segment carries no bytes
      seg_is_last = (seg_q == SEG'(R - 1)) || (in_last_q && next_keep == '0);
    end

    assign m_axis_tkeep  = seg_keep;
    assign m_axis_tvalid = in_valid_q;
    assign m_axis_tlast  = in_last_q && seg_is_last;
    assign m_axis_tuser  = in_user_q;
    assign out_fire      = in_valid_q && m_axis_tready;
    assign s_axis_tready = !in_valid_q || (m_axis_tready && seg_is_last);

    always_ff @(posedge clk) begin
      if (out_fire) begin
        seg_q <= seg_is_last ? '0 : seg_q + 1'b1;
        if (seg_is_last) in_valid_q <= 1'b0;
      end
      if (s_axis_tvalid && s_axis_tready) begin
        in_data_q  <= s_axis_tdata;
        in_keep_q  <= s_axis_tkeep;
        in_user_q  <= s_axis_tuser;
        in_last_q  <= s_axis_tlast;
        in_valid_q <= 1'b1;
      end
      if (rst) begin
        in_valid_q <= 1'b0;
        seg_q      <= '0;
      end
    end

  end

endmodule

`resetall
