#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make bench`: run tb/**/bench_*.py, print one table, write build/bench/results.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import bench, tools  # noqa: E402


def git_rev() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=tools.REPO).stdout.strip()
    except OSError:
        return "unknown"


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def main() -> int:
    records = tools.BUILD / "bench" / f"records-{os.getpid()}"
    os.environ["FABNIC_BENCH_RECORDS"] = str(records)
    pattern = os.environ.get("BENCH", "")
    cmd = [sys.executable, "-m", "pytest", "-o", "python_files=bench_*.py", "-p", "no:cacheprovider",
           "-q", str(tools.REPO / "tb")]
    if pattern:
        cmd += ["-k", pattern]
    jobs = os.environ.get("JOBS", "1")
    if jobs != "1":
        cmd += ["-n", jobs]
    rc = subprocess.call(cmd, cwd=tools.REPO)
    recs = bench.load_records(records) if records.exists() else []
    shutil.rmtree(records, ignore_errors=True)
    out = tools.BUILD / "bench" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"commit": git_rev(), "records": recs}, indent=1))
    if recs:
        w = max(len(r["name"]) for r in recs)
        print(f"\n{'metric':<{w}}  {'value':>12}  {'unit':<10} {'target':>10}  met")
        print("-" * (w + 44))
        for r in recs:
            met = {True: "yes", False: "NO", None: ""}[r["met"]]
            print(f"{r['name']:<{w}}  {fmt(r['value']):>12}  {r['unit']:<10} {fmt(r['target']):>10}  {met}")
    print(f"\n{len(recs)} records -> {out}")
    if rc == 5:  # no benchmark matched
        return 0 if not pattern else 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
