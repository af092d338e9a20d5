# SPDX-License-Identifier: Apache-2.0
"""fabnic_u250_bar_bridge: the host's BAR0 window (AXI4 slave) onto the NIC's AXI-Lite.

cocotbext-axi channel models drive the AXI4 side (AW/W/AR sources, B/R sinks) and stand
in for the NIC's AXI-Lite slave (AW/W/AR sinks, B/R sources; the stub answers with
random data and random OKAY/SLVERR/DECERR). Random accesses cover every class the
module header names: 32-bit single beats of 1, 2 or 4 bytes (any strobes inside the
addressed lane, garbage in the other lanes), board-register reads, writes to the board
registers, the hole above them and addresses far above the window, bursts, 64-bit and
wider beats, and writes with strobes outside the addressed lane.

The expectation is a Python model of the header and docs/synthesis.md: which host
accesses reach the NIC, at which word address, with which 32-bit data and strobes (in
order, writes and reads separately); each B/R response carries the host ID, the NIC's
response (or OKAY for a board register, or SLVERR), the read word replicated in every
32-bit lane, and AxLEN+1 beats with RLAST on the last for a refused read burst.
Phases: one access at a time; reads and writes concurrently and back to back with no
back-pressure; then random valid gaps and ready back-pressure on all ten channels.
Every output channel of the bridge is checked to hold VALID and its payload until the
handshake.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fabnic_tb.runner import run

try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
    from cocotbext.axi.axi_channels import (
        AxiARBus,
        AxiARSource,
        AxiARTransaction,
        AxiAWBus,
        AxiAWSource,
        AxiAWTransaction,
        AxiBBus,
        AxiBSink,
        AxiRBus,
        AxiRSink,
        AxiWBus,
        AxiWSource,
        AxiWTransaction,
    )
    from cocotbext.axi.axil_channels import (
        AxiLiteARBus,
        AxiLiteARSink,
        AxiLiteAWBus,
        AxiLiteAWSink,
        AxiLiteBBus,
        AxiLiteBSource,
        AxiLiteBTransaction,
        AxiLiteRBus,
        AxiLiteRSource,
        AxiLiteRTransaction,
        AxiLiteWBus,
        AxiLiteWSink,
    )

    from fabnic_tb.axis import random_pause
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

HERE = Path(__file__).parent

OKAY, SLVERR, DECERR = 0, 2, 3


class BarModel:
    """The bridge's documented behaviour (module header, docs/synthesis.md)."""

    def __init__(self, data_w: int, addr_w: int, nic_addr_w: int, brd_regs: int):
        self.data_w, self.addr_w, self.n, self.brd_regs = data_w, addr_w, nic_addr_w, brd_regs
        self.lanes = data_w // 32
        self.strb_w = data_w // 8

    def lane(self, addr: int) -> int:
        return (addr >> 2) % self.lanes

    def single(self, length: int, size: int) -> bool:
        return length == 0 and size <= 2

    def in_nic(self, addr: int) -> bool:
        return addr < 1 << self.n

    def brd_index(self, addr: int) -> int | None:
        off = addr - (1 << self.n)
        return off >> 2 if 0 <= off < 4 * self.brd_regs else None

    def write(self, addr: int, length: int, size: int, beats: list[tuple[int, int]]):
        """('nic', word address, data, strb) or ('err',)."""
        if not (self.single(length, size) and self.in_nic(addr)):
            return ("err",)
        data, strb = beats[0]
        ln = self.lane(addr)
        lane_strb = strb >> (4 * ln) & 0xF
        if strb != lane_strb << (4 * ln):
            return ("err",)
        return ("nic", addr & ~3, data >> (32 * ln) & 0xFFFFFFFF, lane_strb)

    def read(self, addr: int, length: int, size: int):
        """('nic', word address) / ('brd', index) / ('err', beats)."""
        if self.single(length, size) and self.in_nic(addr):
            return ("nic", addr & ~3)
        if self.single(length, size) and self.brd_index(addr) is not None:
            return ("brd", self.brd_index(addr))
        return ("err", length + 1)

    def replicate(self, word: int) -> int:
        return sum(word << (32 * i) for i in range(self.lanes))


class Access:
    def __init__(self, label, axid, addr, length, size, beats=None):
        self.label, self.id, self.addr, self.len, self.size = label, axid, addr, length, size
        self.beats = beats  # writes: [(wdata, wstrb)], one per beat

    def __repr__(self):
        return f"{self.label}(id={self.id} addr={self.addr:#x} len={self.len} size={self.size})"


def make_access(rng: random.Random, m: BarModel, write: bool, id_w: int) -> Access:
    n, lanes = m.n, m.lanes
    region = rng.choices(["nic", "nic_edge", "brd", "hole", "high", "top"],
                         [60, 6, 12, 6, 6, 3])[0]
    if region == "nic":
        addr = rng.randrange(1 << n)
    elif region == "nic_edge":
        addr = (1 << n) - 1 - rng.randrange(16)
    elif region == "brd":
        addr = (1 << n) + rng.randrange(4 * m.brd_regs)
    elif region == "hole":
        addr = (1 << n) + 4 * m.brd_regs + rng.randrange((1 << n) - 4 * m.brd_regs)
    elif region == "high":
        addr = rng.randrange(2 << n, 1 << m.addr_w)
    else:
        addr = (1 << m.addr_w) - 4 + rng.randrange(4)
    shape = rng.choices(["single", "burst", "wide", "bad_strb"],
                        [75, 10, 6, 9 if lanes > 1 and write else 0])[0]
    axid = rng.randrange(1 << id_w)
    max_size = (m.strb_w - 1).bit_length()
    if shape == "single" or shape == "bad_strb":
        size = rng.randrange(3)
        length = 0
        addr &= ~((1 << size) - 1) if rng.random() < 0.8 else ~0
    elif shape == "burst":
        size = rng.randrange(max_size + 1)
        length = rng.choice([1, 2, 3, 7, rng.randrange(1, 20)])
        addr &= ~((1 << size) - 1)
    else:
        size = rng.randrange(3, 8) if max_size < 3 or rng.random() < 0.2 else \
            rng.randrange(3, max_size + 1)
        length = 0
        addr &= ~((1 << size) - 1)
    addr &= (1 << m.addr_w) - 1
    if not write:
        return Access(f"rd_{region}_{shape}", axid, addr, length, size)
    beats = []
    ln = m.lane(addr)
    for _ in range(length + 1):
        data = rng.getrandbits(m.data_w)
        if shape == "single":
            lo = addr % 4
            hi = (addr | ((1 << size) - 1)) % 4
            mask = sum(1 << i for i in range(lo, hi + 1))
            if rng.random() < 0.3:
                mask &= rng.getrandbits(4)  # any strobes inside the lane are allowed
            strb = mask << (4 * ln)
        elif shape == "bad_strb":
            other = rng.choice([x for x in range(lanes) if x != ln])
            strb = (rng.randrange(1, 16) << (4 * other))
            if rng.random() < 0.5:
                strb |= rng.randrange(1, 16) << (4 * ln)
        else:
            strb = rng.getrandbits(m.strb_w)
        beats.append((data, strb))
    return Access(f"wr_{region}_{shape}", axid, addr, length, size, beats)


class StableChecker:
    """An output channel of the DUT keeps VALID and its payload until READY."""

    def __init__(self, dut, valid: str, ready: str, payload: list[str]):
        self.dut, self.valid, self.ready, self.payload = dut, valid, ready, payload
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        held = None
        while True:
            await RisingEdge(dut.clk)
            if int(dut.rst.value):
                held = None
                continue
            v = int(getattr(dut, self.valid).value)
            r = int(getattr(dut, self.ready).value)
            p = [int(getattr(dut, s).value) for s in self.payload]
            if held is not None:
                assert v, f"{self.valid} dropped before {self.ready}"
                assert p == held, f"{self.payload} changed while {self.valid} waited"
            held = p if v and not r else None


if cocotb is not None:

    @cocotb.test()
    async def host_accesses(dut):
        data_w = len(dut.s_axi_wdata)
        addr_w = len(dut.s_axi_awaddr)
        n = len(dut.m_axil_awaddr)
        brd_regs = len(dut.brd_flat) // 32
        id_w = len(dut.s_axi_awid)
        m = BarModel(data_w, addr_w, n, brd_regs)
        rng = random.Random(20 + data_w)
        Clock(dut.clk, 4, unit="ns").start()

        brd_vals = [rng.getrandbits(32) for _ in range(brd_regs)]
        dut.brd_flat.value = sum(v << (32 * i) for i, v in enumerate(brd_vals))
        dut.rst.value = 1

        aw_src = AxiAWSource(AxiAWBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        w_src = AxiWSource(AxiWBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        b_sink = AxiBSink(AxiBBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        ar_src = AxiARSource(AxiARBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        r_sink = AxiRSink(AxiRBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
        l_aw = AxiLiteAWSink(AxiLiteAWBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst)
        l_w = AxiLiteWSink(AxiLiteWBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst)
        l_b = AxiLiteBSource(AxiLiteBBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst)
        l_ar = AxiLiteARSink(AxiLiteARBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst)
        l_r = AxiLiteRSource(AxiLiteRBus.from_prefix(dut, "m_axil"), dut.clk, dut.rst)
        chans = [aw_src, w_src, b_sink, ar_src, r_sink, l_aw, l_w, l_b, l_ar, l_r]
        for c in chans:
            c.log.setLevel("WARNING")

        StableChecker(dut, "m_axil_awvalid", "m_axil_awready", ["m_axil_awaddr"])
        StableChecker(dut, "m_axil_wvalid", "m_axil_wready", ["m_axil_wdata", "m_axil_wstrb"])
        StableChecker(dut, "m_axil_arvalid", "m_axil_arready", ["m_axil_araddr"])
        StableChecker(dut, "s_axi_bvalid", "s_axi_bready", ["s_axi_bid", "s_axi_bresp"])
        StableChecker(dut, "s_axi_rvalid", "s_axi_rready",
                      ["s_axi_rid", "s_axi_rdata", "s_axi_rresp", "s_axi_rlast"])

        # the NIC's AXI-Lite slave: records every access, answers at random
        nic_writes: list[tuple[int, int, int]] = []
        nic_wresp: list[int] = []
        nic_reads: list[int] = []
        nic_rdata: list[tuple[int, int]] = []
        stub_rng = random.Random(7)

        def pick_resp() -> int:
            return stub_rng.choices([OKAY, SLVERR, DECERR], [80, 12, 8])[0]

        async def nic_write_stub():
            while True:
                aw = await l_aw.recv()
                w = await l_w.recv()
                nic_writes.append((int(aw.awaddr), int(w.wdata), int(w.wstrb)))
                resp = pick_resp()
                nic_wresp.append(resp)
                await l_b.send(AxiLiteBTransaction(bresp=resp))

        async def nic_read_stub():
            while True:
                ar = await l_ar.recv()
                nic_reads.append(int(ar.araddr))
                word, resp = stub_rng.getrandbits(32), pick_resp()
                nic_rdata.append((word, resp))
                await l_r.send(AxiLiteRTransaction(rdata=word, rresp=resp))

        await ClockCycles(dut.clk, 5)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 2)
        cocotb.start_soon(nic_write_stub())
        cocotb.start_soon(nic_read_stub())

        exp_nic_writes: list[tuple[int, int, int]] = []
        exp_nic_reads: list[int] = []
        counts = {"writes": 0, "reads": 0, "nic_w": 0, "nic_r": 0, "brd_r": 0, "err_w": 0,
                  "err_r": 0}

        async def do_writes(accs: list[Access]):
            async def push_aw():
                for a in accs:
                    await aw_src.send(AxiAWTransaction(awid=a.id, awaddr=a.addr, awlen=a.len,
                                                       awsize=a.size, awburst=1))

            async def push_w():
                for a in accs:
                    for i, (d, s) in enumerate(a.beats):
                        await w_src.send(AxiWTransaction(wdata=d, wstrb=s,
                                                         wlast=int(i == a.len)))
            cocotb.start_soon(push_aw())
            cocotb.start_soon(push_w())
            for a in accs:
                exp = m.write(a.addr, a.len, a.size, a.beats)
                b = await b_sink.recv()
                assert int(b.bid) == a.id, (a, int(b.bid))
                if exp[0] == "nic":
                    k = len(exp_nic_writes)
                    exp_nic_writes.append(exp[1:])
                    assert len(nic_writes) > k, f"{a}: answered without reaching the NIC"
                    assert nic_writes[k] == exp[1:], \
                        (a, [hex(x) for x in nic_writes[k]], [hex(x) for x in exp[1:]])
                    assert int(b.bresp) == nic_wresp[k], (a, int(b.bresp), nic_wresp[k])
                    counts["nic_w"] += 1
                else:
                    assert int(b.bresp) == SLVERR, (a, int(b.bresp))
                    assert len(nic_writes) == len(exp_nic_writes), f"{a} reached the NIC"
                    counts["err_w"] += 1
                counts["writes"] += 1

        async def do_reads(accs: list[Access]):
            async def push_ar():
                for a in accs:
                    await ar_src.send(AxiARTransaction(arid=a.id, araddr=a.addr, arlen=a.len,
                                                       arsize=a.size, arburst=1))
            cocotb.start_soon(push_ar())
            for a in accs:
                exp = m.read(a.addr, a.len, a.size)
                beats = [await r_sink.recv()]
                while not int(beats[-1].rlast):
                    beats.append(await r_sink.recv())
                    assert len(beats) <= 256, a
                assert all(int(r.rid) == a.id for r in beats), a
                if exp[0] == "nic":
                    k = len(exp_nic_reads)
                    exp_nic_reads.append(exp[1])
                    assert len(nic_reads) > k and nic_reads[k] == exp[1], \
                        (a, hex(exp[1]), [hex(x) for x in nic_reads[k:k + 1]])
                    word, resp = nic_rdata[k]
                    assert len(beats) == 1, a
                    assert int(beats[0].rresp) == resp, (a, int(beats[0].rresp), resp)
                    assert int(beats[0].rdata) == m.replicate(word), (a, hex(word))
                    counts["nic_r"] += 1
                elif exp[0] == "brd":
                    assert len(beats) == 1, a
                    assert int(beats[0].rresp) == OKAY, a
                    assert int(beats[0].rdata) == m.replicate(brd_vals[exp[1]]), a
                    counts["brd_r"] += 1
                else:
                    assert len(beats) == exp[1], (a, len(beats))
                    assert all(int(r.rresp) == SLVERR for r in beats), a
                    assert len(nic_reads) == len(exp_nic_reads), f"{a} reached the NIC"
                    counts["err_r"] += 1
                counts["reads"] += 1

        def set_pauses(busy: float | None, seed: int):
            for i, c in enumerate(chans):
                if busy is None:
                    c.clear_pause_generator()
                else:
                    c.set_pause_generator(random_pause(seed * 16 + i, busy))

        async def phase(nw: int, nr: int, seq: bool):
            wr = [make_access(rng, m, True, id_w) for _ in range(nw)]
            rd = [make_access(rng, m, False, id_w) for _ in range(nr)]
            if seq:
                for a in wr:
                    await with_timeout(do_writes([a]), 20, "us")
                for a in rd:
                    await with_timeout(do_reads([a]), 20, "us")
            else:
                tw = cocotb.start_soon(do_writes(wr))
                tr = cocotb.start_soon(do_reads(rd))
                await with_timeout(tw, 400, "us")
                await with_timeout(tr, 400, "us")

        set_pauses(None, 0)
        await phase(40, 40, seq=True)
        await phase(300, 300, seq=False)          # back to back, no back-pressure
        set_pauses(0.4, 1)
        await phase(300, 300, seq=False)          # random gaps and back-pressure
        set_pauses(0.7, 2)
        await phase(100, 100, seq=False)
        await ClockCycles(dut.clk, 20)
        assert nic_writes == exp_nic_writes
        assert nic_reads == exp_nic_reads
        dut._log.info("accesses: %s", counts)
        for k in ("nic_w", "nic_r", "brd_r", "err_w", "err_r"):
            assert counts[k] > 20, counts


@pytest.mark.parametrize("data_w", [32, 512])
def test_u250_bar_bridge(data_w: int) -> None:
    # 512: the shell's configuration; 32: one lane, a narrow window and board block
    params = ({"DATA_W": 512, "ID_W": 4, "ADDR_W": 64, "NIC_ADDR_W": 25, "BRD_REGS": 16}
              if data_w == 512 else
              {"DATA_W": 32, "ID_W": 2, "ADDR_W": 20, "NIC_ADDR_W": 12, "BRD_REGS": 4})
    run(toplevel="tb_u250_bar_bridge", module="test_u250_bar_bridge", test_dir=HERE,
        extra_sources=[HERE / "tb_u250_bar_bridge.sv"], parameters=params)
