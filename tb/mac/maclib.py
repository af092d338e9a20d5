# SPDX-License-Identifier: Apache-2.0
"""Shared testbench pieces for the MAC tests: a packed multi-queue AXIS driver,
an XGMII wire monitor (frame start/end positions for IFG checks), and scapy
builders for PFC / PAUSE frames (IEEE 802.1Qbb / 802.3x layouts)."""

from __future__ import annotations

import random
import struct
import zlib
from dataclasses import dataclass, field

from cocotb.triggers import RisingEdge
from scapy.all import Ether, raw
from scapy.contrib.mac_control import MACControlClassBasedFlowControl, MACControlPause

from fabnic_tb.axis import PackedSource

XG_IDLE, XG_START, XG_TERM, XG_ERROR = 0x07, 0xFB, 0xFD, 0xFE
PFC_DA = "01:80:c2:00:00:01"


def pfc_frame(quanta: dict[int, int], src: str = "02:00:00:00:00:aa") -> bytes:
    """PFC frame (no FCS, padded to 60 bytes by scapy) enabling the given priorities."""
    kw: dict[str, int] = {}
    for p, q in quanta.items():
        kw[f"c{p}_enabled"] = 1
        kw[f"c{p}_pause_time"] = q
    return raw(Ether(dst=PFC_DA, src=src) / MACControlClassBasedFlowControl(**kw))


def pause_frame(quanta: int, src: str = "02:00:00:00:00:aa") -> bytes:
    return raw(Ether(dst=PFC_DA, src=src) / MACControlPause(pause_time=quanta))


PrioSource = PackedSource  # shared driver lives in fabnic_tb.axis


@dataclass
class WireFrame:
    start_cycle: int
    start_byte: int                    # byte position of /S/ on the wire
    end_byte: int = -1                 # byte position of /T/ (or the ending control)
    end_cycle: int = -1
    data: bytearray = field(default_factory=bytearray)  # bytes after /S/ (preamble...FCS)
    ended_by: int = -1


class XgmiiMonitor:
    """Watches a 64-bit XGMII bus every cycle; records each frame's /S/ and /T/
    byte positions (8 bytes per cycle) and contents, plus optional per-cycle
    samples of other signals."""

    def __init__(self, dut, d, c, watch=None):
        self.dut = dut
        self.d = d
        self.c = c
        self.cycle = 0
        self.frames: list[WireFrame] = []
        self.cur: WireFrame | None = None
        self.watch = watch or {}
        self.samples: dict[str, list[int]] = {k: [] for k in self.watch}

    async def run(self) -> None:
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle += 1
            for k, sig in self.watch.items():
                self.samples[k].append(int(sig.value))
            dv = int(self.d.value)
            cv = int(self.c.value)
            if cv == 0xFF and self.cur is None:
                continue
            for lane in range(8):
                b = (dv >> (8 * lane)) & 0xFF
                ctl = (cv >> lane) & 1
                pos = 8 * self.cycle + lane
                if self.cur is None:
                    if ctl and b == XG_START:
                        self.cur = WireFrame(self.cycle, pos)
                elif ctl:
                    self.cur.end_byte = pos
                    self.cur.end_cycle = self.cycle
                    self.cur.ended_by = b
                    self.frames.append(self.cur)
                    self.cur = None
                else:
                    self.cur.data.append(b)

    def gaps(self) -> list[int]:
        """IFG in bytes between consecutive frames: from /T/ (included) to /S/ (excluded)."""
        return [b.start_byte - a.end_byte for a, b in zip(self.frames, self.frames[1:], strict=False)]


def check_dic(gaps: list[int], limit: int = 3) -> None:
    """IEEE 802.3 clause 46 deficit idle count: every gap >= 12 - limit and no run of
    consecutive gaps may be short of 12 bytes each by more than `limit` in total."""
    for i, g in enumerate(gaps):
        assert g >= 12 - limit, f"gap {i} is {g} bytes"
    for i in range(len(gaps)):
        s = 0
        for g in gaps[i:]:
            s += g - 12
            assert s >= -limit, f"deficit exceeds {limit} from gap {i}: {gaps[i:i + 8]}"
            if s >= 0:
                break


def xgmii_columns(frames: list[bytes], ifg: int = 12, dic: bool = True,
                  rng: random.Random | None = None, max_extra: int = 0) -> list[tuple[int, int]]:
    """64-bit XGMII (data, ctrl) columns for frames (FCS appended here) sent back to back.

    /S/ goes on lane 0 or 4. With ``dic`` the gap follows the IEEE 802.3 clause 46
    deficit idle count (average ``ifg``, never below ifg - 3); without it each gap is the
    first aligned position >= ``ifg`` bytes after /T/ (plus 0..max_extra random bytes)."""
    stream: list[tuple[int, int]] = []   # (byte, ctrl)
    deficit = 0
    for f in frames:
        if stream:
            t_pos = len(stream)
            stream.append((XG_TERM, 1))
            earliest = t_pos + ifg + (rng.randint(0, max_extra) if rng and max_extra else 0)
            down = earliest - earliest % 4
            short = earliest - down
            if short == 0:
                s_pos = earliest
            elif dic and deficit + short <= 3:
                s_pos = down
                deficit += short
            else:
                s_pos = down + 4
                deficit = max(deficit - (4 - short), 0)
            stream.extend([(XG_IDLE, 1)] * (s_pos - len(stream)))
        wire = f + struct.pack("<L", zlib.crc32(f))
        stream.append((XG_START, 1))
        stream.extend((0x55, 0) for _ in range(6))
        stream.append((0xD5, 0))
        stream.extend((b, 0) for b in wire)
    if stream:
        stream.append((XG_TERM, 1))
    stream.extend([(XG_IDLE, 1)] * ((-len(stream)) % 8 + 16))
    cols = []
    for i in range(0, len(stream), 8):
        d = c = 0
        for lane, (b, ctl) in enumerate(stream[i:i + 8]):
            d |= b << (8 * lane)
            c |= ctl << lane
        cols.append((d, c))
    return cols
