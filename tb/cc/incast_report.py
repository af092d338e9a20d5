# SPDX-License-Identifier: Apache-2.0
"""Summary table of saved incast traces (build/bench/plots/cc_incast_<run>.json from
bench_incast.py), recomputed offline with the bench's own metric functions:

    .venv/bin/python tb/cc/incast_report.py build/bench/plots/cc_incast_*.json

Windows: "2nd half" (the bench's steady window) and "last 25%" (converged window) of
the run; for join/leave runs, of the time after the leave. Columns: utilization and
Jain's index of the per-flow delivered rates in each window, min / max flow rate in
the last 25 %, peak queue (whole run), drops, PFC XOFF frames, CNPs received, and the
convergence of the delivered rates after the start (runs without events) or after each
join / leave (incast_tb.fair_convergence_time: first time fair for 500 us / settled,
in ms; - = not within the run or before the next event)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
from incast_tb import Trace, fair_convergence_time, flow_rates_gbps, jain, utilization, window


def load(path: Path) -> Trace:
    d = json.loads(path.read_text())
    tr = Trace(d["n"])
    for k, v in d.items():
        setattr(tr, k, v)
    return tr


def row(path: Path) -> str:
    tr = load(path)
    name = path.stem.removeprefix("cc_incast_")
    c = np.array(tr.cycle, dtype=float)
    dur = (c[-1] - c[0]) / 250
    en = tr.tx_en[-1]
    flows = [f for f in range(tr.n) if (en >> f) & 1] or list(range(tr.n))
    t_last = 0.0
    for k in range(1, len(tr.tx_en)):
        if tr.tx_en[k] != tr.tx_en[k - 1]:
            t_last = (c[k] - c[0]) / 250
    out = [name, f"{dur / 1000:g}"]
    for frac in (0.5, 0.75):
        i0, i1 = window(tr, t_last + (dur - t_last) * frac, dur)
        r = flow_rates_gbps(tr, i0, i1, flows)
        out += [f"{utilization(tr, i0, i1):.3f}", f"{jain(r):.3f}"]
    out += [f"{r.min():.1f}-{r.max():.1f}", f"{tr.peak_q / 1000:.0f}", str(tr.drops[-1]),
            str(tr.pfc_xoff[-1]), str(int(sum(tr.cnp_rx[-1])))]
    # events: tx_en changes after the first 30 % of the run (join, leave), else the start
    evs = [((c[k] - c[0]) / 250, tr.tx_en[k]) for k in range(1, len(tr.tx_en))
           if tr.tx_en[k] != tr.tx_en[k - 1] and (c[k] - c[0]) / 250 > 0.3 * dur]
    evs = evs or [(0.0, en)]
    conv = []
    for j, (t_ev, m) in enumerate(evs):
        fl = [f for f in range(tr.n) if (m >> f) & 1]
        t_end = evs[j + 1][0] if j + 1 < len(evs) else None
        first, settle = fair_convergence_time(tr, t_ev, fl, t_end_us=t_end)
        conv.append("/".join("-" if math.isnan(v) else f"{v / 1000:.2f}" for v in (first, settle)))
    out.append(", ".join(conv))
    return "| " + " | ".join(out) + " |"


def main(paths: list[str]) -> None:
    hdr = ["run", "ms", "util 2nd half", "Jain 2nd half", "util last 25%", "Jain last 25%",
           "flows Gb/s (last 25%)", "peak q KB", "drops", "PFC", "CNPs",
           "fair conv ms (first/settle)"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + " --- |" * len(hdr))
    for p in sorted(paths):
        print(row(Path(p)))


if __name__ == "__main__":
    main(sys.argv[1:])
