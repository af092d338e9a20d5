# SPDX-License-Identifier: Apache-2.0
"""fabnic_fec_enc against the numpy reference encoder (fec_model.py).

For several run-time (K, R, D) configurations: random payloads and lengths,
random valid/ready on every stream; the data output must be the input with the
group id / index of fec_model.assign(), the repair output must equal
fec_model.encode_stream() (payload, coded length, cnt, order), including a
partial block closed by flush.
"""

from __future__ import annotations

import random
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
from fec_tb import frame_meta

CONFIGS_KRD = [(4, 1, 1), (8, 2, 2), (16, 4, 1), (3, 3, 4)]

if cocotb is not None:

    async def drain(sink, n: int, dut, limit: int = 200000) -> list:
        out = []
        for _ in range(limit):
            while not sink.empty():
                out.append(sink.recv_nowait())
            if len(out) >= n:
                return out
            await RisingEdge(dut.clk)
        raise AssertionError(f"timeout: got {len(out)} of {n} frames")

    @cocotb.test()
    async def enc_matches_model(dut):
        await start_clock_reset(dut)
        dut.flush.value = 0
        max_len = int(dut.MAX_LEN.value)
        max_k = int(dut.MAX_K.value)
        src = axis_source(dut, "s_axis", seed=11)
        dsink = axis_sink(dut, "m_axis", seed=12)
        rsink = axis_sink(dut, "m_axis_rep", seed=13, busy=0.5)
        rng = random.Random(2024)
        gid_base = 0
        total_data = total_rep = 0
        for k, r, d in CONFIGS_KRD:
            if k > max_k:
                continue
            dut.cfg_k.value = k
            dut.cfg_r.value = r
            dut.cfg_d.value = d
            partial = rng.randint(1, k * d - 1)
            n = 2 * k * d + partial
            payloads = [bytes(rng.getrandbits(8) for _ in range(
                rng.choice([max_len, rng.randint(1, max_len)]))) for _ in range(n)]
            for p in payloads:
                await src.send(AxiStreamFrame(p, tuser=0))
            await src.wait()
            await RisingEdge(dut.clk)
            dut.flush.value = 1
            await RisingEdge(dut.clk)
            dut.flush.value = 0

            wire = fec_model.encode_stream(payloads, k, r, d)
            exp_data = [w for w in wire if not w.is_repair]
            exp_rep = [w for w in wire if w.is_repair]
            got_data = await drain(dsink, len(exp_data), dut)
            got_rep = await drain(rsink, len(exp_rep), dut)
            for e, g in zip(exp_data, got_data, strict=True):
                m = frame_meta(g)
                assert bytes(g.tdata) == e.payload, "data packet changed"
                assert (m.gid, m.idx, m.cnt, m.is_repair) == (e.gid + gid_base, e.idx, k, False), \
                    f"data sideband {m} expected gid {e.gid + gid_base} idx {e.idx}"
            for e, g in zip(exp_rep, got_rep, strict=True):
                m = frame_meta(g)
                tag = f"K{k} R{r} D{d} group {e.gid} row {e.idx}"
                assert m.is_repair and not m.bad, tag
                assert (m.gid, m.idx, m.cnt) == (e.gid + gid_base, e.idx, e.cnt), f"{tag}: {m}"
                assert m.length == e.coded_len, f"{tag}: coded length {m.length:#x} != {e.coded_len:#x}"
                assert bytes(g.tdata) == e.payload, f"{tag}: repair payload differs"
            gid_base += (n + k * d - 1) // (k * d) * d
            total_data += len(exp_data)
            total_rep += len(exp_rep)
            dut._log.info("K%d R%d D%d: %d data, %d repair packets match", k, r, d,
                          len(exp_data), len(exp_rep))
        await ClockCycles(dut.clk, 10)
        assert dsink.empty() and rsink.empty(), "extra packets"
        assert int(dut.stat_data_pkts.value) == total_data
        assert int(dut.stat_repair_pkts.value) == total_rep
        assert int(dut.stat_oversize.value) == 0

    @cocotb.test()
    async def enc_oversize_poisons(dut):
        """A data packet longer than MAX_LEN: counted, its group's repairs flagged bad."""
        await start_clock_reset(dut)
        dut.flush.value = 0
        dut.cfg_k.value = 2
        dut.cfg_r.value = 2
        dut.cfg_d.value = 1
        max_len = int(dut.MAX_LEN.value)
        src = axis_source(dut, "s_axis", seed=3)
        dsink = axis_sink(dut, "m_axis", seed=4)
        rsink = axis_sink(dut, "m_axis_rep", seed=5)
        pays = [b"\x11" * (max_len + 40), b"\x22" * 10, b"\x33" * 20, b"\x44" * 30]
        for p in pays:
            await src.send(AxiStreamFrame(p, tuser=0))
        got_rep = await drain(rsink, 4, dut)
        got_data = await drain(dsink, 4, dut)
        assert [bytes(f.tdata) for f in got_data] == pays
        assert [frame_meta(f).bad for f in got_rep] == [True, True, False, False]
        good = fec_model.encode_group(pays[2:], 2, 1)
        for e, g in zip(good, got_rep[2:], strict=True):
            assert bytes(g.tdata) == e.payload and frame_meta(g).length == e.coded_len
        assert int(dut.stat_oversize.value) == 1


CONFIGS = [
    dict(DATA_W=64, MAX_K=16, MAX_R=4, MAX_D=4, MAX_LEN=256),
    dict(DATA_W=512, MAX_K=16, MAX_R=4, MAX_D=4, MAX_LEN=512),
]


# (parameters, form): the simulation form (word-wide GF products) at both widths, and the
# synthesized per-byte form (FABNIC_GATE_MUX) at 64 bits (docs/verification.md, "Simulation forms")
RUNS = [(CONFIGS[0], "vector"), (CONFIGS[1], "vector"), (CONFIGS[0], "gate")]


@pytest.mark.parametrize("params,form", RUNS, ids=lambda p: p if isinstance(p, str) else f"w{p['DATA_W']}")
def test_fec_enc(params: dict, form: str) -> None:
    from fabnic_tb import runner

    gate = form == "gate"
    runner.run(toplevel="fabnic_fec_enc", module="test_fec_enc",
               test_dir=Path(__file__).parent, parameters=params,
               tag=f"w{params['DATA_W']}_gate" if gate else None,
               build_args=["+define+FABNIC_GATE_MUX"] if gate else ())
