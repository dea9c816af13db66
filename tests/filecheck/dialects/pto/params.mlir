// RUN: mmair-opt %s | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// The raw Ascend C parameter forms (copy_nd2nz, load_2d, load_2d_gm, mmad, fixpipe_copy, copy_l1_bt) print as parsed.
builtin.module attributes {pto.target = "a2"} {
  func.func @k(%gm: memref<16x32xf16>, %out: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c23 = arith.constant 23 : index
    %c32 = arith.constant 32 : index
    %l1 = pto.alloc : !pto.tile<l1, 16x32xf16, nz>
    %l0a = pto.alloc : !pto.tile<l0a, 16x32xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 32x16xf16, zn>
    %l0c = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c16 d_value %c23 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x32xf16>, !pto.tile<l1, 16x32xf16, nz>
    // CHECK: pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c16 d_value %c23 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x32xf16>, !pto.tile<l1, 16x32xf16, nz>
    pto.load_2d_gm %gm[%c16], %l1[%c0] start_index %c1 repeat_times %c1 src_stride %c1 dst_gap %c0 {addr_mode = 1 : i64} : memref<16x32xf16>, !pto.tile<l1, 16x32xf16, nz>
    // CHECK: pto.load_2d_gm %gm[%c16], %l1[%c0] start_index %c1 repeat_times %c1 src_stride %c1 dst_gap %c0 {addr_mode = 1 : i64} : memref<16x32xf16>, !pto.tile<l1, 16x32xf16, nz>
    pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<16x32xf16>, !pto.tile<l1, 16x32xf16, nz>
    // CHECK: pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<16x32xf16>, !pto.tile<l1, 16x32xf16, nz>
    pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 16x32xf16, nz>, !pto.tile<l0a, 16x32xf16, zz>
    // CHECK: pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 16x32xf16, nz>, !pto.tile<l0a, 16x32xf16, zz>
    pto.load_2d %l1[%c0], %l0b[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 if_transpose : !pto.tile<l1, 16x32xf16, nz>, !pto.tile<l0b, 32x16xf16, zn>
    // CHECK: pto.load_2d %l1[%c0], %l0b[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 if_transpose : !pto.tile<l1, 16x32xf16, nz>, !pto.tile<l0b, 32x16xf16, zn>
    pto.mmad %l0a, %l0b, %l0c, %c16, %c16, %c32 {unit_flag = 3 : i64} : !pto.tile<l0a, 16x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    // CHECK: pto.mmad %l0a, %l0b, %l0c, %c16, %c16, %c32 {unit_flag = 3 : i64} : !pto.tile<l0a, 16x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.mmad %l0a, %l0b, %l0c, %c16, %c16, %c32 {cmatrix_init_val = false} : !pto.tile<l0a, 16x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    // CHECK: pto.mmad %l0a, %l0b, %l0c, %c16, %c16, %c32 {cmatrix_init_val = false} : !pto.tile<l0a, 16x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.fixpipe_copy %l0c[%c0], %out n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    // CHECK: pto.fixpipe_copy %l0c[%c0], %out n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    %l1s4 = pto.alloc : !pto.tile<l1, 64x64xi4, nz>
    %l0bs4 = pto.alloc : !pto.tile<l0b, 64x64xi4, zn>
    pto.load_2d_transpose %l1s4[%c0], %l0bs4[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 dst_frac_gap %c0 : !pto.tile<l1, 64x64xi4, nz>, !pto.tile<l0b, 64x64xi4, zn>
    // CHECK: pto.load_2d_transpose %l1s4[%c0], %l0bs4[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 dst_frac_gap %c0 : !pto.tile<l1, 64x64xi4, nz>, !pto.tile<l0b, 64x64xi4, zn>
    %l1b = pto.alloc : !pto.tile<l1, 1x32xf32, nd>
    %bt = pto.alloc : !pto.tile<bt, 1x32xf32, nd>
    pto.copy_l1_bt %l1b[%c0], %bt[%c0] block_count %c1 block_len %c1 src_gap %c0 dst_gap %c1 : !pto.tile<l1, 1x32xf32, nd>, !pto.tile<bt, 1x32xf32, nd>
    // CHECK: pto.copy_l1_bt %l1b[%c0], %bt[%c0] block_count %c1 block_len %c1 src_gap %c0 dst_gap %c1 : !pto.tile<l1, 1x32xf32, nd>, !pto.tile<bt, 1x32xf32, nd>
    func.return
  }
}
