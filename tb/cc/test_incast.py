# SPDX-License-Identifier: Apache-2.0
"""DCQCN closed loop through the switch model (tb_incast.sv, N = 2): real
fabnic_dcqcn_rp + fabnic_rate_limiter in each sender, real fabnic_dcqcn_np in the
receiver, 100 G links with 1 us delay. One build, two tests, about 15 s of
simulation.

dcqcn_join (paper parameters, lossy switch with a 2 MB buffer): flow 0 alone for
150 us, then flow 1 joins at line rate; 1 ms in all.
  * flow 0 alone fills the link (>= 97 %) and, its queue never passing one frame
    (< Kmin), is never marked: no CNP (RED formula).
  * each flow's first rate cut equals the published rule Rc*(1 - alpha/2) with alpha
    from the golden model (dcqcn_model.py) for the time since the QP started
    (flow 1: alpha = 1, i.e. Rc = line/2).
  * CNPs per flow <= 1 + elapsed / CNP interval (NP rate limit).
  * every CE mark reaches the NP, every NP CNP request reaches the RP of the right
    sender: switch marks = receiver CE count = NP marked; NP CNPs = CNP frames
    sent = CNPs received = RP CNP events; NP CNPs + suppressed = NP marked.
  * the rate limiter enforces Rc in the loop: over every sampled interval of >= 35 us
    in which a sender's Rc did not change (Rc < line), its wire bytes (frame + 24
    bytes each) are within 2 frames + 100 cycles of credit of Rc x time.
  * the queue drains back below Kmax after the join; no drop; frames sent =
    delivered.
nocc_2to1 (DCQCN off, lossy 256 KB buffer): the queue reaches the buffer, frames
are tail-dropped, and sent = delivered + dropped exactly; no RP activity.
"""

from __future__ import annotations

from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, Timer

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

from dcqcn_model import DcqcnConfig, DcqcnModel
from incast_tb import (
    HDR,
    LINE_BPC,
    LINE_GBPS,
    OVH,
    PAPER,
    US,
    NetParams,
    configure,
    mbps,
    run_schedule,
    utilization,
    window,
)

N = 2
LINE = mbps(LINE_GBPS * 1000)


def _sum32(v: int, n: int) -> int:
    return sum((v >> (32 * i)) & 0xFFFFFFFF for i in range(n))


def first_cut_candidates(t_init: int, t_a: int, t_b: int) -> set[int]:
    """Rc after the first CNP of a QP started at t_init (at line rate), for a CNP at
    any cycle in [t_a, t_b] (alpha changes only at the alpha-period boundaries)."""
    cfg = DcqcnConfig(g_shift=PAPER.g_shift, alpha_period=int(PAPER.alpha_us * US),
                      timer_period=int(PAPER.timer_us * US), byte_counter=PAPER.byte_counter,
                      f=PAPER.f, rate_ai=mbps(PAPER.ai_mbps), rate_hai=mbps(PAPER.hai_mbps),
                      rate_min=mbps(PAPER.rmin_mbps), rate_line=LINE, rate_init=LINE)
    p = cfg.alpha_period
    times = {t_a, t_b} | {t_init + k * p for k in range(1, 1000) if t_a <= t_init + k * p <= t_b}
    times |= {t + 1 for t in times}
    out = set()
    for ti in (t_init - 2, t_init + 8):       # the init event is accepted a few cycles late
        for t in times:
            m = DcqcnModel(cfg, exact=False)
            m.init(0, ti)
            m.cnp(0, t)
            out.add(int(m.qps[0].rc))
    return out


if cocotb is not None:

    async def _reset(dut) -> None:
        dut.rst.value = 1
        await ClockCycles(dut.clk, 8)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 64)  # RAM clears (NUM_QP cycles)

    @cocotb.test()
    async def dcqcn_join(dut):
        net = NetParams(n_senders=N, lossless=False, buf_bytes=2 << 20)
        cc = PAPER
        configure(dut, net, cc)
        await start_clock_reset(dut)
        await _reset(dut)
        t_join = 150.0
        tr = await run_schedule(dut, N, duration_us=1000, sample_us=5,
                                schedule=[(0, 0b01), (t_join, 0b11)])
        c0 = tr.cycle[0]
        k_join = tr.cycle.index(next(c for c in tr.cycle if c - c0 >= t_join * US))
        speed = (tr.cycle[-1] - c0) / tr.wall
        dut._log.info("peak q %d, CNPs %s, %.0f cycles/s", tr.peak_q, tr.cnp_rx[-1], speed)

        # flow 0 alone
        i0, i1 = window(tr, 50, t_join - 5)
        assert utilization(tr, i0, i1) >= 0.97, utilization(tr, i0, i1)
        assert tr.cnp_rx[k_join] == [0, 0]
        assert max(tr.q[:k_join]) < cc.kmin

        # first cut of each flow against the model
        starts = {0: tr.cycle[0], 1: tr.cycle[k_join]}
        for f in range(N):
            k = next(k for k in range(1, len(tr.rc)) if 0 < tr.rc[k][f] < LINE)
            assert tr.cnp_rx[k][f] >= 1 and tr.cnp_rx[k - 1][f] == 0
            assert tr.cnp_rx[k][f] == 1, "two CNPs within one sample: cannot check"
            # the CNP was applied between the two samples (RP/limiter latency < 100 cycles)
            cands = first_cut_candidates(starts[f], tr.cycle[k - 1] - 100, tr.cycle[k])
            dut._log.info("flow %d first cut %d, model %s", f, tr.rc[k][f], sorted(cands))
            assert tr.rc[k][f] in cands
        assert next(r[1] for r in tr.rc if 0 < r[1] < LINE) == LINE // 2

        # NP CNP interval
        for f in range(N):
            span = tr.cycle[-1] - starts[f]
            assert tr.cnp_rx[-1][f] <= 1 + span // int(cc.cnp_us * US)

        # limiter in the loop: wire rate = Rc over stretches of constant Rc
        checked = 0
        for f in range(N):
            k = k_join
            while k < len(tr.rc) - 1:
                j = k
                while j + 1 < len(tr.rc) and tr.rc[j + 1][f] == tr.rc[k][f]:
                    j += 1
                # Rc constant at samples k..j; skip one sample each side for latency
                a, b = k + 1, j
                if b - a >= 7 and tr.rc[k][f] < LINE:
                    dc = tr.cycle[b] - tr.cycle[a]
                    wire = (tr.snd_bytes[b][f] - tr.snd_bytes[a][f] +
                            OVH * (tr.snd_frames[b][f] - tr.snd_frames[a][f]))
                    want = tr.rc[k][f] / (1 << 12) * 1e6 / 8 / 250e6 * dc
                    tol = 2 * (HDR + net.payload + OVH) + 100 * LINE_BPC
                    assert abs(wire - want) <= tol, (f, k, j, wire, want)
                    checked += 1
                k = j + 1
        dut._log.info("limiter: %d constant-Rc intervals checked", checked)
        assert checked >= 2, checked

        # queue back below Kmax, no drop
        assert min(tr.q[-40:]) < cc.kmax and tr.q[-1] < cc.kmax
        assert tr.drops[-1] == 0

        dut.tx_en.value = 0
        await Timer(60, unit="us")
        sent = [int(dut.g_snd[i].cnt_tx_frames_s.value) for i in range(N)]
        got = [(int(dut.rcv_frames.value) >> (32 * i)) & 0xFFFFFFFF for i in range(N)]
        assert sent == got, (sent, got)
        marks = (int(dut.cnt_ecn_mark.value) >> (32 * N)) & 0xFFFFFFFF
        ce = _sum32(int(dut.rcv_ce.value), N)
        np_marked = int(dut.np_marked.value)
        np_cnp = int(dut.np_cnp.value)
        cnp_tx = int(dut.rcv_cnp_tx.value)
        cnp_rx = sum(int(dut.g_snd[i].cnt_cnp_rx.value) for i in range(N))
        rp_cnp = sum(int(dut.g_snd[i].cnt_rp_cnp.value) for i in range(N))
        dut._log.info("marks %d ce %d np_marked %d np_cnp %d cnp_tx %d cnp_rx %d rp_cnp %d",
                      marks, ce, np_marked, np_cnp, cnp_tx, cnp_rx, rp_cnp)
        assert marks == ce == np_marked > 0
        assert np_cnp == cnp_tx == cnp_rx == rp_cnp > 0
        assert np_cnp + int(dut.np_suppressed.value) == np_marked

    @cocotb.test()
    async def nocc_2to1(dut):
        net = NetParams(n_senders=N, lossless=False, buf_bytes=256 << 10, dcqcn=False)
        configure(dut, net, PAPER)
        await start_clock_reset(dut)
        await _reset(dut)
        tr = await run_schedule(dut, N, duration_us=200, sample_us=10,
                                schedule=[(0, (1 << N) - 1)])
        dut.tx_en.value = 0
        await Timer(60, unit="us")
        sent = sum(int(dut.g_snd[i].cnt_tx_frames_s.value) for i in range(N))
        got = _sum32(int(dut.rcv_frames.value), N)
        drops = _sum32(int(dut.cnt_drop_tail.value), N + 1)
        dut._log.info("sent %d got %d drops %d peak %d", sent, got, drops, tr.peak_q)
        assert drops > 0
        assert sent == got + drops
        assert net.buf_bytes - (HDR + net.payload) < tr.peak_q <= net.buf_bytes
        assert sum(int(dut.g_snd[i].cnt_rp_cnp.value) for i in range(N)) == 0
        assert sum(int(dut.g_snd[i].cur_rate.value) for i in range(N)) == 0


def test_incast() -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_incast", module="test_incast", test_dir=here,
               extra_sources=[here / "tb_incast.sv"],
               parameters={"N": N, "QUEUE_BYTES": 1 << 21})
