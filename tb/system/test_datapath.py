# SPDX-License-Identifier: Apache-2.0
"""Foundation datapath, end to end: XGMII -> MAC -> parser -> UDP echo -> builder
-> MAC -> XGMII, with counters read through AXI-Lite by the fw/ driver.

Expected behaviour comes from tb/system/traffic.py (scapy-built frames, each with
its expected fate); the echo replies are checked field by field with scapy and
the per-reason counters against the traffic list.

The `demo` test is what `make demo` runs: the same traffic, plus a summary,
a .pcap of both directions and (with WAVES=1) an FST waveform.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
    from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource
    from traffic import build_mix, check_echo, expected_counters, fcs

    from fabnic.device import Device
    from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
    from fabnic_tb.pcap import SimPcap
except ImportError:
    cocotb = None

XGMII_NS = 6.4  # 156.25 MHz


class Harness:
    def __init__(self, dut):
        self.dut = dut
        self.src = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
        self.sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
        for m in (self.src, self.sink):
            m.log.setLevel("WARNING")
        self.bus = SimAxiLiteBus(dut)
        self.cycle = 0

    async def start(self):
        Clock(self.dut.clk, XGMII_NS, unit="ns", impl="gpi").start()
        cocotb.start_soon(self._count())
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 10)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 10)

    async def _count(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle += 1


def _sim_ns() -> float:
    from cocotb.utils import get_sim_time

    return get_sim_time("ns")


async def run_traffic(dut, items, pcap_path: Path | None = None):
    h = Harness(dut)
    await h.start()
    pcap = SimPcap(pcap_path) if pcap_path else None
    dev = Device(h.bus)
    info = await run_driver(dev.info)
    assert info.data_w == 64
    t0 = h.cycle
    for it in items:
        wire = it.frame.ljust(60, b"\0")
        wire += fcs(wire) if it.fcs_ok else bytes(b ^ 0xFF for b in fcs(wire))
        if pcap:
            pcap.write(it.frame, _sim_ns())
        await h.src.send(XgmiiFrame.from_raw_payload(wire))
    echoes = [it for it in items if it.kind == "echo"]
    replies = []
    for _ in echoes:
        f = await with_timeout(h.sink.recv(), 2_000_000, "ns")
        assert f.check_fcs(), "reply FCS wrong"
        data = f.get_payload()
        replies.append(data)
        if pcap:
            pcap.write(data, _sim_ns())
    cycles = h.cycle - t0
    await ClockCycles(dut.clk, 200)
    assert h.sink.empty(), "more frames came out than UDP echoes expected"
    for it, data in zip(echoes, replies, strict=True):
        check_echo(it, data)
    counters = {}
    for blk in ("mac", "parser", "echo"):
        counters[blk] = await run_driver(dev.counters, blk)
    if pcap:
        pcap.close()
    return counters, cycles, replies


def check_counters(items, counters) -> None:
    exp = expected_counters(items)
    mac, parser, echo = counters["mac"], counters["parser"], counters["echo"]
    n_good_fcs = sum(1 for it in items if it.fcs_ok)
    assert mac["rx_frames"] == n_good_fcs, (mac["rx_frames"], n_good_fcs)
    assert mac["rx_bad_fcs"] == exp["drop_bad_fcs"]
    assert parser["frames_in"] == n_good_fcs
    assert parser["err_ipv4_csum"] == exp["drop_ipv4_csum"]
    assert parser["err_ip_version"] == exp["drop_ip_version"]
    assert parser["err_udp_length"] == exp["drop_udp_length"]
    n_parser_drops = exp["drop_ipv4_csum"] + exp["drop_ip_version"] + exp["drop_udp_length"]
    assert parser["dropped"] == n_parser_drops
    assert echo["echoed"] == exp["echo"]
    assert echo["roce"] == exp["roce"] and echo["vxlan"] == exp["vxlan"]
    assert echo["other"] == exp["other"]
    assert echo["built"] == exp["echo"] and echo["len_mismatch"] == 0
    assert mac["tx_frames"] == exp["echo"]


if cocotb is not None:

    @cocotb.test()
    async def datapath_echo_and_drops(dut):
        items = build_mix(random.Random(int(os.environ.get("SEED_MIX", "11"))))
        counters, _, _ = await run_traffic(dut, items)
        check_counters(items, counters)

    @cocotb.test(skip=os.environ.get("FABNIC_DEMO") != "1")
    async def demo(dut):
        out = Path(os.environ.get("FABNIC_DEMO_OUT", "."))
        items = build_mix(random.Random(2026), n_echo=200, n_each=6)
        counters, cycles, replies = await run_traffic(dut, items, out / "demo.pcap")
        check_counters(items, counters)
        in_bytes = sum(len(it.frame) for it in items)
        summary = {
            "frames_in": len(items), "bytes_in": in_bytes,
            "frames_out": len(replies), "bytes_out": sum(len(r) for r in replies),
            "cycles": cycles, "clock_mhz": 156.25,
            "counters": counters,
        }
        (out / "demo_summary.json").write_text(json.dumps(summary, indent=1))


def test_datapath_10g() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_datapath_10g", module="test_datapath",
               test_dir=Path(__file__).parent, testcase="datapath_echo_and_drops",
               read_only_internals=True)
