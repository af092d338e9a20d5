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

  // BTH + extension header bytes for an opcode (12 for unknown opcodes).
  function automatic logic [HLEN_W-1:0] hdr_len_of(input logic [7:0] op);
    op_layout_t l;
    int unsigned n;
    l = op_layout(op);
    n = fabnic_pkt_pkg::BTH_BYTES;
    if (l.known && l.reth) n += fabnic_pkt_pkg::RETH_BYTES;
    if (l.aeth)           n += fabnic_pkt_pkg::AETH_BYTES;
    if (l.immdt)          n += fabnic_pkt_pkg::IMMDT_BYTES;
    if (l.ieth)           n += fabnic_pkt_pkg::IETH_BYTES;
    if (l.atomic_eth)     n += fabnic_pkt_pkg::ATOMIC_ETH_BYTES;
    if (l.atomic_ack_eth) n += fabnic_pkt_pkg::ATOMIC_ACK_ETH_BYTES;
    if (l.cnp)            n += fabnic_pkt_pkg::CNP_PAD_BYTES;
    return HLEN_W'(n);
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

endpackage

`resetall
