# SPDX-License-Identifier: Apache-2.0
"""fabnic register map: the single source.

This module *is* the register map. ``sim/gen_regs.py`` turns it into the RTL
register blocks (``rtl/top/fabnic_regs_<block>.sv``) and ``docs/registers.md``;
the driver imports it directly, so RTL, Python and documentation cannot drift
(``make lint`` fails when the generated files are stale).

Register kinds:
  const   read-only constant (IDs, versions, capabilities)
  rw      read/write configuration; drives an output port ``cfg_<reg>``
  ro      read-only status or counter; sampled from an input port ``sts_<reg>``
  ro64    64-bit read-only counter at two offsets (LO then HI); reading LO
          snapshots HI so the pair is consistent
  pulse   write-only command/doorbell; a write raises ``cmd_<reg>`` for one cycle
          with the written value on ``cmd_<reg>_data``

Counters are free-running and wrap; software takes differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEVICE_ID = 0xFAB1C001
VERSION = (0, 1, 0)


@dataclass(frozen=True)
class Reg:
    name: str
    offset: int
    kind: str
    doc: str
    width: int = 32
    reset: int = 0
    value: int = 0  # for const
    param: str = ""  # for const: take the value from this RTL parameter instead

    def __post_init__(self) -> None:
        if self.kind not in ("const", "rw", "ro", "ro64", "pulse"):
            raise ValueError(f"{self.name}: unknown register kind {self.kind!r}")
        if self.offset % 4:
            raise ValueError(f"{self.name}: offset {self.offset:#x} not word aligned")
        if not 1 <= self.width <= 32:
            raise ValueError(f"{self.name}: width {self.width} out of 1..32")

    @property
    def span(self) -> int:
        return 8 if self.kind == "ro64" else 4


@dataclass(frozen=True)
class Block:
    name: str
    base: int
    size: int
    doc: str
    regs: tuple[Reg, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        used: dict[int, str] = {}
        for r in self.regs:
            for a in range(r.offset, r.offset + r.span, 4):
                if a in used:
                    raise ValueError(f"{self.name}: {r.name} overlaps {used[a]} at {a:#x}")
                if a >= self.size:
                    raise ValueError(f"{self.name}: {r.name} at {a:#x} outside block size")
                used[a] = r.name

    def reg(self, name: str) -> Reg:
        for r in self.regs:
            if r.name == name:
                return r
        raise KeyError(f"{self.name} has no register {name!r}")

    def addr(self, name: str) -> int:
        return self.base + self.reg(name).offset


def _counters(start: int, names: list[tuple[str, str]], kind: str = "ro") -> tuple[Reg, ...]:
    step = 8 if kind == "ro64" else 4
    return tuple(Reg(n, start + step * i, kind, d) for i, (n, d) in enumerate(names))


DEVICE = Block(
    "device", 0x0000, 0x100,
    "Identification and capabilities.",
    (
        Reg("id", 0x00, "const", "Device ID (0xFAB1C001).", value=DEVICE_ID),
        Reg("version", 0x04, "const", "major[23:16] minor[15:8] patch[7:0].",
            value=(VERSION[0] << 16) | (VERSION[1] << 8) | VERSION[2]),
        Reg("data_w", 0x08, "const", "Datapath width in bits of this build.", param="DATA_W"),
        Reg("scratch", 0x0C, "rw", "Scratch register for bus tests."),
    ),
)

# A register file is generated per top-level design ("map"): the blocks it has.
MAPS: dict[str, tuple[Block, ...]] = {
    "datapath": (DEVICE,),
}


def block(name: str) -> Block:
    for blocks in MAPS.values():
        for b in blocks:
            if b.name == name:
                return b
    raise KeyError(name)
