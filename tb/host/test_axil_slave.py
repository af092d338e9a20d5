# SPDX-License-Identifier: Apache-2.0
"""fabnic_axil_slave driven by cocotbext-axi's AxiLiteMaster (random pauses on every
channel, several concurrent masters so AW/W/AR overlap and go back to back).

Behind the request bus sits a Python register target with random ack latency: a
register window 0x000-0x0FF, a RAM window 0x1000-0x1FFF, unmapped elsewhere
(ack_err), and one address that never acks (must time out with SLVERR). The
expected read data comes from what each master itself wrote, not from the target.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import RisingEdge
    from cocotbext.axi import AxiLiteBus, AxiLiteMaster

    from fabnic_tb.axis import random_pause
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

NO_ACK = 0x3000


def mapped(addr: int) -> bool:
    return addr < 0x100 or 0x1000 <= addr < 0x2000


class Target:
    """Register bus target: one request at a time, ack after 1..6 cycles."""

    def __init__(self, dut, seed: int) -> None:
        self.dut = dut
        self.rng = random.Random(seed)
        self.mem: dict[int, int] = {}
        self.reqs = 0
        self.timeouts = 0
        dut.ack_valid.value = 0
        dut.ack_rdata.value = 0
        dut.ack_err.value = 0
        cocotb.start_soon(self.run())

    async def run(self) -> None:
        d = self.dut
        pending: list[tuple[int, int, int]] = []  # (cycles left, rdata, err)
        busy = False
        while True:
            await RisingEdge(d.clk)
            d.ack_valid.value = 0
            self.timeouts += int(d.status_timeout.value)
            if int(d.req_valid.value):
                assert not busy, "second request before ack"
                self.reqs += 1
                addr = int(d.req_addr.value)
                word = addr & ~3
                if addr == NO_ACK:
                    continue
                err = int(not mapped(addr))
                rdata = 0
                if not err and int(d.req_write.value):
                    old = self.mem.get(word, 0)
                    strb, wd = int(d.req_wstrb.value), int(d.req_wdata.value)
                    for b in range(4):
                        if strb >> b & 1:
                            old = (old & ~(0xFF << 8 * b)) | (wd & (0xFF << 8 * b))
                    self.mem[word] = old
                elif not err:
                    rdata = self.mem.get(word, 0)
                busy = True
                pending.append((self.rng.randint(0, 5), rdata, err))
            if pending:
                left, rdata, err = pending[0]
                if left == 0:
                    d.ack_valid.value = 1
                    d.ack_rdata.value = rdata
                    d.ack_err.value = err
                    pending.pop(0)
                    busy = False
                else:
                    pending[0] = (left - 1, rdata, err)


if cocotb is not None:

    @cocotb.test(timeout_time=300, timeout_unit="us")
    async def axil_random(dut):
        """Concurrent masters on disjoint word sets: byte-strobed writes then reads
        back; unmapped addresses answer SLVERR; OKAY everywhere else."""
        await start_clock_reset(dut)
        master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        master.write_if.log.setLevel(logging.WARNING)
        master.read_if.log.setLevel(logging.WARNING)
        seed = 40
        for ch in (master.write_if.aw_channel, master.write_if.w_channel,
                   master.write_if.b_channel, master.read_if.ar_channel,
                   master.read_if.r_channel):
            ch.set_pause_generator(random_pause(seed, 0.3))
            seed += 1
        target = Target(dut, 7)
        n_ops = 0

        async def worker(wid: int) -> None:
            nonlocal n_ops
            rng = random.Random(100 + wid)
            words = [a for a in range(0, 0x2000, 4) if a % 16 == wid * 4]
            words += [0x2000 + 64 * wid, 0x8000 + 4 * wid]  # unmapped
            shadow: dict[int, int] = {}
            for _ in range(60):
                a = rng.choice(words)
                if rng.random() < 0.5:
                    data = rng.getrandbits(32)
                    strb = rng.choice((0xF, 0xF, 0x1, 0x6, 0x8, 0xC))
                    off = (strb & -strb).bit_length() - 1
                    # AxiLiteMaster derives WSTRB from the address/length of the bytes
                    nbytes = bin(strb).count("1")
                    payload = data.to_bytes(4, "little")[off:off + nbytes]
                    resp = await master.write(a + off, payload)
                    if mapped(a):
                        old = shadow.get(a, 0).to_bytes(4, "little")
                        new = old[:off] + payload + old[off + nbytes:]
                        shadow[a] = int.from_bytes(new, "little")
                        assert int(resp.resp) == 0, f"write {a:#x} resp {resp.resp}"
                    else:
                        assert int(resp.resp) == 2, f"unmapped write {a:#x} not SLVERR"
                else:
                    resp = await master.read(a, 4)
                    if mapped(a):
                        assert int(resp.resp) == 0
                        got = int.from_bytes(resp.data, "little")
                        assert got == shadow.get(a, 0), f"read {a:#x}: {got:#x}"
                    else:
                        assert int(resp.resp) == 2, f"unmapped read {a:#x} not SLVERR"
                n_ops += 1

        tasks = [cocotb.start_soon(worker(w)) for w in range(4)]
        for t in tasks:
            await t
        assert target.reqs == n_ops == 240
        assert target.timeouts == 0

    @cocotb.test(timeout_time=300, timeout_unit="us")
    async def axil_timeout(dut):
        """A request nobody acks ends in SLVERR after TIMEOUT cycles; the next
        transaction works normally."""
        await start_clock_reset(dut)
        master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        target = Target(dut, 8)
        resp = await master.read(NO_ACK, 4)
        assert int(resp.resp) == 2 and bytes(resp.data) == bytes(4)
        resp = await master.write(NO_ACK, b"\x01\x02\x03\x04")
        assert int(resp.resp) == 2
        await master.write(0x10, b"\xaa\xbb\xcc\xdd")
        resp = await master.read(0x10, 4)
        assert int(resp.resp) == 0 and bytes(resp.data) == b"\xaa\xbb\xcc\xdd"
        assert target.timeouts == 2


CONFIGS = [dict(ADDR_W=16, TIMEOUT=32)]


@pytest.mark.parametrize("params", CONFIGS, ids=["a16"])
def test_axil_slave(params: dict) -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_axil_slave", module="test_axil_slave",
               test_dir=Path(__file__).parent, parameters=params)
