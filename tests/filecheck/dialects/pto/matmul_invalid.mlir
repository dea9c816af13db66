// RUN: mmair-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One chunk per verifier rule of pto.matmul and pto.mte_l1_bt, and the 1-D form of pto.mte_gm_l1.

// The target needs GM -> L1 ND2NZ and Fixpipe to GM.
builtin.module attributes {pto.target = "310p"} {
  func.func @f(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
    pto.matmul %a, %b, %c : memref<16x16xf16>, memref<16x16xf16>, memref<16x16xf32>
    func.return
  }
}
// CHECK: matmul_invalid.mlir:7:{{[0-9]+}}: error: 'pto.matmul' op matmul is not supported on target 310p (no fixpipe to gm)

// -----
func.func @f(%a: memref<?x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
  pto.matmul %a, %b, %c : memref<?x16xf16>, memref<16x16xf16>, memref<16x16xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires a static a shape, got ?x16

// -----
func.func @f(%a: memref<16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
  pto.matmul %a, %b, %c : memref<16xf16>, memref<16x16xf16>, memref<16x16xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires a memref of rank 2, got rank 1

// -----
func.func @f(%a: memref<8x0xf16>, %b: memref<0x16xf16>, %c: memref<8x16xf32>) {
  pto.matmul %a, %b, %c : memref<8x0xf16>, memref<0x16xf16>, memref<8x16xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires a non-empty a, got shape 8x0

// -----
func.func @f(%a: memref<8x20xf16>, %b: memref<21x16xf16>, %c: memref<8x16xf32>) {
  pto.matmul %a, %b, %c : memref<8x20xf16>, memref<21x16xf16>, memref<8x16xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires b with K = 20 (from a) rows, got shape 21x16

// -----
// transpose_b: B^T[N, K] has K columns
func.func @f(%a: memref<8x20xf16>, %b: memref<16x21xf16>, %c: memref<8x16xf32>) {
  pto.matmul %a, %b, %c transpose_b : memref<8x20xf16>, memref<16x21xf16>, memref<8x16xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires b with K = 20 (from a) columns, got shape 16x21

// -----
// transpose_a: A^T[K, M] = 20 x 8, so C is 8 x 16
func.func @f(%a: memref<20x8xf16>, %b: memref<20x16xf16>, %c: memref<20x16xf32>) {
  pto.matmul %a, %b, %c transpose_a : memref<20x8xf16>, memref<20x16xf16>, memref<20x16xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires c shape 8x16, got 20x16

// -----
func.func @f(%a: memref<8x8xf16>, %b: memref<8x8xbf16>, %c: memref<8x8xf32>) {
  pto.matmul %a, %b, %c : memref<8x8xf16>, memref<8x8xbf16>, memref<8x8xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires (a, b) element types in [(bf16, bf16), (f16, f16), (f32, f32), (s4, s4), (s8, s8)] on target a2, got (f16, bf16)

// -----
func.func @f(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xi8>) {
  pto.matmul %a, %b, %c : memref<8x8xf16>, memref<8x8xf16>, memref<8x8xi8>
  func.return
}
// CHECK: error: 'pto.matmul' op requires c element type in [bf16, f16, f32] for a f32 accumulator on target a2, got s8

// -----
func.func @f(%a: memref<8x8xi8>, %b: memref<8x8xi8>, %c: memref<8x8xf16>) {
  pto.matmul %a, %b, %c : memref<8x8xi8>, memref<8x8xi8>, memref<8x8xf16>
  func.return
}
// CHECK: error: 'pto.matmul' op requires c element type in [s32] for a s32 accumulator on target a2, got f16

// -----
// s4 A^T would be transposed inside its fractals on the way to L0A: a2 transposes 4-bit data
// only into L0B (LoadDataWithTranspose b4 squares), so B may come as is but A may not.
func.func @f(%a: memref<64x8xi4>, %b: memref<64x8xi4>, %c: memref<8x8xi32>) {
  pto.matmul %a, %b, %c transpose_a : memref<64x8xi4>, memref<64x8xi4>, memref<8x8xi32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires a fractal transpose of 4-bit elements (s4) to load a, which is not supported on target a2 (transposable widths [16, 32, 8])

// -----
// No bias form for s4 (Ascend C Mmad type table, docs/ascend.md).
func.func @f(%a: memref<8x64xi4>, %b: memref<8x64xi4>, %c: memref<8x8xi32>, %bias: memref<8xi32>) {
  pto.matmul %a, %b, %c transpose_b bias %bias : memref<8xi32> : memref<8x64xi4>, memref<8x64xi4>, memref<8x8xi32>
  func.return
}
// CHECK: error: 'pto.matmul' op matmul with bias is not supported for (s4, s4) -> s32 on target a2

// -----
func.func @f(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf32>, %bias: memref<2x8xf32>) {
  pto.matmul %a, %b, %c bias %bias : memref<2x8xf32> : memref<8x8xf16>, memref<8x8xf16>, memref<8x8xf32>
  func.return
}
// CHECK: error: 'pto.matmul' op requires bias shape 8 or 1x8, got 2x8

// -----
func.func @f(%a: memref<8x8xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf16>, %bias: memref<8xf16>) {
  pto.matmul %a, %b, %c bias %bias : memref<8xf16> : memref<8x8xf16>, memref<8x8xf16>, memref<8x8xf16>
  func.return
}
// CHECK: error: 'pto.matmul' op requires bias element type f32 (the accumulator type), got f16

// -----
func.func @f() {
  %c8 = arith.constant 8 : index
  %l1 = pto.alloc : !pto.tile<l1, 1x16xf32, nd>
  %bt = pto.alloc : !pto.tile<bt, 1x16xi32, nd>
  pto.mte_l1_bt %l1, %bt, %c8 : !pto.tile<l1, 1x16xf32, nd>, !pto.tile<bt, 1x16xi32, nd>
  func.return
}
// CHECK: error: 'pto.mte_l1_bt' op requires src element type in [s32] for a s32 bias (the same type, or a conversion of the bias load on target a2), got f32

// -----
func.func @f() {
  %c8 = arith.constant 8 : index
  %l1 = pto.alloc : !pto.tile<l1, 16x16xf32, nz>
  %bt = pto.alloc : !pto.tile<bt, 1x16xf32, nd>
  pto.mte_l1_bt %l1, %bt, %c8 : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<bt, 1x16xf32, nd>
  func.return
}
// CHECK: error: 'pto.mte_l1_bt' op requires src layout nd (a bias row), got nz

// -----
func.func @f() {
  %c8 = arith.constant 8 : index
  %l1 = pto.alloc : !pto.tile<l1, 1x32xf16, nd>
  %bt = pto.alloc : !pto.tile<bt, 1x32xf16, nd>
  pto.mte_l1_bt %l1, %bt, %c8 : !pto.tile<l1, 1x32xf16, nd>, !pto.tile<bt, 1x32xf16, nd>
  func.return
}
// CHECK: error: 'pto.mte_l1_bt' op requires element type in [f32, s32] (the bias types) on target a2, got f16

// -----
func.func @f() {
  %c20 = arith.constant 20 : index
  %l1 = pto.alloc : !pto.tile<l1, 1x16xf32, nd>
  %bt = pto.alloc : !pto.tile<bt, 1x16xf32, nd>
  pto.mte_l1_bt %l1, %bt, %c20 : !pto.tile<l1, 1x16xf32, nd>, !pto.tile<bt, 1x16xf32, nd>
  func.return
}
// CHECK: error: 'pto.mte_l1_bt' op requires src tile of at least 1x20 (1 x n), got 1x16

// -----
builtin.module attributes {pto.target = "910"} {
  func.func @f(%l1: !pto.tile<l1, 1x16xf32, nd>, %n: index) {
    %bt = "test.op"() : () -> !pto.tile<l1, 1x16xf32, nd>
    pto.mte_l1_bt %l1, %bt, %n : !pto.tile<l1, 1x16xf32, nd>, !pto.tile<l1, 1x16xf32, nd>
    func.return
  }
}
// CHECK: error: 'pto.mte_l1_bt' op mte_l1_bt is not supported on target 910

// -----
// A 1-D GM vector is one row.
func.func @f(%v: memref<40xf32>) {
  %c2 = arith.constant 2 : index
  %c40 = arith.constant 40 : index
  %l1 = pto.alloc : !pto.tile<l1, 2x48xf32, nd>
  pto.mte_gm_l1 %v, %l1, %c2, %c40 : memref<40xf32>, !pto.tile<l1, 2x48xf32, nd>
  func.return
}
// CHECK: error: 'pto.mte_gm_l1' op requires rows = 1 for a 1-D src memref, got 2

// -----
func.func @f(%v: memref<40xf32>) {
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %l1 = pto.alloc : !pto.tile<l1, 1x48xf32, nd>
  pto.mte_gm_l1 %v, %l1, %c1, %c48 : memref<40xf32>, !pto.tile<l1, 1x48xf32, nd>
  func.return
}
// CHECK: error: 'pto.mte_gm_l1' op requires src of at least 48 elements (cols), got 40
