// SPDX-License-Identifier: Apache-2.0
//
// fabnic_bb_ibufds_gte4.svh: black-box stub of the UltraScale+ transceiver reference
// clock input buffer IBUFDS_GTE4 (UNISIM primitive; UG578 "Reference Clock Input
// Structure", UG974 "IBUFDS_GTE4"), so that Verilator can lint fabnic_u250_top.
//
// Not a fabnic_ module on purpose: the name is the primitive's, so in Vivado the real
// primitive is used. fabnic_u250_top `includes this file only when FABNIC_VENDOR_IP is
// not defined (the Vivado flow defines it). Ports: all four of the primitive; the three
// attributes the PCIe example designs set. No `resetall here: this text is included in
// the middle of fabnic_u250_top.sv and must not reset its `default_nettype.
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNDRIVEN */
(* blackbox *)
module IBUFDS_GTE4 #(
    parameter logic       REFCLK_EN_TX_PATH  = 1'b0,
    parameter logic [1:0] REFCLK_HROW_CK_SEL = 2'b00,  // ODIV2 = O / 1 (00) or O / 2 (01)
    parameter logic [1:0] REFCLK_ICNTL_RX    = 2'b00
) (
    input  wire logic I,
    input  wire logic IB,
    input  wire logic CEB,
    output logic      O,
    output logic      ODIV2
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on DECLFILENAME */
