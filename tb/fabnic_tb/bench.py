# SPDX-License-Identifier: Apache-2.0
"""Benchmark records: one JSON object per metric, gathered by `make bench`.

Benchmarks live in tb/**/bench_*.py (collected only by `make bench`). They count
clock cycles inside the simulation and convert with the 250 MHz reference clock;
call :func:`record` once per metric (from the cocotb test or the pytest function).
sim/bench.py gathers every record into build/bench/results.json and prints a table.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from . import tools

# `make bench` points this at a directory of its own run (FABNIC_BENCH_RECORDS), so
# concurrent benchmark runs never mix or delete each other's records.
RECORDS = Path(os.environ.get("FABNIC_BENCH_RECORDS", tools.BUILD / "bench" / "records"))
CLK_HZ = 250e6


def cycles_to_us(cycles: float, clk_hz: float = CLK_HZ) -> float:
    return cycles / clk_hz * 1e6


def gbps(bytes_: float, cycles: float, clk_hz: float = CLK_HZ) -> float:
    return bytes_ * 8 / (cycles / clk_hz) / 1e9


def record(name: str, value: float, unit: str, target: float | None = None,
           config: dict | None = None, higher_is_better: bool = True,
           note: str = "") -> dict:
    """Append one metric. ``target`` is the issue's goal for it (None if it has none)."""
    RECORDS.mkdir(parents=True, exist_ok=True)
    met = None
    if target is not None:
        met = value >= target if higher_is_better else value <= target
    rec = {
        "name": name, "value": value, "unit": unit, "target": target,
        "higher_is_better": higher_is_better, "met": met,
        "config": config or {}, "note": note, "time": time.time(),
    }
    with open(RECORDS / f"{os.getpid()}.jsonl", "a") as f:
        f.write(json.dumps(rec) + "\n")
    return rec


def load_records(directory: Path = RECORDS) -> list[dict]:
    out: list[dict] = []
    for p in sorted(directory.glob("*.jsonl")):
        for line in p.read_text().splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out
