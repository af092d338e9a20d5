# SPDX-License-Identifier: Apache-2.0
"""Small whole-beat AXI-Stream and valid/ready drivers/monitors for the roce tests:
exact beat view (tkeep=0 beats, tuser on the last beat, sideband sampled on the last
beat) with random valid/ready pauses."""

from __future__ import annotations

import random
from dataclasses import dataclass

from cocotb.triggers import RisingEdge


@dataclass
class Frame:
    data: bytes
    user: int = 0          # tuser[0] on the last beat
    side: int = 0          # sideband sampled with the last beat (e.g. plen)
    keep_ok: bool = True   # tkeep contiguous, full except on the last beat


def pause(rng: random.Random, busy: float) -> bool:
    return rng.random() < busy


async def send_frames(dut, prefix: str, frames: list[tuple[bytes, int]], keep_w: int,
                      rng: random.Random, busy: float = 0.3) -> None:
    """Drive frames (data, tuser); an empty data gives one tkeep=0 beat."""
    s = {n: getattr(dut, f"{prefix}_t{n}") for n in ("data", "keep", "valid", "ready", "last",
                                                     "user")}
    s["valid"].value = 0
    for data, user in frames:
        beats = [data[i:i + keep_w] for i in range(0, len(data), keep_w)] or [b""]
        for i, b in enumerate(beats):
            while pause(rng, busy):
                s["valid"].value = 0
                await RisingEdge(dut.clk)
            s["data"].value = int.from_bytes(b + bytes(rng.getrandbits(8) for _ in range(
                keep_w - len(b))), "little")
            s["keep"].value = (1 << len(b)) - 1
            s["last"].value = int(i == len(beats) - 1)
            s["user"].value = user if i == len(beats) - 1 else 0
            s["valid"].value = 1
            while True:
                await RisingEdge(dut.clk)
                if int(s["ready"].value):
                    break
        s["valid"].value = 0


async def recv_frames(dut, prefix: str, out: list[Frame], keep_w: int, rng: random.Random,
                      busy: float = 0.3, side: str | None = None) -> None:
    """Collect frames forever with random ready."""
    valid = getattr(dut, f"{prefix}_tvalid")
    ready = getattr(dut, f"{prefix}_tready")
    sd = getattr(dut, side) if side else None
    buf = bytearray()
    ok = True
    r = 0
    ready.value = 0
    while True:
        await RisingEdge(dut.clk)
        if r and int(valid.value):
            keep = int(getattr(dut, f"{prefix}_tkeep").value)
            data = getattr(dut, f"{prefix}_tdata").value.to_unsigned().to_bytes(keep_w, "little")
            n = bin(keep).count("1")
            last = int(getattr(dut, f"{prefix}_tlast").value)
            if keep != (1 << n) - 1 or (not last and n != keep_w):
                ok = False
            buf += data[:n]
            if last:
                out.append(Frame(bytes(buf), int(getattr(dut, f"{prefix}_tuser").value),
                                 int(sd.value) if sd is not None else 0, ok))
                buf = bytearray()
                ok = True
        r = int(not pause(rng, busy))
        ready.value = r


async def send_words(dut, prefix: str, items: list[dict[str, int]], rng: random.Random,
                     busy: float = 0.3, capture: str | None = None,
                     captured: list[int] | None = None) -> None:
    """Drive a valid/ready channel: each item maps signal suffixes to values."""
    valid = getattr(dut, f"{prefix}_valid")
    ready = getattr(dut, f"{prefix}_ready")
    valid.value = 0
    for it in items:
        while pause(rng, busy):
            valid.value = 0
            await RisingEdge(dut.clk)
        for k, v in it.items():
            getattr(dut, f"{prefix}_{k}").value = v
        valid.value = 1
        while True:
            await RisingEdge(dut.clk)
            if int(ready.value):
                break
        if capture is not None and captured is not None:
            captured.append(int(getattr(dut, capture).value))
    valid.value = 0


async def recv_words(dut, prefix: str, out: list[dict[str, int]], names: list[str],
                     rng: random.Random, busy: float = 0.3) -> None:
    valid = getattr(dut, f"{prefix}_valid")
    ready = getattr(dut, f"{prefix}_ready")
    r = 0
    ready.value = 0
    while True:
        await RisingEdge(dut.clk)
        if r and int(valid.value):
            out.append({n: int(getattr(dut, f"{prefix}_{n}").value) for n in names})
        r = int(not pause(rng, busy))
        ready.value = r
