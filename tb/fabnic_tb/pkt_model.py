# SPDX-License-Identifier: Apache-2.0
"""Golden model of fabnic_pkt_parser, written from the header specs (IEEE 802.3/802.1Q,
RFC 791, RFC 8200, RFC 768) and the rules in docs/pkt.md. It works on raw bytes so that
malformed frames (which scapy would refuse or "fix") are modelled too; the IPv4
header checksum is checked with scapy's own checksum routine.

``parse(frame)`` returns a :class:`Parsed`: the metadata dict (pkt_meta_t field
names), the error set, where each error is reported, the STRIP=1 payload and the
expected output tuser[0].
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scapy.utils import checksum

ERR_BITS = ("runt", "ip_version", "ipv4_ihl", "ipv4_csum", "ip_length", "udp_length")


@dataclass
class Parsed:
    meta: dict[str, int]
    err: set[str] = field(default_factory=set)
    err_at_end: set[str] = field(default_factory=set)  # only known at the frame's end
    payload: bytes = b""         # STRIP=1 output
    frame: bytes = b""           # STRIP=0 output
    fields_valid: bool = True    # meta fields are meaningful (not a runt)

    @property
    def bad(self) -> bool:
        return bool(self.err or self.err_at_end)


def _u16(b: bytes, o: int) -> int:
    return int.from_bytes(b[o:o + 2], "big")


def header_need(frame: bytes) -> int:
    """Bytes the frame's headers announce (Ethernet [+VLAN] [+IP [+UDP]])."""
    f = frame + bytes(100)
    vlan = _u16(f, 12) == 0x8100
    l3 = 18 if vlan else 14
    et = _u16(f, l3 - 2)
    if et == 0x0800:
        if f[l3] >> 4 != 4:
            return l3 + 1
        ihl = f[l3] & 0xF
        hl = ihl * 4 if ihl >= 5 else 20
        frag_off = _u16(f, l3 + 6) & 0x1FFF
        return l3 + hl + (8 if f[l3 + 9] == 17 and frag_off == 0 and ihl >= 5 else 0)
    if et == 0x86DD:
        if f[l3] >> 4 != 6:
            return l3 + 1
        return l3 + 40 + (8 if f[l3 + 6] == 17 else 0)
    return l3


def parse(frame: bytes, keep_w: int) -> Parsed:
    """``keep_w``: bytes per beat. The parser decides on the beat that completes the
    headers; an IP length error is in the metadata only if the frame ended on it."""
    n = len(frame)
    f = frame + bytes(100)
    need = header_need(frame)
    hdr_window = -(-need // keep_w) * keep_w
    vlan = _u16(f, 12) == 0x8100
    l3 = 18 if vlan else 14
    et = _u16(f, l3 - 2)
    m: dict[str, int] = dict.fromkeys(
        ["is_ipv4", "is_ipv6", "dscp", "ecn", "ttl", "ip_proto", "flow_label", "src_ip",
         "dst_ip", "ip_frag", "is_udp", "src_port", "dst_port", "udp_checksum",
         "payload_len", "vlan_pcp", "vlan_vid"], 0)
    m["dst_mac"] = int.from_bytes(f[0:6], "big")
    m["src_mac"] = int.from_bytes(f[6:12], "big")
    m["vlan_valid"] = int(vlan)
    if vlan:
        tci = _u16(f, 14)
        m["vlan_pcp"], m["vlan_vid"] = tci >> 13, tci & 0xFFF
    m["ethertype"] = et
    m["l3_offset"] = l3
    err: set[str] = set()
    end_err: set[str] = set()
    l4 = l3
    pay_off = l3
    ip_end = None  # frame offset where the IP datagram ends
    ip_pay_len = 0
    if et == 0x0800:
        if f[l3] >> 4 != 4:
            err.add("ip_version")
        else:
            m["is_ipv4"] = 1
            ihl = f[l3] & 0xF
            if ihl < 5:
                err.add("ipv4_ihl")
            hl = max(ihl, 5) * 4
            m["dscp"], m["ecn"] = f[l3 + 1] >> 2, f[l3 + 1] & 3
            tot = _u16(f, l3 + 2)
            flags_frag = _u16(f, l3 + 6)
            m["ip_frag"] = int(bool(flags_frag & 0x2000) or (flags_frag & 0x1FFF) != 0)
            m["ttl"], m["ip_proto"] = f[l3 + 8], f[l3 + 9]
            m["src_ip"] = int.from_bytes(f[l3 + 12:l3 + 16], "big")
            m["dst_ip"] = int.from_bytes(f[l3 + 16:l3 + 20], "big")
            if n >= l3 + hl and ihl >= 5 and checksum(bytes(f[l3:l3 + hl])) != 0:
                err.add("ipv4_csum")
            l4 = l3 + hl
            ip_end = l3 + tot
            ip_pay_len = tot - hl
            m["is_udp"] = int(f[l3 + 9] == 17 and (flags_frag & 0x1FFF) == 0 and ihl >= 5)
            if tot < hl:
                err.add("ip_length")
    elif et == 0x86DD:
        if f[l3] >> 4 != 6:
            err.add("ip_version")
        else:
            m["is_ipv6"] = 1
            tc = ((f[l3] & 0xF) << 4) | (f[l3 + 1] >> 4)
            m["dscp"], m["ecn"] = tc >> 2, tc & 3
            m["flow_label"] = int.from_bytes(f[l3 + 1:l3 + 4], "big") & 0xFFFFF
            plen = _u16(f, l3 + 4)
            m["ip_proto"], m["ttl"] = f[l3 + 6], f[l3 + 7]
            m["src_ip"] = int.from_bytes(f[l3 + 8:l3 + 24], "big")
            m["dst_ip"] = int.from_bytes(f[l3 + 24:l3 + 40], "big")
            l4 = l3 + 40
            ip_end = l4 + plen
            ip_pay_len = plen
            m["is_udp"] = int(f[l3 + 6] == 17)
    pay_off = l4
    if m["is_udp"]:
        m["src_port"], m["dst_port"] = _u16(f, l4), _u16(f, l4 + 2)
        m["udp_checksum"] = _u16(f, l4 + 6)
        if not m["ip_frag"] and _u16(f, l4 + 4) != ip_pay_len:
            err.add("udp_length")
        pay_off = l4 + 8
    m["l4_offset"] = l4
    m["payload_offset"] = pay_off
    runt = n < need
    if runt:
        err = {"runt"}
    if ip_end is not None:
        m["payload_len"] = max(ip_end - pay_off, 0)
        if not runt and n < ip_end:
            (err if n <= hdr_window else end_err).add("ip_length")
    m["err"] = sum(1 << (len(ERR_BITS) - 1 - i) for i, e in enumerate(ERR_BITS) if e in err)
    if ip_end is not None:
        payload = frame[pay_off:max(ip_end, pay_off)]
    else:
        payload = frame[pay_off:]
    return Parsed(meta=m, err=err, err_at_end=end_err, payload=payload, frame=frame,
                  fields_valid=not runt)


# fabnic_pkt_pkg::pkt_meta_t, most significant field first
META_FIELDS: list[tuple[str, int]] = [
    ("dst_mac", 48), ("src_mac", 48), ("vlan_valid", 1), ("vlan_pcp", 3), ("vlan_vid", 12),
    ("ethertype", 16), ("is_ipv4", 1), ("is_ipv6", 1), ("dscp", 6), ("ecn", 2), ("ttl", 8),
    ("ip_proto", 8), ("flow_label", 20), ("src_ip", 128), ("dst_ip", 128), ("ip_frag", 1),
    ("is_udp", 1), ("src_port", 16), ("dst_port", 16), ("udp_checksum", 16),
    ("l3_offset", 8), ("l4_offset", 8), ("payload_offset", 8), ("payload_len", 16),
    ("err", 6),
]
META_W = sum(w for _, w in META_FIELDS)


def unpack_meta(v: int) -> dict[str, int]:
    out: dict[str, int] = {}
    pos = META_W
    for name, w in META_FIELDS:
        pos -= w
        out[name] = (v >> pos) & ((1 << w) - 1)
    return out


def pack_meta(m: dict[str, int]) -> int:
    v = 0
    for name, w in META_FIELDS:
        v = (v << w) | (int(m.get(name, 0)) & ((1 << w) - 1))
    return v


def err_names(err: int) -> set[str]:
    return {e for i, e in enumerate(ERR_BITS) if err >> (len(ERR_BITS) - 1 - i) & 1}
