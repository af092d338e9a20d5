# SPDX-License-Identifier: Apache-2.0
"""Reference frames for the pkt tests, built with scapy (good, odd and malformed)."""

from __future__ import annotations

import random

from scapy.layers.inet import IP, TCP, UDP, IPOption
from scapy.layers.inet6 import IPv6, IPv6ExtHdrHopByHop
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw


def _mac(rng: random.Random) -> str:
    return ":".join(f"{rng.getrandbits(8):02x}" for _ in range(6))


def _v4(rng: random.Random) -> str:
    return ".".join(str(rng.getrandbits(8)) for _ in range(4))


def _v6(rng: random.Random) -> str:
    return ":".join(f"{rng.getrandbits(16):x}" for _ in range(8))


def _payload(rng: random.Random, n: int) -> bytes:
    return rng.randbytes(n)


def l2(rng: random.Random, vlan: bool):
    e = Ether(dst=_mac(rng), src=_mac(rng))
    if vlan:
        e = e / Dot1Q(prio=rng.randrange(8), vlan=rng.randrange(4096))
    return e


def udp_frame(rng: random.Random, n: int, *, v6: bool, vlan: bool, **kw) -> bytes:
    if v6:
        ip = IPv6(src=_v6(rng), dst=_v6(rng), tc=rng.getrandbits(8), fl=rng.getrandbits(20),
                  hlim=rng.getrandbits(8))
    else:
        ip = IP(src=_v4(rng), dst=_v4(rng), tos=rng.getrandbits(8), ttl=rng.getrandbits(8),
                id=rng.getrandbits(16), **kw)
    p = l2(rng, vlan) / ip / UDP(sport=rng.getrandbits(16), dport=rng.choice([4791, 4789, 53]))
    return bytes(p / Raw(_payload(rng, n))) if n else bytes(p)


def pad60(f: bytes) -> bytes:
    return f + bytes(max(0, 60 - len(f)))


def frame_mix(rng: random.Random, count: int, keep_w: int) -> list[tuple[bytes, int]]:
    """(frame, input tuser) pairs covering good, odd and malformed frames."""
    out: list[tuple[bytes, int]] = []
    kinds = ["udp"] * 10 + ["pad", "opts", "tcp", "v6other", "frag", "nonip", "arp",
                            "badcsum", "badver", "badver6", "ihl", "udplen", "trunc",
                            "iplen_small", "runt", "tiny"]
    # a size sweep so that every tkeep pattern of the last beat occurs
    for n in range(0, 2 * keep_w + 2):
        out.append((udp_frame(rng, n, v6=bool(n & 1), vlan=bool(n & 2)), 0))
    while len(out) < count:
        k = rng.choice(kinds)
        v6, vlan = rng.random() < 0.5, rng.random() < 0.4
        n = rng.choice([rng.randint(0, 64), rng.randint(0, 400), rng.randint(0, 1500)])
        if k == "udp":
            f = udp_frame(rng, n, v6=v6, vlan=vlan)
        elif k == "pad":
            f = pad60(udp_frame(rng, rng.randint(0, 10), v6=False, vlan=vlan))
        elif k == "opts":
            f = udp_frame(rng, n, v6=False, vlan=vlan,
                          options=[IPOption(b"\x01" * (4 * rng.randint(1, 10)))])
        elif k == "tcp":
            f = bytes(l2(rng, vlan) / IP(src=_v4(rng), dst=_v4(rng)) / TCP() / Raw(_payload(rng, n)))
        elif k == "v6other":
            up = rng.choice([TCP(), IPv6ExtHdrHopByHop() / UDP()])
            f = bytes(l2(rng, vlan) / IPv6(src=_v6(rng), dst=_v6(rng)) / up / Raw(_payload(rng, n)))
        elif k == "frag":
            f = udp_frame(rng, n, v6=False, vlan=vlan,
                          **rng.choice([{"flags": "MF"}, {"frag": rng.randint(1, 999)}]))
        elif k == "nonip":
            f = bytes(l2(rng, vlan) / Raw(bytes([0x88, 0xB5]) + _payload(rng, max(n, 46))))
        elif k == "arp":
            f = pad60(bytes(l2(rng, vlan) / ARP()))
        elif k == "badcsum":
            b = bytearray(udp_frame(rng, n, v6=False, vlan=vlan))
            b[(18 if vlan else 14) + 10] ^= 1 << rng.randrange(8)
            f = bytes(b)
        elif k == "badver":
            b = bytearray(udp_frame(rng, n, v6=False, vlan=vlan))
            b[18 if vlan else 14] = (rng.choice([5, 6, 0, 15]) << 4) | 5
            f = bytes(b)
        elif k == "badver6":
            b = bytearray(udp_frame(rng, n, v6=True, vlan=vlan))
            b[18 if vlan else 14] = 0x40 | (b[18 if vlan else 14] & 0xF)
            f = bytes(b)
        elif k == "ihl":
            b = bytearray(udp_frame(rng, n, v6=False, vlan=vlan))
            b[18 if vlan else 14] = 0x40 | rng.randint(0, 4)
            f = bytes(b)
        elif k == "udplen":
            b = bytearray(udp_frame(rng, n, v6=v6, vlan=vlan))
            l4 = (18 if vlan else 14) + (40 if v6 else 20)
            ul = int.from_bytes(b[l4 + 4:l4 + 6], "big")
            b[l4 + 4:l4 + 6] = ((ul + rng.choice([-3, -1, 1, 7, 300])) & 0xFFFF).to_bytes(2, "big")
            f = bytes(b)
        elif k == "trunc":
            full = udp_frame(rng, max(n, 1), v6=v6, vlan=vlan)
            hdr = (18 if vlan else 14) + (40 if v6 else 20) + 8
            f = full[:rng.randint(hdr, len(full) - 1)]
        elif k == "iplen_small":
            b = bytearray(udp_frame(rng, n, v6=False, vlan=vlan))
            l3 = 18 if vlan else 14
            b[l3 + 2:l3 + 4] = rng.randint(0, 19).to_bytes(2, "big")
            b[l3 + 10:l3 + 12] = b"\0\0"
            s = sum(int.from_bytes(b[l3 + i:l3 + i + 2], "big") for i in range(0, 20, 2))
            while s >> 16:
                s = (s & 0xFFFF) + (s >> 16)
            b[l3 + 10:l3 + 12] = (~s & 0xFFFF).to_bytes(2, "big")
            f = bytes(b)
        elif k == "runt":
            full = udp_frame(rng, 0, v6=v6, vlan=vlan)
            f = full[:rng.randint(1, len(full) - 1)]
        else:  # tiny
            f = rng.randbytes(rng.randint(1, 13))
        out.append((f, int(rng.random() < 0.05)))
    return out
