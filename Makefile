# SPDX-License-Identifier: Apache-2.0
# fabnic top-level Makefile: every target bootstraps the project venv on first use.
#
#   make demo            the main job: traffic through the datapath, summary, FST + pcap
#   make sim             the regression (TESTS="<pytest -k expr>", WAVES=1, JOBS=n, SLOW=1)
#   make lint            fabnic.core check, verilator --lint-only -Wall, Verible style rules (docs/style.md),
#                        generated files and the testplan (tb/testplan.toml -> docs/testplan.md) current
#   make synth           Yosys (read_slang) cell counts + nextpnr-ecp5 Fmax
#   make timing          logic levels of every RTL module (UltraScale+), cached -> build/timing/results.json
#   make bench           benchmarks -> table + build/bench/results.json (BENCH=<pattern>)
#   make cov             regression with line/toggle coverage, per-file report
#   make regs            regenerate register RTL, fw/fabnic/regmap_gen.py, docs/registers.md from rdl/;
#                        host layouts (SV package, fw/fabnic/layouts.py, docs/fw.md) from rdl/layouts.toml
#   make docs            HTML register reference (PeakRDL-html) -> build/docs/regs/index.html
#   make filelists       .f file lists from fabnic.core -> build/filelists/
#   make clean

SHELL  := /bin/bash
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.fabnic-stamp
JOBS   ?= 2
TESTS  ?=
SLOW   ?= 0

PYTEST_ARGS := -n $(JOBS) --dist loadgroup --no-loadscope-reorder --durations=15 $(if $(TESTS),-k "$(TESTS)") $(if $(filter 1,$(SLOW)),,-m "not slow")

.PHONY: setup demo sim lint synth timing bench cov regs docs filelists clean help

help:
	@sed -n '2,17p' Makefile

$(STAMP): pyproject.toml sim/bootstrap.sh
	@bash sim/bootstrap.sh

setup: $(STAMP)

demo: $(STAMP)
	$(PY) sim/demo.py

sim: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS) tb

regs: $(STAMP)
	$(PY) sim/gen_regs.py
	$(PY) sim/gen_layouts.py

filelists: $(STAMP)
	$(PY) tb/fabnic_tb/filelist.py --write build/filelists

docs: $(STAMP)
	rm -rf build/docs/regs
	$(PY) sim/gen_regs.py --html build/docs/regs

lint: $(STAMP)
	$(PY) sim/gen_regs.py --check
	$(PY) sim/gen_layouts.py --check
	$(PY) sim/testplan.py --check
	$(PY) sim/lint.py
	$(VENV)/bin/ruff check fw tb sim

# SYNTH_ARGS="--only pkt" etc.; SYNTH_DEADLINE / SYNTH_BLOCK_TIMEOUT (s) raise the
# default budget (570 s total, 300 s per block) for a complete table.
synth: $(STAMP)
	$(PY) sim/synth.py $(SYNTH_ARGS)

# TIMING_ARGS="--only parser -v" (a subset, five worst paths each), "--tops" (whole designs)
timing: $(STAMP)
	$(PY) sim/timing.py -j $(JOBS) $(TIMING_ARGS)

bench: $(STAMP)
	BENCH="$(BENCH)" $(PY) sim/bench.py

cov: $(STAMP)
	@find build/sim \( -name coverage.dat -o -name "func_cov-*.yml" \) -delete 2>/dev/null || true
	COV=1 $(PY) -m pytest $(PYTEST_ARGS) tb
	$(PY) sim/cov.py

clean:
	rm -rf build
