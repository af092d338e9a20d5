# SPDX-License-Identifier: Apache-2.0
#
# AMD Alveo U250 (A-U250-P64G / A-U250-A64G), part xcu250-figd2104-2L-e: pins and clocks
# of the board top rtl/board/alveo_u250/fabnic_u250_top.sv (port names are the top's).
# Flow: fpga/alveo_u250/build.tcl. Clock-crossing constraints of the fabnic CDC
# primitives are in fpga/alveo_u250/cdc.tcl (they need Tcl loops, which an XDC cannot
# hold).
#
# Sources (written for this project from the facts in these documents, not copied):
#   [MXDC] AMD "AU200/250 - Master XDC", Revision 2.04 (the board's master constraint
#          file that AMD publishes for the U200/U250 and reproduces as Appendix A of
#          UG1289). Read through verbatim copies kept in public repositories (AMD's site
#          is not reachable from this machine); Revision 2.02 was compared as well.
#          Its pin names are given in U200 bank numbering; the two cards are pin
#          compatible (the file's own note).
#   [UG1289] Alveo U200 and U250 Data Center Accelerator Cards User Guide, UG1289
#          v1.1.1 (November 20, 2019), Chapter 3 "QSFP28 Module Connectors" (clock
#          generators per cage, sideband signals reach the FPGA).
#   [CRD]  Corundum, fpga/mqnic/AU250/fpga_100g/fpga.xdc and ip/cmac_usplus_0.tcl
#          (github.com/corundum/corundum), used only to cross-check [MXDC]: every pin
#          below matches it.
#
# What was NOT verified (no Vivado run, no board here): see the end of this file and
# docs/synthesis.md, "Alveo U250 board target".

# ------------------------------------------------------------------------------------
# Configuration and bitstream [MXDC "Bitstream Generation for QSPI", Rev 2.04]
# (SPI_OPCODE was removed from the master file in Rev 2.04 and is not set here.)
# ------------------------------------------------------------------------------------
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK ENABLE    [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN DISABLE [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8          [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP         [current_design]

# [MXDC key note 1] warn when the design may exceed the card's power limit (assumes the
# 2x4 PCIe AUX power cable is connected)
set_operating_conditions -design_power_budget 160

# ------------------------------------------------------------------------------------
# System clocks [MXDC "Clock Trees" and "LVDS Input SYSTEM CLOCKS"]
# ------------------------------------------------------------------------------------
# USER_SI570_CLOCK: SI570 (156.25 MHz default, reprogrammable over I2C) through an
# SI53340 buffer, bank 64 global clock input IO_L12P/N_T1U_N10/11_GC_64. The design's
# init clock (CMAC init_clk, power-on reset, QSFP sideband, LEDs).
set_property -dict {PACKAGE_PIN AU19 IOSTANDARD LVDS} [get_ports user_clk_p]
set_property -dict {PACKAGE_PIN AV19 IOSTANDARD LVDS} [get_ports user_clk_n]
create_clock -period 6.400 -name user_clk [get_ports user_clk_p]

# Not used by this design (no port): the 300 MHz DDR4 reference clocks from the
# SI5335A OUT0 through an SI53340 1:4 buffer [MXDC]:
#   SYSCLK0_300 P/N  AY37 / AY38   (U250 bank 63; DIFF_POD12_DCI in [MXDC])
#   SYSCLK1_300 P/N  AW20 / AW19   (bank 64, LVDS)
#   SYSCLK2_300 P/N  F32  / E32    (U250 bank 70; DIFF_POD12_DCI)
#   SYSCLK3_300 P/N  J16  / H16    (U250 bank 72; DIFF_POD12_DCI)

# ------------------------------------------------------------------------------------
# PCIe Gen3 x16 edge connector [MXDC "PCIe Clocks", "PCIe Connections", "MGT
# Connections"]: lanes on GTY quads 224..227, lane 0 on MGTY*3_227 (the quads are
# taken in reverse, as [MXDC] lists them). The PCIe hard block and GT quad are chosen
# in the XDMA IP configuration (build.tcl); these pins must agree with it.
# ------------------------------------------------------------------------------------
# PEX_REFCLK, 100 MHz from the host: MGTREFCLK0_226
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AM10 [get_ports pcie_refclk_n]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]

# PERST#: net PCIE_PERST_LS, bank 64 (1.2 V) IO_L23P_T3U_N8_64, active low
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12} [get_ports pcie_perst_n]
# keep the endpoint in reset when the pin floats (not in [MXDC]; [CRD] does the same)
set_property PULLUP true [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]

# lanes 0-3: quad 227
set_property PACKAGE_PIN AF2 [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN AF1 [get_ports {pcie_rx_n[0]}]
set_property PACKAGE_PIN AF7 [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AF6 [get_ports {pcie_tx_n[0]}]
set_property PACKAGE_PIN AG4 [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AG3 [get_ports {pcie_rx_n[1]}]
set_property PACKAGE_PIN AG9 [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AG8 [get_ports {pcie_tx_n[1]}]
set_property PACKAGE_PIN AH2 [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AH1 [get_ports {pcie_rx_n[2]}]
set_property PACKAGE_PIN AH7 [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AH6 [get_ports {pcie_tx_n[2]}]
set_property PACKAGE_PIN AJ4 [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AJ3 [get_ports {pcie_rx_n[3]}]
set_property PACKAGE_PIN AJ9 [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AJ8 [get_ports {pcie_tx_n[3]}]
# lanes 4-7: quad 226
set_property PACKAGE_PIN AK2 [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AK1 [get_ports {pcie_rx_n[4]}]
set_property PACKAGE_PIN AK7 [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AK6 [get_ports {pcie_tx_n[4]}]
set_property PACKAGE_PIN AL4 [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AL3 [get_ports {pcie_rx_n[5]}]
set_property PACKAGE_PIN AL9 [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AL8 [get_ports {pcie_tx_n[5]}]
set_property PACKAGE_PIN AM2 [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AM1 [get_ports {pcie_rx_n[6]}]
set_property PACKAGE_PIN AM7 [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AM6 [get_ports {pcie_tx_n[6]}]
set_property PACKAGE_PIN AN4 [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AN3 [get_ports {pcie_rx_n[7]}]
set_property PACKAGE_PIN AN9 [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AN8 [get_ports {pcie_tx_n[7]}]
# lanes 8-11: quad 225
set_property PACKAGE_PIN AP2 [get_ports {pcie_rx_p[8]}]
set_property PACKAGE_PIN AP1 [get_ports {pcie_rx_n[8]}]
set_property PACKAGE_PIN AP7 [get_ports {pcie_tx_p[8]}]
set_property PACKAGE_PIN AP6 [get_ports {pcie_tx_n[8]}]
set_property PACKAGE_PIN AR4 [get_ports {pcie_rx_p[9]}]
set_property PACKAGE_PIN AR3 [get_ports {pcie_rx_n[9]}]
set_property PACKAGE_PIN AR9 [get_ports {pcie_tx_p[9]}]
set_property PACKAGE_PIN AR8 [get_ports {pcie_tx_n[9]}]
set_property PACKAGE_PIN AT2 [get_ports {pcie_rx_p[10]}]
set_property PACKAGE_PIN AT1 [get_ports {pcie_rx_n[10]}]
set_property PACKAGE_PIN AT7 [get_ports {pcie_tx_p[10]}]
set_property PACKAGE_PIN AT6 [get_ports {pcie_tx_n[10]}]
set_property PACKAGE_PIN AU4 [get_ports {pcie_rx_p[11]}]
set_property PACKAGE_PIN AU3 [get_ports {pcie_rx_n[11]}]
set_property PACKAGE_PIN AU9 [get_ports {pcie_tx_p[11]}]
set_property PACKAGE_PIN AU8 [get_ports {pcie_tx_n[11]}]
# lanes 12-15: quad 224
set_property PACKAGE_PIN AV2 [get_ports {pcie_rx_p[12]}]
set_property PACKAGE_PIN AV1 [get_ports {pcie_rx_n[12]}]
set_property PACKAGE_PIN AV7 [get_ports {pcie_tx_p[12]}]
set_property PACKAGE_PIN AV6 [get_ports {pcie_tx_n[12]}]
set_property PACKAGE_PIN AW4 [get_ports {pcie_rx_p[13]}]
set_property PACKAGE_PIN AW3 [get_ports {pcie_rx_n[13]}]
set_property PACKAGE_PIN BB5 [get_ports {pcie_tx_p[13]}]
set_property PACKAGE_PIN BB4 [get_ports {pcie_tx_n[13]}]
set_property PACKAGE_PIN BA2 [get_ports {pcie_rx_p[14]}]
set_property PACKAGE_PIN BA1 [get_ports {pcie_rx_n[14]}]
set_property PACKAGE_PIN BD5 [get_ports {pcie_tx_p[14]}]
set_property PACKAGE_PIN BD4 [get_ports {pcie_tx_n[14]}]
set_property PACKAGE_PIN BC2 [get_ports {pcie_rx_p[15]}]
set_property PACKAGE_PIN BC1 [get_ports {pcie_rx_n[15]}]
set_property PACKAGE_PIN BF5 [get_ports {pcie_tx_p[15]}]
set_property PACKAGE_PIN BF4 [get_ports {pcie_tx_n[15]}]

# ------------------------------------------------------------------------------------
# QSFP28 cage 0: the NIC's 100 G port [MXDC "QSFP0", UG1289 ch. 3]
# GTY quad 231 (GTYE4_CHANNEL_X1Y44..X1Y47 per [CRD]; the CMAC's GT_GROUP_SELECT in
# build.tcl), module lane n on MGTY*(n-1)_231.
# ------------------------------------------------------------------------------------
# QSFP0_CLOCK: SI5335A OUT1, AC-coupled LVDS, on MGTREFCLK1_231. Frequency set by
# QSFP0_FS[1:0]: 1x = 161.1328125 MHz (also the value with the pins floating, 10k
# pull-ups), 01 = 156.25 MHz [MXDC]. The top drives FS = 2'b10: 161.1328125 MHz, the
# CMAC's CAUI-4 reference. (UG1289 v1.1.1 ch. 3 names 156.25 MHz for this clock; [MXDC]
# and [CRD] both give the FS table above, which the design relies on.)
set_property PACKAGE_PIN K11 [get_ports qsfp0_refclk_p]
set_property PACKAGE_PIN K10 [get_ports qsfp0_refclk_n]
create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
# Not used: MGT_SI570_CLOCK0 (156.25 MHz from the SI570/SI53340 OUT2) on MGTREFCLK0_231,
# M11 (P) / M10 (N) [MXDC].

set_property PACKAGE_PIN N4 [get_ports {qsfp0_rx_p[0]}]
set_property PACKAGE_PIN N3 [get_ports {qsfp0_rx_n[0]}]
set_property PACKAGE_PIN N9 [get_ports {qsfp0_tx_p[0]}]
set_property PACKAGE_PIN N8 [get_ports {qsfp0_tx_n[0]}]
set_property PACKAGE_PIN M2 [get_ports {qsfp0_rx_p[1]}]
set_property PACKAGE_PIN M1 [get_ports {qsfp0_rx_n[1]}]
set_property PACKAGE_PIN M7 [get_ports {qsfp0_tx_p[1]}]
set_property PACKAGE_PIN M6 [get_ports {qsfp0_tx_n[1]}]
set_property PACKAGE_PIN L4 [get_ports {qsfp0_rx_p[2]}]
set_property PACKAGE_PIN L3 [get_ports {qsfp0_rx_n[2]}]
set_property PACKAGE_PIN L9 [get_ports {qsfp0_tx_p[2]}]
set_property PACKAGE_PIN L8 [get_ports {qsfp0_tx_n[2]}]
set_property PACKAGE_PIN K2 [get_ports {qsfp0_rx_p[3]}]
set_property PACKAGE_PIN K1 [get_ports {qsfp0_rx_n[3]}]
set_property PACKAGE_PIN K7 [get_ports {qsfp0_tx_p[3]}]
set_property PACKAGE_PIN K6 [get_ports {qsfp0_tx_n[3]}]

# sideband, bank 64 (1.2 V), through level shifters on the card [MXDC "QSFP0 Control"]:
# ResetL (out, active low), ModPrsL (in, active low), IntL (in, active low), LPMode
# (out, active high), ModSelL (out, active low)
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12} [get_ports qsfp0_resetl]
set_property -dict {PACKAGE_PIN BE20 IOSTANDARD LVCMOS12} [get_ports qsfp0_modprsl]
set_property -dict {PACKAGE_PIN BE21 IOSTANDARD LVCMOS12} [get_ports qsfp0_intl]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12} [get_ports qsfp0_lpmode]
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12} [get_ports qsfp0_modsell]
# SI5335A frequency select and reset (drive high to change FS) [MXDC "QSFP0 Clock Control"]
set_property -dict {PACKAGE_PIN AT20 IOSTANDARD LVCMOS12} [get_ports {qsfp0_fs[0]}]
set_property -dict {PACKAGE_PIN AU22 IOSTANDARD LVCMOS12} [get_ports {qsfp0_fs[1]}]
set_property -dict {PACKAGE_PIN AT22 IOSTANDARD LVCMOS12} [get_ports qsfp0_refclk_reset]

# ------------------------------------------------------------------------------------
# QSFP28 cage 1: constrained but UNUSED by this design [MXDC "QSFP1"]. The top holds
# the module in reset and low-power mode; the GTY lanes (quad 230) and the reference
# clocks are not ports of the design (a GT pin without a transceiver cannot be a port),
# so they are listed here as comments only.
# ------------------------------------------------------------------------------------
set_property -dict {PACKAGE_PIN BC18 IOSTANDARD LVCMOS12} [get_ports qsfp1_resetl]
set_property -dict {PACKAGE_PIN BC19 IOSTANDARD LVCMOS12} [get_ports qsfp1_modprsl]
set_property -dict {PACKAGE_PIN AV21 IOSTANDARD LVCMOS12} [get_ports qsfp1_intl]
set_property -dict {PACKAGE_PIN AV22 IOSTANDARD LVCMOS12} [get_ports qsfp1_lpmode]
set_property -dict {PACKAGE_PIN AY20 IOSTANDARD LVCMOS12} [get_ports qsfp1_modsell]
set_property -dict {PACKAGE_PIN AR22 IOSTANDARD LVCMOS12} [get_ports {qsfp1_fs[0]}]
set_property -dict {PACKAGE_PIN AU20 IOSTANDARD LVCMOS12} [get_ports {qsfp1_fs[1]}]
set_property -dict {PACKAGE_PIN AR21 IOSTANDARD LVCMOS12} [get_ports qsfp1_refclk_reset]
# QSFP1_CLOCK (SI5335A, FS as cage 0): MGTREFCLK1_230  P11 (P) / P10 (N)
# MGT_SI570_CLOCK1 (156.25 MHz):       MGTREFCLK0_230  T11 (P) / T10 (N)
# lanes (module lane n on MGTY*(n-1)_230; GTYE4_CHANNEL_X1Y40..X1Y43 per [CRD]):
#   RX1 U4/U3  TX1 U9/U8   RX2 T2/T1  TX2 T7/T6   RX3 R4/R3  TX3 R9/R8   RX4 P2/P1  TX4 P7/P6

# ------------------------------------------------------------------------------------
# Status LEDs: STATUS_LED0..2_FPGA, bank 64 [MXDC]. led[0] heartbeat, led[1] Ethernet
# link, led[2] PCIe link. Colour and polarity are not given in the sources read
# (assumed active high).
# ------------------------------------------------------------------------------------
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12} [get_ports {led[2]}]

# Other bank-64 pins of [MXDC] that this design leaves unused (pulled up as unused pins):
#   CPU_RESET_FPGA AL20 (push button, active low), I2C_FPGA_SCL BF20, I2C_FPGA_SDA BF17,
#   I2C_MAIN_RESETN BF19, USB_UART_RX BB20, USB_UART_TX BF18, FPGA_TXD_MSP BB19,
#   FPGA_RXD_MSP BA19 (satellite controller UART), DDR4_RESET_GATE AU21, GPIO_MSP0..3
#   AR20 AM20 AM21 AN21, SW_DP0..3 AN22 AM19 AL19 AP20.
#   [MXDC] says to leave MSP_RSTn (AP21) and SW_SET1_FPGA (AL21) uninstantiated.

# ------------------------------------------------------------------------------------
# Timing of the board I/O: static or slow signals, synchronized inside the design
# ------------------------------------------------------------------------------------
set_false_path -from [get_ports {qsfp0_modprsl qsfp0_intl qsfp1_modprsl qsfp1_intl}]
set_false_path -to [get_ports {led[*] qsfp0_resetl qsfp0_lpmode qsfp0_modsell qsfp0_fs[*] qsfp0_refclk_reset}]
set_false_path -to [get_ports {qsfp1_resetl qsfp1_lpmode qsfp1_modsell qsfp1_fs[*] qsfp1_refclk_reset}]

# ------------------------------------------------------------------------------------
# Not verified here:
#   - the LVDS input standard on bank 64 (VCCO 1.2 V) for user_clk is taken from
#     [MXDC]; Vivado's I/O DRCs have not been run on it;
#   - the GTY channel sites (X1Y44..47 for cage 0) and the CMAC site come from [CRD],
#     not from an AMD document; the PCIe block/quad selection is left to the XDMA IP
#     defaults for this part;
#   - LED colour and polarity.
# ------------------------------------------------------------------------------------
