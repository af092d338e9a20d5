# SPDX-License-Identifier: Apache-2.0
"""AXI-Stream helpers around cocotbext-axi: random pause generators and setup."""

from __future__ import annotations

import itertools
import logging
import random
from collections import deque
from collections.abc import Iterator

from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource


def random_pause(seed: int, busy: float = 0.3) -> Iterator[int]:
    """Endless pause pattern: a fraction ``busy`` of cycles paused, in short random runs."""
    rng = random.Random(seed)
    while True:
        if rng.random() < busy:
            yield from itertools.repeat(1, rng.randint(1, 4))
        else:
            yield from itertools.repeat(0, rng.randint(1, 8))


def axis_source(dut, prefix: str, seed: int | None = None, busy: float = 0.3) -> AxiStreamSource:
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, prefix), dut.clk, dut.rst)
    src.log.setLevel(logging.WARNING)  # per-frame INFO logs swamp the sim log
    if seed is not None:
        src.set_pause_generator(random_pause(seed, busy))
    return src


def axis_sink(dut, prefix: str, seed: int | None = None, busy: float = 0.3) -> AxiStreamSink:
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, prefix), dut.clk, dut.rst)
    sink.log.setLevel(logging.WARNING)
    if seed is not None:
        sink.set_pause_generator(random_pause(seed, busy))
    return sink


class PackedSource:
    """Drives N packed AXI-Stream inputs (s_axis_tdata[N*W-1:0], ...) from per-queue
    frame lists, one whole beat per queue per cycle, with random idle gaps
    between beats (valid is never withdrawn once raised)."""

    def __init__(self, dut, n: int, width: int, prefix: str = "s_axis", seed: int | None = 1,
                 busy: float = 0.3):
        self.dut = dut
        self.n = n
        self.w = width
        self.kw = width // 8
        self.queues: list[deque[tuple[bytes, int]]] = [deque() for _ in range(n)]
        self.rng = random.Random(seed) if seed is not None else None
        self.busy = busy
        self.sig = {s: getattr(dut, f"{prefix}_{s}") for s in
                    ("tdata", "tkeep", "tvalid", "tready", "tlast", "tuser")}
        self.cur: list[tuple[int, int, int, int] | None] = [None] * n  # data, keep, last, user
        self.beats: list[deque] = [deque() for _ in range(n)]
        self.sent_frames = [0] * n
        for s in ("tdata", "tkeep", "tvalid", "tlast", "tuser"):
            self.sig[s].value = 0

    def send(self, q: int, frame: bytes, tuser: int = 0) -> None:
        self.queues[q].append((bytes(frame), tuser))

    def idle(self) -> bool:
        return all(not q for q in self.queues) and all(not b for b in self.beats) \
            and all(c is None for c in self.cur)

    def _split(self, frame: bytes, tuser: int) -> list[tuple[int, int, int, int]]:
        out = []
        for off in range(0, len(frame), self.kw):
            chunk = frame[off:off + self.kw]
            last = off + self.kw >= len(frame)
            out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, int(last),
                        tuser if last else 0))
        return out

    async def run(self) -> None:
        clk = self.dut.clk
        while True:
            await RisingEdge(clk)
            ready = int(self.sig["tready"].value)
            for q in range(self.n):
                if self.cur[q] is not None and (ready >> q) & 1:
                    if self.cur[q][2]:
                        self.sent_frames[q] += 1
                    self.cur[q] = None
            data = keep = valid = last = user = 0
            for q in range(self.n):
                if self.cur[q] is None:
                    if not self.beats[q] and self.queues[q]:
                        self.beats[q].extend(self._split(*self.queues[q].popleft()))
                    if self.beats[q] and not (self.rng and self.rng.random() < self.busy):
                        self.cur[q] = self.beats[q].popleft()
                if self.cur[q] is not None:
                    d, k, lst, u = self.cur[q]
                    data |= d << (q * self.w)
                    keep |= k << (q * self.kw)
                    valid |= 1 << q
                    last |= lst << q
                    user |= u << q
            self.sig["tdata"].value = data
            self.sig["tkeep"].value = keep
            self.sig["tvalid"].value = valid
            self.sig["tlast"].value = last
            self.sig["tuser"].value = user
