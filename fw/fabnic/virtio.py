# SPDX-License-Identifier: Apache-2.0
"""Guest-side virtio-net driver for the fabnic VirtIO device (VirtIO 1.2, split rings).

What a Linux virtio_net driver does, in plain blocking Python against
:class:`fabnic.bus.Bus` (the register window, :mod:`fabnic.regmap_virtio`) and
:class:`fabnic.bus.HostMemory` (guest memory holding the rings and buffers):

* :meth:`VirtioNet.probe`: reset, ACKNOWLEDGE, DRIVER, feature negotiation,
  FEATURES_OK and its read-back check, device config (mac, status, mtu, pairs);
* :meth:`VirtioNet.setup`: rings in guest memory for every used queue pair
  (receiveq n = 2n, transmitq n = 2n+1, controlq = 2*max_pairs with MQ),
  MSI-X vectors, queue_enable, DRIVER_OK; with MQ the number of pairs is set
  through the control queue (VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET);
* :meth:`post_rx`, :meth:`send`, :meth:`kick`, :meth:`reap_tx`, :meth:`recv`:
  data path, including event-index notification suppression (the driver
  notifies only when ``vring_need_event(avail_event, new, old)``) and
  ``used_event`` updates for interrupt suppression.

No simulator import here: the simulation supplies Bus/HostMemory through an
adapter (tb/virtio/virtio_fw_adapter.py), a board a mapped BAR and pinned memory.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from fabnic import regmap_virtio as R
from fabnic.bus import Bus, HostMemory

VRING_DESC_F_NEXT = 1
VRING_DESC_F_WRITE = 2
VRING_DESC_F_INDIRECT = 4
VRING_AVAIL_F_NO_INTERRUPT = 1
VRING_USED_F_NO_NOTIFY = 1

NET_HDR_LEN = 12  # struct virtio_net_hdr with num_buffers (VERSION_1)
NET_HDR_F_NEEDS_CSUM = 1
NET_HDR_F_DATA_VALID = 2
NET_HDR_GSO_NONE = 0

CTRL_MQ = 4
CTRL_MQ_VQ_PAIRS_SET = 0
CTRL_OK = 0
CTRL_ERR = 1


class VirtioError(RuntimeError):
    """The device refused something the driver needs (features, queue, control command)."""


def need_event(event: int, new: int, old: int) -> bool:
    """vring_need_event(): notify/interrupt when ``event`` lies in (old, new] (mod 2^16)."""
    return ((new - event - 1) & 0xFFFF) < ((new - old) & 0xFFFF)


def net_hdr(flags: int = 0, csum_start: int = 0, csum_offset: int = 0, num_buffers: int = 0) -> bytes:
    return struct.pack("<BBHHHHH", flags, NET_HDR_GSO_NONE, 0, 0, csum_start, csum_offset, num_buffers)


@dataclass
class NetHdr:
    flags: int
    gso_type: int
    hdr_len: int
    gso_size: int
    csum_start: int
    csum_offset: int
    num_buffers: int

    @classmethod
    def parse(cls, b: bytes) -> NetHdr:
        return cls(*struct.unpack("<BBHHHHH", b[:NET_HDR_LEN]))


@dataclass
class Virtqueue:
    """Driver side of one split virtqueue (virtio 1.2 section 2.7) in guest memory."""

    mem: HostMemory
    index: int
    size: int
    event_idx: bool
    desc: int = 0
    avail: int = 0
    used: int = 0
    avail_idx: int = 0      # next avail->idx to publish (shadow)
    published: int = 0      # last value written to avail->idx
    last_used: int = 0
    free: list[int] = field(default_factory=list)
    chains: dict[int, tuple[object, list[int]]] = field(default_factory=dict)
    indirect_tables: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.size < 1 or self.size & (self.size - 1):
            raise ValueError("split queue size must be a power of two")
        m = self.mem
        self.desc = m.alloc(16 * self.size, 16)
        self.avail = m.alloc(6 + 2 * self.size, 2)
        self.used = m.alloc(6 + 8 * self.size, 4)
        m.write(self.desc, bytes(16 * self.size))
        m.write(self.avail, bytes(6 + 2 * self.size))
        m.write(self.used, bytes(6 + 8 * self.size))
        self.free = list(range(self.size))

    # ---- ring fields
    def _u16(self, addr: int) -> int:
        return struct.unpack("<H", self.mem.read(addr, 2))[0]

    def used_idx(self) -> int:
        return self._u16(self.used + 2)

    def used_flags(self) -> int:
        return self._u16(self.used)

    def avail_event(self) -> int:
        return self._u16(self.used + 4 + 8 * self.size)

    def set_used_event(self, idx: int) -> None:
        self.mem.write(self.avail + 4 + 2 * self.size, struct.pack("<H", idx & 0xFFFF))

    def set_no_interrupt(self, on: bool) -> None:
        self.mem.write(self.avail, struct.pack("<H", VRING_AVAIL_F_NO_INTERRUPT if on else 0))

    def num_free(self) -> int:
        return len(self.free)

    # ---- adding buffers
    def add(self, out: list[tuple[int, int]], inp: list[tuple[int, int]], token: object,
            indirect: bool = False) -> int:
        """Chain device-readable ``out`` then device-writable ``inp`` buffers; returns the head."""
        bufs = [(a, n, 0) for a, n in out] + [(a, n, VRING_DESC_F_WRITE) for a, n in inp]
        if not bufs:
            raise ValueError("empty chain")
        if indirect:
            if not self.free:
                raise VirtioError(f"queue {self.index}: no free descriptor")
            table = self.mem.alloc(16 * len(bufs), 16)
            ent = b"".join(struct.pack("<QIHH", a, n, fl | (VRING_DESC_F_NEXT if i + 1 < len(bufs) else 0),
                                       i + 1 if i + 1 < len(bufs) else 0)
                           for i, (a, n, fl) in enumerate(bufs))
            self.mem.write(table, ent)
            head = self.free.pop(0)
            self.mem.write(self.desc + 16 * head, struct.pack("<QIHH", table, 16 * len(bufs),
                                                              VRING_DESC_F_INDIRECT, 0))
            ids = [head]
        else:
            if len(bufs) > len(self.free):
                raise VirtioError(f"queue {self.index}: {len(bufs)} descriptors, {len(self.free)} free")
            ids = [self.free.pop(0) for _ in bufs]
            for i, (a, n, fl) in enumerate(bufs):
                nxt = ids[i + 1] if i + 1 < len(ids) else 0
                self.mem.write(self.desc + 16 * ids[i],
                               struct.pack("<QIHH", a, n, fl | (VRING_DESC_F_NEXT if i + 1 < len(ids) else 0), nxt))
            head = ids[0]
        self.mem.write(self.avail + 4 + 2 * (self.avail_idx % self.size), struct.pack("<H", head))
        self.avail_idx = (self.avail_idx + 1) & 0xFFFF
        self.chains[head] = (token, ids)
        return head

    def publish(self) -> tuple[int, int]:
        """Write avail->idx (after the ring entries); returns (old, new)."""
        old = self.published
        self.mem.write(self.avail + 2, struct.pack("<H", self.avail_idx))
        self.published = self.avail_idx
        return old, self.avail_idx

    def should_notify(self, old: int, new: int) -> bool:
        if self.event_idx:
            return need_event(self.avail_event(), new, old)
        return not (self.used_flags() & VRING_USED_F_NO_NOTIFY)

    def get_used(self) -> list[tuple[object, int]]:
        """Reap used elements: [(token, len)] in used-ring order; frees their descriptors."""
        out: list[tuple[object, int]] = []
        end = self.used_idx()
        while self.last_used != end:
            slot = self.used + 4 + 8 * (self.last_used % self.size)
            vid, ln = struct.unpack("<II", self.mem.read(slot, 8))
            if vid not in self.chains:
                raise VirtioError(f"queue {self.index}: used id {vid} was not available")
            token, ids = self.chains.pop(vid)
            self.free.extend(ids)
            out.append((token, ln))
            self.last_used = (self.last_used + 1) & 0xFFFF
        if self.event_idx:
            self.set_used_event(self.last_used)
        return out


@dataclass
class RxBuf:
    addr: int
    size: int


class VirtioNet:
    """A virtio-net device behind a fabnic register window."""

    WANT = (1 << R.F_VERSION_1) | (1 << R.F_CSUM) | (1 << R.F_GUEST_CSUM) | (1 << R.F_MAC) | \
        (1 << R.F_MTU) | (1 << R.F_STATUS) | (1 << R.F_MRG_RXBUF) | (1 << R.F_EVENT_IDX) | \
        (1 << R.F_INDIRECT_DESC) | (1 << R.F_CTRL_VQ) | (1 << R.F_MQ)

    def __init__(self, bus: Bus, mem: HostMemory, base: int = R.VIRTIO.base,
                 want: int | None = None, poll_limit: int = 2000) -> None:
        self.bus = bus
        self.mem = mem
        self.base = base
        self.want = self.WANT if want is None else want
        self.poll_limit = poll_limit
        self.features = 0
        self.status = 0
        self.qsel = 0
        self.num_queues = 0
        self.mac = b""
        self.mtu = 0
        self.max_pairs = 1
        self.pairs = 1
        self.link_up = False
        self.queues: dict[int, Virtqueue] = {}
        self.rx_pending: dict[int, list[tuple[int, RxBuf]]] = {}
        self.ctrl: Virtqueue | None = None

    # ---------------------------------------------------------------- registers
    def _rd(self, off: int) -> int:
        return self.bus.read32(self.base + off)

    def _wr(self, off: int, value: int) -> None:
        self.bus.write32(self.base + off, value)

    def _write_status(self, status: int) -> None:
        # device_status shares its dword with config_generation (RO) and queue_select
        self._wr(R.DEVICE_STATUS & ~3, (status & 0xFF) | (self.qsel << 16))
        self.status = status

    def read_status(self) -> int:
        return self._rd(R.DEVICE_STATUS & ~3) & 0xFF

    def config_generation(self) -> int:
        return (self._rd(R.DEVICE_STATUS & ~3) >> 8) & 0xFF

    def _select(self, q: int) -> None:
        self.qsel = q
        self._wr(R.DEVICE_STATUS & ~3, (self.status & 0xFF) | (q << 16))

    def has(self, bit: int) -> bool:
        return bool(self.features >> bit & 1)

    # ---------------------------------------------------------------- init
    def reset(self) -> None:
        """Device reset: write 0, then wait until device_status reads 0 (spec 4.1.4.3.2)."""
        self.qsel = 0
        self._wr(R.DEVICE_STATUS & ~3, 0)
        self.status = 0
        for _ in range(self.poll_limit):
            if self.read_status() == 0:
                break
        else:
            raise VirtioError("device_status did not return to 0 after reset")
        self.queues.clear()
        self.rx_pending.clear()
        self.ctrl = None

    def device_features(self) -> int:
        feats = 0
        for sel in (0, 1):
            self._wr(R.DEVICE_FEATURE_SELECT, sel)
            feats |= self._rd(R.DEVICE_FEATURE) << (32 * sel)
        return feats

    def probe(self) -> int:
        """Reset .. FEATURES_OK; returns the negotiated feature bits."""
        self.reset()
        self._write_status(R.STATUS_ACKNOWLEDGE)
        self._write_status(R.STATUS_ACKNOWLEDGE | R.STATUS_DRIVER)
        offered = self.device_features()
        if not offered >> R.F_VERSION_1 & 1:
            self._write_status(self.status | R.STATUS_FAILED)
            raise VirtioError("device does not offer VERSION_1")
        feats = offered & self.want
        if feats >> R.F_MQ & 1 and not feats >> R.F_CTRL_VQ & 1:
            feats &= ~(1 << R.F_MQ)
        self.write_driver_features(feats)
        self._write_status(self.status | R.STATUS_FEATURES_OK)
        if not self.read_status() & R.STATUS_FEATURES_OK:
            self._write_status(self.status | R.STATUS_FAILED)
            raise VirtioError("device refused the feature set (FEATURES_OK not kept)")
        self.features = feats
        self.num_queues = self._rd(R.CONFIG_MSIX_VECTOR & ~3) >> 16
        self.read_config()
        return feats

    def write_driver_features(self, feats: int) -> None:
        for sel in (0, 1):
            self._wr(R.DRIVER_FEATURE_SELECT, sel)
            self._wr(R.DRIVER_FEATURE, (feats >> (32 * sel)) & 0xFFFFFFFF)

    def read_config(self) -> None:
        """Device config, re-read until config_generation is stable (spec 2.5.1)."""
        for _ in range(8):
            gen = self.config_generation()
            w0 = self._rd(R.DEVICE_CFG + 0)
            w1 = self._rd(R.DEVICE_CFG + 4)
            w2 = self._rd(R.DEVICE_CFG + 8)
            if self.config_generation() == gen:
                break
        self.mac = struct.pack("<IH", w0, w1 & 0xFFFF) if self.has(R.F_MAC) else b""
        self.link_up = bool((w1 >> 16) & 1) if self.has(R.F_STATUS) else True
        self.max_pairs = (w2 & 0xFFFF) if self.has(R.F_MQ) else 1
        self.mtu = (w2 >> 16) if self.has(R.F_MTU) else 0

    def _setup_queue(self, q: int, size: int | None, vector: int) -> Virtqueue:
        self._select(q)
        w = self._rd(R.QUEUE_SIZE)
        qmax = w & 0xFFFF
        if qmax == 0:
            raise VirtioError(f"queue {q} not available")
        n = qmax if size is None else min(size, qmax)
        vq = Virtqueue(self.mem, q, n, event_idx=self.has(R.F_EVENT_IDX))
        self._wr(R.QUEUE_SIZE, n | (vector << 16))
        if (self._rd(R.QUEUE_SIZE) >> 16) != vector:
            vector = R.NO_VECTOR  # the device could not map the vector
        for off, addr in ((R.QUEUE_DESC, vq.desc), (R.QUEUE_DRIVER, vq.avail), (R.QUEUE_DEVICE, vq.used)):
            self._wr(off, addr & 0xFFFFFFFF)
            self._wr(off + 4, addr >> 32)
        self._wr(R.QUEUE_ENABLE, 1)
        if not self._rd(R.QUEUE_ENABLE) & 1:
            raise VirtioError(f"queue {q} did not enable")
        self.queues[q] = vq
        return vq

    def setup(self, pairs: int = 1, size: int | None = None, ctrl_size: int = 16) -> None:
        """Queues of ``pairs`` queue pairs (+ controlq with MQ/CTRL_VQ), vectors, DRIVER_OK."""
        self.pairs = min(pairs, self.max_pairs) if self.has(R.F_MQ) else 1
        self._wr(R.CONFIG_MSIX_VECTOR & ~3, 0)   # vector 0: configuration changes
        for p in range(self.pairs):
            self._setup_queue(2 * p, size, 1 + 2 * p)
            self._setup_queue(2 * p + 1, size, 2 + 2 * p)
            self.rx_pending[2 * p] = []
        if self.has(R.F_CTRL_VQ):
            self.ctrl = self._setup_queue(2 * self.max_pairs if self.has(R.F_MQ) else 2, ctrl_size,
                                          R.NO_VECTOR)
        self._write_status(self.status | R.STATUS_DRIVER_OK)
        if self.has(R.F_MQ) and self.pairs > 1:
            ack = self.ctrl_command(CTRL_MQ, CTRL_MQ_VQ_PAIRS_SET, struct.pack("<H", self.pairs))
            if ack != CTRL_OK:
                raise VirtioError(f"VQ_PAIRS_SET {self.pairs} refused ({ack})")

    def needs_reset(self) -> bool:
        return bool(self.read_status() & R.STATUS_NEEDS_RESET)

    def read_isr(self) -> int:
        return self._rd(R.ISR)

    # ---------------------------------------------------------------- data path
    def kick(self, q: int, force: bool = False) -> bool:
        """Publish avail->idx; notify when the device asked for it (event index). Returns notified."""
        vq = self.queues[q]
        old, new = vq.publish()
        if force or vq.should_notify(old, new):
            self._wr(R.NOTIFY + R.NOTIFY_OFF_MULTIPLIER * q, q)
            return True
        return False

    def post_rx(self, pair: int, count: int, buf_size: int = 1526, pieces: int = 1) -> None:
        """Add ``count`` receive chains of ``pieces`` buffers of ``buf_size`` bytes each."""
        q = 2 * pair
        vq = self.queues[q]
        for _ in range(count):
            bufs = [RxBuf(self.mem.alloc(buf_size, 64), buf_size) for _ in range(pieces)]
            head = vq.add([], [(b.addr, b.size) for b in bufs], token=bufs)
            self.rx_pending[q].append((head, bufs[0]))
        self.kick(q)

    def send(self, pair: int, frame: bytes, csum: tuple[int, int] | None = None,
             pieces: int = 1, indirect: bool = False, kick: bool = True) -> int:
        """Queue one frame (header + frame in ``pieces`` buffers); ``csum`` = (start, offset)
        requests checksum offload (NEEDS_CSUM, needs VIRTIO_NET_F_CSUM). Returns the head."""
        if csum is not None and not self.has(R.F_CSUM):
            raise VirtioError("checksum offload not negotiated")
        hdr = net_hdr(NET_HDR_F_NEEDS_CSUM, csum[0], csum[1]) if csum else net_hdr()
        blob = hdr + frame
        step = -(-len(blob) // pieces)
        out = []
        for i in range(0, len(blob), step):
            a = self.mem.alloc(step, 8)
            self.mem.write(a, blob[i:i + step])
            out.append((a, len(blob[i:i + step])))
        vq = self.queues[2 * pair + 1]
        head = vq.add(out, [], token=len(frame), indirect=indirect and self.has(R.F_INDIRECT_DESC))
        if kick:
            self.kick(2 * pair + 1)
        return head

    def reap_tx(self, pair: int) -> list[tuple[object, int]]:
        return self.queues[2 * pair + 1].get_used()

    def recv(self, pair: int) -> list[tuple[NetHdr, bytes]]:
        """Frames received on receiveq ``pair``: [(header, frame)]. With MRG_RXBUF a frame
        spans num_buffers used elements; the chains are re-posted by the caller (post_rx)."""
        vq = self.queues[2 * pair]
        used = vq.get_used()
        out: list[tuple[NetHdr, bytes]] = []
        i = 0
        while i < len(used):
            bufs, ln = used[i]
            data = self._chain_bytes(bufs, ln)
            hdr = NetHdr.parse(data)
            n = hdr.num_buffers if self.has(R.F_MRG_RXBUF) else 1
            if n < 1 or i + n > len(used):
                raise VirtioError(f"bad num_buffers {hdr.num_buffers}")
            for bufs2, ln2 in used[i + 1:i + n]:
                data += self._chain_bytes(bufs2, ln2)
            out.append((hdr, data[NET_HDR_LEN:]))
            i += n
        return out

    def _chain_bytes(self, bufs: object, ln: int) -> bytes:
        data = b""
        for b in bufs:  # type: ignore[attr-defined]
            take = min(b.size, ln - len(data))
            if take <= 0:
                break
            data += self.mem.read(b.addr, take)
        return data

    # ---------------------------------------------------------------- control queue
    def ctrl_command(self, cls: int, cmd: int, data: bytes) -> int:
        """Send a control command (virtio 1.2 5.1.6.5), wait for it; returns the ack byte."""
        if self.ctrl is None:
            raise VirtioError("no control queue")
        hdr = self.mem.alloc(2, 8)
        self.mem.write(hdr, bytes([cls, cmd]))
        body = self.mem.alloc(max(len(data), 1), 8)
        self.mem.write(body, data)
        ack = self.mem.alloc(1, 8)
        self.mem.write(ack, b"\xff")
        vq = self.ctrl
        vq.add([(hdr, 2), (body, len(data))], [(ack, 1)], token="ctrl")
        self.kick(vq.index, force=True)
        for _ in range(self.poll_limit):
            got = vq.get_used()
            if got:
                return self.mem.read(ack, 1)[0]
            self.read_status()   # a register read lets time pass
        raise VirtioError("control command not completed")

    def poll(self, cond, limit: int | None = None) -> None:  # type: ignore[no-untyped-def]
        """Wait (with register reads between checks) until ``cond()`` is true."""
        for _ in range(limit or self.poll_limit):
            if cond():
                return
            self.read_status()
        raise VirtioError("poll timeout")
