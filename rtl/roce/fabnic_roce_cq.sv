// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_cq: completion queue writer. NUM_CQ rings in host memory (32-byte CQEs,
// fabnic_roce_pkg::cqe_encode). Per CQE request: read the CQ context, refuse when the
// ring is full (producer - consumer = size: counted in cnt_overflow and the CQE is
// lost; the QP is not moved to ERR), else one 32-byte DMA write at
// base + (pi mod size) * 32 with the owner/phase bit = 1 on even passes, then pi+1; if
// the CQ is armed an interrupt request (vector) goes out and the arm is cleared.
// Doorbells carry the host's consumer index and the arm bit. Requests from the
// responder and the completer are served round-robin, one at a time.
// Context cache: every change of a CQ context goes through this FSM and ends with the
// register copy c_q written back for cqn_q, so c_q stays the current context of cqn_q
// until another CQ is loaded; a CQE for that same CQ skips the RAM read (S_LOAD) and
// goes from S_IDLE straight to the write (one cycle less per CQE and on the
// last-byte-to-CQE path). The write-back happens in the cycle the CQE's data beat is
// taken, and that cycle already takes the next CQE for the same CQ. A CQE bound for an
// even ring slot takes the next CQE of the same source along (same CQ, room for both):
// the two go out as one 64-byte write (descriptor and data cycles paid once per pair).
`default_nettype none

module fabnic_roce_cq #(
    parameter int DATA_W = 512,
    parameter int KEEP_W = DATA_W / 8,
    parameter int NUM_CQ = 256,
    parameter int CNT_W  = 32,
    parameter int CQN_W  = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    // context write from the control block (base, log2 size, vector, valid): also
    // resets pi/ci/arm
    input  wire logic                       s_ctl_valid,
    output logic                            s_ctl_ready,
    input  wire logic [CQN_W-1:0]           s_ctl_cqn,
    input  wire logic [63:0]                s_ctl_base,
    input  wire logic [4:0]                 s_ctl_log,
    input  wire logic [15:0]                s_ctl_vector,
    input  wire logic                       s_ctl_en,

    input  wire logic                       s_db_valid,
    output logic                            s_db_ready,
    input  wire logic [CQN_W-1:0]           s_db_cqn,
    input  wire logic [31:0]                s_db_value,   // [30:0] consumer index, [31] arm

    input  wire fabnic_roce_pkg::cqe_req_t  s_cqe [2],
    input  wire logic [1:0]                 s_cqe_valid,
    output logic      [1:0]                 s_cqe_ready,

    output logic      [63:0]                m_wr_addr,
    output logic      [31:0]                m_wr_len,
    output logic                            m_wr_valid,
    input  wire logic                       m_wr_ready,
    output logic      [DATA_W-1:0]          m_wr_tdata,
    output logic      [KEEP_W-1:0]          m_wr_tkeep,
    output logic                            m_wr_tvalid,
    input  wire logic                       m_wr_tready,
    output logic                            m_wr_tlast,

    output logic                            m_irq_valid,
    output logic      [15:0]                m_irq_vector,

    output logic      [CNT_W-1:0]           cnt_cqe,
    output logic      [CNT_W-1:0]           cnt_cqe_err,
    output logic      [CNT_W-1:0]           cnt_overflow,
    output logic      [CNT_W-1:0]           cnt_irq
);
  import fabnic_roce_pkg::*;

  typedef struct packed {
    logic [63:0] base;
    logic [4:0]  lg;
    logic [15:0] vector;
    logic        en;
    logic [31:0] pi;
    logic [31:0] ci;
    logic        arm;
  } cq_t;

  cq_t              rd_data, c_q, c_upd, wr_data;
  logic             rd_en, wr_en;
  logic [CQN_W-1:0] rd_addr, cqn_q;
  fabnic_ram_sdp #(.DATA_W($bits(cq_t)), .DEPTH(NUM_CQ)) u_ctx (
      .clk, .wr_en, .wr_be(1'b1), .wr_addr(cqn_q), .wr_data,
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data
  );

  typedef enum logic [2:0] { S_IDLE, S_LOAD, S_DO, S_WD, S_W, S_WB } st_e;
  st_e st_q;
  logic w_done;   // the CQE's data beat is taken: the context is written back in that cycle
  // CQE pairs: a CQE going to an even ring slot takes the next CQE of the same source
  // along when that one is for the same CQ and the ring has room for both: one 64-byte
  // write for two CQEs (the descriptor and data cycles of the write engine are paid once)
  logic     src_q;      // source of cqe_q
  logic     two_q;      // cqe2_q goes out with cqe_q (slot pi + 1)
  cqe_req_t cqe2_q;
  logic     pair_ok, pair_pop;
  typedef enum logic [1:0] { E_CTL, E_DB, E_CQE } ev_e;
  ev_e ev_q;

  logic        sel;       // CQE source chosen this cycle
  logic        rr_q;
  logic        hot_q;     // c_q holds the current context of CQ cqn_q
  logic        hot_hit;   // the CQE taken now is for that CQ
  cqe_req_t    cqe_q;
  logic [31:0] db_q;
  logic [63:0] ctl_base_q;
  logic [4:0]  ctl_log_q;
  logic [15:0] ctl_vec_q;
  logic        ctl_en_q;

  logic take_ctl, take_db, take_cqe;
  always_comb begin
    take_ctl = st_q == S_IDLE && s_ctl_valid;
    take_db  = st_q == S_IDLE && !s_ctl_valid && s_db_valid;
    sel      = (s_cqe_valid == 2'b11) ? rr_q : s_cqe_valid[1];
    hot_hit  = hot_q && CQN_W'(s_cqe[sel].cqn) == cqn_q;
    // the cycle that writes a CQE's context back (S_W, beat taken) takes a next CQE for
    // the same CQ itself when no control op or doorbell waits (c_upd is that context)
    take_cqe = (st_q == S_IDLE || (w_done && hot_hit))
               && !s_ctl_valid && !s_db_valid && |s_cqe_valid;
    rd_en    = take_ctl || take_db || (take_cqe && !hot_hit);
    rd_addr  = take_ctl ? s_ctl_cqn : take_db ? s_db_cqn : CQN_W'(s_cqe[sel].cqn);
  end
  assign s_ctl_ready = take_ctl;
  assign s_db_ready  = take_db;
  always_comb begin
    s_cqe_ready = take_cqe ? (sel ? 2'b10 : 2'b01) : 2'b00;
    if (pair_pop) s_cqe_ready[src_q] = 1'b1;
  end

  logic [31:0] mask;
  logic        phase;
  assign mask  = (32'd1 << c_q.lg) - 1;
  // a CQE for this context is dropped (counted): CQ disabled or ring full; checked on
  // the cached copy (S_IDLE, hot hit) or on the RAM output (S_LOAD)
  function automatic logic refused(input logic en, input logic [31:0] pi,
                                   input logic [31:0] ci, input logic [4:0] lg);
    return !en || (pi - ci) > ((32'd1 << lg) - 1);
  endfunction
  logic hot_refused, ld_refused;
  always_comb begin
    c_upd     = c_q;
    c_upd.pi  = c_q.pi + (two_q ? 32'd2 : 32'd1);
    c_upd.arm = 1'b0;
  end
  assign w_done      = st_q == S_W && m_wr_tready;
  assign hot_refused = w_done ? refused(c_upd.en, c_upd.pi, c_upd.ci, c_upd.lg)
                              : refused(c_q.en, c_q.pi, c_q.ci, c_q.lg);
  assign pair_ok  = s_cqe_valid[src_q] && CQN_W'(s_cqe[src_q].cqn) == cqn_q && !c_q.pi[0]
                    && c_q.lg != 5'd0 && !refused(c_q.en, c_q.pi + 32'd1, c_q.ci, c_q.lg);
  assign pair_pop = st_q == S_WD && m_wr_ready && pair_ok;
  assign ld_refused  = refused(rd_data.en, rd_data.pi, rd_data.ci, rd_data.lg);
  assign phase = !c_q.pi[c_q.lg];

  assign m_wr_valid  = st_q == S_WD;
  assign m_wr_addr   = c_q.base + {27'd0, c_q.pi & mask, 5'd0};
  assign m_wr_len    = pair_ok ? 32'd64 : 32'd32;   // (read by the arbiter in S_WD only)
  assign m_wr_tvalid = st_q == S_W;
  assign m_wr_tdata  = two_q ? DATA_W'({cqe_encode(cqe2_q, phase), cqe_encode(cqe_q, phase)})
                             : DATA_W'(cqe_encode(cqe_q, phase));
  assign m_wr_tkeep  = two_q ? KEEP_W'({64{1'b1}}) : KEEP_W'({32{1'b1}});
  assign m_wr_tlast  = 1'b1;
  assign wr_en       = st_q == S_WB || w_done;
  assign wr_data     = w_done ? c_upd : c_q;

  always_ff @(posedge clk) begin
    m_irq_valid <= 1'b0;
    case (st_q)
      S_IDLE: begin
        if (take_ctl) begin
          ev_q <= E_CTL; cqn_q <= s_ctl_cqn; ctl_base_q <= s_ctl_base; ctl_log_q <= s_ctl_log;
          ctl_vec_q <= s_ctl_vector; ctl_en_q <= s_ctl_en;
          st_q <= S_LOAD;
        end else if (take_db) begin
          ev_q <= E_DB; cqn_q <= s_db_cqn; db_q <= s_db_value;
          st_q <= S_LOAD;
        end else if (take_cqe) begin
          ev_q <= E_CQE; cqn_q <= CQN_W'(s_cqe[sel].cqn); cqe_q <= s_cqe[sel];
          rr_q <= !sel;
          src_q <= sel;
          st_q <= S_LOAD;
          if (hot_hit) begin            // context already in c_q: no RAM read
            cnt_overflow <= cnt_overflow + CNT_W'(hot_refused);
            st_q <= hot_refused ? S_IDLE : S_WD;
          end
        end
      end
      S_LOAD: begin
        // a CQE goes straight to the write when its ring has room (full check on the
        // RAM output, saves the S_DO cycle); control and doorbells go through S_DO
        c_q  <= rd_data;
        hot_q <= 1'b1;
        st_q <= S_DO;
        if (ev_q == E_CQE) begin
          cnt_overflow <= cnt_overflow + CNT_W'(ld_refused);
          st_q <= ld_refused ? S_IDLE : S_WD;
        end
      end
      S_DO: begin
        case (ev_q)
          E_CTL: begin
            c_q <= '0;
            c_q.base   <= ctl_base_q;
            c_q.lg     <= ctl_log_q;
            c_q.vector <= ctl_vec_q;
            c_q.en     <= ctl_en_q;
            st_q <= S_WB;
          end
          E_DB: begin
            c_q.ci  <= {1'b0, db_q[30:0]};
            c_q.arm <= c_q.arm || db_q[31];
            st_q <= S_WB;
          end
          default: st_q <= S_IDLE;   // (E_CQE leaves S_LOAD directly)
        endcase
      end
      S_WD: if (m_wr_ready) begin
        two_q  <= pair_ok;
        cqe2_q <= s_cqe[src_q];
        st_q   <= S_W;
      end
      S_W: begin
        if (m_wr_tready) begin
          c_q.pi  <= c_upd.pi;
          cnt_cqe <= cnt_cqe + CNT_W'(1) + CNT_W'(two_q);
          cnt_cqe_err <= cnt_cqe_err + CNT_W'(cqe_q.status != WS_SUCCESS)
                         + CNT_W'(two_q && cqe2_q.status != WS_SUCCESS);
          if (c_q.arm) begin
            c_q.arm      <= 1'b0;
            m_irq_valid  <= 1'b1;
            m_irq_vector <= c_q.vector;
            cnt_irq      <= cnt_irq + 1'b1;
          end
          st_q <= S_IDLE;   // (context written back in this cycle)
        end
      end
      default: st_q <= S_IDLE;
    endcase
    // the write-back cycle of a CQE takes the next one for the same CQ (take_cqe)
    if (w_done && take_cqe) begin
      cqe_q <= s_cqe[sel];
      rr_q  <= !sel;
      src_q <= sel;
      cnt_overflow <= cnt_overflow + CNT_W'(hot_refused);
      st_q <= hot_refused ? S_IDLE : S_WD;
    end
    if (rst) begin
      st_q         <= S_IDLE;
      rr_q         <= 1'b0;
      src_q        <= 1'b0;
      hot_q        <= 1'b0;
      m_irq_valid  <= 1'b0;
      cnt_cqe      <= '0;
      cnt_cqe_err  <= '0;
      cnt_overflow <= '0;
      cnt_irq      <= '0;
    end
  end

endmodule

`resetall
