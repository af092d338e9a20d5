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
//   MIDDLE/LAST(_IMM) carry a RETH when the destination QP is an SR QP. The lookup is
//   registered outside: m_lk_qpn is the BTH destination QP of the input beat (s_axis,
//   combinational), and s_lk_sr must be, in the next cycle, the SR bit of the QP
//   m_lk_qpn named (a flop of the lookup, every cycle). SR = 0: standard IBTA layouts
//   only, s_lk_sr unused.
//
// Structure (decide in one stage, act in the next):
//   input   a two-entry spill register (main + spill): s_axis_tready is a flop (the
//           spill entry is empty), so no path runs from m_hdr_ready or m_axis_tready to
//           s_axis_tready. Each beat is stored with what the header stage needs from
//           its first beat, decoded on the way in: the opcode's layouts and header
//           lengths for both SR settings, the pad-plus-trailer total for both, the
//           version/opcode error, and the beat's byte count.
//   header  on the main entry: the header window collects the beats that carry the
//           headers (HB beats), the record is decoded and registered in m_hdr; the
//           beat goes on into the realigner with the header length as its command.
//           The QP's SR bit is applied here (one 2:1 select of the stored layouts).
//           At the packet's last beat the payload length (bytes seen minus headers,
//           pad and trailer; negative = pad error) is pushed into a FIFO.
//   trim    the realigned payload passes one holding register; with the payload
//           length known from the FIFO, the held beat's keep, its tlast and m_axis_plen
//           come from a registered byte count, and a last beat holding only pad and
//           trailer bytes is absorbed.
// Throughput: one input beat per cycle; at DATA_W=512 a packet that fits one beat
// passes in one cycle. Latency: 3 cycles on the payload path (spill register,
// realigner, holding register).
// Combinational paths across the boundary: none from a valid/ready input to a
// valid/ready output; s_axis_tdata -> m_lk_qpn (wires).
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

    // SR = 1: per-QP layout lookup, registered outside (see above)
    output logic      [23:0]                m_lk_qpn,
    input  wire logic                       s_lk_sr,

    output logic      [CNT_W-1:0]           cnt_pkts,
    output logic      [CNT_W-1:0]           cnt_err_short,
    output logic      [CNT_W-1:0]           cnt_err_tver,
    output logic      [CNT_W-1:0]           cnt_err_opcode,
    output logic      [CNT_W-1:0]           cnt_err_pad
);
  import fabnic_roce_pkg::*;

  localparam int HB      = (MAX_HDR_BYTES + KEEP_W - 1) / KEEP_W;
  localparam int BI_W    = $clog2(HB + 1);
  localparam int HBYTES  = HB * KEEP_W;            // header window bytes
  localparam int LEN_W   = 17;
  localparam int KC_W    = $clog2(KEEP_W + 1);
  localparam int NHB     = MAX_HDR_BYTES;
  localparam int EXB     = NHB - fabnic_pkt_pkg::BTH_BYTES;
  localparam int PL_W    = 17;
  localparam int CMP_W   = (KC_W > HLEN_W + 1) ? KC_W : HLEN_W + 1;                     // payload length, signed (pad error < 0)

  if (KEEP_W < 8 || KEEP_W * 8 != DATA_W) begin : g_check
    $error("fabnic_roce_rx_hdr: DATA_W must be 64 or more and KEEP_W = DATA_W/8");
  end
  if (TRAILER_BYTES < 0 || TRAILER_BYTES > 4 || TRAILER_BYTES + 3 >= KEEP_W) begin : g_chk_trailer
    $error("fabnic_roce_rx_hdr: TRAILER_BYTES must be 0..4 and below KEEP_W-3");
  end

  function automatic logic [KC_W-1:0] popc(input logic [KEEP_W-1:0] k);
    logic [KC_W-1:0] c;
    c = '0;
    for (int i = 0; i < KEEP_W; i++) c = c + KC_W'(k[i]);
    return c;
  endfunction

  // lanes below n: the keep of a beat holding the first n bytes (n <= KEEP_W)
  function automatic logic [KEEP_W-1:0] therm(input logic [KC_W-1:0] n);
    logic [KEEP_W-1:0] k;
    for (int i = 0; i < KEEP_W; i++) k[i] = KC_W'(i) < n;
    return k;
  endfunction

  // ---------------------------------------------------------------- input spill register
  // One entry: the beat and what its first beat decodes to (both SR settings).
  typedef struct packed {
    logic [DATA_W-1:0] data;
    logic [KEEP_W-1:0] keep;
    logic              last;
    logic              user;
    logic [KC_W-1:0]   kc;        // bytes in the beat
    op_layout_t        lay0, lay1;
    logic [HLEN_W-1:0] need0, need1;
    logic [HLEN_W:0]   sub0, sub1;  // need + pad count + TRAILER_BYTES
    logic              bad;       // version or opcode error (first beat)
    logic              c0, c1;    // first beat: holds the whole header (kc >= need)
    logic              sbth;      // first beat: shorter than a BTH
    logic              tver;      // first beat: BTH version != 0
  } ent_t;

  ent_t        in_ent, main_q, spill_q;
  logic        main_v, spill_v, in_fire, main_fire;
  logic        main_fresh, spill_fresh;   // loaded from the input last cycle
  logic        main_sr_q, spill_sr_q;     // SR bit of the entry (first beats)

  always_comb begin
    logic [7:0] op;
    op = s_axis_tdata[7:0];
    in_ent       = '0;
    in_ent.data  = s_axis_tdata;
    in_ent.keep  = s_axis_tkeep;
    in_ent.last  = s_axis_tlast;
    in_ent.user  = s_axis_tuser;
    in_ent.kc    = popc(s_axis_tkeep);
    in_ent.lay0  = op_layout_sr(op, 1'b0, SR);
    in_ent.lay1  = op_layout_sr(op, SR, SR);
    in_ent.need0 = hdr_len_lay(in_ent.lay0);
    in_ent.need1 = hdr_len_lay(in_ent.lay1);
    in_ent.sub0  = (HLEN_W+1)'(in_ent.need0) + (HLEN_W+1)'(s_axis_tdata[13:12])
                   + (HLEN_W+1)'(TRAILER_BYTES);
    in_ent.sub1  = (HLEN_W+1)'(in_ent.need1) + (HLEN_W+1)'(s_axis_tdata[13:12])
                   + (HLEN_W+1)'(TRAILER_BYTES);
    in_ent.bad   = s_axis_tdata[11:8] != 4'd0 || !op_layout_sr(op, 1'b0, SR).known;
    in_ent.c0    = CMP_W'(in_ent.kc) >= CMP_W'(in_ent.need0);
    in_ent.c1    = CMP_W'(in_ent.kc) >= CMP_W'(in_ent.need1);
    in_ent.sbth  = CMP_W'(in_ent.kc) < CMP_W'(fabnic_pkt_pkg::BTH_BYTES);
    in_ent.tver  = s_axis_tdata[11:8] != 4'd0;
  end
  assign m_lk_qpn      = {s_axis_tdata[47:40], s_axis_tdata[55:48], s_axis_tdata[63:56]};
  assign s_axis_tready = !spill_v;
  assign in_fire       = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk) begin
    main_fresh  <= 1'b0;
    spill_fresh <= 1'b0;
    if (spill_fresh) spill_sr_q <= s_lk_sr;
    if (main_fresh)  main_sr_q  <= s_lk_sr;
    if (main_fire) begin
      if (spill_v) begin
        main_q     <= spill_q;
        main_sr_q  <= spill_fresh ? s_lk_sr : spill_sr_q;
        spill_v    <= 1'b0;
      end else begin
        main_v <= 1'b0;
      end
    end
    if (in_fire) begin
      if (!main_v || (main_fire && !spill_v)) begin
        main_q     <= in_ent;
        main_v     <= 1'b1;
        main_fresh <= 1'b1;
      end else begin
        spill_q     <= in_ent;
        spill_v     <= 1'b1;
        spill_fresh <= 1'b1;
      end
    end
    if (rst) begin
      main_v     <= 1'b0;
      spill_v    <= 1'b0;
      main_fresh <= 1'b0;
      spill_fresh <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- header window (main)
  logic [HBYTES*8-1:0] hbuf_q, hmerge;     // lane order: byte i at [8*i +: 8]
  logic [BI_W-1:0]     bidx_q;
  logic [HLEN_W:0]     rneed_q, rneed;     // header bytes still missing (later beats)
  logic [HLEN_W:0]     rbth_q, rbth;       // BTH bytes still missing (later beats)
  logic                tver_q, short_need, short_bth, tver_cur;
  logic [15:0]         tot_q, tot;         // frame bytes seen
  logic                sr_q, sr_cur, first_beat, in_hdr, completes, done_q;
  logic                core_ready, stall, bad_q, bad_cur;
  op_layout_t          lay_q, lay;
  logic [HLEN_W-1:0]   need_q, need;
  logic [HLEN_W:0]     sub_q, sub;
  logic [KEEP_W*8-1:0] kbits;

  always_comb begin
    for (int i = 0; i < KEEP_W; i++) kbits[8*i +: 8] = {8{main_q.keep[i]}};
    first_beat = bidx_q == '0;
    in_hdr     = !done_q;
    sr_cur     = SR && (main_fresh ? s_lk_sr : main_sr_q);
    lay        = first_beat ? (sr_cur ? main_q.lay1 : main_q.lay0) : lay_q;
    need       = first_beat ? (sr_cur ? main_q.need1 : main_q.need0) : need_q;
    sub        = first_beat ? (sr_cur ? main_q.sub1 : main_q.sub0) : sub_q;
    bad_cur    = first_beat ? main_q.bad : bad_q;
    tot        = tot_q + 16'(main_q.kc);
    // decided from the first beat's precomputed compares, or from the bytes still
    // missing against this beat's count
    short_need = first_beat ? !(sr_cur ? main_q.c1 : main_q.c0)
                            : CMP_W'(main_q.kc) < CMP_W'(rneed_q);
    short_bth  = first_beat ? main_q.sbth : CMP_W'(main_q.kc) < CMP_W'(rbth_q);
    tver_cur   = first_beat ? main_q.tver : tver_q;
    rneed      = (first_beat ? (HLEN_W+1)'(need) : rneed_q) - (HLEN_W+1)'(main_q.kc);
    rbth       = (first_beat ? (HLEN_W+1)'(fabnic_pkt_pkg::BTH_BYTES) : rbth_q)
                 - (HLEN_W+1)'(main_q.kc);
    completes  = in_hdr && (!short_need || main_q.last);
    hmerge     = hbuf_q;
    for (int b = 0; b < HB; b++) begin
      if (BI_W'(b) == bidx_q) hmerge[b*DATA_W +: DATA_W] = main_q.data & kbits;
      if (BI_W'(b) > bidx_q) hmerge[b*DATA_W +: DATA_W] = '0;
    end
  end

  // ---------------------------------------------------------------- decode
  logic [NHB*8-1:0] net;   // network order: wire byte 0 = MSB
  roce_hdr_t        dec;

  function automatic logic [NHB*8-1:0] to_net(input logic [HBYTES*8-1:0] lanes);
    logic [NHB*8-1:0] v;
    for (int i = 0; i < NHB; i++) v[8*(NHB-1-i) +: 8] = lanes[8*i +: 8];
    return v;
  endfunction

  always_comb begin
    logic [EXB*8-1:0] ext;      // bytes after the BTH, network order
    logic             ok;
    net  = to_net(hmerge);
    ext  = net[EXB*8-1:0];
    dec  = '0;
    dec.bth     = net[NHB*8-1 -: 96];
    dec.hdr_len = need;
    if (short_bth) begin
      dec.err = RX_ERR_SHORT;
    end else if (tver_cur) begin
      dec.err = RX_ERR_TVER;
    end else if (!lay.known) begin
      dec.err = RX_ERR_OPCODE;
    end else if (short_need) begin
      dec.err = RX_ERR_SHORT;
    end else begin
      dec.err = RX_ERR_NONE;
    end
    ok = dec.err == RX_ERR_NONE;
    dec.has_reth           = ok && lay.reth;
    dec.has_aeth           = ok && lay.aeth;
    dec.has_immdt          = ok && lay.immdt;
    dec.has_ieth           = ok && lay.ieth;
    dec.has_atomic_eth     = ok && lay.atomic_eth;
    dec.has_atomic_ack_eth = ok && lay.atomic_ack_eth;
    dec.is_cnp             = ok && lay.cnp;
    if (ok && lay.reth)           dec.reth           = ext[EXB*8-1 -: 128];
    if (ok && lay.sack)           dec.reth           = ext[EXB*8-1-32 -: 128];  // SACKETH 0-15
    if (ok && lay.aeth)           dec.aeth           = ext[EXB*8-1 -: 32];
    if (ok && lay.atomic_eth)     dec.atomic_eth     = ext[EXB*8-1 -: 224];
    if (ok && lay.atomic_ack_eth) dec.atomic_ack_eth = ext[EXB*8-1-32 -: 64];  // after the AETH
    if (ok && lay.ieth)           dec.ieth           = ext[EXB*8-1 -: 32];
    if (ok && lay.immdt)          dec.immdt          = lay.reth ? ext[EXB*8-1-128 -: 32]
                                                                : ext[EXB*8-1 -: 32];
  end

  // ---------------------------------------------------------------- header register
  logic pl_full, pl_push, pl_err_d, hdr_err_q;
  logic [PL_W-1:0] pl_d;
  // The header output is a two-entry spill register (m_hdr_* and hs_*): a header-phase
  // beat waits while the spare entry is taken, a flop, so m_hdr_ready reaches only the
  // entries' registers (conservative for a beat that would not complete its header;
  // at DATA_W 512 every first beat completes it anyway).
  roce_hdr_t hs_q;
  logic      hs_v;
  assign stall     = (in_hdr && hs_v) || (main_q.last && pl_full);
  assign main_fire = main_v && core_ready && !stall;
  assign pl_push   = main_fire && main_q.last;

  always_ff @(posedge clk) begin
    if (m_hdr_ready) begin
      m_hdr_valid <= hs_v;
      m_hdr_data  <= hs_q;
      hs_v        <= 1'b0;
    end
    if (main_fire && completes) begin
      if (!m_hdr_valid || (m_hdr_ready && !hs_v)) begin
        m_hdr_valid <= 1'b1;
        m_hdr_data  <= dec;
      end else begin
        hs_v <= 1'b1;
        hs_q <= dec;
      end
    end
    if (main_fire) begin
      if (in_hdr) hbuf_q <= hmerge;
      if (first_beat) begin
        sr_q   <= sr_cur;
        lay_q  <= lay;
        need_q <= need;
        sub_q  <= sub;
        bad_q  <= main_q.bad;
        tver_q <= main_q.tver;
      end
      if (completes) hdr_err_q <= dec.err != RX_ERR_NONE;
      if (main_q.last) begin
        bidx_q <= '0;
        tot_q  <= '0;
        done_q <= 1'b0;
      end else begin
        tot_q <= tot;
        if (in_hdr) begin
          bidx_q  <= bidx_q + 1'b1;
          rneed_q <= rneed;
          rbth_q  <= rbth[HLEN_W] ? '0 : rbth;
        end
        if (completes) done_q <= 1'b1;
      end
    end
    if (rst) begin
      m_hdr_valid <= 1'b0;
      hs_v        <= 1'b0;
      bidx_q      <= '0;
      rneed_q     <= '0;
      rbth_q      <= '0;
      tot_q       <= '0;
      done_q      <= 1'b0;
      hbuf_q      <= '0;
      sr_q        <= 1'b0;
      hdr_err_q   <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- counters
  always_ff @(posedge clk) begin
    if (main_fire && completes) begin
      cnt_pkts <= cnt_pkts + 1'b1;
      if (dec.err == RX_ERR_SHORT)  cnt_err_short  <= cnt_err_short + 1'b1;
      if (dec.err == RX_ERR_TVER)   cnt_err_tver   <= cnt_err_tver + 1'b1;
      if (dec.err == RX_ERR_OPCODE) cnt_err_opcode <= cnt_err_opcode + 1'b1;
    end
    if (rst) begin
      cnt_pkts       <= '0;
      cnt_err_short  <= '0;
      cnt_err_tver   <= '0;
      cnt_err_opcode <= '0;
    end
  end

  // ---------------------------------------------------------------- payload length
  // At the last beat: bytes of the frame minus headers, pad and trailer. A header error
  // (this beat's, or an earlier beat's) gives 0; a negative length is the pad error.
  logic hdr_err_now;
  assign hdr_err_now = completes ? dec.err != RX_ERR_NONE : hdr_err_q;
  always_comb begin
    pl_d     = PL_W'(tot) - PL_W'(sub);
    pl_err_d = !hdr_err_now && pl_d[PL_W-1];
  end

  // The queue's head is a register (pl_valid, pl_head: flops for the trimmer); a
  // length goes straight into it when the FIFO behind it is empty.
  logic [15:0] pl_head, f_len;
  logic        pl_valid, pl_pop, pl_head_err, f_err, f_valid, f_pop, f_push, unused_f_ready;
  logic        head_free, head_from_in;
  logic        pl_bad_d;
  assign pl_bad_d = hdr_err_now || pl_d[PL_W-1];
  logic [3:0]  f_count;
  assign head_free    = !pl_valid || pl_pop;
  assign head_from_in = pl_push && !f_valid && head_free;
  assign f_push       = pl_push && !head_from_in;
  assign f_pop        = f_valid && head_free;
  // 8 entries behind the head: lengths run ahead of their payloads by the realigner's
  // and the holding register's latency, so one-beat packets keep one per cycle
  fabnic_fifo #(.WIDTH(17), .DEPTH(8)) u_pl_fifo (
      .clk, .rst,
      .in_valid(f_push), .in_ready(unused_f_ready), .in_data({pl_bad_d, pl_d[15:0]}),
      .out_valid(f_valid), .out_ready(f_pop), .out_data({f_err, f_len}),
      .status_count(f_count)
  );
  // from the head (registers): the last payload beat's keep (the length mod KEEP_W,
  // 0 = full), its index ((length - 1) / KEEP_W) and whether the payload is empty (or
  // the packet bad: no payload)
  logic [KEEP_W-1:0]          pl_keep;
  logic [15-$clog2(KEEP_W):0] pl_lastbi;
  logic                       pl_zero;
  logic [15:0]                pl_nxt;
  assign pl_nxt = f_pop ? f_len : pl_d[15:0];
  always_comb begin
    pl_keep   = therm(KC_W'(pl_head[$clog2(KEEP_W)-1:0]) == '0 ? KC_W'(KEEP_W)
                                                                : KC_W'(pl_head[$clog2(KEEP_W)-1:0]));
    pl_lastbi = (16 - $clog2(KEEP_W))'((pl_head - 16'd1) >> $clog2(KEEP_W));
    pl_zero   = pl_head_err || pl_head == '0;
  end
  always_ff @(posedge clk) begin
    if (pl_pop) pl_valid <= 1'b0;
    if (f_pop || head_from_in) begin
      pl_valid    <= 1'b1;
      pl_head     <= pl_nxt;
      pl_head_err <= f_pop ? f_err : pl_bad_d;
    end
    // registered from last cycle's count: at most one push a cycle, so 6 leaves room
    // for the push of this cycle and the next
    pl_full <= f_count >= 4'd6;
    if (rst) begin
      pl_valid <= 1'b0;
      pl_full  <= 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (pl_push && pl_err_d) cnt_err_pad <= cnt_err_pad + 1'b1;
    if (rst) cnt_err_pad <= '0;
  end

  // ---------------------------------------------------------------- payload realign
  logic [DATA_W-1:0] r_tdata;
  logic [KEEP_W-1:0] r_tkeep;
  logic              r_tvalid, r_tready, r_tlast, r_tuser;
  logic              unused_cmd_ready, unused_done, unused_short;
  logic              unused_bad;

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(LEN_W), .CNT_IN(1'b1))
      u_realign (
      .clk, .rst,
      .cmd_valid(1'b1), .cmd_ready(unused_cmd_ready),
      .cmd_off(bad_cur ? {LEN_W{1'b1}} : LEN_W'(need)), .cmd_len('0), .cmd_trim(1'b0),
      .cmd_chk(1'b0), .cmd_drop(1'b0), .cmd_bad(1'b0), .cmd_load(1'b0),
      .s_axis_tdata(main_q.data), .s_axis_tkeep(main_q.keep), .s_axis_tcnt(main_q.kc),
      .s_axis_tvalid(main_v && !stall), .s_axis_tready(core_ready),
      .s_axis_tlast(main_q.last), .s_axis_tuser(main_q.user),
      .m_axis_tdata(r_tdata), .m_axis_tkeep(r_tkeep), .m_axis_tvalid(r_tvalid),
      .m_axis_tready(r_tready), .m_axis_tlast(r_tlast), .m_axis_tuser(r_tuser),
      .status_done(unused_done), .status_short(unused_short)
  );
  assign unused_bad = ^{r_tkeep, sr_q};

  // ---------------------------------------------------------------- pad trimmer
  // One held beat (h_*). Realigned beats are full except a frame's last, and at most
  // pad + trailer (< KEEP_W) bytes follow the payload, so only the beat before the
  // realigned last beat can be the payload's last. bi_q counts the (full) payload
  // beats before the held beat. A held beat leaves full when the next beat is not the
  // frame's last. At the frame's last beat (its length then at the queue head): when
  // the held beat is the payload's last beat (bi_q = the length's last beat index) it
  // leaves as the last, trimmed, and the frame's last beat (pad and trailer only) is
  // absorbed; otherwise the last beat enters trimmed. The trim keep depends on the
  // length only (payload beats before it are full): pl_keep, registered with the head.
  localparam int BIX_W = 16 - $clog2(KEEP_W);
  logic [DATA_W-1:0] h_data_q;
  logic [KEEP_W-1:0] h_keep_q;
  logic              h_valid_q, h_last_q, h_user_q;
  logic [15:0]       h_plen_q;
  logic [BIX_W-1:0]  bi_q;
  logic              absorb, take, out_fire, r_end_ok;
  logic [KEEP_W-1:0] out_keep;

  always_comb begin
    r_end_ok = r_tvalid && (!r_tlast || pl_valid);
    absorb   = r_end_ok && r_tlast && h_valid_q && !h_last_q && !pl_zero
               && bi_q == pl_lastbi;
    out_keep = absorb ? pl_keep : h_keep_q;
    m_axis_tvalid = h_valid_q && (h_last_q || r_end_ok);
    m_axis_tdata  = h_data_q;
    m_axis_tkeep  = out_keep;
    m_axis_tlast  = h_last_q || absorb;
    m_axis_tuser  = h_last_q ? h_user_q : r_tuser || pl_head_err;
    m_axis_plen   = h_last_q ? h_plen_q : pl_zero ? 16'd0 : pl_head;
    out_fire      = m_axis_tvalid && m_axis_tready;
    take          = r_end_ok && (!h_valid_q || out_fire);
    r_tready      = take;
    pl_pop        = take && r_tlast;
  end

  always_ff @(posedge clk) begin
    if (out_fire) begin
      h_valid_q <= 1'b0;
      bi_q      <= m_axis_tlast ? '0 : bi_q + 1'b1;
    end
    if (take && !absorb) begin
      h_valid_q <= 1'b1;
      h_data_q  <= r_tdata;
      h_keep_q  <= !r_tlast ? '1 : pl_zero ? '0 : pl_keep;
      h_last_q  <= r_tlast;
      h_user_q  <= r_tuser || (r_tlast && pl_head_err);
      h_plen_q  <= pl_zero ? 16'd0 : pl_head;
    end
    if (rst) begin
      h_valid_q <= 1'b0;
      h_last_q  <= 1'b0;
      h_user_q  <= 1'b0;
      bi_q      <= '0;
    end
  end

endmodule

`resetall
