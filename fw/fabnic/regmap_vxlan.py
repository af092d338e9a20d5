# SPDX-License-Identifier: Apache-2.0
"""Register block ``vxlan`` of the VTEP / vSwitch (fabnic_vswitch_cmd + fabnic_vtep
counters), in map ``vnic`` of the device core ``fabnic_vnic_core``
(``rtl/top/fabnic_regs_vnic.sv``); its source is rdl/vxlan.rdl.

Table commands (docs/vxlan.md, "Command interface") go through a mailbox:
write ``cmd_key_lo``/``cmd_key_hi`` (MAC), ``cmd_vni``, ``cmd_index`` and
``cmd_value0..11`` (value bits 32i+31..32i), then write ``cmd`` = op | table << 2;
poll ``cmd_status`` until ``busy`` is 0; ``status`` and ``rsp_value0..11`` then hold
the answer. A ``cmd`` write while busy is ignored and sets ``overrun`` (cleared by the
next accepted command).
"""

from __future__ import annotations

from fabnic.regmap_gen import DEVICE, MAPS, VXLAN

__all__ = ["DEVICE", "MAP_VNIC", "VALUE_WORDS", "VXLAN"]

VALUE_WORDS = sum(1 for r in VXLAN.regs if r.name.startswith("cmd_value"))  # 384 >= 367 bits

# register map of the device core rtl/top/fabnic_vnic_core.sv
MAP_VNIC = MAPS["vnic"]
