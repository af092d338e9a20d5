# SPDX-License-Identifier: Apache-2.0
"""fabnic_dcqcn_np against a Python model of the notification-point rule
(REFERENCES.md, DCQCN: at most one CNP per QP per CNP interval; 0 = one per
marked packet; only ECN-CE packets count)."""

from __future__ import annotations

import random
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

CE = 0b11
US = 250  # cycles per microsecond at 250 MHz


class NpModel:
    def __init__(self, interval: int) -> None:
        self.interval = interval
        self.last: dict[int, int] = {}
        self.cnps: list[tuple[int, int]] = []   # (time, qpn)
        self.marked = 0
        self.suppressed = 0

    def packet(self, qpn: int, ecn: int, t: int) -> None:
        if ecn != CE:
            return
        self.marked += 1
        last = self.last.get(qpn)
        if last is None or self.interval == 0 or t - last >= self.interval:
            self.last[qpn] = t
            self.cnps.append((t, qpn))
        else:
            self.suppressed += 1


if cocotb is not None:

    async def setup(dut, interval: int, busy: float, seed: int) -> list[int]:
        dut.cfg_interval.value = interval
        dut.s_valid.value = 0
        dut.s_qpn.value = 0
        dut.s_ecn.value = 0
        dut.cnp_ready.value = 1
        await start_clock_reset(dut)
        while int(dut.status_busy.value):
            await RisingEdge(dut.clk)
        got: list[int] = []
        rng = random.Random(seed)

        async def sink() -> None:
            while True:
                if not busy and not int(dut.cnp_valid.value):
                    await RisingEdge(dut.cnp_valid)
                await FallingEdge(dut.clk)
                ready = 1
                if busy:
                    ready = int(rng.random() >= busy)
                    dut.cnp_ready.value = ready   # takes effect now, sampled at the next rising edge
                if int(dut.cnp_valid.value) and ready:
                    got.append(int(dut.cnp_qpn.value))

        cocotb.start_soon(sink())
        return got

    async def send(dut, qpn: int, ecn: int) -> int:
        dut.s_qpn.value = qpn
        dut.s_ecn.value = ecn
        dut.s_valid.value = 1
        while True:
            await ReadOnly()
            ready = int(dut.s_ready.value)
            stamp = int(dut.status_time.value)
            await RisingEdge(dut.clk)
            if ready:
                break
        dut.s_valid.value = 0
        return stamp

    async def traffic(dut, model: NpModel, qps: list[int], n: int, gap: int, p_mark: float,
                      seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(n):
            q = rng.choice(qps)
            ecn = CE if rng.random() < p_mark else rng.choice([0b00, 0b01, 0b10])
            t = await send(dut, q, ecn)
            model.packet(q, ecn, t)
            if gap:
                await ClockCycles(dut.clk, rng.randint(1, gap))

    def check(dut, model: NpModel, got: list[int]) -> None:
        exp = [q for _, q in model.cnps]
        assert got == exp, f"CNP sequence differs: got {len(got)}, expected {len(exp)}"
        assert int(dut.cnt_marked.value) == model.marked
        assert int(dut.cnt_cnp.value) == len(exp)
        assert int(dut.cnt_suppressed.value) == model.suppressed

    @cocotb.test()
    async def np_interval_zero(dut):
        """Interval 0: one CNP per marked packet, for the right QP, back-pressured output."""
        model = NpModel(0)
        got = await setup(dut, 0, busy=0.5, seed=3)
        await traffic(dut, model, [0, 5, 17, 63], n=300, gap=0, p_mark=1.0, seed=4)  # continuous
        await traffic(dut, model, [0, 5, 17, 63], n=300, gap=0, p_mark=0.5, seed=14)
        await ClockCycles(dut.clk, 100)
        check(dut, model, got)
        assert model.suppressed == 0 and len(got) == model.marked > 200

    @cocotb.test()
    async def np_unmarked(dut):
        model = NpModel(0)
        got = await setup(dut, 0, busy=0.0, seed=5)
        await traffic(dut, model, list(range(64)), n=400, gap=2, p_mark=0.0, seed=6)
        await ClockCycles(dut.clk, 20)
        check(dut, model, got)
        assert got == [] and int(dut.cnt_marked.value) == 0

    @cocotb.test()
    async def np_interval_50us(dut):
        """Continuous marking on 4 interleaved QPs for 400 us: one CNP per QP per 50 us."""
        interval = 50 * US
        model = NpModel(interval)
        got = await setup(dut, interval, busy=0.0, seed=7)
        qps = [1, 2, 33, 62]
        t0 = int(dut.status_time.value)
        await traffic(dut, model, qps, n=2500, gap=70, p_mark=1.0, seed=8)
        t1 = int(dut.status_time.value)
        await ClockCycles(dut.clk, 20)
        check(dut, model, got)
        # spec cadence, independent of the model: per QP, CNPs are >= 50 us apart and
        # there is about one per 50 us (packets arrive every ~150 ns per QP)
        for q in qps:
            times = [t for t, qq in model.cnps if qq == q]
            assert all(b - a >= interval for a, b in zip(times, times[1:], strict=False))
            assert all(b - a <= interval + 2000 for a, b in zip(times, times[1:], strict=False))
            expected = (t1 - t0) / interval
            assert abs(len(times) - expected) <= 1.5, f"QP {q}: {len(times)} CNPs, {expected:.1f} expected"


def test_dcqcn_np() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_dcqcn_np", module="test_dcqcn_np", test_dir=Path(__file__).parent,
               parameters={"NUM_QP": 64})
