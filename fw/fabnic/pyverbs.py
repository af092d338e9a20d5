# SPDX-License-Identifier: Apache-2.0
"""The fabnic verbs API in the shape of pyverbs (rdma-core's Python verbs).

Objects are created from their parents and the verbs are methods of the objects::

    ctx = Context(bus, mem, mac="02:00:00:00:00:01", ip="10.0.0.1")
    pd = PD(ctx)
    mr = MR(pd, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
    cq = CQ(ctx, 64)
    qp = QP(pd, QPInitAttr(qp_type=IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=16, max_recv_wr=16)))
    attr = QPAttr(qp_access_flags=IBV_ACCESS_REMOTE_WRITE, path_mtu=IBV_MTU_1024,
                  dest_qp_num=peer_qpn, rq_psn=0, sq_psn=0,
                  ah_attr=AHAttr(dmac="02:00:00:00:00:02", dip="10.0.0.2"))
    qp.to_rts(attr)                       # or qp.modify(attr, IBV_QP_STATE | ...) per step
    qp.post_send(SendWR(wr_id=1, opcode=IBV_WR_RDMA_WRITE, sg=[SGE(mr.buf, 64, mr.lkey)],
                        wr=RdmaWR(remote_addr, rkey)))
    n, wcs = cq.poll(16)

Every verb is carried out by :class:`fabnic.verbs.Context` (``ctx.driver``); this
module converts shapes (SGE lists, attribute masks, enum completions) and checks what
the object model adds (the attribute mask of a QP transition, the one-SGE rule), and
touches the NIC only through the driver.

Differences from pyverbs (docs/fw.md, "The verbs API"):

* a work request carries at most one SGE (``num_sge`` 0 or 1; ``max_send_sge`` and
  ``max_recv_sge`` are 1): more is refused with :class:`InvalidArgument`;
* no ibv device: :class:`Context` opens the NIC through a register bus and a host
  memory allocator (:mod:`fabnic.bus`), or wraps an opened ``fabnic.verbs.Context``;
* the address vector is the peer's MAC and IP (:class:`AHAttr`), there is no GID table
  or ARP: ``dgid`` is accepted as another spelling of the IP;
* RC QPs only; one port (``port_num`` 1), one partition (``pkey_index`` 0);
* the enum names are pyverbs' but the values are fabnic's (the register and WQE
  encodings in :mod:`fabnic.layouts`): use the names, not numbers taken from libibverbs;
* ``send_flags``: SIGNALED, SOLICITED, FENCE; no INLINE;
* errors are :class:`fabnic.verbs.VerbsError` subclasses, raised before anything is
  written to the NIC when a request is malformed.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import IntEnum, IntFlag
from typing import Any

from . import verbs as _v
from .bus import Bus, HostMemory
from .layouts import Access, PathMtu, QpState, SqeFlag, WcOpcode, WcStatus, WrOpcode
from .verbs import (
    Cap,
    CommandRefused,
    CommandTimeout,
    CompletionError,
    CqError,
    InvalidArgument,
    QpStateError,
    QueueFull,
    ResourceError,
    VerbsError,
)

# --------------------------------------------------------------------------- enums

# QP states, path MTU codes, access flags, WR opcodes, send flags, WC status and WC
# opcodes are the generated enums of fabnic.layouts under their verbs names.
IBV_QPS_RESET = QpState.RESET
IBV_QPS_INIT = QpState.INIT
IBV_QPS_RTR = QpState.RTR
IBV_QPS_RTS = QpState.RTS
IBV_QPS_SQD = QpState.SQD
IBV_QPS_SQE = QpState.SQE
IBV_QPS_ERR = QpState.ERR

IBV_MTU_256 = PathMtu.MTU_256
IBV_MTU_512 = PathMtu.MTU_512
IBV_MTU_1024 = PathMtu.MTU_1024
IBV_MTU_2048 = PathMtu.MTU_2048
IBV_MTU_4096 = PathMtu.MTU_4096

IBV_ACCESS_LOCAL_WRITE = Access.LOCAL_WRITE
IBV_ACCESS_REMOTE_READ = Access.REMOTE_READ
IBV_ACCESS_REMOTE_WRITE = Access.REMOTE_WRITE
IBV_ACCESS_REMOTE_ATOMIC = Access.REMOTE_ATOMIC

IBV_WR_SEND = WrOpcode.SEND
IBV_WR_SEND_WITH_IMM = WrOpcode.SEND_WITH_IMM
IBV_WR_RDMA_WRITE = WrOpcode.RDMA_WRITE
IBV_WR_RDMA_WRITE_WITH_IMM = WrOpcode.RDMA_WRITE_WITH_IMM
IBV_WR_RDMA_READ = WrOpcode.RDMA_READ
IBV_WR_ATOMIC_CMP_AND_SWP = WrOpcode.ATOMIC_CMP_AND_SWP
IBV_WR_ATOMIC_FETCH_AND_ADD = WrOpcode.ATOMIC_FETCH_AND_ADD

IBV_SEND_SIGNALED = SqeFlag.SIGNALED
IBV_SEND_SOLICITED = SqeFlag.SOLICITED
IBV_SEND_FENCE = SqeFlag.FENCE
IBV_SEND_INLINE = 1 << 3        # named so ported code gets a clear refusal: no inline data

IBV_WC_SUCCESS = WcStatus.SUCCESS
IBV_WC_LOC_LEN_ERR = WcStatus.LOC_LEN_ERR
IBV_WC_LOC_PROT_ERR = WcStatus.LOC_PROT_ERR
IBV_WC_WR_FLUSH_ERR = WcStatus.WR_FLUSH_ERR
IBV_WC_REM_ACCESS_ERR = WcStatus.REM_ACCESS_ERR
IBV_WC_REM_INV_REQ_ERR = WcStatus.REM_INV_REQ_ERR
IBV_WC_REM_OP_ERR = WcStatus.REM_OP_ERR
IBV_WC_RETRY_EXC_ERR = WcStatus.RETRY_EXC_ERR
IBV_WC_RNR_RETRY_EXC_ERR = WcStatus.RNR_RETRY_EXC_ERR
IBV_WC_LOC_QP_OP_ERR = WcStatus.LOC_QP_OP_ERR

IBV_WC_SEND = WcOpcode.SEND
IBV_WC_RDMA_WRITE = WcOpcode.RDMA_WRITE
IBV_WC_RDMA_READ = WcOpcode.RDMA_READ
IBV_WC_COMP_SWAP = WcOpcode.CMP_AND_SWP
IBV_WC_FETCH_ADD = WcOpcode.FETCH_AND_ADD
IBV_WC_RECV = WcOpcode.RECV
IBV_WC_RECV_RDMA_WITH_IMM = WcOpcode.RECV_RDMA_WITH_IMM


class QPType(IntEnum):
    """QP transport types (libibverbs numbering); fabnic implements RC."""

    IBV_QPT_RC = 2
    IBV_QPT_UC = 3
    IBV_QPT_UD = 4


IBV_QPT_RC = QPType.IBV_QPT_RC
IBV_QPT_UC = QPType.IBV_QPT_UC
IBV_QPT_UD = QPType.IBV_QPT_UD


class WcFlags(IntFlag):
    """WC.wc_flags."""

    NONE = 0
    IBV_WC_GRH = 1 << 0
    IBV_WC_WITH_IMM = 1 << 1


IBV_WC_GRH = WcFlags.IBV_WC_GRH
IBV_WC_WITH_IMM = WcFlags.IBV_WC_WITH_IMM


class QPAttrMask(IntFlag):
    """Which QPAttr fields a :meth:`QP.modify` applies (libibverbs numbering), plus
    FABNIC_QP_MODES for fabnic's per-QP modes (selective repeat, FEC, DCQCN)."""

    NONE = 0
    IBV_QP_STATE = 1 << 0
    IBV_QP_CUR_STATE = 1 << 1
    IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2
    IBV_QP_ACCESS_FLAGS = 1 << 3
    IBV_QP_PKEY_INDEX = 1 << 4
    IBV_QP_PORT = 1 << 5
    IBV_QP_QKEY = 1 << 6
    IBV_QP_AV = 1 << 7
    IBV_QP_PATH_MTU = 1 << 8
    IBV_QP_TIMEOUT = 1 << 9
    IBV_QP_RETRY_CNT = 1 << 10
    IBV_QP_RNR_RETRY = 1 << 11
    IBV_QP_RQ_PSN = 1 << 12
    IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13
    IBV_QP_ALT_PATH = 1 << 14
    IBV_QP_MIN_RNR_TIMER = 1 << 15
    IBV_QP_SQ_PSN = 1 << 16
    IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17
    IBV_QP_PATH_MIG_STATE = 1 << 18
    IBV_QP_CAP = 1 << 19
    IBV_QP_DEST_QPN = 1 << 20
    IBV_QP_RATE_LIMIT = 1 << 25
    FABNIC_QP_MODES = 1 << 31


IBV_QP_STATE = QPAttrMask.IBV_QP_STATE
IBV_QP_CUR_STATE = QPAttrMask.IBV_QP_CUR_STATE
IBV_QP_EN_SQD_ASYNC_NOTIFY = QPAttrMask.IBV_QP_EN_SQD_ASYNC_NOTIFY
IBV_QP_ACCESS_FLAGS = QPAttrMask.IBV_QP_ACCESS_FLAGS
IBV_QP_PKEY_INDEX = QPAttrMask.IBV_QP_PKEY_INDEX
IBV_QP_PORT = QPAttrMask.IBV_QP_PORT
IBV_QP_QKEY = QPAttrMask.IBV_QP_QKEY
IBV_QP_AV = QPAttrMask.IBV_QP_AV
IBV_QP_PATH_MTU = QPAttrMask.IBV_QP_PATH_MTU
IBV_QP_TIMEOUT = QPAttrMask.IBV_QP_TIMEOUT
IBV_QP_RETRY_CNT = QPAttrMask.IBV_QP_RETRY_CNT
IBV_QP_RNR_RETRY = QPAttrMask.IBV_QP_RNR_RETRY
IBV_QP_RQ_PSN = QPAttrMask.IBV_QP_RQ_PSN
IBV_QP_MAX_QP_RD_ATOMIC = QPAttrMask.IBV_QP_MAX_QP_RD_ATOMIC
IBV_QP_ALT_PATH = QPAttrMask.IBV_QP_ALT_PATH
IBV_QP_MIN_RNR_TIMER = QPAttrMask.IBV_QP_MIN_RNR_TIMER
IBV_QP_SQ_PSN = QPAttrMask.IBV_QP_SQ_PSN
IBV_QP_MAX_DEST_RD_ATOMIC = QPAttrMask.IBV_QP_MAX_DEST_RD_ATOMIC
IBV_QP_PATH_MIG_STATE = QPAttrMask.IBV_QP_PATH_MIG_STATE
IBV_QP_CAP = QPAttrMask.IBV_QP_CAP
IBV_QP_DEST_QPN = QPAttrMask.IBV_QP_DEST_QPN
IBV_QP_RATE_LIMIT = QPAttrMask.IBV_QP_RATE_LIMIT
FABNIC_QP_MODES = QPAttrMask.FABNIC_QP_MODES

_M = QPAttrMask

# The masks pyverbs' to_init/to_rtr/to_rts helpers apply for an RC QP.
INIT_MASK = _M.IBV_QP_STATE | _M.IBV_QP_ACCESS_FLAGS | _M.IBV_QP_PKEY_INDEX | _M.IBV_QP_PORT
RTR_MASK = (_M.IBV_QP_STATE | _M.IBV_QP_AV | _M.IBV_QP_PATH_MTU | _M.IBV_QP_DEST_QPN
            | _M.IBV_QP_RQ_PSN | _M.IBV_QP_MAX_DEST_RD_ATOMIC | _M.IBV_QP_MIN_RNR_TIMER)
RTS_MASK = (_M.IBV_QP_STATE | _M.IBV_QP_TIMEOUT | _M.IBV_QP_RETRY_CNT | _M.IBV_QP_RNR_RETRY
            | _M.IBV_QP_SQ_PSN | _M.IBV_QP_MAX_QP_RD_ATOMIC)

# The driver's QP attributes (fabnic.verbs.QpAttrs field names) each mask bit sets;
# the legal transitions and their required/optional attributes are the driver's
# (fabnic.verbs.transition_rule), so there is one rule table.
_BIT_ATTRS: dict[QPAttrMask, frozenset[str]] = {
    _M.IBV_QP_ACCESS_FLAGS: frozenset({"access"}),
    _M.IBV_QP_PATH_MTU: frozenset({"path_mtu"}),
    _M.IBV_QP_DEST_QPN: frozenset({"dest_qpn"}),
    _M.IBV_QP_RQ_PSN: frozenset({"rq_psn"}),
    _M.IBV_QP_SQ_PSN: frozenset({"sq_psn"}),
    _M.IBV_QP_TIMEOUT: frozenset({"timeout"}),
    _M.IBV_QP_RETRY_CNT: frozenset({"retry_cnt"}),
    _M.IBV_QP_RNR_RETRY: frozenset({"rnr_retry"}),
    _M.IBV_QP_MIN_RNR_TIMER: frozenset({"min_rnr_timer"}),
    _M.IBV_QP_AV: frozenset({"dest_mac", "dest_ip", "dscp"}),    # and udp_sport if given
    _M.FABNIC_QP_MODES: frozenset({"selective_repeat", "fec", "dcqcn"}),
}
# Attributes IBTA lists for a transition that the NIC has no use for: accepted (range
# checked, kept for query) but not required.
_ACCEPTED: dict[tuple[QpState, QpState], QPAttrMask] = {
    (QpState.RESET, QpState.INIT): _M.IBV_QP_PKEY_INDEX | _M.IBV_QP_PORT,
    (QpState.INIT, QpState.INIT): _M.IBV_QP_PKEY_INDEX | _M.IBV_QP_PORT,
    (QpState.INIT, QpState.RTR): _M.IBV_QP_PKEY_INDEX | _M.IBV_QP_MAX_DEST_RD_ATOMIC,
    (QpState.RTR, QpState.RTS): _M.IBV_QP_MAX_QP_RD_ATOMIC,
    (QpState.SQD, QpState.SQD): (_M.IBV_QP_PKEY_INDEX | _M.IBV_QP_PORT
                                 | _M.IBV_QP_MAX_QP_RD_ATOMIC | _M.IBV_QP_MAX_DEST_RD_ATOMIC),
}
# Mask bits for features fabnic does not have at all.
_UNSUPPORTED = (_M.IBV_QP_EN_SQD_ASYNC_NOTIFY | _M.IBV_QP_QKEY | _M.IBV_QP_ALT_PATH
                | _M.IBV_QP_PATH_MIG_STATE | _M.IBV_QP_CAP | _M.IBV_QP_RATE_LIMIT)

MAX_SGE = 1                     # scatter/gather elements per WQE (SQE and RQE)



def _names(mask: QPAttrMask) -> str:
    return ", ".join(b.name for b in _M if b and b & mask and b.name)


def mask_names(mask: int) -> str:
    """``IBV_QP_STATE | IBV_QP_AV`` -> "IBV_QP_STATE, IBV_QP_AV"."""
    return _names(_M(mask))


# --------------------------------------------------------------------------- base


class _Resource:
    """close() and context-manager support shared by the objects."""

    _closed = False

    def close(self) -> None:
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _live(self) -> None:
        if self._closed:
            raise InvalidArgument(f"{type(self).__name__} is closed")


# --------------------------------------------------------------------------- context


@dataclass(frozen=True)
class DeviceAttr:
    """Context.query_device(): the limits of this NIC build."""

    fw_ver: str
    vendor_part_id: int
    max_qp: int
    max_cq: int
    max_mr: int
    max_pd: int
    max_qp_wr: int
    max_cqe: int
    max_sge: int
    max_mr_size: int
    caps: Cap


class EventType(IntEnum):
    """libibverbs enum ibv_event_type (the values fabnic raises)."""
    IBV_EVENT_CQ_ERR = 0


@dataclass(frozen=True)
class AsyncEvent:
    """ibv_async_event: the type, the CQ it concerns, and fabnic's cause."""
    event_type: EventType
    cq: Any
    cqn: int
    cause: _v.AsyncEventType


IBV_EVENT_CQ_ERR = EventType.IBV_EVENT_CQ_ERR


class Context(_Resource):
    """An opened fabnic NIC: ``Context(bus, mem, mac=..., ip=...)`` checks the device,
    reads its sizes and sets the local MAC/IP (the options of
    :func:`fabnic.verbs.open_device`); ``Context(driver=ctx)`` wraps a NIC already opened
    with that function. ``driver`` is the :class:`fabnic.verbs.Context` doing the work."""

    def __init__(self, bus: Bus | None = None, mem: HostMemory | None = None, *,
                 mac: int | str | bytes | None = None, ip: Any = None,
                 poll_limit: int = 1000, first_qpn: int = 2, clear_mrs: bool = False,
                 driver: _v.Context | None = None, name: str = "fabnic0") -> None:
        if driver is None:
            if bus is None or mem is None:
                raise InvalidArgument("Context needs a register bus and a host memory "
                                      "(or driver=an opened fabnic.verbs.Context)")
            driver = _v.open_device(bus, mem, mac=mac, ip=ip, poll_limit=poll_limit,
                                    first_qpn=first_qpn, clear_mrs=clear_mrs)
        elif mac is not None or ip is not None:
            driver.set_local_address(mac, ip)
        self.driver = driver
        self.name = name
        self._pds: list[PD] = []
        self._cqs: list[CQ] = []

    @property
    def mem(self) -> HostMemory:
        return self.driver.mem

    @property
    def mac(self) -> int:
        return self.driver.mac

    @property
    def ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        return self.driver.ip

    def set_local_address(self, mac: int | str | bytes | None = None, ip: Any = None) -> None:
        self.driver.set_local_address(mac, ip)

    def query_device(self) -> DeviceAttr:
        d = self.driver
        return DeviceAttr(fw_ver=".".join(map(str, d.info.version)), vendor_part_id=d.info.device_id,
                          max_qp=d.num_qp, max_cq=d.num_cq, max_mr=d.num_mr,
                          max_pd=(1 << 24) - 1, max_qp_wr=1 << _v.MAX_LOG2_ENTRIES,
                          max_cqe=1 << _v.MAX_LOG2_ENTRIES, max_sge=MAX_SGE,
                          max_mr_size=(1 << 64) - 1, caps=d.caps)

    def counters(self) -> dict[str, int]:
        """Every roce_cnt counter by name (free-running; take differences)."""
        return self.driver.counters()

    def get_async_event(self) -> AsyncEvent | None:
        """The oldest asynchronous event, or None (pyverbs blocks; a synchronous driver
        polls). fabnic's events are CQ errors: ``event_type`` IBV_EVENT_CQ_ERR, ``cq``
        the CQ object, ``cause`` overrun or CQE write error. After it the CQ's polls
        raise CqError once its ring is drained."""
        ev = self.driver.get_async_event()
        if ev is None:
            return None
        cq = next((c for c in self._cqs if c.handle.cqn == ev.cqn), None)
        return AsyncEvent(EventType.IBV_EVENT_CQ_ERR, cq, ev.cqn, ev.event_type)

    def close(self) -> None:
        """Close every PD (with its QPs and MRs) and CQ made on this context. The bus
        and host memory belong to the caller and stay open."""
        if self._closed:
            return
        for pd in reversed(self._pds):
            pd.close()
        for cq in reversed(self._cqs):
            cq.close()
        self._closed = True


class PD(_Resource):
    """Protection domain: ``PD(ctx)``."""

    def __init__(self, context: Context) -> None:
        context._live()
        self.ctx = context
        self.handle = context.driver.alloc_pd()
        self._mrs: list[MR] = []
        self._qps: list[QP] = []
        context._pds.append(self)

    @property
    def pdn(self) -> int:
        return self.handle.pdn

    def close(self) -> None:
        """Destroy this PD's QPs, deregister its MRs, then free it."""
        if self._closed:
            return
        for qp in reversed(self._qps):
            qp.close()
        for mr in reversed(self._mrs):
            mr.close()
        self.ctx.driver.dealloc_pd(self.handle)
        self.ctx._pds.remove(self)
        self._closed = True


class MR(_Resource):
    """Memory region: ``MR(pd, length, access, address=None, iova=None)``.

    Without ``address`` the buffer is allocated (zeroed) from the context's host memory,
    as pyverbs allocates one; ``iova`` is the address peers and work requests use for
    its first byte (default: the host address)."""

    def __init__(self, pd: PD, length: int, access: Access | int,
                 address: int | None = None, iova: int | None = None) -> None:
        pd._live()
        self.pd = pd
        driver = pd.ctx.driver
        if address is None:
            address = driver.mem.alloc(max(length, 1), 64)
            driver.mem.write(address, bytes(length))
        self.handle = driver.reg_mr(pd.handle, address, length, access, va=iova)
        pd._mrs.append(self)

    @property
    def buf(self) -> int:
        """Host address of the first byte."""
        return self.handle.addr

    @property
    def iova(self) -> int:
        return self.handle.va

    @property
    def length(self) -> int:
        return self.handle.length

    @property
    def lkey(self) -> int:
        return self.handle.lkey

    @property
    def rkey(self) -> int:
        return self.handle.rkey

    @property
    def access(self) -> Access:
        return self.handle.access

    def _span(self, length: int, offset: int) -> int:
        if offset < 0 or length < 0 or offset + length > self.length:
            raise InvalidArgument(f"MR {self.lkey:#x}: bytes {offset}..{offset + length} "
                                  f"outside its {self.length}")
        return self.buf + offset

    def read(self, length: int, offset: int = 0) -> bytes:
        self._live()
        return self.pd.ctx.driver.mem.read(self._span(length, offset), length)

    def write(self, data: bytes, length: int | None = None, offset: int = 0) -> None:
        self._live()
        data = bytes(data if length is None else data[:length])
        self.pd.ctx.driver.mem.write(self._span(len(data), offset), data)

    def close(self) -> None:
        if self._closed:
            return
        self.pd.ctx.driver.dereg_mr(self.handle)
        self.pd._mrs.remove(self)
        self._closed = True


# --------------------------------------------------------------------------- completions


@dataclass
class WC:
    """Work completion. ``status`` and ``opcode`` are WcStatus/WcOpcode members (a plain
    int when the NIC wrote a code the enum does not know); ``imm_data`` is valid when
    ``wc_flags`` has IBV_WC_WITH_IMM."""

    wr_id: int = 0
    status: WcStatus | int = WcStatus.SUCCESS
    opcode: WcOpcode | int = WcOpcode.SEND
    vendor_err: int = 0
    byte_len: int = 0
    qp_num: int = 0
    src_qp: int = 0
    imm_data: int = 0
    wc_flags: WcFlags = WcFlags.NONE

    @property
    def ok(self) -> bool:
        return self.status == WcStatus.SUCCESS

    @classmethod
    def from_completion(cls, c: _v.Completion) -> WC:
        try:
            status: WcStatus | int = WcStatus(c.status)
        except ValueError:
            status = c.status
        try:
            opcode: WcOpcode | int = WcOpcode(c.opcode)
        except ValueError:
            opcode = c.opcode
        return cls(wr_id=c.wr_id, status=status, opcode=opcode, byte_len=c.byte_len,
                   qp_num=c.qpn, imm_data=c.imm or 0,
                   wc_flags=WcFlags.IBV_WC_WITH_IMM if c.imm is not None else WcFlags.NONE)


class CQ(_Resource):
    """Completion queue: ``CQ(ctx, cqe, cq_context=None, channel=None, comp_vector=0)``
    with at least ``cqe`` entries (rounded up to a power of two: ``cq.cqe``)."""

    def __init__(self, context: Context, cqe: int, cq_context: Any = None,
                 channel: Any = None, comp_vector: int = 0) -> None:
        context._live()
        if channel is not None:
            raise InvalidArgument("fabnic has no completion channels: poll, or arm with "
                                  "req_notify() and take the interrupt vector")
        self.ctx = context
        self.cq_context = cq_context
        self.handle = context.driver.create_cq(cqe, vector=comp_vector)
        context._cqs.append(self)

    @property
    def cqn(self) -> int:
        return self.handle.cqn

    @property
    def cqe(self) -> int:
        return self.handle.depth

    def poll(self, num_entries: int = 1) -> tuple[int, list[WC]]:
        """Take up to ``num_entries`` completions: (how many, [WC, ...])."""
        self._live()
        wcs = [WC.from_completion(c) for c in self.ctx.driver.poll(self.handle, num_entries)]
        return len(wcs), wcs

    def wait(self, num_entries: int, max_polls: int = 100000,
             idle: Callable[[], None] | None = None) -> list[WC]:
        """Poll until ``num_entries`` completions arrived (fabnic convenience). Gives up
        with CommandTimeout after ``max_polls`` polls, the unit of time a synchronous
        driver has (in simulation each empty poll is a register read, or ``idle()``)."""
        self._live()
        return [WC.from_completion(c)
                for c in self.ctx.driver.wait(self.handle, num_entries, max_polls, idle)]

    def req_notify(self, solicited_only: bool = False) -> None:
        """Arm the CQ: the NIC raises its vector on the next completion."""
        self._live()
        if solicited_only:
            raise InvalidArgument("fabnic arms a CQ for every completion (no solicited-only)")
        self.ctx.driver.req_notify_cq(self.handle)

    def close(self) -> None:
        if self._closed:
            return
        self.ctx.driver.destroy_cq(self.handle)
        self.ctx._cqs.remove(self)
        self._closed = True


# --------------------------------------------------------------------------- QP attributes


@dataclass
class QPCap:
    """Queue sizes. Rings hold a power of two of entries (a QP reports what it got);
    one SGE per WQE; no inline data."""

    max_send_wr: int = 1
    max_recv_wr: int = 10
    max_send_sge: int = 1
    max_recv_sge: int = 1
    max_inline_data: int = 0


class QPInitAttr:
    """QP creation attributes. pyverbs spells the CQs ``scq``/``rcq`` in the constructor
    and ``send_cq``/``recv_cq`` as attributes; both spellings are accepted here.
    ``sq_sig_all=1`` (the default, as in pyverbs) signals every send WR."""

    def __init__(self, qp_type: QPType | int = QPType.IBV_QPT_RC, qp_context: Any = None,
                 scq: CQ | None = None, rcq: CQ | None = None, srq: Any = None,
                 cap: QPCap | None = None, sq_sig_all: int = 1, *,
                 send_cq: CQ | None = None, recv_cq: CQ | None = None) -> None:
        self.qp_type = qp_type
        self.qp_context = qp_context
        self.send_cq = send_cq if send_cq is not None else scq
        self.recv_cq = recv_cq if recv_cq is not None else rcq
        self.srq = srq
        self.cap = cap if cap is not None else QPCap()
        self.sq_sig_all = sq_sig_all

    def __repr__(self) -> str:
        return (f"QPInitAttr(qp_type={self.qp_type!r}, send_cq={self.send_cq!r}, "
                f"recv_cq={self.recv_cq!r}, cap={self.cap!r}, sq_sig_all={self.sq_sig_all})")


class AHAttr:
    """Address vector of an RC peer: its MAC and IP (fabnic has no GID table and no
    ARP). ``dgid`` is accepted instead of ``dip`` (an IPv4-mapped GID such as
    ::ffff:10.0.0.2 names an IPv4 peer). ``traffic_class`` gives the DSCP (its top six
    bits; ECN is the NIC's); ``udp_sport`` the UDP source port (default: per QP)."""

    def __init__(self, *, dmac: int | str | bytes | None = None, dip: Any = None,
                 dgid: Any = None, traffic_class: int = 0, udp_sport: int | None = None,
                 port_num: int = 1) -> None:
        self.dmac = dmac
        self.dip = dip
        self.dgid = dgid
        self.traffic_class = traffic_class
        self.udp_sport = udp_sport
        self.port_num = port_num

    def dest_ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        if self.dip is not None:
            return _v.parse_ip(self.dip)
        if self.dgid is None:
            raise InvalidArgument("AHAttr needs dip (or dgid)")
        gid = _v.parse_ip(self.dgid)
        if isinstance(gid, ipaddress.IPv6Address) and gid.ipv4_mapped is not None:
            return gid.ipv4_mapped
        return gid

    def __repr__(self) -> str:
        return (f"AHAttr(dmac={self.dmac!r}, dip={self.dip!r}, dgid={self.dgid!r}, "
                f"traffic_class={self.traffic_class}, udp_sport={self.udp_sport})")


@dataclass
class QPAttr:
    """QP attributes for :meth:`QP.modify` (only the fields named by the mask are
    applied) and :meth:`QP.query`. ``path_mtu`` is an IBV_MTU_* code (a byte count
    256..4096 is accepted too). ``selective_repeat``, ``fec`` and ``dcqcn`` are fabnic's
    per-QP modes (mask FABNIC_QP_MODES)."""

    qp_state: QpState | int = QpState.INIT
    cur_qp_state: QpState | int = QpState.RESET
    path_mtu: PathMtu | int = PathMtu.MTU_1024
    qp_access_flags: Access | int = Access.NONE
    dest_qp_num: int = 0
    rq_psn: int = 0
    sq_psn: int = 0
    ah_attr: AHAttr | None = None
    pkey_index: int = 0
    port_num: int = 1
    timeout: int = 14
    retry_cnt: int = 7
    rnr_retry: int = 7
    min_rnr_timer: int = 1
    max_rd_atomic: int = 0
    max_dest_rd_atomic: int = 0
    selective_repeat: bool = False
    fec: bool = False
    dcqcn: bool = False


def _mtu_bytes(value: int) -> int:
    if value in _v.PATH_MTU_CODE:
        return value
    try:
        return 128 << PathMtu(value)
    except ValueError:
        raise InvalidArgument(f"path_mtu {value!r}: an IBV_MTU_* code "
                              f"({', '.join(m.name for m in PathMtu)})") from None


def _range(name: str, value: int, hi: int) -> int:
    if not isinstance(value, int) or not 0 <= value <= hi:
        raise InvalidArgument(f"{name}={value!r} outside 0..{hi}")
    return value


# --------------------------------------------------------------------------- work requests


@dataclass
class SGE:
    """Scatter/gather element: ``SGE(addr, length, lkey)``."""

    addr: int
    length: int
    lkey: int


@dataclass
class RdmaWR:
    """Remote side of an RDMA WRITE/READ (pyverbs: ``wr.set_wr_rdma(rkey, addr)``)."""

    remote_addr: int
    rkey: int


@dataclass
class AtomicWR:
    """Remote side and operands of an atomic (pyverbs: ``wr.set_wr_atomic(rkey, addr,
    compare_add, swap)``); the SGE names the 8-byte buffer for the original value."""

    remote_addr: int
    rkey: int
    compare_add: int = 0
    swap: int = 0


class SendWR:
    """Send work request: ``SendWR(wr_id, opcode, num_sge, imm_data, sg=[SGE],
    send_flags, wr=RdmaWR(...)|AtomicWR(...))``. ``num_sge`` defaults to ``len(sg)``;
    fabnic takes at most one SGE."""

    def __init__(self, wr_id: int = 0, opcode: WrOpcode | int = WrOpcode.SEND,
                 num_sge: int | None = None, imm_data: int = 0, sg: list[SGE] | None = None,
                 send_flags: int = SqeFlag.SIGNALED, *,
                 wr: RdmaWR | AtomicWR | None = None) -> None:
        self.wr_id = wr_id
        self.opcode = opcode
        self.sg = list(sg or [])
        self.num_sge = len(self.sg) if num_sge is None else num_sge
        self.imm_data = imm_data
        self.send_flags = send_flags
        self.wr = wr

    def set_wr_rdma(self, rkey: int, addr: int) -> None:
        self.wr = RdmaWR(addr, rkey)

    def set_wr_atomic(self, rkey: int, addr: int, compare_add: int, swap: int = 0) -> None:
        self.wr = AtomicWR(addr, rkey, compare_add, swap)

    def __repr__(self) -> str:
        return (f"SendWR(wr_id={self.wr_id}, opcode={self.opcode!r}, num_sge={self.num_sge}, "
                f"sg={self.sg}, imm_data={self.imm_data:#x}, send_flags={self.send_flags!r}, "
                f"wr={self.wr})")


class RecvWR:
    """Receive work request: ``RecvWR(wr_id, num_sge, sg=[SGE])``; at most one SGE."""

    def __init__(self, wr_id: int = 0, num_sge: int | None = None,
                 sg: list[SGE] | None = None) -> None:
        self.wr_id = wr_id
        self.sg = list(sg or [])
        self.num_sge = len(self.sg) if num_sge is None else num_sge

    def __repr__(self) -> str:
        return f"RecvWR(wr_id={self.wr_id}, num_sge={self.num_sge}, sg={self.sg})"


_RDMA_OPS = (WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ)


def _one_sge(what: str, num_sge: int, sg: list[SGE]) -> SGE:
    if num_sge != len(sg):
        raise InvalidArgument(f"{what}: num_sge={num_sge} but sg has {len(sg)} elements")
    if num_sge > MAX_SGE:
        raise InvalidArgument(f"{what}: {num_sge} SGEs; a fabnic WQE carries one "
                              "scatter/gather element (max_sge = 1, docs/fw.md): post one "
                              "work request per buffer")
    return sg[0] if sg else SGE(0, 0, 0)


def send_wr_to_driver(wr: SendWR, index: int = 0, sig_all: bool = False) -> _v.SendWR:
    """The driver's flat send WR for ``wr`` (what is packed into the SQE); raises
    InvalidArgument for what a fabnic SQE cannot carry."""
    what = f"SendWR {index} (wr_id {wr.wr_id})"
    sge = _one_sge(what, wr.num_sge, wr.sg)
    try:
        op = WrOpcode(wr.opcode)
    except ValueError:
        raise InvalidArgument(f"{what}: unknown opcode {wr.opcode!r}") from None
    flags = int(wr.send_flags)
    if flags & IBV_SEND_INLINE:
        raise InvalidArgument(f"{what}: IBV_SEND_INLINE: fabnic reads payload from "
                              "registered memory only (max_inline_data = 0)")
    if flags & ~int(SqeFlag.SIGNALED | SqeFlag.SOLICITED | SqeFlag.FENCE):
        raise InvalidArgument(f"{what}: unknown send_flags {flags:#x}")
    remote_addr = rkey = compare_add = swap = 0
    if op in _RDMA_OPS:
        if not isinstance(wr.wr, RdmaWR):
            raise InvalidArgument(f"{what}: {op.name} needs wr=RdmaWR(remote_addr, rkey) "
                                  "(or set_wr_rdma)")
        remote_addr, rkey = wr.wr.remote_addr, wr.wr.rkey
    elif op in _v.ATOMIC_OPS:
        if not isinstance(wr.wr, AtomicWR):
            raise InvalidArgument(f"{what}: {op.name} needs wr=AtomicWR(remote_addr, rkey, "
                                  "compare_add, swap) (or set_wr_atomic)")
        remote_addr, rkey = wr.wr.remote_addr, wr.wr.rkey
        compare_add, swap = wr.wr.compare_add, wr.wr.swap
    elif wr.wr is not None:
        raise InvalidArgument(f"{what}: {op.name} takes no remote address ({wr.wr})")
    return _v.SendWR(op, wr_id=wr.wr_id, local_addr=sge.addr, length=sge.length,
                     lkey=sge.lkey, remote_addr=remote_addr, rkey=rkey, imm=wr.imm_data,
                     compare_add=compare_add, swap=swap,
                     signaled=bool(sig_all or flags & SqeFlag.SIGNALED),
                     solicited=bool(flags & SqeFlag.SOLICITED),
                     fence=bool(flags & SqeFlag.FENCE))


def recv_wr_to_driver(wr: RecvWR, index: int = 0) -> _v.RecvWR:
    """The driver's flat receive WR for ``wr`` (what is packed into the RQE)."""
    sge = _one_sge(f"RecvWR {index} (wr_id {wr.wr_id})", wr.num_sge, wr.sg)
    return _v.RecvWR(wr_id=wr.wr_id, addr=sge.addr, length=sge.length, lkey=sge.lkey)


# --------------------------------------------------------------------------- QP


class QP(_Resource):
    """RC queue pair: ``QP(pd, init_attr, qp_attr=None)``; created in RESET, or moved to
    INIT with ``qp_attr`` (as :meth:`to_init`)."""

    def __init__(self, pd: PD, init_attr: QPInitAttr, qp_attr: QPAttr | None = None) -> None:
        pd._live()
        ia = init_attr
        if ia.qp_type != QPType.IBV_QPT_RC:
            raise InvalidArgument(f"QP type {ia.qp_type!r}: fabnic implements RC QPs only "
                                  "(IBV_QPT_RC)")
        if ia.srq is not None:
            raise InvalidArgument("fabnic has no shared receive queues (srq must be None)")
        for name, cq in (("send_cq", ia.send_cq), ("recv_cq", ia.recv_cq)):
            if not isinstance(cq, CQ):
                raise InvalidArgument(f"QPInitAttr.{name} must be a CQ, not {cq!r}")
            cq._live()
            if cq.ctx is not pd.ctx:
                raise InvalidArgument(f"QPInitAttr.{name} belongs to another context")
        cap = ia.cap
        for name in ("max_send_sge", "max_recv_sge"):
            if getattr(cap, name) > MAX_SGE:
                raise InvalidArgument(f"QPCap.{name}={getattr(cap, name)}: a fabnic WQE "
                                      "carries one scatter/gather element (max_sge = 1)")
        if cap.max_inline_data:
            raise InvalidArgument("QPCap.max_inline_data: fabnic has no inline data")
        assert isinstance(ia.send_cq, CQ) and isinstance(ia.recv_cq, CQ)
        self.pd = pd
        self.ctx = pd.ctx
        self.handle = self.ctx.driver.create_qp(
            pd.handle, ia.send_cq.handle, ia.recv_cq.handle,
            sq_depth=max(cap.max_send_wr, 1), rq_depth=max(cap.max_recv_wr, 1))
        h = self.handle
        self.init_attr = QPInitAttr(QPType.IBV_QPT_RC, ia.qp_context, ia.send_cq,
                                    ia.recv_cq, None,
                                    QPCap(h.sq_depth, h.rq_depth, MAX_SGE, MAX_SGE, 0),
                                    ia.sq_sig_all)
        self._ignored = QPAttr()           # accepted attributes the NIC does not use
        pd._qps.append(self)
        if qp_attr is not None:
            self.to_init(qp_attr)

    @property
    def qp_num(self) -> int:
        return self.handle.qpn

    @property
    def qp_type(self) -> QPType:
        return QPType.IBV_QPT_RC

    @property
    def qp_state(self) -> QpState:
        """The driver's view (follows error completions and query())."""
        return self.handle.state

    @property
    def cap(self) -> QPCap:
        return self.init_attr.cap

    # ----------------------------------------------------------- state transitions
    def modify(self, attr: QPAttr, attr_mask: int) -> None:
        """Apply the fields of ``attr`` named by ``attr_mask`` (IBV_QP_* bits). With
        IBV_QP_STATE it is the transition to ``attr.qp_state``, else a modify in the
        current state. Checks the transition is legal (IBTA, RC) and the mask holds every
        attribute it requires and none it does not take, before anything is written."""
        self._live()
        try:
            mask = _M(attr_mask)
        except ValueError:
            raise InvalidArgument(f"attr_mask {attr_mask:#x} has unknown bits") from None
        cur = self.qp_state
        where = f"QP {self.qp_num}"
        new = _state(attr.qp_state) if mask & _M.IBV_QP_STATE else cur
        if mask & _M.IBV_QP_CUR_STATE and _state(attr.cur_qp_state) != cur:
            raise QpStateError(f"{where}: cur_qp_state {_state(attr.cur_qp_state).name} "
                               f"but the QP is {cur.name}")
        if mask & _UNSUPPORTED:
            raise InvalidArgument(f"{where}: fabnic does not implement "
                                  f"{_names(mask & _UNSUPPORTED)}")
        required, allowed = transition_masks(cur, new)
        if required is None:
            legal = ", ".join(s.name for s in _v.legal_next_states(cur))
            raise QpStateError(f"{where}: {cur.name} -> {new.name} is not a legal "
                               f"transition (from {cur.name}: {legal})")
        missing = required & ~mask
        if missing:
            raise QpStateError(f"{where}: {cur.name} -> {new.name} requires "
                               f"{_names(missing)} in attr_mask")
        extra = mask & ~allowed
        if extra:
            raise QpStateError(f"{where}: {cur.name} -> {new.name} does not take "
                               f"{_names(extra)}")
        attrs = self._driver_attrs(attr, mask)
        self.ctx.driver.modify_qp(self.handle, new, **attrs)
        for bit, name in ((_M.IBV_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic"),
                          (_M.IBV_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic")):
            if mask & bit:
                setattr(self._ignored, name, getattr(attr, name))

    def _driver_attrs(self, attr: QPAttr, mask: QPAttrMask) -> dict[str, Any]:
        a: dict[str, Any] = {}
        if mask & _M.IBV_QP_ACCESS_FLAGS:
            a["access"] = attr.qp_access_flags
        if mask & _M.IBV_QP_PATH_MTU:
            a["path_mtu"] = _mtu_bytes(attr.path_mtu)
        if mask & _M.IBV_QP_DEST_QPN:
            a["dest_qpn"] = attr.dest_qp_num
        if mask & _M.IBV_QP_RQ_PSN:
            a["rq_psn"] = attr.rq_psn
        if mask & _M.IBV_QP_SQ_PSN:
            a["sq_psn"] = attr.sq_psn
        if mask & _M.IBV_QP_TIMEOUT:
            a["timeout"] = attr.timeout
        if mask & _M.IBV_QP_RETRY_CNT:
            a["retry_cnt"] = attr.retry_cnt
        if mask & _M.IBV_QP_RNR_RETRY:
            a["rnr_retry"] = attr.rnr_retry
        if mask & _M.IBV_QP_AV:
            ah = attr.ah_attr
            if ah is None:
                raise InvalidArgument(f"QP {self.qp_num}: IBV_QP_AV without ah_attr")
            if ah.dmac is None:
                raise InvalidArgument(f"QP {self.qp_num}: ah_attr needs dmac (no ARP)")
            if ah.port_num != 1:
                raise InvalidArgument(f"ah_attr.port_num={ah.port_num}: fabnic has port 1")
            a["dest_mac"] = ah.dmac
            a["dest_ip"] = ah.dest_ip()
            a["dscp"] = _range("ah_attr.traffic_class", ah.traffic_class, 255) >> 2
            if ah.udp_sport is not None:
                a["udp_sport"] = ah.udp_sport
        if mask & _M.FABNIC_QP_MODES:
            a["selective_repeat"] = attr.selective_repeat
            a["fec"] = attr.fec
            a["dcqcn"] = attr.dcqcn
        if mask & _M.IBV_QP_PKEY_INDEX and attr.pkey_index != 0:
            raise InvalidArgument(f"pkey_index={attr.pkey_index}: fabnic has one partition "
                                  "(pkey_index 0)")
        if mask & _M.IBV_QP_PORT and attr.port_num != 1:
            raise InvalidArgument(f"port_num={attr.port_num}: fabnic has one port (1)")
        if mask & _M.IBV_QP_MIN_RNR_TIMER:
            a["min_rnr_timer"] = _range("min_rnr_timer", attr.min_rnr_timer, 31)
        if mask & _M.IBV_QP_MAX_QP_RD_ATOMIC:
            _range("max_rd_atomic", attr.max_rd_atomic, 255)
        if mask & _M.IBV_QP_MAX_DEST_RD_ATOMIC:
            _range("max_dest_rd_atomic", attr.max_dest_rd_atomic, 255)
        return a

    def to_init(self, attr: QPAttr) -> None:
        """RESET -> INIT with ``attr.qp_access_flags`` (mask INIT_MASK)."""
        self.modify(replace(attr, qp_state=QpState.INIT), INIT_MASK)

    def to_rtr(self, attr: QPAttr) -> None:
        """-> RTR (through INIT when in RESET) with the peer's AV, MTU, QPN and PSN."""
        if self.qp_state == QpState.RESET:
            self.to_init(attr)
        self.modify(replace(attr, qp_state=QpState.RTR), RTR_MASK)

    def to_rts(self, attr: QPAttr) -> None:
        """-> RTS (through INIT and RTR when needed) with sq_psn, timeout, retry_cnt,
        rnr_retry."""
        if self.qp_state in (QpState.RESET, QpState.INIT):
            self.to_rtr(attr)
        self.modify(replace(attr, qp_state=QpState.RTS), RTS_MASK)

    def query(self, attr_mask: int = ~0) -> tuple[QPAttr, QPInitAttr]:
        """Ask the NIC for the QP's state (the driver's state follows it) and return the
        attributes with the creation attributes."""
        self._live()
        q = self.ctx.driver.query_qp(self.handle)
        s = q.attrs
        attr = QPAttr(qp_state=q.state, cur_qp_state=q.state,
                      path_mtu=PathMtu(_v.PATH_MTU_CODE[s.path_mtu]), qp_access_flags=s.access,
                      dest_qp_num=s.dest_qpn, rq_psn=s.rq_psn, sq_psn=s.sq_psn,
                      ah_attr=AHAttr(dmac=s.dest_mac, dip=s.dest_ip, traffic_class=s.dscp << 2,
                                     udp_sport=s.udp_sport),
                      timeout=s.timeout, retry_cnt=s.retry_cnt, rnr_retry=s.rnr_retry,
                      min_rnr_timer=s.min_rnr_timer,
                      max_rd_atomic=self._ignored.max_rd_atomic,
                      max_dest_rd_atomic=self._ignored.max_dest_rd_atomic,
                      selective_repeat=s.selective_repeat, fec=s.fec, dcqcn=s.dcqcn)
        return attr, self.init_attr

    # ----------------------------------------------------------- work requests
    def post_send(self, wr: SendWR | Iterable[SendWR]) -> None:
        """Post one send WR or a list (written together, one doorbell). All or nothing:
        a WR the NIC cannot take, or too few free slots, raises before anything is
        written."""
        self._live()
        wrs = [wr] if isinstance(wr, SendWR) else list(wr)
        sig_all = bool(self.init_attr.sq_sig_all)
        self.ctx.driver.post_send(
            self.handle, [send_wr_to_driver(w, i, sig_all) for i, w in enumerate(wrs)])

    def post_recv(self, wr: RecvWR | Iterable[RecvWR]) -> None:
        """Post one receive WR or a list (one doorbell, all or nothing)."""
        self._live()
        wrs = [wr] if isinstance(wr, RecvWR) else list(wr)
        self.ctx.driver.post_recv(self.handle,
                                  [recv_wr_to_driver(w, i) for i, w in enumerate(wrs)])

    def bind_vni(self, vni: int | None) -> None:
        """RoCE over VXLAN (fabnic.nic.open_nic): bind to tenant network ``vni`` or unbind."""
        self.ctx.driver.bind_qp_vni(self.handle, vni)

    def close(self) -> None:
        if self._closed:
            return
        self.ctx.driver.destroy_qp(self.handle)
        self.pd._qps.remove(self)
        self._closed = True


def _state(value: QpState | int) -> QpState:
    try:
        return QpState(value)
    except ValueError:
        raise InvalidArgument(f"qp_state {value!r} is not an IBV_QPS_* state") from None


def transition_masks(cur: QpState, new: QpState) -> tuple[QPAttrMask | None, QPAttrMask]:
    """(required, allowed) attr_mask bits of the transition ``cur -> new`` from the
    driver's rule table; (None, NONE) when it is not a legal transition."""
    rule = _v.transition_rule(cur, new)
    if rule is None:
        return None, _M.NONE
    req_attrs, opt_attrs = rule
    required = _M.IBV_QP_STATE if cur != new else _M.NONE
    allowed = _M.IBV_QP_STATE | _M.IBV_QP_CUR_STATE | _ACCEPTED.get((cur, new), _M.NONE)
    for bit, attrs in _BIT_ATTRS.items():
        if attrs <= req_attrs | opt_attrs:
            allowed |= bit
        if attrs & req_attrs:
            required |= bit
    return required, allowed


__all__ = [
    "AHAttr", "Access", "AsyncEvent", "AtomicWR", "CQ", "Cap", "CommandRefused",
    "CommandTimeout", "CompletionError", "Context", "CqError", "EventType", "DeviceAttr", "InvalidArgument", "MR", "PD", "PathMtu",
    "QP", "QPAttr", "QPAttrMask", "QPCap", "QPInitAttr", "QPType", "QpState",
    "QpStateError", "QueueFull", "RdmaWR", "RecvWR", "ResourceError", "SGE", "SendWR",
    "VerbsError", "WC", "WcFlags", "WcOpcode", "WcStatus", "WrOpcode", "mask_names",
    "recv_wr_to_driver", "send_wr_to_driver", "transition_masks", "FABNIC_QP_MODES",
    "IBV_ACCESS_LOCAL_WRITE", "IBV_EVENT_CQ_ERR", "IBV_ACCESS_REMOTE_ATOMIC", "IBV_ACCESS_REMOTE_READ",
    "IBV_ACCESS_REMOTE_WRITE", "IBV_MTU_1024", "IBV_MTU_2048", "IBV_MTU_256",
    "IBV_MTU_4096", "IBV_MTU_512", "IBV_QPS_ERR", "IBV_QPS_INIT", "IBV_QPS_RESET",
    "IBV_QPS_RTR", "IBV_QPS_RTS", "IBV_QPS_SQD", "IBV_QPS_SQE", "IBV_QPT_RC", "IBV_QPT_UC",
    "IBV_QPT_UD", "IBV_QP_ACCESS_FLAGS", "IBV_QP_ALT_PATH", "IBV_QP_AV", "IBV_QP_CAP",
    "IBV_QP_CUR_STATE", "IBV_QP_DEST_QPN", "IBV_QP_EN_SQD_ASYNC_NOTIFY",
    "IBV_QP_MAX_DEST_RD_ATOMIC", "IBV_QP_MAX_QP_RD_ATOMIC", "IBV_QP_MIN_RNR_TIMER",
    "IBV_QP_PATH_MIG_STATE", "IBV_QP_PATH_MTU", "IBV_QP_PKEY_INDEX", "IBV_QP_PORT",
    "IBV_QP_QKEY", "IBV_QP_RATE_LIMIT", "IBV_QP_RETRY_CNT", "IBV_QP_RNR_RETRY",
    "IBV_QP_RQ_PSN", "IBV_QP_SQ_PSN", "IBV_QP_STATE", "IBV_QP_TIMEOUT", "IBV_SEND_FENCE",
    "IBV_SEND_INLINE", "IBV_SEND_SIGNALED", "IBV_SEND_SOLICITED", "IBV_WC_COMP_SWAP",
    "IBV_WC_FETCH_ADD", "IBV_WC_GRH", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_PROT_ERR",
    "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_RDMA_READ", "IBV_WC_RDMA_WRITE", "IBV_WC_RECV",
    "IBV_WC_RECV_RDMA_WITH_IMM", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR",
    "IBV_WC_REM_OP_ERR", "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_SEND",
    "IBV_WC_SUCCESS", "IBV_WC_WITH_IMM", "IBV_WC_WR_FLUSH_ERR", "IBV_WR_ATOMIC_CMP_AND_SWP",
    "IBV_WR_ATOMIC_FETCH_AND_ADD", "IBV_WR_RDMA_READ", "IBV_WR_RDMA_WRITE",
    "IBV_WR_RDMA_WRITE_WITH_IMM", "IBV_WR_SEND", "IBV_WR_SEND_WITH_IMM", "INIT_MASK",
    "MAX_SGE", "RTR_MASK", "RTS_MASK",
]
