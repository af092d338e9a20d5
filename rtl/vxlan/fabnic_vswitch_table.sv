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
// carried to the result). Port B (vni [, tunnel index] -> tunnel row) is
// combinational (encap path).
//
// Command port (valid/ready, then one response valid/ready): op ADD/DEL/READ on
// table MAC (by key; ADD overwrites an existing key), VNI or TUN (by cmd_index).
// Commands have priority over lookups (port A pauses for 3 cycles per MAC command).
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

  function automatic logic [VS_W:0] vni_match(input logic [23:0] vni,
                                              input logic [VNI_ENTRIES-1:0] vld,
                                              input logic [VNI_ENTRIES*24-1:0] keys);
    // {hit, slot}: first valid slot holding vni
    logic [VS_W:0] r;
    r = '0;
    for (int i = VNI_ENTRIES - 1; i >= 0; i--) begin
      if (vld[i] && keys[i*24 +: 24] == vni) r = {1'b1, VS_W'(i)};
    end
    return r;
  endfunction

  logic [VNI_ENTRIES*24-1:0] vni_keys_flat;
  always_comb begin
    for (int i = 0; i < VNI_ENTRIES; i++) vni_keys_flat[i*24 +: 24] = vni_key_q[i];
  end

  // port B
  logic [VS_W:0]   mb;
  logic [TUN_W-1:0] rowb_tun, tb;
  always_comb begin
    mb        = vni_match(lb_vni, vni_valid_q, vni_keys_flat);
    rowb_tun  = vni_row_q[mb[VS_W-1:0]][VROW-1 -: TUN_W];
    tb        = lb_tun_sel ? lb_tun : rowb_tun;
    rb_hit    = mb[VS_W];
    rb_tunnel = tun_q[tb];
  end

  // ---------------------------------------------------------------- MAC RAM
  typedef enum logic [2:0] {S_INIT, S_IDLE, S_CMP, S_RSP} state_t;
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
  logic              lvhit_q;
  logic [VROW-1:0]   lrow_q;
  logic [VS_W:0]     ma;

  assign init_done = st_q != S_INIT;
  assign la_ready  = st_q == S_IDLE && !cmd_valid && (!v_q || ra_ready);
  assign la_fire   = la_valid && la_ready;
  assign cmd_ready = st_q == S_IDLE && !v_q;
  assign cmd_fire  = cmd_valid && cmd_ready;
  assign ma        = vni_match(la_vni, vni_valid_q, vni_keys_flat);

  always_ff @(posedge clk) begin
    if (la_fire) begin
      lkey_q  <= {la_vni, la_mac};
      luser_q <= la_user;
      lvhit_q <= ma[VS_W];
      lrow_q  <= vni_row_q[ma[VS_W-1:0]];
    end
    v_q <= la_fire || (v_q && !ra_ready);
    if (rst) v_q <= 1'b0;
  end

  mac_ent_t ent [WAYS];
  logic [WAYS-1:0] hit_w;
  always_comb begin
    for (int w = 0; w < WAYS; w++) begin
      ent[w]   = mac_ent_t'(rd_data[w*EW +: EW]);
    end
  end

  // lookup result (key from the lookup register, or the command register in S_CMP)
  logic [71:0] ckey_q;
  logic [71:0] cmp_key;
  logic [1:0]  hit_act;
  logic [IDX_W-1:0] hit_idx;
  logic        any_hit;
  logic [WAY_W-1:0] hit_way, free_way;
  logic        any_free;
  always_comb begin
    cmp_key  = st_q == S_CMP ? ckey_q : lkey_q;
    hit_act  = '0;
    hit_idx  = '0;
    any_hit  = 1'b0;
    hit_way  = '0;
    any_free = 1'b0;
    free_way = '0;
    for (int w = WAYS - 1; w >= 0; w--) begin
      hit_w[w] = ent[w].valid && ent[w].key == cmp_key;
      if (hit_w[w]) begin
        hit_act = ent[w].action;
        hit_idx = ent[w].index;
        any_hit = 1'b1;
        hit_way = WAY_W'(w);
      end
      if (!ent[w].valid) begin
        any_free = 1'b1;
        free_way = WAY_W'(w);
      end
    end
  end

  assign ra_valid      = v_q;
  assign ra_user       = luser_q;
  assign ra_vni        = lkey_q[71:48];
  assign ra_vni_hit    = lvhit_q;
  assign ra_mac_hit    = any_hit;
  assign ra_group      = lkey_q[40];
  assign ra_action     = any_hit ? hit_act : fabnic_vxlan_pkg::ACT_NONE;
  assign ra_index      = any_hit ? hit_idx : '0;
  assign ra_vni_tun    = lrow_q[VROW-1 -: TUN_W];
  assign ra_flood_cnt  = lrow_q[O_FC +: FC_W];
  assign ra_flood_list = lrow_q[O_FC-1:0];
  assign ra_rflood_cnt = lrow_q[O_RC +: RFC_W];
  assign ra_rflood_list = lrow_q[O_RL +: RFLOOD_MAX*TUN_W];

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
    end else if (st_q == S_CMP) begin
      if (cop_q == fabnic_vxlan_pkg::OP_ADD && (any_hit || any_free)) begin
        wr_en = 1'b1;
        wr_be[any_hit ? hit_way : free_way] = 1'b1;
      end else if (cop_q == fabnic_vxlan_pkg::OP_DEL && any_hit) begin
        wr_en = 1'b1;
        wr_be[hit_way] = 1'b1;
      end
    end
  end

  logic slot_ok;
  always_comb begin
    slot_ok = cmd_table == fabnic_vxlan_pkg::TBL_VNI ? cmd_index < 16'(VNI_ENTRIES)
                                                     : cmd_index < 16'(TUN_ENTRIES);
  end

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
              tun_q[TUN_W'(cmd_index)] <= fabnic_vxlan_pkg::tunnel_t'(cmd_value[366:0]);
            end else if (cmd_op == fabnic_vxlan_pkg::OP_DEL) begin
              tun_q[TUN_W'(cmd_index)] <= '0;
            end else begin
              rval_q[366:0] <= tun_q[TUN_W'(cmd_index)];
            end
          end else begin
            rstat_q <= fabnic_vxlan_pkg::ST_BAD_CMD;
          end
        end
      end
      S_CMP: begin
        st_q <= S_RSP;
        rval_q[IDX_W-1:0] <= any_hit ? hit_idx : '0;
        rval_q[17:16]     <= any_hit ? hit_act : 2'd0;
        if (cop_q == fabnic_vxlan_pkg::OP_ADD) begin
          if (!any_hit && !any_free) begin
            rstat_q      <= fabnic_vxlan_pkg::ST_FULL;
            cnt_add_full <= cnt_add_full + 1'b1;
          end else if (!any_hit) begin
            nent_q <= nent_q + 1'b1;
          end
        end else begin
          if (!any_hit) rstat_q <= fabnic_vxlan_pkg::ST_NOT_FOUND;
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

  always_ff @(posedge clk) begin
    if (ra_valid && ra_ready) begin
      cnt_lookups  <= cnt_lookups + 1'b1;
      cnt_mac_hits <= cnt_mac_hits + CNT_W'(any_hit);
    end
    if (rst) begin
      cnt_lookups  <= '0;
      cnt_mac_hits <= '0;
    end
  end

endmodule

`resetall
