#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Creates the project-local virtual environment (.venv) with the pinned toolchain
# from pyproject.toml, and checks the few Debian packages that have no PyPI
# equivalent. Idempotent: does nothing when .venv is up to date.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
STAMP=$VENV/.fabnic-stamp
PY=${PYTHON:-python3}

if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  echo "[setup] creating $VENV with the pinned toolchain (first run takes a minute)"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -e .
  touch "$STAMP"
fi

# Debian packages: compilers for Verilator's C++ (always present on the Debian
# base here) and LZ4 headers for FST waveforms (optional: VCD otherwise).
missing=()
for tool in make g++ perl; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] ERROR: missing system tools: ${missing[*]} (Debian: apt-get install build-essential perl)" >&2
  exit 1
fi
# ccache: every Verilator build compiles the same runtime files (verilated.cpp, the VPI
# glue); with ccache only the first build of a regression pays for them, and a second
# run of the same models is nearly free. Optional: builds work without it.
apt_missing=()
[ -f /usr/include/lz4.h ] || apt_missing+=(liblz4-dev)
command -v ccache >/dev/null 2>&1 || apt_missing+=(ccache)
if [ ${#apt_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing ${apt_missing[*]} (FST waveforms, compiler cache)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_missing[@]}" >/dev/null) \
      || echo "[setup] note: could not install ${apt_missing[*]}; without liblz4-dev WAVES=1 writes VCD, without ccache builds are slower"
  else
    echo "[setup] note: not installed: ${apt_missing[*]} (sudo apt-get install ${apt_missing[*]}): without liblz4-dev WAVES=1 writes VCD instead of FST, without ccache every Verilator build compiles its runtime again"
  fi
fi
