# SPDX-License-Identifier: Apache-2.0
"""The SystemRDL source (rdl/) compiled here with systemrdl-compiler, against every
artifact generated from it: the driver's register map (fabnic.regmap*), the register
RTL (addresses decoded, port widths), the field-level packages, docs/registers.md, and
the constants the driver keeps next to the registers (verbs doorbells and command
codes, virtio feature bits).

The expectations are read from the compiled RDL nodes directly (addresses, widths,
access, reset values, encodings), not through the generator's model walk.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from systemrdl.node import AddrmapNode, RegfileNode, RegNode
from systemrdl.rdltypes import AccessType

from fabnic import regmap, regmap_nic, regmap_virtio
from fabnic.regmap_types import Block, Reg

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "sim"))
import gen_regs  # noqa: E402
import rdl_model  # noqa: E402


@pytest.fixture(scope="module")
def roots():
    return rdl_model.compile_rdl()


def _windows(roots) -> dict[str, AddrmapNode]:
    out = {}
    for root in roots.values():
        for n in [root.top, *root.top.descendants()]:
            if isinstance(n, AddrmapNode) and n.get_property("fabnic_window"):
                out[n.get_path()] = n
    return out


def _module_of(node: AddrmapNode) -> str:
    n = node
    while n is not None and isinstance(n, AddrmapNode):
        if n.get_property("fabnic_module"):
            return n.get_property("fabnic_module")
        n = n.parent
    raise AssertionError(f"{node.get_path()}: no module")


def _rdl_registers(window: AddrmapNode):
    """(module, block name, register name, address in the window, RegNode) of every
    register of a generated block in the window, arrays unrolled."""
    blocks = [window] if any(isinstance(c, RegNode) for c in window.children()) else [
        b for b in window.children() if isinstance(b, AddrmapNode)]
    for blk in blocks:
        for r in blk.registers(unroll=True):
            name = r.inst_name + ("".join(str(i) for i in r.current_idx) if r.is_array else "")
            yield (_module_of(blk), blk.inst_name, name,
                   r.absolute_address - window.absolute_address, r)


def _reset_word(r: RegNode) -> int:
    return sum((f.get_property("reset") or 0) << f.lsb for f in r.fields())


def test_python_map_matches_the_rdl(roots) -> None:
    seen = set()
    for path, win in _windows(roots).items():
        for module, bname, rname, addr, node in _rdl_registers(win):
            blk = next(b for b in regmap.MAPS[module] if b.name == bname)
            reg = blk.reg(rname)
            assert blk.addr(rname) == addr, f"{path}: {bname}.{rname}"
            fields = list(node.fields())
            assert [(f.inst_name, f.lsb, f.width) for f in fields] == \
                [(f.name, f.lsb, f.width) for f in reg.fields], f"{bname}.{rname}"
            sw = {f.get_property("sw") for f in fields}
            hw = {f.get_property("hw") for f in fields}
            if node.get_property("regwidth") == 64:
                assert reg.kind == "ro64"
            elif hw == {AccessType.na}:
                assert reg.kind == "const"
                params = [f.get_property("fabnic_param") for f in fields]
                assert reg.param == (params[0] or "") and (reg.param or
                                                          reg.value == _reset_word(node))
            elif sw == {AccessType.rw}:
                assert reg.kind == "rw" and reg.reset == _reset_word(node), f"{bname}.{rname}"
            elif sw == {AccessType.w}:
                assert reg.kind == "pulse"
            else:
                assert sw == {AccessType.r} and hw == {AccessType.w} and reg.kind == "ro"
            for f, pf in zip(fields, reg.fields, strict=True):
                assert pf.reset == f.get_property("reset")
                enc = f.get_property("encode")
                assert [(n, v) for n, v, _ in pf.enum] == \
                    ([(m.name, m.value) for m in enc] if enc else [])
            seen.add((module, bname, rname))
    listed = {(m, b.name, r.name) for m, bl in regmap.MAPS.items() for b in bl for r in b.regs}
    assert listed == seen, f"only in Python: {listed - seen}; only in RDL: {seen - listed}"


def test_windows_and_external_regions(roots) -> None:
    wins = _windows(roots)
    assert {p: w.absolute_address for p, w in wins.items()} == regmap.WINDOWS
    assert (regmap_nic.ROCE_BASE, regmap_nic.VNIC_BASE, regmap_nic.NIC_BASE) == (
        wins["fabnic_nic.roce"].absolute_address, wins["fabnic_nic.vnic"].absolute_address,
        wins["fabnic_nic.nic"].absolute_address)
    for win in wins.values():
        for c in win.children():
            if isinstance(c, RegfileNode):
                assert c.external, f"{c.get_path()}: a regfile in a window must be external"
                b = regmap.EXTERNAL[c.inst_name]
                assert b.external and b.base == c.absolute_address - win.absolute_address
                assert b.size == c.get_property("fabnic_span")
                for r in c.registers(unroll=False):
                    pr = b.reg(r.inst_name)
                    assert b.base + pr.offset == r.raw_absolute_address - win.absolute_address
                    if r.is_array or (r.parent is not c and r.parent.is_array):
                        arr = r if r.is_array else r.parent
                        assert (pr.count, pr.stride) == (arr.array_dimensions[0],
                                                         arr.array_stride)


def test_driver_constants_match_the_rdl() -> None:
    """Constants the driver keeps by hand next to the register map."""
    from fabnic import verbs

    win = regmap.WINDOWS["fabnic_nic.roce"]
    db = regmap.EXTERNAL["doorbells"]
    assert verbs.SQ_DB_BASE == win + db.addr("sq_pi")
    assert verbs.RQ_DB_BASE == win + db.addr("rq_pi")
    assert verbs.CQ_DB_BASE == win + db.addr("cq_ci")
    assert db.reg("sq_pi").stride == db.reg("cq_ci").stride == 8
    assert verbs.CQ_DB_ARM == db.reg("cq_ci").field("arm").mask
    cmd = regmap.ROCE.reg("cmd")
    assert {op.name: int(op) for op in verbs.CmdOp} == \
        {n: v for n, v, _ in cmd.field("op").enum}
    assert verbs.CMD_RESET_SQ == cmd.field("reset_sq").mask
    assert verbs.CMD_RESET_RQ == cmd.field("reset_rq").mask
    caps = regmap.ROCE.reg("caps")
    assert {c.name.lower(): int(c) for c in verbs.Cap} == {f.name: f.mask for f in caps.fields}
    assert caps.value == sum(verbs.Cap)
    state = regmap.ROCE.reg("result0").field("state")
    assert {s.name: int(s) for s in verbs.QpState} == {n: v for n, v, _ in state.enum}


def test_virtio_layout() -> None:
    off = regmap_virtio.VIRTIO.reg("offered_lo")
    spec = {n.removeprefix("F_").lower(): getattr(regmap_virtio, n)
            for n in dir(regmap_virtio) if n.startswith("F_")}
    for f in off.fields:
        assert spec[f.name] == f.lsb, f"offered_lo.{f.name}: spec bit {spec[f.name]}"
    assert regmap_virtio.OFFERED & 0xFFFFFFFF == off.value
    # struct virtio_pci_common_cfg / virtio_net_config byte offsets (VirtIO 1.2, 4.1.4.3)
    assert (regmap_virtio.NUM_QUEUES, regmap_virtio.DEVICE_STATUS,
            regmap_virtio.CONFIG_GENERATION, regmap_virtio.QUEUE_SELECT,
            regmap_virtio.QUEUE_SIZE, regmap_virtio.QUEUE_ENABLE, regmap_virtio.QUEUE_DESC,
            regmap_virtio.QUEUE_RESET) == (0x12, 0x14, 0x15, 0x16, 0x18, 0x1C, 0x20, 0x3A)
    assert (regmap_virtio.NET_STATUS, regmap_virtio.NET_MAX_VQ_PAIRS,
            regmap_virtio.NET_MTU) == (0x06, 0x08, 0x0A)


_BLOCK = re.compile(r"// ---- block (\w+): 0x([0-9a-f]+)")
_STRB = re.compile(r"(?:for\s*\(int i0\s*=\s*0;\s*i0\s*<\s*(\d+);[^\n]*\n\s*)?"
                   r"decoded_reg_strb\.[\w\[\]]+ = cpuif_req_masked & "
                   r"\(cpuif_addr == \d+'h([0-9a-f]+)(?: \+ \(\d+\)'\(i0\) \* \d+'h([0-9a-f]+))?\)")
_PORT = re.compile(r"^\s+(input\s+wire\s+logic|output\s+logic)\s*(\[(\d+):0\])?\s*(\w+),?$", re.M)


def _decoded(text: str) -> list[int]:
    """Addresses the window decodes: each block's base (from the window) plus the
    addresses its PeakRDL-regblock module compares (loops over arrays unrolled)."""
    out: list[int] = []
    for name, base in _BLOCK.findall(text):
        rb = (REPO / "rtl" / "top" / "regblock" / f"fabnic_rb_{name}.sv").read_text()
        for n, a, stride in _STRB.findall(rb):
            for i in range(int(n) if n else 1):
                out.append(int(base, 16) + int(a, 16) + i * int(stride or "0", 16))
    return out


def test_rtl_decodes_the_rdl_addresses(roots) -> None:
    want: dict[str, dict[int, RegNode]] = {}
    for win in _windows(roots).values():
        for module, _b, _r, addr, node in _rdl_registers(win):
            for w in range(0, node.size, 4):
                want.setdefault(module, {})[addr + w] = node
    for module, addrs in want.items():
        text = (REPO / "rtl" / "top" / f"fabnic_regs_{module}.sv").read_text()
        decoded = _decoded(text)
        assert len(decoded) == len(set(decoded)), f"{module}: an address decoded twice"
        assert set(decoded) == set(addrs), f"{module}: {set(decoded) ^ set(addrs)}"
        ports = {m.group(4): int(m.group(3)) + 1 if m.group(3) else 1
                 for m in _PORT.finditer(text)}
        for b in regmap.MAPS[module]:
            for r in b.regs:
                n = f"{b.name}_{r.name}"
                if r.kind == "rw":
                    assert ports[f"cfg_{n}"] == r.width
                elif r.kind in ("ro", "ro64"):
                    assert ports[f"sts_{n}"] == r.width
                elif r.kind == "pulse":
                    assert ports[f"cmd_{n}"] == 1 and ports[f"cmd_{n}_data"] == r.width


def test_docs_list_every_register() -> None:
    text = (REPO / "docs" / "registers.md").read_text()
    assert "rdl/" in text and "How to add a register" in text
    for bl in [*regmap.MAPS.values(), tuple(regmap.EXTERNAL.values())]:
        for b in bl:
            for r in b.regs:
                assert f"| `{b.base + r.offset:#06x}`" in text and f"`{r.name}`" in text, \
                    f"{b.name}.{r.name} missing in docs/registers.md"


def test_generated_files_are_fresh() -> None:
    for path, text in gen_regs.outputs().items():
        assert path.read_text() == text, f"{path} is stale: run `make regs`"


def test_field_packages_lint() -> None:
    from fabnic_tb import tools

    tools.setup_env()
    pkgs = sorted((REPO / "rtl" / "top").glob("fabnic_regs_*_pkg.sv"))
    assert {p.stem.removeprefix("fabnic_regs_").removesuffix("_pkg") for p in pkgs} == \
        set(regmap.MAPS)
    for p in pkgs:
        # a package's constants are unused until a module imports them
        r = subprocess.run([tools.verilator_bin(), "--lint-only", "-Wall", "--quiet-stats",
                            "-Wno-UNUSEDPARAM",
                            str(p)],
                           capture_output=True, text=True)
        assert r.returncode == 0 and not (r.stdout + r.stderr).strip(), r.stdout + r.stderr


def test_struct_widths_match_the_ports() -> None:
    """The packed struct of each register is as wide as its port (so a cast is exact)."""
    for m, bl in regmap.MAPS.items():
        text = (REPO / "rtl" / "top" / f"fabnic_regs_{m}_pkg.sv").read_text()
        for b in bl:
            for r in b.regs:
                s = re.search(rf"typedef struct packed {{  // (\d+) bits\n([^}}]*)\}} {b.name}_{r.name}_t;",
                              text)
                if s is None:
                    continue
                bits = 0
                for line in filter(str.strip, s.group(2).splitlines()):
                    w = re.search(r"\[(\d+):0\]", line)
                    enum = re.search(r"(\w+)_e \w+;", line)
                    if enum:
                        bits += r.field(line.split()[-1].rstrip(";").rstrip("_")).width
                    else:
                        bits += int(w.group(1)) + 1 if w else 1
                assert bits == r.width == int(s.group(1)), f"{b.name}.{r.name}"


def test_model_rejects_what_the_generator_cannot_build(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rdl"
    bad.write_text((REPO / "rdl" / "udp.rdl").read_text() + """
addrmap blk { fabnic_span = 0x100;
  reg { field { sw = rw; hw = r; } a[3:0] = 0; field { sw = r; hw = w; } b[7:4]; } mixed @ 0;
};
addrmap fabnic_datapath { fabnic_window = true; fabnic_module = "datapath"; blk blk @ 0; };
addrmap fabnic_nic { fabnic_window = true; fabnic_module = "nic"; blk blk @ 0; };
""")
    with pytest.raises(rdl_model.RdlModelError, match="mixed field access"):
        rdl_model.build_model(rdl_model.compile_rdl(bad))


def test_block_types_refuse_overlaps() -> None:
    with pytest.raises(ValueError):
        Block("b", 0, 0x40, "", (Reg("a", 0, "pulse", "", count=4, stride=8),
                                 Reg("b", 8, "pulse", "", count=2, stride=8)))
    Block("b", 0, 0x40, "", (Reg("a", 0, "pulse", "", count=4, stride=8),
                             Reg("b", 4, "pulse", "", count=4, stride=8)))
