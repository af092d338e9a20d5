// SPDX-License-Identifier: Apache-2.0
//
// fabnic_vxlan_pkg: types and constants of the VTEP (VXLAN encap/decap) and the
// vSwitch table. See docs/vxlan.md.
`default_nettype none

package fabnic_vxlan_pkg;

  // vSwitch MAC-table actions
  localparam logic [1:0] ACT_NONE   = 2'd0;  // (miss)
  localparam logic [1:0] ACT_LOCAL  = 2'd1;  // deliver to local virtio queue pair idx
  localparam logic [1:0] ACT_UPLINK = 2'd2;  // send to the uplink with tunnel idx
  localparam logic [1:0] ACT_ROCE   = 2'd3;  // hand to the RoCE engine

  // table command interface
  localparam logic [1:0] OP_ADD  = 2'd0;
  localparam logic [1:0] OP_DEL  = 2'd1;
  localparam logic [1:0] OP_READ = 2'd2;

  localparam logic [1:0] TBL_MAC = 2'd0;     // key {vni, mac}, hashed
  localparam logic [1:0] TBL_VNI = 2'd1;     // slot cmd_index, key vni
  localparam logic [1:0] TBL_TUN = 2'd2;     // slot cmd_index

  localparam logic [1:0] ST_OK        = 2'd0;
  localparam logic [1:0] ST_FULL      = 2'd1; // all ways of the set are in use
  localparam logic [1:0] ST_NOT_FOUND = 2'd2;
  localparam logic [1:0] ST_BAD_CMD   = 2'd3; // bad op/table or slot index out of range

  localparam logic [7:0] VXLAN_FLAG_I = 8'h08;

  // Tunnel (outer header) parameters, one row of the tunnel table.
  typedef struct packed {
    logic         is_ipv6;
    logic [127:0] src_ip;    // local VTEP address (IPv4 in bits 31:0)
    logic [127:0] dst_ip;    // remote VTEP address
    logic [47:0]  src_mac;   // outer source MAC (our port)
    logic [47:0]  dst_mac;   // outer destination MAC (next hop / remote VTEP)
    logic [7:0]   ttl;       // TTL / hop limit
    logic [5:0]   dscp;
  } tunnel_t;

  // Sideband of a decapsulated inner frame (constant for the frame).
  typedef struct packed {
    logic [23:0]  vni;
    logic         outer_ipv6;
    logic [127:0] outer_src_ip;   // remote VTEP (IPv4 in bits 31:0)
    logic [15:0]  outer_src_port; // the remote's entropy port
    logic [1:0]   outer_ecn;      // outer ECN (CE = congestion seen in the underlay)
  } decap_sb_t;

endpackage

`resetall
