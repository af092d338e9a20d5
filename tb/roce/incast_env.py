# SPDX-License-Identifier: Apache-2.0
"""cocotb environment for tb_roce_incast (N senders + 1 receiver, real fabnic NICs around
a switch model): one fw/ verbs context per NIC over the shared AXI-Lite port (axil_sel),
SystemVerilog host memories through their backdoor, switch configuration, and one
incast round (every sender WRITEs `size` bytes into its own region of the receiver's
buffer at nearly the same time; completion time per message = cycle its CQE was seen
minus the cycle before its doorbell, CQs polled every POLL cycles).

Used by bench_incast_roce.py (8:1 benchmark) and test_roce_incast.py (CI check)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cocotb.task import resume
from cocotb.triggers import ClockCycles

from fabnic import verbs
from fabnic.bus import BusError
from fabnic.verbs import Access, SendWR, WrOpcode
from fabnic_tb.clock import start_clock_reset
from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
from fabnic_tb.sv_host_memory import SvHostMemory

MEM_LAT = 64           # cycles: host memory latency of the model
LINE_B_PER_CYCLE = 50  # 100 Gb/s at 250 MHz
POLL = 32              # cycles between CQ polls
ACC = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
DEEP_BUF = 1 << 24     # switch buffer of the lossless runs (far above any queue)


def host_mac(h: int) -> str:
    return f"02:00:00:00:00:{h + 1:02x}"


def host_ip(h: int) -> str:
    return f"10.0.0.{h + 1}"


def pct(xs: list[int], p: float) -> int:
    """The p-quantile by rank (sorted[int(p * n)], clamped)."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


class NicBus:
    """fabnic.bus.Bus for NIC `idx` on the testbench's shared AXI-Lite port: selects the
    NIC, then runs the access on the one SimAxiLiteBus (accesses never overlap: the
    driver calls are sequential)."""

    def __init__(self, dut, shared: SimAxiLiteBus, idx: int) -> None:
        self.dut = dut
        self.shared = shared
        self.idx = idx

    async def _read(self, addr: int) -> int:
        self.dut.axil_sel.value = self.idx
        await ClockCycles(self.dut.clk, 1)
        return await self.shared._read(addr)

    async def _write(self, addr: int, value: int) -> None:
        self.dut.axil_sel.value = self.idx
        await ClockCycles(self.dut.clk, 1)
        await self.shared._write(addr, value)

    def read32(self, addr: int) -> int:
        return resume(self._read)(addr)

    def write32(self, addr: int, value: int) -> None:
        resume(self._write)(addr, value)


@dataclass
class Flow:
    """Sender i's QP and buffers, and the receiver's QP for it."""
    qs: verbs.QueuePair
    qr: verbs.QueuePair
    cq: verbs.CompletionQueue
    src: int                       # sender source buffer (host address = VA)
    mr: verbs.MemoryRegion
    dst: int                       # its region in the receiver's buffer
    data: bytes = b""              # what the last round wrote


@dataclass
class SwitchCfg:
    buf_size: int = DEEP_BUF
    q_cap: int = 0
    ecn_en: bool = False
    kmin: int = 0
    kmax: int = 0
    pmax: float = 0.0
    pfc_en: bool = False
    xoff: int = 0
    xon: int = 0
    pfc_quanta: int = 0xFFFF


@dataclass
class Counts:
    drops: int = 0
    ecn: int = 0
    retx: int = 0
    timeouts: int = 0
    probes: int = 0
    repaired: int = 0
    tx_repairs: int = 0
    unrepairable: int = 0
    sr_retx: int = 0               # senders: SR single-packet resends (SACK holes + probes)
    sack_rx: int = 0               # senders: SACKs received
    rx_icrc: int = 0               # receiver: frames dropped for a bad ICRC
    rx_sr_drop: int = 0            # receiver: SR packets it could not place
    fec: dict = field(default_factory=dict)
    sent: list = field(default_factory=list)       # frames each sender put on its link
    arrived: list = field(default_factory=list)    # of them, frames the receiver got

    def lost(self, before: Counts) -> list[int]:
        """Per sender: frames lost in the network since `before` (network idle)."""
        return [(s1 - s0) - (a1 - a0) for s0, s1, a0, a1
                in zip(before.sent, self.sent, before.arrived, self.arrived, strict=True)]


class IncastEnv:
    def __init__(self, dut, link_delay: int = 100, rate: int = LINE_B_PER_CYCLE << 16) -> None:
        self.dut = dut
        self.n = int(dut.N.value)
        size = 1 << int(dut.MEM_AW.value)
        self.mem = [SvHostMemory(dut.g_nic[h].u_mem, size) for h in range(self.n + 1)]
        self.shared = SimAxiLiteBus(dut, "s_axil")
        self.bus = [NicBus(dut, self.shared, h) for h in range(self.n + 1)]
        self.ctx: list[verbs.Context] = []
        self.flows: list[Flow] = []
        self.rx_mr: verbs.MemoryRegion | None = None
        self.rx_cq: verbs.CompletionQueue | None = None
        dut.mem_latency.value = MEM_LAT
        dut.axil_sel.value = 0
        dut.rate.value = rate
        dut.link_delay.value = link_delay
        dut.seed.value = 12345
        dut.peak_clr.value = 0
        self.switch(SwitchCfg())

        async def _sleep() -> None:
            await ClockCycles(dut.clk, POLL)
        self.idle = resume(_sleep)

    @property
    def rx(self) -> verbs.Context:
        return self.ctx[self.n]

    def cycle(self) -> int:
        return int(self.dut.cycle.value)

    def switch(self, c: SwitchCfg) -> None:
        d = self.dut
        d.buf_size.value = c.buf_size
        d.q_cap.value = c.q_cap
        d.ecn_en.value = int(c.ecn_en)
        d.kmin.value = c.kmin
        d.kmax.value = c.kmax
        d.pmax.value = min(int(c.pmax * 2**32), 2**32 - 1)
        d.pfc_en.value = int(c.pfc_en)
        d.xoff.value = c.xoff
        d.xon.value = c.xon
        d.pfc_quanta.value = c.pfc_quanta

    def port_counter(self, name: str, port: int) -> int:
        v = int(getattr(self.dut, name).value)
        return (v >> (32 * port)) & 0xFFFFFFFF

    def lost_frames(self) -> list[int]:
        """Per sender: frames sent minus frames that reached the receiver, since reset."""
        return [self.port_counter("up_frames", i) - self.port_counter("rx_frames_from", i)
                for i in range(self.n)]

    async def sender_counters(self, names: tuple[str, ...] = ("sr_retx", "sr_probe",
                                                              "sr_sack_rx")) -> list[list[int]]:
        """Per sender, the given roce_cnt counters (one register read each)."""
        out = []
        for i in range(self.n):
            out.append([await run_driver(self.ctx[i].dev.read, "roce_cnt", k) for k in names])
        return out

    async def start(self) -> None:
        await start_clock_reset(self.dut)
        for h in range(self.n + 1):
            self.ctx.append(await run_driver(verbs.open_device, self.bus[h], self.mem[h],
                                             mac=host_mac(h), ip=host_ip(h)))

    async def connect(self, size: int, timeout: int = 5, dcqcn: bool = False,
                      sr: bool = True) -> None:
        """One RC QP per sender to receiver QP i (MTU 4096), buffers and MRs (made once;
        later calls replace the QPs and keep buffers, MRs and CQs)."""
        n, rx = self.n, self.rx
        first = not self.flows
        if first:
            self.rx_cq = await run_driver(rx.create_cq, 64)
            self.rx_pd = rx.alloc_pd()
            base = self.mem[n].alloc(n * size, 4096)
            self.rx_mr = await run_driver(rx.reg_mr, self.rx_pd, base, n * size, ACC)
            self.tx_pd, self.tx_cq, self.tx_mr, self.tx_src = [], [], [], []
            for i in range(n):
                ctx = self.ctx[i]
                self.tx_cq.append(await run_driver(ctx.create_cq, 64))
                self.tx_pd.append(ctx.alloc_pd())
                src = self.mem[i].alloc(size, 4096)
                self.tx_src.append(src)
                self.tx_mr.append(await run_driver(ctx.reg_mr, self.tx_pd[i], src, size, ACC))
        else:
            for i, f in enumerate(self.flows):
                await run_driver(self.ctx[i].destroy_qp, f.qs)
                await run_driver(rx.destroy_qp, f.qr)
        flows = []
        for i in range(n):
            ctx = self.ctx[i]
            qs = await run_driver(ctx.create_qp, self.tx_pd[i], self.tx_cq[i], self.tx_cq[i],
                                  64, 64)
            qr = await run_driver(rx.create_qp, self.rx_pd, self.rx_cq, self.rx_cq, 64, 64)

            def up(c, qp, peer, h, psn_sq, psn_rq):
                c.modify_qp(qp, verbs.QpState.INIT, access=ACC, selective_repeat=sr,
                            **({"dcqcn": True} if dcqcn else {}))
                c.modify_qp(qp, verbs.QpState.RTR, dest_qpn=peer.qpn, rq_psn=psn_rq,
                            path_mtu=4096, dest_mac=host_mac(h), dest_ip=host_ip(h))
                c.modify_qp(qp, verbs.QpState.RTS, sq_psn=psn_sq, timeout=timeout,
                            retry_cnt=7, rnr_retry=7)
            await run_driver(up, ctx, qs, qr, n, 0, 0)
            await run_driver(up, rx, qr, qs, i, 0, 0)
            flows.append(Flow(qs, qr, self.tx_cq[i], self.tx_src[i], self.tx_mr[i],
                              self.rx_mr.addr + i * size))
        self.flows = flows

    async def set_fec(self, krd: tuple[int, int, int] | None, reorder: int | None = None,
                      flush: int = 512) -> None:
        """FEC off (krd None, sr_reorder 3) or on every NIC for engine selective repeat:
        shims in rx_bypass, no shim NAKs, sr_reorder = (K+R)D + 4 (as bench_loss);
        flush: the shims' idle block-flush time in cycles (fec.flush_cycles)."""
        k, r, d = krd or (8, 2, 2)
        if reorder is None:
            reorder = min(63, (k + r) * d + 4) if krd else 3
        for ctx in self.ctx:
            await run_driver(ctx.set_fec, "off" if krd is None else "all", k=k, r=r, d=d,
                             flush_cycles=flush, rob_timeout=8192, nak_delay=0, nak_retry=4096,
                             rx_bypass=bool(krd))
            await run_driver(ctx.dev.write, "roce", "sr_reorder", reorder)

    async def counts(self) -> Counts:
        """Cumulative switch and NIC counters (take differences)."""
        c = Counts()
        c.drops = sum(self.port_counter("cnt_drop_tail", p) for p in range(self.n + 1))
        c.ecn = sum(self.port_counter("cnt_ecn_mark", p) for p in range(self.n + 1))
        c.sent = [self.port_counter("up_frames", i) for i in range(self.n)]
        c.arrived = [self.port_counter("rx_frames_from", i) for i in range(self.n)]
        for i in range(self.n):
            cn = await run_driver(self.ctx[i].counters)
            c.retx += cn["tx_retx_pkts"]
            c.timeouts += cn["timeouts"]
            c.probes += cn.get("sr_probe", 0)
            c.sr_retx += cn.get("sr_retx", 0)
            c.sack_rx += cn.get("sr_sack_rx", 0)
            try:
                c.tx_repairs += (await run_driver(self.ctx[i].fec_counters))["tx_repairs"]
            except (verbs.InvalidArgument, BusError, KeyError):
                pass
        cr = await run_driver(self.rx.counters)
        c.rx_icrc = cr["rx_drop_icrc"]
        c.rx_sr_drop = cr["sr_drop"]
        try:
            c.fec = await run_driver(self.rx.fec_counters)
            c.repaired = c.fec.get("repaired", 0)
            c.unrepairable = c.fec.get("unrepairable", 0)
        except (verbs.InvalidArgument, BusError):
            pass
        return c

    async def fill(self, rnd: random.Random, size: int) -> None:
        """Fresh random payload in every sender's source buffer; zero the receiver's
        buffer (a missing or misplaced byte cannot match by accident)."""
        for i, f in enumerate(self.flows):
            f.data = rnd.randbytes(size)
            await self.mem[i]._write(f.src, f.data)
        await self.mem[self.n]._write(self.rx_mr.addr, bytes(self.n * size))

    async def check(self, size: int) -> list[int]:
        """Senders whose region of the receiver buffer differs from what they sent."""
        bad = []
        for i, f in enumerate(self.flows):
            got = await self.mem[self.n]._read(f.dst, size)
            if got != f.data:
                bad.append(i)
        return bad

    async def round(self, size: int, rnd: random.Random, max_cycles: int) -> list[tuple[int, int]]:
        """One incast round: every sender posts one WRITE of `size` (in a random order,
        back to back); returns per sender (completion cycles, post cycle). Raises
        AssertionError on an unsuccessful completion or after max_cycles."""
        order = list(range(self.n))
        rnd.shuffle(order)

        def drive() -> list[tuple[int, int]]:
            t_post: dict[int, int] = {}
            lat: dict[int, int] = {}
            for i in order:
                f = self.flows[i]
                t_post[i] = self.cycle()
                self.ctx[i].post_send(f.qs, [SendWR(WrOpcode.RDMA_WRITE, wr_id=i,
                                                    local_addr=f.src, length=size,
                                                    lkey=f.mr.lkey, remote_addr=f.dst,
                                                    rkey=self.rx_mr.rkey)])
            t0 = min(t_post.values())
            while len(lat) < self.n:
                for i in order:
                    if i in lat:
                        continue
                    now = self.cycle()   # a CQE seen now was there before the poll
                    got = self.ctx[i].poll_cq(self.flows[i].cq, 4)
                    if got:
                        for w in got:
                            if not w.ok:
                                raise AssertionError(f"sender {i}: completion error {w}")
                        lat[i] = now - t_post[i]
                if len(lat) < self.n:
                    if self.cycle() - t0 > max_cycles:
                        missing = sorted(set(range(self.n)) - set(lat))
                        raise AssertionError(f"senders {missing}: no completion after "
                                             f"{max_cycles} cycles")
                    self.idle()
            return [(lat[i], t_post[i]) for i in range(self.n)]

        return await run_driver(drive)
