# SPDX-License-Identifier: Apache-2.0
"""Golden model of fabnic_roce_wr_gate, written from the rules in its header comment.

Cycle-level bookkeeping, no pipeline:

- write-completion order: ``issued`` counts accepted write descriptors, ``completed``
  counts completions (in issue order, all clients together). An entry offered to a lane
  is tagged with ``issued`` as it was in the cycle it was first offered (writes
  accepted in that cycle are not counted); it may leave only once ``completed`` has
  reached the tag.
- fault tables, one per engine (responder: completion source 0, completer: source 1;
  other sources mark nothing): the first failed completion of a QP is kept with its
  sequence number k (the number of completions before it) and, for the responder,
  the packet's PSN p and SEND flag, until the QP is written in RESET or INIT.
- hit: the entry's QP is marked in its lane's table (lanes 0..2 the responder's, lane
  3 the completer's) and tag > k.
- conversions (lane 0: ACK jobs, 1: READ response jobs, 2: receive CQEs, 3: send CQEs)
  as listed in the header; ``convert`` returns the entry as it must leave, or None
  when it is dropped.

An entry's outcome depends only on faults with k < tag, all known once ``completed``
reached the tag, and on the lane's earlier entries (the "first conversion" of the CQE
lanes), so the model decides it then (``resolve``); the test resets a QP only while no
entry or write of it is in flight, as the engines do.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

OP_ACK = 0x11
OP_ATOMIC_ACK = 0x12
OP_CNP = 0x81
OP_SR_SACK = 0xC0

SYN_ACK = 0x1F
SYN_RNR = 0x20
SYN_NAK_SEQ = 0x60
SYN_NAK_INV = 0x61
SYN_NAK_ACCESS = 0x62
SYN_NAK_OP = 0x63
ERR_NAKS = (SYN_NAK_INV, SYN_NAK_ACCESS, SYN_NAK_OP)   # NAKs that move the QP to ERR

WS_SUCCESS = 0
WS_LOC_LEN_ERR = 1
WS_LOC_PROT_ERR = 2
WS_WR_FLUSH_ERR = 3
WS_REM_ACCESS = 4
WS_REM_INV_REQ = 5
WS_REM_OP_ERR = 6
WS_RETRY_EXC = 7
WS_RNR_RETRY_EXC = 8
WS_LOC_QP_OP_ERR = 9

LANES = ("job", "rjob", "rcqe", "ccqe")
LANE_QPN = ("lqpn", "lqpn", "qpn", "qpn")
LANE_ENGINE = (0, 0, 0, 1)      # fault table a lane reads: 0 responder, 1 completer


@dataclass(frozen=True)
class Fault:
    k: int          # sequence number of the failed completion
    p: int          # PSN of the failing packet (responder)
    send: bool      # the failing packet was a SEND (responder)


class WrGateModel:
    """``known_issues``: names of documented RTL limits the caller avoids (the random
    tests stay clear of them; the directed tests of the test file check them)."""

    def __init__(self, gate: bool = True, known_issues: frozenset[str] = frozenset()) -> None:
        self.gate = gate
        self.known_issues = known_issues
        self.issued = 0
        self.completed = 0
        self.faults: tuple[dict[int, Fault], dict[int, Fault]] = ({}, {})
        self.first_done: tuple[set[int], set[int]] = (set(), set())   # lanes 2, 3
        self.pending: list[deque[tuple[int, dict]]] = [deque() for _ in LANES]
        self.expect: list[deque[tuple[int, dict]]] = [deque() for _ in LANES]
        self.stats: list[Counter] = [Counter() for _ in LANES]
        self.fault_events = Counter()

    # ------------------------------------------------------------------ events
    def issue(self) -> None:
        self.issued += 1

    def completion(self, err: bool, src: int, qpn: int, psn: int, send: bool) -> None:
        k = self.completed
        self.completed += 1
        if err and src in (0, 1):
            table = self.faults[src]
            if qpn not in table:
                table[qpn] = Fault(k, psn, send)
                self.fault_events["first" + ("_resp" if src == 0 else "_cpl")] += 1
            else:
                self.fault_events["repeat"] += 1
        elif err:
            self.fault_events["other_src"] += 1
        self.resolve()

    def qp_write(self, qpn: int, reset: bool) -> None:
        """A QP context write; in RESET or INIT it forgets the QP's faults."""
        if reset:
            for e in (0, 1):
                self.faults[e].pop(qpn, None)
                self.first_done[e].discard(qpn)

    def offer(self, lane: int, tag: int, entry: dict) -> None:
        """An entry accepted by lane ``lane``, tagged ``tag`` at its first offer."""
        self.pending[lane].append((tag, entry))
        self.resolve()

    # ------------------------------------------------------------------ rules
    def resolve(self) -> None:
        for lane in range(len(LANES)):
            pq = self.pending[lane]
            while pq and (not self.gate or pq[0][0] <= self.completed):
                tag, e = pq.popleft()
                out = self.convert(lane, tag, e) if self.gate else dict(e)
                if not self.gate:
                    self.stats[lane]["pass"] += 1
                if out is not None:
                    self.expect[lane].append((tag, out))

    def hit(self, lane: int, tag: int, e: dict) -> Fault | None:
        f = self.faults[LANE_ENGINE[lane]].get(e[LANE_QPN[lane]])
        return f if f is not None and tag > f.k else None

    def convert(self, lane: int, tag: int, e: dict) -> dict | None:
        st = self.stats[lane]
        f = self.hit(lane, tag, e)
        if f is None:
            st["pass"] += 1
            return dict(e)
        if lane == 0:
            nak = e["opcode"] == OP_ACK and e["syn"] in ERR_NAKS
            if e["opcode"] == OP_CNP:
                st["hit_cnp_pass"] += 1
                return dict(e)
            if nak and e["syn"] == SYN_NAK_OP and e["psn"] == f.p:
                st["hit_own_nak_pass"] += 1
                return dict(e)
            if nak:
                st["hit_nak_to_op_at_p"] += 1
                return dict(e, psn=f.p, syn=SYN_NAK_OP)
            st["hit_drop"] += 1
            return None
        if lane == 1:
            st["hit_drop"] += 1
            return None
        if e["status"] not in (WS_SUCCESS, WS_LOC_QP_OP_ERR):
            st["hit_other_status_pass"] += 1
            return dict(e)
        eng = LANE_ENGINE[lane]
        q = e["qpn"]
        send = True if lane == 3 else f.send
        if send and q not in self.first_done[eng]:
            self.first_done[eng].add(q)
            status = WS_LOC_QP_OP_ERR
            st["hit_to_loc_qp_op_err"] += 1
        else:
            status = WS_WR_FLUSH_ERR
            st["hit_to_flush"] += 1
        return dict(e, status=status, byte_len=0, imm=0, imm_valid=0)

    def idle(self) -> bool:
        return not any(self.pending) and not any(self.expect)
