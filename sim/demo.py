#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make demo`: the main job - two fabnic RoCE NICs.

NIC A and NIC B (fabnic_roce_core, 512 bits, 250 MHz) joined by two link models
that lose 0.2% of the frames each way; the fw/ driver (the same code a board runs),
through its pyverbs-shaped API (fabnic.pyverbs), registers memory, connects an RC QP
pair and runs RDMA WRITE, READ, SEND and an atomic between them. Memory contents are
checked; goodput, latency and the NICs' counters are printed; build/demo/demo.pcap
(every frame, simulated timestamps, opens in Wireshark) and build/demo/demo.fst
(waveform) are written.

Run as a script it builds the two-NIC testbench (tb/roce/tb_roce_pair.sv) and runs
this file's cocotb test ``demo`` in the simulator, then prints the summary.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
for _p in (_REPO / "tb" / "roce", _REPO / "tb", _REPO / "fw"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))
from fabnic_tb import runner, tools  # noqa: E402

CLOCK_MHZ = 250
PAIR_PARAMS = {"NUM_QP": 64, "NUM_CQ": 16, "NUM_MR": 64}   # the build test_roce_pair uses

try:
    import cocotb
    from roce_env import PairEnv, check_wire

    from fabnic import pyverbs as pv
    from fabnic.pyverbs import SGE, AtomicWR, RdmaWR, RecvWR, SendWR
    from fabnic_tb.fw_bus import run_driver
except ImportError:  # no simulator packages: main() still reports the failure clearly
    cocotb = None

if cocotb is not None:

    @cocotb.test()
    async def demo(dut):
        """NIC A and NIC B over links with a little loss (0.2% each way); RDMA WRITE,
        READ, SEND and atomics through fabnic.pyverbs; goodput, latency and counters into
        a summary; every frame into a pcap."""
        out = Path(os.environ.get("FABNIC_DEMO_OUT", "."))
        env = PairEnv(dut, out / "demo.pcap")
        await env.start()
        for link, seed in (("lab", 21), ("lba", 22)):
            env.link(link, loss_en=1, loss_p=int(0.002 * 2**32), seed=seed, delay=100,
                     rate=50 << 16)   # 100 Gb/s at 250 MHz
        acc = (pv.IBV_ACCESS_LOCAL_WRITE | pv.IBV_ACCESS_REMOTE_WRITE
               | pv.IBV_ACCESS_REMOTE_READ | pv.IBV_ACCESS_REMOTE_ATOMIC)
        qa, qb, cqa, cqb, pda, pdb = await env.connect_rc(acc, mtu=4096, timeout=3, depth=64)
        rng = random.Random(2026)
        size = 1 << 20
        mra = await run_driver(pv.MR, pda, size, acc)
        mrb = await run_driver(pv.MR, pdb, size, acc)
        mra.write(rng.randbytes(size))
        mrb.write(rng.randbytes(size))
        la, lb = mra.buf, mrb.buf
        results = []

        def rdma(wr_id: int, opcode: pv.WrOpcode, loff: int, roff: int, n: int) -> SendWR:
            return SendWR(wr_id=wr_id, opcode=opcode, sg=[SGE(la + loff, n, mra.lkey)],
                          wr=RdmaWR(lb + roff, mrb.rkey))

        async def timed(name: str, wrs: list[SendWR], nbytes: int, recv_count: int = 0):
            t0 = env.cycle
            await run_driver(qa.post_send, wrs)
            wcs = await run_driver(cqa.wait, len(wrs), 50000)
            t1 = env.cycle
            assert [(w.wr_id, w.status) for w in wcs] == \
                [(w.wr_id, pv.IBV_WC_SUCCESS) for w in wrs], wcs
            if recv_count:
                rw = await run_driver(cqb.wait, recv_count, 50000)
                assert all(w.status == pv.IBV_WC_SUCCESS and w.opcode == pv.IBV_WC_RECV
                           for w in rw), rw
            cyc = t1 - t0
            gbps = nbytes * 8 / (cyc * 1000 / CLOCK_MHZ)
            results.append({"op": name, "messages": len(wrs), "bytes": nbytes, "cycles": cyc,
                            "gbps": round(gbps, 2)})
            dut._log.info("%-22s %8d B in %6d cycles: %6.2f Gb/s", name, nbytes, cyc, gbps)

        await timed("RDMA WRITE 4 x 64 KB",
                    [rdma(i, pv.IBV_WR_RDMA_WRITE, i * 65536, 262144 + i * 65536, 65536)
                     for i in range(4)], 4 * 65536)
        assert mrb.read(262144, 262144) == mra.read(262144)
        await timed("RDMA READ 2 x 64 KB",
                    [rdma(10 + i, pv.IBV_WR_RDMA_READ, 524288 + i * 65536, i * 65536, 65536)
                     for i in range(2)], 2 * 65536)
        assert mra.read(131072, 524288) == mrb.read(131072)
        await run_driver(qb.post_recv, [RecvWR(wr_id=100 + i,
                                               sg=[SGE(lb + 786432 + i * 16384, 16384,
                                                       mrb.lkey)])
                                        for i in range(4)])
        await timed("SEND 4 x 16 KB",
                    [SendWR(wr_id=20 + i, opcode=pv.IBV_WR_SEND,
                            sg=[SGE(la + i * 16384, 16384, mra.lkey)]) for i in range(4)],
                    4 * 16384, recv_count=4)
        assert mrb.read(65536, 786432) == mra.read(65536)
        mrb.write((41).to_bytes(8, "little"), offset=1048000)
        await timed("ATOMIC FETCH_ADD x 1",
                    [SendWR(wr_id=30, opcode=pv.IBV_WR_ATOMIC_FETCH_AND_ADD,
                            sg=[SGE(la + 1048000, 8, mra.lkey)],
                            wr=AtomicWR(lb + 1048000, mrb.rkey, compare_add=1))], 8)
        assert int.from_bytes(mrb.read(8, 1048000), "little") == 42
        assert int.from_bytes(mra.read(8, 1048000), "little") == 41
        # latency of one 64 B WRITE, doorbell to CQE seen (host polling included)
        await timed("RDMA WRITE 64 B", [rdma(31, pv.IBV_WR_RDMA_WRITE, 0, 0, 64)], 64)
        check_wire(env.frames)
        ca = await run_driver(env.a.context.counters)
        cb = await run_driver(env.b.context.counters)
        summary = {"clock_mhz": CLOCK_MHZ, "results": results, "frames_on_wire": len(env.frames),
                   "link_drops": int(dut.lab_cnt_drops.value) + int(dut.lba_cnt_drops.value),
                   "counters": {"A": {k: v for k, v in ca.items() if v},
                                "B": {k: v for k, v in cb.items() if v}}}
        (out / "demo_summary.json").write_text(json.dumps(summary, indent=1))
        if env.pcap:
            env.pcap.close()


def main() -> int:
    out = tools.BUILD / "demo"
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("demo_summary.json", "demo.pcap", "demo.fst", "demo.vcd"):
        (out / stale).unlink(missing_ok=True)
    os.environ["WAVES"] = os.environ.get("WAVES", "1")
    print("[demo] building two RoCE NICs and their links (first run compiles, 2-3 minutes)...",
          flush=True)
    bdir = runner.run(
        toplevel="tb_roce_pair", module="demo", test_dir=Path(__file__).resolve().parent,
        extra_sources=[tools.REPO / "tb" / "roce" / "tb_roce_pair.sv"],
        parameters=PAIR_PARAMS, testcase="demo",
        extra_env={"FABNIC_DEMO_OUT": str(out)},
    )
    summary = out / "demo_summary.json"
    if not summary.exists():
        print(f"[demo] the simulation wrote no summary: see {bdir / 'sim.log'}")
        return 1
    s = json.loads(summary.read_text())
    for ext in ("fst", "vcd"):
        if (bdir / f"dump.{ext}").exists():
            shutil.copy(bdir / f"dump.{ext}", out / f"demo.{ext}")
    print()
    print("fabnic demo: NIC A <-> NIC B, RoCEv2 RC, 100 G links losing 0.2% of frames each way")
    print(f"  {'operation':24s} {'bytes':>9s} {'cycles':>8s} {'us':>8s} {'Gb/s':>7s}")
    for r in s["results"]:
        us = r["cycles"] / s["clock_mhz"]
        print(f"  {r['op']:24s} {r['bytes']:9d} {r['cycles']:8d} {us:8.2f} {r['gbps']:7.2f}")
    print("  (cycles from the doorbell to the CQE seen by the driver, host polling included;")
    print("   memory contents checked after every operation)")
    print(f"  frames on the wire {s['frames_on_wire']}, dropped by the links {s['link_drops']}"
          " (recovered by go-back-N)")
    for nic in ("A", "B"):
        c = s["counters"][nic]
        print(f"  counters {nic}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
    print(f"  pcap        {out / 'demo.pcap'}")
    wave = out / "demo.fst" if (out / "demo.fst").exists() else out / "demo.vcd"
    print(f"  waveform    {wave if wave.exists() else '(none)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
