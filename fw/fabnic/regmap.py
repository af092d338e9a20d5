# SPDX-License-Identifier: Apache-2.0
"""fabnic register map, as the driver uses it.

The single source is the SystemRDL under ``rdl/`` (see docs/registers.md, "How to add a
register"). ``sim/gen_regs.py`` compiles it into the RTL register modules
(``rtl/top/fabnic_regs_<map>.sv``), ``docs/registers.md`` and :mod:`fabnic.regmap_gen`,
which this module re-exports, so RTL, Python and documentation cannot drift (``make
lint`` fails when a generated file is stale). The driver needs no RDL tools at run time.

``MAPS``: one entry per generated register module ("map"), its blocks with addresses
relative to the core's window. Register kinds and field access: :mod:`fabnic.regmap_types`.
"""

from __future__ import annotations

from .regmap_gen import (
    CC,
    DEVICE,
    DOORBELLS,
    ECHO,
    EXTERNAL,
    FEC,
    MAC,
    MAPS,
    NIC,
    PARSER,
    ROCE,
    ROCE_CNT,
    VIRTIO,
    VNICDEV,
    VXLAN,
    WINDOWS,
)
from .regmap_types import KINDS, Block, Field, Reg

__all__ = [
    "CC", "DEVICE", "DEVICE_ID", "DOORBELLS", "ECHO", "EXTERNAL", "FEC", "KINDS", "MAC",
    "MAP_NIC", "MAP_VNIC", "MAP_VNICDEV", "MAPS",
    "NIC", "PARSER", "ROCE", "ROCE_CNT", "VERSION", "VIRTIO", "VNICDEV", "VXLAN", "WINDOWS",
    "Block", "Field", "Reg", "block",
]

MAP_VNIC = MAPS["vnic"]
MAP_VNICDEV = MAPS["vnicdev"]
MAP_NIC = MAPS["nic"]

DEVICE_ID = DEVICE.reg("id").value
VERSION = tuple(DEVICE.reg("version").field(n).reset or 0 for n in ("major", "minor", "patch"))


def block(name: str) -> Block:
    """A block by name: the blocks of the generated maps, then the external regions."""
    for blocks in MAPS.values():
        for b in blocks:
            if b.name == name:
                return b
    if name in EXTERNAL:
        return EXTERNAL[name]
    raise KeyError(name)
