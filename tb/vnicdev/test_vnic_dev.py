# SPDX-License-Identifier: Apache-2.0
"""fabnic_vnic_dev: virtio-net queues joined to the vSwitch / VTEP (builds: DATA_W=64, 512).

The guest is the fw driver ``fabnic.virtio.VirtioNet`` (register window at 0x1000 of the
device's AXI-Lite port, guest memory = a cocotbext-axi AxiRam on ``m_axi`` with random
pauses on every channel); the tables are written by ``fabnic.vswitch.VSwitch`` (0x2000);
the queue pair VNIs are the device's own registers (0x2840 + 4n). The wire is
``s_mac_rx`` / ``m_mac_tx`` with random valid/ready pauses.

Expectations are independent of the device: frames and VXLAN encapsulations are built
and re-parsed with scapy (outer Ethernet/IPv4/UDP 4789/VXLAN fields from the tunnel the
test configured, IPv4 header checksum and outer UDP checksum recomputed by scapy), the
virtio_net_hdr fields come from the VirtIO 1.2 spec (flags 0 without DATA_VALID,
gso_type 0, num_buffers 1 with MRG_RXBUF), the forwarding decisions from the rules of
docs/vxlan.md (unicast to a local queue pair stays in the host, unknown VNI dropped).

- ``virtio_vxlan`` (DATA_W 64 and 512): guest TX -> VXLAN, VM to VM, wire VXLAN -> RX
  queues, unknown VNI / absent queue pair drops, a concurrent burst in all directions,
  counters.
- ``kernel_peer_virtio`` (64 only; skipped where network namespaces / TAP / VXLAN
  devices cannot be made): a Linux VXLAN device in a fresh network namespace is the
  remote VTEP behind a TAP that is the device's wire; a scapy host model is the guest
  behind the virtio driver on queue pair 0 (kernel ping and UDP echo through the virtio
  queues, guest ARP and ping to the kernel).
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiBus, AxiRam
    from scapy.layers.inet import ICMP, IP, UDP
    from scapy.layers.l2 import ARP, Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw

    from fabnic.virtio import VirtioNet
    from fabnic.vswitch import Tunnel, VniEntry, VSwitch
    from fabnic_tb.axis import random_pause
    from fabnic_tb.beats import Sink, Source
    from fabnic_tb.clock import start_clock_reset
    from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
except ImportError:
    cocotb = None

DATA_W = 64
PARAMS = {"DATA_W": DATA_W, "PAIRS": 2, "QMAX": 64, "ENTRIES": 64, "VNI_ENTRIES": 4,
          "TUN_ENTRIES": 4, "TX_DEPTH": 512, "GRX_DEPTH": 512}
MEM_SIZE = 1 << 20

# device register map (docs/vnic_dev.md)
VIRTIO_BASE = 0x1000
DEV_BASE = 0x2800
DEV_PAIRS, DEV_GRX_DROP_QP, DEV_RX_FRAMES, DEV_TX_FRAMES, DEV_QP_VNI = 0x00, 0x04, 0x0C, 0x28, 0x40

NIC_MAC, NIC_IP = "02:00:00:00:00:02", "10.9.0.2"
PEER_MAC, PEER_IP = "02:00:00:00:00:01", "10.9.0.1"
VM0, VM1, REMOTE, FAR = "02:00:00:00:01:00", "02:00:00:00:01:01", "02:00:00:00:09:01", "02:00:00:00:01:09"
VNI = 100


def ones_sum(data: bytes) -> int:
    """RFC 1071 ones'-complement sum of big-endian 16-bit words."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f">{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


class RamMemory:
    """fabnic.bus.HostMemory over the AxiRam image (bump allocator)."""

    def __init__(self, ram: object, base: int, end: int) -> None:
        self.ram, self.next, self.end = ram, base, end

    def alloc(self, size: int, align: int = 64) -> int:
        a = (self.next + align - 1) // align * align
        if a + size > self.end:
            raise MemoryError("guest memory exhausted")
        self.next = a + size
        return a

    def read(self, addr: int, length: int) -> bytes:
        return bytes(self.ram.read(addr, length))  # type: ignore[attr-defined]

    def write(self, addr: int, data: bytes) -> None:
        self.ram.write(addr, data)  # type: ignore[attr-defined]


if cocotb is not None:

    async def wait_until(dut, cond, limit: int = 100000) -> None:
        for _ in range(limit):
            if cond():
                return
            await RisingEdge(dut.clk)
        raise AssertionError("timeout")

    def check_outer(p: Ether, tun: Tunnel) -> None:
        """Outer headers of an encapsulated frame against the configured tunnel (scapy)."""
        assert p.src == tun.src_mac and p.dst == tun.dst_mac and p.type == 0x0800
        assert p[IP].src == tun.src_ip and p[IP].dst == tun.dst_ip and p[IP].ttl == tun.ttl
        assert p[IP].proto == 17 and p[IP].flags == "DF"
        q = p.copy()
        del q[IP].chksum
        del q[UDP].chksum
        r = Ether(bytes(q))
        assert r[IP].chksum == p[IP].chksum and r[UDP].chksum == p[UDP].chksum != 0
        assert p[UDP].dport == 4789 and 49152 <= p[UDP].sport <= 65535
        assert p[IP].len == len(bytes(p[IP])) and p[UDP].len == len(bytes(p[UDP]))
        assert p[VXLAN].flags & 0x08

    async def setup(dut, busy: float = 0.2, cycle=None) -> tuple:
        """Clock, reset, guest memory (AxiRam with random pauses), wire source/sink, driver.
        ``busy`` = 0: no pauses anywhere (benchmarks)."""
        dut.dev_mac.value = int.from_bytes(bytes.fromhex(NIC_MAC.replace(":", "")), "little")
        dut.link_up.value = 1
        for n in ("tvalid", "tdata", "tkeep", "tlast", "tuser"):
            getattr(dut, f"s_rtx_{n}").value = 0
        dut.s_rtx_vni.value = 0
        dut.m_roce_tready.value = 1
        ram = AxiRam(AxiBus.from_prefix(dut, "m_axi"), dut.clk, dut.rst, size=MEM_SIZE)
        chans = [ram.write_if.aw_channel, ram.write_if.w_channel, ram.write_if.b_channel,
                 ram.read_if.ar_channel, ram.read_if.r_channel]
        for k, ch in enumerate(chans):
            if busy:
                ch.set_pause_generator(random_pause(100 + k, busy))
        for sub in (ram.write_if, ram.read_if):
            sub.log.setLevel(logging.WARNING)
        keep_w = len(dut.s_mac_rx_tkeep)   # DATA_W of the build (64 or 512)
        mrx = Source(dut, "s_mac_rx", keep_w, seed=2 if busy else None, busy=busy, cycle=cycle)
        wire = Sink(dut, "m_mac_tx", keep_w, seed=4 if busy else None, busy=busy, cycle=cycle)
        await start_clock_reset(dut)
        for _ in range(300):
            await RisingEdge(dut.clk)
            if int(dut.init_done.value):
                break
        assert int(dut.init_done.value) == 1
        bus = SimAxiLiteBus(dut, "s_axil")
        net = VirtioNet(bus, RamMemory(ram, 0x1000, MEM_SIZE), base=VIRTIO_BASE)
        return bus, net, mrx, wire

    @cocotb.test()
    async def virtio_vxlan(dut):
        """Guest queue pair 0 -> VXLAN on the wire; wire VXLAN -> guest RX queues;
        VM to VM (pair 0 -> pair 1, never on the wire); unknown VNI dropped and counted."""
        rng = random.Random(7)
        bus, net, mrx, wire = await setup(dut)
        tun0 = Tunnel(NIC_IP, PEER_IP, NIC_MAC, PEER_MAC, ttl=64, dscp=0)

        def bringup() -> tuple:
            feats = net.probe()
            net.setup(pairs=2, size=64)
            vs = VSwitch(bus)
            vs.set_tunnel(0, tun0)
            vs.set_vni(0, VniEntry(VNI, 0, [0, 1], [0]))
            vs.add_local(VNI, VM0, 0)
            vs.add_local(VNI, VM1, 1)
            vs.add_local(VNI, FAR, 5)           # a queue pair the device does not have
            vs.add_remote(VNI, REMOTE, 0)
            for p in (0, 1):
                bus.write32(DEV_BASE + DEV_QP_VNI + 4 * p, VNI)
            back = [bus.read32(DEV_BASE + DEV_QP_VNI + 4 * p) for p in (0, 1)]
            net.post_rx(0, 8)
            net.post_rx(1, 8)
            return feats, back, bus.read32(DEV_BASE + DEV_PAIRS), vs.read_tunnel(0)

        feats, back, pairs, tun_back = await run_driver(bringup)
        assert feats >> 32 & 1 and net.max_pairs == 2 and net.pairs == 2 and net.mac == \
            bytes.fromhex(NIC_MAC.replace(":", ""))
        assert back == [VNI, VNI] and pairs == 2 and tun_back == tun0

        def inner(dst: str, src: str, n: int) -> bytes:
            return bytes(Ether(dst=dst, src=src) / IP(src="192.168.1.1", dst="192.168.1.2") /
                         UDP(sport=rng.randrange(1024, 65535), dport=9) /
                         Raw(bytes(rng.randrange(256) for _ in range(n))))

        # ---------------- 1. guest TX on pair 0 -> VXLAN to the remote VTEP
        tx_frames = [inner(REMOTE, VM0, n) for n in (18, 200, 1000)]
        # checksum offload on the guest side (NEEDS_CSUM): the driver puts the pseudo
        # header sum in the UDP checksum field; the wire carries scapy's full checksum
        p = Ether(dst=REMOTE, src=VM0) / IP(src="192.168.1.1", dst="192.168.1.3") / \
            UDP(sport=5555, dport=7) / Raw(bytes(range(77)))
        final = bytes(p)
        l4len = len(final) - 34
        partial = struct.pack(">H", ones_sum(bytes(p[IP])[12:20] + struct.pack(">BBH", 0, 17, l4len)))
        offload = final[:40] + partial + final[42:]
        expect_wire = [*tx_frames, final]

        def send_tx() -> None:
            for f in tx_frames:
                net.send(0, f, pieces=rng.choice([1, 2]), kick=False)
            net.send(0, offload, csum=(34, 6), kick=False)
            net.kick(1)

        await run_driver(send_tx)
        await wait_until(dut, lambda: len(wire.frames) == len(expect_wire))
        got_inner = []
        for fr in wire.frames:
            assert fr.user == 0 and fr.keep_ok
            o = Ether(fr.data)
            check_outer(o, tun0)
            assert o[VXLAN].vni == VNI
            got_inner.append(bytes(o[VXLAN].payload))
        assert got_inner == expect_wire, "inner frames on the wire"
        await wait_until(dut, lambda: net.queues[1].used_idx() == net.queues[1].avail_idx)
        reaped = await run_driver(net.reap_tx, 0)
        assert len(reaped) == len(expect_wire) and all(n == 0 for _, n in reaped)

        # ---------------- 2. VM to VM: pair 0 -> VM1 on pair 1 (not on the wire)
        v2v = inner(VM1, VM0, 300)
        await run_driver(net.send, 0, v2v)
        await wait_until(dut, lambda: net.queues[2].used_idx() == 1)
        rx1 = await run_driver(net.recv, 1)
        assert len(rx1) == 1 and rx1[0][1] == v2v
        h = rx1[0][0]
        assert h.flags == 0 and h.gso_type == 0 and h.num_buffers == 1

        # ---------------- 3. wire RX: VXLAN from the remote VTEP
        def vx(vni: int, f: bytes, sport: int = 49999) -> bytes:
            return bytes(Ether(dst=NIC_MAC, src=PEER_MAC) / IP(src=PEER_IP, dst=NIC_IP) /
                         UDP(sport=sport, dport=4789) / VXLAN(vni=vni) / f)

        to_vm0 = [inner(VM0, REMOTE, n) for n in (0, 64, 700, 1400)]
        arp = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=REMOTE) /
                    ARP(op=1, hwsrc=REMOTE, psrc="192.168.1.9", pdst="192.168.1.1"))
        to_vm1 = inner(VM1, REMOTE, 33)
        unknown_vni = inner(VM0, REMOTE, 50)
        far = inner(FAR, REMOTE, 10)
        for f in to_vm0[:2]:
            mrx.send(vx(VNI, f))
        mrx.send(vx(VNI + 200, unknown_vni))          # unknown VNI: dropped, counted
        mrx.send(vx(VNI, arp))                        # broadcast: flood to pairs 0 and 1
        mrx.send(vx(VNI, far))                        # queue pair 5: not in the device
        mrx.send(vx(VNI, to_vm1))
        for f in to_vm0[2:]:
            mrx.send(vx(VNI, f))
        want0 = [*to_vm0[:2], arp, *to_vm0[2:]]
        want1 = [arp, to_vm1]
        await wait_until(dut, lambda: net.queues[0].used_idx() == len(want0)
                         and net.queues[2].used_idx() == 1 + len(want1))
        await ClockCycles(dut.clk, 500)
        rx0, rx1 = await run_driver(lambda: (net.recv(0), net.recv(1)))
        assert [d for _, d in rx0] == want0, "receiveq 0"
        assert [d for _, d in rx1] == want1, "receiveq 1"
        for hh, _ in rx0 + rx1:
            assert hh.flags == 0 and hh.gso_type == 0 and hh.num_buffers == 1
        assert len(wire.frames) == len(expect_wire)   # nothing more went to the wire

        # ---------------- 4. all at once: pair 0 -> wire and -> VM1, pair 1 -> VM0, wire -> both
        n_wire0 = len(wire.frames)
        p0_remote = [inner(REMOTE, VM0, rng.randrange(0, 1200)) for _ in range(12)]
        p0_vm1 = [inner(VM1, VM0, rng.randrange(0, 600)) for _ in range(8)]
        p1_vm0 = [inner(VM0, VM1, rng.randrange(0, 600)) for _ in range(8)]
        w_vm0 = [inner(VM0, REMOTE, rng.randrange(0, 1200)) for _ in range(8)]
        w_vm1 = [inner(VM1, REMOTE, rng.randrange(0, 1200)) for _ in range(8)]
        p0 = [*p0_remote, *p0_vm1]
        rng.shuffle(p0)
        w = [*w_vm0, *w_vm1]
        rng.shuffle(w)

        def burst() -> None:
            net.post_rx(0, 24)
            net.post_rx(1, 24)
            for f in p0:
                net.send(0, f, pieces=rng.choice([1, 2, 3]), kick=False)
            for f in p1_vm0:
                net.send(1, f, kick=False)
            net.kick(1)
            net.kick(3)

        for f in w:
            mrx.send(vx(VNI, f, sport=rng.randrange(49152, 65536)))
        await run_driver(burst)
        await wait_until(dut, lambda: len(wire.frames) == n_wire0 + len(p0_remote)
                         and net.queues[0].used_idx() == len(want0) + 16
                         and net.queues[2].used_idx() == 1 + len(want1) + 16)
        await ClockCycles(dut.clk, 500)
        rx0, rx1 = await run_driver(lambda: (net.recv(0), net.recv(1)))
        got0, got1 = [d for _, d in rx0], [d for _, d in rx1]
        assert sorted(got0) == sorted(w_vm0 + p1_vm0) and sorted(got1) == sorted(w_vm1 + p0_vm1)
        # order per source is kept (one queue, one wire)
        assert [d for d in got0 if d in w_vm0] == [f for f in w if f in w_vm0]
        assert [d for d in got0 if d in p1_vm0] == p1_vm0
        assert [d for d in got1 if d in w_vm1] == [f for f in w if f in w_vm1]
        assert [d for d in got1 if d in p0_vm1] == [f for f in p0 if f in p0_vm1]
        for fr in wire.frames[n_wire0:]:
            o = Ether(fr.data)
            check_outer(o, tun0)
            assert o[VXLAN].vni == VNI
        assert [bytes(Ether(fr.data)[VXLAN].payload) for fr in wire.frames[n_wire0:]] == \
            [f for f in p0 if f in p0_remote]
        await wait_until(dut, lambda: all(net.queues[q].used_idx() == net.queues[q].avail_idx
                                          for q in (1, 3)))
        reaped = await run_driver(lambda: net.reap_tx(0) + net.reap_tx(1))
        assert len(reaped) == len(p0) + len(p1_vm0) + 1   # + the VM-to-VM frame of step 2

        # ---------------- counters (through the drivers)
        def counters() -> tuple:
            vs = VSwitch(bus)
            return (vs.counters(), bus.read32(DEV_BASE + DEV_GRX_DROP_QP),
                    bus.read32(DEV_BASE + DEV_RX_FRAMES), bus.read32(DEV_BASE + DEV_TX_FRAMES))

        cnt, drop_qp, rx_frames, tx_frames_n = await run_driver(counters)
        dut._log.info(f"vswitch counters {cnt}")
        assert cnt["drop_unknown_vni"] == 1
        n_tx = len(expect_wire) + 1 + len(p0) + len(p1_vm0)
        assert cnt["tx_in"] == n_tx and cnt["tx_out"] == len(expect_wire) + len(p0_remote)
        assert cnt["tx_local"] == 1 + len(p0_vm1) + len(p1_vm0) and cnt["tx_drop_unknown_vni"] == 0
        assert cnt["rx_in"] == 8 + len(w) and cnt["rx_local"] == 6 + len(w) and cnt["rx_flood"] == 1
        assert drop_qp == 1
        assert rx_frames == 1 + len(want0) + len(want1) + 32 and tx_frames_n == n_tx


    # ------------------------------------------------------------------ kernel peer
    TAP = "fnvtap0"
    K_IP, G_IP = "192.168.100.1", "192.168.100.2"
    K_VX_MAC, G_MAC = "02:00:00:00:07:01", "02:00:00:00:07:02"

    def sh(*cmd: str) -> None:
        subprocess.run(cmd, check=True, capture_output=True, timeout=10)

    def make_netns_and_tap() -> tuple[int, str]:
        """Move the simulator process into a new network namespace; TAP (10.9.0.1/24) as
        the device's wire, a kernel VXLAN device VNI 100 (192.168.100.1/24) over it."""
        import ctypes
        import fcntl

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x40000000) != 0:  # CLONE_NEWNET
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
        for scope in ("all", "default"):   # no IPv6 chatter (MLD) on the TAP; best effort
            subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{scope}.disable_ipv6=1"],
                           capture_output=True, timeout=10)
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(fd, 0x400454CA, struct.pack("16sH", TAP.encode(), 0x0002 | 0x1000))  # TAP, NO_PI
        sh("ip", "link", "set", "lo", "up")
        sh("ip", "link", "set", TAP, "address", PEER_MAC)
        sh("ip", "link", "set", TAP, "up")
        sh("ip", "addr", "add", f"{PEER_IP}/24", "dev", TAP)
        sh("ip", "neigh", "add", NIC_IP, "lladdr", NIC_MAC, "dev", TAP, "nud", "permanent")
        sh("ip", "link", "add", "vx100", "type", "vxlan", "id", str(VNI), "local", PEER_IP,
           "remote", NIC_IP, "dstport", "4789", "dev", TAP)
        sh("ip", "link", "set", "vx100", "address", K_VX_MAC, "mtu", "1400")
        sh("ip", "link", "set", "vx100", "up")
        sh("ip", "addr", "add", f"{K_IP}/24", "dev", "vx100")
        return fd, PEER_MAC

    class VirtioGuest:
        """A host behind virtio queue pair 0: answers ARP and ICMP echo, echoes UDP on
        port 7000, records ARP replies and echo replies to its own pings."""

        def __init__(self) -> None:
            self.peer_mac: str | None = None
            self.echo_replies: list[bytes] = []
            self.udp_in: list[bytes] = []

        def handle(self, data: bytes) -> list[bytes]:
            p = Ether(data)
            if ARP in p and p[ARP].op == 1 and p[ARP].pdst == G_IP:
                return [bytes(Ether(dst=p.src, src=G_MAC) / ARP(
                    op=2, hwsrc=G_MAC, psrc=G_IP, hwdst=p[ARP].hwsrc, pdst=p[ARP].psrc))]
            if ARP in p and p[ARP].op == 2 and p[ARP].psrc == K_IP:
                self.peer_mac = p[ARP].hwsrc
            elif ICMP in p and p[IP].dst == G_IP and p[ICMP].type == 8:
                return [bytes(Ether(dst=p.src, src=G_MAC) / IP(src=G_IP, dst=p[IP].src) /
                              ICMP(type=0, id=p[ICMP].id, seq=p[ICMP].seq) / p[ICMP].payload)]
            elif ICMP in p and p[IP].dst == G_IP and p[ICMP].type == 0:
                self.echo_replies.append(bytes(p[ICMP].payload))
            elif UDP in p and p[IP].dst == G_IP and p[UDP].dport == 7000:
                self.udp_in.append(bytes(p[UDP].payload))
                return [bytes(Ether(dst=p.src, src=G_MAC) / IP(src=G_IP, dst=p[IP].src) /
                              UDP(sport=7000, dport=p[UDP].sport) / p[UDP].payload)]
            return []

    @cocotb.test()
    async def kernel_peer_virtio(dut):
        """Linux VXLAN (netns + TAP) <-> device wire; the guest is a scapy host model behind
        the virtio driver on queue pair 0: kernel ping and UDP echo through the guest's
        virtio RX/TX queues, guest ARP + ping to the kernel."""
        import socket
        import time

        bus, net, mrx, wire = await setup(dut)
        tapfd, tap_mac = make_netns_and_tap()

        def bringup() -> None:
            net.probe()
            net.setup(pairs=1, size=64)
            vs = VSwitch(bus)
            vs.set_tunnel(0, Tunnel(NIC_IP, PEER_IP, NIC_MAC, tap_mac))
            vs.set_vni(0, VniEntry(VNI, 0, [0], [0]))
            vs.add_local(VNI, G_MAC, 0)
            vs.add_remote(VNI, K_VX_MAC, 0)
            bus.write32(DEV_BASE + DEV_QP_VNI, VNI)
            net.post_rx(0, 16)

        await run_driver(bringup)
        guest = VirtioGuest()
        from_kernel: list[Ether] = []
        state = {"wire": 0}

        def guest_io() -> None:
            got = net.recv(0)
            if got:
                net.post_rx(0, len(got))
            replies = [r for h, d in got for r in guest.handle(d)]
            for r in replies:
                net.send(0, r, kick=False)
            if replies:
                net.kick(1)
            net.reap_tx(0)

        async def pump(cycles: int = 300) -> None:
            while True:
                try:
                    data = os.read(tapfd, 65536)
                except BlockingIOError:
                    break
                from_kernel.append(Ether(data))
                mrx.send(data)
            await ClockCycles(dut.clk, cycles)
            while state["wire"] < len(wire.frames):
                fr = wire.frames[state["wire"]]
                state["wire"] += 1
                assert fr.user == 0
                os.write(tapfd, fr.data)
            if net.queues[0].used_idx() != net.queues[0].last_used:
                await run_driver(guest_io)

        async def run_until(cond, seconds: float) -> bool:
            t_end = time.monotonic() + seconds
            while time.monotonic() < t_end:
                await pump()
                if cond():
                    return True
            return False

        # 1. kernel ping -> guest (the kernel ARPs through the tunnel first)
        icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        icmp.setblocking(False)
        replies: list[bytes] = []

        def got_replies(n: int):
            def f() -> bool:
                try:
                    while True:
                        ip = IP(icmp.recv(65536))
                        if ICMP in ip and ip[ICMP].type == 0 and ip[ICMP].id == 0x4343 \
                                and ip.src == G_IP:
                            replies.append(bytes(ip[ICMP].payload))
                except BlockingIOError:
                    pass
                return len(replies) >= n
            return f

        for seq in range(3):
            icmp.sendto(bytes(ICMP(type=8, id=0x4343, seq=seq) / Raw(b"kping-%d" % seq)), (G_IP, 0))
            assert await run_until(got_replies(seq + 1), 30), f"ping {seq}: no reply"
        assert sorted(replies) == [b"kping-%d" % i for i in range(3)]
        icmp.close()

        # 2. kernel UDP socket -> guest -> echoed back
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((K_IP, 5000))
        sock.setblocking(False)
        msgs = [bytes(random.Random(i).randrange(256) for _ in range(30 + 400 * i)) for i in range(3)]
        for m in msgs:
            sock.sendto(m, (G_IP, 7000))
        echoed: list[bytes] = []

        def got_all() -> bool:
            try:
                while True:
                    echoed.append(sock.recv(65536))
            except BlockingIOError:
                pass
            return len(echoed) == len(msgs)

        assert await run_until(got_all, 30), f"UDP echo: {len(echoed)} of {len(msgs)}"
        assert sorted(echoed) == sorted(msgs) and sorted(guest.udp_in) == sorted(msgs)
        sock.close()

        # 3. guest -> kernel: ARP, then ping
        def guest_send(frames: list[bytes]) -> None:
            for f in frames:
                net.send(0, f, kick=False)
            net.kick(1)

        await run_driver(guest_send, [bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=G_MAC) / ARP(
            op=1, hwsrc=G_MAC, psrc=G_IP, pdst=K_IP))])
        assert await run_until(lambda: guest.peer_mac is not None, 20), "no ARP reply"
        assert guest.peer_mac == K_VX_MAC
        await run_driver(guest_send, [bytes(Ether(dst=K_VX_MAC, src=G_MAC) / IP(src=G_IP, dst=K_IP) /
                                            ICMP(type=8, id=99, seq=s) / Raw(b"vping-%d" % s))
                                      for s in range(2)])
        assert await run_until(lambda: len(guest.echo_replies) == 2, 20), "no echo replies"
        assert sorted(guest.echo_replies) == [b"vping-0", b"vping-1"]

        vx = [p for p in from_kernel if UDP in p and p[UDP].dport == 4789]
        assert len(vx) >= 3 + 3 + 1 + 2
        for p in vx:
            assert p.dst == NIC_MAC and p[IP].src == PEER_IP and p[IP].dst == NIC_IP
            assert p[VXLAN].vni == VNI and p[VXLAN].payload.src == K_VX_MAC
        cnt = await run_driver(lambda: VSwitch(bus).counters())
        dut._log.info(f"kernel peer over virtio: {len(vx)} VXLAN frames from the kernel, {cnt}")
        assert cnt["drop_unknown_vni"] == 0 and cnt["tx_out"] == len(wire.frames)
        os.close(tapfd)



def _netns_tap_ok() -> str | None:
    """None if a network namespace with TAP and VXLAN devices can be made, else why not."""
    if shutil.which("ip") is None or shutil.which("unshare") is None \
            or shutil.which("sysctl") is None:
        return "needs ip, unshare and sysctl (iproute2, util-linux, procps)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun"
    r = subprocess.run(["unshare", "-n", "sh", "-c",
                        "ip tuntap add t0 mode tap && ip link add v0 type vxlan id 1 dstport 4789 "
                        "dev t0"], capture_output=True, text=True)
    if r.returncode != 0:
        return f"network namespaces / TAP / VXLAN not allowed here: {r.stderr.strip()[:200]}"
    return None


def _run(testcase: str, params: dict | None = None) -> None:
    """Both tests share one build: serialize them (pytest-xdist may run them at once)."""
    import fcntl

    from fabnic_tb import tools
    from fabnic_tb.runner import run

    tools.BUILD.mkdir(parents=True, exist_ok=True)
    with open(tools.BUILD / "fabnic_vnic_dev.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run(toplevel="fabnic_vnic_dev", module="test_vnic_dev", test_dir=Path(__file__).parent,
            parameters=params or PARAMS, testcase=testcase)


def test_vnic_dev() -> None:
    _run("virtio_vxlan")


@pytest.mark.slow   # the 64-bit build covers the same paths; kept out of the 20-minute regression
def test_vnic_dev_512() -> None:
    _run("virtio_vxlan", dict(PARAMS, DATA_W=512, TX_DEPTH=64, GRX_DEPTH=64))


def test_kernel_peer_virtio() -> None:
    why = _netns_tap_ok()
    if why is not None:
        pytest.skip(why)
    _run("kernel_peer_virtio")
