# SPDX-License-Identifier: Apache-2.0
"""fabnic_axis_realign: "drop OFF bytes, keep LEN" per frame, realigned to lane 0.

Model (Python, per frame): out = frame[off:end] with end = min(off+len, L) when trim
else L; tuser on the last output beat = input tuser | bad | (chk and L < off+len);
drop frames produce nothing; an empty result is one beat with tkeep 0. Every output
beat is checked lane by lane: tkeep contiguous, full on non-last beats, data zero
where tkeep is 0, tuser 0 on non-last beats. status_done/status_short are counted
per frame. Commands, valid and ready are randomized (cmd_valid can be low when a
frame's first beat is offered). Tests:
  - sweep: every (off, len) pair up to two beats (all pairs at 32/64 bits, every
    offset and every length at 128/512), trim and not, frames of one to four beats;
  - back-pressure: random frames under five mixes of source pauses and sink stalls;
    with the sink always ready every output beat must leave 1 cycle after the input
    beat that completes it (its last byte's beat; the frame's last beat for its last
    output beat), in order, one per cycle;
  - random: 500 random frames and commands, random pauses on both sides;
  - full rate: multi-beat frames with no pauses, one beat per cycle, latency 1;
  - one-beat rate: one-beat frames of every offset back to back at one frame per
    cycle, each leaving 1 cycle after its handshake.
Every test also runs with CMD_REG = 1 (tb_axis_realign_reg.sv: a parent's command
register in front; cmd_* is then a command stream with its own random pauses and
random fields while cmd_valid is low): the same outputs, cycle for cycle against the
input handshakes.
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


def model(frame: bytes, user: int, cmd: dict) -> tuple[bytes, int, bool] | None:
    n = len(frame)
    need = cmd["off"] + cmd["len"]
    end = min(need, n) if cmd["trim"] else n
    out = frame[cmd["off"]:end] if end > cmd["off"] else b""
    short = bool(cmd["chk"]) and n < need
    if cmd["drop"]:
        return None
    return out, int(bool(user) or bool(cmd["bad"]) or short), short


def rand_cmd(rng: random.Random, kw: int, flen: int, len_w: int = 17) -> dict:
    r = rng.random()
    if r < 0.1:
        off = (1 << len_w) - 1          # "bad" style offset: nothing emitted
    elif r < 0.3:
        off = kw * rng.randint(0, 3)    # beat-aligned
    else:
        off = rng.randint(0, flen + kw)
    if rng.random() < 0.3:
        ln = kw * rng.randint(0, 3) + rng.choice([0, 0, -off % kw])
    else:
        ln = rng.randint(0, flen + kw)
    ln = min(ln, (1 << len_w) - 1)
    return {"off": off, "len": ln, "trim": int(rng.random() < 0.6), "chk": int(rng.random() < 0.7),
            "drop": int(rng.random() < 0.08), "bad": int(rng.random() < 0.1)}


if cocotb is not None:

    def cmd_reg(dut) -> bool:
        """The top is tb_axis_realign_reg (CMD_REG = 1 behind a parent's command
        register): cmd_* is a command stream into that register."""
        return hasattr(dut, "r_cmd_ready")

    def put_cmd(dut, cmd: dict) -> None:
        dut.cmd_off.value = cmd["off"]
        dut.cmd_len.value = cmd["len"]
        for k in ("trim", "chk", "drop", "bad"):
            getattr(dut, f"cmd_{k}").value = cmd[k]

    async def feed_cmds(dut, cmds: list, rng, p_cmd: float) -> None:
        """CMD_REG = 1: offer the commands in order as a stream (valid low with random
        fields in between), each until the command register takes it."""
        for cmd in cmds:
            while True:
                cv = rng.random() < p_cmd
                dut.cmd_valid.value = int(cv)
                if cv:
                    put_cmd(dut, cmd)
                else:
                    dut.cmd_off.value = rng.getrandbits(17)
                    dut.cmd_len.value = rng.getrandbits(17)
                    dut.cmd_drop.value = rng.getrandbits(1)
                await ReadOnly()
                taken = cv and int(dut.cmd_ready.value)
                await RisingEdge(dut.clk)
                if taken:
                    break
        dut.cmd_valid.value = 0

    async def drive(dut, frames, rng, p_valid: float, p_cmd: float, starts: list,
                    takes: list | None = None) -> None:
        """Offer the frames; starts gets each frame's first-beat handshake cycle, takes
        (if given) the handshake cycles of all its beats."""
        kw = len(dut.s_axis_tkeep)
        cyc = 0
        reg = cmd_reg(dut)
        if reg:
            feed = cocotb.start_soon(feed_cmds(dut, [c for _f, _u, c in frames],
                                               random.Random(rng.getrandbits(32)), p_cmd))
        for frame, user, cmd in frames:
            beats = [frame[i:i + kw] for i in range(0, len(frame), kw)]
            if takes is not None:
                takes.append([])
            for bi, chunk in enumerate(beats):
                while True:
                    v = rng.random() < p_valid
                    dut.s_axis_tvalid.value = int(v)
                    dut.s_axis_tdata.value = int.from_bytes(chunk.ljust(kw, b"\xa5"), "little")
                    dut.s_axis_tkeep.value = (1 << len(chunk)) - 1
                    dut.s_axis_tlast.value = int(bi == len(beats) - 1)
                    dut.s_axis_tuser.value = user if bi == len(beats) - 1 else rng.getrandbits(1)
                    if not reg:
                        cv = rng.random() < p_cmd
                        dut.cmd_valid.value = int(cv)
                        if cv or rng.random() < 0.5:
                            put_cmd(dut, cmd)
                        else:  # junk while cmd_valid is low
                            dut.cmd_off.value = rng.getrandbits(17)
                            dut.cmd_len.value = rng.getrandbits(17)
                    await ReadOnly()
                    fire = v and int(dut.s_axis_tready.value)
                    rdy = int(dut.r_cmd_ready.value if reg else dut.cmd_ready.value)
                    if bi == 0:
                        assert rdy == int(bool(fire)), "cmd_ready"
                    else:
                        assert rdy == 0
                    await RisingEdge(dut.clk)
                    cyc += 1
                    if fire:
                        if bi == 0:
                            starts.append(cyc)
                        if takes is not None:
                            takes[-1].append(cyc)
                        break
        dut.s_axis_tvalid.value = 0
        if reg:
            await feed
        dut.cmd_valid.value = 0

    async def collect(dut, rng, p_ready: float, out: list, beats_at: list, status: list) -> None:
        kw = len(dut.s_axis_tkeep)
        cur = []
        cyc = 0
        while True:
            dut.m_axis_tready.value = int(rng.random() < p_ready)
            await ReadOnly()
            if int(dut.status_done.value):
                status.append(int(dut.status_short.value))
            if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                keep = int(dut.m_axis_tkeep.value)
                data = int(dut.m_axis_tdata.value).to_bytes(kw, "little")
                last = int(dut.m_axis_tlast.value)
                user = int(dut.m_axis_tuser.value)
                cur.append((data, keep, last, user))
                beats_at.append(cyc + 1)
                if last:
                    out.append(cur)
                    cur = []
            await RisingEdge(dut.clk)
            cyc += 1

    def check(kw: int, frames, out) -> None:
        exp = [(i, model(f, u, c)) for i, (f, u, c) in enumerate(frames)]
        exp = [(i, e) for i, e in exp if e is not None]
        assert len(out) == len(exp), f"{len(out)} frames out, {len(exp)} expected"
        for (i, (data, user, _short)), beats in zip(exp, out, strict=True):
            f, _u, cmd = frames[i]
            ctx = f"frame {i} (len {len(f)}, cmd {cmd})"
            assert len(beats) == max(1, -(-len(data) // kw)), f"{ctx}: {len(beats)} beats"
            got = b""
            for bi, (d, keep, last, u) in enumerate(beats):
                nb = bin(keep).count("1")
                assert keep == (1 << nb) - 1, f"{ctx}: tkeep not contiguous"
                assert last == (bi == len(beats) - 1), f"{ctx}: tlast"
                if not last:
                    assert nb == kw and u == 0, f"{ctx}: non-last beat partial or tuser"
                assert d[nb:] == bytes(kw - nb), f"{ctx}: data beyond tkeep not zero"
                got += d[:nb]
            assert got == data, f"{ctx}: payload"
            assert beats[-1][3] == user, f"{ctx}: tuser"

    def expected_times(kw: int, frames, takes) -> list[int]:
        """Output cycle of every output beat with an always-ready sink: 1 cycle after the
        input beat that completes it (the input beat holding its last byte; the frame's
        last input beat for its last output beat, trimmed or not), and in order, at most
        one per cycle."""
        times, prev = [], -1
        for (f, _u, cmd), tk in zip(frames, takes, strict=True):
            if cmd["drop"]:
                continue
            off = cmd["off"]
            end = min(off + cmd["len"], len(f)) if cmd["trim"] else len(f)
            nout = max(1, -(-(end - off) // kw))
            for m in range(nout):
                j = len(tk) - 1 if m == nout - 1 else (off + (m + 1) * kw - 1) // kw
                prev = max(tk[j] + 1, prev + 1)
                times.append(prev)
        return times

    def rand_frames(rng: random.Random, kw: int, n: int) -> list:
        frames = []
        for _ in range(n):
            flen = rng.choice([rng.randint(1, kw), rng.randint(1, 5 * kw), kw * rng.randint(1, 4)])
            f = bytes(rng.getrandbits(8) for _ in range(flen))
            frames.append((f, rng.getrandbits(1), rand_cmd(rng, kw, flen)))
        return frames

    async def run_frames(dut, frames, seed: int, p_valid: float, p_cmd: float,
                         p_ready: float) -> tuple[list, list, list, list]:
        out, at, status, takes = [], [], [], []
        mon = cocotb.start_soon(collect(dut, random.Random(seed), p_ready, out, at, status))
        await drive(dut, frames, random.Random(seed + 1), p_valid, p_cmd, [], takes)
        for _ in range(200):
            await RisingEdge(dut.clk)
        mon.cancel()
        kw = len(dut.s_axis_tkeep)
        check(kw, frames, out)
        assert status == [int(model(f, 0, {**c, "drop": 0})[2]) for f, _, c in frames]
        return out, at, status, takes

    @cocotb.test()
    async def realign_sweep(dut):
        """Every offset and every length (trim and not) against frames of one to four
        beats, with chk/bad/drop/tuser random, random back-pressure on both sides."""
        kw = len(dut.s_axis_tkeep)
        dut.s_axis_tvalid.value = 0
        dut.cmd_valid.value = 0
        dut.m_axis_tready.value = 0
        await start_clock_reset(dut)
        rng = random.Random(23)
        frames = []
        lim = 2 * kw + 2
        # all (off, len) pairs up to two beats and a bit at small widths; at 512 bits
        # every offset of three beats with a random length and vice versa
        if kw <= 8:
            pairs = [(o, n) for o in range(lim) for n in range(lim)]
        else:
            pairs = ([(o, rng.randint(0, lim)) for o in range(lim)] +
                     [(rng.randint(0, lim), n) for n in range(lim)])
        for off, ln in pairs:
            for trim in (0, 1):
                flen = rng.choice([rng.randint(1, kw), rng.randint(kw, 4 * kw),
                                   max(1, off + ln + rng.randint(-2, 2))])
                f = bytes(rng.getrandbits(8) for _ in range(flen))
                cmd = {"off": off, "len": ln, "trim": trim, "chk": rng.getrandbits(1),
                       "drop": int(rng.random() < 0.05), "bad": int(rng.random() < 0.1)}
                frames.append((f, rng.getrandbits(1), cmd))
        await run_frames(dut, frames, 31, 0.8, 0.8, 0.6)

    @cocotb.test()
    async def realign_backpressure(dut):
        """Random frames under each mix of source pauses and sink back-pressure (a
        stalled sink fills the output queue; bursts of ready test its draining); with the
        sink always ready every output beat leaves 1 cycle after the input beat that
        completes it (or right after the beat before it)."""
        kw = len(dut.s_axis_tkeep)
        dut.s_axis_tvalid.value = 0
        dut.cmd_valid.value = 0
        dut.m_axis_tready.value = 0
        await start_clock_reset(dut)
        for k, (pv, pc, pr) in enumerate([(1.0, 1.0, 0.2), (1.0, 1.0, 0.9), (0.5, 1.0, 1.0),
                                          (1.0, 0.5, 1.0), (1.0, 1.0, 1.0)]):
            frames = rand_frames(random.Random(100 + k), kw, 120)
            _out, at, _st, takes = await run_frames(dut, frames, 40 + 2 * k, pv, pc, pr)
            if pr == 1.0:
                exp = expected_times(kw, frames, takes)
                assert at == exp, f"mix {k}: output cycles {at[:20]} expected {exp[:20]}"

    @cocotb.test()
    async def realign_random(dut):
        kw = len(dut.s_axis_tkeep)
        dut.s_axis_tvalid.value = 0
        dut.cmd_valid.value = 0
        dut.m_axis_tready.value = 0
        await start_clock_reset(dut)
        rng = random.Random(11)
        frames = []
        for _ in range(500):
            flen = rng.choice([rng.randint(1, kw), rng.randint(1, 5 * kw), kw * rng.randint(1, 4)])
            f = bytes(rng.getrandbits(8) for _ in range(flen))
            frames.append((f, rng.getrandbits(1), rand_cmd(rng, kw, flen)))
        out, at, status, starts = [], [], [], []
        mon = cocotb.start_soon(collect(dut, random.Random(3), 0.7, out, at, status))
        await drive(dut, frames, random.Random(5), 0.75, 0.8, starts)
        for _ in range(200):
            await RisingEdge(dut.clk)
        mon.cancel()
        check(kw, frames, out)
        assert status == [int(model(f, 0, {**c, "drop": 0})[2]) for f, _, c in frames]

    @cocotb.test()
    async def realign_full_rate(dut):
        """Sink always ready, source never pauses, non-trim frames: one output beat per
        cycle within a frame; latency 1 cycle; frame boundaries cost at most the
        documented flush cycle."""
        kw = len(dut.s_axis_tkeep)
        dut.s_axis_tvalid.value = 0
        dut.cmd_valid.value = 0
        await start_clock_reset(dut)
        rng = random.Random(7)
        frames = []
        for k in range(40):
            flen = 8 * kw + rng.randint(0, kw - 1)
            f = bytes(rng.getrandbits(8) for _ in range(flen))
            off = (k * 5) % kw if k % 4 else 0
            frames.append((f, 0, {"off": off, "len": 0, "trim": 0, "chk": 0, "drop": 0, "bad": 0}))
        out, at, status, starts = [], [], [], []
        mon = cocotb.start_soon(collect(dut, random.Random(3), 1.0, out, at, status))
        await drive(dut, frames, random.Random(5), 1.0, 1.0, starts)
        for _ in range(50):
            await RisingEdge(dut.clk)
        mon.cancel()
        check(kw, frames, out)
        # first frame: off 0, its first beat leaves 1 cycle after it was taken
        assert at[0] - starts[0] == 1, f"latency {at[0] - starts[0]}"
        # input: at most one stall cycle per frame (flush), none inside a frame
        nb = [-(-len(f) // kw) for f, _, _ in frames]
        assert starts[-1] - starts[0] <= sum(nb[:-1]) + len(frames) - 1, "input stalls"
        # output beats of one frame are back to back
        i = 0
        for beats in out:
            cyc = at[i:i + len(beats)]
            assert cyc[-1] - cyc[0] == len(beats) - 1, "bubble inside an output frame"
            i += len(beats)

    @cocotb.test()
    async def realign_one_beat_rate(dut):
        """One-beat frames back to back, every offset of a beat (and past the beat), with
        and without trim: the source never pauses, the sink is always ready; every frame
        is taken in the cycle after the previous one and its output beat leaves 1 cycle
        after its handshake."""
        kw = len(dut.s_axis_tkeep)
        dut.s_axis_tvalid.value = 0
        dut.cmd_valid.value = 0
        await start_clock_reset(dut)
        rng = random.Random(13)
        frames = []
        for rnd in range(3):
            for off in list(range(kw)) + [kw, kw + 3]:
                flen = kw if rnd == 0 else rng.randint(1, kw)
                f = bytes(rng.getrandbits(8) for _ in range(flen))
                cmd = {"off": off, "len": rng.randint(0, kw + 2), "trim": int(rnd == 2),
                       "chk": rng.getrandbits(1), "drop": 0, "bad": int(rng.random() < 0.2)}
                frames.append((f, rng.getrandbits(1), cmd))
        out, at, status, starts = [], [], [], []
        mon = cocotb.start_soon(collect(dut, random.Random(3), 1.0, out, at, status))
        await drive(dut, frames, random.Random(5), 1.0, 1.0, starts)
        for _ in range(20):
            await RisingEdge(dut.clk)
        mon.cancel()
        check(kw, frames, out)
        assert status == [int(model(f, 0, c)[2]) for f, _, c in frames]
        gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
        assert gaps == [1] * (len(frames) - 1), f"input gaps {gaps}"
        lat = [a - b for a, b in zip(at, starts, strict=True)]
        assert lat == [1] * len(frames), f"latencies {lat}"


@pytest.mark.parametrize("data_w,form", [(32, "vector"), (64, "vector"), (128, "vector"), (512, "vector"),
                                          (64, "gate"), (512, "gate"), (64, "reg"), (512, "reg")])
def test_axis_realign(data_w: int, form: str) -> None:
    """`form`: the rotation as Verilator builds it by default (whole-vector shifts) or as
    synthesis reads it (per-bit carry-chain multiplexers, FABNIC_GATE_MUX); "reg": the
    registered command decode (CMD_REG = 1) behind a parent's command register
    (tb_axis_realign_reg.sv)."""
    from fabnic_tb import runner

    here = Path(__file__).parent
    if form == "reg":
        runner.run(toplevel="tb_axis_realign_reg", module="test_axis_realign", test_dir=here,
                   extra_sources=[here / "tb_axis_realign_reg.sv"],
                   parameters={"DATA_W": data_w})
        return
    gate = form == "gate"
    runner.run(toplevel="fabnic_axis_realign", module="test_axis_realign",
               test_dir=here, parameters={"DATA_W": data_w},
               tag=f"DATA_W{data_w}_gate" if gate else None,
               build_args=["+define+FABNIC_GATE_MUX"] if gate else ())
