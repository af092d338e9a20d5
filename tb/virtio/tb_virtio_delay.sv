// SPDX-License-Identifier: Apache-2.0
//
// tb_virtio_delay: testbench-only fixed-latency stage for an AXI address or
// response channel (valid/ready + payload). Every item leaves `lat` cycles
// after it entered (in order, DEPTH items in flight); lat = 0 is a wire.
// tb_virtio puts it on the AR and B channels to model a host round trip
// (e.g. 250 cycles = 1 us at 250 MHz, a PCIe read).
`default_nettype none

module tb_virtio_delay #(
    parameter int W     = 8,
    parameter int DEPTH = 64
) (
    input  wire logic          clk,
    input  wire logic          rst,
    input  wire logic [15:0]   lat,
    input  wire logic          in_valid,
    output logic               in_ready,
    input  wire logic [W-1:0]  in_data,
    output logic               out_valid,
    input  wire logic          out_ready,
    output logic [W-1:0]       out_data
);
    localparam int AW = $clog2(DEPTH);
    logic [31:0]   now;
    logic [31:0]   ts  [DEPTH];
    logic [W-1:0]  mem [DEPTH];
    logic [AW:0]   wp, rp;
    logic          empty, full, ready_out;

    assign empty     = (wp == rp);
    assign full      = (wp - rp) == (AW+1)'(DEPTH);
    assign ready_out = !empty && (now - ts[rp[AW-1:0]]) >= {16'd0, lat};

    always_comb begin
        if (lat == 16'd0) begin
            out_valid = in_valid;
            out_data  = in_data;
            in_ready  = out_ready;
        end else begin
            out_valid = ready_out;
            out_data  = mem[rp[AW-1:0]];
            in_ready  = !full;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            now <= '0;
            wp  <= '0;
            rp  <= '0;
        end else begin
            now <= now + 32'd1;
            if (lat != 16'd0) begin
                if (in_valid && in_ready) begin
                    mem[wp[AW-1:0]] <= in_data;
                    ts[wp[AW-1:0]]  <= now;
                    wp <= wp + 1'b1;
                end
                if (out_valid && out_ready) rp <= rp + 1'b1;
            end
        end
    end
endmodule

`resetall
