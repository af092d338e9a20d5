# SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the FEC tests: tuser packing and stream monitors."""

from __future__ import annotations

from dataclasses import dataclass

# tuser = {len[16], cnt[8], idx[8], gid[16], is_repair[1], bad[1]} (fabnic_fec_pkg::fec_meta_t)


@dataclass
class Meta:
    gid: int
    idx: int
    cnt: int
    length: int
    is_repair: bool
    bad: bool = False


def pack_user(m: Meta) -> int:
    return (int(m.bad) | (int(m.is_repair) << 1) | ((m.gid & 0xFFFF) << 2)
            | ((m.idx & 0xFF) << 18) | ((m.cnt & 0xFF) << 26) | ((m.length & 0xFFFF) << 34))


def unpack_user(v: int) -> Meta:
    return Meta(gid=(v >> 2) & 0xFFFF, idx=(v >> 18) & 0xFF, cnt=(v >> 26) & 0xFF,
                length=(v >> 34) & 0xFFFF, is_repair=bool((v >> 1) & 1), bad=bool(v & 1))


def frame_meta(frame) -> Meta:
    """Meta of a received cocotbext-axi frame (tuser compacted to an int or a list);
    the bad bit is taken from the last beat."""
    tu = frame.tuser
    if isinstance(tu, list):
        first, last = int(tu[0]), int(tu[-1])
        assert all((int(t) >> 1) == (first >> 1) for t in tu), "sideband changed inside a packet"
    else:
        first = last = int(tu)
    m = unpack_user(first)
    m.bad = bool(last & 1)
    return m
