# SPDX-License-Identifier: Apache-2.0
"""fabnic_fifo (FWFT control FIFO) against a Python deque, random valid/ready."""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ReadOnly, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


if cocotb is not None:

    @cocotb.test()
    async def fifo_matches_deque(dut):
        await start_clock_reset(dut)
        depth = int(dut.DEPTH.value)
        width = int(dut.WIDTH.value)
        rng = random.Random(3)
        model: deque[int] = deque()
        popped = 0
        for cycle in range(6000):
            busy_in = 0.7 if (cycle // 500) % 2 else 0.2  # alternate fill / drain phases
            dut.in_valid.value = int(rng.random() > busy_in)
            dut.in_data.value = data = rng.getrandbits(width)
            dut.out_ready.value = int(rng.random() < (0.3 if (cycle // 500) % 2 == 0 else 0.9))
            await ReadOnly()
            assert int(dut.status_count.value) == len(model)
            assert int(dut.in_ready.value) == (len(model) < depth)
            assert int(dut.out_valid.value) == (len(model) > 0)
            if model:
                assert int(dut.out_data.value) == model[0]
            push = int(dut.in_valid.value) and int(dut.in_ready.value)
            pop = int(dut.out_valid.value) and int(dut.out_ready.value)
            await RisingEdge(dut.clk)
            if pop:
                model.popleft()
                popped += 1
            if push:
                model.append(data)
        assert popped > 1000


def test_fifo() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_fifo", module="test_fifo", test_dir=Path(__file__).parent,
               parameters={"WIDTH": 40, "DEPTH": 8})
