// RUN: mmair-opt %s --split-input-file --verify-diagnostics -p pto-assign-addresses | filecheck %s
// Every pto.alloc without an offset gets an aligned offset in its space; tiles that are not live at
// the same time share bytes. Largest tiles are placed first, each at the lowest free aligned offset.

// %x (2 KB) dies before %z (2 KB) is first used, so %z takes %x's bytes; %y (1 KB) is live across
// both and goes above them.
func.func @reuse(%g: memref<1024xf16>, %h: memref<512xf16>) {
  %x = pto.alloc : !pto.tile<ub, 1024xf16, nd>
  %y = pto.alloc : !pto.tile<ub, 512xf16, nd>
  %z = pto.alloc : !pto.tile<ub, 1024xf16, nd>
  pto.mte_gm_ub %g, %x : memref<1024xf16>, !pto.tile<ub, 1024xf16, nd>
  pto.mte_gm_ub %h, %y : memref<512xf16>, !pto.tile<ub, 512xf16, nd>
  pto.mte_ub_gm %x, %g : !pto.tile<ub, 1024xf16, nd>, memref<1024xf16>
  pto.mte_gm_ub %g, %z : memref<1024xf16>, !pto.tile<ub, 1024xf16, nd>
  pto.mte_ub_gm %z, %g : !pto.tile<ub, 1024xf16, nd>, memref<1024xf16>
  pto.mte_ub_gm %y, %h : !pto.tile<ub, 512xf16, nd>, memref<512xf16>
  func.return
}
// CHECK-LABEL: func.func @reuse
// CHECK-NEXT:    %x = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 1024xf16, nd>
// CHECK-NEXT:    %y = pto.alloc {offset = 2048 : i64} : !pto.tile<ub, 512xf16, nd>
// CHECK-NEXT:    %z = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 1024xf16, nd>

// -----

// A tile allocated before a loop and used in it is live for the whole loop (%p, %q), so %q does not
// take %p's bytes even though %p's last use in the body comes first. Tiles allocated in the body
// live for one iteration (%t1, %t2 share). %r, used only after the loop, reuses %p's bytes.
func.func @loops(%g: memref<1024xf16>, %k: memref<256xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = pto.alloc : !pto.tile<ub, 1024xf16, nd>
  %q = pto.alloc : !pto.tile<ub, 1024xf16, nd>
  %r = pto.alloc : !pto.tile<ub, 1024xf16, nd>
  scf.for %i = %c0 to %n step %c1 {
    pto.mte_gm_ub %g, %p : memref<1024xf16>, !pto.tile<ub, 1024xf16, nd>
    pto.mte_ub_gm %p, %g : !pto.tile<ub, 1024xf16, nd>, memref<1024xf16>
    pto.mte_gm_ub %g, %q : memref<1024xf16>, !pto.tile<ub, 1024xf16, nd>
    %t1 = pto.alloc : !pto.tile<ub, 256xf16, nd>
    %t2 = pto.alloc : !pto.tile<ub, 256xf16, nd>
    pto.mte_ub_gm %t1, %k : !pto.tile<ub, 256xf16, nd>, memref<256xf16>
    pto.mte_ub_gm %t2, %k : !pto.tile<ub, 256xf16, nd>, memref<256xf16>
  }
  pto.mte_ub_gm %r, %g : !pto.tile<ub, 1024xf16, nd>, memref<1024xf16>
  func.return
}
// CHECK-LABEL: func.func @loops
// CHECK:         %p = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 1024xf16, nd>
// CHECK-NEXT:    %q = pto.alloc {offset = 2048 : i64} : !pto.tile<ub, 1024xf16, nd>
// CHECK-NEXT:    %r = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 1024xf16, nd>
// CHECK:         %t1 = pto.alloc {offset = 4096 : i64} : !pto.tile<ub, 256xf16, nd>
// CHECK-NEXT:    %t2 = pto.alloc {offset = 4096 : i64} : !pto.tile<ub, 256xf16, nd>

// -----

// Op alignments: a Mmad dst in L0C starts on 1024 bytes (the space granularity is 64). %s (1536 B)
// is placed first at 0, so %acc goes to 2048, not 1536. A tile with an explicit offset is an
// obstacle for the whole function: %late, used after %fixed's last use, still goes above it.
func.func @align(%g: memref<16x16xf32>, %v: memref<1024xf16>) {
  %c16 = arith.constant 16 : index
  %s = pto.alloc : !pto.tile<l0c, 48x16xf16, nz>
  %acc = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
  %a = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
  %b = pto.alloc : !pto.tile<l0b, 16x16xf16, zn>
  %fixed = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 1024xf16, nd>
  %late = pto.alloc : !pto.tile<ub, 1024xf16, nd>
  "test.op"(%s) : (!pto.tile<l0c, 48x16xf16, nz>) -> ()
  pto.mad %a, %b, %acc, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
  "test.op"(%s) : (!pto.tile<l0c, 48x16xf16, nz>) -> ()
  pto.fixpipe %acc, %g, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
  pto.mte_gm_ub %v, %fixed : memref<1024xf16>, !pto.tile<ub, 1024xf16, nd>
  pto.mte_gm_ub %v, %late : memref<1024xf16>, !pto.tile<ub, 1024xf16, nd>
  func.return
}
// CHECK-LABEL: func.func @align
// CHECK:         %s = pto.alloc {offset = 0 : i64} : !pto.tile<l0c, 48x16xf16, nz>
// CHECK-NEXT:    %acc = pto.alloc {offset = 2048 : i64} : !pto.tile<l0c, 16x16xf32, nz>
// CHECK-NEXT:    %a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 16x16xf16, zz>
// CHECK-NEXT:    %b = pto.alloc {offset = 0 : i64} : !pto.tile<l0b, 16x16xf16, zn>
// CHECK-NEXT:    %fixed = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 1024xf16, nd>
// CHECK-NEXT:    %late = pto.alloc {offset = 2048 : i64} : !pto.tile<ub, 1024xf16, nd>

// -----

// A view made with pto.reinterpret keeps its tile live: %u's last use is through %v.
func.func @views(%g: memref<512xf16>, %h: memref<512xbf16>) {
  %u = pto.alloc : !pto.tile<ub, 512xf16, nd>
  %w = pto.alloc : !pto.tile<ub, 512xf16, nd>
  pto.mte_gm_ub %g, %u : memref<512xf16>, !pto.tile<ub, 512xf16, nd>
  %v = pto.reinterpret %u : !pto.tile<ub, 512xf16, nd> to !pto.tile<ub, 512xbf16, nd>
  pto.mte_gm_ub %g, %w : memref<512xf16>, !pto.tile<ub, 512xf16, nd>
  pto.mte_ub_gm %v, %h : !pto.tile<ub, 512xbf16, nd>, memref<512xbf16>
  func.return
}
// CHECK-LABEL: func.func @views
// CHECK-NEXT:    %u = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 512xf16, nd>
// CHECK-NEXT:    %w = pto.alloc {offset = 1024 : i64} : !pto.tile<ub, 512xf16, nd>

// -----

// Overflow: three L0A tiles of 32 KB live at once do not fit 64 KB.
func.func @overflow(%x: index) {
  %a = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
  %b = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
  %c = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
  "test.op"(%a, %b, %c) : (!pto.tile<l0a, 128x128xf16, zz>, !pto.tile<l0a, 128x128xf16, zz>, !pto.tile<l0a, 128x128xf16, zz>) -> ()
  func.return
}
// CHECK: error: 'pto.alloc' op does not fit in l0a: %c (32768 bytes) aligned to 512 needs [65536, 98304), l0a capacity is 65536 bytes on target a2; live at the peak (98304 bytes): %a (32768 bytes), %b (32768 bytes), %c (32768 bytes)
