// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vxlan_decap: VXLAN decapsulation behind fabnic_pkt_parser (STRIP=1).
//
// Input: the parser's metadata (s_meta_*) and payload stream (s_axis_*): for a
// VXLAN frame the payload is the 8-byte VXLAN header followed by the inner Ethernet
// frame. Output: the inner frame (m_axis_*) with m_sb (fabnic_vxlan_pkg::decap_sb_t:
// VNI, outer source IP/port, outer ECN), constant while m_axis_tvalid is high for
// the frame's beats.
//
// Dropped and counted (one counter per reason, the first that applies):
//   cnt_drop_outer  meta is not UDP dst port 4789, meta.err has a bit set, or the outer
//                   IPv4 packet is a fragment (meta.ip_frag; RFC 7348 4.3 allows the drop)
//   cnt_drop_short  UDP payload < 8 + 14 bytes (VXLAN header + inner Ethernet)
//   cnt_drop_flag   VXLAN I flag (0x08) clear; reserved bits are ignored (RFC 7348)
// The parser's tuser[0] (e.g. truncated frame) is passed to the inner frame's last beat.
// The metadata is queued (META_DEPTH, then a register holding the head) so the parser
// can release the frame's data.
// Latency: 1 cycle (fabnic_axis_hdr_extract) + combinational output; a frame's first
// beat also waits for its metadata to reach the head register (1 cycle after it is
// queued). Back-pressure only.
`default_nettype none

module fabnic_vxlan_decap #(
    parameter int DATA_W     = 64,
    parameter int KEEP_W     = DATA_W / 8,
    parameter int META_DEPTH = 4,
    parameter int CNT_W      = 32
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    input  fabnic_pkt_pkg::pkt_meta_t       s_meta_data,
    input  wire logic                       s_meta_valid,
    output logic                            s_meta_ready,

    input  wire logic [DATA_W-1:0]          s_axis_tdata,
    input  wire logic [KEEP_W-1:0]          s_axis_tkeep,
    input  wire logic                       s_axis_tvalid,
    output logic                            s_axis_tready,
    input  wire logic                       s_axis_tlast,
    input  wire logic                       s_axis_tuser,

    output logic      [DATA_W-1:0]          m_axis_tdata,
    output logic      [KEEP_W-1:0]          m_axis_tkeep,
    output logic                            m_axis_tvalid,
    input  wire logic                       m_axis_tready,
    output logic                            m_axis_tlast,
    output logic                            m_axis_tuser,
    output fabnic_vxlan_pkg::decap_sb_t     m_sb,

    output logic      [CNT_W-1:0]           cnt_frames_in,
    output logic      [CNT_W-1:0]           cnt_frames_out,
    output logic      [CNT_W-1:0]           cnt_drop_outer,
    output logic      [CNT_W-1:0]           cnt_drop_short,
    output logic      [CNT_W-1:0]           cnt_drop_flag
);

  typedef struct packed {
    logic         bad_outer;
    logic         short_pl;
    logic         ipv6;
    logic [127:0] src_ip;
    logic [15:0]  src_port;
    logic [1:0]   ecn;
  } mq_t;

  mq_t mq_in, mq_head, mq;
  logic mq_head_valid, mq_head_ready, mq_valid, mq_pop;
  logic [$clog2(META_DEPTH):0] unused_cnt;

  always_comb begin
    mq_in.bad_outer = !s_meta_data.is_udp || s_meta_data.dst_port != fabnic_pkt_pkg::UDP_PORT_VXLAN
                      || s_meta_data.err != '0 || s_meta_data.ip_frag;
    mq_in.short_pl  = s_meta_data.payload_len <
                      16'(fabnic_pkt_pkg::VXLAN_HDR_BYTES + fabnic_pkt_pkg::ETH_HDR_BYTES);
    mq_in.ipv6      = s_meta_data.is_ipv6;
    mq_in.src_ip    = s_meta_data.src_ip;
    mq_in.src_port  = s_meta_data.src_port;
    mq_in.ecn       = s_meta_data.ecn;
  end

  fabnic_fifo #(.WIDTH($bits(mq_t)), .DEPTH(META_DEPTH)) u_mq (
      .clk, .rst,
      .in_valid(s_meta_valid), .in_ready(s_meta_ready), .in_data(mq_in),
      .out_valid(mq_head_valid), .out_ready(mq_head_ready), .out_data(mq_head),
      .status_count(unused_cnt)
  );
  // the queue's head in a register: the frame's forward/drop decision starts from
  // flops, not from the queue pointers (one more metadata entry, one cycle of latency
  // from the metadata to the frame's first beat)
  logic [0:0] unused_mq_keep;
  logic       unused_mq_last, unused_mq_user;
  fabnic_axis_register #(.DATA_W($bits(mq_t)), .KEEP_W(1), .USER_W(1), .REG_TYPE(1)) u_mq_reg (
      .clk, .rst,
      .s_axis_tdata(mq_head), .s_axis_tkeep(1'b1), .s_axis_tvalid(mq_head_valid),
      .s_axis_tready(mq_head_ready), .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
      .m_axis_tdata(mq), .m_axis_tkeep(unused_mq_keep), .m_axis_tvalid(mq_valid),
      .m_axis_tready(mq_pop), .m_axis_tlast(unused_mq_last), .m_axis_tuser(unused_mq_user)
  );

  // ---------------------------------------------------------------- strip the VXLAN header
  logic [63:0]       hdr;
  logic              hdr_short, hdr_valid;
  logic [DATA_W-1:0] p_tdata;
  logic [KEEP_W-1:0] p_tkeep;
  logic              p_tvalid, p_tready, p_tlast, p_tuser;

  fabnic_axis_hdr_extract #(.DATA_W(DATA_W), .KEEP_W(KEEP_W),
                            .HDR_BYTES(fabnic_pkt_pkg::VXLAN_HDR_BYTES)) u_strip (
      .clk, .rst,
      .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast,
      .s_axis_tuser,
      .m_hdr_tdata(hdr), .m_hdr_short(hdr_short), .m_hdr_tvalid(hdr_valid),
      .m_hdr_tready(mq_pop),
      .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
      .m_axis_tready(p_tready), .m_axis_tlast(p_tlast), .m_axis_tuser(p_tuser)
  );

  // ---------------------------------------------------------------- forward or drop
  // Metadata and header are held for the whole frame and released with its last beat.
  fabnic_pkt_pkg::vxlan_hdr_t vx;
  logic have, bad_flag, drop, last_fire;

  assign vx        = fabnic_pkt_pkg::vxlan_hdr_t'(hdr);
  assign have      = mq_valid && hdr_valid;
  assign bad_flag  = (vx.flags & fabnic_vxlan_pkg::VXLAN_FLAG_I) == 8'h00;
  assign drop      = mq.bad_outer || mq.short_pl || hdr_short || bad_flag;

  assign m_axis_tdata  = p_tdata;
  assign m_axis_tkeep  = p_tkeep;
  assign m_axis_tlast  = p_tlast;
  assign m_axis_tuser  = p_tuser;
  assign m_axis_tvalid = p_tvalid && have && !drop;
  assign p_tready      = have && (drop || m_axis_tready);
  assign last_fire     = p_tvalid && p_tready && p_tlast;
  assign mq_pop        = last_fire;

  always_comb begin
    m_sb.vni            = vx.vni;
    m_sb.outer_ipv6     = mq.ipv6;
    m_sb.outer_src_ip   = mq.src_ip;
    m_sb.outer_src_port = mq.src_port;
    m_sb.outer_ecn      = mq.ecn;
  end

  logic unused_bits;
  assign unused_bits = ^{s_meta_data, vx.rsvd0, vx.rsvd1,  // fields decap does not need
                         unused_mq_keep, unused_mq_last, unused_mq_user};

  always_ff @(posedge clk) begin
    if (s_meta_valid && s_meta_ready) cnt_frames_in <= cnt_frames_in + 1'b1;
    if (last_fire) begin
      if (!drop) cnt_frames_out <= cnt_frames_out + 1'b1;
      else if (mq.bad_outer) cnt_drop_outer <= cnt_drop_outer + 1'b1;
      else if (mq.short_pl || hdr_short) cnt_drop_short <= cnt_drop_short + 1'b1;
      else cnt_drop_flag <= cnt_drop_flag + 1'b1;
    end
    if (rst) begin
      cnt_frames_in  <= '0;
      cnt_frames_out <= '0;
      cnt_drop_outer <= '0;
      cnt_drop_short <= '0;
      cnt_drop_flag  <= '0;
    end
  end

endmodule

`resetall
