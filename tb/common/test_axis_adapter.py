# SPDX-License-Identifier: Apache-2.0
"""fabnic_axis_adapter: upsizer, downsizer and passthrough side by side (tb_axis_adapter.sv).

Reference: the frames sent (bytes and tuser). A monitor on each output checks the
beat structure against the AXIS convention computed from the frame length alone:
ceil(len / M_KEEP_W) beats, tkeep all ones except the last beat, whose tkeep is
the contiguous mask of the remaining bytes, tlast only on that beat. Throughput:
with no pauses, the narrow side moves one beat per cycle.
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

PORTS = ("up", "dn", "ps")


def expected_beats(length: int, keep_w: int) -> list[tuple[int, int]]:
    """(tkeep, tlast) of each output beat of a frame of ``length`` bytes."""
    beats = []
    left = length
    while left > 0:
        n = min(left, keep_w)
        left -= n
        beats.append(((1 << n) - 1, int(left == 0)))
    return beats


if cocotb is not None:

    class BeatMonitor:
        """Records (tkeep, tlast, tuser, cycle) of every output handshake."""

        def __init__(self, dut, prefix: str) -> None:
            self.sig = {f: getattr(dut, f"{prefix}_{f}") for f in
                        ("tvalid", "tready", "tkeep", "tlast", "tuser")}
            self.beats: list[tuple[int, int, int, int]] = []
            self.clk = dut.clk
            cocotb.start_soon(self._run())

        async def _run(self) -> None:
            cyc = 0
            while True:
                await RisingEdge(self.clk)
                cyc += 1
                s = self.sig
                if int(s["tvalid"].value) and int(s["tready"].value):
                    self.beats.append((int(s["tkeep"].value), int(s["tlast"].value),
                                       int(s["tuser"].value), cyc))

    @cocotb.test()
    async def adapter_random_frames(dut):
        await start_clock_reset(dut)
        rng = random.Random(17)
        for i, p in enumerate(PORTS):
            src = axis_source(dut, f"{p}_s_axis", seed=30 + i, busy=0.3)
            sink = axis_sink(dut, f"{p}_m_axis", seed=40 + i, busy=0.3)
            mon = BeatMonitor(dut, f"{p}_m_axis")
            m_keep_w = len(getattr(dut, f"{p}_m_axis_tkeep"))
            s_keep_w = len(getattr(dut, f"{p}_s_axis_tkeep"))
            wide = max(m_keep_w, s_keep_w)
            # every length around the width boundaries, then random ones
            lengths = list(range(1, 2 * wide + 2)) if wide <= 64 else list(range(1, 70))
            lengths += [wide * k + d for k in (1, 2, 3) for d in (-1, 0, 1)]
            lengths += [rng.randint(1, 9 * wide) for _ in range(20)]
            sent = []
            for n in lengths:
                frame = bytes(rng.getrandbits(8) for _ in range(n))
                user = int(rng.random() < 0.3)
                sent.append((frame, user))
                await src.send(AxiStreamFrame(frame, tuser=user))
            for k, (frame, _user) in enumerate(sent):
                rx = await sink.recv()
                assert bytes(rx.tdata) == frame, f"{p}: frame {k} ({len(frame)} B) corrupted"
            await ClockCycles(dut.clk, 4)
            exp = []
            exp_user = []
            for frame, user in sent:
                eb = expected_beats(len(frame), m_keep_w)
                exp += eb
                exp_user.append(user)
            got = [(kp, last) for kp, last, _, _ in mon.beats]
            assert got == exp, f"{p}: beat structure differs"
            last_users = [u for _, last, u, _ in mon.beats if last]
            assert last_users == exp_user, f"{p}: tuser on last beats"

    @cocotb.test()
    async def adapter_throughput(dut):
        """No pauses, a long frame: the narrow side transfers one beat every cycle."""
        await start_clock_reset(dut)
        for p in PORTS:
            src = axis_source(dut, f"{p}_s_axis")
            sink = axis_sink(dut, f"{p}_m_axis")
            s_keep_w = len(getattr(dut, f"{p}_s_axis_tkeep"))
            m_keep_w = len(getattr(dut, f"{p}_m_axis_tkeep"))
            narrow_prefix = f"{p}_s_axis" if s_keep_w <= m_keep_w else f"{p}_m_axis"
            mon = BeatMonitor(dut, narrow_prefix)
            nbytes = 64 * max(s_keep_w, m_keep_w)
            await src.send(AxiStreamFrame(bytes(i & 0xFF for i in range(nbytes))))
            rx = await sink.recv()
            assert len(bytes(rx.tdata)) == nbytes
            cycles = [c for *_, c in mon.beats]
            nbeats = nbytes // min(s_keep_w, m_keep_w)
            assert len(cycles) == nbeats
            assert cycles[-1] - cycles[0] == nbeats - 1, f"{p}: narrow side stalled"


CONFIGS = [
    dict(UP_S_W=64, UP_M_W=512, DN_S_W=512, DN_M_W=64, PS_W=64),
    dict(UP_S_W=32, UP_M_W=128, DN_S_W=256, DN_M_W=64, PS_W=512),
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: f"up{p['UP_S_W']}_{p['UP_M_W']}")
def test_axis_adapter(params: dict) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_axis_adapter", module="test_axis_adapter", test_dir=here,
               extra_sources=[here / "tb_axis_adapter.sv"], parameters=params)
