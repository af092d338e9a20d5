// SPDX-License-Identifier: Apache-2.0
//
// fabnic_axis_hdr_insert: prepends a header to every frame of an AXI-Stream.
//
// s_hdr_tdata is the header in network order (first wire byte = most significant
// byte); s_hdr_len says how many of its leading bytes are used (1..HDR_BYTES; tie it
// to HDR_BYTES for a fixed header). One header is taken per frame, together with or
// before the frame's first payload beat, and only after the previous frame's last
// payload beat. The output is header bytes then payload bytes, packed from lane 0. A
// payload frame of one beat with tkeep=0 gives a frame that is just the header (plus
// an empty last beat when the header is a whole number of beats). tuser[0] of the
// payload's last beat goes to the output's last beat. tkeep is contiguous from lane 0
// (partial only on a last beat); output bytes with tkeep=0 are zero.
//
// Structure, h = header length mod KEEP_W (the payload's lane shift):
//   header slots: taken headers (two, or three with HDR_READY_REG=1) wait in lane
//      order with their full-beat counts and h for the act stage (a frame's header
//      waits there while its payload is still in P/D); a queue hands h to stage D.
//   P  capture: the payload beat and its byte count.
//   D  decide: rotation of tdata/tkeep up by the high bits of h; flush decision
//      (last beat with more than KEEP_W-h bytes).
//   A  act: a small FSM (header beats, payload, flush) loads the next frame's header
//      from the slot in the cycle the previous frame ends; payload beats are rotated by
//      the low bits of h and merged with the residual (lanes below h: the header's tail,
//      then the previous payload beat); the beat enters the output skid buffer
//      (fabnic_axis_register REG_TYPE 2).
// Throughput: one output beat per cycle (an output frame has ceil((hdr+payload)/KEEP_W)
// beats, plus the empty beat above) as long as the next frame's header has been taken
// when the previous frame ends; idle cycles otherwise.
// Latency: payload beat to output 3 cycles (P, D, output register); a header taken
// into an idle block leaves 2 cycles later. Back-pressure only.
// Combinational handshake path, by design (a frame's first payload beat may be taken
// together with its header): s_hdr_tvalid -> s_axis_tready. s_hdr_tready and the rest
// of s_axis_tready come from flops; m_axis_tready only reaches flops.
// HDR_READY_REG: 0 = two header slots, a full slot freed in the cycle the act stage
// loads it takes a header in that cycle (s_hdr_tready then depends on the act stage's
// state); 1 = three slots and s_hdr_tready is one LUT of flops (the slot count and the
// capture flags), so s_hdr_tvalid -> s_axis_tready is two LUT levels from flops. Three
// slots cover the most headers that can wait (the frames whose first beat is in D, in
// P, and one taken ahead of its payload), so neither setting idles the output.
`default_nettype none

module fabnic_axis_hdr_insert #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int HDR_BYTES = 14,
    parameter int HLEN_W    = $clog2(HDR_BYTES + 1),
    parameter bit HDR_READY_REG = 1'b0   // 1: three header slots, s_hdr_tready from flops
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

  localparam int S_W  = $clog2(KEEP_W);
  localparam int LO_W = S_W / 2;
  localparam int HI_W = S_W - LO_W;
  localparam int N_W  = S_W + 1;
  localparam int HBM  = (HDR_BYTES + KEEP_W - 1) / KEEP_W;   // header beats (max)
  localparam int HB_W = $clog2(HBM + 1);
  localparam int HQ_W = HBM * DATA_W;

  if (KEEP_W < 4 || (1 << S_W) != KEEP_W || DATA_W != 8 * KEEP_W) begin : g_check_w
    $error("fabnic_axis_hdr_insert: KEEP_W must be a power of two >= 4 and DATA_W = 8*KEEP_W");
  end
  if (HDR_BYTES < 1 || (1 << HLEN_W) <= HDR_BYTES) begin : g_check_hdr
    $error("fabnic_axis_hdr_insert: HDR_BYTES must be >= 1 and fit in HLEN_W bits");
  end

  function automatic logic [N_W-1:0] count_of(input logic [KEEP_W-1:0] k);
    logic [N_W-1:0] c;
    c = {k[KEEP_W-1], {S_W{1'b0}}};
    for (int i = 1; i < KEEP_W; i++) c = c | ({N_W{k[i-1] & !k[i]}} & N_W'(i));
    return c;
  endfunction

  function automatic logic [DATA_W-1:0] bits_of(input logic [KEEP_W-1:0] k);
    logic [DATA_W-1:0] b;
    for (int i = 0; i < KEEP_W; i++) b[8*i +: 8] = {8{k[i]}};
    return b;
  endfunction

  // rotations up: lane L <- lane (L - k) mod KEEP_W
  function automatic logic [DATA_W-1:0] rotl_data(input logic [DATA_W-1:0] x,
                                                  input logic [S_W-1:0] k);
    logic [2*DATA_W-1:0] xx;
    xx = {x, x};
    return xx[DATA_W - 8*int'(k) +: DATA_W];
  endfunction

  function automatic logic [KEEP_W-1:0] rotl_keep(input logic [KEEP_W-1:0] x,
                                                  input logic [S_W-1:0] k);
    logic [2*KEEP_W-1:0] xx;
    xx = {x, x};
    return xx[KEEP_W - int'(k) +: KEEP_W];
  endfunction

  // ---------------------------------------------------------------- header slots
  localparam int LW = (HLEN_W > S_W) ? HLEN_W : S_W + 1;

  logic cin_frame_q;   // capture side: inside a payload frame
  logic hcnt_q;        // a header was taken, its frame's first payload beat not yet

  logic [LW-1:0]          hlen;
  localparam int NS   = HDR_READY_REG ? 3 : 2;     // header slots
  localparam int SI_W = $clog2(NS);

  logic [1:0]             hs_cnt_q;               // headers waiting (0..NS)
  logic [SI_W-1:0]        hs_wr_q, hs_rd_q;       // slot indices, 0..NS-1
  logic [HBM*DATA_W-1:0]  hs_lane_q [NS];         // lane order, zero above the length
  logic [HB_W-1:0]        hs_hb_q   [NS];         // full header beats
  logic [S_W-1:0]         hs_h_q    [NS];         // length mod KEEP_W
  logic [KEEP_W-1:0]      hs_selh_q [NS];         // lanes below h
  logic                   hs_v, hdr_fire, load;
  logic [HBM*DATA_W-1:0]  hdr_lane;

  assign hlen         = LW'(s_hdr_len);
  assign hs_v         = hs_cnt_q != '0;
  // A header is taken between payload frames only (none waiting for its first payload
  // beat, the previous frame's last beat taken) and when a slot is free (or, with two
  // slots, being freed).
  logic hdr_room;
  if (HDR_READY_REG) begin : g_room_reg
    assign hdr_room = hs_cnt_q != 2'(NS);
  end else begin : g_room_load
    assign hdr_room = !hs_cnt_q[1] || load;
  end
  assign s_hdr_tready = hdr_room && !cin_frame_q && !hcnt_q;
  assign hdr_fire     = s_hdr_tvalid && s_hdr_tready;

  always_comb begin
    hdr_lane = '0;
    for (int i = 0; i < HDR_BYTES; i++) begin
      if (LW'(i) < hlen) hdr_lane[8*i +: 8] = s_hdr_tdata[8*(HDR_BYTES-1-i) +: 8];
    end
  end

  always_ff @(posedge clk) begin
    hs_cnt_q <= hs_cnt_q + 2'(hdr_fire) - 2'(load);
    if (load) hs_rd_q <= (hs_rd_q == SI_W'(NS - 1)) ? '0 : hs_rd_q + 1'b1;
    if (hdr_fire) begin
      hs_wr_q            <= (hs_wr_q == SI_W'(NS - 1)) ? '0 : hs_wr_q + 1'b1;
      hs_lane_q[hs_wr_q] <= hdr_lane;
      hs_hb_q[hs_wr_q]   <= HB_W'(hlen >> S_W);
      hs_h_q[hs_wr_q]    <= hlen[S_W-1:0];
      for (int l = 0; l < KEEP_W; l++) hs_selh_q[hs_wr_q][l] <= S_W'(l) < hlen[S_W-1:0];
    end
    if (rst) begin
      hs_cnt_q <= '0;
      hs_wr_q  <= '0;
      hs_rd_q  <= '0;
    end
  end

  // h of every taken header, in order, for stage D (at most three are waiting)
  logic [S_W-1:0] hqm_q [4];
  logic [1:0]     hq_wr_q, hq_rd_q;

  // ---------------------------------------------------------------- P: capture
  logic              go_p, go_d, consume;
  logic              p_v, p_first, p_last, p_user;
  logic [DATA_W-1:0] p_data;
  logic [KEEP_W-1:0] p_keep;
  logic [N_W-1:0]    p_n;
  logic              s_fire;

  // a frame's first beat is taken with its header or after it
  assign s_axis_tready = go_p && (cin_frame_q || hcnt_q || hdr_fire);
  assign s_fire        = s_axis_tvalid && s_axis_tready;

  always_ff @(posedge clk) begin
    if (go_p) begin
      p_v     <= s_fire;
      p_first <= !cin_frame_q;
      p_last  <= s_axis_tlast;
      p_user  <= s_axis_tuser;
      p_data  <= s_axis_tdata;
      p_keep  <= s_axis_tkeep;
      p_n     <= count_of(s_axis_tkeep);
    end
    if (s_fire) cin_frame_q <= !s_axis_tlast;
    if (hdr_fire) hcnt_q <= 1'b1;
    if (s_fire && !cin_frame_q) hcnt_q <= 1'b0;
    if (hdr_fire) begin
      hqm_q[hq_wr_q] <= hlen[S_W-1:0];
      hq_wr_q        <= hq_wr_q + 1'b1;
    end
    if (rst) begin
      p_v         <= 1'b0;
      cin_frame_q <= 1'b0;
      hcnt_q      <= 1'b0;
      hq_wr_q     <= '0;
    end
  end

  // ---------------------------------------------------------------- D: decide
  logic              d_v, d_last, d_user, d_flush;
  logic [DATA_W-1:0] d_data;
  logic [KEEP_W-1:0] d_keep;
  logic [S_W-1:0]    dh_q, h_c, h_hi;

  always_comb begin
    h_c  = p_first ? hqm_q[hq_rd_q] : dh_q;
    h_hi = {h_c[S_W-1:LO_W], {LO_W{1'b0}}};
  end

  always_ff @(posedge clk) begin
    if (go_d) begin
      d_v     <= p_v;
      d_last  <= p_last;
      d_user  <= p_user;
      d_flush <= p_last && (N_W'(p_n) + N_W'(h_c) > N_W'(KEEP_W));
      d_data  <= rotl_data(p_data, h_hi);
      d_keep  <= rotl_keep(p_keep, h_hi);
      if (p_v) dh_q <= h_c;
      if (p_v && p_first) hq_rd_q <= hq_rd_q + 1'b1;
    end
    if (rst) begin
      d_v     <= 1'b0;
      hq_rd_q <= '0;
    end
  end

  // ---------------------------------------------------------------- A: act
  typedef enum logic [1:0] {A_IDLE, A_HDR, A_PAY, A_FLUSH} ast_e;
  ast_e                  st_q, st_d;
  logic [HBM*DATA_W-1:0] hq_q;        // header bytes still to send (lane 0 = next)
  logic [HB_W-1:0]       hbr_q;       // full header beats left
  logic [LO_W-1:0]       hlo_q;       // h mod 2^LO_W (rotation in stage A)
  logic [KEEP_W-1:0]     selh_q;      // lanes below h (from the residual)
  logic                  first_q;     // next payload beat is the frame's first
  logic [DATA_W-1:0]     r_q;         // residual: the previous payload beat, rotated
  logic [KEEP_W-1:0]     rv_q;        // residual lanes that still hold bytes (flush)
  logic                  fuser_q;

  logic [DATA_W-1:0] a_rd, o_data, res;
  logic [KEEP_W-1:0] a_rk, o_keep;
  logic              o_valid, o_last, o_user, sk_ready, fin;

  always_comb begin
    a_rd = rotl_data(d_data, {{HI_W{1'b0}}, hlo_q});
    a_rk = rotl_keep(d_keep, {{HI_W{1'b0}}, hlo_q});
    res  = first_q ? hq_q[DATA_W-1:0] : r_q;
    o_valid = 1'b0;
    o_data  = hq_q[DATA_W-1:0];
    o_keep  = '1;
    o_last  = 1'b0;
    o_user  = 1'b0;
    consume = 1'b0;
    fin     = 1'b0;
    st_d    = st_q;
    unique case (st_q)
      A_HDR: begin
        o_valid = 1'b1;
        if (sk_ready && hbr_q == HB_W'(1)) st_d = A_PAY;
      end
      A_PAY: begin
        o_valid = d_v;
        o_keep  = selh_q | a_rk;
        o_data  = ((res & bits_of(selh_q)) | (a_rd & ~bits_of(selh_q))) & bits_of(o_keep);
        o_last  = d_last && !d_flush;
        o_user  = d_user && d_last && !d_flush;
        consume = sk_ready && d_v;
        if (consume && d_last) begin
          if (d_flush) st_d = A_FLUSH;
          else fin = 1'b1;
        end
      end
      A_FLUSH: begin
        o_valid = 1'b1;
        o_keep  = rv_q;
        o_data  = r_q & bits_of(rv_q);
        o_last  = 1'b1;
        o_user  = fuser_q;
        fin     = sk_ready;
      end
      default: fin = 1'b1;   // A_IDLE
    endcase
    load = fin && hs_v;
    if (fin) st_d = !hs_v ? A_IDLE : (hs_hb_q[hs_rd_q] != '0 ? A_HDR : A_PAY);
  end

  assign go_d = !d_v || consume;
  assign go_p = !p_v || go_d;

  always_ff @(posedge clk) begin
    st_q <= st_d;
    if (st_q == A_HDR && sk_ready) begin
      hq_q  <= HQ_W'({{DATA_W{1'b0}}, hq_q} >> DATA_W);
      hbr_q <= hbr_q - 1'b1;
    end
    if (consume) begin
      r_q     <= a_rd;
      rv_q    <= a_rk & selh_q;
      first_q <= 1'b0;
      fuser_q <= d_user;
    end
    if (load) begin
      hq_q    <= hs_lane_q[hs_rd_q];
      hbr_q   <= hs_hb_q[hs_rd_q];
      hlo_q   <= hs_h_q[hs_rd_q][LO_W-1:0];
      selh_q  <= hs_selh_q[hs_rd_q];
      first_q <= 1'b1;
    end
    if (rst) st_q <= A_IDLE;
  end

  fabnic_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .REG_TYPE(2)) u_out (
      .clk, .rst,
      .s_axis_tdata(o_data), .s_axis_tkeep(o_keep), .s_axis_tvalid(o_valid),
      .s_axis_tready(sk_ready), .s_axis_tlast(o_last), .s_axis_tuser(o_user),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser
  );

endmodule

`resetall
