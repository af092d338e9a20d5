// SPDX-License-Identifier: Apache-2.0
//
// fabnic_xgmii_tx: 10 G Ethernet transmit MAC, 64-bit AXI-Stream frame in,
// 64-bit single-data-rate XGMII out (156.25 MHz for 10GBASE-R).
//
// Per frame: /S/ + 6 preamble bytes + SFD, the frame bytes, zero padding up
// to 60 bytes, the FCS (CRC-32), /T/. Frames start on lane 0 or lane 4; the
// start lane is chosen by the deficit idle count (DIC, IEEE 802.3 clause 46)
// so that the inter-frame gap (counted from /T/ included to /S/ excluded) is
// 12 bytes on average and never below 9: back-to-back frames of any size
// leave at 10 G line rate.
//
// Input rules: tkeep is all ones except on the last beat (contiguous from
// lane 0). The MAC is cut-through: once a frame has started, a beat must be
// valid every cycle. If the source runs dry mid-frame (underflow) the frame is
// ended at once with an error column (/E/ x7 then /T/), stat_underflow counts
// it, and the rest of that frame is read and discarded up to its tlast. A
// frame whose last beat has tuser[0]=1 is ended the same way (stat_bad).
// Counters wrap (free running; software takes differences).
//
// Pipeline (at most 6 logic levels per stage on UltraScale+):
//   F  frame state machine: decides, from the beat and registered state only,
//      the kind of the next XGMII column (idle, /S/, data, final data column
//      with its byte count m, FCS spill column, error), the lane offset, the
//      /T/ lane and the IFG/DIC bookkeeping. s_axis_tready comes from the
//      state register. It registers a column token (kind, masked data, m).
//   C1 CRC: the running CRC over whole data columns; for a final column of m
//      bytes, the CRC over its first four bytes when m >= 4 (all eight when
//      m = 8). The byte source of each lane (data, FCS byte 0..3, or a
//      constant) is decoded here from the kind and the one-hot m.
//   C2 FCS: the CRC over the remaining 0..3 bytes (four candidates, picked by
//      the one-hot remainder), inverted into the FCS register.
//   O  output: the lane sources are combined, shifted by four lanes for a
//      frame that starts on lane 4, and registered on xgmii_txd/txc.
// The column sequence is the one a single-cycle transmitter would produce,
// delayed by three cycles. Latency: the /S/ column leaves four cycles after
// the first beat is presented (F, C1, C2, O); s_axis_tready is high for the
// whole frame once it started, one beat per cycle.
`default_nettype none

module fabnic_xgmii_tx #(
    parameter int CNT_W      = 32,
    parameter int BYTE_CNT_W = 48
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [63:0]           s_axis_tdata,
    input  wire logic [7:0]            s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output logic                       s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic                  s_axis_tuser,

    output logic      [63:0]           xgmii_txd,
    output logic      [7:0]            xgmii_txc,

    output logic      [CNT_W-1:0]      stat_frames,     // frames sent with a good FCS
    output logic      [BYTE_CNT_W-1:0] stat_bytes,      // their bytes, DA..FCS incl. padding
    output logic      [CNT_W-1:0]      stat_underflow,  // frames aborted: source ran dry
    output logic      [CNT_W-1:0]      stat_bad         // frames aborted: tuser[0] on last beat
);

  localparam logic [7:0] XG_IDLE  = 8'h07;
  localparam logic [7:0] XG_START = 8'hFB;
  localparam logic [7:0] XG_TERM  = 8'hFD;
  localparam logic [7:0] XG_ERROR = 8'hFE;
  localparam logic [63:0] IDLE_D  = {8{XG_IDLE}};
  localparam logic [63:0] START_D = {8'hD5, {6{8'h55}}, XG_START};
  localparam logic [63:0] ERR_D   = {XG_TERM, {7{XG_ERROR}}};

  typedef enum logic [2:0] {
    S_IDLE,
    S_DATA,
    S_PAD,
    S_FCS,
    S_DROP
  } state_e;

  typedef enum logic [2:0] {
    K_IDLE,     // no frame column (idle or the four-lane flush column)
    K_START,    // /S/ + preamble + SFD
    K_DATA,     // eight payload or padding bytes
    K_FINAL,    // m payload/padding bytes, then FCS bytes, then /T/ if it fits
    K_FCS,      // the FCS bytes that did not fit, then /T/
    K_ERR       // /E/ x7 + /T/
  } kind_e;

  // ---------------------------------------------------------------- F: frame state
  state_e      st_q;
  logic        shift_q, shift_d;      // frame starts on lane 4
  logic        flush_q, flush_d;      // the upper half of the last column (with /T/) is due
  logic [3:0]  flush_ifg_q, flush_ifg_d; // IFG owed once the flush column has left
  logic [3:0]  fcs_ifg_q;             // IFG owed after the FCS column (no flush)
  logic        fcs_flush_q;           // the FCS column's /T/ needs a flush column
  logic [3:0]  ifg_q, ifg_d;          // idle bytes still owed
  logic [1:0]  dic_q, dic_d;          // deficit idle count
  logic [3:0]  col_q;                 // payload columns sent (saturates at 8)
  logic        col_lt7_q, col_eq7_q;  // col_q < 7, col_q == 7
  logic [3:0]  m_q;                   // bytes in the final payload column

  assign s_axis_tready = (st_q == S_DATA) || (st_q == S_DROP);

  logic [63:0] masked;
  always_comb begin
    for (int i = 0; i < 8; i++) masked[8*i +: 8] = s_axis_tkeep[i] ? s_axis_tdata[8*i +: 8] : 8'h00;
  end

  // bytes of the beat: tkeep up to its first zero lane (tkeep is contiguous
  // by rule; a stray bit after a zero is ignored, never mis-framed)
  logic [3:0] keep_n;
  always_comb begin
    keep_n = 4'd8;
    for (int i = 7; i >= 0; i--) if (!s_axis_tkeep[i]) keep_n = 4'(i);
  end

  // first step: which column the frame produces
  state_e      st1;
  kind_e       kind;
  logic [63:0] dat;
  logic [3:0]  m_n;
  logic        fin_t;                 // the final column carries /T/ (m < 4)
  logic        a_act;                 // the frame produces a column this cycle
  logic        p_under, p_bad;

  always_comb begin
    st1     = st_q;
    kind    = K_IDLE;
    dat     = '0;
    m_n     = m_q;
    fin_t   = 1'b0;
    a_act   = 1'b0;
    p_under = 1'b0;
    p_bad   = 1'b0;
    unique case (st_q)
      S_DATA: begin
        a_act = 1'b1;
        if (!s_axis_tvalid) begin
          kind = K_ERR; p_under = 1'b1;
          st1 = S_DROP;
        end else if (s_axis_tlast && s_axis_tuser) begin
          kind = K_ERR; p_bad = 1'b1;
          st1 = S_IDLE;
        end else begin
          dat = masked;
          if (!s_axis_tlast) begin
            kind = K_DATA;
          end else if (col_lt7_q) begin
            kind = K_DATA;                  // shorter than 60 bytes: pad this column
            st1  = S_PAD;
          end else begin
            kind = K_FINAL;
            if (col_eq7_q && keep_n <= 4'd4) begin
              m_n = 4'd4;                   // pad to exactly 60 bytes
              st1 = S_FCS;
            end else if (keep_n >= 4'd4) begin
              m_n = keep_n;
              st1 = S_FCS;
            end else begin
              m_n   = keep_n;               // FCS and /T/ fit in this column
              fin_t = 1'b1;
              st1   = S_IDLE;
            end
          end
        end
      end
      S_PAD: begin
        a_act = 1'b1;
        if (col_lt7_q) begin
          kind = K_DATA;
        end else begin
          kind = K_FINAL;
          m_n  = 4'd4;
          st1  = S_FCS;
        end
      end
      S_FCS: begin
        a_act = 1'b1;
        kind  = K_FCS;
        st1   = S_IDLE;
      end
      default: begin
        if (st_q == S_DROP && s_axis_tvalid && s_axis_tlast) st1 = S_IDLE;
      end
    endcase
  end

  // second step: lane placement and IFG. When /T/ leaves in lane L, the IFG
  // still owed is 12 minus the bytes from /T/ to the column end: L + 4. The
  // values are known per column kind: an error column (/T/ in lane 7), a
  // final column with /T/ (lane m+4), an FCS column (precomputed when its
  // final column passed), each either now or, in a frame shifted to lane 4
  // whose /T/ falls in the upper half, in the flush column next cycle.
  logic start, tok_col;

  always_comb begin
    int rem;
    shift_d     = shift_q;
    flush_d     = 1'b0;
    flush_ifg_d = flush_ifg_q;
    ifg_d       = ifg_q;
    dic_d       = dic_q;
    start       = 1'b0;
    tok_col     = 1'b0;
    rem         = 0;

    if (flush_q) begin
      ifg_d = flush_ifg_q;
    end else if (st_q == S_IDLE || st_q == S_DROP) begin
      if (5'(ifg_q) + 5'(dic_q) > 5'd7) begin
        // owed idles fill this whole column
        if (ifg_q >= 4'd8) begin
          ifg_d = ifg_q - 4'd8;
        end else begin
          rem   = int'(ifg_q) - 8 + int'(dic_q);
          dic_d = (rem < 0) ? 2'd0 : 2'(rem);
          ifg_d = '0;
        end
      end else if (st_q == S_IDLE && s_axis_tvalid) begin
        start   = 1'b1;
        tok_col = 1'b1;
        if (int'(ifg_q) > 3 - int'(dic_q)) begin
          shift_d = 1'b1;
          rem = int'(ifg_q) - 4;
        end else begin
          shift_d = 1'b0;
          rem = int'(ifg_q);
        end
        rem   = rem + int'(dic_q);
        dic_d = (rem < 0) ? 2'd0 : 2'(rem);
        ifg_d = '0;
      end else begin
        ifg_d = '0;
        dic_d = '0;
      end
    end else begin
      // a frame column (no flush is pending while the frame runs)
      tok_col = a_act;
      unique case (kind)
        K_ERR: begin
          if (shift_q) begin
            flush_d = 1'b1; flush_ifg_d = 4'd7;
          end else begin
            ifg_d = 4'd11;
          end
        end
        K_FINAL: begin
          if (fin_t) begin
            if (shift_q) begin
              flush_d = 1'b1; flush_ifg_d = keep_n + 4'd4;
            end else begin
              ifg_d = keep_n + 4'd8;
            end
          end
        end
        K_FCS: begin
          if (fcs_flush_q) begin
            flush_d = 1'b1; flush_ifg_d = 4'd4;
          end else begin
            ifg_d = fcs_ifg_q;
          end
        end
        default: ;
      endcase
    end
  end

  // column token F -> C
  logic        t1_col, t1_flush, t1_shift, t1_start, t1_end;
  kind_e       t1_kind;
  logic [63:0] t1_d;
  logic [3:0]  t1_m;
  logic [8:0]  t1_moh;

  always_ff @(posedge clk) begin
    st_q       <= start ? S_DATA : st1;
    shift_q    <= shift_d;
    flush_q    <= flush_d;
    flush_ifg_q <= flush_ifg_d;
    ifg_q      <= ifg_d;
    dic_q      <= dic_d;
    if (start) begin
      col_q     <= 4'd0;
      col_lt7_q <= 1'b1;
      col_eq7_q <= 1'b0;
    end else if ((kind == K_DATA || kind == K_FINAL) && col_q != 4'd8) begin
      col_q     <= col_q + 4'd1;
      col_lt7_q <= col_q < 4'd6;
      col_eq7_q <= col_q == 4'd6;
    end
    m_q        <= m_n;
    if (kind == K_FINAL) begin
      fcs_ifg_q   <= shift_q ? m_n + 4'd4 : m_n;
      fcs_flush_q <= shift_q && m_n == 4'd8;
    end

    t1_col   <= tok_col;
    t1_flush <= flush_q;
    t1_shift <= shift_d;
    t1_start <= start;
    t1_kind  <= start ? K_START : kind;
    t1_d     <= dat;
    t1_m     <= m_n;
    t1_moh   <= 9'(1) << m_n;
    t1_end   <= (kind == K_FINAL && fin_t) || kind == K_FCS;

    if (p_under) stat_underflow <= stat_underflow + 1'b1;
    if (p_bad)   stat_bad       <= stat_bad + 1'b1;

    if (rst) begin
      st_q     <= S_IDLE;
      shift_q  <= 1'b0;
      flush_q  <= 1'b0;
      ifg_q    <= '0;
      dic_q    <= '0;
      col_q    <= '0;
      col_lt7_q <= 1'b1;
      col_eq7_q <= 1'b0;
      m_q      <= '0;
      t1_col   <= 1'b0;
      t1_flush <= 1'b0;
      t1_start <= 1'b0;
      t1_kind  <= K_IDLE;
      t1_end   <= 1'b0;
      stat_underflow <= '0;
      stat_bad       <= '0;
    end
  end

  // ---------------------------------------------------------------- C1: CRC, lane sources
  // The FCS of a final column of m bytes is computed in two steps: C1 folds in
  // its first four bytes when m >= 4 (all eight when m = 8), C2 the remaining
  // 0..3 bytes (four candidates picked by the one-hot remainder).
  logic [31:0] crc_q;
  logic [31:0] crc8, crc4;

  fabnic_crc32_fixed #(.N_BYTES(8), .DATA_W(64)) u_crc8 (
      .crc_in(crc_q), .data_in(t1_d), .crc_out(crc8)
  );
  fabnic_crc32_fixed #(.N_BYTES(4), .DATA_W(32)) u_crc4 (
      .crc_in(crc_q), .data_in(t1_d[31:0]), .crc_out(crc4)
  );

  logic        t2_final;
  logic [31:0] t2_crc;                // CRC before the last 0..3 bytes of the final column
  logic [23:0] t2_rd;                 // those bytes
  logic [3:0]  t2_roh;                // their count, one-hot

  // byte source per lane: data byte, FCS byte j, or the constant byte kb
  logic [7:0]  src_d;
  logic [3:0]  src_f [8];
  logic [63:0] kb;
  logic [7:0]  kc;

  always_comb begin
    src_d = '0;
    kb    = IDLE_D;
    kc    = 8'hFF;
    for (int i = 0; i < 8; i++) src_f[i] = '0;
    if (t1_col) begin
      unique case (t1_kind)
        K_START: begin
          kb = START_D; kc = 8'h01;
        end
        K_DATA: begin
          src_d = 8'hFF; kb = '0; kc = 8'h00;
        end
        K_FINAL: begin
          // lane i: data if i < m, FCS byte i-m if m <= i < m+4, /T/ at m+4
          for (int i = 0; i < 8; i++) begin
            src_d[i] = |(t1_moh >> (i + 1));
            for (int j = 0; j < 4; j++) if (i >= j) src_f[i][j] = t1_moh[i - j];
            if (src_d[i] || src_f[i] != '0) begin
              kb[8*i +: 8] = 8'h00; kc[i] = 1'b0;
            end else if (i >= 4 && t1_moh[i - 4]) begin
              kb[8*i +: 8] = XG_TERM;
            end
          end
        end
        K_FCS: begin
          // lane i: FCS byte i+8-m while < 4, then /T/ (m = 4..8)
          for (int i = 0; i < 8; i++) begin
            for (int j = 0; j < 4; j++) if (i + 8 - j <= 8) src_f[i][j] = t1_moh[i + 8 - j];
            if (src_f[i] != '0) begin
              kb[8*i +: 8] = 8'h00; kc[i] = 1'b0;
            end else if (i + 4 <= 8 && t1_moh[i + 4]) begin
              kb[8*i +: 8] = XG_TERM;
            end
          end
        end
        K_ERR: begin
          kb = ERR_D;
        end
        default: ;
      endcase
    end
  end

  logic        t2_col, t2_flush, t2_shift, t2_start;
  logic [63:0] t2_d;
  logic [7:0]  t2_src_d;
  logic [3:0]  t2_src_f [8];
  logic [63:0] t2_kb;
  logic [7:0]  t2_kc;

  // statistics
  logic [23:0] len_q;                 // payload bytes of the frame so far
  logic [23:0] fin_q;                 // bytes of the last finished frame, FCS included
  logic        c_end_q;

  always_ff @(posedge clk) begin
    if (t1_start) crc_q <= 32'hFFFF_FFFF;
    else if (t1_kind == K_DATA) crc_q <= crc8;
    t2_final <= t1_kind == K_FINAL;
    if (t1_moh[8]) begin
      t2_crc <= crc8;
      t2_rd  <= '0;
      t2_roh <= 4'b0001;
    end else if (t1_m[2]) begin
      t2_crc <= crc4;
      t2_rd  <= t1_d[55:32];
      t2_roh <= 4'(1) << t1_m[1:0];
    end else begin
      t2_crc <= crc_q;
      t2_rd  <= t1_d[23:0];
      t2_roh <= 4'(1) << t1_m[1:0];
    end

    if (t1_start) len_q <= '0;
    else if (t1_kind == K_DATA) len_q <= len_q + 24'd8;
    if (t1_kind == K_FINAL) fin_q <= len_q + 24'(t1_m) + 24'd4;
    c_end_q <= t1_end;

    t2_col   <= t1_col;
    t2_flush <= t1_flush;
    t2_shift <= t1_shift;
    t2_start <= t1_start;
    t2_d     <= t1_d;
    t2_src_d <= src_d;
    t2_src_f <= src_f;
    t2_kb    <= kb;
    t2_kc    <= kc;

    if (c_end_q) begin
      stat_frames <= stat_frames + 1'b1;
      stat_bytes  <= stat_bytes + BYTE_CNT_W'(fin_q);
    end

    if (rst) begin
      c_end_q     <= 1'b0;
      t2_col      <= 1'b0;
      t2_flush    <= 1'b0;
      t2_start    <= 1'b0;
      t2_final    <= 1'b0;
      stat_frames <= '0;
      stat_bytes  <= '0;
    end
  end

  // ---------------------------------------------------------------- C2: FCS
  logic [31:0] crc_r [4];             // CRC after r more bytes
  assign crc_r[0] = t2_crc;
  for (genvar r = 1; r < 4; r++) begin : g_crc_r
    fabnic_crc32_fixed #(.N_BYTES(r), .DATA_W(24)) u_crc (
        .crc_in(t2_crc), .data_in(t2_rd), .crc_out(crc_r[r])
    );
  end

  logic [31:0] crc_sel;
  always_comb begin
    crc_sel = '0;
    for (int r = 0; r < 4; r++) crc_sel = crc_sel | (crc_r[r] & {32{t2_roh[r]}});
  end

  logic [31:0] fcs_q;
  logic        t3_col, t3_flush, t3_shift, t3_start;
  logic [63:0] t3_d;
  logic [7:0]  t3_src_d;
  logic [3:0]  t3_src_f [8];
  logic [63:0] t3_kb;
  logic [7:0]  t3_kc;

  always_ff @(posedge clk) begin
    if (t2_final) fcs_q <= ~crc_sel;
    t3_col   <= t2_col;
    t3_flush <= t2_flush;
    t3_shift <= t2_shift;
    t3_start <= t2_start;
    t3_d     <= t2_d;
    t3_src_d <= t2_src_d;
    t3_src_f <= t2_src_f;
    t3_kb    <= t2_kb;
    t3_kc    <= t2_kc;
    if (rst) begin
      t3_col   <= 1'b0;
      t3_flush <= 1'b0;
      t3_start <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- O: output
  logic [63:0] cd;
  logic [7:0]  cc;
  always_comb begin
    for (int i = 0; i < 8; i++) begin
      cd[8*i +: 8] = t3_kb[8*i +: 8] | (t3_d[8*i +: 8] & {8{t3_src_d[i]}});
      for (int j = 0; j < 4; j++) cd[8*i +: 8] = cd[8*i +: 8] | (fcs_q[8*j +: 8] & {8{t3_src_f[i][j]}});
    end
    cc = t3_kc;
  end

  logic [31:0] hold_d_q;
  logic [3:0]  hold_c_q;

  always_ff @(posedge clk) begin
    if (t3_flush) begin
      xgmii_txd <= {IDLE_D[63:32], hold_d_q};
      xgmii_txc <= {4'hF, hold_c_q};
    end else if (t3_col && t3_shift) begin
      xgmii_txd <= {cd[31:0], t3_start ? IDLE_D[31:0] : hold_d_q};
      xgmii_txc <= {cc[3:0], t3_start ? 4'hF : hold_c_q};
      hold_d_q  <= cd[63:32];
      hold_c_q  <= cc[7:4];
    end else if (t3_col) begin
      xgmii_txd <= cd;
      xgmii_txc <= cc;
    end else begin
      xgmii_txd <= IDLE_D;
      xgmii_txc <= 8'hFF;
    end
    if (rst) begin
      xgmii_txd <= IDLE_D;
      xgmii_txc <= 8'hFF;
    end
  end

endmodule

`resetall
