// SPDX-License-Identifier: Apache-2.0
//
// fabnic_bb_ibufds.svh: black-box stub of the differential input buffer IBUFDS (UNISIM
// primitive; UG974 "IBUFDS"), so that Verilator can lint fabnic_u250_top.
//
// Not a fabnic_ module on purpose: the name is the primitive's, so in Vivado the real
// primitive is used. Included by fabnic_u250_top only when FABNIC_VENDOR_IP is not
// defined. Ports: I, IB, O; no attribute is set (the I/O standard comes from the XDC).
// No `resetall here: included text (see fabnic_bb_ibufds_gte4.svh).
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
(* blackbox *)
module IBUFDS (
    input  wire logic I,
    input  wire logic IB,
    output logic      O
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on DECLFILENAME */
