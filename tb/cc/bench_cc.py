# SPDX-License-Identifier: Apache-2.0
"""Congestion-control benchmarks (make bench): RP engine event throughput and sweep
latency at NUM_QP = 1024, rate-limiter window accuracy at the spec's rates."""

from __future__ import annotations

from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge

    from fabnic_tb.bench import cycles_to_us, record
except ImportError:
    cocotb = None


if cocotb is not None:
    from dcqcn_model import DcqcnConfig
    from test_dcqcn_rp import Rp
    from test_rate_limiter import WINDOW, Limiter, window_rates

    @cocotb.test()
    async def bench_rp(dut):
        if not hasattr(dut, "cnt_catchup"):
            return
        nqp = 1 << len(dut.init_qpn)
        cfg = DcqcnConfig(alpha_period=0, timer_period=4 * nqp + 333, byte_counter=0, f=5)
        rp = Rp(dut, cfg)
        await rp.start()
        await rp.init(7)
        await rp.cnp(7)
        t0 = rp.fixed.qps[7].t_rate
        await rp.wait_until(t0 + 12 * cfg.timer_period + 2 * nqp)
        lats = [t - (t0 + (i + 1) * cfg.timer_period)
                for i, t in enumerate(rp.update_times[2:])]
        record("cc.rp.sweep_latency_idle", cycles_to_us(max(lats)), "us", cycles_to_us(nqp + 20),
               {"NUM_QP": nqp}, higher_is_better=False,
               note="timer event due -> rate update, idle engine (bound: one revisit + pipeline)")
        # event throughput: a burst of tx events on distinct QPs, FIFO kept full
        n = 4000
        c0 = int(dut.status_time.value)
        for i in range(n):
            await rp.tx(100 + i % 512, 64)
        while int(dut.rd_ready.value) == 0 or int(dut.u_evt_fifo.status_count.value):
            await RisingEdge(dut.clk)
        cycles = int(dut.status_time.value) - c0
        record("cc.rp.event_rate", n / cycles * 250, "Mevents/s", 100.0, {"NUM_QP": nqp},
               note="tx/cnp events per second with the sweep taking its half of the slots")
        await ClockCycles(dut.clk, 10)

    @cocotb.test()
    async def bench_rp_alpha_1us(dut):
        """Every QP enabled and decaying alpha with the production 1 us alpha period
        (250 cycles, g = 1/256), event FIFO kept full of tx events on distinct QPs: the
        sweep gets half the slots (revisit 2 x NUM_QP cycles = 8.2 periods at 1024 QPs)
        and each op applies all due decays (up to ALPHA_STEPS). Replays per event show
        whether the engine keeps up."""
        if not hasattr(dut, "cnt_catchup"):
            return
        nqp = 1 << len(dut.init_qpn)
        cfg = DcqcnConfig(g_shift=8, alpha_period=250, timer_period=225_000,
                          byte_counter=10_000_000, f=1)
        rp = Rp(dut, cfg)
        await rp.start()
        for q in range(nqp):
            await rp.init(q)
        await ClockCycles(dut.clk, 4 * nqp)
        n = 20_000
        c0 = int(dut.status_time.value)
        r0 = int(dut.cnt_catchup.value)
        for i in range(n):
            await rp.tx((i * 7) % nqp, 1024)
        while int(dut.rd_ready.value) == 0 or int(dut.u_evt_fifo.status_count.value):
            await RisingEdge(dut.clk)
        cycles = int(dut.status_time.value) - c0
        replays = int(dut.cnt_catchup.value) - r0
        conf = {"NUM_QP": nqp, "alpha_period_cycles": 250, "qps_decaying": nqp}
        record("cc.rp.alpha1us_event_rate", n / cycles * 250, "Mevents/s", 100.0, conf,
               note="tx events/s, every QP decaying alpha every 250 cycles")
        record("cc.rp.alpha1us_replays_per_event", replays / n, "replays/event", 0.0, conf,
               higher_is_better=False, note="catch-up replays (0: the sweep keeps up)")
        for q in (0, 1, nqp // 2, nqp - 1):   # idle-then-visited QPs still exact
            await rp.read(q)

    @cocotb.test()
    async def bench_limiter(dut):
        if not hasattr(dut, "cnt_grant"):
            return
        lim = Limiter(dut)
        await lim.start()
        for i, (mbps, cycles) in enumerate([(100_000, 200_000), (40_000, 200_000),
                                            (10_000, 200_000), (1_000, 300_000),
                                            (100, 2_000_000)]):
            await lim.set_rate(i, mbps)
            await ClockCycles(dut.clk, 40)
            grants = await lim.run({i: mbps}, cycles, seed=100 + i)
            worst = max(abs(r / mbps - 1) for r in window_rates(grants[i], WINDOW))
            record(f"cc.limiter.window_error.{mbps}Mbps", worst * 100, "%", 1.0,
                   {"rate_mbps": mbps, "window_us": 100}, higher_is_better=False,
                   note="worst 100 us window, mixed 64-4096 B packets")


def test_bench_rp() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_dcqcn_rp", module="bench_cc", test_dir=Path(__file__).parent,
               parameters={"NUM_QP": 1024}, testcase=["bench_rp", "bench_rp_alpha_1us"])


def test_bench_limiter() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_rate_limiter", module="bench_cc", test_dir=Path(__file__).parent,
               parameters={"NUM_QP": 64}, testcase="bench_limiter")
