// SPDX-License-Identifier: Apache-2.0
//
// fabnic_u250_status_cdc: status of one clock domain made readable in another (CDC
// primitive for the U250 shell's board registers and LEDs).
//
//   levels:  src_level[i] ==SYNC_STAGES flops (dst_clk)==> dst_level[i]
//   events:  src_event[j] -> cnt (src_clk, binary, +1 per event) -> Gray flop
//            ==SYNC_STAGES flops (dst_clk)==> Gray-to-binary -> dst_count[j]
//
// What crosses and how:
//   - Levels: each bit on its own synchronizer. Use for slow, glitch-free signals
//     whose bits need not be coherent with each other (link up, module present, an
//     interrupt pin). A source may be a flop of any domain or a board pin.
//   - Events: a one-cycle pulse in src_clk is counted in src_clk; the counter crosses in
//     Gray code from a flop, so it changes by at most one bit per src_clk cycle and the
//     destination reads an old or the new value, never a mix. Events may come every
//     src_clk cycle; the destination may skip intermediate values but never loses a
//     count. dst_count is a free-running CNT_W-bit counter (wraps), zeroed by src_rst.
//
// Reset: src_rst zeroes the counters (and, through the crossing, dst_count a few
// dst_clk cycles later); dst_rst zeroes the destination flops only. src_clk/src_rst
// are unused when COUNTS = 0.
//
// Parameters:
//   LEVELS       level bits, >= 1
//   COUNTS       event counters, >= 0
//   CNT_W        counter width, >= 2
//   SYNC_STAGES  synchronizer flops, >= 2
`default_nettype none

module fabnic_u250_status_cdc #(
    parameter int LEVELS      = 1,
    parameter int COUNTS      = 1,
    parameter int CNT_W       = 32,
    parameter int SYNC_STAGES = 2,
    parameter int EV_W        = (COUNTS > 0) ? COUNTS : 1
) (
    input  wire logic              src_clk,
    input  wire logic              src_rst,
    input  wire logic [LEVELS-1:0] src_level,
    input  wire logic [EV_W-1:0]   src_event,

    input  wire logic              dst_clk,
    input  wire logic              dst_rst,
    output logic      [LEVELS-1:0] dst_level,
    output logic      [CNT_W-1:0]  dst_count [EV_W]
);

  if (LEVELS < 1 || COUNTS < 0 || CNT_W < 2 || SYNC_STAGES < 2) begin : g_chk
    $error("fabnic_u250_status_cdc: LEVELS >= 1, COUNTS >= 0, CNT_W >= 2, SYNC_STAGES >= 2");
  end

  // ---------------------------------------------------------------- levels
  (* ASYNC_REG = "TRUE" *) logic [LEVELS-1:0] lvl_sync_q [SYNC_STAGES];

  always_ff @(posedge dst_clk) begin
    lvl_sync_q[0] <= src_level;
    for (int i = 1; i < SYNC_STAGES; i++) lvl_sync_q[i] <= lvl_sync_q[i-1];
    if (dst_rst) begin
      for (int i = 0; i < SYNC_STAGES; i++) lvl_sync_q[i] <= '0;
    end
  end
  assign dst_level = lvl_sync_q[SYNC_STAGES-1];

  // ---------------------------------------------------------------- event counters
  if (COUNTS > 0) begin : g_cnt
    for (genvar j = 0; j < COUNTS; j++) begin : g_ev
      logic [CNT_W-1:0] cnt_q, gray_q;
      (* ASYNC_REG = "TRUE" *) logic [CNT_W-1:0] gray_sync_q [SYNC_STAGES];
      logic [CNT_W-1:0] bin_q;
      // Gray to binary, b[k] = XOR of the synchronized gray bits k and above, in two
      // registered steps so neither is a CNT_W-deep XOR chain: first within groups of
      // 8 bits (suffix XOR inside the group, and each group's parity), then each bit
      // takes the parities of the groups above its own.
      localparam int NG = (CNT_W + 7) / 8;
      logic [CNT_W-1:0] part_q;
      logic [NG-1:0]    par_q;

      always_ff @(posedge src_clk) begin
        if (src_event[j]) begin
          cnt_q  <= cnt_q + 1'b1;
          gray_q <= (cnt_q + 1'b1) ^ ((cnt_q + 1'b1) >> 1);
        end
        if (src_rst) begin
          cnt_q  <= '0;
          gray_q <= '0;
        end
      end

      always_ff @(posedge dst_clk) begin
        logic [CNT_W-1:0] g, part;
        logic [NG-1:0]    par;
        logic             above;
        gray_sync_q[0] <= gray_q;
        for (int i = 1; i < SYNC_STAGES; i++) gray_sync_q[i] <= gray_sync_q[i-1];
        g = gray_sync_q[SYNC_STAGES-1];
        for (int k = CNT_W - 1; k >= 0; k--) begin
          part[k] = (k % 8 == 7 || k == CNT_W - 1) ? g[k] : (g[k] ^ part[k+1]);
        end
        for (int gi = 0; gi < NG; gi++) par[gi] = part[8*gi];
        part_q <= part;
        par_q  <= par;
        for (int k = 0; k < CNT_W; k++) begin
          above = 1'b0;
          for (int gi = k / 8 + 1; gi < NG; gi++) above ^= par_q[gi];
          bin_q[k] <= part_q[k] ^ above;
        end
        if (dst_rst) begin
          for (int i = 0; i < SYNC_STAGES; i++) gray_sync_q[i] <= '0;
          part_q <= '0;
          par_q  <= '0;
          bin_q  <= '0;
        end
      end
      assign dst_count[j] = bin_q;
    end
  end else begin : g_no_cnt
    logic unused_src;
    assign unused_src   = src_clk ^ src_rst ^ (^src_event);
    assign dst_count[0] = '0;
  end

endmodule

`resetall
