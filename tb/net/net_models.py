# SPDX-License-Identifier: Apache-2.0
"""Python golden models for the testbench network models (tb/sv/fabnic_tb_link.sv,
fabnic_tb_switch.sv), written from their documented behaviour (docs/tb_models.md)
and from the published formulas (Gilbert-Elliott Markov chain, RED/DCQCN ramp,
IEEE 802.1Qbb PFC frame)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(x: int) -> int:
    z = x & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def rnd(seed: int, n: int, k: int) -> int:
    """SplitMix64 output for stream position 8*n + k + 1 (fabnic_tb_net_pkg::rnd)."""
    return mix64(seed + GAMMA * (((n & 0xFFFFFFFF) << 3 | k) + 1))


def rnd32(seed: int, n: int, k: int) -> int:
    return rnd(seed, n, k) >> 32


def prob32(p: float) -> int:
    """Probability as the 32-bit threshold the models compare draws against."""
    return min(int(round(p * 2**32)), 2**32 - 1)


def fixed16(x: float) -> int:
    """Bytes per cycle as 16.16 fixed point."""
    return int(round(x * 65536))


# ----------------------------------------------------------------------------- link


@dataclass
class LinkConfig:
    seed: int = 1
    link_down: bool = False
    loss_p: int = 0          # thresholds (p * 2^32); 0 with the enable off = disabled
    loss_en: bool = False
    ge_en: bool = False
    ge_p_gb: int = 0
    ge_p_bg: int = 0
    ge_loss: int = 0
    dup_en: bool = False
    dup_p: int = 0
    reorder_en: bool = False
    reorder_p: int = 0
    biterr_en: bool = False
    biterr_p: int = 0
    drop_list: list[int] = field(default_factory=list)


@dataclass
class Fate:
    index: int
    drop: str | None = None   # "down", "list", "ge", "loss"
    dup: bool = False
    hold: bool = False
    flip_bit: int | None = None   # absolute bit position (byte = bit // 8, LSB first)
    ge_bad: bool = False


class LinkModel:
    """Per-frame fault decisions of fabnic_tb_link (stateless draws + GE state)."""

    def __init__(self, cfg: LinkConfig) -> None:
        self.cfg = cfg
        self.ge_bad = False
        self.n = 0

    def fate(self, length: int) -> Fate:
        c, n = self.cfg, self.n
        self.n += 1
        f = Fate(n)
        if c.ge_en:
            u = rnd32(c.seed, n, 1)
            self.ge_bad = (u >= c.ge_p_bg) if self.ge_bad else (u < c.ge_p_gb)
        f.ge_bad = c.ge_en and self.ge_bad
        ge_drop = f.ge_bad and rnd32(c.seed, n, 2) < c.ge_loss
        loss = c.loss_en and rnd32(c.seed, n, 0) < c.loss_p
        if c.link_down:
            f.drop = "down"
        elif n in c.drop_list:
            f.drop = "list"
        elif ge_drop:
            f.drop = "ge"
        elif loss:
            f.drop = "loss"
        if f.drop is not None:
            return f
        f.dup = c.dup_en and rnd32(c.seed, n, 3) < c.dup_p
        f.hold = c.reorder_en and rnd32(c.seed, n, 4) < c.reorder_p
        if c.biterr_en and length > 14 and rnd32(c.seed, n, 5) < c.biterr_p:
            f.flip_bit = 112 + rnd32(c.seed, n, 6) % (length * 8 - 112)
        return f


def link_output(frames: list[bytes], model: LinkModel) -> tuple[list[bytes], list[Fate]]:
    """Frames a link delivers, in order, for ``frames`` entering it back to back
    (the held frame is released after the next delivered frame or at the end)."""
    out: list[bytes] = []
    fates: list[Fate] = []
    held: tuple[bytes, Fate] | None = None

    def emit(data: bytes, f: Fate) -> None:
        if f.flip_bit is not None:
            b = bytearray(data)
            b[f.flip_bit // 8] ^= 1 << (f.flip_bit % 8)
            data = bytes(b)
        out.extend([data] * (2 if f.dup else 1))

    for data in frames:
        f = model.fate(len(data))
        fates.append(f)
        if f.drop is not None:
            continue
        if f.hold and held is None:
            held = (data, f)
            continue
        emit(data, f)
        if held is not None:
            emit(*held)
            held = None
    if held is not None:
        emit(*held)
    return out, fates


def ge_expected(p_gb: float, p_bg: float, h: float) -> tuple[float, float]:
    """Gilbert-Elliott chain: stationary loss rate and mean loss-burst length (h = 1)."""
    pi_bad = p_gb / (p_gb + p_bg)
    return pi_bad * h, 1.0 / p_bg


def runs_of_losses(lost: list[bool]) -> list[int]:
    runs, cur = [], 0
    for x in lost:
        if x:
            cur += 1
        elif cur:
            runs.append(cur)
            cur = 0
    if cur:
        runs.append(cur)
    return runs


def unwrap_indices(low_bytes: list[int]) -> list[int]:
    """Frame indices from their low 8 bits (frames arrive in order, gaps < 256)."""
    out, base, last = [], 0, -1
    for b in low_bytes:
        idx = base + b
        while idx <= last:
            idx += 256
        base = idx - b
        out.append(idx)
        last = idx
    return out


# ----------------------------------------------------------------------------- switch


def red_probability(q: float, kmin: float, kmax: float, pmax: float) -> float:
    """DCQCN/RED marking probability at queue length q (bytes)."""
    if q <= kmin:
        return 0.0
    if q >= kmax:
        return 1.0
    return pmax * (q - kmin) / (kmax - kmin)


def ipv4_checksum(hdr: bytes) -> int:
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def pfc_frame(src_mac: bytes, priority: int, quanta: int) -> bytes:
    """IEEE 802.1Qbb PFC frame (no FCS), padded to 60 bytes, written from the spec:
    DA 01-80-C2-00-00-01, EtherType 0x8808, opcode 0x0101, class-enable vector,
    eight 16-bit pause times."""
    times = [0] * 8
    times[priority] = quanta
    body = (b"\x01\x01" + (1 << priority).to_bytes(2, "big")
            + b"".join(t.to_bytes(2, "big") for t in times))
    frame = bytes.fromhex("0180c2000001") + src_mac + b"\x88\x08" + body
    return frame + bytes(60 - len(frame))


def binomial_ok(k: int, n: int, p: float, sigmas: float = 4.5) -> bool:
    """k successes of n trials compatible with probability p (normal approximation
    plus a 1-count slack for tiny expectations)."""
    mu = n * p
    sd = math.sqrt(max(n * p * (1 - p), 1e-12))
    return abs(k - mu) <= sigmas * sd + 1
