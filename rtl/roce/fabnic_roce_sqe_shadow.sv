// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_sqe_shadow: on-chip shadow of the send queue entries the requester has
// read, serving the completer's SQE re-reads without a host-memory read when it can.
//
// Why: for a stream of small WQEs the host read channel carried three beats per
// message (the payload, the requester's SQE and the completer's re-read of the same
// SQE) and was the limit. The completer needs an SQE again only after the requester
// sent it, so the requester's copy is almost always still on chip.
//
// Fill: every SQE beat the requester's read engine delivers is written, with its host
// address as the tag, into a direct-mapped table of DEPTH entries (index: the 64-byte
// line address folded by XOR, so rings at page-aligned bases spread). Only the bytes
// the completer uses are kept (SQE bytes 0..27: wr_id, opcode, flags, length, local
// address, lkey). A beat whose read reported an AXI error (the engine's sticky per-beat
// tuser, TUSER_EACH) invalidates its entry instead.
//
// Lookup: the completer's read descriptor (address, length, and `nok`, the number of
// leading SQEs the requester has already sent, so read) goes into a command FIFO. A
// two-stage pipeline looks up one SQE per cycle: L0 reads the table, L1 compares the
// tag. A hit copies the entry into the result FIFO; a miss puts a marker there and
// joins a run of consecutive misses that goes to the host read engine as one
// descriptor (closed at a hit, at the command's end, or when no beat follows). The
// output takes the result FIFO in order: a hit beat is the stored bytes (the rest
// zero), a miss beat is the next beat from the host read engine. So the completer sees
// exactly the stream a plain read would give, in order, with tlast on each command's
// last beat.
//
// Why a hit is exact: the completer asks only for SQEs below the requester's sent
// high index (nok; later ones are forced misses, e.g. the WQEs a flush walks). The
// requester read each of those after the host posted it, and the host must not
// rewrite an SQE slot before the WQE in it completed, which needs the completer to be
// past it; a re-read of a slot for a later WQE rewrites the entry first. A lookup
// that collides with a fill of the same index in the same cycle is a miss (block RAM
// may return undefined data on such a collision). Retransmissions re-read the same
// bytes.
//
// Flow control: at most RES_DEPTH SQEs are between L0 and the output, so at most that
// many miss beats are owed by the host read engine; the core's SQE FIFO in front of
// this block must hold RES_DEPTH beats so the shared R channel never waits on it.
// Miss descriptors wait in a DESC_Q-entry queue toward the host read engine; L0 issues
// only while that queue and the result FIFO have room (flags registered from their
// occupancy a cycle earlier), so L1 never stalls.
//
// Pipeline and timing: every table index is precomputed. The fill and command queues
// store the first line's index (line_idx folded at the queue input); the index of line
// k+1 is computed while line k is written or looked up. L0 registers the SQE's 8-entry
// slice of the valid bits with the RAM read; L1 picks the bit and compares the tag.
// The slice select and the 58-bit tag compare are written as balanced trees of kept
// nets (radix-4 mux stages; 3-bit compare chunks, then groups of six).
// The result FIFO's head is moved into a register (h_*) that drives the output, so
// the output handshake starts from flops.
// Latency: a command at the head of an idle block issues its first lookup in the
// cycle it appears, its first result is in the result FIFO two cycles later and at
// the output (m_tvalid for a hit) three cycles later; one result per cycle after that.
// Combinational paths across the ports (pass-throughs): s_fdesc_valid -> m_fdesc_valid
// and m_fdesc_ready -> s_fdesc_ready (the fill descriptors), s_dma_tvalid -> m_tvalid
// and m_tready -> s_dma_tready (a miss beat goes from the host read engine to the
// completer without a register).
module fabnic_roce_sqe_shadow #(
    parameter int DEPTH     = 512,   // entries (power of two)
    parameter int RES_DEPTH = 64,    // SQEs between lookup and output (power of two)
    parameter int FILL_Q    = 32,    // requester read descriptors awaiting their beats
    parameter int CNT_W     = 32,
    parameter int IDX_W     = $clog2(DEPTH)
) (
    input  wire logic                clk,
    input  wire logic                rst,

    // fill: the requester's SQE read descriptors (passed through; held while the address
    // queue is full) and the beats its read engine delivers
    input  wire logic [63:0]         s_fdesc_addr,
    input  wire logic [31:0]         s_fdesc_len,
    input  wire logic                s_fdesc_valid,
    output logic                     s_fdesc_ready,
    output logic                     m_fdesc_valid,
    input  wire logic                m_fdesc_ready,
    input  wire logic                f_beat,       // a beat accepted from the read engine
    input  wire logic [223:0]        f_data,       // its bytes 0..27
    input  wire logic                f_last,
    input  wire logic                f_err,        // sticky AXI error of its descriptor

    // the completer's SQE reads
    input  wire logic [63:0]         s_desc_addr,
    input  wire logic [31:0]         s_desc_len,
    input  wire logic [15:0]         s_desc_nok,   // leading SQEs that may be served here
    input  wire logic                s_desc_valid,
    output logic                     s_desc_ready,
    output logic [63:0]              m_desc_addr,  // misses, to the host read engine
    output logic [31:0]              m_desc_len,
    output logic                     m_desc_valid,
    input  wire logic                m_desc_ready,
    input  wire logic [511:0]        s_dma_tdata,  // its beats
    input  wire logic                s_dma_tvalid,
    output logic                     s_dma_tready,
    input  wire logic                s_dma_tuser,
    output logic [511:0]             m_tdata,      // to the completer
    output logic                     m_tvalid,
    input  wire logic                m_tready,
    output logic                     m_tlast,
    output logic                     m_tuser,

    output logic [CNT_W-1:0]         cnt_hit,      // SQEs served from the shadow
    output logic [CNT_W-1:0]         cnt_miss      // SQEs read from host memory
);

  if ((1 << IDX_W) != DEPTH || DEPTH < 8) begin : g_check_depth
    $error("fabnic_roce_sqe_shadow: DEPTH must be a power of two >= 8");
  end
  if (RES_DEPTH < 4 || (1 << $clog2(RES_DEPTH)) != RES_DEPTH) begin : g_check_res
    $error("fabnic_roce_sqe_shadow: RES_DEPTH must be a power of two >= 4");
  end

  localparam int TAG_W  = 58;   // 64-byte line address
  localparam int DESC_Q = 8;    // miss descriptors toward the host read engine
  localparam int VROW   = 8;    // valid bits read with an L0 lookup
  localparam int VR_W   = $clog2(VROW);
  localparam int RC_W   = $clog2(RES_DEPTH) + 1;

  function automatic logic [IDX_W-1:0] line_idx(input logic [TAG_W-1:0] a);
    logic [IDX_W-1:0] h;
    h = '0;
    for (int k = 0; k * IDX_W < TAG_W; k++) h ^= IDX_W'(a >> (k * IDX_W));
    return h;
  endfunction

  // ---------------------------------------------------------------- table
  logic                    wr_en, rd_en;
  logic [IDX_W-1:0]        wr_idx, rd_idx;
  logic [TAG_W+223:0]      rd_data;
  logic [DEPTH-1:0]        vld_q;
  logic [TAG_W-1:0]        f_line;            // fill: the beat's line address

  fabnic_ram_sdp #(.DATA_W(TAG_W + 224), .DEPTH(DEPTH)) u_tab (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr(wr_idx), .wr_data({f_line, f_data}),
      .rd_en, .rd_regce(1'b1), .rd_addr(rd_idx), .rd_data
  );

  // ---------------------------------------------------------------- fill
  // The queue holds each descriptor's first line and its index; the next line and its
  // index are registered at every beat (nf_*), so the write address is a 2:1 mux.
  logic             fq_valid, fq_in_ready, fq_push, f_first_q;
  logic [TAG_W-1:0] fq_line, nf_line_q, f_line_n;
  logic [IDX_W-1:0] fq_idx, nf_idx_q;
  logic [$clog2(FILL_Q):0] unused_fq_cnt;
  // zero-length descriptors deliver no beats: not queued
  assign fq_push       = s_fdesc_valid && m_fdesc_ready && fq_in_ready && s_fdesc_len != '0;
  assign m_fdesc_valid = s_fdesc_valid && fq_in_ready;
  assign s_fdesc_ready = m_fdesc_ready && fq_in_ready;
  fabnic_fifo #(.WIDTH(TAG_W + IDX_W), .DEPTH(FILL_Q)) u_fq (
      .clk, .rst,
      .in_valid(fq_push), .in_ready(fq_in_ready),
      .in_data({s_fdesc_addr[63:6], line_idx(s_fdesc_addr[63:6])}),
      .out_valid(fq_valid), .out_ready(f_beat && f_last), .out_data({fq_line, fq_idx}),
      .status_count(unused_fq_cnt)
  );
  assign f_line   = f_first_q ? fq_line : nf_line_q;
  assign wr_idx   = f_first_q ? fq_idx : nf_idx_q;
  assign f_line_n = f_line + TAG_W'(1);
  assign wr_en    = f_beat && fq_valid;
  always_ff @(posedge clk) begin
    if (f_beat) begin
      f_first_q <= f_last;
      nf_line_q <= f_line_n;
      nf_idx_q  <= line_idx(f_line_n);
    end
    if (wr_en) vld_q[wr_idx] <= !f_err;
    if (rst) begin
      f_first_q <= 1'b1;
      vld_q     <= '0;
    end
  end

  // ---------------------------------------------------------------- commands
  // queued with the first line's index and the first SQE's flags (n == 1, nok != 0)
  logic             cq_valid, cq_ready, cq_in_ready, cq_nz, cq_one, cq_ok0;
  logic [TAG_W-1:0] cq_line;
  logic [IDX_W-1:0] cq_idx;
  logic [15:0]      cq_n, cq_nok, c_i_q;
  logic [2:0]       unused_cq_cnt;
  assign s_desc_ready = cq_in_ready;
  fabnic_fifo #(.WIDTH(TAG_W + IDX_W + 35), .DEPTH(4)) u_cq (
      .clk, .rst,
      .in_valid(s_desc_valid), .in_ready(cq_in_ready),
      .in_data({s_desc_addr[63:6], line_idx(s_desc_addr[63:6]), s_desc_len[21:6], s_desc_nok,
                s_desc_len[21:6] != '0, s_desc_len[21:6] == 16'd1, s_desc_nok != '0}),
      .out_valid(cq_valid), .out_ready(cq_ready),
      .out_data({cq_line, cq_idx, cq_n, cq_nok, cq_nz, cq_one, cq_ok0}),
      .status_count(unused_cq_cnt)
  );

  // ---------------------------------------------------------------- L0 / L1
  logic                  l0_go, l0_last, l0_ok, c_first_q, nx_last_q, nx_ok_q, room_q;
  logic [TAG_W-1:0]      l0_line, nx_line_q, l0_line_n;
  logic [IDX_W-1:0]      nx_idx_q;
  logic                  l1_valid_q, l1_last_q, l1_ok_q, l1_hit, l1_tag_eq;
  logic [TAG_W-1:0]      l1_line_q;
  logic [VROW-1:0]       l1_vrow_q;
  logic [VR_W-1:0]       l1_vsel_q;
  logic [RC_W-1:0]       res_cnt;
  logic                  res_valid, res_ready, res_hit, res_last;
  logic [223:0]          res_data;
  // runs of misses and the queue toward the host read engine
  logic                  run_q;
  logic [TAG_W-1:0]      run_line_q;
  logic [15:0]           run_n_q, run_n1_q;
  logic                  close, dq_push, dq_in_ready;
  logic [TAG_W-1:0]      dq_line;
  logic [15:0]           dq_n;
  logic [$clog2(DESC_Q):0] dq_cnt;

  // the valid-bit row of rd_idx: a DEPTH/VROW-to-1 mux written as radix-4 stages with
  // kept nets (one LUT per bit and stage), so that synthesis cannot chain it
  localparam int NROW = DEPTH / VROW;
  localparam int RS_W = IDX_W - VR_W;        // row select bits
  localparam int NSTG = (RS_W + 1) / 2;
  logic [VROW-1:0] vrow;
  for (genvar st = 0; st < NSTG; st++) begin : g_vmux
    localparam int NIN  = (NROW + (1 << (2 * st)) - 1) >> (2 * st);   // rows into stage
    localparam int NOUT = (NIN + 3) / 4;
    (* keep *) logic [NOUT*VROW-1:0] o;
    logic [NIN*VROW-1:0] in;
    if (st == 0) begin : g_in0
      assign in = vld_q;
    end else begin : g_inn
      assign in = g_vmux[st-1].o;
    end
    logic [1:0] sel;
    assign sel = 2'(rd_idx[VR_W + 2 * st +: ((2 * st + 2 <= RS_W) ? 2 : 1)]);
    for (genvar j = 0; j < NOUT; j++) begin : g_o
      logic [VROW-1:0] r [4];
      for (genvar k = 0; k < 4; k++) begin : g_r
        if (4 * j + k < NIN) begin : g_row
          assign r[k] = in[(4*j + k)*VROW +: VROW];
        end else begin : g_pad
          assign r[k] = '0;
        end
      end
      assign o[j*VROW +: VROW] = r[sel];
    end
  end
  if (NSTG == 0) begin : g_vrow1
    assign vrow = vld_q;
  end else begin : g_vrown
    assign vrow = g_vmux[NSTG-1].o[VROW-1:0];
  end

  // the SQE L0 looks up: the command's first from the queue head, later ones from nx_*
  assign l0_line   = c_first_q ? cq_line : nx_line_q;
  assign rd_idx    = c_first_q ? cq_idx : nx_idx_q;
  assign l0_last   = c_first_q ? cq_one : nx_last_q;
  assign l0_ok     = c_first_q ? cq_ok0 : nx_ok_q;
  assign l0_line_n = l0_line + TAG_W'(1);
  assign l0_go     = cq_valid && cq_nz && room_q;
  assign cq_ready  = (l0_go && l0_last) || (cq_valid && !cq_nz);
  assign rd_en     = l0_go;

  always_ff @(posedge clk) begin
    if (l0_go) begin
      c_i_q     <= l0_last ? 16'd0 : c_i_q + 16'd1;
      c_first_q <= l0_last;
      nx_line_q <= l0_line_n;
      nx_idx_q  <= line_idx(l0_line_n);
      nx_last_q <= c_i_q + 16'd2 == cq_n;
      nx_ok_q   <= c_i_q + 16'd1 < cq_nok;
    end
    // room for the SQE issued next: one may be in L1, one is issued per cycle, and
    // this flag is a cycle old (each queue may have taken one push since); one more
    // result may wait in the head register h_*
    room_q <= (res_cnt <= RC_W'(RES_DEPTH - 4)) && (dq_cnt <= ($clog2(DESC_Q)+1)'(DESC_Q - 5));
    l1_valid_q <= l0_go;
    l1_line_q  <= l0_line;
    l1_last_q  <= l0_last;
    l1_ok_q    <= l0_ok && !(wr_en && wr_idx == rd_idx);
    l1_vrow_q  <= vrow;
    l1_vsel_q  <= rd_idx[VR_W-1:0];
    if (rst) begin
      c_i_q      <= '0;
      c_first_q  <= 1'b1;
      room_q     <= 1'b0;
      l1_valid_q <= 1'b0;
    end
  end

  // the 58-bit tag compare as a balanced tree with kept nets (as in
  // fabnic_vswitch_table), so that synthesis cannot chain it: 3-bit chunks (one LUT
  // each), groups of six chunks (one LUT each), then the groups with the flags
  localparam int TCH = (TAG_W + 2) / 3;
  localparam int TGR = (TCH + 5) / 6;
  (* keep *) logic [TCH-1:0] l1_tch;
  (* keep *) logic [TGR-1:0] l1_tgr;
  always_comb begin
    logic [3*TCH-1:0] a, b;
    logic [6*TGR-1:0] c;
    a = (3 * TCH)'(rd_data[TAG_W+223:224]);
    b = (3 * TCH)'(l1_line_q);
    for (int i = 0; i < TCH; i++) l1_tch[i] = a[3*i +: 3] == b[3*i +: 3];
    c = {{(6 * TGR - TCH){1'b1}}, l1_tch};
    for (int g = 0; g < TGR; g++) l1_tgr[g] = &c[6*g +: 6];
  end
  assign l1_tag_eq = &l1_tgr;
  assign l1_hit    = l1_ok_q && l1_vrow_q[l1_vsel_q] && l1_tag_eq;
  // a run closes at a hit, at its command's last SQE (that SQE included), or when L1
  // holds no SQE (L0 is waiting: the run's markers must not wait for its own issue)
  always_comb begin
    if (!l1_valid_q) close = run_q;
    else if (l1_hit) close = run_q;
    else close = l1_last_q;
  end
  assign dq_push = close;
  assign dq_line = run_q ? run_line_q : l1_line_q;
  assign dq_n    = !run_q ? 16'd1 : ((l1_valid_q && !l1_hit) ? run_n1_q : run_n_q);

  always_ff @(posedge clk) begin
    if (close) run_q <= 1'b0;
    if (l1_valid_q && !l1_hit && !close) begin
      run_q      <= 1'b1;
      run_line_q <= run_q ? run_line_q : l1_line_q;
      run_n_q    <= run_q ? run_n1_q : 16'd1;
      run_n1_q   <= run_q ? run_n1_q + 16'd1 : 16'd2;
    end
    if (l1_valid_q && l1_hit) cnt_hit <= cnt_hit + 1'b1;
    if (l1_valid_q && !l1_hit) cnt_miss <= cnt_miss + 1'b1;
    if (rst) begin
      run_q    <= 1'b0;
      cnt_hit  <= '0;
      cnt_miss <= '0;
    end
  end

  logic [TAG_W-1:0] dq_out_line;
  logic [15:0]      dq_out_n;
  fabnic_fifo #(.WIDTH(TAG_W + 16), .DEPTH(DESC_Q)) u_dq (
      .clk, .rst,
      .in_valid(dq_push), .in_ready(dq_in_ready), .in_data({dq_line, dq_n}),
      .out_valid(m_desc_valid), .out_ready(m_desc_ready), .out_data({dq_out_line, dq_out_n}),
      .status_count(dq_cnt)
  );
  assign m_desc_addr = {dq_out_line, 6'd0};
  assign m_desc_len  = {10'd0, dq_out_n, 6'd0};

  // ---------------------------------------------------------------- results, output
  // The result FIFO's head goes through a register (h_*), so that the output handshake
  // starts from flops: the FIFO's empty flag (a pointer compare) only loads h_*.
  logic unused_res_in_ready;
  logic          h_valid_q, h_hit_q, h_last_q, h_take;
  logic [223:0]  h_data_q;
  fabnic_fifo #(.WIDTH(226), .DEPTH(RES_DEPTH)) u_res (
      .clk, .rst,
      .in_valid(l1_valid_q), .in_ready(unused_res_in_ready),
      .in_data({l1_hit, l1_last_q, rd_data[223:0]}),
      .out_valid(res_valid), .out_ready(res_ready), .out_data({res_hit, res_last, res_data}),
      .status_count(res_cnt)
  );
  assign m_tvalid     = h_valid_q && (h_hit_q || s_dma_tvalid);
  assign m_tdata      = h_hit_q ? {288'd0, h_data_q} : s_dma_tdata;
  assign m_tlast      = h_last_q;
  assign m_tuser      = !h_hit_q && s_dma_tuser;
  assign h_take       = m_tvalid && m_tready;
  assign res_ready    = !h_valid_q || h_take;
  assign s_dma_tready = h_valid_q && !h_hit_q && m_tready;
  always_ff @(posedge clk) begin
    if (res_ready) begin
      h_valid_q <= res_valid;
      h_hit_q   <= res_hit;
      h_last_q  <= res_last;
      h_data_q  <= res_data;
    end
    if (rst) h_valid_q <= 1'b0;
  end

  logic unused;
  assign unused = ^{unused_fq_cnt, unused_cq_cnt, unused_res_in_ready, s_fdesc_addr[5:0],
                    s_desc_addr[5:0], s_desc_len[31:22], s_desc_len[5:0]};

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // the room flags keep both queues from overflowing
      if (l1_valid_q) assert (unused_res_in_ready) else $error("sqe_shadow: result FIFO full");
      if (dq_push) assert (dq_in_ready) else $error("sqe_shadow: descriptor queue full");
      // the first SQE of a command is looked up with the queue's precomputed index
      if (l0_go && c_first_q) assert (c_i_q == '0) else $error("sqe_shadow: first SQE index");
      if (l0_go) assert (rd_idx == line_idx(l0_line)) else $error("sqe_shadow: stale index");
      if (wr_en) assert (wr_idx == line_idx(f_line)) else $error("sqe_shadow: stale fill index");
    end
  end
`endif

endmodule

`resetall
