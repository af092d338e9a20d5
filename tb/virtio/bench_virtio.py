# SPDX-License-Identifier: Apache-2.0
"""VirtIO-net TX/RX throughput in simulated cycles (tb_virtio, 512-bit, 250 MHz).

Memory is cocotbext-axi AxiRam without pauses (a few cycles of latency), so the
numbers show the engine's own per-frame cost: ring reads/writes are serialized
(one DMA access in flight for the queue engine) and both movers store and forward.
Frames are checked byte for byte like in test_virtio.py.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import RisingEdge
    from cocotb.utils import get_sim_time
    from cocotbext.axi import AxiStreamFrame
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from test_virtio import MAX_FRAME, Env, TxCase, tx_frames
    from virtio_driver_model import NET_HDR_LEN, net_hdr

    from fabnic_tb.bench import gbps, record
except ImportError:
    cocotb = None

SIZES = [64, 256, 1500]
COUNT = 24

if cocotb is not None:

    def udp_frame(rng: random.Random, size: int) -> bytes:
        pl = size - 42
        return bytes(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=2)
                     / bytes(rng.getrandbits(8) for _ in range(pl)))

    @cocotb.test()
    async def bench_virtio(dut) -> None:
        env = Env(dut, random.Random(7))
        await env.start(0, rx_py=False, busy=0.0)
        q3 = await env.setup_queue(3, 256, event_idx=True, indirect=True, vector=1)
        q0 = await env.setup_queue(0, 256, event_idx=True, indirect=False, vector=2)
        cfg = {"DATA_W": 512, "memory": "cocotbext AxiRam, no pauses"}
        rng = env.rng
        for size in SIZES:
            # TX: header and frame in one buffer (Linux's usual layout)
            cases = [TxCase(net_hdr(), udp_frame(rng, size), None, 3) for _ in range(COUNT)]
            for c in cases:
                c.expect = c.data
                env.post_tx(q3, c)
            start = env.cnt("cnt_txframes", 0)
            t0 = get_sim_time(unit="ns")
            await env.notify(3)
            await env.wait_until(lambda s=start: env.cnt("cnt_txframes", 0) - s == COUNT)
            cycles = (get_sim_time(unit="ns") - t0) / 4
            got = [bytes(f.tdata) for f in tx_frames(env)]
            assert got == [c.expect for c in cases]
            await env.wait_until(lambda: q3.used_idx() == q3.avail_idx)
            q3.get_used()
            record(f"virtio_tx_{size}B", round(gbps(size * COUNT, cycles), 2), "Gb/s", None,
                   dict(cfg, frames=COUNT), note=f"{cycles / COUNT:.0f} cycles/frame")
            dut._log.info("TX %d B: %.0f cycles/frame, %.2f Gb/s", size, cycles / COUNT,
                          gbps(size * COUNT, cycles))
            # RX: one 2 KB buffer per frame
            for _ in range(COUNT):
                a = env.buf_alloc.alloc(2048)
                q0.add_chain([(a, 2048, True)])
            frames = [udp_frame(rng, size) for _ in range(COUNT)]
            start = env.cnt("cnt_rxframes", 0)
            t0 = get_sim_time(unit="ns")
            for f in frames:
                await env.src.send(AxiStreamFrame(f, tuser=2, tdest=0))
            await env.wait_until(lambda s=start: env.cnt("cnt_rxframes", 0) - s == COUNT)
            want = (q0.last_used + COUNT) & 0xFFFF
            await env.wait_until(lambda w=want: q0.used_idx() == w)
            cycles = (get_sim_time(unit="ns") - t0) / 4
            used = q0.get_used()
            assert [n for _, n in used] == [NET_HDR_LEN + len(f) for f in frames]
            record(f"virtio_rx_{size}B", round(gbps(size * COUNT, cycles), 2), "Gb/s", None,
                   dict(cfg, frames=COUNT), note=f"{cycles / COUNT:.0f} cycles/frame")
            dut._log.info("RX %d B: %.0f cycles/frame, %.2f Gb/s", size, cycles / COUNT,
                          gbps(size * COUNT, cycles))
            for _ in range(10):
                await RisingEdge(dut.clk)


@pytest.mark.parametrize("data_w", [512])
def test_bench_virtio(data_w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_virtio", module="bench_virtio", test_dir=here,
               parameters={"DATA_W": data_w, "MAX_FRAME": MAX_FRAME},
               extra_sources=[here / "tb_virtio.sv"])
