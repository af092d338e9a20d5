# SPDX-License-Identifier: Apache-2.0
"""Device access by register name, on top of a :class:`fabnic.bus.Bus`.

The verbs layer (PD/MR/CQ/QP) builds on this; today it reads identity and
counters and writes configuration by the names in fw/fabnic/regmap.py (generated from rdl/).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import regmap
from .bus import Bus


class DeviceError(RuntimeError):
    pass


@dataclass(frozen=True)
class DeviceInfo:
    device_id: int
    version: tuple[int, int, int]
    data_w: int


class Device:
    def __init__(self, bus: Bus, regmap_name: str = "datapath") -> None:
        self.bus = bus
        try:
            self.blocks = {b.name: b for b in regmap.MAPS[regmap_name]}
        except KeyError:
            raise DeviceError(f"unknown register map {regmap_name!r}") from None

    # ------------------------------------------------------------ raw access
    def _reg(self, block: str, name: str) -> tuple[int, regmap.Reg]:
        try:
            b = self.blocks[block]
        except KeyError:
            raise DeviceError(f"no register block {block!r}") from None
        r = b.reg(name)
        return b.base + r.offset, r

    def read(self, block: str, name: str) -> int:
        addr, r = self._reg(block, name)
        if r.kind == "pulse":
            raise DeviceError(f"{block}.{name} is write-only")
        lo = self.bus.read32(addr)
        if r.kind == "ro64":
            return lo | (self.bus.read32(addr + 4) << 32)
        return lo

    def write(self, block: str, name: str, value: int) -> None:
        addr, r = self._reg(block, name)
        if r.kind not in ("rw", "pulse"):
            raise DeviceError(f"{block}.{name} is read-only")
        if value >> r.width:
            raise DeviceError(f"{block}.{name}: {value:#x} does not fit {r.width} bits")
        self.bus.write32(addr, value)

    # ------------------------------------------------------------ helpers
    def info(self) -> DeviceInfo:
        dev_id = self.read("device", "id")
        if dev_id != regmap.DEVICE_ID:
            raise DeviceError(f"device id {dev_id:#010x}, expected {regmap.DEVICE_ID:#010x}: "
                              "not a fabnic, or the bus is miswired")
        v = self.read("device", "version")
        return DeviceInfo(dev_id, ((v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF),
                          self.read("device", "data_w"))

    def counters(self, block: str) -> dict[str, int]:
        """Every read-only counter/status register of a block, by name."""
        b = self.blocks[block]
        return {r.name: self.read(block, r.name) for r in b.regs if r.kind in ("ro", "ro64")}
