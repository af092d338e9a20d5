# SPDX-License-Identifier: Apache-2.0
"""The two things the driver needs from its surroundings.

A :class:`Bus` reaches the NIC's AXI-Lite register space (32-bit words). A
:class:`HostMemory` hands out DMA-able host memory and reads/writes it. The
simulation supplies both through cocotb (tb/fabnic_tb/fw_bus.py, which bridges
these blocking calls into the simulator); a board supplies a PCIe BAR mapped
with mmap (:class:`MmapBus`) and pinned memory. The driver itself is plain,
blocking Python and never imports cocotb.
"""

from __future__ import annotations

import mmap
import os
import struct
from typing import Protocol


class Bus(Protocol):
    def read32(self, addr: int) -> int: ...

    def write32(self, addr: int, value: int) -> None: ...


class HostMemory(Protocol):
    def alloc(self, size: int, align: int = 64) -> int:
        """Return the bus address of ``size`` fresh bytes."""
        ...

    def read(self, addr: int, length: int) -> bytes: ...

    def write(self, addr: int, data: bytes) -> None: ...


class BusError(RuntimeError):
    """A register access the NIC answered with an error response."""


class MmapBus:
    """Register access through a memory-mapped PCIe BAR (a board).

    ``path`` is e.g. /sys/bus/pci/devices/0000:01:00.0/resource0. Accesses are
    32-bit and aligned, as the AXI-Lite slave behind the bridge expects.
    """

    def __init__(self, path: str, size: int) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_SYNC)
        self._map = mmap.mmap(self._fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)

    def read32(self, addr: int) -> int:
        if addr & 3:
            raise ValueError(f"unaligned register address {addr:#x}")
        return struct.unpack_from("<I", self._map, addr)[0]

    def write32(self, addr: int, value: int) -> None:
        if addr & 3:
            raise ValueError(f"unaligned register address {addr:#x}")
        struct.pack_into("<I", self._map, addr, value & 0xFFFFFFFF)

    def close(self) -> None:
        self._map.close()
        os.close(self._fd)
