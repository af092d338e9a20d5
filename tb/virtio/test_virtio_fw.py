# SPDX-License-Identifier: Apache-2.0
"""The fw/ guest driver (fabnic.virtio) drives the device through fabnic_virtio_regs.

Runs in the tb_virtio build of test_virtio.py (module list of its runner call):
use_regs = 1, so configuration and doorbells go over AXI-Lite into
fabnic_virtio_regs; the driver code runs in a bridge thread
(fabnic_tb.fw_bus.run_driver). Expectations come from the VirtIO 1.2 spec
(feature bit numbers, status bits, register layout, num_buffers, DATA_VALID,
control-queue ack values), scapy frames and the RFC 1071 checksum of
test_virtio.py, never from the device's own answers.
"""

from __future__ import annotations

import random
import struct

try:
    import cocotb
    from cocotb.triggers import RisingEdge
    from cocotbext.axi import AxiStreamFrame
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from test_virtio import MEM_SIZE, Env, frame_meta, make_good_frame, tx_frames
    from virtio_fw_adapter import RamHostMemory

    from fabnic.virtio import VirtioNet
    from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
except ImportError:
    cocotb = None

# spec numbers (virtio 1.2 5.1.3, 6; 2.1; 4.1.4.3) written out here on purpose
SPEC_FEATURES = {0, 1, 3, 5, 15, 16, 17, 22, 28, 29, 32}   # CSUM .. VERSION_1 as offered
ACK, DRIVER, DRIVER_OK, FEATURES_OK, NEEDS_RESET = 1, 2, 4, 8, 0x40
STATUS_DW, QSIZE_DW, QEN_DW, NOTIFY, ISR, EXT = 0x14, 0x18, 0x1C, 0x100, 0x200, 0x400


if cocotb is not None:

    def udp(rng: random.Random, n: int) -> bytes:
        return bytes(Ether(src="02:00:00:00:00:0a", dst="02:00:00:00:00:0b")
                     / IP(src="10.1.0.9", dst="10.1.0.1") / UDP(sport=rng.randrange(1, 65535), dport=9)
                     / bytes(rng.getrandbits(8) for _ in range(n)))

    @cocotb.test()
    async def test_driver_fw(dut) -> None:
        """Probe, 2 queue pairs + control queue, TX offload, RX (MRG, DATA_VALID), bad input."""
        env = Env(dut, random.Random(11))
        await env.start(500, rx_py=False, busy=0.2)
        rng = env.rng
        dut.use_regs.value = 1
        mac = bytes.fromhex("02fab1c0ffee")
        dut.dev_mac.value = int.from_bytes(mac, "little")
        cfg_irqs: list[int] = []

        async def cfg_irq_mon() -> None:
            while True:
                await RisingEdge(dut.clk)
                if int(dut.cfg_irq_valid.value):
                    cfg_irqs.append(int(dut.cfg_irq_vector.value))
        cocotb.start_soon(cfg_irq_mon())

        bus = SimAxiLiteBus(dut, "s_axil")
        mem = RamHostMemory(env.ram, 0x1000, MEM_SIZE)
        net = VirtioNet(bus, mem, base=0)

        def bringup() -> int:
            f = net.probe()
            net.setup(pairs=2, size=64)
            return f

        feats = await run_driver(bringup)
        assert feats == sum(1 << b for b in SPEC_FEATURES), f"features {feats:#x}"
        assert net.mac == mac and net.mtu == 1500 and net.max_pairs == 2 and net.link_up
        assert net.num_queues == 5                      # 2 pairs + control queue
        assert int(dut.device_status.value) == ACK | DRIVER | FEATURES_OK | DRIVER_OK
        assert int(dut.ctrl_pairs.value) == 2 and int(dut.cnt_ctrl_ok.value) == 1

        # ---------------- TX on both pairs, checksum offload, indirect, split buffers
        cases = [make_good_frame(rng, q) for q in [1, 3] * 8]
        notified: list[bool] = []

        def send_all() -> None:
            for c in cases:
                flags, _, _, _, cs, co, _ = struct.unpack("<BBHHHHH", c.hdr)
                head = net.send((c.queue - 1) // 2, c.data, csum=(cs, co) if flags & 1 else None,
                                pieces=rng.choice([1, 2, 3]), indirect=rng.random() < 0.3, kick=False)
                assert head is not None
                notified.append(net.kick(c.queue))

        await run_driver(send_all)
        await env.wait_until(lambda: env.cnt("cnt_txframes", 0) == len(cases))
        for _ in range(100):
            await RisingEdge(dut.clk)
        got: dict[int, list[bytes]] = {}
        for f in tx_frames(env):
            got.setdefault(frame_meta(f)[0], []).append(bytes(f.tdata))
        for q in (1, 3):
            assert got[q] == [c.expect for c in cases if c.queue == q], f"TX queue {q}"
        assert notified[0]                               # first kick on an idle device
        await env.wait_until(lambda: all(net.queues[q].used_idx() == net.queues[q].avail_idx
                                         for q in (1, 3)))
        reaped = await run_driver(lambda: net.reap_tx(0) + net.reap_tx(1))
        assert sorted(t for t, _ in reaped) == sorted(len(c.data) for c in cases)
        assert all(n == 0 for _, n in reaped)           # TX used len 0
        for q in (1, 3):                                 # EVENT_IDX: avail_event caught up
            assert net.queues[q].avail_event() == net.queues[q].avail_idx

        # ---------------- RX on both pairs: one 1526-byte buffer per frame
        await run_driver(lambda: (net.post_rx(0, 8), net.post_rx(1, 8)))
        frames = [(udp(rng, rng.randrange(0, 1400)), q, rng.random() < 0.5) for q in [0] * 8 + [2] * 8]
        rng.shuffle(frames)
        base = env.cnt("cnt_rxframes", 0)
        for data, q, ok in frames:
            await env.src.send(AxiStreamFrame(data, tuser=int(ok) << 1, tdest=q))
        try:
            await env.wait_until(lambda: env.cnt("cnt_rxframes", 0) - base == len(frames), 20000)
        except AssertionError:
            dut._log.error("rx frames %d drops %s bad %d err %s stat %s nr %d", env.cnt("cnt_rxframes", 0) - base,
                           [env.cnt("cnt_rxdrop", i) for i in range(4)], env.cnt("cnt_rxbadchain", 0),
                           [env.cnt("cnt_err", i) for i in range(10)], [env.cnt("cnt_stat", i) for i in range(7)],
                           int(dut.q_needs_reset.value))
            raise
        await env.wait_until(lambda: net.queues[0].used_idx() == 8 and net.queues[2].used_idx() == 8)
        rx = await run_driver(lambda: (net.recv(0), net.recv(1)))
        for pair, q in ((0, 0), (1, 2)):
            want = [(d, ok) for d, qq, ok in frames if qq == q]
            assert [d for _, d in rx[pair]] == [d for d, _ in want], f"RX queue {q}"
            for (h, _), (_, ok) in zip(rx[pair], want, strict=True):
                assert h.flags == (2 if ok else 0) and h.gso_type == 0 and h.num_buffers == 1
        assert any(i == (0, 1) for i in env.irqs) and any(i == (2, 3) for i in env.irqs)

        # ---------------- MRG_RXBUF: one frame spread over 3 chains of 400 bytes
        await run_driver(lambda: net.post_rx(0, 4, buf_size=400))
        big = udp(rng, 950)
        await env.src.send(AxiStreamFrame(big, tuser=2, tdest=0))
        await env.wait_until(lambda: net.queues[0].used_idx() == 11)
        rx = await run_driver(net.recv, 0)
        assert len(rx) == 1 and rx[0][1] == big and rx[0][0].num_buffers == 3

        # ---------------- control queue: VQ_PAIRS_SET beyond max_virtqueue_pairs -> ERR
        ack = await run_driver(net.ctrl_command, 4, 0, struct.pack("<H", 3))
        assert ack == 1 and int(dut.cnt_ctrl_err.value) == 1 and int(dut.ctrl_pairs.value) == 2

        # ---------------- bad register input
        def bad_regs() -> tuple[int, int, int, int]:
            bus.write32(NOTIFY + 4 * 7, 7)                    # no queue 7
            bus.write32(STATUS_DW, net.status | (9 << 16))    # queue_select 9 (absent)
            size9 = bus.read32(QSIZE_DW) & 0xFFFF             # spec: 0 = not available
            bus.write32(QSIZE_DW, 16)                         # ignored
            bus.write32(STATUS_DW, net.status | (1 << 16))
            bus.write32(QSIZE_DW, 32 | (2 << 16))             # size of an enabled queue: ignored
            size1 = bus.read32(QSIZE_DW) & 0xFFFF
            return size9, size1, bus.read32(EXT), bus.read32(EXT + 4)

        size9, size1, bad_notify, ignored = await run_driver(bad_regs)
        assert size9 == 0 and size1 == 64 and bad_notify == 1 and ignored == 2

        # ---------------- avail index jump on transmitq 0 -> DEVICE_NEEDS_RESET, pair 1 unaffected
        vq1 = net.queues[1]
        vq1.avail_idx = (vq1.avail_idx + 100) & 0xFFFF
        await run_driver(net.kick, 1, True)
        await env.wait_until(lambda: int(dut.q_needs_reset.value) & 2)
        st = await run_driver(net.read_status)
        assert st & NEEDS_RESET and cfg_irqs == [0]       # config change on vector 0
        isr = await run_driver(net.read_isr)
        assert isr & 2
        tx_more = make_good_frame(rng, 3)
        flags, _, _, _, cs, co, _ = struct.unpack("<BBHHHHH", tx_more.hdr)
        await run_driver(lambda: net.send(1, tx_more.data, csum=(cs, co) if flags & 1 else None))
        await env.wait_until(lambda: env.cnt("cnt_txframes", 0) == len(cases) + 1)
        for _ in range(50):
            await RisingEdge(dut.clk)
        assert [bytes(f.tdata) for f in tx_frames(env)] == [tx_more.expect]

        # ---------------- reset, feature negotiation rules, recovery
        def renegotiate() -> tuple[int, int, int]:
            net.reset()
            net._write_status(ACK | DRIVER)
            net.write_driver_features((1 << 32) | (1 << 40))       # bit 40 not offered
            net._write_status(ACK | DRIVER | FEATURES_OK)
            st_bad = net.read_status()
            net.write_driver_features(1 << 1)                      # no VERSION_1
            net._write_status(ACK | DRIVER | FEATURES_OK)
            st_nov1 = net.read_status()
            net.reset()
            net.probe()
            net.setup(pairs=1, size=32)
            return st_bad, st_nov1, net.read_status()

        st_bad, st_nov1, st_ok = await run_driver(renegotiate)
        assert st_bad & FEATURES_OK == 0 and st_nov1 & FEATURES_OK == 0
        assert st_ok == ACK | DRIVER | FEATURES_OK | DRIVER_OK      # NEEDS_RESET cleared
        assert int(dut.q_needs_reset.value) == 0 and int(dut.ctrl_pairs.value) == 1
        c = make_good_frame(rng, 1)
        flags, _, _, _, cs, co, _ = struct.unpack("<BBHHHHH", c.hdr)
        await run_driver(lambda: net.send(0, c.data, csum=(cs, co) if flags & 1 else None))
        await env.wait_until(lambda: env.cnt("cnt_txframes", 0) == len(cases) + 2)
        for _ in range(50):
            await RisingEdge(dut.clk)
        assert [bytes(f.tdata) for f in tx_frames(env)] == [c.expect]
        ack = await run_driver(net.ctrl_command, 4, 0, struct.pack("<H", 0))   # 0 pairs -> ERR
        assert ack == 1 and int(dut.cnt_ctrl_err.value) == 2
        ack = await run_driver(net.ctrl_command, 4, 0, struct.pack("<H", 2))
        assert ack == 0 and int(dut.ctrl_pairs.value) == 2
