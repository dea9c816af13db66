// RUN: mmair-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One chunk per verifier rule of tcgen05.matmul (the lowering's limits come from
// isa/tcgen05/matmul.py: TMA rows of whole 16-byte units, kinds, the D type).

func.func @f(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %d: memref<128x64xf32>) {
  tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf32>
  func.return
}
// CHECK: matmul_invalid.mlir:6:{{[0-9]+}}: error: 'tcgen05.matmul' op requires a module with the tcgen05.target attribute

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<?x64xf16>, %b: memref<64x64xf16>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d : memref<?x64xf16>, memref<64x64xf16>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op requires a static a shape, got ?x64

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16>, %b: memref<32x64xf16>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<32x64xf16>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op requires b with K = 64 (from a) rows, got shape 32x64

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %d: memref<64x128xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x64xf16>, memref<64x128xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op requires d shape 128x64, got 64x128

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16>, %b: memref<64x64xbf16>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x64xbf16>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: btype = bf16 differs from atype; kind::f16 does not mix f16 and bf16; legal: f16 (equal to atype) [R3]

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16>, %b: memref<64x64xf32>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x64xf32>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: b element type = f32 does not pair with a f16 a (kind::f16); legal: f16, bf16

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xi8>, %b: memref<64x64xi8>, %d: memref<128x64xi32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xi8>, memref<64x64xi8>, memref<128x64xi32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: a element type = s8 has no tcgen05.matmul kind; legal: f16, bf16, f32, e4m3, e5m2

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %d: memref<128x64xf16>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf16>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: d element type = f16 is not a tcgen05.matmul accumulator; legal: f32

// -----
// K = 100 f16: a row of A is 200 bytes, which TMA cannot address (global strides are whole
// 16-byte units).
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x100xf16>, %b: memref<100x72xf16>, %d: memref<200x72xf32>) {
    tcgen05.matmul %a, %b, %d : memref<200x100xf16>, memref<100x72xf16>, memref<200x72xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: a row = 100 x f16 (200 bytes) cannot be a TMA tensor row (the global stride of a given as is); legal: a multiple of 16 bytes [TMA5]

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16, #tcgen05.space<smem>>, %b: memref<64x64xf16>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16, #tcgen05.space<smem>>, memref<64x64xf16>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op requires a in global memory, got memref<128x64xf16, #tcgen05.space<smem>>
