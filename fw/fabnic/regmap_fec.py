# SPDX-License-Identifier: Apache-2.0
"""FEC port-shim register block (docs/fec.md, "Port shim"), part of the "roce" map.
fabnic_roce_core holds the registers and exports them (fec_* ports); the port's
fabnic_fec_port (fabnic_fec_tx + fabnic_fec_rx) takes the settings and returns its
twenty-one counters. Both NICs of a connection must use the same K/R/D; change them
only while no FEC traffic flows."""

from __future__ import annotations

from fabnic.regmap import Block, Reg

FEC_COUNTERS = (
    ("tx_prot", "TX: data frames protected (trailer added, fed to the encoder)."),
    ("tx_bypass", "TX: frames passed without FEC (other opcodes, FEC off for the QP)."),
    ("tx_repairs", "TX: repair frames (opcode 0xF0) sent."),
    ("tx_flushes", "TX: blocks closed early by the idle timer."),
    ("rx_data", "RX: FEC data frames (valid data trailer)."),
    ("rx_repair", "RX: repair frames accepted."),
    ("rx_plain", "RX: frames passed straight to the transport."),
    ("rx_malformed", "RX: opcode-0xF0 frames dropped (bad trailer/length/FCS, or FEC off)."),
    ("rx_oversize", "RX: frames longer than MAX_LEN (cut and flagged bad)."),
    ("repaired", "RX: lost data frames rebuilt by the decoder."),
    ("unrepairable", "RX: groups the decoder reported unrepairable."),
    ("given_up", "RX: sequence numbers the reorder buffer released missing (left to "
                 "the transport's retransmission)."),
    ("late", "RX: frames older than the reorder head (late originals, recoveries of "
             "given-up frames), dropped."),
    ("dup", "RX: duplicate frames dropped by the reorder buffer."),
    ("resync", "RX: reorder head moved to a far frame while empty (peer restart)."),
    ("noseq", "RX: recovered frames whose group had no numbering entry, dropped."),
    ("rtx_frames", "TX: frames resent from the retransmit buffer on the peer's NAK."),
    ("rtx_miss", "TX: NAKed sequence numbers no longer in the retransmit buffer (or "
                 "requests dropped with the request FIFO full)."),
    ("naks_sent", "RX: NAK frames (opcode 0xF1) asked for."),
    ("naks_rcvd", "RX: NAK frames received from the peer."),
    ("rx_src_full", "RX: frames of an FEC sender the source table had no room for (NSRC "
                    "build parameter): data frames passed unprotected, repair frames "
                    "dropped."),
)

FEC = Block(
    "fec", 0x0D00, 0x100,
    "Packet-level FEC of the RoCE port (fabnic_fec_port): protected RC data frames get "
    "an 8-byte trailer, every group of K gets R repair frames (BTH opcode 0xF0), groups "
    "interleave D deep; the receiver rebuilds lost frames and releases protected frames "
    "in order through a reorder buffer.",
    (
        Reg("mode", 0x00, "rw",
            "0: off (TX and RX pass everything); 1: protect every RC data frame; 2: protect "
            "frames whose DestQP is enabled in the per-QP table (qp_en).", width=2, reset=0),
        Reg("k", 0x04, "rw", "Data frames per group K (1..MAX_K).", width=8, reset=8),
        Reg("r", 0x08, "rw", "Repair frames per group R (1..MAX_R; 1 = XOR parity).",
            width=8, reset=2),
        Reg("d", 0x0C, "rw", "Interleaving depth D (groups per block, 1..MAX_D).", width=8,
            reset=2),
        Reg("flush_cycles", 0x10, "rw",
            "TX idle timer: a partly filled block is closed (repairs sent) after this many "
            "cycles without a protected frame (0 = never).", width=16, reset=512),
        Reg("rob_timeout", 0x14, "rw",
            "RX reorder buffer: cycles a missing frame is waited for while later frames are "
            "held (0 = wait only for decoder reports / the window rule).", width=16,
            reset=8192),
        Reg("nak_delay", 0x1C, "rw",
            "Selective retransmission: cycles a missing frame is waited for (FEC's chance) "
            "before a NAK asks the peer's shim to resend it (0 = no NAKs).", width=16,
            reset=1024),
        Reg("nak_retry", 0x20, "rw", "Cycles between two NAKs for the same missing frame.",
            width=16, reset=4096),
        Reg("rx_bypass", 0x24, "rw",
            "RX reorder buffer bypass, for QPs with selective repeat in the engine: "
            "protected frames go to the transport as they arrive and rebuilt frames as "
            "soon as the decoder has them (nothing is held in order, no shim NAKs, "
            "rob_timeout unused). 0: in-order release (go-back-N peers).", width=1, reset=0),
        Reg("qp_en", 0x18, "pulse",
            "Per-QP table write (mode 2): [23:0] destination QPN (the peer's QPN), "
            "bit 24 value (1 = protect frames to it).", width=25),
        *(Reg(f"cnt_{n}", 0x40 + 4 * i, "ro", d) for i, (n, d) in enumerate(FEC_COUNTERS)),
    ),
)
