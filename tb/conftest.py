# SPDX-License-Identifier: Apache-2.0
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
for p in (_ROOT / "tb", _ROOT / "fw"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
