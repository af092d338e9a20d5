# SPDX-License-Identifier: Apache-2.0
"""fabnic.verbs without a simulator, and the RC reference model (tb/roce/rc_model.py).

The driver runs against FakeNic (register space + doorbells) and FakeMemory. FakeNic
decodes every command, context word, SQE/RQE byte and doorbell from the written
contract (docs/fw.md, docs/roce_design.md tables, regmap doc strings) with its own
offsets and bit positions, and plays the NIC side of the CQ (CQEs with phase bits).
Expected values are hand-computed from the contract, never taken from the driver.
"""

from __future__ import annotations

import ipaddress
import struct

import pytest
from roce import rc_model
from roce.rc_model import RcModel, compare_wcs, random_scenario, split_wcs

from fabnic import verbs as v
from fabnic.device import DeviceError

# ---------------------------------------------------------------- fakes (the contract)

ROCE = 0x400
CMD, CMD_STATUS, RESULT0, DATA0 = ROCE + 0x30, ROCE + 0x34, ROCE + 0x38, ROCE + 0x80
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

    def read32(self, addr: int) -> int:
        assert addr % 4 == 0
        if addr == CMD_STATUS:
            if self.stuck:
                return 1
            if self.busy_left:
                self.busy_left -= 1
                return 1
            return 2 if self.refused else 0
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
        "dcqcn": w[0] >> 25 & 1, "w0_rsvd": w[0] >> 26,
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


@pytest.fixture()
def nic() -> FakeNic:
    return FakeNic()


@pytest.fixture()
def mem() -> FakeMemory:
    return FakeMemory()


def rts_qp(ctx: v.Context, sq: int = 8, rq: int = 8, cq: v.CompletionQueue | None = None
           ) -> v.QueuePair:
    pd = ctx.alloc_pd()
    cq = cq or ctx.create_cq(16)
    qp = ctx.create_qp(pd, cq, cq, sq, rq)
    ctx.modify_qp(qp, "INIT", access=v.Access.REMOTE_WRITE)
    ctx.modify_qp(qp, "RTR", dest_qpn=9, rq_psn=0, path_mtu=1024, dest_mac=2, dest_ip="10.0.0.2")
    ctx.modify_qp(qp, "RTS", sq_psn=0, timeout=14, retry_cnt=7, rnr_retry=7)
    return qp


# ---------------------------------------------------------------- device / registers


def test_open_device_sets_local_address(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem, mac="02:11:22:33:44:55", ip="10.1.2.3")
    assert (ctx.num_qp, ctx.num_cq, ctx.num_mr) == (16, 8, 4)
    assert ctx.caps == v.Cap(0x3F)
    assert nic.regs[0x410] == 0x22334455 and nic.regs[0x414] == 0x0211
    assert nic.regs[0x418] == 0x0A010203
    assert [nic.regs.get(a, 0) for a in (0x41C, 0x420, 0x424)] == [0, 0, 0]
    assert ctx.mac == 0x021122334455 and ctx.ip == ipaddress.ip_address("10.1.2.3")
    ctx.set_local_address(ip="fd00::1:2")
    assert [nic.regs[a] for a in (0x418, 0x41C, 0x420, 0x424)] == [0x00010002, 0, 0,
                                                                    0xFD000000]
    assert ctx.ip == ipaddress.ip_address("fd00::1:2")
    with pytest.raises(v.InvalidArgument):
        ctx.set_local_address(mac="02:11:22:33:44")


def test_open_device_checks_id(mem: FakeMemory) -> None:
    with pytest.raises(DeviceError, match="not a fabnic"):
        v.open_device(FakeNic(dev_id=0x12345678), mem)


def test_counters_by_name(nic: FakeNic, mem: FakeMemory) -> None:
    cnt = v.open_device(nic, mem).counters()
    assert cnt["rx_frames"] == 0x5000 + 0x800       # first counter at 0x800
    assert cnt["tx_frames"] == 0x5000 + 0x800 + 4 * 18
    assert cnt["irq"] == 0x5000 + 0x800 + 4 * 31
    assert cnt["tx_len_err"] == 0x5000 + 0x800 + 4 * 32
    assert cnt["sr_probe"] == 0x5000 + 0x800 + 4 * 38
    assert cnt["sr_spurious"] == 0x5000 + 0x800 + 4 * 40
    assert cnt["sqe_shadow_miss"] == 0x5000 + 0x800 + 4 * 42
    # the receive front's drop reasons follow (docs/roce.md, Receive validation)
    assert cnt["rx_drop_dst_mac"] == 0x5000 + 0x800 + 4 * 43
    assert cnt["rx_drop_reth_len"] == 0x5000 + 0x800 + 4 * 54   # the last one
    assert len(cnt) == 55


def test_command_timeout_and_refusal(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem, poll_limit=5)
    nic.stuck = True
    with pytest.raises(v.CommandTimeout, match="still busy after 5 polls"):
        ctx.create_cq(4)
    nic.stuck = False
    nic.limits[2] = 0                        # the NIC refuses every CQ index
    with pytest.raises(v.CommandRefused, match=r"CQ_WRITE index \d refused"):
        ctx.create_cq(4)
    nic.limits[2] = 8
    assert ctx.create_cq(4).valid


def test_driver_waits_for_busy_before_and_after(nic: FakeNic, mem: FakeMemory) -> None:
    nic.busy_polls = 7
    ctx = v.open_device(nic, mem)
    ctx.create_cq(4)
    ctx.create_cq(4)                         # FakeNic asserts no cmd write while busy
    assert len(nic.cmds(2)) == 2


# ---------------------------------------------------------------- MR / CQ


def test_mr_words_keys_and_tags(mem: FakeMemory) -> None:
    nic = FakeNic(num_mr=2)
    ctx = v.open_device(nic, mem)
    pd = ctx.alloc_pd()
    acc = v.Access.LOCAL_WRITE | v.Access.REMOTE_READ
    mr = ctx.reg_mr(pd, 0x1_2345_1003, 0x1_0000_0005, acc)
    flags, index, w = nic.cmds(3)[-1]
    assert (flags, index) == (0, 0)
    tag = w[0] & 0xFF
    assert mr.lkey == mr.rkey == index << 8 | tag
    assert w[0] >> 8 & 1 == 1 and w[0] >> 9 & 0xF == 0b0011 and w[0] >> 13 == 0
    assert w[1] == pd.pdn
    assert (w[2], w[3]) == (0x23451003, 0x1)          # VA = host address by default
    assert (w[4], w[5]) == (0x00000005, 0x1)
    assert (w[6], w[7]) == (0x23451003, 0x1)
    mr2 = ctx.reg_mr(pd, 0x1_2345_2000, 64, v.Access.NONE, va=0xFFFF_0000_0000_1000)
    _, index2, w = nic.cmds(3)[-1]
    assert index2 == 1 and (w[2], w[3]) == (0x00001000, 0xFFFF0000)
    assert (w[6], w[7]) == (0x23452000, 0x1)
    with pytest.raises(v.ResourceError):
        ctx.reg_mr(pd, 0x1_2345_3000, 64, v.Access.NONE)
    ctx.dereg_mr(mr)
    _, index, w = nic.cmds(3)[-1]
    assert index == 0 and w[0] >> 8 & 1 == 0          # valid = 0
    mr3 = ctx.reg_mr(pd, 0x1_2345_3000, 64, v.Access.NONE)
    assert mr3.index == 0 and mr3.key != mr.key and mr3.key & 0xFF != 0   # new tag
    with pytest.raises(v.InvalidArgument, match="LOCAL_WRITE"):
        ctx.reg_mr(pd, 0x1_2345_3000, 64, v.Access.REMOTE_WRITE)
    with pytest.raises(v.ResourceError):
        ctx.dealloc_pd(pd)
    ctx.dereg_mr(mr2)
    ctx.dereg_mr(mr3)
    ctx.dealloc_pd(pd)


def test_tags_cycle_without_zero(mem: FakeMemory) -> None:
    nic = FakeNic(num_mr=1)
    ctx = v.open_device(nic, mem)
    pd = ctx.alloc_pd()
    keys = []
    for _ in range(300):
        mr = ctx.reg_mr(pd, 0x1_2345_0000, 8, v.Access.NONE)
        keys.append(mr.key)
        ctx.dereg_mr(mr)
    assert all(k & 0xFF for k in keys)
    assert all(a != b for a, b in zip(keys, keys[1:], strict=False))
    assert len(set(keys[:255])) == 255


def test_cq_words_and_destroy(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(100, vector=5)
    flags, index, w = nic.cmds(2)[-1]
    assert cq.depth == 128 and index == cq.cqn
    assert w[0] | w[1] << 32 == cq.ring and w[2] == 7 and w[3] == 5 | 1 << 16
    assert mem.read(cq.ring, 32 * 128) == bytes(32 * 128)     # ring cleared
    qp = ctx.create_qp(ctx.alloc_pd(), cq, cq, 4, 4)
    with pytest.raises(v.ResourceError):
        ctx.destroy_cq(cq)
    ctx.destroy_qp(qp)
    ctx.destroy_cq(cq)
    _, index, w = nic.cmds(2)[-1]
    assert index == cq.cqn and w[3] >> 16 & 1 == 0


# ---------------------------------------------------------------- QP context / state machine


def test_qp_context_through_the_states(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    pd = ctx.alloc_pd()
    scq, rcq = ctx.create_cq(8), ctx.create_cq(8)
    qp = ctx.create_qp(pd, scq, rcq, sq_depth=5, rq_depth=16)
    assert qp.qpn == 2                       # QPN 0 and 1 stay reserved
    flags, index, w = nic.cmds(1)[-1]
    f = decode_qp(w)
    assert (flags, index, f["state"]) == (0x30, 2, 0)
    assert f["sq"] == qp.sq_ring and f["rq"] == qp.rq_ring
    assert (f["sq_log2"], f["rq_log2"], f["scq"], f["rcq"]) == (3, 4, scq.cqn, rcq.cqn)
    assert f["pd"] == pd.pdn and w[16] >> 13 == 0

    ctx.modify_qp(qp, v.QpState.INIT, access=v.Access.REMOTE_READ | v.Access.REMOTE_WRITE)
    flags, index, w = nic.cmds(1)[-1]
    assert nic.commands[-1][0] == 1 and nic.regs[CMD] == 1 | 2 << 8
    assert (flags, decode_qp(w)["state"], decode_qp(w)["access"]) == (0, 1, 0b0110)

    ctx.modify_qp(qp, "RTR", dest_qpn=0xABCDE, rq_psn=0x123456, path_mtu=2048,
                  dest_mac="0a:0b:0c:0d:0e:0f", dest_ip="10.0.0.2", udp_sport=0xD00D,
                  dscp=26)
    flags, _, w = nic.cmds(1)[-1]
    f = decode_qp(w)
    assert flags == 0x20 and nic.regs[CMD] == 1 | 0x20 | 2 << 8
    assert (f["state"], f["dqpn"], f["rq_psn"], f["mtu"]) == (2, 0xABCDE, 0x123456, 4)
    assert (w[6], w[7]) == (0x0C0D0E0F, 0x0A0B)
    assert (w[8], w[9], w[10], w[11], f["ipv6"]) == (0x0A000002, 0, 0, 0, 0)
    assert (f["sport"], f["dscp"], f["access"]) == (0xD00D, 26, 0b0110)

    ctx.modify_qp(qp, "RTS", sq_psn=0xFFFFFF, timeout=17, retry_cnt=5, rnr_retry=6)
    flags, _, w = nic.cmds(1)[-1]
    f = decode_qp(w)
    assert flags == 0x10
    assert (f["state"], f["sq_psn"], f["timeout"], f["retry"], f["rnr"]) == \
        (3, 0xFFFFFF, 17, 5, 6)
    assert (f["rq_psn"], f["dqpn"], f["mtu"], f["sr"], f["fec"], f["dcqcn"]) == \
        (0x123456, 0xABCDE, 4, 0, 0, 0)
    assert f["w0_rsvd"] == 0

    ctx.modify_qp(qp, "SQD")
    ctx.modify_qp(qp, "RTS")                 # SQD -> RTS must not reset the send PSN
    flags, _, w = nic.cmds(1)[-1]
    assert flags == 0 and decode_qp(w)["state"] == 3
    ctx.modify_qp(qp, "ERR")
    flags, _, w = nic.cmds(1)[-1]
    assert flags == 0 and decode_qp(w)["state"] == 6


def test_ipv6_destination_and_modes(mem: FakeMemory) -> None:
    nic = FakeNic(caps=0x1FF)
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    qp = ctx.create_qp(ctx.alloc_pd(), cq, cq, 4, 4)
    ctx.modify_qp(qp, "INIT", access=0, selective_repeat=True, dcqcn=True)
    ctx.modify_qp(qp, "RTR", dest_qpn=3, rq_psn=0, path_mtu=4096, dest_mac=b"\x02\0\0\0\0\x09",
                  dest_ip=ipaddress.IPv6Address("2001:db8::1234:5678"), fec=True)
    f = decode_qp(nic.cmds(1)[-1][2])
    w = nic.cmds(1)[-1][2]
    assert (f["ipv6"], f["mtu"], f["sr"], f["fec"], f["dcqcn"]) == (1, 5, 1, 1, 1)
    assert (w[8], w[9], w[10], w[11]) == (0x12345678, 0, 0, 0x20010DB8)
    assert f["mac"] == 0x020000000009


def test_state_machine_is_enforced(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    qp = ctx.create_qp(ctx.alloc_pd(), cq, cq, 4, 4)
    n = len(nic.commands)
    with pytest.raises(v.QpStateError, match="RESET -> RTR is not a valid"):
        ctx.modify_qp(qp, "RTR", dest_qpn=1, rq_psn=0, path_mtu=1024, dest_mac=1,
                      dest_ip="1.2.3.4")
    with pytest.raises(v.QpStateError, match="requires access"):
        ctx.modify_qp(qp, "INIT")
    with pytest.raises(v.QpStateError, match="post_recv needs INIT"):
        ctx.post_recv(qp, v.RecvWR(1, 0, 0, 0))
    ctx.modify_qp(qp, "INIT", access=0)
    with pytest.raises(v.QpStateError, match="requires dest_ip, dest_mac, dest_qpn"):
        ctx.modify_qp(qp, "RTR", rq_psn=0, path_mtu=1024)
    with pytest.raises(v.QpStateError, match="cannot set sq_psn"):
        ctx.modify_qp(qp, "RTR", dest_qpn=1, rq_psn=0, path_mtu=1024, dest_mac=1,
                      dest_ip="1.2.3.4", sq_psn=5)
    with pytest.raises(v.QpStateError, match="post_send needs RTS"):
        ctx.post_send(qp, v.SendWR("SEND"))
    with pytest.raises(v.InvalidArgument, match="path_mtu"):
        ctx.modify_qp(qp, "RTR", dest_qpn=1, rq_psn=0, path_mtu=1500, dest_mac=1,
                      dest_ip="1.2.3.4")
    with pytest.raises(v.InvalidArgument, match="dscp"):
        ctx.modify_qp(qp, "INIT", dscp=64)
    with pytest.raises(v.InvalidArgument, match="rq_psn"):
        ctx.modify_qp(qp, "RTR", dest_qpn=1, rq_psn=1 << 24, path_mtu=1024, dest_mac=1,
                      dest_ip="1.2.3.4")
    with pytest.raises(v.InvalidArgument, match="SELECTIVE_REPEAT"):   # caps 0x3F
        ctx.modify_qp(qp, "INIT", selective_repeat=True)
    assert len(nic.commands) == n + 1        # only the valid INIT was written
    ctx.modify_qp(qp, "ERR")
    with pytest.raises(v.QpStateError, match="ERR -> INIT"):
        ctx.modify_qp(qp, "INIT", access=0)
    ctx.modify_qp(qp, "RESET")
    assert nic.cmds(1)[-1][0] == 0x30


def test_rqes_posted_in_init_are_rung_again_after_rtr(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    qp = ctx.create_qp(ctx.alloc_pd(), cq, cq, 4, 4)
    ctx.modify_qp(qp, "INIT", access=0)
    ctx.post_recv(qp, [v.RecvWR(1, 0x1000, 16, 7), v.RecvWR(2, 0x2000, 16, 7)])
    rq_db = 0x100004 + 8 * qp.qpn
    assert nic.doorbells == [(rq_db, 2)]
    ctx.modify_qp(qp, "RTR", dest_qpn=1, rq_psn=0, path_mtu=1024, dest_mac=1, dest_ip="1.2.3.4")
    assert nic.writes[-1] == (rq_db, 2)
    assert nic.writes[-2][0] == CMD          # after the context write


# ---------------------------------------------------------------- SQE / RQE / doorbells


def unpack_sqe(b: bytes) -> dict[str, int]:
    """The SQE table of docs/roce_design.md, by offset."""
    def u(off: int, n: int) -> int:
        return int.from_bytes(b[off:off + n], "little")
    return {"wr_id": u(0, 8), "opcode": b[8], "flags": b[9], "rsvd0": u(0xA, 2),
            "length": u(0xC, 4), "laddr": u(0x10, 8), "lkey": u(0x18, 4), "imm": u(0x1C, 4),
            "raddr": u(0x20, 8), "rkey": u(0x28, 4), "rsvd1": u(0x2C, 4),
            "cmp": u(0x30, 8), "swap": u(0x38, 8)}


@pytest.mark.parametrize("opcode,code", [("SEND", 0), ("SEND_WITH_IMM", 1), ("RDMA_WRITE", 2),
                                         ("RDMA_WRITE_WITH_IMM", 3), ("RDMA_READ", 4),
                                         ("ATOMIC_CMP_AND_SWP", 5),
                                         ("ATOMIC_FETCH_AND_ADD", 6)])
def test_sqe_bytes_per_opcode(nic: FakeNic, mem: FakeMemory, opcode: str, code: int) -> None:
    ctx = v.open_device(nic, mem)
    qp = rts_qp(ctx, sq=4)
    atomic = "ATOMIC" in opcode
    wr = v.SendWR(opcode, wr_id=0x1122334455667788, local_addr=0x1_2345_6789,
                  length=0 if atomic else 0x12345, lkey=0xAB01, remote_addr=0xFEDC_BA98_7654_3211,
                  rkey=0xCD02, imm=0xDEADBEEF, compare_add=0x0102030405060708,
                  swap=0x1112131415161718, signaled=True, solicited=True, fence=True)
    ctx.post_send(qp, wr)
    s = unpack_sqe(mem.read(qp.sq_ring, 64))
    assert s == {"wr_id": 0x1122334455667788, "opcode": code, "flags": 0b111, "rsvd0": 0,
                 "length": 8 if atomic else 0x12345, "laddr": 0x1_2345_6789, "lkey": 0xAB01,
                 "imm": 0xDEADBEEF, "raddr": 0xFEDC_BA98_7654_3211, "rkey": 0xCD02,
                 "rsvd1": 0, "cmp": 0x0102030405060708, "swap": 0x1112131415161718}
    assert nic.doorbells[-1] == (0x100000 + 8 * qp.qpn, 1)


def test_batch_one_doorbell_and_wrap(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(16)
    qp = rts_qp(ctx, sq=4, cq=cq)
    db = 0x100000 + 8 * qp.qpn
    nic.doorbells.clear()
    ctx.post_send(qp, [v.SendWR("RDMA_WRITE", wr_id=i, signaled=False) for i in range(3)])
    assert nic.doorbells == [(db, 3)]
    assert [unpack_sqe(mem.read(qp.sq_ring + 64 * i, 64))["flags"] for i in range(3)] == [0] * 3
    ctx.post_send(qp, v.SendWR("RDMA_WRITE", wr_id=3, signaled=True))
    nic_cqe(mem, cq, 0, 1, wr_id=3, opcode=1, qpn=qp.qpn)
    assert ctx.poll_cq(cq) == [v.WorkCompletion(3, "SUCCESS", "RDMA_WRITE", 0, None, qp.qpn)]
    ctx.post_send(qp, [v.SendWR("SEND", wr_id=4 + i) for i in range(4)])
    assert nic.doorbells[-1] == (db, 8)      # free-running producer index
    assert [unpack_sqe(mem.read(qp.sq_ring + 64 * i, 64))["wr_id"] for i in range(4)] == \
        [4, 5, 6, 7]                         # slots 0..3 reused in order


def test_ring_full_and_slot_accounting(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(16)
    qp = rts_qp(ctx, sq=4, cq=cq)
    ctx.post_send(qp, [v.SendWR("SEND", wr_id=1, signaled=False),
                       v.SendWR("SEND", wr_id=2, signaled=False),
                       v.SendWR("SEND", wr_id=3, signaled=True)])
    n_db = len(nic.doorbells)
    before = bytes(mem.data)
    with pytest.raises(v.QueueFull):
        ctx.post_send(qp, [v.SendWR("SEND", wr_id=4), v.SendWR("SEND", wr_id=5)])
    assert len(nic.doorbells) == n_db and bytes(mem.data) == before   # nothing posted
    ctx.post_send(qp, v.SendWR("SEND", wr_id=4, signaled=False))
    with pytest.raises(v.QueueFull):
        ctx.post_send(qp, v.SendWR("SEND", wr_id=5))
    nic_cqe(mem, cq, 0, 1, wr_id=3, opcode=0, qpn=qp.qpn, byte_len=0)
    assert [wc.wr_id for wc in ctx.poll_cq(cq)] == [3]
    assert qp.sq_free == 3                   # 1, 2 (unsignaled) and 3 freed; 4 still out
    with pytest.raises(v.QueueFull):
        ctx.post_send(qp, [v.SendWR("SEND", wr_id=10 + i) for i in range(4)])
    ctx.post_send(qp, [v.SendWR("SEND", wr_id=10 + i) for i in range(3)])
    # An error on unsignaled WR 4 and flushes: one slot each.
    nic_cqe(mem, cq, 1, 1, wr_id=4, opcode=0, status=4, qpn=qp.qpn)
    nic_cqe(mem, cq, 2, 1, wr_id=10, opcode=0, status=3, qpn=qp.qpn)
    wcs = ctx.poll_cq(cq)
    assert [(wc.wr_id, wc.status) for wc in wcs] == [(4, "REM_ACCESS_ERR"), (10, "WR_FLUSH_ERR")]
    assert qp.sq_free == 2 and qp.state == v.QpState.ERR


def test_error_after_unsignaled_successes(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(16)
    qp = rts_qp(ctx, sq=8, cq=cq)
    ctx.post_send(qp, [v.SendWR("RDMA_WRITE", wr_id=i, signaled=False) for i in range(4)])
    nic_cqe(mem, cq, 0, 1, wr_id=2, opcode=1, status=4, qpn=qp.qpn)   # 0, 1 succeeded
    nic_cqe(mem, cq, 1, 1, wr_id=3, opcode=1, status=3, qpn=qp.qpn)
    assert [wc.status for wc in ctx.poll_cq(cq)] == ["REM_ACCESS_ERR", "WR_FLUSH_ERR"]
    assert qp.sq_free == 8


def test_recv_rqe_bytes_and_completions(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(16)
    qp = rts_qp(ctx, rq=2, cq=cq)
    ctx.post_recv(qp, [v.RecvWR(0xA1, 0x1_2345_8001, 0x777, 0x1234),
                       v.RecvWR(0xA2, 0x2000, 0, 0x99)])
    r = mem.read(qp.rq_ring, 32)
    assert r == (0xA1).to_bytes(8, "little") + (0x1_2345_8001).to_bytes(8, "little") + \
        (0x1234).to_bytes(4, "little") + (0x777).to_bytes(4, "little") + bytes(8)
    assert nic.doorbells[-1] == (0x100004 + 8 * qp.qpn, 2)
    with pytest.raises(v.QueueFull):
        ctx.post_recv(qp, v.RecvWR(0xA3))
    nic_cqe(mem, cq, 0, 1, wr_id=0xA1, opcode=0x80, qpn=qp.qpn, byte_len=100)
    nic_cqe(mem, cq, 1, 1, wr_id=0xA2, opcode=0x81, qpn=qp.qpn, byte_len=0, imm=0xCAFEF00D)
    wcs = ctx.poll_cq(cq, 1)
    assert wcs == [v.WorkCompletion(0xA1, "SUCCESS", "RECV", 100, None, qp.qpn)]
    wcs = ctx.poll_cq(cq)
    assert wcs == [v.WorkCompletion(0xA2, "SUCCESS", "RECV_RDMA_WITH_IMM", 0, 0xCAFEF00D,
                                    qp.qpn)]
    assert qp.rq_free == 2


def test_cq_phase_polling_and_doorbells(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    qp = rts_qp(ctx, rq=16, cq=cq)
    ctx.post_recv(qp, [v.RecvWR(i) for i in range(10)])
    cq_db = 0x180000 + 8 * cq.cqn
    assert ctx.poll_cq(cq) == [] and not [d for d in nic.doorbells if d[0] == cq_db]
    for slot in range(3):                    # first pass: phase 1
        nic_cqe(mem, cq, slot, 1, wr_id=slot, opcode=0x80, qpn=qp.qpn)
    assert [wc.wr_id for wc in ctx.poll_cq(cq, 2)] == [0, 1]
    assert nic.doorbells[-1] == (cq_db, 2)
    ctx.req_notify_cq(cq)
    assert nic.doorbells[-1] == (cq_db, 2 | 1 << 31)
    assert [wc.wr_id for wc in ctx.poll_cq(cq)] == [2]
    assert ctx.poll_cq(cq) == []             # slot 3 still phase 0 (cleared ring)
    nic_cqe(mem, cq, 3, 1, wr_id=3, opcode=0x80, qpn=qp.qpn)
    nic_cqe(mem, cq, 0, 0, wr_id=4, opcode=0x80, qpn=qp.qpn)   # second pass: phase 0
    assert [wc.wr_id for wc in ctx.poll_cq(cq)] == [3, 4]
    assert nic.doorbells[-1] == (cq_db, 5)
    assert ctx.poll_cq(cq) == []             # slot 1 holds phase 1 from pass 1: not ours
    for i, slot in enumerate((1, 2, 3)):
        nic_cqe(mem, cq, slot, 0, wr_id=5 + i, opcode=0x80, qpn=qp.qpn)
    nic_cqe(mem, cq, 0, 1, wr_id=8, opcode=0x80, qpn=qp.qpn)   # third pass: phase 1
    assert [wc.wr_id for wc in ctx.wait_cq(cq, 4)] == [5, 6, 7, 8]
    assert nic.doorbells[-1] == (cq_db, 9)


def test_wait_cq_gives_time_and_times_out(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    calls: list[int] = []
    with pytest.raises(v.CommandTimeout, match="0 of 1 completions after 3 polls"):
        ctx.wait_cq(cq, 1, max_polls=3, idle=lambda: calls.append(1))
    assert len(calls) == 3


def test_unmatched_cqe_is_reported(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    qp = rts_qp(ctx, cq=cq)
    nic_cqe(mem, cq, 0, 1, wr_id=1, opcode=0x80, qpn=qp.qpn)
    with pytest.raises(v.CompletionError, match="no posted RQE"):
        ctx.poll_cq(cq)
    assert cq.ci == 1                        # consumed anyway
    nic_cqe(mem, cq, 1, 1, wr_id=1, opcode=0, qpn=13)
    with pytest.raises(v.CompletionError, match="unknown QP 13"):
        ctx.poll_cq(cq)


def test_post_send_argument_checks(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    qp = rts_qp(ctx)
    for wr, msg in ((v.SendWR("NOPE"), "unknown opcode"),
                    (v.SendWR("ATOMIC_FETCH_AND_ADD", length=16), "8 bytes"),
                    (v.SendWR("SEND", length=(1 << 31) + 1), "length"),
                    (v.SendWR("SEND", imm=1 << 32), "imm")):
        with pytest.raises(v.InvalidArgument, match=msg):
            ctx.post_send(qp, [v.SendWR("SEND"), wr])
    assert qp.sq_pi == 0
    nic2 = FakeNic(caps=0x07)                # no atomics, no immediate
    ctx2 = v.open_device(nic2, FakeMemory())
    qp2 = rts_qp(ctx2)
    with pytest.raises(v.InvalidArgument, match="not supported"):
        ctx2.post_send(qp2, v.SendWR("ATOMIC_CMP_AND_SWP"))
    with pytest.raises(v.InvalidArgument, match="not supported"):
        ctx2.post_send(qp2, v.SendWR("SEND_WITH_IMM"))
    with pytest.raises(v.InvalidArgument, match="IPv6"):
        ctx2.set_local_address(ip="fe80::1")


def test_query_qp(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = v.open_device(nic, mem)
    qp = rts_qp(ctx)
    nic.regs[RESULT0] = 6 | 1 << 3 | 0x2A << 4 | 4 << 16
    nic.regs[RESULT0 + 4], nic.regs[RESULT0 + 8], nic.regs[RESULT0 + 12] = 0x10, 0x20, 0xF
    q = ctx.query_qp(qp)
    assert nic.commands[-1][:3] == (4, 0, qp.qpn)
    assert (q.state, q.error, q.error_cause, q.error_status) == \
        (v.QpState.ERR, True, 0x2A, "REM_ACCESS_ERR")
    assert (q.next_send_psn, q.expected_psn, q.una_psn) == (0x10, 0x20, 0xF)
    assert qp.state == v.QpState.ERR and q.attrs.dest_qpn == 9


def test_destroy_qp_frees_qpn_late(mem: FakeMemory) -> None:
    nic = FakeNic(num_qp=4)
    ctx = v.open_device(nic, mem)
    cq = ctx.create_cq(4)
    pd = ctx.alloc_pd()
    a = ctx.create_qp(pd, cq, cq, 2, 2)
    b = ctx.create_qp(pd, cq, cq, 2, 2)
    with pytest.raises(v.ResourceError, match="no free QPN"):
        ctx.create_qp(pd, cq, cq, 2, 2)
    ctx.destroy_qp(a)
    flags, index, w = nic.cmds(1)[-1]
    assert (flags, index, decode_qp(w)["state"]) == (0x30, a.qpn, 0)
    assert ctx.create_qp(pd, cq, cq, 2, 2).qpn == a.qpn
    assert b.qpn == 3


# ---------------------------------------------------------------- rc_model hand cases

A_BASE, B_BASE = 0x1000, 0x9000
RW = v.Access.LOCAL_WRITE | v.Access.REMOTE_READ | v.Access.REMOTE_WRITE | v.Access.REMOTE_ATOMIC


def pair(rnr_retry: int = 7) -> RcModel:
    m = RcModel()
    m.add_node("a", A_BASE, bytes(range(64)))
    m.add_node("b", B_BASE, bytes(64))
    m.add_mr("a", 0x100, 1, A_BASE, 64, RW)
    m.add_mr("b", 0x200, 7, B_BASE + 16, 48, RW, va=0x7000)    # VA != host address
    m.add_qp("a", 5, 1, RW, rnr_retry=rnr_retry)       # a requester attribute
    m.add_qp("b", 6, 7, RW)
    m.connect(("a", 5), ("b", 6))
    return m


def test_model_write_read_send_atomics() -> None:
    m = pair()
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7020, 8, 0x200))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 1, A_BASE + 3, 4, 0x100, 0x7002, 0x200))
    m.post_send(("a", 5), v.SendWR("SEND_WITH_IMM", 2, A_BASE + 10, 5, 0x100, imm=0x55,
                                   signaled=False))
    m.post_send(("a", 5), v.SendWR("RDMA_READ", 3, A_BASE + 40, 4, 0x100, 0x7000, 0x200))
    m.post_send(("a", 5), v.SendWR("ATOMIC_FETCH_AND_ADD", 4, A_BASE + 48, 8, 0x100, 0x7008,
                                   0x200, compare_add=0xFFFFFFFFFFFFFFFF))
    m.post_send(("a", 5), v.SendWR("ATOMIC_CMP_AND_SWP", 5, A_BASE + 56, 8, 0x100, 0x7008,
                                   0x200, compare_add=0xFFFFFFFFFFFFFFFF, swap=0x1122))
    r = m.finish()
    b = bytearray(64)
    b[16 + 2:16 + 6] = bytes([3, 4, 5, 6])               # WRITE at VA 0x7002
    b[16 + 0x20:16 + 0x25] = bytes([10, 11, 12, 13, 14])   # SEND into the RQE buffer
    b[16 + 8:16 + 16] = (0x1122).to_bytes(8, "little")   # 0 + (-1) = -1, then CAS hit
    assert r.memory["b"] == bytes(b)
    a = bytearray(range(64))
    a[40:44] = bytes([0, 0, 3, 4])                       # READ of VA 0x7000..3
    a[48:56] = bytes(8)                                  # FAA returns the original 0
    a[56:64] = b"\xff" * 8                               # CAS returns -1
    assert r.memory["a"] == bytes(a)
    assert [(w.wr_id, w.opcode, w.byte_len) for w in r.send_wcs[("a", 5)]] == \
        [(1, "RDMA_WRITE", 4), (3, "RDMA_READ", 4), (4, "FETCH_AND_ADD", 8),
         (5, "CMP_AND_SWP", 8)]                          # 2 unsignaled: no completion
    assert r.recv_wcs[("b", 6)] == [v.WorkCompletion(0x61, "SUCCESS", "RECV", 5, 0x55, 6)]


def test_model_remote_access_error_flushes() -> None:
    m = pair()
    m.post_recv(("a", 5), v.RecvWR(0x51, A_BASE, 8, 0x100))
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7000, 8, 0x200))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 1, A_BASE, 4, 0x100, 0x7000, 0x200,
                                   signaled=False))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 2, A_BASE, 8, 0x100, 0x702C, 0x200,
                                   signaled=False))     # 0x702C + 8 > 0x7000 + 48
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 3, A_BASE, 4, 0x100, 0x7010, 0x200))
    m.post_send(("b", 6), v.SendWR("SEND", 4, 0x7000, 1, 0x200))
    r = m.finish()
    assert r.memory["b"][16:20] == bytes(range(4)) and r.memory["b"][20:] == bytes(44)
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == \
        [(2, "REM_ACCESS_ERR"), (3, "WR_FLUSH_ERR")]
    assert [(w.wr_id, w.status) for w in r.recv_wcs[("a", 5)]] == [(0x51, "WR_FLUSH_ERR")]
    assert [(w.wr_id, w.status) for w in r.recv_wcs[("b", 6)]] == [(0x61, "WR_FLUSH_ERR")]
    assert [(w.wr_id, w.status) for w in r.send_wcs[("b", 6)]] == [(4, "WR_FLUSH_ERR")]


@pytest.mark.parametrize("case,status", [("stale_key", "REM_ACCESS_ERR"),
                                         ("pd", "REM_ACCESS_ERR"),
                                         ("rights", "REM_ACCESS_ERR"),
                                         ("qp_rights", "REM_ACCESS_ERR"),
                                         ("misaligned", "REM_INV_REQ_ERR"),
                                         ("lkey", "LOC_PROT_ERR")])
def test_model_error_kinds(case: str, status: str) -> None:
    m = pair()
    wr = v.SendWR("RDMA_WRITE", 1, A_BASE, 8, 0x100, 0x7000, 0x200, signaled=False)
    if case == "stale_key":
        wr.rkey = 0x201
    elif case == "pd":
        m.add_mr("b", 0x300, 8, B_BASE, 64, RW)
        wr.rkey = 0x300
    elif case == "rights":
        m.add_mr("b", 0x300, 7, B_BASE, 64, v.Access.REMOTE_READ)
        wr.rkey = 0x300
    elif case == "qp_rights":
        m.qps[("b", 6)].access = v.Access.REMOTE_READ
    elif case == "misaligned":
        wr.opcode, wr.remote_addr = "ATOMIC_FETCH_AND_ADD", 0x7004
    elif case == "lkey":
        wr.opcode, wr.remote_addr = "RDMA_READ", 0x7000       # destination needs LOCAL_WRITE
        m.add_mr("a", 0x101, 1, A_BASE, 64, v.Access.REMOTE_READ)
        wr.lkey = 0x101
    m.post_send(("a", 5), wr)
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [(1, status)]
    assert r.memory["b"] == bytes(64) and r.memory["a"] == bytes(range(64))
    assert m.qps[("b", 6)].err == (case != "lkey")


def test_model_zero_length_checks_no_key() -> None:
    m = pair()
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 1, 0xDEAD, 0, 0x999, 0xBEEF, 0x12345))
    m.post_send(("a", 5), v.SendWR("RDMA_READ", 2, 0xDEAD, 0, 0x999, 0xBEEF, 0x12345))
    r = m.finish()
    assert [(w.status, w.byte_len) for w in r.send_wcs[("a", 5)]] == [("SUCCESS", 0)] * 2


def test_model_recv_too_small_and_rnr() -> None:
    m = pair(rnr_retry=3)
    m.post_send(("a", 5), v.SendWR("SEND", 1, A_BASE, 9, 0x100))
    assert m.qps[("a", 5)].sq                          # waits for a receive (RNR)
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7000, 8, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [(1, "REM_INV_REQ_ERR")]
    assert [(w.wr_id, w.status) for w in r.recv_wcs[("b", 6)]] == [(0x61, "LOC_LEN_ERR")]
    assert r.undefined == [("b", B_BASE + 16, 8)]
    got = bytearray(64)
    got[16:24] = b"\x99" * 8                           # undefined bytes may hold anything
    assert r.memory_mismatches("b", bytes(got)) == []
    got[24] = 1
    assert r.memory_mismatches("b", bytes(got)) == [(B_BASE + 24, 0, 1)]

    m = pair(rnr_retry=3)                               # nobody posts: RNR retries exhausted
    m.post_send(("a", 5), v.SendWR("SEND", 1, A_BASE, 9, 0x100, signaled=False))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 2, A_BASE, 1, 0x100, 0x7000, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == \
        [(1, "RNR_RETRY_EXC_ERR"), (2, "WR_FLUSH_ERR")]
    assert r.memory["b"] == bytes(64)

    m = pair(rnr_retry=7)                               # infinite: stays pending
    m.post_send(("a", 5), v.SendWR("SEND", 1, A_BASE, 9, 0x100))
    assert m.finish().pending == {("a", 5): [1]}


def test_model_bad_receive_lkey() -> None:
    m = pair()
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7000, 8, 0x999))
    m.post_send(("a", 5), v.SendWR("SEND", 1, A_BASE, 4, 0x100))
    r = m.finish()
    assert [w.status for w in r.send_wcs[("a", 5)]] == ["REM_OP_ERR"]
    assert [w.status for w in r.recv_wcs[("b", 6)]] == ["LOC_PROT_ERR"]


def test_compare_and_split_wcs() -> None:
    e = [v.WorkCompletion(1, "SUCCESS", "SEND", 4, None, 5),
         v.WorkCompletion(2, "WR_FLUSH_ERR", "SEND", 0, None, 5)]
    a = [e[0], v.WorkCompletion(2, "WR_FLUSH_ERR", "RDMA_WRITE", 77, None, 5)]
    assert compare_wcs(e, a) == []          # opcode/byte_len undefined on errors
    assert compare_wcs(e, a[:1]) == ["1 completions, expected 2"]
    assert len(compare_wcs(e, [e[0], v.WorkCompletion(2, "WR_FLUSH_ERR", "RECV", 0, None, 5)]))
    s = split_wcs([e[0], v.WorkCompletion(9, "SUCCESS", "RECV", 0, None, 5)])
    assert set(s) == {(5, "send"), (5, "recv")}


# ---------------------------------------------------------------- random scenarios

BASES = {"a": 0x10_0000, "b": 0x80_0000}


def keys_for(s: rc_model.Scenario) -> dict[str, int]:
    return {mr.name: (i + 3) << 8 | 0x5A for i, mr in enumerate(s.mrs)}


@pytest.mark.parametrize("seed,loopback", [(1, False), (2, True), (3, False)])
def test_random_scenario_against_independent_replay(seed: int, loopback: bool) -> None:
    """Disjoint buffers make each WR checkable on its own from the initial memory:
    WRITE/SEND destinations hold their source bytes, READ destinations the remote
    bytes, atomics the chain of values per word."""
    s = random_scenario(seed, n_wrs=40, max_len=300, loopback=loopback)
    assert random_scenario(seed, n_wrs=40, max_len=300, loopback=loopback).ops == s.ops
    keys = keys_for(s)
    qpns = {"a": 2, "b": 3}
    r = s.expected(BASES, keys, qpns)
    ops = s.bind(BASES, keys)
    init = {n: s.mem[n] for n in s.mem}

    def node(qp: str, peer: bool = False) -> str:
        name = ("b" if qp == "a" else "a") if peer else qp
        return "a" if loopback else name

    def get(mem: dict[str, bytes], n: str, addr: int, ln: int) -> bytes:
        off = addr - BASES[n]
        return mem[n][off:off + ln]

    rqes = {"a": [w for k, q, w in ops if k == "recv" and q == "a"],
            "b": [w for k, q, w in ops if k == "recv" and q == "b"]}
    words: dict[tuple[str, int], int] = {}
    n_signaled = {"a": 0, "b": 0}
    for kind, q, wr in ops:
        if kind != "send":
            continue
        assert isinstance(wr, v.SendWR)
        n_signaled[q] += wr.signaled
        me, peer = node(q), node(q, True)
        op = v.WrOpcode[wr.opcode] if isinstance(wr.opcode, str) else wr.opcode
        src = get(init, me, wr.local_addr, wr.length)
        if op in (v.WrOpcode.RDMA_WRITE, v.WrOpcode.RDMA_WRITE_WITH_IMM):
            assert get(r.memory, peer, wr.remote_addr, wr.length) == src
        if op in (v.WrOpcode.RDMA_WRITE_WITH_IMM, v.WrOpcode.SEND, v.WrOpcode.SEND_WITH_IMM):
            rqe = rqes["b" if q == "a" else "a"].pop(0)
            if op != v.WrOpcode.RDMA_WRITE_WITH_IMM:
                assert get(r.memory, peer, rqe.addr, wr.length) == src
        if op == v.WrOpcode.RDMA_READ:
            assert get(r.memory, me, wr.local_addr, wr.length) == \
                get(init, peer, wr.remote_addr, wr.length)
        if op in (v.WrOpcode.ATOMIC_CMP_AND_SWP, v.WrOpcode.ATOMIC_FETCH_AND_ADD):
            k = (peer, wr.remote_addr)
            old = words.get(k, int.from_bytes(get(init, peer, wr.remote_addr, 8), "little"))
            assert int.from_bytes(get(r.memory, me, wr.local_addr, 8), "little") == old
            if op == v.WrOpcode.ATOMIC_FETCH_AND_ADD:
                words[k] = (old + wr.compare_add) % (1 << 64)
            else:
                words[k] = wr.swap if old == wr.compare_add else old
    for (n, addr), val in words.items():
        assert int.from_bytes(get(r.memory, n, addr, 8), "little") == val
    for q in ("a", "b"):
        k = (node(q), qpns[q])
        wcs = r.send_wcs[k]
        assert len(wcs) == n_signaled[q] and all(w.ok for w in wcs)
        assert all(w.ok for w in r.recv_wcs[k])
    assert not r.pending and not r.undefined


@pytest.mark.parametrize("error,status", [("bounds", "REM_ACCESS_ERR"),
                                          ("rights", "REM_ACCESS_ERR"),
                                          ("pd", "REM_ACCESS_ERR"),
                                          ("recv_too_small", "REM_INV_REQ_ERR"),
                                          ("misaligned_atomic", "REM_INV_REQ_ERR")])
def test_random_scenario_error(error: str, status: str) -> None:
    s = random_scenario(7, n_wrs=10, max_len=200, error=error)
    r = s.expected(BASES, keys_for(s), {"a": 2, "b": 3})
    wcs = r.send_wcs[("a", 2)]
    sends = [w for k, q, w in s.ops if k == "send"]
    err = [w for w in wcs if not w.ok]
    assert err[0].status == status and err[0].wr_id == sends[5].wr_id
    assert [w.wr_id for w in err[1:]] == [w.wr_id for w in sends[6:]]
    assert all(w.status == "WR_FLUSH_ERR" for w in err[1:])
    rb = r.recv_wcs[("b", 3)]
    assert rb[-1].status == "WR_FLUSH_ERR"
    if error == "recv_too_small":
        assert "LOC_LEN_ERR" in [w.status for w in rb]


# ---------------------------------------------------------------- driver + model end to end


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


@pytest.mark.parametrize("seed,loopback,error", [(11, True, None), (12, False, None),
                                                 (13, False, "bounds"),
                                                 (14, True, "recv_too_small")])
def test_driver_replays_scenario_on_soft_nic(seed: int, loopback: bool,
                                             error: str | None) -> None:
    s = random_scenario(seed, n_wrs=60, max_len=400, loopback=loopback, error=error)
    model = RcModel()
    nodes = ["a"] if loopback else ["a", "b"]
    mems = {n: FakeMemory(1 << 20) for n in nodes}
    nics = {n: SoftNic(model, n, "a" if loopback else ("b" if n == "a" else "a"), mems[n])
            for n in nodes}
    ctxs = {n: v.open_device(nics[n], mems[n]) for n in nodes}
    bases = {}
    for n in nodes:
        bases[n] = mems[n].alloc(len(s.mem[n]))
        mems[n].write(bases[n], s.mem[n])
    pds = {n: (ctxs[n].alloc_pd(), ctxs[n].alloc_pd()) for n in nodes}
    keys = {m.name: ctxs[m.node].reg_mr(pds[m.node][m.pd], bases[m.node] + m.offset, m.length,
                                        m.access).key for m in s.mrs}
    assert pds["a"][0].pdn == 1 and pds["a"][1].pdn == 2
    cqs = {q: ctxs[s.node_of(q)].create_cq(64) for q in ("a", "b")}   # wraps once
    qps = {q: ctxs[s.node_of(q)].create_qp(pds[s.node_of(q)][0], cqs[q], cqs[q], 16, 64)
           for q in ("a", "b")}
    for q in ("a", "b"):
        ctxs[s.node_of(q)].modify_qp(qps[q], "INIT", access=s.qp_access)
    for q, other in (("a", "b"), ("b", "a")):
        c = ctxs[s.node_of(q)]
        c.modify_qp(qps[q], "RTR", dest_qpn=qps[other].qpn, rq_psn=0, path_mtu=1024,
                    dest_mac=1, dest_ip="10.0.0.9")
        c.modify_qp(qps[q], "RTS", sq_psn=0, timeout=14, retry_cnt=7, rnr_retry=7)
    got: dict[str, list[v.WorkCompletion]] = {"a": [], "b": []}   # per QP (own CQ)

    def drain() -> None:
        for nic in nics.values():
            nic.deliver()
        for q in ("a", "b"):
            got[q] += ctxs[s.node_of(q)].poll_cq(cqs[q], 128)

    for kind, q, wr in s.bind(bases, keys):
        c, qp = ctxs[s.node_of(q)], qps[q]
        if kind == "recv":
            c.post_recv(qp, wr)
        else:
            if not qp.sq_free:
                drain()
            c.post_send(qp, wr)               # QueueFull here would be a slot leak
    drain()
    qpns = {q: qps[q].qpn for q in ("a", "b")}
    assert (qpns["a"], qpns["b"]) == ((2, 3) if loopback else (2, 2))
    exp = s.expected(bases, keys, qpns)
    for n in nodes:
        off = bases[n] - mems[n].BASE
        assert exp.memory_mismatches(n, bytes(mems[n].data[off:off + len(s.mem[n])])) == []
    for q in ("a", "b"):
        k = (s.node_of(q), qpns[q])
        split = split_wcs(got[q])
        assert compare_wcs(exp.send_wcs[k], split.get((qpns[q], "send"), [])) == []
        assert compare_wcs(exp.recv_wcs[k], split.get((qpns[q], "recv"), [])) == []
        assert qps[q].sq_free == qps[q].sq_depth      # every slot came back
    n_wcs = len(got["a"]) + len(got["b"])
    if error:
        assert not all(w.ok for w in got["a"] + got["b"])
    else:
        assert all(w.ok for w in got["a"] + got["b"]) and n_wcs > 60


def test_fec_controls(mem: FakeMemory) -> None:
    """set_fec writes the fec block (base 0x0D00: mode 0x00, k 0x04, r 0x08, d 0x0C,
    flush 0x10, rob timeout 0x14, NAK delay 0x1C, NAK retry 0x20, RX bypass 0x24; mode
    last) and the per-QP table (qp_en 0x18: QPN |
    value << 24) follows the QP's fec flag; bad arguments are refused."""
    fec = 0x0D00
    nic = FakeNic(caps=0x1BF)
    ctx = v.open_device(nic, mem)
    nic.writes.clear()
    ctx.set_fec("qp", k=4, r=2, d=2, flush_cycles=300, rob_timeout=5000, nak_delay=700,
                nak_retry=900)
    assert nic.writes == [(fec + 0x04, 4), (fec + 0x08, 2), (fec + 0x0C, 2), (fec + 0x10, 300),
                          (fec + 0x14, 5000), (fec + 0x1C, 700), (fec + 0x20, 900),
                          (fec + 0x24, 0), (fec + 0x00, 2)]
    nic.writes.clear()
    ctx.set_fec("all", nak_delay=0, rx_bypass=True)
    assert (fec + 0x24, 1) in nic.writes and nic.writes[-1] == (fec + 0x00, 1), nic.writes
    for bad in ({"k": 0}, {"r": 5}, {"rob_timeout": 1 << 16}):
        with pytest.raises(v.InvalidArgument):
            ctx.set_fec("all", **bad)
    with pytest.raises(v.InvalidArgument):
        ctx.set_fec("sometimes")
    cq = ctx.create_cq(4)
    qp = ctx.create_qp(ctx.alloc_pd(), cq, cq, 4, 4)
    ctx.modify_qp(qp, "INIT", access=0, fec=True)
    nic.writes.clear()
    ctx.modify_qp(qp, "RTR", dest_qpn=0x123, rq_psn=0, path_mtu=1024,
                  dest_mac=b"\x02\0\0\0\0\x09", dest_ip="10.0.0.9")
    assert (fec + 0x18, 0x123 | 1 << 24) in nic.writes
    nic.writes.clear()
    ctx.modify_qp(qp, "RTS", sq_psn=0, timeout=8, retry_cnt=7, rnr_retry=7)
    assert not [w for w in nic.writes if w[0] == fec + 0x18]     # unchanged: no write
    nic2 = FakeNic(caps=0x3F)
    with pytest.raises(v.InvalidArgument, match="FEC"):
        v.open_device(nic2, mem).set_fec("all")
