# SPDX-License-Identifier: Apache-2.0
"""Foundation datapath throughput and latency at 100 G (DATA_W=512, 250 MHz).

The SystemVerilog generator offers UDP/IPv4 frames at exactly 100 Gb/s line rate
(frame + 20 B preamble/IFG + 4 B FCS per frame, since the AXIS frames here
exclude the FCS) into the hard-MAC side of fabnic_datapath_100g; the monitor
counts the echoes leaving toward the hard MAC. Sizes are Ethernet frame sizes
including FCS. 100% means the datapath kept up with line rate: every frame
echoed and the output frame rate equal to the offered one.
"""

from __future__ import annotations

import time
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    from fabnic_tb.bench import record
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

LINE_BPS = 100e9
CLK_HZ = 250e6
WIRE_OVERHEAD = 20  # preamble + SFD 8, IFG 12 (FCS is counted in the frame size)


def header(size: int) -> bytes:
    """Ether/IPv4/UDP header for an echoable frame of `size` bytes incl. FCS."""
    axis_len = size - 4
    p = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(
        src="10.0.0.1", dst="10.0.0.2", len=axis_len - 14) / UDP(sport=1000, dport=2000,
                                                                 len=axis_len - 34, chksum=0)
    return bytes(p)


if cocotb is not None:

    @cocotb.test()
    async def datapath_100g_line_rate(dut):
        for size in (64, 1500, 9000):
            n = max(300, 3_000_000 // size)
            hdr = header(size)
            dut.hdr.value = int.from_bytes(hdr.ljust(128, b"\0"), "little")
            dut.hdr_len.value = len(hdr)
            dut.len_min.value = dut.len_max.value = size - 4
            dut.n_frames.value = n
            dut.gap.value = 0
            # line rate in bytes/cycle, Q8.8; the frame costs its AXIS length + FCS + 20
            dut.rate_q8.value = round(LINE_BPS / 8 / CLK_HZ * 256)
            dut.overhead.value = WIRE_OVERHEAD + 4
            dut.busy_per_256.value = 0
            await start_clock_reset(dut)
            wall = time.perf_counter()
            c0 = int(dut.cycle.value)
            dut.start.value = 1
            await RisingEdge(dut.clk)
            dut.start.value = 0
            limit = c0 + 4 * n * (size + 24) // 50 + 10_000
            while int(dut.mon.frames.value) < n and int(dut.cycle.value) < limit:
                await ClockCycles(dut.clk, 2000)
            await ClockCycles(dut.clk, 2000)  # let the tail drain
            got = int(dut.mon.frames.value)
            wall = time.perf_counter() - wall
            assert int(dut.mon.bad_frames.value) == 0
            # offered load is exactly line rate, so the delivered fraction is the
            # fraction of line rate the datapath sustains (the rest overflowed the
            # RX FIFO: a hard MAC cannot be back-pressured)
            pct = 100 * got / n
            cfg = {"DATA_W": 512, "frame_B": size, "clock_MHz": 250, "offered": n}
            record(f"datapath100g.{size}B.line_rate_pct", pct, "%", 100.0, cfg)
            record(f"datapath100g.{size}B.dropped", n - got, "frames", 0, cfg,
                   higher_is_better=False)
            record(f"datapath100g.{size}B.sim_speed", (int(dut.cycle.value) - c0) / wall,
                   "cycles/s", None, cfg)
        # latency: one frame on an idle pipeline, first input beat -> first output beat
        hdr = header(64)
        dut.hdr.value = int.from_bytes(hdr.ljust(128, b"\0"), "little")
        dut.hdr_len.value = len(hdr)
        dut.len_min.value = dut.len_max.value = 60
        dut.n_frames.value = 1
        await start_clock_reset(dut)
        dut.start.value = 1
        await RisingEdge(dut.clk)
        dut.start.value = 0
        await ClockCycles(dut.clk, 200)
        assert int(dut.mon.frames.value) == 1
        lat = int(dut.mon.first_cycle.value) - int(dut.gen.first_cycle.value)
        record("datapath100g.latency_rx_to_tx", lat, "cycles", None,
               {"DATA_W": 512, "path": "hard-MAC RX -> parser -> echo -> builder -> hard-MAC TX"},
               higher_is_better=False)


def test_bench_datapath_100g() -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_dp100_bench", module="bench_datapath", test_dir=here,
               extra_sources=[here / "tb_dp100_bench.sv"], parameters={"DATA_W": 512})
