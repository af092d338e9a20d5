# SPDX-License-Identifier: Apache-2.0
"""Register block of the complete NIC top ``rtl/top/fabnic_nic.sv`` (docs/nic.md).

The NIC's one AXI-Lite window (25-bit addresses) holds three parts:

* ``0x0000000..0x0FFFFFF`` the RoCE core (map ``roce`` plus its doorbells, unchanged)
* ``0x1000000..0x100FFFF`` the virtio + VXLAN device fabnic_vnic_dev (its maps,
  addresses relative to ``VNIC_BASE``)
* ``0x1010000..0x10100FF`` this block, ``nic``: the per-QP VNI binding table of
  fabnic_roce_vni and the port counters (addresses relative to ``NIC_BASE``).

It is map ``nic`` (generated into ``rtl/top/fabnic_regs_nic.sv`` by sim/gen_regs.py).
"""

from __future__ import annotations

from fabnic.regmap import Block, Reg

ROCE_BASE = 0x0000000
VNIC_BASE = 0x1000000
NIC_BASE = 0x1010000

NIC_COUNTERS = (
    ("rx_wire_roce", "Wire RX: plain RoCEv2 frames (UDP 4791) to the binding check."),
    ("rx_wire_vxlan", "Wire RX: VXLAN frames (UDP 4789) to the vSwitch."),
    ("rx_wire_other", "Wire RX: other frames, given to the vSwitch (which drops and "
                      "counts them as drop_outer)."),
    ("tx_wire", "Wire TX: frames sent (vSwitch + plain RoCE)."),
    ("tx_plain", "Engine frames of unbound QPs sent as plain RoCEv2."),
    ("tx_tunnel", "Engine frames of bound QPs sent to the VTEP (encapsulated)."),
    ("rx_plain", "Plain RoCEv2 frames passed to the engine (QP not bound)."),
    ("rx_tunnel", "Decapsulated frames passed to the engine (QP bound to that VNI)."),
    ("drop_vni_mismatch", "RX drop: tunnel frame for a QP bound to another VNI."),
    ("drop_unbound_tun", "RX drop: tunnel frame for a QP not bound to any VNI "
                         "(or DestQP >= NUM_QP)."),
    ("drop_bound_plain", "RX drop: plain (not tunnelled) frame for a QP bound to a VNI."),
    ("drop_not_roce", "RX drop: frame on the RoCE path without UDP 4791 + BTH "
                      "(e.g. ARP to the engine's MAC inside a VNI)."),
)

NIC = Block(
    "nic", 0x0000, 0x100,
    "NIC top (fabnic_nic): per-QP VNI binding (fabnic_roce_vni) and port counters. "
    "Addresses relative to NIC_BASE = 0x1010000 of the NIC window. Counters are "
    "32-bit, free-running.",
    (
        Reg("num_qp", 0x00, "const", "Entries of the binding table (the engine's NUM_QP).",
            param="NUM_QP"),
        Reg("status", 0x04, "ro", "bit 0: binding table cleared after reset (init_done); "
            "bit 1: vSwitch MAC table cleared.", width=2),
        Reg("bind_qp", 0x08, "rw", "QPN that `bind` writes and `bind_rd` reads.", width=24),
        Reg("bind", 0x0C, "pulse", "Write the binding of QP `bind_qp`: [23:0] VNI, bit 24 "
            "bound (0 = unbind: plain RoCEv2). Takes effect within 2 cycles; a QPN >= "
            "NUM_QP is ignored.", width=25),
        Reg("bind_rd", 0x10, "ro", "Binding of QP `bind_qp`: [23:0] VNI, bit 24 bound.",
            width=25),
    )
    + tuple(Reg(n, 0x40 + 4 * i, "ro", d) for i, (n, d) in enumerate(NIC_COUNTERS)),
)

MAP_NIC: tuple[Block, ...] = (NIC,)

BIND_BOUND = 1 << 24
