// SPDX-License-Identifier: Apache-2.0
//
// fabnic_xgmii_tx: 10 G Ethernet transmit MAC, 64-bit AXI-Stream frame in,
// 64-bit single-data-rate XGMII out (156.25 MHz for 10GBASE-R).
//
// Per frame: /S/ + 6 preamble bytes + SFD, the frame bytes, zero padding up
// to 60 bytes, the FCS (CRC-32, fabnic_crc32), /T/. Frames start on lane 0 or
// lane 4; the start lane is chosen by the deficit idle count (DIC, IEEE 802.3
// clause 46) so that the inter-frame gap (counted from /T/ included to /S/
// excluded) is 12 bytes on average and never below 9: back-to-back frames of
// any size leave at 10 G line rate.
//
// Input rules: tkeep is all ones except on the last beat (contiguous from
// lane 0). The MAC is cut-through: once a frame has started, a beat must be
// valid every cycle. If the source runs dry mid-frame (underflow) the frame is
// ended at once with an error column (/E/ x7 then /T/), stat_underflow counts
// it, and the rest of that frame is read and discarded up to its tlast. A
// frame whose last beat has tuser[0]=1 is ended the same way (stat_bad).
// Counters wrap (free running; software takes differences).
//
// Latency: XGMII outputs are registered; the /S/ column leaves one cycle after
// the first beat is presented.
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

  state_e      st_q, st_d;
  logic        shift_q, shift_d;      // frame starts on lane 4
  logic [31:0] hold_d_q, hold_d_d;    // upper half of the previous column (shifted mode)
  logic [3:0]  hold_c_q, hold_c_d;
  logic        flush_q, flush_d;      // hold_* carries the /T/ of the frame
  logic [2:0]  flush_tl_q, flush_tl_d;
  logic [3:0]  ifg_q, ifg_d;          // idle bytes still owed
  logic [1:0]  dic_q, dic_d;          // deficit idle count
  logic [31:0] crc_q, crc_d;
  logic [3:0]  col_q, col_d;          // payload columns sent (saturates at 8)
  logic [23:0] len_q, len_d;          // payload bytes sent
  logic [31:0] fcs_q, fcs_d;
  logic [3:0]  m_q, m_d;              // payload bytes in the final payload column

  // current column of the frame, before lane shifting
  logic [63:0] a_d;
  logic [7:0]  a_c;
  logic        a_act;                 // the frame produces a column this cycle
  logic [3:0]  a_tl;                  // lane of /T/ in a_*, 8 = none

  logic [63:0] col_data;
  logic [7:0]  col_keep;
  logic        col_final;
  logic [31:0] crc_next;
  logic [3:0]  m_cnt;

  logic        p_frame, p_under, p_bad;
  logic [4:0]  tail_bytes;  // bytes of the frame not yet in len_q when it ends
  assign tail_bytes = (st_q == S_FCS) ? 5'd4 : 5'(m_cnt) + 5'd4;

  fabnic_crc32 #(.DATA_W(64)) u_crc (
      .crc_in (crc_q),
      .data_in(col_data),
      .keep_in(col_keep),
      .crc_out(crc_next)
  );

  always_comb begin
    m_cnt = '0;
    for (int i = 0; i < 8; i++) m_cnt = m_cnt + 4'(col_keep[i]);
  end

  assign s_axis_tready = (st_q == S_DATA) || (st_q == S_DROP);

  logic [63:0] masked;
  always_comb begin
    for (int i = 0; i < 8; i++) masked[8*i +: 8] = s_axis_tkeep[i] ? s_axis_tdata[8*i +: 8] : 8'h00;
  end

  // ---------------------------------------------------------------- frame column
  // first step: which column the frame produces (no CRC dependence)
  state_e      st1;
  logic [63:0] a1_d;
  logic [7:0]  a1_c;
  logic [3:0]  a1_tl;
  logic        p_fcs_done;

  always_comb begin
    st1        = st_q;
    a_act      = 1'b0;
    a1_d       = IDLE_D;
    a1_c       = 8'hFF;
    a1_tl      = 4'd8;
    col_data   = '0;
    col_keep   = '0;
    col_final  = 1'b0;
    p_fcs_done = 1'b0;
    p_under    = 1'b0;
    p_bad      = 1'b0;

    unique case (st_q)
      S_DATA: begin
        a_act = 1'b1;
        if (!s_axis_tvalid) begin
          a1_d = ERR_D; a1_tl = 4'd7;
          p_under = 1'b1;
          st1 = S_DROP;
        end else if (s_axis_tlast && s_axis_tuser) begin
          a1_d = ERR_D; a1_tl = 4'd7;
          p_bad = 1'b1;
          st1 = S_IDLE;
        end else begin
          col_data = masked;
          if (!s_axis_tlast) begin
            col_keep = 8'hFF;
          end else if (col_q < 4'd7) begin
            col_keep = 8'hFF;          // shorter than 60 bytes: pad this column
            st1 = S_PAD;
          end else if (col_q == 4'd7 && !s_axis_tkeep[4]) begin
            col_keep  = 8'h0F;         // pad to exactly 60 bytes
            col_final = 1'b1;
          end else begin
            col_keep  = s_axis_tkeep;
            col_final = 1'b1;
          end
        end
      end
      S_PAD: begin
        a_act = 1'b1;
        if (col_q < 4'd7) begin
          col_keep = 8'hFF;
        end else begin
          col_keep  = 8'h0F;
          col_final = 1'b1;
        end
      end
      S_FCS: begin
        a_act = 1'b1;
        // lane i carries FCS byte i + 8 - m_q, then /T/
        for (int i = 0; i < 8; i++) begin
          if (i + 8 - int'(m_q) < 4) begin
            a1_d[8*i +: 8] = fcs_q[8*(i + 8 - int'(m_q)) +: 8];
            a1_c[i] = 1'b0;
          end else if (i + 8 - int'(m_q) == 4) begin
            a1_d[8*i +: 8] = XG_TERM;
          end
        end
        a1_tl = m_q - 4'd4;
        p_fcs_done = 1'b1;
        st1 = S_IDLE;
      end
      default: begin
        if (st_q == S_DROP && s_axis_tvalid && s_axis_tlast) st1 = S_IDLE;
      end
    endcase
  end

  // second step: a payload column (data and/or padding), maybe with FCS and /T/
  always_comb begin
    st_d    = st1;
    crc_d   = crc_q;
    col_d   = col_q;
    len_d   = len_q;
    fcs_d   = fcs_q;
    m_d     = m_q;
    a_d     = a1_d;
    a_c     = a1_c;
    a_tl    = a1_tl;
    p_frame = p_fcs_done;
    if (col_keep != '0 || col_final) begin
      crc_d = crc_next;
      len_d = len_q + 24'(m_cnt);
      if (col_q != 4'd8) col_d = col_q + 4'd1;
      if (!col_final) begin
        a_d = col_data;
        a_c = 8'h00;
      end else begin
        fcs_d = ~crc_next;
        m_d   = m_cnt;
        for (int i = 0; i < 8; i++) begin
          if (i < int'(m_cnt)) begin
            a_d[8*i +: 8] = col_data[8*i +: 8];
            a_c[i] = 1'b0;
          end else if (i < int'(m_cnt) + 4) begin
            a_d[8*i +: 8] = fcs_d[8*(i - int'(m_cnt)) +: 8];
            a_c[i] = 1'b0;
          end else if (i == int'(m_cnt) + 4) begin
            a_d[8*i +: 8] = XG_TERM;
          end
        end
        if (m_cnt < 4'd4) begin
          a_tl = m_cnt + 4'd4;
          p_frame = 1'b1;
          st_d = S_IDLE;
        end else begin
          st_d = S_FCS;
        end
      end
    end
  end

  // ---------------------------------------------------------------- lane placement and IFG
  logic [63:0] out_d;
  logic [7:0]  out_c;
  logic        t_out;          // /T/ leaves this cycle
  logic [2:0]  t_lane;
  logic        start;

  always_comb begin
    logic [63:0] cd;
    logic [7:0]  cc;
    logic [3:0]  tl;
    int          rem;
    shift_d    = shift_q;
    hold_d_d   = hold_d_q;
    hold_c_d   = hold_c_q;
    flush_d    = 1'b0;
    flush_tl_d = flush_tl_q;
    ifg_d      = ifg_q;
    dic_d      = dic_q;
    out_d      = IDLE_D;
    out_c      = 8'hFF;
    t_out      = 1'b0;
    t_lane     = '0;
    start      = 1'b0;
    rem        = 0;
    cd         = a_d;
    cc         = a_c;
    tl         = a_tl;

    if (flush_q) begin
      out_d  = {IDLE_D[63:32], hold_d_q};
      out_c  = {4'hF, hold_c_q};
      t_out  = 1'b1;
      t_lane = flush_tl_q;
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
        start = 1'b1;
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
        cd = START_D;
        cc = 8'h01;
        tl = 4'd8;
      end else begin
        ifg_d = '0;
        dic_d = '0;
      end
    end

    if (start || (a_act && !flush_q)) begin
      if (shift_d) begin
        out_d    = {cd[31:0], start ? IDLE_D[31:0] : hold_d_q};
        out_c    = {cc[3:0], start ? 4'hF : hold_c_q};
        hold_d_d = cd[63:32];
        hold_c_d = cc[7:4];
        if (tl < 4'd4) begin
          t_out  = 1'b1;
          t_lane = 3'(tl + 4'd4);
        end else if (tl < 4'd8) begin
          flush_d    = 1'b1;
          flush_tl_d = 3'(tl - 4'd4);
        end
      end else begin
        out_d = cd;
        out_c = cc;
        if (tl < 4'd8) begin
          t_out  = 1'b1;
          t_lane = 3'(tl);
        end
      end
    end

    if (t_out) ifg_d = 4'(t_lane) + 4'd4;   // 12 minus the bytes from /T/ to the column end
  end

  always_ff @(posedge clk) begin
    st_q       <= (start) ? S_DATA : st_d;
    shift_q    <= shift_d;
    hold_d_q   <= hold_d_d;
    hold_c_q   <= hold_c_d;
    flush_q    <= flush_d;
    flush_tl_q <= flush_tl_d;
    ifg_q      <= ifg_d;
    dic_q      <= dic_d;
    crc_q      <= start ? 32'hFFFF_FFFF : crc_d;
    col_q      <= start ? 4'd0 : col_d;
    len_q      <= start ? 24'd0 : len_d;
    fcs_q      <= fcs_d;
    m_q        <= m_d;
    xgmii_txd  <= out_d;
    xgmii_txc  <= out_c;
    if (p_frame) begin
      stat_frames <= stat_frames + 1'b1;
      stat_bytes  <= stat_bytes + BYTE_CNT_W'(len_q) + BYTE_CNT_W'(tail_bytes);
    end
    if (p_under) stat_underflow <= stat_underflow + 1'b1;
    if (p_bad)   stat_bad       <= stat_bad + 1'b1;
    if (rst) begin
      st_q       <= S_IDLE;
      shift_q    <= 1'b0;
      flush_q    <= 1'b0;
      ifg_q      <= '0;
      dic_q      <= '0;
      xgmii_txd  <= IDLE_D;
      xgmii_txc  <= 8'hFF;
      stat_frames    <= '0;
      stat_bytes     <= '0;
      stat_underflow <= '0;
      stat_bad       <= '0;
    end
  end

endmodule

`resetall
