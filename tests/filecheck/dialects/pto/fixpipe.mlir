// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.fixpipe: nz2nd to GM with each scalar/vector quant family, ReLU, nz2nz to L1.
func.func @fixpipe(%out32: memref<32x32xf32>, %out16: memref<32x32xf16>, %out8: memref<32x32xi8>, %word: i64, %n: index) {
  %c32 = arith.constant 32 : index
  %f = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
  // CHECK: %f = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
  %s = pto.alloc : !pto.tile<l0c, 32x32xi32, nz>
  // CHECK: %s = pto.alloc : !pto.tile<l0c, 32x32xi32, nz>
  %scale = pto.alloc : !pto.tile<l1, 32xui64, nd>
  // CHECK: %scale = pto.alloc : !pto.tile<l1, 32xui64, nd>
  %l1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
  // CHECK: %l1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
  pto.fixpipe %f, %out32, %c32, %c32 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
  // CHECK: pto.fixpipe %f, %out32, %c32, %c32 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
  %c24 = arith.constant 24 : index
  // NZ2ND converts column by column: n need not be a multiple of 16.
  pto.fixpipe %f, %out32, %c32, %c24 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
  // CHECK: pto.fixpipe %f, %out32, %c32, %c24 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
  pto.fixpipe %f, %out16, %c32, %n {quant = "f322f16", relu} : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf16>
  // CHECK: pto.fixpipe %f, %out16, %c32, %n {quant = "f322f16", relu} : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf16>
  pto.fixpipe %s, %out16, %c32, %c32 scalar %word {quant = "deqf16"} : !pto.tile<l0c, 32x32xi32, nz>, memref<32x32xf16>
  // CHECK: pto.fixpipe %s, %out16, %c32, %c32 scalar %word {quant = "deqf16"} : !pto.tile<l0c, 32x32xi32, nz>, memref<32x32xf16>
  pto.fixpipe %s, %out8, %c32, %c32 vector %scale : !pto.tile<l1, 32xui64, nd> {quant = "vreq8"} : !pto.tile<l0c, 32x32xi32, nz>, memref<32x32xi8>
  // CHECK: pto.fixpipe %s, %out8, %c32, %c32 vector %scale : !pto.tile<l1, 32xui64, nd> {quant = "vreq8"} : !pto.tile<l0c, 32x32xi32, nz>, memref<32x32xi8>
  pto.fixpipe %f, %out8, %c32, %c32 scalar %word {quant = "qf322b8_pre", relu} : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xi8>
  // CHECK: pto.fixpipe %f, %out8, %c32, %c32 scalar %word {quant = "qf322b8_pre", relu} : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xi8>
  pto.fixpipe %f, %l1, %c32, %c32 {layout = "nz2nz", quant = "f322f16"} : !pto.tile<l0c, 32x32xf32, nz>, !pto.tile<l1, 32x32xf16, nz>
  // CHECK: pto.fixpipe %f, %l1, %c32, %c32 {layout = "nz2nz", quant = "f322f16"} : !pto.tile<l0c, 32x32xf32, nz>, !pto.tile<l1, 32x32xf16, nz>
  func.return
}

// -----
// a5: NZ2DN (dst is C^T) and L0C -> UB.
builtin.module attributes {pto.target = "a5"} {
  func.func @fixpipe_a5(%outt: memref<64x32xf32>) {
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %f = pto.alloc : !pto.tile<l0c, 32x64xf32, nz>
    // CHECK: %f = pto.alloc : !pto.tile<l0c, 32x64xf32, nz>
    %ub = pto.alloc : !pto.tile<ub, 32x64xbf16, nd>
    // CHECK: %ub = pto.alloc : !pto.tile<ub, 32x64xbf16, nd>
    pto.fixpipe %f, %outt, %c32, %c64 {layout = "nz2dn"} : !pto.tile<l0c, 32x64xf32, nz>, memref<64x32xf32>
    // CHECK: pto.fixpipe %f, %outt, %c32, %c64 {layout = "nz2dn"} : !pto.tile<l0c, 32x64xf32, nz>, memref<64x32xf32>
    pto.fixpipe %f, %ub, %c32, %c64 {quant = "f322bf16"} : !pto.tile<l0c, 32x64xf32, nz>, !pto.tile<ub, 32x64xbf16, nd>
    // CHECK: pto.fixpipe %f, %ub, %c32, %c64 {quant = "f322bf16"} : !pto.tile<l0c, 32x64xf32, nz>, !pto.tile<ub, 32x64xbf16, nd>
    func.return
  }
}
