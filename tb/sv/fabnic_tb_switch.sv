// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_switch (testbench only): N-port output-queued Ethernet switch model
// with a shared buffer, RED/ECN marking, tail drop and 802.1Qbb PFC.
//
// * Ingress: store and forward. A frame is decided on when its last beat arrives
//   (ingress never back-pressures: tready is always 1): route, admission, ECN,
//   then it is copied in zero time into the egress queue's ring memory.
// * Forwarding: exact match of the destination MAC in a table of N_MAC entries
//   (mac_valid/mac_addr/mac_port); on a miss the ingress's dflt_port is used;
//   a port number >= N_PORTS drops the frame (cnt_drop_noroute).
// * Buffer: shared accounting in bytes (frame length without overhead): a frame is
//   admitted if buf_used + len <= buf_size and (q_cap == 0 or qlen + len <= q_cap)
//   and its queue ring (QUEUE_BYTES physical, per egress) and descriptor ring have
//   room; otherwise it is tail-dropped and counted on the egress (cnt_drop_tail).
//   Bytes leave the accounting when the frame's last beat has left the egress.
// * ECN at enqueue (ECN_DEQ = 0, default): q = egress qlen before the frame; P = 0 (q <= kmin),
//   pmax*(q-kmin)/(kmax-kmin), 1 (q >= kmax); only IPv4/IPv6 (optionally behind one
//   802.1Q tag) with ECN 01/10 become 11; IPv4 checksum updated incrementally
//   (RFC 1624). The rewrite is applied to the header bytes as they leave.
//   ECN_DEQ = 1: the same decision is taken when the frame starts to leave the egress,
//   on q = the bytes queued behind it (as the HPCC ns-3 switch does); the draw is
//   rnd32(seed, dequeue_count, egress), dequeue_count counting data frames switch-wide.
// * Egress: FIFO per port, serialized at `rate` (fabnic_tb_net_pacer, + ovh bytes
//   per frame). PFC frames are sent between frames, ahead of data.
// * PFC (pfc_en): per-ingress bytes in the buffer; above xoff the switch sends a
//   PFC frame (priority pfc_prio, time pfc_quanta) out of that port's egress and
//   repeats it every pfc_refresh cycles while above; at or below xon it sends one
//   with time 0. pfc_obey: a PFC (or 802.3x PAUSE) frame received on ingress i
//   pauses egress i for time*512 bit times (at `rate`), between frames.
//   MAC control frames (EtherType 0x8808) are consumed, never forwarded.
// * Sampler: every sample_period cycles (0 = off) {cycle, qlen[N]} goes into
//   trace_cycle/trace_q (TRACE_DEPTH entries, then stops; trace_count counts all)
//   and, with +<TRACE_PLUSARG>=file, as a text line "cycle q0 q1 ..." to the file.
`default_nettype none

module fabnic_tb_switch #(
    parameter int    N_PORTS     = 4,
    parameter int    DATA_W      = 512,
    parameter int    KEEP_W      = DATA_W / 8,
    parameter int    QUEUE_BYTES = 1 << 20,  // physical ring per egress (power of two beats)
    parameter int    QDESC       = 4096,     // frames per egress queue (power of two)
    parameter int    MAX_FRAME   = 9600,     // longer frames are dropped (cnt_drop_bad)
    parameter int    N_MAC       = 16,
    parameter int    TRACE_DEPTH = 4096,
    parameter string TRACE_PLUSARG = "fabnic_qtrace",
    parameter bit    ECN_DEQ     = 1'b0,     // 1: RED/ECN decided when a frame starts to leave
    parameter int    PACE_SLACK  = KEEP_W    // egress pacers' slack (fabnic_tb_net_pacer SLACK)
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    input  wire logic [N_PORTS*DATA_W-1:0] s_axis_tdata,
    input  wire logic [N_PORTS*KEEP_W-1:0] s_axis_tkeep,
    input  wire logic [N_PORTS-1:0]        s_axis_tvalid,
    output logic      [N_PORTS-1:0]        s_axis_tready,
    input  wire logic [N_PORTS-1:0]        s_axis_tlast,
    input  wire logic [N_PORTS-1:0]        s_axis_tuser,

    output logic [N_PORTS*DATA_W-1:0]      m_axis_tdata,
    output logic [N_PORTS*KEEP_W-1:0]      m_axis_tkeep,
    output logic [N_PORTS-1:0]             m_axis_tvalid,
    input  wire logic [N_PORTS-1:0]        m_axis_tready,
    output logic [N_PORTS-1:0]             m_axis_tlast,
    output logic [N_PORTS-1:0]             m_axis_tuser,

    // configuration
    input  wire logic [31:0]               rate,        // egress bytes/cycle 16.16, 0 = unlimited
    input  wire logic [15:0]               ovh,
    input  wire logic [31:0]               buf_size,    // shared buffer, bytes
    input  wire logic [31:0]               q_cap,       // per-queue cap, bytes (0 = none)
    input  wire logic [N_MAC-1:0]          mac_valid,
    input  wire logic [N_MAC*48-1:0]       mac_addr,    // as written: 02:00:.. = 48'h0200..
    input  wire logic [N_MAC*8-1:0]        mac_port,
    input  wire logic [N_PORTS*8-1:0]      dflt_port,   // per ingress, on a table miss
    input  wire logic                      ecn_en,
    input  wire logic [31:0]               kmin,        // bytes
    input  wire logic [31:0]               kmax,        // bytes
    input  wire logic [31:0]               pmax,        // probability * 2^32
    input  wire logic [63:0]               seed,
    input  wire logic                      pfc_en,
    input  wire logic                      pfc_obey,
    input  wire logic [2:0]                pfc_prio,
    input  wire logic [31:0]               xoff,        // bytes per ingress
    input  wire logic [31:0]               xon,
    input  wire logic [15:0]               pfc_quanta,
    input  wire logic [31:0]               pfc_refresh, // cycles, 0 = no refresh
    input  wire logic [47:0]               sw_mac,      // port i sends from sw_mac + i
    input  wire logic [31:0]               sample_period,

    // observation
    output logic [N_PORTS*32-1:0]          qlen,        // egress queue bytes
    output logic [N_PORTS*32-1:0]          ing_bytes,   // buffered bytes per ingress
    output logic [31:0]                    buf_used,
    output logic [N_PORTS-1:0]             paused,      // egress paused by received PFC
    output logic [N_PORTS-1:0]             xoff_state,  // ingress above XOFF (PFC sent)
    output logic [N_PORTS*32-1:0]          cnt_rx_frames,
    output logic [N_PORTS*64-1:0]          cnt_rx_bytes,
    output logic [N_PORTS*32-1:0]          cnt_tx_frames,   // data frames
    output logic [N_PORTS*64-1:0]          cnt_tx_bytes,
    output logic [N_PORTS*32-1:0]          cnt_drop_tail,   // per egress queue
    output logic [N_PORTS*32-1:0]          cnt_drop_noroute,// per ingress
    output logic [N_PORTS*32-1:0]          cnt_drop_bad,    // per ingress: tuser / oversize
    output logic [N_PORTS*32-1:0]          cnt_ecn_mark,    // per egress queue
    output logic [N_PORTS*32-1:0]          cnt_pfc_xoff_tx, // per port
    output logic [N_PORTS*32-1:0]          cnt_pfc_xon_tx,
    output logic [N_PORTS*32-1:0]          cnt_pfc_rx,      // MAC control frames received
    output logic [N_PORTS*32-1:0]          peak_qlen,
    output logic [31:0]                    trace_count,
    input  wire logic [31:0]               trace_rd_idx,
    output logic [63:0]                    trace_rd_cycle,
    output logic [N_PORTS*32-1:0]          trace_rd_q
);

  localparam int QBEATS = QUEUE_BYTES / KEEP_W;
  localparam int QAW    = $clog2(QBEATS);
  localparam int DAW    = $clog2(QDESC);
  localparam int SBEATS = (MAX_FRAME + KEEP_W - 1) / KEEP_W;
  localparam int HB     = 64;  // header bytes parsed
  localparam int TAW    = $clog2(TRACE_DEPTH);

  if ((1 << QAW) != QBEATS || (1 << DAW) != QDESC || (1 << TAW) != TRACE_DEPTH) begin : g_pow2
    $error("fabnic_tb_switch: QUEUE_BYTES/KEEP_W, QDESC and TRACE_DEPTH must be powers of two");
  end
  if (N_PORTS < 1 || N_PORTS > 16) begin : g_ports
    $error("fabnic_tb_switch: N_PORTS must be 1..16");
  end

  logic [63:0] cycle;

  // ---------------------------------------------------------------- memories
  logic [DATA_W-1:0] stage [N_PORTS][SBEATS];
  logic [DATA_W-1:0] qmem  [N_PORTS][QBEATS];
  logic [31:0]       qd_addr   [N_PORTS][QDESC];
  logic [15:0]       qd_len    [N_PORTS][QDESC];
  logic [7:0]        qd_src    [N_PORTS][QDESC];
  logic [2:0]        qd_pen    [N_PORTS][QDESC];
  logic [23:0]       qd_patch  [N_PORTS][QDESC];  // 3 x 8-bit new byte
  logic [23:0]       qd_poff   [N_PORTS][QDESC];  // 3 x 8-bit offsets
  logic [31:0]       qd_wr [N_PORTS];
  logic [31:0]       qd_rd [N_PORTS];
  logic [31:0]       q_wr  [N_PORTS];   // beat counters
  logic [31:0]       q_tail[N_PORTS];
  logic [63:0]       trace_cycle [TRACE_DEPTH];
  logic [N_PORTS*32-1:0] trace_q [TRACE_DEPTH];

  // ---------------------------------------------------------------- ingress state
  logic [15:0]       in_len   [N_PORTS];
  logic [15:0]       in_beats [N_PORTS];
  logic              in_ovs   [N_PORTS];
  logic [8*HB-1:0]   in_hdr   [N_PORTS];

  assign s_axis_tready = '1;

  function automatic logic [7:0] hb(input logic [8*HB-1:0] h, input int unsigned k);
    return h[8*k +: 8];
  endfunction

  function automatic logic [15:0] h16(input logic [8*HB-1:0] h, input int unsigned k);
    return {h[8*k +: 8], h[8*(k+1) +: 8]};
  endfunction

  // ones' complement sum of two 16-bit words
  function automatic logic [15:0] oc_add(input logic [15:0] a, input logic [15:0] b);
    logic [16:0] s;
    s = {1'b0, a} + {1'b0, b};
    return s[15:0] + {15'd0, s[16]};
  endfunction

  // ---------------------------------------------------------------- egress state
  logic              e_active [N_PORTS];
  logic              e_is_pfc [N_PORTS];
  logic [31:0]       e_addr   [N_PORTS];
  logic [15:0]       e_len    [N_PORTS];
  logic [15:0]       e_beat   [N_PORTS];
  logic [7:0]        e_src    [N_PORTS];
  logic [2:0]        e_pen    [N_PORTS];
  logic [23:0]       e_patch  [N_PORTS];
  logic [23:0]       e_poff   [N_PORTS];
  logic [8*64-1:0]   e_pfc    [N_PORTS];   // PFC frame being sent
  logic [N_PORTS-1:0] pace_ok, e_take, e_last;
  logic              pfc_pend   [N_PORTS];
  logic [15:0]       pfc_pend_q [N_PORTS];
  logic [63:0]       pfc_next   [N_PORTS];
  logic [63:0]       pause_until[N_PORTS];

  for (genvar p = 0; p < N_PORTS; p++) begin : g_pace
    fabnic_tb_net_pacer #(.SLACK(PACE_SLACK)) pacer (
      .clk, .rst, .rate, .ovh, .take(e_take[p]), .take_first(e_beat[p] == 16'd0),
      .take_bytes(16'($countones(m_axis_tkeep[p*KEEP_W +: KEEP_W]))), .ok(pace_ok[p])
    );
  end

  always_comb begin
    for (int p = 0; p < N_PORTS; p++) begin
      logic [DATA_W-1:0] d;
      logic [31:0] rem, base, off;
      off = '0;
      base = 32'(e_beat[p]) * 32'(KEEP_W);
      rem = 32'(e_len[p]) - base;
      e_last[p] = rem <= 32'(KEEP_W);
      d = qmem[p][QAW'(e_addr[p] + 32'(e_beat[p]))];
      if (e_is_pfc[p]) begin
        d = DATA_W'(e_pfc[p] >> (8 * base));
      end else if (e_pen[p] != 0 && base < HB) begin
        for (int k = 0; k < 3; k++) begin
          off = 32'(e_poff[p][8*k +: 8]);
          if (e_pen[p][k] && off >= base && off < base + 32'(KEEP_W)) begin
            d[8*(off - base) +: 8] = e_patch[p][8*k +: 8];
          end
        end
      end
      m_axis_tdata[p*DATA_W +: DATA_W] = d;
      m_axis_tkeep[p*KEEP_W +: KEEP_W] = rem >= 32'(KEEP_W) ? '1 : ~({KEEP_W{1'b1}} << rem);
      m_axis_tvalid[p] = e_active[p] && pace_ok[p];
      m_axis_tlast[p]  = e_last[p];
      m_axis_tuser[p]  = 1'b0;
      e_take[p] = m_axis_tvalid[p] && m_axis_tready[p];
    end
  end

  // PFC frame (60 bytes, no FCS) from port p with time q for the configured priority
  function automatic logic [8*64-1:0] pfc_frame(input logic [47:0] src, input logic [2:0] prio,
                                                input logic [15:0] q);
    logic [8*64-1:0] f;
    logic [15:0] vec;
    f = '0;
    vec = 16'd1 << prio;
    f[8*0 +: 8] = 8'h01; f[8*1 +: 8] = 8'h80; f[8*2 +: 8] = 8'hC2;
    f[8*3 +: 8] = 8'h00; f[8*4 +: 8] = 8'h00; f[8*5 +: 8] = 8'h01;
    for (int i = 0; i < 6; i++) f[8*(6+i) +: 8] = src[8*(5-i) +: 8];
    f[8*12 +: 8] = 8'h88; f[8*13 +: 8] = 8'h08;
    f[8*14 +: 8] = 8'h01; f[8*15 +: 8] = 8'h01;
    f[8*16 +: 8] = vec[15:8]; f[8*17 +: 8] = vec[7:0];
    f[8*(18 + 2*int'(prio)) +: 8] = q[15:8];
    f[8*(19 + 2*int'(prio)) +: 8] = q[7:0];
    return f;
  endfunction

  // pause duration: quanta * 64 bytes at `rate`
  function automatic logic [63:0] pause_cycles(input logic [15:0] q, input logic [31:0] r);
    if (r == 0) return 64'(q);
    return ((64'(q) * 64'd64) << 16) / 64'(r);
  endfunction

  // ---------------------------------------------------------------- trace file
  int trace_fd;
  initial begin
    string fname;
    trace_fd = 0;
    if ($value$plusargs({TRACE_PLUSARG, "=%s"}, fname)) trace_fd = $fopen(fname, "w");
  end

  logic [31:0] sample_cnt;
  logic [63:0] enq_count;
  logic [63:0] deq_count;

  // RED decision for queue length q (bytes) and a 32-bit draw
  function automatic logic red_mark(input logic [31:0] q, input logic [31:0] draw);
    logic [63:0] thr;
    if (!ecn_en || q <= kmin) return 1'b0;
    if (q >= kmax || kmax <= kmin) return 1'b1;
    thr = (64'(pmax) * 64'(q - kmin)) / 64'(kmax - kmin);
    return 64'(draw) < thr;
  endfunction

  // ---------------------------------------------------------------- main process
  always_ff @(posedge clk) begin
    logic [31:0] l_qlen [N_PORTS];
    logic [31:0] l_ing  [N_PORTS];
    logic [31:0] l_qwr  [N_PORTS];
    logic [31:0] l_qdwr [N_PORTS];
    logic [31:0] l_used;
    logic [63:0] l_enq;
    logic [63:0] l_deq;

    cycle <= cycle + 64'd1;
    l_used = buf_used;
    l_enq  = enq_count;
    l_deq  = deq_count;
    for (int p = 0; p < N_PORTS; p++) begin
      l_qlen[p] = qlen[32*p +: 32];
      l_ing[p]  = ing_bytes[32*p +: 32];
      l_qwr[p]  = q_wr[p];
      l_qdwr[p] = qd_wr[p];
    end

    // ---- egress: finish, then start the next frame in the same cycle
    for (int p = 0; p < N_PORTS; p++) begin
      logic free;
      free = !e_active[p];
      if (e_take[p]) begin
        if (e_last[p]) begin
          free = 1'b1;
          e_active[p] <= 1'b0;
          e_beat[p] <= '0;
          if (!e_is_pfc[p]) begin
            cnt_tx_frames[32*p +: 32] <= cnt_tx_frames[32*p +: 32] + 32'd1;
            cnt_tx_bytes[64*p +: 64] <= cnt_tx_bytes[64*p +: 64] + 64'(e_len[p]);
            l_qlen[p] = l_qlen[p] - 32'(e_len[p]);
            l_used = l_used - 32'(e_len[p]);
            l_ing[int'(e_src[p])] = l_ing[int'(e_src[p])] - 32'(e_len[p]);
            q_tail[p] <= e_addr[p] + (32'(e_len[p]) + 32'(KEEP_W) - 32'd1) / 32'(KEEP_W);
          end
        end else begin
          e_beat[p] <= e_beat[p] + 16'd1;
        end
      end
      if (free) begin
        if (pfc_pend[p]) begin
          e_active[p] <= 1'b1;
          e_is_pfc[p] <= 1'b1;
          e_len[p]    <= 16'd60;
          e_beat[p]   <= '0;
          e_pfc[p]    <= pfc_frame(sw_mac + 48'(p), pfc_prio, pfc_pend_q[p]);
          pfc_pend[p] <= 1'b0;
          if (pfc_pend_q[p] != 0) cnt_pfc_xoff_tx[32*p +: 32] <= cnt_pfc_xoff_tx[32*p +: 32] + 32'd1;
          else cnt_pfc_xon_tx[32*p +: 32] <= cnt_pfc_xon_tx[32*p +: 32] + 32'd1;
        end else if (qd_rd[p] != qd_wr[p] && !(pfc_obey && cycle < pause_until[p])) begin
          e_active[p] <= 1'b1;
          e_is_pfc[p] <= 1'b0;
          e_beat[p]   <= '0;
          e_addr[p]   <= qd_addr[p][qd_rd[p][DAW-1:0]];
          e_len[p]    <= qd_len[p][qd_rd[p][DAW-1:0]];
          e_src[p]    <= qd_src[p][qd_rd[p][DAW-1:0]];
          if (!ECN_DEQ) begin
            e_pen[p] <= qd_pen[p][qd_rd[p][DAW-1:0]];
          end else begin
            logic dm;
            dm = red_mark(l_qlen[p] - 32'(qd_len[p][qd_rd[p][DAW-1:0]]),
                          fabnic_tb_net_pkg::rnd32(seed, l_deq[31:0], 3'(p)));
            l_deq = l_deq + 64'd1;
            e_pen[p] <= dm ? qd_pen[p][qd_rd[p][DAW-1:0]] : 3'd0;
            if (dm && qd_pen[p][qd_rd[p][DAW-1:0]] != 0)
              cnt_ecn_mark[32*p +: 32] <= cnt_ecn_mark[32*p +: 32] + 32'd1;
          end
          e_patch[p]  <= qd_patch[p][qd_rd[p][DAW-1:0]];
          e_poff[p]   <= qd_poff[p][qd_rd[p][DAW-1:0]];
          qd_rd[p]    <= qd_rd[p] + 32'd1;
        end
      end
    end

    // ---- ingress
    for (int p = 0; p < N_PORTS; p++) begin
      if (s_axis_tvalid[p]) begin
        logic [15:0] bytes_now, flen, nb;
        logic [8*HB-1:0] hn;
        bytes_now = 16'($countones(s_axis_tkeep[p*KEEP_W +: KEEP_W]));
        hn = in_beats[p] == 0 ? '0 : in_hdr[p];
        if (32'(in_beats[p]) * 32'(KEEP_W) < HB) begin
          for (int i = 0; i < int'(bytes_now); i++) begin
            if (int'(in_beats[p]) * KEEP_W + i < HB)
              hn[8*(int'(in_beats[p]) * KEEP_W + i) +: 8] = s_axis_tdata[p*DATA_W + 8*i +: 8];
          end
        end
        if (!in_ovs[p] && 32'(in_beats[p]) < SBEATS) stage[p][int'(in_beats[p])] <= s_axis_tdata[p*DATA_W +: DATA_W];
        in_hdr[p] <= hn;
        if (!s_axis_tlast[p]) begin
          in_len[p] <= in_len[p] + bytes_now;
          if (32'(in_beats[p]) + 1 >= SBEATS) in_ovs[p] <= 1'b1;
          else in_beats[p] <= in_beats[p] + 16'd1;
        end else begin
          logic [8*HB-1:0] h;
          logic [15:0] et;
          int unsigned l3;
          logic [47:0] dst;
          logic [7:0] eport;
          h = hn;
          flen = in_len[p] + bytes_now;
          nb = in_beats[p] + 16'd1;
          in_len[p] <= '0;
          in_beats[p] <= '0;
          in_ovs[p] <= 1'b0;
          cnt_rx_frames[32*p +: 32] <= cnt_rx_frames[32*p +: 32] + 32'd1;
          cnt_rx_bytes[64*p +: 64] <= cnt_rx_bytes[64*p +: 64] + 64'(flen);
          dst = {hb(h, 0), hb(h, 1), hb(h, 2), hb(h, 3), hb(h, 4), hb(h, 5)};
          et = h16(h, 12);
          l3 = 14;
          if (et == 16'h8100) begin
            et = h16(h, 16);
            l3 = 18;
          end
          eport = dflt_port[8*p +: 8];
          for (int m = 0; m < N_MAC; m++) begin
            if (mac_valid[m] && mac_addr[48*m +: 48] == dst) eport = mac_port[8*m +: 8];
          end
          if (in_ovs[p] || s_axis_tuser[p] || flen < 16'd14) begin
            cnt_drop_bad[32*p +: 32] <= cnt_drop_bad[32*p +: 32] + 32'd1;
          end else if (h16(h, 12) == 16'h8808) begin
            // MAC control: PFC (0x0101) or PAUSE (0x0001); consumed here
            cnt_pfc_rx[32*p +: 32] <= cnt_pfc_rx[32*p +: 32] + 32'd1;
            if (pfc_obey && h16(h, 14) == 16'h0101 && h16(h, 16)[{1'b0, pfc_prio}]) begin
              pause_until[p] <= cycle + pause_cycles(h16(h, 18 + 2 * int'(pfc_prio)), rate);
            end else if (pfc_obey && h16(h, 14) == 16'h0001) begin
              pause_until[p] <= cycle + pause_cycles(h16(h, 16), rate);
            end
          end else if (eport >= 8'(N_PORTS)) begin
            cnt_drop_noroute[32*p +: 32] <= cnt_drop_noroute[32*p +: 32] + 32'd1;
          end else begin
            int e;
            e = int'(eport);
            if (64'(l_used) + 64'(flen) > 64'(buf_size) ||
                (q_cap != 0 && 64'(l_qlen[e]) + 64'(flen) > 64'(q_cap)) ||
                l_qwr[e] - q_tail[e] + 32'(nb) > 32'(QBEATS) ||
                l_qdwr[e] - qd_rd[e] >= 32'(QDESC)) begin
              cnt_drop_tail[32*e +: 32] <= cnt_drop_tail[32*e +: 32] + 32'd1;
            end else begin
              logic mark;
              logic [2:0] pen;
              logic [23:0] poff, pval;
              logic [1:0] ecn;
              logic [15:0] m_old, m_new, hc;
              // RED decision on the queue length before this frame (ECN_DEQ: the
              // rewrite is only prepared here and decided at dequeue)
              mark = ECN_DEQ ? 1'b1 :
                     red_mark(l_qlen[e], fabnic_tb_net_pkg::rnd32(seed, l_enq[31:0], 3'(e)));
              pen = '0;
              poff = '0;
              pval = '0;
              if (mark && et == 16'h0800 && 32'(flen) >= l3 + 20) begin
                ecn = hb(h, l3 + 1) [1:0];
                if (ecn == 2'b01 || ecn == 2'b10) begin
                  m_old = h16(h, l3);
                  m_new = m_old | 16'h0003;
                  hc = ~oc_add(oc_add(~h16(h, l3 + 10), ~m_old), m_new);
                  pen = 3'b111;
                  poff = {8'(l3 + 11), 8'(l3 + 10), 8'(l3 + 1)};
                  pval = {hc[7:0], hc[15:8], m_new[7:0]};
                end
              end else if (mark && et == 16'h86DD && 32'(flen) >= l3 + 40) begin
                ecn = hb(h, l3 + 1) [5:4];
                if (ecn == 2'b01 || ecn == 2'b10) begin
                  pen = 3'b001;
                  poff = {16'd0, 8'(l3 + 1)};
                  pval = {16'd0, hb(h, l3 + 1) | 8'h30};
                end
              end
              if (pen != 0 && !ECN_DEQ) cnt_ecn_mark[32*e +: 32] <= cnt_ecn_mark[32*e +: 32] + 32'd1;
              for (int b = 0; b < int'(nb); b++) begin
                qmem[e][QAW'(l_qwr[e] + 32'(b))] <= (b == int'(nb) - 1) ?
                    s_axis_tdata[p*DATA_W +: DATA_W] : stage[p][b];
              end
              qd_addr[e][l_qdwr[e][DAW-1:0]]  <= l_qwr[e];
              qd_len[e][l_qdwr[e][DAW-1:0]]   <= flen;
              qd_src[e][l_qdwr[e][DAW-1:0]]   <= 8'(p);
              qd_pen[e][l_qdwr[e][DAW-1:0]]   <= pen;
              qd_poff[e][l_qdwr[e][DAW-1:0]]  <= poff;
              qd_patch[e][l_qdwr[e][DAW-1:0]] <= pval;
              l_qwr[e]  = l_qwr[e] + 32'(nb);
              l_qdwr[e] = l_qdwr[e] + 32'd1;
              l_qlen[e] = l_qlen[e] + 32'(flen);
              l_used    = l_used + 32'(flen);
              l_ing[p]  = l_ing[p] + 32'(flen);
              l_enq     = l_enq + 64'd1;
            end
          end
        end
      end
    end

    // ---- PFC generation (after the egress so a new request is not lost)
    for (int p = 0; p < N_PORTS; p++) begin
      if (!pfc_en) begin
        xoff_state[p] <= 1'b0;
      end else if (!xoff_state[p] && l_ing[p] > xoff) begin
        xoff_state[p] <= 1'b1;
        pfc_pend[p]   <= 1'b1;
        pfc_pend_q[p] <= pfc_quanta;
        pfc_next[p]   <= cycle + 64'(pfc_refresh);
      end else if (xoff_state[p] && l_ing[p] <= xon) begin
        xoff_state[p] <= 1'b0;
        pfc_pend[p]   <= 1'b1;
        pfc_pend_q[p] <= 16'd0;
      end else if (xoff_state[p] && pfc_refresh != 0 && cycle >= pfc_next[p]) begin
        pfc_pend[p]   <= 1'b1;
        pfc_pend_q[p] <= pfc_quanta;
        pfc_next[p]   <= cycle + 64'(pfc_refresh);
      end
    end

    // ---- write back shared state, peaks, pause status
    buf_used  <= l_used;
    enq_count <= l_enq;
    deq_count <= l_deq;
    for (int p = 0; p < N_PORTS; p++) begin
      qlen[32*p +: 32] <= l_qlen[p];
      ing_bytes[32*p +: 32] <= l_ing[p];
      q_wr[p] <= l_qwr[p];
      qd_wr[p] <= l_qdwr[p];
      if (l_qlen[p] > peak_qlen[32*p +: 32]) peak_qlen[32*p +: 32] <= l_qlen[p];
      paused[p] <= pfc_obey && cycle + 64'd1 < pause_until[p];
    end

    // ---- sampler
    if (sample_period != 0) begin
      if (sample_cnt + 32'd1 >= sample_period) begin
        sample_cnt <= '0;
        if (trace_count < TRACE_DEPTH) begin
          trace_cycle[trace_count[TAW-1:0]] <= cycle;
          trace_q[trace_count[TAW-1:0]] <= qlen;
        end
        trace_count <= trace_count + 32'd1;
        if (trace_fd != 0) begin
          $fwrite(trace_fd, "%0d", cycle);
          for (int p = 0; p < N_PORTS; p++) $fwrite(trace_fd, " %0d", qlen[32*p +: 32]);
          $fwrite(trace_fd, "\n");
          $fflush(trace_fd);
        end
      end else begin
        sample_cnt <= sample_cnt + 32'd1;
      end
    end

    if (rst) begin
      cycle <= '0;
      buf_used <= '0;
      enq_count <= '0;
      deq_count <= '0;
      sample_cnt <= '0;
      trace_count <= '0;
      qlen <= '0;
      ing_bytes <= '0;
      peak_qlen <= '0;
      paused <= '0;
      xoff_state <= '0;
      cnt_rx_frames <= '0;
      cnt_rx_bytes <= '0;
      cnt_tx_frames <= '0;
      cnt_tx_bytes <= '0;
      cnt_drop_tail <= '0;
      cnt_drop_noroute <= '0;
      cnt_drop_bad <= '0;
      cnt_ecn_mark <= '0;
      cnt_pfc_xoff_tx <= '0;
      cnt_pfc_xon_tx <= '0;
      cnt_pfc_rx <= '0;
      for (int p = 0; p < N_PORTS; p++) begin
        in_len[p] <= '0;
        in_beats[p] <= '0;
        in_ovs[p] <= 1'b0;
        in_hdr[p] <= '0;
        e_active[p] <= 1'b0;
        e_is_pfc[p] <= 1'b0;
        e_beat[p] <= '0;
        e_len[p] <= 16'd1;
        e_addr[p] <= '0;
        e_src[p] <= '0;
        e_pen[p] <= '0;
        e_patch[p] <= '0;
        e_poff[p] <= '0;
        e_pfc[p] <= '0;
        qd_wr[p] <= '0;
        qd_rd[p] <= '0;
        q_wr[p] <= '0;
        q_tail[p] <= '0;
        pfc_pend[p] <= 1'b0;
        pfc_pend_q[p] <= '0;
        pfc_next[p] <= '0;
        pause_until[p] <= '0;
      end
    end
  end

  // read port for the trace (Python may also read trace_cycle/trace_q directly)
  assign trace_rd_cycle = trace_cycle[TAW'(trace_rd_idx % 32'(TRACE_DEPTH))];
  assign trace_rd_q     = trace_q[TAW'(trace_rd_idx % 32'(TRACE_DEPTH))];

endmodule

`resetall
