# SPDX-License-Identifier: Apache-2.0
"""fabnic_vnic_dev: virtio-net queues joined to the vSwitch / VTEP (builds: DATA_W=64, 512).

The guest is the fw driver ``fabnic.virtio.VirtioNet`` (register window at 0x1000 of the
device's AXI-Lite port, guest memory = a cocotbext-axi AxiRam on ``m_axi`` with random
pauses on every channel); the tables are written by ``fabnic.vswitch.VSwitch`` (0x2000);
the queue pair VNIs and glue counters are the device's ``vnicdev`` block
(fabnic.regmap_vnicdev, by register name through fabnic.vswitch helpers). The wire is
``s_mac_rx`` / ``m_mac_tx`` with random valid/ready pauses.

Expectations are independent of the device: frames and VXLAN encapsulations are built
and re-parsed with scapy (outer Ethernet/IPv4/UDP 4789/VXLAN fields from the tunnel the
test configured, IPv4 header checksum and outer UDP checksum recomputed by scapy), the
virtio_net_hdr fields come from the VirtIO 1.2 spec (flags = DATA_VALID exactly when
GUEST_CSUM is negotiated and scapy's in4_chksum/in6_chksum verifies the inner TCP/UDP
checksum, gso_type 0, num_buffers 1 with MRG_RXBUF), the forwarding decisions from the
rules of docs/vxlan.md (unicast to a local queue pair stays in the host, unknown VNI
dropped).

- ``virtio_vxlan`` (DATA_W 64 and 512): guest TX -> VXLAN, VM to VM, wire VXLAN -> RX
  queues, unknown VNI / absent queue pair drops, a concurrent burst in all directions,
  counters.
- ``rx_data_valid`` (64): DATA_VALID against scapy checksums: good/bad TCP and UDP over
  IPv4/IPv6, 802.1Q, IPv4 options, Ethernet padding, fragments, UDP checksum 0, ICMP,
  a VM-to-VM frame with NEEDS_CSUM; then re-probed without GUEST_CSUM: flags 0.
- ``tx_rx_stall`` (64): the wire TX is blocked while the guest queues 20 large frames for
  it (vSwitch TX buffer and TX slots fill): wire RX frames must still reach both receive
  queues during the block (ring reads share the AXI read channel with the blocked TX
  data reads); then heavy TX + RX + VM-to-VM traffic at once with back-pressure, every
  frame exact.
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

from fabnic_tb.csum import ones_sum

try:
    import cocotb
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotbext.axi import AxiBus, AxiRam
    from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP, in4_chksum
    from scapy.layers.inet6 import IPv6, in6_chksum
    from scapy.layers.l2 import ARP, Dot1Q, Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw

    from fabnic import regmap_virtio as RV
    from fabnic.virtio import NET_HDR_F_DATA_VALID, VirtioNet
    from fabnic.vswitch import (
        Tunnel,
        VniEntry,
        VSwitch,
        pair_vni,
        set_pair_vni,
        vnicdev_counters,
        vnicdev_pairs,
    )
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

# device register map (docs/vnic_dev.md): virtio window; vnicdev block by name (fw helpers)
VIRTIO_BASE = 0x1000

NIC_MAC, NIC_IP = "02:00:00:00:00:02", "10.9.0.2"
PEER_MAC, PEER_IP = "02:00:00:00:00:01", "10.9.0.1"
VM0, VM1, REMOTE, FAR = "02:00:00:00:01:00", "02:00:00:00:01:01", "02:00:00:00:09:01", "02:00:00:00:01:09"
VNI = 100


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


def l4_csum_good(frame: bytes) -> bool | None:
    """scapy oracle: True/False = TCP or UDP checksum right/wrong, None = nothing to verify
    (not TCP/UDP right after IPv4/IPv6, IPv4 fragment, UDP checksum 0)."""
    p = Ether(frame)
    ip = p.getlayer(IP) or p.getlayer(IPv6)
    if ip is None:
        return None
    raw = bytes(ip)
    if isinstance(ip, IP):
        if ip.flags.MF or ip.frag:
            return None
        l4 = raw[ip.ihl * 4:ip.len]
        proto = ip.proto
    else:
        l4 = raw[40:40 + ip.plen]
        proto = ip.nh
    if proto not in (6, 17) or len(l4) < (20 if proto == 6 else 8):
        return None
    if proto == 17 and (l4[6:8] == b"\0\0" or int.from_bytes(l4[4:6], "big") != len(l4)):
        return None
    s = in4_chksum(proto, ip, l4) if isinstance(ip, IP) else in6_chksum(proto, ip, l4)
    return s == 0


def want_flags(frame: bytes, guest_csum: bool) -> int:
    return NET_HDR_F_DATA_VALID if guest_csum and l4_csum_good(frame) else 0


if cocotb is not None:

    async def wait_until(dut, cond, limit: int = 100000, what: str = "timeout") -> None:
        for _ in range(limit):
            if cond():
                return
            await RisingEdge(dut.clk)
        raise AssertionError(what)

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
                set_pair_vni(bus, p, VNI)
            back = [pair_vni(bus, p) for p in (0, 1)]
            net.post_rx(0, 8)
            net.post_rx(1, 8)
            return feats, back, vnicdev_pairs(bus), vs.read_tunnel(0)

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
        assert h.flags == want_flags(v2v, True) == NET_HDR_F_DATA_VALID
        assert h.gso_type == 0 and h.num_buffers == 1

        # ---------------- 3. wire RX: VXLAN from the remote VTEP
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
        for hh, d in rx0 + rx1:
            assert hh.flags == want_flags(d, True) and hh.gso_type == 0 and hh.num_buffers == 1
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
            dc = vnicdev_counters(bus)
            return VSwitch(bus).counters(), dc["grx_drop_qp"], dc["rx_frames"], dc["tx_frames"]

        cnt, drop_qp, rx_frames, tx_frames_n = await run_driver(counters)
        dut._log.info(f"vswitch counters {cnt}")
        assert cnt["drop_unknown_vni"] == 1
        n_tx = len(expect_wire) + 1 + len(p0) + len(p1_vm0)
        assert cnt["tx_in"] == n_tx and cnt["tx_out"] == len(expect_wire) + len(p0_remote)
        assert cnt["tx_local"] == 1 + len(p0_vm1) + len(p1_vm0) and cnt["tx_drop_unknown_vni"] == 0
        assert cnt["rx_in"] == 8 + len(w) and cnt["rx_local"] == 6 + len(w) and cnt["rx_flood"] == 1
        assert drop_qp == 1
        assert rx_frames == 1 + len(want0) + len(want1) + 32 and tx_frames_n == n_tx


    def vx(vni: int, f: bytes, sport: int = 49999) -> bytes:
        """A VXLAN frame from the remote VTEP (the test's tunnel 0 peer) carrying ``f``."""
        return bytes(Ether(dst=NIC_MAC, src=PEER_MAC) / IP(src=PEER_IP, dst=NIC_IP) /
                     UDP(sport=sport, dport=4789) / VXLAN(vni=vni) / f)

    def two_vm_tables(bus, net: VirtioNet, tun0: Tunnel, post: int = 8) -> None:
        """Driver side of the two-VM setup: 2 queue pairs, VNI 100 with both in its flood
        list, VM0 -> pair 0, VM1 -> pair 1, REMOTE behind tunnel 0; receive buffers posted."""
        net.probe()
        net.setup(pairs=2, size=64)
        vs = VSwitch(bus)
        vs.set_tunnel(0, tun0)
        vs.set_vni(0, VniEntry(VNI, 0, [0, 1], [0]))
        vs.add_local(VNI, VM0, 0)
        vs.add_local(VNI, VM1, 1)
        vs.add_remote(VNI, REMOTE, 0)
        for p in (0, 1):
            set_pair_vni(bus, p, VNI)
        net.post_rx(0, post)
        net.post_rx(1, post)

    @cocotb.test()
    async def rx_data_valid(dut):
        """DATA_VALID in the virtio_net_hdr of received frames against scapy's checksum
        verdict, with and without GUEST_CSUM negotiated; the checker's counters."""
        rng = random.Random(11)
        bus, net, mrx, wire = await setup(dut)
        tun0 = Tunnel(NIC_IP, PEER_IP, NIC_MAC, PEER_MAC)
        await run_driver(two_vm_tables, bus, net, tun0, 24)
        assert net.has(RV.F_GUEST_CSUM)

        def pl(n: int) -> bytes:
            return bytes(rng.randrange(256) for _ in range(n))

        def corrupt(f: bytes, at: int) -> bytes:
            return f[:at] + bytes([f[at] ^ 0x5A]) + f[at + 1:]

        e = Ether(dst=VM0, src=REMOTE)
        ip4 = IP(src="192.168.1.9", dst="192.168.1.1")
        ip6 = IPv6(src="fd00::9", dst="fd00::1")
        udp4 = bytes(e / ip4 / UDP(sport=1000, dport=2000) / pl(300))
        tcp4 = bytes(e / ip4 / TCP(sport=1001, dport=80, flags="PA", seq=7) / pl(513))
        udp6 = bytes(e / ip6 / UDP(sport=1002, dport=2001) / pl(777))
        tcp6 = bytes(e / ip6 / TCP(sport=1003, dport=81, flags="A") / pl(1300))
        frames = {
            "udp4": udp4,
            "udp4_bad_csum": bytes(e / ip4 / UDP(sport=1000, dport=2000, chksum=0x1234) / pl(99)),
            "tcp4": tcp4,
            "tcp4_bad_payload": corrupt(tcp4, len(tcp4) - 3),
            "udp4_csum0": bytes(e / ip4 / UDP(sport=7, dport=8, chksum=0) / pl(50)),
            "udp6": udp6,
            "udp6_bad_payload": corrupt(udp6, 100),
            "tcp6": tcp6,
            "tcp6_bad_payload": corrupt(tcp6, 80),
            "vlan_tcp4": bytes(Ether(dst=VM0, src=REMOTE) / Dot1Q(vlan=5) / ip4 /
                               TCP(sport=5, dport=6) / pl(201)),
            "ip_options_udp4": bytes(e / IP(src="192.168.1.9", dst="192.168.1.1",
                                            options=[IPOption_NOP()] * 8) /
                                     UDP(sport=9, dport=10) / pl(65)),
            "padded_udp4": bytes(e / ip4 / UDP(sport=3, dport=4) / b"hi") + bytes([0xA5] * 14),
            "padded_tcp4_bad": corrupt(bytes(e / ip4 / TCP(sport=3, dport=4) / b"x") + b"\x77" * 5,
                                       54),
            "fragment_udp4": bytes(e / IP(src="192.168.1.9", dst="192.168.1.1", flags="MF") /
                                   UDP(sport=11, dport=12) / pl(64)),
            "icmp4": bytes(e / ip4 / ICMP() / pl(40)),
            "arp": bytes(Ether(dst=VM0, src=REMOTE) / ARP(op=2, psrc="192.168.1.9",
                                                           pdst="192.168.1.1")),
            "udp4_big": bytes(e / ip4 / UDP(sport=1, dport=2) / pl(1400)),
        }
        verdict = {k: l4_csum_good(f) for k, f in frames.items()}
        # the oracle itself must see what the frames were built to be
        assert [k for k, v in verdict.items() if v is True] == \
            ["udp4", "tcp4", "udp6", "tcp6", "vlan_tcp4", "ip_options_udp4", "padded_udp4",
             "udp4_big"]
        assert [k for k, v in verdict.items() if v is False] == \
            ["udp4_bad_csum", "tcp4_bad_payload", "udp6_bad_payload", "tcp6_bad_payload",
             "padded_tcp4_bad"]
        names = list(frames)
        c0 = await run_driver(vnicdev_counters, bus)
        for k in names:
            mrx.send(vx(VNI, frames[k], sport=rng.randrange(49152, 65536)))
        # VM to VM with checksum offload on the sender (pair 1 -> VM0): the device fills the
        # checksum in on TX and verifies it on RX
        p = Ether(dst=VM0, src=VM1) / IP(src="192.168.1.2", dst="192.168.1.1") / \
            UDP(sport=5555, dport=7) / Raw(pl(123))
        final = bytes(p)
        partial = struct.pack(">H", ones_sum(bytes(p[IP])[12:20] +
                                             struct.pack(">BBH", 0, 17, len(final) - 34)))
        await run_driver(net.send, 1, final[:40] + partial + final[42:], csum=(34, 6))
        await wait_until(dut, lambda: net.queues[0].used_idx() == len(names) + 1)
        await ClockCycles(dut.clk, 300)
        got = await run_driver(net.recv, 0)
        wire_got = [d for _, d in got if d != final]
        assert wire_got == [frames[k] for k in names], "frames exact, in order"
        for h, d in got:
            assert h.flags == want_flags(d, True), (h.flags, Ether(d).summary())
            assert h.gso_type == 0 and h.num_buffers == 1
        assert [h for h, d in got if d == final][0].flags == NET_HDR_F_DATA_VALID
        c1 = await run_driver(vnicdev_counters, bus)
        n_ok = sum(v is True for v in verdict.values()) + 1
        n_bad = sum(v is False for v in verdict.values())
        assert c1["rx_csum_ok"] - c0["rx_csum_ok"] == n_ok
        assert c1["rx_csum_bad"] - c0["rx_csum_bad"] == n_bad
        assert c1["rx_csum_skip"] - c0["rx_csum_skip"] == len(names) - n_ok - n_bad + 1
        assert c1["tx_csum"] - c0["tx_csum"] == 1

        # the driver does not negotiate GUEST_CSUM: flags must stay 0 (VirtIO 1.2 5.1.6.4.1)
        net2 = VirtioNet(bus, net.mem, base=VIRTIO_BASE,
                         want=VirtioNet.WANT & ~(1 << RV.F_GUEST_CSUM))
        def reprobe() -> None:   # virtio reset + re-init; the vSwitch tables stay
            net2.probe()
            net2.setup(pairs=2, size=64)
            net2.post_rx(0, 8)

        await run_driver(reprobe)
        assert not net2.has(RV.F_GUEST_CSUM)
        again = [frames[k] for k in ("udp4", "tcp6", "vlan_tcp4", "udp4_bad_csum")]
        for f in again:
            mrx.send(vx(VNI, f))
        await wait_until(dut, lambda: net2.queues[0].used_idx() == len(again))
        got2 = await run_driver(net2.recv, 0)
        assert [d for _, d in got2] == again
        assert all(h.flags == want_flags(d, False) == 0 for h, d in got2)
        assert len(wire.frames) == 0

    @cocotb.test()
    async def tx_rx_stall(dut):
        """Wire TX blocked with the guest's TX queued behind it: RX must keep flowing (ring
        reads and TX data reads share one in-order AXI read channel); then everything at
        once with back-pressure, every frame exact."""
        rng = random.Random(23)
        bus, net, mrx, wire = await setup(dut)
        tun0 = Tunnel(NIC_IP, PEER_IP, NIC_MAC, PEER_MAC)
        await run_driver(two_vm_tables, bus, net, tun0, 32)

        def inner(dst: str, src: str, n: int) -> bytes:
            return bytes(Ether(dst=dst, src=src) / IP(src="192.168.1.1", dst="192.168.1.2") /
                         UDP(sport=rng.randrange(1024, 65535), dport=9) /
                         Raw(bytes(rng.randrange(256) for _ in range(n))))

        # ---- 1. wire TX blocked; 20 large frames for the wire fill the vSwitch TX buffer,
        #         the TX slots and the DMA read queue
        wire.busy = 1.0
        blocked = [inner(REMOTE, VM0, rng.randrange(900, 1400)) for _ in range(20)]

        def send_blocked() -> None:
            for f in blocked:
                net.send(0, f, pieces=rng.choice([1, 2, 3]), indirect=True, kick=False)
            net.kick(1)

        await run_driver(send_blocked)
        await ClockCycles(dut.clk, 4000)
        rx_w = [(rng.choice([VM0, VM1]), rng.randrange(60, 1400)) for _ in range(10)]
        rx_frames = [inner(dst, REMOTE, n) for dst, n in rx_w]
        for f in rx_frames:
            mrx.send(vx(VNI, f, sport=rng.randrange(49152, 65536)))
        want0 = [f for f in rx_frames if Ether(f).dst == VM0]
        want1 = [f for f in rx_frames if Ether(f).dst == VM1]
        await wait_until(dut, lambda: net.queues[0].used_idx() == len(want0)
                         and net.queues[2].used_idx() == len(want1), 60000,
                         "RX stalled while the wire TX was blocked")
        assert len(wire.frames) == 0, "the wire TX was blocked all along"
        rx0, rx1 = await run_driver(lambda: (net.recv(0), net.recv(1)))
        assert [d for _, d in rx0] == want0 and [d for _, d in rx1] == want1
        assert all(h.flags == want_flags(d, True) for h, d in rx0 + rx1)

        # ---- 2. release the wire; at the same time heavy traffic in every direction
        wire.busy = 0.3
        p0_remote = [inner(REMOTE, VM0, rng.randrange(0, 1400)) for _ in range(16)]
        p0_vm1 = [inner(VM1, VM0, rng.randrange(0, 1400)) for _ in range(12)]
        p1_vm0 = [inner(VM0, VM1, rng.randrange(0, 1400)) for _ in range(12)]
        w_vm0 = [inner(VM0, REMOTE, rng.randrange(0, 1400)) for _ in range(10)]
        w_vm1 = [inner(VM1, REMOTE, rng.randrange(0, 1400)) for _ in range(10)]
        p0 = [*p0_remote, *p0_vm1]
        rng.shuffle(p0)
        w = [*w_vm0, *w_vm1]
        rng.shuffle(w)

        def burst() -> None:
            for f in p0:   # indirect chains: 48 chains fit the 64-entry ring
                net.send(0, f, pieces=rng.choice([1, 2, 3]), indirect=True, kick=False)
            for f in p1_vm0:
                net.send(1, f, pieces=rng.choice([1, 2]), kick=False)
            net.kick(1)
            net.kick(3)

        for f in w:
            mrx.send(vx(VNI, f, sport=rng.randrange(49152, 65536)))
        await run_driver(burst)
        n0, n1 = len(want0) + len(w_vm0) + len(p1_vm0), len(want1) + len(w_vm1) + len(p0_vm1)
        await wait_until(dut, lambda: len(wire.frames) == len(blocked) + len(p0_remote)
                         and net.queues[0].used_idx() == n0 and net.queues[2].used_idx() == n1,
                         400000, "heavy traffic did not complete")
        await ClockCycles(dut.clk, 300)
        rx0, rx1 = await run_driver(lambda: (net.recv(0), net.recv(1)))
        got0, got1 = [d for _, d in rx0], [d for _, d in rx1]
        assert sorted(got0) == sorted(w_vm0 + p1_vm0) and sorted(got1) == sorted(w_vm1 + p0_vm1)
        assert [d for d in got0 if d in w_vm0] == [f for f in w if f in w_vm0]
        assert got0 and [d for d in got0 if d in p1_vm0] == p1_vm0
        assert [d for d in got1 if d in w_vm1] == [f for f in w if f in w_vm1]
        assert [d for d in got1 if d in p0_vm1] == [f for f in p0 if f in p0_vm1]
        assert all(h.flags == want_flags(d, True) and h.num_buffers == 1 for h, d in rx0 + rx1)
        inner_wire = []
        for fr in wire.frames:
            assert fr.user == 0 and fr.keep_ok
            o = Ether(fr.data)
            check_outer(o, tun0)
            assert o[VXLAN].vni == VNI
            inner_wire.append(bytes(o[VXLAN].payload))
        assert inner_wire == blocked + [f for f in p0 if f in p0_remote], "wire frames, in order"
        await wait_until(dut, lambda: all(net.queues[q].used_idx() == net.queues[q].avail_idx
                                          for q in (1, 3)))
        reaped = await run_driver(lambda: net.reap_tx(0) + net.reap_tx(1))
        assert len(reaped) == len(blocked) + len(p0) + len(p1_vm0)
        dc = await run_driver(vnicdev_counters, bus)
        assert dc["tx_drop"] == 0 and dc["rx_drop_nobuf"] == 0 and dc["rx_drop_small"] == 0
        assert dc["tx_frames"] == len(reaped)
        assert dc["rx_frames"] == len(rx_frames) + n0 + n1 - len(want0) - len(want1)

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
            set_pair_vni(bus, 0, VNI)
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


def _run(testcase: str | list[str], params: dict | None = None) -> None:
    """Both tests share one build: serialize them (pytest-xdist may run them at once)."""
    import fcntl

    from fabnic_tb import tools
    from fabnic_tb.runner import run

    tools.BUILD.mkdir(parents=True, exist_ok=True)
    with open(tools.BUILD / "fabnic_vnic_dev.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run(toplevel="fabnic_vnic_dev", module="test_vnic_dev", test_dir=Path(__file__).parent,
            parameters=params or PARAMS, testcase=testcase, read_only_internals=True)


def test_vnic_dev() -> None:
    _run("virtio_vxlan")


def test_vnic_dev_data_valid() -> None:
    _run("rx_data_valid")


def test_vnic_dev_tx_rx_stall() -> None:
    _run("tx_rx_stall")


@pytest.mark.slow   # the 64-bit build covers the same paths; kept out of the 20-minute regression
def test_vnic_dev_512() -> None:
    _run(["virtio_vxlan", "rx_data_valid"], dict(PARAMS, DATA_W=512, TX_DEPTH=64, GRX_DEPTH=64))


def test_kernel_peer_virtio() -> None:
    why = _netns_tap_ok()
    if why is not None:
        pytest.skip(why)
    _run("kernel_peer_virtio")
