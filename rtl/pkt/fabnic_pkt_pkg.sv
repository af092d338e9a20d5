// SPDX-License-Identifier: Apache-2.0
//
// fabnic_pkt_pkg: wire-format constants, header structs and the parser/builder
// metadata shared by every block that touches packets.
//
// Byte order: all header structs are in network order, i.e. the first byte on
// the wire is the most significant byte of the struct. On AXI-Stream, byte lane
// i (tdata[8*i+7:8*i]) carries the i-th byte of the beat, so a header taken
// from a stream must be byte-reversed before it is cast to a struct:
// fabnic_axis_hdr_extract / fabnic_axis_hdr_insert do that for their users.
`default_nettype none

package fabnic_pkt_pkg;

  // ---------------------------------------------------------------- constants
  localparam logic [15:0] ETHERTYPE_IPV4 = 16'h0800;
  localparam logic [15:0] ETHERTYPE_IPV6 = 16'h86DD;
  localparam logic [15:0] ETHERTYPE_VLAN = 16'h8100;
  localparam logic [15:0] ETHERTYPE_MAC_CTRL = 16'h8808;  // PAUSE / PFC

  localparam logic [7:0]  IP_PROTO_UDP = 8'd17;

  localparam logic [15:0] UDP_PORT_ROCEV2 = 16'd4791;
  localparam logic [15:0] UDP_PORT_VXLAN  = 16'd4789;

  localparam int ETH_HDR_BYTES  = 14;
  localparam int VLAN_TAG_BYTES = 4;
  localparam int IPV4_HDR_BYTES = 20;  // without options
  localparam int IPV6_HDR_BYTES = 40;
  localparam int UDP_HDR_BYTES  = 8;
  localparam int VXLAN_HDR_BYTES = 8;

  // ---------------------------------------------------------------- headers
  typedef struct packed {
    logic [47:0] dst_mac;
    logic [47:0] src_mac;
    logic [15:0] ethertype;
  } eth_hdr_t;

  typedef struct packed {
    logic [2:0]  pcp;
    logic        dei;
    logic [11:0] vid;
    logic [15:0] ethertype;  // the encapsulated EtherType
  } vlan_tag_t;              // the 4 bytes after the outer 0x8100

  typedef struct packed {
    logic [3:0]  version;
    logic [3:0]  ihl;
    logic [5:0]  dscp;
    logic [1:0]  ecn;
    logic [15:0] total_length;
    logic [15:0] identification;
    logic [2:0]  flags;      // reserved, DF, MF
    logic [12:0] frag_offset;
    logic [7:0]  ttl;
    logic [7:0]  protocol;
    logic [15:0] checksum;
    logic [31:0] src_ip;
    logic [31:0] dst_ip;
  } ipv4_hdr_t;

  typedef struct packed {
    logic [3:0]   version;
    logic [5:0]   dscp;      // traffic class, upper 6 bits
    logic [1:0]   ecn;       // traffic class, lower 2 bits
    logic [19:0]  flow_label;
    logic [15:0]  payload_length;
    logic [7:0]   next_header;
    logic [7:0]   hop_limit;
    logic [127:0] src_ip;
    logic [127:0] dst_ip;
  } ipv6_hdr_t;

  typedef struct packed {
    logic [15:0] src_port;
    logic [15:0] dst_port;
    logic [15:0] length;
    logic [15:0] checksum;
  } udp_hdr_t;

  typedef struct packed {
    logic [7:0]  flags;      // 0x08: VNI valid (I bit)
    logic [23:0] rsvd0;
    logic [23:0] vni;
    logic [7:0]  rsvd1;
  } vxlan_hdr_t;

  // ECN codepoints (RFC 3168)
  localparam logic [1:0] ECN_NOT_ECT = 2'b00;
  localparam logic [1:0] ECN_ECT1    = 2'b01;
  localparam logic [1:0] ECN_ECT0    = 2'b10;
  localparam logic [1:0] ECN_CE      = 2'b11;

  // ---------------------------------------------------------------- metadata
  // Error/flag bits reported by the parser (one bit per drop reason). The parser
  // counts each reason separately; see docs/pkt.md.
  typedef struct packed {
    logic runt;            // frame ends inside the headers it announces
    logic ip_version;      // EtherType says IPv4/IPv6 but the version field disagrees
    logic ipv4_ihl;        // IHL < 5
    logic ipv4_csum;       // IPv4 header checksum wrong
    logic ip_length;       // IP length field larger than the frame (truncated)
    logic udp_length;      // UDP length disagrees with the IP payload length
  } pkt_err_t;

  // Parser output / builder input. IPv4 addresses sit in the low 32 bits of the
  // 128-bit fields. Offsets are byte offsets from the first byte of the frame.
  typedef struct packed {
    logic [47:0]  dst_mac;
    logic [47:0]  src_mac;
    logic         vlan_valid;
    logic [2:0]   vlan_pcp;
    logic [11:0]  vlan_vid;
    logic [15:0]  ethertype;     // inner EtherType when VLAN-tagged
    logic         is_ipv4;
    logic         is_ipv6;
    logic [5:0]   dscp;
    logic [1:0]   ecn;
    logic [7:0]   ttl;           // hop limit for IPv6
    logic [7:0]   ip_proto;      // next header for IPv6
    logic [19:0]  flow_label;
    logic [127:0] src_ip;
    logic [127:0] dst_ip;
    logic         ip_frag;       // IPv4 MF set or fragment offset != 0 (flagged, not dropped)
    logic         is_udp;
    logic [15:0]  src_port;
    logic [15:0]  dst_port;
    logic [15:0]  udp_checksum;
    logic [7:0]   l3_offset;     // 14 or 18
    logic [7:0]   l4_offset;     // l3_offset + IP header length (incl. IPv4 options)
    logic [7:0]   payload_offset;// first byte after the last parsed header
    logic [15:0]  payload_len;   // bytes after the last parsed header, per the length fields
    pkt_err_t     err;
  } pkt_meta_t;

  // ---------------------------------------------------------------- RoCEv2 (IBTA vol. 1 ch. 9, A17)
  // Added by the pkt layer; network order like the structs above.
  localparam int BTH_BYTES          = 12;
  localparam int RETH_BYTES         = 16;
  localparam int AETH_BYTES         = 4;
  localparam int IMMDT_BYTES        = 4;
  localparam int IETH_BYTES         = 4;
  localparam int ATOMIC_ETH_BYTES   = 28;
  localparam int ATOMIC_ACK_ETH_BYTES = 8;
  localparam int CNP_PAD_BYTES      = 16;   // reserved bytes after a CNP's BTH
  localparam int ICRC_BYTES         = 4;

  typedef struct packed {
    logic [7:0]  opcode;
    logic        se;         // solicited event
    logic        migreq;
    logic [1:0]  pad_count;
    logic [3:0]  tver;       // transport header version (0)
    logic [15:0] pkey;
    logic        fecn;
    logic        becn;
    logic [5:0]  rsvd6;
    logic [23:0] dest_qp;
    logic        ack_req;
    logic [6:0]  rsvd7;
    logic [23:0] psn;
  } bth_t;

  typedef struct packed {
    logic [63:0] va;
    logic [31:0] rkey;
    logic [31:0] dma_len;
  } reth_t;

  typedef struct packed {
    logic [7:0]  syndrome;   // 7:5 = 000 ACK, 001 RNR NAK, 011 NAK; 4:0 credit/timer/code
    logic [23:0] msn;
  } aeth_t;

  typedef struct packed {
    logic [31:0] imm;
  } immdt_t;

  typedef struct packed {
    logic [31:0] rkey;
  } ieth_t;

  typedef struct packed {
    logic [63:0] va;
    logic [31:0] rkey;
    logic [63:0] swap_add;
    logic [63:0] compare;
  } atomic_eth_t;

  typedef struct packed {
    logic [63:0] orig_data;
  } atomic_ack_eth_t;

  // RC opcodes (UC = same low 5 bits + 0x20)
  localparam logic [7:0] OP_SEND_FIRST        = 8'h00;
  localparam logic [7:0] OP_SEND_MIDDLE       = 8'h01;
  localparam logic [7:0] OP_SEND_LAST         = 8'h02;
  localparam logic [7:0] OP_SEND_LAST_IMM     = 8'h03;
  localparam logic [7:0] OP_SEND_ONLY         = 8'h04;
  localparam logic [7:0] OP_SEND_ONLY_IMM     = 8'h05;
  localparam logic [7:0] OP_WRITE_FIRST       = 8'h06;
  localparam logic [7:0] OP_WRITE_MIDDLE      = 8'h07;
  localparam logic [7:0] OP_WRITE_LAST        = 8'h08;
  localparam logic [7:0] OP_WRITE_LAST_IMM    = 8'h09;
  localparam logic [7:0] OP_WRITE_ONLY        = 8'h0A;
  localparam logic [7:0] OP_WRITE_ONLY_IMM    = 8'h0B;
  localparam logic [7:0] OP_READ_REQUEST      = 8'h0C;
  localparam logic [7:0] OP_READ_RESP_FIRST   = 8'h0D;
  localparam logic [7:0] OP_READ_RESP_MIDDLE  = 8'h0E;
  localparam logic [7:0] OP_READ_RESP_LAST    = 8'h0F;
  localparam logic [7:0] OP_READ_RESP_ONLY    = 8'h10;
  localparam logic [7:0] OP_ACK               = 8'h11;
  localparam logic [7:0] OP_ATOMIC_ACK        = 8'h12;
  localparam logic [7:0] OP_COMPARE_SWAP      = 8'h13;
  localparam logic [7:0] OP_FETCH_ADD         = 8'h14;
  localparam logic [7:0] OP_SEND_LAST_INV     = 8'h16;
  localparam logic [7:0] OP_SEND_ONLY_INV     = 8'h17;
  localparam logic [7:0] OP_CNP               = 8'h81;

endpackage

`resetall
