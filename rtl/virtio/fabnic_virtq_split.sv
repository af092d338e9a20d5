// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtq_split: VirtIO 1.2 split-virtqueue engine for NUM_Q queues.
//
// One sequential engine serves all queues, one operation at a time:
//   TX  : a notify sets the queue's pending bit; the engine reads avail->idx,
//         then per pass one chain: head from avail->ring, descriptors (16 B)
//         following NEXT, one level of INDIRECT when the queue has it enabled,
//         and emits each buffer (addr, len, write) on m_txbuf (last on the
//         final one). The pending bit stays set until avail is caught up.
//         A chain walk starts only while txbuf_idle = 1, so a stalled TX
//         output never blocks RX requests or returns.
//   RX  : a request on s_rxreq (queue) makes the engine take the next avail
//         chain and emit it on m_rxbuf; every buffer must be device-writable.
//         No chain available -> one element with status EMPTY.
//   RET : returns (queue, id, len) from s_txret / s_rxret (through small
//         FIFOs) are written as used elements {id u32, len u32}; the batch
//         is then published in the background (walks go on): used->idx once
//         the element writes completed, then (after that write completed)
//         avail->flags (NO_INTERRUPT) or, with EVENT_IDX, used_event is read
//         and irq_valid/irq_vector pulse when the driver wants an interrupt:
//         (u16)(new - used_event - 1) < (u16)(new - old). s_rxret_more=1
//         defers the idx update so several chains of one frame (MRG_RXBUF)
//         become visible together.
// With EVENT_IDX the engine writes used->avail_event = last_avail_idx when a
// TX queue is caught up, then re-reads avail->idx once (no lost notify).
//
// Ring write errors: every ring write's owner {operation write, queue} is
// queued at its descriptor handshake (WR_DEPTH entries; a write waits while
// the queue is full) and the write engine's completions, which arrive in
// issue order (fabnic_dma_wr: one AWID, completions in descriptor order),
// pop it: an error on a used element or used->idx write marks its own queue
// (charged once in IDLE; that queue's batches are no longer published), an
// error on an avail_event or controlq ack write fails that operation.
// m_wr_desc_tag carries the owner (simulation checks the completion tag).
//
// Element status: 0 OK, 1 BAD (chain invalid: return it with used len 0),
// 2 EMPTY (RX: no chain / queue not usable). Ring accesses are DMA reads and
// writes (little-endian) through fabnic_dma_rd / fabnic_dma_wr ports.
//
// Bad guest input (counted in cnt_err[reason]):
//   needs-reset (queue stops, status bit set, other queues continue):
//     0 AVAIL_JUMP (avail->idx moved by more than size), 1 BAD_HEAD (head
//     index >= size), 2 DMA_ERR (AXI error on a ring access)
//   chain dropped (status BAD, consumer returns it with len 0):
//     3 NEXT_RANGE, 4 LOOP (chain longer than its table), 5 ZERO_LEN,
//     6 DIRECTION (read-only where writable needed or vice versa),
//     7 IND_LEN (indirect len 0, not a multiple of 16, > size entries),
//     8 IND_BAD (nested indirect, INDIRECT with NEXT, not negotiated)
//   9 RET_DROP: a return for a disabled / needs-reset queue is ignored (the
//     returns already written for that queue are still published).
//
// Config port: accepted only while the engine is idle (cfg_ready); read data
// is combinational in the handshake cycle. Fields: 0 desc, 1 avail, 2 used
// ring address, 3 size (power of two), 4 enable (writing 1 also clears the
// indices and the needs-reset flag), 5 features {indirect, event_idx},
// 6 MSI-X vector (0xFFFF = none), 7 last_avail_idx, 8 used_idx,
// 9 status {err_code[7:0] at 15:8, needs_reset 1, enable 0} (read only).
`default_nettype none

module fabnic_virtq_split #(
    parameter int NUM_Q   = 4,
    parameter int DATA_W  = 512,   // DMA stream width, >= 64
    parameter int ADDR_W  = 64,
    parameter int LEN_W   = 32,
    parameter int TAG_W   = 8,
    parameter int CNT_W   = 32,
    parameter int RET_DEPTH = 16,   // return FIFO entries per port (pow2, >= 4)
    parameter int RET_BATCH = 16,  // used elements published per used->idx write (max)
    parameter int RET_HOLD  = 64,  // cycles a return may wait for batching while there is work
    parameter int CTRL_Q    = NUM_Q, // virtio-net control queue served here (NUM_Q = none)
    parameter int CTRL_MAX_PAIRS = 1, // VQ_PAIRS_SET accepts 1..CTRL_MAX_PAIRS
    parameter int WR_DEPTH  = 32,  // ring writes without completion (pow2, >= 2; a write waits when full)
    parameter int QID_W   = (NUM_Q > 1) ? $clog2(NUM_Q) : 1,
    parameter int KEEP_W  = DATA_W / 8,
    parameter int NUM_ERR = 10,
    parameter int NUM_STAT = 7
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // 1 = the platform keeps ring writes in order and a later read behind them
    // (one AXI ID into PCIe posted writes): used->idx is written without waiting
    // for the element write completions and the event read follows without
    // waiting for the used->idx completion. 0 (safe default) = wait for each.
    input  wire logic                  wr_ordered,

    // configuration
    input  wire logic                  cfg_valid,
    output logic                       cfg_ready,
    input  wire logic                  cfg_write,
    input  wire logic [QID_W-1:0]      cfg_queue,
    input  wire logic [3:0]            cfg_field,
    input  wire logic [63:0]           cfg_wdata,
    output logic [63:0]                cfg_rdata,

    // doorbell (always accepted)
    input  wire logic                  notify_valid,
    input  wire logic [QID_W-1:0]      notify_queue,

    // RX chain request
    input  wire logic                  s_rxreq_valid,
    output logic                       s_rxreq_ready,
    input  wire logic [QID_W-1:0]      s_rxreq_queue,

    // buffer elements (TX and RX share the data fields)
    output logic                       m_txbuf_valid,
    input  wire logic                  m_txbuf_ready,
    input  wire logic                  txbuf_idle,   // TX consumer can take a new chain
    output logic                       m_rxbuf_valid,
    input  wire logic                  m_rxbuf_ready,
    output logic [63:0]                m_buf_addr,
    output logic [31:0]                m_buf_len,
    output logic                       m_buf_write,
    output logic [15:0]                m_buf_head,
    output logic [QID_W-1:0]           m_buf_queue,
    output logic                       m_buf_last,
    output logic [1:0]                 m_buf_status,

    // used returns
    input  wire logic                  s_txret_valid,
    output logic                       s_txret_ready,
    input  wire logic [QID_W-1:0]      s_txret_queue,
    input  wire logic [15:0]           s_txret_id,
    input  wire logic [31:0]           s_txret_len,
    input  wire logic                  s_rxret_valid,
    output logic                       s_rxret_ready,
    input  wire logic [QID_W-1:0]      s_rxret_queue,
    input  wire logic [15:0]           s_rxret_id,
    input  wire logic [31:0]           s_rxret_len,
    input  wire logic                  s_rxret_more,

    // interrupt strobe
    output logic                       irq_valid,
    output logic [15:0]                irq_vector,
    output logic [QID_W-1:0]           irq_queue,

    // DMA read engine
    output logic [ADDR_W-1:0]          m_rd_desc_addr,
    output logic [LEN_W-1:0]           m_rd_desc_len,
    output logic [TAG_W-1:0]           m_rd_desc_tag,
    output logic                       m_rd_desc_valid,
    input  wire logic                  m_rd_desc_ready,
    input  wire logic [TAG_W-1:0]      s_rd_cpl_tag,
    input  wire logic [1:0]            s_rd_cpl_status,
    input  wire logic                  s_rd_cpl_valid,
    output logic                       s_rd_cpl_ready,
    input  wire logic [DATA_W-1:0]     s_rd_axis_tdata,
    input  wire logic [KEEP_W-1:0]     s_rd_axis_tkeep,
    input  wire logic                  s_rd_axis_tvalid,
    output logic                       s_rd_axis_tready,
    input  wire logic                  s_rd_axis_tlast,
    input  wire logic [0:0]            s_rd_axis_tuser,

    // DMA write engine
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

    // status
    output logic [NUM_Q-1:0]           q_needs_reset,
    output logic [NUM_Q-1:0]           q_pending,
    output logic [NUM_ERR-1:0][CNT_W-1:0]  cnt_err,
    // 0 notify, 1 tx chains, 2 rx chains, 3 rx empty, 4 used elems, 5 irq, 6 irq suppressed
    output logic [NUM_STAT-1:0][CNT_W-1:0] cnt_stat,
    // control queue: queue pairs set by VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET (1 after
    // the control queue is enabled), commands answered OK / ERR
    output logic [15:0]                ctrl_pairs,
    output logic [CNT_W-1:0]           cnt_ctrl_ok,
    output logic [CNT_W-1:0]           cnt_ctrl_err
);

    if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0) begin : g_chk_w
        $error("fabnic_virtq_split: DATA_W must be a power of two >= 64");
    end
    if (TAG_W < QID_W + 1 || WR_DEPTH < 2 || (WR_DEPTH & (WR_DEPTH - 1)) != 0) begin : g_chk_t
        $error("fabnic_virtq_split: TAG_W must be >= QID_W + 1, WR_DEPTH a power of two >= 2");
    end
    if (NUM_ERR != 10 || NUM_STAT != 7) begin : g_chk_n
        $error("fabnic_virtq_split: NUM_ERR/NUM_STAT are fixed (10/7)");
    end

    localparam int E_AVAIL_JUMP = 0, E_BAD_HEAD = 1, E_DMA = 2, E_NEXT = 3, E_LOOP = 4,
                   E_ZERO = 5, E_DIR = 6, E_IND_LEN = 7, E_IND_BAD = 8, E_RET = 9;
    localparam int S_NOTIFY = 0, S_TXCH = 1, S_RXCH = 2, S_RXEMPTY = 3, S_USED = 4,
                   S_IRQ = 5, S_IRQSUP = 6;
    localparam logic [1:0] ST_OK = 2'd0, ST_BAD = 2'd1, ST_EMPTY = 2'd2;

    // ------------------------------------------------------------------
    // per-queue state (small register file indexed by queue)
    // ------------------------------------------------------------------
    logic [63:0] q_desc  [NUM_Q];
    logic [63:0] q_avail [NUM_Q];
    logic [63:0] q_used  [NUM_Q];
    logic [15:0] q_size  [NUM_Q];
    logic        q_en    [NUM_Q];
    logic        q_evidx [NUM_Q];
    logic        q_ind   [NUM_Q];
    logic [15:0] q_vec   [NUM_Q];
    logic [15:0] q_lavail[NUM_Q];   // last_avail_idx
    logic [15:0] q_shadow[NUM_Q];   // last avail->idx read
    logic [15:0] q_uidx  [NUM_Q];   // used_idx
    logic        q_nr    [NUM_Q];
    logic [7:0]  q_ecode [NUM_Q];

    // ------------------------------------------------------------------
    // return FIFOs
    // ------------------------------------------------------------------
    localparam int TRW = QID_W + 16 + 32;
    localparam int RRW = QID_W + 16 + 32 + 1;
    // The FIFO heads (tf_*, rf_*) move into registers (tr_*, rr_*: one entry each,
    // full throughput) so that the arbitration reads flops; "half full" (tr_half,
    // rr_half: FIFO + head register >= RET_DEPTH / 2) is a register of the cycle
    // before (a batching hint only).
    logic           tr_valid, tr_ready, tf_valid, tf_ready, tr_half;
    logic [TRW-1:0] tr_data, tf_data;
    logic           rr_valid, rr_ready, rf_valid, rf_ready, rr_half;
    logic [RRW-1:0] rr_data, rf_data;
    logic [$clog2(RET_DEPTH):0] tf_count, rf_count;

    fabnic_fifo #(.WIDTH(TRW), .DEPTH(RET_DEPTH)) u_txret_fifo (
        .clk, .rst,
        .in_valid(s_txret_valid), .in_ready(s_txret_ready),
        .in_data({s_txret_queue, s_txret_id, s_txret_len}),
        .out_valid(tf_valid), .out_ready(tf_ready), .out_data(tf_data),
        .status_count(tf_count));
    fabnic_fifo #(.WIDTH(RRW), .DEPTH(RET_DEPTH)) u_rxret_fifo (
        .clk, .rst,
        .in_valid(s_rxret_valid), .in_ready(s_rxret_ready),
        .in_data({s_rxret_queue, s_rxret_id, s_rxret_len, s_rxret_more}),
        .out_valid(rf_valid), .out_ready(rf_ready), .out_data(rf_data),
        .status_count(rf_count));
    assign tf_ready = !tr_valid || tr_ready;
    assign rf_ready = !rr_valid || rr_ready;
    always_ff @(posedge clk) begin
        if (rst) begin
            tr_valid <= 1'b0;
            rr_valid <= 1'b0;
            tr_half  <= 1'b0;
            rr_half  <= 1'b0;
        end else begin
            if (tf_ready) begin
                tr_valid <= tf_valid;
                tr_data  <= tf_data;
            end
            if (rf_ready) begin
                rr_valid <= rf_valid;
                rr_data  <= rf_data;
            end
            tr_half <= 32'(tf_count) + 32'(tr_valid) >= RET_DEPTH / 2;
            rr_half <= 32'(rf_count) + 32'(rr_valid) >= RET_DEPTH / 2;
        end
    end

    // ------------------------------------------------------------------
    // engine
    // ------------------------------------------------------------------
    typedef enum logic [3:0] {
        ST_IDLE, ST_START, ST_RD_REQ, ST_RD_DATA, ST_RD_DONE, ST_WR_REQ, ST_WR_CPL,
        ST_WR_DONE, ST_EMIT, ST_CNEXT, ST_PF, ST_EV_REQ
    } state_t;
    typedef enum logic [1:0] {OP_TX, OP_RX, OP_RET} op_t;
    typedef enum logic [1:0] {K_AVAIL, K_HEAD, K_DESC, K_CDATA} rkind_t;
    typedef enum logic [1:0] {W_ELEM, W_IDX, W_AEVENT, W_CACK} wkind_t;

    state_t state;
    op_t    op;
    rkind_t rkind;
    wkind_t wkind;

    logic [QID_W-1:0] cq;          // current queue
    logic [QID_W-1:0] rr_ptr;      // TX round-robin pointer
    logic [NUM_Q-1:0] pending;

    logic [63:0]  rd_addr;
    logic [4:0]   rd_len;
    logic [127:0] rd_buf;
    logic [1:0]   rd_beat;
    logic         rd_got_data, rd_got_cpl, rd_err;

    logic [63:0]  wr_addr;
    logic [3:0]   wr_len;
    logic [63:0]  wr_data;
    logic         wr_desc_done, wr_data_done;
    // used-element writes are not waited for one by one: wr_pend counts writes
    // without completion, wr_icnt counts issued writes (completions return in
    // issue order)
    logic [7:0]   wr_pend, wr_icnt;
    logic         wr_issue;
    // Write owners: {operation write (avail_event / controlq ack), queue} of every
    // ring write, queued at its descriptor handshake and popped by its completion
    // (in issue order), so each write error is charged to the write's own queue.
    //  we_q[q]  a used element / used->idx write of q failed, not yet charged
    //           (DMA_ERR + needs-reset in an IDLE step, one queue per step)
    //  wf_q[q]  a used element / used->idx write of q failed since q was enabled:
    //           its batches are no longer published (no used->idx write, no event
    //           read), a further failure is not counted again
    //  wc_err   the avail_event / ack write of the operation in ST_WR_CPL failed
    localparam int WO_W = $clog2(WR_DEPTH);
    logic [QID_W:0]   wo_own [WR_DEPTH];
    logic [WO_W:0]    wo_wp, wo_cp, wo_cnt;
    logic             wo_room, wo_push;
    logic [QID_W:0]   wo_head, wo_new;
    logic [NUM_Q-1:0] we_q, wf_q;
    logic             wc_err, we_pv, we_go;
    logic [QID_W-1:0] we_pq;
    // Used-ring publishing runs in two background stages between operations:
    //  A (pa_st): elements of queue pa_q written (ret_pend of them beyond
    //     q_uidx), waiting for their completions; further returns of the same
    //     queue join it (up to RET_BATCH elements). Then, once stage B is free,
    //     used->idx is written (one short operation) and the batch moves to B.
    //  B (pb_st): PB_IDX waits for the used->idx completion, then the event read
    //     (used_event / avail->flags) is issued; PB_EVT waits for its data
    //     (caught below, ahead of any later walk read: the read engine returns
    //     in order), then the interrupt decision is made.
    // Completion targets (pa_tgt, pb_tgt) = wr_icnt after the stage's last
    // write; reached once wr_pend <= writes issued after it.
    localparam logic [1:0] PB_NONE = 2'd0, PB_IDX = 2'd1, PB_EVT = 2'd2;
    logic             pa_st;
    logic [QID_W-1:0] pa_q, pb_q;
    logic [7:0]       pa_tgt, pb_tgt;
    logic [1:0]       pb_st;
    logic [15:0]      pb_old, pb_new;
    // one published batch may wait behind B (pq_*): stage A need not wait for
    // B's event read; a further batch of the same queue merges into it (its
    // event read then covers both: need_event over (old, newest])
    logic             pq_v, nj_v, b_free;
    logic [QID_W-1:0] pq_q;
    logic [7:0]       pq_tgt;
    logic [15:0]      pq_old, pq_new, nj_old, nj_new;
    logic             pa_go, pb_go, take_pub, pa_join, tr_ok, rr_ok;
    logic             ev_kind, ev_have, ev_got_data, ev_got_cpl, ev_err, ev_dat_pend, ev_cpl_pend;
    logic [15:0]      ev_val;
    logic             rd_hs, rc_hs;   // read data / completion handshakes of the walk reads
    assign ev_dat_pend = (pb_st == PB_EVT) && !ev_got_data;
    assign ev_cpl_pend = (pb_st == PB_EVT) && !ev_got_cpl;
    // the interrupt decision is made in any state (below); an event read
    // error is handled in IDLE (needs-reset, counters shared with operations)
    // completion checks of the publish stages, registered: "the writes up to the
    // target have completed" stays true once true while the target is unchanged, so
    // the value of the cycle before is used, cleared when the target was written
    logic             pa_cok, pb_cok, pb_tw;
    assign pb_go = (pb_st == PB_EVT) ? (ev_got_data && ev_got_cpl && ev_err) :
                   (pb_st == PB_IDX) && (wr_ordered || pb_cok);
    assign wr_issue = (state == ST_WR_REQ) &&
                      (wr_desc_done || (wo_room && m_wr_desc_ready)) &&
                      (wr_data_done || m_wr_axis_tready);

    logic [15:0]  head, idx, walk_cnt, ind_n;
    logic         in_ind, chain_started, ae_done;
    // EVENT_IDX caught-up sequence of a TX queue as three operations (avail->idx
    // read; avail_event write; avail->idx re-read) with IDLE between them, so
    // returns and publish steps are not held behind three round trips. One
    // queue at a time (ae_q); another queue meanwhile uses the one-operation form.
    localparam logic [1:0] AE_NONE = 2'd0, AE_WRITE = 2'd1, AE_REREAD = 2'd2;
    logic [1:0]       ae_st;
    logic [QID_W-1:0] ae_q;
    logic             ae_split;
    logic [63:0]  ind_base;

    logic [15:0]  ret_id;
    logic [31:0]  ret_len;
    logic         ret_more, ret_rx, rx_lock;
    logic [15:0]  ret_pend;
    // ret_pend when the receive chain in progress (rx_lock) wrote its first
    // element: a chain dropped part-way rolls back to it, so the completed
    // chains of the same batch are still published
    logic [15:0]  ret_base;

    // publish stage A step / return admission (see the stage description above)
    assign pa_go = pa_st && (pb_st == PB_NONE || !pq_v || pq_q == pa_q) && !rx_lock &&
                   (wr_ordered || pa_cok);
    // a charge of a queue's ring write error (we_pv: registered, see below)
    assign we_go    = we_pv;
    assign take_pub = (state == ST_IDLE) && (pa_go || pb_go || we_go);
    // a used->idx write completes its operation (new B job, unless no vector)
    assign nj_v   = (state == ST_WR_DONE) && !rd_err && (wkind == W_IDX) && (q_vec[cq] != 16'hFFFF);
    assign nj_old = q_uidx[cq];
    assign nj_new = q_uidx[cq] + ret_pend;
    // B finishes this cycle (interrupt decision, or an error handled in IDLE)
    assign b_free = (pb_st == PB_NONE) ||
                    ((pb_st == PB_EVT) && ev_got_data && ev_got_cpl && !ev_err) ||
                    (take_pub && pb_go && (pb_st == PB_EVT || wf_q[pb_q]));
    // stage B's target is written this cycle (see the stage B jobs below)
    assign pb_tw = b_free && (pq_v || nj_v);
    // a new return may start a batch when stage A is free, or join it (same queue)
    // room in stage A's batch, registered; not valid in the cycle after ret_pend or
    // pa_q may have changed (ST_START, ST_WR_DONE, a publish step)
    logic pj_q, br_q;
    always_ff @(posedge clk) begin
        pa_cok <= (wr_pend <= 8'(wr_icnt - pa_tgt)) && state != ST_WR_DONE && !rst;
        pb_cok <= (wr_pend <= 8'(wr_icnt - pb_tgt)) && !pb_tw && !rst;
        pj_q   <= (32'(ret_pend) < RET_BATCH) && (ret_pend < q_size[pa_q]) &&
                  state != ST_START && state != ST_WR_DONE && !take_pub && !rst;
        // room for one more element after the one being written (ret_pend and cq
        // do not change in ST_WR_REQ / ST_WR_CPL, which precede ST_WR_DONE)
        br_q   <= (32'(ret_pend) + 2 <= RET_BATCH) && ((ret_pend + 16'd2) <= q_size[cq]);
    end
    assign pa_join = pj_q;
    assign tr_ok = !pa_st || (pa_join && tr_data[TRW-1 -: QID_W] == pa_q);
    assign rr_ok = !pa_st || (pa_join && rr_data[RRW-1 -: QID_W] == pa_q) || rx_lock;

    // element register
    logic         el_valid, el_rx;

    // control queue walk: the first 4 bytes of the device-readable part
    // ({class, cmd, le16 data}) are collected, the ack byte is written into the
    // first device-writable buffer, then the chain is returned with used len 1
    logic         is_ctrl, c_wseen, c_last;
    logic [31:0]  c_buf;
    logic [2:0]   c_have, c_rdn;
    logic [63:0]  c_ack_addr;
    logic [2:0]   c_need;
    assign is_ctrl = (CTRL_Q < NUM_Q) && (32'(cq) == CTRL_Q) && (op == OP_TX);
    assign c_need  = 3'd4 - c_have;
    logic         c_ok;
    assign c_ok = (c_have == 3'd4) && (c_buf[7:0] == 8'd4) && (c_buf[15:8] == 8'd0) &&
                  (c_buf[31:16] != 16'd0) && (32'(c_buf[31:16]) <= CTRL_MAX_PAIRS);

    // avail-ring head prefetch: one cache for TX walks [0], one for RX walks [1].
    // A head read fetches up to 8 ring entries (16 B); the 7 spare heads are
    // kept (shift register) for the next walks of the same queue. Invalidated by
    // any config write to that queue and when the other cache advances it.
    logic [111:0]     hc_d  [2];
    logic [2:0]       hc_n  [2];
    logic [QID_W-1:0] hc_q  [2];
    logic             hfc;          // current head came from the cache
    // descriptor prefetch: after a head read of n entries, the first descriptor
    // of each of the n heads is read with n DMA reads in flight (ST_PF); the
    // current walk uses entry 0, the others are cached next to their heads
    logic [895:0]     dc_d  [2];    // first descriptors of the cached heads
    logic [127:0]     pf_cur;       // first descriptor of the head taken from the cache
    logic [127:0]     pf_buf [8];
    logic [127:0]     pf_heads;
    logic [3:0]       pf_iss, pf_dat, pf_cpl;
    logic [1:0]       pf_beat;
    logic [63:0]      pf_addr;
    logic [3:0]       rd_n;         // ring entries requested by the head read
    logic             opx;
    assign opx = (op == OP_RX);


    // entries to fetch: min(shadow - last_avail, 8, entries up to the ring end)
    function automatic logic [3:0] avail_n(input logic [15:0] shadow, input logic [15:0] la,
                                           input logic [15:0] size);
        logic [15:0] a, w;
        a = shadow - la;
        w = size - (la & (size - 16'd1));
        if (w < a) a = w;
        if (a > 16'd8) a = 16'd8;
        return a[3:0];
    endfunction

    // convenience views of the current queue
    logic [15:0] c_size, c_mask, c_lim;
    assign c_size = q_size[cq];
    assign c_mask = c_size - 16'd1;
    assign c_lim  = in_ind ? ind_n : c_size;

    // next-group head read: ST_PF issues, behind the rd_n descriptor reads, the
    // head read of the following avail entries (up to 8, already covered by the
    // shadow avail->idx). Kept per walk direction with its queue and avail
    // position; used (instead of a head read round trip) when the cache runs out
    // and last_avail_idx equals that position. Dropped by config writes, by a
    // prefetch of the same queue that reads no next group, and when the other
    // direction walks the queue (so a kept group is always the one right after
    // the cached heads).
    logic [127:0]     hn_d  [2];
    logic [3:0]       hn_n  [2];
    logic [15:0]      hn_pos[2];
    logic [QID_W-1:0] hn_q  [2];
    logic [127:0]     hn_buf;
    // pf_nxt (avail index after the group being prefetched) and pf_m (entries of
    // the next group) are registers recomputed every cycle from the queue state,
    // which is constant in ST_PF: pf_nxt holds from the second cycle of ST_PF
    // (q_lavail already counts head 0), pf_m from the third (pf_ok); the next
    // head read and the end of ST_PF wait for pf_ok.
    logic [15:0]      pf_nxt;
    logic [3:0]       pf_m, pf_tot;
    logic [1:0]       pf_age;
    logic             pf_ok;
    assign pf_tot = rd_n + {3'd0, pf_m != 4'd0};
    assign pf_ok  = (pf_age == 2'd2);
    always_ff @(posedge clk) begin
        pf_nxt <= q_lavail[cq] + {12'd0, rd_n} - 16'd1;
        pf_m   <= avail_n(q_shadow[cq], pf_nxt, c_size);
        if (state != ST_PF)        pf_age <= '0;
        else if (pf_age != 2'd2)   pf_age <= pf_age + 2'd1;
    end

    // background refill: beside the walks (and their own reads), one small FSM
    // fetches the next group of a walk direction ahead of consumption: the head
    // read of the avail entries after the cached heads (up to 8, covered by the
    // shadow avail->idx), then the first descriptor of each of them; when done
    // they become the next group (hn_*) with its descriptors (hn_dd, hn_dv = 1),
    // so the walk that empties the cache starts without a ring round trip.
    // Started only from IDLE with no config access; a walk of its direction
    // that finds no cached head waits for it; results are dropped on a read
    // error (the walk re-reads and sees it) or when the other direction takes
    // a head of the queue. Config writes wait until it is idle.
    typedef enum logic [1:0] {BG_IDLE, BG_HEAD, BG_DESC} bg_t;
    bg_t              bg_st;
    logic             bg_x, bg_kill, bg_err, bg_pref;
    logic [QID_W-1:0] bg_q;
    logic [15:0]      bg_pos;
    logic [3:0]       bg_n, bg_iss, bg_dat, bg_cpl;
    logic [1:0]       bg_beat;
    logic [127:0]     bg_heads;
    logic [1023:0]    hn_dd [2];
    logic             hn_dv [2];
    // behind its descriptor reads the refill also reads the heads of the group
    // after (h2_*, up to 8, covered by the shadow), so the next refill needs no
    // head read round trip: one round trip per group in the steady state
    logic [127:0]     h2_d  [2];
    logic [3:0]       h2_n  [2];
    logic [15:0]      h2_pos[2];
    logic [QID_W-1:0] h2_q  [2];
    logic [127:0]     bg_h2;
    logic [3:0]       bg_m2, bg_tot;
    logic [15:0]      m2_a, m2_w;     // read-ahead head count, first stage (below)
    logic [1:0]       bg_age;
    logic             bg_aged;
    logic             bg_go, bg_gx, bg_gdesc, bg_gh2, kill_now;
    logic [QID_W-1:0] bg_gq;
    logic [15:0]      bg_gpos;
    logic [3:0]       bg_gm;
    assign bg_tot = bg_n + {3'd0, bg_m2 != 4'd0};

    // min(a, w, 8) of two registered differences (the second stage of avail_n)
    function automatic logic [3:0] min8(input logic [15:0] a, input logic [15:0] w);
        logic lt, a8, w8;
        lt = w < a;
        a8 = a > 16'd8;
        w8 = w > 16'd8;
        if (lt) return w8 ? 4'd8 : w[3:0];
        return a8 ? 4'd8 : a[3:0];
    endfunction

    // Refill start decision, in two register stages acted on in the third cycle:
    //  S1 (per walk direction x, from the queue hc_q[x]): the position after the
    //     cached heads p = last_avail_idx + hc_n, the shadow avail->idx, the two
    //     differences of avail_n (a = shadow - p, w = room up to the ring end),
    //     and whether the queue is usable;
    //  S2 (per direction): position compares against the next-group and read-ahead
    //     groups, whether a refill is due, its head count (min(a, w, 8) or the
    //     group's) -> c2_*;
    //  the acting cycle picks the direction (bg_pref first).
    // The inputs (queue state, cache and group registers) change only in the
    // cycles flagged by bg_mod; bg_stab says there was none in the two cycles
    // before, so c2_* describes the current state.
    logic [15:0]      s1_p  [2];
    logic [15:0]      s1_sh [2];
    logic [15:0]      s1_a  [2];
    logic [15:0]      s1_w  [2];
    logic             s1_ok [2];
    logic             c2_ok [2];
    logic             c2_desc [2];
    logic             c2_h2 [2];
    logic [3:0]       c2_m  [2];
    logic [15:0]      c2_p  [2];
    logic             bg_mod, bs1, bg_stab;
    always_ff @(posedge clk) begin
        for (int x = 0; x < 2; x++) begin
            logic [QID_W-1:0] q;
            logic [15:0]      sz, p;
            logic             hok, h2m;
            q  = hc_q[x];
            sz = q_size[q];
            p  = q_lavail[q] + {13'd0, hc_n[x]};
            s1_p[x]  <= p;
            s1_sh[x] <= q_shadow[q];
            s1_a[x]  <= q_shadow[q] - p;
            s1_w[x]  <= sz - (p & (sz - 16'd1));
            s1_ok[x] <= hc_n[x] != 3'd0 && q_en[q] && !q_nr[q] && sz != 16'd0;
            // S2
            hok  = (hn_n[x] != 4'd0) && (hn_q[x] == hc_q[x]) && (hn_pos[x] == s1_p[x]);
            h2m  = (h2_n[x] != 4'd0) && (h2_q[x] == hc_q[x]) && (h2_pos[x] == s1_p[x]);
            // min(a, w, 8) != 0 exactly when the shadow is ahead of p (the ring-end
            // room of a nonzero size is >= 1): an equality, no subtract in the decision
            c2_ok[x]   <= s1_ok[x] && (hok ? !hn_dv[x] : (h2m || s1_sh[x] != s1_p[x]));
            c2_desc[x] <= hok || h2m;
            c2_h2[x]   <= !hok && h2m;
            c2_m[x]    <= hok ? hn_n[x] : h2m ? h2_n[x] : min8(s1_a[x], s1_w[x]);
            c2_p[x]    <= s1_p[x];
        end
    end
    // ST_START's per-queue conditions, registered every cycle: usable (enabled,
    // not needs-reset, size != 0), caught up (last_avail_idx == shadow) and the
    // avail_n differences; the walk decision table sc below. They describe the state ST_START sees unless
    // the cycle before changed it (st_mod; then ST_START waits a cycle: st_fresh).
    logic [NUM_Q-1:0] qf_ok, qf_caught;
    logic [15:0]      qf_a [NUM_Q];
    logic [15:0]      qf_w [NUM_Q];
    logic             st_mod, st_fresh, bg_end;
    always_ff @(posedge clk) begin
        for (int q = 0; q < NUM_Q; q++) begin
            qf_ok[q]     <= q_en[q] && !q_nr[q] && q_size[q] != 16'd0;
            qf_caught[q] <= q_lavail[q] == q_shadow[q];
            qf_a[q]      <= q_shadow[q] - q_lavail[q];
            qf_w[q]      <= q_size[q] - (q_lavail[q] & (q_size[q] - 16'd1));
        end
        st_fresh <= !st_mod && !rst;
    end
    // ST_START's walk decision per walk direction x and queue q (decide), registered
    // every cycle from the state; ST_START (act) reads sc[opx][cq], valid with st_fresh
    // (its inputs change only in st_mod cycles, a refill start included):
    //   AEW / AER  transmitq caught up, EVENT_IDX sequence: avail_event write / re-read
    //   AV         caught up: read avail->idx
    //   HIT        a cached head of the queue (sh: the hit alone, for the refill wait)
    //   HND / HN   the next group starts at last_avail_idx, with / without descriptors
    //   RD         head read
    localparam logic [2:0] SC_AEW = 3'd0, SC_AER = 3'd1, SC_AV = 3'd2, SC_HIT = 3'd3,
                           SC_HND = 3'd4, SC_HN = 3'd5, SC_RD = 3'd6;
    logic [2:0]       sc [2][NUM_Q];
    logic [NUM_Q-1:0] sh [2];
    logic [2:0]       sc_cur;
    function automatic logic [2:0] st_code(input logic x, input logic caught, input logic hit,
                                           input logic hn, input logic dv, input logic aeq,
                                           input logic [1:0] aes);
        if (!x && caught && aeq && aes == AE_WRITE)  return SC_AEW;
        if (!x && caught && aeq && aes == AE_REREAD) return SC_AER;
        if (caught) return SC_AV;
        if (hit)    return SC_HIT;
        if (hn)     return dv ? SC_HND : SC_HN;
        return SC_RD;
    endfunction
    always_ff @(posedge clk) begin
        for (int x = 0; x < 2; x++) begin
            for (int q = 0; q < NUM_Q; q++) begin
                logic hit, hn;
                hit = (hc_q[x] == QID_W'(q)) && (hc_n[x] != 3'd0);
                hn  = (hn_n[x] != 4'd0) && (hn_q[x] == QID_W'(q)) && (hn_pos[x] == q_lavail[q]);
                sh[x][q] <= hit;
                sc[x][q] <= st_code(x != 0, q_lavail[q] == q_shadow[q], hit, hn, hn_dv[x],
                                    ae_q == QID_W'(q), ae_st);
            end
        end
    end
    assign sc_cur = sc[opx][cq];
    // a walk in ST_START takes the next group (a probe for the tests; valid with st_fresh)
    logic hn_hit;
    assign hn_hit = st_fresh && (sc_cur == SC_HND || sc_cur == SC_HN);
    assign st_mod = bg_go || (state == ST_IDLE && cfg_valid && cfg_write) ||
                    (take_pub && (pb_go ? (pb_st == PB_EVT) : !pa_go)) ||
                    (state == ST_RD_DONE) || (state == ST_WR_DONE && rd_err) ||
                    (state == ST_PF) || bg_end;

    // cycles that may change the decision's inputs
    assign bg_mod = (state == ST_START && op != OP_RET) || (state == ST_PF) ||
                    (state == ST_RD_DONE && (rd_err || rkind == K_AVAIL || rkind == K_HEAD)) ||
                    (state == ST_WR_DONE && rd_err) ||
                    (state == ST_IDLE && cfg_valid && cfg_write) ||
                    (take_pub && (pb_go ? (pb_st == PB_EVT) : !pa_go)) ||
                    (bg_st != BG_IDLE) || bg_go;
    always_ff @(posedge clk) begin
        bs1     <= !bg_mod && !rst;
        bg_stab <= bs1 && !bg_mod && !rst;
    end
    assign bg_end  = (bg_st == BG_DESC) && bg_aged && (bg_dat == bg_tot) && (bg_cpl == bg_tot);
    assign bg_gx   = c2_ok[bg_pref] ? bg_pref : !bg_pref;
    assign bg_go   = (c2_ok[0] || c2_ok[1]) && bg_stab && state == ST_IDLE && !cfg_valid &&
                     bg_st == BG_IDLE;
    assign bg_gq   = hc_q[bg_gx];
    assign bg_gpos = c2_p[bg_gx];
    assign bg_gm   = c2_m[bg_gx];
    assign bg_gdesc = c2_desc[bg_gx];
    assign bg_gh2  = c2_h2[bg_gx];

    // read-ahead head count of a refill: the avail_n differences from the refill's
    // registers (S1), min(a, w, 8) into bg_m2 (S2); bg_age counts the cycles since
    // the refill started (2: bg_m2 holds a result of its registers)
    assign bg_aged = (bg_age == 2'd2);
    always_ff @(posedge clk) begin
        logic [15:0] p, sz;
        p    = bg_pos + {12'd0, bg_n};
        sz   = q_size[bg_q];
        m2_a <= q_shadow[bg_q] - p;
        m2_w <= sz - (p & (sz - 16'd1));
    end

    // ring reads of three owners (walk/prefetch, event read, background refill)
    // share the in-order read stream: the owner of each issued read is queued
    // and steers its data and completion (at most 9 + 1 + 9 reads in flight)
    localparam logic [1:0] O_MAIN = 2'd0, O_EV = 2'd1, O_BG = 2'd2;
    logic [1:0]  rt_own [32];
    logic [4:0]  rt_wp, rt_dp, rt_cp;
    logic [1:0]  own_d, own_c, own_new;
    logic        main_rd_v, bg_rd_v, bg_dhs, bg_chs;
    logic [63:0] bg_addr;
    assign own_d = rt_own[rt_dp];
    assign own_c = rt_own[rt_cp];

    // descriptor fields (little-endian, lane 0 first)
    logic [63:0] d_addr;
    logic [31:0] d_len;
    logic [15:0] d_flags, d_next, rd_u16;
    assign d_addr  = rd_buf[63:0];
    assign d_len   = rd_buf[95:64];
    assign d_flags = rd_buf[111:96];
    assign d_next  = rd_buf[127:112];
    assign rd_u16  = rd_buf[15:0];

    // descriptor checks
    logic       d_bad;
    logic [3:0] d_why;
    always_comb begin
        d_bad = 1'b1;
        d_why = 4'(E_ZERO);
        if (d_flags[2]) begin
            if (in_ind || !q_ind[cq] || d_flags[0]) d_why = 4'(E_IND_BAD);
            else if (d_len == 0 || d_len[3:0] != 4'd0 || (d_len >> 4) > {16'd0, c_size})
                d_why = 4'(E_IND_LEN);
            else d_bad = 1'b0;
        end else begin
            if (d_len == 0) d_why = 4'(E_ZERO);
            else if (is_ctrl ? (!d_flags[1] && c_wseen) : (d_flags[1] != (op == OP_RX)))
                d_why = 4'(E_DIR);
            else if (d_flags[0] && d_next >= c_lim) d_why = 4'(E_NEXT);
            else if (d_flags[0] && (walk_cnt + 16'd1) >= c_lim) d_why = 4'(E_LOOP);
            else d_bad = 1'b0;
        end
    end

    // TX round robin pick
    logic             tx_any;
    logic [QID_W-1:0] tx_pick;
    always_comb begin
        tx_any  = 1'b0;
        tx_pick = rr_ptr;
        for (int k = NUM_Q - 1; k >= 0; k--) begin
            logic [QID_W:0] qq;
            qq = {1'b0, rr_ptr} + QID_W'(k) + (QID_W+1)'(1);
            if (qq >= (QID_W+1)'(NUM_Q)) qq = qq - (QID_W+1)'(NUM_Q);
            if (pending[qq[QID_W-1:0]]) begin
                tx_any  = 1'b1;
                tx_pick = qq[QID_W-1:0];
            end
        end
    end

    // arbitration in IDLE: publish step > cfg > rx returns > tx returns > rx
    // request > tx work. Returns wait (up to half a FIFO or RET_HOLD cycles)
    // while there is chain work, so that several of them share one used->idx
    // write and one event read; with no work they go at once. While stage A
    // holds a batch, only returns of its queue are taken (they join it), the
    // others accumulate. Once the first element of a multi-chain RX frame is
    // taken (rx_lock), the rest follow.
    logic take_rr, take_tr, take_rxreq, take_tx, tr_now, rr_now, cont_tr, cont_rr, batch_room;
    logic work, tr_old, rr_old, tx_known;
    // chains known to be there for the queue the TX pick pointed at the cycle before
    // (a batching hint only)
    // the round-robin pick is registered (tp_v, tp_q: the cycle before); take_tx checks
    // that the picked queue is still pending (a notify is seen one cycle later)
    logic             tp_v;
    logic [QID_W-1:0] tp_q;
    always_ff @(posedge clk) begin
        tp_v     <= tx_any && !rst;
        tp_q     <= tx_pick;
        tx_known <= q_lavail[tp_q] != q_shadow[tp_q];
    end
    logic [15:0] tr_age, rr_age;    // cycles the oldest return has waited
    // tr_old / rr_old = (age >= RET_HOLD), kept as registers beside the ages
    always_ff @(posedge clk) begin
        if (rst || !tr_valid || tr_ready) begin
            tr_age <= '0;
            tr_old <= RET_HOLD == 0;
        end else if (!tr_old) begin
            tr_age <= tr_age + 16'd1;
            tr_old <= 32'(tr_age) + 1 >= RET_HOLD;
        end
        if (rst || !rr_valid || rr_ready) begin
            rr_age <= '0;
            rr_old <= RET_HOLD == 0;
        end else if (!rr_old) begin
            rr_age <= rr_age + 16'd1;
            rr_old <= 32'(rr_age) + 1 >= RET_HOLD;
        end
    end
    always_comb begin
        // the RX mover asks for chains in bursts: hold returns while one may come
        // (TX: chains known to be there; a queue caught up with its shadow
        // avail->idx only needs a re-check, which should not hold returns)
        work       = s_rxreq_valid || (tp_v && txbuf_idle && tx_known);
        tr_now     = tr_valid && tr_ok && (tr_half || tr_old || !work);
        rr_now     = rr_valid && rr_ok && (rr_half || rr_old || rx_lock || !work);
        cfg_ready  = (state == ST_IDLE) && !pa_st && (pb_st == PB_NONE) && (bg_st == BG_IDLE) &&
                     (we_q == '0);
        take_rr    = (state == ST_IDLE) && !take_pub && !cfg_valid && rr_now;
        take_tr    = (state == ST_IDLE) && !take_pub && !cfg_valid && !rr_now && !rx_lock
                     && tr_now;
        take_rxreq = (state == ST_IDLE) && !take_pub && !cfg_valid && !rr_now && !rx_lock
                     && !tr_now && s_rxreq_valid;
        take_tx    = (state == ST_IDLE) && !take_pub && !cfg_valid && !rr_now && !rx_lock
                     && !tr_now && !s_rxreq_valid && tp_v && pending[tp_q] && txbuf_idle
                     // a controlq walk ends in a return: not while one is published
                     && (!pa_st || 32'(tp_q) != CTRL_Q);
        batch_room = (state == ST_WR_DONE) && !rd_err && (wkind == W_ELEM) && (op == OP_RET)
                     && !ret_more && br_q;
        cont_tr    = batch_room && !ret_rx && tr_valid && (tr_data[TRW-1 -: QID_W] == cq);
        cont_rr    = batch_room && ret_rx && rr_valid && (rr_data[RRW-1 -: QID_W] == cq);
        rr_ready      = take_rr || cont_rr;
        tr_ready      = take_tr || cont_tr;
        s_rxreq_ready = take_rxreq;
    end

    // config read
    always_comb begin
        cfg_rdata = '0;
        unique case (cfg_field)
            4'd0: cfg_rdata = q_desc[cfg_queue];
            4'd1: cfg_rdata = q_avail[cfg_queue];
            4'd2: cfg_rdata = q_used[cfg_queue];
            4'd3: cfg_rdata[15:0] = q_size[cfg_queue];
            4'd4: cfg_rdata[0] = q_en[cfg_queue];
            4'd5: cfg_rdata[1:0] = {q_ind[cfg_queue], q_evidx[cfg_queue]};
            4'd6: cfg_rdata[15:0] = q_vec[cfg_queue];
            4'd7: cfg_rdata[15:0] = q_lavail[cfg_queue];
            4'd8: cfg_rdata[15:0] = q_uidx[cfg_queue];
            4'd9: cfg_rdata[15:0] = {q_ecode[cfg_queue], 6'd0, q_nr[cfg_queue], q_en[cfg_queue]};
            default: cfg_rdata = '0;
        endcase
    end

    // DMA ports
    assign pf_addr          = q_desc[cq] + {44'd0, pf_heads[pf_iss[2:0]*16 +: 16] & c_mask, 4'd0};
    // the walk's reads go first; the background refill issues in the gaps
    assign main_rd_v = (state == ST_RD_REQ) || (state == ST_EV_REQ) ||
                       (state == ST_PF && (pf_iss < rd_n || (pf_ok && pf_iss < pf_tot)));
    assign bg_rd_v   = ((bg_st == BG_HEAD) && (bg_iss == 4'd0)) ||
                       ((bg_st == BG_DESC) && (bg_iss < bg_tot) && (bg_iss != bg_n || bg_aged));
    logic bg_hrd;   // the current refill read is a head read
    assign bg_hrd    = (bg_st == BG_HEAD) || (bg_iss == bg_n);
    assign bg_addr   = (bg_st == BG_HEAD) ?
                       q_avail[bg_q] + 64'd4 + {47'd0, bg_pos & (q_size[bg_q] - 16'd1), 1'b0} :
                       (bg_iss == bg_n) ?
                       q_avail[bg_q] + 64'd4 + {47'd0, (bg_pos + {12'd0, bg_n}) & (q_size[bg_q] - 16'd1),
                                                1'b0} :
                       q_desc[bg_q] + {44'd0, bg_heads[bg_iss[2:0]*16 +: 16] & (q_size[bg_q] - 16'd1),
                                       4'd0};
    assign own_new   = !main_rd_v ? O_BG : (state == ST_EV_REQ) ? O_EV : O_MAIN;
    assign m_rd_desc_addr   = ADDR_W'(!main_rd_v ? bg_addr : (state != ST_PF) ? rd_addr :
                              (pf_iss == rd_n) ?
                              q_avail[cq] + 64'd4 + {47'd0, pf_nxt & c_mask, 1'b0} : pf_addr);
    logic [4:0] pf_len;
    assign pf_len           = (pf_iss == rd_n) ? {pf_m, 1'b0} : 5'd16;
    logic [4:0] rq_len;
    assign rq_len           = !main_rd_v ? ((bg_st == BG_HEAD) ? {bg_n, 1'b0} :
                                            bg_hrd ? {bg_m2, 1'b0} : 5'd16) :
                              (state != ST_PF) ? rd_len : pf_len;
    assign m_rd_desc_len    = LEN_W'(rq_len);
    assign m_rd_desc_tag    = '0;
    assign m_rd_desc_valid  = main_rd_v || bg_rd_v;
    assign s_rd_axis_tready = (own_d == O_EV) ? ev_dat_pend : (own_d == O_BG) ? 1'b1 :
                              (((state == ST_RD_DATA) && !rd_got_data) || (state == ST_PF));
    assign s_rd_cpl_ready   = (own_c == O_EV) ? ev_cpl_pend : (own_c == O_BG) ? 1'b1 :
                              (((state == ST_RD_DATA) && !rd_got_cpl) || (state == ST_PF));
    assign rd_hs  = s_rd_axis_tvalid && s_rd_axis_tready && (own_d == O_MAIN);
    assign rc_hs  = s_rd_cpl_valid && s_rd_cpl_ready && (own_c == O_MAIN);
    assign bg_dhs = s_rd_axis_tvalid && s_rd_axis_tready && (own_d == O_BG);
    assign bg_chs = s_rd_cpl_valid && s_rd_cpl_ready && (own_c == O_BG);
    // a head taken by the other walk direction makes a refill of the queue stale
    assign kill_now = (state == ST_RD_DONE) && (rkind == K_HEAD) && (op != OP_RET) &&
                      (bg_st != BG_IDLE) && (bg_x != opx) && (bg_q == cq);

    always_ff @(posedge clk) begin
        if (rst) begin
            rt_wp <= '0;
            rt_dp <= '0;
            rt_cp <= '0;
        end else begin
            if (m_rd_desc_valid && m_rd_desc_ready) begin
                rt_own[rt_wp] <= own_new;
                rt_wp <= rt_wp + 5'd1;
            end
            if (s_rd_axis_tvalid && s_rd_axis_tready && s_rd_axis_tlast) rt_dp <= rt_dp + 5'd1;
            if (s_rd_cpl_valid && s_rd_cpl_ready) rt_cp <= rt_cp + 5'd1;
        end
    end

    assign m_wr_desc_addr   = ADDR_W'(wr_addr);
    assign m_wr_desc_len    = LEN_W'(wr_len);
    assign m_wr_desc_tag    = TAG_W'(wo_new);
    assign m_wr_desc_valid  = (state == ST_WR_REQ) && !wr_desc_done && wo_room;
    assign m_wr_axis_tdata  = DATA_W'(wr_data);
    assign m_wr_axis_tkeep  = KEEP_W'((64'd1 << wr_len) - 64'd1);
    assign m_wr_axis_tvalid = (state == ST_WR_REQ) && !wr_data_done;
    assign m_wr_axis_tlast  = 1'b1;
    assign s_wr_cpl_ready   = 1'b1;

    // write owner queue (see wo_own): pushed at the descriptor handshake, popped by
    // each completion; wo_room is the room after the cycle's push and pop, registered
    assign wo_new  = {wkind == W_AEVENT || wkind == W_CACK, cq};
    assign wo_push = m_wr_desc_valid && m_wr_desc_ready;
    assign wo_head = wo_own[wo_cp[WO_W-1:0]];
    assign wo_cnt  = wo_wp - wo_cp;
    always_ff @(posedge clk) begin
        if (rst) begin
            wo_wp   <= '0;
            wo_cp   <= '0;
            wo_room <= 1'b1;
        end else begin
            if (wo_push) begin
                wo_own[wo_wp[WO_W-1:0]] <= wo_new;
                wo_wp <= wo_wp + 1'b1;
            end
            if (s_wr_cpl_valid) wo_cp <= wo_cp + 1'b1;
            wo_room <= (wo_wp + (WO_W+1)'(wo_push) - wo_cp - (WO_W+1)'(s_wr_cpl_valid)) <
                       (WO_W+1)'(WR_DEPTH);
        end
    end
    // the charge step's queue: the lowest queue with an uncharged write error, registered;
    // we_pv is not set in the cycle after a change of we_q by a charge or a config write
    // (those are the only clears), so we_q[we_pq] still holds when we_pv is
    always_ff @(posedge clk) begin
        we_pv <= 1'b0;
        we_pq <= '0;
        for (int q = NUM_Q - 1; q >= 0; q--) begin
            if (we_q[q]) begin
                we_pv <= !rst && !(take_pub && !pb_go && !pa_go) &&
                         !(state == ST_IDLE && cfg_valid && cfg_write);
                we_pq <= QID_W'(q);
            end
        end
    end

    assign m_txbuf_valid = el_valid && !el_rx;
    assign m_rxbuf_valid = el_valid && el_rx;
    logic el_ready;
    assign el_ready = el_rx ? m_rxbuf_ready : m_txbuf_ready;

    always_comb begin
        for (int k = 0; k < NUM_Q; k++) begin
            q_needs_reset[k] = q_nr[k];
        end
    end
    assign q_pending = pending;

    // read collector: up to 16 bytes from lane 0 upwards
    localparam int CW = (DATA_W >= 128) ? 128 : DATA_W;
    localparam int CB = 128 / CW;

    logic [CNT_W-1:0] cerr [NUM_ERR];
    logic [CNT_W-1:0] cst  [NUM_STAT];
    always_comb begin
        for (int k = 0; k < NUM_ERR; k++) cnt_err[k] = cerr[k];
        for (int k = 0; k < NUM_STAT; k++) cnt_stat[k] = cst[k];
    end

    // irq decision helper
    function automatic logic need_event(input logic [15:0] ev, input logic [15:0] nw,
                                        input logic [15:0] old);
        logic [15:0] a, b;
        a = nw - ev - 16'd1;
        b = nw - old;
        return a < b;
    endfunction

    always_ff @(posedge clk) begin
        irq_valid <= 1'b0;

        if (rst) begin
            state    <= ST_IDLE;
            op       <= OP_TX;
            rkind    <= K_AVAIL;
            wkind    <= W_ELEM;
            cq       <= '0;
            rr_ptr   <= '0;
            pending  <= '0;
            hfc      <= 1'b0;
            c_wseen  <= 1'b0;
            c_have   <= '0;
            c_buf    <= '0;
            c_last   <= 1'b0;
            c_rdn    <= '0;
            c_ack_addr <= '0;
            ctrl_pairs   <= 16'd1;
            cnt_ctrl_ok  <= '0;
            cnt_ctrl_err <= '0;
            rd_n     <= '0;
            for (int k = 0; k < 2; k++) begin
                hc_n[k] <= '0; hc_q[k] <= '0; hc_d[k] <= '0; dc_d[k] <= '0;
                hn_n[k] <= '0; hn_q[k] <= '0; hn_d[k] <= '0; hn_pos[k] <= '0;
            end
            pf_iss <= '0; pf_dat <= '0; pf_cpl <= '0; pf_beat <= '0; pf_heads <= '0;
            pf_cur <= '0;
            hn_buf <= '0;
            bg_st <= BG_IDLE; bg_x <= 1'b0; bg_kill <= 1'b0; bg_err <= 1'b0; bg_pref <= 1'b0;
            bg_q <= '0; bg_pos <= '0; bg_n <= '0; bg_iss <= '0; bg_dat <= '0; bg_cpl <= '0;
            bg_beat <= '0; bg_heads <= '0; bg_h2 <= '0; bg_m2 <= '0; bg_age <= '0;
            for (int k = 0; k < 2; k++) begin
                hn_dd[k] <= '0; hn_dv[k] <= 1'b0;
                h2_d[k] <= '0; h2_n[k] <= '0; h2_pos[k] <= '0; h2_q[k] <= '0;
            end
            el_valid <= 1'b0;
            el_rx    <= 1'b0;
            rx_lock  <= 1'b0;
            ret_pend <= '0;
            ret_base <= '0;
            rd_got_data <= 1'b0;
            rd_got_cpl  <= 1'b0;
            rd_err      <= 1'b0;
            rd_beat     <= '0;
            wr_desc_done <= 1'b0;
            wr_data_done <= 1'b0;
            wr_pend      <= '0;
            wr_icnt      <= '0;
            wc_err       <= 1'b0;
            we_q         <= '0;
            wf_q         <= '0;
            pa_st        <= 1'b0;
            pa_q         <= '0;
            pa_tgt       <= '0;
            pb_st        <= PB_NONE;
            ae_st        <= AE_NONE;
            ae_q         <= '0;
            ae_split     <= 1'b0;
            pb_q         <= '0;
            pb_tgt       <= '0;
            pb_old       <= '0;
            pb_new       <= '0;
            pq_v         <= 1'b0;
            pq_q         <= '0;
            pq_tgt       <= '0;
            pq_old       <= '0;
            pq_new       <= '0;
            ev_kind      <= 1'b0;
            ev_have      <= 1'b0;
            ev_got_data  <= 1'b0;
            ev_got_cpl   <= 1'b0;
            ev_err       <= 1'b0;
            ev_val       <= '0;
            irq_vector <= '0;
            irq_queue  <= '0;
            for (int k = 0; k < NUM_Q; k++) begin
                q_desc[k] <= '0; q_avail[k] <= '0; q_used[k] <= '0; q_size[k] <= '0;
                q_en[k] <= 1'b0; q_evidx[k] <= 1'b0; q_ind[k] <= 1'b0; q_vec[k] <= 16'hFFFF;
                q_lavail[k] <= '0; q_shadow[k] <= '0; q_uidx[k] <= '0; q_nr[k] <= 1'b0;
                q_ecode[k] <= '0;
            end
            for (int k = 0; k < NUM_ERR; k++) cerr[k] <= '0;
            for (int k = 0; k < NUM_STAT; k++) cst[k] <= '0;
        end else begin
            // a ring write error goes to the write's owner: its queue (used element /
            // used->idx, first failure since enable) or the operation in ST_WR_CPL
            if (s_wr_cpl_valid && s_wr_cpl_status[0]) begin
                if (wo_head[QID_W]) begin
                    wc_err <= 1'b1;
                end else if (!wf_q[wo_head[QID_W-1:0]]) begin
                    we_q[wo_head[QID_W-1:0]] <= 1'b1;
                    wf_q[wo_head[QID_W-1:0]] <= 1'b1;
                end
            end
            unique case (state)
            // ----------------------------------------------------------
            ST_IDLE: begin
                if (cfg_valid && cfg_write) begin
                    unique case (cfg_field)
                        4'd0: q_desc[cfg_queue]  <= cfg_wdata;
                        4'd1: q_avail[cfg_queue] <= cfg_wdata;
                        4'd2: q_used[cfg_queue]  <= cfg_wdata;
                        4'd3: q_size[cfg_queue]  <= cfg_wdata[15:0];
                        4'd4: begin
                            q_en[cfg_queue] <= cfg_wdata[0];
                            if (cfg_wdata[0] && 32'(cfg_queue) == CTRL_Q) ctrl_pairs <= 16'd1;
                            if (cfg_wdata[0]) begin
                                q_lavail[cfg_queue] <= '0;
                                q_shadow[cfg_queue] <= '0;
                                q_uidx[cfg_queue]   <= '0;
                                q_nr[cfg_queue]     <= 1'b0;
                                q_ecode[cfg_queue]  <= '0;
                                we_q[cfg_queue]     <= 1'b0;
                                wf_q[cfg_queue]     <= 1'b0;
                            end
                        end
                        4'd5: {q_ind[cfg_queue], q_evidx[cfg_queue]} <= cfg_wdata[1:0];
                        4'd6: q_vec[cfg_queue]    <= cfg_wdata[15:0];
                        4'd7: begin  // also forces a fresh avail->idx read
                            q_lavail[cfg_queue] <= cfg_wdata[15:0];
                            q_shadow[cfg_queue] <= cfg_wdata[15:0];
                        end
                        4'd8: q_uidx[cfg_queue]   <= cfg_wdata[15:0];
                        default: ;
                    endcase
                end
                in_ind        <= 1'b0;
                hfc           <= 1'b0;
                c_wseen       <= 1'b0;
                c_have        <= '0;
                c_buf         <= '0;
                chain_started <= 1'b0;
                if (cfg_valid && cfg_write) begin
                    for (int k = 0; k < 2; k++) begin
                        if (hc_q[k] == cfg_queue) hc_n[k] <= '0;
                        if (hn_q[k] == cfg_queue) begin hn_n[k] <= '0; hn_dv[k] <= 1'b0; end
                        if (h2_q[k] == cfg_queue) h2_n[k] <= '0;
                    end
                end
                ae_done       <= 1'b0;
                ae_split      <= 1'b0;
                if (cfg_valid && cfg_write && cfg_queue == ae_q) ae_st <= AE_NONE;
                if (take_pub) begin
                    op       <= OP_RET;
                    ret_rx   <= 1'b0;
                    ret_more <= 1'b0;
                    if (pb_go) begin
                        cq <= pb_q;
                        if (pb_st == PB_EVT) begin
                            // event read failed
                            pb_st         <= PB_NONE;
                            cerr[E_DMA]   <= cerr[E_DMA] + 1'b1;
                            q_nr[pb_q]    <= 1'b1;
                            q_ecode[pb_q] <= 8'(E_DMA);
                        end else if (wf_q[pb_q]) begin
                            // a ring write of the queue failed (charged by its own step)
                            pb_st <= PB_NONE;
                        end else begin
                            // used->idx visible: read used_event / avail->flags
                            pb_st       <= PB_EVT;
                            ev_kind     <= q_evidx[pb_q];
                            ev_have     <= 1'b0;
                            ev_got_data <= 1'b0;
                            ev_got_cpl  <= 1'b0;
                            ev_err      <= 1'b0;
                            rd_addr <= q_evidx[pb_q] ?
                                       q_avail[pb_q] + 64'd4 + {47'd0, q_size[pb_q], 1'b0} :
                                       q_avail[pb_q];
                            rd_len  <= 5'd2;
                            state   <= ST_EV_REQ;
                        end
                    end else if (pa_go) begin
                        cq <= pa_q;
                        if (wf_q[pa_q]) begin
                            // a ring write of the queue failed: used->idx stays
                            pa_st       <= 1'b0;
                            ret_pend    <= '0;
                        end else begin
                            wr_addr <= q_used[pa_q] + 64'd2;
                            wr_len  <= 4'd2;
                            wr_data <= {48'd0, q_uidx[pa_q] + ret_pend};
                            wkind   <= W_IDX;
                            state   <= ST_WR_REQ;
                        end
                    end else begin
                        // we_go: charge a ring write error to the write's queue
                        we_q[we_pq]    <= 1'b0;
                        cerr[E_DMA]    <= cerr[E_DMA] + 1'b1;
                        q_nr[we_pq]    <= 1'b1;
                        q_ecode[we_pq] <= 8'(E_DMA);
                    end
                end else if (take_rr) begin
                    op       <= OP_RET;
                    ret_rx   <= 1'b1;
                    cq       <= rr_data[RRW-1 -: QID_W];
                    ret_id   <= rr_data[48:33];
                    ret_len  <= rr_data[32:1];
                    ret_more <= rr_data[0];
                    state    <= ST_START;
                end else if (take_tr) begin
                    op       <= OP_RET;
                    ret_rx   <= 1'b0;
                    cq       <= tr_data[TRW-1 -: QID_W];
                    ret_id   <= tr_data[47:32];
                    ret_len  <= tr_data[31:0];
                    ret_more <= 1'b0;
                    state    <= ST_START;
                end else if (take_rxreq) begin
                    op    <= OP_RX;
                    cq    <= s_rxreq_queue;
                    state <= ST_START;
                end else if (take_tx) begin
                    op     <= OP_TX;
                    cq     <= tp_q;
                    rr_ptr <= tp_q;
                    state  <= ST_START;
                end
            end
            // ----------------------------------------------------------
            ST_START: begin
                if (!st_fresh) begin
                    // the qf_* flags and sc were computed before a change: once more
                    state <= ST_START;
                end else if (!qf_ok[cq]) begin
                    unique case (op)
                        OP_RET: begin
                            cerr[E_RET] <= cerr[E_RET] + 1'b1;
                            // the batch's completed chains stay pending; only the
                            // dropped receive chain's own elements are withdrawn
                            if (!ret_more) rx_lock <= 1'b0;
                            if (!ret_more && rx_lock) ret_pend <= ret_base;
                            state <= ST_IDLE;
                        end
                        OP_RX: begin
                            cst[S_RXEMPTY] <= cst[S_RXEMPTY] + 1'b1;
                            el_valid <= 1'b1; el_rx <= 1'b1;
                            m_buf_status <= ST_EMPTY; m_buf_last <= 1'b1;
                            m_buf_queue <= cq; m_buf_addr <= '0; m_buf_len <= '0;
                            m_buf_write <= 1'b0; m_buf_head <= '0;
                            state <= ST_EMIT;
                        end
                        default: begin
                            pending[cq] <= 1'b0;
                            state <= ST_IDLE;
                        end
                    endcase
                end else if (op == OP_RET) begin
                    wr_addr <= q_used[cq] + 64'd4 + {45'd0, ((q_uidx[cq] + ret_pend) & c_mask), 3'd0};
                    wr_len  <= 4'd8;
                    wr_data <= {ret_len, 16'd0, ret_id};
                    wkind   <= W_ELEM;
                    state   <= ST_WR_REQ;
                end else if (bg_st != BG_IDLE && bg_x == opx && !sh[opx][cq]) begin
                    // the refill of this walk direction is under way: wait for it
                    state <= ST_START;
                end else begin
                unique case (sc_cur)
                SC_AEW: begin
                    // caught up: publish avail_event = last_avail_idx
                    ae_split <= 1'b1;
                    wr_addr  <= q_used[cq] + 64'd4 + {45'd0, c_size, 3'd0};
                    wr_len   <= 4'd2;
                    wr_data  <= {48'd0, q_lavail[cq]};
                    wkind    <= W_AEVENT;
                    state    <= ST_WR_REQ;
                end
                SC_AER: begin
                    // avail_event visible: re-read avail->idx once (no lost notify)
                    ae_done <= 1'b1;
                    ae_st   <= AE_NONE;
                    rd_addr <= q_avail[cq] + 64'd2;
                    rd_len  <= 5'd2;
                    rkind   <= K_AVAIL;
                    state   <= ST_RD_REQ;
                end
                SC_AV: begin
                    rd_addr <= q_avail[cq] + 64'd2;
                    rd_len  <= 5'd2;
                    rkind   <= K_AVAIL;
                    state   <= ST_RD_REQ;
                end
                SC_HIT: begin
                    hfc            <= 1'b1;
                    rd_buf[15:0]   <= hc_d[opx][15:0];
                    hc_d[opx]      <= hc_d[opx] >> 16;
                    pf_cur         <= dc_d[opx][127:0];
                    dc_d[opx]      <= dc_d[opx] >> 128;
                    hc_n[opx]      <= hc_n[opx] - 3'd1;
                    rd_err         <= 1'b0;
                    rkind          <= K_HEAD;
                    state          <= ST_RD_DONE;
                end
                SC_HND: begin
                    // next group refilled in the background: heads and descriptors
                    hfc          <= 1'b1;
                    rd_buf[15:0] <= hn_d[opx][15:0];
                    hc_d[opx]    <= hn_d[opx][127:16];
                    hc_n[opx]    <= 3'(hn_n[opx] - 4'd1);
                    hc_q[opx]    <= cq;
                    pf_cur       <= hn_dd[opx][127:0];
                    dc_d[opx]    <= hn_dd[opx][1023:128];
                    hn_n[opx]    <= '0;
                    hn_dv[opx]   <= 1'b0;
                    rd_err       <= 1'b0;
                    rkind        <= K_HEAD;
                    state        <= ST_RD_DONE;
                end
                SC_HN: begin
                    // the next heads were read during the last prefetch
                    rd_buf    <= hn_d[opx];
                    rd_n      <= hn_n[opx];
                    hn_n[opx] <= '0;
                    rd_err    <= 1'b0;
                    rkind     <= K_HEAD;
                    state     <= ST_RD_DONE;
                end
                default: begin   // SC_RD
                    rd_n    <= min8(qf_a[cq], qf_w[cq]);
                    rd_addr <= q_avail[cq] + 64'd4 + {47'd0, (q_lavail[cq] & c_mask), 1'b0};
                    rd_len  <= {min8(qf_a[cq], qf_w[cq]), 1'b0};
                    rkind   <= K_HEAD;
                    state   <= ST_RD_REQ;
                end
                endcase
                end
            end
            // ----------------------------------------------------------
            ST_RD_REQ: begin
                rd_got_data <= 1'b0;
                rd_got_cpl  <= 1'b0;
                rd_err      <= 1'b0;
                rd_beat     <= '0;
                rd_buf      <= '0;
                if (m_rd_desc_ready) state <= ST_RD_DATA;
            end
            ST_RD_DATA: begin
                if (rd_hs) begin
                    for (int b = 0; b < CB; b++) begin
                        if (32'(rd_beat) == b) rd_buf[b*CW +: CW] <= s_rd_axis_tdata[CW-1:0];
                    end
                    if (32'(rd_beat) < CB) rd_beat <= rd_beat + 2'd1;
                    if (s_rd_axis_tlast) begin
                        rd_got_data <= 1'b1;
                        if (s_rd_axis_tuser[0]) rd_err <= 1'b1;
                    end
                end
                if (rc_hs) begin
                    rd_got_cpl <= 1'b1;
                    if (s_rd_cpl_status[0]) rd_err <= 1'b1;
                end
                if ((rd_got_data || (rd_hs && s_rd_axis_tlast)) &&
                    (rd_got_cpl || (rc_hs))) begin
                    state <= ST_RD_DONE;
                end
            end
            // ----------------------------------------------------------
            ST_RD_DONE: begin
                state <= ST_IDLE;
                if (rd_err) begin
                    cerr[E_DMA] <= cerr[E_DMA] + 1'b1;
                    q_nr[cq]    <= 1'b1;
                    q_ecode[cq] <= 8'(E_DMA);
                    if (op == OP_RET) begin
                        state <= ST_IDLE;
                    end else if (op == OP_RX || chain_started) begin
                        el_valid <= 1'b1; el_rx <= (op == OP_RX);
                        m_buf_status <= chain_started ? ST_BAD : ST_EMPTY;
                        m_buf_last <= 1'b1; m_buf_queue <= cq; m_buf_head <= head;
                        m_buf_addr <= '0; m_buf_len <= '0; m_buf_write <= 1'b0;
                        if (!chain_started) cst[S_RXEMPTY] <= cst[S_RXEMPTY] + 1'b1;
                        state <= ST_EMIT;
                    end else begin
                        pending[cq] <= 1'b0;
                    end
                end else begin
                    unique case (rkind)
                    K_AVAIL: begin
                        if ((rd_u16 - q_lavail[cq]) > c_size) begin
                            cerr[E_AVAIL_JUMP] <= cerr[E_AVAIL_JUMP] + 1'b1;
                            q_nr[cq]    <= 1'b1;
                            q_ecode[cq] <= 8'(E_AVAIL_JUMP);
                            if (op == OP_RX) begin
                                el_valid <= 1'b1; el_rx <= 1'b1;
                                m_buf_status <= ST_EMPTY; m_buf_last <= 1'b1; m_buf_queue <= cq;
                                cst[S_RXEMPTY] <= cst[S_RXEMPTY] + 1'b1;
                                state <= ST_EMIT;
                            end else begin
                                pending[cq] <= 1'b0;
                            end
                        end else begin
                            q_shadow[cq] <= rd_u16;
                            if (rd_u16 != q_lavail[cq] && ae_q == cq) ae_st <= AE_NONE;
                            if (rd_u16 != q_lavail[cq]) begin
                                rd_n    <= avail_n(rd_u16, q_lavail[cq], c_size);
                                rd_addr <= q_avail[cq] + 64'd4 + {47'd0, (q_lavail[cq] & c_mask), 1'b0};
                                rd_len  <= {avail_n(rd_u16, q_lavail[cq], c_size), 1'b0};
                                rkind   <= K_HEAD;
                                state   <= ST_RD_REQ;
                            end else if (op == OP_RX) begin
                                el_valid <= 1'b1; el_rx <= 1'b1;
                                m_buf_status <= ST_EMPTY; m_buf_last <= 1'b1; m_buf_queue <= cq;
                                m_buf_addr <= '0; m_buf_len <= '0; m_buf_write <= 1'b0;
                                m_buf_head <= '0;
                                cst[S_RXEMPTY] <= cst[S_RXEMPTY] + 1'b1;
                                state <= ST_EMIT;
                            end else if (q_evidx[cq] && !ae_done &&
                                         (ae_st == AE_NONE || ae_q == cq)) begin
                                // go on in later operations (pending stays set)
                                ae_st <= AE_WRITE;
                                ae_q  <= cq;
                            end else if (q_evidx[cq] && !ae_done) begin
                                ae_done <= 1'b1;
                                wr_addr <= q_used[cq] + 64'd4 + {45'd0, c_size, 3'd0};
                                wr_len  <= 4'd2;
                                wr_data <= {48'd0, q_lavail[cq]};
                                wkind   <= W_AEVENT;
                                state   <= ST_WR_REQ;
                            end else begin
                                pending[cq] <= 1'b0;
                            end
                        end
                    end
                    K_HEAD: begin
                        q_lavail[cq] <= q_lavail[cq] + 16'd1;
                        head <= rd_u16;
                        if (!hfc) begin
                            hc_d[opx] <= rd_buf[127:16];
                            hc_n[opx] <= 3'(rd_n - 4'd1);
                            hc_q[opx] <= cq;
                        end
                        if (hc_q[!opx] == cq) hc_n[!opx] <= '0;
                        if (hn_q[!opx] == cq) begin hn_n[!opx] <= '0; hn_dv[!opx] <= 1'b0; end
                        if (h2_q[!opx] == cq) h2_n[!opx] <= '0;
                        if (rd_u16 >= c_size) begin
                            cerr[E_BAD_HEAD] <= cerr[E_BAD_HEAD] + 1'b1;
                            q_nr[cq]    <= 1'b1;
                            q_ecode[cq] <= 8'(E_BAD_HEAD);
                            if (op == OP_RX) begin
                                el_valid <= 1'b1; el_rx <= 1'b1;
                                m_buf_status <= ST_EMPTY; m_buf_last <= 1'b1; m_buf_queue <= cq;
                                cst[S_RXEMPTY] <= cst[S_RXEMPTY] + 1'b1;
                                state <= ST_EMIT;
                            end else begin
                                pending[cq] <= 1'b0;
                            end
                        end else begin
                            idx      <= rd_u16;
                            walk_cnt <= '0;
                            chain_started <= 1'b1;
                            if (op == OP_RX) cst[S_RXCH] <= cst[S_RXCH] + 1'b1;
                            else             cst[S_TXCH] <= cst[S_TXCH] + 1'b1;
                            if (hfc) begin
                                // first descriptor already prefetched
                                rd_buf <= pf_cur;
                                rkind  <= K_DESC;
                                state  <= ST_RD_DONE;
                            end else begin
                                pf_heads <= rd_buf;
                                pf_iss   <= '0;
                                pf_dat   <= '0;
                                pf_cpl   <= '0;
                                pf_beat  <= '0;
                                rd_err   <= 1'b0;
                                state    <= ST_PF;
                            end
                        end
                    end
                    K_DESC: begin
                        if (d_flags[2]) begin
                        if (!d_bad) begin
                                in_ind   <= 1'b1;
                                ind_base <= d_addr;
                                ind_n    <= d_len[19:4];
                                walk_cnt <= '0;
                                rd_addr  <= d_addr;
                                rd_len   <= 5'd16;
                                rkind    <= K_DESC;
                                state    <= ST_RD_REQ;
                            end
                        end else if (is_ctrl) begin
                            if (!d_bad) begin
                                idx      <= d_next;
                                walk_cnt <= walk_cnt + 16'd1;
                                c_last   <= !d_flags[0];
                                state    <= ST_CNEXT;
                                if (d_flags[1]) begin
                                    if (!c_wseen) c_ack_addr <= d_addr;
                                    c_wseen <= 1'b1;
                                end else if (c_have < 3'd4) begin
                                    c_rdn   <= ({29'd0, c_need} < d_len) ? c_need : d_len[2:0];
                                    rd_addr <= d_addr;
                                    rd_len  <= ({29'd0, c_need} < d_len) ? 5'(c_need) : 5'(d_len[2:0]);
                                    rkind   <= K_CDATA;
                                    state   <= ST_RD_REQ;
                                end
                            end
                        end else begin
                            if (!d_bad) begin
                                el_valid <= 1'b1; el_rx <= (op == OP_RX);
                                m_buf_status <= ST_OK;
                                m_buf_addr  <= d_addr;
                                m_buf_len   <= d_len;
                                m_buf_write <= d_flags[1];
                                m_buf_last  <= !d_flags[0];
                                m_buf_head  <= head;
                                m_buf_queue <= cq;
                                idx      <= d_next;
                                walk_cnt <= walk_cnt + 16'd1;
                                state    <= ST_EMIT;
                            end
                        end
                        if (d_bad) begin
                            cerr[d_why] <= cerr[d_why] + 1'b1;
                            el_valid <= 1'b1; el_rx <= (op == OP_RX);
                            m_buf_status <= ST_BAD;
                            m_buf_addr <= '0; m_buf_len <= '0; m_buf_write <= 1'b0;
                            m_buf_last <= 1'b1; m_buf_head <= head; m_buf_queue <= cq;
                            state <= ST_EMIT;
                        end
                    end
                    K_CDATA: begin
                        for (int b = 0; b < 4; b++) begin
                            if (b < 32'(c_rdn) && 32'(c_have) + b < 4)
                                c_buf[(32'(c_have) + b)*8 +: 8] <= rd_buf[b*8 +: 8];
                        end
                        c_have <= c_have + c_rdn;
                        state  <= ST_CNEXT;
                    end
                    default: ;
                    endcase
                end
            end
            // ----------------------------------------------------------
            ST_EMIT: begin
                if (el_ready) begin
                    el_valid <= 1'b0;
                    if (m_buf_last) begin
                        state <= ST_IDLE;
                    end else begin
                        rd_addr <= (in_ind ? ind_base : q_desc[cq]) + {44'd0, idx, 4'd0};
                        rd_len  <= 5'd16;
                        rkind   <= K_DESC;
                        state   <= ST_RD_REQ;
                    end
                end
            end
            // ----------------------------------------------------------
            ST_PF: begin   // rd_n first-descriptor reads (+ next heads) in flight, data in order
                if (main_rd_v && m_rd_desc_ready) pf_iss <= pf_iss + 4'd1;
                if (rd_hs) begin
                    for (int e = 0; e < 8; e++) begin
                        for (int b = 0; b < CB; b++) begin
                            if (32'(pf_dat) == e && 32'(pf_beat) == b)
                                pf_buf[e][b*CW +: CW] <= s_rd_axis_tdata[CW-1:0];
                        end
                    end
                    for (int b = 0; b < CB; b++) begin
                        if (pf_dat == rd_n && 32'(pf_beat) == b)
                            hn_buf[b*CW +: CW] <= s_rd_axis_tdata[CW-1:0];
                    end
                    if (32'(pf_beat) < CB) pf_beat <= pf_beat + 2'd1;
                    if (s_rd_axis_tlast) begin
                        pf_dat  <= pf_dat + 4'd1;
                        pf_beat <= '0;
                        if (s_rd_axis_tuser[0]) rd_err <= 1'b1;
                    end
                end
                if (rc_hs) begin
                    pf_cpl <= pf_cpl + 4'd1;
                    if (s_rd_cpl_status[0]) rd_err <= 1'b1;
                end
                if (pf_ok && pf_dat == pf_tot && pf_cpl == pf_tot) begin
                    // walk head 0 with its descriptor; keep the others
                    if (pf_m != 4'd0) begin
                        hn_d[opx]   <= hn_buf;
                        hn_n[opx]   <= pf_m;
                        hn_pos[opx] <= pf_nxt;
                        hn_q[opx]   <= cq;
                        hn_dv[opx]  <= 1'b0;
                    end else if (hn_q[opx] == cq) begin
                        // an older next-group read of this queue is stale now
                        hn_n[opx]   <= '0;
                        hn_dv[opx]  <= 1'b0;
                    end
                    rd_buf <= pf_buf[0];
                    for (int e = 0; e < 7; e++) dc_d[opx][e*128 +: 128] <= pf_buf[e + 1];
                    rkind  <= K_DESC;
                    state  <= ST_RD_DONE;
                end
            end
            // ----------------------------------------------------------
            ST_CNEXT: begin   // control queue: next descriptor, or answer the command
                if (!c_last) begin
                    rd_addr <= (in_ind ? ind_base : q_desc[cq]) + {44'd0, idx, 4'd0};
                    rd_len  <= 5'd16;
                    rkind   <= K_DESC;
                    state   <= ST_RD_REQ;
                end else if (!c_wseen) begin
                    // no buffer for the ack: the chain is returned with len 0
                    cerr[E_DIR] <= cerr[E_DIR] + 1'b1;
                    cnt_ctrl_err <= cnt_ctrl_err + 1'b1;
                    op <= OP_RET; ret_rx <= 1'b0; ret_id <= head; ret_len <= '0;
                    ret_more <= 1'b0;
                    state <= ST_START;
                end else begin
                    if (c_ok) begin
                        ctrl_pairs  <= c_buf[31:16];
                        cnt_ctrl_ok <= cnt_ctrl_ok + 1'b1;
                    end else begin
                        cnt_ctrl_err <= cnt_ctrl_err + 1'b1;
                    end
                    wr_addr <= c_ack_addr;
                    wr_len  <= 4'd1;
                    wr_data <= {63'd0, !c_ok};   // VIRTIO_NET_OK 0 / VIRTIO_NET_ERR 1
                    wkind   <= W_CACK;
                    state   <= ST_WR_REQ;
                end
            end
            // ----------------------------------------------------------
            ST_EV_REQ: begin   // event read issued; its data is caught in any state
                if (m_rd_desc_ready) state <= ST_IDLE;
            end
            ST_WR_REQ: begin
                if (m_wr_desc_valid && m_wr_desc_ready) wr_desc_done <= 1'b1;
                if (m_wr_axis_tvalid && m_wr_axis_tready) wr_data_done <= 1'b1;
                if (wr_issue) begin
                    wr_desc_done <= 1'b0;
                    wr_data_done <= 1'b0;
                    if (wkind == W_ELEM || wkind == W_IDX) begin
                        rd_err <= 1'b0;        // completions checked by the publish steps
                        state  <= ST_WR_DONE;
                    end else begin
                        state  <= ST_WR_CPL;
                    end
                end
            end
            ST_WR_CPL: begin   // wait for every write (this one included)
                if (wr_pend == 8'd0 || (wr_pend == 8'd1 && s_wr_cpl_valid)) begin
                    state  <= ST_WR_DONE;
                    // the last completion is this operation's write (its owner says so)
                    rd_err <= wc_err || (s_wr_cpl_valid && s_wr_cpl_status[0] && wo_head[QID_W]);
                    wc_err <= 1'b0;
                end
            end
            ST_WR_DONE: begin
                state <= ST_IDLE;
                if (rd_err) begin
                    cerr[E_DMA] <= cerr[E_DMA] + 1'b1;
                    q_nr[cq]    <= 1'b1;
                    q_ecode[cq] <= 8'(E_DMA);
                    if (op == OP_RET) begin
                        if (!ret_more) begin rx_lock <= 1'b0; ret_pend <= '0; end
                    end else begin
                        pending[cq] <= 1'b0;
                    end
                end else begin
                    unique case (wkind)
                    W_ELEM: begin
                        cst[S_USED] <= cst[S_USED] + 1'b1;
                        if (ret_more) begin
                            ret_pend <= ret_pend + 16'd1;
                            rx_lock  <= 1'b1;
                            if (!rx_lock) ret_base <= ret_pend;
                        end else if (cont_tr || cont_rr) begin
                            // batch: the next return of the same queue is written
                            // before used->idx moves (one idx write + one event read)
                            ret_pend <= ret_pend + 16'd1;
                            ret_id   <= cont_tr ? tr_data[47:32] : rr_data[48:33];
                            ret_len  <= cont_tr ? tr_data[31:0] : rr_data[32:1];
                            ret_more <= cont_tr ? 1'b0 : rr_data[0];
                            wr_addr  <= q_used[cq] + 64'd4 +
                                        {45'd0, ((q_uidx[cq] + ret_pend + 16'd1) & c_mask), 3'd0};
                            wr_len   <= 4'd8;
                            wr_data  <= cont_tr ? {tr_data[31:0], 16'd0, tr_data[47:32]}
                                                : {rr_data[32:1], 16'd0, rr_data[48:33]};
                            wkind    <= W_ELEM;
                            state    <= ST_WR_REQ;
                        end else begin
                            // batch written: stage A publishes it in the background
                            pa_q     <= cq;
                            pa_st    <= 1'b1;
                            pa_tgt   <= wr_icnt;
                            ret_pend <= ret_pend + 16'd1;
                            rx_lock  <= 1'b0;
                        end
                    end
                    W_IDX: begin    // the event read follows once it completed
                        q_uidx[cq] <= nj_new;
                        ret_pend   <= '0;
                        pa_st      <= 1'b0;
                    end
                    W_CACK: begin   // ack written: publish the chain with used len 1
                        op <= OP_RET; ret_rx <= 1'b0; ret_id <= head; ret_len <= 32'd1;
                        ret_more <= 1'b0;
                        state <= ST_START;
                    end
                    default: if (ae_split) begin // W_AEVENT: re-read in a later operation
                        ae_st <= AE_REREAD;
                    end else begin // W_AEVENT: re-read avail->idx once
                        rd_addr <= q_avail[cq] + 64'd2;
                        rd_len  <= 5'd2;
                        rkind   <= K_AVAIL;
                        state   <= ST_RD_REQ;
                    end
                    endcase
                end
            end
            default: state <= ST_IDLE;
            endcase

            // outstanding write bookkeeping (any state)
            wr_pend <= wr_pend + 8'(wr_issue) - 8'(s_wr_cpl_valid);
            wr_icnt <= wr_icnt + 8'(wr_issue);
            // event read of the batch being published (first read data in line)
            if (ev_dat_pend && s_rd_axis_tvalid && own_d == O_EV) begin
                if (!ev_have) ev_val <= s_rd_axis_tdata[15:0];
                ev_have <= 1'b1;
                if (s_rd_axis_tlast) begin
                    ev_got_data <= 1'b1;
                    if (s_rd_axis_tuser[0]) ev_err <= 1'b1;
                end
            end
            if (ev_cpl_pend && s_rd_cpl_valid && own_c == O_EV) begin
                ev_got_cpl <= 1'b1;
                if (s_rd_cpl_status[0]) ev_err <= 1'b1;
            end
            // event data in: interrupt decision (only this block writes these)
            if (pb_st == PB_EVT && ev_got_data && ev_got_cpl && !ev_err) begin
                pb_st      <= PB_NONE;
                irq_vector <= q_vec[pb_q];
                irq_queue  <= pb_q;
                if (ev_kind ? need_event(ev_val, pb_new, pb_old) : !ev_val[0]) begin
                    irq_valid  <= 1'b1;
                    cst[S_IRQ] <= cst[S_IRQ] + 1'b1;
                end else begin
                    cst[S_IRQSUP] <= cst[S_IRQSUP] + 1'b1;
                end
            end
            // background refill (see bg_st)
            if (kill_now) bg_kill <= 1'b1;
            if (bg_go) begin
                bg_st   <= bg_gdesc ? BG_DESC : BG_HEAD;
                bg_pref <= !bg_gx;
                bg_x    <= bg_gx;
                bg_q    <= bg_gq;
                bg_pos  <= bg_gpos;
                bg_n    <= bg_gm;
                bg_iss  <= '0; bg_dat <= '0; bg_cpl <= '0; bg_beat <= '0;
                bg_err  <= 1'b0;
                bg_kill <= 1'b0;
                bg_m2   <= '0;   // computed before the read-ahead head read
                bg_age  <= '0;
                if (bg_gh2) begin
                    bg_heads      <= h2_d[bg_gx];
                    h2_n[bg_gx]   <= '0;   // consumed
                    hn_n[bg_gx]   <= '0;
                    hn_dv[bg_gx]  <= 1'b0;
                end else if (bg_gdesc) begin
                    bg_heads <= hn_d[bg_gx];
                end else begin
                    hn_n[bg_gx]  <= '0;   // a stale group is replaced
                    hn_dv[bg_gx] <= 1'b0;
                end
            end
            if (bg_st != BG_IDLE) begin
                if (bg_rd_v && !main_rd_v && m_rd_desc_ready) bg_iss <= bg_iss + 4'd1;
                if (bg_dhs) begin
                    for (int b = 0; b < CB; b++) begin
                        if (32'(bg_beat) == b) begin
                            if (bg_st == BG_HEAD) bg_heads[b*CW +: CW] <= s_rd_axis_tdata[CW-1:0];
                            else if (bg_dat == bg_n) bg_h2[b*CW +: CW] <= s_rd_axis_tdata[CW-1:0];
                            else hn_dd[bg_x][32'(bg_dat[2:0])*128 + b*CW +: CW] <= s_rd_axis_tdata[CW-1:0];
                        end
                    end
                    if (32'(bg_beat) < CB) bg_beat <= bg_beat + 2'd1;
                    if (s_rd_axis_tlast) begin
                        bg_dat  <= bg_dat + 4'd1;
                        bg_beat <= '0;
                        if (s_rd_axis_tuser[0]) bg_err <= 1'b1;
                    end
                end
                if (bg_chs) begin
                    bg_cpl <= bg_cpl + 4'd1;
                    if (s_rd_cpl_status[0]) bg_err <= 1'b1;
                end
                // read-ahead head count (m2_a/m2_w from the refill's registers): refreshed
                // from the refill's second cycle on while the descriptor reads go out,
                // frozen once the head read's turn comes and bg_aged (the head read and
                // the end wait for bg_aged)
                if (bg_age != 2'd0 && (bg_st == BG_HEAD || bg_iss < bg_n || !bg_aged))
                    bg_m2 <= min8(m2_a, m2_w);
                if (!bg_aged) bg_age <= bg_age + 2'd1;
                if (bg_st == BG_HEAD && bg_dat == 4'd1 && bg_cpl == 4'd1) begin
                    bg_st  <= (bg_err || bg_kill || kill_now) ? BG_IDLE : BG_DESC;
                    bg_iss <= '0; bg_dat <= '0; bg_cpl <= '0; bg_beat <= '0;
                end
                if (bg_end) begin
                    bg_st <= BG_IDLE;
                    if (!bg_err && !bg_kill && !kill_now) begin
                        h2_d[bg_x]   <= bg_h2;
                        h2_n[bg_x]   <= bg_m2;
                        h2_pos[bg_x] <= bg_pos + {12'd0, bg_n};
                        h2_q[bg_x]   <= bg_q;
                        hn_d[bg_x]   <= bg_heads;
                        hn_n[bg_x]   <= bg_n;
                        hn_pos[bg_x] <= bg_pos;
                        hn_q[bg_x]   <= bg_q;
                        hn_dv[bg_x]  <= 1'b1;
                    end
                end
            end
            // stage B jobs: a used->idx write just done (nj) starts B when B is
            // (becoming) free, else waits in pq or merges into it (same queue)
            if (b_free) begin
                if (pq_v) begin
                    pb_st  <= PB_IDX;
                    pb_q   <= pq_q;
                    pb_old <= pq_old;
                    if (nj_v && pq_q == cq) begin
                        pb_new <= nj_new;
                        pb_tgt <= wr_icnt;
                        pq_v   <= 1'b0;
                    end else begin
                        pb_new <= pq_new;
                        pb_tgt <= pq_tgt;
                        pq_v   <= nj_v;
                        pq_q   <= cq;
                        pq_tgt <= wr_icnt;
                        pq_old <= nj_old;
                        pq_new <= nj_new;
                    end
                end else if (nj_v) begin
                    pb_st  <= PB_IDX;
                    pb_q   <= cq;
                    pb_tgt <= wr_icnt;
                    pb_old <= nj_old;
                    pb_new <= nj_new;
                end
            end else if (nj_v) begin
                if (pq_v) begin   // same queue (pa_go)
                    pq_new <= nj_new;
                    pq_tgt <= wr_icnt;
                end else begin
                    pq_v   <= 1'b1;
                    pq_q   <= cq;
                    pq_tgt <= wr_icnt;
                    pq_old <= nj_old;
                    pq_new <= nj_new;
                end
            end
            if (notify_valid) cst[S_NOTIFY] <= cst[S_NOTIFY] + 1'b1;
            if (notify_valid) pending[notify_queue] <= 1'b1;  // wins over a clear
        end
    end

    // unused inputs
    logic unused;
    assign unused = ^{s_rd_cpl_tag, s_rd_cpl_status[1], s_rd_axis_tkeep, s_wr_cpl_tag, ret_rx, hn_hit,
                      d_flags[15:3], s_rd_axis_tdata,
                      s_wr_cpl_status[1]};

    // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
    // the registered stand-ins equal (or, for the monotonic completion checks, imply)
    // the expressions they replace where they are used
    always_ff @(posedge clk) begin
        if (!rst) begin
            if (state == ST_START && st_fresh) begin
                assert (qf_ok[cq] == (q_en[cq] && !q_nr[cq] && c_size != 16'd0) &&
                        qf_caught[cq] == (q_lavail[cq] == q_shadow[cq]) &&
                        min8(qf_a[cq], qf_w[cq]) == avail_n(q_shadow[cq], q_lavail[cq], c_size) &&
                        sh[opx][cq] == ((hc_q[opx] == cq) && (hc_n[opx] != 3'd0)) &&
                        sc_cur == st_code(opx, q_lavail[cq] == q_shadow[cq],
                                          (hc_q[opx] == cq) && (hc_n[opx] != 3'd0),
                                          (hn_n[opx] != 4'd0) && (hn_q[opx] == cq) &&
                                          (hn_pos[opx] == q_lavail[cq]), hn_dv[opx],
                                          ae_q == cq, ae_st))
                    else $error("fabnic_virtq_split: ST_START flags");
            end
            // (while the stage holds a batch; the 8-bit distance to an older target wraps)
            assert (!pa_st || !pa_cok || wr_pend <= 8'(wr_icnt - pa_tgt))
                else $error("fabnic_virtq_split: pa_cok");
            assert (pb_st != PB_IDX || !pb_cok || wr_pend <= 8'(wr_icnt - pb_tgt))
                else $error("fabnic_virtq_split: pb_cok");
            assert (!pa_st || !pj_q || ((32'(ret_pend) < RET_BATCH) && (ret_pend < q_size[pa_q])))
                else $error("fabnic_virtq_split: pj_q");
            assert (state != ST_WR_DONE ||
                    br_q == ((32'(ret_pend) + 2 <= RET_BATCH) && ((ret_pend + 16'd2) <= c_size)))
                else $error("fabnic_virtq_split: br_q");
            assert (tr_old == (32'(tr_age) >= RET_HOLD) && rr_old == (32'(rr_age) >= RET_HOLD))
                else $error("fabnic_virtq_split: return hold flags");
            // completions in issue order: the owner queue's head is the completed write's
            assert (!s_wr_cpl_valid || (wo_cnt != '0 && s_wr_cpl_tag == TAG_W'(wo_head)))
                else $error("fabnic_virtq_split: write completion out of order");
            // a charge step finds its flag still set
            assert (!we_pv || we_q[we_pq]) else $error("fabnic_virtq_split: we_pv");
            // the owner queue counts the writes without completion (wr_pend trails the
            // handshake of a descriptor whose data is not yet sent by at most one)
            assert (8'(wo_cnt) == wr_pend + 8'(wr_desc_done))
                else $error("fabnic_virtq_split: write owner count");
            // a refill starts only as the direct decision from the current state would
            if (bg_go) begin : a_bg
                logic [QID_W-1:0] q;
                logic [15:0]      p;
                logic             hok, h2ok;
                q    = hc_q[bg_gx];
                p    = q_lavail[q] + {13'd0, hc_n[bg_gx]};
                hok  = (hn_n[bg_gx] != 4'd0) && (hn_q[bg_gx] == q) && (hn_pos[bg_gx] == p);
                h2ok = !hok && (h2_n[bg_gx] != 4'd0) && (h2_q[bg_gx] == q) && (h2_pos[bg_gx] == p);
                assert (hc_n[bg_gx] != 3'd0 && q_en[q] && !q_nr[q] && q_size[q] != 16'd0 &&
                        (hok ? !hn_dv[bg_gx] : (h2ok || q_shadow[q] != p)) &&
                        bg_gq == q && bg_gpos == p && bg_gdesc == (hok || h2ok) && bg_gh2 == h2ok &&
                        bg_gm == (hok ? hn_n[bg_gx] : h2ok ? h2_n[bg_gx] :
                                  avail_n(q_shadow[q], p, q_size[q])))
                    else $error("fabnic_virtq_split: refill start");
                // the direction with priority is not skipped while it is due
                if (bg_gx != bg_pref) begin : a_pref
                    logic [QID_W-1:0] q2;
                    logic [15:0]      p2;
                    logic             hok2, h2ok2;
                    q2    = hc_q[bg_pref];
                    p2    = q_lavail[q2] + {13'd0, hc_n[bg_pref]};
                    hok2  = (hn_n[bg_pref] != 4'd0) && (hn_q[bg_pref] == q2) && (hn_pos[bg_pref] == p2);
                    h2ok2 = !hok2 && (h2_n[bg_pref] != 4'd0) && (h2_q[bg_pref] == q2) &&
                            (h2_pos[bg_pref] == p2);
                    assert (!(hc_n[bg_pref] != 3'd0 && q_en[q2] && !q_nr[q2] && q_size[q2] != 16'd0 &&
                              (hok2 ? !hn_dv[bg_pref] : (h2ok2 || q_shadow[q2] != p2))))
                        else $error("fabnic_virtq_split: refill direction");
                end
            end
            // the read-ahead head count, frozen at the head read's turn, is covered by
            // the shadow avail->idx (which only moves forward while a refill runs)
            if (bg_st == BG_DESC && bg_aged && bg_iss == bg_n) begin
                assert (bg_m2 <= avail_n(q_shadow[bg_q], bg_pos + {12'd0, bg_n}, q_size[bg_q]))
                    else $error("fabnic_virtq_split: read-ahead count");
            end
        end
    end
`endif

endmodule

`resetall
