// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_rx_check: the length and header validation stage of the receive front.
//
// Input, one record per frame that passed the station filter and the ICRC check, in
// frame order: the decoded BTH record (fabnic_roce_rx_hdr), the IP/UDP parser's
// error bits, payload offset and length (the UDP payload per the IP length), the
// ECN bits, and the frame's length in bytes as it entered the frame FIFO.
// Output, one record per input: the same header, the RoCE payload length and a route
// (requester side, completer side, CNP, or drop) with the one reason that decided it.
//
// Checks, in priority order (the first that fails is the frame's only reason; the
// table with the rule behind each one is in docs/roce.md, "Receive validation"):
//   IP_HDR     parser: frame ends inside its Ethernet/IP/UDP headers, IP version,
//              IPv4 IHL
//   IP_CSUM    parser: IPv4 header checksum
//   FRAME_LEN  frame length != l3 offset + IP length (truncated, or bytes after the
//              IP datagram in a frame of more than one beat), or the parser's IP
//              length error (IPv4 total length below its header length)
//   UDP_LEN    parser: UDP length != IP payload length
//   HDR        BTH decoder error (transport version, unknown opcode, headers cut
//              short), or the UDP payload shorter than BTH + extension headers + ICRC
//   PAD        UDP payload shorter than the headers + pad + ICRC
//   QPN        destination QP >= NUM_QP
//   OP_LEN     a payload on an opcode that carries none (READ request, ACK, atomics,
//              atomic ACK, CNP, SACK), or an empty LAST packet
//   PMTU       payload above the destination QP's path MTU, or a FIRST/MIDDLE packet
//              whose payload is not exactly the path MTU
//   RETH_LEN   WRITE ONLY whose RETH length != payload; WRITE FIRST whose RETH length
//              does not exceed its payload
// A frame that passes all of them is routed (requests / responses) or is a CNP.
//
// Path MTU per QP: a NUM_QP x 3-bit table written with the QP's static context
// (st_we/st_qpn/st_pmtu, the same write that loads the engines); codes 1..5 are
// 256..4096 bytes, other codes act as 4096 (a QP that is not set up is dropped by the
// engines' state check).
//
// Pipeline: S0 input register, S1 sums and opcode classes, S2 length compares, S3
// payload compares, S4 reason and route into the output FIFO; counters count the
// registered reason one cycle later. Every stage is at most 6 logic levels. The stages
// never stall: s_ready is a registered credit check (the output FIFO has room for
// every record in flight), so no combinational path runs from m_ready to s_ready.
// Latency 5 cycles from s_valid to m_valid; one record per cycle.
`default_nettype none

module fabnic_roce_rx_check #(
    parameter int NUM_QP    = 1024,  // >= 1; destination QPs at or above it are dropped
    parameter int OUT_DEPTH = 16,    // output FIFO records, power of two >= 8
    parameter int CNT_W     = 32
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    // per-QP path MTU (static context writes)
    input  wire logic                        st_we,
    input  wire logic [23:0]                 st_qpn,
    input  wire logic [2:0]                  st_pmtu,

    input  fabnic_roce_pkg::roce_hdr_t       s_hdr,
    input  fabnic_pkt_pkg::pkt_err_t         s_ip_err,
    input  wire logic [7:0]                  s_pay_off,   // UDP payload offset in the frame
    input  wire logic [15:0]                 s_pay_len,   // UDP payload bytes per the IP length
    input  wire logic [1:0]                  s_ecn,
    input  wire logic [16:0]                 s_frame_len, // bytes of the frame (no FCS)
    input  wire logic                        s_valid,
    output logic                             s_ready,

    output fabnic_roce_pkg::roce_hdr_t       m_hdr,
    output logic      [15:0]                 m_plen,
    output fabnic_roce_pkg::rx_route_e       m_route,
    output logic      [1:0]                  m_ecn,
    output logic                             m_valid,
    input  wire logic                        m_ready,

    // one counter per outcome; a record counts in exactly one of them
    output logic      [CNT_W-1:0]            cnt_req,
    output logic      [CNT_W-1:0]            cnt_rsp,
    output logic      [CNT_W-1:0]            cnt_cnp,
    output logic      [CNT_W-1:0]            cnt_drop [fabnic_roce_pkg::RXC_NUM]
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  localparam int QPN_W  = (NUM_QP > 1) ? $clog2(NUM_QP) : 1;
  localparam int STAGES = 5;   // S0..S4 records in flight before the FIFO

  if (NUM_QP < 1 || NUM_QP > (1 << 24)) begin : g_chk_qp
    $error("fabnic_roce_rx_check: NUM_QP must be 1 .. 2^24");
  end
  if (OUT_DEPTH < 8 || (1 << $clog2(OUT_DEPTH)) != OUT_DEPTH) begin : g_chk_depth
    $error("fabnic_roce_rx_check: OUT_DEPTH must be a power of two >= 8");
  end

  // ---------------------------------------------------------------- S0: input register
  logic [$clog2(OUT_DEPTH):0] fifo_count;
  logic                       s_fire;
  // room for this record and every one in S0..S4 (the stages never stall)
  assign s_ready = 32'(fifo_count) <= OUT_DEPTH - STAGES - 1;
  assign s_fire  = s_valid && s_ready;

  roce_hdr_t  h0_q;
  pkt_err_t   e0_q;
  logic [7:0]  off0_q;
  logic [15:0] pl0_q;
  logic [1:0]  ecn0_q;
  logic [16:0] fl0_q;
  logic        v0_q;
  always_ff @(posedge clk) begin
    v0_q <= s_fire;
    if (s_fire) begin
      h0_q   <= s_hdr;
      e0_q   <= s_ip_err;
      off0_q <= s_pay_off;
      pl0_q  <= s_pay_len;
      ecn0_q <= s_ecn;
      fl0_q  <= s_frame_len;
    end
    if (rst) v0_q <= 1'b0;
  end

  // path MTU table: written by context writes, read with S0's destination QP (data in S1)
  logic [2:0] pmtu1;
  fabnic_ram_sdp #(.DATA_W(3), .DEPTH(NUM_QP)) u_pmtu (
      .clk,
      .wr_en(st_we && 32'(st_qpn) < NUM_QP), .wr_be(1'b1), .wr_addr(QPN_W'(st_qpn)),
      .wr_data(st_pmtu),
      .rd_en(v0_q), .rd_regce(1'b1), .rd_addr(QPN_W'(h0_q.bth.dest_qp)), .rd_data(pmtu1)
  );

  // ---------------------------------------------------------------- S1: sums, classes
  // opcode payload classes
  typedef struct packed {
    logic first;     // FIRST / MIDDLE: payload exactly the path MTU
    logic last;      // LAST: 1 .. path MTU
    logic only;      // ONLY: 0 .. path MTU
    logic none;      // no payload
    logic wr_only;   // WRITE ONLY(_IMM): RETH length == payload
    logic wr_first;  // WRITE FIRST: RETH length > payload
    logic rsp;       // completer side
  } opc_t;

  function automatic opc_t op_class(input logic [7:0] op);
    opc_t c;
    c = '0;
    unique case (op)
      OP_SEND_FIRST, OP_SEND_MIDDLE, OP_WRITE_FIRST, OP_WRITE_MIDDLE: c.first = 1'b1;
      OP_READ_RESP_FIRST, OP_READ_RESP_MIDDLE: begin c.first = 1'b1; c.rsp = 1'b1; end
      OP_SEND_LAST, OP_SEND_LAST_IMM, OP_WRITE_LAST, OP_WRITE_LAST_IMM,
      OP_SEND_LAST_INV: c.last = 1'b1;
      OP_READ_RESP_LAST: begin c.last = 1'b1; c.rsp = 1'b1; end
      OP_SEND_ONLY, OP_SEND_ONLY_IMM, OP_WRITE_ONLY, OP_WRITE_ONLY_IMM,
      OP_SEND_ONLY_INV: c.only = 1'b1;
      OP_READ_RESP_ONLY: begin c.only = 1'b1; c.rsp = 1'b1; end
      OP_ACK, OP_ATOMIC_ACK, OP_SR_SACK: begin c.none = 1'b1; c.rsp = 1'b1; end
      default: c.none = 1'b1;   // READ request, atomics, CNP (unknown: HDR first)
    endcase
    c.wr_only  = op == OP_WRITE_ONLY || op == OP_WRITE_ONLY_IMM;
    c.wr_first = op == OP_WRITE_FIRST;
    return c;
  endfunction

  roce_hdr_t   h1_q;
  opc_t        c1_q;
  logic [15:0] pl1_q;
  logic [16:0] ipend1_q, fl1_q;
  logic [6:0]  need_hdr1_q, need_all1_q;
  logic        ip_hdr1_q, ip_csum1_q, udp_len1_q, hdr_err1_q, qpn_bad1_q, iplen1_q;
  logic [1:0]  ecn1_q;
  logic        v1_q;

  function automatic logic [12:0] mtu_bytes(input logic [2:0] code);
    unique case (code)
      3'd1: return 13'd256;
      3'd2: return 13'd512;
      3'd3: return 13'd1024;
      3'd4: return 13'd2048;
      default: return 13'd4096;
    endcase
  endfunction

  always_ff @(posedge clk) begin
    v1_q <= v0_q;
    if (v0_q) begin
      h1_q        <= h0_q;
      c1_q        <= op_class(h0_q.bth.opcode);
      pl1_q       <= pl0_q;
      ipend1_q    <= 17'(off0_q) + 17'(pl0_q);
      fl1_q       <= fl0_q;
      need_hdr1_q <= 7'(h0_q.hdr_len) + 7'(ICRC_BYTES);
      need_all1_q <= 7'(h0_q.hdr_len) + 7'(h0_q.bth.pad_count) + 7'(ICRC_BYTES);
      ip_hdr1_q   <= e0_q.runt || e0_q.ip_version || e0_q.ipv4_ihl;
      iplen1_q    <= e0_q.ip_length;
      ip_csum1_q  <= e0_q.ipv4_csum;
      udp_len1_q  <= e0_q.udp_length;
      hdr_err1_q  <= h0_q.err != RX_ERR_NONE;
      qpn_bad1_q  <= 32'(h0_q.bth.dest_qp) >= NUM_QP;
      ecn1_q      <= ecn0_q;
    end
    if (rst) v1_q <= 1'b0;
  end
  // the table's registered read lands in S1 together with the record
  logic [12:0] mtu1;
  assign mtu1 = mtu_bytes(pmtu1);

  // ---------------------------------------------------------------- S2: length compares
  roce_hdr_t   h2_q;
  opc_t        c2_q;
  logic [15:0] plen2_q;
  logic [12:0] mtu2_q;
  logic        ip_hdr2_q, ip_csum2_q, udp_len2_q, frame_len2_q, hdr2_q, pad2_q, qpn2_q;
  logic [1:0]  ecn2_q;
  logic        v2_q;
  always_ff @(posedge clk) begin
    v2_q <= v1_q;
    if (v1_q) begin
      h2_q         <= h1_q;
      c2_q         <= c1_q;
      plen2_q      <= pl1_q - 16'(need_all1_q);
      mtu2_q       <= mtu1;
      ip_hdr2_q    <= ip_hdr1_q;
      ip_csum2_q   <= ip_csum1_q;
      udp_len2_q   <= udp_len1_q;
      frame_len2_q <= fl1_q != ipend1_q || iplen1_q;
      hdr2_q       <= hdr_err1_q || pl1_q < 16'(need_hdr1_q);
      pad2_q       <= pl1_q < 16'(need_all1_q);
      qpn2_q       <= qpn_bad1_q;
      ecn2_q       <= ecn1_q;
    end
    if (rst) v2_q <= 1'b0;
  end

  // ---------------------------------------------------------------- S3: payload compares
  roce_hdr_t   h3_q;
  opc_t        c3_q;
  logic [15:0] plen3_q;
  logic        ip_hdr3_q, ip_csum3_q, udp_len3_q, frame_len3_q, hdr3_q, pad3_q, qpn3_q;
  logic        zero3_q, over3_q, ne_mtu3_q, reth_ne3_q, reth_le3_q;
  logic [1:0]  ecn3_q;
  logic        v3_q;
  always_ff @(posedge clk) begin
    v3_q <= v2_q;
    if (v2_q) begin
      h3_q         <= h2_q;
      c3_q         <= c2_q;
      plen3_q      <= plen2_q;
      ip_hdr3_q    <= ip_hdr2_q;
      ip_csum3_q   <= ip_csum2_q;
      udp_len3_q   <= udp_len2_q;
      frame_len3_q <= frame_len2_q;
      hdr3_q       <= hdr2_q;
      pad3_q       <= pad2_q;
      qpn3_q       <= qpn2_q;
      zero3_q      <= plen2_q == '0;
      over3_q      <= plen2_q > 16'(mtu2_q);
      ne_mtu3_q    <= plen2_q != 16'(mtu2_q);
      reth_ne3_q   <= h2_q.reth.dma_len != 32'(plen2_q);
      reth_le3_q   <= h2_q.reth.dma_len <= 32'(plen2_q);
      ecn3_q       <= ecn2_q;
    end
    if (rst) v3_q <= 1'b0;
  end

  // ---------------------------------------------------------------- S4: reason, route
  rx_check_e reason;
  always_comb begin
    if (ip_hdr3_q)                                  reason = RXC_IP_HDR;
    else if (ip_csum3_q)                            reason = RXC_IP_CSUM;
    else if (frame_len3_q)                          reason = RXC_FRAME_LEN;
    else if (udp_len3_q)                            reason = RXC_UDP_LEN;
    else if (hdr3_q)                                reason = RXC_HDR;
    else if (pad3_q)                                reason = RXC_PAD;
    else if (qpn3_q)                                reason = RXC_QPN;
    else if ((c3_q.none && !zero3_q) || (c3_q.last && zero3_q))
                                                    reason = RXC_OP_LEN;
    else if (over3_q || (c3_q.first && ne_mtu3_q))  reason = RXC_PMTU;
    else if ((c3_q.wr_only && reth_ne3_q) || (c3_q.wr_first && reth_le3_q))
                                                    reason = RXC_RETH_LEN;
    else                                            reason = RXC_OK;
  end

  rx_route_e route;
  always_comb begin
    if (reason != RXC_OK)  route = RX_ROUTE_DROP;
    else if (h3_q.is_cnp)  route = RX_ROUTE_CNP;
    else if (c3_q.rsp)     route = RX_ROUTE_RSP;
    else                   route = RX_ROUTE_REQ;
  end

  typedef struct packed {
    roce_hdr_t   hdr;
    logic [15:0] plen;
    rx_route_e   route;
    logic [1:0]  ecn;
  } out_t;
  out_t fin, fout;
  assign fin = '{hdr: h3_q, plen: plen3_q, route: route, ecn: ecn3_q};

  logic unused_in_ready;
  fabnic_fifo #(.WIDTH($bits(out_t)), .DEPTH(OUT_DEPTH)) u_out (
      .clk, .rst,
      .in_valid(v3_q), .in_ready(unused_in_ready), .in_data(fin),
      .out_valid(m_valid), .out_ready(m_ready), .out_data(fout),
      .status_count(fifo_count)
  );
  assign m_hdr   = fout.hdr;
  assign m_plen  = fout.plen;
  assign m_route = fout.route;
  assign m_ecn   = fout.ecn;

  // ---------------------------------------------------------------- counters (S5)
  logic      cv_q;
  rx_check_e creason_q;
  rx_route_e croute_q;
  always_ff @(posedge clk) begin
    cv_q      <= v3_q;
    creason_q <= reason;
    croute_q  <= route;
    if (cv_q) begin
      if (creason_q == RXC_OK && croute_q == RX_ROUTE_REQ) cnt_req <= cnt_req + 1'b1;
      if (creason_q == RXC_OK && croute_q == RX_ROUTE_RSP) cnt_rsp <= cnt_rsp + 1'b1;
      if (creason_q == RXC_OK && croute_q == RX_ROUTE_CNP) cnt_cnp <= cnt_cnp + 1'b1;
      for (int r = 1; r < RXC_NUM; r++)
        if (creason_q == rx_check_e'(r)) cnt_drop[r] <= cnt_drop[r] + 1'b1;
    end
    if (rst) begin
      cv_q    <= 1'b0;
      cnt_req <= '0;
      cnt_rsp <= '0;
      cnt_cnp <= '0;
      for (int r = 0; r < RXC_NUM; r++) cnt_drop[r] <= '0;
    end
  end

  logic unused;
  assign unused = ^{unused_in_ready, cnt_drop[0], c3_q.only};

`ifndef SYNTHESIS
  // the credit rule keeps the output FIFO from overflowing
  always_ff @(posedge clk) begin
    if (!rst && v3_q) assert (unused_in_ready)
      else $error("fabnic_roce_rx_check: output FIFO overflow");
  end
`endif

endmodule

`resetall
