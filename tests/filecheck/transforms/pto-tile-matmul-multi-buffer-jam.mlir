// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32 multi-buffer=2 jam-l0c=true}' | filecheck %s

// jam-l0c=true with two L0C slots: the j loop is unrolled and jammed. One k loop multiplies for
// output tiles j (slot 0) and j + 32 (slot 1), each K step of both chains in turn (so the
// executor's pool can run a mad of each chain side by side); both fixpipes follow the fused loop.

builtin.module attributes {pto.target = "a2"} {
  func.func @jam(%a: memref<32x128xf16>, %b: memref<128x128xf16>, %c: memref<32x128xf32>) {
    pto.matmul %a, %b, %c : memref<32x128xf16>, memref<128x128xf16>, memref<32x128xf32>
    func.return
  }
}

// CHECK:      %c_l0c_s0 = pto.alloc {pto.multi_buffer = 3 : i64} : !pto.tile<l0c, 32x32xf32, nz>
// CHECK-NEXT: %c_l0c_s1 = pto.alloc {pto.multi_buffer = 3 : i64} : !pto.tile<l0c, 32x32xf32, nz>
// CHECK:      scf.for %j = %c0 to %c128 step %c64 {
// CHECK-NEXT:   %j1 = arith.addi %j, %c32 : index
// CHECK:        scf.for %k = %c0 to %c128 step %c64_1 {
// CHECK:          pto.mte_l1_l0b %b_l1[%k, %j], %b_l0b_s0, %c32, %c32
// CHECK:          pto.mad %a_l0a_s0, %b_l0b_s0, %c_l0c_s0,
// CHECK:          pto.mad_acc %a_l0a_s0, %b_l0b_s0, %c_l0c_s0,
// CHECK:          pto.mte_l1_l0b %b_l1[%k1, %j], %b_l0b_s1, %c32, %c32
// CHECK:          pto.mad_acc %a_l0a_s1, %b_l0b_s1, %c_l0c_s0,
// CHECK:          pto.mte_l1_l0b %b_l1[%k, %j1], %b_l0b_s0, %c32, %c32
// CHECK:          pto.mad %a_l0a_s0, %b_l0b_s0, %c_l0c_s1,
// CHECK:          pto.mad_acc %a_l0a_s0, %b_l0b_s0, %c_l0c_s1,
// CHECK:          pto.mte_l1_l0b %b_l1[%k1_1, %j1], %b_l0b_s1, %c32, %c32
// CHECK:          pto.mad_acc %a_l0a_s1, %b_l0b_s1, %c_l0c_s1,
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: %c_win = memref.subview %c[0, %j]
// CHECK-NEXT: pto.fixpipe %c_l0c_s0, %c_win,
// CHECK-NEXT: %c_win_1 = memref.subview %c[0, %j1]
// CHECK-NEXT: pto.fixpipe %c_l0c_s1, %c_win_1,
// CHECK-NEXT: }
