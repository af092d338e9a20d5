#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the RTL file list of fabnic_u250_top for Vivado (build.tcl reads it).

The list comes from the resolver that `make lint` and `make synth` use
(tb/fabnic_tb/tools.rtl_sources): packages first, every module after the modules it
instantiates, taken from fabnic.core (tb/fabnic_tb/filelist.py). The vendor IP (xdma_0, cmac_usplus_0)
and the UNISIM primitives are not in it: Vivado supplies them, and the lint stubs
(rtl/board/alveo_u250/fabnic_bb_*.svh) are only included when FABNIC_VENDOR_IP is not
defined.

    python3 fpga/alveo_u250/gen_files.py [OUT]      (default build/alveo_u250/files.f)
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb"))
from fabnic_tb import tools  # noqa: E402

TOP = "fabnic_u250_top"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else tools.BUILD / "alveo_u250" / "files.f"
    srcs = tools.rtl_sources(TOP)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# RTL of {TOP}, compile order (fpga/alveo_u250/gen_files.py)\n"
                   + "".join(f"{p}\n" for p in srcs))
    print(f"{out}: {len(srcs)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
