# SPDX-License-Identifier: Apache-2.0
"""Independent checker of the FEC port shim's wire format (docs/fec.md, "Port shim").

Given the frames a NIC sent (captured before the link), it
- splits off the FEC trailers (data: 8 bytes, repair: 12 bytes after the IP datagram),
- checks every RC data frame of an FEC-on port carries a data trailer with seq + 1,
- checks each repair frame with scapy (IPv4 checksum, UDP length, BTH opcode 0xF0,
  pad count) and its ICRC (zlib reference),
- recomputes every repair payload and coded length with the numpy reference
  encoder (tb/fec/fec_model.py) from the data frames of its group, and the
  group's first seq,
- checks NAK frames (opcode 0xF1: PSN, payload and trailer agree) and that every
  retransmitted data frame is byte-identical (trailer included) to the original of
  its seq,
and returns the data frames without trailers for the RoCE wire check."""

from __future__ import annotations

from dataclasses import dataclass, field

from fec.fec_model import encode_group

PROTECTED_OPS = set(range(0x00, 0x11)) | {0x13, 0x14}
REPAIR_OP = 0xF0
NAK_OP = 0xF1


@dataclass
class FecWireStats:
    data: int = 0
    repairs: int = 0
    plain: int = 0
    naks: int = 0
    rtx: int = 0
    groups: set = field(default_factory=set)


def _olen(f: bytes) -> int:
    return 14 + int.from_bytes(f[16:18], "big")


def _is_roce4(f: bytes) -> bool:
    return (len(f) >= 54 and f[12:14] == b"\x08\x00" and f[14] == 0x45 and f[23] == 17
            and int.from_bytes(f[36:38], "big") == 4791)


def check_fec_wire(frames: list[tuple[str, bytes]], r_cfg: int, d_cfg: int,
                   max_len: int = 8192) -> tuple[list[tuple[str, bytes]], dict[str, FecWireStats]]:
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    from fabnic_tb import roce_layers as rl

    out: list[tuple[str, bytes]] = []
    stats: dict[str, FecWireStats] = {}
    # per side: gid -> {idx: (frame, seq)}
    groups: dict[str, dict[int, dict[int, tuple[bytes, int]]]] = {}
    next_seq: dict[str, int] = {}
    sent: dict[tuple[str, int], bytes] = {}

    def check_hdr(side: str, body: bytes, what: str) -> None:
        assert body[-4:] == rl.icrc_reference(body[:-4]), f"{side}: {what} ICRC"
        p = Ether(body)
        want = IP(bytes(p[IP]))
        del want.chksum
        assert IP(bytes(want)).chksum == p[IP].chksum, f"{side}: {what} IPv4 checksum"
        assert p[UDP].len == len(bytes(p[UDP])), f"{side}: {what} UDP length"

    for side, f in frames:
        st = stats.setdefault(side, FecWireStats())
        g = groups.setdefault(side, {})
        if not _is_roce4(f):
            out.append((side, f))
            st.plain += 1
            continue
        olen = _olen(f)
        op = f[42]
        if op == NAK_OP:
            assert len(f) == olen + 12, f"{side}: NAK frame length"
            body, tr = f[:olen], f[olen:]
            check_hdr(side, body, "NAK")
            assert tr[0] == 0xFE and tr[1] == 0x03 and tr[8:] == bytes(4), f"{side}: NAK trailer"
            assert body[51:54] == b"\0" + tr[2:4], f"{side}: NAK PSN"
            assert body[54:62] == tr[2:4] + bytes(2) + tr[4:8], f"{side}: NAK payload"
            st.naks += 1
            continue
        if op == REPAIR_OP:
            assert len(f) == olen + 12, f"{side}: repair frame length {len(f)} vs IP {olen}"
            body, tr = f[:olen], f[olen:]
            assert tr[0] == 0xFE and tr[1] == 0x02, f"{side}: repair trailer {tr.hex()}"
            gid, row, cnt = int.from_bytes(tr[2:4], "big"), tr[4], tr[5]
            clen, fseq, d, r = int.from_bytes(tr[6:8], "big"), int.from_bytes(tr[8:10], "big"), tr[10], tr[11]
            assert (d, r) == (d_cfg, r_cfg), f"{side}: trailer D/R {d}/{r}"
            check_hdr(side, body, "repair")
            pad = (body[43] >> 4) & 3
            assert int.from_bytes(body[51:54], "big") == gid, f"{side}: repair PSN != gid"
            payload = body[54:len(body) - 4 - pad]
            assert body[len(body) - 4 - pad:len(body) - 4] == bytes(pad), f"{side}: pad bytes"
            assert (len(payload) + pad) % 4 == 0
            members = g.get(gid)
            assert members, f"{side}: repair for unknown group {gid}"
            idxs = sorted(members)
            assert idxs == list(range(len(idxs))), f"{side}: group {gid} indices {idxs}"
            assert cnt == len(idxs), f"{side}: group {gid} cnt {cnt} vs {len(idxs)} data frames"
            assert fseq == members[0][1], f"{side}: group {gid} fseq {fseq} vs {members[0][1]}"
            for i in idxs:   # seq = fseq + idx * D: how the receiver numbers recoveries
                assert members[i][1] == (fseq + i * d) & 0xFFFF, f"{side}: group {gid} seq of {i}"
            ref = encode_group([members[i][0] for i in idxs], r, gid)[row]
            assert payload == ref.payload, f"{side}: repair payload gid {gid} row {row}"
            assert clen == ref.coded_len, f"{side}: coded length gid {gid} row {row}"
            st.repairs += 1
            continue
        if op in PROTECTED_OPS and olen <= max_len:
            assert len(f) == olen + 8, f"{side}: protected opcode {op:#x} without data trailer"
            body, tr = f[:olen], f[olen:]
            assert tr[0] == 0xFE and tr[1] == 0x01, f"{side}: data trailer {tr.hex()}"
            gid, idx, seq = int.from_bytes(tr[2:4], "big"), tr[4], int.from_bytes(tr[6:8], "big")
            want_seq = next_seq.get(side, 0)
            if (side, seq) in sent and seq != want_seq:   # a selective retransmission
                assert sent[(side, seq)] == f, f"{side}: resent seq {seq} differs from original"
                st.rtx += 1
                out.append((side, body))
                continue
            sent[(side, seq)] = f
            assert seq == want_seq, f"{side}: seq {seq}, expected {want_seq}"
            next_seq[side] = (seq + 1) & 0xFFFF
            if idx == 0:
                g[gid] = {}
            assert gid in g and idx not in g[gid], f"{side}: gid {gid} idx {idx} out of order"
            g[gid][idx] = (body, seq)
            st.groups.add(gid)
            st.data += 1
            out.append((side, body))
            continue
        assert len(f) == olen or len(f) == 60, f"{side}: unprotected frame with extra bytes"
        out.append((side, f))
        st.plain += 1
    return out, stats
