// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_tx: transmit path of the transport engine. NJ job sources (requester,
// responder ACKs, READ responses, ...) are arbitrated round-robin per packet. A taken
// job issues its payload read to the DMA read engine (when plen > 0) and queues its
// header and IP/UDP metadata in order; the payload comes back from the DMA engine in
// the same order. fabnic_roce_tx_hdr puts BTH + extension headers + pad in front of
// the payload, fabnic_pkt_builder adds Ethernet/IP/UDP (lengths counting the ICRC),
// fabnic_roce_icrc_gen appends the ICRC. Output: Ethernet frames without FCS, with
// the local QPN of each frame on m_axis_tqpn (sideband, stable over the whole frame;
// a RoCE-over-VXLAN port uses it to find the QP's VNI).
//
// Sent-frame events (m_sent_*): for each frame of a job source whose bit is set in
// SENT_JOBS, one event {local QPN, wire bytes} two cycles after the frame's last beat
// left. Wire bytes are the frame as the packet builder made it (Ethernet header, IP,
// UDP length as the builder writes it, FCS) plus 20 bytes of preamble, start delimiter
// and inter-frame gap; the congestion-control room counts them. The event is a flop
// output; frames leave at most one per two cycles when they are two beats or more.
// Bad-frame events (m_bad_*): for each frame of a job source whose bit is set in
// BAD_JOBS that left flagged bad (m_axis_tuser at its last beat: its payload read
// failed), one event {local QPN, BTH PSN} in the cycle after its last beat (flops).
`default_nettype none

module fabnic_roce_tx #(
    parameter int DATA_W     = 512,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int NJ         = 3,
    parameter int FIFO_DEPTH = 32,
    parameter int CNT_W      = 32,
    parameter logic [NJ-1:0] SENT_JOBS = NJ'(1),  // job sources whose frames are reported
    parameter logic [NJ-1:0] BAD_JOBS  = '0       // ... whose bad frames are reported
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    input  wire logic [47:0]              cfg_local_mac,
    input  wire logic [127:0]             cfg_local_ip,

    input  wire fabnic_roce_pkg::tx_job_t s_job [NJ],
    input  wire logic [NJ-1:0]            s_job_valid,
    output logic      [NJ-1:0]            s_job_ready,

    output logic      [63:0]              m_desc_addr,
    output logic      [31:0]              m_desc_len,
    output logic                          m_desc_valid,
    input  wire logic                     m_desc_ready,
    input  wire logic [DATA_W-1:0]        s_pay_tdata,
    input  wire logic [KEEP_W-1:0]        s_pay_tkeep,
    input  wire logic                     s_pay_tvalid,
    output logic                          s_pay_tready,
    input  wire logic                     s_pay_tlast,
    input  wire logic                     s_pay_tuser,

    output logic      [DATA_W-1:0]        m_axis_tdata,
    output logic      [KEEP_W-1:0]        m_axis_tkeep,
    output logic                          m_axis_tvalid,
    input  wire logic                     m_axis_tready,
    output logic                          m_axis_tlast,
    output logic                          m_axis_tuser,
    output logic      [23:0]              m_axis_tqpn,

    output logic                          m_sent_valid,
    output logic      [23:0]              m_sent_qpn,
    output logic      [15:0]              m_sent_bytes,

    output logic                          m_bad_valid,
    output logic      [23:0]              m_bad_qpn,
    output logic      [23:0]              m_bad_psn,

    output logic      [CNT_W-1:0]         cnt_frames,
    output logic      [CNT_W-1:0]         cnt_len_err
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  // ---------------------------------------------------------------- arbitration
  logic [NJ-1:0]          gnt;
  logic                   gnt_valid, fire;
  logic [$clog2(NJ > 1 ? NJ : 2)-1:0] gnt_idx;
  fabnic_rr_arbiter #(.N(NJ), .HOLD(1'b0)) u_arb (
      .clk, .rst, .req(s_job_valid), .accept(fire), .hold(1'b0),
      .gnt, .gnt_valid, .gnt_idx
  );
  tx_job_t j;
  assign j = s_job[gnt_idx];

  logic hq_ready, mq_ready, sq_ready, lq_ready, q_ready, has_pay;
  assign has_pay      = j.plen != 0;
  assign q_ready      = hq_ready && mq_ready && sq_ready && lq_ready;
  assign fire         = gnt_valid && q_ready && (!has_pay || m_desc_ready);
  assign s_job_ready  = fire ? gnt : '0;
  assign m_desc_valid = gnt_valid && q_ready && has_pay;
  assign m_desc_addr  = j.addr;
  assign m_desc_len   = 32'(j.plen);

  pkt_meta_t md;
  always_comb begin
    md = '0;
    md.dst_mac    = j.dmac;
    md.src_mac    = cfg_local_mac;
    md.is_ipv4    = !j.ipv6;
    md.is_ipv6    = j.ipv6;
    md.ethertype  = j.ipv6 ? 16'h86DD : 16'h0800;
    md.dscp       = j.dscp;
    md.ecn        = j.ecn;
    md.ttl        = 8'd64;
    md.ip_proto   = 8'd17;
    md.src_ip     = j.ipv6 ? cfg_local_ip : {96'd0, cfg_local_ip[31:0]};
    md.dst_ip     = j.ipv6 ? j.dip : {96'd0, j.dip[31:0]};
    md.is_udp     = 1'b1;
    md.src_port   = j.sport;
    md.dst_port   = 16'd4791;
    md.payload_len = 16'(udp_payload_len_sr(j.hdr.bth.opcode, j.hdr.has_reth, j.plen));
  end

  // ---------------------------------------------------------------- in-order queues
  localparam int HW = $bits(roce_hdr_t) + 16;
  logic          hq_valid, hq_pop;
  logic [HW-1:0] hq_data;
  roce_hdr_t     hq_hdr;
  logic [15:0]   hq_plen;
  logic [$clog2(FIFO_DEPTH):0] unused_c0, unused_c1, unused_c2;
  fabnic_fifo #(.WIDTH(HW), .DEPTH(FIFO_DEPTH)) u_hq (
      .clk, .rst, .in_valid(fire), .in_ready(hq_ready), .in_data({j.hdr, j.plen}),
      .out_valid(hq_valid), .out_ready(hq_pop), .out_data(hq_data), .status_count(unused_c0)
  );
  assign {hq_hdr, hq_plen} = hq_data;

  pkt_meta_t mq_data;
  logic      mq_valid, mq_pop;
  fabnic_fifo #(.WIDTH($bits(pkt_meta_t)), .DEPTH(FIFO_DEPTH)) u_mq (
      .clk, .rst, .in_valid(fire), .in_ready(mq_ready), .in_data(md),
      .out_valid(mq_valid), .out_ready(mq_pop), .out_data(mq_data), .status_count(unused_c1)
  );

  logic sq_valid, sq_pop, sq_pay;
  fabnic_fifo #(.WIDTH(1), .DEPTH(FIFO_DEPTH)) u_sq (
      .clk, .rst, .in_valid(fire), .in_ready(sq_ready), .in_data(has_pay),
      .out_valid(sq_valid), .out_ready(sq_pop), .out_data(sq_pay), .status_count(unused_c2)
  );

  // local QPN per frame, popped when the frame leaves (frames stay in job order through
  // the header encoder, the builder and the ICRC generator). Twice the depth of the
  // other queues, as it also covers the frames inside that pipeline; when full, jobs
  // wait (back-pressure, nothing is lost).
  // With it: whether the frame is reported (SENT_JOBS), IPv6, and the UDP payload length
  // the builder writes, for the sent-frame event; whether a bad frame is reported
  // (BAD_JOBS) and its PSN, for the bad-frame event.
  logic [23:0] lq_qpn, lq_psn;
  logic [15:0] lq_udp;
  logic        lq_valid, lq_pop, lq_rep, lq_v6, lq_brep;
  logic [$clog2(2 * FIFO_DEPTH):0] unused_c3;
  fabnic_fifo #(.WIDTH(67), .DEPTH(2 * FIFO_DEPTH)) u_lq (
      .clk, .rst, .in_valid(fire), .in_ready(lq_ready),
      .in_data({j.lqpn, SENT_JOBS[gnt_idx], j.ipv6, md.payload_len, BAD_JOBS[gnt_idx],
                j.hdr.bth.psn}),
      .out_valid(lq_valid), .out_ready(lq_pop),
      .out_data({lq_qpn, lq_rep, lq_v6, lq_udp, lq_brep, lq_psn}),
      .status_count(unused_c3)
  );
  assign lq_pop      = m_axis_tvalid && m_axis_tready && m_axis_tlast;
  assign m_axis_tqpn = lq_qpn;

  // sent-frame event: the frame's fields registered at its last beat, the wire length
  // added in the next cycle (UDP payload + UDP/IP/Ethernet headers + FCS + 20)
  logic        se_v_q;
  logic [23:0] se_qpn_q;
  logic [15:0] se_udp_q;
  logic        se_v6_q;
  always_ff @(posedge clk) begin
    se_v_q   <= lq_pop && lq_rep;
    se_qpn_q <= lq_qpn;
    se_udp_q <= lq_udp;
    se_v6_q  <= lq_v6;
    m_sent_valid <= se_v_q;
    m_sent_qpn   <= se_qpn_q;
    m_sent_bytes <= se_udp_q + (se_v6_q ? 16'd86 : 16'd66);
    m_bad_valid  <= lq_pop && lq_brep && m_axis_tuser;
    m_bad_qpn    <= lq_qpn;
    m_bad_psn    <= lq_psn;
    if (rst) begin
      se_v_q       <= 1'b0;
      m_sent_valid <= 1'b0;
      m_bad_valid  <= 1'b0;
    end
  end

  // payload source for the header encoder: DMA data or one empty beat
  logic [DATA_W-1:0] p_tdata;
  logic [KEEP_W-1:0] p_tkeep;
  logic              p_tvalid, p_tready, p_tlast, p_tuser;
  always_comb begin
    if (sq_pay) begin
      p_tdata  = s_pay_tdata;
      p_tkeep  = s_pay_tkeep;
      p_tvalid = sq_valid && s_pay_tvalid;
      p_tlast  = s_pay_tlast;
      p_tuser  = s_pay_tuser;
    end else begin
      p_tdata  = '0;
      p_tkeep  = '0;
      p_tvalid = sq_valid;
      p_tlast  = 1'b1;
      p_tuser  = 1'b0;
    end
  end
  assign s_pay_tready = sq_valid && sq_pay && p_tready;
  assign sq_pop       = p_tvalid && p_tready && p_tlast;

  logic [DATA_W-1:0] h_tdata;
  logic [KEEP_W-1:0] h_tkeep;
  logic              h_tvalid, h_tready, h_tlast, h_tuser;
  logic [16:0]       unused_udp_len;
  logic [CNT_W-1:0]  unused_hdr_pkts;
  fabnic_roce_tx_hdr #(.DATA_W(DATA_W), .CNT_W(CNT_W), .SR(1'b1)) u_hdr (
      .clk, .rst,
      .s_hdr_data(hq_hdr), .s_hdr_plen(hq_plen), .s_hdr_valid(hq_valid), .s_hdr_ready(hq_pop),
      .hdr_udp_len(unused_udp_len),
      .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
      .s_axis_tready(p_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
      .m_axis_tdata(h_tdata), .m_axis_tkeep(h_tkeep), .m_axis_tvalid(h_tvalid),
      .m_axis_tready(h_tready), .m_axis_tlast(h_tlast), .m_axis_tuser(h_tuser),
      .cnt_pkts(unused_hdr_pkts), .cnt_err_len(cnt_len_err)
  );

  logic [DATA_W-1:0] b_tdata;
  logic [KEEP_W-1:0] b_tkeep;
  logic              b_tvalid, b_tready, b_tlast, b_tuser;
  logic [CNT_W-1:0]  unused_b_mis;
  fabnic_pkt_builder #(.DATA_W(DATA_W), .TRAILER_BYTES(4), .CNT_W(CNT_W)) u_build (
      .clk, .rst,
      .s_meta_data(mq_data), .s_meta_valid(mq_valid), .s_meta_ready(mq_pop),
      .s_axis_tdata(h_tdata), .s_axis_tkeep(h_tkeep), .s_axis_tvalid(h_tvalid),
      .s_axis_tready(h_tready), .s_axis_tlast(h_tlast), .s_axis_tuser(h_tuser),
      .m_axis_tdata(b_tdata), .m_axis_tkeep(b_tkeep), .m_axis_tvalid(b_tvalid),
      .m_axis_tready(b_tready), .m_axis_tlast(b_tlast), .m_axis_tuser(b_tuser),
      .cnt_frames(cnt_frames), .cnt_len_mismatch(unused_b_mis)
  );

  fabnic_roce_icrc_gen #(.DATA_W(DATA_W)) u_icrc (
      .clk, .rst,
      .s_axis_tdata(b_tdata), .s_axis_tkeep(b_tkeep), .s_axis_tvalid(b_tvalid),
      .s_axis_tready(b_tready), .s_axis_tlast(b_tlast), .s_axis_tuser(b_tuser),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
      .m_axis_tuser
  );

  logic unused;
  assign unused = ^{unused_c0, unused_c1, unused_c2, unused_c3, unused_udp_len,
                    unused_hdr_pkts, unused_b_mis, lq_valid};

endmodule

`resetall
