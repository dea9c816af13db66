// RUN: mmair-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per validity rule in docs/tcgen05-rules.md (R1-R32), then the structural checks.
// Descriptors known at compile time (attributes, make_* ops, arith.constant words) are decoded and
// checked against the mma that uses them.

// R1: reserved idesc bit 6 of a dense kind, in a constant word.
func.func @r1(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x256xf32, #tcgen05.space<tmem>>
  %idesc = arith.constant 0x08400050 : i32
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op idesc 0x08400050: reserved bits = 0x00000040 are set in a kind::f16 descriptor; legal: bits 6, 23, 29 = 0 [R1]

// -----

// R2: kind::f8f6f4 accumulates in f32 only (the seed tables, PTX ISA 9.2 Table 42), never s32.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = s32, atype = e4m3, btype = e5m2, m = 128, n = 64>
// CHECK: error: dtype = s32 is not a kind::f8f6f4 accumulator type; legal: f32 [R2]

// -----

// R2: an f16 D of kind::f8f6f4 (a newer PTX revision's Table 45) is not accepted by default:
// the packed word 0x08101280 (e2m1 x e3m2, dtype code 0) is refused.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, word = 0x08101280>
// CHECK: error: dtype = f16 is not a kind::f8f6f4 accumulator type; legal: f32 [R2]

// -----

// R3: kind::f16 does not mix f16 and bf16 operands.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = bf16, m = 128, n = 128>
// CHECK: error: btype = bf16 differs from atype; kind::f16 does not mix f16 and bf16; legal: f16 (equal to atype) [R3]

// -----

// R3: an operand type outside the kind's code table.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, dtype = f32, atype = f16, btype = tf32, m = 128, n = 128>
// CHECK: error: atype = f16 is not a kind::tf32 operand type; legal: tf32 [R3]

// -----

// R4: saturate is for kind::i8 only.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128, saturate = true>
// CHECK: error: saturate = true is not legal for kind::f16; legal: false (saturate is for kind::i8) [R4]

// -----

// R5: kind::i8 cannot negate.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 256, negate_a = true>
// CHECK: error: negate_a = true is not legal for kind::i8; legal: false (kind::i8 cannot negate) [R5]

// -----

// R6: a sparsity selector on a dense descriptor.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128, sparsity_selector = 1>
// CHECK: error: sparsity_selector = 1 is not legal; legal: 0 (the MMA is dense) [R6]

// -----

// R7: M = 256 needs cta_group::2.
func.func @r7(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<256x256xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 256>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<256x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: m = 256 is not a valid M; legal: 64, 128 (kind::f16 cta_group::1) [R7]

// -----

// R7: kind::i8 with cta_group::2 needs N in steps of 32 (N = 48 is fine for cta_group::1).
func.func @r7_n(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x48xi32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = s8, m = 128, n = 48>
  tcgen05.mma kind(i8) cta_group(2) %d, %desc, %desc, %idesc, %en : memref<128x48xi32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: n = 48 is not a valid N; legal: 32..256 step 32 (kind::i8 cta_group::2) [R7]

// -----

// R7: an M no form of the kind has is already an error in the attribute.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 96, n = 64>
// CHECK: error: m = 96 is not an M of any kind::f16 MMA; legal: 32, 64, 128, 256 [R7]

// -----

// R8: an N-major (transposed) 8-bit B needs N in steps of 16 with cta_group::1.
func.func @r8(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x24xi32, #tcgen05.space<tmem>>
  %idesc = arith.constant 0x080700a0 : i32
  tcgen05.mma kind(i8) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x24xi32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: n = 24 is not a valid N; legal: 16..256 step 16 (N-major 8-bit B, cta_group::1) [R8]

// -----

// R9: an A operand in tensor memory has no major-ness to transpose.
func.func @r9(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %a = "test.op"() : () -> memref<128x16xf16, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128, transpose_a = true>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, memref<128x16xf16, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: transpose_a = true is not legal; legal: false (A is in tensor memory) [R9]

// -----

// R10: the B-reuse max shift is for tcgen05.mma.ws only.
func.func @r10(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128, max_shift = 8>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: max_shift = 8 is not legal without .ws; legal: 0 (max shift is for tcgen05.mma.ws) [R10]

// -----

// R11: reserved bit 31 of kind::mxf8f6f4 (Triton's newer-architecture use is an error, §12c).
func.func @r11(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<256x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %idesc = arith.constant 0x90a00000 : i32
  tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op idesc 0x90a00000: reserved bits = 0x80000000 are set in a kind::mxf8f6f4 descriptor; legal: bits 0, 1, 3, 6, 24, 25, 26, 31 = 0 [R11]

// -----

// R12: a sparse block-scaled mxf8f6f4 MMA with cta_group::2 needs M = 256.
func.func @r12(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %meta = "test.op"() : () -> memref<128x32xi32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e4m3, m = 128, n = 128, scale_type = ue8m0, sparse = true>
  tcgen05.mma kind(mxf8f6f4) cta_group(2) sparse block_scale %d, %desc, %desc, %idesc, %en metadata(%meta) scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x32xi32, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: m = 128 is not a valid M; legal: 256 (kind::mxf8f6f4 cta_group::2 sparse) [R12]

// -----

// R13: mxf4 scale-factor ids are 0 or 2.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, atype = e2m1, btype = e2m1, m = 128, n = 128, scale_type = ue8m0, sfa_id = 1>
// CHECK: error: sfa_id = 1 is not a legal scale-factor ID; legal: 0, 2 (kind::mxf4) [R13]

// -----

// R13: a 4X (block16) scale vector needs scale-factor id 0.
func.func @r13_4x(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, atype = e2m1, btype = e2m1, m = 128, n = 128, scale_type = ue8m0, sfb_id = 2>
  tcgen05.mma kind(mxf4nvf4) cta_group(1) block_scale(block16) %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>, memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: sfb_id = 2 is not a legal scale-factor ID; legal: 0 (kind::mxf4nvf4 with a 4X scale vector) [R13]

// -----

// R14: kind::mxf4 scales are UE8M0.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, atype = e2m1, btype = e2m1, m = 128, n = 128, scale_type = ue4m3>
// CHECK: error: scale_type = ue4m3 is not a kind::mxf4 scale type; legal: ue8m0 [R14]

// -----

// R14: UE4M3 scales need the 4X (block16) vector size.
func.func @r14_vec(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, atype = e2m1, btype = e2m1, m = 128, n = 128, scale_type = ue4m3>
  tcgen05.mma kind(mxf4nvf4) cta_group(1) block_scale(block32) %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>, memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op idesc: scale_type = ue4m3 is not legal with .block32; legal: ue8m0 (ue4m3 needs .scale_vec::4X/.block16) [R14]

// -----

// R15: kind::mxf4 has no transpose.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, atype = e2m1, btype = e2m1, m = 128, n = 128, scale_type = ue8m0, transpose_a = true>
// CHECK: error: transpose_a = true is not legal for kind::mxf4; legal: false (kind::mxf4 has no transpose) [R15]

// -----

// R16: K = 96 needs cta_group::2 and M = 256 (a failing test vector).
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, word = 0xc89004a0>
// CHECK: error: k = 96 is not legal with cta_group::2, M = 128; legal: 64 (K = 96 needs cta_group::2 and M = 256) [R16]

// -----

// R16: K = 96 needs the sm_103a target.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @r16_target(%en: i1, %desc: i64) {
    %d = "test.op"() : () -> memref<256x64xf32, #tcgen05.space<tmem>>
    %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, atype = e2m1, btype = e2m1, m = 256, n = 64, scale_type = ue8m0, k = 96>
    tcgen05.mma kind(mxf4) cta_group(2) block_scale %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<256x64xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
    func.return
  }
}
// CHECK: 'tcgen05.mma' op idesc: k = 96 is not legal on sm_100a; legal: 64 (K = 96 needs sm_103a) [R16]

// -----

// R17: smem descriptor bit 53 (Triton's lutBKSegmentOffset) is reserved (§12c).
func.func @r17(%en: i1, %a: i64) {
  %d = "test.op"() : () -> memref<128x256xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %b = arith.constant 0x4020404000010040 : i64
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op b descriptor 0x4020404000010040: reserved bits = 0x0020000000000000 are set; legal: bits 14-15, 30-31, 53-60 = 0 [R17]

// -----

// R18: swizzle code 3 is invalid.
func.func @r18(%en: i1, %b: i64) {
  %d = "test.op"() : () -> memref<128x256xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %a = arith.constant 0x6000404000010040 : i64
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op a descriptor 0x6000404000010040: swizzle = 3 is not a valid swizzle code; legal: 0 (none), 1 (sw128_base32b), 2 (sw128), 4 (sw64), 6 (sw32) [R18]

// -----

// R19: byte fields are 16-byte aligned.
%desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1000, lbo = 16, sbo = 1024>
// CHECK: error: start = 1000 is not an encodable byte value; legal: 0..262128 in steps of 16 bytes [R19]

// -----

// R20: the absolute LBO mode needs swizzle sw128 (a failing test vector).
%desc = tcgen05.make_smem_desc #tcgen05.smem_desc<word = 0x201640400002003f>
// CHECK: error: lbo_mode = absolute is not legal with swizzle = sw128_base32b; legal: relative (absolute needs swizzle = sw128) [R20]

// -----

// R20: the absolute LBO mode needs a K-major operand.
func.func @r20_major(%en: i1, %a: i64) {
  %d = "test.op"() : () -> memref<128x256xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256, transpose_b = true>
  %b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 0x3000, sbo = 1024, lbo_mode = absolute, swizzle = sw128>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op b descriptor: lbo_mode = absolute is not legal for an MN-major operand; legal: relative (absolute needs a K-major operand) [R20]

// -----

// R21: the base offset must match where the swizzle pattern starts: the start of the
// tcgen05.smem_alloc buffer the descriptor points into (here 0x480, off the 1024-byte repeat).
// A descriptor alone (no buffer known) is not judged: CUTLASS advances inside an atom with 0.
func.func @r21(%en: i1, %a: i64) {
  %d = "test.op"() : () -> memref<128x256xf32, #tcgen05.space<tmem>>
  %buf = tcgen05.smem_alloc offset(1152) : memref<256x64xf16, #tcgen05.space<smem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0x500, lbo = 16, sbo = 1024, base_offset = 0, swizzle = sw128>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op b descriptor: base_offset = 0 does not match the buffer's swizzle pattern; legal: 1 (the swizzle pattern starts at the buffer start 0x480, swizzle = sw128) [R21]

// -----

// R22: a transposed (MN-major) tf32 operand needs swizzle sw128_base32b.
func.func @r22(%en: i1, %b: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, m = 128, n = 128, transpose_a = true>
  %a = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, swizzle = sw128>
  tcgen05.mma kind(tf32) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op a descriptor: swizzle = sw128 is not legal for an MN-major tf32 operand; legal: sw128_base32b (MN-major tf32 operand) [R22]

// -----

// R22: a K-major operand with swizzle sw128_base32b is rejected (§12d).
func.func @r22_k(%en: i1, %b: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, m = 128, n = 128>
  %a = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, swizzle = sw128_base32b>
  tcgen05.mma kind(tf32) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op a descriptor: swizzle = sw128_base32b is not legal for a K-major operand; legal: none, sw128, sw64, sw32 (K-major operand) [R22]

// -----

// R23: a zero-column mask only on tcgen05.mma.ws (even when its value is only known at run time).
func.func @r23(%en: i1, %desc: i64, %zcm: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en zero_column_mask(%zcm) : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op zero-column mask = present is not legal without .ws; legal: only on tcgen05.mma.ws [R23]

// -----

// R24: reserved zero-column mask bit 62.
func.func @r24(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  %zcm = arith.constant 0x4003028000000000 : i64
  tcgen05.mma kind(f16) cta_group(1) ws %d, %desc, %desc, %idesc, %en zero_column_mask(%zcm) : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op zero_column_mask 0x4003028000000000: reserved bits = 0x4000000000000000 are set; legal: bits 36-38, 62-63 = 0 [R24]

// -----

// R25: with M = 32 the column shift is at most 16.
func.func @r25(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<32x64xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 32, n = 64>
  %zcm = tcgen05.make_zcmask #tcgen05.zcmask<nonzero = true, skip = 2, use = 3, shift = 17>
  tcgen05.mma kind(f16) cta_group(1) ws %d, %desc, %desc, %idesc, %en zero_column_mask(%zcm) : memref<32x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op zero_column_mask: shift = 17 exceeds the maximum column shift; legal: 0..16 (M = 32) [R25]

// -----

// R25: no M allows a shift above 32.
%zcm = tcgen05.make_zcmask #tcgen05.zcmask<shift = 33>
// CHECK: error: shift = 33 exceeds the maximum column shift; legal: 0..32 (M = 128) [R25]

// -----

// R26: cta_group::1 takes 4 disable-output-lane words.
func.func @r26(%en: i1, %desc: i64, %idesc: i32, %w: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en disable_output_lane(%w, %w, %w, %w, %w, %w, %w, %w) : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op disable_output_lane = 8 has the wrong length; legal: 4 words (cta_group::1) [R26]

// -----

// R27: scale-input-d is an immediate in 0..15.
func.func @r27(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en scale_input_d(16) : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op scale_input_d = 16 is out of range; legal: 0..15 [R27]

// -----

// R27: scale-input-d only for kind::f16 and kind::tf32.
func.func @r27_kind(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f8f6f4) cta_group(1) %d, %desc, %desc, %idesc, %en scale_input_d(2) : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op scale_input_d = 2 is not legal for kind::f8f6f4; legal: absent (only kind::f16 and kind::tf32) [R27]

// -----

// R28: .ashift needs A in tensor memory.
func.func @r28(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) ashift %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op ashift = true needs A in tensor memory; legal: false (A is in shared memory) [R28]

// -----

// R28: .ashift cannot be combined with collector::a::fill.
func.func @r28_collector(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %a = "test.op"() : () -> memref<128x16xf16, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) ashift collector(a, fill) %d, %a, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, memref<128x16xf16, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op collector = a::fill cannot be combined with .ashift; legal: a::lastuse, a::discard (with .ashift) [R28]

// -----

// R29: tcgen05.mma.ws exists only with cta_group::1.
func.func @r29(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(2) ws %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op cta_group = 2 is not legal with .ws; legal: 1 (tcgen05.mma.ws) [R29]

// -----

// R29: tcgen05.mma.ws uses the B collector buffers.
func.func @r29_collector(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) ws collector(a, lastuse) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op collector = a::lastuse is not a collector usage of tcgen05.mma.ws; legal: b0..b3::{fill,use,lastuse,discard} [R29]

// -----

// R30: kind::mxf4nvf4 needs an explicit block-scale vector size.
func.func @r30(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf4nvf4) cta_group(1) block_scale %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>, memref<128x4xf8E4M3FN, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op scale_vec = none must be explicit for kind::mxf4nvf4; legal: scale_vec::2X, scale_vec::4X, block16, block32 [R30]

// -----

// R30: block16 (4X) only for kind::mxf4nvf4.
func.func @r30_block16(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale(block16) %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op scale_vec = block16 is not a kind::mxf8f6f4 scale vector size; legal: (no size), scale_vec::1X, block32 [R30]

// -----

// R30: a block-scaled kind needs block_scale.
func.func @r30_missing(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf4) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op block_scale = false is required; legal: true (kind::mxf4 is block scaled) [R30]

// -----

// R31: one cta_group per kernel.
func.func @r31(%en: i1, %desc: i64, %idesc: i32) {
  %d = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(2) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op cta_group = [1, 2] mixes CTA group sizes in one kernel; legal: a single value per kernel [R31] (the kernel's first tcgen05 op 'tcgen05.alloc' uses cta_group 1)

// -----

// R32: kind::i8 needs an arch-specific (a) target.
builtin.module attributes {tcgen05.target = "sm_100f"} {
  func.func @r32(%en: i1, %desc: i64, %idesc: i32) {
    %d = "test.op"() : () -> memref<128x128xi32, #tcgen05.space<tmem>>
    tcgen05.mma kind(i8) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xi32, #tcgen05.space<tmem>>, i64
    func.return
  }
}
// CHECK: 'tcgen05.mma' op kind = i8 is not supported on sm_100f; legal: not i8 (kind::i8 needs sm_100a, sm_110a) [R32]

// -----

// The accumulator element type follows the idesc dtype.
func.func @d_type(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf16, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf16, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires d element type f32 (the idesc dtype), got f16

// -----

// D must hold the M x N tile.
func.func @d_shape(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x64xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires d to hold the 128x128 tile of the idesc, got memref<128x64xf32, #tcgen05.space<tmem>>

// -----

// cta_group::2: D is this CTA's share (M / 2 rows) of the tile.
func.func @d_share(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<64x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 128>
  tcgen05.mma kind(f16) cta_group(2) %d, %desc, %desc, %idesc, %en : memref<64x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires d to hold this CTA's 128x128 share of the 256x128 tile of the idesc, got memref<64x128xf32, #tcgen05.space<tmem>>

// -----

// An A operand in TMEM has the idesc atype.
func.func @a_type(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %a = "test.op"() : () -> memref<128x16xbf16, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, memref<128x16xbf16, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op requires a element type f16 (the idesc atype), got bf16

// -----

// The idesc kind must be the mma kind.
func.func @kind_mismatch(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires an idesc of kind f16 (the mma kind), got kind tf32

// -----

// The idesc sparsity must match the mma.
func.func @sparse_mismatch(%en: i1, %desc: i64) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128, sparse = true>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires idesc sparse = false (the mma is dense), got true

// -----

// A sparse mma needs its metadata operand.
func.func @sparse_metadata(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) sparse %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires a metadata operand exactly when the mma is sparse, got sparse = true with no metadata operand

// -----

// D lives in tensor memory.
func.func @d_space(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<smem>>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<smem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires d in tensor memory (a memref in #tcgen05.space<tmem>), got memref<128x128xf32, #tcgen05.space<smem>>

// -----

// An unknown kind.
func.func @bad_kind(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f64) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: 'tcgen05.mma' op requires kind in tf32, f16, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4, got f64

// -----

// TMEM is allocated in powers of two from 32 to 512 columns.
%t = tcgen05.alloc cta_group(1) columns(96) : memref<128x96xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.alloc' op requires columns in 32, 64, 128, 256, 512, got 96

// -----

// The allocation must hold the memref's columns.
%t = tcgen05.alloc cta_group(1) columns(64) : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.alloc' op requires the 128 columns of f32 to fit in 64 TMEM columns, got 128 32-bit columns

// -----

// SMEM buffers are 16-byte aligned.
%s = tcgen05.smem_alloc offset(1000) : memref<64x64xf16, #tcgen05.space<smem>>
// CHECK: 'tcgen05.smem_alloc' op requires offset 16-byte aligned and >= 0, got 1000

// -----

// A descriptor field the descriptor cannot encode.
%desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 1024, swizzle = sw16>
// CHECK: error: swizzle = sw16 is not a swizzle mode; legal: none, sw128_base32b, sw128, sw64, sw32 [R18]

// -----

// An unknown descriptor key.
%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, m = 128, n = 128, scale_type = ue8m0>
// CHECK: error: key = scale_type is not a key of kind::tf32; legal: kind, dtype, atype, btype, m, n, transpose_a, transpose_b, negate_a, negate_b, sparse, sparsity_selector, saturate, max_shift

// -----

// A packed descriptor word must be an integer.
%d = tcgen05.make_smem_desc #tcgen05.smem_desc<word = true>
// CHECK: error: word = true is not an integer; legal: an integer

// -----

// An idesc word is decoded under its kind: the kind must be given with it.
%d = tcgen05.make_idesc #tcgen05.idesc<word = 0x08400010>
// CHECK: error: kind = (missing) must be given with 'word'; legal: tf32, f16, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4

// -----

// The module's target attribute is a string.
builtin.module attributes {tcgen05.target = 100 : i32} {
  func.func @target_not_a_string(%en: i1, %desc: i64, %idesc: i32) {
    %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
    tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
    func.return
  }
}
// CHECK: 'tcgen05.mma' op requires the module attribute tcgen05.target to be a string, got 100 : i32

// -----

// smem_alloc allocates shared memory.
%s = tcgen05.smem_alloc offset(0) : memref<128x64xf16, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.smem_alloc' op requires a result in shared memory (a memref in #tcgen05.space<smem>), got memref<128x64xf16, #tcgen05.space<tmem>>

// -----

// An SMEM buffer has a static size.
%s = tcgen05.smem_alloc offset(0) : memref<?x64xf16, #tcgen05.space<smem>>
// CHECK: 'tcgen05.smem_alloc' op requires a static shape and a sized element type, got memref<?x64xf16, #tcgen05.space<smem>>

// -----

// An SMEM buffer holds a non-empty matrix.
%s = tcgen05.smem_alloc offset(0) : memref<0x64xf16, #tcgen05.space<smem>>
// CHECK: 'tcgen05.smem_alloc' op requires a result memref whose dimensions are each at least 1, got shape 0x64 (memref<0x64xf16, #tcgen05.space<smem>>)

// -----

// alloc allocates tensor memory.
%t = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<smem>>
// CHECK: 'tcgen05.alloc' op requires a result in tensor memory (a memref in #tcgen05.space<tmem>), got memref<128x128xf32, #tcgen05.space<smem>>

// -----

// A TMEM allocation holds a static 2-D matrix.
%t = tcgen05.alloc cta_group(1) columns(128) : memref<128x?xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.alloc' op requires a static 2-D memref of a sized element type, got memref<128x?xf32, #tcgen05.space<tmem>>

// -----

// A TMEM allocation holds a non-empty matrix.
%t = tcgen05.alloc cta_group(1) columns(32) : memref<128x0xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.alloc' op requires a result memref whose dimensions are each at least 1, got shape 128x0 (memref<128x0xf32, #tcgen05.space<tmem>>)

// -----

// dealloc frees tensor memory.
func.func @dealloc_smem(%t: memref<128x128xf32, #tcgen05.space<smem>>) {
  tcgen05.dealloc cta_group(1) %t : memref<128x128xf32, #tcgen05.space<smem>>
  func.return
}
// CHECK: 'tcgen05.dealloc' op requires an operand in tensor memory (a memref in #tcgen05.space<tmem>), got memref<128x128xf32, #tcgen05.space<smem>>

// -----

// A is a shared-memory descriptor (i64) or a TMEM matrix.
func.func @a_type(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %a = "test.op"() : () -> i32
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i32
  func.return
}
// CHECK: 'tcgen05.mma' op requires a to be an i64 shared-memory descriptor or a memref in #tcgen05.space<tmem>, got i32

// -----

// Scale-factor operands come exactly with block_scale (generic form: the custom form ties them).
func.func @scales_without_block_scale(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  "tcgen05.mma"(%d, %desc, %desc, %idesc, %en, %sf, %sf) <{kind = "mxf8f6f4", cta_group = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1, 0, 0>}> : (memref<128x128xf32, #tcgen05.space<tmem>>, i64, i64, i32, i1, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>) -> ()
  func.return
}
// CHECK: 'tcgen05.mma' op requires scale_a and scale_b operands exactly with block_scale, got block_scale = false with both scale operands

// -----

// block_scale needs both scale-factor operands (generic form: the custom form ties them).
func.func @one_scale_operand(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  "tcgen05.mma"(%d, %desc, %desc, %idesc, %en, %sf) <{kind = "mxf8f6f4", cta_group = 1 : i32, block_scale, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 0, 0, 0>}> : (memref<128x128xf32, #tcgen05.space<tmem>>, i64, i64, i32, i1, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>) -> ()
  func.return
}
// CHECK: 'tcgen05.mma' op requires scale_a and scale_b operands exactly with block_scale, got block_scale = true with only the scale_a operand

// -----

// scale_vec only with block_scale.
func.func @scale_vec_without_block_scale(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  "tcgen05.mma"(%d, %desc, %desc, %idesc, %en) <{kind = "mxf8f6f4", cta_group = 1 : i32, scale_vec = "1X", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0>}> : (memref<128x128xf32, #tcgen05.space<tmem>>, i64, i64, i32, i1) -> ()
  func.return
}
// CHECK: 'tcgen05.mma' op requires block_scale with scale_vec, got scale_vec = 1X

// -----

// An unknown scale vector size.
func.func @scale_vec_unknown(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  "tcgen05.mma"(%d, %desc, %desc, %idesc, %en, %sf, %sf) <{kind = "mxf8f6f4", cta_group = 1 : i32, block_scale, scale_vec = "8X", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1, 0, 0>}> : (memref<128x128xf32, #tcgen05.space<tmem>>, i64, i64, i32, i1, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>) -> ()
  func.return
}
// CHECK: 'tcgen05.mma' op requires scale_vec in 1X, 2X, 4X, block32, block16, got 8X

// -----

// dealloc checks its cta_group like alloc.
func.func @dealloc_group(%t: memref<128x128xf32, #tcgen05.space<tmem>>) {
  tcgen05.dealloc cta_group(3) %t : memref<128x128xf32, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.dealloc' op requires cta_group in 1, 2, got 3

// -----

// A clause of the custom form is given once.
func.func @twice(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en scale_input_d(1) scale_input_d(2) : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}
// CHECK: error: 'scale_input_d' is given twice

// -----

func.func @twice2(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale(block32) %d, %desc, %desc, %idesc, %en scale(%sf, %sf) scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}
// CHECK: error: 'scale' is given twice

// -----

// scale(...) names the two scale-factor matrices.
func.func @scale_count(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale(block32) %d, %desc, %desc, %idesc, %en scale(%sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}
// CHECK: error: 'scale' takes 2 operand(s), got 1

// -----

// Scale factors live in tensor memory.
func.func @scale_in_smem(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<smem>>
  tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale(block32) %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<smem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<smem>>
  func.return
}
// CHECK: 'tcgen05.mma' op requires scale_a in tensor memory (a memref in #tcgen05.space<tmem>), got memref<128x4xf8E8M0FNU, #tcgen05.space<smem>>

// -----

// block_scale only on the block-scaled kinds.
func.func @block_scale_kind(%en: i1, %desc: i64, %idesc: i32) {
  %d = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
  %sf = "test.op"() : () -> memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) block_scale %d, %desc, %desc, %idesc, %en scale(%sf, %sf) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.mma' op requires kind in mxf8f6f4, mxf4, mxf4nvf4 with block_scale, got f16

// -----

// An SMEM buffer must lie inside the CTA's 228 KB of shared memory.
%s = tcgen05.smem_alloc offset(229376) : memref<128x64xf16, #tcgen05.space<smem>>
// CHECK: 'tcgen05.smem_alloc' op requires offset + size <= 233472 (shared memory per CTA), got 229376 + 16384

// -----

// split (immHalfSplitoff) belongs to .16x32bx2.
func.func @split_shape(%t: memref<128x64xf32, #tcgen05.space<tmem>>) {
  %r = tcgen05.ld shape("32x32b") num(4) warp(0) lane(0) column(0) split(4) %t : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x4xf32>
  func.return
}
// CHECK: 'tcgen05.ld' op requires .16x32bx2 for split (immHalfSplitoff), got .32x32b

// -----

// The columns a .16x32bx2 access covers include its split.
func.func @split_extent(%t: memref<128x8xf32, #tcgen05.space<tmem>>) {
  %r = tcgen05.ld shape("16x32bx2") num(4) warp(0) lane(0) column(0) split(8) %t : memref<128x8xf32, #tcgen05.space<tmem>> -> memref<32x4xf32>
  func.return
}
// CHECK: 'tcgen05.ld' op requires lanes 0..15 and columns 0..11 inside the TMEM operand 128x8

// -----

// R32: tcgen05.shift needs an arch-specific target.
builtin.module attributes {tcgen05.target = "sm_100f"} {
  func.func @shift_target(%t: memref<128x64xf32, #tcgen05.space<tmem>>) {
    tcgen05.shift cta_group(1) %t : memref<128x64xf32, #tcgen05.space<tmem>>
    func.return
  }
}
// CHECK: 'tcgen05.shift' op target = sm_100f does not support tcgen05.shift; legal: an arch-specific target (sm_100a, sm_103a, sm_107a, sm_110a; alias sm_101a) [R32]

// -----

// TMA (docs/tcgen05-tma.md): one chunk per tensor-map and cp.async.bulk.tensor rule TMA1-TMA18.

// TMA1: a data type outside CUtensorMapDataType.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f8, dims = [64], strides = [], box = [64]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: dtype = f8 is not a tensor-map type; legal: u8, u16, u32, s32, u64, s64, f16, f32, f64, bf16, f32_ftz, tf32, tf32_ftz, b4x16, b4x16_p64, b6x16_p32 [TMA1]

// -----

// TMA1: a swizzle mode cuTensorMapEncodeTiled does not have.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64], strides = [], box = [64], swizzle = sw96>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: swizzle = sw96 is not a tensor-map swizzle mode; legal: none, sw32, sw64, sw128, sw128_base32b [TMA1]

// -----

// TMA2: rank 6 (tensorRank is 1 to 5).
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [8, 2, 2, 2, 2, 2], strides = [16, 32, 64, 128, 256], box = [8, 1, 1, 1, 1, 1]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: dims = [8, 2, 2, 2, 2, 2] has rank 6; legal: 1 to 5 dimensions [TMA2]

// -----

// TMA2: globalStrides has rank - 1 entries.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [], box = [64, 64]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: strides = [] has 0 entries; legal: 1 entries (rank 2) [TMA2]

// -----

// TMA3: interleave needs rank 3 to 5.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [128], box = [64, 64], interleave = "16b">} : () -> i64
// CHECK: error: #tcgen05.tensor_map: interleave = 16b needs rank 3 to 5, the map has rank 2; legal: none (rank < 3) [TMA3]

// -----

// TMA4: globalDim is 1 to 2^32.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [0], strides = [], box = [8]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: dims[0] = 0 is out of range; legal: 1 to 2^32 [TMA4]

// -----

// TMA5: globalStrides are multiples of 16 bytes.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [136], box = [64, 64]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: strides[0] = 136 is not legal; legal: a multiple of 16 below 2^40 [TMA5]

// -----

// TMA6: each stride includes the previous dimension.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [64], box = [32, 64]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: strides[0] = 64 overlaps the previous dimension; legal: >= 128 (dims[0] x the previous stride: each stride includes the previous dimension) [TMA6]

// -----

// TMA7: boxDim is 1 to 256.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 512], strides = [128], box = [64, 512]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: box[1] = 512 is out of range; legal: 1 to 256 [TMA7]

// -----

// TMA8: the inner box row is a multiple of 16 bytes without interleave.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [128], box = [12, 64]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: box[0] = 12 gives an inner box row of 24 bytes; legal: box[0] x element size a multiple of 16 bytes [TMA8]

// -----

// TMA9: elementStrides are 1 to 8.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [128], box = [64, 64], element_strides = [1, 9]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: element_strides[1] = 9 is out of range; legal: 1 to 8 [TMA9]

// -----

// TMA9: no traversal stride in dimension 0 without interleave (PTX ISA 5.5.3.2).
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [128], box = [64, 64], element_strides = [2, 1]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: element_strides[0] = 2 is not legal; legal: 1 (dimension 0 has no traversal stride without interleave) [TMA9]

// -----

// TMA10: the inner box row fits the swizzle span.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [128], box = [64, 64], swizzle = sw64>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: box[0] = 64 gives an inner box row of 128 bytes; legal: an inner box row of at most 64 bytes (swizzle sw64) [TMA10]

// -----

// TMA11: 32B interleave requires 32B swizzle.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = f16, dims = [16, 8, 8], strides = [32, 256], box = [16, 8, 8], interleave = "32b", swizzle = sw128>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: swizzle = sw128 is not legal; legal: sw32 (interleave 32b) [TMA11]

// -----

// TMA12: the OOB-NaN fill is for float types only.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = u8, dims = [64], strides = [], box = [64], oob_fill = nan>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: oob_fill = nan is not legal; legal: zero (dtype u8 is not a float type) [TMA12]

// -----

// TMA13: 16U4_ALIGN16B boxes are 128 values wide.
%tm = "test.op"() {m = #tcgen05.tensor_map<dtype = b4x16_p64, dims = [256, 4], strides = [128], box = [64, 4]>} : () -> i64
// CHECK: error: #tcgen05.tensor_map: box[0] = 64 is not legal; legal: 128 (b4x16_p64) [TMA13]

// -----

// The tensor map describes its tensor: dims are the memref's shape innermost first.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [128, 64], strides = [256], box = [64, 64]> : memref<128x64xf16>
  func.return
}
// CHECK: error: 'tcgen05.make_tensor_map' op requires the tensor map to describe its tensor memref<128x64xf16>: dims [128, 64] to be the tensor's shape innermost first, [64, 128]

// -----

// The tensor map's element width is the tensor's.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f32, dims = [64, 128], strides = [256], box = [32, 64]> : memref<128x64xf16>
  func.return
}
// CHECK: error: 'tcgen05.make_tensor_map' op requires the tensor map to describe its tensor memref<128x64xf16>: dtype f32 (32-bit) to match the tensor's f16 (16-bit elements)

// -----

// The tensor lives in global memory.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %s = tcgen05.smem_alloc offset(0) : memref<128x64xf16, #tcgen05.space<smem>>
  %tm = tcgen05.make_tensor_map %s, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16, #tcgen05.space<smem>>
  func.return
}
// CHECK: error: 'tcgen05.make_tensor_map' op requires a global-memory tensor (a memref without a tcgen05 space), got memref<128x64xf16, #tcgen05.space<smem>>

// -----

// TMA14: one coordinate per dimension of the map (.2d).
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16>
  %s = tcgen05.smem_alloc offset(0) : memref<128x64xf16, #tcgen05.space<smem>>
  %bar = tcgen05.smem_alloc offset(32768) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.tma_load %s, %tm[%x], %bar : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK: error: 'tcgen05.tma_load' op coordinates = 1 is the wrong count; legal: 2 (the map's rank: .2d) [TMA14]

// -----

// TMA15: the destination holds exactly the box.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16>
  %s = tcgen05.smem_alloc offset(0) : memref<64x64xf16, #tcgen05.space<smem>>
  %bar = tcgen05.smem_alloc offset(32768) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.tma_load %s, %tm[%x, %x], %bar : memref<64x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK: error: 'tcgen05.tma_load' op destination bytes = 8192 do not hold the box; legal: 16384 (the box 64x128 of f16) [TMA15]

// -----

// TMA16: the destination is 128-byte aligned.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16>
  %s = tcgen05.smem_alloc offset(64) : memref<128x64xf16, #tcgen05.space<smem>>
  %bar = tcgen05.smem_alloc offset(32768) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.tma_load %s, %tm[%x, %x], %bar : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK: error: 'tcgen05.tma_load' op destination offset = 64 is not aligned; legal: a multiple of 128 [TMA16]

// -----

// TMA17: .multicast::cluster only with the shared::cluster destination.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16>
  %s = tcgen05.smem_alloc offset(0) : memref<128x64xf16, #tcgen05.space<smem>>
  %bar = tcgen05.smem_alloc offset(32768) : memref<1xi64, #tcgen05.space<smem>>
  %mask = arith.constant 3 : i16
  "tcgen05.tma_load"(%s, %tm, %x, %x, %bar, %mask) <{operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>}> : (memref<128x64xf16, #tcgen05.space<smem>>, i64, i32, i32, memref<1xi64, #tcgen05.space<smem>>, i16) -> ()
  func.return
}
// CHECK: error: 'tcgen05.tma_load' op multicast = true is not legal; legal: only with the shared::cluster destination [TMA17]

// -----

// TMA18: .cta_group is 1 or 2.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16>
  %s = tcgen05.smem_alloc offset(0) : memref<128x64xf16, #tcgen05.space<smem>>
  %bar = tcgen05.smem_alloc offset(32768) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.tma_load %s, %tm[%x, %x], %bar cta_group(3) : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK: error: 'tcgen05.tma_load' op cta_group = 3 is not legal; legal: 1, 2 [TMA18]

// -----

// The destination is in shared memory.
func.func @k(%a: memref<128x64xf16>, %x: i32) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128> : memref<128x64xf16>
  %bar = tcgen05.smem_alloc offset(32768) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.tma_load %a, %tm[%x, %x], %bar : memref<128x64xf16>, memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK: error: 'tcgen05.tma_load' op requires a destination in shared memory (a memref in #tcgen05.space<smem>), got memref<128x64xf16>
