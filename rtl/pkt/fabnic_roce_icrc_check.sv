// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_icrc_check: verifies the RoCEv2 ICRC (the last 4 bytes of each frame).
//
// Input: a RoCEv2 Ethernet frame ending with its ICRC (no FCS, no Ethernet padding
// after the ICRC). The masked frame (fabnic_roce_icrc_mask) including the ICRC goes
// through fabnic_crc32; a correct ICRC leaves the CRC-32 residue 0xDEBB20E3 (the raw
// state; 0x2144DF1C after inversion). A wrong one sets tuser[0] on the frame's last
// output beat and counts in cnt_icrc_bad.
// STRIP_ICRC=1 removes the 4 ICRC bytes (one beat of extra latency: the output holds
// one beat back to know where the frame ends). A frame of 4 bytes or fewer leaves as
// one beat with tkeep=0, tlast=1, tuser[0]=1.
// Throughput: one beat per cycle. Latency: 1 cycle (STRIP_ICRC=0), 2 (STRIP_ICRC=1).
`default_nettype none

module fabnic_roce_icrc_check #(
    parameter int DATA_W     = 64,
    parameter int KEEP_W     = DATA_W / 8,
    parameter bit STRIP_ICRC = 1'b0,
    parameter int CNT_W      = 32
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
    output logic                   m_axis_tuser,

    output logic      [CNT_W-1:0]  cnt_frames,
    output logic      [CNT_W-1:0]  cnt_icrc_bad
);

  localparam int CNT_B = $clog2(KEEP_W + 1);
  localparam logic [31:0] RESIDUE = 32'hDEBB_20E3;

  function automatic logic [KEEP_W-1:0] keep_of(input int n);
    logic [KEEP_W-1:0] k;
    for (int i = 0; i < KEEP_W; i++) k[i] = i < n;
    return k;
  endfunction

  logic              out_valid_q, out_last_q, out_user_q;
  logic [DATA_W-1:0] out_data_q;
  logic [KEEP_W-1:0] out_keep_q;
  logic              hold_v_q, hold_last_q, hold_user_q;
  logic [DATA_W-1:0] hold_data_q;
  logic [KEEP_W-1:0] hold_keep_q;
  logic [31:0]       crc_q, crc_next;
  logic [DATA_W-1:0] masked;
  logic [CNT_B-1:0]  n;
  logic              out_load, s_fire, bad_now, user_final;

  assign out_load      = !out_valid_q || m_axis_tready;
  assign s_axis_tready = out_load;
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
    for (int i = 0; i < KEEP_W; i++) n = n + CNT_B'(s_axis_tkeep[i]);
    bad_now    = s_axis_tlast && crc_next != RESIDUE;
    user_final = s_axis_tuser || bad_now;
  end

  always_ff @(posedge clk) begin
    if (out_load) out_valid_q <= 1'b0;
    if (s_fire) crc_q <= s_axis_tlast ? 32'hFFFF_FFFF : crc_next;

    if (!STRIP_ICRC) begin
      if (s_fire) begin
        out_valid_q <= 1'b1;
        out_data_q  <= s_axis_tdata;
        out_keep_q  <= s_axis_tkeep;
        out_last_q  <= s_axis_tlast;
        out_user_q  <= s_axis_tlast && user_final;
      end
    end else if (out_load) begin
      if (hold_v_q && (hold_last_q || s_fire)) begin
        // the held beat leaves (trimmed if the new last beat has only ICRC bytes)
        out_valid_q <= 1'b1;
        out_data_q  <= hold_data_q;
        out_keep_q  <= hold_keep_q;
        out_last_q  <= hold_last_q;
        out_user_q  <= hold_user_q;
        hold_v_q    <= 1'b0;
      end
      if (s_fire) begin
        if (hold_v_q && !hold_last_q && s_axis_tlast && 32'(n) <= 4) begin
          out_keep_q <= keep_of(KEEP_W - 4 + 32'(n));
          out_last_q <= 1'b1;
          out_user_q <= user_final;
        end else begin
          hold_v_q    <= 1'b1;
          hold_data_q <= s_axis_tdata;
          hold_last_q <= s_axis_tlast;
          hold_user_q <= s_axis_tlast && user_final;
          if (!s_axis_tlast) hold_keep_q <= s_axis_tkeep;
          else if (32'(n) > 4) hold_keep_q <= keep_of(32'(n) - 4);
          else begin
            hold_keep_q <= '0;   // frame of 4 bytes or fewer
            hold_user_q <= 1'b1;
          end
        end
      end
    end

    if (s_fire && s_axis_tlast) begin
      cnt_frames   <= cnt_frames + 1'b1;
      cnt_icrc_bad <= cnt_icrc_bad + CNT_W'(bad_now);
    end
    if (rst) begin
      crc_q        <= 32'hFFFF_FFFF;
      out_valid_q  <= 1'b0;
      hold_v_q     <= 1'b0;
      cnt_frames   <= '0;
      cnt_icrc_bad <= '0;
    end
  end

  assign m_axis_tdata  = out_data_q;
  assign m_axis_tkeep  = out_keep_q;
  assign m_axis_tvalid = out_valid_q;
  assign m_axis_tlast  = out_last_q;
  assign m_axis_tuser  = out_user_q;

endmodule

`resetall
