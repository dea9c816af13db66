// RUN: mmair-opt %s | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// The a5 (Ascend 950) data-movement forms: DataCopy with Dn2NzParams, enableSmallC0, the plain
// DataCopy GM -> L1 (copy_gm_l1), and
// LoadData with LoadData2DParamsV2 (L1 -> L0 and, load_2d_v2_gm, GM -> L1).
builtin.module attributes {pto.target = "a5"} {
  func.func @k(%at: memref<56x40xf16>, %v: memref<5x3xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c40 = arith.constant 40 : index
    %c48 = arith.constant 48 : index
    %c56 = arith.constant 56 : index
    %l1 = pto.alloc : !pto.tile<l1, 48x64xf16, nz>
    %s = pto.alloc : !pto.tile<l1, 16x16xf16, nd>
    pto.copy_dn2nz %at, %l1[%c0] dn_num %c1 n_value %c40 d_value %c56 src_dn_matrix_stride %c0 src_d_value %c40 dst_nz_c0_stride %c48 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<56x40xf16>, !pto.tile<l1, 48x64xf16, nz>
    // CHECK: pto.copy_dn2nz %at, %l1[%c0] dn_num %c1 n_value %c40 d_value %c56 src_dn_matrix_stride %c0 src_d_value %c40 dst_nz_c0_stride %c48 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<56x40xf16>, !pto.tile<l1, 48x64xf16, nz>
    pto.copy_nd2nz %v, %s[%c0] nd_num %c1 n_value %c5 d_value %c3 src_nd_matrix_stride %c0 src_d_value %c3 dst_nz_c0_stride %c1 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 small_c0 : memref<5x3xf16>, !pto.tile<l1, 16x16xf16, nd>
    // CHECK: pto.copy_nd2nz %v, %s[%c0] nd_num %c1 n_value %c5 d_value %c3 src_nd_matrix_stride %c0 src_d_value %c3 dst_nz_c0_stride %c1 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 small_c0 : memref<5x3xf16>, !pto.tile<l1, 16x16xf16, nd>
    pto.copy_gm_l1 %at[%c40], %l1[%c0] block_count %c3 block_len %c1 src_gap %c0 dst_gap %c1 : memref<56x40xf16>, !pto.tile<l1, 48x64xf16, nz>
    // CHECK: pto.copy_gm_l1 %at[%c40], %l1[%c0] block_count %c3 block_len %c1 src_gap %c0 dst_gap %c1 : memref<56x40xf16>, !pto.tile<l1, 48x64xf16, nz>
    %l0a = pto.alloc : !pto.tile<l0a, 48x64xf16, nz>
    %c4 = arith.constant 4 : index
    pto.load_2d_v2_gm %at[%c40], %l1[%c0] m_start_position %c0 k_start_position %c1 m_step %c3 k_step %c3 src_stride %c5 dst_stride %c3 {sid = 0 : i64} : memref<56x40xf16>, !pto.tile<l1, 48x64xf16, nz>
    // CHECK: pto.load_2d_v2_gm %at[%c40], %l1[%c0] m_start_position %c0 k_start_position %c1 m_step %c3 k_step %c3 src_stride %c5 dst_stride %c3 {sid = 0 : i64} : memref<56x40xf16>, !pto.tile<l1, 48x64xf16, nz>
    pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c3 k_step %c4 src_stride %c3 dst_stride %c3 : !pto.tile<l1, 48x64xf16, nz>, !pto.tile<l0a, 48x64xf16, nz>
    // CHECK: pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c3 k_step %c4 src_stride %c3 dst_stride %c3 : !pto.tile<l1, 48x64xf16, nz>, !pto.tile<l0a, 48x64xf16, nz>
    pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c3 k_step %c3 src_stride %c3 dst_stride %c3 if_transpose {sid = 0 : i64} : !pto.tile<l1, 48x64xf16, nz>, !pto.tile<l0a, 48x64xf16, nz>
    // CHECK: pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c3 k_step %c3 src_stride %c3 dst_stride %c3 if_transpose {sid = 0 : i64} : !pto.tile<l1, 48x64xf16, nz>, !pto.tile<l0a, 48x64xf16, nz>
    func.return
  }
}
