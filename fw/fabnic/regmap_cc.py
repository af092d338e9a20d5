# SPDX-License-Identifier: Apache-2.0
"""DCQCN register block ``cc`` (docs/cc.md, "Registers"), part of the "roce" map; its
source is rdl/cc.rdl (generated into :mod:`fabnic.regmap_gen`).

Units: rates are Mb/s x 2^12 (100 Gb/s = 409,600,000); periods are clock cycles
(250 MHz: 55 us = 13,750); the byte counter is in bytes.
"""

from __future__ import annotations

from fabnic.regmap_gen import CC

__all__ = ["CC", "LINE_100G", "MBPS"]

MBPS = 1 << 12  # rate unit: 1 Mb/s
LINE_100G = CC.reg("rate_line").reset  # the default line rate, 100 Gb/s
