# SPDX-License-Identifier: Apache-2.0
#
# fabnic on the AMD Alveo U250: Vivado non-project batch flow.
#
#   vivado -mode batch -source fpga/alveo_u250/build.tcl -tclargs <files.f> <out_dir> [jobs]
#
# (the Makefile next to this script runs it: `make -C fpga/alveo_u250 bitstream`).
# <files.f> lists the RTL of fabnic_u250_top in compile order, one path per line; it is
# written by gen_files.py from the same resolver the project's lint and synthesis use.
# Written for Vivado 2023.2 (XDMA 4.1, CMAC UltraScale+ 3.1); never run in this project
# (no Vivado here): see README.md for what has and has not been checked.

if {[llength $argv] < 2} {
    puts "usage: vivado -mode batch -source build.tcl -tclargs <files.f> <out_dir> \[jobs\]"
    exit 2
}
set files_f [file normalize [lindex $argv 0]]
set out_dir [file normalize [lindex $argv 1]]
set jobs    [expr {[llength $argv] > 2 ? [lindex $argv 2] : 4}]

set here [file dirname [file normalize [info script]]]
set repo [file normalize [file join $here .. ..]]
set part xcu250-figd2104-2L-e
set top  fabnic_u250_top

file mkdir $out_dir
cd $out_dir
set_param general.maxThreads $jobs
create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# ------------------------------------------------------------------------------ RTL
set fh [open $files_f r]
set n_rtl 0
foreach line [split [read $fh] "\n"] {
    set f [string trim $line]
    if {$f eq "" || [string index $f 0] eq "#"} { continue }
    read_verilog -sv $f
    incr n_rtl
}
close $fh
puts "fabnic: $n_rtl RTL files from $files_f"

# ------------------------------------------------------------------------------ IP
# Set one IP parameter; a name this Vivado version does not know is reported, not fatal,
# so that the check of the generated ports below tells what actually came out.
proc ip_set {ip name value} {
    if {[catch {set_property CONFIG.$name $value [get_ips $ip]} err]} {
        puts "CRITICAL WARNING: \[fabnic\] $ip: CONFIG.$name = $value not applied: $err"
    }
}

file mkdir ip

# XDMA in AXI Bridge mode (PG195 / PG194): Endpoint, Gen3 x16, 512-bit AXI at 250 MHz.
#   BAR0 (64-bit, 64 MB) -> M_AXI_B, translation 0: AXI address = offset in BAR0
#     (fabnic_nic's 32 MB AXI-Lite window, then the board registers).
#   S_AXI_B: one AXI BAR over the whole 64-bit space, translation 0: the NIC's DMA
#     addresses are host bus addresses.
#   16 user interrupts, MSI.
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0 -dir ip
foreach {k v} {
    functional_mode              AXI_Bridge
    mode_selection               Advanced
    device_port_type             PCI_Express_Endpoint_device
    pl_link_cap_max_link_width   X16
    pl_link_cap_max_link_speed   8.0_GT/s
    ref_clk_freq                 100_MHz
    axi_data_width               512_bit
    axisten_freq                 250
    axi_addr_width               64
    pf0_device_id                903F
    pf0_class_code_base          02
    pf0_class_code_sub           00
    pf0_class_code_interface     00
    pf0_bar0_64bit               true
    pf0_bar0_prefetchable        false
    pf0_bar0_scale               Megabytes
    pf0_bar0_size                64
    pciebar2axibar_0             0x0000000000000000
    en_axi_slave_if              true
    axibar_num                   1
    axibar_0                     0x0000000000000000
    axibar_highaddr_0            0xFFFFFFFFFFFFFFFF
    axibar2pciebar_0             0x0000000000000000
    c_s_axi_supports_narrow_burst false
    s_axi_id_width               5
    m_axi_id_width               4
    xdma_num_usr_irq             16
    pf0_msi_enabled              true
    pf0_msix_enabled             false
    dedicate_perst               false
} { ip_set xdma_0 $k $v }

# CMAC UltraScale+ on QSFP0 (PG203): CAUI-4 4x25G on GTY X1Y44..X1Y47 (quad 231),
# reference 161.1328125 MHz (SI5335, FS = 2'b10), AXI-Stream user interface without
# AXI4-Lite (static ctl_* ports), RS-FEC, no flow control. The CMAC site is the one
# Corundum's AU250 target uses for this quad.
create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name cmac_usplus_0 -dir ip
foreach {k v} {
    CMAC_CAUI4_MODE       1
    NUM_LANES             4x25
    GT_REF_CLK_FREQ       161.1328125
    USER_INTERFACE        AXIS
    GT_DRP_CLK            156.25
    ENABLE_AXI_INTERFACE  0
    INCLUDE_RS_FEC        1
    TX_FLOW_CONTROL       0
    RX_FLOW_CONTROL       0
    ENABLE_PIPELINE_REG   1
    CMAC_CORE_SELECT      CMACE4_X0Y8
    GT_GROUP_SELECT       X1Y44~X1Y47
    LANE1_GT_LOC          X1Y44
    LANE2_GT_LOC          X1Y45
    LANE3_GT_LOC          X1Y46
    LANE4_GT_LOC          X1Y47
} { ip_set cmac_usplus_0 $k $v }

generate_target all [get_ips]
synth_ip [get_ips]

# Compare the generated IP ports with the lint stubs (rtl/board/alveo_u250/fabnic_bb_*.svh):
# every stub port must exist on the IP with the same direction and width.
proc stub_ports {text re} {
    # drop comments, then collect name -> {direction width}
    regsub -all {/\*.*?\*/} $text "" text
    regsub -all {//[^\n]*} $text "" text
    set ports [dict create]
    foreach {all dir msb name} [regexp -all -inline $re $text] {
        if {$msb eq ""} { set w 1 } else { set w [expr {$msb + 1}] }
        dict set ports $name [list $dir $w]
    }
    return $ports
}
proc check_stub {ip svh} {
    set gen [lindex [glob -nocomplain ip/$ip/${ip}_stub.v ip/$ip/*/${ip}_stub.v] 0]
    if {$gen eq ""} {
        puts "CRITICAL WARNING: \[fabnic\] $ip: generated stub not found, ports not checked"
        return
    }
    set fh [open $gen r]; set g [read $fh]; close $fh
    set fh [open $svh r]; set s [read $fh]; close $fh
    set gp [stub_ports $g {(input|output)\s+(?:wire\s+)?(?:\[(\d+):0\]\s*)?(\w+)\s*[;,)]}]
    set sp [stub_ports $s {(input|output)\s+(?:wire\s+)?(?:logic\s+)?(?:\[(\d+):0\]\s+)?(\w+)}]
    set bad 0
    dict for {name dw} $sp {
        if {![dict exists $gp $name]} {
            puts "CRITICAL WARNING: \[fabnic\] $ip: stub port $name is not a port of the IP"
            incr bad
        } elseif {[dict get $gp $name] ne $dw} {
            puts "CRITICAL WARNING: \[fabnic\] $ip: $name is [dict get $gp $name] on the IP, $dw in the stub"
            incr bad
        }
    }
    puts "fabnic: $ip: [dict size $sp] stub ports checked against $gen, $bad mismatches"
}
check_stub xdma_0        $repo/rtl/board/alveo_u250/fabnic_bb_xdma.svh
check_stub cmac_usplus_0 $repo/rtl/board/alveo_u250/fabnic_bb_cmac_usplus.svh

# ------------------------------------------------------------------------------ synthesis
read_xdc $repo/constraints/alveo_u250.xdc

# FABNIC_VENDOR_IP: fabnic_u250_top does not include the lint stubs, the IP and the
# UNISIM primitives are used
synth_design -top $top -part $part -verilog_define FABNIC_VENDOR_IP
source $here/cdc.tcl
write_checkpoint -force post_synth.dcp
report_utilization -file post_synth_utilization.rpt

# ------------------------------------------------------------------------------ implementation
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force post_route.dcp

report_timing_summary -max_paths 20 -report_unconstrained -file timing_summary.rpt
report_utilization -hierarchical -file utilization.rpt
report_clock_interaction -file clock_interaction.rpt
report_cdc -details -file cdc.rpt
report_drc -file drc.rpt

set wns [get_property SLACK [get_timing_paths -setup -max_paths 1 -nworst 1]]
set whs [get_property SLACK [get_timing_paths -hold -max_paths 1 -nworst 1]]
puts "fabnic: WNS $wns ns, WHS $whs ns (timing_summary.rpt)"

write_bitstream -force fabnic_u250.bit
puts "fabnic: wrote [file join $out_dir fabnic_u250.bit]"
if {$wns < 0 || $whs < 0} {
    puts "CRITICAL WARNING: \[fabnic\] timing not met; the bitstream was written anyway"
}
