// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_net_rx: VirtIO-net receive data mover (store and forward).
//
// 1. A frame (s_axis, tdest = RX queue, last-beat tuser[0] = bad,
//    tuser[1] = checksum verified) is stored in one of NSLOT (4) frame slots
//    behind a 12-byte gap for the virtio_net_hdr. Bad frames and frames >
//    MAX_FRAME are dropped and counted before any buffer is taken.
// Three stages work on different slots at the same time: ingest (slot ws),
// gather (slot gs: chains, capacity check, write commands) and write (the
// command FIFO: DMA writes of header + frame out of the slot).
// 2. Buffer chains are requested from fabnic_virtq_split (m_rxreq / s_buf):
//    one chain, or with mrg_rxbuf up to MAX_CHAINS chains until the capacity
//    covers 12 + frame length. A chain the engine marks BAD is returned at
//    once with used len 0 (its buffers listed before the defect are dropped
//    again, nothing is written into them) and another is requested. No chain (EMPTY) or not
//    enough room -> the frame is dropped and counted; chains already taken
//    are returned with used len 0 (never silent truncation).
// 3. virtio_net_hdr {flags = DATA_VALID if tuser[1], num_buffers = chains}
//    followed by the frame are written buffer by buffer through fabnic_dma_wr
//    (one write command per buffer, CMD_DEPTH commands queued).
//    The data stream leaves through an output register (tvalid/tkeep/tlast
//    from flops, tdata two mux levels behind them; one cycle of latency, full
//    throughput).
// 4. One used element per chain (len = bytes written into it) is queued with
//    the number of write completions it must wait for; it goes to m_ret_*
//    only after all of the frame's writes completed, with more=1 on all but
//    the last so the engine publishes used->idx once for the whole frame.
//    The next frame's delivery does not wait for these completions. A frame
//    with a failed buffer write (completion status != 0) is returned with
//    used len 0 in all its elements and counted in cnt_dma_err, not in
//    cnt_frames: the guest never sees unwritten bytes as a frame.
// At most MAX_ELEMS buffers per frame are used; further buffers of a chain
// are ignored (not counted as capacity).
`default_nettype none

module fabnic_virtio_net_rx #(
    parameter int DATA_W     = 512,
    parameter int ADDR_W     = 64,
    parameter int LEN_W      = 32,
    parameter int TAG_W      = 8,
    parameter int QID_W      = 2,
    parameter int MAX_FRAME  = 9216,
    parameter int MAX_ELEMS  = 16,
    parameter int MAX_CHAINS = 8,
    parameter int CNT_W      = 32,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int NUM_DROP   = 4,
    parameter int RETQ_DEPTH = 16,    // queued used elements (pow2, >= MAX_CHAINS)
    parameter int CMD_DEPTH  = 16,    // queued buffer write commands (pow2)
    parameter int NSLOT      = 4      // frame slots (>= 2)
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic                  mrg_rxbuf,

    input  wire logic [DATA_W-1:0]     s_axis_tdata,
    input  wire logic [KEEP_W-1:0]     s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output logic                       s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic [1:0]            s_axis_tuser,
    input  wire logic [QID_W-1:0]      s_axis_tdest,

    output logic                       m_rxreq_valid,
    input  wire logic                  m_rxreq_ready,
    output logic [QID_W-1:0]           m_rxreq_queue,

    input  wire logic                  s_buf_valid,
    output logic                       s_buf_ready,
    input  wire logic [63:0]           s_buf_addr,
    input  wire logic [31:0]           s_buf_len,
    input  wire logic [15:0]           s_buf_head,
    input  wire logic                  s_buf_last,
    input  wire logic [1:0]            s_buf_status,

    output logic [ADDR_W-1:0]          m_wr_desc_addr,
    output logic [LEN_W-1:0]           m_wr_desc_len,
    output logic [TAG_W-1:0]           m_wr_desc_tag,
    output logic                       m_wr_desc_valid,
    input  wire logic                  m_wr_desc_ready,
    input  wire logic [TAG_W-1:0]      s_wr_cpl_tag,
    input  wire logic [1:0]            s_wr_cpl_status,
    input  wire logic                  s_wr_cpl_valid,
    output logic                       s_wr_cpl_ready,
    output logic [DATA_W-1:0]          m_wr_axis_tdata,
    output logic [KEEP_W-1:0]          m_wr_axis_tkeep,
    output logic                       m_wr_axis_tvalid,
    input  wire logic                  m_wr_axis_tready,
    output logic                       m_wr_axis_tlast,

    output logic                       m_ret_valid,
    input  wire logic                  m_ret_ready,
    output logic [QID_W-1:0]           m_ret_queue,
    output logic [15:0]                m_ret_id,
    output logic [31:0]                m_ret_len,
    output logic                       m_ret_more,

    // drops: 0 bad input frame, 1 frame > MAX_FRAME, 2 no buffer, 3 buffers too small
    output logic [NUM_DROP-1:0][CNT_W-1:0] cnt_drop,
    output logic [CNT_W-1:0]           cnt_frames,
    output logic [CNT_W-1:0]           cnt_bad_chain,
    output logic [CNT_W-1:0]           cnt_dma_err
);

    localparam int B     = KEEP_W;
    localparam int BW    = $clog2(B);
    localparam int HDR   = 12;
    localparam int W0    = HDR / B;
    localparam int SH    = HDR % B;
    localparam int DEPTH = (MAX_FRAME + HDR + B - 1) / B + 3;   // words per slot
    localparam int RA_W  = $clog2(NSLOT * DEPTH);
    localparam int SL_W  = $clog2(NSLOT);
    localparam int EI_W  = $clog2(MAX_ELEMS + 1);
    localparam int CI_W  = $clog2(MAX_CHAINS + 1);
    localparam int EX_W  = (MAX_ELEMS > 1) ? $clog2(MAX_ELEMS) : 1;
    localparam int CX_W  = (MAX_CHAINS > 1) ? $clog2(MAX_CHAINS) : 1;

    if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0) begin : g_chk_w
        $error("fabnic_virtio_net_rx: DATA_W must be a power of two >= 64");
    end
    if (NUM_DROP != 4 || MAX_FRAME >= 65000 || NSLOT < 2 || RETQ_DEPTH < MAX_CHAINS) begin : g_chk_n
        $error("fabnic_virtio_net_rx: NUM_DROP is 4, MAX_FRAME < 65000, NSLOT >= 2, RETQ_DEPTH >= MAX_CHAINS");
    end

    function automatic logic [SL_W-1:0] slot_next(input logic [SL_W-1:0] x);
        return (32'(x) == NSLOT - 1) ? '0 : x + 1'b1;
    endfunction
    function automatic logic [RA_W-1:0] slot_base(input logic [SL_W-1:0] x);
        return RA_W'(32'(x) * DEPTH);
    endfunction

    // slots
    logic [NSLOT-1:0] slot_full;   // holds a frame (ingested, not yet released)
    logic [NSLOT-1:0] slot_gath;   // its write commands are queued
    logic [SL_W-1:0]  ws, gs;
    logic [15:0]      sl_flen [NSLOT];
    logic             sl_bad  [NSLOT];
    logic             sl_big  [NSLOT];
    logic             sl_csok [NSLOT];
    logic [QID_W-1:0] sl_queue[NSLOT];

    // ---------------- frame RAM ----------------
    logic              ram_we, ram_re;
    logic [RA_W-1:0]   ram_waddr, ram_raddr;
    logic [DATA_W-1:0] ram_wdata, ram_rdata;
    fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(NSLOT * DEPTH)) u_ram (
        .clk,
        .wr_en(ram_we), .wr_be(1'b1), .wr_addr(ram_waddr), .wr_data(ram_wdata),
        .rd_en(ram_re), .rd_regce(1'b1), .rd_addr(ram_raddr), .rd_data(ram_rdata));

    // =================== ingest (slot ws) ===================
    typedef enum logic [0:0] {I_ING, I_FLUSH} istate_t;
    istate_t istate;
    logic [DATA_W-1:0] carry, in_masked;
    logic [RA_W-1:0]   wptr;
    logic [15:0]       i_flen;
    logic [BW:0]       in_n;
    logic              too_big;

    always_comb begin
        in_n = '0;
        for (int i = 0; i < B; i++) begin
            if (s_axis_tkeep[i]) in_n = in_n + 1'b1;
            in_masked[i*8 +: 8] = s_axis_tkeep[i] ? s_axis_tdata[i*8 +: 8] : 8'd0;
        end
    end
    assign s_axis_tready = (istate == I_ING) && !slot_full[ws];

    logic fits;
    assign fits = ({1'b0, i_flen} + 17'(in_n)) <= 17'(MAX_FRAME);
    always_comb begin
        ram_we    = 1'b0;
        ram_waddr = slot_base(ws) + wptr;
        ram_wdata = (in_masked << (8 * SH)) | carry;
        if (s_axis_tready && s_axis_tvalid && !too_big && fits) ram_we = 1'b1;
        if (istate == I_FLUSH && !too_big) begin
            ram_we    = 1'b1;
            ram_wdata = carry;
        end
    end

    // =================== gather (slot gs) ===================
    typedef enum logic [3:0] {
        ST_IDLE, ST_START, ST_REQ, ST_BUF, ST_BADRET, ST_CHECK, ST_EMIT, ST_RET, ST_DROPRET
    } state_t;
    state_t state;

    logic [63:0]      e_addr [MAX_ELEMS];
    logic [31:0]      e_len  [MAX_ELEMS];
    logic             e_nz   [MAX_ELEMS];   // e_len != 0
    logic [CI_W-1:0]  e_chain[MAX_ELEMS];
    logic [15:0]      c_head [MAX_CHAINS];
    logic [31:0]      c_len  [MAX_CHAINS];
    logic [EI_W-1:0]  n_elems, gi;
    // element count / capacity before the chain being gathered: a BAD chain's
    // buffers (listed before the engine found the defect) are dropped again
    logic [EI_W-1:0]  ch_elems;
    logic [32:0]      ch_cap;
    logic [CI_W-1:0]  n_chains, ret_i;
    // ret_i < n_chains and ret_i + 1 < n_chains, kept beside ret_i (n_chains does
    // not change in ST_RET / ST_DROPRET)
    logic             ret_left_q, ret_more_q;
    logic [32:0]      cap;
    logic             short_q;     // cap < 12 + frame length after the chain's last buffer
    logic [15:0]      total, goff, bad_head;
    logic [15:0]      flen;
    logic             csum_ok;
    logic [QID_W-1:0] queue;
    logic [31:0]      g_cmds;      // write commands emitted (all frames)

    assign flen    = sl_flen[gs];
    assign csum_ok = sl_csok[gs];
    assign queue   = sl_queue[gs];
    assign total   = flen + 16'(HDR);
    assign m_rxreq_valid = (state == ST_REQ);
    assign m_rxreq_queue = queue;
    assign s_buf_ready   = (state == ST_BUF);

    logic [EX_W-1:0] gi_x, ne_x;
    logic [CX_W-1:0] nc_x, ri_x, gc_x;
    assign gi_x = EX_W'(gi);
    assign ne_x = EX_W'(n_elems);
    assign nc_x = CX_W'(n_chains);
    assign ri_x = CX_W'(ret_i);

    // emit: the element gi is read one cycle ahead into cur_*, the bytes left
    // (total - goff) are kept in remain_q, and a chain's length update is applied
    // the cycle after its command (cl_*: read before ST_RET, which follows an
    // emit_done cycle)
    logic [15:0]      total_q;         // 12 + frame length of the slot gathered
    logic [15:0]      remain_q;
    logic [63:0]      cur_addr_q;
    logic [31:0]      cur_len_q;
    logic             cur_nz_q;        // cur_len_q != 0
    logic             rem_zero_q;      // remain_q == 0
    logic             gi_end_q;        // gi == n_elems (in ST_EMIT)
    logic [CX_W-1:0]  cur_chain_q;
    logic             cl_v_q;
    logic [CX_W-1:0]  cl_x_q;
    logic [15:0]      cl_add_q;
    logic [EX_W-1:0]  gn_x;
    assign gn_x = EX_W'(gi + 1'b1);
    assign gc_x = cur_chain_q;

    logic [15:0] wlen_c;
    logic        c_last;               // this command ends the frame (goff + wlen = total)
    assign c_last = {16'd0, remain_q} <= cur_len_q;
    assign wlen_c = c_last ? remain_q : cur_len_q[15:0];

    // write command: {addr, len, slot offset, num_buffers, DATA_VALID, slot, last of frame}
    localparam int CMD_W = 64 + 16 + 16 + CI_W + 1 + SL_W + 1;
    logic             cmd_in_valid, cmd_in_ready, cmd_out_valid, cmd_out_ready;
    logic [CMD_W-1:0] cmd_out;
    logic             emit_done;
    assign emit_done    = rem_zero_q || gi_end_q;
    // (not done: remain_q != 0, so wlen_c = 0 only for an empty element)
    assign cmd_in_valid = (state == ST_EMIT) && !emit_done && cur_nz_q;

    fabnic_fifo #(.WIDTH(CMD_W), .DEPTH(CMD_DEPTH)) u_cmdq (
        .clk, .rst,
        .in_valid(cmd_in_valid), .in_ready(cmd_in_ready),
        .in_data({cur_addr_q, wlen_c, goff, n_chains, csum_ok, gs, c_last}),
        .out_valid(cmd_out_valid), .out_ready(cmd_out_ready), .out_data(cmd_out),
        .status_count());

    // returns: queued with the write-command count they wait for
    localparam int RQ_W = QID_W + 16 + 32 + 1 + 1 + 32;
    logic            rq_in_valid, rq_in_ready, rq_out_valid, rq_out_ready;
    logic [RQ_W-1:0] rq_out;
    logic [15:0]     rq_id;
    logic [31:0]     rq_len, rq_target, rq_wait, cpl_total;
    logic            rq_more, rq_fend, rq_out_fend;
    always_comb begin
        rq_in_valid = 1'b0;
        rq_id       = c_head[ri_x];
        rq_len      = c_len[ri_x];
        rq_more     = 1'b0;
        rq_fend     = 1'b0;
        if (state == ST_BADRET) begin
            rq_in_valid = 1'b1;
            rq_id       = bad_head;
            rq_len      = '0;
        end else if (state == ST_RET) begin
            rq_in_valid = 1'b1;
            rq_more     = ret_more_q;
            rq_fend     = !rq_more;
        end else if (state == ST_DROPRET) begin
            rq_in_valid = ret_left_q;
            rq_len      = '0;
        end
    end
    fabnic_fifo #(.WIDTH(RQ_W), .DEPTH(RETQ_DEPTH)) u_retq (
        .clk, .rst,
        .in_valid(rq_in_valid), .in_ready(rq_in_ready),
        .in_data({queue, rq_id, rq_len, rq_more, rq_fend, g_cmds}),
        .out_valid(rq_out_valid), .out_ready(rq_out_ready), .out_data(rq_out),
        .status_count());
    logic [31:0]     rq_out_len;
    assign {m_ret_queue, m_ret_id, rq_out_len, m_ret_more, rq_out_fend, rq_target} = rq_out;
    assign rq_wait      = cpl_total - rq_target;     // >= 0: its writes completed

    // DMA write errors: a frame whose buffer writes failed is not handed to the guest
    // as data: all of its elements go out with len 0 and it is counted in cnt_dma_err
    // instead of cnt_frames. Completions arrive in command order and numbered
    // cpl_total + 1 onwards; the head element is released only when cpl_total reached
    // its target (the frame's last command), so an error numbered <= that target
    // belongs to the head frame (earlier frames are gone). err_first / err_last: the
    // earliest not yet consumed and the latest error number. When a frame ends and a
    // later error is already known, err_first moves to the next frame's first number,
    // so with errors of several frames in flight a frame between them may also be
    // returned with len 0 (never the reverse).
    // The head element's checks are registered (computed from the state of the
    // cycle before): rh_done (its writes completed; stays true), rh_poison,
    // rh_clr (no error after its target) and rh_tp1 (target + 1). rh_ok says
    // they describe the current head and error state: the head was there the
    // cycle before, was not taken then, and no error completion arrived then.
    logic        err_pend, q_poison, err_clr;
    logic [31:0] err_first, err_last, ef_diff, el_diff;
    logic        rh_ok, rh_done, rh_poison, rh_clr;
    logic [31:0] rh_tp1;
    assign ef_diff  = rq_target - err_first;
    assign el_diff  = rq_target - err_last;
    always_ff @(posedge clk) begin
        rh_ok     <= rq_out_valid && !rq_out_ready && !(s_wr_cpl_valid && s_wr_cpl_status != 2'd0)
                     && !rst;
        rh_done   <= !rq_wait[31];
        rh_poison <= err_pend && !ef_diff[31];
        rh_clr    <= !el_diff[31];
        rh_tp1    <= rq_target + 1;
    end
    assign q_poison = rh_poison;
    assign m_ret_len = q_poison ? 32'd0 : rq_out_len;
    assign err_clr  = rq_out_ready && rq_out_fend && err_pend && rh_clr;
    // (rh_ok implies rq_out_valid: the head was there and was not taken)
    assign m_ret_valid  = rh_ok && rh_done;
    assign rq_out_ready = m_ret_valid && m_ret_ready;
    logic rq_fire;
    assign rq_fire = rq_in_valid && rq_in_ready;

    // =================== write (command FIFO) ===================
    logic [63:0]     k_addr;
    logic [15:0]     k_len, k_off;
    logic [CI_W-1:0] k_nch;
    logic            k_csok, k_last;
    logic [SL_W-1:0] k_slot;
    assign {k_addr, k_len, k_off, k_nch, k_csok, k_slot, k_last} = cmd_out;

    // Two sides so that buffer writes follow each other without a gap: the
    // read side takes a command (issuing its DMA write descriptor), reads its
    // nb + 1 slot words (header patched in) into the word FIFO and goes on
    // with the next command at once; the emit side streams the beats of the
    // commands in order (their length / shift / slot in a small meta FIFO).
    logic             r_act;
    logic [15:0]      r_nb, reads;
    logic [RA_W-1:0]  rptr, rbase;
    logic             rd_inflight;
    logic [RA_W-1:0]  rd_idx;
    logic [8*HDR-1:0] hdr;
    // virtio_net_hdr: flags DATA_VALID (2) if verified, num_buffers = chains taken
    logic [CI_W-1:0]  w_nch;
    logic             w_csok;
    assign hdr = {16'(w_nch), 64'd0, 8'd0, (w_csok ? 8'd2 : 8'd0)};

    // emit-side command records {len, beats - 1, one beat, shift, slot, last of frame}
    localparam int EM_W = 16 + 16 + 1 + BW + SL_W + 1;
    logic             em_in_ready, em_valid, em_ready;
    logic [EM_W-1:0]  em_out;
    logic [15:0]      wlen, nbm1, beat;
    logic [BW-1:0]    rsh;
    logic [SL_W-1:0]  w_slot;
    logic             w_last;
    logic [15:0]      k_nb, k_nbm1;
    assign k_nb   = (k_len + 16'(B - 1)) >> BW;
    assign k_nbm1 = (k_len - 16'd1) >> BW;   // beats - 1 (k_len >= 1)
    logic             w_one;
    assign {wlen, nbm1, w_one, rsh, w_slot, w_last} = em_out;
    // m_wr_axis_tlast from registers: on a command's first beat (beat0_q) the
    // record's one-beat flag, after it last_q = (beat == nbm1), set when a beat
    // leaves (beat + 1 == nbm1)
    logic             beat0_q, last_q;

    assign m_wr_desc_addr  = ADDR_W'(k_addr);
    assign m_wr_desc_len   = LEN_W'(k_len);
    assign m_wr_desc_tag   = '0;
    assign m_wr_desc_valid = !r_act && cmd_out_valid && em_in_ready;
    assign cmd_out_ready   = m_wr_desc_valid && m_wr_desc_ready;
    assign s_wr_cpl_ready  = 1'b1;

    fabnic_fifo #(.WIDTH(EM_W), .DEPTH(4)) u_emq (
        .clk, .rst,
        .in_valid(cmd_out_ready), .in_ready(em_in_ready),
        .in_data({k_len, k_nbm1, k_nbm1 == 16'd0, k_off[BW-1:0], k_slot, k_last}),
        .out_valid(em_valid), .out_ready(em_ready), .out_data(em_out),
        .status_count());

    // RAM read -> header patch -> word FIFO -> realigner
    logic              wf_in_valid, wf_out_valid, wf_out_ready;
    logic [DATA_W-1:0] wf_in_data, wf_out_data, prev;
    logic [2:0]        wf_count;
    logic              have_prev;
    fabnic_fifo #(.WIDTH(DATA_W), .DEPTH(4)) u_word_fifo (
        .clk, .rst,
        .in_valid(wf_in_valid), .in_ready(), .in_data(wf_in_data),
        .out_valid(wf_out_valid), .out_ready(wf_out_ready), .out_data(wf_out_data),
        .status_count(wf_count));

    // occupancy kept here in registers (the FIFO's own flags are pointer compares):
    // wf_occ words read and not yet taken by the emit side (in flight or in the
    // FIFO, <= 4), wf_n words in the FIFO, wf_nz = wf_n != 0 (= wf_out_valid)
    logic [2:0] wf_occ, wf_n;
    logic       wf_nz, wf_pop;
    logic issue;
    assign issue = r_act && !wf_occ[2];
    assign ram_re    = issue;
    assign ram_raddr = rbase + rptr;
    assign wf_in_valid = rd_inflight;
    always_comb begin
        wf_in_data = ram_rdata;
        for (int i = 0; i < B; i++) begin
            for (int h = 0; h < HDR; h++) begin
                if (32'(rd_idx) * B + i == h) wf_in_data[i*8 +: 8] = hdr[h*8 +: 8];
            end
        end
    end

    // The realigned beats (x_*) leave through an output register (m_wr_axis_tvalid,
    // tkeep, tlast from flops; full throughput, one cycle). The byte shift by rsh is
    // split around it: by rsh mod 8 bytes before (x_part keeps the bytes a shift by
    // a multiple of 8 bytes can still select), by the rest (r_hi x 8 bytes) after.
    localparam int LO_W = (BW < 3) ? BW : 3;
    localparam int HI_W = BW - LO_W;
    localparam int HW1  = (HI_W > 0) ? HI_W : 1;
    localparam int PW   = DATA_W + ((1 << HI_W) - 1) * 64;
    logic [PW-1:0]     x_part, r_part;
    logic [HW1-1:0]    r_hi;
    logic [KEEP_W-1:0] x_tkeep;
    logic              x_tvalid, x_tready, x_tlast;
    logic [2*DATA_W-1:0] two;
    always_comb begin
        two = {wf_out_data, prev} >> {rsh[LO_W-1:0], 3'b000};
        x_part = two[PW-1:0];
        for (int i = 0; i < B; i++) begin
            x_tkeep[i] = (32'(beat) * B + i) < 32'(wlen);
        end
        x_tvalid     = em_valid && have_prev && wf_nz;
        x_tlast      = beat0_q ? w_one : last_q;
        wf_out_ready = em_valid && wf_nz && (!have_prev || x_tready);
        wf_pop       = wf_out_ready;
        em_ready     = x_tvalid && x_tready && x_tlast;
    end
    fabnic_axis_register #(.DATA_W(PW), .KEEP_W(KEEP_W), .USER_W(HW1), .REG_TYPE(1)) u_wr_reg (
        .clk, .rst,
        .s_axis_tdata(x_part), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid),
        .s_axis_tready(x_tready), .s_axis_tlast(x_tlast), .s_axis_tuser(HW1'(rsh >> LO_W)),
        .m_axis_tdata(r_part), .m_axis_tkeep(m_wr_axis_tkeep),
        .m_axis_tvalid(m_wr_axis_tvalid), .m_axis_tready(m_wr_axis_tready),
        .m_axis_tlast(m_wr_axis_tlast), .m_axis_tuser(r_hi));
    logic [PW-1:0] r_sh;
    assign r_sh            = r_part >> {r_hi, 6'b0};
    assign m_wr_axis_tdata = r_sh[DATA_W-1:0];

    logic [CNT_W-1:0] cdrop [NUM_DROP];
    always_comb begin
        for (int k = 0; k < NUM_DROP; k++) cnt_drop[k] = cdrop[k];
    end

    // slot release by the gather stage (drops) or the write stage (last command)
    logic             g_free, w_free;
    assign g_free = (state == ST_DROPRET) && !ret_left_q;
    assign w_free = em_ready && w_last;
    // the write stage's release is applied the cycle after the last beat
    logic             w_free_q;
    logic [SL_W-1:0]  w_slot_q;
    always_ff @(posedge clk) begin
        w_free_q <= w_free && !rst;
        w_slot_q <= w_slot;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            state      <= ST_IDLE;
            istate     <= I_ING;
            r_act      <= 1'b0;
            slot_full  <= '0;
            slot_gath  <= '0;
            ws         <= '0;
            gs         <= '0;
            carry      <= '0;
            wptr       <= RA_W'(W0);
            i_flen     <= '0;
            too_big    <= 1'b0;
            n_elems    <= '0;
            ch_elems   <= '0;
            ch_cap     <= '0;
            n_chains   <= '0;
            cap        <= '0;
            gi         <= '0;
            goff       <= '0;
            cl_v_q     <= 1'b0;
            remain_q   <= '0;
            rem_zero_q <= 1'b1;
            total_q    <= '0;
            g_cmds     <= '0;
            cpl_total  <= '0;
            ret_i      <= '0;
            ret_left_q <= 1'b0;
            ret_more_q <= 1'b0;
            rd_inflight <= 1'b0;
            wf_occ      <= '0;
            wf_n        <= '0;
            wf_nz       <= 1'b0;
            have_prev  <= 1'b0;
            beat       <= '0;
            beat0_q    <= 1'b1;
            cnt_frames <= '0;
            cnt_bad_chain <= '0;
            cnt_dma_err <= '0;
            err_pend    <= 1'b0;
            err_first   <= '0;
            err_last    <= '0;
            for (int k = 0; k < NSLOT; k++) begin
                sl_flen[k] <= '0; sl_bad[k] <= 1'b0; sl_big[k] <= 1'b0; sl_csok[k] <= 1'b0;
                sl_queue[k] <= '0;
            end
            for (int k = 0; k < NUM_DROP; k++) cdrop[k] <= '0;
        end else begin
            rd_inflight <= issue;
            rd_idx      <= rptr;
            // a frame counts as delivered when its last used element is handed on
            // (a frame with a failed buffer write counts in cnt_dma_err instead)
            if (rq_out_ready && rq_out_fend && !q_poison) cnt_frames <= cnt_frames + 1'b1;
            if (rq_out_ready && rq_out_fend && q_poison) cnt_dma_err <= cnt_dma_err + 1'b1;
            if (err_clr) err_pend <= 1'b0;
            else if (rq_out_ready && rq_out_fend && q_poison) err_first <= rh_tp1;
            if (s_wr_cpl_valid) begin
                cpl_total <= cpl_total + 1;
                if (s_wr_cpl_status != 2'd0) begin
                    err_pend <= 1'b1;
                    err_last <= cpl_total + 1;
                    if (!err_pend || err_clr) err_first <= cpl_total + 1;
                end
            end

            // ---------------- ingest ----------------
            unique case (istate)
            I_ING: begin
                if (s_axis_tvalid && s_axis_tready) begin
                    if (!too_big && fits) begin
                        i_flen <= i_flen + 16'(in_n);
                        wptr   <= wptr + 1'b1;
                        carry  <= (SH == 0) ? '0 : (in_masked >> (DATA_W - 8 * SH));
                    end else begin
                        too_big <= 1'b1;
                    end
                    if (s_axis_tlast) begin
                        sl_bad[ws]   <= s_axis_tuser[0];
                        sl_csok[ws]  <= s_axis_tuser[1];
                        sl_queue[ws] <= s_axis_tdest;
                        istate       <= I_FLUSH;
                    end
                end
            end
            default: begin   // I_FLUSH: carry written, slot handed to gather
                sl_flen[ws] <= i_flen;
                sl_big[ws]  <= too_big;
                ws      <= slot_next(ws);
                carry   <= '0;
                wptr    <= RA_W'(W0);
                i_flen  <= '0;
                too_big <= 1'b0;
                istate  <= I_ING;
            end
            endcase

            // ---------------- gather ----------------
            cl_v_q <= 1'b0;
            if (cl_v_q) c_len[cl_x_q] <= c_len[cl_x_q] + {16'd0, cl_add_q};
            unique case (state)
            ST_IDLE: begin
                n_elems  <= '0;
                ch_elems <= '0;
                ch_cap   <= '0;
                n_chains <= '0;
                cap      <= '0;
                ret_i    <= '0;
                ret_left_q <= 1'b0;
                ret_more_q <= 1'b0;
                gi       <= '0;
                goff     <= '0;
                if (slot_full[gs] && !slot_gath[gs]) state <= ST_START;
            end
            ST_START: begin
                total_q <= total;
                if (sl_bad[gs]) begin
                    cdrop[0] <= cdrop[0] + 1'b1;
                    state    <= ST_DROPRET;
                end else if (sl_big[gs]) begin
                    cdrop[1] <= cdrop[1] + 1'b1;
                    state    <= ST_DROPRET;
                end else begin
                    state <= ST_REQ;
                end
            end
            ST_REQ: begin
                if (m_rxreq_ready) state <= ST_BUF;
            end
            ST_BUF: begin
                if (s_buf_valid) begin
                    if (s_buf_status == 2'd0) begin
                        if (32'(n_elems) < MAX_ELEMS) begin
                            e_addr[ne_x]  <= s_buf_addr;
                            e_len[ne_x]   <= s_buf_len;
                            e_nz[ne_x]    <= s_buf_len != 32'd0;
                            e_chain[ne_x] <= n_chains;
                            n_elems <= n_elems + 1'b1;
                            cap     <= cap + {1'b0, s_buf_len};
                        end
                        if (s_buf_last) begin
                            // the capacity check of ST_CHECK, on the capacity it will see
                            short_q <= ((32'(n_elems) < MAX_ELEMS) ? cap + {1'b0, s_buf_len} : cap)
                                       < {17'd0, total_q};
                            c_head[nc_x] <= s_buf_head;
                            c_len[nc_x]  <= '0;
                            n_chains <= n_chains + 1'b1;
                            state    <= ST_CHECK;
                        end
                    end else if (s_buf_status == 2'd1) begin
                        // nothing is written into a chain returned as BAD
                        n_elems  <= ch_elems;
                        cap      <= ch_cap;
                        bad_head <= s_buf_head;
                        cnt_bad_chain <= cnt_bad_chain + 1'b1;
                        state <= ST_BADRET;
                    end else begin
                        cdrop[2] <= cdrop[2] + 1'b1;
                        ret_i    <= '0;
                        ret_left_q <= n_chains != '0;
                        ret_more_q <= n_chains > CI_W'(1);
                        state    <= ST_DROPRET;
                    end
                end
            end
            ST_BADRET: begin
                if (rq_in_ready) state <= ST_REQ;
            end
            ST_CHECK: begin
                ch_elems <= n_elems;
                ch_cap   <= cap;
                if (short_q) begin
                    if (mrg_rxbuf && 32'(n_chains) < MAX_CHAINS && 32'(n_elems) < MAX_ELEMS) begin
                        state <= ST_REQ;
                    end else begin
                        cdrop[3] <= cdrop[3] + 1'b1;
                        ret_i    <= '0;
                        ret_left_q <= n_chains != '0;
                        ret_more_q <= n_chains > CI_W'(1);
                        state    <= ST_DROPRET;
                    end
                end else begin
                    remain_q    <= total_q;
                    rem_zero_q  <= 1'b0;   // total_q >= 12
                    gi_end_q    <= n_elems == '0;   // gi is 0 here
                    cur_addr_q  <= e_addr[gi_x];
                    cur_len_q   <= e_len[gi_x];
                    cur_nz_q    <= e_nz[gi_x];
                    cur_chain_q <= CX_W'(e_chain[gi_x]);
                    state <= ST_EMIT;
                end
            end
            ST_EMIT: begin
                if (emit_done) begin
                    ret_i <= '0;
                    ret_left_q <= n_chains != '0;
                    ret_more_q <= n_chains > CI_W'(1);
                    state <= ST_RET;
                end else if (!cur_nz_q) begin
                    gi          <= gi + 1'b1;
                    gi_end_q    <= (gi + 1'b1) == n_elems;
                    cur_addr_q  <= e_addr[gn_x];
                    cur_len_q   <= e_len[gn_x];
                    cur_nz_q    <= e_nz[gn_x];
                    cur_chain_q <= CX_W'(e_chain[gn_x]);
                end else if (cmd_in_ready) begin
                    g_cmds      <= g_cmds + 1;
                    // goff + wlen_c and remain_q - wlen_c, both sides computed
                    // beside the compare (goff + remain_q = total_q)
                    goff        <= c_last ? total_q : goff + cur_len_q[15:0];
                    remain_q    <= c_last ? 16'd0 : remain_q - cur_len_q[15:0];
                    rem_zero_q  <= c_last;   // else remain_q > cur_len_q
                    gi          <= gi + 1'b1;
                    gi_end_q    <= (gi + 1'b1) == n_elems;
                    cur_addr_q  <= e_addr[gn_x];
                    cur_len_q   <= e_len[gn_x];
                    cur_nz_q    <= e_nz[gn_x];
                    cur_chain_q <= CX_W'(e_chain[gn_x]);
                    cl_v_q      <= 1'b1;
                    cl_x_q      <= gc_x;
                    cl_add_q    <= wlen_c;
                end
            end
            ST_RET: begin
                if (rq_fire) begin
                    ret_i <= ret_i + 1'b1;
                    ret_left_q <= ret_more_q;
                    ret_more_q <= ({1'b0, ret_i} + (CI_W+1)'(2)) < {1'b0, n_chains};
                    if (!ret_more_q) begin
                        gs    <= slot_next(gs);
                        state <= ST_IDLE;
                    end
                end
            end
            ST_DROPRET: begin
                if (!ret_left_q) begin
                    gs    <= slot_next(gs);
                    state <= ST_IDLE;
                end else if (rq_fire) begin
                    ret_i <= ret_i + 1'b1;
                    ret_left_q <= ret_more_q;
                    ret_more_q <= ({1'b0, ret_i} + (CI_W+1)'(2)) < {1'b0, n_chains};
                end
            end
            default: state <= ST_IDLE;
            endcase

            // ---------------- write: read side ----------------
            if (cmd_out_ready) begin
                r_nb   <= k_nb;
                reads  <= '0;
                rbase  <= slot_base(k_slot);
                rptr   <= RA_W'(k_off >> BW);
                w_nch  <= k_nch;
                w_csok <= k_csok;
                r_act  <= 1'b1;
            end else if (issue) begin
                rptr  <= rptr + 1'b1;
                reads <= reads + 1'b1;
                if (reads == r_nb) r_act <= 1'b0;
            end
            // ---------------- write: emit side ----------------
            wf_occ <= wf_occ + 3'(issue) - 3'(wf_pop);
            wf_n   <= wf_n + 3'(rd_inflight) - 3'(wf_pop);
            wf_nz  <= rd_inflight || wf_n >= 3'd2 || (wf_n == 3'd1 && !wf_pop);
            if (wf_pop) begin
                prev      <= wf_out_data;
                have_prev <= 1'b1;
            end
            if (x_tvalid && x_tready) begin
                beat    <= beat + 1'b1;
                beat0_q <= 1'b0;
                last_q  <= (beat + 16'd1) == nbm1;
                if (x_tlast) begin
                    beat      <= '0;
                    beat0_q   <= 1'b1;
                    have_prev <= 1'b0;
                end
            end

            // slot bookkeeping: filled by ingest, freed by gather (drop) or write
            for (int k = 0; k < NSLOT; k++) begin
                if (istate == I_FLUSH && 32'(ws) == k) slot_full[k] <= 1'b1;
                if (cmd_in_valid && cmd_in_ready && c_last && 32'(gs) == k)
                    slot_gath[k] <= 1'b1;
                if (g_free && 32'(gs) == k) slot_full[k] <= 1'b0;
                if (w_free_q && 32'(w_slot_q) == k) begin
                    slot_full[k] <= 1'b0;
                    slot_gath[k] <= 1'b0;
                end
            end
        end
    end

    logic unused;
    assign unused = ^{wf_count, wf_out_valid, s_wr_cpl_tag, cap[32], two, r_sh,
                      rq_wait[30:0], ef_diff[30:0], el_diff[30:0]};

    // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
    // the registered word-FIFO occupancy matches the FIFO
    always_ff @(posedge clk) begin
        if (!rst) begin
            assert (wf_nz == wf_out_valid && 4'(wf_n) == 4'(wf_count) &&
                    wf_occ == wf_n + 3'(rd_inflight) && wf_occ <= 3'd4)
                else $error("fabnic_virtio_net_rx: word FIFO occupancy");
        end
    end
`endif

endmodule

`resetall
