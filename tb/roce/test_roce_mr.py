# SPDX-License-Identifier: Apache-2.0
"""fabnic_roce_mr_table against the Python MR model (roce_model.MrModel): random
registrations, re-registrations with new tags (stale keys), deregistrations, checks at
the bounds edges, PD and access mismatches, VA+len overflow, zero length; counters.
fabnic_roce_pkg PSN helpers against the Python PSN reference over random and edge
values (wrap at 2^24). One build (wrapper tb_roce_mr.sv)."""

from __future__ import annotations

import random
from pathlib import Path

from fabnic_tb import runner

try:
    import cocotb
    import roce_model as m
    from cocotb.triggers import ClockCycles, RisingEdge, Timer
    from roce_axis import recv_words, send_words

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

NUM_MR = 200
M64 = (1 << 64) - 1


def rand_entry(rng: random.Random, old: m.MrEntry | None) -> m.MrEntry:
    tag = rng.getrandbits(8)
    if old is not None and old.valid:
        tag = (old.tag + rng.randint(1, 255)) % 256   # re-registration: new tag
    r = rng.random()
    if r < 0.1:      # region ending exactly at 2^64
        length = rng.randint(1, 1 << 20)
        base = (1 << 64) - length
    elif r < 0.15:   # region reaching past 2^64 (accesses there must still fail)
        length = rng.randint(1 << 20, 1 << 21)
        base = (1 << 64) - (1 << 20)
    elif r < 0.2:
        base, length = rng.getrandbits(64), 0
    else:
        base, length = rng.getrandbits(48), rng.randint(1, 1 << rng.randint(4, 40))
    return m.MrEntry(valid=True, tag=tag, pd=rng.randrange(4), access=rng.getrandbits(4),
                     base=base, length=length, host_base=rng.getrandbits(64))


def rand_check(rng: random.Random, model: m.MrModel, live: list[int]) -> dict[str, int]:
    r = rng.random()
    if live and r < 0.75:
        idx = rng.choice(live)
        e = model.tab[idx]
        key = (idx << 8) | e.tag
        if rng.random() < 0.1:
            key = (idx << 8) | ((e.tag + rng.randint(1, 255)) % 256)   # stale key
    elif r < 0.85:
        key = (rng.randrange(NUM_MR, 1 << 24) << 8) | rng.getrandbits(8)  # out of range
    else:
        key = (rng.randrange(NUM_MR) << 8) | rng.getrandbits(8)
    idx = min(key >> 8, NUM_MR - 1)
    e = model.tab[idx]
    pd = e.pd if rng.random() < 0.85 else rng.randrange(4)
    access = e.access & rng.getrandbits(4)
    if rng.random() < 0.1:
        access |= 1 << rng.randrange(4)
    k = rng.randrange(8)
    length = rng.randint(1, 1 << 16)
    if k == 0:
        va, length = rng.getrandbits(64), 0
    elif k == 1:    # ends exactly at the region end
        length = max(1, min(length, e.length)) if e.length else length
        va = (e.base + e.length - length) & M64
    elif k == 2:    # one byte past the end
        length = max(1, min(length, e.length + 1))
        va = (e.base + e.length - length + 1) & M64
    elif k == 3:    # starts one byte before the base
        va = (e.base - 1) & M64
    elif k == 4:    # wraps past 2^64
        va = M64 - rng.randrange(min(length, 1 << 8))
    elif k == 5:    # at the base
        va = e.base
    else:           # somewhere inside (or not)
        va = (e.base + rng.randrange(e.length + 2)) & M64
    length &= 0xFFFFFFFF
    return {"key": key, "va": va, "len": length, "access": access, "pd": pd}


if cocotb is not None:

    @cocotb.test()
    async def mr_random(dut):
        await start_clock_reset(dut)
        dut.wr_valid.value = 0
        dut.s_chk_valid.value = 0
        dut.m_chk_ready.value = 0
        rng = random.Random(51)
        model = m.MrModel(NUM_MR)
        resp: list[dict[str, int]] = []
        cocotb.start_soon(recv_words(dut, "m_chk", resp,
                                     ["ok", "err", "addr", "id", "lo", "hi", "off", "acc"],
                                     random.Random(52)))
        exp: list[tuple[int, int]] = []
        dbg: list = []
        counts = [0] * 6
        n_chk = 0
        for rnd in range(8):
            # registrations / re-registrations / deregistrations
            writes = []
            for _ in range(60 if rnd == 0 else 25):
                idx = rng.randrange(NUM_MR)
                if rnd and rng.random() < 0.2:
                    e = m.MrEntry(valid=False, tag=model.tab[idx].tag)
                else:
                    e = rand_entry(rng, model.tab[idx])
                model.write(idx, e)
                writes.append({"index": idx, "e_valid": int(e.valid), "e_tag": e.tag,
                               "e_pd": e.pd, "e_access": e.access, "e_base": e.base,
                               "e_length": e.length & M64, "e_host_base": e.host_base})
                if e.length > M64:   # the RTL stores 64 bits: keep the model equal
                    e.length &= M64
            await send_words(dut, "wr", writes, random.Random(rnd), busy=0.2)
            await RisingEdge(dut.clk)
            live = [i for i, e in enumerate(model.tab) if e.valid]
            chks = []
            for _ in range(250):
                c = rand_check(rng, model, live)
                c["id"] = n_chk & 0xFFFF
                err, addr = model.check(c["key"], c["va"], c["len"], c["access"], c["pd"])
                exp.append((err, addr))
                dbg.append((c, model.tab[min(c["key"] >> 8, NUM_MR - 1)]))
                counts[err] += 1
                chks.append(c)
                n_chk += 1
            await send_words(dut, "s_chk", chks, random.Random(100 + rnd))
        for _ in range(2000):
            if len(resp) >= n_chk:
                break
            await RisingEdge(dut.clk)
        await ClockCycles(dut.clk, 5)
        assert len(resp) == n_chk
        n_region = 0
        for i, ((err, addr), r) in enumerate(zip(exp, resp, strict=True)):
            assert r["id"] == i & 0xFFFF
            assert r["err"] == err, f"check {i}: err {r['err']} != {err} {dbg[i]}"
            assert r["ok"] == int(err == m.MR_OK)
            assert r["addr"] == addr, f"check {i}: addr {r['addr']:#x} != {addr:#x}"
            c, e = dbg[i]
            if err == m.MR_OK and c["len"]:
                # the region a translation cache may reuse: the model's entry
                assert (r["lo"], r["hi"], r["acc"]) == (e.base, e.base + e.length, e.access)
                assert r["off"] == (e.host_base - e.base) & M64
                # and a translation inside it is the check's own
                assert (c["va"] + r["off"]) & M64 == addr
                assert e.base <= c["va"] and c["va"] + c["len"] <= r["hi"]
                n_region += 1
        assert int(dut.cnt_chk.value) == n_chk
        for name, code in (("invalid", m.MR_ERR_INVALID), ("tag", m.MR_ERR_TAG),
                           ("pd", m.MR_ERR_PD), ("access", m.MR_ERR_ACCESS),
                           ("bounds", m.MR_ERR_BOUNDS)):
            assert int(getattr(dut, f"cnt_err_{name}").value) == counts[code], name
            assert counts[code] > 10, f"too few {name} cases: {counts}"
        assert counts[m.MR_OK] > 100, counts
        assert n_region > 100, n_region

    @cocotb.test()
    async def psn_helpers(dut):
        rng = random.Random(61)
        top = (1 << 24) - 1
        half = 1 << 23
        pairs = [(0, top), (top, 0), (0, 0), (top, top), (0, half), (half, 0),
                 (0, half - 1), (half - 1, 0), (1, half), (half, 1), (top, half - 1),
                 (half - 1, top), (top, half), (half, top)]
        for _ in range(1500):
            a = rng.getrandbits(24)
            d = rng.choice([rng.getrandbits(24), rng.randint(-3, 3), half + rng.randint(-2, 2),
                            -half + rng.randint(-2, 2)])
            pairs.append((a, (a + d) % (1 << 24)))
        for a, b in pairs:
            dut.psn_a.value = a
            dut.psn_b.value = b
            await Timer(1, "ns")
            diff = int(dut.psn_diff.value)
            diff = diff - (1 << 24) if diff >= half else diff
            assert diff == m.psn_diff(a, b), (a, b)
            assert int(dut.psn_lt.value) == int(m.psn_lt(a, b)), (a, b)
            assert int(dut.psn_le.value) == int(m.psn_le(a, b)), (a, b)
            assert int(dut.psn_sum.value) == m.psn_add(a, b), (a, b)


def test_roce_mr() -> None:
    d = Path(__file__).parent
    runner.run(toplevel="tb_roce_mr", module="test_roce_mr", test_dir=d,
               parameters={"NUM_MR": NUM_MR}, extra_sources=[d / "tb_roce_mr.sv"])
