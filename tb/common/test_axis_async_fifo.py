# SPDX-License-Identifier: Apache-2.0
"""fabnic_axis_async_fifo (dual-clock AXI-Stream beat FIFO) and fabnic_reset_sync (the
FIFO's reset crossings), against a Python reference of the beats sent.

The expectation is always built from what the test sent (the frames it generated, the
beats the write side accepted), never from values read back from the DUT:

- random_frames: random frames (random length, bytes, tkeep holes, per-beat tuser) with
  random valid/ready pauses on both sides (cocotbext-axi), write clock slower, then
  faster than the read clock; every frame arrives complete, in order, unchanged.
- throughput: no pauses; the faster side never throttles the slower one in the steady
  state (one beat per cycle of the slower clock, counted on its edges).
- full_and_empty: with the reader stalled the write side stops after exactly the
  capacity (DEPTH beats in the memory plus the one in the output register) and the
  output presents the first beat; nothing is lost or duplicated when the reader resumes.
- reset_sync_assert_release: the reset carried to the other domain asserts without a
  clock edge of that domain (its clock stopped) and releases on exactly the
  SYNC_STAGES-th edge of its clock after the source reset fell (fabnic_reset_sync).
- reset_rule: a reset pulse on either side, clocks of various ratios (up to 4*DEPTH),
  FIFO streaming, full, or drained with the pointers mid-lap: the other side is held at
  once and released after SYNC_STAGES of its edges; while a side is held m_axis_tvalid
  is low (no beat is taken); after the reset the FIFO is empty (nothing comes out while
  the writer is idle); the output is a prefix of the beats accepted before the reset
  followed by exactly the beats accepted after.
"""

from __future__ import annotations

import math
import random
from collections import deque
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer
    from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

    from fabnic_tb.axis import random_pause
except ImportError:
    cocotb = None

Beat = tuple[int, int, int, int]  # tdata, tkeep, tlast, tuser

# m_clk starts this long after s_clk (both start low), so that no m_clk edge ever falls on
# an s_clk edge for the period pairs used (checked in Env.clocks): each side drives its
# inputs right after its own edges, and edge counts never depend on delta-cycle order.
M_OFFSET_PS = 370


def frame_beats(data: bytes, keep: list[int], users: list[int], kw: int) -> list[Beat]:
    """The beats a frame must appear as on the bus: little-endian lanes, zero padding and
    tkeep 0 after the last byte, tlast on the last beat, tuser per beat."""
    beats = []
    for b, off in enumerate(range(0, len(data), kw)):
        chunk = data[off:off + kw]
        k = sum(bit << i for i, bit in enumerate(keep[off:off + kw]))
        beats.append((int.from_bytes(chunk, "little"), k, int(off + kw >= len(data)), users[b]))
    return beats


def rand_frame(rng: random.Random, kw: int, uw: int, max_beats: int):
    n = rng.randint(1, max_beats * kw)
    data = rng.randbytes(n)
    keep = [int(rng.random() >= 0.1) for _ in range(n)]  # null bytes anywhere
    users = [rng.getrandbits(uw) for _ in range(-(-n // kw))]
    frame = AxiStreamFrame(data, tkeep=keep, tuser=[users[i // kw] for i in range(n)])
    return frame, frame_beats(data, keep, users, kw)


def rx_beats(frame, kw: int) -> list[Beat]:
    """Beats of a frame received with compact=False (every lane kept)."""
    nb = len(frame.tdata) // kw
    out = []
    for b in range(nb):
        lanes = range(b * kw, (b + 1) * kw)
        out.append((int.from_bytes(bytes(frame.tdata[b * kw:(b + 1) * kw]), "little"),
                    sum(frame.tkeep[i] << (i - b * kw) for i in lanes), int(b == nb - 1),
                    frame.tuser[b * kw]))
    return out


if cocotb is not None:

    class Env:
        def __init__(self, dut):
            self.dut = dut
            self.kw = len(dut.s_axis_tkeep)
            self.dw = len(dut.s_axis_tdata)
            self.uw = len(dut.s_axis_tuser)
            self.depth = int(dut.DEPTH.value)
            self.stages = int(dut.SYNC_STAGES.value)
            self.clk = {"s": None, "m": None}
            self.period = {"s": 0, "m": 0}
            dut.s_axis_tvalid.value = 0
            dut.s_axis_tdata.value = 0
            dut.s_axis_tkeep.value = 0
            dut.s_axis_tlast.value = 0
            dut.s_axis_tuser.value = 0
            dut.m_axis_tready.value = 0
            dut.s_rst.value = 1
            dut.m_rst.value = 1

        def sig(self, side: str, name: str):
            return getattr(self.dut, f"{side}_{name}")

        def stop(self, side: str) -> None:
            if self.clk[side] is not None:
                self.clk[side].stop()
                self.clk[side] = None

        async def clocks(self, s_ps: int, m_ps: int) -> None:
            """(Re)start both clocks low, m_clk M_OFFSET_PS later."""
            off = M_OFFSET_PS + (m_ps - s_ps) // 2  # m rising edges minus s rising edges
            assert off % math.gcd(s_ps, m_ps) != 0, "an m_clk edge would meet an s_clk edge"
            self.stop("s")
            self.stop("m")
            self.period = {"s": s_ps, "m": m_ps}
            self.clk["s"] = Clock(self.dut.s_clk, s_ps, unit="ps", impl="gpi")
            self.clk["s"].start(start_high=False)
            await Timer(M_OFFSET_PS, unit="ps")
            self.clk["m"] = Clock(self.dut.m_clk, m_ps, unit="ps", impl="gpi")
            self.clk["m"].start(start_high=False)

        async def slow_cycles(self, n: int) -> None:
            await Timer(n * max(self.period.values()), unit="ps")

        async def until_low(self, side: str, name: str, limit: int) -> None:
            for _ in range(limit):
                await RisingEdge(self.sig(side, "clk"))
                if not int(self.sig(side, name).value):
                    return
            raise AssertionError(f"{side}_{name} still high after {limit} {side}_clk cycles")

        async def reset_both(self) -> None:
            """Both resets, each driven from its own clock, long enough for either side."""
            await RisingEdge(self.dut.s_clk)
            self.dut.s_rst.value = 1
            await RisingEdge(self.dut.m_clk)
            self.dut.m_rst.value = 1
            await self.slow_cycles(self.stages + 2)
            await RisingEdge(self.dut.s_clk)
            self.dut.s_rst.value = 0
            await RisingEdge(self.dut.m_clk)
            self.dut.m_rst.value = 0
            lim = 4 * (self.stages + 2) * (max(self.period.values()) // min(self.period.values()) + 1)
            await self.until_low("s", "rst_active", lim)
            await self.until_low("m", "rst_active", lim)

        def rand_beat(self, rng: random.Random) -> Beat:
            return (rng.getrandbits(self.dw), rng.getrandbits(self.kw), int(rng.random() < 0.3),
                    rng.getrandbits(self.uw))

    class BeatWriter:
        """Lean s_axis driver: one beat per s_clk edge from a queue, idle cycles with
        probability ``busy``; logs the beats the FIFO accepted. ``drop()`` is what a user
        does on a reset: abandon the beat on the bus and the rest of the queue, and start a
        new log (``epochs[-1]``)."""

        def __init__(self, env: Env, rng: random.Random, busy: float = 0.0):
            self.dut, self.rng, self.busy = env.dut, rng, busy
            self.pending: deque[Beat] = deque()
            self.cur: Beat | None = None
            self.epochs: list[list[Beat]] = [[]]
            self._drop = False
            self._then: list[Beat] = []
            cocotb.start_soon(self._run())

        def drop(self, then: list[Beat] | None = None) -> None:
            """At the next s_clk edge (after logging that edge's handshake): abandon the
            beat on the bus and the queue, start a new log, then send ``then``."""
            self._drop = True
            self._then = list(then or [])

        def idle(self) -> bool:
            return self.cur is None and not self.pending and not self._drop

        async def _run(self) -> None:
            d = self.dut
            while True:
                await RisingEdge(d.s_clk)
                if self.cur is not None and int(d.s_axis_tready.value):
                    self.epochs[-1].append(self.cur)
                    self.cur = None
                if self._drop:
                    self._drop = False
                    self.cur = None
                    self.pending = deque(self._then)
                    self.epochs.append([])
                if self.cur is None and self.pending and self.rng.random() >= self.busy:
                    self.cur = self.pending.popleft()
                    data, keep, last, user = self.cur
                    d.s_axis_tdata.value = data
                    d.s_axis_tkeep.value = keep
                    d.s_axis_tlast.value = last
                    d.s_axis_tuser.value = user
                d.s_axis_tvalid.value = int(self.cur is not None)

    class BeatReader:
        """Lean m_axis consumer: random tready (``busy``), or none while ``stall``; logs
        every beat taken and counts beats taken while the read side was held in reset."""

        def __init__(self, env: Env, rng: random.Random, busy: float = 0.0):
            self.dut, self.rng, self.busy = env.dut, rng, busy
            self.stall = False
            self.got: list[Beat] = []
            self.taken_in_reset = 0
            cocotb.start_soon(self._run())

        async def _run(self) -> None:
            d = self.dut
            while True:
                await RisingEdge(d.m_clk)
                if int(d.m_axis_tvalid.value) and int(d.m_axis_tready.value):
                    self.got.append((int(d.m_axis_tdata.value), int(d.m_axis_tkeep.value),
                                     int(d.m_axis_tlast.value), int(d.m_axis_tuser.value)))
                    self.taken_in_reset += int(d.m_rst_active.value)
                d.m_axis_tready.value = int(not self.stall and self.rng.random() >= self.busy)

    def axis_pair(env: Env, pauses: bool):
        d = env.dut
        src = AxiStreamSource(AxiStreamBus.from_prefix(d, "s_axis"), d.s_clk, d.s_rst)
        sink = AxiStreamSink(AxiStreamBus.from_prefix(d, "m_axis"), d.m_clk, d.m_rst)
        src.log.setLevel("WARNING")
        sink.log.setLevel("WARNING")
        if pauses:
            src.set_pause_generator(random_pause(11, 0.3))
            sink.set_pause_generator(random_pause(12, 0.3))
        return src, sink

    async def send_and_check(env: Env, src, sink, frames: list) -> None:
        for frame, _ in frames:
            await src.send(frame)
        for i, (_, beats) in enumerate(frames):
            rx = await sink.recv(compact=False)
            assert rx_beats(rx, env.kw) == beats, f"frame {i} of {len(frames)} differs"
        await env.slow_cycles(4 * (env.stages + 2))
        assert sink.empty(), "more frames came out than were sent"

    @cocotb.test()
    async def random_frames(dut):
        """Random frames, random pauses on both sides, write clock slower then faster."""
        env = Env(dut)
        await env.clocks(4000, 3100)
        await env.reset_both()
        src, sink = axis_pair(env, pauses=True)
        rng = random.Random(1)
        n = 150 if env.dw <= 64 else 40
        for s_ps, m_ps in ((4000, 3100), (3100, 4000)):
            await env.clocks(s_ps, m_ps)
            frames = [rand_frame(rng, env.kw, env.uw, 5) for _ in range(n)]
            await send_and_check(env, src, sink, frames)

    async def handshake_flags(clk, valid, ready, n: int) -> list[int]:
        flags = []
        for _ in range(n):
            await RisingEdge(clk)
            flags.append(int(valid.value) & int(ready.value))
        return flags

    @cocotb.test()
    async def throughput(dut):
        """No pauses. Write clock slower: the write side takes one beat per s_clk cycle.
        Write clock faster: the read side delivers one beat per m_clk cycle.

        The rate is counted on the slower clock's edges over a window of W cycles that
        opens 2*DEPTH cycles after the first beat (past the fill transient) and closes
        well before the source runs dry. At full rate the count is exactly W; the
        tolerance of one beat in W only covers where the window boundary falls. A FIFO
        that stalls even once per pointer round trip (about 2*(SYNC_STAGES+2) cycles)
        would miss W/(2*(SYNC_STAGES+2)) > 10 beats and fail."""
        env = Env(dut)
        await env.clocks(4000, 3100)
        await env.reset_both()
        src, sink = axis_pair(env, pauses=False)
        sink.pause = False
        rng = random.Random(2)
        warm, w = 2 * env.depth, 200
        for s_ps, m_ps, side in ((4000, 3100, "s"), (3100, 4000, "m")):
            await env.clocks(s_ps, m_ps)
            frames, nbeats = [], 0
            while nbeats < warm + w + 2 * env.depth + 32:
                f = rand_frame(rng, env.kw, env.uw, 4)
                frames.append(f)
                nbeats += len(f[1])
            bus = f"{side}_axis"
            mon = cocotb.start_soon(handshake_flags(
                env.sig(side, "clk"), getattr(dut, f"{bus}_tvalid"), getattr(dut, f"{bus}_tready"),
                warm + w + 3 * env.depth + 64))
            await send_and_check(env, src, sink, frames)
            flags = await mon
            first = flags.index(1)
            window = flags[first + warm:first + warm + w]
            assert len(window) == w
            rate = sum(window) / w
            dut._log.info("throughput, %s_clk slower (s %d ps, m %d ps): %d beats in %d %s_clk "
                          "cycles = %.3f beat/cycle", side, s_ps, m_ps, sum(window), w, side, rate)
            assert sum(window) >= w - 1, f"{rate:.3f} beat per {side}_clk cycle, expected 1"

    @cocotb.test()
    async def full_and_empty(dut):
        """Reader stalled: the write side stops after exactly DEPTH + 1 beats: DEPTH in the
        memory (full = write pointer one lap, DEPTH, ahead of the read pointer) and one in
        the output register (a beat read out of the memory advances the read pointer).
        Then the reader resumes: every beat comes out once, in order."""
        env = Env(dut)
        await env.clocks(4000, 3100)
        await env.reset_both()
        rng = random.Random(3)
        wr = BeatWriter(env, rng)
        rd = BeatReader(env, rng, busy=0.3)
        cap = env.depth + 1
        for s_ps, m_ps in ((4000, 3100), (3100, 4000)):
            await env.clocks(s_ps, m_ps)
            await env.slow_cycles(4)
            assert not int(dut.m_axis_tvalid.value), "m_axis_tvalid high with the FIFO empty"
            rd.stall = True
            base_w, base_r = len(wr.epochs[-1]), len(rd.got)
            beats = [env.rand_beat(rng) for _ in range(3 * env.depth)]
            wr.pending.extend(beats)
            # much longer than a pointer round trip: the writer must have stopped for good
            await env.slow_cycles(env.depth + 8 * (env.stages + 2))
            assert len(wr.epochs[-1]) - base_w == cap, \
                f"write side took {len(wr.epochs[-1]) - base_w} beats, capacity is {cap}"
            assert not int(dut.s_axis_tready.value), "s_axis_tready high with the FIFO full"
            assert int(dut.m_axis_tvalid.value), "m_axis_tvalid low with the FIFO full"
            head = (int(dut.m_axis_tdata.value), int(dut.m_axis_tkeep.value),
                    int(dut.m_axis_tlast.value), int(dut.m_axis_tuser.value))
            assert head == beats[0], "the output does not present the first beat"
            await env.slow_cycles(16)
            assert len(wr.epochs[-1]) - base_w == cap, "the write side took beats while full"
            rd.stall = False
            for _ in range(50):
                await env.slow_cycles(len(beats))
                if wr.idle() and len(rd.got) - base_r >= len(beats):
                    break
            await env.slow_cycles(4 * (env.stages + 2))
            assert wr.epochs[-1][base_w:] == beats, "write side log differs from the beats sent"
            assert rd.got[base_r:] == beats, "beats lost, duplicated, reordered or changed"
            assert not int(dut.m_axis_tvalid.value), "m_axis_tvalid high after the FIFO drained"

    async def count_release(env: Env, side: str, name: str, limit: int) -> int:
        """Rising edges of <side>_clk until <side>_<name> reads low after one; every
        earlier edge must leave it high."""
        sig = env.sig(side, name)
        for n in range(1, limit + 1):
            await RisingEdge(env.sig(side, "clk"))
            await ReadOnly()
            if not int(sig.value):
                return n
        return limit + 1

    @cocotb.test()
    async def reset_sync_assert_release(dut):
        """The carried reset (fabnic_reset_sync) with the receiving clock stopped: it asserts
        with no edge of that clock, stays asserted without edges after the source released,
        and releases on exactly the SYNC_STAGES-th edge once the clock runs."""
        env = Env(dut)
        await env.clocks(4000, 3100)
        await env.reset_both()
        s = env.stages
        for side, other in (("s", "m"), ("m", "s")):
            await FallingEdge(env.sig(other, "clk"))
            env.stop(other)  # held low from here on
            await RisingEdge(env.sig(side, "clk"))
            env.sig(side, "rst").value = 1
            await ReadOnly()
            assert int(env.sig(other, "rst_active").value), \
                f"{side}_rst did not reach {other}_rst_active without a {other}_clk edge"
            await Timer(5 * env.period[other], unit="ps")
            for _ in range(2):
                await RisingEdge(env.sig(side, "clk"))
            env.sig(side, "rst").value = 0
            await Timer(5 * env.period[other], unit="ps")
            assert int(env.sig(other, "rst_active").value), \
                f"{other}_rst_active released without a {other}_clk edge"
            counter = cocotb.start_soon(count_release(env, other, "rst_active", s + 4))
            await env.clocks(env.period["s"], env.period["m"])
            n = await counter
            assert n == s, f"{other}_rst_active released on {other}_clk edge {n}, expected {s}"
            await env.until_low(side, "rst_active", 8 * (s + 2))

    def reset_cases(depth: int):
        """(s_clk ps, m_clk ps, side reset, pulse cycles, traffic before, writer idle after).

        Traffic before the reset: "stream" random on both sides, reset at a random time;
        "full" reader stalled until the reset, then always ready (a stale or unmasked
        beat would be taken at once); "drained" every old beat read, both pointers half
        a lap (DEPTH/2) past zero, the writer at full rate after the reset (a side that
        trusted the far side's old pointer would read a lap of stale beats, or overrun a
        reader that is not reset yet). The pulse starts just after an edge of the other
        clock, the longest time before that side can act on it."""
        very_slow = 2000 * 4 * depth + 200  # 4*DEPTH times the 2 ns clock
        return [
            (4000, 3100, "s", 3, "stream", False),
            (4000, 3100, "m", 3, "stream", True),
            (3100, 4000, "s", 1, "full", True),
            (3100, 4000, "m", 1, "full", False),
            # one-cycle reset against a far clock more than twice slower
            (10000, 3100, "m", 1, "full", True),
            (10000, 3100, "m", 1, "drained", False),
            (3100, 10000, "s", 1, "stream", False),
            # one-cycle reset against a far clock 4*DEPTH times slower
            (2000, very_slow, "s", 1, "drained", False),
            (very_slow, 2000, "m", 1, "drained", False),
        ]

    @cocotb.test()
    async def reset_rule(dut):
        env = Env(dut)
        await env.clocks(4000, 3100)
        await env.reset_both()
        rng = random.Random(4)
        wr = BeatWriter(env, rng, busy=0.3)
        rd = BeatReader(env, rng, busy=0.3)
        s, depth = env.stages, env.depth
        lap = 0  # beats through the FIFO since both pointers were last zeroed, mod 2*DEPTH
        for case in reset_cases(depth):
            s_ps, m_ps, side, pulse, mode, idle_after = case
            other = "m" if side == "s" else "s"
            await env.clocks(s_ps, m_ps)
            ratio = max(s_ps, m_ps) // min(s_ps, m_ps) + 1
            # the FIFO is drained and idle here: start a fresh log on both sides
            wr.drop()
            await RisingEdge(dut.s_clk)
            await RisingEdge(dut.s_clk)
            base_r = len(rd.got)
            rd.stall, rd.busy = mode == "full", 0.3
            wr.busy = 0.0 if mode == "full" else 0.3
            if mode == "drained":
                n_old = (depth // 2 - lap) % (2 * depth) + 2 * depth
                wr.pending.extend(env.rand_beat(rng) for _ in range(n_old))
                for _ in range(100):
                    await env.slow_cycles(2 * depth)
                    if len(rd.got) - base_r >= n_old:
                        break
                await env.slow_cycles(4 * (s + 2))
            else:
                wr.pending.extend(env.rand_beat(rng) for _ in range(3 * depth))
                await env.slow_cycles(depth + 8 * (s + 2) if mode == "full" else rng.randint(10, 30))
            old = wr.epochs[-1]
            if mode == "full":
                assert len(old) == depth + 1 and len(rd.got) == base_r
            # the reset pulse, driven from its own clock just after an edge of the other
            await RisingEdge(env.sig(other, "clk"))
            await RisingEdge(env.sig(side, "clk"))
            env.sig(side, "rst").value = 1
            new_beats = [] if idle_after else [env.rand_beat(rng) for _ in range(3 * depth)]
            wr.drop(then=new_beats)
            if mode == "drained":
                wr.busy = 0.0
            if mode == "full":
                rd.stall, rd.busy = False, 0.0
                dut.m_axis_tready.value = 1
            await ReadOnly()
            assert int(env.sig(other, "rst_active").value), f"{case}: not carried at once"
            assert int(env.sig(side, "rst_active").value), f"{case}: own side not held"
            for _ in range(pulse):
                await RisingEdge(env.sig(side, "clk"))
            env.sig(side, "rst").value = 0
            n = await count_release(env, other, "rst_active", s + 4)
            assert n == s, f"{case}: {other}_rst_active released on edge {n}, expected {s}"
            await env.until_low(side, "rst_active", 8 * (s + 2) * ratio)
            await env.until_low(other, "rst_active", 8 * (s + 2) * ratio)
            rd.stall = False
            if idle_after:
                # the reset emptied the FIFO: nothing may come out while the writer is idle
                n_before = len(rd.got)
                rd.busy = 0.0
                await env.slow_cycles(8 * (s + 2))
                assert len(rd.got) == n_before, \
                    f"{case}: {len(rd.got) - n_before} beats came out of a FIFO emptied by reset"
                assert not int(dut.m_axis_tvalid.value), f"{case}: m_axis_tvalid high, FIFO reset"
                new_beats = [env.rand_beat(rng) for _ in range(3 * depth)]
                wr.pending.extend(new_beats)
            rd.busy = 0.3
            for _ in range(100):
                await env.slow_cycles(2 * depth)
                if wr.idle() and len(rd.got) - base_r >= len(wr.epochs[-1]):
                    break
            await env.slow_cycles(4 * (s + 2))
            new = wr.epochs[-1]
            assert new == new_beats, f"{case}: writer log differs from the beats sent after reset"
            got = rd.got[base_r:]
            k = len(got) - len(new)
            assert 0 <= k <= len(old), \
                f"{case}: {len(got)} beats out, {len(old)} accepted before and {len(new)} after"
            assert got[:k] == old[:k], f"{case}: beats out before the reset are not a prefix"
            assert got[k:] == new, f"{case}: beats written after the reset lost or changed"
            dut._log.info("reset %s: %d of %d old beats out before the reset, then all %d new",
                          case, k, len(old), len(new))
            if mode == "full":
                assert k == 0, f"{case}: {k} beats of a FIFO full at the reset came out"
            if mode == "drained":
                assert k == len(old), f"{case}: only {k} of the {len(old)} drained beats seen"
            assert rd.taken_in_reset == 0, \
                f"{case}: {rd.taken_in_reset} beats taken while m_rst_active was high"
            lap = len(new) % (2 * depth)


CONFIGS = [
    dict(DATA_W=64, USER_W=3, DEPTH=8, SYNC_STAGES=2),  # DEPTH at the depth rule's minimum
    dict(DATA_W=512, DEPTH=16, SYNC_STAGES=3),
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: f"w{p['DATA_W']}_d{p['DEPTH']}")
def test_axis_async_fifo(params: dict) -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_axis_async_fifo", module="test_axis_async_fifo",
               test_dir=Path(__file__).parent, parameters=params)
