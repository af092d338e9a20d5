// SPDX-License-Identifier: Apache-2.0
//
// fabnic_host_fifo: small first-word-fall-through FIFO for the host DMA engines'
// bookkeeping (descriptor info, burst info, status). Storage is a register
// array read combinationally (distributed RAM), so out_data is valid in the
// same cycle as out_valid and a push into an empty FIFO is visible the next
// cycle. Full: in_ready is low (back-pressure); nothing is ever dropped.
`default_nettype none

module fabnic_host_fifo #(
    parameter int WIDTH = 8,
    parameter int DEPTH = 16  // entries, power of two, >= 2
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic [WIDTH-1:0] in_data,
    input  wire logic             in_valid,
    output logic                  in_ready,

    output logic      [WIDTH-1:0] out_data,
    output logic                  out_valid,
    input  wire logic             out_ready
);

  localparam int AW = $clog2(DEPTH);

  if ((1 << AW) != DEPTH || DEPTH < 2) begin : g_check_depth
    $error("fabnic_host_fifo: DEPTH must be a power of two >= 2");
  end

  logic [WIDTH-1:0] mem [DEPTH];
  logic [AW:0]      wr_ptr_q, rd_ptr_q;

  assign in_ready  = (wr_ptr_q - rd_ptr_q) != (AW+1)'(DEPTH);
  assign out_valid = wr_ptr_q != rd_ptr_q;
  assign out_data  = mem[rd_ptr_q[AW-1:0]];

  always_ff @(posedge clk) begin
    if (in_valid && in_ready) begin
      mem[wr_ptr_q[AW-1:0]] <= in_data;
    end
  end

  always_ff @(posedge clk) begin
    if (in_valid && in_ready) wr_ptr_q <= wr_ptr_q + 1'b1;
    if (out_valid && out_ready) rd_ptr_q <= rd_ptr_q + 1'b1;
    if (rst) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
    end
  end

endmodule

`resetall
