# SPDX-License-Identifier: Apache-2.0
"""RoCE over VXLAN goodput on the complete NIC (make bench): two fabnic_nic joined by
100 G links (tb_nic_pair, same build as the tests), SystemVerilog host memories. A QP
pair bound to VNI 100 (every frame encapsulated by the VTEP, decapsulated and checked
by fabnic_roce_vni) against an unbound pair (plain RoCEv2), RDMA WRITE of 64 KiB
messages at MTU 4096, counted in simulated cycles at 250 MHz. The wire limit per case
is the payload over (frame + 24 bytes preamble/IFG/FCS)."""

from __future__ import annotations

from pathlib import Path

from fabnic_tb.runner import run

HERE = Path(__file__).parent
MSG = 65536
COUNT = 16
MTU = 4096
PARAMS = {"NUM_QP": 64, "NUM_CQ": 16, "NUM_MR": 64}   # = the tests' build

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from test_nic_roce_vxlan import ACC, Env

    from fabnic.verbs import SendWR, WrOpcode
    from fabnic_tb.bench import gbps, record
    from fabnic_tb.fw_bus import run_driver
except ImportError:
    cocotb = None


def wire_limit(tunnel: bool) -> float:
    npk = -(-MSG // MTU)
    per_pkt = 14 + 20 + 8 + 12 + 4 + 24 + (50 if tunnel else 0)   # + RETH on the first
    return 100.0 * MSG / (MSG + npk * per_pkt + 16)


if cocotb is not None:
    @cocotb.test(timeout_time=500, timeout_unit="ms")
    async def bench(dut):
        env = Env(dut)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        ma, mb = env.mem["a"], env.mem["b"]
        for vni, name in ((100, "vxlan"), (None, "plain")):
            (pda, cqa, qa), (pdb, cqb, qb) = await env.connect(vni, vni, mtu=MTU)
            la = await run_driver(ma.alloc, MSG, 4096)
            lb = await run_driver(mb.alloc, MSG, 4096)
            mra = await run_driver(a.ctx.reg_mr, pda, la, MSG, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, MSG, ACC)
            wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=i, local_addr=la, length=MSG,
                          lkey=mra.lkey, remote_addr=lb, rkey=mrb.rkey) for i in range(COUNT)]
            await ClockCycles(dut.clk, 10)
            t0 = int(dut.cycle.value)
            await run_driver(a.ctx.post_send, qa, wrs)
            wcs = await run_driver(a.ctx.wait_cq, cqa, COUNT, 100000)
            t1 = int(dut.cycle.value)
            assert all(w.ok for w in wcs), wcs
            g = gbps(MSG * COUNT, t1 - t0)
            lim = wire_limit(vni is not None)
            record(f"nic.write.goodput.{name}.{MSG}B", round(g, 2), "Gb/s",
                   None, {"data_w": 512, "mtu": MTU, "messages": COUNT, "link_gbps": 100,
                          "wire_limit_gbps": round(lim, 2)})
            dut._log.info("%s WRITE %d B x %d: %.2f Gb/s (wire limit %.2f), %d cycles",
                          name, MSG, COUNT, g, lim, t1 - t0)


def test_bench_nic():
    run(toplevel="tb_nic_pair", module="bench_nic", test_dir=HERE,
        extra_sources=[HERE.parent / "host" / "tb_host_axi_mem.sv", HERE / "tb_nic_pair.sv"],
        parameters=PARAMS, read_only_internals=True)
