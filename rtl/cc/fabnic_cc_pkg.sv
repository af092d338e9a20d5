// SPDX-License-Identifier: Apache-2.0
//
// fabnic_cc_pkg: the interface between the RoCE transport and the congestion-control
// room (rtl/cc, docs/cc.md "The congestion-control interface"). Every event the
// transport reports and every answer the room gives is one of these structs, so an
// algorithm sees the same ports whichever algorithm it is. QPNs are the local QP
// numbers, 24 bits as in the BTH; a room of NUM_QP QPs uses the low $clog2(NUM_QP)
// bits and the transport sends only QPNs below NUM_QP.
package fabnic_cc_pkg;

  // Which algorithm the room instantiates (fabnic_cc parameter CC_ALG).
  typedef enum logic [1:0] {
    CC_DCQCN = 2'd0   // DCQCN reaction + notification point, per-QP rate limiter
  } cc_alg_e;

  // A packet of a QP's requester left the NIC (sent once per frame, at its last beat).
  // bytes: the frame on the wire as the packet builder made it: Ethernet header, IP,
  // UDP, BTH, extension headers, payload, pad, ICRC, FCS, plus the 20 bytes of
  // preamble, start delimiter and inter-frame gap.
  typedef struct packed {
    logic [23:0] qpn;
    logic [15:0] bytes;
  } cc_tx_ev_t;

  // A CNP arrived for a local QP (reaction point input).
  typedef struct packed {
    logic [23:0] qpn;
  } cc_cnp_ev_t;

  // A request packet arrived with IP ECN = CE for a local QP (notification point).
  typedef struct packed {
    logic [23:0] qpn;
    logic [1:0]  ecn;
  } cc_ce_ev_t;

  // QP command from the control plane: init (state reset, enable bit) or read.
  typedef enum logic [1:0] {
    CC_QP_INIT = 2'd0,
    CC_QP_READ = 2'd1
  } cc_qp_op_e;

  typedef struct packed {
    cc_qp_op_e   op;
    logic [23:0] qpn;
    logic        enable;   // CC_QP_INIT: 1 = the algorithm controls this QP
  } cc_qp_cmd_t;

  // Answer to CC_QP_READ: the algorithm's per-QP state as three words (DCQCN: current
  // rate Rc, target rate Rt, alpha; units in docs/cc.md).
  typedef struct packed {
    logic        enable;
    logic [31:0] w0;
    logic [31:0] w1;
    logic [31:0] w2;
  } cc_qp_state_t;

  // Pacing: the scheduler asks before each packet of a controlled QP; the room grants
  // (send now) or denies with the earliest cycle a grant is possible.
  typedef struct packed {
    logic [23:0] qpn;
    logic [15:0] bytes;   // the packet's wire length as the scheduler estimates it
  } cc_pace_req_t;

  typedef struct packed {
    logic        grant;
    logic [47:0] at;      // grant: now; deny: earliest cycle a grant is possible
  } cc_pace_rsp_t;

  // Congestion-control configuration (the cc register block, rdl/cc.rdl).
  typedef struct packed {
    logic        rp_on;          // ctrl bit0: reaction point and pacing
    logic        np_on;          // ctrl bit1: notification point
    logic [4:0]  g_shift;
    logic [31:0] alpha_period;
    logic [31:0] timer_period;
    logic [31:0] byte_counter;
    logic [7:0]  f;
    logic [31:0] rate_ai;
    logic [31:0] rate_hai;
    logic [31:0] rate_min;
    logic [31:0] rate_line;
    logic [31:0] rate_init;
    logic        clamp_tgt;
    logic [31:0] cnp_interval;
    logic [15:0] limiter_slack;
  } cc_cfg_t;

  // Counters of the room (32 bits each, wrapping).
  typedef struct packed {
    logic [31:0] cnp_rx;
    logic [31:0] cnp_rx_ignored;
    logic [31:0] rate_decrease;
    logic [31:0] rate_increase;
    logic [31:0] rp_catchup;
    logic [31:0] ecn_marked_rx;
    logic [31:0] cnp_tx;
    logic [31:0] cnp_suppressed;
    logic [31:0] lim_grant;
    logic [31:0] lim_deny;
    logic [31:0] lim_rate_set;
    logic [31:0] tx_ev_dropped;
  } cc_cnt_t;

endpackage
