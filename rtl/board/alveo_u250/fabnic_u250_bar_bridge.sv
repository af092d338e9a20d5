// SPDX-License-Identifier: Apache-2.0
//
// fabnic_u250_bar_bridge: the host's register window. An AXI4 slave (the XDMA's
// PCIe-to-AXI master bridge, M_AXI_B, DATA_W wide) turned into the NIC's 32-bit
// AXI4-Lite slave port plus a small read-only block of board registers.
//
// Address map (AXI address = offset in PCIe BAR0, the XDMA translation is 0):
//   0 .. 2^NIC_ADDR_W-1                              fabnic_nic's AXI-Lite window
//   2^NIC_ADDR_W .. 2^NIC_ADDR_W + 4*BRD_REGS - 1     board registers (read-only)
//   anything else                                    SLVERR
//
// The host does 32-bit MMIO: every access is a single beat (AxLEN = 0) of at most
// 4 bytes (AxSIZE <= 2) with the strobes inside the 32-bit lane that the address
// selects. Such an access becomes one AXI-Lite transaction; the read word is
// returned in every 32-bit lane of RDATA. Anything else (a burst, a 64-bit access, a
// write with strobes outside the addressed lane, a write to the board registers) is
// answered SLVERR without touching a register: all its W beats are consumed and a
// read burst gets AxLEN+1 SLVERR beats with RLAST on the last, so the bus never hangs.
//
// One write and one read are handled at a time (two independent FSMs; AWREADY /
// ARREADY are low while one is in progress): host MMIO is not a throughput path.
// No input reaches an output combinationally: every output is a flop or a function of
// flops only (registered handshakes).
//
// Parameters:
//   DATA_W      AXI4 data width, a power of two >= 32
//   ID_W        AXI4 ID width, >= 1
//   ADDR_W      AXI4 address width, > NIC_ADDR_W
//   NIC_ADDR_W  AXI-Lite address width of the NIC window (25 for fabnic_nic)
//   BRD_REGS    board registers, a power of two >= 2
`default_nettype none

module fabnic_u250_bar_bridge #(
    parameter int DATA_W     = 512,
    parameter int ID_W       = 4,
    parameter int ADDR_W     = 64,
    parameter int NIC_ADDR_W = 25,
    parameter int BRD_REGS   = 16,
    parameter int STRB_W     = DATA_W / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // AXI4 slave (from the XDMA master bridge)
    input  wire logic [ID_W-1:0]       s_axi_awid,
    input  wire logic [ADDR_W-1:0]     s_axi_awaddr,
    input  wire logic [7:0]            s_axi_awlen,
    input  wire logic [2:0]            s_axi_awsize,
    input  wire logic                  s_axi_awvalid,
    output logic                       s_axi_awready,
    input  wire logic [DATA_W-1:0]     s_axi_wdata,
    input  wire logic [STRB_W-1:0]     s_axi_wstrb,
    input  wire logic                  s_axi_wlast,
    input  wire logic                  s_axi_wvalid,
    output logic                       s_axi_wready,
    output logic      [ID_W-1:0]       s_axi_bid,
    output logic      [1:0]            s_axi_bresp,
    output logic                       s_axi_bvalid,
    input  wire logic                  s_axi_bready,
    input  wire logic [ID_W-1:0]       s_axi_arid,
    input  wire logic [ADDR_W-1:0]     s_axi_araddr,
    input  wire logic [7:0]            s_axi_arlen,
    input  wire logic [2:0]            s_axi_arsize,
    input  wire logic                  s_axi_arvalid,
    output logic                       s_axi_arready,
    output logic      [ID_W-1:0]       s_axi_rid,
    output logic      [DATA_W-1:0]     s_axi_rdata,
    output logic      [1:0]            s_axi_rresp,
    output logic                       s_axi_rlast,
    output logic                       s_axi_rvalid,
    input  wire logic                  s_axi_rready,

    // AXI4-Lite master (to fabnic_nic s_axil_*)
    output logic      [NIC_ADDR_W-1:0] m_axil_awaddr,
    output logic      [2:0]            m_axil_awprot,
    output logic                       m_axil_awvalid,
    input  wire logic                  m_axil_awready,
    output logic      [31:0]           m_axil_wdata,
    output logic      [3:0]            m_axil_wstrb,
    output logic                       m_axil_wvalid,
    input  wire logic                  m_axil_wready,
    input  wire logic [1:0]            m_axil_bresp,
    input  wire logic                  m_axil_bvalid,
    output logic                       m_axil_bready,
    output logic      [NIC_ADDR_W-1:0] m_axil_araddr,
    output logic      [2:0]            m_axil_arprot,
    output logic                       m_axil_arvalid,
    input  wire logic                  m_axil_arready,
    input  wire logic [31:0]           m_axil_rdata,
    input  wire logic [1:0]            m_axil_rresp,
    input  wire logic                  m_axil_rvalid,
    output logic                       m_axil_rready,

    // board registers (clk domain), read at 2^NIC_ADDR_W + 4*i
    input  wire logic [31:0]           brd_regs [BRD_REGS]
);

  localparam int LANES = DATA_W / 32;
  localparam int LW    = (LANES > 1) ? $clog2(LANES) : 1;
  localparam int RW    = $clog2(BRD_REGS);
  localparam logic [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10;

  if (DATA_W < 32 || (1 << $clog2(DATA_W)) != DATA_W || ID_W < 1 || ADDR_W <= NIC_ADDR_W
      || NIC_ADDR_W < RW + 3 || BRD_REGS < 2 || (1 << RW) != BRD_REGS) begin : g_chk
    $error("fabnic_u250_bar_bridge: DATA_W a power of two >= 32, ID_W >= 1, ADDR_W > NIC_ADDR_W, BRD_REGS a power of two >= 2");
  end

  // ---------------------------------------------------------------- address decode
  // called with the address bits they look at: [ADDR_W-1:NIC_ADDR_W], [ADDR_W-1:RW+2]
  function automatic logic in_nic(input logic [ADDR_W-1:NIC_ADDR_W] hi);
    return hi == '0;
  endfunction
  function automatic logic in_brd(input logic [ADDR_W-1:RW+2] a);
    return a[ADDR_W-1:NIC_ADDR_W] == (ADDR_W-NIC_ADDR_W)'(1) && a[NIC_ADDR_W-1:RW+2] == '0;
  endfunction
  function automatic logic [LW-1:0] lane_of(input logic [ADDR_W-1:0] a);
    return (LANES > 1) ? LW'(a >> 2) : '0;
  endfunction

  assign m_axil_awprot = 3'b000;
  assign m_axil_arprot = 3'b000;

  // ---------------------------------------------------------------- write FSM
  typedef enum logic [1:0] {W_ADDR, W_DATA, W_LITE, W_RESP} wstate_e;
  wstate_e           ws_q;
  logic [ID_W-1:0]   w_id_q;
  logic [NIC_ADDR_W-1:2] w_addr_q; // the NIC register word address
  logic              w_single_q;   // AWLEN = 0 and AWSIZE <= 2
  logic              w_first_q;    // the next W beat is the first of the burst
  logic              w_nic_q;      // the address is in the NIC window (decided at AW)
  logic [LW-1:0]     w_lane_q;     // the 32-bit lane the address selects (decided at AW)
  logic              aw_pend_q, wl_pend_q;
  logic [1:0]        bresp_q;

  // the current W beat, seen against the captured address
  logic [LW-1:0] w_lane;
  logic [3:0]    w_lane_strb;
  logic          w_beat_ok;
  assign w_lane      = w_lane_q;
  assign w_lane_strb = s_axi_wstrb[4*w_lane +: 4];
  // the first beat of a single-beat NIC access, no strobe outside the addressed lane
  assign w_beat_ok   = w_first_q && w_single_q && w_nic_q
                       && s_axi_wstrb == (STRB_W'(w_lane_strb) << (4 * w_lane));

  assign s_axi_awready  = ws_q == W_ADDR;
  assign s_axi_wready   = ws_q == W_DATA;
  assign s_axi_bvalid   = ws_q == W_RESP;
  assign s_axi_bid      = w_id_q;
  assign s_axi_bresp    = bresp_q;
  assign m_axil_awvalid = aw_pend_q;
  assign m_axil_wvalid  = wl_pend_q;
  assign m_axil_bready  = ws_q == W_LITE && !aw_pend_q && !wl_pend_q;
  assign m_axil_awaddr  = {w_addr_q, 2'b00};

  always_ff @(posedge clk) begin
    unique case (ws_q)
      W_ADDR: if (s_axi_awvalid) begin
        w_id_q     <= s_axi_awid;
        w_addr_q   <= s_axi_awaddr[NIC_ADDR_W-1:2];
        w_single_q <= s_axi_awlen == 8'd0 && s_axi_awsize <= 3'd2;
        w_nic_q    <= in_nic(s_axi_awaddr[ADDR_W-1:NIC_ADDR_W]);
        w_lane_q   <= lane_of(s_axi_awaddr);
        w_first_q  <= 1'b1;
        ws_q       <= W_DATA;
      end
      W_DATA: if (s_axi_wvalid) begin
        // consume every beat up to WLAST; only a lone valid beat becomes a write
        w_first_q    <= 1'b0;
        m_axil_wdata <= s_axi_wdata[32*w_lane +: 32];
        m_axil_wstrb <= w_lane_strb;
        if (s_axi_wlast) begin
          if (w_beat_ok) begin
            aw_pend_q <= 1'b1;
            wl_pend_q <= 1'b1;
            ws_q      <= W_LITE;
          end else begin
            bresp_q <= RESP_SLVERR;
            ws_q    <= W_RESP;
          end
        end
      end
      W_LITE: begin
        if (m_axil_awready) aw_pend_q <= 1'b0;
        if (m_axil_wready)  wl_pend_q <= 1'b0;
        if (m_axil_bvalid && m_axil_bready) begin
          bresp_q <= m_axil_bresp;
          ws_q    <= W_RESP;
        end
      end
      W_RESP: if (s_axi_bready) ws_q <= W_ADDR;
      default: ws_q <= W_ADDR;
    endcase
    if (rst) begin
      ws_q      <= W_ADDR;
      aw_pend_q <= 1'b0;
      wl_pend_q <= 1'b0;
      bresp_q   <= RESP_OKAY;
    end
  end

  // ---------------------------------------------------------------- read FSM
  typedef enum logic [1:0] {R_ADDR, R_LITE, R_DATA} rstate_e;
  rstate_e           rs_q;
  logic [ID_W-1:0]   r_id_q;
  logic [7:0]        r_len_q, r_beat_q;
  logic              ar_pend_q;
  logic [31:0]       rdata_q;
  logic [1:0]        rresp_q;
  logic [NIC_ADDR_W-1:0] r_addr_q;

  assign s_axi_arready  = rs_q == R_ADDR;
  assign s_axi_rvalid   = rs_q == R_DATA;
  assign s_axi_rid      = r_id_q;
  assign s_axi_rdata    = {LANES{rdata_q}};
  assign s_axi_rresp    = rresp_q;
  assign s_axi_rlast    = r_beat_q == r_len_q;
  assign m_axil_arvalid = ar_pend_q;
  assign m_axil_araddr  = r_addr_q;
  assign m_axil_rready  = rs_q == R_LITE && !ar_pend_q;

  always_ff @(posedge clk) begin
    unique case (rs_q)
      R_ADDR: if (s_axi_arvalid) begin
        logic single;
        single   = s_axi_arlen == 8'd0 && s_axi_arsize <= 3'd2;
        r_id_q   <= s_axi_arid;
        r_len_q  <= s_axi_arlen;
        r_beat_q <= 8'd0;
        r_addr_q <= {s_axi_araddr[NIC_ADDR_W-1:2], 2'b00};
        if (single && in_nic(s_axi_araddr[ADDR_W-1:NIC_ADDR_W])) begin
          ar_pend_q <= 1'b1;
          rs_q      <= R_LITE;
        end else if (single && in_brd(s_axi_araddr[ADDR_W-1:RW+2])) begin
          rdata_q <= brd_regs[RW'(s_axi_araddr >> 2)];
          rresp_q <= RESP_OKAY;
          rs_q    <= R_DATA;
        end else begin
          rdata_q <= '0;
          rresp_q <= RESP_SLVERR;
          rs_q    <= R_DATA;
        end
      end
      R_LITE: begin
        if (m_axil_arready) ar_pend_q <= 1'b0;
        if (m_axil_rvalid && m_axil_rready) begin
          rdata_q <= m_axil_rdata;
          rresp_q <= m_axil_rresp;
          rs_q    <= R_DATA;
        end
      end
      R_DATA: if (s_axi_rready) begin
        if (s_axi_rlast) rs_q <= R_ADDR;
        else r_beat_q <= r_beat_q + 1'b1;
      end
      default: rs_q <= R_ADDR;
    endcase
    if (rst) begin
      rs_q      <= R_ADDR;
      ar_pend_q <= 1'b0;
      rresp_q   <= RESP_OKAY;
    end
  end

endmodule

`resetall
