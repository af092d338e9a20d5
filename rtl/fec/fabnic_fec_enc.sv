// SPDX-License-Identifier: Apache-2.0
//
// fabnic_fec_enc: packet-level FEC encoder (systematic GF(2^8) MDS code, see
// fabnic_fec_pkg and docs/fec.md).
//
// Data packets pass through unchanged (combinational, no added latency); the
// encoder numbers them itself from a packet counter: consecutive packets go
// round-robin to the D groups of the current block (slot = n mod D, index =
// n div D), a block holds K*D packets. tuser of the data output carries
// {fec_meta_t, bad} with the group id and index the packet got.
//
// Every data beat is multiplied by the R coefficients of its index and
// XOR-accumulated into the group's R repair payloads (read-modify-write of
// one MAX_R*DATA_W word per beat, one beat per cycle). Accumulator RAM has
// two banks (ping-pong by block), each MAX_D slots x MAX_LEN bytes x MAX_R
// rows: while the repairs of a closed block are read out, the next block
// accumulates into the other bank.
//
// A block closes after its K*D-th packet or on `flush` (at the next packet
// boundary; groups without packets emit nothing, the repair's cnt field tells
// the receiver how many data packets the group really has). The repairs of a
// closed block are emitted group by group, row by row on m_axis_rep.
//
// Back-pressure: the data path stalls only when a new block would need the
// bank whose repairs are still being emitted (stat_stall_cycles counts those
// cycles), or for one cycle when a flush closes a block. The repair output
// is flow-controlled by m_axis_rep_tready (its FIFO never overflows).
//
// A data packet longer than MAX_LEN poisons its group (stat_oversize): the
// group's repair packets go out with tuser[0]=1 (bad) on the last beat.
// Data packets must carry at least one byte.
`default_nettype none

module fabnic_fec_enc #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int MAX_K     = 32,    // data packets per group (2..252)
    parameter int MAX_R     = 4,     // repair packets per group (1..4)
    parameter int MAX_D     = 4,     // interleaving depth (groups per block)
    parameter int MAX_LEN   = 4096,  // payload bytes, power of two, >= 2*KEEP_W
    parameter int OUT_DEPTH = 16,    // repair output FIFO, beats (power of two)
    parameter int USER_W    = fabnic_fec_pkg::META_W + 1
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // run-time configuration, clamped to 1..MAX_* and registered, sampled when a block
    // starts (a change reaches the blocks that start a cycle later or more)
    input  wire logic [7:0]        cfg_k,
    input  wire logic [7:0]        cfg_r,
    input  wire logic [7:0]        cfg_d,
    input  wire logic              flush,   // pulse: close the current block

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic              s_axis_tuser,

    // data packets, unchanged, tuser = {fec_meta_t, bad}
    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    // repair packets, tuser = {fec_meta_t, bad}
    output logic      [DATA_W-1:0] m_axis_rep_tdata,
    output logic      [KEEP_W-1:0] m_axis_rep_tkeep,
    output logic                   m_axis_rep_tvalid,
    input  wire logic              m_axis_rep_tready,
    output logic                   m_axis_rep_tlast,
    output logic      [USER_W-1:0] m_axis_rep_tuser,
    output logic      [15:0]       m_axis_rep_tlen,   // repair payload bytes (constant over the packet)

    output logic [31:0]            stat_data_pkts,
    output logic [31:0]            stat_repair_pkts,
    output logic [31:0]            stat_blocks,
    output logic [31:0]            stat_oversize,
    output logic [31:0]            stat_stall_cycles
);

  typedef fabnic_fec_pkg::fec_meta_t meta_t;

  localparam int BEATS  = MAX_LEN / KEEP_W;
  localparam int BEAT_W = $clog2(BEATS);
  localparam int SLOT_W = (MAX_D > 1) ? $clog2(MAX_D) : 1;
  localparam int NSLOT  = 1 << SLOT_W;
  localparam int AW     = SLOT_W + BEAT_W;
  localparam int WW     = MAX_R * DATA_W;
  localparam int KB_W   = $clog2(KEEP_W);
  localparam int CX_W   = MAX_R * 64;

  if (BEATS < 2 || (1 << BEAT_W) != BEATS || BEATS * KEEP_W != MAX_LEN) begin : g_chk_len
    $error("fabnic_fec_enc: MAX_LEN must be a power of two and >= 2*KEEP_W");
  end
  if (MAX_R < 1 || MAX_R > 4 || MAX_K < 2 || MAX_K > 252 || MAX_D < 1 || MAX_D > 255) begin : g_chk
    $error("fabnic_fec_enc: need 1<=MAX_R<=4, 2<=MAX_K<=252, 1<=MAX_D<=255");
  end
  if (USER_W != fabnic_fec_pkg::META_W + 1) begin : g_chk_user
    $error("fabnic_fec_enc: USER_W is fixed by fec_meta_t");
  end
  if (MAX_LEN > 32768) begin : g_chk_max
    $error("fabnic_fec_enc: MAX_LEN must fit the 16-bit length field");
  end

  // c*x^j tables of every coefficient G[r][i]
  function automatic logic [MAX_K*CX_W-1:0] gen_cx();
    logic [MAX_K*CX_W-1:0] t;
    for (int i = 0; i < MAX_K; i++) begin
      for (int r = 0; r < MAX_R; r++) begin
        t[i*CX_W + r*64 +: 64] = fabnic_fec_pkg::gf_cx(fabnic_fec_pkg::fec_coef(8'(r), 8'(i)));
      end
    end
    return t;
  endfunction
  localparam logic [MAX_K*CX_W-1:0] CX_TBL = gen_cx();

  function automatic logic [7:0] clamp(input logic [7:0] v, input int hi);
    if (v == 8'd0) return 8'd1;
    if (int'(v) > hi) return 8'(hi);
    return v;
  endfunction

  // ------------------------------------------------------------------ state
  logic              cb_q;           // bank being filled
  logic [7:0]        blk_k_q, blk_r_q, blk_d_q;
  logic [7:0]        blk_d1_q;       // blk_d_q - 1
  logic              blk_d_one_q;    // blk_d_q == 1
  logic [7:0]        idx_q, slot_q;  // of the current / next data packet
  logic [7:0]        slot_left_q, idx_left_q;  // d-1-slot, k-1-idx (valid unless blk_start)
  logic              slot_z_q, idx_z_q;        // slot_left_q == 0, idx_left_q == 0
  logic [15:0]       gid_base_q;     // group id of slot 0 of the current block
  logic [15:0]       gid_next_q;     // gid_base_q + the block's D (set at the block start)
  logic              in_pkt_q;
  logic [BEAT_W:0]   beat_q;
  logic [15:0]       pkt_bytes_q;
  logic              flush_req_q;

  logic [BEAT_W:0]   hwb_q    [2][NSLOT];   // beats written so far (older beats read as 0)
  logic [15:0]       maxlen_q [2][NSLOT];
  logic [7:0]        gcnt_q   [2][NSLOT];
  logic [15:0]       lenacc_q [2][NSLOT][MAX_R];
  logic              poison_q [2][NSLOT];
  logic              full_q   [2];
  logic [7:0]        bank_r_q [2];
  logic [7:0]        bank_d_q [2];
  logic [15:0]       bank_gid_q [2];

  // ---------------------------------------------------------------- stage 0
  logic       blk_start, closing, can_accept, fire;
  logic [7:0] eff_k, eff_r, eff_d;
  logic [SLOT_W-1:0] slot_s;

  logic at_zero_q;   // idx_q == 0 && slot_q == 0, as a register
  // the run-time configuration, clamped, in registers (with the values the count-down
  // counters load at a block start), so a block start only selects among registers
  logic [7:0] cfg_kc_q, cfg_rc_q, cfg_dc_q, cfg_k1_q, cfg_k2_q, cfg_d1_q, cfg_d2_q;
  logic       cfg_k_one_q, cfg_d_one_q, cfg_k_two_q, cfg_d_two_q;
  always_ff @(posedge clk) begin
    logic [7:0] kc, dc;
    kc = clamp(cfg_k, MAX_K);
    dc = clamp(cfg_d, MAX_D);
    cfg_kc_q    <= kc;
    cfg_rc_q    <= clamp(cfg_r, MAX_R);
    cfg_dc_q    <= dc;
    cfg_k1_q    <= kc - 8'd1;
    cfg_k2_q    <= kc - 8'd2;
    cfg_d1_q    <= dc - 8'd1;
    cfg_d2_q    <= dc - 8'd2;
    cfg_k_one_q <= kc == 8'd1;
    cfg_d_one_q <= dc == 8'd1;
    cfg_k_two_q <= kc == 8'd2;
    cfg_d_two_q <= dc == 8'd2;
  end
  assign blk_start  = !in_pkt_q && at_zero_q;
  assign eff_k      = blk_start ? cfg_kc_q : blk_k_q;
  assign eff_r      = blk_start ? cfg_rc_q : blk_r_q;
  assign eff_d      = blk_start ? cfg_dc_q : blk_d_q;
  // a flush never retracts a data beat already offered on m_axis (pend_q)
  logic pend_q;
  assign closing    = flush_req_q && !in_pkt_q && !blk_start && !pend_q;
  assign can_accept = !full_q[cb_q] && !closing;
  assign fire       = s_axis_tvalid && m_axis_tready && can_accept;
  assign slot_s     = slot_q[SLOT_W-1:0];

  assign s_axis_tready = m_axis_tready && can_accept;
  assign m_axis_tvalid = s_axis_tvalid && can_accept;
  assign m_axis_tdata  = s_axis_tdata;
  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tlast  = s_axis_tlast;

  meta_t data_meta;
  always_comb begin
    data_meta           = '0;
    data_meta.gid       = gid_base_q + 16'(slot_q);
    data_meta.idx       = idx_q;
    data_meta.cnt       = eff_k;
    data_meta.is_repair = 1'b0;
  end
  assign m_axis_tuser = {data_meta, s_axis_tuser};

  logic              in_range, zero_old, last_of_group, last_slot;
  logic [AW-1:0]     s0_addr;
  logic [DATA_W-1:0] data_masked;
  logic [15:0]       pkt_len;
  (* keep *) logic [KB_W:0] nbytes;   // the beat's byte count: its own adder tree
  logic [CX_W-1:0]   cx_sel;

  assign in_range      = beat_q < (BEAT_W+1)'(BEATS);
  assign zero_old      = beat_q >= hwb_q[cb_q][slot_s];
  assign s0_addr       = {slot_s, beat_q[BEAT_W-1:0]};
  // slot/index counters count down to the block's last slot/index: no adder on the way
  assign last_slot     = blk_start ? cfg_d_one_q : slot_z_q;
  assign last_of_group = blk_start ? cfg_k_one_q : idx_z_q;
  assign cx_sel        = CX_TBL[idx_q[$clog2(MAX_K)-1:0] * CX_W +: CX_W];

  always_comb begin
    nbytes = '0;
    for (int m = 0; m < KEEP_W; m++) begin
      data_masked[8*m +: 8] = s_axis_tkeep[m] ? s_axis_tdata[8*m +: 8] : 8'h00;
      nbytes = nbytes + (KB_W+1)'(s_axis_tkeep[m]);
    end
  end
  assign pkt_len = pkt_bytes_q + 16'(nbytes);

  // Per-packet bookkeeping (count, longest length, coded length) one cycle after the
  // packet's last beat, from registers (pl_*); the emitter reads a bank only after its
  // close (s1_close_q, same cycle as this stage), so it always sees the update.
  logic              pl_v_q, pl_bank_q;
  logic [SLOT_W-1:0] pl_slot_q;
  logic [15:0]       pl_len_q;

  // ---------------------------------------------------------------- read stage
  // An accepted beat is registered (sr_*) before its RAM read, so the read address and
  // enable come from registers; stage 1 then combines the word read with the beat's
  // products and writes it back.
  logic              sr_we_q, sr_bank_q, sr_zero_q;
  logic [AW-1:0]     sr_addr_q;
  logic [DATA_W-1:0] sr_data_q;
  logic [CX_W-1:0]   sr_cx_q;

  // ---------------------------------------------------------------- stage 1
  logic              s1_we_q, s1_bank_q, s1_zero_q, s1_close_q, s1_close_bank_q;
  logic [AW-1:0]     s1_addr_q;
  logic [DATA_W-1:0] s1_data_q;
  logic [CX_W-1:0]   s1_cx_q;
  logic              fwd_hit_q;
  logic [WW-1:0]     fwd_q;
  logic [WW-1:0]     rdata [2];
  logic [WW-1:0]     s1_old, s1_new;

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
    s1_old = s1_zero_q ? '0 : (fwd_hit_q ? fwd_q : rdata[s1_bank_q]);
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

  // ---------------------------------------------------------------- emitter
  logic              em_busy_q, em_bank_q;
  logic [7:0]        em_slot_q, em_row_q;
  logic [BEAT_W:0]   em_beat_q;
  logic [SLOT_W-1:0] em_slot_s;
  logic [BEAT_W:0]   em_nb;
  logic [15:0]       em_maxlen;
  logic              em_skip, em_done, em_issue, em_last_beat;
  logic [$clog2(OUT_DEPTH):0] fifo_depth;
  logic [KEEP_W-1:0] em_keep;
  meta_t             em_meta;

  // Each slot the emitter visits is first loaded (one cycle, em_ld_q low): its length,
  // beat count, count, coded lengths and group id go into registers (emc_*), and the
  // done / skip decisions are taken from them in the following cycles.
  logic              em_ld_q, emc_done_q, emc_skip_q, emc_poison_q;
  logic [15:0]       emc_maxlen_q, emc_gid_q;
  logic [BEAT_W:0]   emc_nb_q;
  logic [7:0]        emc_cnt_q;
  logic [15:0]       emc_len_q [MAX_R];
  logic [15:0]       ld_maxlen;
  logic [7:0]        emc_rowl_q;     // rows left after em_row_q
  logic [KEEP_W-1:0] emc_lkeep_q;    // tkeep of the slot's last beat

  assign em_slot_s = em_slot_q[SLOT_W-1:0];
  assign ld_maxlen = maxlen_q[em_bank_q][em_slot_s];
  assign em_maxlen = emc_maxlen_q;
  assign em_nb     = emc_nb_q;
  assign em_done   = em_busy_q && em_ld_q && emc_done_q;
  assign em_skip   = em_busy_q && em_ld_q && !emc_done_q && emc_skip_q;

  logic e1_v_q;
  // room in the repair FIFO, from last cycle's depth (one beat of margin for the beat
  // issued last cycle, which is not in fifo_depth yet)
  logic em_room_q;
  assign em_issue     = em_busy_q && em_ld_q && !emc_done_q && !emc_skip_q && em_room_q;
  assign em_last_beat = em_beat_q + 1'b1 >= em_nb;

  always_comb begin
    em_keep = em_last_beat ? emc_lkeep_q : {KEEP_W{1'b1}};
    em_meta           = '0;
    for (int r = 0; r < MAX_R; r++) begin
      if (em_row_q == 8'(r)) em_meta.len = emc_len_q[r];
    end
    em_meta.cnt       = emc_cnt_q;
    em_meta.idx       = em_row_q;
    em_meta.gid       = emc_gid_q;
    em_meta.is_repair = 1'b1;
  end

  // ------------------------------------------------------------------ RAMs
  logic          re   [2];
  logic [AW-1:0] ra   [2];
  for (genvar p = 0; p < 2; p++) begin : g_bank
    logic [WW-1:0] mem [1 << AW];
    always_comb begin
      if (sr_we_q && sr_bank_q == 1'(p)) begin
        re[p] = 1'b1;
        ra[p] = sr_addr_q;
      end else begin
        re[p] = em_issue && em_bank_q == 1'(p);
        ra[p] = {em_slot_s, em_beat_q[BEAT_W-1:0]};
      end
    end
    always_ff @(posedge clk) begin
      if (s1_we_q && s1_bank_q == 1'(p)) mem[s1_addr_q] <= s1_new;
      if (re[p]) rdata[p] <= mem[ra[p]];
    end
  end

  // repair output pipeline: RAM read -> row select -> FIFO
  logic              e1_bank_q, e1_last_q, e1_bad_q;
  logic [15:0]       e1_len_q;
  logic [7:0]        e1_row_q;
  logic [KEEP_W-1:0] e1_keep_q;
  meta_t             e1_meta_q;
  logic [DATA_W-1:0] e1_data;
  logic              fifo_in_ready_unused;
  logic [3:0]        fifo_st_unused;

  always_comb begin
    e1_data = '0;
    for (int r = 0; r < MAX_R; r++) begin
      if (e1_row_q == 8'(r)) e1_data = rdata[e1_bank_q][r*DATA_W +: DATA_W];
    end
  end

  fabnic_axis_fifo #(
      .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W + 16), .DEPTH(OUT_DEPTH)
  ) u_rep_fifo (
      .clk, .rst,
      .s_axis_tdata(e1_data), .s_axis_tkeep(e1_keep_q), .s_axis_tvalid(e1_v_q),
      .s_axis_tready(fifo_in_ready_unused), .s_axis_tlast(e1_last_q),
      .s_axis_tuser({e1_len_q, e1_meta_q, e1_bad_q}),
      .m_axis_tdata(m_axis_rep_tdata), .m_axis_tkeep(m_axis_rep_tkeep),
      .m_axis_tvalid(m_axis_rep_tvalid), .m_axis_tready(m_axis_rep_tready),
      .m_axis_tlast(m_axis_rep_tlast), .m_axis_tuser({m_axis_rep_tlen, m_axis_rep_tuser}),
      .status_depth(fifo_depth), .status_good_frame(fifo_st_unused[0]),
      .status_bad_frame(fifo_st_unused[1]), .status_overflow(fifo_st_unused[2]),
      .status_oversize(fifo_st_unused[3])
  );

  // ------------------------------------------------------------ sequential
  always_ff @(posedge clk) begin
    // stage 1 defaults
    s1_close_q <= 1'b0;
    pl_v_q     <= 1'b0;
    em_room_q  <= 32'(fifo_depth) + 32'(e1_v_q) + 32'd1 < OUT_DEPTH - 1;
    // every slot compares and updates its own copy (no slot mux in front of the compare)
    for (int p = 0; p < 2; p++) begin
      for (int sl = 0; sl < NSLOT; sl++) begin
        if (pl_v_q && pl_bank_q == 1'(p) && pl_slot_q == SLOT_W'(sl)) begin
          gcnt_q[p][sl] <= gcnt_q[p][sl] + 8'd1;
          if (pl_len_q > maxlen_q[p][sl]) maxlen_q[p][sl] <= pl_len_q;
          for (int r = 0; r < MAX_R; r++) begin
            lenacc_q[p][sl][r] <= lenacc_q[p][sl][r] ^ {
                fabnic_fec_pkg::gf_mul_cx(sr_cx_q[r*64 +: 64], pl_len_q[15:8]),
                fabnic_fec_pkg::gf_mul_cx(sr_cx_q[r*64 +: 64], pl_len_q[7:0])};
          end
        end
      end
    end
    // the read stage moves on every cycle; a word read while stage 1 writes the same
    // address is taken from that write (fwd_q) instead of the RAM
    sr_we_q    <= 1'b0;
    s1_we_q    <= sr_we_q;
    s1_bank_q  <= sr_bank_q;
    s1_addr_q  <= sr_addr_q;
    s1_data_q  <= sr_data_q;
    s1_cx_q    <= sr_cx_q;
    s1_zero_q  <= sr_zero_q;
    fwd_hit_q  <= sr_we_q && s1_we_q && sr_bank_q == s1_bank_q && sr_addr_q == s1_addr_q;
    fwd_q      <= s1_new;
    e1_v_q     <= 1'b0;

    if (s1_close_q) full_q[s1_close_bank_q] <= 1'b1;

    if (s_axis_tvalid && m_axis_tready && !can_accept) stat_stall_cycles <= stat_stall_cycles + 1;
    if (flush) flush_req_q <= 1'b1;
    pend_q <= m_axis_tvalid && !m_axis_tready;

    // -------- data path
    if (fire) begin
      if (blk_start) begin
        blk_k_q <= eff_k;
        blk_r_q <= eff_r;
        blk_d_q <= eff_d;
        blk_d1_q <= cfg_d1_q;
        slot_left_q <= cfg_d1_q;
        idx_left_q  <= cfg_k1_q;
        slot_z_q    <= cfg_d_one_q;
        idx_z_q     <= cfg_k_one_q;
        blk_d_one_q <= cfg_d_one_q;
        gid_next_q  <= gid_base_q + 16'(cfg_dc_q);
        bank_r_q[cb_q]   <= eff_r;
        bank_d_q[cb_q]   <= eff_d;
        bank_gid_q[cb_q] <= gid_base_q;
      end
      sr_we_q   <= in_range;
      sr_bank_q <= cb_q;
      sr_addr_q <= s0_addr;
      sr_data_q <= data_masked;
      sr_cx_q   <= cx_sel;
      sr_zero_q <= zero_old;
      for (int p = 0; p < 2; p++) begin
        for (int sl = 0; sl < NSLOT; sl++) begin   // each slot compares its own mark
          if (in_range && cb_q == 1'(p) && slot_s == SLOT_W'(sl) && beat_q >= hwb_q[p][sl]) begin
            hwb_q[p][sl] <= beat_q + 1'b1;
          end
        end
      end
      if (beat_q == (BEAT_W+1)'(BEATS)) begin
        poison_q[cb_q][slot_s] <= 1'b1;
        stat_oversize <= stat_oversize + 1;
      end
      if (!(&beat_q)) beat_q <= beat_q + 1'b1;
      pkt_bytes_q <= pkt_len;
      in_pkt_q    <= !s_axis_tlast;
      if (s_axis_tlast) begin
        beat_q      <= '0;
        pkt_bytes_q <= '0;
        stat_data_pkts <= stat_data_pkts + 1;
        pl_v_q    <= 1'b1;
        pl_bank_q <= cb_q;
        pl_slot_q <= slot_s;
        pl_len_q  <= pkt_len;
        at_zero_q <= last_slot && last_of_group;
        if (!last_slot) begin
          slot_q      <= slot_q + 8'd1;
          slot_left_q <= blk_start ? cfg_d2_q : slot_left_q - 8'd1;
          slot_z_q    <= blk_start ? cfg_d_two_q : slot_left_q == 8'd1;
        end else begin
          slot_q      <= '0;
          slot_left_q <= blk_start ? cfg_d1_q : blk_d1_q;
          slot_z_q    <= blk_start ? cfg_d_one_q : blk_d_one_q;
          if (!last_of_group) begin
            idx_q      <= idx_q + 8'd1;
            idx_left_q <= blk_start ? cfg_k2_q : idx_left_q - 8'd1;
            idx_z_q    <= blk_start ? cfg_k_two_q : idx_left_q == 8'd1;
          end else begin  // block complete
            idx_q      <= '0;
            cb_q       <= !cb_q;
            gid_base_q <= blk_start ? gid_base_q + 16'(cfg_dc_q) : gid_next_q;
            s1_close_q      <= 1'b1;
            s1_close_bank_q <= cb_q;
            stat_blocks <= stat_blocks + 1;
          end
        end
      end
    end else if (closing) begin
      slot_q     <= '0;
      idx_q      <= '0;
      at_zero_q  <= 1'b1;
      cb_q       <= !cb_q;
      gid_base_q <= gid_next_q;         // closing is never at a block start
      s1_close_q      <= 1'b1;
      s1_close_bank_q <= cb_q;
      flush_req_q <= flush;
      stat_blocks <= stat_blocks + 1;
    end else if (flush_req_q && !in_pkt_q && blk_start) begin
      flush_req_q <= flush;  // nothing to close
    end

    // -------- repair emitter
    if (em_busy_q && !em_ld_q) begin
      em_ld_q      <= 1'b1;
      emc_maxlen_q <= ld_maxlen;
      emc_nb_q     <= (BEAT_W+1)'((ld_maxlen + 16'(KEEP_W - 1)) >> KB_W);
      emc_cnt_q    <= gcnt_q[em_bank_q][em_slot_s];
      emc_poison_q <= poison_q[em_bank_q][em_slot_s];
      emc_gid_q    <= bank_gid_q[em_bank_q] + 16'(em_slot_q);
      emc_done_q   <= em_slot_q >= bank_d_q[em_bank_q];
      emc_skip_q   <= gcnt_q[em_bank_q][em_slot_s] == 8'd0 || ld_maxlen == 16'd0;
      for (int r = 0; r < MAX_R; r++) emc_len_q[r] <= lenacc_q[em_bank_q][em_slot_s][r];
      emc_rowl_q   <= bank_r_q[em_bank_q] - 8'd1;       // em_row_q is 0 at a load
      for (int m = 0; m < KEEP_W; m++) begin
        emc_lkeep_q[m] <= ld_maxlen[KB_W-1:0] == '0 || KB_W'(m) < ld_maxlen[KB_W-1:0];
      end
    end
    if (!em_busy_q) begin
      if (full_q[em_bank_q]) begin
        em_busy_q <= 1'b1;
        em_ld_q   <= 1'b0;
        em_slot_q <= '0;
        em_row_q  <= '0;
        em_beat_q <= '0;
      end
    end else if (em_done) begin
      em_busy_q <= 1'b0;
      em_bank_q <= !em_bank_q;
      full_q[em_bank_q] <= 1'b0;
      for (int s = 0; s < NSLOT; s++) begin
        hwb_q[em_bank_q][s]    <= '0;
        maxlen_q[em_bank_q][s] <= '0;
        gcnt_q[em_bank_q][s]   <= '0;
        poison_q[em_bank_q][s] <= 1'b0;
        for (int r = 0; r < MAX_R; r++) lenacc_q[em_bank_q][s][r] <= '0;
      end
    end else if (em_skip) begin
      em_slot_q <= em_slot_q + 8'd1;
      em_ld_q   <= 1'b0;
    end else if (em_issue) begin
      e1_v_q    <= 1'b1;
      e1_bank_q <= em_bank_q;
      e1_row_q  <= em_row_q;
      e1_last_q <= em_last_beat;
      e1_keep_q <= em_keep;
      e1_meta_q <= em_meta;
      e1_len_q  <= em_maxlen;
      e1_bad_q  <= em_last_beat && emc_poison_q;
      if (!em_last_beat) begin
        em_beat_q <= em_beat_q + 1'b1;
      end else begin
        stat_repair_pkts <= stat_repair_pkts + 1;
        em_beat_q <= '0;
        if (emc_rowl_q != 8'd0) begin
          em_row_q   <= em_row_q + 8'd1;
          emc_rowl_q <= emc_rowl_q - 8'd1;
        end else begin
          em_row_q  <= '0;
          em_slot_q <= em_slot_q + 8'd1;
          em_ld_q   <= 1'b0;
        end
      end
    end

    if (rst) begin
      cb_q        <= 1'b0;
      blk_k_q     <= 8'd1;
      blk_r_q     <= 8'd1;
      blk_d_q     <= 8'd1;
      blk_d1_q    <= 8'd0;
      idx_q       <= '0;
      slot_q      <= '0;
      at_zero_q   <= 1'b1;
      em_room_q   <= 1'b0;
      gid_base_q  <= '0;
      gid_next_q  <= '0;
      in_pkt_q    <= 1'b0;
      beat_q      <= '0;
      pkt_bytes_q <= '0;
      flush_req_q <= 1'b0;
      pl_v_q      <= 1'b0;
      slot_left_q <= '0;
      idx_left_q  <= '0;
      slot_z_q    <= 1'b1;
      idx_z_q     <= 1'b1;
      blk_d_one_q <= 1'b1;
      pend_q      <= 1'b0;
      s1_we_q     <= 1'b0;
      sr_we_q     <= 1'b0;
      s1_close_q  <= 1'b0;
      fwd_hit_q   <= 1'b0;
      e1_v_q      <= 1'b0;
      em_busy_q   <= 1'b0;
      em_bank_q   <= 1'b0;
      em_ld_q     <= 1'b0;
      for (int p = 0; p < 2; p++) begin
        full_q[p]     <= 1'b0;
        bank_r_q[p]   <= 8'd1;
        bank_d_q[p]   <= 8'd1;
        bank_gid_q[p] <= '0;
        for (int s = 0; s < NSLOT; s++) begin
          hwb_q[p][s]    <= '0;
          maxlen_q[p][s] <= '0;
          gcnt_q[p][s]   <= '0;
          poison_q[p][s] <= 1'b0;
          for (int r = 0; r < MAX_R; r++) lenacc_q[p][s][r] <= '0;
        end
      end
      stat_data_pkts    <= '0;
      stat_repair_pkts  <= '0;
      stat_blocks       <= '0;
      stat_oversize     <= '0;
      stat_stall_cycles <= '0;
    end
  end

  logic unused_ok;
  assign unused_ok = ^{fifo_in_ready_unused, fifo_st_unused, blk_r_q};

endmodule

`resetall
