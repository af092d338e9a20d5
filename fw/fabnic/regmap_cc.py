# SPDX-License-Identifier: Apache-2.0
"""DCQCN register block (docs/cc.md, "Registers"), part of the "roce" map (the
transport engine fabnic_roce_core instantiates the RP, limiter and NP). Every DCQCN
parameter is a run-time register;
the mapping of each register to a port of fabnic_dcqcn_rp / fabnic_rate_limiter /
fabnic_dcqcn_np is in docs/cc.md.

Units: rates are Mb/s x 2^12 (100 Gb/s = 409,600,000); periods are clock cycles
(250 MHz: 55 us = 13,750); the byte counter is in bytes.
"""

from __future__ import annotations

from fabnic.regmap import Block, Reg

LINE_100G = 100_000 << 12
MBPS = 1 << 12


def _counters(start: int, names: list[tuple[str, str]]) -> tuple[Reg, ...]:
    return tuple(Reg(n, start + 4 * i, "ro", d) for i, (n, d) in enumerate(names))


CC = Block(
    "cc", 0x0C00, 0x100,
    "DCQCN congestion control (reaction point, rate limiter, notification point). "
    "Parameters take effect at once for every QP (the RP reads them at each state "
    "update); defaults are the paper values at 100 G.",
    (
        Reg("num_qp", 0x00, "const", "QPs with DCQCN state in this build (NUM_QP).",
            param="NUM_QP"),
        Reg("ctrl", 0x04, "rw",
            "bit0: reaction point on (0: the TX scheduler ignores the limiter and sends at "
            "line rate); bit1: notification point on (0: no CNPs are requested).",
            width=2, reset=0x3),
        Reg("g_shift", 0x08, "rw", "g = 2^-g_shift (alpha gain; 8 = 1/256).", width=5,
            reset=8),
        Reg("alpha_period", 0x0C, "rw", "Alpha decay period, cycles (0 = no decay).",
            reset=13_750),
        Reg("timer_period", 0x10, "rw", "Rate-increase timer period T, cycles (0 = off).",
            reset=13_750),
        Reg("byte_counter", 0x14, "rw", "Rate-increase byte counter B, bytes (0 = off).",
            reset=10_000_000),
        Reg("f", 0x18, "rw", "Fast-recovery steps F.", width=8, reset=5),
        Reg("rate_ai", 0x1C, "rw", "Additive increase R_AI, Mb/s x 2^12.", reset=5 * MBPS),
        Reg("rate_hai", 0x20, "rw", "Hyper increase R_HAI, Mb/s x 2^12.", reset=50 * MBPS),
        Reg("rate_min", 0x24, "rw", "Minimum rate R_min, Mb/s x 2^12.", reset=100 * MBPS),
        Reg("rate_line", 0x28, "rw", "Line rate (rate ceiling), Mb/s x 2^12.",
            reset=LINE_100G),
        Reg("rate_init", 0x2C, "rw", "Rate of a QP when it is enabled, Mb/s x 2^12.",
            reset=LINE_100G),
        Reg("clamp_tgt", 0x4C, "rw",
            "1: a CNP sets Rt = Rc (paper); 0: only if a timer increase happened since the "
            "previous cut (Mellanox/ns-3 default, no target-rate clamping).", width=1,
            reset=1),
        Reg("cnp_interval", 0x30, "rw",
            "NP: minimum cycles between two CNPs of one QP (0 = one CNP per CE packet).",
            reset=12_500),
        Reg("limiter_slack", 0x34, "rw",
            "Rate limiter: cycles of send credit a late QP keeps (<= 200 keeps the 1 % "
            "accuracy over 100 us).", width=16, reset=100),
        Reg("qp_cmd", 0x38, "pulse",
            "QP command: [1:0] op (1 enable: reset the QP's DCQCN state, Rc = Rt = "
            "rate_init, alpha = 1; 2 disable; 3 read state into qp_rc/qp_rt/qp_alpha), "
            "[31:8] QPN."),
        Reg("qp_status", 0x3C, "ro",
            "bit0 busy (a qp_cmd is queued), bit1 enable of the QP last read, bit2 "
            "state RAMs being cleared after reset."),
        Reg("qp_rc", 0x40, "ro", "Read QP: current rate Rc, Mb/s x 2^12."),
        Reg("qp_rt", 0x44, "ro", "Read QP: target rate Rt, Mb/s x 2^12."),
        Reg("qp_alpha", 0x48, "ro", "Read QP: alpha, 1.0 = 2^20.", width=21),
    ) + _counters(0x80, [
        ("cnp_rx", "CNPs processed by the reaction point."),
        ("cnp_rx_ignored", "... of which for a disabled QP."),
        ("rate_decrease", "Rate cuts applied."),
        ("rate_increase", "Rate-increase events applied (timer + byte counter)."),
        ("rp_catchup", "RP ops replayed to catch up overdue timers (sweep too slow)."),
        ("ecn_marked_rx", "RoCE packets received with ECN-CE."),
        ("cnp_tx", "CNPs requested by the notification point (sent by the transport)."),
        ("cnp_suppressed", "CE packets without a CNP because of cnp_interval."),
        ("lim_grant", "Rate limiter: send requests granted."),
        ("lim_deny", "Rate limiter: send requests deferred."),
        ("lim_rate_set", "Rate limiter: rate updates applied."),
    ]),
)
