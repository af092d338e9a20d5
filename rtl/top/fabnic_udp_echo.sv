// SPDX-License-Identifier: Apache-2.0
//
// fabnic_udp_echo: the foundation demo's forwarding decision. Sits between
// fabnic_pkt_parser (STRIP=1) and fabnic_pkt_builder: every plain UDP-over-IPv4
// datagram is sent back to where it came from (MAC, IP addresses and UDP ports
// swapped, TTL reset to ECHO_TTL); everything else is consumed and counted by
// class. IPv6 UDP is not echoed (cnt_other): the builder writes UDP checksum 0,
// which IPv6 forbids.
// RoCEv2 (UDP 4791) and VXLAN (UDP 4789) are counted but not echoed: their
// engines come with the RoCE and VXLAN issues, and echoing would need the ICRC
// re-computed.
//
// Per frame the parser delivers one meta word, then the payload frame. A frame
// whose payload ends with tuser[0]=1 (an error found only at the frame end) is
// still forwarded with tuser[0] set, which makes the MAC abort it; it is counted
// in cnt_bad. Back-pressure only; nothing is dropped for lack of space.
// Throughput: one frame per cycle (meta and payload sides run concurrently).
`default_nettype none

module fabnic_udp_echo #(
    parameter int DATA_W   = 64,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int CNT_W    = 32,
    parameter logic [7:0] ECHO_TTL = 8'd64,
    parameter int DEC_DEPTH = 16  // frames whose meta is ahead of their payload
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  fabnic_pkt_pkg::pkt_meta_t      s_meta_data,
    input  wire logic                      s_meta_valid,
    output logic                           s_meta_ready,

    input  wire logic [DATA_W-1:0]         s_axis_tdata,
    input  wire logic [KEEP_W-1:0]         s_axis_tkeep,
    input  wire logic                      s_axis_tvalid,
    output logic                           s_axis_tready,
    input  wire logic                      s_axis_tlast,
    input  wire logic                      s_axis_tuser,

    output fabnic_pkt_pkg::pkt_meta_t      m_meta_data,
    output logic                           m_meta_valid,
    input  wire logic                      m_meta_ready,

    output logic      [DATA_W-1:0]         m_axis_tdata,
    output logic      [KEEP_W-1:0]         m_axis_tkeep,
    output logic                           m_axis_tvalid,
    input  wire logic                      m_axis_tready,
    output logic                           m_axis_tlast,
    output logic                           m_axis_tuser,

    output logic      [CNT_W-1:0]          cnt_echoed,
    output logic      [CNT_W-1:0]          cnt_roce,
    output logic      [CNT_W-1:0]          cnt_vxlan,
    output logic      [CNT_W-1:0]          cnt_other,
    output logic      [CNT_W-1:0]          cnt_bad
);

  // Meta and payload move independently so a frame per cycle can pass: the
  // meta side decides and queues the decision (echo or drain) for the payload
  // side, which applies it to the next frame it sees.
  logic is_roce, is_vxlan, echo;
  assign is_roce  = s_meta_data.is_udp && s_meta_data.dst_port == fabnic_pkt_pkg::UDP_PORT_ROCEV2;
  assign is_vxlan = s_meta_data.is_udp && s_meta_data.dst_port == fabnic_pkt_pkg::UDP_PORT_VXLAN;
  assign echo     = s_meta_data.is_udp && s_meta_data.is_ipv4 && !is_roce && !is_vxlan;

  // swapped header for the reply
  always_comb begin
    m_meta_data          = s_meta_data;
    m_meta_data.dst_mac  = s_meta_data.src_mac;
    m_meta_data.src_mac  = s_meta_data.dst_mac;
    m_meta_data.src_ip   = s_meta_data.dst_ip;
    m_meta_data.dst_ip   = s_meta_data.src_ip;
    m_meta_data.src_port = s_meta_data.dst_port;
    m_meta_data.dst_port = s_meta_data.src_port;
    m_meta_data.ttl      = ECHO_TTL;
    m_meta_data.err      = '0;
  end

  logic dec_in_ready, dec_valid, dec_echo, dec_pop;

  // a meta word is taken when its decision fits the queue and, for an echo,
  // the builder takes the reply header in the same cycle
  logic meta_fire;
  assign m_meta_valid = s_meta_valid && echo && dec_in_ready;
  assign s_meta_ready = dec_in_ready && (!echo || m_meta_ready);
  assign meta_fire    = s_meta_valid && s_meta_ready;

  fabnic_fifo #(.WIDTH(1), .DEPTH(DEC_DEPTH)) u_dec (
    .clk, .rst,
    .in_valid(meta_fire), .in_ready(dec_in_ready), .in_data(echo),
    .out_valid(dec_valid), .out_ready(dec_pop), .out_data(dec_echo),
    .status_count()
  );

  assign m_axis_tdata  = s_axis_tdata;
  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tlast  = s_axis_tlast;
  assign m_axis_tuser  = s_axis_tuser;
  assign m_axis_tvalid = s_axis_tvalid && dec_valid && dec_echo;
  assign s_axis_tready = dec_valid && (!dec_echo || m_axis_tready);
  assign dec_pop       = s_axis_tvalid && s_axis_tready && s_axis_tlast;

  always_ff @(posedge clk) begin
    if (meta_fire) begin
      if (is_roce) cnt_roce <= cnt_roce + 1'b1;
      if (is_vxlan) cnt_vxlan <= cnt_vxlan + 1'b1;
      if (!echo && !is_roce && !is_vxlan) cnt_other <= cnt_other + 1'b1;
    end
    if (dec_pop && dec_echo) begin
      if (s_axis_tuser) cnt_bad <= cnt_bad + 1'b1;
      else cnt_echoed <= cnt_echoed + 1'b1;
    end
    if (rst) begin
      cnt_echoed <= '0;
      cnt_roce   <= '0;
      cnt_vxlan  <= '0;
      cnt_other  <= '0;
      cnt_bad    <= '0;
    end
  end

endmodule

`resetall
