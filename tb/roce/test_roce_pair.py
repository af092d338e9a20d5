# SPDX-License-Identifier: Apache-2.0
"""Two fabnic RoCE NICs (tb_roce_pair) driven through the fw/ verbs API: every opcode,
memory contents and completions checked against tb/roce/rc_model-style expectations
computed independently in Python; the wire re-parsed with scapy (ICRC checked)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from fabnic_tb.runner import run

HERE = Path(__file__).parent

try:
    import cocotb
    from cocotb.triggers import ClockCycles, Event, RisingEdge
    from rc_model import random_scenario
    from roce_env import PairEnv, check_wire, random_mix
    from scoreboard import RcScoreboard

    from fabnic import verbs
    from fabnic.verbs import Access, RecvWR, SendWR, WrOpcode
    from fabnic_tb.fw_bus import run_driver
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

ACC = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
# Cycles an RNR resend may come after the requester's timer lets it go: the NAK's way from
# the wire to the completer, the timer sweep reaching the QP (64 QPs, a few cycles a
# visit), the rewind event, the requester's SQE re-read from host memory and the frame's
# way out to its last beat on the wire.
RNR_SLACK = 2000

if cocotb is not None:

    @cocotb.test()
    async def basic_ops(dut):
        """WRITE, SEND_IMM, READ, FAA and CAS once each, A -> B, through the pyverbs-shaped
        object API (fabnic.pyverbs): data, completion status/opcode/byte_len/immediate and
        the wire checked against independent expectations."""
        from fabnic import pyverbs as pv
        from fabnic.pyverbs import SGE, AtomicWR, RdmaWR

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_basic.pcap")))
        await env.start()
        qa, qb, cqa, cqb, pda, pdb = await env.connect_rc(ACC, mtu=1024)
        rng = random.Random(1)
        n = 3000
        src = bytes(rng.randrange(256) for _ in range(n))
        mra = await run_driver(pv.MR, pda, 1 << 16, ACC)      # buffers allocated, zeroed
        mrb = await run_driver(pv.MR, pdb, 1 << 16, ACC)
        la, lb = mra.buf, mrb.buf
        mra.write(src)

        # RDMA WRITE 3000 B (3 packets at MTU 1024) to lb+100
        await run_driver(qa.post_send, pv.SendWR(
            wr_id=11, opcode=pv.IBV_WR_RDMA_WRITE, sg=[SGE(la, n, mra.lkey)],
            wr=RdmaWR(lb + 100, mrb.rkey)))
        wcs = await run_driver(cqa.wait, 1)
        assert [(w.wr_id, w.status, w.opcode, w.qp_num) for w in wcs] == \
            [(11, pv.IBV_WC_SUCCESS, pv.IBV_WC_RDMA_WRITE, qa.qp_num)], wcs
        assert await run_driver(cqa.poll, 4) == (0, [])
        assert mrb.read(n, 100) == src
        assert mrb.read(16, 100 + n) == bytes(16)
        assert mrb.read(16, 84) == bytes(16)
        dut._log.info("WRITE ok at cycle %d", env.cycle)

        # SEND with immediate into a posted receive
        mrr = await run_driver(pv.MR, pdb, 4096, ACC)
        await run_driver(qb.post_recv, pv.RecvWR(wr_id=21, num_sge=1,
                                                 sg=[SGE(mrr.buf, 4096, mrr.lkey)]))
        await run_driver(qa.post_send, pv.SendWR(
            wr_id=12, opcode=pv.IBV_WR_SEND_WITH_IMM, imm_data=0x11223344,
            sg=[SGE(la, 1500, mra.lkey)]))
        wcs = await run_driver(cqa.wait, 1)
        assert [(w.wr_id, w.status, w.opcode) for w in wcs] == \
            [(12, pv.IBV_WC_SUCCESS, pv.IBV_WC_SEND)], wcs
        wcs = await run_driver(cqb.wait, 1)
        w = wcs[0]
        assert (w.wr_id, w.status, w.opcode, w.byte_len, w.qp_num) == \
            (21, pv.IBV_WC_SUCCESS, pv.IBV_WC_RECV, 1500, qb.qp_num), wcs
        assert w.wc_flags & pv.IBV_WC_WITH_IMM and w.imm_data == 0x11223344, w
        assert mrr.read(1500) == src[:1500]
        dut._log.info("SEND ok at cycle %d: %s", env.cycle, w)

        # READ 2500 B from B into A
        rsrc = bytes(rng.randrange(256) for _ in range(2500))
        mrb.write(rsrc, offset=8192)
        await run_driver(qa.post_send, pv.SendWR(
            wr_id=13, opcode=pv.IBV_WR_RDMA_READ, sg=[SGE(la + 8192, 2500, mra.lkey)],
            wr=RdmaWR(lb + 8192, mrb.rkey)))
        wcs = await run_driver(cqa.wait, 1)
        assert [(w.wr_id, w.status, w.opcode, w.byte_len) for w in wcs] == \
            [(13, pv.IBV_WC_SUCCESS, pv.IBV_WC_RDMA_READ, 2500)], wcs
        assert mra.read(2500, 8192) == rsrc
        dut._log.info("READ ok at cycle %d", env.cycle)

        # atomics on an 8-byte word of B (posted together: one doorbell)
        mrb.write((1000).to_bytes(8, "little"), offset=16384)
        faa = pv.SendWR(wr_id=14, opcode=pv.IBV_WR_ATOMIC_FETCH_AND_ADD,
                        sg=[SGE(la + 16384, 8, mra.lkey)],
                        wr=AtomicWR(lb + 16384, mrb.rkey, compare_add=5))
        cas = pv.SendWR(wr_id=15, opcode=pv.IBV_WR_ATOMIC_CMP_AND_SWP,
                        sg=[SGE(la + 16392, 8, mra.lkey)])
        cas.set_wr_atomic(mrb.rkey, lb + 16384, compare_add=1005, swap=77)
        await run_driver(qa.post_send, [faa, cas])
        wcs = await run_driver(cqa.wait, 2)
        assert [(w.wr_id, w.status, w.opcode) for w in wcs] == \
            [(14, pv.IBV_WC_SUCCESS, pv.IBV_WC_FETCH_ADD),
             (15, pv.IBV_WC_SUCCESS, pv.IBV_WC_COMP_SWAP)], wcs
        assert int.from_bytes(mra.read(8, 16384), "little") == 1000
        assert int.from_bytes(mra.read(8, 16392), "little") == 1005
        assert int.from_bytes(mrb.read(8, 16384), "little") == 77
        attr, init = await run_driver(qa.query)
        assert attr.qp_state == pv.IBV_QPS_RTS and attr.dest_qp_num == qb.qp_num, attr
        assert init.cap.max_send_wr == 64 and init.send_cq is cqa, init
        await ClockCycles(dut.clk, 50)
        seen = check_wire(env.frames)
        dut._log.info("wire: %d frames re-parsed, opcodes %s", len(env.frames), seen)
        dut._log.info("counters A %s", await run_driver(env.a.context.counters))
        dut._log.info("counters B %s", await run_driver(env.b.context.counters))

    @cocotb.test()
    async def lossy_mix(dut):
        """rc_model's random mix (every RC opcode, both directions, 40 WRs of 0-7,000 B,
        unaligned buffers, unsignaled WRs) over links losing 5% of frames each way:
        go-back-N (sequence NAKs, timeouts) must reproduce the model exactly -- both
        memories byte for byte and every completion (tb/roce/scoreboard.py)."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_lossy.pcap")))
        await env.start()
        loss = float(os.environ.get("ROCE_LOSS", "0.05"))
        for L, seed in (("lab", 7), ("lba", 9)):
            env.link(L, loss_en=1, loss_p=int(loss * 2**32), seed=seed)
        sb = RcScoreboard(env)
        seed = int(os.environ.get("ROCE_MIX_SEED", "5"))
        await sb.add(random_scenario(seed, n_wrs=40, max_len=7000), timeout=2)
        dut._log.info("mix: %s", sb.summary())
        await sb.post()
        try:
            diff = await sb.check()
        except Exception:
            dut._log.error("A %s", await run_driver(env.a.ctx.counters))
            dut._log.error("B %s", await run_driver(env.b.ctx.counters))
            raise
        assert not diff, "\n".join(diff)
        ca = await run_driver(env.a.ctx.counters)
        cb = await run_driver(env.b.ctx.counters)
        dut._log.info("lossy mix done at cycle %d; A %s; B %s", env.cycle, ca, cb)
        check_wire(env.frames)
        drops = int(dut.lab_cnt_drops.value) + int(dut.lba_cnt_drops.value)
        retx = ca["tx_retx_pkts"] + cb["tx_retx_pkts"]
        dut._log.info("link drops %d, retransmitted %d", drops, retx)
        if loss > 0:
            assert drops > 0 and retx > 0, "nothing lost: recovery not exercised"

    @cocotb.test()
    async def ipv6_mix(dut):
        """RoCEv2 over IPv6 through both engines (RFC 8200 header, IBTA annex A17 ICRC
        masking of the traffic class and flow label): both NICs have IPv6 addresses,
        four QP pairs each run an rc_model random mix (every RC opcode, both
        directions), two of them selective-repeat, over links losing 2% each way (NAKs,
        SACKs, retransmissions and READ responses all cross IPv6). Completions and both
        memories against rc_model; every frame re-parsed with scapy (check_wire: UDP
        4791, extension headers, pad, ICRC from the masking rules), and every frame is
        IPv6 between the two addresses."""
        import ipaddress

        from scapy.layers.inet import IP
        from scapy.layers.inet6 import IPv6
        from scapy.layers.l2 import Ether

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_ipv6.pcap")), ipv6=True)
        await env.start()
        for L, seed in (("lab", 3), ("lba", 4)):
            env.link(L, loss_en=1, loss_p=int(0.02 * 2**32), seed=seed)
        sb = RcScoreboard(env)
        seed = int(os.environ.get("ROCE_MIX_SEED", "6"))
        for i in range(4):
            await sb.add(random_scenario(seed * 10 + i, n_wrs=12, max_len=5000), timeout=2,
                         sr=i % 2 == 1, sq_psn=(0x300 + 0x1000 * i, 0xFFFFF0 + i))
        dut._log.info("mix: %s", sb.summary())
        await sb.post()
        diff = await sb.check()
        assert not diff, "\n".join(diff)
        seen = check_wire(env.frames)
        addrs = {ipaddress.ip_address(env.a.ip), ipaddress.ip_address(env.b.ip)}
        for side, f in env.frames:
            p = Ether(f)
            assert IPv6 in p and IP not in p, f"{side}: not an IPv6 frame: {f[:64].hex()}"
            assert {ipaddress.ip_address(p[IPv6].src),
                    ipaddress.ip_address(p[IPv6].dst)} == addrs, f"{side}: addresses"
            assert p[IPv6].nh == 17 and p[IPv6].hlim > 0, f"{side}: next header / hop limit"
        retx = 0
        for n in (env.a, env.b):
            retx += (await run_driver(n.ctx.counters))["tx_retx_pkts"]
        dut._log.info("IPv6 mix: %d frames, opcodes %s, retransmitted %d",
                      len(env.frames), sorted(seen), retx)
        assert retx > 0, "nothing lost: recovery over IPv6 not exercised"

    @cocotb.test()
    async def model_errors(dut):
        """One lane per rc_model error kind (bounds, rights, PD, receive too small,
        misaligned atomic), each a random mix in which QP a's middle WR fails that way:
        the error completion, the flush of everything behind it on both QPs (posted
        receives included) and both memories exactly as rc_model predicts; the lanes run
        at once, so one QP's error leaves the other QPs alone."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_model_errors.pcap")))
        await env.start()
        sb = RcScoreboard(env)
        kinds = ("bounds", "rights", "pd", "recv_too_small", "misaligned_atomic")
        for i, kind in enumerate(kinds):
            await sb.add(random_scenario(70 + i, n_wrs=10, max_len=2000, error=kind),
                         timeout=3, retry_cnt=2, sq_psn=(0x10 + 0x100 * i, 0x20 + 0x100 * i))
        dut._log.info("mix: %s", sb.summary())
        await sb.post()
        diff = await sb.check()
        assert not diff, "\n".join(diff)
        statuses = sorted({w.status for lane in sb.lanes for q in "ab" for w in lane.got[q]})
        dut._log.info("model errors done at cycle %d: statuses %s", env.cycle, statuses)
        assert {"REM_ACCESS_ERR", "REM_INV_REQ_ERR", "WR_FLUSH_ERR"} <= set(statuses), statuses
        check_wire(env.frames)

    @cocotb.test()
    async def hostile_under_load(dut):
        """Third-party frames into B while A's random WRITE/SEND/READ mix runs on a clean
        link: malformed variants of every header field (tb/roce/test_roce_rx's generator),
        well-formed requests and responses at PSNs the sender cannot know (some carrying
        B's real rkey and an address outside its region), CNPs. The mix completes exactly;
        memory around B's region is untouched; every front drop is counted under the
        reason the rule model (test_roce_rx.model, written from docs/roce.md) gives it;
        the counters add up; no QP enters ERR; no forged ACK/NAK is acted upon."""
        import struct

        import test_roce_rx as trx
        from cocotbext.axi import AxiStreamBus, AxiStreamSource

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_hostile.pcap")))
        await env.start()
        a, b = env.a, env.b
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=2)
        qa2, qb2, cqa2, cqb2, _pda2, _pdb2 = await env.connect(ACC, mtu=1024, timeout=2)
        rng = random.Random(int(os.environ.get("ROCE_HOSTILE_SEED", "11")))
        size = 1 << 17                           # random_mix uses up to 24 x 4.2 KB per half
        guard_lo = b.mem.alloc(4096)
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        guard_hi = b.mem.alloc(4096)
        a_img = bytearray(rng.randbytes(size))
        b_img = bytearray(rng.randbytes(size))
        guards = {g: rng.randbytes(4096) for g in (guard_lo, guard_hi)}
        a.mem.write(la, bytes(a_img))
        b.mem.write(lb, bytes(b_img))
        for g, v in guards.items():
            b.mem.write(g, v)
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
        wrs, recvs, expect_recv = random_mix(rng, 24, [0, 1, 63, 1024, 1500, 4096], size,
                                             la, lb, mra, mrb, a_img, b_img)

        # the corpus, with the model's verdict for each frame
        trx.LOCAL_MAC = b.mac
        trx.FIFO_DEPTH = 256                     # fabnic_roce_rx default in the core
        mtu = [0] * trx.NUM_QP
        for q in (qb.qpn, qb2.qpn):
            mtu[q] = 3                            # 1024
        cfg = trx.Cfg(b.ip, 1, mtu)
        targets = [qb.qpn, qb2.qpn, qb.qpn, 0, 1, trx.NUM_QP - 1]
        corpus, expect = [], {}
        while len(corpus) < int(os.environ.get("ROCE_HOSTILE_N", "240")):
            if rng.random() < 0.7:
                f, user = trx.hostile(rng, cfg, targets)
            else:
                f, user = trx.legit(rng, cfg, qpn=rng.choice(targets)), 0
            if user:
                continue                          # the injector carries no tuser
            f = bytearray(f)
            l3 = trx.l3_of(f)
            l4 = l3 + 20
            if len(f) > l4 + 36 and f[l4 + 8] in (0x06, 0x0A, 0x0B, 0x0C) and rng.random() < 0.5:
                # B's real rkey, an address just outside its region
                va = rng.choice([guard_lo, guard_hi, lb + size - 8])
                f[l4 + 20:l4 + 32] = struct.pack("!QI", va, mrb.rkey)
                f = bytearray(trx.fix(bytes(f)))
            outcome, _ = trx.model(bytes(f), 0, cfg)
            corpus.append(bytes(f))
            expect[outcome] = expect.get(outcome, 0) + 1
        dut._log.info("corpus of %d frames: %s", len(corpus), expect)

        inj = AxiStreamSource(AxiStreamBus.from_prefix(dut, "inj"), dut.clk, dut.rst)
        inj.log.setLevel("WARNING")
        b0 = await run_driver(b.ctx.counters)
        a0 = await run_driver(a.ctx.counters)
        lab0 = int(dut.lab_cnt_frames_in.value)
        await run_driver(b.ctx.post_recv, qb, recvs)
        await run_driver(a.ctx.post_send, qa, wrs)

        async def spray():
            for f in corpus:
                await inj.send(f)
                await ClockCycles(dut.clk, rng.randrange(1, 40))
            await inj.wait()
        sprayer = cocotb.start_soon(spray())
        wcs = await run_driver(a.ctx.wait_cq, cqa, len(wrs), 60000)
        await sprayer
        assert [w.wr_id for w in wcs] == [w.wr_id for w in wrs], wcs
        assert all(w.ok for w in wcs), [w for w in wcs if not w.ok]
        rwcs = await run_driver(b.ctx.wait_cq, cqb, len(recvs), 20000)
        assert [(w.wr_id, w.byte_len) for w in rwcs] == expect_recv, rwcs
        await ClockCycles(dut.clk, 3000)         # the front drains; answers to forgeries
        assert a.mem.read(la, size) == bytes(a_img), "A memory"
        assert b.mem.read(lb, size) == bytes(b_img), "B memory"
        for g, v in guards.items():
            assert b.mem.read(g, 4096) == v, f"B memory outside the region at {g:#x}"
        b1 = await run_driver(b.ctx.counters)
        a1 = await run_driver(a.ctx.counters)
        d = {k: b1[k] - b0[k] for k in b1}
        da = {k: a1[k] - a0[k] for k in a1}
        dut._log.info("B %s", {k: v for k, v in d.items() if v})
        dut._log.info("A %s", {k: v for k, v in da.items() if v})
        legit_in = int(dut.lab_cnt_frames_in.value) - lab0
        reasons = [r for r in trx.DROPS]
        for r in reasons:
            assert d[f"rx_drop_{r}"] == expect.get(r, 0), (r, d[f"rx_drop_{r}"], expect)
        assert d["rx_cnp"] == expect.get("cnp", 0), d
        assert d["rx_roce"] == legit_in + expect.get("req", 0) + expect.get("rsp", 0), d
        assert d["rx_frames"] == legit_in + len(corpus), d
        assert d["rx_frames"] == d["rx_roce"] + d["rx_cnp"] + sum(
            d[f"rx_drop_{r}"] for r in reasons), d
        # B sent nothing that asked for a reply: every response-side frame it got is
        # forged, and none may be acted upon
        assert d["rx_acks"] == 0 and d["rx_naks"] == 0, d
        for ctx, q in ((a.ctx, qa), (a.ctx, qa2), (b.ctx, qb), (b.ctx, qb2)):
            qq = await run_driver(ctx.query_qp, q)
            assert qq.state == verbs.QpState.RTS and not qq.error, (q.qpn, qq)
        # both QPs still carry traffic both ways (WRITE, and a READ back)
        mra2 = await run_driver(a.ctx.reg_mr, _pda2, la, size, ACC)
        mrb2 = await run_driver(b.ctx.reg_mr, _pdb2, lb, size, ACC)
        for q, cq, ma, mb, off in ((qa, cqa, mra, mrb, 0), (qa2, cqa2, mra2, mrb2, 4096)):
            await run_driver(a.ctx.post_send, q, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=77, local_addr=la + off, length=3000,
                       lkey=ma.lkey, remote_addr=lb + off, rkey=mb.rkey),
                SendWR(WrOpcode.RDMA_READ, wr_id=78, local_addr=la + size // 2 + off,
                       length=3000, lkey=ma.lkey, remote_addr=lb + off, rkey=mb.rkey)])
            w2 = await run_driver(a.ctx.wait_cq, cq, 2, 20000)
            assert [w.wr_id for w in w2] == [77, 78] and all(w.ok for w in w2), (q.qpn, w2)
            assert b.mem.read(lb + off, 3000) == bytes(a_img[off:off + 3000])
            assert a.mem.read(la + size // 2 + off, 3000) == bytes(a_img[off:off + 3000])

    @cocotb.test()
    async def multi_qp_mix(dut):
        """Twelve QP pairs, each with its own rc_model random mix (every RC opcode, both
        directions, 4-8 WRs), all posted at once over lossy, reordering links: the
        requester's cross-QP SQE prefetch serves most visits while go-back-N rewinds
        land on prefetched QPs. The scoreboard (tb/roce/scoreboard.py) checks every
        lane's memories and completions against rc_model."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_multi_qp.pcap")))
        await env.start()
        sb = RcScoreboard(env)
        for i in range(12):
            await sb.add(random_scenario(41 + i, n_wrs=4 + i % 5, max_len=3000), timeout=3,
                         sq_psn=(0x100 + 0x1000 * i, 0xFFFF00 + i))
        dut._log.info("mix: %s", sb.summary())
        for L, seed in (("lab", 31), ("lba", 37)):
            env.link(L, loss_en=1, loss_p=int(0.02 * 2**32), reorder_en=1,
                     reorder_p=int(0.03 * 2**32), seed=seed)
        a = env.a

        # count the requester's prefetched visits (and stale prefetches) on NIC A
        req = dut.u_a.u_req
        seen = {"pf": 0, "redo": 0}
        done = False

        async def probe():
            while not done:
                await RisingEdge(dut.clk)
                seen["pf"] += int(req.take_pf.value)
                seen["redo"] += int(req.redo_q.value) & int(req.s_rd_tlast.value) \
                    & int(req.s_rd_tvalid.value)
        task = cocotb.start_soon(probe())

        await sb.post()
        try:
            diff = await sb.check()
        except Exception:
            dut._log.error("A %s", await run_driver(a.ctx.counters))
            dut._log.error("B %s", await run_driver(env.b.ctx.counters))
            raise
        assert not diff, "\n".join(diff)
        done = True
        await task
        ca = await run_driver(a.ctx.counters)
        cb = await run_driver(env.b.ctx.counters)
        retx = ca["tx_retx_pkts"] + cb["tx_retx_pkts"]
        drops = int(dut.lab_cnt_drops.value) + int(dut.lba_cnt_drops.value)
        dut._log.info("multi-QP mix: %s, %d prefetched visits at A (%d stale), "
                      "link drops %d, retransmitted %d, cycle %d",
                      sb.summary(), seen["pf"], seen["redo"], drops, retx, env.cycle)
        check_wire(env.frames)
        assert drops > 0 and retx > 0, "nothing lost: recovery not exercised"
        assert seen["pf"] > 0, "no visit went through the SQE prefetch"

    @cocotb.test()
    async def drop_cases(dut):
        """Deterministic single drops (the link's drop list): a middle WRITE packet
        (sequence NAK, go-back-N), the ACK (timeout), a READ response (timeout, READ
        re-issued for the rest)."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_drops.pcap")))
        await env.start()
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=2)
        a, b = env.a, env.b
        rng = random.Random(3)
        size = 1 << 16
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        src = bytes(rng.randrange(256) for _ in range(size))
        a.mem.write(la, src)
        b.mem.write(lb, src[::-1])
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)

        async def one(label, link, index, wr, check):
            fin = int(getattr(dut, f"{link}_cnt_frames_in").value)
            env.link(link, drop_list=(fin + index), drop_list_en=1)
            await run_driver(a.ctx.post_send, qa, [wr])
            wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 20000)
            env.link(link, drop_list_en=0)
            assert wcs[0].ok and wcs[0].wr_id == wr.wr_id, (label, wcs)
            check()
            c = await run_driver(a.ctx.counters)
            dut._log.info("%s recovered at cycle %d: retx=%d timeouts=%d naks=%d", label,
                          env.cycle, c["tx_retx_pkts"], c["timeouts"], c["rx_naks"])

        await one("write middle", "lab", 1,
                  SendWR(WrOpcode.RDMA_WRITE, wr_id=1, local_addr=la, length=3000, lkey=mra.lkey,
                         remote_addr=lb + 100, rkey=mrb.rkey),
                  lambda: None)
        assert b.mem.read(lb + 100, 3000) == src[:3000]
        await one("ack", "lba", 0,
                  SendWR(WrOpcode.RDMA_WRITE, wr_id=2, local_addr=la + 4096, length=2000,
                         lkey=mra.lkey, remote_addr=lb + 8192, rkey=mrb.rkey),
                  lambda: None)
        assert b.mem.read(lb + 8192, 2000) == src[4096:6096]
        await one("read response", "lba", 1,
                  SendWR(WrOpcode.RDMA_READ, wr_id=3, local_addr=la + 16384, length=3000,
                         lkey=mra.lkey, remote_addr=lb + 20000, rkey=mrb.rkey),
                  lambda: None)
        assert a.mem.read(la + 16384, 3000) == b.mem.read(lb + 20000, 3000)

    @cocotb.test()
    async def error_cases(dut):
        """Remote access violations (stale rkey, wrong PD, out of bounds, missing rights):
        REM_ACCESS_ERR, later WRs flushed, QP in ERR, the responder's QP in ERR with its
        receives flushed, peer memory untouched, and another QP pair keeps working. Unknown QPN: dropped and counted, retries exhausted.
        ICRC corruption: dropped, counted, recovered. RNR: NAKs until a receive is posted.
        A prefetched receive WQE is re-checked when an MR was written after its check."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_errors.pcap")))
        await env.start()
        a, b = env.a, env.b
        size = 1 << 14
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        rng = random.Random(11)
        a.mem.write(la, bytes(rng.randrange(256) for _ in range(size)))
        b.mem.write(lb, bytes(rng.randrange(256) for _ in range(size)))
        good = await env.connect(ACC, timeout=2)
        qa0, qb0, cqa0, cqb0, pda0, pdb0 = good
        mra0 = await run_driver(a.ctx.reg_mr, pda0, la, size, ACC)
        mrb0 = await run_driver(b.ctx.reg_mr, pdb0, lb, size, ACC)

        async def healthy(tag):
            off = rng.randrange(0, size // 2)
            await run_driver(a.ctx.post_send, qa0, [SendWR(WrOpcode.RDMA_WRITE, wr_id=tag,
                             local_addr=la + off, length=777, lkey=mra0.lkey,
                             remote_addr=lb + size // 2 + off // 2, rkey=mrb0.rkey)])
            wc = (await run_driver(a.ctx.wait_cq, cqa0, 1, 20000))[0]
            assert wc.ok and wc.wr_id == tag, wc
            assert b.mem.read(lb + size // 2 + off // 2, 777) == a.mem.read(la + off, 777)

        async def violation(name, make_mr, wr_kw):
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=2)
            mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
            mrb = await make_mr(pdb)
            before = b.mem.read(lb, size)
            cnt0 = (await run_driver(b.ctx.counters))["rx_access_err"]
            kw = dict(local_addr=la, length=256, lkey=mra.lkey, remote_addr=lb + 64,
                      rkey=mrb.rkey)
            kw.update(wr_kw(mrb))
            # two receives posted at B: flushed when B's side enters ERR
            rmr = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
            await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=0x50 + j, addr=lb + 1024 * j,
                                                         length=512, lkey=rmr.lkey)
                                                  for j in range(2)])
            wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=1, **kw),
                   SendWR(WrOpcode.RDMA_WRITE, wr_id=2, local_addr=la, length=64, lkey=mra.lkey,
                          remote_addr=lb + 4096, rkey=mrb0.rkey)]
            await run_driver(a.ctx.post_send, qa, wrs)
            wcs = await run_driver(a.ctx.wait_cq, cqa, 2, 20000)
            assert [(w.wr_id, w.status) for w in wcs] == [(1, "REM_ACCESS_ERR"),
                                                         (2, "WR_FLUSH_ERR")], (name, wcs)
            q = await run_driver(a.ctx.query_qp, qa)
            assert q.state == verbs.QpState.ERR, (name, q)
            assert b.mem.read(lb, size) == before, f"{name}: peer memory changed"
            cnt1 = (await run_driver(b.ctx.counters))["rx_access_err"]
            assert cnt1 == cnt0 + 1, (name, cnt0, cnt1)
            # the responder QP is in ERR too (IBA class J): its posted receives complete
            # flushed, in order, and so does one posted after
            qbq = await run_driver(b.ctx.query_qp, qb)
            assert qbq.state == verbs.QpState.ERR, (name, qbq)
            rw = await run_driver(b.ctx.wait_cq, cqb, 2, 20000)
            await run_driver(b.ctx.post_recv, qb, RecvWR(wr_id=0x52, addr=lb, length=512,
                                                         lkey=rmr.lkey))
            rw += await run_driver(b.ctx.wait_cq, cqb, 1, 20000)
            assert [(w.wr_id, w.status) for w in rw] == \
                [(0x50 + j, "WR_FLUSH_ERR") for j in range(3)], (name, rw)
            assert b.mem.read(lb, size) == before, f"{name}: peer memory changed"
            await healthy(100 + len(name))
            dut._log.info("%s: REM_ACCESS_ERR, flushed, memory untouched", name)

        async def mr_ok(pd):
            return await run_driver(b.ctx.reg_mr, pd, lb, size, ACC)

        async def mr_other_pd(pd):
            pd2 = await run_driver(b.ctx.alloc_pd)
            return await run_driver(b.ctx.reg_mr, pd2, lb, size, ACC)

        async def mr_no_write(pd):
            return await run_driver(b.ctx.reg_mr, pd, lb, size,
                                    Access.LOCAL_WRITE | Access.REMOTE_READ)

        await violation("stale rkey", mr_ok, lambda m: {"rkey": m.rkey ^ 0x01})
        await violation("wrong PD", mr_other_pd, lambda m: {})
        await violation("out of bounds", mr_ok, lambda m: {"remote_addr": lb + size - 100})
        await violation("no remote write", mr_no_write, lambda m: {})

        # unknown destination QP (>= NUM_QP at B): dropped and counted; retries run out
        num_qp = int(dut.NUM_QP.value)

        def lonely(ctx):
            pd = ctx.alloc_pd()
            cq = ctx.create_cq(16)
            qp = ctx.create_qp(pd, cq, cq, sq_depth=8, rq_depth=8)
            ctx.modify_qp(qp, verbs.QpState.INIT, access=ACC)
            ctx.modify_qp(qp, verbs.QpState.RTR, dest_qpn=num_qp + 36, rq_psn=0, path_mtu=1024,
                          dest_mac=b.mac, dest_ip=b.ip)
            ctx.modify_qp(qp, verbs.QpState.RTS, sq_psn=0, timeout=1, retry_cnt=1, rnr_retry=0)
            return qp, cq, ctx.reg_mr(pd, la, size, ACC)
        qx, cqx, mrx = await run_driver(lonely, a.ctx)
        await run_driver(a.ctx.post_send, qx, [SendWR(WrOpcode.RDMA_WRITE, wr_id=7,
                         local_addr=la, length=64, lkey=mrx.lkey, remote_addr=lb,
                         rkey=mrb0.rkey)])
        wc = (await run_driver(a.ctx.wait_cq, cqx, 1, 20000))[0]
        assert wc.status == "RETRY_EXC_ERR", wc
        assert (await run_driver(b.ctx.counters))["rx_drop_qpn"] >= 2
        await healthy(200)

        # ICRC corruption on the wire: dropped, counted, retransmitted
        env.link("lab", biterr_en=1, biterr_p=int(0.3 * 2**32))
        await healthy(201)
        await healthy(202)
        env.link("lab", biterr_en=0)
        assert (await run_driver(b.ctx.counters))["rx_drop_icrc"] > 0

        # RNR: SEND before any receive is posted, then post one
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=2, rnr_retry=7)
        mrs = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND, wr_id=9, local_addr=la,
                         length=300, lkey=mrs.lkey)])
        await ClockCycles(dut.clk, 3000)
        assert (await run_driver(b.ctx.counters))["rx_rnr_nak"] > 0
        rb = await run_driver(b.ctx.reg_mr, pdb, lb + 8192, 1024, ACC)
        await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=19, addr=lb + 8192, length=1024,
                                                      lkey=rb.lkey)])
        wc = (await run_driver(a.ctx.wait_cq, cqa, 1, 20000))[0]
        assert wc.ok and wc.wr_id == 9, wc
        rwc = (await run_driver(b.ctx.wait_cq, cqb, 1, 20000))[0]
        assert rwc.ok and rwc.byte_len == 300 and rwc.wr_id == 19, rwc
        assert b.mem.read(lb + 8192, 300) == a.mem.read(la, 300)

        # RQE prefetch (the responder loads and checks the next receive WQE at RQ
        # doorbell time): protection must still be judged as of the SEND's arrival.
        # (1) receive posted while its MR is valid, MR deregistered before the SEND:
        #     receive LOC_PROT_ERR at B, REM_OP_ERR at A, nothing placed.
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=2)
        mrs = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        rb = await run_driver(b.ctx.reg_mr, pdb, lb + 8192, 1024, ACC)
        await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=31, addr=lb + 8192, length=1024,
                                                      lkey=rb.lkey)])
        await ClockCycles(dut.clk, 300)      # long enough for the prefetch and its check
        await run_driver(b.ctx.dereg_mr, rb)
        before = b.mem.read(lb, size)
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND, wr_id=32, local_addr=la,
                         length=300, lkey=mrs.lkey)])
        wc = (await run_driver(a.ctx.wait_cq, cqa, 1, 20000))[0]
        rwc = (await run_driver(b.ctx.wait_cq, cqb, 1, 20000))[0]
        assert (wc.wr_id, wc.status) == (32, "REM_OP_ERR"), wc
        assert (rwc.wr_id, rwc.status) == (31, "LOC_PROT_ERR"), rwc
        assert b.mem.read(lb, size) == before, "SEND placed through a deregistered MR"
        # (2) receive prefetched, then an unrelated MR written: re-checked, still valid,
        #     the SEND lands.
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=2)
        mrs = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        rb = await run_driver(b.ctx.reg_mr, pdb, lb + 8192, 1024, ACC)
        await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=33, addr=lb + 8192, length=1024,
                                                      lkey=rb.lkey)])
        await ClockCycles(dut.clk, 300)
        await run_driver(b.ctx.reg_mr, pdb, lb, 64, ACC)
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND, wr_id=34,
                         local_addr=la + 1000, length=500, lkey=mrs.lkey)])
        wc = (await run_driver(a.ctx.wait_cq, cqa, 1, 20000))[0]
        rwc = (await run_driver(b.ctx.wait_cq, cqb, 1, 20000))[0]
        assert wc.ok and wc.wr_id == 34, wc
        assert rwc.ok and rwc.wr_id == 33 and rwc.byte_len == 500, rwc
        assert b.mem.read(lb + 8192, 500) == a.mem.read(la + 1000, 500)
        seen = check_wire(env.frames)
        dut._log.info("wire: %d frames re-parsed, opcodes %s", len(env.frames), seen)

    @cocotb.test()
    async def xlate_cache(dut):
        """The key translation caches (requester lkey, responder rkey) never pass what the
        MR table would refuse: after WRITEs that filled them, a WRITE with the same key
        outside the region, a WRITE after the MR was deregistered, and the same key on a
        QP of another PD all fail as the verbs rules say (REM_ACCESS_ERR for the rkey,
        LOC_PROT_ERR for the lkey), with the peer's memory untouched; a fresh
        registration at the same place works again."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_xlate.pcap")))
        await env.start()
        a, b = env.a, env.b
        size = 1 << 13
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        rng = random.Random(29)
        a.mem.write(la, bytes(rng.randrange(256) for _ in range(size)))
        b.mem.write(lb, bytes(size))

        async def pair():
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=2, retry_cnt=1)
            mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
            return qa, cqa, pda, pdb, mra, mrb

        async def writes(qa, cqa, ops):
            """ops: (local_off, remote_off, length, lkey, rkey); returns the statuses."""
            wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + lo, length=n, lkey=lk,
                          remote_addr=lb + ro, rkey=rk)
                   for i, (lo, ro, n, lk, rk) in enumerate(ops)]
            await run_driver(a.ctx.post_send, qa, wrs)
            wcs = await run_driver(a.ctx.wait_cq, cqa, len(wrs), 40000)
            return [(w.wr_id, w.status) for w in wcs]

        def placed(ro, lo, n):
            assert b.mem.read(lb + ro, n) == a.mem.read(la + lo, n), (ro, lo, n)

        # 1. filled by two WRITEs (the second a cache hit), then the same rkey past the end
        qa, cqa, pda, pdb, mra, mrb = await pair()
        st = await writes(qa, cqa, [(0, 0, 64, mra.lkey, mrb.rkey),
                                    (64, 64, 64, mra.lkey, mrb.rkey)])
        assert st == [(0, "SUCCESS"), (1, "SUCCESS")], st
        placed(0, 0, 128)
        before = b.mem.read(lb, size)
        st = await writes(qa, cqa, [(128, size - 32, 64, mra.lkey, mrb.rkey)])
        assert st == [(0, "REM_ACCESS_ERR")], st
        assert b.mem.read(lb, size) == before, "rkey past the region's end wrote memory"

        # 2. filled, then B deregisters the MR: the old rkey must fail
        qa, cqa, pda, pdb, mra, mrb = await pair()
        st = await writes(qa, cqa, [(0, 256, 64, mra.lkey, mrb.rkey)] * 2)
        assert st == [(0, "SUCCESS"), (1, "SUCCESS")], st
        placed(256, 0, 64)
        await run_driver(b.ctx.dereg_mr, mrb)
        before = b.mem.read(lb, size)
        st = await writes(qa, cqa, [(64, 512, 64, mra.lkey, mrb.rkey)])
        assert st == [(0, "REM_ACCESS_ERR")], st
        assert b.mem.read(lb, size) == before, "deregistered rkey wrote memory"

        # 3. requester: filled, then the same lkey past the end of A's region
        qa, cqa, pda, pdb, mra, mrb = await pair()
        st = await writes(qa, cqa, [(0, 1024, 64, mra.lkey, mrb.rkey)] * 2)
        assert st == [(0, "SUCCESS"), (1, "SUCCESS")], st
        before = b.mem.read(lb, size)
        st = await writes(qa, cqa, [(size - 32, 1536, 64, mra.lkey, mrb.rkey)])
        assert st == [(0, "LOC_PROT_ERR")], st
        assert b.mem.read(lb, size) == before, "lkey past the region's end was sent"

        # 4. requester: filled, then A deregisters the MR: the old lkey must fail
        qa, cqa, pda, pdb, mra, mrb = await pair()
        st = await writes(qa, cqa, [(0, 2048, 64, mra.lkey, mrb.rkey)] * 2)
        assert st == [(0, "SUCCESS"), (1, "SUCCESS")], st
        await run_driver(a.ctx.dereg_mr, mra)
        st = await writes(qa, cqa, [(0, 2560, 64, mra.lkey, mrb.rkey)])
        assert st == [(0, "LOC_PROT_ERR")], st

        # 5. the same keys, filled by one QP, used by a QP of another PD on each side
        qa, cqa, pda, pdb, mra, mrb = await pair()
        st = await writes(qa, cqa, [(0, 3072, 64, mra.lkey, mrb.rkey)] * 2)
        assert st == [(0, "SUCCESS"), (1, "SUCCESS")], st
        qa2, qb2, cqa2, cqb2, pda2, pdb2 = await env.connect(ACC, timeout=2, retry_cnt=1)
        before = b.mem.read(lb, size)
        # lkey of A's other PD on qa2: local protection error
        st = await writes(qa2, cqa2, [(0, 3584, 64, mra.lkey, mrb.rkey)])
        assert st == [(0, "LOC_PROT_ERR")], st
        # own lkey, but the rkey belongs to B's other PD: remote access error
        qa3, qb3, cqa3, cqb3, pda3, pdb3 = await env.connect(ACC, timeout=2, retry_cnt=1)
        mra3 = await run_driver(a.ctx.reg_mr, pda3, la, size, ACC)
        st = await writes(qa3, cqa3, [(0, 3584, 64, mra3.lkey, mrb.rkey)])
        assert st == [(0, "REM_ACCESS_ERR")], st
        assert b.mem.read(lb, size) == before, "a key of another PD wrote memory"

        # 6. a fresh registration at the same place works again
        qa, cqa, pda, pdb, mra, mrb = await pair()
        st = await writes(qa, cqa, [(i * 64, 4096 + i * 64, 64, mra.lkey, mrb.rkey)
                                    for i in range(8)])
        assert st == [(i, "SUCCESS") for i in range(8)], st
        placed(4096, 0, 512)

    @cocotb.test()
    async def cq_overflow(dut):
        """A CQ of 4 entries and 6 signaled WRITEs before the host polls: the 4 CQEs that
        fit are exact and in order; the 5th overruns the CQ (IBTA CQ error): counted in
        cq_overflow, one async event CQ_OVERRUN names the CQ, and every later CQE of the
        CQ is dropped and counted in cq_err_drop (the 6th, unless it left with the 5th as
        one pair, and those of 7 and 8 posted later). Every WRITE still lands; the
        driver returns the 4 and then raises CqError instead of waiting forever."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_cq_overflow.pcap")))
        await env.start()
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, cq_depth=4)
        a, b = env.a, env.b
        rng = random.Random(5)
        la, lb = a.mem.alloc(4096), b.mem.alloc(4096)
        a.mem.write(la, rng.randbytes(4096))
        mra = await run_driver(a.ctx.reg_mr, pda, la, 4096, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 4096, ACC)

        def wr(i):
            return SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + 64 * i, length=64,
                          lkey=mra.lkey, remote_addr=lb + 64 * i, rkey=mrb.rkey)

        def lost(c1, c0):
            return c1["cq_overflow"] - c0["cq_overflow"] + c1["cq_err_drop"] - c0["cq_err_drop"]

        async def settle(n):
            for _ in range(200):
                await ClockCycles(dut.clk, 100)
                c1 = await run_driver(a.ctx.counters)
                if c1["cqe"] - c0["cqe"] + lost(c1, c0) >= n:
                    return c1
            raise AssertionError(f"{n} CQEs not accounted for")

        c0 = await run_driver(a.ctx.counters)
        await run_driver(a.ctx.post_send, qa, [wr(i) for i in range(1, 7)])
        c1 = await settle(6)
        assert (c1["cqe"] - c0["cqe"], lost(c1, c0)) == (4, 2), (c0, c1)
        assert c1["cq_overflow"] - c0["cq_overflow"] in (1, 2), (c0, c1)
        ev = await run_driver(a.ctx.get_async_event)
        assert ev == verbs.AsyncEvent(verbs.AsyncEventType.CQ_OVERRUN, cqa.cqn), ev
        assert await run_driver(a.ctx.get_async_event) is None     # one event per error
        wcs = await run_driver(a.ctx.poll_cq, cqa, 16)
        assert [(w.wr_id, w.status) for w in wcs] == [(i, "SUCCESS") for i in range(1, 5)], wcs
        try:
            await run_driver(a.ctx.poll_cq, cqa, 16)
            raise AssertionError("a poll of the failed CQ did not raise CqError")
        except verbs.CqError:
            pass
        # WRs posted after the error still execute; their CQEs are dropped and counted
        await run_driver(a.ctx.post_send, qa, [wr(7), wr(8)])
        c2 = await settle(8)
        assert c2["cqe"] - c0["cqe"] == 4 and lost(c2, c0) == 4, (c0, c2)
        assert c2["cq_err_drop"] - c1["cq_err_drop"] == 2, (c1, c2)
        assert await run_driver(a.ctx.get_async_event) is None
        for i in range(1, 9):
            assert b.mem.read(lb + 64 * i, 64) == a.mem.read(la + 64 * i, 64), i

    @cocotb.test()
    async def rqe_batch(dut):
        """Receive WQEs read ahead in batches (fabnic_roce_resp background reader,
        RQE_BATCH): three QP pairs with 4-entry RQs (smaller than a batch, so reads are
        cut at the ring end and wrap), small SENDs interleaved over the QPs while the
        receiver re-posts as slots free up, every receive WQE with its own buffer. Each
        SEND must land in the buffer of the RQE its position in its QP's stream names,
        with that RQE's wr_id and byte_len (a Python model of the three queues), no other
        byte written. Then a receiving QP with a batch read ahead is reset and given new
        RQEs at the same ring slots: its SENDs must use the new ones."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_rqe_batch.pcap")))
        await env.start()
        a, b = env.a, env.b
        pairs = [await env.connect(ACC, mtu=256, depth=4, sq_psn_a=0x100 + i,
                                   sq_psn_b=0x200 + i) for i in range(3)]
        rng = random.Random(11)
        n_msg, slot = 60, 320            # per QP; a receive buffer per posted RQE
        la = a.mem.alloc(4096)
        lb = b.mem.alloc(3 * n_msg * slot + 4 * slot)
        a.mem.write(la, rng.randbytes(4096))
        b.mem.write(lb, bytes(3 * n_msg * slot + 4 * slot))
        mra = await run_driver(a.ctx.reg_mr, pairs[0][4], la, 4096, ACC)
        mrb = [await run_driver(b.ctx.reg_mr, p[5], lb, 3 * n_msg * slot + 4 * slot, ACC)
               for p in pairs]
        mra_q = [mra] + [await run_driver(a.ctx.reg_mr, p[4], la, 4096, ACC) for p in pairs[1:]]
        sends = {q: [] for q in range(3)}       # (offset, length) per message
        for q in range(3):
            for _ in range(n_msg):
                sends[q].append((rng.randrange(0, 2048), rng.choice([1, 17, 64, 200, 256, 300])))

        def drive() -> dict[int, list]:
            posted = [0, 0, 0]
            sent = [0, 0, 0]
            got: dict[int, list] = {0: [], 1: [], 2: []}
            done = [0, 0, 0]
            for _ in range(200000):
                for q, (qa, qb, cqa, cqb, _pa, _pb) in enumerate(pairs):
                    # a random few at a time: batches end mid-ring and the next
                    # read has to stop at the ring end
                    k = min(qb.rq_free, n_msg - posted[q], rng.randrange(0, 4))
                    if k > 0:
                        b.ctx.post_recv(qb, [RecvWR(wr_id=(q << 16) | (posted[q] + j),
                                                    addr=lb + (q * n_msg + posted[q] + j) * slot,
                                                    length=slot, lkey=mrb[q].lkey)
                                             for j in range(k)])
                        posted[q] += k
                    # a few SENDs at a time, QPs interleaved
                    k = min(qa.sq_free, n_msg - sent[q], rng.randrange(1, 4))
                    if k > 0:
                        a.ctx.post_send(qa, [SendWR(WrOpcode.SEND, wr_id=sent[q] + j,
                                                    local_addr=la + sends[q][sent[q] + j][0],
                                                    length=sends[q][sent[q] + j][1],
                                                    lkey=mra_q[q].lkey) for j in range(k)])
                        sent[q] += k
                    for w in a.ctx.poll_cq(cqa, 16):
                        assert w.ok, w
                        done[q] += 1
                    got[q] += b.ctx.poll_cq(cqb, 16)
                if all(len(got[q]) == n_msg and done[q] == n_msg for q in range(3)):
                    return got
                a.ctx.dev.read("roce", "cmd_status")   # a bus access: time advances
            raise AssertionError(f"stalled: sent {sent} posted {posted} done {done} "
                                 f"received {[len(g) for g in got.values()]}")

        got = await run_driver(drive)
        img = bytearray(3 * n_msg * slot + 4 * slot)
        src = a.mem.read(la, 4096)
        for q in range(3):
            assert [(w.wr_id, w.byte_len, w.status) for w in got[q]] == \
                [((q << 16) | i, sends[q][i][1], "SUCCESS") for i in range(n_msg)], got[q]
            for i, (off, ln) in enumerate(sends[q]):
                base = (q * n_msg + i) * slot
                img[base:base + ln] = src[off:off + ln]
        assert b.mem.read(lb, len(img)) == bytes(img)

        # reset a receiving QP that has RQEs (and a batch read ahead), post new ones at
        # the same ring slots (other buffers, other wr_ids), SEND: the new ones are used
        qa, qb, cqa, cqb, _pa, pdb = pairs[0]
        old, new = lb + 3 * n_msg * slot, lb + 3 * n_msg * slot + 2 * slot
        await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=0xA0 + j, addr=old + 64 * j,
                                                     length=64, lkey=mrb[0].lkey)
                                              for j in range(3)])
        await ClockCycles(dut.clk, 400)
        next_psn = (await run_driver(a.ctx.query_qp, qa)).next_send_psn

        def reset_b(ctx):
            ctx.modify_qp(qb, verbs.QpState.RESET)
            ctx.modify_qp(qb, verbs.QpState.INIT, access=ACC)
            ctx.modify_qp(qb, verbs.QpState.RTR, dest_qpn=qa.qpn, rq_psn=next_psn,
                          path_mtu=256, dest_mac=env.a.mac, dest_ip=env.a.ip)
            ctx.modify_qp(qb, verbs.QpState.RTS, sq_psn=0x200, timeout=8, retry_cnt=7,
                          rnr_retry=7)
            ctx.post_recv(qb, [RecvWR(wr_id=0xB0 + j, addr=new + 64 * j, length=64,
                                      lkey=mrb[0].lkey) for j in range(3)])
        await run_driver(reset_b, b.ctx)
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND, wr_id=0xC0 + j,
                                                      local_addr=la + 100 * j, length=40,
                                                      lkey=mra.lkey) for j in range(3)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 3, 20000)
        assert all(w.ok for w in wcs), wcs
        rw = await run_driver(b.ctx.wait_cq, cqb, 3, 20000)
        assert [(w.wr_id, w.byte_len) for w in rw] == [(0xB0 + j, 40) for j in range(3)], rw
        for j in range(3):
            assert b.mem.read(new + 64 * j, 40) == src[100 * j:100 * j + 40], j
        assert b.mem.read(old, 2 * slot) == bytes(2 * slot), "an old RQE's buffer was written"

        # a read-ahead that has to stop at the ring end (8-entry RQ, deterministic
        # steps): 6 posted and read in one batch, 3 used, 3 more posted (indices 6, 7 and
        # 8 = slot 0), then when the batch's last entry is installed the next read
        # starts at slot 6 with 3 posted but 2 slots before the end
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=256, depth=8, sq_psn_a=0x300,
                                                       sq_psn_b=0x400)
        mra3 = await run_driver(a.ctx.reg_mr, pda, la, 4096, ACC)
        mrb3 = await run_driver(b.ctx.reg_mr, pdb, lb, 12 * 64, ACC)
        b.mem.write(lb, bytes(12 * 64))

        async def recv(idx):
            await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=0xD00 + i, addr=lb + 64 * i,
                                                         length=64, lkey=mrb3.lkey)
                                                  for i in idx])

        async def send(idx):
            await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND, wr_id=i,
                                                          local_addr=la + 50 * i, length=33,
                                                          lkey=mra3.lkey) for i in idx])
            assert all(w.ok for w in await run_driver(a.ctx.wait_cq, cqa, len(idx), 20000))

        await recv(range(6))
        await ClockCycles(dut.clk, 300)
        await send(range(3))
        rw = await run_driver(b.ctx.wait_cq, cqb, 3, 20000)     # frees 3 RQ slots
        await recv(range(6, 9))
        await ClockCycles(dut.clk, 300)
        await send(range(3, 9))
        rw += await run_driver(b.ctx.wait_cq, cqb, 6, 20000)
        assert [(w.wr_id, w.byte_len, w.status) for w in rw] == \
            [(0xD00 + i, 33, "SUCCESS") for i in range(9)], rw
        for i in range(9):
            assert b.mem.read(lb + 64 * i, 64) == src[50 * i:50 * i + 33] + bytes(31), i
        check_wire(env.frames)

    @cocotb.test()
    async def scale_qpn(dut):
        """NUM_QP = 16384: QP pairs at the top of the QPN space carry WRITE and READ; a
        doorbell beyond NUM_QP is refused on the bus."""
        from fabnic.bus import BusError
        env = PairEnv(dut)
        nqp = int(dut.NUM_QP.value)
        await env.start(first_qpn=nqp - 4)
        a, b = env.a, env.b
        la, lb = a.mem.alloc(1 << 16), b.mem.alloc(1 << 16)
        rng = random.Random(99)
        a.mem.write(la, bytes(rng.randrange(256) for _ in range(1 << 16)))
        for k in range(2):
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=4096)
            assert qa.qpn >= nqp - 4 and qb.qpn >= nqp - 4
            mra = await run_driver(a.ctx.reg_mr, pda, la, 1 << 16, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 1 << 16, ACC)
            off = k * 16384
            await run_driver(a.ctx.post_send, qa, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=1, local_addr=la + off, length=9000,
                       lkey=mra.lkey, remote_addr=lb + off, rkey=mrb.rkey),
                SendWR(WrOpcode.RDMA_READ, wr_id=2, local_addr=la + off + 9216, length=5000,
                       lkey=mra.lkey, remote_addr=lb + off, rkey=mrb.rkey)])
            wcs = await run_driver(a.ctx.wait_cq, cqa, 2, 20000)
            assert [w.wr_id for w in wcs] == [1, 2] and all(w.ok for w in wcs), wcs
            assert b.mem.read(lb + off, 9000) == a.mem.read(la + off, 9000)
            assert a.mem.read(la + off + 9216, 5000) == a.mem.read(la + off, 5000)
            dut._log.info("QP %d -> %d: WRITE 9000 B + READ 5000 B ok", qa.qpn, qb.qpn)
        try:
            await run_driver(a.bus.write32, 0x100000 + 8 * nqp, 1)
        except BusError:
            pass
        else:
            raise AssertionError("a doorbell beyond NUM_QP was accepted")

    @cocotb.test()
    async def dcqcn_loop(dut):
        """DCQCN through the whole engine: a switch stand-in marks A's frames CE, B's
        notification point sends CNPs, A's reaction point cuts the QP's rate and the rate
        limiter paces the requester. With alpha = 1 and no increase (alpha period, timer
        and byte counter 0), the first cut is exactly Rc = line / 2 (DCQCN: Rc <- Rc (1 -
        alpha/2)), and the next transfer runs at half the line rate."""
        env = PairEnv(dut)
        env.tap_rx = True
        await env.start()
        a, b = env.a, env.b
        for L in ("lab", "lba"):
            env.link(L, rate=50 << 16)
        line = 100_000 << 12
        for ctx in (a.ctx, b.ctx):
            for reg, val in (("alpha_period", 0), ("timer_period", 0), ("byte_counter", 0),
                             ("rate_line", line), ("rate_init", line), ("cnp_interval", 1 << 20)):
                await run_driver(ctx.dev.write, "cc", reg, val)
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=4096, dcqcn=True)
        size = 1 << 20
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)

        async def rate_of(ctx, qp):
            return (await run_driver(ctx.dcqcn_state, qp))[0]

        async def write_burst(n, tag):
            t0 = env.cycle
            await run_driver(a.ctx.post_send, qa, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=tag + i, local_addr=la + i * 65536,
                       length=65536, lkey=mra.lkey, remote_addr=lb + i * 65536, rkey=mrb.rkey)
                for i in range(n)])
            try:
                await run_driver(a.ctx.wait_cq, cqa, n, 20000)
            except Exception:
                for k in ("lim_grant", "lim_deny", "lim_rate_set", "qp_status"):
                    dut._log.error("A cc.%s = %d", k, await run_driver(a.ctx.dev.read, "cc", k))
                dut._log.error("A %s", await run_driver(a.ctx.counters))
                dut._log.error("B %s", await run_driver(b.ctx.counters))
                dut._log.error("link drops %d %d", int(dut.lab_cnt_drops.value),
                               int(dut.lba_cnt_drops.value))
                dut._log.error("req state %s", dut.u_a.u_req.st_q.value)
                txa = [f for side, f in env.frames if side == "a"]
                for i, f in enumerate(env.rx_b[:12]):
                    dut._log.error("rx %d len %d same-as-tx %s", i, len(f), f == txa[i])
                    if f != txa[i]:
                        dut._log.error("tx %s", txa[i][:80].hex())
                        dut._log.error("rx %s", f[:80].hex())
                raise
            return n * 65536 * 8 / ((env.cycle - t0) * 4.0)

        assert await rate_of(a.ctx, qa) == line
        g0 = await write_burst(2, 0)
        dut.ce_mark_ab.value = 1
        for _ in range(2000):
            await ClockCycles(dut.clk, 10)
            if (await run_driver(b.ctx.dev.read, "cc", "cnp_tx")) >= 1:
                break
        dut._log.info("marking on")
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.RDMA_WRITE, wr_id=99,
                         local_addr=la, length=4096, lkey=mra.lkey, remote_addr=lb,
                         rkey=mrb.rkey)])
        await run_driver(a.ctx.wait_cq, cqa, 1, 50000)
        dut.ce_mark_ab.value = 0
        await ClockCycles(dut.clk, 200)
        cb = {k: await run_driver(b.ctx.dev.read, "cc", k) for k in ("ecn_marked_rx", "cnp_tx")}
        ca = {k: await run_driver(a.ctx.dev.read, "cc", k) for k in ("cnp_rx", "rate_decrease")}
        rc = await rate_of(a.ctx, qa)
        dut._log.info("B %s, A %s, Rc %d (line %d)", cb, ca, rc, line)
        assert cb["ecn_marked_rx"] >= 1 and cb["cnp_tx"] == 1, cb
        assert ca["cnp_rx"] == 1 and ca["rate_decrease"] == 1, ca
        assert rc == line // 2, (rc, line // 2)
        g1 = await write_burst(4, 100)
        # paced at 50 Gb/s of wire bytes (payload + 66 header bytes per 4 KB packet)
        expect = 50.0 * 4096 / (4096 + 66)
        dut._log.info("goodput before the cut %.2f Gb/s, after %.2f Gb/s (expected %.2f)",
                      g0, g1, expect)
        assert abs(g1 - expect) / expect < 0.03, (g1, expect)
        assert b.mem.read(lb, 4 * 65536) == a.mem.read(la, 4 * 65536)

        # Byte-counter increases, fed by the frames A sends (wire bytes from the packet
        # builder, through the room's per-QP accumulation). With B bytes per stage and no
        # timer, k = (A's wire bytes) // B increases follow; all are fast recovery
        # (stage <= F), each Rc <- ceil((Rt + Rc) / 2) with Rt = line (DCQCN). The
        # accumulation may hold back up to CHUNK (1024) bytes: the wire total is chosen
        # away from a multiple of B.
        bc = 100_000
        await run_driver(a.ctx.dev.write, "cc", "byte_counter", bc)
        n0 = len(env.frames)
        inc0 = await run_driver(a.ctx.dev.read, "cc", "rate_increase")
        await write_burst(4, 200)
        await ClockCycles(dut.clk, 200)
        wire = sum(len(f) + 4 + 20 for side, f in env.frames[n0:] if side == "a")
        k = wire // bc
        assert (wire + 1024) // bc == k and k >= 2, (wire, bc)
        inc = await run_driver(a.ctx.dev.read, "cc", "rate_increase") - inc0
        rc_want = line // 2
        for _ in range(k):
            rc_want = -(-(line + rc_want) // 2)
        rc2 = await rate_of(a.ctx, qa)
        dropped = await run_driver(a.ctx.dev.read, "cc", "ev_dropped")
        dut._log.info("%d wire bytes sent, B = %d: %d increases (expected %d), Rc %d "
                      "(expected %d), events dropped %d", wire, bc, inc, k, rc2, rc_want,
                      dropped)
        assert inc == k and rc2 == rc_want, (inc, k, rc2, rc_want)
        assert dropped == 0


    class ReadFaults:
        """AXI SLVERR on chosen host-memory reads of one NIC: every read beat whose word
        address is poisoned answers SLVERR (with zero data), ``times`` times or forever
        (-1), after the first ``after`` reads of that word. Counts the poisoned beats
        served and the reads of every word (``reads``)."""

        def __init__(self, ram) -> None:
            self.spots: dict[int, int] = {}
            self.skip: dict[int, int] = {}
            self.reads: dict[int, int] = {}
            self.served = 0
            orig = ram.read_if._read

            async def _read(address: int, length: int) -> bytes:
                self.reads[address] = self.reads.get(address, 0) + 1
                if self.skip.get(address, 0):
                    self.skip[address] -= 1
                    return await orig(address, length)
                left = self.spots.get(address, 0)
                if left:
                    self.spots[address] = left - 1 if left > 0 else -1
                    self.served += 1
                    raise OSError(f"poisoned read at {address:#x}")
                return await orig(address, length)

            ram.read_if._read = _read

        def poison(self, addr: int, times: int = -1, after: int = 0) -> None:
            self.spots[addr & ~63] = times
            self.skip[addr & ~63] = after

    @cocotb.test()
    async def sqe_read_faults(dut):
        """SLVERR on send-WQE reads (issue: host faults). A WQE read that fails on any
        beat of a multi-SQE read is not executed; a transient failure is retried and the
        WRs complete SUCCESS with the right data; a persistent one completes the WR with
        LOC_QP_OP_ERR after a bounded number of reads, flushes the WRs behind it, leaves
        the peer's memory untouched, and another QP of the same NIC keeps working."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_faults.pcap")))
        await env.start()
        a, b = env.a, env.b
        faults = ReadFaults(a.ram)
        rng = random.Random(7)
        la = a.mem.alloc(1 << 16)
        lb = b.mem.alloc(1 << 16)
        src = bytes(rng.randrange(256) for _ in range(1 << 14))
        a.mem.write(la, src)
        b.mem.write(lb, bytes(1 << 16))

        async def pair():
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=4)
            mra = await run_driver(a.ctx.reg_mr, pda, la, 1 << 16, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 1 << 16, ACC)
            return qa, cqa, mra, mrb

        def write(wr_id: int, off: int, n: int, mra, mrb) -> SendWR:
            return SendWR(WrOpcode.RDMA_WRITE, wr_id=wr_id, local_addr=la + off, length=n,
                          lkey=mra.lkey, remote_addr=lb + off, rkey=mrb.rkey)

        def slot(qp, k: int) -> int:
            return qp.sq_ring + 64 * ((qp.sq_pi + k) & (qp.sq_depth - 1))

        # transient: the second of three WQEs (beat 1 of one SQE read) fails once
        qa, cqa, mra, mrb = await pair()
        faults.poison(slot(qa, 1), times=1)
        await run_driver(a.ctx.post_send, qa, [write(10 + k, 1024 * k, 1000, mra, mrb)
                                               for k in range(3)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 3, 20000)
        assert [(w.wr_id, w.status) for w in wcs] == [(10 + k, "SUCCESS") for k in range(3)]
        assert faults.served == 1
        for k in range(3):
            assert b.mem.read(lb + 1024 * k, 1000) == src[1024 * k:1024 * k + 1000]

        # persistent: the first WQE's slot always fails (the DMA reader flags every beat
        # of a read from the first error it has received on, so a failure on a later
        # slot can also stop the WQEs before it in the same read: docs/roce_engine.md)
        b.mem.write(lb, bytes(1 << 16))
        qa, cqa, mra, mrb = await pair()
        faults.served = 0
        faults.poison(slot(qa, 0))
        await run_driver(a.ctx.post_send, qa, [write(20 + k, 4096 + 1024 * k, 900, mra, mrb)
                                               for k in range(3)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 3, 40000)
        assert [(w.wr_id, w.status) for w in wcs] == [
            (20, "LOC_QP_OP_ERR"), (21, "WR_FLUSH_ERR"), (22, "WR_FLUSH_ERR")], wcs
        assert b.mem.read(lb + 4096, 3072) == bytes(3072), "a WQE of the QP was executed"
        q = await run_driver(a.ctx.query_qp, qa)
        assert q.state == verbs.QpState.ERR, q
        # bounded: the requester read it 1 + 3 times (the completer's re-read may add one)
        assert 4 <= faults.served <= 6, faults.served

        # the NIC still takes new work on another QP
        qa2, cqa2, mra2, mrb2 = await pair()
        await run_driver(a.ctx.post_send, qa2, [write(30, 8192, 3000, mra2, mrb2)])
        wcs = await run_driver(a.ctx.wait_cq, cqa2, 1, 20000)
        assert [(w.wr_id, w.status) for w in wcs] == [(30, "SUCCESS")]
        assert b.mem.read(lb + 8192, 3000) == src[8192:11192]

    @cocotb.test()
    async def sqe_reread_fault(dut):
        """SLVERR on the completer's re-read of a send WQE that the requester read cleanly
        and sent (issue: host faults; not the requester's failing WQE). The completer
        finds WQE boundaries and CQE fields by reading SQEs again, from the SQE shadow;
        here the victim's shadow entry is evicted (another QP's SQE at a slot with the
        same table index is read after it) and the host answers the re-read with
        SLVERR. Rule: a host-memory error is never used as data, and the QP completes
        the affected work with an error status. Expected, written from that rule: the WR
        before the victim completes SUCCESS, the victim LOC_QP_OP_ERR (its wr_id named
        from the SQ index, opcode SEND, byte_len 0: no field of the errored beat), the
        WRs behind it WR_FLUSH_ERR, the QP in ERR. All WRs were sent (the WRITEs executed
        by the peer) before the first response: AckReq only on the last packet of the
        last posted WQE (ack_cadence at its maximum), and the peer's ACKs and READ
        responses are held (write gate) until the eviction was seen. Twice: WRITEs only
        (the error found on an ACK), and with a READ behind the victim (the error found
        on the READ response, whose payload is drained: the READ's buffer untouched).
        The other QP keeps working."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_reread.pcap")))
        await env.start()
        a, b = env.a, env.b
        faults = ReadFaults(a.ram)
        rng = random.Random(29)
        la = a.mem.alloc(1 << 15)
        lb = b.mem.alloc(1 << 15)
        src = rng.randbytes(1 << 15)
        peer = rng.randbytes(4096)
        a.mem.write(la, src)
        depth = 1024
        cad0 = await run_driver(a.ctx.dev.read, "roce", "ack_cadence")
        drained = 0

        async def watch() -> None:     # S_EV returning to S_DRAIN: a READ response drained
            nonlocal drained
            cpl = dut.u_a.u_cpl
            while True:
                await RisingEdge(dut.clk)
                if int(cpl.st_q.value) == 1 << 13 and int(cpl.ev_ret_q.value) == 1 << 12:
                    drained += 1

        def line(qp, k: int) -> int:       # 64-byte line of the SQE k slots after sq_pi
            return (qp.sq_ring >> 6) + ((qp.sq_pi + k) & (qp.sq_depth - 1))

        def fold(ln: int) -> int:          # the shadow's table index (fabnic_roce_sqe_shadow)
            h = 0
            while ln:
                h ^= ln & 511
                ln >>= 9
            return h

        async def scenario(with_read: bool, wid0: int) -> None:
            b.mem.write(lb, bytes(1 << 15))
            b.mem.write(lb + 12288, peer)
            qa, _qb, cqa, _cqb, pda, pdb = await env.connect(ACC, mtu=1024, depth=depth,
                                                             timeout=8)
            q2, _qb2, cq2, _cqb2, pd2, pdb2 = await env.connect(ACC, mtu=1024, depth=depth,
                                                                timeout=8)
            mra = await run_driver(a.ctx.reg_mr, pda, la, 1 << 15, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 1 << 15, ACC)
            mr2 = await run_driver(a.ctx.reg_mr, pd2, la, 1 << 15, ACC)
            mrb2 = await run_driver(b.ctx.reg_mr, pdb2, lb, 1 << 15, ACC)
            # fillers so that the victim (qa, slot sq_pi + 1) and the evictor (q2, slot
            # sq_pi) share a table index, fewest fillers first
            first_m: dict[int, int] = {}
            for m in range(depth - 8):
                first_m.setdefault(fold(line(q2, m)), m)
            k, m = min(((k, first_m[fold(line(qa, 1 + k))]) for k in range(depth - 8)
                        if fold(line(qa, 1 + k)) in first_m), key=lambda t: t[0] + t[1])
            dut._log.info("fillers: %d on QP %d, %d on QP %d", k, qa.qpn, m, q2.qpn)

            async def fill(qp, cq, mr, mrx, n: int) -> None:
                while n:
                    c = min(n, 128)
                    await run_driver(a.ctx.post_send, qp, [
                        SendWR(WrOpcode.RDMA_WRITE, wr_id=0x9000 + j, local_addr=la,
                               length=8, lkey=mr.lkey, remote_addr=lb + (1 << 14),
                               rkey=mrx.rkey)
                        for j in range(c)])
                    wcs = await run_driver(a.ctx.wait_cq, cq, c, 40000)
                    assert all(w.status == "SUCCESS" for w in wcs), wcs
                    n -= c
            await fill(qa, cqa, mra, mrb, k)
            await fill(q2, cq2, mr2, mrb2, m)
            victim = line(qa, 1) << 6
            evictor = line(q2, 0) << 6
            assert fold(victim >> 6) == fold(evictor >> 6)

            # hold B's host writes (so its ACKs and READ responses, behind the write
            # gate) until the evictor's SQE was read
            release = Event()
            orig_write = b.ram.write_if._write

            async def held_write(address: int, data: bytes) -> None:
                await release.wait()
                await orig_write(address, data)
            b.ram.write_if._write = held_write
            await run_driver(a.ctx.dev.write, "roce", "ack_cadence", 0xFFFF)

            # A, the victim, (a READ of 2000 B into la + 20480,) D: WRITEs at offs
            lens = (500, 3000, 300)
            offs = (0, 1024, 5120)
            wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=wid0 + j, local_addr=la + offs[j],
                          length=lens[j], lkey=mra.lkey, remote_addr=lb + offs[j],
                          rkey=mrb.rkey) for j in range(3)]
            if with_read:
                wrs.insert(2, SendWR(WrOpcode.RDMA_READ, wr_id=wid0 + 8,
                                     local_addr=la + 20480, length=2000, lkey=mra.lkey,
                                     remote_addr=lb + 12288, rkey=mrb.rkey))
            faults.poison(victim, after=1)    # the requester's read passes, re-reads fail
            served0 = faults.served
            await run_driver(a.ctx.post_send, qa, wrs)
            for _ in range(2000):
                if faults.reads.get(victim, 0) >= 1:
                    break
                await ClockCycles(dut.clk, 10)
            assert faults.reads.get(victim, 0) == 1, faults.reads.get(victim)
            await run_driver(a.ctx.post_send, q2, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=0x200, local_addr=la + 8192, length=900,
                       lkey=mr2.lkey, remote_addr=lb + 8192, rkey=mrb2.rkey)])
            for _ in range(2000):
                if faults.reads.get(evictor, 0) >= 1:
                    break
                await ClockCycles(dut.clk, 10)
            assert faults.reads.get(evictor, 0) == 1, "the evictor's SQE was not read"
            assert faults.served == served0, "the requester's read of the victim failed"
            await ClockCycles(dut.clk, 200)
            release.set()
            b.ram.write_if._write = orig_write

            wcs = await run_driver(a.ctx.wait_cq, cqa, len(wrs), 40000)
            got = [(w.wr_id, w.status) for w in wcs]
            want = ([(wid0, "SUCCESS"), (wid0 + 1, "LOC_QP_OP_ERR")]
                    + [(w.wr_id, "WR_FLUSH_ERR") for w in wrs[2:]])
            assert got == want, got
            assert wcs[0].byte_len == lens[0]
            assert (wcs[1].opcode, wcs[1].byte_len) == ("SEND", 0), wcs[1]
            assert faults.served > served0 and faults.reads[victim] >= 2, (
                faults.served, faults.reads[victim])
            q = await run_driver(a.ctx.query_qp, qa)
            assert q.state == verbs.QpState.ERR, q
            # the peer executed every WRITE (sent before the first response); the READ's
            # data was not placed
            for j in range(3):
                assert b.mem.read(lb + offs[j], lens[j]) == src[offs[j]:offs[j] + lens[j]], j
            assert a.mem.read(la + 20480, 2000) == src[20480:22480], "READ data placed"
            wcs2 = await run_driver(a.ctx.wait_cq, cq2, 1, 40000)
            assert [(w.wr_id, w.status) for w in wcs2] == [(0x200, "SUCCESS")], wcs2
            assert b.mem.read(lb + 8192, 900) == src[8192:9092]
            q = await run_driver(a.ctx.query_qp, q2)
            assert q.state == verbs.QpState.RTS, q
            await run_driver(a.ctx.dev.write, "roce", "ack_cadence", cad0)

        watcher = cocotb.start_soon(watch())
        await scenario(False, 0x100)
        assert drained == 0, drained
        await scenario(True, 0x300)
        watcher.cancel()
        dut._log.info("READ responses drained after the flush: %d", drained)
        assert drained >= 1, "the error was not found on the READ response"

    async def _readahead_env(dut):
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_readahead.pcap")))
        await env.start()
        a, b = env.a, env.b
        faults = ReadFaults(a.ram)
        rng = random.Random(19)
        span = 1 << 14
        la = a.mem.alloc(span)
        lb = b.mem.alloc(span)
        src = rng.randbytes(span)
        a.mem.write(la, src)
        vr_max = 0

        async def watch() -> None:
            nonlocal vr_max
            vr = dut.u_a.u_req.u_fetch.vr_q
            while True:
                await RisingEdge(dut.clk)
                vr_max = max(vr_max, int(vr.value))
        watcher = cocotb.start_soon(watch())

        async def run(n: int, bad: int | None, times: int, wid0: int):
            b.mem.write(lb, bytes(span))
            qa, _qb, cqa, _cqb, pda, pdb = await env.connect(ACC, mtu=1024, depth=256,
                                                            timeout=4, cq_depth=512)
            mra = await run_driver(a.ctx.reg_mr, pda, la, span, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, span, ACC)
            wrs, ranges = [], []
            for k in range(n):
                ln = rng.randrange(1, 300)
                lo = rng.randrange(span - ln)
                ro = rng.randrange(2048 - ln)       # overlapping: order matters
                wrs.append(SendWR(WrOpcode.RDMA_WRITE, wr_id=wid0 + k, local_addr=la + lo,
                                  length=ln, lkey=mra.lkey, remote_addr=lb + ro,
                                  rkey=mrb.rkey))
                ranges.append((lo, ro, ln))
            if bad is not None:
                faults.poison(qa.sq_ring + 64 * ((qa.sq_pi + bad) & (qa.sq_depth - 1)), times)
            await run_driver(a.ctx.post_send, qa, wrs)
            wcs = await run_driver(a.ctx.wait_cq, cqa, n, 200000)
            got = [(w.wr_id, w.status) for w in wcs]
            if times >= 0:
                e = n
                want = [(wid0 + k, "SUCCESS") for k in range(n)]
            else:
                # the DMA reader flags every beat after the error it received, so the
                # WQEs of the failing read before the poisoned one may stop too (at most
                # SQE_BATCH - 1 = 31 of them; docs/roce_engine.md, host-memory faults)
                e = next(k for k, (_w, st) in enumerate(got) if st != "SUCCESS")
                assert bad - 31 <= e <= bad, (e, bad)
                want = ([(wid0 + k, "SUCCESS") for k in range(e)] + [(wid0 + e, "LOC_QP_OP_ERR")]
                        + [(wid0 + k, "WR_FLUSH_ERR") for k in range(e + 1, n)])
            assert got == want, [(g, w) for g, w in zip(got, want, strict=True) if g != w][:4]
            model = bytearray(span)
            for lo, ro, ln in ranges[:e]:               # the WRITEs executed, in order
                model[ro:ro + ln] = src[lo:lo + ln]
            assert b.mem.read(lb, span) == bytes(model), "B's memory differs from the model"

        return run, faults, watcher, (lambda: vr_max)

    @cocotb.test()
    async def sqe_readahead(dut):
        """Deep SQE read-ahead (issue 19: up to two reads of 32 SQEs in flight behind the
        one being walked). 200 small WRITEs posted with one doorbell on a 256-deep SQ,
        overlapping remote ranges so that execution order shows in B's memory: B's memory
        equals an in-order model of the WRITEs and the completions come in post order,
        also when one SQE of a read-ahead fails once (SLVERR: retried). The requester
        must have had both read-aheads out (three reads)."""
        run, faults, watcher, vr_max = await _readahead_env(dut)
        await run(200, None, 0, 1000)
        dut._log.info("200 WRITEs in order, reads out at most %d", vr_max())
        faults.served = 0
        await run(200, 101, 1, 2000)     # in the fourth read (a read-ahead), once
        assert faults.served >= 1, faults.served
        watcher.kill()
        assert vr_max() == 3, f"reads in flight at most {vr_max()}, expected 3"

    @cocotb.test()
    async def sqe_readahead_persistent(dut):
        """A persistent SLVERR on an SQE behind 128 sent WQEs (in a read-ahead): the WQEs
        before it complete SUCCESS and are executed, it completes LOC_QP_OP_ERR, the rest
        are flushed and not executed (the WQEs of its read before it may stop with it, as
        documented). The last WQEs sent before the failing one carry no AckReq (the
        visit ended on the error), so their ACK comes from the retransmission timer's
        resend of una, which the requester sends although its send side is stopped."""
        run, _faults, watcher, _vr = await _readahead_env(dut)
        try:
            await run(200, 133, -1, 3000)
        finally:
            watcher.kill()

    @cocotb.test()
    async def responder_read_faults(dut):
        """SLVERR on the responder's host reads (issue: host faults). A receive WQE that
        cannot be read is not used: the SEND is NAKed (remote operational error), the
        receive completes LOC_QP_OP_ERR and the next one is flushed, nothing is placed.
        An atomic whose target cannot be read writes nothing and returns no value: the
        requester sees REM_OP_ERR."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_rfaults.pcap")))
        await env.start()
        a, b = env.a, env.b
        faults = ReadFaults(b.ram)
        la = a.mem.alloc(1 << 14)
        lb = b.mem.alloc(1 << 14)
        a.mem.write(la, bytes(range(256)) * 64)
        b.mem.write(lb, bytes(1 << 14))

        # receive WQE read fails (both RQEs sit in the poisoned 64-byte word)
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=4)
        mra = await run_driver(a.ctx.reg_mr, pda, la, 1 << 14, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 1 << 14, ACC)
        faults.poison(qb.rq_ring + 32 * (qb.rq_pi & (qb.rq_depth - 1)))
        await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=0x60 + j, addr=lb + 2048 * j,
                                                     length=2048, lkey=mrb.lkey)
                                              for j in range(2)])
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND, wr_id=40, local_addr=la,
                                                      length=700, lkey=mra.lkey)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wa] == [(40, "REM_OP_ERR")], wa
        wb = await run_driver(b.ctx.wait_cq, cqb, 2, 40000)
        assert [(w.wr_id, w.status) for w in wb] == [(0x60, "LOC_QP_OP_ERR"),
                                                     (0x61, "WR_FLUSH_ERR")], wb
        assert b.mem.read(lb, 4096) == bytes(4096), "a SEND was placed"
        assert faults.served >= 1

        # atomic target read fails
        faults.spots.clear()
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=4)
        mra = await run_driver(a.ctx.reg_mr, pda, la, 1 << 14, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 1 << 14, ACC)
        target = lb + 8192
        b.mem.write(target, (1000).to_bytes(8, "little"))
        a.mem.write(la + 4096, bytes(8))
        faults.poison(target)
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.ATOMIC_FETCH_AND_ADD, wr_id=41,
                                                      local_addr=la + 4096, lkey=mra.lkey,
                                                      remote_addr=target, rkey=mrb.rkey,
                                                      compare_add=5)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wa] == [(41, "REM_OP_ERR")], wa
        assert b.mem.read(target, 8) == (1000).to_bytes(8, "little"), "the atomic wrote"
        assert a.mem.read(la + 4096, 8) == bytes(8), "a value came back"


    @cocotb.test()
    async def payload_read_faults(dut):
        """SLVERR on payload reads (issue: host faults). The frame whose payload read
        failed leaves with its error mark (tuser), so the peer drops it as MAC-bad and
        nothing of it is placed. Requester (WRITE data): transient, go-back-N resends it
        and the WRITE completes SUCCESS with exact data; persistent, the WRITE completes
        LOC_QP_OP_ERR once its retries are spent (the completer remembers that a request
        frame of the QP left flagged bad since the last progress). Responder (READ
        response data), transient or persistent: the response left without its data, so
        the responder answers the READ with a NAK remote operational error at that
        response's PSN (IBTA 9.7.5.2.4: an error local to the responder) and its QP
        enters ERR; the requester completes the READ REM_OP_ERR. The memory where the
        failing word would land is never written with the error data, and the NIC keeps
        working on another QP."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_pfaults.pcap")))
        await env.start()
        a, b = env.a, env.b
        fa, fb = ReadFaults(a.ram), ReadFaults(b.ram)
        rng = random.Random(23)
        n = 1 << 15
        la, lb = a.mem.alloc(n), b.mem.alloc(n)
        src_a, src_b = rng.randbytes(n), rng.randbytes(n)
        a.mem.write(la, src_a)
        b.mem.write(lb, src_b)

        async def pair(timeout=2, retry_cnt=7):
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=timeout,
                                                           retry_cnt=retry_cnt)
            mra = await run_driver(a.ctx.reg_mr, pda, la, n, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n, ACC)
            return qa, cqa, mra, mrb

        qa, cqa, mra, mrb = await pair()
        # transient, requester: the second packet's first payload word, once
        b0 = await run_driver(b.ctx.counters)
        fa.poison(la + 1024, times=1)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_WRITE, wr_id=1, local_addr=la, length=3000, lkey=mra.lkey,
            remote_addr=lb + 8192, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wcs] == [(1, "SUCCESS")], wcs
        assert fa.served == 1
        assert b.mem.read(lb + 8192, 3000) == src_a[:3000]
        b1 = await run_driver(b.ctx.counters)
        assert b1["rx_drop_bad"] - b0["rx_drop_bad"] == 1, "the marked frame was not dropped"
        exp_b = bytearray(src_b)
        exp_b[8192:8192 + 3000] = src_a[:3000]

        # transient, responder: a READ response's payload read fails once at B (the
        # second of three responses): REM_OP_ERR, even though a resend would read it.
        # The first response may have landed; the failing one is dropped (MAC-bad) and
        # the third, out of sequence behind it, is discarded (go-back-N)
        fb.poison(lb + 16384 + 1024, times=1)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_READ, wr_id=2, local_addr=la + 16384, length=3000, lkey=mra.lkey,
            remote_addr=lb + 16384, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wcs] == [(2, "REM_OP_ERR")], wcs
        assert fb.served == 1
        got = a.mem.read(la + 16384, 3000)
        assert got[:1024] in (src_a[16384:16384 + 1024], src_b[16384:16384 + 1024]), \
            "partial packet"
        assert got[1024:] == src_a[16384 + 1024:16384 + 3000], "error data placed"
        exp_a = bytearray(src_a)
        exp_a[16384:16384 + 1024] = got[:1024]

        # persistent, requester: the WRITE ends in an error completion; the failing
        # word's destination keeps its old bytes (never the error data)
        qa, cqa, mra, mrb = await pair(timeout=1, retry_cnt=2)
        fa.poison(la + 4096 + 1024)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_WRITE, wr_id=3, local_addr=la + 4096, length=2048, lkey=mra.lkey,
            remote_addr=lb + 20480, rkey=mrb.rkey)])
        a0 = await run_driver(a.ctx.counters)
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 200000)
        # the retries (retry_cnt 2) all fail to read the payload: a local error
        assert [(w.wr_id, w.status) for w in wcs] == [(3, "LOC_QP_OP_ERR")], wcs
        a1 = await run_driver(a.ctx.counters)
        assert a1["retry_exc"] == a0["retry_exc"], "counted as a retry exhaustion"
        assert a1["dma_err"] - a0["dma_err"] >= 3, "payload read errors not counted"
        assert b.mem.read(lb + 20480 + 1024, 1024) == src_b[20480 + 1024:20480 + 2048]
        got = b.mem.read(lb + 20480, 1024)      # the first packet may have landed
        assert got in (src_b[20480:20480 + 1024], src_a[4096:4096 + 1024]), "partial packet"
        exp_b[20480:20480 + 1024] = got
        fa.spots.clear()

        # persistent, responder: the READ fails at the requester, the local buffer
        # keeps its old bytes where the failing word's data would have gone
        qa, cqa, mra, mrb = await pair(timeout=1, retry_cnt=2)
        fb.poison(lb + 24576)
        b0 = await run_driver(b.ctx.counters)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_READ, wr_id=4, local_addr=la + 24576, length=1024, lkey=mra.lkey,
            remote_addr=lb + 24576, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 200000)
        # the responder NAKs the READ (remote operational error) instead of timeouts
        assert [(w.wr_id, w.status) for w in wcs] == [(4, "REM_OP_ERR")], wcs
        b1 = await run_driver(b.ctx.counters)
        assert b1["dma_err"] > b0["dma_err"], "payload read error not counted"
        assert a.mem.read(la + 24576, 1024) == src_a[24576:24576 + 1024], "error data placed"
        fb.spots.clear()

        # the NIC still works; nothing else moved in either memory
        qa, cqa, mra, mrb = await pair()
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_WRITE, wr_id=5, local_addr=la + 12288, length=3000, lkey=mra.lkey,
            remote_addr=lb + 28672, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wcs] == [(5, "SUCCESS")], wcs
        exp_b[28672:28672 + 3000] = src_a[12288:12288 + 3000]
        assert b.mem.read(lb, n) == bytes(exp_b), "B memory"
        assert a.mem.read(la, n) == bytes(exp_a), "A memory"

    class WriteFaults:
        """AXI SLVERR on chosen host-memory writes of one NIC: a write beat that touches a
        poisoned 64-byte word is not stored and its burst answers SLVERR. Counts the
        poisoned beats refused."""

        def __init__(self, ram) -> None:
            self.spots: set[int] = set()
            self.refused = 0
            orig = ram.write_if._write

            async def _write(address: int, data: bytes) -> None:
                if address & ~63 in self.spots:
                    self.refused += 1
                    raise OSError(f"poisoned write at {address:#x}")
                await orig(address, data)

            ram.write_if._write = _write

        def poison(self, addr: int) -> None:
            self.spots.add(addr & ~63)

    @cocotb.test()
    async def host_write_faults(dut):
        """SLVERR on host-memory writes (issue: host faults), each fault attributed to the
        engine that issued the write and its QP (fabnic_roce_wr_arb), completions and
        memory against rc_model (fail_writes):
        responder placement of a WRITE and of a SEND -> NAK remote operational error at
        the failing PSN: REM_OP_ERR at the requester, the responder's QP in ERR, its
        posted receives flushed (the SEND's own receive LOC_QP_OP_ERR); completer
        placement of READ data and of an atomic's original value -> LOC_QP_OP_ERR, the
        requester's QP in ERR, the WR behind flushed; a CQE write -> counted, the CQE
        slot untouched. Each fault counts once, in its engine's wr_err_* counter (none
        in dma_err, none lost); other QPs keep working."""
        from rc_model import RcModel, compare_wcs

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_wfaults.pcap")))
        await env.start()
        a, b = env.a, env.b
        fa, fb = WriteFaults(a.ram), WriteFaults(b.ram)
        rng = random.Random(41)
        n = 1 << 15
        la, lb = a.mem.alloc(n), b.mem.alloc(n)
        a.mem.write(la, rng.randbytes(n))
        b.mem.write(lb, rng.randbytes(n))
        model = RcModel()
        model.add_node("a", la, a.mem.read(la, n))
        model.add_node("b", lb, b.mem.read(lb, n))
        ca0, cb0 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
        pairs = []
        got: dict[tuple[str, int], list] = {}      # completions seen, per node and QP

        async def pair():
            k = len(pairs)
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=4,
                                                           retry_cnt=2)
            mra = await run_driver(a.ctx.reg_mr, pda, la, n, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n, ACC)
            model.add_mr("a", mra.lkey, 10 + k, la, n, ACC)
            model.add_mr("b", mrb.rkey, 20 + k, lb, n, ACC)
            model.add_qp("a", qa.qpn, 10 + k, ACC)
            model.add_qp("b", qb.qpn, 20 + k, ACC)
            model.connect(("a", qa.qpn), ("b", qb.qpn))
            pairs.append((qa, qb, cqa, cqb))
            return qa, qb, cqa, cqb, mra, mrb

        async def post(qa, wrs=(), qb=None, recvs=()):
            for r in recvs:
                model.post_recv(("b", qb.qpn), r)
            if recvs:
                await run_driver(b.ctx.post_recv, qb, list(recvs))
            for w in wrs:
                model.post_send(("a", qa.qpn), w)
            if wrs:
                await run_driver(a.ctx.post_send, qa, list(wrs))

        def write(wr_id, src, dst, ln, mra, mrb):
            return SendWR(WrOpcode.RDMA_WRITE, wr_id=wr_id, local_addr=la + src, length=ln,
                          lkey=mra.lkey, remote_addr=lb + dst, rkey=mrb.rkey)

        # 1. responder: a WRITE's first packet cannot be placed
        qa, qb, cqa, cqb, mra, mrb = await pair()
        fb.poison(lb)
        model.fail_writes("b", lb, 64)
        old = b.mem.read(lb, 64)
        await post(qa, [write(1, 0, 0, 8192, mra, mrb), write(2, 0, 16384, 64, mra, mrb)], qb,
                   [RecvWR(wr_id=0x70 + j, addr=lb + 24576 + 512 * j, length=512,
                           lkey=mrb.lkey) for j in range(2)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 2, 200000)
        wb = await run_driver(b.ctx.wait_cq, cqb, 2, 40000)
        got[("a", qa.qpn)], got[("b", qb.qpn)] = wa, wb
        assert [(w.wr_id, w.status) for w in wa] == [(1, "REM_OP_ERR"), (2, "WR_FLUSH_ERR")], wa
        assert [(w.wr_id, w.status) for w in wb] == [(0x70, "WR_FLUSH_ERR"),
                                                     (0x71, "WR_FLUSH_ERR")], wb
        assert b.mem.read(lb, 64) == old, "a refused write changed memory"
        assert (await run_driver(b.ctx.query_qp, qb)).state == verbs.QpState.ERR
        assert (await run_driver(a.ctx.query_qp, qa)).state == verbs.QpState.ERR
        fb.spots.clear()

        # 2. responder: a SEND's first packet cannot be placed
        qa, qb, cqa, cqb, mra, mrb = await pair()
        fb.poison(lb + 8192)
        model.fail_writes("b", lb + 8192, 64)
        await post(qa, [SendWR(WrOpcode.SEND, wr_id=3, local_addr=la + 8192, length=8192,
                               lkey=mra.lkey)], qb,
                   [RecvWR(wr_id=0x80, addr=lb + 8192, length=8192, lkey=mrb.lkey),
                    RecvWR(wr_id=0x81, addr=lb + 24576, length=512, lkey=mrb.lkey)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 1, 200000)
        wb = await run_driver(b.ctx.wait_cq, cqb, 2, 40000)
        got[("a", qa.qpn)], got[("b", qb.qpn)] = wa, wb
        assert [(w.wr_id, w.status) for w in wa] == [(3, "REM_OP_ERR")], wa
        assert [(w.wr_id, w.status) for w in wb] == [(0x80, "LOC_QP_OP_ERR"),
                                                     (0x81, "WR_FLUSH_ERR")], wb
        fb.spots.clear()

        # 3. completer: READ data cannot be placed at the requester
        qa, qb, cqa, cqb, mra, mrb = await pair()
        fa.poison(la + 16384)
        model.fail_writes("a", la + 16384, 64)
        old = a.mem.read(la + 16384, 64)
        await post(qa, [SendWR(WrOpcode.RDMA_READ, wr_id=4, local_addr=la + 16384, length=8192,
                               lkey=mra.lkey, remote_addr=lb + 16384, rkey=mrb.rkey),
                        write(5, 0, 20480, 64, mra, mrb)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 2, 200000)
        got[("a", qa.qpn)], got[("b", qb.qpn)] = wa, []
        assert (await run_driver(b.ctx.query_qp, qb)).state == verbs.QpState.RTS
        assert [(w.wr_id, w.status) for w in wa] == [(4, "LOC_QP_OP_ERR"),
                                                     (5, "WR_FLUSH_ERR")], wa
        assert a.mem.read(la + 16384, 64) == old, "a refused write changed memory"
        assert (await run_driver(a.ctx.query_qp, qa)).state == verbs.QpState.ERR
        # WR 5 was on the wire before the READ failed: the peer may have executed it
        # (a flushed WR's effects are undefined)
        model.undefined.append(("b", lb + 20480, 64))
        fa.spots.clear()

        # 4. completer: an atomic's original value cannot be written back. Its CQE waits
        # in the write gate (fabnic_roce_wr_gate) for the write's B response and leaves
        # LOC_QP_OP_ERR; the QP enters ERR, a later WR is flushed.
        qa, qb, cqa, cqb, mra, mrb = await pair()
        fa.poison(la + 28672)
        model.fail_writes("a", la + 28672, 64)
        await post(qa, [SendWR(WrOpcode.ATOMIC_FETCH_AND_ADD, wr_id=6, local_addr=la + 28672,
                               lkey=mra.lkey, remote_addr=lb + 28672, rkey=mrb.rkey,
                               compare_add=9)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 1, 200000)
        assert [(w.wr_id, w.status) for w in wa] == [(6, "LOC_QP_OP_ERR")], wa
        for _ in range(50):
            if (await run_driver(a.ctx.query_qp, qa)).state == verbs.QpState.ERR:
                break
            await ClockCycles(dut.clk, 100)
        assert (await run_driver(a.ctx.query_qp, qa)).state == verbs.QpState.ERR
        got[("a", qa.qpn)] = wa
        late = write(9, 0, 20480, 64, mra, mrb)
        await run_driver(a.ctx.post_send, qa, [late])
        wl = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wl] == [(9, "WR_FLUSH_ERR")], wl
        got[("b", qb.qpn)] = []
        fa.spots.clear()

        # every completion so far against the model (per QP, both directions), and
        # both memories outside the ranges the model leaves undefined
        res = model.finish()
        assert not res.pending
        for (node, qpn), wcs in got.items():
            want = res.send_wcs[(node, qpn)] if node == "a" else res.recv_wcs[(node, qpn)]
            diff = compare_wcs(want, wcs)
            assert not diff, (node, qpn, diff)
        mism_a = res.memory_mismatches("a", a.mem.read(la, n))
        mism_b = res.memory_mismatches("b", b.mem.read(lb, n))
        if mism_b:
            bad = [ad for ad, _, _ in res.memory_mismatches("b", b.mem.read(lb, n), limit=n)]
            lo, hi = min(bad), max(bad)
            got_b = b.mem.read(lo, 16)
            amem = a.mem.read(la, n)
            dut._log.warning("B differs at [%#x, %#x] (lb %#x) %d bytes; found in A at %s",
                             lo, hi, lb, len(bad), amem.find(got_b))
        assert not mism_a and not mism_b, (mism_a, mism_b)

        # 5. a CQE write fails: counted; the slot keeps its old contents; the CQ enters
        # the error state (one async event CQ_WRITE_ERR; the driver's poll raises CqError)
        qa, qb, cqa, cqb, mra, mrb = await pair()
        slot = cqa.ring + 32 * (cqa.ci & (cqa.depth - 1))
        fa.poison(slot)
        before = a.mem.read(slot & ~63, 64)
        cq0 = (await run_driver(a.ctx.counters))["wr_err_cq"]
        await run_driver(a.ctx.post_send, qa, [write(7, 4096, 4096, 256, mra, mrb)])
        for _ in range(100):
            await ClockCycles(dut.clk, 200)
            if (await run_driver(a.ctx.counters))["wr_err_cq"] != cq0:
                break
        assert (await run_driver(a.ctx.counters))["wr_err_cq"] == cq0 + 1
        assert a.mem.read(slot & ~63, 64) == before, "a refused CQE write changed memory"
        fa.spots.clear()
        for _ in range(20):
            ev = await run_driver(a.ctx.get_async_event)
            if ev is not None:
                break
            await ClockCycles(dut.clk, 50)
        assert ev == verbs.AsyncEvent(verbs.AsyncEventType.CQ_WRITE_ERR, cqa.cqn), ev
        try:
            await run_driver(a.ctx.poll_cq, cqa, 4)
            raise AssertionError("a poll of the CQ whose CQE write failed did not raise CqError")
        except verbs.CqError:
            pass

        # the NICs keep serving other QPs
        qa, qb, cqa, cqb, mra, mrb = await pair()
        await post(qa, [write(8, 12288, 12288, 3000, mra, mrb)])
        wa = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        assert [(w.wr_id, w.status) for w in wa] == [(8, "SUCCESS")], wa
        assert b.mem.read(lb + 12288, 3000) == a.mem.read(la + 12288, 3000)

        # one count per refused write, in the engine's counter only
        ca1, cb1 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
        d_a = {k: ca1[k] - ca0[k] for k in ca0 if k.startswith("wr_err") or k == "dma_err"}
        d_b = {k: cb1[k] - cb0[k] for k in cb0 if k.startswith("wr_err") or k == "dma_err"}
        dut._log.info("A %s, B %s, refused beats A %d B %d", d_a, d_b, fa.refused, fb.refused)
        assert d_a == {"dma_err": 0, "wr_err_resp": 0, "wr_err_cpl": 2, "wr_err_cq": 1,
                       "wr_err_lost": 0}, d_a
        assert d_b == {"dma_err": 0, "wr_err_resp": 2, "wr_err_cpl": 0, "wr_err_cq": 0,
                       "wr_err_lost": 0}, d_b
        assert fa.refused == 3 and fb.refused == 2, (fa.refused, fb.refused)

    @cocotb.test()
    async def rnr_timer(dut):
        """min_rnr_timer end to end (IBTA 9.7.5.2.8, C9-160): a SEND to a QP with no
        receive posted meets RNR NAKs whose timer code (AETH syndrome [4:0], parsed with
        scapy) is the responder QP's min_rnr_timer, not the requester's
        (rc_model.rnr_nak_code); the requester resends each time no earlier than the
        code's time (rc_model.RNR_TIMER_US, the spec's table) and no later than that time
        rounded up to whole timer ticks plus the tick in progress plus RNR_SLACK
        (rc_model.rnr_wait_window); the waits are no retransmission timeouts (the QP's
        timeout is far longer, the timeouts counter does not move); once the receive is
        posted the SEND completes, completions and data as rc_model. Twice: at the
        reference tick (timer_tick 1024 = 4.096 us at 250 MHz; code 5 = 60 us), then at a
        quarter of it (timer_tick 256) after an RTS -> RTS modify of the responder's
        min_rnr_timer to 9 (240 us, a quarter: 60 us)."""
        from rc_model import RcModel, compare_wcs, rnr_wait_window
        from scapy.layers.l2 import Ether

        from fabnic_tb import roce_layers as rl

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_rnr_timer.pcap")))
        await env.start()
        a, b = env.a, env.b
        size = 1 << 14
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        rng = random.Random(41)
        a.mem.write(la, rng.randbytes(size))
        b.mem.write(lb, rng.randbytes(size))
        code_a, code_b = 3, 5
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=12, rnr_retry=7,
                                                       min_rnr_timer=(code_a, code_b))
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
        model = RcModel()
        model.add_node("a", la, a.mem.read(la, size))
        model.add_node("b", lb, b.mem.read(lb, size))
        model.add_mr("a", mra.lkey, 1, la, size, ACC)
        model.add_mr("b", mrb.rkey, 2, lb, size, ACC)
        model.add_qp("a", qa.qpn, 1, ACC, min_rnr_timer=code_a)
        model.add_qp("b", qb.qpn, 2, ACC, min_rnr_timer=code_b)
        model.connect(("a", qa.qpn), ("b", qb.qpn))

        def wire(n0: int) -> tuple[list, list]:
            sends, naks = [], []
            for (side, f), cyc in zip(env.frames[n0:], env.frame_cycles[n0:], strict=True):
                p = Ether(f)
                bth = p[rl.BTH]
                op = int(bth.opcode)
                if side == "a" and op == rl.SEND_ONLY and int(bth.dqpn) == qb.qpn:
                    sends.append((cyc, int(bth.psn)))
                if side == "b" and op == rl.ACK and int(bth.dqpn) == qa.qpn \
                        and int(p[rl.AETH].syndrome) >> 5 == 1:
                    naks.append((cyc, int(bth.psn), int(p[rl.AETH].syndrome) & 0x1F))
            return sends, naks

        async def one_round(wr_id: int, tick: int, want_naks: int) -> None:
            code = model.rnr_nak_code(("a", qa.qpn))
            lo, hi = rnr_wait_window(code, tick)
            ca0, cb0 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
            n0 = len(env.frames)
            wr = SendWR(WrOpcode.SEND, wr_id=wr_id, local_addr=la + 512 * wr_id,
                        length=300, lkey=mra.lkey)
            model.post_send(("a", qa.qpn), wr)
            await run_driver(a.ctx.post_send, qa, [wr])
            limit = env.cycle + want_naks * (hi + RNR_SLACK) + 5000
            while len(wire(n0)[1]) < want_naks:
                assert env.cycle < limit, wire(n0)
                await ClockCycles(dut.clk, 250)
            rwr = RecvWR(wr_id=100 + wr_id, addr=lb + 8192, length=1024, lkey=mrb.lkey)
            model.post_recv(("b", qb.qpn), rwr)
            await run_driver(b.ctx.post_recv, qb, [rwr])
            wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 2 * (hi + RNR_SLACK) + 20000)
            rwcs = await run_driver(b.ctx.wait_cq, cqb, 1, 20000)
            res = model.finish()
            assert not compare_wcs(res.send_wcs[("a", qa.qpn)][-1:], wcs), wcs
            assert not compare_wcs(res.recv_wcs[("b", qb.qpn)][-1:], rwcs), rwcs
            assert b.mem.read(lb, size) == res.memory["b"], "receive buffer"
            sends, naks = wire(n0)
            gaps = [cs - cn for (cn, _, _), (cs, _) in zip(naks, sends[1:], strict=False)]
            dut._log.info("tick %d code %d: wait %d..%d cycles (+%d), RNR NAKs %d, gaps %s",
                          tick, code, lo, hi, RNR_SLACK, len(naks), gaps)
            assert len(naks) >= want_naks and len(sends) == len(naks) + 1, (sends, naks)
            assert len({p for _, p in sends} | {p for _, p, _ in naks}) == 1, (sends, naks)
            assert {c for _, _, c in naks} == {code}, naks
            assert all(lo <= g <= hi + RNR_SLACK for g in gaps), (gaps, lo, hi)
            ca1, cb1 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
            assert cb1["rx_rnr_nak"] - cb0["rx_rnr_nak"] == len(naks), (cb0, cb1)
            assert ca1["rx_naks"] - ca0["rx_naks"] == len(naks), (ca0, ca1)
            assert ca1["timeouts"] - ca0["timeouts"] == 0, (ca0, ca1)

        tick = await run_driver(a.ctx.dev.read, "roce", "timer_tick")
        assert tick == 1024                               # the reference: 4.096 us
        await one_round(1, tick, 3)
        # the responder's code changes at RTS; a shorter tick scales the wait down
        await run_driver(b.ctx.modify_qp, qb, verbs.QpState.RTS, min_rnr_timer=9)
        model.qps[("b", qb.qpn)].min_rnr_timer = 9
        await run_driver(a.ctx.dev.write, "roce", "timer_tick", 256)
        await one_round(2, 256, 2)
        await run_driver(a.ctx.dev.write, "roce", "timer_tick", tick)

    @cocotb.test()
    async def rnr_retry_exc(dut):
        """RNR retry exhaustion (IBTA 9.7.5.2.8 / C9-160): a SEND to a QP with no receive
        posted is answered by RNR NAKs; with rnr_retry = N (finite) the requester sends
        the SEND N + 1 times, sees N + 1 RNR NAKs (rc_model.rnr_naks_to_error), then
        completes it RNR_RETRY_EXC_ERR, flushes the WR behind it and its QP is in ERR; a
        WR posted later is flushed too. Completions against rc_model; NAKs and resends
        counted on the wire (scapy); every NAK carries the responder's min_rnr_timer code
        and the wait between an RNR NAK and the resend is the code's time
        (rc_model.rnr_wait_window), longer than the QP's timeout here, and no timeout is
        counted; the peer's memory untouched; another QP of the same NICs keeps
        working."""
        from rc_model import RcModel, compare_wcs, rnr_wait_window
        from scapy.layers.l2 import Ether

        from fabnic_tb import roce_layers as rl

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_rnr.pcap")))
        await env.start()
        a, b = env.a, env.b
        size = 1 << 14
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        rng = random.Random(31)
        a.mem.write(la, rng.randbytes(size))
        b.mem.write(lb, rng.randbytes(size))
        rnr_retry, timeout, rnr_code = 2, 2, 2      # RNR wait 20 us: longer than 2^2 ticks
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, timeout=timeout,
                                                       rnr_retry=rnr_retry,
                                                       min_rnr_timer=(1, rnr_code))
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
        tick = await run_driver(a.ctx.dev.read, "roce", "timer_tick")

        model = RcModel()
        model.add_node("a", la, a.mem.read(la, size))
        model.add_node("b", lb, b.mem.read(lb, size))
        model.add_mr("a", mra.lkey, 1, la, size, ACC)
        model.add_mr("b", mrb.rkey, 2, lb, size, ACC)
        model.add_qp("a", qa.qpn, 1, ACC, rnr_retry=rnr_retry, min_rnr_timer=1)
        model.add_qp("b", qb.qpn, 2, ACC, min_rnr_timer=rnr_code)
        model.connect(("a", qa.qpn), ("b", qb.qpn))
        n_naks = model.rnr_naks_to_error(("a", qa.qpn))
        code = model.rnr_nak_code(("a", qa.qpn))
        lo, hi = rnr_wait_window(code, tick)
        assert lo > (1 << timeout) * tick                 # the wait is not the timeout
        wrs = [SendWR(WrOpcode.SEND, wr_id=50, local_addr=la, length=300, lkey=mra.lkey),
               SendWR(WrOpcode.RDMA_WRITE, wr_id=51, local_addr=la + 1024, length=64,
                      lkey=mra.lkey, remote_addr=lb + 4096, rkey=mrb.rkey)]
        for wr in wrs:
            model.post_send(("a", qa.qpn), wr)
        ca0, cb0 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
        n0 = len(env.frames)
        await run_driver(a.ctx.post_send, qa, wrs)
        wcs = await run_driver(a.ctx.wait_cq, cqa, 2, 200000)
        late = SendWR(WrOpcode.SEND, wr_id=52, local_addr=la, length=100, lkey=mra.lkey)
        model.post_send(("a", qa.qpn), late)
        await run_driver(a.ctx.post_send, qa, [late])
        wcs += await run_driver(a.ctx.wait_cq, cqa, 1, 20000)
        res = model.finish()
        diff = compare_wcs(res.send_wcs[("a", qa.qpn)], wcs)
        assert not diff and [(w.wr_id, w.status) for w in wcs] == [
            (50, "RNR_RETRY_EXC_ERR"), (51, "WR_FLUSH_ERR"), (52, "WR_FLUSH_ERR")], (diff, wcs)
        assert (await run_driver(a.ctx.query_qp, qa)).state == verbs.QpState.ERR
        assert b.mem.read(lb, size) == res.memory["b"], "peer memory changed"
        assert not res.recv_wcs[("b", qb.qpn)]

        # the wire: N + 1 SENDs of the first PSN from A, N + 1 RNR NAKs from B
        sends, naks = [], []
        for (side, f), cyc in zip(env.frames[n0:], env.frame_cycles[n0:], strict=True):
            p = Ether(f)
            bth = p[rl.BTH]
            op = int(bth.opcode)
            if side == "a" and op == rl.SEND_ONLY and int(bth.dqpn) == qb.qpn:
                sends.append((cyc, int(bth.psn)))
            if side == "b" and op == rl.ACK and int(bth.dqpn) == qa.qpn \
                    and int(p[rl.AETH].syndrome) >> 5 == 1:
                naks.append((cyc, int(bth.psn), int(p[rl.AETH].syndrome) & 0x1F))
        dut._log.info("SENDs %s, RNR NAKs %s, RNR wait %d..%d cycles", sends, naks, lo, hi)
        assert len(naks) == n_naks, naks
        assert len(sends) == n_naks and len({p for _, p in sends}) == 1, sends
        assert all(p == sends[0][1] and c == code for _, p, c in naks), (sends, naks)
        # each resend follows the NAK before it by the code's time, at most by the
        # rounding to whole ticks and the tick in progress, plus the link, the timer
        # sweep and the rewind (RNR_SLACK)
        for (c_nak, _, _), (c_send, _) in zip(naks, sends[1:], strict=False):
            gap = c_send - c_nak
            assert lo <= gap <= hi + RNR_SLACK, (gap, lo, hi)
        ca1, cb1 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
        assert cb1["rx_rnr_nak"] - cb0["rx_rnr_nak"] == n_naks, (cb0, cb1)
        assert ca1["retry_exc"] - ca0["retry_exc"] == 1
        # the RNR waits are no retransmission timeouts; each NAK is counted once on each side
        assert ca1["timeouts"] - ca0["timeouts"] == 0, (ca0, ca1)
        assert ca1["rx_naks"] - ca0["rx_naks"] == n_naks, (ca0, ca1)

        # another QP pair of the same NICs still works
        qa2, qb2, cqa2, cqb2, pda2, pdb2 = await env.connect(ACC, timeout=timeout)
        mra2 = await run_driver(a.ctx.reg_mr, pda2, la, size, ACC)
        mrb2 = await run_driver(b.ctx.reg_mr, pdb2, lb, size, ACC)
        await run_driver(b.ctx.post_recv, qb2, [RecvWR(wr_id=60, addr=lb + 8192, length=512,
                                                       lkey=mrb2.lkey)])
        await run_driver(a.ctx.post_send, qa2, [SendWR(WrOpcode.SEND, wr_id=61,
                         local_addr=la + 2048, length=400, lkey=mra2.lkey)])
        wc = await run_driver(a.ctx.wait_cq, cqa2, 1, 20000)
        rwc = await run_driver(b.ctx.wait_cq, cqb2, 1, 20000)
        assert [(w.wr_id, w.status) for w in wc] == [(61, "SUCCESS")], wc
        assert [(w.wr_id, w.status, w.byte_len) for w in rwc] == [(60, "SUCCESS", 400)], rwc
        assert b.mem.read(lb + 8192, 400) == a.mem.read(la + 2048, 400)

    @cocotb.test()
    async def read_fault_mix(dut):
        """SLVERR on random beats of host reads under a random mix (issue: host faults).
        Eight rc_model lanes (every RC opcode, both directions) run at once; before they
        start, one random 64-byte word in the read range of about half of the WRITE/SEND
        WRs (the requester's payload, on both NICs) and the send-ring slots of random WRs
        are poisoned: the first read beat of each fails with SLVERR, later reads succeed.
        These are the retried classes (an SQE read is re-read, a requester payload read
        marks its frame bad and go-back-N resends it), so the outcome must be exactly
        rc_model's without faults: both memories and every completion (RcScoreboard);
        every poisoned word was read and failed once, and each failed burst counts once
        in its NIC's dma_err. Atomic targets, READ data at the responder (a response
        that left without its data ends the READ: payload_read_faults) and receive WQEs
        (responder_read_faults) are not poisoned."""
        from rc_model import _ATOMICS

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_read_fault_mix.pcap")))
        await env.start()
        seed = int(os.environ.get("ROCE_FAULT_SEED", "17"))
        rng = random.Random(seed)
        sb = RcScoreboard(env)
        for i in range(8):
            await sb.add(random_scenario(seed * 100 + i, n_wrs=6 + i % 4, max_len=3000),
                         timeout=2, sq_psn=(0x300 + 0x2000 * i, 0xFFFFF0 - i))

        nics = {"a": env.a, "b": env.b}
        poison: dict[str, set[int]] = {"a": set(), "b": set()}
        protect: dict[str, set[int]] = {"a": set(), "b": set()}
        reads: list[tuple[str, int, int]] = []          # (node, address, length)
        for lane in sb.lanes:
            slot = {"a": 0, "b": 0}
            for kind, q, wr in lane.scenario.bind(lane.bases, lane.keys):
                if kind != "send":
                    continue
                me, peer = q, "b" if q == "a" else "a"
                sq = lane.qps[q].handle
                if rng.random() < 0.25:                 # this WR's send-ring slot
                    poison[me].add(sq.sq_ring + 64 * (slot[q] & (sq.sq_depth - 1)))
                slot[q] += 1
                if wr.opcode in _ATOMICS:
                    protect[peer].add(wr.remote_addr & ~63)
                elif wr.opcode == WrOpcode.RDMA_READ:
                    protect[peer] |= set(range(wr.remote_addr & ~63,
                                               wr.remote_addr + wr.length, 64))
                    if wr.length:
                        rng.random()                    # (the draw of the other WRs)
                elif wr.length and rng.random() < 0.5:
                    reads.append((me, wr.local_addr, wr.length))
        for node, addr, n in reads:
            w = rng.randrange(addr & ~63, addr + n, 64) & ~63
            if w not in protect[node]:
                poison[node].add(w)

        state = {n: {"served": 0, "burst": 0, "bad_bursts": set(), "left": set(poison[n])}
                 for n in nics}
        for n, nic in nics.items():
            st, rd = state[n], nic.ram.read_if
            orig_read, orig_recv = rd._read, rd.ar_channel.recv

            async def _recv(st=st, orig_recv=orig_recv):
                ar = await orig_recv()
                st["burst"] += 1
                return ar

            async def _read(address: int, length: int, st=st, orig_read=orig_read) -> bytes:
                if address in st["left"]:
                    st["left"].discard(address)
                    st["served"] += 1
                    st["bad_bursts"].add(st["burst"])
                    raise OSError(f"poisoned read at {address:#x}")
                return await orig_read(address, length)

            rd.ar_channel.recv, rd._read = _recv, _read
        n_poison = {n: len(poison[n]) for n in nics}
        dut._log.info("mix: %s; poisoned words A %d, B %d", sb.summary(),
                      n_poison["a"], n_poison["b"])
        c0 = {n: await run_driver(nic.ctx.counters) for n, nic in nics.items()}
        await sb.post()
        diff = await sb.check()
        assert not diff, "\n".join(diff)
        c1 = {n: await run_driver(nic.ctx.counters) for n, nic in nics.items()}
        for n in nics:
            st = state[n]
            unread = sorted(hex(w) for w in st["left"])
            assert not unread, f"NIC {n}: poisoned words never read: {unread}"
            d = c1[n]["dma_err"] - c0[n]["dma_err"]
            dut._log.info("NIC %s: %d poisoned beats served in %d bursts, dma_err +%d, "
                          "retransmitted %d", n, st["served"], len(st["bad_bursts"]), d,
                          c1[n]["tx_retx_pkts"] - c0[n]["tx_retx_pkts"])
            assert st["served"] == n_poison[n]
            assert d == len(st["bad_bursts"]), (n, d, len(st["bad_bursts"]))
            for k in ("wr_err_resp", "wr_err_cpl", "wr_err_cq", "wr_err_lost"):
                assert c1[n][k] == c0[n][k], (n, k)
        assert sum(n_poison.values()) >= 10, "too few faults to mean anything"

    @cocotb.test()
    async def read_fault_fatal_mix(dut):
        """Persistent SLVERR on host reads that end a WR, under a random mix (issue: host
        faults). Eight one-way rc_model lanes (every RC opcode, QP a sends); in most
        lanes one random WR gets a 64-byte word of its read range poisoned for good:
        the requester's payload of a WRITE/SEND (-> LOC_QP_OP_ERR once the resends are
        spent), the responder's READ data (-> REM_OP_ERR: the responder NAKs the READ
        whose response left without its data, its QP in ERR), or an atomic's target
        (-> REM_OP_ERR, the responder's QP in ERR).
        Completions, flushes and both memories against rc_model with the same read
        faults (fail_reads), every lane at once: a failing QP never disturbs the
        others. The poisoned word is read by no other READ (whose failure would leave
        which later WRs had executed timing dependent), and a poisoned READ is its
        lane's last WR."""
        import dataclasses

        from rc_model import _ATOMICS

        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_read_fatal.pcap")))
        await env.start()
        seed = int(os.environ.get("ROCE_FAULT_SEED", "29"))
        rng = random.Random(seed)
        sb = RcScoreboard(env)
        plan: list[tuple[str, int]] = []            # (node, word offset) per faulted lane
        kinds = {"payload": 0, "read": 0, "atomic": 0, "none": 0}

        def words(addr: int, n: int) -> set[int]:
            return set(range(addr & ~63, addr + n, 64)) if n else set()

        for i in range(8):
            sc = random_scenario(seed * 100 + i, n_wrs=5 + i % 4, max_len=3000,
                                 one_way=True)
            reads = [op for op in sc.ops if op[0] == "send"
                     and op[2].opcode == WrOpcode.RDMA_READ]
            if reads and rng.random() < 0.5:        # a READ last (no WR depends on it)
                op = rng.choice(reads)
                sc.ops.remove(op)
                sc.ops.append((op[0], op[1], dataclasses.replace(op[2], signaled=True)))
            sends = [wr for kind, q, wr in sc.ops if kind == "send"]
            read_words: list[tuple[int, set[int]]] = [
                (k, words(wr.remote_addr, wr.length)) for k, wr in enumerate(sends)
                if wr.opcode == WrOpcode.RDMA_READ]
            choices = []
            for k, wr in enumerate(sends):
                if wr.opcode in _ATOMICS:
                    w = wr.remote_addr & ~63
                    if not any(w in ws for _, ws in read_words):
                        choices.append(("atomic", "b", w))
                elif wr.opcode == WrOpcode.RDMA_READ:
                    if k == len(sends) - 1:
                        others = set().union(*(ws for j, ws in read_words if j != k))
                        for w in sorted(words(wr.remote_addr, wr.length)):
                            if w not in others and not any(
                                    a.opcode in _ATOMICS and a.remote_addr & ~63 == w
                                    for a in sends):
                                choices.append(("read", "b", w))
                elif wr.length:
                    choices += [("payload", "a", w)
                                for w in sorted(words(wr.local_addr, wr.length))]
            fail: tuple[tuple[str, int, int], ...] = ()
            if choices and rng.random() < 0.85:
                kind = rng.choice(sorted({c[0] for c in choices}))
                _, node, w = rng.choice([c for c in choices if c[0] == kind])
                fail = ((node, w, 64),)
                plan.append((node, w))
                kinds[kind] += 1
            else:
                plan.append(("", 0))
                kinds["none"] += 1
            await sb.add(sc, timeout=1, retry_cnt=2, fail_reads=fail,
                         sq_psn=(0x500 + 0x3000 * i, 0xFFFF80 + i))

        nics = {"a": env.a, "b": env.b}
        faults = {n: ReadFaults(nic.ram) for n, nic in nics.items()}
        for lane, (node, w) in zip(sb.lanes, plan, strict=True):
            if node:
                faults[node].poison(lane.bases[node] + w)
        dut._log.info("mix: %s; faults %s", sb.summary(), kinds)
        c0 = {n: await run_driver(nic.ctx.counters) for n, nic in nics.items()}
        await sb.post()
        diff = await sb.check(max_polls=200000)
        assert not diff, "\n".join(diff)
        c1 = {n: await run_driver(nic.ctx.counters) for n, nic in nics.items()}
        for n in nics:
            dut._log.info("NIC %s: %d poisoned beats served, dma_err +%d", n,
                          faults[n].served, c1[n]["dma_err"] - c0[n]["dma_err"])
            assert (c1[n]["dma_err"] > c0[n]["dma_err"]) == (faults[n].served > 0), n
        assert sum(v for k, v in kinds.items() if k != "none") >= 4, kinds

    @cocotb.test()
    async def write_fault_mix(dut):
        """SLVERR on host writes under a random mix of standard (go-back-N) QPs: see
        _write_fault_mix."""
        await _write_fault_mix(dut, sr=False)

    @cocotb.test()
    async def write_fault_mix_sr(dut):
        """write_fault_mix with every lane a selective-repeat QP (out-of-order WRITE
        placement, SACKs held and dropped by the gate like ACKs): the same rc_model
        expectations, as the outcome of a host write fault does not depend on the QP's
        loss-recovery mode. The default seed 5 has, in lanes 2 and 5, a multi-packet
        SEND whose placement fault reaches the responder before the SEND's LAST: its
        receive, the one in use, completes LOC_QP_OP_ERR (seeds 11, 23 and 37 do not
        have that case)."""
        await _write_fault_mix(dut, sr=True)

    async def _write_fault_mix(dut, sr: bool):
        """SLVERR on host writes under a random mix (issue: host faults; the write gate,
        fabnic_roce_wr_gate). Eight one-way rc_model lanes (every RC opcode, QP a sends);
        in most lanes one 64-byte word that one WR writes, and no other WR of the lane
        writes, is poisoned (every write beat to it answers SLVERR): the responder's
        placement of a WRITE / WRITE_WITH_IMM / SEND (at B: REM_OP_ERR, B's QP in ERR, a
        SEND's receive LOC_QP_OP_ERR, the other receives flushed) or the completer's of a
        signaled READ's data or atomic's original value (at A: LOC_QP_OP_ERR; such a WR
        is moved behind the lane's last receive-consuming WR). Short messages included:
        their ACK and CQE are held until the B response is back. Completions and both
        memories against rc_model with the same faults (fail_writes); what the WRs behind
        the failing one write is undefined (they may have executed before the error
        reached the peer). Every poisoned word is written and refused, and each refused
        write counts once, in its engine's wr_err_* counter (none in dma_err, none
        lost)."""
        import dataclasses

        from rc_model import _ATOMICS, _NEEDS_RQE

        env = PairEnv(dut, Path(os.environ.get(
            "FABNIC_PCAP", f"roce_write_fault_mix{'_sr' if sr else ''}.pcap")))
        await env.start()
        seed = int(os.environ.get("ROCE_FAULT_SEED", "5" if sr else "31"))
        rng = random.Random(seed)
        sb = RcScoreboard(env)
        kinds = {"resp": 0, "cpl": 0, "none": 0}
        plan: list[tuple[str, int, int]] = []        # (node, word offset, op index) or ""

        def span(a: int, n: int) -> set[int]:
            return set(range(a & ~63, a + n, 64)) if n else set()

        for i in range(8):
            sc = random_scenario(seed * 100 + i, n_wrs=4 + i % 4, max_len=2500,
                                 one_way=True)
            recvs = [wr for kind, _q, wr in sc.ops if kind == "recv"]
            sends = [k for k, op in enumerate(sc.ops) if op[0] == "send"]

            def writes(ops, recvs=recvs):
                """(node, offset, length, op index) of every host write range of a WR."""
                out, r = [], 0
                for k, (kind, _q, wr) in enumerate(ops):
                    if kind != "send":
                        continue
                    if wr.opcode in _NEEDS_RQE:
                        if wr.opcode != WrOpcode.RDMA_WRITE_WITH_IMM and wr.length:
                            out.append(("b", recvs[r].addr, wr.length, k))
                        r += 1
                    if wr.opcode in (WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM) \
                            and wr.length:
                        out.append(("b", wr.remote_addr, wr.length, k))
                    if wr.opcode in _ATOMICS:
                        out.append(("b", wr.remote_addr, 8, k))
                        out.append(("a", wr.local_addr, 8, k))
                    if wr.opcode == WrOpcode.RDMA_READ and wr.length:
                        out.append(("a", wr.local_addr, wr.length, k))
                return out

            kind = ("resp", "cpl", "resp", "resp", "cpl", "resp", "none", "cpl")[i]
            fail: tuple[tuple[str, int, int], ...] = ()
            at = moved = -1
            if kind == "cpl":
                cand = [k for k in sends if sc.ops[k][2].opcode in (*_ATOMICS,
                                                                    WrOpcode.RDMA_READ)
                        and (sc.ops[k][2].length or sc.ops[k][2].opcode in _ATOMICS)]
                if cand:
                    k = rng.choice(cand)
                    op = sc.ops.pop(k)
                    last_rqe = max([j for j, o in enumerate(sc.ops) if o[0] == "send"
                                    and o[2].opcode in _NEEDS_RQE], default=-1)
                    first_send = min(j for j, o in enumerate(sc.ops + [op])
                                     if o[0] == "send")
                    moved = max(last_rqe + 1, first_send)
                    sc.ops.insert(moved,
                                  (op[0], op[1], dataclasses.replace(op[2], signaled=True)))
                else:
                    kind = "resp"
            ws = writes(sc.ops)
            choices = []
            for kd in (kind, "resp") if kind != "none" else ():
                mine = [w for w in ws if w[0] == ("b" if kd == "resp" else "a")
                        and (kd == "cpl" or sc.ops[w[3]][2].opcode not in _ATOMICS)]
                if kd == "cpl":
                    mine = [w for w in mine if w[3] == moved]
                for node, a, n, k in mine:
                    others = set().union(*(span(a2, n2) for nd2, a2, n2, k2 in ws
                                           if nd2 == node and k2 != k))
                    choices += [(node, w, k) for w in sorted(span(a, n) - others)]
                if choices:
                    kind = kd
                    break
            if kind != "none":
                if choices:
                    node, w, at = rng.choice(choices)
                    fail = ((node, w, 64),)
                else:
                    kind = "none"
            kinds[kind] += 1
            plan.append((fail[0][0], fail[0][1], at) if fail else ("", 0, -1))
            lane = await sb.add(sc, timeout=4, retry_cnt=2, fail_writes=fail, sr=sr,
                                sq_psn=(0x700 + 0x3000 * i, 0xFFFF90 + i))
            if fail:
                # the WRs behind the failing one may have run before the error was known
                for node, a, n, k in ws:
                    if k > at:
                        lane.expect.undefined.append((node, lane.bases[node] + a, n))

        nics = {"a": env.a, "b": env.b}
        faults = {n: WriteFaults(nic.ram) for n, nic in nics.items()}
        words: dict[str, set[int]] = {"a": set(), "b": set()}
        for lane, (node, w, _at) in zip(sb.lanes, plan, strict=True):
            if node:
                faults[node].poison(lane.bases[node] + w)
                words[node].add(lane.bases[node] + w)
        seen: dict[str, set[int]] = {"a": set(), "b": set()}
        for n in faults:
            wr_if = nics[n].ram.write_if
            inner = wr_if._write

            async def _write(address: int, data: bytes, n=n, inner=inner) -> None:
                if address & ~63 in words[n]:
                    seen[n].add(address & ~63)
                await inner(address, data)

            wr_if._write = _write
        dut._log.info("mix: %s; faults %s", sb.summary(), kinds)
        c0 = {n: await run_driver(nic.ctx.counters) for n, nic in nics.items()}
        await sb.post()
        diff = await sb.check(max_polls=200000)
        assert not diff, "\n".join(diff)
        c1 = {n: await run_driver(nic.ctx.counters) for n, nic in nics.items()}
        for n in nics:
            d = {k: c1[n][k] - c0[n][k] for k in ("wr_err_resp", "wr_err_cpl", "wr_err_cq",
                                                 "wr_err_lost", "dma_err")}
            dut._log.info("NIC %s: %d poisoned beats refused, %s", n, faults[n].refused, d)
            assert seen[n] == words[n], (n, sorted(words[n] - seen[n]))
            own = "wr_err_resp" if n == "b" else "wr_err_cpl"
            assert d[own] == faults[n].refused, (n, d, faults[n].refused)
            assert all(v == 0 for k, v in d.items() if k != own), (n, d)
        assert kinds["resp"] >= 3 and kinds["resp"] + kinds["cpl"] >= 5, kinds


# One Verilator model of the pair serves the tests here and in test_roce_sr.py (a build
# of it is among the largest costs of the regression). The QPN-space test has its own
# 16,384-QP build: with that many QPs the timer sweep is slower and the timeouts of the
# other tests would change. (The FEC tests cannot share it yet: at 16,384 QPs
# fec_ge_burst sees a shim frame with zero addresses on the wire.)
PAIR_PARAMS = {"NUM_QP": 64, "NUM_CQ": 16, "NUM_MR": 64}


PAIR_TESTS = ("basic_ops", "drop_cases", "lossy_mix", "model_errors", "hostile_under_load",
              "multi_qp_mix",
              "error_cases", "cq_overflow", "rqe_batch", "dcqcn_loop", "xlate_cache",
              "sqe_read_faults", "responder_read_faults", "payload_read_faults", "rnr_retry_exc",
              "rnr_timer",
              "host_write_faults", "read_fault_mix", "read_fault_fatal_mix", "write_fault_mix",
              "write_fault_mix_sr", "ipv6_mix",
              "sqe_readahead", "sqe_readahead_persistent", "sqe_reread_fault")


# The tests of the one pair model run in two halves, one per xdist worker (make sim runs
# two): each half is a group, so a worker runs its half in sequence; the first test of
# either half builds the model, the other half waits for that build (the runner's build
# lock) and reuses it. tb/conftest.py schedules the second half after the other large
# builds, so that its worker does not sit waiting. Second half: these, and the
# selective-repeat tests (test_roce_sr.py).
PAIR_GROUP_2 = ("dcqcn_loop", "xlate_cache", "multi_qp_mix", "cq_overflow", "sqe_read_faults",
                "sqe_readahead_persistent")


def pair_group(case: str, second: bool = False) -> str:
    """xdist group of a test of the pair model (see above)."""
    return "tb_roce_pair_2" if second or case in PAIR_GROUP_2 else "tb_roce_pair"


def cases(env_name: str, default: tuple[str, ...], second: bool = False) -> list:
    """The cocotb tests to run, one pytest item each: ``default``, or the comma list in
    the environment variable ``env_name`` (as ``pytest -k`` selects by name); each marked
    with its half's xdist group."""
    chosen = os.environ.get(env_name, "")
    names = [c for c in chosen.split(",") if c] or list(default)
    return [pytest.param(c, marks=pytest.mark.xdist_group(pair_group(c, second)), id=c)
            for c in names]


@pytest.mark.parametrize("case", cases("ROCE_TESTS", PAIR_TESTS))
def test_roce_pair(case: str) -> None:
    run(toplevel="tb_roce_pair", module="test_roce_pair", test_dir=HERE,
        extra_sources=[HERE / "tb_roce_pair.sv"], read_only_internals=True, parameters=PAIR_PARAMS, testcase=case)


def test_roce_pair_16k_qps():
    run(toplevel="tb_roce_pair", module="test_roce_pair", test_dir=HERE,
        extra_sources=[HERE / "tb_roce_pair.sv"], read_only_internals=True,
        parameters={**PAIR_PARAMS, "NUM_QP": 16384}, testcase="scale_qpn")


@pytest.mark.slow
@pytest.mark.xdist_group("tb_roce_pair_2")
@pytest.mark.parametrize("seed", [101, 202, 303])
def test_roce_pair_hostile_soak(seed):
    """hostile_under_load with 3,000 frames per seed (make sim SLOW=1)."""
    run(toplevel="tb_roce_pair", module="test_roce_pair", test_dir=HERE,
        extra_sources=[HERE / "tb_roce_pair.sv"], read_only_internals=True, parameters=PAIR_PARAMS,
        testcase="hostile_under_load",
        extra_env={"ROCE_HOSTILE_SEED": str(seed), "ROCE_HOSTILE_N": "3000"})
