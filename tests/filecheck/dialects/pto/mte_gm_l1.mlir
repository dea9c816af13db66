// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.mte_gm_l1: ND2NZ into nz (A) and zz (B, seed-NZ staging), runtime sizes, GM windows.
func.func @nd2nz(%a: memref<30x70xf16>, %b: memref<128x64xf16>, %w: memref<16x32xf16, strided<[64, 1], offset: ?>>, %rows: index) {
  %c30 = arith.constant 30 : index
  %c70 = arith.constant 70 : index
  %c32 = arith.constant 32 : index
  %c16 = arith.constant 16 : index
  %l1_a = pto.alloc : !pto.tile<l1, 30x70xf16, nz>
  // CHECK: %l1_a = pto.alloc : !pto.tile<l1, 30x70xf16, nz>
  %l1_b = pto.alloc : !pto.tile<l1, 128x64xf16, zz>
  // CHECK: %l1_b = pto.alloc : !pto.tile<l1, 128x64xf16, zz>
  %l1_w = pto.alloc : !pto.tile<l1, 16x32xf16, nz>
  // CHECK: %l1_w = pto.alloc : !pto.tile<l1, 16x32xf16, nz>
  pto.mte_gm_l1 %a, %l1_a, %c30, %c70 : memref<30x70xf16>, !pto.tile<l1, 30x70xf16, nz>
  // CHECK: pto.mte_gm_l1 %a, %l1_a, %c30, %c70 : memref<30x70xf16>, !pto.tile<l1, 30x70xf16, nz>
  pto.mte_gm_l1 %b, %l1_b, %rows, %c32 : memref<128x64xf16>, !pto.tile<l1, 128x64xf16, zz>
  // CHECK: pto.mte_gm_l1 %b, %l1_b, %rows, %c32 : memref<128x64xf16>, !pto.tile<l1, 128x64xf16, zz>
  pto.mte_gm_l1 %w, %l1_w, %c16, %c32 : memref<16x32xf16, strided<[64, 1], offset: ?>>, !pto.tile<l1, 16x32xf16, nz>
  // CHECK: pto.mte_gm_l1 %w, %l1_w, %c16, %c32 : memref<16x32xf16, strided<[64, 1], offset: ?>>, !pto.tile<l1, 16x32xf16, nz>
  func.return
}

// -----
// a5 DN2NZ: GM holds the transpose (cols x rows).
builtin.module attributes {pto.target = "a5"} {
  func.func @dn2nz(%at: memref<64x32xf16>) {
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %l1 = pto.alloc : !pto.tile<l1, 32x64xf16, nz>
    // CHECK: %l1 = pto.alloc : !pto.tile<l1, 32x64xf16, nz>
    pto.mte_gm_l1 %at, %l1, %c32, %c64 dn2nz : memref<64x32xf16>, !pto.tile<l1, 32x64xf16, nz>
    // CHECK: pto.mte_gm_l1 %at, %l1, %c32, %c64 dn2nz : memref<64x32xf16>, !pto.tile<l1, 32x64xf16, nz>
    func.return
  }
}
