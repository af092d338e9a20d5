# SPDX-License-Identifier: Apache-2.0
"""Whole-beat AXI-Stream source/sink (and plain valid/ready vector source/sink)
with random valid/ready pauses, exact beat views and optional per-frame sideband.

cocotbext-axi folds a tkeep=0 beat away (and with it the tuser of an empty
frame), has no per-frame sideband signals, and is slow at 512 bits; these move
one whole beat per clock from Python. `cycle` may be a :class:`Cycle` or a
cycle-counter signal of the design; frames and sources then carry timestamps.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import RisingEdge


@dataclass
class RxFrame:
    data: bytes
    user: int                 # tuser[0] on the last beat
    beats: int = 0
    keep_ok: bool = True      # tkeep contiguous from lane 0 and full except on the last beat
    start: int = 0            # cycle of the first beat
    end: int = 0              # cycle of the last beat
    keeps: list[int] = field(default_factory=list)
    side: dict[str, int] = field(default_factory=dict)  # sideband sampled on the first beat


class Cycle:
    """Free-running cycle counter."""

    def __init__(self, clk):
        self.n = 0
        self.clk = clk
        cocotb.start_soon(self._run())

    async def _run(self):
        while True:
            await RisingEdge(self.clk)
            self.n += 1


def _now(cycle) -> int:
    if cycle is None:
        return 0
    return cycle.n if isinstance(cycle, Cycle) else int(cycle.value)


class Source:
    """Frames to `<prefix>_t*`; sideband signals `<prefix>_<name>` held for the whole frame."""

    def __init__(self, dut, prefix: str, keep_w: int, seed: int | None = 1, busy: float = 0.3,
                 side: tuple[str, ...] = (), cycle=None):
        self.sig = {n: getattr(dut, f"{prefix}_t{n}") for n in
                    ("data", "keep", "valid", "ready", "last", "user")}
        self.side = {n: getattr(dut, f"{prefix}_{n}") for n in side}
        self.clk = dut.clk
        self.keep_w = keep_w
        self.beats: deque[tuple[int, int, int, int, dict[str, int]]] = deque()
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.sent_frames = 0
        self.first_beat_cycles: list[int] = []
        self.cycle = cycle
        self._driving = False
        self.sig["valid"].value = 0
        cocotb.start_soon(self._run())

    def send(self, data: bytes, user: int = 0, **side: int) -> None:
        k = self.keep_w
        n = max(1, -(-len(data) // k))
        for i in range(n):
            chunk = data[i * k:(i + 1) * k]
            keep = (1 << len(chunk)) - 1
            self.beats.append((int.from_bytes(chunk, "little"), keep, int(i == n - 1),
                               user if i == n - 1 else 0, side))

    def idle(self) -> bool:
        return not self.beats and not self._driving

    async def _run(self):
        first = True
        while True:
            await RisingEdge(self.clk)
            if self._driving and int(self.sig["ready"].value):
                b = self.beats.popleft()
                if first and self.cycle is not None:
                    self.first_beat_cycles.append(_now(self.cycle))
                first = bool(b[2])
                self.sent_frames += b[2]
                self._driving = False
            if self.beats and (self.rng is None or self.rng.random() >= self.busy):
                d, k, last, user, side = self.beats[0]
                self.sig["data"].value = d
                self.sig["keep"].value = k
                self.sig["last"].value = last
                self.sig["user"].value = user
                for n, s in self.side.items():
                    s.value = side.get(n, 0)
                self.sig["valid"].value = 1
                self._driving = True
            else:
                self.sig["valid"].value = 0
                self._driving = False


class Sink:
    """Frames from `<prefix>_t*`; checks tkeep packing and that sideband is constant per frame."""

    def __init__(self, dut, prefix: str, keep_w: int, seed: int | None = 2, busy: float = 0.3,
                 side: tuple[str, ...] = (), cycle=None):
        self.sig = {n: getattr(dut, f"{prefix}_t{n}") for n in
                    ("data", "keep", "valid", "ready", "last", "user")}
        self.side = {n: getattr(dut, f"{prefix}_{n}") for n in side}
        self.clk = dut.clk
        self.keep_w = keep_w
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.frames: list[RxFrame] = []
        self.side_ok = True   # sideband constant over every frame
        self.cycle = cycle
        self.sig["ready"].value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        ready = 0
        full = (1 << self.keep_w) - 1
        cur = bytearray()
        keeps: list[int] = []
        ok = True
        side: dict[str, int] = {}
        start = 0
        while True:
            await RisingEdge(self.clk)
            if ready and int(self.sig["valid"].value):
                keep = int(self.sig["keep"].value)
                last = int(self.sig["last"].value)
                n = bin(keep).count("1")
                s_now = {k: int(v.value) for k, v in self.side.items()}
                if not keeps:
                    start = _now(self.cycle)
                    side = s_now
                elif s_now != side:
                    self.side_ok = False
                if keep != (1 << n) - 1 or (not last and keep != full):
                    ok = False
                keeps.append(keep)
                cur += int(self.sig["data"].value).to_bytes(self.keep_w, "little")[:n]
                if last:
                    self.frames.append(RxFrame(bytes(cur), int(self.sig["user"].value) & 1,
                                               len(keeps), ok, start, _now(self.cycle), keeps,
                                               side))
                    cur = bytearray()
                    keeps = []
                    ok = True
            ready = int(self.rng is None or self.rng.random() >= self.busy)
            self.sig["ready"].value = ready


class VecSink:
    """valid/ready sink for a plain vector (metadata, header)."""

    def __init__(self, dut, data: str, valid: str, ready: str, seed: int | None = 3,
                 busy: float = 0.3, extra: str | None = None, cycle: Cycle | None = None):
        self.data, self.valid, self.ready = (getattr(dut, n) for n in (data, valid, ready))
        self.extra = getattr(dut, extra) if extra else None
        self.clk = dut.clk
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.items: list[int] = []
        self.extras: list[int] = []
        self.cycles: list[int] = []
        self.cycle = cycle
        self.ready.value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        ready = 0
        while True:
            await RisingEdge(self.clk)
            if ready and int(self.valid.value):
                self.items.append(int(self.data.value))
                if self.extra is not None:
                    self.extras.append(int(self.extra.value))
                if self.cycle is not None:
                    self.cycles.append(_now(self.cycle))
            ready = int(self.rng is None or self.rng.random() >= self.busy)
            self.ready.value = ready


class VecSource:
    """valid/ready source for a plain vector (builder metadata, inserted header)."""

    def __init__(self, dut, data: str, valid: str, ready: str, seed: int | None = 4,
                 busy: float = 0.3):
        self.data, self.valid, self.ready = (getattr(dut, n) for n in (data, valid, ready))
        self.clk = dut.clk
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.q: deque[int] = deque()
        self.valid.value = 0
        cocotb.start_soon(self._run())

    def send(self, v: int) -> None:
        self.q.append(v)

    async def _run(self):
        driving = False
        while True:
            await RisingEdge(self.clk)
            if driving and int(self.ready.value):
                self.q.popleft()
                driving = False
            if self.q and (self.rng is None or self.rng.random() >= self.busy):
                self.data.value = self.q[0]
                self.valid.value = 1
                driving = True
            else:
                self.valid.value = 0
                driving = False
