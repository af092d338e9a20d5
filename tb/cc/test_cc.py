# SPDX-License-Identifier: Apache-2.0
"""fabnic_cc, the congestion-control room as the transport sees it (tb_cc.sv: its struct
ports as flat signals), with DCQCN inside.

- ``peak_rates``: the transport's peak event rates (frames back to back at 100 G on
  random QPs, minimum-size frames every two cycles, a CE-marked request every three
  cycles, a CNP every 150 cycles, pacing requests) for 20,000 cycles. Nothing may be lost (cc.ev_dropped stays 0); every CNP is
  processed by the reaction point and cuts the rate once (the paper's rule at alpha = 1
  with no increase configured: one cut per CNP), every CE mark reaches the
  notification point.
- ``overload``: a CNP in every cycle, then a CE mark of one QP in every cycle (the
  notification point takes one QP every other cycle): some events are lost, and each
  exactly once in cc.ev_dropped: events sent = events the algorithm counted + dropped.
- ``qp_commands``: QP init sets Rc to the initial rate (read back through the room's
  state read), a disabled QP's CNP leaves its rate alone.
"""

from __future__ import annotations

import random
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

NUM_QP = 64
LINE = 100_000 << 12     # 100 Gb/s in Mb/s x 2^12


if cocotb is not None:

    async def start(dut) -> None:
        cfg = {"rp_on": 1, "np_on": 1, "g_shift": 8, "alpha_period": 0, "timer_period": 0,
               "byte_counter": 0, "f": 5, "rate_ai": 5 << 12, "rate_hai": 50 << 12,
               "rate_min": 10 << 12, "rate_line": LINE, "rate_init": LINE, "clamp_tgt": 1,
               "cnp_interval": 0, "limiter_slack": 100}
        for k, v in cfg.items():
            getattr(dut, f"cfg_{k}").value = v
        for s in ("s_qp_valid", "s_qp_read", "s_qp_qpn", "s_qp_enable", "s_tx_valid",
                  "s_tx_qpn", "s_tx_bytes", "s_cnp_valid", "s_cnp_qpn", "s_ce_valid",
                  "s_ce_qpn", "s_pace_valid", "s_pace_qpn", "s_pace_bytes"):
            getattr(dut, s).value = 0
        dut.m_cnp_ready.value = 1
        await start_clock_reset(dut)
        for _ in range(NUM_QP + 100):
            await RisingEdge(dut.clk)
            if not int(dut.status_busy.value):
                break
        assert not int(dut.status_busy.value)

    async def qp_cmd(dut, qpn: int, read: bool = False, enable: bool = True) -> int | None:
        await FallingEdge(dut.clk)
        dut.s_qp_valid.value = 1
        dut.s_qp_read.value = int(read)
        dut.s_qp_qpn.value = qpn
        dut.s_qp_enable.value = int(enable)
        while True:
            await RisingEdge(dut.clk)
            if int(dut.s_qp_ready.value):
                break
        await FallingEdge(dut.clk)
        dut.s_qp_valid.value = 0
        if not read:
            return None
        for _ in range(100):
            await RisingEdge(dut.clk)
            if int(dut.m_qp_state_valid.value):
                return int(dut.m_qp_state_w0.value)
        raise AssertionError("no answer to a QP read")

    def counters(dut) -> dict[str, int]:
        return {k: int(getattr(dut, f"cnt_{k}").value)
                for k in ("cnp_rx", "rate_decrease", "rate_increase", "ecn_marked_rx",
                          "cnp_tx", "ev_dropped")}

    @cocotb.test()
    async def peak_rates(dut):
        await start(dut)
        for q in range(NUM_QP):
            await qp_cmd(dut, q)
        rng = random.Random(7)
        c0 = counters(dut)
        n_cnp = n_ce = n_tx = 0
        pace_pending = False
        next_tx = 0
        for cyc in range(20_000):
            await FallingEdge(dut.clk)
            # frames back to back at 100 G (50 bytes a cycle, two cycles at least), sizes
            # from minimum frames to MTU 4096
            tx = cyc >= next_tx
            size = rng.choice([84, 100, 150, rng.randrange(84, 4200)])
            if tx:
                next_tx = cyc + max(2, -(-size // 50))
            dut.s_tx_valid.value = int(tx)
            dut.s_tx_qpn.value = rng.randrange(NUM_QP)
            dut.s_tx_bytes.value = size
            n_tx += tx
            ce = cyc % 3 == 0
            dut.s_ce_valid.value = int(ce)
            dut.s_ce_qpn.value = rng.randrange(NUM_QP)
            n_ce += ce
            cnp = cyc % 150 == 7
            dut.s_cnp_valid.value = int(cnp)
            dut.s_cnp_qpn.value = rng.randrange(NUM_QP)
            n_cnp += cnp
            if not pace_pending:
                dut.s_pace_valid.value = 1
                dut.s_pace_qpn.value = rng.randrange(NUM_QP)
                dut.s_pace_bytes.value = 4162
            await RisingEdge(dut.clk)
            if int(dut.s_pace_valid.value) and int(dut.s_pace_ready.value):
                pace_pending = True
                dut.s_pace_valid.value = 0
            if int(dut.m_pace_valid.value):
                pace_pending = False
        await FallingEdge(dut.clk)
        for s in ("s_tx_valid", "s_ce_valid", "s_cnp_valid", "s_pace_valid"):
            getattr(dut, s).value = 0
        await ClockCycles(dut.clk, 200)
        c = {k: v - c0[k] for k, v in counters(dut).items()}
        dut._log.info("%d frames, %d CE marks, %d CNPs sent: %s", n_tx, n_ce, n_cnp, c)
        assert c["ev_dropped"] == 0, c
        assert c["cnp_rx"] == n_cnp and c["rate_decrease"] == n_cnp, c
        assert c["ecn_marked_rx"] == n_ce, c
        assert c["rate_increase"] == 0, c   # no timer, no byte counter configured

    @cocotb.test()
    async def overload(dut):
        await start(dut)
        for q in range(NUM_QP):
            await qp_cmd(dut, q)
        c0 = counters(dut)
        n = 300
        for i in range(n):            # a CNP in every cycle, cycling over the QPs
            await FallingEdge(dut.clk)
            dut.s_cnp_valid.value = 1
            dut.s_cnp_qpn.value = i % NUM_QP
        await FallingEdge(dut.clk)
        dut.s_cnp_valid.value = 0
        await ClockCycles(dut.clk, 800)
        c1 = counters(dut)
        got, lost = c1["cnp_rx"] - c0["cnp_rx"], c1["ev_dropped"] - c0["ev_dropped"]
        dut._log.info("CNP flood: %d sent, %d processed, %d counted lost", n, got, lost)
        assert lost > 0 and got + lost == n, (got, lost)
        for _ in range(n):            # CE marks of one QP in every cycle
            await FallingEdge(dut.clk)
            dut.s_ce_valid.value = 1
            dut.s_ce_qpn.value = 5
        await FallingEdge(dut.clk)
        dut.s_ce_valid.value = 0
        await ClockCycles(dut.clk, 200)
        c2 = counters(dut)
        got = c2["ecn_marked_rx"] - c1["ecn_marked_rx"]
        lost = c2["ev_dropped"] - c1["ev_dropped"]
        dut._log.info("CE flood: %d sent, %d seen by the NP, %d counted lost", n, got, lost)
        assert lost > 0 and got + lost == n, (got, lost)

    @cocotb.test()
    async def qp_commands(dut):
        await start(dut)
        await qp_cmd(dut, 3)
        await qp_cmd(dut, 4, enable=False)
        assert await qp_cmd(dut, 3, read=True) == LINE
        for q in (3, 4):
            await FallingEdge(dut.clk)
            dut.s_cnp_valid.value = 1
            dut.s_cnp_qpn.value = q
            await FallingEdge(dut.clk)
            dut.s_cnp_valid.value = 0
            await ClockCycles(dut.clk, 40)
        # alpha = 1 at init: the first cut halves the rate (DCQCN: Rc <- Rc (1 - alpha/2))
        assert await qp_cmd(dut, 3, read=True) == LINE // 2
        assert await qp_cmd(dut, 4, read=True) == LINE
        c = counters(dut)
        assert c["rate_decrease"] == 1 and c["cnp_rx"] == 2, c


def test_cc() -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_cc", module="test_cc", test_dir=here,
               extra_sources=[here / "tb_cc.sv"], parameters={"NUM_QP": NUM_QP})
