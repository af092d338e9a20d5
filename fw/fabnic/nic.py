# SPDX-License-Identifier: Apache-2.0
"""Driver of the complete NIC top ``rtl/top/fabnic_nic.sv`` (docs/nic.md): the RoCE
verbs context, the vSwitch/VTEP tables and the per-QP VNI binding behind one
AXI-Lite window. Plain blocking Python over a :class:`fabnic.bus.Bus` (no cocotb).

Usage::

    nic = open_nic(bus, mem, mac="02:00:00:00:00:0a", ip="10.0.0.1")
    nic.add_roce_tenant(100, vni_slot=0, tunnel_slot=0,
                        tunnel=Tunnel("192.168.0.1", "192.168.0.2", our_mac, peer_port_mac),
                        peer_macs=["02:00:00:00:00:0b"])
    qp = nic.ctx.create_qp(...)
    nic.ctx.bind_qp_vni(qp, 100)       # or nic.bind(qp.qpn, 100); None unbinds
"""

from __future__ import annotations

from typing import Any

from fabnic import verbs
from fabnic.bus import Bus, HostMemory
from fabnic.regmap_nic import BIND_BOUND, NIC, NIC_BASE, ROCE_BASE, VNIC_BASE
from fabnic.vswitch import Tunnel, VniEntry, VSwitch


class OffsetBus:
    """A window of a larger register space: address ``a`` here is ``base + a`` there."""

    def __init__(self, bus: Bus, base: int) -> None:
        self.bus = bus
        self.base = base

    def read32(self, addr: int) -> int:
        return self.bus.read32(self.base + addr)

    def write32(self, addr: int, value: int) -> None:
        self.bus.write32(self.base + addr, value)


class NicError(RuntimeError):
    pass


class Nic:
    """One fabnic_nic: ``ctx`` (verbs), ``vswitch`` (VTEP tables), VNI binding."""

    def __init__(self, bus: Bus, ctx: verbs.Context, poll_limit: int = 1000) -> None:
        self.bus = bus
        self.regs = OffsetBus(bus, NIC_BASE)
        self.vnic_bus = OffsetBus(bus, VNIC_BASE)
        self.ctx = ctx
        self.poll_limit = poll_limit
        self.num_qp = self._rd("num_qp")
        self.wait_ready()
        self.vswitch = VSwitch(self.vnic_bus)
        ctx.vni_binding = self.bind

    def _rd(self, name: str) -> int:
        return self.regs.read32(NIC.reg(name).offset)

    def _wr(self, name: str, value: int) -> None:
        self.regs.write32(NIC.reg(name).offset, value)

    def wait_ready(self) -> None:
        """Wait until the binding table and the vSwitch MAC table are cleared."""
        for _ in range(self.poll_limit):
            if self._rd("status") & 3 == 3:
                return
        raise NicError("fabnic_nic: tables not initialised (nic.status != 3)")

    # ------------------------------------------------------------- VNI binding
    def bind(self, qpn: int, vni: int | None) -> None:
        """Bind QP ``qpn`` to ``vni`` (None: unbind, plain RoCEv2). Read back."""
        if not 0 <= qpn < self.num_qp:
            raise NicError(f"QPN {qpn} out of 0..{self.num_qp - 1}")
        if vni is not None and not 0 <= vni < 1 << 24:
            raise NicError(f"VNI {vni} out of 24 bits")
        want = 0 if vni is None else BIND_BOUND | vni
        self._wr("bind_qp", qpn)
        self._wr("bind", want)
        got = self._rd("bind_rd")
        if got != want:
            raise NicError(f"QP {qpn}: binding reads back {got:#x}, wrote {want:#x}")

    def binding(self, qpn: int) -> int | None:
        """The VNI QP ``qpn`` is bound to, or None."""
        self._wr("bind_qp", qpn)
        v = self._rd("bind_rd")
        return v & 0xFFFFFF if v & BIND_BOUND else None

    # ------------------------------------------------------------- vSwitch for RoCE
    def add_roce_tenant(self, vni: int, *, vni_slot: int, tunnel_slot: int, tunnel: Tunnel,
                        peer_macs: list[str | int]) -> None:
        """Tenant network ``vni`` for the RoCE engine: tunnel ``tunnel_slot`` to the remote
        VTEP, VNI entry (default and flood tunnel = it), the engine's MAC in ``vni``
        (ACT_ROCE: decapsulated frames to it go to the engine), and each peer RoCE MAC
        behind the tunnel (the engine's inner frames to it are encapsulated)."""
        self.vswitch.set_tunnel(tunnel_slot, tunnel)
        self.vswitch.set_vni(vni_slot, VniEntry(vni, default_tunnel=tunnel_slot,
                                                remote_tunnels=[tunnel_slot]))
        self.vswitch.add_roce(vni, self.ctx.mac)
        for m in peer_macs:
            self.vswitch.add_remote(vni, m, tunnel_slot)

    # ------------------------------------------------------------- counters
    def counters(self) -> dict[str, int]:
        """The nic block's counters by register name."""
        return {r.name: self.regs.read32(r.offset) for r in NIC.regs
                if r.kind == "ro" and r.name not in ("status", "bind_rd")}


def open_nic(bus: Bus, mem: HostMemory, **kw: Any) -> Nic:
    """Open the RoCE part (fabnic.verbs.open_device on the NIC's RoCE window, keyword
    arguments passed on) and the NIC block; returns the :class:`Nic`."""
    ctx = verbs.open_device(OffsetBus(bus, ROCE_BASE) if ROCE_BASE else bus, mem, **kw)
    return Nic(bus, ctx)
