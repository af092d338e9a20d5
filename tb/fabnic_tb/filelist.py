# SPDX-License-Identifier: Apache-2.0
"""RTL file lists from the FuseSoC core description fabnic.core.

fabnic.core names every SystemVerilog file of the project in compile order, one
fileset per rtl/ layer, and the targets (lint, sim, synth, ...) that combine them.
This module reads it (CAPI2 YAML, with PyYAML) and answers "which files, in which
order, does top module X need": the files of a target, in the order of the core,
reduced to the transitive closure of the design units X uses. A file uses a unit
when it names a module, interface or package that another file of the target
declares (instantiation, ``pkg::item`` or ``import pkg::*``).

    .venv/bin/python tb/fabnic_tb/filelist.py [--target T] TOP...   print the file list of TOP
    .venv/bin/python tb/fabnic_tb/filelist.py --write [DIR]         one .f per target (and TOP) under
                                                           DIR (default build/filelists)
    .venv/bin/python tb/fabnic_tb/filelist.py --check               fabnic.core against the tree
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "fabnic.core"
SV = "systemVerilogSource"

# Folders whose every .sv/.svh must be listed in the core.
LISTED_DIRS = ("rtl", "tb/sv")

# Comments and strings (skipped), identifiers, the scope operator, any other character.
_TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|[A-Za-z_][\w$]*|::|\S', re.S)
_UNIT_KEYWORDS = ("module", "package", "interface", "program")


@dataclass(frozen=True)
class CoreFile:
    path: Path  # absolute
    fileset: str
    file_type: str
    is_include_file: bool = False
    include_path: Path | None = None  # directory to add to the include path

    @property
    def rel(self) -> str:
        return self.path.relative_to(REPO).as_posix()


@dataclass(frozen=True)
class Scan:
    units: tuple[tuple[str, str], ...]  # (keyword, name) of each design unit declared
    names: frozenset[str]               # every identifier used
    scoped: frozenset[str]              # identifiers used before '::' (packages)


class Core:
    """A parsed CAPI2 core description."""

    def __init__(self, path: Path = CORE) -> None:
        self.path = path
        text = path.read_text()
        if not text.startswith("CAPI=2:"):
            raise ValueError(f"{path}: not a CAPI=2 core description")
        data = yaml.safe_load(text)
        self.name: str = data["name"]
        root = path.parent
        self.filesets: dict[str, list[CoreFile]] = {}
        for fs_name, fs in (data.get("filesets") or {}).items():
            default_type = fs.get("file_type", "")
            entries: list[CoreFile] = []
            for item in fs.get("files") or []:
                if isinstance(item, str):
                    rel, attrs = item, {}
                else:
                    ((rel, attrs),) = item.items()
                    attrs = attrs or {}
                inc = attrs.get("include_path")
                entries.append(CoreFile(
                    path=(root / rel).resolve(),
                    fileset=fs_name,
                    file_type=attrs.get("file_type", default_type),
                    is_include_file=bool(attrs.get("is_include_file", False)),
                    include_path=(root / inc).resolve() if inc is not None else None,
                ))
            self.filesets[fs_name] = entries
        self.targets: dict[str, dict] = data.get("targets") or {}

    def target_filesets(self, target: str) -> list[str]:
        if target not in self.targets:
            raise KeyError(f"{self.path.name}: no target {target!r} "
                           f"(targets: {', '.join(self.targets)})")
        names = list(self.targets[target].get("filesets") or [])
        for n in names:
            if not isinstance(n, str) or "?" in n or n not in self.filesets:
                raise ValueError(f"{self.path.name}: target {target}: fileset {n!r} is not "
                                 "a plain fileset name of this core")
        return names

    def files(self, target: str, file_type: str | None = SV, include_files: bool = False
              ) -> list[CoreFile]:
        """Files of ``target`` in core order (``file_type`` None: every type)."""
        out: list[CoreFile] = []
        seen: set[Path] = set()
        for fs in self.target_filesets(target):
            for f in self.filesets[fs]:
                if f.path in seen or (file_type is not None and f.file_type != file_type):
                    continue
                if f.is_include_file and not include_files:
                    continue
                seen.add(f.path)
                out.append(f)
        return out

    def all_files(self) -> list[CoreFile]:
        return [f for fs in self.filesets.values() for f in fs]


@cache
def _core(path: Path, mtime_ns: int) -> Core:
    return Core(path)


def core(path: Path | None = None) -> Core:
    """The core description, parsed once per process (again when the file changes)."""
    path = path or CORE
    return _core(path, path.stat().st_mtime_ns)


@cache
def _scan(path: Path, mtime_ns: int) -> Scan:
    toks = [t for t in _TOKEN.findall(path.read_text(errors="replace"))
            if not t.startswith(("//", "/*", '"'))]
    units: list[tuple[str, str]] = []
    scoped: set[str] = set()
    for i, t in enumerate(toks[:-1]):
        if toks[i + 1] == "::":
            scoped.add(t)
        if t in _UNIT_KEYWORDS and (i == 0 or toks[i - 1] != "virtual"):
            j = i + 1
            if toks[j] in ("automatic", "static") and j + 1 < len(toks):
                j += 1
            units.append((t, toks[j]))
    names = frozenset(t for t in toks if t[0].isalpha() or t[0] == "_")
    return Scan(tuple(units), names, frozenset(scoped))


def scan(path: Path) -> Scan:
    return _scan(path, path.stat().st_mtime_ns)


def units(target: str = "sim") -> dict[str, CoreFile]:
    """Design unit name -> the file of ``target`` that declares it."""
    out: dict[str, CoreFile] = {}
    for f in core().files(target):
        for _, name in scan(f.path).units:
            out.setdefault(name, f)
    return out


def uses(path: Path, target: str = "sim") -> set[str]:
    """Design units of ``target`` that the file at ``path`` names (not its own)."""
    s = scan(path)
    own = {n for _, n in s.units}
    return {n for n in s.names & units(target).keys() if n not in own}


def closure(*tops: str, target: str = "sim", extra: list[Path] | tuple[Path, ...] = ()
            ) -> list[CoreFile]:
    """Files of ``target`` needed by ``tops`` and by the design units ``extra`` files name,
    in core order."""
    idx = units(target)
    todo: list[str] = []
    for t in tops:
        if t not in idx:
            raise FileNotFoundError(f"no file declares {t!r} in target {target!r} of {CORE.name}")
        todo.append(t)
    for e in extra:
        todo += sorted(uses(Path(e), target))
    need: set[Path] = set()
    while todo:
        f = idx[todo.pop()]
        if f.path in need:
            continue
        need.add(f.path)
        todo += sorted(uses(f.path, target))
    return [f for f in core().files(target) if f.path in need]


def sources(*tops: str, target: str = "sim", extra: list[Path] | tuple[Path, ...] = ()
            ) -> list[Path]:
    """Ordered source files for ``tops`` (from fabnic.core) followed by ``extra``."""
    extra_paths = [Path(e) for e in extra]
    return [f.path for f in closure(*tops, target=target, extra=extra_paths)] + extra_paths


def filesets_for(*tops: str, target: str = "sim") -> list[str]:
    """The filesets of ``target`` that ``tops`` draw files from, in target order."""
    used = {f.fileset for f in closure(*tops, target=target)}
    return [fs for fs in core().target_filesets(target) if fs in used]


def include_dirs(target: str) -> list[Path]:
    dirs: list[Path] = []
    for f in core().files(target, include_files=True):
        if f.is_include_file:
            d = f.include_path or f.path.parent
            if d not in dirs:
                dirs.append(d)
    return dirs


def modules(target: str = "lint", under: Path | None = None) -> list[str]:
    """Modules (not packages) declared by the files of ``target``, optionally only
    those in files below ``under``, in core order."""
    out: list[str] = []
    for f in core().files(target):
        if under is not None and under not in f.path.parents:
            continue
        out += [n for kw, n in scan(f.path).units if kw == "module"]
    return out


def write_f(out: Path, files: list[Path], target: str, title: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"// {title}: generated from {CORE.name} target {target} by "
             "tb/fabnic_tb/filelist.py"]
    lines += [f"+incdir+{d}" for d in include_dirs(target)]
    lines += [str(p) for p in files]
    out.write_text("\n".join(lines) + "\n")
    return out


# ------------------------------------------------------------------------------ check
def check() -> list[str]:
    """Problems of fabnic.core against the tree (empty: consistent)."""
    c = core()
    problems: list[str] = []
    seen: dict[Path, str] = {}
    for f in c.all_files():
        if not f.path.exists():
            problems.append(f"{f.rel}: listed in fileset {f.fileset} but does not exist")
        if f.path in seen:
            problems.append(f"{f.rel}: listed twice (filesets {seen[f.path]} and {f.fileset})")
        seen[f.path] = f.fileset
    for d in LISTED_DIRS:
        for p in sorted((REPO / d).rglob("*.sv*")):
            if p.suffix in (".sv", ".svh") and p.resolve() not in seen:
                problems.append(f"{p.relative_to(REPO).as_posix()}: not listed in {CORE.name}")
    for f in c.all_files():
        if f.file_type != SV or f.is_include_file or not f.path.exists():
            continue
        declared = [n for _, n in scan(f.path).units]
        if declared != [f.path.stem]:
            problems.append(f"{f.rel}: declares {declared or 'nothing'}; one design unit per "
                            "file, named after the file")
    for t, spec in c.targets.items():
        try:
            files = [f for f in c.files(t) if f.path.exists()]
        except (KeyError, ValueError) as e:
            problems.append(str(e))
            continue
        declared_at: dict[str, int] = {}
        for i, f in enumerate(files):
            for _, n in scan(f.path).units:
                if n in declared_at:
                    problems.append(f"target {t}: {n} declared twice")
                declared_at.setdefault(n, i)
        for i, f in enumerate(files):
            for pkg in sorted(scan(f.path).scoped & declared_at.keys()):
                if declared_at[pkg] > i:
                    problems.append(f"target {t}: {f.rel} uses package {pkg}, which comes "
                                    f"later ({files[declared_at[pkg]].rel})")
        top = spec.get("toplevel")
        if top and top not in declared_at:
            problems.append(f"target {t}: toplevel {top} is not declared by its files")
    return problems


# -------------------------------------------------------------------------------- CLI
def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tops", nargs="*", help="top modules (default: the whole target)")
    ap.add_argument("--target", default=None, help="core target (default: sim)")
    ap.add_argument("--write", nargs="?", const=REPO / "build" / "filelists", type=Path,
                    metavar="DIR", help="write .f files under DIR/<target>/")
    ap.add_argument("--check", action="store_true", help="check fabnic.core against the tree")
    args = ap.parse_args(argv)
    if args.check:
        problems = check()
        for p in problems:
            print(f"{CORE.name}: {p}")
        print(f"{CORE.name}: {'consistent' if not problems else f'{len(problems)} problem(s)'}")
        return 1 if problems else 0
    c = core()
    if args.write is not None:
        targets = [args.target] if args.target else list(c.targets)
        for t in targets:
            if args.tops:
                for top in args.tops:
                    print(write_f(args.write / t / f"{top}.f", sources(top, target=t), t, top))
            else:
                files = [f.path for f in c.files(t)]
                print(write_f(args.write / f"{t}.f", files, t, f"all files of target {t}"))
        return 0
    t = args.target or "sim"
    files = sources(*args.tops, target=t) if args.tops else [f.path for f in c.files(t)]
    for p in files:
        print(p.relative_to(REPO).as_posix() if REPO in p.parents else p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
