// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_rx: receive front of the transport engine.
//
//   frames (no FCS) -> station filter (fabnic_roce_rx_filter) -> ICRC check
//   -> frame FIFO (drops bad and oversize frames; frame length measured on the way in)
//   -> IP/UDP parser -> BTH decoder -> validation (fabnic_roce_rx_check)
//   -> dispatch: requests to the responder, responses to the completer, CNPs out.
//
// Every frame in is counted under exactly one outcome: accepted (cnt_roce), CNP
// (cnt_cnp), or one drop reason (cnt_drop_*), so cnt_frames equals their sum once the
// front is idle. The reasons, in the order the front checks them, and the rule behind
// each are listed in docs/roce.md ("Receive validation"):
//   station filter (first beat): dst_mac (cfg_rx_filter), not_roce (not IPv4 with
//     IHL 5 or IPv6, UDP, port 4791), dst_ip (not cfg_local_ip), ip_frag (IPv4 MF set
//     or fragment offset != 0);
//   frame FIFO: bad (tuser[0] from the MAC), icrc, oversize (longer than FIFO_DEPTH
//     beats);
//   validation: ip_hdr, ip_csum, udp_len, frame_len, hdr, pad, qpn, op_len, pmtu,
//     reth_len (fabnic_roce_rx_check).
// Nothing of a dropped frame reaches the transport: the frame FIFO is store-and-
// forward and a dropped record's payload is drained here.
// A single-beat frame is cut to its IP length on the way in (Ethernet padding; the
// ICRC is then the frame's last 4 bytes); a longer frame must end at its IP length.
// Each packet reaches the responder or completer as a header record plus payload
// length, then its payload frame (an empty payload is one tkeep=0 beat).
//
// cfg_rx_filter: bit 0 destination MAC filter on (unicast to cfg_local_mac only),
// bit 1 accept broadcast, bit 2 accept multicast (group bit set). With bit 0 clear
// every destination MAC is accepted.
// The input handshake is registered (the filter's skid slice); the filter adds 3 cycles.
`default_nettype none

module fabnic_roce_rx #(
    parameter int DATA_W     = 512,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int NUM_QP     = 1024,
    parameter int FIFO_DEPTH = 256,   // beats of the store-and-forward frame FIFO
    parameter int PAY_DEPTH  = 32,    // beats of the payload FIFO before the dispatch
    parameter int CNT_W      = 32
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    input  wire logic [127:0]                cfg_local_ip,
    input  wire logic [47:0]                 cfg_local_mac,
    input  wire logic [2:0]                  cfg_rx_filter,

    // selective repeat: per-QP sr bit (static context writes), selects the SR layouts
    input  wire logic                        st_sr_we,
    input  wire logic [23:0]                 st_sr_qpn,
    input  wire logic                        st_sr_val,
    input  wire logic [2:0]                  st_pmtu_val,   // path MTU code, same write

    input  wire logic [DATA_W-1:0]           s_axis_tdata,
    input  wire logic [KEEP_W-1:0]           s_axis_tkeep,
    input  wire logic                        s_axis_tvalid,
    output logic                             s_axis_tready,
    input  wire logic                        s_axis_tlast,
    input  wire logic                        s_axis_tuser,

    output fabnic_roce_pkg::roce_hdr_t       m_req_hdr,
    output logic      [15:0]                 m_req_plen,
    output logic                             m_req_valid,
    input  wire logic                        m_req_ready,
    output logic      [DATA_W-1:0]           m_req_tdata,
    output logic      [KEEP_W-1:0]           m_req_tkeep,
    output logic                             m_req_tvalid,
    input  wire logic                        m_req_tready,
    output logic                             m_req_tlast,
    output logic                             m_req_tuser,

    output fabnic_roce_pkg::roce_hdr_t       m_rsp_hdr,
    output logic      [15:0]                 m_rsp_plen,
    output logic                             m_rsp_valid,
    input  wire logic                        m_rsp_ready,
    output logic      [DATA_W-1:0]           m_rsp_tdata,
    output logic      [KEEP_W-1:0]           m_rsp_tkeep,
    output logic                             m_rsp_tvalid,
    input  wire logic                        m_rsp_tready,
    output logic                             m_rsp_tlast,
    output logic                             m_rsp_tuser,

    // CNP seen (one cycle): destination QP and ECN of the packet
    output logic                             m_cnp_valid,
    output logic      [23:0]                 m_cnp_qpn,
    // ECN-CE seen on a request (for the notification point)
    output logic                             m_ce_valid,
    output logic      [23:0]                 m_ce_qpn,

    output logic      [CNT_W-1:0]            cnt_frames,
    output logic      [CNT_W-1:0]            cnt_roce,
    output logic      [CNT_W-1:0]            cnt_cnp,
    output logic      [CNT_W-1:0]            cnt_drop_bad,
    output logic      [CNT_W-1:0]            cnt_drop_dst_mac,
    output logic      [CNT_W-1:0]            cnt_drop_not_roce,
    output logic      [CNT_W-1:0]            cnt_drop_dst_ip,
    output logic      [CNT_W-1:0]            cnt_drop_ip_frag,
    output logic      [CNT_W-1:0]            cnt_drop_icrc,
    output logic      [CNT_W-1:0]            cnt_drop_oversize,
    output logic      [CNT_W-1:0]            cnt_drop_ip_hdr,
    output logic      [CNT_W-1:0]            cnt_drop_ip_csum,
    output logic      [CNT_W-1:0]            cnt_drop_udp_len,
    output logic      [CNT_W-1:0]            cnt_drop_frame_len,
    output logic      [CNT_W-1:0]            cnt_drop_hdr,
    output logic      [CNT_W-1:0]            cnt_drop_pad,
    output logic      [CNT_W-1:0]            cnt_drop_qpn,
    output logic      [CNT_W-1:0]            cnt_drop_op_len,
    output logic      [CNT_W-1:0]            cnt_drop_pmtu,
    output logic      [CNT_W-1:0]            cnt_drop_reth_len
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  if (KEEP_W < 64) begin : g_chk_width
    $error("fabnic_roce_rx: DATA_W must be >= 512 (headers classified on the first beat)");
  end

  localparam int QPN_W = (NUM_QP > 1) ? $clog2(NUM_QP) : 1;
  localparam int LQ_W  = $clog2(FIFO_DEPTH);

  // ---------------------------------------------------------------- station filter
  logic [DATA_W-1:0] c_tdata;
  logic [KEEP_W-1:0] c_tkeep;
  logic              c_tvalid, c_tready, c_tlast, c_tuser;
  fabnic_roce_rx_filter #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .CNT_W(CNT_W)) u_filter (
      .clk, .rst, .cfg_local_ip, .cfg_local_mac, .cfg_rx_filter,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_axis_tdata(c_tdata), .m_axis_tkeep(c_tkeep), .m_axis_tvalid(c_tvalid),
      .m_axis_tready(c_tready), .m_axis_tlast(c_tlast), .m_axis_tuser(c_tuser),
      .cnt_frames, .cnt_drop_dst_mac, .cnt_drop_not_roce, .cnt_drop_dst_ip,
      .cnt_drop_ip_frag
  );

  // ---------------------------------------------------------------- ICRC + frame FIFO
  logic [DATA_W-1:0] i_tdata;
  logic [KEEP_W-1:0] i_tkeep;
  logic              i_tvalid, i_tready, i_tlast, i_tuser, fifo_in_ready;
  logic [CNT_W-1:0]  unused_icrc_frames, unused_icrc_bad;
  fabnic_roce_icrc_check #(.DATA_W(DATA_W), .STRIP_ICRC(1'b0), .CNT_W(CNT_W)) u_icrc (
      .clk, .rst,
      .s_axis_tdata(c_tdata), .s_axis_tkeep(c_tkeep), .s_axis_tvalid(c_tvalid),
      .s_axis_tready(c_tready), .s_axis_tlast(c_tlast), .s_axis_tuser(c_tuser),
      .m_axis_tdata(i_tdata), .m_axis_tkeep(i_tkeep), .m_axis_tvalid(i_tvalid),
      .m_axis_tready(i_tready), .m_axis_tlast(i_tlast), .m_axis_tuser(i_tuser),
      .cnt_frames(unused_icrc_frames), .cnt_icrc_bad(unused_icrc_bad)
  );

  // which frames the MAC marked bad (the ICRC check ORs its own verdict into tuser)
  logic       mf_valid, mf_out, unused_mf_ready;
  logic [2:0] unused_mf_count;
  fabnic_fifo #(.WIDTH(1), .DEPTH(4)) u_macflag (
      .clk, .rst,
      .in_valid(c_tvalid && c_tready && c_tlast), .in_ready(unused_mf_ready),
      .in_data(c_tuser),
      .out_valid(mf_valid), .out_ready(i_tvalid && i_tready && i_tlast), .out_data(mf_out),
      .status_count(unused_mf_count)
  );

  // frame length in bytes, measured on the way into the FIFO (beats before the last
  // count KEEP_W; the last beat's tkeep is contiguous from lane 0)
  logic [16:0] flen_acc_q, flen_last_q, flen_now;
  logic [$clog2(KEEP_W+1)-1:0] last_bytes;
  logic        mac_bad_last_q;
  always_comb begin
    last_bytes = '0;
    for (int i = 0; i < KEEP_W; i++) if (i_tkeep[i]) last_bytes = $bits(last_bytes)'(i + 1);
    flen_now = flen_acc_q + 17'(last_bytes);
  end

  logic lq_room_q;
  logic f_good, f_bad, f_ovf, f_oversize;
  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic              f_tvalid, f_tready, f_tlast;
  logic [0:0]        f_tuser;
  logic [$clog2(FIFO_DEPTH):0] unused_depth;
  assign i_tready = fifo_in_ready && lq_room_q;
  fabnic_axis_fifo #(.DATA_W(DATA_W), .DEPTH(FIFO_DEPTH), .FRAME_FIFO(1'b1),
                     .DROP_BAD_FRAME(1'b1)) u_fifo (
      .clk, .rst,
      .s_axis_tdata(i_tdata), .s_axis_tkeep(i_tkeep), .s_axis_tvalid(i_tvalid && lq_room_q),
      .s_axis_tready(fifo_in_ready), .s_axis_tlast(i_tlast), .s_axis_tuser(i_tuser),
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
      .status_depth(unused_depth), .status_good_frame(f_good),
      .status_bad_frame(f_bad), .status_overflow(f_ovf),
      .status_oversize(f_oversize)
  );

  always_ff @(posedge clk) begin
    if (i_tvalid && i_tready) begin
      if (i_tlast) begin
        flen_acc_q     <= '0;
        flen_last_q    <= flen_now;
        mac_bad_last_q <= mf_valid && mf_out;
      end else begin
        flen_acc_q <= flen_acc_q + 17'(KEEP_W);
      end
    end
    // a FIFO status pulse follows the last beat's write by one cycle
    if (f_bad &&  mac_bad_last_q) cnt_drop_bad  <= cnt_drop_bad + 1'b1;
    if (f_bad && !mac_bad_last_q) cnt_drop_icrc <= cnt_drop_icrc + 1'b1;
    if (f_oversize)               cnt_drop_oversize <= cnt_drop_oversize + 1'b1;
    if (rst) begin
      flen_acc_q        <= '0;
      mac_bad_last_q    <= 1'b0;
      cnt_drop_bad      <= '0;
      cnt_drop_icrc     <= '0;
      cnt_drop_oversize <= '0;
    end
  end

  // frame lengths of the committed frames, in order
  logic        lq_valid, lq_pop, unused_lq_ready;
  logic [16:0] lq_data;
  logic [LQ_W:0] lq_count;
  fabnic_fifo #(.WIDTH(17), .DEPTH(FIFO_DEPTH)) u_len (
      .clk, .rst,
      .in_valid(f_good), .in_ready(unused_lq_ready), .in_data(flen_last_q),
      .out_valid(lq_valid), .out_ready(lq_pop), .out_data(lq_data),
      .status_count(lq_count)
  );
  // stop the FIFO input while the length queue could not take every frame in flight
  always_ff @(posedge clk) begin
    lq_room_q <= 32'(lq_count) < FIFO_DEPTH - 4;
    if (rst) lq_room_q <= 1'b0;
  end

  // ---------------------------------------------------------------- IP/UDP parser
  pkt_meta_t         pm;
  logic              pm_valid, pm_ready;
  logic [DATA_W-1:0] p_tdata;
  logic [KEEP_W-1:0] p_tkeep;
  logic              p_tvalid, p_tready, p_tlast, p_tuser;
  logic [CNT_W-1:0]  pc [13];
  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b1), .DROP_ERRORS(1'b0), .CNT_W(CNT_W)) u_parse (
      .clk, .rst,
      .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(f_tvalid),
      .s_axis_tready(f_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser[0]),
      .m_meta_data(pm), .m_meta_valid(pm_valid), .m_meta_ready(pm_ready),
      .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
      .m_axis_tready(p_tready), .m_axis_tlast(p_tlast), .m_axis_tuser(p_tuser),
      .cnt_frames_in(pc[0]), .cnt_bytes_in(pc[1]), .cnt_bad_in(pc[2]), .cnt_frames_out(pc[3]),
      .cnt_dropped(pc[4]), .cnt_non_ip(pc[5]), .cnt_ip_frag(pc[6]), .cnt_err_runt(pc[7]),
      .cnt_err_ip_version(pc[8]), .cnt_err_ipv4_ihl(pc[9]), .cnt_err_ipv4_csum(pc[10]),
      .cnt_err_ip_length(pc[11]), .cnt_err_udp_length(pc[12])
  );

  // side information per frame, in order: the parser's errors, lengths and ECN
  typedef struct packed {
    pkt_err_t    err;
    logic [7:0]  pay_off;
    logic [15:0] pay_len;
    logic [1:0]  ecn;
  } side_t;
  side_t       sd_in, sd;
  logic        sd_valid, sd_pop;
  logic [3:0]  unused_sd_count;
  assign sd_in = '{err: pm.err, pay_off: pm.payload_offset, pay_len: pm.payload_len,
                   ecn: pm.ecn};
  fabnic_fifo #(.WIDTH($bits(side_t)), .DEPTH(8)) u_side (
      .clk, .rst, .in_valid(pm_valid), .in_ready(pm_ready), .in_data(sd_in),
      .out_valid(sd_valid), .out_ready(sd_pop), .out_data(sd),
      .status_count(unused_sd_count)
  );

  // ---------------------------------------------------------------- BTH decode
  roce_hdr_t         h;
  logic              h_valid, h_ready;
  // per-QP selective-repeat bit; the decoder's lookup is registered (its answer comes
  // the cycle after the QPN, fabnic_roce_rx_hdr)
  logic              sr_bits [NUM_QP];
  logic [23:0]       lk_qpn;
  logic              lk_sr;
  always_ff @(posedge clk) begin
    if (st_sr_we && 32'(st_sr_qpn) < NUM_QP) sr_bits[QPN_W'(st_sr_qpn)] <= st_sr_val;
    lk_sr <= 32'(lk_qpn) < NUM_QP && sr_bits[QPN_W'(lk_qpn)];
  end
  logic [DATA_W-1:0] e_tdata, d_tdata;
  logic [KEEP_W-1:0] e_tkeep, d_tkeep;
  logic              e_tvalid, e_tready, e_tlast, e_tuser;
  logic              d_tvalid, d_tready, d_tlast;
  logic [0:0]        d_tuser_v;
  logic              d_tuser;
  logic [15:0]       unused_d_plen;
  logic [CNT_W-1:0]  hc [5];
  fabnic_roce_rx_hdr #(.DATA_W(DATA_W), .TRAILER_BYTES(4), .CNT_W(CNT_W), .SR(1'b1)) u_bth (
      .clk, .rst,
      .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
      .s_axis_tready(p_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
      .m_hdr_data(h), .m_hdr_valid(h_valid), .m_hdr_ready(h_ready),
      .m_axis_tdata(e_tdata), .m_axis_tkeep(e_tkeep), .m_axis_tvalid(e_tvalid),
      .m_axis_tready(e_tready), .m_axis_tlast(e_tlast), .m_axis_tuser(e_tuser),
      .m_axis_plen(unused_d_plen),
      .m_lk_qpn(lk_qpn), .s_lk_sr(lk_sr),
      .cnt_pkts(hc[0]), .cnt_err_short(hc[1]), .cnt_err_tver(hc[2]), .cnt_err_opcode(hc[3]),
      .cnt_err_pad(hc[4])
  );

  // Payload FIFO: the decoder hands a packet's payload over without waiting for the
  // dispatch, so it decodes the next packet's header while the validation stage works
  // on this one (without it, each packet waited for the validation latency).
  logic [$clog2(PAY_DEPTH):0] unused_pq_depth;
  logic unused_pq_good, unused_pq_bad, unused_pq_ovf, unused_pq_big;
  fabnic_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .DEPTH(PAY_DEPTH)) u_payq (
      .clk, .rst,
      .s_axis_tdata(e_tdata), .s_axis_tkeep(e_tkeep), .s_axis_tvalid(e_tvalid),
      .s_axis_tready(e_tready), .s_axis_tlast(e_tlast), .s_axis_tuser(e_tuser),
      .m_axis_tdata(d_tdata), .m_axis_tkeep(d_tkeep), .m_axis_tvalid(d_tvalid),
      .m_axis_tready(d_tready), .m_axis_tlast(d_tlast), .m_axis_tuser(d_tuser_v),
      .status_depth(unused_pq_depth), .status_good_frame(unused_pq_good),
      .status_bad_frame(unused_pq_bad), .status_overflow(unused_pq_ovf),
      .status_oversize(unused_pq_big)
  );
  assign d_tuser = d_tuser_v[0];

  // ---------------------------------------------------------------- validation
  logic       ck_valid, ck_ready;
  assign ck_valid = h_valid && sd_valid && lq_valid;
  assign h_ready  = ck_valid && ck_ready;
  assign sd_pop   = ck_valid && ck_ready;
  assign lq_pop   = ck_valid && ck_ready;

  roce_hdr_t  vh;
  logic [15:0] vplen;
  rx_route_e  vroute;
  logic [1:0] vecn;
  logic       v_valid, v_ready;
  logic [CNT_W-1:0] ck_req, ck_rsp, ck_drop [RXC_NUM];
  fabnic_roce_rx_check #(.NUM_QP(NUM_QP), .CNT_W(CNT_W)) u_check (
      .clk, .rst,
      .st_we(st_sr_we), .st_qpn(st_sr_qpn), .st_pmtu(st_pmtu_val),
      .s_hdr(h), .s_ip_err(sd.err), .s_pay_off(sd.pay_off), .s_pay_len(sd.pay_len),
      .s_ecn(sd.ecn), .s_frame_len(lq_data), .s_valid(ck_valid), .s_ready(ck_ready),
      .m_hdr(vh), .m_plen(vplen), .m_route(vroute), .m_ecn(vecn),
      .m_valid(v_valid), .m_ready(v_ready),
      .cnt_req(ck_req), .cnt_rsp(ck_rsp), .cnt_cnp(cnt_cnp), .cnt_drop(ck_drop)
  );
  assign cnt_drop_ip_hdr    = ck_drop[RXC_IP_HDR];
  assign cnt_drop_ip_csum   = ck_drop[RXC_IP_CSUM];
  assign cnt_drop_udp_len   = ck_drop[RXC_UDP_LEN];
  assign cnt_drop_frame_len = ck_drop[RXC_FRAME_LEN];
  assign cnt_drop_hdr       = ck_drop[RXC_HDR];
  assign cnt_drop_pad       = ck_drop[RXC_PAD];
  assign cnt_drop_qpn       = ck_drop[RXC_QPN];
  assign cnt_drop_op_len    = ck_drop[RXC_OP_LEN];
  assign cnt_drop_pmtu      = ck_drop[RXC_PMTU];
  assign cnt_drop_reth_len  = ck_drop[RXC_RETH_LEN];
  always_ff @(posedge clk) begin
    cnt_roce <= ck_req + ck_rsp;
    if (rst) cnt_roce <= '0;
  end

  // ---------------------------------------------------------------- dispatch
  // A record is taken when its side is ready; its payload frame then follows to the
  // same side (drained for drops and CNPs) before the next record is presented.
  rx_route_e route_q;
  logic      busy_q;          // a payload frame is being routed

  assign m_req_hdr   = vh;
  assign m_rsp_hdr   = vh;
  assign m_req_plen  = vplen;
  assign m_rsp_plen  = vplen;
  assign m_req_valid = !busy_q && v_valid && vroute == RX_ROUTE_REQ;
  assign m_rsp_valid = !busy_q && v_valid && vroute == RX_ROUTE_RSP;
  assign v_ready     = !busy_q && (vroute == RX_ROUTE_REQ ? m_req_ready
                                 : vroute == RX_ROUTE_RSP ? m_rsp_ready : 1'b1);

  assign m_req_tdata  = d_tdata;
  assign m_req_tkeep  = d_tkeep;
  assign m_req_tlast  = d_tlast;
  assign m_req_tuser  = d_tuser;
  assign m_rsp_tdata  = d_tdata;
  assign m_rsp_tkeep  = d_tkeep;
  assign m_rsp_tlast  = d_tlast;
  assign m_rsp_tuser  = d_tuser;
  assign m_req_tvalid = busy_q && route_q == RX_ROUTE_REQ && d_tvalid;
  assign m_rsp_tvalid = busy_q && route_q == RX_ROUTE_RSP && d_tvalid;
  always_comb begin
    unique case (route_q)
      RX_ROUTE_REQ: d_tready = busy_q && m_req_tready;
      RX_ROUTE_RSP: d_tready = busy_q && m_rsp_tready;
      default:      d_tready = busy_q;
    endcase
  end

  always_ff @(posedge clk) begin
    m_cnp_valid <= 1'b0;
    m_ce_valid  <= 1'b0;
    if (v_valid && v_ready) begin
      busy_q      <= 1'b1;
      route_q     <= vroute;
      m_cnp_valid <= vroute == RX_ROUTE_CNP;
      m_cnp_qpn   <= vh.bth.dest_qp;
      m_ce_valid  <= vroute == RX_ROUTE_REQ && vecn == 2'b11;
      m_ce_qpn    <= vh.bth.dest_qp;
    end
    if (busy_q && d_tvalid && d_tready && d_tlast) busy_q <= 1'b0;
    if (rst) begin
      busy_q      <= 1'b0;
      route_q     <= RX_ROUTE_DROP;
      m_cnp_valid <= 1'b0;
      m_ce_valid  <= 1'b0;
    end
  end

  logic unused;
  assign unused = ^{unused_icrc_frames, unused_icrc_bad, unused_mf_ready, unused_mf_count,
                    unused_depth, f_ovf, unused_d_plen, unused_sd_count, unused_lq_ready,
                    pc[0], pc[1], pc[2], pc[3], pc[4], pc[5], pc[6], pc[7], pc[8], pc[9],
                    pc[10], pc[11], pc[12], hc[0], hc[1], hc[2], hc[3], hc[4],
                    pm.dst_mac, pm.src_mac, pm.src_ip, pm.dst_ip, pm.vlan_valid, pm.vlan_pcp,
                    pm.vlan_vid, pm.ethertype, pm.is_ipv4, pm.is_ipv6, pm.dscp, pm.ttl,
                    pm.ip_proto, pm.flow_label, pm.ip_frag, pm.is_udp, pm.src_port,
                    pm.dst_port, pm.udp_checksum, pm.l3_offset, pm.l4_offset,
                    ck_drop[RXC_OK], unused_pq_depth, unused_pq_good, unused_pq_bad,
                    unused_pq_ovf, unused_pq_big};

endmodule

`resetall
