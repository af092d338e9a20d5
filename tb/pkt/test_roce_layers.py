# SPDX-License-Identifier: Apache-2.0
"""fabnic_tb.roce_layers (no simulator): header sizes and field offsets from the IBTA
spec (REFERENCES.md), the layer order each opcode dissects to, and scapy's ICRC against
the independent zlib model of the REFERENCES.md masking rules."""

from __future__ import annotations

import random
import struct

from scapy.layers.l2 import Ether

from fabnic_tb import roce_layers as rl

# opcode (low 5 bits) -> extension headers after BTH, IBTA vol. 1 ch. 9
ORDER = {
    0x00: [], 0x01: [], 0x02: [], 0x03: ["ImmDt"], 0x04: [], 0x05: ["ImmDt"],
    0x06: ["RETH"], 0x07: [], 0x08: [], 0x09: ["ImmDt"], 0x0A: ["RETH"],
    0x0B: ["RETH", "ImmDt"], 0x0C: ["RETH"], 0x0D: ["AETH"], 0x0E: [], 0x0F: ["AETH"],
    0x10: ["AETH"], 0x11: ["AETH"], 0x12: ["AETH", "AtomicAckETH"], 0x13: ["AtomicETH"],
    0x14: ["AtomicETH"], 0x16: ["IETH"], 0x17: ["IETH"],
}


def test_sizes() -> None:
    assert len(bytes(rl.RETH())) == 16
    assert len(bytes(rl.ImmDt())) == 4
    assert len(bytes(rl.IETH())) == 4
    assert len(bytes(rl.AtomicETH())) == 28
    assert len(bytes(rl.AtomicAckETH())) == 8
    # field positions, network order
    assert bytes(rl.RETH(va=0x0102030405060708, rkey=0x11223344, dlen=0x55667788)) == bytes.fromhex(
        "0102030405060708" "11223344" "55667788")
    assert bytes(rl.AtomicETH(va=1, rkey=2, swap_add=3, compare=4)) == struct.pack(">QIQQ", 1, 2, 3, 4)


def test_dissect_order() -> None:
    rng = random.Random(1)
    for op, names in ORDER.items():
        for v6 in (False, True):
            pay = rng.randbytes(rng.randrange(0, 64) & ~3)
            raw = bytes(rl.roce_frame(op, pay, ipv6=v6, vlan=5 if v6 else None,
                                      exts=rl.ext_headers(op, rng), dqpn=7, psn=9))
            pkt = Ether(raw)
            layers = []
            lay = pkt[rl.BTH].payload
            while lay is not None and lay.name not in ("Raw", "NoPayload", "Padding"):
                layers.append(lay.name)
                lay = lay.payload
            assert layers == names, (hex(op), layers)
            assert bytes(pkt) == raw
            assert pkt[rl.BTH].dqpn == 7 and pkt[rl.BTH].psn == 9
            assert raw[-4:] == rl.icrc_reference(raw[:-4])


def test_icrc_matches_reference() -> None:
    rng = random.Random(2)
    for _ in range(200):
        f = rl.random_roce_frame(rng, 300)
        assert rl.icrc_reference(f[:-4]) == f[-4:]
