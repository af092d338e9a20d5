// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_csum_check: receive-side TCP/UDP checksum verification for the
// virtio_net_hdr DATA_VALID flag (VirtIO 1.2, 5.1.6.4).
//
// A stream of Ethernet frames (without FCS) passes through one register stage
// (latency 1 cycle, full throughput, tready combinational from m_axis_tready).
// While a frame passes, the bytes of its L4 segment are summed (RFC 1071 ones'
// complement, big-endian 16-bit words) and, on the last beat, the pseudo header
// (RFC 768 / RFC 793 for IPv4, RFC 8200 8.1 for IPv6) is added. The last beat
// leaves with m_axis_tuser[1] = 1 when the frame is
//   Ethernet (optionally one 802.1Q tag) / IPv4 (not a fragment, IHL >= 5) or
//   IPv6 (next header directly TCP or UDP, no extension headers) / TCP or UDP,
//   the IP datagram fits in the frame (Ethernet padding after it is ignored),
//   UDP: length field == IP payload length and checksum field != 0,
// and the checksum verifies (folded sum 0xFFFF). tuser[0] (bad) passes through.
// Counters (frames not marked bad, counted on their last input beat):
//   cnt_ok   verified good (tuser[1] = 1)
//   cnt_bad  TCP/UDP with a wrong checksum (tuser[1] = 0)
//   cnt_skip not verifiable by the rules above (tuser[1] = 0)
// Header fields are taken from the first HB (96) bytes, captured as they pass:
// the L4 start is at most 18 + 60 = 78 and UDP's length/checksum at most 86.
`default_nettype none

module fabnic_virtio_csum_check #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int DEST_W = 2,
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,     // bad frame (last beat)
    input  wire logic [DEST_W-1:0] s_axis_tdest,

    output logic [DATA_W-1:0]      m_axis_tdata,
    output logic [KEEP_W-1:0]      m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic [1:0]             m_axis_tuser,     // [0] bad, [1] checksum verified (last beat)
    output logic [DEST_W-1:0]      m_axis_tdest,

    output logic [CNT_W-1:0]       cnt_ok,
    output logic [CNT_W-1:0]       cnt_bad,
    output logic [CNT_W-1:0]       cnt_skip
);

  localparam int B  = KEEP_W;
  localparam int HB = 96;           // header bytes captured

  if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0 || KEEP_W * 8 != DATA_W) begin : g_chk
    $error("fabnic_virtio_csum_check: DATA_W must be a power of two >= 64, KEEP_W = DATA_W/8");
  end

  logic fire;
  assign s_axis_tready = !m_axis_tvalid || m_axis_tready;
  assign fire          = s_axis_tvalid && s_axis_tready;

  // ---------------------------------------------------------------- header view
  logic [15:0]       pos_q;         // byte position of the current beat in its frame
  logic [31:0]       acc_q;         // L4 bytes summed so far (this frame)
  logic [8*HB-1:0]   hdr_q;         // captured bytes 0..HB-1 of this frame
  logic [8*HB-1:0]   hv;            // captured bytes merged with the current beat

  always_comb begin
    for (int i = 0; i < HB; i++) begin
      if (32'(pos_q) == (i / B) * B) hv[8*i +: 8] = s_axis_tdata[8*(i % B) +: 8];
      else                           hv[8*i +: 8] = hdr_q[8*i +: 8];
    end
  end

  function automatic logic [7:0] hb(input logic [8*HB-1:0] v, input logic [7:0] at);
    return v[8*32'(at) +: 8];
  endfunction
  function automatic logic [15:0] hw(input logic [8*HB-1:0] v, input logic [7:0] at);
    return {v[8*32'(at) +: 8], v[8*(32'(at) + 1) +: 8]};
  endfunction

  logic        vlan, v4, v6, frag, tcp, udp;
  logic [7:0]  l3, l4, ihl4, proto;
  logic [16:0] ip_end;
  logic [15:0] ip_len;
  always_comb begin
    vlan   = hw(hv, 8'd12) == 16'h8100;
    l3     = vlan ? 8'd18 : 8'd14;
    ihl4   = {2'b00, hb(hv, l3)[3:0], 2'b00};
    v4     = hw(hv, l3 - 8'd2) == 16'h0800 && hb(hv, l3)[7:4] == 4'd4 && ihl4 >= 8'd20;
    v6     = hw(hv, l3 - 8'd2) == 16'h86DD && hb(hv, l3)[7:4] == 4'd6;
    frag   = v4 && (hw(hv, l3 + 8'd6) & 16'h3FFF) != 16'd0;   // MF or fragment offset
    proto  = v4 ? hb(hv, l3 + 8'd9) : hb(hv, l3 + 8'd6);
    l4     = v4 ? l3 + ihl4 : l3 + 8'd40;
    ip_len = v4 ? hw(hv, l3 + 8'd2) : hw(hv, l3 + 8'd4);      // total / payload length
    ip_end = v4 ? 17'(l3) + 17'(ip_len) : 17'(l3) + 17'd40 + 17'(ip_len);
    tcp    = (v4 || v6) && !frag && proto == 8'd6;
    udp    = (v4 || v6) && !frag && proto == 8'd17;
  end

  // ---------------------------------------------------------------- L4 bytes of this beat
  logic [31:0] beat_sum;
  always_comb begin
    beat_sum = '0;
    for (int j = 0; j < B / 2; j++) begin
      logic [16:0] p;
      logic [7:0]  hi, lo;
      p  = 17'(pos_q) + 17'(2 * j);
      hi = (s_axis_tkeep[2*j] && p >= 17'(l4) && p < ip_end)
           ? s_axis_tdata[8*(2*j) +: 8] : 8'd0;
      lo = (s_axis_tkeep[2*j+1] && p + 17'd1 >= 17'(l4) && p + 17'd1 < ip_end)
           ? s_axis_tdata[8*(2*j+1) +: 8] : 8'd0;
      beat_sum = beat_sum + {16'd0, hi, lo};
    end
  end

  // ---------------------------------------------------------------- verdict (last beat)
  logic [31:0] acc_next, pseudo, total;
  logic [16:0] flen, l4_len;
  logic [15:0] fold;
  logic        fits, l4_ok, verdict_ok, verdict_bad;
  always_comb begin
    acc_next = acc_q + beat_sum;
    flen     = 17'(pos_q);
    for (int i = 0; i < B; i++) flen = flen + 17'(s_axis_tkeep[i]);
    l4_len   = ip_end - 17'(l4);
    pseudo   = 32'(proto) + 32'(l4_len);
    if (v4) begin
      for (int k = 0; k < 4; k++) pseudo = pseudo + 32'(hw(hv, l3 + 8'd12 + 8'(2 * k)));
    end else begin
      for (int k = 0; k < 16; k++) pseudo = pseudo + 32'(hw(hv, l3 + 8'd8 + 8'(2 * k)));
    end
    total = acc_next + pseudo;
    total = {16'd0, total[15:0]} + {16'd0, total[31:16]};
    fold  = total[15:0] + total[31:16];
    fits  = ip_end <= flen && 17'(l4) <= ip_end;
    l4_ok = tcp ? (l4_len >= 17'd20)
          : udp ? (l4_len >= 17'd8 && 17'(hw(hv, l4 + 8'd4)) == l4_len
                   && hw(hv, l4 + 8'd6) != 16'd0)
          : 1'b0;
    verdict_ok  = fits && l4_ok && fold == 16'hFFFF;
    verdict_bad = fits && l4_ok && fold != 16'hFFFF;
  end

  // ---------------------------------------------------------------- state, output register
  always_ff @(posedge clk) begin
    if (m_axis_tready) m_axis_tvalid <= 1'b0;
    if (fire) begin
      m_axis_tvalid <= 1'b1;
      m_axis_tdata  <= s_axis_tdata;
      m_axis_tkeep  <= s_axis_tkeep;
      m_axis_tlast  <= s_axis_tlast;
      m_axis_tdest  <= s_axis_tdest;
      m_axis_tuser  <= {s_axis_tlast && verdict_ok, s_axis_tlast && s_axis_tuser};
      for (int i = 0; i < HB; i++) begin
        if (32'(pos_q) == (i / B) * B) hdr_q[8*i +: 8] <= s_axis_tdata[8*(i % B) +: 8];
      end
      if (s_axis_tlast) begin
        pos_q <= '0;
        acc_q <= '0;
        if (!s_axis_tuser) begin
          if (verdict_ok)       cnt_ok   <= cnt_ok + 1'b1;
          else if (verdict_bad) cnt_bad  <= cnt_bad + 1'b1;
          else                  cnt_skip <= cnt_skip + 1'b1;
        end
      end else begin
        pos_q <= (pos_q > 16'(65535 - B)) ? pos_q : pos_q + 16'(B);   // saturates (> 64 KB)
        acc_q <= acc_next;
      end
    end
    if (rst) begin
      m_axis_tvalid <= 1'b0;
      pos_q         <= '0;
      acc_q         <= '0;
      hdr_q         <= '0;
      cnt_ok        <= '0;
      cnt_bad       <= '0;
      cnt_skip      <= '0;
    end
  end

endmodule

`resetall
