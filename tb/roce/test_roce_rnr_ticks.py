# SPDX-License-Identifier: Apache-2.0
"""The completer's RNR NAK timer table (fabnic_roce_cpl_pkg::rnr_ticks) for all 32
codes against the IBTA table (rc_model.RNR_TIMER_US): at the reference tick (timer_tick
1024 cycles = 4.096 us at 250 MHz) the wait it gives is never shorter than the code's
time, counted from any point inside the tick in which the wait starts (ticks - 1 whole
ticks), and at most one tick plus the rounding longer (rc_model.rnr_wait_window)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent

try:
    import cocotb
    from cocotb.triggers import Timer
    from rc_model import REF_TICK_CYCLES, rnr_wait_window
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

if cocotb is not None:

    @cocotb.test()
    async def all_codes(dut):
        """Every code: (ticks - 1) * 1024 >= the IBTA time in cycles at 250 MHz, and
        ticks * 1024 <= the time rounded up to whole ticks plus one tick."""
        got = {}
        for code in range(32):
            dut.code.value = code
            await Timer(1, unit="ns")
            ticks = int(dut.ticks.value)
            least, most = rnr_wait_window(code)
            got[code] = ticks
            assert (ticks - 1) * REF_TICK_CYCLES >= least, (code, ticks, least)
            assert ticks * REF_TICK_CYCLES <= most, (code, ticks, most)
        dut._log.info("RNR ticks by code: %s", got)


def test_roce_rnr_ticks() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="tb_roce_rnr_ticks", module="test_roce_rnr_ticks", test_dir=HERE,
               extra_sources=[HERE / "tb_roce_rnr_ticks.sv"])
