# SPDX-License-Identifier: Apache-2.0
"""Incast with real NICs (tb_roce_incast, N senders + 1 receiver around the switch
model), engine selective repeat + FEC(4,1,1) in the port shims on every NIC, a shallow
switch buffer with tail drop. N = 2 in the regression; N = 4 with SLOW=1 (a 5-NIC
model takes about three minutes to build, the 3-NIC one about one).

incast_fec: 2 rounds, every sender WRITEs 32 KB into its own region of the receiver's
buffer at nearly the same time (fresh random payload per round). Checked: the switch
tail-dropped frames, all of them at the receiver's egress (the scenario is real); the
senders sent FEC repair frames; every completion is successful; the receiver's buffer
equals, byte for byte, what every sender wrote (host-memory backdoor); the receiver
dropped no frame for a bad ICRC. With K = 4 the receive shim sees blocks with the same
group id from different senders at the same time (the senders' FEC sequence spaces are
independent); its source table (NSRC 8) keeps them apart. A frame rebuilt from a mix
of senders' frames could even carry a valid ICRC (the code is linear), so the memory
check is what would catch it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from fabnic_tb.runner import run

HERE = Path(__file__).parent
SIZE = 32 * 1024
ROUNDS = 2

try:
    import cocotb
    from incast_env import IncastEnv, SwitchCfg
except ImportError:  # collected by pytest outside the simulator
    cocotb = None

if cocotb is not None:

    @cocotb.test(timeout_time=50, timeout_unit="ms")
    async def incast_fec(dut):
        env = IncastEnv(dut, link_delay=100)
        await env.start()
        await env.connect(SIZE, timeout=5)
        await env.set_fec((4, 1, 1))
        # N x 32 KB arrive at N times the drain rate: the egress queue would peak near
        # (N - 1) x 32 KB; a buffer of half that drops
        n = env.n
        env.switch(SwitchCfg(buf_size=(n - 1) * 16 * 1024))
        c0 = await env.counts()
        rnd = random.Random(int(os.environ.get("SEED", "7")))
        for r in range(ROUNDS):
            await env.fill(rnd, SIZE)
            res = await env.round(SIZE, rnd, max_cycles=400_000)
            bad = await env.check(SIZE)
            assert not bad, f"round {r}: receiver memory differs for senders {bad}"
            dut._log.info("round %d: completion cycles %s", r, [c for c, _ in res])
        c1 = await env.counts()
        drops = c1.drops - c0.drops
        dut._log.info("tail drops %d, retx %d, timeouts %d, probes %d, FEC repairs sent %d, "
                      "repaired %d, unrepairable %d, ICRC drops %d; receiver FEC %s", drops,
                      c1.retx - c0.retx, c1.timeouts - c0.timeouts, c1.probes - c0.probes,
                      c1.tx_repairs - c0.tx_repairs, c1.repaired - c0.repaired,
                      c1.unrepairable - c0.unrepairable, c1.rx_icrc - c0.rx_icrc, c1.fec)
        assert drops > 0, "the shallow buffer dropped nothing: no loss to recover"
        assert int(dut.cnt_drop_tail.value) >> (32 * n) & 0xFFFFFFFF == drops, \
            "drops outside the receiver's egress"
        assert c1.tx_repairs > c0.tx_repairs, "FEC sent no repair frames"
        assert c1.rx_icrc == c0.rx_icrc, \
            f"receiver dropped {c1.rx_icrc - c0.rx_icrc} frames for a bad ICRC (bad rebuild?)"


def _run(n: int) -> None:
    run(toplevel="tb_roce_incast", module="test_roce_incast", test_dir=HERE,
        extra_sources=[HERE.parent / "host" / "tb_host_axi_mem.sv", HERE / "tb_roce_incast.sv"],
        parameters={"N": n, "NUM_QP": 16, "NUM_CQ": 4, "NUM_MR": 8, "MEM_AW": 20,
                    "QUEUE_BYTES": 1 << 18},
        testcase="incast_fec")


@pytest.mark.slow   # 3 NICs: a 170 s cold build; make sim SLOW=1 runs it
def test_roce_incast():
    _run(2)


@pytest.mark.slow
def test_roce_incast_4():
    _run(4)
