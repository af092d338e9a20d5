# SPDX-License-Identifier: Apache-2.0
"""cocotb helpers shared by the network model tests: reset and tap read-out."""

from __future__ import annotations

from dataclasses import dataclass

from cocotb.triggers import RisingEdge


async def reset(dut, cycles: int = 4) -> None:
    dut.rst.value = 1
    for _ in range(cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)


@dataclass
class Captured:
    first: int
    last: int
    length: int
    bad: bool
    crc: int
    head: bytes


def read_tap(tap, count: int | None = None) -> list[Captured]:
    """Read the frames a fabnic_tb_net_tap recorded (memories read once through VPI)."""
    n = int(tap.frames.value) if count is None else count
    depth = int(tap.DEPTH.value)
    cap_bytes = int(tap.CAP_BYTES.value)
    n = min(n, depth)
    out = []
    for i in range(n):
        length = int(tap.cap_len[i].value)
        head = int(tap.cap_data[i].value).to_bytes(cap_bytes, "little")[: min(length, cap_bytes)]
        out.append(Captured(int(tap.cap_first[i].value), int(tap.cap_last[i].value), length,
                            bool(int(tap.cap_bad[i].value)), int(tap.cap_crc[i].value), head))
    return out
