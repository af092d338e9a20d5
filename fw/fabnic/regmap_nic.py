# SPDX-License-Identifier: Apache-2.0
"""Register block of the complete NIC top ``rtl/top/fabnic_nic.sv`` (docs/nic.md).

The NIC's one AXI-Lite window (25-bit addresses) holds three parts, placed by the
``fabnic_nic`` addrmap of rdl/fabnic.rdl:

* ``ROCE_BASE``: the RoCE core (map ``roce`` plus its doorbells)
* ``VNIC_BASE``: the virtio + VXLAN device fabnic_vnic_dev (its maps, addresses
  relative to ``VNIC_BASE``)
* ``NIC_BASE``: block ``nic`` (map ``nic``, rdl/nic.rdl): the per-QP VNI binding table
  of fabnic_roce_vni and the port counters (addresses relative to ``NIC_BASE``).
"""

from __future__ import annotations

from fabnic.regmap_gen import MAPS, NIC, WINDOWS

__all__ = ["BIND_BOUND", "MAP_NIC", "NIC", "NIC_BASE", "NIC_COUNTERS", "ROCE_BASE",
           "VNIC_BASE"]

ROCE_BASE = WINDOWS["fabnic_nic.roce"]
VNIC_BASE = WINDOWS["fabnic_nic.vnic"]
NIC_BASE = WINDOWS["fabnic_nic.nic"]

MAP_NIC = MAPS["nic"]

NIC_COUNTERS: tuple[tuple[str, str], ...] = tuple(
    (r.name, r.doc) for r in NIC.regs if r.fields and r.fields[0].name == "count")

BIND_BOUND = 1 << NIC.reg("bind").field("bound").lsb
