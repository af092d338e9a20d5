# SPDX-License-Identifier: Apache-2.0
"""Traffic mix for the foundation datapath (echo path) and its expected outcome.

Every frame is built with scapy and carries what the datapath should do with
it, derived from the frame itself (not from the DUT): echo (with the expected
reply fields), count as RoCE / VXLAN / other, or drop for a named reason. The
expected register counters follow from the list.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from dataclasses import dataclass, field

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Raw

ECHO_TTL = 64


@dataclass
class Item:
    kind: str          # echo | roce | vxlan | other | drop_<reason>
    frame: bytes       # Ethernet frame without FCS
    fcs_ok: bool = True
    note: str = ""
    # expected reply fields for kind == echo
    expect: dict = field(default_factory=dict)


def _mac(rng: random.Random) -> str:
    b = [rng.randrange(256) for _ in range(6)]
    b[0] &= 0xFE  # unicast
    return ":".join(f"{x:02x}" for x in b)


def _ip4(rng: random.Random) -> str:
    return ".".join(str(rng.randrange(1, 255)) for _ in range(4))


def _ip6(rng: random.Random) -> str:
    return ":".join(f"{rng.randrange(65536):x}" for _ in range(8))


def fcs(frame: bytes) -> bytes:
    return zlib.crc32(frame).to_bytes(4, "little")


def build_mix(rng: random.Random, n_echo: int = 60, n_each: int = 4,
              max_payload: int = 1400) -> list[Item]:
    items: list[Item] = []
    for _ in range(n_echo):
        plen = rng.choice([0, 1, 17, 18, rng.randrange(0, max_payload + 1)])
        payload = bytes(rng.getrandbits(8) for _ in range(plen))
        smac, dmac, sip, dip = _mac(rng), _mac(rng), _ip4(rng), _ip4(rng)
        sport, dport = rng.randrange(1024, 65536), rng.choice([53, 7, 9000, 12345])
        tos = rng.randrange(256)
        vlan = rng.random() < 0.3
        l2 = Ether(src=smac, dst=dmac)
        if vlan:
            l2 = l2 / Dot1Q(vlan=rng.randrange(1, 4095), prio=rng.randrange(8))
        pkt = l2 / IP(src=sip, dst=dip, tos=tos, ttl=rng.randrange(1, 256), id=rng.randrange(65536)) \
            / UDP(sport=sport, dport=dport) / Raw(payload)
        items.append(Item("echo", bytes(pkt), expect=dict(
            dst_mac=smac, src_mac=dmac, src_ip=sip, dst_ip=dip, sport=dport, dport=sport,
            tos=tos, payload=payload, vlan=vlan)))
    for _ in range(n_each):
        # RoCEv2 (counted, not echoed): a BTH-sized blob after UDP 4791 is enough here
        items.append(Item("roce", bytes(Ether() / IP(src=_ip4(rng), dst=_ip4(rng))
                                        / UDP(sport=rng.randrange(49152, 65536), dport=4791)
                                        / Raw(bytes(16 + rng.randrange(64))))))
        inner = Ether(src=_mac(rng), dst=_mac(rng)) / IP() / UDP() / Raw(b"inner")
        items.append(Item("vxlan", bytes(Ether() / IP(src=_ip4(rng), dst=_ip4(rng))
                                         / UDP(sport=rng.randrange(49152, 65536), dport=4789)
                                         / VXLAN(vni=rng.randrange(1 << 24)) / inner)))
        items.append(Item("other", bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / ARP(psrc=_ip4(rng))),
                          note="ARP"))
        items.append(Item("other", bytes(Ether() / IPv6(src=_ip6(rng), dst=_ip6(rng))
                                         / UDP(sport=1, dport=2) / Raw(b"v6")),
                          note="UDP over IPv6 is not echoed"))
        # errors
        good = Ether() / IP(src=_ip4(rng), dst=_ip4(rng)) / UDP(sport=5, dport=6) / Raw(b"x" * 40)
        items.append(Item("drop_bad_fcs", bytes(good), fcs_ok=False))
        bad_csum = Ether() / IP(src=_ip4(rng), dst=_ip4(rng), chksum=0x1234) / UDP() / Raw(b"y" * 30)
        items.append(Item("drop_ipv4_csum", bytes(bad_csum)))
        raw = bytearray(bytes(good))
        raw[14] = (6 << 4) | 5  # IPv4 EtherType, version 6
        items.append(Item("drop_ip_version", bytes(raw)))
        bad_udp = Ether() / IP(src=_ip4(rng), dst=_ip4(rng)) / UDP(sport=5, dport=6, len=200) / Raw(b"z" * 30)
        items.append(Item("drop_udp_length", bytes(bad_udp)))
    rng.shuffle(items)
    return items


def expected_counters(items: list[Item]) -> Counter:
    c: Counter = Counter()
    for it in items:
        c[it.kind] += 1
    return c


def check_echo(item: Item, out: bytes) -> None:
    """Compare a reply frame with the expectation derived from the request."""
    e = item.expect
    p = Ether(out)
    assert p.dst == e["dst_mac"] and p.src == e["src_mac"], f"MACs {p.src}->{p.dst}"
    assert (Dot1Q in p) == e["vlan"], "VLAN tag presence changed"
    ip = p[IP]
    assert ip.src == e["dst_ip"] and ip.dst == e["src_ip"], "IP addresses not swapped"
    assert ip.ttl == ECHO_TTL and ip.tos == e["tos"]
    assert ip.len == 20 + 8 + len(e["payload"]), f"IP total length {ip.len}"
    chk = ip.chksum
    ip2 = IP(bytes(ip))
    del ip2.chksum
    assert IP(bytes(ip2)).chksum == chk, "IPv4 header checksum wrong"
    udp = p[UDP]
    assert udp.sport == e["sport"] and udp.dport == e["dport"], "UDP ports not swapped"
    assert udp.len == 8 + len(e["payload"])
    assert udp.chksum == 0
    got = bytes(udp.payload)[: udp.len - 8]
    assert got == e["payload"], "payload differs"
