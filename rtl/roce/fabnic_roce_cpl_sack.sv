// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl_sack: selective-repeat resend planner of the completer
// (fabnic_roce_cpl). One request at a time: it turns a received bitmap (a SACK, or the
// out-of-order READ responses of a QP) or a probe into the PSNs to resend, and emits
// them one per cycle, lowest first, on m_ev_*. docs/roce_sr.md has the protocol.
//
// Modes (s_mode):
//   M_HOLES  s_bmp bit i = PSN s_base + i received. Resend the missing PSNs at least
//            s_reorder below the highest marked one (0 counts as 1), at or above s_mark
//            (PSNs below it were already resent), and only when s_una <= s_base <= s_psn_hi
//            and the bitmap is not empty. m_done_mark = base + (bits considered) when
//            that moves s_mark up and any PSN qualified, else s_mark.
//   M_TAIL   resend every PSN of [s_base, s_psn_hi), at most 64 (s_base = una).
//   M_ONE    resend s_base only.
// s_gate = 1 (any mode): emit nothing unless s_una < s_psn_hi (the mark is still
// reported).
//
// Stages (one request; every stage one register, each at most 6 logic levels):
//   capture  s_valid && s_ready: the request is registered (s_ready = !busy, a flop)
//   1        4 x 16 highest-set-bit of the bitmap, mark - base, window checks, tail length
//   2        highest set bit (4:1 of the groups), bits considered e, keep mask of each bit
//   3        resend mask (keep & bit < e), base + e
//   4        any bit in the mask, the new mark; the mask goes to the emitter
//   emit     E1 lowest set bit (one-hot) cleared from the mask, E2 its index, E3 base +
//            index in the output register; one PSN per cycle while m_ev_ready
//   done     m_done (one cycle, with m_done_mark) when the emitter is empty
// Latency, counted from the request handshake cycle: first m_ev_valid after 8 cycles,
// then one PSN per cycle while m_ev_ready; m_done 2 cycles after the last PSN's
// handshake, or after 6 cycles with nothing to resend. s_mode 3 is not used.
// Handshakes: s_ready and m_ev_valid are flops; m_ev_ready enables the emitter's
// registers only (no combinational path to an output).
`default_nettype none

module fabnic_roce_cpl_sack (
    input  wire logic        clk,
    input  wire logic        rst,

    input  wire logic        s_valid,
    output logic             s_ready,
    input  wire logic [1:0]  s_mode,
    input  wire logic [23:0] s_base,
    input  wire logic [63:0] s_bmp,
    input  wire logic [23:0] s_mark,
    input  wire logic [23:0] s_una,
    input  wire logic [23:0] s_psn_hi,
    input  wire logic [5:0]  s_reorder,
    input  wire logic        s_gate,

    output logic             m_ev_valid,
    input  wire logic        m_ev_ready,
    output logic      [23:0] m_ev_psn,

    output logic             m_done,
    output logic      [23:0] m_done_mark
);
  import fabnic_roce_pkg::*;

  localparam logic [1:0] M_HOLES = 2'd0, M_TAIL = 2'd1, M_ONE = 2'd2;

  // ------------------------------------------------------------------ capture
  logic        busy_q;
  logic [1:0]  mode_q;
  logic [23:0] base_q, mark_q, una_q, phi_q;
  logic [63:0] bmp_q;
  logic [5:0]  reo_q;
  logic        gate_q;
  logic        v0_q, v1_q, v2_q, v3_q, em_q;

  assign s_ready = !busy_q;

  always_ff @(posedge clk) begin
    if (s_valid && s_ready) begin
      mode_q <= s_mode;
      base_q <= s_base;
      bmp_q  <= s_bmp;
      mark_q <= s_mark;
      una_q  <= s_una;
      phi_q  <= s_psn_hi;
      reo_q  <= s_reorder;
      gate_q <= s_gate;
    end
  end

  // ------------------------------------------------------------------ stage 1
  logic [3:0]  g_any_q;
  logic [3:0]  g_hi_q [4];
  logic        lt_q, st_ge_q, ok_q, gok_q, n_ge_q;
  logic [5:0]  st_lo_q, thm1_q, n_lo_q;
  always_ff @(posedge clk) begin
    logic [23:0] d, n;
    for (int g = 0; g < 4; g++) begin
      g_any_q[g] <= |bmp_q[16*g +: 16];
      g_hi_q[g]  <= '0;
      for (int i = 0; i < 16; i++) if (bmp_q[16*g + i]) g_hi_q[g] <= 4'(i);
    end
    d       = mark_q - base_q;
    lt_q    <= psn_lt(base_q, mark_q);
    st_ge_q <= d[23:6] != '0;
    st_lo_q <= d[5:0];
    ok_q    <= bmp_q != '0 && psn_le(una_q, base_q) && psn_le(base_q, phi_q);
    gok_q   <= !gate_q || psn_lt(una_q, phi_q);
    thm1_q  <= (reo_q == '0) ? 6'd0 : reo_q - 6'd1;
    n       = phi_q - base_q;
    n_ge_q  <= n[23:6] != '0;
    n_lo_q  <= n[5:0];
  end

  // ------------------------------------------------------------------ stage 2
  logic [5:0]  e_q;
  logic [63:0] keep_q;
  always_ff @(posedge clk) begin
    logic [5:0] hi;
    logic [6:0] df;
    hi = g_any_q[3] ? {2'd3, g_hi_q[3]} : g_any_q[2] ? {2'd2, g_hi_q[2]}
       : g_any_q[1] ? {2'd1, g_hi_q[1]} : {2'd0, g_hi_q[0]};
    df = {1'b0, hi} - {1'b0, thm1_q};      // hi + 1 - max(reorder, 1)
    e_q <= df[6] ? 6'd0 : df[5:0];
    for (int i = 0; i < 64; i++) begin
      unique case (mode_q)
        M_TAIL:  keep_q[i] <= n_ge_q || 6'(i) < n_lo_q;
        M_ONE:   keep_q[i] <= i == 0;
        default: keep_q[i] <= ok_q && !bmp_q[i] && !(lt_q && (st_ge_q || 6'(i) < st_lo_q));
      endcase
    end
  end

  // ------------------------------------------------------------------ stage 3
  logic [63:0] mask_q;
  logic [23:0] hi_q;
  always_ff @(posedge clk) begin
    for (int i = 0; i < 64; i++)
      mask_q[i] <= keep_q[i] && (mode_q != M_HOLES || 6'(i) < e_q);
    hi_q <= base_q + 24'(e_q);
  end

  // ------------------------------------------------------------------ stage 4 and emitter
  logic [63:0] m_q;
  logic        e1_v_q, e2_v_q;
  logic [63:0] e1_oh_q;
  logic [5:0]  e2_idx_q;
  logic        adv, m_empty;
  logic [64:0] dec;
  assign adv     = !m_ev_valid || m_ev_ready;
  assign dec     = {1'b0, m_q} - 65'd1;
  assign m_empty = dec[64];

  always_ff @(posedge clk) begin
    m_done <= 1'b0;
    if (v3_q) begin
      m_done_mark <= (mode_q == M_HOLES && mask_q != '0 && psn_lt(mark_q, hi_q)) ? hi_q
                                                                                : mark_q;
      m_q <= gok_q ? mask_q : '0;
    end else if (em_q && adv && !m_empty) begin
      m_q <= m_q & dec[63:0];
    end
    if (adv) begin
      e1_v_q     <= em_q && !m_empty;
      e1_oh_q    <= m_q & ~dec[63:0];
      e2_v_q     <= e1_v_q;
      m_ev_valid <= e2_v_q;
      m_ev_psn   <= base_q + 24'(e2_idx_q);
      // index of the one set bit: bit b of it is the OR of the one-hot's bits with b set
      for (int b = 0; b < 6; b++) begin
        logic any;
        any = 1'b0;
        for (int i = 0; i < 64; i++) if (((i >> b) & 1) == 1) any = any | e1_oh_q[i];
        e2_idx_q[b] <= any;
      end
    end
    if (em_q && m_empty && !e1_v_q && !e2_v_q && !m_ev_valid) begin
      m_done <= 1'b1;
      em_q   <= 1'b0;
      busy_q <= 1'b0;
    end
    if (s_valid && s_ready) busy_q <= 1'b1;
    v0_q <= s_valid && s_ready;
    v1_q <= v0_q;
    v2_q <= v1_q;
    v3_q <= v2_q;
    if (v3_q) em_q <= 1'b1;
    if (rst) begin
      busy_q     <= 1'b0;
      v0_q       <= 1'b0;
      v1_q       <= 1'b0;
      v2_q       <= 1'b0;
      v3_q       <= 1'b0;
      em_q       <= 1'b0;
      e1_v_q     <= 1'b0;
      e2_v_q     <= 1'b0;
      m_ev_valid <= 1'b0;
      m_done     <= 1'b0;
    end
  end

  logic unused;
  assign unused = g_any_q[0];   // group 0 is the default of the 4:1 choice

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      // one request at a time: nothing is captured while one is in the stages
      assert (!(s_valid && s_ready) || !(v0_q || v1_q || v2_q || v3_q || em_q));
      assert (!(em_q && v3_q));
      assert (mode_q != 2'd3 || !busy_q);
      // the one-hot of E1 has at most one bit set
      assert (!e1_v_q || $onehot(e1_oh_q));
    end
  end
`endif

endmodule

`resetall
