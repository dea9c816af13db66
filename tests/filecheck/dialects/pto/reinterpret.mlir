// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.reinterpret: same space, layout, element width and physical shape.
%ub = pto.alloc : !pto.tile<ub, 128xf16, nd>
// CHECK: %ub = pto.alloc : !pto.tile<ub, 128xf16, nd>
%bf = pto.reinterpret %ub : !pto.tile<ub, 128xf16, nd> to !pto.tile<ub, 128xbf16, nd>
// CHECK: %bf = pto.reinterpret %ub : !pto.tile<ub, 128xf16, nd> to !pto.tile<ub, 128xbf16, nd>
%l1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
// CHECK: %l1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
%u = pto.reinterpret %l1 : !pto.tile<l1, 32x32xf16, nz> to !pto.tile<l1, 32x32xui16, nz>
// CHECK: %u = pto.reinterpret %l1 : !pto.tile<l1, 32x32xf16, nz> to !pto.tile<l1, 32x32xui16, nz>
%pad = pto.reinterpret %l1 : !pto.tile<l1, 32x32xf16, nz> to !pto.tile<l1, 30x20xf16, nz>
// CHECK: %pad = pto.reinterpret %l1 : !pto.tile<l1, 32x32xf16, nz> to !pto.tile<l1, 30x20xf16, nz>
