# SPDX-License-Identifier: Apache-2.0
"""Seeded hostile-guest generator and golden model for the VirtIO-net backend.

Pure Python (no cocotb). The generator writes descriptor tables, indirect tables,
buffers and avail rings into a memory image, mixing well-formed chains with one
defect per bad chain; the model says per chain what the device must do. The rules
come from the VirtIO 1.2 spec (2.7.5 descriptor table, 2.7.5.3 indirect
descriptors, 2.7.6 available ring, 5.1.6 net header) and the "Bad guest input"
table of docs/virtio.md, not from the RTL:

- engine (walk) errors, counted once in ``cnt_err[reason]``; the chain is returned
  with used len 0 and, on a transmitq, also counted as a BAD chain by the TX mover:
  NEXT_RANGE (next >= size, or >= table entries inside an indirect table), LOOP
  (more descriptors than the table holds), ZERO_LEN, DIRECTION (writable buffer on
  TX, read-only on RX), IND_LEN (indirect len 0, not a multiple of 16, more than
  size entries), IND_BAD (INDIRECT+NEXT, INDIRECT inside a table, INDIRECT not
  negotiated);
- queue errors (needs reset, nothing of that queue processed from there on):
  BAD_HEAD (head >= size), AVAIL_JUMP ((u16)(avail->idx - last_avail_idx) > size);
- TX mover drops (``cnt_txdrop``): 1 header + frame > MAX_FRAME, 2 frame < 14 bytes
  (including a chain shorter than the header), 4 gso_type != 0, 5 NEEDS_CSUM with
  csum_start + csum_offset + 2 > frame length. A TX chain that is accepted leaves as
  exactly its frame bytes (with the checksum inserted for NEEDS_CSUM).
- RX (fabnic_virtio_net_rx, no MRG_RXBUF): a frame takes the next chain; BAD chains
  in front of it are returned with len 0 (never written) and skipped; no chain ->
  drop 2 (EMPTY); a chain smaller than header + frame -> drop 3, returned len 0;
  otherwise header + frame fill the buffers in order, used len = bytes written.
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field

from virtio_driver_model import (
    NET_HDR_LEN,
    VIRTIO_NET_HDR_F_DATA_VALID,
    VIRTIO_NET_HDR_F_NEEDS_CSUM,
    VIRTQ_DESC_F_INDIRECT,
    VIRTQ_DESC_F_NEXT,
    VIRTQ_DESC_F_WRITE,
    net_hdr,
    pack_desc,
)

from fabnic_tb.csum import offload_csum

E_AVAIL_JUMP, E_BAD_HEAD, E_DMA, E_NEXT, E_LOOP, E_ZERO, E_DIR, E_IND_LEN, E_IND_BAD, E_RET = range(10)
D_BAD, D_BIG, D_RUNT, D_DMA, D_GSO, D_CSUM = range(6)
RX_D_BAD_IN, RX_D_BIG, RX_D_EMPTY, RX_D_SMALL = range(4)

# chain-level defect classes (one per bad chain)
WALK_BAD = ("loop", "loop_ind", "next_range", "next_range_ind", "zero_len", "zero_len_ind",
            "direction", "direction_ind", "ind_len", "ind_next", "ind_nested", "ind_not_neg")
MOVER_BAD = ("gso", "csum_range", "runt", "too_long")
WALK_REASON = {"loop": E_LOOP, "loop_ind": E_LOOP, "next_range": E_NEXT, "next_range_ind": E_NEXT,
               "zero_len": E_ZERO, "zero_len_ind": E_ZERO, "direction": E_DIR, "direction_ind": E_DIR,
               "ind_len": E_IND_LEN, "ind_next": E_IND_BAD, "ind_nested": E_IND_BAD,
               "ind_not_neg": E_IND_BAD}
MOVER_REASON = {"gso": D_GSO, "csum_range": D_CSUM, "runt": D_RUNT, "too_long": D_BIG}


class Bump:
    """Bump allocator with a guard gap after every block; reset per round."""

    def __init__(self, base: int, limit: int, gap: int = 32) -> None:
        self.base, self.limit, self.gap, self.ptr = base, limit, gap, base

    def reset(self) -> None:
        self.ptr = self.base

    def alloc(self, size: int, align: int = 16) -> int:
        a = (self.ptr + align - 1) & ~(align - 1)
        assert a + size + self.gap <= self.limit, "buffer region exhausted"
        self.ptr = a + max(size, 1) + self.gap
        return a


@dataclass
class Outcome:
    """What the device must do with one chain."""

    kind: str                 # "frame", "walk", "mover", "reset", "rx_good", "rx_small"
    reason: int = -1          # cnt_err index (walk / reset), cnt_txdrop index (mover)
    frame: bytes = b""        # TX frame out (kind "frame")
    head: int = 0
    label: str = ""
    rx_bufs: list = field(default_factory=list)   # RX: [(addr, len)] of a good chain


@dataclass
class QState:
    """Guest view of one split queue (rings at fixed addresses, reused per round)."""

    q: int
    size: int
    indirect: bool
    event_idx: bool
    desc: int
    avail: int
    used: int
    avail_idx: int = 0
    used_seen: int = 0
    dead: bool = False

    def ring_bytes(self) -> list[tuple[int, int]]:
        return [(self.desc, 16 * self.size), (self.avail, 6 + 2 * self.size),
                (self.used, 6 + 8 * self.size)]

    def device_writable(self) -> list[tuple[int, int]]:
        """Bytes the device may write: used flags/idx/ring and avail_event."""
        return [(self.used, 6 + 8 * self.size)]


class HostileGuest:
    """Writes chains into ``mem`` (read/write protocol) for queues in QState."""

    def __init__(self, mem, rng: random.Random, bufs: Bump, max_frame: int) -> None:
        self.mem, self.rng, self.bufs, self.max_frame = mem, rng, bufs, max_frame

    # ---- ring helpers
    def write_desc(self, qs: QState, i: int, a: int, n: int, fl: int, nxt: int) -> None:
        self.mem.write(qs.desc + 16 * i, pack_desc(a, n, fl, nxt))

    def push_head(self, qs: QState, head: int) -> None:
        self.mem.write(qs.avail + 4 + 2 * (qs.avail_idx % qs.size), struct.pack("<H", head))
        qs.avail_idx = (qs.avail_idx + 1) & 0xFFFF

    def publish(self, qs: QState, idx: int | None = None) -> None:
        self.mem.write(qs.avail + 2, struct.pack("<H", qs.avail_idx if idx is None else idx & 0xFFFF))

    def buffer(self, data: bytes) -> int:
        a = self.bufs.alloc(len(data) + 8, 1) + self.rng.randrange(8)
        self.mem.write(a, data)
        return a

    def table(self, entries: list[tuple[int, int, int, int]]) -> tuple[int, int]:
        t = self.bufs.alloc(16 * len(entries), 16)
        self.mem.write(t, b"".join(pack_desc(*e) for e in entries))
        return t, 16 * len(entries)

    @staticmethod
    def split(blob: bytes, rng: random.Random, pieces: int) -> list[bytes]:
        pieces = max(1, min(pieces, len(blob)))
        cuts = sorted(rng.sample(range(1, len(blob)), pieces - 1)) if pieces > 1 else []
        return [blob[i:j] for i, j in zip([0, *cuts], [*cuts, len(blob)], strict=True)]

    def chain_of(self, qs: QState, slots: list[int], bufs: list[tuple[int, int, int]],
                 use_ind: bool) -> int | None:
        """Post (addr, len, flags-without-NEXT) buffers as a direct or indirect chain
        (an indirect table holds at most queue-size entries, spec 2.7.5.3.1)."""
        if use_ind and len(bufs) > qs.size:
            use_ind = False
        if use_ind:
            ents = [(a, n, fl | (VIRTQ_DESC_F_NEXT if k + 1 < len(bufs) else 0),
                     k + 1 if k + 1 < len(bufs) else 0) for k, (a, n, fl) in enumerate(bufs)]
            t, tl = self.table(ents)
            if not slots:
                return None
            h = slots.pop()
            self.write_desc(qs, h, t, tl, VIRTQ_DESC_F_INDIRECT, 0)
            return h
        if len(slots) < len(bufs):
            return None
        ids = [slots.pop() for _ in bufs]
        for k, (a, n, fl) in enumerate(bufs):
            last = k + 1 == len(bufs)
            self.write_desc(qs, ids[k], a, n, fl | (0 if last else VIRTQ_DESC_F_NEXT),
                            0 if last else ids[k + 1])
        return ids[0]

    # ---- TX
    def good_frame(self, short: bool = False) -> tuple[bytes, bytes]:
        """(header + frame as posted, frame expected on the wire)."""
        rng = self.rng
        r = rng.random()
        if short:
            n = rng.randrange(14, 200)
        elif r < 0.08:
            n = self.max_frame - NET_HDR_LEN - rng.randrange(0, 2)      # at the limit
        elif r < 0.12:
            n = 14                                                      # shortest legal frame
        else:
            n = rng.randrange(14, 600)
        f = rng.randbytes(n)
        if rng.random() < 0.5:
            start = rng.randrange(0, n - 1)
            off = rng.randrange(0, n - start - 1)
            return net_hdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, csum_start=start, csum_offset=off) + f, \
                offload_csum(f, start, off)
        return net_hdr() + f, f

    def tx_chain(self, qs: QState, slots: list[int], kind: str) -> Outcome | None:
        """Write one TX chain of ``kind`` ("good", a WALK_BAD or MOVER_BAD class) using
        descriptor ``slots``; returns its outcome (None: not enough slots)."""
        rng = self.rng
        n = qs.size
        ind_ok = qs.indirect and n >= 2

        def rd(data: bytes) -> tuple[int, int, int]:
            return (self.buffer(data), len(data), 0)

        if kind == "good" or kind in MOVER_BAD:
            if kind == "good":
                blob, exp = self.good_frame()
            elif kind == "gso":
                blob, exp = net_hdr(gso_type=rng.choice([1, 3, 4, 5, 0x80 | 1])) + rng.randbytes(rng.randrange(60, 300)), b""
            elif kind == "csum_range":
                flen = rng.randrange(20, 300)
                start = rng.randrange(0, flen)
                off = rng.randrange(max(0, flen - start - 1), flen - start + 40)
                blob, exp = net_hdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, csum_start=start, csum_offset=off) + rng.randbytes(flen), b""
            elif kind == "runt":
                cut = rng.choice([NET_HDR_LEN + 13, NET_HDR_LEN + 1, NET_HDR_LEN, 5])
                blob, exp = (net_hdr() + rng.randbytes(13))[:cut], b""
            else:  # too_long
                blob, exp = net_hdr() + rng.randbytes(self.max_frame - NET_HDR_LEN + rng.choice([1, 2, 100, 700])), b""
            pieces = rng.choice([1, 1, 2, 3, 4])
            bufs = [rd(p) for p in self.split(blob, rng, min(pieces, n if not ind_ok else 8))]
            use_ind = ind_ok and rng.random() < 0.35
            if not use_ind and len(bufs) > n:
                return None
            h = self.chain_of(qs, slots, bufs, use_ind)
            if h is None:
                return None
            if kind == "good":
                return Outcome("frame", frame=exp, head=h, label=kind)
            return Outcome("mover", MOVER_REASON[kind], head=h, label=kind)
        return self._walk_bad(qs, slots, kind, rd)

    def _walk_bad(self, qs: QState, slots: list[int], kind: str, rd, writable: bool = False) -> Outcome | None:
        """Chains with one walk defect. ``writable``: RX flavour (good buffers are
        device-writable, the direction defect is a read-only buffer)."""
        rng = self.rng
        n = qs.size
        good_fl = VIRTQ_DESC_F_WRITE if writable else 0
        bad_dir_fl = 0 if writable else VIRTQ_DESC_F_WRITE
        need_ind = kind.endswith("_ind") or kind in ("ind_len", "ind_next", "ind_nested")
        if need_ind and not qs.indirect:
            return None
        if kind == "ind_not_neg" and qs.indirect:
            return None

        def buf() -> tuple[int, int, int]:
            a, ln, _ = rd(rng.randbytes(rng.randrange(1, 120)))
            return (a, ln, good_fl)

        def out(h: int) -> Outcome:
            return Outcome("walk", WALK_REASON[kind], head=h, label=kind)

        if kind == "loop":
            k = rng.randrange(1, min(n, 4) + 1)
            if len(slots) < k:
                return None
            ids = [slots.pop() for _ in range(k)]
            back = rng.randrange(k)
            for j, i in enumerate(ids):
                a, ln, fl = buf()
                self.write_desc(qs, i, a, ln, fl | VIRTQ_DESC_F_NEXT, ids[j + 1] if j + 1 < k else ids[back])
            return out(ids[0])
        if kind == "next_range":
            k = rng.randrange(1, min(n, 3) + 1)
            if len(slots) < k:
                return None
            ids = [slots.pop() for _ in range(k)]
            for j, i in enumerate(ids):
                a, ln, fl = buf()
                nxt = ids[j + 1] if j + 1 < k else rng.choice([n, n + 1, 0xFFFF, rng.randrange(n, 0x10000)])
                self.write_desc(qs, i, a, ln, fl | VIRTQ_DESC_F_NEXT, nxt)
            return out(ids[0])
        if kind in ("zero_len", "direction"):
            k = rng.randrange(1, min(n, 3) + 1)
            bufs = [buf() for _ in range(k)]
            j = rng.randrange(k)
            a, ln, fl = bufs[j]
            bufs[j] = (a, 0, fl) if kind == "zero_len" else (a, ln, bad_dir_fl)
            h = self.chain_of(qs, slots, bufs, False)
            return None if h is None else out(h)
        if not slots:
            return None
        h = slots.pop()
        if kind == "ind_not_neg":
            t, tl = self.table([(buf()[0], 40, good_fl, 0)])
            self.write_desc(qs, h, t, tl, VIRTQ_DESC_F_INDIRECT, 0)
            return out(h)
        if kind == "ind_len":
            ln = rng.choice([0, 16 * rng.randrange(1, 4) + rng.randrange(1, 16), rng.randrange(1, 16),
                             16 * (n + rng.randrange(1, 5))])
            t, _ = self.table([(buf()[0], 40, good_fl, 0)] * 4)
            self.write_desc(qs, h, t, ln, VIRTQ_DESC_F_INDIRECT, 0)
            return out(h)
        if kind == "ind_next":
            if not slots:
                slots.append(h)
                return None
            h2 = slots.pop()
            a, ln, fl = buf()
            self.write_desc(qs, h2, a, ln, fl, 0)
            t, tl = self.table([(buf()[0], 40, good_fl, 0)])
            self.write_desc(qs, h, t, tl, VIRTQ_DESC_F_INDIRECT | VIRTQ_DESC_F_NEXT, h2)
            return out(h)
        # defects inside an indirect table of k entries
        k = rng.randrange(1, min(n, 4) + 1)
        ents = []
        for j in range(k):
            a, ln, fl = buf()
            ents.append([a, ln, fl | (VIRTQ_DESC_F_NEXT if j + 1 < k else 0), j + 1 if j + 1 < k else 0])
        j = rng.randrange(k)
        if kind == "loop_ind":
            ents[-1][2] |= VIRTQ_DESC_F_NEXT
            ents[-1][3] = rng.randrange(k)
        elif kind == "next_range_ind":
            ents[-1][2] |= VIRTQ_DESC_F_NEXT
            ents[-1][3] = rng.choice([k, k + 1, rng.randrange(k, 0x10000)])
        elif kind == "zero_len_ind":
            ents[j][1] = 0
        elif kind == "direction_ind":
            ents[j][2] = (ents[j][2] & ~VIRTQ_DESC_F_WRITE) | bad_dir_fl
        elif kind == "ind_nested":
            t2, tl2 = self.table([(buf()[0], 40, good_fl, 0)])
            ents[j][0], ents[j][1] = t2, tl2
            ents[j][2] = (ents[j][2] & VIRTQ_DESC_F_NEXT) | VIRTQ_DESC_F_INDIRECT
        t, tl = self.table([tuple(e) for e in ents])
        self.write_desc(qs, h, t, tl, VIRTQ_DESC_F_INDIRECT, 0)
        return out(h)

    # ---- RX
    def rx_chain(self, qs: QState, slots: list[int], kind: str) -> Outcome | None:
        rng = self.rng
        if kind in ("good", "small"):
            if kind == "good":
                sizes = rng.choice([[1600], [12, 1600], [700, 500, 600], [40, 800, 900], [300, 1400]])
            else:
                sizes = [rng.randrange(1, 60) for _ in range(rng.randrange(1, 3))]
            bufs = []
            for s in sizes:
                a = self.buffer(rng.randbytes(s))
                bufs.append((a, s, VIRTQ_DESC_F_WRITE))
            use_ind = qs.indirect and rng.random() < 0.35
            if not use_ind and len(bufs) > qs.size:
                return None
            h = self.chain_of(qs, slots, bufs, use_ind)
            if h is None:
                return None
            return Outcome("rx_chain", head=h, label=kind, rx_bufs=[(a, s) for a, s, _ in bufs])

        def rd(data: bytes) -> tuple[int, int, int]:
            return (self.buffer(data), len(data), 0)

        o = self._walk_bad(qs, slots, kind, rd, writable=True)
        return o


def rx_expect(frame: bytes, csum_ok: bool, chain: Outcome) -> tuple[list[tuple[int, bytes]], int] | None:
    """Writes and used len for a frame placed into one chain (no MRG_RXBUF), None if it
    does not fit."""
    blob = net_hdr(VIRTIO_NET_HDR_F_DATA_VALID if csum_ok else 0, num_buffers=1) + frame
    if sum(n for _, n in chain.rx_bufs) < len(blob):
        return None
    writes, off = [], 0
    for a, n in chain.rx_bufs:
        w = min(n, len(blob) - off)
        if w > 0:
            writes.append((a, blob[off:off + w]))
            off += w
    return writes, len(blob)
