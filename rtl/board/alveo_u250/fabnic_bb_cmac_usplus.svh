// SPDX-License-Identifier: Apache-2.0
//
// fabnic_bb_cmac_usplus.svh: black-box stub of `cmac_usplus_0`, the AMD UltraScale+
// Devices Integrated 100G Ethernet Subsystem (IP xilinx.com:ip:cmac_usplus) as
// fpga/alveo_u250/build.tcl configures it, so that Verilator can lint fabnic_u250_top.
// In Vivado the generated IP of the same name is used instead: fabnic_u250_top
// `includes this file only when FABNIC_VENDOR_IP is not defined, and the Vivado flow
// defines it. Not a fabnic_ module on purpose (the name must be the IP's module name,
// the -module_name given to create_ip).
//
// Configuration (build.tcl): CAUI-4, 4 x 25.78125 Gb/s on GTY X1Y44..X1Y47 (QSFP0,
// quad 231), GT reference clock 161.1328125 MHz, AXI-Stream user interface (512 bits,
// gt_txusrclk2 = 322.265625 MHz; RX user side clocked by rx_clk = gt_txusrclk2 through
// the core's RX FIFO), no AXI4-Lite (static ctl_* ports), RS-FEC included (Clause 91),
// no pause/PFC, no PTP, no OTN.
//
// Port names: PG203 v3.1 (UltraScale+ Devices Integrated 100G Ethernet Subsystem
// Product Guide), "Port Descriptions" and "CORE XCI Top-Level Port List" (sys_reset,
// gt_ref_clk_p/n, init_clk, gt_loopback_in [11:0] for CAUI-4, gt_rxrecclkout [3:0],
// gt_ref_clk_out, gt_powergoodout [3:0] were read from that table); the AXI-Stream,
// ctl_*, RS-FEC ctl_*, DRP and stat_* names were cross-checked against public
// instantiations of this IP in the same configuration (not copied).
//
// Subset included: every input of this configuration; the outputs fabnic_u250_top
// uses (gt_txusrclk2, usr_tx_reset, usr_rx_reset, rx_axis_*, tx_axis_tready,
// stat_rx_aligned, tx_unfout) and a few status outputs it ties off. Left out: the
// ~150 per-lane and per-size stat_* outputs (stat_rx_pcsl_*, stat_rx_bip_err_*,
// stat_rx_framing_err_*, stat_*_packet_*_bytes, ...), stat_rx_rsfec_*, rx_otn_*:
// unconnected outputs of the real IP are legal. Check the list against the generated
// cmac_usplus_0_stub.v after create_ip (not verified with Vivado here).
//
// No `resetall here: included text (see fabnic_bb_ibufds_gte4.svh).
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
(* blackbox *)
module cmac_usplus_0 (
    // transceivers and clocks
    input  wire logic [3:0]   gt_rxp_in,
    input  wire logic [3:0]   gt_rxn_in,
    output logic      [3:0]   gt_txp_out,
    output logic      [3:0]   gt_txn_out,
    output logic              gt_txusrclk2,       // 322.265625 MHz user clock
    output logic              gt_rxusrclk2,
    input  wire logic [11:0]  gt_loopback_in,
    output logic      [3:0]   gt_rxrecclkout,
    output logic      [3:0]   gt_powergoodout,
    output logic              gt_ref_clk_out,
    input  wire logic         gtwiz_reset_tx_datapath,
    input  wire logic         gtwiz_reset_rx_datapath,
    input  wire logic         sys_reset,          // async, active high
    input  wire logic         gt_ref_clk_p,
    input  wire logic         gt_ref_clk_n,
    input  wire logic         init_clk,           // free-running GT init / DRP clock

    // RX user side (rx_clk)
    output logic              rx_axis_tvalid,
    output logic      [511:0] rx_axis_tdata,
    output logic              rx_axis_tlast,
    output logic      [63:0]  rx_axis_tkeep,
    output logic              rx_axis_tuser,      // bad frame (last beat)
    output logic      [55:0]  rx_preambleout,
    output logic              usr_rx_reset,
    input  wire logic         rx_clk,
    input  wire logic         core_rx_reset,
    input  wire logic         ctl_rx_enable,
    input  wire logic         ctl_rx_force_resync,
    input  wire logic         ctl_rx_test_pattern,
    output logic              stat_rx_aligned,
    output logic              stat_rx_aligned_err,
    output logic              stat_rx_status,
    output logic              stat_rx_local_fault,
    output logic              stat_rx_remote_fault,
    output logic              stat_rx_hi_ber,
    output logic      [2:0]   stat_rx_bad_fcs,
    output logic      [2:0]   stat_rx_total_packets,

    // TX user side (gt_txusrclk2)
    output logic              tx_axis_tready,
    input  wire logic         tx_axis_tvalid,
    input  wire logic [511:0] tx_axis_tdata,
    input  wire logic         tx_axis_tlast,
    input  wire logic [63:0]  tx_axis_tkeep,
    input  wire logic         tx_axis_tuser,      // bad frame: sent with a stomped FCS
    output logic              tx_ovfout,
    output logic              tx_unfout,          // underflow: gap inside a frame
    input  wire logic [55:0]  tx_preamblein,
    output logic              usr_tx_reset,
    input  wire logic         core_tx_reset,
    input  wire logic         ctl_tx_enable,
    input  wire logic         ctl_tx_test_pattern,
    input  wire logic         ctl_tx_send_idle,
    input  wire logic         ctl_tx_send_rfi,
    input  wire logic         ctl_tx_send_lfi,
    output logic              stat_tx_total_packets,
    output logic              stat_tx_frame_error,

    // RS-FEC (INCLUDE_RS_FEC = 1, static control)
    input  wire logic         ctl_rsfec_ieee_error_indication_mode,
    input  wire logic         ctl_rx_rsfec_enable,
    input  wire logic         ctl_rx_rsfec_enable_correction,
    input  wire logic         ctl_rx_rsfec_enable_indication,
    input  wire logic         ctl_tx_rsfec_enable,

    // DRP (unused, tied off)
    input  wire logic         core_drp_reset,
    input  wire logic         drp_clk,
    input  wire logic [9:0]   drp_addr,
    input  wire logic [15:0]  drp_di,
    input  wire logic         drp_en,
    output logic      [15:0]  drp_do,
    output logic              drp_rdy,
    input  wire logic         drp_we
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on DECLFILENAME */
