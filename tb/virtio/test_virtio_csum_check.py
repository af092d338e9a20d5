# SPDX-License-Identifier: Apache-2.0
"""fabnic_virtio_csum_check against a model of the DATA_VALID rules (docs/virtio.md).

The model (`verdict`) is written from the RFCs: it parses the frame bytes itself (VLAN,
IPv4 with options and fragments, IPv6 without extension headers, TCP/UDP) and sums the
L4 segment and pseudo header with RFC 1071 arithmetic; the checksums of the frames are
made by scapy. Frames cover good, corrupted and unverifiable cases (fragments, UDP
checksum 0, truncated or padded datagrams, other protocols, runts, tuser-bad frames) at
random lengths. Every frame must leave unchanged, in order, with its tdest and bad flag,
and with tuser[1] set exactly when the model says "ok"; the three counters must equal
the model's counts. Random valid/ready pauses on both sides. A second test checks the
documented latency (6 cycles) and one beat per cycle with no pauses.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest
from scapy.utils import checksum

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiStreamFrame
    from scapy.layers.inet import ICMP, IP, TCP, UDP
    from scapy.layers.inet6 import IPv6, IPv6ExtHdrDestOpt
    from scapy.layers.l2 import ARP, Dot1Q, Ether

    from fabnic_tb.axis import axis_sink, axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

LATENCY = 8


def verdict(frame: bytes) -> str:
    """'ok' (TCP/UDP checksum right), 'bad' (wrong) or 'skip' (nothing to verify)."""
    n = len(frame)
    if n < 14:
        return "skip"
    l3 = 14
    etype = int.from_bytes(frame[12:14], "big")
    if etype == 0x8100:
        if n < 18:
            return "skip"
        l3 = 18
        etype = int.from_bytes(frame[16:18], "big")
    if n < l3 + 1:
        return "skip"
    ver, ihl = frame[l3] >> 4, frame[l3] & 15
    if etype == 0x0800 and ver == 4 and ihl >= 5:
        if n < l3 + 20:
            return "skip"
        if int.from_bytes(frame[l3 + 6:l3 + 8], "big") & 0x3FFF:   # MF or offset
            return "skip"
        proto = frame[l3 + 9]
        l4 = l3 + 4 * ihl
        end = l3 + int.from_bytes(frame[l3 + 2:l3 + 4], "big")
        addrs = frame[l3 + 12:l3 + 20]
    elif etype == 0x86DD and ver == 6:
        if n < l3 + 40:
            return "skip"
        proto = frame[l3 + 6]
        l4 = l3 + 40
        end = l4 + int.from_bytes(frame[l3 + 4:l3 + 6], "big")
        addrs = frame[l3 + 8:l3 + 40]
    else:
        return "skip"
    if proto not in (6, 17) or end > n or l4 > end:
        return "skip"
    seg = frame[l4:end]
    if proto == 6 and len(seg) < 20:
        return "skip"
    if proto == 17 and (len(seg) < 8 or int.from_bytes(seg[4:6], "big") != len(seg)
                        or seg[6:8] == b"\0\0"):
        return "skip"
    pseudo = addrs + struct.pack(">HH", proto, len(seg))
    return "ok" if checksum(pseudo + seg) == 0 else "bad"   # RFC 1071 sum is all ones


def make_frames(rng: random.Random, count: int) -> list[tuple[bytes, int]]:
    """(frame, tuser bad) pairs of many kinds."""
    mac = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")

    def pl(k: int) -> bytes:
        return bytes(rng.getrandbits(8) for _ in range(k))

    def size() -> int:
        r = rng.random()
        return rng.randint(0, 40) if r < 0.5 else rng.randint(41, 600) if r < 0.9 \
            else rng.randint(601, 3000)

    out: list[tuple[bytes, int]] = []
    while len(out) < count:
        kind = rng.randrange(16)
        eth = mac / Dot1Q(vlan=rng.randint(1, 4000)) if rng.random() < 0.3 else mac
        ip4 = IP(src="10.1.2.3", dst="192.168.7.9", ttl=rng.randint(1, 255))
        ip6 = IPv6(src="fd00::1:2", dst="fd00::99:abcd", hlim=rng.randint(1, 255))
        if kind == 0:
            p = eth / ip4 / TCP(sport=rng.getrandbits(16), dport=80, seq=rng.getrandbits(32)) / pl(size())
        elif kind == 1:
            p = eth / ip4 / UDP(sport=rng.getrandbits(16), dport=53) / pl(size())
        elif kind == 2:
            p = eth / ip6 / TCP(sport=1, dport=rng.getrandbits(16)) / pl(size())
        elif kind == 3:
            p = eth / ip6 / UDP(sport=7, dport=rng.getrandbits(16)) / pl(size())
        elif kind == 4:   # IPv4 options (IHL 6..15)
            opt = b"\x01" * (4 * rng.randint(1, 10))
            p = eth / IP(src="1.2.3.4", dst="5.6.7.8", options=opt) / \
                (TCP(dport=9) if rng.random() < 0.5 else UDP(dport=9)) / pl(size())
        elif kind == 5:   # fragments
            p = eth / IP(src="1.2.3.4", dst="5.6.7.8", flags=rng.choice([1, 0]),
                         frag=rng.choice([0, 3, 100])) / UDP(dport=9) / pl(size())
        elif kind == 6:   # UDP checksum 0 (IPv4: none)
            p = eth / ip4 / UDP(dport=9, chksum=0) / pl(size())
        elif kind == 7:   # other protocols and ethertypes
            p = rng.choice([eth / ip4 / ICMP() / pl(size()), mac / ARP(),
                            eth / ip6 / IPv6ExtHdrDestOpt() / UDP(dport=9) / pl(size())])
        elif kind == 8:   # Ethernet padding after the datagram
            p = eth / ip4 / UDP(dport=9) / pl(rng.randint(0, 10))
            b = bytes(p) + pl(rng.randint(1, 70))
            out.append((b, 0))
            continue
        elif kind == 9:   # runts and garbage
            out.append((pl(rng.randint(1, 100)), 0))
            continue
        else:
            p = eth / rng.choice([ip4, ip6]) / rng.choice([TCP(dport=5), UDP(dport=5)]) / pl(size())
        b = bytearray(bytes(p))
        r = rng.random()
        if r < 0.25 and len(b) > 14:     # corrupt one byte anywhere
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif r < 0.32 and len(b) > 40:   # truncated datagram
            del b[rng.randint(30, len(b) - 1):]
        elif r < 0.36:                   # wrong UDP length field / IP length
            for i in range(len(b) - 1):
                if rng.random() < 0.02:
                    b[i] = rng.getrandbits(8)
        out.append((bytes(b), int(rng.random() < 0.05)))
    return out


if cocotb is not None:

    async def _run_frames(dut, frames, src_busy: float, sink_busy: float, seed: int):
        src = axis_source(dut, "s_axis", seed=seed, busy=src_busy)
        sink = axis_sink(dut, "m_axis", seed=seed + 1, busy=sink_busy)
        dest_max = (1 << len(dut.s_axis_tdest)) - 1
        kw = len(dut.s_axis_tkeep)
        c0 = {k: int(getattr(dut, f"cnt_{k}").value) for k in ("ok", "bad", "skip")}
        want = {"ok": 0, "bad": 0, "skip": 0}
        dests = []
        for i, (f, bad) in enumerate(frames):
            d = i % (dest_max + 1)
            dests.append(d)
            await src.send(AxiStreamFrame(f, tuser=bad, tdest=d))
            if not bad:
                want[verdict(f)] += 1
        for i, (f, bad) in enumerate(frames):
            rx = await sink.recv()
            assert bytes(rx.tdata) == f, f"frame {i} data"
            # cocotbext-axi reports tuser per byte: the last beat's bytes carry the verdict
            users = rx.tuser if isinstance(rx.tuser, list) else [rx.tuser] * len(f)
            dst = rx.tdest if isinstance(rx.tdest, list) else [rx.tdest]
            nl = (len(f) - 1) % kw + 1
            assert all(int(u) == 0 for u in users[:-nl]), f"frame {i}: tuser before the last beat"
            assert int(users[-1]) & 1 == bad, f"frame {i}: bad flag"
            exp_ok = verdict(f) == "ok"
            assert (int(users[-1]) >> 1) == exp_ok, \
                f"frame {i} ({len(f)} B, bad={bad}): verified={int(users[-1]) >> 1}, model {verdict(f)}"
            assert all(int(x) == dests[i] for x in dst), f"frame {i}: tdest"
        await ClockCycles(dut.clk, 4)
        got = {k: int(getattr(dut, f"cnt_{k}").value) - c0[k] for k in ("ok", "bad", "skip")}
        assert got == want, f"counters {got}, model {want}"
        return want

    @cocotb.test()
    async def csum_random_frames(dut):
        await start_clock_reset(dut)
        rng = random.Random(2026)
        n = 400 if len(dut.s_axis_tkeep) <= 8 else 150
        frames = make_frames(rng, n)
        want = await _run_frames(dut, frames, 0.3, 0.4, 11)
        assert want["ok"] > n // 8 and want["bad"] > n // 20 and want["skip"] > n // 8, want
        # a second pass with no pauses: back-to-back frames through the pipeline
        await _run_frames(dut, make_frames(rng, n // 2), 0.0, 0.0, 21)

    @cocotb.test()
    async def csum_latency_throughput(dut):
        """No pauses: a 32-beat frame goes in and out at one beat per cycle; the first
        beat leaves LATENCY cycles after it was taken."""
        await start_clock_reset(dut)
        kw = len(dut.s_axis_tkeep)
        src = axis_source(dut, "s_axis")
        sink = axis_sink(dut, "m_axis")
        ins, outs = [], []

        async def mon():
            cyc = 0
            while True:
                await RisingEdge(dut.clk)
                cyc += 1
                if int(dut.s_axis_tvalid.value) and int(dut.s_axis_tready.value):
                    ins.append(cyc)
                if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                    outs.append(cyc)

        task = cocotb.start_soon(mon())
        p = Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(dport=4) / bytes(32 * kw - 42)
        f = bytes(p)
        await src.send(AxiStreamFrame(f, tuser=0, tdest=0))
        rx = await sink.recv()
        await ClockCycles(dut.clk, 2)
        task.cancel()
        assert bytes(rx.tdata) == f
        assert int(rx.tuser[-1]) >> 1 == 1 and verdict(f) == "ok"
        assert len(ins) == len(outs) == 32
        assert ins[-1] - ins[0] == 31 and outs[-1] - outs[0] == 31
        assert outs[0] - ins[0] == LATENCY, f"latency {outs[0] - ins[0]}"


@pytest.mark.parametrize("data_w", [64, 512])
def test_virtio_csum_check(data_w: int) -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_virtio_csum_check", module="test_virtio_csum_check",
               test_dir=Path(__file__).parent, parameters={"DATA_W": data_w})
