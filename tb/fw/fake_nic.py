# SPDX-License-Identifier: Apache-2.0
"""A NIC and host memory for driver tests without a simulator, written from the contract
(docs/fw.md and docs/roce_design.md tables, regmap doc strings) with their own offsets
and bit positions, never from the driver's packers.

FakeNic is the AXI-Lite space of MAPS["roce"] plus the doorbells; FakeMemory hands out
host memory filled with garbage; decode_qp/unpack_sqe read context words and SQEs by the
tables; nic_cqe writes a CQE the way the NIC does. SoftNic executes the work with the
RC reference model (tb/roce/rc_model.py).
"""

from __future__ import annotations

import struct

from roce.rc_model import RcModel

from fabnic import verbs as v

ROCE = 0x400
CMD, CMD_STATUS, RESULT0, DATA0 = ROCE + 0x30, ROCE + 0x34, ROCE + 0x38, ROCE + 0x80
ASYNC_EVENT, ASYNC_EVENT_POP = ROCE + 0x58, ROCE + 0x5C
ROCE_CNT = 0x800


class FakeNic:
    """AXI-Lite space of MAPS["roce"] as the contract describes it."""

    def __init__(self, num_qp: int = 16, num_cq: int = 8, num_mr: int = 4, caps: int = 0x3F,
                 busy_polls: int = 2, dev_id: int = 0xFAB1C001) -> None:
        self.regs: dict[int, int] = {
            0x000: dev_id, 0x004: 0x000100, 0x008: 64,
            ROCE + 0x00: num_qp, ROCE + 0x04: num_cq, ROCE + 0x08: num_mr, ROCE + 0x0C: caps,
            ROCE + 0x10: 0x00000001, ROCE + 0x14: 0x0200, ROCE + 0x18: 0x0A000001,
        }
        self.limits = {1: num_qp, 2: num_cq, 3: num_mr, 4: num_qp}
        self.busy_polls = busy_polls
        self.busy_left = 0
        self.refused = False
        self.stuck = False
        self.commands: list[tuple[int, int, int, list[int]]] = []   # op, flags, index, words
        self.doorbells: list[tuple[int, int]] = []
        self.writes: list[tuple[int, int]] = []
        # asynchronous event queue: (kind, cqn); async_event shows the oldest as
        # {num[31:8], kind[2:1], valid[0]}, a write of 1 to async_event_pop takes it
        self.events: list[tuple[int, int]] = []

    def read32(self, addr: int) -> int:
        assert addr % 4 == 0
        if addr == CMD_STATUS:
            if self.stuck:
                return 1
            if self.busy_left:
                self.busy_left -= 1
                return 1
            return 2 if self.refused else 0
        if addr == ASYNC_EVENT:
            return (self.events[0][1] << 8 | self.events[0][0] << 1 | 1) if self.events else 0
        if ROCE_CNT <= addr < ROCE_CNT + 0x200:
            return 0x5000 + addr           # every counter reads a distinct value
        return self.regs.get(addr, 0)

    def write32(self, addr: int, value: int) -> None:
        assert addr % 4 == 0 and 0 <= value < 1 << 32
        self.writes.append((addr, value))
        if addr >= 0x100000:
            self.doorbells.append((addr, value))
            return
        self.regs[addr] = value
        if addr == ASYNC_EVENT_POP and value & 1 and self.events:
            self.events.pop(0)
        if addr == CMD:
            assert not self.busy_left, "command written while busy"
            op, flags, index = value & 0xF, value & 0xF0, value >> 8
            self.commands.append((op, flags, index,
                                  [self.regs.get(DATA0 + 4 * i, 0) for i in range(24)]))
            self.refused = op not in self.limits or index >= self.limits[op]
            self.busy_left = self.busy_polls

    def cmds(self, op: int) -> list[tuple[int, int, list[int]]]:
        return [(f, i, w) for o, f, i, w in self.commands if o == op]


class FakeMemory:
    """Host memory at 0x1_2345_0000; fresh allocations are filled with 0xA5 garbage
    (a CQ ring the driver forgets to clear would show phase bits set)."""

    BASE = 0x1_2345_0000

    def __init__(self, size: int = 1 << 20) -> None:
        self.data = bytearray(size)
        self.next = 0

    def alloc(self, size: int, align: int = 64) -> int:
        off = -(-self.next // align) * align
        self.next = off + size
        assert self.next <= len(self.data)
        self.data[off:off + size] = b"\xa5" * size
        return self.BASE + off

    def read(self, addr: int, length: int) -> bytes:
        off = addr - self.BASE
        return bytes(self.data[off:off + length])

    def write(self, addr: int, data: bytes) -> None:
        off = addr - self.BASE
        self.data[off:off + len(data)] = data


def decode_qp(w: list[int]) -> dict[str, int]:
    """QP context words -> fields, from the contract's bit table."""
    f = {
        "state": w[0] & 7, "ipv6": w[0] >> 3 & 1, "mtu": w[0] >> 4 & 7,
        "access": w[0] >> 8 & 0xF, "retry": w[0] >> 12 & 7, "rnr": w[0] >> 15 & 7,
        "timeout": w[0] >> 18 & 0x1F, "sr": w[0] >> 23 & 1, "fec": w[0] >> 24 & 1,
        "dcqcn": w[0] >> 25 & 1, "min_rnr_timer": w[0] >> 26 & 0x1F, "w0_rsvd": w[0] >> 31,
        "dqpn": w[1], "sq_psn": w[2], "rq_psn": w[3], "pd": w[4],
        "sport": w[5] & 0xFFFF, "dscp": w[5] >> 16, "mac": w[6] | w[7] << 32,
        "ip": w[8] | w[9] << 32 | w[10] << 64 | w[11] << 96,
        "sq": w[12] | w[13] << 32, "rq": w[14] | w[15] << 32,
        "sq_log2": w[16] & 0x1F, "rq_log2": w[16] >> 8 & 0x1F,
        "scq": w[17] & 0xFFFF, "rcq": w[17] >> 16,
    }
    return f


def nic_cqe(mem: FakeMemory, cq: v.CompletionQueue, slot: int, phase: int, wr_id: int,
            opcode: int, status: int = 0, qpn: int = 0, byte_len: int = 0,
            imm: int | None = None) -> None:
    """What the NIC writes: the CQE table of docs/roce_design.md, field by offset."""
    e = bytearray(32)
    e[0x00:0x08] = wr_id.to_bytes(8, "little")
    e[0x08:0x0C] = byte_len.to_bytes(4, "little")
    e[0x0C:0x10] = (imm or 0).to_bytes(4, "little")
    e[0x10:0x14] = qpn.to_bytes(4, "little")
    e[0x14] = opcode
    e[0x15] = status
    e[0x16] = 1 if imm is not None else 0
    e[0x1F] = phase << 7
    mem.write(cq.ring + 32 * slot, bytes(e))


def unpack_sqe(b: bytes) -> dict[str, int]:
    """The SQE table of docs/roce_design.md, by offset."""
    def u(off: int, n: int) -> int:
        return int.from_bytes(b[off:off + n], "little")
    return {"wr_id": u(0, 8), "opcode": b[8], "flags": b[9], "rsvd0": u(0xA, 2),
            "length": u(0xC, 4), "laddr": u(0x10, 8), "lkey": u(0x18, 4), "imm": u(0x1C, 4),
            "raddr": u(0x20, 8), "rkey": u(0x28, 4), "rsvd1": u(0x2C, 4),
            "cmp": u(0x30, 8), "swap": u(0x38, 8)}


class SoftNic(FakeNic):
    """A software NIC on the contract: decodes MR/QP/CQ writes and doorbells, reads
    SQEs/RQEs from host memory with its own offsets, executes them with a shared
    RcModel (serialized, right at the doorbell) and writes CQEs with phase bits. It
    checks the driver's whole pipeline; the RTL replaces it in the cocotb tests."""

    def __init__(self, model: RcModel, node: str, peer: str, mem: FakeMemory) -> None:
        super().__init__(num_qp=8, num_cq=4, num_mr=16, busy_polls=0)
        self.model, self.node, self.peer, self.mem = model, node, peer, mem
        model.add_node(node, mem.BASE, b"").mem = mem.data      # the model works in place
        self.qpc: dict[int, dict[int, int] | dict[str, int]] = {}
        self.cqc: dict[int, dict[str, int]] = {}
        self.mr_keys: dict[int, int] = {}
        self.sq_ci: dict[int, int] = {}
        self.rq_ci: dict[int, int] = {}
        self.emitted: dict[tuple[int, str], int] = {}

    def write32(self, addr: int, value: int) -> None:
        super().write32(addr, value)
        if addr == CMD:
            op, _flags, index, w = self.commands[-1]
            if op == 3:
                old = self.mr_keys.pop(index, None)
                if old is not None:
                    self.model.dereg_mr(self.node, old)
                if w[0] >> 8 & 1:
                    key = index << 8 | (w[0] & 0xFF)
                    self.mr_keys[index] = key
                    self.model.add_mr(self.node, key, w[1], w[6] | w[7] << 32, w[4] | w[5] << 32,
                                      v.Access(w[0] >> 9 & 0xF), va=w[2] | w[3] << 32)
            elif op == 2:
                self.cqc[index] = {"ring": w[0] | w[1] << 32, "log2": w[2] & 0x1F, "pi": 0,
                                   "ci": 0}
            elif op == 1:
                f = decode_qp(w)
                self.qpc[index] = f
                self.sq_ci.setdefault(index, 0)
                self.rq_ci.setdefault(index, 0)
                if f["state"] == 2:           # RTR: the QP exists for the model now
                    self.model.add_qp(self.node, index, f["pd"], v.Access(f["access"]))
                    if (self.peer, f["dqpn"]) in self.model.qps:
                        self.model.connect((self.node, index), (self.peer, f["dqpn"]))
        elif 0x100000 <= addr < 0x180000:
            qpn, rq = (addr - 0x100000) // 8, addr & 4
            f = self.qpc[qpn]
            ci = self.rq_ci if rq else self.sq_ci
            while ci[qpn] != value:
                if rq:
                    e = self.mem.read(f["rq"] + 32 * (ci[qpn] % (1 << f["rq_log2"])), 32)
                    wr_id, a, lkey, ln = struct.unpack_from("<QQII", e)
                    self.model.post_recv((self.node, qpn), v.RecvWR(wr_id, a, ln, lkey))
                else:
                    s = unpack_sqe(self.mem.read(f["sq"] + 64 * (ci[qpn] % (1 << f["sq_log2"])),
                                                 64))
                    self.model.post_send((self.node, qpn), v.SendWR(
                        v.WrOpcode(s["opcode"]), s["wr_id"], s["laddr"], s["length"], s["lkey"],
                        s["raddr"], s["rkey"], s["imm"], s["cmp"], s["swap"],
                        signaled=bool(s["flags"] & 1)))
                ci[qpn] += 1
        elif addr >= 0x180000:
            self.cqc[(addr - 0x180000) // 8]["ci"] = value & 0x7FFFFFFF

    def deliver(self) -> None:
        """Write CQEs for every completion the model produced for this NIC's QPs."""
        codes = {n: c.value for n, c in v.WcOpcode.__members__.items()}
        for (node, qpn), q in self.model.qps.items():
            if node != self.node:
                continue
            for kind, wcs, cqn in (("send", q.send_wcs, self.qpc[qpn]["scq"]),
                                   ("recv", q.recv_wcs, self.qpc[qpn]["rcq"])):
                cq = self.cqc[cqn]
                for wc in wcs[self.emitted.get((qpn, kind), 0):]:
                    assert cq["pi"] - cq["ci"] < 1 << cq["log2"], "CQ overrun"
                    slot, phase = cq["pi"] % (1 << cq["log2"]), 1 ^ (cq["pi"] >> cq["log2"] & 1)
                    e = struct.pack("<QIIIBBB8xB", wc.wr_id, wc.byte_len, wc.imm or 0, qpn,
                                    codes[wc.opcode], v.WcStatus[wc.status],
                                    wc.imm is not None, phase << 7)
                    self.mem.write(cq["ring"] + 32 * slot, e)
                    cq["pi"] += 1
                self.emitted[(qpn, kind)] = len(wcs)
