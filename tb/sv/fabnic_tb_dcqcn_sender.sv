// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_dcqcn_sender (testbench only): transport-only RoCEv2 sender endpoint
// whose rate control is the real RTL: fabnic_dcqcn_rp + fabnic_rate_limiter.
//
// One flow (local QP 0 of the RP/limiter, NUM_QP >= 2 for the RTL) sends RDMA
// WRITE-only packets back to back while `tx_en` is 1:
//   Ethernet (src_mac -> dst_mac, 0x0800) / IPv4 (ECT(0), DF, TTL 64, UDP, valid
//   header checksum) / UDP (sport 0xC000 | flow_id, dport 4791, checksum 0) /
//   BTH (opcode 0x0A, pkey 0xFFFF, dest QP dst_qpn, PSN counting from 0) /
//   RETH (VA = PSN * payload_len, rkey 0x1234, length payload_len) / payload
//   (byte = PSN mod 256) / ICRC (4 bytes of zero: not computed).
// Frame length = 70 + payload_len bytes (4170 for a 4096-byte MTU).
//
// Rate control (dcqcn_en = 1): a request machine asks the limiter for permission to
// send one frame of `wire_len` = frame + 24 bytes (preamble, IFG, FCS: the limiter
// paces wire bytes, so Rc = line rate fills the line exactly) and keeps at most one
// grant in advance, so the grant of the next frame overlaps the current one. Each
// grant is also reported to the RP byte counter (tx event, wire_len bytes). A deny
// makes it wait until the limiter's earliest grant time, or until the limiter
// applies a new rate (its cnt_rate_set changes), whichever comes first.
// A CNP received (BTH opcode 0x81, dest QP = local_qpn) goes to rp.cnp. A rising
// edge of tx_en re-initialises the QP (Rc = Rt = cfg_rate_init, alpha = 1).
// dcqcn_en = 0: frames go out as fast as the uplink takes them.
//
// PFC: a received 802.1Qbb frame with bit pfc_prio set (or an 802.3x PAUSE)
// stops new frames for time * 512 bit times at `line_rate` (16.16 bytes/cycle);
// time 0 resumes. The frame in progress finishes. Every received frame is
// accepted (s_axis_tready = 1). An RP state read of QP 0 every 256 cycles keeps
// rd_rc/rd_rt/rd_alpha current for observation.
`default_nettype none

module fabnic_tb_dcqcn_sender #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_QP = 2
) (
    input  wire logic              clk,
    input  wire logic              rst,

    output logic [DATA_W-1:0]      m_axis_tdata,
    output logic [KEEP_W-1:0]      m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic [0:0]             m_axis_tuser,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [0:0]        s_axis_tuser,

    // flow
    input  wire logic              tx_en,
    input  wire logic              dcqcn_en,
    input  wire logic [47:0]       src_mac,
    input  wire logic [47:0]       dst_mac,
    input  wire logic [31:0]       src_ip,
    input  wire logic [31:0]       dst_ip,
    input  wire logic [23:0]       dst_qpn,
    input  wire logic [23:0]       local_qpn,
    input  wire logic [7:0]        flow_id,
    input  wire logic [15:0]       payload_len,   // bytes per packet (<= 9000)
    input  wire logic [31:0]       line_rate,     // bytes/cycle 16.16 (PFC pause time)
    input  wire logic [2:0]        pfc_prio,

    // DCQCN reaction point configuration (docs/cc.md formats)
    input  wire logic [4:0]        cfg_g_shift,
    input  wire logic [31:0]       cfg_alpha_period,
    input  wire logic [31:0]       cfg_timer_period,
    input  wire logic [31:0]       cfg_byte_counter,
    input  wire logic [7:0]        cfg_f,
    input  wire logic [31:0]       cfg_rate_ai,
    input  wire logic [31:0]       cfg_rate_hai,
    input  wire logic [31:0]       cfg_rate_min,
    input  wire logic [31:0]       cfg_rate_line,
    input  wire logic [31:0]       cfg_rate_init,
    input  wire logic              cfg_clamp_tgt,
    input  wire logic [15:0]       cfg_slack,

    // observation
    output logic [31:0]            cur_rate,      // last rate given to the limiter (Rc)
    output logic [31:0]            rd_rc,
    output logic [31:0]            rd_rt,
    output logic [20:0]            rd_alpha,
    output logic                   paused,
    output logic [31:0]            cnt_tx_frames,
    output logic [63:0]            cnt_tx_bytes,
    output logic [31:0]            cnt_cnp_rx,
    output logic [31:0]            cnt_pfc_rx,
    output logic [31:0]            cnt_rp_cnp,
    output logic [31:0]            cnt_rp_decrease,
    output logic [31:0]            cnt_rp_increase,
    output logic [63:0]            cycle
);

  localparam int QPN_W = $clog2(NUM_QP);
  localparam int HLEN  = 70;                  // header bytes before the payload
  localparam int HB    = 64;                  // received header bytes parsed

  always_ff @(posedge clk) begin
    if (rst) cycle <= '0;
    else     cycle <= cycle + 64'd1;
  end

  // ---------------------------------------------------------------- DCQCN RTL
  logic             init_valid, init_ready, cnp_valid, cnp_ready, tx_valid, tx_ready;
  logic             rd_valid, rd_ready, rd_rsp_valid, rd_rsp_enable;
  logic [QPN_W-1:0] rd_rsp_qpn, upd_qpn, rsp_qpn;
  logic [31:0]      rsp_rc, rsp_rt, upd_rate;
  logic [20:0]      rsp_alpha;
  logic             upd_valid, upd_ready, upd_init;
  logic [31:0]      rp_time;
  logic             rp_busy, lim_busy;
  logic             req_valid, req_ready, rsp_valid, rsp_grant;
  logic [47:0]      rsp_time, lim_time;
  logic [31:0]      lim_rate_set, lim_rate_set_q;
  logic [15:0]      wire_len;
  logic [15:0]      flen;

  assign flen     = 16'(HLEN) + payload_len;
  assign wire_len = flen + 16'd24;

  fabnic_dcqcn_rp #(.NUM_QP(NUM_QP)) rp (
    .clk, .rst,
    .cfg_g_shift, .cfg_alpha_period, .cfg_timer_period, .cfg_byte_counter, .cfg_f,
    .cfg_rate_ai, .cfg_rate_hai, .cfg_rate_min, .cfg_rate_line, .cfg_rate_init, .cfg_clamp_tgt,
    .init_valid, .init_ready, .init_qpn('0), .init_enable(1'b1),
    .cnp_valid, .cnp_ready, .cnp_qpn('0),
    .tx_valid, .tx_ready, .tx_qpn('0), .tx_bytes(wire_len),
    .rd_valid, .rd_ready, .rd_qpn('0),
    .rd_rsp_valid, .rd_rsp_qpn, .rd_rsp_enable, .rd_rsp_rc(rsp_rc), .rd_rsp_rt(rsp_rt),
    .rd_rsp_alpha(rsp_alpha),
    .upd_valid, .upd_ready, .upd_qpn, .upd_rate, .upd_init,
    .status_time(rp_time), .status_busy(rp_busy),
    .cnt_cnp(cnt_rp_cnp), .cnt_cnp_ignored(), .cnt_decrease(cnt_rp_decrease),
    .cnt_increase(cnt_rp_increase), .cnt_catchup()
  );

  fabnic_rate_limiter #(.NUM_QP(NUM_QP)) lim (
    .clk, .rst, .cfg_slack,
    .upd_valid, .upd_ready, .upd_qpn, .upd_rate, .upd_init,
    .req_valid, .req_ready, .req_qpn('0), .req_len(wire_len),
    .rsp_valid, .rsp_qpn, .rsp_grant, .rsp_time,
    .status_time(lim_time), .status_busy(lim_busy),
    .cnt_grant(), .cnt_deny(), .cnt_rate_set(lim_rate_set)
  );

  // ---------------------------------------------------------------- event counters toward the RP
  logic        tx_en_q, init_pend;
  logic [15:0] tx_pend, cnp_pend;
  logic [7:0]  rd_timer;
  logic        grant_evt, cnp_evt;

  assign init_valid = init_pend && !rp_busy;
  assign cnp_valid  = cnp_pend != 0 && !init_pend;
  assign tx_valid   = tx_pend != 0 && !init_pend;
  assign rd_valid   = rd_timer == 8'd0 && !init_pend;

  always_ff @(posedge clk) begin
    tx_en_q <= tx_en;
    if (rd_rsp_valid) begin
      rd_rc    <= rsp_rc;
      rd_rt    <= rsp_rt;
      rd_alpha <= rsp_alpha;
    end
    if (upd_valid && upd_ready) cur_rate <= upd_rate;
    if (rd_valid && rd_ready || rd_timer != 8'd0) rd_timer <= rd_timer + 8'd1;
    if (tx_en && !tx_en_q && dcqcn_en) init_pend <= 1'b1;
    else if (init_valid && init_ready) init_pend <= 1'b0;
    tx_pend  <= tx_pend + 16'(grant_evt && dcqcn_en) - 16'(tx_valid && tx_ready);
    cnp_pend <= cnp_pend + 16'(cnp_evt && dcqcn_en) - 16'(cnp_valid && cnp_ready);
    if (rst) begin
      tx_en_q   <= 1'b0;
      init_pend <= 1'b0;
      tx_pend   <= '0;
      cnp_pend  <= '0;
      rd_timer  <= '0;
      cur_rate  <= '0;
      rd_rc     <= '0;
      rd_rt     <= '0;
      rd_alpha  <= '0;
    end
  end

  // ---------------------------------------------------------------- request machine
  // at most one outstanding request and one banked grant
  logic        req_out, banked;
  logic [47:0] wait_until;
  logic        waiting;
  logic        send_start;

  assign req_valid = dcqcn_en && tx_en && !init_pend && !lim_busy && !req_out && !banked &&
                     !(waiting && lim_time < wait_until);
  assign grant_evt = rsp_valid && rsp_grant;

  always_ff @(posedge clk) begin
    if (req_valid && req_ready) req_out <= 1'b1;
    if (rsp_valid) begin
      req_out <= 1'b0;
      if (rsp_grant) begin
        banked  <= 1'b1;
        waiting <= 1'b0;
      end else begin
        waiting    <= 1'b1;
        wait_until <= rsp_time;
      end
    end
    if (send_start && dcqcn_en) banked <= 1'b0;
    // the limiter applied a new rate (QP 0 is the only paced QP): the allowed time of
    // a denied request may have moved earlier, so ask again instead of waiting it out
    lim_rate_set_q <= lim_rate_set;
    if (lim_rate_set != lim_rate_set_q) waiting <= 1'b0;
    if (rst || !dcqcn_en || !tx_en) begin
      req_out <= rst ? 1'b0 : req_out && !rsp_valid;
      banked  <= 1'b0;
      waiting <= 1'b0;
    end
    if (rst) begin
      wait_until     <= '0;
      lim_rate_set_q <= '0;
    end
  end

  // ---------------------------------------------------------------- PFC / CNP receive
  logic [8*HB-1:0] rx_hdr, rx_hn;
  logic [15:0]     rx_beat;
  logic [63:0]     pause_until;

  assign s_axis_tready = 1'b1;

  function automatic logic [7:0] rb(input logic [8*HB-1:0] h, input int k);
    return h[8*k +: 8];
  endfunction
  function automatic logic [15:0] rb16(input logic [8*HB-1:0] h, input int k);
    return {h[8*k +: 8], h[8*(k+1) +: 8]};
  endfunction
  function automatic logic [63:0] pause_cycles(input logic [15:0] q, input logic [31:0] r);
    if (r == 0) return 64'(q);
    return ((64'(q) * 64'd64) << 16) / 64'(r);
  endfunction

  always_comb begin
    rx_hn = rx_beat == 0 ? '0 : rx_hdr;
    if (32'(rx_beat) * 32'(KEEP_W) < HB) begin
      if (DATA_W >= 8 * HB) rx_hn = s_axis_tdata[8*HB-1:0];
      else rx_hn[(32'(rx_beat) * 32'(DATA_W)) % (8 * HB) +: DATA_W] = s_axis_tdata;
    end
  end

  assign cnp_evt = s_axis_tvalid && s_axis_tlast && !s_axis_tuser[0] &&
                   rb16(rx_hn, 12) == 16'h0800 && rb(rx_hn, 23) == 8'd17 &&
                   rb16(rx_hn, 36) == 16'd4791 && rb(rx_hn, 42) == 8'h81 &&
                   {rb(rx_hn, 47), rb(rx_hn, 48), rb(rx_hn, 49)} == local_qpn;

  always_ff @(posedge clk) begin
    if (s_axis_tvalid) begin
      rx_hdr  <= rx_hn;
      rx_beat <= s_axis_tlast ? '0 : rx_beat + 16'd1;
      if (s_axis_tlast && !s_axis_tuser[0] && rb16(rx_hn, 12) == 16'h8808) begin
        if (rb16(rx_hn, 14) == 16'h0101 && rb16(rx_hn, 16)[{1'b0, pfc_prio}]) begin
          cnt_pfc_rx  <= cnt_pfc_rx + 32'd1;
          pause_until <= cycle + pause_cycles(rb16(rx_hn, 18 + 2 * int'(pfc_prio)), line_rate);
        end else if (rb16(rx_hn, 14) == 16'h0001) begin
          cnt_pfc_rx  <= cnt_pfc_rx + 32'd1;
          pause_until <= cycle + pause_cycles(rb16(rx_hn, 16), line_rate);
        end
      end
    end
    if (cnp_evt) cnt_cnp_rx <= cnt_cnp_rx + 32'd1;
    if (rst) begin
      rx_hdr      <= '0;
      rx_beat     <= '0;
      pause_until <= '0;
      cnt_pfc_rx  <= '0;
      cnt_cnp_rx  <= '0;
    end
  end
  assign paused = cycle < pause_until;

  // ---------------------------------------------------------------- transmit
  logic        sending;
  logic [15:0] beat;
  logic [23:0] psn;
  logic [8*HLEN-1:0] hdr;

  function automatic logic [15:0] csum16(input logic [8*20-1:0] ip);
    logic [31:0] s;
    s = 0;
    for (int i = 0; i < 10; i++) s += 32'({ip[8*(2*i) +: 8], ip[8*(2*i+1) +: 8]});
    s = (s & 32'hFFFF) + (s >> 16);
    s = (s & 32'hFFFF) + (s >> 16);
    return ~s[15:0];
  endfunction

  // byte i of the header in bits 8i+7:8i
  always_comb begin
    logic [8*20-1:0] ip;
    logic [15:0] iplen, udplen, ck;
    logic [63:0] va;
    iplen  = flen - 16'd14;
    udplen = flen - 16'd34;
    va     = 64'(psn) * 64'(payload_len);
    hdr = '0;
    for (int i = 0; i < 6; i++) begin
      hdr[8*i +: 8]       = dst_mac[8*(5-i) +: 8];
      hdr[8*(6+i) +: 8]   = src_mac[8*(5-i) +: 8];
    end
    hdr[8*12 +: 8] = 8'h08; hdr[8*13 +: 8] = 8'h00;
    ip = '0;
    ip[8*0 +: 8] = 8'h45; ip[8*1 +: 8] = 8'h02;          // ECT(0)
    ip[8*2 +: 8] = iplen[15:8]; ip[8*3 +: 8] = iplen[7:0];
    ip[8*6 +: 8] = 8'h40;                                  // DF
    ip[8*8 +: 8] = 8'd64; ip[8*9 +: 8] = 8'd17;
    for (int i = 0; i < 4; i++) begin
      ip[8*(12+i) +: 8] = src_ip[8*(3-i) +: 8];
      ip[8*(16+i) +: 8] = dst_ip[8*(3-i) +: 8];
    end
    ck = csum16(ip);
    ip[8*10 +: 8] = ck[15:8]; ip[8*11 +: 8] = ck[7:0];
    hdr[8*14 +: 160] = ip;
    hdr[8*34 +: 8] = 8'hC0; hdr[8*35 +: 8] = flow_id;    // UDP sport
    hdr[8*36 +: 8] = 8'h12; hdr[8*37 +: 8] = 8'hB7;      // 4791
    hdr[8*38 +: 8] = udplen[15:8]; hdr[8*39 +: 8] = udplen[7:0];
    hdr[8*42 +: 8] = 8'h0A;                                // RC RDMA WRITE Only
    hdr[8*44 +: 8] = 8'hFF; hdr[8*45 +: 8] = 8'hFF;      // P_Key
    hdr[8*47 +: 8] = dst_qpn[23:16]; hdr[8*48 +: 8] = dst_qpn[15:8]; hdr[8*49 +: 8] = dst_qpn[7:0];
    hdr[8*50 +: 8] = 8'h80;                                // AckReq
    hdr[8*51 +: 8] = psn[23:16]; hdr[8*52 +: 8] = psn[15:8]; hdr[8*53 +: 8] = psn[7:0];
    for (int i = 0; i < 8; i++) hdr[8*(54+i) +: 8] = va[8*(7-i) +: 8];
    hdr[8*62 +: 8] = 8'h00; hdr[8*63 +: 8] = 8'h00; hdr[8*64 +: 8] = 8'h12; hdr[8*65 +: 8] = 8'h34;
    hdr[8*68 +: 8] = payload_len[15:8]; hdr[8*69 +: 8] = payload_len[7:0];
  end

  assign send_start = !sending && tx_en && !paused && (dcqcn_en ? banked : 1'b1);

  always_comb begin
    logic [31:0] base, rem;
    base = 32'(beat) * 32'(KEEP_W);
    rem  = 32'(flen) - base;
    m_axis_tdata = {KEEP_W{psn[7:0]}};
    if (base < 32'(HLEN)) begin
      for (int j = 0; j < KEEP_W; j++) begin
        if (base + 32'(j) < 32'(HLEN)) m_axis_tdata[8*j +: 8] = hdr[8*(int'(base) + j) +: 8];
      end
    end
    if (rem <= 32'(KEEP_W) && rem >= 4) begin    // ICRC (zero) in the last 4 bytes
      for (int j = 0; j < 4; j++) m_axis_tdata[8*(int'(rem) - 4 + j) +: 8] = 8'h00;
    end
    m_axis_tkeep  = rem >= 32'(KEEP_W) ? '1 : ~({KEEP_W{1'b1}} << rem);
    m_axis_tlast  = rem <= 32'(KEEP_W);
    m_axis_tvalid = sending;
    m_axis_tuser  = 1'b0;
  end

  always_ff @(posedge clk) begin
    if (send_start) begin
      sending <= 1'b1;
      beat    <= '0;
    end else if (sending && m_axis_tready) begin
      if (m_axis_tlast) begin
        sending       <= 1'b0;
        beat          <= '0;
        psn           <= psn + 24'd1;
        cnt_tx_frames <= cnt_tx_frames + 32'd1;
        cnt_tx_bytes  <= cnt_tx_bytes + 64'(flen);
      end else begin
        beat <= beat + 16'd1;
      end
    end
    if (rst) begin
      sending       <= 1'b0;
      beat          <= '0;
      psn           <= '0;
      cnt_tx_frames <= '0;
      cnt_tx_bytes  <= '0;
    end
  end

  logic unused;
  assign unused = ^{rd_rsp_qpn, rd_rsp_enable, rsp_qpn, rp_time, upd_qpn, s_axis_tkeep, upd_init};

endmodule

`resetall
