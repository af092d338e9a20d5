// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fec_tx: packet-level FEC on the transmit side of a RoCE port
// (between fabnic_roce_core's frame output and the MAC). docs/fec.md, "Port shim".
//
// Every frame is classified on its first beat. A *protected* frame is an IPv4
// RoCEv2 frame (UDP 4791, IHL 5) carrying an RC request or READ response
// (opcodes 0x00-0x10, 0x13, 0x14; not ACK/atomic ACK/CNP), no longer than
// MAX_LEN bytes, with FEC on (cfg_mode 1: all such frames; 2: only frames whose
// BTH DestQP has its bit set in the per-QP enable table). The whole frame (as the
// transport built it, ICRC included) is one FEC data symbol string:
// - it goes through fabnic_fec_enc (group/index assignment, repair accumulation)
//   and leaves unchanged followed by an 8-byte FEC data trailer after the IP
//   datagram (Ethernet trailer bytes: IP/UDP lengths and the ICRC are untouched,
//   so a standard receiver ignores them);
// - the repairs of each group leave as RoCEv2 frames with the vendor BTH opcode
//   0xF0 (FEC_REPAIR), addressed like the last protected frame (same MACs, IPs,
//   UDP source port, DestQP, so they follow the same path), PSN = group id,
//   payload = the repair symbols padded to 4 bytes, ICRC, then a 12-byte repair
//   trailer.
// Trailers (byte 0 first on the wire):
//   data:   FE 01 gid[15:8] gid[7:0] idx cnt seq[15:8] seq[7:0]
//   repair: FE 02 gid[15:8] gid[7:0] row cnt clen[15:8] clen[7:0]
//           fseq[15:8] fseq[7:0] D R
// seq numbers the protected frames of this port (16 bit, wraps); fseq is the seq
// of the group's first data frame, so the receiver can number a recovered frame
// seq = fseq + idx * D. Other frames pass unchanged.
// Selective retransmission: the last NRTX protected frames stay in a buffer; a
// NAK frame (BTH opcode 0xF1, PSN = first seq, payload and 12-byte trailer
//   FE 03 seq[15:8] seq[7:0] map[31:24] .. map[7:0] 00 00 00 00
// with map bit i = seq + i missing) from the peer's receiver makes this block
// resend those frames unchanged (same trailer). NAKs this port's receiver asks
// for (s_nak_*) leave through the repair framer with opcode 0xF1.
// A block is flushed (closed early, its repairs sent) when no protected frame
// has arrived for cfg_flush_cycles cycles (0 = never), so a message's tail is
// protected too. K/R/D/mode changes take effect at the next block; change them
// only while no FEC traffic flows.
// Throughput: one beat per cycle for data frames; repair frames share the output
// with them (frame-granular round robin). DATA_W must be 512 (headers are read
// from the first beat).
`default_nettype none

module fabnic_fec_tx #(
    parameter int DATA_W    = 512,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int MAX_K     = 32,
    parameter int MAX_R     = 4,
    parameter int MAX_D     = 4,
    parameter int MAX_LEN   = 8192,  // protected frame bytes, power of two
    parameter int NUM_QP    = 1024,  // entries of the per-QP enable table
    parameter int OUT_DEPTH = 16,
    parameter int NRTX      = 64,    // retransmit buffer: last NRTX protected frames
    parameter int QPN_W     = (NUM_QP > 1) ? $clog2(NUM_QP) : 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [1:0]        cfg_mode,        // 0 off, 1 all RC data frames, 2 per QP
    input  wire logic [7:0]        cfg_k,
    input  wire logic [7:0]        cfg_r,
    input  wire logic [7:0]        cfg_d,
    input  wire logic [15:0]       cfg_flush_cycles,
    input  wire logic              cfg_qp_we,       // per-QP enable table write
    input  wire logic [QPN_W-1:0]  cfg_qp_idx,      // (indexed by the BTH DestQP)
    input  wire logic              cfg_qp_val,

    // selective retransmission: NAK to send for this port's receiver (fabnic_fec_rx) ...
    input  wire logic              s_nak_valid,
    output logic                   s_nak_ready,
    input  wire logic [15:0]       s_nak_seq,
    input  wire logic [31:0]       s_nak_map,
    // ... and the peer's NAKs: resend seq + i for every bit i set
    input  wire logic              rtx_req_valid,
    input  wire logic [15:0]       rtx_req_seq,
    input  wire logic [31:0]       rtx_req_map,

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

    output logic [31:0]            stat_prot_frames,    // data frames protected
    output logic [31:0]            stat_bypass_frames,  // frames passed without FEC
    output logic [31:0]            stat_repair_frames,  // repair frames sent
    output logic [31:0]            stat_flushes,        // blocks closed by the idle timer
    output logic [31:0]            stat_oversize,       // encoder: poisoned groups' packets
    output logic [31:0]            stat_stall_cycles,   // encoder back-pressure cycles
    output logic [31:0]            stat_rtx_frames,     // frames resent on a NAK
    output logic [31:0]            stat_rtx_miss        // NAKed seqs no longer buffered
);

  typedef fabnic_fec_pkg::fec_meta_t meta_t;
  localparam int META_W = fabnic_fec_pkg::META_W;
  localparam int HDR_B  = 54;           // Ethernet + IPv4 + UDP + BTH
  localparam int TR_B   = 12;           // longest trailer
  localparam int TUW    = TR_B * 8 + 4 + 1;
  localparam int FT     = 4 * MAX_D;    // first-seq table entries (two blocks of gids)
  localparam int FT_W   = $clog2(FT);

  if (DATA_W != 512) begin : g_chk_w
    $error("fabnic_fec_tx: DATA_W must be 512");
  end
  if ((1 << FT_W) != FT) begin : g_chk_ft
    $error("fabnic_fec_tx: MAX_D must be a power of two");
  end

  function automatic logic [7:0] clamp(input logic [7:0] v, input int mx);
    if (v == 8'd0) return 8'd1;
    if (32'(v) > mx) return 8'(mx);
    return v;
  endfunction

  // ------------------------------------------------------------ classify
  logic [7:0]  b [HDR_B];
  logic [15:0] iplen;
  logic [7:0]  opc;
  logic [23:0] dqp;
  logic        roce4, dataop, len_ok, qp_on, prot_first;
  logic [NUM_QP-1:0] qp_en_q;

  always_comb begin
    for (int i = 0; i < HDR_B; i++) b[i] = s_axis_tdata[8*i +: 8];
    iplen  = {b[16], b[17]};
    opc    = b[42];
    dqp    = {b[47], b[48], b[49]};
    roce4  = {b[12], b[13]} == 16'h0800 && b[14] == 8'h45 && b[23] == 8'd17 &&
             {b[36], b[37]} == 16'd4791;
    dataop = opc[7:5] == 3'b000 && (opc[4:0] <= 5'h10 || opc[4:0] == 5'h13 || opc[4:0] == 5'h14);
    len_ok = 32'(iplen) + 14 <= MAX_LEN && iplen >= 16'd48;
    qp_on  = qp_en_q[dqp[QPN_W-1:0]] && (NUM_QP >= (1 << 24) || dqp < 24'(NUM_QP));
    prot_first = roce4 && dataop && len_ok &&
                 (cfg_mode == 2'd1 || (cfg_mode == 2'd2 && qp_on));
  end

  logic in_pkt_q, prot_q, prot_now;
  assign prot_now = in_pkt_q ? prot_q : prot_first;

  // ------------------------------------------------------------ encoder
  logic              e_s_ready;
  logic [DATA_W-1:0] e_m_data;
  logic [KEEP_W-1:0] e_m_keep;
  logic              e_m_valid, e_m_last;
  logic [META_W:0]   e_m_user;
  logic [DATA_W-1:0] r_data;
  logic [KEEP_W-1:0] r_keep;
  logic              r_valid, r_ready, r_last;
  logic [META_W:0]   r_user;
  logic [15:0]       r_len;
  logic              flush_q;
  logic [31:0]       st_data_unused, st_rep_unused, st_blocks_unused;
  logic              d_ready;

  fabnic_fec_enc #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .MAX_K(MAX_K), .MAX_R(MAX_R), .MAX_D(MAX_D),
      .MAX_LEN(MAX_LEN), .OUT_DEPTH(OUT_DEPTH)
  ) u_enc (
      .clk, .rst,
      .cfg_k, .cfg_r, .cfg_d, .flush(flush_q),
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(s_axis_tvalid && prot_now),
      .s_axis_tready(e_s_ready), .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata(e_m_data), .m_axis_tkeep(e_m_keep), .m_axis_tvalid(e_m_valid),
      .m_axis_tready(d_ready && prot_now), .m_axis_tlast(e_m_last), .m_axis_tuser(e_m_user),
      .m_axis_rep_tdata(r_data), .m_axis_rep_tkeep(r_keep), .m_axis_rep_tvalid(r_valid),
      .m_axis_rep_tready(r_ready), .m_axis_rep_tlast(r_last), .m_axis_rep_tuser(r_user),
      .m_axis_rep_tlen(r_len),
      .stat_data_pkts(st_data_unused), .stat_repair_pkts(st_rep_unused),
      .stat_blocks(st_blocks_unused), .stat_oversize, .stat_stall_cycles
  );

  // ------------------------------------------------------------ data stream
  meta_t             dmeta;
  logic [15:0]       seq_q;
  logic              d_valid, d_fire;
  logic [TR_B*8-1:0] d_tail;
  logic [15:0]       fseq_q [FT];
  logic [7:0]        lh_q [HDR_B];    // header of the last protected frame

  assign dmeta         = meta_t'(e_m_user[META_W:1]);
  assign d_valid       = prot_now ? e_m_valid : s_axis_tvalid;
  assign s_axis_tready = prot_now ? e_s_ready : d_ready;
  assign d_fire        = d_valid && d_ready;

  always_comb begin
    d_tail = '0;
    d_tail[0*8 +: 8] = 8'hFE;
    d_tail[1*8 +: 8] = 8'h01;
    d_tail[2*8 +: 8] = dmeta.gid[15:8];
    d_tail[3*8 +: 8] = dmeta.gid[7:0];
    d_tail[4*8 +: 8] = dmeta.idx;
    d_tail[5*8 +: 8] = dmeta.cnt;
    d_tail[6*8 +: 8] = seq_q[15:8];
    d_tail[7*8 +: 8] = seq_q[7:0];
  end

  // ------------------------------------------------------------ repair framing
  // header from the learned one; per-frame pad and trailer go to side FIFOs
  logic [7:0]        hb [HDR_B];
  logic [HDR_B*8-1:0] hdr_vec;
  logic [1:0]        rpad;
  logic [15:0]       rip_len, rudp_len, rcsum;
  logic [19:0]       csum_acc;
  logic [TR_B*8-1:0] r_tail;
  logic [7:0]        d_eff;
  logic              hdr_valid, hdr_ready, hdr_sent_q, hdr_fire;
  logic              padf_in_ready, trf_in_ready;
  meta_t             rmeta;

  // framer source: the encoder's repairs, or a one-beat NAK when no repair waits
  logic              sel_nak_q, sel_nak;
  logic [DATA_W-1:0] f_data;
  logic [KEEP_W-1:0] f_keep;
  logic              f_valid, f_last, f_bad;
  logic [15:0]       f_len;
  assign sel_nak  = hdr_sent_q ? sel_nak_q : (!r_valid && s_nak_valid);
  assign f_valid  = sel_nak ? s_nak_valid : r_valid;
  assign f_data   = sel_nak ? DATA_W'({s_nak_map[7:0], s_nak_map[15:8], s_nak_map[23:16],
                                       s_nak_map[31:24], 16'h0, s_nak_seq[7:0], s_nak_seq[15:8]})
                            : r_data;
  assign f_keep   = sel_nak ? KEEP_W'(8'hFF) : r_keep;
  assign f_last   = sel_nak ? 1'b1 : r_last;
  assign f_bad    = sel_nak ? 1'b0 : r_user[0];
  assign f_len    = sel_nak ? 16'd8 : r_len;

  assign rmeta    = meta_t'(r_user[META_W:1]);
  assign d_eff    = clamp(cfg_d, MAX_D);
  assign rpad     = 2'(-f_len);
  assign rip_len  = f_len + 16'(rpad) + 16'd44;
  assign rudp_len = f_len + 16'(rpad) + 16'd24;

  always_comb begin
    for (int i = 0; i < HDR_B; i++) hb[i] = lh_q[i];
    hb[14] = 8'h45;
    hb[16] = rip_len[15:8];
    hb[17] = rip_len[7:0];
    hb[23] = 8'd17;
    hb[24] = 8'h00;
    hb[25] = 8'h00;
    hb[38] = rudp_len[15:8];
    hb[39] = rudp_len[7:0];
    hb[40] = 8'h00;
    hb[41] = 8'h00;
    hb[42] = sel_nak ? 8'hF1 : 8'hF0;
    hb[43] = {2'b00, rpad, 4'h0};
    hb[46] = 8'h00;
    hb[50] = 8'h00;
    hb[51] = 8'h00;
    hb[52] = sel_nak ? s_nak_seq[15:8] : rmeta.gid[15:8];
    hb[53] = sel_nak ? s_nak_seq[7:0] : rmeta.gid[7:0];
    csum_acc = '0;
    for (int w = 0; w < 10; w++) csum_acc = csum_acc + 20'({hb[14 + 2*w], hb[15 + 2*w]});
    csum_acc = 20'(csum_acc[15:0]) + 20'(csum_acc[19:16]);
    csum_acc = 20'(csum_acc[15:0]) + 20'(csum_acc[19:16]);
    rcsum  = ~csum_acc[15:0];
    hb[24] = rcsum[15:8];
    hb[25] = rcsum[7:0];
    for (int i = 0; i < HDR_B; i++) hdr_vec[8*(HDR_B-1-i) +: 8] = hb[i];
    r_tail = '0;
    r_tail[0*8 +: 8]  = 8'hFE;
    r_tail[1*8 +: 8]  = 8'h02;
    r_tail[2*8 +: 8]  = rmeta.gid[15:8];
    r_tail[3*8 +: 8]  = rmeta.gid[7:0];
    r_tail[4*8 +: 8]  = rmeta.idx;
    r_tail[5*8 +: 8]  = rmeta.cnt;
    r_tail[6*8 +: 8]  = rmeta.len[15:8];
    r_tail[7*8 +: 8]  = rmeta.len[7:0];
    r_tail[8*8 +: 8]  = fseq_q[rmeta.gid[FT_W-1:0]][15:8];
    r_tail[9*8 +: 8]  = fseq_q[rmeta.gid[FT_W-1:0]][7:0];
    r_tail[10*8 +: 8] = d_eff;
    r_tail[11*8 +: 8] = clamp(cfg_r, MAX_R);
    if (sel_nak) begin
      r_tail = '0;
      r_tail[0*8 +: 8] = 8'hFE;
      r_tail[1*8 +: 8] = 8'h03;
      r_tail[2*8 +: 8] = s_nak_seq[15:8];
      r_tail[3*8 +: 8] = s_nak_seq[7:0];
      r_tail[4*8 +: 8] = s_nak_map[31:24];
      r_tail[5*8 +: 8] = s_nak_map[23:16];
      r_tail[6*8 +: 8] = s_nak_map[15:8];
      r_tail[7*8 +: 8] = s_nak_map[7:0];
    end
  end

  assign hdr_valid = f_valid && !hdr_sent_q && padf_in_ready && trf_in_ready;
  assign hdr_fire  = hdr_valid && hdr_ready;

  logic              h_ready, p_ready;
  logic [DATA_W-1:0] h_data;
  logic [KEEP_W-1:0] h_keep;
  logic              h_valid, h_last, h_user, h_fire;

  // payload waits for its header (hdr_insert takes the header with or before beat 0)
  logic r_gate;
  assign r_gate  = hdr_sent_q || hdr_fire;

  fabnic_axis_hdr_insert #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .HDR_BYTES(HDR_B)) u_rhdr (
      .clk, .rst,
      .s_hdr_tdata(hdr_vec), .s_hdr_len(6'(HDR_B)), .s_hdr_tvalid(hdr_valid),
      .s_hdr_tready(hdr_ready),
      .s_axis_tdata(f_data), .s_axis_tkeep(f_keep), .s_axis_tvalid(f_valid && r_gate),
      .s_axis_tready(h_ready), .s_axis_tlast(f_last), .s_axis_tuser(f_bad),
      .m_axis_tdata(h_data), .m_axis_tkeep(h_keep), .m_axis_tvalid(h_valid),
      .m_axis_tready(p_ready), .m_axis_tlast(h_last), .m_axis_tuser(h_user)
  );
  assign r_ready     = h_ready && r_gate && !sel_nak;
  assign s_nak_ready = h_ready && r_gate && sel_nak;

  logic       padf_valid;
  logic [1:0] padf_pad;
  logic [$clog2(8):0] padf_cnt_unused, trf_cnt_unused;
  assign h_fire = h_valid && p_ready;

  fabnic_fifo #(.WIDTH(2), .DEPTH(8)) u_padf (
      .clk, .rst,
      .in_valid(hdr_fire), .in_ready(padf_in_ready), .in_data(rpad),
      .out_valid(padf_valid), .out_ready(h_fire && h_last), .out_data(padf_pad),
      .status_count(padf_cnt_unused)
  );

  logic [DATA_W-1:0] pd_data;
  logic [KEEP_W-1:0] pd_keep;
  logic              pd_valid, pd_ready, pd_last, pd_user;
  logic              pad_valid_unused;
  assign pad_valid_unused = padf_valid;

  fabnic_axis_tail_append #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .TAIL_MAX(3)) u_pad (
      .clk, .rst,
      .s_axis_tdata(h_data), .s_axis_tkeep(h_keep), .s_axis_tvalid(h_valid),
      .s_axis_tready(p_ready), .s_axis_tlast(h_last), .s_axis_tuser(h_user),
      .s_axis_ttail(24'd0), .s_axis_ttail_len(2'(padf_pad)),
      .m_axis_tdata(pd_data), .m_axis_tkeep(pd_keep), .m_axis_tvalid(pd_valid),
      .m_axis_tready(pd_ready), .m_axis_tlast(pd_last), .m_axis_tuser(pd_user)
  );

  logic [DATA_W-1:0] ic_data;
  logic [KEEP_W-1:0] ic_keep;
  logic              ic_valid, ic_ready, ic_last, ic_user;

  fabnic_roce_icrc_gen #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_icrc (
      .clk, .rst,
      .s_axis_tdata(pd_data), .s_axis_tkeep(pd_keep), .s_axis_tvalid(pd_valid),
      .s_axis_tready(pd_ready), .s_axis_tlast(pd_last), .s_axis_tuser(pd_user),
      .m_axis_tdata(ic_data), .m_axis_tkeep(ic_keep), .m_axis_tvalid(ic_valid),
      .m_axis_tready(ic_ready), .m_axis_tlast(ic_last), .m_axis_tuser(ic_user)
  );

  logic              trf_valid;
  logic [TR_B*8-1:0] trf_tail;
  logic              ic_fire;
  assign ic_fire = ic_valid && ic_ready;

  fabnic_fifo #(.WIDTH(TR_B * 8), .DEPTH(8)) u_trf (
      .clk, .rst,
      .in_valid(hdr_fire), .in_ready(trf_in_ready), .in_data(r_tail),
      .out_valid(trf_valid), .out_ready(ic_fire && ic_last), .out_data(trf_tail),
      .status_count(trf_cnt_unused)
  );
  logic trf_valid_unused;
  assign trf_valid_unused = trf_valid;
  // fields of the sideband this block does not need (data len is 0, repair flag known)
  logic [17:0] meta_unused;
  assign meta_unused = {dmeta.len, dmeta.is_repair, rmeta.is_repair};

  // ------------------------------------------------------------ retransmit buffer
  // protected frames are kept (slot = seq mod NRTX) with their trailer fields
  localparam int SB   = MAX_LEN / KEEP_W;
  localparam int SB_W = $clog2(SB);
  localparam int RS_W = $clog2(NRTX);
  logic              xv_q  [NRTX];
  logic [15:0]       xseq_q [NRTX];
  logic [SB_W:0]     xnb_q [NRTX];
  logic [KEEP_W-1:0] xkeep_q [NRTX];
  logic [47:0]       xtr_q [NRTX];      // gid, idx, cnt, seq (data trailer bytes 2..7)
  logic [SB_W:0]     wb_q;              // beat of the protected frame being stored
  logic              x_we;
  logic [RS_W+SB_W-1:0] x_wa, x_ra;
  logic [RS_W-1:0]   wslot;
  assign wslot = seq_q[RS_W-1:0];
  assign x_we  = d_fire && prot_now && wb_q < (SB_W+1)'(SB);
  assign x_wa  = {wslot, wb_q[SB_W-1:0]};

  logic              x_re;
  logic [DATA_W-1:0] x_rd;
  fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(NRTX * SB)) u_rtx (
      .clk,
      .wr_en(x_we), .wr_be(1'b1), .wr_addr(x_wa), .wr_data(e_m_data),
      .rd_en(x_re), .rd_regce(1'b1), .rd_addr(x_ra), .rd_data(x_rd)
  );

  // NAK requests: walk the bitmap, resend each buffered seq
  logic        rq_valid, rq_pop, rq_in_ready;
  logic [47:0] rq_data;
  logic [4:0]  rq_cnt_unused;
  fabnic_fifo #(.WIDTH(48), .DEPTH(16)) u_rtxq (
      .clk, .rst,
      .in_valid(rtx_req_valid), .in_ready(rq_in_ready), .in_data({rtx_req_seq, rtx_req_map}),
      .out_valid(rq_valid), .out_ready(rq_pop), .out_data(rq_data),
      .status_count(rq_cnt_unused)
  );

  logic              xr_busy_q, xr_scan_q, xr_v_q, xr_last_q;
  logic [15:0]       xr_base_q, xr_seq_q;
  logic [31:0]       xr_map_q;
  logic [SB_W:0]     xr_beat_q;
  logic [KEEP_W-1:0] xr_keep_q;
  logic [RS_W-1:0]   xr_slot;
  logic [4:0]        xr_bit;
  logic              xr_any, xr_hit, xr_issue, xr_lastbeat;
  logic [4:0]        xo_depth;
  logic [DATA_W-1:0] xo_data;
  logic [KEEP_W-1:0] xo_keep;
  logic              xo_valid, xo_ready, xo_last, xo_user;
  logic [4:0]        xost_unused;

  always_comb begin
    xr_bit = '0;
    xr_any = 1'b0;
    for (int i = 31; i >= 0; i--) begin
      if (xr_map_q[i]) begin
        xr_bit = 5'(i);
        xr_any = 1'b1;
      end
    end
  end
  assign xr_slot     = xr_seq_q[RS_W-1:0];
  assign xr_hit      = xv_q[xr_slot] && xseq_q[xr_slot] == xr_seq_q;
  assign xr_lastbeat = xr_beat_q + 1'b1 >= xnb_q[xr_slot];
  // the buffer check is made at the first beat; a slot overwritten while it is
  // being resent yields a frame whose ICRC fails at the receiver (never a hang)
  logic xr_ok;
  assign xr_ok       = xr_beat_q != '0 || xr_hit;
  assign xr_issue    = xr_busy_q && xr_ok && 5'd16 - xo_depth > 5'(xr_v_q) + 5'd2;
  assign x_re        = xr_issue;
  assign x_ra        = {xr_slot, xr_beat_q[SB_W-1:0]};
  assign rq_pop      = !xr_scan_q && !xr_busy_q && rq_valid;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(16)) u_xo (
      .clk, .rst,
      .s_axis_tdata(x_rd), .s_axis_tkeep(xr_keep_q), .s_axis_tvalid(xr_v_q),
      .s_axis_tready(xost_unused[0]), .s_axis_tlast(xr_last_q), .s_axis_tuser(1'b0),
      .m_axis_tdata(xo_data), .m_axis_tkeep(xo_keep), .m_axis_tvalid(xo_valid),
      .m_axis_tready(xo_ready), .m_axis_tlast(xo_last), .m_axis_tuser(xo_user),
      .status_depth(xo_depth), .status_good_frame(xost_unused[1]),
      .status_bad_frame(xost_unused[2]), .status_overflow(xost_unused[3]),
      .status_oversize(xost_unused[4])
  );

  // trailer of the frame at the FIFO's head: frames leave in the order they were
  // read, so a small FIFO of trailers follows them
  logic        xt_valid, xt_in_ready;
  logic [47:0] xt_data;
  logic [4:0]  xt_cnt_unused;
  fabnic_fifo #(.WIDTH(48), .DEPTH(16)) u_xt (
      .clk, .rst,
      .in_valid(xr_issue && xr_beat_q == '0), .in_ready(xt_in_ready), .in_data(xtr_q[xr_slot]),
      .out_valid(xt_valid), .out_ready(xo_valid && xo_ready && xo_last), .out_data(xt_data),
      .status_count(xt_cnt_unused)
  );
  logic [TR_B*8-1:0] x_tail;
  always_comb begin
    x_tail = '0;
    x_tail[0*8 +: 8] = 8'hFE;
    x_tail[1*8 +: 8] = 8'h01;
    for (int t = 0; t < 6; t++) x_tail[(2 + t)*8 +: 8] = xt_data[8*(5 - t) +: 8];
  end
  logic x_unused;
  assign x_unused = ^{xt_valid, xt_in_ready, xo_user};

  // ------------------------------------------------------------ merge + trailer
  logic [3*DATA_W-1:0] a_data;
  logic [3*KEEP_W-1:0] a_keep;
  logic [2:0]          a_valid, a_ready, a_last;
  logic [3*TUW-1:0]    a_user;
  logic [DATA_W-1:0]   o_data;
  logic [KEEP_W-1:0]   o_keep;
  logic                o_valid, o_ready, o_last;
  logic [TUW-1:0]      o_user;
  logic [1:0]          sel_unused;

  assign a_data  = {xo_data, ic_data, prot_now ? e_m_data : s_axis_tdata};
  assign a_keep  = {xo_keep, ic_keep, prot_now ? e_m_keep : s_axis_tkeep};
  assign a_valid = {xo_valid, ic_valid, d_valid};
  assign a_last  = {xo_last, ic_last, prot_now ? e_m_last : s_axis_tlast};
  assign a_user  = {x_tail, 4'd8, 1'b0,
                    trf_tail, 4'(TR_B), ic_user,
                    d_tail, prot_now ? 4'd8 : 4'd0, prot_now ? e_m_user[0] : s_axis_tuser};
  assign d_ready  = a_ready[0];
  assign ic_ready = a_ready[1];
  assign xo_ready = a_ready[2];

  fabnic_axis_arb_mux #(.N(3), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(TUW)) u_arb (
      .clk, .rst, .enable(3'b111),
      .s_axis_tdata(a_data), .s_axis_tkeep(a_keep), .s_axis_tvalid(a_valid),
      .s_axis_tready(a_ready), .s_axis_tlast(a_last), .s_axis_tuser(a_user),
      .m_axis_tdata(o_data), .m_axis_tkeep(o_keep), .m_axis_tvalid(o_valid),
      .m_axis_tready(o_ready), .m_axis_tlast(o_last), .m_axis_tuser(o_user),
      .sel(sel_unused)
  );

  fabnic_axis_tail_append #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .TAIL_MAX(TR_B)) u_trl (
      .clk, .rst,
      .s_axis_tdata(o_data), .s_axis_tkeep(o_keep), .s_axis_tvalid(o_valid),
      .s_axis_tready(o_ready), .s_axis_tlast(o_last), .s_axis_tuser(o_user[0]),
      .s_axis_ttail(o_user[TUW-1 -: TR_B*8]), .s_axis_ttail_len(o_user[4:1]),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser
  );

  // ------------------------------------------------------------ state
  logic [15:0] idle_q;
  logic        dirty_q;

  always_ff @(posedge clk) begin
    flush_q <= 1'b0;
    if (cfg_qp_we) qp_en_q[cfg_qp_idx] <= cfg_qp_val;
    if (d_fire) begin
      in_pkt_q <= !(prot_now ? e_m_last : s_axis_tlast);
      if (!in_pkt_q) begin
        prot_q <= prot_first;
        if (roce4) for (int i = 0; i < HDR_B; i++) lh_q[i] <= b[i];
        if (prot_first) begin
          if (dmeta.idx == 8'd0) fseq_q[dmeta.gid[FT_W-1:0]] <= seq_q;
          stat_prot_frames <= stat_prot_frames + 1;
        end else begin
          stat_bypass_frames <= stat_bypass_frames + 1;
        end
      end
      if (prot_now && e_m_last) seq_q <= seq_q + 16'd1;
      // retransmit buffer bookkeeping
      if (prot_now) begin
        if (!in_pkt_q) xv_q[wslot] <= 1'b0;      // slot being overwritten
        wb_q <= e_m_last ? '0 : wb_q + 1'b1;
        if (e_m_last && wb_q < (SB_W+1)'(SB)) begin
          xv_q[wslot]    <= 1'b1;
          xseq_q[wslot]  <= seq_q;
          xnb_q[wslot]   <= wb_q + 1'b1;
          xkeep_q[wslot] <= e_m_keep;
          xtr_q[wslot]   <= {dmeta.gid, dmeta.idx, dmeta.cnt, seq_q};
        end
      end
    end
    // retransmission reader
    xr_v_q <= xr_issue;
    if (rq_pop) begin
      xr_scan_q <= 1'b1;
      xr_base_q <= rq_data[47:32];
      xr_map_q  <= rq_data[31:0];
    end else if (xr_scan_q && !xr_busy_q) begin
      if (!xr_any) begin
        xr_scan_q <= 1'b0;
      end else begin
        xr_map_q[xr_bit] <= 1'b0;
        xr_seq_q         <= xr_base_q + 16'(xr_bit);
        xr_busy_q        <= 1'b1;      // checked against the buffer next cycle
        xr_beat_q        <= '0;
      end
    end
    if (xr_busy_q && !xr_ok) begin
      xr_busy_q     <= 1'b0;
      stat_rtx_miss <= stat_rtx_miss + 1;
    end
    if (xr_issue) begin
      xr_keep_q <= xr_lastbeat ? xkeep_q[xr_slot] : {KEEP_W{1'b1}};
      xr_last_q <= xr_lastbeat;
      xr_beat_q <= xr_beat_q + 1'b1;
      if (xr_lastbeat) begin
        xr_busy_q       <= 1'b0;
        stat_rtx_frames <= stat_rtx_frames + 1;
      end
    end
    if (rtx_req_valid && !rq_in_ready) stat_rtx_miss <= stat_rtx_miss + 1;
    if (hdr_fire) begin
      hdr_sent_q <= 1'b1;
      sel_nak_q  <= sel_nak;
    end
    if (r_valid && r_ready && r_last) begin
      hdr_sent_q <= 1'b0;
      stat_repair_frames <= stat_repair_frames + 1;
    end
    if (s_nak_valid && s_nak_ready) hdr_sent_q <= 1'b0;
    // idle flush: close a partly filled block so its repairs go out
    if (d_fire && prot_now) begin
      idle_q  <= '0;
      dirty_q <= 1'b1;
    end else if (dirty_q && !in_pkt_q) begin
      if (cfg_flush_cycles != 16'd0 && idle_q >= cfg_flush_cycles) begin
        flush_q      <= 1'b1;
        dirty_q      <= 1'b0;
        stat_flushes <= stat_flushes + 1;
      end else begin
        idle_q <= idle_q + 16'd1;
      end
    end
    if (rst) begin
      in_pkt_q           <= 1'b0;
      prot_q             <= 1'b0;
      seq_q              <= '0;
      hdr_sent_q         <= 1'b0;
      idle_q             <= '0;
      dirty_q            <= 1'b0;
      flush_q            <= 1'b0;
      qp_en_q            <= '0;
      sel_nak_q          <= 1'b0;
      wb_q               <= '0;
      xr_busy_q          <= 1'b0;
      xr_scan_q          <= 1'b0;
      xr_v_q             <= 1'b0;
      stat_rtx_frames    <= '0;
      stat_rtx_miss      <= '0;
      for (int i = 0; i < NRTX; i++) xv_q[i] <= 1'b0;
      stat_prot_frames   <= '0;
      stat_bypass_frames <= '0;
      stat_repair_frames <= '0;
      stat_flushes       <= '0;
      for (int i = 0; i < FT; i++) fseq_q[i] <= '0;
      for (int i = 0; i < HDR_B; i++) lh_q[i] <= '0;
    end
  end

endmodule

`resetall
