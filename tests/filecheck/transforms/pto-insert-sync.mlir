// RUN: mmair-opt %s --split-input-file -p pto-insert-sync | filecheck %s
// pto-insert-sync on straight-line code: each hand-off between pipes gets one set_flag/wait_flag
// pair, the set after the last producer, the wait before the first consumer (one flag for both
// loads, one for both moves), event id 0 on each pipe pair.

builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
    %n128 = arith.constant 128 : index
    %l1_a = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 128x128xf16, nz>
    %l1_b = pto.alloc {offset = 32768 : i64} : !pto.tile<l1, 128x128xf16, zz>
    %l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 128x128xf16, zz>
    %l0b = pto.alloc {offset = 0 : i64} : !pto.tile<l0b, 128x128xf16, zn>
    %l0c = pto.alloc {offset = 0 : i64} : !pto.tile<l0c, 128x128xf32, nz>
    pto.mte_gm_l1 %a, %l1_a, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>
    pto.mte_gm_l1 %b, %l1_b, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, zz>
    pto.mte_l1_l0a %l1_a, %l0a, %n128, %n128 : !pto.tile<l1, 128x128xf16, nz>, !pto.tile<l0a, 128x128xf16, zz>
    pto.mte_l1_l0b %l1_b, %l0b, %n128, %n128 : !pto.tile<l1, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>
    pto.mad %l0a, %l0b, %l0c, %n128, %n128, %n128 : !pto.tile<l0a, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>, !pto.tile<l0c, 128x128xf32, nz>
    pto.fixpipe %l0c, %c, %n128, %n128 : !pto.tile<l0c, 128x128xf32, nz>, memref<128x128xf32>
    func.return
  }
}
// CHECK-LABEL: func.func @gemm
// CHECK:     %l1_a = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %l1_b = pto.alloc {offset = 32768 : i64} :
// CHECK-NEXT: %l0a = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %l0b = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %l0c = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: pto.mte_gm_l1 %a, %l1_a, %n128, %n128 :
// CHECK-NEXT: pto.mte_gm_l1 %b, %l1_b, %n128, %n128 :
// CHECK-NEXT: pto.set_flag mte2 -> mte1, 0
// CHECK-NEXT: pto.wait_flag mte2 -> mte1, 0
// CHECK-NEXT: pto.mte_l1_l0a %l1_a, %l0a, %n128, %n128 :
// CHECK-NEXT: pto.mte_l1_l0b %l1_b, %l0b, %n128, %n128 :
// CHECK-NEXT: pto.set_flag mte1 -> m, 0
// CHECK-NEXT: pto.wait_flag mte1 -> m, 0
// CHECK-NEXT: pto.mad %l0a, %l0b, %l0c, %n128, %n128, %n128 :
// CHECK-NEXT: pto.set_flag m -> fix, 0
// CHECK-NEXT: pto.wait_flag m -> fix, 0
// CHECK-NEXT: pto.fixpipe %l0c, %c, %n128, %n128 :
// CHECK-NEXT: func.return

// -----

// GatherMask on the vector pipe: MTE2 -> V before it, V -> MTE3 before the store, and V -> S
// before the scalar unit returns the kept count the vector pipe produced.
builtin.module attributes {pto.target = "a2"} {
  func.func @gather(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {offset = 256 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    // mask (ignored in normal mode), repeat_times, src0_block_stride, src0_repeat_stride, src1_repeat_stride
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    pto.mte_ub_gm %ub_dst, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    func.return %kept : index
  }
}
// CHECK-LABEL: func.func @gather
// CHECK:     %ub_src = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %ub_dst = pto.alloc {offset = 256 : i64} :
// CHECK-NEXT: pto.mte_gm_ub %src, %ub_src :
// CHECK-NEXT: pto.set_flag mte2 -> v, 0
// CHECK-NEXT: pto.wait_flag mte2 -> v, 0
// CHECK-NEXT: %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} :
// CHECK-NEXT: pto.set_flag v -> s, 0
// CHECK-NEXT: pto.set_flag v -> mte3, 0
// CHECK-NEXT: pto.wait_flag v -> mte3, 0
// CHECK-NEXT: pto.mte_ub_gm %ub_dst, %dst :
// CHECK-NEXT: pto.wait_flag v -> s, 0
// CHECK-NEXT: func.return %kept : index

// -----

// Scalar loads and stores of GM are accesses of pipe S: reading the copy MTE3 writes needs
// mte3 -> s, overwriting %src while MTE2 may still read it needs mte2 -> s, and MTE2 reading an
// element the scalar unit stored needs s -> mte2 (the store is not visible to a pipe in issue
// order). The second store needs no flag of its own: mte2 -> mte3 -> s already orders it after
// the MTE2 read.

builtin.module attributes {pto.target = "a2"} {
  func.func @scalar(%src: memref<128xi32>, %dst: memref<128xi32>) -> i32 {
    %c3 = arith.constant 3 : index
    %v = arith.constant 77 : i32
    %ub = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xi32, nd>
    memref.store %v, %src[%c3] : memref<128xi32>
    pto.mte_gm_ub %src, %ub : memref<128xi32>, !pto.tile<ub, 128xi32, nd>
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 128xi32, nd>, memref<128xi32>
    %r = memref.load %dst[%c3] : memref<128xi32>
    memref.store %r, %src[%c3] : memref<128xi32>
    func.return %r : i32
  }
}

// CHECK-LABEL: func.func @scalar
// CHECK:         memref.store %v, %src[%c3]
// CHECK-NEXT:    pto.set_flag s -> mte2, 0
// CHECK-NEXT:    pto.wait_flag s -> mte2, 0
// CHECK-NEXT:    pto.mte_gm_ub %src, %ub
// CHECK-NEXT:    pto.set_flag mte2 -> mte3, 0
// CHECK-NEXT:    pto.wait_flag mte2 -> mte3, 0
// CHECK-NEXT:    pto.mte_ub_gm %ub, %dst
// CHECK-NEXT:    pto.set_flag mte3 -> s, 0
// CHECK-NEXT:    pto.wait_flag mte3 -> s, 0
// CHECK-NEXT:    %r = memref.load %dst[%c3]
// CHECK-NEXT:    memref.store %r, %src[%c3]
// CHECK-NEXT:    func.return %r
