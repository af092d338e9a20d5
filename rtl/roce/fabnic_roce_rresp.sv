// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_rresp: READ response segmenter. Takes one READ job from the responder
// (a transmit-job template with the peer's addressing, the first PSN and the AETH
// MSN, the host address of the data, its length and log2 of the path MTU) and emits
// the response packets as transmit jobs: READ_RESPONSE ONLY for a single packet (also
// for length 0), else FIRST, MIDDLE..., LAST, with consecutive PSNs, PMTU-sized
// payloads read from consecutive host addresses. FIFO of JOB_DEPTH jobs in front;
// a full FIFO back-pressures the responder. One packet per cycle.
// Registered: the segmenter state (offset, bytes left, packet index, first flag);
// m_job and m_job_valid are combinational from the FIFO head and that state (no
// cycle of latency), and m_job_ready reaches only flops and the FIFO pop.
`default_nettype none

module fabnic_roce_rresp #(
    parameter int JOB_DEPTH = 16
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire fabnic_roce_pkg::tx_job_t s_rjob,
    input  wire logic [31:0]             s_rjob_len,
    input  wire logic [3:0]              s_rjob_lg,
    input  wire logic                    s_rjob_valid,
    output logic                         s_rjob_ready,

    output fabnic_roce_pkg::tx_job_t     m_job,
    output logic                         m_job_valid,
    input  wire logic                    m_job_ready
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  localparam int W = $bits(tx_job_t) + 36;
  logic             q_valid, q_ready;
  logic [W-1:0]     q_data;
  logic [$clog2(JOB_DEPTH):0] unused_count;
  fabnic_fifo #(.WIDTH(W), .DEPTH(JOB_DEPTH)) u_q (
      .clk, .rst,
      .in_valid(s_rjob_valid), .in_ready(s_rjob_ready), .in_data({s_rjob, s_rjob_len, s_rjob_lg}),
      .out_valid(q_valid), .out_ready(q_ready), .out_data(q_data),
      .status_count(unused_count)
  );

  tx_job_t     jt;
  logic [31:0] len0;
  logic [3:0]  lg;
  assign {jt, len0, lg} = q_data;

  // Per job: the first packet takes its length from the FIFO head, later ones from
  // rem_q (bytes not yet segmented); off_q is the byte offset of the next packet.
  logic [31:0] off_q, rem_q, rem, seg, pm;
  logic [23:0] k_q;
  logic        first_q, last;
  always_comb begin
    pm    = 32'd1 << lg;
    rem   = first_q ? len0 : rem_q;
    last  = rem <= pm;
    seg   = last ? rem : pm;
    m_job = jt;
    m_job.hdr.bth.psn    = jt.hdr.bth.psn + k_q;
    m_job.hdr.bth.opcode = (first_q && last) ? OP_READ_RESP_ONLY : first_q ? OP_READ_RESP_FIRST
                         : last ? OP_READ_RESP_LAST : OP_READ_RESP_MIDDLE;
    m_job.plen = seg[15:0];
    m_job.addr = jt.addr + 64'(off_q);
  end
  assign m_job_valid = q_valid;
  assign q_ready     = m_job_valid && m_job_ready && last;

  always_ff @(posedge clk) begin
    if (m_job_valid && m_job_ready) begin
      first_q <= last;
      rem_q   <= rem - pm;
      if (last) begin
        off_q <= '0;
        k_q   <= '0;
      end else begin
        off_q <= off_q + pm;
        k_q   <= k_q + 24'd1;
      end
    end
    if (rst) begin
      first_q <= 1'b1;
      off_q   <= '0;
      k_q     <= '0;
    end
  end

  logic unused_seg_hi;
  assign unused_seg_hi = ^seg[31:16];   // a packet is at most 4 KB (plen is 16 bits)

endmodule

`resetall
