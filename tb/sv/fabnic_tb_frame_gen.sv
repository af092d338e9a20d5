// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_frame_gen (testbench only): line-rate AXI-Stream frame generator.
// Python sets the configuration once and pulses `start`; the generator then
// emits `n_frames` frames without any Python work per cycle.
//
// Frame layout: the first hdr_len bytes come from `hdr` (byte i of the frame =
// hdr[8*i+7:8*i]), the rest is the pattern byte k = (frame_index + k) mod 256.
// Frame length is len_min when len_max == len_min, otherwise uniform-ish in
// [len_min, len_max] from an LFSR. `gap` idle cycles are inserted between frames.
// Pacing: with rate_q8 != 0 (bytes per cycle, Q8.8) a frame may only start when
// the byte credit is non-negative; each frame costs its length plus `overhead`
// bytes (preamble + IFG + FCS on a real wire), so the offered load is exactly
// that line rate. rate_q8 = 0 sends as fast as the stream accepts.
`default_nettype none

module fabnic_tb_frame_gen #(
    parameter int DATA_W  = 512,
    parameter int KEEP_W  = DATA_W / 8,
    parameter int HDR_MAX = 128
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [8*HDR_MAX-1:0]  hdr,
    input  wire logic [15:0]           hdr_len,
    input  wire logic [15:0]           len_min,
    input  wire logic [15:0]           len_max,
    input  wire logic [31:0]           n_frames,
    input  wire logic [15:0]           gap,
    input  wire logic [15:0]           rate_q8,
    input  wire logic [15:0]           overhead,
    input  wire logic                  start,

    output logic [DATA_W-1:0]          m_axis_tdata,
    output logic [KEEP_W-1:0]          m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic [0:0]                 m_axis_tuser,

    output logic                       busy,
    output logic [31:0]                frames_sent,
    output logic [63:0]                bytes_sent,
    output logic [63:0]                cycle,
    output logic [63:0]                first_cycle,
    output logic [63:0]                last_cycle
);

  logic [31:0] frame_idx;
  logic [15:0] cur_len, offset, gap_cnt;
  logic [31:0] lfsr;
  logic        active, in_gap;
  logic signed [39:0] credit;   // bytes, Q8.8
  logic        paced_wait;

  function automatic logic [15:0] pick_len(input logic [31:0] r, input logic [15:0] lo,
                                           input logic [15:0] hi);
    logic [15:0] span;
    span = hi - lo + 16'd1;
    if (hi <= lo) return lo;
    return lo + 16'(r[15:0] % span);
  endfunction

  always_comb begin
    for (int i = 0; i < KEEP_W; i++) begin
      int unsigned pos;
      pos = int'(offset) + i;
      if (pos < int'(hdr_len) && pos < HDR_MAX) m_axis_tdata[8*i +: 8] = hdr[8*pos +: 8];
      else m_axis_tdata[8*i +: 8] = 8'(frame_idx + pos);
      m_axis_tkeep[i] = pos < int'(cur_len);
    end
  end

  // a frame may start only with non-negative credit; once started it runs to the end
  assign paced_wait    = rate_q8 != 0 && offset == 0 && credit < 0;
  assign m_axis_tvalid = active && !in_gap && !paced_wait;
  assign m_axis_tlast  = (int'(offset) + KEEP_W) >= int'(cur_len);
  assign m_axis_tuser  = 1'b0;
  assign busy          = active;

  always_ff @(posedge clk) begin
    cycle <= cycle + 1;
    // credit: +rate every cycle (capped at one maximum frame), -cost at frame start
    if (rate_q8 != 0) begin
      logic signed [39:0] c;
      c = credit + 40'(rate_q8);
      if (m_axis_tvalid && m_axis_tready && offset == 0)
        c = c - ((40'(cur_len) + 40'(overhead)) <<< 8);
      if (c > (40'sd16384 <<< 8)) c = 40'sd16384 <<< 8;
      credit <= c;
    end
    if (start && !active) begin
      active      <= n_frames != 0;
      frame_idx   <= 0;
      offset      <= 0;
      in_gap      <= 1'b0;
      frames_sent <= 0;
      bytes_sent  <= 0;
      cur_len     <= pick_len(lfsr, len_min, len_max);
      first_cycle <= cycle + 1;
      credit      <= '0;
    end else if (active) begin
      if (in_gap) begin
        if (gap_cnt <= 1) in_gap <= 1'b0;
        gap_cnt <= gap_cnt - 1;
      end else if (m_axis_tvalid && m_axis_tready) begin
        if (m_axis_tlast) begin
          frames_sent <= frames_sent + 1;
          bytes_sent  <= bytes_sent + 64'(cur_len);
          last_cycle  <= cycle;
          frame_idx   <= frame_idx + 1;
          offset      <= 0;
          lfsr        <= {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
          cur_len     <= pick_len({lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]},
                                  len_min, len_max);
          if (frames_sent + 1 >= n_frames) active <= 1'b0;
          else if (gap != 0) begin
            in_gap  <= 1'b1;
            gap_cnt <= gap;
          end
        end else begin
          offset <= offset + 16'(KEEP_W);
        end
      end
    end
    if (rst) begin
      active      <= 1'b0;
      in_gap      <= 1'b0;
      offset      <= 0;
      cycle       <= 0;
      frames_sent <= 0;
      bytes_sent  <= 0;
      frame_idx   <= 0;
      cur_len     <= 16'd64;
      lfsr        <= 32'hACE1_2468;
      first_cycle <= 0;
      last_cycle  <= 0;
      credit      <= '0;
    end
  end

endmodule

`resetall
