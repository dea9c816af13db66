// RUN: mmair-opt %s --split-input-file --verify-diagnostics | filecheck %s
// One chunk per verifier rule of the pto dialect (docs/ascend.md, docs/pto-raw-params.md); the default
// target is a2. Rule ids in brackets.

// [tile] explicit NZ factorization with the wrong K0 (f16: 32 B / 2 = 16)
%t = pto.alloc : !pto.tile<l1, 128x128xf16, nz, 8x8x16x32>
// CHECK: pto_invalid.mlir:6:{{[0-9]+}}: error: '!pto.tile' requires physical factorization 8x8x16x16 (nz of 128x128xf16 in l1), got 8x8x16x32

// -----
// [tile] M0 must be 16
%t = pto.alloc : !pto.tile<l1, 32x32xf32, nz, 4x4x8x8>
// CHECK: error: '!pto.tile' requires physical factorization 4x2x16x8 (nz of 32x32xf32 in l1), got 4x4x8x8

// -----
// [tile] outer dims are ceil(R/16), ceil(C/c0)
%t = pto.alloc : !pto.tile<l1, 30x70xf16, nz, 4x1x16x16>
// CHECK: error: '!pto.tile' requires physical factorization 5x2x16x16 (nz of 30x70xf16 in l1), got 4x1x16x16

// -----
// [tile] 1-D tiles only with nd
%t = pto.alloc : !pto.tile<ub, 128xf16, nz>
// CHECK: error: '!pto.tile' requires a 2-D shape (1-D only with layout nd), got 128 with nz

// -----
// [tile] GM is not a tile space
%t = pto.alloc : !pto.tile<gm, 16x16xf16, nd>
// CHECK: error: '!pto.tile' requires space in [bt, fb, l0a, l0b, l0c, l1, ub], got gm

// -----
// [tile] extents are positive
%t = pto.alloc : !pto.tile<l1, 0x16xf16, nz>
// CHECK: error: '!pto.tile' requires static positive extents, got 0x16

// -----
// [tile] a 6-bit element does not fill 32-byte C0 blocks
%t = pto.alloc : !pto.tile<l1, 16x64xf6E2M3FN, nz>
// CHECK: error: '!pto.tile' requires an element type that tiles layout nz: element type 'e2m3' (6 bits) does not tile a 32-byte C0 block

// -----
// [tile] unknown layout
%t = pto.alloc : !pto.tile<l1, 16x16xf16, zx>
// CHECK: error: '!pto.tile' requires layout in [dn, nd, nn, nz, zn, zz], got zx

// -----
// [tile] element types need an isa name
%t = pto.alloc : !pto.tile<ub, 16x16xf64, nd>
// CHECK: error: '!pto.tile' requires an element type with an isa name, got f64

// -----
// [target] unknown pto.target
builtin.module attributes {pto.target = "a9"} {
  %t = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.alloc' op requires pto.target in [200i_a2, 310p, 910, a2, a3, a5], got "a9"

// -----
// [L layout] L0B must be zn
%t = pto.alloc : !pto.tile<l0b, 32x32xf16, nz>
// CHECK: error: 'pto.alloc' op requires buffer layout in [zn] for l0b on target a2, got nz

// -----
// [L layout] L0C must be nz (16x16 fractals)
%t = pto.alloc : !pto.tile<l0c, 32x32xf32, zz>
// CHECK: error: 'pto.alloc' op requires buffer layout in [nz] for l0c on target a2, got zz

// -----
// [L layout] L0A is zz on a2
%t = pto.alloc : !pto.tile<l0a, 32x32xf16, nz>
// CHECK: error: 'pto.alloc' op requires buffer layout in [nd, zz] for l0a on target a2, got nz

// -----
// [L layout] L0A is nz on a5
builtin.module attributes {pto.target = "a5"} {
  %t = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
}
// CHECK: error: 'pto.alloc' op requires buffer layout in [nd, nz] for l0a on target a5, got zz

// -----
// [L layout] nd in L0A only for a GEMV vector (1 row)
%t = pto.alloc : !pto.tile<l0a, 16x32xf16, nd>
// CHECK: error: 'pto.alloc' op requires buffer nd layout in l0a only for a 1-row GEMV vector, got 16x32

// -----
// [L layout] UB holds nd data
%t = pto.alloc : !pto.tile<ub, 32x32xf16, nz>
// CHECK: error: 'pto.alloc' op requires buffer layout in [nd] for ub on target a2, got nz

// -----
// [G2] no bias table on 310p
builtin.module attributes {pto.target = "310p"} {
  %t = pto.alloc : !pto.tile<bt, 1x64xf32, nd>
}
// CHECK: error: 'pto.alloc' op bt buffer is not supported on target 310p

// -----
// [G5] L0A offsets are 512 B aligned
%t = pto.alloc {offset = 256 : i64} : !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.alloc' op requires l0a offset aligned to 512 bytes, got 256

// -----
// [G6] offset + footprint inside the space
%t = pto.alloc {offset = 32768 : i64} : !pto.tile<l0a, 128x256xf16, zz>
// CHECK: error: 'pto.alloc' op requires l0a footprint <= 65536 bytes on target a2, got 98304 (offset 32768 + 65536)

// -----
// [G6] a tile larger than the space
%t = pto.alloc : !pto.tile<l1, 1024x512xf16, nz>
// CHECK: error: 'pto.alloc' op requires l1 footprint <= 524288 bytes on target a2, got 1048576 (offset 0 + 1048576)

// -----
// [reinterpret] same space
%t = pto.alloc : !pto.tile<ub, 256xf16, nd>
%v = pto.reinterpret %t : !pto.tile<ub, 256xf16, nd> to !pto.tile<l1, 256xf16, nd>
// CHECK: error: 'pto.reinterpret' op requires result in ub (the source space), got l1

// -----
// [reinterpret] another factorization of an NZ buffer
%t = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
%v = pto.reinterpret %t : !pto.tile<l1, 32x32xf16, nz> to !pto.tile<l1, 32x32xf16, zz>
// CHECK: error: 'pto.reinterpret' op requires result layout nz (the source factorization), got zz

// -----
// [reinterpret] same element width
%t = pto.alloc : !pto.tile<ub, 256xf16, nd>
%v = pto.reinterpret %t : !pto.tile<ub, 256xf16, nd> to !pto.tile<ub, 256xf32, nd>
// CHECK: error: 'pto.reinterpret' op requires result element width 16 bits (the source width), got 32

// -----
// [reinterpret] same physical shape
%t = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
%v = pto.reinterpret %t : !pto.tile<l1, 32x32xf16, nz> to !pto.tile<l1, 16x64xbf16, nz>
// CHECK: error: 'pto.reinterpret' op requires result physical shape 2x2x16x16 (the source's), got 4x1x16x16

// -----
// [G2] no GM->L1 ND2NZ on 910
builtin.module attributes {pto.target = "910"} {
  %c16 = arith.constant 16 : index
  %gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.mte_gm_l1 %gm, %l1, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.mte_gm_l1' op mte_gm_l1 (nd2nz) is not supported on target 910

// -----
// [G2] DN2NZ only on a5
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c16, %c16 dn2nz : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op dn2nz is not supported on target a2

// -----
// [G1] mte_gm_l1 writes L1
%c16 = arith.constant 16 : index
%gm, %ub = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<ub, 16x16xf16, nd>)
pto.mte_gm_l1 %gm, %ub, %c16, %c16 : memref<16x16xf16>, !pto.tile<ub, 16x16xf16, nd>
// CHECK: error: 'pto.mte_gm_l1' op requires dst in l1, got ub

// -----
// [G1] GM data are memrefs without memory space
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16, 1 : i64>, !pto.tile<l1, 16x16xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c16, %c16 : memref<16x16xf16, 1 : i64>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires src in gm (a memref without memory space), got 1 : i64

// -----
// [L1] ND2NZ element types per target (310p: b16/b32 only)
builtin.module attributes {pto.target = "310p"} {
  %c16 = arith.constant 16 : index
  %gm, %l1 = "test.op"() : () -> (memref<16x32xi8>, !pto.tile<l1, 16x32xi8, nz>)
  pto.mte_gm_l1 %gm, %l1, %c16, %c16 : memref<16x32xi8>, !pto.tile<l1, 16x32xi8, nz>
}
// CHECK: error: 'pto.mte_gm_l1' op requires element type in [f16, f32, s16, s32, u16, u32] on target 310p, got s8

// -----
// [G7] element byte widths of a move
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf32>, !pto.tile<l1, 16x16xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c16, %c16 : memref<16x16xf32>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires source and destination element byte widths to match, got f32 (32 bits) and f16 (16 bits)

// -----
// [G3] static rows > 0
%c0 = arith.constant 0 : index
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c0, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires rows to be positive, got 0

// -----
// [G4] cols (dValue) in [1, 65535]
%c16 = arith.constant 16 : index
%big = arith.constant 70000 : index
%gm, %l1 = "test.op"() : () -> (memref<16x70000xf16>, !pto.tile<l1, 16x70000xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c16, %big : memref<16x70000xf16>, !pto.tile<l1, 16x70000xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires cols in [1, 65535], got 70000

// -----
// [M4] the L1 tile holds rows x cols
%c16 = arith.constant 16 : index
%c64 = arith.constant 64 : index
%gm, %l1 = "test.op"() : () -> (memref<64x16xf16>, !pto.tile<l1, 32x16xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c64, %c16 : memref<64x16xf16>, !pto.tile<l1, 32x16xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires dst tile of at least 64x16 (rows x cols), got 32x16

// -----
// [L1] the GM source holds cols columns
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x32xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c16, %c32 : memref<16x16xf16>, !pto.tile<l1, 16x32xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires src of at least 32 columns (rows x cols), got 16

// -----
// [L1] GM row pitch >= cols
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%gm, %l1 = "test.op"() : () -> (memref<16x32xf16, strided<[16, 1]>>, !pto.tile<l1, 16x32xf16, nz>)
pto.mte_gm_l1 %gm, %l1, %c16, %c32 : memref<16x32xf16, strided<[16, 1]>>, !pto.tile<l1, 16x32xf16, nz>
// CHECK: error: 'pto.mte_gm_l1' op requires src row pitch >= 32 (rows x cols), got 16

// -----
// [G1] mte_l1_l0a reads L1
%c16 = arith.constant 16 : index
%ub, %l0a = "test.op"() : () -> (!pto.tile<ub, 16x16xf16, nd>, !pto.tile<l0a, 16x16xf16, zz>)
pto.mte_l1_l0a %ub, %l0a, %c16, %c16 : !pto.tile<ub, 16x16xf16, nd>, !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires src in l1, got ub

// -----
// [L layout] wrong L0A layout at a use
%c16 = arith.constant 16 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>)
pto.mte_l1_l0a %l1, %l0a, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>
// CHECK: error: 'pto.mte_l1_l0a' op requires dst layout in [nd, zz] for l0a on target a2, got nz

// -----
// [L layout] fractal moves need a fractal source
%c16 = arith.constant 16 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nd>, !pto.tile<l0a, 16x16xf16, zz>)
pto.mte_l1_l0a %l1, %l0a, %c16, %c16 : !pto.tile<l1, 16x16xf16, nd>, !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires src layout in [nz, zz] for a zz dst, got nd

// -----
// [L layout] an nd (GEMV) L0A needs an nd source
%c1 = arith.constant 1 : index
%c64 = arith.constant 64 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 1x64xf16, nz>, !pto.tile<l0a, 1x64xf16, nd>)
pto.mte_l1_l0a %l1, %l0a, %c1, %c64 : !pto.tile<l1, 1x64xf16, nz>, !pto.tile<l0a, 1x64xf16, nd>
// CHECK: error: 'pto.mte_l1_l0a' op requires an nd src without transpose for an nd (GEMV) dst, got nz

// -----
// [L] a source start names both the row and the column (generic form: the custom one has both)
%c32 = arith.constant 32 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>)
"pto.mte_l1_l0a"(%l1, %c32, %l0a, %c32, %c32) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 1, 1>}> : (!pto.tile<l1, 64x64xf16, nz>, index, !pto.tile<l0a, 32x32xf16, zz>, index, index) -> ()
// CHECK: error: 'pto.mte_l1_l0a' op requires both src_row and src_col, or neither

// -----
// [L layout] an nd (GEMV) L0A is only for m = 1
%c4 = arith.constant 4 : index
%c64 = arith.constant 64 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 1x64xf16, nd>, !pto.tile<l0a, 1x64xf16, nd>)
pto.mte_l1_l0a %l1, %l0a, %c4, %c64 : !pto.tile<l1, 1x64xf16, nd>, !pto.tile<l0a, 1x64xf16, nd>
// CHECK: error: 'pto.mte_l1_l0a' op requires m = 1 for an nd (GEMV) dst, got 4

// -----
// [L2] 310p LoadData transposes b16 only: s8 A given transposed
builtin.module attributes {pto.target = "310p"} {
  %c32 = arith.constant 32 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0a, 32x32xi8, zz>)
  pto.mte_l1_l0a %l1, %l0a, %c32, %c32 transpose : !pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0a, 32x32xi8, zz>
}
// CHECK: error: 'pto.mte_l1_l0a' op requires a fractal transpose of 8-bit elements (s8) for this nz -> zz move, which is not supported on target 310p (transposable widths [16])

// -----
// [L2] 310p: s8 B in L1 (zz) -> L0B (zn) needs a b8 fractal transpose
builtin.module attributes {pto.target = "310p"} {
  %c32 = arith.constant 32 : index
  %l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 32x32xi8, zz>, !pto.tile<l0b, 32x32xi8, zn>)
  pto.mte_l1_l0b %l1, %l0b, %c32, %c32 : !pto.tile<l1, 32x32xi8, zz>, !pto.tile<l0b, 32x32xi8, zn>
}
// CHECK: error: 'pto.mte_l1_l0b' op requires a fractal transpose of 8-bit elements (s8) for this zz -> zn move, which is not supported on target 310p (transposable widths [16])

// -----
// [L2] b8 B moves to zn from nz only: the LoadDataWithTranspose squares stack two fractals along k
builtin.module attributes {pto.target = "a2"} {
  %c32 = arith.constant 32 : index
  %l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 32x32xi8, zz>, !pto.tile<l0b, 32x32xi8, zn>)
  pto.mte_l1_l0b %l1, %l0b, %c32, %c32 : !pto.tile<l1, 32x32xi8, zz>, !pto.tile<l0b, 32x32xi8, zn>
}
// CHECK: error: 'pto.mte_l1_l0b' op requires src layout in [nz] for a 8-bit B moved to zn on target a2 (LoadDataWithTranspose takes squares of two fractals stacked along k, which nz keeps adjacent: no LoadData turns zz 8-bit fractals into zn ones), got zz

// -----
// [L2] b32 B moves to zn from zz only (before a5, whose LoadData2DParamsV2 also transposes nz)
builtin.module attributes {pto.target = "a2"} {
  %c16 = arith.constant 16 : index
  %l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>)
  pto.mte_l1_l0b %l1, %l0b, %c16, %c16 : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>
}
// CHECK: error: 'pto.mte_l1_l0b' op requires src layout in [zz] for a 32-bit B moved to zn on target a2 (its LoadDataWithTranspose squares put two 16 x 8 fractals side by side along n, which zz keeps adjacent: no LoadData turns nz 32-bit fractals into zn ones), got nz (a load3d move, Load3Dv2, reads it)

// -----
// [L2] a5: a transposed b32 tile is padded to whole 16x16 blocks
builtin.module attributes {pto.target = "a5"} {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x24xf32, nz>, !pto.tile<l0a, 24x16xf32, nz>)
  pto.mte_l1_l0a %l1, %l0a, %c24, %c16 transpose : !pto.tile<l1, 16x24xf32, nz>, !pto.tile<l0a, 24x16xf32, nz>
}
// CHECK: error: 'pto.mte_l1_l0a' op transpose requires src padded extents to be multiples of 16 for f32, got 16x24

// -----
// [L2] a5: dst padding of a b32 transpose
builtin.module attributes {pto.target = "a5"} {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0a, 16x8xf32, nz>)
  pto.mte_l1_l0a %l1, %l0a, %c16, %c8 transpose : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0a, 16x8xf32, nz>
}
// CHECK: error: 'pto.mte_l1_l0a' op transpose requires dst padded extents to be multiples of 16 for f32, got 16x8

// -----
// [G4] the source start lies on a fractal boundary
%c0 = arith.constant 0 : index
%c8 = arith.constant 8 : index
%c16 = arith.constant 16 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>)
pto.mte_l1_l0a %l1[%c8, %c0], %l0a, %c16, %c16 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires src_row to be a non-negative multiple of 16, got 8

// -----
// [M4] the source holds start + m x k
%c0 = arith.constant 0 : index
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>)
pto.mte_l1_l0a %l1[%c16, %c0], %l0a, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires src tile of at least 48x32 (start + m x k), got 32x32

// -----
// [M4] the L0B tile holds k x n
%c16 = arith.constant 16 : index
%c64 = arith.constant 64 : index
%l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 64x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>)
pto.mte_l1_l0b %l1, %l0b, %c64, %c16 : !pto.tile<l1, 64x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>
// CHECK: error: 'pto.mte_l1_l0b' op requires dst tile of at least 64x16 (k x n), got 32x16

// -----
// [L] LoadData element types per target (910: no b32)
builtin.module attributes {pto.target = "910"} {
  %c16 = arith.constant 16 : index
  %l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>)
  pto.mte_l1_l0b %l1, %l0b, %c16, %c16 transpose : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>
}
// CHECK: error: 'pto.mte_l1_l0b' op requires element type in [f16, s16, s8, u16, u8] on target 910, got f32

// -----
// [G7] LoadData copies bytes
%c16 = arith.constant 16 : index
%l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, zz>, !pto.tile<l0b, 16x16xi8, zn>)
pto.mte_l1_l0b %l1, %l0b, %c16, %c16 : !pto.tile<l1, 16x16xf16, zz>, !pto.tile<l0b, 16x16xi8, zn>
// CHECK: error: 'pto.mte_l1_l0b' op requires source and destination element byte widths to match, got f16 (16 bits) and s8 (8 bits)

// -----
// [G1] mad reads its left operand from L0A
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires lhs in l0a, got l0b

// -----
// [L layout] mad checks the layout of each operand where it uses it (rhs: L0B is zn)
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zz>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zz>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires rhs layout in [zn] for l0b on target a2, got zz

// -----
// [L layout] the bias table holds an nd row
builtin.module attributes {pto.target = "a5"} {
%c64 = arith.constant 64 : index
%src, %dst = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nz>)
pto.mte_l1_bt %src, %dst, %c64 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nz>
}
// CHECK: error: 'pto.mte_l1_bt' op requires dst layout in [nd] for bt on target a5, got nz

// -----
// [M1] f16 x f16 -> f16 is not in the a2 table
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>
// CHECK: error: 'pto.mad' op requires (lhs, rhs) -> dst element types in [(bf16, bf16) -> f32, (f16, f16) -> f32, (f32, f32) -> f32, (s4, s4) -> s32, (s8, s8) -> s32] on target a2, got (f16, f16) -> f16

// -----
// [M1/G2] fp8 Mmad only on a5
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x32xf8E4M3FN, zz>, !pto.tile<l0b, 32x16xf8E4M3FN, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x32xf8E4M3FN, zz>, !pto.tile<l0b, 32x16xf8E4M3FN, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires (lhs, rhs) -> dst element types in [{{.*}}] on target a2, got (e4m3, e4m3) -> f32

// -----
// [G3] static m > 0
%c0 = arith.constant 0 : index
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c0, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires m to be positive, got 0

// -----
// [G4] k in [1, 4095]
%c16 = arith.constant 16 : index
%k = arith.constant 5000 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad_acc %a, %b, %c, %c16, %c16, %k : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad_acc' op requires k in [1, 4095], got 5000

// -----
// [M4] the lhs tile covers m x k
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c32 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires lhs tile of at least 16x32 (m x k), got 16x16

// -----
// [M4] the dst tile covers m x n
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c32, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires dst tile of at least 16x32 (m x n), got 16x16

// -----
// [L layout] an nd (GEMV) lhs needs m = 1
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 1x16xf16, nd>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 1x16xf16, nd>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires m = 1 for an nd (GEMV) lhs, got 16

// -----
// [GEMV] m = 1 runs as GEMV (L0A read as an nd vector): a zz lhs with static m = 1 is an error
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c1, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires an nd lhs for m = 1 (GEMV rule: with m = 1 the cube runs as GEMV and reads L0A as an nd vector (Ascend C Mmad: 'When M = 1, GEMV is enabled by default') on target a2), got a zz lhs

// -----
// [GEMV] a5 without disable_gemv: the nz lhs with m = 1 is the same error (disable_gemv offered)
builtin.module attributes {pto.target = "a5"} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  pto.mad_acc %a, %b, %c, %c1, %c16, %c16 : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
}
// CHECK: error: 'pto.mad_acc' op requires an nd lhs or disable_gemv for m = 1 (GEMV rule: {{.*}} on target a5), got a nz lhs

// -----
// [GEMV] disable_gemv exists only on a5
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mad %a, %b, %c, %c16, %c16, %c16 disable_gemv : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op disable_gemv is not supported on target a2

// -----
// [GEMV] disable_gemv reads L0A as nz: an nd lhs is wrong with it
builtin.module attributes {pto.target = "a5"} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 1x16xf16, nd>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  pto.mad %a, %b, %c, %c1, %c16, %c16 disable_gemv : !pto.tile<l0a, 1x16xf16, nd>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
}
// CHECK: error: 'pto.mad' op disable_gemv requires a nz lhs (GEMV off reads L0A as nz), got nd

// -----
// [G2/M2] no bias form on 310p
builtin.module attributes {pto.target = "310p"} {
  %c16 = arith.constant 16 : index
  %a, %b, %c, %bias = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf32, nd>)
  pto.mad_bias %a, %b, %c, %bias, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf32, nd>
}
// CHECK: error: 'pto.mad_bias' op mad_bias is not supported on target 310p

// -----
// [M2] bias element type = dst element type
%c16 = arith.constant 16 : index
%a, %b, %c, %bias = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf16, nd>)
pto.mad_bias %a, %b, %c, %bias, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf16, nd>
// CHECK: error: 'pto.mad_bias' op requires bias element type to match dst element type f32, got f16

// -----
// [M2] the bias row covers n
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%a, %b, %c, %bias = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x32xf32, nz>, !pto.tile<bt, 1x16xf32, nd>)
pto.mad_bias %a, %b, %c, %bias, %c16, %c32, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x32xf32, nz>, !pto.tile<bt, 1x16xf32, nd>
// CHECK: error: 'pto.mad_bias' op requires bias tile of at least 1x32 (1 x n), got 1x16

// -----
// [L layout] fixpipe reads an nz L0C tile
%c16 = arith.constant 16 : index
%src, %out = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, zz>, memref<16x16xf32>)
pto.fixpipe %src, %out, %c16, %c16 : !pto.tile<l0c, 16x16xf32, zz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe' op requires src layout in [nz] for l0c on target a2, got zz

// -----
// [F] the quant vector holds a word per output column
%c32 = arith.constant 32 : index
%s, %out8, %scale = "test.op"() : () -> (!pto.tile<l0c, 32x32xi32, nz>, memref<32x32xi8>, !pto.tile<l1, 16xui64, nd>)
pto.fixpipe %s, %out8, %c32, %c32 vector %scale : !pto.tile<l1, 16xui64, nd> {quant = "vreq8"} : !pto.tile<l0c, 32x32xi32, nz>, memref<32x32xi8>
// CHECK: error: 'pto.fixpipe' op requires vector tile of at least 1x32 (1 x n), got 1x16

// -----
// [L layout] GM <-> UB moves use nd UB tiles
%src, %ub = "test.op"() : () -> (memref<128xf16>, !pto.tile<ub, 8x16xf16, nz>)
pto.mte_gm_ub %src, %ub : memref<128xf16>, !pto.tile<ub, 8x16xf16, nz>
// CHECK: error: 'pto.mte_gm_ub' op requires dst layout in [nd] for ub on target a2, got nz

// -----
// [M2] s4 has no bias form
%c16 = arith.constant 16 : index
%c64 = arith.constant 64 : index
%a, %b, %c, %bias = "test.op"() : () -> (!pto.tile<l0a, 16x64xi4, zz>, !pto.tile<l0b, 64x16xi4, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 1x16xi32, nd>)
pto.mad_bias %a, %b, %c, %bias, %c16, %c16, %c64 : !pto.tile<l0a, 16x64xi4, zz>, !pto.tile<l0b, 64x16xi4, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 1x16xi32, nd>
// CHECK: error: 'pto.mad_bias' op requires an element type combination with a bias form on target a2, got (s4, s4) -> s32

// -----
// [G1] bias lives in BT
%c16 = arith.constant 16 : index
%a, %b, %c, %bias = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 1x16xf32, nd>)
pto.mad_bias %a, %b, %c, %bias, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 1x16xf32, nd>
// CHECK: error: 'pto.mad_bias' op requires bias in bt, got ub

// -----
// [G2] no Fixpipe on 910
builtin.module attributes {pto.target = "910"} {
  %c16 = arith.constant 16 : index
  %c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
  pto.fixpipe %c, %gm, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
}
// CHECK: error: 'pto.fixpipe' op fixpipe is not supported on target 910

// -----
// [G2] Fixpipe to UB only on a5
%c16 = arith.constant 16 : index
%c, %ub = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 16x16xf16, nd>)
pto.fixpipe %c, %ub, %c16, %c16 {quant = "f322f16"} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 16x16xf16, nd>
// CHECK: error: 'pto.fixpipe' op fixpipe to ub is not supported on target a2

// -----
// [G2] NZ2DN only on a5
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe %c, %gm, %c16, %c16 {layout = "nz2dn"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe' op nz2dn is not supported on target a2

// -----
// [G4] layout names
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe %c, %gm, %c16, %c16 {layout = "nz2zz"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe' op requires layout in [nz2dn, nz2nd, nz2nz], got nz2zz

// -----
// [F1] L0C holds f32 or s32
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf16, nz>, memref<16x16xf16>)
pto.fixpipe %c, %gm, %c16, %c16 : !pto.tile<l0c, 16x16xf16, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op requires src element type in [f32, s32], got f16

// -----
// [F1] (src, dst) types per target and destination
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xi16>)
pto.fixpipe %c, %gm, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xi16>
// CHECK: error: 'pto.fixpipe' op requires (src, dst) element types in [{{.*}}] for fixpipe to gm on target a2, got (f32, s16)

// -----
// [F1/F3] a2 L0C -> L1 has no f32 -> f32 (NoQuant) path
%c16 = arith.constant 16 : index
%c, %l1 = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>)
pto.fixpipe %c, %l1, %c16, %c16 {layout = "nz2nz"} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>
// CHECK: error: 'pto.fixpipe' op requires (src, dst) element types in [{{.*}}] for fixpipe to l1 on target a2, got (f32, f32)

// -----
// [F1] quant mode vs (src, dst) types
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>)
pto.fixpipe %c, %gm, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op requires quant mode for source element type f32 and destination element type f16 in [f322f16], got none

// -----
// [G2] a5-only quant modes
%c16 = arith.constant 16 : index
%w = arith.constant 0 : i64
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>)
pto.fixpipe %c, %gm, %c16, %c16 scalar %w {quant = "qf322f16_pre"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op quant mode qf322f16_pre is not supported on target a2

// -----
// [G4] quant mode names
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>)
pto.fixpipe %c, %gm, %c16, %c16 {quant = "F322F16"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op requires quant in [{{.*}}], got F322F16

// -----
// [F1] a scalar quant mode needs its QUANT_PRE word
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>)
pto.fixpipe %c, %gm, %c16, %c16 {quant = "deqf16"} : !pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op requires a scalar operand for quant mode deqf16

// -----
// [F1] a vector quant mode needs its scale vector
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>)
pto.fixpipe %c, %gm, %c16, %c16 {quant = "vdeqf16"} : !pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op requires a vector operand for quant mode vdeqf16

// -----
// [F1] no quant word without a scalar mode
%c16 = arith.constant 16 : index
%w = arith.constant 0 : i64
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe %c, %gm, %c16, %c16 scalar %w : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe' op requires no scalar operand for quant mode none, got one

// -----
// [F1] the scale vector holds u64 words
%c16 = arith.constant 16 : index
%c, %gm, %vec = "test.op"() : () -> (!pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>, !pto.tile<l1, 16xui32, nd>)
pto.fixpipe %c, %gm, %c16, %c16 vector %vec : !pto.tile<l1, 16xui32, nd> {quant = "vdeqf16"} : !pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe' op requires vector element type ui64, got ui32

// -----
// [F2] NZ output: n is a multiple of 16
%c16 = arith.constant 16 : index
%c24 = arith.constant 24 : index
%c, %l1 = "test.op"() : () -> (!pto.tile<l0c, 16x32xf32, nz>, !pto.tile<l1, 16x32xf16, nz>)
pto.fixpipe %c, %l1, %c16, %c24 {layout = "nz2nz", quant = "f322f16"} : !pto.tile<l0c, 16x32xf32, nz>, !pto.tile<l1, 16x32xf16, nz>
// CHECK: error: 'pto.fixpipe' op requires n to be a multiple of 16 for nz2nz, got 24

// -----
// [F2 blocks] NZ output: an f32 nz tile in L1 has 16 x 8 fractals, but the Fixpipe writes 16 x 16
// blocks there (channel split, the 16 x 8 form, exists to gm only)
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c, %l1 = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>)
  pto.fixpipe %c, %l1, %c16, %c16 {layout = "nz2nz"} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>
}
// CHECK: error: 'pto.fixpipe' op requires an nz2nz dst block width (c0) in [16] for f32 output to l1 (the Fixpipe writes Z blocks of 16 channels, 32 for 8-bit output by channel merge, 8 for f32 by channel split to gm only), got 8

// -----
// [F2 dst] nz2dn into a tile writes C^T: the tile holds n x m
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c, %ub = "test.op"() : () -> (!pto.tile<l0c, 16x32xf32, nz>, !pto.tile<ub, 16x32xf32, nd>)
  pto.fixpipe %c, %ub, %c16, %c32 {layout = "nz2dn"} : !pto.tile<l0c, 16x32xf32, nz>, !pto.tile<ub, 16x32xf32, nd>
}
// CHECK: error: 'pto.fixpipe' op requires dst tile of at least 32x16 (n x m), got 16x32

// -----
// [F2 dst] nz2nz into GM needs the 4-D Nz memref (N1, M1, 16, c0)
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x32xf32, nz>, memref<512xf32>)
pto.fixpipe %c, %gm, %c16, %c32 {layout = "nz2nz"} : !pto.tile<l0c, 16x32xf32, nz>, memref<512xf32>
// CHECK: error: 'pto.fixpipe' op requires an nz2nz dst memref of rank 4 (N1, M1, 16, c0), got rank 1

// -----
// [F2 blocks] NZ output: 8-bit output is channel-merged into 16 x 32 blocks, so a GM memref of
// 16-wide blocks cannot receive it
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%w = arith.constant 0 : i64
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x32xi32, nz>, memref<2x1x16x16xi8>)
pto.fixpipe %c, %gm, %c16, %c32 scalar %w {layout = "nz2nz", quant = "req8"} : !pto.tile<l0c, 16x32xi32, nz>, memref<2x1x16x16xi8>
// CHECK: error: 'pto.fixpipe' op requires an nz2nz dst block width (c0) in [32] for s8 output to gm (the Fixpipe writes Z blocks of 16 channels, 32 for 8-bit output by channel merge, 8 for f32 by channel split to gm only), got 16

// -----
// [F2 blocks] NZ output with channel merge: n = 32q + 16 leaves a 16-wide last block
%c16 = arith.constant 16 : index
%c48 = arith.constant 48 : index
%w = arith.constant 0 : i64
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x48xi32, nz>, memref<2x1x16x32xi8>)
pto.fixpipe %c, %gm, %c16, %c48 scalar %w {layout = "nz2nz", quant = "req8"} : !pto.tile<l0c, 16x48xi32, nz>, memref<2x1x16x32xi8>
// CHECK: error: 'pto.fixpipe' op requires n to be a multiple of 32 for nz2nz with s8 output (channel merge writes 16 x 32 blocks; the last 16 channels would form a narrower block that the 32-wide dst fractals do not hold), got 48

// -----
// [G4/F2] NZ2ND mSize <= 8192
%c16 = arith.constant 16 : index
%m = arith.constant 9000 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 9008x16xf32, nz>, memref<9000x16xf32>)
pto.fixpipe %c, %gm, %m, %c16 : !pto.tile<l0c, 9008x16xf32, nz>, memref<9000x16xf32>
// CHECK: error: 'pto.fixpipe' op requires m in [1, 8192], got 9000

// -----
// [M4] the L0C tile covers m x n
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<32x16xf32>)
pto.fixpipe %c, %gm, %c32, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<32x16xf32>
// CHECK: error: 'pto.fixpipe' op requires src tile of at least 32x16 (m x n), got 16x16

// -----
// [F2] the NZ2ND destination holds m x n
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 32x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe %c, %gm, %c32, %c16 : !pto.tile<l0c, 32x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe' op requires dst of at least 32 rows (m x n), got 16

// -----
// [L layout] NZ2NZ writes an nz tile
%c16 = arith.constant 16 : index
%c, %l1 = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf16, nd>)
pto.fixpipe %c, %l1, %c16, %c16 {layout = "nz2nz", quant = "f322f16"} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf16, nd>
// CHECK: error: 'pto.fixpipe' op requires dst layout nz for nz2nz, got nd

// -----
// [G1] GM <-> UB moves use UB tiles
%gm, %l1 = "test.op"() : () -> (memref<128xf16>, !pto.tile<l1, 128xf16, nd>)
pto.mte_gm_ub %gm, %l1 : memref<128xf16>, !pto.tile<l1, 128xf16, nd>
// CHECK: error: 'pto.mte_gm_ub' op requires dst in ub, got l1

// -----
// [M4] the UB tile holds the whole memref
%ub, %gm = "test.op"() : () -> (!pto.tile<ub, 64xf16, nd>, memref<128xf16>)
pto.mte_ub_gm %ub, %gm : !pto.tile<ub, 64xf16, nd>, memref<128xf16>
// CHECK: error: 'pto.mte_ub_gm' op requires src tile of at least 128 elements (the dst memref), got 64

// -----
// [G7] GM <-> UB element widths
%gm, %ub = "test.op"() : () -> (memref<128xf32>, !pto.tile<ub, 128xf16, nd>)
pto.mte_gm_ub %gm, %ub : memref<128xf32>, !pto.tile<ub, 128xf16, nd>
// CHECK: error: 'pto.mte_gm_ub' op requires source and destination element byte widths to match, got f32 (32 bits) and f16 (16 bits)

// -----
// [G2] no GatherMask on 910
builtin.module attributes {pto.target = "910"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
  %n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
}
// CHECK: error: 'pto.gather_mask' op gather_mask is not supported on target 910

// -----
// [G1] GatherMask works in UB
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<l1, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<l1, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires src0 in ub, got l1

// -----
// [X1] dst and src0 share the element type
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xi16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xi16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires dst element type u16 (the src0 type), got s16

// -----
// [X1] element types per target (no bf16 on 310p)
builtin.module attributes {pto.target = "310p"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xbf16, nd>, !pto.tile<ub, 128xbf16, nd>)
  %n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xbf16, nd>, !pto.tile<ub, 128xbf16, nd>
}
// CHECK: error: 'pto.gather_mask' op requires src0 element type in [f16, f32, s16, s32, u16, u32] on target 310p, got bf16

// -----
// [X1] built-in pattern 7 does not exist on 310p
builtin.module attributes {pto.target = "310p"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
  %n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 {pattern = 7 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
}
// CHECK: error: 'pto.gather_mask' op requires pattern in [1, 6] on target 310p, got 7

// -----
// [X1] exactly one of pattern and src1
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires exactly one of a built-in pattern or a src1 pattern tile

// -----
// [X1] the pattern word type follows the element width (b16 -> u16)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 128xf16, nd>, !pto.tile<ub, 128xf16, nd>, !pto.tile<ub, 8xui32, nd>)
%n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 8xui32, nd>, %c0, %c1, %c1, %c8, %c8 : !pto.tile<ub, 128xf16, nd>, !pto.tile<ub, 128xf16, nd>
// CHECK: error: 'pto.gather_mask' op requires src1 pattern word type u16 for f16 on target a2, got u32

// -----
// [L layout] the user pattern is an nd UB tile
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 128xf16, nd>, !pto.tile<ub, 128xf16, nd>, !pto.tile<ub, 16x16xui16, nz>)
%n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 16x16xui16, nz>, %c0, %c1, %c1, %c8, %c8 : !pto.tile<ub, 128xf16, nd>, !pto.tile<ub, 128xf16, nd>
// CHECK: error: 'pto.gather_mask' op requires src1 layout in [nd] for ub on target a2, got nz

// -----
// [X2] counter mode with a static mask of 0
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c1, %c1, %c8, %c8 {pattern = 1 : i64, counter} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op counter mode requires mask >= 1, got 0

// -----
// [X2] counter mode with a static mask above the 32-bit counter
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%big = arith.constant 4294967296 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %big, %c1, %c1, %c8, %c8 {pattern = 1 : i64, counter} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires mask in [1, 4294967295], got 4294967296

// -----
// [G3] repeat_times > 0
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c0, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires repeat_times to be positive, got 0

// -----
// [G4] repeat_times in [1, 255]
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%r = arith.constant 256 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %r, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires repeat_times in [1, 255], got 256

// -----
// [G4] src0_block_stride is a u8
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%b = arith.constant 256 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c1, %b, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires src0_block_stride in [0, 255], got 256

// -----
// [X3] src0 footprint: u16, blk 4, rep 7, 3 repeats of 100 (counter) = 1224 B > 608 elements
%mask = arith.constant 100 : index
%c3 = arith.constant 3 : index
%c4 = arith.constant 4 : index
%c7 = arith.constant 7 : index
%c0 = arith.constant 0 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 304xui16, nd>, !pto.tile<ub, 608xui16, nd>)
%n = pto.gather_mask %dst, %src, %mask, %c3, %c4, %c7, %c0 {pattern = 7 : i64, counter} : !pto.tile<ub, 304xui16, nd>, !pto.tile<ub, 608xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires src0 of at least 1224 bytes, got 1216

// -----
// [X3] dst holds the most the pattern can keep (pattern 1 keeps 64 of 128 per repeat)
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 64xui16, nd>, !pto.tile<ub, 256xui16, nd>)
%n = pto.gather_mask %dst, %src, %c0, %c2, %c1, %c8, %c8 {pattern = 1 : i64} : !pto.tile<ub, 64xui16, nd>, !pto.tile<ub, 256xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires dst of at least 128 elements (the most the pattern can keep), got 64

// -----
// [X3] a user pattern covers every repeat (2 repeats of 128 bits, 1 block apart = 48 B)
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 16xui16, nd>)
%n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 16xui16, nd>, %c0, %c2, %c1, %c8, %c1 : !pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 256xui16, nd>
// CHECK: error: 'pto.gather_mask' op requires src1 pattern of at least 48 bytes for all repeats, got 32

// -----
// [G5] the Mmad dst starts on 1024 B (L0C itself is 64 B granular)
%c16 = arith.constant 16 : index
%a, %b = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>)
%c = pto.alloc {offset = 512 : i64} : !pto.tile<l0c, 16x16xf32, nz>
pto.mad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mad' op requires dst offset aligned to 1024 bytes, got 512

// -----
// [sync] the source pipe is a pipe name
pto.set_flag mte4 -> mte1, 0
// CHECK: error: 'pto.set_flag' op requires a legal flag: source pipe 'mte4' is not a pipe (legal: s, v, m, mte1, mte2, mte3, fix)

// -----
// [sync] the destination pipe is a pipe name
pto.wait_flag mte2 -> l1, 0
// CHECK: error: 'pto.wait_flag' op requires a legal flag: destination pipe 'l1' is not a pipe (legal: s, v, m, mte1, mte2, mte3, fix)

// -----
// [sync] `all` only in pipe_barrier
pto.set_flag all -> v, 0
// CHECK: error: 'pto.set_flag' op requires a legal flag: source pipe 'all' is only legal in pipe_barrier (legal: s, v, m, mte1, mte2, mte3, fix)

// -----
// [sync] the pair is a HardEvent of the target
pto.wait_flag s -> m, 0
// CHECK: error: 'pto.wait_flag' op requires a legal flag: pipe pair s->m is not a flag pair on target a2 (legal: fix->fix, fix->m, fix->mte1, fix->mte2, fix->mte3, fix->s, m->fix, m->mte1, m->mte2, m->s, m->v, mte1->fix, mte1->m, mte1->mte2, mte1->mte3, mte1->v, mte2->fix, mte2->m, mte2->mte1, mte2->mte3, mte2->s, mte2->v, mte3->mte1, mte3->mte2, mte3->s, mte3->v, s->mte2, s->mte3, s->v, v->m, v->mte1, v->mte2, v->mte3, v->s, v->v)

// -----
// [sync] no FIX pipe (and so no *_FIX pair) on 310p
builtin.module attributes {pto.target = "310p"} {
  pto.set_flag m -> fix, 0
}
// CHECK: error: 'pto.set_flag' op requires a legal flag: destination pipe 'fix' is not a pipe of target 310p (legal: s, v, m, mte1, mte2, mte3)

// -----
// [sync] static event id in [0, 8) on a2
pto.set_flag mte2 -> mte1, 8
// CHECK: error: 'pto.set_flag' op requires a legal flag: event id 8 is out of range for target a2 (legal: 0..7)

// -----
// [sync] static event id in [0, 4) on 910
builtin.module attributes {pto.target = "910"} {
  pto.wait_flag mte2 -> mte1, 4
}
// CHECK: error: 'pto.wait_flag' op requires a legal flag: event id 4 is out of range for target 910 (legal: 0..3)

// -----
// [sync] a negative event id
pto.set_flag mte2 -> v, -1
// CHECK: error: 'pto.set_flag' op requires a legal flag: event id -1 is out of range for target a2 (legal: 0..7)

// -----
// [sync] exactly one event id (generic form: both the attribute and the operand)
%ev = arith.constant 1 : index
"pto.set_flag"(%ev) <{src = "mte2", dst = "mte1", event_id = 1 : i64}> : (index) -> ()
// CHECK: error: 'pto.set_flag' op requires exactly one event id: a static event_id or an index operand

// -----
// [sync] pipe_barrier takes a pipe name or all
pto.pipe_barrier vector
// CHECK: error: 'pto.pipe_barrier' op requires a legal barrier: pipe 'vector' is not legal in pipe_barrier on target a2 (legal: v, m, mte1, mte2, mte3, fix, all)

// -----
// [sync] no barrier on the scalar pipe (a hardware error)
pto.pipe_barrier s
// CHECK: error: 'pto.pipe_barrier' op requires a legal barrier: pipe 's' is not legal in pipe_barrier on target a2 (the scalar pipe keeps its order in hardware; a barrier on it is a hardware error) (legal: v, m, mte1, mte2, mte3, fix, all)

// -----
// [sync] no FIX pipe to barrier on 910
builtin.module attributes {pto.target = "910"} {
  pto.pipe_barrier fix
}
// CHECK: error: 'pto.pipe_barrier' op requires a legal barrier: pipe 'fix' is not legal in pipe_barrier on target 910 (legal: v, m, mte1, mte2, mte3, all)

// -----
// [raw G3] copy_nd2nz: a static nd_num of 0 ("not executed") is an error
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.copy_nd2nz %gm, %l1[%c0] nd_num %c0 n_value %c16 d_value %c16 src_nd_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.copy_nd2nz' op requires nd_num (ndNum) to be positive, got 0

// -----
// [raw G4] copy_nd2nz: dstNzC0Stride in [1, 16384]
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%big = arith.constant 16385 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c16 d_value %c16 src_nd_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %big dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.copy_nd2nz' op requires dst_nz_c0_stride (dstNzC0Stride) in [1, 16384], got 16385

// -----
// [raw G5] load_2d: an L0 destination offset is 512-byte aligned
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>)
pto.load_2d %l1[%c0], %l0a[%c8] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
// CHECK: error: 'pto.load_2d' op requires dst offset aligned to 512 bytes, got 8 elements

// -----
// [raw L2] load_2d: ifTranspose is b16 only
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 16x16xf32, zz>, !pto.tile<l0b, 16x16xf32, zn>)
pto.load_2d %l1[%c0], %l0b[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 if_transpose : !pto.tile<l1, 16x16xf32, zz>, !pto.tile<l0b, 16x16xf32, zn>
// CHECK: error: 'pto.load_2d' op if_transpose requires b16 elements, got f32

// -----
// [raw G2] load_2d: dstGap has no effect on a5
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, nz>)
  pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c1 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, nz>
}
// CHECK: error: 'pto.load_2d' op dst_gap has no effect on target a5 (LoadData2DParams dstGap is ignored on Ascend 950), got 1

// -----
// [raw G2] LoadDataWithTranspose does not exist on 310p
builtin.module attributes {pto.target = "310p"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>)
  pto.load_2d_transpose %l1[%c0], %l0b[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 dst_frac_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>
}
// CHECK: error: 'pto.load_2d_transpose' op load_2d_transpose is not supported on target 310p

// -----
// [raw G2b] LoadDataWithTranspose takes b4 (int4b_t) into L0B only ("b4数据类型仅在目的操作数为L0B Buffer的时候支持")
builtin.module attributes {pto.target = "a2"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 64x64xi4, nz>, !pto.tile<l0a, 64x64xi4, zz>)
  pto.load_2d_transpose %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 dst_frac_gap %c0 : !pto.tile<l1, 64x64xi4, nz>, !pto.tile<l0a, 64x64xi4, zz>
}
// CHECK: error: 'pto.load_2d_transpose' op requires element widths in [16, 32, 8] for a l0a destination on target a2, got s4

// -----
// [raw M3] mmad: kDirectionAlign only on a2/a3 and only for f32
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {k_direction_align} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op k_direction_align requires f32 operands, got f16

// -----
// [raw M3] mmad: tf32_mode is round_even or round_away
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x8xf32, zz>, !pto.tile<l0b, 8x16xf32, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {tf32_mode = "truncate"} : !pto.tile<l0a, 16x8xf32, zz>, !pto.tile<l0b, 8x16xf32, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op requires tf32_mode in [round_away, round_even], got truncate

// -----
// [raw M3] mmad: tf32_mode rounds f32 inputs, so only f32 x f32 -> f32
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {tf32_mode = "round_even"} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op tf32_mode requires f32 x f32 -> f32, got (f16, f16) -> f32

// -----
// [raw M3] mmad: sat is sat or nosat
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {sat = "clamp"} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op requires sat in [nosat, sat], got clamp

// -----
// [raw M3] mmad: sat is the float exceptional-value mode (integer results always saturate)
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {sat = "sat"} : !pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>
// CHECK: error: 'pto.mmad' op sat requires a float element type combination, got (s8, s8) -> s32

// -----
// [raw M3] mmad: unitFlag is 0, 2 or 3
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {unit_flag = 1 : i64} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op requires unit_flag in [0, 2, 3], got 1

// -----
// [raw M2] mmad: cmatrix_source names the bias table, so it needs the bias operand
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {cmatrix_source} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op requires a bias operand in bt exactly when cmatrix_source is set

// -----
// [raw M2] mmad: the bias form needs a bias table (310p has none)
builtin.module attributes {pto.target = "310p"} {
  %c16 = arith.constant 16 : index
  %a, %b, %c, %bt = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf32, nd>)
  pto.mmad %a, %b, %c bias %bt : !pto.tile<bt, 1x16xf32, nd>, %c16, %c16, %c16 {cmatrix_source} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
}
// CHECK: error: 'pto.mmad' op cmatrix_source (bias) is not supported on target 310p

// -----
// [raw M2] mmad: the bias has the accumulator's element type
%c16 = arith.constant 16 : index
%a, %b, %c, %bt = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf16, nd>)
pto.mmad %a, %b, %c bias %bt : !pto.tile<bt, 1x16xf16, nd>, %c16, %c16, %c16 {cmatrix_source} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op requires bias element type f32, got f16

// -----
// [raw M2] mmad: with a bias, C is not read from L0C
%c16 = arith.constant 16 : index
%a, %b, %c, %bt = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<bt, 1x16xf32, nd>)
pto.mmad %a, %b, %c bias %bt : !pto.tile<bt, 1x16xf32, nd>, %c16, %c16, %c16 {cmatrix_source, cmatrix_init_val = false} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op cmatrix_init_val = false takes C from L0C, not from the bias

// -----
// [raw F2] fixpipe_copy: NZ output moves whole 16-column fractals
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c24 = arith.constant 24 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x32xf32, nz>, memref<2x1x16x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c24 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {layout = "nz2nz"} : !pto.tile<l0c, 16x32xf32, nz>, memref<2x1x16x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op requires n_size to be a multiple of 16 for nz2nz, got 24

// -----
// [raw F3] fixpipe_copy: V220 srcNdStride in [0, 512]
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%c16 = arith.constant 16 : index
%c513 = arith.constant 513 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<32x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c2 src_nd_stride %c513 dst_nd_stride %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<32x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op requires src_nd_stride (srcNdStride) in [0, 512], got 513

// -----
// [raw F4] fixpipe_copy: channel split only for an f32 -> f32 NZ output
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {channel_split} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op channel split requires f32 source and destination with nz2nz

// -----
// [raw F4] fixpipe_copy: channel split writes to GM only
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c, %l1 = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>)
  pto.fixpipe_copy %c[%c0], %l1 n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {layout = "nz2nz", channel_split} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>
}
// CHECK: error: 'pto.fixpipe_copy' op channel split requires a gm destination, got l1

// -----
// [raw F4] fixpipe_copy: channel split excludes unitFlag
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<2x1x16x8xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {layout = "nz2nz", channel_split, unit_flag = 2 : i64} : !pto.tile<l0c, 16x16xf32, nz>, memref<2x1x16x8xf32>
// CHECK: error: 'pto.fixpipe_copy' op channel split requires unit_flag 0, got 2

// -----
// [raw F4] fixpipe_copy: unitFlag is 0, 2 or 3 on a target that has it (a2)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {unit_flag = 1 : i64} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op requires unit_flag in [0, 2, 3] on a target with unitFlag, got 1 on a2

// -----
// [raw F1] fixpipe_copy: nz2dn needs its srcNzC0Stride
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
  pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {layout = "nz2dn"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
}
// CHECK: error: 'pto.fixpipe_copy' op requires src_nz_c0_stride exactly with layout nz2dn

// -----
// [raw F1] fixpipe_copy: srcNzC0Stride belongs to nz2dn only
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
  pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 src_nz_c0_stride %c1 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
}
// CHECK: error: 'pto.fixpipe_copy' op requires src_nz_c0_stride exactly with layout nz2dn

// -----
// [raw F1] fixpipe_copy: srcNzC0Stride in [1, 65535]
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
  pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 src_nz_c0_stride %c0 {layout = "nz2dn"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
}
// CHECK: error: 'pto.fixpipe_copy' op requires src_nz_c0_stride (srcNzC0Stride) in [1, 65535], got 0

// -----
// [raw D1] copy_dn2nz: DN2NZ exists on a5 only
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.copy_dn2nz %gm, %l1[%c0] dn_num %c1 n_value %c16 d_value %c16 src_dn_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.copy_dn2nz' op copy_dn2nz is not supported on target a2

// -----
// [raw D1] copy_dn2nz: Dn2NzParams dValue in [1, 2^21 - 1]
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %big = arith.constant 2097152 : index
  %gm, %l1 = "test.op"() : () -> (memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.copy_dn2nz %gm, %l1[%c0] dn_num %c1 n_value %c16 d_value %big src_dn_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.copy_dn2nz' op requires d_value (dValue) in [1, 2097151], got 2097152

// -----
// [raw D1b] copy_dn2nz of 4-bit data (the b8 copy): the inner axis nValue is even (Ascend C DataCopyGM2L1DN2NZImpl)
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %gm, %l1 = "test.op"() : () -> (memref<16x64xf4E2M1FN>, !pto.tile<l1, 64x64xf4E2M1FN, nz>)
  pto.copy_dn2nz %gm, %l1[%c0] dn_num %c1 n_value %c3 d_value %c16 src_dn_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x64xf4E2M1FN>, !pto.tile<l1, 64x64xf4E2M1FN, nz>
}
// CHECK: error: 'pto.copy_dn2nz' op copy_dn2nz of 4-bit elements requires n_value (nValue) to be a multiple of 2 (Ascend C DataCopyGM2L1DN2NZImpl), got 3

// -----
// [raw D1c] copy_nd2nz on a5: the Ascend 950 ND2NZ types have fp4x2_e2m1_t but no int4b_t (s4)
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %gm, %l1 = "test.op"() : () -> (memref<16x64xi4>, !pto.tile<l1, 16x64xi4, nz>)
  pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c16 d_value %c32 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x64xi4>, !pto.tile<l1, 16x64xi4, nz>
}
// CHECK: error: 'pto.copy_nd2nz' op requires element type in [bf16, e2m1, e4m3, e5m2, f16, f32, hif8, s16, s32, s8, u16, u32, u8] on target a5, got s4

// -----
// [raw D2] small_c0: enableSmallC0 exists on a5 only
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c3 = arith.constant 3 : index
%gm, %l1 = "test.op"() : () -> (memref<4x3xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c3 d_value %c3 src_nd_matrix_stride %c0 src_d_value %c3 dst_nz_c0_stride %c1 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 small_c0 : memref<4x3xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.copy_nd2nz' op small_c0 (enableSmallC0) is not supported on target a2

// -----
// [raw D2] small_c0: only with dValue <= 4
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %gm, %l1 = "test.op"() : () -> (memref<4x5xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.copy_dn2nz %gm, %l1[%c0] dn_num %c1 n_value %c5 d_value %c5 src_dn_matrix_stride %c0 src_d_value %c5 dst_nz_c0_stride %c1 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 small_c0 : memref<4x5xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.copy_dn2nz' op small_c0 requires d_value (dValue) <= 4, got 5

// -----
// [raw G3] load_2d_v2: LoadData2DParamsV2 exists on a5 only
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>)
pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.load_2d_v2' op load_2d_v2 is not supported on target a2

// -----
// [raw G3] load_2d_v2: mStep in [1, 255]
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>)
  pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c256 k_step %c1 src_stride %c1 dst_stride %c1 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_v2' op requires m_step (mStep) in [1, 255], got 256

// -----
// [raw G3] load_2d_v2: a b8 transpose turns 32 x 32 squares, so mStep is even
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0b, 32x32xi8, zn>)
  pto.load_2d_v2 %l1[%c0], %l0b[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 if_transpose : !pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0b, 32x32xi8, zn>
}
// CHECK: error: 'pto.load_2d_v2' op if_transpose of b8 requires m_step to be a multiple of 2, got 1

// -----
// [raw G3] load_2d_v2: sid is the struct's u8
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>)
  pto.load_2d_v2 %l1[%c0], %l0a[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 {sid = 256 : i64} : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_v2' op requires sid in [0, 255], got 256

// -----
// [raw G4] load_2d: addrMode 1 (decrement) exists only on the GM -> L1 path
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>)
pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 {addr_mode = 1 : i64} : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.load_2d' op requires addr_mode in [0] (addrMode 1 exists only on the GM -> L1 path, pto.load_2d_gm), got 1

// -----
// [raw G4b] load_2d_transpose: addrMode 0 only (the a2 implementation issues inc)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>)
pto.load_2d_transpose %l1[%c0], %l0b[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 dst_frac_gap %c0 {addr_mode = 1 : i64} : !pto.tile<l1, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>
// CHECK: error: 'pto.load_2d_transpose' op requires addr_mode in [0] (the Ascend C a2 implementation of LoadDataWithTranspose issues inc only), got 1

// -----
// [raw G4] load_2d: sid is the struct's u8
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>)
pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 {sid = 300 : i64} : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
// CHECK: error: 'pto.load_2d' op requires sid in [0, 255], got 300

// -----
// [G1] reinterpret: the result layout is legal for its space (ub holds nd)
%ub = "test.op"() : () -> !pto.tile<ub, 16x16xf16, nz>
%r = pto.reinterpret %ub : !pto.tile<ub, 16x16xf16, nz> to !pto.tile<ub, 16x16xbf16, nz>
// CHECK: error: 'pto.reinterpret' op requires result layout in [nd] for ub on target a2, got nz


// -----
// [M4] mte_gm_l1 dn2nz: GM holds the transpose, cols x rows (a5)
builtin.module attributes {pto.target = "a5"} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %at, %l1 = "test.op"() : () -> (memref<32x32xf16>, !pto.tile<l1, 32x64xf16, nz>)
  pto.mte_gm_l1 %at, %l1, %c32, %c64 dn2nz : memref<32x32xf16>, !pto.tile<l1, 32x64xf16, nz>
}
// CHECK: error: 'pto.mte_gm_l1' op requires src of at least 64 rows (dn2nz: cols x rows), got 32


// -----
// [M4] mte_l1_bt: the bias table tile holds 1 x n
%c16 = arith.constant 16 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x16xf32, nd>, !pto.tile<bt, 1x8xf32, nd>)
pto.mte_l1_bt %l1, %bt, %c16 : !pto.tile<l1, 1x16xf32, nd>, !pto.tile<bt, 1x8xf32, nd>
// CHECK: error: 'pto.mte_l1_bt' op requires dst tile of at least 1x16 (1 x n), got 1x8


// -----
// [G1] mad_bias: the bias tile in bt is nd
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%a8, %b8, %c8, %bias8 = "test.op"() : () -> (!pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 16x16xi32, nz>)
pto.mad_bias %a8, %b8, %c8, %bias8, %c16, %c16, %c32 : !pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x16xi8, zn>, !pto.tile<l0c, 16x16xi32, nz>, !pto.tile<bt, 16x16xi32, nz>
// CHECK: error: 'pto.mad_bias' op requires bias layout in [nd] for bt on target a2, got nz


// -----
// [F1] fixpipe: a scale vector in fb is nd
%c32 = arith.constant 32 : index
%s, %out8, %scale = "test.op"() : () -> (!pto.tile<l0c, 32x32xi32, nz>, memref<32x32xi8>, !pto.tile<fb, 16x32xui64, nz>)
pto.fixpipe %s, %out8, %c32, %c32 vector %scale : !pto.tile<fb, 16x32xui64, nz> {quant = "vreq8"} : !pto.tile<l0c, 32x32xi32, nz>, memref<32x32xi8>
// CHECK: error: 'pto.fixpipe' op requires vector layout in [nd] for fb on target a2, got nz


// -----
// [F1] fixpipe: a UB destination tile is nd (a5)
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c, %ub = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 16x16xf32, nz>)
  pto.fixpipe %c, %ub, %c16, %c16 {layout = "nz2nz"} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 16x16xf32, nz>
}
// CHECK: error: 'pto.fixpipe' op requires dst layout in [nd] for ub on target a5, got nz


// -----
// [M4] fixpipe: a destination tile holds m x n (a5, L0C -> UB)
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c, %ub = "test.op"() : () -> (!pto.tile<l0c, 16x32xf32, nz>, !pto.tile<ub, 16x16xf32, nd>)
  pto.fixpipe %c, %ub, %c16, %c32 : !pto.tile<l0c, 16x32xf32, nz>, !pto.tile<ub, 16x16xf32, nd>
}
// CHECK: error: 'pto.fixpipe' op requires dst tile of at least 16x32 (m x n), got 16x16


// -----
// [raw G5] load_2d: a static src offset is not negative
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%neg = arith.constant -256 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>)
pto.load_2d %l1[%neg], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
// CHECK: error: 'pto.load_2d' op requires src offset >= 0, got -256


// -----
// [raw G5] load_2d: a static src offset lies inside the tile
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%end = arith.constant 1024 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>)
pto.load_2d %l1[%end], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
// CHECK: error: 'pto.load_2d' op requires src offset inside the 2048-byte tile, got 1024


// -----
// [raw G1] copy_nd2nz: the element type has an ND2NZ move on the target (no fp8 on a2)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x32xf8E4M3FN>, !pto.tile<l1, 16x32xf8E4M3FN, nz>)
pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c16 d_value %c16 src_nd_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x32xf8E4M3FN>, !pto.tile<l1, 16x32xf8E4M3FN, nz>
// CHECK: error: 'pto.copy_nd2nz' op requires element type in [bf16, f16, f32, s16, s32, s4, s8, u16, u32, u8] on target a2, got e4m3


// -----
// [raw G1] copy_nd2nz: GM and L1 elements have the same width
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%gm, %l1 = "test.op"() : () -> (memref<16x16xf32>, !pto.tile<l1, 16x16xf16, nz>)
pto.copy_nd2nz %gm, %l1[%c0] nd_num %c1 n_value %c16 d_value %c16 src_nd_matrix_stride %c0 src_d_value %c16 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<16x16xf32>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.copy_nd2nz' op requires src and dst element widths to match, got f32 and f16


// -----
// [raw G1] load_2d: L1 and L0 elements have the same width
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf32, nz>, !pto.tile<l0a, 32x32xf16, zz>)
pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 32x32xf32, nz>, !pto.tile<l0a, 32x32xf16, zz>
// CHECK: error: 'pto.load_2d' op requires src and dst element widths to match, got f32 and f16


// -----
// [raw G1] load_2d: the element type has a LoadData path on the target (no fp8 on a2)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf8E4M3FN, nz>, !pto.tile<l0a, 32x32xf8E4M3FN, zz>)
pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 32x32xf8E4M3FN, nz>, !pto.tile<l0a, 32x32xf8E4M3FN, zz>
// CHECK: error: 'pto.load_2d' op requires element type in [bf16, f16, f32, s16, s32, s4, s8, u16, u32, u8] on target a2, got e4m3


// -----
// [raw M1] mmad: the element combination is a Mmad type of the target (no f16 accumulation on a2)
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf16, nz>
// CHECK: error: 'pto.mmad' op unsupported element type combination (f16, f16) -> f16 on target a2


// -----
// [raw M2] mmad: m, n, k in [1, 4095]
%c16 = arith.constant 16 : index
%big = arith.constant 4096 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %big, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op requires m (m) in [1, 4095], got 4096


// -----
// [raw M3] mmad: kDirectionAlign exists on a2/a3 only
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  pto.mmad %a, %b, %c, %c16, %c16, %c16 {k_direction_align} : !pto.tile<l0a, 16x16xf32, nz>, !pto.tile<l0b, 16x16xf32, zn>, !pto.tile<l0c, 16x16xf32, nz>
}
// CHECK: error: 'pto.mmad' op k_direction_align is not supported on target a5


// -----
// [raw M3] mmad: disableGemv exists on a5 only
%c16 = arith.constant 16 : index
%a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
pto.mmad %a, %b, %c, %c16, %c16, %c16 {disable_gemv} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
// CHECK: error: 'pto.mmad' op disable_gemv is not supported on target a2


// -----
// [raw F1] fixpipe_copy: no Fixpipe on 310p
builtin.module attributes {pto.target = "310p"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
  pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
}
// CHECK: error: 'pto.fixpipe_copy' op fixpipe is not supported on target 310p


// -----
// [raw F1] fixpipe_copy: L0C holds f32 or s32
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf16, nz>, memref<16x16xf16>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 16x16xf16, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe_copy' op requires src element type in [f32, s32], got f16


// -----
// [raw F1] fixpipe_copy: layout nz2nd, nz2nz or nz2dn
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {layout = "nz2zz"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op requires layout in [nz2dn, nz2nd, nz2nz], got nz2zz


// -----
// [raw F1] fixpipe_copy: nz2dn exists on a5 only
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {layout = "nz2dn"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op nz2dn is not supported on target a2


// -----
// [raw F1] fixpipe_copy: no Fixpipe to UB on a2
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 16x16xf32, nd>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<ub, 16x16xf32, nd>
// CHECK: error: 'pto.fixpipe_copy' op fixpipe to ub is not supported on target a2


// -----
// [raw F1] fixpipe_copy: the (src, dst) element pair has a conversion
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xi32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xi32>
// CHECK: error: 'pto.fixpipe_copy' op requires (src, dst) element types in [(f32, bf16), (f32, f16), (f32, f32), (f32, s8), (f32, u8), (s32, f16), (s32, s32), (s32, s8), (s32, u8)], got (f32, s32)


// -----
// [raw F1] fixpipe_copy: a vector quant mode needs its scale vector
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {quant = "vdeqf16"} : !pto.tile<l0c, 16x16xi32, nz>, memref<16x16xf16>
// CHECK: error: 'pto.fixpipe_copy' op requires a vector operand for quant mode vdeqf16


// -----
// [raw F2] fixpipe_copy: NZ2ND/NZ2DN mSize <= 8192
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%big = arith.constant 8193 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 8208x16xf32, nz>, memref<8193x16xf32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %big src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 : !pto.tile<l0c, 8208x16xf32, nz>, memref<8193x16xf32>
// CHECK: error: 'pto.fixpipe_copy' op requires m_size in [1, 8192] for nz2nd, got 8193

// -----
// [raw BT1] copy_l1_bt: only targets with a bias table
builtin.module attributes {pto.target = "310p"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<l1, 1x64xf32, nd>)
  pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c1 block_len %c1 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<l1, 1x64xf32, nd>
}
// CHECK: error: 'pto.copy_l1_bt' op copy_l1_bt is not supported on target 310p (no bias table)

// -----
// [raw BT2] copy_l1_bt: the destination is the bias table
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<l1, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c1 block_len %c4 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<l1, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires dst in bt, got l1

// -----
// [raw BT3] copy_l1_bt: the BT element is an Mmad bias type
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf16, nd>, !pto.tile<bt, 1x64xf16, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c1 block_len %c4 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf16, nd>, !pto.tile<bt, 1x64xf16, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires dst element type in [f32, s32] (the bias types) on target a2, got f16

// -----
// [raw BT4] copy_l1_bt: the element type is kept or widened as the target's bias load does
// (convControl: f16 -> f32 on a2 / a3; bf16 -> f32 only on a5)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xbf16, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c1 block_len %c4 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xbf16, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires src element type in [f16, f32] for a f32 bias (the same type, or a conversion of the bias load on target a2), got bf16

// -----
// [raw BT5] copy_l1_bt: a static block_count of 0 ("not executed") is an error
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c0 block_len %c4 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires block_count (blockCount (nBurst)) to be positive, got 0

// -----
// [raw BT6] copy_l1_bt: blockCount in [1, 4095]
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%big = arith.constant 4096 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %big block_len %c1 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires block_count (blockCount (nBurst)) in [1, 4095], got 4096

// -----
// [raw BT7] copy_l1_bt: the u16 srcStride (sourceGap)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%big = arith.constant 65536 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c1 block_len %c1 src_gap %big dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires src_gap (srcStride (sourceGap)) in [0, 65535], got 65536

// -----
// [raw BT8] copy_l1_bt: the L1 source is 32-byte aligned
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c4], %bt[%c0] block_count %c1 block_len %c1 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires src offset aligned to 32 bytes, got 4 elements

// -----
// [raw BT9] copy_l1_bt: the BT destination is 64-byte aligned
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c8] block_count %c1 block_len %c1 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires dst offset aligned to 64 bytes, got 8 elements

// -----
// [raw BT10] copy_l1_bt: the bursts (64-byte units on a2, dst gaps included) stay inside the BT tile
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%c1 = arith.constant 1 : index
%c4 = arith.constant 4 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
pto.copy_l1_bt %l1[%c0], %bt[%c0] block_count %c2 block_len %c1 src_gap %c0 dst_gap %c4 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
// CHECK: error: 'pto.copy_l1_bt' op requires the bursts inside the 256-byte dst tile (64-byte units on target a2), they end at byte 384

// -----
// [raw M3] mmad: unitFlag exists on a2/a3/a5 only (not on 200i_a2)
builtin.module attributes {pto.target = "200i_a2"} {
  %c16 = arith.constant 16 : index
  %a, %b, %c = "test.op"() : () -> (!pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>)
  pto.mmad %a, %b, %c, %c16, %c16, %c16 {unit_flag = 2 : i64} : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
}
// CHECK: error: 'pto.mmad' op unit_flag is not supported on target 200i_a2

// -----
// [raw GM1] load_2d_gm: no LoadData2DParams GM -> L1 on Ascend 950 (it uses the V2 instruction)
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_gm' op load_2d_gm is not supported on target a5 (Ascend 950 loads GM -> L1 with LoadData2DParamsV2)

// -----
// [raw GM2] load_2d_gm: the element types of the GM -> L1 path (no 4-bit; 310p: b8 and b16)
builtin.module attributes {pto.target = "310p"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm, %l1 = "test.op"() : () -> (memref<128xf32>, !pto.tile<l1, 16x8xf32, nz>)
  pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<128xf32>, !pto.tile<l1, 16x8xf32, nz>
}
// CHECK: error: 'pto.load_2d_gm' op requires element type in [f16, s16, s8, u16, u8] on target 310p, got f32

// -----
// [raw GM2] load_2d_gm: src and dst have the same element type
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%gm, %l1 = "test.op"() : () -> (memref<256xi16>, !pto.tile<l1, 16x16xf16, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<256xi16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires src element type f16 (the dst type: LoadData copies fractals bit for bit), got s16

// -----
// [raw GM3] load_2d_gm: repeatTimes in [1, 255]
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c256 = arith.constant 256 : index
%gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c256 src_stride %c1 dst_gap %c0 : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires repeat_times (repeatTimes) in [1, 255], got 256

// -----
// [raw GM4] load_2d_gm: addrMode is 0 (inc) or 1 (dec)
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 {addr_mode = 2 : i64} : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires addr_mode in [0, 1] on target a2, got 2

// -----
// [raw GM4] load_2d_gm: 910's GM -> L1 LoadData is always inc (Ascend C dav_c100)
builtin.module attributes {pto.target = "910"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 {addr_mode = 1 : i64} : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_gm' op requires addr_mode in [0] on target 910, got 1

// -----
// [raw GM5] load_2d_gm: addrMode 1 reads fractals start_index - src_stride*i, none below the operand start
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c2 = arith.constant 2 : index
%c4 = arith.constant 4 : index
%c5 = arith.constant 5 : index
%gm, %l1 = "test.op"() : () -> (memref<4096xf32>, !pto.tile<l1, 80x16xf32, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c5 repeat_times %c4 src_stride %c2 dst_gap %c2 {addr_mode = 1 : i64} : memref<4096xf32>, !pto.tile<l1, 80x16xf32, nz>
// CHECK: error: 'pto.load_2d_gm' op requires start_index >= src_stride * (repeat_times - 1) = 6 with addr_mode 1 (the source fractal index decreases), got 5

// -----
// [raw GM6] load_2d_gm: no dstGap on the training series (910)
builtin.module attributes {pto.target = "910"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %gm, %l1 = "test.op"() : () -> (memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>)
  pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c2 src_stride %c1 dst_gap %c1 : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>
}
// CHECK: error: 'pto.load_2d_gm' op requires dst_gap 0 on target 910 (no dstGap on the GM -> L1 LoadData of the training series), got 1

// -----
// [raw GM7] load_2d_gm: the L1 destination offset is 32-byte aligned
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%gm, %l1 = "test.op"() : () -> (memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c8] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires dst offset aligned to 32 bytes, got 8 elements

// -----
// [raw GM7] load_2d_gm: static fractals end inside the L1 tile
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c2 = arith.constant 2 : index
%c3 = arith.constant 3 : index
%gm, %l1 = "test.op"() : () -> (memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c2 src_stride %c1 dst_gap %c3 : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires the fractals inside the 2048-byte dst tile, they end at byte 2560

// -----
// [L2] a transposed b32 A needs zz of A^T in L1 before a5 (LoadDataWithTranspose squares of two 16 x 8 fractals side by side)
%c32 = arith.constant 32 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf32, nz>, !pto.tile<l0a, 32x32xf32, zz>)
pto.mte_l1_l0a %l1, %l0a, %c32, %c32 transpose : !pto.tile<l1, 32x32xf32, nz>, !pto.tile<l0a, 32x32xf32, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires src layout in [zz] for a transposed 32-bit A moved to zz on target a2 (its LoadDataWithTranspose squares put two 16 x 8 fractals side by side along m, which zz keeps adjacent: no LoadData turns nz 32-bit fractals of A^T into zz ones of A), got nz (a load3d move, Load3Dv2, reads it)

// -----
// [L3] load3d (Load3Dv2) is the form of a move that transposes fractals: not of an A as is
%c32 = arith.constant 32 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xf32, nz>, !pto.tile<l0a, 32x32xf32, zz>)
pto.mte_l1_l0a %l1, %l0a, %c32, %c32 load3d : !pto.tile<l1, 32x32xf32, nz>, !pto.tile<l0a, 32x32xf32, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires load3d only on a move that transposes fractals (the Load3Dv2 form of a transposing TEXTRACT / TMOV)

// -----
// [L3] load3d transposes 16- and 32-bit elements (1-byte operands take LoadDataWithTranspose)
%c32 = arith.constant 32 : index
%l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0b, 32x32xi8, zn>)
pto.mte_l1_l0b %l1, %l0b, %c32, %c32 load3d : !pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0b, 32x32xi8, zn>
// CHECK: error: 'pto.mte_l1_l0b' op requires load3d element width in [16, 32] bits, got 8 (s8)

// -----
// [L3] load3d reads an Nz feature map
%c16 = arith.constant 16 : index
%l1, %l0b = "test.op"() : () -> (!pto.tile<l1, 16x16xf32, zz>, !pto.tile<l0b, 16x16xf32, zn>)
pto.mte_l1_l0b %l1, %l0b, %c16, %c16 load3d : !pto.tile<l1, 16x16xf32, zz>, !pto.tile<l0b, 16x16xf32, zn>
// CHECK: error: 'pto.mte_l1_l0b' op requires src layout in [nz] for a load3d move (Load3Dv2 reads an Nz feature map), got zz

// -----
// [L2] a transposed b8 A needs nz of A^T in L1 (squares of two 16 x 32 fractals stacked along k)
%c32 = arith.constant 32 : index
%l1, %l0a = "test.op"() : () -> (!pto.tile<l1, 32x32xi8, zz>, !pto.tile<l0a, 32x32xi8, zz>)
pto.mte_l1_l0a %l1, %l0a, %c32, %c32 transpose : !pto.tile<l1, 32x32xi8, zz>, !pto.tile<l0a, 32x32xi8, zz>
// CHECK: error: 'pto.mte_l1_l0a' op requires src layout in [nz] for a transposed 8-bit A moved to zz on target a2 (LoadDataWithTranspose takes squares of two fractals stacked along k, which nz keeps adjacent: no LoadData turns zz 8-bit fractals of A^T into zz ones of A), got zz

// -----
// [raw GM1] load_2d_v2_gm: LoadData2DParamsV2 GM -> L1 is Ascend 950 only
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.load_2d_v2_gm %gm[%c0], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.load_2d_v2_gm' op load_2d_v2_gm is not supported on target a2 (LoadData2DParamsV2 is Ascend 950 only)

// -----
// [raw GM2] load_2d_v2_gm: the types of the GMToL1 V2 page (no 16-bit integers)
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xi16>, !pto.tile<l1, 16x16xi16, nz>)
  pto.load_2d_v2_gm %gm[%c0], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 : memref<256xi16>, !pto.tile<l1, 16x16xi16, nz>
}
// CHECK: error: 'pto.load_2d_v2_gm' op requires element type in [bf16, e2m1, e4m3, e5m2, f16, f32, hif8, s32, s8, u32, u8] on target a5, got s16

// -----
// [raw GM3] load_2d_v2_gm: mStep in [1, 255]
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.load_2d_v2_gm %gm[%c0], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c256 k_step %c1 src_stride %c1 dst_stride %c1 : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_v2_gm' op requires m_step (mStep) in [1, 255], got 256

// -----
// [raw GM8] load_2d_gm: sid is the struct's u8
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%m1 = arith.constant -1 : index
%gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.load_2d_gm %gm[%c0], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 {sid = 256 : i64} : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires sid in [0, 255], got 256

// -----
// [raw GM8] load_2d_gm: a static GM source offset is not negative
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%m1 = arith.constant -1 : index
%gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
pto.load_2d_gm %gm[%m1], %l1[%c0] start_index %c0 repeat_times %c1 src_stride %c1 dst_gap %c0 : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
// CHECK: error: 'pto.load_2d_gm' op requires src offset >= 0, got -1

// -----
// [raw GM2] load_2d_v2_gm: src and dst have the same element type
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xbf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.load_2d_v2_gm %gm[%c0], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 : memref<256xbf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_v2_gm' op requires src element type f16 (the dst type: LoadData copies fractals bit for bit), got bf16

// -----
// [raw GM8] load_2d_v2_gm: sid is the struct's u8
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.load_2d_v2_gm %gm[%c0], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 {sid = 256 : i64} : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_v2_gm' op requires sid in [0, 255], got 256

// -----
// [raw GM8] load_2d_v2_gm: a static GM source offset is not negative
builtin.module attributes {pto.target = "a5"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : index
  %gm, %l1 = "test.op"() : () -> (memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>)
  pto.load_2d_v2_gm %gm[%m1], %l1[%c0] m_start_position %c0 k_start_position %c0 m_step %c1 k_step %c1 src_stride %c1 dst_stride %c1 : memref<256xf16>, !pto.tile<l1, 16x16xf16, nz>
}
// CHECK: error: 'pto.load_2d_v2_gm' op requires src offset >= 0, got -1

// -----
// [atomic] a store's GM atomic mode is add, max or min
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
pto.fixpipe %c, %gm, %c16, %c16 {atomic = "sub"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
// CHECK: error: 'pto.fixpipe' op requires atomic in [add, max, min], got sub

// -----
// [atomic] atomic stores update GM only
builtin.module attributes {pto.target = "a5"} {
  %c16 = arith.constant 16 : index
  %c, %l1 = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>)
  pto.fixpipe %c, %l1, %c16, %c16 {layout = "nz2nz", atomic = "add"} : !pto.tile<l0c, 16x16xf32, nz>, !pto.tile<l1, 16x16xf32, nz>
}
// CHECK: error: 'pto.fixpipe' op requires a gm dst for atomic add (atomic stores update GM), got l1

// -----
// [atomic] the GM element types per target and mode (200I/500 A2: atomic add only)
builtin.module attributes {pto.target = "200i_a2"} {
  %c16 = arith.constant 16 : index
  %c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>)
  pto.fixpipe %c, %gm, %c16, %c16 {atomic = "max"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
}
// CHECK: error: 'pto.fixpipe' op requires dst element type in [] for atomic max on target 200i_a2, got f32

// -----
// [atomic] fixpipe_copy: the same rules
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c16 = arith.constant 16 : index
%c, %gm = "test.op"() : () -> (!pto.tile<l0c, 16x16xi32, nz>, memref<256xi32>)
pto.fixpipe_copy %c[%c0], %gm n_size %c16 m_size %c16 src_stride %c16 dst_stride %c16 nd_num %c1 src_nd_stride %c0 dst_nd_stride %c0 {atomic = "mul"} : !pto.tile<l0c, 16x16xi32, nz>, memref<256xi32>
// CHECK: error: 'pto.fixpipe_copy' op requires atomic in [add, max, min], got mul


// -----
// [FB1] mte_l1_fb: src in l1
%c16 = arith.constant 16 : index
%ub, %fb = "test.op"() : () -> (!pto.tile<ub, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>)
pto.mte_l1_fb %ub, %fb, %c16 : !pto.tile<ub, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>
// CHECK: error: 'pto.mte_l1_fb' op requires src in l1, got ub

// -----
// [FB1] mte_l1_fb: dst in fb
%c16 = arith.constant 16 : index
%l1, %bt = "test.op"() : () -> (!pto.tile<l1, 16xui64, nd>, !pto.tile<bt, 16xui64, nd>)
pto.mte_l1_fb %l1, %bt, %c16 : !pto.tile<l1, 16xui64, nd>, !pto.tile<bt, 16xui64, nd>
// CHECK: error: 'pto.mte_l1_fb' op requires dst in fb, got bt

// -----
// [FB2] mte_l1_fb: the L1 side is a parameter row (nd)
%c16 = arith.constant 16 : index
%l1, %fb = "test.op"() : () -> (!pto.tile<l1, 16x16xf32, nz>, !pto.tile<fb, 256xf32, nd>)
pto.mte_l1_fb %l1, %fb, %c16 : !pto.tile<l1, 16x16xf32, nz>, !pto.tile<fb, 256xf32, nd>
// CHECK: error: 'pto.mte_l1_fb' op requires src layout nd (a parameter row), got nz

// -----
// [FB2] mte_l1_fb: the bytes are copied as they are (one element type)
%c16 = arith.constant 16 : index
%l1, %fb = "test.op"() : () -> (!pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 32xf32, nd>)
pto.mte_l1_fb %l1, %fb, %c16 : !pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 32xf32, nd>
// CHECK: error: 'pto.mte_l1_fb' op requires dst element type u64 (the src type), got f32

// -----
// [FB3] mte_l1_fb: whole FB burst units (128 bytes on a2)
%c8 = arith.constant 8 : index
%l1, %fb = "test.op"() : () -> (!pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>)
pto.mte_l1_fb %l1, %fb, %c8 : !pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>
// CHECK: error: 'pto.mte_l1_fb' op requires n x 8 bytes to be whole FB burst units (128 bytes on target a2), got 64 bytes

// -----
// [FB4] mte_l1_fb: the FB tile holds the n words
%c32 = arith.constant 32 : index
%l1, %fb = "test.op"() : () -> (!pto.tile<l1, 32xui64, nd>, !pto.tile<fb, 16xui64, nd>)
pto.mte_l1_fb %l1, %fb, %c32 : !pto.tile<l1, 32xui64, nd>, !pto.tile<fb, 16xui64, nd>
// CHECK: error: 'pto.mte_l1_fb' op requires dst tile of at least 1x32 (1 x n), got 1x16

// -----
// [FB5] mte_l1_fb: targets without a fixpipe buffer
builtin.module attributes {pto.target = "310p"} {
%c16 = arith.constant 16 : index
%l1, %fb = "test.op"() : () -> (!pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>)
pto.mte_l1_fb %l1, %fb, %c16 : !pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>
}
// CHECK: error: 'pto.mte_l1_fb' op mte_l1_fb is not supported on target 310p (no fixpipe buffer)
