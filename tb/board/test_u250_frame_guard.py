# SPDX-License-Identifier: Apache-2.0
"""fabnic_u250_frame_guard: frames kept whole across sink resets, link-down and source
restarts, short frames padded.

Random frames (scapy Ethernet/IP/UDP and ARP frames, and raw byte strings of any
length, garbage in the bytes outside tkeep) go through the guard while `flush` pulses
(the sink held in reset), `block` goes up and down (link down) and `src_abort` pulses
(the source restarts and abandons its frame; during it the source shows garbage
beats). Each cycle the test drives the inputs, lets them settle, and feeds what it
drove plus the handshakes into a Python model of the rules in the module header:

  * a frame whose first beat is taken while `flush` or `block` is high, or that sees
    `flush` high in any cycle from its first beat to its last, is lost;
  * a frame abandoned by `src_abort` after beats of it went to the sink is closed with
    one beat (tlast, tuser all ones, tkeep lane 0, data 0) unless `flush` is high then,
    and is lost; that closing beat is moot if `flush` comes before the sink takes it;
  * every lost frame is one `drop` pulse; beats during `src_abort` are discarded;
  * otherwise beats pass unchanged, except with MIN_BYTES > 0: a frame shorter than
    MIN_BYTES leaves with tkeep covering MIN_BYTES bytes, and every byte outside tkeep
    is zero.

The sink model is a sink that loses its partial frame when held in reset (flush). The
frames it collects must equal the model's expected frames, beat for beat; the drop
pulses must equal the model's count. While `flush` is high, the guard must take every
input beat and show no output beat; a source without back-pressure (the CMAC) must
never see tready low outside a closing beat.

Modes: "bp" (a source that waits for tready, a sink with random back-pressure; the
shell's TX guard) and "nobp" (a source that ignores tready and a sink always ready,
src_abort held 2..4 cycles as the shell's reset synchronizer does; the RX guard).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from fabnic_tb.runner import run

try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import ARP, Ether
    from scapy.packet import Raw
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

HERE = Path(__file__).parent


def make_frames(rng: random.Random, count: int, keep_w: int) -> list[bytes]:
    frames = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.2:
            frames.append(bytes(Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff")
                                / ARP(pdst=f"10.0.0.{rng.randrange(1, 255)}")))
        elif kind < 0.5:
            payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))
            frames.append(bytes(Ether(src="02:00:00:00:00:02", dst="02:00:00:00:00:03")
                                / IP(src="10.0.0.1", dst="10.0.0.2")
                                / UDP(sport=rng.randrange(1, 65536), dport=4791)
                                / Raw(payload)))
        elif kind < 0.6:
            n = keep_w * rng.randrange(1, 5)   # exact multiples of the beat
            frames.append(bytes(rng.getrandbits(8) for _ in range(n)))
        elif kind < 0.7:
            n = rng.randrange(1, keep_w + 1)   # single beats, short ones padded
            frames.append(bytes(rng.getrandbits(8) for _ in range(n)))
        else:
            n = rng.randrange(1, 5 * keep_w)
            frames.append(bytes(rng.getrandbits(8) for _ in range(n)))
    return frames


def to_beats(rng: random.Random, frame: bytes, keep_w: int, user_w: int):
    """Input beats (data, keep, last, user), random garbage outside tkeep."""
    beats = []
    for off in range(0, len(frame), keep_w):
        chunk = frame[off:off + keep_w]
        data = int.from_bytes(chunk, "little")
        data |= rng.getrandbits(8 * (keep_w - len(chunk))) << (8 * len(chunk))
        keep = (1 << len(chunk)) - 1
        beats.append((data, keep, int(off + keep_w >= len(frame)), rng.getrandbits(user_w)))
    return beats


class GuardModel:
    """The guard's documented rules, fed cycle by cycle with what the bench drove."""

    def __init__(self, keep_w: int, user_w: int, min_bytes: int):
        self.keep_w, self.user_w, self.min_bytes = keep_w, user_w, min_bytes
        self.cur: dict | None = None        # the input frame in progress
        self.close_pending: list | None = None
        self.expected: list[list[tuple]] = []
        self.drops = 0
        self.stats = {"whole": 0, "padded": 0, "lost_flush": 0, "lost_block": 0,
                      "closed": 0, "abort_lost": 0, "close_moot": 0}

    def out_beat(self, beat, first: bool):
        data, keep, last, user = beat
        if self.min_bytes:
            if first and last and keep.bit_length() < self.min_bytes:
                keep = (1 << self.min_bytes) - 1
                self.stats["padded"] += 1
            data &= sum(0xFF << (8 * i) for i in range(self.keep_w) if beat[1] >> i & 1)
        return (data, keep, last, user)

    def step(self, flush: bool, block: bool, abort: bool, beat, taken: bool, m_ready: bool):
        """One cycle. `beat` is the input beat shown (or None), `taken` its handshake."""
        # the closing beat of an earlier abort leaves when the sink takes it
        if self.close_pending is not None:
            if flush:
                self.close_pending = None
                self.stats["close_moot"] += 1
            elif m_ready:
                self.expected.append(self.close_pending)
                self.close_pending = None
        if abort:
            cur = self.cur
            if cur is not None and not cur["lost"]:
                self.drops += 1
                if not flush:
                    self.close_pending = cur["beats"] + [
                        (0, 1, 1, (1 << self.user_w) - 1)]
                    self.stats["closed"] += 1
                else:
                    self.stats["abort_lost"] += 1
            self.cur = None
            return
        if taken:
            first = self.cur is None
            if first:
                self.cur = {"beats": [], "lost": False}
                if flush or block:
                    self.cur["lost"] = True
                    self.drops += 1
                    self.stats["lost_flush" if flush else "lost_block"] += 1
            elif not self.cur["lost"] and flush:
                self.cur["lost"] = True
                self.drops += 1
                self.stats["lost_flush"] += 1
            if not self.cur["lost"]:
                ob = self.out_beat(beat, first)
                self.cur["beats"].append((ob[0], ob[1], 0, ob[3]))
            if beat[2]:
                if not self.cur["lost"]:
                    b = self.cur["beats"]
                    b[-1] = (b[-1][0], b[-1][1], 1, b[-1][3])
                    self.expected.append(b)
                    self.stats["whole"] += 1
                self.cur = None
        elif self.cur is not None and not self.cur["lost"] and flush:
            self.cur["lost"] = True
            self.drops += 1
            self.stats["lost_flush"] += 1


if cocotb is not None:

    @cocotb.test()
    async def frames_across_faults(dut):
        mode = os.environ.get("GUARD_MODE", "bp")
        nobp = mode == "nobp"
        keep_w = len(dut.s_axis_tkeep)
        user_w = len(dut.s_axis_tuser)
        min_bytes = int(dut.MIN_BYTES.value)
        rng = random.Random(keep_w * 1000 + min_bytes * 10 + int(nobp))
        Clock(dut.clk, 4, unit="ns").start()

        for s in ("flush", "block", "src_abort", "s_axis_tvalid", "s_axis_tlast",
                  "s_axis_tdata", "s_axis_tkeep", "s_axis_tuser"):
            getattr(dut, s).value = 0
        dut.m_axis_tready.value = 1
        dut.rst.value = 1
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0

        model = GuardModel(keep_w, user_w, min_bytes)
        frames = [to_beats(rng, f, keep_w, user_w)
                  for f in make_frames(rng, 1500, keep_w)]
        fi, bi = 0, 0              # frame, beat of the source
        showing = False            # the source shows beat bi of frame fi
        gap = 0
        flush_left = abort_left = 0
        flush_next = False
        block = 0
        sink_partial: list[tuple] = []
        received: list[list[tuple]] = []
        drops = 0
        cycle = 0
        quiet = 0
        while quiet < 12:
            await FallingEdge(dut.clk)
            cycle += 1
            assert cycle < 200_000
            faults = fi < len(frames) - 20
            # ---- faults for this cycle
            if flush_next:
                flush_left, flush_next = max(flush_left, rng.randint(1, 3)), False
            if faults and abort_left == 0 and rng.random() < 0.01:
                abort_left = rng.randint(2, 4) if nobp else rng.randint(1, 3)
                # now and then a sink reset with the abort or in the next cycle
                r = rng.random()
                if r < 0.15:
                    flush_left = max(flush_left, rng.randint(1, 3))
                elif r < 0.3:
                    flush_next = True
                if bi > 0 or showing:       # the source restarts and abandons its frame
                    fi, bi, showing = fi + 1, 0, False
            abort = abort_left > 0
            abort_left = max(abort_left - 1, 0)
            if faults and flush_left == 0 and rng.random() < 0.008:
                flush_left = rng.randint(1, 6)
            flush = flush_left > 0
            flush_left = max(flush_left - 1, 0)
            if faults and rng.random() < (0.03 if block else 0.006):
                block ^= 1
            if not faults:
                block = 0
            # ---- the source's beat
            beat = None
            if abort:
                if rng.random() < 0.5:     # garbage while the source is in reset
                    beat = (rng.getrandbits(8 * keep_w), rng.getrandbits(keep_w),
                            rng.getrandbits(1), rng.getrandbits(user_w))
            else:
                if not showing and fi < len(frames):
                    if gap:
                        gap -= 1
                    else:
                        showing = True
                if showing:
                    beat = frames[fi][bi]
            m_ready = 1 if nobp else int(rng.random() > 0.3)
            dut.flush.value = int(flush)
            dut.block.value = block
            dut.src_abort.value = int(abort)
            dut.s_axis_tvalid.value = int(beat is not None)
            if beat is not None:
                dut.s_axis_tdata.value = beat[0]
                dut.s_axis_tkeep.value = beat[1]
                dut.s_axis_tlast.value = beat[2]
                dut.s_axis_tuser.value = beat[3]
            dut.m_axis_tready.value = m_ready
            await ReadOnly()
            s_ready = int(dut.s_axis_tready.value)
            m_valid = int(dut.m_axis_tvalid.value)
            drops += int(dut.drop.value)
            if flush:
                assert s_ready == 1, f"cycle {cycle}: tready low while flush"
                assert m_valid == 0, f"cycle {cycle}: output beat while flush"
            if nobp and beat is not None and not abort:
                assert s_ready == 1, f"cycle {cycle}: a source without back-pressure lost a beat"
            taken = beat is not None and (nobp or s_ready == 1)
            model.step(flush, bool(block), abort, beat, taken, bool(m_ready))
            if taken and not abort:
                showing = False
                gap = rng.choice([0, 0, 0, 0, 1, 2, 5])
                if beat[2]:
                    fi, bi = fi + 1, 0
                else:
                    bi += 1
            # ---- the sink: held in reset by flush, loses its partial frame
            if flush:
                sink_partial = []
            elif m_valid and m_ready:
                out = (int(dut.m_axis_tdata.value), int(dut.m_axis_tkeep.value),
                       int(dut.m_axis_tlast.value), int(dut.m_axis_tuser.value))
                sink_partial.append(out)
                if out[2]:
                    received.append(sink_partial)
                    sink_partial = []
            done = (fi >= len(frames) and not abort and not flush and not m_valid
                    and not flush_next)
            quiet = quiet + 1 if done else 0

        dut._log.info("cycles %d, frames %d, model %s, drops %d", cycle, len(frames),
                      model.stats, model.drops)
        assert model.close_pending is None and not sink_partial
        assert len(received) == len(model.expected), (len(received), len(model.expected))
        for i, (got, exp) in enumerate(zip(received, model.expected, strict=True)):
            assert got == exp, f"frame {i}: got {len(got)} beats {got!r}, expected {exp!r}"
        assert drops == model.drops, (drops, model.drops)
        st = model.stats
        assert st["whole"] > 150 and st["lost_flush"] > 5 and st["closed"] > 3, st
        assert st["lost_block"] > 5 and (st["padded"] > 20 or not min_bytes), st
        assert st["abort_lost"] > 0 and st["close_moot"] > 0, st


@pytest.mark.parametrize("cfg", ["tx512_pad60_bp", "rx512_nobp", "w64_pad8_bp"])
def test_u250_frame_guard(cfg: str) -> None:
    params, mode = {
        "tx512_pad60_bp": ({"DATA_W": 512, "USER_W": 1, "MIN_BYTES": 60}, "bp"),
        "rx512_nobp": ({"DATA_W": 512, "USER_W": 1, "MIN_BYTES": 0}, "nobp"),
        "w64_pad8_bp": ({"DATA_W": 64, "USER_W": 2, "MIN_BYTES": 8}, "bp"),
    }[cfg]
    run(toplevel="fabnic_u250_frame_guard", module="test_u250_frame_guard", test_dir=HERE,
        parameters=params, extra_env={"GUARD_MODE": mode})
