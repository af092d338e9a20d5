# SPDX-License-Identifier: Apache-2.0
"""fabnic.bus.HostMemory over a SystemVerilog host-memory model (tb/host/tb_host_axi_mem.sv):
the fw/ driver reads and writes its rings through the model's array (backdoor), so long
transfers run at Verilator speed. Used by the RoCE benchmarks and the NIC-top tests."""

from __future__ import annotations

from cocotb.task import resume


class SvHostMemory:
    """fabnic.bus.HostMemory on tb_host_axi_mem's array (backdoor, 64-byte words).
    Accesses run in the simulator context (resume) since the driver runs in a thread."""

    def __init__(self, handle, size: int, base: int = 0x10000) -> None:
        self.h = handle
        self.size = size
        self.next = base
        # values written in the current time step: the simulator applies deposits later,
        # so a read-modify-write of the same word in one step must see them here
        self._pend: dict[int, int] = {}
        self._pend_t = -1

    def _word(self, w: int) -> int:
        from cocotb.utils import get_sim_time
        t = get_sim_time("step")
        if t != self._pend_t:
            self._pend.clear()
            self._pend_t = t
        return self._pend[w] if w in self._pend else int(self.h.mem[w].value)

    def alloc(self, size: int, align: int = 64) -> int:
        a = (self.next + align - 1) // align * align
        if a + size > self.size:
            raise MemoryError("bench host memory exhausted")
        self.next = a + max(size, 1)
        return a

    async def _read(self, addr: int, length: int) -> bytes:
        out = bytearray()
        w0, w1 = addr // 64, (addr + length + 63) // 64
        for w in range(w0, w1):
            out += self._word(w).to_bytes(64, "little")
        o = addr - w0 * 64
        return bytes(out[o:o + length])

    async def _write(self, addr: int, data: bytes) -> None:
        w0, w1 = addr // 64, (addr + len(data) + 63) // 64
        buf = bytearray()
        for w in range(w0, w1):
            buf += self._word(w).to_bytes(64, "little")
        o = addr - w0 * 64
        buf[o:o + len(data)] = data
        for i, w in enumerate(range(w0, w1)):
            v = int.from_bytes(buf[64 * i:64 * i + 64], "little")
            self.h.mem[w].value = v
            self._pend[w] = v

    def read(self, addr: int, length: int) -> bytes:
        return resume(self._read)(addr, length)

    def write(self, addr: int, data: bytes) -> None:
        if data:
            resume(self._write)(addr, bytes(data))
