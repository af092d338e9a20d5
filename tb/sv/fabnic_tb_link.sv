// SPDX-License-Identifier: Apache-2.0
//
// fabnic_tb_link (testbench only): one direction of a cable with fault injection.
//
// s_axis -> [rate pacer] -> [store: ring of beats] -> [delay line] -> m_axis
//
// * Serialization: beats are taken at `rate` bytes/cycle (16.16 fixed point) plus
//   `ovh` bytes per frame (fabnic_tb_net_pacer, with one beat of slack: the wire stays
//   busy from one frame's short last beat into the next frame); the sender sees
//   back-pressure.
// * A frame is decided on when its last beat is taken (cycle t) and becomes
//   available at the far end at cycle t + delay (+1 register); it is then sent
//   out at full AXIS speed. The ring holds the bits in flight (delay * rate) plus
//   one frame; when it (or the descriptor FIFO) is full the link back-pressures
//   (a receiver that stalls the link is not something a cable does).
// * Faults, decided per frame from stateless seeded draws
//   (fabnic_tb_net_pkg::rnd32(seed, frame_index, k)), first matching drop wins:
//   link_down, drop list, Gilbert-Elliott, Bernoulli. Surviving frames may be
//   duplicated (sent twice back to back), held back and released after the next
//   frame (or after hold_timeout cycles), or get one bit flipped past byte 14.
//   Frame index = count of frames entering the link since reset, from 0.
`default_nettype none

module fabnic_tb_link #(
    parameter int DATA_W     = 512,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int BUF_BYTES  = 131072,   // ring size (power of two beats)
    parameter int DESC_DEPTH = 1024,     // frames in flight (power of two)
    parameter int DELAY_MAX  = 65535,    // delay input is clamped to this
    parameter int DROP_LIST  = 8,        // entries of the explicit drop list
    // pacer: bytes the wire may have pending beyond one cycle's worth (fabnic_tb_net_pacer
    // SLACK): one beat, a MAC's FIFO, so back-to-back frames keep the wire busy
    parameter int PACE_SLACK = KEEP_W
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic [0:0]             s_axis_tuser,

    output logic [DATA_W-1:0]           m_axis_tdata,
    output logic [KEEP_W-1:0]           m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic [0:0]                  m_axis_tuser,

    // configuration (may change at run time; sampled per frame)
    input  wire logic [31:0]            rate,          // bytes/cycle 16.16, 0 = unlimited
    input  wire logic [15:0]            ovh,           // per-frame wire overhead bytes
    input  wire logic [31:0]            delay,         // propagation delay, cycles
    input  wire logic [63:0]            seed,
    input  wire logic                   link_down,     // drop every frame
    input  wire logic                   loss_en,
    input  wire logic [31:0]            loss_p,        // Bernoulli loss, p * 2^32
    input  wire logic                   ge_en,
    input  wire logic [31:0]            ge_p_gb,       // P(good -> bad) per frame
    input  wire logic [31:0]            ge_p_bg,       // P(bad -> good) per frame
    input  wire logic [31:0]            ge_loss,       // loss probability in bad state
    input  wire logic                   dup_en,
    input  wire logic [31:0]            dup_p,
    input  wire logic                   reorder_en,
    input  wire logic [31:0]            reorder_p,
    input  wire logic [31:0]            hold_timeout,  // 0 = wait for the next frame
    input  wire logic                   biterr_en,
    input  wire logic [31:0]            biterr_p,
    input  wire logic [DROP_LIST-1:0]   drop_list_en,
    input  wire logic [32*DROP_LIST-1:0] drop_list,    // frame indices to drop

    output logic [31:0]                 cnt_frames_in,
    output logic [63:0]                 cnt_bytes_in,
    output logic [31:0]                 cnt_frames_out,  // including duplicates
    output logic [63:0]                 cnt_bytes_out,
    output logic [31:0]                 cnt_drop_down,
    output logic [31:0]                 cnt_drop_list,
    output logic [31:0]                 cnt_drop_ge,
    output logic [31:0]                 cnt_drop_loss,
    output logic [31:0]                 cnt_drop_oversize,
    output logic [31:0]                 cnt_dup,
    output logic [31:0]                 cnt_reorder,
    output logic [31:0]                 cnt_biterr,
    output logic [31:0]                 cnt_ge_bad,      // frames that saw the bad state
    output logic                        ge_bad           // current Gilbert-Elliott state
);

  localparam int RING  = BUF_BYTES / KEEP_W;
  localparam int AW    = $clog2(RING);
  localparam int DW    = $clog2(DESC_DEPTH);
  localparam int MAXFB = RING / 2;  // longest frame stored, in beats

  if ((1 << AW) != RING || RING < 4) begin : g_bad_ring
    $error("fabnic_tb_link: BUF_BYTES/KEEP_W must be a power of two >= 4");
  end
  if ((1 << DW) != DESC_DEPTH) begin : g_bad_desc
    $error("fabnic_tb_link: DESC_DEPTH must be a power of two");
  end

  logic [63:0] cycle;

  // ---------------------------------------------------------------- storage
  logic [DATA_W-1:0] mem [RING];

  logic [31:0] d_addr    [DESC_DEPTH];
  logic [15:0] d_nbeats  [DESC_DEPTH];
  logic [15:0] d_len     [DESC_DEPTH];
  logic        d_user    [DESC_DEPTH];
  logic [63:0] d_ready   [DESC_DEPTH];
  logic        d_dup     [DESC_DEPTH];
  logic        d_hold    [DESC_DEPTH];
  logic        d_flip    [DESC_DEPTH];
  logic [31:0] d_flippos [DESC_DEPTH];
  logic [31:0] d_wr, d_rd;

  logic [31:0] wr_ptr, fstart, tail;  // beat counters (index = low AW bits)

  // ---------------------------------------------------------------- input side
  logic        pace_ok, in_take, in_first, in_ovs;
  logic [15:0] in_bytes, in_beats, in_len;
  logic [31:0] frame_idx;

  assign in_take  = s_axis_tvalid && s_axis_tready;
  assign in_bytes = 16'($countones(s_axis_tkeep));

  always_comb begin
    s_axis_tready = pace_ok && (wr_ptr - tail < 32'(RING - 1)) &&
                    (d_wr - d_rd < 32'(DESC_DEPTH - 1));
  end

  fabnic_tb_net_pacer #(.SLACK(PACE_SLACK)) pacer (
    .clk, .rst, .rate, .ovh, .take(in_take), .take_first(in_first),
    .take_bytes(in_bytes), .ok(pace_ok)
  );

  // per-frame fault decision (combinational on the last beat)
  logic [15:0] f_len;
  logic        f_in_list, f_ge_next, f_ge_drop, f_loss, f_drop, f_dup, f_hold, f_flip;
  logic [31:0] f_flippos, f_span, f_delay;

  always_comb begin
    f_len = in_len + in_bytes;
    f_in_list = 1'b0;
    for (int i = 0; i < DROP_LIST; i++) begin
      if (drop_list_en[i] && drop_list[32*i +: 32] == frame_idx) f_in_list = 1'b1;
    end
    f_ge_next = ge_bad;
    if (ge_en) begin
      if (ge_bad) f_ge_next = !(fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd1) < ge_p_bg);
      else f_ge_next = fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd1) < ge_p_gb;
    end
    f_ge_drop = ge_en && f_ge_next && (fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd2) < ge_loss);
    f_loss = loss_en && (fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd0) < loss_p);
    f_drop = link_down || f_in_list || f_ge_drop || f_loss || in_ovs;
    f_dup  = dup_en && (fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd3) < dup_p);
    f_hold = reorder_en && (fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd4) < reorder_p);
    f_flip = biterr_en && f_len > 16'd14 &&
             (fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd5) < biterr_p);
    f_span = {13'd0, f_len, 3'd0} - 32'd112;
    f_flippos = 32'd112;
    if (f_len > 16'd14) f_flippos = 32'd112 + (fabnic_tb_net_pkg::rnd32(seed, frame_idx, 3'd6) % f_span);
    f_delay = delay > 32'(DELAY_MAX) ? 32'(DELAY_MAX) : delay;
  end

  // ---------------------------------------------------------------- output side
  logic        o_active, o_is_held;
  logic [31:0] o_addr, o_flippos;
  logic [15:0] o_nbeats, o_len, o_beat;
  logic        o_user, o_flip, o_again;

  logic        h_valid, h_user, h_flip, h_dup, b_done;
  logic [31:0] h_addr, h_flippos, b_end;
  logic [15:0] h_nbeats, h_len;
  logic [63:0] h_since;

  logic [DW-1:0] hd;
  logic          head_ok, h_release, o_take, o_last, o_done, o_free;

  assign hd        = d_rd[DW-1:0];
  assign head_ok   = (d_rd != d_wr) && (cycle >= d_ready[hd]);
  assign o_take    = m_axis_tvalid && m_axis_tready;
  assign o_last    = o_beat == o_nbeats - 16'd1;
  assign o_done    = o_take && o_last && !o_again;
  assign o_free    = !o_active || o_done;
  // the held frame goes out right after the frame that follows it (or on timeout)
  assign h_release = h_valid && (b_done || (o_done && !o_is_held) ||
                                 (hold_timeout != 0 && cycle - h_since >= 64'(hold_timeout)));

  always_comb begin
    logic [31:0] rem;
    logic [31:0] rel;
    m_axis_tvalid = o_active;
    m_axis_tlast  = o_last;
    m_axis_tuser  = o_user && o_last;
    m_axis_tdata  = mem[AW'(o_addr + 32'(o_beat))];
    rel = o_flippos - 32'(o_beat) * 32'(DATA_W);
    if (o_flip && o_flippos >= 32'(o_beat) * 32'(DATA_W) && rel < 32'(DATA_W)) begin
      m_axis_tdata[rel[$clog2(DATA_W)-1:0]] = !m_axis_tdata[rel[$clog2(DATA_W)-1:0]];
    end
    rem = 32'(o_len) - 32'(o_beat) * 32'(KEEP_W);
    m_axis_tkeep = rem >= 32'(KEEP_W) ? '1 : ~({KEEP_W{1'b1}} << rem);
  end

  // ---------------------------------------------------------------- sequential
  always_ff @(posedge clk) begin
    cycle <= cycle + 64'd1;

    // input
    if (in_take) begin
      cnt_bytes_in <= cnt_bytes_in + 64'(in_bytes);
      in_first <= s_axis_tlast;
      if (!in_ovs) mem[AW'(wr_ptr)] <= s_axis_tdata;
      if (s_axis_tlast) begin
        cnt_frames_in <= cnt_frames_in + 32'd1;
        frame_idx     <= frame_idx + 32'd1;
        in_beats      <= '0;
        in_len        <= '0;
        in_ovs        <= 1'b0;
        if (ge_en) ge_bad <= f_ge_next;
        if (ge_en && f_ge_next) cnt_ge_bad <= cnt_ge_bad + 32'd1;
        if (f_drop) begin
          wr_ptr <= fstart;
          if (link_down) cnt_drop_down <= cnt_drop_down + 32'd1;
          else if (f_in_list) cnt_drop_list <= cnt_drop_list + 32'd1;
          else if (f_ge_drop) cnt_drop_ge <= cnt_drop_ge + 32'd1;
          else if (f_loss) cnt_drop_loss <= cnt_drop_loss + 32'd1;
          else cnt_drop_oversize <= cnt_drop_oversize + 32'd1;
        end else begin
          wr_ptr <= wr_ptr + 32'd1;
          fstart <= wr_ptr + 32'd1;
          d_addr[d_wr[DW-1:0]]    <= fstart;
          d_nbeats[d_wr[DW-1:0]]  <= in_beats + 16'd1;
          d_len[d_wr[DW-1:0]]     <= f_len;
          d_user[d_wr[DW-1:0]]    <= s_axis_tuser[0];
          d_ready[d_wr[DW-1:0]]   <= cycle + 64'(f_delay);
          d_dup[d_wr[DW-1:0]]     <= f_dup;
          d_hold[d_wr[DW-1:0]]    <= f_hold;
          d_flip[d_wr[DW-1:0]]    <= f_flip;
          d_flippos[d_wr[DW-1:0]] <= f_flippos;
          d_wr <= d_wr + 32'd1;
          if (f_dup) cnt_dup <= cnt_dup + 32'd1;
          if (f_flip) cnt_biterr <= cnt_biterr + 32'd1;
        end
      end else begin
        in_len <= in_len + in_bytes;
        if (!in_ovs) begin
          wr_ptr   <= wr_ptr + 32'd1;
          in_beats <= in_beats + 16'd1;
          if (in_beats + 16'd1 >= 16'(MAXFB)) in_ovs <= 1'b1;
        end
      end
    end

    // output: a finishing frame and the start of the next share a cycle
    if (o_take) begin
      cnt_bytes_out <= cnt_bytes_out + 64'($countones(m_axis_tkeep));
      if (o_last) begin
        cnt_frames_out <= cnt_frames_out + 32'd1;
        o_beat <= '0;
        if (o_again) begin
          o_again <= 1'b0;
        end else begin
          o_active <= 1'b0;
          if (o_is_held) tail <= b_done ? b_end : o_addr + 32'(o_nbeats);
          else if (h_valid) begin
            b_done <= 1'b1;
            b_end  <= o_addr + 32'(o_nbeats);
          end else tail <= o_addr + 32'(o_nbeats);
        end
      end else begin
        o_beat <= o_beat + 16'd1;
      end
    end
    if (o_free) begin
      if (h_release) begin
        o_active  <= 1'b1;
        o_is_held <= 1'b1;
        o_addr    <= h_addr;
        o_nbeats  <= h_nbeats;
        o_len     <= h_len;
        o_user    <= h_user;
        o_flip    <= h_flip;
        o_flippos <= h_flippos;
        o_again   <= h_dup;
        o_beat    <= '0;
        h_valid   <= 1'b0;
      end else if (head_ok) begin
        d_rd <= d_rd + 32'd1;
        if (d_hold[hd] && !h_valid) begin
          h_valid   <= 1'b1;
          h_since   <= cycle;
          b_done    <= 1'b0;
          h_addr    <= d_addr[hd];
          h_nbeats  <= d_nbeats[hd];
          h_len     <= d_len[hd];
          h_user    <= d_user[hd];
          h_flip    <= d_flip[hd];
          h_flippos <= d_flippos[hd];
          h_dup     <= d_dup[hd];
          cnt_reorder <= cnt_reorder + 32'd1;
        end else begin
          o_active  <= 1'b1;
          o_is_held <= 1'b0;
          o_addr    <= d_addr[hd];
          o_nbeats  <= d_nbeats[hd];
          o_len     <= d_len[hd];
          o_user    <= d_user[hd];
          o_flip    <= d_flip[hd];
          o_flippos <= d_flippos[hd];
          o_again   <= d_dup[hd];
          o_beat    <= '0;
        end
      end
    end

    if (rst) begin
      cycle <= '0;
      in_first <= 1'b1;
      in_ovs <= 1'b0;
      in_beats <= '0;
      in_len <= '0;
      frame_idx <= '0;
      wr_ptr <= '0;
      fstart <= '0;
      tail <= '0;
      d_wr <= '0;
      d_rd <= '0;
      ge_bad <= 1'b0;
      o_active <= 1'b0;
      o_is_held <= 1'b0;
      o_again <= 1'b0;
      o_beat <= '0;
      o_addr <= '0;
      o_nbeats <= 16'd1;
      o_len <= '0;
      o_user <= 1'b0;
      o_flip <= 1'b0;
      o_flippos <= '0;
      h_valid <= 1'b0;
      b_done <= 1'b0;
      b_end <= '0;
      h_since <= '0;
      cnt_frames_in <= '0;
      cnt_bytes_in <= '0;
      cnt_frames_out <= '0;
      cnt_bytes_out <= '0;
      cnt_drop_down <= '0;
      cnt_drop_list <= '0;
      cnt_drop_ge <= '0;
      cnt_drop_loss <= '0;
      cnt_drop_oversize <= '0;
      cnt_dup <= '0;
      cnt_reorder <= '0;
      cnt_biterr <= '0;
      cnt_ge_bad <= '0;
    end
  end

endmodule

`resetall
