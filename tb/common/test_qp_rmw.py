# SPDX-License-Identifier: Apache-2.0
"""fabnic_qp_rmw (tb_qp_rmw.sv: compute hook new = state * MUL + op, written when op & 3)
against a Python golden model of the per-QP state table.

Every result is checked in order: results leave in issue order, requests among
themselves in the order they were sent, control writes likewise, so each result is
the next expected entry of its class (m_res_ctl); its old state must equal the model's
state of the QP and its new state the hook applied to it (or the control write's value).
Stimulus: random request streams with heavy same-QP bursts (repeats, a small hot set
that moves, QPNs that differ in one bit), random control writes on a separate port,
random valid gaps and random m_res_ready in phases from no back-pressure to heavy.
Verilator runs with --assert, so the block's own hazard, credit and skid assertions
are checked in every cycle. The throughput test measures one operation per cycle for
distinct QPs and the cost of back-to-back operations on one QP under each hazard rule.
"""

from __future__ import annotations

import json
import os
import random
from collections import deque
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import FallingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

MUL = 0x9E3779B97F4A7C15


class QpModel:
    """The per-QP state table and the engine's update function."""

    def __init__(self, state_w: int) -> None:
        self.mask = (1 << state_w) - 1
        self.mul = MUL & self.mask
        self.state: dict[int, int] = {}

    def apply(self, old: int, op: int) -> int:
        return (old * self.mul + op) & self.mask if op & 3 else old


class Tb:
    def __init__(self, dut, seed: int) -> None:
        self.dut = dut
        self.rng = random.Random(seed)
        self.qpn_w = len(dut.s_req_qpn)
        self.num_qp = 1 << self.qpn_w
        self.state_w = len(dut.s_ctl_state)
        self.op_w = len(dut.s_req_op)
        cfg = json.loads(os.environ["QP_RMW_PARAMS"])
        self.ram_lat = int(cfg["RAM_LAT"])
        self.forward = int(cfg["FORWARD"])
        self.model = QpModel(self.state_w)
        self.req_todo: deque[tuple[int, int]] = deque()
        self.ctl_todo: deque[tuple[int, int]] = deque()
        self.req_sent: deque[tuple[int, int, int]] = deque()  # qpn, op, cycle
        self.ctl_sent: deque[tuple[int, int]] = deque()
        self.cur_req: tuple[int, int] | None = None
        self.cur_ctl: tuple[int, int] | None = None
        self.p_req = self.p_ctl = self.p_ready = 1.0
        self.cycle = 0
        self.n_req_res = self.n_ctl_res = 0
        self.res_cycles: list[int] = []
        self.latencies: list[int] = []
        for n in ("s_req_valid", "s_ctl_valid", "m_res_ready"):
            getattr(dut, n).value = 0
        dut.s_req_qpn.value = 0
        dut.s_req_op.value = 0
        dut.s_ctl_qpn.value = 0
        dut.s_ctl_state.value = 0

    def outstanding(self) -> int:
        return (len(self.req_todo) + len(self.ctl_todo) + len(self.req_sent) + len(self.ctl_sent)
                + (self.cur_req is not None) + (self.cur_ctl is not None))

    def check(self) -> None:
        d = self.dut
        qpn = int(d.m_res_qpn.value)
        op = int(d.m_res_op.value)
        old = int(d.m_res_old_state.value)
        new = int(d.m_res_new_state.value)
        st = self.model.state
        if int(d.m_res_ctl.value):
            assert self.ctl_sent, f"cycle {self.cycle}: control result with none sent"
            e_qpn, e_val = self.ctl_sent.popleft()
            assert (qpn, op) == (e_qpn, 0), f"cycle {self.cycle}: ctl result {qpn},{op} != {e_qpn}"
            if e_qpn in st:
                assert old == st[e_qpn], (f"cycle {self.cycle}: ctl QP {qpn} old {old:#x} "
                                          f"!= model {st[e_qpn]:#x}")
            assert new == e_val, f"cycle {self.cycle}: ctl QP {qpn} new {new:#x} != {e_val:#x}"
            st[e_qpn] = e_val
            self.n_ctl_res += 1
        else:
            assert self.req_sent, f"cycle {self.cycle}: request result with none sent"
            e_qpn, e_op, sent_cycle = self.req_sent.popleft()
            assert (qpn, op) == (e_qpn, e_op), (f"cycle {self.cycle}: result QP {qpn} op {op:#x}"
                                                f" != sent QP {e_qpn} op {e_op:#x}")
            assert e_qpn in st, f"QP {e_qpn} used before its control write"
            assert old == st[e_qpn], (f"cycle {self.cycle}: QP {qpn} op {op:#x} old {old:#x} "
                                      f"!= model {st[e_qpn]:#x}")
            exp = self.model.apply(old, op)
            assert new == exp, f"cycle {self.cycle}: QP {qpn} op {op:#x} new {new:#x} != {exp:#x}"
            st[e_qpn] = new
            self.n_req_res += 1
            self.res_cycles.append(self.cycle)
            self.latencies.append(self.cycle - sent_cycle)

    async def clock(self) -> None:
        """One process drives and samples every port at the falling edge. All outputs of
        the block come from flops, so what is set here and read here is what the next
        rising edge sees: valid && ready now is a handshake at that edge."""
        d, rng = self.dut, self.rng
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            if self.cur_req is None and self.req_todo and rng.random() < self.p_req:
                self.cur_req = self.req_todo.popleft()
            if self.cur_req is not None:
                d.s_req_valid.value = 1
                d.s_req_qpn.value = self.cur_req[0]
                d.s_req_op.value = self.cur_req[1]
                if int(d.s_req_ready.value):
                    self.req_sent.append((*self.cur_req, self.cycle))
                    self.cur_req = None
            else:
                d.s_req_valid.value = 0
            if self.cur_ctl is None and self.ctl_todo and rng.random() < self.p_ctl:
                self.cur_ctl = self.ctl_todo.popleft()
            if self.cur_ctl is not None:
                d.s_ctl_valid.value = 1
                d.s_ctl_qpn.value = self.cur_ctl[0]
                d.s_ctl_state.value = self.cur_ctl[1]
                if int(d.s_ctl_ready.value):
                    self.ctl_sent.append(self.cur_ctl)
                    self.cur_ctl = None
            else:
                d.s_ctl_valid.value = 0
            ready = rng.random() < self.p_ready
            d.m_res_ready.value = int(ready)
            if ready and int(d.m_res_valid.value):
                self.check()

    async def drain(self, limit: int = 20000) -> None:
        start = self.cycle
        while self.outstanding():
            await FallingEdge(self.dut.clk)
            assert self.cycle - start < limit, (f"no progress: {len(self.req_sent)} requests, "
                                                f"{len(self.ctl_sent)} control writes pending")

    async def init_qps(self, qpns: list[int]) -> None:
        p = (self.p_ctl, self.p_ready)
        self.p_ctl = self.p_ready = 1.0
        for q in qpns:
            self.ctl_todo.append((q, self.rng.getrandbits(self.state_w)))
        await self.drain()
        self.p_ctl, self.p_ready = p


async def setup(dut, seed: int) -> Tb:
    tb = Tb(dut, seed)
    await start_clock_reset(dut)
    cocotb.start_soon(tb.clock())
    return tb


def qp_pool(rng: random.Random, num_qp: int, qpn_w: int) -> list[int]:
    """QPs to use: both ends of the range, a random spread, and pairs that differ in one
    bit (a hazard compare that ignores a bit would mix them up)."""
    pool = {0, num_qp - 1}
    for q in rng.sample(range(num_qp), min(num_qp, 24)):
        pool.add(q)
        pool.add(q ^ (1 << rng.randrange(qpn_w)))
    return sorted(pool)


if cocotb is not None:

    @cocotb.test()
    async def rmw_random(dut):
        """Random requests with same-QP bursts, control writes, back-pressure phases."""
        tb = await setup(dut, 1)
        rng = tb.rng
        pool = qp_pool(rng, tb.num_qp, tb.qpn_w)
        await tb.init_qps(pool)
        n_ops = int(os.environ.get("QP_RMW_OPS", "24000"))
        # (request valid, control valid, result ready) probabilities per phase
        phases = [(1.0, 0.2, 1.0), (0.9, 0.1, 0.3), (0.5, 0.3, 0.9), (1.0, 0.05, 0.7),
                  (0.3, 0.5, 0.15), (1.0, 0.0, 1.0), (0.8, 0.2, 0.5)]
        hot: list[int] = rng.sample(pool, 3)
        last = pool[0]
        per_phase = n_ops // len(phases)
        for ph, (p_req, p_ctl, p_ready) in enumerate(phases):
            tb.p_req, tb.p_ctl, tb.p_ready = p_req, p_ctl, p_ready
            for i in range(per_phase):
                if i % 300 == 0:
                    hot = [rng.choice(pool) for _ in range(3)]
                r = rng.random()
                if r < 0.45:
                    q = last                                # burst on one QP
                elif r < 0.8:
                    q = rng.choice(hot)                     # a few QPs interleaved
                else:
                    q = rng.choice(pool)
                last = q
                tb.req_todo.append((q, rng.getrandbits(tb.op_w)))
                if p_ctl and rng.random() < 0.04:
                    tb.ctl_todo.append((rng.choice(hot + [q]), rng.getrandbits(tb.state_w)))
            await tb.drain(limit=40 * per_phase)
            dut._log.info("phase %d (p_req %.2f p_ctl %.2f p_ready %.2f): %d requests, "
                          "%d control writes checked by cycle %d", ph, p_req, p_ctl, p_ready,
                          tb.n_req_res, tb.n_ctl_res, tb.cycle)
        assert tb.n_req_res == per_phase * len(phases)
        # the hook sees requests only, once each
        await FallingEdge(dut.clk)
        assert int(dut.hook_calls.value) == tb.n_req_res

    @cocotb.test()
    async def rmw_throughput(dut):
        """No back-pressure: one operation per cycle for distinct QPs; the cost of
        back-to-back operations on one QP (and on two alternating QPs) per hazard rule."""
        tb = await setup(dut, 2)
        lat, fwd = tb.ram_lat, tb.forward
        qps = list(range(32))
        await tb.init_qps(qps)

        async def run(seq: list[int]) -> tuple[float, int]:
            tb.res_cycles.clear()
            tb.latencies.clear()
            for q in seq:
                tb.req_todo.append((q, tb.rng.getrandbits(tb.op_w)))
            await tb.drain()
            c = tb.res_cycles
            return (c[-1] - c[0]) / (len(c) - 1), min(tb.latencies)

        n = 200
        distinct, latency = await run([qps[i % 32] for i in range(n)])
        same, _ = await run([5] * n)
        alt, _ = await run([5, 6] * (n // 2))
        three, _ = await run([5, 6, 7] * (n // 3))
        exp_same = 2 if fwd else lat + 3
        exp_alt = 1 if fwd else (lat + 3) / 2
        perf = dict(RAM_LAT=lat, FORWARD=fwd, NUM_QP=tb.num_qp, latency=latency,
                    distinct=distinct, same_qp=same, two_qps=alt, three_qps=three)
        dut._log.info("cycles per operation: %s", perf)
        out = Path(os.environ.get("FABNIC_BUILD_DIR", ".")) / "qp_rmw_perf.json"
        out.write_text(json.dumps(perf))
        assert latency == lat + 4, f"request handshake to result: {latency} cycles"
        assert distinct == 1.0, f"distinct QPs: {distinct} cycles per operation"
        assert same == exp_same, f"same QP: {same} cycles per operation, expected {exp_same}"
        assert alt == pytest.approx(exp_alt, abs=0.02), f"two QPs: {alt} cycles per operation"


CONFIGS = [
    dict(NUM_QP=64, STATE_W=32, OP_W=8, RAM_LAT=1, FORWARD=0),
    pytest.param(dict(NUM_QP=64, STATE_W=32, OP_W=8, RAM_LAT=1, FORWARD=1),
                 marks=pytest.mark.slow),
    pytest.param(dict(NUM_QP=64, STATE_W=32, OP_W=8, RAM_LAT=2, FORWARD=0),
                 marks=pytest.mark.slow),
    dict(NUM_QP=64, STATE_W=32, OP_W=8, RAM_LAT=2, FORWARD=1),
    dict(NUM_QP=16384, STATE_W=64, OP_W=16, RAM_LAT=1, FORWARD=1),
    dict(NUM_QP=16384, STATE_W=64, OP_W=16, RAM_LAT=2, FORWARD=0),
]


@pytest.mark.parametrize(
    "params", CONFIGS, ids=lambda p: f"qp{p['NUM_QP']}_lat{p['RAM_LAT']}_fwd{p['FORWARD']}")
def test_qp_rmw(params: dict) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_qp_rmw", module="test_qp_rmw", test_dir=here,
               extra_sources=[here / "tb_qp_rmw.sv"], parameters=params,
               extra_env={"QP_RMW_PARAMS": json.dumps(params)})
