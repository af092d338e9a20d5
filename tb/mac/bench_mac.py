# SPDX-License-Identifier: Apache-2.0
"""Benchmark: fabnic_eth_mac_10g sustained TX and RX throughput, % of 10 G line rate.

Frame sizes are Ethernet frame lengths including the FCS (64, 1500, 9000 bytes).
On the wire each frame costs size + 8 (preamble/SFD) + 12 (average IFG) bytes,
so 64 B -> 84 B. Throughput = frames * (size + 20) bytes / (cycles * 8 bytes per
XGMII column), counted between /S/ positions (TX) or last output beats (RX).
Lean drivers: one Python coroutine sets/reads whole beats or XGMII columns per
cycle (no cocotbext models).
"""

from __future__ import annotations

from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from maclib import xgmii_columns

    from fabnic_tb.bench import record
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

CLK_NS = 6.4
SIZES = {64: 400, 1500: 40, 9000: 12}   # frame size (incl. FCS) -> frames measured
IDLE_D = 0x0707070707070707


def frame_bytes(size: int, seq: int) -> bytes:
    body = bytes((seq + i) & 0xFF for i in range(size - 4))
    return body


async def setup(dut) -> None:
    dut.cycles_per_quantum.value = 8 * 256
    dut.pfc_req.value = 0
    dut.cfg_src_mac.value = 0x020000000001
    dut.cfg_quanta.value = 0xFFFF
    dut.cfg_refresh.value = 0xFFFFFFFF
    dut.m_axis_tready.value = 1
    dut.xgmii_rxd.value = IDLE_D
    dut.xgmii_rxc.value = 0xFF
    dut.s_axis_tvalid.value = 0
    dut.s_axis_tuser.value = 0
    await start_clock_reset(dut, period_ns=CLK_NS)


if cocotb is not None:

    @cocotb.test()
    async def bench_tx(dut):
        await setup(dut)
        for size, n in SIZES.items():
            beats = []
            payload = frame_bytes(size, 0)
            for off in range(0, len(payload), 8):
                chunk = payload[off:off + 8]
                beats.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1,
                              int(off + 8 >= len(payload))))
            total = n * len(beats)
            idx = 0
            valid = False
            starts: list[int] = []
            cycle = 0
            frames0 = int(dut.stat_tx_frames.value)
            while len(starts) < n:
                await RisingEdge(dut.clk)
                cycle += 1
                if valid and int(dut.s_axis_tready.value) & 1:
                    idx += 1
                if idx < total:
                    d, k, lst = beats[idx % len(beats)]
                    dut.s_axis_tdata.value = d
                    dut.s_axis_tkeep.value = k
                    dut.s_axis_tlast.value = lst
                    dut.s_axis_tvalid.value = 1
                    valid = True
                else:
                    dut.s_axis_tvalid.value = 0
                    valid = False
                c = int(dut.xgmii_txc.value)
                if c & 0x11:
                    dv = int(dut.xgmii_txd.value)
                    if c & 1 and dv & 0xFF == 0xFB:
                        starts.append(8 * cycle)
                    elif c & 0x10 and (dv >> 32) & 0xFF == 0xFB:
                        starts.append(8 * cycle + 4)
            await ClockCycles(dut.clk, size // 8 + 200)
            assert int(dut.stat_tx_frames.value) - frames0 == n
            k0 = 2   # skip the store-and-forward start-up
            span = starts[-1] - starts[k0]
            pct = 100.0 * (n - 1 - k0) * (size + 20) / span
            dut._log.info("TX %d B: %.3f %% of 10G (%d bytes for %d frames)", size, pct, span,
                          n - 1 - k0)
            record(f"mac10g_tx_{size}B", round(pct, 3), "% of 10G line rate", 100.0,
                   {"frame_bytes_incl_fcs": size, "frames": n, "clk_mhz": 156.25})

    @cocotb.test()
    async def bench_rx(dut):
        await setup(dut)
        for size, n in SIZES.items():
            frames = [frame_bytes(size, i) for i in range(n)]
            cols = xgmii_columns(frames)
            good0 = int(dut.stat_rx_frames.value)
            lasts: list[int] = []
            cycle = 0
            for d, c in cols:
                await RisingEdge(dut.clk)
                cycle += 1
                dut.xgmii_rxd.value = d
                dut.xgmii_rxc.value = c
                if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tlast.value):
                    lasts.append(cycle)
            dut.xgmii_rxd.value = IDLE_D
            dut.xgmii_rxc.value = 0xFF
            for _ in range(4 * size // 8 + 100):
                await RisingEdge(dut.clk)
                cycle += 1
                if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tlast.value):
                    lasts.append(cycle)
            assert int(dut.stat_rx_frames.value) - good0 == n
            assert len(lasts) == n, f"{len(lasts)} of {n} frames delivered"
            assert int(dut.stat_rx_overflow.value) == 0
            k0 = 2
            span_bytes = 8 * (lasts[-1] - lasts[k0])
            pct = 100.0 * (n - 1 - k0) * (size + 20) / span_bytes
            dut._log.info("RX %d B: %.3f %% of 10G", size, pct)
            record(f"mac10g_rx_{size}B", round(pct, 3), "% of 10G line rate", 100.0,
                   {"frame_bytes_incl_fcs": size, "frames": n, "clk_mhz": 156.25})


def test_bench_mac() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_eth_mac_10g", module="bench_mac",
               test_dir=Path(__file__).parent, parameters={})
