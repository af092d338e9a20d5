# SPDX-License-Identifier: Apache-2.0
"""fabnic_u250_shell smoke test, with a stand-in for fabnic_nic (tb_u250_nic_stub.sv:
16 AXI-Lite words, interrupt triggers, RX looped back to TX, a DMA probe per engine). The real NIC is left out:
the shell with it is a whole-design build, far over this test's time budget.

Checked against the shell's header (docs/synthesis.md, "Alveo U250 board target"):
  * BAR0: board registers 0..2 (ID "U250", version 0x00010000, status bits: link,
    QSFP pins, init_done) and the zero registers 9..15; NIC words written with byte
    strobes in any 32-bit lane and read back; the NIC's SLVERR passed on; a write to a
    board register answered SLVERR;
  * frames (scapy, 42..700 bytes, some flagged bad): CMAC RX -> RX guard -> RX frame
    FIFO -> CDC -> NIC (loop) -> TX guard (pads to 60 bytes) -> CDC -> TX frame FIFO ->
    CMAC TX, with random CMAC TX back-pressure: each frame out once, in order, padded
    with zeros to 60 bytes, its bad flag kept;
  * link down (stat_rx_aligned low): TX frames dropped whole and counted in board
    register 6, status bit 0 low; back up: frames pass again;
  * a CMAC RX reset in the middle of a frame: the frame reaches the wire closed by a
    bad one-byte beat after the beats that went in, register 5 counts it;
  * a frame longer than the RX FIFO (register 4) or the TX FIFO (register 7) dropped
    whole and counted; with the CMAC TX stopped, the RX FIFO fills and drops whole
    frames (register 3): what comes out is whole sent frames in order, and with the
    drops adds up to what was sent;
  * CMAC TX underflow cycles counted in register 8;
  * interrupts: RoCE vector v -> line v mod 8, virtio vector v -> 8 + v mod 4, virtio
    configuration -> line 15; a line stays up until its ack; an event while up raises it
    again after the ack;
  * host memory: each engine's write and read bursts (the stand-in's DMA probes, both
    engines in flight together) reach the XDMA slave port (cocotbext-axi AxiRam with
    back-pressure) with ID = {engine index, engine ID} and the engine's address and
    length; data lands in / comes from memory; B and R return to the issuing engine
    only, with its own ID;
  * the core reset zeroes the counters.
"""

from __future__ import annotations

import random
from pathlib import Path

from fabnic_tb import tools
from fabnic_tb.runner import run

try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer, with_timeout
    from cocotbext.axi import AxiBus, AxiRam, AxiStreamBus, AxiStreamSink
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import ARP, Ether
    from scapy.packet import Raw

    from fabnic_tb.axis import random_pause
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

HERE = Path(__file__).parent
BRD = 0x2000000          # board registers: BAR0 + 32 MB + 4*i
KW = 64                  # bytes per beat
RX_DEPTH, TX_DEPTH = 64, 32   # the frame FIFOs of this build, beats


class Bar:
    """Single-beat 32-bit MMIO on the shell's s_axi port (the XDMA's M_AXI_B)."""

    def __init__(self, dut):
        self.dut = dut
        for s in ("awvalid", "wvalid", "arvalid"):
            getattr(dut, f"s_axi_{s}").value = 0
        dut.s_axi_bready.value = 1
        dut.s_axi_rready.value = 1

    async def write(self, addr: int, word: int, strb: int = 0xF) -> int:
        dut = self.dut
        lane = (addr >> 2) % 16
        await FallingEdge(dut.core_clk)
        dut.s_axi_awid.value = 3
        dut.s_axi_awaddr.value = addr
        dut.s_axi_awlen.value = 0
        dut.s_axi_awsize.value = 2
        dut.s_axi_awvalid.value = 1
        dut.s_axi_wdata.value = word << (32 * lane)
        dut.s_axi_wstrb.value = strb << (4 * lane)
        dut.s_axi_wlast.value = 1
        dut.s_axi_wvalid.value = 1
        aw = w = False
        for _ in range(200):
            await RisingEdge(dut.core_clk)
            aw = aw or bool(int(dut.s_axi_awready.value))
            w = w or bool(int(dut.s_axi_wready.value))
            if int(dut.s_axi_bvalid.value):
                assert aw and w
                assert int(dut.s_axi_bid.value) == 3
                resp = int(dut.s_axi_bresp.value)
                await FallingEdge(dut.core_clk)
                return resp
            await FallingEdge(dut.core_clk)
            if aw:
                dut.s_axi_awvalid.value = 0
            if w:
                dut.s_axi_wvalid.value = 0
        raise AssertionError(f"BAR write {addr:#x}: no response")

    async def read(self, addr: int) -> tuple[int, int]:
        dut = self.dut
        await FallingEdge(dut.core_clk)
        dut.s_axi_arid.value = 5
        dut.s_axi_araddr.value = addr
        dut.s_axi_arlen.value = 0
        dut.s_axi_arsize.value = 2
        dut.s_axi_arvalid.value = 1
        for _ in range(200):
            await RisingEdge(dut.core_clk)
            ar = int(dut.s_axi_arready.value)
            if int(dut.s_axi_rvalid.value):
                assert int(dut.s_axi_rid.value) == 5 and int(dut.s_axi_rlast.value)
                data = int(dut.s_axi_rdata.value)
                word = data & 0xFFFFFFFF
                assert data == sum(word << (32 * i) for i in range(16)), "lanes differ"
                resp = int(dut.s_axi_rresp.value)
                await FallingEdge(dut.core_clk)
                return word, resp
            await FallingEdge(dut.core_clk)
            if ar:
                dut.s_axi_arvalid.value = 0
        raise AssertionError(f"BAR read {addr:#x}: no response")


def scapy_frames(rng: random.Random, n: int) -> list[bytes]:
    out = []
    for i in range(n):
        if i % 4 == 0:
            out.append(bytes(Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff")
                             / ARP(pdst=f"10.0.0.{i % 250 + 1}")))
        else:
            out.append(bytes(Ether(src="02:00:00:00:00:02", dst="02:00:00:00:00:03")
                             / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=i, dport=9)
                             / Raw(bytes(rng.getrandbits(8)
                                         for _ in range(rng.randrange(0, 660))))))
    return out


if cocotb is not None:

    async def send_rx(dut, frame: bytes, bad: int = 0, abort_after: int | None = None):
        """The CMAC RX user side: one beat per mac_clk, no back-pressure. With
        abort_after, the CMAC RX reset is asserted after that many beats."""
        beats = [frame[o:o + KW] for o in range(0, len(frame), KW)]
        for i, chunk in enumerate(beats):
            if abort_after is not None and i == abort_after:
                await FallingEdge(dut.mac_clk)
                dut.mac_rx_axis_tvalid.value = 0
                dut.mac_rx_arst.value = 1
                await ClockCycles(dut.mac_clk, 6)
                dut.mac_rx_arst.value = 0
                await ClockCycles(dut.mac_clk, 6)
                return
            await FallingEdge(dut.mac_clk)
            dut.mac_rx_axis_tdata.value = int.from_bytes(chunk, "little")
            dut.mac_rx_axis_tkeep.value = (1 << len(chunk)) - 1
            dut.mac_rx_axis_tlast.value = int(i == len(beats) - 1)
            dut.mac_rx_axis_tuser.value = bad if i == len(beats) - 1 else 0
            dut.mac_rx_axis_tvalid.value = 1
        await FallingEdge(dut.mac_clk)
        dut.mac_rx_axis_tvalid.value = 0

    @cocotb.test()
    async def shell_smoke(dut):
        rng = random.Random(250)
        Clock(dut.core_clk, 4, unit="ns").start()
        Clock(dut.mac_clk, 3.1, unit="ns").start()
        dut.core_arst.value = 1
        dut.mac_tx_arst.value = 1
        dut.mac_rx_arst.value = 1
        dut.mac_rx_axis_tvalid.value = 0
        dut.mac_rx_aligned.value = 1
        dut.mac_tx_underflow.value = 0
        dut.usr_irq_ack.value = 0
        ram = AxiRam(AxiBus.from_prefix(dut, "m_axi"), dut.core_clk, size=1 << 20)
        for i, ch in enumerate((ram.write_if.aw_channel, ram.write_if.w_channel,
                                ram.write_if.b_channel, ram.read_if.ar_channel,
                                ram.read_if.r_channel)):
            ch.set_pause_generator(random_pause(40 + i, 0.3))
        ram.write_if.log.setLevel("WARNING")
        ram.read_if.log.setLevel("WARNING")
        ax_seen: list[tuple[str, int, int, int]] = []   # (aw|ar, ID, address, AxLEN)

        async def ax_monitor():
            while True:
                await RisingEdge(dut.core_clk)
                for ch in ("aw", "ar"):
                    if int(getattr(dut, f"m_axi_{ch}valid").value) and \
                            int(getattr(dut, f"m_axi_{ch}ready").value):
                        ax_seen.append((ch, int(getattr(dut, f"m_axi_{ch}id").value),
                                        int(getattr(dut, f"m_axi_{ch}addr").value),
                                        int(getattr(dut, f"m_axi_{ch}len").value)))
        cocotb.start_soon(ax_monitor())
        pins = {"qsfp0_present": 1, "qsfp0_irq": 0, "qsfp1_present": 0, "qsfp1_irq": 1}
        for k, v in pins.items():
            getattr(dut, k).value = v
        bar = Bar(dut)
        tx = AxiStreamSink(AxiStreamBus.from_prefix(dut, "mac_tx_axis"), dut.mac_clk)
        tx.log.setLevel("WARNING")
        tx.set_pause_generator(random_pause(3, 0.3))
        await ClockCycles(dut.core_clk, 10)
        dut.core_arst.value = 0
        dut.mac_tx_arst.value = 0
        dut.mac_rx_arst.value = 0
        await ClockCycles(dut.core_clk, 30)

        async def brd(i: int) -> int:
            word, resp = await bar.read(BRD + 4 * i)
            assert resp == 0, (i, resp)
            return word

        def status(link: int) -> int:
            return (link | pins["qsfp0_present"] << 1 | pins["qsfp0_irq"] << 2
                    | pins["qsfp1_present"] << 3 | pins["qsfp1_irq"] << 4 | 1 << 5)

        # ---- registers
        assert await brd(0) == 0x55323530
        assert await brd(1) == 0x00010000
        assert await brd(2) == status(1)
        for i in range(3, 16):
            assert await brd(i) == 0, i
        assert await bar.write(BRD + 8, 1) == 2, "board registers are read-only"
        model = [0] * 16
        for _ in range(40):
            i = rng.randrange(16)
            word, strb = rng.getrandbits(32), rng.randrange(16)
            assert await bar.write(4 * i, word, strb) == 0
            model[i] = sum((word if strb >> b & 1 else model[i]) & (0xFF << 8 * b)
                           for b in range(4))
            j = rng.randrange(16)
            assert await bar.read(4 * j) == (model[j], 0), j
        assert (await bar.read(0x1000))[1] == 2, "the NIC's SLVERR"
        assert await bar.write(0x1004, 1) == 2

        # ---- frames through both crossings
        async def expect_frames(sent: list[tuple[bytes, int]]):
            for data, bad in sent:
                f = await with_timeout(tx.recv(), 200, "us")
                want = data + bytes(max(0, 60 - len(data)))
                assert bytes(f.tdata) == want, (len(f.tdata), len(want))
                tu = f.tuser if isinstance(f.tuser, int) else f.tuser[-1]
                assert tu == bad, (tu, bad)

        frames = [(f, int(rng.random() < 0.15)) for f in scapy_frames(rng, 40)]
        for f, bad in frames:
            await send_rx(dut, f, bad)
            for _ in range(rng.choice([0, 0, 1, 3])):
                await FallingEdge(dut.mac_clk)
        await expect_frames(frames)

        # ---- link down: TX frames dropped whole and counted
        dut.mac_rx_aligned.value = 0
        await ClockCycles(dut.core_clk, 10)
        assert await brd(2) == status(0)
        lost = scapy_frames(rng, 5)
        for f in lost:
            await send_rx(dut, f)
        await ClockCycles(dut.core_clk, 200)
        assert tx.empty()
        assert await brd(6) == len(lost)
        dut.mac_rx_aligned.value = 1
        await ClockCycles(dut.core_clk, 10)
        assert await brd(2) == status(1)
        frames = [(f, 0) for f in scapy_frames(rng, 6)]
        for f, bad in frames:
            await send_rx(dut, f, bad)
        await expect_frames(frames)

        # ---- a CMAC RX reset in the middle of a frame
        long = bytes(Ether() / IP() / UDP() / Raw(bytes(range(256)) * 2))
        await send_rx(dut, long, abort_after=3)
        f = await with_timeout(tx.recv(), 200, "us")
        assert bytes(f.tdata) == long[:3 * KW] + b"\x00", len(f.tdata)
        tu = f.tuser if isinstance(f.tuser, int) else f.tuser[-1]
        assert tu == 1
        assert await brd(5) == 1
        frames = [(f, 0) for f in scapy_frames(rng, 4)]
        for f, bad in frames:
            await send_rx(dut, f, bad)
        await expect_frames(frames)

        # ---- frames that do not fit: longer than the RX FIFO, longer than the TX FIFO
        def udp(i: int, n: int) -> bytes:
            hdr = Ether(src="02:00:00:00:00:04", dst="02:00:00:00:00:05") / IP() / \
                UDP(sport=i, dport=7)
            return bytes(hdr / Raw(bytes((i + k) & 0xFF for k in range(n - len(hdr)))))

        await send_rx(dut, udp(1, KW * (RX_DEPTH + 6)))
        await send_rx(dut, udp(2, KW * (TX_DEPTH + 8)))
        fits = [(udp(3, 300), 0)]
        await send_rx(dut, fits[0][0])
        await expect_frames(fits)
        assert await brd(4) == 1, "RX frames longer than the RX FIFO"
        assert await brd(7) == 1, "TX frames longer than the TX FIFO"

        # ---- RX FIFO full: the CMAC TX stops, everything backs up; whole frames dropped
        tx.clear_pause_generator()
        tx.pause = True
        burst = [udp(100 + i, 8 * KW) for i in range(30)]
        for f in burst:
            await send_rx(dut, f)
        await ClockCycles(dut.core_clk, 100)
        tx.pause = False
        tx.set_pause_generator(random_pause(4, 0.3))
        await ClockCycles(dut.core_clk, 1500)
        got = []
        while not tx.empty():
            got.append(bytes(tx.recv_nowait().tdata))
        it = iter(burst)
        assert all(any(g == f for f in it) for g in got), "not whole sent frames in order"
        full = await brd(3)
        dut._log.info("CMAC TX stopped: %d of %d frames out, %d dropped at the RX FIFO",
                      len(got), len(burst), full)
        assert full > 0 and len(got) + full == len(burst), (len(got), full)

        # ---- CMAC TX underflow cycles
        await FallingEdge(dut.mac_clk)
        dut.mac_tx_underflow.value = 1
        await ClockCycles(dut.mac_clk, 3)
        await FallingEdge(dut.mac_clk)
        dut.mac_tx_underflow.value = 0
        await ClockCycles(dut.core_clk, 20)
        assert await brd(8) == 3

        # ---- interrupts
        async def irq_wait() -> int:
            await ClockCycles(dut.core_clk, 4)
            return int(dut.usr_irq_req.value)

        async def ack(mask: int):
            await FallingEdge(dut.core_clk)
            dut.usr_irq_ack.value = mask
            await FallingEdge(dut.core_clk)
            dut.usr_irq_ack.value = 0

        assert await irq_wait() == 0
        await bar.write(0x100, 11)                  # RoCE vector 11 -> line 3
        assert await irq_wait() == 1 << 3
        await bar.write(0x104, 5)                   # virtio vector 5 -> line 9
        await bar.write(0x108, 0x77)                # virtio configuration -> line 15
        assert await irq_wait() == (1 << 3 | 1 << 9 | 1 << 15)
        await ack(1 << 9 | 1 << 15)
        assert await irq_wait() == 1 << 3
        await bar.write(0x100, 3)                   # line 3 again while it is up
        assert await irq_wait() == 1 << 3
        await FallingEdge(dut.core_clk)
        dut.usr_irq_ack.value = 1 << 3
        await RisingEdge(dut.core_clk)
        await FallingEdge(dut.core_clk)
        dut.usr_irq_ack.value = 0
        assert int(dut.usr_irq_req.value) == 0, "one cycle low after the ack"
        assert await irq_wait() == 1 << 3, "raised again: the event came while it was up"
        await ack(1 << 3)
        assert await irq_wait() == 0

        # ---- host memory: both engines through the muxes and skid registers
        def probe(e: int, off: int) -> int:
            return 0x200 + 0x40 * e + off

        async def launch(e: int, write: bool, axid: int, addr: int, length: int):
            await bar.write(probe(e, 0x0), addr & 0xFFFFFFFF)
            await bar.write(probe(e, 0x4), addr >> 32)
            await bar.write(probe(e, 0x8), length)
            await bar.write(probe(e, 0xC), int(write) | axid << 4)

        async def wait_count(e: int, off: int, count: int) -> int:
            for _ in range(100):
                st = (await bar.read(probe(e, off)))[0]
                if st & 0xFF == count:
                    return st
            raise AssertionError(f"engine {e}: no completion at {off:#x}")

        def pattern(e: int, length: int) -> bytes:
            return b"".join((0xD0000000 | e << 24 | k << 8 | i).to_bytes(4, "little")
                            for k in range(length + 1) for i in range(16))

        done_w, done_r = [0, 0], [0, 0]
        for rnd in range(3):
            jobs = []
            for e in (0, 1):
                axid, length = rng.randrange(16), rng.choice([0, 1, 3, 7])
                waddr = 0x10000 * (2 * e + 1) + 0x1000 * rnd
                raddr = 0x10000 * (2 * e + 6) + 0x1000 * rnd
                rbytes = bytes(rng.getrandbits(8) for _ in range(64 * (length + 1)))
                ram.write(raddr, rbytes)
                jobs.append((e, axid, length, waddr, raddr, rbytes))
            ax_seen.clear()
            # both engines' writes, then both engines' reads, each pair in flight together
            for write in (True, False):
                for e, axid, length, waddr, raddr, _ in jobs:
                    await launch(e, write, axid, waddr if write else raddr, length)
                for e, axid, length, waddr, _raddr, rbytes in jobs:
                    if write:
                        done_w[e] += 1
                        st = await wait_count(e, 0x18, done_w[e])
                        assert st >> 8 & 0xF == axid and st >> 12 & 3 == 0, (e, hex(st))
                        assert ram.read(waddr, 64 * (length + 1)) == pattern(e, length)
                    else:
                        done_r[e] += 1
                        st = await wait_count(e, 0x10, done_r[e])
                        assert st >> 8 & 0xF == axid and st >> 12 & 3 == 0, (e, hex(st))
                        assert st >> 16 & 0xFF == length + 1, (e, hex(st))
                        word = (await bar.read(probe(e, 0x14)))[0]
                        assert word == int.from_bytes(rbytes[64 * length:64 * length + 4],
                                                      "little")
            want = sorted([("aw", e << 4 | axid, waddr, length)
                           for e, axid, length, waddr, _, _ in jobs]
                          + [("ar", e << 4 | axid, raddr, length)
                             for e, axid, length, _, raddr, _ in jobs])
            assert sorted(ax_seen) == want, (ax_seen, want)
        for e in (0, 1):   # no response reached the other engine
            assert (await bar.read(probe(e, 0x18)))[0] & 0xFF == done_w[e]
            assert (await bar.read(probe(e, 0x10)))[0] & 0xFF == done_r[e]

        # ---- the core reset zeroes the counters
        dut.core_arst.value = 1
        await ClockCycles(dut.core_clk, 5)
        dut.core_arst.value = 0
        await ClockCycles(dut.core_clk, 30)
        for i in range(3, 9):
            assert await brd(i) == 0, i
        await Timer(1, "ns")


def test_u250_shell() -> None:
    # every module the shell uses except fabnic_nic, then the stand-in and the shell
    used = ["fabnic_reset_sync", "fabnic_vnic_axi_wr_mux", "fabnic_axi_rd_mux",
            "fabnic_axis_register", "fabnic_u250_bar_bridge", "fabnic_u250_frame_guard",
            "fabnic_axis_async_fifo", "fabnic_axis_fifo", "fabnic_u250_status_cdc"]
    srcs = [*tools.rtl_sources(*used), HERE / "tb_u250_nic_stub.sv",
            tools.module_file("fabnic_u250_shell")]
    run(toplevel="fabnic_u250_shell", module="test_u250_shell", test_dir=HERE, sources=srcs,
        tag="nic_stub", parameters={"RX_FIFO_DEPTH": RX_DEPTH, "TX_FIFO_DEPTH": TX_DEPTH,
                                 "CDC_DEPTH": 16})
