# SPDX-License-Identifier: Apache-2.0
"""Host driver for the fabnic RoCEv2 RC transport: the implementation of every verb.

Programs use the pyverbs-shaped object API of :mod:`fabnic.pyverbs` (``PD(ctx)``,
``MR(pd, ...)``, ``CQ(ctx, n)``, ``QP(pd, QPInitAttr(...))``, ``qp.post_send(SendWR(...,
sg=[SGE(...)]))``, ``cq.poll()``), which is a thin layer over the :class:`Context` here.
The Context-method calls below (``ctx.alloc_pd()``, ``ctx.reg_mr(pd, ...)``,
``ctx.post_send(qp, ...)``, ``ctx.poll_cq(cq)`` ...) are the previous shape of the API:
they stay for one release for code not yet converted.

The same blocking code drives the simulation (tb/fabnic_tb/fw_bus.py) and a board
(fabnic.bus.MmapBus plus pinned memory). Contracts it follows:

* the ``roce`` and ``roce_cnt`` register blocks of ``regmap.MAPS["roce"]`` (staging
  words ``data0..data23``, ``cmd``, ``cmd_status``, ``result0..3``);
* the command word, context words, query result, CQ doorbell word and the SQE/RQE/CQE
  formats of :mod:`fabnic.layouts` (generated from rdl/layouts.toml, tables in
  docs/fw.md), and the doorbell addresses described in docs/fw.md.

Previous shape (see docs/fw.md for the object API and the whole story)::

    ctx = open_device(bus, mem, mac="02:00:00:00:00:01", ip="10.0.0.1")
    pd = ctx.alloc_pd()
    mr = ctx.reg_mr(pd, buf, 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE)
    cq = ctx.create_cq(64)
    qp = ctx.create_qp(pd, cq, cq, sq_depth=16, rq_depth=16)
    ctx.modify_qp(qp, QpState.INIT, access=Access.REMOTE_WRITE)
    ctx.modify_qp(qp, QpState.RTR, dest_qpn=..., rq_psn=0, path_mtu=1024,
                  dest_mac="02:00:00:00:00:02", dest_ip="10.0.0.2")
    ctx.modify_qp(qp, QpState.RTS, sq_psn=0, timeout=14, retry_cnt=7, rnr_retry=7)
    ctx.post_send(qp, [SendWR(WrOpcode.RDMA_WRITE, wr_id=1, local_addr=buf, length=64,
                              lkey=mr.lkey, remote_addr=raddr, rkey=rkey)])
    wcs = ctx.poll_cq(cq, 16)
"""

from __future__ import annotations

import ipaddress
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum, IntFlag
from typing import Any

from . import layouts as L
from .bus import Bus, HostMemory
from .device import Device
from .layouts import Access, CmdOp, QpState, WcOpcode, WcStatus, WrOpcode

# --------------------------------------------------------------------------- constants

SQ_DB_BASE = 0x100000   # SQ producer index of QP n at SQ_DB_BASE + 8*n
RQ_DB_BASE = 0x100004   # RQ producer index of QP n at RQ_DB_BASE + 8*n
CQ_DB_BASE = 0x180000   # CQ consumer index (bit 31 = arm) of CQ n at CQ_DB_BASE + 8*n
CQ_DB_ARM = L.CqDoorbell(arm=1).to_int()

SQE_SIZE = L.Sqe.BITS // 8
RQE_SIZE = L.Rqe.BITS // 8
CQE_SIZE = L.Cqe.BITS // 8
MAX_LOG2_ENTRIES = 15    # the NIC keeps SQ/RQ indices in 16 bits: rings of at most 2^15 entries
MAX_MSG_LEN = 1 << 31    # SQE length field: 0 .. 2^31

CMD_RESET_SQ = L.Command(reset_sq=1).to_int()    # QP write: reset the send side to sq_psn
CMD_RESET_RQ = L.Command(reset_rq=1).to_int()    # QP write: reset the receive side to rq_psn


class Cap(IntFlag):
    """Bits of roce.caps."""
    SEND = 1 << 0
    WRITE = 1 << 1
    READ = 1 << 2
    ATOMIC = 1 << 3
    IMM = 1 << 4
    IPV6 = 1 << 5
    SELECTIVE_REPEAT = 1 << 6
    FEC = 1 << 7
    DCQCN = 1 << 8


WR_ID_UNKNOWN = (1 << 64) - 1   # CQE wr_id (ones above a 16-bit SQ index): WQE unreadable


# What a send WR opcode completes as, and what the NIC must support for it.
WC_OF_WR = {
    WrOpcode.SEND: WcOpcode.SEND, WrOpcode.SEND_WITH_IMM: WcOpcode.SEND,
    WrOpcode.RDMA_WRITE: WcOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM: WcOpcode.RDMA_WRITE,
    WrOpcode.RDMA_READ: WcOpcode.RDMA_READ,
    WrOpcode.ATOMIC_CMP_AND_SWP: WcOpcode.CMP_AND_SWP,
    WrOpcode.ATOMIC_FETCH_AND_ADD: WcOpcode.FETCH_AND_ADD,
}
_CAP_OF_WR = {
    WrOpcode.SEND: Cap.SEND, WrOpcode.SEND_WITH_IMM: Cap.SEND | Cap.IMM,
    WrOpcode.RDMA_WRITE: Cap.WRITE, WrOpcode.RDMA_WRITE_WITH_IMM: Cap.WRITE | Cap.IMM,
    WrOpcode.RDMA_READ: Cap.READ,
    WrOpcode.ATOMIC_CMP_AND_SWP: Cap.ATOMIC, WrOpcode.ATOMIC_FETCH_AND_ADD: Cap.ATOMIC,
}
ATOMIC_OPS = (WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD)
IMM_OPS = (WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM)

SQE_SIGNALED = int(L.SqeFlag.SIGNALED)
SQE_SOLICITED = int(L.SqeFlag.SOLICITED)
SQE_FENCE = int(L.SqeFlag.FENCE)
# imm_valid's bit in the CQE flags byte (0x16)
CQE_IMM_VALID = 1 << (next(f.lsb for f in L.Cqe.FIELDS if f.name == "imm_valid") % 8)

PATH_MTU_CODE = {int(m.name.removeprefix("MTU_")): int(m) for m in L.PathMtu}
# IBTA vol. 1 9.7.5.2.8, "Encoding for RNR NAK Timer Field": min_rnr_timer code -> the
# least time (microseconds) a requester waits after an RNR NAK with that code
RNR_TIMER_US = (655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280,
                1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440,
                81920, 122880, 163840, 245760, 327680, 491520)

# --------------------------------------------------------------------------- errors


class VerbsError(RuntimeError):
    """Base class of every error the driver raises."""


class InvalidArgument(VerbsError, ValueError):
    """An argument out of range or inconsistent (nothing was written to the NIC)."""


class CommandTimeout(VerbsError):
    """roce.cmd_status stayed busy for more polls than allowed."""


class CommandRefused(VerbsError):
    """The NIC refused a command (roce.cmd_status bit1: index out of range or unknown op)."""


class QpStateError(VerbsError):
    """A modify_qp transition or attribute set that IBTA/verbs does not allow, or a post
    to a QP whose state does not accept it."""


class QueueFull(VerbsError):
    """post_send/post_recv: not enough free ring entries (nothing was posted)."""


class ResourceError(VerbsError):
    """No free QPN/CQN/MR index, or an object still in use."""


class CompletionError(VerbsError):
    """A CQE the driver cannot match to posted work (NIC or driver bug)."""


class CqError(VerbsError):
    """The CQ is in the error state (IBV_EVENT_CQ_ERR: an overrun or a failed CQE write):
    the NIC drops its later completions (counter cq_err_drop). Destroy and re-create it."""


class AsyncEventType(IntEnum):
    """roce.async_event kinds (rdl/roce.rdl, enum fabnic_async_event); both are
    IBV_EVENT_CQ_ERR in libibverbs."""
    CQ_OVERRUN = 1
    CQ_WRITE_ERR = 2


@dataclass(frozen=True)
class AsyncEvent:
    """One asynchronous event (ibv_get_async_event): its type and the CQ number."""
    event_type: AsyncEventType
    cqn: int


# --------------------------------------------------------------------------- objects


@dataclass
class SendWR:
    """One send work request (one scatter/gather element, docs/roce_design.md).

    For atomics ``local_addr``/``lkey`` name the 8-byte buffer that receives the
    original remote value and ``length`` must be 8 (the default for atomics is
    filled in when ``length`` is left at 0).
    """
    opcode: WrOpcode | str
    wr_id: int = 0
    local_addr: int = 0
    length: int = 0
    lkey: int = 0
    remote_addr: int = 0
    rkey: int = 0
    imm: int = 0
    compare_add: int = 0
    swap: int = 0
    signaled: bool = True
    solicited: bool = False
    fence: bool = False


@dataclass
class RecvWR:
    wr_id: int = 0
    addr: int = 0
    length: int = 0
    lkey: int = 0


@dataclass(frozen=True)
class WorkCompletion:
    wr_id: int
    status: str          # WcStatus name ("SUCCESS", "REM_ACCESS_ERR", ...)
    opcode: str          # WcOpcode name ("SEND", "RECV", ...)
    byte_len: int
    imm: int | None      # immediate data when the CQE flags it valid
    qpn: int

    @property
    def ok(self) -> bool:
        return self.status == "SUCCESS"


@dataclass(frozen=True)
class Completion:
    """One CQE as the driver matched it, codes as the NIC wrote them: what both
    :meth:`Context.poll_cq` (names) and :class:`fabnic.pyverbs.CQ` (enums) are made of."""
    wr_id: int
    status: int          # WcStatus code
    opcode: int          # WcOpcode code (bit 7: a receive completion)
    byte_len: int
    imm: int | None      # immediate data when the CQE flags it valid
    qpn: int

    @property
    def ok(self) -> bool:
        return self.status == WcStatus.SUCCESS

    def work_completion(self) -> WorkCompletion:
        return WorkCompletion(self.wr_id, _status_name(self.status),
                              _wc_opcode_name(self.opcode), self.byte_len, self.imm, self.qpn)


@dataclass
class ProtectionDomain:
    pdn: int
    users: int = 0


@dataclass
class MemoryRegion:
    pd: ProtectionDomain
    index: int
    key: int             # lkey == rkey == index << 8 | tag
    addr: int            # host (DMA) address of the first byte
    va: int              # address remote peers and WRs use for the first byte
    length: int
    access: Access
    valid: bool = True

    @property
    def lkey(self) -> int:
        return self.key

    @property
    def rkey(self) -> int:
        return self.key


@dataclass
class CompletionQueue:
    cqn: int
    ring: int            # host address of the CQE ring
    log2: int
    vector: int
    ci: int = 0          # free-running consumer index
    qps: set[int] = field(default_factory=set)
    valid: bool = True
    error: AsyncEventType | None = None   # set by the CQ's async event (CqError)

    @property
    def depth(self) -> int:
        return 1 << self.log2

    @property
    def phase(self) -> int:
        """Phase bit the host expects at its consumer index (1 on the first pass)."""
        return 1 ^ ((self.ci >> self.log2) & 1)


@dataclass
class QpAttrs:
    """Shadow of every host-written QP context field (docs/fw.md "QP context")."""
    state: QpState = QpState.RESET
    access: Access = Access.NONE
    path_mtu: int = 1024
    dest_qpn: int = 0
    sq_psn: int = 0
    rq_psn: int = 0
    dest_mac: int = 0
    dest_ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.IPv4Address(0)
    udp_sport: int = 0xC000
    dscp: int = 0
    timeout: int = 14
    retry_cnt: int = 7
    rnr_retry: int = 7
    # RNR NAK timer code this QP sends as a responder (IBTA encoding, RNR_TIMER_US):
    # the requester waits at least that long before resending. 1 = 0.01 ms by default
    # (verbs requires it at INIT -> RTR; here it may be left out)
    min_rnr_timer: int = 1
    selective_repeat: bool = False
    fec: bool = False
    dcqcn: bool = False


@dataclass
class _Posted:
    wr_id: int
    signaled: bool


@dataclass
class QueuePair:
    qpn: int
    pd: ProtectionDomain
    send_cq: CompletionQueue
    recv_cq: CompletionQueue
    sq_ring: int
    sq_log2: int
    rq_ring: int
    rq_log2: int
    attrs: QpAttrs
    sq_pi: int = 0       # free-running producer indexes (what the doorbells carry)
    rq_pi: int = 0
    sq_out: deque[_Posted] = field(default_factory=deque)   # posted, slot not yet freed
    rq_out: deque[int] = field(default_factory=deque)       # wr_ids of posted RQEs
    valid: bool = True

    @property
    def state(self) -> QpState:
        return self.attrs.state

    @property
    def sq_depth(self) -> int:
        return 1 << self.sq_log2

    @property
    def rq_depth(self) -> int:
        return 1 << self.rq_log2

    @property
    def sq_free(self) -> int:
        return self.sq_depth - len(self.sq_out)

    @property
    def rq_free(self) -> int:
        return self.rq_depth - len(self.rq_out)


@dataclass(frozen=True)
class QpQuery:
    """Result of query_qp: what the NIC reports, plus the driver's shadow attributes."""
    state: QpState
    error: bool
    error_cause: int
    error_status: str    # the CQE status that moved the QP to ERR ("SUCCESS" if none)
    next_send_psn: int
    expected_psn: int
    una_psn: int
    attrs: QpAttrs


# --------------------------------------------------------------------------- helpers


def _status_name(code: int) -> str:
    try:
        return WcStatus(code).name
    except ValueError:
        return f"UNKNOWN_{code}"


def _wc_opcode_name(code: int) -> str:
    try:
        return WcOpcode(code).name
    except ValueError:
        return f"UNKNOWN_{code:#x}"


def _log2_entries(depth: int, what: str) -> int:
    if depth < 1:
        raise InvalidArgument(f"{what} depth {depth} must be at least 1")
    log2 = (depth - 1).bit_length()
    if log2 > MAX_LOG2_ENTRIES:
        raise InvalidArgument(f"{what} depth {depth} above 2^{MAX_LOG2_ENTRIES}")
    return log2


def _check_range(name: str, value: int, bits: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < (1 << bits):
        raise InvalidArgument(f"{name}={value!r} does not fit {bits} bits")
    return value


def parse_mac(mac: int | str | bytes) -> int:
    """MAC as a 48-bit number, first wire byte most significant (02:00:..:01 = 0x020000000001)."""
    if isinstance(mac, int):
        return _check_range("mac", mac, 48)
    if isinstance(mac, bytes | bytearray):
        if len(mac) != 6:
            raise InvalidArgument(f"MAC {mac!r} is not 6 bytes")
        return int.from_bytes(mac, "big")
    parts = mac.replace("-", ":").split(":")
    if len(parts) != 6 or not all(len(p) in (1, 2) for p in parts):
        raise InvalidArgument(f"MAC {mac!r} is not aa:bb:cc:dd:ee:ff")
    try:
        return int.from_bytes(bytes(int(p, 16) for p in parts), "big")
    except ValueError:
        raise InvalidArgument(f"MAC {mac!r} is not aa:bb:cc:dd:ee:ff") from None


def parse_ip(ip: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        return ipaddress.ip_address(ip)
    except ValueError:
        raise InvalidArgument(f"{ip!r} is not an IPv4/IPv6 address") from None


def _ip_words(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[int]:
    """Four 32-bit words, bits [31:0] first; an IPv4 address is its number in word 0."""
    v = int(ip)
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(4)]


def pack_sqe(wr: SendWR) -> bytes:
    op = WrOpcode[wr.opcode] if isinstance(wr.opcode, str) else WrOpcode(wr.opcode)
    flags = ((SQE_SIGNALED if wr.signaled else 0) | (SQE_SOLICITED if wr.solicited else 0)
             | (SQE_FENCE if wr.fence else 0))
    return L.Sqe(wr_id=wr.wr_id, opcode=op, flags=flags, len=wr.length, laddr=wr.local_addr,
                 lkey=wr.lkey, imm=wr.imm, raddr=wr.remote_addr, rkey=wr.rkey,
                 cmp_add=wr.compare_add, swap=wr.swap).to_bytes()


def pack_rqe(wr: RecvWR) -> bytes:
    return L.Rqe(wr_id=wr.wr_id, addr=wr.addr, lkey=wr.lkey, len=wr.length).to_bytes()


def qp_context_words(attrs: QpAttrs, qp: QueuePair) -> list[int]:
    """The 18 QP context words (data0..data17) of a QP write."""
    a = attrs
    return L.QpContext(
        state=a.state, ipv6=isinstance(a.dest_ip, ipaddress.IPv6Address),
        pmtu=PATH_MTU_CODE[a.path_mtu], access=a.access, retry_cnt=a.retry_cnt,
        rnr_retry=a.rnr_retry, timeout=a.timeout, sr=a.selective_repeat, fec=a.fec,
        cc=a.dcqcn, min_rnr_timer=a.min_rnr_timer, dqpn=a.dest_qpn, sq_psn=a.sq_psn, rq_psn=a.rq_psn, pd=qp.pd.pdn,
        sport=a.udp_sport, dscp=a.dscp, dmac=a.dest_mac, dip=int(a.dest_ip),
        sq_base=qp.sq_ring, rq_base=qp.rq_ring, sq_log=qp.sq_log2, rq_log=qp.rq_log2,
        scq=qp.send_cq.cqn, rcq=qp.recv_cq.cqn,
    ).to_words()


# QP state machine (IBTA vol. 1 10.3 / Linux ib_modify_qp_is_ok, RC, RoCE subset):
# (current, next) -> (required attributes, optional attributes).
_PATH = frozenset({"udp_sport", "dscp"})
_MODES = frozenset({"selective_repeat", "fec", "dcqcn"})
_TRANSITIONS: dict[tuple[QpState, QpState], tuple[frozenset[str], frozenset[str]]] = {
    (QpState.RESET, QpState.INIT): (frozenset({"access"}), _PATH | _MODES),
    (QpState.INIT, QpState.INIT): (frozenset(), frozenset({"access"}) | _PATH | _MODES),
    (QpState.INIT, QpState.RTR): (
        frozenset({"dest_qpn", "rq_psn", "path_mtu", "dest_mac", "dest_ip"}),
        frozenset({"access", "min_rnr_timer"}) | _PATH | _MODES),
    (QpState.RTR, QpState.RTS): (
        frozenset({"sq_psn", "timeout", "retry_cnt", "rnr_retry"}),
        frozenset({"access", "min_rnr_timer"})),
    (QpState.RTS, QpState.RTS): (frozenset(), frozenset({"access", "min_rnr_timer"})),
    (QpState.RTS, QpState.SQD): (frozenset(), frozenset()),
    (QpState.SQD, QpState.SQD): (frozenset(), frozenset(
        {"access", "path_mtu", "dest_mac", "dest_ip", "timeout", "retry_cnt", "rnr_retry",
         "min_rnr_timer"}) | _PATH),
    (QpState.SQD, QpState.RTS): (frozenset(), frozenset({"access", "min_rnr_timer"})),
    (QpState.SQE, QpState.RTS): (frozenset(), frozenset({"access", "min_rnr_timer"})),
    (QpState.RESET, QpState.RESET): (frozenset(), frozenset()),
}
for _s in QpState:
    if _s != QpState.RESET:
        _TRANSITIONS[(_s, QpState.RESET)] = (frozenset(), frozenset())
        _TRANSITIONS[(_s, QpState.ERR)] = (frozenset(), frozenset())



def transition_rule(cur: QpState, new: QpState) -> tuple[frozenset[str], frozenset[str]] | None:
    """(required, optional) QpAttrs field names of the QP transition ``cur -> new``, or
    None when IBTA (RC, the RoCE subset fabnic implements) does not allow it."""
    return _TRANSITIONS.get((cur, new))


def legal_next_states(cur: QpState) -> list[QpState]:
    """The states a QP in ``cur`` may be modified to."""
    return [n for (c, n) in _TRANSITIONS if c == cur]


_SEND_STATES = (QpState.RTS, QpState.SQD, QpState.SQE, QpState.ERR)
_RECV_STATES = (QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.SQE, QpState.ERR)


class _IdPool:
    """Indexes first..first+count-1: never-used ones first, then freed ones oldest first
    (a freed QPN/key index is reused as late as possible)."""

    def __init__(self, first: int, count: int) -> None:
        self.next = first
        self.end = first + count
        self.freed: deque[int] = deque()

    def get(self, what: str) -> int:
        if self.next < self.end:
            self.next += 1
            return self.next - 1
        if self.freed:
            return self.freed.popleft()
        raise ResourceError(f"no free {what}")

    def put(self, i: int) -> None:
        self.freed.append(i)


# --------------------------------------------------------------------------- context


class Context:
    """An opened fabnic RoCE device. Create with :func:`open_device`."""

    def __init__(self, bus: Bus, mem: HostMemory, *, poll_limit: int = 1000,
                 first_qpn: int = 2) -> None:
        self.bus = bus
        self.mem = mem
        self.dev = Device(bus, "roce")
        self.poll_limit = poll_limit
        self.info = self.dev.info()
        self.num_qp = self.dev.read("roce", "num_qp")
        self.num_cq = self.dev.read("roce", "num_cq")
        self.num_mr = self.dev.read("roce", "num_mr")
        self.caps = Cap(self.dev.read("roce", "caps") & 0x1FF)
        if not 0 <= first_qpn < self.num_qp:
            raise ResourceError(f"first_qpn {first_qpn} with only {self.num_qp} QPs")
        self._qpns = _IdPool(first_qpn, self.num_qp - first_qpn)
        self._cqns = _IdPool(0, self.num_cq)
        self._mr_idx = _IdPool(0, self.num_mr)
        self._mr_tag: dict[int, int] = {}
        self._next_pdn = 1
        self.qps: dict[int, QueuePair] = {}
        self.cqs: dict[int, CompletionQueue] = {}
        # RoCE over VXLAN (fabnic_nic): set by fabnic.nic.open_nic; (qpn, vni or None)
        self.vni_binding: Callable[[int, int | None], None] | None = None

    # ----------------------------------------------------------- local address
    @property
    def mac(self) -> int:
        return self.dev.read("roce", "local_mac_lo") | self.dev.read("roce", "local_mac_hi") << 32

    @property
    def ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        w = [self.dev.read("roce", f"local_ip{i}") for i in range(4)]
        if w[1] == w[2] == w[3] == 0:
            return ipaddress.IPv4Address(w[0])
        return ipaddress.IPv6Address(w[0] | w[1] << 32 | w[2] << 64 | w[3] << 96)

    def set_local_address(self, mac: int | str | bytes | None = None, ip: Any = None) -> None:
        if mac is not None:
            m = parse_mac(mac)
            self.dev.write("roce", "local_mac_lo", m & 0xFFFFFFFF)
            self.dev.write("roce", "local_mac_hi", m >> 32)
        if ip is not None:
            addr = parse_ip(ip)
            if addr.version == 6 and not self.caps & Cap.IPV6:
                raise InvalidArgument("this build has no IPv6 (caps bit5)")
            for i, w in enumerate(_ip_words(addr)):
                self.dev.write("roce", f"local_ip{i}", w)

    # ----------------------------------------------------------- commands
    def _command(self, op: CmdOp, index: int, words: Sequence[int], flags: int = 0) -> None:
        """Stage ``words`` in data0.., write roce.cmd, wait until not busy."""
        if len(words) > 24:
            raise InvalidArgument(f"{op.name}: {len(words)} operand words, the window has 24")
        cmd = L.Command(op=op, reset_sq=bool(flags & CMD_RESET_SQ),
                        reset_rq=bool(flags & CMD_RESET_RQ), index=index).to_int()
        self._wait_idle(op, index, before=True)
        for i, w in enumerate(words):
            self.dev.write("roce", f"data{i}", w & 0xFFFFFFFF)
        self.dev.write("roce", "cmd", cmd)
        status = self._wait_idle(op, index, before=False)
        if status & 2:
            raise CommandRefused(f"roce command {op.name} index {index} refused by the NIC "
                                 "(cmd_status bit1: index out of range or unknown op)")

    def _wait_idle(self, op: CmdOp, index: int, before: bool) -> int:
        for _ in range(self.poll_limit):
            status = self.dev.read("roce", "cmd_status")
            if not status & 1:
                return status
        when = "before issuing" if before else "after issuing"
        raise CommandTimeout(f"roce.cmd_status still busy after {self.poll_limit} polls "
                             f"{when} {op.name} index {index}")

    # ----------------------------------------------------------- PD / MR
    def alloc_pd(self) -> ProtectionDomain:
        if self._next_pdn >= 1 << 24:
            raise ResourceError("PD numbers exhausted")
        pd = ProtectionDomain(self._next_pdn)
        self._next_pdn += 1
        return pd

    def dealloc_pd(self, pd: ProtectionDomain) -> None:
        if pd.users:
            raise ResourceError(f"PD {pd.pdn} still has {pd.users} MRs/QPs")

    def reg_mr(self, pd: ProtectionDomain, addr: int, length: int, access: Access | int,
               va: int | None = None) -> MemoryRegion:
        """Register ``length`` bytes of host memory at ``addr``; peers and WRs use ``va``
        (default: the host address, an identity map)."""
        access = Access(access)
        va = addr if va is None else va
        _check_range("addr", addr, 64)
        _check_range("va", va, 64)
        _check_range("length", length, 64)
        if va + length > 1 << 64:
            raise InvalidArgument(f"MR va {va:#x} + length {length:#x} passes 2^64")
        if access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC) and \
                not access & Access.LOCAL_WRITE:
            raise InvalidArgument("REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE (verbs rule)")
        index = self._mr_idx.get("MR index")
        tag = self._mr_tag.get(index, 0) % 255 + 1          # 1..255, new per registration
        mr = MemoryRegion(pd, index, index << 8 | tag, addr, va, length, access)
        try:
            self._command(CmdOp.MR_WRITE, index, self._mr_words(mr))
        except VerbsError:
            self._mr_idx.put(index)
            raise
        self._mr_tag[index] = tag
        pd.users += 1
        return mr

    def dereg_mr(self, mr: MemoryRegion) -> None:
        if not mr.valid:
            raise InvalidArgument(f"MR key {mr.key:#x} already deregistered")
        # valid = 0: only data0 matters
        self._command(CmdOp.MR_WRITE, mr.index, L.MrContext(tag=mr.key & 0xFF).to_words()[:1])
        mr.valid = False
        mr.pd.users -= 1
        self._mr_idx.put(mr.index)

    def clear_mrs(self) -> None:
        """Write valid=0 to every MR entry (the MR table is not reset by hardware)."""
        for i in range(self.num_mr):
            self._command(CmdOp.MR_WRITE, i, L.MrContext().to_words()[:1])

    @staticmethod
    def _mr_words(mr: MemoryRegion) -> list[int]:
        return L.MrContext(tag=mr.key & 0xFF, valid=1, access=mr.access, pd=mr.pd.pdn,
                           base=mr.va, length=mr.length, host_base=mr.addr).to_words()

    # ----------------------------------------------------------- CQ
    def create_cq(self, depth: int, vector: int = 0) -> CompletionQueue:
        """A CQ of at least ``depth`` entries (rounded up to a power of two)."""
        log2 = _log2_entries(depth, "CQ")
        _check_range("vector", vector, 16)
        cqn = self._cqns.get("CQN")
        try:
            ring = self.mem.alloc(CQE_SIZE << log2, 64)
            self.mem.write(ring, bytes(CQE_SIZE << log2))        # phase 0: owned by the NIC
            cq = CompletionQueue(cqn, ring, log2, vector)
            self._command(CmdOp.CQ_WRITE, cqn, self._cq_words(cq))
        except Exception:
            self._cqns.put(cqn)
            raise
        self.cqs[cqn] = cq
        return cq

    @staticmethod
    def _cq_words(cq: CompletionQueue) -> list[int]:
        return L.CqContext(base=cq.ring, log_size=cq.log2, vector=cq.vector,
                           valid=cq.valid).to_words()

    def destroy_cq(self, cq: CompletionQueue) -> None:
        if not cq.valid:
            raise InvalidArgument(f"CQ {cq.cqn} already destroyed")
        if cq.qps:
            raise ResourceError(f"CQ {cq.cqn} still used by QPs {sorted(cq.qps)}")
        cq.valid = False
        self._command(CmdOp.CQ_WRITE, cq.cqn, L.CqContext(valid=0).to_words())
        del self.cqs[cq.cqn]
        self._cqns.put(cq.cqn)

    # ----------------------------------------------------------- QP
    def create_qp(self, pd: ProtectionDomain, send_cq: CompletionQueue,
                  recv_cq: CompletionQueue, sq_depth: int, rq_depth: int) -> QueuePair:
        """An RC QP in RESET with rings of at least the given depths (powers of two)."""
        sq_log2 = _log2_entries(sq_depth, "SQ")
        rq_log2 = _log2_entries(rq_depth, "RQ")
        for cq in (send_cq, recv_cq):
            if not cq.valid:
                raise InvalidArgument(f"CQ {cq.cqn} was destroyed")
        qpn = self._qpns.get("QPN")
        try:
            sq = self.mem.alloc(SQE_SIZE << sq_log2, 64)
            rq = self.mem.alloc(RQE_SIZE << rq_log2, 64)
            attrs = QpAttrs(udp_sport=0xC000 | (qpn & 0x3FFF))
            qp = QueuePair(qpn, pd, send_cq, recv_cq, sq, sq_log2, rq, rq_log2, attrs)
            # Clean context in the NIC: state RESET, both sides reset.
            self._command(CmdOp.QP_WRITE, qpn, qp_context_words(attrs, qp),
                          CMD_RESET_SQ | CMD_RESET_RQ)
        except Exception:
            self._qpns.put(qpn)
            raise
        pd.users += 1
        send_cq.qps.add(qpn)
        recv_cq.qps.add(qpn)
        self.qps[qpn] = qp
        return qp

    def destroy_qp(self, qp: QueuePair) -> None:
        if not qp.valid:
            raise InvalidArgument(f"QP {qp.qpn} already destroyed")
        attrs = replace(qp.attrs, state=QpState.RESET)
        self._command(CmdOp.QP_WRITE, qp.qpn, qp_context_words(attrs, qp),
                      CMD_RESET_SQ | CMD_RESET_RQ)
        qp.valid = False
        qp.attrs = attrs
        qp.pd.users -= 1
        qp.send_cq.qps.discard(qp.qpn)
        qp.recv_cq.qps.discard(qp.qpn)
        del self.qps[qp.qpn]
        self._qpns.put(qp.qpn)

    def modify_qp(self, qp: QueuePair, state: QpState | str, **attrs: Any) -> None:
        """Move ``qp`` to ``state`` setting ``attrs`` (QpAttrs field names; path_mtu in
        bytes; dest_mac str/int/bytes; dest_ip str/ipaddress; access Access flags).
        Validates the transition and its required/allowed attributes like verbs does,
        then writes the whole context."""
        if not qp.valid:
            raise InvalidArgument(f"QP {qp.qpn} was destroyed")
        new = QpState[state] if isinstance(state, str) else QpState(state)
        cur = qp.attrs.state
        rule = transition_rule(cur, new)
        if rule is None:
            raise QpStateError(f"QP {qp.qpn}: {cur.name} -> {new.name} is not a valid "
                               "transition")
        required, optional = rule
        given = set(attrs)
        missing = required - given
        if missing:
            raise QpStateError(f"QP {qp.qpn}: {cur.name} -> {new.name} requires "
                               f"{', '.join(sorted(missing))}")
        extra = given - required - optional
        if extra:
            raise QpStateError(f"QP {qp.qpn}: {cur.name} -> {new.name} cannot set "
                               f"{', '.join(sorted(extra))}")
        shadow = replace(qp.attrs, state=new, **self._check_attrs(attrs))
        flags = 0
        if (cur, new) == (QpState.INIT, QpState.RTR):
            flags = CMD_RESET_RQ
        elif (cur, new) == (QpState.RTR, QpState.RTS):
            flags = CMD_RESET_SQ
        elif new == QpState.RESET:
            flags = CMD_RESET_SQ | CMD_RESET_RQ
        self._command(CmdOp.QP_WRITE, qp.qpn, qp_context_words(shadow, qp), flags)
        # FEC port shim (mode 2) protects frames by destination QPN: keep its table in
        # step with the QP's fec flag once the peer is known
        if self.caps & Cap.FEC and shadow.dest_qpn and (
                shadow.fec != qp.attrs.fec or shadow.dest_qpn != qp.attrs.dest_qpn):
            if qp.attrs.dest_qpn and qp.attrs.dest_qpn != shadow.dest_qpn:
                self.dev.write("fec", "qp_en", qp.attrs.dest_qpn)
            self.dev.write("fec", "qp_en", shadow.dest_qpn | int(shadow.fec) << 24)
        qp.attrs = shadow
        if new == QpState.RESET:         # verbs: RESET empties both queues
            qp.sq_pi = qp.rq_pi = 0
            qp.sq_out.clear()
            qp.rq_out.clear()
        elif flags == CMD_RESET_RQ and qp.rq_pi:
            # RQEs posted in INIT: ring again in case the receive-side reset dropped them.
            self.bus.write32(RQ_DB_BASE + 8 * qp.qpn, qp.rq_pi & 0xFFFFFFFF)

    def _check_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in attrs.items():
            if k == "access":
                out[k] = Access(_check_range(k, int(v), 4))
            elif k == "path_mtu":
                if v not in PATH_MTU_CODE:
                    raise InvalidArgument(f"path_mtu {v!r}: one of {sorted(PATH_MTU_CODE)}")
                out[k] = v
            elif k in ("dest_qpn", "sq_psn", "rq_psn"):
                out[k] = _check_range(k, v, 24)
            elif k == "dest_mac":
                out[k] = parse_mac(v)
            elif k == "dest_ip":
                ip = parse_ip(v)
                if ip.version == 6 and not self.caps & Cap.IPV6:
                    raise InvalidArgument("this build has no IPv6 (caps bit5)")
                out[k] = ip
            elif k == "udp_sport":
                out[k] = _check_range(k, v, 16)
            elif k == "dscp":
                out[k] = _check_range(k, v, 6)
            elif k in ("timeout", "min_rnr_timer"):
                out[k] = _check_range(k, v, 5)
            elif k in ("retry_cnt", "rnr_retry"):
                out[k] = _check_range(k, v, 3)
            elif k in ("selective_repeat", "fec", "dcqcn"):
                cap = {"selective_repeat": Cap.SELECTIVE_REPEAT, "fec": Cap.FEC,
                       "dcqcn": Cap.DCQCN}[k]
                if v and not self.caps & cap:
                    raise InvalidArgument(f"{k}: this build lacks caps {cap.name}")
                out[k] = bool(v)
            else:
                raise InvalidArgument(f"unknown QP attribute {k!r}")
        return out

    def bind_qp_vni(self, qp: QueuePair, vni: int | None) -> None:
        """Bind ``qp`` to tenant network ``vni`` (RoCE over VXLAN: its frames are
        encapsulated, and only frames decapsulated from ``vni`` reach it), or unbind it
        (``None``: plain RoCEv2). Only on the NIC top (fabnic.nic.open_nic)."""
        if self.vni_binding is None:
            raise VerbsError("this device has no per-QP VNI binding (open it with "
                             "fabnic.nic.open_nic)")
        if not qp.valid:
            raise InvalidArgument(f"QP {qp.qpn} was destroyed")
        if vni is not None:
            _check_range("vni", vni, 24)
        self.vni_binding(qp.qpn, vni)

    def query_qp(self, qp: QueuePair) -> QpQuery:
        """Ask the NIC (op 4, result0..3). The shadow state follows the NIC's state."""
        self._command(CmdOp.QP_QUERY, qp.qpn, [])
        r = L.QpQueryResult.from_words([self.dev.read("roce", f"result{i}") for i in range(4)])
        try:
            state = QpState(r.state)
        except ValueError:
            raise VerbsError(f"QP {qp.qpn}: NIC reports undefined state {r.state}") from None
        qp.attrs.state = state
        return QpQuery(state, bool(r.error), r.error_cause, _status_name(r.error_status),
                       r.next_send_psn, r.expected_psn, r.una_psn, replace(qp.attrs))

    # ----------------------------------------------------------- work requests
    def post_send(self, qp: QueuePair, wrs: SendWR | Iterable[SendWR]) -> None:
        """Write the SQEs of ``wrs`` and ring the SQ doorbell once. All-or-nothing: a
        bad WR or too few free slots raises before anything is written."""
        wrs = [wrs] if isinstance(wrs, SendWR) else list(wrs)
        if not qp.valid:
            raise InvalidArgument(f"QP {qp.qpn} was destroyed")
        if qp.state not in _SEND_STATES:
            raise QpStateError(f"QP {qp.qpn} is {qp.state.name}: post_send needs RTS "
                               "(or SQD/SQE/ERR)")
        checked = [self._check_send_wr(i, wr) for i, wr in enumerate(wrs)]
        if len(checked) > qp.sq_free:
            raise QueueFull(f"QP {qp.qpn}: {len(checked)} send WRs, {qp.sq_free} free SQ "
                            f"slots of {qp.sq_depth} (unsignaled WRs hold their slots until "
                            "a later signaled one completes)")
        for wr in checked:
            slot = qp.sq_pi & (qp.sq_depth - 1)
            self.mem.write(qp.sq_ring + SQE_SIZE * slot, pack_sqe(wr))
            qp.sq_out.append(_Posted(wr.wr_id, wr.signaled))
            qp.sq_pi += 1
        if checked:
            self.bus.write32(SQ_DB_BASE + 8 * qp.qpn, qp.sq_pi & 0xFFFFFFFF)

    def _check_send_wr(self, i: int, wr: SendWR) -> SendWR:
        try:
            op = WrOpcode[wr.opcode] if isinstance(wr.opcode, str) else WrOpcode(wr.opcode)
        except (KeyError, ValueError):
            raise InvalidArgument(f"WR {i}: unknown opcode {wr.opcode!r}") from None
        if (_CAP_OF_WR[op] & self.caps) != _CAP_OF_WR[op]:
            raise InvalidArgument(f"WR {i}: {op.name} not supported by this build "
                                  f"(caps {int(self.caps):#x})")
        length = wr.length
        if op in ATOMIC_OPS:
            length = 8 if length == 0 else length
            if length != 8:
                raise InvalidArgument(f"WR {i}: atomics move 8 bytes, length {wr.length}")
        if not 0 <= length <= MAX_MSG_LEN:
            raise InvalidArgument(f"WR {i}: length {length} outside 0..2^31")
        for name, bits in (("wr_id", 64), ("local_addr", 64), ("lkey", 32),
                           ("remote_addr", 64), ("rkey", 32), ("imm", 32),
                           ("compare_add", 64), ("swap", 64)):
            _check_range(f"WR {i} {name}", getattr(wr, name), bits)
        return replace(wr, opcode=op, length=length)

    def post_recv(self, qp: QueuePair, wrs: RecvWR | Iterable[RecvWR]) -> None:
        """Write the RQEs of ``wrs`` and ring the RQ doorbell once (all-or-nothing)."""
        wrs = [wrs] if isinstance(wrs, RecvWR) else list(wrs)
        if not qp.valid:
            raise InvalidArgument(f"QP {qp.qpn} was destroyed")
        if qp.state not in _RECV_STATES:
            raise QpStateError(f"QP {qp.qpn} is {qp.state.name}: post_recv needs INIT or later")
        for i, wr in enumerate(wrs):
            for name, bits in (("wr_id", 64), ("addr", 64), ("lkey", 32), ("length", 32)):
                _check_range(f"RecvWR {i} {name}", getattr(wr, name), bits)
            if wr.length > MAX_MSG_LEN:
                raise InvalidArgument(f"RecvWR {i}: length {wr.length} above 2^31")
        if len(wrs) > qp.rq_free:
            raise QueueFull(f"QP {qp.qpn}: {len(wrs)} receive WRs, {qp.rq_free} free RQ slots")
        for wr in wrs:
            slot = qp.rq_pi & (qp.rq_depth - 1)
            self.mem.write(qp.rq_ring + RQE_SIZE * slot, pack_rqe(wr))
            qp.rq_out.append(wr.wr_id)
            qp.rq_pi += 1
        if wrs:
            self.bus.write32(RQ_DB_BASE + 8 * qp.qpn, qp.rq_pi & 0xFFFFFFFF)

    # ----------------------------------------------------------- completions
    def poll_cq(self, cq: CompletionQueue, max_entries: int = 16) -> list[WorkCompletion]:
        """Take up to ``max_entries`` CQEs the NIC has written (see :meth:`poll`), status
        and opcode as names."""
        return [c.work_completion() for c in self.poll(cq, max_entries)]

    def poll(self, cq: CompletionQueue, max_entries: int = 16) -> list[Completion]:
        """Take up to ``max_entries`` CQEs the NIC has written; writes the CQ consumer
        doorbell (without arm) when it took any. Frees SQ/RQ slots of the completed work.
        Raises CompletionError (after consuming the entry) for a CQE it cannot match, and
        CqError when the ring is empty and the CQ is known to be in the error state (from
        its async event: :meth:`get_async_event`)."""
        if not cq.valid:
            raise InvalidArgument(f"CQ {cq.cqn} was destroyed")
        wcs: list[Completion] = []
        problem: str | None = None
        while len(wcs) < max_entries and problem is None:
            cqe = L.Cqe.from_bytes(
                self.mem.read(cq.ring + CQE_SIZE * (cq.ci & (cq.depth - 1)), CQE_SIZE))
            if cqe.phase != cq.phase:
                break
            cq.ci += 1
            wr_id, qpn, op, status = cqe.wr_id, cqe.qpn, cqe.opcode, cqe.status
            qp = self.qps.get(qpn)
            if wr_id >> 16 == WR_ID_UNKNOWN >> 16 and qp is not None:
                # the NIC could not read this WQE from host memory (AXI error) and
                # reports its ring index instead: the WR is named from the driver's ring
                # (receives complete in order: the oldest posted one)
                if op & 0x80:
                    if qp.rq_out:
                        wr_id = qp.rq_out[0]
                elif status != WcStatus.SUCCESS:
                    k = (wr_id - (qp.sq_pi - len(qp.sq_out))) & 0xFFFF
                    if k < len(qp.sq_out):
                        wr_id = qp.sq_out[k].wr_id
            wc = Completion(wr_id, status, op, cqe.byte_len,
                            cqe.imm if cqe.imm_valid else None, qpn)
            wcs.append(wc)
            problem = self._retire(cq, wc)
        if wcs:
            self.bus.write32(CQ_DB_BASE + 8 * cq.cqn,
                             L.CqDoorbell(ci=cq.ci & 0x7FFFFFFF).to_int())
        if problem:
            raise CompletionError(problem)
        if not wcs and cq.error is not None:
            raise CqError(f"CQ {cq.cqn} is in the error state ({cq.error.name}); later "
                          f"completions were dropped: destroy and re-create it")
        return wcs

    def _retire(self, cq: CompletionQueue, wc: Completion) -> str | None:
        """Free the ring slots a CQE completes; returns a problem description or None."""
        qp = self.qps.get(wc.qpn)
        if qp is None:
            return f"CQ {cq.cqn}: CQE for unknown QP {wc.qpn} ({wc.work_completion()})"
        if not wc.ok:
            qp.attrs.state = QpState.ERR          # every error completion moves RC to ERR
        if wc.opcode & 0x80:
            if qp.recv_cq is not cq:
                return f"CQ {cq.cqn}: receive CQE of QP {qp.qpn} whose recv CQ is {qp.recv_cq.cqn}"
            if not qp.rq_out:
                return f"QP {qp.qpn}: receive CQE with no posted RQE ({wc.work_completion()})"
            expect = qp.rq_out.popleft()
            if expect != wc.wr_id:
                return f"QP {qp.qpn}: receive CQE wr_id {wc.wr_id:#x}, oldest RQE {expect:#x}"
            return None
        if qp.send_cq is not cq:
            return f"CQ {cq.cqn}: send CQE of QP {qp.qpn} whose send CQ is {qp.send_cq.cqn}"
        # Success: this signaled WR and every earlier unsignaled one are done. Errors
        # (incl. flushes) are reported for every WR, signaled or not; unsignaled WRs
        # ahead of the first error succeeded silently.
        while qp.sq_out:
            p = qp.sq_out.popleft()
            if wc.ok and p.signaled or not wc.ok and p.wr_id == wc.wr_id:
                if p.wr_id != wc.wr_id:
                    return f"QP {qp.qpn}: send CQE wr_id {wc.wr_id:#x}, expected {p.wr_id:#x}"
                return None
            if p.signaled:
                return (f"QP {qp.qpn}: error CQE wr_id {wc.wr_id:#x} but signaled WR "
                        f"{p.wr_id:#x} is older")
        return f"QP {qp.qpn}: send CQE with no outstanding send WR ({wc.work_completion()})"

    def wait_cq(self, cq: CompletionQueue, count: int, max_polls: int = 100000,
                idle: Callable[[], None] | None = None) -> list[WorkCompletion]:
        """:meth:`wait`, status and opcode as names."""
        return [c.work_completion() for c in self.wait(cq, count, max_polls, idle)]

    def wait(self, cq: CompletionQueue, count: int, max_polls: int = 100000,
             idle: Callable[[], None] | None = None) -> list[Completion]:
        """Poll until ``count`` completions arrived; CommandTimeout after ``max_polls``.
        Between empty polls it calls ``idle`` or, by default, takes the next asynchronous
        event (:meth:`get_async_event`, one register read: also what lets simulated time
        advance, as reading host memory alone does not), so a CQ that enters the error
        state while it is waited for ends the wait with CqError."""
        wcs: list[Completion] = []
        for _ in range(max_polls):
            got = self.poll(cq, count - len(wcs))
            wcs += got
            if len(wcs) >= count:
                return wcs
            if not got:
                if idle is not None:
                    idle()
                else:
                    self.get_async_event()
        raise CommandTimeout(f"CQ {cq.cqn}: {len(wcs)} of {count} completions after "
                             f"{max_polls} polls")

    def get_async_event(self) -> AsyncEvent | None:
        """Take the oldest asynchronous event from the NIC (roce.async_event), or None.
        A CQ event marks the CQ as in error: its polls raise CqError once its ring is
        drained. Unlike ibv_get_async_event this does not block."""
        v = self.dev.read("roce", "async_event")
        if not v & 1:
            return None
        self.dev.write("roce", "async_event_pop", 1)
        ev = AsyncEvent(AsyncEventType((v >> 1) & 3), v >> 8)
        cq = self.cqs.get(ev.cqn)
        if cq is not None:
            cq.error = ev.event_type
        return ev

    def req_notify_cq(self, cq: CompletionQueue) -> None:
        """Arm the CQ: the NIC raises its vector on the next CQE."""
        if not cq.valid:
            raise InvalidArgument(f"CQ {cq.cqn} was destroyed")
        self.bus.write32(CQ_DB_BASE + 8 * cq.cqn,
                         L.CqDoorbell(ci=cq.ci & 0x7FFFFFFF, arm=1).to_int())

    # ----------------------------------------------------------- counters
    def counters(self) -> dict[str, int]:
        """Every roce_cnt counter by name (free-running; take differences)."""
        return self.dev.counters("roce_cnt")

    # ----------------------------------------------------------- DCQCN state
    def dcqcn_state(self, qp: QueuePair) -> tuple[int, int, int]:
        """The QP's DCQCN reaction-point state (docs/cc.md): (Rc, Rt, alpha), rates in
        Mb/s x 2^12, alpha with 1.0 = 2^20. Issues a READ through cc.qp_cmd and waits
        for qp_status.busy to clear (raises TimeoutError after 100 polls)."""
        self.dev.write("cc", "qp_cmd", 3 | qp.qpn << 8)
        for _ in range(100):
            if not self.dev.read("cc", "qp_status") & 1:
                break
        else:
            raise TimeoutError(f"cc.qp_cmd READ of QP {qp.qpn} still busy after 100 polls")
        return (self.dev.read("cc", "qp_rc"), self.dev.read("cc", "qp_rt"),
                self.dev.read("cc", "qp_alpha"))

    # ----------------------------------------------------------- FEC port shim
    def set_fec(self, mode: int | str, *, k: int = 8, r: int = 2, d: int = 2,
                flush_cycles: int = 512, rob_timeout: int = 8192, nak_delay: int = 1024,
                nak_retry: int = 4096, rx_bypass: bool = False) -> None:
        """Configure the port's packet-level FEC (docs/fec.md): mode "off"/0, "all"/1
        (every RC data frame) or "qp"/2 (QPs created/modified with ``fec=True``).
        ``nak_delay`` > 0 turns on selective retransmission by the shims (a frame FEC
        did not rebuild within nak_delay cycles is NAKed to the peer's shim).
        ``rx_bypass``: the receive side hands frames over as they arrive and rebuilt
        frames as soon as they are decoded (no reorder buffer, no shim NAKs): for QPs
        with selective repeat in the engine, which place out of order themselves.
        Both NICs of a connection need the same K/R/D; change only while idle."""
        if not self.caps & Cap.FEC:
            raise InvalidArgument("this build lacks caps FEC")
        m = {"off": 0, "all": 1, "qp": 2}.get(mode, mode) if isinstance(mode, str) else mode
        if m not in (0, 1, 2):
            raise InvalidArgument(f"FEC mode {mode!r}: use off/all/qp or 0/1/2")
        for name, v, lo, hi in (("k", k, 1, 252), ("r", r, 1, 4), ("d", d, 1, 255),
                                ("flush_cycles", flush_cycles, 0, 0xFFFF),
                                ("rob_timeout", rob_timeout, 0, 0xFFFF),
                                ("nak_delay", nak_delay, 0, 0xFFFF),
                                ("nak_retry", nak_retry, 0, 0xFFFF)):
            if not lo <= v <= hi:
                raise InvalidArgument(f"FEC {name}={v} outside {lo}..{hi}")
        self.dev.write("fec", "k", k)
        self.dev.write("fec", "r", r)
        self.dev.write("fec", "d", d)
        self.dev.write("fec", "flush_cycles", flush_cycles)
        self.dev.write("fec", "rob_timeout", rob_timeout)
        self.dev.write("fec", "nak_delay", nak_delay)
        self.dev.write("fec", "nak_retry", nak_retry)
        self.dev.write("fec", "rx_bypass", int(rx_bypass))
        self.dev.write("fec", "mode", m)

    def fec_counters(self) -> dict[str, int]:
        """The FEC shim's counters by name (cnt_ prefix dropped)."""
        return {n.removeprefix("cnt_"): v for n, v in self.dev.counters("fec").items()}


def open_device(bus: Bus, mem: HostMemory, *, mac: int | str | bytes | None = None,
                ip: Any = None, poll_limit: int = 1000, first_qpn: int = 2,
                clear_mrs: bool = False) -> Context:
    """Check the device id, read the sizes and capabilities, optionally set the local
    MAC/IP and scrub the MR table (``clear_mrs``: NUM_MR commands)."""
    ctx = Context(bus, mem, poll_limit=poll_limit, first_qpn=first_qpn)
    ctx.set_local_address(mac, ip)
    if clear_mrs:
        ctx.clear_mrs()
    return ctx
