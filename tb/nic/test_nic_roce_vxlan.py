# SPDX-License-Identifier: Apache-2.0
"""RoCE over VXLAN on the complete NIC (fabnic_nic): two NICs joined by links
(tb_nic_pair.sv), SystemVerilog host memories, the fw driver (fabnic.nic + verbs)
over AXI-Lite.

Oracles: expected memory images written by the test (Python), scapy re-parsing of
every frame on the wire (outer Ethernet/IPv4/UDP 4789/VXLAN, outer IPv4 and UDP
checksums recomputed by scapy), the inner RoCE ICRC recomputed from the IBTA masking
rules (fabnic_tb.roce_layers.icrc_reference, zlib), and frame counts from the taps
against the NIC's counters.
"""

from __future__ import annotations

from pathlib import Path

from fabnic_tb.runner import run

HERE = Path(__file__).parent
PARAMS = {"NUM_QP": 64, "NUM_CQ": 16, "NUM_MR": 64}

try:
    import cocotb
    from cocotb.triggers import ClockCycles
    from net.net_tb import read_tap
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw

    from fabnic import nic as fnic
    from fabnic import verbs
    from fabnic.verbs import Access, RecvWR, SendWR, WrOpcode
    from fabnic.virtio import VirtioNet
    from fabnic.vswitch import Tunnel, set_pair_vni
    from fabnic_tb import roce_layers as rl
    from fabnic_tb.clock import start_clock_reset
    from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
    from fabnic_tb.sv_host_memory import SvHostMemory
except ImportError:
    cocotb = None

ACC = None
ENGINE = {"a": ("02:00:00:00:00:0a", "10.0.0.1"), "b": ("02:00:00:00:00:0b", "10.0.0.2")}
PORT = {"a": ("02:00:00:00:01:0a", "192.168.0.1"), "b": ("02:00:00:00:01:0b", "192.168.0.2")}
VM = {"a": "52:54:00:00:00:0a", "b": "52:54:00:00:00:0b"}    # virtio guests
LINE_RATE = 50 << 16    # 100 Gb/s at 250 MHz, bytes/cycle 16.16


if cocotb is not None:
    ACC = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC

    class Env:
        def __init__(self, dut, engine: dict | None = None, port: dict | None = None) -> None:
            """``engine``/``port``: the RoCE engines' and the underlay ports' (MAC, IP)
            per NIC (default ENGINE / PORT, IPv4)."""
            self.dut = dut
            self.engine = engine or ENGINE
            self.port = port or PORT
            size = 1 << int(dut.MEM_AW.value)
            self.mem = {s: SvHostMemory(getattr(dut, f"u_mem_{s}"), size) for s in "ab"}
            self.bus = {s: SimAxiLiteBus(dut, f"{s}_s_axil") for s in "ab"}
            self.nic: dict[str, fnic.Nic] = {}

        async def start(self) -> None:
            dut = self.dut
            dut.mem_latency.value = 20
            dut.ce_mark_ab.value = 0
            dut.inj_tvalid.value = 0
            for L in ("lab", "lba"):
                getattr(dut, f"{L}_rate").value = LINE_RATE
                getattr(dut, f"{L}_delay").value = 100
                getattr(dut, f"{L}_link_down").value = 0
            await start_clock_reset(dut)
            eng, port = self.engine, self.port
            for s, o in (("a", "b"), ("b", "a")):
                mac, ip = eng[s]
                self.nic[s] = await run_driver(fnic.open_nic, self.bus[s], self.mem[s],
                                               mac=mac, ip=ip)
                tun = Tunnel(port[s][1], port[o][1], port[s][0], port[o][0])
                for slot, vni in ((0, 100), (1, 200)):
                    await run_driver(self.nic[s].add_roce_tenant, vni, vni_slot=slot,
                                     tunnel_slot=0, tunnel=tun, peer_macs=[eng[o][0]])

        async def qp(self, s: str, vni: int | None):
            ctx = self.nic[s].ctx

            def mk():
                pd = ctx.alloc_pd()
                cq = ctx.create_cq(64)
                qp = ctx.create_qp(pd, cq, cq, sq_depth=16, rq_depth=16)
                if vni is not None:
                    ctx.bind_qp_vni(qp, vni)
                return pd, cq, qp
            return await run_driver(mk)

        async def connect(self, vni_a: int | None, vni_b: int | None, *, timeout: int = 8,
                          retry_cnt: int = 7, mtu: int = 1024, dcqcn: bool = False):
            pda, cqa, qa = await self.qp("a", vni_a)
            pdb, cqb, qb = await self.qp("b", vni_b)

            def up(ctx, qp, peer, peer_qpn):
                ctx.modify_qp(qp, verbs.QpState.INIT, access=ACC, dcqcn=dcqcn)
                ctx.modify_qp(qp, verbs.QpState.RTR, dest_qpn=peer_qpn, rq_psn=0, path_mtu=mtu,
                              dest_mac=self.engine[peer][0], dest_ip=self.engine[peer][1])
                ctx.modify_qp(qp, verbs.QpState.RTS, sq_psn=0, timeout=timeout,
                              retry_cnt=retry_cnt, rnr_retry=7)
            await run_driver(up, self.nic["a"].ctx, qa, "b", qb.qpn)
            await run_driver(up, self.nic["b"].ctx, qb, "a", qa.qpn)
            return (pda, cqa, qa), (pdb, cqb, qb)

        def frames(self, s: str) -> list[bytes]:
            tap = self.dut.u_tap_a if s == "a" else self.dut.u_tap_b
            caps = read_tap(tap)
            for c in caps:
                assert not c.bad and len(c.head) == c.length, f"{s}: frame cut or bad"
            return [c.head for c in caps]

        async def counters(self, s: str) -> dict[str, int]:
            return await run_driver(self.nic[s].counters)

    def classify(s: str, f: bytes) -> tuple[int | None, int, bytes]:
        """Check one wire frame NIC `s` sent; returns (VNI or None for plain RoCE,
        inner BTH DestQP, inner frame)."""
        o = "b" if s == "a" else "a"
        p = Ether(f)
        assert IP in p and UDP in p, f"{s}: not IPv4/UDP: {f.hex()}"
        want = IP(bytes(p[IP]))
        del want.chksum
        assert IP(bytes(want)).chksum == p[IP].chksum, f"{s}: IPv4 header checksum"
        vni = None
        inner = f
        if p[UDP].dport == 4789:
            assert p.dst == PORT[o][0] and p.src == PORT[s][0], f"{s}: outer MACs {p.summary()}"
            assert p[IP].src == PORT[s][1] and p[IP].dst == PORT[o][1], f"{s}: outer IPs"
            assert 49152 <= p[UDP].sport <= 65535, f"{s}: outer UDP source port"
            assert p[UDP].len == len(bytes(p[UDP])), f"{s}: outer UDP length"
            assert p[UDP].chksum != 0, f"{s}: outer UDP checksum not computed"
            q = Ether(f)
            del q[UDP].chksum
            assert Ether(bytes(q))[UDP].chksum == p[UDP].chksum, f"{s}: outer UDP checksum"
            assert VXLAN in p and p[VXLAN].flags & 0x08, f"{s}: VXLAN I flag"
            vni = int(p[VXLAN].vni)
            inner = bytes(p[VXLAN].payload)
            p = Ether(inner)
        assert UDP in p and p[UDP].dport == 4791, f"{s}: inner frame is not RoCEv2"
        assert p.dst == ENGINE[o][0] and p.src == ENGINE[s][0], f"{s}: RoCE MACs"
        assert p[IP].src == ENGINE[s][1] and p[IP].dst == ENGINE[o][1], f"{s}: RoCE IPs"
        assert inner[-4:] == rl.icrc_reference(inner[:-4]), f"{s}: ICRC wrong {inner.hex()}"
        return vni, int(p[rl.BTH].dqpn), inner

    def pattern(seed: int, n: int) -> bytes:
        return bytes((seed * 37 + i * 13 + (i >> 8)) & 0xFF for i in range(n))

    @cocotb.test()
    async def tunnel_and_plain(dut):
        """QP pair 1 bound to VNI 100 on both NICs and QP pair 2 unbound run WRITE, READ
        and SEND at the same time: memory exact, every frame of pair 1 is VXLAN VNI 100
        (outer headers and checksums by scapy, inner ICRC), every frame of pair 2 plain
        RoCEv2, counters = frames on the wire."""
        env = Env(dut)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        t1a, t1b = await env.connect(100, 100)
        t2a, t2b = await env.connect(None, None)
        assert await run_driver(a.binding, t1a[2].qpn) == 100
        assert await run_driver(a.binding, t2a[2].qpn) is None
        ma, mb = env.mem["a"], env.mem["b"]
        size = 16384
        jobs = []
        for k, (ta, tb) in enumerate(((t1a, t1b), (t2a, t2b))):
            pda, cqa, qa = ta
            pdb, cqb, qb = tb
            la = await run_driver(ma.alloc, size, 4096)
            lb = await run_driver(mb.alloc, size, 4096)
            src_a, src_b = pattern(1 + k, 8192), pattern(11 + k, 8192)
            await run_driver(ma.write, la, src_a + bytes(8192))
            await run_driver(mb.write, lb, src_b + bytes(8192))
            mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
            n_w, n_r, n_s = 3000 - 100 * k, 2500 + 64 * k, 1500 + 7 * k
            await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=50, addr=lb + 12288,
                                                          length=2048, lkey=mrb.lkey)])
            wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=1, local_addr=la, length=n_w,
                          lkey=mra.lkey, remote_addr=lb + 8192, rkey=mrb.rkey),
                   SendWR(WrOpcode.RDMA_READ, wr_id=2, local_addr=la + 8192, length=n_r,
                          lkey=mra.lkey, remote_addr=lb, rkey=mrb.rkey),
                   SendWR(WrOpcode.SEND, wr_id=3, local_addr=la + 4096, length=n_s,
                          lkey=mra.lkey)]
            await run_driver(a.ctx.post_send, qa, wrs)
            jobs.append((cqa, cqb, la, lb, src_a, src_b, n_w, n_r, n_s))
        for cqa, cqb, la, lb, src_a, src_b, n_w, n_r, n_s in jobs:
            wcs = await run_driver(a.ctx.wait_cq, cqa, 3, 20000)
            assert [w.wr_id for w in wcs] == [1, 2, 3] and all(w.ok for w in wcs), wcs
            wr = await run_driver(b.ctx.wait_cq, cqb, 1, 20000)
            assert wr[0].ok and wr[0].wr_id == 50 and wr[0].byte_len == n_s, wr
            got_b = await run_driver(mb.read, lb + 8192, n_w)
            assert got_b == src_a[:n_w], "WRITE data at B"
            got_a = await run_driver(ma.read, la + 8192, n_r)
            assert got_a == src_b[:n_r], "READ data at A"
            got_s = await run_driver(mb.read, lb + 12288, n_s)
            assert got_s == src_a[4096:4096 + n_s], "SEND data at B"
        await ClockCycles(dut.clk, 2000)     # last ACKs on the wire

        bound = {t1a[2].qpn, t1b[2].qpn}
        plain = {t2a[2].qpn, t2b[2].qpn}
        seen: dict[str, dict[str, int]] = {}
        for s in "ab":
            n = {"vxlan": 0, "plain": 0}
            frames = env.frames(s)
            sports: set[int] = set()
            for f in frames:
                vni, dqp, _ = classify(s, f)
                if vni is None:
                    assert dqp in plain, f"{s}: plain frame for QP {dqp}"
                    n["plain"] += 1
                else:
                    assert vni == 100 and dqp in bound, f"{s}: VNI {vni} frame for QP {dqp}"
                    n["vxlan"] += 1
                    sports.add(Ether(f)[UDP].sport)
            # one QP = one inner flow = one outer source port (one ECMP path, docs/vxlan.md)
            assert len(sports) == 1, sports
            assert n["vxlan"] >= 4 and n["plain"] >= 4, n
            seen[s] = n
            c = await env.counters(s)
            assert c["tx_wire"] == len(frames), c
            assert c["tx_tunnel"] == n["vxlan"] and c["tx_plain"] == n["plain"], (c, n)
        for s, o in (("a", "b"), ("b", "a")):
            c = await env.counters(s)
            assert c["rx_wire_vxlan"] == seen[o]["vxlan"] == c["rx_tunnel"], c
            assert c["rx_wire_roce"] == seen[o]["plain"] == c["rx_plain"], c
            for d in ("drop_vni_mismatch", "drop_unbound_tun", "drop_bound_plain",
                      "drop_not_roce", "rx_wire_other"):
                assert c[d] == 0, (s, d, c)
            vs = await run_driver(env.nic[s].vswitch.counters)
            assert vs["rx_roce"] == seen[o]["vxlan"] and vs["tx_out"] == seen[s]["vxlan"], vs
        dut._log.info("frames on the wire: %s", seen)

    ENGINE6 = {"a": ("02:00:00:00:00:0a", "fd00::a"), "b": ("02:00:00:00:00:0b", "fd00::b")}
    PORT6 = {"a": ("02:00:00:00:01:0a", "fd01::1"), "b": ("02:00:00:00:01:0b", "fd01::2")}

    def classify6(s: str, f: bytes) -> tuple[int | None, int]:
        """One wire frame of NIC ``s`` on the IPv6 underlay: outer Ethernet/IPv6/UDP
        4789/VXLAN (the UDP checksum, mandatory over IPv6, recomputed by scapy) around an
        inner RoCEv2 frame over IPv6 (ICRC from the masking rules), or a plain IPv6
        RoCEv2 frame. Returns (VNI or None, inner BTH DestQP)."""
        import ipaddress

        from scapy.layers.inet6 import IPv6

        def same(a: str, b: str) -> bool:
            return ipaddress.ip_address(a) == ipaddress.ip_address(b)

        o = "b" if s == "a" else "a"
        p = Ether(f)
        assert IPv6 in p and IP not in p and UDP in p, f"{s}: not IPv6/UDP: {f[:80].hex()}"
        vni, inner = None, f
        if p[UDP].dport == 4789:
            assert p.dst == PORT6[o][0] and p.src == PORT6[s][0], f"{s}: outer MACs"
            assert same(p[IPv6].src, PORT6[s][1]) and same(p[IPv6].dst, PORT6[o][1]), \
                f"{s}: outer IPs {p[IPv6].src} -> {p[IPv6].dst}"
            assert p[IPv6].nh == 17 and p[IPv6].plen == len(bytes(p[UDP])), f"{s}: IPv6 hdr"
            assert p[UDP].len == len(bytes(p[UDP])), f"{s}: outer UDP length"
            assert p[UDP].chksum != 0, f"{s}: outer UDP checksum 0 over IPv6"
            q = Ether(f)
            del q[UDP].chksum
            assert Ether(bytes(q))[UDP].chksum == p[UDP].chksum, f"{s}: outer UDP checksum"
            assert VXLAN in p and p[VXLAN].flags & 0x08, f"{s}: VXLAN I flag"
            vni = int(p[VXLAN].vni)
            inner = bytes(p[VXLAN].payload)
            p = Ether(inner)
        assert IPv6 in p and UDP in p and p[UDP].dport == 4791, f"{s}: inner not RoCEv2/IPv6"
        assert p.dst == ENGINE6[o][0] and p.src == ENGINE6[s][0], f"{s}: RoCE MACs"
        assert same(p[IPv6].src, ENGINE6[s][1]) and same(p[IPv6].dst, ENGINE6[o][1]), \
            f"{s}: RoCE IPs"
        assert inner[-4:] == rl.icrc_reference(inner[:-4]), f"{s}: ICRC wrong"
        return vni, int(p[rl.BTH].dqpn)

    @cocotb.test()
    async def ipv6_underlay(dut):
        """RoCEv2 over IPv6 inside VXLAN over an IPv6 underlay on the complete NIC: QP
        pair 1 bound to VNI 100, pair 2 plain, WRITE, READ and SEND on both at once.
        Memory exact; every frame of pair 1 is outer IPv6/UDP 4789/VXLAN 100 between the
        two underlay addresses with a correct UDP checksum, every frame of pair 2 plain
        IPv6 RoCEv2 (scapy); counters = frames on the wire."""
        env = Env(dut, engine=ENGINE6, port=PORT6)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        t1a, t1b = await env.connect(100, 100)
        t2a, t2b = await env.connect(None, None)
        ma, mb = env.mem["a"], env.mem["b"]
        size = 16384
        jobs = []
        for k, (ta, tb) in enumerate(((t1a, t1b), (t2a, t2b))):
            pda, cqa, qa = ta
            pdb, cqb, qb = tb
            la = await run_driver(ma.alloc, size, 4096)
            lb = await run_driver(mb.alloc, size, 4096)
            src_a, src_b = pattern(21 + k, 8192), pattern(31 + k, 8192)
            await run_driver(ma.write, la, src_a + bytes(8192))
            await run_driver(mb.write, lb, src_b + bytes(8192))
            mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)
            n_w, n_r, n_s = 2900 + 33 * k, 2100 + 5 * k, 1300 + 9 * k
            await run_driver(b.ctx.post_recv, qb, [RecvWR(wr_id=60, addr=lb + 12288,
                                                          length=2048, lkey=mrb.lkey)])
            wrs = [SendWR(WrOpcode.RDMA_WRITE, wr_id=1, local_addr=la, length=n_w,
                          lkey=mra.lkey, remote_addr=lb + 8192, rkey=mrb.rkey),
                   SendWR(WrOpcode.RDMA_READ, wr_id=2, local_addr=la + 8192, length=n_r,
                          lkey=mra.lkey, remote_addr=lb, rkey=mrb.rkey),
                   SendWR(WrOpcode.SEND, wr_id=3, local_addr=la + 4096, length=n_s,
                          lkey=mra.lkey)]
            await run_driver(a.ctx.post_send, qa, wrs)
            jobs.append((cqa, cqb, la, lb, src_a, src_b, n_w, n_r, n_s))
        for cqa, cqb, la, lb, src_a, src_b, n_w, n_r, n_s in jobs:
            wcs = await run_driver(a.ctx.wait_cq, cqa, 3, 20000)
            assert [w.wr_id for w in wcs] == [1, 2, 3] and all(w.ok for w in wcs), wcs
            wr = await run_driver(b.ctx.wait_cq, cqb, 1, 20000)
            assert wr[0].ok and wr[0].wr_id == 60 and wr[0].byte_len == n_s, wr
            assert await run_driver(mb.read, lb + 8192, n_w) == src_a[:n_w], "WRITE at B"
            assert await run_driver(ma.read, la + 8192, n_r) == src_b[:n_r], "READ at A"
            assert await run_driver(mb.read, lb + 12288, n_s) == src_a[4096:4096 + n_s], \
                "SEND at B"
        await ClockCycles(dut.clk, 2000)     # last ACKs on the wire
        bound = {t1a[2].qpn, t1b[2].qpn}
        plain = {t2a[2].qpn, t2b[2].qpn}
        seen: dict[str, dict[str, int]] = {}
        for s in "ab":
            n = {"vxlan": 0, "plain": 0}
            frames = env.frames(s)
            for f in frames:
                vni, dqp = classify6(s, f)
                if vni is None:
                    assert dqp in plain, f"{s}: plain frame for QP {dqp}"
                    n["plain"] += 1
                else:
                    assert vni == 100 and dqp in bound, f"{s}: VNI {vni} frame for QP {dqp}"
                    n["vxlan"] += 1
            assert n["vxlan"] >= 4 and n["plain"] >= 4, n
            seen[s] = n
            c = await env.counters(s)
            assert c["tx_wire"] == len(frames), c
            assert c["tx_tunnel"] == n["vxlan"] and c["tx_plain"] == n["plain"], (c, n)
        for s, o in (("a", "b"), ("b", "a")):
            c = await env.counters(s)
            assert c["rx_wire_vxlan"] == seen[o]["vxlan"] == c["rx_tunnel"], c
            assert c["rx_wire_roce"] == seen[o]["plain"] == c["rx_plain"], c
            for d in ("drop_vni_mismatch", "drop_unbound_tun", "drop_bound_plain",
                      "drop_not_roce", "rx_wire_other"):
                assert c[d] == 0, (s, d, c)
        dut._log.info("IPv6 underlay, frames on the wire: %s", seen)

    @cocotb.test()
    async def ce_over_vxlan(dut):
        """DCQCN across a tunnel (RFC 6040 normal mode both ways). A's QP on VNI 100
        (DCQCN on) writes to B while a switch stand-in marks A's outer IPv4 ECT frames
        CE: A's encap copied the inner ECT outward (frames get marked), B's decap copies
        CE inward (vSwitch ce_marked), B's notification point answers with CNPs that
        leave B inside VXLAN VNI 100 addressed to A's QP (scapy), A's reaction point
        counts them and cuts the QP's rate below the line (cc qp_rc), and the data
        arrives intact."""
        env = Env(dut)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        line = 100_000 << 12
        for s in "ab":
            for reg, val in (("alpha_period", 0), ("timer_period", 0), ("byte_counter", 0),
                             ("rate_line", line), ("rate_init", line),
                             ("cnp_interval", 1 << 20)):
                await run_driver(env.nic[s].ctx.dev.write, "cc", reg, val)
        (pda, cqa, qa), (pdb, cqb, qb) = await env.connect(100, 100, dcqcn=True)
        ma, mb = env.mem["a"], env.mem["b"]
        size, n = 65536, 4
        la = await run_driver(ma.alloc, size, 4096)
        lb = await run_driver(mb.alloc, size, 4096)
        src = pattern(7, size)
        await run_driver(ma.write, la, src)
        mra = await run_driver(a.ctx.reg_mr, pda, la, size, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, size, ACC)

        async def rate_of(ctx, qp):
            return (await run_driver(ctx.dcqcn_state, qp))[0]

        assert await rate_of(a.ctx, qa) == line
        vs0 = await run_driver(b.vswitch.counters)
        ca0, cb0 = await env.counters("a"), await env.counters("b")
        ea0 = await run_driver(a.ctx.counters)
        eb0 = await run_driver(b.ctx.counters)
        dut.ce_mark_ab.value = 1
        chunk = size // n
        await run_driver(a.ctx.post_send, qa, [
            SendWR(WrOpcode.RDMA_WRITE, wr_id=10 + i, local_addr=la + i * chunk, length=chunk,
                   lkey=mra.lkey, remote_addr=lb + i * chunk, rkey=mrb.rkey)
            for i in range(n)])
        wcs = await run_driver(a.ctx.wait_cq, cqa, n, 40000)
        assert all(w.ok for w in wcs) and [w.wr_id for w in wcs] == list(range(10, 10 + n))
        dut.ce_mark_ab.value = 0
        assert await run_driver(mb.read, lb, size) == src, "WRITE data at B"
        await ClockCycles(dut.clk, 2000)
        marked = int(dut.ce_marked_ab.value)
        vs1 = await run_driver(b.vswitch.counters)
        ea1 = await run_driver(a.ctx.counters)
        eb1 = await run_driver(b.ctx.counters)
        cnp_tx = await run_driver(b.ctx.dev.read, "cc", "cnp_tx")
        rc = await rate_of(a.ctx, qa)
        cnps = 0
        for f in env.frames("b"):
            vni, dqp, inner = classify("b", f)
            if Ether(inner)[rl.BTH].opcode == rl.CNP:
                assert vni == 100 and dqp == qa.qpn, (vni, dqp)
                cnps += 1
        dut._log.info("CE marked on the wire %d, decap CE inward %d, CNPs B -> A %d "
                      "(cc.cnp_tx %d), A rx_cnp +%d, A's rate %d of %d", marked,
                      vs1["ce_marked"] - vs0["ce_marked"], cnps, cnp_tx,
                      ea1["rx_cnp"] - ea0["rx_cnp"], rc, line)
        assert marked > 0, "no outer ECT frame: the encap did not copy ECT outward"
        assert vs1["ce_marked"] - vs0["ce_marked"] == marked, (vs0, vs1, marked)
        assert cnps >= 1 and cnp_tx >= 1, (cnps, cnp_tx)
        assert eb1["tx_cnp"] - eb0["tx_cnp"] == cnps, (eb0, eb1)
        assert ea1["rx_cnp"] - ea0["rx_cnp"] == cnps, (ea0, ea1)
        # DCQCN (Zhu et al., SIGCOMM 2015): Rc <- Rc (1 - alpha / 2), alpha = 1 here, one
        # CNP (cnp_interval far above the run): the line rate halved
        assert cnps == 1 and rc == line // 2, f"A's rate {rc}, CNPs {cnps}"
        c1 = await env.counters("b")
        assert c1["rx_tunnel"] > cb0["rx_tunnel"] and c1["drop_bound_plain"] == 0, c1
        assert (await env.counters("a"))["rx_tunnel"] > ca0["rx_tunnel"]

    @cocotb.test()
    async def other_wire_frames(dut):
        """Frames that are neither RoCEv2 nor VXLAN (ARP, IPv4 UDP to other ports, TCP,
        ICMPv6, an IPv4 fragment of a UDP 4791 datagram, a non-IP EtherType) injected
        into B's wire between the link's frames while a bound and a plain QP pair run
        WRITEs: B counts each in rx_wire_other (and nothing else moves the RoCE and VXLAN
        wire counters), the vnic path drops each once (vSwitch drop_outer), the RoCE
        engine never sees them, and the traffic is unaffected."""
        from cocotbext.axi import AxiStreamBus, AxiStreamSource
        from scapy.layers.inet import ICMP, TCP
        from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6
        from scapy.layers.l2 import ARP

        env = Env(dut)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        bmac, bip = ENGINE["b"]
        eth = Ether(dst=bmac, src="02:00:00:00:77:01")
        corpus = [
            bytes(eth / ARP(pdst=bip, psrc="10.0.0.77")),
            bytes(eth / IP(src="10.0.0.77", dst=bip) / UDP(sport=1234, dport=53) / Raw(b"q" * 30)),
            bytes(eth / IP(src="10.0.0.77", dst=bip) / TCP(sport=1234, dport=4791) / Raw(b"t" * 60)),
            bytes(eth / IP(src="10.0.0.77", dst=bip) / ICMP() / Raw(b"p" * 200)),
            bytes(eth / IPv6(src="fd00::77", dst="fd00::b") / ICMPv6EchoRequest(data=b"e" * 90)),
            bytes(eth / IP(src="10.0.0.77", dst=bip, flags="MF", frag=0)
                  / UDP(sport=5000, dport=4791) / Raw(b"f" * 300)),
            bytes(eth / IP(src="10.0.0.77", dst=bip, frag=40) / Raw(b"g" * 100)),
            bytes(Ether(dst=bmac, src="02:00:00:00:77:01", type=0x88B5) / Raw(b"x" * 46)),
            bytes(eth / IP(src="10.0.0.77", dst=bip) / UDP(sport=4789, dport=4790) / Raw(b"v" * 64)),
        ]
        corpus = [f + bytes(max(0, 60 - len(f))) for f in corpus]
        reps = 3
        inj = AxiStreamSource(AxiStreamBus.from_prefix(dut, "inj"), dut.clk, dut.rst)
        inj.log.setLevel("WARNING")
        t1, t2 = await env.connect(100, 100), await env.connect(None, None)
        ma, mb = env.mem["a"], env.mem["b"]
        jobs = []
        for k, ((pda, cqa, qa), (pdb, _cqb, _qb)) in enumerate((t1, t2)):
            la = await run_driver(ma.alloc, 16384, 4096)
            lb = await run_driver(mb.alloc, 16384, 4096)
            src = pattern(50 + k, 16384)
            await run_driver(ma.write, la, src)
            mra = await run_driver(a.ctx.reg_mr, pda, la, 16384, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 16384, ACC)
            jobs.append((qa, cqa, la, lb, src, mra, mrb))
        cb0 = await env.counters("b")
        eb0 = await run_driver(b.ctx.counters)
        vs0 = await run_driver(b.vswitch.counters)
        for qa, _cqa, la, lb, _src, mra, mrb in jobs:
            await run_driver(a.ctx.post_send, qa, [
                SendWR(WrOpcode.RDMA_WRITE, wr_id=20 + i, local_addr=la + i * 4096,
                       length=4096, lkey=mra.lkey, remote_addr=lb + i * 4096, rkey=mrb.rkey)
                for i in range(4)])
        for _ in range(reps):
            for f in corpus:
                await inj.send(f)
                await ClockCycles(dut.clk, 37)
        await inj.wait()
        for _qa, cqa, _la, lb, src, _mra, _mrb in jobs:
            wcs = await run_driver(a.ctx.wait_cq, cqa, 4, 40000)
            assert all(w.ok for w in wcs), wcs
            assert await run_driver(mb.read, lb, 16384) == src
        await ClockCycles(dut.clk, 1000)
        cb1 = await env.counters("b")
        eb1 = await run_driver(b.ctx.counters)
        vs1 = await run_driver(b.vswitch.counters)
        d = {k: cb1[k] - cb0[k] for k in cb1}
        n = reps * len(corpus)
        wire_a = env.frames("a")
        n_tun = sum(1 for f in wire_a if classify("a", f)[0] is not None)
        dut._log.info("injected %d other frames; B deltas %s; vSwitch drop_outer +%d", n, d,
                      vs1["drop_outer"] - vs0["drop_outer"])
        assert d["rx_wire_other"] == n, d
        assert vs1["drop_outer"] - vs0["drop_outer"] == n, (vs0, vs1)
        assert cb1["rx_wire_vxlan"] == n_tun and cb1["rx_wire_roce"] == len(wire_a) - n_tun, cb1
        for k in ("drop_vni_mismatch", "drop_unbound_tun", "drop_bound_plain", "drop_not_roce"):
            assert d[k] == 0, (k, d)
        assert eb1["rx_frames"] - eb0["rx_frames"] == d["rx_wire_roce"] + d["rx_tunnel"], \
            (eb0, eb1, d)

    @cocotb.test()
    async def isolation(dut):
        """A frame never leaves its VNI. A's QP on VNI 100 against B's QP on VNI 200, a
        plain QP against a bound one, a bound QP against an unbound one: A's WRITEs never
        reach B's memory, B counts each drop reason, A's WQEs end in RETRY_EXC_ERR (short
        timeout, 1 retry). A pair on VNI 200 on both sides still works."""
        env = Env(dut)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        cases = {"drop_vni_mismatch": (100, 200), "drop_bound_plain": (None, 100),
                 "drop_unbound_tun": (100, None)}
        ma, mb = env.mem["a"], env.mem["b"]
        runs = []
        for k, (reason, (va, vb)) in enumerate(cases.items()):
            (pda, cqa, qa), (pdb, cqb, qb) = await env.connect(va, vb, timeout=1, retry_cnt=1)
            la = await run_driver(ma.alloc, 4096, 4096)
            lb = await run_driver(mb.alloc, 4096, 4096)
            await run_driver(ma.write, la, pattern(20 + k, 2048))
            before = pattern(40 + k, 2048)
            await run_driver(mb.write, lb, before)
            mra = await run_driver(a.ctx.reg_mr, pda, la, 4096, ACC)
            mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 4096, ACC)
            await run_driver(a.ctx.post_send, qa, [SendWR(
                WrOpcode.RDMA_WRITE, wr_id=70 + k, local_addr=la, length=1500, lkey=mra.lkey,
                remote_addr=lb, rkey=mrb.rkey)])
            runs.append((reason, cqa, lb, before, qb.qpn))
        # a good pair in VNI 200 alongside
        (pda, cqa, qa), (pdb, cqb, qb) = await env.connect(200, 200)
        la = await run_driver(ma.alloc, 4096, 4096)
        lb = await run_driver(mb.alloc, 4096, 4096)
        src = pattern(99, 2048)
        await run_driver(ma.write, la, src)
        mra = await run_driver(a.ctx.reg_mr, pda, la, 4096, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 4096, ACC)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_WRITE, wr_id=90, local_addr=la, length=2048, lkey=mra.lkey,
            remote_addr=lb, rkey=mrb.rkey)])
        wc = (await run_driver(a.ctx.wait_cq, cqa, 1, 20000))[0]
        assert wc.ok and wc.wr_id == 90, wc
        assert await run_driver(mb.read, lb, 2048) == src

        for reason, cq, lb, before, _ in runs:
            wc = (await run_driver(a.ctx.wait_cq, cq, 1, 40000))[0]
            assert wc.status == "RETRY_EXC_ERR", (reason, wc)
            assert await run_driver(mb.read, lb, 2048) == before, f"{reason}: B memory changed"
        c = await env.counters("b")
        for reason in cases:
            assert c[reason] >= 2, (reason, c)       # first try + one retry (at least)
        assert c["rx_tunnel"] >= 2 and c["drop_not_roce"] == 0, c
        # what A put on the wire for the isolated QPs: the VNI of A's QP, B's QPN
        want = {run[4]: cases[run[0]][0] for run in runs}
        n = 0
        for f in env.frames("a"):
            vni, dqp, _ = classify("a", f)
            if dqp in want:
                assert vni == want[dqp], (dqp, vni)
                n += 1
        assert n >= 6, n
        dut._log.info("B counters: %s", c)


    @cocotb.test()
    async def guest_and_roce_share_tunnel(dut):
        """A virtio guest on each NIC (queue pair 0 in VNI 100) and a RoCE QP pair bound
        to VNI 100 use the same tunnel at the same time: the guest frames arrive in the
        peer guest's receive queue byte for byte, the RDMA WRITE lands exactly, and both
        kinds leave A as VXLAN VNI 100 through the same tunnel (scapy)."""
        env = Env(dut)
        await env.start()
        a, b = env.nic["a"], env.nic["b"]
        vsize = 1 << int(dut.VMEM_AW.value)
        guests = {}
        for s, o in (("a", "b"), ("b", "a")):
            vmem = SvHostMemory(getattr(dut, f"u_vmem_{s}"), vsize, base=0x1000)
            net = VirtioNet(env.nic[s].vnic_bus, vmem)

            def bring_up(nic=env.nic[s], net=net, s=s, o=o):
                net.probe()
                net.setup(pairs=1, size=16)
                set_pair_vni(nic.vnic_bus, 0, 100)
                nic.vswitch.add_local(100, VM[s], 0)
                nic.vswitch.add_remote(100, VM[o], 0)
                net.post_rx(0, 8)
            await run_driver(bring_up)
            guests[s] = net
        (pda, cqa, qa), (pdb, cqb, qb) = await env.connect(100, 100)
        ma, mb = env.mem["a"], env.mem["b"]
        la = await run_driver(ma.alloc, 8192, 4096)
        lb = await run_driver(mb.alloc, 8192, 4096)
        src = pattern(5, 5000)
        await run_driver(ma.write, la, src)
        await run_driver(mb.write, lb, bytes(5000))
        mra = await run_driver(a.ctx.reg_mr, pda, la, 8192, ACC)
        mrb = await run_driver(b.ctx.reg_mr, pdb, lb, 8192, ACC)
        frames = [bytes(Ether(dst=VM["b"], src=VM["a"]) /
                        IP(src="192.168.100.1", dst="192.168.100.2") /
                        UDP(sport=4000 + i, dport=9) / Raw(pattern(60 + i, n)))
                  for i, n in enumerate((18, 300, 900, 1100))]

        def guest_send():
            for f in frames:
                guests["a"].send(0, f, kick=False)
            guests["a"].kick(1)
        await run_driver(a.ctx.post_send, qa, [SendWR(
            WrOpcode.RDMA_WRITE, wr_id=5, local_addr=la, length=5000, lkey=mra.lkey,
            remote_addr=lb, rkey=mrb.rkey)])
        await run_driver(guest_send)
        wc = (await run_driver(a.ctx.wait_cq, cqa, 1, 20000))[0]
        assert wc.ok and wc.wr_id == 5, wc
        assert await run_driver(mb.read, lb, 5000) == src
        got: list[bytes] = []
        for _ in range(200):
            got += [f for _, f in await run_driver(guests["b"].recv, 0)]
            if len(got) >= len(frames):
                break
            await ClockCycles(dut.clk, 200)
        assert got == frames, [len(g) for g in got]
        # A's wire: guest frames and RoCE frames, all VXLAN VNI 100 in one tunnel
        n_guest = n_roce = 0
        for f in env.frames("a"):
            p = Ether(f)
            assert p[UDP].dport == 4789 and p[VXLAN].vni == 100, p.summary()
            inner = bytes(p[VXLAN].payload)
            if Ether(inner).dst == VM["b"]:
                assert inner in frames
                assert p[IP].src == PORT["a"][1] and p[IP].dst == PORT["b"][1]
                n_guest += 1
            else:
                vni, _, _ = classify("a", f)
                assert vni == 100
                n_roce += 1
        assert n_guest == len(frames) and n_roce == 5, (n_guest, n_roce)
        c = await env.counters("b")
        assert c["rx_tunnel"] == 5 and c["rx_wire_vxlan"] == 9, c


def test_nic_roce_vxlan():
    run(toplevel="tb_nic_pair", module="test_nic_roce_vxlan", test_dir=HERE,
        extra_sources=[HERE.parent / "host" / "tb_host_axi_mem.sv", HERE / "tb_nic_pair.sv"],
        parameters=PARAMS, read_only_internals=True)
