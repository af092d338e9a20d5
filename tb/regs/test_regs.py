# SPDX-License-Identifier: Apache-2.0
"""The generated register modules (rtl/top/fabnic_regs_<map>.sv) against the register
model compiled from the SystemRDL source (rdl/), register by register and field by field.

The expectations come from the RDL compiled in this process (sim/rdl_model.py), not from
the generated Python or RTL: for every register of the map, its reset value (rw), its
constant (const, with the build parameters given to the module), status and counters
read through with reserved bits 0 (ro, and the LO/HI capture of ro64), write-only
commands (one-cycle strobe with the written word, reserved bits cleared; a read answers
SLVERR), every rw field written and read back (byte strobes honoured, reserved bits
read 0, the cfg_ port follows), and the documented responses to bad accesses: a write
to a read-only register answers SLVERR and changes nothing, an address in a block's
span that no register decodes answers SLVERR.

The roce map (every kind but ro64) and the datapath map (ro64 counters) run by
default; the three small maps with SLOW=1.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# build parameters given to the register module (its constant registers read them back)
PARAMS = {"DATA_W": 64, "NUM_QP": 1000, "NUM_CQ": 200, "NUM_MR": 300, "PAIRS": 5,
          "ENTRIES": 4096, "VNI_ENTRIES": 64, "TUN_ENTRIES": 32, "FLOOD_MAX": 8,
          "RFLOOD_MAX": 4}

try:
    import cocotb
    from cocotb.triggers import ReadOnly, RisingEdge

    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None


def _model():
    sys.path.insert(0, str(REPO / "sim"))
    import rdl_model

    return rdl_model.build_model()


if cocotb is not None:

    class RegBus:
        """The register-file request/acknowledge bus of fabnic_axil_slave."""

        def __init__(self, dut) -> None:
            self.dut = dut
            dut.req_valid.value = 0
            dut.req_write.value = 0
            dut.req_addr.value = 0
            dut.req_wdata.value = 0
            dut.req_wstrb.value = 0

        async def access(self, write: bool, addr: int, wdata: int = 0, wstrb: int = 0xF,
                         strobe: str | None = None) -> tuple[int, bool, int | None]:
            """One request; returns (rdata, err, the value of ``strobe``'s data port if the
            strobe was high for exactly one cycle, else None). The module answers one
            cycle after the request, or two for a read of a block with a retimed readback
            (its header): ack_valid must rise within two cycles, for one cycle."""
            d = self.dut
            d.req_valid.value = 1
            d.req_write.value = int(write)
            d.req_addr.value = addr
            d.req_wdata.value = wdata
            d.req_wstrb.value = wstrb
            highs: list[int] = []
            rdata = err = None
            for cyc in range(4):
                await RisingEdge(d.clk)
                d.req_valid.value = 0
                await ReadOnly()
                if strobe is not None and int(getattr(d, strobe).value):
                    highs.append(int(getattr(d, f"{strobe}_data").value))
                if rdata is None and int(d.ack_valid.value):
                    assert cyc < 2, f"no answer within two cycles after {addr:#x}"
                    rdata, err = int(d.ack_rdata.value), bool(int(d.ack_err.value))
                elif rdata is not None:
                    assert int(d.ack_valid.value) == 0, "ack_valid longer than one cycle"
            assert rdata is not None, f"no answer after {addr:#x}"
            if strobe is not None:
                assert len(highs) <= 1, f"{strobe} longer than one cycle"
            data = highs[0] if highs else None
            await RisingEdge(d.clk)
            return rdata, err, data

        async def read(self, addr: int) -> tuple[int, bool]:
            rdata, err, _ = await self.access(False, addr)
            return rdata, err

        async def write(self, addr: int, value: int, wstrb: int = 0xF) -> bool:
            return (await self.access(True, addr, value, wstrb))[1]

    def _strb_merge(old: int, new: int, strb: int) -> int:
        return sum(((new if strb >> i & 1 else old) >> 8 * i & 0xFF) << 8 * i for i in range(4))

    @cocotb.test()
    async def registers_match_the_rdl_model(dut):
        mapname = os.environ["FABNIC_REGS_MAP"]
        blocks = _model().maps[mapname]
        rng = random.Random(21)
        bus = RegBus(dut)
        sts = {}
        for b in blocks:  # status inputs: random values, kept for the reads
            for r in b.regs:
                if r.kind in ("ro", "ro64"):
                    sts[(b.name, r.name)] = rng.getrandbits(r.width)
                    getattr(dut, f"sts_{b.name}_{r.name}").value = sts[(b.name, r.name)]
        await start_clock_reset(dut)
        checked = {"const": 0, "rw": 0, "ro": 0, "ro64": 0, "pulse": 0, "fields": 0, "holes": 0}
        for b in blocks:
            for r in b.regs:
                a = b.base + r.offset
                where = f"{b.name}.{r.name} @ {a:#x}"
                port = f"{b.name}_{r.name}"
                rdata, err = await bus.read(a)
                if r.kind == "const":
                    want = PARAMS[r.param] if r.param else r.value
                    assert (rdata, err) == (want, False), f"{where}: {rdata:#x} != {want:#x}"
                    assert await bus.write(a, rng.getrandbits(32)), f"{where}: write not refused"
                    assert await bus.read(a) == (want, False)
                elif r.kind == "rw":
                    assert (rdata, err) == (r.reset, False), f"{where}: reset {rdata:#x} != {r.reset:#x}"
                    cfg = getattr(dut, f"cfg_{port}")
                    assert int(cfg.value) == r.reset
                    value = r.reset
                    for f in r.fields:  # every field alone: ones, then a random value
                        for v in ((1 << f.width) - 1, rng.getrandbits(f.width)):
                            junk = rng.getrandbits(32) & ~r.field_mask  # reserved bits
                            value = f.put(value, v)
                            assert not await bus.write(a, value | junk), where
                            got, err = await bus.read(a)
                            assert (got, err) == (value, False), f"{where}.{f.name}: {got:#x} != {value:#x}"
                            assert f.get(got) == v and int(cfg.value) == value
                            checked["fields"] += 1
                    for _ in range(3):  # byte strobes
                        strb, new = rng.getrandbits(4), rng.getrandbits(32)
                        value = _strb_merge(value, new, strb) & r.field_mask
                        assert not await bus.write(a, new, strb), where
                        assert await bus.read(a) == (value, False), f"{where}: wstrb {strb:#x}"
                elif r.kind == "ro":
                    want = sts[(b.name, r.name)] & r.field_mask
                    assert (rdata, err) == (want, False), f"{where}: {rdata:#x} != {want:#x}"
                    assert await bus.write(a, ~want & 0xFFFFFFFF), f"{where}: write not refused"
                    assert await bus.read(a) == (want, False)
                elif r.kind == "ro64":
                    v = sts[(b.name, r.name)]
                    assert (rdata, err) == (v & 0xFFFFFFFF, False), where
                    new = rng.getrandbits(64)  # HI stays what reading LO captured
                    getattr(dut, f"sts_{port}").value = new
                    assert await bus.read(a + 4) == (v >> 32, False), f"{where}: HI not captured"
                    assert await bus.read(a) == (new & 0xFFFFFFFF, False)
                    assert await bus.read(a + 4) == (new >> 32, False)
                    assert await bus.write(a, 0) and await bus.write(a + 4, 0), where
                elif r.kind == "pulse":
                    assert err, f"{where}: read of a write-only register not refused"
                    for _ in range(2):
                        v = rng.getrandbits(32)
                        _, err, data = await bus.access(True, a, v, strobe=f"cmd_{port}")
                        assert not err and data == v & r.field_mask, f"{where}: strobe {data}"
                checked[r.kind] += 1
            # addresses in the block's span that no register decodes
            used = {w for r in b.regs for w in r.words()}
            holes = [o for o in range(0, b.size, 4) if o not in used]
            for o in rng.sample(holes, min(8, len(holes))):
                rdata, err = await bus.read(b.base + o)
                assert err and rdata == 0, f"{b.name} + {o:#x}: unmapped read answered"
                assert await bus.write(b.base + o, 1), f"{b.name} + {o:#x}: unmapped write"
                checked["holes"] += 1
        dut._log.info(f"map {mapname}: {checked}")
        assert checked["rw"] + checked["ro"] + checked["const"] > 0


def _run(mapname: str) -> None:
    from fabnic_tb.runner import run

    blocks = _model().maps[mapname]
    params = sorted({r.param for b in blocks for r in b.regs if r.kind == "const" and r.param})
    run(toplevel=f"fabnic_regs_{mapname}", module="test_regs", test_dir=Path(__file__).parent,
        parameters={"ADDR_W": 16, **{p: PARAMS[p] for p in params}},
        extra_env={"FABNIC_REGS_MAP": mapname}, read_only_internals=True)


@pytest.mark.parametrize("mapname", ["roce", "datapath"])
def test_regs(mapname: str) -> None:
    _run(mapname)


@pytest.mark.slow
@pytest.mark.parametrize("mapname", ["vnic", "vnicdev", "nic"])
def test_regs_small_maps(mapname: str) -> None:
    _run(mapname)
