# SPDX-License-Identifier: Apache-2.0
"""fabnic_fec_dec against the numpy reference encoder and a spec-level group model.

Packets (data + repair) are built with fec_model.encode_group/encode_stream from
random payloads; erasures, reordering and duplicates are applied in Python; the
expected outcome (which packets are recovered, which groups are reported
unrepairable with which missing bitmap, counters) comes from `GroupModel`, a
plain event model of the group life cycle in docs/fec.md. Recovered payloads
and lengths must equal the original data packets byte for byte.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiStreamFrame

    from fabnic_tb.axis import axis_sink, axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

import fec_model
from fec_tb import Meta, frame_meta, pack_user


@dataclass
class Pkt:
    meta: Meta
    payload: bytes


@dataclass
class Group:
    gid: int
    k: int
    data: dict[int, bytes] = field(default_factory=dict)
    reps: set[int] = field(default_factory=set)
    done: bool = False


class GroupModel:
    """Spec-level expectation: slot = gid mod NGROUP; a newer group evicts an open
    one (reported); a group closes when all K data arrived or when data+repairs
    >= K (then the data not yet received are recovered)."""

    def __init__(self, ngroup: int, max_k: int, max_r: int, cfg_k: int, originals: dict):
        self.ngroup, self.max_k, self.max_r, self.cfg_k = ngroup, max_k, max_r, cfg_k
        self.orig = originals  # (gid, idx) -> payload
        self.slots: dict[int, Group] = {}
        self.recovered: dict[tuple[int, int], bytes] = {}
        self.unrep: list[tuple[int, int]] = []
        self.cnt = dict(repaired=0, complete=0, dup=0, stale=0, malformed=0, rec_groups=0)

    def _report(self, g: Group) -> None:
        missing = sum(1 << i for i in range(g.k) if i not in g.data)
        self.unrep.append((g.gid, missing))

    def feed(self, p: Pkt) -> None:
        m = p.meta
        s = m.gid % self.ngroup
        g = self.slots.get(s)
        newer = g is None or (0 < ((m.gid - g.gid) & 0xFFFF) < 0x8000)
        k_view = self.cfg_k if newer else g.k
        if m.is_repair:
            bad = m.idx >= self.max_r or m.cnt == 0 or m.cnt > self.max_k
        else:
            bad = m.idx >= self.max_k or m.idx >= k_view
        if bad:
            self.cnt["malformed"] += 1
            return
        if newer:
            if g is not None and not g.done:
                self._report(g)
            g = self.slots[s] = Group(m.gid, self.cfg_k)
        elif m.gid != g.gid or g.done:
            self.cnt["stale"] += 1
            return
        if (m.idx in g.reps) if m.is_repair else (m.idx in g.data):
            self.cnt["dup"] += 1
            return
        if m.is_repair:
            g.reps.add(m.idx)
            g.k = m.cnt
        else:
            g.data[m.idx] = p.payload
        nd = sum(1 for i in g.data if i < g.k)
        if nd >= g.k:
            g.done = True
            self.cnt["complete"] += 1
        elif nd + len(g.reps) >= g.k:
            g.done = True
            self.cnt["rec_groups"] += 1
            for i in range(g.k):
                if i not in g.data:
                    self.recovered[(g.gid, i)] = self.orig[(g.gid, i)]
                    self.cnt["repaired"] += 1

    def flush(self) -> None:
        for g in self.slots.values():
            if not g.done:
                self._report(g)
                g.done = True


def group_packets(gid: int, payloads: list[bytes], r: int) -> list[Pkt]:
    k = len(payloads)
    out = [Pkt(Meta(gid, i, k, 0, False), p) for i, p in enumerate(payloads)]
    for rep in fec_model.encode_group(payloads, r, gid):
        out.append(Pkt(Meta(gid, rep.row, rep.cnt, rep.coded_len, True), rep.payload))
    return out


def rand_payloads(rng: random.Random, k: int, max_len: int) -> list[bytes]:
    return [bytes(rng.getrandbits(8) for _ in range(rng.choice([max_len, rng.randint(1, max_len)])))
            for _ in range(k)]


if cocotb is not None:

    class Harness:
        def __init__(self, dut, seed: int):
            self.dut = dut
            self.src = axis_source(dut, "s_axis", seed=seed)
            self.sink = axis_sink(dut, "m_axis", seed=seed + 1)
            self.unrep: list[tuple[int, int]] = []
            self.got: list = []
            cocotb.start_soon(self._mon())

        async def _mon(self):
            while True:
                await RisingEdge(self.dut.clk)
                if int(self.dut.unrep_valid.value):
                    self.unrep.append((int(self.dut.unrep_gid.value),
                                       int(self.dut.unrep_missing.value)))

        async def send(self, p: Pkt, bad: bool = False):
            u = pack_user(p.meta)
            tuser = [u] * (len(p.payload) - 1) + [u | 1] if bad else u
            await self.src.send(AxiStreamFrame(p.payload, tuser=tuser))

        async def finish(self, flush: bool = True):
            await self.src.wait()
            await ClockCycles(self.dut.clk, 300)
            if flush:
                self.dut.flush.value = 1
                await RisingEdge(self.dut.clk)
                self.dut.flush.value = 0
                await ClockCycles(self.dut.clk, 100)
            while not self.sink.empty():
                self.got.append(self.sink.recv_nowait())

        def check(self, model: GroupModel, tag: str):
            dut = self.dut
            got = {}
            for f in self.got:
                m = frame_meta(f)
                key = (m.gid, m.idx)
                assert not m.is_repair and not m.bad, f"{tag}: {m}"
                assert key not in got, f"{tag}: packet {key} recovered twice"
                assert key in model.recovered, f"{tag}: unexpected recovered packet {key}"
                exp = model.recovered[key]
                assert m.length == len(exp), f"{tag}: {key} length {m.length} != {len(exp)}"
                assert bytes(f.tdata) == exp, f"{tag}: {key} payload differs"
                got[key] = bytes(f.tdata)
            assert set(got) == set(model.recovered), \
                f"{tag}: not recovered: {sorted(set(model.recovered) - set(got))}"
            assert sorted(self.unrep) == sorted(model.unrep), \
                f"{tag}: unrepairable reports {sorted(self.unrep)} != {sorted(model.unrep)}"
            names = dict(repaired="stat_repaired", complete="stat_complete", dup="stat_dup",
                         stale="stat_stale", malformed="stat_malformed",
                         rec_groups="stat_rec_groups")
            for k, sig in names.items():
                assert int(getattr(dut, sig).value) == model.cnt[k], \
                    f"{tag}: {sig} {int(getattr(dut, sig).value)} != {model.cnt[k]}"
            assert int(dut.stat_unrepairable.value) == len(model.unrep)
            dut._log.info("%s: %d recovered, %d unrepairable, counters %s", tag, len(got),
                          len(self.unrep), model.cnt)

    async def setup(dut, cfg_k: int):
        dut.flush.value = 0
        dut.clr_valid.value = 0
        dut.clr_src.value = 0
        dut.cfg_k.value = cfg_k
        await start_clock_reset(dut)
        return (int(dut.MAX_LEN.value), int(dut.MAX_K.value), int(dut.MAX_R.value),
                int(dut.NGROUP.value))

    @cocotb.test()
    async def dec_all_patterns_k4r2(dut):
        """K=4, R=2: every erasure pattern of 0..3 of the 6 packets, shuffled arrival,
        some duplicates. <=2 losses: recovered exactly; 3 losses: reported."""
        k, r = 4, 2
        max_len, max_k, max_r, ngroup = await setup(dut, k)
        h = Harness(dut, seed=21)
        rng = random.Random(5)
        orig = {}
        model = GroupModel(ngroup, max_k, max_r, k, orig)
        gid = 0
        for nloss in range(4):
            for lost in itertools.combinations(range(k + r), nloss):
                pays = rand_payloads(rng, k, max_len)
                orig.update({(gid, i): p for i, p in enumerate(pays)})
                pk = [p for j, p in enumerate(group_packets(gid, pays, r)) if j not in lost]
                rng.shuffle(pk)
                if rng.random() < 0.3:
                    pk.insert(rng.randint(1, len(pk)), rng.choice(pk))
                for p in pk:
                    model.feed(p)
                    await h.send(p)
                gid += 1
        model.flush()
        await h.finish()
        h.check(model, "K4R2 all patterns")

    @cocotb.test()
    async def dec_random_k16r4(dut):
        """K=16, R=4 (and K=8, R=3 with cfg K=16 but repairs telling cnt): random loss
        patterns of 0..5 packets, two groups interleaved, random order."""
        max_len, max_k, max_r, ngroup = await setup(dut, 16)
        h = Harness(dut, seed=31)
        rng = random.Random(6)
        orig = {}
        model = GroupModel(ngroup, max_k, max_r, 16, orig)
        gid = 100
        for _ in range(10):
            streams = []
            for _ in range(2):
                k, r = (16, 4) if rng.random() < 0.7 else (rng.randint(2, 15), rng.randint(1, 4))
                pays = rand_payloads(rng, k, max_len)
                orig.update({(gid, i): p for i, p in enumerate(pays)})
                pk = group_packets(gid, pays, r)
                nloss = rng.choice([0, 1, 2, 3, r, r, r + 1])
                lost = set(rng.sample(range(k + r), min(nloss, k + r)))
                pk = [p for j, p in enumerate(pk) if j not in lost]
                if k < 16:
                    # a short (flushed) group: send a repair first so that cnt is known
                    pk.sort(key=lambda p: not p.meta.is_repair)
                    rest = pk[1:]
                    rng.shuffle(rest)
                    pk = pk[:1] + rest
                else:
                    rng.shuffle(pk)
                streams.append(pk)
                gid += 1
            merged = []
            while any(streams):
                s = rng.choice([x for x in streams if x])
                merged.append(s.pop(0))
            for p in merged:
                model.feed(p)
                await h.send(p)
        model.flush()
        await h.finish()
        h.check(model, "random K16R4")

    @cocotb.test()
    async def dec_interleaved_burst(dut):
        """Encoder wire order (K=8, R=2, D=2): a burst of R*D=4 consecutive lost packets
        per block is repaired completely."""
        k, r, d = 8, 2, 2
        max_len, max_k, max_r, ngroup = await setup(dut, k)
        h = Harness(dut, seed=41)
        rng = random.Random(7)
        nblocks = 5
        pays = rand_payloads(rng, k * d * nblocks, max_len)
        wire = fec_model.encode_stream(pays, k, r, d)
        orig = {fec_model.assign(n, k, d): p for n, p in enumerate(pays)}
        per_block = (k + r) * d
        kept = []
        lost_data = set()
        for b in range(nblocks):
            blk = wire[b * per_block:(b + 1) * per_block]
            start = rng.randint(0, per_block - r * d)
            for j, w in enumerate(blk):
                if start <= j < start + r * d:
                    if not w.is_repair:
                        lost_data.add((w.gid, w.idx))
                    continue
                kept.append(w)
        model = GroupModel(ngroup, max_k, max_r, k, orig)
        for w in kept:
            p = Pkt(Meta(w.gid, w.idx, w.cnt, w.coded_len, w.is_repair), w.payload)
            model.feed(p)
            await h.send(p)
        assert set(model.recovered) == lost_data and not model.unrep  # the code's promise
        model.flush()
        await h.finish()
        h.check(model, "interleaved burst")

    @cocotb.test()
    async def dec_robustness(dut):
        """Stale packets (older group, group already done), malformed indices, a bad
        (tuser[0]) packet poisoning its group, a newer group arriving while its slot is
        being decoded, flush with open groups."""
        k, r = 4, 2
        max_len, max_k, max_r, ngroup = await setup(dut, k)
        h = Harness(dut, seed=51)
        rng = random.Random(8)
        orig = {}
        model = GroupModel(ngroup, max_k, max_r, k, orig)
        groups = {}
        for gid in range(4 * ngroup):
            pays = rand_payloads(rng, k, max_len)
            orig.update({(gid, i): p for i, p in enumerate(pays)})
            groups[gid] = group_packets(gid, pays, r)
        seq: list[tuple[Pkt, bool]] = []
        for gid in range(2 * ngroup):
            pk = groups[gid]
            if gid % 4 == 1:
                pk = [pk[0], pk[2], pk[3], pk[4]]       # one loss: recovered
            elif gid % 4 == 2:
                pk = [pk[0], pk[1]]                     # stays open: evicted later
            seq += [(p, False) for p in pk]
        # late packets: group 1 is older than its slot's group, group 15 is done
        seq.append((groups[1][1], False))
        seq.append((groups[2 * ngroup - 1][0], False))
        seq.append((Pkt(Meta(2 * ngroup, 7, k, 0, False), b"x" * 9), False))     # idx >= K
        seq.append((Pkt(Meta(2 * ngroup, 5, k, 0, True), b"x" * 9), False))      # row >= MAX_R
        poisoned = 2 * ngroup + 1
        gp = groups[poisoned]
        # bad data packet 1: the group becomes "decodable" after repair 1 but is
        # poisoned, so it is reported (missing 1 and 3) and nothing is recovered
        seq += [(gp[0], False), (gp[1], True), (gp[2], False), (gp[4], False), (gp[5], False)]
        seq += [(p, False) for p in groups[poisoned + 1][:3]]  # left open, flushed at the end
        # a group decoded while the next group of its slot arrives (input waits)
        ga = groups[poisoned + 2]
        seq += [(ga[0], False), (ga[2], False), (ga[3], False), (ga[4], False)]
        seq += [(p, False) for p in groups[poisoned + 2 + ngroup]]
        for p, bad in seq:
            if p.meta.gid != poisoned:
                model.feed(p)
            await h.send(p, bad=bad)
        model.unrep.append((poisoned, 0b1010))
        model.flush()
        await h.finish()
        h.check(model, "robustness")


CONFIGS = [
    dict(DATA_W=64, MAX_K=16, MAX_R=4, NGROUP=8, MAX_LEN=256),
    dict(DATA_W=512, MAX_K=16, MAX_R=4, NGROUP=8, MAX_LEN=512),
]


# (parameters, form): the simulation form (word-wide GF products) at both widths, and the
# synthesized per-byte form (FABNIC_GATE_MUX) at 64 bits (docs/verification.md, "Simulation forms")
RUNS = [(CONFIGS[0], "vector"), (CONFIGS[1], "vector"), (CONFIGS[0], "gate")]


@pytest.mark.parametrize("params,form", RUNS, ids=lambda p: p if isinstance(p, str) else f"w{p['DATA_W']}")
def test_fec_dec(params: dict, form: str) -> None:
    from fabnic_tb import runner

    gate = form == "gate"
    runner.run(toplevel="fabnic_fec_dec", module="test_fec_dec",
               test_dir=Path(__file__).parent, parameters=params,
               tag=f"w{params['DATA_W']}_gate" if gate else None,
               build_args=["+define+FABNIC_GATE_MUX"] if gate else ())
