# SPDX-License-Identifier: Apache-2.0
"""The netlist walk of `make timing` (sim/timing.py) against hand-counted netlists.

Each netlist is built here in Yosys' JSON shape from cells whose levels are known
from the counting rule in docs/timing.md, so the expected depth is counted by hand,
not taken from the tool.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sim"))
import timing  # noqa: E402


class Net:
    """A tiny netlist builder: cells connect integer bits; ports name bits."""

    def __init__(self) -> None:
        self.cells: dict[str, dict] = {}
        self.ports: dict[str, dict] = {}
        self.names: dict[str, dict] = {}
        self.next = 2

    def bit(self) -> int:
        self.next += 1
        return self.next

    def cell(self, name: str, ctype: str, ins: dict[str, list], outs: dict[str, list],
             params: dict | None = None) -> None:
        conns = {**ins, **outs}
        dirs = {**{p: "input" for p in ins}, **{p: "output" for p in outs}}
        self.cells[name] = {"type": ctype, "connections": conns, "port_directions": dirs,
                            "parameters": params or {}, "attributes": {"src": f"/x/rtl/t.sv:{len(self.cells) + 1}.1-1.2"}}

    def ff(self, name: str, d: int) -> int:
        q = self.bit()
        self.cell(name, "FDRE", {"C": [2], "D": [d], "CE": ["1"], "R": ["0"]}, {"Q": [q]})
        self.names[name] = {"hide_name": 0, "bits": [q], "attributes": {}}
        return q

    def lut(self, *ins: int) -> int:
        o = self.bit()
        self.cell(f"lut{o}", f"LUT{len(ins)}", {f"I{i}": [b] for i, b in enumerate(ins)}, {"O": [o]})
        return o

    def port(self, name: str, direction: str, bits: list) -> None:
        self.ports[name] = {"direction": direction, "bits": bits}

    def json(self) -> dict:
        return {"modules": {"top": {"cells": self.cells, "ports": self.ports, "netnames": self.names}}}


def test_lut_chain_levels() -> None:
    n = Net()
    d0 = n.bit()
    a = n.ff("a_q", d0)
    x = a
    for _ in range(7):
        x = n.lut(x)
    b = n.ff("b_q", x)
    n.cells["a_q"]["connections"]["D"] = [n.lut(b)]  # b_q -> 1 level -> a_q
    res = timing.analyze(n.json(), "top")
    assert res["levels"] == 7
    assert res["endpoints"] == 2
    assert res["endpoints_over"] == 1
    assert res["worst"][0]["start"].startswith("a_q")
    assert res["worst"][0]["end"].startswith("b_q")


def test_carry_chain_counts_once() -> None:
    # a_q -> LUT -> CARRY4 -> CARRY4 -> CARRY4 -> LUT -> b_q: 1 + 1 (chain) + 1 = 3
    n = Net()
    a = n.ff("a_q", n.bit())
    s = n.lut(a)
    co = [n.bit() for _ in range(4)]
    n.cell("c0", "CARRY4", {"CI": ["0"], "CYINIT": ["0"], "S": [s, "0", "0", "0"],
                            "DI": ["0"] * 4}, {"CO": co, "O": [n.bit() for _ in range(4)]})
    co1 = [n.bit() for _ in range(4)]
    n.cell("c1", "CARRY4", {"CI": [co[3]], "CYINIT": ["0"], "S": ["1"] * 4, "DI": ["0"] * 4},
           {"CO": co1, "O": [n.bit() for _ in range(4)]})
    o2 = [n.bit() for _ in range(4)]
    n.cell("c2", "CARRY4", {"CI": [co1[3]], "CYINIT": ["0"], "S": ["1"] * 4, "DI": ["0"] * 4},
           {"CO": [n.bit() for _ in range(4)], "O": o2})
    n.ff("b_q", n.lut(o2[3]))
    res = timing.analyze(n.json(), "top")
    assert res["levels"] == 3


def test_wide_mux_and_lutram() -> None:
    # a_q -> LUT6 -> MUXF7 -> MUXF8 -> RAM64X1D read (address) -> b_q: 4 levels
    n = Net()
    a = n.ff("a_q", n.bit())
    l0, l1 = n.lut(a), n.lut(a)
    m7 = n.bit()
    n.cell("m7", "MUXF7", {"I0": [l0], "I1": [l1], "S": [a]}, {"O": [m7]})
    m8 = n.bit()
    n.cell("m8", "MUXF8", {"I0": [m7], "I1": [m7], "S": [a]}, {"O": [m8]})
    spo, dpo = n.bit(), n.bit()
    n.cell("ram", "RAM64X1D", {"A0": [m8], "DPRA0": [a], "D": [a], "WE": [a], "WCLK": [2]},
           {"SPO": [spo], "DPO": [dpo]})
    n.ff("b_q", spo)
    res = timing.analyze(n.json(), "top")
    assert res["levels"] == 4
    # the RAM's write pins are endpoints too: D/WE straight from a_q (0 levels), A0 at 3
    assert res["endpoints"] >= 3


def test_ports_and_handshake_through() -> None:
    # s_valid -> LUT -> m_valid is a combinational handshake path; a_q -> m_data is reg>out
    n = Net()
    sv, mv, md = n.bit(), n.bit(), n.bit()
    n.port("s_valid", "input", [sv])
    n.port("m_valid", "output", [mv])
    n.port("m_data", "output", [md])
    a = n.ff("a_q", sv)
    n.cell("l1", "LUT1", {"I0": [sv]}, {"O": [mv]})
    n.cell("l2", "LUT2", {"I0": [a], "I1": [a]}, {"O": [md]})
    res = timing.analyze(n.json(), "top")
    assert res["handshake_through"] == ["s_valid -> m_valid"]
    assert res["reg_to_out"] == 1
    assert res["in_to_out"] == 1
    assert res["levels"] == 0  # a_q's D comes straight from an input; no register start


def test_dsp_without_preg_is_logic() -> None:
    n = Net()
    a = n.ff("a_q", n.bit())
    p = n.bit()
    n.cell("dsp", "DSP48E2", {"A": [a]}, {"P": [p]}, params={"PREG": "0"})
    n.ff("b_q", p)
    assert timing.analyze(n.json(), "top")["levels"] == timing.DSP_LEVELS
    n.cells["dsp"]["parameters"]["PREG"] = "1"
    assert timing.analyze(n.json(), "top")["levels"] == 0


def test_compare_and_markdown(tmp_path: Path) -> None:
    def block(levels: int, over: int) -> dict:
        return {"label": "x", "module": "fabnic_x", "params": {"DATA_W": 512}, "status": "ok",
                "timing": {"levels": levels, "endpoints_over": over, "endpoints": 10,
                           "in_to_reg": 1, "reg_to_out": 2, "handshake_through": [],
                           "worst": [{"start": "a_q", "end": "b_q"}]}}

    old = {"commit": "aaa", "budget": 6, "records": [],
           "blocks": {"same": block(5, 0), "better": block(9, 4)}}
    new = {"commit": "bbb", "budget": 6, "records": [],
           "blocks": {"same": block(5, 0), "better": block(6, 0),
                      "gone": {**block(1, 0), "status": "timeout", "note": "t"}}}
    po, pn = tmp_path / "old.json", tmp_path / "new.json"
    po.write_text(timing.json.dumps(old))
    pn.write_text(timing.json.dumps(new))
    out = timing.compare(po, pn).splitlines()
    assert "aaa -> bbb" in out[0]
    rows = {ln.split()[0]: ln.split()[1:] for ln in out[1:]}
    assert set(rows) == {"better", "gone"}          # unchanged blocks are not listed
    assert rows["better"] == ["9", "->", "6", "4", "->", "0"]
    md = timing.markdown(pn).splitlines()
    assert md[-1].startswith("| gone |") and "timeout" in md[-1]   # failures sort last
    assert md[4].startswith("| better | DATA_W 512 | 6 | 0 of 10 |")
