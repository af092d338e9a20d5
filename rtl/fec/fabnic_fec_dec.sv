// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fec_dec: packet-level FEC decoder (code: fabnic_fec_pkg, docs/fec.md).
//
// The decoder is a tap: the transport hands it a copy of every data packet of
// an FEC-protected flow and every repair packet, with tuser = {fec_meta_t, bad}.
// It does not forward data packets; it outputs only the packets it recovers.
//
// Per group slot (NGROUP slots, slot = gid mod NGROUP) it keeps bitmaps of the
// received data indices and repair rows and R *syndromes* in RAM: on arrival a
// data packet i adds G[r][i]*d_i to every syndrome r, a repair packet r adds its
// payload to syndrome r (GF(2^8) multiply-accumulate, one beat per cycle, RMW).
// When the missing data indices E (|E| = e) can be solved from the first e
// received repair rows Q, the syndromes satisfy  G[Q,E] * d_E = S_Q; a small
// sequential Gauss-Jordan engine inverts G[Q,E] (at most 4x4, no pivoting is
// needed since every square submatrix of G is nonsingular) and the missing
// payloads are streamed out beat by beat as d_j = sum_q inv[j][q] * S_Q[q].
// Lengths are coded the same way (16-bit field, two GF bytes) and recovered
// alongside; a recovered length outside 1..(longest received payload) makes
// the group unrepairable instead of delivering anything.
//
// Group life cycle: FREE/DONE -> OPEN -> CLOSING (the packet that completes the
// group or makes it decodable is still being written) -> DONE (all data seen:
// stat_complete) or READY -> DECODING -> DONE. A group is released when it
// completes, is decoded, its slot is needed by a newer group (an OPEN group is
// then reported unrepairable: unrep_valid with the missing bitmap), or on
// flush (all OPEN groups reported), or by a source clear (below). Packets of DONE/closing groups or of groups
// older than the slot's are dropped (stat_stale); a data index or repair row
// seen twice is dropped (stat_dup); out-of-range indices are dropped
// (stat_malformed). A packet with tuser[0]=1 on its last beat or longer than
// MAX_LEN poisons its group (its syndromes are untrustworthy): the group is
// reported unrepairable when it closes.
//
// Source spaces (NSRC > 1, fabnic_fec_rx): the slot index is {source, gid low bits},
// so each source owns NGROUP/NSRC slots. clr_valid with clr_src frees that source's
// OPEN and DONE slots without a report (the caller gives the source space to a new
// sender, whose group ids are unrelated to the old owner's); slots in the middle of a
// decode are left alone (a source is only reassigned after a long idle time).
//
// Pipeline (decide in one stage, act in the next): s_axis enters a skid register
// (s_axis_tready is a flop), then the lookup register lk, which stores with a
// packet's first beat its relations to its slot (gid compare, duplicate, range,
// close conditions from the per-slot counts need/needr) computed from registered
// inputs; the decision at lk uses those flags and the slots' state bits, and each
// slot writes its own fields. Length bookkeeping runs one cycle after a packet's
// last beat (bk_*). A first beat is not loaded behind a beat that may change the
// flags it reads (one idle cycle after a one-beat packet, two after a bad one).
// Back-pressure (only at the first beat of a packet): while the packet's slot holds
// an older group that is closing/ready/decoding, during a flush scan, while a
// repair that changes its group's K waits for the recount of the data map, or
// while an evicting packet meets a cycle in which a report of higher priority may
// be due. m_axis (recovered packets) is flow-controlled; its FIFO never overflows
// (the engine only reads RAM when the FIFO has room).
`default_nettype none

module fabnic_fec_dec #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int MAX_K     = 32,
    parameter int MAX_R     = 4,
    parameter int NGROUP    = 8,     // group slots, power of two (>= 2*D recommended)
    parameter int NSRC      = 1,     // source spaces (power of two, < NGROUP): clr_src
    parameter int MAX_LEN   = 4096,  // power of two, >= 2*KEEP_W
    parameter int OUT_DEPTH = 16,
    parameter int USER_W    = fabnic_fec_pkg::META_W + 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [7:0]        cfg_k,   // K of groups until a repair tells its cnt
    input  wire logic              flush,   // pulse: release all OPEN groups
    input  wire logic              clr_valid,  // pulse: free the slots of source clr_src
    input  wire logic [7:0]        clr_src,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    // recovered data packets, tuser = {fec_meta_t (len = payload bytes), 1'b0}
    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    // unrepairable group report (one-cycle pulse, no back-pressure)
    output logic                   unrep_valid,
    output logic [15:0]            unrep_gid,
    output logic [MAX_K-1:0]       unrep_missing,

    output logic [31:0]            stat_repaired,      // data packets recovered
    output logic [31:0]            stat_rec_groups,    // groups recovered
    output logic [31:0]            stat_unrepairable,  // groups reported
    output logic [31:0]            stat_complete,      // groups complete without repair
    output logic [31:0]            stat_dup,
    output logic [31:0]            stat_stale,
    output logic [31:0]            stat_malformed
);

  typedef fabnic_fec_pkg::fec_meta_t meta_t;

  localparam int BEATS  = MAX_LEN / KEEP_W;
  localparam int BEAT_W = $clog2(BEATS);
  localparam int SL_W   = $clog2(NGROUP);
  localparam int AW     = SL_W + BEAT_W;
  localparam int WW     = MAX_R * DATA_W;
  localparam int KB_W   = $clog2(KEEP_W);
  localparam int CX_W   = MAX_R * 64;
  localparam int KI_W   = $clog2(MAX_K);
  localparam int RI_W   = (MAX_R > 1) ? $clog2(MAX_R) : 1;

  if (BEATS < 2 || (1 << BEAT_W) != BEATS || BEATS * KEEP_W != MAX_LEN || MAX_LEN > 32768)
  begin : g_chk_len
    $error("fabnic_fec_dec: MAX_LEN must be a power of two, >= 2*KEEP_W, <= 32768");
  end
  if (MAX_R < 1 || MAX_R > 4 || MAX_K < 2 || MAX_K > 252 || NGROUP < 2 ||
      (1 << SL_W) != NGROUP) begin : g_chk
    $error("fabnic_fec_dec: need 1<=MAX_R<=4, 2<=MAX_K<=252, NGROUP a power of two >= 2");
  end
  localparam int SRC_W = (NSRC > 1) ? $clog2(NSRC) : 0;
  if (NSRC < 1 || (1 << SRC_W) != NSRC || NSRC >= NGROUP) begin : g_chk_src
    $error("fabnic_fec_dec: NSRC must be a power of two below NGROUP");
  end
  if (USER_W != fabnic_fec_pkg::META_W + 1) begin : g_chk_user
    $error("fabnic_fec_dec: USER_W is fixed by fec_meta_t");
  end

  function automatic logic [MAX_K*CX_W-1:0] gen_cx();
    logic [MAX_K*CX_W-1:0] t;
    for (int i = 0; i < MAX_K; i++) begin
      for (int r = 0; r < MAX_R; r++) begin
        t[i*CX_W + r*64 +: 64] = fabnic_fec_pkg::gf_cx(fabnic_fec_pkg::fec_coef(8'(r), 8'(i)));
      end
    end
    return t;
  endfunction
  function automatic logic [MAX_R*MAX_K*8-1:0] gen_coef();
    logic [MAX_R*MAX_K*8-1:0] t;
    for (int r = 0; r < MAX_R; r++) begin
      for (int i = 0; i < MAX_K; i++) begin
        t[(r*MAX_K + i)*8 +: 8] = fabnic_fec_pkg::fec_coef(8'(r), 8'(i));
      end
    end
    return t;
  endfunction
  localparam logic [MAX_K*CX_W-1:0]      CX_TBL   = gen_cx();
  localparam logic [MAX_R*MAX_K*8-1:0]   COEF_TBL = gen_coef();
  localparam logic [63:0]                CX_ONE   = fabnic_fec_pkg::gf_cx(8'd1);
  function automatic logic [256*64-1:0] gen_invcx();
    logic [256*64-1:0] t;
    for (int a = 0; a < 256; a++) t[a*64 +: 64] = fabnic_fec_pkg::gf_cx(fabnic_fec_pkg::gf_inv(8'(a)));
    return t;
  endfunction
  localparam logic [256*64-1:0]          INVCX_TBL = gen_invcx();  // gf_cx(1/a)

  function automatic logic [7:0] popcount8(input logic [7:0] v);
    logic [7:0] n;
    n = '0;
    for (int i = 0; i < 8; i++) n = n + 8'(v[i]);
    return n;
  endfunction

  function automatic logic [MAX_K-1:0] kmask(input logic [7:0] k);
    logic [MAX_K-1:0] m;
    for (int i = 0; i < MAX_K; i++) m[i] = 8'(i) < k;
    return m;
  endfunction

  logic [7:0]       cfg_kc_q;   // cfg_k clamped to 1..MAX_K, registered
  logic [MAX_K-1:0] cfg_km_q;   // kmask(cfg_kc_q)
  always_ff @(posedge clk) begin
    logic [7:0] kc;
    kc = (cfg_k == 8'd0) ? 8'd1 : (int'(cfg_k) > MAX_K) ? 8'(MAX_K) : cfg_k;
    cfg_kc_q <= kc;
    cfg_km_q <= kmask(kc);
  end

  // ------------------------------------------------------------ slot state
  // a state test is one bit of the slot's register (B_*): FREE, OPEN, DONE one-hot;
  // CLOSING, READY and DECODING share the BUSY bit (the input waits on them alike)
  localparam int B_FREE = 0, B_OPEN = 1, B_BUSY = 2, B_READY = 3, B_DONE = 5;  // 4: DECODING
  typedef enum logic [5:0] {
    S_FREE     = 6'b000001,
    S_OPEN     = 6'b000010,
    S_CLOSING  = 6'b000100,
    S_READY    = 6'b001100,
    S_DECODING = 6'b010100,
    S_DONE     = 6'b100000
  } slot_st_t;

  slot_st_t         st_q      [NGROUP];
  logic             cdec_q    [NGROUP];   // CLOSING ends in READY (1) or DONE (0)
  logic [15:0]      gid_q     [NGROUP];
  logic [MAX_K-1:0] dmap_q    [NGROUP];
  logic [MAX_R-1:0] rmap_q    [NGROUP];
  logic [7:0]       k_q       [NGROUP];
  logic [BEAT_W:0]  hwb_q     [NGROUP];
  logic [15:0]      maxlen_q  [NGROUP];
  logic [15:0]      lsyn_q    [NGROUP][MAX_R];
  logic             poison_q  [NGROUP];
  logic [MAX_K-1:0] km_q      [NGROUP];   // kmask(k_q)
  // counts kept incrementally instead of popcounts of the maps (nd = data indices
  // received below K, nr = repair rows received); signed, 9 bit
  logic [8:0]       need_q    [NGROUP];   // K - nd: data packets still missing
  logic [8:0]       needr_q   [NGROUP];   // K - nd - nr: packets still needed to decode
  logic [2:0]       nr_q      [NGROUP];

  // report register sources, highest priority first
  logic             rpt_fin, rpt_eng, rpt_evict, rpt_flush;
  logic [15:0]      rpt_fin_gid, rpt_eng_gid, rpt_evict_gid, rpt_flush_gid;
  logic [MAX_K-1:0] rpt_fin_map, rpt_eng_map, rpt_evict_map, rpt_flush_map;

  // ------------------------------------------------------------ input register + lookup
  // Every input beat passes through the lk_* register. When a first beat is loaded,
  // the relations of its packet to its slot (group-id compare, duplicate bit, index
  // range, close conditions from the per-slot counters) are computed from the input
  // and registered with it; the decision at lk uses only those flags and the slot's
  // current state (decide in one stage, act in the next). The flags depend on slot
  // fields that only the beat at lk writes (gid, maps, K, counters); a first beat is
  // therefore not loaded behind a beat that may write them at the end of the cycle
  // (a one-beat packet, or a last beat that may poison: bad or oversize), which costs
  // one idle cycle after such a beat. While a first beat waits at lk only its slot's
  // state can change, and that is read fresh.
  // input skid register: s_axis_tready is a flop, the lookup sees registered inputs
  logic [DATA_W-1:0] a_data;
  logic [KEEP_W-1:0] a_keep;
  logic              a_valid, a_ready, a_last;
  logic [USER_W-1:0] a_user;
  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W), .REG_TYPE(2)) u_in (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast, .s_axis_tuser,
      .m_axis_tdata(a_data), .m_axis_tkeep(a_keep), .m_axis_tvalid(a_valid),
      .m_axis_tready(a_ready), .m_axis_tlast(a_last), .m_axis_tuser(a_user)
  );

  meta_t            in_meta;
  logic             in_bad;
  assign {in_meta, in_bad} = a_user;

  logic              lk_v_q, lk_last_q, lk_bad_q, lk_blk_q;
  logic [DATA_W-1:0] lk_data_q;
  logic [KEEP_W-1:0] lk_keep_q;
  localparam int NB8 = (KEEP_W + 15) / 16;
  logic [4:0]        lk_nb8_q [NB8];   // tkeep bits set per group of sixteen
  meta_t             lk_meta_q;
  logic              s_first_q;   // the next input beat starts a packet
  logic [BEAT_W:0]   s_beat_q;    // input beats of the current packet (saturating)

  // lookup flags of the packet whose first beat is at lk
  logic [SL_W-1:0]  lk_slot_q;
  logic [NGROUP-1:0] lk_soh_q;                    // lk_slot_q one-hot
  logic             lk_eq_q, lk_pos_q;            // gid == slot's gid / newer than it
  logic             lk_mal_keep_q, lk_mal_alloc_q; // malformed against slot K / cfg_k
  logic             lk_dup_q;                     // index/row already in the slot's maps
  logic             lk_acc_same_q;                // same gid, well-formed, not a duplicate
  logic             lk_pos_ma_q;                  // newer and well-formed for a new group
  logic             lk_full_keep_q, lk_dec_keep_q; // closes the slot's group: complete / decodable
  logic             lk_full_alloc_q, lk_dec_alloc_q; // same for a freshly allocated group
  logic             lk_kchg_q;                    // repair changes the slot's K: recount
  logic [8:0]       lk_rneed_q, lk_rneedr_q;      // need/needr after the recount
  logic             lk_rcd_q;                     // lk_rneed_q / lk_rneedr_q are valid
  logic [MAX_K-1:0] lk_kmcnt_q;                   // kmask(cnt)
  logic [CX_W-1:0]  lk_cx_q;

  logic [NGROUP-1:0] l_dbits;
  logic             l_dbit, l_rbit, l_eq, l_pos, l_mal_rep, l_mal_dk, l_mal_dcfg;
  logic [NGROUP-1:0] l_eqs, l_sign;
  logic [7:0]       l_k;
  logic [8:0]       l_need, l_needr;
  logic [CX_W-1:0]  l_cx;
  logic [SL_W-1:0]  l_slot;
  logic [4:0]       l_nb8 [NB8];
  always_comb begin
    l_slot  = in_meta.gid[SL_W-1:0];
    for (int n = 0; n < NGROUP; n++) begin
      l_eqs[n]   = in_meta.gid == gid_q[n];
      l_sign[n]  = 1'((in_meta.gid - gid_q[n]) >> 15);  // serial-number compare
    end
    l_eq    = l_eqs[l_slot];
    l_pos   = !l_eqs[l_slot] && !l_sign[l_slot];
    l_k     = k_q[l_slot];
    l_need  = need_q[l_slot];
    l_needr = needr_q[l_slot];
    for (int n = 0; n < NGROUP; n++) l_dbits[n] = dmap_q[n][in_meta.idx[KI_W-1:0]];
    l_dbit  = l_dbits[l_slot];
    l_rbit  = rmap_q[l_slot][in_meta.idx[RI_W-1:0]];
    l_mal_rep  = int'(in_meta.idx) >= MAX_R || in_meta.cnt == 8'd0 || int'(in_meta.cnt) > MAX_K;
    l_mal_dk   = int'(in_meta.idx) >= MAX_K || in_meta.idx >= l_k;
    l_mal_dcfg = int'(in_meta.idx) >= MAX_K || in_meta.idx >= cfg_kc_q;
    l_cx       = '0;
    if (in_meta.is_repair) begin
      for (int r = 0; r < MAX_R; r++) if (in_meta.idx == 8'(r)) l_cx[r*64 +: 64] = CX_ONE;
    end else begin
      l_cx = CX_TBL[in_meta.idx[KI_W-1:0] * CX_W +: CX_W];
    end
    for (int g = 0; g < NB8; g++) begin
      l_nb8[g] = '0;
      for (int m = 16 * g; m < 16 * g + 16 && m < KEEP_W; m++) l_nb8[g] = l_nb8[g] + 5'(a_keep[m]);
    end
  end

  logic             in_pkt_q, pkt_acc_q;
  logic [SL_W-1:0]  pkt_slot_q;
  logic [CX_W-1:0]  pkt_cx_q;
  logic             pkt_rep_q;
  logic [KI_W-1:0]  pkt_idx_q;
  logic [15:0]      pkt_clen_q;
  logic [BEAT_W:0]  beat_q;
  logic [15:0]      pkt_bytes_q;
  logic             flush_busy_q, flush_req_q;
  logic [SL_W:0]    flush_ptr_q;
  logic [1:0]       rc_step_q;   // recount: 0 load, 1 count 8 bits a cycle, 2 compare
  localparam int RC_W = ((MAX_K + 7) / 8) * 8;
  logic [RC_W-1:0]  rc_vec_q;
  logic [7:0]       rc_acc_q;
  logic [7:0]       rc_n_q;

  // first-beat decision at lk, from the lookup flags and the slot's current state
  logic             h_free, h_open, h_newer, h_mal, h_dup, h_evict;
  logic             h_accept, h_drop_stale, h_stall, h_full, h_dec;
  logic              h_hold;
  logic [NGROUP-1:0] newer_n, full_n, dec_n, acc_n, stall_n, we_first, we_beat;
  logic [NGROUP-1:0] v_free, v_open;
  logic             rpt_busy;
  logic             st_mal_q, st_dup_q, st_stale_q;
  logic             bk_v_q;
  logic [SL_W-1:0]  bk_slot_q;
  logic [15:0]      bk_len_q, bk_lv_q;
  logic [CX_W-1:0]  bk_cx_q;
  logic             bk_bad_q, bk_clr_q;   // bad or oversize: poison; a data packet also
  logic [MAX_K-1:0] bk_clrm_q;            // leaves the map and the counts

  always_comb begin
    for (int n = 0; n < NGROUP; n++) begin
      v_free[n] = st_q[n][B_FREE];
      v_open[n] = st_q[n][B_OPEN];
    end
  end
  assign h_free   = |(lk_soh_q & v_free);
  assign h_open   = |(lk_soh_q & v_open);
  assign h_newer  = h_free || lk_pos_q;
  always_comb begin
    // a same-group packet needs an OPEN slot (so not FREE); a newer one allocates
    h_mal        = h_newer ? lk_mal_alloc_q : lk_mal_keep_q;
    h_dup        = !h_newer && lk_dup_q;
    h_evict      = h_open && lk_pos_q;
    h_accept     = |(lk_soh_q & acc_n);
    h_drop_stale = !h_mal && ((!h_free && lk_eq_q && !h_open) || (!h_newer && !lk_eq_q));
    h_full       = h_newer ? lk_full_alloc_q : lk_full_keep_q;
    h_dec        = h_newer ? lk_dec_alloc_q : lk_dec_keep_q;
    h_stall      = h_hold || |(lk_soh_q & stall_n);
  end

  // the same decision per slot, from each slot's own state (drives that slot's writes)
  assign h_hold = flush_busy_q || flush_req_q || lk_kchg_q;
  always_comb begin
    for (int n = 0; n < NGROUP; n++) begin
      newer_n[n]  = st_q[n][B_FREE] || lk_pos_q;
      full_n[n]   = newer_n[n] ? lk_full_alloc_q : lk_full_keep_q;
      dec_n[n]    = newer_n[n] ? lk_dec_alloc_q : lk_dec_keep_q;
      acc_n[n]    = ((lk_acc_same_q && st_q[n][B_OPEN]) ||
                     (!lk_mal_alloc_q && (st_q[n][B_FREE] ||
                                          (lk_pos_q && (st_q[n][B_OPEN] || st_q[n][B_DONE]))))) &&
                    !(lk_pos_q && st_q[n][B_OPEN] && rpt_busy);
      stall_n[n]  = (lk_pos_ma_q && st_q[n][B_BUSY]) || (lk_pos_q && st_q[n][B_OPEN] && rpt_busy);
      we_first[n] = lk_v_q && !in_pkt_q && !h_hold && lk_soh_q[n] && acc_n[n];
      we_beat[n]  = lk_v_q && (in_pkt_q ? (pkt_acc_q && pkt_slot_q == SL_W'(n)) : we_first[n]);
    end
  end

  logic first, fire, acc_now, in_range, zero_old;
  logic [SL_W-1:0] ps;
  logic [CX_W-1:0] cx_now;
  logic [AW-1:0]   s0_addr;
  logic [DATA_W-1:0] data_masked;
  logic [15:0]     pkt_len;
  logic            cur_rep;
  logic [KI_W-1:0] cur_idx;

  assign first         = !in_pkt_q;
  assign fire          = lk_v_q && !(first && h_stall);
  assign a_ready       = (!lk_v_q || fire) &&
                         !(s_first_q && ((lk_v_q && lk_blk_q) || (bk_v_q && bk_bad_q)));
  assign acc_now       = first ? h_accept : pkt_acc_q;
  assign ps            = first ? lk_slot_q : pkt_slot_q;
  assign cx_now        = first ? lk_cx_q : pkt_cx_q;
  assign cur_rep       = first ? lk_meta_q.is_repair : pkt_rep_q;
  assign cur_idx       = first ? lk_meta_q.idx[KI_W-1:0] : pkt_idx_q;
  assign in_range      = beat_q < (BEAT_W+1)'(BEATS);
  logic [NGROUP-1:0] hwb_ge;
  always_comb for (int n = 0; n < NGROUP; n++) hwb_ge[n] = beat_q >= hwb_q[n];
  assign zero_old      = (first && h_newer) || hwb_ge[ps];
  assign s0_addr       = {ps, beat_q[BEAT_W-1:0]};

  always_comb begin
    for (int m = 0; m < KEEP_W; m++) begin
      data_masked[8*m +: 8] = lk_keep_q[m] ? lk_data_q[8*m +: 8] : 8'h00;
    end
  end
  always_comb begin
    logic [15:0] nb;
    nb = '0;
    for (int g = 0; g < NB8; g++) nb = nb + 16'(lk_nb8_q[g]);
    pkt_len = pkt_bytes_q + nb;
  end
  // ------------------------------------------------------------ stage 1
  logic              s1_we_q, s1_zero_q, fwd_hit_q, s1_fin_q;
  logic [AW-1:0]     s1_addr_q;
  logic [DATA_W-1:0] s1_data_q;
  logic [CX_W-1:0]   s1_cx_q;
  logic [SL_W-1:0]   s1_fin_slot_q;
  logic              s1_poi_q;        // the closing slot is poisoned
  logic [WW-1:0]     fwd_q, rdata_a, rdata_b, s1_old, s1_new;

`ifdef VERILATOR
`ifndef FABNIC_GATE_MUX
`define FABNIC_FEC_VECTOR_MUL
`endif
`endif
`ifdef FABNIC_FEC_VECTOR_MUL
  // Simulation form of a beat times one coefficient (docs/verification.md, "Simulation
  // forms"): for each bit j, the bytes whose bit j is set (spread to 0xFF by a subtraction:
  // 0x01 in byte m becomes 0xFF there) select the coefficient's multiple c*x^j. The same
  // function as gf_mul_cx per byte, in word-wide operations instead of 8*KEEP_W bit terms.
  localparam logic [DATA_W-1:0] BYTE_LSB = {KEEP_W{8'h01}};
  function automatic logic [DATA_W-1:0] gf_mul_beat(input logic [63:0] cx, input logic [DATA_W-1:0] d);
    logic [DATA_W-1:0] p, plane, t;
    p = '0;
    for (int j = 0; j < 8; j++) begin
      plane = (d >> j) & BYTE_LSB;
      t     = (plane << 8) - plane;       // mod 2^DATA_W: exact, 255 * bit fits a byte
      p     = p ^ (t & {KEEP_W{cx[8*j +: 8]}});
    end
    return p;
  endfunction
`endif

  always_comb begin
    s1_old = s1_zero_q ? '0 : (fwd_hit_q ? fwd_q : rdata_a);
    for (int r = 0; r < MAX_R; r++) begin
`ifdef FABNIC_FEC_VECTOR_MUL
      s1_new[r*DATA_W +: DATA_W] = s1_old[r*DATA_W +: DATA_W] ^
          gf_mul_beat(s1_cx_q[r*64 +: 64], s1_data_q);
`else
      for (int m = 0; m < KEEP_W; m++) begin
        s1_new[r*DATA_W + 8*m +: 8] = s1_old[r*DATA_W + 8*m +: 8] ^
            fabnic_fec_pkg::gf_mul_cx(s1_cx_q[r*64 +: 64], s1_data_q[8*m +: 8]);
      end
`endif
    end
  end

  assign rpt_fin     = s1_fin_q && s1_poi_q;
  assign rpt_fin_gid = gid_q[s1_fin_slot_q];
  // (a bad closing packet leaves the map in the same cycle, bk_clrm_q)
  assign rpt_fin_map = (~dmap_q[s1_fin_slot_q] | bk_clrm_q) & km_q[s1_fin_slot_q];

  logic rpt_evict_cand;
  assign rpt_evict_cand = lk_v_q && first && h_evict && !flush_busy_q;
  assign rpt_evict      = fire && first && h_evict;
  assign rpt_evict_gid = gid_q[lk_slot_q];
  assign rpt_evict_map = ~dmap_q[lk_slot_q] & km_q[lk_slot_q];

  // ------------------------------------------------------------ engine
  typedef enum logic [3:0] {
    E_IDLE, E_COUNT, E_LIST, E_LOAD, E_PIV, E_SCALE, E_CX, E_ELIM, E_CJ, E_CLEN, E_CHK, E_SETJ,
    E_STREAM, E_FAIL, E_END
  } eng_st_t;

  eng_st_t          en_q;
  logic             en_fail_q;   // en_q == E_FAIL
  logic [SL_W-1:0]  en_slot_q;
  logic [NGROUP-1:0] en_pmask_q;   // round robin: slots above the last one taken
  logic [7:0]       en_e_q, en_n_q, en_c_q, en_j_q;
  logic [7:0]       en_miss_q [MAX_R];
  logic [7:0]       en_row_q  [MAX_R];
  logic [MAX_K-1:0] en_mvec_q;              // missing indices not yet listed
  logic [MAX_R-1:0] en_rvec_q;              // received rows not yet listed
  logic [15:0]      en_maxlen_q;            // the slot's longest packet, syndromes of
  logic [15:0]      en_lsyn_q [MAX_R];      // the lengths (fixed while it decodes)
  logic [MAX_R-1:0] en_rsel_q [MAX_R];      // [q][r]: inverse row q belongs to syndrome r
  logic [63:0]      en_picx_q;              // inverse of the pivot (gf_cx form)
  logic [63:0]      en_pacx_q [MAX_R];      // scaled pivot rows (gf_cx form)
  logic [63:0]      en_pbcx_q [MAX_R];
  logic             en_bad_q;               // a recovered length failed its check
  logic [7:0]       en_pa_q [MAX_R];        // pivot row of ma / mb
  logic [7:0]       en_pb_q [MAX_R];
  logic [7:0]       en_fac_q [MAX_R];       // column en_c_q of ma, per row
  logic [63:0]      en_cjcx_q [MAX_R];      // coefficients of packet en_j_q (gf_cx form)
  logic [7:0]       en_cjs_q [MAX_R][MAX_R]; // the same for every packet, for E_SETJ
  logic [15:0]      en_cl_q;                // its recovered length
  logic [KEEP_W-1:0] en_lkeep_q;            // tkeep of its last beat
  logic [7:0]       ma_q [MAX_R][MAX_R];
  logic [7:0]       mb_q [MAX_R][MAX_R];
  logic [15:0]      en_len_q [MAX_R];
  logic [CX_W-1:0]  en_cx_q;
  logic [BEAT_W:0]  en_beat_q, en_nb_q;
  logic [$clog2(OUT_DEPTH):0] fifo_depth;

  // pick a READY slot, round-robin (the lowest READY slot above the one taken last,
  // else the lowest); registered, taken in E_IDLE (a READY slot stays READY
  // until the engine takes it)
  logic             pick_v, pick_v_q;
  logic [SL_W-1:0]  pick_slot, pick_slot_q;
  always_comb begin
    logic [NGROUP-1:0] rdy, hi;
    for (int n = 0; n < NGROUP; n++) begin
      rdy[n] = st_q[n][B_READY];
      hi[n]  = rdy[n] && en_pmask_q[n];
    end
    pick_v    = |rdy;
    pick_slot = '0;
    for (int n = NGROUP - 1; n >= 0; n--) begin
      if (|hi ? hi[n] : rdy[n]) pick_slot = SL_W'(n);
    end
  end

  // the lowest set bit of the missing-index / received-row vectors (E_LIST)
  logic [7:0] nx_miss, nx_row;
  always_comb begin
    logic [MAX_K-1:0] lowm;
    logic [MAX_R-1:0] lowr;
    lowm    = en_mvec_q & (~en_mvec_q + 1'b1);   // one-hot
    lowr    = en_rvec_q & (~en_rvec_q + 1'b1);
    nx_miss = '0;
    nx_row  = '0;
    for (int i = 0; i < MAX_K; i++) if (lowm[i]) nx_miss = nx_miss | 8'(i);
    for (int r = 0; r < MAX_R; r++) if (lowr[r]) nx_row = nx_row | 8'(r);
  end

  // coefficients of recovered packet en_j_q on the syndrome rows: row q of the inverse
  // belongs to syndrome row en_row_q[q] (en_rsel_q, set in E_LOAD)
  logic [7:0]  cj [MAX_R];
  logic [15:0] cj_len;
  always_comb begin
    for (int r = 0; r < MAX_R; r++) begin
      cj[r] = '0;
      for (int q = 0; q < MAX_R; q++) begin
        if (en_rsel_q[q][r]) cj[r] = cj[r] | mb_q[en_j_q[RI_W-1:0]][q];
      end
    end
    cj_len = '0;
    for (int r = 0; r < MAX_R; r++) begin
      cj_len = cj_len ^ {fabnic_fec_pkg::gf_mul_cx(en_cjcx_q[r], en_lsyn_q[r][15:8]),
                         fabnic_fec_pkg::gf_mul_cx(en_cjcx_q[r], en_lsyn_q[r][7:0])};
    end
  end

  logic        en_issue, en_last_beat;
  logic [15:0] en_len_cur;
  logic [KEEP_W-1:0] en_keep;
  meta_t       en_meta;
  logic        o1_v_q, o1_last_q;
  logic [KEEP_W-1:0] o1_keep_q;
  meta_t       o1_meta_q;
  logic [CX_W-1:0] o1_cx_q;

  assign en_len_cur   = en_len_q[en_j_q[RI_W-1:0]];
  assign en_issue     = en_q == E_STREAM && (32'(fifo_depth) + 32'(o1_v_q) < OUT_DEPTH - 1);
  assign en_last_beat = en_beat_q + 1'b1 >= en_nb_q;
  always_comb begin
    en_keep           = en_last_beat ? en_lkeep_q : '1;
    en_meta           = '0;
    en_meta.len       = en_len_cur;
    en_meta.cnt       = k_q[en_slot_q];
    en_meta.idx       = en_miss_q[en_j_q[RI_W-1:0]];
    en_meta.gid       = gid_q[en_slot_q];
    en_meta.is_repair = 1'b0;
  end

  assign rpt_eng     = en_fail_q && !rpt_fin;
  assign rpt_eng_gid = gid_q[en_slot_q];
  assign rpt_eng_map = ~dmap_q[en_slot_q] & km_q[en_slot_q];
  // the input stalls an evicting packet while a report of higher priority may be due
  assign rpt_busy    = s1_fin_q || en_fail_q;   // covers rpt_fin || rpt_eng

  // flush scan
  logic [SL_W-1:0] fl_slot;
  assign fl_slot       = flush_ptr_q[SL_W-1:0];
  assign rpt_flush     = flush_busy_q && !flush_ptr_q[SL_W] && st_q[fl_slot][B_OPEN] &&
                         !rpt_fin && !rpt_eng;
  assign rpt_flush_gid = gid_q[fl_slot];
  assign rpt_flush_map = ~dmap_q[fl_slot] & km_q[fl_slot];

  // ------------------------------------------------------------ RAMs (two copies)
  logic [WW-1:0] mem_a [1 << AW];
  logic [WW-1:0] mem_b [1 << AW];
  always_ff @(posedge clk) begin
    if (s1_we_q) begin
      mem_a[s1_addr_q] <= s1_new;
      mem_b[s1_addr_q] <= s1_new;
    end
    if (fire && acc_now && in_range) rdata_a <= mem_a[s0_addr];
    if (en_issue) rdata_b <= mem_b[{en_slot_q, en_beat_q[BEAT_W-1:0]}];
  end

  // recovered beat: sum over syndrome rows
  logic [DATA_W-1:0] o1_data;
  always_comb begin
`ifdef FABNIC_FEC_VECTOR_MUL
    o1_data = '0;
    for (int r = 0; r < MAX_R; r++) begin
      o1_data = o1_data ^ gf_mul_beat(o1_cx_q[r*64 +: 64], rdata_b[r*DATA_W +: DATA_W]);
    end
    for (int m = 0; m < KEEP_W; m++) if (!o1_keep_q[m]) o1_data[8*m +: 8] = 8'h00;
`else
    for (int m = 0; m < KEEP_W; m++) begin
      logic [7:0] b;
      b = '0;
      for (int r = 0; r < MAX_R; r++) begin
        b = b ^ fabnic_fec_pkg::gf_mul_cx(o1_cx_q[r*64 +: 64], rdata_b[r*DATA_W + 8*m +: 8]);
      end
      o1_data[8*m +: 8] = o1_keep_q[m] ? b : 8'h00;
    end
`endif
  end

  logic       fifo_in_ready_unused;
  logic [3:0] fifo_st_unused;
  fabnic_axis_fifo #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W), .DEPTH(OUT_DEPTH)
  ) u_out_fifo (
      .clk, .rst,
      .s_axis_tdata(o1_data), .s_axis_tkeep(o1_keep_q), .s_axis_tvalid(o1_v_q),
      .s_axis_tready(fifo_in_ready_unused), .s_axis_tlast(o1_last_q),
      .s_axis_tuser({o1_meta_q, 1'b0}),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser,
      .status_depth(fifo_depth), .status_good_frame(fifo_st_unused[0]),
      .status_bad_frame(fifo_st_unused[1]), .status_overflow(fifo_st_unused[2]),
      .status_oversize(fifo_st_unused[3])
  );

  // ------------------------------------------------------------ sequential
  always_ff @(posedge clk) begin
    s1_we_q   <= 1'b0;
    s1_fin_q  <= 1'b0;
    fwd_hit_q <= 1'b0;
    fwd_q     <= s1_new;
    o1_v_q    <= 1'b0;

    // -------- source clear (lowest priority: every later write to a slot wins)
    if (clr_valid && NSRC > 1) begin
      for (int n = 0; n < NGROUP; n++) begin
        if (32'(n >> (SL_W - SRC_W)) == 32'(clr_src) &&
            (st_q[n][B_OPEN] || st_q[n][B_DONE])) begin
          st_q[n] <= S_FREE;
        end
      end
    end

    // -------- report register
    // (an evicting packet only fires when no report of higher priority is due, and
    // never during a flush scan, so its candidate can select the data before it fires)
    unrep_valid <= rpt_fin || rpt_eng || rpt_evict || rpt_flush;
    if (rpt_fin) begin
      unrep_gid <= rpt_fin_gid; unrep_missing <= rpt_fin_map;
    end else if (rpt_eng) begin
      unrep_gid <= rpt_eng_gid; unrep_missing <= rpt_eng_map;
    end else if (rpt_evict_cand) begin
      unrep_gid <= rpt_evict_gid; unrep_missing <= rpt_evict_map;
    end else if (rpt_flush) begin
      unrep_gid <= rpt_flush_gid; unrep_missing <= rpt_flush_map;
    end
    if (rpt_fin || rpt_eng || rpt_evict || rpt_flush) stat_unrepairable <= stat_unrepairable + 1;

    // -------- stage 1: the closing packet has been written
    if (s1_fin_q) begin
      if (s1_poi_q || !cdec_q[s1_fin_slot_q]) begin
        st_q[s1_fin_slot_q] <= S_DONE;
        if (!s1_poi_q) stat_complete <= stat_complete + 1;
      end else begin
        st_q[s1_fin_slot_q] <= S_READY;
      end
    end

    // -------- length bookkeeping of the packet that ended in the previous cycle (a
    // newer group's allocation in this cycle, below, overrides it)
    bk_v_q <= 1'b0;
    if (bk_v_q) begin
      if (bk_bad_q) poison_q[bk_slot_q] <= 1'b1;
      if (bk_clr_q) begin
        dmap_q[bk_slot_q]  <= dmap_q[bk_slot_q] & ~bk_clrm_q;
        need_q[bk_slot_q]  <= need_q[bk_slot_q] + 9'd1;
        needr_q[bk_slot_q] <= needr_q[bk_slot_q] + 9'd1;
      end
      if (bk_len_q > maxlen_q[bk_slot_q]) maxlen_q[bk_slot_q] <= bk_len_q;
      for (int r = 0; r < MAX_R; r++) begin
        lsyn_q[bk_slot_q][r] <= lsyn_q[bk_slot_q][r] ^ {
            fabnic_fec_pkg::gf_mul_cx(bk_cx_q[r*64 +: 64], bk_lv_q[15:8]),
            fabnic_fec_pkg::gf_mul_cx(bk_cx_q[r*64 +: 64], bk_lv_q[7:0])};
      end
    end

    // -------- input register (lk) and its lookup flags
    if (a_valid && a_ready) begin
      s_first_q <= a_last;
      s_beat_q  <= a_last ? '0 : (&s_beat_q) ? s_beat_q : s_beat_q + 1'b1;
      lk_data_q   <= a_data;
      lk_keep_q   <= a_keep;
      lk_last_q   <= a_last;
      lk_bad_q    <= in_bad;
      lk_nb8_q    <= l_nb8;
      // this beat may write the slot fields that a following first beat's lookup reads
      lk_blk_q    <= a_last && (s_first_q || in_bad || s_beat_q >= (BEAT_W+1)'(BEATS));
      if (s_first_q) begin
        lk_meta_q       <= in_meta;
        lk_kmcnt_q      <= kmask(in_meta.cnt);
        lk_slot_q       <= l_slot;
        lk_soh_q        <= NGROUP'(1) << l_slot;
        lk_eq_q         <= l_eq;
        lk_pos_q        <= l_pos;
        lk_pos_ma_q     <= l_pos && !(in_meta.is_repair ? l_mal_rep : l_mal_dcfg);
        lk_mal_keep_q   <= in_meta.is_repair ? l_mal_rep : l_mal_dk;
        lk_mal_alloc_q  <= in_meta.is_repair ? l_mal_rep : l_mal_dcfg;
        lk_dup_q        <= in_meta.is_repair ? l_rbit : l_dbit;
        lk_acc_same_q   <= l_eq && !(in_meta.is_repair ? l_mal_rep : l_mal_dk) &&
                           !(in_meta.is_repair ? l_rbit : l_dbit);
        lk_cx_q         <= l_cx;
        lk_kchg_q       <= in_meta.is_repair && !l_mal_rep && in_meta.cnt != l_k;
        lk_rcd_q        <= 1'b0;
        rc_step_q       <= 2'd0;
        // (a repair whose cnt differs from K is recounted first, lk_kchg_q)
        if (in_meta.is_repair) begin
          lk_full_keep_q  <= $signed(l_need) <= 9'sd0;
          lk_dec_keep_q   <= $signed(l_needr) <= 9'sd1;
          lk_full_alloc_q <= 1'b0;
          lk_dec_alloc_q  <= in_meta.cnt <= 8'd1;
        end else begin
          lk_full_keep_q  <= $signed(l_need) <= 9'sd1;
          lk_dec_keep_q   <= $signed(l_needr) <= 9'sd1;
          lk_full_alloc_q <= cfg_kc_q <= 8'd1;
          lk_dec_alloc_q  <= cfg_kc_q <= 8'd1;
        end
      end
    end
    if (fire) lk_v_q <= 1'b0;
    if (a_valid && a_ready) lk_v_q <= 1'b1;

    // -------- recount of a repair that changes its group's K (the packet waits at lk)
    if (lk_v_q && first && lk_kchg_q) begin
      case (rc_step_q)
        2'd0: begin
          rc_vec_q  <= RC_W'(dmap_q[lk_slot_q] & lk_kmcnt_q);
          rc_acc_q  <= '0;
          rc_n_q    <= '0;
          rc_step_q <= 2'd1;
        end
        2'd1: begin
          rc_acc_q <= rc_acc_q + popcount8(rc_vec_q[7:0]);
          rc_vec_q <= rc_vec_q >> 8;
          rc_n_q   <= rc_n_q + 8'd1;
          if (int'(rc_n_q) == (MAX_K + 7) / 8 - 1) rc_step_q <= 2'd2;
        end
        default: begin
          lk_full_keep_q <= rc_acc_q >= lk_meta_q.cnt;
          lk_dec_keep_q  <= 9'(rc_acc_q) + 9'(nr_q[lk_slot_q]) + 9'd1 >= 9'(lk_meta_q.cnt);
          lk_rneed_q     <= 9'(lk_meta_q.cnt) - 9'(rc_acc_q);
          lk_rneedr_q    <= 9'(lk_meta_q.cnt) - 9'(rc_acc_q) - 9'(nr_q[lk_slot_q]) - 9'd1;
          lk_rcd_q       <= 1'b1;
          lk_kchg_q      <= 1'b0;
          rc_step_q      <= 2'd0;
        end
      endcase
    end

    // -------- input decision and syndrome RMW (the beat at lk); the slot fields are
    // written per slot from that slot's own state (we_first, we_beat), not through
    // the muxed decision
    for (int n = 0; n < NGROUP; n++) begin
      if (we_first[n]) begin
        gid_q[n] <= lk_meta_q.gid;
        k_q[n]   <= lk_meta_q.is_repair ? lk_meta_q.cnt : newer_n[n] ? cfg_kc_q : k_q[n];
        km_q[n]  <= lk_meta_q.is_repair ? lk_kmcnt_q : newer_n[n] ? cfg_km_q : km_q[n];
        if (lk_meta_q.is_repair) begin
          dmap_q[n] <= newer_n[n] ? '0 : dmap_q[n];
          rmap_q[n] <= (newer_n[n] ? '0 : rmap_q[n]) | MAX_R'(1 << lk_meta_q.idx[RI_W-1:0]);
          need_q[n]  <= newer_n[n] ? 9'(lk_meta_q.cnt) : lk_rcd_q ? lk_rneed_q : need_q[n];
          needr_q[n] <= newer_n[n] ? 9'(lk_meta_q.cnt) - 9'd1 :
                        lk_rcd_q ? lk_rneedr_q : needr_q[n] - 9'd1;
          nr_q[n]   <= newer_n[n] ? 3'd1 : nr_q[n] + 3'd1;
        end else begin
          dmap_q[n] <= (newer_n[n] ? '0 : dmap_q[n]) | MAX_K'(1 << lk_meta_q.idx[KI_W-1:0]);
          rmap_q[n] <= newer_n[n] ? '0 : rmap_q[n];
          need_q[n]  <= (newer_n[n] ? 9'(cfg_kc_q) : need_q[n]) - 9'd1;
          needr_q[n] <= (newer_n[n] ? 9'(cfg_kc_q) : needr_q[n]) - 9'd1;
          nr_q[n]   <= newer_n[n] ? 3'd0 : nr_q[n];
        end
        st_q[n]   <= (full_n[n] || dec_n[n]) ? S_CLOSING : S_OPEN;
        cdec_q[n] <= !full_n[n];
        if (newer_n[n]) begin
          hwb_q[n]    <= '0;
          maxlen_q[n] <= '0;
          poison_q[n] <= 1'b0;
          for (int r = 0; r < MAX_R; r++) lsyn_q[n][r] <= '0;
        end
      end
      if (we_beat[n] && in_range && (hwb_ge[n] || (first && newer_n[n]))) begin
        hwb_q[n] <= beat_q + 1'b1;
      end
    end
    if (fire) begin
      if (first) begin
        pkt_acc_q  <= h_accept;
        pkt_slot_q <= lk_slot_q;
        pkt_cx_q   <= lk_cx_q;
        pkt_rep_q  <= lk_meta_q.is_repair;
        pkt_idx_q  <= lk_meta_q.idx[KI_W-1:0];
        pkt_clen_q <= lk_meta_q.len;
      end
      // syndrome RMW
      s1_we_q   <= acc_now && in_range;
      s1_addr_q <= s0_addr;
      s1_data_q <= data_masked;
      s1_cx_q   <= cx_now;
      s1_zero_q <= zero_old;
      fwd_hit_q <= s1_we_q && acc_now && in_range && s1_addr_q == s0_addr;
      if (!(&beat_q)) beat_q <= beat_q + 1'b1;
      pkt_bytes_q <= pkt_len;
      in_pkt_q    <= !lk_last_q;
      if (lk_last_q) begin
        beat_q      <= '0;
        pkt_bytes_q <= '0;
        if (acc_now) begin
          // length bookkeeping in the next cycle (bk_*), from registers
          bk_v_q    <= 1'b1;
          bk_slot_q <= ps;
          bk_len_q  <= pkt_len;
          bk_lv_q   <= cur_rep ? (first ? lk_meta_q.len : pkt_clen_q) : pkt_len;
          bk_cx_q   <= cx_now;
          bk_bad_q  <= lk_bad_q || !in_range;
          bk_clr_q  <= (lk_bad_q || !in_range) && !cur_rep;
          bk_clrm_q <= ((lk_bad_q || !in_range) && !cur_rep) ? MAX_K'(1 << cur_idx) : '0;
          // (a slot being written is OPEN or CLOSING, so BUSY means CLOSING here)
          if (first ? (h_full || h_dec) : st_q[ps][B_BUSY]) begin
            s1_fin_q      <= 1'b1;
            s1_fin_slot_q <= ps;
            s1_poi_q      <= ((first && h_newer) ? 1'b0 : poison_q[ps]) || lk_bad_q || !in_range;
          end
        end
      end
    end
    // counters of dropped packets, one cycle after the decision
    st_mal_q   <= fire && first && h_mal;
    st_dup_q   <= fire && first && h_dup && !h_mal && !h_drop_stale;
    st_stale_q <= fire && first && h_drop_stale;
    if (st_mal_q) stat_malformed <= stat_malformed + 1;
    if (st_dup_q) stat_dup <= stat_dup + 1;
    if (st_stale_q) stat_stale <= stat_stale + 1;

    // -------- flush scan
    if (flush) flush_req_q <= 1'b1;
    if (flush_req_q && !flush_busy_q && !in_pkt_q) begin
      flush_req_q  <= flush;
      flush_busy_q <= 1'b1;
      flush_ptr_q  <= '0;
    end else if (flush_busy_q) begin
      if (st_q[fl_slot][B_OPEN]) begin
        if (rpt_flush) begin
          st_q[fl_slot] <= S_DONE;
          flush_ptr_q   <= flush_ptr_q + 1'b1;
        end
      end else begin
        flush_ptr_q <= flush_ptr_q + 1'b1;
      end
      if (flush_ptr_q == (SL_W+1)'(NGROUP)) flush_busy_q <= 1'b0;
    end

    // -------- engine
    pick_v_q    <= pick_v;
    pick_slot_q <= pick_slot;
    case (en_q)
      E_IDLE: begin
        if (pick_v_q) begin
          en_q        <= E_COUNT;
          en_slot_q   <= pick_slot_q;
          for (int n = 0; n < NGROUP; n++) en_pmask_q[n] <= SL_W'(n) > pick_slot_q;
          st_q[pick_slot_q] <= S_DECODING;
          en_n_q      <= '0;
        end
      end
      E_COUNT: begin  // e = K - data received below K; the slot's fields into registers
        en_e_q      <= need_q[en_slot_q][7:0];
        en_mvec_q   <= ~dmap_q[en_slot_q] & km_q[en_slot_q];
        en_rvec_q   <= rmap_q[en_slot_q];
        en_maxlen_q <= maxlen_q[en_slot_q];
        for (int r = 0; r < MAX_R; r++) en_lsyn_q[r] <= lsyn_q[en_slot_q][r];
        en_q        <= E_LIST;
      end
      E_LIST: begin
        if (en_e_q == 8'd0 || int'(en_e_q) > MAX_R) begin
          en_q      <= E_FAIL;  // cannot happen for a consistent group
          en_fail_q <= 1'b1;
        end else if (en_n_q >= en_e_q) begin
          en_q <= E_LOAD;
        end else begin
          en_miss_q[en_n_q[RI_W-1:0]] <= nx_miss;
          en_row_q[en_n_q[RI_W-1:0]]  <= nx_row;
          en_mvec_q <= en_mvec_q & (en_mvec_q - 1'b1);  // lowest set bit taken
          en_rvec_q <= en_rvec_q & (en_rvec_q - 1'b1);
          en_n_q <= en_n_q + 8'd1;
        end
      end
      E_LOAD: begin
        for (int q = 0; q < MAX_R; q++) begin
          for (int c = 0; c < MAX_R; c++) begin
            if (8'(q) < en_e_q && 8'(c) < en_e_q) begin
              ma_q[q][c] <= COEF_TBL[(32'(en_row_q[q]) * MAX_K + 32'(en_miss_q[c])) * 8 +: 8];
            end else begin
              ma_q[q][c] <= (q == c) ? 8'd1 : 8'd0;
            end
            mb_q[q][c] <= (q == c) ? 8'd1 : 8'd0;
          end
          for (int r = 0; r < MAX_R; r++) en_rsel_q[q][r] <= 8'(q) < en_e_q && en_row_q[q] == 8'(r);
        end
        en_c_q   <= '0;
        en_bad_q <= 1'b0;
        en_q     <= E_PIV;
      end
      E_PIV: begin  // pivot inverse, pivot row and column into registers
        if (ma_q[en_c_q[RI_W-1:0]][en_c_q[RI_W-1:0]] == 8'd0) begin
          en_q      <= E_FAIL;
          en_fail_q <= 1'b1;
        end else begin
          en_picx_q <= INVCX_TBL[ma_q[en_c_q[RI_W-1:0]][en_c_q[RI_W-1:0]] * 64 +: 64];
          for (int c = 0; c < MAX_R; c++) begin
            en_pa_q[c]  <= ma_q[en_c_q[RI_W-1:0]][c];
            en_pb_q[c]  <= mb_q[en_c_q[RI_W-1:0]][c];
            en_fac_q[c] <= ma_q[c][en_c_q[RI_W-1:0]];
          end
          en_q <= E_SCALE;
        end
      end
      E_SCALE: begin
        for (int c = 0; c < MAX_R; c++) begin
          ma_q[en_c_q[RI_W-1:0]][c] <= fabnic_fec_pkg::gf_mul_cx(en_picx_q, en_pa_q[c]);
          mb_q[en_c_q[RI_W-1:0]][c] <= fabnic_fec_pkg::gf_mul_cx(en_picx_q, en_pb_q[c]);
          en_pa_q[c] <= fabnic_fec_pkg::gf_mul_cx(en_picx_q, en_pa_q[c]);
          en_pb_q[c] <= fabnic_fec_pkg::gf_mul_cx(en_picx_q, en_pb_q[c]);
        end
        en_q <= E_CX;
      end
      E_CX: begin  // scaled pivot row into gf_cx form
        for (int c = 0; c < MAX_R; c++) begin
          en_pacx_q[c] <= fabnic_fec_pkg::gf_cx(en_pa_q[c]);
          en_pbcx_q[c] <= fabnic_fec_pkg::gf_cx(en_pb_q[c]);
        end
        en_q <= E_ELIM;
      end
      E_ELIM: begin
        for (int q = 0; q < MAX_R; q++) begin
          if (8'(q) != en_c_q) begin
            for (int c = 0; c < MAX_R; c++) begin
              ma_q[q][c] <= ma_q[q][c] ^ fabnic_fec_pkg::gf_mul_cx(en_pacx_q[c], en_fac_q[q]);
              mb_q[q][c] <= mb_q[q][c] ^ fabnic_fec_pkg::gf_mul_cx(en_pbcx_q[c], en_fac_q[q]);
            end
          end
        end
        if (en_c_q + 8'd1 >= en_e_q) begin  // columns >= e are identity already
          en_q   <= E_CJ;
          en_j_q <= '0;
        end else begin
          en_c_q <= en_c_q + 8'd1;
          en_q   <= E_PIV;
        end
      end
      E_CJ: begin  // per recovered packet: its coefficients, length, length check
        if (en_bad_q) begin
          en_q      <= E_FAIL;
          en_fail_q <= 1'b1;
        end else if (en_j_q >= en_e_q) begin
          en_j_q <= '0;
          en_q   <= E_SETJ;
        end else begin
          for (int r = 0; r < MAX_R; r++) begin
            en_cjcx_q[r]                     <= fabnic_fec_pkg::gf_cx(cj[r]);
            en_cjs_q[en_j_q[RI_W-1:0]][r]    <= cj[r];
          end
          en_q <= E_CLEN;
        end
      end
      E_CLEN: begin
        en_cl_q <= cj_len;
        en_q    <= E_CHK;
      end
      E_CHK: begin  // the result is acted on in E_CJ
        en_bad_q <= en_cl_q == 16'd0 || en_cl_q > en_maxlen_q;
        en_len_q[en_j_q[RI_W-1:0]] <= en_cl_q;
        en_j_q <= en_j_q + 8'd1;
        en_q   <= E_CJ;
      end
      E_SETJ: begin
        if (en_j_q >= en_e_q) begin
          en_q <= E_END;
        end else begin
          logic [KB_W-1:0] lm1;   // last beat's bytes - 1
          lm1 = en_len_cur[KB_W-1:0] - 1'b1;
          for (int r = 0; r < MAX_R; r++) begin
            en_cx_q[r*64 +: 64] <= fabnic_fec_pkg::gf_cx(en_cjs_q[en_j_q[RI_W-1:0]][r]);
          end
          for (int m = 0; m < KEEP_W; m++) en_lkeep_q[m] <= KB_W'(m) <= lm1;
          en_beat_q <= '0;
          en_nb_q   <= (BEAT_W+1)'((en_len_cur + 16'(KEEP_W - 1)) >> KB_W);
          en_q      <= E_STREAM;
        end
      end
      E_STREAM: begin
        if (en_issue) begin
          o1_v_q    <= 1'b1;
          o1_last_q <= en_last_beat;
          o1_keep_q <= en_keep;
          o1_meta_q <= en_meta;
          o1_cx_q   <= en_cx_q;
          en_beat_q <= en_beat_q + 1'b1;
          if (en_last_beat) begin
            stat_repaired <= stat_repaired + 1;
            en_j_q <= en_j_q + 8'd1;
            en_q   <= E_SETJ;
          end
        end
      end
      E_FAIL: begin  // report when the port is free (rpt_eng)
        if (!rpt_fin) begin
          st_q[en_slot_q] <= S_DONE;
          en_q      <= E_IDLE;
          en_fail_q <= 1'b0;
        end
      end
      E_END: begin
        st_q[en_slot_q] <= S_DONE;
        stat_rec_groups <= stat_rec_groups + 1;
        en_q <= E_IDLE;
      end
      default: en_q <= E_IDLE;
    endcase

    if (rst) begin
      in_pkt_q     <= 1'b0;
      s_first_q    <= 1'b1;
      s_beat_q     <= '0;
      lk_v_q       <= 1'b0;
      lk_kchg_q    <= 1'b0;
      rc_step_q    <= 2'd0;
      pick_v_q     <= 1'b0;
      st_mal_q     <= 1'b0;
      bk_v_q       <= 1'b0;
      st_dup_q     <= 1'b0;
      st_stale_q   <= 1'b0;
      pkt_acc_q    <= 1'b0;
      beat_q       <= '0;
      pkt_bytes_q  <= '0;
      s1_we_q      <= 1'b0;
      s1_fin_q     <= 1'b0;
      fwd_hit_q    <= 1'b0;
      o1_v_q       <= 1'b0;
      flush_busy_q <= 1'b0;
      flush_req_q  <= 1'b0;
      flush_ptr_q  <= '0;
      en_q         <= E_IDLE;
      en_fail_q    <= 1'b0;
      en_pmask_q   <= '1;
      unrep_valid  <= 1'b0;
      unrep_gid    <= '0;
      unrep_missing <= '0;
      for (int s = 0; s < NGROUP; s++) begin
        st_q[s]     <= S_FREE;
        gid_q[s]    <= '0;
        dmap_q[s]   <= '0;
        rmap_q[s]   <= '0;
        k_q[s]      <= 8'd1;
        hwb_q[s]    <= '0;
        maxlen_q[s] <= '0;
        poison_q[s] <= 1'b0;
        cdec_q[s]   <= 1'b0;
        need_q[s]   <= 9'd1;
        needr_q[s]  <= 9'd1;
        km_q[s]     <= kmask(8'd1);
        nr_q[s]     <= '0;
        for (int r = 0; r < MAX_R; r++) lsyn_q[s][r] <= '0;
      end
      stat_repaired     <= '0;
      stat_rec_groups   <= '0;
      stat_unrepairable <= '0;
      stat_complete     <= '0;
      stat_dup          <= '0;
      stat_stale        <= '0;
      stat_malformed    <= '0;
    end
  end

  logic unused_ok;
  assign unused_ok = ^{fifo_in_ready_unused, fifo_st_unused};

endmodule

`resetall
