# SPDX-License-Identifier: Apache-2.0
"""VirtIO-net register window (rtl/virtio/fabnic_virtio_regs.sv), VirtIO 1.2 modern layout.

The RTL of this window is written by hand: the common configuration is select-indexed
(``queue_select`` picks which queue the ``queue_*`` fields show, ``*_feature_select``
which 32 feature bits), fields are 8/16 bits wide and share dwords (byte strobes decide
which are written), and writes have side effects (device reset, queue enable). Its
layout is described once, as an external region in rdl/virtio.rdl; :data:`VIRTIO` (from
:mod:`fabnic.regmap_gen`) is that description, and the byte offsets below are derived
from it. Offsets are relative to the window base. The values of the VirtIO
specification (device status bits, feature bit numbers) are listed here.

PCI capabilities (filled in by the PCIe bridge's config space, not by this
block): common cfg = window + 0x000 (0x40 bytes), notify = window + 0x100 with
notify_off_multiplier 4, ISR = window + 0x200, device cfg = window + 0x300.
"""

from __future__ import annotations

from fabnic.regmap_gen import VIRTIO

__all__ = ["VIRTIO"]  # and the constants below


def _at(reg: str, field: str | None = None) -> int:
    """Byte offset of a register (or of one of its byte-aligned fields) in the window."""
    r = VIRTIO.reg(reg)
    return r.offset + (r.field(field).lsb // 8 if field else 0)


# ---------------------------------------------------------------- layout
COMMON = _at("device_feature_select")
NOTIFY = _at("notify")
NOTIFY_OFF_MULTIPLIER = VIRTIO.reg("notify").stride
ISR = _at("isr")
DEVICE_CFG = _at("mac_lo")
EXT = _at("bad_notify")

# struct virtio_pci_common_cfg (byte offsets inside COMMON)
DEVICE_FEATURE_SELECT = _at("device_feature_select") - COMMON
DEVICE_FEATURE = _at("device_feature") - COMMON
DRIVER_FEATURE_SELECT = _at("driver_feature_select") - COMMON
DRIVER_FEATURE = _at("driver_feature") - COMMON
CONFIG_MSIX_VECTOR = _at("msix_numq", "config_msix_vector") - COMMON   # le16
NUM_QUEUES = _at("msix_numq", "num_queues") - COMMON                   # le16, RO
DEVICE_STATUS = _at("status_gen_qsel", "device_status") - COMMON       # u8
CONFIG_GENERATION = _at("status_gen_qsel", "config_generation") - COMMON  # u8, RO
QUEUE_SELECT = _at("status_gen_qsel", "queue_select") - COMMON         # le16
QUEUE_SIZE = _at("qsize_qvec", "queue_size") - COMMON                  # le16
QUEUE_MSIX_VECTOR = _at("qsize_qvec", "queue_msix_vector") - COMMON    # le16
QUEUE_ENABLE = _at("qenable_notoff", "queue_enable") - COMMON          # le16
QUEUE_NOTIFY_OFF = _at("qenable_notoff", "queue_notify_off") - COMMON  # le16, RO
QUEUE_DESC = _at("queue_desc_lo") - COMMON                             # le64
QUEUE_DRIVER = _at("queue_driver_lo") - COMMON                         # le64 (available ring)
QUEUE_DEVICE = _at("queue_device_lo") - COMMON                         # le64 (used ring)
QUEUE_NOTIFY_DATA = _at("qnotdata_qreset", "queue_notify_data") - COMMON  # le16, RO
QUEUE_RESET = _at("qnotdata_qreset", "queue_reset") - COMMON           # le16, RO 0

# struct virtio_net_config (byte offsets inside DEVICE_CFG)
NET_MAC = _at("mac_lo") - DEVICE_CFG                                   # 6 bytes
NET_STATUS = _at("mac_hi_status", "link_up") - DEVICE_CFG              # le16: bit0 LINK_UP
NET_MAX_VQ_PAIRS = _at("pairs_mtu", "max_virtqueue_pairs") - DEVICE_CFG  # le16
NET_MTU = _at("pairs_mtu", "mtu") - DEVICE_CFG                         # le16

# fabnic extension (EXT)
EXT_BAD_NOTIFY = _at("bad_notify") - EXT     # doorbells for a queue index >= num_queues (ignored)
EXT_IGNORED = _at("ignored") - EXT           # register writes refused by the rules (docs/virtio.md)
EXT_NEEDS_RESET = _at("needs_reset_map") - EXT  # bitmap: engine queues in needs-reset
EXT_OFFERED_LO = _at("offered_lo") - EXT     # device feature bits 31..0 (DEVICE_FEATURE select 0)

# ---------------------------------------------------------------- spec values
STATUS_ACKNOWLEDGE = 0x01
STATUS_DRIVER = 0x02
STATUS_DRIVER_OK = 0x04
STATUS_FEATURES_OK = 0x08
STATUS_NEEDS_RESET = 0x40
STATUS_FAILED = 0x80

F_CSUM = 0
F_GUEST_CSUM = 1
F_MTU = 3
F_MAC = 5
F_MRG_RXBUF = 15
F_STATUS = 16
F_CTRL_VQ = 17
F_MQ = 22
F_INDIRECT_DESC = 28
F_EVENT_IDX = 29
F_VERSION_1 = 32

#: features the RTL offers (CTRL_VQ and MQ only with the CTRL_VQ parameter set); the low
#: word is register offered_lo, whose fields name each bit
OFFERED = VIRTIO.reg("offered_lo").value | 1 << F_VERSION_1

NO_VECTOR = 0xFFFF
ISR_QUEUE = VIRTIO.reg("isr").field("queue").mask
ISR_CONFIG = VIRTIO.reg("isr").field("config").mask
