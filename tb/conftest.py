# SPDX-License-Identifier: Apache-2.0
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
for p in (_ROOT / "tb", _ROOT / "fw"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

_SESSION_START = 0.0


def pytest_sessionstart(session) -> None:
    import time

    global _SESSION_START
    _SESSION_START = time.time()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The slowest Verilator builds of this run (tb/fabnic_tb/runner.py leaves each build's
    wall time in its directory), so the regression's time budget stays visible."""
    import json

    if hasattr(config, "workerinput"):  # an xdist worker: the controller prints
        return
    builds = []
    for p in (_ROOT / "build" / "sim").glob("*/fabnic_build.json"):
        try:
            rec = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if rec.get("time", 0) >= _SESSION_START:
            builds.append(rec)
    if not builds:
        return
    builds.sort(key=lambda r: -r["seconds"])
    tr = terminalreporter
    total = sum(r["seconds"] for r in builds)
    tr.write_sep("=", f"Verilator builds: {len(builds)} directories, {total:.0f} s wall in all "
                      "(slowest 12)")
    for r in builds[:12]:
        tr.write_line(f"{r['seconds']:8.1f} s  {r['dir']}")
