# SPDX-License-Identifier: Apache-2.0
"""fabnic_dma_rd / fabnic_dma_wr against cocotbext-axi's AxiRam and a bytearray model.

Both engines share one AXI4 port in tb_host_dma.sv. Host memory is an AxiRam with
random pauses on every channel; the expected memory image is a Python bytearray
updated from the descriptor definitions (not from the DUT). A monitor checks the
AXI rules on every cycle: no burst crosses 4 KB, arlen/awlen within MAX_BURST_LEN,
beat-aligned INCR bursts, outstanding bursts within MAX_OUTSTANDING, and each
burst lies inside its descriptor's [address, address+length) beat range.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiBus, AxiRam, AxiStreamFrame

    from fabnic_tb.axis import axis_sink, axis_source, random_pause
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

MEM_SIZE = 1 << 20
HIGH = 0x0000_7F00_0000_0000  # upper address bits, dropped by the RAM (addr % size)


@dataclass
class Desc:
    addr: int
    length: int
    tag: int
    frame_len: int = -1  # write: bytes actually streamed (-1: = length)
    data: bytes = field(default=b"", repr=False)


@dataclass
class Monitor:
    """Cycle-level AXI checks; collects bursts per channel."""

    dut: object
    beat: int
    max_burst: int
    max_os: int
    ar: list = field(default_factory=list)
    aw: list = field(default_factory=list)
    b_count: int = 0
    rd_os: int = 0
    wr_os: int = 0
    rd_os_max: int = 0
    wr_os_max: int = 0

    def check_burst(self, addr: int, alen: int, size: int, burst: int) -> None:
        nbytes = (alen + 1) * self.beat
        assert size == self.beat.bit_length() - 1, f"axsize {size}"
        assert burst == 1, "not INCR"
        assert addr % self.beat == 0, f"unaligned burst address {addr:#x}"
        assert alen + 1 <= self.max_burst, f"burst of {alen + 1} beats > {self.max_burst}"
        assert (addr & 0xFFF) + nbytes <= 0x1000, f"burst {addr:#x}+{nbytes} crosses 4 KB"

    async def run(self) -> None:
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            if int(d.m_axi_arvalid.value) and int(d.m_axi_arready.value):
                a, n = int(d.m_axi_araddr.value), int(d.m_axi_arlen.value)
                self.check_burst(a, n, int(d.m_axi_arsize.value), int(d.m_axi_arburst.value))
                self.ar.append((a, n + 1))
                self.rd_os += 1
            if int(d.m_axi_rvalid.value) and int(d.m_axi_rready.value) and int(d.m_axi_rlast.value):
                self.rd_os -= 1
            if int(d.m_axi_awvalid.value) and int(d.m_axi_awready.value):
                a, n = int(d.m_axi_awaddr.value), int(d.m_axi_awlen.value)
                self.check_burst(a, n, int(d.m_axi_awsize.value), int(d.m_axi_awburst.value))
                self.aw.append((a, n + 1))
                self.wr_os += 1
            if int(d.m_axi_bvalid.value) and int(d.m_axi_bready.value):
                self.wr_os -= 1
                self.b_count += 1
            if int(d.m_axis_rd_tvalid.value) and int(d.m_axis_rd_tready.value):
                k, full = int(d.m_axis_rd_tkeep.value), (1 << self.beat) - 1
                if int(d.m_axis_rd_tlast.value):
                    assert k != 0 and k & (k + 1) == 0, f"last tkeep {k:#x} not packed"
                else:
                    assert k == full, f"tkeep {k:#x} partial before tlast"
            self.rd_os_max = max(self.rd_os_max, self.rd_os)
            self.wr_os_max = max(self.wr_os_max, self.wr_os)
            assert self.rd_os <= self.max_os and self.wr_os <= self.max_os, "outstanding limit"


def expected_bursts(addr: int, length: int, beat: int, max_burst: int) -> list[tuple[int, int]]:
    """Independent model of the split: bursts inside min(max_burst*beat, 4096)-byte blocks."""
    block = min(max_burst * beat, 4096)
    out = []
    a, end = addr, addr + length
    while a < end:
        nxt = min((a // block + 1) * block, end)
        first = a // beat * beat
        out.append((first, (nxt - 1) // beat - first // beat + 1))
        a = nxt
    return out


def setup(dut, seed: int) -> tuple[AxiRam, Monitor]:
    ram = AxiRam(AxiBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=MEM_SIZE)
    for ch in (ram.write_if.aw_channel, ram.write_if.w_channel, ram.write_if.b_channel,
               ram.read_if.ar_channel, ram.read_if.r_channel):
        ch.set_pause_generator(random_pause(seed, 0.25))
        seed += 1
    for n in ("", ".m_axi"):
        logging.getLogger(f"cocotb.{dut._name}{n}").setLevel(logging.WARNING)
    for sub in (ram.write_if, ram.read_if):
        sub.log.setLevel(logging.WARNING)
    beat = len(dut.m_axi_rdata) // 8
    mon = Monitor(dut, beat, int(dut.MAX_BURST_LEN.value), int(dut.MAX_OUTSTANDING.value))
    cocotb.start_soon(mon.run())
    for s in ("rd", "wr"):
        getattr(dut, f"{s}_desc_valid").value = 0
        getattr(dut, f"{s}_cpl_ready").value = 0
    return ram, mon


async def drive_desc(dut, prefix: str, descs: list[Desc], rng: random.Random) -> None:
    for d in descs:
        for _ in range(rng.choice((0, 0, 0, 1, 3))):
            await RisingEdge(dut.clk)
        getattr(dut, f"{prefix}_desc_addr").value = d.addr
        getattr(dut, f"{prefix}_desc_len").value = d.length
        getattr(dut, f"{prefix}_desc_tag").value = d.tag
        getattr(dut, f"{prefix}_desc_valid").value = 1
        while True:
            await RisingEdge(dut.clk)
            if int(getattr(dut, f"{prefix}_desc_ready").value):
                break
        getattr(dut, f"{prefix}_desc_valid").value = 0


async def collect_cpl(dut, prefix: str, out: list, rng: random.Random, on_cpl=None) -> None:
    ready = getattr(dut, f"{prefix}_cpl_ready")
    while True:
        ready.value = int(rng.random() < 0.7)
        await RisingEdge(dut.clk)
        if int(ready.value) and int(getattr(dut, f"{prefix}_cpl_valid").value):
            c = (int(getattr(dut, f"{prefix}_cpl_tag").value),
                 int(getattr(dut, f"{prefix}_cpl_status").value))
            if on_cpl is not None:
                on_cpl(c)
            out.append(c)


def rand_descs(rng: random.Random, beat: int, n: int, max_len: int, gap: int = 64) -> list[Desc]:
    """Non-overlapping descriptors laid out in MEM_SIZE: every start offset mod beat,
    lengths 0..max_len with a few multi-page ones."""
    descs, a = [], 0x1000 + rng.randrange(4096)
    for i in range(n):
        r = rng.random()
        if r < 0.08:
            length = 0
        elif r < 0.2:
            length = rng.randint(1, beat)
        elif r < 0.3:
            length = rng.randint(8192, 12000)  # crosses 2-3 page boundaries
        else:
            length = rng.randint(1, max_len)
        addr = a + (i * 7 + rng.randrange(beat)) % beat  # every lane offset appears
        if rng.random() < 0.15:
            addr = (addr | 0xFFF) - rng.randrange(8)  # start just below a 4 KB boundary
        descs.append(Desc(addr, length, i & 0xFF))
        a = addr + length + rng.randrange(gap)
        assert a < MEM_SIZE - 16384
    return descs


if cocotb is not None:

    @cocotb.test(timeout_time=1500, timeout_unit="us")
    async def dma_read_random(dut):
        """Random read descriptors: each stream frame equals host memory at
        [addr, addr+len), tid = tag, tkeep packed, completions in order, status OK."""
        await start_clock_reset(dut)
        ram, mon = setup(dut, seed=10)
        beat = mon.beat
        rng = random.Random(1)
        image = bytes(rng.getrandbits(8) for _ in range(MEM_SIZE))
        ram.write(0, image)
        sink = axis_sink(dut, "m_axis_rd", seed=3)
        nd = 40 if beat == 8 else 36
        descs = rand_descs(rng, beat, nd, 3000)
        for d in descs[::3]:
            d.addr |= HIGH
        cpl: list = []
        cocotb.start_soon(collect_cpl(dut, "rd", cpl, random.Random(5)))
        cocotb.start_soon(drive_desc(dut, "rd", descs, random.Random(6)))
        for d in descs:
            if d.length == 0:
                continue
            f = await sink.recv()
            a = d.addr % MEM_SIZE
            assert bytes(f.tdata) == image[a:a + d.length], f"read data of desc {d.tag}"
            assert f.tid == d.tag or f.tid == [d.tag] * len(f.tid), "tid"
            tu = f.tuser if isinstance(f.tuser, int) else f.tuser[-1]
            assert tu == 0, "tuser error flag"
        for _ in range(2000):
            if len(cpl) == len(descs):
                break
            await RisingEdge(dut.clk)
        assert cpl == [(d.tag, 0) for d in descs], "read completions"
        # every burst issued matches the independent split model, in order
        exp = [b for d in descs for b in expected_bursts(d.addr, d.length, beat, mon.max_burst)]
        assert mon.ar == exp, "read burst split"
        assert sink.empty()
        dut._log.info("read: %d bursts, max outstanding %d", len(mon.ar), mon.rd_os_max)

    @cocotb.test(timeout_time=1500, timeout_unit="us")
    async def dma_read_error(dut):
        """A read burst that returns SLVERR flags tuser[0] on the last beat and
        status[0] in the completion of that descriptor only."""
        await start_clock_reset(dut)
        ram, mon = setup(dut, seed=20)
        beat = mon.beat
        rng = random.Random(2)
        ram.write(0, bytes(rng.getrandbits(8) for _ in range(1 << 16)))
        bad_lo, bad_hi = 0x5000, 0x5100
        orig = ram.read_if._read

        async def faulty(address: int, length: int) -> bytes:
            if bad_lo <= address < bad_hi:
                raise ValueError("injected fault")
            return await orig(address, length)

        ram.read_if._read = faulty
        sink = axis_sink(dut, "m_axis_rd", seed=4)
        descs = [Desc(0x4F00 + 3, 600, 1), Desc(0x2000 + 5, 300, 2), Desc(0x50C1, 10, 3),
                 Desc(0x6000, 0, 4), Desc(0x7001, 2 * beat + 1, 5)]
        cpl: list = []
        cocotb.start_soon(collect_cpl(dut, "rd", cpl, random.Random(7)))
        cocotb.start_soon(drive_desc(dut, "rd", descs, random.Random(8)))
        flags = []
        for d in descs:
            if d.length:
                f = await sink.recv()
                assert len(f.tdata) == d.length
                flags.append(f.tuser if isinstance(f.tuser, int) else f.tuser[-1])
        await ClockCycles(dut.clk, 50)
        exp_err = [int(d.addr < bad_hi and d.addr + d.length > bad_lo) for d in descs]
        assert cpl == [(d.tag, e) for d, e in zip(descs, exp_err, strict=True)]
        assert flags == [e for d, e in zip(descs, exp_err, strict=True) if d.length]

    @cocotb.test(timeout_time=1500, timeout_unit="us")
    async def dma_write_random(dut):
        """Random write descriptors into pattern-filled memory, some frames shorter or
        longer than the descriptor. Memory must equal the model everywhere (no byte
        outside [addr, addr+len) touched, missing bytes not written); completion only
        after every B of the descriptor (checked against AW/B counts and memory)."""
        await start_clock_reset(dut)
        ram, mon = setup(dut, seed=30)
        beat = mon.beat
        rng = random.Random(3)
        pattern = bytes((i * 37 + 11) & 0xFF for i in range(MEM_SIZE))
        ram.write(0, pattern)
        model = bytearray(pattern)
        src = axis_source(dut, "s_axis_wr", seed=9)
        nd = 40 if beat == 8 else 36
        descs = rand_descs(rng, beat, nd, 3000, gap=200)
        for d in descs:
            if rng.random() < 0.25:
                d.addr |= HIGH
            if d.length and rng.random() < 0.15:
                d.frame_len = max(1, d.length + rng.choice((-1, 1)) * rng.randint(1, 2 * beat + 3))
            else:
                d.frame_len = d.length
            d.data = bytes(rng.getrandbits(8) for _ in range(d.frame_len))
            n = min(d.length, d.frame_len)
            a = d.addr % MEM_SIZE
            model[a:a + n] = d.data[:n]
        by_tag = {d.tag: d for d in descs}
        burst_idx = {}
        pos = 0
        for d in descs:
            nb = len(expected_bursts(d.addr, d.length, beat, mon.max_burst))
            burst_idx[d.tag] = pos + nb
            pos += nb

        def on_cpl(c: tuple[int, int]) -> None:
            d = by_tag[c[0]]
            # all B responses for this and earlier descriptors have arrived
            assert mon.b_count >= burst_idx[d.tag], f"cpl {d.tag} before its B responses"
            a = d.addr % MEM_SIZE
            n = min(d.length, d.frame_len)
            assert ram.read(a, n) == d.data[:n], f"memory not written at cpl {d.tag}"

        cpl: list = []
        cocotb.start_soon(collect_cpl(dut, "wr", cpl, random.Random(10), on_cpl))
        cocotb.start_soon(drive_desc(dut, "wr", descs, random.Random(11)))
        for d in descs:
            if d.frame_len:
                await src.send(AxiStreamFrame(d.data))
        for _ in range(200000):
            if len(cpl) == len(descs):
                break
            await RisingEdge(dut.clk)
        exp_cpl = [(d.tag, 2 * int(d.frame_len != d.length)) for d in descs]
        if len(cpl) != len(descs):
            w = dut.u_wr
            for n in ("active_q", "outstanding_q", "aw_credit_q", "j_q", "ended_q", "drain_q",
                      "mism_q", "winfo_valid", "binfo_valid", "wst_valid", "s_axis_tvalid",
                      "s_axis_tready", "m_axi_awvalid", "m_axi_wvalid", "m_axi_bvalid",
                      "m_axi_bready", "m_cpl_valid"):
                dut._log.warning("%s = %s", n, getattr(w, n).value)
            dut._log.warning("winfo %s binfo %s", w.winfo.value, w.binfo.value)
        assert cpl == exp_cpl, f"write completions {cpl} != {exp_cpl}; descs {descs[len(cpl) - 1:len(cpl) + 2]}"
        got = ram.read(0, MEM_SIZE)
        if got != bytes(model):
            bad = next(i for i in range(MEM_SIZE) if got[i] != model[i])
            raise AssertionError(f"memory differs from model first at {bad:#x}")
        exp = [b for d in descs for b in expected_bursts(d.addr, d.length, beat, mon.max_burst)]
        assert mon.aw == exp, "write burst split"
        assert mon.b_count == len(exp)
        dut._log.info("write: %d bursts, max outstanding %d", len(mon.aw), mon.wr_os_max)


    @cocotb.test(timeout_time=1500, timeout_unit="us")
    async def dma_write_status_order(dut):
        """Multi-burst descriptors with alternating good/short/long frames while B
        responses are slow: each completion must carry its own descriptor's status
        and come after that descriptor's last B."""
        await start_clock_reset(dut)
        ram, mon = setup(dut, seed=50)
        ram.write_if.b_channel.set_pause_generator(random_pause(51, 0.8))
        beat = mon.beat
        block = min(mon.max_burst * beat, 4096)
        pattern = bytes((i * 13 + 5) & 0xFF for i in range(1 << 18))
        ram.write(0, pattern)
        model = bytearray(pattern)
        src = axis_source(dut, "s_axis_wr", seed=52)
        rng = random.Random(53)
        descs = []
        for i in range(16):
            addr = 0x1000 + i * 2 * block + block - 3 - i % beat  # two bursts each
            length = 3 + i % beat + rng.randint(1, beat)
            kind = i % 3  # 0 good, 1 short, 2 long
            flen = length if kind == 0 else (length - 1 - i % 2 if kind == 1 else length + 2)
            d = Desc(addr, length, i, flen, bytes(rng.getrandbits(8) for _ in range(flen)))
            n = min(length, flen)
            model[addr:addr + n] = d.data[:n]
            descs.append(d)
        nb = [len(expected_bursts(d.addr, d.length, beat, mon.max_burst)) for d in descs]
        by_tag = {d.tag: sum(nb[:d.tag + 1]) for d in descs}
        cpl: list = []

        def on_cpl(c: tuple[int, int]) -> None:
            assert mon.b_count >= by_tag[c[0]], f"cpl {c[0]} before its B responses"

        cocotb.start_soon(collect_cpl(dut, "wr", cpl, random.Random(54), on_cpl))
        cocotb.start_soon(drive_desc(dut, "wr", descs, random.Random(55)))
        for d in descs:
            await src.send(AxiStreamFrame(d.data))
        for _ in range(20000):
            if len(cpl) == len(descs):
                break
            await RisingEdge(dut.clk)
        assert cpl == [(d.tag, 2 * int(d.frame_len != d.length)) for d in descs]
        assert ram.read(0, 1 << 18) == bytes(model), "memory differs from model"
        assert all(n == 2 for n in nb)


CONFIGS = [
    dict(AXI_DATA_W=64, MAX_BURST_LEN=16, MAX_OUTSTANDING=4, DESC_DEPTH=4),
    dict(AXI_DATA_W=512, MAX_BURST_LEN=64, MAX_OUTSTANDING=8, DESC_DEPTH=8),
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: f"w{p['AXI_DATA_W']}")
def test_dma(params: dict) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_host_dma", module="test_dma", test_dir=here,
               parameters=params, extra_sources=[here / "tb_host_dma.sv"])
