# SPDX-License-Identifier: Apache-2.0
"""Golden models for the VTEP, written from docs/vxlan.md and RFC 7348: the MAC-table
set hash, the table itself (a dict per set), the encap flow hash / UDP source port,
and the packing of the command values and sidebands."""

from __future__ import annotations

ACT_NONE, ACT_LOCAL, ACT_UPLINK, ACT_ROCE = 0, 1, 2, 3
OP_ADD, OP_DEL, OP_READ = 0, 1, 2
TBL_MAC, TBL_VNI, TBL_TUN = 0, 1, 2
ST_OK, ST_FULL, ST_NOT_FOUND, ST_BAD_CMD = 0, 1, 2, 3


def mac_key(vni: int, mac: int) -> int:
    return (vni << 48) | mac


def set_of(key: int, sets: int) -> int:
    """XOR of the 72-bit key's log2(sets)-bit chunks, from bit 0."""
    w = max(1, (sets - 1).bit_length())
    h = 0
    for i in range(0, 72, w):
        h ^= (key >> i) & ((1 << w) - 1)
    return h


class MacTable:
    """Expected MAC-table behaviour: WAYS entries per set, no eviction."""

    def __init__(self, entries: int, ways: int):
        self.sets = entries // ways
        self.ways = ways
        self.d: dict[int, tuple[int, int]] = {}

    def add(self, key: int, act: int, idx: int) -> int:
        if key in self.d:
            self.d[key] = (act, idx)
            return ST_OK
        s = set_of(key, self.sets)
        if sum(1 for k in self.d if set_of(k, self.sets) == s) >= self.ways:
            return ST_FULL
        self.d[key] = (act, idx)
        return ST_OK

    def delete(self, key: int) -> int:
        return ST_OK if self.d.pop(key, None) is not None else ST_NOT_FOUND

    def get(self, key: int) -> tuple[int, int] | None:
        return self.d.get(key)


def mac_value(act: int, idx: int) -> int:
    return (act << 16) | idx


def vni_value(tun: int, queues: list[int], remotes: list[int] | None = None) -> int:
    """VNI row (docs/vxlan.md): [15:0] default tunnel, [23:16] local flood count,
    [31:24] remote flood count, local queue i at 64+16i, remote tunnel i at 192+16i
    (READ also returns the VNI in [55:32])."""
    remotes = remotes or []
    v = tun | (len(queues) << 16) | (len(remotes) << 24)
    for i, q in enumerate(queues):
        v |= q << (64 + 16 * i)
    for i, t in enumerate(remotes):
        v |= t << (192 + 16 * i)
    return v


TUNNEL_FIELDS = [("is_ipv6", 1), ("src_ip", 128), ("dst_ip", 128), ("src_mac", 48),
                 ("dst_mac", 48), ("ttl", 8), ("dscp", 6)]
SB_FIELDS = [("vni", 24), ("outer_ipv6", 1), ("outer_src_ip", 128), ("outer_src_port", 16),
             ("outer_ecn", 2)]


def pack(fields: list[tuple[str, int]], vals: dict[str, int]) -> int:
    v = 0
    for n, w in fields:
        v = (v << w) | (int(vals.get(n, 0)) & ((1 << w) - 1))
    return v


def unpack(fields: list[tuple[str, int]], v: int) -> dict[str, int]:
    out = {}
    pos = sum(w for _, w in fields)
    for n, w in fields:
        pos -= w
        out[n] = (v >> pos) & ((1 << w) - 1)
    return out


def flow_hash(frame: bytes) -> tuple[int, int, int]:
    """(udp source port, 16-bit hash, inner ECN) for an inner frame (docs/vxlan.md)."""
    w = frame[:64].ljust(64, b"\0")

    def be(a: int, b: int) -> int:
        return int.from_bytes(w[a:b], "big") if b <= 64 else 0

    dmac, smac = be(0, 6), be(6, 12)
    vlan = be(12, 14) == 0x8100
    l3 = 18 if vlan else 14
    etype = be(16, 18) if vlan else be(12, 14)
    sip = dip = proto = sport = dport = ecn = 0
    if etype == 0x0800 and w[l3] >> 4 == 4:
        proto, ecn = w[l3 + 9], w[l3 + 1] & 3
        sip, dip = be(l3 + 12, l3 + 16), be(l3 + 16, l3 + 20)
        ihl = w[l3] & 15
        if proto in (6, 17) and be(l3 + 6, l3 + 8) & 0x3FFF == 0 and ihl >= 5 \
                and l3 + 4 * ihl + 4 <= 64:
            sport, dport = be(l3 + 4 * ihl, l3 + 4 * ihl + 2), be(l3 + 4 * ihl + 2, l3 + 4 * ihl + 4)
    elif etype == 0x86DD and w[l3] >> 4 == 6:
        proto, ecn = w[l3 + 6], (w[l3 + 1] >> 4) & 3
        sip, dip = be(l3 + 8, l3 + 24), be(l3 + 24, l3 + 40)
        if proto in (6, 17):
            sport, dport = be(l3 + 40, l3 + 42), be(l3 + 42, l3 + 44)
    t = dmac
    for v, bits in ((smac, 48), (etype, 16), (sip, 128), (dip, 128), (proto, 8), (sport, 16),
                    (dport, 16)):
        t = (t << bits) | v
    h16 = 0
    while t:
        h16 ^= t & 0xFFFF
        t >>= 16
    h14 = (h16 & 0x3FFF) ^ (h16 >> 14)
    return 0xC000 | h14, h16, ecn
