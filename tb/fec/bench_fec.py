# SPDX-License-Identifier: Apache-2.0
"""FEC benchmarks at DATA_W=512, MAX_LEN=4096 (cycles counted in simulation, 250 MHz).

- encoder data-path throughput (4096-byte packets back to back, repair output
  always ready) for several (K, R, D), and the total output (data + repair);
- decoder input throughput with one lost data packet per group;
- decode latency: cycles from the last beat of the packet that makes a group
  decodable to the first / last beat of the recovered packets, for several (K, R)
  with R losses.

A lean per-beat driver is used (cocotbext-axi is too slow at 512 bits); the
recovered payloads are still checked against the original data.
"""

from __future__ import annotations

import random
from pathlib import Path

try:
    import cocotb
    from cocotb.triggers import ReadOnly, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

import fec_model
from fec_tb import Meta, pack_user, unpack_user

PKT = 4096


def beats_of(payload: bytes, keep_w: int) -> list[tuple[int, int, bool]]:
    out = []
    for off in range(0, len(payload), keep_w):
        chunk = payload[off:off + keep_w]
        out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1,
                    off + keep_w >= len(payload)))
    return out


if cocotb is not None:

    class Driver:
        """Drives one AXIS input from a list of (payload, tuser) packets, one beat per
        cycle when ready; counts output beats of the given output prefixes (always
        ready) and records per-cycle events."""

        def __init__(self, dut, outs: list[str]):
            self.dut = dut
            self.outs = outs
            self.keep_w = len(dut.s_axis_tkeep)
            self.cycle = 0
            self.out_beats = dict.fromkeys(outs, 0)
            # per output: (payload, tuser, first-beat cycle, last-beat cycle)
            self.out_frames: dict[str, list[tuple[bytes, int, int, int]]] = {o: [] for o in outs}
            self._cur = {o: bytearray() for o in outs}
            self._start = dict.fromkeys(outs, 0)
            for o in outs:
                getattr(dut, f"{o}_tready").value = 1
            dut.s_axis_tvalid.value = 0

        async def run(self, packets: list[tuple[bytes, int]], idle_after: int = 0,
                      stop=None) -> tuple[int, int, list[int]]:
            """Returns (first input cycle, last input cycle, last-beat cycle per packet)."""
            dut = self.dut
            beats = []
            for p, u in packets:
                for d, k, last in beats_of(p, self.keep_w):
                    beats.append((d, k, last, u))
            i = 0
            first = last = -1
            ends = []
            idle = 0
            while True:
                if i < len(beats):
                    d, k, lst, u = beats[i]
                    dut.s_axis_tdata.value = d
                    dut.s_axis_tkeep.value = k
                    dut.s_axis_tlast.value = int(lst)
                    dut.s_axis_tuser.value = u
                    dut.s_axis_tvalid.value = 1
                else:
                    dut.s_axis_tvalid.value = 0
                await ReadOnly()
                fire = i < len(beats) and int(dut.s_axis_tready.value)
                for o in self.outs:
                    if int(getattr(dut, f"{o}_tvalid").value):
                        self.out_beats[o] += 1
                        data = int(getattr(dut, f"{o}_tdata").value)
                        keep = int(getattr(dut, f"{o}_tkeep").value)
                        nb = bin(keep).count("1")
                        if not self._cur[o]:
                            self._start[o] = self.cycle
                        self._cur[o] += data.to_bytes(self.keep_w, "little")[:nb]
                        if int(getattr(dut, f"{o}_tlast").value):
                            self.out_frames[o].append(
                                (bytes(self._cur[o]), int(getattr(dut, f"{o}_tuser").value),
                                 self._start[o], self.cycle))
                            self._cur[o] = bytearray()
                if fire:
                    if first < 0:
                        first = self.cycle
                    last = self.cycle
                    if beats[i][2]:
                        ends.append(self.cycle)
                    i += 1
                await RisingEdge(dut.clk)
                self.cycle += 1
                if i >= len(beats):
                    idle += 1
                    if idle > idle_after and (stop is None or stop()):
                        dut.s_axis_tvalid.value = 0
                        return first, last, ends

    @cocotb.test()
    async def bench_enc(dut):
        from fabnic_tb.bench import gbps, record
        await start_clock_reset(dut)
        dut.flush.value = 0
        rng = random.Random(1)
        drv = Driver(dut, ["m_axis", "m_axis_rep"])
        for k, r, d in [(8, 2, 2), (16, 4, 1), (4, 1, 4), (32, 4, 1)]:
            dut.cfg_k.value, dut.cfg_r.value, dut.cfg_d.value = k, r, d
            nblk = max(2, 64 // (k * d))
            pays = [rng.randbytes(PKT) for _ in range(k * d * nblk)]
            drv.out_beats = dict.fromkeys(drv.out_beats, 0)
            drv.out_frames = {o: [] for o in drv.outs}
            first, last, ends = await drv.run([(p, 0) for p in pays], idle_after=20,
                                           stop=lambda n=nblk * d * r: len(
                                               drv.out_frames["m_axis_rep"]) >= n)
            reps = drv.out_frames["m_axis_rep"]
            exp = [w for w in fec_model.encode_stream(pays, k, r, d) if w.is_repair]
            assert [x[0] for x in reps] == [w.payload for w in exp], "repair payload mismatch"
            cycles = last - first + 1
            data_gbps = gbps(len(pays) * PKT, cycles)
            end = reps[-1][3]
            total_bytes = (len(pays) + len(reps)) * PKT
            cfg = dict(DATA_W=512, K=k, R=r, D=d, pkt=PKT)
            record("fec_enc_data_throughput", data_gbps, "Gb/s", target=100.0, config=cfg)
            record("fec_enc_repair_latency", reps[0][2] - ends[k * d - 1], "cycles", config=cfg,
                   higher_is_better=False,
                   note="last data beat of a block -> first repair beat (repair port ready)")
            record("fec_enc_total_output", gbps(total_bytes, end - first + 1), "Gb/s",
                   config=cfg, note="data + repair beats over the whole run")
            dut._log.info("enc K%d R%d D%d: data %.1f Gb/s (%d cycles, %d packets)", k, r, d,
                          data_gbps, cycles, len(pays))

    @cocotb.test()
    async def bench_dec(dut):
        from fabnic_tb.bench import gbps, record
        await start_clock_reset(dut)
        dut.flush.value = 0
        dut.clr_valid.value = 0
        dut.clr_src.value = 0
        rng = random.Random(2)
        drv = Driver(dut, ["m_axis"])

        def user(w: fec_model.WirePacket) -> int:
            return pack_user(Meta(w.gid, w.idx, w.cnt, w.coded_len, w.is_repair))

        gid0 = 0
        # throughput: K=8, R=2, D=2, one lost data packet per group
        k, r, d = 8, 2, 2
        dut.cfg_k.value = k
        nblk = 4
        pays = [rng.randbytes(PKT) for _ in range(k * d * nblk)]
        wire = fec_model.encode_stream(pays, k, r, d)
        lost = set()
        kept = []
        for w in wire:
            if not w.is_repair and w.idx == (w.gid * 3) % k:
                lost.add((w.gid, w.idx))
                continue
            kept.append(w)
        orig = {fec_model.assign(n, k, d): p for n, p in enumerate(pays)}
        first, last, _ = await drv.run([(w.payload, user(w)) for w in kept], idle_after=20,
                                       stop=lambda: len(drv.out_frames["m_axis"]) >= len(lost))
        for data, u, _c0, _c1 in drv.out_frames["m_axis"]:
            m = unpack_user(u)
            assert data == orig[(m.gid, m.idx)], f"recovered {m} wrong"
        in_bytes = sum(len(w.payload) for w in kept)
        cyc = last - first + 1
        cfg = dict(DATA_W=512, K=k, R=r, D=d, pkt=PKT, loss="1 data packet per group")
        record("fec_dec_input_throughput", gbps(in_bytes, cyc), "Gb/s", target=100.0, config=cfg)
        dut._log.info("dec K%d R%d D%d: input %.1f Gb/s", k, r, d, gbps(in_bytes, cyc))
        gid0 = wire[-1].gid + 1

        # latency: one group, R data packets lost, the last repair completes it
        for k, r in [(4, 1), (8, 2), (16, 4), (32, 4)]:
            dut.cfg_k.value = k
            pays = [rng.randbytes(PKT) for _ in range(k)]
            reps = fec_model.encode_group(pays, r, gid0)
            lost_idx = sorted(rng.sample(range(k), r))
            pk = [(p, pack_user(Meta(gid0, i, k, 0, False))) for i, p in enumerate(pays)
                  if i not in lost_idx]
            pk += [(x.payload, pack_user(Meta(gid0, x.row, x.cnt, x.coded_len, True)))
                   for x in reps]
            drv.out_frames["m_axis"] = []
            _, last, _ = await drv.run(pk, idle_after=10,
                                       stop=lambda n=r: len(drv.out_frames["m_axis"]) >= n)
            outs = drv.out_frames["m_axis"]
            assert [x[0] for x in outs] == [pays[i] for i in lost_idx], "recovery mismatch"
            first_out = outs[0][2]
            cfg = dict(DATA_W=512, K=k, R=r, losses=r, pkt=PKT)
            record("fec_dec_latency_first_beat", first_out - last, "cycles", config=cfg,
                   higher_is_better=False,
                   note="last needed input beat -> first recovered beat on m_axis")
            record("fec_dec_latency_all_recovered", outs[-1][3] - last, "cycles", config=cfg,
                   higher_is_better=False, note="last needed input beat -> last recovered beat")
            dut._log.info("dec K%d R%d: first beat after %d, all after %d cycles", k, r,
                          first_out - last, outs[-1][3] - last)
            gid0 += 1


def test_bench_fec_enc() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_fec_enc", module="bench_fec", test_dir=Path(__file__).parent,
               testcase="bench_enc", tag="bench512",
               parameters=dict(DATA_W=512, MAX_K=32, MAX_R=4, MAX_D=4, MAX_LEN=PKT))


def test_bench_fec_dec() -> None:
    from fabnic_tb import runner

    runner.run(toplevel="fabnic_fec_dec", module="bench_fec", test_dir=Path(__file__).parent,
               testcase="bench_dec", tag="bench512",
               parameters=dict(DATA_W=512, MAX_K=32, MAX_R=4, NGROUP=8, MAX_LEN=PKT))
