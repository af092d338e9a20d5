// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pfc_rx: MAC Control receive side of IEEE 802.1Qbb PFC and 802.3x
// PAUSE. Sits on the receive AXI-Stream after FCS strip (any DATA_W >= 64,
// power of two).
//
// - Every frame with EtherType 0x8808 (MAC Control) is removed from the stream.
//   It is acted upon only if it is good (tuser[0]=0 on the last beat) and long
//   enough to hold the fields:
//     opcode 0x0101 (PFC): bytes 16-17 class-enable vector (bit p = priority
//       p), bytes 18+2p.. quanta of priority p (big endian);
//     opcode 0x0001 (PAUSE): bytes 16-17 one quanta for all 8 priorities.
//   The destination address is not checked (both the reserved multicast
//   01-80-C2-00-00-01 and a unicast address are legal for PAUSE).
// - Eight pause timers count quanta; one quantum is 512 bit times =
//   cycles_per_quantum clock cycles (unsigned Q8.8, must be >= 1.0; 8.0 at
//   10 G / 156.25 MHz, 1.28 at 100 G / 250 MHz). A fractional accumulator
//   carries the remainder, so a pause of Q quanta lasts Q*cycles_per_quantum
//   cycles rounded up. A new frame reloads the timer of each enabled priority
//   (quanta 0 = release at once). pause[p] (a flop) is high while timer p runs;
//   it rises 2 cycles after the control frame's last beat is accepted (the frame
//   end is registered, then the timers load).
// - Other frames pass unchanged. With DATA_W=64 the EtherType is in beat 1,
//   so beat 0 of every frame is held one beat; otherwise beats pass through a
//   single register. Full throughput; back-pressure passes from m_axis.
// - Combinational handshake paths, by design (a one-beat hold register):
//   m_axis_tready -> s_axis_tready; at DATA_W=64 also s_axis_tvalid ->
//   m_axis_tvalid and s_axis_tready (a held beat 0 leaves when beat 1 shows whether
//   the frame is a control frame). Data, tkeep, tlast and tuser come from flops.
// - Counters (wrap): PFC and PAUSE frames acted upon, good control frames with
//   another opcode or too short (consumed, ignored), bad control frames
//   (consumed, ignored).
`default_nettype none

module fabnic_pfc_rx #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int USER_W = 1,
    parameter int CNT_W  = 32
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    input  wire logic [15:0]       cycles_per_quantum,  // Q8.8
    output logic      [7:0]        pause,

    output logic      [CNT_W-1:0]  stat_pfc,
    output logic      [CNT_W-1:0]  stat_pause,
    output logic      [CNT_W-1:0]  stat_ctrl_other,
    output logic      [CNT_W-1:0]  stat_ctrl_bad
);

  if (KEEP_W < 8 || (KEEP_W & (KEEP_W - 1)) != 0) begin : g_check_w
    $error("fabnic_pfc_rx: DATA_W must be a power of two >= 64");
  end

  localparam int HB  = 12 / KEEP_W;       // beat holding the EtherType (bytes 12-13)
  localparam int B33 = 33 / KEEP_W;       // beat holding the last quanta byte
  localparam int L33 = 33 % KEEP_W;
  localparam int F0  = 14;                // first captured byte (opcode)
  localparam int NF  = 20;                // bytes 14..33
  localparam int R_W = 18;                // pause timer fraction, signed

  // ---------------------------------------------------------------- input side
  // Beat position in the input frame as a one-hot over the beats that hold the
  // EtherType or a captured byte (beats 0..B33) plus a flag for the beats after them,
  // so the position compares are single flops.
  logic [B33:0] at_q;                     // at_q[j]: the next input beat is beat j
  logic         past_q;                   // the next input beat is after beat B33
  logic         frm_dec_q, frm_ctrl_q;    // decision for the rest of the frame
  logic [7:0]   cap_q [NF];
  logic [7:0]   fld   [NF];

  logic in_fire;
  assign in_fire = s_axis_tvalid && s_axis_tready;

  logic is_ctrl_here;                     // this input beat carries EtherType 0x8808
  assign is_ctrl_here = at_q[HB] && s_axis_tkeep[(13 % KEEP_W)]
                        && s_axis_tdata[8*(12 % KEEP_W) +: 8] == 8'h88
                        && s_axis_tdata[8*(13 % KEEP_W) +: 8] == 8'h08;

  logic dec_in, drop_in;
  // (always decided when the EtherType is in beat 0, i.e. DATA_W >= 128)
  assign dec_in  = (HB == 0) || frm_dec_q || at_q[HB] || s_axis_tlast;
  assign drop_in = frm_dec_q ? frm_ctrl_q : is_ctrl_here;

  always_comb begin
    for (int k = 0; k < NF; k++) begin
      fld[k] = cap_q[k];
      if (at_q[(F0 + k) / KEEP_W]) fld[k] = s_axis_tdata[8*((F0 + k) % KEEP_W) +: 8];
    end
  end

  // ---------------------------------------------------------------- hold register
  logic              a_valid_q, a_dec_q, a_drop_q;
  logic [DATA_W-1:0] a_data_q;
  logic [KEEP_W-1:0] a_keep_q;
  logic              a_last_q;
  logic [USER_W-1:0] a_user_q;

  logic eff_dec, eff_drop, a_leave;
  // an undecided beat 0 is decided by a look at the next input beat (beat HB)
  assign eff_dec  = a_dec_q || s_axis_tvalid;
  assign eff_drop = a_dec_q ? a_drop_q : is_ctrl_here;
  assign a_leave  = a_valid_q && eff_dec && (eff_drop || m_axis_tready);
  assign s_axis_tready = !a_valid_q || a_leave;

  assign m_axis_tvalid = a_valid_q && eff_dec && !eff_drop;
  assign m_axis_tdata  = a_data_q;
  assign m_axis_tkeep  = a_keep_q;
  assign m_axis_tlast  = a_last_q;
  assign m_axis_tuser  = a_user_q;

  // frame end, registered: the control frame's fields (cap_q) and flags
  logic ev_q, ev_ctrl_q, ev_bad_q, ev_long_q;

  always_ff @(posedge clk) begin
    ev_q <= in_fire && s_axis_tlast;
    if (a_leave) a_valid_q <= 1'b0;
    if (in_fire) begin
      a_valid_q <= 1'b1;
      a_dec_q   <= dec_in;
      a_drop_q  <= drop_in;
      a_data_q  <= s_axis_tdata;
      a_keep_q  <= s_axis_tkeep;
      a_last_q  <= s_axis_tlast;
      a_user_q  <= s_axis_tuser;
      for (int k = 0; k < NF; k++) cap_q[k] <= fld[k];
      ev_ctrl_q <= drop_in;
      ev_bad_q  <= s_axis_tuser[0];
      ev_long_q <= past_q || (at_q[B33] && s_axis_tkeep[L33]);
      if (s_axis_tlast) begin
        at_q      <= (B33 + 1)'(1);
        past_q    <= 1'b0;
        frm_dec_q <= 1'b0;
      end else begin
        at_q   <= at_q << 1;
        past_q <= past_q || at_q[B33];
        if (at_q[HB]) begin
          frm_dec_q  <= 1'b1;
          frm_ctrl_q <= is_ctrl_here;
        end
      end
    end
    if (rst) begin
      a_valid_q <= 1'b0;
      at_q      <= (B33 + 1)'(1);
      past_q    <= 1'b0;
      frm_dec_q <= 1'b0;
      ev_q      <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- frame action
  // one cycle after the frame's last beat: act on a good, long enough PFC or PAUSE
  logic        act_q;
  logic [7:0]  act_en_q, act_nz_q;        // act_nz_q[p]: act_quanta_q[p] != 0
  logic [15:0] act_quanta_q [8];
  logic        opc_pfc, opc_pause;

  assign opc_pfc   = cap_q[0] == 8'h01 && cap_q[1] == 8'h01;
  assign opc_pause = cap_q[0] == 8'h00 && cap_q[1] == 8'h01;

  always_ff @(posedge clk) begin
    act_q <= 1'b0;
    if (ev_q && ev_ctrl_q) begin
      if (ev_bad_q) begin
        stat_ctrl_bad <= stat_ctrl_bad + 1'b1;
      end else if (ev_long_q && (opc_pfc || opc_pause)) begin
        act_q <= 1'b1;
        for (int p = 0; p < 8; p++) begin
          if (opc_pfc) begin
            act_en_q[p]     <= cap_q[3][p];
            act_quanta_q[p] <= {cap_q[4 + 2*p], cap_q[5 + 2*p]};
            act_nz_q[p]     <= {cap_q[4 + 2*p], cap_q[5 + 2*p]} != 16'h0;
          end else begin
            act_en_q[p]     <= 1'b1;
            act_quanta_q[p] <= {cap_q[2], cap_q[3]};
            act_nz_q[p]     <= {cap_q[2], cap_q[3]} != 16'h0;
          end
        end
        if (opc_pfc) stat_pfc   <= stat_pfc + 1'b1;
        else         stat_pause <= stat_pause + 1'b1;
      end else begin
        stat_ctrl_other <= stat_ctrl_other + 1'b1;
      end
    end
    if (rst) begin
      act_q           <= 1'b0;
      stat_pfc        <= '0;
      stat_pause      <= '0;
      stat_ctrl_other <= '0;
      stat_ctrl_bad   <= '0;
    end
  end

  // ---------------------------------------------------------------- pause timers
  // Per priority: quanta left (q_left_q), the pause flag (pz_q = q_left_q != 0, kept
  // as a flop) and r_q = cycles_per_quantum - frac - 257, where frac is the cycles
  // (Q8.8) already counted into the running quantum: a quantum ends in a cycle where
  // frac + 1.0 >= cycles_per_quantum, i.e. exactly when r_q is negative (its sign bit).
  // Then r_q grows by cycles_per_quantum - 1.0, otherwise it shrinks by 1.0 (256).
  logic [R_W-1:0] k_step_q, k_load_q;     // cycles_per_quantum - 256, - 257 (registered)
  logic [15:0]    q_left_q [8];
  logic [R_W-1:0] r_q      [8];
  logic [7:0]     pz_q;

  always_ff @(posedge clk) begin
    k_step_q <= R_W'(cycles_per_quantum) - R_W'(256);
    k_load_q <= R_W'(cycles_per_quantum) - R_W'(257);
    for (int p = 0; p < 8; p++) begin
      if (act_q && act_en_q[p]) begin
        q_left_q[p] <= act_quanta_q[p];
        pz_q[p]     <= act_nz_q[p];
        r_q[p]      <= k_load_q;
      end else if (pz_q[p]) begin
        if (r_q[p][R_W-1]) begin
          q_left_q[p] <= q_left_q[p] - 1'b1;
          pz_q[p]     <= q_left_q[p] != 16'd1;
          r_q[p]      <= r_q[p] + k_step_q;
        end else begin
          r_q[p] <= r_q[p] - R_W'(256);
        end
      end
    end
    if (rst) pz_q <= '0;
  end

  assign pause = pz_q;

endmodule

`resetall
