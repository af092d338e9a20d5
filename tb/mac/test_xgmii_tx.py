# SPDX-License-Identifier: Apache-2.0
"""fabnic_xgmii_tx alone: cut-through underflow and tuser aborts.

A source that runs dry mid-frame (cocotbext-axi AxiStreamSource with random
pauses) must make the MAC end that frame with /E/ (seen by cocotbext-eth
XgmiiSink as a control character inside the frame), count it, discard the rest
of that frame, and carry on: every other frame leaves intact with a zlib-valid
FCS, in order.
"""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

try:
    import logging

    import cocotb
    from cocotb.triggers import ClockCycles
    from cocotbext.axi import AxiStreamFrame
    from cocotbext.eth import XgmiiSink

    from fabnic_tb.axis import axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


def wire_payload(frame: bytes) -> bytes:
    p = frame.ljust(60, b"\0")
    return p + struct.pack("<L", zlib.crc32(p))


if cocotb is not None:

    @cocotb.test()
    async def underflow_and_bad(dut):
        await start_clock_reset(dut, period_ns=6.4)
        src = axis_source(dut, "s_axis", seed=9, busy=0.05)
        sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
        sink.log.setLevel(logging.WARNING)
        rng = random.Random(1)
        sent = []
        for i in range(80):
            f = bytes([i]) + bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
            bad = i % 10 == 7
            sent.append((f, bad))
            await src.send(AxiStreamFrame(f, tuser=int(bad)))
        await src.wait()
        src.set_pause_generator(None)   # then a clean frame: the MAC must not be stuck
        last = bytes(range(100))
        sent.append((last, False))
        await src.send(AxiStreamFrame(last))
        await src.wait()
        await ClockCycles(dut.clk, 100)
        got = []
        while not sink.empty():
            got.append(sink.recv_nowait())
        assert len(got) == len(sent)
        n_good = n_under = n_bad = 0
        for fr, (f, bad) in zip(got, sent, strict=True):
            if fr.ctrl is None:
                assert not bad, "bad frame sent without /E/"
                assert bytes(fr.get_payload(strip_fcs=False)) == wire_payload(f)
                assert fr.check_fcs()
                n_good += 1
            else:
                assert fr.data[-1] == 0xFE and fr.ctrl[-1] == 1, "aborted without /E/"
                if bad:
                    n_bad += 1
                else:
                    n_under += 1
        assert n_under > 3, "the random pauses should have caused underflows"
        assert bytes(got[-1].get_payload()) == last.ljust(60, b"\0")
        assert int(dut.stat_frames.value) == n_good
        # a bad frame whose source also ran dry before its last beat counts as underflow
        assert int(dut.stat_underflow.value) + int(dut.stat_bad.value) == n_under + n_bad
        assert int(dut.stat_underflow.value) >= n_under
        assert 0 < int(dut.stat_bad.value) <= n_bad


def test_xgmii_tx() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_xgmii_tx", module="test_xgmii_tx",
               test_dir=Path(__file__).parent, parameters={})
