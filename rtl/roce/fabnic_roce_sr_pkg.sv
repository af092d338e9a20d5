// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_sr_pkg: selective-repeat (SR) transport constants (docs/roce_sr.md):
// the receive-window classification of fabnic_roce_sr_window and the vendor
// opcode / extension header layouts of the SR wire encoding.
`default_nettype none

package fabnic_roce_sr_pkg;

  // Classification of a request packet by the SR receive window.
  typedef enum logic [2:0] {
    SR_NEW_IN_ORDER     = 3'd0,  // psn == epsn: execute, epsn advances
    SR_NEW_OUT_OF_ORDER = 3'd1,  // epsn < psn < epsn+W, not seen: place, bit set
    SR_DUPLICATE        = 3'd2,  // behind epsn, or in the window and already received
    SR_BEYOND_WINDOW    = 3'd3,  // psn >= epsn+W (and not behind): drop
    SR_ORDERED_EARLY    = 3'd4   // READ/atomic request ahead of epsn: drop, not marked
  } sr_class_e;

  // Manufacturer-specific BTH opcodes (IBTA: 0xC0-0xFF reserved for vendors).
  localparam logic [7:0] OP_SR_SACK = 8'hC0;  // BTH + AETH + SACKETH (+ ICRC)

  // SOFFETH: after BTH of every SEND packet of an SR QP (8 bytes).
  typedef struct packed {
    logic [31:0] msg_offset;  // byte offset of this packet's payload in the message
    logic [7:0]  rsvd;        // 0
    logic [23:0] ssn;         // index (mod 2^24) of the receive WQE the message consumes
  } soffeth_t;

  // SACKETH: after AETH of an OP_SR_SACK packet (24 bytes, two blocks).
  typedef struct packed {
    logic [7:0]  rsvd0;       // 0
    logic [23:0] base_psn;    // block 0 base: the first missing PSN (= AETH PSN + 1)
    logic [63:0] bitmap0;     // bit i (LSB = bit 0 of the last byte) : base_psn+i received
    logic [7:0]  nblk;        // blocks that follow block 0: 0 or 1
    logic [23:0] base_psn1;   // block 1 base (ignored when nblk = 0)
    logic [63:0] bitmap1;
  } sacketh_t;

endpackage

`resetall
