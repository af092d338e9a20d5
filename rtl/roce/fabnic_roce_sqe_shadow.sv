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
`default_nettype none

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

  if ((1 << IDX_W) != DEPTH) begin : g_check_depth
    $error("fabnic_roce_sqe_shadow: DEPTH must be a power of two");
  end

  localparam int TAG_W = 58;   // 64-byte line address

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
  logic [TAG_W-1:0]        fq_line, f_line;   // fill: the beat's line address

  fabnic_ram_sdp #(.DATA_W(TAG_W + 224), .DEPTH(DEPTH)) u_tab (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr(wr_idx), .wr_data({f_line, f_data}),
      .rd_en, .rd_regce(1'b1), .rd_addr(rd_idx), .rd_data
  );

  // ---------------------------------------------------------------- fill
  logic             fq_valid, fq_in_ready, fq_push;
  logic [15:0]      f_cnt_q;
  logic [$clog2(FILL_Q):0] unused_fq_cnt;
  // zero-length descriptors deliver no beats: not queued
  assign fq_push       = s_fdesc_valid && m_fdesc_ready && fq_in_ready && s_fdesc_len != '0;
  assign m_fdesc_valid = s_fdesc_valid && fq_in_ready;
  assign s_fdesc_ready = m_fdesc_ready && fq_in_ready;
  fabnic_fifo #(.WIDTH(TAG_W), .DEPTH(FILL_Q)) u_fq (
      .clk, .rst,
      .in_valid(fq_push), .in_ready(fq_in_ready), .in_data(s_fdesc_addr[63:6]),
      .out_valid(fq_valid), .out_ready(f_beat && f_last), .out_data(fq_line),
      .status_count(unused_fq_cnt)
  );
  assign f_line = fq_line + TAG_W'(f_cnt_q);
  assign wr_en  = f_beat && fq_valid;
  assign wr_idx = line_idx(f_line);
  always_ff @(posedge clk) begin
    if (f_beat) f_cnt_q <= f_last ? 16'd0 : f_cnt_q + 16'd1;
    if (wr_en) vld_q[wr_idx] <= !f_err;
    if (rst) begin
      f_cnt_q <= '0;
      vld_q   <= '0;
    end
  end

  // ---------------------------------------------------------------- commands
  logic             cq_valid, cq_ready, cq_in_ready;
  logic [TAG_W-1:0] cq_line;
  logic [15:0]      cq_n, cq_nok, c_i_q;
  logic [2:0]       unused_cq_cnt;
  assign s_desc_ready = cq_in_ready;
  fabnic_fifo #(.WIDTH(TAG_W + 32), .DEPTH(4)) u_cq (
      .clk, .rst,
      .in_valid(s_desc_valid), .in_ready(cq_in_ready),
      .in_data({s_desc_addr[63:6], s_desc_len[21:6], s_desc_nok}),
      .out_valid(cq_valid), .out_ready(cq_ready), .out_data({cq_line, cq_n, cq_nok}),
      .status_count(unused_cq_cnt)
  );

  // ---------------------------------------------------------------- L0 / L1
  logic                  l1_valid_q, l1_last_q, l1_ok_q, l1_stall, l1_push, l1_hit;
  logic [TAG_W-1:0]      l1_line_q;
  logic                  l0_go;
  logic [TAG_W-1:0]      l0_line;
  logic [$clog2(RES_DEPTH):0] res_cnt;
  logic                  res_valid, res_ready, res_hit, res_last;
  logic [223:0]          res_data;
  // runs of misses and the descriptor slot toward the host read engine
  logic                  run_q;
  logic [TAG_W-1:0]      run_line_q;
  logic [15:0]           run_n_q;
  logic                  close, slot_free;

  assign l0_line  = cq_line + TAG_W'(c_i_q);
  assign slot_free = !m_desc_valid || m_desc_ready;
  assign l1_hit   = l1_ok_q && rd_data[TAG_W+223:224] == l1_line_q;
  // a run closes at a hit, at its command's last SQE (that SQE included), or when L1
  // holds no SQE (L0 is waiting: the run's markers must not wait for its own issue)
  always_comb begin
    if (!l1_valid_q) close = run_q;
    else if (l1_hit) close = run_q;
    else close = l1_last_q;
  end
  assign l1_stall = close && !slot_free;
  assign l1_push  = l1_valid_q && !l1_stall;
  // room: one SQE may sit in L1, and at most one is pushed per cycle
  assign l0_go    = cq_valid && cq_n != '0 && !l1_stall
                    && res_cnt <= ($clog2(RES_DEPTH)+1)'(RES_DEPTH - 2);
  assign cq_ready = (l0_go && c_i_q + 16'd1 == cq_n) || (cq_valid && cq_n == '0);
  assign rd_en    = l0_go;
  assign rd_idx   = line_idx(l0_line);

  always_ff @(posedge clk) begin
    if (!l1_stall) begin
      l1_valid_q <= l0_go;
      l1_line_q  <= l0_line;
      l1_last_q  <= c_i_q + 16'd1 == cq_n;
      l1_ok_q    <= c_i_q < cq_nok && vld_q[rd_idx] && !(wr_en && wr_idx == rd_idx);
    end
    if (l0_go) c_i_q <= (c_i_q + 16'd1 == cq_n) ? 16'd0 : c_i_q + 16'd1;
    // runs
    if (close && slot_free) begin
      m_desc_valid <= 1'b1;
      m_desc_addr  <= {(run_q ? run_line_q : l1_line_q), 6'd0};
      m_desc_len   <= {10'd0, run_q ? run_n_q + 16'(l1_valid_q && !l1_hit) : 16'd1, 6'd0};
      run_q        <= 1'b0;
    end else if (m_desc_ready) begin
      m_desc_valid <= 1'b0;
    end
    if (l1_push && !l1_hit && !close) begin
      run_q      <= 1'b1;
      run_line_q <= run_q ? run_line_q : l1_line_q;
      run_n_q    <= run_q ? run_n_q + 16'd1 : 16'd1;
    end
    if (l1_push) begin
      cnt_hit  <= cnt_hit + CNT_W'(l1_hit);
      cnt_miss <= cnt_miss + CNT_W'(!l1_hit);
    end
    if (rst) begin
      l1_valid_q   <= 1'b0;
      c_i_q        <= '0;
      m_desc_valid <= 1'b0;
      run_q        <= 1'b0;
      cnt_hit      <= '0;
      cnt_miss     <= '0;
    end
  end

  // ---------------------------------------------------------------- results, output
  logic unused_res_in_ready;
  fabnic_fifo #(.WIDTH(226), .DEPTH(RES_DEPTH)) u_res (
      .clk, .rst,
      .in_valid(l1_push), .in_ready(unused_res_in_ready),
      .in_data({l1_hit, l1_last_q, rd_data[223:0]}),
      .out_valid(res_valid), .out_ready(res_ready), .out_data({res_hit, res_last, res_data}),
      .status_count(res_cnt)
  );
  assign m_tvalid     = res_valid && (res_hit || s_dma_tvalid);
  assign m_tdata      = res_hit ? {288'd0, res_data} : s_dma_tdata;
  assign m_tlast      = res_last;
  assign m_tuser      = !res_hit && s_dma_tuser;
  assign res_ready    = m_tvalid && m_tready;
  assign s_dma_tready = res_valid && !res_hit && m_tready;

  logic unused;
  assign unused = ^{unused_fq_cnt, unused_cq_cnt, unused_res_in_ready, s_fdesc_addr[5:0],
                    s_desc_addr[5:0], s_desc_len[31:22], s_desc_len[5:0]};

endmodule

`default_nettype wire
