# SPDX-License-Identifier: Apache-2.0
"""vSwitch / VTEP table management over the register mailbox (docs/vxlan.md).

Plain blocking Python over a :class:`fabnic.bus.Bus`; the same code drives the
simulation (tb/fabnic_tb/fw_bus.py) and a board. Tables:

* tunnels: slot -> :class:`Tunnel` (outer headers towards one remote VTEP)
* VNIs: slot -> VNI, default tunnel, local flood queues, remote flood tunnels
* MAC entries: (VNI, MAC) -> local queue pair, uplink tunnel or the RoCE engine

On the virtio device top (fabnic_vnic_dev) the VNI of each queue pair's TX frames
and the glue counters are the ``vnicdev`` block (fabnic.regmap_vnicdev):
:func:`set_pair_vni`, :func:`pair_vni`, :func:`vnicdev_counters`.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from fabnic.bus import Bus
from fabnic.regmap_vnicdev import VNICDEV, qp_vni_addr
from fabnic.regmap_vxlan import VALUE_WORDS, VXLAN

ACT_NONE, ACT_LOCAL, ACT_UPLINK, ACT_ROCE = 0, 1, 2, 3
OP_ADD, OP_DEL, OP_READ = 0, 1, 2
TBL_MAC, TBL_VNI, TBL_TUN = 0, 1, 2
ST_OK, ST_FULL, ST_NOT_FOUND, ST_BAD_CMD = 0, 1, 2, 3
STATUS_NAMES = {ST_OK: "ok", ST_FULL: "full", ST_NOT_FOUND: "not found", ST_BAD_CMD: "bad command"}

# tunnel_t, most significant field first (rtl/vxlan/fabnic_vxlan_pkg.sv)
TUNNEL_FIELDS = (("is_ipv6", 1), ("src_ip", 128), ("dst_ip", 128), ("src_mac", 48),
                 ("dst_mac", 48), ("ttl", 8), ("dscp", 6))


class VSwitchError(RuntimeError):
    def __init__(self, what: str, status: int) -> None:
        super().__init__(f"{what}: {STATUS_NAMES.get(status, status)}")
        self.status = status


def mac_to_int(mac: str | int) -> int:
    return mac if isinstance(mac, int) else int(mac.replace(":", "").replace("-", ""), 16)


def ip_to_int(ip: str | int) -> tuple[int, bool]:
    """(value, is_ipv6) of an address; IPv4 in the low 32 bits."""
    if isinstance(ip, int):
        return ip, ip >= 1 << 32
    a = ipaddress.ip_address(ip)
    return int(a), a.version == 6


@dataclass
class Tunnel:
    src_ip: str          # local VTEP address
    dst_ip: str          # remote VTEP address
    src_mac: str         # our port's MAC
    dst_mac: str         # next hop (or remote VTEP) MAC
    ttl: int = 64
    dscp: int = 0

    def pack(self) -> int:
        s, v6 = ip_to_int(self.src_ip)
        d, v6d = ip_to_int(self.dst_ip)
        if v6 != v6d:
            raise ValueError("tunnel source and destination must be the same IP version")
        vals = {"is_ipv6": int(v6), "src_ip": s, "dst_ip": d, "src_mac": mac_to_int(self.src_mac),
                "dst_mac": mac_to_int(self.dst_mac), "ttl": self.ttl, "dscp": self.dscp}
        v = 0
        for n, w in TUNNEL_FIELDS:
            v = (v << w) | (vals[n] & ((1 << w) - 1))
        return v

    @staticmethod
    def unpack(v: int) -> Tunnel:
        out: dict[str, int] = {}
        pos = sum(w for _, w in TUNNEL_FIELDS)
        for n, w in TUNNEL_FIELDS:
            pos -= w
            out[n] = (v >> pos) & ((1 << w) - 1)

        def ip(x: int) -> str:
            return str(ipaddress.IPv6Address(x) if out["is_ipv6"] else ipaddress.IPv4Address(x))

        def mac(x: int) -> str:
            return ":".join(f"{(x >> (40 - 8 * i)) & 0xFF:02x}" for i in range(6))

        return Tunnel(ip(out["src_ip"]), ip(out["dst_ip"]), mac(out["src_mac"]),
                      mac(out["dst_mac"]), out["ttl"], out["dscp"])


@dataclass
class VniEntry:
    vni: int
    default_tunnel: int = 0
    local_queues: list[int] = field(default_factory=list)    # flood targets (queue pairs)
    remote_tunnels: list[int] = field(default_factory=list)  # head-end replication targets

    def pack(self) -> int:
        v = self.default_tunnel | (len(self.local_queues) << 16) | (len(self.remote_tunnels) << 24)
        for i, q in enumerate(self.local_queues):
            v |= q << (64 + 16 * i)
        for i, t in enumerate(self.remote_tunnels):
            v |= t << (192 + 16 * i)
        return v

    @staticmethod
    def unpack(v: int) -> VniEntry:
        nq, nr = (v >> 16) & 0xFF, (v >> 24) & 0xFF
        return VniEntry((v >> 32) & 0xFFFFFF, v & 0xFFFF,
                        [(v >> (64 + 16 * i)) & 0xFFFF for i in range(nq)],
                        [(v >> (192 + 16 * i)) & 0xFFFF for i in range(nr)])


class VSwitch:
    """Table manager of one VTEP (register block ``vxlan``)."""

    def __init__(self, bus: Bus, base: int = VXLAN.base, poll_limit: int = 1000) -> None:
        self.bus = bus
        self.base = base
        self.poll_limit = poll_limit
        self.entries = self._rd("entries")
        self.vni_entries = self._rd("vni_entries")
        self.tun_entries = self._rd("tun_entries")
        self.flood_max = self._rd("flood_max")
        self.rflood_max = self._rd("rflood_max")

    def _addr(self, name: str) -> int:
        return self.base + VXLAN.reg(name).offset

    def _rd(self, name: str) -> int:
        return self.bus.read32(self._addr(name))

    def _wr(self, name: str, value: int) -> None:
        self.bus.write32(self._addr(name), value)

    def command(self, op: int, table: int, *, mac: int = 0, vni: int = 0, index: int = 0,
                value: int = 0, read_value: bool = False) -> tuple[int, int]:
        """One table command; returns (status, response value)."""
        if self._rd("cmd_status") & 1:
            raise RuntimeError("vswitch mailbox busy")
        self._wr("cmd_key_lo", mac & 0xFFFFFFFF)
        self._wr("cmd_key_hi", (mac >> 32) & 0xFFFF)
        self._wr("cmd_vni", vni & 0xFFFFFF)
        self._wr("cmd_index", index & 0xFFFF)
        if op == OP_ADD:
            for i in range(VALUE_WORDS):
                self._wr(f"cmd_value{i}", (value >> (32 * i)) & 0xFFFFFFFF)
        self._wr("cmd", (op & 3) | (table & 3) << 2)
        for _ in range(self.poll_limit):
            st = self._rd("cmd_status")
            if not st & 1:
                break
        else:
            raise TimeoutError("vswitch command did not complete")
        if st & 0x10:
            raise RuntimeError("vswitch command overrun")
        rv = 0
        if read_value:
            for i in range(VALUE_WORDS):
                rv |= self._rd(f"rsp_value{i}") << (32 * i)
        return (st >> 2) & 3, rv

    # ---- MAC table
    def add_mac(self, vni: int, mac: str | int, action: int, index: int) -> None:
        st, _ = self.command(OP_ADD, TBL_MAC, mac=mac_to_int(mac), vni=vni,
                             value=(action << 16) | index)
        if st != ST_OK:
            raise VSwitchError(f"add MAC {mac} VNI {vni}", st)

    def add_local(self, vni: int, mac: str | int, queue_pair: int) -> None:
        self.add_mac(vni, mac, ACT_LOCAL, queue_pair)

    def add_remote(self, vni: int, mac: str | int, tunnel: int) -> None:
        self.add_mac(vni, mac, ACT_UPLINK, tunnel)

    def add_roce(self, vni: int, mac: str | int) -> None:
        self.add_mac(vni, mac, ACT_ROCE, 0)

    def remove_mac(self, vni: int, mac: str | int) -> bool:
        """False if the entry was not there."""
        st, _ = self.command(OP_DEL, TBL_MAC, mac=mac_to_int(mac), vni=vni)
        return st == ST_OK

    def lookup_mac(self, vni: int, mac: str | int) -> tuple[int, int] | None:
        """(action, index) or None."""
        st, v = self.command(OP_READ, TBL_MAC, mac=mac_to_int(mac), vni=vni, read_value=True)
        return None if st != ST_OK else ((v >> 16) & 3, v & 0xFFFF)

    def mac_entries(self) -> int:
        return self._rd("mac_entries")

    # ---- VNI table
    def set_vni(self, slot: int, entry: VniEntry) -> None:
        if len(entry.local_queues) > self.flood_max or len(entry.remote_tunnels) > self.rflood_max:
            raise ValueError("flood list longer than the hardware supports")
        st, _ = self.command(OP_ADD, TBL_VNI, vni=entry.vni, index=slot, value=entry.pack())
        if st != ST_OK:
            raise VSwitchError(f"set VNI slot {slot}", st)

    def remove_vni(self, slot: int) -> None:
        st, _ = self.command(OP_DEL, TBL_VNI, index=slot)
        if st != ST_OK:
            raise VSwitchError(f"remove VNI slot {slot}", st)

    def read_vni(self, slot: int) -> VniEntry | None:
        st, v = self.command(OP_READ, TBL_VNI, index=slot, read_value=True)
        return VniEntry.unpack(v) if st == ST_OK else None

    # ---- tunnel table
    def set_tunnel(self, slot: int, tunnel: Tunnel) -> None:
        st, _ = self.command(OP_ADD, TBL_TUN, index=slot, value=tunnel.pack())
        if st != ST_OK:
            raise VSwitchError(f"set tunnel slot {slot}", st)

    def remove_tunnel(self, slot: int) -> None:
        st, _ = self.command(OP_DEL, TBL_TUN, index=slot)
        if st != ST_OK:
            raise VSwitchError(f"remove tunnel slot {slot}", st)

    def read_tunnel(self, slot: int) -> Tunnel:
        st, v = self.command(OP_READ, TBL_TUN, index=slot, read_value=True)
        if st != ST_OK:
            raise VSwitchError(f"read tunnel slot {slot}", st)
        return Tunnel.unpack(v)

    # ---- counters
    COUNTERS = ("rx_in", "rx_local", "rx_flood", "rx_roce", "drop_outer", "drop_bad_vxlan",
                "drop_short", "drop_unknown_vni", "drop_no_flood", "drop_loop", "ce_marked",
                "ce_not_ect", "tx_in", "tx_out", "tx_local", "tx_flood", "tx_drop_unknown_vni",
                "tx_drop_no_route", "tx_drop_oversize", "tx_drop_bad", "lookups", "add_full")

    def counters(self) -> dict[str, int]:
        return {n: self._rd(n) for n in self.COUNTERS}


# ---------------------------------------------------------------- vnicdev block (fabnic_vnic_dev)
def set_pair_vni(bus: Bus, pair: int, vni: int) -> None:
    """Queue pair ``pair``'s TX frames enter the vSwitch in VNI ``vni``."""
    if not 0 <= vni < 1 << 24:
        raise ValueError(f"VNI {vni} out of 24 bits")
    bus.write32(qp_vni_addr(pair), vni)


def pair_vni(bus: Bus, pair: int) -> int:
    return bus.read32(qp_vni_addr(pair)) & 0xFFFFFF


def vnicdev_pairs(bus: Bus) -> int:
    return bus.read32(VNICDEV.addr("pairs"))


def vnicdev_counters(bus: Bus) -> dict[str, int]:
    """Every counter of the vnicdev block, by register name."""
    return {r.name: bus.read32(VNICDEV.base + r.offset) for r in VNICDEV.regs if r.kind == "ro"}
