// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_hdr_extract: takes the first HDR_BYTES bytes of every frame off an
// AXI-Stream and hands them out as one header vector (network order: the first wire
// byte is the most significant byte, ready to cast to a fabnic_pkt_pkg struct); the
// rest of the frame leaves on m_axis realigned to lane 0.
//
// - m_hdr_* carries one header per frame and is valid no later than the frame's first
//   payload beat. A frame shorter than HDR_BYTES gives m_hdr_short=1 (missing bytes
//   read as zero) and one payload beat with tkeep=0, tlast=1, tuser[0]=1. A frame of
//   exactly HDR_BYTES bytes gives the same empty payload beat with tuser[0]=0.
// - tuser[0] of the input's last beat is carried to the last payload beat.
// - tkeep is contiguous from lane 0 (partial only on a last beat).
// - The header leaves through a skid buffer (fabnic_axis_register REG_TYPE 2): a
//   header that is not taken stalls the input only when the next frame's header
//   completes while the skid buffer is full, and m_hdr_tready only reaches flops.
//   No combinational valid/ready path from input to output.
// - One beat per cycle otherwise; one extra cycle per frame when the realigned tail
//   needs one more output beat than the frame has input beats.
// Latency: header 1 cycle after the input beat that completes it; payload as
// fabnic_axis_realign (1 cycle from the input beat that completes an output beat).
// Uses fabnic_axis_realign for the payload path.
`default_nettype none

module fabnic_axis_hdr_extract #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int HDR_BYTES = 14
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic                   s_axis_tuser,

    output logic      [HDR_BYTES*8-1:0] m_hdr_tdata,
    output logic                        m_hdr_short,
    output logic                        m_hdr_tvalid,
    input  wire logic                   m_hdr_tready,

    output logic      [DATA_W-1:0]      m_axis_tdata,
    output logic      [KEEP_W-1:0]      m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic                        m_axis_tuser
);

  localparam int HB    = (HDR_BYTES + KEEP_W - 1) / KEEP_W;  // header beats
  localparam int BI_W  = $clog2(HB + 1);
  localparam int LEN_W = 17;

  if (HDR_BYTES < 1) begin : g_check
    $error("fabnic_axis_hdr_extract: HDR_BYTES must be at least 1");
  end

  localparam int LASTLANE = (HDR_BYTES - 1) % KEEP_W;  // lane of the header's last byte

  logic [HB*DATA_W-1:0]  hbuf_q, hmerge;
  logic [BI_W-1:0]       bidx_q;      // beats of this frame seen (saturates at HB)
  logic                  in_hdr;      // current beat carries header bytes
  logic                  completes;   // current beat ends the header
  logic                  core_ready, s_fire, stall, hdr_ready, hdr_short;
  logic [KEEP_W*8-1:0]   kbits;
  logic [HDR_BYTES*8-1:0] hdr_word;
  logic                  unused_cmd_ready, unused_done, unused_short;

  always_comb begin
    for (int i = 0; i < KEEP_W; i++) kbits[8*i +: 8] = {8{s_axis_tkeep[i]}};
    in_hdr    = bidx_q < BI_W'(HB);
    completes = in_hdr && (bidx_q == BI_W'(HB - 1) || s_axis_tlast);
    hmerge    = hbuf_q;
    for (int b = 0; b < HB; b++) begin
      if (BI_W'(b) == bidx_q) hmerge[b*DATA_W +: DATA_W] = s_axis_tdata & kbits;
      if (BI_W'(b) > bidx_q) hmerge[b*DATA_W +: DATA_W] = '0;
    end
    for (int i = 0; i < HDR_BYTES; i++) hdr_word[8*(HDR_BYTES-1-i) +: 8] = hmerge[8*i +: 8];
    // shorter than HDR_BYTES: the frame ends before the header's last beat, or on it
    // without the header's last byte (tkeep is contiguous)
    hdr_short = s_axis_tlast && !(bidx_q == BI_W'(HB - 1) && s_axis_tkeep[LASTLANE]);
  end

  // hdr_ready is the skid buffer's registered s_axis_tready
  assign stall         = completes && !hdr_ready;
  assign s_axis_tready = core_ready && !stall;
  assign s_fire        = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk) begin
    if (s_fire) begin
      if (in_hdr) hbuf_q <= hmerge;
      if (s_axis_tlast) bidx_q <= '0;
      else if (in_hdr) bidx_q <= bidx_q + 1'b1;
    end
    if (rst) begin
      bidx_q <= '0;
      hbuf_q <= '0;
    end
  end

  logic unused_hdr_keep, unused_hdr_last;
  fabnic_axis_register #(.DATA_W(HDR_BYTES * 8), .KEEP_W(1), .USER_W(1), .REG_TYPE(2)) u_hdr (
      .clk, .rst,
      .s_axis_tdata(hdr_word), .s_axis_tkeep(1'b1), .s_axis_tvalid(s_fire && completes),
      .s_axis_tready(hdr_ready), .s_axis_tlast(1'b1), .s_axis_tuser(hdr_short),
      .m_axis_tdata(m_hdr_tdata), .m_axis_tkeep(unused_hdr_keep), .m_axis_tvalid(m_hdr_tvalid),
      .m_axis_tready(m_hdr_tready), .m_axis_tlast(unused_hdr_last), .m_axis_tuser(m_hdr_short)
  );

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(LEN_W)) u_realign (
      .clk, .rst,
      .cmd_valid(1'b1), .cmd_ready(unused_cmd_ready),
      .cmd_off(LEN_W'(HDR_BYTES)), .cmd_len('0), .cmd_trim(1'b0), .cmd_chk(1'b1),
      .cmd_drop(1'b0), .cmd_bad(1'b0), .cmd_load(1'b0),
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tcnt('0), .s_axis_tvalid(s_axis_tvalid && !stall),
      .s_axis_tready(core_ready), .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
      .status_done(unused_done), .status_short(unused_short)
  );

endmodule

`resetall
