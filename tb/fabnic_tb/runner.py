# SPDX-License-Identifier: Apache-2.0
"""Build and run one cocotb test module against one DUT and parameter set.

Every pytest function calls :func:`run` once; each (DUT, parameter set) gets its
own build directory under build/sim/, so pytest-xdist can run them in parallel.

Environment knobs:
  WAVES=1   dump an FST waveform (VCD if the LZ4 headers are missing) into the build dir
  COV=1     build with line+toggle coverage; coverage.dat lands in the build dir
  SEED=n    cocotb random seed
  FABNIC_PUBLIC_RW=1  every signal writable from Python (slower; see run)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from . import tools

# At most this many Verilator builds run at once on the machine, whoever starts them
# (two pytest-xdist workers, or several developers' checkouts on one 2-core box).
BUILD_SLOTS = int(os.environ.get("FABNIC_BUILD_SLOTS", "2"))


@contextlib.contextmanager
def build_slot() -> Iterator[None]:
    d = Path(tempfile.gettempdir()) / "fabnic-build-slots"
    d.mkdir(exist_ok=True)
    while True:
        for i in range(BUILD_SLOTS):
            f = open(d / f"slot{i}", "w")  # noqa: SIM115 - closed below
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                continue
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
                f.close()
            return
        time.sleep(0.25)


@contextlib.contextmanager
def dir_lock(bdir: Path) -> Iterator[None]:
    """Tests with the same DUT and parameters share a build directory (one build); they
    must not build or run in it at the same time (pytest-xdist): the build, sim.log and
    results.xml live there. Held for the build and the run."""
    bdir.parent.mkdir(parents=True, exist_ok=True)
    with open(bdir.parent / f".{bdir.name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "0") not in ("", "0", "false", "no")


def build_dir_for(toplevel: str, parameters: Mapping[str, object], tag: str | None) -> Path:
    if tag is None:
        tag = "_".join(f"{k}{v}" for k, v in sorted(parameters.items())) or "default"
        if len(tag) > 60:
            tag = hashlib.sha1(tag.encode()).hexdigest()[:12]
    suffix = ("_cov" if _env_flag("COV") else "") + ("_waves" if _env_flag("WAVES") else "")
    return tools.BUILD / "sim" / f"{toplevel}-{tag}{suffix}"


def run(
    *,
    toplevel: str,
    module: str,
    test_dir: Path | str,
    parameters: Mapping[str, object] | None = None,
    sources: Sequence[Path] | None = None,
    extra_sources: Sequence[Path] = (),
    tag: str | None = None,
    testcase: str | Sequence[str] | None = None,
    extra_env: Mapping[str, str] | None = None,
    build_args: Sequence[str] = (),
    plusargs: Sequence[str] = (),
    writable_top: bool = False,
    read_only_internals: bool = False,
) -> Path:
    """Build ``toplevel`` (RTL from fabnic.core, reduced to what the top uses, plus ``extra_sources`` from tb/) and run
    the cocotb tests of ``module`` (a module in ``test_dir``). Returns the build dir.

    ``read_only_internals``: Python may read every signal but write only the top module's
    ports (all its signals with ``writable_top``) and the backdoor arrays of _WRITABLE;
    the model then runs faster (see the comment in the body). For tops whose tests do not
    index generate-block arrays."""
    from cocotb_tools.runner import get_runner

    tools.setup_env()
    parameters = dict(parameters or {})
    test_dir = Path(test_dir).resolve()
    srcs = list(sources) if sources is not None else tools.rtl_sources(
        *([] if extra_sources else [toplevel]), extra=[Path(p) for p in extra_sources]
    )
    bdir = build_dir_for(toplevel, parameters, tag)
    waves = _env_flag("WAVES")
    cov = _env_flag("COV")

    args = [
        "-Wno-fatal",  # `make lint` is the strict gate; tb wrappers may warn
        "--assert",
        "-Wno-DECLFILENAME",
        "-Wno-UNUSEDSIGNAL",
        "-Wno-UNUSEDPARAM",
        *build_args,
    ]
    if read_only_internals and not _env_flag("FABNIC_PUBLIC_RW"):
        # cocotb's runner builds with --public-flat-rw: every signal writable from
        # Python. Verilator then evaluates every combinational block that depends on a
        # writable signal in its input-combinational region, on every call of the
        # model's eval (most of a NIC core: about 40 % of a pair test's time). Instead:
        # every signal readable, the top module's ports writable, plus the few internal
        # arrays a backdoor writes. Generate-block arrays (dut.g_x[i]) are not indexable
        # from Python in this form. FABNIC_PUBLIC_RW=1 restores the runner's default.
        args += ["--no-public-flat-rw", "--public-params"]
        srcs = [_public_vlt(bdir, toplevel, srcs, writable_top), *srcs]
    if waves:
        args += ["--trace-fst"] if tools.fst_available() else []
        args += ["--trace-structs"]
    if cov:
        args += ["--coverage-line", "--coverage-toggle"]

    runner = get_runner("verilator")
    print(f"\n[fabnic] {toplevel} build dir: {bdir}", flush=True)
    with dir_lock(bdir):
        return _build_and_test(runner, bdir, toplevel, module, test_dir, srcs, parameters, args,
                               waves, testcase, extra_env, plusargs)


# internal signals a test writes through VPI (backdoors): module, variable
_WRITABLE = (("tb_host_axi_mem", "mem"),)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _top_ports(srcs: Sequence[Path], toplevel: str) -> list[str] | None:
    """Port names of ``toplevel`` (an ANSI header) from the source that declares it, or
    None when it cannot be read that way."""
    for f in reversed(srcs):
        if f.suffix not in (".sv", ".v"):
            continue
        text = _COMMENT.sub(" ", f.read_text())
        m = re.search(rf"\bmodule\s+{re.escape(toplevel)}\b", text)
        if m is None:
            continue
        i = m.end()
        if text[i:].lstrip().startswith("#"):      # skip the parameter list
            i = text.index("(", i)
            depth = 0
            while True:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    break
        j = text.find("(", i)
        if j < 0 or text[i:j].strip():
            return None
        depth, k = 0, j
        while True:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        body = re.sub(r"\[[^\]]*\]", " ", text[j + 1:k - 1])
        names = [re.findall(r"\w+", seg)[-1] for seg in body.split(",") if re.findall(r"\w+", seg)]
        return names or None
    return None


def _public_vlt(bdir: Path, toplevel: str, srcs: Sequence[Path], writable_top: bool) -> Path:
    """A Verilator control file for the build (see run): every signal public read-only;
    writable: the top module's ports (all its signals when ``writable_top`` or when its
    ports cannot be read) and _WRITABLE. Rewritten only when its text changes, so an
    up-to-date build stays up to date."""
    lines = ["`verilator_config", 'public_flat_rd -module "*" -var "*"']
    ports = None if writable_top else _top_ports(srcs, toplevel)
    if ports is None:
        lines.append(f'public_flat_rw -module "{toplevel}" -var "*"')
    else:
        lines += [f'public_flat_rw -module "{toplevel}" -var "{p}"' for p in ports]
    lines += [f'public_flat_rw -module "{m}" -var "{v}"' for m, v in _WRITABLE]
    text = "\n".join(lines) + "\n"
    bdir.mkdir(parents=True, exist_ok=True)
    f = bdir / "fabnic_public.vlt"
    if not f.exists() or f.read_text() != text:
        f.write_text(text)
    return f


def _note_build(bdir: Path, toplevel: str, seconds: float) -> None:
    """Leave the build's wall time in its directory for the summary at the end of `make sim`
    (tb/conftest.py); an up-to-date build takes about a second and is not worth a line."""
    import json

    if seconds < 5.0 and (bdir / "fabnic_build.json").exists():
        return  # the build was up to date: keep the time of the build that made it
    (bdir / "fabnic_build.json").write_text(json.dumps(
        {"toplevel": toplevel, "dir": bdir.name, "seconds": round(seconds, 1), "time": time.time()}))


def _build_and_test(runner, bdir: Path, toplevel: str, module: str, test_dir: Path,
                    srcs: list[Path], parameters: dict[str, object], args: list[str],
                    waves: bool, testcase, extra_env, plusargs) -> Path:
    with build_slot():
        t0 = time.monotonic()
        runner.build(
            sources=srcs,
            hdl_toplevel=toplevel,
            build_dir=bdir,
            parameters=parameters,
            build_args=args,
            waves=waves,
            timescale=("1ns", "1ps"),
            log_file=bdir / "build.log",
        )
        _note_build(bdir, toplevel, time.monotonic() - t0)
    # cocotb's runner hands this process's sys.path to the simulator as PYTHONPATH
    for p in (str(tools.REPO / "fw"), str(tools.REPO / "tb"), str(test_dir)):
        if p not in sys.path:
            sys.path.insert(0, p)
    env = {
        "FABNIC_BUILD_DIR": str(bdir),
        **(extra_env or {}),
    }
    seed = os.environ.get("SEED")
    try:
        runner.test(
            hdl_toplevel=toplevel,
            test_module=module,
            test_dir=bdir,
            testcase=testcase,
            extra_env=env,
            waves=waves,
            plusargs=list(plusargs),
            seed=seed,
            build_dir=bdir,
            log_file=bdir / "sim.log",
        )
    except BaseException:
        hint = f"[fabnic] FAILED: {toplevel} ({parameters}); build dir {bdir}; log {bdir / 'sim.log'}"
        if waves:
            hint += f"; waves {bdir / ('dump.fst' if tools.fst_available() else 'dump.vcd')}"
        else:
            hint += "; rerun with WAVES=1 for a waveform"
        print(hint, flush=True)
        raise
    return bdir
