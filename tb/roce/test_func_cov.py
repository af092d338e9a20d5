# SPDX-License-Identifier: Apache-2.0
"""The functional-coverage sampler (tb/roce/func_cov.py) without a simulator: scapy-built
RoCEv2 frames in a known story, the bins it must hit and must not hit."""

from __future__ import annotations

from scapy.compat import raw

from fabnic_tb import roce_layers as rl
from fabnic_tb.roce_layers import AETH


def _req(op: int, dqpn: int, psn: int, payload: bytes = b"x" * 16) -> bytes:
    return raw(rl.roce_frame(op, payload, dqpn=dqpn, psn=psn))


def _ack(dqpn: int, psn: int, syndrome: int = 0) -> bytes:
    return raw(rl.roce_frame(rl.ACK, b"", dqpn=dqpn, psn=psn,
                             exts=[AETH(syndrome=syndrome, msn=0)]))


def _hits(name: str) -> dict:
    from cocotb_coverage.coverage import coverage_db

    return dict(coverage_db[name].detailed_coverage)


def test_psn_classes_and_retransmit_causes() -> None:
    import func_cov

    cov = func_cov.RcWireCoverage()
    cov.pair(2, 5, psn_a=100, psn_b=900)     # A's QP 2 <-> B's QP 5
    before = {k: v for k, v in _hits("roce.resp.request").items()}
    ev0 = dict(_hits("roce.req.event"))

    # A sends PSN 100..102 to B's QP 5; 101 is lost on the link
    for p in (100, 101, 102):
        cov.tx("a", _req(rl.WRITE_MIDDLE, 5, p))
    cov.rx("b", _req(rl.WRITE_MIDDLE, 5, 100))          # new
    cov.rx("b", _req(rl.WRITE_MIDDLE, 5, 102))          # ahead (gap of one)
    cov.tx("b", _ack(2, 101, syndrome=0x60))            # B: sequence NAK, e = 101
    cov.rx("a", _ack(2, 101, syndrome=0x60))
    cov.tx("a", _req(rl.WRITE_MIDDLE, 5, 101))          # go-back-N after the NAK
    cov.rx("b", _req(rl.WRITE_MIDDLE, 5, 101))          # new again
    cov.rx("b", _req(rl.WRITE_MIDDLE, 5, 100))          # duplicate
    cov.rx("b", _req(rl.READ_REQUEST, 5, 102 + 200))    # far ahead
    cov.tx("a", _req(rl.WRITE_MIDDLE, 5, 102))          # no NAK since: a timeout
    cov.rx("a", _ack(2, 102, syndrome=0x20))            # RNR NAK at A

    after = _hits("roce.resp.request")
    grown = {k for k, v in after.items() if v > before.get(k, 0)}
    assert grown == {("write_middle", "new"), ("write_middle", "ahead"),
                     ("write_middle", "duplicate"), ("read", "far_ahead")}, grown
    assert after[("write_middle", "new")] - before.get(("write_middle", "new"), 0) == 2
    ev = _hits("roce.req.event")
    delta = {k: ev[k] - ev0.get(k, 0) for k in ev if ev[k] != ev0.get(k, 0)}
    assert delta == {"rx_nak_seq": 1, "retransmit_after_nak_seq": 1,
                     "retransmit_after_timeout": 1, "rx_nak_rnr": 1}, delta


def test_frames_that_are_not_roce_are_ignored() -> None:
    import func_cov
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    cov = func_cov.RcWireCoverage()
    before = dict(_hits("roce.resp.request"))
    cov.rx("b", raw(Ether() / IP() / UDP(dport=4789) / (b"\0" * 40)))
    cov.rx("b", b"\0" * 10)
    assert dict(_hits("roce.resp.request")) == before
