// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pkt_parser: Ethernet / 802.1Q / IPv4 or IPv6 / UDP header parser.
//
// Per frame: one fabnic_pkt_pkg::pkt_meta_t on m_meta_* (valid no later than the
// frame's first m_axis beat) and one frame on m_axis_*:
//   STRIP=1  the bytes after the last parsed header (UDP payload for UDP, IP payload
//            for other IP, the EtherType payload for non-IP), realigned to lane 0 and
//            cut at the IP length (Ethernet padding removed);
//   STRIP=0  the whole frame unchanged.
// Errors found in the headers are in meta.err and set tuser[0] on the frame's last
// beat; an IP length larger than the frame is only known at the frame's end unless
// the frame ended on the beat that completed the headers: then it is in meta.err,
// otherwise it sets tuser[0] on the last beat and is counted at that point (see
// docs/pkt.md). DROP_ERRORS=1 drops frames with any meta.err bit (no meta, no data).
//
// Structure: input beats go into a beat FIFO and, until the headers are complete, into
// a header window; a completed window is decoded (fabnic_pkt_hdr_decode) into a meta
// FIFO; fabnic_axis_realign pulls the frame from the beat FIFO with the command from
// the meta FIFO. Back-pressure only (no overflow drops). Latency: see docs/pkt.md.
`default_nettype none

module fabnic_pkt_parser #(
    parameter int DATA_W          = 64,
    parameter int KEEP_W          = DATA_W / 8,
    parameter bit STRIP           = 1'b1,
    parameter bit DROP_ERRORS     = 1'b0,
    parameter int DATA_FIFO_DEPTH = 32,   // beats, power of two
    parameter int META_DEPTH      = 8,    // frames, power of two
    parameter int CNT_W           = 32
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [DATA_W-1:0]         s_axis_tdata,
    input  wire logic [KEEP_W-1:0]         s_axis_tkeep,
    input  wire logic                      s_axis_tvalid,
    output logic                           s_axis_tready,
    input  wire logic                      s_axis_tlast,
    input  wire logic                      s_axis_tuser,

    output fabnic_pkt_pkg::pkt_meta_t      m_meta_data,
    output logic                           m_meta_valid,
    input  wire logic                      m_meta_ready,

    output logic      [DATA_W-1:0]         m_axis_tdata,
    output logic      [KEEP_W-1:0]         m_axis_tkeep,
    output logic                           m_axis_tvalid,
    input  wire logic                      m_axis_tready,
    output logic                           m_axis_tlast,
    output logic                           m_axis_tuser,

    output logic      [CNT_W-1:0]          cnt_frames_in,
    output logic      [CNT_W-1:0]          cnt_bytes_in,
    output logic      [CNT_W-1:0]          cnt_bad_in,      // input tuser[0] on the last beat
    output logic      [CNT_W-1:0]          cnt_frames_out,
    output logic      [CNT_W-1:0]          cnt_dropped,     // DROP_ERRORS drops
    output logic      [CNT_W-1:0]          cnt_non_ip,
    output logic      [CNT_W-1:0]          cnt_ip_frag,
    output logic      [CNT_W-1:0]          cnt_err_runt,
    output logic      [CNT_W-1:0]          cnt_err_ip_version,
    output logic      [CNT_W-1:0]          cnt_err_ipv4_ihl,
    output logic      [CNT_W-1:0]          cnt_err_ipv4_csum,
    output logic      [CNT_W-1:0]          cnt_err_ip_length,
    output logic      [CNT_W-1:0]          cnt_err_udp_length
);

  localparam int HBEATS = (88 + KEEP_W - 1) / KEEP_W;   // 18 + 60 + 8 header bytes max
  localparam int WIN    = HBEATS * KEEP_W;
  localparam int BI_W   = $clog2(HBEATS + 1);
  localparam int LEN_W  = 17;
  localparam int MA_W   = $clog2(META_DEPTH);
  localparam int NB_W   = $clog2(KEEP_W + 1);

  if (DATA_FIFO_DEPTH < HBEATS + 4) begin : g_check_fifo
    $error("fabnic_pkt_parser: DATA_FIFO_DEPTH must exceed the header beats + 4");
  end
  if ((1 << MA_W) != META_DEPTH || META_DEPTH < 4) begin : g_check_meta
    $error("fabnic_pkt_parser: META_DEPTH must be a power of two >= 4");
  end
  if (WIN > 255) begin : g_check_win
    $error("fabnic_pkt_parser: DATA_W too large for the 8-bit header window length");
  end

  typedef struct packed {
    fabnic_pkt_pkg::pkt_meta_t meta;
    logic [LEN_W-1:0] off;
    logic [LEN_W-1:0] len;
    logic             trim;
    logic             chk;
    logic             drop;
    logic             bad;
  } ment_t;

  // ---------------------------------------------------------------- input side
  logic               fifo_ready, meta_room, s_fire;
  logic [MA_W:0]      mcount_q;
  logic               p1_valid_q;

  assign meta_room     = (32'(mcount_q) + 32'(p1_valid_q)) < META_DEPTH;
  assign s_axis_tready = fifo_ready && meta_room;
  assign s_fire        = s_axis_tvalid && s_axis_tready;

  logic                 in_hdr_q;
  logic [BI_W-1:0]      bidx_q;
  logic [WIN*8-1:0]     hbuf_q, hv;
  logic [NB_W-1:0]      nbytes;
  logic [7:0]           cnt_after;
  logic [DATA_W-1:0]    kbits;
  fabnic_pkt_pkg::pkt_meta_t unused_meta_a;
  logic [7:0]           need_a;
  logic [16:0]          unused_ip_end_a;
  logic                 done;

  always_comb begin
    nbytes = '0;
    for (int i = 0; i < KEEP_W; i++) begin
      nbytes = nbytes + NB_W'(s_axis_tkeep[i]);
      kbits[8*i +: 8] = {8{s_axis_tkeep[i]}};
    end
    hv = hbuf_q;
    for (int b = 0; b < HBEATS; b++) begin
      if (BI_W'(b) == bidx_q) hv[b*DATA_W +: DATA_W] = s_axis_tdata & kbits;
      if (BI_W'(b) > bidx_q) hv[b*DATA_W +: DATA_W] = '0;
    end
    cnt_after = 8'(32'(bidx_q) * KEEP_W) + 8'(nbytes);
    done = in_hdr_q && (cnt_after >= need_a || s_axis_tlast);
  end

  fabnic_pkt_hdr_decode #(.WIN_BYTES(WIN)) u_need (
      .hdr(hv), .len(cnt_after), .ended(s_axis_tlast), .meta(unused_meta_a), .need(need_a),
      .ip_end(unused_ip_end_a)
  );

  logic [WIN*8-1:0] p1_hv_q;
  logic [7:0]       p1_len_q;
  logic             p1_ended_q;

  always_ff @(posedge clk) begin
    p1_valid_q <= 1'b0;
    if (s_fire) begin
      if (in_hdr_q) begin
        hbuf_q <= hv;
        bidx_q <= bidx_q + 1'b1;
      end
      if (done) begin
        p1_valid_q <= 1'b1;
        p1_hv_q    <= hv;
        p1_len_q   <= cnt_after;
        p1_ended_q <= s_axis_tlast;
        in_hdr_q   <= 1'b0;
        bidx_q     <= '0;
      end
      if (s_axis_tlast) begin
        in_hdr_q <= 1'b1;
        bidx_q   <= '0;
      end
    end
    if (rst) begin
      in_hdr_q   <= 1'b1;
      bidx_q     <= '0;
      p1_valid_q <= 1'b0;
      hbuf_q     <= '0;
    end
  end

  // ---------------------------------------------------------------- decode -> meta FIFO
  fabnic_pkt_pkg::pkt_meta_t meta_b;
  logic [7:0]  unused_need_b;
  logic [16:0] ip_end_b;
  ment_t       ment;
  logic        is_ip_b;

  fabnic_pkt_hdr_decode #(.WIN_BYTES(WIN)) u_decode (
      .hdr(p1_hv_q), .len(p1_len_q), .ended(p1_ended_q), .meta(meta_b), .need(unused_need_b),
      .ip_end(ip_end_b)
  );

  always_comb begin
    is_ip_b   = (meta_b.is_ipv4 || meta_b.is_ipv6) && !meta_b.err.runt;
    ment.meta = meta_b;
    ment.bad  = |meta_b.err;
    ment.drop = DROP_ERRORS && (|meta_b.err);
    ment.chk  = is_ip_b && !p1_ended_q && !meta_b.err.ip_length;
    if (STRIP) begin
      ment.off  = LEN_W'(meta_b.payload_offset);
      ment.len  = LEN_W'(meta_b.payload_len);
      ment.trim = is_ip_b;
    end else begin
      ment.off  = '0;
      ment.len  = ip_end_b;
      ment.trim = 1'b0;
    end
  end

  ment_t          mem_q [META_DEPTH];
  logic [MA_W:0]  mwr_q, mrd_q;
  logic           meta_sent_q, cmd_valid, cmd_ready, m_meta_fire;
  ment_t          head;

  assign head         = mem_q[mrd_q[MA_W-1:0]];
  assign m_meta_valid = (mcount_q != '0) && !meta_sent_q && !head.drop;
  assign m_meta_data  = head.meta;
  assign m_meta_fire  = m_meta_valid && m_meta_ready;
  assign cmd_valid    = (mcount_q != '0) && (head.drop || meta_sent_q || m_meta_fire);

  always_ff @(posedge clk) begin
    if (p1_valid_q) begin
      mem_q[mwr_q[MA_W-1:0]] <= ment;
      mwr_q <= mwr_q + 1'b1;
    end
    if (cmd_ready) mrd_q <= mrd_q + 1'b1;
    mcount_q <= mcount_q + (MA_W + 1)'(p1_valid_q) - (MA_W + 1)'(cmd_ready);
    meta_sent_q <= (meta_sent_q || m_meta_fire) && !cmd_ready;
    if (rst) begin
      mwr_q       <= '0;
      mrd_q       <= '0;
      mcount_q    <= '0;
      meta_sent_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- data path
  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic              f_tvalid, f_tready, f_tlast, f_tuser;
  logic [$clog2(DATA_FIFO_DEPTH):0] unused_depth;
  logic unused_good, unused_bad, unused_ovf, unused_ovs;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(DATA_FIFO_DEPTH))
  u_fifo (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(s_axis_tvalid && meta_room),
      .s_axis_tready(fifo_ready), .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
      .status_depth(unused_depth), .status_good_frame(unused_good),
      .status_bad_frame(unused_bad), .status_overflow(unused_ovf), .status_oversize(unused_ovs)
  );

  logic st_done, st_short;

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(LEN_W)) u_realign (
      .clk, .rst,
      .cmd_valid, .cmd_ready, .cmd_off(head.off), .cmd_len(head.len), .cmd_trim(head.trim),
      .cmd_chk(head.chk), .cmd_drop(head.drop), .cmd_bad(head.bad),
      .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(f_tvalid),
      .s_axis_tready(f_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser, .status_done(st_done), .status_short(st_short)
  );

  // ---------------------------------------------------------------- counters (wrap)
  fabnic_pkt_pkg::pkt_err_t e;
  assign e = ment.meta.err;

  always_ff @(posedge clk) begin
    if (s_fire) begin
      cnt_bytes_in <= cnt_bytes_in + CNT_W'(nbytes);
      if (s_axis_tlast) cnt_frames_in <= cnt_frames_in + 1'b1;
      if (s_axis_tlast && s_axis_tuser) cnt_bad_in <= cnt_bad_in + 1'b1;
    end
    if (m_axis_tvalid && m_axis_tready && m_axis_tlast) cnt_frames_out <= cnt_frames_out + 1'b1;
    if (p1_valid_q) begin
      cnt_dropped        <= cnt_dropped + CNT_W'(ment.drop);
      cnt_non_ip         <= cnt_non_ip + CNT_W'(!meta_b.is_ipv4 && !meta_b.is_ipv6 && !e.runt);
      cnt_ip_frag        <= cnt_ip_frag + CNT_W'(meta_b.ip_frag && !e.runt);
      cnt_err_runt       <= cnt_err_runt + CNT_W'(e.runt);
      cnt_err_ip_version <= cnt_err_ip_version + CNT_W'(e.ip_version);
      cnt_err_ipv4_ihl   <= cnt_err_ipv4_ihl + CNT_W'(e.ipv4_ihl);
      cnt_err_ipv4_csum  <= cnt_err_ipv4_csum + CNT_W'(e.ipv4_csum);
      cnt_err_udp_length <= cnt_err_udp_length + CNT_W'(e.udp_length);
    end
    cnt_err_ip_length <= cnt_err_ip_length + CNT_W'(p1_valid_q && e.ip_length)
                                           + CNT_W'(st_done && st_short);
    if (rst) begin
      cnt_frames_in      <= '0;
      cnt_bytes_in       <= '0;
      cnt_bad_in         <= '0;
      cnt_frames_out     <= '0;
      cnt_dropped        <= '0;
      cnt_non_ip         <= '0;
      cnt_ip_frag        <= '0;
      cnt_err_runt       <= '0;
      cnt_err_ip_version <= '0;
      cnt_err_ipv4_ihl   <= '0;
      cnt_err_ipv4_csum  <= '0;
      cnt_err_ip_length  <= '0;
      cnt_err_udp_length <= '0;
    end
  end

endmodule

`resetall
