#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The testplan (tb/testplan.toml): which test checks which feature, and against what.

  testplan.py            write docs/testplan.md and print the coverage summary
  testplan.py --check    exit 1 unless every test reference resolves, every
                         tb/**/test_*.py file is referenced, feature ids are unique
                         and docs/testplan.md is current (for `make lint`)

A reference is "tb/<dir>/<file>.py::<name>". It resolves when the file exists and
defines either a cocotb test (`async def <name>` decorated with `cocotb.test` or
`cocotb.test(...)`, at any depth: some files define their tests inside an
`if cocotb is not None:` block) or a pytest function (`def <name>` named test*,
at module level, including inside top-level if/try blocks). The test files are read
with `ast`; nothing is imported, so no simulator or test dependency is needed.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
PLAN = Path("tb/testplan.toml")
DOC = Path("docs/testplan.md")

FEATURE_KEYS = {"id", "desc", "tests", "reference", "gap", "note"}
ROOM_KEYS = {"id", "title", "doc"}
BENCH_KEYS = {"file", "measures"}


@dataclass
class Feature:
    id: str
    desc: str
    tests: list[str]
    reference: str
    gap: str = ""
    note: str = ""

    @property
    def room(self) -> str:
        return self.id.split(".", 1)[0]


@dataclass
class Room:
    id: str
    title: str
    doc: str = ""


@dataclass
class Benchmark:
    file: str
    measures: str


@dataclass
class Plan:
    rooms: list[Room] = field(default_factory=list)
    features: list[Feature] = field(default_factory=list)
    benchmarks: list[Benchmark] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # format errors found while loading


def load(path: Path) -> Plan:
    """Read the TOML; shape errors are collected in plan.errors (not raised)."""
    data = tomllib.loads(path.read_text())
    plan = Plan()
    unknown = set(data) - {"room", "feature", "benchmark"}
    if unknown:
        plan.errors.append(f"unknown top-level tables: {sorted(unknown)}")
    for i, r in enumerate(data.get("room", [])):
        extra = set(r) - ROOM_KEYS
        if extra or "id" not in r or "title" not in r:
            plan.errors.append(f"room #{i + 1}: needs id and title, unknown keys {sorted(extra)}")
            continue
        plan.rooms.append(Room(r["id"], r["title"], r.get("doc", "")))
    for i, f in enumerate(data.get("feature", [])):
        where = f"feature #{i + 1} ({f.get('id', '?')})"
        extra = set(f) - FEATURE_KEYS
        missing = {"id", "desc", "tests", "reference"} - set(f)
        if extra or missing:
            plan.errors.append(f"{where}: missing {sorted(missing)}, unknown keys {sorted(extra)}")
            continue
        tests = f["tests"]
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            plan.errors.append(f"{where}: tests must be a list of strings")
            continue
        plan.features.append(Feature(f["id"], f["desc"], tests, f["reference"],
                                     f.get("gap", ""), f.get("note", "")))
    for i, b in enumerate(data.get("benchmark", [])):
        if set(b) != BENCH_KEYS:
            plan.errors.append(f"benchmark #{i + 1}: needs exactly {sorted(BENCH_KEYS)}")
            continue
        plan.benchmarks.append(Benchmark(b["file"], b["measures"]))
    return plan


def _is_cocotb_test(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) == "cocotb.test"


def _module_level_defs(body: list[ast.stmt]) -> list[ast.FunctionDef]:
    """Functions bound at module level, looking into if/try/with blocks but not into
    functions or classes (what pytest sees as module attributes)."""
    found: list[ast.FunctionDef] = []
    for node in body:
        if isinstance(node, ast.FunctionDef):
            found.append(node)
        elif isinstance(node, ast.If | ast.With):
            found += _module_level_defs(node.body + getattr(node, "orelse", []))
        elif isinstance(node, ast.Try):
            found += _module_level_defs(node.body + node.orelse + node.finalbody
                                        + [s for h in node.handlers for s in h.body])
    return found


def defined_tests(path: Path) -> dict[str, str]:
    """Names of the tests a file defines: name -> 'cocotb' or 'pytest'."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AsyncFunctionDef) and any(
                _is_cocotb_test(d) for d in node.decorator_list):
            names[node.name] = "cocotb"
    for node in _module_level_defs(tree.body):
        if node.name.startswith("test"):
            names.setdefault(node.name, "pytest")
    return names


def find_test_files(root: Path) -> list[str]:
    """Every tb/**/test_*.py file, relative to root, sorted."""
    rel = (p.relative_to(root) for p in (root / "tb").rglob("test_*.py"))
    return sorted(r.as_posix() for r in rel if not {".venv", "build"} & set(r.parts))


def check(plan: Plan, root: Path, doc: Path | None = None) -> list[str]:
    """Every problem with the plan against the tree at root (empty list: all good).
    doc: also require this file to equal render(plan)."""
    errors = list(plan.errors)
    room_ids = [r.id for r in plan.rooms]
    for rid in sorted({r for r in room_ids if room_ids.count(r) > 1}):
        errors.append(f"room id {rid!r} declared more than once")
    ids = [f.id for f in plan.features]
    for fid in sorted({i for i in ids if ids.count(i) > 1}):
        errors.append(f"feature id {fid!r} is not unique")
    cache: dict[str, dict[str, str] | None] = {}
    referenced: set[str] = set()
    for f in plan.features:
        if f.id.count(".") < 1 or not all(f.id.split(".")):
            errors.append(f"{f.id}: id must be room.name")
        elif f.room not in room_ids:
            errors.append(f"{f.id}: room {f.room!r} is not declared in a [[room]] table")
        if not f.desc.strip() or not f.reference.strip():
            errors.append(f"{f.id}: desc and reference must not be empty")
        if not f.tests and not f.gap.strip():
            errors.append(f"{f.id}: tests = [] needs a gap explanation")
        if f.tests and f.gap:
            errors.append(f"{f.id}: a gap is for features without tests (tests = [])")
        seen: set[str] = set()
        for ref in f.tests:
            if ref in seen:
                errors.append(f"{f.id}: {ref} listed twice")
            seen.add(ref)
            file, sep, name = ref.partition("::")
            if not sep or not name or not file.startswith("tb/") or not file.endswith(".py"):
                errors.append(f"{f.id}: bad reference {ref!r} (want tb/<dir>/<file>.py::<name>)")
                continue
            if file not in cache:
                path = root / file
                try:
                    cache[file] = defined_tests(path) if path.is_file() else None
                except SyntaxError as e:
                    errors.append(f"{file}: cannot parse: {e}")
                    cache[file] = {}
            names = cache[file]
            if names is None:
                errors.append(f"{f.id}: {ref}: no such file")
                continue
            referenced.add(file)
            if name not in names:
                errors.append(f"{f.id}: {ref}: {file} defines no cocotb test or pytest "
                              f"function {name!r}")
    for file in find_test_files(root):
        if file not in referenced:
            errors.append(f"{file}: no feature references it")
    benches = [b.file for b in plan.benchmarks]
    for b in plan.benchmarks:
        if not (root / b.file).is_file():
            errors.append(f"benchmark {b.file}: no such file")
        if benches.count(b.file) > 1:
            errors.append(f"benchmark {b.file} listed twice")
    if doc is not None:
        if not doc.is_file():
            errors.append(f"{doc}: missing (run sim/testplan.py)")
        elif doc.read_text() != render(plan):
            errors.append(f"{doc}: stale (run sim/testplan.py)")
    return errors


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _tests_cell(tests: list[str]) -> str:
    """Group references by file: `file`: a, b."""
    by_file: dict[str, list[str]] = {}
    for ref in tests:
        file, _, name = ref.partition("::")
        by_file.setdefault(file, []).append(name)
    return "<br>".join(f"`{file}`: " + ", ".join(f"`{n}`" for n in names)
                       for file, names in by_file.items())


def summary(plan: Plan) -> dict[str, int]:
    refs = [t for f in plan.features for t in f.tests]
    return {
        "features": len(plan.features),
        "with_tests": sum(1 for f in plan.features if f.tests),
        "gaps": sum(1 for f in plan.features if not f.tests),
        "references": len(refs),
        "distinct_tests": len(set(refs)),
        "files": len({t.partition("::")[0] for t in refs}),
        "benchmarks": len(plan.benchmarks),
    }


def render(plan: Plan) -> str:
    s = summary(plan)
    out = [
        "# Testplan",
        "",
        "<!-- Generated by sim/testplan.py from tb/testplan.toml; do not edit. -->",
        "",
        "Which test checks which behaviour, and what it checks against. Source:",
        "`tb/testplan.toml`; `sim/testplan.py --check` (run by `make lint`) verifies that",
        "every reference names a cocotb test or pytest function of its file, that every",
        "`tb/**/test_*.py` file is referenced, and that this page is current.",
        "A reference is `file`: names; the names are cocotb tests or the pytest functions",
        "that build and run them.",
        "",
        f"{s['features']} features, {s['with_tests']} with tests, {s['gaps']} gaps; "
        f"{s['distinct_tests']} distinct tests in {s['files']} files; "
        f"{s['benchmarks']} benchmarks.",
        "",
    ]
    for room in plan.rooms:
        features = [f for f in plan.features if f.room == room.id]
        if not features:
            continue
        doc = f" ([{room.doc.removeprefix('docs/')}]({room.doc.removeprefix('docs/')}))" \
            if room.doc else ""
        out += [f"## {room.id}: {room.title}{doc}", "",
                "| feature | description | tests | checked against |",
                "| --- | --- | --- | --- |"]
        for f in features:
            desc = _cell(f.desc)
            if f.note:
                desc += f"<br>*Note:* {_cell(f.note)}"
            tests = _tests_cell(f.tests) if f.tests else f"**gap**: {_cell(f.gap)}"
            out.append(f"| `{f.id}` | {desc} | {tests} | {_cell(f.reference)} |")
        out.append("")
    gaps = [f for f in plan.features if not f.tests]
    out += ["## Gaps", "", "Documented behaviour that no test checks.", ""]
    out += [f"- `{f.id}`: {_cell(f.desc)} {_cell(f.gap)}" for f in gaps] or ["- none"]
    out.append("")
    if plan.benchmarks:
        out += ["## Benchmarks (`make bench`)", "", "| file | measures |", "| --- | --- |"]
        out += [f"| `{b.file}` | {_cell(b.measures)} |" for b in plan.benchmarks]
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="verify the plan and that docs/testplan.md is current; write nothing")
    ap.add_argument("--plan", type=Path, default=REPO / PLAN, help="the TOML (tb/testplan.toml)")
    ap.add_argument("--root", type=Path, default=REPO, help="repository root (for tb/)")
    ap.add_argument("--doc", type=Path, default=None, help="markdown output (docs/testplan.md)")
    args = ap.parse_args(argv)
    doc = args.doc if args.doc is not None else args.root / DOC
    try:
        plan = load(args.plan)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"testplan: cannot read {args.plan}: {e}", file=sys.stderr)
        return 1
    if args.check:
        errors = check(plan, args.root, doc)
        for e in errors:
            print(f"testplan: {e}", file=sys.stderr)
        if errors:
            print(f"testplan: {len(errors)} problem(s)", file=sys.stderr)
            return 1
        s = summary(plan)
        print(f"testplan: ok ({s['features']} features, {s['gaps']} gaps, "
              f"{s['distinct_tests']} tests)")
        return 0
    errors = check(plan, args.root)
    for e in errors:
        print(f"testplan: warning: {e}", file=sys.stderr)
    doc.write_text(render(plan))
    s = summary(plan)
    print(f"wrote {doc.relative_to(args.root) if doc.is_relative_to(args.root) else doc}")
    print(f"features            {s['features']}")
    print(f"  with tests        {s['with_tests']}")
    print(f"  gaps (no test)    {s['gaps']}")
    print(f"test references     {s['references']} ({s['distinct_tests']} distinct, "
          f"{s['files']} files of {len(find_test_files(args.root))})")
    print(f"benchmarks          {s['benchmarks']}")
    for f in plan.features:
        if not f.tests:
            print(f"  gap: {f.id}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
