# SPDX-License-Identifier: Apache-2.0
"""fabnic_xgmii_rx alone, at a small MAX_FRAME (100 bytes) so that the length
limits are cheap to reach: every frame length around the runt limit (64) and
around MAX_FRAME, on both start lanes (0 and 4), with bad FCS, /E/ inside the
frame, bad preambles and gaps of 5..16 bytes (a /S/ in the column of the /T/).

Expected results come from a Python model of the frame rules (zlib CRC, length
limits, reason priority xgmii_err > oversize > runt > bad_fcs), not from the
DUT: good frames must come out exactly (FCS stripped, tuser 0), every other
delivered frame must end with tuser 1, and each counter must match.
"""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

MAX_FRAME = 100
XG_IDLE, XG_START, XG_TERM, XG_ERROR = 0x07, 0xFB, 0xFD, 0xFE


def build(rng: random.Random, n_frames: int):
    """Byte stream [(byte, ctrl)] and the model's expectations."""
    stream: list[tuple[int, int]] = [(XG_IDLE, 1)] * 8
    good: list[bytes] = []
    counts = dict(frames=0, bytes=0, xerr=0, over=0, runt=0, fcs=0, framing=0)
    lengths = list(range(56, 72)) + list(range(MAX_FRAME - 12, MAX_FRAME + 12))
    for i in range(n_frames):
        n = rng.choice(lengths) if rng.random() < 0.8 else rng.randint(20, 140)  # DA..FCS
        body = bytes([i & 0xFF]) + bytes(rng.getrandbits(8) for _ in range(n - 5))
        wire = bytearray(body + struct.pack("<L", zlib.crc32(body)))
        kind = rng.choices(["good", "fcs", "xerr", "framing"], [6, 1, 1, 1])[0]
        ctrl = [0] * len(wire)
        if kind == "fcs":
            wire[rng.randrange(len(wire))] ^= 1 << rng.randrange(8)
        elif kind == "xerr":
            k = rng.randrange(len(wire))
            wire[k] = XG_ERROR
            ctrl[k] = 1
        # start on an aligned position (lane 0 or 4) at least gap bytes after /T/
        gap = rng.randint(5, 16)
        pos = len(stream) + gap
        pos += (-pos) % 4
        stream.extend([(XG_IDLE, 1)] * (pos - len(stream)))
        pre = [(XG_START, 1)] + [(0x55, 0)] * 6 + [(0xD5, 0)]
        if kind == "framing":
            pre[rng.randrange(1, 8)] = (0x54, 0)
        stream.extend(pre)
        stream.extend(zip(wire, ctrl, strict=True))
        stream.append((XG_TERM, 1))
        # model
        if kind == "framing":
            counts["framing"] += 1
            continue
        if kind == "xerr":
            k = ctrl.index(1)
            # the frame ends at the /E/, unless a whole column before the one
            # holding it already passed MAX_FRAME (then it was cut there)
            if 8 * (k // 8) > MAX_FRAME:
                counts["over"] += 1
            else:
                counts["xerr"] += 1
            continue
        ok = zlib.crc32(bytes(wire[:-4])) == struct.unpack("<L", bytes(wire[-4:]))[0]
        if n > MAX_FRAME:
            counts["over"] += 1
        elif n < 64:
            counts["runt"] += 1
        elif not ok:
            counts["fcs"] += 1
        else:
            counts["frames"] += 1
            counts["bytes"] += n
            good.append(bytes(wire[:-4]))
    stream.extend([(XG_IDLE, 1)] * ((-len(stream)) % 8 + 32))
    cols = []
    for c0 in range(0, len(stream), 8):
        d = c = 0
        for lane, (b, ctl) in enumerate(stream[c0:c0 + 8]):
            d |= b << (8 * lane)
            c |= ctl << lane
        cols.append((d, c))
    return cols, good, counts


if cocotb is not None:

    @cocotb.test()
    async def rx_model(dut):
        dut.xgmii_rxd.value = 0x0707070707070707
        dut.xgmii_rxc.value = 0xFF
        await start_clock_reset(dut, period_ns=6.4)
        rng = random.Random(21)
        cols, good, counts = build(rng, 600)
        frames: list[tuple[bytes, int]] = []
        cur = bytearray()

        def sample() -> None:
            nonlocal cur
            if int(dut.m_axis_tvalid.value):
                keep = int(dut.m_axis_tkeep.value)
                data = int(dut.m_axis_tdata.value).to_bytes(8, "little")
                assert keep in (0x01, 0x03, 0x07, 0x0F, 0x1F, 0x3F, 0x7F, 0xFF), hex(keep)
                cur += data[:bin(keep).count("1")]
                if int(dut.m_axis_tlast.value):
                    frames.append((bytes(cur), int(dut.m_axis_tuser.value)))
                    cur = bytearray()
                else:
                    assert keep == 0xFF, "partial beat before the last"

        for d, c in cols:
            await RisingEdge(dut.clk)
            sample()
            dut.xgmii_rxd.value = d
            dut.xgmii_rxc.value = c
        for _ in range(20):
            await RisingEdge(dut.clk)
            sample()
        got_good = [f for f, u in frames if u == 0]
        assert got_good == good, f"{len(got_good)} good frames out, model {len(good)}"
        assert int(dut.stat_frames.value) == counts["frames"]
        assert int(dut.stat_bytes.value) == counts["bytes"]
        assert int(dut.stat_xgmii_err.value) == counts["xerr"]
        assert int(dut.stat_oversize.value) == counts["over"]
        assert int(dut.stat_runt.value) == counts["runt"]
        assert int(dut.stat_bad_fcs.value) == counts["fcs"]
        assert int(dut.stat_framing.value) == counts["framing"]
        # a bad frame may produce no beat at all, but never more than its bytes
        assert all(len(f) <= MAX_FRAME for f, _ in frames)
        dut._log.info("frames: %d good, %d bad delivered; counts %s",
                      len(got_good), len(frames) - len(got_good), counts)


def test_xgmii_rx() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_xgmii_rx", module="test_xgmii_rx",
               test_dir=Path(__file__).parent, parameters={"MAX_FRAME": MAX_FRAME})
