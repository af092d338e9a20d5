# SPDX-License-Identifier: Apache-2.0
"""DCQCN reaction-point golden model, written from the published equations.

Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015,
and the authors' ns-3 code (see /work/shared/REFERENCES.md, DCQCN section):

  CNP:             Rt = Rc; Rc = Rc*(1 - alpha/2); alpha = (1-g)*alpha + g;
                   timer and byte-counter stages reset.
  alpha period P:  no CNP for P -> alpha = (1-g)*alpha.
  increase event:  from a timer (period T) or a byte counter (every B bytes);
                   stage counts (after this event) hi = max, lo = min:
                   hi <= F: fast recovery      Rc = (Rt+Rc)/2
                   lo <= F: additive increase  Rt += R_AI;      Rc = (Rt+Rc)/2
                   else:    hyper increase     Rt += i*R_HAI (i = lo-F); Rc = (Rt+Rc)/2
  R_min <= Rc, Rt <= line rate.

Two flavours share the event handling: ``exact=False`` is a bit-exact mirror of
fabnic_dcqcn_rp's fixed-point arithmetic (integers: rates in Mb/s * 2**rate_frac,
alpha * 2**alpha_frac); ``exact=True`` uses real numbers (floats, rates in the
same units so the two can be compared directly). Times are clock cycles; an
event at time t first sees every timer event due at or before t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

RATE_FRAC = 12
ALPHA_FRAC = 20


def mbps(x: float) -> int:
    """Rate in Mb/s -> the RTL's fixed-point rate."""
    return round(x * (1 << RATE_FRAC))


@dataclass
class DcqcnConfig:
    g_shift: int = 8
    alpha_period: int = 13750          # cycles (55 us at 250 MHz)
    timer_period: int = 13750
    byte_counter: int = 10 * 1024 * 1024
    f: int = 5
    rate_ai: int = mbps(5)
    rate_hai: int = mbps(50)
    rate_min: int = mbps(100)
    rate_line: int = mbps(100_000)
    rate_init: int = mbps(100_000)
    clamp_tgt: int = 1                 # 1: Rt = Rc at every CNP; 0: only after a timer increase
    alpha_frac: int = ALPHA_FRAC
    stage_w: int = 8

    def drive(self, dut) -> None:
        dut.cfg_g_shift.value = self.g_shift
        dut.cfg_alpha_period.value = self.alpha_period
        dut.cfg_timer_period.value = self.timer_period
        dut.cfg_byte_counter.value = self.byte_counter
        dut.cfg_f.value = self.f
        dut.cfg_rate_ai.value = self.rate_ai
        dut.cfg_rate_hai.value = self.rate_hai
        dut.cfg_rate_min.value = self.rate_min
        dut.cfg_rate_line.value = self.rate_line
        dut.cfg_rate_init.value = self.rate_init
        dut.cfg_clamp_tgt.value = self.clamp_tgt


@dataclass
class QpState:
    en: bool = False
    rc: float = 0
    rt: float = 0
    alpha: float = 0
    ts: int = 0
    bs: int = 0
    nbytes: int = 0
    t_alpha: int = 0
    t_rate: int = 0
    rc_hist: list[float] = field(default_factory=list)  # every Rc value taken, in order


class DcqcnModel:
    def __init__(self, cfg: DcqcnConfig, exact: bool) -> None:
        self.cfg = cfg
        self.exact = exact
        self.one = 1.0 if exact else 1 << cfg.alpha_frac
        self.qps: dict[int, QpState] = {}
        self.n_increase = 0
        self.n_decrease = 0
        self.n_cnp = 0
        self.n_cnp_ignored = 0

    # ---- arithmetic (the only place the two flavours differ)
    def _decay(self, a: float) -> float:
        if self.exact:
            return a * (1 - 2.0 ** -self.cfg.g_shift)
        a = int(a)
        return a - ((a + (1 << self.cfg.g_shift) - 1) >> self.cfg.g_shift)  # a - ceil(a*g)

    def decay_n(self, a: float, n: int) -> float:
        """alpha after n alpha periods without a CNP: alpha * (1-g)**n. The fixed-point
        flavour rounds as n single steps (each a - ceil(a*g)), so it does not matter how
        the RTL groups the periods (up to ALPHA_STEPS per op, more by replays); once 0 it
        stays 0."""
        if self.exact:
            return a * (1 - 2.0 ** -self.cfg.g_shift) ** n
        for _ in range(n):
            if a == 0:
                break
            a = self._decay(a)
        return a

    def _g(self) -> float:
        return 2.0 ** -self.cfg.g_shift if self.exact else (1 << self.cfg.alpha_frac) >> self.cfg.g_shift

    def _half(self, x: float) -> float:
        return x / 2 if self.exact else (int(x) + 1) >> 1   # RTL rounds up

    def _cut(self, rc: float, alpha: float) -> float:
        if self.exact:
            return rc * (1 - alpha / 2)
        return int(rc) - ((int(rc) * int(alpha)) >> (self.cfg.alpha_frac + 1))

    # ---- rules
    def _increase(self, s: QpState) -> None:
        c = self.cfg
        hi, lo = max(s.ts, s.bs), min(s.ts, s.bs)
        if hi <= c.f:
            rt = s.rt
        elif lo <= c.f:
            rt = s.rt + c.rate_ai
        else:
            rt = s.rt + (lo - c.f) * c.rate_hai
        rt = min(rt, c.rate_line)
        rc = self._half(rt + s.rc)
        s.rt = rt
        s.rc = max(min(rc, c.rate_line), c.rate_min)
        s.rc_hist.append(s.rc)
        self.n_increase += 1

    def _sat(self, v: int) -> int:
        return min(v + 1, (1 << self.cfg.stage_w) - 1)

    def advance(self, qpn: int, t: int) -> None:
        """Apply every timer event of ``qpn`` due at or before ``t``."""
        s = self.qps.get(qpn)
        if s is None or not s.en:
            return
        c = self.cfg
        if c.alpha_period and t - s.t_alpha >= c.alpha_period:
            n = (t - s.t_alpha) // c.alpha_period      # alpha periods due, all applied at once
            s.t_alpha += n * c.alpha_period
            s.alpha = self.decay_n(s.alpha, n)
        if c.timer_period:
            while s.t_rate + c.timer_period <= t:
                s.t_rate += c.timer_period
                s.ts = self._sat(s.ts)
                self._increase(s)

    def init(self, qpn: int, t: int, enable: bool = True) -> None:
        c = self.cfg
        old = self.qps.get(qpn)
        s = QpState(en=enable, rc=c.rate_init, rt=c.rate_init, alpha=self.one,
                    t_alpha=t, t_rate=t, rc_hist=old.rc_hist if old else [])
        s.rc_hist.append(s.rc)
        self.qps[qpn] = s

    def cnp(self, qpn: int, t: int) -> None:
        self.n_cnp += 1
        s = self.qps.get(qpn)
        if s is None or not s.en:
            self.n_cnp_ignored += 1
            return
        self.advance(qpn, t)
        c = self.cfg
        if c.clamp_tgt or s.ts != 0:
            s.rt = s.rc
        s.rc = max(self._cut(s.rc, s.alpha), c.rate_min)
        s.alpha = self._decay(s.alpha) + self._g()
        s.ts = s.bs = s.nbytes = 0
        s.t_alpha = s.t_rate = t
        s.rc_hist.append(s.rc)
        self.n_decrease += 1

    def tx(self, qpn: int, t: int, nbytes: int) -> None:
        s = self.qps.get(qpn)
        if s is None or not s.en:
            return
        self.advance(qpn, t)
        c = self.cfg
        if not c.byte_counter:
            return
        s.nbytes += nbytes
        if s.nbytes >= c.byte_counter:
            s.nbytes -= c.byte_counter
            s.bs = self._sat(s.bs)
            self._increase(s)

    def read(self, qpn: int, t: int) -> tuple[float, float, float]:
        self.advance(qpn, t)
        s = self.qps[qpn]
        return s.rc, s.rt, s.alpha


def alpha_error_bound(cfg: DcqcnConfig) -> float:
    """Worst-case |alpha_fixed - alpha_real| (as a fraction of 1): each update rounds
    by < 1 LSB and the error then shrinks by (1-g) per update, so the sum is < 2**g_shift LSB."""
    return 2.0 ** (cfg.g_shift - cfg.alpha_frac) + 2.0 ** -cfg.alpha_frac


def rates_close(a: float, b: float, rel: float, abs_units: float = 4.0) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_units)
