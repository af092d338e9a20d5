// SPDX-License-Identifier: Apache-2.0
//
// tb_host_dma_bench: DMA throughput bench (testbench only). fabnic_dma_rd and
// fabnic_dma_wr on tb_host_axi_mem with a fixed latency; an RTL descriptor
// generator, write-data generator and read-data sink/checker, so Python only
// sets the run up and reads the cycle counter.
//
// On `start` (one cycle): `count` descriptors of `xfer_len` bytes at
// addresses i * stride (mode 0 = read, 1 = write) are issued back to back;
// `cycles` counts from start until the last completion; `done` then rises.
// The read sink checks every byte against the memory's initial pattern and
// the stream length; rd_errors counts mismatching beats.
`default_nettype none

module tb_host_dma_bench #(
    parameter int AXI_DATA_W      = 512,
    parameter int MAX_BURST_LEN   = 64,
    parameter int MAX_OUTSTANDING = 16,
    parameter int DESC_DEPTH      = 16,
    parameter int MEM_AW          = 20
) (
    input  wire logic        clk,
    input  wire logic        rst,
    input  wire logic        start,
    input  wire logic        mode,
    input  wire logic [31:0] xfer_len,
    input  wire logic [31:0] stride,
    input  wire logic [31:0] count,
    input  wire logic [15:0] latency,
    output logic             done,
    output logic [31:0]      cycles,
    output logic [31:0]      rd_errors,
    output logic [31:0]      cpl_errors
);

  localparam int B      = AXI_DATA_W / 8;
  localparam int OFF_W  = $clog2(B);
  localparam int ADDR_W = 64;
  localparam int ID_W   = 4;
  localparam int TAG_W  = 8;

  // AXI wires
  logic [ID_W-1:0] arid, rid, awid, bid;
  logic [ADDR_W-1:0] araddr, awaddr;
  logic [7:0] arlen, awlen;
  logic [2:0] arsize, awsize, arprot, awprot;
  logic [1:0] arburst, awburst, rresp, bresp;
  logic [3:0] arcache, awcache;
  logic arlock, awlock, arvalid, arready, rlast, rvalid, rready;
  logic awvalid, awready, wlast, wvalid, wready, bvalid, bready;
  logic [AXI_DATA_W-1:0] rdata, wdata;
  logic [B-1:0] wstrb;

  // engine ports
  logic [ADDR_W-1:0] desc_addr;
  logic rd_desc_valid, rd_desc_ready, wr_desc_valid, wr_desc_ready;
  logic [TAG_W-1:0] rd_cpl_tag, wr_cpl_tag;
  logic [1:0] rd_cpl_status, wr_cpl_status;
  logic rd_cpl_valid, wr_cpl_valid;
  logic [AXI_DATA_W-1:0] rd_tdata, wr_tdata;
  logic [B-1:0] rd_tkeep, wr_tkeep;
  logic rd_tvalid, rd_tlast, wr_tvalid, wr_tready, wr_tlast;
  logic [TAG_W-1:0] rd_tid;
  logic [0:0] rd_tuser;
  logic [$clog2(MAX_OUTSTANDING+1)-1:0] rd_os, wr_os;
  logic wr_mism;

  // ---------------------------------------------------------------- control
  logic        running;
  logic [31:0] n_desc, n_cpl, n_strm, strm_beat;
  logic [31:0] s_beats;
  logic [B-1:0] last_keep;

  assign s_beats   = (xfer_len + 32'(B - 1)) >> OFF_W;
  logic [OFF_W-1:0] last_lane;
  assign last_lane = xfer_len[OFF_W-1:0] - 1'b1;
  assign last_keep = {B{1'b1}} >> (B - 1 - int'(last_lane));
  assign desc_addr = ADDR_W'(n_desc * stride);
  assign rd_desc_valid = running && !mode && n_desc < count;
  assign wr_desc_valid = running && mode && n_desc < count;

  assign wr_tvalid = running && mode && n_strm < count;
  assign wr_tlast  = strm_beat == s_beats - 1;
  assign wr_tkeep  = wr_tlast ? last_keep : {B{1'b1}};
  always_comb begin
    for (int i = 0; i < B / 4; i++) wr_tdata[32*i +: 32] = n_strm ^ (strm_beat << 8) ^ 32'(i);
  end

  // read checker: expected byte at address a is a[7:0]^a[15:8]
  logic [31:0] rd_beat, rd_frame;
  logic [AXI_DATA_W-1:0] exp_data;
  always_comb begin
    for (int i = 0; i < B; i++) begin
      logic [31:0] a;
      a = rd_frame * stride + rd_beat * B + 32'(i);
      exp_data[8*i +: 8] = a[7:0] ^ a[15:8];
    end
  end

  always_ff @(posedge clk) begin
    if (start) begin
      running   <= 1'b1;
      done      <= 1'b0;
      cycles    <= 0;
      n_desc    <= 0;
      n_cpl     <= 0;
      n_strm    <= 0;
      strm_beat <= 0;
      rd_beat   <= 0;
      rd_frame  <= 0;
      rd_errors <= 0;
      cpl_errors <= 0;
    end else if (running) begin
      cycles <= cycles + 1;
      if ((rd_desc_valid && rd_desc_ready) || (wr_desc_valid && wr_desc_ready)) n_desc <= n_desc + 1;
      if (wr_tvalid && wr_tready) begin
        if (wr_tlast) begin
          strm_beat <= 0;
          n_strm    <= n_strm + 1;
        end else begin
          strm_beat <= strm_beat + 1;
        end
      end
      if (rd_tvalid) begin
        if (((rd_tdata ^ exp_data) & keep_bits(rd_tkeep)) != '0
            || rd_tlast != (rd_beat == s_beats - 1)
            || rd_tkeep != (rd_tlast ? last_keep : {B{1'b1}})) begin
          rd_errors <= rd_errors + 1;
          if (rd_errors == 0) $display("rd mismatch frame %0d beat %0d: got %h exp %h keep %h last %b",
                                       rd_frame, rd_beat, rd_tdata, exp_data, rd_tkeep, rd_tlast);
        end
        if (rd_tlast) begin
          rd_beat  <= 0;
          rd_frame <= rd_frame + 1;
        end else begin
          rd_beat <= rd_beat + 1;
        end
      end
      if (rd_cpl_valid || wr_cpl_valid) begin
        n_cpl <= n_cpl + 1;
        if ((rd_cpl_valid && rd_cpl_status != 0) || (wr_cpl_valid && wr_cpl_status != 0)) begin
          cpl_errors <= cpl_errors + 1;
        end
        if (n_cpl + 1 == count) begin
          running <= 1'b0;
          done    <= 1'b1;
          cycles  <= cycles + 1;
        end
      end
    end
    if (rst) begin
      running <= 1'b0;
      done    <= 1'b0;
      cycles  <= 0;
    end
  end

  function automatic logic [AXI_DATA_W-1:0] keep_bits(input logic [B-1:0] k);
    for (int i = 0; i < B; i++) keep_bits[8*i +: 8] = {8{k[i]}};
  endfunction

  // ---------------------------------------------------------------- DUTs
  fabnic_dma_rd #(
      .AXI_DATA_W(AXI_DATA_W), .ADDR_W(ADDR_W), .ID_W(ID_W), .TAG_W(TAG_W),
      .MAX_BURST_LEN(MAX_BURST_LEN), .MAX_OUTSTANDING(MAX_OUTSTANDING), .DESC_DEPTH(DESC_DEPTH)
  ) u_rd (
      .clk, .rst,
      .s_desc_addr(desc_addr), .s_desc_len(xfer_len), .s_desc_tag(n_desc[TAG_W-1:0]),
      .s_desc_valid(rd_desc_valid), .s_desc_ready(rd_desc_ready),
      .m_cpl_tag(rd_cpl_tag), .m_cpl_status(rd_cpl_status), .m_cpl_valid(rd_cpl_valid),
      .m_cpl_ready(1'b1),
      .m_axis_tdata(rd_tdata), .m_axis_tkeep(rd_tkeep), .m_axis_tvalid(rd_tvalid),
      .m_axis_tready(1'b1), .m_axis_tlast(rd_tlast), .m_axis_tid(rd_tid), .m_axis_tuser(rd_tuser),
      .m_axi_arid(arid), .m_axi_araddr(araddr), .m_axi_arlen(arlen), .m_axi_arsize(arsize),
      .m_axi_arburst(arburst), .m_axi_arlock(arlock), .m_axi_arcache(arcache),
      .m_axi_arprot(arprot), .m_axi_arvalid(arvalid), .m_axi_arready(arready),
      .m_axi_rid(rid), .m_axi_rdata(rdata), .m_axi_rresp(rresp), .m_axi_rlast(rlast),
      .m_axi_rvalid(rvalid), .m_axi_rready(rready),
      .status_outstanding(rd_os));

  fabnic_dma_wr #(
      .AXI_DATA_W(AXI_DATA_W), .ADDR_W(ADDR_W), .ID_W(ID_W), .TAG_W(TAG_W),
      .MAX_BURST_LEN(MAX_BURST_LEN), .MAX_OUTSTANDING(MAX_OUTSTANDING), .DESC_DEPTH(DESC_DEPTH)
  ) u_wr (
      .clk, .rst,
      .s_desc_addr(desc_addr), .s_desc_len(xfer_len), .s_desc_tag(n_desc[TAG_W-1:0]),
      .s_desc_valid(wr_desc_valid), .s_desc_ready(wr_desc_ready),
      .m_cpl_tag(wr_cpl_tag), .m_cpl_status(wr_cpl_status), .m_cpl_valid(wr_cpl_valid),
      .m_cpl_ready(1'b1),
      .s_axis_tdata(wr_tdata), .s_axis_tkeep(wr_tkeep), .s_axis_tvalid(wr_tvalid),
      .s_axis_tready(wr_tready), .s_axis_tlast(wr_tlast),
      .m_axi_awid(awid), .m_axi_awaddr(awaddr), .m_axi_awlen(awlen), .m_axi_awsize(awsize),
      .m_axi_awburst(awburst), .m_axi_awlock(awlock), .m_axi_awcache(awcache),
      .m_axi_awprot(awprot), .m_axi_awvalid(awvalid), .m_axi_awready(awready),
      .m_axi_wdata(wdata), .m_axi_wstrb(wstrb), .m_axi_wlast(wlast), .m_axi_wvalid(wvalid),
      .m_axi_wready(wready), .m_axi_bid(bid), .m_axi_bresp(bresp), .m_axi_bvalid(bvalid),
      .m_axi_bready(bready),
      .status_outstanding(wr_os), .status_len_mismatch(wr_mism));

  tb_host_axi_mem #(.DATA_W(AXI_DATA_W), .ADDR_W(ADDR_W), .ID_W(ID_W), .MEM_AW(MEM_AW)) u_mem (
      .clk, .rst, .latency,
      .s_axi_arid(arid), .s_axi_araddr(araddr), .s_axi_arlen(arlen), .s_axi_arvalid(arvalid),
      .s_axi_arready(arready), .s_axi_rid(rid), .s_axi_rdata(rdata), .s_axi_rresp(rresp),
      .s_axi_rlast(rlast), .s_axi_rvalid(rvalid), .s_axi_rready(rready),
      .s_axi_awid(awid), .s_axi_awaddr(awaddr), .s_axi_awlen(awlen), .s_axi_awvalid(awvalid),
      .s_axi_awready(awready), .s_axi_wdata(wdata), .s_axi_wstrb(wstrb), .s_axi_wlast(wlast),
      .s_axi_wvalid(wvalid), .s_axi_wready(wready), .s_axi_bid(bid), .s_axi_bresp(bresp),
      .s_axi_bvalid(bvalid), .s_axi_bready(bready));

endmodule

`resetall
