// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.mte_l1_l0a: nz -> zz (a2), a source window, a transposed source, GEMV, runtime sizes.
func.func @l0a(%m: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %l1 = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
  // CHECK: %l1 = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
  %l0a = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
  // CHECK: %l0a = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
  pto.mte_l1_l0a %l1, %l0a, %c32, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  // CHECK: pto.mte_l1_l0a %l1, %l0a, %c32, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  pto.mte_l1_l0a %l1[%c32, %c16], %l0a, %c32, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  // CHECK: pto.mte_l1_l0a %l1[%c32, %c16], %l0a, %c32, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  pto.mte_l1_l0a %l1[%c0, %c32], %l0a, %c16, %c32 transpose : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  // CHECK: pto.mte_l1_l0a %l1[%c0, %c32], %l0a, %c16, %c32 transpose : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  pto.mte_l1_l0a %l1, %l0a, %m, %k : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  // CHECK: pto.mte_l1_l0a %l1, %l0a, %m, %k : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
  %vec = pto.alloc : !pto.tile<l1, 1x256xf16, nd>
  // CHECK: %vec = pto.alloc : !pto.tile<l1, 1x256xf16, nd>
  %gemv = pto.alloc : !pto.tile<l0a, 1x256xf16, nd>
  // CHECK: %gemv = pto.alloc : !pto.tile<l0a, 1x256xf16, nd>
  pto.mte_l1_l0a %vec, %gemv, %c1, %c256 : !pto.tile<l1, 1x256xf16, nd>, !pto.tile<l0a, 1x256xf16, nd>
  // CHECK: pto.mte_l1_l0a %vec, %gemv, %c1, %c256 : !pto.tile<l1, 1x256xf16, nd>, !pto.tile<l0a, 1x256xf16, nd>
  func.return
}

// -----
// a5: L0A is nz; an f32 transpose on whole 16x16 blocks.
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %l1 = pto.alloc : !pto.tile<l1, 16x32xf32, nz>
  // CHECK: %l1 = pto.alloc : !pto.tile<l1, 16x32xf32, nz>
  %l0a = pto.alloc : !pto.tile<l0a, 32x16xf32, nz>
  // CHECK: %l0a = pto.alloc : !pto.tile<l0a, 32x16xf32, nz>
  pto.mte_l1_l0a %l1, %l0a, %c32, %c16 transpose : !pto.tile<l1, 16x32xf32, nz>, !pto.tile<l0a, 32x16xf32, nz>
  // CHECK: pto.mte_l1_l0a %l1, %l0a, %c32, %c16 transpose : !pto.tile<l1, 16x32xf32, nz>, !pto.tile<l0a, 32x16xf32, nz>
}
