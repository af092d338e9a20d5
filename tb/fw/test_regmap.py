# SPDX-License-Identifier: Apache-2.0
"""fw/ register layer without a simulator: map consistency, generated files in
sync with the single source, and Device addressing over a fake bus."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from fabnic import regmap
from fabnic.device import Device, DeviceError

REPO = Path(__file__).resolve().parents[2]


def _gen_regs():
    spec = importlib.util.spec_from_file_location("gen_regs", REPO / "sim" / "gen_regs.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gen_regs"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_blocks_do_not_overlap() -> None:
    for name, blocks in regmap.MAPS.items():
        spans = sorted((b.base, b.base + b.size, b.name) for b in blocks)
        for (_a0, a1, an), (b0, _b1, bn) in zip(spans, spans[1:], strict=False):
            assert a1 <= b0, f"map {name}: {an} overlaps {bn}"
        for b in blocks:
            assert b.base % b.size == 0, f"{b.name}: base not aligned to its size"


def test_bad_register_definitions_are_rejected() -> None:
    with pytest.raises(ValueError):
        regmap.Reg("x", 2, "rw", "unaligned")
    with pytest.raises(ValueError):
        regmap.Reg("x", 0, "wo", "unknown kind")
    with pytest.raises(ValueError):
        regmap.Block("b", 0, 8, "", (regmap.Reg("a", 0, "ro64", ""), regmap.Reg("b", 4, "ro", "")))


def test_generated_files_match_the_source() -> None:
    for path, text in _gen_regs().outputs().items():
        assert path.read_text() == text, f"{path} is stale: run `make regs`"


class FakeBus:
    """A register space that behaves like the generated register file."""

    def __init__(self) -> None:
        self.mem: dict[int, int] = {}
        self.log: list[tuple[str, int]] = []

    def read32(self, addr: int) -> int:
        self.log.append(("r", addr))
        return self.mem.get(addr, 0)

    def write32(self, addr: int, value: int) -> None:
        self.log.append(("w", addr))
        self.mem[addr] = value


def test_device_reads_by_name() -> None:
    bus = FakeBus()
    dev = Device(bus)
    dev_blk = regmap.block("device")
    bus.mem[dev_blk.addr("id")] = regmap.DEVICE_ID
    bus.mem[dev_blk.addr("version")] = 0x000102
    bus.mem[dev_blk.addr("data_w")] = 512
    info = dev.info()
    assert info.version == (0, 1, 2) and info.data_w == 512
    mac = regmap.block("mac")
    lo = mac.addr("rx_bytes")
    bus.mem[lo], bus.mem[lo + 4] = 0x89ABCDEF, 0x01234567
    bus.log.clear()
    assert dev.read("mac", "rx_bytes") == 0x0123456789ABCDEF
    assert bus.log == [("r", lo), ("r", lo + 4)]  # LO first: it snapshots HI


def test_device_refuses_wrong_accesses() -> None:
    bus = FakeBus()
    dev = Device(bus)
    with pytest.raises(DeviceError):
        dev.write("parser", "frames_in", 1)       # read-only counter
    with pytest.raises(DeviceError):
        dev.write("mac", "pfc_req", 0x100)        # 8-bit field
    with pytest.raises(DeviceError):
        dev.read("nosuch", "x")
    bus.mem[regmap.block("device").addr("id")] = 0x12345678
    with pytest.raises(DeviceError, match="not a fabnic"):
        dev.info()


def test_counters_lists_every_status_register() -> None:
    dev = Device(FakeBus())
    names = set(dev.counters("parser"))
    assert names == {r.name for r in regmap.block("parser").regs}
