// SPDX-License-Identifier: Apache-2.0
//
// fabnic_roce_tx_hdr: RoCEv2 transmit header generator, the mirror of
// fabnic_roce_rx_hdr. Per packet: one header record (fabnic_roce_pkg::roce_hdr_t:
// the BTH fields and the extension header fields) with the payload length on s_hdr,
// and one payload frame on s_axis (an empty payload is one beat with tkeep=0).
// Output on m_axis: BTH + the extension headers the opcode carries (layout from
// fabnic_roce_pkg::op_layout; an opcode outside the table gets a BTH only) + payload +
// zero pad bytes up to a multiple of 4, packed from lane 0. That is the UDP payload
// for fabnic_pkt_builder, which appends the ICRC (fabnic_roce_icrc_gen).
//
// - BTH pad_count is computed from s_hdr_plen (the input value is ignored); the
//   has_* flags, hdr_len and err of the input record are ignored.
// - hdr_udp_len (combinational from s_hdr_data/s_hdr_plen, meaningful while
//   s_hdr_valid) = headers + payload + pad + 4 ICRC bytes: the value the builder's
//   meta.payload_len must carry. fabnic_roce_pkg::udp_payload_len() is the same.
// - A payload frame whose byte count differs from s_hdr_plen is still sent (the pad
//   follows the declared length) with tuser[0]=1 on its last beat, counted in
//   cnt_err_len. Input tuser[0] (last beat) is passed to the output's last beat.
// - SR = 1 (selective repeat, docs/roce_sr.md): has_reth set on a WRITE MIDDLE/LAST(_IMM)
//   record adds the RETH (the record's reth field), and opcode 0xC0 (SACK) is encoded
//   as AETH + SACKETH with SACKETH bytes 0-15 taken from the reth field and bytes
//   16-23 zero (see fabnic_roce_rx_hdr). SR = 0: has_reth is ignored.
// Back-pressure only. One output beat per cycle; a new header is taken in the cycle
// the previous packet's last payload beat is taken. Latency: 1 cycle.
`default_nettype none

module fabnic_roce_tx_hdr #(
    parameter int DATA_W = 64,
    parameter int KEEP_W = DATA_W / 8,
    parameter int CNT_W  = 32,
    parameter bit SR     = 1'b0
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    input  wire fabnic_roce_pkg::roce_hdr_t s_hdr_data,
    input  wire logic [15:0]                s_hdr_plen,
    input  wire logic                       s_hdr_valid,
    output logic                            s_hdr_ready,
    output logic      [16:0]                hdr_udp_len,

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

    output logic      [CNT_W-1:0]           cnt_pkts,
    output logic      [CNT_W-1:0]           cnt_err_len
);

  localparam int NHB  = fabnic_roce_pkg::MAX_HDR_BYTES;
  localparam int EXB  = NHB - fabnic_pkt_pkg::BTH_BYTES;
  localparam int KC_W = $clog2(KEEP_W + 1);
  localparam int HL_W = fabnic_roce_pkg::HLEN_W;

  if (KEEP_W < 4 || KEEP_W * 8 != DATA_W) begin : g_check
    $error("fabnic_roce_tx_hdr: KEEP_W must be DATA_W/8 and at least 4");
  end

  function automatic logic [KEEP_W-1:0] keep_of(input logic [KC_W:0] n);
    logic [KEEP_W-1:0] k;
    for (int i = 0; i < KEEP_W; i++) k[i] = (KC_W + 1)'(i) < n;
    return k;
  endfunction

  // ---------------------------------------------------------------- header encode
  logic [NHB*8-1:0] enc;
  logic [HL_W-1:0]  enc_len;
  logic [1:0]       enc_pad;
  logic [1:0]       unused_lay;

  always_comb begin
    fabnic_roce_pkg::op_layout_t lay;
    fabnic_pkt_pkg::bth_t        bth;
    logic [EXB*8-1:0]            ext;
    lay     = fabnic_roce_pkg::op_layout_sr(s_hdr_data.bth.opcode, SR && s_hdr_data.has_reth, SR);
    enc_pad = fabnic_roce_pkg::pad_of(s_hdr_plen[1:0]);
    enc_len = fabnic_roce_pkg::hdr_len_lay(lay);
    bth     = s_hdr_data.bth;
    bth.pad_count = enc_pad;
    ext = '0;
    if (lay.reth)           ext[EXB*8-1 -: 128]     = s_hdr_data.reth;
    if (lay.aeth)           ext[EXB*8-1 -: 32]      = s_hdr_data.aeth;
    if (lay.sack)           ext[EXB*8-1-32 -: 128]  = s_hdr_data.reth;   // SACKETH 0-15
    if (lay.atomic_ack_eth) ext[EXB*8-1-32 -: 64]   = s_hdr_data.atomic_ack_eth;
    if (lay.atomic_eth)     ext[EXB*8-1 -: 224]     = s_hdr_data.atomic_eth;
    if (lay.ieth)           ext[EXB*8-1 -: 32]      = s_hdr_data.ieth;
    if (lay.immdt) begin
      if (lay.reth) ext[EXB*8-1-128 -: 32] = s_hdr_data.immdt;
      else          ext[EXB*8-1 -: 32]     = s_hdr_data.immdt;
    end
    enc = {bth, ext};
    unused_lay = {lay.known, lay.cnp};   // unknown opcodes and CNP: BTH / zeros only
  end

  // fields of the input record that the encoder does not use (documented above)
  logic unused_in;
  assign unused_in = ^{s_hdr_data.has_reth, s_hdr_data.has_aeth, s_hdr_data.has_immdt,
                       s_hdr_data.has_ieth, s_hdr_data.has_atomic_eth,
                       s_hdr_data.has_atomic_ack_eth, s_hdr_data.is_cnp, s_hdr_data.hdr_len,
                       s_hdr_data.err, unused_lay};

  assign hdr_udp_len = SR ? fabnic_roce_pkg::udp_payload_len_sr(s_hdr_data.bth.opcode,
                                                                 s_hdr_data.has_reth, s_hdr_plen)
                          : fabnic_roce_pkg::udp_payload_len(s_hdr_data.bth.opcode, s_hdr_plen);

  // ---------------------------------------------------------------- header register
  logic [NHB*8-1:0] hdr_q;
  logic [HL_W-1:0]  hlen_q;
  logic [1:0]       pad_q;
  logic [15:0]      plen_q;
  logic             hv_q, sent_q;
  logic             ins_hdr_ready, finishing;

  assign s_hdr_ready = !hv_q || finishing;

  always_ff @(posedge clk) begin
    if (hv_q && !sent_q && ins_hdr_ready) sent_q <= 1'b1;
    if (finishing) hv_q <= 1'b0;
    if (s_hdr_valid && s_hdr_ready) begin
      hv_q   <= 1'b1;
      sent_q <= 1'b0;
      hdr_q  <= enc;
      hlen_q <= enc_len;
      pad_q  <= enc_pad;
      plen_q <= s_hdr_plen;
    end
    if (rst) begin
      hv_q   <= 1'b0;
      sent_q <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- pad stage
  logic [DATA_W-1:0] p_data;
  logic [KEEP_W-1:0] p_keep;
  logic              p_valid, p_ready, p_last, p_user, p_fire;
  logic              extra_q, extra_user_q;
  logic [2:0]        extra_n_q;
  logic [15:0]       cnt_q;       // payload bytes of this packet before this beat
  logic [KC_W-1:0]   n;
  logic [KC_W:0]     tot;
  logic [15:0]       cnt_next;
  logic              len_err;
  logic [DATA_W-1:0] kbits;

  always_comb begin
    n = '0;
    for (int i = 0; i < KEEP_W; i++) n = n + KC_W'(s_axis_tkeep[i]);
    for (int i = 0; i < KEEP_W; i++) kbits[8*i +: 8] = {8{s_axis_tkeep[i]}};
    tot      = (KC_W + 1)'(n) + (KC_W + 1)'(pad_q);
    cnt_next = cnt_q + 16'(n);
    len_err  = cnt_next != plen_q;
    if (extra_q) begin
      p_valid = 1'b1;
      p_data  = '0;
      p_keep  = keep_of((KC_W + 1)'(extra_n_q));
      p_last  = 1'b1;
      p_user  = extra_user_q;
    end else begin
      p_valid = hv_q && s_axis_tvalid;
      p_data  = s_axis_tdata & kbits;
      p_keep  = s_axis_tkeep;
      p_last  = s_axis_tlast;
      p_user  = s_axis_tuser || (s_axis_tlast && len_err);
      if (s_axis_tlast) begin
        p_keep = keep_of(tot);   // saturates at all lanes
        if (tot > (KC_W + 1)'(KEEP_W)) p_last = 1'b0;
      end
    end
    p_fire        = p_valid && p_ready;
    s_axis_tready = !extra_q && hv_q && p_ready;
    finishing     = p_fire && p_last;
  end

  always_ff @(posedge clk) begin
    if (p_fire) begin
      if (extra_q) begin
        extra_q <= 1'b0;
      end else if (s_axis_tlast) begin
        cnt_q <= '0;
        if (!p_last) begin
          extra_q      <= 1'b1;
          extra_n_q    <= 3'(tot - (KC_W + 1)'(KEEP_W));
          extra_user_q <= p_user || len_err;
        end
      end else begin
        cnt_q <= cnt_next;
      end
    end
    if (rst) begin
      extra_q      <= 1'b0;
      extra_user_q <= 1'b0;
      extra_n_q    <= '0;
      cnt_q        <= '0;
    end
  end

  always_ff @(posedge clk) begin
    if (p_fire && !extra_q && s_axis_tlast) begin
      cnt_pkts <= cnt_pkts + 1'b1;
      if (len_err) cnt_err_len <= cnt_err_len + 1'b1;
    end
    if (rst) begin
      cnt_pkts    <= '0;
      cnt_err_len <= '0;
    end
  end

  // ---------------------------------------------------------------- header insert
  fabnic_axis_hdr_insert #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .HDR_BYTES(NHB), .HLEN_W(HL_W)) u_ins (
      .clk, .rst,
      .s_hdr_tdata(hdr_q), .s_hdr_len(hlen_q), .s_hdr_tvalid(hv_q && !sent_q),
      .s_hdr_tready(ins_hdr_ready),
      .s_axis_tdata(p_data), .s_axis_tkeep(p_keep), .s_axis_tvalid(p_valid),
      .s_axis_tready(p_ready), .s_axis_tlast(p_last), .s_axis_tuser(p_user),
      .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser
  );

endmodule

`resetall
