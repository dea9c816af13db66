// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.mad, pto.mad_acc, pto.mad_bias on a2 (f16, bf16, s8, f32; padded 30x70x40; GEMV).
func.func @mad(%m: index) {
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %c70 = arith.constant 70 : index
  %c1 = arith.constant 1 : index
  %a = pto.alloc : !pto.tile<l0a, 30x70xf16, zz>
  // CHECK: %a = pto.alloc : !pto.tile<l0a, 30x70xf16, zz>
  %b = pto.alloc : !pto.tile<l0b, 70x40xf16, zn>
  // CHECK: %b = pto.alloc : !pto.tile<l0b, 70x40xf16, zn>
  %c = pto.alloc : !pto.tile<l0c, 30x40xf32, nz>
  // CHECK: %c = pto.alloc : !pto.tile<l0c, 30x40xf32, nz>
  %bias = pto.alloc : !pto.tile<bt, 1x40xf32, nd>
  // CHECK: %bias = pto.alloc : !pto.tile<bt, 1x40xf32, nd>
  pto.mad %a, %b, %c, %c30, %c40, %c70 : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>
  // CHECK: pto.mad %a, %b, %c, %c30, %c40, %c70 : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>
  pto.mad_acc %a, %b, %c, %m, %c40, %c70 : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>
  // CHECK: pto.mad_acc %a, %b, %c, %m, %c40, %c70 : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>
  pto.mad_bias %a, %b, %c, %bias, %c30, %c40, %c70 : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>, !pto.tile<bt, 1x40xf32, nd>
  // CHECK: pto.mad_bias %a, %b, %c, %bias, %c30, %c40, %c70 : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>, !pto.tile<bt, 1x40xf32, nd>
  %v = pto.alloc : !pto.tile<l0a, 1x70xf16, nd>
  // CHECK: %v = pto.alloc : !pto.tile<l0a, 1x70xf16, nd>
  pto.mad %v, %b, %c, %c1, %c40, %c70 : !pto.tile<l0a, 1x70xf16, nd>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>
  // CHECK: pto.mad %v, %b, %c, %c1, %c40, %c70 : !pto.tile<l0a, 1x70xf16, nd>, !pto.tile<l0b, 70x40xf16, zn>, !pto.tile<l0c, 30x40xf32, nz>
  func.return
}

// -----
%c32 = arith.constant 32 : index
%c16 = arith.constant 16 : index
%a8, %b8, %c8, %bias8 = "test.op"() : () -> (!pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 16xi32, nd>)
// CHECK: %a8, %b8, %c8, %bias8 = "test.op"() : () -> (!pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 16xi32, nd>)
pto.mad_bias %a8, %b8, %c8, %bias8, %c16, %c16, %c32 : !pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 16xi32, nd>
// CHECK: pto.mad_bias %a8, %b8, %c8, %bias8, %c16, %c16, %c32 : !pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 16xi32, nd>
%abf, %bbf, %cbf = "test.op"() : () -> (!pto.tile<l0a, 16x16xbf16, zz>, !pto.tile<l0b, 16x16xbf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
// CHECK: %abf, %bbf, %cbf = "test.op"() : () -> (!pto.tile<l0a, 16x16xbf16, zz>, !pto.tile<l0b, 16x16xbf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %abf, %bbf, %cbf, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xbf16, zz>, !pto.tile<l0b, 16x16xbf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: pto.mad %abf, %bbf, %cbf, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xbf16, zz>, !pto.tile<l0b, 16x16xbf16, zn>, !pto.tile<l0c, 16x16xf32, nz>

// -----
// a5 fp8 and hif8; 310p f16 -> f16 accumulation.
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x64xf8E4M3FN, nz>, !pto.tile<l0b, 64x16xf8E5M2, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  // CHECK: %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x64xf8E4M3FN, nz>, !pto.tile<l0b, 64x16xf8E5M2, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  pto.mad %a, %b, %c, %c16, %c16, %c64 : !pto.tile<l0a, 16x64xf8E4M3FN, nz>, !pto.tile<l0b, 64x16xf8E5M2, zn>, !pto.tile<l0c, 16x16xf32, nz>
  // CHECK: pto.mad %a, %b, %c, %c16, %c16, %c64 : !pto.tile<l0a, 16x64xf8E4M3FN, nz>, !pto.tile<l0b, 64x16xf8E5M2, zn>, !pto.tile<l0c, 16x16xf32, nz>
  %h, %hb = "test.op"() : () -> (!pto.tile<l0a, 16x64x!pto.hif8, nz>, !pto.tile<l0b, 64x16x!pto.hif8, zn>)
  // CHECK: %h, %hb = "test.op"() : () -> (!pto.tile<l0a, 16x64x!pto.hif8, nz>, !pto.tile<l0b, 64x16x!pto.hif8, zn>)
  pto.mad_acc %h, %hb, %c, %c16, %c16, %c64 : !pto.tile<l0a, 16x64x!pto.hif8, nz>, !pto.tile<l0b, 64x16x!pto.hif8, zn>, !pto.tile<l0c, 16x16xf32, nz>
  // CHECK: pto.mad_acc %h, %hb, %c, %c16, %c16, %c64 : !pto.tile<l0a, 16x64x!pto.hif8, nz>, !pto.tile<l0b, 64x16x!pto.hif8, zn>, !pto.tile<l0c, 16x16xf32, nz>
}

// -----
builtin.module attributes {pto.target = "310p"} {
  %c16 = arith.constant 16 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>)
  // CHECK: %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>)
  pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>
  // CHECK: pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>
}
// -----
// a5: disable_gemv keeps the nz L0A with m = 1 (GEMV off)
builtin.module attributes {pto.target = "a5"} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  pto.mad %a, %b, %c, %c1, %c16, %c16 disable_gemv : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
  // CHECK: pto.mad %a, %b, %c, %c1, %c16, %c16 disable_gemv : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
  pto.mad_acc %a, %b, %c, %c1, %c16, %c16 disable_gemv : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
  // CHECK: pto.mad_acc %a, %b, %c, %c1, %c16, %c16 disable_gemv : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
}
