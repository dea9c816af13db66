// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.alloc: implicit and explicit offsets in every space of a2.
%l1 = pto.alloc : !pto.tile<l1, 128x128xf16, nz>
// CHECK: %l1 = pto.alloc : !pto.tile<l1, 128x128xf16, nz>
%l1b = pto.alloc {offset = 32768 : i64} : !pto.tile<l1, 128x128xf16, zz>
// CHECK: %l1b = pto.alloc {offset = 32768 : i64} : !pto.tile<l1, 128x128xf16, zz>
%l0a = pto.alloc {offset = 4096 : i64} : !pto.tile<l0a, 64x64xf16, zz>
// CHECK: %l0a = pto.alloc {offset = 4096 : i64} : !pto.tile<l0a, 64x64xf16, zz>
%gemv = pto.alloc : !pto.tile<l0a, 1x256xf16, nd>
// CHECK: %gemv = pto.alloc : !pto.tile<l0a, 1x256xf16, nd>
%l0b = pto.alloc : !pto.tile<l0b, 64x64xf16, zn>
// CHECK: %l0b = pto.alloc : !pto.tile<l0b, 64x64xf16, zn>
%l0c = pto.alloc {offset = 65536 : i64} : !pto.tile<l0c, 128x128xf32, nz>
// CHECK: %l0c = pto.alloc {offset = 65536 : i64} : !pto.tile<l0c, 128x128xf32, nz>
%ub = pto.alloc : !pto.tile<ub, 256xf16, nd>
// CHECK: %ub = pto.alloc : !pto.tile<ub, 256xf16, nd>
%bt = pto.alloc : !pto.tile<bt, 1x256xf32, nd>
// CHECK: %bt = pto.alloc : !pto.tile<bt, 1x256xf32, nd>
%fb = pto.alloc {offset = 1024 : i64} : !pto.tile<fb, 128xui64, nd>
// CHECK: %fb = pto.alloc {offset = 1024 : i64} : !pto.tile<fb, 128xui64, nd>

// -----
// a5: L0A is nz, and the larger L0C (256 KB) holds a 256x256 f32 tile.
builtin.module attributes {pto.target = "a5"} {
  %l0a = pto.alloc : !pto.tile<l0a, 128x128xf16, nz>
  // CHECK: %l0a = pto.alloc : !pto.tile<l0a, 128x128xf16, nz>
  %l0c = pto.alloc : !pto.tile<l0c, 256x256xf32, nz>
  // CHECK: %l0c = pto.alloc : !pto.tile<l0c, 256x256xf32, nz>
}
