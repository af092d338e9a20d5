# SPDX-License-Identifier: Apache-2.0
"""Reference model of RoCE RC semantics, for checking the transport engine.

Independent of the RTL: it knows nothing about packets, PSNs or rings. It holds the
host memory of one or two nodes (NIC + host), their memory regions and connected QP
pairs, and executes posted work requests *serialized in posting order*: each WR runs
to completion as soon as it can (a SEND or WRITE_WITH_IMM with no receive posted at
the peer waits, with everything behind it on that QP, until one is posted). That is
what a real engine produces whenever the WRs in flight at the same time touch
disjoint memory (``random_scenario`` only generates such mixes) -- RC guarantees
per-QP order, nothing across QPs.

Semantics (IBTA vol. 1 ch. 9/10/11, Linux verbs):

* RDMA WRITE places ``length`` local bytes at the remote address; READ copies remote
  bytes into the local buffer; SEND consumes the peer's oldest posted receive and
  places the data at its buffer; *_WITH_IMM carry the immediate into the receive
  completion (WRITE_WITH_IMM consumes a receive, its byte_len is the WRITE length,
  its buffer is not touched). CMP_AND_SWP / FETCH_AND_ADD act on the 64-bit
  little-endian word at the remote address and return the original value into the
  local 8-byte buffer.
* Zero-length WRITE/READ/SEND check no key (IBTA C9-88, as fabnic_roce_mr_table).
* Completions per QP in posting order: successful unsignaled send WRs produce none;
  byte_len of a send completion is the WR length (8 for atomics); errors and flushes
  are always reported (signaled or not) with byte_len 0.
* Error cases (both QPs involved move to ERR; once a QP is in ERR every send WR
  still queued or posted later completes WR_FLUSH_ERR and every posted receive
  WR_FLUSH_ERR, in order):

  | cause | requester WR | responder |
  | --- | --- | --- |
  | bad rkey (unknown/stale key), PD mismatch, out of bounds, MR lacks the right | REM_ACCESS_ERR | ERR, nothing written/read |
  | responder QP access flags lack REMOTE_WRITE/READ/ATOMIC | REM_ACCESS_ERR (rxe says REM_INV_REQ_ERR) | ERR |
  | atomic remote address not 8-byte aligned | REM_INV_REQ_ERR | ERR |
  | SEND longer than the receive buffer | REM_INV_REQ_ERR (NAK invalid request) | receive LOC_LEN_ERR (verbs/mlx5; rxe reports REM_INV_REQ_ERR), buffer contents undefined |
  | receive buffer lkey fails (key, PD, bounds, LOCAL_WRITE) | REM_OP_ERR (NAK remote operational) | receive LOC_PROT_ERR |
  | local lkey fails (source: key/PD/bounds; READ/atomic destination also LOCAL_WRITE) | LOC_PROT_ERR, nothing sent | untouched |
  | peer QP in ERR (drops requests) | RETRY_EXC_ERR | -- |
  | no receive posted by :meth:`RcModel.finish` and rnr_retry < 7 | RNR_RETRY_EXC_ERR | untouched |
  | responder's host memory fails a write of the WRITE/SEND data (:meth:`RcModel.fail_writes`) | REM_OP_ERR (NAK remote operational) | ERR; a SEND's receive LOC_QP_OP_ERR; the target range undefined |
  | requester's host memory fails the write of READ data / an atomic's original value | LOC_QP_OP_ERR | untouched (an atomic has executed); the local range undefined |
  | requester's host memory fails a read of WRITE/SEND data (:meth:`RcModel.fail_reads`; persistent) | LOC_QP_OP_ERR (every resend fails) | not ERR; a WRITE's target range and a SEND's receive buffer undefined (earlier packets may land); the receive not completed |
  | responder's host memory fails a read of READ data (transient or persistent: the responder cannot take back a response that left without its data) | REM_OP_ERR (NAK remote operational); the local range undefined (earlier responses may land) | ERR |
  | responder's host memory fails the read of an atomic's target | REM_OP_ERR (NAK remote operational) | ERR, nothing written |

  With rnr_retry = 7 (infinite) a waiting WR stays pending and ``finish`` lists it.
* RNR timing (IBTA vol. 1 9.7.5.2.8, C9-160): an RNR NAK carries the responder QP's
  min_rnr_timer code (:meth:`RcModel.rnr_nak_code`); the requester resends no earlier
  than the time the code means (``RNR_TIMER_US``, the spec's table) and gives up after
  rnr_retry + 1 RNR NAKs (:meth:`RcModel.rnr_naks_to_error`). ``rnr_wait_window`` turns
  the time into clock cycles for a timer of a given tick.
  For error completions only wr_id, status and qpn are defined (verbs); ``compare_wcs``
  checks the opcode class (send vs receive) but not the opcode or byte_len.
"""

from __future__ import annotations

import random
import struct
from collections import deque
from dataclasses import dataclass, field, replace

from fabnic.verbs import Access, RecvWR, SendWR, WcOpcode, WorkCompletion, WrOpcode

U64 = (1 << 64) - 1

# IBTA vol. 1 9.7.5.2.8, table "Encoding for RNR NAK Timer Field": 5-bit code -> the
# least wait in microseconds (code 0 = 655.36 ms, 1 = 0.01 ms, ..., 31 = 491.52 ms)
RNR_TIMER_US = (655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280,
                1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440,
                81920, 122880, 163840, 245760, 327680, 491520)

REF_MHZ = 250                 # reference clock
REF_TICK_CYCLES = 1024        # ... in cycles (roce.timer_tick reset value)


def rnr_wait_window(code: int, tick: int = REF_TICK_CYCLES) -> tuple[int, int]:
    """(least, most) clock cycles between an RNR NAK with timer ``code`` reaching the
    requester and the requester's timer releasing the resend, for a timer whose tick is
    ``tick`` cycles and stands for 4.096 us (timer_tick = 1024 at 250 MHz; a smaller
    tick scales every time down in proportion). Least: the code's time. Most: that time
    rounded up to whole ticks, plus the tick in progress when the wait starts (a timer
    that counts tick boundaries cannot start mid-tick)."""
    least = -(-RNR_TIMER_US[code] * REF_MHZ * tick // REF_TICK_CYCLES)   # rounded up
    ticks = -(-RNR_TIMER_US[code] * 1000 // 4096)            # whole 4.096 us ticks
    return least, (ticks + 1) * tick

_WC_OF = {
    WrOpcode.SEND: WcOpcode.SEND, WrOpcode.SEND_WITH_IMM: WcOpcode.SEND,
    WrOpcode.RDMA_WRITE: WcOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM: WcOpcode.RDMA_WRITE,
    WrOpcode.RDMA_READ: WcOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP: WcOpcode.CMP_AND_SWP,
    WrOpcode.ATOMIC_FETCH_AND_ADD: WcOpcode.FETCH_AND_ADD,
}
_REMOTE_RIGHT = {
    WrOpcode.RDMA_WRITE: Access.REMOTE_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM: Access.REMOTE_WRITE,
    WrOpcode.RDMA_READ: Access.REMOTE_READ, WrOpcode.ATOMIC_CMP_AND_SWP: Access.REMOTE_ATOMIC,
    WrOpcode.ATOMIC_FETCH_AND_ADD: Access.REMOTE_ATOMIC,
}
_ATOMICS = (WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD)
_NEEDS_RQE = (WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM)


def _op(wr: SendWR) -> WrOpcode:
    return WrOpcode[wr.opcode] if isinstance(wr.opcode, str) else WrOpcode(wr.opcode)


@dataclass
class ModelMr:
    key: int
    pd: int
    va: int
    length: int
    access: Access
    addr: int            # host address of va


class Node:
    """A NIC (MR table) and its host memory: ``size`` bytes at host address ``base``."""

    def __init__(self, name: str, base: int, data: bytes) -> None:
        self.name = name
        self.base = base
        self.mem = bytearray(data)
        self.mrs: dict[int, ModelMr] = {}
        self.bad: list[tuple[int, int]] = []     # host ranges whose writes fail
        self.bad_rd: list[tuple[int, int]] = []  # host ranges whose reads fail

    def write_fails(self, addr: int, n: int) -> bool:
        """A write of [addr, addr+n) touches a range whose host writes fail."""
        return any(addr < a + ln and a < addr + n for a, ln in self.bad)

    def read_fails(self, addr: int, n: int) -> bool:
        """A read of [addr, addr+n) touches a range whose host reads fail."""
        return any(addr < a + ln and a < addr + n for a, ln in self.bad_rd)

    def read(self, addr: int, n: int) -> bytes:
        off = addr - self.base
        if off < 0 or off + n > len(self.mem):
            raise ValueError(f"{self.name}: [{addr:#x}, +{n}) outside the model memory")
        return bytes(self.mem[off:off + n])

    def write(self, addr: int, data: bytes) -> None:
        off = addr - self.base
        if off < 0 or off + len(data) > len(self.mem):
            raise ValueError(f"{self.name}: [{addr:#x}, +{len(data)}) outside the model memory")
        self.mem[off:off + len(data)] = data

    def translate(self, key: int, va: int, n: int, need: Access, pd: int) -> int | None:
        """Host address of [va, va+n) under ``key``, or None when the check fails
        (the fabnic_roce_mr_table rules; zero length passes without a check)."""
        if n == 0:
            return va
        mr = self.mrs.get(key)
        if mr is None or mr.pd != pd or need & ~mr.access:
            return None
        if va < mr.va or va + n > mr.va + mr.length:
            return None
        return va - mr.va + mr.addr


@dataclass
class ModelQp:
    node: Node
    qpn: int
    pd: int
    access: Access
    rnr_retry: int = 7
    min_rnr_timer: int = 1
    peer: ModelQp | None = None
    err: bool = False
    sq: deque[SendWR] = field(default_factory=deque)
    rq: deque[RecvWR] = field(default_factory=deque)
    send_wcs: list[WorkCompletion] = field(default_factory=list)
    recv_wcs: list[WorkCompletion] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, int]:
        return (self.node.name, self.qpn)


@dataclass
class RcResult:
    memory: dict[str, bytes]
    send_wcs: dict[tuple[str, int], list[WorkCompletion]]
    recv_wcs: dict[tuple[str, int], list[WorkCompletion]]
    pending: dict[tuple[str, int], list[int]]           # wr_ids still waiting (rnr_retry 7)
    undefined: list[tuple[str, int, int]]               # (node, host addr, length)
    bases: dict[str, int]

    def memory_mismatches(self, node: str, actual: bytes, limit: int = 10
                          ) -> list[tuple[int, int, int]]:
        """(host address, expected byte, actual byte) where they differ, skipping
        undefined ranges."""
        exp = self.memory[node]
        base = self.bases[node]
        if len(actual) != len(exp):
            raise ValueError(f"{node}: actual memory {len(actual)} bytes, model {len(exp)}")
        skip = bytearray(len(exp))
        for n, a, ln in self.undefined:
            if n == node:
                skip[a - base:a - base + ln] = b"\1" * ln
        out = []
        for i, (e, g) in enumerate(zip(exp, actual, strict=True)):
            if e != g and not skip[i]:
                out.append((base + i, e, g))
                if len(out) >= limit:
                    break
        return out


class RcModel:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.qps: dict[tuple[str, int], ModelQp] = {}
        self.undefined: list[tuple[str, int, int]] = []

    # ------------------------------------------------------------ setup
    def add_node(self, name: str, base: int, data: bytes) -> Node:
        node = Node(name, base, data)
        self.nodes[name] = node
        return node

    def add_mr(self, node: str, key: int, pd: int, addr: int, length: int,
               access: Access | int, va: int | None = None) -> None:
        self.nodes[node].mrs[key] = ModelMr(key, pd, addr if va is None else va, length,
                                            Access(access), addr)

    def fail_writes(self, node: str, addr: int, n: int) -> None:
        """Host memory of ``node`` answers every write to [addr, addr+n) with an error
        (AXI SLVERR): data the NIC places there is lost (the range becomes undefined)
        and the WR it belongs to fails (table above)."""
        self.nodes[node].bad.append((addr, n))

    def fail_reads(self, node: str, addr: int, n: int) -> None:
        """Host memory of ``node`` answers every read of [addr, addr+n) with an error
        (AXI SLVERR, persistent): the WR whose data read touches the range fails (table
        above). Give whole 64-byte words: the NIC reads whole words."""
        self.nodes[node].bad_rd.append((addr, n))

    def dereg_mr(self, node: str, key: int) -> None:
        del self.nodes[node].mrs[key]

    def add_qp(self, node: str, qpn: int, pd: int, access: Access | int,
               rnr_retry: int = 7, min_rnr_timer: int = 1) -> ModelQp:
        qp = ModelQp(self.nodes[node], qpn, pd, Access(access), rnr_retry, min_rnr_timer)
        self.qps[qp.key] = qp
        return qp

    def rnr_nak_code(self, qp: tuple[str, int]) -> int:
        """The timer code of the RNR NAKs a SEND of ``qp`` meets: its responder's
        min_rnr_timer (the responder's attribute, not the requester's)."""
        peer = self.qps[qp].peer
        assert peer is not None
        return peer.min_rnr_timer

    def rnr_naks_to_error(self, qp: tuple[str, int]) -> int | None:
        """RNR NAKs a WR of ``qp`` meets before it completes RNR_RETRY_EXC_ERR when no
        receive is ever posted: the first send plus rnr_retry resends (None: 7, retried
        forever)."""
        n = self.qps[qp].rnr_retry
        return None if n == 7 else n + 1

    def connect(self, a: tuple[str, int], b: tuple[str, int]) -> None:
        self.qps[a].peer = self.qps[b]
        self.qps[b].peer = self.qps[a]

    # ------------------------------------------------------------ posting
    def post_send(self, qp: tuple[str, int], wr: SendWR) -> None:
        self.qps[qp].sq.append(wr)
        self._progress()

    def post_recv(self, qp: tuple[str, int], wr: RecvWR) -> None:
        q = self.qps[qp]
        if q.err:
            q.recv_wcs.append(self._wc(wr.wr_id, "WR_FLUSH_ERR", "RECV", q))
        else:
            q.rq.append(wr)
            self._progress()

    def finish(self) -> RcResult:
        """Resolve waiting WRs (RNR retries exhausted when rnr_retry < 7) and return
        the expected memory and completions."""
        for q in self.qps.values():
            if q.sq and not q.err and q.rnr_retry < 7:
                wr = q.sq.popleft()
                q.send_wcs.append(self._wc(wr.wr_id, "RNR_RETRY_EXC_ERR", _WC_OF[_op(wr)].name, q))
                self._to_err(q)
        self._progress()
        return RcResult(
            {n: bytes(node.mem) for n, node in self.nodes.items()},
            {k: list(q.send_wcs) for k, q in self.qps.items()},
            {k: list(q.recv_wcs) for k, q in self.qps.items()},
            {k: [w.wr_id for w in q.sq] for k, q in self.qps.items() if q.sq},
            list(self.undefined),
            {n: node.base for n, node in self.nodes.items()})

    # ------------------------------------------------------------ execution
    @staticmethod
    def _wc(wr_id: int, status: str, opcode: str, q: ModelQp, byte_len: int = 0,
            imm: int | None = None) -> WorkCompletion:
        return WorkCompletion(wr_id, status, opcode, byte_len, imm, q.qpn)

    def _to_err(self, q: ModelQp) -> None:
        q.err = True
        while q.sq:
            wr = q.sq.popleft()
            q.send_wcs.append(self._wc(wr.wr_id, "WR_FLUSH_ERR", _WC_OF[_op(wr)].name, q))
        while q.rq:
            q.recv_wcs.append(self._wc(q.rq.popleft().wr_id, "WR_FLUSH_ERR", "RECV", q))

    def _progress(self) -> None:
        moved = True
        while moved:
            moved = False
            for q in self.qps.values():
                while q.sq and self._execute(q):
                    moved = True

    def _fail(self, r: ModelQp, wr: SendWR, status: str, responder: ModelQp | None) -> None:
        r.send_wcs.append(self._wc(wr.wr_id, status, _WC_OF[_op(wr)].name, r))
        self._to_err(r)
        if responder is not None:
            self._to_err(responder)

    def _execute(self, r: ModelQp) -> bool:
        """Run the head WR of ``r``; False when it has to wait for a receive."""
        wr = r.sq[0]
        op = _op(wr)
        n = 8 if op in _ATOMICS else wr.length
        if r.err:
            self._to_err(r)
            return True
        # Local buffer: a source for SEND/WRITE, a destination for READ/atomics.
        need_local = Access.NONE if op in (WrOpcode.SEND, WrOpcode.SEND_WITH_IMM,
                                           WrOpcode.RDMA_WRITE,
                                           WrOpcode.RDMA_WRITE_WITH_IMM) else Access.LOCAL_WRITE
        local = r.node.translate(wr.lkey, wr.local_addr, n, need_local, r.pd)
        if local is None:
            r.sq.popleft()
            self._fail(r, wr, "LOC_PROT_ERR", None)
            return True
        p = r.peer
        if p is None or p.err:
            r.sq.popleft()
            self._fail(r, wr, "RETRY_EXC_ERR", None)
            return True
        remote: int | None = None
        if op in _REMOTE_RIGHT:
            if not p.access & _REMOTE_RIGHT[op]:
                r.sq.popleft()
                self._fail(r, wr, "REM_ACCESS_ERR", p)
                return True
            if op in _ATOMICS and wr.remote_addr % 8:
                r.sq.popleft()
                self._fail(r, wr, "REM_INV_REQ_ERR", p)
                return True
            remote = p.node.translate(wr.rkey, wr.remote_addr, n, _REMOTE_RIGHT[op], p.pd)
            if remote is None:
                r.sq.popleft()
                self._fail(r, wr, "REM_ACCESS_ERR", p)
                return True
        if op in _NEEDS_RQE and not p.rq:
            return False                                  # RNR: wait for a receive
        r.sq.popleft()
        if n and op not in _ATOMICS and op != WrOpcode.RDMA_READ \
                and r.node.read_fails(local, n):
            if remote is not None:                       # a WRITE's earlier packets may land
                self.undefined.append((p.node.name, remote, n))
            elif p.rq:                                   # so may a SEND's, in the receive
                rqe = p.rq[0]                            # buffer (not completed)
                dst = p.node.translate(rqe.lkey, rqe.addr, min(n, rqe.length),
                                       Access.LOCAL_WRITE, p.pd)
                if dst is not None and min(n, rqe.length):
                    self.undefined.append((p.node.name, dst, min(n, rqe.length)))
            self._fail(r, wr, "LOC_QP_OP_ERR", None)
            return True
        data = r.node.read(local, n) if n and op not in _ATOMICS else b""
        imm = wr.imm if op in (WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM) else None
        if op in (WrOpcode.SEND, WrOpcode.SEND_WITH_IMM):
            rqe = p.rq[0]
            if n > rqe.length:
                p.rq.popleft()
                p.recv_wcs.append(self._wc(rqe.wr_id, "LOC_LEN_ERR", "RECV", p))
                dst = p.node.translate(rqe.lkey, rqe.addr, rqe.length, Access.LOCAL_WRITE, p.pd)
                if dst is not None and rqe.length:
                    self.undefined.append((p.node.name, dst, rqe.length))
                self._fail(r, wr, "REM_INV_REQ_ERR", p)
                return True
            dst = p.node.translate(rqe.lkey, rqe.addr, n, Access.LOCAL_WRITE, p.pd)
            if dst is None:
                p.rq.popleft()
                p.recv_wcs.append(self._wc(rqe.wr_id, "LOC_PROT_ERR", "RECV", p))
                self._fail(r, wr, "REM_OP_ERR", p)
                return True
            p.rq.popleft()
            if n and p.node.write_fails(dst, n):
                p.recv_wcs.append(self._wc(rqe.wr_id, "LOC_QP_OP_ERR", "RECV", p))
                self.undefined.append((p.node.name, dst, n))
                self._fail(r, wr, "REM_OP_ERR", p)
                return True
            if n:
                p.node.write(dst, data)
            p.recv_wcs.append(self._wc(rqe.wr_id, "SUCCESS", "RECV", p, n, imm))
        elif op in (WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM):
            assert remote is not None
            if n and p.node.write_fails(remote, n):
                self.undefined.append((p.node.name, remote, n))
                self._fail(r, wr, "REM_OP_ERR", p)
                return True
            if n:
                p.node.write(remote, data)
            if op == WrOpcode.RDMA_WRITE_WITH_IMM:
                rqe = p.rq.popleft()
                p.recv_wcs.append(self._wc(rqe.wr_id, "SUCCESS", "RECV_RDMA_WITH_IMM", p, n, imm))
        elif op == WrOpcode.RDMA_READ:
            assert remote is not None
            if n and p.node.read_fails(remote, n):
                self.undefined.append((r.node.name, local, n))
                self._fail(r, wr, "REM_OP_ERR", p)
                return True
            if n and r.node.write_fails(local, n):
                self.undefined.append((r.node.name, local, n))
                self._fail(r, wr, "LOC_QP_OP_ERR", None)
                return True
            if n:
                r.node.write(local, p.node.read(remote, n))
        else:
            assert remote is not None
            if p.node.read_fails(remote, 8):
                self._fail(r, wr, "REM_OP_ERR", p)
                return True
            (orig,) = struct.unpack("<Q", p.node.read(remote, 8))
            if op == WrOpcode.ATOMIC_CMP_AND_SWP:
                new = wr.swap if orig == wr.compare_add else orig
            else:
                new = (orig + wr.compare_add) & U64
            p.node.write(remote, struct.pack("<Q", new))
            if r.node.write_fails(local, 8):
                self.undefined.append((r.node.name, local, 8))
                self._fail(r, wr, "LOC_QP_OP_ERR", None)
                return True
            r.node.write(local, struct.pack("<Q", orig))
        if wr.signaled:
            r.send_wcs.append(self._wc(wr.wr_id, "SUCCESS", _WC_OF[op].name, r, n))
        return True


def compare_wcs(expected: list[WorkCompletion], actual: list[WorkCompletion]) -> list[str]:
    """Differences between expected and actual completions of one QP and direction
    (in order). For error completions only wr_id, status, qpn and the send/receive
    class of the opcode are compared."""
    out = []
    if len(expected) != len(actual):
        out.append(f"{len(actual)} completions, expected {len(expected)}")
    for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
        if e.ok:
            same = e == a
        else:
            same = (e.wr_id, e.status, e.qpn, e.opcode.startswith("RECV")) == \
                   (a.wr_id, a.status, a.qpn, a.opcode.startswith("RECV"))
        if not same:
            out.append(f"#{i}: got {a}, expected {e}")
    return out


def split_wcs(wcs: list[WorkCompletion]) -> dict[tuple[int, str], list[WorkCompletion]]:
    """Group completions read from CQs by (qpn, "send"|"recv"), keeping their order."""
    out: dict[tuple[int, str], list[WorkCompletion]] = {}
    for wc in wcs:
        out.setdefault((wc.qpn, "recv" if wc.opcode.startswith("RECV") else "send"),
                       []).append(wc)
    return out


# ---------------------------------------------------------------- random scenarios


@dataclass
class MrSpec:
    name: str
    node: str
    offset: int          # from the node's base
    length: int
    access: Access
    pd: int              # 0 = the QPs' PD, 1 = another PD


@dataclass
class Scenario:
    """A random mix: node memories, MRs, two connected QPs "a" (on node "a") and "b"
    (on node "b", or on node "a" when loopback), and posting operations. Addresses are
    offsets from each node's base and keys are MR names until :meth:`bind`."""
    seed: int
    loopback: bool
    mem: dict[str, bytes]
    mrs: list[MrSpec]
    qp_access: Access
    ops: list[tuple[str, str, SendWR | RecvWR]]      # ("send"|"recv", "a"|"b", WR)
    key_names: dict[int, str]                        # placeholder key -> MR name

    def node_of(self, qp: str) -> str:
        return "a" if self.loopback else qp

    def bind(self, bases: dict[str, int], keys: dict[str, int]
             ) -> list[tuple[str, str, SendWR | RecvWR]]:
        """The operations with real host addresses (base + offset) and real keys."""
        def key(placeholder: int) -> int:
            name = self.key_names.get(placeholder)
            return placeholder if name is None else keys[name]

        out: list[tuple[str, str, SendWR | RecvWR]] = []
        for kind, qp, wr in self.ops:
            me = bases[self.node_of(qp)]
            peer = bases[self.node_of("b" if qp == "a" else "a")]
            if isinstance(wr, RecvWR):
                out.append((kind, qp, replace(wr, addr=me + wr.addr,
                                              lkey=key(wr.lkey))))
            else:
                out.append((kind, qp, replace(
                    wr, local_addr=me + wr.local_addr, lkey=key(wr.lkey),
                    remote_addr=peer + wr.remote_addr, rkey=key(wr.rkey))))
        return out

    def expected(self, bases: dict[str, int], keys: dict[str, int], qpns: dict[str, int],
                 pdn: tuple[int, int] = (1, 2),
                 fail_reads: tuple[tuple[str, int, int], ...] = (),
                 fail_writes: tuple[tuple[str, int, int], ...] = ()) -> RcResult:
        """Run the model on the bound operations. ``qpns`` maps "a"/"b" to QP numbers;
        ``pdn`` are the PD numbers for MrSpec.pd 0 and 1 (any two distinct values);
        ``fail_reads`` / ``fail_writes`` are (node, offset from its base, length) ranges
        whose host reads / writes fail (:meth:`RcModel.fail_reads`,
        :meth:`RcModel.fail_writes`)."""
        m = RcModel()
        for name, data in self.mem.items():
            m.add_node(name, bases[name], data)
        for name, off, n in fail_reads:
            m.fail_reads(name, bases[name] + off, n)
        for name, off, n in fail_writes:
            m.fail_writes(name, bases[name] + off, n)
        for s in self.mrs:
            m.add_mr(s.node, keys[s.name], pdn[s.pd], bases[s.node] + s.offset, s.length,
                     s.access)
        for qp in ("a", "b"):
            m.add_qp(self.node_of(qp), qpns[qp], pdn[0], self.qp_access)
        ka, kb = (self.node_of("a"), qpns["a"]), (self.node_of("b"), qpns["b"])
        m.connect(ka, kb)
        for _kind, qp, wr in self.bind(bases, keys):
            k = ka if qp == "a" else kb
            if isinstance(wr, RecvWR):
                m.post_recv(k, wr)
            else:
                m.post_send(k, wr)
        return m.finish()


_ERROR_KINDS = ("bounds", "rights", "pd", "recv_too_small", "misaligned_atomic")


def random_scenario(seed: int, n_wrs: int = 24, max_len: int = 3000,
                    opcodes: tuple[WrOpcode, ...] = tuple(WrOpcode),
                    loopback: bool = False, error: str | None = None,
                    unsignaled: float = 0.25, one_way: bool = False) -> Scenario:
    """A seeded random mix of ``n_wrs`` send WRs (opcodes from ``opcodes``, lengths
    0..max_len, unaligned buffers) over both directions, with the receives they need
    posted first. Every buffer a WR writes is used by that WR only (atomics may hit
    the same word repeatedly from one QP, which RC orders), so the result does not
    depend on timing. The last WR of each QP is signaled (frees the ring).

    ``error`` (one of "bounds", "rights", "pd", "recv_too_small",
    "misaligned_atomic") makes QP a's middle WR fail that way; then only QP a sends,
    so the outcome is timing independent too. ``one_way`` makes only QP a send
    without an error.
    """
    rng = random.Random(seed)
    if error is not None and error not in _ERROR_KINDS:
        raise ValueError(f"error must be one of {_ERROR_KINDS}")
    nodes = ["a"] if loopback else ["a", "b"]
    # Memory layout per node: [big MR with every right][read-only MR][other-PD MR].
    data_len = 2 * n_wrs * (max_len + 72) + 4096
    small = 256
    size = data_len + 2 * small
    mem = {n: rng.randbytes(size) for n in nodes}
    all_rights = (Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE
                  | Access.REMOTE_ATOMIC)
    mrs: list[MrSpec] = []
    for n in nodes:
        mrs += [MrSpec(f"{n}.all", n, 0, data_len, all_rights, 0),
                MrSpec(f"{n}.ro", n, data_len, small, Access.REMOTE_READ, 0),
                MrSpec(f"{n}.pd1", n, data_len + small, small, all_rights, 1)]
    key_names = {i + 1: s.name for i, s in enumerate(mrs)}
    key_of = {s.name: i + 1 for i, s in enumerate(mrs)}
    nxt = dict.fromkeys(nodes, 0)

    def alloc(node: str, n: int, align: int = 1) -> int:
        off = nxt[node] + rng.randrange(0, 8)
        off = -(-off // align) * align
        nxt[node] = off + n
        assert nxt[node] <= data_len, "scenario layout overflow"
        return off

    def node_of(qp: str) -> str:
        return "a" if loopback else qp

    senders = ["a"] if error or one_way else ["a", "b"]
    atomic_words = {q: [alloc(node_of("b" if q == "a" else "a"), 8, 8) for _ in range(2)]
                    for q in senders}
    recvs: list[tuple[str, str, SendWR | RecvWR]] = []
    sends: list[tuple[str, str, SendWR | RecvWR]] = []
    err_at = n_wrs // 2 if error else -1
    wr_id = 0x1000
    for i in range(n_wrs):
        q = senders[rng.randrange(len(senders))] if i != err_at else "a"
        me, peer = node_of(q), node_of("b" if q == "a" else "a")
        other = "b" if q == "a" else "a"
        op = rng.choice(opcodes)
        if i == err_at:
            if error == "recv_too_small":
                op = WrOpcode.SEND
            elif error == "misaligned_atomic":
                op = WrOpcode.ATOMIC_FETCH_AND_ADD
            elif op != WrOpcode.RDMA_READ:
                op = WrOpcode.RDMA_WRITE
        n = 8 if op in _ATOMICS else rng.randrange(0, max_len + 1)
        if i == err_at and error != "misaligned_atomic":
            n = max(n, 1)
        wr_id += 1
        wr = SendWR(op, wr_id=wr_id, length=n, lkey=key_of[f"{me}.all"],
                    rkey=key_of[f"{peer}.all"], imm=rng.getrandbits(32),
                    signaled=rng.random() >= unsignaled, solicited=rng.random() < 0.2)
        if op in _ATOMICS:
            wr.local_addr = alloc(me, 8, 8)
            wr.remote_addr = rng.choice(atomic_words[q])
            wr.compare_add = rng.getrandbits(64)
            wr.swap = rng.getrandbits(64)
            if op == WrOpcode.ATOMIC_CMP_AND_SWP and rng.random() < 0.5:
                # a compare that hits: a fresh word whose initial value is known
                wr.remote_addr = alloc(peer, 8, 8)
                wr.compare_add = struct.unpack_from("<Q", mem[peer], wr.remote_addr)[0]
        else:
            wr.local_addr = alloc(me, n)
            wr.remote_addr = alloc(peer, n) if op not in (WrOpcode.SEND,
                                                          WrOpcode.SEND_WITH_IMM) else 0
            if op in (WrOpcode.SEND, WrOpcode.SEND_WITH_IMM):
                wr.rkey = 0
        if op in _NEEDS_RQE:
            # WRITE_WITH_IMM consumes a receive but never touches its buffer
            rlen = rng.randrange(0, 16) if op == WrOpcode.RDMA_WRITE_WITH_IMM else \
                n + rng.randrange(0, 64)
            if i == err_at and error == "recv_too_small":
                rlen = rng.randrange(0, n)
            wr_id += 1
            recvs.append(("recv", other, RecvWR(wr_id, alloc(peer, rlen), rlen,
                                                key_of[f"{peer}.all"])))
        if i == err_at:
            wr.signaled = False          # errors complete even when unsignaled
            if error == "bounds":
                wr.remote_addr = data_len - n + 1 + rng.randrange(0, 8)
            elif error == "rights":
                op = wr.opcode = WrOpcode.RDMA_WRITE
                wr.rkey = key_of[f"{peer}.ro"]
                wr.remote_addr = data_len + rng.randrange(0, small)
                wr.length = n = min(n, data_len + small - wr.remote_addr) or 1
            elif error == "pd":
                op = wr.opcode = WrOpcode.RDMA_WRITE
                wr.rkey = key_of[f"{peer}.pd1"]
                wr.remote_addr = data_len + small
                wr.length = n = min(n, small)
            elif error == "misaligned_atomic":
                wr.remote_addr = alloc(peer, 16, 8) + 1 + rng.randrange(0, 7)
        sends.append(("send", q, wr))
    for q in senders:                    # last WR of each QP signaled
        last = [w for _, qq, w in sends if qq == q]
        if last:
            last[-1].signaled = True     # type: ignore[union-attr]
    if error:
        # one extra receive on b stays posted and is flushed when b enters ERR
        wr_id += 1
        recvs.append(("recv", "b", RecvWR(wr_id, alloc(node_of("b"), 16), 16,
                                          key_of[f"{node_of('b')}.all"])))
    return Scenario(seed, loopback, mem, mrs, all_rights, recvs + sends, key_names)
