# SPDX-License-Identifier: Apache-2.0
"""fw/fabnic/vswitch.py value packing (no simulation) against the independent packers
of tb/vxlan/vxlan_model.py (written from docs/vxlan.md), and the register block."""

from __future__ import annotations

import ipaddress
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vxlan"))

from vxlan_model import TUNNEL_FIELDS, pack, vni_value  # noqa: E402

from fabnic.regmap_vxlan import MAP_VNIC, VALUE_WORDS, VXLAN  # noqa: E402
from fabnic.vswitch import Tunnel, VniEntry, VSwitch  # noqa: E402


def test_tunnel_and_vni_packing() -> None:
    rng = random.Random(3)
    for _ in range(50):
        v6 = rng.random() < 0.5
        bits = 128 if v6 else 32
        s, d = rng.getrandbits(bits), rng.getrandbits(bits)
        ip = ipaddress.IPv6Address if v6 else ipaddress.IPv4Address
        smac, dmac = rng.getrandbits(48), rng.getrandbits(48)
        t = Tunnel(str(ip(s)), str(ip(d)), ":".join(f"{smac >> (40 - 8 * i) & 255:02x}"
                                                      for i in range(6)),
                   ":".join(f"{dmac >> (40 - 8 * i) & 255:02x}" for i in range(6)),
                   rng.randrange(256), rng.randrange(64))
        ref = pack(TUNNEL_FIELDS, {"is_ipv6": int(v6), "src_ip": s, "dst_ip": d,
                                   "src_mac": smac, "dst_mac": dmac, "ttl": t.ttl,
                                   "dscp": t.dscp})
        assert t.pack() == ref and Tunnel.unpack(ref) == t
        qs = [rng.randrange(256) for _ in range(rng.randrange(5))]
        rs = [rng.randrange(16) for _ in range(rng.randrange(5))]
        e = VniEntry(rng.randrange(1 << 24), rng.randrange(16), qs, rs)
        assert e.pack() == vni_value(e.default_tunnel, qs, rs)
        assert VniEntry.unpack(e.pack() | e.vni << 32) == e   # READ adds the VNI at 55:32
        assert e.pack() < 1 << (32 * VALUE_WORDS)


def test_register_block() -> None:
    assert MAP_VNIC[-1] is VXLAN
    names = {r.name for r in VXLAN.regs}
    assert set(VSwitch.COUNTERS) <= names
    assert {f"cmd_value{i}" for i in range(VALUE_WORDS)} <= names
    assert {f"rsp_value{i}" for i in range(VALUE_WORDS)} <= names
    assert 32 * VALUE_WORDS >= 367


def test_generated_register_file_in_sync() -> None:
    """rtl/top/fabnic_regs_vnic.sv is sim/gen_regs.gen_sv("vnic", MAP_VNIC, the blocks'
    PeakRDL-regblock exports)."""
    import sys

    repo = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(repo / "sim"))
    import gen_regs

    text = (repo / "rtl" / "top" / "fabnic_regs_vnic.sv").read_text()
    assert text == gen_regs.gen_sv("vnic", MAP_VNIC, gen_regs.regblock_blocks()), \
        "regenerate: make regs"
