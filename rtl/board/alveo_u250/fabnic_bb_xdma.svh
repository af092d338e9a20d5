// SPDX-License-Identifier: Apache-2.0
//
// fabnic_bb_xdma.svh: black-box stub of `xdma_0`, the AMD DMA/Bridge Subsystem for PCI
// Express (IP xilinx.com:ip:xdma) as fpga/alveo_u250/build.tcl configures it, so that
// fabnic_u250_top can be linted with Verilator. In Vivado the generated IP of the same
// name is used instead: fabnic_u250_top `includes this file only when FABNIC_VENDOR_IP is not
// defined, and the Vivado flow defines it. Not a fabnic_ module on purpose (the name
// must be the IP's module name, the -module_name given to create_ip).
//
// Configuration (build.tcl): functional mode "AXI Bridge", PCIe Endpoint, Gen3 (8 GT/s)
// x16, 100 MHz reference clock, AXI data width 512 bits at 250 MHz, AXI address width
// 64; one PCIe BAR (BAR0, 64-bit, 64 MB) onto the AXI master bridge M_AXI_B with
// translation 0; one AXI BAR covering the whole 64-bit space onto PCIe with translation
// 0 (the AXI slave bridge S_AXI_B passes host addresses through); 16 user interrupts,
// MSI.
//
// Port names and meanings: PG195 v4.1/v4.2 (DMA/Bridge Subsystem for PCI Express
// Product Guide), "XDMA Global Ports" and "Interrupt Interface"; PG194 v3.0 (AXI Bridge
// for PCI Express Gen3 Subsystem Product Guide), which documents this IP in AXI Bridge
// mode: "Global Signals", "DMA/Bridge Subsystem for PCIe in Bridge Mode Interrupt
// Signals", the AXI4 slave bridge (s_axib_*), AXI4 master bridge (m_axib_*) and
// AXI4-Lite slave (s_axil_*) port tables.
//
// Subset included: all inputs of this configuration, and the outputs fabnic_u250_top
// uses or ties off. Left out: the optional parity sidebands (s_axib_wuser/ruser,
// m_axib_wuser/ruser: parity not enabled), m_axib_aruser/awuser, msix_enable (MSI-X
// not enabled), the configuration-management, transceiver-debug and PCIe-status ports
// that this configuration does not enable. The widths of the ID buses (S_AXI_B: 5 bits,
// M_AXI_B: 4 bits) follow the configuration; check them against the generated
// xdma_0_stub.v after create_ip (see docs/synthesis.md: not verified with Vivado here).
//
// No `resetall here: included text (see fabnic_bb_ibufds_gte4.svh).
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
(* blackbox *)
module xdma_0 (
    // global (PG194 "Global Signals", PG195 "XDMA Global Ports")
    input  wire logic         sys_clk,           // IBUFDS_GTE4 ODIV2 (100 MHz)
    input  wire logic         sys_clk_gt,        // IBUFDS_GTE4 O
    input  wire logic         sys_rst_n,         // PERST# from the edge connector
    output logic              user_lnk_up,
    output logic      [15:0]  pci_exp_txp,
    output logic      [15:0]  pci_exp_txn,
    input  wire logic [15:0]  pci_exp_rxp,
    input  wire logic [15:0]  pci_exp_rxn,
    output logic              axi_aclk,          // 250 MHz, all AXI ports below
    output logic              axi_aresetn,
    output logic              axi_ctl_aresetn,   // reset of s_axil_*
    output logic              interrupt_out,

    // user interrupts (PG195 "Interrupt Interface", PG194 bridge-mode interrupts)
    input  wire logic [15:0]  usr_irq_req,
    output logic      [15:0]  usr_irq_ack,
    output logic              msi_enable,

    // AXI4 slave bridge S_AXI_B: user logic -> host memory
    input  wire logic [4:0]   s_axib_awid,
    input  wire logic [63:0]  s_axib_awaddr,
    input  wire logic [3:0]   s_axib_awregion,
    input  wire logic [7:0]   s_axib_awlen,
    input  wire logic [2:0]   s_axib_awsize,
    input  wire logic [1:0]   s_axib_awburst,
    input  wire logic         s_axib_awvalid,
    output logic              s_axib_awready,
    input  wire logic [511:0] s_axib_wdata,
    input  wire logic [63:0]  s_axib_wstrb,
    input  wire logic         s_axib_wlast,
    input  wire logic         s_axib_wvalid,
    output logic              s_axib_wready,
    output logic      [4:0]   s_axib_bid,
    output logic      [1:0]   s_axib_bresp,
    output logic              s_axib_bvalid,
    input  wire logic         s_axib_bready,
    input  wire logic [4:0]   s_axib_arid,
    input  wire logic [63:0]  s_axib_araddr,
    input  wire logic [3:0]   s_axib_arregion,
    input  wire logic [7:0]   s_axib_arlen,
    input  wire logic [2:0]   s_axib_arsize,
    input  wire logic [1:0]   s_axib_arburst,
    input  wire logic         s_axib_arvalid,
    output logic              s_axib_arready,
    output logic      [4:0]   s_axib_rid,
    output logic      [511:0] s_axib_rdata,
    output logic      [1:0]   s_axib_rresp,
    output logic              s_axib_rlast,
    output logic              s_axib_rvalid,
    input  wire logic         s_axib_rready,

    // AXI4 master bridge M_AXI_B: host (BAR0) -> user logic
    output logic      [3:0]   m_axib_awid,
    output logic      [63:0]  m_axib_awaddr,
    output logic      [7:0]   m_axib_awlen,
    output logic      [2:0]   m_axib_awsize,
    output logic      [1:0]   m_axib_awburst,
    output logic      [2:0]   m_axib_awprot,
    output logic              m_axib_awlock,
    output logic      [3:0]   m_axib_awcache,
    output logic              m_axib_awvalid,
    input  wire logic         m_axib_awready,
    output logic      [511:0] m_axib_wdata,
    output logic      [63:0]  m_axib_wstrb,
    output logic              m_axib_wlast,
    output logic              m_axib_wvalid,
    input  wire logic         m_axib_wready,
    input  wire logic [3:0]   m_axib_bid,
    input  wire logic [1:0]   m_axib_bresp,
    input  wire logic         m_axib_bvalid,
    output logic              m_axib_bready,
    output logic      [3:0]   m_axib_arid,
    output logic      [63:0]  m_axib_araddr,
    output logic      [7:0]   m_axib_arlen,
    output logic      [2:0]   m_axib_arsize,
    output logic      [1:0]   m_axib_arburst,
    output logic      [2:0]   m_axib_arprot,
    output logic              m_axib_arlock,
    output logic      [3:0]   m_axib_arcache,
    output logic              m_axib_arvalid,
    input  wire logic         m_axib_arready,
    input  wire logic [3:0]   m_axib_rid,
    input  wire logic [511:0] m_axib_rdata,
    input  wire logic [1:0]   m_axib_rresp,
    input  wire logic         m_axib_rlast,
    input  wire logic         m_axib_rvalid,
    output logic              m_axib_rready,

    // AXI4-Lite slave S_AXI_LITE: the bridge's own registers (unused, tied off)
    input  wire logic [31:0]  s_axil_awaddr,
    input  wire logic [2:0]   s_axil_awprot,
    input  wire logic         s_axil_awvalid,
    output logic              s_axil_awready,
    input  wire logic [31:0]  s_axil_wdata,
    input  wire logic [3:0]   s_axil_wstrb,
    input  wire logic         s_axil_wvalid,
    output logic              s_axil_wready,
    output logic      [1:0]   s_axil_bresp,
    output logic              s_axil_bvalid,
    input  wire logic         s_axil_bready,
    input  wire logic [31:0]  s_axil_araddr,
    input  wire logic [2:0]   s_axil_arprot,
    input  wire logic         s_axil_arvalid,
    output logic              s_axil_arready,
    output logic      [31:0]  s_axil_rdata,
    output logic      [1:0]   s_axil_rresp,
    output logic              s_axil_rvalid,
    input  wire logic         s_axil_rready
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on DECLFILENAME */
