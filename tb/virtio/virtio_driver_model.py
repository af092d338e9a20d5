# SPDX-License-Identifier: Apache-2.0
"""Spec-side model of a VirtIO 1.2 split-virtqueue driver (like Linux virtio_ring).

Written from the VirtIO 1.2 spec (2.7 Split Virtqueues), independent of the RTL:
descriptor table (16 B: addr u64, len u32, flags u16, next u16), available ring
(flags, idx, ring[N], used_event), used ring (flags, idx, ring[N] {id u32, len u32},
avail_event), little-endian. Memory is any object with read(addr, n) / write(addr, data).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Protocol

VIRTQ_DESC_F_NEXT = 1
VIRTQ_DESC_F_WRITE = 2
VIRTQ_DESC_F_INDIRECT = 4
VIRTQ_AVAIL_F_NO_INTERRUPT = 1
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
VIRTIO_NET_HDR_F_DATA_VALID = 2
NET_HDR_LEN = 12  # VERSION_1 layout, includes num_buffers


class Mem(Protocol):
    def read(self, address: int, length: int) -> bytes: ...
    def write(self, address: int, data: bytes) -> None: ...


def need_event(event: int, new: int, old: int) -> bool:
    """Spec 2.7.10: notify iff (u16)(new - event - 1) < (u16)(new - old)."""
    return ((new - event - 1) & 0xFFFF) < ((new - old) & 0xFFFF)


def net_hdr(flags: int = 0, gso_type: int = 0, hdr_len: int = 0, gso_size: int = 0,
            csum_start: int = 0, csum_offset: int = 0, num_buffers: int = 0) -> bytes:
    return struct.pack("<BBHHHHH", flags, gso_type, hdr_len, gso_size, csum_start,
                       csum_offset, num_buffers)


def pack_desc(addr: int, length: int, flags: int, nxt: int) -> bytes:
    return struct.pack("<QIHH", addr, length, flags, nxt)


@dataclass
class Allocator:
    """Bump allocator over a region of the host memory image."""

    base: int
    limit: int
    ptr: int = -1

    def alloc(self, size: int, align: int = 16) -> int:
        if self.ptr < 0:
            self.ptr = self.base
        a = (self.ptr + align - 1) & ~(align - 1)
        if a + size > self.limit:  # wrap: old buffers are long consumed in these tests
            a = self.base
        self.ptr = a + size
        return a


@dataclass
class SplitQueue:
    mem: Mem
    size: int
    desc_addr: int
    avail_addr: int
    used_addr: int
    free: list[int] = field(default_factory=list)
    avail_idx: int = 0
    last_used: int = 0
    chains: dict[int, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.free = list(range(self.size))
        self.mem.write(self.desc_addr, bytes(16 * self.size))
        self.mem.write(self.avail_addr, bytes(6 + 2 * self.size))
        self.mem.write(self.used_addr, bytes(6 + 8 * self.size))

    # -- layout helpers (spec offsets) --
    def avail_ring_addr(self, i: int) -> int:
        return self.avail_addr + 4 + 2 * (i % self.size)

    def used_event_addr(self) -> int:
        return self.avail_addr + 4 + 2 * self.size

    def avail_event_addr(self) -> int:
        return self.used_addr + 4 + 8 * self.size

    def write_desc(self, i: int, addr: int, length: int, flags: int, nxt: int) -> None:
        self.mem.write(self.desc_addr + 16 * i, pack_desc(addr, length, flags, nxt))

    # -- driver operations --
    def add_chain(self, bufs: list[tuple[int, int, bool]], alloc: Allocator | None = None,
                  indirect: bool = False, publish: bool = True) -> int:
        """Post a chain of (addr, len, device_writable) buffers; returns its head id."""
        if indirect:
            assert alloc is not None
            table = alloc.alloc(16 * len(bufs))
            for k, (a, n, w) in enumerate(bufs):
                fl = (VIRTQ_DESC_F_WRITE if w else 0) | (VIRTQ_DESC_F_NEXT if k + 1 < len(bufs) else 0)
                self.mem.write(table + 16 * k, pack_desc(a, n, fl, k + 1 if k + 1 < len(bufs) else 0))
            head = self.free.pop(0)
            self.write_desc(head, table, 16 * len(bufs), VIRTQ_DESC_F_INDIRECT, 0)
            self.chains[head] = [head]
        else:
            ids = [self.free.pop(0) for _ in bufs]
            for k, (a, n, w) in enumerate(bufs):
                last = k + 1 == len(bufs)
                fl = (VIRTQ_DESC_F_WRITE if w else 0) | (0 if last else VIRTQ_DESC_F_NEXT)
                self.write_desc(ids[k], a, n, fl, 0 if last else ids[k + 1])
            head = ids[0]
            self.chains[head] = ids
        self.push_head(head, publish)
        return head

    def push_head(self, head: int, publish: bool = True) -> None:
        self.mem.write(self.avail_ring_addr(self.avail_idx), struct.pack("<H", head))
        self.avail_idx = (self.avail_idx + 1) & 0xFFFF
        if publish:
            self.publish()

    def publish(self) -> None:
        self.mem.write(self.avail_addr + 2, struct.pack("<H", self.avail_idx))

    def set_avail_idx_raw(self, value: int) -> None:
        self.mem.write(self.avail_addr + 2, struct.pack("<H", value & 0xFFFF))

    def set_no_interrupt(self, on: bool) -> None:
        self.mem.write(self.avail_addr, struct.pack("<H", VIRTQ_AVAIL_F_NO_INTERRUPT if on else 0))

    def set_used_event(self, value: int) -> None:
        self.mem.write(self.used_event_addr(), struct.pack("<H", value & 0xFFFF))

    def used_idx(self) -> int:
        return struct.unpack("<H", self.mem.read(self.used_addr + 2, 2))[0]

    def avail_event(self) -> int:
        return struct.unpack("<H", self.mem.read(self.avail_event_addr(), 2))[0]

    def get_used(self) -> list[tuple[int, int]]:
        """All used elements published since the last call (id, len); frees their chains."""
        out = []
        end = self.used_idx()
        while self.last_used != end:
            off = self.used_addr + 4 + 8 * (self.last_used % self.size)
            uid, ulen = struct.unpack("<II", self.mem.read(off, 8))
            out.append((uid, ulen))
            self.free.extend(self.chains.pop(uid, []))
            self.last_used = (self.last_used + 1) & 0xFFFF
        return out
