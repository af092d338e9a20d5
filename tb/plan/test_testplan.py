# SPDX-License-Identifier: Apache-2.0
"""The testplan checker (sim/testplan.py) without a simulator.

The repository's own plan (tb/testplan.toml) must pass `--check`. The checker itself is
checked on synthetic plans and test trees written here: a reference to a name the file
does not define as a cocotb test or pytest function (a helper coroutine, a plain async
function without the decorator, a missing file) must be refused, and so must an
unreferenced test file, a duplicate feature id, a test-less feature without a gap and
a stale markdown page; a correct plan passes and renders its gap.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "sim" / "testplan.py"


@pytest.fixture(scope="module")
def tp():
    sys.path.insert(0, str(REPO / "sim"))
    try:
        import testplan
    finally:
        sys.path.pop(0)
    return testplan


TEST_FILE = '''
import cocotb
import pytest

async def helper(dut):
    pass

async def undecorated(dut):
    pass

@cocotb.test()
async def good_cocotb(dut):
    await helper(dut)

if cocotb is not None:
    @cocotb.test(timeout_time=1, timeout_unit="us")
    async def nested_cocotb(dut):
        pass

@pytest.mark.parametrize("n", [1])
def test_runner(n):
    pass

def not_a_test():
    pass
'''


def _tree(root: Path, plan: str) -> Path:
    """A repository in miniature: tb/blk/test_blk.py, tb/other/test_other.py, the plan."""
    (root / "tb" / "blk").mkdir(parents=True)
    (root / "tb" / "blk" / "test_blk.py").write_text(TEST_FILE)
    (root / "tb" / "other").mkdir()
    (root / "tb" / "other" / "test_other.py").write_text("def test_other():\n    pass\n")
    (root / "docs").mkdir()
    path = root / "tb" / "testplan.toml"
    path.write_text(textwrap.dedent(plan))
    return path


GOOD = """
[[room]]
id = "blk"
title = "A block"

[[feature]]
id = "blk.one"
desc = "does one thing"
tests = ["tb/blk/test_blk.py::good_cocotb", "tb/blk/test_blk.py::nested_cocotb",
         "tb/blk/test_blk.py::test_runner", "tb/other/test_other.py::test_other"]
reference = "a model"

[[feature]]
id = "blk.two"
desc = "does another thing"
tests = []
reference = "the doc"
gap = "nothing checks it"
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args],
                          capture_output=True, text=True, cwd=REPO)


def test_repository_plan_is_consistent() -> None:
    """`sim/testplan.py --check` on the real plan: every reference resolves, every
    tb/**/test_*.py is referenced, ids unique, docs/testplan.md current."""
    p = _run("--check")
    assert p.returncode == 0, p.stderr


def test_checker_accepts_a_good_plan(tmp_path: Path, tp) -> None:
    plan_path = _tree(tmp_path, GOOD)
    plan = tp.load(plan_path)
    assert tp.check(plan, tmp_path) == []
    names = tp.defined_tests(tmp_path / "tb" / "blk" / "test_blk.py")
    assert names == {"good_cocotb": "cocotb", "nested_cocotb": "cocotb",
                     "test_runner": "pytest"}
    # Generate, then --check passes; edit the page and --check reports it stale.
    doc = tmp_path / "docs" / "testplan.md"
    args = ["--plan", str(plan_path), "--root", str(tmp_path)]
    p = _run(*args)
    assert p.returncode == 0, p.stderr
    text = doc.read_text()
    assert "`blk.two`" in text and "nothing checks it" in text and "## Gaps" in text
    assert _run("--check", *args).returncode == 0
    doc.write_text(text + "edited\n")
    p = _run("--check", *args)
    assert p.returncode == 1 and "stale" in p.stderr


@pytest.mark.parametrize("ref, why", [
    ("tb/blk/test_blk.py::helper", "no cocotb test or pytest function 'helper'"),
    ("tb/blk/test_blk.py::undecorated", "'undecorated'"),
    ("tb/blk/test_blk.py::not_a_test", "'not_a_test'"),
    ("tb/blk/test_blk.py::missing", "'missing'"),
    ("tb/blk/test_gone.py::good_cocotb", "no such file"),
    ("tb/blk/test_blk.py", "bad reference"),
])
def test_checker_refuses_bad_reference(tmp_path: Path, tp, ref: str, why: str) -> None:
    plan_path = _tree(tmp_path, GOOD.replace('"tb/blk/test_blk.py::good_cocotb"', f'"{ref}"'))
    errors = tp.check(tp.load(plan_path), tmp_path)
    assert any(why in e and "blk.one" in e for e in errors), errors
    # the command line refuses it too
    p = _run("--check", "--plan", str(plan_path), "--root", str(tmp_path))
    assert p.returncode == 1 and why in p.stderr


def test_checker_refuses_unreferenced_file_and_duplicate_id(tmp_path: Path, tp) -> None:
    plan = GOOD.replace(', "tb/other/test_other.py::test_other"', "")
    plan = plan.replace('id = "blk.two"', 'id = "blk.one"')
    plan = plan.replace('gap = "nothing checks it"', "")
    plan += '\n[[feature]]\nid = "nope.x"\ndesc = "d"\ntests = []\nreference = "r"\n'
    errors = tp.check(tp.load(_tree(tmp_path, plan)), tmp_path)
    assert any("tb/other/test_other.py: no feature references it" in e for e in errors)
    assert any("'blk.one' is not unique" in e for e in errors)
    assert any("needs a gap" in e for e in errors)
    assert any("room 'nope' is not declared" in e for e in errors)
