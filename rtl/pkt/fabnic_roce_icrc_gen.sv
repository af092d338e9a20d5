// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_icrc_gen: appends the 4-byte RoCEv2 ICRC to every frame.
//
// Input: a full RoCEv2 Ethernet frame without ICRC and FCS (Ethernet [+802.1Q],
// IPv4 or IPv6, UDP, BTH, ...), its IP/UDP lengths already counting the ICRC. Output:
// the same frame with the ICRC (CRC-32 state inverted, least significant byte first)
// after its last byte. The mask is fabnic_roce_icrc_mask; the CRC is fabnic_crc32.
// Throughput: one beat per cycle; a frame whose last beat has more than KEEP_W-4
// bytes needs one more output beat (the input waits one cycle). Latency: one cycle.
`default_nettype none

module fabnic_roce_icrc_gen #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,

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
    output logic                   m_axis_tuser
);

  localparam int CNT_W = $clog2(KEEP_W + 1);

  function automatic logic [KEEP_W-1:0] keep_of(input int n);
    logic [KEEP_W-1:0] k;
    for (int i = 0; i < KEEP_W; i++) k[i] = i < n;
    return k;
  endfunction

  logic              out_valid_q, out_last_q, out_user_q, extra_q, extra_user_q;
  logic [DATA_W-1:0] out_data_q, extra_data_q;
  logic [KEEP_W-1:0] out_keep_q, extra_keep_q;
  logic [31:0]       crc_q, crc_next, icrc;
  logic [DATA_W-1:0] masked, kbits;
  logic [2*DATA_W-1:0] ext;
  logic [CNT_W-1:0]  n;
  logic              out_load, s_fire;

  assign out_load      = !out_valid_q || m_axis_tready;
  assign s_axis_tready = out_load && !extra_q;
  assign s_fire        = s_axis_tvalid && s_axis_tready;

  fabnic_roce_icrc_mask #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_mask (
      .clk, .rst, .data(s_axis_tdata), .keep(s_axis_tkeep), .last(s_axis_tlast),
      .fire(s_fire), .masked
  );

  fabnic_crc32 #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_crc (
      .crc_in(crc_q), .data_in(masked), .keep_in(s_axis_tkeep), .crc_out(crc_next)
  );

  always_comb begin
    n = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      n = n + CNT_W'(s_axis_tkeep[i]);
      kbits[8*i +: 8] = {8{s_axis_tkeep[i]}};
    end
    icrc = ~crc_next;
    ext  = {{DATA_W{1'b0}}, s_axis_tdata & kbits} |
           ({{(2*DATA_W-32){1'b0}}, icrc} << (8 * n));
  end

  always_ff @(posedge clk) begin
    if (out_load) out_valid_q <= 1'b0;
    if (extra_q && out_load) begin
      out_valid_q <= 1'b1;
      out_data_q  <= extra_data_q;
      out_keep_q  <= extra_keep_q;
      out_last_q  <= 1'b1;
      out_user_q  <= extra_user_q;
      extra_q     <= 1'b0;
    end
    if (s_fire) begin
      crc_q       <= s_axis_tlast ? 32'hFFFF_FFFF : crc_next;
      out_valid_q <= 1'b1;
      out_data_q  <= ext[DATA_W-1:0];
      if (!s_axis_tlast) begin
        out_keep_q <= s_axis_tkeep;
        out_last_q <= 1'b0;
        out_user_q <= 1'b0;
      end else if (32'(n) <= KEEP_W - 4) begin
        out_keep_q <= keep_of(32'(n) + 4);
        out_last_q <= 1'b1;
        out_user_q <= s_axis_tuser;
      end else begin
        out_keep_q   <= '1;
        out_last_q   <= 1'b0;
        out_user_q   <= 1'b0;
        extra_q      <= 1'b1;
        extra_data_q <= ext[2*DATA_W-1:DATA_W];
        extra_keep_q <= keep_of(32'(n) + 4 - KEEP_W);
        extra_user_q <= s_axis_tuser;
      end
    end
    if (rst) begin
      crc_q       <= 32'hFFFF_FFFF;
      out_valid_q <= 1'b0;
      extra_q     <= 1'b0;
    end
  end

  assign m_axis_tdata  = out_data_q;
  assign m_axis_tkeep  = out_keep_q;
  assign m_axis_tvalid = out_valid_q;
  assign m_axis_tlast  = out_last_q;
  assign m_axis_tuser  = out_user_q;

endmodule

`resetall
