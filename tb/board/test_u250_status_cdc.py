# SPDX-License-Identifier: Apache-2.0
"""fabnic_u250_status_cdc: event counters and levels carried from one clock to another.

Random events on the source clock are counted in Python; whenever the source goes
quiet, every destination counter must settle on that count (modulo 2**CNT_W), and
while events flow every value the destination shows must be one the source count has
passed through (never ahead, never a torn mix of two Gray codes). Levels must follow.
CNT_W 6 wraps many times; CNT_W 20 spans three 8-bit groups of the two-step Gray
decode, the last one partial.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fabnic_tb.runner import run

try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, RisingEdge
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

HERE = Path(__file__).parent

if cocotb is not None:

    @cocotb.test()
    async def counts_and_levels(dut):
        counts = int(dut.COUNTS.value)
        width = int(dut.CNT_W.value)
        stages = int(dut.SYNC_STAGES.value)
        mod = 1 << width
        Clock(dut.src_clk, 4, unit="ns", impl="gpi").start()
        Clock(dut.dst_clk, 3.3, unit="ns", impl="gpi").start()
        rng = random.Random(5)
        dut.src_event.value = 0
        dut.src_level.value = 0
        dut.src_rst.value = 1
        dut.dst_rst.value = 1
        await ClockCycles(dut.src_clk, 4)
        dut.src_rst.value = 0
        dut.dst_rst.value = 0
        total = [0] * counts
        history = [{0} for _ in range(counts)]   # every count the source has held

        async def settle() -> None:
            dut.src_event.value = 0
            await ClockCycles(dut.dst_clk, stages + 6)
            for j in range(counts):
                got = int(dut.dst_count[j].value)
                assert got == total[j] % mod, (j, got, total[j] % mod)

        for burst in range(12):
            level = rng.getrandbits(int(dut.LEVELS.value))
            dut.src_level.value = level
            for _ in range(rng.randint(20, 120)):
                ev = rng.getrandbits(counts)
                dut.src_event.value = ev
                await RisingEdge(dut.src_clk)
                for j in range(counts):
                    if ev >> j & 1:
                        total[j] += 1
                        history[j].add(total[j] % mod)
                if width > 8:  # values in flight: only counts the source really held
                    for j in range(counts):
                        got = int(dut.dst_count[j].value)
                        assert got in history[j], (burst, j, got)
            await settle()
            assert int(dut.dst_level.value) == level
        assert all(t > mod for t in total) or width > 8  # CNT_W 6 wrapped


@pytest.mark.parametrize("cnt_w", [6, 20])
def test_u250_status_cdc(cnt_w: int) -> None:
    run(toplevel="fabnic_u250_status_cdc", module="test_u250_status_cdc", test_dir=HERE,
        parameters={"LEVELS": 3, "COUNTS": 2, "CNT_W": cnt_w, "SYNC_STAGES": 2})
