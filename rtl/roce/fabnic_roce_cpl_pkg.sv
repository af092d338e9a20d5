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
    logic [15:0] t_start;
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
