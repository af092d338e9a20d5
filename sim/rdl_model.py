# SPDX-License-Identifier: Apache-2.0
"""Compile the SystemRDL register source (rdl/) and turn it into the register model.

:func:`compile_rdl` runs systemrdl-compiler on ``rdl/fabnic.rdl`` and elaborates every
top-level window (:data:`TOPS`). :func:`build_model` walks the compiled tree into
:class:`Model`: the blocks of every generated register module (``maps``), the external
regions (``external``), and the address of every window (``windows``), as the
:mod:`fabnic.regmap_types` objects the driver uses at run time. The generators in
``sim/gen_regs.py`` (RTL, Python, Markdown) work from that model; the HTML reference
is exported from the compiled tree itself.

Rules the walk enforces (the generated flat-port module can implement nothing else):

* a block is an addrmap with registers (``fabnic_span`` = its reserved size, aligned);
  it belongs to the module named by the nearest ``fabnic_module`` and decodes addresses
  relative to the nearest ``fabnic_window`` (both may be set on the block itself);
* an ``external`` regfile in a window is an external region (hand-written RTL);
* in a generated block every field of a register has one access: all ``sw=rw, hw=r``
  (rw), all ``sw=r, hw=w`` (ro; ``regwidth = 64`` with ``buffer_reads`` for ro64), all
  ``sw=r, hw=na`` (const, with a reset value or ``fabnic_param``), or all ``sw=w, hw=r``
  with ``swmod`` (pulse); register arrays are unrolled into ``<name><index>``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from systemrdl import RDLCompiler
from systemrdl.node import AddrmapNode, FieldNode, Node, RegfileNode, RegNode, RootNode
from systemrdl.rdltypes import AccessType, OnReadType

REPO = Path(__file__).resolve().parents[1]
RDL_DIR = REPO / "rdl"
RDL_TOP_FILE = RDL_DIR / "fabnic.rdl"
TOPS = ("fabnic_datapath", "fabnic_nic")

sys.path.insert(0, str(REPO / "fw"))
from fabnic.regmap_types import Block, Field, Reg  # noqa: E402


class RdlModelError(ValueError):
    pass


@dataclass
class Model:
    roots: dict[str, RootNode]
    maps: dict[str, tuple[Block, ...]] = field(default_factory=dict)
    external: dict[str, Block] = field(default_factory=dict)
    windows: dict[str, int] = field(default_factory=dict)  # window path -> address in its top
    map_window: dict[str, str] = field(default_factory=dict)  # module -> window path
    external_window: dict[str, str] = field(default_factory=dict)  # block -> window path


def compile_rdl(top_file: Path = RDL_TOP_FILE) -> dict[str, RootNode]:
    from peakrdl_regblock.udps import ALL_UDPS

    rdlc = RDLCompiler()
    for udp in ALL_UDPS:  # buffer_reads & co. mean what PeakRDL-regblock makes of them
        rdlc.register_udp(udp, soft=False)
    rdlc.compile_file(str(top_file))
    return {top: rdlc.elaborate(top) for top in TOPS}


def text(s: str | None) -> str:
    """A description as one line (RDL strings wrap over several source lines)."""
    return re.sub(r"\s+", " ", s or "").strip()


_SW = {AccessType.r: "r", AccessType.rw: "rw", AccessType.w: "w"}
_HW = {AccessType.na: "na", AccessType.r: "r", AccessType.w: "w", AccessType.rw: "rw"}


def _field(f: FieldNode) -> Field:
    sw = _SW.get(f.get_property("sw"))
    if sw is None:
        raise RdlModelError(f"{f.get_path()}: software access {f.get_property('sw')} unsupported")
    reset = f.get_property("reset")
    if reset is not None and not isinstance(reset, int):
        raise RdlModelError(f"{f.get_path()}: reset must be a constant")
    onread = f.get_property("onread")
    onwrite = f.get_property("onwrite")
    enum = f.get_property("encode")
    return Field(
        name=f.inst_name, lsb=f.lsb, width=f.width, sw=sw, doc=text(f.get_property("desc")),
        reset=reset, param=f.get_property("fabnic_param") or "",
        hw=_HW[f.get_property("hw")],
        onread={None: "", OnReadType.rclr: "rclr", OnReadType.rset: "rset"}[onread],
        onwrite="" if onwrite is None else onwrite.name,
        enum=tuple((m.name, m.value, text(m.rdl_desc)) for m in enum) if enum else (),
    )


def _kind(r: RegNode, fields: list[Field], generated: bool) -> str:
    path = r.get_path()
    if r.get_property("regwidth") == 64:
        if not (r.get_property("buffer_reads") and r.get_property("accesswidth") == 32
                and all(f.sw == "r" and f.hw == "w" for f in fields)):
            raise RdlModelError(f"{path}: a 64-bit register must be a read-only counter "
                                "(accesswidth = 32, buffer_reads)")
        return "ro64"
    if r.get_property("regwidth") != 32:
        raise RdlModelError(f"{path}: registers are 32 bits (or 64-bit counters)")
    if all(f.is_const for f in fields):
        for f in fields:
            if f.reset is None and not f.param:
                raise RdlModelError(f"{path}.{f.name}: constant without reset or fabnic_param")
        if generated and any(f.param for f in fields) and len(fields) != 1:
            raise RdlModelError(f"{path}: a fabnic_param constant must be the only field")
        return "const"
    if all(f.sw == "w" for f in fields):
        if not any(fn.get_property("swmod") for fn in r.fields()):
            raise RdlModelError(f"{path}: a write-only register needs swmod (the strobe)")
        return "pulse"
    if any(f.sw == "rw" for f in fields):
        if generated and not all(f.sw == "rw" and f.hw == "r" for f in fields):
            raise RdlModelError(f"{path}: mixed field access in a generated register")
        if generated and any(f.reset is None for f in fields):
            raise RdlModelError(f"{path}: rw field without reset")
        return "rw"
    if generated and not all(f.sw == "r" and f.hw == "w" and not f.onread for f in fields):
        raise RdlModelError(f"{path}: unsupported field access in a generated register")
    return "ro"


def _reg(r: RegNode, name: str, offset: int, generated: bool, count: int = 1,
         stride: int = 0) -> Reg:
    fields = [_field(f) for f in r.fields()]
    kind = _kind(r, fields, generated)
    msb = max(f.msb for f in fields)
    width = {"ro64": 64, "const": 32}.get(kind) or r.get_property("fabnic_port_w") or msb + 1
    if width <= msb:
        raise RdlModelError(f"{r.get_path()}: fabnic_port_w narrower than the fields")
    word = sum((f.reset or 0) << f.lsb for f in fields)
    params = [f.param for f in fields if f.param]
    return Reg(
        name=name, offset=offset, kind=kind, doc=text(r.get_property("desc")), width=width,
        reset=word if kind in ("rw", "pulse") else 0,
        value=word if kind == "const" else 0,
        param=params[0] if kind == "const" and len(fields) == 1 and params else "",
        fields=tuple(fields), count=count, stride=stride,
    )


def _regs(node: Node, offset: int, generated: bool, out: list[Reg]) -> None:
    """Registers below ``node`` (a block or a regfile), offsets relative to the block."""
    for c in node.children(unroll=False):
        off = offset + c.raw_address_offset
        dims = c.array_dimensions if c.is_array else None
        if dims and len(dims) != 1:
            raise RdlModelError(f"{c.get_path()}: only one-dimensional arrays")
        if isinstance(c, RegNode):
            if not dims:
                out.append(_reg(c, c.inst_name, off, generated))
            elif generated:  # unrolled: data[24] -> data0..data23
                out += [_reg(c, f"{c.inst_name}{i}", off + i * c.array_stride, generated)
                        for i in range(dims[0])]
            else:
                out.append(_reg(c, c.inst_name, off, generated, dims[0], c.array_stride))
        elif isinstance(c, RegfileNode):
            if dims and generated:
                raise RdlModelError(f"{c.get_path()}: regfile arrays only in external regions")
            sub: list[Reg] = []
            _regs(c, off, generated, sub)
            if dims:
                for r in sub:
                    if r.count != 1:
                        raise RdlModelError(f"{c.get_path()}: nested arrays")
                sub = [Reg(**{**r.__dict__, "count": dims[0], "stride": c.array_stride})
                       for r in sub]
            out += sub
        elif not isinstance(c, FieldNode):
            raise RdlModelError(f"{c.get_path()}: {type(c).__name__} not supported in a block")


def _block(node: AddrmapNode | RegfileNode, base: int, external: bool) -> Block:
    size = node.get_property("fabnic_span")
    if not size:
        raise RdlModelError(f"{node.get_path()}: block without fabnic_span")
    if size < node.size or base % size:
        raise RdlModelError(f"{node.get_path()}: fabnic_span {size:#x} too small or base "
                            f"{base:#x} not aligned to it")
    regs: list[Reg] = []
    _regs(node, 0, not external, regs)
    names = [r.name for r in regs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise RdlModelError(f"{node.get_path()}: register names not unique: {sorted(dup)}")
    return Block(node.inst_name, base, size, text(node.get_property("desc")), tuple(regs),
                 external=external)


def build_model(roots: dict[str, RootNode] | None = None) -> Model:
    roots = roots if roots is not None else compile_rdl()
    model = Model(roots)
    maps: dict[str, list[Block]] = {}

    def visit(a: AddrmapNode, window: AddrmapNode | None, module: str) -> None:
        if a.get_property("fabnic_window"):
            window = a
            model.windows[a.get_path()] = a.absolute_address
        module = a.get_property("fabnic_module") or module
        kids = list(a.children(unroll=False))
        if any(isinstance(c, RegNode) for c in kids):  # a block
            if window is None or not module:
                raise RdlModelError(f"{a.get_path()}: block outside a window or module")
            if any(isinstance(c, AddrmapNode) for c in kids):
                raise RdlModelError(f"{a.get_path()}: block with addrmaps inside")
            b = _block(a, a.absolute_address - window.absolute_address, external=False)
            model.map_window.setdefault(module, window.get_path())
            blocks = maps.setdefault(module, [])
            old = [x for x in blocks if x.name == b.name]
            if old and old[0] != b:
                raise RdlModelError(f"{a.get_path()}: block {b.name} differs between instances")
            if not old:
                blocks.append(b)
            return
        for c in kids:
            if isinstance(c, AddrmapNode):
                visit(c, window, module)
            elif isinstance(c, RegfileNode) and c.external and window is not None:
                b = _block(c, c.absolute_address - window.absolute_address, external=True)
                if model.external.setdefault(b.name, b) != b:
                    raise RdlModelError(f"{c.get_path()}: external block {b.name} differs")
                model.external_window.setdefault(b.name, window.get_path())
            else:
                raise RdlModelError(f"{c.get_path()}: expected an addrmap or an external regfile")

    for root in roots.values():
        visit(root.top, None, "")
    for m, blocks in maps.items():
        blocks.sort(key=lambda b: b.base)
        model.maps[m] = tuple(blocks)
    return model
