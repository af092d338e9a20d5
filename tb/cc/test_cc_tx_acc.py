# SPDX-License-Identifier: Apache-2.0
"""fabnic_cc_tx_acc (per-QP byte accumulation in front of the reaction point) against a
Python model written from its header: per QP a running sum; a frame adds its bytes;
when the sum reaches CHUNK it is passed on as one event and restarts at 0; a clear
sets it to 0.

- ``exact``: random frames (64..4200 B) of a few hot QPs, one per cycle at most and
  never one QP in two consecutive cycles (the transport's frames are two beats or
  more), clears of idle QPs in between. Every output event, in order, must be the
  model's; nothing may be dropped.
- ``overload``: frames of one QP in every cycle (twice the rate the transport can
  reach) and a slow consumer. Some frames are lost, and each must be counted: with
  equal frames, bytes passed on after a final flush = (frames - dropped) x size.

Verilator runs with --assert: the block's own check (every event carries CHUNK bytes
up to CHUNK plus one frame) and fabnic_qp_rmw's hazard and credit assertions hold in
every cycle.
"""

from __future__ import annotations

import random
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import FallingEdge, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

CHUNK = 1024


class AccModel:
    def __init__(self, chunk: int) -> None:
        self.chunk = chunk
        self.sum: dict[int, int] = {}

    def frame(self, qpn: int, n: int) -> tuple[int, int] | None:
        s = self.sum.get(qpn, 0) + n
        if s >= self.chunk:
            self.sum[qpn] = 0
            return (qpn, s)
        self.sum[qpn] = s
        return None

    def clear(self, qpn: int) -> None:
        self.sum[qpn] = 0


if cocotb is not None:

    class Env:
        def __init__(self, dut) -> None:
            self.dut = dut
            self.got: list[tuple[int, int]] = []
            self.ready_p = 1.0
            self.rng = random.Random(5)

        async def start(self) -> None:
            d = self.dut
            d.s_ev_valid.value = 0
            d.s_ev_qpn.value = 0
            d.s_ev_bytes.value = 0
            d.s_clr_valid.value = 0
            d.s_clr_qpn.value = 0
            d.m_ev_ready.value = 1
            await start_clock_reset(d)
            cocotb.start_soon(self._sink())

        async def _sink(self) -> None:
            d = self.dut
            while True:
                await RisingEdge(d.clk)
                if int(d.m_ev_valid.value) and int(d.m_ev_ready.value):
                    self.got.append((int(d.m_ev_qpn.value), int(d.m_ev_bytes.value)))
                await FallingEdge(d.clk)
                d.m_ev_ready.value = int(self.rng.random() < self.ready_p)

        async def clear(self, qpn: int) -> None:
            d = self.dut
            await FallingEdge(d.clk)
            d.s_clr_valid.value = 1
            d.s_clr_qpn.value = qpn
            while True:
                await RisingEdge(d.clk)
                if int(d.s_clr_ready.value):
                    break
            await FallingEdge(d.clk)
            d.s_clr_valid.value = 0

        async def frame(self, qpn: int | None, n: int = 0) -> None:
            """Drive one cycle: a frame, or nothing (qpn None)."""
            d = self.dut
            await FallingEdge(d.clk)
            d.s_ev_valid.value = int(qpn is not None)
            d.s_ev_qpn.value = qpn or 0
            d.s_ev_bytes.value = n

        async def idle(self, cycles: int) -> None:
            for _ in range(cycles):
                await self.frame(None)

    @cocotb.test()
    async def exact(dut):
        env = Env(dut)
        await env.start()
        rng = random.Random(1)
        model = AccModel(CHUNK)
        want: list[tuple[int, int]] = []
        hot = [0, 1, 2, 3, 17, 42, 63]
        for q in hot:
            await env.clear(q)
            model.clear(q)
        last = None
        for rnd in range(40):
            for _ in range(300):
                if rng.random() < 0.3:
                    await env.frame(None)
                    last = None
                    continue
                q = rng.choice([h for h in hot if h != last])
                n = rng.choice([64, 128, 300, 1500, 4200, rng.randrange(64, 4201)])
                await env.frame(q, n)
                last = q
                ev = model.frame(q, n)
                if ev:
                    want.append(ev)
            await env.idle(12)
            # clear an idle QP: its sum restarts
            q = rng.choice(hot)
            await env.clear(q)
            model.clear(q)
            if rnd % 10 == 9:
                dut._log.info("round %d: %d events", rnd, len(want))
        await env.idle(40)
        assert int(dut.cnt_dropped.value) == 0, "frames lost below the transport's peak rate"
        diff = next((i for i, (x, y) in enumerate(zip(env.got, want, strict=False)) if x != y),
                    min(len(env.got), len(want)))
        assert env.got == want, f"{len(env.got)} events, model {len(want)}; first difference at {diff}"
        dut._log.info("%d events, all as the model", len(want))

    @cocotb.test()
    async def overload(dut):
        env = Env(dut)
        await env.start()
        q, size, n = 5, 200, 4000
        await env.clear(q)
        env.ready_p = 0.05
        for _ in range(n):
            await env.frame(q, size)
        await env.frame(None)
        env.ready_p = 1.0
        await env.idle(60)
        dropped = int(dut.cnt_dropped.value)
        # every accepted byte is passed on once: the sum left in the accumulator is
        # (accepted bytes) - (passed on), below CHUNK; frames well apart then continue
        # from that sum exactly as the model says
        accepted = (n - dropped) * size
        base = sum(b for _, b in env.got)
        assert 0 < dropped < n
        assert 0 <= accepted - base < CHUNK, (accepted, base)
        model = AccModel(CHUNK)
        model.sum[q] = accepted - base
        want = []
        mark = len(env.got)
        for _ in range(2 * CHUNK // size + 1):
            await env.frame(q, size)
            await env.idle(3)
            ev = model.frame(q, size)
            if ev:
                want.append(ev)
        await env.idle(40)
        dut._log.info("%d frames, %d dropped (counted), %d B passed on", n, dropped, base)
        assert env.got[mark:] == want
        assert all(q2 == q for q2, _ in env.got)


def test_cc_tx_acc() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_cc_tx_acc", module="test_cc_tx_acc",
               test_dir=Path(__file__).parent,
               parameters={"NUM_QP": 64, "CHUNK": CHUNK})
