// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_net_tap (testbench only): passive AXI-Stream tap. Every input is an
// input (it never drives tready); each frame that crosses the bus (valid &&
// ready) is recorded in memories Python reads once at the end:
//   cap_first[i] / cap_last[i]  cycle of the first / last beat (`cycle` input)
//   cap_len[i]                  length in bytes, cap_bad[i] = tuser[0] on the last beat
//   cap_crc[i]                  CRC-32 (zlib.crc32) of the whole frame
//   cap_data[i]                 the first CAP_BYTES bytes (byte k at bits 8k+7:8k)
// `frames` counts every frame; only the first DEPTH are recorded.
`default_nettype none

module fabnic_tb_net_tap #(
    parameter int DATA_W    = 512,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int CAP_BYTES = 64,
    parameter int DEPTH     = 4096
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [DATA_W-1:0] tdata,
    input  wire logic [KEEP_W-1:0] tkeep,
    input  wire logic              tvalid,
    input  wire logic              tready,
    input  wire logic              tlast,
    input  wire logic [0:0]        tuser,
    input  wire logic [63:0]       cycle,
    output logic [31:0]            frames,
    output logic [63:0]            bytes,
    // read port (combinational); Python may also read the cap_* memories directly
    input  wire logic [31:0]       rd_idx,
    output logic [63:0]            rd_first,
    output logic [63:0]            rd_last,
    output logic [15:0]            rd_len,
    output logic                   rd_bad,
    output logic [31:0]            rd_crc,
    output logic [8*CAP_BYTES-1:0] rd_data
);

  logic [63:0]          cap_first [DEPTH];
  logic [63:0]          cap_last  [DEPTH];
  logic [15:0]          cap_len   [DEPTH];
  logic                 cap_bad   [DEPTH];
  logic [31:0]          cap_crc   [DEPTH];
  logic [8*CAP_BYTES-1:0] cap_data [DEPTH];

  logic                 in_frame;
  logic [63:0]          t_first;
  logic [15:0]          len;
  logic [31:0]          crc;
  logic [8*CAP_BYTES-1:0] head;
  logic                 take;
  logic [31:0]          crc_tbl [256];

  // table-driven CRC-32 (reflected 0xEDB88320) with a run-time loop bound, so the
  // simulator runs a small loop instead of a DATA_W-wide XOR network
  initial begin
    for (int i = 0; i < 256; i++) begin
      logic [31:0] c;
      c = 32'(i);
      for (int k = 0; k < 8; k++) c = c[0] ? (c >> 1) ^ 32'hEDB8_8320 : c >> 1;
      crc_tbl[i] = c;
    end
  end

  assign take = tvalid && tready;

  always_comb begin
    logic [$clog2(DEPTH)-1:0] a;
    a = $clog2(DEPTH)'(rd_idx % 32'(DEPTH));
    rd_first = cap_first[a];
    rd_last  = cap_last[a];
    rd_len   = cap_len[a];
    rd_bad   = cap_bad[a];
    rd_crc   = cap_crc[a];
    rd_data  = cap_data[a];
  end

  always_ff @(posedge clk) begin
    if (take) begin
      logic [31:0] c;
      logic [15:0] l0, nb;
      logic [8*CAP_BYTES-1:0] h;
      l0 = in_frame ? len : 16'd0;
      c  = in_frame ? crc : 32'hFFFF_FFFF;
      h  = in_frame ? head : '0;
      nb = 16'($countones(tkeep));
      for (int i = 0; i < int'(nb); i++) begin
        c = crc_tbl[c[7:0] ^ tdata[8*i +: 8]] ^ (c >> 8);
        if (int'(l0) + i < CAP_BYTES) h[8*(int'(l0) + i) +: 8] = tdata[8*i +: 8];
      end
      bytes <= bytes + 64'(nb);
      if (tlast) begin
        if (frames < DEPTH) begin
          cap_first[frames[$clog2(DEPTH)-1:0]] <= in_frame ? t_first : cycle;
          cap_last[frames[$clog2(DEPTH)-1:0]]  <= cycle;
          cap_len[frames[$clog2(DEPTH)-1:0]]   <= l0 + nb;
          cap_bad[frames[$clog2(DEPTH)-1:0]]   <= tuser[0];
          cap_crc[frames[$clog2(DEPTH)-1:0]]   <= ~c;
          cap_data[frames[$clog2(DEPTH)-1:0]]  <= h;
        end
        frames   <= frames + 32'd1;
        in_frame <= 1'b0;
      end else begin
        if (!in_frame) t_first <= cycle;
        in_frame <= 1'b1;
        len      <= l0 + nb;
        crc      <= c;
        head     <= h;
      end
    end
    if (rst) begin
      frames   <= '0;
      bytes    <= '0;
      in_frame <= 1'b0;
      len      <= '0;
      crc      <= 32'hFFFF_FFFF;
      head     <= '0;
      t_first  <= '0;
    end
  end

endmodule

`resetall
