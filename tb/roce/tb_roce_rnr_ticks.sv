// SPDX-License-Identifier: Apache-2.0
// Testbench wrapper: the completer's RNR NAK timer table (fabnic_roce_cpl_pkg::rnr_ticks),
// one 5-bit code in, its wait in retransmission-timer ticks out (combinational).
`default_nettype none

module tb_roce_rnr_ticks (
    input  wire logic [4:0]                               code,
    output logic [fabnic_roce_cpl_pkg::RNR_TICK_W-1:0]    ticks
);
  assign ticks = fabnic_roce_cpl_pkg::rnr_ticks(code);
endmodule

`resetall
