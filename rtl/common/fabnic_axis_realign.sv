// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_realign: per-frame "remove the first OFF bytes, keep the next LEN bytes"
// on an AXI-Stream, with the output realigned to lane 0. The shared engine of
// fabnic_axis_hdr_extract and fabnic_pkt_parser.
//
// A command (off, len, trim, chk, drop, bad) is taken together with the first beat of
// each frame (cmd_ready pulses then). The frame's bytes [off, off+len) (or
// [off, end) when trim=0) leave on m_axis, starting at lane 0:
//   - a frame with nothing left to emit gives one beat with tkeep=0, tlast=1;
//   - trim=1: bytes after off+len are discarded; the last output beat is held back
//     until the input's tlast so that the input's tuser[0] still reaches it;
//   - tuser[0] on the last output beat = input tuser[0] (last beat) | bad |
//     (chk & frame shorter than off+len); status_done/status_short pulse per frame;
//   - drop=1: the frame is consumed and nothing is emitted.
// Throughput: one input beat per cycle; when a frame's realigned tail needs one more
// output beat (flush), the next frame's first beat is still taken in that cycle if it
// produces no output itself, else the input waits one cycle.
// Latency: one cycle (registered output).
`default_nettype none

module fabnic_axis_realign #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int LEN_W  = 17
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              cmd_valid,
    output logic                   cmd_ready,
    input  wire logic [LEN_W-1:0]  cmd_off,
    input  wire logic [LEN_W-1:0]  cmd_len,
    input  wire logic              cmd_trim,
    input  wire logic              cmd_chk,
    input  wire logic              cmd_drop,
    input  wire logic              cmd_bad,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic                   m_axis_tuser,

    output logic                   status_done,   // a frame's last input beat was taken
    output logic                   status_short   // ... and it was shorter than off+len (chk)
);

  localparam int CNT_W = $clog2(KEEP_W + 1);
  localparam int POS_W = LEN_W + 1;

  function automatic logic [KEEP_W-1:0] keep_of(input logic [CNT_W:0] n);
    logic [KEEP_W-1:0] k;
    for (int i = 0; i < KEEP_W; i++) k[i] = (CNT_W + 1)'(i) < n;
    return k;
  endfunction

  function automatic logic [DATA_W-1:0] bits_of(input logic [KEEP_W-1:0] k);
    logic [DATA_W-1:0] b;
    for (int i = 0; i < KEEP_W; i++) b[8*i +: 8] = {8{k[i]}};
    return b;
  endfunction

  // ---------------------------------------------------------------- state
  logic              in_frame_q;   // a frame is in progress (its command is latched)
  logic [LEN_W-1:0]  off_q, rem_q;
  logic [POS_W-1:0]  need_q;       // off + len, for the short check
  logic              trim_q, chk_q, drop_q, bad_q;
  logic [POS_W-1:0]  pos_q;        // frame bytes consumed before the current beat
  logic              hold_q;       // taking finished; residual is the held last beat
  logic [DATA_W-1:0] res_q;        // residual bytes (lane 0 up)
  logic [CNT_W-1:0]  rc_q;         // residual byte count (0..KEEP_W)
  logic              flush_q;      // residual goes out as the last beat next
  logic              flush_user_q;

  logic              out_valid_q, out_last_q, out_user_q;
  logic [DATA_W-1:0] out_data_q;
  logic [KEEP_W-1:0] out_keep_q;

  logic out_load;
  assign out_load = !out_valid_q || m_axis_tready;

  // During a flush cycle the next frame's first beat is still taken if it emits
  // nothing (it only fills the residual), so back-to-back frames lose no cycle there.
  logic emit_now;
  assign s_axis_tready = out_load && (in_frame_q || cmd_valid) && (!flush_q || !emit_now);
  logic s_fire;
  assign s_fire = s_axis_tvalid && s_axis_tready;
  assign cmd_ready = s_fire && !in_frame_q;

  // ---------------------------------------------------------------- one beat
  logic              first;
  logic [LEN_W-1:0]  off, rem;
  logic [POS_W-1:0]  pos, need;
  logic              trim, chk, drop, bad, hold;
  logic [DATA_W-1:0] res;
  logic [CNT_W-1:0]  rc;
  logic [CNT_W-1:0]  n, sk, take;
  logic [CNT_W:0]    total;
  logic [LEN_W-1:0]  rem_next;
  logic [POS_W-1:0]  end_pos;
  logic              short_frame;
  logic [2*DATA_W-1:0] comb;
  logic [DATA_W-1:0] shifted;

  always_comb begin
    logic [POS_W-1:0] gap;
    logic [CNT_W-1:0] avail;
    first = !in_frame_q;
    off   = first ? cmd_off : off_q;
    rem   = first ? cmd_len : rem_q;
    need  = first ? POS_W'(cmd_off) + POS_W'(cmd_len) : need_q;
    trim  = first ? cmd_trim : trim_q;
    chk   = first ? cmd_chk  : chk_q;
    drop  = first ? cmd_drop : drop_q;
    bad   = first ? cmd_bad  : bad_q;
    hold  = first ? 1'b0 : hold_q;
    res   = first ? '0 : res_q;
    rc    = first ? '0 : rc_q;
    pos   = first ? '0 : pos_q;

    n = '0;
    for (int i = 0; i < KEEP_W; i++) n = n + CNT_W'(s_axis_tkeep[i]);
    gap = (POS_W'(off) > pos) ? POS_W'(off) - pos : '0;
    sk = (gap > POS_W'(n)) ? n : CNT_W'(gap);
    avail = n - sk;
    if (hold) take = '0;
    else if (trim && LEN_W'(avail) > rem) take = CNT_W'(rem);
    else take = avail;
    rem_next = rem - LEN_W'(take);
    total = (CNT_W + 1)'(rc) + (CNT_W + 1)'(take);
    shifted = (s_axis_tdata >> (8 * sk)) & bits_of(keep_of((CNT_W + 1)'(take)));
    comb = {{DATA_W{1'b0}}, res} | ({{DATA_W{1'b0}}, shifted} << (8 * rc));

    // saturating end position for the short check
    end_pos = pos + POS_W'(n);
    if (end_pos < pos) end_pos = '1;
    short_frame = chk && (end_pos < need);
    emit_now = !drop && (s_axis_tlast || total > (CNT_W + 1)'(KEEP_W) ||
                         (total == (CNT_W + 1)'(KEEP_W) && !(trim && rem_next == '0)));
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk) begin
    status_done  <= 1'b0;
    status_short <= 1'b0;
    if (out_load) out_valid_q <= 1'b0;

    if (flush_q && out_load) begin
      out_valid_q  <= 1'b1;
      out_data_q   <= res_q;
      out_keep_q   <= keep_of((CNT_W + 1)'(rc_q));
      out_last_q   <= 1'b1;
      out_user_q   <= flush_user_q;
      flush_q      <= 1'b0;
      rc_q         <= '0;
    end

    if (s_fire) begin
      if (first) begin
        off_q  <= cmd_off;
        need_q <= need;
        trim_q <= cmd_trim;
        chk_q  <= cmd_chk;
        drop_q <= cmd_drop;
        bad_q  <= cmd_bad;
      end
      in_frame_q <= !s_axis_tlast;
      pos_q      <= (pos + POS_W'(KEEP_W) < pos) ? '1 : pos + POS_W'(KEEP_W);
      rem_q      <= trim ? rem_next : rem;
      hold_q     <= hold;
      res_q      <= comb[DATA_W-1:0];
      rc_q       <= CNT_W'(total);

      if (s_axis_tlast) begin
        status_done  <= 1'b1;
        status_short <= short_frame;
        hold_q       <= 1'b0;
        if (!drop) begin
          out_valid_q <= 1'b1;
          out_data_q  <= comb[DATA_W-1:0];
          if (total > (CNT_W + 1)'(KEEP_W)) begin
            out_keep_q   <= '1;
            out_last_q   <= 1'b0;
            out_user_q   <= 1'b0;
            flush_q      <= 1'b1;
            flush_user_q <= s_axis_tuser || bad || short_frame;
            res_q        <= comb[2*DATA_W-1:DATA_W];
            rc_q         <= CNT_W'(total - (CNT_W + 1)'(KEEP_W));
          end else begin
            out_keep_q <= keep_of(total);
            out_last_q <= 1'b1;
            out_user_q <= s_axis_tuser || bad || short_frame;
            rc_q       <= '0;
          end
        end else begin
          rc_q <= '0;
        end
      end else if (hold) begin
        res_q <= res;
        rc_q  <= rc;
      end else if (!drop && (total > (CNT_W + 1)'(KEEP_W) ||
                             (total == (CNT_W + 1)'(KEEP_W) && !(trim && rem_next == '0)))) begin
        // a full beat goes out; the rest stays
        out_valid_q <= 1'b1;
        out_data_q  <= comb[DATA_W-1:0];
        out_keep_q  <= '1;
        out_last_q  <= 1'b0;
        out_user_q  <= 1'b0;
        res_q       <= comb[2*DATA_W-1:DATA_W];
        rc_q        <= CNT_W'(total - (CNT_W + 1)'(KEEP_W));
        hold_q      <= trim && rem_next == '0;
      end else begin
        // everything stays in the residual (held as the last beat once taking ends)
        hold_q <= trim && rem_next == '0;
      end
    end

    if (rst) begin
      in_frame_q   <= 1'b0;
      hold_q       <= 1'b0;
      flush_q      <= 1'b0;
      rc_q         <= '0;
      out_valid_q  <= 1'b0;
      status_done  <= 1'b0;
      status_short <= 1'b0;
    end
  end

  assign m_axis_tdata  = out_data_q;
  assign m_axis_tkeep  = out_keep_q;
  assign m_axis_tvalid = out_valid_q;
  assign m_axis_tlast  = out_last_q;
  assign m_axis_tuser  = out_user_q;

endmodule

`resetall
