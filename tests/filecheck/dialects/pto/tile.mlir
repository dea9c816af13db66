// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// Tile type syntax: every layout, 1-D nd tiles, explicit factorizations (checked, then dropped),
// sub-byte and custom element types.
%a = "test.op"() : () -> !pto.tile<l1, 30x70xf16, nz, 5x2x16x16>
// CHECK: %a = "test.op"() : () -> !pto.tile<l1, 30x70xf16, nz>
%b = "test.op"() : () -> !pto.tile<l1, 30x70xf16, zz, 2x5x16x16>
// CHECK: %b = "test.op"() : () -> !pto.tile<l1, 30x70xf16, zz>
%c = "test.op"() : () -> !pto.tile<l0b, 70x40xf16, zn, 5x3x16x16>
// CHECK: %c = "test.op"() : () -> !pto.tile<l0b, 70x40xf16, zn>
%d = "test.op"() : () -> !pto.tile<l1, 40x70xf32, nn, 5x5x16x8>
// CHECK: %d = "test.op"() : () -> !pto.tile<l1, 40x70xf32, nn>
%e = "test.op"() : () -> !pto.tile<l0c, 30x40xf32, nz, 3x2x16x16>
// CHECK: %e = "test.op"() : () -> !pto.tile<l0c, 30x40xf32, nz>
%f = "test.op"() : () -> !pto.tile<ub, 256xf16, nd>
// CHECK: %f = "test.op"() : () -> !pto.tile<ub, 256xf16, nd>
%g = "test.op"() : () -> !pto.tile<ub, 16x8xbf16, dn, 8x16>
// CHECK: %g = "test.op"() : () -> !pto.tile<ub, 16x8xbf16, dn>
%h = "test.op"() : () -> !pto.tile<l0a, 16x128xi4, zz, 1x2x16x64>
// CHECK: %h = "test.op"() : () -> !pto.tile<l0a, 16x128xi4, zz>
%i = "test.op"() : () -> !pto.tile<l0a, 16x64x!pto.hif8, nz>
// CHECK: %i = "test.op"() : () -> !pto.tile<l0a, 16x64x!pto.hif8, nz>
%j = "test.op"() : () -> !pto.tile<l0b, 64x16xf8E5M2, zn>
// CHECK: %j = "test.op"() : () -> !pto.tile<l0b, 64x16xf8E5M2, zn>
%k = "test.op"() : () -> !pto.tile<ub, 64xui16, nd, 64>
// CHECK: %k = "test.op"() : () -> !pto.tile<ub, 64xui16, nd>
