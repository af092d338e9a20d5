# SPDX-License-Identifier: Apache-2.0
"""Helpers for the DCQCN closed-loop incast testbench (tb_incast.sv).

Python only writes configuration signals and samples counters every few
microseconds with one Timer per sample; everything per cycle is SystemVerilog.
The metrics are computed here from the samples (numpy), independent of the RTL.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

CLK_HZ = 250e6
LINE_GBPS = 100.0
LINE_BPC = LINE_GBPS * 1e9 / 8 / CLK_HZ  # 50 bytes per cycle
OVH = 24  # preamble + IFG + FCS
HDR = 70  # Eth + IPv4 + UDP + BTH + RETH + ICRC
RATE_PER_MBPS = 1 << 12  # RP/limiter rate unit
US = 250  # cycles per microsecond


def mbps(x: float) -> int:
    return int(round(x * RATE_PER_MBPS))


def fixed16(x: float) -> int:
    return int(round(x * 65536))


def prob32(p: float) -> int:
    return min(0xFFFFFFFF, int(round(p * 2**32)))


@dataclass(frozen=True)
class CCParams:
    """Switch RED and DCQCN parameters (REFERENCES.md, DCQCN section)."""

    name: str
    kmin: int
    kmax: int
    pmax: float
    g_shift: int
    alpha_us: float
    timer_us: float
    byte_counter: int
    f: int
    ai_mbps: float
    hai_mbps: float
    rmin_mbps: float
    cnp_us: float
    clamp_tgt: bool = True  # Rt = Rc at every CNP (paper); False: only after a timer increase


# Paper-era values (Zhu et al. 2015 + the authors' ns-3 code).
PAPER = CCParams("paper", kmin=5_000, kmax=200_000, pmax=0.01, g_shift=8, alpha_us=55,
                 timer_us=55, byte_counter=10_000_000, f=5, ai_mbps=5, hai_mbps=50,
                 rmin_mbps=100, cnp_us=50)
# Production values published with the HPCC simulator (100 G) + Mellanox 4 us CNP
# interval. The same simulator configuration sets ALPHA_RESUME_INTERVAL 1 (us): the
# alpha period is 1 us (Mellanox firmware default dce_tcp_rtt / alpha update period
# 1 us as well); the first version of this bench used 55 us here, which keeps alpha
# near 1 for ms after the start and over-cuts (docs/cc.md, "What the runs show").
# Target-rate clamping off, as in the Mellanox-style DCQCN of the HPCC and
# DCQCN-author ns-3 code (ClampTargetRate = false: Rt follows Rc on a cut only after
# a timer increase).
PRODUCTION = CCParams("prod", kmin=400_000, kmax=1_600_000, pmax=0.2, g_shift=8,
                      alpha_us=1, timer_us=900, byte_counter=10_000_000, f=1, ai_mbps=50,
                      hai_mbps=100, rmin_mbps=100, cnp_us=4, clamp_tgt=False)


@dataclass
class NetParams:
    n_senders: int                 # instantiated senders (tb parameter N)
    delay_us: float = 1.0          # every link (4 link hops per round trip)
    buf_bytes: int = 4 << 20       # shared switch buffer
    lossless: bool = True
    xoff: int = 0                  # per ingress, lossless only; 0: pfc_thresholds()
    xon: int = 0                   # 0: xoff - 16 KB
    active: int = 0                # senders expected active (for the default xoff)
    pfc_quanta: int = 0xFFFF
    pfc_refresh_us: float = 20.0
    dcqcn: bool = True
    payload: int = 4096
    seed: int = 1
    start_jitter_us: float = 0.0   # flows of the first schedule entry start at random
                                   # offsets in [0, start_jitter_us) (0: same cycle)
    init_gbps: float = 0.0         # RP initial rate cfg_rate_init (Rc = Rt at QP start);
                                   # 0: line rate


def pfc_thresholds(net: NetParams, cc: CCParams) -> tuple[int, int]:
    """Static per-ingress XOFF (lossless runs): PFC as a backstop behind ECN, XOFF =
    2 x Kmax / active senders (the queue reaches about 2 x Kmax before any pause), but
    never more than an equal share of the buffer minus the headroom one ingress needs
    after XOFF (2 cable delays at line rate + 3 frames + the PFC frame, 48 KB at
    1 us). XON = XOFF - 16 KB."""
    headroom = int(2 * net.delay_us * US * LINE_BPC + 3 * (HDR + net.payload + OVH) + 84)
    k = net.active or net.n_senders
    xoff = net.xoff or max(min(2 * cc.kmax // k, net.buf_bytes // k - headroom), 32_768)
    return xoff, net.xon or xoff - 16_384


def configure(dut, net: NetParams, cc: CCParams) -> None:
    dut.rate.value = fixed16(LINE_BPC)
    dut.ovh.value = OVH
    dut.link_delay.value = int(round(net.delay_us * US))
    dut.buf_size.value = net.buf_bytes
    dut.q_cap.value = 0
    dut.ecn_en.value = 1
    dut.kmin.value = cc.kmin
    dut.kmax.value = cc.kmax
    dut.pmax.value = prob32(cc.pmax)
    dut.seed.value = net.seed
    dut.pfc_en.value = int(net.lossless)
    xoff, xon = pfc_thresholds(net, cc)
    dut.xoff.value = xoff
    dut.xon.value = xon
    dut.pfc_quanta.value = net.pfc_quanta
    dut.pfc_refresh.value = int(net.pfc_refresh_us * US)
    dut.dcqcn_en.value = int(net.dcqcn)
    dut.tx_en.value = 0
    dut.payload_len.value = net.payload
    dut.cfg_g_shift.value = cc.g_shift
    dut.cfg_alpha_period.value = int(round(cc.alpha_us * US))
    dut.cfg_timer_period.value = int(round(cc.timer_us * US))
    dut.cfg_byte_counter.value = cc.byte_counter
    dut.cfg_f.value = cc.f
    dut.cfg_rate_ai.value = mbps(cc.ai_mbps)
    dut.cfg_rate_hai.value = mbps(cc.hai_mbps)
    dut.cfg_rate_min.value = mbps(cc.rmin_mbps)
    dut.cfg_rate_line.value = mbps(LINE_GBPS * 1000)
    dut.cfg_rate_init.value = mbps((net.init_gbps or LINE_GBPS) * 1000)
    dut.cfg_slack.value = 100
    dut.cfg_interval.value = int(round(cc.cnp_us * US))
    dut.cfg_clamp_tgt.value = int(cc.clamp_tgt)


def _slice(v: int, i: int, w: int) -> int:
    return (v >> (w * i)) & ((1 << w) - 1)


@dataclass
class Trace:
    """Samples of one run (all arrays indexed by sample)."""

    n: int
    cycle: list[int] = field(default_factory=list)
    q: list[int] = field(default_factory=list)
    qsum: list[int] = field(default_factory=list)
    tx_bytes: list[int] = field(default_factory=list)    # bottleneck egress frame bytes
    tx_frames: list[int] = field(default_factory=list)
    rcv_bytes: list[list[int]] = field(default_factory=list)  # per flow
    rc: list[list[int]] = field(default_factory=list)    # per flow, RP rate given to limiter
    rt: list[list[int]] = field(default_factory=list)    # per flow, RP target rate (RP read)
    tx_en: list[int] = field(default_factory=list)
    drops: list[int] = field(default_factory=list)
    pfc_xoff: list[int] = field(default_factory=list)
    cnp_rx: list[list[int]] = field(default_factory=list)
    snd_bytes: list[list[int]] = field(default_factory=list)  # per sender, frame bytes sent
    snd_frames: list[list[int]] = field(default_factory=list)
    wall: float = 0.0
    peak_q: int = 0
    marks: int = 0
    np_cnp: int = 0
    np_marked: int = 0
    cnp_tx: int = 0
    pfc_rx: int = 0
    decreases: int = 0


def take_sample(dut, tr: Trace) -> None:
    n = tr.n
    tr.cycle.append(int(dut.cycle.value))
    tr.q.append(int(dut.bneck_q.value))
    tr.qsum.append(int(dut.bneck_qsum.value))
    tr.tx_bytes.append(_slice(int(dut.cnt_tx_bytes.value), n, 64))
    tr.tx_frames.append(_slice(int(dut.cnt_tx_frames.value), n, 32))
    rb = int(dut.rcv_bytes.value)
    tr.rcv_bytes.append([_slice(rb, i, 64) for i in range(n)])
    tr.rc.append([int(dut.g_snd[i].cur_rate.value) for i in range(n)])
    tr.rt.append([int(dut.g_snd[i].rd_rt.value) for i in range(n)])
    tr.cnp_rx.append([int(dut.g_snd[i].cnt_cnp_rx.value) for i in range(n)])
    tr.snd_bytes.append([int(dut.g_snd[i].cnt_tx_bytes_s.value) for i in range(n)])
    tr.snd_frames.append([int(dut.g_snd[i].cnt_tx_frames_s.value) for i in range(n)])
    tr.tx_en.append(int(dut.tx_en.value))
    drops = int(dut.cnt_drop_tail.value)
    tr.drops.append(sum(_slice(drops, i, 32) for i in range(n + 1)))
    xo = int(dut.cnt_pfc_xoff_tx.value)
    tr.pfc_xoff.append(sum(_slice(xo, i, 32) for i in range(n + 1)))


def finish(dut, tr: Trace) -> None:
    n = tr.n
    tr.peak_q = _slice(int(dut.peak_qlen.value), n, 32)
    tr.marks = _slice(int(dut.cnt_ecn_mark.value), n, 32)
    tr.np_cnp = int(dut.np_cnp.value)
    tr.np_marked = int(dut.np_marked.value)
    tr.cnp_tx = int(dut.rcv_cnp_tx.value)
    tr.pfc_rx = sum(int(dut.g_snd[i].cnt_pfc_rx.value) for i in range(n))
    tr.decreases = sum(int(dut.g_snd[i].cnt_rp_decrease.value) for i in range(n))


async def run_schedule(dut, n: int, duration_us: float, sample_us: float,
                       schedule: list[tuple[float, int]], start_jitter_us: float = 0.0,
                       seed: int = 1) -> Trace:
    """Run for duration_us, sampling every sample_us; schedule = [(time_us, tx_en mask)]
    applied at the sample boundary at or after time_us (times relative to the start).
    start_jitter_us > 0: the flows of the first entry (at time 0) start one by one at
    random offsets (cycles, uniform in [0, start_jitter_us), numpy seed `seed`)
    after the first sample, so senders are not phase-locked from the first cycle."""
    import numpy as np
    from cocotb.triggers import Timer

    tr = Trace(n)
    sched = sorted(schedule)
    steps = int(round(duration_us / sample_us))
    wall = time.perf_counter()
    t_us = 0.0
    period = int(round(sample_us * US))
    for k in range(steps + 1):
        stagger: list[tuple[int, int]] = []
        while sched and sched[0][0] <= t_us + 1e-9:
            mask = sched.pop(0)[1]
            if k == 0 and start_jitter_us > 0:
                rng = np.random.default_rng(seed)
                span = min(int(start_jitter_us * US), period - 1)
                offs = rng.integers(0, span, n)
                stagger = sorted((int(offs[f]), f) for f in range(n) if (mask >> f) & 1)
                dut.tx_en.value = 0
            else:
                dut.tx_en.value = mask
        take_sample(dut, tr)
        if k == steps:
            break
        waited = 0
        cur = 0
        for off, f in stagger:  # staggered start inside the first sample period
            if off > waited:
                await Timer((off - waited) * 4, unit="ns")
                waited = off
            cur |= 1 << f
            dut.tx_en.value = cur
        await Timer((period - waited) * 4, unit="ns")
        t_us += sample_us
    tr.wall = time.perf_counter() - wall
    finish(dut, tr)
    return tr


# ---------------------------------------------------------------- metrics
def jain(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    s = float(np.sum(x * x))
    return float(np.sum(x) ** 2 / (len(x) * s)) if s > 0 else 1.0


def window(tr: Trace, t0_us: float, t1_us: float) -> tuple[int, int]:
    c = np.array(tr.cycle, dtype=float)
    c = c - c[0]
    i0 = int(np.searchsorted(c, t0_us * US))
    i1 = int(np.searchsorted(c, t1_us * US, side="right")) - 1
    return i0, max(i0 + 1, i1)


def utilization(tr: Trace, i0: int, i1: int) -> float:
    """Bottleneck wire utilization (frame bytes + overhead) over samples i0..i1."""
    dc = tr.cycle[i1] - tr.cycle[i0]
    db = tr.tx_bytes[i1] - tr.tx_bytes[i0] + OVH * (tr.tx_frames[i1] - tr.tx_frames[i0])
    return db / (dc * LINE_BPC)


def mean_queue(tr: Trace, i0: int, i1: int) -> float:
    return (tr.qsum[i1] - tr.qsum[i0]) / (tr.cycle[i1] - tr.cycle[i0])


def flow_rates_gbps(tr: Trace, i0: int, i1: int, flows: list[int]) -> np.ndarray:
    """Delivered goodput+headers per flow (frame bytes + overhead) in Gb/s."""
    dc = tr.cycle[i1] - tr.cycle[i0]
    r = []
    for f in flows:
        db = tr.rcv_bytes[i1][f] - tr.rcv_bytes[i0][f]
        frames = db / (HDR + 4096)
        r.append((db + OVH * frames) * 8 / (dc / CLK_HZ) / 1e9)
    return np.array(r)


def windowed_rates(tr: Trace, win: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-flow delivered rate over sliding windows of `win` samples: (t_us, rates[k, f])."""
    b = np.array(tr.rcv_bytes, dtype=float)
    c = np.array(tr.cycle, dtype=float)
    db = b[win:] - b[:-win]
    dc = (c[win:] - c[:-win])[:, None]
    rates = db * (1 + OVH / (HDR + 4096)) * 8 / (dc / CLK_HZ) / 1e9
    t = (c[win:] - c[0]) / US
    return t, rates


def jain_windows(tr: Trace, flows: list[int], win_us: float, t0_us: float,
                 t1_us: float) -> list[tuple[float, float, float]]:
    """Jain's index and utilization (sum of delivered flow rates / line) over
    consecutive, non-overlapping windows of win_us from t0_us to t1_us:
    [(window end us, jain, util)]."""
    out = []
    t = t0_us
    while t + win_us <= t1_us + 1e-6:
        a, b = window(tr, t, t + win_us)
        r = flow_rates_gbps(tr, a, b, flows)
        out.append((t + win_us, jain(r), float(r.sum()) / LINE_GBPS))
        t += win_us
    return out


def flow_table(tr: Trace, flows: list[int], wins: list[tuple[str, int, int]]) -> str:
    """Per-flow table: delivered rate (Gb/s) in each window, mean RP rate Rc over
    the last window, CNPs received in the last window, and their rate per Gb/s
    of delivered rate (the share of the congestion signal each flow gets)."""
    c = np.array(tr.cycle, dtype=float)
    rc = np.array(tr.rc, dtype=float) / RATE_PER_MBPS / 1000
    cnp = np.array(tr.cnp_rx, dtype=float)
    hdr = ["flow"] + [f"Gb/s {w[0]}" for w in wins] + ["mean Rc", "CNPs", "CNP/ms/(Gb/s)"]
    rows = []
    _, a, b = wins[-1]
    dt_ms = (c[b] - c[a]) / US / 1000
    per = {w[0]: flow_rates_gbps(tr, w[1], w[2], flows) for w in wins}
    for k, f in enumerate(flows):
        n_cnp = cnp[b, f] - cnp[a, f]
        r_last = per[wins[-1][0]][k]
        rows.append([str(f)] + [f"{per[w[0]][k]:.2f}" for w in wins]
                    + [f"{rc[a:b + 1, f].mean():.2f}", f"{n_cnp:.0f}",
                       f"{n_cnp / dt_ms / r_last:.3f}" if r_last > 0 else "-"])
    tot = ["sum"] + [f"{per[w[0]].sum():.2f}" for w in wins] + ["", "", ""]
    ji = ["Jain"] + [f"{jain(per[w[0]]):.3f}" for w in wins] + ["", "", ""]
    lines = ["| " + " | ".join(hdr) + " |", "|" + " --- |" * len(hdr)]
    lines += ["| " + " | ".join(r) + " |" for r in rows + [tot, ji]]
    return "\n".join(lines)


def convergence_time(tr: Trace, t_event_us: float, flows: list[int], hold_us: float = 100.0,
                     jain_thr: float = 0.95, sum_tol: float = 0.10,
                     t_end_us: float | None = None) -> float:
    """Rate convergence after an event, from the reaction points' rates Rc (what the
    senders are allowed to send): the time from t_event_us to the first sample that
    starts a run of at least hold_us (before t_end_us, default the end of the run)
    in which Jain's index of the flows' Rc >= jain_thr and their sum is within
    sum_tol of the line rate. NaN if there is none."""
    line = LINE_GBPS * 1000 * RATE_PER_MBPS
    c = (np.array(tr.cycle, dtype=float) - tr.cycle[0]) / US
    rc = np.array(tr.rc, dtype=float)[:, flows]
    start = None
    for k in range(len(c)):
        if c[k] < t_event_us - 1e-6:
            continue
        if t_end_us is not None and c[k] > t_end_us + 1e-6:
            break
        r = rc[k]
        ok = jain(r) >= jain_thr and abs(r.sum() / line - 1) <= sum_tol
        if ok and start is None:
            start = c[k]
        elif not ok:
            start = None
        if start is not None and c[k] - start >= hold_us:
            return float(start - t_event_us)
    return math.nan


def fair_convergence_time(tr: Trace, t_event_us: float, flows: list[int], win: int = 20,
                          hold_us: float = 500.0, jain_thr: float = 0.95, tol: float = 0.05,
                          t_end_us: float | None = None) -> tuple[float, float]:
    """Convergence after an event from the DELIVERED per-flow rates (receiver bytes over
    sliding windows of `win` samples, 100 us by default; only windows that start after
    the event and end before t_end_us count). A window is fair if Jain's index over
    `flows` >= jain_thr and their mean rate is within tol of the fair share (line /
    len(flows)). Returns (first, settle), times from the event: `first` = end of the
    first window of a run of fair windows lasting hold_us; `settle` = end of the last
    unfair window (every later window is fair), only if the segment ends with at least
    hold_us of fair windows. NaN where there is none."""
    t, rates = windowed_rates(tr, win)
    t0 = t - win * (tr.cycle[1] - tr.cycle[0]) / US   # window start times
    return fair_times(t0, t, rates[:, flows], LINE_GBPS / len(flows), t_event_us, t_end_us,
                       hold_us, jain_thr, tol)


def fair_times(t0: np.ndarray, t1: np.ndarray, rates: np.ndarray, fair: float, t_ev: float,
                t_end: float | None, hold_us: float, jain_thr: float,
                tol: float) -> tuple[float, float]:
    first = math.nan
    start = None
    last_bad = t_ev
    t_last = None
    for k in range(len(t1)):
        if t0[k] < t_ev - 1e-6:
            continue
        if t_end is not None and t1[k] > t_end + 1e-6:
            break
        r = rates[k]
        ok = jain(r) >= jain_thr and abs(r.mean() / fair - 1) <= tol
        t_last = t1[k]
        if ok and start is None:
            start = t1[k]
        elif not ok:
            start = None
            last_bad = t1[k]
        if start is not None and t1[k] - start >= hold_us and math.isnan(first):
            first = start - t_ev
    settle = math.nan
    if t_last is not None and start is not None and t_last - start >= hold_us:
        settle = last_bad - t_ev
    return float(first), float(settle)


def save_trace(tr: Trace, path) -> None:
    import json

    with open(path, "w") as f:
        json.dump({k: v for k, v in tr.__dict__.items()}, f)
