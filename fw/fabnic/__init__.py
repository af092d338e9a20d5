# SPDX-License-Identifier: Apache-2.0
"""fabnic host-side control plane (register map and verbs-like driver).

The driver talks to a small bus object (read32/write32 plus a host-memory
allocator) so the same code runs against the simulation and a board.
"""

__version__ = "0.1.0"

from .verbs import (  # noqa: E402
    Access,
    Context,
    QpState,
    RecvWR,
    SendWR,
    VerbsError,
    WorkCompletion,
    WrOpcode,
    open_device,
)

__all__ = ["Access", "Context", "QpState", "RecvWR", "SendWR", "VerbsError",
           "WorkCompletion", "WrOpcode", "open_device"]
