# SPDX-License-Identifier: Apache-2.0
"""fabnic_vnic_dev throughput (make bench): virtio TX -> VXLAN wire, wire -> virtio RX,
VM to VM, 1500-byte inner frames, no pauses on AXI or the wire, DATA_W=512 at 250 MHz.

Cycles per frame over a burst of N frames queued at once; line rate against 100 G with
the outer frame on the wire (inner + 50 bytes VXLAN/IPv4 + 24 FCS/preamble/IFG). The
frames are checked (inner bytes) so the numbers are for correct traffic.
"""

from __future__ import annotations

from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import RisingEdge
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw
    from test_vnic_dev import (
        NIC_IP,
        NIC_MAC,
        PEER_IP,
        PEER_MAC,
        REMOTE,
        VM0,
        VM1,
        VNI,
        setup,
    )

    from fabnic.vswitch import Tunnel, VniEntry, VSwitch, set_pair_vni
    from fabnic_tb.beats import Cycle
    from fabnic_tb.bench import record
    from fabnic_tb.fw_bus import run_driver
except ImportError:
    cocotb = None

N = 32
SIZE = 1500
CLK = 250e6
PARAMS = {"DATA_W": 512, "PAIRS": 2, "QMAX": 256, "ENTRIES": 64, "VNI_ENTRIES": 4,
          "TUN_ENTRIES": 4}


def line_pct(cycles_per_frame: float, inner: int) -> float:
    wire_ns = (inner + 50 + 24) * 8 / 100e9 * 1e9
    return 100 * wire_ns / (cycles_per_frame / CLK * 1e9)


if cocotb is not None:

    @cocotb.test()
    async def bench_vnic_dev(dut) -> None:
        cyc = Cycle(dut.clk)
        bus, net, mrx, wire = await setup(dut, busy=0.0, cycle=cyc)

        def bringup() -> None:
            net.probe()
            net.setup(pairs=2, size=256)
            vs = VSwitch(bus)
            vs.set_tunnel(0, Tunnel(NIC_IP, PEER_IP, NIC_MAC, PEER_MAC))
            vs.set_vni(0, VniEntry(VNI, 0, [0, 1], [0]))
            vs.add_local(VNI, VM0, 0)
            vs.add_local(VNI, VM1, 1)
            vs.add_remote(VNI, REMOTE, 0)
            for p in (0, 1):
                set_pair_vni(bus, p, VNI)
            net.post_rx(0, 2 * N, buf_size=2048)
            net.post_rx(1, 2 * N, buf_size=2048)

        await run_driver(bringup)
        cfg = {"DATA_W": 512, "frames": N, "inner_bytes": SIZE, "clk_mhz": 250}

        def frame(dst: str, src: str, k: int) -> bytes:
            hdr = Ether(dst=dst, src=src) / IP(src="192.168.1.1", dst="192.168.1.2") / \
                UDP(sport=1000 + k, dport=9)
            return bytes(hdr / Raw(bytes((k + i) & 0xFF for i in range(SIZE - 42))))

        async def wait(cond, limit: int = 400000) -> None:
            for _ in range(limit):
                if cond():
                    return
                await RisingEdge(dut.clk)
            raise AssertionError("timeout")

        # TX: pair 0 -> remote MAC -> VXLAN on the wire (rate between first and last frame end)
        tx = [frame(REMOTE, VM0, k) for k in range(N)]
        await run_driver(lambda: ([net.send(0, f, kick=False) for f in tx], net.kick(1)))
        await wait(lambda: len(wire.frames) == N)
        assert [bytes(Ether(f.data)[VXLAN].payload) for f in wire.frames] == tx
        tx_cpf = (wire.frames[-1].end - wire.frames[0].end) / (N - 1)

        # RX: wire -> VM0 (first beat in -> used->idx of the last frame)
        rx = [frame(VM0, REMOTE, k) for k in range(N)]
        base = net.queues[0].used_idx()
        t0 = cyc.n
        for f in rx:
            mrx.send(bytes(Ether(dst=NIC_MAC, src=PEER_MAC) / IP(src=PEER_IP, dst=NIC_IP) /
                           UDP(sport=50000, dport=4789) / VXLAN(vni=VNI) / f))
        await wait(lambda: net.queues[0].used_idx() == base + N)
        rx_cpf = (cyc.n - t0) / N
        got = await run_driver(net.recv, 0)
        assert [d for _, d in got] == rx

        # VM to VM: pair 0 -> VM1 (kick -> used->idx of receiveq 1)
        v2v = [frame(VM1, VM0, k) for k in range(N)]
        base = net.queues[2].used_idx()
        t0 = cyc.n
        await run_driver(lambda: ([net.send(0, f, kick=False) for f in v2v], net.kick(1)))
        await wait(lambda: net.queues[2].used_idx() == base + N)
        v_cpf = (cyc.n - t0) / N
        got = await run_driver(net.recv, 1)
        assert [d for _, d in got] == v2v

        for name, c in (("tx", tx_cpf), ("rx", rx_cpf), ("vm2vm", v_cpf)):
            pct = line_pct(c, SIZE)
            record(f"vnic_dev_{name}_1500B_line_rate", round(pct, 1), "%", None, cfg,
                   note=f"{c:.1f} cycles/frame at 250 MHz, outer frame on 100 G")
            dut._log.info("%s: %.1f cycles/frame, %.1f %% of 100 G", name, c, pct)


def test_bench_vnic_dev() -> None:
    from fabnic_tb.runner import run

    run(toplevel="fabnic_vnic_dev", module="bench_vnic_dev", test_dir=Path(__file__).parent,
        parameters=PARAMS)
