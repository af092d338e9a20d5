# SPDX-License-Identifier: Apache-2.0
"""fabnic_roce_vni alone at DATA_W=64 and 512 (the NIC builds it at 512): per-QP VNI binding.

cocotbext-axi sources/sinks with random valid/ready pauses on all five streams. Frames
are built by scapy (fabnic_tb.roce_layers: RoCEv2 over IPv4/IPv6, 802.1Q, random
opcodes and DestQPs inside and outside the table) plus non-RoCE frames (ARP, UDP to
another port, a runt). The expected result of every frame comes from a Python model of
the rules in docs/nic.md (binding dict written by the test); counters are checked
against the model's counts."""

from __future__ import annotations

import random
from pathlib import Path

from fabnic_tb.runner import run

HERE = Path(__file__).parent
NUM_QP = 16

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from scapy.layers.inet import IP, UDP, IPOption_NOP
    from scapy.layers.l2 import ARP, Ether
    from scapy.packet import Raw

    from fabnic_tb import roce_layers as rl
    from fabnic_tb.axis import axis_sink, axis_source
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


def model_rx(binding: dict[int, int], tunnel_vni: int | None, dqp: int | None) -> str:
    """Decision for one frame: 'pass' or the drop counter's name."""
    if dqp is None:
        return "cnt_drop_not_roce"
    bound = binding.get(dqp) if dqp < NUM_QP else None
    if tunnel_vni is None:
        return "cnt_drop_bound_plain" if bound is not None else "pass"
    if bound is None:
        return "cnt_drop_unbound_tun"
    return "pass" if bound == tunnel_vni else "cnt_drop_vni_mismatch"


if cocotb is not None:
    async def write_binding(dut, qpn: int, vni: int | None) -> None:
        dut.cfg_qpn.value = qpn
        dut.cfg_bound.value = int(vni is not None)
        dut.cfg_vni.value = vni or 0
        dut.cfg_we.value = 1
        await RisingEdge(dut.clk)
        dut.cfg_we.value = 0
        await ClockCycles(dut.clk, 2)
        dut.cfg_rd_qpn.value = qpn
        await ClockCycles(dut.clk, 2)
        if qpn < NUM_QP:
            assert int(dut.cfg_rd_bound.value) == int(vni is not None)
            if vni is not None:
                assert int(dut.cfg_rd_vni.value) == vni

    def win_bytes(dut) -> int:
        """The RX header window (docs/nic.md): ceil(96 / bytes per beat) beats."""
        keep_w = len(dut.s_plain_tkeep)
        return -(-96 // keep_w) * keep_w

    def rx_frame(rng: random.Random, dqp: int, tag: int, win: int) -> tuple[bytes, int | None]:
        """A RoCEv2 frame for DestQP dqp and the DestQP the model sees (None: not RoCE by
        docs/nic.md: an IPv4 fragment, or UDP + BTH not within the header window)."""
        op = rng.choice([rl.SEND_ONLY, rl.WRITE_FIRST, rl.ACK, rl.READ_REQUEST, rl.CNP])
        pl = tag.to_bytes(4, "big") + bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
        if op in (rl.ACK, rl.READ_REQUEST, rl.CNP):
            pl = b""
        vlan = rng.choice([None, None, 5])
        ipv6 = rng.random() < 0.4
        pkt = rl.roce_frame(op, pl, ipv6=ipv6, vlan=vlan, dqpn=dqp, psn=tag)
        ip_len = 40 if ipv6 else 20
        seen: int | None = dqp
        if not ipv6 and rng.random() < 0.3:          # IPv4 options: IHL 6..15
            words = rng.randint(1, 10)
            pkt[IP].options = [IPOption_NOP()] * (4 * words)
            ip_len += 4 * words
        if not ipv6 and rng.random() < 0.1:          # a fragment: MF set or an offset
            if rng.random() < 0.5:
                pkt[IP].flags = "MF"
            else:
                pkt[IP].frag = rng.randint(1, 100)
            seen = None
        if 14 + (4 if vlan is not None else 0) + ip_len + 8 + 12 > win:
            seen = None
        return bytes(pkt), seen

    def other_frame(rng: random.Random, tag: int) -> bytes:
        k = rng.randrange(3)
        if k == 0:
            return bytes(Ether(dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.0.0.9", hwlen=6)) + \
                tag.to_bytes(4, "big")
        if k == 1:
            return bytes(Ether() / IP() / UDP(dport=4790) / Raw(tag.to_bytes(4, "big") * 10))
        return bytes(rl.roce_frame(rl.SEND_ONLY, tag.to_bytes(4, "big") * 10, dqpn=1))[:40]

    @cocotb.test()
    async def binding_rules(dut):
        rng = random.Random(7)
        dut.cfg_we.value = 0
        dut.cfg_rd_qpn.value = 0
        dut.s_tun_vni.value = 0
        dut.s_tx_tqpn.value = 0
        await start_clock_reset(dut)
        src_p = axis_source(dut, "s_plain", seed=1)
        src_t = axis_source(dut, "s_tun", seed=2)
        src_x = axis_source(dut, "s_tx", seed=3)
        sink_rx = axis_sink(dut, "m_rx", seed=4)
        sink_w = axis_sink(dut, "m_wire", seed=5)
        sink_r = axis_sink(dut, "m_rtx", seed=6)
        for _ in range(NUM_QP + 8):
            await RisingEdge(dut.clk)
        assert int(dut.init_done.value) == 1
        # every entry cleared after reset
        for q in range(NUM_QP):
            dut.cfg_rd_qpn.value = q
            await ClockCycles(dut.clk, 2)
            assert int(dut.cfg_rd_bound.value) == 0, q

        binding: dict[int, int] = {}
        for q in range(NUM_QP):
            v = rng.choice([None, None, 100, 200, 0xABCDEF])
            await write_binding(dut, q, v)
            if v is not None:
                binding[q] = v
        await write_binding(dut, NUM_QP + 3, 100)      # no such QP: ignored

        # ---- TX: frames routed by their local QPN
        rtx_vnis: list[int] = []

        async def mon_rtx() -> None:
            first = True
            while True:
                await RisingEdge(dut.clk)
                if int(dut.m_rtx_tvalid.value) and int(dut.m_rtx_tready.value):
                    if first:
                        rtx_vnis.append(int(dut.m_rtx_vni.value))
                    first = bool(int(dut.m_rtx_tlast.value))
        cocotb.start_soon(mon_rtx())
        want_w, want_r = [], []
        for i in range(40):
            q = rng.randrange(NUM_QP)
            f = bytes(rl.roce_frame(rl.SEND_ONLY, bytes([i]) * rng.randint(1, 120), dqpn=50,
                                    psn=i))
            dut.s_tx_tqpn.value = q
            await src_x.send(f)
            await src_x.wait()
            (want_r if q in binding else want_w).append((f, binding.get(q)))
        for f, _ in want_w:
            got = await sink_w.recv()
            assert bytes(got.tdata) == f
        for f, _v in want_r:
            got = await sink_r.recv()
            assert bytes(got.tdata) == f
        await ClockCycles(dut.clk, 2)
        assert rtx_vnis == [v for _, v in want_r]
        assert int(dut.cnt_tx_plain.value) == len(want_w)
        assert int(dut.cnt_tx_tunnel.value) == len(want_r)

        # ---- RX: plain and tunnel sources at the same time, tunnel VNI per batch
        expect: dict[str, int] = {}
        passed_plain: list[bytes] = []
        passed_tun: list[bytes] = []
        win = win_bytes(dut)

        async def feed_plain() -> None:
            for i in range(60):
                if rng.random() < 0.15:
                    f, dqp = other_frame(rng, 1000 + i), None
                else:
                    f, dqp = rx_frame(rng, rng.randrange(NUM_QP + 4), 1000 + i, win)
                d = model_rx(binding, None, dqp)
                expect[d] = expect.get(d, 0) + 1
                if d == "pass":
                    passed_plain.append(f)
                await src_p.send(f)
            await src_p.wait()

        async def feed_tun() -> None:
            for batch in range(6):
                vni = rng.choice([100, 200, 0xABCDEF, 300])
                await src_t.wait()
                dut.s_tun_vni.value = vni
                for i in range(10):
                    tag = 2000 + 10 * batch + i
                    if rng.random() < 0.1:
                        f, dqp = other_frame(rng, tag), None
                    else:
                        f, dqp = rx_frame(rng, rng.randrange(NUM_QP + 4), tag, win)
                    d = model_rx(binding, vni, dqp)
                    expect[d] = expect.get(d, 0) + 1
                    if d == "pass":
                        passed_tun.append(f)
                    await src_t.send(f)
            await src_t.wait()

        t1 = cocotb.start_soon(feed_plain())
        t2 = cocotb.start_soon(feed_tun())
        await t1
        await t2
        total = len(passed_plain) + len(passed_tun)
        got = [bytes((await sink_rx.recv()).tdata) for _ in range(total)]
        await ClockCycles(dut.clk, 200)
        assert sink_rx.empty(), "more frames than the model passes"
        assert [f for f in got if f in set(passed_plain)] == passed_plain
        assert [f for f in got if f in set(passed_tun)] == passed_tun
        assert sorted(got) == sorted(passed_plain + passed_tun)
        assert int(dut.cnt_rx_plain.value) == len(passed_plain)
        assert int(dut.cnt_rx_tunnel.value) == len(passed_tun)
        for name in ("cnt_drop_not_roce", "cnt_drop_bound_plain", "cnt_drop_unbound_tun",
                     "cnt_drop_vni_mismatch"):
            assert int(getattr(dut, name).value) == expect.get(name, 0), (name, expect)
        assert all(expect.get(n, 0) > 0 for n in ("cnt_drop_not_roce", "cnt_drop_bound_plain",
                                                  "cnt_drop_unbound_tun",
                                                  "cnt_drop_vni_mismatch")), expect


def test_roce_vni_64():
    run(toplevel="fabnic_roce_vni", module="test_roce_vni", test_dir=HERE,
        parameters={"DATA_W": 64, "NUM_QP": NUM_QP})


def test_roce_vni_512():
    run(toplevel="fabnic_roce_vni", module="test_roce_vni", test_dir=HERE,
        parameters={"DATA_W": 512, "NUM_QP": NUM_QP})
