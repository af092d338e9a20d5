# SPDX-License-Identifier: Apache-2.0
"""cocotb adapter for the fw/ driver: the driver's blocking register accesses
become AXI-Lite transactions in the simulation.

Driver code runs in a bridge thread (``await run_driver(fn, ...)``); each
``read32``/``write32`` blocks that thread until the AXI-Lite transaction has
completed in simulated time, so the driver is the same code a board runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from cocotb.task import bridge, resume
from cocotbext.axi import AxiLiteBus, AxiLiteMaster
from cocotbext.axi.constants import AxiResp

from fabnic.bus import BusError


class SimAxiLiteBus:
    """fabnic.bus.Bus over cocotbext-axi's AxiLiteMaster."""

    def __init__(self, dut, prefix: str = "s_axil", clock=None, reset=None) -> None:
        self.master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, prefix),
                                    clock if clock is not None else dut.clk,
                                    reset if reset is not None else dut.rst)
        for ch in (self.master.write_if, self.master.read_if):
            ch.log.setLevel(logging.WARNING)
        self.reads = 0
        self.writes = 0

    async def _read(self, addr: int) -> int:
        r = await self.master.read(addr, 4)
        if r.resp != AxiResp.OKAY:
            raise BusError(f"read {addr:#x}: {r.resp.name}")
        return int.from_bytes(r.data, "little")

    async def _write(self, addr: int, value: int) -> None:
        r = await self.master.write(addr, (value & 0xFFFFFFFF).to_bytes(4, "little"))
        if r.resp != AxiResp.OKAY:
            raise BusError(f"write {addr:#x}: {r.resp.name}")

    def read32(self, addr: int) -> int:
        self.reads += 1
        return resume(self._read)(addr)

    def write32(self, addr: int, value: int) -> None:
        self.writes += 1
        resume(self._write)(addr, value)


async def run_driver(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run blocking driver code ``fn(*args)`` against the simulation; returns its result."""
    return await bridge(fn)(*args, **kwargs)
