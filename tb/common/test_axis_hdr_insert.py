# SPDX-License-Identifier: Apache-2.0
"""fabnic_axis_hdr_insert: header (random length 1..HDR_BYTES) + payload per frame.

Model: the output frame is header[:len] + payload bytes; tuser of the last output
beat = payload tuser; a payload of one empty beat gives just the header (plus one
empty last beat when the header is a whole number of beats). Every output beat is
checked: tkeep contiguous, full on non-last beats, data zero where tkeep is 0.
Header, payload valid and output ready are randomized, and the order of header and
payload handshakes is checked (header k after payload k-1's last beat, payload k's
first beat with or after header k); a second test checks one output beat per cycle
with headers offered in time, and the latency.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ReadOnly, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


if cocotb is not None:

    async def drive_hdr(dut, hdrs, rng, p_valid: float) -> None:
        nb = len(dut.s_hdr_tdata) // 8
        for h in hdrs:
            while True:
                v = rng.random() < p_valid
                dut.s_hdr_tvalid.value = int(v)
                dut.s_hdr_tdata.value = int.from_bytes(h.ljust(nb, b"\x5a"), "big")
                dut.s_hdr_len.value = len(h)
                await ReadOnly()
                fire = v and int(dut.s_hdr_tready.value)
                await RisingEdge(dut.clk)
                if fire:
                    break
        dut.s_hdr_tvalid.value = 0

    async def drive_pay(dut, pays, rng, p_valid: float, starts: list) -> None:
        kw = len(dut.s_axis_tkeep)
        cyc = 0
        for pay, user in pays:
            beats = [pay[i:i + kw] for i in range(0, len(pay), kw)] or [b""]
            for bi, chunk in enumerate(beats):
                while True:
                    v = rng.random() < p_valid
                    dut.s_axis_tvalid.value = int(v)
                    dut.s_axis_tdata.value = int.from_bytes(chunk.ljust(kw, b"\xa5"), "little")
                    dut.s_axis_tkeep.value = (1 << len(chunk)) - 1
                    dut.s_axis_tlast.value = int(bi == len(beats) - 1)
                    dut.s_axis_tuser.value = user if bi == len(beats) - 1 else rng.getrandbits(1)
                    await ReadOnly()
                    fire = v and int(dut.s_axis_tready.value)
                    await RisingEdge(dut.clk)
                    cyc += 1
                    if fire:
                        starts.append(cyc)
                        break
        dut.s_axis_tvalid.value = 0

    async def collect(dut, rng, p_ready: float, out: list, at: list) -> None:
        kw = len(dut.s_axis_tkeep)
        cur = []
        cyc = 0
        while True:
            dut.m_axis_tready.value = int(rng.random() < p_ready)
            await ReadOnly()
            if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                cur.append((int(dut.m_axis_tdata.value).to_bytes(kw, "little"),
                            int(dut.m_axis_tkeep.value), int(dut.m_axis_tlast.value),
                            int(dut.m_axis_tuser.value)))
                at.append(cyc + 1)
                if cur[-1][2]:
                    out.append(cur)
                    cur = []
            await RisingEdge(dut.clk)
            cyc += 1

    async def order_monitor(dut, errors: list) -> None:
        """Header k is taken only after payload frame k-1's last beat, and payload frame
        k's first beat only together with or after header k (users rely on it)."""
        hdr_taken = frames_done = 0
        in_frame = False
        while True:
            await ReadOnly()
            hf = int(dut.s_hdr_tvalid.value) and int(dut.s_hdr_tready.value)
            pf = int(dut.s_axis_tvalid.value) and int(dut.s_axis_tready.value)
            if hf:
                if hdr_taken != frames_done:
                    errors.append(f"header {hdr_taken} taken before payload {frames_done} ended")
                hdr_taken += 1
            if pf:
                if not in_frame and hdr_taken != frames_done + 1:
                    errors.append(f"payload {frames_done} started without its header")
                in_frame = not int(dut.s_axis_tlast.value)
                if not in_frame:
                    frames_done += 1
            await RisingEdge(dut.clk)

    def check(kw: int, hdrs, pays, out) -> None:
        assert len(out) == len(hdrs), f"{len(out)} frames out, {len(hdrs)} expected"
        for i, (h, (pay, user), beats) in enumerate(zip(hdrs, pays, out, strict=True)):
            exp = h + pay
            nbeats = -(-len(exp) // kw) + (1 if not pay and len(h) % kw == 0 else 0)
            ctx = f"frame {i} (hdr {len(h)}, payload {len(pay)})"
            assert len(beats) == nbeats, f"{ctx}: {len(beats)} beats, {nbeats} expected"
            got = b""
            for bi, (d, keep, last, u) in enumerate(beats):
                n = bin(keep).count("1")
                assert keep == (1 << n) - 1, f"{ctx}: tkeep not contiguous"
                assert last == (bi == len(beats) - 1), f"{ctx}: tlast"
                if not last:
                    assert n == kw and u == 0, f"{ctx}: non-last beat partial or tuser"
                assert d[n:] == bytes(kw - n), f"{ctx}: data beyond tkeep not zero"
                got += d[:n]
            assert got == exp, f"{ctx}: bytes"
            assert beats[-1][3] == user, f"{ctx}: tuser"

    def frames(rng, kw: int, nb: int, count: int):
        hdrs, pays = [], []
        for _ in range(count):
            hl = rng.choice([rng.randint(1, nb), nb, min(nb, kw), rng.randint(1, nb)])
            pl = rng.choice([0, rng.randint(1, kw), rng.randint(1, 4 * kw), kw * rng.randint(1, 3),
                             kw - hl % kw])
            hdrs.append(bytes(rng.getrandbits(8) for _ in range(hl)))
            pays.append((bytes(rng.getrandbits(8) for _ in range(pl)), rng.getrandbits(1)))
        return hdrs, pays

    @cocotb.test()
    async def insert_random(dut):
        kw = len(dut.s_axis_tkeep)
        nb = len(dut.s_hdr_tdata) // 8
        dut.s_hdr_tvalid.value = 0
        dut.s_axis_tvalid.value = 0
        dut.m_axis_tready.value = 0
        await start_clock_reset(dut)
        hdrs, pays = frames(random.Random(17), kw, nb, 400)
        out, at, starts, errors = [], [], [], []
        cocotb.start_soon(order_monitor(dut, errors))
        mon = cocotb.start_soon(collect(dut, random.Random(4), 0.7, out, at))
        cocotb.start_soon(drive_hdr(dut, hdrs, random.Random(6), 0.6))
        await drive_pay(dut, pays, random.Random(8), 0.75, starts)
        for _ in range(100):
            await RisingEdge(dut.clk)
        mon.cancel()
        check(kw, hdrs, pays, out)
        assert not errors, errors[:3]

    @cocotb.test()
    async def insert_full_rate(dut):
        """Headers offered early, payload never pauses, sink always ready: the output
        carries one beat per cycle; latency 3 cycles from the first payload beat."""
        kw = len(dut.s_axis_tkeep)
        nb = len(dut.s_hdr_tdata) // 8
        dut.s_hdr_tvalid.value = 0
        dut.s_axis_tvalid.value = 0
        await start_clock_reset(dut)
        hdrs, pays = frames(random.Random(19), kw, nb, 60)
        out, at, starts = [], [], []
        mon = cocotb.start_soon(collect(dut, random.Random(4), 1.0, out, at))
        cocotb.start_soon(drive_hdr(dut, hdrs, random.Random(6), 1.0))
        await RisingEdge(dut.clk)
        await drive_pay(dut, pays, random.Random(8), 1.0, starts)
        for _ in range(50):
            await RisingEdge(dut.clk)
        mon.cancel()
        check(kw, hdrs, pays, out)
        gaps = [(i, at[i + 1] - at[i]) for i in range(len(at) - 1) if at[i + 1] - at[i] != 1]
        if gaps:
            ends = []
            k = 0
            for fi, beats in enumerate(out):
                k += len(beats)
                ends.append((k, fi, len(hdrs[fi]), len(pays[fi][0])))
            dut._log.info("gaps %s frames %s", gaps[:5], ends[:12])
        assert not gaps, "bubbles in the output"
        first_hdr_beats = len(hdrs[0]) // kw
        assert at[first_hdr_beats] - starts[0] == 3 + 1, "latency"


# HDR_READY_REG=1 (three header slots, s_hdr_tready from flops): the same checks,
# including one output beat per cycle; (512, 8) is fabnic_vxlan_encap's configuration.
@pytest.mark.parametrize(("data_w", "hdr_bytes", "ready_reg"),
                         [(64, 20, 0), (512, 70, 0), (64, 20, 1), (512, 8, 1)])
def test_axis_hdr_insert(data_w: int, hdr_bytes: int, ready_reg: int) -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_axis_hdr_insert", module="test_axis_hdr_insert",
               test_dir=Path(__file__).parent,
               parameters={"DATA_W": data_w, "HDR_BYTES": hdr_bytes,
                           "HDR_READY_REG": ready_reg})
