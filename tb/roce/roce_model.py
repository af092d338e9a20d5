# SPDX-License-Identifier: Apache-2.0
"""Python reference models for the RoCE transport blocks (written from the IBTA RC
opcode table and docs/roce.md, independent of the RTL):

- opcode -> header layout, header record (fabnic_roce_pkg::roce_hdr_t) pack/unpack,
  expected RX decode of a byte string;
- memory-region table and check rules;
- 24-bit PSN arithmetic (modulo 2^24, window 2^23).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabnic_tb import roce_layers as rl

# ---------------------------------------------------------------- header layout
BTH_BYTES = 12
EXT_BYTES = {"reth": 16, "aeth": 4, "immdt": 4, "ieth": 4, "atomic_eth": 28,
             "atomic_ack_eth": 8}
KNOWN = set(range(0x00, 0x15)) | {rl.SEND_LAST_INV, rl.SEND_ONLY_INV, rl.CNP}
PAYLOAD_OPS = set(range(0x00, 0x0C)) | {rl.READ_RESP_FIRST, rl.READ_RESP_MIDDLE,
                                        rl.READ_RESP_LAST, rl.READ_RESP_ONLY,
                                        rl.SEND_LAST_INV, rl.SEND_ONLY_INV}

ERR_NONE, ERR_SHORT, ERR_TVER, ERR_OPCODE = 0, 1, 2, 3


def layout(op: int) -> dict[str, bool]:
    """Extension headers per opcode (IBTA vol. 1 ch. 9 RC table)."""
    return {
        "reth": op in (rl.WRITE_FIRST, rl.WRITE_ONLY, rl.WRITE_ONLY_IMM, rl.READ_REQUEST),
        "aeth": op in (rl.READ_RESP_FIRST, rl.READ_RESP_LAST, rl.READ_RESP_ONLY, rl.ACK,
                       rl.ATOMIC_ACK),
        "immdt": op in (rl.SEND_LAST_IMM, rl.SEND_ONLY_IMM, rl.WRITE_LAST_IMM,
                        rl.WRITE_ONLY_IMM),
        "ieth": op in (rl.SEND_LAST_INV, rl.SEND_ONLY_INV),
        "atomic_eth": op in (rl.COMPARE_SWAP, rl.FETCH_ADD),
        "atomic_ack_eth": op == rl.ATOMIC_ACK,
        "cnp": op == rl.CNP,
    }


def hdr_len(op: int) -> int:
    if op not in KNOWN:
        return BTH_BYTES
    lay = layout(op)
    n = BTH_BYTES + sum(EXT_BYTES[k] for k in EXT_BYTES if lay[k])
    return n + (16 if lay["cnp"] else 0)


# record fields, most significant first, with widths (fabnic_roce_pkg::roce_hdr_t)
REC_FIELDS: list[tuple[str, int]] = [
    ("bth", 96), ("has_reth", 1), ("has_aeth", 1), ("has_immdt", 1), ("has_ieth", 1),
    ("has_atomic_eth", 1), ("has_atomic_ack_eth", 1), ("is_cnp", 1), ("reth", 128),
    ("aeth", 32), ("immdt", 32), ("ieth", 32), ("atomic_eth", 224), ("atomic_ack_eth", 64),
    ("hdr_len", 6), ("err", 2),
]
REC_BITS = sum(w for _, w in REC_FIELDS)


@dataclass
class HdrRec:
    bth: int = 0
    has_reth: int = 0
    has_aeth: int = 0
    has_immdt: int = 0
    has_ieth: int = 0
    has_atomic_eth: int = 0
    has_atomic_ack_eth: int = 0
    is_cnp: int = 0
    reth: int = 0
    aeth: int = 0
    immdt: int = 0
    ieth: int = 0
    atomic_eth: int = 0
    atomic_ack_eth: int = 0
    hdr_len: int = 0
    err: int = 0
    extra: dict[str, int] = field(default_factory=dict, compare=False)

    def pack(self) -> int:
        v = 0
        for name, w in REC_FIELDS:
            x = getattr(self, name)
            assert 0 <= x < (1 << w), (name, x)
            v = (v << w) | x
        return v

    @classmethod
    def unpack(cls, v: int) -> HdrRec:
        r = cls()
        for name, w in reversed(REC_FIELDS):
            setattr(r, name, v & ((1 << w) - 1))
            v >>= w
        return r


def bth_int(opcode: int, solicited: int, migreq: int, padcount: int, version: int, pkey: int,
            fecn: int, becn: int, resv6: int, dqpn: int, ackreq: int, resv7: int,
            psn: int) -> int:
    """BTH as a 96-bit number, first wire byte most significant (IBTA field order)."""
    v = 0
    for x, w in ((opcode, 8), (solicited, 1), (migreq, 1), (padcount, 2), (version, 4),
                 (pkey, 16), (fecn, 1), (becn, 1), (resv6, 6), (dqpn, 24), (ackreq, 1),
                 (resv7, 7), (psn, 24)):
        v = (v << w) | x
    return v


def ext_ints(exts: list) -> dict[str, int]:
    """Field values of scapy extension layers as the record's integers."""
    out: dict[str, int] = {}
    for e in exts:
        if isinstance(e, rl.RETH):
            out["reth"] = (e.va << 64) | (e.rkey << 32) | e.dlen
        elif isinstance(e, rl.AETH):
            out["aeth"] = (e.syndrome << 24) | e.msn
        elif isinstance(e, rl.ImmDt):
            out["immdt"] = e.imm
        elif isinstance(e, rl.IETH):
            out["ieth"] = e.rkey
        elif isinstance(e, rl.AtomicETH):
            out["atomic_eth"] = (e.va << 160) | (e.rkey << 128) | (e.swap_add << 64) | e.compare
        elif isinstance(e, rl.AtomicAckETH):
            out["atomic_ack_eth"] = e.orig
    return out


def good_record(op: int, bth: int, exts: dict[str, int]) -> HdrRec:
    lay = layout(op)
    r = HdrRec(bth=bth, hdr_len=hdr_len(op), err=ERR_NONE)
    for k in ("reth", "aeth", "immdt", "ieth", "atomic_eth", "atomic_ack_eth"):
        if lay[k]:
            setattr(r, "has_" + k, 1)
            setattr(r, k, exts[k])
    r.is_cnp = int(lay["cnp"])
    return r


def rx_expect(pkt: bytes) -> tuple[int, bytes, bool]:
    """Header error code, expected payload and pad-error flag for a UDP payload that
    starts at the BTH (ICRC removed). Errors: short < 12, version, opcode, short < hdr."""
    op = pkt[0] if pkt else 0
    if len(pkt) < BTH_BYTES:
        return ERR_SHORT, b"", False
    if pkt[1] & 0xF:
        return ERR_TVER, b"", False
    if op not in KNOWN:
        return ERR_OPCODE, b"", False
    n = hdr_len(op)
    if len(pkt) < n:
        return ERR_SHORT, b"", False
    pad = (pkt[1] >> 4) & 3
    body = pkt[n:]
    if len(body) < pad:
        return ERR_NONE, b"", True
    return ERR_NONE, body[:len(body) - pad], False


def error_record(pkt: bytes, err: int) -> HdrRec:
    """Record for a packet with a header error: BTH bytes (zero-filled), no fields."""
    op = pkt[0] if pkt else 0
    b = (pkt[:BTH_BYTES] + bytes(BTH_BYTES))[:BTH_BYTES]
    return HdrRec(bth=int.from_bytes(b, "big"), hdr_len=hdr_len(op), err=err)


def pad_of(plen: int) -> int:
    return (-plen) % 4


# ---------------------------------------------------------------- PSN
PSN_MOD = 1 << 24


def psn_diff(a: int, b: int) -> int:
    """a - b as a signed number in [-2^23, 2^23)."""
    d = (a - b) % PSN_MOD
    return d - PSN_MOD if d >= PSN_MOD // 2 else d


def psn_lt(a: int, b: int) -> bool:
    return psn_diff(a, b) < 0


def psn_le(a: int, b: int) -> bool:
    return psn_diff(a, b) <= 0


def psn_add(a: int, n: int) -> int:
    return (a + n) % PSN_MOD


# ---------------------------------------------------------------- MR table
MR_OK, MR_ERR_INVALID, MR_ERR_TAG, MR_ERR_PD, MR_ERR_ACCESS, MR_ERR_BOUNDS = range(6)
ACC_LOCAL_WRITE, ACC_REMOTE_READ, ACC_REMOTE_WRITE, ACC_REMOTE_ATOMIC = 1, 2, 4, 8


@dataclass
class MrEntry:
    valid: bool = False
    tag: int = 0
    pd: int = 0
    access: int = 0
    base: int = 0
    length: int = 0
    host_base: int = 0


class MrModel:
    def __init__(self, num_mr: int) -> None:
        self.num_mr = num_mr
        self.tab = [MrEntry() for _ in range(num_mr)]

    def write(self, index: int, e: MrEntry) -> None:
        self.tab[index] = e

    def check(self, key: int, va: int, length: int, access: int, pd: int) -> tuple[int, int]:
        """(error code, translated address or 0)."""
        if length == 0:
            return MR_OK, va
        idx, tag = key >> 8, key & 0xFF
        if idx >= self.num_mr or not self.tab[idx].valid:
            return MR_ERR_INVALID, 0
        e = self.tab[idx]
        if tag != e.tag:
            return MR_ERR_TAG, 0
        if pd != e.pd:
            return MR_ERR_PD, 0
        if access & ~e.access:
            return MR_ERR_ACCESS, 0
        end = va + length
        if va < e.base or end > e.base + e.length or end > (1 << 64):
            return MR_ERR_BOUNDS, 0
        return MR_OK, (va - e.base + e.host_base) % (1 << 64)
