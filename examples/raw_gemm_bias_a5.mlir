// C = relu(A x B + bias), D += (A x B + bias)^T (atomic add, DN), E = f16(A x B + bias) for 16 x 16 f16
// A, B on an Ascend 950 (a5) cube, written in the raw Ascend C parameter forms: DataCopy with
// DataCopyParams (copy_gm_l1: A and B are one 16-column fractal block, so a row-major copy is
// their Nz image), copy_cbuf_to_bt, LoadData2DParamsV2, Mmad with the bias table and unitFlag,
// and three Fixpipe stores (NZ2ND with ReLU, NZ2DN with atomic add, f32 -> f16 quantization).
//
//   mmair-run examples/raw_gemm_bias_a5.mlir --check-numpy
//   mmair-translate --target ptoas examples/raw_gemm_bias_a5.mlir | mmair-run - --check-numpy
//     (the same kernel as PTOAS VPTO cube micro-ops, docs/ptoas.md "Writing PTOAS")
builtin.module attributes {pto.target = "a5"} {
  func.func @k(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %bias: memref<1x16xf32>, %c: memref<16x16xf32>, %d: memref<16x16xf32>, %e: memref<16x16xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %a1 = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
    %f1 = pto.alloc : !pto.tile<l1, 1x16xf32, nd>
    %bt = pto.alloc : !pto.tile<bt, 1x16xf32, nd>
    %a2 = pto.alloc : !pto.tile<l0a, 16x16xf16, nz>
    %b2 = pto.alloc : !pto.tile<l0b, 16x16xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.copy_gm_l1 %a[%c0], %a1[%c0] block_count %c1 block_len %c16 src_gap %c0 dst_gap %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.copy_gm_l1 %b[%c0], %b1[%c0] block_count %c16 block_len %c1 src_gap %c0 dst_gap %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.copy_gm_l1 %bias[%c0], %f1[%c0] block_count %c1 block_len %c2 src_gap %c0 dst_gap %c0 : memref<1x16xf32>, !pto.tile<l1, 1x16xf32, nd>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.copy_l1_bt %f1[%c0], %bt[%c0] block_count %c1 block_len %c2 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x16xf32, nd>, !pto.tile<bt, 1x16xf32, nd>
    pto.load_2d_v2 %a1[%c0], %a2[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>
    pto.load_2d_v2 %b1[%c0], %b2[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 if_transpose : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mmad %a2, %b2, %acc bias %bt : !pto.tile<bt, 1x16xf32, nd>, %c16, %c16, %c16 {cmatrix_source, unit_flag = 3 : i64} : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe_copy %acc[%c0], %c n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {relu, unit_flag = 3 : i64} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    pto.fixpipe_copy %acc[%c0], %d n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 src_nz_c0_stride %c1 {layout = "nz2dn", atomic = "add"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    pto.fixpipe_copy %acc[%c0], %e n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {quant = "f322f16"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>
    func.return
  }
}
