// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_net_tx: VirtIO-net transmit data mover (store and forward).
//
// Takes one buffer chain at a time from fabnic_virtq_split (s_buf_*), reads
// every buffer through a fabnic_dma_rd port and packs the bytes contiguously
// into a frame RAM (MAX_FRAME bytes: 12-byte virtio_net_hdr + frame). Then:
//   - drop (counted) when the chain was marked bad, a DMA error occurred, the
//     chain is longer than MAX_FRAME, the frame is shorter than 14 bytes, a
//     GSO type is requested (HOST_TSO not offered) or NEEDS_CSUM points
//     outside the frame;
//   - with NEEDS_CSUM a second pass over the RAM computes the ones'-complement
//     sum of frame bytes [csum_start, end) and the result (~sum, 0 sent as
//     0xFFFF) replaces the two bytes at csum_start + csum_offset on output;
//   - the frame (header stripped) leaves on m_axis: tid = queue,
//     tuser[0] = 0, tuser[16:1] = frame length (every beat).
// Finally the chain is returned (m_ret_*, used len 0) - also for drops.
// Throughput: ingest and output are not overlapped (one frame RAM).
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
    parameter int NUM_DROP  = 6
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
    localparam int DEPTH  = (MAX_FRAME + B - 1) / B + 2;
    localparam int RA_W   = $clog2(DEPTH);
    localparam int FL_W   = 16;

    if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0) begin : g_chk_w
        $error("fabnic_virtio_net_tx: DATA_W must be a power of two >= 64");
    end
    if (NUM_DROP != 6 || MAX_FRAME >= 65536) begin : g_chk_n
        $error("fabnic_virtio_net_tx: NUM_DROP is 6, MAX_FRAME < 65536");
    end

    typedef enum logic [2:0] {ST_ING, ST_FLUSH, ST_CHECK, ST_SUM, ST_FOLD, ST_OUT, ST_RET}
        state_t;
    state_t state;

    // ---------------- chain intake and DMA issue ----------------
    logic             chain_done, bad_chain, too_big, dma_err;
    logic [15:0]      head;
    logic [QID_W-1:0] queue;
    logic [31:0]      len_sum, issued, cpls;

    logic el_ok, el_fits;
    assign el_ok   = (s_buf_status == 2'd0);
    assign el_fits = ({1'b0, len_sum} + {1'b0, s_buf_len}) <= 33'(MAX_FRAME);
    assign m_rd_desc_valid = (state == ST_ING) && !chain_done && s_buf_valid && el_ok
                             && el_fits && !too_big;
    assign s_buf_ready     = (state == ST_ING) && !chain_done &&
                             (!(el_ok && el_fits && !too_big) || m_rd_desc_ready);
    assign s_buf_idle      = (state == ST_ING) && !chain_done;
    assign m_rd_desc_addr  = ADDR_W'(s_buf_addr);
    assign m_rd_desc_len   = LEN_W'(s_buf_len);
    assign m_rd_desc_tag   = '0;
    assign s_rd_cpl_ready  = (state == ST_ING);
    assign s_rd_axis_tready = (state == ST_ING);

    // ---------------- packer ----------------
    logic [DATA_W-1:0]   res_data;
    logic [BW-1:0]       res_cnt;
    logic [FL_W-1:0]     byte_cnt;
    logic [RA_W-1:0]     wptr;
    logic [BW:0]         in_n;
    logic [DATA_W-1:0]   in_masked;
    logic [2*DATA_W-1:0] comb_w;
    logic [BW+1:0]       total;

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
    logic               beat_in;
    assign beat_in = (state == ST_ING) && s_rd_axis_tvalid;

    always_comb begin
        ram_we    = 1'b0;
        ram_waddr = wptr;
        ram_wdata = comb_w[DATA_W-1:0];
        if (beat_in && total >= (BW+2)'(B)) ram_we = 1'b1;
        if (state == ST_FLUSH && res_cnt != '0) begin
            ram_we    = 1'b1;
            ram_wdata = res_data;
        end
    end

    fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(DEPTH)) u_ram (
        .clk,
        .wr_en(ram_we), .wr_be(1'b1), .wr_addr(ram_waddr), .wr_data(ram_wdata),
        .rd_en(ram_re), .rd_regce(1'b1), .rd_addr(ram_raddr), .rd_data(ram_rdata));

    // header bytes
    logic [8*HDR-1:0] hdr;
    logic [7:0]  h_flags, h_gso;
    logic [15:0] h_cstart, h_coff;
    assign h_flags  = hdr[7:0];
    assign h_gso    = hdr[15:8];
    assign h_cstart = hdr[63:48];
    assign h_coff   = hdr[79:64];

    logic [FL_W-1:0] frame_len, cs_abs, cs_pos, nbeats;
    assign frame_len = byte_cnt - FL_W'(HDR);
    assign cs_abs    = h_cstart + FL_W'(HDR);
    assign cs_pos    = h_cstart + h_coff;
    assign nbeats    = (frame_len + FL_W'(B - 1)) >> BW;

    // ---------------- checksum pass ----------------
    logic [RA_W-1:0] sum_ra;
    logic            sum_dv;
    logic [RA_W-1:0] sum_dw;
    logic [31:0]     sum_acc;
    logic [31:0]     word_sum;
    logic [15:0]     csum;
    logic [FL_W-1:0] nwords;
    assign nwords = (byte_cnt + FL_W'(B - 1)) >> BW;

    always_comb begin
        word_sum = '0;
        for (int j = 0; j < B / 2; j++) begin
            logic [31:0] p;
            logic [7:0] hi, lo;
            p  = 32'(sum_dw) * B + 32'(2 * j);
            hi = (p >= 32'(cs_abs) && p < 32'(byte_cnt)) ? ram_rdata[(2*j)*8 +: 8] : 8'd0;
            lo = (p + 1 >= 32'(cs_abs) && p + 1 < 32'(byte_cnt)) ? ram_rdata[(2*j+1)*8 +: 8] : 8'd0;
            word_sum = word_sum + {16'd0, hi, lo};
        end
    end

    logic [15:0] csum_fold;
    always_comb begin
        logic [31:0] s1;
        logic [16:0] s2;
        logic [15:0] s3;
        s1 = {16'd0, sum_acc[15:0]} + {16'd0, sum_acc[31:16]};
        s2 = {1'b0, s1[15:0]} + {1'b0, s1[31:16]};
        s3 = s2[15:0] + {15'd0, s2[16]};
        if (cs_abs[0]) s3 = {s3[7:0], s3[15:8]};
        s3 = ~s3;
        csum_fold = (s3 == 16'd0) ? 16'hFFFF : s3;
    end

    // ---------------- output pass ----------------
    logic [RA_W-1:0]   out_ra;
    logic [FL_W-1:0]   out_reads, out_beat;
    logic              rd_inflight;
    logic              wf_in_valid, wf_out_valid, wf_out_ready;
    logic [DATA_W-1:0] wf_out_data;
    logic [2:0]        wf_count;
    logic              have_prev;
    logic [DATA_W-1:0] prev;
    logic              do_csum;

    fabnic_fifo #(.WIDTH(DATA_W), .DEPTH(4)) u_word_fifo (
        .clk, .rst,
        .in_valid(wf_in_valid), .in_ready(), .in_data(ram_rdata),
        .out_valid(wf_out_valid), .out_ready(wf_out_ready), .out_data(wf_out_data),
        .status_count(wf_count));

    logic out_issue;
    assign out_issue = (state == ST_OUT) && (out_reads <= nbeats) &&
                       ({1'b0, wf_count} + {3'd0, rd_inflight}) < 4'd4;
    assign wf_in_valid = rd_inflight;

    always_comb begin
        ram_re    = 1'b0;
        ram_raddr = sum_ra;
        if (state == ST_SUM && 16'(sum_ra) < nwords) ram_re = 1'b1;
        if (out_issue) begin
            ram_re    = 1'b1;
            ram_raddr = out_ra;
        end
    end

    always_comb begin
        logic [DATA_W-1:0] d;
        d = (prev >> (8 * SH)) | (wf_out_data << (DATA_W - 8 * SH));
        for (int i = 0; i < B; i++) begin
            logic [31:0] pos;
            pos = 32'(out_beat) * B + 32'(i);
            if (do_csum && pos == 32'(cs_pos)) d[i*8 +: 8] = csum[15:8];
            if (do_csum && pos == 32'(cs_pos) + 1) d[i*8 +: 8] = csum[7:0];
            m_axis_tkeep[i] = (pos < 32'(frame_len));
        end
        m_axis_tdata  = d;
        m_axis_tvalid = (state == ST_OUT) && have_prev && wf_out_valid;
        m_axis_tlast  = (out_beat == nbeats - 16'd1);
        m_axis_tid    = queue;
        m_axis_tuser  = {frame_len, 1'b0};
        wf_out_ready  = (state == ST_OUT) && wf_out_valid && (!have_prev || m_axis_tready);
    end

    assign m_ret_valid = (state == ST_RET);
    assign m_ret_queue = queue;
    assign m_ret_id    = head;
    assign m_ret_len   = '0;

    // ---------------- control ----------------
    logic [CNT_W-1:0] cdrop [NUM_DROP];
    always_comb begin
        for (int k = 0; k < NUM_DROP; k++) cnt_drop[k] = cdrop[k];
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            state      <= ST_ING;
            chain_done <= 1'b0;
            bad_chain  <= 1'b0;
            too_big    <= 1'b0;
            dma_err    <= 1'b0;
            len_sum    <= '0;
            issued     <= '0;
            cpls       <= '0;
            res_cnt    <= '0;
            res_data   <= '0;
            byte_cnt   <= '0;
            wptr       <= '0;
            rd_inflight <= 1'b0;
            have_prev  <= 1'b0;
            do_csum    <= 1'b0;
            sum_dv     <= 1'b0;
            cnt_frames <= '0;
            cnt_csum   <= '0;
            for (int k = 0; k < NUM_DROP; k++) cdrop[k] <= '0;
        end else begin
            rd_inflight <= out_issue;
            unique case (state)
            ST_ING: begin
                if (s_buf_valid && s_buf_ready) begin
                    if (el_ok && el_fits && !too_big) len_sum <= len_sum + s_buf_len;
                    if (el_ok && el_fits && !too_big) issued <= issued + 1;
                    if (el_ok && !(el_fits && !too_big)) too_big <= 1'b1;
                    if (!el_ok) bad_chain <= 1'b1;
                    if (s_buf_last) begin
                        chain_done <= 1'b1;
                        head  <= s_buf_head;
                        queue <= s_buf_queue;
                    end
                end
                if (s_rd_axis_tvalid) begin
                    byte_cnt <= byte_cnt + FL_W'(in_n);
                    if (total >= (BW+2)'(B)) begin
                        wptr     <= wptr + 1'b1;
                        res_data <= comb_w[2*DATA_W-1:DATA_W];
                        res_cnt  <= BW'(total - (BW+2)'(B));
                    end else begin
                        res_data <= comb_w[DATA_W-1:0];
                        res_cnt  <= BW'(total);
                    end
                    if (s_rd_axis_tlast && s_rd_axis_tuser[0]) dma_err <= 1'b1;
                end
                if (s_rd_cpl_valid) begin
                    cpls <= cpls + 1;
                    if (s_rd_cpl_status[0]) dma_err <= 1'b1;
                end
                if (chain_done && cpls == issued) state <= ST_FLUSH;
            end
            ST_FLUSH: begin
                state <= ST_CHECK;
            end
            ST_CHECK: begin
                sum_ra  <= '0;
                sum_dv  <= 1'b0;
                sum_acc <= '0;
                out_ra    <= RA_W'(W0);
                out_reads <= '0;
                out_beat  <= '0;
                have_prev <= 1'b0;
                do_csum   <= 1'b0;
                state     <= ST_RET;
                if (bad_chain)                 cdrop[0] <= cdrop[0] + 1'b1;
                else if (too_big)              cdrop[1] <= cdrop[1] + 1'b1;
                else if (dma_err)              cdrop[3] <= cdrop[3] + 1'b1;
                else if (byte_cnt < FL_W'(HDR + 14)) cdrop[2] <= cdrop[2] + 1'b1;
                else if (h_gso != 8'd0)        cdrop[4] <= cdrop[4] + 1'b1;
                else if (h_flags[0] && ({1'b0, cs_pos} + 17'd2 > {1'b0, frame_len}))
                                               cdrop[5] <= cdrop[5] + 1'b1;
                else if (h_flags[0]) begin
                    do_csum <= 1'b1;
                    state   <= ST_SUM;
                end else begin
                    state <= ST_OUT;
                end
            end
            ST_SUM: begin
                if (ram_re) sum_ra <= sum_ra + 1'b1;
                sum_dv <= ram_re;
                sum_dw <= sum_ra;
                if (sum_dv) sum_acc <= sum_acc + word_sum;
                if (!ram_re && !sum_dv) state <= ST_FOLD;
            end
            ST_FOLD: begin
                csum  <= csum_fold;
                state <= ST_OUT;
            end
            ST_OUT: begin
                if (out_issue) begin
                    out_ra    <= out_ra + 1'b1;
                    out_reads <= out_reads + 1'b1;
                end
                if (wf_out_valid && wf_out_ready) begin
                    prev      <= wf_out_data;
                    have_prev <= 1'b1;
                end
                if (m_axis_tvalid && m_axis_tready) begin
                    out_beat <= out_beat + 1'b1;
                    if (m_axis_tlast) begin
                        state <= ST_RET;
                        cnt_frames <= cnt_frames + 1'b1;
                        if (do_csum) cnt_csum <= cnt_csum + 1'b1;
                    end
                end
            end
            ST_RET: begin
                if (m_ret_ready) begin
                    state      <= ST_ING;
                    chain_done <= 1'b0;
                    bad_chain  <= 1'b0;
                    too_big    <= 1'b0;
                    dma_err    <= 1'b0;
                    len_sum    <= '0;
                    issued     <= '0;
                    cpls       <= '0;
                    res_cnt    <= '0;
                    res_data   <= '0;
                    byte_cnt   <= '0;
                    wptr       <= '0;
                    have_prev  <= 1'b0;
                end
            end
            default: state <= ST_ING;
            endcase
        end
    end

    // header capture from every RAM word write
    always_ff @(posedge clk) begin
        if (ram_we) begin
            for (int i = 0; i < HDR; i++) begin
                if (32'(ram_waddr) == i / B) hdr[i*8 +: 8] <= ram_wdata[(i % B)*8 +: 8];
            end
        end
    end

    logic unused;
    assign unused = ^{s_rd_cpl_tag, s_rd_cpl_status[1], hdr[95:80], hdr[47:16], h_flags[7:1]};

endmodule

`resetall
