# SPDX-License-Identifier: Apache-2.0
"""fabnic_tb_switch: forwarding, RED/ECN marking, tail drop and PFC, checked against
scapy-built packets, zlib CRCs of the generator's known frames, the RED formula and
the IEEE 802.1Qbb frame format (net_models.py)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from net_tb import Captured, read_tap, reset
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

from net_models import (
    binomial_ok,
    fixed16,
    ipv4_checksum,
    pfc_frame,
    prob32,
    red_probability,
    rnd32,
)

N = 4
OVH = 24
SW_MAC = 0x02AA00000000
SEED = 7


def host_mac(i: int) -> str:
    return f"02:00:00:00:00:{i:02x}"


def mac_int(mac: str) -> int:
    return int(mac.replace(":", ""), 16)


def expected_frame(hdr: bytes, index: int, length: int) -> bytes:
    """fabnic_tb_frame_gen frame: header then byte k = (index + k) mod 256."""
    return hdr[:length] + bytes((index + k) & 0xFF for k in range(len(hdr), length))


def frame_index(c: Captured, hdr_len: int) -> int:
    """Generator frame index modulo 256 from the first pattern byte."""
    return (c.head[hdr_len] - hdr_len) & 0xFF


def configure(dut, scale: float) -> None:
    """Defaults: everything off, 1 MB buffer, all links at 50*scale B/cycle."""
    dut.loop_en.value = 0
    dut.rate.value = fixed16(50 * scale)
    dut.ovh.value = OVH
    dut.buf_size.value = 1 << 20
    dut.q_cap.value = 0
    macs = [host_mac(i) for i in range(N)]
    dut.mac_valid.value = (1 << N) - 1
    dut.mac_addr.value = sum(mac_int(m) << (48 * i) for i, m in enumerate(macs))
    dut.mac_port.value = sum(i << (8 * i) for i in range(N))
    dut.dflt_port.value = 0xFFFFFFFF
    dut.ecn_en.value = 0
    dut.kmin.value = 0
    dut.kmax.value = 0
    dut.pmax.value = 0
    dut.seed.value = SEED
    dut.pfc_en.value = 0
    dut.pfc_obey.value = 0
    dut.pfc_prio.value = 3
    dut.xoff.value = 0
    dut.xon.value = 0
    dut.pfc_quanta.value = 0xFFFF
    dut.pfc_refresh.value = 0
    dut.sw_mac.value = SW_MAC
    dut.sample_period.value = 0
    dut.trace_rd_idx.value = 0
    dut.tap_rd_idx.value = 0
    for i in range(N):
        g = dut.g_port[i]
        g.hdr.value = 0
        g.hdr_len.value = 0
        g.len_min.value = 64
        g.len_max.value = 64
        g.gap.value = 0
        g.n_frames.value = 0
        g.start.value = 0
        g.busy_per_256.value = 0
        g.in_rate.value = fixed16(50 * scale)
        g.out_rate.value = fixed16(50 * scale)
        g.in_delay.value = 10
        g.out_delay.value = 10


def set_gen(dut, i: int, hdr: bytes, n: int, lmin: int, lmax: int | None = None) -> None:
    g = dut.g_port[i]
    g.hdr.value = int.from_bytes(hdr.ljust(128, b"\0"), "little")
    g.hdr_len.value = len(hdr)
    g.len_min.value = lmin
    g.len_max.value = lmin if lmax is None else lmax
    g.n_frames.value = n


async def run_gens(dut, ports: list[int], settle: int = 3000) -> None:
    for i in ports:
        dut.g_port[i].start.value = 1
    await RisingEdge(dut.clk)
    for i in ports:
        dut.g_port[i].start.value = 0
    await RisingEdge(dut.clk)
    while any(int(dut.g_port[i].gen.busy.value) for i in ports):
        await ClockCycles(dut.clk, 1000)
    # wait until the switch and links are empty
    idle = 0
    while idle < settle:
        await ClockCycles(dut.clk, 500)
        busy = int(dut.sw.buf_used.value) != 0 or any(
            int(dut.g_port[i].lk_out.o_active.value) or
            int(dut.g_port[i].lk_out.d_wr.value) != int(dut.g_port[i].lk_out.d_rd.value)
            for i in range(N))
        idle = 0 if busy else idle + 500


def cnt(dut, name: str, port: int, width: int = 32) -> int:
    return (int(getattr(dut.sw, name).value) >> (width * port)) & ((1 << width) - 1)


def read_trace(dut) -> list[tuple[int, list[int]]]:
    n = min(int(dut.sw.trace_count.value), int(dut.sw.TRACE_DEPTH.value))
    out = []
    for k in range(n):
        q = int(dut.sw.trace_q[k].value)
        out.append((int(dut.sw.trace_cycle[k].value),
                    [(q >> (32 * p)) & 0xFFFFFFFF for p in range(N)]))
    return out


def check_forwarded(caps: list[Captured], hdr: bytes, what: str) -> None:
    """Every captured frame is the generator's frame (index recovered mod 256, in
    order), intact: whole-frame CRC equals zlib.crc32 of the expected bytes."""
    idx = 0
    for c in caps:
        low = frame_index(c, len(hdr))
        while (idx & 0xFF) != low:
            idx += 1
        assert c.crc == zlib.crc32(expected_frame(hdr, idx, c.length)), f"{what}: frame {idx}"
        idx += 1


if cocotb is not None:

    @cocotb.test()
    async def switch_forwarding(dut):
        """Each generator's frames (random lengths 64..1500) reach exactly the port
        that owns the destination MAC, intact and in order; a frame to an unknown MAC
        with no default port is dropped and counted; random egress back-pressure."""
        await start_clock_reset(dut)
        scale = 1.0 if int(dut.DATA_W.value) == 512 else 0.12
        configure(dut, scale)
        await reset(dut)
        dests = {0: 1, 1: 2, 2: 3, 3: None}
        n = 60
        hdrs = {}
        for i, d in dests.items():
            dst = host_mac(d) if d is not None else "02:00:00:00:00:77"
            hdrs[i] = bytes(Ether(dst=dst, src=host_mac(i), type=0x88B5))
            set_gen(dut, i, hdrs[i], n, 64, 1500)
            dut.g_port[i].busy_per_256.value = 60
        await run_gens(dut, list(dests))
        for i, d in dests.items():
            if d is None:
                assert cnt(dut, "cnt_drop_noroute", i) == n
                continue
            caps = read_tap(dut.g_port[d].tap_e)
            assert len(caps) == n, (i, d, len(caps))
            assert all(c.head[6:12] == hdrs[i][6:12] for c in caps)
            check_forwarded(caps, hdrs[i], f"port {i}->{d}")
            assert int(dut.g_port[d].mon.frames.value) == n
            assert cnt(dut, "cnt_tx_frames", d) == n
        assert int(dut.g_port[0].tap_e.frames.value) == 0
        assert cnt(dut, "cnt_rx_frames", 3) == n

    @cocotb.test()
    async def switch_ecn_red(dut):
        """2:1 incast (IPv4 ECT(0) + IPv6 ECT(1)) plus a Not-ECT IPv4 flow into port 2:
        the marked fraction per queue-depth bucket matches the RED ramp evaluated on
        the sampled queue trace; no marks below Kmin, all above Kmax; marked IPv4
        headers still carry a valid checksum and differ only in ECN/checksum;
        Not-ECT packets are never marked. Exact check too: the queue length at each
        enqueue reconstructed from the taps plus the documented draw
        rnd32(seed, enqueue_index, egress) reproduce every marking decision."""
        await start_clock_reset(dut)
        w512 = int(dut.DATA_W.value) == 512
        scale = 1.0 if w512 else 0.12
        configure(dut, scale)
        kmin, kmax, pmax = 20000, 100000, 0.5
        seed = SEED
        dut.ecn_en.value = 1
        dut.kmin.value = kmin
        dut.kmax.value = kmax
        dut.pmax.value = prob32(pmax)
        period = 2 if w512 else 16
        dut.sample_period.value = period
        await reset(dut)
        length = 512
        h0 = bytes(Ether(dst=host_mac(2), src=host_mac(0)) /
                   IP(src="10.0.0.1", dst="10.0.0.3", tos=0x02, len=length - 14) /
                   UDP(sport=1000, dport=4791, len=length - 34, chksum=0))[:42]
        h1 = bytes(Ether(dst=host_mac(2), src=host_mac(1)) /
                   IPv6(src="fd00::1", dst="fd00::3", tc=0x01, plen=length - 54) /
                   UDP(sport=1001, dport=4791, len=length - 54, chksum=0))[:62]
        h3 = bytes(Ether(dst=host_mac(2), src=host_mac(3)) /
                   IP(src="10.0.0.4", dst="10.0.0.3", tos=0x00, len=length - 14) /
                   UDP(sport=1003, dport=4791, len=length - 34, chksum=0))[:42]
        dut.rate.value = fixed16(40 * scale)
        n = 1500 if w512 else 700
        n3 = n // 10
        set_gen(dut, 0, h0, n, length)
        set_gen(dut, 1, h1, n, length)
        set_gen(dut, 3, h3, n3, length)
        dut.g_port[0].in_rate.value = fixed16(28 * scale)
        dut.g_port[1].in_rate.value = fixed16(28 * scale)
        dut.g_port[3].in_rate.value = fixed16(2.8 * scale)
        await run_gens(dut, [0, 1, 3])
        total = 2 * n + n3
        out = read_tap(dut.g_port[2].tap_e)
        assert len(out) == total and cnt(dut, "cnt_drop_tail", 2) == 0
        # enqueue order: ingress last beats merged by (cycle, port)
        ins = sorted([(c.last, p, c) for p in (0, 1, 3) for c in read_tap(dut.g_port[p].tap_i)],
                     key=lambda t: (t[0], t[1]))
        trace = read_trace(dut)
        tcyc = [t for t, _ in trace]
        # the same samples as text lines (+fabnic_qtrace=qtrace.txt, see test_net_switch)
        lines = (Path(os.environ.get("FABNIC_BUILD_DIR", ".")) / "qtrace.txt").read_text().split("\n")
        assert len(lines) - 1 == int(dut.sw.trace_count.value)
        for (c, q), line in zip(trace, lines, strict=False):
            assert [int(x) for x in line.split()] == [c, *q]
        marks = 0
        buckets: dict[str, list[float]] = {}
        strict_low = strict_high = 0
        # exact queue length at each enqueue: bytes enqueued before it minus bytes whose
        # last beat left the egress up to that cycle (the switch dequeues first)
        q_in = q_out = k_out = 0
        exact_agree = 0
        for j, ((t_enq, port, cin), cout) in enumerate(zip(ins, out, strict=True)):
            while k_out < len(out) and out[k_out].last <= t_enq:
                q_out += out[k_out].length
                k_out += 1
            q_exact = q_in - q_out
            q_in += cin.length
            thr = (prob32(pmax) * (q_exact - kmin)) // (kmax - kmin)
            exact_mark = q_exact > kmin and (q_exact >= kmax or rnd32(seed, j, 2) < thr)
            assert cout.head[6:12] == cin.head[6:12] and cout.crc != 0
            assert frame_index(cout, 42 if port != 1 else 62) == frame_index(
                cin, 42 if port != 1 else 62), "egress order differs from enqueue order"
            if port == 1:
                ecn_in = (cin.head[15] >> 4) & 3
                ecn_out = (cout.head[15] >> 4) & 3
                assert cout.head[:15] == cin.head[:15] and cout.head[16:] == cin.head[16:]
                assert (cout.head[15] & 0xCF) == (cin.head[15] & 0xCF)
            else:
                ecn_in = cin.head[15] & 3
                ecn_out = cout.head[15] & 3
                ip = IP(cout.head[14:34])
                assert ipv4_checksum(cout.head[14:34]) == 0, "IPv4 header checksum broken"
                chk = ip.chksum
                del ip.chksum
                assert IP(bytes(ip)).chksum == chk  # scapy agrees
                assert cout.head[:15] == cin.head[:15] and cout.head[16:24] == cin.head[16:24]
                assert cout.head[26:] == cin.head[26:]
            marked = ecn_out == 3 and ecn_in != 3
            if port == 3:
                assert ecn_out == 0, "Not-ECT packet was marked"
                continue
            assert ecn_out in (ecn_in, 3)
            assert marked == exact_mark, (j, q_exact, marked)
            exact_agree += 1
            marks += marked
            # queue length at enqueue from the sampled trace (linear interpolation)
            if t_enq >= tcyc[-1]:
                continue  # trace memory full: no sample
            k = max(0, _bisect(tcyc, t_enq))
            (c0, q0), (c1, q1) = trace[k], trace[k + 1]
            q = q0[2] + (q1[2] - q0[2]) * (t_enq - c0) / max(1, c1 - c0)
            slack = 2 * length
            if q < kmin - slack:
                strict_low += 1
                assert not marked, f"marked at q={q:.0f} < Kmin"
            elif q > kmax + slack:
                strict_high += 1
                assert marked, f"not marked at q={q:.0f} > Kmax"
            elif kmin + slack < q < kmax - slack:
                b = f"{int((q - kmin) // ((kmax - kmin) / 4))}"
                buckets.setdefault(b, []).append(red_probability(q, kmin, kmax, pmax))
                buckets.setdefault(b + "_m", []).append(float(marked))
        assert marks == cnt(dut, "cnt_ecn_mark", 2) and exact_agree == 2 * n
        assert strict_low > 50 and strict_high > 50
        for b in sorted(k for k in buckets if not k.endswith("_m")):
            ps, ms = buckets[b], buckets[b + "_m"]
            exp = sum(ps)
            sd = sum(p * (1 - p) for p in ps) ** 0.5
            dut._log.info("RED bucket %s: %d frames, marked %d, expected %.1f +- %.1f",
                          b, len(ps), int(sum(ms)), exp, sd)
            assert len(ps) > 30
            assert abs(sum(ms) - exp) <= 4.5 * sd + 0.02 * len(ps), b

    @cocotb.test()
    async def switch_tail_drop(dut):
        """Lossy 2:1 incast into a 64 KB buffer: drops counted on the egress equal
        frames sent minus frames received; the queue never exceeds the buffer;
        delivered frames are intact and in per-source order."""
        await start_clock_reset(dut)
        w512 = int(dut.DATA_W.value) == 512
        scale = 1.0 if w512 else 0.12
        configure(dut, scale)
        buf = 65536
        dut.buf_size.value = buf
        await reset(dut)
        n = 800 if w512 else 250
        hdrs = {i: bytes(Ether(dst=host_mac(2), src=host_mac(i), type=0x88B5)) for i in (0, 1)}
        for i in (0, 1):
            set_gen(dut, i, hdrs[i], n, 1000)
            dut.g_port[i].in_rate.value = fixed16(50 * scale)
        await run_gens(dut, [0, 1])
        received = int(dut.g_port[2].mon.frames.value)
        drops = cnt(dut, "cnt_drop_tail", 2)
        dut._log.info("tail drop: sent %d, received %d, dropped %d", 2 * n, received, drops)
        assert drops > 0 and received + drops == 2 * n
        assert cnt(dut, "cnt_rx_frames", 0) + cnt(dut, "cnt_rx_frames", 1) == 2 * n
        assert cnt(dut, "peak_qlen", 2) <= buf
        caps = read_tap(dut.g_port[2].tap_e)
        for i in (0, 1):
            check_forwarded([c for c in caps if c.head[6:12] == hdrs[i][6:12]], hdrs[i],
                            f"src {i}")
        # binomial sanity: roughly the excess half of the offered load is lost
        assert binomial_ok(drops, 2 * n, 0.5, sigmas=12)

    @cocotb.test()
    async def switch_pfc(dut):
        """Lossless two-hop: host 0 -> port 0 -> egress 2 -> cable -> ingress 3 ->
        egress 1 -> slow link. Ingress 3 crosses XOFF: the switch sends 802.1Qbb PFC
        frames (exact bytes from the spec, decoded with scapy) out of egress 3, which
        arrive on ingress 2 and pause egress 2, so ingress 3 receives nothing until
        the XON; ingress 0 then crosses XOFF and PFC goes to host 0. Nothing is
        dropped and the queue stays within XOFF + PFC round-trip headroom."""
        await start_clock_reset(dut)
        w512 = int(dut.DATA_W.value) == 512
        scale = 1.0 if w512 else 0.12
        configure(dut, scale)
        dut.loop_en.value = 1
        dut.dflt_port.value = 0x01FFFF02  # ingress 0 -> 2, ingress 3 -> 1
        dut.mac_valid.value = 0
        dut.pfc_en.value = 1
        dut.pfc_obey.value = 1
        xoff, xon = 40000, 20000
        dut.xoff.value = xoff
        dut.xon.value = xon
        dut.pfc_refresh.value = 3000
        delay = 250
        for i in range(N):
            dut.g_port[i].out_delay.value = delay
        dut.g_port[1].out_rate.value = fixed16(10 * scale)
        await reset(dut)
        n, length = (600, 1000) if w512 else (200, 1000)
        hdr = bytes(Ether(dst="02:00:00:00:00:55", src=host_mac(0), type=0x88B5))
        set_gen(dut, 0, hdr, n, length)
        await run_gens(dut, [0])
        assert int(dut.g_port[1].mon.frames.value) == n
        for p in range(N):
            assert cnt(dut, "cnt_drop_tail", p) == 0
        check_forwarded(read_tap(dut.g_port[1].tap_e), hdr, "two-hop")
        # PFC frames on egress 3 (towards the first hop) and egress 0 (towards host 0)
        prio = 3
        for port in (3, 0):
            caps = read_tap(dut.g_port[port].tap_e)
            pfc = [c for c in caps if c.head[12:14] == b"\x88\x08"]
            src = (SW_MAC + port).to_bytes(6, "big")
            xoffs = [c for c in pfc if c.head == pfc_frame(src, prio, 0xFFFF)]
            xons = [c for c in pfc if c.head == pfc_frame(src, prio, 0)]
            assert len(xoffs) + len(xons) == len(pfc) and xoffs and xons, port
            assert len(xoffs) == cnt(dut, "cnt_pfc_xoff_tx", port)
            assert len(xons) == cnt(dut, "cnt_pfc_xon_tx", port)
            e = Ether(xoffs[0].head)
            assert e.dst == "01:80:c2:00:00:01" and e.type == 0x8808
            body = bytes(e.payload)
            assert body[0:2] == b"\x01\x01" and body[2:4] == (1 << prio).to_bytes(2, "big")
            assert body[4 + 2 * prio:6 + 2 * prio] == b"\xff\xff" and len(e) == 60
        assert cnt(dut, "cnt_pfc_rx", 2) == int(dut.g_port[2].tap_i.frames.value)
        # ingress 3 silent between an XOFF reaching ingress 2 and the next XON
        ctl = [(c.last, c.head == pfc_frame((SW_MAC + 3).to_bytes(6, "big"), prio, 0))
               for c in read_tap(dut.g_port[2].tap_i)]
        data3 = [c.first for c in read_tap(dut.g_port[3].tap_i)]
        frame_cycles = (length + OVH) / (50 * scale)
        windows = 0
        paused_since = None
        for t, is_xon in ctl:
            if not is_xon and paused_since is None:
                paused_since = t
            elif is_xon and paused_since is not None:
                lo = paused_since + delay + 2 * frame_cycles + 8
                hi = t
                if hi - lo > 500:
                    windows += 1
                    inside = [f for f in data3 if lo <= f < hi]
                    assert not inside, f"ingress 3 received during pause [{lo}, {hi})"
                paused_since = None
        assert windows >= 1
        headroom = 50 * scale * (2 * delay + 40) + 3 * (length + OVH)
        assert cnt(dut, "peak_qlen", 1) <= xoff + headroom, cnt(dut, "peak_qlen", 1)


def _bisect(xs: list[int], x: int) -> int:
    import bisect

    return bisect.bisect_right(xs, x) - 1


@pytest.mark.parametrize("data_w", [512, 64])
def test_net_switch(data_w: int) -> None:
    from fabnic_tb import runner

    here = Path(__file__).parent
    runner.run(toplevel="tb_net_switch", module="test_net_switch", test_dir=here,
               extra_sources=[here / "tb_net_switch.sv"], parameters={"DATA_W": data_w},
               plusargs=["+fabnic_qtrace=qtrace.txt"])
