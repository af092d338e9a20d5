# SPDX-License-Identifier: Apache-2.0
"""AXI-Stream helpers around cocotbext-axi: random pause generators and setup."""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Iterator

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
