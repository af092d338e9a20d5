// SPDX-License-Identifier: Apache-2.0
//
// fabnic_synth_ecp5: synthesis-only wrapper that puts the DATA_W=64 datapath on an
// ECP5 board (Radiona ULX3S 85F, constraints/ulx3s_85f.lpf) using only a clock, a
// reset button and eight LEDs, so that nextpnr can place, route and time it.
//
//   [LFSR frame generator] -> dp_in -> (datapath under test) -> dp_out -> [sink]
//
// The generator makes frames of pseudo-random length (1..256 bytes) and data,
// with random idle cycles and an occasional bad-frame flag (tuser[0]); the sink
// applies random back-pressure, runs a CRC-32 over each received frame and folds
// every output beat, every CRC and every status pulse into a 64-bit signature.
// The LEDs show an XOR fold of the signature, so every datapath output reaches
// a pin and nothing is optimised away.
//
// With WITH_DP10G=1 the whole 10 G datapath (fabnic_datapath_10g: XGMII MAC,
// parser, UDP echo, builder, AXI-Lite register file) sits beside it, its XGMII
// receive side and AXI-Lite port driven from the LFSR (plus a loopback of its
// XGMII transmit side) and all its outputs folded into the signature, so that
// the MAC and packet blocks are placed and timed too.
//
// It is meant for Fmax and resource numbers, not for a board demo; the same
// module also simulates (random traffic in, a changing signature out).
`default_nettype none

module fabnic_synth_ecp5 #(
    parameter int DATA_W     = 64,
    parameter int WIDE_W     = 128,   // width of the adapter round trip inside
    parameter int FIFO_DEPTH = 512,
    parameter bit WITH_DP10G = 1'b1   // also place the 10 G datapath (MAC + echo path)
) (
    input  wire logic       clk,      // board oscillator (ULX3S: 25 MHz on G2)
    input  wire logic       rst_btn,  // active-high push button, asynchronous
    output logic      [7:0] led
);

  localparam int KEEP_W = DATA_W / 8;

  // ---------------------------------------------------------------- reset
  // Power-on reset from a counter that starts at zero (FPGA flops power up to
  // zero) plus a two-flop synchronizer for the button.
  logic [3:0] por_q;
  logic [1:0] btn_sync_q;
  logic       rst;
  always_ff @(posedge clk) begin
    btn_sync_q <= {btn_sync_q[0], rst_btn};
    if (!(&por_q)) por_q <= por_q + 1'b1;
  end
  assign rst = !(&por_q) || btn_sync_q[1];

  // ---------------------------------------------------------------- LFSR
  // 64-bit xorshift, one step per cycle: source of data, lengths and timing
  logic [63:0] rnd_q;
  always_ff @(posedge clk) begin
    logic [63:0] x;
    x = rnd_q;
    x = x ^ (x << 13);
    x = x ^ (x >> 7);
    x = x ^ (x << 17);
    rnd_q <= x;
    if (rst) rnd_q <= 64'h9E37_79B9_7F4A_7C15;
  end

  // ---------------------------------------------------------------- generator
  logic [DATA_W-1:0] gen_tdata;
  logic [KEEP_W-1:0] gen_tkeep;
  logic              gen_tvalid, gen_tready, gen_tlast;
  logic [0:0]        gen_tuser;

  logic [8:0]  gen_left_q;   // bytes left in the current frame (0: pick a new length)
  logic        gen_bad_q;
  logic [63:0] gen_data_q;

  always_comb begin
    gen_tdata  = gen_data_q[DATA_W-1:0];
    gen_tvalid = (gen_left_q != 0) && !(rnd_q[5] && rnd_q[6]);  // idle about 1 cycle in 4
    gen_tlast  = gen_left_q <= 9'(KEEP_W);
    gen_tuser  = gen_bad_q && gen_tlast;
    gen_tkeep  = '1;
    if (gen_tlast) gen_tkeep = KEEP_W'((1 << gen_left_q) - 1);
  end

  always_ff @(posedge clk) begin
    if (gen_left_q == 0) begin
      gen_left_q <= {1'b0, rnd_q[47:40]} + 9'd1;
      gen_bad_q  <= rnd_q[52:50] == 3'b000;            // 1 frame in 8 is bad
      gen_data_q <= rnd_q ^ {rnd_q[31:0], rnd_q[63:32]};
    end else if (gen_tvalid && gen_tready) begin
      gen_left_q <= gen_tlast ? 9'd0 : gen_left_q - 9'(KEEP_W);
      gen_data_q <= {gen_data_q[62:0], 1'b0} ^ rnd_q;
    end
    if (rst) begin
      gen_left_q <= '0;
      gen_bad_q  <= 1'b0;
      gen_data_q <= '0;
    end
  end

  // ---------------------------------------------------------------- datapath
  // dp_in_* (from the generator) -> ... -> dp_out_* (to the sink).
  // EXTEND HERE: insert new datapath stages (MAC, packet parser/builder, ICRC)
  // between the existing ones; chain s_axis/m_axis signals and OR any status or
  // counter outputs into dp_status so that they reach the signature.
  logic [DATA_W-1:0] dp_out_tdata;
  logic [KEEP_W-1:0] dp_out_tkeep;
  logic              dp_out_tvalid, dp_out_tready, dp_out_tlast;
  logic [0:0]        dp_out_tuser;
  logic [15:0]       dp_status;

  // stage 1: skid buffer
  logic [DATA_W-1:0] s1_tdata;
  logic [KEEP_W-1:0] s1_tkeep;
  logic              s1_tvalid, s1_tready, s1_tlast;
  logic [0:0]        s1_tuser;

  fabnic_axis_register #(.DATA_W(DATA_W), .REG_TYPE(2)) u_reg_in (
      .clk, .rst,
      .s_axis_tdata(gen_tdata), .s_axis_tkeep(gen_tkeep), .s_axis_tvalid(gen_tvalid),
      .s_axis_tready(gen_tready), .s_axis_tlast(gen_tlast), .s_axis_tuser(gen_tuser),
      .m_axis_tdata(s1_tdata), .m_axis_tkeep(s1_tkeep), .m_axis_tvalid(s1_tvalid),
      .m_axis_tready(s1_tready), .m_axis_tlast(s1_tlast), .m_axis_tuser(s1_tuser));

  // stage 2: store-and-forward FIFO dropping bad frames
  logic [DATA_W-1:0] s2_tdata;
  logic [KEEP_W-1:0] s2_tkeep;
  logic              s2_tvalid, s2_tready, s2_tlast;
  logic [0:0]        s2_tuser;
  logic [$clog2(FIFO_DEPTH):0] fifo_depth;
  logic fifo_good, fifo_bad, fifo_overflow, fifo_oversize;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .DEPTH(FIFO_DEPTH), .FRAME_FIFO(1'b1),
                     .DROP_BAD_FRAME(1'b1), .DROP_WHEN_FULL(1'b0)) u_fifo (
      .clk, .rst,
      .s_axis_tdata(s1_tdata), .s_axis_tkeep(s1_tkeep), .s_axis_tvalid(s1_tvalid),
      .s_axis_tready(s1_tready), .s_axis_tlast(s1_tlast), .s_axis_tuser(s1_tuser),
      .m_axis_tdata(s2_tdata), .m_axis_tkeep(s2_tkeep), .m_axis_tvalid(s2_tvalid),
      .m_axis_tready(s2_tready), .m_axis_tlast(s2_tlast), .m_axis_tuser(s2_tuser),
      .status_depth(fifo_depth), .status_good_frame(fifo_good),
      .status_bad_frame(fifo_bad), .status_overflow(fifo_overflow),
      .status_oversize(fifo_oversize));

  // stage 3: width round trip DATA_W -> WIDE_W -> DATA_W
  logic [WIDE_W-1:0]   s3_tdata;
  logic [WIDE_W/8-1:0] s3_tkeep;
  logic                s3_tvalid, s3_tready, s3_tlast;
  logic [0:0]          s3_tuser;

  fabnic_axis_adapter #(.S_DATA_W(DATA_W), .M_DATA_W(WIDE_W)) u_up (
      .clk, .rst,
      .s_axis_tdata(s2_tdata), .s_axis_tkeep(s2_tkeep), .s_axis_tvalid(s2_tvalid),
      .s_axis_tready(s2_tready), .s_axis_tlast(s2_tlast), .s_axis_tuser(s2_tuser),
      .m_axis_tdata(s3_tdata), .m_axis_tkeep(s3_tkeep), .m_axis_tvalid(s3_tvalid),
      .m_axis_tready(s3_tready), .m_axis_tlast(s3_tlast), .m_axis_tuser(s3_tuser));

  fabnic_axis_adapter #(.S_DATA_W(WIDE_W), .M_DATA_W(DATA_W)) u_down (
      .clk, .rst,
      .s_axis_tdata(s3_tdata), .s_axis_tkeep(s3_tkeep), .s_axis_tvalid(s3_tvalid),
      .s_axis_tready(s3_tready), .s_axis_tlast(s3_tlast), .s_axis_tuser(s3_tuser),
      .m_axis_tdata(dp_out_tdata), .m_axis_tkeep(dp_out_tkeep), .m_axis_tvalid(dp_out_tvalid),
      .m_axis_tready(dp_out_tready), .m_axis_tlast(dp_out_tlast), .m_axis_tuser(dp_out_tuser));

  assign dp_status = 16'({fifo_depth, fifo_good, fifo_bad, fifo_overflow, fifo_oversize});
  // ---------------------------------------------------------------- end of datapath

  // ---------------------------------------------------------------- 10 G datapath
  logic [15:0] dp10g_fold_q;
  if (WITH_DP10G) begin : g_dp10g
    logic [63:0] txd;
    logic [7:0]  txc;
    logic [63:0] txd_q;
    logic        awready, wready, bvalid, arready, rvalid;
    logic [1:0]  bresp, rresp;
    logic [31:0] rdata;
    // frames that look like XGMII: mostly idle/data mixes from the LFSR, plus the
    // transmit side looped back, so start/terminate codes do occur
    always_ff @(posedge clk) txd_q <= txd;

    fabnic_datapath_10g u_dp10g (
        .clk, .rst,
        .xgmii_txd(txd), .xgmii_txc(txc),
        .xgmii_rxd(rnd_q[32] ? txd_q : rnd_q), .xgmii_rxc(rnd_q[32] ? txc : rnd_q[47:40]),
        .s_axil_awaddr(rnd_q[15:0]), .s_axil_awprot(3'd0), .s_axil_awvalid(rnd_q[16]),
        .s_axil_awready(awready), .s_axil_wdata(rnd_q[63:32]), .s_axil_wstrb(rnd_q[23:20]),
        .s_axil_wvalid(rnd_q[17]), .s_axil_wready(wready), .s_axil_bresp(bresp),
        .s_axil_bvalid(bvalid), .s_axil_bready(1'b1),
        .s_axil_araddr(rnd_q[31:16]), .s_axil_arprot(3'd0), .s_axil_arvalid(rnd_q[18]),
        .s_axil_arready(arready), .s_axil_rdata(rdata), .s_axil_rresp(rresp),
        .s_axil_rvalid(rvalid), .s_axil_rready(1'b1));

    always_ff @(posedge clk) begin
      dp10g_fold_q <= txd[15:0] ^ txd[31:16] ^ txd[47:32] ^ txd[63:48] ^ {8'd0, txc}
                    ^ rdata[15:0] ^ rdata[31:16]
                    ^ {9'd0, awready, wready, bvalid, arready, rvalid, bresp[1] ^ rresp[1],
                       bresp[0] ^ rresp[0]};
    end
  end else begin : g_no_dp10g
    assign dp10g_fold_q = '0;
  end

  // ---------------------------------------------------------------- sink
  // Every output beat is captured in flops first, so the CRC and signature logic
  // below times from registers and the datapath's own paths stay what is measured.
  logic              out_fire;
  logic              cap_fire_q, cap_last_q, cap_user_q;
  logic [DATA_W-1:0] cap_data_q;
  logic [KEEP_W-1:0] cap_keep_q;
  logic [15:0]       cap_status_q;

  assign dp_out_tready = !rnd_q[9] || !rnd_q[17];    // stalls about 1 cycle in 4
  assign out_fire      = dp_out_tvalid && dp_out_tready;

  always_ff @(posedge clk) begin
    cap_fire_q   <= out_fire;
    cap_data_q   <= dp_out_tdata;
    cap_keep_q   <= dp_out_tkeep;
    cap_last_q   <= dp_out_tlast;
    cap_user_q   <= dp_out_tuser[0];
    cap_status_q <= dp_status;
    if (rst) cap_fire_q <= 1'b0;
  end

  logic [31:0] crc_q, crc_next;
  logic [63:0] sig_q;

  fabnic_crc32 #(.DATA_W(DATA_W)) u_crc (
      .crc_in(crc_q), .data_in(cap_data_q), .keep_in(cap_keep_q), .crc_out(crc_next));

  always_ff @(posedge clk) begin
    logic [63:0] mix;
    mix = {sig_q[62:0], sig_q[63]} ^ {48'd0, cap_status_q} ^ {dp10g_fold_q, 48'd0};
    if (cap_fire_q) begin
      mix = mix ^ 64'(cap_data_q) ^ (64'(cap_keep_q) << 48)
                ^ {62'd0, cap_last_q, cap_user_q};
      if (cap_last_q) mix = mix ^ {32'd0, ~crc_next};
      crc_q <= cap_last_q ? 32'hFFFF_FFFF : crc_next;
    end
    sig_q <= mix;
    if (rst) begin
      crc_q <= 32'hFFFF_FFFF;
      sig_q <= '0;
    end
  end

  always_comb begin
    led = '0;
    for (int i = 0; i < 8; i++) led[i] = ^sig_q[8*i +: 8];
  end

endmodule

`resetall
