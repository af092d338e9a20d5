// SPDX-License-Identifier: Apache-2.0
//
// tb_host_axi_mem: testbench-only AXI4 slave memory with a fixed latency
// (simulation constructs: initial, longint). Used by the DMA benchmark, where
// cocotbext-axi would be far too slow at 512 bits.
//
// Read:  each AR is accepted at once (up to MAX_REQ queued); its first R beat
//        is offered `latency` cycles after acceptance, then one beat per cycle
//        (bursts back to back, in order, honouring rready).
// Write: AW accepted at once; W beats accepted every cycle once their AW is
//        known (wready low otherwise); the B response is offered `latency`
//        cycles after the last W beat.
// Memory is 2^MEM_AW bytes, addresses wrap; initialised to byte(a) = a[7:0]^a[15:8].
`default_nettype none

module tb_host_axi_mem #(
    parameter int DATA_W  = 512,
    parameter int ADDR_W  = 64,
    parameter int ID_W    = 4,
    parameter int MEM_AW  = 20,
    parameter int MAX_REQ = 64,
    parameter int STRB_W  = DATA_W / 8
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic [15:0]       latency,

    input  wire logic [ID_W-1:0]   s_axi_arid,
    input  wire logic [ADDR_W-1:0] s_axi_araddr,
    input  wire logic [7:0]        s_axi_arlen,
    input  wire logic              s_axi_arvalid,
    output logic                   s_axi_arready,
    output logic [ID_W-1:0]        s_axi_rid,
    output logic [DATA_W-1:0]      s_axi_rdata,
    output logic [1:0]             s_axi_rresp,
    output logic                   s_axi_rlast,
    output logic                   s_axi_rvalid,
    input  wire logic              s_axi_rready,

    input  wire logic [ID_W-1:0]   s_axi_awid,
    input  wire logic [ADDR_W-1:0] s_axi_awaddr,
    input  wire logic [7:0]        s_axi_awlen,
    input  wire logic              s_axi_awvalid,
    output logic                   s_axi_awready,
    input  wire logic [DATA_W-1:0] s_axi_wdata,
    input  wire logic [STRB_W-1:0] s_axi_wstrb,
    input  wire logic              s_axi_wlast,
    input  wire logic              s_axi_wvalid,
    output logic                   s_axi_wready,
    output logic [ID_W-1:0]        s_axi_bid,
    output logic [1:0]             s_axi_bresp,
    output logic                   s_axi_bvalid,
    input  wire logic              s_axi_bready
);

  localparam int OFF_W = $clog2(STRB_W);
  localparam int WORDS = 1 << (MEM_AW - OFF_W);

  logic [DATA_W-1:0] mem [WORDS];
  longint unsigned   now;

  initial begin
    for (int w = 0; w < WORDS; w++) begin
      for (int b = 0; b < STRB_W; b++) begin
        int unsigned a;
        a = w * STRB_W + b;
        mem[w][8*b +: 8] = a[7:0] ^ a[15:8];
      end
    end
  end

  // Request queues are circular arrays with counters (plain signals, cheap to probe
  // from cocotb: dbg_* below).
  localparam int QN = MAX_REQ;
  localparam int QW = $clog2(QN);
  if ((1 << QW) != QN) begin : g_chk_q
    $error("tb_host_axi_mem: MAX_REQ must be a power of two");
  end

  longint unsigned   rq_due [QN];
  logic [ADDR_W-1:0] rq_addr [QN], wq_addr [QN];
  int                rq_beats [QN], wq_beats [QN];
  logic [ID_W-1:0]   rq_id [QN], wq_id [QN], bq_id [QN];
  longint unsigned   bq_due [QN];
  logic [QW-1:0]     rq_wp, rq_rp, wq_wp, wq_rp, bq_wp, bq_rp;
  int                rq_n, wq_n, bq_n;
  int                r_beat, w_beat;

  // debug: read requests accepted / read bursts finished, and the queue depth
  logic [31:0] dbg_ar_cnt, dbg_rl_cnt, dbg_rq_size, dbg_rbeat, dbg_head_beats;
  logic [63:0] dbg_now, dbg_head_due;
  assign dbg_rq_size    = 32'(rq_n);
  assign dbg_rbeat      = 32'(r_beat);
  assign dbg_head_beats = 32'(rq_beats[rq_rp]);
  assign dbg_now        = 64'(now);
  assign dbg_head_due   = 64'(rq_due[rq_rp]);

  assign s_axi_arready = rq_n < QN;
  assign s_axi_awready = wq_n < QN;
  assign s_axi_wready  = wq_n > 0;
  assign s_axi_rresp   = 2'b00;
  assign s_axi_bresp   = 2'b00;

  function automatic int word_of(logic [ADDR_W-1:0] a, int beat);
    return int'((a >> OFF_W) + ADDR_W'(beat)) & (WORDS - 1);
  endfunction

  logic ar_fire, r_pop, aw_fire, w_pop, b_push, b_pop;
  assign ar_fire = s_axi_arvalid && s_axi_arready;
  assign aw_fire = s_axi_awvalid && s_axi_awready;
  assign r_pop   = (!s_axi_rvalid || s_axi_rready) && rq_n > 0 && rq_due[rq_rp] <= now &&
                   r_beat == rq_beats[rq_rp] - 1;
  assign w_pop   = s_axi_wvalid && s_axi_wready && w_beat == wq_beats[wq_rp] - 1;
  assign b_push  = w_pop;
  assign b_pop   = (!s_axi_bvalid || s_axi_bready) && bq_n > 0 && bq_due[bq_rp] <= now;

  always_ff @(posedge clk) begin
    if (rst) begin
      now          <= 0;
      dbg_ar_cnt   <= '0;
      dbg_rl_cnt   <= '0;
      s_axi_rvalid <= 1'b0;
      s_axi_bvalid <= 1'b0;
      r_beat       <= 0;
      w_beat       <= 0;
      rq_wp <= '0; rq_rp <= '0; rq_n <= 0;
      wq_wp <= '0; wq_rp <= '0; wq_n <= 0;
      bq_wp <= '0; bq_rp <= '0; bq_n <= 0;
    end else begin
      now <= now + 1;
      if (s_axi_rvalid && s_axi_rready && s_axi_rlast) dbg_rl_cnt <= dbg_rl_cnt + 1;
      if (ar_fire) begin
        dbg_ar_cnt      <= dbg_ar_cnt + 1;
        rq_due[rq_wp]   <= now + longint'(latency);
        rq_addr[rq_wp]  <= s_axi_araddr;
        rq_beats[rq_wp] <= int'(s_axi_arlen) + 1;
        rq_id[rq_wp]    <= s_axi_arid;
        rq_wp           <= rq_wp + 1'b1;
      end
      rq_n <= rq_n + int'(ar_fire) - int'(r_pop);
      if (aw_fire) begin
        wq_addr[wq_wp]  <= s_axi_awaddr;
        wq_beats[wq_wp] <= int'(s_axi_awlen) + 1;
        wq_id[wq_wp]    <= s_axi_awid;
        wq_wp           <= wq_wp + 1'b1;
      end
      wq_n <= wq_n + int'(aw_fire) - int'(w_pop);
      // read data: bursts back to back, in order
      if (!s_axi_rvalid || s_axi_rready) begin
        if (rq_n > 0 && rq_due[rq_rp] <= now) begin
          s_axi_rvalid <= 1'b1;
          s_axi_rdata  <= mem[word_of(rq_addr[rq_rp], r_beat)];
          s_axi_rid    <= rq_id[rq_rp];
          s_axi_rlast  <= r_beat == rq_beats[rq_rp] - 1;
          if (r_beat == rq_beats[rq_rp] - 1) begin
            r_beat <= 0;
            rq_rp  <= rq_rp + 1'b1;
          end else begin
            r_beat <= r_beat + 1;
          end
        end else begin
          s_axi_rvalid <= 1'b0;
        end
      end
      // write data
      if (s_axi_wvalid && s_axi_wready) begin
        for (int b = 0; b < STRB_W; b++) begin
          if (s_axi_wstrb[b]) mem[word_of(wq_addr[wq_rp], w_beat)][8*b +: 8] <= s_axi_wdata[8*b +: 8];
        end
        if (w_pop) begin
          w_beat <= 0;
          wq_rp  <= wq_rp + 1'b1;
          bq_due[bq_wp] <= now + longint'(latency);
          bq_id[bq_wp]  <= wq_id[wq_rp];
          bq_wp         <= bq_wp + 1'b1;
        end else begin
          w_beat <= w_beat + 1;
        end
      end
      bq_n <= bq_n + int'(b_push) - int'(b_pop);
      // write response
      if (!s_axi_bvalid || s_axi_bready) begin
        if (bq_n > 0 && bq_due[bq_rp] <= now) begin
          s_axi_bvalid <= 1'b1;
          s_axi_bid    <= bq_id[bq_rp];
          bq_rp        <= bq_rp + 1'b1;
        end else begin
          s_axi_bvalid <= 1'b0;
        end
      end
    end
  end

endmodule

`resetall
