# SPDX-License-Identifier: Apache-2.0
"""DCQCN closed-loop incast experiments (make bench only).

tb_incast.sv with N = 8 senders (fabnic_tb_dcqcn_sender: real fabnic_dcqcn_rp +
fabnic_rate_limiter each), the switch model and one receiver (real
fabnic_dcqcn_np); 100 G links with 1 us propagation delay, 4 KB WRITE packets,
2 MB shared buffer. 2:1 runs enable 2 of the 8 senders.

Runs: {paper, production} x {2:1, 8:1} x {lossless (PFC), lossy (tail drop)},
all flows starting together at line rate; 8:1 with DCQCN disabled (lossless and
lossy); and a join/leave run per parameter set (7 flows starting 100 us apart,
an 8th joins at 40 % of the run, flow 0 leaves at 70 %). Metrics (fabnic_tb.bench.record): bottleneck utilization, peak and mean
queue, Jain's index, convergence time, drops, pause frames, CNPs, simulation
speed. Plots: build/bench/plots/cc_incast_<run>.png (per-flow rate, Rc and queue
vs time).

INCAST_MS / INCAST_PROD_MS (environment) set the run length with the paper /
production parameters (default 4 ms / 10 ms: the production timer is 900 us);
INCAST_RUNS=a,b keeps the runs whose name contains a or b. About 25 M cycles in
all: 16 min at the measured 25-34 k cycles/s (N = 8, two builds).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, Timer

    from fabnic_tb.bench import record
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

from incast_tb import (
    HDR,
    LINE_BPC,
    LINE_GBPS,
    OVH,
    PAPER,
    PRODUCTION,
    US,
    CCParams,
    NetParams,
    Trace,
    configure,
    convergence_time,
    flow_rates_gbps,
    jain,
    mean_queue,
    run_schedule,
    save_trace,
    utilization,
    window,
    windowed_rates,
)

N = 8
RUN_MS = float(os.environ.get("INCAST_MS", "4"))          # paper-parameter runs
PROD_MS = float(os.environ.get("INCAST_PROD_MS", "10"))   # production: 900 us timer
SAMPLE_US = 5.0
WIN = 20  # sliding window for rates / convergence: 20 samples = 100 us


def plot_dir() -> Path:
    from fabnic_tb import tools

    d = tools.BUILD / "bench" / "plots"
    d.mkdir(parents=True, exist_ok=True)
    return d


def plot_run(name: str, tr: Trace, flows: list[int], title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = np.array(tr.cycle, dtype=float)
    t0 = c[0]
    tw, rates = windowed_rates(tr, 4)  # 20 us windows
    rc = np.array(tr.rc, dtype=float) / 4096 / 1000  # Gb/s
    fig, ax = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    for f in flows:
        ax[0].plot(tw / 1000, rates[:, f], lw=0.8, label=f"flow {f}")
        ax[1].plot((c - t0) / US / 1000, rc[:, f], lw=0.8, label=f"flow {f}")
    ax[0].set_ylabel("delivered Gb/s (20 us)")
    ax[0].legend(fontsize=7, ncol=4)
    ax[0].set_title(title, fontsize=9)
    ax[1].set_ylabel("RP Rc Gb/s")
    ax[2].plot((c - t0) / US / 1000, np.array(tr.q) / 1000, lw=0.8, color="k")
    ax[2].set_ylabel("bottleneck queue KB")
    ax[2].set_xlabel("time (ms)")
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    p = plot_dir() / f"cc_incast_{name}.png"
    fig.savefig(p, dpi=90)
    plt.close(fig)
    return p


def bdp_bytes(net: NetParams) -> float:
    """Base round trip (4 link hops + serialization of a data frame twice and a CNP
    twice) times the line rate."""
    rtt = 4 * net.delay_us * US + 2 * (HDR + net.payload + OVH) / LINE_BPC + 2 * 98 / LINE_BPC
    return rtt * LINE_BPC


if cocotb is not None:

    async def _reset(dut) -> None:
        dut.rst.value = 1
        await ClockCycles(dut.clk, 8)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 64)

    async def one_run(dut, name: str, cc: CCParams, net: NetParams, flows: list[int],
                      schedule: list[tuple[float, int]], dur_us: float,
                      events: list[tuple[float, list[int], str]]) -> None:
        configure(dut, net, cc)
        await _reset(dut)
        tr = await run_schedule(dut, N, dur_us, SAMPLE_US, schedule)
        dut.tx_en.value = 0
        await Timer(20, unit="us")
        speed = (tr.cycle[-1] - tr.cycle[0]) / tr.wall
        k = len(flows)
        cfg = {"params": cc.name, "ecn_at": "enqueue" if name.endswith("_enq") else "dequeue", "incast": f"{k}:1", "lossless": net.lossless,
               "dcqcn": net.dcqcn, "run_us": dur_us, "link_delay_us": net.delay_us,
               "buffer": net.buf_bytes, "kmin": cc.kmin, "kmax": cc.kmax, "pmax": cc.pmax}
        tgt8 = k == 8 and net.dcqcn and not events
        # steady-state window: second half of the run (or after the last event)
        last_ev = max([e[0] for e in events], default=0.0)
        t_a = max(dur_us / 2, last_ev + (dur_us - last_ev) / 2)
        i0, i1 = window(tr, t_a, dur_us)
        act = flows if not events else events[-1][1]
        util = utilization(tr, i0, i1)
        rates = flow_rates_gbps(tr, i0, i1, act)
        j = jain(rates)
        _, wr = windowed_rates(tr, WIN)
        js = [jain(wr[m, act]) for m in range(max(0, i0 - WIN), len(wr))]
        mq = mean_queue(tr, i0, i1)
        peak_ss = max(tr.q[i0:i1 + 1])
        drops = tr.drops[-1]
        pauses = tr.pfc_xoff[-1]
        kmax_bdp = cc.kmax + bdp_bytes(net)
        p = f"cc.incast.{name}"
        record(f"{p}.utilization", util, "fraction of line", 0.95 if tgt8 else None, cfg)
        record(f"{p}.jain", j, "index", 0.98 if tgt8 else None, cfg,
               note="per-flow delivered rate over the steady window")
        record(f"{p}.jain_100us_min", float(min(js)), "index", None, cfg,
               note="worst 100 us window in the steady window")
        record(f"{p}.peak_queue", tr.peak_q, "bytes", kmax_bdp if tgt8 else None, cfg,
               higher_is_better=False, note=f"whole run incl. start; Kmax+BDP={kmax_bdp:.0f}")
        record(f"{p}.peak_queue_steady", peak_ss, "bytes", kmax_bdp if tgt8 else None, cfg,
               higher_is_better=False, note="sampled every 5 us in the steady window")
        record(f"{p}.mean_queue", mq, "bytes", None, cfg)
        if not net.lossless or not net.dcqcn:
            record(f"{p}.drops", drops, "frames", None, cfg, higher_is_better=False)
        else:
            record(f"{p}.drops", drops, "frames", 0 if k == 8 else None, cfg,
                   higher_is_better=False)
        record(f"{p}.pause_frames", pauses, "PFC XOFF frames", None, cfg,
               higher_is_better=False)
        record(f"{p}.cnps", tr.cnp_tx, "CNPs", None, cfg)
        record(f"{p}.sim_speed", speed, "cycles/s", None, cfg)
        conv = {}
        if net.dcqcn:
            if not events:
                conv["start"] = convergence_time(tr, 0.0, flows)
            ends = [e[0] for e in events[1:]] + [None] if events else []
            for (t_ev, fl, label), t_end in zip(events, ends, strict=True):
                conv[label] = convergence_time(tr, t_ev, fl, t_end_us=t_end)
            for label, v in conv.items():
                record(f"{p}.converge_{label}_us", v if not math.isnan(v) else -1.0, "us",
                       None, cfg, higher_is_better=False,
                       note="first time the RP rates Rc stay fair (Jain>=0.95) and sum to line "
                            "+-10% for 100 us; -1: not within the run")
        png = plot_run(name, tr, flows, f"{name}: {cfg}")
        save_trace(tr, plot_dir() / f"cc_incast_{name}.json")
        summary = {"name": name, "util": util, "rates": rates.round(2).tolist(), "jain": j,
                   "peak": tr.peak_q, "peak_ss": peak_ss, "meanq": mq, "drops": drops,
                   "pauses": pauses, "cnps": tr.cnp_tx, "conv": conv, "speed": speed,
                   "wall": tr.wall, "png": str(png)}
        dut._log.info("RESULT %s", json.dumps(summary))
        with open(plot_dir() / "cc_incast_summary.jsonl", "a") as f:
            f.write(json.dumps({**summary, "cfg": cfg, "net": asdict(net)}) + "\n")

    def runs() -> list[tuple]:
        only = os.environ.get("INCAST_RUNS", "")
        all8 = (1 << N) - 1
        out = []
        for cc in (PAPER, PRODUCTION):
            d = (PROD_MS if cc is PRODUCTION else RUN_MS) * 1000
            for k in (2, 8):
                for lossless in (True, False):
                    name = f"{cc.name}_{k}to1_{'lossless' if lossless else 'lossy'}"
                    out.append((name, cc, NetParams(N, lossless=lossless, active=k), list(range(k)),
                                [(0.0, (1 << k) - 1)], d, []))
        for lossless in (True, False):
            name = f"nocc_8to1_{'lossless' if lossless else 'lossy'}"
            out.append((name, PAPER, NetParams(N, lossless=lossless, dcqcn=False),
                        list(range(8)), [(0.0, all8)], 2000.0, []))
        for cc in (PAPER, PRODUCTION):
            d = (PROD_MS if cc is PRODUCTION else RUN_MS) * 1000
            # flows 0..6 start 100 us apart, flow 7 joins at 40 %, flow 0 leaves at 70 %
            tj, tl = d * 0.4, d * 0.7
            sched = [(100.0 * i, (1 << (i + 1)) - 1) for i in range(7)]
            sched += [(tj, 0xFF), (tl, 0xFE)]
            out.append((f"{cc.name}_8to1_joinleave", cc, NetParams(N), list(range(8)), sched, d,
                        [(tj, list(range(8)), "join"), (tl, list(range(1, 8)), "leave")]))
        if only:
            out = [r for r in out if any(s in r[0] for s in only.split(","))]
        return out

    @cocotb.test()
    async def incast_experiments(dut):
        await start_clock_reset(dut)
        enq = os.environ.get("INCAST_ECN_DEQ", "1") == "0"
        todo = runs()
        if enq:  # contrast build: ECN marked at enqueue
            todo = [(r[0] + "_enq", *r[1:]) for r in todo
                    if r[0] in ("paper_8to1_lossless", "prod_2to1_lossy", "prod_8to1_lossless")]
        for r in todo:
            await one_run(dut, *r)


@pytest.mark.parametrize("ecn_deq", [1, 0])
def test_bench_incast(ecn_deq: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_incast", module="bench_incast", test_dir=here,
               extra_sources=[here / "tb_incast.sv"],
               parameters={"N": N, "QUEUE_BYTES": 1 << 22, "ECN_DEQ": ecn_deq},
               extra_env={"INCAST_ECN_DEQ": str(ecn_deq)})


__all__ = ["LINE_GBPS", "PAPER", "PRODUCTION"]
