// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.gather_mask: built-in patterns (normal mode), user patterns (counter mode), runtime values.
func.func @gather(%mask: index, %repeat: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c70 = arith.constant 70 : index
  %src = pto.alloc : !pto.tile<ub, 256xui32, nd>
  // CHECK: %src = pto.alloc : !pto.tile<ub, 256xui32, nd>
  %dst = pto.alloc : !pto.tile<ub, 256xui32, nd>
  // CHECK: %dst = pto.alloc : !pto.tile<ub, 256xui32, nd>
  %pat = pto.alloc : !pto.tile<ub, 8xui32, nd>
  // CHECK: %pat = pto.alloc : !pto.tile<ub, 8xui32, nd>
  %n0 = pto.gather_mask %dst, %src, %c0, %c2, %c1, %c8, %c0 {pattern = 2 : i64} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
  // CHECK: %n0 = pto.gather_mask %dst, %src, %c0, %c2, %c1, %c8, %c0 {pattern = 2 : i64} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
  %n1 = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 8xui32, nd>, %c70, %c2, %c1, %c2, %c0 {counter} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
  // CHECK: %n1 = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 8xui32, nd>, %c70, %c2, %c1, %c2, %c0 {counter} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
  %n2 = pto.gather_mask %dst, %src, %mask, %repeat, %c1, %c8, %c0 {pattern = 7 : i64, counter} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
  // CHECK: %n2 = pto.gather_mask %dst, %src, %mask, %repeat, %c1, %c8, %c0 {pattern = 7 : i64, counter} : !pto.tile<ub, 256xui32, nd>, !pto.tile<ub, 256xui32, nd>
  func.return
}

// -----
// The ASC footprint example (u16, blk 4, rep 7, 3 repeats of 100): 612 elements pass.
%mask = arith.constant 100 : index
%c3 = arith.constant 3 : index
%c4 = arith.constant 4 : index
%c7 = arith.constant 7 : index
%c0 = arith.constant 0 : index
%dst, %src = "test.op"() : () -> (!pto.tile<ub, 300xui16, nd>, !pto.tile<ub, 612xui16, nd>)
// CHECK: %dst, %src = "test.op"() : () -> (!pto.tile<ub, 300xui16, nd>, !pto.tile<ub, 612xui16, nd>)
%n = pto.gather_mask %dst, %src, %mask, %c3, %c4, %c7, %c0 {pattern = 7 : i64, counter} : !pto.tile<ub, 300xui16, nd>, !pto.tile<ub, 612xui16, nd>
// CHECK: %n = pto.gather_mask %dst, %src, %mask, %c3, %c4, %c7, %c0 {pattern = 7 : i64, counter} : !pto.tile<ub, 300xui16, nd>, !pto.tile<ub, 612xui16, nd>

// -----
// 310p counter method 2: mask is the total count (repeat_times ignored); pattern words u32 for f32.
builtin.module attributes {pto.target = "310p"} {
  %mask = arith.constant 70 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 70xf32, nd>, !pto.tile<ub, 256xf32, nd>, !pto.tile<ub, 16xui32, nd>)
  // CHECK: %dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 70xf32, nd>, !pto.tile<ub, 256xf32, nd>, !pto.tile<ub, 16xui32, nd>)
  %n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 16xui32, nd>, %mask, %c0, %c1, %c2, %c1 {counter} : !pto.tile<ub, 70xf32, nd>, !pto.tile<ub, 256xf32, nd>
  // CHECK: %n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 16xui32, nd>, %mask, %c0, %c1, %c2, %c1 {counter} : !pto.tile<ub, 70xf32, nd>, !pto.tile<ub, 256xf32, nd>
}

// -----
// A user pattern of exactly the bytes its repeats read passes (2 repeats of 128 bits, 1 block
// apart = 48 B; pto_invalid.mlir refuses 32 B).
%c0 = arith.constant 0 : index
%c2 = arith.constant 2 : index
%c1 = arith.constant 1 : index
%c8 = arith.constant 8 : index
%dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 24xui16, nd>)
// CHECK: %dst, %src, %pat = "test.op"() : () -> (!pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 24xui16, nd>)
%n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 24xui16, nd>, %c0, %c2, %c1, %c8, %c1 : !pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 256xui16, nd>
// CHECK: %n = pto.gather_mask %dst, %src, pattern %pat : !pto.tile<ub, 24xui16, nd>, %c0, %c2, %c1, %c8, %c1 : !pto.tile<ub, 256xui16, nd>, !pto.tile<ub, 256xui16, nd>
