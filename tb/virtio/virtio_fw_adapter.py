# SPDX-License-Identifier: Apache-2.0
"""HostMemory (fw/fabnic/bus.py protocol) over the cocotbext-axi RAM image of tb_virtio.

Guest memory accesses of the fw driver are plain Python calls on the shared RAM
image (no simulated time passes, like a CPU's cache-coherent memory next to the
device's DMA); register accesses go through fabnic_tb.fw_bus.SimAxiLiteBus.
"""

from __future__ import annotations


class RamHostMemory:
    """Bump allocator over [base, end) of a cocotbext-axi memory object."""

    def __init__(self, ram: object, base: int, end: int) -> None:
        self.ram = ram
        self.next = base
        self.end = end

    def alloc(self, size: int, align: int = 64) -> int:
        a = (self.next + align - 1) // align * align
        if a + size > self.end:
            raise MemoryError("guest memory exhausted")
        self.next = a + size
        return a

    def read(self, addr: int, length: int) -> bytes:
        return bytes(self.ram.read(addr, length))  # type: ignore[attr-defined]

    def write(self, addr: int, data: bytes) -> None:
        self.ram.write(addr, data)  # type: ignore[attr-defined]
