# SPDX-License-Identifier: Apache-2.0
"""fabnic_eth_mac_axis at DATA_W=512 (100 G edge toward a CMAC-style hard MAC).

Checks: priority queues -> MAC TX stream (frames intact, per-queue order);
MAC RX stream -> m_axis (bad frames dropped and counted, MAC Control frames
consumed); received PFC pauses exactly the enabled priority for
quanta * 512 bit times at 100 Gb/s = quanta * 1.28 cycles of 250 MHz (Q8.8
cycles_per_quantum = 328, i.e. 1.28125); PAUSE stops all; pfc_req produces
802.1Qbb frames parsed by scapy.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiStreamFrame
    from maclib import PrioSource, pause_frame, pfc_frame
    from scapy.all import Ether
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl

    from fabnic_tb.axis import axis_sink, axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

N_PRIO = 8
CPQ_100G = round(1.28 * 256)    # 512 bit / 100 Gb/s = 5.12 ns = 1.28 cycles at 250 MHz
SRC_MAC = 0x02_AA_BB_CC_DD_EE


async def setup(dut, seed: int = 1):
    dut.cycles_per_quantum.value = CPQ_100G
    dut.pfc_req.value = 0
    dut.cfg_src_mac.value = SRC_MAC
    dut.cfg_quanta.value = 0xFFFF
    dut.cfg_refresh.value = 0xFFFFFFFF
    await start_clock_reset(dut)
    src = PrioSource(dut, N_PRIO, len(dut.m_axis_tdata), seed=seed)
    cocotb.start_soon(src.run())
    mac_rx = axis_source(dut, "s_axis_mac_rx", seed=seed + 1)
    mac_tx = axis_sink(dut, "m_axis_mac_tx", seed=seed + 2)
    rx = axis_sink(dut, "m_axis", seed=seed + 3)
    return src, mac_rx, mac_tx, rx


class TxStarts:
    """Cycle and first byte (queue tag) of each frame leaving on m_axis_mac_tx,
    plus per-cycle pause samples."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.starts: list[tuple[int, int]] = []
        self.pause: list[int] = []
        cocotb.start_soon(self._run())

    async def _run(self) -> None:
        first = True
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle += 1
            self.pause.append(int(self.dut.pause.value))
            if int(self.dut.m_axis_mac_tx_tvalid.value) and int(self.dut.m_axis_mac_tx_tready.value):
                if first:
                    self.starts.append((self.cycle, int(self.dut.m_axis_mac_tx_tdata.value) & 0xFF))
                first = bool(int(self.dut.m_axis_mac_tx_tlast.value))


if cocotb is not None:

    @cocotb.test()
    async def tx_rx_paths(dut):
        """Random frames through both directions with random valid/ready timing."""
        src, mac_rx, mac_tx, rx = await setup(dut)
        rng = random.Random(2)
        expect: list[list[bytes]] = [[] for _ in range(N_PRIO)]
        for _ in range(60):
            q = rng.randrange(N_PRIO)
            n = rng.choice([59, 64, 65, 200, 1500, 9000])
            f = bytes([q]) + bytes(rng.getrandbits(8) for _ in range(n - 1))
            expect[q].append(f)
            src.send(q, f)
        good = []
        n_bad = 0
        for i in range(40):
            f = bytes(rng.getrandbits(8) for _ in range(rng.choice([60, 64, 127, 128, 129, 1514])))
            bad = rng.random() < 0.25
            n_bad += bad
            if not bad:
                good.append(f)
            await mac_rx.send(AxiStreamFrame(f, tuser=int(bad)))
            if i == 20:   # a PFC frame in the middle of the traffic is consumed
                await mac_rx.send(AxiStreamFrame(pfc_frame({0: 1})))
        got_rx = [bytes((await rx.recv()).tdata) for _ in good]
        assert got_rx == good
        heads = [0] * N_PRIO
        for _ in range(60):
            f = bytes((await mac_tx.recv()).tdata)
            q = f[0]
            assert f == expect[q][heads[q]], f"queue {q} frame {heads[q]}"
            heads[q] += 1
        await ClockCycles(dut.clk, 50)
        assert rx.empty()
        assert int(dut.stat_rx_bad.value) == n_bad
        assert int(dut.stat_rx_pfc.value) == 1
        assert int(dut.stat_rx_overflow.value) == 0

    @cocotb.test()
    async def tx_arbitration(dut):
        """Transmit arbitration with every queue full (filled while all priorities are
        paused, then released together): frames leave in round robin (each from the
        first queue after the previous one that still holds frames, starting with the
        queue the grant waited on), back to back
        without an idle cycle (one-beat frames one per cycle), never interleaved, each
        queue in order; a priority left paused sends nothing while the others keep the
        order, and its frames follow its release."""
        dut.cycles_per_quantum.value = CPQ_100G
        dut.pfc_req.value = 0
        dut.cfg_src_mac.value = SRC_MAC
        dut.cfg_quanta.value = 0xFFFF
        dut.cfg_refresh.value = 0xFFFFFFFF
        dut.m_axis_tready.value = 1
        dut.s_axis_mac_rx_tvalid.value = 0
        dut.m_axis_mac_tx_tready.value = 1
        await start_clock_reset(dut)
        src = PrioSource(dut, N_PRIO, len(dut.m_axis_tdata), seed=None)
        cocotb.start_soon(src.run())
        rng = random.Random(9)
        kw = len(dut.m_axis_tdata) // 8
        n_ctrl = 0
        parked = [0]      # the grant after reset: queue 0

        async def rx_ctrl(frame: bytes) -> None:
            """One MAC Control frame on the receive side (one beat at 512 bits)."""
            nonlocal n_ctrl
            n_ctrl += 1
            dut.s_axis_mac_rx_tdata.value = int.from_bytes(frame.ljust(kw, b"\0"), "little")
            dut.s_axis_mac_rx_tkeep.value = (1 << len(frame)) - 1
            dut.s_axis_mac_rx_tlast.value = 1
            dut.s_axis_mac_rx_tuser.value = 0
            dut.s_axis_mac_rx_tvalid.value = 1
            await RisingEdge(dut.clk)
            dut.s_axis_mac_rx_tvalid.value = 0
            await ClockCycles(dut.clk, 4)

        async def collect(want: int, limit: int = 200) -> list[tuple[int, int, bytes]]:
            """(first cycle, last cycle, data) of the next `want` frames on m_axis_mac_tx."""
            frames: list[tuple[int, int, bytes]] = []
            cur, start, cyc, idle = bytearray(), 0, 0, 0
            while len(frames) < want and idle < limit:
                await RisingEdge(dut.clk)
                cyc += 1
                if int(dut.m_axis_mac_tx_tvalid.value):
                    idle = 0
                    if not cur:
                        start = cyc
                    n = bin(int(dut.m_axis_mac_tx_tkeep.value)).count("1")
                    cur += int(dut.m_axis_mac_tx_tdata.value).to_bytes(kw, "little")[:n]
                    if int(dut.m_axis_mac_tx_tlast.value):
                        frames.append((start, cyc, bytes(cur)))
                        cur = bytearray()
                else:
                    idle += 1
            return frames

        async def run_batch(sizes: list[int], per_queue: int, paused: int = 0) -> list[list[bytes]]:
            await rx_ctrl(pause_frame(0xFFFF))          # hold every queue while filling
            assert int(dut.pause.value) == 0xFF
            expect: list[list[bytes]] = [[] for _ in range(N_PRIO)]
            for i in range(per_queue):
                for q in range(N_PRIO):
                    f = bytes([q, i]) + bytes(rng.getrandbits(8) for _ in range(rng.choice(sizes) - 2))
                    expect[q].append(f)
                    src.send(q, f)
            while not src.idle():
                await RisingEdge(dut.clk)
            await ClockCycles(dut.clk, 4)
            await rx_ctrl(pfc_frame({p: 0 for p in range(N_PRIO) if not (paused >> p) & 1}))
            assert int(dut.pause.value) == paused
            want = sum(len(e) for q, e in enumerate(expect) if not (paused >> q) & 1)
            frames = await collect(want)
            assert len(frames) == want, f"{len(frames)} of {want} frames"
            order = [f[0] for _, _, f in frames]
            left = [0 if (paused >> q) & 1 else len(expect[q]) for q in range(N_PRIO)]
            # the grant waits on the last queue served while nothing is requested, so
            # that queue goes first if it has a frame
            prev = parked[0] - 1
            for q in order:
                nxt = next(x % N_PRIO for x in range(prev + 1, prev + 1 + N_PRIO) if left[x % N_PRIO])
                assert q == nxt, f"after queue {prev}: {q}, expected {nxt} (order {order[:32]})"
                left[q] -= 1
                prev = q
            parked[0] = prev
            heads = [0] * N_PRIO
            for _, _, f in frames:
                assert f == expect[f[0]][heads[f[0]]], f"queue {f[0]} frame {heads[f[0]]}"
                heads[f[0]] += 1
            # no idle cycle from the first beat to the last
            beats = sum(-(-len(f) // kw) for _, _, f in frames)
            assert frames[-1][1] - frames[0][0] + 1 == beats, "bubbles between frames"
            return expect

        await run_batch([60, 64], per_queue=12)
        await run_batch([60, 65, 200, 1500], per_queue=4)
        expect = await run_batch([60, 64, 300], per_queue=6, paused=1 << 5)
        await ClockCycles(dut.clk, 50)
        assert int(dut.pause.value) == 1 << 5
        assert not int(dut.m_axis_mac_tx_tvalid.value)
        await rx_ctrl(pfc_frame({5: 0}))               # release: the held frames follow
        got = await collect(len(expect[5]))
        assert [f for _, _, f in got] == expect[5]
        assert int(dut.stat_rx_pfc.value) + int(dut.stat_rx_pause.value) == n_ctrl

    async def pause_len(dut, bit: int, timeout: int = 100000) -> int:
        t = 0
        while not (int(dut.pause.value) >> bit) & 1:
            await RisingEdge(dut.clk)
            t += 1
            assert t < timeout
        n = 0
        while (int(dut.pause.value) >> bit) & 1:
            await RisingEdge(dut.clk)
            n += 1
            assert n < timeout
        return n

    @cocotb.test()
    async def pfc_rx_100g(dut):
        """PFC quanta -> pause length vs 512 bit times at 100 G; paused queue silent."""
        src, mac_rx, mac_tx, _ = await setup(dut)
        mac_tx.set_pause_generator(None)
        mon = TxStarts(dut)
        rng = random.Random(7)
        for _ in range(150):
            for q in range(N_PRIO):
                src.send(q, bytes([q]) + bytes(rng.getrandbits(8) for _ in range(255)))
        await ClockCycles(dut.clk, 50)
        quanta = 1000
        await mac_rx.send(AxiStreamFrame(pfc_frame({6: quanta})))
        n = await pause_len(dut, 6)
        spec = quanta * 512 / 100e9 * 250e6          # 1280 cycles
        fixed = math.ceil(quanta * CPQ_100G / 256)    # Q8.8 rounding of 1.28
        assert abs(n - fixed) <= 1, f"{n} cycles, fixed-point formula {fixed}"
        assert abs(n - spec) / spec < 0.002, f"{n} cycles vs spec {spec}"
        assert all(s & ~0x40 == 0 for s in mon.pause)
        on = [i + 1 for i, s in enumerate(mon.pause) if s & 0x40]
        during = [q for c, q in mon.starts if on[0] + 10 <= c <= on[-1]]
        assert len(during) > 20, "no traffic while paused"
        assert 6 not in during, "priority 6 sent while paused"
        # PAUSE: all priorities
        mark = mon.cycle
        await mac_rx.send(AxiStreamFrame(pause_frame(500)))
        n = await pause_len(dut, 2)
        assert abs(n - math.ceil(500 * CPQ_100G / 256)) <= 1
        on = [i + 1 for i, s in enumerate(mon.pause) if i + 1 > mark and s == 0xFF]
        assert len(on) >= n - 1
        assert not [q for c, q in mon.starts if on[0] + 10 <= c <= on[-1]], "sent during PAUSE"
        assert int(dut.stat_rx_pfc.value) == 1
        assert int(dut.stat_rx_pause.value) == 1

    @cocotb.test()
    async def pfc_tx_100g(dut):
        """pfc_req -> one 60-byte PFC frame (scapy parse), then XON on release."""
        _, _, mac_tx, _ = await setup(dut)
        dut.cfg_quanta.value = 0xABCD
        await ClockCycles(dut.clk, 10)
        dut.pfc_req.value = 0b1000_0001
        f = bytes((await mac_tx.recv()).tdata)
        assert len(f) == 60
        pkt = Ether(f)
        assert pkt.dst == "01:80:c2:00:00:01" and pkt.src == "02:aa:bb:cc:dd:ee"
        assert pkt.type == 0x8808
        c = pkt[MACControlClassBasedFlowControl]
        assert [getattr(c, f"c{p}_enabled") for p in range(8)] == [1, 0, 0, 0, 0, 0, 0, 1]
        assert [getattr(c, f"c{p}_pause_time") for p in range(8)] == [0xABCD, 0, 0, 0, 0, 0, 0, 0xABCD]
        await ClockCycles(dut.clk, 100)
        assert mac_tx.empty(), "refresh disabled, no second frame expected"
        dut.pfc_req.value = 0
        c = Ether(bytes((await mac_tx.recv()).tdata))[MACControlClassBasedFlowControl]
        assert [getattr(c, f"c{p}_enabled") for p in range(8)] == [1, 0, 0, 0, 0, 0, 0, 1]
        assert [getattr(c, f"c{p}_pause_time") for p in range(8)] == [0] * 8
        await ClockCycles(dut.clk, 2)
        assert int(dut.stat_tx_pfc.value) == 2 and int(dut.stat_tx_xon.value) == 1


def test_eth_mac_axis() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_eth_mac_axis", module="test_eth_mac_axis",
               test_dir=Path(__file__).parent, parameters={"DATA_W": 512})


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
