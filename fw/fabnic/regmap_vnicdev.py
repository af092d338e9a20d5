# SPDX-License-Identifier: Apache-2.0
"""Register block of the virtio + VXLAN device top ``rtl/top/fabnic_vnic_dev.sv``.

The device's AXI-Lite window holds four blocks (docs/vnic_dev.md): the core's
``device`` (0x0000) and ``vxlan`` (0x2000) blocks (map ``vnic``, generated into
``fabnic_regs_vnic``), the hand-written VirtIO window (0x1000, fabnic.regmap_virtio)
and this block, ``vnicdev`` at 0x2800: the VNI of each queue pair's TX frames and
the counters of the glue between the virtio movers and the vSwitch. It is map
``vnicdev`` of fabnic.regmap.MAPS, generated into ``rtl/top/fabnic_regs_vnicdev.sv``.
"""

from __future__ import annotations

from fabnic.regmap import Block, Reg

MAX_PAIRS = 16   # fabnic_vnic_dev allows PAIRS = 1..16

TX_DROP_REASONS = (
    ("tx_drop_bad_chain", "TX drop: chain marked bad by the virtqueue engine."),
    ("tx_drop_big", "TX drop: chain longer than MAX_FRAME."),
    ("tx_drop_runt", "TX drop: frame shorter than 14 bytes."),
    ("tx_drop_dma", "TX drop: AXI error while reading the buffers."),
    ("tx_drop_gso", "TX drop: GSO requested (HOST_TSO not offered)."),
    ("tx_drop_csum", "TX drop: NEEDS_CSUM points outside the frame."),
)

VNICDEV = Block(
    "vnicdev", 0x2800, 0x100,
    "virtio + VXLAN device glue (fabnic_vnic_dev): VNI per queue pair, data path counters. "
    "Counters are 32-bit, free-running.",
    (
        Reg("pairs", 0x00, "const", "Queue pairs of this build (PAIRS).", param="PAIRS"),
        Reg("grx_drop_qp", 0x04, "ro", "vSwitch copies for a queue pair >= PAIRS (dropped)."),
        Reg("grx_drop_bad", 0x08, "ro", "Bad frames dropped by the core's queue replicator."),
        Reg("rx_frames", 0x0C, "ro", "Frames delivered to receive queues."),
        Reg("rx_drop_bad", 0x10, "ro", "RX drop: frame marked bad."),
        Reg("rx_drop_big", 0x14, "ro", "RX drop: frame longer than MAX_FRAME - 12."),
        Reg("rx_drop_nobuf", 0x18, "ro",
            "RX drop: no buffer chain (queue empty, not enabled or not DRIVER_OK)."),
        Reg("rx_drop_small", 0x1C, "ro", "RX drop: the chains taken are too small."),
        Reg("rx_bad_chain", 0x20, "ro", "RX: chains marked bad by the engine (returned, len 0)."),
        Reg("rx_dma_err", 0x24, "ro", "RX: AXI errors on buffer writes."),
        Reg("tx_frames", 0x28, "ro", "Frames taken from transmit queues."),
        Reg("tx_csum", 0x2C, "ro", "Of them, with NEEDS_CSUM done."),
        Reg("tx_drop", 0x30, "ro", "TX drops, all reasons (sum of tx_drop_*)."),
        Reg("rx_csum_ok", 0x34, "ro",
            "RX: TCP/UDP checksum verified good (DATA_VALID set when GUEST_CSUM is negotiated)."),
        Reg("rx_csum_bad", 0x38, "ro", "RX: TCP/UDP checksum wrong (flags 0, the guest drops it)."),
        Reg("rx_csum_skip", 0x3C, "ro",
            "RX: not verifiable (not TCP/UDP over IPv4/IPv6, IP fragment, IPv4 options "
            "limit, UDP checksum 0, truncated); flags 0."),
    )
    + tuple(Reg(f"qp_vni{n}", 0x40 + 4 * n, "rw",
                f"VNI of queue pair {n}'s TX frames (used when {n} < PAIRS).", width=24)
            for n in range(MAX_PAIRS))
    + tuple(Reg(name, 0x80 + 4 * i, "ro", doc) for i, (name, doc) in enumerate(TX_DROP_REASONS)),
)

MAP_VNICDEV: tuple[Block, ...] = (VNICDEV,)


def qp_vni_addr(pair: int) -> int:
    """Address of queue pair ``pair``'s VNI register."""
    if not 0 <= pair < MAX_PAIRS:
        raise ValueError(f"queue pair {pair} out of 0..{MAX_PAIRS - 1}")
    return VNICDEV.addr(f"qp_vni{pair}")
