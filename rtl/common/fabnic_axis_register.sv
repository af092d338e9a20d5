// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_register: AXI-Stream register slice.
//
//   REG_TYPE = 0  bypass: wires, no latency.
//   REG_TYPE = 1  simple: one output register; cuts the forward path
//                 (tdata/tkeep/tlast/tuser/tvalid). s_axis_tready is
//                 combinational (!m_axis_tvalid || m_axis_tready), so the
//                 ready path is not cut. Full throughput, 1 cycle latency.
//   REG_TYPE = 2  skid buffer: output register plus a skid register; every
//                 output including s_axis_tready comes straight from a flop,
//                 so both directions are cut. Full throughput, 1 cycle
//                 latency; when the sink stalls, the beat already in flight
//                 lands in the skid register.
//
// Behaviour when full: back-pressure (s_axis_tready low); no beat is lost.
`default_nettype none

module fabnic_axis_register #(
    parameter int DATA_W   = 64,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int USER_W   = 1,
    parameter int REG_TYPE = 2
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser
);

  localparam int W = DATA_W + KEEP_W + USER_W + 1;

  if (REG_TYPE < 0 || REG_TYPE > 2) begin : g_check_type
    $error("fabnic_axis_register: REG_TYPE must be 0, 1 or 2");
  end

  logic [W-1:0] s_beat, m_beat;
  assign s_beat = {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
  assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = m_beat;

  if (REG_TYPE == 0) begin : g_bypass

    logic unused_clk_rst;
    assign unused_clk_rst = clk ^ rst;

    assign m_beat        = s_beat;
    assign m_axis_tvalid = s_axis_tvalid;
    assign s_axis_tready = m_axis_tready;

  end else if (REG_TYPE == 1) begin : g_simple

    logic [W-1:0] out_q;
    logic         out_valid_q;

    assign s_axis_tready = !out_valid_q || m_axis_tready;

    always_ff @(posedge clk) begin
      if (s_axis_tready) begin
        out_q       <= s_beat;
        out_valid_q <= s_axis_tvalid;
      end
      if (rst) out_valid_q <= 1'b0;
    end

    assign m_beat        = out_q;
    assign m_axis_tvalid = out_valid_q;

  end else begin : g_skid

    logic [W-1:0] out_q, skid_q;
    logic         out_valid_q, skid_valid_q, ready_q;

    // ready_q is high exactly when the skid register is empty
    assign s_axis_tready = ready_q;

    always_ff @(posedge clk) begin
      if (skid_valid_q) begin
        // drain the skid register first when the sink takes the output
        if (m_axis_tready) begin
          out_q        <= skid_q;
          skid_valid_q <= 1'b0;
          ready_q      <= 1'b1;
        end
      end else if (!out_valid_q || m_axis_tready) begin
        // output free (or being taken): the incoming beat goes straight out
        out_q       <= s_beat;
        out_valid_q <= s_axis_tvalid;
      end else if (s_axis_tvalid) begin
        // output stalled and a beat arrives (we were ready): park it
        skid_q       <= s_beat;
        skid_valid_q <= 1'b1;
        ready_q      <= 1'b0;
      end
      if (rst) begin
        out_valid_q  <= 1'b0;
        skid_valid_q <= 1'b0;
        ready_q      <= 1'b1;
      end
    end

    assign m_beat        = out_q;
    assign m_axis_tvalid = out_valid_q;

  end

endmodule

`resetall
