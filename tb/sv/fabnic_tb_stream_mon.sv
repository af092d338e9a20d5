// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_stream_mon (testbench only): AXI-Stream sink that counts frames,
// bytes and bad frames and timestamps the first and last beats, with a
// configurable back-pressure pattern (ready low for `busy_per_256`/256 of the
// cycles, from an LFSR), so Python only reads totals at the end.
`default_nettype none

module fabnic_tb_stream_mon #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [0:0]        s_axis_tuser,

    input  wire logic [7:0]        busy_per_256,
    input  wire logic [63:0]       cycle,          // shared time base

    output logic [31:0]            frames,
    output logic [31:0]            bad_frames,
    output logic [63:0]            bytes,
    output logic [63:0]            beats,
    output logic [63:0]            first_cycle,
    output logic [63:0]            last_cycle,
    output logic [31:0]            first_frame_latency_ref  // cycle of the first beat, low bits
);

  logic [31:0] lfsr;
  logic        seen;

  assign s_axis_tready = lfsr[7:0] >= busy_per_256;

  always_ff @(posedge clk) begin
    lfsr <= {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
    if (s_axis_tvalid && s_axis_tready) begin
      beats <= beats + 1;
      bytes <= bytes + 64'($countones(s_axis_tkeep));
      if (!seen) begin
        seen        <= 1'b1;
        first_cycle <= cycle;
        first_frame_latency_ref <= cycle[31:0];
      end
      if (s_axis_tlast) begin
        frames     <= frames + 1;
        bad_frames <= bad_frames + 32'(s_axis_tuser[0]);
        last_cycle <= cycle;
      end
    end
    if (rst) begin
      lfsr        <= 32'h1234_5678;
      seen        <= 1'b0;
      frames      <= 0;
      bad_frames  <= 0;
      bytes       <= 0;
      beats       <= 0;
      first_cycle <= 0;
      last_cycle  <= 0;
      first_frame_latency_ref <= 0;
    end
  end

endmodule

`resetall
