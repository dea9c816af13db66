// RUN: mmair-opt %s --split-input-file -p tcgen05-lower-matmul | filecheck %s

// kind::i8, s8 x u8 -> s32: the operands move as bytes (TMA u8), the descriptor's types are the
// operands' (atype s8, btype u8, dtype s32), the accumulator and the epilogue registers are i32.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @i8(%a: memref<200x112xi8>, %b: memref<112x80xui8>, %d: memref<200x80xi32>) {
    tcgen05.matmul %a, %b, %d : memref<200x112xi8>, memref<112x80xui8>, memref<200x80xi32>
    func.return
  }
}
// CHECK-LABEL: func.func @i8
// CHECK:      %tma_a = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = u8, dims = [112, 200], strides = [112], box = [128, 128], swizzle = sw128> : memref<200x112xi8>
// CHECK-NEXT: %tma_b = tcgen05.make_tensor_map %b, #tcgen05.tensor_map<dtype = u8, dims = [80, 112], strides = [80], box = [128, 128], swizzle = sw128> : memref<112x80xui8>
// CHECK-NEXT: %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 128, transpose_b = true>
// CHECK:      %acc0 = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xi32, #tcgen05.space<tmem>>
// CHECK:      tcgen05.mma kind(i8) cta_group(1) %acc0, %{{.*}}, %{{.*}}, %idesc, %{{.*}} : memref<128x128xi32, #tcgen05.space<tmem>>, i64
// CHECK:      tcgen05.ld shape("32x32b") num(64) warp(0) lane(0) column(0) %acc0 : memref<128x128xi32, #tcgen05.space<tmem>> -> memref<32x64xi32>

// -----

// f16 x f16 -> f16, N = 13 (B given transposed): the accumulator is f16 (one value per TMEM
// cell), loaded .pack::16b into register halves: 8 + 4 + 2 columns, the last load storing 1.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f16(%a: memref<200x104xf16>, %b: memref<13x104xf16>, %d: memref<200x13xf16>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<200x104xf16>, memref<13x104xf16>, memref<200x13xf16>
    func.return
  }
}
// CHECK-LABEL: func.func @f16
// CHECK:      %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f16, atype = f16, btype = f16, m = 128, n = 16>
// CHECK:      %acc0 = tcgen05.alloc cta_group(1) columns(32) : memref<128x16xf16, #tcgen05.space<tmem>>
// CHECK:      tcgen05.mma kind(f16) cta_group(1) %acc0, %{{.*}}, %{{.*}}, %idesc, %{{.*}} : memref<128x16xf16, #tcgen05.space<tmem>>, i64
// CHECK:      %[[R8:.*]] = tcgen05.ld shape("32x32b") num(4) warp(0) lane(0) column(0) pack %acc0 : memref<128x16xf16, #tcgen05.space<tmem>> -> memref<32x8xf16>
// CHECK:      "memref.copy"(%[[R8]], %{{.*}}) : (memref<32x8xf16>, memref<32x8xf16, strided<[13, 1], offset: ?>>) -> ()
// CHECK:      tcgen05.ld shape("32x32b") num(2) warp(0) lane(0) column(8) pack %acc0 : memref<128x16xf16, #tcgen05.space<tmem>> -> memref<32x4xf16>
// CHECK:      %[[R1:.*]] = tcgen05.ld shape("32x32b") num(1) warp(0) lane(0) column(12) pack %acc0 : memref<128x16xf16, #tcgen05.space<tmem>> -> memref<32x2xf16>
// CHECK:      %[[C1:.*]] = memref.subview %[[R1]][0, 0] [32, 1] [1, 1] : memref<32x2xf16> to memref<32x1xf16, strided<[2, 1]>>
// CHECK:      "memref.copy"(%[[C1]], %{{.*}}) : (memref<32x1xf16, strided<[2, 1]>>, memref<32x1xf16, strided<[13, 1], offset: ?>>) -> ()
