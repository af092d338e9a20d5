// SPDX-License-Identifier: Apache-2.0
//
// fabnic_virtio_regs: VirtIO 1.2 modern (PCI) register layout of the virtio-net
// device in a 4 KB register window, on the register bus of fabnic_axil_slave
// (req_* one-cycle request, ack_* answer; byte strobes honoured, so 8/16-bit
// accesses of a guest driver work through AXI-Lite wstrb).
//
//   0x000 common config (struct virtio_pci_common_cfg, cfg_type 1)
//   0x100 notify: queue q at 0x100 + 4*q (queue_notify_off = q, multiplier 4)
//   0x200 ISR (read clears): bit0 queue interrupt, bit1 configuration change
//   0x300 device config (struct virtio_net_config): mac, status, max pairs, mtu
//   0x400 fabnic extension: drop/ignore counters, queue needs-reset bitmap
// Anything else answers ack_err (SLVERR).
//
// Queue registers are shadowed here (what the driver wrote); a small sequencer
// pushes them into fabnic_virtq_split over its cfg port when the driver writes
// queue_enable = 1 (desc, avail, used, size, features {indirect, event_idx}
// from the negotiated features, vector, enable), forwards queue_msix_vector
// writes of an enabled queue, and disables every queue on a device reset
// (device_status := 0; device_status reads the old value until that is done).
// A write that needs the sequencer while it is busy is acknowledged when it can
// be started (the cfg port of the engine only waits for the engine's current
// operation).
//
// Rules enforced (ignored writes are counted in cnt_ignored):
//   - queue_select >= NUM_Q: queue registers read 0 (queue_size 0 = not
//     available), writes ignored;
//   - queue_size: power of two, 1..QMAX, only while the queue is disabled;
//   - queue addresses only while the queue is disabled; queue_enable 0 ignored;
//   - driver_feature only before FEATURES_OK; FEATURES_OK is kept only if the
//     accepted features are a subset of the offered ones, include VERSION_1 and
//     MQ only with CTRL_VQ (else the bit reads back 0, as the spec describes);
//   - MSI-X vectors >= NUM_VEC read back as NO_VECTOR (0xFFFF);
//   - notify for a queue >= NUM_Q: ignored, counted in cnt_bad_notify; a
//     receiveq's notify is accepted but not forwarded (RX reads the avail ring
//     when a frame arrives, so the engine never walks a receiveq as transmitq).
// DEVICE_NEEDS_RESET (0x40) reads set once an engine queue entered needs-reset
// (q_needs_reset) after DRIVER_OK; a configuration-change interrupt (ISR bit1,
// cfg_irq_valid with config_msix_vector) is raised then, and when link_up changes
// (config_generation increments on every device-config change).
`default_nettype none

module fabnic_virtio_regs #(
    parameter int MAX_PAIRS = 2,                    // queue pairs (max_virtqueue_pairs)
    parameter bit CTRL_VQ   = 1'b1,                 // offer CTRL_VQ + MQ (queue 2*MAX_PAIRS)
    parameter int NUM_Q     = 2 * MAX_PAIRS + (CTRL_VQ ? 1 : 0),
    parameter int QID_W     = (NUM_Q > 1) ? $clog2(NUM_Q) : 1,
    parameter int QMAX      = 256,                  // largest queue size (power of two)
    parameter int MTU       = 1500,
    parameter int NUM_VEC   = NUM_Q + 1,            // MSI-X table entries
    parameter int CNT_W     = 32,
    parameter int ADDR_W    = 12
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // register bus (fabnic_axil_slave), addresses relative to the window
    input  wire logic                  req_valid,
    input  wire logic                  req_write,
    input  wire logic [ADDR_W-1:0]     req_addr,
    input  wire logic [31:0]           req_wdata,
    input  wire logic [3:0]            req_wstrb,
    output logic                       ack_valid,
    output logic [31:0]                ack_rdata,
    output logic                       ack_err,

    // device config inputs: mac byte i (i = 0 first on the wire) = dev_mac[8*i +: 8]
    input  wire logic [47:0]           dev_mac,
    input  wire logic                  link_up,

    // fabnic_virtq_split configuration port and doorbell
    output logic                       cfg_valid,
    input  wire logic                  cfg_ready,
    output logic                       cfg_write,
    output logic [QID_W-1:0]           cfg_queue,
    output logic [3:0]                 cfg_field,
    output logic [63:0]                cfg_wdata,
    output logic                       notify_valid,
    output logic [QID_W-1:0]           notify_queue,
    input  wire logic [NUM_Q-1:0]      q_needs_reset,
    input  wire logic                  irq_valid,       // engine queue interrupt (for ISR)

    // negotiated state for the data path
    output logic [63:0]                drv_features,
    output logic                       feat_mrg_rxbuf,
    output logic                       feat_guest_csum,
    output logic                       driver_ok,
    output logic [7:0]                 device_status,

    // configuration-change interrupt
    output logic                       cfg_irq_valid,
    output logic [15:0]                cfg_irq_vector,

    output logic [CNT_W-1:0]           cnt_bad_notify,
    output logic [CNT_W-1:0]           cnt_ignored
);

    if (NUM_Q < 2 || NUM_Q > 64 || (QMAX & (QMAX - 1)) != 0 || QMAX > 32768 || MAX_PAIRS < 1
        || MAX_PAIRS > 32767 || (!CTRL_VQ && MAX_PAIRS > 1)) begin : g_chk
        $error("fabnic_virtio_regs: bad NUM_Q (2..64: notify region)/QMAX/MAX_PAIRS (MAX_PAIRS > 1 needs CTRL_VQ)");
    end

    // feature bits (virtio 1.2 5.1.3 / 6)
    localparam int F_CSUM = 0, F_GUEST_CSUM = 1, F_MTU = 3, F_MAC = 5, F_MRG_RXBUF = 15,
                   F_STATUS = 16, F_CTRL_VQ = 17, F_MQ = 22, F_INDIRECT = 28,
                   F_EVENT_IDX = 29, F_VERSION_1 = 32;
    localparam logic [63:0] OFFER =
        (64'd1 << F_CSUM) | (64'd1 << F_GUEST_CSUM) | (64'd1 << F_MTU) | (64'd1 << F_MAC) |
        (64'd1 << F_MRG_RXBUF) | (64'd1 << F_STATUS) | (64'd1 << F_INDIRECT) |
        (64'd1 << F_EVENT_IDX) | (64'd1 << F_VERSION_1) |
        (CTRL_VQ ? ((64'd1 << F_CTRL_VQ) | (64'd1 << F_MQ)) : 64'd0);
    localparam logic [7:0] S_ACK = 8'h01, S_DRIVER = 8'h02, S_DRIVER_OK = 8'h04,
                           S_FEATURES_OK = 8'h08, S_NEEDS_RESET = 8'h40;
    localparam logic [15:0] NO_VECTOR = 16'hFFFF;

    // ---------------- state ----------------
    logic [31:0] dev_feat_sel, drv_feat_sel;
    logic [63:0] drv_feat;
    logic [15:0] cfg_vec, q_sel;
    logic [7:0]  status_q, cfg_gen;
    logic        needs_reset, isr_q, isr_c, link_q;

    logic [63:0] q_desc [NUM_Q];
    logic [63:0] q_drv  [NUM_Q];
    logic [63:0] q_dev  [NUM_Q];
    logic [15:0] q_size [NUM_Q];
    logic [15:0] q_vec  [NUM_Q];
    logic        q_en   [NUM_Q];

    logic             sel_ok;
    logic [QID_W-1:0] qs;
    assign sel_ok = {16'd0, q_sel} < 32'(NUM_Q);
    assign qs     = QID_W'(q_sel);

    // ---------------- sequencer ----------------
    typedef enum logic [1:0] {J_NONE, J_EN, J_VEC, J_RST} job_t;
    job_t             job;
    logic [QID_W-1:0] jq;
    logic [2:0]       jstep;

    always_comb begin
        cfg_valid = (job != J_NONE);
        cfg_write = 1'b1;
        cfg_queue = jq;
        cfg_field = 4'd4;
        cfg_wdata = '0;
        unique case (job)
            J_EN: begin
                unique case (jstep)
                    3'd0: begin cfg_field = 4'd0; cfg_wdata = q_desc[jq]; end
                    3'd1: begin cfg_field = 4'd1; cfg_wdata = q_drv[jq]; end
                    3'd2: begin cfg_field = 4'd2; cfg_wdata = q_dev[jq]; end
                    3'd3: begin cfg_field = 4'd3; cfg_wdata = {48'd0, q_size[jq]}; end
                    3'd4: begin cfg_field = 4'd5;
                                cfg_wdata = {62'd0, drv_feat[F_INDIRECT], drv_feat[F_EVENT_IDX]}; end
                    3'd5: begin cfg_field = 4'd6; cfg_wdata = {48'd0, q_vec[jq]}; end
                    default: begin cfg_field = 4'd4; cfg_wdata = 64'd1; end
                endcase
            end
            J_VEC: begin cfg_field = 4'd6; cfg_wdata = {48'd0, q_vec[jq]}; end
            default: begin cfg_field = 4'd4; cfg_wdata = '0; end   // J_RST: disable
        endcase
    end

    // ---------------- request handling ----------------
    logic              hold;          // a request waits for the sequencer
    logic              r_write;
    logic [ADDR_W-1:0] r_addr;
    logic [31:0]       r_wdata;
    logic [3:0]        r_wstrb;
    logic              cur_v, cur_write;
    logic [ADDR_W-1:0] cur_addr;
    logic [31:0]       cur_wdata, wmask;
    logic [3:0]        cur_wstrb;
    always_comb begin
        cur_v     = hold || req_valid;
        cur_write = hold ? r_write : req_write;
        cur_addr  = hold ? r_addr  : req_addr;
        cur_wdata = hold ? r_wdata : req_wdata;
        cur_wstrb = hold ? r_wstrb : req_wstrb;
        for (int i = 0; i < 4; i++) wmask[i*8 +: 8] = {8{cur_wstrb[i]}};
    end

    logic [ADDR_W-1:0] dw;            // dword address
    assign dw = {cur_addr[ADDR_W-1:2], 2'b00};
    logic is_common, is_notify, is_isr, is_devcfg, is_ext;
    assign is_common = (cur_addr >> 6) == '0;                       // 0x000..0x03F
    assign is_notify = (cur_addr >> 8) == ADDR_W'(1) && 32'(cur_addr[7:2]) < NUM_Q;
    assign is_isr    = dw == ADDR_W'('h200);
    assign is_devcfg = (cur_addr >> 4) == ADDR_W'('h30);            // 0x300..0x30F
    assign is_ext    = (cur_addr >> 4) == ADDR_W'('h40);            // 0x400..0x40F
    // the notify region is 0x100..0x1FF; a queue index beyond NUM_Q is ignored + counted
    logic in_notify_region;
    assign in_notify_region = (cur_addr >> 8) == ADDR_W'(1);

    // writes that need the sequencer
    logic w_status, w_qen, w_qvec, need_seq;
    assign w_status = cur_write && dw == ADDR_W'('h14) && cur_wstrb[0];
    assign w_qen    = cur_write && dw == ADDR_W'('h1C) && cur_wstrb[0] && sel_ok && !q_en[qs]
                      && cur_wdata[0];
    assign w_qvec   = cur_write && dw == ADDR_W'('h18) && (cur_wstrb[2] || cur_wstrb[3]) && sel_ok
                      && q_en[qs];
    assign need_seq = (w_status && cur_wdata[7:0] == 8'd0) || w_qen || w_qvec;
    logic go;       // the current request is executed this cycle
    assign go = cur_v && !(need_seq && job != J_NONE);

    // read data
    logic [31:0] rdata;
    logic [63:0] feat_sel_v;
    assign feat_sel_v = OFFER;
    always_comb begin
        rdata = '0;
        unique case (dw)
            ADDR_W'('h00): rdata = dev_feat_sel;
            ADDR_W'('h04): rdata = (dev_feat_sel == 0) ? feat_sel_v[31:0] :
                                   (dev_feat_sel == 1) ? feat_sel_v[63:32] : 32'd0;
            ADDR_W'('h08): rdata = drv_feat_sel;
            ADDR_W'('h0C): rdata = (drv_feat_sel == 0) ? drv_feat[31:0] :
                                   (drv_feat_sel == 1) ? drv_feat[63:32] : 32'd0;
            ADDR_W'('h10): rdata = {16'(NUM_Q), cfg_vec};
            ADDR_W'('h14): rdata = {q_sel, cfg_gen, status_q | (needs_reset ? S_NEEDS_RESET : 8'd0)};
            ADDR_W'('h18): rdata = sel_ok ? {q_vec[qs], q_size[qs]} : 32'd0;
            ADDR_W'('h1C): rdata = sel_ok ? {q_sel, 15'd0, q_en[qs]} : 32'd0;
            ADDR_W'('h20): rdata = sel_ok ? q_desc[qs][31:0] : 32'd0;
            ADDR_W'('h24): rdata = sel_ok ? q_desc[qs][63:32] : 32'd0;
            ADDR_W'('h28): rdata = sel_ok ? q_drv[qs][31:0] : 32'd0;
            ADDR_W'('h2C): rdata = sel_ok ? q_drv[qs][63:32] : 32'd0;
            ADDR_W'('h30): rdata = sel_ok ? q_dev[qs][31:0] : 32'd0;
            ADDR_W'('h34): rdata = sel_ok ? q_dev[qs][63:32] : 32'd0;
            ADDR_W'('h38): rdata = sel_ok ? {16'd0, q_sel} : 32'd0;   // notify_data; queue_reset 0
            ADDR_W'('h200): rdata = {30'd0, isr_c, isr_q};
            ADDR_W'('h300): rdata = dev_mac[31:0];
            ADDR_W'('h304): rdata = {15'd0, link_q, dev_mac[47:32]};
            ADDR_W'('h308): rdata = {16'(MTU), 16'(MAX_PAIRS)};
            ADDR_W'('h30C): rdata = '0;
            ADDR_W'('h400): rdata = cnt_bad_notify;
            ADDR_W'('h404): rdata = cnt_ignored;
            ADDR_W'('h408): rdata = 32'(q_needs_reset);
            ADDR_W'('h40C): rdata = OFFER[31:0];
            default: rdata = '0;
        endcase
    end

    function automatic logic pow2_ok(input logic [15:0] v);
        return v != 16'd0 && (v & (v - 16'd1)) == 16'd0 && 32'(v) <= QMAX;
    endfunction
    function automatic logic [15:0] vec_ok(input logic [15:0] v);
        return (32'(v) < NUM_VEC) ? v : NO_VECTOR;
    endfunction
    function automatic logic [63:0] put32(input logic [63:0] old, input logic hi,
                                          input logic [31:0] d, input logic [31:0] m);
        logic [63:0] r;
        r = old;
        if (hi) r[63:32] = (old[63:32] & ~m) | (d & m);
        else    r[31:0]  = (old[31:0] & ~m) | (d & m);
        return r;
    endfunction

    logic [7:0]  new_status;
    logic [63:0] drv_feat_new;
    logic        feat_ok;
    assign new_status = cur_wdata[7:0];
    assign feat_ok = ((drv_feat & ~OFFER) == 64'd0) && drv_feat[F_VERSION_1] &&
                     (!drv_feat[F_MQ] || drv_feat[F_CTRL_VQ]);
    assign drv_feat_new = drv_feat;

    logic nr_any;
    assign nr_any = |q_needs_reset;

    always_ff @(posedge clk) begin
        ack_valid     <= 1'b0;
        ack_err       <= 1'b0;
        notify_valid  <= 1'b0;
        cfg_irq_valid <= 1'b0;
        if (rst) begin
            dev_feat_sel <= '0; drv_feat_sel <= '0; drv_feat <= '0;
            cfg_vec <= NO_VECTOR; q_sel <= '0; status_q <= '0; cfg_gen <= '0;
            needs_reset <= 1'b0; isr_q <= 1'b0; isr_c <= 1'b0; link_q <= 1'b0;
            hold <= 1'b0; job <= J_NONE; jq <= '0; jstep <= '0;
            ack_rdata <= '0; notify_queue <= '0; cfg_irq_vector <= NO_VECTOR;
            cnt_bad_notify <= '0; cnt_ignored <= '0;
            r_write <= 1'b0; r_addr <= '0; r_wdata <= '0; r_wstrb <= '0;
            for (int k = 0; k < NUM_Q; k++) begin
                q_desc[k] <= '0; q_drv[k] <= '0; q_dev[k] <= '0;
                q_size[k] <= 16'(QMAX); q_vec[k] <= NO_VECTOR; q_en[k] <= 1'b0;
            end
        end else begin
            // ---------------- sequencer ----------------
            if (cfg_valid && cfg_ready) begin
                unique case (job)
                    J_EN: begin
                        jstep <= jstep + 3'd1;
                        if (jstep == 3'd6) job <= J_NONE;
                    end
                    J_VEC: job <= J_NONE;
                    J_RST: begin
                        jq <= jq + 1'b1;
                        if (32'(jq) == NUM_Q - 1) begin
                            job <= J_NONE;
                            // device reset complete: everything back to its reset value
                            dev_feat_sel <= '0; drv_feat_sel <= '0; drv_feat <= '0;
                            cfg_vec <= NO_VECTOR; q_sel <= '0; status_q <= '0;
                            needs_reset <= 1'b0; isr_q <= 1'b0; isr_c <= 1'b0;
                            for (int k = 0; k < NUM_Q; k++) begin
                                q_desc[k] <= '0; q_drv[k] <= '0; q_dev[k] <= '0;
                                q_size[k] <= 16'(QMAX); q_vec[k] <= NO_VECTOR; q_en[k] <= 1'b0;
                            end
                        end
                    end
                    default: ;
                endcase
            end

            // ---------------- events ----------------
            if (irq_valid) isr_q <= 1'b1;
            link_q <= link_up;
            if (link_q != link_up) begin
                cfg_gen <= cfg_gen + 8'd1;
                if (status_q[2]) begin
                    isr_c <= 1'b1;
                    cfg_irq_valid  <= 1'b1;
                    cfg_irq_vector <= cfg_vec;
                end
            end
            if (nr_any && !needs_reset && (status_q & S_DRIVER_OK) != 0 && job != J_RST) begin
                needs_reset    <= 1'b1;
                isr_c          <= 1'b1;
                cfg_irq_valid  <= 1'b1;
                cfg_irq_vector <= cfg_vec;
            end

            // ---------------- register access ----------------
            if (req_valid && !go) begin
                hold <= 1'b1;
                r_write <= req_write; r_addr <= req_addr; r_wdata <= req_wdata; r_wstrb <= req_wstrb;
            end
            if (go) begin
                hold      <= 1'b0;
                ack_valid <= 1'b1;
                ack_rdata <= rdata;
                ack_err   <= !(is_common || in_notify_region || is_isr || is_devcfg || is_ext);
                if (!cur_write && is_isr) begin
                    isr_q <= irq_valid;   // read clears (an interrupt in this cycle stays)
                    isr_c <= 1'b0;
                end
                if (cur_write && in_notify_region) begin
                    if (is_notify) begin
                        // receiveqs (even) need no doorbell: the RX path reads the
                        // avail ring when a frame arrives; only transmitqs and the
                        // controlq reach the engine
                        notify_valid <= cur_addr[2] || (CTRL_VQ && 32'(cur_addr[7:2]) == 2 * MAX_PAIRS);
                        notify_queue <= QID_W'(cur_addr[7:2]);
                    end else begin
                        cnt_bad_notify <= cnt_bad_notify + 1'b1;
                    end
                end
                if (cur_write && is_common) begin
                    unique case (dw)
                        ADDR_W'('h00): dev_feat_sel <= (dev_feat_sel & ~wmask) | (cur_wdata & wmask);
                        ADDR_W'('h08): drv_feat_sel <= (drv_feat_sel & ~wmask) | (cur_wdata & wmask);
                        ADDR_W'('h0C): begin
                            if ((status_q & S_FEATURES_OK) != 0 || drv_feat_sel > 1)
                                cnt_ignored <= cnt_ignored + 1'b1;
                            else
                                drv_feat <= put32(drv_feat, drv_feat_sel[0], cur_wdata, wmask);
                        end
                        ADDR_W'('h10): begin
                            if (cur_wstrb[1:0] != 2'b00)
                                cfg_vec <= vec_ok((cfg_vec & ~wmask[15:0]) | (cur_wdata[15:0] & wmask[15:0]));
                        end
                        ADDR_W'('h14): begin
                            if (cur_wstrb[3:2] != 2'b00)
                                q_sel <= (q_sel & ~wmask[31:16]) | (cur_wdata[31:16] & wmask[31:16]);
                            if (cur_wstrb[0]) begin
                                if (new_status == 8'd0) begin
                                    job <= J_RST;
                                    jq  <= '0;
                                end else begin
                                    // FEATURES_OK only with an acceptable feature set
                                    status_q <= ((new_status & S_FEATURES_OK) != 0 &&
                                                 (status_q & S_FEATURES_OK) == 0 && !feat_ok)
                                                ? (new_status & ~S_FEATURES_OK & ~S_NEEDS_RESET)
                                                : (new_status & ~S_NEEDS_RESET);
                                end
                            end
                        end
                        ADDR_W'('h18): begin
                            if (!sel_ok) begin
                                cnt_ignored <= cnt_ignored + 1'b1;
                            end else begin
                                if (cur_wstrb[1:0] != 2'b00) begin
                                    if (!q_en[qs] && pow2_ok(cur_wdata[15:0])) q_size[qs] <= cur_wdata[15:0];
                                    else cnt_ignored <= cnt_ignored + 1'b1;
                                end
                                if (cur_wstrb[3:2] != 2'b00) begin
                                    q_vec[qs] <= vec_ok(cur_wdata[31:16]);
                                    if (q_en[qs]) begin
                                        job <= J_VEC;
                                        jq  <= qs;
                                    end
                                end
                            end
                        end
                        ADDR_W'('h1C): begin
                            if (cur_wstrb[1:0] != 2'b00) begin
                                if (w_qen) begin
                                    q_en[qs] <= 1'b1;
                                    job   <= J_EN;
                                    jq    <= qs;
                                    jstep <= '0;
                                end else begin
                                    cnt_ignored <= cnt_ignored + 1'b1;
                                end
                            end
                        end
                        ADDR_W'('h20), ADDR_W'('h24), ADDR_W'('h28), ADDR_W'('h2C),
                        ADDR_W'('h30), ADDR_W'('h34): begin
                            if (!sel_ok || q_en[qs]) begin
                                cnt_ignored <= cnt_ignored + 1'b1;
                            end else begin
                                unique case (dw[4:3])
                                    2'b00:   q_desc[qs] <= put32(q_desc[qs], dw[2], cur_wdata, wmask);
                                    2'b01:   q_drv[qs]  <= put32(q_drv[qs], dw[2], cur_wdata, wmask);
                                    default: q_dev[qs]  <= put32(q_dev[qs], dw[2], cur_wdata, wmask);
                                endcase
                            end
                        end
                        default: ;   // read-only fields
                    endcase
                end
            end
        end
    end

    assign drv_features    = drv_feat;
    assign feat_mrg_rxbuf  = drv_feat[F_MRG_RXBUF] && (status_q & S_FEATURES_OK) != 0;
    assign feat_guest_csum = drv_feat[F_GUEST_CSUM] && (status_q & S_FEATURES_OK) != 0;
    assign driver_ok       = (status_q & S_DRIVER_OK) != 0;
    assign device_status   = status_q | (needs_reset ? S_NEEDS_RESET : 8'd0);

    logic unused;
    assign unused = ^{drv_feat_new, S_ACK, S_DRIVER};

endmodule

`resetall
