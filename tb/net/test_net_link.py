# SPDX-License-Identifier: Apache-2.0
"""fabnic_tb_link: serialization rate, propagation delay and every fault injector,
against spec formulas and the Python model in net_models.py."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiStreamFrame
    from net_tb import read_tap, reset

    from fabnic_tb.axis import axis_sink, axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

from net_models import (
    LinkConfig,
    LinkModel,
    binomial_ok,
    fixed16,
    ge_expected,
    link_output,
    prob32,
    runs_of_losses,
    unwrap_indices,
)

OVH = 24


def configure(dut, cfg: LinkConfig, rate: float = 0.0, delay: int = 0, hold_timeout: int = 0,
              use_ext: bool = False) -> None:
    dut.use_ext.value = int(use_ext)
    dut.rate.value = fixed16(rate)
    dut.ovh.value = OVH
    dut.delay.value = delay
    dut.seed.value = cfg.seed
    dut.link_down.value = int(cfg.link_down)
    dut.loss_en.value = int(cfg.loss_en)
    dut.loss_p.value = cfg.loss_p
    dut.ge_en.value = int(cfg.ge_en)
    dut.ge_p_gb.value = cfg.ge_p_gb
    dut.ge_p_bg.value = cfg.ge_p_bg
    dut.ge_loss.value = cfg.ge_loss
    dut.dup_en.value = int(cfg.dup_en)
    dut.dup_p.value = cfg.dup_p
    dut.reorder_en.value = int(cfg.reorder_en)
    dut.reorder_p.value = cfg.reorder_p
    dut.hold_timeout.value = hold_timeout
    dut.biterr_en.value = int(cfg.biterr_en)
    dut.biterr_p.value = cfg.biterr_p
    lst = cfg.drop_list[:8]
    dut.drop_list_en.value = (1 << len(lst)) - 1
    dut.drop_list.value = sum(v << (32 * i) for i, v in enumerate(lst))
    dut.busy_per_256.value = 0
    dut.start.value = 0
    dut.tap_rd_idx.value = 0


async def run_gen(dut, n: int, length: int, hdr: bytes = b"") -> None:
    """Start the SV generator for n frames of `length` bytes and wait until the link
    has delivered everything it is going to deliver."""
    dut.hdr.value = int.from_bytes(hdr.ljust(128, b"\0"), "little")
    dut.hdr_len.value = len(hdr)
    dut.len_min.value = length
    dut.len_max.value = length
    dut.n_frames.value = n
    dut.gap.value = 0
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    await RisingEdge(dut.clk)
    while int(dut.gen.busy.value):
        await ClockCycles(dut.clk, 500)
    await ClockCycles(dut.clk, int(dut.delay.value) + 4000)


def gen_frame(index: int, length: int) -> bytes:
    """fabnic_tb_frame_gen pattern with hdr_len 0: byte k = (index + k) mod 256."""
    return bytes((index + k) & 0xFF for k in range(length))


if cocotb is not None:

    @cocotb.test()
    async def link_rate_and_delay(dut):
        """Throughput = rate within 0.5 % for several rates and frame sizes
        (spec: frame time = (len + 24) / rate); every frame leaves exactly
        delay + 1 cycles after its last beat entered (documented latency)."""
        await start_clock_reset(dut)
        keep_w = int(dut.DATA_W.value) // 8
        rates = (25.0, 50.0) if keep_w == 64 else (2.5, 6.25)
        for rate in rates:
            # 138 B: a 64 B RoCE WRITE frame, whose short last beat must not waste the
            # rest of its cycle's wire time (pacer slack)
            for length, delay in ((64, 250), (138, 5), (1500, 1), (4096, 1000)):
                configure(dut, LinkConfig(seed=3), rate=rate, delay=delay)
                await reset(dut)
                n = max(40, int(3000 * rate / (length + OVH)))
                await run_gen(dut, n, length)
                tin = read_tap(dut.tap_in)
                tout = read_tap(dut.tap_out)
                assert len(tin) == n and len(tout) == n
                span = tin[-1].last - tin[0].last
                measured = (n - 1) * (length + OVH) / span
                assert abs(measured / rate - 1) < 0.005, (rate, length, measured)
                for a, b in zip(tin, tout, strict=True):
                    assert b.first - a.last == delay + 1, (rate, length, a, b)
                    assert b.length == length
                for i, b in enumerate(tout):
                    assert b.crc == zlib.crc32(gen_frame(i, length)), f"frame {i} corrupted"
                dut._log.info("rate %.2f B/cycle, %d B frames: measured %.3f", rate, length,
                              measured)

    @cocotb.test()
    async def link_bernoulli_loss(dut):
        """1 % Bernoulli loss over 20 k frames: the loss count is within 4.5 sigma of
        the binomial expectation, and exactly the frames the model drops are missing."""
        await start_clock_reset(dut)
        n, length = 20000, 64
        cfg = LinkConfig(seed=11, loss_en=True, loss_p=prob32(0.01))
        configure(dut, cfg)
        await reset(dut)
        await run_gen(dut, n, length)
        tout = read_tap(dut.tap_out)
        got = unwrap_indices([c.head[0] for c in tout])
        lost = n - len(got)
        dut._log.info("in %d out %d drops %d tap_in %d tap_out %d", int(dut.link.cnt_frames_in.value),
                      int(dut.link.cnt_frames_out.value), int(dut.link.cnt_drop_loss.value),
                      int(dut.tap_in.frames.value), int(dut.tap_out.frames.value))
        assert binomial_ok(lost, n, 0.01), lost
        model = LinkModel(cfg)
        expect = [i for i in range(n) if model.fate(length).drop is None]
        assert got == expect
        assert int(dut.link.cnt_drop_loss.value) == lost
        assert int(dut.link.cnt_frames_in.value) == n
        dut._log.info("Bernoulli: %d of %d lost (%.3f %%)", lost, n, 100 * lost / n)

    @cocotb.test()
    async def link_gilbert_elliott(dut):
        """Gilbert-Elliott bursty loss: mean loss rate and mean burst length match the
        Markov-chain formulas (pi_bad * h, 1 / p_bg) within statistical tolerance;
        the missing frames are exactly the model's."""
        await start_clock_reset(dut)
        n, length = 20000, 64
        p_gb, p_bg = 0.01, 0.3
        cfg = LinkConfig(seed=5, ge_en=True, ge_p_gb=prob32(p_gb), ge_p_bg=prob32(p_bg),
                         ge_loss=prob32(1.0))
        configure(dut, cfg)
        await reset(dut)
        await run_gen(dut, n, length)
        tout = read_tap(dut.tap_out)
        got = unwrap_indices([c.head[0] for c in tout])
        present = set(got)
        lost = [i not in present for i in range(n)]
        runs = runs_of_losses(lost)
        loss_rate = sum(lost) / n
        mean_burst = sum(runs) / len(runs)
        exp_rate, exp_burst = ge_expected(p_gb, p_bg, 1.0)
        dut._log.info("GE: loss %.4f (exp %.4f), burst %.2f (exp %.2f), %d bursts",
                      loss_rate, exp_rate, mean_burst, exp_burst, len(runs))
        # bursts ~ geometric(p_bg): sd = sqrt(1-p)/p; good-state runs ~ geometric(p_gb)
        sd_burst = (1 - p_bg) ** 0.5 / p_bg / len(runs) ** 0.5
        assert abs(mean_burst - exp_burst) < 4.5 * sd_burst
        assert abs(loss_rate / exp_rate - 1) < 0.35
        model = LinkModel(cfg)
        assert got == [i for i in range(n) if model.fate(length).drop is None]
        assert int(dut.link.cnt_drop_ge.value) == sum(lost)

    @cocotb.test()
    async def link_faults_functional(dut):
        """cocotbext-axi source/sink with random valid/ready: duplication, reordering,
        bit flips and the drop list produce exactly the model's output sequence; a
        flipped frame differs from the original in exactly one bit past byte 14;
        link_down drops everything while asserted."""
        await start_clock_reset(dut)
        cfg = LinkConfig(seed=77, dup_en=True, dup_p=prob32(0.06), reorder_en=True,
                         reorder_p=prob32(0.06), biterr_en=True, biterr_p=prob32(0.06),
                         drop_list=[3, 17, 42])
        configure(dut, cfg, rate=20.0, delay=37, hold_timeout=3000, use_ext=True)
        await reset(dut)
        src = axis_source(dut, "s_axis", seed=21)
        sink = axis_sink(dut, "m_axis", seed=22)
        rng = random.Random(9)
        frames = [bytes([i & 0xFF]) + rng.randbytes(rng.randint(40, 300)) for i in range(150)]
        for f in frames:
            await src.send(AxiStreamFrame(f))
        await src.wait()
        await ClockCycles(dut.clk, 4000)
        got = []
        while not sink.empty():
            got.append(bytes((await sink.recv()).tdata))
        expect, fates = link_output(frames, LinkModel(cfg))
        assert len(got) == len(expect)
        assert got == expect
        n_dup = sum(f.dup for f in fates)
        n_flip = sum(f.flip_bit is not None for f in fates)
        assert n_dup > 0 and n_flip > 0 and sum(f.hold for f in fates if f.drop is None) > 0
        assert int(dut.link.cnt_dup.value) == n_dup
        assert int(dut.link.cnt_biterr.value) == n_flip
        assert int(dut.link.cnt_drop_list.value) == 3
        # independent check of the flips against the originals
        byid = {f[0]: f for f in frames}
        flipped = 0
        for g in got:
            orig = byid[g[0]]
            diff = [(i, a ^ b) for i, (a, b) in enumerate(zip(orig, g, strict=True)) if a != b]
            if diff:
                flipped += 1
                assert len(diff) == 1 and diff[0][0] >= 14 and bin(diff[0][1]).count("1") == 1
        assert flipped >= n_flip
        # link down: every frame dropped and counted
        dut.link_down.value = 1
        for i in range(10):
            await src.send(AxiStreamFrame(bytes([i]) * 80))
        await src.wait()
        await ClockCycles(dut.clk, 500)
        assert sink.empty()
        assert int(dut.link.cnt_drop_down.value) == 10


@pytest.mark.parametrize("data_w", [512, 64])
def test_net_link(data_w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_net_link", module="test_net_link", test_dir=here,
               extra_sources=[here / "tb_net_link.sv"], parameters={"DATA_W": data_w})
