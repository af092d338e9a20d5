// SPDX-License-Identifier: Apache-2.0
//
// tb_host_axi_mem: testbench-only AXI4 slave memory with a fixed latency
// (simulation constructs: queues, initial). Used by the DMA benchmark, where
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

  typedef struct {
    longint unsigned  due;
    logic [ADDR_W-1:0] addr;
    int               beats;
    logic [ID_W-1:0]  id;
  } req_t;

  req_t rq[$];
  req_t wq[$];
  req_t bq[$];
  int   r_beat, w_beat;

  assign s_axi_arready = rq.size() < MAX_REQ;
  assign s_axi_awready = wq.size() < MAX_REQ;
  assign s_axi_wready  = wq.size() > 0;
  assign s_axi_rresp   = 2'b00;
  assign s_axi_bresp   = 2'b00;

  function automatic int word_of(logic [ADDR_W-1:0] a, int beat);
    return int'((a >> OFF_W) + ADDR_W'(beat)) & (WORDS - 1);
  endfunction

  always_ff @(posedge clk) begin
    if (rst) begin
      now          <= 0;
      s_axi_rvalid <= 1'b0;
      s_axi_bvalid <= 1'b0;
      r_beat       <= 0;
      w_beat       <= 0;
      rq.delete();
      wq.delete();
      bq.delete();
    end else begin
      now <= now + 1;
      if (s_axi_arvalid && s_axi_arready) begin
        rq.push_back('{now + longint'(latency), s_axi_araddr, int'(s_axi_arlen) + 1, s_axi_arid});
      end
      if (s_axi_awvalid && s_axi_awready) begin
        wq.push_back('{0, s_axi_awaddr, int'(s_axi_awlen) + 1, s_axi_awid});
      end
      // read data
      if (!s_axi_rvalid || s_axi_rready) begin
        if (rq.size() > 0 && rq[0].due <= now) begin
          s_axi_rvalid <= 1'b1;
          s_axi_rdata  <= mem[word_of(rq[0].addr, r_beat)];
          s_axi_rid    <= rq[0].id;
          s_axi_rlast  <= r_beat == rq[0].beats - 1;
          if (r_beat == rq[0].beats - 1) begin
            r_beat <= 0;
            void'(rq.pop_front());
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
          if (s_axi_wstrb[b]) mem[word_of(wq[0].addr, w_beat)][8*b +: 8] <= s_axi_wdata[8*b +: 8];
        end
        if (w_beat == wq[0].beats - 1) begin
          w_beat <= 0;
          bq.push_back('{now + longint'(latency), wq[0].addr, 0, wq[0].id});
          void'(wq.pop_front());
        end else begin
          w_beat <= w_beat + 1;
        end
      end
      // write response
      if (!s_axi_bvalid || s_axi_bready) begin
        if (bq.size() > 0 && bq[0].due <= now) begin
          s_axi_bvalid <= 1'b1;
          s_axi_bid    <= bq[0].id;
          void'(bq.pop_front());
        end else begin
          s_axi_bvalid <= 1'b0;
        end
      end
    end
  end

endmodule

`resetall
