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
//   an XGMII error (stat_xgmii_err).
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
// Latency: two cycles from the XGMII column to the AXIS beat holding it (one
// input register, one column kept back to strip the FCS, registered output).
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

  if (MAX_FRAME < 64) begin : g_check_max
    $error("fabnic_xgmii_rx: MAX_FRAME must be at least 64");
  end

  logic [63:0] prev_d_q;
  logic [7:0]  prev_c_q;

  logic        in_frame_q;
  logic        off_q;              // frame started on lane 4
  logic [31:0] crc_q;
  logic [LEN_W-1:0] len_q;         // bytes received so far, FCS included
  logic        h_valid_q;          // a full data column kept back
  logic [63:0] h_q;
  logic        fl_q;               // last beat (from the /T/ column) still to send
  logic [63:0] fl_d_q;
  logic [7:0]  fl_keep_q;
  logic        fl_bad_q;

  // aligned column of the current frame
  logic [63:0] al_d;
  logic [7:0]  al_c;
  assign al_d = off_q ? {xgmii_rxd[31:0], prev_d_q[63:32]} : prev_d_q;
  assign al_c = off_q ? {xgmii_rxc[3:0], prev_c_q[7:4]} : prev_c_q;

  // first control lane
  logic [3:0] j;
  always_comb begin
    j = 4'd8;
    for (int i = 7; i >= 0; i--) if (al_c[i]) j = 4'(i);
  end

  logic [7:0]  data_keep;
  logic [31:0] crc_next;
  assign data_keep = 8'((9'h1 << j) - 9'h1);

  fabnic_crc32 #(.DATA_W(64)) u_crc (
      .crc_in (crc_q),
      .data_in(al_d),
      .keep_in(data_keep),
      .crc_out(crc_next)
  );

  logic [LEN_W-1:0] len_next;
  assign len_next = len_q + LEN_W'(j);

  // start detection on the registered column
  logic s0, s4, s4_ok, s0_ok;
  assign s0    = prev_c_q[0] && prev_d_q[7:0] == XG_START;
  assign s4    = prev_c_q[4] && prev_d_q[39:32] == XG_START;
  assign s0_ok = prev_d_q == START_D && prev_c_q == 8'h01;
  assign s4_ok = {xgmii_rxd[31:0], prev_d_q[63:32]} == START_D
                 && {xgmii_rxc[3:0], prev_c_q[7:4]} == 8'h01;

  always_ff @(posedge clk) begin
    logic ends, bad, good, runt, over, xerr, fcs_bad;
    logic        ov;
    logic [63:0] od;
    logic [7:0]  ok;
    logic        ol, ou;
    ends = 1'b0; bad = 1'b0; good = 1'b0; runt = 1'b0; over = 1'b0; xerr = 1'b0;
    fcs_bad = 1'b0;
    ov = 1'b0; od = h_q; ok = 8'hFF; ol = 1'b0; ou = 1'b0;

    prev_d_q <= xgmii_rxd;
    prev_c_q <= xgmii_rxc;

    if (fl_q) begin
      ov = 1'b1; od = fl_d_q; ok = fl_keep_q; ol = 1'b1; ou = fl_bad_q;
      fl_q <= 1'b0;
    end

    if (in_frame_q) begin
      crc_q <= crc_next;
      len_q <= len_next;
      if (j == 4'd8) begin
        if (len_next > LEN_W'(MAX_FRAME)) begin
          // cut the frame here
          ends = 1'b1; over = 1'b1;
          if (h_valid_q) begin
            ov = 1'b1; od = h_q; ok = 8'hFF; ol = 1'b1; ou = 1'b1;
          end
        end else begin
          if (h_valid_q) begin
            ov = 1'b1; od = h_q; ok = 8'hFF;
          end
          h_q       <= al_d;
          h_valid_q <= 1'b1;
        end
      end else begin
        ends    = 1'b1;
        xerr    = al_d[8*j[2:0] +: 8] != XG_TERM;
        over    = len_next > LEN_W'(MAX_FRAME);
        runt    = len_next < LEN_W'(64);
        fcs_bad = crc_next != RESIDUE;
        bad     = xerr || over || runt || fcs_bad;
        good    = !bad;
        if (xerr) begin
          if (h_valid_q) begin
            ov = 1'b1; od = h_q; ok = 8'hFF; ol = 1'b1; ou = 1'b1;
          end
        end else if (j >= 4'd4) begin
          if (h_valid_q) begin
            ov = 1'b1; od = h_q; ok = 8'hFF; ol = (j == 4'd4); ou = bad && (j == 4'd4);
          end
          if (j > 4'd4) begin
            fl_q      <= 1'b1;
            fl_d_q    <= al_d;
            fl_keep_q <= 8'((9'h1 << (j - 4'd4)) - 9'h1);
            fl_bad_q  <= bad;
          end
        end else if (h_valid_q) begin
          ov = 1'b1; od = h_q; ok = 8'((9'h1 << (j + 4'd4)) - 9'h1); ol = 1'b1; ou = bad;
        end
      end
      if (ends) begin
        in_frame_q <= 1'b0;
        h_valid_q  <= 1'b0;
      end
    end

    // a new frame may start in the column the last one ended in
    if (!in_frame_q || ends) begin
      if (s0 || s4) begin
        if (s0 ? s0_ok : s4_ok) begin
          in_frame_q <= 1'b1;
          off_q      <= !s0;
          crc_q      <= 32'hFFFF_FFFF;
          len_q      <= '0;
          h_valid_q  <= 1'b0;
        end else begin
          stat_framing <= stat_framing + 1'b1;
        end
      end
    end

    m_axis_tvalid <= ov;
    m_axis_tdata  <= od;
    m_axis_tkeep  <= ok;
    m_axis_tlast  <= ol;
    m_axis_tuser  <= ou;

    if (good) begin
      stat_frames <= stat_frames + 1'b1;
      stat_bytes  <= stat_bytes + BYTE_CNT_W'(len_next);
    end
    if (ends) begin
      if (xerr)         stat_xgmii_err <= stat_xgmii_err + 1'b1;
      else if (over)    stat_oversize  <= stat_oversize + 1'b1;
      else if (runt)    stat_runt      <= stat_runt + 1'b1;
      else if (fcs_bad) stat_bad_fcs   <= stat_bad_fcs + 1'b1;
    end

    if (rst) begin
      prev_d_q   <= {8{8'h07}};
      prev_c_q   <= 8'hFF;
      in_frame_q <= 1'b0;
      off_q      <= 1'b0;
      h_valid_q  <= 1'b0;
      fl_q       <= 1'b0;
      m_axis_tvalid <= 1'b0;
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
