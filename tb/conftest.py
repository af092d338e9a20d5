# SPDX-License-Identifier: Apache-2.0
import re
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
for p in (_ROOT / "tb", _ROOT / "fw"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

_SESSION_START = 0.0


def pytest_sessionstart(session) -> None:
    import time

    global _SESSION_START
    _SESSION_START = time.time()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The slowest Verilator builds of this run (tb/fabnic_tb/runner.py leaves each build's
    wall time in its directory), so the regression's time budget stays visible."""
    import json

    if hasattr(config, "workerinput"):  # an xdist worker: the controller prints
        return
    builds = []
    for p in (_ROOT / "build" / "sim").glob("*/fabnic_build.json"):
        try:
            rec = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if rec.get("time", 0) >= _SESSION_START:
            builds.append(rec)
    if not builds:
        return
    builds.sort(key=lambda r: -r["seconds"])
    tr = terminalreporter
    total = sum(r["seconds"] for r in builds)
    tr.write_sep("=", f"Verilator builds: {len(builds)} directories, {total:.0f} s wall in all "
                      "(slowest 12)")
    for r in builds[:12]:
        tr.write_line(f"{r['seconds']:8.1f} s  {r['dir']}")


# ---------------------------------------------------------------------------- scheduling
# Two workers finish together only if the longest tests start first (longest-processing-
# time-first). Each test's duration of the last run is kept in pytest's cache; on a fresh
# clone the weights below (seconds on a 2-core machine, cold build included) stand in.
_FIRST_RUN_WEIGHTS = {
    # the pair model (tb_roce_pair): a build of about 150 s, then each test's simulation
    "test_roce_pair_16k_qps": 200, "test_roce_pair[lossy_mix]": 220,
    "test_roce_pair[read_fault_fatal_mix]": 30, "test_roce_pair[read_fault_mix]": 25,
    "test_roce_pair[sqe_readahead_persistent]": 40, "test_roce_pair[write_fault_mix]": 35,
    "test_roce_pair[dcqcn_loop]": 160, "test_roce_pair[drop_cases]": 130,
    "test_roce_pair[xlate_cache]": 80, "test_roce_pair[error_cases]": 75,
    "test_roce_pair[multi_qp_mix]": 67, "test_roce_pair[cq_overflow]": 58,
    "test_roce_pair[payload_read_faults]": 50, "test_roce_pair[model_errors]": 40,
    "test_roce_sr[sr_lossy_mix]": 40, "test_roce_sr": 25, "test_roce_pair": 25,
    "test_nic_roce_vxlan": 300, "test_roce_fec": 240, "test_roce_rx": 133,
    "test_u250_status_cdc[20]": 96, "test_roce_incast": 80, "test_fec_port": 80,
    "test_pkt": 55, "test_net_switch": 50, "test_vnic_dev": 48, "test_dcqcn_rp": 40,
    "test_eth_mac_10g": 40, "test_u250_shell": 40,
}
# A group whose build another group makes (the second half of the pair tests) starts
# later than its weight alone would put it, by this factor: by then the first half has
# built the model they share, and its worker does not wait on the build lock.
_LATE_GROUPS = {"tb_roce_pair_2": 0.6}
_DURATIONS_KEY = "fabnic/durations"


def pytest_collection_modifyitems(session, config, items) -> None:
    known = config.cache.get(_DURATIONS_KEY, {}) if getattr(config, "cache", None) else {}

    def weight(item) -> float:
        w = 10.0
        if item.nodeid in known:
            w = known[item.nodeid]
        else:
            # the most specific key (the longest) that names this test or its function
            keys = [k for k in _FIRST_RUN_WEIGHTS
                    if re.search("::" + re.escape(k) + r"(?=$|[\[@])", item.nodeid)
                    or (k.endswith("]") and f"::{k}" in item.nodeid)]
            if keys:
                w = _FIRST_RUN_WEIGHTS[max(keys, key=len)]
        group = item.get_closest_marker("xdist_group")
        if group is not None and group.args and group.args[0] in _LATE_GROUPS:
            w *= _LATE_GROUPS[group.args[0]]
        return w

    items.sort(key=lambda it: -weight(it))


_DURATIONS: dict[str, float] = {}


def pytest_runtest_logreport(report) -> None:
    if report.when == "call" and report.passed:
        _DURATIONS[report.nodeid] = round(report.duration, 1)


def pytest_sessionfinish(session, exitstatus) -> None:
    config = session.config
    if hasattr(config, "workerinput") or not _DURATIONS or getattr(config, "cache", None) is None:
        return
    known = config.cache.get(_DURATIONS_KEY, {})
    known.update(_DURATIONS)
    config.cache.set(_DURATIONS_KEY, known)
