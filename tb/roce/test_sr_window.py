# SPDX-License-Identifier: Apache-2.0
"""fabnic_roce_sr_window against the Python model of docs/roce_sr.md (sr_model.py).

Streams of packet arrivals on several interleaved QPs: shuffled blocks, losses and
retransmissions, duplicates, junk PSNs far ahead/behind, READ-like ordered requests
spanning several PSNs, re-inits while requests are in flight, starting PSNs near the
2^24 wrap. Random valid gaps and response back-pressure. Every response is compared
with the model. A directed test checks the documented latency and throughput: one
request per cycle on alternating QPs, one per two cycles back to back on one QP (the
hazard rule's bubble).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest
from sr_model import PSN_MOD, SrClass, SrResponse, SrWindowModel

try:
    import cocotb
    from cocotb.triggers import ReadOnly, RisingEdge
except ImportError:  # collected by pytest outside the simulator
    cocotb = None


@dataclass
class Req:
    qpn: int
    psn: int = 0
    span: int = 1
    ordered: bool = False
    init: bool = False


class QpSender:
    """A selective-repeat sender for one QP behind a lossy, reordering network.

    It reads the receiver's window (the model: expected PSN + received set, i.e. what a
    SACK reports) to choose retransmissions, keeps about a window of PSNs in flight and
    delivers packets from a reordering buffer with loss, duplication and junk PSNs.
    Every arrival it produces is judged by the model and the DUT independently.
    """

    def __init__(self, rng: random.Random, qpn: int, window: int, start: int, npsn: int,
                 sessions: int = 2) -> None:
        self.rng = rng
        self.qpn = qpn
        self.window = window
        self.sessions = sessions
        self._new_session(start, npsn)

    def _new_session(self, start: int, npsn: int) -> None:
        self.start = start
        self.npsn = npsn
        self.sent_hi = 0
        self.flight: list[Req] = []
        self.reads: dict[int, int] = {}
        self.need_init = True

    def _off(self, psn: int) -> int:
        return (psn - self.start) % PSN_MOD

    def _pkt(self, off: int) -> Req:
        span = self.reads.get(off, 1)
        return Req(self.qpn, (self.start + off) % PSN_MOD, span, off in self.reads)

    def _missing(self, model: SrWindowModel) -> list[int]:
        qp = model.qps[self.qpn]
        o = self._off(qp.epsn)
        out: list[int] = []
        hi = max((self._off(p) for p in qp.ahead), default=o)
        while o < min(self.sent_hi, hi):
            if (self.start + o) % PSN_MOD not in qp.ahead:
                out.append(o)
            o += self.reads.get(o, 1)
        return out

    def done(self, model: SrWindowModel) -> bool:
        return self.sessions == 0

    def next_req(self, model: SrWindowModel) -> Req:
        rng = self.rng
        if self.need_init:
            self.need_init = False
            return Req(self.qpn, self.start, init=True)
        epsn_off = self._off(model.qps[self.qpn].epsn)
        if epsn_off >= self.npsn and not self.flight:
            self.sessions -= 1
            if self.sessions == 0:  # last word: a duplicate of the last PSN
                return Req(self.qpn, (model.qps[self.qpn].epsn - 1) % PSN_MOD)
            self._new_session(rng.randrange(PSN_MOD), rng.randint(50, 200))
            return self.next_req(model)
        if rng.random() < 0.02:  # junk far ahead or behind
            off = rng.choice([self.window, self.window + 1, 1 << 22, (1 << 23) - 1, 1 << 23,
                              PSN_MOD - 1, PSN_MOD - self.window])
            return Req(self.qpn, (model.qps[self.qpn].epsn + off) % PSN_MOD)
        while True:
            if self.flight and rng.random() < 0.6:
                r = self.flight.pop(rng.randrange(len(self.flight)))
                u = rng.random()
                if u < 0.05:
                    self.flight.append(r)  # duplicated by the network
                if u > 0.9:
                    continue  # lost
                return r
            missing = self._missing(model)
            if missing and rng.random() < 0.5:
                self.flight.append(self._pkt(rng.choice(missing)))
            elif self.sent_hi - epsn_off < self.window + 4 and self.sent_hi < self.npsn:
                off = self.sent_hi
                if rng.random() < 0.05:
                    self.reads[off] = rng.choice([2, 3, self.window - 1, self.window,
                                                  self.window + 5])
                self.flight.append(self._pkt(off))
                self.sent_hi += self.reads.get(off, 1)
            elif not self.flight:
                self.flight.append(self._pkt(epsn_off))  # tail-loss timeout


if cocotb is not None:
    from fabnic_tb.clock import start_clock_reset

    class Bench:
        def __init__(self, dut) -> None:
            self.dut = dut
            self.window = len(dut.m_rsp_bitmap)
            self.model = SrWindowModel(self.window)
            self.expected: list[tuple[int, int, int, SrResponse]] = []
            self.checked = 0
            self.cycle = 0
            self.counts = {c: 0 for c in SrClass}
            self.inits = 0
            for s in ("s_init_valid", "s_req_valid", "m_rsp_ready"):
                getattr(dut, s).value = 0

        def _accept(self, r: Req, tag: int) -> None:
            if r.init:
                self.model.init(r.qpn, r.psn)
                self.inits += 1
                return
            exp = self.model.arrive(r.qpn, r.psn, r.span, r.ordered)
            self.counts[exp.cls] += 1
            self.expected.append((r.qpn, r.psn, tag, exp))

        def _check(self) -> None:
            d = self.dut
            assert self.expected, "response without a request"
            qpn, psn, tag, exp = self.expected.pop(0)
            got = (int(d.m_rsp_qpn.value), int(d.m_rsp_psn.value), int(d.m_rsp_user.value))
            assert got == (qpn, psn, tag), f"response order: got {got} expected {(qpn, psn, tag)}"
            g = SrResponse(SrClass(int(d.m_rsp_class.value)), int(d.m_rsp_epsn.value),
                           int(d.m_rsp_adv.value), int(d.m_rsp_bitmap.value))
            assert g == exp, f"qp {qpn} psn {psn:#x} (#{self.checked}): got {g} expected {exp}"
            self.checked += 1

        async def run(self, source: Callable[[], Req | None], seed: int,
                      p_valid: float = 0.8, p_ready: float = 0.8) -> None:
            """Drive requests from source() (called again only after the previous one was
            accepted, so it sees the model updated) and check every response."""
            d = self.dut
            rng = random.Random(seed)
            tag = 0
            r = source()
            while r is not None or self.expected:
                drive = r is not None and rng.random() < p_valid
                d.s_init_valid.value = int(drive and r.init)
                d.s_req_valid.value = int(drive and not r.init)
                if r is not None:
                    d.s_init_qpn.value = r.qpn
                    d.s_init_epsn.value = r.psn
                    d.s_req_qpn.value = r.qpn
                    d.s_req_psn.value = r.psn
                    d.s_req_span.value = r.span
                    d.s_req_ordered.value = int(r.ordered)
                    d.s_req_user.value = tag & 0xFF
                d.m_rsp_ready.value = int(rng.random() < p_ready)
                await ReadOnly()
                if d.m_rsp_valid.value and d.m_rsp_ready.value:
                    self._check()
                accepted = False
                if drive:
                    rdy = d.s_init_ready.value if r.init else d.s_req_ready.value
                    if rdy:
                        self._accept(r, tag & 0xFF)
                        tag += 1
                        accepted = True
                await RisingEdge(d.clk)
                self.cycle += 1
                if accepted:
                    r = source()
            d.s_init_valid.value = 0
            d.s_req_valid.value = 0

        def check_counters(self) -> None:
            d = self.dut
            mask = (1 << len(d.cnt_init)) - 1
            names = {SrClass.NEW_IN_ORDER: "cnt_in_order",
                     SrClass.NEW_OUT_OF_ORDER: "cnt_out_of_order",
                     SrClass.DUPLICATE: "cnt_duplicate", SrClass.BEYOND_WINDOW: "cnt_beyond",
                     SrClass.ORDERED_EARLY: "cnt_ordered_early"}
            for c, n in names.items():
                assert int(getattr(d, n).value) == self.counts[c] & mask, n
            assert int(d.cnt_init.value) == self.inits & mask

    @cocotb.test()
    async def random_arrivals(dut):
        await start_clock_reset(dut)
        b = Bench(dut)
        rng = random.Random(2026)
        nqp = 2 ** len(dut.s_req_qpn)
        qpns = sorted({0, nqp - 1, *rng.sample(range(nqp), min(nqp, 6))})
        senders = [QpSender(rng, q, b.window,
                            rng.choice([0, PSN_MOD - 40, PSN_MOD - 200, rng.randrange(PSN_MOD)]),
                            rng.randint(200, 400), sessions=3) for q in qpns]
        cur: list[QpSender] = [senders[0]]

        def source() -> Req | None:
            live = [s for s in senders if not s.done(b.model)]
            if not live:
                return None
            # stay on one QP for a while: back-to-back same-QP requests use the bypass
            if cur[0] not in live or rng.random() < 0.3:
                cur[0] = rng.choice(live)
            return cur[0].next_req(b.model)

        await b.run(source, seed=7)
        b.check_counters()
        dut._log.info("checked %d responses in %d cycles; classes %s, inits %d", b.checked,
                      b.cycle, {c.name: n for c, n in b.counts.items()}, b.inits)
        for c in SrClass:
            assert b.counts[c] > 0, f"class {c.name} never exercised"
        assert b.checked == sum(b.counts.values())

    def same_qp_pairs(reqs: list[Req]) -> int:
        """Requests (inits included) for the same QP as the request just before them:
        each waits one bubble cycle (the documented hazard rule)."""
        return sum(1 for a, b in pairwise(reqs) if a.qpn == b.qpn)

    @cocotb.test()
    async def throughput_latency(dut):
        """Back-to-back in-order requests to one QP, then alternating QPs, ready always
        high: response latency 4 cycles; one accepted per cycle on alternating QPs, one
        bubble per request that follows one for the same QP."""
        await start_clock_reset(dut)
        b = Bench(dut)
        base = PSN_MOD - 50  # wraps
        reqs = [Req(3, base, init=True), Req(5, 17, init=True)]
        reqs += [Req(3, (base + i) % PSN_MOD) for i in range(100)]
        reqs += [Req(3 if i % 2 else 5, (base + 100 + i // 2) % PSN_MOD if i % 2 else 17 + i // 2)
                 for i in range(100)]
        d = dut
        first_accept = first_rsp = None
        accepted = 0
        start = b.cycle
        i = 0
        tag = 0
        d.m_rsp_ready.value = 1
        while i < len(reqs) or b.expected:
            r = reqs[i] if i < len(reqs) else None
            d.s_init_valid.value = int(r is not None and r.init)
            d.s_req_valid.value = int(r is not None and not r.init)
            if r is not None:
                d.s_init_qpn.value = r.qpn
                d.s_init_epsn.value = r.psn
                d.s_req_qpn.value = r.qpn
                d.s_req_psn.value = r.psn
                d.s_req_span.value = 1
                d.s_req_ordered.value = 0
                d.s_req_user.value = tag & 0xFF
            await ReadOnly()
            if d.m_rsp_valid.value:
                if first_rsp is None:
                    first_rsp = b.cycle
                b._check()
            if r is not None:
                rdy = d.s_init_ready.value if r.init else d.s_req_ready.value
                if rdy:
                    if not r.init:
                        if first_accept is None:
                            first_accept = b.cycle
                        accepted += 1
                    b._accept(r, tag & 0xFF)
                    i += 1
                    tag += 1
            await RisingEdge(d.clk)
            b.cycle += 1
        d.s_req_valid.value = 0
        latency = first_rsp - first_accept
        assert latency == 4, f"latency {latency}"
        assert b.cycle - start == len(reqs) + same_qp_pairs(reqs) + 4, \
            f"{b.cycle - start} cycles for {len(reqs)} requests"
        assert b.counts[SrClass.NEW_IN_ORDER] == accepted == 200
        dut._log.info("latency %d cycles, %d requests in %d cycles", latency, accepted,
                      b.cycle - start)

    @cocotb.test()
    async def slow_path(dut):
        """A hole filled while PSNs wait ahead of it (the slow path: three stall cycles),
        followed back to back by requests to the same QP (in order, out of order,
        duplicates, a READ-like span) and to another QP; first with the output always
        ready (the stall costs exactly three cycles per fill, on top of the hazard
        bubbles), then again with random back-pressure. Every response is checked
        against the model."""
        await start_clock_reset(dut)
        b = Bench(dut)
        w = b.window
        base = PSN_MOD - 5  # wraps inside the burst

        def burst(q: int, other: int, start: int) -> tuple[list[Req], int]:
            reqs = [Req(q, start, init=True), Req(other, 100, init=True)]
            reqs += [Req(q, (start + i) % PSN_MOD) for i in range(1, w // 2)]       # ahead
            reqs += [Req(q, start)]                                                 # fill
            nxt = (start + w // 2) % PSN_MOD
            reqs += [Req(q, nxt), Req(q, (nxt + 2) % PSN_MOD), Req(q, (nxt + 1) % PSN_MOD),
                     Req(q, nxt), Req(other, 100), Req(q, (nxt + 3) % PSN_MOD),
                     Req(q, (nxt + 5) % PSN_MOD), Req(q, (nxt + 4) % PSN_MOD, span=2,
                                                      ordered=True),
                     Req(q, (nxt + 5) % PSN_MOD), Req(other, 102), Req(other, 101)]
            return reqs, 4   # fills with PSNs waiting: start, nxt+1, nxt+4, 101

        reqs, nslow = burst(3, 5, base)
        d = dut
        d.m_rsp_ready.value = 1
        start = b.cycle
        i = tag = 0
        while i < len(reqs) or b.expected:
            r = reqs[i] if i < len(reqs) else None
            d.s_init_valid.value = int(r is not None and r.init)
            d.s_req_valid.value = int(r is not None and not r.init)
            if r is not None:
                d.s_init_qpn.value = r.qpn
                d.s_init_epsn.value = r.psn
                d.s_req_qpn.value = r.qpn
                d.s_req_psn.value = r.psn
                d.s_req_span.value = r.span
                d.s_req_ordered.value = int(r.ordered)
                d.s_req_user.value = tag & 0xFF
            await ReadOnly()
            if d.m_rsp_valid.value:
                b._check()
            if r is not None:
                rdy = d.s_init_ready.value if r.init else d.s_req_ready.value
                if rdy:
                    b._accept(r, tag & 0xFF)
                    i += 1
                    tag += 1
            await RisingEdge(d.clk)
            b.cycle += 1
        d.s_init_valid.value = 0
        d.s_req_valid.value = 0
        cycles = b.cycle - start
        assert cycles == len(reqs) + same_qp_pairs(reqs) + 4 + 3 * nslow, f"{cycles} cycles"
        # the same bursts on other QPs under random back-pressure and valid gaps
        bursts = [burst(q, q + 1, (base + 37 * q) % PSN_MOD)[0] for q in (6, 8, 10)]
        flat = [r for rs in bursts for r in rs]
        it = iter(flat)
        await b.run(lambda: next(it, None), seed=11, p_valid=0.9, p_ready=0.6)
        b.check_counters()
        assert b.expected == []


@pytest.mark.parametrize("params", [
    {"NUM_QP": 1024, "W": 64, "OUT_REG": 1},
    {"NUM_QP": 16, "W": 16, "OUT_REG": 0},
])
def test_sr_window(params: dict[str, int]) -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_roce_sr_window", module="test_sr_window",
               test_dir=Path(__file__).parent, parameters=params)
