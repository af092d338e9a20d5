# SPDX-License-Identifier: Apache-2.0
"""Host-memory fault injection for cocotbext-axi RAM models (tb_virtio's AXI ports).

AxiFaults wraps the read side (AxiRamRead or AxiRam.read_if) and the write side
(AxiRamWrite or AxiRam.write_if) of any number of ports over one memory image:

- poison_read(addr, n, resp, times): every read beat whose bytes overlap
  [addr, addr + n) answers ``resp`` (SLVERR 2 or DECERR 3) with zero data;
- poison_write(addr, n, resp, times): a write burst with a beat overlapping the range
  answers BRESP ``resp``; the overlapping bytes are not written (the rest of the
  burst is, as a real slave might).

``times`` = -1: forever, else that many faulty beats / bursts. ``hits`` counts the
faulty responses served per kind. The RAM models only know SLVERR (an exception in
their _read/_write); the response code is replaced on the R / B channel send.
"""

from __future__ import annotations

SLVERR = 2
DECERR = 3


class _Spot:
    def __init__(self, lo: int, hi: int, resp: int, times: int) -> None:
        self.lo, self.hi, self.resp, self.times = lo, hi, resp, times


class AxiFaults:
    def __init__(self) -> None:
        self.rd: list[_Spot] = []
        self.wr: list[_Spot] = []
        self.hits = {"read": 0, "write": 0}

    def poison_read(self, addr: int, n: int = 1, resp: int = SLVERR, times: int = -1) -> None:
        self.rd.append(_Spot(addr, addr + n, resp, times))

    def poison_write(self, addr: int, n: int = 1, resp: int = SLVERR, times: int = -1) -> None:
        self.wr.append(_Spot(addr, addr + n, resp, times))

    def clear(self) -> None:
        self.rd.clear()
        self.wr.clear()

    @staticmethod
    def _match(spots: list[_Spot], address: int, length: int) -> _Spot | None:
        for s in spots:
            if s.times != 0 and address < s.hi and s.lo < address + length:
                return s
        return None

    def attach_read(self, rd_if) -> None:
        orig_read = rd_if._read
        orig_send = rd_if.r_channel.send
        pending: list[int] = []

        async def _read(address: int, length: int) -> bytes:
            s = self._match(self.rd, address, length)
            if s is not None:
                if s.times > 0:
                    s.times -= 1
                self.hits["read"] += 1
                pending.append(s.resp)
                raise OSError(f"injected read error at {address:#x}")
            return await orig_read(address, length)

        async def send(r) -> None:
            if pending and int(r.rresp) == SLVERR:
                r.rresp = pending.pop(0)
            await orig_send(r)

        rd_if._read = _read
        rd_if.r_channel.send = send

    def attach_write(self, wr_if) -> None:
        orig_write = wr_if._write
        orig_send = wr_if.b_channel.send
        burst: list[int] = []   # response of the burst being written (one B per burst)

        async def _write(address: int, data: bytes) -> None:
            s = self._match(self.wr, address, len(data))
            if s is not None:
                # bytes outside the poisoned range are still written
                lo, hi = max(address, s.lo), min(address + len(data), s.hi)
                if lo > address:
                    await orig_write(address, data[:lo - address])
                if hi < address + len(data):
                    await orig_write(hi, data[hi - address:])
                if not burst:
                    burst.append(s.resp)
                    self.hits["write"] += 1
                    if s.times > 0:
                        s.times -= 1
                raise OSError(f"injected write error at {address:#x}")
            await orig_write(address, data)

        async def send(b) -> None:
            if burst:
                b.bresp = burst.pop()
            await orig_send(b)

        wr_if._write = _write
        wr_if.b_channel.send = send
