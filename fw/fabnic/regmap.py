# SPDX-License-Identifier: Apache-2.0
"""fabnic register map: the single source.

This module *is* the register map. ``sim/gen_regs.py`` turns it into the RTL
register blocks (``rtl/top/fabnic_regs_<block>.sv``) and ``docs/registers.md``;
the driver imports it directly, so RTL, Python and documentation cannot drift
(``make lint`` fails when the generated files are stale).

Register kinds:
  const   read-only constant (IDs, versions, capabilities)
  rw      read/write configuration; drives an output port ``cfg_<reg>``
  ro      read-only status or counter; sampled from an input port ``sts_<reg>``
  ro64    64-bit read-only counter at two offsets (LO then HI); reading LO
          snapshots HI so the pair is consistent
  pulse   write-only command/doorbell; a write raises ``cmd_<reg>`` for one cycle
          with the written value on ``cmd_<reg>_data``

Counters are free-running and wrap; software takes differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEVICE_ID = 0xFAB1C001
VERSION = (0, 1, 0)


@dataclass(frozen=True)
class Reg:
    name: str
    offset: int
    kind: str
    doc: str
    width: int = 32
    reset: int = 0
    value: int = 0  # for const
    param: str = ""  # for const: take the value from this RTL parameter instead

    def __post_init__(self) -> None:
        if self.kind not in ("const", "rw", "ro", "ro64", "pulse"):
            raise ValueError(f"{self.name}: unknown register kind {self.kind!r}")
        if self.offset % 4:
            raise ValueError(f"{self.name}: offset {self.offset:#x} not word aligned")
        if not 1 <= self.width <= 32:
            raise ValueError(f"{self.name}: width {self.width} out of 1..32")

    @property
    def span(self) -> int:
        return 8 if self.kind == "ro64" else 4


@dataclass(frozen=True)
class Block:
    name: str
    base: int
    size: int
    doc: str
    regs: tuple[Reg, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        used: dict[int, str] = {}
        for r in self.regs:
            for a in range(r.offset, r.offset + r.span, 4):
                if a in used:
                    raise ValueError(f"{self.name}: {r.name} overlaps {used[a]} at {a:#x}")
                if a >= self.size:
                    raise ValueError(f"{self.name}: {r.name} at {a:#x} outside block size")
                used[a] = r.name

    def reg(self, name: str) -> Reg:
        for r in self.regs:
            if r.name == name:
                return r
        raise KeyError(f"{self.name} has no register {name!r}")

    def addr(self, name: str) -> int:
        return self.base + self.reg(name).offset


def _counters(start: int, names: list[tuple[str, str]], kind: str = "ro") -> tuple[Reg, ...]:
    step = 8 if kind == "ro64" else 4
    return tuple(Reg(n, start + step * i, kind, d) for i, (n, d) in enumerate(names))


DEVICE = Block(
    "device", 0x0000, 0x100,
    "Identification and capabilities.",
    (
        Reg("id", 0x00, "const", "Device ID (0xFAB1C001).", value=DEVICE_ID),
        Reg("version", 0x04, "const", "major[23:16] minor[15:8] patch[7:0].",
            value=(VERSION[0] << 16) | (VERSION[1] << 8) | VERSION[2]),
        Reg("data_w", 0x08, "const", "Datapath width in bits of this build.", param="DATA_W"),
        Reg("scratch", 0x0C, "rw", "Scratch register for bus tests."),
    ),
)

MAC = Block(
    "mac", 0x0100, 0x100,
    "Ethernet MAC and PFC. At 100 G the hard MAC does FCS, so the FCS/runt/XGMII "
    "counters read 0 there.",
    (
        Reg("src_mac_lo", 0x00, "rw", "Source MAC of PFC frames, bits 31:0.", reset=0x00000001),
        Reg("src_mac_hi", 0x04, "rw", "Source MAC of PFC frames, bits 47:32.", width=16,
            reset=0x0200),
        Reg("pfc_req", 0x08, "rw", "XOFF request per priority (bit p pauses the peer's priority p).",
            width=8),
        Reg("quanta", 0x0C, "rw", "Pause quanta sent in XOFF frames.", width=16, reset=0xFFFF),
        Reg("refresh", 0x10, "rw", "Cycles between XOFF refreshes while a request is held.",
            reset=0x4000),
        Reg("cycles_per_quantum", 0x14, "rw",
            "Clock cycles per pause quantum (512 bit times), Q8.8 (0x0800 = 8.0 at 10 G).",
            width=16, reset=0x0800),
        Reg("pause", 0x18, "ro", "Priorities currently paused by the peer.", width=8),
    ) + _counters(0x40, [
        ("tx_frames", "Frames sent."),
        ("tx_underflow", "TX frames aborted: source ran dry mid-frame."),
        ("tx_bad", "TX frames aborted: marked bad (tuser) by the datapath."),
        ("tx_oversize", "TX frames dropped: longer than the TX queue."),
        ("tx_pfc", "PFC XOFF frames sent."),
        ("tx_xon", "PFC XON frames sent."),
        ("rx_frames", "Good frames received."),
        ("rx_bad_fcs", "Dropped: FCS error."),
        ("rx_runt", "Dropped: shorter than 64 bytes."),
        ("rx_oversize", "Dropped: longer than the maximum frame."),
        ("rx_xgmii_err", "Dropped: XGMII error/control character inside a frame."),
        ("rx_framing", "Dropped: preamble/framing error."),
        ("rx_pfc", "PFC frames received (consumed)."),
        ("rx_pause", "802.3x PAUSE frames received (consumed)."),
        ("rx_ctrl_other", "Other MAC control frames (consumed)."),
        ("rx_ctrl_bad", "Malformed MAC control frames (consumed)."),
        ("rx_bad", "Bad frames dropped after the MAC."),
        ("rx_overflow", "Dropped: RX FIFO full."),
    ]) + _counters(0x90, [
        ("tx_bytes", "Bytes sent (frame bytes DA..FCS)."),
        ("rx_bytes", "Bytes received."),
    ], kind="ro64"),
)

PARSER = Block(
    "parser", 0x0200, 0x100,
    "Ethernet/VLAN/IP/UDP parser of the receive path: per-reason drop counters.",
    _counters(0x00, [
        ("frames_in", "Frames in."),
        ("bytes_in", "Bytes in (wraps)."),
        ("bad_in", "Frames that arrived marked bad."),
        ("frames_out", "Frames passed on."),
        ("dropped", "Frames dropped for a header error (sum of the err_* reasons)."),
        ("non_ip", "Frames that are neither IPv4 nor IPv6."),
        ("ip_frag", "IPv4 fragments (flagged, not dropped)."),
        ("err_runt", "Frame ends inside the headers it announces."),
        ("err_ip_version", "IP version field disagrees with the EtherType."),
        ("err_ipv4_ihl", "IPv4 IHL below 5."),
        ("err_ipv4_csum", "IPv4 header checksum wrong."),
        ("err_ip_length", "IP length larger than the frame."),
        ("err_udp_length", "UDP length disagrees with the IP payload length."),
    ]),
)

ECHO = Block(
    "echo", 0x0300, 0x100,
    "Foundation demo forwarding: UDP over IPv4 is echoed back, other classes are counted.",
    _counters(0x00, [
        ("echoed", "UDP datagrams echoed."),
        ("roce", "RoCEv2 packets (UDP 4791) seen, not echoed."),
        ("vxlan", "VXLAN packets (UDP 4789) seen, not echoed."),
        ("other", "Frames not echoed: not UDP, or UDP over IPv6 (the builder writes UDP "
                  "checksum 0, which IPv6 forbids); consumed."),
        ("bad", "Frames forwarded with an error found at their end (aborted by the MAC)."),
        ("built", "Frames produced by the builder."),
        ("len_mismatch", "Builder: payload length differed from the metadata."),
    ]),
)

ROCE = Block(
    "roce", 0x0400, 0x400,
    "RoCEv2 RC transport: local addresses, the staging window and command register "
    "that program QP/CQ/MR contexts, and engine settings. Doorbells are a separate "
    "window (docs/roce.md): SQ producer index at 0x100000 + 8*qpn, RQ producer index "
    "at 0x100004 + 8*qpn, CQ consumer index (bit 31 = arm) at 0x180000 + 8*cqn.",
    (
        Reg("num_qp", 0x00, "const", "QPs in this build (NUM_QP).", param="NUM_QP"),
        Reg("num_cq", 0x04, "const", "CQs in this build (NUM_CQ).", param="NUM_CQ"),
        Reg("num_mr", 0x08, "const", "Memory regions in this build (NUM_MR); key = index<<8 | tag.",
            param="NUM_MR"),
        Reg("caps", 0x0C, "const",
            "Capabilities: bit0 SEND, 1 WRITE, 2 READ, 3 ATOMIC, 4 IMM, 5 IPv6, "
            "6 selective repeat, 7 FEC (port shim, block fec), 8 DCQCN.", value=0x1FF),
        Reg("local_mac_lo", 0x10, "rw", "This NIC's MAC, bits 31:0.", reset=0x00000001),
        Reg("local_mac_hi", 0x14, "rw", "This NIC's MAC, bits 47:32.", width=16, reset=0x0200),
        Reg("local_ip0", 0x18, "rw", "This NIC's IP address bits 31:0 (the IPv4 address).",
            reset=0x0A000001),
        Reg("local_ip1", 0x1C, "rw", "This NIC's IPv6 address bits 63:32."),
        Reg("local_ip2", 0x20, "rw", "This NIC's IPv6 address bits 95:64."),
        Reg("local_ip3", 0x24, "rw", "This NIC's IPv6 address bits 127:96."),
        Reg("ack_cadence", 0x28, "rw",
            "Requester: set AckReq on every Nth packet sent (counted across messages), on "
            "the last packet of the last posted WQE and on the last packet of a scheduling "
            "visit; the responder ACKs each AckReq. 0 = AckReq on the last packet of every "
            "message.", width=16, reset=16),
        Reg("timer_tick", 0x2C, "rw",
            "Cycles per retransmission-timer tick (4.096 us = 1024 cycles at 250 MHz); "
            "a QP with timeout t times out after 2^t ticks without progress.",
            width=24, reset=1024),
        Reg("cmd", 0x30, "pulse",
            "Command: [3:0] op (1 QP write, 2 CQ write, 3 MR write, 4 QP query), "
            "[4] QP write: reset the send side to sq_psn, [5] reset the receive side to "
            "rq_psn, [31:8] object index (qpn, cqn, or MR index = key>>8). Operands come "
            "from data0..data23 (layouts in docs/roce.md)."),
        Reg("cmd_status", 0x34, "ro",
            "bit0 busy (a command is running), bit1 the last command was refused "
            "(index out of range or unknown op)."),
        Reg("result0", 0x38, "ro", "QP query: [2:0] state (the QP's context; 6 = ERR when "
            "either the send side or the receive side is in error), [3] send side in error, "
            "[11:4] its error cause, [31:16] CQE status that moved the send side to ERR. The "
            "receive side enters ERR when it NAKs a request with an invalid-request, "
            "remote-access or remote-operational error; it then drops requests and completes "
            "posted receives with WR_FLUSH_ERR."),
        Reg("result1", 0x3C, "ro", "QP query: next send PSN."),
        Reg("result2", 0x40, "ro", "QP query: expected receive PSN."),
        Reg("result3", 0x44, "ro", "QP query: oldest unacknowledged PSN."),
        Reg("sr_reorder", 0x48, "rw",
            "Selective repeat reorder tolerance: a PSN a SACK shows missing is resent only "
            "when the SACK marks a PSN at least this far above it (as TCP waits for three "
            "duplicate ACKs), so a packet overtaken by up to sr_reorder - 1 later ones is "
            "not resent; the other holes are resent when later SACKs (or the timer) show "
            "them. 1 = resend every hole below the highest marked PSN; 0 acts as 1.",
            width=6, reset=3),
        Reg("sr_probe", 0x4C, "rw",
            "Selective repeat probe, in retransmission-timer ticks (timer_tick cycles): "
            "an SR QP whose requester is stalled (every posted WQE sent, or "
            "sr_max_inflight PSNs in flight) and that has heard no ACK/SACK/NAK for this long resends, after "
            "the last posted WQE, every unacknowledged PSN (a tail loss), in a window "
            "stall the oldest one, without spending its retry budget "
            "(tail losses, lost resends and lost ACKs are repaired without waiting for "
            "the timeout); if the silence goes on it probes again after 2x and 4x this "
            "time (3 probes per no-progress period), and the ordinary timeout, counted "
            "from the first probe, follows if that does not help. 0 = off. "
            "Keep it above the longest gap between two ACKs of a stalled sender (about "
            "ack_cadence packet times) plus a tick, or probes fire spuriously.",
            width=8, reset=4),
        Reg("sr_max_inflight", 0x50, "rw",
            "Selective repeat: packets (PSNs) a QP keeps in flight at most, i.e. the "
            "bandwidth-delay product the sender allows itself (new packets wait while "
            "next PSN - oldest unacknowledged PSN >= this). The receive window (64) is the "
            "upper limit: 0 or values above 64 act as 64. A value near the path's BDP "
            "in packets keeps queues short (e.g. an incast).",
            width=7, reset=64),
        Reg("rx_filter", 0x54, "rw",
            "Receive station filter: bit0 drop frames whose destination MAC is not "
            "local_mac (unicast), bit1 accept broadcast, bit2 accept multicast (I/G bit "
            "set) while bit0 is on. Frames failing it count in rx_drop_dst_mac.",
            width=3, reset=1),
    ) + tuple(Reg(f"data{i}", 0x80 + 4 * i, "rw", f"Command operand word {i}.")
              for i in range(24)),
)

ROCE_CNT = Block(
    "roce_cnt", 0x0800, 0x200,
    "RoCEv2 transport counters (free-running, wrap). Every dropped packet is "
    "counted under exactly one drop reason.",
    _counters(0x00, [
        ("rx_frames", "Frames in from the MAC. Once the receive front is idle, rx_frames = "
                      "rx_roce + rx_cnp + the sum of the receive front's drop counters "
                      "(every frame counts under exactly one; docs/roce.md, Receive "
                      "validation): rx_drop_bad, _dst_mac, _not_roce, _dst_ip, _ip_frag, "
                      "_icrc, _oversize, _ip_hdr, _ip_csum, _udp_len, _frame_len, _hdr, "
                      "_pad, _qpn, _op_len, _pmtu, _reth_len."),
        ("rx_roce", "RoCEv2 packets that passed every receive check and went to the "
                    "responder or the completer."),
        ("rx_drop_bad", "Dropped: frame marked bad by the MAC (FCS, runt, code error)."),
        ("rx_drop_not_roce", "Dropped: not RoCEv2 (not IPv4 with a 20-byte header or "
                             "IPv6, not UDP, or not destination port 4791)."),
        ("rx_drop_icrc", "Dropped: ICRC wrong."),
        ("rx_drop_hdr", "Dropped: BTH transport version not 0, unknown opcode, or the BTH "
                        "and extension headers the opcode needs plus the ICRC longer "
                        "than the UDP payload."),
        ("rx_drop_qpn", "Dropped: destination QP number >= NUM_QP."),
        ("rx_drop_qp_state", "Dropped: QP not in a state that accepts the packet."),
        ("rx_drop_psn", "Dropped: responses/ACKs with a PSN outside the outstanding window, "
                        "requests after a sequence NAK until the gap is filled."),
        ("rx_dup", "Duplicate requests (re-ACKed, READs re-executed)."),
        ("rx_seq_nak", "PSN sequence error NAKs sent (one per gap)."),
        ("rx_rnr_nak", "RNR NAKs sent (SEND with no receive WQE posted)."),
        ("rx_access_err", "Remote access errors (rkey, PD, bounds, rights): NAK sent, "
                          "nothing written."),
        ("rx_inv_req", "Invalid requests (opcode sequence, length): NAK sent."),
        ("rx_acks", "ACKs acted upon (PSN outstanding; any other ACK counts in rx_drop_psn)."),
        ("rx_naks", "NAKs acted upon, any syndrome (PSN outstanding; any other NAK counts "
                    "in rx_drop_psn, so a NAK forged without an outstanding PSN cannot "
                    "move a QP)."),
        ("rx_read_resp", "READ response packets received and placed."),
        ("rx_cnp", "CNPs received (to a QP < NUM_QP; not drops)."),
        ("tx_frames", "Frames sent."),
        ("tx_req_pkts", "Request packets sent (first transmissions and retransmissions)."),
        ("tx_retx_pkts", "Request packets retransmitted."),
        ("tx_acks", "ACK/NAK packets sent."),
        ("tx_read_resp", "READ response packets sent."),
        ("tx_cnp", "CNPs sent."),
        ("timeouts", "Retransmission timer expiries."),
        ("retry_exc", "QPs moved to ERR: retry count exceeded."),
        ("cqe", "CQEs written."),
        ("cq_overflow", "CQEs dropped: CQ full (CQ overrun; the QP state is not changed, the driver reports the missing completions)."),
        ("cqe_err", "CQEs written with an error status."),
        ("dma_err", "DMA transfers that returned an AXI error response."),
        ("lkey_err", "Local protection errors (lkey check failed on a WQE or RQE)."),
        ("irq", "Interrupts raised."),
        ("tx_len_err", "Frames sent flagged bad (tuser): the payload read for a packet did "
                       "not have the length its header announced (a transmit-path fault; "
                       "the MAC drops the frame, the retransmission timer recovers)."),
        # selective repeat (docs/roce_sr.md)
        ("sr_sack_tx", "Selective repeat: SACKs (opcode 0xC0) sent by the responder."),
        ("sr_sack_rx", "Selective repeat: SACKs received by the completer (on SR QPs)."),
        ("sr_retx", "Selective repeat: single packets resent (SACK holes and timeouts)."),
        ("sr_ooo_placed", "Selective repeat: WRITE and SEND packets accepted out of order "
                          "(placed before the packets ahead of them)."),
        ("sr_drop", "Selective repeat: request packets dropped unmarked ahead of the "
                    "expected PSN (READ/atomic/WRITE-with-immediate LAST; SEND whose "
                    "receive WQE is not posted, fails its checks, or finds the CQE stash "
                    "full) or beyond the 64-PSN window; they are resent."),
        ("sr_probe", "Selective repeat: probe resends (register roce.sr_probe)."),
        ("sr_rresp_ooo", "Selective repeat: READ response packets placed out of order "
                         "(also counted in rx_read_resp)."),
        ("sr_spurious", "Selective repeat: spurious retransmissions seen by the responder: "
                        "request packets (not READ requests) that had already been "
                        "received (also counted in rx_dup)."),
        # SQE shadow (docs/roce_engine.md)
        ("sqe_shadow_hit", "SQEs the completer re-read that the SQE shadow served on chip "
                           "(copies of what the requester had read)."),
        ("sqe_shadow_miss", "SQEs the completer re-read from host memory (not in the SQE "
                            "shadow, or not yet sent by the requester)."),
        # receive front drop reasons (docs/roce.md, Receive validation)
        ("rx_drop_dst_mac", "Dropped: destination MAC not this station (rx_filter)."),
        ("rx_drop_dst_ip", "Dropped: RoCEv2 to an IP address that is not local_ip."),
        ("rx_drop_ip_frag", "Dropped: IPv4 fragment (MF set or fragment offset not 0)."),
        ("rx_drop_oversize", "Dropped: frame longer than the receive frame FIFO."),
        ("rx_drop_ip_hdr", "Dropped: IP header error (frame ends inside its headers, IP "
                           "version, IPv4 IHL, IP length field below the header)."),
        ("rx_drop_ip_csum", "Dropped: IPv4 header checksum wrong."),
        ("rx_drop_udp_len", "Dropped: UDP length differs from the IP payload length."),
        ("rx_drop_frame_len", "Dropped: frame length differs from the IP length (truncated "
                              "frame, or bytes after the datagram beyond Ethernet padding)."),
        ("rx_drop_pad", "Dropped: BTH pad count larger than the payload left."),
        ("rx_drop_op_len", "Dropped: a payload on an opcode that carries none (READ "
                           "request, ACK, atomics, CNP, SACK), or an empty LAST packet."),
        ("rx_drop_pmtu", "Dropped: payload larger than the destination QP's path MTU, or "
                         "a FIRST/MIDDLE packet whose payload is not the path MTU."),
        ("rx_drop_reth_len", "Dropped: WRITE ONLY whose RETH length is not its payload "
                             "length, or WRITE FIRST whose RETH length does not exceed it."),
    ]),
)

# A register file is generated per top-level design ("map"): the blocks it has.
MAPS: dict[str, tuple[Block, ...]] = {
    "datapath": (DEVICE, MAC, PARSER, ECHO),
    "roce": (DEVICE, ROCE, ROCE_CNT),
}


def block(name: str) -> Block:
    for blocks in MAPS.values():
        for b in blocks:
            if b.name == name:
                return b
    raise KeyError(name)

# Maps defined next to their blocks (imported last: they build on Block/Reg above).
from .regmap_vxlan import MAP_VNIC  # noqa: E402

MAPS["vnic"] = MAP_VNIC

from .regmap_cc import CC  # noqa: E402

MAPS["roce"] = (DEVICE, ROCE, ROCE_CNT, CC)

from .regmap_vnicdev import MAP_VNICDEV  # noqa: E402

MAPS["vnicdev"] = MAP_VNICDEV

from .regmap_fec import FEC  # noqa: E402

MAPS["roce"] = (*MAPS["roce"], FEC)

from .regmap_nic import MAP_NIC  # noqa: E402

MAPS["nic"] = MAP_NIC
