# SPDX-License-Identifier: Apache-2.0
"""pkt benchmarks (make bench): parser and builder sustained throughput for 60/64,
1500 and 9000-byte frames, and parser latency, at DATA_W=64 and 512.

Lean whole-beat driver (fabnic_tb.beats, no pauses, sink always ready); cycles are counted
in the simulation. Gb/s are converted at the clock each width is meant for: 250 MHz
at 512 bits (100 G), 156.25 MHz at 64 bits (10 G). Reuses the tb_pkt build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw

    from fabnic_tb.beats import Cycle, Sink, Source, VecSink, VecSource
    from fabnic_tb.bench import record
    from fabnic_tb.clock import start_clock_reset
    from fabnic_tb.pkt_model import pack_meta
except ImportError:
    cocotb = None

SIZES = (60, 64, 1500, 9000)


def frame_of(size: int) -> bytes:
    f = bytes(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=4791)
              / Raw(bytes(size - 42)))
    assert len(f) == size
    return f


if cocotb is not None:

    async def _drain(dut, src, sink, n_frames: int) -> None:
        while len(sink.frames) < n_frames:
            await ClockCycles(dut.clk, 64)

    @cocotb.test()
    async def bench(dut):
        await start_clock_reset(dut)
        kw = len(dut.p1_s_axis_tkeep)
        clk_mhz = 250.0 if kw == 64 else 156.25
        cfg = {"DATA_W": kw * 8, "clk_MHz": clk_mhz}
        cyc = Cycle(dut.clk)
        port = {}
        for p in ("p0", "p1"):
            port[p] = (Source(dut, f"{p}_s_axis", kw, seed=None, cycle=cyc),
                       Sink(dut, f"{p}_m_axis", kw, seed=None, cycle=cyc))
            VecSink(dut, f"{p}_m_meta_data", f"{p}_m_meta_valid", f"{p}_m_meta_ready", seed=None)
        msrc = VecSource(dut, "b_s_meta_data", "b_s_meta_valid", "b_s_meta_ready", seed=None)
        port["b"] = (Source(dut, "b_s_axis", kw, seed=None, cycle=cyc),
                     Sink(dut, "b_m_axis", kw, seed=None, cycle=cyc))

        def fresh(p: str):
            src, sink = port[p]
            src.first_beat_cycles.clear()
            sink.frames.clear()
            return src, sink
        # -------- parser latency (idle pipeline, one frame, both output modes)
        for p, what in (("p0", "first frame byte (STRIP=0)"), ("p1", "first payload byte (STRIP=1)")):
            src, sink = fresh(p)
            src.send(frame_of(1500))
            await _drain(dut, src, sink, 1)
            lat = sink.frames[0].start - src.first_beat_cycles[0]
            record(f"pkt.parser.latency.{p}.w{kw * 8}", lat, "cycles", target=8,
                   higher_is_better=False, config=cfg,
                   note=f"first input beat accepted -> {what} valid, 1500 B UDP/IPv4")
            dut._log.info("parser %s latency %d cycles", p, lat)
            await ClockCycles(dut.clk, 20)
        # -------- parser throughput (STRIP=1: realign + trim path)
        for size in SIZES:
            f = frame_of(size)
            beats = -(-size // kw)
            n = max(20, min(2000, 40000 // beats))
            src, sink = fresh("p1")
            for _ in range(n):
                src.send(f)
            await _drain(dut, src, sink, n)
            first, last = src.first_beat_cycles[0], src.first_beat_cycles[-1]
            # input cycles for n frames: (n-1) frame starts apart + one frame's beats
            cycles = (last - first) + beats
            util = n * beats / cycles
            gb = n * size * 8 / (cycles / (clk_mhz * 1e6)) / 1e9
            record(f"pkt.parser.util.{size}B.w{kw * 8}", round(util, 4), "beats/cycle", target=1.0,
                   config=cfg | {"frames": n})
            record(f"pkt.parser.rate.{size}B.w{kw * 8}", round(gb, 2), "Gb/s", config=cfg)
            dut._log.info("parser %d B: %.3f beats/cycle, %.2f Gb/s", size, util, gb)
            await ClockCycles(dut.clk, 20)
        # -------- builder latency (idle, metadata and first payload beat offered together)
        meta = pack_meta({"dst_mac": 2, "src_mac": 1, "is_ipv4": 1, "ttl": 64, "is_udp": 1,
                          "src_ip": 0x0A000001, "dst_ip": 0x0A000002, "src_port": 1,
                          "dst_port": 4791, "payload_len": 1458})
        src, sink = fresh("b")
        offered = cyc.n + 1   # both sources drive valid from the next clock edge on
        msrc.send(meta)
        src.send(bytes(1458))
        await _drain(dut, src, sink, 1)
        lat = sink.frames[0].start - offered
        record(f"pkt.builder.latency.w{kw * 8}", lat, "cycles", higher_is_better=False,
               config=cfg, note="metadata and first payload beat offered in the same cycle -> "
               "first output beat taken, 1500 B UDP/IPv4, idle builder")
        dut._log.info("builder latency %d cycles", lat)
        await ClockCycles(dut.clk, 20)
        # -------- builder throughput (output side)
        for size in SIZES:
            pay = bytes(size - 42)
            beats = -(-size // kw)
            n = max(20, min(2000, 40000 // beats))
            meta = pack_meta({"dst_mac": 2, "src_mac": 1, "is_ipv4": 1, "ttl": 64, "is_udp": 1,
                              "src_ip": 0x0A000001, "dst_ip": 0x0A000002, "src_port": 1,
                              "dst_port": 4791, "payload_len": len(pay)})
            src, sink = fresh("b")
            for _ in range(n):
                msrc.send(meta)
                src.send(pay)
            await _drain(dut, src, sink, n)
            assert all(len(r.data) == size for r in sink.frames)
            cycles = sink.frames[-1].end - sink.frames[0].start + 1
            util = n * beats / cycles
            gb = n * size * 8 / (cycles / (clk_mhz * 1e6)) / 1e9
            record(f"pkt.builder.util.{size}B.w{kw * 8}", round(util, 4), "beats/cycle",
                   target=1.0, config=cfg | {"frames": n})
            record(f"pkt.builder.rate.{size}B.w{kw * 8}", round(gb, 2), "Gb/s", config=cfg)
            dut._log.info("builder %d B: %.3f beats/cycle, %.2f Gb/s", size, util, gb)
            await ClockCycles(dut.clk, 20)


@pytest.mark.parametrize("data_w", [64, 512])
def test_bench_pkt(data_w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_pkt", module="bench_pkt", test_dir=here,
               parameters={"DATA_W": data_w}, extra_sources=[here / "tb_pkt.sv"])
