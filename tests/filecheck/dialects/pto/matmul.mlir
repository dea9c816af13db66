// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.matmul (GM operands of any static M, N, K; optional transposes and bias), pto.mte_l1_bt
// (the bias row L1 -> BT) and 1-D GM vectors for pto.mte_gm_l1. Errors: matmul_invalid.mlir.

builtin.module attributes {pto.target = "a2"} {
  func.func @matmul(%a: memref<300x100xf16>, %b: memref<100x200xf16>, %c: memref<300x200xf32>,
                    %at: memref<100x300xbf16>, %bt: memref<200x100xbf16>, %c16: memref<300x200xbf16>,
                    %bias: memref<200xf32>, %bias2: memref<1x200xf32>,
                    %a8: memref<7x9xi8>, %b8: memref<9x5xi8>, %c32: memref<7x5xi32>, %bias8: memref<5xi32>) {
    pto.matmul %a, %b, %c : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
    pto.matmul %at, %bt, %c16 transpose_a transpose_b : memref<100x300xbf16>, memref<200x100xbf16>, memref<300x200xbf16>
    pto.matmul %a, %b, %c bias %bias : memref<200xf32> : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
    pto.matmul %a, %b, %c bias %bias2 : memref<1x200xf32> : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
    pto.matmul %a8, %b8, %c32 bias %bias8 : memref<5xi32> : memref<7x9xi8>, memref<9x5xi8>, memref<7x5xi32>
    func.return
  }
}
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:    pto.matmul %a, %b, %c : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
// CHECK-NEXT:    pto.matmul %at, %bt, %c16 transpose_a transpose_b : memref<100x300xbf16>, memref<200x100xbf16>, memref<300x200xbf16>
// CHECK-NEXT:    pto.matmul %a, %b, %c bias %bias : memref<200xf32> : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
// CHECK-NEXT:    pto.matmul %a, %b, %c bias %bias2 : memref<1x200xf32> : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
// CHECK-NEXT:    pto.matmul %a8, %b8, %c32 bias %bias8 : memref<5xi32> : memref<7x9xi8>, memref<9x5xi8>, memref<7x5xi32>

// -----

// a5: fp8 operands (mixed e4m3 x e5m2) and a transposed A.
builtin.module attributes {pto.target = "a5"} {
  func.func @fp8(%a: memref<33x40xf8E4M3FN>, %b: memref<33x17xf8E5M2>, %c: memref<40x17xf16>) {
    pto.matmul %a, %b, %c transpose_a : memref<33x40xf8E4M3FN>, memref<33x17xf8E5M2>, memref<40x17xf16>
    func.return
  }
}
// CHECK-LABEL: func.func @fp8
// CHECK-NEXT:    pto.matmul %a, %b, %c transpose_a : memref<33x40xf8E4M3FN>, memref<33x17xf8E5M2>, memref<40x17xf16>

// -----

func.func @bias_move(%v: memref<40xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %l1 = pto.alloc : !pto.tile<l1, 1x48xf32, nd>
  %bt = pto.alloc : !pto.tile<bt, 1x48xf32, nd>
  pto.mte_gm_l1 %v, %l1, %c1, %c40 : memref<40xf32>, !pto.tile<l1, 1x48xf32, nd>
  pto.mte_l1_bt %l1, %bt, %n : !pto.tile<l1, 1x48xf32, nd>, !pto.tile<bt, 1x48xf32, nd>
  func.return
}
// CHECK-LABEL: func.func @bias_move
// CHECK:         pto.mte_gm_l1 %v, %l1, %c1, %c40 : memref<40xf32>, !pto.tile<l1, 1x48xf32, nd>
// CHECK-NEXT:    pto.mte_l1_bt %l1, %bt, %n : !pto.tile<l1, 1x48xf32, nd>, !pto.tile<bt, 1x48xf32, nd>
