# SPDX-License-Identifier: Apache-2.0
"""Functional coverage of the RC transport (cocotb-coverage), sampled from the wire.

Collected when the simulation runs with COV=1 (`make cov`): PairEnv taps the frames each
NIC sends and the frames each NIC receives (after the link model, so after its losses,
reorderings and duplicates) and hands them to :class:`RcWireCoverage`. The classes are
computed here from the frames alone, with this module's own per-QP PSN trackers, never
from the RTL's internal state, so they stay valid when the engines are rebuilt:

``roce.resp.request``  (cross) request opcode x PSN class at the responder's input:
    opcode: send_first/middle/last/only, write_first/middle/last/only, read, atomic;
    PSN class against the tracker's expected PSN e of the destination QP
    (d = psn - e mod 2^24): ``new`` (d = 0), ``duplicate`` (d >= 2^23, behind),
    ``ahead`` (0 < d < 64: a gap inside the selective-repeat window) and
    ``far_ahead`` (64 <= d < 2^23). The tracker advances e by one on every new request
    and re-synchronises it from each ACK/NAK the responder sends (ACK p: e = p + 1;
    sequence or RNR NAK p: e = p), which also accounts for a READ's several PSNs.
``roce.req.event``     requester/completer events: ``retransmit_after_nak_seq``,
    ``retransmit_after_rnr``, ``retransmit_after_sack`` (selective resend),
    ``retransmit_after_timeout`` (no NAK, RNR NAK or SACK since the previous send of
    that QP), ``rx_ack``, ``rx_nak_seq``, ``rx_nak_rnr``, ``rx_nak_inv_req``,
    ``rx_nak_rem_access``, ``rx_nak_rem_op``, ``rx_atomic_ack``, ``rx_read_resp``,
    ``rx_sack``, ``rx_cnp``.
``roce.wc.status``     completion status x send/receive (from the scoreboard's
    completions, tb/roce/scoreboard.py): SUCCESS, WR_FLUSH_ERR, REM_ACCESS_ERR,
    REM_INV_REQ_ERR, REM_OP_ERR, LOC_PROT_ERR, LOC_LEN_ERR, RETRY_EXC_ERR,
    RNR_RETRY_EXC_ERR, LOC_QP_OP_ERR.

At the end of the simulation the database goes to ``func_cov-<module>-<pid>.yml`` in
the build directory; sim/cov.py merges every such file of a `make cov` run and lists
the bins no test reached (build/cov/func_uncovered.txt).
"""

from __future__ import annotations

import atexit
import os
import struct
from pathlib import Path

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db

REQ_OPS = ("send_first", "send_middle", "send_last", "send_only", "write_first",
           "write_middle", "write_last", "write_only", "read", "atomic")
PSN_CLASSES = ("new", "duplicate", "ahead", "far_ahead")
REQ_EVENTS = ("retransmit_after_nak_seq", "retransmit_after_rnr", "retransmit_after_sack",
              "retransmit_after_timeout", "rx_ack", "rx_nak_seq", "rx_nak_rnr",
              "rx_nak_inv_req", "rx_nak_rem_access", "rx_nak_rem_op", "rx_atomic_ack",
              "rx_read_resp", "rx_sack", "rx_cnp")
WC_STATUSES = ("SUCCESS", "WR_FLUSH_ERR", "REM_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_OP_ERR",
               "LOC_PROT_ERR", "LOC_LEN_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
               "LOC_QP_OP_ERR")

# BTH opcodes (IBTA vol. 1, RC) and fabnic's SACK (docs/roce_sr.md)
_OP_CLASS: dict[int, str] = {}
for _op, _cls in ((0x00, "send_first"), (0x01, "send_middle"), (0x02, "send_last"),
                  (0x03, "send_last"), (0x04, "send_only"), (0x05, "send_only"),
                  (0x16, "send_last"), (0x17, "send_only"),
                  (0x06, "write_first"), (0x07, "write_middle"), (0x08, "write_last"),
                  (0x09, "write_last"), (0x0A, "write_only"), (0x0B, "write_only"),
                  (0x0C, "read"), (0x13, "atomic"), (0x14, "atomic")):
    _OP_CLASS[_op] = _cls
OP_ACK, OP_ATOMIC_ACK, OP_CNP, OP_SACK = 0x11, 0x12, 0x81, 0xC0
READ_RESP = range(0x0D, 0x11)
_NAK_CODE = {0: "rx_nak_seq", 1: "rx_nak_inv_req", 2: "rx_nak_rem_access", 3: "rx_nak_rem_op"}


@CoverPoint("roce.resp.opcode", xf=lambda op, cls: op, bins=list(REQ_OPS))
@CoverPoint("roce.resp.psn_class", xf=lambda op, cls: cls, bins=list(PSN_CLASSES))
@CoverCross("roce.resp.request", items=["roce.resp.opcode", "roce.resp.psn_class"])
def _sample_request(op: str, cls: str) -> None:
    pass


@CoverPoint("roce.req.event", xf=lambda ev: ev, bins=list(REQ_EVENTS))
def _sample_event(ev: str) -> None:
    pass


@CoverPoint("roce.wc.status", xf=lambda status, kind: status, bins=list(WC_STATUSES))
@CoverPoint("roce.wc.kind", xf=lambda status, kind: kind, bins=["send", "recv"])
@CoverCross("roce.wc.status_x_kind", items=["roce.wc.status", "roce.wc.kind"])
def _sample_wc(status: str, kind: str) -> None:
    pass


def parse_bth(frame: bytes) -> tuple[int, int, int, bytes] | None:
    """(opcode, destination QPN, PSN, bytes after the BTH) of a RoCEv2 frame, else None."""
    if len(frame) < 14:
        return None
    et = struct.unpack_from(">H", frame, 12)[0]
    if et == 0x0800 and len(frame) >= 34:
        ihl = (frame[14] & 0xF) * 4
        if frame[23] != 17:
            return None
        udp = 14 + ihl
    elif et == 0x86DD and len(frame) >= 62:
        if frame[20] != 17:
            return None
        udp = 54
    else:
        return None
    if len(frame) < udp + 8 + 12 or struct.unpack_from(">H", frame, udp + 2)[0] != 4791:
        return None
    b = udp + 8
    op = frame[b]
    dqpn = int.from_bytes(frame[b + 5:b + 8], "big")
    psn = int.from_bytes(frame[b + 9:b + 12], "big")
    return op, dqpn, psn, frame[b + 12:]


class RcWireCoverage:
    """Samples the coverage points above from frames; one per simulation (PairEnv).

    The QP pairs must be announced with :meth:`pair` (PairEnv.connect/connect_rc and
    the scoreboard do): frames carry only the destination QPN, so the trackers need to
    know which QP on the other side a QP talks to."""

    def __init__(self) -> None:
        self.epsn: dict[tuple[str, int], int] = {}       # (side, responder QPN) -> e
        self.psn_hi: dict[tuple[str, int], int] = {}     # (side, requester QPN) -> hi
        self.cause: dict[tuple[str, int], str] = {}      # (side, requester QPN) -> why
        self.dest: dict[tuple[str, int], int] = {}       # (side, QPN) -> peer's QPN
        self.local: dict[tuple[str, int], int] = {}      # (side, peer's QPN) -> QPN

    def pair(self, qpn_a: int, qpn_b: int, psn_a: int | None = None,
             psn_b: int | None = None) -> None:
        """QP qpn_a on NIC A is connected to qpn_b on NIC B; psn_a / psn_b are the first
        send PSNs of A's and B's QP (the other side's expected PSN)."""
        for side, q, peer in (("a", qpn_a, qpn_b), ("b", qpn_b, qpn_a)):
            self.dest[(side, q)] = peer
            self.local[(side, peer)] = q
        if psn_a is not None:
            self.epsn[("b", qpn_b)] = psn_a & 0xFFFFFF
        if psn_b is not None:
            self.epsn[("a", qpn_a)] = psn_b & 0xFFFFFF

    def tx(self, side: str, frame: bytes) -> None:
        """A frame ``side`` sends (before the link)."""
        p = parse_bth(frame)
        if p is None:
            return
        op, dqpn, psn, rest = p
        me = self.local.get((side, dqpn))          # the sending QP, when announced
        if op in _OP_CLASS:
            if me is None:
                return
            k = (side, me)
            hi = self.psn_hi.get(k)
            if hi is not None and ((hi - psn) & 0xFFFFFF) < (1 << 23):
                _sample_event("retransmit_after_" + self.cause.get(k, "timeout"))
                self.cause[k] = "timeout"
            else:
                self.psn_hi[k] = psn
                self.cause.pop(k, None)
        elif op in (OP_ACK, OP_ATOMIC_ACK) and rest and me is not None:
            # the responder's own statement of its expected PSN re-synchronises ours
            kind = rest[0] >> 5
            if kind == 0 or op == OP_ATOMIC_ACK:
                self.epsn[(side, me)] = (psn + 1) & 0xFFFFFF
            elif kind in (1, 3):
                self.epsn[(side, me)] = psn

    def rx(self, side: str, frame: bytes) -> None:
        """A frame arriving at ``side`` (after the link)."""
        p = parse_bth(frame)
        if p is None:
            return
        op, dqpn, psn, rest = p
        cls = _OP_CLASS.get(op)
        if cls is not None:
            k = (side, dqpn)
            e = self.epsn.setdefault(k, psn)
            d = (psn - e) & 0xFFFFFF
            pc = ("new" if d == 0 else "duplicate" if d >= (1 << 23)
                  else "ahead" if d < 64 else "far_ahead")
            _sample_request(cls, pc)
            if d == 0:
                self.epsn[k] = (e + 1) & 0xFFFFFF
            return
        k = (side, dqpn)                   # the requester QP this response is for
        if op == OP_ACK and rest:
            syn = rest[0]
            kind = syn >> 5
            if kind == 0:
                _sample_event("rx_ack")
            elif kind == 1:
                _sample_event("rx_nak_rnr")
                self.cause[k] = "rnr"
            elif kind == 3:
                ev = _NAK_CODE.get(syn & 0x1F)
                if ev:
                    _sample_event(ev)
                if syn & 0x1F == 0:
                    self.cause[k] = "nak_seq"
        elif op == OP_ATOMIC_ACK:
            _sample_event("rx_atomic_ack")
        elif op in READ_RESP:
            _sample_event("rx_read_resp")
        elif op == OP_SACK:
            _sample_event("rx_sack")
            self.cause[k] = "sack"
        elif op == OP_CNP:
            _sample_event("rx_cnp")

    @staticmethod
    def wc(status: str, kind: str) -> None:
        if status in WC_STATUSES:
            _sample_wc(status, kind)


_COV: RcWireCoverage | None = None


def wire_coverage() -> RcWireCoverage | None:
    """The simulation's coverage sampler when COV=1, else None."""
    global _COV
    if _COV is None and os.environ.get("COV", "0") not in ("", "0"):
        _COV = RcWireCoverage()
        atexit.register(_export)
    return _COV


def _export() -> None:
    out = Path(os.environ.get("FABNIC_BUILD_DIR", "."))
    mod = os.environ.get("COCOTB_TEST_MODULES", os.environ.get("MODULE", "tb")).split(",")[0]
    coverage_db.export_to_yaml(filename=str(out / f"func_cov-{mod}-{os.getpid()}.yml"))
