// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_wire_inject: merges third-party frames (s_inj) into a link's output wire
// (s_link) in front of a receiver (testbench only, for hostile-frame and other-traffic
// tests).
//
// Frame-granular: the link goes first; an injected frame starts only in a cycle the
// link offers no beat, and a frame once started finishes from the same source. An idle
// injector leaves the link's timing unchanged. tuser of injected beats is 0 (good
// frames). Combinational valid/ready paths in both directions (a wire, not a stage).
//
// Parameters
//   DATA_W  bytes per beat x 8 (tkeep is DATA_W / 8)
`default_nettype none

module fabnic_tb_wire_inject #(
    parameter int DATA_W = 512
) (
    input  wire logic                clk,
    input  wire logic                rst,
    input  wire logic [DATA_W-1:0]   s_link_tdata,
    input  wire logic [DATA_W/8-1:0] s_link_tkeep,
    input  wire logic                s_link_tvalid,
    output logic                     s_link_tready,
    input  wire logic                s_link_tlast,
    input  wire logic                s_link_tuser,
    input  wire logic [DATA_W-1:0]   s_inj_tdata,
    input  wire logic [DATA_W/8-1:0] s_inj_tkeep,
    input  wire logic                s_inj_tvalid,
    output logic                     s_inj_tready,
    input  wire logic                s_inj_tlast,
    output logic      [DATA_W-1:0]   m_tdata,
    output logic      [DATA_W/8-1:0] m_tkeep,
    output logic                     m_tvalid,
    input  wire logic                m_tready,
    output logic                     m_tlast,
    output logic                     m_tuser
);

  logic sel, sel_q, mid_q;
  assign sel           = mid_q ? sel_q : (!s_link_tvalid && s_inj_tvalid);
  assign m_tdata       = sel ? s_inj_tdata  : s_link_tdata;
  assign m_tkeep       = sel ? s_inj_tkeep  : s_link_tkeep;
  assign m_tvalid      = sel ? s_inj_tvalid : s_link_tvalid;
  assign m_tlast       = sel ? s_inj_tlast  : s_link_tlast;
  assign m_tuser       = sel ? 1'b0         : s_link_tuser;
  assign s_link_tready = !sel && m_tready;
  assign s_inj_tready  = sel && m_tready;
  always_ff @(posedge clk) begin
    if (m_tvalid && m_tready) begin
      mid_q <= !m_tlast;
      sel_q <= sel;
    end
    if (rst) begin
      mid_q <= 1'b0;
      sel_q <= 1'b0;
    end
  end

endmodule

`resetall
