// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_axil_player (testbench only): replays a recorded register script on an
// AXI-Lite port at simulator speed, so that setting up thousands of QPs does not cost a
// Python round trip per register access (tb/fabnic_tb/axil_script.py records the script
// from the fw/ driver and loads it into `mem` through the backdoor).
//
// Script entry (64 bits):
//   [63:62] op: 1 = WRITE  data[31:0] to addr[55:32]
//               2 = POLL   read addr until (rdata & data[15:0]) == 0, then fail if
//                          (rdata & data[31:16]) != 0   (a command engine's busy/refused bits)
//   [55:32] address, [31:0] data (WRITE) or {fail mask, busy mask} (POLL)
// `start` (one cycle) runs entries 0 .. count-1; `busy` is high meanwhile. `errors`
// counts error responses and failed polls of the last run; `err_index` is the first
// failing entry.
// A POLL that stays busy for POLL_MAX reads counts an error and moves on.
// While `busy` is low the s_* port passes through to m_* (the cocotb master).
`default_nettype none

module fabnic_tb_axil_player #(
    parameter int AW       = 24,
    parameter int DEPTH    = 65536,
    parameter int POLL_MAX = 100000
) (
    input  wire logic          clk,
    input  wire logic          rst,
    input  wire logic          start,
    input  wire logic [31:0]   count,
    output logic               busy,
    output logic [31:0]        errors,
    output logic [31:0]        err_index,
    output logic [31:0]        done_entries,

    // from the cocotb master (used while idle)
    input  wire logic [AW-1:0] s_awaddr,
    input  wire logic [2:0]    s_awprot,
    input  wire logic          s_awvalid,
    output logic               s_awready,
    input  wire logic [31:0]   s_wdata,
    input  wire logic [3:0]    s_wstrb,
    input  wire logic          s_wvalid,
    output logic               s_wready,
    output logic [1:0]         s_bresp,
    output logic               s_bvalid,
    input  wire logic          s_bready,
    input  wire logic [AW-1:0] s_araddr,
    input  wire logic [2:0]    s_arprot,
    input  wire logic          s_arvalid,
    output logic               s_arready,
    output logic [31:0]        s_rdata,
    output logic [1:0]         s_rresp,
    output logic               s_rvalid,
    input  wire logic          s_rready,

    // to the NIC
    output logic [AW-1:0]      m_awaddr,
    output logic [2:0]         m_awprot,
    output logic               m_awvalid,
    input  wire logic          m_awready,
    output logic [31:0]        m_wdata,
    output logic [3:0]         m_wstrb,
    output logic               m_wvalid,
    input  wire logic          m_wready,
    input  wire logic [1:0]    m_bresp,
    input  wire logic          m_bvalid,
    output logic               m_bready,
    output logic [AW-1:0]      m_araddr,
    output logic [2:0]         m_arprot,
    output logic               m_arvalid,
    input  wire logic          m_arready,
    input  wire logic [31:0]   m_rdata,
    input  wire logic [1:0]    m_rresp,
    input  wire logic          m_rvalid,
    output logic               m_rready
);
  logic [63:0] mem [DEPTH];

  typedef enum logic [2:0] {P_IDLE, P_FETCH, P_WRITE, P_RESP, P_RADDR, P_RDATA} st_e;
  st_e         st;
  logic [31:0] idx, polls;
  logic [63:0] e;
  logic        aw_done, w_done;

  assign busy = st != P_IDLE;

  // pass-through while idle
  always_comb begin
    m_awaddr  = busy ? e[32 +: AW] : s_awaddr;
    m_awprot  = busy ? 3'd0 : s_awprot;
    m_awvalid = busy ? (st == P_WRITE && !aw_done) : s_awvalid;
    m_wdata   = busy ? e[31:0] : s_wdata;
    m_wstrb   = busy ? 4'hF : s_wstrb;
    m_wvalid  = busy ? (st == P_WRITE && !w_done) : s_wvalid;
    m_bready  = busy ? (st == P_RESP) : s_bready;
    m_araddr  = busy ? e[32 +: AW] : s_araddr;
    m_arprot  = busy ? 3'd0 : s_arprot;
    m_arvalid = busy ? (st == P_RADDR) : s_arvalid;
    m_rready  = busy ? (st == P_RDATA) : s_rready;
    s_awready = !busy && m_awready;
    s_wready  = !busy && m_wready;
    s_bresp   = m_bresp;
    s_bvalid  = !busy && m_bvalid;
    s_arready = !busy && m_arready;
    s_rdata   = m_rdata;
    s_rresp   = m_rresp;
    s_rvalid  = !busy && m_rvalid;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      st <= P_IDLE;
      idx <= '0;
      errors <= '0;
      err_index <= '0;
      done_entries <= '0;
      aw_done <= 1'b0;
      w_done <= 1'b0;
      polls <= '0;
    end else begin
      case (st)
        P_IDLE: if (start) begin
          idx <= '0;
          done_entries <= '0;
          errors <= '0;
          err_index <= '0;
          st <= (count == 0) ? P_IDLE : P_FETCH;
        end
        P_FETCH: begin
          e <= mem[idx];
          aw_done <= 1'b0;
          w_done <= 1'b0;
          polls <= '0;
          st <= (mem[idx][63:62] == 2'd2) ? P_RADDR : P_WRITE;
        end
        P_WRITE: begin
          if (m_awvalid && m_awready) aw_done <= 1'b1;
          if (m_wvalid && m_wready) w_done <= 1'b1;
          if ((aw_done || m_awready) && (w_done || m_wready)) st <= P_RESP;
        end
        P_RESP: if (m_bvalid) begin
          if (m_bresp != 2'b00) begin
            if (errors == 0) err_index <= idx;
            errors <= errors + 1;
          end
          st <= P_FETCH;
          idx <= idx + 1;
          done_entries <= idx + 1;
          if (idx + 1 == count) st <= P_IDLE;
        end
        P_RADDR: if (m_arready) st <= P_RDATA;
        P_RDATA: if (m_rvalid) begin
          if (m_rresp == 2'b00 && (m_rdata[15:0] & e[15:0]) != 0 && polls + 1 < POLL_MAX) begin
            polls <= polls + 1;
            st <= P_RADDR;
          end else begin
            if (m_rresp != 2'b00 || (m_rdata[15:0] & e[15:0]) != 0
                || (m_rdata[31:16] & e[31:16]) != 0) begin
              if (errors == 0) err_index <= idx;
              errors <= errors + 1;
            end
            st <= P_FETCH;
            idx <= idx + 1;
            done_entries <= idx + 1;
            if (idx + 1 == count) st <= P_IDLE;
          end
        end
        default: st <= P_IDLE;
      endcase
    end
  end
endmodule

`resetall
