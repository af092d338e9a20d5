# SPDX-License-Identifier: Apache-2.0
"""rc_model as the scoreboard of the two-NIC tests (tb_roce_pair).

A *lane* is one rc_model :class:`~roce.rc_model.Scenario` (a seeded random mix of every
RC opcode in both directions, tb/roce/rc_model.py) bound to real hardware: its two node
memories copied into NIC A's and NIC B's host memory, its MRs registered (two PDs per
NIC: the QPs' and another one), one RC QP on each NIC with its own CQ, connected to
each other. Several lanes run at once over disjoint memory, so each lane's outcome is
its scenario's outcome whatever the interleaving, losses and retransmissions.

The expectation comes only from the model (``Scenario.expected`` with the real
addresses, keys and QP numbers): the memory of both nodes byte for byte (ranges the
model calls undefined excepted) and every completion in order per QP and direction
(``compare_wcs``). Nothing is taken from the DUT except what it is checked for.

Used by test_roce_pair.py (lossy_mix, multi_qp_mix, model_errors) and test_roce_sr.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabnic import layouts as L
from fabnic import pyverbs as pv
from fabnic import verbs as v
from fabnic.pyverbs import SGE

try:                                   # cocotb runs with tb/roce on the path,
    from rc_model import RcResult, Scenario, compare_wcs, split_wcs
except ImportError:                    # tb/fw's pytest imports it as roce.scoreboard
    from roce.rc_model import RcResult, Scenario, compare_wcs, split_wcs


def to_pyverbs_send(wr: v.SendWR) -> pv.SendWR:
    """A flat verbs.SendWR (rc_model's form) as a pyverbs SendWR with one SGE."""
    op = L.WrOpcode[wr.opcode] if isinstance(wr.opcode, str) else L.WrOpcode(wr.opcode)
    out = pv.SendWR(wr.wr_id, op, sg=[SGE(wr.local_addr, wr.length, wr.lkey)],
                    imm_data=wr.imm, send_flags=pv.IBV_SEND_SIGNALED if wr.signaled else 0)
    if op in (L.WrOpcode.ATOMIC_CMP_AND_SWP, L.WrOpcode.ATOMIC_FETCH_AND_ADD):
        out.set_wr_atomic(wr.rkey, wr.remote_addr, wr.compare_add, wr.swap)
    elif op not in (L.WrOpcode.SEND, L.WrOpcode.SEND_WITH_IMM):
        out.set_wr_rdma(wr.rkey, wr.remote_addr)
    return out


def as_work_completion(w: pv.WC) -> v.WorkCompletion:
    """A pyverbs WC in rc_model's WorkCompletion form."""
    return v.WorkCompletion(w.wr_id, L.WcStatus(w.status).name, L.WcOpcode(w.opcode).name,
                            w.byte_len, w.imm_data if w.wc_flags & pv.IBV_WC_WITH_IMM else None,
                            w.qp_num)


@dataclass
class Lane:
    scenario: Scenario
    bases: dict[str, int]
    keys: dict[str, int]
    qps: dict[str, pv.QP]
    cqs: dict[str, pv.CQ]
    expect: RcResult | None = None
    got: dict[str, list[v.WorkCompletion]] = field(default_factory=dict)

    @property
    def qpns(self) -> dict[str, int]:
        return {q: self.qps[q].qp_num for q in ("a", "b")}

    def expected_count(self, q: str) -> int:
        assert self.expect is not None
        k = ("a" if q == "a" else "b", self.qps[q].qp_num)
        return len(self.expect.send_wcs[k]) + len(self.expect.recv_wcs[k])


class RcScoreboard:
    """Lanes of rc_model scenarios on PairEnv's two NICs (see the module docstring).

    ``await sb.add(scenario, ...)`` sets a lane up, ``await sb.post()`` posts every
    lane's receives then its sends (one driver call, so the doorbells of all lanes
    follow each other), ``await sb.check()`` waits for the completions the model
    expects and returns the list of differences (empty when the DUT agrees)."""

    def __init__(self, env, log=None) -> None:
        self.env = env
        self.log = log
        self.lanes: list[Lane] = []

    async def add(self, s: Scenario, *, mtu: int = 1024, timeout: int = 8,
                  retry_cnt: int = 7, rnr_retry: int = 7, sr: bool = False,
                  sq_psn: tuple[int, int] = (0x100, 0x200), depth: int = 64,
                  fail_reads: tuple[tuple[str, int, int], ...] = (),
                  fail_writes: tuple[tuple[str, int, int], ...] = ()) -> Lane:
        from fabnic_tb.fw_bus import run_driver

        if s.loopback:
            raise ValueError("a pair lane needs a two-node scenario (loopback=False)")
        env = self.env
        nics = {"a": env.a, "b": env.b}
        n_send = {q: sum(1 for k, qq, _ in s.ops if k == "send" and qq == q) for q in "ab"}
        n_recv = {q: sum(1 for k, qq, _ in s.ops if k == "recv" and qq == q) for q in "ab"}
        if max(*n_send.values(), *n_recv.values()) > depth:
            raise ValueError(f"scenario needs {n_send}/{n_recv} WQEs, rings hold {depth}")
        bases = {}
        for n in ("a", "b"):
            bases[n] = nics[n].mem.alloc(len(s.mem[n]))
            nics[n].mem.write(bases[n], s.mem[n])

        def setup(ctx: pv.Context, node: str):
            pds = (pv.PD(ctx), pv.PD(ctx))
            keys = {m.name: pv.MR(pds[m.pd], m.length, m.access,
                                  address=bases[m.node] + m.offset).lkey
                    for m in s.mrs if m.node == node}
            cq = pv.CQ(ctx, 2 * depth + 8)
            cap = pv.QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=1,
                           max_recv_sge=1)
            qp = pv.QP(pds[0], pv.QPInitAttr(qp_type=pv.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap,
                                             sq_sig_all=0))
            return pds, keys, cq, qp

        pa, ka, cqa, qa = await run_driver(setup, env.a.context, "a")
        pb, kb, cqb, qb = await run_driver(setup, env.b.context, "b")
        # rc_model only compares an MR's PD with its own node's QP's PD: its two PD
        # numbers stand for "the QPs' PD" (pds[0]) and "another PD" (pds[1]) on each NIC.
        qps, cqs = {"a": qa, "b": qb}, {"a": cqa, "b": cqb}

        def bring_up(qp: pv.QP, peer_qpn: int, peer, sq: int, rq: int) -> None:
            attr = pv.QPAttr(qp_access_flags=s.qp_access, path_mtu=pv.PathMtu[f"MTU_{mtu}"],
                             dest_qp_num=peer_qpn, rq_psn=rq, sq_psn=sq,
                             ah_attr=pv.AHAttr(dmac=peer.mac, dip=peer.ip), timeout=timeout,
                             retry_cnt=retry_cnt, rnr_retry=rnr_retry, selective_repeat=sr)
            if sr:
                attr.qp_state = pv.IBV_QPS_INIT
                qp.modify(attr, pv.INIT_MASK | pv.FABNIC_QP_MODES)
            qp.to_rts(attr)

        await run_driver(bring_up, qa, qb.qp_num, env.b, sq_psn[0], sq_psn[1])
        await run_driver(bring_up, qb, qa.qp_num, env.a, sq_psn[1], sq_psn[0])
        if getattr(env, "cov", None) is not None:
            env.cov.pair(qa.qp_num, qb.qp_num, sq_psn[0], sq_psn[1])
        keys = {**ka, **kb}
        lane = Lane(s, bases, keys, qps, cqs)
        lane.expect = s.expected(bases, keys, lane.qpns, fail_reads=fail_reads,
                                 fail_writes=fail_writes)
        pending = {k: w for k, w in lane.expect.pending.items() if w}
        if pending:
            raise ValueError(f"scenario leaves WRs waiting for receives: {pending}")
        self.lanes.append(lane)
        return lane

    async def post(self) -> None:
        from fabnic_tb.fw_bus import run_driver

        def post_all() -> None:
            for lane in self.lanes:
                ops = lane.scenario.bind(lane.bases, lane.keys)
                for q in ("a", "b"):
                    recvs = [pv.RecvWR(wr.wr_id, sg=[SGE(wr.addr, wr.length, wr.lkey)])
                             for k, qq, wr in ops if k == "recv" and qq == q]
                    if recvs:
                        lane.qps[q].post_recv(recvs)
            for lane in self.lanes:
                ops = lane.scenario.bind(lane.bases, lane.keys)
                for q in ("a", "b"):
                    sends = [to_pyverbs_send(wr) for k, qq, wr in ops
                             if k == "send" and qq == q]
                    if sends:
                        lane.qps[q].post_send(sends)

        await run_driver(post_all)

    async def check(self, max_polls: int = 40000, settle_cycles: int = 200) -> list[str]:
        """Wait for every lane's expected completions, then compare completions and both
        memories with the model. Returns the differences ("lane i: ..."), at most a few
        per lane and kind. When the wait itself fails (a timeout, an unmatched CQE), both
        NICs' counters are logged before the exception goes on."""
        from fabnic_tb.fw_bus import run_driver

        try:
            return await self._check(max_polls, settle_cycles)
        except Exception:
            for n, nic in (("a", self.env.a), ("b", self.env.b)):
                self.env.dut._log.error("%s %s", n, await run_driver(nic.ctx.counters))
            raise

    async def _check(self, max_polls: int, settle_cycles: int) -> list[str]:
        from cocotb.triggers import ClockCycles

        from fabnic_tb.fw_bus import run_driver

        env = self.env
        nics = {"a": env.a, "b": env.b}
        out: list[str] = []
        for lane in self.lanes:
            for q in ("a", "b"):
                n = lane.expected_count(q)
                wcs = await run_driver(lane.cqs[q].wait, n, max_polls) if n else []
                lane.got[q] = [as_work_completion(w) for w in wcs]
                if getattr(env, "cov", None) is not None:
                    for w in lane.got[q]:
                        env.cov.wc(w.status, "recv" if w.opcode.startswith("RECV") else "send")
        await ClockCycles(env.dut.clk, settle_cycles)
        for i, lane in enumerate(self.lanes):
            exp = lane.expect
            assert exp is not None
            for q in ("a", "b"):
                extra = (await run_driver(lane.cqs[q].poll, 16))[1]
                if extra:
                    out.append(f"lane {i} QP {q}: {len(extra)} completions beyond the "
                               f"model's: {[as_work_completion(w) for w in extra]}")
                k = (q, lane.qps[q].qp_num)
                split = split_wcs(lane.got[q])
                for d, exp_wcs in (("send", exp.send_wcs[k]), ("recv", exp.recv_wcs[k])):
                    diff = compare_wcs(exp_wcs, split.get((k[1], d), []))
                    out += [f"lane {i} QP {q} {d}: {x}" for x in diff[:6]]
            for n in ("a", "b"):
                actual = nics[n].mem.read(lane.bases[n], len(lane.scenario.mem[n]))
                bad = exp.memory_mismatches(n, actual, limit=6)
                out += [f"lane {i} node {n}: byte at {a:#x} is {g:#04x}, model {e:#04x}"
                        for a, e, g in bad]
        return out

    def summary(self) -> str:
        ops: dict[str, int] = {}
        for lane in self.lanes:
            for k, _q, wr in lane.scenario.ops:
                name = "RECV" if k == "recv" else str(getattr(wr.opcode, "name", wr.opcode))
                ops[name] = ops.get(name, 0) + 1
        return f"{len(self.lanes)} lanes, WRs {ops}"
