# SPDX-License-Identifier: Apache-2.0
"""FEC port-shim register block ``fec`` (docs/fec.md, "Port shim"), part of the "roce"
map; its source is rdl/fec.rdl (generated into :mod:`fabnic.regmap_gen`).

``FEC_COUNTERS``: (name without the ``cnt_`` prefix, description) of every counter, in
address order.
"""

from __future__ import annotations

from fabnic.regmap_gen import FEC

__all__ = ["FEC", "FEC_COUNTERS"]

FEC_COUNTERS: tuple[tuple[str, str], ...] = tuple(
    (r.name.removeprefix("cnt_"), r.doc) for r in FEC.regs if r.name.startswith("cnt_"))
