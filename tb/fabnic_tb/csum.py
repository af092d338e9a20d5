# SPDX-License-Identifier: Apache-2.0
"""Internet checksum helpers for the testbenches, on top of scapy's RFC 1071 routine.

``scapy.utils.checksum(b)`` returns the ones' complement of the ones'-complement sum of
``b`` as big-endian 16-bit words (odd length padded with a zero byte). Everything here is
expressed through it so that every test uses one independent implementation.
"""

from __future__ import annotations

import struct

from scapy.utils import checksum


def ones_sum(data: bytes) -> int:
    """RFC 1071 ones'-complement sum (folded, not complemented) of ``data``."""
    return ~checksum(bytes(data)) & 0xFFFF


def ones_sum_ok(data: bytes) -> bool:
    """True when ``data`` (checksum field included) sums to all ones: the checksum is right."""
    return checksum(bytes(data)) == 0


def offload_csum(frame: bytes, start: int, offset: int) -> bytes:
    """VIRTIO_NET_HDR_F_NEEDS_CSUM device behaviour (virtio 1.2, 5.1.6.2): the complement of
    the sum of ``frame[start:]`` is stored at ``start + offset``; a result of 0 is sent as
    0xFFFF (RFC 768: a computed zero UDP checksum is transmitted as all ones)."""
    c = checksum(bytes(frame[start:])) or 0xFFFF
    pos = start + offset
    return frame[:pos] + struct.pack(">H", c) + frame[pos + 2:]
