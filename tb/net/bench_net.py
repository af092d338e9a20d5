# SPDX-License-Identifier: Apache-2.0
"""3:1 incast through fabnic_tb_switch (tb_net_switch.sv wrapper, 100 G links,
1 us cables, no congestion control), 4 KB frames, with a 256 KB and a 1 MB shared
buffer: egress utilization (target: line rate), peak queue, drops, ECN-marked
fraction and simulation speed. Reuses the test wrapper, so no extra build."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from net_tb import reset
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from test_net_switch import cnt, configure, host_mac, run_gens, set_gen

    from fabnic_tb.bench import record
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

from net_models import prob32

OVH = 24


if cocotb is not None:

    @cocotb.test()
    async def incast_3to1(dut):
        await start_clock_reset(dut)
        length, n = 4096, 1000
        senders = [0, 1, 3]
        for name, buf in (("buf256K", 1 << 18), ("buf1M", 1 << 20)):
            configure(dut, 1.0)
            dut.buf_size.value = buf
            dut.ecn_en.value = 1
            dut.kmin.value = 100_000
            dut.kmax.value = 400_000
            dut.pmax.value = prob32(0.2)
            for i in range(4):
                dut.g_port[i].in_delay.value = 250
                dut.g_port[i].out_delay.value = 250
            await reset(dut)
            for i in senders:
                hdr = bytes(Ether(dst=host_mac(2), src=host_mac(i)) /
                            IP(src=f"10.0.0.{i + 1}", dst="10.0.0.3", tos=0x02, len=length - 14) /
                            UDP(sport=1000 + i, dport=4791, len=length - 34, chksum=0))[:42]
                set_gen(dut, i, hdr, n, length)
            wall = time.perf_counter()
            c0 = int(dut.cycle.value)
            await run_gens(dut, senders, settle=1000)
            cycles = int(dut.cycle.value) - c0
            wall = time.perf_counter() - wall
            mon = dut.g_port[2].mon
            span = int(mon.last_cycle.value) - int(mon.first_cycle.value)
            util = int(mon.bytes.value) / span / (50 * length / (length + OVH))
            got = int(mon.frames.value)
            drops = cnt(dut, "cnt_drop_tail", 2)
            peak = cnt(dut, "peak_qlen", 2)
            marks = cnt(dut, "cnt_ecn_mark", 2)
            cfg = {"senders": len(senders), "frame": length, "frames_per_sender": n,
                   "buf": buf, "rate_Bpc": 50, "cable_cycles": 250}
            record(f"net.incast3.{name}.egress_util", util, "fraction of line rate", 0.98, cfg)
            record(f"net.incast3.{name}.peak_queue", peak, "bytes", None, cfg)
            record(f"net.incast3.{name}.drops", drops, "frames", None, cfg)
            record(f"net.incast3.{name}.ecn_marked", marks / max(1, got), "fraction", None, cfg)
            record(f"net.incast3.{name}.sim_speed", cycles / wall, "cycles/s", None, cfg)
            dut._log.info("%s: util %.4f peak %d drops %d marks %d of %d, %.0f cycles/s",
                          name, util, peak, drops, marks, got, cycles / wall)
            assert got + drops == len(senders) * n
            assert peak <= buf
            await ClockCycles(dut.clk, 10)


@pytest.mark.parametrize("data_w", [512])
def test_bench_net(data_w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_net_switch", module="bench_net", test_dir=here,
               extra_sources=[here / "tb_net_switch.sv"], parameters={"DATA_W": data_w},
               plusargs=["+fabnic_qtrace=qtrace.txt"])
