# SPDX-License-Identifier: Apache-2.0
"""fabnic.nic without a simulator: the addresses it uses come from the register map
(fabnic.regmap_nic, docs/nic.md address map), checked against a dictionary bus that
models the nic block's bind/bind_rd behaviour from its description."""

from __future__ import annotations

import pytest

from fabnic import verbs
from fabnic.nic import Nic, NicError, OffsetBus
from fabnic.regmap_nic import NIC_BASE, VNIC_BASE

NUM_QP = 8


class FakeNicBus:
    """Registers of the nic block as docs/nic.md describes them; anything else reads 0."""

    def __init__(self) -> None:
        self.table = [0] * NUM_QP
        self.bind_qp = 0
        self.log: list[tuple[str, int, int]] = []

    def read32(self, addr: int) -> int:
        self.log.append(("r", addr, 0))
        if addr == NIC_BASE + 0x00:
            return NUM_QP
        if addr == NIC_BASE + 0x04:
            return 3
        if addr == NIC_BASE + 0x10:
            return self.table[self.bind_qp] if self.bind_qp < NUM_QP else 0
        return 0

    def write32(self, addr: int, value: int) -> None:
        self.log.append(("w", addr, value))
        if addr == NIC_BASE + 0x08:
            self.bind_qp = value & 0xFFFFFF
        elif addr == NIC_BASE + 0x0C and self.bind_qp < NUM_QP:
            self.table[self.bind_qp] = value & 0x1FFFFFF


class StubCtx:
    mac = 0x02000000000A
    vni_binding = None


def test_bind_addresses_and_readback() -> None:
    bus = FakeNicBus()
    nic = Nic(bus, StubCtx())  # type: ignore[arg-type]
    assert nic.num_qp == NUM_QP
    nic.bind(3, 100)
    assert ("w", 0x1010008, 3) in bus.log and ("w", 0x101000C, (1 << 24) | 100) in bus.log
    assert nic.binding(3) == 100 and nic.binding(2) is None
    nic.bind(3, None)
    assert nic.binding(3) is None
    with pytest.raises(NicError):
        nic.bind(NUM_QP, 5)
    with pytest.raises(NicError):
        nic.bind(1, 1 << 24)


def test_offset_bus_and_verbs_hook() -> None:
    bus = FakeNicBus()
    OffsetBus(bus, VNIC_BASE).write32(0x2800, 7)
    assert bus.log[-1] == ("w", 0x1002800, 7)
    ctx = StubCtx()
    nic = Nic(bus, ctx)  # type: ignore[arg-type]
    assert ctx.vni_binding == nic.bind
    # a bare RoCE context has no binding hook
    bare = object.__new__(verbs.Context)
    bare.vni_binding = None
    with pytest.raises(verbs.VerbsError):
        bare.bind_qp_vni(object(), 100)  # type: ignore[arg-type]
