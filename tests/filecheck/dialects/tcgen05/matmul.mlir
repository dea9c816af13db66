// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// tcgen05.matmul: GM operands of any static M, N, K in a tcgen05.target module; f16/bf16
// (kind::f16), f32 (kind::tf32), e4m3/e5m2 and the sub-byte e2m3/e3m2/e2m1 (kind::f8f6f4), s8/u8
// (kind::i8, with the saturate unit attribute); transposes as unit attributes.
// Errors: matmul_invalid.mlir; the lowering: transforms/tcgen05-lower-matmul.mlir.

builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @matmul(%a: memref<200x104xf16>, %b: memref<104x72xf16>, %d: memref<200x72xf32>,
                    %at: memref<100x300xf32>, %bt: memref<200x100xf32>, %d2: memref<300x200xf32>,
                    %a8: memref<64x128xf8E4M3FN>, %b8: memref<32x128xf8E5M2>, %d3: memref<64x32xf32>) {
    tcgen05.matmul %a, %b, %d : memref<200x104xf16>, memref<104x72xf16>, memref<200x72xf32>
    tcgen05.matmul %at, %bt, %d2 transpose_a transpose_b : memref<100x300xf32>, memref<200x100xf32>, memref<300x200xf32>
    tcgen05.matmul %a8, %b8, %d3 transpose_b : memref<64x128xf8E4M3FN>, memref<32x128xf8E5M2>, memref<64x32xf32>
    func.return
  }
}
// CHECK:      tcgen05.matmul %a, %b, %d : memref<200x104xf16>, memref<104x72xf16>, memref<200x72xf32>
// CHECK-NEXT: tcgen05.matmul %at, %bt, %d2 transpose_a transpose_b : memref<100x300xf32>, memref<200x100xf32>, memref<300x200xf32>
// CHECK-NEXT: tcgen05.matmul %a8, %b8, %d3 transpose_b : memref<64x128xf8E4M3FN>, memref<32x128xf8E5M2>, memref<64x32xf32>

// -----

builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x256xf4E2M1FN>, %b: memref<72x256xf6E3M2FN>, %d: memref<200x72xf32>,
               %ai: memref<130x112xui8>, %bi: memref<24x112xi8>, %di: memref<130x24xi32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<200x256xf4E2M1FN>, memref<72x256xf6E3M2FN>, memref<200x72xf32>
    tcgen05.matmul %ai, %bi, %di transpose_b saturate : memref<130x112xui8>, memref<24x112xi8>, memref<130x24xi32>
    func.return
  }
}
// CHECK:      tcgen05.matmul %a, %b, %d transpose_b : memref<200x256xf4E2M1FN>, memref<72x256xf6E3M2FN>, memref<200x72xf32>
// CHECK-NEXT: tcgen05.matmul %ai, %bi, %di transpose_b saturate : memref<130x112xui8>, memref<24x112xi8>, memref<130x24xi32>
