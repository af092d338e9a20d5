// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fifo: first-word-fall-through FIFO for control words (descriptors,
// events, completions): valid/ready on both sides, the head entry visible on
// out_data while out_valid is high.
//
// Storage is a plain array read combinationally at the head (distributed RAM or
// flops; meant for shallow queues — use fabnic_axis_fifo for packet data).
// Behaviour when full: back-pressure (in_ready low); nothing is dropped.
// status_count reports the occupancy so a producer can reserve space.
`default_nettype none

module fabnic_fifo #(
    parameter int WIDTH = 32,
    parameter int DEPTH = 16  // entries, power of two, >= 2
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic             in_valid,
    output logic                  in_ready,
    input  wire logic [WIDTH-1:0] in_data,

    output logic                  out_valid,
    input  wire logic             out_ready,
    output logic      [WIDTH-1:0] out_data,

    output logic [$clog2(DEPTH):0] status_count
);

  localparam int AW = $clog2(DEPTH);

  if ((1 << AW) != DEPTH || DEPTH < 2) begin : g_check_depth
    $error("fabnic_fifo: DEPTH must be a power of two >= 2");
  end

  logic [WIDTH-1:0] mem [DEPTH];
  logic [AW:0]      wr_ptr_q, rd_ptr_q;

  assign status_count = wr_ptr_q - rd_ptr_q;
  assign in_ready     = status_count != (AW+1)'(DEPTH);
  assign out_valid    = wr_ptr_q != rd_ptr_q;
  assign out_data     = mem[rd_ptr_q[AW-1:0]];

  always_ff @(posedge clk) begin
    if (in_valid && in_ready) mem[wr_ptr_q[AW-1:0]] <= in_data;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
    end else begin
      if (in_valid && in_ready) wr_ptr_q <= wr_ptr_q + 1'b1;
      if (out_valid && out_ready) rd_ptr_q <= rd_ptr_q + 1'b1;
    end
  end

endmodule

`resetall
