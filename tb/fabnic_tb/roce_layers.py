# SPDX-License-Identifier: Apache-2.0
"""scapy layers for the RoCEv2 extension headers scapy.contrib.roce lacks, and a
frame builder.

scapy.contrib.roce has BTH (with the ICRC as its trailing FCS field), AETH, GRH and
CNP. This module adds RETH, ImmDt, IETH, AtomicETH and AtomicAckETH and binds them
after BTH/AETH by opcode in the order IBTA vol. 1 (ch. 9) gives them:

  SEND LAST/ONLY with immediate, WRITE LAST with immediate   BTH + ImmDt
  SEND LAST/ONLY with invalidate                             BTH + IETH
  WRITE FIRST / WRITE ONLY, READ REQUEST                     BTH + RETH
  WRITE ONLY with immediate                                  BTH + RETH + ImmDt
  READ RESPONSE FIRST/LAST/ONLY, ACK                         BTH + AETH
  ATOMIC ACK                                                 BTH + AETH + AtomicAckETH
  CompareSwap, FetchAdd                                      BTH + AtomicETH

:func:`roce_frame` builds Ether/[Dot1Q]/IP or IPv6/UDP 4791/BTH/.../payload/ICRC with
scapy computing the ICRC (``BTH(icrc=None)``). :func:`icrc_reference` is a second,
independent ICRC computed from the masking rules in REFERENCES.md with zlib; the
tests check that both agree.
"""

from __future__ import annotations

import random
import struct
import zlib

from scapy.contrib.roce import AETH, BTH, CNPPadding
from scapy.fields import IntField, XIntField, XLongField
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Packet, Raw, bind_layers

ROCEV2_PORT = 4791

# RC opcodes (IBTA); UC uses the same low 5 bits with 0x20 added
SEND_FIRST = 0x00
SEND_MIDDLE = 0x01
SEND_LAST = 0x02
SEND_LAST_IMM = 0x03
SEND_ONLY = 0x04
SEND_ONLY_IMM = 0x05
WRITE_FIRST = 0x06
WRITE_MIDDLE = 0x07
WRITE_LAST = 0x08
WRITE_LAST_IMM = 0x09
WRITE_ONLY = 0x0A
WRITE_ONLY_IMM = 0x0B
READ_REQUEST = 0x0C
READ_RESP_FIRST = 0x0D
READ_RESP_MIDDLE = 0x0E
READ_RESP_LAST = 0x0F
READ_RESP_ONLY = 0x10
ACK = 0x11
ATOMIC_ACK = 0x12
COMPARE_SWAP = 0x13
FETCH_ADD = 0x14
SEND_LAST_INV = 0x16
SEND_ONLY_INV = 0x17
CNP = 0x81

RC_OPCODES = (list(range(0x00, 0x15)) + [SEND_LAST_INV, SEND_ONLY_INV])


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]

    def guess_payload_class(self, payload: bytes):
        if _bth_opcode(self) & 0x1F == WRITE_ONLY_IMM:
            return ImmDt
        return Raw


class ImmDt(Packet):
    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]

    def guess_payload_class(self, payload: bytes):
        return Raw


class IETH(Packet):
    name = "IETH"
    fields_desc = [XIntField("rkey", 0)]

    def guess_payload_class(self, payload: bytes):
        return Raw


class AtomicETH(Packet):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), XLongField("swap_add", 0),
                   XLongField("compare", 0)]

    def guess_payload_class(self, payload: bytes):
        return Raw


class AtomicAckETH(Packet):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]

    def guess_payload_class(self, payload: bytes):
        return Raw


def _bth_opcode(layer: Packet) -> int:
    u = layer.underlayer
    while u is not None and not isinstance(u, BTH):
        u = u.underlayer
    return -1 if u is None else int(u.opcode)


def _aeth_payload_class(self: Packet, payload: bytes):
    if _bth_opcode(self) == ATOMIC_ACK:
        return AtomicAckETH
    return Raw


# scapy's AETH knows no successor; the ATOMIC ACK one depends on the BTH opcode.
AETH.guess_payload_class = _aeth_payload_class  # type: ignore[method-assign]

# layers that follow BTH directly, per opcode (RC, and UC where UC has the opcode)
FIRST_EXT: dict[int, type[Packet]] = {
    SEND_LAST_IMM: ImmDt, SEND_ONLY_IMM: ImmDt, WRITE_LAST_IMM: ImmDt,
    SEND_LAST_INV: IETH, SEND_ONLY_INV: IETH,
    WRITE_FIRST: RETH, WRITE_ONLY: RETH, WRITE_ONLY_IMM: RETH, READ_REQUEST: RETH,
    READ_RESP_FIRST: AETH, READ_RESP_LAST: AETH, READ_RESP_ONLY: AETH,
    ATOMIC_ACK: AETH, COMPARE_SWAP: AtomicETH, FETCH_ADD: AtomicETH,
}
_UC_OPS = {SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_LAST_IMM, WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM}

for _op, _cls in FIRST_EXT.items():
    if _op == 0x11:
        continue  # scapy binds ACK already
    bind_layers(BTH, _cls, opcode=_op)
    if _op in _UC_OPS:
        bind_layers(BTH, _cls, opcode=0x20 | _op)


def ext_headers(opcode: int, rng: random.Random | None = None) -> list[Packet]:
    """The extension headers the opcode carries, in order, with random field values
    when ``rng`` is given (zero otherwise)."""
    r = rng or random.Random(0)

    def v(bits: int) -> int:
        return r.getrandbits(bits) if rng is not None else 0

    op = opcode & 0x1F if opcode != CNP else CNP
    out: list[Packet] = []
    if op == CNP:
        return [CNPPadding()]
    if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM, READ_REQUEST):
        out.append(RETH(va=v(64), rkey=v(32), dlen=v(32)))
    if op in (READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_ONLY, ACK, ATOMIC_ACK):
        out.append(AETH(syndrome=v(8), msn=v(24)))
    if op == ATOMIC_ACK:
        out.append(AtomicAckETH(orig=v(64)))
    if op in (COMPARE_SWAP, FETCH_ADD):
        out.append(AtomicETH(va=v(64), rkey=v(32), swap_add=v(64), compare=v(64)))
    if op in (SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_LAST_IMM, WRITE_ONLY_IMM):
        out.append(ImmDt(imm=v(32)))
    if op in (SEND_LAST_INV, SEND_ONLY_INV):
        out.append(IETH(rkey=v(32)))
    return out


def roce_frame(opcode: int = SEND_ONLY, payload: bytes = b"", *, ipv6: bool = False,
               vlan: int | None = None, pcp: int = 0, src_mac: str = "02:00:00:00:00:01",
               dst_mac: str = "02:00:00:00:00:02", src_ip: str | None = None,
               dst_ip: str | None = None, sport: int = 0xC000, tos: int = 0, ttl: int = 64,
               fl: int = 0, exts: list[Packet] | None = None, **bth_fields) -> Packet:
    """A full RoCEv2 frame (no FCS). ``bth_fields`` go to scapy's BTH (dqpn, psn,
    fecn, becn, ackreq, pkey, padcount, ...). ``exts`` overrides the extension
    headers (default: the opcode's, zero-filled). ``raw(pkt)`` gives the bytes; the
    ICRC is computed by scapy."""
    pkt: Packet = Ether(src=src_mac, dst=dst_mac)
    if vlan is not None:
        pkt = pkt / Dot1Q(vlan=vlan, prio=pcp)
    if ipv6:
        pkt = pkt / IPv6(src=src_ip or "fd00::1", dst=dst_ip or "fd00::2", tc=tos, fl=fl,
                         hlim=ttl, nh=17)
    else:
        pkt = pkt / IP(src=src_ip or "10.0.0.1", dst=dst_ip or "10.0.0.2", tos=tos, ttl=ttl)
    pkt = pkt / UDP(sport=sport, dport=ROCEV2_PORT, chksum=0) / BTH(opcode=opcode, icrc=None,
                                                                     **bth_fields)
    for e in (ext_headers(opcode) if exts is None else exts):
        pkt = pkt / e
    if payload:
        pkt = pkt / Raw(payload)
    return pkt


def random_roce_frame(rng: random.Random, max_payload: int = 1024) -> bytes:
    """Random RoCEv2 frame bytes: random opcode, headers, VLAN or not, IPv4/IPv6."""
    opcode = rng.choice(RC_OPCODES + [CNP])
    ipv6 = rng.random() < 0.5
    vlan = rng.randrange(4096) if rng.random() < 0.4 else None
    if ipv6:
        src = ":".join(f"{rng.getrandbits(16):x}" for _ in range(8))
        dst = ":".join(f"{rng.getrandbits(16):x}" for _ in range(8))
    else:
        src = ".".join(str(rng.getrandbits(8)) for _ in range(4))
        dst = ".".join(str(rng.getrandbits(8)) for _ in range(4))
    n = 0 if opcode == CNP else rng.randint(0, max_payload) & ~3
    payload = bytes(rng.getrandbits(8) for _ in range(n))
    pkt = roce_frame(
        opcode, payload, ipv6=ipv6, vlan=vlan, pcp=rng.randrange(8),
        src_mac=":".join(f"{rng.getrandbits(8):02x}" for _ in range(6)),
        dst_mac=":".join(f"{rng.getrandbits(8):02x}" for _ in range(6)),
        src_ip=src, dst_ip=dst, sport=rng.getrandbits(16), tos=rng.getrandbits(8),
        ttl=rng.getrandbits(8), fl=rng.getrandbits(20) if ipv6 else 0,
        exts=ext_headers(opcode, rng),
        dqpn=rng.getrandbits(24), psn=rng.getrandbits(24), fecn=rng.getrandbits(1),
        becn=rng.getrandbits(1), resv6=rng.getrandbits(6), ackreq=rng.getrandbits(1),
        pkey=rng.getrandbits(16), solicited=rng.getrandbits(1), migreq=rng.getrandbits(1),
    )
    return bytes(pkt)


def icrc_reference(frame: bytes) -> bytes:
    """ICRC of ``frame`` (Ethernet frame without ICRC and FCS) from the REFERENCES.md
    masking rules, with zlib.crc32. Returns the 4 ICRC bytes in wire order."""
    l3 = 18 if frame[12:14] == b"\x81\x00" else 14
    et = frame[l3 - 2:l3]
    m = bytearray(frame[l3:])
    if et == b"\x08\x00":
        ihl = (m[0] & 0xF) * 4
        m[1] = 0xFF      # DSCP/ECN
        m[8] = 0xFF      # TTL
        m[10:12] = b"\xff\xff"  # header checksum
        l4 = ihl
    elif et == b"\x86\xdd":
        m[0] |= 0x0F     # traffic class (high nibble)
        m[1:4] = b"\xff\xff\xff"  # traffic class low nibble + flow label
        m[7] = 0xFF      # hop limit
        l4 = 40
    else:
        raise ValueError("not IP")
    m[l4 + 6:l4 + 8] = b"\xff\xff"  # UDP checksum
    m[l4 + 12] = 0xFF                # BTH FECN, BECN, resv6
    crc = zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF
    return struct.pack("<I", crc)


__all__ = [
    "AETH", "BTH", "RETH", "ImmDt", "IETH", "AtomicETH", "AtomicAckETH", "CNPPadding",
    "roce_frame", "random_roce_frame", "ext_headers", "icrc_reference", "UDP", "IP", "IPv6",
]
