# SPDX-License-Identifier: Apache-2.0
"""Reference model of the selective-repeat receive window (docs/roce_sr.md, "Receiver").

Written from the document, not from the RTL: a QP is an expected PSN plus the *set*
of PSNs received ahead of it (no bitmap arithmetic); the SACK bitmap is derived from
the set only when a response is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

PSN_MOD = 1 << 24
HALF = 1 << 23


class SrClass(IntEnum):
    NEW_IN_ORDER = 0
    NEW_OUT_OF_ORDER = 1
    DUPLICATE = 2
    BEYOND_WINDOW = 3
    ORDERED_EARLY = 4


@dataclass(frozen=True)
class SrResponse:
    cls: SrClass
    epsn: int      # expected PSN after the update = SACK base
    adv: int       # PSNs the expected PSN moved by
    bitmap: int    # bit i set: PSN epsn+i received


@dataclass
class QpWindow:
    epsn: int
    ahead: set[int] = field(default_factory=set)  # PSNs received beyond epsn


def psn_add(a: int, b: int) -> int:
    return (a + b) % PSN_MOD


def psn_dist(psn: int, base: int) -> int:
    """Forward distance from base to psn modulo 2^24."""
    return (psn - base) % PSN_MOD


class SrWindowModel:
    def __init__(self, window: int = 64) -> None:
        self.window = window
        self.qps: dict[int, QpWindow] = {}

    def init(self, qpn: int, epsn: int) -> None:
        self.qps[qpn] = QpWindow(epsn % PSN_MOD)

    def _report(self, qp: QpWindow, cls: SrClass, adv: int) -> SrResponse:
        bitmap = 0
        for p in qp.ahead:
            bitmap |= 1 << psn_dist(p, qp.epsn)
        return SrResponse(cls, qp.epsn, adv, bitmap)

    def arrive(self, qpn: int, psn: int, span: int = 1, ordered: bool = False) -> SrResponse:
        qp = self.qps[qpn]
        span = max(span, 1)
        d = psn_dist(psn, qp.epsn)
        if d >= HALF:
            return self._report(qp, SrClass.DUPLICATE, 0)
        if d >= self.window:
            return self._report(qp, SrClass.BEYOND_WINDOW, 0)
        if d == 0:
            old = qp.epsn
            # the packet fills PSNs [epsn, epsn+span); then run over what was received
            qp.ahead = {p for p in qp.ahead if psn_dist(p, old) >= span}
            qp.epsn = psn_add(old, span)
            while qp.epsn in qp.ahead:
                qp.ahead.remove(qp.epsn)
                qp.epsn = psn_add(qp.epsn, 1)
            return self._report(qp, SrClass.NEW_IN_ORDER, psn_dist(qp.epsn, old))
        if psn in qp.ahead:
            return self._report(qp, SrClass.DUPLICATE, 0)
        if ordered:
            return self._report(qp, SrClass.ORDERED_EARLY, 0)
        qp.ahead.add(psn)
        return self._report(qp, SrClass.NEW_OUT_OF_ORDER, 0)
