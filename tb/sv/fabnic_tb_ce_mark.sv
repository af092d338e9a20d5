// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_ce_mark: a switch stand-in that sets ECN Congestion Experienced on the
// frames of one AXI-Stream wire while `enable` is high (testbench only).
//
// On the first beat of a frame whose EtherType (bytes 12..13, no VLAN tag) is IPv4 or
// IPv6 and whose ECN field is ECT(0) or ECT(1), the field becomes CE (11). IPv4: the
// header checksum is updated incrementally (RFC 1624, eqn. 3); IPv6 has none. Not-ECT
// (00) and CE frames pass unchanged, as a RED/ECN queue would leave them. The RoCE ICRC
// and the VXLAN outer UDP checksum do not cover the ECN bits (the outer UDP checksum
// covers the IPv6 pseudo-header addresses only), so both stay valid.
//
// Combinational on tdata: the valid/ready handshake is the caller's (the marker sits on
// a wire without changing its timing). `first` tracks frame starts from the handshake.
//
// Parameters
//   DATA_W  bytes per beat x 8; must be at least 256 (the IPv4 header checksum is in
//           bytes 24..25 of the first beat)
`default_nettype none

module fabnic_tb_ce_mark #(
    parameter int DATA_W = 512
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              enable,
    input  wire logic [DATA_W-1:0] s_tdata,
    input  wire logic              s_tvalid,
    input  wire logic              s_tready,
    input  wire logic              s_tlast,
    output logic      [DATA_W-1:0] m_tdata,
    output logic [31:0]            cnt_marked
);

  if (DATA_W < 256) begin : g_check_data_w
    $error("fabnic_tb_ce_mark: DATA_W must be at least 256 (the IPv4 header in one beat)");
  end

  logic        first_q, v4, v6, mark;
  logic [1:0]  ecn4, ecn6;
  always_ff @(posedge clk) begin
    if (s_tvalid && s_tready) first_q <= s_tlast;
    if (s_tvalid && s_tready && first_q && mark) cnt_marked <= cnt_marked + 32'd1;
    if (rst) begin
      first_q    <= 1'b1;
      cnt_marked <= '0;
    end
  end

  assign v4   = s_tdata[8*12 +: 16] == 16'h0008;
  assign v6   = s_tdata[8*12 +: 16] == 16'hDD86;
  assign ecn4 = s_tdata[8*15 +: 2];                 // IPv4 TOS byte, bits 1:0
  assign ecn6 = s_tdata[8*15 + 4 +: 2];             // IPv6 traffic class bits 1:0
  assign mark = enable && first_q
                && ((v4 && ecn4 != 2'b00 && ecn4 != 2'b11)
                    || (v6 && ecn6 != 2'b00 && ecn6 != 2'b11));

  always_comb begin
    logic [15:0] m_old, m_new, hc;
    logic [16:0] sum;
    m_tdata = s_tdata;
    m_old   = {s_tdata[8*14 +: 8], s_tdata[8*15 +: 8]};
    m_new   = {m_old[15:2], 2'b11};
    hc      = {s_tdata[8*24 +: 8], s_tdata[8*25 +: 8]};
    sum     = 17'(~hc) + 17'(~m_old);
    sum     = 17'(sum[15:0]) + 17'(sum[16]);
    sum     = 17'(sum[15:0]) + 17'(m_new);
    sum     = 17'(sum[15:0]) + 17'(sum[16]);
    if (mark && v4) begin
      m_tdata[8*15 +: 8] = m_new[7:0];
      m_tdata[8*24 +: 8] = ~sum[15:8];
      m_tdata[8*25 +: 8] = ~sum[7:0];
    end else if (mark && v6) begin
      m_tdata[8*15 + 4 +: 2] = 2'b11;
    end
  end

endmodule

`resetall
