# SPDX-License-Identifier: Apache-2.0
"""Two fabnic RoCE NICs with the FEC port shims (tb_roce_pair, FEC=1): losses repaired
at the receiver without a retransmission, fallback to go-back-N when a group loses more
than R frames, and a lossy random mix. Memory and completions are checked against
Python expectations; every repair frame on the wire is recomputed with the numpy
reference encoder (tb/fec/fec_wire.py) and the data frames re-parsed with scapy.
fec_ge_burst: bursty Gilbert-Elliott loss with FEC(32,1,1) + selective retransmission;
the link's GE drops are predicted frame by frame by the Python link model
(tb/net/net_models.py) from the captured wire."""

from __future__ import annotations

import os
import random
from pathlib import Path

from fabnic_tb.runner import run

HERE = Path(__file__).parent

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from fec.fec_wire import check_fec_wire
    from net.net_models import LinkConfig, LinkModel, prob32
    from roce_env import PairEnv, check_wire, random_mix

    from fabnic.verbs import Access, SendWR, WrOpcode
    from fabnic_tb.fw_bus import run_driver
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

ACC = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
K, R, D = 4, 2, 2


if cocotb is not None:

    async def fec_stats(env, side: str) -> dict[str, int]:
        return await run_driver(getattr(env, side).ctx.fec_counters)

    async def set_fec(env, nak_delay: int, krd: tuple[int, int, int] = (K, R, D),
                      rx_bypass: bool = False) -> None:
        k, r, d = krd
        for nic in (env.a, env.b):   # through the fw driver: register block "fec"
            await run_driver(nic.ctx.set_fec, "all", k=k, r=r, d=d, flush_cycles=256,
                             rob_timeout=4096, nak_delay=nak_delay, nak_retry=2000,
                             rx_bypass=rx_bypass)

    async def setup(dut, pcap: str, size: int = 1 << 16, nak_delay: int = 0,
                    krd: tuple[int, int, int] = (K, R, D)):
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", pcap)))
        for L in ("lab", "lba"):
            env.link(L, ge_en=0, ge_p_gb=0, ge_p_bg=0, ge_loss=0)
        await env.start()
        await set_fec(env, nak_delay, krd)
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=4)
        a, b = env.a, env.b
        la, lb = a.mem.alloc(size), b.mem.alloc(size)
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
        return env, (qa, qb, cqa, cqb), (la, lb, mra, mrb)

    def wire_check(env, r: int = R, d: int = D):
        data, st = check_fec_wire(env.frames, r, d)
        check_wire(data)
        return st

    @cocotb.test()
    async def fec_repairs_drops(dut):
        """A 12-packet WRITE loses two data frames of different groups on the wire: the
        receiver rebuilds both from the repairs, the requester never retransmits. Then
        three frames of one group (R = 2) are lost: the group is unrepairable and
        go-back-N delivers the data. With selective retransmission on (NAK delay), the
        same three losses are resent by the shim from its buffer (only the missing seq)
        and the transport again never retransmits."""
        env, (qa, qb, cqa, cqb), (la, lb, mra, mrb) = await setup(dut, "fec_drops.pcap")
        a, b = env.a, env.b
        rng = random.Random(11)
        src = bytes(rng.randrange(256) for _ in range(1 << 16))
        a.mem.write(la, src)

        async def write(wr_id, off, n, drops):
            fin = int(dut.lab_cnt_frames_in.value)
            lst = sum((fin + i) << (32 * j) for j, i in enumerate(drops))
            env.link("lab", drop_list=lst, drop_list_en=(1 << len(drops)) - 1)
            wr = SendWR(WrOpcode.RDMA_WRITE, wr_id=wr_id, local_addr=la + off, length=n,
                        lkey=mra.lkey, remote_addr=lb + off, rkey=mrb.rkey)
            await run_driver(a.ctx.post_send, qa, [wr])
            wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 50000)
            env.link("lab", drop_list_en=0)
            assert wcs[0].ok and wcs[0].wr_id == wr_id, wcs
            assert b.mem.read(lb + off, n) == src[off:off + n]
            return await run_driver(a.ctx.counters)

        # block of K*D = 8 data frames, then its 4 repairs: link frames 1 and 4 are data
        c = await write(1, 0, 12 * 1024, [1, 4])
        sb = await fec_stats(env, "b")
        dut._log.info("two drops: A %s; B fec %s", c, sb)
        assert int(dut.lab_cnt_drops.value) == 2
        assert sb["repaired"] == 2 and sb["given_up"] == 0, sb
        assert c["tx_retx_pkts"] == 0 and c["rx_naks"] == 0 and c["timeouts"] == 0, c
        # frames 0, 2, 4 of the next WRITE: group slot 0 indices 0, 1, 2 (3 > R)
        c2 = await write(2, 16384, 12 * 1024, [0, 2, 4])
        sb2 = await fec_stats(env, "b")
        dut._log.info("three drops in a group: A %s; B fec %s", c2, sb2)
        assert c2["tx_retx_pkts"] > 0, "unrepairable group must fall back to go-back-N"
        assert sb2["given_up"] > 0, sb2
        # selective retransmission: group slot 0 of the next WRITE loses 3 of 4 again
        await set_fec(env, 600)
        sa0 = await fec_stats(env, "a")
        c3 = await write(3, 32768, 12 * 1024, [0, 2, 4])
        sa3, sb3 = await fec_stats(env, "a"), await fec_stats(env, "b")
        dut._log.info("three drops with NAKs: A %s; A fec %s; B fec %s", c3, sa3, sb3)
        assert c3["tx_retx_pkts"] == c2["tx_retx_pkts"], "transport retransmitted"
        assert sb3["naks_sent"] > sb2["naks_sent"] and sa3["naks_rcvd"] > sa0["naks_rcvd"]
        assert 1 <= sa3["rtx_frames"] - sa0["rtx_frames"] <= 3, (sa0, sa3)
        assert sb3["given_up"] == sb2["given_up"], sb3
        st = wire_check(env)
        dut._log.info("wire: %s", {s: (v.data, v.repairs, v.plain, v.naks, v.rtx)
                                   for s, v in st.items()})
        assert st["a"].repairs == (await fec_stats(env, "a"))["tx_repairs"] > 0
        assert st["b"].naks == sb3["naks_sent"] and st["a"].rtx == sa3["rtx_frames"]

    @cocotb.test()
    async def fec_sr_bypass(dut):
        """Selective repeat in the engine with FEC, the shims' reorder buffer bypassed: a
        24-packet WRITE on SR QPs loses four data frames of four different groups; the
        receive shim hands the frames behind each hole to the engine at once (placed out
        of order) and each rebuilt frame when decoded, the reorder tolerance (sr_reorder
        = 20 > a block) lets FEC repair before any SACK asks: no resend, no probe, no
        timeout, memory exact."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "fec_sr_bypass.pcap")))
        for L in ("lab", "lba"):
            env.link(L, ge_en=0, ge_p_gb=0, ge_p_bg=0, ge_loss=0)
        await env.start()
        await set_fec(env, 0, rx_bypass=True)
        for nic in (env.a, env.b):
            await run_driver(nic.ctx.dev.write, "roce", "sr_reorder", 20)
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024, timeout=4, sr=True)
        a, b = env.a, env.b
        n = 24 * 1024
        la, lb = a.mem.alloc(n), b.mem.alloc(n)
        src = random.Random(17).randbytes(n)
        a.mem.write(la, src)
        mra = await run_driver(a.ctx.reg_mr, pda, la, n, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, n, ACC)
        ca0, cb0 = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
        sb0 = await fec_stats(env, "b")
        mark = len(env.frames)
        # link frames 1, 4, 12, 24 are data PSNs 1, 4 (block 0, groups 1 and 0), 10 (block
        # 1) and 18 (block 2): the encoder's repairs interleave with the data that follows
        # (checked below from the wire tap), so one loss per group
        drops = [1, 4, 12, 24]
        fin = int(dut.lab_cnt_frames_in.value)
        env.link("lab", drop_list=sum((fin + i) << (32 * j) for j, i in enumerate(drops)),
                 drop_list_en=(1 << len(drops)) - 1)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_WRITE, wr_id=5, local_addr=la, length=n, lkey=mra.lkey,
            remote_addr=lb, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 50000)
        env.link("lab", drop_list_en=0)
        assert wcs[0].ok and wcs[0].wr_id == 5, wcs
        assert b.mem.read(lb, n) == src
        ca, cb = await run_driver(a.ctx.counters), await run_driver(b.ctx.counters)
        sb = await fec_stats(env, "b")
        d = {k: ca[k] - ca0[k] for k in ("sr_retx", "tx_retx_pkts", "timeouts", "sr_probe")}
        ops = [fr[42] for side, fr in env.frames[mark:] if side == "a"]   # BTH opcode
        assert all(ops[i] in range(0x06, 0x0C) for i in drops), ops
        dut._log.info("A %s; B ooo %d; B fec %s", d, cb["sr_ooo_placed"] - cb0["sr_ooo_placed"],
                      {k: sb[k] - sb0[k] for k in sb})
        assert int(dut.lab_cnt_drops.value) == len(drops)
        assert sb["repaired"] - sb0["repaired"] == len(drops), sb
        assert not any(d.values()), d
        assert cb["sr_ooo_placed"] > cb0["sr_ooo_placed"], "frames were held in order"
        assert sb["given_up"] == sb0["given_up"] and sb["naks_sent"] == sb0["naks_sent"], sb
        for nic in (env.a, env.b):
            await run_driver(nic.ctx.dev.write, "roce", "sr_reorder", 3)

    @cocotb.test()
    async def fec_lossy_mix(dut):
        """Random WRITE/SEND/READ mix over links losing 5% of frames each way with FEC
        (K=4, R=2, D=2) and selective retransmission on both NICs: memory and
        completions exact, losses repaired by FEC or resent by the shims."""
        size = 1 << 18
        env, (qa, qb, cqa, cqb), (la, lb, mra, mrb) = await setup(dut, "fec_lossy.pcap", size,
                                                                  nak_delay=600)
        a, b = env.a, env.b
        loss = float(os.environ.get("FEC_LOSS", "0.05"))
        for L, seed in (("lab", 17), ("lba", 19)):
            env.link(L, loss_en=1, loss_p=int(loss * 2**32), seed=seed)
        rng = random.Random(6)
        a_img = bytearray(rng.randrange(256) for _ in range(size))
        b_img = bytearray(rng.randrange(256) for _ in range(size))
        a.mem.write(la, bytes(a_img))
        b.mem.write(lb, bytes(b_img))
        wrs, recvs, expect_recv = random_mix(rng, 40, [1, 63, 1024, 1500, 4096, 7000], size, la, lb, mra,
                                             mrb, a_img, b_img)
        await run_driver(b.ctx.post_recv, qb, recvs)
        await run_driver(a.ctx.post_send, qa, wrs)
        wcs = await run_driver(a.ctx.wait_cq, cqa, len(wrs), 50000)
        assert [w.wr_id for w in wcs] == [w.wr_id for w in wrs], wcs
        assert all(w.ok for w in wcs), [w for w in wcs if not w.ok]
        rwcs = await run_driver(b.ctx.wait_cq, cqb, len(recvs), 50000)
        assert [(w.wr_id, w.byte_len) for w in rwcs] == expect_recv, rwcs
        assert a.mem.read(la, size) == bytes(a_img)
        assert b.mem.read(lb, size) == bytes(b_img)
        await ClockCycles(dut.clk, 2000)
        ca = await run_driver(a.ctx.counters)
        sa, sb = await fec_stats(env, "a"), await fec_stats(env, "b")
        drops = int(dut.lab_cnt_drops.value) + int(dut.lba_cnt_drops.value)
        dut._log.info("lossy FEC mix done at cycle %d: drops %d, A retx %d; fec A %s; fec B %s",
                      env.cycle, drops, ca["tx_retx_pkts"], sa, sb)
        st = wire_check(env)
        dut._log.info("wire: %s", {s: (v.data, v.repairs, v.plain, v.naks, v.rtx)
                                   for s, v in st.items()})
        if loss > 0:
            assert drops > 0 and sa["repaired"] + sb["repaired"] > 0

    @cocotb.test()
    async def fec_ge_burst(dut):
        """Bursty loss on A -> B: Gilbert-Elliott chain, mean burst 4 frames, mean loss 3%,
        every frame of the bad state lost, while 24 WRITEs of 16 KB (MTU 1024) run with
        FEC(32,1,1) and selective retransmission on. The GE drops must be exactly the ones
        the Python link model predicts for the frames A sent (at least one burst of >= 2
        frames), the link must leave the bad state again (drops stop once the GE chain is
        off; a plain WRITE afterwards loses nothing), and memory and completions are exact.
        The repair frames (K = 32 groups) are recomputed by the wire checker."""
        size = 1 << 19
        env, (qa, qb, cqa, cqb), (la, lb, mra, mrb) = await setup(
            dut, "fec_ge.pcap", size, nak_delay=600, krd=(32, 1, 1))
        a, b = env.a, env.b
        rng = random.Random(23)
        src = bytes(rng.randrange(256) for _ in range(size))
        a.mem.write(la, src)
        burst, loss = 4.0, 0.03
        p_bg = 1 / burst
        p_gb = loss * p_bg / (1 - loss)
        cfg = LinkConfig(seed=77, ge_en=True, ge_p_gb=prob32(p_gb), ge_p_bg=prob32(p_bg),
                         ge_loss=prob32(1.0))
        n0 = sum(1 for s, _ in env.frames if s == "a")
        assert n0 == int(dut.lab_cnt_frames_in.value)
        d0, g0 = int(dut.lab_cnt_drops.value), int(dut.lab_cnt_drop_ge.value)
        # 50 Gb/s on A -> B: the reorder buffer (64 frames of ~1 KB) then spans the NAK
        # delay + round trip (unpaced, it fills before the NAK is due and gives up)
        env.link("lab", rate=25 << 16, seed=cfg.seed, ge_p_gb=cfg.ge_p_gb,
                 ge_p_bg=cfg.ge_p_bg, ge_loss=cfg.ge_loss, ge_en=1)
        n_wr, msg = 24, 16384
        wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la + i * msg, length=msg,
                      lkey=mra.lkey, remote_addr=lb + i * msg, rkey=mrb.rkey)
               for i in range(n_wr)]
        await run_driver(a.ctx.post_send, qa, wrs)
        wcs = await run_driver(a.ctx.wait_cq, cqa, n_wr, 100000)
        assert [w.wr_id for w in wcs] == list(range(n_wr)) and all(w.ok for w in wcs), wcs
        await ClockCycles(dut.clk, 3000)       # idle flush: the last block's repair is out
        env.link("lab", ge_en=0, rate=0)
        assert b.mem.read(lb, n_wr * msg) == src[:n_wr * msg]
        # the link model's GE decisions for every frame A sent while the chain was on
        sent = [f for s, f in env.frames if s == "a"]
        model = LinkModel(cfg)
        model.n = n0
        drops = [model.fate(len(f)).drop == "ge" for f in sent[n0:]]
        runs, cur = [], 0
        for dr in drops + [False]:
            if dr:
                cur += 1
            elif cur:
                runs.append(cur)
                cur = 0
        ge_drops = int(dut.lab_cnt_drop_ge.value) - g0
        sa, sb = await fec_stats(env, "a"), await fec_stats(env, "b")
        dut._log.info("GE: %d frames, %d drops in bursts %s; fec A %s; fec B %s",
                      len(drops), ge_drops, runs, sa, sb)
        assert ge_drops == sum(drops) == sum(runs) > 0
        assert int(dut.lab_cnt_drops.value) - d0 == ge_drops, "only GE drops expected"
        assert max(runs) >= 2, f"no burst: {runs}"
        assert int(dut.lab_cnt_ge_bad.value) >= ge_drops
        assert sb["repaired"] + sa["rtx_frames"] > 0, (sa, sb)
        # recovery: with the chain off the link loses nothing more
        c0 = int(dut.lab_cnt_drops.value)
        wr = SendWR(WrOpcode.RDMA_WRITE, wr_id=99, local_addr=la, length=msg, lkey=mra.lkey,
                    remote_addr=lb + n_wr * msg, rkey=mrb.rkey)
        await run_driver(a.ctx.post_send, qa, [wr])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1, 50000)
        assert wcs[0].ok and wcs[0].wr_id == 99, wcs
        assert b.mem.read(lb + n_wr * msg, msg) == src[:msg]
        assert int(dut.lab_cnt_drops.value) == c0
        st = wire_check(env, 1, 1)
        k32 = [f for s, f in env.frames if s == "a" and len(f) > 54 and f[42] == 0xF0
               and f[-12 + 5] == 32]
        assert k32, "no full K=32 group on the wire"
        assert st["a"].repairs == (await fec_stats(env, "a"))["tx_repairs"]


def test_roce_fec():
    run(toplevel="tb_roce_pair", module="test_roce_fec", test_dir=HERE,
        extra_sources=[HERE / "tb_roce_pair.sv"], read_only_internals=True,
        parameters={"NUM_QP": 64, "NUM_CQ": 16, "NUM_MR": 64, "FEC": 1},
        testcase=os.environ.get("FEC_TESTS", "fec_repairs_drops,fec_sr_bypass,fec_lossy_mix,fec_ge_burst").split(","))
