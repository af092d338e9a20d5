// SPDX-License-Identifier: Apache-2.0
//
// fabnic_dcqcn_np: DCQCN notification point (docs/cc.md).
//
// For every received RoCE packet the transport reports (local QPN, IP ECN bits).
// A packet marked CE (ecn == 2'b11) asks for a CNP toward the sender of that QP;
// at most one CNP per QP is requested per cfg_interval cycles (0: one per marked
// packet). The time of the last CNP of each QP lives in a simple dual-port RAM
// (valid bit + TS_W-bit cycle stamp), cleared after reset (status_busy).
//
// Pipeline: S0 accept and read the RAM, S1 decide, write the RAM, push the CNP
// request into the output FIFO. A marked packet is not accepted while a marked
// packet of the same QP is in S1 (one bubble). Behaviour when full: s_ready is
// low while the CNP FIFO could not take another request (back-pressure to the
// receive path; nothing is dropped). Timestamps wrap after 2**(TS_W-1) cycles
// (48 bits: 6.5 days at 250 MHz); an older stamp may suppress one CNP.
`default_nettype none

module fabnic_dcqcn_np #(
    parameter int NUM_QP    = 1024,
    parameter int QPN_W     = $clog2(NUM_QP),
    parameter int TS_W      = 48,
    parameter int OUT_DEPTH = 8,
    parameter int CNT_W     = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [TS_W-1:0]   cfg_interval,   // cycles between CNPs of one QP

    // received RoCE packets (one per cycle at most)
    input  wire logic              s_valid,
    output logic                   s_ready,
    input  wire logic [QPN_W-1:0]  s_qpn,
    input  wire logic [1:0]        s_ecn,

    // CNP requests toward the transport TX path (it looks up the remote QPN/address)
    output logic                   cnp_valid,
    input  wire logic              cnp_ready,
    output logic [QPN_W-1:0]       cnp_qpn,

    output logic [TS_W-1:0]        status_time,
    output logic                   status_busy,
    output logic [CNT_W-1:0]       cnt_marked,      // CE-marked packets seen
    output logic [CNT_W-1:0]       cnt_cnp,         // CNPs requested
    output logic [CNT_W-1:0]       cnt_suppressed   // marked packets without a CNP (interval)
);

  localparam int OCW = $clog2(OUT_DEPTH) + 1;

  if (NUM_QP < 2 || QPN_W < $clog2(NUM_QP)) begin : g_check_qp
    $error("fabnic_dcqcn_np: NUM_QP must be >= 2 and fit in QPN_W");
  end
  if (OUT_DEPTH < 4) begin : g_check_depth
    $error("fabnic_dcqcn_np: OUT_DEPTH must be >= 4");
  end

  logic [TS_W-1:0]  now_q;
  logic             clr_q;
  logic [QPN_W-1:0] clr_addr_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      now_q      <= '0;
      clr_q      <= 1'b1;
      clr_addr_q <= '0;
    end else begin
      now_q <= now_q + 1'b1;
      if (clr_q) begin
        clr_addr_q <= clr_addr_q + 1'b1;
        if (clr_addr_q == QPN_W'(NUM_QP - 1)) clr_q <= 1'b0;
      end
    end
  end
  assign status_time = now_q;
  assign status_busy = clr_q;

  // ---------------------------------------------------------------- S0
  logic             s1_valid_q;   // a marked packet in S1
  logic [QPN_W-1:0] s1_qpn_q;
  logic [TS_W-1:0]  s1_now_q;
  logic [OCW-1:0]   out_count;
  logic             marked, fire;

  assign marked  = s_ecn == 2'b11;
  assign s_ready = !clr_q && (out_count <= OCW'(OUT_DEPTH - 2)) &&
                   !(marked && s1_valid_q && s1_qpn_q == s_qpn);
  assign fire    = s_valid && s_ready && marked;

  always_ff @(posedge clk) begin
    if (rst) s1_valid_q <= 1'b0;
    else     s1_valid_q <= fire;
    s1_qpn_q <= s_qpn;
    s1_now_q <= now_q;
  end

  // ---------------------------------------------------------------- RAM
  logic [TS_W:0] ram_rd_data, ram_wr_data;
  logic          ram_wr_en;
  logic [QPN_W-1:0] ram_wr_addr;

  fabnic_ram_sdp #(.DATA_W(TS_W + 1), .DEPTH(NUM_QP), .ADDR_W(QPN_W)) u_last_cnp_ram (
    .clk,
    .wr_en(ram_wr_en), .wr_be(1'b1), .wr_addr(ram_wr_addr), .wr_data(ram_wr_data),
    .rd_en(fire), .rd_regce(1'b1), .rd_addr(s_qpn), .rd_data(ram_rd_data)
  );

  // ---------------------------------------------------------------- S1
  logic            last_valid, send;
  logic [TS_W-1:0] last_ts, age;
  assign {last_valid, last_ts} = ram_rd_data;
  assign age  = s1_now_q - last_ts;
  assign send = !last_valid || (cfg_interval == '0) || (age >= cfg_interval);

  assign ram_wr_en   = clr_q || (s1_valid_q && send);
  assign ram_wr_addr = clr_q ? clr_addr_q : s1_qpn_q;
  assign ram_wr_data = clr_q ? '0 : {1'b1, s1_now_q};

  logic out_in_ready;  // never low when pushing: S0 reserves the space
  fabnic_fifo #(.WIDTH(QPN_W), .DEPTH(OUT_DEPTH)) u_cnp_fifo (
    .clk, .rst,
    .in_valid(s1_valid_q && send), .in_ready(out_in_ready), .in_data(s1_qpn_q),
    .out_valid(cnp_valid), .out_ready(cnp_ready), .out_data(cnp_qpn),
    .status_count(out_count)
  );

  always_ff @(posedge clk) begin
    if (rst) begin
      cnt_marked     <= '0;
      cnt_cnp        <= '0;
      cnt_suppressed <= '0;
    end else if (s1_valid_q) begin
      cnt_marked <= cnt_marked + 1'b1;
      if (send) cnt_cnp        <= cnt_cnp + 1'b1;
      else      cnt_suppressed <= cnt_suppressed + 1'b1;
    end
  end

  logic unused;
  assign unused = out_in_ready;

endmodule

`resetall
