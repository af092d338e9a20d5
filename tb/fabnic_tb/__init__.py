# SPDX-License-Identifier: Apache-2.0
"""Shared testbench infrastructure for fabnic (runner, bus helpers, golden models)."""
