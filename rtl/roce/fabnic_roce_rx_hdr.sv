// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_rx_hdr: RoCEv2 receive header decoder. Input: the UDP payload of a
// RoCEv2 packet (starting at the BTH, ICRC already checked; with TRAILER_BYTES=4 the
// ICRC is still there and removed here together with the pad). Output per
// packet: one decoded header record (fabnic_roce_pkg::roce_hdr_t) on m_hdr, and one
// payload frame on m_axis (realigned to lane 0, BTH pad bytes removed from the end)
// whose last beat carries the payload length on m_axis_plen.
//
// - The header is valid no later than the packet's first payload beat.
// - Errors (m_hdr err): RX_ERR_SHORT (packet ends inside the headers its opcode
//   needs), RX_ERR_TVER (BTH transport version != 0), RX_ERR_OPCODE (not an RC opcode
//   0x00-0x14, 0x16, 0x17, nor CNP 0x81). Such a packet's payload is drained: its
//   payload frame is one beat with tkeep=0, tlast=1, tuser[0]=1.
// - A pad count larger than the payload left after the headers: the payload frame is
//   empty (one tkeep=0 beat) with tuser[0]=1, counted in cnt_err_pad.
// - tuser[0] of the input's last beat reaches the payload's last beat.
// - SR = 1 (selective repeat, docs/roce_sr.md): the vendor SACK opcode 0xC0 is known
//   (AETH, then SACKETH bytes 0-15 in the reth field: va = {rsvd, base PSN, bitmap0
//   bits 63:32}, rkey = bitmap0 bits 31:0, dma_len = {count, base PSN 1}); and WRITE
//   MIDDLE/LAST(_IMM) carry a RETH when the destination QP is an SR QP: m_lk_qpn is
//   the packet's BTH destination QP (combinational, from the first beat) and s_lk_sr
//   must answer in the same cycle. SR = 0: standard IBTA layouts only.
// Back-pressure only (a header not taken stalls the input when the next header
// completes). Throughput: one input beat per cycle; at DATA_W=512 a packet that fits
// one beat passes in one cycle. Latency: 2 cycles on the payload path.
`default_nettype none

module fabnic_roce_rx_hdr #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int TRAILER_BYTES = 0,  // bytes after the pad to remove too (ICRC: 4)
    parameter int CNT_W  = 32,
    parameter bit SR     = 1'b0    // selective-repeat layouts (see above)
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    input  wire logic [DATA_W-1:0]          s_axis_tdata,
    input  wire logic [KEEP_W-1:0]          s_axis_tkeep,
    input  wire logic                       s_axis_tvalid,
    output logic                            s_axis_tready,
    input  wire logic                       s_axis_tlast,
    input  wire logic                       s_axis_tuser,

    output fabnic_roce_pkg::roce_hdr_t      m_hdr_data,
    output logic                            m_hdr_valid,
    input  wire logic                       m_hdr_ready,

    output logic      [DATA_W-1:0]          m_axis_tdata,
    output logic      [KEEP_W-1:0]          m_axis_tkeep,
    output logic                            m_axis_tvalid,
    input  wire logic                       m_axis_tready,
    output logic                            m_axis_tlast,
    output logic                            m_axis_tuser,
    output logic      [15:0]                m_axis_plen,   // payload bytes, on the last beat

    // SR = 1: per-QP layout lookup (destination QP of the first beat -> QP is SR)
    output logic      [23:0]                m_lk_qpn,
    input  wire logic                       s_lk_sr,

    output logic      [CNT_W-1:0]           cnt_pkts,
    output logic      [CNT_W-1:0]           cnt_err_short,
    output logic      [CNT_W-1:0]           cnt_err_tver,
    output logic      [CNT_W-1:0]           cnt_err_opcode,
    output logic      [CNT_W-1:0]           cnt_err_pad
);

  localparam int HB      = (fabnic_roce_pkg::MAX_HDR_BYTES + KEEP_W - 1) / KEEP_W;
  localparam int BI_W    = $clog2(HB + 1);
  localparam int HBYTES  = HB * KEEP_W;            // header window bytes
  localparam int BC_W    = $clog2(HBYTES + KEEP_W + 1);
  localparam int LEN_W   = 17;
  localparam int KC_W    = $clog2(KEEP_W + 1);
  localparam int NHB     = fabnic_roce_pkg::MAX_HDR_BYTES;
  localparam int EXB     = NHB - fabnic_pkt_pkg::BTH_BYTES;

  if (KEEP_W < 8 || KEEP_W * 8 != DATA_W) begin : g_check
    $error("fabnic_roce_rx_hdr: DATA_W must be 64 or more and KEEP_W = DATA_W/8");
  end

  function automatic logic [KC_W-1:0] popc(input logic [KEEP_W-1:0] k);
    logic [KC_W-1:0] c;
    c = '0;
    for (int i = 0; i < KEEP_W; i++) c = c + KC_W'(k[i]);
    return c;
  endfunction

  // ---------------------------------------------------------------- header window
  logic [HBYTES*8-1:0] hbuf_q, hmerge;     // lane order: byte i at [8*i +: 8]
  logic [BI_W-1:0]     bidx_q;
  logic [BC_W-1:0]     bcnt_q, bcnt;       // frame bytes seen (window part)
  logic [7:0]          op_q, op;
  logic                sr_q, sr_cur;
  logic                in_hdr, completes;
  logic [fabnic_roce_pkg::HLEN_W-1:0] need;
  logic                core_ready, s_fire, stall, pad_full;
  logic [KEEP_W*8-1:0] kbits;
  logic                first_beat;
  logic                done_q;             // this packet's header has been emitted

  always_comb begin
    for (int i = 0; i < KEEP_W; i++) kbits[8*i +: 8] = {8{s_axis_tkeep[i]}};
    first_beat = bidx_q == '0;
    in_hdr     = !done_q;
    op         = first_beat ? s_axis_tdata[7:0] : op_q;
    sr_cur     = SR && (first_beat ? s_lk_sr : sr_q);
    need       = fabnic_roce_pkg::hdr_len_lay(fabnic_roce_pkg::op_layout_sr(op, sr_cur, SR));
    bcnt       = bcnt_q + BC_W'(popc(s_axis_tkeep));
    completes  = in_hdr && (bcnt >= BC_W'(need) || s_axis_tlast);
    hmerge     = hbuf_q;
    for (int b = 0; b < HB; b++) begin
      if (BI_W'(b) == bidx_q) hmerge[b*DATA_W +: DATA_W] = s_axis_tdata & kbits;
      if (BI_W'(b) > bidx_q) hmerge[b*DATA_W +: DATA_W] = '0;
    end
  end

  // ---------------------------------------------------------------- decode
  logic [NHB*8-1:0]                net;   // network order: wire byte 0 = MSB
  fabnic_roce_pkg::roce_hdr_t      dec;
  fabnic_roce_pkg::op_layout_t     lay;
  logic                            bad_pkt;   // error known at the first beat

  function automatic logic [NHB*8-1:0] to_net(input logic [HBYTES*8-1:0] lanes);
    logic [NHB*8-1:0] v;
    for (int i = 0; i < NHB; i++) v[8*(NHB-1-i) +: 8] = lanes[8*i +: 8];
    return v;
  endfunction

  always_comb begin
    logic [EXB*8-1:0] ext;      // bytes after the BTH, network order
    net  = to_net(hmerge);
    ext  = net[EXB*8-1:0];
    lay  = fabnic_roce_pkg::op_layout_sr(op, sr_cur, SR);
    dec  = '0;
    dec.bth     = net[NHB*8-1 -: 96];
    dec.hdr_len = need;
    if (bcnt < BC_W'(fabnic_pkt_pkg::BTH_BYTES)) begin
      dec.err = fabnic_roce_pkg::RX_ERR_SHORT;
    end else if (dec.bth.tver != 4'd0) begin
      dec.err = fabnic_roce_pkg::RX_ERR_TVER;
    end else if (!lay.known) begin
      dec.err = fabnic_roce_pkg::RX_ERR_OPCODE;
    end else if (bcnt < BC_W'(need)) begin
      dec.err = fabnic_roce_pkg::RX_ERR_SHORT;
    end else begin
      dec.err = fabnic_roce_pkg::RX_ERR_NONE;
    end
    if (dec.err == fabnic_roce_pkg::RX_ERR_NONE) begin
      dec.has_reth           = lay.reth;
      dec.has_aeth           = lay.aeth;
      dec.has_immdt          = lay.immdt;
      dec.has_ieth           = lay.ieth;
      dec.has_atomic_eth     = lay.atomic_eth;
      dec.has_atomic_ack_eth = lay.atomic_ack_eth;
      dec.is_cnp             = lay.cnp;
      if (lay.reth)           dec.reth           = ext[EXB*8-1 -: 128];
      if (lay.sack)           dec.reth           = ext[EXB*8-1-32 -: 128];  // SACKETH 0-15
      if (lay.aeth)           dec.aeth           = ext[EXB*8-1 -: 32];
      if (lay.atomic_eth)     dec.atomic_eth     = ext[EXB*8-1 -: 224];
      if (lay.atomic_ack_eth) dec.atomic_ack_eth = ext[EXB*8-1-32 -: 64];  // after the AETH
      if (lay.ieth)           dec.ieth           = ext[EXB*8-1 -: 32];
      if (lay.immdt)          dec.immdt          = lay.reth ? ext[EXB*8-1-128 -: 32] : ext[EXB*8-1 -: 32];
    end
  end

  // Opcode/version errors are visible in the first beat (bytes 0 and 1).
  assign bad_pkt = s_axis_tdata[11:8] != 4'd0
                   || !fabnic_roce_pkg::op_layout_sr(s_axis_tdata[7:0], 1'b0, SR).known;
  assign m_lk_qpn = {s_axis_tdata[47:40], s_axis_tdata[55:48], s_axis_tdata[63:56]};

  // ---------------------------------------------------------------- header register
  assign stall  = completes && ((m_hdr_valid && !m_hdr_ready) || pad_full);
  assign s_axis_tready = core_ready && !stall;
  assign s_fire = s_axis_tvalid && s_axis_tready;

  logic pad_push;
  assign pad_push = s_fire && completes;

  always_ff @(posedge clk) begin
    if (m_hdr_ready) m_hdr_valid <= 1'b0;
    if (s_fire) begin
      if (in_hdr) hbuf_q <= hmerge;
      if (first_beat) op_q <= s_axis_tdata[7:0];
      if (first_beat) sr_q <= sr_cur;
      if (s_axis_tlast) begin
        bidx_q <= '0;
        bcnt_q <= '0;
        done_q <= 1'b0;
      end else begin
        if (in_hdr) begin
          bidx_q <= bidx_q + 1'b1;
          bcnt_q <= bcnt;
        end
        if (completes) done_q <= 1'b1;
      end
      if (completes) begin
        m_hdr_valid <= 1'b1;
        m_hdr_data  <= dec;
      end
    end
    if (rst) begin
      m_hdr_valid <= 1'b0;
      bidx_q      <= '0;
      bcnt_q      <= '0;
      done_q      <= 1'b0;
      hbuf_q      <= '0;
      op_q        <= '0;
      sr_q        <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- counters
  always_ff @(posedge clk) begin
    if (pad_push) begin
      cnt_pkts <= cnt_pkts + 1'b1;
      if (dec.err == fabnic_roce_pkg::RX_ERR_SHORT)  cnt_err_short  <= cnt_err_short + 1'b1;
      if (dec.err == fabnic_roce_pkg::RX_ERR_TVER)   cnt_err_tver   <= cnt_err_tver + 1'b1;
      if (dec.err == fabnic_roce_pkg::RX_ERR_OPCODE) cnt_err_opcode <= cnt_err_opcode + 1'b1;
    end
    if (rst) begin
      cnt_pkts       <= '0;
      cnt_err_short  <= '0;
      cnt_err_tver   <= '0;
      cnt_err_opcode <= '0;
    end
  end

  // ---------------------------------------------------------------- payload realign
  logic [DATA_W-1:0] r_tdata;
  logic [KEEP_W-1:0] r_tkeep;
  logic              r_tvalid, r_tready, r_tlast, r_tuser;
  logic              unused_cmd_ready, unused_done, unused_short;

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(LEN_W)) u_realign (
      .clk, .rst,
      .cmd_valid(1'b1), .cmd_ready(unused_cmd_ready),
      .cmd_off(bad_pkt ? {LEN_W{1'b1}} : LEN_W'(need)), .cmd_len('0), .cmd_trim(1'b0),
      .cmd_chk(1'b1), .cmd_drop(1'b0), .cmd_bad(bad_pkt),
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(s_axis_tvalid && !stall),
      .s_axis_tready(core_ready), .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata(r_tdata), .m_axis_tkeep(r_tkeep), .m_axis_tvalid(r_tvalid),
      .m_axis_tready(r_tready), .m_axis_tlast(r_tlast), .m_axis_tuser(r_tuser),
      .status_done(unused_done), .status_short(unused_short)
  );

  if (TRAILER_BYTES < 0 || TRAILER_BYTES > 4 || TRAILER_BYTES + 3 >= KEEP_W) begin : g_chk_trailer
    $error("fabnic_roce_rx_hdr: TRAILER_BYTES must be 0..4 and below KEEP_W-3");
  end

  // Pad count per packet (0 for packets with header errors), in packet order.
  logic [2:0] pad_head;
  logic       pad_valid, pad_pop, unused_pad_in_ready;
  logic [3:0] pad_count;

  // 8 entries: headers run ahead of their payloads by the realigner's latency (3
  // cycles) plus the held beat, so one-beat packets keep one per cycle
  fabnic_fifo #(.WIDTH(3), .DEPTH(8)) u_pad_fifo (
      .clk, .rst,
      .in_valid(pad_push), .in_ready(unused_pad_in_ready),
      .in_data(dec.err == fabnic_roce_pkg::RX_ERR_NONE
               ? 3'(dec.bth.pad_count) + 3'(TRAILER_BYTES) : 3'd0),
      .out_valid(pad_valid), .out_ready(pad_pop), .out_data(pad_head),
      .status_count(pad_count)
  );
  // Leave room for the entry taken this cycle (headers run ahead of payloads).
  assign pad_full = pad_count >= 4'd7;

  // ---------------------------------------------------------------- pad trimmer
  // One held beat (h_*). A beat is released when the next beat shows whether the pad
  // bytes reach into it; a last beat is trimmed by the pad count when it is taken.
  logic [DATA_W-1:0] h_data_q;
  logic [KEEP_W-1:0] h_keep_q;
  logic              h_valid_q, h_last_q, h_user_q;
  logic [15:0]       h_cnt_q;    // payload bytes of this packet before the held beat

  logic [KC_W-1:0]   rn;
  logic              absorb;     // incoming last beat holds only pad bytes (and more)
  logic              take, out_fire, pad_err;
  logic [KEEP_W-1:0] out_keep;
  logic [KEEP_W-1:0] in_keep_trim;

  always_comb begin
    rn       = popc(r_tkeep);
    absorb   = r_tvalid && r_tlast && h_valid_q && !h_last_q && rn <= KC_W'(pad_head);
    // trimming of the held beat when the pad reaches into it
    out_keep = h_keep_q;
    if (absorb) out_keep = h_keep_q >> (KC_W'(pad_head) - rn);
    m_axis_tvalid = h_valid_q && (h_last_q || (r_tvalid && pad_valid));
    m_axis_tdata  = h_data_q;
    m_axis_tkeep  = out_keep;
    m_axis_tlast  = h_last_q || absorb;
    m_axis_tuser  = h_last_q ? h_user_q : r_tuser;
    out_fire      = m_axis_tvalid && m_axis_tready;
    // incoming beat goes into the holding register when it is empty or leaving
    take     = r_tvalid && pad_valid && (!h_valid_q || out_fire);
    r_tready = take;
    pad_err  = r_tlast && (!h_valid_q || h_last_q) && rn < KC_W'(pad_head);
    in_keep_trim = r_tkeep;
    if (r_tlast) in_keep_trim = pad_err ? '0 : r_tkeep >> pad_head;
    pad_pop  = take && r_tlast;
  end

  logic [15:0] plen_acc;
  always_comb begin
    plen_acc = h_cnt_q;
    for (int i = 0; i < KEEP_W; i++) plen_acc = plen_acc + 16'(out_keep[i]);
  end
  assign m_axis_plen = plen_acc;

  always_ff @(posedge clk) begin
    if (out_fire) begin
      h_valid_q <= 1'b0;
      h_cnt_q   <= m_axis_tlast ? 16'd0 : plen_acc;
    end
    if (take && !absorb) begin
      h_valid_q <= 1'b1;
      h_data_q  <= r_tdata;
      h_keep_q  <= in_keep_trim;
      h_last_q  <= r_tlast;
      h_user_q  <= r_tuser || pad_err;
    end
    if (rst) begin
      h_valid_q <= 1'b0;
      h_last_q  <= 1'b0;
      h_user_q  <= 1'b0;
      h_cnt_q   <= '0;
    end
  end

  always_ff @(posedge clk) begin
    if (take && pad_err) cnt_err_pad <= cnt_err_pad + 1'b1;
    if (rst) cnt_err_pad <= '0;
  end

endmodule

`resetall
