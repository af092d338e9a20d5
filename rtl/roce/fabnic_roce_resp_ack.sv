// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_resp_ack: ACK / NAK generation of the responder (fabnic_roce_resp). Builds
// the acknowledgement job (ACK, NAK, atomic ACK, CNP, SACK) and the READ response job
// from the responder's event registers, and holds the acknowledgement job in a bypass
// hold register (fabnic_roce_resp_out) for the transmit scheduler.
//
// Acknowledgement job: offered by the FSM (s_job_valid, S_FIN) only while s_job_room is
// high (a flop: the hold register is empty) and always taken; the job goes out in its
// own cycle when the register is empty, else it waits there. m_job_ready drives only
// the hold register. The READ job (m_rjob_*) is built from the same registers and
// offered while s_rjob_valid is high (the FSM's S_RJOB), which waits for m_rjob_ready.
//
// Combinational paths (named here, as the project's handshake rule asks): s_job_valid
// -> m_job_valid and the job fields -> m_job (the hold register's bypass; the FSM's
// registers drive them), s_rjob_valid -> m_rjob_valid and m_rjob_ready -> s_rjob_ready
// (the FSM's S_RJOB handshake passes through). No state besides the hold register.
//
// Parameters
//   QPN_W   bits of a local QP number
`default_nettype none

module fabnic_roce_resp_ack #(
    parameter int QPN_W = 10
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    // the event's registers: QP, its static context, and what to send
    input  wire logic [QPN_W-1:0]                  qpn,
    input  wire fabnic_roce_pkg::qpc_t             qc,
    input  wire fabnic_roce_resp_pkg::resp_ack_e   kind,
    input  wire logic [7:0]                        syndrome,
    input  wire logic [23:0]                       psn,        // the acknowledgement's PSN
    input  wire logic [23:0]                       msn,
    input  wire logic [63:0]                       atom_orig,  // atomic ACK: original value
    input  wire logic [23:0]                       sack_epsn,  // SACK: first missing PSN
    input  wire logic [63:0]                       sack_bmp,   // SACK: received bitmap
    // the READ request being answered
    input  wire logic [23:0]                       rd_psn,
    input  wire logic [63:0]                       rd_haddr,
    input  wire logic [31:0]                       rd_len,
    input  wire logic [3:0]                        rd_lg,

    input  wire logic                              s_job_valid,
    output logic                                   s_job_room,
    input  wire logic                              s_rjob_valid,
    output logic                                   s_rjob_ready,

    output fabnic_roce_pkg::tx_job_t               m_job,
    output logic                                   m_job_valid,
    input  wire logic                              m_job_ready,

    output fabnic_roce_pkg::tx_job_t               m_rjob,
    output logic      [31:0]                       m_rjob_len,
    output logic      [3:0]                        m_rjob_lg,
    output logic                                   m_rjob_valid,
    input  wire logic                              m_rjob_ready
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;
  import fabnic_roce_resp_pkg::*;

  tx_job_t ackj;
  always_comb begin
    ackj = '0;
    ackj.lqpn  = 24'(qpn);
    ackj.dmac  = qc.dmac;
    ackj.dip   = qc.dip;
    ackj.ipv6  = qc.ipv6;
    ackj.sport = qc.sport;
    ackj.dscp  = qc.dscp;
    ackj.ecn   = 2'b10;
    ackj.hdr.bth.opcode  = (kind == A_ATOMIC) ? OP_ATOMIC_ACK : (kind == A_CNP) ? OP_CNP : OP_ACK;
    if (kind == A_CNP) begin
      ackj.ecn          = 2'b00;    // not ECN-capable: a CNP is never marked
      ackj.hdr.bth.becn = 1'b1;
    end
    ackj.hdr.bth.pkey    = 16'hFFFF;
    ackj.hdr.bth.dest_qp = qc.dqpn;
    ackj.hdr.bth.psn     = psn;
    ackj.hdr.aeth.syndrome = syndrome;
    ackj.hdr.aeth.msn      = msn;
    ackj.hdr.atomic_ack_eth.orig_data = atom_orig;
    if (kind == A_SACK) begin
      // SACKETH bytes 0-15 in the reth field (fabnic_roce_tx_hdr SR layout)
      ackj.hdr.bth.opcode  = OP_SR_SACK;
      ackj.hdr.reth.va     = {8'd0, sack_epsn, sack_bmp[63:32]};
      ackj.hdr.reth.rkey   = sack_bmp[31:0];
      ackj.hdr.reth.dma_len = 32'd0;
    end
  end

  fabnic_roce_resp_out #(.W($bits(tx_job_t))) u_job_out (
      .clk, .rst, .s_valid(s_job_valid), .s_data(ackj), .s_room(s_job_room),
      .m_valid(m_job_valid), .m_data(m_job), .m_ready(m_job_ready)
  );

  // READ response job: the acknowledgement template with the request's PSN, AETH ACK
  // (the segmenter picks the real opcode) and the translated host address
  always_comb begin
    m_rjob = ackj;
    m_rjob.hdr.bth.opcode    = OP_READ_RESP_ONLY;
    m_rjob.hdr.bth.psn       = rd_psn;
    m_rjob.hdr.aeth.syndrome = SYN_ACK;
    m_rjob.hdr.aeth.msn      = msn;
    m_rjob.addr              = rd_haddr;
  end
  assign m_rjob_len   = rd_len;
  assign m_rjob_lg    = rd_lg;
  assign m_rjob_valid = s_rjob_valid;
  assign s_rjob_ready = m_rjob_ready;

  logic unused;
  assign unused = ^{qc};   // the context fields an acknowledgement does not carry

endmodule

`resetall
