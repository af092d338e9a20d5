# SPDX-License-Identifier: Apache-2.0
"""Lean whole-beat AXI-Stream driver/monitor for the pkt tests and benchmarks.

cocotbext-axi folds a tkeep=0 beat away (and with it the tuser of an empty frame),
and is slow at 512 bits; these move one whole beat per clock from Python, keep the
exact beat view (tkeep, tlast, tuser) and take random valid/ready pause patterns.
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
    beats: int
    keep_ok: bool             # tkeep contiguous from lane 0 and full except on the last beat
    start: int = 0            # cycle of the first beat
    end: int = 0
    keeps: list[int] = field(default_factory=list)


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


class Source:
    def __init__(self, dut, prefix: str, keep_w: int, seed: int | None = 1, busy: float = 0.3,
                 cycle: Cycle | None = None):
        self.sig = {n: getattr(dut, f"{prefix}_t{n}") for n in
                    ("data", "keep", "valid", "ready", "last", "user")}
        self.clk = dut.clk
        self.keep_w = keep_w
        self.beats: deque[tuple[int, int, int, int]] = deque()
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.sent_frames = 0
        self.first_beat_cycles: list[int] = []
        self.cycle = cycle
        self._driving = False
        self.sig["valid"].value = 0
        cocotb.start_soon(self._run())

    def send(self, data: bytes, user: int = 0) -> None:
        k = self.keep_w
        n = max(1, -(-len(data) // k))
        for i in range(n):
            chunk = data[i * k:(i + 1) * k]
            keep = (1 << len(chunk)) - 1
            self.beats.append((int.from_bytes(chunk, "little"), keep, int(i == n - 1),
                               user if i == n - 1 else 0))

    def idle(self) -> bool:
        return not self.beats and not self._driving

    async def _run(self):
        first = True
        while True:
            await RisingEdge(self.clk)
            if self._driving and int(self.sig["ready"].value):
                b = self.beats.popleft()
                if first and self.cycle is not None:
                    self.first_beat_cycles.append(self.cycle.n)
                first = bool(b[2])
                self._driving = False
            if self.beats and (self.rng is None or self.rng.random() >= self.busy):
                d, k, last, user = self.beats[0]
                self.sig["data"].value = d
                self.sig["keep"].value = k
                self.sig["last"].value = last
                self.sig["user"].value = user
                self.sig["valid"].value = 1
                self._driving = True
            else:
                self.sig["valid"].value = 0
                self._driving = False


class Sink:
    def __init__(self, dut, prefix: str, keep_w: int, seed: int | None = 2, busy: float = 0.3,
                 cycle: Cycle | None = None):
        self.sig = {n: getattr(dut, f"{prefix}_t{n}") for n in
                    ("data", "keep", "valid", "ready", "last", "user")}
        self.clk = dut.clk
        self.keep_w = keep_w
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.frames: list[RxFrame] = []
        self.cycle = cycle
        self._cur = bytearray()
        self._keeps: list[int] = []
        self._ok = True
        self._start = 0
        self.sig["ready"].value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        ready = 0
        full = (1 << self.keep_w) - 1
        while True:
            await RisingEdge(self.clk)
            if ready and int(self.sig["valid"].value):
                keep = int(self.sig["keep"].value)
                data = int(self.sig["data"].value).to_bytes(self.keep_w, "little")
                last = int(self.sig["last"].value)
                n = bin(keep).count("1")
                if not self._keeps and self.cycle is not None:
                    self._start = self.cycle.n
                if keep != (1 << n) - 1 or (not last and keep != full):
                    self._ok = False
                self._keeps.append(keep)
                self._cur += data[:n]
                if last:
                    self.frames.append(RxFrame(bytes(self._cur), int(self.sig["user"].value) & 1,
                                               len(self._keeps), self._ok, self._start,
                                               self.cycle.n if self.cycle else 0, self._keeps))
                    self._cur = bytearray()
                    self._keeps = []
                    self._ok = True
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
                    self.cycles.append(self.cycle.n)
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
