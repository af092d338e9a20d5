// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_dcqcn_receiver (testbench only): transport-only RoCEv2 receiver
// endpoint whose notification point is the real RTL (fabnic_dcqcn_np).
//
// Every received frame is accepted (s_axis_tready = 1). A RoCEv2 frame (IPv4, UDP
// dport 4791, BTH opcode != 0x81) whose BTH dest QP is local_qpn + q (q < NUM_QP)
// counts as delivered on QP q (frames, bytes, CE-marked frames) and is reported to
// the NP with the IP ECN bits. The peer's MAC and IP are learnt from the frame.
// Each CNP request of the NP becomes a 74-byte CNP frame: Ethernet (my_mac -> peer
// MAC) / IPv4 (Not-ECT, DF, TTL 64, valid checksum) / UDP (sport 0xC000 | q, dport
// 4791) / BTH (opcode 0x81, BECN set, pkey 0xFFFF, dest QP peer_qpn_base + q,
// PSN 0) / 16 reserved bytes / ICRC (zero: not computed).
// If the NP is not ready when a report is pending, the pending report waits (one
// entry); a second report in that time is dropped and counted (cnt_np_overflow;
// cannot happen with frames of 2 beats or more).
`default_nettype none

module fabnic_tb_dcqcn_receiver #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_QP = 16
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    input  wire logic [DATA_W-1:0]    s_axis_tdata,
    input  wire logic [KEEP_W-1:0]    s_axis_tkeep,
    input  wire logic                 s_axis_tvalid,
    output logic                      s_axis_tready,
    input  wire logic                 s_axis_tlast,
    input  wire logic [0:0]           s_axis_tuser,

    output logic [DATA_W-1:0]         m_axis_tdata,
    output logic [KEEP_W-1:0]         m_axis_tkeep,
    output logic                      m_axis_tvalid,
    input  wire logic                 m_axis_tready,
    output logic                      m_axis_tlast,
    output logic [0:0]                m_axis_tuser,

    input  wire logic [47:0]          my_mac,
    input  wire logic [31:0]          my_ip,
    input  wire logic [23:0]          local_qpn,
    input  wire logic [23:0]          peer_qpn_base,
    input  wire logic [47:0]          cfg_interval,   // NP: cycles between CNPs of a QP

    output logic [NUM_QP*32-1:0]      cnt_frames,     // per QP
    output logic [NUM_QP*64-1:0]      cnt_bytes,      // per QP, frame bytes
    output logic [NUM_QP*32-1:0]      cnt_ce,         // per QP, CE-marked frames
    output logic [31:0]               cnt_cnp_tx,
    output logic [31:0]               cnt_other,      // frames that are not RoCE data of a local QP
    output logic [31:0]               cnt_np_overflow,
    output logic [31:0]               np_marked,
    output logic [31:0]               np_cnp,
    output logic [31:0]               np_suppressed
);

  localparam int QPN_W = $clog2(NUM_QP);
  localparam int HB    = 64;
  localparam int CLEN  = 74;
  localparam int CBEATS = (CLEN + KEEP_W - 1) / KEEP_W;

  // ---------------------------------------------------------------- NP
  logic             np_valid, np_ready, cnp_valid, cnp_ready;
  logic [QPN_W-1:0] np_qpn, cnp_qpn;
  logic [1:0]       np_ecn;

  fabnic_dcqcn_np #(.NUM_QP(NUM_QP)) np (
    .clk, .rst, .cfg_interval,
    .s_valid(np_valid), .s_ready(np_ready), .s_qpn(np_qpn), .s_ecn(np_ecn),
    .cnp_valid, .cnp_ready, .cnp_qpn,
    .status_time(), .status_busy(),
    .cnt_marked(np_marked), .cnt_cnp(np_cnp), .cnt_suppressed(np_suppressed)
  );

  // ---------------------------------------------------------------- receive
  logic [8*HB-1:0] rx_hdr, rx_hn;
  logic [15:0]     rx_beat;
  logic [15:0]     rx_len;
  logic [47:0]     peer_mac [NUM_QP];
  logic [31:0]     peer_ip  [NUM_QP];

  assign s_axis_tready = 1'b1;

  function automatic logic [7:0] rb(input logic [8*HB-1:0] h, input int k);
    return h[8*k +: 8];
  endfunction
  function automatic logic [15:0] rb16(input logic [8*HB-1:0] h, input int k);
    return {h[8*k +: 8], h[8*(k+1) +: 8]};
  endfunction

  always_comb begin
    rx_hn = rx_beat == 0 ? '0 : rx_hdr;
    if (32'(rx_beat) * 32'(KEEP_W) < HB) begin
      if (DATA_W >= 8 * HB) rx_hn = s_axis_tdata[8*HB-1:0];
      else rx_hn[(32'(rx_beat) * 32'(DATA_W)) % (8 * HB) +: DATA_W] = s_axis_tdata;
    end
  end

  always_ff @(posedge clk) begin
    if (np_valid && np_ready) np_valid <= 1'b0;
    if (s_axis_tvalid) begin
      logic [15:0] flen;
      logic [23:0] dqp, off;
      flen    = rx_len + 16'($countones(s_axis_tkeep));
      rx_hdr  <= rx_hn;
      rx_beat <= s_axis_tlast ? '0 : rx_beat + 16'd1;
      rx_len  <= s_axis_tlast ? '0 : flen;
      if (s_axis_tlast) begin
        dqp = {rb(rx_hn, 47), rb(rx_hn, 48), rb(rx_hn, 49)};
        off = dqp - local_qpn;
        if (!s_axis_tuser[0] && rb16(rx_hn, 12) == 16'h0800 && rb(rx_hn, 23) == 8'd17 &&
            rb16(rx_hn, 36) == 16'd4791 && rb(rx_hn, 42) != 8'h81 && off < 24'(NUM_QP)) begin
          int q;
          q = int'(off);
          cnt_frames[32*q +: 32] <= cnt_frames[32*q +: 32] + 32'd1;
          cnt_bytes[64*q +: 64]  <= cnt_bytes[64*q +: 64] + 64'(flen);
          if (rb(rx_hn, 15)[1:0] == 2'b11) cnt_ce[32*q +: 32] <= cnt_ce[32*q +: 32] + 32'd1;
          for (int i = 0; i < 6; i++) peer_mac[q][8*(5-i) +: 8] <= rb(rx_hn, 6 + i);
          peer_ip[q] <= {rb(rx_hn, 26), rb(rx_hn, 27), rb(rx_hn, 28), rb(rx_hn, 29)};
          if (np_valid && !np_ready) begin
            cnt_np_overflow <= cnt_np_overflow + 32'd1;
          end else begin
            np_valid <= 1'b1;
            np_qpn   <= QPN_W'(off);
            np_ecn   <= rb(rx_hn, 15)[1:0];
          end
        end else begin
          cnt_other <= cnt_other + 32'd1;
        end
      end
    end
    if (rst) begin
      np_valid        <= 1'b0;
      np_qpn          <= '0;
      np_ecn          <= '0;
      rx_hdr          <= '0;
      rx_beat         <= '0;
      rx_len          <= '0;
      cnt_frames      <= '0;
      cnt_bytes       <= '0;
      cnt_ce          <= '0;
      cnt_other       <= '0;
      cnt_np_overflow <= '0;
      for (int q = 0; q < NUM_QP; q++) begin
        peer_mac[q] <= '0;
        peer_ip[q]  <= '0;
      end
    end
  end

  // ---------------------------------------------------------------- CNP transmit
  logic              tx_busy;
  logic [15:0]       tx_beat;
  logic [8*CLEN-1:0] cnp;

  function automatic logic [15:0] csum16(input logic [8*20-1:0] ip);
    logic [31:0] s;
    s = 0;
    for (int i = 0; i < 10; i++) s += 32'({ip[8*(2*i) +: 8], ip[8*(2*i+1) +: 8]});
    s = (s & 32'hFFFF) + (s >> 16);
    s = (s & 32'hFFFF) + (s >> 16);
    return ~s[15:0];
  endfunction

  function automatic logic [8*CLEN-1:0] cnp_frame(input logic [47:0] dmac, input logic [47:0] smac,
                                                  input logic [31:0] sip, input logic [31:0] dip,
                                                  input logic [23:0] dqp, input logic [7:0] q);
    logic [8*CLEN-1:0] f;
    logic [8*20-1:0] ip;
    logic [15:0] ck;
    f = '0;
    for (int i = 0; i < 6; i++) begin
      f[8*i +: 8]     = dmac[8*(5-i) +: 8];
      f[8*(6+i) +: 8] = smac[8*(5-i) +: 8];
    end
    f[8*12 +: 8] = 8'h08;
    ip = '0;
    ip[8*0 +: 8] = 8'h45;
    ip[8*3 +: 8] = 8'd60;                     // total length 60
    ip[8*6 +: 8] = 8'h40;
    ip[8*8 +: 8] = 8'd64; ip[8*9 +: 8] = 8'd17;
    for (int i = 0; i < 4; i++) begin
      ip[8*(12+i) +: 8] = sip[8*(3-i) +: 8];
      ip[8*(16+i) +: 8] = dip[8*(3-i) +: 8];
    end
    ck = csum16(ip);
    ip[8*10 +: 8] = ck[15:8]; ip[8*11 +: 8] = ck[7:0];
    f[8*14 +: 160] = ip;
    f[8*34 +: 8] = 8'hC0; f[8*35 +: 8] = q;
    f[8*36 +: 8] = 8'h12; f[8*37 +: 8] = 8'hB7;
    f[8*39 +: 8] = 8'd40;                     // UDP length
    f[8*42 +: 8] = 8'h81;
    f[8*44 +: 8] = 8'hFF; f[8*45 +: 8] = 8'hFF;
    f[8*46 +: 8] = 8'h40;                     // BECN
    f[8*47 +: 8] = dqp[23:16]; f[8*48 +: 8] = dqp[15:8]; f[8*49 +: 8] = dqp[7:0];
    return f;
  endfunction

  assign cnp_ready = !tx_busy;

  always_comb begin
    logic [31:0] base, rem;
    base = 32'(tx_beat) * 32'(KEEP_W);
    rem  = 32'(CLEN) - base;
    m_axis_tdata  = DATA_W'(cnp >> (8 * base));
    m_axis_tkeep  = rem >= 32'(KEEP_W) ? '1 : ~({KEEP_W{1'b1}} << rem);
    m_axis_tlast  = rem <= 32'(KEEP_W);
    m_axis_tvalid = tx_busy;
    m_axis_tuser  = 1'b0;
  end

  always_ff @(posedge clk) begin
    if (cnp_valid && cnp_ready) begin
      tx_busy <= 1'b1;
      tx_beat <= '0;
      cnp     <= cnp_frame(peer_mac[cnp_qpn], my_mac, my_ip, peer_ip[cnp_qpn],
                           peer_qpn_base + 24'(cnp_qpn), 8'(cnp_qpn));
    end else if (tx_busy && m_axis_tready) begin
      if (m_axis_tlast) begin
        tx_busy    <= 1'b0;
        cnt_cnp_tx <= cnt_cnp_tx + 32'd1;
      end
      tx_beat <= tx_beat + 16'd1;
    end
    if (rst) begin
      tx_busy    <= 1'b0;
      tx_beat    <= '0;
      cnt_cnp_tx <= '0;
      cnp        <= '0;
    end
  end

  logic unused;
  assign unused = ^{CBEATS};

endmodule

`resetall
