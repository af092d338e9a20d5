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
// cycle, result three cycles after the request (valid/ready on both sides; la_user is
// carried to the result): the VNI slots are compared in the request cycle (match
// vector registered), the MAC ways in the next (hit vector registered), the first
// hitting way and the first matching VNI slot's row are picked in the third and the
// result goes into a result FIFO (ra_* is its head). Handshakes: la_ready is flops
// (a result FIFO slot is reserved per accepted lookup) and cmd_valid (commands first);
// it does not depend on ra_ready.
// Port B (vni [, tunnel index] -> tunnel row, encap path) is a pipeline without
// handshake: rb_* belong to the lb_* presented two cycles earlier (cycle 1: VNI match
// vector, cycle 2: tunnel index; the tunnel row is read from it). rb_tsum is the sum of
// the tunnel's 16-bit address words (2 + 2 for IPv4, 8 + 8 for IPv6: the UDP pseudo
// header part), computed from a TUN ADD and written one cycle after the tunnel (before
// the command's response).
//
// Command port (valid/ready, then one response valid/ready): op ADD/DEL/READ on
// table MAC (by key; ADD overwrites an existing key), VNI or TUN (by cmd_index).
// Commands have priority over lookups (port A pauses for 4 cycles per MAC command:
// read, compare (ways registered), write, response); a command waits until no lookup
// is in the two stages before the result FIFO.
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

  // the lowest set bit of a VNI match vector, one-hot (a carry chain, not a ripple of ORs)
  function automatic logic [VNI_ENTRIES-1:0] vni_first_oh(input logic [VNI_ENTRIES-1:0] m);
    return m & (~m + 1'b1);
  endfunction

  // a VNI row selected by a one-hot slot vector (AND-OR, no index decode)
  function automatic logic [VROW-1:0] vni_row_oh(input logic [VNI_ENTRIES-1:0] oh,
                                                 input logic [VNI_ENTRIES*VROW-1:0] rows);
    logic [VROW-1:0] r;
    r = '0;
    for (int i = 0; i < VNI_ENTRIES; i++) if (oh[i]) r = r | rows[i*VROW +: VROW];
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

  logic [VNI_ENTRIES*24-1:0]   vni_keys_flat;
  logic [VNI_ENTRIES*VROW-1:0] vni_rows_flat;
  always_comb begin
    for (int i = 0; i < VNI_ENTRIES; i++) begin
      vni_keys_flat[i*24 +: 24]     = vni_key_q[i];
      vni_rows_flat[i*VROW +: VROW] = vni_row_q[i];
    end
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
  // the first matching slot's tunnel as kept balanced trees: the one-hot (a carry
  // chain), groups of 3 slots (one LUT per bit), the OR of the groups
  localparam int BG = (VNI_ENTRIES + 2) / 3;
  (* keep *) logic [VNI_ENTRIES-1:0] b1_oh;
  (* keep *) logic [BG*TUN_W-1:0]    b1_part;
  always_comb begin
    b1_oh = vni_first_oh(b1_mvec_q);
    b1_part = '0;
    for (int g = 0; g < BG; g++) begin
      for (int i = 3 * g; i < 3 * g + 3 && i < VNI_ENTRIES; i++) begin
        if (b1_oh[i]) b1_part[g*TUN_W +: TUN_W] = b1_part[g*TUN_W +: TUN_W]
                                                  | vni_row_q[i][VROW-1 -: TUN_W];
      end
    end
    rowb_tun = '0;
    for (int g = 0; g < BG; g++) rowb_tun = rowb_tun | b1_part[g*TUN_W +: TUN_W];
  end
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
  // L0 request (RAM read, VNI match vector) -> L1 (RAM word: the ways compared, the first
  // matching VNI slot as a one-hot) -> L2 (the first hitting way and the VNI row picked)
  // -> result FIFO (ra_*). A lookup is accepted only with a result FIFO slot reserved
  // for it (res_cnt_q: lookups accepted and not yet popped; a pop frees its slot one
  // cycle later), so L1 and L2 never stall and la_ready does not depend on ra_ready.
  localparam int RQ_DEPTH = 4;   // >= the 4 cycles a lookup holds its slot at full rate
  localparam int RQ_W     = $clog2(RQ_DEPTH) + 1;

  typedef struct packed {
    logic [USER_W-1:0] user;
    logic [23:0]       vni;
    logic              vni_hit;
    logic              mac_hit;
    logic              group;
    logic [1:0]        action;
    logic [IDX_W-1:0]  index;
    logic [VROW-1:0]   row;
  } res_t;

  logic              la_fire, cmd_fire, v1_q, v2_q, res_pop, res_pop_q;
  logic [RQ_W-1:0]   res_cnt_q;
  logic [71:0]       lkey_q;
  logic [71:0]       ckey_q;        // the MAC command's key
  logic [23:0]       vni2_q;
  logic              group2_q;
  logic [USER_W-1:0] luser_q, user2_q;
  logic [VNI_ENTRIES-1:0] lmvec_q, vsel2_q;
  logic              vhit2_q;
  logic [WAYS-1:0]   hit2_q;
  logic [1:0]        act2_q [WAYS];
  logic [IDX_W-1:0]  idx2_q [WAYS];

  assign init_done = st_q != S_INIT;
  assign la_ready  = st_q == S_IDLE && !cmd_valid && 32'(res_cnt_q) < RQ_DEPTH;
  assign la_fire   = la_valid && la_ready;
  assign cmd_ready = st_q == S_IDLE && !v1_q && !v2_q;
  assign cmd_fire  = cmd_valid && cmd_ready;

  mac_ent_t ent [WAYS];
  always_comb begin
    for (int w = 0; w < WAYS; w++) begin
      ent[w]   = mac_ent_t'(rd_data[w*EW +: EW]);
    end
  end

  // 72-bit key compares as balanced trees with kept intermediate nets (as in
  // fabnic_cc_match), so that synthesis cannot chain them: 3-bit chunks (one LUT each),
  // groups of 6 chunks (one LUT), then the 4 groups and the valid bit (one LUT).
  // lk_*: the lookup key against each way; ck_*: the command key against each way.
  (* keep *) logic [WAYS*24-1:0] lk_ch, ck_ch;
  (* keep *) logic [WAYS*4-1:0]  lk_grp, ck_grp;
  always_comb begin
    for (int w = 0; w < WAYS; w++) begin
      for (int i = 0; i < 24; i++) begin
        lk_ch[w*24 + i] = ent[w].key[3*i +: 3] == lkey_q[3*i +: 3];
        ck_ch[w*24 + i] = ent[w].key[3*i +: 3] == ckey_q[3*i +: 3];
      end
      for (int k = 0; k < 4; k++) begin
        lk_grp[w*4 + k] = &lk_ch[w*24 + 6*k +: 6];
        ck_grp[w*4 + k] = &ck_ch[w*24 + 6*k +: 6];
      end
    end
  end

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

  always_ff @(posedge clk) begin
    // L0 -> L1
    if (la_fire) begin
      lkey_q  <= {la_vni, la_mac};
      luser_q <= la_user;
      lmvec_q <= vni_mvec(la_vni, vni_valid_q, vni_keys_flat);
    end
    v1_q <= la_fire;
    // L1 -> L2: the ways holding the key, the first matching VNI slot
    v2_q    <= v1_q;
    vni2_q   <= lkey_q[71:48];
    group2_q <= lkey_q[40];
    user2_q <= luser_q;
    vhit2_q <= |lmvec_q;
    vsel2_q <= vni_first_oh(lmvec_q);
    for (int w = 0; w < WAYS; w++) begin
      hit2_q[w] <= ent[w].valid && (&lk_grp[w*4 +: 4]);
      act2_q[w] <= ent[w].action;
      idx2_q[w] <= ent[w].index;
    end
    res_pop_q <= res_pop;
    res_cnt_q <= res_cnt_q + RQ_W'(la_fire) - RQ_W'(res_pop_q);
    if (rst) begin
      v1_q      <= 1'b0;
      v2_q      <= 1'b0;
      res_pop_q <= 1'b0;
      res_cnt_q <= '0;
    end
  end

  // L2: the result (the VNI rows cannot change while a lookup is in L1 or L2: commands
  // wait for both to be empty)
  res_t             r2;
  logic [WAY_W-1:0] hit_way;
  always_comb begin
    hit_way    = way_first(hit2_q);
    r2.user    = user2_q;
    r2.vni     = vni2_q;
    r2.vni_hit = vhit2_q;
    r2.mac_hit = |hit2_q;
    r2.group   = group2_q;
    r2.action  = |hit2_q ? act2_q[hit_way] : fabnic_vxlan_pkg::ACT_NONE;
    r2.index   = |hit2_q ? idx2_q[hit_way] : '0;
    r2.row     = vni_row_oh(vsel2_q, vni_rows_flat);
  end

  res_t                r_out;
  logic                rq_in_ready;
  logic [RQ_W-1:0]     unused_rq_count;
  fabnic_fifo #(.WIDTH($bits(res_t)), .DEPTH(RQ_DEPTH)) u_res (
      .clk, .rst, .in_valid(v2_q), .in_ready(rq_in_ready), .in_data(r2),
      .out_valid(ra_valid), .out_ready(ra_ready), .out_data(r_out),
      .status_count(unused_rq_count)
  );
  assign res_pop = ra_valid && ra_ready;

  // MAC command: S_CMP registers the first way holding the command key and the first
  // free way (one-hot), S_WR writes one of them (the RAM read register holds the set)
  logic [WAYS-1:0]  chit_w, cfree_w, chit_oh_q, cfree_oh_q;
  logic             c_hit, c_free;
  logic [1:0]       c_act;
  logic [IDX_W-1:0] c_idx;
  always_comb begin
    for (int w = 0; w < WAYS; w++) begin
      chit_w[w]  = ent[w].valid && (&ck_grp[w*4 +: 4]);
      cfree_w[w] = !ent[w].valid;
    end
  end
  always_ff @(posedge clk) begin
    if (st_q == S_CMP) begin
      chit_oh_q  <= chit_w & (~chit_w + 1'b1);
      cfree_oh_q <= cfree_w & (~cfree_w + 1'b1);
    end
  end
  always_comb begin
    c_hit = |chit_oh_q;
    c_free = |cfree_oh_q;
    c_act = '0;
    c_idx = '0;
    for (int w = 0; w < WAYS; w++) begin
      if (chit_oh_q[w]) begin
        c_act = c_act | ent[w].action;
        c_idx = c_idx | ent[w].index;
      end
    end
  end

  assign ra_user       = r_out.user;
  assign ra_vni        = r_out.vni;
  assign ra_vni_hit    = r_out.vni_hit;
  assign ra_mac_hit    = r_out.mac_hit;
  assign ra_group      = r_out.group;
  assign ra_action     = r_out.action;
  assign ra_index      = r_out.index;
  assign ra_vni_tun    = r_out.row[VROW-1 -: TUN_W];
  assign ra_flood_cnt  = r_out.row[O_FC +: FC_W];
  assign ra_flood_list = r_out.row[O_FC-1:0];
  assign ra_rflood_cnt = r_out.row[O_RC +: RFC_W];
  assign ra_rflood_list = r_out.row[O_RL +: RFLOOD_MAX*TUN_W];

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
        wr_be = c_hit ? chit_oh_q : cfree_oh_q;
      end else if (cop_q == fabnic_vxlan_pkg::OP_DEL && c_hit) begin
        wr_en = 1'b1;
        wr_be = chit_oh_q;
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

  // a tunnel's address sum is computed from the command and written one cycle later
  // (in S_RSP, before the response)
  logic             ts_we_q;
  logic [TUN_W-1:0] ts_idx_q;
  logic [19:0]      ts_val_q;
  always_ff @(posedge clk) begin
    if (ts_we_q) tsum_q[ts_idx_q] <= ts_val_q;
  end

  always_ff @(posedge clk) begin
    ts_we_q <= 1'b0;
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
              ts_we_q  <= 1'b1;
              ts_idx_q <= TUN_W'(cmd_index);
              ts_val_q <= tun_sum(cmd_tun.is_ipv6, cmd_tun.src_ip, cmd_tun.dst_ip);
            end else if (cmd_op == fabnic_vxlan_pkg::OP_DEL) begin
              tun_q[TUN_W'(cmd_index)]  <= '0;
              ts_we_q  <= 1'b1;
              ts_idx_q <= TUN_W'(cmd_index);
              ts_val_q <= '0;
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
      ts_we_q      <= 1'b0;
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
    res_ev_q  <= res_pop;
    res_hit_q <= r_out.mac_hit;
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

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    // a lookup always finds its reserved result FIFO slot
    if (!rst && v2_q) assert (rq_in_ready) else $error("fabnic_vswitch_table: result FIFO full");
  end
`endif

endmodule

`resetall
