# SPDX-License-Identifier: Apache-2.0
"""fabnic_vnic_core tests (one build, DATA_W=64).

- ``vnic_switching``: the table is written by the fw driver (fw/fabnic/vswitch.py) over
  AXI-Lite; guest TX / wire RX traffic built with scapy; expected copies from the
  forwarding rules of docs/vxlan.md; outer headers re-parsed by scapy; the driver's
  counters against the frames sent.
- ``kernel_peer``: a real Linux kernel VXLAN endpoint (``ip link add ... type vxlan``)
  in a fresh network namespace of the simulator process, joined to the core's MAC-side
  AXI-Stream through a TAP device. The guest is a small scapy host model on the core's
  guest queue ports (m_grx / s_gtx; no virtio queue in the core yet). Kernel ping and
  UDP socket <-> guest, both ways; every frame the kernel sends is checked with scapy
  (outer UDP 4789, VNI, inner frame). Skipped where namespaces / TAP are not allowed.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from fabnic_tb.csum import ones_sum_ok

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from scapy.layers.inet import ICMP, IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import ARP, Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw

    from fabnic.vswitch import (
        ACT_LOCAL,
        ACT_UPLINK,
        Tunnel,
        VniEntry,
        VSwitch,
    )
    from fabnic_tb.beats import Sink, Source
    from fabnic_tb.clock import start_clock_reset
    from fabnic_tb.fw_bus import SimAxiLiteBus, run_driver
except ImportError:
    cocotb = None

DATA_W = 64
KEEP_W = DATA_W // 8
NIC_MAC = "02:00:00:00:00:02"
NIC_IP = "10.9.0.2"
PARAMS = {"DATA_W": DATA_W, "ENTRIES": 64, "VNI_ENTRIES": 4, "TUN_ENTRIES": 4, "TX_DEPTH": 512,
          "GRX_DEPTH": 512}


if cocotb is not None:

    async def setup(dut):
        await start_clock_reset(dut)
        for n in ("s_mac_rx_tvalid", "s_gtx_tvalid", "s_rtx_tvalid"):
            getattr(dut, n).value = 0
        dut.m_roce_tready.value = 1
        for _ in range(200):
            await RisingEdge(dut.clk)
            if int(dut.init_done.value):
                break
        assert int(dut.init_done.value) == 1
        return SimAxiLiteBus(dut)

    async def wait_idle(dut, srcs, extra: int = 400) -> None:
        for _ in range(5000):
            if all(s.idle() for s in srcs):
                break
            await ClockCycles(dut.clk, 50)
        await ClockCycles(dut.clk, extra)

    VM1, VM2, VM3 = "02:00:00:00:01:01", "02:00:00:00:01:02", "02:00:00:00:01:03"
    REMOTE = "02:00:00:00:09:01"
    TUN0 = Tunnel("10.9.0.2", "10.9.0.1", NIC_MAC, "02:00:00:00:00:01", ttl=64, dscp=0)
    TUN1 = Tunnel("fd00::2", "fd00::1", NIC_MAC, "02:00:00:00:00:03", ttl=5, dscp=8)

    @cocotb.test()
    async def vnic_switching(dut):
        """Driver-written table; VM-to-VM inside the host, uplink encap, TX flood
        (local copy minus the sender + head-end copy), RX flood as one copy per queue,
        unknown VNI dropped; counters read through the driver."""
        bus = await setup(dut)
        rng = random.Random(5)

        def configure(bus) -> tuple:
            vs = VSwitch(bus)
            caps = (vs.entries, vs.vni_entries, vs.tun_entries, vs.flood_max, vs.rflood_max)
            vs.set_tunnel(0, TUN0)
            vs.set_tunnel(1, TUN1)
            vs.set_vni(0, VniEntry(100, 0, [1, 2], [0, 1]))
            vs.set_vni(1, VniEntry(200, 0, [3], [1]))
            vs.add_local(100, VM1, 1)
            vs.add_local(100, VM2, 2)
            vs.add_remote(100, REMOTE, 0)
            vs.add_local(200, VM3, 3)
            back = (vs.read_tunnel(0), vs.read_tunnel(1), vs.read_vni(0), vs.read_vni(1),
                    vs.lookup_mac(100, VM2), vs.lookup_mac(100, REMOTE),
                    vs.lookup_mac(200, VM1), vs.mac_entries())
            vs.add_local(100, "02:00:00:00:0e:0e", 9)
            removed = vs.remove_mac(100, "02:00:00:00:0e:0e"), vs.remove_mac(100, "02:00:00:00:0e:0e")
            return caps, back, removed

        caps, back, removed = await run_driver(configure, bus)
        assert caps == (64, 4, 4, 4, 4)
        assert back[0] == TUN0 and back[1] == TUN1
        assert back[2] == VniEntry(100, 0, [1, 2], [0, 1]) and back[3] == VniEntry(200, 0, [3], [1])
        assert back[4] == (ACT_LOCAL, 2) and back[5] == (ACT_UPLINK, 0) and back[6] is None
        assert back[7] == 4 and removed == (True, False)

        gtx = Source(dut, "s_gtx", KEEP_W, seed=1, side=("vni", "qp"))
        mrx = Source(dut, "s_mac_rx", KEEP_W, seed=2)
        grx = Sink(dut, "m_grx", KEEP_W, seed=3, side=("tdest", "vni", "flood"))
        wire = Sink(dut, "m_mac_tx", KEEP_W, seed=4)

        def inner(dst: str, src: str, n: int) -> bytes:
            return bytes(Ether(dst=dst, src=src) / IP(src="192.168.1.1", dst="192.168.1.2") /
                         UDP(sport=rng.randrange(1024, 65535), dport=9) /
                         Raw(bytes(rng.randrange(256) for _ in range(n))))

        exp_grx: list[tuple[bytes, int, int, int]] = []   # (frame, queue, vni, flood)
        exp_wire: list[tuple[bytes, int, int]] = []       # (inner, vni, tunnel)
        # guest TX from queue 1 (VM1) in VNI 100
        f = inner(VM2, VM1, 100)                       # VM to VM: no wire
        gtx.send(f, vni=100, qp=1)
        exp_grx.append((f, 2, 100, 0))
        f = inner(REMOTE, VM1, 700)                    # behind tunnel 0
        gtx.send(f, vni=100, qp=1)
        exp_wire.append((f, 100, 0))
        f = inner("ff:ff:ff:ff:ff:ff", VM1, 50)        # broadcast: VM2 + both remote VTEPs
        gtx.send(f, vni=100, qp=1)
        exp_grx.append((f, 2, 100, 1))
        exp_wire += [(f, 100, 0), (f, 100, 1)]
        f = inner(VM1, VM3, 20)                        # VM1 is not in VNI 200: flood there
        gtx.send(f, vni=200, qp=3)
        exp_wire.append((f, 200, 1))
        gtx.send(inner(VM1, VM3, 20), vni=4000, qp=3)  # unknown VNI
        await wait_idle(dut, [gtx])
        # wire RX: VXLAN from the remote VTEP
        for vni, dst, queues in ((100, "ff:ff:ff:ff:ff:ff", [1, 2]), (100, VM1, [1]),
                                 (200, "ff:ff:ff:ff:ff:ff", [3]), (100, "02:00:00:00:0a:0a", [1, 2]),
                                 (300, VM1, [])):
            f = inner(dst, REMOTE, rng.randrange(0, 300))
            mrx.send(bytes(Ether(dst=NIC_MAC, src="02:00:00:00:00:01") /
                           IP(src="10.9.0.1", dst=NIC_IP) / UDP(sport=49999, dport=4789) /
                           VXLAN(vni=vni) / f))
            exp_grx += [(f, q, vni, int(len(queues) > 1 or dst.startswith("02:00:00:00:0a")
                                         or dst.startswith("ff"))) for q in queues]
        await wait_idle(dut, [mrx], extra=800)

        assert len(grx.frames) == len(exp_grx), (len(grx.frames), len(exp_grx))
        for fr, (f, q, vni, flood) in zip(grx.frames, exp_grx, strict=True):
            assert fr.data == f and fr.keep_ok
            assert (fr.side["tdest"], fr.side["vni"], fr.side["flood"]) == (q, vni, flood)
        assert grx.side_ok
        got = []
        for fr in wire.frames:
            p = Ether(fr.data)
            v6 = p.type == 0x86DD
            t = TUN1 if v6 else TUN0
            assert p.src == t.src_mac and p.dst == t.dst_mac
            if v6:
                assert p[IPv6].src == t.src_ip and p[IPv6].dst == t.dst_ip
                assert p[IPv6].hlim == t.ttl and p[IPv6].tc >> 2 == t.dscp
            else:
                assert p[IP].src == t.src_ip and p[IP].dst == t.dst_ip and p[IP].ttl == t.ttl
                assert ones_sum_ok(bytes(p[IP])[:20])
            assert p[UDP].dport == 4789 and p[UDP].sport >= 49152
            q = p.copy()
            del q[UDP].chksum
            assert p[UDP].chksum != 0 and Ether(bytes(q))[UDP].chksum == p[UDP].chksum
            got.append((bytes(p[VXLAN].payload), p[VXLAN].vni, int(v6)))
        assert sorted(got) == sorted(exp_wire)

        cnt = await run_driver(lambda b: VSwitch(b).counters(), bus)
        assert cnt["tx_in"] == 5 and cnt["tx_local"] == 2 and cnt["tx_flood"] == 2
        assert cnt["tx_out"] == len(exp_wire) and cnt["tx_drop_unknown_vni"] == 1
        assert cnt["rx_in"] == 5 and cnt["rx_local"] == 1 and cnt["rx_flood"] == 3
        assert cnt["drop_unknown_vni"] == 1

    # ------------------------------------------------------------------ kernel peer
    KERNEL_INNER_IP, GUEST_IP = "192.168.100.1", "192.168.100.2"
    GUEST_MAC, KERNEL_VX_MAC = "02:00:00:00:01:02", "02:00:00:00:01:01"
    KERNEL_INNER_IP6, GUEST_IP6 = "192.168.101.1", "192.168.101.2"   # VNI 101, IPv6 underlay
    GUEST_MAC6, KERNEL_VX_MAC6 = "02:00:00:00:02:02", "02:00:00:00:02:01"
    NIC_IP6 = "fd00::2"
    TAP = "fntap0"

    def sh(*cmd: str) -> None:
        subprocess.run(cmd, check=True, capture_output=True, timeout=10)

    def make_netns_and_tap() -> tuple[int, str]:
        """Move this (simulator) process into a fresh network namespace and build the
        kernel side: TAP (outer 10.9.0.1/24 and fd00::1/64) + VXLAN VNI 100 over IPv4
        (inner 192.168.100.1/24) + VXLAN VNI 101 over IPv6 (inner 192.168.101.1/24)."""
        import ctypes
        import fcntl
        import struct

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x40000000) != 0:  # CLONE_NEWNET
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
        for k in ("accept_dad=0", "router_solicitations=0", "dad_transmits=0"):
            for scope in ("all", "default"):
                sh("sysctl", "-qw", f"net.ipv6.conf.{scope}.{k}")
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(fd, 0x400454CA, struct.pack("16sH", TAP.encode(), 0x0002 | 0x1000))  # TAP, NO_PI
        sh("ip", "link", "set", "lo", "up")
        sh("ip", "link", "set", TAP, "address", "02:00:00:00:00:01", "addrgenmode", "none")
        sh("ip", "link", "set", TAP, "up")
        sh("ip", "addr", "add", "10.9.0.1/24", "dev", TAP)
        sh("ip", "addr", "add", "fd00::1/64", "dev", TAP, "nodad")
        sh("ip", "neigh", "add", NIC_IP, "lladdr", NIC_MAC, "dev", TAP, "nud", "permanent")
        sh("ip", "-6", "neigh", "add", NIC_IP6, "lladdr", NIC_MAC, "dev", TAP, "nud", "permanent")
        for vx, vni, local, remote, mac, ip in (
                ("vx100", 100, "10.9.0.1", NIC_IP, KERNEL_VX_MAC, KERNEL_INNER_IP),
                ("vx101", 101, "fd00::1", NIC_IP6, KERNEL_VX_MAC6, KERNEL_INNER_IP6)):
            # IPv6 VXLAN: the kernel checks our outer UDP checksums (udp6zerocsumrx off)
            sh("ip", "link", "add", vx, "type", "vxlan", "id", str(vni), "local", local,
               "remote", remote, "dstport", "4789", "dev", TAP)
            sh("ip", "link", "set", vx, "address", mac, "mtu", "1400", "addrgenmode", "none")
            sh("ip", "link", "set", vx, "up")
            sh("ip", "addr", "add", f"{ip}/24", "dev", vx)
        # (/sys shows the namespace it was mounted in: ask ip)
        out = subprocess.run(["ip", "-o", "link", "show", TAP], check=True, capture_output=True,
                             text=True).stdout.split()
        return fd, out[out.index("link/ether") + 1]

    class Guest:
        """A host on one guest queue pair: answers ARP and ICMP echo, echoes UDP on port
        7000, and can send its own ARP / ICMP / UDP."""

        def __init__(self, gtx: Source, ip: str, mac: str, vni: int, qp: int, peer_ip: str):
            self.gtx, self.ip, self.mac, self.vni, self.qp = gtx, ip, mac, vni, qp
            self.peer_ip = peer_ip
            self.peer_mac: str | None = None
            self.rx: list[Ether] = []
            self.echo_replies: list[bytes] = []
            self.udp_in: list[bytes] = []

        def send(self, p) -> None:
            self.gtx.send(bytes(p), vni=self.vni, qp=self.qp)

        def handle(self, data: bytes) -> None:
            p = Ether(data)
            self.rx.append(p)
            me = self.ip
            if ARP in p and p[ARP].pdst == me and p[ARP].op == 1:
                self.send(Ether(dst=p.src, src=self.mac) / ARP(
                    op=2, hwsrc=self.mac, psrc=me, hwdst=p[ARP].hwsrc, pdst=p[ARP].psrc))
            elif ARP in p and p[ARP].op == 2 and p[ARP].psrc == self.peer_ip:
                self.peer_mac = p[ARP].hwsrc
            elif ICMP in p and p[IP].dst == me and p[ICMP].type == 8:
                self.send(Ether(dst=p.src, src=self.mac) / IP(src=me, dst=p[IP].src) /
                          ICMP(type=0, id=p[ICMP].id, seq=p[ICMP].seq) / p[ICMP].payload)
            elif ICMP in p and p[IP].dst == me and p[ICMP].type == 0:
                self.echo_replies.append(bytes(p[ICMP].payload))
            elif UDP in p and p[IP].dst == me and p[UDP].dport == 7000:
                self.udp_in.append(bytes(p[UDP].payload))
                self.send(Ether(dst=p.src, src=self.mac) / IP(src=me, dst=p[IP].src) /
                          UDP(sport=7000, dport=p[UDP].sport) / p[UDP].payload)

    @cocotb.test()
    async def kernel_peer(dut):
        """Kernel VXLAN (netns + TAP) <-> NIC core <-> guest model: kernel ping and UDP to
        the guest, guest ARP/ping/UDP to the kernel; the kernel's frames checked by scapy."""
        import socket
        import time

        bus = await setup(dut)
        tapfd, tap_mac = make_netns_and_tap()

        def configure(bus) -> None:
            vs = VSwitch(bus)
            vs.set_tunnel(0, Tunnel(NIC_IP, "10.9.0.1", NIC_MAC, tap_mac))
            vs.set_vni(0, VniEntry(100, 0, [1], [0]))
            vs.add_local(100, GUEST_MAC, 1)
            vs.add_remote(100, KERNEL_VX_MAC, 0)   # no MAC learning: the control plane adds it
            vs.set_tunnel(1, Tunnel(NIC_IP6, "fd00::1", NIC_MAC, tap_mac))
            vs.set_vni(1, VniEntry(101, 1, [2], [1]))
            vs.add_local(101, GUEST_MAC6, 2)
            vs.add_remote(101, KERNEL_VX_MAC6, 1)

        await run_driver(configure, bus)
        gtx = Source(dut, "s_gtx", KEEP_W, seed=1, side=("vni", "qp"))
        mrx = Source(dut, "s_mac_rx", KEEP_W, seed=2)
        grx = Sink(dut, "m_grx", KEEP_W, seed=3, side=("tdest", "vni"))
        wire = Sink(dut, "m_mac_tx", KEEP_W, seed=4)
        guest = Guest(gtx, GUEST_IP, GUEST_MAC, 100, 1, KERNEL_INNER_IP)
        guest6 = Guest(gtx, GUEST_IP6, GUEST_MAC6, 101, 2, KERNEL_INNER_IP6)
        guests = {1: guest, 2: guest6}
        from_kernel: list[Ether] = []
        state = {"grx": 0, "wire": 0}

        async def pump(cycles: int = 200) -> None:
            """Move frames TAP <-> core and guest queue <-> guest model."""
            while True:
                try:
                    data = os.read(tapfd, 65536)
                except BlockingIOError:
                    break
                p = Ether(data)
                from_kernel.append(p)
                mrx.send(data)
            await ClockCycles(dut.clk, cycles)
            while state["wire"] < len(wire.frames):
                fr = wire.frames[state["wire"]]
                state["wire"] += 1
                assert fr.user == 0
                os.write(tapfd, fr.data)
            while state["grx"] < len(grx.frames):
                fr = grx.frames[state["grx"]]
                state["grx"] += 1
                g = guests[fr.side["tdest"]]
                assert fr.side["vni"] == g.vni
                g.handle(fr.data)

        async def run_until(cond, seconds: float) -> bool:
            t_end = time.monotonic() + seconds
            while time.monotonic() < t_end:
                await pump()
                if cond():
                    return True
            return False

        # 1. kernel ping -> guest (ICMP echo from a raw socket; the kernel ARPs through
        #    the tunnel first)
        icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        icmp.setblocking(False)
        replies: list[bytes] = []

        def echo_req(seq: int) -> bytes:
            return bytes(ICMP(type=8, id=0x4242, seq=seq) / Raw(b"kernel-ping-%d" % seq))

        def got_replies(n: int):
            def f() -> bool:
                try:
                    while True:
                        ip = IP(icmp.recv(65536))
                        if ICMP in ip and ip[ICMP].type == 0 and ip[ICMP].id == 0x4242 \
                                and ip.src == GUEST_IP:
                            replies.append(bytes(ip[ICMP].payload))
                except BlockingIOError:
                    pass
                return len(replies) >= n
            return f

        for seq in range(3):
            icmp.sendto(echo_req(seq), (GUEST_IP, 0))
            # the first request may be queued behind ARP resolution (the kernel keeps it)
            assert await run_until(got_replies(seq + 1), 20), f"ping {seq}: no reply"
        assert sorted(replies) == [b"kernel-ping-%d" % i for i in range(3)]
        icmp.close()

        # 2. kernel UDP socket -> guest (echoed back to the socket)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((KERNEL_INNER_IP, 5000))
        sock.setblocking(False)
        msgs = [bytes(random.Random(i).randrange(256) for _ in range(40 + 300 * i))
                for i in range(3)]
        for m in msgs:
            sock.sendto(m, (GUEST_IP, 7000))
        echoed: list[bytes] = []

        def got_all() -> bool:
            try:
                while True:
                    echoed.append(sock.recv(65536))
            except BlockingIOError:
                pass
            return len(echoed) == len(msgs)

        assert await run_until(got_all, 20), f"UDP echo: {len(echoed)} of {len(msgs)}"
        assert sorted(echoed) == sorted(msgs) and sorted(guest.udp_in) == sorted(msgs)

        # 3. guest -> kernel: ARP, ping and UDP to the kernel socket
        guest.send(Ether(dst="ff:ff:ff:ff:ff:ff", src=GUEST_MAC) / ARP(
            op=1, hwsrc=GUEST_MAC, psrc=GUEST_IP, pdst=KERNEL_INNER_IP))
        assert await run_until(lambda: guest.peer_mac is not None, 10), "no ARP reply"
        assert guest.peer_mac == KERNEL_VX_MAC
        for seq in range(3):
            guest.send(Ether(dst=guest.peer_mac, src=GUEST_MAC) / IP(
                src=GUEST_IP, dst=KERNEL_INNER_IP) / ICMP(type=8, id=77, seq=seq) /
                Raw(b"fabnic-%d" % seq))
        assert await run_until(lambda: len(guest.echo_replies) == 3, 10), "no echo replies"
        assert sorted(guest.echo_replies) == [b"fabnic-0", b"fabnic-1", b"fabnic-2"]
        payload = b"guest to kernel socket"
        guest.send(Ether(dst=guest.peer_mac, src=GUEST_MAC) / IP(
            src=GUEST_IP, dst=KERNEL_INNER_IP) / UDP(sport=7001, dport=5000) / Raw(payload))
        got: list[bytes] = []

        def got_one() -> bool:
            try:
                got.append(sock.recv(65536))
            except BlockingIOError:
                pass
            return bool(got)

        assert await run_until(got_one, 10) and got[0] == payload
        sock.close()

        # 4. VNI 101 over the IPv6 underlay: kernel UDP socket -> guest 2 -> back
        sock6 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock6.bind((KERNEL_INNER_IP6, 5001))
        sock6.setblocking(False)
        msgs6 = [b"over ipv6 %d " % i * (1 + 50 * i) for i in range(3)]
        for m in msgs6:
            sock6.sendto(m, (GUEST_IP6, 7000))
        echoed6: list[bytes] = []

        def got_all6() -> bool:
            try:
                while True:
                    echoed6.append(sock6.recv(65536))
            except BlockingIOError:
                pass
            return len(echoed6) == len(msgs6)

        assert await run_until(got_all6, 20), f"UDP echo over IPv6: {len(echoed6)} of 3"
        assert sorted(echoed6) == sorted(msgs6) and sorted(guest6.udp_in) == sorted(msgs6)
        sock6.close()

        # what the kernel put on the wire: all VXLAN to us, VNI 100, UDP 4789
        vx = [p for p in from_kernel if UDP in p and p[UDP].dport == 4789]
        assert len(vx) >= 3 + 3 + 3 + 3, len(vx)
        kinds = set()
        for p in vx:
            assert p.dst == NIC_MAC and p[VXLAN].flags & 0x08
            if p.type == 0x86DD:
                assert p[IPv6].src == "fd00::1" and p[IPv6].dst == NIC_IP6
                assert p[VXLAN].vni == 101 and p[VXLAN].payload.src == KERNEL_VX_MAC6
                q = p.copy()
                del q[UDP].chksum
                assert Ether(bytes(q))[UDP].chksum == p[UDP].chksum != 0
                kinds.add("v6")
            else:
                assert p[IP].src == "10.9.0.1" and p[IP].dst == NIC_IP
                assert p[VXLAN].vni == 100 and p[VXLAN].payload.src == KERNEL_VX_MAC
            i = p[VXLAN].payload
            kinds.add("arp" if ARP in i else "icmp" if ICMP in i else "udp" if UDP in i else "?")
        assert {"icmp", "udp", "arp", "v6"} <= kinds
        cnt = await run_driver(lambda b: VSwitch(b).counters(), bus)
        dut._log.info(f"kernel peer: {len(vx)} VXLAN frames from the kernel, counters {cnt}")
        # non-VXLAN frames of the kernel (IPv6 MLD on the TAP) are counted as drop_outer
        assert cnt["rx_in"] - cnt["drop_outer"] == len(vx) and cnt["drop_unknown_vni"] == 0
        # guest frames: all unicast to the kernel's MACs except the one ARP broadcast
        assert cnt["tx_flood"] == 1 and cnt["tx_out"] == cnt["tx_in"] == len(wire.frames)
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


def _run(testcase: str) -> None:
    """Both tests share one build: serialize them (pytest-xdist may run them at once)."""
    import fcntl

    from fabnic_tb import tools
    from fabnic_tb.runner import run

    tools.BUILD.mkdir(parents=True, exist_ok=True)
    with open(tools.BUILD / "fabnic_vnic_core.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run(toplevel="fabnic_vnic_core", module="test_vnic", test_dir=Path(__file__).parent,
            parameters=PARAMS, testcase=testcase, read_only_internals=True)


def test_vnic_switching() -> None:
    _run("vnic_switching")


def test_kernel_peer() -> None:
    why = _netns_tap_ok()
    if why is not None:
        pytest.skip(why)
    _run("kernel_peer")
