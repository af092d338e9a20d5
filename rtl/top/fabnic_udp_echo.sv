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
`default_nettype none

module fabnic_udp_echo #(
    parameter int DATA_W   = 64,
    parameter int KEEP_W   = DATA_W / 8,
    parameter int CNT_W    = 32,
    parameter logic [7:0] ECHO_TTL = 8'd64
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

  typedef enum logic [1:0] {S_META, S_SEND_META, S_FWD, S_DRAIN} state_t;
  state_t state_q;
  fabnic_pkt_pkg::pkt_meta_t meta_q;

  logic is_roce, is_vxlan, echo;
  assign is_roce  = s_meta_data.is_udp && s_meta_data.dst_port == fabnic_pkt_pkg::UDP_PORT_ROCEV2;
  assign is_vxlan = s_meta_data.is_udp && s_meta_data.dst_port == fabnic_pkt_pkg::UDP_PORT_VXLAN;
  assign echo     = s_meta_data.is_udp && s_meta_data.is_ipv4 && !is_roce && !is_vxlan;

  // swapped header for the reply
  fabnic_pkt_pkg::pkt_meta_t reply;
  always_comb begin
    reply          = meta_q;
    reply.dst_mac  = meta_q.src_mac;
    reply.src_mac  = meta_q.dst_mac;
    reply.src_ip   = meta_q.dst_ip;
    reply.dst_ip   = meta_q.src_ip;
    reply.src_port = meta_q.dst_port;
    reply.dst_port = meta_q.src_port;
    reply.ttl      = ECHO_TTL;
    reply.err      = '0;
  end

  assign s_meta_ready  = state_q == S_META;
  assign m_meta_valid  = state_q == S_SEND_META;
  assign m_meta_data   = reply;

  assign m_axis_tdata  = s_axis_tdata;
  assign m_axis_tkeep  = s_axis_tkeep;
  assign m_axis_tlast  = s_axis_tlast;
  assign m_axis_tuser  = s_axis_tuser;
  assign m_axis_tvalid = s_axis_tvalid && state_q == S_FWD;
  assign s_axis_tready = (state_q == S_FWD && m_axis_tready) || state_q == S_DRAIN;

  always_ff @(posedge clk) begin
    case (state_q)
      S_META: if (s_meta_valid) begin
        meta_q <= s_meta_data;
        if (echo) state_q <= S_SEND_META;
        else state_q <= S_DRAIN;
        if (is_roce) cnt_roce <= cnt_roce + 1'b1;
        if (is_vxlan) cnt_vxlan <= cnt_vxlan + 1'b1;
        if (!echo && !is_roce && !is_vxlan) cnt_other <= cnt_other + 1'b1;
      end
      S_SEND_META: if (m_meta_ready) state_q <= S_FWD;
      S_FWD: if (s_axis_tvalid && m_axis_tready && s_axis_tlast) begin
        state_q <= S_META;
        if (s_axis_tuser) cnt_bad <= cnt_bad + 1'b1;
        else cnt_echoed <= cnt_echoed + 1'b1;
      end
      S_DRAIN: if (s_axis_tvalid && s_axis_tlast) state_q <= S_META;
      default: state_q <= S_META;
    endcase
    if (rst) begin
      state_q     <= S_META;
      cnt_echoed  <= '0;
      cnt_roce    <= '0;
      cnt_vxlan   <= '0;
      cnt_other <= '0;
      cnt_bad     <= '0;
    end
  end

endmodule

`resetall
