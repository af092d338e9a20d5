# SPDX-License-Identifier: Apache-2.0
"""FIFO throughput with the SystemVerilog generator/monitor (no Python per cycle).

Also a self-check of the tb/sv components: the monitor must count exactly the
frames and bytes the generator was told to send.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge

    from fabnic_tb.bench import record
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


if cocotb is not None:

    @cocotb.test()
    async def fifo_throughput(dut):
        await start_clock_reset(dut)
        keep_w = int(dut.DATA_W.value) // 8
        for size in (64, 1500, 9000):
            n = max(200, 400_000 // size)
            dut.hdr_len.value = 0
            dut.len_min.value = size
            dut.len_max.value = size
            dut.n_frames.value = n
            dut.gap.value = 0
            dut.rate_q8.value = 0
            dut.overhead.value = 0
            dut.busy_per_256.value = 0
            await start_clock_reset(dut)  # clears counters
            wall = time.perf_counter()
            c0 = int(dut.cycle.value)
            dut.start.value = 1
            await RisingEdge(dut.clk)
            dut.start.value = 0
            while int(dut.mon.frames.value) < n:
                await ClockCycles(dut.clk, 1000)
            cycles = int(dut.mon.last_cycle.value) - int(dut.mon.first_cycle.value) + 1
            wall = time.perf_counter() - wall
            assert int(dut.mon.bytes.value) == n * size
            beats = n * -(-size // keep_w)
            util = beats / cycles
            record(f"fifo.w{keep_w * 8}.{size}B.beat_util", util, "beats/cycle", 0.99,
                   {"DATA_W": keep_w * 8, "frame": size})
            record(f"fifo.w{keep_w * 8}.{size}B.sim_speed",
                   (int(dut.cycle.value) - c0) / wall, "cycles/s", None,
                   {"DATA_W": keep_w * 8, "frame": size})


@pytest.mark.parametrize("data_w", [512])
def test_bench_axis_fifo(data_w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_fifo_bench", module="bench_axis_fifo", test_dir=here,
               extra_sources=[here / "tb_fifo_bench.sv"], parameters={"DATA_W": data_w})
