#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make lint`: verilator --lint-only -Wall on every RTL module, zero warnings allowed.

Each module is linted as its own top (with its dependencies) so that every
parameter default elaborates. Waivers live in rtl/lint_waivers.vlt only.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import tools  # noqa: E402


def lint_one(top: str) -> tuple[str, int, str]:
    srcs = tools.rtl_sources(top)
    cmd = [tools.verilator_bin(), "--lint-only", "-Wall", "--quiet-stats", "--top-module", top,
           str(tools.RTL / "lint_waivers.vlt"), *map(str, srcs)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return top, p.returncode, (p.stdout + p.stderr).strip()


def main(argv: list[str]) -> int:
    tools.setup_env()
    mods = argv or tools.all_rtl_modules()
    bad = 0
    with ThreadPoolExecutor(max_workers=2) as ex:
        for top, rc, out in ex.map(lint_one, mods):
            if rc != 0 or out:
                bad += 1
                print(f"--- {top}: FAIL\n{out}\n")
            else:
                print(f"    {top}: clean")
    print(f"lint: {len(mods) - bad} of {len(mods)} modules clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
