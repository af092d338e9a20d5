// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_net_tx: VirtIO-net transmit data mover (store and forward,
// three decoupled stages so that chain walks, buffer reads and output overlap).
//
//   issue : takes buffer chains from fabnic_virtq_split (s_buf_*) and issues
//           one fabnic_dma_rd read per buffer; a chain record (head, queue,
//           reads issued, bad / too big) goes into a CHAIN_DEPTH FIFO. It can
//           run ahead of the data by CHAIN_DEPTH chains.
//   pack  : packs the returned bytes contiguously (byte-offset packer, one
//           beat per cycle) into one of SLOTS frame slots (12-byte virtio_net_hdr
//           + frame, MAX_FRAME bytes each, used in turn) and sums the bytes from csum_start
//           on the fly (ones' complement, for NEEDS_CSUM). Then:
//   - drop (counted) when the chain was marked bad, a DMA error occurred, the
//     chain is longer than MAX_FRAME, the frame is shorter than 14 bytes, a
//     GSO type is requested (HOST_TSO not offered) or NEEDS_CSUM points
//     outside the frame;
//   output: sends a full slot on m_axis with the header stripped: tid = queue,
//           tuser[0] = 0, tuser[16:1] = frame length (every beat); with
//           NEEDS_CSUM the two bytes at csum_start + csum_offset are replaced
//           by ~sum (0 sent as 0xFFFF). Then the chain is returned (m_ret_*,
//           used len 0) - dropped chains too, in chain order.
// While one slot is sent the next ones are filled.
//
// Read credit (READ_CREDIT = 1): a chain walk is allowed (s_buf_idle) only while
// fewer than SLOTS chains are between their first element and the return of
// their slot. Every
// read issued therefore has a free slot waiting for its data, and the read data
// input (s_rd_axis_tready) is never held low for longer than the 3-cycle commit
// of a chain, however long m_axis is back-pressured. A DMA read engine that
// shares an in-order AXI read channel with other readers (ring reads) then never
// holds R for them: TX output back-pressure cannot block ring reads.
// READ_CREDIT = 0 (reader on its own AXI port): walks run up to CHAIN_DEPTH
// chains ahead of the slots and their read data waits in the memory (R held);
// this hides more host latency but must not share R with anything.
`default_nettype none

module fabnic_virtio_net_tx #(
    parameter int DATA_W    = 512,
    parameter int ADDR_W    = 64,
    parameter int LEN_W     = 32,
    parameter int TAG_W     = 8,
    parameter int QID_W     = 2,
    parameter int MAX_FRAME = 9728,   // bytes incl. the 12-byte header
    parameter int CNT_W     = 32,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int NUM_DROP  = 6,
    parameter int CHAIN_DEPTH = 8,    // chain records queued for the packer (pow2, >= SLOTS)
    parameter int SLOTS     = 4,      // frame slots (>= 2)
    parameter bit READ_CREDIT = 1'b1  // 1: chains walked only with a reserved slot (R never held)
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // chain elements from the virtqueue engine
    input  wire logic                  s_buf_valid,
    output logic                       s_buf_ready,
    input  wire logic [63:0]           s_buf_addr,
    input  wire logic [31:0]           s_buf_len,
    input  wire logic [15:0]           s_buf_head,
    input  wire logic [QID_W-1:0]      s_buf_queue,
    input  wire logic                  s_buf_last,
    input  wire logic [1:0]            s_buf_status,
    output logic                       s_buf_idle,    // ready for a new chain

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

    // used return (len 0)
    output logic                       m_ret_valid,
    input  wire logic                  m_ret_ready,
    output logic [QID_W-1:0]           m_ret_queue,
    output logic [15:0]                m_ret_id,
    output logic [31:0]                m_ret_len,

    // Ethernet frame out
    output logic [DATA_W-1:0]          m_axis_tdata,
    output logic [KEEP_W-1:0]          m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic [QID_W-1:0]           m_axis_tid,
    output logic [16:0]                m_axis_tuser,

    // drops: 0 bad chain, 1 too big, 2 runt, 3 DMA error, 4 GSO, 5 csum range
    output logic [NUM_DROP-1:0][CNT_W-1:0] cnt_drop,
    output logic [CNT_W-1:0]           cnt_frames,
    output logic [CNT_W-1:0]           cnt_csum
);

    localparam int B      = KEEP_W;
    localparam int BW     = $clog2(B);
    localparam int HDR    = 12;
    localparam int W0     = HDR / B;        // first RAM word of the frame
    localparam int SH     = HDR % B;        // byte offset inside it
    localparam int DEPTH  = (MAX_FRAME + B - 1) / B + 2;   // words per slot
    localparam int RA_W   = $clog2(SLOTS * DEPTH);
    localparam int FL_W   = 16;
    localparam int CF_W   = 16 + QID_W + 2 + 16;

    if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0) begin : g_chk_w
        $error("fabnic_virtio_net_tx: DATA_W must be a power of two >= 64");
    end
    if (NUM_DROP != 6 || MAX_FRAME >= 65536 || SLOTS < 2 || CHAIN_DEPTH < SLOTS) begin : g_chk_n
        $error("fabnic_virtio_net_tx: NUM_DROP is 6, MAX_FRAME < 65536, 2 <= SLOTS <= CHAIN_DEPTH");
    end

    localparam int SL_W = $clog2(SLOTS);
    localparam int CR_W = $clog2(SLOTS + 1);
    function automatic logic [SL_W-1:0] slot_next(input logic [SL_W-1:0] x);
        return (32'(x) == SLOTS - 1) ? '0 : x + 1'b1;
    endfunction

    // =================== issue stage ===================
    logic             too_big_i, bad_i;
    logic [31:0]      len_sum;
    logic [31:0]      room;           // MAX_FRAME - len_sum (len_sum <= MAX_FRAME)
    logic [15:0]      nreads_i;
    logic             cf_in_ready, cf_out_valid, cf_out_ready;
    logic [CF_W-1:0]  cf_out;

    logic el_ok, el_fits, el_read;
    assign el_ok   = (s_buf_status == 2'd0);
    assign el_fits = s_buf_len <= room;   // len_sum + len <= MAX_FRAME
    assign el_read = el_ok && el_fits && !too_big_i;
    assign m_rd_desc_valid = s_buf_valid && el_read && (!s_buf_last || cf_in_ready);
    assign s_buf_ready     = (!s_buf_last || cf_in_ready) && (!el_read || m_rd_desc_ready);
    // credit: chains from their first element until their slot is returned
    logic            in_chain, ret_fire;
    logic [CR_W-1:0] credit_used;
    assign s_buf_idle      = cf_in_ready && !in_chain && (!READ_CREDIT || 32'(credit_used) < SLOTS);
    assign m_rd_desc_addr  = ADDR_W'(s_buf_addr);
    assign m_rd_desc_len   = LEN_W'(s_buf_len);
    assign m_rd_desc_tag   = '0;
    assign s_rd_cpl_ready  = 1'b1;    // status also comes with the last beat (tuser)

    logic             cf_push;
    logic [15:0]      cf_nreads;
    assign cf_push   = s_buf_valid && s_buf_ready && s_buf_last;
    assign cf_nreads = nreads_i + {15'd0, el_read};

    fabnic_fifo #(.WIDTH(CF_W), .DEPTH(CHAIN_DEPTH)) u_chain_fifo (
        .clk, .rst,
        .in_valid(cf_push), .in_ready(cf_in_ready),
        .in_data({s_buf_head, s_buf_queue, bad_i || !el_ok, too_big_i || (el_ok && !el_fits),
                  cf_nreads}),
        .out_valid(cf_out_valid), .out_ready(cf_out_ready), .out_data(cf_out),
        .status_count());

    logic [15:0]      c_head, c_nreads;
    logic [QID_W-1:0] c_queue;
    logic             c_bad, c_big;
    assign {c_head, c_queue, c_bad, c_big, c_nreads} = cf_out;

    always_ff @(posedge clk) begin
        if (s_buf_valid && s_buf_ready) in_chain <= !s_buf_last;
        credit_used <= credit_used + CR_W'(s_buf_valid && s_buf_ready && !in_chain)
                       - CR_W'(ret_fire);
        if (rst) begin
            in_chain    <= 1'b0;
            credit_used <= '0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            too_big_i <= 1'b0;
            bad_i     <= 1'b0;
            len_sum   <= '0;
            room      <= 32'(MAX_FRAME);
            nreads_i  <= '0;
        end else if (s_buf_valid && s_buf_ready) begin
            if (s_buf_last) begin
                too_big_i <= 1'b0;
                bad_i     <= 1'b0;
                len_sum   <= '0;
                room      <= 32'(MAX_FRAME);
                nreads_i  <= '0;
            end else begin
                if (el_read) len_sum  <= len_sum + s_buf_len;
                if (el_read) room     <= room - s_buf_len;
                if (el_read) nreads_i <= nreads_i + 16'd1;
                if (el_ok && !el_fits) too_big_i <= 1'b1;
                if (!el_ok) bad_i <= 1'b1;
            end
        end
    end

    // =================== pack stage ===================
    typedef enum logic [1:0] {D_ING, D_FLUSH, D_COMMIT} dstate_t;
    dstate_t dstate;

    logic [SLOTS-1:0]  slot_full;      // slot holds a committed frame
    logic [SL_W-1:0]   ws, rs;         // write / read slot
    logic [15:0]       rcount;         // reads of the current chain fully received
    logic              dma_err;
    logic [DATA_W-1:0] res_data;
    logic [BW-1:0]     res_cnt;
    logic [FL_W-1:0]   byte_cnt;
    logic [FL_W-1:0]   flm1_q;         // byte_cnt - HDR - 1 (frame length - 1)
    logic [RA_W-1:0]   wptr;
    logic [BW:0]       in_n;
    logic [DATA_W-1:0] in_masked;
    logic [2*DATA_W-1:0] comb_w;
    logic [BW+1:0]     total;
    logic              chain_in_done, beat_in;

    assign chain_in_done = cf_out_valid && (rcount == c_nreads);
    assign s_rd_axis_tready = (dstate == D_ING) && !slot_full[ws] && !chain_in_done;
    assign beat_in = s_rd_axis_tvalid && s_rd_axis_tready;

    always_comb begin
        in_n = '0;
        for (int i = 0; i < B; i++) begin
            if (s_rd_axis_tkeep[i]) in_n = in_n + 1'b1;
            in_masked[i*8 +: 8] = s_rd_axis_tkeep[i] ? s_rd_axis_tdata[i*8 +: 8] : 8'd0;
        end
        comb_w = {{DATA_W{1'b0}}, res_data} | ({{DATA_W{1'b0}}, in_masked} << {res_cnt, 3'b000});
        total  = {2'b00, res_cnt} + {1'b0, in_n};
    end

    logic               ram_we;
    logic [RA_W-1:0]    ram_waddr;
    logic [DATA_W-1:0]  ram_wdata;
    logic               ram_re;
    logic [RA_W-1:0]    ram_raddr;
    logic [DATA_W-1:0]  ram_rdata;
    logic [RA_W-1:0]    wbase, rbase;
    assign wbase = RA_W'(32'(ws) * DEPTH);
    logic [SL_W-1:0]   rr;             // slot the output read side is reading
    assign rbase = RA_W'(32'(rr) * DEPTH);

    always_comb begin
        ram_we    = 1'b0;
        ram_waddr = wbase + wptr;
        ram_wdata = comb_w[DATA_W-1:0];
        if (beat_in && total >= (BW+2)'(B)) ram_we = 1'b1;
        if (dstate == D_FLUSH && res_cnt != '0) begin
            ram_we    = 1'b1;
            ram_wdata = res_data;
        end
    end

    fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(SLOTS * DEPTH)) u_ram (
        .clk,
        .wr_en(ram_we), .wr_be(1'b1), .wr_addr(ram_waddr), .wr_data(ram_wdata),
        .rd_en(ram_re), .rd_regce(1'b1), .rd_addr(ram_raddr), .rd_data(ram_rdata));

    // header of the frame being packed (captured from the RAM writes)
    logic [8*HDR-1:0] hdr;
    always_ff @(posedge clk) begin
        if (ram_we) begin
            for (int i = 0; i < HDR; i++) begin
                if (32'(wptr) == i / B) hdr[i*8 +: 8] <= ram_wdata[(i % B)*8 +: 8];
            end
        end
    end
    logic [7:0]  h_flags, h_gso;
    logic [15:0] h_cstart, h_coff;
    assign h_flags  = hdr[7:0];
    assign h_gso    = hdr[15:8];
    assign h_cstart = hdr[63:48];
    assign h_coff   = hdr[79:64];

    logic [FL_W-1:0] frame_len, cs_abs, cs_pos;
    assign frame_len = byte_cnt - FL_W'(HDR);
    assign cs_abs    = h_cstart + FL_W'(HDR);
    assign cs_pos    = h_cstart + h_coff;

    // on-the-fly checksum of bytes [csum_start + 12, end) (bytes past the end are zero
    // in the packer), a pipeline behind the RAM writes:
    //   C1  the word written, its word index, the checksum start (from the word itself
    //       for word 0, else from the captured header); at D_COMMIT an end token
    //       (no word) with the slot, the start's parity and whether the slot wants it
    //   C2  the word index compared with the start's word index; bytes before the
    //       start zeroed
    //   C3  16-bit words summed by eights
    //   C4  the frame accumulator; the end token moves its total to the fold
    //   F1  hi + lo; F2 + carry, byte swap for an odd start, inverted;
    //   F3  0 sent as 0xFFFF, into the slot's record (sl_csum, sl_csv)
    // Only slots with NEEDS_CSUM to fill get a result; their output waits for it
    // (sl_csv), so such a slot is never freed before its result lands.
    localparam int NW8 = (B / 2 < 8) ? 1 : B / 16;     // groups of eight words
    logic              drop_now, csum_now;
    logic              s1_v, s1_end, s1_odd, s1_docs;
    logic [SL_W-1:0]   s1_slot;
    logic [DATA_W-1:0] s1_d;
    logic [FL_W-1-BW:0] s1_w;         // word index (the word's first byte / B)
    logic [FL_W-1:0]   s1_cs;
    always_ff @(posedge clk) begin
        s1_v    <= ram_we && !rst;
        s1_end  <= dstate == D_COMMIT && !rst;
        s1_slot <= ws;
        s1_odd  <= cs_abs[0];
        s1_docs <= csum_now;
        s1_d    <= ram_wdata;
        s1_w    <= (FL_W - BW)'(wptr);
        s1_cs   <= (wptr == '0) ? ram_wdata[63:48] + FL_W'(HDR) : cs_abs;
    end

    logic              s2_v, s2_end, s2_odd, s2_docs;
    logic [SL_W-1:0]   s2_slot;
    logic [DATA_W-1:0] s2_m;           // the word with the bytes before the start zeroed
    logic [DATA_W-1:0] c2_m;
    always_comb begin
        logic gt, eq;
        gt = s1_w > s1_cs[FL_W-1:BW];
        eq = s1_w == s1_cs[FL_W-1:BW];
        for (int i = 0; i < B; i++) begin
            c2_m[i*8 +: 8] = (gt || (eq && BW'(i) >= s1_cs[BW-1:0])) ? s1_d[i*8 +: 8] : 8'd0;
        end
    end
    always_ff @(posedge clk) begin
        s2_m    <= c2_m;
        s2_v    <= s1_v && !rst;
        s2_end  <= s1_end && !rst;
        s2_slot <= s1_slot;
        s2_odd  <= s1_odd;
        s2_docs <= s1_docs;
    end

    logic              s3_v, s3_end, s3_odd, s3_docs;
    logic [SL_W-1:0]   s3_slot;
    logic [18:0]       s3_t [NW8];
    logic [18:0]       c3_t [NW8];
    always_comb begin
        for (int g = 0; g < NW8; g++) begin
            logic [15:0] w [8];
            for (int k = 0; k < 8; k++) begin
                w[k] = '0;
                if (8 * g + k < B / 2) begin
                    w[k] = {s2_m[(2*(8*g+k))*8 +: 8], s2_m[(2*(8*g+k)+1)*8 +: 8]};
                end
            end
            c3_t[g] = ((19'(w[0]) + 19'(w[1])) + (19'(w[2]) + 19'(w[3])))
                    + ((19'(w[4]) + 19'(w[5])) + (19'(w[6]) + 19'(w[7])));
        end
    end
    always_ff @(posedge clk) begin
        s3_t    <= c3_t;
        s3_v    <= s2_v && !rst;
        s3_end  <= s2_end && !rst;
        s3_slot <= s2_slot;
        s3_odd  <= s2_odd;
        s3_docs <= s2_docs;
    end

    logic [31:0]       sum_acc, word_sum;
    always_comb begin
        logic [31:0] t [NW8];
        for (int g = 0; g < NW8; g++) t[g] = 32'(s3_t[g]);
        for (int w = 1; w < NW8; w = 2 * w) begin
            for (int g = 0; g + w < NW8; g += 2 * w) t[g] = t[g] + t[g + w];
        end
        word_sum = t[0];
    end

    logic              f1_v, f1_odd, f2_v;
    logic [SL_W-1:0]   f1_slot, f2_slot;
    logic [16:0]       f1_s;
    logic [15:0]       f2_x, c_f2;
    always_comb begin
        c_f2 = f1_s[15:0] + {15'd0, f1_s[16]};
        if (f1_odd) c_f2 = {c_f2[7:0], c_f2[15:8]};
        c_f2 = ~c_f2;
    end
    always_ff @(posedge clk) begin
        if (s3_end)    sum_acc <= '0;
        else if (s3_v) sum_acc <= sum_acc + word_sum;
        f1_v    <= s3_end && s3_docs;
        f1_slot <= s3_slot;
        f1_odd  <= s3_odd;
        f1_s    <= {1'b0, sum_acc[15:0]} + {1'b0, sum_acc[31:16]};
        f2_v    <= f1_v;
        f2_slot <= f1_slot;
        f2_x    <= c_f2;
        if (rst) begin
            sum_acc <= '0;
            f1_v    <= 1'b0;
            f2_v    <= 1'b0;
        end
    end

    // drop decision (priority as counted)
    logic [2:0] drop_why, drop_why_q;
    logic       drop_cnt_q;
    always_comb begin
        drop_now = 1'b1;
        csum_now = 1'b0;
        drop_why = 3'd0;
        if (c_bad)                                  drop_why = 3'd0;
        else if (c_big)                             drop_why = 3'd1;
        else if (dma_err)                           drop_why = 3'd3;
        else if (byte_cnt < FL_W'(HDR + 14))        drop_why = 3'd2;
        else if (h_gso != 8'd0)                     drop_why = 3'd4;
        // cs_pos + 2 > frame length, with the length >= 14 here
        else if (h_flags[0] && cs_pos >= flm1_q)   drop_why = 3'd5;
        else begin
            drop_now = 1'b0;
            csum_now = h_flags[0];
        end
    end

    // committed slot records
    logic [FL_W-1:0]  sl_len  [SLOTS];
    logic [FL_W-1:0]  sl_cpos [SLOTS];
    logic [15:0]      sl_csum [SLOTS];
    logic [15:0]      sl_head [SLOTS];
    logic [QID_W-1:0] sl_queue[SLOTS];
    logic             sl_drop [SLOTS];
    logic             sl_docs [SLOTS];
    logic             sl_csv  [SLOTS];   // sl_csum holds this frame's result
    logic [FL_W-1:0]  sl_nb   [SLOTS];   // beats of the frame
    logic [FL_W-1:0]  sl_nbm1 [SLOTS];   // beats - 1
    logic             sl_one  [SLOTS];   // one beat

    assign cf_out_ready = (dstate == D_COMMIT);

    logic [CNT_W-1:0] cdrop [NUM_DROP];
    always_comb begin
        for (int k = 0; k < NUM_DROP; k++) cnt_drop[k] = cdrop[k];
    end

    // =================== output stage ===================
    // Two sides so that frames leave back to back. The read side takes the
    // committed slots in order and reads each frame's words (nbeats + 1: the
    // header offset needs one more) into a small word FIFO, going on with the
    // next slot at once; dropped slots are only marked. The emit side sends
    // the beats slot by slot from the FIFO and puts the return into a one-entry
    // register, so the next frame's first beat can follow the last one.
    logic [SLOTS-1:0]  sl_rd;          // the read side has taken the slot
    logic              r_act;
    logic [FL_W-1:0]   r_nbeats;
    assign r_nbeats = sl_nb[rr];

    logic [FL_W-1:0]   o_len, o_cpos;
    logic [15:0]       o_csum;
    logic              o_docs;
    assign o_len   = sl_len[rs];
    assign o_cpos  = sl_cpos[rs];
    assign o_csum  = sl_csum[rs];
    assign o_docs  = sl_docs[rs];

    logic [RA_W-1:0]   out_ra;
    logic [FL_W-1:0]   out_reads, out_beat;
    // the emitting frame's last beat, decided one cycle ahead: beats left after the
    // current one (rem_q), whether the current one is the last (o_last_q), and whether
    // a frame is part sent (mid_q; otherwise both follow the slot at rs)
    logic [FL_W-1:0]   rem_q;
    logic              o_last_q, mid_q;
    logic              rd_inflight;
    logic              wf_out_valid, wf_out_ready;
    logic [DATA_W-1:0] wf_out_data;
    logic [2:0]        wf_count;
    logic              have_prev;
    logic [DATA_W-1:0] prev;
    logic              e_act, e_drop, ret_v, beat_out;
    logic [QID_W-1:0]  ret_q;
    logic [15:0]       ret_h;
    // e_act (slot rs ready to send) and e_drop (slot rs dropped, its return only) are
    // registers: computed every cycle for the slot rs will be at (the next one when
    // the current frame ends now). The slot flags are set (full, read, checksum
    // valid) in other stages, a value one cycle old only delays; they are cleared
    // only for the slot being freed (rs, left now) or committed (not full before).
    logic             e_end, ea_c, ea_n, ed_c, ed_n;
    logic [SL_W-1:0]  rsn;
    assign e_end = (beat_out && m_axis_tlast) || (e_drop && !ret_v);
    assign rsn   = slot_next(rs);
    assign ea_c  = slot_full[rs] && sl_rd[rs] && !sl_drop[rs] && (!sl_docs[rs] || sl_csv[rs]);
    assign ea_n  = slot_full[rsn] && sl_rd[rsn] && !sl_drop[rsn] && (!sl_docs[rsn] || sl_csv[rsn]);
    assign ed_c  = slot_full[rs] && sl_rd[rs] && sl_drop[rs];
    assign ed_n  = slot_full[rsn] && sl_rd[rsn] && sl_drop[rsn];
    always_ff @(posedge clk) begin
        e_act  <= !rst && (e_end ? ea_n : ea_c);
        e_drop <= !rst && (e_end ? ed_n : ed_c);
    end

    fabnic_fifo #(.WIDTH(DATA_W), .DEPTH(4)) u_word_fifo (
        .clk, .rst,
        .in_valid(rd_inflight), .in_ready(), .in_data(ram_rdata),
        .out_valid(wf_out_valid), .out_ready(wf_out_ready), .out_data(wf_out_data),
        .status_count(wf_count));

    // occupancy kept here in registers (the FIFO's own flags are pointer compares):
    // wf_occ words read and not yet taken by the emit side (in flight or in the
    // FIFO, <= 4), wf_n words in the FIFO, wf_nz = wf_n != 0 (= wf_out_valid)
    logic [2:0] wf_occ, wf_n;
    logic       wf_nz, wf_pop;
    logic out_issue;
    assign out_issue = r_act && !wf_occ[2];
    assign ram_re    = out_issue;
    assign ram_raddr = rbase + out_ra;

    always_comb begin
        logic [DATA_W-1:0] d;
        d = (prev >> (8 * SH)) | (wf_out_data << (DATA_W - 8 * SH));
        for (int i = 0; i < B; i++) begin
            logic [31:0] pos;
            pos = 32'(out_beat) * B + 32'(i);
            if (o_docs && pos == 32'(o_cpos)) d[i*8 +: 8] = o_csum[15:8];
            if (o_docs && pos == 32'(o_cpos) + 1) d[i*8 +: 8] = o_csum[7:0];
            m_axis_tkeep[i] = (pos < 32'(o_len));
        end
        m_axis_tdata  = d;
        m_axis_tlast  = o_last_q;
        // the last beat waits while the return register is still full
        m_axis_tvalid = e_act && have_prev && wf_nz && (!m_axis_tlast || !ret_v);
        m_axis_tid    = sl_queue[rs];
        m_axis_tuser  = {o_len, 1'b0};
        beat_out      = m_axis_tvalid && m_axis_tready;
        wf_out_ready  = e_act && wf_nz && (!have_prev || beat_out);
        wf_pop        = wf_out_ready;
    end

    assign m_ret_valid = ret_v;
    assign ret_fire    = m_ret_valid && m_ret_ready;
    assign m_ret_queue = ret_q;
    assign m_ret_id    = ret_h;
    assign m_ret_len   = '0;

    // =================== control ===================
    always_ff @(posedge clk) begin
        if (rst) begin
            dstate     <= D_ING;
            slot_full  <= '0;
            ws         <= '0;
            rs         <= '0;
            rcount     <= '0;
            dma_err    <= 1'b0;
            res_cnt    <= '0;
            res_data   <= '0;
            byte_cnt   <= '0;
            flm1_q     <= FL_W'(-(HDR + 1));
            drop_cnt_q <= 1'b0;
            drop_why_q <= '0;
            wptr       <= '0;
            rd_inflight <= 1'b0;
            wf_occ      <= '0;
            wf_n        <= '0;
            wf_nz       <= 1'b0;
            have_prev  <= 1'b0;
            sl_rd      <= '0;
            rr         <= '0;
            r_act      <= 1'b0;
            ret_v      <= 1'b0;
            ret_q      <= '0;
            ret_h      <= '0;
            out_ra     <= '0;
            out_reads  <= '0;
            out_beat   <= '0;
            rem_q      <= '0;
            o_last_q   <= 1'b0;
            mid_q      <= 1'b0;
            cnt_frames <= '0;
            cnt_csum   <= '0;
            for (int k = 0; k < NUM_DROP; k++) cdrop[k] <= '0;
            for (int k = 0; k < SLOTS; k++) begin
                sl_len[k] <= '0; sl_cpos[k] <= '0; sl_csum[k] <= '0; sl_head[k] <= '0;
                sl_queue[k] <= '0; sl_drop[k] <= 1'b0; sl_docs[k] <= 1'b0;
                sl_csv[k] <= 1'b0; sl_nb[k] <= '0; sl_nbm1[k] <= '0; sl_one[k] <= 1'b0;
            end
        end else begin
            // ---------------- pack ----------------
            // drops are counted the cycle after their commit
            drop_cnt_q <= 1'b0;
            if (drop_cnt_q) cdrop[drop_why_q] <= cdrop[drop_why_q] + 1'b1;
            unique case (dstate)
            D_ING: begin
                if (beat_in) begin
                    byte_cnt <= byte_cnt + FL_W'(in_n);
                    flm1_q   <= flm1_q + FL_W'(in_n);
                    if (total >= (BW+2)'(B)) begin
                        wptr     <= wptr + 1'b1;
                        res_data <= comb_w[2*DATA_W-1:DATA_W];
                        res_cnt  <= BW'(total - (BW+2)'(B));
                    end else begin
                        res_data <= comb_w[DATA_W-1:0];
                        res_cnt  <= BW'(total);
                    end
                    if (s_rd_axis_tlast) rcount <= rcount + 16'd1;
                    if (s_rd_axis_tlast && s_rd_axis_tuser[0]) dma_err <= 1'b1;
                end
                // the chain's last beat (or a chain without reads) ends the frame
                if (!slot_full[ws] && (chain_in_done ||
                    (cf_out_valid && beat_in && s_rd_axis_tlast && (rcount + 16'd1) == c_nreads)))
                    dstate <= D_FLUSH;
            end
            D_FLUSH: dstate <= D_COMMIT;  // residual word written
            D_COMMIT: begin
                sl_len[ws]   <= frame_len;
                sl_cpos[ws]  <= cs_pos;
                sl_csv[ws]   <= 1'b0;
                sl_nb[ws]    <= (byte_cnt + FL_W'(B - HDR - 1)) >> BW;
                sl_nbm1[ws]  <= flm1_q >> BW;
                sl_one[ws]   <= byte_cnt <= FL_W'(HDR + B);
                sl_head[ws]  <= c_head;
                sl_queue[ws] <= c_queue;
                sl_drop[ws]  <= drop_now;
                sl_docs[ws]  <= csum_now;
                slot_full[ws] <= 1'b1;
                sl_rd[ws]    <= 1'b0;
                ws           <= slot_next(ws);
                drop_cnt_q   <= drop_now;
                drop_why_q   <= drop_why;
                rcount   <= '0;
                dma_err  <= 1'b0;
                res_cnt  <= '0;
                res_data <= '0;
                byte_cnt <= '0;
                flm1_q   <= FL_W'(-(HDR + 1));
                wptr     <= '0;
                dstate   <= D_ING;
            end
            default: dstate <= D_ING;
            endcase

            // ---------------- output: read side ----------------
            rd_inflight <= out_issue;
            if (!r_act) begin
                if (slot_full[rr] && !sl_rd[rr]) begin
                    sl_rd[rr] <= 1'b1;
                    if (sl_drop[rr]) begin
                        rr <= slot_next(rr);
                    end else begin
                        r_act     <= 1'b1;
                        out_ra    <= RA_W'(W0);
                        out_reads <= '0;
                    end
                end
            end else if (out_issue) begin
                out_ra    <= out_ra + 1'b1;
                out_reads <= out_reads + 1'b1;
                if (out_reads == r_nbeats) begin
                    r_act <= 1'b0;
                    rr    <= slot_next(rr);
                end
            end
            // ---------------- output: emit side ----------------
            if (ret_fire) ret_v <= 1'b0;
            wf_occ <= wf_occ + 3'(out_issue) - 3'(wf_pop);
            wf_n   <= wf_n + 3'(rd_inflight) - 3'(wf_pop);
            wf_nz  <= rd_inflight || wf_n >= 3'd2 || (wf_n == 3'd1 && !wf_pop);
            if (wf_pop) begin
                prev      <= wf_out_data;
                have_prev <= 1'b1;
            end
            if (beat_out) begin
                out_beat <= out_beat + 1'b1;
                if (m_axis_tlast) begin
                    cnt_frames <= cnt_frames + 1'b1;
                    if (o_docs) cnt_csum <= cnt_csum + 1'b1;
                    out_beat  <= '0;
                    have_prev <= 1'b0;
                end
            end
            if (e_end) begin
                rem_q    <= sl_nbm1[slot_next(rs)];
                o_last_q <= sl_one[slot_next(rs)];
                mid_q    <= 1'b0;
            end else if (beat_out) begin
                rem_q    <= rem_q - 1'b1;
                o_last_q <= rem_q == FL_W'(1);
                mid_q    <= 1'b1;
            end else if (!mid_q) begin
                rem_q    <= sl_nbm1[rs];
                o_last_q <= sl_one[rs];
            end
            if (e_end) begin
                ret_v <= 1'b1;
                ret_q <= sl_queue[rs];
                ret_h <= sl_head[rs];
                slot_full[rs] <= 1'b0;
                rs <= slot_next(rs);
            end
            // commit and free never touch the same slot in one cycle
            if (dstate == D_COMMIT) slot_full[ws] <= 1'b1;
            // checksum result (F3): its slot is full and not the one committed now
            if (f2_v) begin
                sl_csum[f2_slot] <= (f2_x == 16'd0) ? 16'hFFFF : f2_x;
                sl_csv[f2_slot]  <= 1'b1;
            end
        end
    end

    logic unused;
    assign unused = ^{wf_count, wf_out_valid, len_sum, s_rd_cpl_tag, s_rd_cpl_status, s_rd_cpl_valid, hdr[95:80], hdr[47:16],
                      h_flags[7:1]};

    // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) begin
            // the registered word-FIFO occupancy matches the FIFO
            assert (wf_nz == wf_out_valid && 4'(wf_n) == 4'(wf_count) &&
                    wf_occ == wf_n + 3'(rd_inflight) && wf_occ <= 3'd4)
                else $error("fabnic_virtio_net_tx: word FIFO occupancy");
            assert (room == 32'(MAX_FRAME) - len_sum)
                else $error("fabnic_virtio_net_tx: room");
            // the registered slot state never runs ahead of the slot flags
            assert (!e_act || ea_c) else $error("fabnic_virtio_net_tx: e_act");
            assert (!e_drop || ed_c) else $error("fabnic_virtio_net_tx: e_drop");
        end
    end
`endif

endmodule

`resetall
