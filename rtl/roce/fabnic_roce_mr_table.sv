// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_mr_table: memory-region table and access check.
//
// NUM_MR entries (fabnic_roce_pkg::mr_entry_t: valid, 8-bit tag, PD, access bits,
// base VA, length, host base address) in one block RAM (fabnic_ram_sdp).
// Key layout (lkey/rkey, 32 bits): index = key[31:8] (must be < NUM_MR, so the bits
// above the index width must be zero), tag = key[7:0] (must equal the stored tag:
// a key from before a re-registration with a new tag fails).
//
// Write port (wr_*): one entry write per cycle, always ready. Registration writes a
// valid entry; deregistration writes valid=0. A check whose RAM read happens in the
// same cycle as a write to the same index sees the old entry (read-first).
//
// Check port (s_chk_* -> m_chk_*): one check per cycle, in order, latency 2 cycles
// (RAM read, then compare into the output register), back-pressure only. A check
// gives ok=1 and err=MR_OK, or ok=0 and the first failing rule in this order:
//   zero length (len == 0): always ok, no key check (IBTA: a zero-length RDMA
//     access does not validate the R_Key; see docs/roce.md), addr = va
//   MR_ERR_INVALID  index >= NUM_MR or entry not valid
//   MR_ERR_TAG      key[7:0] != stored tag
//   MR_ERR_PD       request PD != entry PD
//   MR_ERR_ACCESS   (required & ~entry.access) != 0
//   MR_ERR_BOUNDS   va < base, or va + len > base + length, or va + len > 2^64
// On ok, addr = va - base + host_base (mod 2^64); registering host_base = base gives
// the identity translation. With an ok result for a nonzero length, m_chk_lo/hi/off/acc
// also describe the whole region the key names (VA base, VA end base + length as 65
// bits, host_base - base, access bits), so a client may cache the translation: any
// later access with the same key and PD, inside [lo, hi) and needing no other access
// bits, would pass and translate to va + off, as long as the table is not written.
// Counters (CNT_W bits, wrapping): checks and one per error, updated one cycle after
// the result register (from the registered error code).
// Stage B computes every rule's flag in parallel (va + len is added in stage A, the
// three-operand sums are a carry-save layer and one carry chain, the compares and the
// overflow test balanced trees of kept nets) and picks the first.
// Handshake: s_chk_ready = !(stage B full) || !m_chk_valid || m_chk_ready, combinational
// from m_chk_ready (the engines tie m_chk_ready to 1).
`default_nettype none

module fabnic_roce_mr_table #(
    parameter int NUM_MR = 4096,
    parameter int ID_W   = 8,      // opaque request tag carried to the response
    parameter int CNT_W  = 32,
    parameter int IDX_W  = (NUM_MR > 1) ? $clog2(NUM_MR) : 1
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // registration / deregistration
    input  wire logic                      wr_valid,
    output logic                           wr_ready,
    input  wire logic [IDX_W-1:0]          wr_index,
    input  wire fabnic_roce_pkg::mr_entry_t wr_entry,

    // check request
    input  wire logic                      s_chk_valid,
    output logic                           s_chk_ready,
    input  wire logic [31:0]               s_chk_key,
    input  wire logic [63:0]               s_chk_va,
    input  wire logic [31:0]               s_chk_len,
    input  wire logic [3:0]                s_chk_access,   // required access bits
    input  wire logic [23:0]               s_chk_pd,
    input  wire logic [ID_W-1:0]           s_chk_id,

    // check response
    output logic                           m_chk_valid,
    input  wire logic                      m_chk_ready,
    output logic                           m_chk_ok,
    output fabnic_roce_pkg::mr_err_e       m_chk_err,
    output logic      [63:0]               m_chk_addr,
    output logic      [ID_W-1:0]           m_chk_id,
    output logic      [63:0]               m_chk_lo,
    output logic      [64:0]               m_chk_hi,
    output logic      [63:0]               m_chk_off,
    output logic      [3:0]                m_chk_acc,

    output logic      [CNT_W-1:0]          cnt_chk,
    output logic      [CNT_W-1:0]          cnt_err_invalid,
    output logic      [CNT_W-1:0]          cnt_err_tag,
    output logic      [CNT_W-1:0]          cnt_err_pd,
    output logic      [CNT_W-1:0]          cnt_err_access,
    output logic      [CNT_W-1:0]          cnt_err_bounds
);

  localparam int EW = $bits(fabnic_roce_pkg::mr_entry_t);

  if (IDX_W > 24 || NUM_MR < 2) begin : g_check
    $error("fabnic_roce_mr_table: NUM_MR must be 2 .. 2^24");
  end

  assign wr_ready = 1'b1;

  // ---------------------------------------------------------------- stage A: read
  logic              s_fire, b_valid_q, b_adv;
  logic [IDX_W-1:0]  rd_index;
  logic              in_range;
  logic [EW-1:0]     rd_word;

  always_comb begin
    logic [23:0] idx;
    idx      = s_chk_key[31:8];
    rd_index = idx[IDX_W-1:0];
    in_range = idx < 24'(NUM_MR);
  end

  assign b_adv       = !m_chk_valid || m_chk_ready;
  assign s_chk_ready = !b_valid_q || b_adv;
  assign s_fire      = s_chk_valid && s_chk_ready;

  fabnic_ram_sdp #(.DATA_W(EW), .DEPTH(NUM_MR), .OUT_REG(1'b0)) u_ram (
      .clk,
      .wr_en(wr_valid), .wr_be(1'b1), .wr_addr(wr_index), .wr_data(wr_entry),
      .rd_en(s_fire), .rd_regce(1'b1), .rd_addr(rd_index), .rd_data(rd_word)
  );

  // ---------------------------------------------------------------- stage B: compare
  logic [7:0]        b_tag_q;
  logic              b_in_range_q, b_zero_q;
  logic [63:0]       b_va_q;
  logic [64:0]       b_end_q;      // va + len
  logic [3:0]        b_access_q;
  logic [23:0]       b_pd_q;
  logic [ID_W-1:0]   b_id_q;

  always_ff @(posedge clk) begin
    if (s_fire) begin
      b_tag_q      <= s_chk_key[7:0];
      b_in_range_q <= in_range;
      b_zero_q     <= s_chk_len == '0;
      b_va_q       <= s_chk_va;
      b_end_q      <= {1'b0, s_chk_va} + 65'(s_chk_len);
      b_access_q   <= s_chk_access;
      b_pd_q       <= s_chk_pd;
      b_id_q       <= s_chk_id;
    end
    if (s_fire) b_valid_q <= 1'b1;
    else if (b_adv) b_valid_q <= 1'b0;
    if (rst) b_valid_q <= 1'b0;
  end

  // Three-operand sums as a carry-save layer and one carry chain:
  //   addr = va + host_base - base;  hi_over = (va + len) - (base + length) - 1 >= 0.
  function automatic logic [66:0] add3(input logic [66:0] x, input logic [66:0] y,
                                      input logic [66:0] z, input logic cin);
    logic [66:0] sv, cv;
    sv = x ^ y ^ z;
    cv = (x & y) | (x & z) | (y & z);
    return sv + (cv << 1) + 67'(cin);
  endfunction

  fabnic_roce_pkg::mr_entry_t e;
  fabnic_roce_pkg::mr_err_e   err;
  logic [63:0]                addr;
  logic                       f_lo, f_hi, ok;

  logic [66:0] a3, h3;       // a3[63:0] is the address; h3[66] the upper-bound sign
  logic        unused_sums;
  assign unused_sums = ^{a3[66:64], h3[65:0]};
  always_comb begin
    e     = rd_word;
    a3    = add3({3'd0, b_va_q}, {3'd0, e.host_base}, ~{3'd0, e.base}, 1'b1);
    // (va + len) + ~base + ~length + 1 = (va + len) - base - length - 1 (67-bit signed)
    h3    = add3({2'd0, b_end_q}, ~{3'd0, e.base}, ~{3'd0, e.length}, 1'b1);
    f_lo  = b_va_q < e.base;
    f_hi  = !h3[66];
  end

  // The rule flags as balanced trees with kept intermediate nets (as in
  // fabnic_vswitch_table), so that synthesis cannot chain them: 3-bit compare chunks
  // and 6-bit OR chunks (one LUT each), then groups of up to six (one LUT each).
  (* keep *) logic [2:0]  tag_ch;   // tag bits equal, 3 bits a chunk
  (* keep *) logic [7:0]  pd_ch;    // PD bits equal
  (* keep *) logic [10:0] ov_ch;    // (va + len)[63:0] nonzero, 6 bits a chunk
  (* keep *) logic [1:0]  ov_gr;    // ... six chunks a group
  (* keep *) logic        f_inv, f_tag, f_pd, f_acc, f_ovf, id_ok, bnd_ok;
  always_comb begin
    logic [8:0]  tq, te;
    logic [65:0] endp;
    tq   = {1'b0, b_tag_q};
    te   = {1'b0, e.tag};
    endp = {2'b0, b_end_q[63:0]};
    for (int i = 0; i < 3; i++) tag_ch[i] = tq[3*i +: 3] == te[3*i +: 3];
    for (int i = 0; i < 8; i++) pd_ch[i] = b_pd_q[3*i +: 3] == e.pd[3*i +: 3];
    for (int i = 0; i < 11; i++) ov_ch[i] = |endp[6*i +: 6];
    ov_gr[0] = |ov_ch[5:0];
    ov_gr[1] = |ov_ch[10:6];
    f_inv  = !b_in_range_q || !e.valid;
    f_tag  = !(&tag_ch);
    f_pd   = !(&pd_ch);
    f_acc  = (b_access_q & ~e.access) != 4'd0;
    f_ovf  = b_end_q[64] && (|ov_gr);
    // every rule but the bounds (index range, valid, tag, PD, access)
    id_ok  = !f_inv && !f_acc && (&tag_ch) && (&pd_ch);
    bnd_ok = !f_lo && !f_hi && !f_ovf;
  end

  always_comb begin
    ok    = b_zero_q || (id_ok && bnd_ok);
    addr  = b_zero_q ? b_va_q : a3[63:0];
    if (b_zero_q) err = fabnic_roce_pkg::MR_OK;
    else if (f_inv) err = fabnic_roce_pkg::MR_ERR_INVALID;
    else if (f_tag) err = fabnic_roce_pkg::MR_ERR_TAG;
    else if (f_pd) err = fabnic_roce_pkg::MR_ERR_PD;
    else if (f_acc) err = fabnic_roce_pkg::MR_ERR_ACCESS;
    else if (!bnd_ok) err = fabnic_roce_pkg::MR_ERR_BOUNDS;
    else err = fabnic_roce_pkg::MR_OK;
  end

  logic cnt_v_q;   // a check left stage B in the previous cycle (counted from m_chk_err)
  always_ff @(posedge clk) begin
    if (b_adv) m_chk_valid <= b_valid_q;
    cnt_v_q <= b_adv && b_valid_q;
    if (b_adv && b_valid_q) begin
      m_chk_ok   <= ok;
      m_chk_err  <= err;
      m_chk_addr <= ok ? addr : 64'd0;
      m_chk_id   <= b_id_q;
      m_chk_lo   <= e.base;
      m_chk_hi   <= {1'b0, e.base} + {1'b0, e.length};
      m_chk_off  <= e.host_base - e.base;
      m_chk_acc  <= e.access;
    end
    if (rst) begin
      m_chk_valid <= 1'b0;
      cnt_v_q     <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- counters
  // one cycle after the check leaves stage B, from the registered error code
  always_ff @(posedge clk) begin
    if (cnt_v_q) begin
      cnt_chk <= cnt_chk + 1'b1;
      case (m_chk_err)
        fabnic_roce_pkg::MR_ERR_INVALID: cnt_err_invalid <= cnt_err_invalid + 1'b1;
        fabnic_roce_pkg::MR_ERR_TAG:     cnt_err_tag     <= cnt_err_tag + 1'b1;
        fabnic_roce_pkg::MR_ERR_PD:      cnt_err_pd      <= cnt_err_pd + 1'b1;
        fabnic_roce_pkg::MR_ERR_ACCESS:  cnt_err_access  <= cnt_err_access + 1'b1;
        fabnic_roce_pkg::MR_ERR_BOUNDS:  cnt_err_bounds  <= cnt_err_bounds + 1'b1;
        default: ;
      endcase
    end
    if (rst) begin
      cnt_chk         <= '0;
      cnt_err_invalid <= '0;
      cnt_err_tag     <= '0;
      cnt_err_pd      <= '0;
      cnt_err_access  <= '0;
      cnt_err_bounds  <= '0;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && b_valid_q && !b_zero_q && !f_inv && !f_tag && !f_pd && !f_acc) begin
      // the carry-save forms agree with the plain arithmetic
      assert (!bnd_ok == (b_va_q < e.base || b_end_q > {1'b0, e.base} + {1'b0, e.length}
                        || b_end_q > {1'b1, 64'd0}))
        else $error("mr_table: bounds check");
      assert (addr == b_va_q - e.base + e.host_base) else $error("mr_table: address");
    end
  end
`endif

endmodule

`resetall
