# SPDX-License-Identifier: Apache-2.0
"""Packet-level Python model of the DCQCN incast loop (what tb_incast.sv simulates),
for long runs and parameter studies the Verilator bench cannot afford.

Not a golden model of the testbench: an independent, simplified re-statement of the
same loop from the specs, used to show the time scales of the algorithm:

* N backlogged senders, each paced by a rate limiter at the reaction point's Rc
  (`next = max(next, now - slack) + wire_len * cycles_per_byte(Rc)` at every grant,
  `next = min(next, now + wire_len * cycles_per_byte(new Rc))` when a rate-timer
  increase falls due while the sender waits, as fabnic_rate_limiter does on a rate
  write; one grant banked ahead, uplink serialization at line rate);
  the reaction point is `dcqcn_model.DcqcnModel` (bit-exact flavour, so the rates
  are the ones the RTL would compute for the same events); its byte counter sees
  wire_len per grant, like the testbench sender.
* 1 us links, store-and-forward switch with one FIFO bottleneck egress at line
  rate, RED/ECN decided when a frame starts to leave on the bytes queued behind it
  (ECN_DEQ = 1), shared buffer with tail drop (lossy) or per-ingress PFC XOFF/XON
  (lossless, pause until XON).
* The receiver's notification point: a CE frame of flow q sends a CNP iff q had
  none yet or the interval has elapsed; the CNP reaches the sender 2 links + 2
  small serializations later.

`python tb/cc/incast_fluid.py --help` for the command line. Times in cycles at
250 MHz (the RTL's clock)."""

from __future__ import annotations

import argparse
import heapq
import math
from dataclasses import dataclass, field, replace

import numpy as np
from dcqcn_model import DcqcnConfig, DcqcnModel
from incast_tb import HDR, LINE_BPC, OVH, PAPER, PRODUCTION, US, CCParams, fair_times, jain, mbps

LINE_MBPS = 100_000.0


@dataclass
class LoopParams:
    n: int = 8
    payload: int = 4096
    delay_us: float = 1.0
    lossless: bool = True
    buf: int = 4 << 20
    xoff: int = 0                    # 0: the bench's default (pfc_thresholds)
    slack: int = 100
    seed: int = 1
    start_jitter_us: float = 0.0     # flow i starts at a random time in [0, jitter)
    dur_us: float = 4000.0
    sample_us: float = 5.0
    init_gbps: float = 0.0           # RP initial rate (0: line rate)
    starts_us: tuple[float, ...] = ()  # per-flow start time (join); () : all at 0 / jitter
    stops_us: tuple[float, ...] = ()   # per-flow stop time (leave); () : never


@dataclass
class Result:
    t_us: np.ndarray
    rcv: np.ndarray                  # [sample, flow] cumulative delivered frame bytes
    rc: np.ndarray                   # [sample, flow] Rc (Mb/s)
    q: np.ndarray                    # [sample] bottleneck queue bytes
    cnps: np.ndarray                 # [flow] CNPs received
    marks: int = 0
    drops: int = 0
    pauses: int = 0
    peak_q: int = 0
    extra: dict = field(default_factory=dict)

    def rates(self, t0_us: float, t1_us: float) -> np.ndarray:
        i0 = int(np.searchsorted(self.t_us, t0_us))
        i1 = int(np.searchsorted(self.t_us, t1_us, side="right")) - 1
        db = self.rcv[i1] - self.rcv[i0]
        flen = HDR + 4096
        return (db * (1 + OVH / flen)) * 8 / ((self.t_us[i1] - self.t_us[i0]) * 1e-6) / 1e9


def dcqcn_cfg(cc: CCParams, init_gbps: float = 0.0) -> DcqcnConfig:
    return DcqcnConfig(g_shift=cc.g_shift, alpha_period=round(cc.alpha_us * US),
                       timer_period=round(cc.timer_us * US), byte_counter=cc.byte_counter,
                       f=cc.f, rate_ai=mbps(cc.ai_mbps), rate_hai=mbps(cc.hai_mbps),
                       rate_min=mbps(cc.rmin_mbps), rate_line=mbps(LINE_MBPS),
                       rate_init=mbps(init_gbps * 1000 or LINE_MBPS),
                       clamp_tgt=int(cc.clamp_tgt))


def run(cc: CCParams, lp: LoopParams, kmin: int | None = None) -> Result:
    rng = np.random.default_rng(lp.seed)
    n = lp.n
    flen = HDR + lp.payload
    wire = flen + OVH
    ser = wire / LINE_BPC                      # cycles per data frame on a link
    dly = lp.delay_us * US
    cnp_lat = 2 * dly + 2 * (98 / LINE_BPC) + 2
    pfc_lat = dly + 84 / LINE_BPC
    interval = cc.cnp_us * US
    k_min = cc.kmin if kmin is None else kmin
    headroom = int(2 * lp.delay_us * US * LINE_BPC + 3 * wire + 84)
    xoff = lp.xoff or max(min(2 * cc.kmax // n, lp.buf // n - headroom), 32_768)
    xon = xoff - 16_384
    rp = DcqcnModel(dcqcn_cfg(cc, lp.init_gbps), exact=False)
    t_end = lp.dur_us * US

    # sender state
    nxt = np.zeros(n)                           # limiter next allowed time
    link_free = np.zeros(n)
    paused_until = np.zeros(n)
    stalled = np.zeros(n, bool)
    gen = [0] * n                               # sender try events of older generations are void
    start = rng.uniform(0, lp.start_jitter_us * US, n) if lp.start_jitter_us else np.zeros(n)
    if lp.starts_us:
        start = np.array(lp.starts_us, dtype=float) * US
    stop = np.array(lp.stops_us, dtype=float) * US if lp.stops_us else np.full(n, np.inf)
    for i in range(n):
        rp.init(i, int(start[i]))
        nxt[i] = start[i]
    ev: list = []
    seq = 0

    def push(t: float, kind: int, a: int = 0) -> None:
        nonlocal seq
        heapq.heappush(ev, (t, seq, kind, a))
        seq += 1

    # kinds: 0 sender try, 1 arrive switch, 2 egress free, 3 arrive receiver, 4 CNP at sender,
    # 8 rate timer due while a sender waits,
    # 5 pause at sender, 6 resume at sender, 7 sample
    for i in range(n):
        push(start[i], 0, (i, 0))
    push(0.0, 7)
    queue: list = []                            # (flow, flen, marked_capable)
    qbytes = 0
    ing = np.zeros(n)
    xoff_state = np.zeros(n, bool)
    busy = False
    last_cnp = np.full(n, -1e18)
    cnps = np.zeros(n, int)
    rcv = np.zeros(n)
    res_t, res_rcv, res_rc, res_q = [], [], [], []
    res_rt: list = []
    marks = drops = pauses = 0
    peak = 0
    slack = lp.slack

    def start_egress(t: float) -> None:
        nonlocal busy, qbytes, marks
        if busy or not queue:
            return
        f, fl = queue.pop(0)
        behind = qbytes - fl
        mark = False
        if behind > k_min:
            if behind >= cc.kmax:
                mark = True
            else:
                mark = rng.random() < cc.pmax * (behind - k_min) / (cc.kmax - k_min)
        marks += mark
        busy = True
        push(t + ser, 2, f * 2 + int(mark))

    while ev:
        t, _, kind, a = heapq.heappop(ev)
        if t > t_end:
            break
        if kind == 0:                           # sender i: grant + send one frame
            i, g0 = a
            if g0 != gen[i] or t >= stop[i]:
                continue
            if t < paused_until[i] - 1e-9:
                stalled[i] = True
                continue
            g = max(t, math.floor(nxt[i]))
            if g > t + 1e-9:
                push(g, 0, (i, gen[i]))
                continue
            rp.tx(i, int(t), wire)
            rc = rp.qps[i].rc / (1 << 12)       # Mb/s
            cpb = 8 * 250 / rc
            nxt[i] = max(nxt[i], t - slack) + wire * cpb
            s = max(t, link_free[i])
            link_free[i] = s + ser
            push(s + ser + dly, 1, i)
            t_try = max(link_free[i], math.floor(nxt[i]))
            push(t_try, 0, (i, gen[i]))
            # a rate-timer increase while the sender waits re-prices the pending packet
            # (fabnic_rate_limiter: next = min(next, now + last_len * cpb_new))
            if rp.cfg.timer_period:
                t_due = rp.qps[i].t_rate + rp.cfg.timer_period
                if t < t_due < t_try:
                    push(t_due, 8, (i, gen[i]))
        elif kind == 1:                         # frame of flow a at the switch
            i = a
            if not lp.lossless and qbytes + flen > lp.buf:
                drops += 1
                continue
            queue.append((i, flen))
            qbytes += flen
            peak = max(peak, qbytes)
            ing[i] += flen
            if lp.lossless and ing[i] > xoff and not xoff_state[i]:
                xoff_state[i] = True
                pauses += 1
                push(t + pfc_lat, 5, i)
            start_egress(t)
        elif kind == 2:                         # egress finished a frame
            i, mark = a // 2, a % 2
            busy = False
            qbytes -= flen
            ing[i] -= flen
            if xoff_state[i] and ing[i] <= xon:
                xoff_state[i] = False
                push(t + pfc_lat, 6, i)
            push(t + dly, 3, a)
            start_egress(t)
        elif kind == 3:                         # frame at the receiver
            i, mark = a // 2, a % 2
            rcv[i] += flen
            if mark and (interval == 0 or t - last_cnp[i] >= interval):
                last_cnp[i] = t
                push(t + cnp_lat, 4, i)
        elif kind == 4:
            cnps[a] += 1
            rp.cnp(a, int(t))
        elif kind == 5:
            paused_until[a] = 1e18
        elif kind == 6:
            paused_until[a] = t
            if stalled[a]:
                stalled[a] = False
                push(t, 0, (a, gen[a]))
        elif kind == 8:                         # rate timer due while sender i waits
            i, g0 = a
            if g0 != gen[i]:
                continue
            old = rp.qps[i].rc
            rp.advance(i, int(t))
            if rp.qps[i].rc > old:
                cap = t + wire * 8 * 250 / (rp.qps[i].rc / (1 << 12))
                if cap < nxt[i]:
                    nxt[i] = cap
                    gen[i] += 1
                    push(max(t, link_free[i], math.floor(nxt[i])), 0, (i, gen[i]))
            t_due = rp.qps[i].t_rate + rp.cfg.timer_period
            if t_due > t and t_due < nxt[i]:
                push(t_due, 8, (i, gen[i]))
        elif kind == 7:
            for i in range(n):
                rp.advance(i, int(t))
            res_t.append(t / US)
            res_rcv.append(rcv.copy())
            res_rc.append([rp.qps[i].rc / (1 << 12) for i in range(n)])
            res_rt.append([rp.qps[i].rt / (1 << 12) for i in range(n)])
            res_q.append(qbytes)
            push(t + lp.sample_us * US, 7)
    return Result(np.array(res_t), np.array(res_rcv), np.array(res_rc), np.array(res_q),
                  cnps, marks, drops, pauses, peak, extra={"rt": np.array(res_rt)})


def fair_convergence(r: Result, t_ev_us: float, flows: list[int], t_end_us: float | None = None,
                     win_us: float = 100.0, hold_us: float = 500.0, jain_thr: float = 0.95,
                     tol: float = 0.05) -> tuple[float, float]:
    """(first, settle) convergence times after t_ev_us of the delivered rates of `flows`
    over sliding win_us windows: the metric of incast_tb.fair_convergence_time."""
    step = r.t_us[1] - r.t_us[0]
    k = int(round(win_us / step))
    t0, t1 = r.t_us[:-k], r.t_us[k:]
    flen = HDR + 4096
    db = (r.rcv[k:] - r.rcv[:-k])[:, flows]
    rates = db * (1 + OVH / flen) * 8 / ((t1 - t0)[:, None] * 1e-6) / 1e9
    return fair_times(t0, t1, rates, LINE_MBPS / 1000 / len(flows), t_ev_us, t_end_us,
                       hold_us, jain_thr, tol)


def joinleave(cc: CCParams, t_join_us: float, t_leave_us: float, dur_us: float,
              seed: int = 1, stagger_us: float = 100.0, init_gbps: float = 0.0,
              hold_us: float = 500.0) -> tuple[Result, tuple, tuple]:
    """The bench's join/leave schedule: flows 0..6 start stagger_us apart, flow 7 joins at
    t_join_us, flow 0 leaves at t_leave_us. Returns (result, (first, settle) after the
    join, (first, settle) after the leave) with fair_convergence (NaN: not within the run)."""
    starts = tuple(stagger_us * i for i in range(7)) + (t_join_us,)
    stops = (t_leave_us,) + (math.inf,) * 7
    r = run(cc, LoopParams(seed=seed, dur_us=dur_us, starts_us=starts, stops_us=stops,
                           init_gbps=init_gbps))
    cj = fair_convergence(r, t_join_us, list(range(8)), t_end_us=t_leave_us, hold_us=hold_us)
    cl = fair_convergence(r, t_leave_us, list(range(1, 8)), hold_us=hold_us)
    return r, cj, cl


def report(name: str, r: Result, dur_us: float, win_us: float = 1000.0) -> None:
    print(f"== {name}: marks {r.marks} drops {r.drops} PFC {r.pauses} peak q {r.peak_q/1e3:.0f} KB"
          f" CNPs {r.cnps.tolist()}")
    t = 0.0
    while t + win_us <= dur_us + 1e-6:
        x = r.rates(t, t + win_us)
        print(f"  {t/1e3:6.1f}-{(t+win_us)/1e3:6.1f} ms util {x.sum()/100:.3f} jain {jain(x):.3f}"
              f" rates {np.round(x, 1).tolist()}")
        t += win_us


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--params", choices=["paper", "prod"], default="paper")
    ap.add_argument("--ms", type=float, default=4.0)
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--lossy", action="store_true")
    ap.add_argument("--payload", type=int, default=4096)
    ap.add_argument("--jitter-us", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--win-us", type=float, default=1000.0)
    ap.add_argument("--set", action="append", default=[],
                    help="override a CCParams field, e.g. --set ai_mbps=20")
    a = ap.parse_args()
    cc = PAPER if a.params == "paper" else PRODUCTION
    for s in a.set:
        k, v = s.split("=")
        cur = getattr(cc, k)
        cc = replace(cc, **{k: type(cur)(float(v)) if not isinstance(cur, bool) else v == "1"})
    lp = LoopParams(n=a.n, payload=a.payload, lossless=not a.lossy, seed=a.seed,
                    start_jitter_us=a.jitter_us, dur_us=a.ms * 1000)
    r = run(cc, lp)
    report(f"{cc} {lp}", r, lp.dur_us, a.win_us)


if __name__ == "__main__":
    main()
