# SPDX-License-Identifier: Apache-2.0
"""The fw/ driver without a simulator, and the RC reference model (tb/roce/rc_model.py).

The driver, through its object API (fabnic.pyverbs), runs against FakeNic (register
space + doorbells) and FakeMemory (tb/fw/fake_nic.py). FakeNic decodes every command, context word, SQE/RQE byte and doorbell from the written
contract (docs/fw.md, docs/roce_design.md tables, regmap doc strings) with its own
offsets and bit positions, and plays the NIC side of the CQ (CQEs with phase bits).
Expected values are hand-computed from the contract, never taken from the driver.
"""

from __future__ import annotations

import ipaddress

import pytest
from fake_nic import CMD, RESULT0, FakeMemory, FakeNic, decode_qp, nic_cqe, unpack_sqe
from roce import rc_model
from roce.rc_model import RcModel, compare_wcs, random_scenario, split_wcs

from fabnic import pyverbs as pv
from fabnic import verbs as v
from fabnic.device import DeviceError


@pytest.fixture()
def nic() -> FakeNic:
    return FakeNic()


@pytest.fixture()
def mem() -> FakeMemory:
    return FakeMemory()


def rts_qp(ctx: pv.Context, sq: int = 8, rq: int = 8, cq: pv.CQ | None = None,
           sig_all: int = 0) -> pv.QP:
    cq = cq or pv.CQ(ctx, 16)
    qp = pv.QP(pv.PD(ctx), pv.QPInitAttr(qp_type=pv.IBV_QPT_RC, scq=cq, rcq=cq,
                                         cap=pv.QPCap(max_send_wr=sq, max_recv_wr=rq),
                                         sq_sig_all=sig_all))
    qp.to_rts(pv.QPAttr(qp_access_flags=v.Access.REMOTE_WRITE, dest_qp_num=9, rq_psn=0,
                        sq_psn=0, path_mtu=pv.IBV_MTU_1024, timeout=14, retry_cnt=7,
                        rnr_retry=7, ah_attr=pv.AHAttr(dmac=2, dip="10.0.0.2")))
    return qp


def write(wr_id: int, signaled: bool = True, op: v.WrOpcode = v.WrOpcode.RDMA_WRITE
          ) -> pv.SendWR:
    return pv.SendWR(wr_id, op, send_flags=pv.IBV_SEND_SIGNALED if signaled else 0,
                     wr=pv.RdmaWR(0, 0) if op == v.WrOpcode.RDMA_WRITE else None)


def send(wr_id: int, signaled: bool = True) -> pv.SendWR:
    return write(wr_id, signaled, v.WrOpcode.SEND)


# ---------------------------------------------------------------- device / registers


def test_open_device_sets_local_address(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem, mac="02:11:22:33:44:55", ip="10.1.2.3")
    d = ctx.query_device()
    assert (d.max_qp, d.max_cq, d.max_mr) == (16, 8, 4)
    assert d.caps == v.Cap(0x3F)
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
        pv.Context(FakeNic(dev_id=0x12345678), mem)


def test_counters_by_name(nic: FakeNic, mem: FakeMemory) -> None:
    cnt = pv.Context(nic, mem).counters()
    assert cnt["rx_frames"] == 0x5000 + 0x800       # first counter at 0x800
    assert cnt["tx_frames"] == 0x5000 + 0x800 + 4 * 18
    assert cnt["irq"] == 0x5000 + 0x800 + 4 * 31
    assert cnt["tx_len_err"] == 0x5000 + 0x800 + 4 * 32
    assert cnt["sr_probe"] == 0x5000 + 0x800 + 4 * 38
    assert cnt["sr_spurious"] == 0x5000 + 0x800 + 4 * 40
    assert cnt["sqe_shadow_miss"] == 0x5000 + 0x800 + 4 * 42
    # the receive front's drop reasons follow (docs/roce.md, Receive validation)
    assert cnt["rx_drop_dst_mac"] == 0x5000 + 0x800 + 4 * 43
    assert cnt["rx_drop_reth_len"] == 0x5000 + 0x800 + 4 * 54
    # host write faults by engine (docs/roce_engine.md, Host-memory faults)
    assert cnt["wr_err_resp"] == 0x5000 + 0x800 + 4 * 55
    assert cnt["wr_err_lost"] == 0x5000 + 0x800 + 4 * 58
    # CQEs dropped for a CQ in the error state (docs/roce_engine.md, CQ error state)
    assert cnt["cq_err_drop"] == 0x5000 + 0x800 + 4 * 59   # the last one
    assert len(cnt) == 60


def test_command_timeout_and_refusal(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem, poll_limit=5)
    nic.stuck = True
    with pytest.raises(v.CommandTimeout, match="still busy after 5 polls"):
        pv.CQ(ctx, 4)
    nic.stuck = False
    nic.limits[2] = 0                        # the NIC refuses every CQ index
    with pytest.raises(v.CommandRefused, match=r"CQ_WRITE index \d refused"):
        pv.CQ(ctx, 4)
    nic.limits[2] = 8
    assert not pv.CQ(ctx, 4).closed


def test_driver_waits_for_busy_before_and_after(nic: FakeNic, mem: FakeMemory) -> None:
    nic.busy_polls = 7
    ctx = pv.Context(nic, mem)
    pv.CQ(ctx, 4)
    pv.CQ(ctx, 4)                            # FakeNic asserts no cmd write while busy
    assert len(nic.cmds(2)) == 2


# ---------------------------------------------------------------- MR / CQ


def test_mr_words_keys_and_tags(mem: FakeMemory) -> None:
    nic = FakeNic(num_mr=2)
    ctx = pv.Context(nic, mem)
    pd = pv.PD(ctx)
    acc = v.Access.LOCAL_WRITE | v.Access.REMOTE_READ
    mr = pv.MR(pd, 0x1_0000_0005, acc, address=0x1_2345_1003)
    flags, index, w = nic.cmds(3)[-1]
    assert (flags, index) == (0, 0)
    tag = w[0] & 0xFF
    assert mr.lkey == mr.rkey == index << 8 | tag
    assert w[0] >> 8 & 1 == 1 and w[0] >> 9 & 0xF == 0b0011 and w[0] >> 13 == 0
    assert w[1] == pd.pdn
    assert (w[2], w[3]) == (0x23451003, 0x1)          # VA = host address by default
    assert (w[4], w[5]) == (0x00000005, 0x1)
    assert (w[6], w[7]) == (0x23451003, 0x1)
    mr2 = pv.MR(pd, 64, v.Access.NONE, address=0x1_2345_2000, iova=0xFFFF_0000_0000_1000)
    _, index2, w = nic.cmds(3)[-1]
    assert index2 == 1 and (w[2], w[3]) == (0x00001000, 0xFFFF0000)
    assert (w[6], w[7]) == (0x23452000, 0x1)
    with pytest.raises(v.ResourceError):
        pv.MR(pd, 64, v.Access.NONE, address=0x1_2345_3000)
    mr.close()
    _, index, w = nic.cmds(3)[-1]
    assert index == 0 and w[0] >> 8 & 1 == 0          # valid = 0
    mr3 = pv.MR(pd, 64, v.Access.NONE, address=0x1_2345_3000)
    assert mr3.handle.index == 0 and mr3.lkey != mr.lkey and mr3.lkey & 0xFF != 0   # new tag
    with pytest.raises(v.InvalidArgument, match="LOCAL_WRITE"):
        pv.MR(pd, 64, v.Access.REMOTE_WRITE, address=0x1_2345_3000)
    with pytest.raises(v.ResourceError):              # the driver keeps a used PD
        ctx.driver.dealloc_pd(pd.handle)
    n = len(nic.commands)
    pd.close()                                        # deregisters what is left
    assert [(c[0], c[2], c[3][0] >> 8 & 1) for c in nic.commands[n:]] == [(3, 0, 0), (3, 1, 0)]
    assert mr2.closed and mr3.closed


def test_tags_cycle_without_zero(mem: FakeMemory) -> None:
    nic = FakeNic(num_mr=1)
    ctx = pv.Context(nic, mem)
    pd = pv.PD(ctx)
    keys = []
    for _ in range(300):
        with pv.MR(pd, 8, v.Access.NONE, address=0x1_2345_0000) as mr:
            keys.append(mr.lkey)
    assert all(k & 0xFF for k in keys)
    assert all(a != b for a, b in zip(keys, keys[1:], strict=False))
    assert len(set(keys[:255])) == 255


def test_cq_words_and_destroy(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 100, comp_vector=5)
    flags, index, w = nic.cmds(2)[-1]
    assert cq.cqe == 128 and index == cq.cqn
    assert w[0] | w[1] << 32 == cq.handle.ring and w[2] == 7 and w[3] == 5 | 1 << 16
    assert mem.read(cq.handle.ring, 32 * 128) == bytes(32 * 128)     # ring cleared
    qp = pv.QP(pv.PD(ctx), pv.QPInitAttr(scq=cq, rcq=cq, cap=pv.QPCap(4, 4)))
    with pytest.raises(v.ResourceError):
        cq.close()
    qp.close()
    cq.close()
    _, index, w = nic.cmds(2)[-1]
    assert index == cq.cqn and w[3] >> 16 & 1 == 0


# ---------------------------------------------------------------- QP context / state machine
# (the transitions and their attribute masks: tb/fw/test_pyverbs.py)


def test_rqes_posted_in_init_are_rung_again_after_rtr(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 4)
    qp = pv.QP(pv.PD(ctx), pv.QPInitAttr(scq=cq, rcq=cq, cap=pv.QPCap(4, 4)))
    qp.to_init(pv.QPAttr())
    qp.post_recv([pv.RecvWR(1, sg=[pv.SGE(0x1000, 16, 7)]),
                  pv.RecvWR(2, sg=[pv.SGE(0x2000, 16, 7)])])
    rq_db = 0x100004 + 8 * qp.qp_num
    assert nic.doorbells == [(rq_db, 2)]
    qp.to_rtr(pv.QPAttr(dest_qp_num=1, ah_attr=pv.AHAttr(dmac=1, dip="1.2.3.4")))
    assert nic.writes[-1] == (rq_db, 2)
    assert nic.writes[-2][0] == CMD          # after the context write


# ---------------------------------------------------------------- SQE / RQE / doorbells
# (SQE/RQE bytes per opcode against the layouts: tb/fw/test_pyverbs.py)


def test_batch_one_doorbell_and_wrap(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 16)
    qp = rts_qp(ctx, sq=4, cq=cq)
    db = 0x100000 + 8 * qp.qp_num
    ring = qp.handle.sq_ring
    nic.doorbells.clear()
    qp.post_send([write(i, signaled=False) for i in range(3)])
    assert nic.doorbells == [(db, 3)]
    assert [unpack_sqe(mem.read(ring + 64 * i, 64))["flags"] for i in range(3)] == [0] * 3
    qp.post_send(write(3))
    nic_cqe(mem, cq.handle, 0, 1, wr_id=3, opcode=1, qpn=qp.qp_num)
    assert cq.poll(16) == (1, [pv.WC(3, pv.IBV_WC_SUCCESS, pv.IBV_WC_RDMA_WRITE, 0, 0,
                                     qp.qp_num)])
    qp.post_send([send(4 + i) for i in range(4)])
    assert nic.doorbells[-1] == (db, 8)      # free-running producer index
    assert [unpack_sqe(mem.read(ring + 64 * i, 64))["wr_id"] for i in range(4)] == \
        [4, 5, 6, 7]                         # slots 0..3 reused in order


def test_ring_full_and_slot_accounting(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 16)
    qp = rts_qp(ctx, sq=4, cq=cq)
    qp.post_send([send(1, signaled=False), send(2, signaled=False), send(3)])
    n_db = len(nic.doorbells)
    before = bytes(mem.data)
    with pytest.raises(v.QueueFull):
        qp.post_send([send(4), send(5)])
    assert len(nic.doorbells) == n_db and bytes(mem.data) == before   # nothing posted
    qp.post_send(send(4, signaled=False))
    with pytest.raises(v.QueueFull):
        qp.post_send(send(5))
    nic_cqe(mem, cq.handle, 0, 1, wr_id=3, opcode=0, qpn=qp.qp_num, byte_len=0)
    assert [wc.wr_id for wc in cq.poll(16)[1]] == [3]
    assert qp.handle.sq_free == 3            # 1, 2 (unsignaled) and 3 freed; 4 still out
    with pytest.raises(v.QueueFull):
        qp.post_send([send(10 + i) for i in range(4)])
    qp.post_send([send(10 + i) for i in range(3)])
    # An error on unsignaled WR 4 and flushes: one slot each.
    nic_cqe(mem, cq.handle, 1, 1, wr_id=4, opcode=0, status=4, qpn=qp.qp_num)
    nic_cqe(mem, cq.handle, 2, 1, wr_id=10, opcode=0, status=3, qpn=qp.qp_num)
    _, wcs = cq.poll(16)
    assert [(wc.wr_id, wc.status) for wc in wcs] == [(4, pv.IBV_WC_REM_ACCESS_ERR),
                                                     (10, pv.IBV_WC_WR_FLUSH_ERR)]
    assert qp.handle.sq_free == 2 and qp.qp_state == pv.IBV_QPS_ERR


def test_error_after_unsignaled_successes(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 16)
    qp = rts_qp(ctx, sq=8, cq=cq)
    qp.post_send([write(i, signaled=False) for i in range(4)])
    nic_cqe(mem, cq.handle, 0, 1, wr_id=2, opcode=1, status=4, qpn=qp.qp_num)   # 0, 1 ok
    nic_cqe(mem, cq.handle, 1, 1, wr_id=3, opcode=1, status=3, qpn=qp.qp_num)
    assert [wc.status for wc in cq.poll(16)[1]] == [pv.IBV_WC_REM_ACCESS_ERR,
                                                    pv.IBV_WC_WR_FLUSH_ERR]
    assert qp.handle.sq_free == 8


def test_sq_sig_all_signals_every_wr(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    qp = rts_qp(ctx, sq=4, sig_all=1)
    qp.post_send([send(1, signaled=False), send(2)])
    assert [unpack_sqe(mem.read(qp.handle.sq_ring + 64 * i, 64))["flags"] for i in range(2)] \
        == [1, 1]


def test_recv_rqe_bytes_and_completions(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 16)
    qp = rts_qp(ctx, rq=2, cq=cq)
    qp.post_recv([pv.RecvWR(0xA1, 1, [pv.SGE(0x1_2345_8001, 0x777, 0x1234)]),
                  pv.RecvWR(0xA2, 1, [pv.SGE(0x2000, 0, 0x99)])])
    r = mem.read(qp.handle.rq_ring, 32)
    assert r == (0xA1).to_bytes(8, "little") + (0x1_2345_8001).to_bytes(8, "little") + \
        (0x1234).to_bytes(4, "little") + (0x777).to_bytes(4, "little") + bytes(8)
    assert nic.doorbells[-1] == (0x100004 + 8 * qp.qp_num, 2)
    with pytest.raises(v.QueueFull):
        qp.post_recv(pv.RecvWR(0xA3))
    nic_cqe(mem, cq.handle, 0, 1, wr_id=0xA1, opcode=0x80, qpn=qp.qp_num, byte_len=100)
    nic_cqe(mem, cq.handle, 1, 1, wr_id=0xA2, opcode=0x81, qpn=qp.qp_num, byte_len=0,
            imm=0xCAFEF00D)
    assert cq.poll(1) == (1, [pv.WC(0xA1, pv.IBV_WC_SUCCESS, pv.IBV_WC_RECV, byte_len=100,
                                    qp_num=qp.qp_num)])
    assert cq.poll(16) == (1, [pv.WC(0xA2, pv.IBV_WC_SUCCESS, pv.IBV_WC_RECV_RDMA_WITH_IMM,
                                     qp_num=qp.qp_num, imm_data=0xCAFEF00D,
                                     wc_flags=pv.IBV_WC_WITH_IMM)])
    assert qp.handle.rq_free == 2


def test_cq_phase_polling_and_doorbells(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 4)
    c = cq.handle
    qp = rts_qp(ctx, rq=16, cq=cq)
    qp.post_recv([pv.RecvWR(i) for i in range(10)])
    cq_db = 0x180000 + 8 * cq.cqn
    assert cq.poll(16) == (0, []) and not [d for d in nic.doorbells if d[0] == cq_db]
    for slot in range(3):                    # first pass: phase 1
        nic_cqe(mem, c, slot, 1, wr_id=slot, opcode=0x80, qpn=qp.qp_num)
    assert [wc.wr_id for wc in cq.poll(2)[1]] == [0, 1]
    assert nic.doorbells[-1] == (cq_db, 2)
    cq.req_notify()
    assert nic.doorbells[-1] == (cq_db, 2 | 1 << 31)
    assert [wc.wr_id for wc in cq.poll(16)[1]] == [2]
    assert cq.poll(16) == (0, [])            # slot 3 still phase 0 (cleared ring)
    nic_cqe(mem, c, 3, 1, wr_id=3, opcode=0x80, qpn=qp.qp_num)
    nic_cqe(mem, c, 0, 0, wr_id=4, opcode=0x80, qpn=qp.qp_num)   # second pass: phase 0
    assert [wc.wr_id for wc in cq.poll(16)[1]] == [3, 4]
    assert nic.doorbells[-1] == (cq_db, 5)
    assert cq.poll(16) == (0, [])            # slot 1 holds phase 1 from pass 1: not ours
    for i, slot in enumerate((1, 2, 3)):
        nic_cqe(mem, c, slot, 0, wr_id=5 + i, opcode=0x80, qpn=qp.qp_num)
    nic_cqe(mem, c, 0, 1, wr_id=8, opcode=0x80, qpn=qp.qp_num)   # third pass: phase 1
    assert [wc.wr_id for wc in cq.wait(4)] == [5, 6, 7, 8]
    assert nic.doorbells[-1] == (cq_db, 9)


def test_cq_error_event(nic: FakeNic, mem: FakeMemory) -> None:
    """A CQ error (roce.async_event, rdl/roce.rdl): get_async_event takes it (one pop
    write) and names the CQ; the CQEs already in the ring are still returned, then polls
    and waits raise CqError; another CQ is not affected."""
    ctx = pv.Context(nic, mem)
    cq, other = pv.CQ(ctx, 4), pv.CQ(ctx, 4)
    qp = rts_qp(ctx, rq=8, cq=cq)
    qp.post_recv([pv.RecvWR(i) for i in range(4)])
    assert ctx.get_async_event() is None
    nic_cqe(mem, cq.handle, 0, 1, wr_id=0, opcode=0x80, qpn=qp.qp_num)
    nic.events = [(1, cq.handle.cqn), (2, 7)]
    ev = ctx.get_async_event()
    assert ev == pv.AsyncEvent(pv.IBV_EVENT_CQ_ERR, cq, cq.handle.cqn, v.AsyncEventType.CQ_OVERRUN)
    assert nic.writes[-1] == (0x400 + 0x5C, 1) and nic.events == [(2, 7)]
    assert [wc.wr_id for wc in cq.poll(4)[1]] == [0]     # written before the error
    with pytest.raises(v.CqError, match="CQ_OVERRUN"):
        cq.poll(4)
    ev = ctx.get_async_event()                            # a CQ this context does not have
    assert ev.cq is None and ev.cqn == 7 and ev.cause == v.AsyncEventType.CQ_WRITE_ERR
    assert other.poll(4) == (0, [])
    # a wait that is under way ends when the event arrives
    nic.events = [(2, other.handle.cqn)]
    with pytest.raises(v.CqError, match="CQ_WRITE_ERR"):
        other.wait(1, max_polls=10)
    assert nic.events == []


def test_unmatched_cqe_is_reported(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 4)
    qp = rts_qp(ctx, cq=cq)
    nic_cqe(mem, cq.handle, 0, 1, wr_id=1, opcode=0x80, qpn=qp.qp_num)
    with pytest.raises(v.CompletionError, match="no posted RQE"):
        cq.poll(16)
    assert cq.handle.ci == 1                 # consumed anyway
    nic_cqe(mem, cq.handle, 1, 1, wr_id=1, opcode=0, qpn=13)
    with pytest.raises(v.CompletionError, match="unknown QP 13"):
        cq.poll(16)


def test_post_send_argument_checks(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    qp = rts_qp(ctx)
    faa = pv.SendWR(1, pv.IBV_WR_ATOMIC_FETCH_AND_ADD, sg=[pv.SGE(0, 16, 1)],
                    wr=pv.AtomicWR(0, 0))
    for wr, msg in ((pv.SendWR(1, 99), "unknown opcode"),
                    (faa, "8 bytes"),
                    (pv.SendWR(1, sg=[pv.SGE(0, (1 << 31) + 1, 1)]), "length"),
                    (pv.SendWR(1, imm_data=1 << 32), "imm")):
        with pytest.raises(v.InvalidArgument, match=msg):
            qp.post_send([send(0), wr])
    assert qp.handle.sq_pi == 0
    ctx2 = pv.Context(FakeNic(caps=0x07), FakeMemory())     # no atomics, no immediate
    qp2 = rts_qp(ctx2)
    with pytest.raises(v.InvalidArgument, match="not supported"):
        qp2.post_send(pv.SendWR(1, pv.IBV_WR_ATOMIC_CMP_AND_SWP, wr=pv.AtomicWR(0, 0)))
    with pytest.raises(v.InvalidArgument, match="not supported"):
        qp2.post_send(pv.SendWR(1, pv.IBV_WR_SEND_WITH_IMM))
    with pytest.raises(v.InvalidArgument, match="IPv6"):
        ctx2.set_local_address(ip="fe80::1")


def test_query_qp(nic: FakeNic, mem: FakeMemory) -> None:
    ctx = pv.Context(nic, mem)
    qp = rts_qp(ctx)
    nic.regs[RESULT0] = 6 | 1 << 3 | 0x2A << 4 | 4 << 16
    nic.regs[RESULT0 + 4], nic.regs[RESULT0 + 8], nic.regs[RESULT0 + 12] = 0x10, 0x20, 0xF
    attr, _ = qp.query()
    assert nic.commands[-1][:3] == (4, 0, qp.qp_num)
    assert attr.qp_state == pv.IBV_QPS_ERR and qp.qp_state == pv.IBV_QPS_ERR
    assert attr.dest_qp_num == 9
    # the NIC's error cause and PSNs, beyond what pyverbs' QPAttr carries
    q = ctx.driver.query_qp(qp.handle)
    assert (q.state, q.error, q.error_cause, q.error_status) == \
        (v.QpState.ERR, True, 0x2A, "REM_ACCESS_ERR")
    assert (q.next_send_psn, q.expected_psn, q.una_psn) == (0x10, 0x20, 0xF)


def test_destroy_qp_frees_qpn_late(mem: FakeMemory) -> None:
    nic = FakeNic(num_qp=4)
    ctx = pv.Context(nic, mem)
    cq = pv.CQ(ctx, 4)
    pd = pv.PD(ctx)
    attr = pv.QPInitAttr(scq=cq, rcq=cq, cap=pv.QPCap(2, 2))
    a = pv.QP(pd, attr)
    b = pv.QP(pd, attr)
    with pytest.raises(v.ResourceError, match="no free QPN"):
        pv.QP(pd, attr)
    a.close()
    flags, index, w = nic.cmds(1)[-1]
    assert (flags, index, decode_qp(w)["state"]) == (0x30, a.qp_num, 0)
    assert pv.QP(pd, attr).qp_num == a.qp_num
    assert b.qp_num == 3


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


def test_model_host_write_faults() -> None:
    """fail_writes: data the NIC cannot place fails the WR (responder side: REM_OP_ERR,
    a SEND's receive LOC_QP_OP_ERR, both QPs ERR; requester side: LOC_QP_OP_ERR, only
    the requester ERR, an atomic still executed at the peer); the range is undefined."""
    m = pair()
    m.fail_writes("b", B_BASE + 16 + 4, 1)             # one byte of VA 0x7004
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7000, 8, 0x200))
    m.post_recv(("b", 6), v.RecvWR(0x62, 0x7010, 8, 0x200))
    m.post_send(("a", 5), v.SendWR("SEND", 1, A_BASE, 8, 0x100))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 2, A_BASE, 4, 0x100, 0x7020, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [
        (1, "REM_OP_ERR"), (2, "WR_FLUSH_ERR")]
    assert [(w.wr_id, w.status) for w in r.recv_wcs[("b", 6)]] == [
        (0x61, "LOC_QP_OP_ERR"), (0x62, "WR_FLUSH_ERR")]
    assert r.undefined == [("b", B_BASE + 16, 8)]
    assert r.memory["b"] == bytes(64)                    # nothing else placed

    m = pair()
    m.fail_writes("a", A_BASE + 48, 8)
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 1, A_BASE + 3, 4, 0x100, 0x7002, 0x200))
    m.post_send(("a", 5), v.SendWR("ATOMIC_FETCH_AND_ADD", 2, A_BASE + 48, 8, 0x100, 0x7008,
                                   0x200, compare_add=5))
    m.post_send(("a", 5), v.SendWR("RDMA_READ", 3, A_BASE + 40, 4, 0x100, 0x7000, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [
        (1, "SUCCESS"), (2, "LOC_QP_OP_ERR"), (3, "WR_FLUSH_ERR")]
    assert r.memory["b"][16 + 8:16 + 16] == (5).to_bytes(8, "little")   # executed
    assert r.undefined == [("a", A_BASE + 48, 8)]
    assert m.qps[("a", 5)].err and not m.qps[("b", 6)].err


def test_model_host_read_faults() -> None:
    """fail_reads (persistent): the requester's WRITE/SEND data -> LOC_QP_OP_ERR, only the
    requester ERR, the WRITE's target (and a SEND's receive buffer) undefined, the
    receive not completed; the responder's READ data -> REM_OP_ERR, both QPs ERR, the
    local range undefined; an atomic's target -> REM_OP_ERR, both QPs ERR, nothing
    written."""
    m = pair()
    m.fail_reads("a", A_BASE + 8, 1)
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 1, A_BASE, 4, 0x100, 0x7000, 0x200))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 2, A_BASE + 4, 8, 0x100, 0x7010, 0x200))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 3, A_BASE + 20, 4, 0x100, 0x7020, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [
        (1, "SUCCESS"), (2, "LOC_QP_OP_ERR"), (3, "WR_FLUSH_ERR")]
    assert r.undefined == [("b", B_BASE + 16 + 0x10, 8)]
    assert r.memory["b"][16:20] == bytes(range(4)) and r.memory["b"][16 + 0x20:] == bytes(16)
    assert m.qps[("a", 5)].err and not m.qps[("b", 6)].err

    m = pair()
    m.fail_reads("a", A_BASE, 1)
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7000, 8, 0x200))
    m.post_send(("a", 5), v.SendWR("SEND", 1, A_BASE, 8, 0x100))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [(1, "LOC_QP_OP_ERR")]
    assert r.recv_wcs[("b", 6)] == [] and r.undefined == [("b", B_BASE + 16, 8)]

    m = pair()
    m.fail_reads("b", B_BASE + 40, 8)                   # VA 0x7018
    m.post_recv(("b", 6), v.RecvWR(0x61, 0x7000, 8, 0x200))
    m.post_send(("a", 5), v.SendWR("RDMA_READ", 1, A_BASE + 32, 8, 0x100, 0x7014, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [(1, "REM_OP_ERR")]
    assert [(w.wr_id, w.status) for w in r.recv_wcs[("b", 6)]] == [(0x61, "WR_FLUSH_ERR")]
    assert r.undefined == [("a", A_BASE + 32, 8)]
    assert m.qps[("a", 5)].err and m.qps[("b", 6)].err

    m = pair()
    m.fail_reads("b", B_BASE + 16, 8)
    m.post_send(("a", 5), v.SendWR("ATOMIC_FETCH_AND_ADD", 1, A_BASE + 48, 8, 0x100, 0x7000,
                                   0x200, compare_add=5))
    m.post_send(("a", 5), v.SendWR("RDMA_WRITE", 2, A_BASE, 4, 0x100, 0x7010, 0x200))
    r = m.finish()
    assert [(w.wr_id, w.status) for w in r.send_wcs[("a", 5)]] == [
        (1, "REM_OP_ERR"), (2, "WR_FLUSH_ERR")]
    assert r.memory["b"] == bytes(64) and r.memory["a"] == bytes(range(64))
    assert m.qps[("a", 5)].err and m.qps[("b", 6)].err


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


def test_random_scenario_fail_writes() -> None:
    """Scenario.expected(fail_writes=...) is RcModel.fail_writes at base + offset: a
    one-way mix whose first WRITE/SEND target word fails ends that WR REM_OP_ERR (both
    QPs in ERR: the WRs behind it and every receive not yet used flush), the word's WR
    range undefined; without the fault the mix completes without error."""
    s = random_scenario(11, n_wrs=8, max_len=200, one_way=True)
    keys, qpns = keys_for(s), {"a": 2, "b": 3}
    ops = s.bind(BASES, keys)
    sends = [w for k, q, w in ops if k == "send"]
    recvs = [w for k, q, w in ops if k == "recv"]
    hit = next(i for i, w in enumerate(sends)
               if v.WrOpcode(w.opcode) in (v.WrOpcode.RDMA_WRITE, v.WrOpcode.SEND) and w.length)
    wr = sends[hit]
    used = sum(1 for w in sends[:hit] if v.WrOpcode(w.opcode) in (
        v.WrOpcode.SEND, v.WrOpcode.SEND_WITH_IMM, v.WrOpcode.RDMA_WRITE_WITH_IMM))
    is_send = v.WrOpcode(wr.opcode) == v.WrOpcode.SEND
    dst = recvs[used].addr if is_send else wr.remote_addr
    r = s.expected(BASES, keys, qpns, fail_writes=(("b", dst - BASES["b"], 1),))
    wa = r.send_wcs[("a", 2)]
    errs = [w for w in wa if not w.ok]
    assert (errs[0].wr_id, errs[0].status) == (wr.wr_id, "REM_OP_ERR")
    assert [w.wr_id for w in errs[1:]] == [w.wr_id for w in sends[hit + 1:]]
    assert all(w.status == "WR_FLUSH_ERR" for w in errs[1:])
    assert r.undefined == [("b", dst, wr.length)]
    rb = r.recv_wcs[("b", 3)]
    assert [w.wr_id for w in rb] == [w.wr_id for w in recvs]
    assert all(w.ok for w in rb[:used])       # receives of the messages before it
    rest = ["LOC_QP_OP_ERR"] if is_send else []
    rest += ["WR_FLUSH_ERR"] * (len(recvs) - used - len(rest))
    assert [w.status for w in rb[used:]] == rest
    clean = s.expected(BASES, keys, qpns)
    assert all(w.ok for w in clean.send_wcs[("a", 2)]) and not clean.undefined


def test_fec_controls(mem: FakeMemory) -> None:
    """set_fec (port configuration: the driver's, not a verb) writes the fec block (base
    0x0D00: mode 0x00, k 0x04, r 0x08, d 0x0C, flush 0x10, rob timeout 0x14, NAK delay
    0x1C, NAK retry 0x20, RX bypass 0x24; mode last) and the per-QP table (qp_en 0x18:
    QPN | value << 24) follows the QP's fec flag; bad arguments are refused."""
    fec = 0x0D00
    nic = FakeNic(caps=0x1BF)
    ctx = pv.Context(nic, mem)
    dev = ctx.driver
    nic.writes.clear()
    dev.set_fec("qp", k=4, r=2, d=2, flush_cycles=300, rob_timeout=5000, nak_delay=700,
                nak_retry=900)
    assert nic.writes == [(fec + 0x04, 4), (fec + 0x08, 2), (fec + 0x0C, 2), (fec + 0x10, 300),
                          (fec + 0x14, 5000), (fec + 0x1C, 700), (fec + 0x20, 900),
                          (fec + 0x24, 0), (fec + 0x00, 2)]
    nic.writes.clear()
    dev.set_fec("all", nak_delay=0, rx_bypass=True)
    assert (fec + 0x24, 1) in nic.writes and nic.writes[-1] == (fec + 0x00, 1), nic.writes
    for bad in ({"k": 0}, {"r": 5}, {"rob_timeout": 1 << 16}):
        with pytest.raises(v.InvalidArgument):
            dev.set_fec("all", **bad)
    with pytest.raises(v.InvalidArgument):
        dev.set_fec("sometimes")
    cq = pv.CQ(ctx, 4)
    qp = pv.QP(pv.PD(ctx), pv.QPInitAttr(scq=cq, rcq=cq, cap=pv.QPCap(4, 4)))
    attr = pv.QPAttr(qp_state=pv.IBV_QPS_INIT, fec=True, dest_qp_num=0x123,
                     ah_attr=pv.AHAttr(dmac=b"\x02\0\0\0\0\x09", dip="10.0.0.9"),
                     timeout=8)
    qp.modify(attr, pv.INIT_MASK | pv.FABNIC_QP_MODES)
    nic.writes.clear()
    qp.to_rtr(attr)
    assert (fec + 0x18, 0x123 | 1 << 24) in nic.writes
    nic.writes.clear()
    qp.to_rts(attr)
    assert not [w for w in nic.writes if w[0] == fec + 0x18]     # unchanged: no write
    with pytest.raises(v.InvalidArgument, match="FEC"):
        pv.Context(FakeNic(caps=0x3F), mem).driver.set_fec("all")
