# SPDX-License-Identifier: Apache-2.0
"""Clock and reset for the 250 MHz reference domain."""

from __future__ import annotations

from cocotb.clock import Clock
from cocotb.triggers import RisingEdge

CLK_NS = 4  # 250 MHz reference clock
CLK_HZ = 250e6


async def start_clock_reset(dut, cycles: int = 8, clk=None, rst=None, period_ns: float = CLK_NS):
    clk = dut.clk if clk is None else clk
    rst = dut.rst if rst is None else rst
    Clock(clk, period_ns, unit="ns", impl="gpi").start()
    rst.value = 1
    for _ in range(cycles):
        await RisingEdge(clk)
    rst.value = 0
    await RisingEdge(clk)
