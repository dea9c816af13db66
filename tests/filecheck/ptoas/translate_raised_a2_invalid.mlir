// RUN: mmair-opt %s --split-input-file --verify-diagnostics -p 'pto-raise-params{strict=true}' 2>&1 | filecheck %s
// RUN: sed -n '/^builtin.module/,/^}/p' %s | sed '/^}/q' | not mmair-translate --target ptoas - 2>&1 | filecheck %s --check-prefix=TRANSLATE
// A raw walk no tile-level op expands to has no PTOAS spelling on a2: one diagnostic at the op,
// naming the field whose value no tile-level op's expansion writes (mmair-translate --target
// ptoas refuses it the same way).

// TRANSLATE: {{.*}}:8:5: error: 'pto.copy_nd2nz' op is a raw walk whose pto.copy_nd2nz dst_nz_c0_stride = 48 no tile-level op's expansion writes (the nearest tile-level op writes 32): it has no PTOAS tile-level spelling on target a2
// TRANSLATE-NOT: Traceback

builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<32x32xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %a_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, nz>
    pto.copy_nd2nz %a, %a_l1[%c0] nd_num %c1 n_value %c32 d_value %c32 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c48 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}
// CHECK: {{.*}}translate_raised_a2_invalid.mlir:17:5: error: 'pto.copy_nd2nz' op is a raw walk whose pto.copy_nd2nz dst_nz_c0_stride = 48 no tile-level op's expansion writes (the nearest tile-level op writes 32): it has no PTOAS tile-level spelling on target a2

// -----
builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<32x32xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %a_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, nz>
    pto.copy_gm_l1 %a[%c0], %a_l1[%c0] block_count %c1 block_len %c64 src_gap %c0 dst_gap %c0 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}
// CHECK: {{.*}}translate_raised_a2_invalid.mlir:30:5: error: 'pto.copy_gm_l1' op is a raw pto.copy_gm_l1, which no tile-level op's expansion writes: it has no PTOAS tile-level spelling on target a2
