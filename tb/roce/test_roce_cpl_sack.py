# SPDX-License-Identifier: Apache-2.0
"""fabnic_roce_cpl_sack (the completer's selective-repeat resend planner) against a
Python model of the rules in docs/roce_sr.md: which PSNs a SACK bitmap, a READ-response
bitmap or a probe asks to resend, and where the resend mark moves.

Random requests of every mode (bitmaps dense, sparse, empty, full; marks below, inside
and beyond the bitmap; una / psn_hi inside and outside; PSNs near the 2^24 wrap; every
reorder tolerance), random gaps on the request port and random back-pressure on the
event port. Every emitted PSN, the order, the count and the mark are compared with the
model. A directed test checks the documented latencies and one PSN per cycle.
"""

from __future__ import annotations

import random
from pathlib import Path

PSN_MOD = 1 << 24
M_HOLES, M_TAIL, M_ONE = 0, 1, 2

try:
    import cocotb
    from cocotb.triggers import ReadOnly, RisingEdge
except ImportError:  # collected by pytest outside the simulator
    cocotb = None


def psn_lt(a: int, b: int) -> bool:
    """a before b in 24-bit serial arithmetic (difference taken as signed)."""
    d = (a - b) % PSN_MOD
    return d >= PSN_MOD // 2


def psn_le(a: int, b: int) -> bool:
    return a == b or psn_lt(a, b)


def model(mode: int, base: int, bmp: int, mark: int, una: int, psn_hi: int, reorder: int,
          gate: bool) -> tuple[list[int], int]:
    """(PSNs to resend, lowest first; the new mark) for one request."""
    open_ = not gate or psn_lt(una, psn_hi)
    if mode == M_ONE:
        return ([base] if open_ else []), mark
    if mode == M_TAIL:
        n = (psn_hi - base) % PSN_MOD
        return ([(base + i) % PSN_MOD for i in range(min(n, 64))] if open_ else []), mark
    # holes: missing PSNs below (highest received - reorder + 1), not below the mark
    if bmp == 0 or not psn_le(una, base) or not psn_le(base, psn_hi):
        cand: list[int] = []
        considered = 0
    else:
        top = bmp.bit_length() - 1
        considered = max(0, top + 1 - max(reorder, 1))
        cand = []
        for i in range(considered):
            p = (base + i) % PSN_MOD
            if bmp >> i & 1:
                continue
            if psn_lt(base, mark) and psn_lt(p, mark):
                continue          # already resent
            cand.append(p)
    if not cand:
        new_mark = mark
    else:
        hi = (base + considered) % PSN_MOD
        new_mark = hi if psn_lt(mark, hi) else mark
    emit = cand if open_ else []
    return emit, new_mark


if cocotb is not None:
    from fabnic_tb.clock import start_clock_reset

    class Bench:
        def __init__(self, dut) -> None:
            self.dut = dut
            dut.s_valid.value = 0
            dut.m_ev_ready.value = 0
            self.cycle = 0

        async def tick(self) -> None:
            await RisingEdge(self.dut.clk)
            self.cycle += 1

        async def one(self, rng: random.Random, req: dict, p_ready: float,
                      gap: int = 0) -> tuple[list[int], int, int, int]:
            """Run one request; return (PSNs, mark, cycles to the first PSN, cycles to done)
            counted from the request handshake."""
            d = self.dut
            for _ in range(gap):
                await self.tick()
            for k, v in req.items():
                getattr(d, f"s_{k}").value = int(v)
            d.s_valid.value = 1
            while True:
                await ReadOnly()
                ok = bool(d.s_ready.value)
                t0 = self.cycle                  # the handshake cycle
                await self.tick()
                if ok:
                    break
            d.s_valid.value = 0
            got: list[int] = []
            first = None
            while True:
                d.m_ev_ready.value = int(rng.random() < p_ready)
                await ReadOnly()
                if d.m_ev_valid.value and d.m_ev_ready.value:
                    got.append(int(d.m_ev_psn.value))
                    if first is None:
                        first = self.cycle - t0
                if d.m_done.value:
                    mark = int(d.m_done_mark.value)
                    assert not d.m_ev_valid.value, "done with an event pending"
                    done = self.cycle - t0
                    await self.tick()
                    break
                assert self.cycle - t0 < 2000, "planner hangs"
                await self.tick()
            d.m_ev_ready.value = 0
            return got, mark, -1 if first is None else first, done

    def random_req(rng: random.Random) -> dict:
        mode = rng.choice([M_HOLES] * 6 + [M_TAIL, M_ONE])
        base = rng.choice([rng.randrange(PSN_MOD), PSN_MOD - rng.randint(1, 70), rng.randint(0, 70)])
        kind = rng.random()
        if kind < 0.1:
            bmp = 0
        elif kind < 0.2:
            bmp = (1 << 64) - 1
        elif kind < 0.5:
            bmp = rng.getrandbits(64)
        else:
            bmp = 0
            for _ in range(rng.randint(1, 6)):
                bmp |= 1 << rng.randrange(64)
        una = (base - rng.choice([0, 0, 1, 5, 80])) % PSN_MOD
        if rng.random() < 0.1:
            una = (base + rng.randint(1, 10)) % PSN_MOD        # base behind una: nothing
        psn_hi = (base + rng.choice([0, 1, 3, 20, 63, 64, 65, 100, 1000])) % PSN_MOD
        if rng.random() < 0.1:
            psn_hi = (base - rng.randint(1, 10)) % PSN_MOD     # base beyond psn_hi
        mark = (base + rng.choice([-100, -3, 0, 1, 7, 30, 63, 64, 200])) % PSN_MOD
        return {"mode": mode, "base": base, "bmp": bmp, "mark": mark, "una": una,
                "psn_hi": psn_hi, "reorder": rng.choice([0, 1, 2, 3, 5, 17, 63]),
                "gate": rng.random() < 0.5}

    @cocotb.test()
    async def random_requests(dut):
        await start_clock_reset(dut)
        b = Bench(dut)
        rng = random.Random(1907)
        emitted = 0
        for n in range(600):
            req = random_req(rng)
            exp, exp_mark = model(**req)
            p_ready = rng.choice([1.0, 0.7, 0.3])
            got, mark, _, _ = await b.one(rng, req, p_ready, gap=rng.choice([0, 0, 1, 3]))
            assert got == exp, f"#{n} {req}: got {got} expected {exp}"
            if req["mode"] == M_HOLES:
                assert mark == exp_mark, f"#{n} {req}: mark {mark:#x} expected {exp_mark:#x}"
            emitted += len(got)
        assert emitted > 2000, emitted
        dut._log.info("600 requests, %d PSNs in %d cycles", emitted, b.cycle)

    @cocotb.test()
    async def latency_rate(dut):
        """Ready always high: first PSN 8 cycles after the handshake, then one per cycle;
        done two cycles after the last; with nothing to resend, done after 6."""
        await start_clock_reset(dut)
        b = Bench(dut)
        rng = random.Random(1)
        req = {"mode": M_TAIL, "base": PSN_MOD - 10, "bmp": 0, "mark": 0, "una": 0,
               "psn_hi": 40, "reorder": 0, "gate": 0}
        got, _, first, done = await b.one(rng, req, 1.0)
        assert got == [(PSN_MOD - 10 + i) % PSN_MOD for i in range(50)]
        assert first == 8, first
        assert done == first + 50 + 1, done
        req = {"mode": M_HOLES, "base": 100, "bmp": 1, "mark": 0, "una": 100, "psn_hi": 200,
               "reorder": 1, "gate": 1}
        got, mark, first, done = await b.one(rng, req, 1.0)
        assert got == [] and mark == 0 and done == 6, (got, mark, done)


def test_roce_cpl_sack() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_roce_cpl_sack", module="test_roce_cpl_sack",
               test_dir=Path(__file__).parent)
