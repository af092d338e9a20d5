#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make demo`: the main job.

Today: frames through the 10 G foundation datapath (XGMII -> MAC -> parser ->
UDP echo -> builder -> MAC -> XGMII) with a scapy-built traffic mix that includes
RoCEv2, VXLAN, ARP, IPv6 and broken frames. Prints frames, bytes, drops by
reason and cycles; writes build/demo/demo.pcap (requests and replies, in
simulated time) and build/demo/demo.fst (waveform).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import runner, tools  # noqa: E402


def main() -> int:
    out = tools.BUILD / "demo"
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("demo_summary.json", "demo.pcap", "demo.fst", "demo.vcd"):
        (out / stale).unlink(missing_ok=True)
    os.environ["WAVES"] = os.environ.get("WAVES", "1")
    print("[demo] building the 10 G datapath (first run compiles, about a minute)...", flush=True)
    bdir = runner.run(
        toplevel="fabnic_datapath_10g", module="test_datapath",
        test_dir=tools.REPO / "tb" / "system", testcase="demo",
        extra_env={"FABNIC_DEMO": "1", "FABNIC_DEMO_OUT": str(out)},
    )
    s = json.loads((out / "demo_summary.json").read_text())
    for ext in ("fst", "vcd"):
        if (bdir / f"dump.{ext}").exists():
            shutil.copy(bdir / f"dump.{ext}", out / f"demo.{ext}")
    us = s["cycles"] / s["clock_mhz"]
    print()
    print("fabnic demo: 10 G datapath (XGMII MAC -> parser -> UDP echo -> builder -> MAC)")
    print(f"  frames in   {s['frames_in']:6d}   bytes {s['bytes_in']:8d}")
    print(f"  frames out  {s['frames_out']:6d}   bytes {s['bytes_out']:8d}   (UDP/IPv4 echoes, checked with scapy)")
    print(f"  cycles      {s['cycles']:6d}   = {us:.1f} us at {s['clock_mhz']} MHz "
          f"(offered load {8 * s['bytes_in'] / (us * 1e3):.2f} Gb/s)")
    c = s["counters"]
    print("  classified  " + ", ".join(f"{k} {c['echo'][k]}" for k in ("echoed", "roce", "vxlan", "other")))
    drops = {f"mac.{k}": v for k, v in c["mac"].items() if v and k.startswith("rx_") and k not in
             ("rx_frames", "rx_bytes", "rx_bad")}  # rx_bad aggregates the reasons
    drops.update({f"parser.{k}": v for k, v in c["parser"].items() if v and k.startswith("err_")})
    print("  drops       " + (", ".join(f"{k} {v}" for k, v in sorted(drops.items())) or "none"))
    print(f"  pcap        {out / 'demo.pcap'}")
    wave = out / "demo.fst" if (out / "demo.fst").exists() else out / "demo.vcd"
    print(f"  waveform    {wave if wave.exists() else '(none)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
