// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_resp_out: output stage of the responder (fabnic_roce_resp) for its ACK /
// NAK jobs and its receive CQEs. A bypass hold register: an offer (s_valid, s_data)
// goes out in its own cycle when the buffer is empty; if the consumer does not take it
// then, the buffer keeps it and offers it until it is taken. The producer offers only
// while s_room is high (a flop: the buffer is empty) and never waits for the consumer,
// so the consumer's ready reaches no logic of the producer (no combinational path from
// m_ready to anything but the hold flop). An offer is always accepted.
//
// Combinational paths (named here, as the project's handshake rule asks): s_valid ->
// m_valid and s_data -> m_data (the bypass; s_valid and s_data come from the
// producer's registers). m_ready drives only the hold flop.
//
// Parameters
//   W   bits of the data word
`default_nettype none

module fabnic_roce_resp_out #(
    parameter int W = 8
) (
    input  wire logic         clk,
    input  wire logic         rst,

    input  wire logic         s_valid,
    input  wire logic [W-1:0] s_data,
    output logic              s_room,

    output logic              m_valid,
    output logic      [W-1:0] m_data,
    input  wire logic         m_ready
);
  logic         hold_q;
  logic [W-1:0] hold_d_q;

  assign s_room  = !hold_q;
  assign m_valid = hold_q || s_valid;
  assign m_data  = hold_q ? hold_d_q : s_data;

  always_ff @(posedge clk) begin
    if (hold_q) begin
      if (m_ready) hold_q <= 1'b0;
    end else if (s_valid && !m_ready) begin
      hold_q   <= 1'b1;
      hold_d_q <= s_data;
    end
    if (rst) hold_q <= 1'b0;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst)
      assert (!s_valid || s_room) else $error("fabnic_roce_resp_out: offer while full");
  end
`endif

endmodule

`resetall
