# SPDX-License-Identifier: Apache-2.0
"""Selective repeat (docs/roce_sr.md) between two fabnic RoCE NICs (tb_roce_pair, FEC
off), QPs created with ``selective_repeat=True`` through the fw/ verbs API.

- sr_drop_list: one WRITE stream (the last message longer than the window), chosen data
  frames dropped by the link's drop list:
  every PSN goes on the wire exactly 1 + (times it was dropped) times (no go-back-N),
  a tail burst of three is recovered by one probe (sr_probe resends all of them, no
  timeout), memory exact; every WRITE frame's RETH (VA of the packet's first byte, rkey, message length) and payload checked
  against the segmentation computed here from the work requests; SACK frames parsed
  with a scapy layer defined here (base = PSN + 1, bit 0 clear, one block, marked PSNs
  were delivered before); ICRC of every frame (zlib reference in fabnic_tb.roce_layers).
- sr_lossy_mix: three SR QP pairs and one standard (sr=0) pair on the same NICs, random
  WRITE/SEND/READ mixes (SEND and WRITE with immediate included) over links that lose,
  reorder and duplicate frames both ways:
  every byte, every CQE (order, status, receive byte_len) exact; the sr=0 QP sees no SR
  layouts (no RETH on WRITE MIDDLE/LAST, no SACK); SACK counters against the wire tap.
- sr_reorder: reordering without loss (the link holds a frame back until the next one
  has passed): with the default reorder tolerance (register roce.sr_reorder = 3) no
  packet is resent; with sr_reorder = 1 every overtaken packet that a SACK showed
  missing is resent although it was never lost (spurious resends, seen as duplicates at
  the responder). Memory exact in both runs.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import pytest
from test_roce_pair import PAIR_PARAMS, cases

from fabnic_tb.runner import run

HERE = Path(__file__).parent

try:
    import cocotb
    from rc_model import random_scenario
    from roce_env import PairEnv, check_wire
    from scapy.fields import ByteField, X3BytesField, XLongField
    from scapy.packet import Packet
    from scoreboard import RcScoreboard

    from fabnic.verbs import Access, RecvWR, SendWR, WrOpcode
    from fabnic_tb.fw_bus import run_driver
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

OP_SACK = 0xC0
MTU = 1024
WRITE_OPS = range(0x06, 0x0C)

if cocotb is not None:
    ACC = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC

    class SACKETH(Packet):
        """Selective-repeat SACK extension header (docs/roce_sr.md, 24 bytes)."""
        name = "SACKETH"
        fields_desc = [ByteField("rsvd", 0), X3BytesField("base", 0), XLongField("bitmap0", 0),
                       ByteField("nblk", 0), X3BytesField("base1", 0), XLongField("bitmap1", 0)]

    def roce_fields(frame: bytes) -> dict:
        """Ethernet/IPv4/UDP/BTH fields of a RoCEv2 frame (scapy) and the bytes after BTH
        (without ICRC)."""
        from scapy.layers.l2 import Ether

        from fabnic_tb import roce_layers as rl
        p = Ether(frame)
        bth = p[rl.BTH]
        rest = bytes(bth.payload)              # scapy keeps the ICRC in BTH
        return {"op": int(bth.opcode), "dqpn": int(bth.dqpn), "psn": int(bth.psn),
                "ackreq": int(bth.ackreq), "pad": int(bth.padcount), "rest": rest}

    def sr_write_fields(f: dict) -> tuple[int, int, int, bytes]:
        """RETH (va, rkey, dma_len) and payload of a WRITE packet of an SR QP."""
        va, rkey, dlen = struct.unpack(">QII", f["rest"][:16])
        off = 16 + (4 if f["op"] in (0x09, 0x0B) else 0)
        body = f["rest"][off:]
        return va, rkey, dlen, body[:len(body) - f["pad"]]

    def check_sack(f: dict, delivered: set[int]) -> SACKETH:
        """A SACK frame: AETH ACK syndrome, SACKETH per docs/roce_sr.md."""
        assert len(f["rest"]) == 28, f"SACK headers {len(f['rest'])} bytes"
        syn, msn = f["rest"][0], int.from_bytes(f["rest"][1:4], "big")
        s = SACKETH(f["rest"][4:28])
        assert syn == 0x1F, f"SACK syndrome {syn:#x}"
        assert s.rsvd == 0 and s.nblk == 0 and s.base1 == 0 and s.bitmap1 == 0, s.show(dump=True)
        assert s.base == (f["psn"] + 1) & 0xFFFFFF, (s.base, f["psn"])
        assert s.bitmap0 & 1 == 0 and s.bitmap0 != 0, hex(s.bitmap0)
        marked = {(s.base + i) & 0xFFFFFF for i in range(64) if s.bitmap0 >> i & 1}
        assert marked <= delivered, f"SACK marks PSNs never delivered: {marked - delivered}"
        assert msn >= 0
        return s

    @cocotb.test()
    async def sr_drop_list(dut):
        """WRITE stream with dropped data frames: exactly the dropped PSNs are resent."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_sr_drops.pcap")))
        await env.start()
        psn0 = 0x100
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=MTU, timeout=3, sr=True,
                                                       sq_psn_a=psn0)
        a, b = env.a, env.b
        rng = random.Random(11)
        size = 1 << 18
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        src = bytes(rng.randrange(256) for _ in range(size))
        a.mem.write(la, src)
        b.mem.write(lb, bytes(size))
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
        # five WRITEs (8 + 7 + 1 + 9 + 98 packets at MTU 1024), remote offsets apart; the
        # last is longer than the 64-PSN window, so its holes are SACKed while the
        # requester is still inside it
        lens = [8192, 7000, 1000, 9000, 100000]
        wrs, segs = [], {}      # segs: PSN -> (remote VA, rkey, message length, source bytes)
        psn, off = psn0, 0
        for i, n in enumerate(lens):
            ra = lb + 100 + off
            wrs.append(SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + off, length=n,
                              lkey=mra.lkey, remote_addr=ra, rkey=mrb.rkey))
            for k in range((n + MTU - 1) // MTU):
                segs[psn] = (ra + k * MTU, mrb.rkey, n, src[off + k * MTU:off + min(n, (k + 1) * MTU)])
                psn += 1
            off += n + 512
        npk = psn - psn0
        # frame indices on A -> B (8 at most); the last three are a tail burst
        drops = [2, 5, 6, 17, 40, npk - 3, npk - 2, npk - 1]
        fin = int(dut.lab_cnt_frames_in.value)
        mark = len(env.frames)
        env.link("lab", drop_list=sum((fin + d) << (32 * i) for i, d in enumerate(drops)),
                 drop_list_en=(1 << len(drops)) - 1)
        await run_driver(a.ctx.post_send, qa, wrs)
        try:
            wcs = await run_driver(a.ctx.wait_cq, cqa, len(wrs), 40000)
        except Exception:
            dut._log.error("A %s", await run_driver(a.ctx.counters))
            dut._log.error("B %s", await run_driver(b.ctx.counters))
            raise
        env.link("lab", drop_list_en=0)
        assert [w.wr_id for w in wcs] == list(range(len(wrs))) and all(w.ok for w in wcs), wcs
        off = 0
        for n in lens:
            assert b.mem.read(lb + 100 + off, n) == src[off:off + n], f"WRITE at {off} differs"
            off += n + 512
        assert b.mem.read(lb, 100) == bytes(100)

        # the wire: A's frames in link order (the link's frame index counts them too)
        sent: dict[int, int] = {}
        dropped: dict[int, int] = {}
        delivered: set[int] = set()
        nsack = 0
        msn_last = 0
        idx = 0
        for side, fr in env.frames[mark:]:
            f = roce_fields(fr)
            if side == "a":
                assert f["op"] in WRITE_OPS and f["dqpn"] == qb.qpn, f
                va, rkey, dlen, body = sr_write_fields(f)
                want = segs[f["psn"]]
                assert (va, rkey, dlen, body) == want, (f["psn"], hex(va), hex(want[0]))
                sent[f["psn"]] = sent.get(f["psn"], 0) + 1
                if idx in drops:
                    dropped[f["psn"]] = dropped.get(f["psn"], 0) + 1
                else:
                    delivered.add(f["psn"])
                idx += 1
            else:
                assert f["dqpn"] == qa.qpn
                if f["op"] == OP_SACK:
                    nsack += 1
                    check_sack(f, delivered)
                    msn = int.from_bytes(f["rest"][1:4], "big")
                    assert msn >= msn_last
                    msn_last = msn
                else:
                    assert f["op"] == 0x11 and f["rest"][0] == 0x1F, f   # plain ACK, no NAK
        dut._log.info("dropped PSNs %s; transmissions %s", dropped, sent)
        assert sorted(sent) == list(range(psn0, psn0 + npk)), sorted(sent)
        bad = {p: n for p, n in sent.items() if n != 1 + dropped.get(p, 0)}
        assert not bad, f"PSNs sent a wrong number of times (go-back-N?): {bad}"
        assert len(dropped) == len(drops)
        ca = await run_driver(a.ctx.counters)
        cb = await run_driver(b.ctx.counters)
        dut._log.info("A %s", ca)
        dut._log.info("B %s", cb)
        assert ca["sr_retx"] == len(drops) and ca["tx_retx_pkts"] == len(drops), ca
        # the tail burst (no later packet whose SACK would ask for it): one probe
        # (register sr_probe) resends all three, no timeout
        assert ca["sr_probe"] == 1 and ca["timeouts"] == 0, ca
        assert ca["rx_naks"] == 0 and cb["rx_seq_nak"] == 0
        assert cb["sr_sack_tx"] == nsack and nsack > 0, (cb, nsack)
        assert ca["sr_sack_rx"] == nsack, ca    # the B -> A link loses nothing here
        assert cb["sr_ooo_placed"] > 0 and cb["sr_drop"] == 0, cb
        check_wire(env.frames)

    def sr_send_fields(f: dict) -> tuple[int, int, int, int, bytes]:
        """SOFFETH (offset, reserved byte, SSN, message length) and payload of a SEND
        packet of an SR QP (docs/roce_sr.md)."""
        off, ssnw, mlen = struct.unpack(">QII", f["rest"][:16])
        hl = 16 + (4 if f["op"] in (0x03, 0x05) else 0)
        body = f["rest"][hl:]
        return off, ssnw >> 24, ssnw & 0xFFFFFF, mlen, body[:len(body) - f["pad"]]

    async def send_stream(env, dut, qa, qb, cqa, cqb, mra, mrb, la, lb, msgs, drops,
                          rng, seq: list[int], early: int | None = None
                          ) -> tuple[dict, dict, dict]:
        """Post msgs ((opcode, length) with SEND / SEND_WITH_IMM / RDMA_WRITE_WITH_IMM)
        A -> B over an SR QP pair, one receive WQE each, with frame indices `drops` of the
        A -> B link dropped; check A's and B's completions (order, status, byte_len,
        immediate), B's memory, and every A -> B frame's SOFFETH / RETH and payload
        against the segmentation computed here. seq = [next PSN, next SSN], updated.
        early: post only that many receive WQEs before the sends, the rest 3,000 cycles
        after (RNR).
        Returns (transmissions per PSN, drops per PSN, counters delta of B)."""
        a, b = env.a, env.b
        wrs, recvs, expect, segs = [], [], [], {}
        off, roff = 0, 0
        psn, ssn = seq
        for i, (op, n) in enumerate(msgs):
            src = rng.randbytes(n)
            a.mem.write(la + off, src)
            rbuf = lb + roff
            b.mem.write(rbuf, bytes([0xA5]) * (n + 64))
            recvs.append(RecvWR(wr_id=500 + i, addr=rbuf, length=n + 64, lkey=mrb.lkey))
            imm = rng.randrange(1 << 32)
            wr = SendWR(op, wr_id=i, local_addr=la + off, length=n, lkey=mra.lkey, imm=imm)
            if op == WrOpcode.RDMA_WRITE_WITH_IMM:
                wr = SendWR(op, wr_id=i, local_addr=la + off, length=n, lkey=mra.lkey, imm=imm,
                            remote_addr=rbuf, rkey=mrb.rkey)
            wrs.append(wr)
            expect.append((500 + i, n, imm if op != WrOpcode.SEND else None, src, rbuf))
            for k in range(max(1, (n + MTU - 1) // MTU)):
                segs[psn] = (op, k * MTU, ssn, n, src[k * MTU:(k + 1) * MTU], rbuf)
                psn = (psn + 1) & 0xFFFFFF
            ssn += 1
            off += n + 64
            roff += n + 128
        cb0 = await run_driver(b.ctx.counters)
        await run_driver(b.ctx.post_recv, qb, recvs[:early])
        fin = int(dut.lab_cnt_frames_in.value)
        mark = len(env.frames)
        env.link("lab", drop_list=sum((fin + d) << (32 * i) for i, d in enumerate(drops)),
                 drop_list_en=(1 << len(drops)) - 1)
        await run_driver(a.ctx.post_send, qa, wrs)
        if early is not None:
            from cocotb.triggers import ClockCycles
            await ClockCycles(dut.clk, 3000)
            await run_driver(b.ctx.post_recv, qb, recvs[early:])
        try:
            wcs = await run_driver(a.ctx.wait_cq, cqa, len(wrs), 40000)
            rwcs = await run_driver(b.ctx.wait_cq, cqb, len(recvs), 40000)
        except Exception:
            dut._log.error("A %s", await run_driver(a.ctx.counters))
            dut._log.error("B %s", await run_driver(b.ctx.counters))
            raise
        env.link("lab", drop_list_en=0)
        assert [w.wr_id for w in wcs] == list(range(len(wrs))) and all(w.ok for w in wcs), wcs
        # B: receive completions in message order, exact byte_len and immediate
        got = [(w.wr_id, w.byte_len, w.imm, w.status) for w in rwcs]
        assert got == [(e[0], e[1], e[2], "SUCCESS") for e in expect], got
        for (_, n, _, src, rbuf), w in zip(expect, rwcs, strict=True):
            assert b.mem.read(rbuf, n + 64) == src + bytes([0xA5]) * 64, f"receive {w.wr_id}"
        # the wire
        sent: dict[int, int] = {}
        dropped: dict[int, int] = {}
        idx = 0
        for side, fr in env.frames[mark:]:
            if side != "a":
                continue
            f = roce_fields(fr)
            op, moff, mssn, mlen, body, rbuf = segs[f["psn"]]
            if op == WrOpcode.RDMA_WRITE_WITH_IMM:
                assert f["op"] in (0x06, 0x07, 0x09, 0x0B), f
                va, rkey, dlen, pay = sr_write_fields(f)
                assert (va, rkey, dlen, pay) == (rbuf + moff, mrb.rkey, mlen, body), f["psn"]
            else:
                assert f["op"] <= 0x05, f
                assert sr_send_fields(f) == (moff, 0, mssn, mlen, body), (
                    f["psn"], sr_send_fields(f)[:4], (moff, mssn, mlen))
            sent[f["psn"]] = sent.get(f["psn"], 0) + 1
            if idx in drops:
                dropped[f["psn"]] = dropped.get(f["psn"], 0) + 1
            idx += 1
        assert sorted(sent) == sorted(segs), "every PSN on the wire"
        cb = await run_driver(b.ctx.counters)
        seq[:] = [psn, ssn]
        return sent, dropped, {k: cb[k] - cb0[k] for k in cb}

    @cocotb.test()
    async def sr_send_ooo(dut):
        """SENDs of an SR QP are placed out of order (SOFFETH: message offset and SSN):
        with drops inside and between multi-packet SENDs, every dropped PSN is resent once
        and nothing else (no ORDERED_EARLY drops), receive CQEs come in order with exact
        byte_len / immediate, memory exact; then more out-of-order SEND LASTs than the
        CQE stash holds: the overflow waits for its in-order resend, still exact."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_sr_send.pcap")))
        await env.start()
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=MTU, timeout=3, sr=True,
                                                       sq_psn_a=0xFFFFF8)
        a, b = env.a, env.b
        rng = random.Random(29)
        size = 1 << 18
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
        S, SI, WI = WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM
        # frames: WI 0-1 | S3000 2-4 | S1024 5 | S0 6 | SI5000 7-11 | S700 12 | SI2048 13-14
        #         | S4100 15-19 | S100 20 | SI100 21 | S9000 22-30
        msgs = [(WI, 1500), (S, 3000), (S, 1024), (S, 0), (SI, 5000), (S, 700), (SI, 2048),
                (S, 4100), (S, 100), (SI, 100), (S, 9000)]
        # a FIRST (its MIDDLE and LAST land first), a SEND ONLY (later messages use RQEs
        # beyond the next one), a MIDDLE, a LAST with immediate, the tail burst of three
        drops = [2, 5, 9, 14, 20, 28, 29, 30]
        seq = [0xFFFFF8, 0]       # A's next PSN (wraps 2^24 here) and SSN
        sent, dropped, db = await send_stream(env, dut, qa, qb, cqa, cqb, mra, mrb, la, lb,
                                              msgs, drops, rng, seq)
        dut._log.info("dropped %s; B %s", dropped, {k: v for k, v in db.items() if v})
        assert len(dropped) == len(drops)
        bad = {p: n for p, n in sent.items() if n != 1 + dropped.get(p, 0)}
        assert not bad, f"PSNs sent a wrong number of times: {bad}"
        assert db["sr_drop"] == 0 and db["sr_ooo_placed"] >= 10, db
        assert db["rx_seq_nak"] == 0 and db["rx_rnr_nak"] == 0, db

        # stash overflow: the first SEND lost, 24 single-packet SENDs behind it
        msgs = [(S, 256)] * 25
        sent, dropped, db = await send_stream(env, dut, qa, qb, cqa, cqb, mra, mrb, la, lb,
                                              msgs, [0], rng, seq)
        dut._log.info("overflow: resends %s; B %s",
                      {p: n for p, n in sent.items() if n > 1}, {k: v for k, v in db.items() if v})
        # 24 out-of-order SEND ONLYs: the first 16 (SR_STASH, the resp default) are
        # placed and parked, the other 8 dropped unmarked and resent once each
        assert db["sr_ooo_placed"] == 16 and db["sr_drop"] == 8, db
        assert sorted(n for n in sent.values() if n > 1) == [2] * 9, sent

        # receive WQEs posted late: 2 of 8 at first; the third SEND meets an RNR NAK at
        # the expected PSN, the ones behind it are dropped unmarked (their WQEs are not
        # posted), and all of them complete, in order, after the receives are posted
        msgs = [(S, 512)] * 3 + [(SI, 2000)] + [(S, 512)] * 4
        sent, dropped, db = await send_stream(env, dut, qa, qb, cqa, cqb, mra, mrb, la, lb,
                                              msgs, [], rng, seq, early=2)
        dut._log.info("late receives: B %s", {k: v for k, v in db.items() if v})
        assert db["rx_rnr_nak"] >= 1 and db["sr_drop"] >= 1, db
        check_wire(env.frames)

    @cocotb.test()
    async def sr_send_err(dut):
        """An SR SEND whose receive WQE fails its lkey check, lost once, with two good
        SENDs behind it placed out of order: the in-order resend gets the error (receive
        CQE LOC_PROT_ERR, NAK -> REM_OP_ERR at A, the rest flushed), and the two parked
        completions are not released as successes (B's side enters ERR: their receives
        complete flushed)."""
        env = PairEnv(dut)
        await env.start()
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=MTU, timeout=3, sr=True)
        a, b = env.a, env.b
        la, lb = a.mem.alloc(8192), b.mem.alloc(8192)
        a.mem.write(la, random.Random(5).randbytes(8192))
        b.mem.write(lb, bytes(8192))
        mra = await run_driver(a.ctx.reg_mr, pda, la, 8192, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 8192, ACC)
        bad_lkey = mrb.lkey ^ 0x5A00          # an MR index that is not registered
        await run_driver(b.ctx.post_recv, qb, [
            RecvWR(wr_id=40, addr=lb, length=1024, lkey=bad_lkey),
            RecvWR(wr_id=41, addr=lb + 2048, length=1024, lkey=mrb.lkey),
            RecvWR(wr_id=42, addr=lb + 4096, length=1024, lkey=mrb.lkey)])
        fin = int(dut.lab_cnt_frames_in.value)
        env.link("lab", drop_list=fin, drop_list_en=1)       # the first SEND's frame
        cb0 = await run_driver(b.ctx.counters)
        await run_driver(a.ctx.post_send, qa, [
            SendWR(WrOpcode.SEND, wr_id=i, local_addr=la + 1024 * i, length=512, lkey=mra.lkey)
            for i in range(3)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 3, 40000)
        env.link("lab", drop_list_en=0)
        assert [(w.wr_id, w.status) for w in wcs] == [
            (0, "REM_OP_ERR"), (1, "WR_FLUSH_ERR"), (2, "WR_FLUSH_ERR")], wcs
        from cocotb.triggers import ClockCycles
        await ClockCycles(dut.clk, 2000)
        rwcs = await run_driver(b.ctx.poll_cq, cqb, 8)
        # B's side is in ERR after the error: the two receives behind it are flushed
        assert [(w.wr_id, w.status) for w in rwcs] == [
            (40, "LOC_PROT_ERR"), (41, "WR_FLUSH_ERR"), (42, "WR_FLUSH_ERR")], rwcs
        cb = await run_driver(b.ctx.counters)
        d = {k: cb[k] - cb0[k] for k in cb}
        dut._log.info("B %s", {k: v for k, v in d.items() if v})
        assert d["sr_ooo_placed"] == 2, d          # the two good SENDs were placed early
        assert b.mem.read(lb, 1024) == bytes(1024)  # nothing in the bad buffer

    @cocotb.test()
    async def sr_read_ooo(dut):
        """READ responses of an SR QP are placed out of order: with responses dropped in
        the middle (one, a burst of two, one more) and at the end, every hole is asked
        for with a one-packet READ at its PSN, the tail by one probe re-issuing the READ
        for the rest; nothing else is re-requested, memory exact, no timeout."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_sr_read.pcap")))
        await env.start()
        psn0 = 0xFFFFF0                     # the READ's PSNs wrap 2^24
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=MTU, timeout=3, sr=True,
                                                       sq_psn_a=psn0)
        a, b = env.a, env.b
        n = 40 * MTU
        la, lb = a.mem.alloc(n + 256), b.mem.alloc(n + 256)
        src = random.Random(31).randbytes(n)
        b.mem.write(lb + 64, src)
        a.mem.write(la, bytes([0x5A]) * (n + 256))
        mra = await run_driver(a.ctx.reg_mr, pda, la, n + 256, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n + 256, ACC)
        drops = [3, 10, 11, 25, 39]         # response indices on B -> A
        fin = int(dut.lba_cnt_frames_in.value)
        mark = len(env.frames)
        ca0 = await run_driver(a.ctx.counters)
        env.link("lba", drop_list=sum((fin + d) << (32 * i) for i, d in enumerate(drops)),
                 drop_list_en=(1 << len(drops)) - 1)
        await run_driver(a.ctx.post_send, qa, [
            SendWR(WrOpcode.RDMA_READ, wr_id=7, local_addr=la + 32, length=n, lkey=mra.lkey,
                   remote_addr=lb + 64, rkey=mrb.rkey)])
        try:
            wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 40000)
        except Exception:
            dut._log.error("A %s", await run_driver(a.ctx.counters))
            dut._log.error("B %s", await run_driver(b.ctx.counters))
            raise
        env.link("lba", drop_list_en=0)
        assert wcs[0].wr_id == 7 and wcs[0].ok, wcs
        assert a.mem.read(la, n + 256) == bytes([0x5A]) * 32 + src + bytes([0x5A]) * 224
        # READ requests on the wire: the READ, then one per dropped response, each for
        # exactly that response (VA and length of its PMTU segment)
        reqs = []
        for side, fr in env.frames[mark:]:
            f = roce_fields(fr)
            if side == "a":
                assert f["op"] == 0x0C, f          # only READ requests go A -> B here
                va, rkey, dlen = struct.unpack(">QII", f["rest"][:16])
                reqs.append((f["psn"], va - (lb + 64), dlen))
        want = [(psn0, 0, n)] + [((psn0 + k) & 0xFFFFFF, k * MTU, MTU) for k in drops]
        assert reqs == want, reqs
        ca = await run_driver(a.ctx.counters)
        d = {k: ca[k] - ca0[k] for k in ca}
        dut._log.info("A %s", {k: v for k, v in d.items() if v})
        # the 40 responses placed once each (the dropped ones when they came back); the
        # ones after a hole out of order; the tail by one probe, no timeout
        assert d["rx_read_resp"] == 40 and d["sr_rresp_ooo"] > 0, d
        assert d["sr_probe"] == 1 and d["timeouts"] == 0, d
        check_wire(env.frames)

    @cocotb.test()
    async def sr_inflight_cap(dut):
        """roce.sr_max_inflight caps the PSNs an SR QP has in flight: on the wire, the
        newest PSN A sent minus the cumulative acknowledgement B had sent before it never
        exceeds the cap (4), with 2 % loss; with the default (64) it does."""
        env = PairEnv(dut)
        await env.start()
        a, b = env.a, env.b
        assert await run_driver(a.ctx.dev.read, "roce", "sr_max_inflight") == 64  # reset
        n, blk = 6, 8192
        seen = {}
        for cap in (4, 64):
            await run_driver(a.ctx.dev.write, "roce", "sr_max_inflight", cap)
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=MTU, timeout=3, sr=True,
                                                           sq_psn_a=0x1000)
            env.link("lab", loss_en=1, loss_p=int(0.02 * 2**32), seed=50 + cap)
            la, lb = a.mem.alloc(n * blk), b.mem.alloc(n * blk)
            src = random.Random(cap).randbytes(n * blk)
            a.mem.write(la, src)
            mra = await run_driver(a.ctx.reg_mr, pda, la, n * blk, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n * blk, ACC)
            mark = len(env.frames)
            await run_driver(a.ctx.post_send, qa, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + i * blk, length=blk,
                       lkey=mra.lkey, remote_addr=lb + i * blk, rkey=mrb.rkey) for i in range(n)])
            wcs = await run_driver(a.ctx.wait_cq, cqa, n, 40000)
            env.link("lab", loss_en=0)
            assert [w.wr_id for w in wcs] == list(range(n)) and all(w.ok for w in wcs), wcs
            assert b.mem.read(lb, n * blk) == src, f"cap {cap}: B memory"
            acked, worst = 0x1000 - 1, 0
            for side, fr in env.frames[mark:]:
                f = roce_fields(fr)
                if side == "b" and f["op"] in (0x11, OP_SACK) and f["rest"][0] == 0x1F:
                    acked = max(acked, f["psn"])
                elif side == "a":
                    worst = max(worst, f["psn"] - acked)
            seen[cap] = worst
        dut._log.info("largest (PSN sent - cumulative ACK on the wire): %s", seen)
        assert seen[4] <= 4, seen
        assert seen[64] > 4, seen
        await run_driver(a.ctx.dev.write, "roce", "sr_max_inflight", 64)

    @cocotb.test()
    async def sr_lossy_mix(dut):
        """Three SR QP pairs and one sr=0 pair, each with its own rc_model random mix
        (every RC opcode, both directions), over lossy/reordering/duplicating links: the
        scoreboard (tb/roce/scoreboard.py) checks memories and completions against
        rc_model; on the wire SACKs go only to SR QPs and SR and standard layouts of
        WRITE MIDDLE/LAST do not mix."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_sr_mix.pcap")))
        await env.start()
        loss = float(os.environ.get("ROCE_LOSS", "0.03"))
        mix_seed = int(os.environ.get("ROCE_MIX_SEED", "17"))   # other seeds: soak runs
        sb = RcScoreboard(env)
        for i in range(4):
            await sb.add(random_scenario(mix_seed * 10 + i, n_wrs=18, max_len=7000),
                         mtu=MTU, timeout=3, sr=i < 3,
                         sq_psn=((0x100, 0xFFFFE0, 0x7FFFF8, 0x300)[i], 0xFFFFF0 - i))
        dut._log.info("mix: %s", sb.summary())
        for L, seed in (("lab", mix_seed + 4), ("lba", mix_seed + 6)):
            env.link(L, loss_en=1, loss_p=int(loss * 2**32), reorder_en=1,
                     reorder_p=int(0.04 * 2**32), dup_en=1, dup_p=int(0.02 * 2**32), seed=seed)
        await sb.post()
        try:
            diff = await sb.check(max_polls=60000)
        except Exception:
            dut._log.error("A %s", await run_driver(env.a.ctx.counters))
            dut._log.error("B %s", await run_driver(env.b.ctx.counters))
            raise
        assert not diff, "\n".join(diff)
        ca = await run_driver(env.a.ctx.counters)
        cb = await run_driver(env.b.ctx.counters)
        dut._log.info("mix done at cycle %d\nA %s\nB %s", env.cycle, ca, cb)

        # QPNs of the SR and standard QPs on each side (a frame from side s goes to the
        # other side's QP)
        sr_qpn = {q: {lane.qpns[q] for lane in sb.lanes[:3]} for q in ("a", "b")}
        std_qpn = {q: sb.lanes[3].qpns[q] for q in ("a", "b")}
        nsack = {"a": 0, "b": 0}
        for side, fr in env.frames:
            dst = "b" if side == "a" else "a"
            f = roce_fields(fr)
            if f["op"] == OP_SACK:
                assert f["dqpn"] in sr_qpn[dst], f
                check_sack(f, {(f["psn"] + 1 + i) & 0xFFFFFF for i in range(64)})
                nsack[side] += 1
            if f["op"] in (0x07, 0x08):
                body = len(f["rest"]) - f["pad"]
                # WRITE MIDDLE/LAST: payload only on the sr=0 QP, RETH + payload on SR QPs
                if f["dqpn"] == std_qpn[dst]:
                    assert body in range(1, MTU + 1), f
                else:
                    assert f["dqpn"] in sr_qpn[dst] and body - 16 in range(1, MTU + 1), f
                    assert sr_write_fields(f)[0] != 0
        drops = int(dut.lab_cnt_drops.value) + int(dut.lba_cnt_drops.value)
        dut._log.info("link drops %d, SACKs %s", drops, nsack)
        assert ca["sr_sack_tx"] == nsack["a"] and cb["sr_sack_tx"] == nsack["b"], \
            (ca["sr_sack_tx"], cb["sr_sack_tx"], nsack)
        # the links duplicate frames: a SACK may be counted twice at its receiver
        dup_ab, dup_ba = int(dut.lab_c[6].value), int(dut.lba_c[6].value)
        assert cb["sr_sack_rx"] <= nsack["a"] + dup_ab, (cb["sr_sack_rx"], nsack, dup_ab)
        assert ca["sr_sack_rx"] <= nsack["b"] + dup_ba, (ca["sr_sack_rx"], nsack, dup_ba)
        assert ca["sr_sack_rx"] + cb["sr_sack_rx"] > 0, "no SACK acted upon"
        retx = ca["sr_retx"] + cb["sr_retx"]
        assert retx > 0 and ca["tx_retx_pkts"] + cb["tx_retx_pkts"] >= retx, (ca, cb)
        if loss > 0:
            assert drops > 0
        check_wire(env.frames)

    @cocotb.test()
    async def sr_reorder(dut):
        """Reordering only (A -> B holds 10 % of the frames back by one frame): resends
        with the reorder tolerance at its default (3) and at 1."""
        env = PairEnv(dut)
        await env.start()
        a, b = env.a, env.b
        assert await run_driver(a.ctx.dev.read, "roce", "sr_reorder") == 3   # reset value
        n, blk = 24, 8192
        results = {}
        for th in (3, 1):
            await run_driver(a.ctx.dev.write, "roce", "sr_reorder", th)
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=MTU, timeout=3, sr=True)
            env.link("lab", reorder_en=1, reorder_p=int(0.10 * 2**32), seed=40 + th)
            la, lb = a.mem.alloc(n * blk), b.mem.alloc(n * blk)
            src = random.Random(th).randbytes(n * blk)
            a.mem.write(la, src)
            mra = await run_driver(a.ctx.reg_mr, pda, la, n * blk, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n * blk, ACC)
            ca0, cb0 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
            held0, drop0 = int(dut.lab_c[7].value), int(dut.lab_cnt_drops.value)
            await run_driver(a.ctx.post_send, qa, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + i * blk, length=blk,
                       lkey=mra.lkey, remote_addr=lb + i * blk, rkey=mrb.rkey) for i in range(n)])
            wcs = await run_driver(a.ctx.wait_cq, cqa, n, 40000)
            assert [w.wr_id for w in wcs] == list(range(n)) and all(w.ok for w in wcs), wcs
            assert b.mem.read(lb, n * blk) == src, f"sr_reorder={th}: B memory"
            ca, cb = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
            env.link("lab", reorder_en=0)
            held = int(dut.lab_c[7].value) - held0
            assert int(dut.lab_cnt_drops.value) == drop0, "this test must not lose frames"
            d = {k: ca[k] - ca0[k] for k in ("sr_retx", "tx_retx_pkts", "sr_sack_rx", "timeouts")}
            d["b_ooo"] = cb["sr_ooo_placed"] - cb0["sr_ooo_placed"]
            d["b_spurious"] = cb["sr_spurious"] - cb0["sr_spurious"]
            d["held"] = held
            results[th] = d
            dut._log.info("sr_reorder=%d: %s", th, d)
            assert held > 0 and d["b_ooo"] > 0 and d["sr_sack_rx"] > 0, d
        # tolerance 3 > the link's displacement of one frame: nothing resent, no timeout
        assert results[3]["sr_retx"] == 0 and results[3]["tx_retx_pkts"] == 0, results[3]
        assert results[3]["timeouts"] == 0, results[3]
        # tolerance 1: the overtaken packets are resent although none was lost, and the
        # responder counts each of them as a spurious retransmission
        assert results[1]["sr_retx"] > 0, results[1]
        assert results[1]["b_spurious"] == results[1]["sr_retx"], results[1]
        assert results[3]["b_spurious"] == 0, results[3]

    @cocotb.test(skip=os.environ.get("ROCE_SR_TESTS", "").find("sr_goodput") < 0)
    async def sr_goodput(dut):
        """Measurement (run with ROCE_SR_TESTS=sr_goodput): 2 MB of 64 KB WRITEs, MTU
        4096, 100 Gb/s links (50 B/cycle), Bernoulli loss ROCE_LOSS on A -> B, for an
        sr=0 and an sr=1 QP pair; logs goodput and retransmissions, checks memory."""
        env = PairEnv(dut)
        await env.start()
        loss = float(os.environ.get("ROCE_LOSS", "0.01"))
        a, b = env.a, env.b
        n, blk = 32, 65536
        for sr in (False, True):
            qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=4096, timeout=3, sr=sr)
            env.link("lab", rate=50 << 16, loss_en=1, loss_p=int(loss * 2**32), seed=5)
            env.link("lba", rate=50 << 16)
            la, lb = a.mem.alloc(n * blk), b.mem.alloc(n * blk)
            src = random.Random(3).randbytes(n * blk)
            a.mem.write(la, src)
            mra = await run_driver(a.ctx.reg_mr, pda, la, n * blk, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n * blk, ACC)
            c0 = await run_driver(a.ctx.counters)
            t0 = env.cycle
            await run_driver(a.ctx.post_send, qa, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + i * blk, length=blk,
                       lkey=mra.lkey, remote_addr=lb + i * blk, rkey=mrb.rkey) for i in range(n)])
            wcs = await run_driver(a.ctx.wait_cq, cqa, n, 200000)
            dt = env.cycle - t0
            assert all(w.ok for w in wcs)
            assert b.mem.read(lb, n * blk) == src
            c1 = await run_driver(a.ctx.counters)
            gbps = n * blk * 8 / (dt * 4.0)
            dut._log.info("sr=%d loss=%.3f: %.1f Gb/s goodput, %d cycles, retx %d, timeouts %d",
                          sr, loss, gbps, dt, c1["tx_retx_pkts"] - c0["tx_retx_pkts"],
                          c1["timeouts"] - c0["timeouts"])
            env.link("lab", loss_en=0)


SR_TESTS = ("sr_drop_list", "sr_send_ooo", "sr_send_err", "sr_read_ooo", "sr_inflight_cap",
            "sr_lossy_mix", "sr_reorder")


@pytest.mark.parametrize("case", cases("ROCE_SR_TESTS", SR_TESTS, second=True))
def test_roce_sr(case: str) -> None:
    run(toplevel="tb_roce_pair", module="test_roce_sr", test_dir=HERE,
        extra_sources=[HERE / "tb_roce_pair.sv"], read_only_internals=True, parameters=PAIR_PARAMS, testcase=case)
