# SPDX-License-Identifier: Apache-2.0
"""Two-NIC cocotb environment for tb_roce_pair: host memories (cocotbext-axi AxiRam,
one per NIC), AXI-Lite buses for the fw/ driver, link fault controls, and a pcap
capture of every frame each NIC sends."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import NamedTuple

import cocotb
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiBus, AxiRam

from fabnic import pyverbs as pv
from fabnic import verbs
from fabnic_tb.clock import start_clock_reset
from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
from fabnic_tb.pcap import SimPcap

MEM_SIZE = 1 << 24
CLK_NS = 4.0


class RamHostMemory:
    """fabnic.bus.HostMemory over an AxiRam: a bump allocator plus direct access."""

    def __init__(self, ram: AxiRam, base: int = 0x1000, size: int = MEM_SIZE) -> None:
        self.ram = ram
        self.next = base
        self.size = size

    def alloc(self, size: int, align: int = 64) -> int:
        a = (self.next + align - 1) // align * align
        if a + size > self.size:
            raise MemoryError("simulated host memory exhausted")
        self.next = a + max(size, 1)
        return a

    def read(self, addr: int, length: int) -> bytes:
        return bytes(self.ram.read(addr, length))

    def write(self, addr: int, data: bytes) -> None:
        self.ram.write(addr, bytes(data))


class Nic:
    def __init__(self, dut, p: str, mac: str, ip: str) -> None:
        self.ram = AxiRam(AxiBus.from_prefix(dut, f"{p}_m_axi"), dut.clk, dut.rst, size=MEM_SIZE)
        for ch in (self.ram.write_if, self.ram.read_if):
            ch.log.setLevel(logging.WARNING)
        self.bus = SimAxiLiteBus(dut, f"{p}_s_axil")
        self.mem = RamHostMemory(self.ram)
        self.mac, self.ip = mac, ip
        self.ctx: verbs.Context | None = None
        self.context: pv.Context | None = None     # the pyverbs-shaped API over ctx


class RcPair(NamedTuple):
    """PairEnv.connect_rc: one connected RC QP per NIC, with its CQ and PD."""
    qa: pv.QP
    qb: pv.QP
    cqa: pv.CQ
    cqb: pv.CQ
    pda: pv.PD
    pdb: pv.PD


class PairEnv:
    def __init__(self, dut, pcap: Path | None = None, ipv6: bool = False) -> None:
        """``ipv6``: the NICs get IPv6 addresses (fd00::a, fd00::b), so every QP
        connected between them runs over IPv6."""
        self.dut = dut
        self.a = Nic(dut, "a", "02:00:00:00:00:0a", "fd00::a" if ipv6 else "10.0.0.1")
        self.b = Nic(dut, "b", "02:00:00:00:00:0b", "fd00::b" if ipv6 else "10.0.0.2")
        self.pcap = SimPcap(pcap) if pcap else None
        self.frames: list[tuple[str, bytes]] = []
        self.frame_cycles: list[int] = []  # clock cycle of each frame's last beat (frames[i])
        self.rx_b: list[bytes] = []       # frames arriving at B (after the link), when tap_rx
        self.tap_rx = False
        self.cycle = 0
        for L in ("lab", "lba"):
            for n in ("rate", "delay", "loss_p", "dup_p", "reorder_p", "biterr_p", "drop_list"):
                getattr(dut, f"{L}_{n}").value = 0
            for n in ("link_down", "loss_en", "dup_en", "reorder_en", "biterr_en", "drop_list_en"):
                getattr(dut, f"{L}_{n}").value = 0
            getattr(dut, f"{L}_seed").value = 1 if L == "lab" else 2
            getattr(dut, f"{L}_delay").value = 50
        dut.ce_mark_ab.value = 0
        from func_cov import wire_coverage
        self.cov = wire_coverage()         # functional coverage when COV=1 (make cov)

    async def start(self, first_qpn: int = 2) -> None:
        await start_clock_reset(self.dut)
        cocotb.start_soon(self._tap())
        for nic in (self.a, self.b):
            nic.ctx = await run_driver(verbs.open_device, nic.bus, nic.mem, mac=nic.mac,
                                       ip=nic.ip, first_qpn=first_qpn)
            nic.context = pv.Context(driver=nic.ctx)

    async def _tap(self) -> None:
        dut = self.dut
        bufs = {"a": bytearray(), "b": bytearray()}
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            for s in ("a", "b"):
                if int(getattr(dut, f"{s}_tx_tvalid").value) and int(getattr(dut, f"{s}_tx_tready").value):
                    keep = int(getattr(dut, f"{s}_tx_tkeep").value)
                    data = int(getattr(dut, f"{s}_tx_tdata").value).to_bytes(64, "little")
                    n = bin(keep).count("1")
                    bufs[s] += data[:n]
                    if int(getattr(dut, f"{s}_tx_tlast").value):
                        frame = bytes(bufs[s])
                        bufs[s].clear()
                        self.frames.append((s, frame))
                        self.frame_cycles.append(self.cycle)
                        if self.cov is not None:
                            self.cov.tx(s, frame)
                        if self.pcap:
                            self.pcap.write(frame, self.cycle * CLK_NS)
            if self.cov is not None:
                for s in ("a", "b"):
                    if int(getattr(dut, f"{s}_rx_tvalid").value) and \
                            int(getattr(dut, f"{s}_rx_tready").value):
                        keep = int(getattr(dut, f"{s}_rx_tkeep").value)
                        data = int(getattr(dut, f"{s}_rx_tdata").value).to_bytes(64, "little")
                        buf = bufs.setdefault(f"cov_{s}", bytearray())
                        buf += data[:bin(keep).count("1")]
                        if int(getattr(dut, f"{s}_rx_tlast").value):
                            self.cov.rx(s, bytes(buf))
                            buf.clear()
            if self.tap_rx and int(dut.b_rx_tvalid.value) and int(dut.b_rx_tready.value):
                keep = int(dut.b_rx_tkeep.value)
                data = int(dut.b_rx_tdata.value).to_bytes(64, "little")
                bufs.setdefault("rx", bytearray())
                bufs["rx"] += data[:bin(keep).count("1")]
                if int(dut.b_rx_tlast.value):
                    self.rx_b.append(bytes(bufs["rx"]))
                    bufs["rx"].clear()

    def link(self, name: str, **kw: int) -> None:
        for k, v in kw.items():
            getattr(self.dut, f"{name}_{k}").value = v

    async def connect(self, pd_access: verbs.Access, *, mtu: int = 1024, depth: int = 64,
                      timeout: int = 8, retry_cnt: int = 7, rnr_retry: int = 7,
                      sq_psn_a: int = 0x100, sq_psn_b: int = 0x200, dcqcn: bool = False,
                      sr: bool = False, cq_depth: int = 256,
                      min_rnr_timer: tuple[int, int] = (1, 1)):
        """One RC QP on each NIC, connected to each other. Returns (qa, qb, cqa, cqb, pda, pdb).
        sr: both QPs in selective-repeat mode (docs/roce_sr.md). min_rnr_timer: the RNR
        NAK timer codes of A's and B's QP (IBTA encoding; 1 = 0.01 ms)."""
        a, b = self.a.ctx, self.b.ctx
        assert a is not None and b is not None
        def setup(ctx):
            pd = ctx.alloc_pd()
            cq = ctx.create_cq(cq_depth)
            qp = ctx.create_qp(pd, cq, cq, sq_depth=depth, rq_depth=depth)
            return pd, cq, qp
        pda, cqa, qa = await run_driver(setup, a)
        pdb, cqb, qb = await run_driver(setup, b)
        def bring_up(ctx, qp, peer_qpn, peer_mac, peer_ip, sq_psn, rq_psn, rnr_timer):
            if dcqcn:
                ctx.modify_qp(qp, verbs.QpState.INIT, access=pd_access, dcqcn=True)
            elif sr:
                ctx.modify_qp(qp, verbs.QpState.INIT, access=pd_access, selective_repeat=True)
            else:
                ctx.modify_qp(qp, verbs.QpState.INIT, access=pd_access)
            ctx.modify_qp(qp, verbs.QpState.RTR, dest_qpn=peer_qpn, rq_psn=rq_psn, path_mtu=mtu,
                          dest_mac=peer_mac, dest_ip=peer_ip, min_rnr_timer=rnr_timer)
            ctx.modify_qp(qp, verbs.QpState.RTS, sq_psn=sq_psn, timeout=timeout,
                          retry_cnt=retry_cnt, rnr_retry=rnr_retry)
        await run_driver(bring_up, a, qa, qb.qpn, self.b.mac, self.b.ip, sq_psn_a, sq_psn_b,
                         min_rnr_timer[0])
        await run_driver(bring_up, b, qb, qa.qpn, self.a.mac, self.a.ip, sq_psn_b, sq_psn_a,
                         min_rnr_timer[1])
        if self.cov is not None:
            self.cov.pair(qa.qpn, qb.qpn, sq_psn_a, sq_psn_b)
        return qa, qb, cqa, cqb, pda, pdb


    async def connect_rc(self, access: verbs.Access, *, mtu: int = 1024, depth: int = 64,
                         timeout: int = 8, retry_cnt: int = 7, rnr_retry: int = 7,
                         sq_psn_a: int = 0x100, sq_psn_b: int = 0x200, dcqcn: bool = False,
                         sr: bool = False, cq_depth: int = 256) -> RcPair:
        """connect() in the pyverbs object model (fabnic.pyverbs): PD, CQ and RC QP on
        each NIC, brought to RTS against each other. Send WRs are signaled per WR
        (sq_sig_all=0; SendWR signals by default)."""
        a, b = self.a.context, self.b.context
        assert a is not None and b is not None

        def setup(ctx: pv.Context) -> tuple[pv.PD, pv.CQ, pv.QP]:
            pd = pv.PD(ctx)
            cq = pv.CQ(ctx, cq_depth)
            cap = pv.QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=1,
                           max_recv_sge=1)
            qp = pv.QP(pd, pv.QPInitAttr(qp_type=pv.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap,
                                         sq_sig_all=0))
            return pd, cq, qp

        pda, cqa, qa = await run_driver(setup, a)
        pdb, cqb, qb = await run_driver(setup, b)

        def bring_up(qp: pv.QP, peer_qpn: int, peer: Nic, sq_psn: int, rq_psn: int) -> None:
            attr = pv.QPAttr(qp_access_flags=access, path_mtu=pv.PathMtu[f"MTU_{mtu}"],
                             dest_qp_num=peer_qpn, rq_psn=rq_psn, sq_psn=sq_psn,
                             ah_attr=pv.AHAttr(dmac=peer.mac, dip=peer.ip), timeout=timeout,
                             retry_cnt=retry_cnt, rnr_retry=rnr_retry,
                             selective_repeat=sr, dcqcn=dcqcn)
            if sr or dcqcn:
                attr.qp_state = pv.IBV_QPS_INIT
                qp.modify(attr, pv.INIT_MASK | pv.FABNIC_QP_MODES)
            qp.to_rts(attr)

        await run_driver(bring_up, qa, qb.qp_num, self.b, sq_psn_a, sq_psn_b)
        await run_driver(bring_up, qb, qa.qp_num, self.a, sq_psn_b, sq_psn_a)
        if self.cov is not None:
            self.cov.pair(qa.qp_num, qb.qp_num, sq_psn_a, sq_psn_b)
        return RcPair(qa, qb, cqa, cqb, pda, pdb)


def check_wire(frames: list[tuple[str, bytes]]) -> dict[int, int]:
    """Re-parse every captured frame with scapy: Ethernet/IPv4|IPv6/UDP 4791/BTH, the IP
    header checksum, the UDP length, the extension header the opcode calls for, the
    BTH pad count, and the ICRC (recomputed from the masking rules with zlib).
    Returns frames per BTH opcode."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether

    from fabnic_tb import roce_layers as rl

    hdr_len = {rl.RETH: 16, rl.AETH: 4, rl.ImmDt: 4, rl.IETH: 4, rl.AtomicETH: 28}
    seen: dict[int, int] = {}
    for side, f in frames:
        assert f[-4:] == rl.icrc_reference(f[:-4]), f"{side}: ICRC wrong in {f.hex()}"
        p = Ether(f)
        ip = p[IP] if IP in p else p[IPv6]
        if IP in p:
            want = IP(bytes(p[IP]))
            del want.chksum
            assert IP(bytes(want)).chksum == p[IP].chksum, f"{side}: IPv4 checksum"
        assert UDP in p and p[UDP].dport == 4791, f"{side}: not RoCEv2"
        assert p[UDP].len == len(bytes(p[UDP])), f"{side}: UDP length"
        assert ip is not None
        bth = p[rl.BTH]
        op = int(bth.opcode)
        seen[op] = seen.get(op, 0) + 1
        ext = rl.FIRST_EXT.get(op)
        body = bytes(bth.payload)[:-4]          # headers after BTH + payload + pad
        hl = 0
        if ext is not None:
            assert ext in p, f"{side}: opcode {op:#x} without {ext.__name__}"
            hl = hdr_len.get(ext, 12 if ext is rl.AETH else 0)
            if op == rl.ATOMIC_ACK:
                hl = 12
            if op in (rl.WRITE_ONLY_IMM,):
                hl = 20
        plen_padded = len(body) - hl
        assert plen_padded % 4 == 0, f"{side}: opcode {op:#x} payload not padded to 4"
        assert int(bth.padcount) < 4
    return seen


def random_mix(rng, count: int, sizes: list[int], size: int, la: int, lb: int, mra, mrb,
               a_img: bytearray, b_img: bytearray, kinds: tuple[str, ...] = ("w", "w", "s", "r")):
    """A random mix A -> B over one buffer of `size` bytes per side (the first half is the
    source, the second the destination); `kinds` is drawn from: "w" WRITE, "s" SEND, "r"
    READ, "si" SEND with immediate, "wi" WRITE with immediate (the last two consume a
    receive WQE and complete with byte_len = length). Updates the expected images
    a_img/b_img in place; returns (send WRs, recv WRs, expected (wr_id, byte_len) of B's
    receive completions)."""
    from fabnic.verbs import RecvWR, SendWR, WrOpcode

    wrs, recvs, expect_recv = [], [], []
    off = 0
    for i in range(count):
        n = rng.choice(sizes)
        kind = rng.choice(kinds)
        src, dst = off, off + size // 2
        off += (n + 64) // 64 * 64 + 64
        if kind in ("w", "wi"):
            op = WrOpcode.RDMA_WRITE if kind == "w" else WrOpcode.RDMA_WRITE_WITH_IMM
            wrs.append(SendWR(op, wr_id=i, local_addr=la + src, length=n, lkey=mra.lkey,
                              remote_addr=lb + dst, rkey=mrb.rkey, imm=i))
            b_img[dst:dst + n] = a_img[src:src + n]
            if kind == "wi":
                recvs.append(RecvWR(wr_id=1000 + i, addr=lb + dst, length=0, lkey=mrb.lkey))
                expect_recv.append((1000 + i, n))
        elif kind == "r":
            wrs.append(SendWR(WrOpcode.RDMA_READ, wr_id=i, local_addr=la + dst, length=n,
                              lkey=mra.lkey, remote_addr=lb + src, rkey=mrb.rkey))
            a_img[dst:dst + n] = b_img[src:src + n]
        else:
            op = WrOpcode.SEND if kind == "s" else WrOpcode.SEND_WITH_IMM
            recvs.append(RecvWR(wr_id=1000 + i, addr=lb + dst, length=n + 16, lkey=mrb.lkey))
            wrs.append(SendWR(op, wr_id=i, local_addr=la + src, length=n, lkey=mra.lkey,
                              imm=i))
            b_img[dst:dst + n] = a_img[src:src + n]
            expect_recv.append((1000 + i, n))
    return wrs, recvs, expect_recv
