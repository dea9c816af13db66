// mmair-desc: encode/decode the tcgen05 descriptor words (PTX-table test vectors, PTX zero-column mask example 4).

// RUN: mmair-desc encode '#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>' | filecheck %s --check-prefix=ENC-IDESC
// ENC-IDESC: 0x08400010

// RUN: mmair-desc encode '#tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>' | filecheck %s --check-prefix=ENC-SMEM
// ENC-SMEM: 0x4000404000010040

// RUN: mmair-desc encode '#tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>' | filecheck %s --check-prefix=ENC-ZCM
// ENC-ZCM: 0x0203028301020100

// RUN: mmair-desc decode idesc 0x08400010 --kind f16 | filecheck %s --check-prefix=DEC-IDESC
// DEC-IDESC: #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>

// RUN: mmair-desc decode idesc 0x08400010 | filecheck %s --check-prefix=DEC-ANY
// DEC-ANY:      #tcgen05.idesc<kind = f16,
// DEC-ANY-NEXT: #tcgen05.idesc<kind = f8f6f4, dtype = f32, atype = e4m3, btype = e4m3, m = 128, n = 256>

// RUN: mmair-desc decode idesc 0x10200480 --kind mxf4nvf4 --json | filecheck %s --check-prefix=DEC-JSON
// DEC-JSON: {"kind": "mxf4nvf4", "atype": "e2m1", "btype": "e2m1", "m": 256, "n": 128, "transpose_a": false, "transpose_b": false, "negate_a": false, "negate_b": false, "sparse": false, "scale_type": "ue4m3", "sfa_id": 0, "sfb_id": 0, "k": 64, "errors": []}

// RUN: mmair-desc decode smem 0xc000402000100100 | filecheck %s --check-prefix=DEC-SMEM
// DEC-SMEM: #tcgen05.smem_desc<start = 4096, lbo = 256, sbo = 512, base_offset = 0, lbo_mode = relative, swizzle = sw32>

// RUN: mmair-desc decode zcmask 0x0203028301020100 --m 32 --n 64 | filecheck %s --check-prefix=DEC-ZCM
// DEC-ZCM:      #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>
// DEC-ZCM-NEXT: mask0 = 0b1100001110000111
// DEC-ZCM-NEXT: mask1 = 0b1110000111000011
// DEC-ZCM-NEXT: mask2 = 0b0000111000011100
// DEC-ZCM-NEXT: mask3 = 0b0001110000111000

// RUN: not mmair-desc decode smem 0x6000404000010040 2>&1 | filecheck %s --check-prefix=ERR-SWIZZLE
// ERR-SWIZZLE: error: swizzle = 3 is not a valid swizzle code; legal: 0 (none), 1 (sw128_base32b), 2 (sw128), 4 (sw64), 6 (sw32) [R18]
// ERR-SWIZZLE-NOT: Traceback

// An undefined swizzle code with LBO absolute mode, base offset 1 and a buffer start: the code is
// reported, and no rule is judged against a stand-in swizzle ("... with swizzle = none").
// RUN: not mmair-desc decode smem 0x6012404000010040 --buffer-start 0x0 2>&1 >/dev/null | filecheck %s --check-prefix=ERR-SWIZZLE-ABS
// ERR-SWIZZLE-ABS-NOT: swizzle = none
// ERR-SWIZZLE-ABS:      error: swizzle = 3 is not a valid swizzle code; legal: 0 (none), 1 (sw128_base32b), 2 (sw128), 4 (sw64), 6 (sw32) [R18]
// ERR-SWIZZLE-ABS-NEXT: error: lbo_mode = absolute is not legal with base_offset = 1; legal: relative (absolute needs base_offset = 0) [R20]
// ERR-SWIZZLE-ABS-NOT: {{.}}

// Likewise an undefined atype code (2) with btype bf16 and dtype f16: no "btype differs from
// atype" or "dtype f16 needs atype f16" judged against a stand-in atype.
// RUN: not mmair-desc decode idesc 0x08100500 --kind f16 2>&1 >/dev/null | filecheck %s --check-prefix=ERR-ATYPE
// ERR-ATYPE:      error: atype = 2 is not a valid kind::f16 atype code; legal: 0 (f16), 1 (bf16) [R3]
// ERR-ATYPE-NOT: {{.}}

// RUN: not mmair-desc decode idesc 0x084020a8 --kind i8 2>&1 | filecheck %s --check-prefix=ERR-NEG
// ERR-NEG: error: negate_a = true is not legal for kind::i8; legal: false (kind::i8 cannot negate) [R5]

// RUN: not mmair-desc encode '#tcgen05.idesc<kind = mxf4, m = 128, n = 64, transpose_a = true>' 2>&1 | filecheck %s --check-prefix=ERR-MXF4
// ERR-MXF4: error: transpose_a = true is not legal for kind::mxf4; legal: false (kind::mxf4 has no transpose) [R15]

// RUN: not mmair-desc decode idesc 0xnope 2>&1 | filecheck %s --check-prefix=ERR-ARG
// ERR-ARG: mmair-desc: error: argument word: '0xnope' is not a word (hex 0x... or decimal)
