# SPDX-License-Identifier: Apache-2.0
#
# Clock-domain-crossing constraints for the fabnic CDC primitives, applied by build.tcl
# to the synthesized design (they loop over instances, which an XDC file cannot do).
# Each rule matches a register name of the RTL; an instance found by ORIG_REF_NAME
# (Vivado's name for the module before uniquification) or REF_NAME.
#
#   fabnic_reset_sync       arst -> async preset of sync_q: false path (the release is
#                           re-synchronized by the chain itself).
#   fabnic_axis_async_fifo  wr_gray_q -> wr_gray_sync_q[0], rd_gray_q -> rd_gray_sync_q[0]:
#                           max delay (datapath only) of the smaller of the two clock
#                           periods, and a bus skew of the same, so the Gray code stays
#                           Gray at the far side. mem -> out_q (a LUT-RAM read path into
#                           the read clock's register, when the memory is not a block
#                           RAM): max delay of the read clock period.
#   fabnic_u250_status_cdc  level inputs -> lvl_sync_q[0]: false path (independent bits);
#                           gray_q -> gray_sync_q[0]: as the FIFO pointers.

proc fabnic_insts {name} {
    return [get_cells -quiet -hierarchical -filter "ORIG_REF_NAME == $name || REF_NAME == $name"]
}

proc fabnic_min_period {cells} {
    set p {}
    foreach c [get_clocks -quiet -of_objects $cells] {
        lappend p [get_property PERIOD $c]
    }
    if {[llength $p] == 0} { return 4.0 }
    return [lindex [lsort -real $p] 0]
}

proc fabnic_gray_crossing {src dst} {
    if {[llength $src] == 0 || [llength $dst] == 0} { return }
    set per [fabnic_min_period [concat $src $dst]]
    set_max_delay -datapath_only -from $src -to $dst $per
    set_bus_skew -from $src -to $dst $per
}

foreach inst [fabnic_insts fabnic_reset_sync] {
    set pre [get_pins -quiet -of_objects [get_cells -quiet "$inst/sync_q_reg\[*\]"] -filter {REF_PIN_NAME == PRE}]
    if {[llength $pre]} { set_false_path -to $pre }
}

foreach inst [fabnic_insts fabnic_axis_async_fifo] {
    fabnic_gray_crossing [get_cells -quiet "$inst/wr_gray_q_reg\[*\]"] \
                         [get_cells -quiet "$inst/wr_gray_sync_q_reg\[0\]\[*\]"]
    fabnic_gray_crossing [get_cells -quiet "$inst/rd_gray_q_reg\[*\]"] \
                         [get_cells -quiet "$inst/rd_gray_sync_q_reg\[0\]\[*\]"]
    set mem [get_cells -quiet -hierarchical -filter "NAME =~ $inst/mem_reg*"]
    set out [get_cells -quiet "$inst/out_q_reg\[*\]"]
    if {[llength $mem] && [llength $out]} {
        set_max_delay -datapath_only -from $mem -to $out [fabnic_min_period $out]
    }
}

foreach inst [fabnic_insts fabnic_u250_status_cdc] {
    set lvl [get_cells -quiet "$inst/lvl_sync_q_reg\[0\]\[*\]"]
    if {[llength $lvl]} { set_false_path -to $lvl }
    # all counters of the instance at once: a path exists only from a counter's Gray
    # register to its own first synchronizer stage
    fabnic_gray_crossing \
        [get_cells -quiet -hierarchical -filter "NAME =~ $inst/*gray_q_reg*"] \
        [get_cells -quiet -hierarchical -filter "NAME =~ $inst/*gray_sync_q_reg\[0\]*"]
}
