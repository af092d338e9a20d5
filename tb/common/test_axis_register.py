# SPDX-License-Identifier: Apache-2.0
"""fabnic_axis_register, REG_TYPE 0/1/2 side by side (tb_axis_register.sv).

Checks: random frames with random valid/ready timing arrive intact and in order
(the reference is the list of frames sent); one beat per cycle when neither side
pauses; latency 0 (bypass) or 1 cycle; for the skid buffer, s_axis_tready does not
depend combinationally on m_axis_tready (it only changes at clock edges).
"""

from __future__ import annotations

import random
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, Timer
    from cocotbext.axi import AxiStreamFrame

    from fabnic_tb.axis import axis_sink, axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

TYPES = (0, 1, 2)


if cocotb is not None:

    @cocotb.test()
    async def register_random_frames(dut):
        await start_clock_reset(dut)
        keep_w = len(dut.r0_s_axis_tkeep)
        rng = random.Random(5)
        pairs = []
        for t in TYPES:
            src = axis_source(dut, f"r{t}_s_axis", seed=10 + t, busy=0.3)
            sink = axis_sink(dut, f"r{t}_m_axis", seed=20 + t, busy=0.4)
            pairs.append((src, sink))
        sent = []
        for _ in range(60):
            n = rng.randint(1, 6 * keep_w)
            frame = bytes(rng.getrandbits(8) for _ in range(n))
            user = rng.getrandbits(1)
            sent.append((frame, user))
            for src, _ in pairs:
                await src.send(AxiStreamFrame(frame, tuser=user))
        for t, (_src, sink) in zip(TYPES, pairs, strict=True):
            for k, (frame, user) in enumerate(sent):
                rx = await sink.recv()
                assert bytes(rx.tdata) == frame, f"REG_TYPE {t} frame {k} corrupted"
                tu = rx.tuser if isinstance(rx.tuser, int) else rx.tuser[-1]
                assert tu == user, f"REG_TYPE {t} frame {k} tuser"
            assert sink.empty()

    @cocotb.test()
    async def register_throughput_latency(dut):
        """No pauses: 64 beats leave in 64 consecutive cycles, first beat after the
        documented latency."""
        await start_clock_reset(dut)
        keep_w = len(dut.r0_s_axis_tkeep)
        nbeats = 64
        for t in TYPES:
            src = axis_source(dut, f"r{t}_s_axis")
            sink = axis_sink(dut, f"r{t}_m_axis")
            s_cycles, m_cycles = [], []
            s = getattr(dut, f"r{t}_s_axis_tvalid"), getattr(dut, f"r{t}_s_axis_tready")
            m = getattr(dut, f"r{t}_m_axis_tvalid"), getattr(dut, f"r{t}_m_axis_tready")

            async def mon(s=s, m=m, s_cycles=s_cycles, m_cycles=m_cycles):
                cyc = 0
                while True:
                    await RisingEdge(dut.clk)
                    cyc += 1
                    if int(s[0].value) and int(s[1].value):
                        s_cycles.append(cyc)
                    if int(m[0].value) and int(m[1].value):
                        m_cycles.append(cyc)

            task = cocotb.start_soon(mon())
            await src.send(AxiStreamFrame(bytes(range(256)) * (nbeats * keep_w // 256)))
            rx = await sink.recv()
            await ClockCycles(dut.clk, 2)
            task.cancel()
            assert len(bytes(rx.tdata)) == nbeats * keep_w
            assert len(m_cycles) == nbeats
            assert m_cycles[-1] - m_cycles[0] == nbeats - 1, f"REG_TYPE {t}: bubbles"
            assert s_cycles[-1] - s_cycles[0] == nbeats - 1, f"REG_TYPE {t}: input stalls"
            assert m_cycles[0] - s_cycles[0] == (0 if t == 0 else 1), f"REG_TYPE {t} latency"

    @cocotb.test()
    async def skid_ready_is_registered(dut):
        """REG_TYPE 2: toggle m_axis_tready inside a cycle, s_axis_tready must not move;
        count beats in and out: none lost or duplicated."""
        await start_clock_reset(dut)
        rng = random.Random(3)
        dut.r2_s_axis_tkeep.value = 0xFF
        dut.r2_s_axis_tlast.value = 1
        dut.r2_s_axis_tuser.value = 0
        sent, got = [], []
        seq = 0
        for _ in range(600):
            await ReadOnly()
            ready_before = int(dut.r2_s_axis_tready.value)
            await Timer(1, "ns")
            dut.r2_s_axis_tvalid.value = int(rng.random() < 0.8)
            dut.r2_s_axis_tdata.value = seq
            dut.r2_m_axis_tready.value = int(rng.random() < 0.5)
            await Timer(1, "ns")
            assert int(dut.r2_s_axis_tready.value) == ready_before
            # handshakes of this cycle, sampled before the edge
            if int(dut.r2_s_axis_tvalid.value) and ready_before:
                sent.append(seq)
                seq += 1
            if int(dut.r2_m_axis_tvalid.value) and int(dut.r2_m_axis_tready.value):
                got.append(int(dut.r2_m_axis_tdata.value))
            await RisingEdge(dut.clk)
        assert got == sent[:len(got)] and len(sent) - len(got) <= 2


def test_axis_register() -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_axis_register", module="test_axis_register", test_dir=here,
               extra_sources=[here / "tb_axis_register.sv"], parameters={"DATA_W": 64})
