# SPDX-License-Identifier: Apache-2.0
"""fabnic.pyverbs (the pyverbs-shaped object API) without a simulator.

The objects run against FakeNic/FakeMemory (tb/fw/fake_nic.py: the register space,
doorbells and host memory decoded from the written contract) and, end to end, against
SoftNic with the RC reference model. Expected values come from the contract tables,
the generated packers of fabnic.layouts, or IBTA (the transition table), never from
the code under test.
"""

from __future__ import annotations

import ipaddress

import pytest
from fake_nic import CMD, RESULT0, FakeMemory, FakeNic, SoftNic, decode_qp, nic_cqe, unpack_sqe
from roce.rc_model import RcModel, compare_wcs, random_scenario, split_wcs
from roce.scoreboard import as_work_completion, to_pyverbs_send

from fabnic import layouts as L
from fabnic import pyverbs as pv
from fabnic import verbs as v
from fabnic.pyverbs import SGE, QPAttr, QpState, RecvWR, SendWR

ACC = (pv.IBV_ACCESS_LOCAL_WRITE | pv.IBV_ACCESS_REMOTE_READ | pv.IBV_ACCESS_REMOTE_WRITE
       | pv.IBV_ACCESS_REMOTE_ATOMIC)
M = pv.QPAttrMask
SQ_DB, RQ_DB, CQ_DB = 0x100000, 0x100004, 0x180000
OP_QP, OP_CQ, OP_MR = 1, 2, 3


@pytest.fixture()
def nic() -> FakeNic:
    return FakeNic(caps=0x1FF)


@pytest.fixture()
def mem() -> FakeMemory:
    return FakeMemory()


@pytest.fixture()
def ctx(nic: FakeNic, mem: FakeMemory) -> pv.Context:
    return pv.Context(nic, mem, mac="02:00:00:00:00:01", ip="10.0.0.1")


def make_qp(ctx: pv.Context, sq: int = 8, rq: int = 8, sig_all: int = 0
            ) -> tuple[pv.PD, pv.CQ, pv.QP]:
    pd = pv.PD(ctx)
    cq = pv.CQ(ctx, 16)
    qp = pv.QP(pd, pv.QPInitAttr(qp_type=pv.IBV_QPT_RC, scq=cq, rcq=cq,
                                 cap=pv.QPCap(max_send_wr=sq, max_recv_wr=rq),
                                 sq_sig_all=sig_all))
    return pd, cq, qp


def peer_attr(**kw: object) -> QPAttr:
    base = {"qp_access_flags": ACC, "path_mtu": pv.IBV_MTU_1024, "dest_qp_num": 9,
            "rq_psn": 0x100, "sq_psn": 0x200, "timeout": 14, "retry_cnt": 7, "rnr_retry": 7,
            "ah_attr": pv.AHAttr(dmac="02:00:00:00:00:02", dip="10.0.0.2")}
    base.update(kw)
    return QPAttr(**base)  # type: ignore[arg-type]


def rts(ctx: pv.Context, **kw: int) -> tuple[pv.PD, pv.CQ, pv.QP]:
    pd, cq, qp = make_qp(ctx, **kw)
    qp.to_rts(peer_attr())
    return pd, cq, qp


# ---------------------------------------------------------------- object creation chain


def test_creation_chain_and_hardware_words(nic: FakeNic, mem: FakeMemory, ctx: pv.Context
                                           ) -> None:
    assert nic.regs[0x410] == 0x00000001 and nic.regs[0x414] == 0x0200     # local MAC
    d = ctx.query_device()
    assert (d.max_qp, d.max_cq, d.max_mr, d.max_sge, d.fw_ver) == (16, 8, 4, 1, "0.1.0")
    pd = pv.PD(ctx)
    assert pd.pdn == 1 and pv.PD(ctx).pdn == 2
    mr = pv.MR(pd, 100, pv.IBV_ACCESS_LOCAL_WRITE | pv.IBV_ACCESS_REMOTE_READ)
    _, index, w = nic.cmds(OP_MR)[-1]
    assert mr.lkey == mr.rkey == index << 8 | (w[0] & 0xFF)
    assert w[0] >> 8 & 1 and w[0] >> 9 & 0xF == 0b0011 and w[1] == pd.pdn
    assert w[2] | w[3] << 32 == mr.buf == mr.iova and w[4] == 100
    assert mem.read(mr.buf, 100) == bytes(100)              # allocated and zeroed
    mr.write(b"hello", offset=10)
    assert mr.read(5, 10) == b"hello" and mem.read(mr.buf + 10, 5) == b"hello"
    with pytest.raises(v.InvalidArgument, match="outside"):
        mr.read(8, 96)
    mr2 = pv.MR(pd, 64, pv.IBV_ACCESS_LOCAL_WRITE, address=0x1_2345_8000, iova=0x7000)
    _, _, w = nic.cmds(OP_MR)[-1]
    assert (w[2], w[6] | w[7] << 32) == (0x7000, 0x1_2345_8000) and mr2.buf == 0x1_2345_8000

    cq = pv.CQ(ctx, 100, comp_vector=3)
    _, cqn, w = nic.cmds(OP_CQ)[-1]
    assert cq.cqe == 128 and cqn == cq.cqn and w[2] == 7 and w[3] == 3 | 1 << 16
    scq = pv.CQ(ctx, 4)
    qp = pv.QP(pd, pv.QPInitAttr(qp_type=pv.IBV_QPT_RC, send_cq=scq, recv_cq=cq,
                                 cap=pv.QPCap(max_send_wr=5, max_recv_wr=16)))
    flags, qpn, w = nic.cmds(OP_QP)[-1]
    f = decode_qp(w)
    assert qpn == qp.qp_num == 2 and flags == 0x30 and f["state"] == 0
    assert (f["scq"], f["rcq"], f["pd"], f["sq_log2"], f["rq_log2"]) == \
        (scq.cqn, cq.cqn, pd.pdn, 3, 4)
    assert (f["sq"], f["rq"], w[16] >> 13) == (qp.handle.sq_ring, qp.handle.rq_ring, 0)
    assert qp.qp_state == pv.IBV_QPS_RESET and qp.qp_type == pv.IBV_QPT_RC
    assert (qp.cap.max_send_wr, qp.cap.max_recv_wr, qp.cap.max_send_sge) == (8, 16, 1)
    assert qp.init_attr.send_cq is scq and qp.init_attr.recv_cq is cq
    # a QP created with qp_attr goes to INIT
    qp2 = pv.QP(pd, pv.QPInitAttr(scq=cq, rcq=cq), QPAttr(qp_access_flags=ACC))
    assert qp2.qp_state == QpState.INIT and decode_qp(nic.cmds(OP_QP)[-1][2])["access"] == 0xF

    # closing the context closes everything made from it, children first
    n = len(nic.commands)
    ctx.close()
    closed = nic.commands[n:]
    assert [c[0] for c in closed] == [OP_QP, OP_QP, OP_MR, OP_MR, OP_CQ, OP_CQ]
    assert all(decode_qp(c[3])["state"] == 0 for c in closed[:2])
    assert all(not c[3][0] >> 8 & 1 for c in closed[2:4])    # MR valid = 0
    assert all(not c[3][3] >> 16 & 1 for c in closed[4:])    # CQ valid = 0
    assert all(o.closed for o in (ctx, pd, mr, mr2, cq, scq, qp, qp2))
    with pytest.raises(v.InvalidArgument, match="closed"):
        pv.PD(ctx)
    with pytest.raises(v.InvalidArgument, match="closed"):
        cq.poll()


def test_context_managers_and_wrapping(nic: FakeNic, mem: FakeMemory) -> None:
    driver = v.open_device(nic, mem)
    with pv.Context(driver=driver) as ctx:
        assert ctx.driver is driver and ctx.mem is mem
        with pv.PD(ctx) as pd, pv.CQ(ctx, 4) as cq:
            with pv.QP(pd, pv.QPInitAttr(scq=cq, rcq=cq)) as qp:
                assert driver.qps[qp.qp_num] is qp.handle
            assert qp.closed and qp.qp_num not in driver.qps
            qp2 = pv.QP(pd, pv.QPInitAttr(scq=cq, rcq=cq))
            with pytest.raises(v.ResourceError, match="still used"):
                cq.close()
            qp2.close()
    assert ctx.closed and pd.closed and cq.closed and not driver.qps and not driver.cqs
    with pytest.raises(v.InvalidArgument, match="bus"):
        pv.Context()


@pytest.mark.parametrize("change,msg", [
    ({"qp_type": pv.IBV_QPT_UD}, "RC QPs only"),
    ({"srq": object()}, "shared receive"),
    ({"cap": pv.QPCap(max_send_sge=2)}, "max_send_sge=2: a fabnic WQE carries one"),
    ({"cap": pv.QPCap(max_recv_sge=4)}, "max_recv_sge=4"),
    ({"cap": pv.QPCap(max_inline_data=64)}, "inline"),
    ({"scq": None}, "send_cq must be a CQ"),
])
def test_qp_creation_refusals(ctx: pv.Context, nic: FakeNic, change: dict, msg: str) -> None:
    pd, cq = pv.PD(ctx), pv.CQ(ctx, 4)
    kw = {"qp_type": pv.IBV_QPT_RC, "scq": cq, "rcq": cq, **change}
    n = len(nic.commands)
    with pytest.raises(v.InvalidArgument, match=msg):
        pv.QP(pd, pv.QPInitAttr(**kw))
    assert len(nic.commands) == n


def test_cq_of_another_context_and_channels(nic: FakeNic, mem: FakeMemory) -> None:
    a = pv.Context(nic, mem)
    b = pv.Context(FakeNic(), FakeMemory())
    with pytest.raises(v.InvalidArgument, match="another context"):
        pv.QP(pv.PD(a), pv.QPInitAttr(scq=pv.CQ(b, 4), rcq=pv.CQ(b, 4)))
    with pytest.raises(v.InvalidArgument, match="channel"):
        pv.CQ(a, 4, channel=object())


# ---------------------------------------------------------------- QP transitions


def test_required_masks_are_ibta() -> None:
    """Required attributes per transition (IBTA vol. 1 10.3 / ibv_modify_qp(3), RC, the
    ones fabnic's context uses)."""
    S = QpState
    expect = {
        (S.RESET, S.INIT): M.IBV_QP_STATE | M.IBV_QP_ACCESS_FLAGS,
        (S.INIT, S.RTR): (M.IBV_QP_STATE | M.IBV_QP_AV | M.IBV_QP_PATH_MTU
                          | M.IBV_QP_DEST_QPN | M.IBV_QP_RQ_PSN),
        (S.RTR, S.RTS): (M.IBV_QP_STATE | M.IBV_QP_SQ_PSN | M.IBV_QP_TIMEOUT
                         | M.IBV_QP_RETRY_CNT | M.IBV_QP_RNR_RETRY),
        (S.RTS, S.SQD): M.IBV_QP_STATE,
        (S.SQD, S.RTS): M.IBV_QP_STATE,
        (S.RTS, S.ERR): M.IBV_QP_STATE,
        (S.ERR, S.RESET): M.IBV_QP_STATE,
        (S.RTS, S.RTS): M.NONE,
        (S.INIT, S.INIT): M.NONE,
    }
    for (cur, new), required in expect.items():
        assert pv.transition_masks(cur, new)[0] == required, (cur, new)
    # pyverbs' to_init/to_rtr/to_rts masks are legal
    for (cur, new), mask in (((S.RESET, S.INIT), pv.INIT_MASK), ((S.INIT, S.RTR), pv.RTR_MASK),
                             ((S.RTR, S.RTS), pv.RTS_MASK)):
        req, allowed = pv.transition_masks(cur, new)
        assert req is not None and mask & req == req and mask & ~allowed == 0
    for cur, new in ((S.RESET, S.RTR), (S.RESET, S.RTS), (S.INIT, S.RTS), (S.RTR, S.INIT),
                     (S.ERR, S.INIT), (S.RTS, S.RTR), (S.SQD, S.INIT), (S.RESET, S.SQD)):
        assert pv.transition_masks(cur, new)[0] is None, (cur, new)


def test_legal_chain_writes_the_context(nic: FakeNic, ctx: pv.Context) -> None:
    _, _, qp = make_qp(ctx)
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_INIT, qp_access_flags=pv.IBV_ACCESS_REMOTE_WRITE,
                     pkey_index=0, port_num=1),
              M.IBV_QP_STATE | M.IBV_QP_ACCESS_FLAGS | M.IBV_QP_PKEY_INDEX | M.IBV_QP_PORT)
    flags, _, w = nic.cmds(OP_QP)[-1]
    assert (flags, decode_qp(w)["state"], decode_qp(w)["access"]) == (0, 1, 0b0100)
    ah = pv.AHAttr(dmac="0a:0b:0c:0d:0e:0f", dgid="::ffff:10.0.0.2", traffic_class=26 << 2 | 1,
                   udp_sport=0xD00D)
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_RTR, path_mtu=pv.IBV_MTU_2048, dest_qp_num=0xABCDE,
                     rq_psn=0x123456, ah_attr=ah, min_rnr_timer=12, max_dest_rd_atomic=4),
              pv.RTR_MASK)
    flags, _, w = nic.cmds(OP_QP)[-1]
    f = decode_qp(w)
    assert flags == 0x20                                     # receive side reset
    assert f["min_rnr_timer"] == 12                          # IBV_QP_MIN_RNR_TIMER: w0[30:26]
    assert nic.regs[CMD] == OP_QP | 0x20 | qp.qp_num << 8
    assert (f["state"], f["dqpn"], f["rq_psn"], f["mtu"]) == (2, 0xABCDE, 0x123456, 4)
    assert (f["mac"], f["ip"], f["ipv6"]) == (0x0A0B0C0D0E0F, 0x0A000002, 0)
    assert (f["sport"], f["dscp"]) == (0xD00D, 26)
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_RTS, sq_psn=0xFFFFFF, timeout=17, retry_cnt=5,
                     rnr_retry=6, max_rd_atomic=8), pv.RTS_MASK)
    flags, _, w = nic.cmds(OP_QP)[-1]
    f = decode_qp(w)
    assert flags == 0x10                                     # send side reset
    assert (f["state"], f["sq_psn"], f["timeout"], f["retry"], f["rnr"]) == \
        (3, 0xFFFFFF, 17, 5, 6)
    assert (f["rq_psn"], f["dqpn"], f["mtu"], f["w0_rsvd"]) == (0x123456, 0xABCDE, 4, 0)
    assert f["min_rnr_timer"] == 12                          # kept when RTS leaves it out
    assert qp.qp_state == pv.IBV_QPS_RTS
    # a modify in the same state: no IBV_QP_STATE needed
    qp.modify(QPAttr(qp_access_flags=ACC), M.IBV_QP_ACCESS_FLAGS)
    assert decode_qp(nic.cmds(OP_QP)[-1][2])["access"] == 0xF
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_SQD), M.IBV_QP_STATE)
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_RTS, cur_qp_state=pv.IBV_QPS_SQD),
              M.IBV_QP_STATE | M.IBV_QP_CUR_STATE)
    assert nic.cmds(OP_QP)[-1][0] == 0                       # SQD -> RTS keeps the send PSN
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_ERR), M.IBV_QP_STATE)
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_RESET), M.IBV_QP_STATE)
    assert nic.cmds(OP_QP)[-1][0] == 0x30 and qp.qp_state == pv.IBV_QPS_RESET
    qp.to_rts(peer_attr(min_rnr_timer=12))                   # RESET -> INIT -> RTR -> RTS
    assert [decode_qp(w)["state"] for _, _, w in nic.cmds(OP_QP)[-3:]] == [1, 2, 3]
    nic.regs[RESULT0] = 3                                    # the NIC reports RTS
    attr, init = qp.query()
    assert nic.commands[-1][:3] == (4, 0, qp.qp_num)
    assert (attr.qp_state, attr.dest_qp_num, attr.path_mtu, attr.rq_psn, attr.sq_psn) == \
        (QpState.RTS, 9, pv.IBV_MTU_1024, 0x100, 0x200)
    assert attr.min_rnr_timer == 12 and init is qp.init_attr
    assert decode_qp(nic.cmds(OP_QP)[-1][2])["min_rnr_timer"] == 12
    # an RTS -> RTS modify may change it alone; 32 does not fit the 5-bit code
    qp.modify(QPAttr(min_rnr_timer=31), M.IBV_QP_MIN_RNR_TIMER)
    assert decode_qp(nic.cmds(OP_QP)[-1][2])["min_rnr_timer"] == 31
    with pytest.raises(pv.InvalidArgument):
        qp.modify(QPAttr(min_rnr_timer=32), M.IBV_QP_MIN_RNR_TIMER)
    assert attr.ah_attr is not None and attr.ah_attr.dip == ipaddress.ip_address("10.0.0.2")


def test_modes_and_ipv6_address_vector(nic: FakeNic, ctx: pv.Context) -> None:
    _, _, qp = make_qp(ctx)
    qp.modify(QPAttr(qp_state=pv.IBV_QPS_INIT, qp_access_flags=0, selective_repeat=True,
                     dcqcn=True), pv.INIT_MASK | pv.FABNIC_QP_MODES)
    f = decode_qp(nic.cmds(OP_QP)[-1][2])
    assert (f["sr"], f["fec"], f["dcqcn"]) == (1, 0, 1)
    qp.to_rtr(peer_attr(path_mtu=4096, ah_attr=pv.AHAttr(dmac=b"\x02\0\0\0\0\x09",
                                                         dip="2001:db8::1234:5678")))
    w = nic.cmds(OP_QP)[-1][2]
    f = decode_qp(w)
    assert (f["ipv6"], f["mtu"], f["sr"], f["dcqcn"]) == (1, 5, 1, 1)     # modes kept
    assert (w[8], w[9], w[10], w[11]) == (0x12345678, 0, 0, 0x20010DB8)
    assert f["mac"] == 0x020000000009
    _, _, qp2 = make_qp(ctx)                                 # modes given at RTR
    qp2.to_init(peer_attr())
    qp2.modify(peer_attr(qp_state=pv.IBV_QPS_RTR, fec=True, selective_repeat=True),
               pv.RTR_MASK | pv.FABNIC_QP_MODES)
    f = decode_qp(nic.cmds(OP_QP)[-1][2])
    assert (f["sr"], f["fec"], f["dcqcn"], f["ipv6"]) == (1, 1, 0, 0)


@pytest.mark.parametrize("state,mask,attr,err,msg", [
    (QpState.RESET, M.IBV_QP_STATE | M.IBV_QP_AV, {"qp_state": QpState.RTR}, v.QpStateError,
     r"QP \d+: RESET -> RTR is not a legal transition \(from RESET: INIT, RESET\)"),
    (QpState.RESET, M.IBV_QP_STATE, {"qp_state": QpState.INIT}, v.QpStateError,
     "RESET -> INIT requires IBV_QP_ACCESS_FLAGS in attr_mask"),
    (QpState.RESET, pv.INIT_MASK | M.IBV_QP_AV, {"qp_state": QpState.INIT}, v.QpStateError,
     "RESET -> INIT does not take IBV_QP_AV"),
    (QpState.INIT, M.IBV_QP_STATE | M.IBV_QP_PATH_MTU, {"qp_state": QpState.RTR},
     v.QpStateError, "INIT -> RTR requires IBV_QP_AV, IBV_QP_RQ_PSN, IBV_QP_DEST_QPN in"),
    (QpState.INIT, pv.RTR_MASK | M.IBV_QP_SQ_PSN, {"qp_state": QpState.RTR}, v.QpStateError,
     "INIT -> RTR does not take IBV_QP_SQ_PSN"),
    (QpState.INIT, M.IBV_QP_STATE, {"qp_state": QpState.RTS}, v.QpStateError,
     "INIT -> RTS is not a legal transition"),
    (QpState.RTR, M.IBV_QP_STATE | M.IBV_QP_SQ_PSN, {"qp_state": QpState.RTS},
     v.QpStateError, "RTR -> RTS requires IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY"),
    (QpState.RTS, M.IBV_QP_STATE | M.IBV_QP_DEST_QPN, {"qp_state": QpState.RTS},
     v.QpStateError, "RTS -> RTS does not take IBV_QP_DEST_QPN"),
    (QpState.RTS, M.IBV_QP_STATE | M.IBV_QP_CUR_STATE,
     {"qp_state": QpState.ERR, "cur_qp_state": QpState.RTR}, v.QpStateError,
     "cur_qp_state RTR but the QP is RTS"),
    (QpState.INIT, M.IBV_QP_QKEY, {}, v.InvalidArgument, "does not implement IBV_QP_QKEY"),
    (QpState.RESET, pv.INIT_MASK, {"pkey_index": 3}, v.InvalidArgument, "one partition"),
    (QpState.RESET, pv.INIT_MASK, {"port_num": 2}, v.InvalidArgument, "one port"),
    (QpState.INIT, pv.RTR_MASK, {"qp_state": QpState.RTR, "ah_attr": None},
     v.InvalidArgument, "IBV_QP_AV without ah_attr"),
    (QpState.INIT, pv.RTR_MASK, {"qp_state": QpState.RTR, "path_mtu": 9}, v.InvalidArgument,
     "IBV_MTU_"),
    (QpState.INIT, pv.RTR_MASK, {"qp_state": QpState.RTR, "rq_psn": 1 << 24},
     v.InvalidArgument, "rq_psn"),
    (QpState.RESET, pv.INIT_MASK | pv.FABNIC_QP_MODES, {"fec": True}, v.InvalidArgument,
     "FEC"),
    (QpState.RESET, pv.INIT_MASK | pv.FABNIC_QP_MODES, {"dcqcn": True}, v.InvalidArgument,
     "DCQCN"),
    (QpState.ERR, pv.INIT_MASK, {"qp_state": QpState.INIT}, v.QpStateError,
     r"ERR -> INIT is not a legal transition \(from ERR: RESET, ERR\)"),
    (QpState.INIT, pv.RTR_MASK, {"qp_state": QpState.RTR,
                                 "ah_attr": pv.AHAttr(dmac=1, dip="1.2.3.4", traffic_class=256)},
     v.InvalidArgument, "traffic_class"),
    (QpState.INIT, pv.RTR_MASK, {"qp_state": QpState.RTR, "ah_attr": pv.AHAttr(dip="1.2.3.4")},
     v.InvalidArgument, "needs dmac"),
])
def test_illegal_modifies_write_nothing(mem: FakeMemory, state: QpState, mask: int,
                                        attr: dict, err: type, msg: str) -> None:
    nic = FakeNic(caps=0x7F)                                 # no FEC
    ctx = pv.Context(nic, mem)
    _, _, qp = make_qp(ctx)
    if state != QpState.RESET:
        {QpState.INIT: qp.to_init, QpState.RTR: qp.to_rtr, QpState.RTS: qp.to_rts,
         QpState.ERR: qp.to_init}[state](peer_attr())
    if state == QpState.ERR:
        qp.modify(QPAttr(qp_state=QpState.ERR), pv.IBV_QP_STATE)
    assert qp.qp_state == state
    n = len(nic.commands)
    a = peer_attr(qp_state=QpState.INIT)
    for k, val in attr.items():
        setattr(a, k, val)
    with pytest.raises(err, match=msg):
        qp.modify(a, mask)
    assert len(nic.commands) == n and qp.qp_state == state


def test_post_needs_the_right_state(ctx: pv.Context) -> None:
    _, _, qp = make_qp(ctx)
    with pytest.raises(v.QpStateError, match="post_recv needs INIT"):
        qp.post_recv(RecvWR(1))
    qp.to_init(peer_attr())
    qp.post_recv(RecvWR(1))                                  # receives may be posted in INIT
    with pytest.raises(v.QpStateError, match="post_send needs RTS"):
        qp.post_send(SendWR(1))


# ---------------------------------------------------------------- one SGE per WQE


def test_one_sge_rule(nic: FakeNic, mem: FakeMemory, ctx: pv.Context) -> None:
    _, _, qp = rts(ctx)
    assert ctx.query_device().max_sge == 1 == pv.MAX_SGE
    two = [SGE(0x1000, 8, 1), SGE(0x2000, 8, 1)]
    before, n_db = bytes(mem.data), len(nic.doorbells)
    with pytest.raises(v.InvalidArgument, match=r"SendWR 1 \(wr_id 7\): 2 SGEs; a fabnic WQE "
                       "carries one scatter/gather element"):
        qp.post_send([SendWR(6, pv.IBV_WR_SEND), SendWR(7, pv.IBV_WR_SEND, sg=two)])
    with pytest.raises(v.InvalidArgument, match=r"RecvWR 0 \(wr_id 8\): 2 SGEs"):
        qp.post_recv(RecvWR(8, 2, two))
    with pytest.raises(v.InvalidArgument, match="num_sge=1 but sg has 2"):
        qp.post_send(SendWR(9, pv.IBV_WR_SEND, num_sge=1, sg=two))
    with pytest.raises(v.InvalidArgument, match="num_sge=1 but sg has 0"):
        qp.post_recv(RecvWR(9, num_sge=1))
    assert bytes(mem.data) == before and len(nic.doorbells) == n_db   # nothing posted
    # zero SGEs: a zero-length message
    qp.post_send(SendWR(10, pv.IBV_WR_SEND))
    s = unpack_sqe(mem.read(qp.handle.sq_ring, 64))
    assert (s["wr_id"], s["length"], s["laddr"], s["lkey"]) == (10, 0, 0, 0)


# ---------------------------------------------------------------- WR packing


def _sqe_of(wr_id: int, op: L.WrOpcode, flags: int, sge: SGE, raddr: int = 0, rkey: int = 0,
            imm: int = 0, cmp_add: int = 0, swap: int = 0) -> bytes:
    return L.Sqe(wr_id=wr_id, opcode=op, flags=flags, len=sge.length, laddr=sge.addr,
                 lkey=sge.lkey, imm=imm, raddr=raddr, rkey=rkey, cmp_add=cmp_add,
                 swap=swap).to_bytes()


@pytest.mark.parametrize("op", list(L.WrOpcode))
def test_send_wr_packs_like_the_layout(nic: FakeNic, mem: FakeMemory, ctx: pv.Context,
                                       op: L.WrOpcode) -> None:
    _, _, qp = rts(ctx, sq=4)
    atomic = op in (L.WrOpcode.ATOMIC_CMP_AND_SWP, L.WrOpcode.ATOMIC_FETCH_AND_ADD)
    sge = SGE(0x1_2345_6789, 8 if atomic else 0x12345, 0xAB01)
    wr = SendWR(wr_id=0x1122334455667788, opcode=op, sg=[sge], imm_data=0xDEADBEEF,
                send_flags=pv.IBV_SEND_SIGNALED | pv.IBV_SEND_SOLICITED | pv.IBV_SEND_FENCE)
    raddr, rkey, cmp_add, swap = 0xFEDC_BA98_7654_3210, 0xCD02, 0, 0
    if atomic:
        cmp_add, swap = 0x0102030405060708, 0x1112131415161718
        wr.set_wr_atomic(rkey, raddr, cmp_add, swap if op == L.WrOpcode.ATOMIC_CMP_AND_SWP
                         else 0)
        swap = swap if op == L.WrOpcode.ATOMIC_CMP_AND_SWP else 0
    elif op in (L.WrOpcode.RDMA_WRITE, L.WrOpcode.RDMA_WRITE_WITH_IMM, L.WrOpcode.RDMA_READ):
        wr.wr = pv.RdmaWR(raddr, rkey)
    else:
        raddr = rkey = 0
    qp.post_send(wr)
    got = mem.read(qp.handle.sq_ring, 64)
    assert got == _sqe_of(wr.wr_id, op, 0b111, sge, raddr, rkey, 0xDEADBEEF, cmp_add, swap)
    s = unpack_sqe(got)                                      # and by the contract table
    assert (s["opcode"], s["flags"], s["length"], s["raddr"], s["rkey"]) == \
        (int(op), 0b111, sge.length, raddr, rkey)
    assert nic.doorbells[-1] == (SQ_DB + 8 * qp.qp_num, 1)


def test_atomic_sge_length_defaults_to_8(mem: FakeMemory, ctx: pv.Context) -> None:
    _, _, qp = rts(ctx)
    qp.post_send(SendWR(1, pv.IBV_WR_ATOMIC_FETCH_AND_ADD, sg=[SGE(0x40, 0, 7)],
                        wr=pv.AtomicWR(0x80, 9, compare_add=3)))
    s = unpack_sqe(mem.read(qp.handle.sq_ring, 64))
    assert (s["length"], s["laddr"], s["raddr"], s["cmp"]) == (8, 0x40, 0x80, 3)


def test_signaling_and_batches(nic: FakeNic, mem: FakeMemory, ctx: pv.Context) -> None:
    _, _, qp = rts(ctx, sq=4)
    sge = SGE(0x5000, 16, 0x101)
    qp.post_send([SendWR(i, pv.IBV_WR_SEND, sg=[sge], send_flags=0) for i in range(3)])
    assert nic.doorbells[-1] == (SQ_DB + 8 * qp.qp_num, 3)   # one doorbell for the batch
    for i in range(3):
        assert mem.read(qp.handle.sq_ring + 64 * i, 64) == \
            _sqe_of(i, L.WrOpcode.SEND, 0, sge)
    _, _, qp2 = make_qp(ctx, sig_all=1)                       # sq_sig_all: always signaled
    qp2.to_rts(peer_attr())
    qp2.post_send(SendWR(5, pv.IBV_WR_SEND, sg=[sge], send_flags=pv.IBV_SEND_FENCE))
    assert mem.read(qp2.handle.sq_ring, 64) == \
        _sqe_of(5, L.WrOpcode.SEND, int(L.SqeFlag.SIGNALED | L.SqeFlag.FENCE), sge)


@pytest.mark.parametrize("wr,msg", [
    (SendWR(1, pv.IBV_WR_RDMA_WRITE, sg=[SGE(0, 4, 1)]), "needs wr=RdmaWR"),
    (SendWR(1, pv.IBV_WR_RDMA_READ, sg=[SGE(0, 4, 1)], wr=pv.AtomicWR(0, 1)), "needs wr=RdmaWR"),
    (SendWR(1, pv.IBV_WR_ATOMIC_FETCH_AND_ADD, sg=[SGE(0, 8, 1)], wr=pv.RdmaWR(0, 1)),
     "needs wr=AtomicWR"),
    (SendWR(1, pv.IBV_WR_ATOMIC_CMP_AND_SWP, sg=[SGE(0, 16, 1)], wr=pv.AtomicWR(0, 1)),
     "8 bytes"),
    (SendWR(1, pv.IBV_WR_SEND, sg=[SGE(0, 4, 1)], wr=pv.RdmaWR(0, 1)), "no remote address"),
    (SendWR(1, pv.IBV_WR_SEND, send_flags=pv.IBV_SEND_INLINE), "INLINE"),
    (SendWR(1, pv.IBV_WR_SEND, send_flags=1 << 6), "unknown send_flags"),
    (SendWR(1, 42), "unknown opcode"),
    (SendWR(1, pv.IBV_WR_SEND, imm_data=1 << 32), "imm"),
])
def test_send_wr_refusals(nic: FakeNic, mem: FakeMemory, ctx: pv.Context, wr: SendWR,
                          msg: str) -> None:
    _, _, qp = rts(ctx)
    before = bytes(mem.data)
    with pytest.raises(v.InvalidArgument, match=msg):
        qp.post_send(wr)
    assert bytes(mem.data) == before and not [d for d in nic.doorbells if d[0] < 0x180000]


def test_recv_wr_packs_like_the_layout(nic: FakeNic, mem: FakeMemory, ctx: pv.Context) -> None:
    _, _, qp = rts(ctx, rq=2)
    qp.post_recv([RecvWR(0xA1, 1, [SGE(0x1_2345_8001, 0x777, 0x1234)]),
                  RecvWR(0xA2, sg=[SGE(0x2000, 0, 0x99)])])
    assert mem.read(qp.handle.rq_ring, 64) == \
        L.Rqe(wr_id=0xA1, addr=0x1_2345_8001, lkey=0x1234, len=0x777).to_bytes() + \
        L.Rqe(wr_id=0xA2, addr=0x2000, lkey=0x99, len=0).to_bytes()
    assert nic.doorbells[-1] == (RQ_DB + 8 * qp.qp_num, 2)
    with pytest.raises(v.QueueFull):
        qp.post_recv(RecvWR(0xA3))


# ---------------------------------------------------------------- completions


def test_aliases_are_the_layout_enums() -> None:
    assert pv.IBV_WC_COMP_SWAP is L.WcOpcode.CMP_AND_SWP
    assert pv.IBV_WC_FETCH_ADD is L.WcOpcode.FETCH_AND_ADD
    assert pv.IBV_WC_RECV_RDMA_WITH_IMM is L.WcOpcode.RECV_RDMA_WITH_IMM
    assert pv.IBV_WC_RETRY_EXC_ERR is L.WcStatus.RETRY_EXC_ERR
    assert pv.IBV_WR_ATOMIC_CMP_AND_SWP is L.WrOpcode.ATOMIC_CMP_AND_SWP
    assert pv.IBV_ACCESS_REMOTE_ATOMIC is L.Access.REMOTE_ATOMIC
    assert pv.IBV_QPS_SQE is L.QpState.SQE and pv.IBV_MTU_4096 is L.PathMtu.MTU_4096
    assert int(pv.IBV_QP_STATE) == 1 and int(pv.IBV_QP_DEST_QPN) == 1 << 20   # libibverbs bits
    assert pv.mask_names(pv.IBV_QP_STATE | pv.IBV_QP_AV) == "IBV_QP_STATE, IBV_QP_AV"
    for name in ("SUCCESS", "LOC_LEN_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR", "REM_ACCESS_ERR",
                 "REM_INV_REQ_ERR", "REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR",
                 "LOC_QP_OP_ERR"):
        assert getattr(pv, f"IBV_WC_{name}") is L.WcStatus[name]


def test_wc_enums_and_poll(nic: FakeNic, mem: FakeMemory, ctx: pv.Context) -> None:
    _, cq, qp = rts(ctx, sq=8, rq=8)
    qp.post_recv([RecvWR(0xB0 + i) for i in range(3)])
    qp.post_send([SendWR(i, pv.IBV_WR_RDMA_WRITE, wr=pv.RdmaWR(0, 0)) for i in range(3)])
    assert cq.poll(8) == (0, [])
    c = cq.handle
    nic_cqe(mem, c, 0, 1, wr_id=0, opcode=0x01, qpn=qp.qp_num, byte_len=64)
    nic_cqe(mem, c, 1, 1, wr_id=0xB0, opcode=0x80, qpn=qp.qp_num, byte_len=100)
    nic_cqe(mem, c, 2, 1, wr_id=0xB1, opcode=0x81, qpn=qp.qp_num, imm=0xCAFEF00D)
    nic_cqe(mem, c, 3, 1, wr_id=1, opcode=0x01, status=4, qpn=qp.qp_num)
    nic_cqe(mem, c, 4, 1, wr_id=2, opcode=0x01, status=0x42, qpn=qp.qp_num)
    n, wcs = cq.poll(2)
    assert n == 2 and nic.doorbells[-1] == (CQ_DB + 8 * cq.cqn, 2)
    assert wcs[0] == pv.WC(wr_id=0, status=pv.IBV_WC_SUCCESS, opcode=pv.IBV_WC_RDMA_WRITE,
                           byte_len=64, qp_num=qp.qp_num)
    assert isinstance(wcs[0].status, L.WcStatus) and isinstance(wcs[0].opcode, L.WcOpcode)
    assert (wcs[1].opcode, wcs[1].byte_len, wcs[1].wc_flags) == \
        (pv.IBV_WC_RECV, 100, pv.WcFlags.NONE)
    n, wcs = cq.poll(8)
    assert n == 3
    assert (wcs[0].opcode, wcs[0].imm_data, wcs[0].wc_flags) == \
        (pv.IBV_WC_RECV_RDMA_WITH_IMM, 0xCAFEF00D, pv.IBV_WC_WITH_IMM)
    assert wcs[1].status is pv.IBV_WC_REM_ACCESS_ERR and not wcs[1].ok
    assert wcs[2].status == 0x42 and not isinstance(wcs[2].status, L.WcStatus)  # kept as int
    assert qp.qp_state == pv.IBV_QPS_ERR                     # error completions move RC to ERR
    nic_cqe(mem, c, 5, 1, wr_id=0xB2, opcode=0x80, status=3, qpn=qp.qp_num)
    assert [(w.wr_id, w.status) for w in cq.wait(1)] == [(0xB2, pv.IBV_WC_WR_FLUSH_ERR)]
    cq.req_notify()
    assert nic.doorbells[-1] == (CQ_DB + 8 * cq.cqn, 6 | 1 << 31)
    with pytest.raises(v.InvalidArgument, match="solicited"):
        cq.req_notify(solicited_only=True)
    calls: list[int] = []
    with pytest.raises(v.CommandTimeout, match="0 of 1 completions after 3 polls"):
        cq.wait(1, max_polls=3, idle=lambda: calls.append(1))
    assert len(calls) == 3


def test_old_context_calls_share_the_implementation(nic: FakeNic, mem: FakeMemory,
                                                    ctx: pv.Context) -> None:
    """The previous Context-method shape works on the same objects (one release)."""
    _, cq, qp = rts(ctx)
    ctx.driver.post_send(qp.handle, v.SendWR("SEND", wr_id=3, local_addr=0x10, length=4,
                                             lkey=1))
    nic_cqe(mem, cq.handle, 0, 1, wr_id=3, opcode=0, qpn=qp.qp_num, byte_len=4)
    assert ctx.driver.poll_cq(cq.handle) == [v.WorkCompletion(3, "SUCCESS", "SEND", 4, None,
                                                              qp.qp_num)]
    assert qp.handle.sq_free == qp.cap.max_send_wr


# ---------------------------------------------------------------- end to end on SoftNic


@pytest.mark.parametrize("seed,loopback,error", [(11, True, None), (12, False, None),
                                                 (13, False, "bounds"),
                                                 (14, True, "recv_too_small"),
                                                 (21, False, None), (23, False, "pd")])
def test_pyverbs_program_on_soft_nic(seed: int, loopback: bool, error: str | None) -> None:
    """A random scenario of rc_model run through the object API on SoftNic: memory and
    completions as the model expects."""
    s = random_scenario(seed, n_wrs=60, max_len=400, loopback=loopback, error=error)
    model = RcModel()
    nodes = ["a"] if loopback else ["a", "b"]
    mems = {n: FakeMemory(1 << 20) for n in nodes}
    nics = {n: SoftNic(model, n, "a" if loopback else ("b" if n == "a" else "a"), mems[n])
            for n in nodes}
    ctxs = {n: pv.Context(nics[n], mems[n]) for n in nodes}
    bases = {}
    for n in nodes:
        bases[n] = mems[n].alloc(len(s.mem[n]))
        mems[n].write(bases[n], s.mem[n])
    pds = {n: (pv.PD(ctxs[n]), pv.PD(ctxs[n])) for n in nodes}
    keys = {m.name: pv.MR(pds[m.node][m.pd], m.length, m.access,
                          address=bases[m.node] + m.offset).lkey for m in s.mrs}
    assert pds["a"][0].pdn == 1 and pds["a"][1].pdn == 2
    cqs = {q: pv.CQ(ctxs[s.node_of(q)], 64) for q in ("a", "b")}   # wraps once
    qps = {q: pv.QP(pds[s.node_of(q)][0],
                    pv.QPInitAttr(qp_type=pv.IBV_QPT_RC, scq=cqs[q], rcq=cqs[q],
                                  cap=pv.QPCap(max_send_wr=16, max_recv_wr=64), sq_sig_all=0))
           for q in ("a", "b")}
    for q in ("a", "b"):
        qps[q].to_init(QPAttr(qp_access_flags=s.qp_access))
    for q, other in (("a", "b"), ("b", "a")):
        qps[q].to_rts(peer_attr(qp_access_flags=s.qp_access, dest_qp_num=qps[other].qp_num,
                                rq_psn=0, sq_psn=0))
    got: dict[str, list[pv.WC]] = {"a": [], "b": []}

    def drain() -> None:
        for nic in nics.values():
            nic.deliver()
        for q in ("a", "b"):
            got[q] += cqs[q].poll(128)[1]

    for kind, q, wr in s.bind(bases, keys):
        if kind == "recv":
            assert isinstance(wr, v.RecvWR)
            qps[q].post_recv(RecvWR(wr.wr_id, sg=[SGE(wr.addr, wr.length, wr.lkey)]))
        else:
            assert isinstance(wr, v.SendWR)
            if not qps[q].handle.sq_free:
                drain()
            qps[q].post_send(to_pyverbs_send(wr))    # QueueFull here: a slot leak
    drain()
    qpns = {q: qps[q].qp_num for q in ("a", "b")}
    assert (qpns["a"], qpns["b"]) == ((2, 3) if loopback else (2, 2))
    exp = s.expected(bases, keys, qpns)
    for n in nodes:
        off = bases[n] - mems[n].BASE
        assert exp.memory_mismatches(n, bytes(mems[n].data[off:off + len(s.mem[n])])) == []
    for q in ("a", "b"):
        k = (s.node_of(q), qpns[q])
        split = split_wcs([as_work_completion(w) for w in got[q]])
        assert compare_wcs(exp.send_wcs[k], split.get((qpns[q], "send"), [])) == []
        assert compare_wcs(exp.recv_wcs[k], split.get((qpns[q], "recv"), [])) == []
        assert qps[q].handle.sq_free == qps[q].cap.max_send_wr   # every slot came back
    wcs = got["a"] + got["b"]
    assert all(isinstance(w.status, L.WcStatus) for w in wcs)
    assert (error is None) == all(w.ok for w in wcs)
    assert error or len(wcs) > 60
    for c in ctxs.values():
        c.close()
    assert not any(nic.mr_keys for nic in nics.values())      # every MR deregistered
