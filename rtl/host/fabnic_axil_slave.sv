// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axil_slave: AXI4-Lite slave (32-bit data) to a simple register
// request bus.
//
// AW, W and AR are each captured in a one-entry holding register, so AW and W
// may arrive in any order or in the same cycle, and the next address can be
// accepted while the previous transaction is still being answered. One
// request is outstanding on the register bus at a time; when a complete write
// (AW+W) and a read are both waiting they are served alternately.
//
// Register bus: req_valid is a one-cycle pulse carrying req_write, req_addr
// (the full AXI byte address), req_wdata, req_wstrb. The target answers with
// exactly one ack_valid pulse in the same cycle or any later cycle, with
// ack_rdata (reads) and ack_err (1 = unmapped/refused -> SLVERR). If
// TIMEOUT > 0 and no ack came within TIMEOUT cycles, the transaction ends with
// SLVERR (rdata 0) and status_timeout pulses; a target must not ack after that.
`default_nettype none

module fabnic_axil_slave #(
    parameter int ADDR_W  = 16,
    parameter int TIMEOUT = 256   // cycles to wait for ack; 0 = wait forever
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]        s_axil_awprot,
    input  wire logic              s_axil_awvalid,
    output logic                   s_axil_awready,
    input  wire logic [31:0]       s_axil_wdata,
    input  wire logic [3:0]        s_axil_wstrb,
    input  wire logic              s_axil_wvalid,
    output logic                   s_axil_wready,
    output logic [1:0]             s_axil_bresp,
    output logic                   s_axil_bvalid,
    input  wire logic              s_axil_bready,
    input  wire logic [ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]        s_axil_arprot,
    input  wire logic              s_axil_arvalid,
    output logic                   s_axil_arready,
    output logic [31:0]            s_axil_rdata,
    output logic [1:0]             s_axil_rresp,
    output logic                   s_axil_rvalid,
    input  wire logic              s_axil_rready,

    output logic                   req_valid,
    output logic                   req_write,
    output logic [ADDR_W-1:0]      req_addr,
    output logic [31:0]            req_wdata,
    output logic [3:0]             req_wstrb,
    input  wire logic              ack_valid,
    input  wire logic [31:0]       ack_rdata,
    input  wire logic              ack_err,

    output logic                   status_timeout
);

  localparam int TO_W = (TIMEOUT > 1) ? $clog2(TIMEOUT + 1) : 1;

  typedef enum logic [1:0] {S_IDLE, S_WAIT, S_RESP} state_e;

  state_e            state_q;
  logic              aw_held_q, w_held_q, ar_held_q, last_write_q;
  logic [ADDR_W-1:0] aw_addr_q, ar_addr_q;
  logic [31:0]       w_data_q;
  logic [3:0]        w_strb_q;
  logic [TO_W-1:0]   timer_q;

  logic wr_pend, rd_pend, pick_write, start, timeout;

  assign s_axil_awready = !aw_held_q;
  assign s_axil_wready  = !w_held_q;
  assign s_axil_arready = !ar_held_q;

  assign wr_pend    = aw_held_q && w_held_q;
  assign rd_pend    = ar_held_q;
  assign pick_write = wr_pend && (!rd_pend || !last_write_q);
  assign start      = (state_q == S_IDLE) && (wr_pend || rd_pend);
  assign timeout    = (TIMEOUT > 0) && (state_q == S_WAIT) && !ack_valid
                      && (timer_q == TO_W'(TIMEOUT));

  always_ff @(posedge clk) begin
    req_valid      <= 1'b0;
    status_timeout <= 1'b0;

    if (s_axil_awvalid && s_axil_awready) begin
      aw_held_q <= 1'b1;
      aw_addr_q <= s_axil_awaddr;
    end
    if (s_axil_wvalid && s_axil_wready) begin
      w_held_q <= 1'b1;
      w_data_q <= s_axil_wdata;
      w_strb_q <= s_axil_wstrb;
    end
    if (s_axil_arvalid && s_axil_arready) begin
      ar_held_q <= 1'b1;
      ar_addr_q <= s_axil_araddr;
    end

    case (state_q)
      S_IDLE: begin
        if (start) begin
          state_q      <= S_WAIT;
          req_valid    <= 1'b1;
          req_write    <= pick_write;
          req_addr     <= pick_write ? aw_addr_q : ar_addr_q;
          req_wdata    <= w_data_q;
          req_wstrb    <= pick_write ? w_strb_q : 4'b0000;
          last_write_q <= pick_write;
          timer_q      <= '0;
          if (pick_write) begin
            aw_held_q <= 1'b0;
            w_held_q  <= 1'b0;
          end else begin
            ar_held_q <= 1'b0;
          end
        end
      end
      S_WAIT: begin
        timer_q <= timer_q + 1'b1;
        if (ack_valid || timeout) begin
          state_q        <= S_RESP;
          status_timeout <= timeout;
          if (req_write) begin
            s_axil_bvalid <= 1'b1;
            s_axil_bresp  <= (ack_err || timeout) ? 2'b10 : 2'b00;
          end else begin
            s_axil_rvalid <= 1'b1;
            s_axil_rresp  <= (ack_err || timeout) ? 2'b10 : 2'b00;
            s_axil_rdata  <= timeout ? 32'h0 : ack_rdata;
          end
        end
      end
      default: begin  // S_RESP
        if (s_axil_bvalid && s_axil_bready) begin
          s_axil_bvalid <= 1'b0;
          state_q       <= S_IDLE;
        end
        if (s_axil_rvalid && s_axil_rready) begin
          s_axil_rvalid <= 1'b0;
          state_q       <= S_IDLE;
        end
      end
    endcase

    if (rst) begin
      state_q        <= S_IDLE;
      aw_held_q      <= 1'b0;
      w_held_q       <= 1'b0;
      ar_held_q      <= 1'b0;
      last_write_q   <= 1'b0;
      req_valid      <= 1'b0;
      s_axil_bvalid  <= 1'b0;
      s_axil_rvalid  <= 1'b0;
      status_timeout <= 1'b0;
    end
  end

  logic unused_ok;
  assign unused_ok = ^{s_axil_awprot, s_axil_arprot, 1'b0};

endmodule

`resetall
