// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vnic_axil_bridge: register request bus (the fabnic_axil_slave side) to an
// AXI4-Lite master, so one AXI-Lite window can be split between local registers and
// a block that has its own AXI-Lite slave (fabnic_vnic_dev -> fabnic_vnic_core).
//
// A req_valid pulse starts one transaction (AW + W, or AR); the answer (B or R)
// gives exactly one ack_valid pulse (combinational from bvalid / rvalid) with
// ack_err = RESP != OKAY and, for reads, the read data. One
// transaction at a time: a req_valid while busy is not allowed by the requester
// protocol (fabnic_axil_slave keeps one request outstanding) and is ignored.
`default_nettype none

module fabnic_vnic_axil_bridge #(
    parameter int ADDR_W = 16
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              req_valid,
    input  wire logic              req_write,
    input  wire logic [ADDR_W-1:0] req_addr,
    input  wire logic [31:0]       req_wdata,
    input  wire logic [3:0]        req_wstrb,
    output logic                   ack_valid,
    output logic [31:0]            ack_rdata,
    output logic                   ack_err,

    output logic [ADDR_W-1:0]      m_axil_awaddr,
    output logic [2:0]             m_axil_awprot,
    output logic                   m_axil_awvalid,
    input  wire logic              m_axil_awready,
    output logic [31:0]            m_axil_wdata,
    output logic [3:0]             m_axil_wstrb,
    output logic                   m_axil_wvalid,
    input  wire logic              m_axil_wready,
    input  wire logic [1:0]        m_axil_bresp,
    input  wire logic              m_axil_bvalid,
    output logic                   m_axil_bready,
    output logic [ADDR_W-1:0]      m_axil_araddr,
    output logic [2:0]             m_axil_arprot,
    output logic                   m_axil_arvalid,
    input  wire logic              m_axil_arready,
    input  wire logic [31:0]       m_axil_rdata,
    input  wire logic [1:0]        m_axil_rresp,
    input  wire logic              m_axil_rvalid,
    output logic                   m_axil_rready
);

  logic              busy_q, write_q, aw_q, w_q, ar_q;
  logic [ADDR_W-1:0] addr_q;
  logic [31:0]       wdata_q;
  logic [3:0]        wstrb_q;
  logic              done;

  assign m_axil_awaddr  = addr_q;
  assign m_axil_awprot  = 3'b000;
  assign m_axil_awvalid = aw_q;
  assign m_axil_wdata   = wdata_q;
  assign m_axil_wstrb   = wstrb_q;
  assign m_axil_wvalid  = w_q;
  assign m_axil_araddr  = addr_q;
  assign m_axil_arprot  = 3'b000;
  assign m_axil_arvalid = ar_q;
  // responses are taken only for the transaction in flight
  assign m_axil_bready  = busy_q && write_q && !aw_q && !w_q;
  assign m_axil_rready  = busy_q && !write_q && !ar_q;

  assign done      = (m_axil_bvalid && m_axil_bready) || (m_axil_rvalid && m_axil_rready);
  assign ack_valid = done;
  assign ack_rdata = write_q ? 32'd0 : m_axil_rdata;
  assign ack_err   = write_q ? (m_axil_bresp != 2'b00) : (m_axil_rresp != 2'b00);

  always_ff @(posedge clk) begin
    if (m_axil_awready) aw_q <= 1'b0;
    if (m_axil_wready)  w_q  <= 1'b0;
    if (m_axil_arready) ar_q <= 1'b0;
    if (done) busy_q <= 1'b0;
    if (req_valid && !busy_q) begin
      busy_q  <= 1'b1;
      write_q <= req_write;
      addr_q  <= req_addr;
      wdata_q <= req_wdata;
      wstrb_q <= req_wstrb;
      aw_q    <= req_write;
      w_q     <= req_write;
      ar_q    <= !req_write;
    end
    if (rst) begin
      busy_q  <= 1'b0;
      write_q <= 1'b0;
      aw_q    <= 1'b0;
      w_q     <= 1'b0;
      ar_q    <= 1'b0;
      addr_q  <= '0;
      wdata_q <= '0;
      wstrb_q <= '0;
    end
  end

endmodule

`resetall
