// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cpl_pkg: types of the RC completer (fabnic_roce_cpl and its submodules):
// the FSM's states, the event sources, what S_POST does after an advance, the per-QP
// completer state word and the requester's published word as the completer reads it.
`default_nettype none

package fabnic_roce_cpl_pkg;

  // completer FSM (fabnic_roce_cpl): one event at a time. One-hot: state S_x is bit
  // I_x, so a state test is one flop (st_q[I_x]) and the next-state logic an AND-OR.
  localparam int I_IDLE = 0;
  localparam int I_LOAD = 1;
  localparam int I_DISPATCH = 2;
  localparam int I_ADV = 3;
  localparam int I_FETCH = 4;
  localparam int I_WAIT = 5;
  localparam int I_CHK = 6;
  localparam int I_CHKW = 7;
  localparam int I_CQE = 8;
  localparam int I_POST = 9;
  localparam int I_PLACE_D = 10;
  localparam int I_PLACE = 11;
  localparam int I_DRAIN = 12;
  localparam int I_EV = 13;
  localparam int I_ERR = 14;
  localparam int I_FLUSH = 15;
  localparam int I_SKIP = 16;
  localparam int I_WB = 17;
  localparam int I_SREV = 18;
  localparam int I_FLT = 19;
  localparam int CPL_NST = 20;
  typedef enum logic [CPL_NST-1:0] {
    S_IDLE     = CPL_NST'(1) << I_IDLE,  // pick the next event (_ev), read the QP's words
    S_LOAD     = CPL_NST'(1) << I_LOAD,  // load the RAM words, register S_DISPATCH's flags
    S_DISPATCH = CPL_NST'(1) << I_DISPATCH,  // the event's decision
    S_ADV      = CPL_NST'(1) << I_ADV,  // advance over acknowledged WQEs: load / complete / done
    S_FETCH    = CPL_NST'(1) << I_FETCH,  // issue the SQE read of the oldest WQE
    S_WAIT     = CPL_NST'(1) << I_WAIT,  // take the oldest WQE's SQE beat
    S_CHK      = CPL_NST'(1) << I_CHK,  // READ / atomic buffer: MR check request
    S_CHKW     = CPL_NST'(1) << I_CHKW,  // MR check result
    S_CQE      = CPL_NST'(1) << I_CQE,  // complete the loaded WQE (CQE when signaled or an error)
    S_POST     = CPL_NST'(1) << I_POST,  // after the advance: new una, the event's own action
    S_PLACE_D  = CPL_NST'(1) << I_PLACE_D,  // placement write descriptor
    S_PLACE    = CPL_NST'(1) << I_PLACE,  // placement payload (READ response stream, atomic value)
    S_DRAIN    = CPL_NST'(1) << I_DRAIN,  // drain the response payload (ACK frames, drops)
    S_EV       = CPL_NST'(1) << I_EV,  // one event to the requester
    S_ERR      = CPL_NST'(1) << I_ERR,  // complete the oldest WQE with the error, then flush
    S_FLUSH    = CPL_NST'(1) << I_FLUSH,  // complete the others WR_FLUSH_ERR
    S_SKIP     = CPL_NST'(1) << I_SKIP,  // discard SQE beats of a read that does not serve this QP
    S_WB       = CPL_NST'(1) << I_WB,  // write the state word back
    S_SREV     = CPL_NST'(1) << I_SREV,  // SR: the resend planner's events go out
    S_FLT      = CPL_NST'(1) << I_FLT   // local fault (write fault, payload-read fault)
  } cpl_st_e;

  typedef enum logic [2:0] { SRC_CTL, SRC_PKT, SRC_KICK, SRC_TMR, SRC_WF, SRC_PF } cpl_src_e;

  // what S_POST does after the advance
  typedef enum logic [3:0] {
    P_NONE, P_READ, P_ATOMIC, P_SEQ, P_RNR, P_ERRNAK, P_TMO, P_SACK, P_PROBE
  } cpl_post_e;

  // SQE look-ahead stage (fabnic_roce_cpl_rd)
  typedef enum logic [2:0] { PF_IDLE, PF_LOAD, PF_CALC, PF_NOK, PF_REQ } cpl_pf_e;

  // resend planner modes (fabnic_roce_cpl_sack)
  localparam logic [1:0] SK_HOLES = 2'd0, SK_TAIL = 2'd1, SK_ONE = 2'd2;

  // RNR NAK timer (IBTA vol. 1 9.7.5.2.8, table "Encoding for RNR NAK Timer Field"):
  // the minimum wait a 5-bit code means, in units of 10 us (code 0 = 655.36 ms, 1 = 0.01
  // ms, 2 = 0.02 ms .. 31 = 491.52 ms).
  function automatic int rnr_us10(input int code);
    unique case (code)
      0: return 65536;   1: return 1;      2: return 2;      3: return 3;
      4: return 4;       5: return 6;      6: return 8;      7: return 12;
      8: return 16;      9: return 24;     10: return 32;    11: return 48;
      12: return 64;     13: return 96;    14: return 128;   15: return 192;
      16: return 256;    17: return 384;   18: return 512;   19: return 768;
      20: return 1024;   21: return 1536;  22: return 2048;  23: return 3072;
      24: return 4096;   25: return 6144;  26: return 8192;  27: return 12288;
      28: return 16384;  29: return 24576; 30: return 32768; default: return 49152;
    endcase
  endfunction

  // The same waits in retransmission-timer ticks of 4.096 us (timer_tick = 1024 cycles
  // at 250 MHz), 18 bits each, code c at [18*c +: 18]: the time rounded up to whole
  // ticks, plus one for the tick in progress when the wait starts (the completer counts
  // tick boundaries), so the wait is never shorter than the code's time. A smaller
  // timer_tick shortens every wait in proportion.
  localparam int RNR_TICK_W = 18;
  function automatic logic [32*RNR_TICK_W-1:0] rnr_tick_table();
    logic [32*RNR_TICK_W-1:0] t;
    for (int c = 0; c < 32; c++)
      t[RNR_TICK_W*c +: RNR_TICK_W] = RNR_TICK_W'((rnr_us10(c) * 10000 + 4095) / 4096 + 1);
    return t;
  endfunction
  localparam logic [32*RNR_TICK_W-1:0] RNR_TICKS = rnr_tick_table();
  function automatic logic [RNR_TICK_W-1:0] rnr_ticks(input logic [4:0] code);
    return RNR_TICKS[RNR_TICK_W*code +: RNR_TICK_W];
  endfunction

  // per-QP completer state (block RAM word)
  typedef struct packed {
    logic [23:0] una;
    logic [15:0] wqe_idx;
    logic [23:0] wqe_psn;
    logic [23:0] wqe_ssn;    // SR: SSN of that WQE (receive-WQE-consuming messages before it)
    logic        loaded;
    logic [7:0]  w_opcode;
    logic        w_rd;       // the loaded WQE is a READ
    logic        w_at;       // ... an atomic
    logic        w_ok;       // its local buffer translated (READ / atomic)
    logic [7:0]  w_flags;
    logic [31:0] w_len;
    logic [63:0] w_wr_id;
    logic [63:0] w_haddr;
    logic [23:0] w_end;      // first PSN after that WQE (valid while loaded)
    logic [2:0]  retry_left;
    logic        pay_err;    // a request frame since the last progress had its payload read fail
    logic [2:0]  rnr_left;
    logic        armed;
    logic        rnr_wait;
    logic [4:0]  rnr_code;   // the timer code of the RNR NAK being waited out (rnr_wait)
    logic [RNR_TICK_W-1:0] t_start;   // tick the timer (or the RNR wait) started in
    logic        err;
    logic [7:0]  err_status;
    logic [23:0] rtx_hi;     // SR: PSNs below this were already resent from SACKs
    logic [23:0] rr_rtx_hi;  // SR: READ responses below this were already re-requested
    logic [1:0]  probes;     // SR: probes sent in this no-progress period (at most 3)
    logic [15:0] fb_t;       // SR: tick of the last response (ACK/SACK/NAK) for the QP
    logic [63:0] rr_bmp;     // SR: READ responses placed out of order, bit i = PSN una+i
  } cpl_state_t;

  // the requester's published word
  typedef struct packed {
    logic [15:0] sq_pi;
    logic [15:0] sq_hi;
    logic [23:0] psn_hi;
    logic        lerr;
    logic [15:0] lerr_idx;
    logic [7:0]  lerr_status;
  } cpl_pub_t;

endpackage

`resetall
