// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_pkg: RoCEv2 RC transport types shared by the transport blocks:
// the decoded header record (roce_hdr_t) used by fabnic_roce_rx_hdr (output) and
// fabnic_roce_tx_hdr (input), the opcode -> header layout functions, the RX header
// error codes, the memory-region table formats and the 24-bit PSN helpers.
// Wire structs (bth_t, reth_t, ...) and OP_* opcodes come from fabnic_pkt_pkg.
`default_nettype none

package fabnic_roce_pkg;

  // Largest BTH + extension header set: BTH + AtomicETH = 40 bytes.
  localparam int MAX_HDR_BYTES = 40;
  localparam int HLEN_W        = 6;   // 0..40

  // ---------------------------------------------------------------- RX header errors
  typedef enum logic [1:0] {
    RX_ERR_NONE   = 2'd0,
    RX_ERR_SHORT  = 2'd1,  // packet ends before the headers its opcode needs
    RX_ERR_TVER   = 2'd2,  // BTH transport version != 0
    RX_ERR_OPCODE = 2'd3   // opcode not an RC opcode handled here (nor CNP)
  } rx_err_e;

  // ---------------------------------------------------------------- receive validation
  // Outcome of fabnic_roce_rx_check for one frame, in its priority order (the first
  // failing check is the frame's one reason; docs/roce.md "Receive validation").
  typedef enum logic [3:0] {
    RXC_OK        = 4'd0,
    RXC_IP_HDR    = 4'd1,   // parser: runt, IP version, IHL
    RXC_IP_CSUM   = 4'd2,   // parser: IPv4 header checksum
    RXC_FRAME_LEN = 4'd3,   // frame length != IP end, IPv4 total length < header
    RXC_UDP_LEN   = 4'd4,   // parser: UDP length != IP payload length
    RXC_HDR       = 4'd5,   // BTH decoder error or headers + ICRC beyond the UDP payload
    RXC_PAD       = 4'd6,   // pad count beyond the payload
    RXC_QPN       = 4'd7,   // destination QP >= NUM_QP
    RXC_OP_LEN    = 4'd8,   // payload on an opcode without one, or an empty LAST
    RXC_PMTU      = 4'd9,   // payload above the path MTU, FIRST/MIDDLE not the path MTU
    RXC_RETH_LEN  = 4'd10   // WRITE ONLY / FIRST RETH length disagrees with the payload
  } rx_check_e;
  localparam int RXC_NUM = 11;

  typedef enum logic [1:0] {
    RX_ROUTE_REQ  = 2'd0,   // responder (requests)
    RX_ROUTE_RSP  = 2'd1,   // completer (responses, ACKs, SACKs)
    RX_ROUTE_CNP  = 2'd2,   // congestion notification (rate limiter)
    RX_ROUTE_DROP = 2'd3
  } rx_route_e;

  // Decoded header record. Fields of headers the opcode does not carry are zero.
  typedef struct packed {
    fabnic_pkt_pkg::bth_t            bth;
    logic                            has_reth;
    logic                            has_aeth;
    logic                            has_immdt;
    logic                            has_ieth;
    logic                            has_atomic_eth;
    logic                            has_atomic_ack_eth;
    logic                            is_cnp;
    fabnic_pkt_pkg::reth_t           reth;
    fabnic_pkt_pkg::aeth_t           aeth;
    fabnic_pkt_pkg::immdt_t          immdt;
    fabnic_pkt_pkg::ieth_t           ieth;
    fabnic_pkt_pkg::atomic_eth_t     atomic_eth;
    fabnic_pkt_pkg::atomic_ack_eth_t atomic_ack_eth;
    logic [HLEN_W-1:0]               hdr_len;   // BTH + extension header bytes
    rx_err_e                         err;
  } roce_hdr_t;

  // Which extension headers an opcode carries (IBTA vol. 1 ch. 9, RC opcode table),
  // in wire order: RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH (at most the
  // pairs RETH+ImmDt and AETH+AtomicAckETH occur). CNP (0x81): 16 reserved bytes.
  typedef struct packed {
    logic known;    // an RC opcode handled here, or CNP
    logic reth;
    logic aeth;
    logic immdt;
    logic ieth;
    logic atomic_eth;
    logic atomic_ack_eth;
    logic cnp;
    logic sack;     // selective-repeat SACK (vendor 0xC0): AETH + 24-byte SACKETH
  } op_layout_t;

  function automatic logic op_known(input logic [7:0] op);
    return (op <= fabnic_pkt_pkg::OP_FETCH_ADD) || op == fabnic_pkt_pkg::OP_SEND_LAST_INV
           || op == fabnic_pkt_pkg::OP_SEND_ONLY_INV || op == fabnic_pkt_pkg::OP_CNP;
  endfunction

  function automatic op_layout_t op_layout(input logic [7:0] op);
    op_layout_t l;
    l = '0;
    l.known = op_known(op);
    l.reth  = op == fabnic_pkt_pkg::OP_WRITE_FIRST || op == fabnic_pkt_pkg::OP_WRITE_ONLY
              || op == fabnic_pkt_pkg::OP_WRITE_ONLY_IMM || op == fabnic_pkt_pkg::OP_READ_REQUEST;
    l.aeth  = op == fabnic_pkt_pkg::OP_READ_RESP_FIRST || op == fabnic_pkt_pkg::OP_READ_RESP_LAST
              || op == fabnic_pkt_pkg::OP_READ_RESP_ONLY || op == fabnic_pkt_pkg::OP_ACK
              || op == fabnic_pkt_pkg::OP_ATOMIC_ACK;
    l.immdt = op == fabnic_pkt_pkg::OP_SEND_LAST_IMM || op == fabnic_pkt_pkg::OP_SEND_ONLY_IMM
              || op == fabnic_pkt_pkg::OP_WRITE_LAST_IMM || op == fabnic_pkt_pkg::OP_WRITE_ONLY_IMM;
    l.ieth  = op == fabnic_pkt_pkg::OP_SEND_LAST_INV || op == fabnic_pkt_pkg::OP_SEND_ONLY_INV;
    l.atomic_eth     = op == fabnic_pkt_pkg::OP_COMPARE_SWAP || op == fabnic_pkt_pkg::OP_FETCH_ADD;
    l.atomic_ack_eth = op == fabnic_pkt_pkg::OP_ATOMIC_ACK;
    l.cnp   = op == fabnic_pkt_pkg::OP_CNP;
    return l;
  endfunction

  // ---------------------------------------------------------------- selective repeat
  // Layout of an opcode on a QP with selective repeat (docs/roce_sr.md): WRITE MIDDLE /
  // LAST carry a RETH and SENDs a SOFFETH (decoded into the reth field) when sr_reth is
  // set, and the vendor SACK opcode 0xC0 is known
  // (AETH + SACKETH). With sr_reth = 0 and sack_ok = 0 this is op_layout().
  localparam logic [7:0] OP_SR_SACK  = 8'hC0;
  localparam int         SACKETH_BYTES = 24;

  // Opcodes that carry a 16-byte RETH-sized header on an SR QP and not on a standard
  // one: WRITE MIDDLE / LAST (a RETH: VA of the packet's first byte) and every SEND
  // (a SOFFETH in the same slot: message offset, SSN, message length).
  function automatic logic op_sr_ext(input logic [7:0] op);
    return op == fabnic_pkt_pkg::OP_WRITE_MIDDLE || op == fabnic_pkt_pkg::OP_WRITE_LAST
           || op == fabnic_pkt_pkg::OP_WRITE_LAST_IMM || op <= fabnic_pkt_pkg::OP_SEND_ONLY_IMM;
  endfunction

  function automatic op_layout_t op_layout_sr(input logic [7:0] op, input logic sr_reth,
                                              input logic sack_ok);
    op_layout_t l;
    l = op_layout(op);
    if (sr_reth && op_sr_ext(op)) l.reth = 1'b1;
    if (sack_ok && op == OP_SR_SACK) begin
      l.known = 1'b1;
      l.aeth  = 1'b1;
      l.sack  = 1'b1;
    end
    return l;
  endfunction

  // BTH + extension header bytes for an opcode (12 for unknown opcodes).
  function automatic logic [HLEN_W-1:0] hdr_len_lay(input op_layout_t l);
    int unsigned n;
    n = fabnic_pkt_pkg::BTH_BYTES;
    if (l.known && l.reth) n += fabnic_pkt_pkg::RETH_BYTES;
    if (l.aeth)           n += fabnic_pkt_pkg::AETH_BYTES;
    if (l.immdt)          n += fabnic_pkt_pkg::IMMDT_BYTES;
    if (l.ieth)           n += fabnic_pkt_pkg::IETH_BYTES;
    if (l.atomic_eth)     n += fabnic_pkt_pkg::ATOMIC_ETH_BYTES;
    if (l.atomic_ack_eth) n += fabnic_pkt_pkg::ATOMIC_ACK_ETH_BYTES;
    if (l.cnp)            n += fabnic_pkt_pkg::CNP_PAD_BYTES;
    if (l.sack)           n += SACKETH_BYTES;
    return HLEN_W'(n);
  endfunction

  function automatic logic [HLEN_W-1:0] hdr_len_of(input logic [7:0] op);
    return hdr_len_lay(op_layout(op));
  endfunction

  // BTH pad count for a payload of plen bytes: pads it to a multiple of 4.
  function automatic logic [1:0] pad_of(input logic [1:0] plen_lo);
    return 2'(3'd4 - {1'b0, plen_lo});
  endfunction

  // UDP payload length of a packet built by fabnic_roce_tx_hdr: headers + payload +
  // pad + 4 ICRC bytes (what fabnic_pkt_builder's meta.payload_len must be).
  function automatic logic [16:0] udp_payload_len(input logic [7:0] op, input logic [15:0] plen);
    return 17'(hdr_len_of(op)) + 17'(plen) + 17'(pad_of(plen[1:0])) + 17'(fabnic_pkt_pkg::ICRC_BYTES);
  endfunction

  // The same for a transmit header record with the selective-repeat layouts: has_reth
  // on a WRITE MIDDLE/LAST adds the RETH, opcode 0xC0 is the SACK.
  function automatic logic [16:0] udp_payload_len_sr(input logic [7:0] op, input logic sr_reth,
                                                     input logic [15:0] plen);
    return 17'(hdr_len_lay(op_layout_sr(op, sr_reth, 1'b1))) + 17'(plen)
           + 17'(pad_of(plen[1:0])) + 17'(fabnic_pkt_pkg::ICRC_BYTES);
  endfunction

  // ---------------------------------------------------------------- memory regions
  localparam int MR_ACC_LOCAL_WRITE   = 0;
  localparam int MR_ACC_REMOTE_READ   = 1;
  localparam int MR_ACC_REMOTE_WRITE  = 2;
  localparam int MR_ACC_REMOTE_ATOMIC = 3;

  typedef enum logic [2:0] {
    MR_OK          = 3'd0,
    MR_ERR_INVALID = 3'd1,  // index out of range or entry not valid
    MR_ERR_TAG     = 3'd2,  // key[7:0] differs from the stored tag (stale key)
    MR_ERR_PD      = 3'd3,  // protection domain mismatch
    MR_ERR_ACCESS  = 3'd4,  // a required access bit is not granted
    MR_ERR_BOUNDS  = 3'd5   // [va, va+len) not inside [base, base+length), or wraps 2^64
  } mr_err_e;

  // One table entry (block RAM word).
  typedef struct packed {
    logic        valid;
    logic [7:0]  tag;
    logic [23:0] pd;
    logic [3:0]  access;
    logic [63:0] base;       // region start (virtual address as the peer uses it)
    logic [63:0] length;     // region bytes
    logic [63:0] host_base;  // host (DMA) address of base
  } mr_entry_t;

  // ---------------------------------------------------------------- PSN (24 bit)
  // PSNs compare modulo 2^24 within a window of 2^23: psn_diff(a, b) is a - b taken as
  // a signed 24-bit number in [-2^23, 2^23); a is "before" b when it is negative.
  function automatic logic signed [23:0] psn_diff(input logic [23:0] a, input logic [23:0] b);
    return signed'(a - b);
  endfunction

  function automatic logic psn_lt(input logic [23:0] a, input logic [23:0] b);
    return psn_diff(a, b) < 0;
  endfunction

  function automatic logic psn_le(input logic [23:0] a, input logic [23:0] b);
    return psn_lt(a, b) || a == b;
  endfunction

  function automatic logic [23:0] psn_add(input logic [23:0] a, input logic [23:0] n);
    return a + n;
  endfunction

  // ---------------------------------------------------------------- transport engine
  // QP states (IBTA numbering, as written by the host in QP context word 0).
  localparam logic [2:0] QPS_RESET = 3'd0;
  localparam logic [2:0] QPS_INIT  = 3'd1;
  localparam logic [2:0] QPS_RTR   = 3'd2;
  localparam logic [2:0] QPS_RTS   = 3'd3;
  localparam logic [2:0] QPS_SQD   = 3'd4;
  localparam logic [2:0] QPS_SQE   = 3'd5;
  localparam logic [2:0] QPS_ERR   = 3'd6;

  // SQE opcodes (host memory, docs/roce_design.md).
  localparam logic [7:0] WR_SEND      = 8'd0;
  localparam logic [7:0] WR_SEND_IMM  = 8'd1;
  localparam logic [7:0] WR_WRITE     = 8'd2;
  localparam logic [7:0] WR_WRITE_IMM = 8'd3;
  localparam logic [7:0] WR_READ      = 8'd4;
  localparam logic [7:0] WR_CMP_SWAP  = 8'd5;
  localparam logic [7:0] WR_FETCH_ADD = 8'd6;

  // CQE opcodes and status codes.
  localparam logic [7:0] WC_SEND          = 8'h00;
  localparam logic [7:0] WC_WRITE         = 8'h01;
  localparam logic [7:0] WC_READ          = 8'h02;
  localparam logic [7:0] WC_CMP_SWAP      = 8'h03;
  localparam logic [7:0] WC_FETCH_ADD     = 8'h04;
  localparam logic [7:0] WC_RECV          = 8'h80;
  localparam logic [7:0] WC_RECV_RDMA_IMM = 8'h81;

  localparam logic [7:0] WS_SUCCESS       = 8'd0;
  localparam logic [7:0] WS_LOC_LEN_ERR   = 8'd1;
  localparam logic [7:0] WS_LOC_PROT_ERR  = 8'd2;
  localparam logic [7:0] WS_WR_FLUSH_ERR  = 8'd3;
  localparam logic [7:0] WS_REM_ACCESS    = 8'd4;
  localparam logic [7:0] WS_REM_INV_REQ   = 8'd5;
  localparam logic [7:0] WS_REM_OP_ERR    = 8'd6;
  localparam logic [7:0] WS_RETRY_EXC     = 8'd7;
  localparam logic [7:0] WS_RNR_RETRY_EXC = 8'd8;
  localparam logic [7:0] WS_LOC_QP_OP_ERR = 8'd9;   // host memory returned an error (AXI)

  // AETH syndromes.
  localparam logic [7:0] SYN_ACK        = 8'h1F;  // ACK, credit field "invalid" (no EE credits)
  localparam logic [7:0] SYN_RNR        = 8'h20;  // | 5-bit RNR timer code
  localparam logic [7:0] SYN_NAK_SEQ    = 8'h60;
  localparam logic [7:0] SYN_NAK_INV    = 8'h61;
  localparam logic [7:0] SYN_NAK_ACCESS = 8'h62;
  localparam logic [7:0] SYN_NAK_OP     = 8'h63;

  // Static QP context (host-written; decoded from the command operand words).
  typedef struct packed {
    logic [2:0]   state;
    logic         ipv6;
    logic [2:0]   pmtu;       // 1..5 = 256..4096 bytes
    logic [3:0]   access;     // MR_ACC_* bits (remote rights of this QP as a responder)
    logic [2:0]   retry_cnt;
    logic [2:0]   rnr_retry;
    logic [4:0]   timeout;
    logic         sr;
    logic         fec;
    logic         cc;
    logic [23:0]  dqpn;
    logic [23:0]  sq_psn;
    logic [23:0]  rq_psn;
    logic [23:0]  pd;
    logic [15:0]  sport;
    logic [5:0]   dscp;
    logic [47:0]  dmac;
    logic [127:0] dip;
    logic [63:0]  sq_base;
    logic [63:0]  rq_base;
    logic [4:0]   sq_log;
    logic [4:0]   rq_log;
    logic [15:0]  scq;
    logic [15:0]  rcq;
  } qpc_t;

  localparam int CMD_WORDS = 24;

  function automatic qpc_t qpc_decode(input logic [CMD_WORDS*32-1:0] w);
    qpc_t q;
    q.state     = w[0*32 + 0 +: 3];
    q.ipv6      = w[0*32 + 3];
    q.pmtu      = w[0*32 + 4 +: 3];
    q.access    = w[0*32 + 8 +: 4];
    q.retry_cnt = w[0*32 + 12 +: 3];
    q.rnr_retry = w[0*32 + 15 +: 3];
    q.timeout   = w[0*32 + 18 +: 5];
    q.sr        = w[0*32 + 23];
    q.fec       = w[0*32 + 24];
    q.cc        = w[0*32 + 25];
    q.dqpn      = w[1*32 +: 24];
    q.sq_psn    = w[2*32 +: 24];
    q.rq_psn    = w[3*32 +: 24];
    q.pd        = w[4*32 +: 24];
    q.sport     = w[5*32 +: 16];
    q.dscp      = w[5*32 + 16 +: 6];
    q.dmac      = {w[7*32 +: 16], w[6*32 +: 32]};
    q.dip       = w[8*32 +: 128];
    q.sq_base   = w[12*32 +: 64];
    q.rq_base   = w[14*32 +: 64];
    q.sq_log    = w[16*32 +: 5];
    q.rq_log    = w[16*32 + 8 +: 5];
    q.scq       = w[17*32 +: 16];
    q.rcq       = w[17*32 + 16 +: 16];
    return q;
  endfunction

  // log2 of the path MTU in bytes (8..12).
  function automatic logic [3:0] pmtu_log(input logic [2:0] code);
    return (code >= 3'd1 && code <= 3'd5) ? 4'(7 + code) : 4'd8;
  endfunction

  // Packets a message of len bytes occupies at path MTU 2^lg (at least one).
  function automatic logic [23:0] npkts(input logic [31:0] len, input logic [3:0] lg);
    logic [31:0] n;
    n = (len + (32'd1 << lg) - 32'd1) >> lg;
    return (n == 0) ? 24'd1 : n[23:0];
  endfunction

  // Send queue entry as fetched (64 bytes, little-endian in host memory).
  typedef struct packed {
    logic [63:0] swap;
    logic [63:0] cmp_add;
    logic [31:0] rkey;
    logic [63:0] raddr;
    logic [31:0] imm;
    logic [31:0] lkey;
    logic [63:0] laddr;
    logic [31:0] len;
    logic [7:0]  flags;
    logic [7:0]  opcode;
    logic [63:0] wr_id;
  } sqe_t;

  function automatic sqe_t sqe_decode(input logic [511:0] b);
    sqe_t e;
    e.wr_id   = b[0*8 +: 64];
    e.opcode  = b[8*8 +: 8];
    e.flags   = b[9*8 +: 8];
    e.len     = b[12*8 +: 32];
    e.laddr   = b[16*8 +: 64];
    e.lkey    = b[24*8 +: 32];
    e.imm     = b[28*8 +: 32];
    e.raddr   = b[32*8 +: 64];
    e.rkey    = b[40*8 +: 32];
    e.cmp_add = b[48*8 +: 64];
    e.swap    = b[56*8 +: 64];
    return e;
  endfunction

  // Receive queue entry (32 bytes).
  typedef struct packed {
    logic [31:0] len;
    logic [31:0] lkey;
    logic [63:0] addr;
    logic [63:0] wr_id;
  } rqe_t;

  function automatic rqe_t rqe_decode(input logic [255:0] b);
    rqe_t e;
    e.wr_id = b[0 +: 64];
    e.addr  = b[64 +: 64];
    e.lkey  = b[128 +: 32];
    e.len   = b[160 +: 32];
    return e;
  endfunction

  // A packet for the transmit path: header record, payload length and host address
  // of the payload (read by DMA when plen > 0), and the addressing of the peer.
  typedef struct packed {
    roce_hdr_t    hdr;
    logic [15:0]  plen;
    logic [63:0]  addr;
    logic [47:0]  dmac;
    logic [127:0] dip;
    logic         ipv6;
    logic [15:0]  sport;
    logic [5:0]   dscp;
    logic [1:0]   ecn;
    logic [23:0]  lqpn;   // local QP the packet belongs to (frame sideband, not on the wire)
  } tx_job_t;

  // A completion to write.
  typedef struct packed {
    logic [15:0] cqn;
    logic [63:0] wr_id;
    logic [31:0] byte_len;
    logic [31:0] imm;
    logic [23:0] qpn;
    logic [7:0]  opcode;
    logic [7:0]  status;
    logic        imm_valid;
  } cqe_req_t;

  // CQE bytes (32, little-endian) with the owner/phase bit.
  function automatic logic [255:0] cqe_encode(input cqe_req_t c, input logic phase);
    logic [255:0] b;
    b = '0;
    b[0 +: 64]    = c.wr_id;
    b[64 +: 32]   = c.byte_len;
    b[96 +: 32]   = c.imm;
    b[128 +: 24]  = c.qpn;
    b[160 +: 8]   = c.opcode;
    b[168 +: 8]   = c.status;
    b[176]        = c.imm_valid;
    b[255]        = phase;
    return b;
  endfunction

  // Byte swap helpers (wire order is big-endian, host memory little-endian).
  function automatic logic [31:0] bswap32(input logic [31:0] v);
    return {v[7:0], v[15:8], v[23:16], v[31:24]};
  endfunction

endpackage

`resetall
