// SPDX-License-Identifier: Apache-2.0
//
// fabnic_xgmii_rx: 10 G Ethernet receive MAC, 64-bit single-data-rate XGMII
// in, 64-bit AXI-Stream out with the FCS checked and stripped.
//
// - /S/ is accepted on lane 0 or lane 4; the frame is realigned to lane 0.
//   The /S/ column must carry the standard preamble (6 x 0x55) and SFD (0xD5),
//   else the frame is ignored and stat_framing counts it.
// - A frame ends at the first control character after /S/. /T/ is a normal
//   end; any other control character (/E/, /S/, idle, ...) ends the frame as
//   an XGMII error (stat_xgmii_err). A new /S/ in the ending column starts
//   the next frame.
// - The last beat of a bad frame has tuser=1 (bad FCS, runt < 64 bytes incl.
//   FCS, oversize, XGMII error). A frame that grows beyond MAX_FRAME bytes is
//   cut at once (last beat tuser=1) and the rest is ignored up to the next
//   /S/, so garbage can never produce unbounded frames. Frames with no byte
//   left after stripping the FCS produce no beat but are counted.
// - Every frame is counted exactly once: good (stat_frames/stat_bytes) or one
//   bad reason, priority xgmii_err > oversize > runt > bad_fcs.
// - No back-pressure (the wire cannot wait): the consumer must take a beat
//   every cycle it is valid. Counters wrap.
//
// Pipeline (each stage decides what the next one acts on; at most 6 logic
// levels per stage on UltraScale+):
//   X1  input register; per lane "control character other than /T/" and
//       "lanes 0-3 end a preamble" computed from the port.
//   X2  the previous column, with its start flags (/S/ on lane 0 or 4, good
//       preamble) computed in X1. A /S/ is accepted whatever the frame state
//       (it always ends the frame in progress, or arrives outside one), so
//       the lane offset of the frame is a function of the stream alone: X2
//       registers the column realigned with the offset of the frame in
//       progress (both offsets decoded, then picked), its first control lane
//       (one-hot), whether that control character is not /T/, and the column
//       with every byte from that lane on zeroed.
//   D   CRC stage: the running CRC over the zero-filled column, registered
//       for E. Zero bytes move the CRC state by a fixed invertible map, so the
//       FCS residue check for an end after k bytes (0..7) is a compare of
//       that one CRC with a constant picked by k (done in E).
//   E   frame state: ends, length limits (column counter with the limit
//       compare registered one column ahead), FCS result picked by the
//       one-hot end lane, one column held back to strip the FCS, registered
//       AXIS output. Counters are updated one cycle after E.
// Latency: five cycles from the XGMII column being sampled to the AXIS beat
// holding it (X1, X2, D, E, the column kept back to strip the FCS).
`default_nettype none

module fabnic_xgmii_rx #(
    parameter int MAX_FRAME  = 9216 + 18,  // bytes, DA..FCS
    parameter int CNT_W      = 32,
    parameter int BYTE_CNT_W = 48
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [63:0]           xgmii_rxd,
    input  wire logic [7:0]            xgmii_rxc,

    output logic      [63:0]           m_axis_tdata,
    output logic      [7:0]            m_axis_tkeep,
    output logic                       m_axis_tvalid,
    output logic                       m_axis_tlast,
    output logic                       m_axis_tuser,

    output logic      [CNT_W-1:0]      stat_frames,
    output logic      [BYTE_CNT_W-1:0] stat_bytes,      // good frames, DA..FCS
    output logic      [CNT_W-1:0]      stat_bad_fcs,
    output logic      [CNT_W-1:0]      stat_runt,
    output logic      [CNT_W-1:0]      stat_oversize,
    output logic      [CNT_W-1:0]      stat_xgmii_err,
    output logic      [CNT_W-1:0]      stat_framing
);

  localparam logic [7:0]  XG_START = 8'hFB;
  localparam logic [7:0]  XG_TERM  = 8'hFD;
  localparam logic [63:0] START_D  = {8'hD5, {6{8'h55}}, XG_START};
  localparam logic [31:0] RESIDUE  = 32'hDEBB_20E3;  // CRC state after data + good FCS
  localparam int          LEN_W    = $clog2(MAX_FRAME + 16) + 1;
  localparam int          COL_W    = LEN_W - 3;      // whole columns of a frame
  // A frame of COLS_MAX whole columns plus one more column would pass MAX_FRAME;
  // at COLS_MAX columns the bytes still allowed are MAX_FRAME % 8.
  localparam int          COLS_MAX = MAX_FRAME / 8;
  localparam int          REM_MAX  = MAX_FRAME % 8;

  if (MAX_FRAME < 64) begin : g_check_max
    $error("fabnic_xgmii_rx: MAX_FRAME must be at least 64");
  end

  // ---------------------------------------------------------------- X1, X2
  logic [63:0] x1_d, x2_d;
  logic [7:0]  x1_c, x2_c;
  logic [7:0]  x1_e, x2_e;         // lane holds a control character other than /T/
  logic        x1_lo_pre;          // lanes 0-3: 55 55 55 D5 (end of a lane-4 preamble)
  logic        x2_s0, x2_s0_ok, x2_s4, x2_hi_ok;
  logic        off_q;              // lane offset (/S/ on lane 4) of the frame in progress

  // start detection on the raw X2 column (X1 completes a lane-4 preamble)
  logic x_start, x_framing;
  assign x_start   = x2_s0 ? x2_s0_ok : (x2_s4 && x2_hi_ok && x1_lo_pre);
  assign x_framing = (x2_s0 || x2_s4) && !x_start;

  // The column of X2 realigned to the frame: X2 itself (offset 0), or lanes
  // 4-7 of X2 then lanes 0-3 of X1 (offset 4). Both are decoded, then picked.
  logic [63:0] cd0, cd4;
  logic [7:0]  cc0, cc4, ce0, ce4;
  assign cd0 = x2_d;
  assign cc0 = x2_c;
  assign ce0 = x2_e;
  assign cd4 = {x1_d[31:0], x2_d[63:32]};
  assign cc4 = {x1_c[3:0], x2_c[7:4]};
  assign ce4 = {x1_e[3:0], x2_e[7:4]};

  // first control lane (8: none), the lanes before it, and whether that
  // control character is not /T/
  function automatic logic [12:0] first_ctl(input logic [7:0] c, input logic [7:0] e);
    logic [3:0] j;
    logic [7:0] keep;
    logic       xerr;
    j = 4'd8; keep = 8'hFF; xerr = 1'b0;
    for (int i = 7; i >= 0; i--) begin
      if (c[i]) begin
        j = 4'(i); xerr = e[i];
      end
    end
    for (int i = 0; i < 8; i++) keep[i] = j > 4'(i);
    return {xerr, keep, j};
  endfunction

  logic [12:0] f0, f4;
  assign f0 = first_ctl(cc0, ce0);
  assign f4 = first_ctl(cc4, ce4);

  logic [3:0]  al_j;
  logic        al_xerr;
  logic [63:0] al_dm;              // realigned column, bytes from the first control lane zeroed
  assign al_xerr = off_q ? f4[12] : f0[12];
  assign al_j    = off_q ? f4[3:0] : f0[3:0];
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      al_dm[8*i +: 8] = off_q ? (f4[4 + i] ? cd4[8*i +: 8] : 8'h00)
                              : (f0[4 + i] ? cd0[8*i +: 8] : 8'h00);
    end
  end

  always_ff @(posedge clk) begin
    x1_d <= xgmii_rxd;
    x1_c <= xgmii_rxc;
    for (int i = 0; i < 8; i++) x1_e[i] <= xgmii_rxc[i] && xgmii_rxd[8*i +: 8] != XG_TERM;
    x1_lo_pre <= xgmii_rxd[31:0] == START_D[63:32] && xgmii_rxc[3:0] == 4'h0;
    x2_d     <= x1_d;
    x2_c     <= x1_c;
    x2_e     <= x1_e;
    x2_s0    <= x1_c[0] && x1_d[7:0] == XG_START;
    x2_s0_ok <= x1_d == START_D && x1_c == 8'h01;
    x2_s4    <= x1_c[4] && x1_d[39:32] == XG_START;
    x2_hi_ok <= x1_d[63:32] == START_D[31:0] && x1_c[7:4] == 4'h1;
    if (x_start) off_q <= !x2_s0;
    if (rst) begin
      x1_d      <= {8{8'h07}};
      x1_c      <= 8'hFF;
      x1_e      <= 8'hFF;
      x1_lo_pre <= 1'b0;
      x2_d      <= {8{8'h07}};
      x2_c      <= 8'hFF;
      x2_e      <= 8'hFF;
      x2_s0     <= 1'b0;
      x2_s0_ok  <= 1'b0;
      x2_s4     <= 1'b0;
      x2_hi_ok  <= 1'b0;
      off_q     <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- D: CRC
  logic [63:0] d_d;
  logic [3:0]  d_j;
  logic        d_xerr, d_start, d_framing;
  logic [31:0] crc_q;              // CRC of the frame's whole columns before d_d

  always_ff @(posedge clk) begin
    d_d       <= al_dm;
    d_j       <= al_j;
    d_xerr    <= al_xerr;
    d_start   <= x_start;
    d_framing <= x_framing;
    if (rst) begin
      d_start   <= 1'b0;
      d_framing <= 1'b0;
    end
  end

  // The bytes after the end of the frame are zero in d_d, so the CRC over the
  // whole column is the CRC over the k bytes before the end followed by 8-k
  // zero bytes. A zero byte moves the state by an invertible linear map, so
  // "CRC over k bytes == RESIDUE" is "CRC over the column == RESIDUE moved by
  // 8-k zero bytes": one CRC over the column and one compare with a constant
  // picked by the end lane.
  function automatic logic [31:0] zero_bytes(input logic [31:0] c, input int n);
    logic [31:0] r;
    r = c;
    for (int i = 0; i < 8 * n; i++) r = (r >> 1) ^ (32'hEDB8_8320 & {32{r[0]}});
    return r;
  endfunction

  logic [31:0] crc_full;
  fabnic_crc32_fixed #(.N_BYTES(8), .DATA_W(64)) u_crc (
      .crc_in(crc_q), .data_in(d_d), .crc_out(crc_full)
  );

  // residue to expect for an end after d_j bytes (d_j = 8: unused)
  function automatic logic [31:0] res_for(input logic [2:0] j);
    logic [31:0] r;
    r = 'x;
    for (int k = 0; k < 8; k++) if (int'(j) == k) r = zero_bytes(RESIDUE, 8 - k);
    return r;
  endfunction

  always_ff @(posedge clk) begin
    crc_q <= d_start ? 32'hFFFF_FFFF : crc_full;
  end

  // ---------------------------------------------------------------- E: frame
  logic [63:0] e_d;
  logic        e_j8;              // no control character: a whole column
  logic [2:0]  e_j;
  logic [31:0] e_crc;             // CRC over the frame up to the end of e_d
  logic        e_xerr, e_start, e_framing;
  logic        e_jge4, e_jeq4, e_jgt4, e_jgtm;
  logic [7:0]  e_keep_lt4, e_keep_fl;

  always_ff @(posedge clk) begin
    e_d        <= d_d;
    e_j8       <= d_j[3];
    e_j        <= d_j[2:0];
    e_crc      <= crc_full;
    e_xerr     <= d_xerr;
    e_start    <= d_start;
    e_framing  <= d_framing;
    e_jge4     <= d_j >= 4'd4 && d_j != 4'd8;
    e_jeq4     <= d_j == 4'd4;
    e_jgt4     <= d_j > 4'd4 && d_j != 4'd8;
    e_jgtm     <= d_j > 4'(REM_MAX);
    e_keep_lt4 <= 8'((9'h1 << (d_j + 4'd4)) - 9'h1);   // used for j < 4
    e_keep_fl  <= 8'((9'h1 << (d_j - 4'd4)) - 9'h1);   // used for 4 < j < 8
    if (rst) begin
      e_j8      <= 1'b1;
      e_start   <= 1'b0;
      e_framing <= 1'b0;
    end
  end

  logic             in_frame_q;
  logic [COL_W-1:0] cols_q;        // whole columns received, FCS included
  logic             ge8_q;         // cols_q >= 8: no runt possible
  logic             lastwin_q;     // cols_q == COLS_MAX: one more column is too many
  logic             h_valid_q;     // a full data column kept back
  logic [63:0]      h_q;
  logic             fl_q;          // last beat (from the /T/ column) still to send
  logic [63:0]      fl_d_q;
  logic [7:0]       fl_keep_q;
  logic             fl_bad_q;

  // counter updates, one cycle after E
  logic             c_good_q, c_xerr_q, c_over_q, c_runt_q, c_fcs_q, c_framing_q;
  logic [LEN_W-1:0] c_len_q;

  logic e_end, e_cut, e_ends, e_bad, e_over, e_runt, e_fcs_bad;
  assign e_end     = in_frame_q && !e_j8;
  assign e_cut     = in_frame_q && e_j8 && lastwin_q;
  assign e_ends    = e_end || e_cut;
  assign e_over    = lastwin_q && e_jgtm;
  assign e_runt    = !ge8_q;
  assign e_fcs_bad = e_crc != res_for(e_j);
  assign e_bad     = e_xerr || e_over || e_runt || e_fcs_bad;

  always_ff @(posedge clk) begin
    logic        ov;
    logic [63:0] od;
    logic [7:0]  ok;
    logic        ol, ou;
    ov = 1'b0; od = h_q; ok = 8'hFF; ol = 1'b0; ou = 1'b0;

    if (fl_q) begin
      ov = 1'b1; od = fl_d_q; ok = fl_keep_q; ol = 1'b1; ou = fl_bad_q;
      fl_q <= 1'b0;
    end

    if (in_frame_q) begin
      if (e_j8) begin
        if (lastwin_q) begin
          // cut the frame here
          if (h_valid_q) begin
            ov = 1'b1; od = h_q; ok = 8'hFF; ol = 1'b1; ou = 1'b1;
          end
        end else begin
          if (h_valid_q) begin
            ov = 1'b1; od = h_q; ok = 8'hFF;
          end
          h_q       <= e_d;
          h_valid_q <= 1'b1;
          cols_q    <= cols_q + 1'b1;
          if (cols_q == COL_W'(7))            ge8_q     <= 1'b1;
          if (cols_q == COL_W'(COLS_MAX - 1)) lastwin_q <= 1'b1;
        end
      end else if (e_xerr) begin
        if (h_valid_q) begin
          ov = 1'b1; od = h_q; ok = 8'hFF; ol = 1'b1; ou = 1'b1;
        end
      end else if (e_jge4) begin
        if (h_valid_q) begin
          ov = 1'b1; od = h_q; ok = 8'hFF; ol = e_jeq4; ou = e_bad && e_jeq4;
        end
        if (e_jgt4) begin
          fl_q      <= 1'b1;
          fl_d_q    <= e_d;
          fl_keep_q <= e_keep_fl;
          fl_bad_q  <= e_bad;
        end
      end else if (h_valid_q) begin
        ov = 1'b1; od = h_q; ok = e_keep_lt4; ol = 1'b1; ou = e_bad;
      end
      if (e_ends) begin
        in_frame_q <= 1'b0;
        h_valid_q  <= 1'b0;
      end
    end

    // a new frame may start in the column the last one ended in
    if (e_start) begin
      in_frame_q <= 1'b1;
      h_valid_q  <= 1'b0;
      cols_q     <= '0;
      ge8_q      <= 1'b0;
      lastwin_q  <= 1'b0;
    end

    m_axis_tvalid <= ov;
    m_axis_tdata  <= od;
    m_axis_tkeep  <= ok;
    m_axis_tlast  <= ol;
    m_axis_tuser  <= ou;

    // one count per frame: xgmii_err > oversize > runt > bad_fcs
    c_good_q    <= e_end && !e_bad;
    c_len_q     <= {cols_q, e_j};
    c_xerr_q    <= e_end && e_xerr;
    c_over_q    <= e_cut || (e_end && !e_xerr && e_over);
    c_runt_q    <= e_end && !e_xerr && !e_over && e_runt;
    c_fcs_q     <= e_end && !e_xerr && !e_over && !e_runt && e_fcs_bad;
    c_framing_q <= e_framing;

    if (c_good_q) begin
      stat_frames <= stat_frames + 1'b1;
      stat_bytes  <= stat_bytes + BYTE_CNT_W'(c_len_q);
    end
    if (c_xerr_q)    stat_xgmii_err <= stat_xgmii_err + 1'b1;
    if (c_over_q)    stat_oversize  <= stat_oversize + 1'b1;
    if (c_runt_q)    stat_runt      <= stat_runt + 1'b1;
    if (c_fcs_q)     stat_bad_fcs   <= stat_bad_fcs + 1'b1;
    if (c_framing_q) stat_framing   <= stat_framing + 1'b1;

    if (rst) begin
      in_frame_q    <= 1'b0;
      h_valid_q     <= 1'b0;
      fl_q          <= 1'b0;
      m_axis_tvalid <= 1'b0;
      c_good_q      <= 1'b0;
      c_xerr_q      <= 1'b0;
      c_over_q      <= 1'b0;
      c_runt_q      <= 1'b0;
      c_fcs_q       <= 1'b0;
      c_framing_q   <= 1'b0;
      stat_frames    <= '0;
      stat_bytes     <= '0;
      stat_bad_fcs   <= '0;
      stat_runt      <= '0;
      stat_oversize  <= '0;
      stat_xgmii_err <= '0;
      stat_framing   <= '0;
    end
  end

endmodule

`resetall
