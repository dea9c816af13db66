// RUN: mmair-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One chunk per verifier rule of tcgen05.matmul (the lowering's limits come from
// isa/tcgen05/matmul.py: TMA rows of whole 16-byte units, kinds, the D type per kind).

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
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: b element type = bf16 differs from atype; kind::f16 does not mix f16 and bf16; legal: f16 (equal to atype) [R3]

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
  func.func @f(%a: memref<128x64xi32>, %b: memref<64x64xi32>, %d: memref<128x64xi32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xi32>, memref<64x64xi32>, memref<128x64xi32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: a element type = s32 has no tcgen05.matmul kind; legal: f16, bf16, f32, e4m3, e5m2, e2m3, e3m2, e2m1, s8, u8

// -----
// kind::i8 takes s8 and u8 in any pair, nothing else.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xi8>, %b: memref<64x64xf16>, %d: memref<128x64xi32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<128x64xi8>, memref<64x64xf16>, memref<128x64xi32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: b element type = f16 does not pair with a s8 a (kind::i8); legal: s8, u8

// -----
// R2: kind::i8 accumulates in s32 (i32) only.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xi8>, %b: memref<64x64xui8>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<128x64xi8>, memref<64x64xui8>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: d element type = f32 is not a kind::i8 accumulator; legal: s32 [R2]

// -----
// R3: an f16 D needs f16 operands; bf16 accumulates in f32.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xbf16>, %b: memref<64x64xbf16>, %d: memref<128x64xf16>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xbf16>, memref<64x64xbf16>, memref<128x64xf16>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: d element type = f16 is not legal with atype = bf16; legal: f32 (a bf16 MMA accumulates in f32) [R3]

// -----
// R2: kind::f8f6f4 accumulates in f32 only (the seed tables decide; an f16 D is not accepted).
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf8E4M3FN>, %b: memref<64x64xf8E4M3FN>, %d: memref<128x64xf16>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<128x64xf8E4M3FN>, memref<64x64xf8E4M3FN>, memref<128x64xf16>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: d element type = f16 is not a kind::f8f6f4 accumulator; legal: f32 [R2]

// -----
// R32: kind::i8 exists only on the arch-specific (a) targets.
builtin.module attributes {tcgen05.target = "sm_100f"} {
  func.func @f(%a: memref<128x64xi8>, %b: memref<64x64xi8>, %d: memref<128x64xi32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<128x64xi8>, memref<64x64xi8>, memref<128x64xi32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: kind = i8 is not supported on sm_100f; legal: not i8 (kind::i8 needs sm_100a, sm_110a) [R32]

// -----
// TMA13: a sub-byte f8f6f4 operand is copied as b4x16_p64 / b6x16_p32, whose dims[0] (here K of
// a K-major A) must be whole 128-element units.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x320xf4E2M1FN>, %b: memref<64x320xf4E2M1FN>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<128x320xf4E2M1FN>, memref<64x320xf4E2M1FN>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: a tensor map dims[0] = 320 is not legal; legal: a multiple of 128 (b4x16_p64) [TMA13]

// -----
// R4: the saturate bit is for kind::i8 only (an f16 x f16 matmul has none).
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %d: memref<128x64xf32>) {
    tcgen05.matmul %a, %b, %d saturate : memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: saturate = true is not legal for kind::f16; legal: false (saturate is for kind::i8) [R4]

// -----
// R11: the block-scaled descriptors have no saturate bit.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) saturate : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: saturate = true is not encodable for kind::mxf8f6f4; legal: 0 (the kind::mxf8f6f4 layout has no saturate) [R11]

// -----
// R11: the block-scaled descriptors have no dtype field (D is f32).
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf16>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf16>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: d element type = f16 is not a kind::mxf8f6f4 accumulator; legal: f32 [R11]

// -----
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

// -----
// Block-scaled: the scales must be CUTLASS's scale-factor atoms, not the logical matrix.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<200x7xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<200x7xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: scale_a in the logical layout 200x7 (M x K / 32) is not what tcgen05.cp .32x128b.warpx4 reads: a TMEM lane's 16 bytes are the scales of rows r, r + 32, r + 64, r + 96 for 4 K blocks, 4-byte pieces of 4 rows here (a TMA box row must be 16 bytes, TMA8); legal: the scale-factor atom layout 2x2x32x16 (M / 128 x K / 128 x 32 x 16, CUTLASS's Sm1xxBlockScaledConfig)

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x1x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x1x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op requires scale_b of shape 1x2x32x16 (the scale-factor atoms of N = 80, K = 208), got 1x1x32x16

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E4M3FN>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E4M3FN>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: scale_a element type = e4m3 is not a kind::mxf8f6f4 scale type; legal: ue8m0 [R14]

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) {kind = "f16"} : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: kind = f16 is not a block-scaled kind (the matmul has scale operands); legal: mxf8f6f4, mxf4, mxf4nvf4

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x208xf16>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf16>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: a element type = f16 is not a kind::mxf8f6f4 operand the lowering plans; legal: e4m3, e5m2, e2m3, e3m2, e2m1

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<128x128xf8E4M3FN>, %b: memref<128x128xf8E4M3FN>, %d: memref<128x128xf32>) {
    tcgen05.matmul %a, %b, %d {kind = "mxf8f6f4"} : memref<128x128xf8E4M3FN>, memref<128x128xf8E4M3FN>, memref<128x128xf32>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: kind = mxf8f6f4 needs scale(%sa, %sb) operands; legal: the operand types' kind, or a block-scaled kind with scale operands

// -----
// kind::mxf4 reads both operands K-major: B must be given transposed.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x320xf4E2M1FN>, %b: memref<320x80xf4E2M1FN>, %d: memref<200x80xf32>, %sa: memref<2x3x32x16xf8E8M0FNU>, %sb: memref<1x3x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x320xf4E2M1FN>, memref<320x80xf4E2M1FN>, memref<200x80xf32>, memref<2x3x32x16xf8E8M0FNU>, memref<1x3x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: b layout = as is (B [K, N]) is MN-major, which kind::mxf4 cannot read (no transpose bits); legal: a as is and b transposed (B^T [N, K]) [R15]

// -----
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f(%a: memref<200x320xf4E2M1FN>, %b: memref<80x320xf4E2M1FN>, %d: memref<200x80xf32>, %sa: memref<2x5x32x16xf8E4M3FN>, %sb: memref<1x3x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) transpose_b : memref<200x320xf4E2M1FN>, memref<80x320xf4E2M1FN>, memref<200x80xf32>, memref<2x5x32x16xf8E4M3FN>, memref<1x3x32x16xf8E8M0FNU>
    func.return
  }
}
// CHECK: error: 'tcgen05.matmul' op cannot be lowered: scale_b element type = ue8m0 is not the scale type of scale_a (one scale type per MMA); legal: e4m3 (scale_a's) [R14]
