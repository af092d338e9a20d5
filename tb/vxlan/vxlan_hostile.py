# SPDX-License-Identifier: Apache-2.0
"""Seeded hostile-frame generator for the VXLAN receive path (fabnic_pkt_parser STRIP=1
-> fabnic_vtep) and the model of what each frame must do, written from docs/pkt.md (the
parser: fabnic_tb.pkt_model) and docs/vxlan.md (decap drop reasons, RFC 6040 ECN decap,
the RX dispatch table). No cocotb here: frames are raw bytes, so malformed headers are
built exactly (scapy would repair lengths and checksums).

``expect(frame, user, keep_w, table)`` -> :class:`Outcome`: the counter a frame must hit
(``drop_outer``, ``drop_short``, ``drop_bad_vxlan``, ``drop_unknown_vni``, ``drop_loop``,
``drop_no_flood``) or the output it must appear on (``local``/``roce``) with its exact
bytes, tuser and sideband. ``Mix(seed, n)`` makes the frames: a sweep (every cut offset
of the outer headers, every VXLAN header / inner Ethernet truncation), random hostile
frames of every kind in ``KINDS`` and randomized legitimate traffic, shuffled, plus a
tail of legitimate frames.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from scapy.utils import checksum

from fabnic_tb.pkt_model import ERR_BITS, parse

VXLAN_PORT = 4789
ACT_LOCAL, ACT_UPLINK, ACT_ROCE = 1, 2, 3

OUR_MAC = bytes.fromhex("020000000001")
PEER_MAC = bytes.fromhex("020000000002")
MAC_A = bytes.fromhex("02aa00000001")      # local q1 in VNI 100, q7 in VNI 200
MAC_R = bytes.fromhex("02aa00000002")      # RoCE engine in VNI 100
MAC_U = bytes.fromhex("02aa00000003")      # behind the uplink in VNI 100 (loop)
MAC_UNK = bytes.fromhex("02aa00000099")
MAC_CUT = bytes.fromhex("06cc00000001")    # no table entry starts with 06: a cut inner
BCAST = b"\xff" * 6                        # frame misses whatever its missing bytes are
MCAST = bytes.fromhex("01005e0000fb")
VNI_CUT = 400                              # flood list [6], no MAC entries

DECAP_DROPS = ("drop_outer", "drop_short", "drop_bad_vxlan")
DROPS = DECAP_DROPS + ("drop_unknown_vni", "drop_loop", "drop_no_flood")


@dataclass
class Table:
    """RX configuration: VNI -> local flood list (slot order), {(VNI, MAC)} -> action."""
    flood: dict[int, list[int]] = field(default_factory=lambda: {
        100: [1, 2, 3], 200: [4, 5], 300: [], VNI_CUT: [6]})
    macs: dict[tuple[int, bytes], tuple[int, int]] = field(default_factory=lambda: {
        (100, MAC_A): (ACT_LOCAL, 1), (200, MAC_A): (ACT_LOCAL, 7),
        (100, MAC_R): (ACT_ROCE, 0), (100, MAC_U): (ACT_UPLINK, 1)})


@dataclass
class Outcome:
    where: str                       # a DROPS name, or "local"/"flood"/"roce" (delivered)
    inner: bytes = b""
    user: int = 0
    vni: int = 0
    queues: tuple[int, ...] = ()
    sb: dict[str, int] = field(default_factory=dict)
    ce_marked: int = 0
    ce_not_ect: int = 0
    perr: set[str] = field(default_factory=set)   # parser error bits (meta or end)
    non_ip: int = 0
    ip_frag: int = 0

    @property
    def delivered(self) -> bool:
        return self.where in ("local", "flood", "roce")

    @property
    def counter(self) -> str:
        return {"local": "rx_local", "flood": "rx_flood", "roce": "rx_roce"}.get(
            self.where, self.where)


def _ecn_decap(inner: bytes, outer_ecn: int) -> tuple[bytes, int, int, int]:
    """RFC 6040 normal mode as docs/vxlan.md (fabnic_vxlan_ecn_decap) states it:
    -> (inner, bad, marked, not_ect)."""
    if outer_ecn != 3 or len(inner) < 14:
        return inner, 0, 0, 0
    l3 = 18 if inner[12:14] == b"\x81\x00" and len(inner) >= 18 else 14
    et = inner[l3 - 2:l3]
    b = bytearray(inner)
    if et == b"\x08\x00" and len(b) >= l3 + 20 and b[l3] >> 4 == 4:
        ecn = b[l3 + 1] & 3
        if ecn == 0:
            return inner, 1, 0, 1
        if ecn == 3:
            return inner, 0, 0, 0
        b[l3 + 1] |= 3
        hl = (b[l3] & 0xF) * 4
        b[l3 + 10:l3 + 12] = b"\0\0"
        b[l3 + 10:l3 + 12] = checksum(bytes(b[l3:l3 + hl])).to_bytes(2, "big")
        return bytes(b), 0, 1, 0
    if et == b"\x86\xdd" and len(b) >= l3 + 40 and b[l3] >> 4 == 6:
        ecn = (b[l3 + 1] >> 4) & 3
        if ecn == 0:
            return inner, 1, 0, 1
        if ecn == 3:
            return inner, 0, 0, 0
        b[l3 + 1] |= 0x30
        return bytes(b), 0, 1, 0
    return inner, 0, 0, 0


def expect(frame: bytes, user: int, keep_w: int, table: Table, drop_frag: bool = True) -> Outcome:
    """What docs/pkt.md + docs/vxlan.md say this wire frame does in parser -> VTEP.
    ``drop_frag``: IPv4 fragments are dropped as outer errors (docs/vxlan.md)."""
    p = parse(frame, keep_w)
    m = p.meta
    runt = "runt" in p.err
    o = Outcome("drop_outer", perr=set(p.err) | set(p.err_at_end),
                non_ip=int(not m["is_ipv4"] and not m["is_ipv6"] and not runt),
                ip_frag=int(bool(m["ip_frag"]) and not runt))
    # ---- fabnic_vxlan_decap, first reason that applies
    if (not m["is_udp"] or m["dst_port"] != VXLAN_PORT or p.err
            or (drop_frag and m["ip_frag"])):
        return o
    pay = p.payload                 # STRIP=1 output: UDP payload cut at the IP length
    if m["payload_len"] < 8 + 14 or len(pay) < 8:
        o.where = "drop_short"
        return o
    if not pay[0] & 0x08:
        o.where = "drop_bad_vxlan"
        return o
    vni = int.from_bytes(pay[4:7], "big")
    inner, bad, marked, not_ect = _ecn_decap(pay[8:], m["ecn"])
    o.inner, o.vni = inner, vni
    o.user = int(bool(user) or bool(p.err_at_end) or bool(bad))
    o.ce_marked, o.ce_not_ect = marked, not_ect
    o.sb = {"vni": vni, "outer_ipv6": m["is_ipv6"], "outer_src_ip": m["src_ip"],
            "outer_src_port": m["src_port"], "outer_ecn": m["ecn"]}
    # ---- dispatch (docs/vxlan.md, fabnic_vtep RX table)
    if vni not in table.flood:
        o.where = "drop_unknown_vni"
        return o
    dmac = inner[:6]
    hit = table.macs.get((vni, dmac))
    if hit is None and len(dmac) < 6:
        # the lookup key has bytes the frame does not carry: a hit is only possible when
        # some entry of the VNI starts with the bytes that are there
        assert not any(v == vni and k.startswith(dmac) for v, k in table.macs), \
            "generator: truncated inner dst MAC is ambiguous"
    if hit is not None:
        act, idx = hit
        if act == ACT_LOCAL:
            o.where, o.queues = "local", (idx,)
        elif act == ACT_ROCE:
            o.where = "roce"
        elif act == ACT_UPLINK:
            o.where = "drop_loop"
        else:
            o.where = "drop_no_flood"
        return o
    if not table.flood[vni]:
        o.where = "drop_no_flood"
        return o
    o.where, o.queues = "flood", tuple(table.flood[vni])
    return o


# ---------------------------------------------------------------- frame construction
def _be16(b: bytearray, o: int, v: int) -> None:
    b[o:o + 2] = (v & 0xFFFF).to_bytes(2, "big")


@dataclass
class Built:
    b: bytearray
    l3: int
    l4: int
    v6: bool


def ip4_csum(b: bytearray, l3: int) -> None:
    hl = max(b[l3] & 0xF, 5) * 4
    b[l3 + 10:l3 + 12] = b"\0\0"
    b[l3 + 10:l3 + 12] = checksum(bytes(b[l3:l3 + hl])).to_bytes(2, "big")


def udp_csum(x: Built) -> None:
    b, l3, l4 = x.b, x.l3, x.l4
    ulen = len(b) - l4
    b[l4 + 6:l4 + 8] = b"\0\0"
    if x.v6:
        ph = bytes(b[l3 + 8:l3 + 40]) + ulen.to_bytes(4, "big") + b"\0\0\0\x11"
    else:
        ph = bytes(b[l3 + 12:l3 + 20]) + b"\0\x11" + ulen.to_bytes(2, "big")
    c = checksum(ph + bytes(b[l4:]))
    _be16(b, l4 + 6, c or 0xFFFF)


def build(rng: random.Random, udp_payload: bytes, *, v6: bool | None = None,
          vlan: bool | None = None, ecn: int | None = None, opts: int = 0,
          csum: bool = True, dst_mac: bytes = OUR_MAC) -> Built:
    """Outer Eth [802.1Q] / IPv4 (opts x 4 option bytes) | IPv6 / UDP dport 4789, all
    lengths and checksums right, around ``udp_payload`` (VXLAN header + inner)."""
    v6 = rng.random() < 0.3 if v6 is None else v6
    vlan = rng.random() < 0.2 if vlan is None else vlan
    ecn = rng.choice([0, 1, 2]) if ecn is None else ecn
    b = bytearray(dst_mac + PEER_MAC)
    if vlan:
        b += b"\x81\x00" + rng.randrange(1, 4095).to_bytes(2, "big")
    b += b"\x86\xdd" if v6 else b"\x08\x00"
    l3 = len(b)
    sport = rng.randrange(49152, 65536)
    udp = bytearray(sport.to_bytes(2, "big") + VXLAN_PORT.to_bytes(2, "big")
                    + (8 + len(udp_payload)).to_bytes(2, "big") + b"\0\0")
    if v6:
        tc = rng.randrange(64) << 2 | ecn
        b += bytes([0x60 | tc >> 4, (tc & 0xF) << 4 | rng.randrange(16)])
        b += rng.getrandbits(16).to_bytes(2, "big")
        b += (8 + len(udp_payload)).to_bytes(2, "big") + b"\x11" + bytes([rng.randrange(1, 256)])
        b += bytes.fromhex("20010db8") + rng.getrandbits(96).to_bytes(12, "big")
        b += bytes.fromhex("20010db8000000000000000000000001")
    else:
        hl = 20 + 4 * opts
        b += bytes([0x40 | hl // 4, rng.randrange(64) << 2 | ecn])
        b += (hl + 8 + len(udp_payload)).to_bytes(2, "big")
        b += rng.getrandbits(16).to_bytes(2, "big") + rng.choice([b"\x40\x00", b"\x00\x00"])
        b += bytes([rng.randrange(1, 256), 17, 0, 0])
        b += bytes([10, 1, rng.randrange(256), rng.randrange(1, 255)]) + bytes([10, 0, 0, 1])
        b += b"\x01" * (4 * opts - 1) + b"\x00" if opts else b""  # NOPs, end of list
        ip4_csum(b, l3)
    l4 = len(b)
    b += udp + udp_payload
    x = Built(b, l3, l4, v6)
    if csum or v6:
        udp_csum(x)
    return x


def vxlan_hdr(vni: int, flags: int = 0x08, rsvd: bytes = b"\0\0\0", rsvd2: int = 0) -> bytes:
    return bytes([flags]) + rsvd + vni.to_bytes(3, "big") + bytes([rsvd2])


def inner_frame(rng: random.Random, dst: bytes, n: int | None = None, kind: str | None = None,
                ) -> bytes:
    """Inner Ethernet frame: IPv4/IPv6 UDP (random TOS/TC incl. every ECN), optionally
    802.1Q tagged, or a 14-byte non-IP frame."""
    if n is None:
        n = rng.choice([0, 1, 20, rng.randrange(0, 300), rng.randrange(300, 1400)])
    kind = kind or rng.choices(["ip4", "ip6", "l2"], [6, 3, 1])[0]
    src = bytes.fromhex("02bb00000001")
    eth = bytearray(dst + src)
    if kind != "l2" and rng.random() < 0.2:
        eth += b"\x81\x00" + rng.randrange(1, 4095).to_bytes(2, "big")
    data = bytes(rng.getrandbits(8) for _ in range(n))
    udp = rng.randrange(65536).to_bytes(2, "big") + b"\x12\xb7" + (8 + n).to_bytes(2, "big")
    udp += b"\0\0" + data
    tos = rng.randrange(256)
    if kind == "ip6":
        ip = bytes([0x60 | tos >> 4, (tos & 0xF) << 4, 0, 0]) + len(udp).to_bytes(2, "big")
        ip += b"\x11\x40" + bytes(15) + b"\x05" + bytes(15) + b"\x06"
        return bytes(eth + b"\x86\xdd" + ip + udp)
    if kind == "ip4":
        ip = bytearray([0x45, tos]) + (20 + len(udp)).to_bytes(2, "big") + b"\0\0\x40\x00\x40\x11"
        ip += b"\0\0" + bytes([192, 168, 0, 1, 192, 168, 0, 2])
        ip[10:12] = checksum(bytes(ip)).to_bytes(2, "big")
        return bytes(eth + b"\x08\x00" + ip + udp)
    return bytes(eth + b"\x88\xb5")


DESTS = [(100, MAC_A), (200, MAC_A), (100, MAC_R), (100, MAC_U), (100, BCAST), (100, MCAST),
         (200, BCAST), (200, MAC_UNK), (200, MAC_R), (300, MAC_A), (4242, MAC_A),
         (VNI_CUT, MAC_UNK)]


def legit(rng: random.Random) -> tuple[bytes, int, str]:
    """Randomized legitimate VXLAN frame (outer IPv4 with/without options or IPv6,
    VLAN, UDP checksum or 0 (IPv4), reserved VXLAN bits, any outer ECN incl. CE)."""
    vni, dst = rng.choice(DESTS)
    n = 8900 if rng.random() < 0.01 else None
    inner = inner_frame(rng, dst, n)
    rs = rng.random() < 0.2
    vx = vxlan_hdr(vni, 0x08 | (rng.getrandbits(8) & ~0x08 if rs else 0),
                   rng.getrandbits(24).to_bytes(3, "big") if rs else b"\0\0\0",
                   rng.getrandbits(8) if rs else 0)
    x = build(rng, vx + inner, ecn=rng.choice([0, 1, 2, 3, 3]),
              opts=rng.choice([0] * 8 + [1, 4, 10]), csum=rng.random() < 0.8)
    if not x.v6 and rng.random() < 0.1:
        x.b += bytes(rng.randrange(1, 30))   # Ethernet padding after the IP datagram
    return bytes(x.b), 0, "legit"


# ---------------------------------------------------------------- hostile kinds
def _base(rng: random.Random, **kw) -> Built:
    vni, dst = rng.choice(DESTS)
    return build(rng, vxlan_hdr(vni) + inner_frame(rng, dst), **kw)


def _cut_base(rng: random.Random, **kw) -> Built:
    inner = inner_frame(rng, MAC_CUT, rng.randrange(0, 200), rng.choice(["ip4", "ip6"]))
    return build(rng, vxlan_hdr(VNI_CUT) + inner, **kw)


def _fix(x: Built) -> None:
    if not x.v6:
        ip4_csum(x.b, x.l3)


def k_eth_dst_other(rng):
    x = _base(rng, dst_mac=rng.choice([BCAST, MCAST, bytes.fromhex("0200deadbeef")]))
    return x.b


def k_qinq(rng):
    x = _base(rng, vlan=rng.random() < 0.5)
    tag = rng.choice([b"\x88\xa8", b"\x81\x00"]) + rng.randrange(4096).to_bytes(2, "big")
    if x.b[12:14] != b"\x81\x00" and tag[:2] == b"\x81\x00":
        tag = b"\x88\xa8" + tag[2:]   # two tags: 802.1ad S-tag or 802.1Q in 802.1Q
    return x.b[:12] + tag + x.b[12:]


def k_ethertype(rng):
    x = _base(rng, vlan=False)
    x.b[12:14] = rng.choice([b"\x08\x06", b"\x88\xb5", b"\x88\xcc", b"\x08\x01"])
    return x.b


def k_ip_len_long(rng):
    x = _cut_base(rng)
    d = rng.choice([1, 2, 7, rng.randrange(1, 3000)])
    o = x.l3 + (4 if x.v6 else 2)
    v = int.from_bytes(x.b[o:o + 2], "big")
    d = min(d, 0xFFFF - v)
    _be16(x.b, o, v + d)
    if rng.random() < 0.75:     # UDP length too (else also a UDP length error)
        _be16(x.b, x.l4 + 4, int.from_bytes(x.b[x.l4 + 4:x.l4 + 6], "big") + d)
    _fix(x)
    return x.b


def k_ip_len_short(rng):
    x = _base(rng)
    o = x.l3 + (4 if x.v6 else 2)
    v = int.from_bytes(x.b[o:o + 2], "big")
    _be16(x.b, o, v - rng.choice([1, 8, rng.randrange(1, v + 1)]))
    _fix(x)
    return x.b


def k_ip_len_consistent(rng):
    """IP and UDP lengths both shortened by d: the rest is Ethernet padding, the inner
    frame ends early (drop_short below 22 bytes of UDP payload)."""
    x = _base(rng)
    ulen = int.from_bytes(x.b[x.l4 + 4:x.l4 + 6], "big")
    d = rng.randrange(1, ulen - 8 + 1)
    o = x.l3 + (4 if x.v6 else 2)
    _be16(x.b, o, int.from_bytes(x.b[o:o + 2], "big") - d)
    _be16(x.b, x.l4 + 4, ulen - d)
    _fix(x)
    return x.b


def k_ip4_csum(rng):
    x = _base(rng, v6=False)
    c = int.from_bytes(x.b[x.l3 + 10:x.l3 + 12], "big")
    while True:
        n = c ^ rng.randrange(1, 0x10000)
        if {c, n} != {0, 0xFFFF}:
            break
    _be16(x.b, x.l3 + 10, n)
    return x.b


def k_ip4_ihl(rng):
    x = _base(rng, v6=False)
    x.b[x.l3] = 0x40 | rng.randrange(5)
    return x.b


def k_ip4_options(rng):
    vni, dst = rng.choice(DESTS)
    return build(rng, vxlan_hdr(vni) + inner_frame(rng, dst), v6=False,
                 opts=rng.randrange(1, 11)).b


def k_ip4_frag_first(rng):
    x = _base(rng, v6=False)
    _be16(x.b, x.l3 + 6, 0x2000)          # MF, offset 0: the first fragment
    _fix(x)
    return x.b


def k_ip4_frag_later(rng):
    x = _base(rng, v6=False)
    _be16(x.b, x.l3 + 6, rng.choice([0, 0x2000]) | rng.randrange(1, 0x2000))
    _fix(x)
    return x.b


def k_ip_version(rng):
    x = _base(rng)
    good = 6 if x.v6 else 4
    x.b[x.l3] = rng.choice([v for v in range(16) if v != good]) << 4 | (x.b[x.l3] & 0xF)
    _fix(x)
    return x.b


def k_ip_proto(rng):
    x = _base(rng)
    x.b[x.l3 + (6 if x.v6 else 9)] = rng.choice([6, 1, 0, 50, 132, 255])
    _fix(x)
    return x.b


def k_ip6_ext(rng):
    """IPv6 with a Hop-by-Hop or Fragment extension header before UDP."""
    x = _base(rng, v6=True)
    nh = rng.choice([0, 44, 60])
    ext = bytes([17, 0]) + (b"\x01\x04\0\0\0\0" if nh != 44 else b"\0\0" + bytes(4))
    b = x.b[:x.l4] + ext + x.b[x.l4:]
    b[x.l3 + 6] = nh
    _be16(b, x.l3 + 4, int.from_bytes(b[x.l3 + 4:x.l3 + 6], "big") + 8)
    return b


def k_ttl_zero(rng):
    x = _base(rng)
    x.b[x.l3 + (7 if x.v6 else 8)] = 0
    _fix(x)
    return x.b


def k_ip_dst_other(rng):
    x = _base(rng)
    if x.v6:
        x.b[x.l3 + 24:x.l3 + 40] = rng.getrandbits(128).to_bytes(16, "big")
    else:
        x.b[x.l3 + 16:x.l3 + 20] = bytes([192, 0, 2, rng.randrange(256)])
        _fix(x)
    return x.b


def k_udp_len(rng):
    x = _base(rng)
    v = int.from_bytes(x.b[x.l4 + 4:x.l4 + 6], "big")
    n = rng.choice([0, 7, 8, v - 1, v + 1, rng.randrange(0x10000)])
    _be16(x.b, x.l4 + 4, n if n != v else v + 3)
    return x.b


def k_udp_dport(rng):
    x = _base(rng)
    _be16(x.b, x.l4 + 2, rng.choice([4790, 8472, 4791, 0, rng.randrange(0x10000)]) or 1)
    if x.b[x.l4 + 2:x.l4 + 4] == b"\x12\xb5":
        x.b[x.l4 + 3] ^= 1
    return x.b


def k_udp_sport_4789(rng):
    x = _base(rng)
    _be16(x.b, x.l4, VXLAN_PORT)
    _be16(x.b, x.l4 + 2, rng.choice([4790, 53, 4791]))
    return x.b


def k_udp_csum(rng):
    x = _base(rng)
    if x.v6 and rng.random() < 0.5:
        _be16(x.b, x.l4 + 6, 0)               # zero checksum over IPv6 (RFC 6935)
    else:
        c = int.from_bytes(x.b[x.l4 + 6:x.l4 + 8], "big")
        _be16(x.b, x.l4 + 6, c ^ rng.randrange(1, 0xFFFF) or 1)
    return x.b


def k_vx_iflag(rng):
    vni, dst = rng.choice(DESTS)
    return build(rng, vxlan_hdr(vni, rng.getrandbits(8) & ~0x08) + inner_frame(rng, dst)).b


def k_vx_rsvd(rng):
    vni, dst = rng.choice(DESTS)
    return build(rng, vxlan_hdr(vni, 0x08 | rng.getrandbits(8),
                                rng.getrandbits(24).to_bytes(3, "big"), rng.getrandbits(8))
                 + inner_frame(rng, dst)).b


def k_vx_trunc(rng, k=None):
    k = rng.randrange(8) if k is None else k
    return build(rng, vxlan_hdr(VNI_CUT)[:k]).b


def k_inner_short(rng, k=None):
    k = rng.randrange(14) if k is None else k
    return build(rng, vxlan_hdr(VNI_CUT) + inner_frame(rng, MAC_CUT, 10)[:k]).b


def k_inner_ip_trunc(rng):
    vni, dst = rng.choice(DESTS)
    f = inner_frame(rng, dst, 30, rng.choice(["ip4", "ip6"]))
    l3 = 18 if f[12:14] == b"\x81\x00" else 14
    hl = 40 if f[l3 - 2:l3] == b"\x86\xdd" else 20
    return build(rng, vxlan_hdr(vni) + f[:rng.randrange(l3, l3 + hl + 8)]).b


def k_cut(rng, k=None, v6=None, vlan=None):
    x = _cut_base(rng, v6=v6, vlan=vlan)
    k = rng.randrange(1, min(len(x.b), x.l4 + 8 + 8 + 14 + 16)) if k is None else k
    return x.b[:k]


def k_runt(rng):
    n = rng.randrange(1, 14)
    return bytes(rng.getrandbits(8) for _ in range(n))


def k_oversize(rng):
    return build(rng, vxlan_hdr(VNI_CUT) + inner_frame(rng, MAC_CUT, rng.randrange(9001, 16000),
                                                       "ip4")).b


def k_pad(rng):
    x = _base(rng, v6=False)
    return x.b + bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64)))


KINDS = {
    # name: (function, class): drop (a drop counter) | bad (delivered with tuser=1) |
    # accept (delivered: the docs do not reject it) | model (depends on the cut point and
    # width) | finding (the docs and the RTL deliver it; left out unless asked for)
    "eth_dst_other": (k_eth_dst_other, "accept"),
    "outer_tags": (k_qinq, "drop"),
    "ethertype_not_ip": (k_ethertype, "drop"),
    "ip_len_long": (k_ip_len_long, "model"),
    "ip_len_short": (k_ip_len_short, "drop"),
    "ip_udp_len_short": (k_ip_len_consistent, "model"),
    "ip4_csum": (k_ip4_csum, "drop"),
    "ip4_ihl_lt5": (k_ip4_ihl, "drop"),
    "ip4_options": (k_ip4_options, "accept"),
    "ip4_frag_first": (k_ip4_frag_first, "drop"),
    "ip4_frag_later": (k_ip4_frag_later, "drop"),
    "ip_version": (k_ip_version, "drop"),
    "ip_proto_not_udp": (k_ip_proto, "drop"),
    "ip6_ext_hdr": (k_ip6_ext, "drop"),
    "ttl_zero": (k_ttl_zero, "accept"),
    "ip_dst_other": (k_ip_dst_other, "accept"),
    "udp_len": (k_udp_len, "drop"),
    "udp_dport": (k_udp_dport, "drop"),
    "udp_sport_4789": (k_udp_sport_4789, "drop"),
    "udp_csum_bad": (k_udp_csum, "accept"),
    "vxlan_i_clear": (k_vx_iflag, "drop"),
    "vxlan_rsvd_set": (k_vx_rsvd, "accept"),
    "vxlan_trunc": (k_vx_trunc, "drop"),
    "inner_short": (k_inner_short, "drop"),
    "inner_ip_trunc": (k_inner_ip_trunc, "accept"),
    "cut": (k_cut, "model"),
    "runt": (k_runt, "drop"),
    "oversize": (k_oversize, "accept"),
    "pad": (k_pad, "accept"),
    "mac_bad": (None, "bad"),
}


@dataclass
class Frame:
    data: bytes
    user: int
    label: str


class Mix:
    """``n`` frames (about half hostile) from ``seed``: first a sweep of every cut offset
    (IPv4/IPv6, with/without VLAN) through the outer headers, the VXLAN header and the
    inner Ethernet header, every VXLAN-header and inner truncation length, and one of
    each kind; then random hostile and legitimate frames, shuffled; then ``tail``
    legitimate frames (the VTEP must still forward after the hostile traffic)."""

    def __init__(self, seed: int, n: int, tail: int = 16, oversize: bool = True,
                 findings: bool = False):
        rng = random.Random(seed)
        hostile: list[Frame] = []
        for v6 in (False, True):
            for vlan in (False, True):
                hl = (18 if vlan else 14) + (40 if v6 else 20) + 8 + 8 + 14 + 2
                for k in range(1, hl):
                    hostile.append(Frame(bytes(k_cut(rng, k, v6, vlan)), 0, "cut"))
        hostile += [Frame(bytes(k_vx_trunc(rng, k)), 0, "vxlan_trunc") for k in range(8)]
        hostile += [Frame(bytes(k_inner_short(rng, k)), 0, "inner_short") for k in range(14)]
        kinds = [k for k in KINDS if (oversize or k != "oversize")
                 and (findings or KINDS[k][1] != "finding")]
        for name in kinds:
            hostile.append(self._one(rng, name))
        rest: list[Frame] = []
        n_host = max(0, n // 2 - len(hostile))
        weights = [0.2 if k == "oversize" else 1.0 for k in kinds]
        for _ in range(n_host):
            rest.append(self._one(rng, rng.choices(kinds, weights)[0]))
        while len(hostile) + len(rest) < n - tail:
            rest.append(Frame(*legit(rng)))
        frames = hostile + rest
        rng.shuffle(frames)
        frames += [Frame(*legit(rng)) for _ in range(tail)]
        self.frames = frames
        self.tail = tail

    @staticmethod
    def _one(rng: random.Random, name: str) -> Frame:
        if name == "mac_bad":
            f, _, _ = legit(rng)
            return Frame(f, 1, name)
        return Frame(bytes(KINDS[name][0](rng)), 0, name)


def parser_counts(outs: list[Outcome], frames: list[Frame]) -> dict[str, int]:
    """Parser counters (docs/pkt.md) for the mix: every frame in, none dropped
    (DROP_ERRORS=0), one count per error bit."""
    c = {"frames_in": len(frames), "bytes_in": sum(len(f.data) for f in frames) & 0xFFFFFFFF,
         "bad_in": sum(f.user for f in frames), "frames_out": len(frames), "dropped": 0,
         "non_ip": sum(o.non_ip for o in outs), "ip_frag": sum(o.ip_frag for o in outs)}
    for e in ERR_BITS:
        c[f"err_{e}"] = sum(e in o.perr for o in outs)
    return c
