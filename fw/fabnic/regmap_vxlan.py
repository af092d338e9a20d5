# SPDX-License-Identifier: Apache-2.0
"""Register block of the VTEP / vSwitch (fabnic_vswitch_cmd + fabnic_vtep counters).

To be merged into fw/fabnic/regmap.py by the lead; until then the device core
``fabnic_vnic_core`` uses the register file generated for ``MAP_VNIC`` below
(``rtl/top/fabnic_regs_vnic.sv``, written by ``sim/gen_regs.gen_sv("vnic", MAP_VNIC)``).

Table commands (docs/vxlan.md, "Command interface") go through a mailbox:
write ``cmd_key_lo``/``cmd_key_hi`` (MAC), ``cmd_vni``, ``cmd_index`` and
``cmd_value0..11`` (value bits 32i+31..32i), then write ``cmd`` = op | table << 2;
poll ``cmd_status`` until ``busy`` is 0; ``status`` and ``rsp_value0..11`` then hold
the answer. A ``cmd`` write while busy is ignored and sets ``overrun`` (cleared by the
next accepted command).
"""

from __future__ import annotations

from fabnic.regmap import DEVICE, Block, Reg

VALUE_WORDS = 12   # 384 bits >= the 367-bit table value

VXLAN = Block(
    "vxlan", 0x2000, 0x200,
    "VTEP and vSwitch: table mailbox (MAC, VNI and tunnel tables) and counters.",
    (
        Reg("entries", 0x00, "const", "MAC table entries (ENTRIES).", param="ENTRIES"),
        Reg("vni_entries", 0x04, "const", "VNI table slots.", param="VNI_ENTRIES"),
        Reg("tun_entries", 0x08, "const", "Tunnel table slots.", param="TUN_ENTRIES"),
        Reg("flood_max", 0x0C, "const", "Local queues per VNI flood list.", param="FLOOD_MAX"),
        Reg("rflood_max", 0x10, "const", "Remote VTEPs per VNI flood list.", param="RFLOOD_MAX"),
        Reg("cmd_key_lo", 0x20, "rw", "Command key: MAC bits 31:0."),
        Reg("cmd_key_hi", 0x24, "rw", "Command key: MAC bits 47:32.", width=16),
        Reg("cmd_vni", 0x28, "rw", "Command key: VNI.", width=24),
        Reg("cmd_index", 0x2C, "rw", "Command slot (VNI / tunnel table).", width=16),
        Reg("cmd", 0x30, "pulse", "Start a command: op[1:0] (0 add, 1 delete, 2 read), "
            "table[3:2] (0 MAC, 1 VNI, 2 tunnel).", width=4),
        Reg("cmd_status", 0x34, "ro", "bit 0 busy, bit 1 done, bits 3:2 status (0 ok, 1 full, "
            "2 not found, 3 bad command), bit 4 overrun (cmd written while busy).", width=5),
        Reg("mac_entries", 0x38, "ro", "Valid MAC-table entries.", width=16),
    )
    + tuple(Reg(f"cmd_value{i}", 0x40 + 4 * i, "rw", f"Command value bits {32 * i + 31}:{32 * i}.")
            for i in range(VALUE_WORDS))
    + tuple(Reg(f"rsp_value{i}", 0x80 + 4 * i, "ro", f"Response value bits {32 * i + 31}:{32 * i}.")
            for i in range(VALUE_WORDS))
    + tuple(Reg(n, 0x100 + 4 * i, "ro", d) for i, (n, d) in enumerate([
        ("rx_in", "RX: VXLAN frames into the decap."),
        ("rx_local", "RX: frames to one local queue."),
        ("rx_flood", "RX: frames flooded to the VNI's local queues."),
        ("rx_roce", "RX: inner frames to the RoCE engine."),
        ("drop_outer", "RX drop: not UDP 4789 or outer header error."),
        ("drop_bad_vxlan", "RX drop: VXLAN I flag clear."),
        ("drop_short", "RX drop: UDP payload shorter than VXLAN + Ethernet."),
        ("drop_unknown_vni", "RX drop: VNI not configured."),
        ("drop_no_flood", "RX drop: miss with an empty flood list, or blocking entry."),
        ("drop_loop", "RX drop: destination behind the uplink (split horizon)."),
        ("ce_marked", "RX: outer CE copied into the inner header (RFC 6040)."),
        ("ce_not_ect", "RX: outer CE on a Not-ECT inner packet (marked bad)."),
        ("tx_in", "TX: frames in (guest + RoCE)."),
        ("tx_out", "TX: encapsulated frames to the uplink (copies)."),
        ("tx_local", "TX: local copies (VM to VM inside the host)."),
        ("tx_flood", "TX: frames flooded (broadcast / unknown unicast)."),
        ("tx_drop_unknown_vni", "TX drop: VNI not configured."),
        ("tx_drop_no_route", "TX drop: nothing to send to (RoCE/blocking entry, empty lists)."),
        ("tx_drop_oversize", "TX drop: frame longer than the TX buffer."),
        ("tx_drop_bad", "TX drop: frame marked bad by its source."),
        ("lookups", "Table lookups (RX + TX)."),
        ("add_full", "MAC ADD refused: all ways of the set in use."),
    ])),
)

# register map of the device core rtl/top/fabnic_vnic_core.sv
MAP_VNIC: tuple[Block, ...] = (DEVICE, VXLAN)
