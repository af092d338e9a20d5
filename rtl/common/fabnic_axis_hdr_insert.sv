// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_hdr_insert: prepends a header to every frame of an AXI-Stream.
//
// s_hdr_tdata is the header in network order (first wire byte = most significant
// byte); s_hdr_len says how many of its leading bytes are used (1..HDR_BYTES; tie it
// to HDR_BYTES for a fixed header). One header is taken per frame, together with or
// before the frame's first payload beat. The output is header bytes then payload
// bytes, packed from lane 0. A payload frame of one beat with tkeep=0 gives a frame
// that is just the header. tuser[0] of the payload's last beat goes to the output's
// last beat.
// Throughput: one output beat per cycle (an output frame has ceil((hdr+payload)/KEEP_W)
// beats). Latency: one cycle (registered output). Back-pressure only.
`default_nettype none

module fabnic_axis_hdr_insert #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int HDR_BYTES = 14,
    parameter int HLEN_W    = $clog2(HDR_BYTES + 1)
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [HDR_BYTES*8-1:0] s_hdr_tdata,
    input  wire logic [HLEN_W-1:0]      s_hdr_len,
    input  wire logic                   s_hdr_tvalid,
    output logic                        s_hdr_tready,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic                   s_axis_tuser,

    output logic      [DATA_W-1:0]      m_axis_tdata,
    output logic      [KEEP_W-1:0]      m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic                        m_axis_tuser
);

  localparam int RB    = (HDR_BYTES > KEEP_W ? HDR_BYTES : KEEP_W) + KEEP_W;  // bytes
  localparam int RC_W  = $clog2(RB + 1);

  function automatic logic [KEEP_W-1:0] keep_of(input logic [RC_W-1:0] n);
    logic [KEEP_W-1:0] k;
    for (int i = 0; i < KEEP_W; i++) k[i] = RC_W'(i) < n;
    return k;
  endfunction

  logic              busy_q, flush_q, flush_user_q;
  logic [RB*8-1:0]   r_q;       // pending bytes, lane 0 first
  logic [RC_W-1:0]   rc_q;

  logic              out_valid_q, out_last_q, out_user_q;
  logic [DATA_W-1:0] out_data_q;
  logic [KEEP_W-1:0] out_keep_q;

  logic              out_load, first, active;
  logic [RB*8-1:0]   r, hdr_lane, beat, comb;
  logic [RC_W-1:0]   rc, n, total;

  always_comb begin
    hdr_lane = '0;
    for (int i = 0; i < HDR_BYTES; i++) begin
      if (RC_W'(i) < RC_W'(s_hdr_len)) hdr_lane[8*i +: 8] = s_hdr_tdata[8*(HDR_BYTES-1-i) +: 8];
    end
    out_load = !out_valid_q || m_axis_tready;
    first    = !busy_q;
    active   = busy_q || s_hdr_tvalid;
    r        = first ? hdr_lane : r_q;
    rc       = first ? RC_W'(s_hdr_len) : rc_q;
    n = '0;
    for (int i = 0; i < KEEP_W; i++) n = n + RC_W'(s_axis_tkeep[i]);
    beat = '0;
    for (int i = 0; i < KEEP_W; i++) beat[8*i +: 8] = s_axis_tkeep[i] ? s_axis_tdata[8*i +: 8] : 8'h00;
    comb  = r | (beat << (8 * rc));
    total = rc + n;
  end

  assign s_hdr_tready  = first && out_load;
  assign s_axis_tready = out_load && active && !flush_q && rc < RC_W'(KEEP_W);

  logic s_fire;
  assign s_fire = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk) begin
    if (out_load) out_valid_q <= 1'b0;
    if (out_load && active) begin
      if (first && s_hdr_tvalid) begin
        busy_q <= 1'b1;
        r_q    <= r;
        rc_q   <= rc;
      end
      if (flush_q) begin
        out_valid_q <= 1'b1;
        out_data_q  <= r_q[DATA_W-1:0];
        out_keep_q  <= keep_of(rc_q);
        out_last_q  <= 1'b1;
        out_user_q  <= flush_user_q;
        flush_q     <= 1'b0;
        busy_q      <= 1'b0;
      end else if (rc >= RC_W'(KEEP_W)) begin
        // a beat made only of header bytes
        out_valid_q <= 1'b1;
        out_data_q  <= r[DATA_W-1:0];
        out_keep_q  <= '1;
        out_last_q  <= 1'b0;
        out_user_q  <= 1'b0;
        r_q         <= r >> DATA_W;
        rc_q        <= rc - RC_W'(KEEP_W);
      end else if (s_fire) begin
        out_data_q <= comb[DATA_W-1:0];
        if (total >= RC_W'(KEEP_W)) begin
          r_q  <= comb >> DATA_W;
          rc_q <= total - RC_W'(KEEP_W);
        end else begin
          r_q  <= comb;
          rc_q <= total;
        end
        if (s_axis_tlast) begin
          out_valid_q <= 1'b1;
          if (total > RC_W'(KEEP_W)) begin
            out_keep_q   <= '1;
            out_last_q   <= 1'b0;
            out_user_q   <= 1'b0;
            flush_q      <= 1'b1;
            flush_user_q <= s_axis_tuser;
          end else begin
            out_keep_q <= keep_of(total);
            out_last_q <= 1'b1;
            out_user_q <= s_axis_tuser;
            busy_q     <= 1'b0;
          end
        end else if (total >= RC_W'(KEEP_W)) begin
          out_valid_q <= 1'b1;
          out_keep_q  <= '1;
          out_last_q  <= 1'b0;
          out_user_q  <= 1'b0;
        end
      end
    end
    if (rst) begin
      busy_q      <= 1'b0;
      flush_q     <= 1'b0;
      out_valid_q <= 1'b0;
      rc_q        <= '0;
    end
  end

  assign m_axis_tdata  = out_data_q;
  assign m_axis_tkeep  = out_keep_q;
  assign m_axis_tvalid = out_valid_q;
  assign m_axis_tlast  = out_last_q;
  assign m_axis_tuser  = out_user_q;

endmodule

`resetall
