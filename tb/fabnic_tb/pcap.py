# SPDX-License-Identifier: Apache-2.0
"""Write wire frames seen in simulation to a .pcap (nanosecond timestamps = sim time)."""

from __future__ import annotations

from pathlib import Path

from scapy.layers.l2 import Ether
from scapy.utils import PcapWriter


class SimPcap:
    """Collects (sim_time_ns, frame bytes) and writes a pcap Wireshark opens."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._w = PcapWriter(str(self.path), linktype=1, nano=True, sync=False)
        self.count = 0

    def write(self, frame: bytes, time_ns: float) -> None:
        pkt = Ether(frame)
        pkt.time = time_ns / 1e9
        self._w.write(pkt)
        self.count += 1

    def close(self) -> None:
        self._w.close()
