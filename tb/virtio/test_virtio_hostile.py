# SPDX-License-Identifier: Apache-2.0
"""Hostile guest and host-memory faults against the VirtIO-net backend (tb_virtio).

test_hostile_guest: seeded random descriptor tables / avail rings on three transmitqs
and two receiveqs (hostile_guest.py: generator + golden model from the spec and the
docs/virtio.md error table). Per round it checks frames out (exact, per queue, in
order), every used ring entry, every error / drop counter delta, the needs-reset
bitmap and error code, the RX buffer contents, and that the whole memory image
outside the used rings and the buffers the device was given is unchanged (guard
bytes everywhere else). Every round is bounded in cycles (a hang fails), queues in
needs-reset are re-enabled and must serve good chains again.

test_dma_faults: host-memory error responses (axi_faults.py: SLVERR / DECERR on reads,
BRESP errors on writes) on descriptor reads, avail ring reads, TX payload reads,
used ring writes and RX buffer writes, with the behaviour docs/virtio.md specifies.

test_dma_fault_attribution: BRESP errors on one queue's used ring writes while other
queues' ring writes are in flight are charged to that queue only.

Seeds: HOSTILE_SEEDS (comma list) overrides the default regression seeds; the slow
soak runs HOSTILE_SOAK seeds (default 24) with more rounds.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import pytest

try:
    import cocotb
    import numpy as np
    from axi_faults import DECERR, SLVERR, AxiFaults
    from cocotb.triggers import ReadOnly, RisingEdge
    from cocotbext.axi import AxiStreamFrame
    from test_virtio import (
        F_AVAIL,
        F_DESC,
        F_EN,
        F_FEAT,
        F_SIZE,
        F_STATUS,
        F_USED,
        F_VEC,
        Env,
        frame_meta,
        tx_frames,
    )
except ImportError:
    cocotb = None

from hostile_guest import (
    D_BAD,
    D_DMA,
    E_AVAIL_JUMP,
    E_BAD_HEAD,
    E_DMA,
    E_RET,
    MOVER_BAD,
    RX_D_BAD_IN,
    RX_D_BIG,
    RX_D_EMPTY,
    RX_D_SMALL,
    WALK_BAD,
    Bump,
    HostileGuest,
    Outcome,
    QState,
    rx_expect,
)

MEM_SIZE = 1 << 20
MAX_FRAME = 2048
TXQ = (1, 3, 5)
RXQ = (0, 2)
RING_BASE = 0x1000           # fixed ring area per queue: 0x1000 + q * 0x2000
BUF_BASE, BUF_LIMIT = 0x20000, MEM_SIZE


def u16(mem, a: int) -> int:
    return struct.unpack("<H", mem.read(a, 2))[0]


class Hostile:
    """Queue setup, snapshots and checks shared by the tests."""

    def __init__(self, env: Env, rng: random.Random) -> None:
        self.env, self.rng = env, rng
        self.ram = env.ram
        self.bufs = Bump(BUF_BASE, BUF_LIMIT)
        self.g = HostileGuest(self.ram, rng, self.bufs, MAX_FRAME)
        self.qs: dict[int, QState] = {}
        self.snap = b""
        self.rx_log: list = []

    def guard_fill(self) -> None:
        self.ram.write(0, self.rng.randbytes(MEM_SIZE))

    async def setup(self, q: int, size: int, indirect: bool, event_idx: bool) -> QState:
        env = self.env
        if q in self.qs:
            await env.cfg(q, F_EN, 0)
        base = RING_BASE + q * 0x2000
        qs = QState(q, size, indirect, event_idx, desc=base, avail=base + 0x1000,
                    used=base + 0x1400)
        self.ram.write(qs.desc, bytes(16 * size))
        self.ram.write(qs.avail, bytes(6 + 2 * size))
        self.ram.write(qs.used, bytes(6 + 8 * size))
        for fld, val in ((F_DESC, qs.desc), (F_AVAIL, qs.avail), (F_USED, qs.used), (F_SIZE, size),
                         (F_FEAT, int(event_idx) | (int(indirect) << 1)), (F_VEC, 0xFFFF), (F_EN, 1)):
            await env.cfg(q, fld, val)
        self.qs[q] = qs
        return qs

    def snapshot(self) -> None:
        self.snap = bytes(self.ram.mem[:MEM_SIZE])

    def check_memory(self, writes: list[tuple[int, bytes]]) -> None:
        """Memory = snapshot + expected buffer writes, except the used rings."""
        exp = bytearray(self.snap)
        for a, d in writes:
            exp[a:a + len(d)] = d
        got = np.frombuffer(bytes(self.ram.mem[:MEM_SIZE]), dtype=np.uint8)
        diff = np.nonzero(got != np.frombuffer(bytes(exp), dtype=np.uint8))[0]
        allowed = [r for qs in self.qs.values() for r in qs.device_writable()]
        bad = [int(i) for i in diff if not any(a <= i < a + n for a, n in allowed)]
        if bad:
            runs, st = [], bad[0]
            for x, y in zip(bad, [*bad[1:], -1], strict=True):
                if y != x + 1:
                    runs.append((hex(st), x + 1 - st))
                    st = y
            self.env.dut._log.error("stray byte runs %s; posted RX chains %s", runs[:10], self.rx_log)
        assert not bad, (f"{len(bad)} bytes differ outside the used rings / expected writes, first at "
                         f"{[hex(x) for x in bad[:8]]}")

    def used(self, qs: QState) -> list[tuple[int, int]]:
        out = []
        end = u16(self.ram, qs.used + 2)
        while qs.used_seen != end:
            out.append(struct.unpack("<II", self.ram.read(qs.used + 4 + 8 * (qs.used_seen % qs.size), 8)))
            qs.used_seen = (qs.used_seen + 1) & 0xFFFF
        return out

    def counters(self) -> dict[str, list[int]]:
        e = self.env
        return {"err": [e.cnt("cnt_err", i) for i in range(10)],
                "txdrop": [e.cnt("cnt_txdrop", i) for i in range(6)],
                "txframes": [e.cnt("cnt_txframes", 0)],
                "rxdrop": [e.cnt("cnt_rxdrop", i) for i in range(4)],
                "rxframes": [e.cnt("cnt_rxframes", 0)],
                "rxbad": [e.cnt("cnt_rxbadchain", 0)],
                "rxdmaerr": [e.cnt("cnt_rxdmaerr", 0)]}

    def check_counters(self, before: dict, delta: dict[str, dict[int, int]], what: str,
                       slack: dict[str, dict[int, int]] | None = None) -> None:
        """Counter deltas exactly as the model says (``slack``: up to that much more)."""
        now = self.counters()
        bad = []
        for k, vals in now.items():
            for i, v in enumerate(vals):
                want = before[k][i] + delta.get(k, {}).get(i, 0)
                extra = (slack or {}).get(k, {}).get(i, 0)
                if not want <= v <= want + extra:
                    bad.append(f"{k}[{i}] = +{v - before[k][i]}, model +{want - before[k][i]}")
        assert not bad, f"{what}: counters " + "; ".join(bad)

    async def bounded(self, cond, cycles: int, what: str, diag=None) -> None:
        for _ in range(cycles):
            if cond():
                return
            await RisingEdge(self.env.dut.clk)
        raise AssertionError(f"{what}: not done within {cycles} cycles (hang) {diag() if diag else ''}")

    def needs_reset(self) -> int:
        return int(self.env.dut.q_needs_reset.value)


def add(d: dict, k: str, i: int, n: int = 1) -> None:
    d.setdefault(k, {})
    d[k][i] = d[k].get(i, 0) + n


async def hostile_round(h: Hostile, all_good: bool) -> None:
    """One round: random chains on every live TX and RX queue, then check everything."""
    rng, env, g = h.rng, h.env, h.g
    h.bufs.reset()
    h.rx_log = []
    delta: dict = {}
    tx_out: dict[int, list[Outcome]] = {}
    reset_q: dict[int, int] = {}
    # ---- TX chains
    for q in TXQ:
        qs = h.qs[q]
        slots = list(range(qs.size))
        rng.shuffle(slots)
        outs = []
        for _ in range(rng.randrange(1, min(qs.size, 24) + 1)):
            if all_good or rng.random() < 0.5:
                kind = "good"
            else:
                kind = rng.choice(WALK_BAD + MOVER_BAD)
            o = g.tx_chain(qs, slots, kind)
            if o is None:
                continue
            g.push_head(qs, o.head)
            outs.append(o)
        if not all_good and len(outs) < qs.size and rng.random() < 0.12:
            bad = rng.choice([qs.size, qs.size + 1, 0xFFFF, rng.randrange(qs.size, 0x10000)])
            g.push_head(qs, bad)
            outs.append(Outcome("reset", E_BAD_HEAD, head=bad, label="bad_head"))
        g.publish(qs)
        tx_out[q] = outs
    # ---- RX chains and frames
    rx_chains: dict[int, list[Outcome]] = {}
    for q in RXQ:
        qs = h.qs[q]
        slots = list(range(qs.size))
        rng.shuffle(slots)
        chains = []
        for _ in range(rng.randrange(0, min(qs.size, 16) + 1)):
            r = rng.random()
            kind = "good" if all_good or r < 0.55 else ("small" if r < 0.65 else rng.choice(WALK_BAD))
            o = g.rx_chain(qs, slots, kind)
            if o is None:
                continue
            g.push_head(qs, o.head)
            chains.append(o)
        g.publish(qs)
        rx_chains[q] = chains
        h.rx_log += [(q, c.head, c.label, [(hex(a), n) for a, n in c.rx_bufs]) for c in chains]
    h.snapshot()
    before = h.counters()

    # model: TX
    exp_frames: dict[int, list[bytes]] = {}
    exp_used: dict[int, list[tuple[int, int]]] = {}
    n_tx_frames = 0
    for q, outs in tx_out.items():
        exp_frames[q], exp_used[q] = [], []
        for o in outs:
            if o.kind == "reset":
                reset_q[q] = o.reason
                add(delta, "err", o.reason)
                break
            exp_used[q].append((o.head, 0))
            if o.kind == "frame":
                exp_frames[q].append(o.frame)
                n_tx_frames += 1
            elif o.kind == "walk":
                add(delta, "err", o.reason)
                add(delta, "txdrop", D_BAD)
            else:
                add(delta, "txdrop", o.reason)
    add(delta, "txframes", 0, n_tx_frames)
    # model: RX frames (input bad / too long do not take a chain)
    rx_per_q: dict[int, list] = {}
    writes: list[tuple[int, bytes]] = []
    n_rx = 0
    for q in RXQ:
        exp_used[q] = []
        chains = list(rx_chains[q])
        empty_left = rng.randrange(0, 3)     # frames beyond the posted chains (EMPTY)
        while chains or empty_left > 0:
            r = rng.random()
            bad_in = not all_good and r < 0.05
            big = not all_good and 0.05 <= r < 0.1
            f = rng.randbytes(2100 if big else rng.randrange(60, 1400))
            ok = rng.random() < 0.5
            rx_per_q.setdefault(q, []).append((f, q, ok, bad_in))
            if bad_in:
                add(delta, "rxdrop", RX_D_BAD_IN)
                continue
            if big:
                add(delta, "rxdrop", RX_D_BIG)
                continue
            if not any(c.kind != "walk" for c in chains):
                empty_left -= 1
            while chains and chains[0].kind == "walk":
                c = chains.pop(0)
                exp_used[q].append((c.head, 0))
                add(delta, "err", c.reason)
                add(delta, "rxbad", 0)
            if not chains:
                add(delta, "rxdrop", RX_D_EMPTY)
                continue
            c = chains.pop(0)
            res = rx_expect(f, ok, c)
            if res is None:
                exp_used[q].append((c.head, 0))
                add(delta, "rxdrop", RX_D_SMALL)
            else:
                writes += res[0]
                exp_used[q].append((c.head, res[1]))
                n_rx += 1
    add(delta, "rxframes", 0, n_rx)
    # interleave the receiveqs at random, order per queue kept
    rx_frames = []
    while any(rx_per_q.values()):
        q = rng.choice([q for q, v in rx_per_q.items() if v])
        rx_frames.append(rx_per_q[q].pop(0))
    # ---- run
    order = list(TXQ)
    rng.shuffle(order)
    for q in order:
        await env.notify(q)
    for f, q, ok, bad_in in rx_frames:
        await env.src.send(AxiStreamFrame(f, tuser=int(bad_in) | (int(ok) << 1), tdest=q))
    n_rx_in = len(rx_frames)
    rx_base = sum(before["rxdrop"]) + before["rxframes"][0]
    n_chains = sum(len(v) for v in tx_out.values()) + n_rx_in
    want_reset = 0
    for q in reset_q:
        want_reset |= 1 << q

    def done() -> bool:
        if env.cnt("cnt_txframes", 0) - before["txframes"][0] < n_tx_frames:
            return False
        if env.cnt("cnt_rxframes", 0) + sum(env.cnt("cnt_rxdrop", i) for i in range(4)) - rx_base < n_rx_in:
            return False
        if (h.needs_reset() & want_reset) != want_reset:
            return False
        # a queue that goes to needs-reset drops the returns of chains still in the
        # TX mover (RET_DROP): its used ring holds a prefix of the model's entries
        n_drop = env.cnt("cnt_err", E_RET) - before["err"][E_RET]
        for q in (*TXQ, *RXQ):
            qs = h.qs[q]
            n_used = (u16(h.ram, qs.used + 2) - qs.used_seen) & 0xFFFF
            if q in reset_q:
                n_drop += n_used
            elif n_used < len(exp_used[q]):
                return False
        return n_drop >= sum(len(exp_used[q]) for q in reset_q)

    def diag() -> str:
        c = h.counters()
        return (f"\ntx frames +{c['txframes'][0] - before['txframes'][0]} / {n_tx_frames}, rx done "
                f"+{sum(c['rxdrop']) + c['rxframes'][0] - rx_base} / {n_rx_in}, needs-reset "
                f"{h.needs_reset():#x} / {want_reset:#x}, counters {c}\n"
                + "\n".join(f"q{q}: used {(u16(h.ram, h.qs[q].used + 2) - h.qs[q].used_seen) & 0xFFFF} / "
                            f"{len(exp_used[q])} avail {h.qs[q].avail_idx} "
                            f"{[o.label for o in (tx_out.get(q) or rx_chains.get(q) or [])]}"
                            for q in (*TXQ, *RXQ))
                + f"\nRET_DROP +{c['err'][E_RET] - before['err'][E_RET]}; queues in needs-reset: "
                + "; ".join(f"q{q} used {h.used(h.qs[q])} model {exp_used[q]}" for q in reset_q))

    await h.bounded(done, 6000 + 600 * n_chains, "hostile round", diag)
    for _ in range(200):
        await RisingEdge(env.dut.clk)
    # ---- checks
    got: dict[int, list[bytes]] = {}
    for f in tx_frames(env):
        tid, tu = frame_meta(f)
        data = bytes(f.tdata)
        assert tu & 1 == 0 and tu >> 1 == len(data), "sideband length"
        got.setdefault(tid, []).append(data)
    for q in TXQ:
        gq = got.pop(q, [])
        labels = [o.label for o in tx_out[q]]
        assert len(gq) == len(exp_frames[q]), f"TX queue {q}: {len(gq)} frames, model {len(exp_frames[q])} ({labels})"
        for k, (a, b) in enumerate(zip(gq, exp_frames[q], strict=True)):
            assert a == b, f"TX queue {q} frame {k} differs (len {len(a)} vs {len(b)})"
    assert not got, f"frames on unexpected queues {list(got)}"
    for q in (*TXQ, *RXQ):
        u = h.used(h.qs[q])
        if q in reset_q:
            assert u == exp_used[q][:len(u)], f"queue {q} used ring {u}\n model {exp_used[q]} (prefix)"
            add(delta, "err", E_RET, len(exp_used[q]) - len(u))
        else:
            assert u == exp_used[q], f"queue {q} used ring {u}\n model {exp_used[q]}"
    assert h.needs_reset() == want_reset, f"needs-reset {h.needs_reset():#x}, model {want_reset:#x}"
    for q, why in reset_q.items():
        st = await env.cfg_read(q, F_STATUS)
        assert st & 2 and (st >> 8) & 0xFF == why, f"queue {q} status {st:#x}"
    h.check_counters(before, delta, "round")
    h.check_memory(writes)
    # avail->idx jump on one live TX queue (after it drained, so the model is exact)
    if not all_good and rng.random() < 0.25:
        q = rng.choice([q for q in TXQ if q not in reset_q] or [TXQ[0]])
        if q not in reset_q:
            qs = h.qs[q]
            before = h.counters()
            g.publish(qs, qs.avail_idx + qs.size + rng.randrange(1, 200))
            h.snapshot()
            await env.notify(q)
            await h.bounded(lambda: h.needs_reset() & (1 << q), 2000, "avail jump")
            for _ in range(50):
                await RisingEdge(env.dut.clk)
            reset_q[q] = E_AVAIL_JUMP
            h.check_counters(before, {"err": {E_AVAIL_JUMP: 1}}, "avail jump")
            assert tx_frames(env) == []
            assert h.used(qs) == []
            h.check_memory([])
    # re-enable the queues in needs-reset
    for q in reset_q:
        o = h.qs[q]
        await h.setup(q, o.size, o.indirect, o.event_idx)
    for _ in range(4):
        await RisingEdge(env.dut.clk)
    if h.needs_reset():
        st = {q: hex(await env.cfg_read(q, F_STATUS)) for q in (*TXQ, *RXQ)}
        raise AssertionError(f"needs-reset {h.needs_reset():#x} after re-enable of {reset_q}, status {st}")


async def hostile_seed(env: Env, seed: int, rounds: int) -> None:
    rng = random.Random(seed)
    h = Hostile(env, rng)
    h.guard_fill()
    for q in (*TXQ, *RXQ):
        await h.setup(q, rng.choice([2, 4, 8, 16, 32, 64]), indirect=rng.random() < 0.7,
                      event_idx=rng.random() < 0.5)
    env.dut._log.info("seed %d: queues %s", seed, {q: (s.size, s.indirect) for q, s in h.qs.items()})
    for _ in range(rounds):
        await hostile_round(h, all_good=False)
    await hostile_round(h, all_good=True)
    # disable every queue for the next seed
    for q in list(h.qs):
        await env.cfg(q, F_EN, 0)


def seeds(default: str) -> list[int]:
    return [int(x) for x in os.environ.get("HOSTILE_SEEDS", default).split(",") if x]


if cocotb is not None:

    @cocotb.test()
    async def test_hostile_guest(dut) -> None:
        """Random hostile chains vs the golden model, several seeds."""
        env = Env(dut, random.Random(0))
        await env.start(500, rx_py=False)
        rounds = int(os.environ.get("HOSTILE_ROUNDS", "4"))
        for s in seeds("11,12,13"):
            await hostile_seed(env, s, rounds)


def _run(**kw) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_virtio", module="test_virtio_hostile", test_dir=here,
               parameters={"DATA_W": 64, "MAX_FRAME": MAX_FRAME},
               extra_sources=[here / "tb_virtio_delay.sv", here / "tb_virtio.sv"], **kw)


def test_virtio_hostile() -> None:
    _run()


@pytest.mark.slow
def test_virtio_hostile_soak() -> None:
    n = int(os.environ.get("HOSTILE_SOAK", "24"))
    _run(testcase="test_hostile_guest",
         extra_env={"HOSTILE_SEEDS": ",".join(str(1000 + k) for k in range(n)), "HOSTILE_ROUNDS": "8"})


# ---------------------------------------------------------------- DMA error injection
if cocotb is not None:

    @cocotb.test()
    async def test_dma_faults(dut) -> None:
        """SLVERR / DECERR on ring reads, TX payload reads, ring writes and RX buffer
        writes: ring faults put only that queue into needs-reset (DMA_ERR), payload
        faults drop only that frame (counted), nothing is used as data, and the queues
        serve good chains again after re-enable."""
        await dma_faults(dut, ordered=False)

    @cocotb.test()
    async def test_dma_faults_ordered(dut) -> None:
        """The same faults with wr_ordered = 1 (ring writes in order on the platform, as
        PCIe posted writes: used->idx is written without waiting for the element writes'
        responses): the same outcomes, except that a failed used-element write may be
        published by the used->idx write already under way (the guest then sees the old
        slot contents); the queue still goes to needs-reset with DMA_ERR, counted once."""
        await dma_faults(dut, ordered=True)

    async def dma_faults(dut, ordered: bool) -> None:
        env = Env(dut, random.Random(5))
        await env.start(600, rx_py=False)
        dut.wr_ordered.value = int(ordered)
        rng = random.Random(77)
        h = Hostile(env, rng)
        h.guard_fill()
        faults = AxiFaults()
        faults.attach_read(env.ram.read_if)
        faults.attach_read(env.tram)
        faults.attach_write(env.ram.write_if)
        faults.attach_write(env.wram)
        g = h.g
        for q in (1, 3):
            await h.setup(q, 16, indirect=True, event_idx=q == 3)
        await h.setup(0, 16, indirect=True, event_idx=False)

        def post_tx(q: int, pieces: int = 1, ind: bool = False) -> tuple[int, bytes, list[int]]:
            qs = h.qs[q]
            blob, exp = g.good_frame(short=True)
            parts = g.split(blob, rng, pieces)
            bufs = [(g.buffer(p), len(p), 0) for p in parts]
            slots = [s for s in range(qs.size)]
            used = {hh for hh in range(qs.size)}
            # free slots: the queue drains between steps, so start from a fresh permutation
            rng.shuffle(slots)
            slots = [s for s in slots if s in used and s not in post_tx.busy.setdefault(q, set())]
            hd = g.chain_of(qs, slots, bufs, ind)
            assert hd is not None
            post_tx.busy[q] |= set(range(qs.size)) - set(slots)
            g.push_head(qs, hd)
            g.publish(qs)
            return hd, exp, [a for a, _, _ in bufs]
        post_tx.busy = {}

        def drained() -> None:
            post_tx.busy.clear()

        async def settle(cond, what: str, cycles: int = 6000) -> None:
            await h.bounded(cond, cycles, what)
            for _ in range(100):
                await RisingEdge(dut.clk)

        def frames() -> dict[int, list[bytes]]:
            out: dict[int, list[bytes]] = {}
            for f in tx_frames(env):
                out.setdefault(frame_meta(f)[0], []).append(bytes(f.tdata))
            return out

        async def tx_ok(q: int, n: int = 3) -> None:
            """n good frames on queue q come out exactly, used entries (head, 0)."""
            qs = h.qs[q]
            exp, heads = [], []
            for _ in range(n):
                hd, e, _ = post_tx(q, pieces=rng.randrange(1, 4), ind=rng.random() < 0.3)
                exp.append(e)
                heads.append(hd)
            await env.notify(q)
            await settle(lambda: u16(h.ram, qs.used + 2) == qs.avail_idx, f"queue {q} good frames")
            assert frames() == {q: exp}
            assert h.used(qs) == [(hd, 0) for hd in heads]
            drained()

        async def ring_fault(q: int, poison, what: str, expect_frames: int = 0) -> None:
            """A ring access fault on queue q: q needs reset with DMA_ERR (counted once),
            no frame of q, nothing written outside the used rings, the other transmitq
            keeps working, and q works again after re-enable."""
            qs = h.qs[q]
            other = 3 if q == 1 else 1
            before = h.counters()
            used0 = u16(h.ram, qs.used + 2)
            hd, exp, bufs = post_tx(q, pieces=2)
            exp2 = post_tx(q)[1]
            poison(qs, hd, bufs)
            h.snapshot()
            await env.notify(q)
            await settle(lambda: h.needs_reset() & (1 << q), what)
            assert faults.hits["read"] + faults.hits["write"] > 0, f"{what}: fault never hit"
            st = await env.cfg_read(q, F_STATUS)
            assert st & 2 and (st >> 8) & 0xFF == E_DMA, f"{what}: status {st:#x}"
            for _ in range(300):
                await RisingEdge(dut.clk)
            got = frames()
            # a write fault is seen after the frame left; the next chain may already
            # be on its way (the queue stops at the error, not retroactively)
            want = [[exp], [exp, exp2]] if expect_frames else [[]]
            assert got.get(q, []) in want and set(got) <= {q}, f"{what}: frames {got}"
            expect_frames = len(got.get(q, []))
            if what.startswith("used"):
                moved = (u16(h.ram, qs.used + 2) - used0) & 0xFFFF
                # ordered writes: the used->idx write of the failing element's batch is
                # not held for the element's response (one batch: the chains in flight)
                limit = 2 if ordered and what == "used element write" else 0
                assert moved <= limit, f"{what}: used->idx moved by {moved}"
                dut._log.info("%s (wr_ordered %d): used->idx moved by %d", what, ordered, moved)
            # the chain in flight when the error was seen may come back from the TX
            # mover as BAD; its return to the needs-reset queue is dropped (RET_DROP)
            h.check_counters(before, {"err": {E_DMA: 1}, "txframes": {0: expect_frames}}, what,
                             slack={"err": {E_RET: 2}, "txdrop": {D_BAD: 2}})
            h.check_memory([])
            faults.clear()
            faults.hits = {"read": 0, "write": 0}
            assert h.needs_reset() == 1 << q
            await tx_ok(other)
            await h.setup(q, qs.size, qs.indirect, qs.event_idx)
            drained()
            await tx_ok(q)

        # ---- descriptor read (head descriptor, DECERR), indirect table read (SLVERR)
        await tx_ok(1)
        await ring_fault(1, lambda qs, hd, b: faults.poison_read(qs.desc + 16 * hd, 16, DECERR), "descriptor read")

        def ind_table(qs, hd, b):
            a = struct.unpack("<Q", h.ram.read(qs.desc + 16 * hd, 8))[0]
            faults.poison_read(a + 16, 16, SLVERR)

        async def ind_case() -> None:
            qs = h.qs[1]
            before = h.counters()
            hd, exp, bufs = post_tx(1, pieces=3, ind=True)
            ind_table(qs, hd, bufs)
            h.snapshot()
            await env.notify(1)
            await settle(lambda: h.needs_reset() & 2, "indirect table read")
            assert frames() == {}
            h.check_counters(before, {"err": {E_DMA: 1}}, "indirect table read",
                             slack={"err": {E_RET: 2}, "txdrop": {D_BAD: 2}})
            h.check_memory([])
            faults.clear()
            await h.setup(1, qs.size, qs.indirect, qs.event_idx)
            drained()
            await tx_ok(1)
        await ind_case()
        # ---- avail ring: head entry read, avail->idx read
        await ring_fault(3, lambda qs, hd, b: faults.poison_read(qs.avail + 4 + 2 * ((qs.avail_idx - 2) % qs.size), 2),
                         "avail ring read")
        await ring_fault(1, lambda qs, hd, b: faults.poison_read(qs.avail + 2, 2, DECERR), "avail idx read")
        # ---- used ring element write, used->idx write
        await ring_fault(3, lambda qs, hd, b: faults.poison_write(qs.used + 4 + 8 * (u16(h.ram, qs.used + 2) % qs.size), 8),
                         "used element write", expect_frames=1)
        await ring_fault(1, lambda qs, hd, b: faults.poison_write(qs.used + 2, 2, DECERR),
                         "used idx write", expect_frames=1)

        # ---- TX payload read faults: only that frame is dropped (cnt_txdrop DMA), the
        # chain is returned, the queue goes on
        for resp, pieces, which in ((SLVERR, 1, 0), (DECERR, 3, 1), (SLVERR, 3, 2)):
            qs = h.qs[3]
            before = h.counters()
            posted = [post_tx(3, pieces=pieces if k == 1 else 2) for k in range(4)]
            faults.poison_read(posted[1][2][min(which, len(posted[1][2]) - 1)], 1, resp)
            h.snapshot()
            await env.notify(3)
            await settle(lambda qs=qs: u16(h.ram, qs.used + 2) == qs.avail_idx, "payload fault")
            assert faults.hits["read"] > 0
            assert frames() == {3: [p[1] for k, p in enumerate(posted) if k != 1]}
            assert h.used(qs) == [(p[0], 0) for p in posted]
            h.check_counters(before, {"txdrop": {D_DMA: 1}, "txframes": {0: 3}}, "payload fault")
            h.check_memory([])
            assert h.needs_reset() == 0
            faults.clear()
            faults.hits = {"read": 0, "write": 0}
            drained()

        # ---- RX buffer write faults: the frame is not handed to the guest as data (its
        # chains return len 0, cnt_rx_dma_err counts the frame), the others arrive
        async def rx_case(mrg: bool) -> None:
            qs = h.qs[0]
            dut.mrg_rxbuf.value = int(mrg)
            before = h.counters()
            h.bufs.reset()
            slots = list(range(qs.size))
            chains = []
            for _ in range(6 if mrg else 3):
                if mrg:   # small single-buffer chains: a frame spans several
                    a = g.buffer(rng.randbytes(512))
                    hd = g.chain_of(qs, slots, [(a, 512, 2)], False)
                    o = Outcome("rx_chain", head=hd, rx_bufs=[(a, 512)])
                else:
                    o = g.rx_chain(qs, slots, "good")
                g.push_head(qs, o.head)
                chains.append(o)
            g.publish(qs)
            h.snapshot()
            if mrg:
                fl = [rng.randbytes(900), rng.randbytes(300), rng.randbytes(400)]   # 2, 1, 1 chains
                bad_chain, bad_frame = 1, 0        # second chain of the first frame
                groups = [[0, 1], [2], [3]]
            else:
                fl = [rng.randbytes(rng.randrange(100, 1400)) for _ in range(3)]
                bad_chain, bad_frame = 1, 1
                groups = [[0], [1], [2]]
            a0 = chains[bad_chain].rx_bufs[0][0]
            faults.poison_write(a0, 4)
            for f in fl:
                await env.src.send(AxiStreamFrame(f, tuser=0, tdest=0))
            await settle(lambda: u16(h.ram, qs.used + 2) == (qs.used_seen + sum(len(x) for x in groups)) & 0xFFFF,
                         "rx write fault")
            assert faults.hits["write"] > 0
            exp_used, writes = [], []
            for k, (f, grp) in enumerate(zip(fl, groups, strict=True)):
                if k == bad_frame:
                    exp_used += [(chains[c].head, 0) for c in grp]
                    continue
                blob = struct.pack("<BBHHHHH", 0, 0, 0, 0, 0, 0, len(grp)) + f
                off = 0
                for c in grp:
                    clen = 0
                    for a, n in chains[c].rx_bufs:
                        w = min(n, len(blob) - off)
                        if w > 0:
                            writes.append((a, blob[off:off + w]))
                            off += w
                            clen += w
                    exp_used.append((chains[c].head, clen))
            assert h.used(qs) == exp_used
            # the failed frame's buffers may hold anything; everything else is exact
            for c in groups[bad_frame]:
                for a, n in chains[c].rx_bufs:
                    writes.append((a, bytes(h.ram.read(a, n))))
            h.check_memory(writes)
            h.check_counters(before, {"rxframes": {0: 2}, "rxdmaerr": {0: 1}}, "rx write fault")
            assert h.needs_reset() == 0
            faults.clear()
            faults.hits = {"read": 0, "write": 0}
            dut.mrg_rxbuf.value = 0

        await rx_case(False)
        await rx_case(True)


# ---------------------------------------------------------------- write error attribution
if cocotb is not None:

    @cocotb.test()
    async def test_dma_fault_attribution(dut) -> None:
        """BRESP errors with several queues' ring writes in flight (64-cycle B latency,
        three busy transmitqs): a failed used element write of one queue, then a failed
        used->idx write of another. Only the queue whose write failed goes to needs-reset
        (DMA_ERR counted once); the other queues send every frame and publish every used
        entry exactly; the failed queue's frames and used entries are a prefix of its
        chains, used->idx never covers the failed element; nothing else is written. A
        monitor of the engine's write descriptors and completions (the test's own in-order
        bookkeeping, queue from the address) checks that another queue's ring write was
        in flight together with the failed one."""
        env = Env(dut, random.Random(9))
        await env.start(700, rx_py=False)
        dut.mem_lat.value = 64
        rng = random.Random(2024)
        h = Hostile(env, rng)
        h.guard_fill()
        faults = AxiFaults()
        faults.attach_write(env.ram.write_if)
        g = h.g
        for q in TXQ:
            await h.setup(q, 32, indirect=True, event_idx=q == 3)

        # engine write descriptors / completions: (queue, address, issue cycle,
        # completion cycle, status); completions come in descriptor order (one AWID)
        writes: list[list] = []
        inflight: list[list] = []

        def queue_of(a: int) -> int:
            for q, qs in h.qs.items():
                if qs.used <= a < qs.used + 6 + 8 * qs.size:
                    return q
            return -1

        async def wr_mon() -> None:
            t = 0
            while True:
                await RisingEdge(dut.clk)
                await ReadOnly()
                t += 1
                if int(dut.qwr_cv.value) and int(dut.qwr_cr.value):
                    w = inflight.pop(0)
                    w[3], w[4] = t, int(dut.qwr_cs.value)
                if int(dut.qwr_v.value) and int(dut.qwr_r.value):
                    a = int(dut.qwr_addr.value)
                    w = [queue_of(a), a, t, None, None]
                    writes.append(w)
                    inflight.append(w)
        cocotb.start_soon(wr_mon())

        def post(q: int, n: int) -> list[tuple[int, bytes]]:
            qs = h.qs[q]
            slots = list(range(qs.size))
            rng.shuffle(slots)
            out = []
            for _ in range(n):
                blob, exp = g.good_frame(short=True)
                parts = g.split(blob, rng, rng.randrange(1, 3))
                hd = g.chain_of(qs, slots, [(g.buffer(p), len(p), 0) for p in parts], rng.random() < 0.3)
                assert hd is not None
                g.push_head(qs, hd)
                out.append((hd, exp))
            g.publish(qs)
            return out

        def frames() -> dict[int, list[bytes]]:
            out: dict[int, list[bytes]] = {}
            for f in tx_frames(env):
                out.setdefault(frame_meta(f)[0], []).append(bytes(f.tdata))
            return out

        async def scenario(bad: int, kind: str) -> None:
            n = 12
            before = h.counters()
            h.bufs.reset()
            u0 = {q: u16(h.ram, h.qs[q].used + 2) for q in TXQ}
            posted = {q: post(q, n) for q in TXQ}
            qs = h.qs[bad]
            if kind == "element":
                k = 5   # the sixth used element of the queue fails
                faults.poison_write(qs.used + 4 + 8 * ((u0[bad] + k) % qs.size), 8, SLVERR, times=1)
            else:
                k = 0   # the first used->idx write fails
                faults.poison_write(qs.used + 2, 2, DECERR, times=1)
            h.snapshot()
            del writes[:]
            for q in TXQ:
                await env.notify(q)
            others = [q for q in TXQ if q != bad]
            await h.bounded(lambda: (h.needs_reset() & (1 << bad)) and
                            all(u16(h.ram, h.qs[q].used + 2) == h.qs[q].avail_idx for q in others),
                            40000, f"{kind} fault on queue {bad}")
            for _ in range(1500):
                await RisingEdge(dut.clk)
            assert faults.hits["write"] == 1, f"{kind}: fault hits {faults.hits}"
            assert h.needs_reset() == 1 << bad, f"{kind}: needs-reset {h.needs_reset():#x}"
            st = await env.cfg_read(bad, F_STATUS)
            assert st & 2 and (st >> 8) & 0xFF == E_DMA, f"{kind}: status {st:#x}"
            # another queue's ring write was in flight together with the failed one
            failed = [w for w in writes if w[4]]
            assert len(failed) == 1 and failed[0][0] == bad, f"{kind}: failed writes {failed}"
            f = failed[0]
            overlap = {w[0] for w in writes if w is not f and w[2] < f[3] and (w[3] or 1 << 40) > f[2]}
            dut._log.info("%s fault on queue %d: queues with ring writes in flight with it %s",
                          kind, bad, sorted(overlap))
            assert overlap - {bad}, f"{kind}: no other queue's write in flight with the failed one"
            got = frames()
            assert set(got) <= set(TXQ), got
            for q in others:
                assert got.get(q, []) == [e for _, e in posted[q]], f"{kind}: frames of queue {q}"
                assert h.used(h.qs[q]) == [(hd, 0) for hd, _ in posted[q]], f"{kind}: used ring {q}"
            # the failed queue: a prefix of its chains, used->idx short of the failed write
            sent = got.get(bad, [])
            assert sent == [e for _, e in posted[bad]][:len(sent)], f"{kind}: frames of queue {bad}"
            ent = h.used(qs)
            assert len(ent) <= k and ent == [(hd, 0) for hd, _ in posted[bad]][:len(ent)], \
                f"{kind}: used entries of queue {bad}: {ent}"
            # returns reaching the queue after its reset are dropped (RET_DROP)
            h.check_counters(before, {"err": {E_DMA: 1}, "txframes": {0: 2 * n + len(sent)}}, kind,
                             slack={"err": {E_RET: n}})
            h.check_memory([])
            faults.clear()
            faults.hits = {"read": 0, "write": 0}
            await h.setup(bad, qs.size, qs.indirect, qs.event_idx)

        await scenario(3, "element")
        await scenario(1, "used idx")
        await scenario(5, "element")
        # every queue serves good frames again
        before = h.counters()
        h.bufs.reset()
        posted = {q: post(q, 6) for q in TXQ}
        for q in TXQ:
            await env.notify(q)
        await h.bounded(lambda: all(u16(h.ram, h.qs[q].used + 2) == h.qs[q].avail_idx for q in TXQ),
                        20000, "after the faults")
        got = frames()
        for q in TXQ:
            assert got.get(q, []) == [e for _, e in posted[q]]
            assert h.used(h.qs[q]) == [(hd, 0) for hd, _ in posted[q]]
        h.check_counters(before, {"txframes": {0: 18}}, "after the faults")
        assert h.needs_reset() == 0
