// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_resp_pkg: types of the RC responder (fabnic_roce_resp and its submodules):
// the FSM's states, the event sources, S_DISPATCH's and S_NEW's registered outcomes,
// the acknowledgement kinds and the opcode classes of a request packet.
`default_nettype none

package fabnic_roce_resp_pkg;

  // responder FSM (fabnic_roce_resp): one event at a time. One-hot: state S_x is bit
  // I_x, so a state test is one flop (st_q[I_x]) and the next-state logic an AND-OR.
  localparam int I_IDLE = 0;
  localparam int I_LOAD = 1;
  localparam int I_DISPATCH = 2;
  localparam int I_NEW = 3;
  localparam int I_RQE_RD = 4;
  localparam int I_RQE_WAIT = 5;
  localparam int I_RQE_CHK = 6;
  localparam int I_RQE_CHKW = 7;
  localparam int I_MR_CHK = 8;
  localparam int I_MR_CHKW = 9;
  localparam int I_EXEC = 10;
  localparam int I_PLACE_D = 11;
  localparam int I_PLACE = 12;
  localparam int I_DRAIN = 13;
  localparam int I_ATOM_RD = 14;
  localparam int I_ATOM_WAIT = 15;
  localparam int I_ATOM_WD = 16;
  localparam int I_ATOM_W = 17;
  localparam int I_RJOB = 18;
  localparam int I_FIN = 19;
  localparam int I_WB = 20;
  localparam int I_SRQ = 21;
  localparam int I_SRW = 22;
  localparam int I_SRI = 23;
  localparam int I_SCHK = 24;
  localparam int I_CMP = 25;
  localparam int I_CMPQ = 26;
  localparam int I_RFL = 27;
  localparam int I_RFLQ = 28;
  localparam int I_WFE = 29;
  localparam int I_RQE_DONE = 30;
  localparam int I_PF = 31;
  localparam int RESP_NST = 32;
  typedef enum logic [RESP_NST-1:0] {
    S_IDLE     = RESP_NST'(1) << I_IDLE,      // pick the next event, read its QP's words
    S_LOAD     = RESP_NST'(1) << I_LOAD,      // load the RAM words, register S_DISPATCH's flags
    S_DISPATCH = RESP_NST'(1) << I_DISPATCH,  // the event's decision (a packet's: dp_q)
    S_NEW      = RESP_NST'(1) << I_NEW,       // act on dp_q; a new request: act on nw_q
    S_RQE_RD   = RESP_NST'(1) << I_RQE_RD,    // receive WQE: from the batch, or a host read
    S_RQE_WAIT = RESP_NST'(1) << I_RQE_WAIT,  // the receive WQE's read data
    S_RQE_CHK  = RESP_NST'(1) << I_RQE_CHK,   // lkey check request of its buffer
    S_RQE_CHKW = RESP_NST'(1) << I_RQE_CHKW,  // lkey check result: install the RQE
    S_MR_CHK   = RESP_NST'(1) << I_MR_CHK,    // rkey check request (remote access)
    S_MR_CHKW  = RESP_NST'(1) << I_MR_CHKW,   // rkey check result: READ / atomic / WRITE
    S_EXEC     = RESP_NST'(1) << I_EXEC,      // SEND and unchecked WRITE packets: accept or NAK
    S_PLACE_D  = RESP_NST'(1) << I_PLACE_D,   // placement write descriptor
    S_PLACE    = RESP_NST'(1) << I_PLACE,     // payload into the write engine; commit
    S_DRAIN    = RESP_NST'(1) << I_DRAIN,     // payload dropped; commit
    S_ATOM_RD  = RESP_NST'(1) << I_ATOM_RD,   // atomic: read the target
    S_ATOM_WAIT = RESP_NST'(1) << I_ATOM_WAIT,  // atomic: the original value, the new one
    S_ATOM_WD  = RESP_NST'(1) << I_ATOM_WD,   // atomic: write descriptor
    S_ATOM_W   = RESP_NST'(1) << I_ATOM_W,    // atomic: write beat, atomic ACK
    S_RJOB     = RESP_NST'(1) << I_RJOB,      // READ: response job to fabnic_roce_rresp
    S_FIN      = RESP_NST'(1) << I_FIN,       // ACK job, CQE, state write-back, next pick
    S_WB       = RESP_NST'(1) << I_WB,        // state write-back (no packet)
    S_SRQ      = RESP_NST'(1) << I_SRQ,       // SR window request
    S_SRW      = RESP_NST'(1) << I_SRW,       // SR window response: class, advance
    S_SRI      = RESP_NST'(1) << I_SRI,       // SR window init of the QP
    S_SCHK     = RESP_NST'(1) << I_SCHK,      // SR SEND: placeable with its RQE?
    S_CMP      = RESP_NST'(1) << I_CMP,       // stashed SR completion the advance passed
    S_CMPQ     = RESP_NST'(1) << I_CMPQ,      // its CQE offered
    S_RFL      = RESP_NST'(1) << I_RFL,       // ERR: flush the next posted receive
    S_RFLQ     = RESP_NST'(1) << I_RFLQ,      // its flush CQE offered
    S_WFE      = RESP_NST'(1) << I_WFE,       // write fault: S_FIN's inputs see ERR
    S_RQE_DONE = RESP_NST'(1) << I_RQE_DONE,  // registered checks see the installed RQE
    S_PF       = RESP_NST'(1) << I_PF         // prefetch point: take, launch or leave
  } resp_st_e;

  // S_NEW's outcomes for a new request: opcode sequence error, prefetched RQE to check
  // again, RNR NAK, RQE to read, access error, misaligned atomic, MR check, execute
  typedef enum logic [2:0] {
    NW_SEQ, NW_REFETCH, NW_RNR, NW_RQE, NW_ACC, NW_ALIGN, NW_MR, NW_EXEC
  } resp_nw_e;

  // S_DISPATCH's outcomes for a request packet, decided in S_DISPATCH and acted on in
  // S_NEW (DP_NONE when S_NEW is entered from elsewhere): dropped (QP state / not a
  // request), SR SEND with a bad SSN, RNR NAK, SR drop, SR SEND to its check (RQE
  // there) or to an RQE read first, SR window request, gap (sequence NAK or silent
  // drop), duplicate (READ re-executed, atomic replayed, re-ACK), new request
  typedef enum logic [3:0] {
    DP_NONE, DP_NEW, DP_DROP_QPS, DP_DROP_INV, DP_SR_BADSSN, DP_RNR, DP_SR_DROP, DP_SR_SCHK,
    DP_SR_RQE, DP_SRQ, DP_GAP_NAK, DP_GAP_DROP, DP_DUP_READ, DP_DUP_ATOM, DP_DUP_ACK
  } resp_dp_e;

  // event sources of a pick
  typedef enum logic [2:0] { SRC_CTL, SRC_DB, SRC_PKT, SRC_CNP, SRC_RQE, SRC_WF } resp_src_e;

  // what to send after the event
  typedef enum logic [2:0] { A_NONE, A_ACK, A_NAK, A_ATOMIC, A_CNP, A_SACK } resp_ack_e;

  // opcode classes of a request packet
  typedef struct packed {
    logic send, write, first, last, imm, read, atomic, req, rqe, cas;
  } resp_opc_t;
  function automatic resp_opc_t op_class(input logic [7:0] o);
    resp_opc_t c;
    c.send   = o <= fabnic_pkt_pkg::OP_SEND_ONLY_IMM;
    c.write  = o >= fabnic_pkt_pkg::OP_WRITE_FIRST && o <= fabnic_pkt_pkg::OP_WRITE_ONLY_IMM;
    c.read   = o == fabnic_pkt_pkg::OP_READ_REQUEST;
    c.atomic = o == fabnic_pkt_pkg::OP_COMPARE_SWAP || o == fabnic_pkt_pkg::OP_FETCH_ADD;
    c.cas    = o == fabnic_pkt_pkg::OP_COMPARE_SWAP;
    c.req    = c.send || c.write || c.read || c.atomic;
    c.first  = o == fabnic_pkt_pkg::OP_SEND_FIRST || o == fabnic_pkt_pkg::OP_SEND_ONLY
               || o == fabnic_pkt_pkg::OP_SEND_ONLY_IMM || o == fabnic_pkt_pkg::OP_WRITE_FIRST
               || o == fabnic_pkt_pkg::OP_WRITE_ONLY || o == fabnic_pkt_pkg::OP_WRITE_ONLY_IMM;
    c.last   = o == fabnic_pkt_pkg::OP_SEND_LAST || o == fabnic_pkt_pkg::OP_SEND_LAST_IMM
               || o == fabnic_pkt_pkg::OP_SEND_ONLY || o == fabnic_pkt_pkg::OP_SEND_ONLY_IMM
               || o == fabnic_pkt_pkg::OP_WRITE_LAST || o == fabnic_pkt_pkg::OP_WRITE_LAST_IMM
               || o == fabnic_pkt_pkg::OP_WRITE_ONLY || o == fabnic_pkt_pkg::OP_WRITE_ONLY_IMM;
    c.imm    = o == fabnic_pkt_pkg::OP_SEND_LAST_IMM || o == fabnic_pkt_pkg::OP_SEND_ONLY_IMM
               || o == fabnic_pkt_pkg::OP_WRITE_LAST_IMM || o == fabnic_pkt_pkg::OP_WRITE_ONLY_IMM;
    c.rqe    = c.send || o == fabnic_pkt_pkg::OP_WRITE_LAST_IMM
               || o == fabnic_pkt_pkg::OP_WRITE_ONLY_IMM;
    return c;
  endfunction

endpackage

`resetall
