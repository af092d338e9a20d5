# SPDX-License-Identifier: Apache-2.0
"""DCQCN closed-loop incast experiments (make bench only).

tb_incast.sv with N = 8 senders (fabnic_tb_dcqcn_sender: real fabnic_dcqcn_rp +
fabnic_rate_limiter each), the switch model and one receiver (real
fabnic_dcqcn_np); 100 G links with 1 us propagation delay, 4 KB WRITE packets,
4 MB shared buffer. 2:1 runs enable 2 of the 8 senders.

Runs: {paper, production} x {2:1, 8:1} x {lossless (PFC), lossy (tail drop)},
all flows starting together at line rate; the 8:1 lossless case with the senders
starting at random cycles within 5 us (`_jit`) and run to convergence
(`_converge`, 60 / 30 ms); 8:1 with DCQCN disabled (lossless and lossy); and a
join/leave run per parameter set (7 flows starting 100 us apart, an 8th joins at
40 % of the run, flow 0 leaves at 70 %). Metrics (fabnic_tb.bench.record):
bottleneck utilization and Jain's index over the second half ("steady") and the
last 25 % ("conv") of the run, 100 us-window Jain statistics, the correlation of
per-flow CNPs with per-flow rate, peak and mean queue, convergence time, drops,
pause frames, CNPs, simulation speed. Per run: a per-flow rate table and Jain /
utilization per 500 us window in the log and in
build/bench/plots/cc_incast_<run>_flows.md; plots cc_incast_<run>.png (per-flow
delivered rate, Rc, queue and Jain's index vs time) and the raw trace .json
(tb/cc/incast_report.py tabulates saved traces). test_bench_incast_model: the
same 8:1 loop in the Python model (incast_model.py) for 40 ms, 3 seeds.

INCAST_MS / INCAST_PROD_MS (environment) set the run length with the paper /
production parameters (default 4 ms / 10 ms: the production timer is 900 us);
INCAST_CONV_MS / INCAST_PROD_CONV_MS the converge runs (60 / 30 ms, 0 = off);
INCAST_RUNS=a,b keeps the runs whose name contains a or b. About 50 M cycles in
all: ~35 min at the measured 22-27 k cycles/s (N = 8, two builds).
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
    fair_convergence_time,
    flow_rates_gbps,
    flow_table,
    jain,
    jain_windows,
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
# long 8:1 lossless runs for the converged numbers (0 disables)
CONV_MS = float(os.environ.get("INCAST_CONV_MS", "60"))
PROD_CONV_MS = float(os.environ.get("INCAST_PROD_CONV_MS", "30"))
# join/leave runs (join at 40 %, leave at 70 % of the run)
JL_MS = float(os.environ.get("INCAST_JL_MS", str(RUN_MS)))
PROD_JL_MS = float(os.environ.get("INCAST_PROD_JL_MS", str(PROD_MS)))
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
    fig, ax = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    for f in flows:
        ax[0].plot(tw / 1000, rates[:, f], lw=0.8, label=f"flow {f}")
        ax[1].plot((c - t0) / US / 1000, rc[:, f], lw=0.8, label=f"flow {f}")
    tj, rj = windowed_rates(tr, WIN)  # 100 us windows
    act = np.array(tr.tx_en)[WIN:]
    jd = [jain(rj[m, [f for f in flows if (act[m] >> f) & 1] or flows]) for m in range(len(tj))]
    jr = [jain(rc[m, [f for f in flows if (tr.tx_en[m] >> f) & 1] or flows]) for m in range(len(c))]
    ax[3].plot(tj / 1000, jd, lw=0.8, label="delivered, 100 us windows")
    ax[3].plot((c - t0) / US / 1000, jr, lw=0.8, label="RP rates Rc")
    ax[3].axhline(0.98, color="r", lw=0.6, ls="--")
    ax[3].set_ylabel("Jain's index")
    ax[3].set_ylim(0.5, 1.01)
    ax[3].legend(fontsize=7)
    ax[0].set_ylabel("delivered Gb/s (20 us)")
    ax[0].legend(fontsize=7, ncol=4)
    ax[0].set_title(title, fontsize=9)
    ax[1].set_ylabel("RP Rc Gb/s")
    ax[2].plot((c - t0) / US / 1000, np.array(tr.q) / 1000, lw=0.8, color="k")
    ax[2].set_ylabel("bottleneck queue KB")
    ax[3].set_xlabel("time (ms)")
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
        tr = await run_schedule(dut, N, dur_us, SAMPLE_US, schedule, net.start_jitter_us,
                                net.seed)
        dut.tx_en.value = 0
        await Timer(20, unit="us")
        speed = (tr.cycle[-1] - tr.cycle[0]) / tr.wall
        k = len(flows)
        cfg = {"params": cc.name, "ecn_at": "enqueue" if name.endswith("_enq") else "dequeue", "incast": f"{k}:1", "lossless": net.lossless,
               "dcqcn": net.dcqcn, "run_us": dur_us, "link_delay_us": net.delay_us,
               "buffer": net.buf_bytes, "kmin": cc.kmin, "kmax": cc.kmax, "pmax": cc.pmax,
               "alpha_us": cc.alpha_us, "start_jitter_us": net.start_jitter_us,
               "init_gbps": net.init_gbps or LINE_GBPS}
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
        # converged window: the last quarter of the run (or of the time after the last event)
        t_c = max(dur_us * 0.75, last_ev + (dur_us - last_ev) * 0.75)
        c0, c1 = window(tr, t_c, dur_us)
        util_c = utilization(tr, c0, c1)
        rates_c = flow_rates_gbps(tr, c0, c1, act)
        j_c = jain(rates_c)
        js_c = [jain(wr[m, act]) for m in range(max(0, c0 - WIN), len(wr))]
        series = jain_windows(tr, act, 500.0, last_ev, dur_us)
        table = flow_table(tr, act, [("2nd half", i0, i1), ("last 25%", c0, c1)])
        cnp_w = np.array(tr.cnp_rx[i1], dtype=float)[act] - np.array(tr.cnp_rx[i0], dtype=float)[act]
        corr = (float(np.corrcoef(rates, cnp_w)[0, 1])
                if len(act) >= 3 and net.dcqcn and np.std(rates) > 0 and np.std(cnp_w) > 0
                else float("nan"))
        dut._log.info("FLOWS %s (steady = 2nd half from %.0f us, converged = last 25%% from "
                      "%.0f us)\n%s\nJain / util per 500 us: %s", name, t_a, t_c, table,
                      " ".join(f"{t / 1000:.1f}ms:{jj:.3f}/{uu:.3f}" for t, jj, uu in series))
        with open(plot_dir() / f"cc_incast_{name}_flows.md", "w") as f:
            f.write(f"# {name}\n\n{json.dumps(cfg)}\n\n{table}\n\nJain / utilization per "
                    "500 us window (end time ms: jain / util):\n\n"
                    + "\n".join(f"- {t / 1000:.1f}: {jj:.3f} / {uu:.3f}" for t, jj, uu in series)
                    + "\n")
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
        record(f"{p}.utilization_conv", util_c, "fraction of line", 0.95 if tgt8 else None, cfg,
               note="last 25% of the run")
        record(f"{p}.jain_conv", j_c, "index", 0.98 if tgt8 else None, cfg,
               note="per-flow delivered rate over the last 25% of the run")
        record(f"{p}.jain_100us_median_conv", float(np.median(js_c)), "index", None, cfg,
               note="median over 100 us windows in the last 25%")
        if not math.isnan(corr):
            record(f"{p}.cnp_rate_corr", corr, "correlation", None, cfg,
                   note="per-flow CNPs vs delivered rate in the steady window (DCQCN's "
                        "fairness signal: > 0 when faster flows get more CNPs)")
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
            # the same from the delivered rates (100 us windows): Jain >= 0.95 over the
            # active flows and their mean within 5 % of the fair share
            evs = events or [(0.0, flows, "start")]
            ends = [e[0] for e in evs[1:]] + [None]
            for (t_ev, fl, label), t_end in zip(evs, ends, strict=True):
                first, settle = fair_convergence_time(tr, t_ev, fl, t_end_us=t_end)
                conv[f"fair_{label}"] = first
                conv[f"settle_{label}"] = settle
                for kind, v, what in (("fair", first, "first held 500 us"),
                                      ("settle", settle, "fair in every later window")):
                    record(f"{p}.converge_{kind}_{label}_us", v if not math.isnan(v) else -1.0,
                           "us", None, cfg, higher_is_better=False,
                           note="delivered rates, 100 us windows: Jain>=0.95 and mean within 5% "
                                f"of fair share, {what}; -1: not within the run")
        png = plot_run(name, tr, flows, f"{name}: {cfg}")
        save_trace(tr, plot_dir() / f"cc_incast_{name}.json")
        summary = {"name": name, "util": util, "rates": rates.round(2).tolist(), "jain": j,
                   "util_conv": util_c, "jain_conv": j_c, "rates_conv": rates_c.round(2).tolist(),
                   "jain_series_500us": [[round(t), round(jj, 4), round(uu, 4)]
                                         for t, jj, uu in series],
                   "cnp_rate_corr": corr,
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
        for cc in (PAPER, PRODUCTION):
            # the same 8:1 lossless incast with the senders not phase-locked: each starts
            # at a random cycle within the first 5 us
            d = (PROD_MS if cc is PRODUCTION else RUN_MS) * 1000
            out.append((f"{cc.name}_8to1_lossless_jit", cc,
                        NetParams(N, active=8, start_jitter_us=5.0), list(range(8)),
                        [(0.0, (1 << 8) - 1)], d, []))
        for cc, ms in ((PAPER, CONV_MS), (PRODUCTION, PROD_CONV_MS)):
            # the 8:1 lossless incast run long enough to converge (DCQCN with these
            # parameters equalizes over tens of ms: docs/cc.md)
            if ms > 0:
                out.append((f"{cc.name}_8to1_converge", cc, NetParams(N, active=8),
                            list(range(8)), [(0.0, (1 << 8) - 1)], ms * 1000, []))
        for cc in (PAPER, PRODUCTION):
            # initial rate = line / incast degree (12.5 G) instead of line rate
            d = (PROD_MS if cc is PRODUCTION else RUN_MS) * 1000
            for lossless in (True, False):
                name = f"{cc.name}_8to1_{'lossless' if lossless else 'lossy'}_initfair"
                out.append((name, cc, NetParams(N, lossless=lossless, active=8,
                                                init_gbps=LINE_GBPS / 8),
                            list(range(8)), [(0.0, (1 << 8) - 1)], d, []))
        for lossless in (True, False):
            name = f"nocc_8to1_{'lossless' if lossless else 'lossy'}"
            out.append((name, PAPER, NetParams(N, lossless=lossless, dcqcn=False),
                        list(range(8)), [(0.0, all8)], 2000.0, []))
        for cc in (PAPER, PRODUCTION):
            d = (PROD_JL_MS if cc is PRODUCTION else JL_MS) * 1000
            # flows 0..6 start 100 us apart, flow 7 joins at 40 %, flow 0 leaves at 70 %
            tj, tl = d * 0.4, d * 0.7
            sched = [(100.0 * i, (1 << (i + 1)) - 1) for i in range(7)]
            sched += [(tj, 0xFF), (tl, 0xFE)]
            evs = [(tj, list(range(8)), "join"), (tl, list(range(1, 8)), "leave")]
            out.append((f"{cc.name}_8to1_joinleave", cc, NetParams(N), list(range(8)), sched, d,
                        evs))
            out.append((f"{cc.name}_8to1_joinleave_initfair", cc,
                        NetParams(N, init_gbps=LINE_GBPS / 8), list(range(8)), sched, d, evs))
        if only:  # "=name" matches exactly, anything else as a substring
            keys = only.split(",")
            out = [r for r in out if any(r[0] == k[1:] if k.startswith("=") else k in r[0]
                                         for k in keys)]
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


MODEL_MS = float(os.environ.get("INCAST_MODEL_MS", "40"))


def test_bench_incast_model() -> None:
    """Long-horizon projection with the Python loop model (incast_model.py: the
    bit-exact RP model in the same 8:1 lossless loop, packet by packet): Jain's index
    and utilization of the delivered rates over 2 ms windows up to INCAST_MODEL_MS,
    mean of 3 seeds, flows starting together (as the RTL bench) and within 5 us of
    each other. The Verilator bench cannot run the tens of ms DCQCN needs to
    converge with these parameters (35-70 s per simulated ms)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from incast_model import LoopParams
    from incast_model import run as model_run

    from fabnic_tb.bench import record as rec

    fig, ax = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    win = 2000.0
    for cc in (PAPER, PRODUCTION):
        for jit in (0.0, 5.0):
            js, us = [], []
            for seed in (1, 2, 3):
                r = model_run(cc, LoopParams(seed=seed, start_jitter_us=jit,
                                             dur_us=MODEL_MS * 1000))
                ends = np.arange(win, MODEL_MS * 1000 + 1, win)
                x = [r.rates(t - win, t) for t in ends]
                js.append([jain(v) for v in x])
                us.append([v.sum() / LINE_GBPS for v in x])
            jm, um = np.mean(js, axis=0), np.mean(us, axis=0)
            lbl = f"{cc.name}, start jitter {jit:g} us"
            ax[0].plot(ends / 1000, jm, marker=".", label=lbl)
            ax[1].plot(ends / 1000, um, marker=".", label=lbl)
            cfg = {"params": cc.name, "incast": "8:1", "lossless": True, "model": "incast_model.py",
                   "start_jitter_us": jit, "seeds": 3, "window_us": win}
            name = f"cc.incast_model.{cc.name}_8to1_lossless_jit{jit:g}"
            for t_ms in (4, 10, 20, MODEL_MS):
                k = int(round(t_ms * 1000 / win)) - 1
                if 0 <= k < len(jm):
                    rec(f"{name}.jain_{t_ms:g}ms", float(jm[k]), "index", None, cfg,
                        note=f"window {t_ms - win / 1000:g}-{t_ms:g} ms, mean of 3 seeds")
                    rec(f"{name}.util_{t_ms:g}ms", float(um[k]), "fraction of line", None, cfg)
    ax[0].axhline(0.98, color="r", lw=0.6, ls="--")
    ax[0].set_ylabel("Jain (2 ms windows)")
    ax[1].set_ylabel("utilization")
    ax[1].set_xlabel("time (ms)")
    ax[0].legend(fontsize=7)
    for a in ax:
        a.grid(alpha=0.3)
    ax[0].set_title("incast_model.py, 8:1 lossless, mean of 3 seeds", fontsize=9)
    fig.tight_layout()
    fig.savefig(plot_dir() / "cc_incast_model.png", dpi=90)
    plt.close(fig)


def test_bench_incast_model_joinleave() -> None:
    """Join/leave convergence and the initial rate, projected with the Python loop model
    over horizons the RTL bench cannot afford: the bench's join/leave schedule (flows 0-6
    start 100 us apart, flow 7 joins at t_j, flow 0 leaves at t_l), 3 seeds, initial rate
    line rate and line/8. Convergence: delivered rates in 100 us windows, Jain >= 0.95
    over the active flows and their mean within 5 % of the fair share, held 500 us
    (incast_model.fair_convergence); -1 = not within the run. Also the 8:1 synchronized
    incast's whole-run peak queue and the 1:1 / 2:1 utilization with both initial rates
    (the cost of starting below line rate)."""
    from incast_model import LoopParams, joinleave
    from incast_model import run as model_run

    from fabnic_tb.bench import record as rec

    lines = ["| params | init | join first / settle ms | leave first / settle ms | "
             "Jain before leave | Jain end | util end | peak q KB |", "|" + " --- |" * 8]
    for cc, (tj, tl, dur) in ((PAPER, (20e3, 40e3, 100e3)), (PRODUCTION, (10e3, 20e3, 50e3))):
        for init in (0.0, LINE_GBPS / 8):
            cj, cl, jb, je, ue, pk = [], [], [], [], [], []
            for seed in (1, 2, 3):
                r, a, b = joinleave(cc, tj, tl, dur, seed=seed, init_gbps=init)
                x1, x2 = r.rates(tl - 1000, tl), r.rates(dur - 1000, dur)
                cj.append(a)
                cl.append(b)
                jb.append(jain(x1))
                je.append(jain(x2[1:]))
                ue.append(x2.sum() / LINE_GBPS)
                pk.append(r.peak_q)
            tag = "line" if not init else f"{init:g}G"
            cfg = {"params": cc.name, "model": "incast_model.py", "init_gbps": init or LINE_GBPS,
                   "join_us": tj, "leave_us": tl, "run_us": dur, "seeds": 3}
            name = f"cc.incast_model.{cc.name}_joinleave_init_{tag}"

            def worst(v: list[float]) -> float:
                return -1.0 if any(math.isnan(x) for x in v) else max(v)

            for lab, v in (("join", cj), ("leave", cl)):
                rec(f"{name}.converge_{lab}_us", worst([x[0] for x in v]), "us", None, cfg,
                    higher_is_better=False, note="first held 500 us, worst of 3 seeds; -1: a "
                    "seed did not converge before the next event / end")
                rec(f"{name}.settle_{lab}_us", worst([x[1] for x in v]), "us", None, cfg,
                    higher_is_better=False, note="fair in every later window, worst of 3 seeds")
            rec(f"{name}.jain_end", float(np.mean(je)), "index", 0.95, cfg,
                note="last 1 ms, 7 remaining flows, mean of 3 seeds")
            def fmt(v: list[tuple[float, float]]) -> str:
                return ", ".join("/".join("-" if math.isnan(x) else f"{x / 1000:.1f}" for x in p)
                                 for p in v)

            lines.append(f"| {cc.name} | {tag} | {fmt(cj)} | {fmt(cl)} | "
                         f"{np.mean(jb):.3f} | {np.mean(je):.3f} | {np.mean(ue):.3f} | "
                         f"{np.mean(pk) / 1000:.0f} |")
    lines += ["", "| params | init | flows | util 0-1 ms | util 1-10 ms | util 10-50 ms | "
              "peak q KB |", "|" + " --- |" * 7]
    for cc in (PAPER, PRODUCTION):
        for init in (0.0, LINE_GBPS / 8):
            for n in (1, 2, 8):
                r = model_run(cc, LoopParams(n=n, dur_us=50e3, init_gbps=init))
                u = [r.rates(a, b).sum() / LINE_GBPS for a, b in ((0, 1e3), (1e3, 10e3),
                                                                  (10e3, 50e3))]
                tag = "line" if not init else f"{init:g}G"
                cfg = {"params": cc.name, "model": "incast_model.py", "init_gbps": init or LINE_GBPS,
                       "incast": f"{n}:1", "run_us": 50e3}
                rec(f"cc.incast_model.{cc.name}_{n}to1_init_{tag}.util_1_10ms", u[1],
                    "fraction of line", None, cfg)
                rec(f"cc.incast_model.{cc.name}_{n}to1_init_{tag}.peak_queue", r.peak_q, "bytes",
                    None, cfg, higher_is_better=False)
                lines.append(f"| {cc.name} | {tag} | {n} | {u[0]:.3f} | {u[1]:.3f} | {u[2]:.3f} "
                             f"| {r.peak_q / 1000:.0f} |")
    (plot_dir() / "cc_incast_model_joinleave.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


__all__ = ["LINE_GBPS", "PAPER", "PRODUCTION"]
