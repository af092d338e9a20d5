# SPDX-License-Identifier: Apache-2.0
"""DMA read/write throughput at 512 bits, 250 MHz, against tb_host_axi_mem (fixed
latency, SystemVerilog, no Python per cycle). The RTL generator issues back-to-back
descriptors; cycles are counted in the simulation from start to the last completion.
The read sink checks every byte against the memory pattern (rd_errors must be 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge

    from fabnic_tb.bench import gbps, record
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

LATENCY = 200  # cycles (800 ns at 250 MHz): a PCIe-like host read round trip
SHORT_LATENCY = 24  # cycles: an on-chip memory, shows the engine's own per-descriptor cost
SIZES = [64, 256, 4096, 65536]
TOTAL = 1 << 20  # bytes moved per measurement (at least 16 transfers)
TARGET = 97.0  # Gb/s for 4 KB and larger

if cocotb is not None:

    @cocotb.test(timeout_time=20000, timeout_unit="us")
    async def dma_throughput(dut):
        await start_clock_reset(dut)
        dut.start.value = 0
        base = dict(AXI_DATA_W=int(dut.AXI_DATA_W.value),
                    MAX_BURST_LEN=int(dut.MAX_BURST_LEN.value),
                    MAX_OUTSTANDING=int(dut.MAX_OUTSTANDING.value))
        runs = []
        for mode, name in ((0, "read"), (1, "write")):  # reads first: writes change memory
            runs += [(mode, name, LATENCY, sz) for sz in SIZES]
            runs += [(mode, name, SHORT_LATENCY, sz) for sz in SIZES[:2]]
        for mode, name, lat, size in runs:
            dut.latency.value = lat
            cfg = dict(base, latency_cycles=lat)
            count = max(16, TOTAL // size)
            dut.mode.value = mode
            dut.xfer_len.value = size
            dut.stride.value = size
            dut.count.value = count
            dut.start.value = 1
            await RisingEdge(dut.clk)
            dut.start.value = 0
            await RisingEdge(dut.done)
            await ClockCycles(dut.clk, 2)
            cycles = int(dut.cycles.value)
            assert int(dut.rd_errors.value) == 0, "read data mismatch"
            assert int(dut.cpl_errors.value) == 0, "completion error"
            rate = gbps(size * count, cycles)
            dut._log.info("%s %6d B x %5d: %8d cycles, %.1f Gb/s", name, size, count,
                          cycles, rate)
            suffix = "" if lat == LATENCY else f"_lat{lat}"
            record(f"host_dma_{name}_{size}B{suffix}", round(rate, 2), "Gb/s",
                   TARGET if size >= 4096 else None, dict(cfg, xfer_bytes=size, count=count),
                   note="" if size >= 4096 else "latency bound: MAX_OUTSTANDING bursts "
                   "per round trip")


@pytest.mark.parametrize("w", [512])
def test_bench_dma(w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_host_dma_bench", module="bench_dma", test_dir=here,
               parameters=dict(AXI_DATA_W=w, MAX_BURST_LEN=64, MAX_OUTSTANDING=16,
                               DESC_DEPTH=16),
               extra_sources=[here / "tb_host_axi_mem.sv", here / "tb_host_dma_bench.sv"])
