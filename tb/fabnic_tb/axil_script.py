# SPDX-License-Identifier: Apache-2.0
"""Recorded register scripts for bulk set-up (thousands of QPs) at simulator speed.

The fw/ driver runs unchanged against a :class:`ScriptBus`: writes are recorded,
reads of a command engine's status register become POLL entries (the driver sees
"idle"), any other read is an error (a script cannot depend on a value it has not
read yet). :func:`play` loads the entries into a ``fabnic_tb_axil_player`` through
the backdoor and runs them on the NIC's AXI-Lite port, checking every response.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

OP_WRITE = 1
OP_POLL = 2


class ScriptBus:
    """fabnic.bus.Bus that records instead of accessing. ``polls`` maps a status
    register address to (busy mask, fail mask). A write to an address in ``storage``
    (plain read/write registers, e.g. command operand words) is left out when the
    script already wrote the same value there: the register still holds it."""

    def __init__(self, polls: dict[int, tuple[int, int]], storage: frozenset[int] = frozenset()
                 ) -> None:
        self.polls = polls
        self.storage = storage
        self.held: dict[int, int] = {}
        self.entries: list[int] = []
        self.skipped = 0

    def write32(self, addr: int, value: int) -> None:
        value &= 0xFFFFFFFF
        if addr in self.storage:
            if self.held.get(addr) == value:
                self.skipped += 1
                return
            self.held[addr] = value
        self.entries.append(OP_WRITE << 62 | (addr & 0xFFFFFF) << 32 | (value & 0xFFFFFFFF))

    def read32(self, addr: int) -> int:
        if addr not in self.polls:
            raise RuntimeError(f"ScriptBus: read of {addr:#x} cannot be recorded (only the "
                               f"status registers {[hex(a) for a in self.polls]} can)")
        busy, fail = self.polls[addr]
        self.entries.append(OP_POLL << 62 | (addr & 0xFFFFFF) << 32 | fail << 16 | busy)
        return 0


@contextmanager
def recording(ctx: Any) -> Iterator[ScriptBus]:
    """Within the block, ``ctx`` (a fabnic.verbs.Context) records its register
    accesses; host-memory accesses still go to its memory."""
    addr, _ = ctx.dev._reg("roce", "cmd_status")
    words = frozenset(ctx.dev._reg("roce", f"data{i}")[0] for i in range(24))
    rec = ScriptBus({addr: (1, 2)}, words)
    saved = ctx.bus, ctx.dev.bus
    ctx.bus = ctx.dev.bus = rec
    try:
        yield rec
    finally:
        ctx.bus, ctx.dev.bus = saved


async def play(dut: Any, prefix: str, entries: list[int], depth: int) -> int:
    """Run ``entries`` on player ``<prefix>`` (tb ports <prefix>_play_start/count/busy/
    errors/err_index, memory dut.u_play_<prefix>.mem) in chunks of ``depth``; returns
    the cycles spent. Raises on any error response or failed poll."""
    from cocotb.triggers import RisingEdge

    player = getattr(dut, f"u_play_{prefix}")
    start = getattr(dut, f"{prefix}_play_start")
    count = getattr(dut, f"{prefix}_play_count")
    busy = getattr(dut, f"{prefix}_play_busy")
    errors = getattr(dut, f"{prefix}_play_errors")
    err_index = getattr(dut, f"{prefix}_play_err_index")
    cycles = 0
    for base in range(0, len(entries), depth):
        chunk = entries[base:base + depth]
        mem = player.mem
        for i, e in enumerate(chunk):
            mem[i].value = e
        count.value = len(chunk)
        start.value = 1
        await RisingEdge(dut.clk)
        start.value = 0
        await RisingEdge(dut.clk)
        while int(busy.value):
            for _ in range(64):
                await RisingEdge(dut.clk)
            cycles += 64
        if int(errors.value):
            k = base + int(err_index.value)
            e = entries[k]
            raise RuntimeError(f"register script {prefix}: {int(errors.value)} error(s), first "
                               f"at entry {k}: op {e >> 62} addr {(e >> 32) & 0xFFFFFF:#x} "
                               f"data {e & 0xFFFFFFFF:#x}")
    return cycles
