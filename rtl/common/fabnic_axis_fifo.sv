// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_fifo: AXI-Stream FIFO, beat or frame (store-and-forward) mode.
//
// Storage is a simple dual-port RAM with a registered read (infers block RAM
// or distributed RAM) followed by one output register, so a full-rate stream
// passes with two cycles of latency.
//
// Behaviour when full:
//   FRAME_FIFO=0                 back-pressure (s_axis_tready low).
//   FRAME_FIFO=1, DROP_WHEN_FULL=0  back-pressure while the FIFO holds committed
//                                frames; a single frame longer than DEPTH beats
//                                can never fit and is dropped (status_oversize).
//   FRAME_FIFO=1, DROP_WHEN_FULL=1  never back-pressures: the frame being written
//                                when the FIFO fills is dropped (status_overflow).
// DROP_BAD_FRAME=1 (frame mode): a frame whose last beat has tuser[0]=1 is
// discarded (status_bad_frame). Every drop pulses exactly one status output,
// once per frame, so a counter on it counts frames.
`default_nettype none

module fabnic_axis_fifo #(
    parameter int DATA_W         = 64,
    parameter int KEEP_W         = DATA_W / 8,
    parameter int USER_W         = 1,
    parameter int DEPTH          = 512,  // beats, power of two
    parameter bit FRAME_FIFO     = 1'b0,
    parameter bit DROP_BAD_FRAME = 1'b0,
    parameter bit DROP_WHEN_FULL = 1'b0
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
    output logic      [USER_W-1:0] m_axis_tuser,

    output logic [$clog2(DEPTH):0] status_depth,     // beats stored (incl. uncommitted)
    output logic                   status_good_frame, // a frame was committed (frame mode)
    output logic                   status_bad_frame,  // dropped: tuser[0] on last beat
    output logic                   status_overflow,   // dropped: FIFO full (DROP_WHEN_FULL)
    output logic                   status_oversize    // dropped: frame longer than DEPTH
);

  localparam int AW = $clog2(DEPTH);
  localparam int W  = DATA_W + KEEP_W + USER_W + 1;

  if ((1 << AW) != DEPTH) begin : g_check_depth
    $error("fabnic_axis_fifo: DEPTH must be a power of two");
  end
  if ((DROP_BAD_FRAME || DROP_WHEN_FULL) && !FRAME_FIFO) begin : g_check_mode
    $error("fabnic_axis_fifo: DROP_* options need FRAME_FIFO=1");
  end

  logic [W-1:0] mem [DEPTH];

  logic [AW:0] wr_ptr_q;      // committed write pointer (visible to the reader)
  logic [AW:0] wr_cur_q;      // write pointer of the frame being written
  logic [AW:0] rd_ptr_q;
  logic        dropping_q;    // discarding the rest of the current frame

  logic full, full_frame, empty;
  assign full       = (wr_cur_q - rd_ptr_q) == (AW+1)'(DEPTH);
  assign full_frame = (wr_cur_q - wr_ptr_q) == (AW+1)'(DEPTH);
  assign empty      = wr_ptr_q == rd_ptr_q;

  assign s_axis_tready = FRAME_FIFO ? (DROP_WHEN_FULL || !full || full_frame || dropping_q)
                                    : !full;

  logic in_fire;
  assign in_fire = s_axis_tvalid && s_axis_tready;

  // write side
  always_ff @(posedge clk) begin
    status_good_frame <= 1'b0;
    status_bad_frame  <= 1'b0;
    status_overflow   <= 1'b0;
    status_oversize   <= 1'b0;
    if (in_fire) begin
      if (!FRAME_FIFO) begin
        mem[wr_cur_q[AW-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
        wr_cur_q <= wr_cur_q + 1'b1;
        wr_ptr_q <= wr_cur_q + 1'b1;
      end else if (dropping_q) begin
        if (s_axis_tlast) dropping_q <= 1'b0;
      end else if (full_frame) begin
        // this frame alone is longer than the FIFO
        wr_cur_q        <= wr_ptr_q;
        dropping_q      <= !s_axis_tlast;
        status_oversize <= 1'b1;
      end else if (full) begin
        // only reachable with DROP_WHEN_FULL
        wr_cur_q        <= wr_ptr_q;
        dropping_q      <= !s_axis_tlast;
        status_overflow <= 1'b1;
      end else begin
        mem[wr_cur_q[AW-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
        if (s_axis_tlast) begin
          if (DROP_BAD_FRAME && s_axis_tuser[0]) begin
            wr_cur_q         <= wr_ptr_q;
            status_bad_frame <= 1'b1;
          end else begin
            wr_cur_q          <= wr_cur_q + 1'b1;
            wr_ptr_q          <= wr_cur_q + 1'b1;
            status_good_frame <= 1'b1;
          end
        end else begin
          wr_cur_q <= wr_cur_q + 1'b1;
        end
      end
    end
    if (rst) begin
      wr_ptr_q   <= '0;
      wr_cur_q   <= '0;
      dropping_q <= 1'b0;
      status_good_frame <= 1'b0;
      status_bad_frame  <= 1'b0;
      status_overflow   <= 1'b0;
      status_oversize   <= 1'b0;
    end
  end

  // read side: registered RAM read into the output register
  logic         out_valid_q;
  logic [W-1:0] out_q;
  logic         rd_en;
  assign rd_en = !empty && (!out_valid_q || m_axis_tready);

  always_ff @(posedge clk) begin
    if (rd_en) begin
      out_q    <= mem[rd_ptr_q[AW-1:0]];
      rd_ptr_q <= rd_ptr_q + 1'b1;
      out_valid_q <= 1'b1;
    end else if (m_axis_tready) begin
      out_valid_q <= 1'b0;
    end
    if (rst) begin
      rd_ptr_q    <= '0;
      out_valid_q <= 1'b0;
    end
  end

  assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_q;
  assign m_axis_tvalid = out_valid_q;
  assign status_depth  = wr_cur_q - rd_ptr_q;

endmodule

`resetall
