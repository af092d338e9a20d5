# SPDX-License-Identifier: Apache-2.0
"""Whole-beat AXI-Stream source/sink with per-frame sideband signals and random
valid/ready pauses (cocotbext-axi has no per-frame sideband and is slow at 512 bits)."""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import RisingEdge


@dataclass
class RxFrame:
    data: bytes
    user: int
    side: dict[str, int] = field(default_factory=dict)
    keep_ok: bool = True
    start: int = 0
    end: int = 0


class Source:
    def __init__(self, dut, prefix: str, keep_w: int, seed: int | None = 1,
                 busy: float = 0.3, side: tuple[str, ...] = (), cycle=None):
        self.sig = {n: getattr(dut, f"{prefix}_t{n}") for n in
                    ("data", "keep", "valid", "ready", "last", "user")}
        self.side = {n: getattr(dut, f"{prefix}_{n}") for n in side}
        self.clk = dut.clk
        self.keep_w = keep_w
        self.cycle = cycle
        self._first = True
        self.beats: deque[tuple[int, int, int, int, dict[str, int]]] = deque()
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self._driving = False
        self.first_cycles: list[int] = []
        self.sig["valid"].value = 0
        cocotb.start_soon(self._run())

    def send(self, data: bytes, user: int = 0, **side: int) -> None:
        k = self.keep_w
        n = max(1, -(-len(data) // k))
        for i in range(n):
            chunk = data[i * k:(i + 1) * k]
            self.beats.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1,
                               int(i == n - 1), user if i == n - 1 else 0, side))

    def idle(self) -> bool:
        return not self.beats and not self._driving

    async def _run(self):
        while True:
            await RisingEdge(self.clk)
            if self._driving and int(self.sig["ready"].value):
                b = self.beats.popleft()
                if self._first and self.cycle is not None:
                    self.first_cycles.append(int(self.cycle.value))
                self._first = bool(b[2])
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
    def __init__(self, dut, prefix: str, keep_w: int, seed: int | None = 2,
                 busy: float = 0.3, side: tuple[str, ...] = (), cycle=None):
        self.sig = {n: getattr(dut, f"{prefix}_t{n}") for n in
                    ("data", "keep", "valid", "ready", "last", "user")}
        self.side = {n: getattr(dut, f"{prefix}_{n}") for n in side}
        self.clk = dut.clk
        self.keep_w = keep_w
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.cycle = cycle
        self.frames: list[RxFrame] = []
        self.side_ok = True   # sideband constant over the frame
        self.sig["ready"].value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        ready = 0
        full = (1 << self.keep_w) - 1
        cur = bytearray()
        ok = True
        side: dict[str, int] | None = None
        start = 0
        while True:
            await RisingEdge(self.clk)
            if ready and int(self.sig["valid"].value):
                keep = int(self.sig["keep"].value)
                last = int(self.sig["last"].value)
                n = bin(keep).count("1")
                if keep != (1 << n) - 1 or (not last and keep != full):
                    ok = False
                s_now = {k: int(v.value) for k, v in self.side.items()}
                if side is None:
                    side = s_now
                    start = int(self.cycle.value) if self.cycle is not None else 0
                elif s_now != side:
                    self.side_ok = False
                cur += int(self.sig["data"].value).to_bytes(self.keep_w, "little")[:n]
                if last:
                    end = int(self.cycle.value) if self.cycle is not None else 0
                    self.frames.append(RxFrame(bytes(cur), int(self.sig["user"].value) & 1,
                                               side, ok, start, end))
                    cur = bytearray()
                    ok = True
                    side = None
            ready = int(self.rng is None or self.rng.random() >= self.busy)
            self.sig["ready"].value = ready
