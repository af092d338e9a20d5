// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fec_rx: packet-level FEC on the receive side of a RoCE port (between
// the MAC and fabnic_roce_core's frame input); the peer of fabnic_fec_tx.
// docs/fec.md, "Port shim".
//
// Input stage: every frame is stored whole in a FIFO (store-and-forward) while
// its first beat and its trailer are parsed; at the frame's end it is classified:
//   DATA   - IPv4 RoCEv2 frame followed by exactly an 8-byte FEC data trailer;
//   REPAIR - BTH opcode 0xF0 followed by exactly a 12-byte repair trailer;
//   DROP   - opcode 0xF0 otherwise (malformed, bad FCS, or FEC off): counted;
//   PLAIN  - anything else (also frames flagged bad: the core drops and counts them).
// Frames longer than MAX_LEN bytes are cut there, flagged bad and counted.
// Read stage: PLAIN frames go straight to the core. DATA frames lose their
// trailer and go both to the decoder (fabnic_fec_dec, as a tap) and into the
// reorder buffer. REPAIR frames lose header, padding, ICRC and trailer and go to
// the decoder. Recovered frames (numbered seq = fseq + idx*D from their
// group's repair trailer) also go into the reorder buffer.
// Reorder buffer (NROB slots of MAX_LEN bytes, slot = seq mod NROB): releases
// the protected frames to the core in seq order, so the transport (go-back-N)
// sees a repaired loss as if nothing had been lost. A missing frame is given up
// (head advances, the transport's own recovery takes over) when the decoder
// reports its group unrepairable, when a frame NROB or more ahead arrives, or
// after cfg_rob_timeout cycles of waiting while later frames are held.
// Frames older than the head (late originals, recoveries of given-up frames)
// and duplicates are dropped and counted. If the buffer is empty and a frame
// far ahead arrives, the head jumps to it (resync after reset/peer restart).
// Source spaces (NSRC > 1, for a receiver that several FEC senders talk to, e.g. an
// incast): group ids and sequence numbers are per sending port, so two senders'
// groups must never meet in one decoder slot. A source table of NSRC entries, keyed
// by the IPv4 source address, gives every DATA/REPAIR frame a source index s; the
// decoder sees gid' = {gid[15-S:G-S], s, gid[G-S-1:0]} (G = log2 NGROUP,
// S = log2 NSRC): each source owns NGROUP/NSRC slots (>= 2D needed) and a 2^(16-S)
// group-id wrap. A new address takes a free entry (its decoder slots are cleared);
// an entry that saw no frame for a whole AGE_CYCLES period is freed. With the
// table full, a new source's DATA frames go to the core unprotected (trailer cut)
// and its REPAIR frames are dropped, both counted in stat_src_full. The reorder
// buffer and the NAK path keep one sequence space: with several sources use the
// bypass (cfg_rx_bypass, engine selective repeat). NSRC = 1: no table, as before.
// Throughput: one beat per cycle in; into and out of the buffer an N-beat frame
// takes N+1 cycles.
// Pipelining (logic depth, docs/fec.md "fabnic_fec_rx"): frames are classified one
// cycle after their last beat from registers; the read stage, the decoder's input
// (a repair payload also after its realigner), its output (two stages: numbering
// lookup, product) and the reorder-buffer writer each take their beat from a skid
// register; the writer decides on a frame's first beat from relations to the head
// registered a cycle earlier; the NAK bitmap and the give-up point of an
// unrepairable report are built in register stages; m_nak_* is registered.
// rtx_req_* is decoded from the classification registers (no path from the inputs).
// No combinational valid/ready path crosses the module boundary; m_axis_tready
// reaches the output arbiter's state and the read stage's dispatch (registered).
// DATA_W must be 512.
`default_nettype none

module fabnic_fec_rx #(
    parameter int DATA_W    = 512,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int MAX_K     = 32,
    parameter int MAX_R     = 4,
    parameter int NGROUP    = 16,     // decoder group slots (>= 2 * D)
    parameter int MAX_LEN   = 8192,   // frame bytes, power of two
    parameter int IN_DEPTH  = 512,    // input FIFO beats (>= 2 * MAX_LEN / KEEP_W)
    parameter int NROB      = 32,     // reorder buffer slots, power of two
    parameter int NSRC      = 1,      // FEC source spaces (power of two, NGROUP >= 2*NSRC)
    parameter int AGE_CYCLES = 16384  // a source entry idle this long is freed
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              cfg_en,
    input  wire logic [7:0]        cfg_k,
    input  wire logic [15:0]       cfg_rob_timeout,   // cycles
    input  wire logic              cfg_rx_bypass,     // no reorder buffer: deliver at once
    input  wire logic [15:0]       cfg_nak_delay,     // cycles before a NAK (0 = no NAKs)
    input  wire logic [15:0]       cfg_nak_retry,     // cycles between NAKs of one head

    // selective retransmission: NAK to send (to this port's fabnic_fec_tx) ...
    output logic                   m_nak_valid,
    input  wire logic              m_nak_ready,
    output logic [15:0]            m_nak_seq,         // first seq of the bitmap
    output logic [31:0]            m_nak_map,         // bit i: seq + i missing
    // ... and NAKs received from the peer (to this port's fabnic_fec_tx)
    output logic                   rtx_req_valid,
    output logic [15:0]            rtx_req_seq,
    output logic [31:0]            rtx_req_map,

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

    output logic [31:0]            stat_data_frames,
    output logic [31:0]            stat_repair_frames,
    output logic [31:0]            stat_plain_frames,
    output logic [31:0]            stat_drop_malformed,
    output logic [31:0]            stat_drop_oversize,
    output logic [31:0]            stat_repaired,       // frames rebuilt by the decoder
    output logic [31:0]            stat_unrepairable,   // groups the decoder gave up
    output logic [31:0]            stat_rob_given_up,   // seqs released missing
    output logic [31:0]            stat_rob_late,       // frames older than the head
    output logic [31:0]            stat_rob_dup,
    output logic [31:0]            stat_rob_resync,
    output logic [31:0]            stat_rob_noseq,      // recovered, group not numbered
    output logic [31:0]            stat_naks_sent,
    output logic [31:0]            stat_naks_rcvd,
    output logic [31:0]            stat_src_full        // frames of a source with no entry
);

  typedef fabnic_fec_pkg::fec_meta_t meta_t;
  localparam int META_W = fabnic_fec_pkg::META_W;
  localparam int SB     = MAX_LEN / KEEP_W;       // beats per frame / per slot
  localparam int SB_W   = $clog2(SB);
  localparam int RS_W   = $clog2(NROB);
  localparam int RA_W   = RS_W + SB_W;
  localparam int NG_W   = $clog2(NGROUP);
  localparam int HDR_B  = 54;
  localparam int TR_B   = 12;
  localparam int KB_W   = $clog2(KEEP_W);

  if (DATA_W != 512) begin : g_chk_w
    $error("fabnic_fec_rx: DATA_W must be 512");
  end
  if ((1 << SB_W) != SB || (1 << RS_W) != NROB || (1 << NG_W) != NGROUP) begin : g_chk_p2
    $error("fabnic_fec_rx: MAX_LEN, NROB and NGROUP must be powers of two");
  end
  localparam int SRC_W = (NSRC > 1) ? $clog2(NSRC) : 0;
  localparam int SI_W  = (NSRC > 1) ? SRC_W : 1;
  if (NSRC < 1 || NSRC > 128 || (1 << SRC_W) != NSRC || NGROUP < 2 * NSRC) begin : g_chk_src
    $error("fabnic_fec_rx: NSRC must be a power of two <= 128 and NGROUP >= 2 * NSRC");
  end
  if (IN_DEPTH < 2 * SB) begin : g_chk_depth
    $error("fabnic_fec_rx: IN_DEPTH must hold two frames of MAX_LEN");
  end

  localparam logic [1:0] K_PLAIN = 2'd0, K_DATA = 2'd1, K_REP = 2'd2, K_DROP = 2'd3;

  typedef struct packed {
    logic [1:0]  kind;
    logic [15:0] lim;    // bytes to keep (DATA: frame; REPAIR: header + payload)
    logic [15:0] gid;
    logic [7:0]  idx;    // data index or repair row
    logic [7:0]  cnt;
    logic [15:0] clen;
    logic [15:0] seq;    // DATA: seq; REPAIR: fseq
    logic [7:0]  d;
    logic [7:0]  src;    // source space (0 when NSRC = 1)
  } fmeta_t;
  localparam int FM_W = $bits(fmeta_t);

  // ================================================================ input stage
  logic [7:0]  b [HDR_B];
  logic [7:0]  tr_q [TR_B];
  logic [7:0]  tr [TR_B];
  logic [SB_W:0] ibeat_q;
  logic        idrop_q;            // cutting an oversize frame
  // f_* without _q: fields of the beat on s_axis read as a first beat (only used when
  // it is one); f_*_q: the current frame's, registered at its first beat
  logic        f_roce4_q, f_roce4, f_rep_q, f_rep, f_nak_q, f_nak, is_nak;
  logic [31:0] f_sip_q, f_sip;     // IPv4 source address
  logic [15:0] f_olen, f_iplen;
  logic [1:0]  f_pad;
  logic        first, first_q;
  logic [TR_B-1:0] th_q;           // trailer byte t is in the next beat (not the first)
  logic [15:0] flen, plen;
  logic [KB_W:0] nb;
  logic        in_last, in_cut, in_bad;
  fmeta_t      fm;
  logic        fifo_in_ready, mf_in_ready, in_fire, in_wr;

  assign first = first_q;   // ibeat_q == 0

  // ---------------------------------------------------------------- source table
  assign f_sip = s_axis_tdata[8*26 +: 32];   // byte order kept as on the wire
  logic [31:0]     cl_sip;
  assign cl_sip = f_sip_q;   // the classified frame's source (kept until its next frame)
  logic [31:0]     st_ip_q [NSRC];
  logic [NSRC-1:0] st_v_q, st_used_q;
  logic [SI_W-1:0] src_idx, hit_idx, free_idx;
  logic            src_hit, src_free, src_ok, src_miss, src_alloc;
  logic [31:0]     age_q;
  logic            clr_q;
  logic [7:0]      clr_src_q;
  always_comb begin
    src_hit  = 1'b0;
    src_free = 1'b0;
    hit_idx  = '0;
    free_idx = '0;
    for (int i = NSRC - 1; i >= 0; i--) begin
      if (st_v_q[i] && st_ip_q[i] == cl_sip) begin
        src_hit = 1'b1;
        hit_idx = SI_W'(i);
      end
      if (!st_v_q[i]) begin
        src_free = 1'b1;
        free_idx = SI_W'(i);
      end
    end
    if (NSRC == 1) begin
      src_ok    = 1'b1;
      src_idx   = '0;
      src_alloc = 1'b0;
    end else begin
      src_ok    = src_hit || src_free;
      src_idx   = src_hit ? hit_idx : free_idx;
      src_alloc = !src_hit && src_free;
    end
  end

  // Trailer bytes: their frame offsets olen+t are known from the first beat; the first
  // beat picks them from its own lanes (an input path), later beats from the offsets
  // registered at the first beat (tpos_q) when th_q (registered a beat earlier) says
  // the byte is in this beat, so neither an adder nor a compare sits before the pick.
  logic [15:0] tpos_q [TR_B];
  logic [15:0] f_olen_q, f_dlen_q, f_rlen_q, f_plen_q;
  logic        f_repok_q;          // repair: payload length in 1..MAX_LEN
  always_comb begin
    for (int i = 0; i < HDR_B; i++) b[i] = s_axis_tdata[8*i +: 8];
    f_roce4 = {b[12], b[13]} == 16'h0800 && b[14] == 8'h45 && b[23] == 8'd17 &&
              {b[36], b[37]} == 16'd4791;
    f_iplen = {b[16], b[17]};
    f_olen  = f_iplen + 16'd14;
    f_rep   = b[42] == 8'hF0;
    f_nak   = b[42] == 8'hF1;
    f_pad   = b[43][5:4];
    for (int t = 0; t < TR_B; t++) begin
      logic [15:0] pos;
      pos   = f_olen + 16'(t);
      tr[t] = tr_q[t];
      if (first) begin
        if (pos < 16'(KEEP_W)) tr[t] = s_axis_tdata[8*pos[KB_W-1:0] +: 8];
      end else if (th_q[t]) begin
        tr[t] = s_axis_tdata[8*tpos_q[t][KB_W-1:0] +: 8];
      end
    end
    nb = '0;
    for (int i = 0; i < KEEP_W; i++) nb = nb + (KB_W+1)'(s_axis_tkeep[i]);
    flen   = 16'({ibeat_q, {KB_W{1'b0}}}) + 16'(nb);
    in_cut = !s_axis_tlast && ibeat_q == (SB_W+1)'(SB - 1);
    in_last = s_axis_tlast || in_cut;
    in_bad  = s_axis_tuser || in_cut;
    plen    = f_iplen - 16'd44 - 16'(f_pad);
  end

  // Classification, one cycle after the frame's last beat, from registers only: the
  // trailer (tr_q), the first-beat fields (f_*_q) and the last beat's length and flags
  // (cl_*_q). Its entry goes into the meta FIFO then; the input keeps a slot free for it.
  logic        cl_v_q, cl_bad_q, cl_cut_q;
  logic [15:0] cl_flen_q;
  always_comb begin
    fm      = '0;
    fm.gid  = {tr_q[2], tr_q[3]};
    fm.idx  = tr_q[4];
    fm.cnt  = tr_q[5];
    fm.clen = {tr_q[6], tr_q[7]};
    fm.seq  = (tr_q[1] == 8'h01) ? {tr_q[6], tr_q[7]} : {tr_q[8], tr_q[9]};
    fm.d    = tr_q[10];
    fm.lim  = 16'hFFFF;
    fm.kind = K_PLAIN;
    if (cfg_en && f_roce4_q && !cl_bad_q && tr_q[0] == 8'hFE && tr_q[1] == 8'h01 && !f_rep_q &&
        cl_flen_q == f_dlen_q) begin
      fm.kind = K_DATA;
      fm.lim  = f_olen_q;
    end else if (cfg_en && f_roce4_q && !cl_bad_q && tr_q[0] == 8'hFE && tr_q[1] == 8'h02 &&
                 f_rep_q && cl_flen_q == f_rlen_q && f_repok_q && tr_q[10] != 8'd0) begin
      fm.kind = K_REP;
      fm.lim  = 16'(HDR_B) + f_plen_q;
    end else if (f_roce4_q && (f_rep_q || f_nak_q)) begin
      fm.kind = K_DROP;           // a valid NAK is consumed here too (is_nak)
    end
    is_nak = cfg_en && f_roce4_q && !cl_bad_q && f_nak_q && tr_q[0] == 8'hFE &&
             tr_q[1] == 8'h03 && cl_flen_q == f_rlen_q;
    // source space: a frame of a source without a table entry is not decoded
    fm.src   = 8'(src_idx);
    src_miss = (fm.kind == K_DATA || fm.kind == K_REP) && !src_ok;
    if (src_miss) begin
      fm.kind = (fm.kind == K_DATA) ? K_PLAIN : K_DROP;   // DATA keeps lim: trailer cut
    end
  end

  assign rtx_req_valid = cl_v_q && is_nak;
  assign rtx_req_seq   = {tr_q[2], tr_q[3]};
  assign rtx_req_map   = {tr_q[4], tr_q[5], tr_q[6], tr_q[7]};

  // the whole frame must be in the FIFO before it is read: meta is pushed last (one
  // cycle after the last beat, so a frame end needs room for two entries)
  logic [4:0] mf_count;
  assign mf_in_ready   = mf_count < 5'd15;
  assign in_wr         = !idrop_q;
  assign s_axis_tready = idrop_q || (fifo_in_ready && (!in_last || mf_in_ready));
  assign in_fire       = s_axis_tvalid && s_axis_tready;

  logic [DATA_W-1:0] q_data;
  logic [KEEP_W-1:0] q_keep;
  logic              q_valid, q_ready, q_last, q_user;
  logic [3:0]        qst_unused;
  logic [$clog2(IN_DEPTH):0] qdepth_unused;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(IN_DEPTH)) u_inq (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(s_axis_tvalid && in_wr && s_axis_tready),
      .s_axis_tready(fifo_in_ready), .s_axis_tlast(in_last), .s_axis_tuser(in_bad),
      .m_axis_tdata(q_data), .m_axis_tkeep(q_keep), .m_axis_tvalid(q_valid),
      .m_axis_tready(q_ready), .m_axis_tlast(q_last), .m_axis_tuser(q_user),
      .status_depth(qdepth_unused), .status_good_frame(qst_unused[0]),
      .status_bad_frame(qst_unused[1]), .status_overflow(qst_unused[2]),
      .status_oversize(qst_unused[3])
  );

  logic         mf_valid, mf_pop;
  logic [FM_W-1:0] mf_raw;
  fmeta_t       mh;

  logic         mf_in_ready_unused;
  fabnic_fifo #(.WIDTH(FM_W), .DEPTH(16)) u_mf (
      .clk, .rst,
      .in_valid(cl_v_q), .in_ready(mf_in_ready_unused), .in_data(fm),
      .out_valid(mf_valid), .out_ready(mf_pop), .out_data(mf_raw),
      .status_count(mf_count)
  );
  assign mh = fmeta_t'(mf_raw);

  // ================================================================ read stage
  // Two steps. Cut: each beat of the FIFO head is trimmed to its frame's kept bytes
  // (mh.lim) and labelled with the frame's kind and meta; beats past the limit and
  // DROP frames are consumed here, the rest enters a skid register (c_*, both
  // directions registered). Dispatch: the registered beat goes to its consumers.
  // rrem: bytes of the frame still to keep, from this beat on (the frame's limit at its
  // first beat, then a register counting down; beyond the limit it is not used)
  logic [15:0]       rrem_q, rrem;
  logic              rfirst_q, rskip_q, rlast, rv, r_drop, rrem_hi;
  logic [KEEP_W-1:0] rkeep;
  logic              q_fire;

  assign rv      = q_valid && mf_valid;
  assign rrem    = rfirst_q ? mh.lim : rrem_q;
  assign rrem_hi = rrem[15:KB_W] != '0;     // >= KEEP_W: the whole beat is kept
  always_comb begin
    for (int j = 0; j < KEEP_W; j++) rkeep[j] = q_keep[j] && (rrem_hi || KB_W'(j) < rrem[KB_W-1:0]);
  end
  assign rlast  = q_last || rrem[15:KB_W] == '0 ||
                  (rrem[15:KB_W] == (16-KB_W)'(1) && rrem[KB_W-1:0] == '0);   // rrem <= KEEP_W
  assign r_drop = rskip_q || mh.kind == K_DROP;

  // decoder group id in the frame's source space (see the header)
  function automatic logic [15:0] sgid(input logic [15:0] g, input logic [7:0] sx);
    logic [15:0] lo;
    if (NSRC == 1) return g;
    lo = (16'd1 << (NG_W - SRC_W)) - 16'd1;
    return ((g & ~lo) << SRC_W) | (16'(sx) << (NG_W - SRC_W)) | (g & lo);
  endfunction

  typedef struct packed {
    logic [1:0]    kind;
    logic          first;     // first beat of the frame
    logic [15:0]   seq;
    logic [15:0]   sgid;
    logic [7:0]    idx;
    logic [7:0]    cnt;
    logic [15:0]   clen;
    logic [7:0]    d;
    logic          bad;       // q_user
  } cmeta_t;
  localparam int CM_W = $bits(cmeta_t);
  cmeta_t      cin, cm;
  logic [CM_W-1:0] cm_raw;
  always_comb begin
    cin       = '0;
    cin.kind  = mh.kind;
    cin.first = rfirst_q;
    cin.seq   = mh.seq;
    cin.sgid  = sgid(mh.gid, mh.src);
    cin.idx   = mh.idx;
    cin.cnt   = mh.cnt;
    cin.clen  = mh.clen;
    cin.d     = mh.d;
    cin.bad   = q_user;
  end

  logic [DATA_W-1:0] c_data;
  logic [KEEP_W-1:0] c_keep;
  logic              c_valid, c_ready, c_last, cin_ready;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(CM_W), .REG_TYPE(2)) u_cut (
      .clk, .rst,
      .s_axis_tdata(q_data), .s_axis_tkeep(rkeep), .s_axis_tvalid(rv && !r_drop),
      .s_axis_tready(cin_ready), .s_axis_tlast(rlast), .s_axis_tuser(cin),
      .m_axis_tdata(c_data), .m_axis_tkeep(c_keep), .m_axis_tvalid(c_valid),
      .m_axis_tready(c_ready), .m_axis_tlast(c_last), .m_axis_tuser(cm_raw)
  );
  assign cm      = cmeta_t'(cm_raw);
  assign q_fire  = rv && (r_drop || cin_ready);
  assign q_ready = q_fire;
  assign mf_pop  = q_fire && q_last;

  // dispatch
  logic              p_ready, dd_ready, w0_ready, h_ready;
  logic              p_valid, dd_valid, w0_valid, h_valid;
  logic              dd_done_q, w0_done_q;
  logic              repm_in_ready;

  // A data frame starts only when the decoder-copy FIFO can take all of it, so
  // the copy never stalls a frame the reorder-buffer writer is locked on (the
  // decoder's output must always be able to reach the writer). dd_room_q: room for
  // a frame of MAX_LEN, from last cycle's depth (which may miss that cycle's write,
  // hence one beat more).
  logic        dd_room_q, dd_room;
  assign dd_room  = !cm.first || dd_room_q;
  assign p_valid  = c_valid && cm.kind == K_PLAIN;
  assign dd_valid = c_valid && cm.kind == K_DATA && !dd_done_q && dd_room;
  assign w0_valid = c_valid && cm.kind == K_DATA && !w0_done_q && dd_room;
  // a repair frame's first beat also needs room for its side-band entry
  assign h_valid  = c_valid && cm.kind == K_REP && (!cm.first || repm_in_ready);

  always_comb begin
    c_ready = 1'b0;
    if (cm.kind == K_PLAIN)    c_ready = p_ready;
    else if (cm.kind == K_REP) c_ready = h_valid && h_ready;
    else c_ready = (dd_done_q || (dd_valid && dd_ready)) && (w0_done_q || (w0_valid && w0_ready));
  end

  // repair payload: drop the 54 header bytes. The beat's byte count goes into a
  // register with the beat (h_*), so the realigner takes it from a flop (CNT_IN).
  function automatic logic [KB_W:0] count_of(input logic [KEEP_W-1:0] k);   // contiguous
    logic [KB_W:0] c;
    c = {k[KEEP_W-1], {KB_W{1'b0}}};
    for (int i = 1; i < KEEP_W; i++) c = c | ({(KB_W+1){k[i-1] & !k[i]}} & (KB_W+1)'(i));
    return c;
  endfunction
  logic [DATA_W-1:0] hr_data;
  logic [KEEP_W-1:0] hr_keep;
  logic              hr_valid, hr_ready, hr_last;
  logic [KB_W:0]     hr_cnt;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(KB_W + 1), .REG_TYPE(1)) u_hreg (
      .clk, .rst,
      .s_axis_tdata(c_data), .s_axis_tkeep(c_keep), .s_axis_tvalid(h_valid),
      .s_axis_tready(h_ready), .s_axis_tlast(c_last), .s_axis_tuser(count_of(c_keep)),
      .m_axis_tdata(hr_data), .m_axis_tkeep(hr_keep), .m_axis_tvalid(hr_valid),
      .m_axis_tready(hr_ready), .m_axis_tlast(hr_last), .m_axis_tuser(hr_cnt)
  );

  logic [DATA_W-1:0] x_data;
  logic [KEEP_W-1:0] x_keep;
  logic              x_valid, x_ready, x_last, x_user;
  logic              xr_cmd_ready_unused, xr_done_unused, xr_short_unused;

  fabnic_axis_realign #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .LEN_W(17), .CNT_IN(1'b1)) u_rstrip (
      .clk, .rst,
      .cmd_valid(1'b1), .cmd_ready(xr_cmd_ready_unused),
      .cmd_off(17'(HDR_B)), .cmd_len('0), .cmd_trim(1'b0), .cmd_chk(1'b1),
      .cmd_drop(1'b0), .cmd_bad(1'b0), .cmd_load(1'b0),
      .s_axis_tdata(hr_data), .s_axis_tkeep(hr_keep), .s_axis_tcnt(hr_cnt),
      .s_axis_tvalid(hr_valid), .s_axis_tready(hr_ready), .s_axis_tlast(hr_last),
      .s_axis_tuser(1'b0),
      .m_axis_tdata(x_data), .m_axis_tkeep(x_keep), .m_axis_tvalid(x_valid),
      .m_axis_tready(x_ready), .m_axis_tlast(x_last), .m_axis_tuser(x_user),
      .status_done(xr_done_unused), .status_short(xr_short_unused)
  );

  meta_t       rep_meta, rep_meta_h, dat_meta;
  logic        repm_valid, x_fire;
  logic [META_W-1:0] repm_raw;
  logic [4:0]  repm_cnt_unused;

  always_comb begin
    rep_meta           = '0;
    rep_meta.is_repair = 1'b1;
    rep_meta.gid       = cm.sgid;
    rep_meta.idx       = cm.idx;
    rep_meta.cnt       = cm.cnt;
    rep_meta.len       = cm.clen;
    dat_meta           = '0;
    dat_meta.gid       = cm.sgid;
    dat_meta.idx       = cm.idx;
    dat_meta.cnt       = cm.cnt;
  end

  fabnic_fifo #(.WIDTH(META_W), .DEPTH(16)) u_repm (
      .clk, .rst,
      .in_valid(h_valid && h_ready && cm.first), .in_ready(repm_in_ready),
      .in_data(rep_meta),
      .out_valid(repm_valid), .out_ready(x_fire && x_last), .out_data(repm_raw),
      .status_count(repm_cnt_unused)
  );
  assign rep_meta_h = meta_t'(repm_raw);

  // decoder input: data copies and repair payloads
  logic [2*DATA_W-1:0] di_data;
  logic [2*KEEP_W-1:0] di_keep;
  logic [1:0]          di_valid, di_ready, di_last;
  logic [2*(META_W+1)-1:0] di_user;
  logic [DATA_W-1:0]   dec_data;
  logic [KEEP_W-1:0]   dec_keep;
  logic                dec_valid, dec_ready, dec_last;
  logic [META_W:0]     dec_user;
  logic                di_sel_unused;

  logic [DATA_W-1:0] dq_data;
  logic [KEEP_W-1:0] dq_keep;
  logic              dq_valid, dq_last;
  logic [META_W:0]   dq_user;
  logic [$clog2(2*SB):0] dq_depth;
  logic [3:0]        dqst_unused;

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(META_W + 1), .DEPTH(2 * SB)) u_ddq (
      .clk, .rst,
      .s_axis_tdata(c_data), .s_axis_tkeep(c_keep), .s_axis_tvalid(dd_valid),
      .s_axis_tready(dd_ready), .s_axis_tlast(c_last), .s_axis_tuser({dat_meta, 1'b0}),
      .m_axis_tdata(dq_data), .m_axis_tkeep(dq_keep), .m_axis_tvalid(dq_valid),
      .m_axis_tready(di_ready[0]), .m_axis_tlast(dq_last), .m_axis_tuser(dq_user),
      .status_depth(dq_depth), .status_good_frame(dqst_unused[0]),
      .status_bad_frame(dqst_unused[1]), .status_overflow(dqst_unused[2]),
      .status_oversize(dqst_unused[3])
  );

  // the repair payload joins its side-band entry in a skid register (both handshakes
  // registered) in front of the decoder-input arbiter. The entry is pushed with the
  // frame's first beat, before the realigner can output any of it, so it is there
  // whenever a payload beat is (asserted below).
  logic [DATA_W-1:0] xs_data;
  logic [KEEP_W-1:0] xs_keep;
  logic              xs_valid, xs_last;
  logic [META_W:0]   xs_user;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(META_W + 1), .REG_TYPE(2)) u_xreg (
      .clk, .rst,
      .s_axis_tdata(x_data), .s_axis_tkeep(x_keep), .s_axis_tvalid(x_valid),
      .s_axis_tready(x_ready), .s_axis_tlast(x_last), .s_axis_tuser({rep_meta_h, x_user}),
      .m_axis_tdata(xs_data), .m_axis_tkeep(xs_keep), .m_axis_tvalid(xs_valid),
      .m_axis_tready(di_ready[1]), .m_axis_tlast(xs_last), .m_axis_tuser(xs_user)
  );
  assign di_data  = {xs_data, dq_data};
  assign di_keep  = {xs_keep, dq_keep};
  assign di_valid = {xs_valid, dq_valid};
  assign di_last  = {xs_last, dq_last};
  assign di_user  = {xs_user, dq_user};
  assign x_fire   = x_valid && x_ready;

  logic [DATA_W-1:0] da_data;
  logic [KEEP_W-1:0] da_keep;
  logic              da_valid, da_ready, da_last;
  logic [META_W:0]   da_user;
  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(META_W + 1)) u_darb (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata(di_data), .s_axis_tkeep(di_keep), .s_axis_tvalid(di_valid),
      .s_axis_tready(di_ready), .s_axis_tlast(di_last), .s_axis_tuser(di_user),
      .m_axis_tdata(da_data), .m_axis_tkeep(da_keep), .m_axis_tvalid(da_valid),
      .m_axis_tready(da_ready), .m_axis_tlast(da_last), .m_axis_tuser(da_user),
      .sel(di_sel_unused)
  );

  // (the decoder registers its input itself: skid register, registered ready)
  assign dec_data  = da_data;
  assign dec_keep  = da_keep;
  assign dec_valid = da_valid;
  assign da_ready  = dec_ready;
  assign dec_last  = da_last;
  assign dec_user  = da_user;

  logic [DATA_W-1:0] rc_data;
  logic [KEEP_W-1:0] rc_keep;
  logic              rc_valid, rc_ready, rc_last;
  logic [META_W:0]   rc_user;
  logic              unrep_valid;
  logic [15:0]       unrep_gid;
  logic [MAX_K-1:0]  unrep_missing;
  logic [31:0]       dst_groups_unused, dst_complete_unused, dst_dup_unused, dst_stale_unused,
                     dst_malformed_unused;

  fabnic_fec_dec #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .MAX_K(MAX_K), .MAX_R(MAX_R), .NGROUP(NGROUP),
      .NSRC(NSRC), .MAX_LEN(MAX_LEN)
  ) u_dec (
      .clk, .rst, .cfg_k, .flush(1'b0),
      .clr_valid(clr_q), .clr_src(clr_src_q),
      .s_axis_tdata(dec_data), .s_axis_tkeep(dec_keep), .s_axis_tvalid(dec_valid),
      .s_axis_tready(dec_ready), .s_axis_tlast(dec_last), .s_axis_tuser(dec_user),
      .m_axis_tdata(rc_data), .m_axis_tkeep(rc_keep), .m_axis_tvalid(rc_valid),
      .m_axis_tready(rc_ready), .m_axis_tlast(rc_last), .m_axis_tuser(rc_user),
      .unrep_valid, .unrep_gid, .unrep_missing,
      .stat_repaired, .stat_rec_groups(dst_groups_unused), .stat_unrepairable,
      .stat_complete(dst_complete_unused), .stat_dup(dst_dup_unused),
      .stat_stale(dst_stale_unused), .stat_malformed(dst_malformed_unused)
  );

  // group numbering table, learned from repair trailers
  logic [15:0] ft_gid_q  [NGROUP];
  logic [15:0] ft_fseq_q [NGROUP];
  logic [7:0]  ft_d_q    [NGROUP];
  logic        ft_v_q    [NGROUP];
  meta_t       rcm;
  logic [NG_W-1:0] rci, uri;
  logic        rc_seq_ok;
  logic [15:0] rc_seq;

  // Recovered frames are numbered seq = fseq + idx*D in two register stages: the
  // table lookup (rl_*), then the product (rp_*); the sum feeds the writer's input.
  typedef struct packed {
    logic        ok;       // group numbered and frame good
    logic [7:0]  idx;
    logic [15:0] fseq;
    logic [7:0]  d;
  } rl_t;
  typedef struct packed {
    logic        ok;
    logic [15:0] fseq;
    logic [15:0] prod;
  } rp_t;
  rl_t         rl_in, rl;
  rp_t         rp_in, rp;
  logic [$bits(rl_t)-1:0] rl_raw;
  logic [$bits(rp_t)-1:0] rp_raw;
  logic [DATA_W-1:0] rl_data, rp_data;
  logic [KEEP_W-1:0] rl_keep, rp_keep;
  logic              rl_valid, rl_ready, rl_last, rp_valid, rp_ready, rp_last;

  assign rcm       = meta_t'(rc_user[META_W:1]);
  assign rci       = rcm.gid[NG_W-1:0];
  assign rc_seq_ok = ft_v_q[rci] && ft_gid_q[rci] == rcm.gid;
  always_comb begin
    rl_in      = '0;
    rl_in.ok   = rc_seq_ok && !rc_user[0];
    rl_in.idx  = rcm.idx;
    rl_in.fseq = ft_fseq_q[rci];
    rl_in.d    = ft_d_q[rci];
    rp_in      = '0;
    rp_in.ok   = rl.ok;
    rp_in.fseq = rl.fseq;
    rp_in.prod = 16'(rl.idx) * 16'(rl.d);
  end
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W($bits(rl_t)), .REG_TYPE(2))
  u_rlreg (
      .clk, .rst,
      .s_axis_tdata(rc_data), .s_axis_tkeep(rc_keep), .s_axis_tvalid(rc_valid),
      .s_axis_tready(rc_ready), .s_axis_tlast(rc_last), .s_axis_tuser(rl_in),
      .m_axis_tdata(rl_data), .m_axis_tkeep(rl_keep), .m_axis_tvalid(rl_valid),
      .m_axis_tready(rl_ready), .m_axis_tlast(rl_last), .m_axis_tuser(rl_raw)
  );
  assign rl = rl_t'(rl_raw);
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W($bits(rp_t)), .REG_TYPE(2))
  u_rpreg (
      .clk, .rst,
      .s_axis_tdata(rl_data), .s_axis_tkeep(rl_keep), .s_axis_tvalid(rl_valid),
      .s_axis_tready(rl_ready), .s_axis_tlast(rl_last), .s_axis_tuser(rp_in),
      .m_axis_tdata(rp_data), .m_axis_tkeep(rp_keep), .m_axis_tvalid(rp_valid),
      .m_axis_tready(rp_ready), .m_axis_tlast(rp_last), .m_axis_tuser(rp_raw)
  );
  assign rp     = rp_t'(rp_raw);
  assign rc_seq = rp.fseq + rp.prod;

  // ================================================================ reorder buffer
  // writer input: data frames (0) and recovered frames (1)
  logic [2*DATA_W-1:0] wi_data;
  logic [2*KEEP_W-1:0] wi_keep;
  logic [1:0]          wi_valid, wi_ready, wi_last;
  logic [2*17-1:0]     wi_user;
  logic [DATA_W-1:0]   w_data;
  logic [KEEP_W-1:0]   w_keep;
  logic                w_valid, w_ready, w_last;
  logic [16:0]         w_user;
  logic                wi_sel_unused;

  assign wi_data  = {rp_data, c_data};
  assign wi_keep  = {rp_keep, c_keep};
  assign wi_valid = {rp_valid, w0_valid};
  assign wi_last  = {rp_last, c_last};
  assign wi_user  = {rc_seq, rp.ok, cm.seq, 1'b1};
  logic [24:0] rcm_unused;
  assign rcm_unused = {rcm.len, rcm.cnt, rcm.is_repair};
  assign w0_ready = wi_ready[0];
  assign rp_ready = wi_ready[1];

  logic [DATA_W-1:0] wa_data;
  logic [KEEP_W-1:0] wa_keep;
  logic              wa_valid, wa_ready, wa_last;
  logic [16:0]       wa_user;
  fabnic_axis_arb_mux #(.N(2), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(17)) u_warb (
      .clk, .rst, .enable(2'b11),
      .s_axis_tdata(wi_data), .s_axis_tkeep(wi_keep), .s_axis_tvalid(wi_valid),
      .s_axis_tready(wi_ready), .s_axis_tlast(wi_last), .s_axis_tuser(wi_user),
      .m_axis_tdata(wa_data), .m_axis_tkeep(wa_keep), .m_axis_tvalid(wa_valid),
      .m_axis_tready(wa_ready), .m_axis_tlast(wa_last), .m_axis_tuser(wa_user),
      .sel(wi_sel_unused)
  );

  // the writer decides on a registered beat
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(17), .REG_TYPE(2)) u_wreg (
      .clk, .rst,
      .s_axis_tdata(wa_data), .s_axis_tkeep(wa_keep), .s_axis_tvalid(wa_valid),
      .s_axis_tready(wa_ready), .s_axis_tlast(wa_last), .s_axis_tuser(wa_user),
      .m_axis_tdata(w_data), .m_axis_tkeep(w_keep), .m_axis_tvalid(w_valid),
      .m_axis_tready(w_ready), .m_axis_tlast(w_last), .m_axis_tuser(w_user)
  );

  logic [15:0]       head_q;
  logic              sv_q [NROB];        // slot holds a frame
  logic [15:0]       sseq_q [NROB];
  logic [SB_W:0]     snb_q [NROB];       // beats
  logic [KEEP_W-1:0] skeep_q [NROB];     // last beat's tkeep
  logic [RS_W:0]     rcnt_q;             // frames held

  // writer
  logic              w_busy_q, w_acc_q, w_over_q;
  // bypass (engine selective repeat): data and rebuilt frames go to the output as they
  // come; the buffer sees nothing, so it never holds, times out or NAKs
  logic              wb_valid, wb_ready, bp_ready;
  assign wb_valid = w_valid && !cfg_rx_bypass;
  assign w_ready  = cfg_rx_bypass ? bp_ready : wb_ready;
  logic [15:0]       w_seq_q, w_seq;
  logic [SB_W:0]     w_beat_q;
  logic              w_far, w_stall, w_accept, w_fire, w_done;
  logic [RS_W-1:0]   w_slot;
  logic              force_skip;

  assign w_seq    = w_busy_q ? w_seq_q : w_user[16:1];
  assign w_slot   = w_seq[RS_W-1:0];
  // The relations of the writer's seq to the head come from registers: every cycle
  // d = w_seq - head is compared (wa*_q: d >= 0 / 1 / 2, wn*_q: d < NROB / NROB+1,
  // wl*_q: d < -4096 / -4095) for use in the next cycle, where they are read for the
  // head as it is then: moved on by one meanwhile (mv_q) or jumped to this very frame
  // (rs_q, a resync). A frame's first beat is therefore taken at the earliest in the
  // cycle after it reached the writer (w_cls_q: it was there, untaken, last cycle).
  logic wa0_q, wa1_q, wa2_q, wn0_q, wn1_q, wl0_q, wl1_q, mv_q, rs_q, w_cls_q;
  logic w_ahead0, w_ahead1, w_ltn, w_back, w_resync, w_normal;
  assign w_ahead0 = rs_q || (mv_q ? wa1_q : wa0_q);       // seq >= head
  assign w_ahead1 = !rs_q && (mv_q ? wa2_q : wa1_q);      // seq >= head + 1
  assign w_ltn    = mv_q ? wn1_q : wn0_q;                 // seq - head < NROB
  assign w_back   = mv_q ? wl1_q : wl0_q;                 // seq - head < -4096
  // empty buffer and a frame far ahead / far behind: the sequences lost touch
  assign w_resync = rcnt_q == '0 && (!w_ltn || w_back);
  // the first beat's slot is held: looked up in the classification cycle (wsv_q), and
  // freed since if the reader finished that slot then (wfr_q; the writer itself writes
  // no slot while a first beat waits)
  logic wsv_q, wfr_q, w_sv;
  assign w_sv     = wsv_q && !wfr_q;
  assign w_normal = w_ahead0 && w_ltn && !w_sv;
  assign w_far    = !w_busy_q && w_user[0] && !w_ltn && rcnt_q != '0;
  // a frame too far ahead waits while the head is pushed on
  assign w_stall    = wb_valid && w_cls_q && w_far;
  assign force_skip = w_stall;
  assign wb_ready = (w_busy_q || w_cls_q) && !w_far;
  assign w_fire   = wb_valid && wb_ready;
  assign w_accept = w_busy_q ? w_acc_q : (w_user[0] && (w_normal || w_resync));
  assign w_done   = w_fire && w_last;

  logic              ram_we;
  logic [RA_W-1:0]   ram_wa, ram_ra;
  logic              ram_re;
  logic [DATA_W-1:0] ram_rd;

  assign ram_we = w_fire && w_accept && (w_busy_q ? !w_over_q : 1'b1) &&
                  (w_busy_q ? w_beat_q < (SB_W+1)'(SB) : 1'b1);
  assign ram_wa = {w_slot, w_busy_q ? w_beat_q[SB_W-1:0] : {SB_W{1'b0}}};

  fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(NROB * SB)) u_rob (
      .clk,
      .wr_en(ram_we), .wr_be(1'b1), .wr_addr(ram_wa), .wr_data(w_data),
      .rd_en(ram_re), .rd_regce(1'b1), .rd_addr(ram_ra), .rd_data(ram_rd)
  );

  // a finished frame is kept unless the head passed it meanwhile (given up). The head
  // is never given up while the writer holds its frame (h_writing), so a skip in the
  // frame's last cycle cannot pass it: "not behind the head" is w_ahead0 either way.
  logic w_commit;
  logic h_skip, rd_issue, rd_lastbeat;
  assign w_commit = w_done && w_accept && !(w_busy_q && w_over_q) &&
                    ((!w_busy_q && w_resync) || w_ahead0);

  // reader
  logic              rd_busy_q, rd_v_q, rd_last_q;
  logic [KEEP_W-1:0] rd_keep_q;
  logic [SB_W:0]     rd_beat_q, rd_left_q;   // beat to read, beats left (incl. it)
  logic              rd_lastb_q;             // rd_left_q == 1
  logic              of_room_q;              // output FIFO room, from last cycle's depth
  logic              su0_q, su1_q, su_new_q, su_hit;
  logic              to_q, wrst_q, to_hit;
  logic [RS_W-1:0]   hslot;
  logic              h_here, h_writing;
  logic [15:0]       wait_q;
  logic [15:0]       su_q;               // give up missing seqs up to here
  logic              su_v_q;
  logic [DATA_W-1:0] of_data;
  logic [KEEP_W-1:0] of_keep;
  logic              of_valid, of_ready, of_last, of_user;
  logic [4:0]        of_depth;
  logic [4:0]        ofst_unused;

  assign hslot     = head_q[RS_W-1:0];
  // The held frames' seqs lie in [head, head + NROB) (a frame is stored only that close
  // to the head, the head passes a seq only after its frame left, a resync needs an
  // empty buffer), so a held slot at the head's index holds the head (asserted below).
  assign h_here    = sv_q[hslot];
  // the writer holds the head's frame: writing it, or its first beat classified
  assign h_writing = w_ahead0 && !w_ahead1 &&
                     (w_busy_q ? w_acc_q : (wb_valid && w_cls_q && w_user[0]));
  // give-up point reached (su0_q/su1_q: head <= su for last cycle's head / that + 1;
  // not in the cycle after su changed or the head jumped)
  assign su_hit    = !su_new_q && !rs_q && (mv_q ? su1_q : su0_q);
  // wait_q >= cfg_rob_timeout, from last cycle's wait_q and whether it was reset
  assign to_hit    = to_q && !wrst_q;
  // (bypass: the buffer holds nothing and its head stays put, nothing is given up)
  assign h_skip    = !cfg_rx_bypass && !rd_busy_q && !h_here && !h_writing &&
                     (force_skip || su_hit || (rcnt_q != '0 && to_hit));
  assign rd_issue  = rd_busy_q && of_room_q;
  assign rd_lastbeat = rd_lastb_q;
  assign ram_re    = rd_issue;
  assign ram_ra    = {hslot, rd_beat_q[SB_W-1:0]};

  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(16)) u_of (
      .clk, .rst,
      .s_axis_tdata(ram_rd), .s_axis_tkeep(rd_keep_q), .s_axis_tvalid(rd_v_q),
      .s_axis_tready(ofst_unused[0]), .s_axis_tlast(rd_last_q), .s_axis_tuser(1'b0),
      .m_axis_tdata(of_data), .m_axis_tkeep(of_keep), .m_axis_tvalid(of_valid),
      .m_axis_tready(of_ready), .m_axis_tlast(of_last), .m_axis_tuser(of_user),
      .status_depth(of_depth), .status_good_frame(ofst_unused[1]),
      .status_bad_frame(ofst_unused[2]), .status_overflow(ofst_unused[3]),
      .status_oversize(ofst_unused[4])
  );

  // unrepairable report: the last missing data index of the group
  logic [7:0]  ur_last;
  logic        ur_any;
  always_comb begin
    ur_last = '0;
    ur_any  = 1'b0;
    for (int i = 0; i < MAX_K; i++) begin
      if (unrep_missing[i]) begin
        ur_last = 8'(i);
        ur_any  = 1'b1;
      end
    end
  end
  logic        ur_v_q, ug_v_q;
  logic [15:0] ur_gid_q, ug_fseq_q, ug_prod_q;
  logic [7:0]  ur_last_q;
  assign uri = ur_gid_q[NG_W-1:0];

  // ================================================================ NAK (selective retransmission)
  // The head is missing while later frames wait: after cfg_nak_delay cycles (time
  // for FEC to repair it) ask the peer's shim to resend the missing seqs of the
  // next 32 (only below the newest frame held); again every cfg_nak_retry cycles.
  // The bitmap is built in four register stages from the slot flags: per slot "holds
  // a seq in [head, head+NW)" (nh_q), rotated to head order (nr_q), then "missing
  // below a held one" (na_q: six-wide window ORs, then nm_q); each stage carries the
  // head it was computed for, and a NAK is only raised while that head is still the
  // current one. The NAK itself is a registered output (m_nak_valid, seq, map hold
  // until taken).
  localparam int NW = (NROB < 32) ? NROB : 32;
  logic [NROB-1:0] nh_q;
  logic [NW-1:0]   nr_q;
  logic [31:0]     nm_q;
  logic [15:0]     nh_head_q, nr_head_q, nm_head_q;
  logic [31:0]     miss_map;
  logic [15:0]     nak_head_q, nak_age_q;
  logic            nak_sent_q, nak_want, nak_v_q;
  logic [15:0]     nak_seq_q;
  logic [31:0]     nak_map_q;
  // "a held frame above i" as two window ORs of at most six inputs each, a register
  // between them (one LUT per bit per stage, whatever the mapper shares)
  logic [NW-1:0] na_q, na_held_q;     // OR of held flags i+1 .. i+6; the flags
  logic [15:0]   na_head_q;
  always_comb begin
    miss_map = '0;
    for (int i = 0; i < NW; i++) begin
      logic seen;
      seen = 1'b0;
      for (int w = 0; w < 6; w++) begin
        if (i + 6 * w < NW) seen = seen | na_q[i + 6 * w];
      end
      miss_map[i] = !na_held_q[i] && seen;
    end
  end
  assign nak_want    = cfg_nak_delay != 16'd0 && !rd_busy_q && !h_here && !h_writing &&
                       rcnt_q != '0 && wait_q >= cfg_nak_delay &&
                       (!nak_sent_q || nak_head_q != head_q || nak_age_q >= cfg_nak_retry) &&
                       nm_head_q == head_q && nm_q[0];
  assign m_nak_valid = nak_v_q;
  assign m_nak_seq   = nak_seq_q;
  assign m_nak_map   = nak_map_q;

  // ================================================================ output
  logic [3*DATA_W-1:0] oi_data;
  logic [3*KEEP_W-1:0] oi_keep;
  logic [2:0]          oi_valid, oi_ready, oi_last, oi_user;
  logic [1:0]          oi_sel_unused;

  assign oi_data  = {w_data, of_data, c_data};
  // plain frames: trimmed at lim (a source-table miss cuts the data trailer there)
  assign oi_keep  = {w_keep, of_keep, c_keep};
  assign oi_valid = {w_valid && cfg_rx_bypass, of_valid, p_valid};
  assign oi_last  = {w_last, of_last, c_last};
  assign oi_user  = {!w_user[0], of_user, cm.bad};   // w_user[0]: frame good (and numbered)
  assign p_ready  = oi_ready[0];
  assign of_ready = oi_ready[1];
  assign bp_ready = oi_ready[2];

  fabnic_axis_arb_mux #(.N(3), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1)) u_oarb (
      .clk, .rst, .enable(3'b111),
      .s_axis_tdata(oi_data), .s_axis_tkeep(oi_keep), .s_axis_tvalid(oi_valid),
      .s_axis_tready(oi_ready), .s_axis_tlast(oi_last), .s_axis_tuser(oi_user),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser, .sel(oi_sel_unused)
  );

  // ================================================================ state
  always_ff @(posedge clk) begin
    // ---- source table: aging (an entry unused for a whole period is freed), then
    // lookups and allocations of this cycle's frame end (they win over aging)
    clr_q <= 1'b0;
    if (NSRC > 1) begin
      age_q <= age_q + 32'd1;
      if (age_q >= 32'(AGE_CYCLES - 1)) begin
        age_q     <= '0;
        st_v_q    <= st_v_q & st_used_q;
        st_used_q <= '0;
      end
      if (cl_v_q && (fm.kind == K_DATA || fm.kind == K_REP)) begin
        st_used_q[src_idx] <= 1'b1;
        if (src_alloc) begin
          st_v_q[src_idx]  <= 1'b1;
          st_ip_q[src_idx] <= cl_sip;
          clr_q            <= 1'b1;      // the decoder forgets the old owner's groups
          clr_src_q        <= 8'(src_idx);
        end
      end
    end
    if (cl_v_q && src_miss) stat_src_full <= stat_src_full + 1;

    // ---- input
    cl_v_q <= in_fire && in_wr && in_last;
    if (in_fire) begin
      if (first) begin
        f_sip_q   <= f_sip;
        f_roce4_q <= f_roce4;
        f_rep_q   <= f_rep;
        f_nak_q   <= f_nak;
        f_olen_q  <= f_olen;
        f_dlen_q  <= f_olen + 16'd8;
        f_rlen_q  <= f_olen + 16'd12;
        f_plen_q  <= plen;
        f_repok_q <= f_iplen > 16'd44 + 16'(f_pad) && plen <= 16'(MAX_LEN);
        for (int t = 0; t < TR_B; t++) begin
          tpos_q[t] <= f_olen + 16'(t);
          th_q[t]   <= ((f_olen + 16'(t)) >> KB_W) == 16'd1;
        end
      end else begin
        for (int t = 0; t < TR_B; t++) th_q[t] <= 32'(tpos_q[t] >> KB_W) == 32'(ibeat_q) + 32'd1;
      end
      first_q <= s_axis_tlast;
      for (int t = 0; t < TR_B; t++) tr_q[t] <= tr[t];
      if (s_axis_tlast) begin
        ibeat_q <= '0;
        idrop_q <= 1'b0;
      end else begin
        ibeat_q <= ibeat_q + 1'b1;
        if (in_cut) idrop_q <= 1'b1;
      end
      if (in_wr && in_last) begin
        cl_flen_q <= flen;
        cl_bad_q  <= in_bad;
        cl_cut_q  <= in_cut;
      end
    end
    if (cl_v_q) begin
      if (cl_cut_q) stat_drop_oversize <= stat_drop_oversize + 1;
      case (fm.kind)
        K_DATA:  stat_data_frames    <= stat_data_frames + 1;
        K_REP:   stat_repair_frames  <= stat_repair_frames + 1;
        K_DROP:  if (is_nak)         stat_naks_rcvd <= stat_naks_rcvd + 1;
                 else if (!src_miss) stat_drop_malformed <= stat_drop_malformed + 1;
        default: stat_plain_frames   <= stat_plain_frames + 1;
      endcase
    end

    // ---- read stage
    dd_room_q <= 32'(dq_depth) + 32'(SB) + 32'd1 <= 32'(2 * SB);
    if (q_fire) begin
      rrem_q <= rrem - 16'(KEEP_W);
      if (q_last) begin
        rfirst_q <= 1'b1;
        rskip_q  <= 1'b0;
      end else begin
        rfirst_q <= 1'b0;
        if (rlast && !rskip_q) rskip_q <= 1'b1;
      end
    end
    if (c_valid && cm.kind == K_DATA) begin
      if (dd_valid && dd_ready) dd_done_q <= 1'b1;
      if (w0_valid && w0_ready) w0_done_q <= 1'b1;
    end
    if (c_valid && c_ready) begin
      dd_done_q <= 1'b0;
      w0_done_q <= 1'b0;
    end
    if (h_valid && h_ready && cm.first) begin
      ft_v_q[cm.sgid[NG_W-1:0]]    <= 1'b1;
      ft_gid_q[cm.sgid[NG_W-1:0]]  <= cm.sgid;
      ft_fseq_q[cm.sgid[NG_W-1:0]] <= cm.seq;
      ft_d_q[cm.sgid[NG_W-1:0]]    <= cm.d;
    end

    // ---- ROB writer
    if (w_fire) begin
      if (!w_busy_q) begin
        w_busy_q <= !w_last;
        w_seq_q  <= w_seq;
        w_acc_q  <= w_accept;
        w_over_q <= 1'b0;
        w_beat_q <= (SB_W+1)'(1);
        if (w_user[0] && w_resync) begin
          head_q          <= w_seq;          // empty buffer, far frame: resync
          stat_rob_resync <= stat_rob_resync + 1;
        end
        if (!w_user[0]) begin
          stat_rob_noseq <= stat_rob_noseq + 1;
        end else if (!w_accept) begin
          if (w_sv && w_ahead0) stat_rob_dup  <= stat_rob_dup + 1;
          else                             stat_rob_late <= stat_rob_late + 1;
        end
      end else begin
        w_beat_q <= w_beat_q + 1'b1;
        if (w_beat_q >= (SB_W+1)'(SB)) w_over_q <= 1'b1;
        if (w_last) w_busy_q <= 1'b0;
      end
    end

    // ---- ROB reader
    rd_v_q <= rd_issue;
    // room for a beat issued next cycle: the FIFO may gain this cycle's write, and the
    // beat issued this cycle is still in flight then
    of_room_q <= 32'(of_depth) + 32'(rd_v_q) < 32'd13;
    if (rd_issue) begin
      rd_keep_q  <= rd_lastbeat ? skeep_q[hslot] : {KEEP_W{1'b1}};
      rd_last_q  <= rd_lastbeat;
      rd_beat_q  <= rd_beat_q + 1'b1;
      rd_left_q  <= rd_left_q - 1'b1;
      rd_lastb_q <= rd_left_q == (SB_W+1)'(2);
    end
    if (!rd_busy_q && h_here) begin
      rd_busy_q  <= 1'b1;
      rd_beat_q  <= '0;
      rd_left_q  <= snb_q[hslot];
      rd_lastb_q <= snb_q[hslot] == (SB_W+1)'(1);
    end
    if (h_skip) begin
      head_q            <= head_q + 16'd1;
      stat_rob_given_up <= stat_rob_given_up + 1;
    end
    wrst_q <= 1'b0;
    if ((!rd_busy_q && h_here) || h_skip || !(rcnt_q != '0 && !h_here && !h_writing)) begin
      wait_q <= '0;
      wrst_q <= 1'b1;
    end else if (wait_q != 16'hFFFF) begin
      wait_q <= wait_q + 16'd1;
    end
    // next cycle's wait_q >= cfg_rob_timeout unless wait_q is reset now (wrst_q)
    to_q <= cfg_rob_timeout != 16'd0 && 17'(wait_q) + 17'd1 >= 17'(cfg_rob_timeout);
    if (su_v_q && $signed(head_q - su_q) > 0) su_v_q <= 1'b0;
    su0_q    <= su_v_q && $signed(head_q - su_q) <= 0;
    su1_q    <= su_v_q && $signed(head_q + 16'd1 - su_q) <= 0;
    su_new_q <= ug_v_q;
    for (int sl = 0; sl < NROB; sl++) begin
      logic [15:0] dq;
      dq = sseq_q[sl] - head_q;
      nh_q[sl] <= sv_q[sl] && dq < 16'(NW);
    end
    nh_head_q <= head_q;
    for (int i = 0; i < NW; i++) nr_q[i] <= nh_q[RS_W'(nh_head_q[RS_W-1:0] + RS_W'(i))];
    nr_head_q <= nh_head_q;
    for (int i = 0; i < NW; i++) begin
      logic o;
      o = 1'b0;
      for (int w = 1; w <= 6; w++) begin
        if (i + w < NW) o = o | nr_q[i + w];
      end
      na_q[i] <= o;
    end
    na_held_q <= nr_q;
    na_head_q <= nr_head_q;
    nm_q      <= miss_map;
    nm_head_q <= na_head_q;
    if (nak_age_q != 16'hFFFF) nak_age_q <= nak_age_q + 16'd1;
    if (nak_v_q) begin
      if (m_nak_ready) nak_v_q <= 1'b0;
    end else if (nak_want) begin
      nak_v_q        <= 1'b1;
      nak_seq_q      <= head_q;
      nak_map_q      <= nm_q;
      nak_sent_q     <= 1'b1;
      nak_head_q     <= head_q;
      nak_age_q      <= '0;
      stat_naks_sent <= stat_naks_sent + 1;
    end
    // unrepairable report -> give-up point, in three stages: the report (ur_*), the
    // numbering-table lookup (ug_*), the product; su_q = fseq + last missing idx * D
    ur_v_q <= unrep_valid && ur_any;
    if (unrep_valid) begin
      ur_gid_q  <= unrep_gid;
      ur_last_q <= ur_last;
    end
    ug_v_q <= ur_v_q && ft_v_q[uri] && ft_gid_q[uri] == ur_gid_q;
    if (ur_v_q) begin
      ug_fseq_q <= ft_fseq_q[uri];
      ug_prod_q <= 16'(ur_last_q) * 16'(ft_d_q[uri]);
    end
    if (ug_v_q) begin
      su_q   <= ug_fseq_q + ug_prod_q;
      su_v_q <= 1'b1;
    end

    // slot bookkeeping: reader frees, writer fills (different slots)
    if (rd_issue && rd_lastbeat) begin
      rd_busy_q   <= 1'b0;
      sv_q[hslot] <= 1'b0;
      head_q      <= head_q + 16'd1;
    end
    if (w_commit) begin
      sv_q[w_slot]    <= 1'b1;
      sseq_q[w_slot]  <= w_seq;
      snb_q[w_slot]   <= w_busy_q ? w_beat_q + 1'b1 : (SB_W+1)'(1);
      skeep_q[w_slot] <= w_keep;
    end
    if (w_commit && !(rd_issue && rd_lastbeat)) begin
      rcnt_q <= rcnt_q + 1'b1;
    end else if (!w_commit && rd_issue && rd_lastbeat) begin
      rcnt_q <= rcnt_q - 1'b1;
    end
    if (w_done && w_accept && !w_commit) stat_rob_late <= stat_rob_late + 1;
    begin
      logic signed [15:0] wd;
      wd    = $signed(w_seq - head_q);
      wa0_q <= !wd[15];
      wa1_q <= !wd[15] && wd >= 16'sd1;
      wa2_q <= !wd[15] && wd >= 16'sd2;
      wn0_q <= wd < $signed(16'(NROB));
      wn1_q <= wd < $signed(16'(NROB + 1));
      wl0_q <= wd < -16'sd4096;
      wl1_q <= wd < -16'sd4095;
    end
    w_cls_q <= w_valid && !w_busy_q && !(w_valid && w_ready);
    wsv_q   <= sv_q[w_user[RS_W:1]];
    wfr_q   <= rd_issue && rd_lastbeat && w_user[RS_W:1] == hslot;
    mv_q <= (rd_issue && rd_lastbeat) || h_skip;
    rs_q <= w_fire && !w_busy_q && w_user[0] && w_resync && !((rd_issue && rd_lastbeat) || h_skip);

    if (rst) begin
      ibeat_q  <= '0;
      first_q  <= 1'b1;
      idrop_q  <= 1'b0;
      cl_v_q   <= 1'b0;
      rfirst_q <= 1'b1;
      rskip_q  <= 1'b0;
      dd_done_q <= 1'b0;
      w0_done_q <= 1'b0;
      dd_room_q <= 1'b0;
      w_busy_q <= 1'b0;
      rd_busy_q <= 1'b0;
      rd_v_q   <= 1'b0;
      of_room_q <= 1'b0;
      w_cls_q  <= 1'b0;
      mv_q     <= 1'b0;
      rs_q     <= 1'b0;
      su_new_q <= 1'b0;
      su0_q    <= 1'b0;
      su1_q    <= 1'b0;
      to_q     <= 1'b0;
      wrst_q   <= 1'b1;
      head_q   <= '0;
      rcnt_q   <= '0;
      wait_q   <= '0;
      su_v_q   <= 1'b0;
      nak_sent_q <= 1'b0;
      nak_v_q    <= 1'b0;
      nm_head_q  <= 16'hFFFF;
      nm_q       <= '0;
      ur_v_q     <= 1'b0;
      ug_v_q     <= 1'b0;
      nak_head_q <= '0;
      nak_age_q  <= '0;
      stat_naks_sent <= '0;
      stat_src_full  <= '0;
      st_v_q     <= '0;
      st_used_q  <= '0;
      age_q      <= '0;
      clr_q      <= 1'b0;
      clr_src_q  <= '0;
      stat_naks_rcvd <= '0;
      for (int i = 0; i < NROB; i++) sv_q[i] <= 1'b0;
      for (int i = 0; i < NGROUP; i++) ft_v_q[i] <= 1'b0;
      stat_data_frames    <= '0;
      stat_repair_frames  <= '0;
      stat_plain_frames   <= '0;
      stat_drop_malformed <= '0;
      stat_drop_oversize  <= '0;
      stat_rob_given_up   <= '0;
      stat_rob_late       <= '0;
      stat_rob_dup        <= '0;
      stat_rob_resync     <= '0;
      stat_rob_noseq      <= '0;
    end
  end

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (!x_valid || repm_valid)
        else $error("fabnic_fec_rx: repair payload without its side-band entry");
      assert (!sv_q[hslot] || sseq_q[hslot] == head_q)
        else $error("fabnic_fec_rx: reorder slot at the head holds another seq");
      assert (!rd_busy_q || rd_lastb_q == (rd_left_q == (SB_W+1)'(1)))
        else $error("fabnic_fec_rx: reader's last-beat flag");
    end
  end
`endif

endmodule

`resetall
