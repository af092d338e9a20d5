// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_async_fifo: AXI-Stream FIFO between two unrelated clocks (CDC primitive).
//
//   s_clk domain                                   m_clk domain
//   s_axis -> [mem write] wr_ptr -> wr_gray_q ==SYNC_STAGES flops==> wr_gray_sync -> empty
//                                                              [mem read] -> out regs -> m_axis
//   full <- rd_gray_sync <==SYNC_STAGES flops== rd_gray_q <- rd_ptr
//
// What crosses the clock boundary, and how:
//   - wr_gray_q (s_clk) -> m_clk: the write pointer in Gray code, from a flop, through
//     SYNC_STAGES flops (ASYNC_REG). It moves by one per written beat, so at most one
//     bit changes per s_clk cycle and the receiver sees the old or the new value, never
//     a mix. The binary value is never used on the far side (empty is a Gray compare).
//   - rd_gray_q (m_clk) -> s_clk: the read pointer, the same way (full is a Gray compare).
//   - mem: written in s_clk, read in m_clk. An entry is read only after its write is
//     visible through wr_gray_sync (at least SYNC_STAGES m_clk edges after the write),
//     and rewritten only after its read is visible through rd_gray_sync, so the data
//     path needs no synchronizer; fpga/alveo_u250/cdc.tcl bounds it and the two Gray
//     buses (set_max_delay -datapath_only, one period of the faster clock).
//   - the resets, through fabnic_reset_sync (see the reset rule).
//
// Beat FIFO: the FIFO does not look at tlast; frames pass beat by beat with
// back-pressure on both sides (s_axis_tready low when full, m_axis_tvalid low when
// empty); nothing is ever dropped while both sides are out of reset.
//
// Depth rule: DEPTH is a power of two, >= 4. The writer learns of a read, and the
// reader of a write, SYNC_STAGES + 1 cycles of the receiving clock after it happened,
// so a continuous stream at one beat per cycle of the slower clock needs
// DEPTH >= 2 * (SYNC_STAGES + 2) beats (8 with 2 stages); a shallower FIFO is still
// correct but stalls the writer. The slower side sets the throughput; a faster writer
// is throttled by back-pressure.
//
// Reset rule: either reset empties the whole FIFO. s_rst is carried into m_clk and
// m_rst into s_clk by fabnic_reset_sync (asserted at once, released SYNC_STAGES
// clocks of the receiving side after the source releases), and each side is held in
// reset while its own reset or the carried one is high. The carried reset is also
// carried back (a second fabnic_reset_sync per direction): after its own reset falls
// a side stays held until that echo releases (SYNC_STAGES far clocks, then SYNC_STAGES
// of its own), i.e. until the far side has been held, zeroed its pointer and released.
// So a side never picks up the far side's old pointer: without the echo, a short reset
// against a far clock more than about twice slower makes the reader read a lap of
// stale beats, or the writer overrun a reader not yet reset. The two pointers are thus
// always zeroed together and never disagree. While a side is held (s_rst_active /
// m_rst_active high) s_axis_tready, resp. m_axis_tvalid, is low and the beats in the
// FIFO are discarded; a frame cut by a reset must be handled by the user (the U250
// shell uses fabnic_u250_frame_guard). s_rst and m_rst must be glitch-free (flop
// outputs, e.g. from fabnic_reset_sync); they are synchronous to their own clock.
//
// Parameters:
//   DATA_W, KEEP_W, USER_W  beat fields (any widths >= 1)
//   DEPTH                   memory beats, power of two >= 4 (see the depth rule); the
//                           FIFO holds DEPTH + 1 beats (the output register is one more)
//   SYNC_STAGES             synchronizer flops per crossing, >= 2
//
// Latency: a beat appears on m_axis about SYNC_STAGES + 2 m_clk cycles after it was
// written. m_axis_* come from flops (the memory read register and a valid flop,
// masked by m_rst_active); s_axis_tready and m_axis_tvalid depend only on flops.
`default_nettype none

module fabnic_axis_async_fifo #(
    parameter int DATA_W      = 64,
    parameter int KEEP_W      = DATA_W / 8,
    parameter int USER_W      = 1,
    parameter int DEPTH       = 16,
    parameter int SYNC_STAGES = 2
) (
    // write side
    input  wire logic              s_clk,
    input  wire logic              s_rst,
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,
    output logic                   s_rst_active,   // write side held in reset (either reset)

    // read side
    input  wire logic              m_clk,
    input  wire logic              m_rst,
    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,
    output logic                   m_rst_active    // read side held in reset (either reset)
);

  localparam int AW = $clog2(DEPTH);
  localparam int W  = DATA_W + KEEP_W + USER_W + 1;

  if (DEPTH < 4 || (1 << AW) != DEPTH) begin : g_chk_depth
    $error("fabnic_axis_async_fifo: DEPTH must be a power of two >= 4");
  end
  if (SYNC_STAGES < 2) begin : g_chk_sync
    $error("fabnic_axis_async_fifo: SYNC_STAGES must be at least 2");
  end

  function automatic logic [AW:0] bin2gray(input logic [AW:0] b);
    return b ^ (b >> 1);
  endfunction

  // ---------------------------------------------------------------- resets
  // *_from_*: the other side's reset carried across; *_echo: our own reset carried
  // across and back (released once the far side has been held and released)
  logic s_rst_from_m, m_rst_from_s, s_rst_echo, m_rst_echo;
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_m2s (
      .clk(s_clk), .arst(m_rst), .rst(s_rst_from_m));
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_s2m (
      .clk(m_clk), .arst(s_rst), .rst(m_rst_from_s));
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_s2m2s (
      .clk(s_clk), .arst(m_rst_from_s), .rst(s_rst_echo));
  fabnic_reset_sync #(.STAGES(SYNC_STAGES)) u_rst_m2s2m (
      .clk(m_clk), .arst(s_rst_from_m), .rst(m_rst_echo));
  assign s_rst_active = s_rst || s_rst_from_m || s_rst_echo;
  assign m_rst_active = m_rst || m_rst_from_s || m_rst_echo;

  logic [W-1:0] mem [DEPTH];

  // ---------------------------------------------------------------- write side (s_clk)
  logic [AW:0] wr_ptr_q, wr_gray_q, rd_gray_s;
  logic [AW:0] rd_gray_q;    // (m_clk) declared here: the s_clk side synchronizes it
  (* ASYNC_REG = "TRUE" *) logic [AW:0] rd_gray_sync_q [SYNC_STAGES];
  logic        full, wr_en;

  assign rd_gray_s = rd_gray_sync_q[SYNC_STAGES-1];
  // full: the write pointer is one lap (DEPTH) ahead of the read pointer; in Gray code
  // that is the read pointer with its two top bits inverted
  assign full = wr_gray_q == {~rd_gray_s[AW:AW-1], rd_gray_s[AW-2:0]};
  assign s_axis_tready = !full && !s_rst_active;
  assign wr_en = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge s_clk) begin
    if (wr_en) mem[wr_ptr_q[AW-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
  end

  always_ff @(posedge s_clk) begin
    if (wr_en) begin
      wr_ptr_q  <= wr_ptr_q + 1'b1;
      wr_gray_q <= bin2gray(wr_ptr_q + 1'b1);
    end
    rd_gray_sync_q[0] <= rd_gray_q;
    for (int i = 1; i < SYNC_STAGES; i++) rd_gray_sync_q[i] <= rd_gray_sync_q[i-1];
    if (s_rst_active) begin
      wr_ptr_q  <= '0;
      wr_gray_q <= '0;
      for (int i = 0; i < SYNC_STAGES; i++) rd_gray_sync_q[i] <= '0;
    end
  end

  // ---------------------------------------------------------------- read side (m_clk)
  logic [AW:0]  rd_ptr_q, wr_gray_m;
  (* ASYNC_REG = "TRUE" *) logic [AW:0] wr_gray_sync_q [SYNC_STAGES];
  logic         empty, rd_en, out_valid_q;
  logic [W-1:0] out_q;

  assign wr_gray_m = wr_gray_sync_q[SYNC_STAGES-1];
  assign empty     = rd_gray_q == wr_gray_m;
  assign rd_en     = !empty && (!out_valid_q || m_axis_tready) && !m_rst_active;

  // memory read register: no reset, so it can be the block RAM's own output register
  always_ff @(posedge m_clk) begin
    if (rd_en) out_q <= mem[rd_ptr_q[AW-1:0]];
  end

  always_ff @(posedge m_clk) begin
    if (rd_en) begin
      out_valid_q <= 1'b1;
      rd_ptr_q    <= rd_ptr_q + 1'b1;
      rd_gray_q   <= bin2gray(rd_ptr_q + 1'b1);
    end else if (m_axis_tready) begin
      out_valid_q <= 1'b0;
    end
    wr_gray_sync_q[0] <= wr_gray_q;
    for (int i = 1; i < SYNC_STAGES; i++) wr_gray_sync_q[i] <= wr_gray_sync_q[i-1];
    if (m_rst_active) begin
      out_valid_q <= 1'b0;
      rd_ptr_q    <= '0;
      rd_gray_q   <= '0;
      for (int i = 0; i < SYNC_STAGES; i++) wr_gray_sync_q[i] <= '0;
    end
  end

  // held in reset: no beat is offered (out_valid_q clears only on the next m_clk edge)
  assign m_axis_tvalid = out_valid_q && !m_rst_active;
  assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_q;

endmodule

`resetall
