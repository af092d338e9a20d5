# SPDX-License-Identifier: Apache-2.0
"""Register block ``vnicdev`` of the virtio + VXLAN device top ``rtl/top/fabnic_vnic_dev.sv``.

The device's AXI-Lite window holds four blocks (docs/vnic_dev.md, rdl/fabnic.rdl
``fabnic_vnic_dev``): the core's ``device`` and ``vxlan`` blocks (map ``vnic``), the
hand-written VirtIO window (:mod:`fabnic.regmap_virtio`) and this block (map
``vnicdev``, rdl/vnicdev.rdl): the VNI of each queue pair's TX frames and the counters
of the glue between the virtio movers and the vSwitch.
"""

from __future__ import annotations

from fabnic.regmap_gen import MAPS, VNICDEV

__all__ = ["MAP_VNICDEV", "MAX_PAIRS", "TX_DROP_REASONS", "VNICDEV", "qp_vni_addr"]

MAP_VNICDEV = MAPS["vnicdev"]

MAX_PAIRS = sum(1 for r in VNICDEV.regs if r.name.startswith("qp_vni"))  # PAIRS = 1..16

TX_DROP_REASONS: tuple[tuple[str, str], ...] = tuple(
    (r.name, r.doc) for r in VNICDEV.regs if r.name.startswith("tx_drop_"))


def qp_vni_addr(pair: int) -> int:
    """Address of queue pair ``pair``'s VNI register."""
    if not 0 <= pair < MAX_PAIRS:
        raise ValueError(f"queue pair {pair} out of 0..{MAX_PAIRS - 1}")
    return VNICDEV.addr(f"qp_vni{pair}")
