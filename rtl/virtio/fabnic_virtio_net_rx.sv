// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_net_rx: VirtIO-net receive data mover (store and forward).
//
// 1. A frame (s_axis, tdest = RX queue, last-beat tuser[0] = bad,
//    tuser[1] = checksum verified) is stored in a frame RAM behind a 12-byte
//    gap for the virtio_net_hdr. Bad frames and frames > MAX_FRAME are
//    dropped and counted before any buffer is taken.
// 2. Buffer chains are requested from fabnic_virtq_split (m_rxreq / s_buf):
//    one chain, or with mrg_rxbuf up to MAX_CHAINS chains until the capacity
//    covers 12 + frame length. A chain the engine marks BAD is returned at
//    once with used len 0 and another is requested. No chain (EMPTY) or not
//    enough room -> the frame is dropped and counted; chains already taken
//    are returned with used len 0 (never silent truncation).
// 3. virtio_net_hdr {flags = DATA_VALID if tuser[1], num_buffers = chains}
//    followed by the frame are written buffer by buffer through fabnic_dma_wr.
// 4. After every write completion, one used element per chain (len = bytes
//    written into it) goes to m_ret_*, with more=1 on all but the last so
//    the engine publishes used->idx once for the whole frame.
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
    parameter int NUM_DROP   = 4
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
    localparam int DEPTH = (MAX_FRAME + HDR + B - 1) / B + 3;
    localparam int RA_W  = $clog2(DEPTH);
    localparam int EI_W  = $clog2(MAX_ELEMS + 1);
    localparam int CI_W  = $clog2(MAX_CHAINS + 1);

    if (DATA_W < 64 || (DATA_W & (DATA_W - 1)) != 0) begin : g_chk_w
        $error("fabnic_virtio_net_rx: DATA_W must be a power of two >= 64");
    end
    if (NUM_DROP != 4 || MAX_FRAME >= 65000) begin : g_chk_n
        $error("fabnic_virtio_net_rx: NUM_DROP is 4, MAX_FRAME < 65000");
    end

    typedef enum logic [3:0] {
        ST_ING, ST_FLUSH, ST_REQ, ST_BUF, ST_BADRET, ST_DESC, ST_STREAM, ST_WAITCPL,
        ST_RET, ST_DROPRET
    } state_t;
    state_t state;

    // ---------------- frame RAM ----------------
    logic              ram_we, ram_re;
    logic [RA_W-1:0]   ram_waddr, ram_raddr;
    logic [DATA_W-1:0] ram_wdata, ram_rdata;
    fabnic_ram_sdp #(.DATA_W(DATA_W), .DEPTH(DEPTH)) u_ram (
        .clk,
        .wr_en(ram_we), .wr_be(1'b1), .wr_addr(ram_waddr), .wr_data(ram_wdata),
        .rd_en(ram_re), .rd_regce(1'b1), .rd_addr(ram_raddr), .rd_data(ram_rdata));

    // ---------------- ingest ----------------
    logic [DATA_W-1:0] carry, in_masked;
    logic [RA_W-1:0]   wptr;
    logic [15:0]       flen;
    logic [BW:0]       in_n;
    logic              too_big, in_bad, csum_ok;
    logic [QID_W-1:0]  queue;

    always_comb begin
        in_n = '0;
        for (int i = 0; i < B; i++) begin
            if (s_axis_tkeep[i]) in_n = in_n + 1'b1;
            in_masked[i*8 +: 8] = s_axis_tkeep[i] ? s_axis_tdata[i*8 +: 8] : 8'd0;
        end
    end
    assign s_axis_tready = (state == ST_ING);

    logic fits;
    assign fits = ({1'b0, flen} + 17'(in_n)) <= 17'(MAX_FRAME);
    always_comb begin
        ram_we    = 1'b0;
        ram_waddr = wptr;
        ram_wdata = (in_masked << (8 * SH)) | carry;
        if (state == ST_ING && s_axis_tvalid && !too_big && fits) ram_we = 1'b1;
        if (state == ST_FLUSH && !too_big) begin
            ram_we    = 1'b1;
            ram_wdata = carry;
        end
    end

    // ---------------- buffers ----------------
    logic [63:0]      e_addr [MAX_ELEMS];
    logic [31:0]      e_len  [MAX_ELEMS];
    logic [CI_W-1:0]  e_chain[MAX_ELEMS];
    logic [15:0]      c_head [MAX_CHAINS];
    logic [31:0]      c_len  [MAX_CHAINS];
    logic [EI_W-1:0]  n_elems;
    logic [CI_W-1:0]  n_chains, ret_i;
    logic [32:0]      cap;
    logic [15:0]      total;     // 12 + frame length
    logic [15:0]      bad_head;

    assign total = flen + 16'(HDR);
    assign m_rxreq_valid = (state == ST_REQ);
    assign m_rxreq_queue = queue;
    assign s_buf_ready   = (state == ST_BUF);

    // ---------------- write-out ----------------
    logic [EI_W-1:0]  wi;          // element being written
    logic [15:0]      woff;        // virtual offset written so far
    logic [15:0]      wlen;        // bytes for the current element
    logic [15:0]      nb, reads, beat;
    logic [RA_W-1:0]  rptr;
    logic [BW-1:0]    rsh;
    logic             rd_inflight;
    logic [RA_W-1:0]  rd_idx;
    logic [31:0]      issued, cpls;
    logic [8*HDR-1:0] hdr;
    // virtio_net_hdr: flags DATA_VALID (2) if verified, num_buffers = chains taken
    assign hdr = {16'(n_chains), 64'd0, 8'd0, (csum_ok ? 8'd2 : 8'd0)};

    localparam int EX_W = (MAX_ELEMS > 1) ? $clog2(MAX_ELEMS) : 1;
    localparam int CX_W = (MAX_CHAINS > 1) ? $clog2(MAX_CHAINS) : 1;
    logic [EX_W-1:0] wi_x, ne_x;
    logic [CX_W-1:0] nc_x, ri_x, wc_x;
    assign wi_x = EX_W'(wi);
    assign ne_x = EX_W'(n_elems);
    assign nc_x = CX_W'(n_chains);
    assign ri_x = CX_W'(ret_i);
    assign wc_x = CX_W'(e_chain[wi_x]);

    logic [31:0] e_cur_len;
    assign e_cur_len = e_len[wi_x];
    logic [15:0] remain;
    assign remain = total - woff;
    logic [15:0] wlen_c;
    assign wlen_c = ({16'd0, remain} < e_cur_len) ? remain : e_cur_len[15:0];

    logic cap_short, wr_done, desc_go;
    assign cap_short = (state == ST_DESC) && (issued == 0) && (woff == 16'd0) &&
                       (cap < {17'd0, total});
    assign wr_done   = (woff == total) || (wi == n_elems);
    assign desc_go   = (state == ST_DESC) && !cap_short && !wr_done && (wlen_c != 16'd0);
    assign m_wr_desc_addr  = ADDR_W'(e_addr[wi_x]);
    assign m_wr_desc_len   = LEN_W'(wlen_c);
    assign m_wr_desc_tag   = '0;
    assign m_wr_desc_valid = desc_go;
    assign s_wr_cpl_ready  = 1'b1;

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

    logic issue;
    assign issue = (state == ST_STREAM) && (reads <= nb) &&
                   ({1'b0, wf_count} + {3'd0, rd_inflight}) < 4'd4;
    assign ram_re    = issue;
    assign ram_raddr = rptr;
    assign wf_in_valid = rd_inflight;
    always_comb begin
        wf_in_data = ram_rdata;
        for (int i = 0; i < B; i++) begin
            for (int h = 0; h < HDR; h++) begin
                if (32'(rd_idx) * B + i == h) wf_in_data[i*8 +: 8] = hdr[h*8 +: 8];
            end
        end
    end

    logic [2*DATA_W-1:0] two;
    always_comb begin
        two = {wf_out_data, prev} >> {rsh, 3'b000};
        m_wr_axis_tdata  = two[DATA_W-1:0];
        for (int i = 0; i < B; i++) begin
            m_wr_axis_tkeep[i] = (32'(beat) * B + i) < 32'(wlen);
        end
        m_wr_axis_tvalid = (state == ST_STREAM) && have_prev && wf_out_valid;
        m_wr_axis_tlast  = (beat == nb - 16'd1);
        wf_out_ready     = (state == ST_STREAM) && wf_out_valid && (!have_prev || m_wr_axis_tready);
    end

    // returns
    always_comb begin
        m_ret_valid = 1'b0;
        m_ret_queue = queue;
        m_ret_id    = c_head[ri_x];
        m_ret_len   = c_len[ri_x];
        m_ret_more  = 1'b0;
        if (state == ST_BADRET) begin
            m_ret_valid = 1'b1;
            m_ret_id    = bad_head;
            m_ret_len   = '0;
        end else if (state == ST_RET) begin
            m_ret_valid = 1'b1;
            m_ret_more  = (ret_i + 1'b1) < n_chains;
        end else if (state == ST_DROPRET) begin
            m_ret_valid = (ret_i < n_chains);
            m_ret_len   = '0;
        end
    end

    logic [CNT_W-1:0] cdrop [NUM_DROP];
    always_comb begin
        for (int k = 0; k < NUM_DROP; k++) cnt_drop[k] = cdrop[k];
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            state      <= ST_ING;
            carry      <= '0;
            wptr       <= RA_W'(W0);
            flen       <= '0;
            too_big    <= 1'b0;
            n_elems    <= '0;
            n_chains   <= '0;
            cap        <= '0;
            rd_inflight <= 1'b0;
            have_prev  <= 1'b0;
            issued     <= '0;
            cpls       <= '0;
            ret_i      <= '0;
            cnt_frames <= '0;
            cnt_bad_chain <= '0;
            cnt_dma_err <= '0;
            for (int k = 0; k < NUM_DROP; k++) cdrop[k] <= '0;
        end else begin
            rd_inflight <= issue;
            rd_idx      <= rptr;
            if (s_wr_cpl_valid) begin
                cpls <= cpls + 1;
                if (s_wr_cpl_status[0]) cnt_dma_err <= cnt_dma_err + 1'b1;
            end
            unique case (state)
            ST_ING: begin
                if (s_axis_tvalid) begin
                    if (!too_big && fits) begin
                        flen  <= flen + 16'(in_n);
                        wptr  <= wptr + 1'b1;
                        carry <= (SH == 0) ? '0 : (in_masked >> (DATA_W - 8 * SH));
                    end else begin
                        too_big <= 1'b1;
                    end
                    if (s_axis_tlast) begin
                        in_bad  <= s_axis_tuser[0];
                        csum_ok <= s_axis_tuser[1];
                        queue   <= s_axis_tdest;
                        state   <= ST_FLUSH;
                    end
                end
            end
            ST_FLUSH: begin
                n_elems  <= '0;
                n_chains <= '0;
                cap      <= '0;
                if (in_bad) begin
                    cdrop[0] <= cdrop[0] + 1'b1;
                    state    <= ST_DROPRET;
                end else if (too_big) begin
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
                            e_chain[ne_x] <= n_chains;
                            n_elems <= n_elems + 1'b1;
                            cap     <= cap + {1'b0, s_buf_len};
                        end
                        if (s_buf_last) begin
                            c_head[nc_x] <= s_buf_head;
                            c_len[nc_x]  <= '0;
                            n_chains <= n_chains + 1'b1;
                            state    <= ST_DESC;   // decided below
                        end
                    end else if (s_buf_status == 2'd1) begin
                        bad_head <= s_buf_head;
                        cnt_bad_chain <= cnt_bad_chain + 1'b1;
                        state <= ST_BADRET;
                    end else begin
                        cdrop[2] <= cdrop[2] + 1'b1;
                        ret_i    <= '0;
                        state    <= ST_DROPRET;
                    end
                end
                // capacity decision once the chain is complete (uses updated cap next cycle)
            end
            ST_BADRET: begin
                if (m_ret_ready) state <= ST_REQ;
            end
            ST_DESC: begin
                // first entry after a chain completed: check capacity
                if (cap_short) begin
                    if (mrg_rxbuf && 32'(n_chains) < MAX_CHAINS && 32'(n_elems) < MAX_ELEMS) begin
                        state <= ST_REQ;
                    end else begin
                        cdrop[3] <= cdrop[3] + 1'b1;
                        ret_i    <= '0;
                        state    <= ST_DROPRET;
                    end
                end else if (wr_done) begin
                    state <= ST_WAITCPL;
                end else if (wlen_c == 16'd0) begin
                    wi <= wi + 1'b1;
                end else if (desc_go && m_wr_desc_ready) begin
                    issued <= issued + 1;
                    wlen   <= wlen_c;
                    nb     <= (wlen_c + 16'(B - 1)) >> BW;
                    reads  <= '0;
                    beat   <= '0;
                    rptr   <= RA_W'(woff >> BW);
                    rsh    <= woff[BW-1:0];
                    have_prev <= 1'b0;
                    c_len[wc_x] <= c_len[wc_x] + {16'd0, wlen_c};
                    state  <= ST_STREAM;
                end
            end
            ST_STREAM: begin
                if (issue) begin
                    rptr  <= rptr + 1'b1;
                    reads <= reads + 1'b1;
                end
                if (wf_out_valid && wf_out_ready) begin
                    prev      <= wf_out_data;
                    have_prev <= 1'b1;
                end
                if (m_wr_axis_tvalid && m_wr_axis_tready) begin
                    beat <= beat + 1'b1;
                    if (m_wr_axis_tlast) begin
                        woff  <= woff + wlen;
                        wi    <= wi + 1'b1;
                        state <= ST_DESC;
                    end
                end
            end
            ST_WAITCPL: begin
                ret_i <= '0;
                if (cpls == issued) state <= ST_RET;
            end
            ST_RET: begin
                if (m_ret_ready) begin
                    ret_i <= ret_i + 1'b1;
                    if ((ret_i + 1'b1) >= n_chains) begin
                        cnt_frames <= cnt_frames + 1'b1;
                        state <= ST_ING;
                    end
                end
            end
            ST_DROPRET: begin
                if (ret_i >= n_chains) state <= ST_ING;
                else if (m_ret_ready) ret_i <= ret_i + 1'b1;
            end
            default: state <= ST_ING;
            endcase

            // per-frame reset when returning to ingest
            if ((state == ST_RET && m_ret_ready && (ret_i + 1'b1) >= n_chains) ||
                (state == ST_DROPRET && ret_i >= n_chains)) begin
                carry   <= '0;
                wptr    <= RA_W'(W0);
                flen    <= '0;
                too_big <= 1'b0;
            end
            if (state == ST_FLUSH) begin
                ret_i  <= '0;
                wi     <= '0;
                woff   <= '0;
                issued <= '0;
                cpls   <= '0;
            end
        end
    end

    logic unused;
    assign unused = ^{s_wr_cpl_tag, s_wr_cpl_status[1], cap[32], two[2*DATA_W-1:DATA_W]};

endmodule

`resetall
