// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_rx: receive front of the transport engine.
//
//   frames (no FCS) -> classify/trim -> ICRC check -> frame FIFO (drops bad frames)
//   -> IP/UDP parser (drops header errors) -> BTH decoder (pad + ICRC removed)
//   -> dispatch: requests to the responder, responses to the completer, CNPs counted.
//
// Classify (first beat; DATA_W >= 512 so every header is in it): frames that are not
// UDP 4791 to this NIC's IP address (IPv4, or IPv6 when the destination matches
// cfg_local_ip) are dropped and counted; a single-beat frame is cut to its IP length
// (Ethernet padding removed, so the ICRC is the frame's last 4 bytes). The frame
// FIFO is store-and-forward: a frame whose ICRC is wrong, or that the MAC marked bad,
// never reaches the transport, so nothing it carries touches host memory.
// Each packet reaches the responder or completer as a header record plus payload
// length, then its payload frame (an empty payload is one tkeep=0 beat).
`default_nettype none

module fabnic_roce_rx #(
    parameter int DATA_W     = 512,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int NUM_QP     = 1024,
    parameter int FIFO_DEPTH = 256,   // beats of the store-and-forward frame FIFO
    parameter int CNT_W      = 32
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    input  wire logic [127:0]                cfg_local_ip,

    // selective repeat: per-QP sr bit (static context writes), selects the SR layouts
    input  wire logic                        st_sr_we,
    input  wire logic [23:0]                 st_sr_qpn,
    input  wire logic                        st_sr_val,

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
    output logic      [127:0]                m_ce_src_ip,

    output logic      [CNT_W-1:0]            cnt_frames,
    output logic      [CNT_W-1:0]            cnt_roce,
    output logic      [CNT_W-1:0]            cnt_drop_bad,
    output logic      [CNT_W-1:0]            cnt_drop_not_roce,
    output logic      [CNT_W-1:0]            cnt_drop_icrc,
    output logic      [CNT_W-1:0]            cnt_drop_hdr,
    output logic      [CNT_W-1:0]            cnt_drop_qpn,
    output logic      [CNT_W-1:0]            cnt_cnp
);
  import fabnic_pkt_pkg::*;
  import fabnic_roce_pkg::*;

  if (KEEP_W < 64) begin : g_chk_width
    $error("fabnic_roce_rx: DATA_W must be >= 512 (headers classified on the first beat)");
  end

  function automatic logic [15:0] be16(input logic [DATA_W-1:0] d, input int off);
    return {d[8*off +: 8], d[8*(off+1) +: 8]};
  endfunction

  // ---------------------------------------------------------------- classify and trim
  logic        first_q, keep_q;
  logic        vlan, v4, v6, udp, roce, to_me;
  int unsigned l3;
  logic [15:0] et, iplen;
  logic [31:0] dip4;
  logic [127:0] dip6;
  logic [15:0] frame_len;
  logic [KEEP_W-1:0] keep_trim;
  always_comb begin
    vlan = be16(s_axis_tdata, 12) == 16'h8100;
    l3   = vlan ? 18 : 14;
    et   = vlan ? be16(s_axis_tdata, 16) : be16(s_axis_tdata, 12);
    v4   = et == 16'h0800 && s_axis_tdata[8*l3 + 4 +: 4] == 4'd4;
    v6   = et == 16'h86DD && s_axis_tdata[8*l3 + 4 +: 4] == 4'd6;
    dip4 = '0;
    dip6 = '0;
    for (int i = 0; i < 4; i++) dip4[8*(3-i) +: 8] = s_axis_tdata[8*(l3+16+i) +: 8];
    for (int i = 0; i < 16; i++) dip6[8*(15-i) +: 8] = s_axis_tdata[8*(l3+24+i) +: 8];
    if (v4) begin
      udp   = s_axis_tdata[8*(l3+9) +: 8] == 8'd17 && s_axis_tdata[8*l3 +: 4] == 4'd5;
      roce  = be16(s_axis_tdata, l3 + 22) == 16'd4791;
      to_me = dip4 == cfg_local_ip[31:0];
      iplen = be16(s_axis_tdata, l3 + 2);
    end else begin
      udp   = s_axis_tdata[8*(l3+6) +: 8] == 8'd17;
      roce  = be16(s_axis_tdata, l3 + 42) == 16'd4791;
      to_me = dip6 == cfg_local_ip;
      iplen = be16(s_axis_tdata, l3 + 4) + 16'd40;
    end
    frame_len = 16'(l3) + iplen;
    keep_trim = s_axis_tkeep;
    if (s_axis_tlast && first_q && (v4 || v6))   // a single-beat frame: cut at the IP length
      for (int i = 0; i < KEEP_W; i++) if (i >= int'(frame_len)) keep_trim[i] = 1'b0;
  end
  logic accept_first;
  assign accept_first = (v4 || v6) && udp && roce && to_me;

  logic [DATA_W-1:0] c_tdata;
  logic [KEEP_W-1:0] c_tkeep;
  logic              c_tvalid, c_tready, c_tlast, c_tuser, pass;
  assign pass          = first_q ? accept_first : keep_q;
  assign c_tdata       = s_axis_tdata;
  assign c_tkeep       = keep_trim;
  assign c_tvalid      = s_axis_tvalid && pass;
  assign c_tlast       = s_axis_tlast;
  assign c_tuser       = s_axis_tuser;
  assign s_axis_tready = pass ? c_tready : 1'b1;

  always_ff @(posedge clk) begin
    if (s_axis_tvalid && s_axis_tready) begin
      first_q <= s_axis_tlast;
      if (first_q) keep_q <= accept_first;
      if (first_q) cnt_frames <= cnt_frames + 1'b1;
      if (first_q && !accept_first) cnt_drop_not_roce <= cnt_drop_not_roce + 1'b1;
      if (s_axis_tlast && s_axis_tuser && pass) cnt_drop_bad <= cnt_drop_bad + 1'b1;
    end
    if (rst) begin
      first_q <= 1'b1;
      keep_q  <= 1'b0;
      cnt_frames        <= '0;
      cnt_drop_not_roce <= '0;
      cnt_drop_bad      <= '0;
    end
  end

  // ---------------------------------------------------------------- ICRC + frame FIFO
  logic [DATA_W-1:0] i_tdata;
  logic [KEEP_W-1:0] i_tkeep;
  logic              i_tvalid, i_tready, i_tlast, i_tuser;
  logic [CNT_W-1:0]  unused_icrc_frames, icrc_bad;
  fabnic_roce_icrc_check #(.DATA_W(DATA_W), .STRIP_ICRC(1'b0), .CNT_W(CNT_W)) u_icrc (
      .clk, .rst,
      .s_axis_tdata(c_tdata), .s_axis_tkeep(c_tkeep), .s_axis_tvalid(c_tvalid),
      .s_axis_tready(c_tready), .s_axis_tlast(c_tlast), .s_axis_tuser(c_tuser),
      .m_axis_tdata(i_tdata), .m_axis_tkeep(i_tkeep), .m_axis_tvalid(i_tvalid),
      .m_axis_tready(i_tready), .m_axis_tlast(i_tlast), .m_axis_tuser(i_tuser),
      .cnt_frames(unused_icrc_frames), .cnt_icrc_bad(icrc_bad)
  );
  assign cnt_drop_icrc = icrc_bad;

  logic [DATA_W-1:0] f_tdata;
  logic [KEEP_W-1:0] f_tkeep;
  logic              f_tvalid, f_tready, f_tlast;
  logic [0:0]        f_tuser;
  logic [$clog2(FIFO_DEPTH):0] unused_depth;
  logic              unused_good, unused_bad, unused_ovf, f_oversize;
  fabnic_axis_fifo #(.DATA_W(DATA_W), .DEPTH(FIFO_DEPTH), .FRAME_FIFO(1'b1),
                     .DROP_BAD_FRAME(1'b1)) u_fifo (
      .clk, .rst,
      .s_axis_tdata(i_tdata), .s_axis_tkeep(i_tkeep), .s_axis_tvalid(i_tvalid),
      .s_axis_tready(i_tready), .s_axis_tlast(i_tlast), .s_axis_tuser(i_tuser),
      .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
      .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
      .status_depth(unused_depth), .status_good_frame(unused_good),
      .status_bad_frame(unused_bad), .status_overflow(unused_ovf),
      .status_oversize(f_oversize)
  );

  // ---------------------------------------------------------------- IP/UDP parser
  pkt_meta_t         pm;
  logic              pm_valid, pm_ready;
  logic [DATA_W-1:0] p_tdata;
  logic [KEEP_W-1:0] p_tkeep;
  logic              p_tvalid, p_tready, p_tlast, p_tuser;
  logic [CNT_W-1:0]  pc [13];
  fabnic_pkt_parser #(.DATA_W(DATA_W), .STRIP(1'b1), .DROP_ERRORS(1'b1), .CNT_W(CNT_W)) u_parse (
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

  // side info per packet, in order: UDP payload length and ECN
  logic        sd_valid, sd_pop;
  logic [17:0] sd_data;
  logic [3:0]  unused_sd_count;
  logic [127:0] src_ip_q;
  fabnic_fifo #(.WIDTH(18), .DEPTH(8)) u_side (
      .clk, .rst, .in_valid(pm_valid), .in_ready(pm_ready), .in_data({pm.payload_len, pm.ecn}),
      .out_valid(sd_valid), .out_ready(sd_pop), .out_data(sd_data), .status_count(unused_sd_count)
  );
  always_ff @(posedge clk) if (pm_valid && pm_ready) src_ip_q <= pm.src_ip;

  // ---------------------------------------------------------------- BTH decode
  roce_hdr_t         h;
  logic              h_valid, h_ready;
  // per-QP selective-repeat bit, read combinationally by the decoder (LUT RAM)
  localparam int QPN_W = (NUM_QP > 1) ? $clog2(NUM_QP) : 1;
  logic              sr_bits [NUM_QP];
  logic [23:0]       lk_qpn;
  logic              lk_sr;
  always_ff @(posedge clk) begin
    if (st_sr_we && 32'(st_sr_qpn) < NUM_QP) sr_bits[QPN_W'(st_sr_qpn)] <= st_sr_val;
  end
  assign lk_sr = 32'(lk_qpn) < NUM_QP && sr_bits[QPN_W'(lk_qpn)];
  logic [DATA_W-1:0] d_tdata;
  logic [KEEP_W-1:0] d_tkeep;
  logic              d_tvalid, d_tready, d_tlast, d_tuser;
  logic [15:0]       unused_d_plen;
  logic [CNT_W-1:0]  hc [5];
  fabnic_roce_rx_hdr #(.DATA_W(DATA_W), .TRAILER_BYTES(4), .CNT_W(CNT_W), .SR(1'b1)) u_bth (
      .clk, .rst,
      .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
      .s_axis_tready(p_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
      .m_hdr_data(h), .m_hdr_valid(h_valid), .m_hdr_ready(h_ready),
      .m_axis_tdata(d_tdata), .m_axis_tkeep(d_tkeep), .m_axis_tvalid(d_tvalid),
      .m_axis_tready(d_tready), .m_axis_tlast(d_tlast), .m_axis_tuser(d_tuser),
      .m_axis_plen(unused_d_plen),
      .m_lk_qpn(lk_qpn), .s_lk_sr(lk_sr),
      .cnt_pkts(hc[0]), .cnt_err_short(hc[1]), .cnt_err_tver(hc[2]), .cnt_err_opcode(hc[3]),
      .cnt_err_pad(hc[4])
  );

  // ---------------------------------------------------------------- dispatch
  typedef enum logic [1:0] { R_NONE, R_REQ, R_RSP, R_DROP } route_e;
  route_e route_q, route;
  logic   busy_q;          // a payload frame is being routed
  logic [7:0] op;
  logic       is_rsp, is_req_op, bad_qpn;
  logic [15:0] plen;
  assign op        = h.bth.opcode;
  assign is_rsp    = (op >= OP_READ_RESP_FIRST && op <= OP_ATOMIC_ACK) || op == OP_SR_SACK;
  assign is_req_op = op <= OP_READ_REQUEST || op == OP_COMPARE_SWAP || op == OP_FETCH_ADD;
  assign bad_qpn   = 32'(h.bth.dest_qp) >= NUM_QP;
  assign plen      = sd_data[17:2] - 16'(h.hdr_len) - 16'(h.bth.pad_count) - 16'd4;

  always_comb begin
    if (h.err != RX_ERR_NONE || bad_qpn || h.is_cnp || !(is_rsp || is_req_op)) route = R_DROP;
    else if (is_rsp) route = R_RSP;
    else route = R_REQ;
  end

  logic hdr_take;
  assign m_req_hdr   = h;
  assign m_rsp_hdr   = h;
  assign m_req_plen  = plen;
  assign m_rsp_plen  = plen;
  assign m_req_valid = !busy_q && h_valid && sd_valid && route == R_REQ;
  assign m_rsp_valid = !busy_q && h_valid && sd_valid && route == R_RSP;
  assign hdr_take    = !busy_q && h_valid && sd_valid
                       && (route == R_DROP || (route == R_REQ ? m_req_ready : m_rsp_ready));
  assign h_ready     = hdr_take;
  assign sd_pop      = hdr_take;

  assign m_req_tdata  = d_tdata;
  assign m_req_tkeep  = d_tkeep;
  assign m_req_tlast  = d_tlast;
  assign m_req_tuser  = d_tuser;
  assign m_rsp_tdata  = d_tdata;
  assign m_rsp_tkeep  = d_tkeep;
  assign m_rsp_tlast  = d_tlast;
  assign m_rsp_tuser  = d_tuser;
  assign m_req_tvalid = busy_q && route_q == R_REQ && d_tvalid;
  assign m_rsp_tvalid = busy_q && route_q == R_RSP && d_tvalid;
  always_comb begin
    case (route_q)
      R_REQ:   d_tready = busy_q && m_req_tready;
      R_RSP:   d_tready = busy_q && m_rsp_tready;
      default: d_tready = busy_q;
    endcase
  end

  always_ff @(posedge clk) begin
    m_cnp_valid <= 1'b0;
    m_ce_valid  <= 1'b0;
    if (hdr_take) begin
      busy_q  <= 1'b1;
      route_q <= route;
      cnt_roce     <= cnt_roce + CNT_W'(route != R_DROP);
      cnt_drop_hdr <= cnt_drop_hdr + CNT_W'(h.err != RX_ERR_NONE
                                            || (!h.is_cnp && !(is_rsp || is_req_op)));
      cnt_drop_qpn <= cnt_drop_qpn + CNT_W'(h.err == RX_ERR_NONE && bad_qpn);
      cnt_cnp      <= cnt_cnp + CNT_W'(h.err == RX_ERR_NONE && h.is_cnp);
      m_cnp_valid  <= h.err == RX_ERR_NONE && h.is_cnp && !bad_qpn;
      m_cnp_qpn    <= h.bth.dest_qp;
      m_ce_valid   <= route == R_REQ && sd_data[1:0] == 2'b11;
      m_ce_qpn     <= h.bth.dest_qp;
      m_ce_src_ip  <= src_ip_q;
    end
    if (busy_q && d_tvalid && d_tready && d_tlast) busy_q <= 1'b0;
    if (rst) begin
      busy_q       <= 1'b0;
      cnt_roce     <= '0;
      cnt_drop_hdr <= '0;
      cnt_drop_qpn <= '0;
      cnt_cnp      <= '0;
      m_cnp_valid  <= 1'b0;
      m_ce_valid   <= 1'b0;
    end
  end

  logic unused;
  assign unused = ^{unused_icrc_frames, unused_depth, unused_good, unused_bad, unused_ovf,
                    f_oversize, unused_d_plen, unused_sd_count, pc[0], pc[1], pc[2], pc[3],
                    pc[5], pc[6], pc[7], pc[8], pc[9], pc[10], pc[11], pc[12], hc[0], hc[1],
                    hc[2], hc[3], hc[4], pc[4], pm};

endmodule

`resetall
