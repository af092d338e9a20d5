# SPDX-License-Identifier: Apache-2.0
"""fabnic_irq against a per-cycle model of the pending bits written from its spec:
pending' = (pending & ~delivered) | request. Checked every cycle: the DUT's pending
bits, that every new offer is a pending and unmasked vector, that an offer holds
until ready, coalescing pulses, no lost or spurious interrupt, and round-robin
service (no eligible vector waits more than NUM_VECTORS offers). irq_rate: with the sink
always ready, a burst of requests on every vector is offered one vector per cycle in
round-robin order, the first offer 3 cycles after the request cycle (the header's
pending/pick/offer stages)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


if cocotb is not None:

    @cocotb.test(timeout_time=300, timeout_unit="us")
    async def irq_random(dut):
        await start_clock_reset(dut)
        n = int(dut.NUM_VECTORS.value)
        rng = random.Random(11)
        dut.irq_req.value = 0
        dut.mask.value = 0
        dut.m_irq_ready.value = 0
        pend = 0
        req_n = [0] * n
        del_n = [0] * n
        last_req = [-1] * n
        last_del = [-1] * n
        wait = [0] * n  # offers made while v was eligible and not chosen
        coalesced = 0
        prev_coal = 0
        prev = None  # (valid, vector, ready, mask) sampled at the previous edge
        cycles = 3000
        for cyc in range(cycles + 400):
            tail = cyc >= cycles  # drain: no requests, unmasked, always ready
            req = 0 if tail else sum(1 << v for v in range(n) if rng.random() < 0.02)
            if not tail and rng.random() < 0.01:
                req |= (1 << n) - 1 if rng.random() < 0.3 else 0  # bursts on every vector
            mask = 0 if tail else (int(dut.mask.value) ^ (1 << rng.randrange(n))
                                   if rng.random() < 0.05 else int(dut.mask.value))
            ready = 1 if tail else int(rng.random() < 0.5)
            dut.irq_req.value = req
            dut.mask.value = mask
            dut.m_irq_ready.value = ready
            await RisingEdge(dut.clk)
            valid, vec = int(dut.m_irq_valid.value), int(dut.m_irq_vector.value)
            assert int(dut.pending.value) == pend, f"cycle {cyc}: pending bits"
            if prev is not None and prev[0] and not prev[2]:
                assert valid and vec == prev[1], "offer dropped or changed before ready"
            new_offer = valid and (prev is None or not prev[0] or prev[2])
            if new_offer:
                assert pend >> vec & 1, f"offer of vector {vec} that is not pending"
                assert not (prev[3] >> vec & 1), f"offer of masked vector {vec}"
                for v in range(n):
                    elig = (pend >> v & 1) and not (prev[3] >> v & 1) and v != vec
                    wait[v] = wait[v] + 1 if elig else 0
                    assert wait[v] <= n, f"vector {v} starved"
            delivered = (1 << vec) if (valid and ready) else 0
            if delivered:
                del_n[vec] += 1
                last_del[vec] = cyc
            coal_now = int((req & pend & ~delivered) != 0)
            coalesced += coal_now
            if cyc > 0:
                assert int(dut.status_coalesced.value) == prev_coal, f"cycle {cyc}: coalesced"
            prev_coal = coal_now
            for v in range(n):
                if req >> v & 1:
                    req_n[v] += 1
                    last_req[v] = cyc
            pend = (pend & ~delivered) | req
            prev = (valid, vec, ready, mask)
        assert pend == 0, "interrupts left pending after drain"
        for v in range(n):
            assert del_n[v] <= req_n[v], f"vector {v}: more interrupts than requests"
            if req_n[v]:
                assert last_del[v] > last_req[v], f"vector {v}: request lost"
        assert sum(del_n) < sum(req_n), "coalescing never happened"
        assert coalesced > 0

    @cocotb.test(timeout_time=100, timeout_unit="us")
    async def irq_rate(dut):
        await start_clock_reset(dut)
        n = int(dut.NUM_VECTORS.value)
        dut.mask.value = 0
        dut.m_irq_ready.value = 1
        ptr = 0  # round-robin pointer of the model: one past the last vector offered
        for start in (0, 5 % n):
            # one request on `start` alone, then a request on every vector
            for req in (1 << start, (1 << n) - 1):
                dut.irq_req.value = req
                await RisingEdge(dut.clk)  # edge of the request cycle t
                dut.irq_req.value = 0
                offers = []
                for cyc in range(1, n + 8):  # sampled in cycle t + cyc
                    await RisingEdge(dut.clk)
                    if int(dut.m_irq_valid.value):
                        offers.append((cyc, int(dut.m_irq_vector.value)))
                want = [v for v in range(n) if req >> v & 1]
                # round robin: the first requested vector at or after the pointer,
                # then in circular order
                want.sort(key=lambda v: (v - ptr) % n)
                assert [v for _, v in offers] == want, f"order {offers}"
                assert [c for c, _ in offers] == list(range(3, 3 + len(want))), \
                    f"one offer per cycle from t+3: {offers}"
                ptr = (want[-1] + 1) % n
                assert int(dut.pending.value) == 0


CONFIGS = [dict(NUM_VECTORS=12), dict(NUM_VECTORS=32), dict(NUM_VECTORS=1)]


@pytest.mark.parametrize("params", CONFIGS, ids=["v12", "v32", "v1"])
def test_irq(params: dict) -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_irq", module="test_irq", test_dir=Path(__file__).parent,
               parameters=params)
