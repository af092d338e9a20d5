# SPDX-License-Identifier: Apache-2.0
"""fabnic_roce_rx_hdr / fabnic_roce_tx_hdr against scapy-built RoCEv2 packets
(tb/fabnic_tb/roce_layers.py) and the layout model in roce_model.py; tx -> rx loopback.
One build per DATA_W (wrapper tb_roce_hdr.sv holds rx, tx and the loopback pair)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fabnic_tb import runner

try:
    import cocotb
    import roce_model as m
    from cocotb.triggers import ClockCycles, RisingEdge
    from cocotb.utils import get_sim_time
    from roce_axis import Frame, recv_frames, recv_words, send_frames, send_words
    from scapy.layers.l2 import Ether

    from fabnic_tb import roce_layers as rl
    from fabnic_tb.clock import start_clock_reset
except ImportError:
    cocotb = None

PMTU = 1024
ALL_OPS = sorted({*range(0x00, 0x15), 0x16, 0x17, 0x81})


def rand_plen(rng: random.Random, op: int) -> int:
    if op not in m.PAYLOAD_OPS:
        return 0
    r = rng.random()
    if r < 0.55:
        return rng.randint(0, 70)
    if r < 0.85:
        return rng.randint(71, 300)
    return rng.randint(301, 2 * PMTU)


def rand_bth(rng: random.Random, pad: int, version: int = 0) -> dict[str, int]:
    return dict(solicited=rng.getrandbits(1), migreq=rng.getrandbits(1), padcount=pad,
                version=version, pkey=rng.getrandbits(16), fecn=rng.getrandbits(1),
                becn=rng.getrandbits(1), resv6=rng.getrandbits(6), dqpn=rng.getrandbits(24),
                ackreq=rng.getrandbits(1), resv7=rng.getrandbits(7), psn=rng.getrandbits(24))


def scapy_pkt(op: int, body: bytes, exts: list, bth: dict[str, int]) -> tuple[bytes, int]:
    """UDP payload without ICRC, and the UDP payload length (with ICRC), from scapy."""
    f = Ether(bytes(rl.roce_frame(op, body, exts=exts, **bth)))
    udp = bytes(f[rl.UDP].payload)
    return udp[:-4], int(f[rl.UDP].len) - 8


def good_packet(rng: random.Random, op: int, pad_fill: bool = True):
    """(udp bytes, expected record, payload data, plen, bth fields, exts)."""
    plen = rand_plen(rng, op)
    data = bytes(rng.getrandbits(8) for _ in range(plen))
    pad = m.pad_of(plen)
    padb = bytes(rng.getrandbits(8) if pad_fill else 0 for _ in range(pad))
    exts = rl.ext_headers(op, rng)
    bth = rand_bth(rng, pad)
    udp, udp_len = scapy_pkt(op, data + padb, exts, bth)
    rec = m.good_record(op, m.bth_int(opcode=op, **bth), m.ext_ints(exts))
    assert udp[:12] == rec.bth.to_bytes(12, "big")  # scapy and the model agree on BTH
    return udp, rec, data, udp_len, bth, exts


if cocotb is not None:

    def keep_w(dut) -> int:
        return len(dut.rx_s_axis_tkeep)

    def idle_inputs(dut) -> None:
        for p in ("rx_s_axis", "tx_s_axis", "lb_s_axis"):
            getattr(dut, f"{p}_tvalid").value = 0
        for p in ("tx_s_hdr", "lb_s_hdr"):
            getattr(dut, f"{p}_valid").value = 0
        for n in ("rx_m_hdr_ready", "rx_m_axis_tready", "tx_m_axis_tready", "lb_m_hdr_ready",
                  "lb_m_axis_tready"):
            getattr(dut, n).value = 0

    async def wait_count(dut, lst: list, n: int, limit: int = 400000) -> None:
        for _ in range(limit):
            if len(lst) >= n:
                return
            await RisingEdge(dut.clk)
        raise AssertionError(f"timeout: {len(lst)} of {n}")

    def malformed(rng: random.Random) -> bytes:
        kind = rng.randrange(4)
        op = rng.choice(ALL_OPS)
        if kind == 0:   # transport version != 0
            udp, *_ = good_packet(rng, op)
            return udp[:1] + bytes([(udp[1] & 0xF0) | rng.randint(1, 15)]) + udp[2:]
        if kind == 1:   # unknown opcode (UC/UD/reserved/vendor)
            bad = rng.choice([0x15, 0x18, 0x1F, 0x20, 0x24, 0x64, 0x80, 0x82, 0xC0, 0xFF])
            udp, *_ = good_packet(rng, op)
            return bytes([bad]) + udp[1:]
        if kind == 2:   # truncated inside the headers
            udp, *_ = good_packet(rng, op)
            return udp[:rng.randint(1, m.hdr_len(op) - 1)]
        # pad count larger than what follows the headers
        op = rng.choice(sorted(m.PAYLOAD_OPS))
        k = rng.randint(0, 2)
        udp, _ = scapy_pkt(op, bytes(rng.getrandbits(8) for _ in range(k)),
                           rl.ext_headers(op, rng), rand_bth(rng, rng.randint(k + 1, 3)))
        return udp

    @cocotb.test()
    async def rx_decode(dut):
        """Every RC opcode + CNP with random fields, payload 0..2 PMTU and pad 0-3, random
        input tuser, plus malformed packets (version, opcode, truncated, pad > payload):
        header record, payload, tuser and plen against scapy + roce_model; counters."""
        await start_clock_reset(dut)
        idle_inputs(dut)
        kw = keep_w(dut)
        rng = random.Random(11)
        pkts: list[tuple[bytes, int]] = []
        exp: list[tuple[int, bytes, int]] = []
        cnt = {"short": 0, "tver": 0, "opcode": 0, "pad": 0}
        n = 260 if kw == 8 else 200
        for i in range(n):
            user = int(rng.random() < 0.1)
            if rng.random() < 0.25:
                udp = malformed(rng)
                err, payload, pad_err = m.rx_expect(udp)
                rec = m.error_record(udp, err) if err else None
                if rec is None:   # pad error: header is good
                    op = udp[0]
                    hl = m.hdr_len(op)
                    rec = m.good_record(op, int.from_bytes(udp[:12], "big"),
                                        _ext_from_bytes(op, udp[12:hl]))
            else:
                udp, rec, payload, _, _, _ = good_packet(rng, ALL_OPS[i % len(ALL_OPS)])
                err, p2, pad_err = m.rx_expect(udp)
                assert err == 0 and p2 == payload and not pad_err
            for k, e in ((m.ERR_SHORT, "short"), (m.ERR_TVER, "tver"), (m.ERR_OPCODE, "opcode")):
                cnt[e] += int(rec.err == k)
            cnt["pad"] += int(pad_err)
            bad = int(user or rec.err != 0 or pad_err)
            pkts.append((udp, user))
            exp.append((rec.pack(), payload, bad))
        hdrs: list[dict[str, int]] = []
        frames: list[Frame] = []
        cocotb.start_soon(recv_words(dut, "rx_m_hdr", hdrs, ["data"], random.Random(2)))
        cocotb.start_soon(recv_frames(dut, "rx_m_axis", frames, kw, random.Random(3),
                                      side="rx_m_axis_plen"))
        await send_frames(dut, "rx_s_axis", pkts, kw, random.Random(4))
        await wait_count(dut, frames, len(pkts))
        await ClockCycles(dut.clk, 10)
        assert len(hdrs) == len(pkts) and len(frames) == len(pkts)
        for i, ((rec_i, payload, bad), h, f) in enumerate(zip(exp, hdrs, frames, strict=True)):
            got = m.HdrRec.unpack(h["data"])
            assert got == m.HdrRec.unpack(rec_i), f"pkt {i}: {got} != {m.HdrRec.unpack(rec_i)}"
            assert f.data == payload, f"pkt {i} payload"
            assert f.user == bad, f"pkt {i} tuser {pkts[i][1]} {pkts[i][0][:48].hex()} {len(pkts[i][0])}"
            assert f.side == len(payload), f"pkt {i} plen {f.side}"
            assert f.keep_ok
        assert int(dut.rx_cnt_pkts.value) == len(pkts)
        assert int(dut.rx_cnt_err_short.value) == cnt["short"]
        assert int(dut.rx_cnt_err_tver.value) == cnt["tver"]
        assert int(dut.rx_cnt_err_opcode.value) == cnt["opcode"]
        assert int(dut.rx_cnt_err_pad.value) == cnt["pad"]
        assert all(cnt.values()), cnt  # every error kind was exercised

    def _ext_from_bytes(op: int, b: bytes) -> dict[str, int]:
        lay = m.layout(op)
        out: dict[str, int] = {}
        off = 0
        for k in ("reth", "aeth", "atomic_eth", "atomic_ack_eth", "immdt", "ieth"):
            if lay[k]:
                out[k] = int.from_bytes(b[off:off + m.EXT_BYTES[k]], "big")
                off += m.EXT_BYTES[k]
        return out

    def tx_input(rng: random.Random, rec: m.HdrRec) -> m.HdrRec:
        """Input record: the expected one with junk in every field tx_hdr ignores
        (pad count, has_* flags, hdr_len, err, fields of absent headers)."""
        t = m.HdrRec(**{k: getattr(rec, k) for k, _ in m.REC_FIELDS})
        t.bth = (rec.bth & ~(3 << 84)) | (rng.getrandbits(2) << 84)
        for k, w in m.REC_FIELDS[1:]:
            if k.startswith("has_") or k in ("is_cnp", "hdr_len", "err"):
                setattr(t, k, rng.getrandbits(w))
            elif not getattr(rec, "has_" + k):
                setattr(t, k, rng.getrandbits(w))
        return t

    @cocotb.test()
    async def tx_build(dut):
        """Header record + payload -> bytes equal scapy's UDP payload (minus ICRC, zero
        pad); hdr_udp_len equals scapy's UDP length - 8; payloads shorter/longer than the
        declared length are sent with tuser=1 and counted."""
        await start_clock_reset(dut)
        idle_inputs(dut)
        kw = keep_w(dut)
        rng = random.Random(21)
        hdr_items: list[dict[str, int]] = []
        frames_in: list[tuple[bytes, int]] = []
        exp: list[tuple[bytes, int, int]] = []
        n_err = 0
        n = 220 if kw == 8 else 180
        for i in range(n):
            op = ALL_OPS[i % len(ALL_OPS)] if i < 2 * len(ALL_OPS) else rng.choice(ALL_OPS)
            udp, rec, data, udp_len, _, _ = good_packet(rng, op, pad_fill=False)
            user = int(rng.random() < 0.05)
            plen = len(data)
            sent = data
            if op in m.PAYLOAD_OPS and rng.random() < 0.1:   # length mismatch
                sent = data + bytes(rng.randint(1, 9)) if rng.random() < 0.5 or not data \
                    else data[:rng.randrange(len(data))]
                n_err += 1
                user = 1
                hl = m.hdr_len(op)
                udp = udp[:hl] + sent + bytes(m.pad_of(plen))
            hdr_items.append({"data": tx_input(rng, rec).pack(), "plen": plen})
            frames_in.append((sent, int(user and sent == data)))
            exp.append((udp, user, udp_len))
        lens: list[int] = []
        frames: list[Frame] = []
        cocotb.start_soon(recv_frames(dut, "tx_m_axis", frames, kw, random.Random(5)))
        cocotb.start_soon(send_words(dut, "tx_s_hdr", hdr_items, random.Random(6),
                                     capture="tx_hdr_udp_len", captured=lens))
        await send_frames(dut, "tx_s_axis", frames_in, kw, random.Random(7))
        await wait_count(dut, frames, n)
        await ClockCycles(dut.clk, 10)
        assert len(frames) == n
        for i, ((udp, user, udp_len), f, ln) in enumerate(zip(exp, frames, lens, strict=True)):
            assert f.data == udp, f"pkt {i}: {f.data.hex()} != {udp.hex()}"
            assert f.user == user, f"pkt {i} tuser"
            assert ln == udp_len, f"pkt {i} udp len {ln} != {udp_len}"
            assert f.keep_ok
        assert int(dut.tx_cnt_pkts.value) == n
        assert int(dut.tx_cnt_err_len.value) == n_err and n_err > 0

    @cocotb.test()
    async def loopback(dut):
        """tx_hdr -> rx_hdr: the decoded record equals the sent one (with the pad count
        tx computed) and the payload comes back unchanged."""
        await start_clock_reset(dut)
        idle_inputs(dut)
        kw = keep_w(dut)
        rng = random.Random(31)
        hdr_items, frames_in, exp = [], [], []
        n = 150
        for _ in range(n):
            op = rng.choice(ALL_OPS)
            _, rec, data, _, _, _ = good_packet(rng, op, pad_fill=False)
            hdr_items.append({"data": tx_input(rng, rec).pack(), "plen": len(data)})
            frames_in.append((data, 0))
            exp.append((rec, data))
        hdrs: list[dict[str, int]] = []
        frames: list[Frame] = []
        cocotb.start_soon(recv_words(dut, "lb_m_hdr", hdrs, ["data"], random.Random(8)))
        cocotb.start_soon(recv_frames(dut, "lb_m_axis", frames, kw, random.Random(9),
                                      side="lb_m_axis_plen"))
        cocotb.start_soon(send_words(dut, "lb_s_hdr", hdr_items, random.Random(10)))
        await send_frames(dut, "lb_s_axis", frames_in, kw, random.Random(12))
        await wait_count(dut, frames, n)
        await ClockCycles(dut.clk, 10)
        assert len(hdrs) == n
        for i, ((rec, data), h, f) in enumerate(zip(exp, hdrs, frames, strict=True)):
            assert m.HdrRec.unpack(h["data"]) == rec, f"pkt {i}"
            assert f.data == data and f.user == 0 and f.side == len(data), f"pkt {i}"

    @cocotb.test()
    async def rx_throughput(dut):
        """DATA_W=512: packets that fit one beat pass at one per cycle (no pauses)."""
        kw = keep_w(dut)
        if kw < 64:
            return
        await start_clock_reset(dut)
        idle_inputs(dut)
        rng = random.Random(41)
        pkts = []
        for _ in range(64):
            data = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 4, 20, 44, 52])))
            udp, _ = scapy_pkt(rl.SEND_ONLY, data, [], rand_bth(rng, 0))
            pkts.append((udp, 0))
        hdrs: list[dict[str, int]] = []
        frames: list[Frame] = []
        cocotb.start_soon(recv_words(dut, "rx_m_hdr", hdrs, ["data"], rng, busy=0.0))
        cocotb.start_soon(recv_frames(dut, "rx_m_axis", frames, kw, rng, busy=0.0))
        await RisingEdge(dut.clk)
        t0 = get_sim_time("ns")
        await send_frames(dut, "rx_s_axis", pkts, kw, rng, busy=0.0)
        t1 = get_sim_time("ns")
        await wait_count(dut, frames, len(pkts))
        cycles = (t1 - t0) / 4
        assert len(hdrs) == len(pkts)
        assert cycles <= len(pkts) + 2, f"{cycles} cycles for {len(pkts)} packets"


@pytest.mark.parametrize("data_w", [64, 512])
def test_roce_hdr(data_w: int) -> None:
    d = Path(__file__).parent
    runner.run(toplevel="tb_roce_hdr", module="test_roce_hdr", test_dir=d,
               parameters={"DATA_W": data_w}, extra_sources=[d / "tb_roce_hdr.sv"], read_only_internals=True)
