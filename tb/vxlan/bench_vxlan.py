# SPDX-License-Identifier: Apache-2.0
"""VTEP benchmark at DATA_W=512 / 250 MHz / 100 G and DATA_W=64 / 156.25 MHz / 10 G
(tb_vtep: parser -> vtep; the same builds as the tests): decap and encap throughput for
64, 1500 and 9000 B inner frames as % of line rate, lookup rate, and idle-pipeline
latency in cycles.

Line rate is counted honestly: one frame on the wire takes inner + 50 (outer Ethernet
14 + IPv4 20 + UDP 8 + VXLAN 8) + 4 FCS + 8 preamble + 12 IFG bytes; 100 Gb/s at
250 MHz is 50 bytes per cycle, 10 Gb/s at 156.25 MHz is 8 bytes per cycle. Cycles per frame are measured between the last beats of
consecutive output frames in a back-to-back run (no pauses on either side)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw
    from test_vxlan import command, setup
    from vxlan_model import (
        ACT_LOCAL,
        ACT_UPLINK,
        OP_ADD,
        TBL_MAC,
        TBL_TUN,
        TBL_VNI,
        TUNNEL_FIELDS,
        mac_key,
        mac_value,
        pack,
        vni_value,
    )

    from fabnic_tb.beats import Sink, Source
    from fabnic_tb.bench import record
except ImportError:
    cocotb = None

OUTER = 14 + 20 + 8 + 8
WIRE_EXTRA = 4 + 8 + 12
# DATA_W -> (clock Hz, line rate b/s)
CLOCKS = {512: (250e6, 100e9), 64: (156.25e6, 10e9)}


def inner(n: int, i: int) -> bytes:
    p = Ether(dst="02:aa:00:00:00:01", src="02:bb:00:00:00:01") / IP(
        src="1.1.1.1", dst="2.2.2.2") / UDP(sport=1000 + i, dport=2000)
    return bytes(p / Raw(bytes(max(0, n - len(p)))))[:n]


if cocotb is not None:

    @cocotb.test()
    async def vtep_bench(dut):
        keep_w = await setup(dut)
        rng = random.Random(1)
        await command(dut, rng, OP_ADD, TBL_TUN, index=0, value=pack(TUNNEL_FIELDS, {
            "src_ip": 0x0A000001, "dst_ip": 0x0A000002, "src_mac": 2, "dst_mac": 3, "ttl": 64}))
        await command(dut, rng, OP_ADD, TBL_VNI, key=100 << 48, index=0, value=vni_value(0, [1]))
        await command(dut, rng, OP_ADD, TBL_MAC, key=mac_key(100, 0x02AA00000001),
                      value=mac_value(ACT_LOCAL, 1))
        # TX frames go out in VNI 200, where the inner destination is behind tunnel 0
        await command(dut, rng, OP_ADD, TBL_VNI, key=200 << 48, index=1, value=vni_value(0, []))
        await command(dut, rng, OP_ADD, TBL_MAC, key=mac_key(200, 0x02AA00000001),
                      value=mac_value(ACT_UPLINK, 0))
        clk_hz, line = CLOCKS[keep_w * 8]
        bpc = line / 8 / clk_hz
        cfg = {"DATA_W": keep_w * 8, "clk_MHz": clk_hz / 1e6, "line_Gbps": line / 1e9}
        for path in ("decap", "encap"):
            if path == "decap":
                src = Source(dut, "s_axis", keep_w, seed=None, cycle=dut.cycle)
                snk = Sink(dut, "m_local", keep_w, seed=None, cycle=dut.cycle)
            else:
                src = Source(dut, "s_tx", keep_w, seed=None, side=("vni", "qp"),
                             cycle=dut.cycle)
                snk = Sink(dut, "m_up", keep_w, seed=None, cycle=dut.cycle)
            for size in ((14, 64, 1500, 9000) if path == "decap" else (64, 1500, 9000)):
                n = {14: 200, 64: 200, 1500: 40, 9000: 12}[size]
                snk.frames.clear()
                src.first_beat_cycles.clear()
                # latency: one frame into an idle pipeline
                f0 = inner(size, 0)
                if path == "decap":
                    src.send(bytes(Ether() / IP(src="10.0.0.2", dst="10.0.0.1")
                                   / UDP(sport=50000, dport=4789) / VXLAN(vni=100) / f0))
                else:
                    src.send(f0, vni=200, qp=1)
                while not snk.frames:
                    await ClockCycles(dut.clk, 10)
                lat = snk.frames[0].start - src.first_beat_cycles[0]
                l0 = int(dut.cnt_lookups.value)
                for i in range(n):
                    f = inner(size, i)
                    if path == "decap":
                        src.send(bytes(Ether() / IP(src="10.0.0.2", dst="10.0.0.1")
                                       / UDP(sport=50000, dport=4789) / VXLAN(vni=100) / f))
                    else:
                        src.send(f, vni=200, qp=1)
                while len(snk.frames) < n + 1:
                    await ClockCycles(dut.clk, 50)
                ends = [fr.end for fr in snk.frames[1:]]
                assert all(len(fr.data) == len(snk.frames[1].data) for fr in snk.frames[1:])
                cyc = (ends[-1] - ends[0]) / (n - 1)
                wire = (size + OUTER + WIRE_EXTRA) / bpc
                pct = 100 * wire / cyc
                tag = f"vxlan.{path}.w{keep_w * 8}.{size}B"
                c = {**cfg, "inner_bytes": size, "frames": n}
                if size == 14:  # 64 B outer frames: one lookup per frame, peak lookup rate
                    lk = int(dut.cnt_lookups.value) - l0
                    # one lookup per frame: the bound is the frame rate of 64 B
                    # outer frames, i.e. one per ceil(64 / bytes per beat) cycles
                    bound = 1.0 / -(-64 // keep_w)
                    record(f"vxlan.lookup.w{keep_w * 8}.peak_rate",
                           lk / (ends[-1] - ends[0] + cyc), "lookups/cycle", bound, c,
                           note="14 B inner frames (64 B outer), back-to-back decap; "
                                "target = one lookup per frame at one beat/cycle")
                    dut._log.info(f"{tag}: {cyc:.2f} cycles/frame (lookup rate)")
                    await ClockCycles(dut.clk, 20)
                    continue
                record(f"{tag}.line_rate", pct, f"% of {line / 1e9:.0f}G", 100.0, c,
                       note="wire = inner + 50 B VXLAN/IPv4 + 24 B FCS/preamble/IFG")
                record(f"{tag}.cycles_per_frame", cyc, "cycles", None, c,
                       higher_is_better=False)
                record(f"{tag}.latency", lat, "cycles", None, c, higher_is_better=False,
                       note="first input beat accepted -> first output beat (idle)")
                if path == "decap":
                    lk = int(dut.cnt_lookups.value) - l0
                    record(f"{tag}.lookup_rate", lk / (ends[-1] - ends[0] + cyc) * clk_hz / 1e6,
                           "Mlookups/s", None, c, note="one lookup per frame; the table "
                           "accepts one per cycle")
                dut._log.info(f"{tag}: {cyc:.2f} cycles/frame, {pct:.1f}% of line rate, "
                              f"latency {lat} cycles")
                await ClockCycles(dut.clk, 20)
        # head-end replication: 1500 B broadcasts in VNI 300 (remote list: tunnel 0 twice)
        await command(dut, rng, OP_ADD, TBL_VNI, key=300 << 48, index=2,
                      value=vni_value(0, [], [0, 0]))
        src = Source(dut, "s_tx", keep_w, seed=None, side=("vni", "qp"), cycle=dut.cycle)
        snk = Sink(dut, "m_up", keep_w, seed=None, cycle=dut.cycle)
        n = 30
        for i in range(n):
            src.send(bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / Raw(inner(1500, i)[14:])), vni=300,
                     qp=1)
        while len(snk.frames) < 2 * n:
            await ClockCycles(dut.clk, 50)
        ends = [fr.end for fr in snk.frames]
        cyc = (ends[-1] - ends[0]) / (2 * n - 1)
        pct = 100 * (1500 + OUTER + WIRE_EXTRA) / bpc / cyc
        record(f"vxlan.flood2.w{keep_w * 8}.1500B.line_rate", pct, f"% of {line / 1e9:.0f}G",
               100.0, {**cfg, "inner_bytes": 1500, "frames": n, "copies": 2},
               note="TX broadcast replicated to 2 remote VTEPs; rate of output copies")
        dut._log.info(f"flood x2 1500B: {cyc:.2f} cycles/copy, {pct:.1f}% of line rate")


@pytest.mark.parametrize("data_w", [512, 64])
def test_bench_vxlan(data_w: int) -> None:
    from fabnic_tb.runner import run

    here = Path(__file__).parent
    run(toplevel="tb_vtep", module="bench_vxlan", test_dir=here,
        extra_sources=[here / "tb_vtep.sv"],
        parameters={"DATA_W": data_w, "ENTRIES": 64, "WAYS": 4, "FLOOD_MAX": 4, "QP_W": 8,
                    "TX_DEPTH": 16384 // (data_w // 8)})
