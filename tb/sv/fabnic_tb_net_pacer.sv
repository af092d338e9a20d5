// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_net_pacer (testbench only): serialization rate limiter shared by
// fabnic_tb_link and fabnic_tb_switch.
//
// Fluid model of a wire of `rate` bytes per cycle (16.16 fixed point; 0 means
// unlimited). `backlog` holds the bytes accepted but not yet on the wire. Each
// cycle the wire drains `rate` bytes; a beat may be taken while less than one
// cycle's worth is pending (`ok`), so a partly used cycle carries over to the
// next beat and the long-run rate is exact. Every frame adds `ovh` bytes on its
// first beat (preamble, IFG, FCS). An idle wire does not save credit.
// SLACK (bytes, default 0): a beat may also be taken while up to SLACK more bytes are
// pending, a MAC's transmit FIFO of that size. With SLACK = 0, a cycle whose beat ends
// a frame with few bytes (a 138-byte frame's third beat holds 10) leaves the rest of
// that cycle's wire time unused, because the next frame's beat can only come the next
// cycle: back-to-back 64 B RoCE WRITE frames then get 4 cycles each at 100 G instead of
// the wire's 3.24. SLACK = one beat keeps the wire busy across frame boundaries (the
// long-run rate is the same; the extra pending bytes are at most SLACK).
`default_nettype none

module fabnic_tb_net_pacer #(
    parameter int SLACK = 0
) (
    input  wire logic        clk,
    input  wire logic        rst,
    input  wire logic [31:0] rate,        // bytes/cycle, 16.16 fixed point
    input  wire logic [15:0] ovh,         // wire overhead bytes per frame
    input  wire logic        take,        // a beat is accepted this cycle
    input  wire logic        take_first,  // ... and it is the first beat of a frame
    input  wire logic [15:0] take_bytes,  // ... with this many bytes
    output logic             ok
);

  logic signed [47:0] backlog;
  logic signed [47:0] add, nxt;

  assign ok = (rate == 32'd0) || (backlog < $signed({16'd0, rate}) + $signed(48'(SLACK) << 16));

  always_comb begin
    add = '0;
    if (take) begin
      add = $signed({16'd0, take_bytes, 16'd0});
      if (take_first) add = add + $signed({16'd0, ovh, 16'd0});
    end
    nxt = backlog - $signed({16'd0, rate}) + add;
    if (rate == 32'd0 || nxt < 0) nxt = '0;
  end

  always_ff @(posedge clk) begin
    if (rst) backlog <= '0;
    else backlog <= nxt;
  end

endmodule

`resetall
