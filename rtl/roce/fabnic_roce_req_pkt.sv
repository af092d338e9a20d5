// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_req_pkt: the decide stage of the requester's packet step
// (fabnic_roce_req). From the visit's registers (the SQE being sent, the send
// position, the QP's static context) it computes, every cycle, the transmit job of
// the packet at that position and everything the act step (S_PKT) needs to apply it,
// and registers all of it. The requester's visit FSM only selects among these
// registers when a packet leaves, so deciding and acting are one cycle each.
//
// Latency: outputs are registered functions of the inputs. Layer 1 (job, seg/last,
// next PSN for a one-PSN packet, window and fence flags) is valid one cycle after the
// inputs settle; layer 2 (the PSN count of a READ request and the next PSN after it) is
// valid two cycles after. The user counts the cycles since it last changed an input
// (fabnic_roce_req: pv_q) and acts only on valid outputs: a READ needs 2, every other
// packet 1 (the path MTU, from qc, is registered once more: qc must have been stable for
// two cycles). The inputs sq_pi and pk_q may change without a wait: sq_pi only grows
// (a doorbell taken by the visit), which can only turn a computed AckReq on the last
// posted WQE into one too many, never one too few.
//
// Parameters
//   QPN_W  QP number width (job.lqpn), 1..24
//   QW     quantum counter width of the user, >= 1
//   SR_W   selective-repeat window (PSNs), the cap of cfg_sr_inflight, >= 1
`default_nettype none

module fabnic_roce_req_pkt #(
    parameter int QPN_W = 10,
    parameter int QW    = 7,
    parameter int SR_W  = 64
) (
    input  wire logic                       clk,

    input  wire fabnic_roce_pkg::qpc_t      qc,
    input  wire logic [QPN_W-1:0]           qpn,
    input  wire fabnic_roce_pkg::sqe_t      sqe,
    input  wire logic [63:0]                haddr,      // host address of sqe.laddr
    input  wire logic [31:0]                off,        // byte offset in the WQE
    input  wire logic [23:0]                next_psn,
    input  wire logic [23:0]                psn_hi,
    input  wire logic [15:0]                sq_ci,
    input  wire logic [15:0]                sq_pi,
    input  wire logic [15:0]                sq_hi,
    input  wire logic [23:0]                ssn,
    input  wire logic                       atom_v,
    input  wire logic [23:0]                atom_psn,
    input  wire logic [23:0]                una,
    input  wire logic [15:0]                pk,         // packets since the last AckReq
    input  wire logic [QW-1:0]              quantum,
    input  wire logic                       resend,     // SR single-packet resend
    input  wire logic [23:0]                wssn,       // its SSN
    input  wire logic                       ev_one,     // re-request one READ response
    input  wire logic [15:0]                cfg_ack_cadence,
    input  wire logic [23:0]                cfg_sr_inflight,

    // layer 1
    output fabnic_roce_pkg::tx_job_t        job_q,
    output logic                            p_done_q,     // the packet ends its WQE
    output logic                            p_read_q,     // READ request (layer 2 PSNs)
    output logic                            p_atomic_q,
    output logic                            p_bad_q,      // opcode/length not sendable
    output logic                            p_hold_q,     // SR window cap reached, or the
                                                          // atomic fence holds
    output logic                            p_retx_q,     // next_psn is behind psn_hi
    output logic      [23:0]                p_nxt1_q,     // next_psn + 1
    output logic                            p_hi1_q,      // psn_hi moves to next_psn + 1
    output logic      [31:0]                p_off_seg_q,  // off + this packet's bytes
    output logic      [15:0]                p_ci1_q,      // sq_ci + 1
    output logic                            p_more_q,     // sq_ci + 1 != sq_pi (may be
                                                          // low for a cycle after sq_pi grew)
    output logic                            p_hi_inc_q,   // sq_ci == sq_hi
    output logic      [23:0]                p_ssn1_q,     // SSN of the next WQE
    output logic                            p_q1_q,       // quantum == 1
    // layer 2 (READ)
    output logic      [23:0]                p_nxt2_q,     // next_psn + the READ's PSNs
    output logic                            p_hi2_q
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  if (QPN_W < 1 || QPN_W > 24) begin : g_chk_qpn
    $error("fabnic_roce_req_pkt: QPN_W must be 1..24");
  end
  if (QW < 1 || SR_W < 1) begin : g_chk_w
    $error("fabnic_roce_req_pkt: QW and SR_W must be >= 1");
  end

  logic [3:0]  lg;
  logic [31:0] pmtu_bytes, rem, seg;
  logic        first, last, is_send, is_write, is_read, is_atomic, has_imm, uses_rqe;
  logic [23:0] win_cap;

  // the path MTU, registered: qc changes only when a visit starts, at least two cycles
  // before the visit's first packet is decided
  logic [3:0]  lg_q;
  logic [31:0] pmtu_q;
  always_ff @(posedge clk) begin
    lg_q   <= pmtu_log(qc.pmtu);
    pmtu_q <= 32'd1 << pmtu_log(qc.pmtu);
  end

  always_comb begin
    lg         = lg_q;
    pmtu_bytes = pmtu_q;
    rem        = sqe.len - off;
    last       = rem <= pmtu_bytes;
    seg        = last ? rem : pmtu_bytes;
    first      = off == 0;
    is_send    = sqe.opcode == WR_SEND || sqe.opcode == WR_SEND_IMM;
    is_write   = sqe.opcode == WR_WRITE || sqe.opcode == WR_WRITE_IMM;
    is_read    = sqe.opcode == WR_READ;
    is_atomic  = sqe.opcode == WR_CMP_SWAP || sqe.opcode == WR_FETCH_ADD;
    has_imm    = sqe.opcode == WR_SEND_IMM || sqe.opcode == WR_WRITE_IMM;
    uses_rqe   = is_send || sqe.opcode == WR_WRITE_IMM;
    win_cap    = (cfg_sr_inflight == '0 || cfg_sr_inflight > 24'(SR_W)) ? 24'(SR_W)
                                                                        : cfg_sr_inflight;
  end

  // the packet of the current position
  tx_job_t job;
  always_comb begin
    job = '0;
    job.lqpn  = 24'(qpn);
    job.dmac  = qc.dmac;
    job.dip   = qc.dip;
    job.ipv6  = qc.ipv6;
    job.sport = qc.sport;
    job.dscp  = qc.dscp;
    job.ecn   = 2'b10;   // ECT(0)
    job.hdr.bth.pkey    = 16'hFFFF;
    job.hdr.bth.dest_qp = qc.dqpn;
    job.hdr.bth.psn     = next_psn;
    job.addr = haddr + 64'(off);
    if (is_send || is_write) begin
      job.plen = seg[15:0];
      // AckReq every cfg_ack_cadence packets (across messages), on the last packet of the
      // last posted WQE, and on the last packet of a visit, so every WQE gets acknowledged
      job.hdr.bth.ack_req = (cfg_ack_cadence != 0 && pk + 16'd1 >= cfg_ack_cadence)
                            || (last && (cfg_ack_cadence == 0 || sq_ci + 16'd1 == sq_pi
                                         || quantum == 1))
                            || (!last && quantum == 1);
      if (is_send) begin
        job.hdr.bth.opcode = (first && last) ? (has_imm ? OP_SEND_ONLY_IMM : OP_SEND_ONLY)
                           : first ? OP_SEND_FIRST
                           : last  ? (has_imm ? OP_SEND_LAST_IMM : OP_SEND_LAST)
                           : OP_SEND_MIDDLE;
        job.hdr.bth.se = last && sqe.flags[1];
      end else begin
        job.hdr.bth.opcode = (first && last) ? (has_imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY)
                           : first ? OP_WRITE_FIRST
                           : last  ? (has_imm ? OP_WRITE_LAST_IMM : OP_WRITE_LAST)
                           : OP_WRITE_MIDDLE;
      end
      // SR: RETH on every WRITE packet, VA of this packet's first byte
      job.hdr.reth.va      = qc.sr ? sqe.raddr + 64'(off) : sqe.raddr;
      job.hdr.reth.rkey    = sqe.rkey;
      job.hdr.reth.dma_len = sqe.len;
      if (is_send) begin
        // SR: SOFFETH {message offset, rsvd, SSN, message length} in the RETH slot
        job.hdr.reth.va   = 64'(off);
        job.hdr.reth.rkey = {8'd0, resend ? wssn : ssn};
      end
      job.hdr.has_reth     = qc.sr;
      job.hdr.immdt.imm    = bswap32(sqe.imm);
      if (resend) job.hdr.bth.ack_req = 1'b1;
    end else if (is_read) begin
      job.hdr.bth.opcode   = OP_READ_REQUEST;
      job.hdr.bth.ack_req  = 1'b1;
      job.hdr.reth.va      = sqe.raddr + 64'(off);
      job.hdr.reth.rkey    = sqe.rkey;
      job.hdr.reth.dma_len = rem;
      // SR: one missing response of an executed READ is asked for on its own
      if (resend && ev_one && !last) job.hdr.reth.dma_len = pmtu_bytes;
    end else begin
      job.hdr.bth.opcode = (sqe.opcode == WR_CMP_SWAP) ? OP_COMPARE_SWAP : OP_FETCH_ADD;
      job.hdr.bth.ack_req = 1'b1;
      job.hdr.atomic_eth.va       = sqe.raddr;
      job.hdr.atomic_eth.rkey     = sqe.rkey;
      job.hdr.atomic_eth.swap_add = (sqe.opcode == WR_CMP_SWAP) ? sqe.swap : sqe.cmp_add;
      job.hdr.atomic_eth.compare  = sqe.cmp_add;
    end
  end

  // layer 2 inputs: the READ's PSN count is ceil(rem / PMTU), at least one
  logic [31:0] r_n_q;
  logic        r_zero_q;
  logic [4:0]  r_lg_q;     // one-hot: PMTU 256 .. 4096
  logic [23:0] step2;
  always_comb begin
    step2 = '0;
    for (int i = 0; i < 5; i++) begin
      if (r_lg_q[i]) step2 = step2 | 24'(r_n_q >> (8 + i));
    end
    if (r_zero_q) step2 = 24'd1;
  end

  always_ff @(posedge clk) begin
    job_q         <= job;
    p_done_q      <= is_read || is_atomic || last;
    p_read_q      <= is_read;
    p_atomic_q    <= is_atomic;
    p_bad_q       <= sqe.opcode > WR_FETCH_ADD || sqe.len[31]
                     || (is_atomic && sqe.len != 32'd8);
    // Atomic fence: a new atomic is sent only once the QP's previous atomic is
    // acknowledged (una past its PSN). The responder keeps the result of one atomic per
    // QP for duplicates (fabnic_roce_resp), so at most one may be unacknowledged: with
    // two, a retransmitted older one would find its result overwritten. Re-sending the
    // outstanding atomic itself (a go-back-N rewind) is not held.
    p_hold_q      <= (qc.sr && !resend && (next_psn - una) >= win_cap)
                     || (is_atomic && atom_v && atom_psn != next_psn && !psn_lt(atom_psn, una));
    p_retx_q      <= psn_lt(next_psn, psn_hi);
    p_nxt1_q      <= next_psn + 24'd1;
    p_hi1_q       <= !psn_lt(next_psn + 24'd1, psn_hi);
    p_off_seg_q   <= off + seg;
    p_ci1_q       <= sq_ci + 16'd1;
    p_more_q      <= sq_ci + 16'd1 != sq_pi;
    p_hi_inc_q    <= sq_ci == sq_hi;
    p_ssn1_q      <= ssn + 24'(uses_rqe);
    p_q1_q        <= quantum == QW'(1);
    r_n_q         <= rem + pmtu_bytes - 32'd1;
    r_zero_q      <= rem == 32'd0;
    for (int i = 0; i < 5; i++) r_lg_q[i] <= lg == 4'(8 + i);
    p_nxt2_q      <= next_psn + step2;
    p_hi2_q       <= !psn_lt(next_psn + step2, psn_hi);
  end

  logic unused;
  assign unused = ^{qc, sqe};

endmodule

`resetall
