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
if [ ! -f /usr/include/lz4.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing liblz4-dev (FST waveforms)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblz4-dev >/dev/null) \
      || echo "[setup] note: could not install liblz4-dev; WAVES=1 will write VCD instead of FST"
  else
    echo "[setup] note: liblz4-dev is not installed; WAVES=1 will write VCD instead of FST (sudo apt-get install liblz4-dev)"
  fi
fi
