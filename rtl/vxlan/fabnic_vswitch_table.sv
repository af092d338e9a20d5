// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vswitch_table: the VTEP's forwarding state (docs/vxlan.md).
//
//   MAC table  exact match {VNI 24, MAC 48} -> {action, index}; WAYS-way set
//              associative in one block RAM (one word = all ways of a set),
//              SETS = ENTRIES / WAYS, set = XOR fold of the 72-bit key (hash below).
//              A full set makes ADD fail with ST_FULL (cnt_add_full), nothing is evicted.
//   VNI table  VNI_ENTRIES slots (registers, matched in parallel): {valid, vni,
//              default tunnel index, flood list of up to FLOOD_MAX local queues,
//              remote flood list of up to RFLOOD_MAX tunnels (head-end replication)}.
//              The first matching valid slot wins.
//   TUN table  TUN_ENTRIES slots (registers) of fabnic_vxlan_pkg::tunnel_t.
//
// Lookup port A ({vni, mac} -> result, with the VNI row): pipelined, one lookup per
// cycle, result one cycle after the request (valid/ready on both sides; la_user is
// carried to the result). The VNI slots are compared in the request cycle (match
// vector registered); the first matching slot is selected in the result cycle.
// Port B (vni [, tunnel index] -> tunnel row, encap path) is a pipeline without
// handshake: rb_* belong to the lb_* presented two cycles earlier (cycle 1: VNI match
// vector, cycle 2: tunnel index; the tunnel row is read from it). rb_tsum is the sum of
// the tunnel's 16-bit address words (2 + 2 for IPv4, 8 + 8 for IPv6: the UDP pseudo
// header part), computed when the tunnel is written.
//
// Command port (valid/ready, then one response valid/ready): op ADD/DEL/READ on
// table MAC (by key; ADD overwrites an existing key), VNI or TUN (by cmd_index).
// Commands have priority over lookups (port A pauses for 4 cycles per MAC command:
// read, compare (ways registered), write, response).
// After reset the RAM is cleared, one set per cycle: init_done goes high after SETS
// cycles; lookups and commands wait for it.
`default_nettype none

module fabnic_vswitch_table #(
    parameter int ENTRIES     = 4096,   // MAC entries (power of two, multiple of WAYS)
    parameter int WAYS        = 4,
    parameter int VNI_ENTRIES = 16,
    parameter int TUN_ENTRIES = 16,
    parameter int QP_W        = 8,      // local queue pair index width
    parameter int FLOOD_MAX   = 4,      // local queues in a VNI's flood list (<= 8)
    parameter int RFLOOD_MAX  = 4,      // remote VTEPs (tunnels) in a VNI's flood list (<= 10)
    parameter int USER_W      = 1,      // tag carried from a lookup to its result
    parameter int CNT_W       = 32,
    parameter int TUN_W       = TUN_ENTRIES > 1 ? $clog2(TUN_ENTRIES) : 1,
    parameter int IDX_W       = QP_W > TUN_W ? QP_W : TUN_W,
    parameter int FC_W        = $clog2(FLOOD_MAX + 1),
    parameter int RFC_W       = $clog2(RFLOOD_MAX + 1),
    parameter int VAL_W       = 367     // $bits(tunnel_t); >= 192 + 16*RFLOOD_MAX
) (
    input  wire logic                     clk,
    input  wire logic                     rst,
    output logic                          init_done,

    // ---- lookup port A
    input  wire logic                     la_valid,
    output logic                          la_ready,
    input  wire logic [23:0]              la_vni,
    input  wire logic [47:0]              la_mac,
    input  wire logic [USER_W-1:0]        la_user,

    output logic                          ra_valid,
    input  wire logic                     ra_ready,
    output logic [USER_W-1:0]             ra_user,
    output logic [23:0]                   ra_vni,
    output logic                          ra_vni_hit,   // VNI configured
    output logic                          ra_mac_hit,   // {vni, mac} in the MAC table
    output logic                          ra_group,     // mac is broadcast/multicast (I/G bit)
    output logic [1:0]                    ra_action,    // ACT_NONE on a miss
    output logic [IDX_W-1:0]              ra_index,
    output logic [TUN_W-1:0]              ra_vni_tun,   // VNI's default tunnel
    output logic [FC_W-1:0]               ra_flood_cnt,
    output logic [FLOOD_MAX*QP_W-1:0]     ra_flood_list,// entry i in bits [i*QP_W +: QP_W]
    output logic [RFC_W-1:0]              ra_rflood_cnt,
    output logic [RFLOOD_MAX*TUN_W-1:0]   ra_rflood_list,// tunnel i in bits [i*TUN_W +: TUN_W]

    // ---- lookup port B (combinational)
    input  wire logic [23:0]              lb_vni,
    input  wire logic                     lb_tun_sel,   // 1: use lb_tun, 0: the VNI's tunnel
    input  wire logic [TUN_W-1:0]         lb_tun,
    output logic                          rb_hit,       // VNI configured
    output fabnic_vxlan_pkg::tunnel_t     rb_tunnel,
    output logic [19:0]                   rb_tsum,      // sum of the tunnel's address words

    // ---- commands
    input  wire logic                     cmd_valid,
    output logic                          cmd_ready,
    input  wire logic [1:0]               cmd_op,
    input  wire logic [1:0]               cmd_table,
    input  wire logic [71:0]              cmd_key,      // {vni, mac} (MAC), vni in [71:48] (VNI)
    input  wire logic [15:0]              cmd_index,    // slot (VNI, TUN)
    input  wire logic [VAL_W-1:0]         cmd_value,

    output logic                          rsp_valid,
    input  wire logic                     rsp_ready,
    output logic [1:0]                    rsp_status,
    output logic [VAL_W-1:0]              rsp_value,

    output logic [CNT_W-1:0]              cnt_lookups,
    output logic [CNT_W-1:0]              cnt_mac_hits,
    output logic [CNT_W-1:0]              cnt_add_full,
    output logic [$clog2(ENTRIES+1)-1:0]  status_mac_entries
);

  localparam int SETS  = ENTRIES / WAYS;
  localparam int SET_W = SETS > 1 ? $clog2(SETS) : 1;
  localparam int EW    = 1 + 72 + 2 + IDX_W;           // valid, key, action, index
  // VNI row: {tun, rcnt, rlist, fcnt, flist} (msb first)
  localparam int O_FC  = FLOOD_MAX * QP_W;
  localparam int O_RL  = O_FC + FC_W;
  localparam int O_RC  = O_RL + RFLOOD_MAX * TUN_W;
  localparam int VROW  = O_RC + RFC_W + TUN_W;
  localparam int WAY_W = WAYS > 1 ? $clog2(WAYS) : 1;
  localparam int VS_W  = VNI_ENTRIES > 1 ? $clog2(VNI_ENTRIES) : 1;

  if (SETS * WAYS != ENTRIES || (1 << SET_W) != SETS) begin : g_check_size
    $error("fabnic_vswitch_table: ENTRIES / WAYS must be a power of two");
  end
  if (VAL_W < $bits(fabnic_vxlan_pkg::tunnel_t) || VAL_W < 192 + 16 * RFLOOD_MAX
      || FLOOD_MAX > 8 || RFLOOD_MAX > 10 || RFLOOD_MAX < 1 || FLOOD_MAX < 1
      || IDX_W > 16 || QP_W > 16) begin : g_check_val
    $error("fabnic_vswitch_table: VAL_W too small or index fields wider than 16 bits");
  end

  typedef struct packed {
    logic              valid;
    logic [71:0]       key;
    logic [1:0]        action;
    logic [IDX_W-1:0]  index;
  } mac_ent_t;

  // set index: XOR of the key's SET_W-bit chunks, starting at bit 0
  function automatic logic [SET_W-1:0] set_of(input logic [71:0] key);
    logic [SET_W-1:0] h;
    h = '0;
    for (int i = 0; i < 72; i++) h[i % SET_W] ^= key[i];
    return h;
  endfunction

  // ---------------------------------------------------------------- VNI / TUN registers
  logic [VNI_ENTRIES-1:0]       vni_valid_q;
  logic [23:0]                  vni_key_q  [VNI_ENTRIES];
  logic [VROW-1:0]              vni_row_q  [VNI_ENTRIES];
  fabnic_vxlan_pkg::tunnel_t    tun_q      [TUN_ENTRIES];
  logic [19:0]                  tsum_q     [TUN_ENTRIES];

  // match vector: bit i = slot i valid and holding vni (all slots compared in parallel)
  function automatic logic [VNI_ENTRIES-1:0] vni_mvec(input logic [23:0] vni,
                                                      input logic [VNI_ENTRIES-1:0] vld,
                                                      input logic [VNI_ENTRIES*24-1:0] keys);
    logic [VNI_ENTRIES-1:0] m;
    for (int i = 0; i < VNI_ENTRIES; i++) m[i] = vld[i] && keys[i*24 +: 24] == vni;
    return m;
  endfunction

  // first (lowest) matching slot: isolate the lowest set bit, then OR-encode it
  function automatic logic [VS_W-1:0] vni_first(input logic [VNI_ENTRIES-1:0] m);
    logic [VNI_ENTRIES-1:0] oh;
    logic [VS_W-1:0]        r;
    oh = m & (~m + 1'b1);
    r  = '0;
    for (int i = 0; i < VNI_ENTRIES; i++) begin
      if (oh[i]) r |= VS_W'(i);
    end
    return r;
  endfunction

  // pseudo-header address words of a tunnel
  function automatic logic [19:0] tun_sum(input logic v6, input logic [127:0] sip,
                                          input logic [127:0] dip);
    logic [19:0] a;
    a = 20'(sip[15:0]) + 20'(sip[31:16]) + 20'(dip[15:0]) + 20'(dip[31:16]);
    for (int i = 2; i < 8; i++) begin
      if (v6) a += 20'(sip[16*i +: 16]) + 20'(dip[16*i +: 16]);
    end
    return a;
  endfunction

  logic [VNI_ENTRIES*24-1:0] vni_keys_flat;
  always_comb begin
    for (int i = 0; i < VNI_ENTRIES; i++) vni_keys_flat[i*24 +: 24] = vni_key_q[i];
  end

  // port B: b1 = match vector, b2 = tunnel index
  logic [VNI_ENTRIES-1:0] b1_mvec_q;
  logic                   b1_sel_q, b2_hit_q;
  logic [TUN_W-1:0]       b1_tun_q, b2_tun_q, rowb_tun;
  always_ff @(posedge clk) begin
    b1_mvec_q <= vni_mvec(lb_vni, vni_valid_q, vni_keys_flat);
    b1_sel_q  <= lb_tun_sel;
    b1_tun_q  <= lb_tun;
    b2_hit_q  <= |b1_mvec_q;
    b2_tun_q  <= b1_sel_q ? b1_tun_q : rowb_tun;
  end
  assign rowb_tun  = vni_row_q[vni_first(b1_mvec_q)][VROW-1 -: TUN_W];
  assign rb_hit    = b2_hit_q;
  assign rb_tunnel = tun_q[b2_tun_q];
  assign rb_tsum   = tsum_q[b2_tun_q];

  // ---------------------------------------------------------------- MAC RAM
  typedef enum logic [2:0] {S_INIT, S_IDLE, S_CMP, S_WR, S_RSP} state_t;
  state_t st_q;
  logic [SET_W-1:0] init_q;

  logic                 rd_en, wr_en;
  logic [SET_W-1:0]     rd_addr, wr_addr;
  logic [WAYS-1:0]      wr_be;
  logic [WAYS*EW-1:0]   rd_data, wr_data;

  fabnic_ram_sdp #(.DATA_W(WAYS * EW), .DEPTH(SETS), .BYTE_W(EW)) u_ram (
      .clk, .wr_en, .wr_be, .wr_addr, .wr_data,
      .rd_en, .rd_regce(1'b1), .rd_addr, .rd_data
  );

  // ---------------------------------------------------------------- lookup pipeline
  logic              la_fire, cmd_fire, v_q;
  logic [71:0]       lkey_q;
  logic [USER_W-1:0] luser_q;
  logic [VNI_ENTRIES-1:0] lmvec_q;
  logic [VROW-1:0]   lrow;

  assign init_done = st_q != S_INIT;
  assign la_ready  = st_q == S_IDLE && !cmd_valid && (!v_q || ra_ready);
  assign la_fire   = la_valid && la_ready;
  assign cmd_ready = st_q == S_IDLE && !v_q;
  assign cmd_fire  = cmd_valid && cmd_ready;

  always_ff @(posedge clk) begin
    if (la_fire) begin
      lkey_q  <= {la_vni, la_mac};
      luser_q <= la_user;
      lmvec_q <= vni_mvec(la_vni, vni_valid_q, vni_keys_flat);
    end
    v_q <= la_fire || (v_q && !ra_ready);
    if (rst) v_q <= 1'b0;
  end

  mac_ent_t ent [WAYS];
  always_comb begin
    for (int w = 0; w < WAYS; w++) begin
      ent[w]   = mac_ent_t'(rd_data[w*EW +: EW]);
    end
  end

  // 72-bit key compare as a balanced tree: 3-bit chunks, then groups of 6 chunks
  function automatic logic key_eq(input logic [71:0] a, input logic [71:0] b);
    logic [23:0] c;
    logic [3:0]  g;
    for (int i = 0; i < 24; i++) c[i] = a[3*i +: 3] == b[3*i +: 3];
    for (int k = 0; k < 4; k++) g[k] = &c[6*k +: 6];
    return &g;
  endfunction

  // the first (lowest) way of a set of ways
  function automatic logic [WAY_W-1:0] way_first(input logic [WAYS-1:0] m);
    logic [WAYS-1:0]  oh;
    logic [WAY_W-1:0] r;
    oh = m & (~m + 1'b1);
    r  = '0;
    for (int w = 0; w < WAYS; w++) begin
      if (oh[w]) r |= WAY_W'(w);
    end
    return r;
  endfunction

  // lookup result (port A): the lookup key against the RAM word
  logic [WAYS-1:0]  hit_w;
  logic [WAY_W-1:0] hit_way;
  logic [1:0]       hit_act;
  logic [IDX_W-1:0] hit_idx;
  logic             any_hit;
  always_comb begin
    for (int w = 0; w < WAYS; w++) hit_w[w] = ent[w].valid && key_eq(ent[w].key, lkey_q);
    hit_way = way_first(hit_w);
    any_hit = |hit_w;
    hit_act = ent[hit_way].action;
    hit_idx = ent[hit_way].index;
  end

  // MAC command: S_CMP registers the ways holding the command key and the free ways,
  // S_WR picks the first of them and writes (the RAM read register holds the set)
  logic [71:0]      ckey_q;
  logic [WAYS-1:0]  chit_w_q, cfree_w_q;
  logic             c_hit, c_free;
  logic [WAY_W-1:0] c_hit_way, c_free_way;
  logic [1:0]       c_act;
  logic [IDX_W-1:0] c_idx;
  always_ff @(posedge clk) begin
    if (st_q == S_CMP) begin
      for (int w = 0; w < WAYS; w++) begin
        chit_w_q[w]  <= ent[w].valid && key_eq(ent[w].key, ckey_q);
        cfree_w_q[w] <= !ent[w].valid;
      end
    end
  end
  always_comb begin
    c_hit      = |chit_w_q;
    c_free     = |cfree_w_q;
    c_hit_way  = way_first(chit_w_q);
    c_free_way = way_first(cfree_w_q);
    c_act      = ent[c_hit_way].action;
    c_idx      = ent[c_hit_way].index;
  end

  assign ra_valid      = v_q;
  assign ra_user       = luser_q;
  assign ra_vni        = lkey_q[71:48];
  // the VNI rows cannot change while a result waits (commands wait for v_q = 0)
  assign lrow          = vni_row_q[vni_first(lmvec_q)];
  assign ra_vni_hit    = |lmvec_q;
  assign ra_mac_hit    = any_hit;
  assign ra_group      = lkey_q[40];
  assign ra_action     = any_hit ? hit_act : fabnic_vxlan_pkg::ACT_NONE;
  assign ra_index      = any_hit ? hit_idx : '0;
  assign ra_vni_tun    = lrow[VROW-1 -: TUN_W];
  assign ra_flood_cnt  = lrow[O_FC +: FC_W];
  assign ra_flood_list = lrow[O_FC-1:0];
  assign ra_rflood_cnt = lrow[O_RC +: RFC_W];
  assign ra_rflood_list = lrow[O_RL +: RFLOOD_MAX*TUN_W];

  // ---------------------------------------------------------------- commands
  logic [1:0]       cop_q;
  logic [IDX_W+1:0] cval_q;
  logic [1:0]       rstat_q;
  logic [VAL_W-1:0] rval_q;
  logic [$clog2(ENTRIES+1)-1:0] nent_q;

  assign rsp_valid  = st_q == S_RSP;
  assign rsp_status = rstat_q;
  assign rsp_value  = rval_q;
  assign status_mac_entries = nent_q;

  assign rd_en   = la_fire || (cmd_fire && cmd_table == fabnic_vxlan_pkg::TBL_MAC);
  assign rd_addr = cmd_fire ? set_of(cmd_key) : set_of({la_vni, la_mac});

  mac_ent_t new_ent;
  always_comb begin
    new_ent.valid  = cop_q == fabnic_vxlan_pkg::OP_ADD;
    new_ent.key    = ckey_q;
    new_ent.action = cval_q[IDX_W+1:IDX_W];
    new_ent.index  = cval_q[IDX_W-1:0];
    wr_en   = 1'b0;
    wr_be   = '0;
    wr_addr = set_of(ckey_q);
    wr_data = {WAYS{new_ent}};
    if (st_q == S_INIT) begin
      wr_en   = 1'b1;
      wr_be   = '1;
      wr_addr = init_q;
      wr_data = '0;
    end else if (st_q == S_WR) begin
      if (cop_q == fabnic_vxlan_pkg::OP_ADD && (c_hit || c_free)) begin
        wr_en = 1'b1;
        wr_be[c_hit ? c_hit_way : c_free_way] = 1'b1;
      end else if (cop_q == fabnic_vxlan_pkg::OP_DEL && c_hit) begin
        wr_en = 1'b1;
        wr_be[c_hit_way] = 1'b1;
      end
    end
  end

  logic slot_ok;
  always_comb begin
    slot_ok = cmd_table == fabnic_vxlan_pkg::TBL_VNI ? cmd_index < 16'(VNI_ENTRIES)
                                                     : cmd_index < 16'(TUN_ENTRIES);
  end

  fabnic_vxlan_pkg::tunnel_t cmd_tun;   // a TUN command's value
  logic unused_cmd_tun;
  assign cmd_tun        = fabnic_vxlan_pkg::tunnel_t'(cmd_value[366:0]);
  assign unused_cmd_tun = ^{cmd_tun.src_mac, cmd_tun.dst_mac, cmd_tun.ttl, cmd_tun.dscp};

  always_ff @(posedge clk) begin
    case (st_q)
      S_INIT: begin
        init_q <= init_q + 1'b1;
        if (init_q == SET_W'(SETS - 1)) st_q <= S_IDLE;
      end
      S_IDLE: begin
        if (cmd_fire) begin
          cop_q   <= cmd_op;
          ckey_q  <= cmd_key;
          cval_q  <= {cmd_value[17:16], cmd_value[IDX_W-1:0]};
          rval_q  <= '0;
          rstat_q <= fabnic_vxlan_pkg::ST_OK;
          st_q    <= S_RSP;
          if (cmd_op == 2'd3) begin
            rstat_q <= fabnic_vxlan_pkg::ST_BAD_CMD;
          end else if (cmd_table == fabnic_vxlan_pkg::TBL_MAC) begin
            st_q <= S_CMP;
          end else if (cmd_table == fabnic_vxlan_pkg::TBL_VNI && slot_ok) begin
            if (cmd_op == fabnic_vxlan_pkg::OP_ADD) begin
              vni_valid_q[VS_W'(cmd_index)] <= 1'b1;
              vni_key_q[VS_W'(cmd_index)]   <= cmd_key[71:48];
              for (int i = 0; i < FLOOD_MAX; i++) begin
                vni_row_q[VS_W'(cmd_index)][i*QP_W +: QP_W] <= cmd_value[64 + 16*i +: QP_W];
              end
              for (int i = 0; i < RFLOOD_MAX; i++) begin
                vni_row_q[VS_W'(cmd_index)][O_RL + i*TUN_W +: TUN_W]
                    <= cmd_value[192 + 16*i +: TUN_W];
              end
              // counts above the list sizes are clamped
              vni_row_q[VS_W'(cmd_index)][O_FC +: FC_W]
                  <= cmd_value[23:16] > 8'(FLOOD_MAX) ? FC_W'(FLOOD_MAX) : cmd_value[16 +: FC_W];
              vni_row_q[VS_W'(cmd_index)][O_RC +: RFC_W]
                  <= cmd_value[31:24] > 8'(RFLOOD_MAX) ? RFC_W'(RFLOOD_MAX) : cmd_value[24 +: RFC_W];
              vni_row_q[VS_W'(cmd_index)][VROW-1 -: TUN_W]  <= cmd_value[TUN_W-1:0];
            end else if (cmd_op == fabnic_vxlan_pkg::OP_DEL) begin
              vni_valid_q[VS_W'(cmd_index)] <= 1'b0;
            end else begin
              if (!vni_valid_q[VS_W'(cmd_index)]) rstat_q <= fabnic_vxlan_pkg::ST_NOT_FOUND;
              rval_q[55:32] <= vni_key_q[VS_W'(cmd_index)];
              for (int i = 0; i < FLOOD_MAX; i++) begin
                rval_q[64 + 16*i +: QP_W] <= vni_row_q[VS_W'(cmd_index)][i*QP_W +: QP_W];
              end
              for (int i = 0; i < RFLOOD_MAX; i++) begin
                rval_q[192 + 16*i +: TUN_W] <= vni_row_q[VS_W'(cmd_index)][O_RL + i*TUN_W +: TUN_W];
              end
              rval_q[16 +: FC_W]    <= vni_row_q[VS_W'(cmd_index)][O_FC +: FC_W];
              rval_q[24 +: RFC_W]   <= vni_row_q[VS_W'(cmd_index)][O_RC +: RFC_W];
              rval_q[TUN_W-1:0]     <= vni_row_q[VS_W'(cmd_index)][VROW-1 -: TUN_W];
            end
          end else if (cmd_table == fabnic_vxlan_pkg::TBL_TUN && slot_ok) begin
            if (cmd_op == fabnic_vxlan_pkg::OP_ADD) begin
              tun_q[TUN_W'(cmd_index)]  <= cmd_tun;
              tsum_q[TUN_W'(cmd_index)] <= tun_sum(cmd_tun.is_ipv6, cmd_tun.src_ip, cmd_tun.dst_ip);
            end else if (cmd_op == fabnic_vxlan_pkg::OP_DEL) begin
              tun_q[TUN_W'(cmd_index)]  <= '0;
              tsum_q[TUN_W'(cmd_index)] <= '0;
            end else begin
              rval_q[366:0] <= tun_q[TUN_W'(cmd_index)];
            end
          end else begin
            rstat_q <= fabnic_vxlan_pkg::ST_BAD_CMD;
          end
        end
      end
      S_CMP: st_q <= S_WR;
      S_WR: begin
        st_q <= S_RSP;
        rval_q[IDX_W-1:0] <= c_hit ? c_idx : '0;
        rval_q[17:16]     <= c_hit ? c_act : 2'd0;
        if (cop_q == fabnic_vxlan_pkg::OP_ADD) begin
          if (!c_hit && !c_free) begin
            rstat_q      <= fabnic_vxlan_pkg::ST_FULL;
            cnt_add_full <= cnt_add_full + 1'b1;
          end else if (!c_hit) begin
            nent_q <= nent_q + 1'b1;
          end
        end else begin
          if (!c_hit) rstat_q <= fabnic_vxlan_pkg::ST_NOT_FOUND;
          else if (cop_q == fabnic_vxlan_pkg::OP_DEL) nent_q <= nent_q - 1'b1;
        end
      end
      S_RSP: if (rsp_ready) st_q <= S_IDLE;
      default: st_q <= S_IDLE;
    endcase
    if (rst) begin
      st_q         <= S_INIT;
      init_q       <= '0;
      vni_valid_q  <= '0;
      nent_q       <= '0;
      cnt_add_full <= '0;
    end
  end

  logic res_ev_q, res_hit_q;
  always_ff @(posedge clk) begin
    // a taken result is counted one cycle later
    res_ev_q  <= ra_valid && ra_ready;
    res_hit_q <= any_hit;
    if (res_ev_q) begin
      cnt_lookups  <= cnt_lookups + 1'b1;
      cnt_mac_hits <= cnt_mac_hits + CNT_W'(res_hit_q);
    end
    if (rst) begin
      cnt_lookups  <= '0;
      cnt_mac_hits <= '0;
      res_ev_q     <= 1'b0;
    end
  end

endmodule

`resetall
