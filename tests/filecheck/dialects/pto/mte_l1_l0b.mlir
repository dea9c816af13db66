// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.mte_l1_l0b: seed-NZ B (zz), Ascend C B (nz), transposed B (Nz of B^T), a window.
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%c64 = arith.constant 64 : index
%b_zz = pto.alloc : !pto.tile<l1, 64x64xf16, zz>
// CHECK: %b_zz = pto.alloc : !pto.tile<l1, 64x64xf16, zz>
%b_nz = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
// CHECK: %b_nz = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
%bt_nz = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
// CHECK: %bt_nz = pto.alloc : !pto.tile<l1, 64x64xf16, nz>
%l0b = pto.alloc : !pto.tile<l0b, 64x64xf16, zn>
// CHECK: %l0b = pto.alloc : !pto.tile<l0b, 64x64xf16, zn>
pto.mte_l1_l0b %b_zz, %l0b, %c64, %c64 : !pto.tile<l1, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>
// CHECK: pto.mte_l1_l0b %b_zz, %l0b, %c64, %c64 : !pto.tile<l1, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>
pto.mte_l1_l0b %b_nz, %l0b, %c64, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0b, 64x64xf16, zn>
// CHECK: pto.mte_l1_l0b %b_nz, %l0b, %c64, %c32 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0b, 64x64xf16, zn>
pto.mte_l1_l0b %bt_nz, %l0b, %c64, %c64 transpose : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0b, 64x64xf16, zn>
// CHECK: pto.mte_l1_l0b %bt_nz, %l0b, %c64, %c64 transpose : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0b, 64x64xf16, zn>
pto.mte_l1_l0b %b_zz[%c32, %c16], %l0b, %c32, %c16 : !pto.tile<l1, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>
// CHECK: pto.mte_l1_l0b %b_zz[%c32, %c16], %l0b, %c32, %c16 : !pto.tile<l1, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>

// -----
// a2 f32: B staged transposed needs no fractal transpose; a hardware b32 transpose needs 16x16 blocks.
%c16 = arith.constant 16 : index
%c32 = arith.constant 32 : index
%bt = pto.alloc : !pto.tile<l1, 16x32xf32, nz>
// CHECK: %bt = pto.alloc : !pto.tile<l1, 16x32xf32, nz>
%b = pto.alloc : !pto.tile<l1, 32x16xf32, zz>
// CHECK: %b = pto.alloc : !pto.tile<l1, 32x16xf32, zz>
%l0b = pto.alloc : !pto.tile<l0b, 32x16xf32, zn>
// CHECK: %l0b = pto.alloc : !pto.tile<l0b, 32x16xf32, zn>
pto.mte_l1_l0b %bt, %l0b, %c32, %c16 transpose : !pto.tile<l1, 16x32xf32, nz>, !pto.tile<l0b, 32x16xf32, zn>
// CHECK: pto.mte_l1_l0b %bt, %l0b, %c32, %c16 transpose : !pto.tile<l1, 16x32xf32, nz>, !pto.tile<l0b, 32x16xf32, zn>
pto.mte_l1_l0b %b, %l0b, %c32, %c16 : !pto.tile<l1, 32x16xf32, zz>, !pto.tile<l0b, 32x16xf32, zn>
// CHECK: pto.mte_l1_l0b %b, %l0b, %c32, %c16 : !pto.tile<l1, 32x16xf32, zz>, !pto.tile<l0b, 32x16xf32, zn>

// -----
// s4 B from Nz on a2: the LoadDataWithTranspose b4 squares (four 16 x 64 fractals) into L0B.
%c64 = arith.constant 64 : index
%b4_nz = pto.alloc : !pto.tile<l1, 64x64xi4, nz>
%b4_l0b = pto.alloc : !pto.tile<l0b, 64x64xi4, zn>
pto.mte_l1_l0b %b4_nz, %b4_l0b, %c64, %c64 : !pto.tile<l1, 64x64xi4, nz>, !pto.tile<l0b, 64x64xi4, zn>
// CHECK: pto.mte_l1_l0b %b4_nz, %b4_l0b, %c64, %c64 : !pto.tile<l1, 64x64xi4, nz>, !pto.tile<l0b, 64x64xi4, zn>

// -----
// An f32 B staged Nz reaches Zn by Load3Dv2 (`load3d`), as pto-isa's TMOV / TEXTRACT move it.
%c16 = arith.constant 16 : index
%b32 = pto.alloc : !pto.tile<l1, 16x32xf32, nz>
%l0b32 = pto.alloc : !pto.tile<l0b, 16x32xf32, zn>
pto.mte_l1_l0b %b32, %l0b32, %c16, %c16 load3d : !pto.tile<l1, 16x32xf32, nz>, !pto.tile<l0b, 16x32xf32, zn>
// CHECK: pto.mte_l1_l0b %b32, %l0b32, %c16, %c16 load3d : !pto.tile<l1, 16x32xf32, nz>, !pto.tile<l0b, 16x32xf32, zn>
