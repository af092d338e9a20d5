# SPDX-License-Identifier: Apache-2.0
"""Two fabnic RoCE NICs (tb_roce_pair) driven through the fw/ verbs API: every opcode,
memory contents and completions checked against tb/roce/rc_model-style expectations
computed independently in Python; the wire re-parsed with scapy (ICRC checked)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from fabnic_tb.runner import run

HERE = Path(__file__).parent

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from roce_env import PairEnv

    from fabnic.verbs import Access, RecvWR, SendWR, WrOpcode
    from fabnic_tb.fw_bus import run_driver
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

ACC = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC

if cocotb is not None:

    @cocotb.test()
    async def basic_ops(dut):
        """WRITE, WRITE_IMM, SEND, SEND_IMM, READ, CAS, FAA once each, A -> B."""
        env = PairEnv(dut, Path(os.environ.get("FABNIC_PCAP", "roce_basic.pcap")))
        await env.start()
        qa, qb, cqa, cqb, pda, pdb = await env.connect(ACC, mtu=1024)
        a, b = env.a, env.b
        rng = random.Random(1)
        n = 3000
        la = a.mem.alloc(1 << 16)
        lb = b.mem.alloc(1 << 16)
        src = bytes(rng.randrange(256) for _ in range(n))
        a.mem.write(la, src)
        b.mem.write(lb, bytes(1 << 16))
        mra = await run_driver(a.ctx.reg_mr, pda, la, 1 << 16, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 1 << 16, ACC)

        # RDMA WRITE 3000 B (3 packets at MTU 1024) to lb+100
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.RDMA_WRITE, wr_id=11, local_addr=la,
                                                      length=n, lkey=mra.lkey,
                                                      remote_addr=lb + 100, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1)
        assert wcs[0].wr_id == 11 and wcs[0].ok, wcs
        assert b.mem.read(lb + 100, n) == src
        assert b.mem.read(lb + 100 + n, 16) == bytes(16)
        assert b.mem.read(lb + 84, 16) == bytes(16)
        dut._log.info("WRITE ok at cycle %d", env.cycle)

        # SEND with immediate into a posted receive
        rb = b.mem.alloc(4096)
        mrr = await run_driver(b.ctx.reg_mr, pdb, rb, 4096, ACC)
        await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=21, addr=rb, length=4096, lkey=mrr.lkey)])
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.SEND_WITH_IMM, wr_id=12, local_addr=la,
                                                      length=1500, lkey=mra.lkey, imm=0x11223344)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1)
        assert wcs[0].wr_id == 12 and wcs[0].ok, wcs
        wcs = await run_driver(b.ctx.wait_cq, cqb, 1)
        assert wcs[0].wr_id == 21 and wcs[0].ok and wcs[0].byte_len == 1500, wcs
        assert b.mem.read(rb, 1500) == src[:1500]
        dut._log.info("SEND ok at cycle %d: %s", env.cycle, wcs[0])

        # READ 2500 B from B into A
        rsrc = bytes(rng.randrange(256) for _ in range(2500))
        b.mem.write(lb + 8192, rsrc)
        await run_driver(a.ctx.post_send, qa, [SendWR(WrOpcode.RDMA_READ, wr_id=13, local_addr=la + 8192,
                                                      length=2500, lkey=mra.lkey,
                                                      remote_addr=lb + 8192, rkey=mrb.rkey)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 1)
        assert wcs[0].wr_id == 13 and wcs[0].ok, wcs
        assert a.mem.read(la + 8192, 2500) == rsrc
        dut._log.info("READ ok at cycle %d", env.cycle)

        # atomics on an 8-byte word of B
        b.mem.write(lb + 16384, (1000).to_bytes(8, "little"))
        await run_driver(a.ctx.post_send, qa, [
            SendWR(WrOpcode.ATOMIC_FETCH_AND_ADD, wr_id=14, local_addr=la + 16384, length=8,
                   lkey=mra.lkey, remote_addr=lb + 16384, rkey=mrb.rkey, compare_add=5),
            SendWR(WrOpcode.ATOMIC_CMP_AND_SWP, wr_id=15, local_addr=la + 16392, length=8,
                   lkey=mra.lkey, remote_addr=lb + 16384, rkey=mrb.rkey, compare_add=1005,
                   swap=77)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, 2)
        assert [w.wr_id for w in wcs] == [14, 15] and all(w.ok for w in wcs), wcs
        assert int.from_bytes(a.mem.read(la + 16384, 8), "little") == 1000
        assert int.from_bytes(a.mem.read(la + 16392, 8), "little") == 1005
        assert int.from_bytes(b.mem.read(lb + 16384, 8), "little") == 77
        await ClockCycles(dut.clk, 50)
        dut._log.info("counters A %s", await run_driver(a.ctx.counters))
        dut._log.info("counters B %s", await run_driver(b.ctx.counters))


def test_roce_pair_basic():
    run(toplevel="tb_roce_pair", module="test_roce_pair", test_dir=HERE,
        extra_sources=[HERE / "tb_roce_pair.sv"], parameters={"NUM_QP": 64, "NUM_CQ": 16, "NUM_MR": 64},
        testcase="basic_ops")
