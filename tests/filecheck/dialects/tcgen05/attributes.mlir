// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: mmair-opt %s --split-input-file --print-op-generic | mmair-opt --split-input-file | filecheck %s

// The descriptor test vectors computed from the PTX tables: each packed word (written with `word = ...`)
// prints as the fields the reference lists for it, and the field form prints the same way.

// Instruction descriptors.
%f16 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x08400010>
%f16_fields = tcgen05.make_idesc #tcgen05.idesc<n = 256, m = 128, kind = f16, atype = f16, btype = f16, dtype = f32, transpose_a = false>
%bf16_mn = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x04028490>
%tf32 = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, word = 0x08200910>
%tf32_fields = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, m = 128, n = 128>
%f8 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, word = 0x08100410>
%fp4_fp6 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, word = 0x04021290>
%i8_sat = tcgen05.make_idesc #tcgen05.idesc<kind = i8, word = 0x084000a8>
%f16_neg = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x04052000>
%sparse = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x08200496>
%ws = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0xc2100010>
%cta2 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x10400010>
%mx8_ids = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, word = 0x28c002a0>
%mx8 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, word = 0x10a00000>
%nvf4 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, word = 0x10200480>
%mxf4_k96 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, atype = e2m1, btype = e2m1, m = 256, n = 64, scale_type = ue8m0, sfa_id = 2, sfb_id = 2, k = 96>

// CHECK:      %f16 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// CHECK-NEXT: %f16_fields = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// CHECK-NEXT: %bf16_mn = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = bf16, btype = bf16, m = 64, n = 8, transpose_a = true>
// CHECK-NEXT: %tf32 = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, dtype = f32, atype = tf32, btype = tf32, m = 128, n = 128>
// CHECK-NEXT: %tf32_fields = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, dtype = f32, atype = tf32, btype = tf32, m = 128, n = 128>
// CHECK-NEXT: %f8 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e4m3, btype = e5m2, m = 128, n = 64>
// CHECK-NEXT: %fp4_fp6 = tcgen05.make_idesc #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e2m1, btype = e3m2, m = 64, n = 8>
// CHECK-NEXT: %i8_sat = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 256, saturate = true>
// CHECK-NEXT: %f16_neg = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f16, atype = f16, btype = f16, m = 64, n = 16, transpose_b = true, negate_a = true>
// CHECK-NEXT: %sparse = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = bf16, btype = bf16, m = 128, n = 128, sparse = true, sparsity_selector = 2>
// CHECK-NEXT: %ws = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 32, n = 64, max_shift = 32>
// CHECK-NEXT: %cta2 = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 256>
// CHECK-NEXT: %mx8_ids = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e2m1, btype = e4m3, m = 128, n = 256, scale_type = ue8m0, sfa_id = 1, sfb_id = 2>
// CHECK-NEXT: %mx8 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e4m3, m = 256, n = 128, scale_type = ue8m0>
// CHECK-NEXT: %nvf4 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, atype = e2m1, btype = e2m1, m = 256, n = 128, scale_type = ue4m3>
// CHECK-NEXT: %mxf4_k96 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4, atype = e2m1, btype = e2m1, m = 256, n = 64, scale_type = ue8m0, sfa_id = 2, sfb_id = 2, k = 96>

// -----

// Shared-memory descriptors.
%sw128 = tcgen05.make_smem_desc #tcgen05.smem_desc<word = 0x4000404000010040>
%sw128_fields = tcgen05.make_smem_desc #tcgen05.smem_desc<swizzle = sw128, sbo = 1024, lbo = 16, start = 0x400>
%k_none_tf32 = tcgen05.make_smem_desc #tcgen05.smem_desc<word = 0x0000400800100000>
%mn_sw32 = tcgen05.make_smem_desc #tcgen05.smem_desc<word = 0xc000402000100100>
%mn_sw64 = tcgen05.make_smem_desc #tcgen05.smem_desc<word = 0x8000404000200200>
%base32b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0x480, lbo = 32, sbo = 1024, base_offset = 1, swizzle = sw128_base32b>
%absolute = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 0x3000, sbo = 1024, lbo_mode = absolute, swizzle = sw128>

// CHECK:      %sw128 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT: %sw128_fields = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT: %k_none_tf32 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 256, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
// CHECK-NEXT: %mn_sw32 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 4096, lbo = 256, sbo = 512, base_offset = 0, lbo_mode = relative, swizzle = sw32>
// CHECK-NEXT: %mn_sw64 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 8192, lbo = 512, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw64>
// CHECK-NEXT: %base32b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1152, lbo = 32, sbo = 1024, base_offset = 1, lbo_mode = relative, swizzle = sw128_base32b>
// CHECK-NEXT: %absolute = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 12288, sbo = 1024, base_offset = 0, lbo_mode = absolute, swizzle = sw128>

// -----

// Zero-column mask descriptors: PTX examples 1-4.
%ex1 = tcgen05.make_zcmask #tcgen05.zcmask<word = 0x0003040000000000>
%ex2 = tcgen05.make_zcmask #tcgen05.zcmask<word = 0x0003028000000000>
%ex3 = tcgen05.make_zcmask #tcgen05.zcmask<word = 0x0003028100000000>
%ex4 = tcgen05.make_zcmask #tcgen05.zcmask<word = 0x0203028301020100>
%ex4_fields = tcgen05.make_zcmask #tcgen05.zcmask<shift = 2, use = 3, skip = 2, nonzero = true, first = [1, 1, 0, 0], start = [0, 1, 2, 1]>
%defaults = tcgen05.make_zcmask #tcgen05.zcmask<>

// CHECK:      %ex1 = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = false, skip = 4, use = 3, shift = 0>
// CHECK-NEXT: %ex2 = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = true, skip = 2, use = 3, shift = 0>
// CHECK-NEXT: %ex3 = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 0, 0, 0], first = [1, 0, 0, 0], nonzero = true, skip = 2, use = 3, shift = 0>
// CHECK-NEXT: %ex4 = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>
// CHECK-NEXT: %ex4_fields = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>
// CHECK-NEXT: %defaults = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = false, skip = 0, use = 0, shift = 0>

// -----

// Memory spaces of SMEM and TMEM buffers.
%s, %t = "test.op"() : () -> (memref<64x64xf16, #tcgen05.space<smem>>, memref<128x32xf32, #tcgen05.space<tmem>>)

// CHECK: %s, %t = "test.op"() : () -> (memref<64x64xf16, #tcgen05.space<smem>>, memref<128x32xf32, #tcgen05.space<tmem>>)
