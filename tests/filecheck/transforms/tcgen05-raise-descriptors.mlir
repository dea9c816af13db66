// RUN: mmair-opt %s --split-input-file --disable-verify -p tcgen05-raise-descriptors | filecheck %s
// RUN: mmair-opt %s --split-input-file --disable-verify -p tcgen05-raise-descriptors | mmair-opt --split-input-file --verify-diagnostics | filecheck %s --check-prefix=VERIFY

// Constant descriptor words, as another compiler dumps them, become make-ops with attributes. The
// words are descriptor test vectors of the PTX tables; the expected fields are the ones the
// reference lists for them. The first RUN line shows what the pass produces (without verifying),
// the second feeds that to the verifier: raised words are checked field by field, and words the
// pass cannot raise are left as constants, which the mma verifier reports with the raw word.

// A foreign dump of a kind::f16 GEMM step: descriptors are plain integers (signed decimal, as MLIR
// prints them), and the A descriptor is advanced along K by adding to its start-address field.
func.func @foreign_f16_gemm(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %en: i1) {
  %0 = arith.constant 138412048 : i32
  %1 = arith.constant 4611756662049538112 : i64
  %2 = arith.constant 4611756662049539072 : i64
  %3 = arith.constant 2 : i64
  tcgen05.mma kind(f16) cta_group(1) %d, %1, %2, %0, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  %4 = arith.addi %1, %3 : i64
  tcgen05.mma kind(f16) cta_group(1) %d, %4, %2, %0, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @foreign_f16_gemm
// CHECK-NEXT:    %0 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// CHECK-NEXT:    %1 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT:    %2 = arith.constant 4611756662049538112 : i64
// CHECK-NEXT:    %3 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 16384, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT:    %4 = arith.constant 2 : i64
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) %d, %1, %3, %0, %en
// CHECK-NEXT:    %5 = arith.addi %2, %4 : i64
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) %d, %5, %3, %0, %en
// CHECK-NEXT:    func.return
// The A word also feeds arith.addi, so it stays and the mma gets its own make-op.
// The valid chunks (up to @reserved_bit) all verify after raising.
// VERIFY-LABEL: func.func @foreign_f16_gemm
// VERIFY-NOT:     error:
// VERIFY:         func.func @weight_stationary
// VERIFY:         func.return
// VERIFY-NEXT:  }
// VERIFY-NEXT: }
// VERIFY-NEXT: // {{[-]+}}

// -----

// Named values and hex words; the reference vectors of the other dense kinds. A word's idesc kind
// comes from the mma that reads it.
func.func @dense_kinds(%d: memref<128x64xf32, #tcgen05.space<tmem>>, %dh: memref<64x16xf16, #tcgen05.space<tmem>>, %di: memref<128x256xi32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %f8 = arith.constant 0x08100410 : i32
  tcgen05.mma kind(f8f6f4) cta_group(1) %d, %a, %b, %f8, %en : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  %neg = arith.constant 0x04052000 : i32
  tcgen05.mma kind(f16) cta_group(1) %dh, %a, %b, %neg, %en : memref<64x16xf16, #tcgen05.space<tmem>>, i64
  %i8 = arith.constant 0x084000a8 : i32
  tcgen05.mma kind(i8) cta_group(1) %di, %a, %b, %i8, %en : memref<128x256xi32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @dense_kinds
// CHECK-NEXT:    %f8 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e4m3, btype = e5m2, m = 128, n = 64>
// CHECK-NEXT:    tcgen05.mma kind(f8f6f4)
// CHECK-NEXT:    %neg = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f16, atype = f16, btype = f16, m = 64, n = 16, transpose_b = true, negate_a = true>
// CHECK-NEXT:    tcgen05.mma kind(f16)
// CHECK-NEXT:    %i8 = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 256, saturate = true>
// CHECK-NEXT:    tcgen05.mma kind(i8)

// -----

// One word, two roles. 0x08400010 read by a kind::f16 mma is f16 x f16, by a kind::f8f6f4 mma
// e4m3 x e4m3 (type code 0 in both tables): one make_idesc per kind. An i32 word that is also a
// disable-output-lane mask keeps its constant for that use.
func.func @two_kinds(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %w = arith.constant 0x08400010 : i32
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %w, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  tcgen05.mma kind(f8f6f4) cta_group(1) %d, %a, %b, %w, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %w, %en disable_output_lane(%w, %w, %w, %w) : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @two_kinds
// CHECK-NEXT:    %w_idesc_f16 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// CHECK-NEXT:    %w_idesc_f8f6f4 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e4m3, btype = e4m3, m = 128, n = 256>
// CHECK-NEXT:    %w = arith.constant 138412048 : i32
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %w_idesc_f16, %en
// CHECK-NEXT:    tcgen05.mma kind(f8f6f4) cta_group(1) %d, %a, %b, %w_idesc_f8f6f4, %en
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %w_idesc_f16, %en disable_output_lane(%w, %w, %w, %w)

// -----

// An i64 word read both as the B shared-memory descriptor and as the zero-column mask of a .ws mma
// (the PTX K-major tf32 example descriptor 0x0000400800100000 also decodes as a mask): one make-op
// per role, and the constant goes away.
func.func @smem_and_zcmask(%d: memref<64x64xf32, #tcgen05.space<tmem>>, %a: i64, %en: i1) {
  %w = arith.constant 0x0000400800100000 : i64
  %idesc = arith.constant 0x04100910 : i32
  tcgen05.mma kind(tf32) cta_group(1) ws %d, %a, %w, %idesc, %en zero_column_mask(%w) : memref<64x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @smem_and_zcmask
// CHECK-NEXT:    %w_smem_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 256, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
// CHECK-NEXT:    %w_zcmask = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 0, 16, 0], first = [0, 0, 0, 1], nonzero = false, skip = 64, use = 0, shift = 0>
// CHECK-NEXT:    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, dtype = f32, atype = tf32, btype = tf32, m = 64, n = 64>
// CHECK-NEXT:    tcgen05.mma kind(tf32) cta_group(1) ws %d, %a, %w_smem_desc, %idesc, %en zero_column_mask(%w_zcmask)
// CHECK-NEXT:    func.return

// -----

// Block-scaled kinds on a CTA pair, and the .ws zero-column mask of PTX example 4.
func.func @block_scaled(%d: memref<256x128xf32, #tcgen05.space<tmem>>, %sf: memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %nv = arith.constant 270533760 : i32
  tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(4X) %d, %a, %b, %nv, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %mx8 = arith.constant 278921216 : i32
  tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale(1X) %d, %a, %b, %mx8, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}

// CHECK-LABEL: func.func @block_scaled
// CHECK-NEXT:    %nv = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, atype = e2m1, btype = e2m1, m = 256, n = 128, scale_type = ue4m3>
// CHECK-NEXT:    tcgen05.mma kind(mxf4nvf4)
// CHECK-NEXT:    %mx8 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e4m3, m = 256, n = 128, scale_type = ue8m0>
// CHECK-NEXT:    tcgen05.mma kind(mxf8f6f4)

// -----

func.func @weight_stationary(%d: memref<32x64xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %idesc = arith.constant -1039138800 : i32
  %zcm = arith.constant 144962374686867712 : i64
  tcgen05.mma kind(f16) cta_group(1) ws %d, %a, %b, %idesc, %en zero_column_mask(%zcm) : memref<32x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @weight_stationary
// CHECK-NEXT:    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 32, n = 64, max_shift = 32>
// CHECK-NEXT:    %zcm = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>

// -----

// Invalid words. Reserved idesc bit 6 (R1) does not decode: the word stays a constant and the mma
// verifier reports it with the word.
func.func @reserved_bit(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %idesc = arith.constant 0x08400050 : i32
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @reserved_bit
// CHECK-NEXT:    %idesc = arith.constant 138412112 : i32
// VERIFY-NEXT: <stdin>:{{[0-9]+}}:5: error: 'tcgen05.mma' op idesc 0x08400050: reserved bits = 0x00000040 are set in a kind::f16 descriptor; legal: bits 6, 23, 29 = 0 [R1]

// -----

// Swizzle code 3 (R18) in a B descriptor: stays a constant; the A word next to it is raised.
func.func @bad_swizzle(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %en: i1) {
  %idesc = arith.constant 0x08400010 : i32
  %a = arith.constant 0x4000404000010040 : i64
  %b = arith.constant 0x6000404000010400 : i64
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @bad_swizzle
// CHECK-NEXT:    %idesc = tcgen05.make_idesc
// CHECK-NEXT:    %a = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024,
// CHECK-NEXT:    %b = arith.constant 6917599671263233024 : i64
// VERIFY: error: 'tcgen05.mma' op b descriptor 0x6000404000010400: {{.*}}[R18]

// -----

// dtype s32 under kind::f8f6f4 decodes but breaks R2 for every instruction (PTX Table 39): no
// attribute can hold it, so it stays a constant and the verifier reports the rule.
func.func @context_free_rule(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %idesc = arith.constant 0x08400020 : i32
  tcgen05.mma kind(f8f6f4) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @context_free_rule
// CHECK-NEXT:    %idesc = arith.constant 138412064 : i32
// VERIFY: error: 'tcgen05.mma' op idesc: dtype = s32 is not a kind::f8f6f4 accumulator type; legal: f32 [R2]

// -----

// M = 256 is a valid descriptor that needs cta_group::2 (R7): it is raised, and the verifier reports
// the make-op form against the mma.
func.func @needs_cta_pair(%d: memref<256x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %idesc = arith.constant 0x10400010 : i32
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<256x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @needs_cta_pair
// CHECK-NEXT:    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 256>
// VERIFY: error: 'tcgen05.mma' op idesc: m = 256 is not a valid M; legal: 64, 128 (kind::f16 cta_group::1) [R7]
