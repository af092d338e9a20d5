# SPDX-License-Identifier: Apache-2.0
"""8:1 incast with real NICs (make bench BENCH=incast_roce): tb_roce_incast, 8 sender
NICs and 1 receiver NIC (fabnic_roce_core + FEC port shims + SystemVerilog host memory
each) on 100 G links (link delay INCAST_DELAY cycles, default 100) around the switch model;
the receiver's switch egress is the bottleneck.

Every sender has one RC QP (MTU 4096, engine selective repeat on both ends,
docs/roce_sr.md) to its own QP on the receiver. A round: every sender posts one RDMA
WRITE of INCAST_SIZE bytes (default 128 KiB) into its own region of the receiver's
buffer, back to back (random order, a few cycles apart); a message's completion time is
the cycle its CQE was seen (CQs polled every 32 cycles) minus the cycle before its
doorbell. INCAST_ROUNDS rounds (default 4) with INCAST_GAP idle cycles (default 4000)
between them; a fresh random payload per round, and the receiver's buffer is checked
byte for byte after every round (host-memory backdoor), every completion must succeed.

Modes (INCAST_MODES, default "lossless,esr,esr+fec16.1.1,esr+fec8.2.2"):
- lossless: deep switch buffer (16 MiB shared), FEC off; no tail drop (asserted);
- esr: shallow shared buffer (INCAST_BUF bytes, default 600000) with tail drop, PFC off,
  FEC off: losses are repaired by the engine's SACKs / probe / timeout;
- esr+fecK.R.D: the same buffer, FEC(K,R,D) in every port shim with the receive shims
  in rx_bypass, no shim NAKs, sr_reorder = min(63, (K+R)D + 4) on every NIC (as
  bench_loss's esr+fec modes);
- a "+dcqcn" suffix (INCAST_DCQCN=1 adds esr+dcqcn and esr+fec16.1.1+dcqcn): QPs with
  DCQCN (cc registers at their 100 G defaults) and switch RED/ECN marking (kmin 5 KB,
  kmax 200 KB, pmax 1 %);
- a "+capN" suffix (last): roce.sr_max_inflight = N on every NIC for the mode (the
  senders keep at most N packets in flight, a BDP cap; 64, the window, otherwise).
INCAST_FEC_FLUSH (default 512): fec.flush_cycles in the FEC modes.
Reported per mode: p50 / p99 / max completion time, p99 relative to lossless (issue
target for the FEC modes: <= 1.5), switch tail drops, retransmitted packets (senders'
roce_cnt.tx_retx_pkts), timeouts, probes, FEC repairs sent / frames repaired at the
receiver, peak bottleneck queue. Table in the log, records for `make bench`, completion
time CDF in build/bench/incast_roce_cdf.png."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

HERE = Path(__file__).parent
N = 8
SIZE = int(os.environ.get("INCAST_SIZE", str(128 * 1024)))
ROUNDS = int(os.environ.get("INCAST_ROUNDS", "4"))
GAP = int(os.environ.get("INCAST_GAP", "4000"))
BUF = int(os.environ.get("INCAST_BUF", "600000"))
DELAY = int(os.environ.get("INCAST_DELAY", "100"))
TIMEOUT = int(os.environ.get("INCAST_TIMEOUT", "5"))    # 4.096 us * 2^5 = 131 us
PROBE = os.environ.get("INCAST_SR_PROBE", "")          # roce.sr_probe ticks (default: reset 4)
# roce.ack_cadence on every NIC: a sender whose packets wait in a deep queue hears an ACK
# every ACK_CADENCE of its packets; with the reset value (16) that gap exceeds the probe
# time in the lossless run and probes fire spuriously
ACK_CADENCE = int(os.environ.get("INCAST_ACK_CADENCE", "2"))
# fec.flush_cycles of the FEC modes: a block still open after this many idle cycles is
# closed (its repair frames sent); with a small in-flight cap the senders pause for ACKs
# and a short flush time turns every pause into a partial block
FEC_FLUSH = int(os.environ.get("INCAST_FEC_FLUSH", "512"))
_modes = os.environ.get("INCAST_MODES", "lossless,esr,esr+fec16.1.1,esr+fec8.2.2").split(",")
if os.environ.get("INCAST_DCQCN", "0") == "1":
    _modes += [m for m in ("esr+dcqcn", "esr+fec16.1.1+dcqcn") if m not in _modes]
MODES = _modes
FEC_TARGET = 1.5   # issue: p99 with FEC at most 1.5x the lossless p99
_MODE_RE = re.compile(r"^(lossless|esr)(?:\+fec(\d+)\.(\d+)\.(\d+))?(\+dcqcn)?(?:\+cap(\d+))?$")


def parse_mode(m: str) -> tuple[bool, tuple[int, int, int] | None, bool, int]:
    """(lossless, FEC (K, R, D) or None, DCQCN, packets in flight at most)."""
    g = _MODE_RE.match(m)
    if not g or (g[6] and not 1 <= int(g[6]) <= 64):
        raise ValueError(f"INCAST_MODES: unknown mode {m!r} (lossless, esr, esr+fecK.R.D, "
                         f"optional +dcqcn, then optional +capN with N in 1..64)")
    krd = (int(g[2]), int(g[3]), int(g[4])) if g[2] else None
    return g[1] == "lossless", krd, bool(g[5]), int(g[6] or 64)


for _m in MODES:
    parse_mode(_m)

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from incast_env import DEEP_BUF, IncastEnv, SwitchCfg, pct

    from fabnic_tb.bench import cycles_to_us, record
    from fabnic_tb.fw_bus import run_driver
except ImportError:  # collected by pytest outside the simulator
    cocotb = None


if cocotb is not None:

    async def evidence(env: IncastEnv) -> str:
        """Counters and QP state of every sender and the receiver, for a failed round."""
        out = []
        for i, f in enumerate(env.flows):
            q = await run_driver(env.ctx[i].query_qp, f.qs)
            c = await run_driver(env.ctx[i].counters)
            nz = {k: v for k, v in c.items() if v}
            out.append(f"sender {i} qpn {f.qs.qpn}: {q}; counters {nz}")
        c = await run_driver(env.rx.counters)
        out.append(f"receiver counters {({k: v for k, v in c.items() if v})}")
        try:
            out.append(f"receiver fec {await run_driver(env.rx.fec_counters)}")
        except Exception as e:  # noqa: BLE001 - evidence only
            out.append(f"receiver fec: {e}")
        return "\n".join(out)

    @cocotb.test(timeout_time=3_000_000, timeout_unit="ms")
    async def bench_incast_roce(dut):
        import random
        env = IncastEnv(dut, link_delay=DELAY)
        await env.start()
        await env.connect(SIZE, timeout=TIMEOUT)
        if PROBE:
            for ctx in env.ctx:
                await run_driver(ctx.dev.write, "roce", "sr_probe", int(PROBE))
        for ctx in env.ctx:
            await run_driver(ctx.dev.write, "roce", "ack_cadence", ACK_CADENCE)
        t = time.time()
        await ClockCycles(dut.clk, GAP)
        dut._log.info("simulation speed, idle NICs: %.0f cycles/s", GAP / (time.time() - t))
        qp_dcqcn = False
        rnd = random.Random(int(os.environ.get("SEED", "1")))
        rows: list[dict] = []
        lat_by_mode: dict[str, list[int]] = {}
        base_p99 = None
        # the lossless reference first
        order = sorted(MODES, key=lambda m: 0 if m == "lossless" else 1)
        wall0 = time.time()
        for mode in order:
            lossless, krd, dcqcn, cap = parse_mode(mode)
            t_mode = time.time()
            for ctx in env.ctx:
                await run_driver(ctx.dev.write, "roce", "sr_max_inflight", cap)
            await ClockCycles(dut.clk, GAP)
            if dcqcn != qp_dcqcn:
                await env.connect(SIZE, timeout=TIMEOUT, dcqcn=dcqcn)
                qp_dcqcn = dcqcn
            await env.set_fec(krd, flush=FEC_FLUSH)
            env.switch(SwitchCfg(buf_size=DEEP_BUF if lossless else BUF, ecn_en=dcqcn,
                                 kmin=5000, kmax=200_000, pmax=0.01))
            dut.peak_clr.value = 1
            await ClockCycles(dut.clk, 1)
            dut.peak_clr.value = 0
            c0 = await env.counts()
            lat: list[int] = []
            failed = ""
            bad_rounds = []
            for r in range(ROUNDS):
                await env.fill(rnd, SIZE)
                l0 = env.lost_frames()
                k0 = await env.sender_counters()
                t_round, c_round = time.time(), env.cycle()
                try:
                    res = await env.round(SIZE, rnd, max_cycles=4_000_000)
                except AssertionError as e:
                    failed = f"round {r}: {e}"
                    dut._log.error("%s FAILED %s\n%s", mode, failed, await evidence(env))
                    break
                lat += [c for c, _ in res]
                k1 = await env.sender_counters()
                dut._log.info("%s round %d (%.0f cycles/s): completion cycles %s, frames lost %s, "
                              "(sr_retx, probes, SACKs) %s", mode, r,
                              (env.cycle() - c_round) / (time.time() - t_round),
                              [c for c, _ in res],
                              [b - a for a, b in zip(l0, env.lost_frames(), strict=True)],
                              [tuple(y - x for x, y in zip(a, b, strict=True))
                               for a, b in zip(k0, k1, strict=True)])
                bad = await env.check(SIZE)
                if bad:
                    bad_rounds.append((r, bad))
                    dut._log.error("%s round %d: receiver memory differs for senders %s",
                                   mode, r, bad)
                await ClockCycles(dut.clk, GAP)
            c1 = await env.counts()
            row = {"mode": mode, "rounds": len(lat) // N, "failed": failed,
                   "bad_rounds": bad_rounds,
                   "drops": c1.drops - c0.drops, "ecn": c1.ecn - c0.ecn,
                   "retx": c1.retx - c0.retx, "timeouts": c1.timeouts - c0.timeouts,
                   "probes": c1.probes - c0.probes, "sr_retx": c1.sr_retx - c0.sr_retx,
                   "sack_rx": c1.sack_rx - c0.sack_rx, "lost_per_sender": c1.lost(c0),
                   "repairs": c1.tx_repairs - c0.tx_repairs,
                   "repaired": c1.repaired - c0.repaired,
                   "unrepairable": c1.unrepairable - c0.unrepairable,
                   "rx_icrc": c1.rx_icrc - c0.rx_icrc, "rx_sr_drop": c1.rx_sr_drop - c0.rx_sr_drop,
                   "peak_q": int(dut.rx_peak_q.value), "wall_s": round(time.time() - t_mode)}
            if lat:
                row |= {"p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "max": max(lat)}
                lat_by_mode[mode] = lat
                if lossless and not dcqcn and base_p99 is None and not failed:
                    base_p99 = row["p99"]
            rows.append(row)
            dut._log.info("%s: %s", mode, row)
            cfg = {"mode": mode, "senders": N, "size": SIZE, "rounds": row["rounds"],
                   "buf_bytes": DEEP_BUF if lossless else BUF, "link_delay": DELAY,
                   "mtu": 4096, "engine_sr": True, "fec": krd, "dcqcn": dcqcn, "max_inflight": cap,
                   "fec_flush": FEC_FLUSH,
                   "qp_timeout": TIMEOUT, "sr_probe": int(PROBE or 4),
                   "ack_cadence": ACK_CADENCE, "drops": row["drops"], "retx": row["retx"],
                   "timeouts": row["timeouts"], "probes": row["probes"],
                   "repaired": row["repaired"], "peak_q": row["peak_q"]}
            if failed:
                record(f"incast_roce.{mode}.failed", 1, "", None, cfg | {"error": failed})
                continue
            ratio = row["p99"] / base_p99 if base_p99 else None
            row["ratio"] = ratio
            record(f"incast_roce.{mode}.p50", round(cycles_to_us(row["p50"]), 2), "us", None,
                   cfg, higher_is_better=False)
            record(f"incast_roce.{mode}.p99", round(cycles_to_us(row["p99"]), 2), "us", None,
                   cfg, higher_is_better=False)
            record(f"incast_roce.{mode}.max", round(cycles_to_us(row["max"]), 2), "us", None,
                   cfg, higher_is_better=False)
            if ratio is not None and not lossless:
                record(f"incast_roce.{mode}.p99_vs_lossless", round(ratio, 3), "x",
                       FEC_TARGET if krd else None, cfg, higher_is_better=False)
            record(f"incast_roce.{mode}.tail_drops", row["drops"], "frames", None, cfg,
                   higher_is_better=False)
            record(f"incast_roce.{mode}.retx_pkts", row["retx"], "pkts", None, cfg,
                   higher_is_better=False)
            if krd:
                record(f"incast_roce.{mode}.fec_repaired", row["repaired"], "frames", None, cfg)

        lines = [f"8:1 incast, {N} x {SIZE} B WRITE per round, MTU 4096, 100 G, link delay "
                 f"{DELAY} cycles, shallow buffer {BUF} B (lossless: {DEEP_BUF} B)",
                 f"{'mode':<22} {'rounds':>6} {'p50_us':>8} {'p99_us':>8} {'max_us':>8} "
                 f"{'p99/ll':>7} {'drops':>6} {'retx':>6} {'tmo':>4} {'probe':>5} "
                 f"{'repairs':>7} {'repaired':>8} {'peak_q':>8}"]
        for w in rows:
            if "p50" not in w:
                lines.append(f"{w['mode']:<22} FAILED {w['failed'][:100]}")
                continue
            ratio = f"{w['ratio']:.2f}" if w.get("ratio") else "-"
            lines.append(f"{w['mode']:<22} {w['rounds']:>6} {cycles_to_us(w['p50']):8.2f} "
                         f"{cycles_to_us(w['p99']):8.2f} {cycles_to_us(w['max']):8.2f} "
                         f"{ratio:>7} {w['drops']:>6} {w['retx']:>6} {w['timeouts']:>4} "
                         f"{w['probes']:>5} {w['repairs']:>7} {w['repaired']:>8} "
                         f"{w['peak_q']:>8}" + (f"  FAILED {w['failed'][:60]}" if w["failed"]
                                                else ""))
        dut._log.info("incast benchmark (%d s wall):\n%s", time.time() - wall0,
                      "\n".join(lines))
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for m, lat in lat_by_mode.items():
                xs = sorted(cycles_to_us(c) for c in lat)
                ys = [(i + 1) / len(xs) for i in range(len(xs))]
                ax.step(xs, ys, where="post", label=f"{m} (n={len(xs)})")
            ax.set_xlabel("WRITE completion time (us)")
            ax.set_ylabel("CDF")
            ax.set_title(f"{N}:1 incast, {SIZE // 1024} KiB WRITE per sender, "
                         f"shallow buffer {BUF // 1000} KB")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
            out = Path(os.environ.get("FABNIC_BENCH_DIR", HERE.parents[1] / "build" / "bench"))
            out.mkdir(parents=True, exist_ok=True)
            fig.tight_layout()
            fig.savefig(out / "incast_roce_cdf.png", dpi=100)
        except ImportError:
            pass
        for w in rows:
            assert not w["failed"], f"{w['mode']}: {w['failed']}"
            assert not w["bad_rounds"], f"{w['mode']}: receiver memory wrong {w['bad_rounds']}"
            if parse_mode(w["mode"])[0]:
                assert w["drops"] == 0, f"{w['mode']}: {w['drops']} tail drops"


def test_bench_incast_roce():
    from fabnic_tb.runner import run
    qbytes = 1 << 21
    while qbytes < 2 * N * SIZE:
        qbytes <<= 1
    mem_aw = 22
    while (1 << mem_aw) < N * SIZE + (1 << 20):
        mem_aw += 1
    run(toplevel="tb_roce_incast", module="bench_incast_roce", test_dir=HERE,
        extra_sources=[HERE.parent / "host" / "tb_host_axi_mem.sv", HERE / "tb_roce_incast.sv"],
        parameters={"N": N, "NUM_QP": 16, "NUM_CQ": 4, "NUM_MR": 8, "MEM_AW": mem_aw,
                    "FEC": 1, "NGROUP": int(os.environ.get("INCAST_NGROUP", "32")),
                    "NSRC": int(os.environ.get("INCAST_NSRC", "8")), "QUEUE_BYTES": qbytes},
        testcase="bench_incast_roce", tag=os.environ.get("INCAST_TAG") or None)
