// RUN: mmair-opt %examples/gemm_f16_128.mlir | filecheck %s --check-prefix=GEMM
// RUN: mmair-opt %examples/gather_mask.mlir | filecheck %s --check-prefix=GATHER
// RUN: mmair-opt %examples/gemm_kloop_double_buffer.mlir | filecheck %s --check-prefix=DB
// The hand-written examples (with their set_flag / wait_flag) verify on their target (a2) and
// print back in custom form.

// GEMM: builtin.module attributes {pto.target = "a2"} {
// GEMM: func.func @gemm(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
// GEMM: pto.mte_gm_l1 %a, %l1_a, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>
// GEMM: pto.mte_gm_l1 %b, %l1_b, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, zz>
// GEMM: pto.set_flag mte2 -> mte1, 0
// GEMM: pto.wait_flag mte2 -> mte1, 0
// GEMM: pto.mte_l1_l0a %l1_a, %l0a, %n128, %n128 : !pto.tile<l1, 128x128xf16, nz>, !pto.tile<l0a, 128x128xf16, zz>
// GEMM: pto.mte_l1_l0b %l1_b, %l0b, %n128, %n128 : !pto.tile<l1, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>
// GEMM: pto.mad %l0a, %l0b, %l0c, %n128, %n128, %n128 : !pto.tile<l0a, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>, !pto.tile<l0c, 128x128xf32, nz>
// GEMM: pto.fixpipe %l0c, %c, %n128, %n128 : !pto.tile<l0c, 128x128xf32, nz>, memref<128x128xf32>

// GATHER: func.func @gather(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {
// GATHER: pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
// GATHER: %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// GATHER: pto.mte_ub_gm %ub_dst, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
// GATHER: func.return %kept : index

// DB:      pto.set_flag mte1 -> mte2, 0
// DB-NEXT: pto.set_flag mte1 -> mte2, 1
// DB-NEXT: pto.set_flag m -> mte1, 0
// DB-NEXT: pto.set_flag m -> mte1, 1
// DB-NEXT: scf.for %k = %c0 to %c256 step %c128 {
// DB:        pto.wait_flag mte1 -> mte2, 0
// DB:        pto.wait_flag mte1 -> mte2, 1
// DB:      pto.wait_flag m -> fix, 0
// DB-NEXT: pto.fixpipe %l0c, %c, %c64, %c64
