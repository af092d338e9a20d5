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
// Back-pressure (s_axis_tready low, only at the first beat of a packet): while
// the packet's slot holds an older group that is closing/ready/decoding, during
// a flush scan, or for one cycle when an eviction report collides with another
// report. m_axis (recovered packets) is flow-controlled; its FIFO never
// overflows (the engine only reads RAM when the FIFO has room).
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
  function automatic logic [256*8-1:0] gen_inv();
    logic [256*8-1:0] t;
    for (int a = 0; a < 256; a++) t[a*8 +: 8] = fabnic_fec_pkg::gf_inv(8'(a));
    return t;
  endfunction
  localparam logic [MAX_K*CX_W-1:0]      CX_TBL   = gen_cx();
  localparam logic [256*8-1:0]           INV_TBL  = gen_inv();  // 256 x 8 ROM
  localparam logic [MAX_R*MAX_K*8-1:0]   COEF_TBL = gen_coef();
  localparam logic [63:0]                CX_ONE   = fabnic_fec_pkg::gf_cx(8'd1);

  function automatic logic [7:0] popcount(input logic [MAX_K-1:0] v);
    logic [7:0] n;
    n = '0;
    for (int i = 0; i < MAX_K; i++) n = n + 8'(v[i]);
    return n;
  endfunction

  function automatic logic [MAX_K-1:0] kmask(input logic [7:0] k);
    logic [MAX_K-1:0] m;
    for (int i = 0; i < MAX_K; i++) m[i] = 8'(i) < k;
    return m;
  endfunction

  logic [7:0] cfg_k_c;
  assign cfg_k_c = (cfg_k == 8'd0) ? 8'd1 : (int'(cfg_k) > MAX_K) ? 8'(MAX_K) : cfg_k;

  // ------------------------------------------------------------ slot state
  typedef enum logic [2:0] {
    S_FREE, S_OPEN, S_CLOSING, S_READY, S_DECODING, S_DONE
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

  // report register sources, highest priority first
  logic             rpt_fin, rpt_eng, rpt_evict, rpt_flush;
  logic [15:0]      rpt_fin_gid, rpt_eng_gid, rpt_evict_gid, rpt_flush_gid;
  logic [MAX_K-1:0] rpt_fin_map, rpt_eng_map, rpt_evict_map, rpt_flush_map;

  // ------------------------------------------------------------ input stage 0
  meta_t            in_meta;
  logic             in_bad;
  assign {in_meta, in_bad} = s_axis_tuser;

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

  // first-beat decision
  logic [SL_W-1:0]  h_slot;
  slot_st_t         h_st;
  logic [15:0]      h_gdiff;
  logic             h_same, h_newer, h_malformed, h_dup, h_alloc, h_evict;
  logic             h_accept, h_drop_stale, h_stall;
  logic [7:0]       h_k;
  logic [MAX_K-1:0] h_dmap;
  logic [MAX_R-1:0] h_rmap;
  logic [CX_W-1:0]  h_cx;

  assign h_slot  = in_meta.gid[SL_W-1:0];
  assign h_st    = st_q[h_slot];
  assign h_gdiff = in_meta.gid - gid_q[h_slot];
  assign h_same  = h_st != S_FREE && h_gdiff == 16'd0;
  assign h_newer = h_st == S_FREE || (h_gdiff != 16'd0 && !h_gdiff[15]);

  always_comb begin
    h_alloc = h_newer;
    h_evict = h_newer && h_st == S_OPEN;
    h_k     = h_alloc ? cfg_k_c : k_q[h_slot];
    h_dmap  = h_alloc ? '0 : dmap_q[h_slot];
    h_rmap  = h_alloc ? '0 : rmap_q[h_slot];
    if (in_meta.is_repair) begin
      h_malformed = int'(in_meta.idx) >= MAX_R || in_meta.cnt == 8'd0 ||
                    int'(in_meta.cnt) > MAX_K;
      h_dup       = !h_malformed && h_rmap[in_meta.idx[RI_W-1:0]];
      h_cx        = '0;
      for (int r = 0; r < MAX_R; r++) begin
        if (in_meta.idx == 8'(r)) h_cx[r*64 +: 64] = CX_ONE;
      end
    end else begin
      h_malformed = int'(in_meta.idx) >= MAX_K || in_meta.idx >= h_k;
      h_dup       = !h_malformed && h_dmap[in_meta.idx[KI_W-1:0]];
      h_cx        = CX_TBL[in_meta.idx[KI_W-1:0] * CX_W +: CX_W];
    end
    h_stall      = 1'b0;
    h_accept     = 1'b0;
    h_drop_stale = 1'b0;
    if (h_malformed) begin
      h_accept = 1'b0;
    end else if (h_same) begin
      h_accept     = h_st == S_OPEN && !h_dup;
      h_drop_stale = h_st != S_OPEN;
    end else if (h_newer) begin
      if (h_st == S_CLOSING || h_st == S_READY || h_st == S_DECODING) h_stall = 1'b1;
      else h_accept = !h_dup;  // a fresh slot has no duplicates
    end else begin
      h_drop_stale = 1'b1;
    end
    if (h_evict && (rpt_fin || rpt_eng)) h_stall = 1'b1;  // report port busy
    if (flush_busy_q || flush_req_q) h_stall = 1'b1;
  end

  logic first, fire, acc_now, in_range, zero_old;
  logic [SL_W-1:0] ps;
  logic [CX_W-1:0] cx_now;
  logic [AW-1:0]   s0_addr;
  logic [DATA_W-1:0] data_masked;
  logic [KB_W:0]   nbytes;
  logic [15:0]     pkt_len;

  assign first         = !in_pkt_q;
  assign s_axis_tready = !(first && h_stall);
  assign fire          = s_axis_tvalid && s_axis_tready;
  assign acc_now       = first ? h_accept : pkt_acc_q;
  assign ps            = first ? h_slot : pkt_slot_q;
  assign cx_now        = first ? h_cx : pkt_cx_q;
  assign in_range      = beat_q < (BEAT_W+1)'(BEATS);
  assign zero_old      = (first && h_alloc) || beat_q >= hwb_q[ps];
  assign s0_addr       = {ps, beat_q[BEAT_W-1:0]};

  always_comb begin
    nbytes = '0;
    for (int m = 0; m < KEEP_W; m++) begin
      data_masked[8*m +: 8] = s_axis_tkeep[m] ? s_axis_tdata[8*m +: 8] : 8'h00;
      nbytes = nbytes + (KB_W+1)'(s_axis_tkeep[m]);
    end
  end
  assign pkt_len = pkt_bytes_q + 16'(nbytes);

  // slot counts after this packet is claimed
  logic [MAX_K-1:0] c_dmap;
  logic [MAX_R-1:0] c_rmap;
  logic [7:0]       c_k, c_nd, c_nr;
  always_comb begin
    c_dmap = h_dmap;
    c_rmap = h_rmap;
    c_k    = in_meta.is_repair ? in_meta.cnt : h_k;
    if (in_meta.is_repair) c_rmap[in_meta.idx[RI_W-1:0]] = 1'b1;
    else c_dmap[in_meta.idx[KI_W-1:0]] = 1'b1;
    c_nd = popcount(c_dmap & kmask(c_k));
    c_nr = 8'(popcount(MAX_K'(c_rmap)));
  end

  // ------------------------------------------------------------ stage 1
  logic              s1_we_q, s1_zero_q, fwd_hit_q, s1_fin_q;
  logic [AW-1:0]     s1_addr_q;
  logic [DATA_W-1:0] s1_data_q;
  logic [CX_W-1:0]   s1_cx_q;
  logic [SL_W-1:0]   s1_fin_slot_q;
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

  assign rpt_fin     = s1_fin_q && poison_q[s1_fin_slot_q];
  assign rpt_fin_gid = gid_q[s1_fin_slot_q];
  assign rpt_fin_map = ~dmap_q[s1_fin_slot_q] & kmask(k_q[s1_fin_slot_q]);

  assign rpt_evict     = fire && first && h_evict;
  assign rpt_evict_gid = gid_q[h_slot];
  assign rpt_evict_map = ~dmap_q[h_slot] & kmask(k_q[h_slot]);

  // ------------------------------------------------------------ engine
  typedef enum logic [3:0] {
    E_IDLE, E_LIST, E_LOAD, E_SCALE, E_ELIM, E_CHK, E_SETJ, E_STREAM, E_WAIT, E_FAIL, E_END
  } eng_st_t;

  eng_st_t          en_q;
  logic [SL_W-1:0]  en_slot_q, en_ptr_q;
  logic [7:0]       en_e_q, en_n_q, en_c_q, en_j_q;
  logic [7:0]       en_miss_q [MAX_R];
  logic [7:0]       en_row_q  [MAX_R];
  logic [MAX_K-1:0] en_taken_q;
  logic [MAX_R-1:0] en_rtaken_q;
  logic [7:0]       ma_q [MAX_R][MAX_R];
  logic [7:0]       mb_q [MAX_R][MAX_R];
  logic [15:0]      en_len_q [MAX_R];
  logic [CX_W-1:0]  en_cx_q;
  logic [BEAT_W:0]  en_beat_q, en_nb_q;
  logic [$clog2(OUT_DEPTH):0] fifo_depth;

  // pick a READY slot, round-robin from en_ptr_q
  logic             pick_v;
  logic [SL_W-1:0]  pick_slot;
  always_comb begin
    pick_v    = 1'b0;
    pick_slot = '0;
    for (int n = NGROUP - 1; n >= 0; n--) begin
      if (st_q[SL_W'(en_ptr_q + SL_W'(n))] == S_READY) begin
        pick_v    = 1'b1;
        pick_slot = SL_W'(en_ptr_q + SL_W'(n));
      end
    end
  end

  // next missing index and next received repair row
  logic [7:0] nx_miss, nx_row;
  always_comb begin
    logic [MAX_K-1:0] free_d;
    logic [MAX_R-1:0] free_r;
    free_d  = ~(dmap_q[en_slot_q] | en_taken_q) & kmask(k_q[en_slot_q]);
    free_r  = rmap_q[en_slot_q] & ~en_rtaken_q;
    nx_miss = '0;
    nx_row  = '0;
    for (int i = MAX_K - 1; i >= 0; i--) if (free_d[i]) nx_miss = 8'(i);
    for (int r = MAX_R - 1; r >= 0; r--) if (free_r[r]) nx_row = 8'(r);
  end

  // Gauss-Jordan helpers on column en_c_q
  logic [7:0] gj_piv, gj_inv;
  assign gj_piv = ma_q[en_c_q[RI_W-1:0]][en_c_q[RI_W-1:0]];
  assign gj_inv = INV_TBL[gj_piv*8 +: 8];

  // coefficients of recovered packet en_j_q on syndrome rows
  logic [7:0]  cj [MAX_R];
  logic [15:0] cj_len;
  always_comb begin
    for (int r = 0; r < MAX_R; r++) cj[r] = '0;
    for (int q = 0; q < MAX_R; q++) begin
      if (8'(q) < en_e_q) begin
        for (int r = 0; r < MAX_R; r++) begin
          if (en_row_q[q] == 8'(r)) cj[r] = mb_q[en_j_q[RI_W-1:0]][q];
        end
      end
    end
    cj_len = '0;
    for (int r = 0; r < MAX_R; r++) begin
      cj_len = cj_len ^ {fabnic_fec_pkg::gf_mul(cj[r], lsyn_q[en_slot_q][r][15:8]),
                         fabnic_fec_pkg::gf_mul(cj[r], lsyn_q[en_slot_q][r][7:0])};
    end
  end

  logic        en_issue, en_last_beat;
  logic [15:0] en_len_cur, en_rem;
  logic [KEEP_W-1:0] en_keep;
  meta_t       en_meta;
  logic        o1_v_q, o1_last_q;
  logic [KEEP_W-1:0] o1_keep_q;
  meta_t       o1_meta_q;
  logic [CX_W-1:0] o1_cx_q;

  assign en_len_cur   = en_len_q[en_j_q[RI_W-1:0]];
  assign en_issue     = en_q == E_STREAM && (32'(fifo_depth) + 32'(o1_v_q) < OUT_DEPTH - 1);
  assign en_last_beat = en_beat_q + 1'b1 >= en_nb_q;
  assign en_rem       = en_len_cur - 16'({en_beat_q, {KB_W{1'b0}}});
  always_comb begin
    for (int m = 0; m < KEEP_W; m++) en_keep[m] = !en_last_beat || (16'(m) < en_rem);
    en_meta           = '0;
    en_meta.len       = en_len_cur;
    en_meta.cnt       = k_q[en_slot_q];
    en_meta.idx       = en_miss_q[en_j_q[RI_W-1:0]];
    en_meta.gid       = gid_q[en_slot_q];
    en_meta.is_repair = 1'b0;
  end

  assign rpt_eng     = en_q == E_FAIL && !rpt_fin;
  assign rpt_eng_gid = gid_q[en_slot_q];
  assign rpt_eng_map = ~dmap_q[en_slot_q] & kmask(k_q[en_slot_q]);

  // flush scan
  logic [SL_W-1:0] fl_slot;
  assign fl_slot       = flush_ptr_q[SL_W-1:0];
  assign rpt_flush     = flush_busy_q && !flush_ptr_q[SL_W] && st_q[fl_slot] == S_OPEN &&
                         !rpt_fin && !rpt_eng;
  assign rpt_flush_gid = gid_q[fl_slot];
  assign rpt_flush_map = ~dmap_q[fl_slot] & kmask(k_q[fl_slot]);

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
            (st_q[n] == S_OPEN || st_q[n] == S_DONE)) begin
          st_q[n] <= S_FREE;
        end
      end
    end

    // -------- report register
    unrep_valid <= 1'b0;
    if (rpt_fin) begin
      unrep_valid <= 1'b1; unrep_gid <= rpt_fin_gid; unrep_missing <= rpt_fin_map;
    end else if (rpt_eng) begin
      unrep_valid <= 1'b1; unrep_gid <= rpt_eng_gid; unrep_missing <= rpt_eng_map;
    end else if (rpt_evict) begin
      unrep_valid <= 1'b1; unrep_gid <= rpt_evict_gid; unrep_missing <= rpt_evict_map;
    end else if (rpt_flush) begin
      unrep_valid <= 1'b1; unrep_gid <= rpt_flush_gid; unrep_missing <= rpt_flush_map;
    end
    if (rpt_fin || rpt_eng || rpt_evict || rpt_flush) stat_unrepairable <= stat_unrepairable + 1;

    // -------- stage 1: the closing packet has been written
    if (s1_fin_q) begin
      if (poison_q[s1_fin_slot_q] || !cdec_q[s1_fin_slot_q]) begin
        st_q[s1_fin_slot_q] <= S_DONE;
        if (!poison_q[s1_fin_slot_q]) stat_complete <= stat_complete + 1;
      end else begin
        st_q[s1_fin_slot_q] <= S_READY;
      end
    end

    // -------- input
    if (fire) begin
      if (first) begin
        pkt_acc_q  <= h_accept;
        pkt_slot_q <= h_slot;
        pkt_cx_q   <= h_cx;
        pkt_rep_q  <= in_meta.is_repair;
        pkt_idx_q  <= in_meta.idx[KI_W-1:0];
        pkt_clen_q <= in_meta.len;
        if (h_malformed) stat_malformed <= stat_malformed + 1;
        if (h_dup && !h_drop_stale) stat_dup <= stat_dup + 1;
        if (h_drop_stale) stat_stale <= stat_stale + 1;
        if (h_accept) begin
          gid_q[h_slot]  <= in_meta.gid;
          dmap_q[h_slot] <= c_dmap;
          rmap_q[h_slot] <= c_rmap;
          k_q[h_slot]    <= c_k;
          if (c_nd >= c_k) begin
            st_q[h_slot]   <= S_CLOSING;
            cdec_q[h_slot] <= 1'b0;
          end else if (c_nd + c_nr >= c_k) begin
            st_q[h_slot]   <= S_CLOSING;
            cdec_q[h_slot] <= 1'b1;
          end else begin
            st_q[h_slot]   <= S_OPEN;
          end
          if (h_alloc) begin
            hwb_q[h_slot]    <= '0;
            maxlen_q[h_slot] <= '0;
            poison_q[h_slot] <= 1'b0;
            for (int r = 0; r < MAX_R; r++) lsyn_q[h_slot][r] <= '0;
          end
        end
      end
      // syndrome RMW
      s1_we_q   <= acc_now && in_range;
      s1_addr_q <= s0_addr;
      s1_data_q <= data_masked;
      s1_cx_q   <= cx_now;
      s1_zero_q <= zero_old;
      fwd_hit_q <= s1_we_q && acc_now && in_range && s1_addr_q == s0_addr;
      if (acc_now && in_range && zero_old) hwb_q[ps] <= beat_q + 1'b1;
      if (acc_now && beat_q == (BEAT_W+1)'(BEATS)) poison_q[ps] <= 1'b1;
      if (!(&beat_q)) beat_q <= beat_q + 1'b1;
      pkt_bytes_q <= pkt_len;
      in_pkt_q    <= !s_axis_tlast;
      if (s_axis_tlast) begin
        beat_q      <= '0;
        pkt_bytes_q <= '0;
        if (acc_now) begin
          logic [15:0] lv;
          logic [15:0] base_max;
          lv       = (first ? in_meta.is_repair : pkt_rep_q) ? (first ? in_meta.len : pkt_clen_q)
                                                           : pkt_len;
          base_max = (first && h_alloc) ? 16'd0 : maxlen_q[ps];
          if (pkt_len > base_max) maxlen_q[ps] <= pkt_len;
          for (int r = 0; r < MAX_R; r++) begin
            lsyn_q[ps][r] <= ((first && h_alloc) ? 16'd0 : lsyn_q[ps][r]) ^ {
                fabnic_fec_pkg::gf_mul_cx(cx_now[r*64 +: 64], lv[15:8]),
                fabnic_fec_pkg::gf_mul_cx(cx_now[r*64 +: 64], lv[7:0])};
          end
          if (in_bad || !in_range) begin
            poison_q[ps] <= 1'b1;
            if (!(first ? in_meta.is_repair : pkt_rep_q)) begin
              dmap_q[ps][(first ? in_meta.idx[KI_W-1:0] : pkt_idx_q)] <= 1'b0;
            end
          end
          if (first ? (c_nd >= c_k || c_nd + c_nr >= c_k) : st_q[ps] == S_CLOSING) begin
            s1_fin_q      <= 1'b1;
            s1_fin_slot_q <= ps;
          end
        end
      end
    end

    // -------- flush scan
    if (flush) flush_req_q <= 1'b1;
    if (flush_req_q && !flush_busy_q && !in_pkt_q) begin
      flush_req_q  <= flush;
      flush_busy_q <= 1'b1;
      flush_ptr_q  <= '0;
    end else if (flush_busy_q) begin
      if (st_q[fl_slot] == S_OPEN) begin
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
    case (en_q)
      E_IDLE: begin
        if (pick_v) begin
          en_q        <= E_LIST;
          en_slot_q   <= pick_slot;
          en_ptr_q    <= pick_slot + 1'b1;
          st_q[pick_slot] <= S_DECODING;
          en_e_q      <= k_q[pick_slot] - popcount(dmap_q[pick_slot] & kmask(k_q[pick_slot]));
          en_n_q      <= '0;
          en_taken_q  <= '0;
          en_rtaken_q <= '0;
        end
      end
      E_LIST: begin
        if (en_e_q == 8'd0 || int'(en_e_q) > MAX_R) begin
          en_q <= E_FAIL;  // cannot happen for a consistent group
        end else if (en_n_q >= en_e_q) begin
          en_q <= E_LOAD;
        end else begin
          en_miss_q[en_n_q[RI_W-1:0]] <= nx_miss;
          en_row_q[en_n_q[RI_W-1:0]]  <= nx_row;
          en_taken_q[nx_miss[KI_W-1:0]] <= 1'b1;
          en_rtaken_q[nx_row[RI_W-1:0]] <= 1'b1;
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
        end
        en_c_q <= '0;
        en_q   <= E_SCALE;
      end
      E_SCALE: begin
        if (gj_piv == 8'd0) begin
          en_q <= E_FAIL;
        end else begin
          for (int c = 0; c < MAX_R; c++) begin
            ma_q[en_c_q[RI_W-1:0]][c] <= fabnic_fec_pkg::gf_mul(ma_q[en_c_q[RI_W-1:0]][c], gj_inv);
            mb_q[en_c_q[RI_W-1:0]][c] <= fabnic_fec_pkg::gf_mul(mb_q[en_c_q[RI_W-1:0]][c], gj_inv);
          end
          en_q <= E_ELIM;
        end
      end
      E_ELIM: begin
        for (int q = 0; q < MAX_R; q++) begin
          if (8'(q) != en_c_q) begin
            for (int c = 0; c < MAX_R; c++) begin
              ma_q[q][c] <= ma_q[q][c] ^ fabnic_fec_pkg::gf_mul(ma_q[q][en_c_q[RI_W-1:0]],
                                                                 ma_q[en_c_q[RI_W-1:0]][c]);
              mb_q[q][c] <= mb_q[q][c] ^ fabnic_fec_pkg::gf_mul(ma_q[q][en_c_q[RI_W-1:0]],
                                                                 mb_q[en_c_q[RI_W-1:0]][c]);
            end
          end
        end
        if (en_c_q + 8'd1 >= en_e_q) begin  // columns >= e are identity already
          en_q   <= E_CHK;
          en_j_q <= '0;
        end else begin
          en_c_q <= en_c_q + 8'd1;
          en_q   <= E_SCALE;
        end
      end
      E_CHK: begin
        if (en_j_q >= en_e_q) begin
          en_j_q <= '0;
          en_q   <= E_SETJ;
        end else if (cj_len == 16'd0 || cj_len > maxlen_q[en_slot_q]) begin
          en_q <= E_FAIL;
        end else begin
          en_len_q[en_j_q[RI_W-1:0]] <= cj_len;
          en_j_q <= en_j_q + 8'd1;
        end
      end
      E_SETJ: begin
        if (en_j_q >= en_e_q) begin
          en_q <= E_END;
        end else begin
          for (int r = 0; r < MAX_R; r++) en_cx_q[r*64 +: 64] <= fabnic_fec_pkg::gf_cx(cj[r]);
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
          en_q <= E_IDLE;
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
      en_ptr_q     <= '0;
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
