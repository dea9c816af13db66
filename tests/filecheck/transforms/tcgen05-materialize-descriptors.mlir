// RUN: mmair-opt %s --split-input-file -p tcgen05-materialize-descriptors | filecheck %s

// Descriptor make-ops become the integer words hardware reads: i32 for the instruction descriptor,
// i64 for shared-memory descriptors and zero-column masks (printed signed). The expected words are
// the descriptor test vectors of the PTX tables (and the PTX zero-column mask examples), written in hex
// in the comments.

// kind::f16 dense, M = 128, N = 256, A and B K-major with the 128-byte swizzle.
func.func @f16_dense(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %a = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, swizzle = sw128>
  %b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0x4000, lbo = 16, sbo = 1024, swizzle = sw128>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @f16_dense
// CHECK-NEXT:    %idesc = arith.constant 138412048 : i32
// CHECK-NEXT:    %a = arith.constant 4611756662049538112 : i64
// CHECK-NEXT:    %b = arith.constant 4611756662049539072 : i64
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
// CHECK-NEXT:    func.return
// 0x08400010 = 138412048; 0x4000404000010040 = 4611756662049538112 (start 0x400 -> code 0x40);
// start 0x4000 -> code 0x400 in place of 0x40: 0x4000404000010400 = 4611756662049538112 + 0x3c0 = 4611756662049539072.

// -----

// bf16 with A MN-major (transpose_a), M = 64, N = 8; A and B through the PTX-example MN-major
// SW32 / SW64 descriptors.
func.func @bf16_mn_major(%d: memref<64x8xf32, #tcgen05.space<tmem>>, %en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = bf16, btype = bf16, m = 64, n = 8, transpose_a = true>
  %a = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0x1000, lbo = 256, sbo = 512, swizzle = sw32>
  %b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 256, sbo = 128, swizzle = none>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<64x8xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @bf16_mn_major
// CHECK-NEXT:    %idesc = arith.constant 67273872 : i32
// CHECK-NEXT:    %a = arith.constant -4611615512243207936 : i64
// CHECK-NEXT:    %b = arith.constant 70403104964608 : i64
// 0x04028490 = 67273872; 0xc000402000100100 - 2^64 = -4611615512243207936; 0x0000400800100000 = 70403104964608.

// -----

// tf32, f8f6f4 (mixed e4m3 x e5m2), f16 -> f16 with negate_a and transpose_b, and a dead make-op
// (it still becomes a constant; nothing else is touched).
func.func @dense_kinds(%d128: memref<128x128xf32, #tcgen05.space<tmem>>, %d64: memref<128x64xf32, #tcgen05.space<tmem>>, %dh: memref<64x16xf16, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %tf32 = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, dtype = f32, atype = tf32, btype = tf32, m = 128, n = 128>
  tcgen05.mma kind(tf32) cta_group(1) %d128, %a, %b, %tf32, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  %f8 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e4m3, btype = e5m2, m = 128, n = 64>
  tcgen05.mma kind(f8f6f4) cta_group(1) %d64, %a, %b, %f8, %en : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  %neg = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f16, atype = f16, btype = f16, m = 64, n = 16, negate_a = true, transpose_b = true>
  tcgen05.mma kind(f16) cta_group(1) %dh, %a, %b, %neg, %en : memref<64x16xf16, #tcgen05.space<tmem>>, i64
  %unused = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e2m1, btype = e3m2, m = 64, n = 8>
  %lanes = arith.constant 7 : i32
  func.return
}

// CHECK-LABEL: func.func @dense_kinds
// CHECK-NEXT:    %tf32 = arith.constant 136317200 : i32
// CHECK-NEXT:    tcgen05.mma kind(tf32)
// CHECK-NEXT:    %f8 = arith.constant 135267344 : i32
// CHECK-NEXT:    tcgen05.mma kind(f8f6f4)
// CHECK-NEXT:    %neg = arith.constant 67444736 : i32
// CHECK-NEXT:    tcgen05.mma kind(f16)
// CHECK-NEXT:    %unused = arith.constant 67244688 : i32
// CHECK-NEXT:    %lanes = arith.constant 7 : i32
// CHECK-NEXT:    func.return
// 0x08200910 = 136317200; 0x08100410 = 135267344; 0x04052000 = 67444736; 0x04021290 = 67244688.

// -----

// kind::i8 with saturation, and a sparse bf16 MMA (sparsity selector 2).
func.func @i8_and_sparse(%di: memref<128x256xi32, #tcgen05.space<tmem>>, %ds: memref<128x128xf32, #tcgen05.space<tmem>>, %meta: memref<128x32xi32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %i8 = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 256, saturate = true>
  tcgen05.mma kind(i8) cta_group(1) %di, %a, %b, %i8, %en : memref<128x256xi32, #tcgen05.space<tmem>>, i64
  %sp = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = bf16, btype = bf16, m = 128, n = 128, sparse = true, sparsity_selector = 2>
  tcgen05.mma kind(f16) cta_group(1) sparse %ds, %a, %b, %sp, %en metadata(%meta) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x32xi32, #tcgen05.space<tmem>>
  func.return
}

// CHECK-LABEL: func.func @i8_and_sparse
// CHECK-NEXT:    %i8 = arith.constant 138412200 : i32
// CHECK-NEXT:    tcgen05.mma kind(i8)
// CHECK-NEXT:    %sp = arith.constant 136316054 : i32
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) sparse %ds, %a, %b, %sp, %en metadata(%meta)
// 0x084000a8 = 138412200; 0x08200496 = 136316054.

// -----

// tcgen05.mma.ws: M = 32 with max_shift 32, and the zero-column masks of PTX examples 2 and 4.
func.func @weight_stationary(%d: memref<32x64xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 32, n = 64, max_shift = 32>
  %zcm2 = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = true, skip = 2, use = 3, shift = 0>
  %zcm4 = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>
  tcgen05.mma kind(f16) cta_group(1) ws %d, %a, %b, %idesc, %en zero_column_mask(%zcm2) : memref<32x64xf32, #tcgen05.space<tmem>>, i64
  tcgen05.mma kind(f16) cta_group(1) ws %d, %a, %b, %idesc, %en zero_column_mask(%zcm4) : memref<32x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @weight_stationary
// CHECK-NEXT:    %idesc = arith.constant -1039138800 : i32
// CHECK-NEXT:    %zcm2 = arith.constant 847173709201408 : i64
// CHECK-NEXT:    %zcm4 = arith.constant 144962374686867712 : i64
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) ws %d, %a, %b, %idesc, %en zero_column_mask(%zcm2)
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) ws %d, %a, %b, %idesc, %en zero_column_mask(%zcm4)
// 0xc2100010 - 2^32 = -1039138800; 0x0003028000000000 = 847173709201408; 0x0203028301020100 = 144962374686867712.

// -----

// cta_group::2: M = 256 f16, and the block-scaled kinds mxf8f6f4 (with scale-factor ids) and mxf4nvf4.
func.func @cta_pair(%d: memref<256x256xf32, #tcgen05.space<tmem>>, %dm: memref<256x128xf32, #tcgen05.space<tmem>>, %sf: memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %f16 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 256>
  tcgen05.mma kind(f16) cta_group(2) %d, %a, %b, %f16, %en : memref<256x256xf32, #tcgen05.space<tmem>>, i64
  %mx8 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e4m3, m = 256, n = 128, scale_type = ue8m0>
  tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale(1X) %dm, %a, %b, %mx8, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %nv = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, atype = e2m1, btype = e2m1, m = 256, n = 128, scale_type = ue4m3>
  tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(4X) %dm, %a, %b, %nv, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %ids = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e2m1, btype = e4m3, m = 128, n = 256, scale_type = ue8m0, sfa_id = 1, sfb_id = 2>
  func.return
}

// CHECK-LABEL: func.func @cta_pair
// CHECK-NEXT:    %f16 = arith.constant 272629776 : i32
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(2)
// CHECK-NEXT:    %mx8 = arith.constant 278921216 : i32
// CHECK-NEXT:    tcgen05.mma kind(mxf8f6f4)
// CHECK-NEXT:    %nv = arith.constant 270533760 : i32
// CHECK-NEXT:    tcgen05.mma kind(mxf4nvf4)
// CHECK-NEXT:    %ids = arith.constant 683672224 : i32
// 0x10400010 = 272629776; 0x10a00000 = 278921216; 0x10200480 = 270533760; 0x28c002a0 = 683672224.
