# SPDX-License-Identifier: Apache-2.0
"""fabnic_eth_mac_10g: 10 G MAC + PFC on XGMII.

Bus models of record: cocotbext-eth XgmiiSource (wire -> RX) and XgmiiSink
(TX -> wire), cocotbext-axi AxiStreamSink on the RX output; frames built by
scapy; FCS checked with zlib; IFG checked against the IEEE 802.3 clause 46 DIC
rule; pause durations against quanta * 512 bit times at 10 Gb/s (8 cycles of
156.25 MHz per quantum).
"""

from __future__ import annotations

import logging
import random
import struct
import zlib
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource
    from maclib import (
        XG_TERM,
        PrioSource,
        XgmiiMonitor,
        check_dic,
        pause_frame,
        pfc_frame,
        xgmii_columns,
    )
    from scapy.all import IP, UDP, Ether, Raw, raw
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl

    from fabnic_tb.axis import axis_sink
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

CLK_NS = 6.4           # 156.25 MHz
CPQ_10G = 8 * 256      # 512 bit times / 64 bits per cycle = 8.0 cycles, Q8.8
N_PRIO = 8
SRC_MAC = 0x02_11_22_33_44_55


async def setup(dut, rx_ready_busy: float = 0.3, seed: int = 5):
    dut.cycles_per_quantum.value = CPQ_10G
    dut.pfc_req.value = 0
    dut.cfg_src_mac.value = SRC_MAC
    dut.cfg_quanta.value = 0xFFFF
    dut.cfg_refresh.value = 0xFFFFFFFF
    dut.m_axis_tready.value = 0
    dut.xgmii_rxd.value = 0x0707070707070707
    dut.xgmii_rxc.value = 0xFF
    await start_clock_reset(dut, period_ns=CLK_NS)
    src = PrioSource(dut, N_PRIO, 64, seed=seed)
    cocotb.start_soon(src.run())
    xsrc = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
    xsink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
    xsrc.log.setLevel(logging.WARNING)   # per-frame INFO logs swamp the sim log
    xsink.log.setLevel(logging.WARNING)
    rx = axis_sink(dut, "m_axis", seed=seed + 1, busy=rx_ready_busy)
    return src, xsrc, xsink, rx


def eth_frame(rng: random.Random, length: int, tag: int = 0) -> bytes:
    """Ethernet frame of `length` bytes (no FCS); scapy header when it fits."""
    if length >= 42:
        pkt = Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") / IP() / UDP(sport=tag)
        body = bytes(rng.getrandbits(8) for _ in range(length - 42))
        return raw(pkt / Raw(body))
    return bytes([tag & 0xFF]) + bytes(rng.getrandbits(8) for _ in range(length - 1))


def wire_payload(frame: bytes) -> bytes:
    """What the MAC must send after the SFD: padded frame + FCS (zlib)."""
    p = frame.ljust(60, b"\0")
    return p + struct.pack("<L", zlib.crc32(p))


if cocotb is not None:

    @cocotb.test()
    async def tx_frames(dut):
        """Frames of 1..9216 bytes on random priorities, random input timing: XGMII
        output decoded by XgmiiSink, preamble/SFD, padding, FCS (zlib), per-queue
        order, IFG against the DIC rule, TX counters."""
        src, _, xsink, _ = await setup(dut)
        mon = XgmiiMonitor(dut, dut.xgmii_txd, dut.xgmii_txc)
        cocotb.start_soon(mon.run())
        rng = random.Random(11)
        lengths = list(range(1, 70)) + [127, 128, 129, 1500, 1514, 4000, 9216] + \
            [rng.randint(1, 300) for _ in range(40)]
        expect: list[list[bytes]] = [[] for _ in range(N_PRIO)]
        for i, n in enumerate(lengths):
            q = rng.randrange(N_PRIO)
            f = eth_frame(rng, n, tag=i)
            src.send(q, f)
            expect[q].append(f)
        got = []
        for _ in range(len(lengths)):
            got.append(await xsink.recv())
        await ClockCycles(dut.clk, 50)
        heads = [0] * N_PRIO
        total_bytes = 0
        for fr in got:
            assert fr.ctrl is None, "control character inside a frame"
            assert bytes(fr.get_preamble()) == b"\x55" * 7 + b"\xd5", fr.get_preamble()
            assert fr.check_fcs(), "bad FCS"
            pl = bytes(fr.get_payload(strip_fcs=False))
            match = [q for q in range(N_PRIO) if heads[q] < len(expect[q])
                     and pl == wire_payload(expect[q][heads[q]])]
            assert match, f"frame of {len(pl)} bytes matches no queue head"
            heads[match[0]] += 1
            assert len(pl) >= 64
            total_bytes += len(pl)
        assert heads == [len(e) for e in expect]
        assert int(dut.stat_tx_frames.value) == len(lengths)
        assert int(dut.stat_tx_bytes.value) == total_bytes
        assert int(dut.stat_tx_underflow.value) == 0
        assert len(mon.frames) == len(lengths)
        assert all(f.ended_by == XG_TERM for f in mon.frames)
        check_dic(mon.gaps())

    @cocotb.test()
    async def tx_line_rate(dut):
        """Queues preloaded with minimum-size frames: the wire carries one frame
        every 84 bytes (8 preamble + 64 frame + 12 IFG on average), i.e. 10 G line rate."""
        src, _, _, _ = await setup(dut)
        src.busy = 0.0
        mon = XgmiiMonitor(dut, dut.xgmii_txd, dut.xgmii_txc)
        n = 60
        cocotb.start_soon(mon.run())
        for i in range(n):
            src.send(i % 3, bytes([i]) * 60)
        while len(mon.frames) < n:
            await RisingEdge(dut.clk)
        fr = mon.frames
        span = fr[-1].start_byte - fr[0].start_byte     # n-1 periods
        assert span <= (n - 1) * 84 + 4, f"{span} bytes for {n - 1} frames"
        check_dic(mon.gaps())

    @cocotb.test()
    async def rx_frames_and_errors(dut):
        """Good frames (scapy, 60..9216 bytes) interleaved with bad FCS, runt,
        oversize, /E/ inside a frame and a bad preamble: only good frames come out
        (FCS stripped), each bad one counted once under its reason, the stream
        keeps flowing. XgmiiSource starts frames on lane 0 and lane 4 (DIC)."""
        _, xsrc, _, rx = await setup(dut, rx_ready_busy=0.2)
        rng = random.Random(3)
        good: list[bytes] = []
        counts = dict(fcs=0, runt=0, over=0, xerr=0, framing=0)

        async def send_good(n: int) -> None:
            f = eth_frame(rng, n, tag=len(good))
            good.append(f)
            await xsrc.send(XgmiiFrame.from_payload(f))

        for n in [60, 61, 62, 63, 64, 65, 66, 67, 68, 100, 128, 200, 333, 1000, 1514]:
            await send_good(n)
        # bad FCS
        p = bytearray(XgmiiFrame.from_payload(eth_frame(rng, 100)).data)
        p[-1] ^= 0x01
        await xsrc.send(XgmiiFrame(p))
        counts["fcs"] += 1
        await send_good(80)
        # runt: 40 bytes + correct FCS = 44 bytes
        await xsrc.send(XgmiiFrame.from_payload(eth_frame(rng, 40), min_len=0))
        counts["runt"] += 1
        await send_good(90)
        # /E/ in the middle of a frame
        fr = XgmiiFrame.from_payload(eth_frame(rng, 200))
        fr.normalize()
        fr.data[100] = 0xFE
        fr.ctrl[100] = 1
        await xsrc.send(fr)
        counts["xerr"] += 1
        await send_good(70)
        # bad preamble
        p = bytearray(XgmiiFrame.from_payload(eth_frame(rng, 100)).data)
        p[3] = 0x54
        await xsrc.send(XgmiiFrame(p))
        counts["framing"] += 1
        await send_good(64)
        await xsrc.wait()
        received = [bytes((await rx.recv()).tdata) for _ in range(len(good))]
        # a jumbo of exactly the maximum size, then one byte over
        await ClockCycles(dut.clk, 200)
        await send_good(9216 + 14)
        await xsrc.send(XgmiiFrame.from_payload(eth_frame(rng, 9216 + 15)))
        counts["over"] += 1
        await send_good(77)
        await xsrc.wait()
        while len(received) < len(good):
            received.append(bytes((await rx.recv()).tdata))
        await ClockCycles(dut.clk, 100)
        assert rx.empty(), "unexpected extra frame"
        assert received == [g.ljust(60, b"\0") for g in good]
        assert int(dut.stat_rx_frames.value) == len(good)
        assert int(dut.stat_rx_bytes.value) == sum(max(len(g), 60) + 4 for g in good)
        assert int(dut.stat_rx_bad_fcs.value) == counts["fcs"]
        assert int(dut.stat_rx_runt.value) == counts["runt"]
        assert int(dut.stat_rx_oversize.value) == counts["over"]
        assert int(dut.stat_rx_xgmii_err.value) == counts["xerr"]
        assert int(dut.stat_rx_framing.value) == counts["framing"]
        assert int(dut.stat_rx_overflow.value) == 0

    @cocotb.test()
    async def rx_garbage_then_good(dut):
        """Random XGMII data/control columns (random /S/, /T/, /E/) must not wedge the
        receiver: good frames sent afterwards arrive intact."""
        _, xsrc, _, rx = await setup(dut, rx_ready_busy=0.2)
        await ClockCycles(dut.clk, 10)
        rng = random.Random(8)
        ctl = [0x07, 0xFB, 0xFD, 0xFE, 0x9C]
        for _ in range(3000):
            await RisingEdge(dut.clk)
            c = rng.getrandbits(8) if rng.random() < 0.5 else 0
            d = 0
            for lane in range(8):
                b = rng.choice(ctl) if (c >> lane) & 1 else (0x55 if rng.random() < 0.3 else rng.getrandbits(8))
                d |= b << (8 * lane)
            dut.xgmii_rxd.value = d
            dut.xgmii_rxc.value = c
        await RisingEdge(dut.clk)
        dut.xgmii_rxd.value = 0x0707070707070707
        dut.xgmii_rxc.value = 0xFF
        await ClockCycles(dut.clk, 2000)
        while not rx.empty():    # anything that happened to pass must at least be well formed
            rx.recv_nowait()
        good = [eth_frame(rng, n, tag=i) for i, n in enumerate([64, 200, 1500, 61])]
        for g in good:
            await xsrc.send(XgmiiFrame.from_payload(g))
        got = [bytes((await rx.recv()).tdata) for _ in good]
        assert got == good

    @cocotb.test()
    async def rx_short_ipg(dut):
        """Receivers must accept IPGs shorter than 12 (down to 5 bytes after clock
        compensation): frames with /S/ right after /T/ (same column on lane 4, or the
        next column) all arrive intact."""
        _, xsrc, _, rx = await setup(dut, rx_ready_busy=0.2)
        rng = random.Random(12)
        frames = [eth_frame(rng, rng.randint(60, 300), tag=i) for i in range(40)]
        cols = xgmii_columns(frames, ifg=5, dic=False, rng=rng, max_extra=4)
        await ClockCycles(dut.clk, 10)   # the idle XgmiiSource writes idles once after reset
        for d, c in cols:
            await RisingEdge(dut.clk)
            dut.xgmii_rxd.value = d
            dut.xgmii_rxc.value = c
        await ClockCycles(dut.clk, 500)
        got = []
        while not rx.empty():
            got.append(bytes(rx.recv_nowait().tdata))
        dut._log.info("stats: good %d xerr %d fcs %d framing %d runt %d",
                      int(dut.stat_rx_frames.value), int(dut.stat_rx_xgmii_err.value),
                      int(dut.stat_rx_bad_fcs.value), int(dut.stat_rx_framing.value),
                      int(dut.stat_rx_runt.value))
        missing = [i for i, f in enumerate(frames) if f not in got]
        assert got == frames, f"missing {missing} of {len(frames)}, got {len(got)}"
        assert int(dut.stat_rx_frames.value) == len(frames)
        assert int(dut.stat_rx_xgmii_err.value) == 0

    async def measure_pause(dut, bit: int, timeout: int = 200000) -> tuple[int, int]:
        """Wait for pause[bit] to rise; return (rise cycle count from call, length in cycles)."""
        t = 0
        while not (int(dut.pause.value) >> bit) & 1:
            await RisingEdge(dut.clk)
            t += 1
            assert t < timeout, "pause never asserted"
        rise = t
        n = 0
        while (int(dut.pause.value) >> bit) & 1:
            await RisingEdge(dut.clk)
            n += 1
            assert n < timeout, "pause never released"
        return rise, n

    @cocotb.test()
    async def pfc_rx_pause(dut):
        """Received PFC pauses exactly the enabled priority for quanta*8 cycles and
        its TX queue sends nothing new meanwhile; PAUSE stops all priorities; quanta 0
        releases at once; control frames are consumed (never reach m_axis); a PFC
        frame with a bad FCS is ignored."""
        src, xsrc, xsink, rx = await setup(dut)
        mon = XgmiiMonitor(dut, dut.xgmii_txd, dut.xgmii_txc, watch={"pause": dut.pause})
        mon_rx = XgmiiMonitor(dut, dut.xgmii_rxd, dut.xgmii_rxc)
        cocotb.start_soon(mon.run())
        cocotb.start_soon(mon_rx.run())
        rng = random.Random(21)
        cpq = 8   # cycles per quantum at 10 G

        # keep all queues busy with short tagged frames
        def load(n: int) -> None:
            for _i in range(n):
                for q in range(N_PRIO):
                    src.send(q, bytes([q]) + bytes(rng.getrandbits(8) for _ in range(59)))

        load(40)
        await ClockCycles(dut.clk, 100)
        quanta = 300
        await xsrc.send(XgmiiFrame.from_payload(pfc_frame({3: quanta})))
        rise, length = await measure_pause(dut, 3)
        assert abs(length - quanta * cpq) <= 1, f"paused {length} cycles, expected {quanta * cpq}"
        # reaction latency: /T/ of the PFC frame on xgmii_rx -> pause[3]
        first_on = next(i + 1 for i, v in enumerate(mon.samples["pause"]) if v & 0x08)
        latency = first_on - mon_rx.frames[0].end_cycle
        dut._log.info("PFC reaction latency: %d cycles after /T/", latency)
        assert 0 < latency <= 10, f"pause reaction took {latency} cycles"
        # other priorities never paused
        assert all((s & ~0x08) == 0 for s in mon.samples["pause"])
        # no priority-3 frame started on the wire while paused (one in flight may finish)
        p_on = [i + 1 for i, s in enumerate(mon.samples["pause"]) if s & 0x08]
        lo, hi = p_on[0] + 20, p_on[-1]
        during = [f for f in mon.frames if lo <= f.start_cycle <= hi]
        assert during, "no traffic while priority 3 was paused"
        assert all(f.data[7] != 3 for f in during), "priority 3 sent while paused"
        await ClockCycles(dut.clk, 300)
        assert any(f.data[7] == 3 for f in mon.frames if f.start_cycle > hi), \
            "priority 3 did not resume"

        # PAUSE (802.3x): everything stops
        load(20)
        await ClockCycles(dut.clk, 50)
        mark = mon.cycle
        await xsrc.send(XgmiiFrame.from_payload(pause_frame(100)))
        rise, length = await measure_pause(dut, 0)
        assert abs(length - 100 * cpq) <= 1
        p_on = [i + 1 for i, s in enumerate(mon.samples["pause"]) if i + 1 > mark and s == 0xFF]
        assert len(p_on) >= 100 * cpq - 1, "PAUSE did not pause all 8 priorities together"
        lo, hi = p_on[0] + 20, p_on[-1]
        assert not [f for f in mon.frames if lo <= f.start_cycle <= hi], "data sent during PAUSE"

        # quanta 0 releases at once
        await ClockCycles(dut.clk, 20)
        await xsrc.send(XgmiiFrame.from_payload(pfc_frame({5: 60000})))
        while not (int(dut.pause.value) >> 5) & 1:
            await RisingEdge(dut.clk)
        await ClockCycles(dut.clk, 200)
        assert (int(dut.pause.value) >> 5) & 1
        await xsrc.send(XgmiiFrame.from_payload(pfc_frame({5: 0})))
        rise, length = await measure_pause(dut, 5, timeout=2000)
        assert length < 100, "XON (quanta 0) did not release the priority"

        # PFC with a bad FCS: consumed, ignored
        bad = bytearray(XgmiiFrame.from_payload(pfc_frame({1: 5000})).data)
        bad[-2] ^= 0xFF
        await xsrc.send(XgmiiFrame(bad))
        await xsrc.wait()
        await ClockCycles(dut.clk, 200)
        assert int(dut.pause.value) == 0
        for _ in range(100):
            if int(dut.stat_tx_frames.value) >= 60 * N_PRIO:
                break
            await ClockCycles(dut.clk, 100)
        await ClockCycles(dut.clk, 100)
        assert rx.empty(), "a MAC control frame reached m_axis"
        assert int(dut.stat_rx_pfc.value) == 3
        assert int(dut.stat_rx_pause.value) == 1
        assert int(dut.stat_rx_ctrl_bad.value) == 1
        assert int(dut.stat_rx_frames.value) == 4      # the MAC saw 4 good frames
        assert int(dut.stat_tx_frames.value) == 60 * N_PRIO
        xsink.clear()

    def parse_pfc(fr) -> MACControlClassBasedFlowControl:
        assert fr.check_fcs()
        pkt = Ether(bytes(fr.get_payload()))
        assert pkt.dst == "01:80:c2:00:00:01"
        assert pkt.src == "02:11:22:33:44:55"
        assert pkt.type == 0x8808
        assert MACControlClassBasedFlowControl in pkt, pkt.summary()
        return pkt[MACControlClassBasedFlowControl]

    def cev_quanta(c) -> tuple[int, list[int]]:
        cev = sum(getattr(c, f"c{p}_enabled") << p for p in range(8))
        return cev, [getattr(c, f"c{p}_pause_time") for p in range(8)]

    @cocotb.test()
    async def pfc_tx_frames(dut):
        """pfc_req -> PFC frames (parsed by scapy): XOFF with cfg_quanta for asserted
        priorities, refresh every cfg_refresh cycles, XON (quanta 0) on release;
        inserted between data frames, which arrive intact."""
        src, _, xsink, _ = await setup(dut)
        mon = XgmiiMonitor(dut, dut.xgmii_txd, dut.xgmii_txc)
        cocotb.start_soon(mon.run())
        rng = random.Random(4)
        dut.cfg_quanta.value = 0x1234
        refresh = 3000
        dut.cfg_refresh.value = refresh
        data = []
        for i in range(30):
            f = eth_frame(rng, rng.choice([60, 300, 1500]), tag=i)
            data.append(f)
            src.send(0, f)
        await ClockCycles(dut.clk, 40)
        dut.pfc_req.value = 0b0010_0100
        await ClockCycles(dut.clk, 2 * refresh + 500)
        dut.pfc_req.value = 0b0010_0000
        await ClockCycles(dut.clk, 1000)
        dut.pfc_req.value = 0
        await ClockCycles(dut.clk, refresh + 1000)
        frames = []
        while not xsink.empty():
            frames.append(xsink.recv_nowait())
        pfc = [f for f in frames if bytes(f.get_payload())[12:14] == b"\x88\x08"]
        rest = [bytes(f.get_payload(strip_fcs=False)) for f in frames
                if bytes(f.get_payload())[12:14] != b"\x88\x08"]
        assert rest == [wire_payload(d) for d in data], "data frames damaged or reordered"
        parsed = [cev_quanta(parse_pfc(f)) for f in pfc]
        # first: XOFF 2 and 5; refreshes; then 2 released (XON 2, XOFF 5); then XON 5
        xoff = (0b0010_0100, [0, 0, 0x1234, 0, 0, 0x1234, 0, 0])
        assert parsed[0] == xoff
        n_ref = 0
        i = 1
        while parsed[i] == xoff:
            n_ref += 1
            i += 1
        assert n_ref == 2, f"{n_ref} refreshes"
        assert parsed[i] == (0b0010_0100, [0, 0, 0, 0, 0, 0x1234, 0, 0])
        assert parsed[i + 1] == (0b0010_0000, [0] * 8)
        assert len(parsed) == i + 2, "PFC frames after the final XON"
        # refresh interval measured on the wire
        starts = [f.start_cycle for f in mon.frames if bytes(f.data[7 + 12:7 + 14]) == b"\x88\x08"]
        for a, b in zip(starts[:2], starts[1:3], strict=False):
            assert refresh <= b - a <= refresh + 250, f"refresh interval {b - a}"
        assert int(dut.stat_tx_pfc.value) == len(parsed)
        assert int(dut.stat_tx_xon.value) == 2
        check_dic(mon.gaps())


def test_eth_mac_10g() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_eth_mac_10g", module="test_eth_mac_10g",
               test_dir=Path(__file__).parent, parameters={})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
