# SPDX-License-Identifier: Apache-2.0
"""fabnic_crc32 against zlib.crc32 (an independent CRC-32 implementation)."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest

try:
    import cocotb
    from cocotb.triggers import Timer
except ImportError:  # collected by pytest outside the simulator
    cocotb = None


def expected_state(crc_in: int, data: bytes) -> int:
    # zlib works on the inverted (reported) value; the RTL carries the raw LFSR state
    return (~zlib.crc32(data, (~crc_in) & 0xFFFFFFFF)) & 0xFFFFFFFF


if cocotb is not None:

    @cocotb.test()
    async def crc_random_beats(dut):
        keep_w = len(dut.keep_in)
        rng = random.Random(1234)
        cases = 3000 if keep_w <= 8 else 1500
        for n in range(cases):
            count = keep_w if n % 3 == 0 else rng.randint(0, keep_w)
            data = bytes(rng.getrandbits(8) for _ in range(keep_w))
            crc_in = rng.getrandbits(32) if n % 5 else 0xFFFFFFFF
            dut.crc_in.value = crc_in
            dut.data_in.value = int.from_bytes(data, "little")
            dut.keep_in.value = (1 << count) - 1
            await Timer(1, "ns")
            exp = expected_state(crc_in, data[:count])
            got = int(dut.crc_out.value)
            assert got == exp, f"case {n}: {count} bytes, got {got:08x} expected {exp:08x}"

    @cocotb.test()
    async def crc_whole_frame(dut):
        """Chain beats of a frame and compare the final FCS with zlib."""
        keep_w = len(dut.keep_in)
        rng = random.Random(99)
        for length in list(range(1, 3 * keep_w + 2)) + [1514, 9000]:
            frame = bytes(rng.getrandbits(8) for _ in range(length))
            state = 0xFFFFFFFF
            for off in range(0, length, keep_w):
                chunk = frame[off:off + keep_w]
                dut.crc_in.value = state
                dut.data_in.value = int.from_bytes(chunk.ljust(keep_w, b"\0"), "little")
                dut.keep_in.value = (1 << len(chunk)) - 1
                await Timer(1, "ns")
                state = int(dut.crc_out.value)
            assert (~state) & 0xFFFFFFFF == zlib.crc32(frame), f"length {length}"


@pytest.mark.parametrize("data_w,form", [(64, "table"), (512, "table"), (64, "gate"), (512, "gate")])
def test_crc32(data_w: int, form: str) -> None:
    """`form`: the simulation form Verilator builds by default (a byte table) or the
    synthesized serial form (FABNIC_GATE_MUX); docs/verification.md, "Simulation forms"."""
    from fabnic_tb import runner

    gate = form == "gate"
    runner.run(toplevel="fabnic_crc32", module="test_crc32", test_dir=Path(__file__).parent,
               parameters={"DATA_W": data_w}, tag=f"DATA_W{data_w}_gate" if gate else None,
               build_args=["+define+FABNIC_GATE_MUX"] if gate else ())
