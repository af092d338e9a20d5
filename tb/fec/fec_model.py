# SPDX-License-Identifier: Apache-2.0
"""Reference model of the fabnic packet FEC (docs/fec.md), written from the spec.

GF(2^8) with primitive polynomial 0x11D, built from exp/log tables (generator 2).
Generator matrix: G[r][i] = y_i / (y_i + x_r), x_r = r, y_i = i + 4 (a Cauchy
matrix with its columns scaled so that row 0 is all ones = XOR parity).

The decoder solves the erasure system by Gaussian elimination with row pivoting
over the received packets; it does not mirror the RTL's syndrome datapath.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POLY = 0x11D

EXP = np.zeros(512, dtype=np.uint8)
LOG = np.zeros(256, dtype=np.int32)
_x = 1
for _e in range(255):
    EXP[_e] = _x
    LOG[_x] = _e
    _x <<= 1
    if _x & 0x100:
        _x ^= POLY
EXP[255:510] = EXP[0:255]


def gf_mul(a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
    """Element-wise GF(2^8) product (numpy broadcasting)."""
    a = np.asarray(a, dtype=np.int32)
    b = np.asarray(b, dtype=np.int32)
    prod = EXP[(LOG[a] + LOG[b]) % 255]
    return np.where((a == 0) | (b == 0), 0, prod).astype(np.uint8)


def gf_inv(a: int) -> int:
    if a == 0:
        raise ZeroDivisionError("GF inverse of 0")
    return int(EXP[(255 - LOG[a]) % 255])


def coef(r: int, i: int) -> int:
    y = i + 4
    return int(gf_mul(y, gf_inv(y ^ r)))


def gen_matrix(k: int, r: int) -> np.ndarray:
    return np.array([[coef(row, i) for i in range(k)] for row in range(r)], dtype=np.uint8)


def _pad(data: bytes, n: int) -> np.ndarray:
    return np.frombuffer(data.ljust(n, b"\0"), dtype=np.uint8)


def _len_bytes(n: int) -> np.ndarray:
    return np.array([n >> 8, n & 0xFF], dtype=np.uint8)


@dataclass
class Repair:
    gid: int
    row: int
    cnt: int        # data packets in the group
    coded_len: int  # 16-bit coded length field
    payload: bytes  # length = longest data payload of the group


def encode_group(payloads: list[bytes], r: int, gid: int = 0) -> list[Repair]:
    """R repair packets of one group (payloads zero-padded to the longest)."""
    n = max(len(p) for p in payloads)
    g = gen_matrix(len(payloads), r)
    out = []
    for row in range(r):
        acc = np.zeros(n, dtype=np.uint8)
        lacc = np.zeros(2, dtype=np.uint8)
        for i, p in enumerate(payloads):
            acc ^= gf_mul(g[row, i], _pad(p, n))
            lacc ^= gf_mul(g[row, i], _len_bytes(len(p)))
        out.append(Repair(gid, row, len(payloads), (int(lacc[0]) << 8) | int(lacc[1]),
                          acc.tobytes()))
    return out


def assign(n: int, k: int, d: int) -> tuple[int, int]:
    """Group id and index of the n-th data packet (no flush): K*D packets per block,
    round-robin over the D groups of a block."""
    block, j = divmod(n, k * d)
    return block * d + j % d, j // d


@dataclass
class WirePacket:
    is_repair: bool
    gid: int
    idx: int       # data index or repair row
    cnt: int
    coded_len: int
    payload: bytes


def encode_stream(payloads: list[bytes], k: int, r: int, d: int) -> list[WirePacket]:
    """Wire order: data packets in order, each block's repairs (group by group,
    row by row) right after the block's last data packet. The last block may be
    partial (as after a flush): its groups then have fewer than K packets."""
    out: list[WirePacket] = []
    groups: dict[int, list[bytes]] = {}
    for n, p in enumerate(payloads):
        gid, idx = assign(n, k, d)
        groups.setdefault(gid, []).append(p)
        out.append(WirePacket(False, gid, idx, k, 0, p))
        if (n + 1) % (k * d) == 0 or n + 1 == len(payloads):
            base = (n // (k * d)) * d
            for g in range(base, base + d):
                if g in groups:
                    for rep in encode_group(groups.pop(g), r, g):
                        out.append(WirePacket(True, g, rep.row, rep.cnt, rep.coded_len,
                                              rep.payload))
    return out


def gf_solve(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Solve a @ x = b over GF(2^8) (a: n x n, b: n x m) by Gaussian elimination."""
    a = a.copy().astype(np.uint8)
    b = b.copy().astype(np.uint8)
    n = a.shape[0]
    for c in range(n):
        piv = next((i for i in range(c, n) if a[i, c]), None)
        if piv is None:
            return None
        a[[c, piv]] = a[[piv, c]]
        b[[c, piv]] = b[[piv, c]]
        inv = gf_inv(int(a[c, c]))
        a[c] = gf_mul(a[c], inv)
        b[c] = gf_mul(b[c], inv)
        for i in range(n):
            if i != c and a[i, c]:
                f = int(a[i, c])
                a[i] ^= gf_mul(a[c], f)
                b[i] ^= gf_mul(b[c], f)
    return b


def decode_group(k: int, data: dict[int, bytes], repairs: dict[int, tuple[int, bytes]]
                 ) -> dict[int, bytes] | None:
    """Missing data payloads of a group from the received data packets (index ->
    payload) and repairs (row -> (coded_len, payload)); None if not recoverable."""
    missing = [i for i in range(k) if i not in data]
    if not missing:
        return {}
    if len(missing) > len(repairs):
        return None
    rows = sorted(repairs)[:len(missing)]
    n = max(len(repairs[r][1]) for r in rows)
    g = gen_matrix(k, 4)
    # unknowns: [len_hi, len_lo, payload...] of each missing packet
    rhs = np.zeros((len(rows), n + 2), dtype=np.uint8)
    for q, r in enumerate(rows):
        cl, pay = repairs[r]
        rhs[q] = np.concatenate([_len_bytes(cl), _pad(pay, n)])
        for i, p in data.items():
            rhs[q] ^= gf_mul(g[r, i], np.concatenate([_len_bytes(len(p)), _pad(p, n)]))
    a = np.array([[g[r, i] for i in missing] for r in rows], dtype=np.uint8)
    x = gf_solve(a, rhs)
    if x is None:
        return None
    out = {}
    for q, i in enumerate(missing):
        length = (int(x[q, 0]) << 8) | int(x[q, 1])
        if length == 0 or length > n:
            return None
        out[i] = x[q, 2:2 + length].tobytes()
    return out
