// RUN: mmair-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Whole-kernel tcgen05 ops: one chunk per rule.

// R33: a .32x32b access of warp 1 must start at lane 32 (its lane quarter is 32..63).
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(1) lane(0) column(0) %t : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK: 'tcgen05.ld' op lane = 0 is outside the warp's lane quarter; legal: 32 (warp 1 reaches lanes 32..63; .32x32b covers 32 lanes) [R33]

// -----

// R33: a .16x64b access covers 16 lanes, which must lie in the warp's quarter.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("16x64b") num(8) warp(0) lane(24) column(0) %t : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK: 'tcgen05.ld' op lane = 24 is outside the warp's lane quarter; legal: 0, 16 (warp 0 reaches lanes 0..31; .16x64b covers 16 lanes) [R33]

// -----

// R33: .16x256b stops at .x32 (4 x 32 = 128 registers per thread).
%t = "test.op"() : () -> memref<128x512xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("16x256b") num(64) warp(0) lane(0) column(0) %t : memref<128x512xf32, #tcgen05.space<tmem>> -> memref<32x256xf32>
// CHECK: 'tcgen05.ld' op num = 64 needs 256 registers per thread (at most 128); legal: x1, x2, x4, x8, x16, x32 (.16x256b) [R33]

// -----

// R33: the shape is one of the five.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
tcgen05.st shape("32x64b") num(1) warp(0) lane(0) column(0) %t, %t : memref<128x128xf32, #tcgen05.space<tmem>>, memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.st' op shape = 32x64b is not a tcgen05.ld/st shape; legal: 16x64b, 16x128b, 16x256b, 32x32b, 16x32bx2 [R33]

// -----

// The registers are 32 threads x (registers per thread) b32 values.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("16x128b") num(4) warp(0) lane(0) column(0) %t : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x4xf32>
// CHECK: 'tcgen05.ld' op requires registers memref<32x8x...> (32 threads x 8 registers of .16x128b.x4), got memref<32x4xf32>

// -----

// tcgen05.cp .64x128b needs a warpx2 multicast.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%desc = "test.op"() : () -> i64
tcgen05.cp cta_group(1) shape("64x128b") %t, %desc : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.cp' op multicast = none is not legal with .64x128b; legal: warpx2::02_13, warpx2::01_23 (.64x128b)

// -----

// tcgen05.cp decompression formats.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%desc = "test.op"() : () -> i64
tcgen05.cp cta_group(1) shape("128x256b") decompress("b8x16.b2x16") %t, %desc : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK: 'tcgen05.cp' op decompress = b8x16.b2x16 is not a tcgen05.cp decompression; legal: b8x16.b6x16_p32, b8x16.b4x16_p64

// -----

// An mbarrier is one 64-bit word in shared memory.
%bar = "test.op"() : () -> memref<2xi64, #tcgen05.space<smem>>
tcgen05.mbarrier_init %bar count(1) : memref<2xi64, #tcgen05.space<smem>>
// CHECK: 'tcgen05.mbarrier_init' op requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got memref<2xi64, #tcgen05.space<smem>>

// -----

// R31: one cta_group per kernel, commit included.
func.func @k(%bar: memref<1xi64, #tcgen05.space<smem>>) {
  %t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xf32, #tcgen05.space<tmem>>
  tcgen05.commit cta_group(2) %bar : memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK: 'tcgen05.commit' op cta_group = [1, 2] mixes CTA group sizes in one kernel; legal: a single value per kernel [R31] (the kernel's first tcgen05 op 'tcgen05.alloc' uses cta_group 1)

// -----

// No allocation after the CTA relinquished its permit.
func.func @k() {
  tcgen05.relinquish_alloc_permit cta_group(1)
  %t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xf32, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.alloc' op requires no tcgen05.alloc after tcgen05.relinquish_alloc_permit (the CTA gave up its permit to allocate tensor memory)

// -----

// dealloc frees what tcgen05.alloc allocated (a whole allocation).
func.func @k() {
  %t = "test.op"() : () -> memref<128x32xf32, #tcgen05.space<tmem>>
  tcgen05.dealloc cta_group(1) %t : memref<128x32xf32, #tcgen05.space<tmem>>
  func.return
}
// CHECK: 'tcgen05.dealloc' op requires the result of a tcgen05.alloc (a whole allocation), got the result of 'test.op'

// -----

// The TMEM operand of tcgen05.ld is in tensor memory.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<smem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) %t : memref<128x128xf32, #tcgen05.space<smem>> -> memref<32x8xf32>
// CHECK: error: 'tcgen05.ld' op requires a tensor-memory operand (a memref in #tcgen05.space<tmem>), got memref<128x128xf32, #tcgen05.space<smem>>

// -----

// The TMEM operand is a static 2-D memref (lanes x columns).
%t = "test.op"() : () -> memref<128xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) %t : memref<128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK: error: 'tcgen05.ld' op requires the TMEM operand to be a static 2-D memref, got memref<128xf32, #tcgen05.space<tmem>>

// -----

// The accessed lanes and columns lie inside the TMEM operand.
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(124) %t : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK: error: 'tcgen05.ld' op requires lanes 0..31 and columns 124..131 inside the TMEM operand 128x128

// -----

// TMEM cells are 32-bit: the TMEM operand has 32-bit elements (a 16-bit D only with pack).
%t = "test.op"() : () -> memref<128x128xf16, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) %t : memref<128x128xf16, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK: error: 'tcgen05.ld' op requires the TMEM operand of 32-bit elements (b32 registers / TMEM cells; 16-bit only with pack), got f16

// -----

// Registers are 32-bit: the registers memref has 32-bit elements (16-bit halves only with pack).
%t = "test.op"() : () -> memref<128x128xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) %t : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf16>
// CHECK: error: 'tcgen05.ld' op requires the registers of 32-bit elements (b32 registers / TMEM cells; 16-bit only with pack), got f16

// -----

// A packed load's registers are b32 or their 16-bit halves, not bytes.
%t = "test.op"() : () -> memref<128x128xf16, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) pack %t : memref<128x128xf16, #tcgen05.space<tmem>> -> memref<32x32xi8>
// CHECK: error: 'tcgen05.ld' op requires the registers of 32-bit or 16-bit elements (b32 registers / TMEM cells, or their 16-bit halves with pack), got i8

// -----

// 16-bit registers of a packed load are the two halves of each register: 32 x (2 x registers).
%t = "test.op"() : () -> memref<128x128xf16, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) pack %t : memref<128x128xf16, #tcgen05.space<tmem>> -> memref<32x8xf16>
// CHECK: error: 'tcgen05.ld' op requires registers memref<32x16x...> (32 threads x the 16-bit halves of 8 registers of .32x32b.x8), got memref<32x8xf16>

// -----

// cta_group is 1 or 2.
tcgen05.relinquish_alloc_permit cta_group(3)
// CHECK: error: 'tcgen05.relinquish_alloc_permit' op requires cta_group in 1, 2, got 3

// -----

// cta_group is 1 or 2.
%t, %desc = "test.op"() : () -> (memref<128x128xf32, #tcgen05.space<tmem>>, i64)
tcgen05.cp cta_group(3) shape("128x256b") %t, %desc : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK: error: 'tcgen05.cp' op requires cta_group in 1, 2, got 3

// -----

// split (immHalfSplitoff) is a column offset: not negative.
%t = "test.op"() : () -> memref<128x64xf32, #tcgen05.space<tmem>>
%r = tcgen05.ld shape("16x32bx2") num(4) warp(0) lane(0) column(0) split(-4) %t : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x4xf32>
// CHECK: error: 'tcgen05.ld' op requires split (immHalfSplitoff) >= 0, got -4

// -----

// tcgen05.commit arrives on an mbarrier: one 64-bit word in shared memory.
%bar = "test.op"() : () -> memref<1xi32, #tcgen05.space<smem>>
tcgen05.commit cta_group(1) %bar : memref<1xi32, #tcgen05.space<smem>>
// CHECK: error: 'tcgen05.commit' op requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got memref<1xi32, #tcgen05.space<smem>>

// -----

// mbarrier.init's expected arrival count is 1..2^20-1 (PTX ISA "mbarrier.init").
%bar = "test.op"() : () -> memref<1xi64, #tcgen05.space<smem>>
tcgen05.mbarrier_init %bar count(0) : memref<1xi64, #tcgen05.space<smem>>
// CHECK: error: 'tcgen05.mbarrier_init' op requires count in 1..1048575, got 0

// -----

// mbarrier.arrive works on an mbarrier in shared memory (not a TMEM or GM word).
%bar = "test.op"() : () -> memref<1xi64, #tcgen05.space<tmem>>
tcgen05.mbarrier_arrive %bar : memref<1xi64, #tcgen05.space<tmem>>
// CHECK: error: 'tcgen05.mbarrier_arrive' op requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got memref<1xi64, #tcgen05.space<tmem>>

// -----

// mbarrier.inval ends the life of an mbarrier: one 64-bit word in shared memory.
%bar = "test.op"() : () -> memref<1xi64>
tcgen05.mbarrier_inval %bar : memref<1xi64>
// CHECK: error: 'tcgen05.mbarrier_inval' op requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got memref<1xi64>

// -----

// expect_tx adds pending transaction bytes to the phase: 0..2^20-1, the range of count.
%bar = "test.op"() : () -> memref<1xi64, #tcgen05.space<smem>>
tcgen05.mbarrier_arrive %bar expect_tx(1048576) : memref<1xi64, #tcgen05.space<smem>>
// CHECK: error: 'tcgen05.mbarrier_arrive' op requires expect_tx in 0..1048575, got 1048576

// -----

// mbarrier.try_wait.parity waits on an mbarrier: one 64-bit word.
%bar, %parity = "test.op"() : () -> (memref<2xi64, #tcgen05.space<smem>>, i1)
tcgen05.mbarrier_wait %bar, %parity : memref<2xi64, #tcgen05.space<smem>>
// CHECK: error: 'tcgen05.mbarrier_wait' op requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got memref<2xi64, #tcgen05.space<smem>>

// -----

// tcgen05.cp copies shared memory into tensor memory: the destination is TMEM.
%t, %desc = "test.op"() : () -> (memref<128x128xf32, #tcgen05.space<smem>>, i64)
tcgen05.cp cta_group(1) shape("128x256b") %t, %desc : memref<128x128xf32, #tcgen05.space<smem>>
// CHECK: error: 'tcgen05.cp' op requires a tensor-memory destination, got memref<128x128xf32, #tcgen05.space<smem>>

// -----

// cta_group is 1 or 2.
%t = "test.op"() : () -> memref<128x64xf32, #tcgen05.space<tmem>>
tcgen05.shift cta_group(0) %t : memref<128x64xf32, #tcgen05.space<tmem>>
// CHECK: error: 'tcgen05.shift' op requires cta_group in 1, 2, got 0

// -----

// tcgen05.shift moves rows of tensor memory: its operand is TMEM.
%t = "test.op"() : () -> memref<128x64xf32, #tcgen05.space<smem>>
tcgen05.shift cta_group(1) %t : memref<128x64xf32, #tcgen05.space<smem>>
// CHECK: error: 'tcgen05.shift' op requires a tensor-memory operand, got memref<128x64xf32, #tcgen05.space<smem>>
