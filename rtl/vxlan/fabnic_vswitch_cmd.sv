// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vswitch_cmd: register mailbox -> vSwitch table command port (docs/vxlan.md).
//
// A one-cycle start pulse (go, with go_op/go_table) latches the key, slot and value
// registers into a command; the command is offered on cmd_* until accepted, the
// response is captured (rsp_ready is always 1) into rsp_status_q/rsp_value_q.
// busy is high from the start pulse to the response; done is high after a response
// until the next start. A start pulse while busy is ignored and sets overrun (cleared
// by the next accepted start). No timeout: the table always answers.
`default_nettype none

module fabnic_vswitch_cmd #(
    parameter int VAL_W = 367
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic              go,
    input  wire logic [1:0]        go_op,
    input  wire logic [1:0]        go_table,
    input  wire logic [47:0]       key_mac,
    input  wire logic [23:0]       key_vni,
    input  wire logic [15:0]       index,
    input  wire logic [VAL_W-1:0]  value,

    output logic                   busy,
    output logic                   done,
    output logic                   overrun,
    output logic [1:0]             rsp_status_q,
    output logic [VAL_W-1:0]       rsp_value_q,

    output logic                   cmd_valid,
    input  wire logic              cmd_ready,
    output logic [1:0]             cmd_op,
    output logic [1:0]             cmd_table,
    output logic [71:0]            cmd_key,
    output logic [15:0]            cmd_index,
    output logic [VAL_W-1:0]       cmd_value,
    input  wire logic              rsp_valid,
    output logic                   rsp_ready,
    input  wire logic [1:0]        rsp_status,
    input  wire logic [VAL_W-1:0]  rsp_value
);

  assign rsp_ready = 1'b1;

  always_ff @(posedge clk) begin
    if (go) begin
      if (busy) begin
        overrun <= 1'b1;
      end else begin
        busy      <= 1'b1;
        done      <= 1'b0;
        overrun   <= 1'b0;
        cmd_valid <= 1'b1;
        cmd_op    <= go_op;
        cmd_table <= go_table;
        cmd_key   <= {key_vni, key_mac};
        cmd_index <= index;
        cmd_value <= value;
      end
    end
    if (cmd_valid && cmd_ready) cmd_valid <= 1'b0;
    if (busy && rsp_valid) begin
      busy         <= 1'b0;
      done         <= 1'b1;
      rsp_status_q <= rsp_status;
      rsp_value_q  <= rsp_value;
    end
    if (rst) begin
      busy         <= 1'b0;
      done         <= 1'b0;
      overrun      <= 1'b0;
      cmd_valid    <= 1'b0;
      rsp_status_q <= '0;
      rsp_value_q  <= '0;
    end
  end

endmodule

`resetall
