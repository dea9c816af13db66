// RUN: mmair-opt %s --split-input-file -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=512},pto-assign-addresses,pto-insert-sync' | filecheck %s
// RUN: mmair-opt %s --split-input-file -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=512 multi-buffer=2},pto-assign-addresses,pto-insert-sync' | filecheck %s --check-prefix=DB
// pto-insert-sync on lowered matmuls (after tiling and address assignment).
//
// A K loop: A and B stay in L1 (loaded once: one mte2 -> mte1 flag before the loop). In the loop,
// the moves into L0A/L0B must wait until the previous iteration's mad has read them: a
// loop-carried m -> mte1 flag (set before the loop, wait + set in the body, wait after the loop);
// the mad waits for the moves (mte1 -> m); fixpipe waits for the last mad (m -> fix).
// With multi-buffer=2 (DB) each L0 slot has its own loop-carried flag (m -> mte1 ids 0 and 1), so
// the moves into slot 1 need not wait for the mad of slot 0; the two mads of a round accumulate
// into one L0C with no flag chain between them: pipe_barrier(m).
builtin.module attributes {pto.target = "a2"} {
  func.func @kloop(%a: memref<32x2048xf16>, %b: memref<2048x32xf16>, %c: memref<32x32xf32>) {
    pto.matmul %a, %b, %c : memref<32x2048xf16>, memref<2048x32xf16>, memref<32x32xf32>
    func.return
  }
}
// CHECK-LABEL: func.func @kloop
// CHECK:     %a_l1 = pto.alloc {offset = 131072 : i64} :
// CHECK-NEXT: %b_l1 = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %a_l0a = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %b_l0b = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %c_l0c = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: pto.mte_gm_l1 %b, %b_l1, %c2048, %c32 :
// CHECK-NEXT: pto.mte_gm_l1 %a, %a_l1, %c32, %c2048 :
// CHECK-NEXT: pto.set_flag mte2 -> mte1, 0
// CHECK-NEXT: pto.wait_flag mte2 -> mte1, 0
// CHECK-NEXT: pto.set_flag m -> mte1, 0
// CHECK-NEXT: scf.for %k = %c0 to %c2048 step %c512 {
// CHECK-NEXT:   pto.wait_flag m -> mte1, 0
// CHECK-NEXT:   pto.mte_l1_l0a %a_l1[%c0, %k], %a_l0a, %c32, %c512 :
// CHECK-NEXT:   pto.mte_l1_l0b %b_l1[%k, %c0], %b_l0b, %c512, %c32 :
// CHECK-NEXT:   pto.set_flag mte1 -> m, 0
// CHECK-NEXT:   %first = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:   pto.wait_flag mte1 -> m, 0
// CHECK-NEXT:   scf.if %first {
// CHECK-NEXT:     pto.mad %a_l0a, %b_l0b, %c_l0c, %c32, %c32, %c512 :
// CHECK-NEXT:   } else {
// CHECK-NEXT:     pto.mad_acc %a_l0a, %b_l0b, %c_l0c, %c32, %c32, %c512 :
// CHECK-NEXT:   }
// CHECK-NEXT:   pto.set_flag m -> mte1, 0
// CHECK-NEXT: }
// CHECK-NEXT: pto.set_flag m -> fix, 0
// CHECK-NEXT: pto.wait_flag m -> mte1, 0
// CHECK-NEXT: pto.wait_flag m -> fix, 0
// CHECK-NEXT: pto.fixpipe %c_l0c, %c, %c32, %c32 :
// CHECK-NEXT: func.return
// DB-LABEL: func.func @kloop
// DB:        %a_l1 = pto.alloc {offset = 131072 : i64} :
// DB-NEXT:   %b_l1 = pto.alloc {offset = 0 : i64} :
// DB-NEXT:   %a_l0a_s0 = pto.alloc {pto.multi_buffer = 1 : i64, offset = 0 : i64} :
// DB-NEXT:   %a_l0a_s1 = pto.alloc {pto.multi_buffer = 1 : i64, offset = 32768 : i64} :
// DB-NEXT:   %b_l0b_s0 = pto.alloc {pto.multi_buffer = 2 : i64, offset = 0 : i64} :
// DB-NEXT:   %b_l0b_s1 = pto.alloc {pto.multi_buffer = 2 : i64, offset = 32768 : i64} :
// DB-NEXT:   %c_l0c = pto.alloc {offset = 0 : i64} :
// DB-NEXT:   pto.mte_gm_l1 %b, %b_l1, %c2048, %c32 :
// DB-NEXT:   pto.mte_gm_l1 %a, %a_l1, %c32, %c2048 :
// DB-NEXT:   pto.set_flag mte2 -> mte1, 0
// DB-NEXT:   %c1024 = arith.constant 1024 : index
// DB-NEXT:   pto.wait_flag mte2 -> mte1, 0
// DB-NEXT:   pto.set_flag m -> mte1, 0
// DB-NEXT:   pto.set_flag m -> mte1, 1
// DB-NEXT:   scf.for %k = %c0 to %c2048 step %c1024 {
// DB-NEXT:     pto.wait_flag m -> mte1, 0
// DB-NEXT:     pto.mte_l1_l0a %a_l1[%c0, %k], %a_l0a_s0, %c32, %c512 :
// DB-NEXT:     pto.mte_l1_l0b %b_l1[%k, %c0], %b_l0b_s0, %c512, %c32 :
// DB-NEXT:     pto.set_flag mte1 -> m, 0
// DB-NEXT:     %first = arith.cmpi eq, %k, %c0 : index
// DB-NEXT:     pto.wait_flag mte1 -> m, 0
// DB-NEXT:     pto.pipe_barrier m
// DB-NEXT:     scf.if %first {
// DB-NEXT:       pto.mad %a_l0a_s0, %b_l0b_s0, %c_l0c, %c32, %c32, %c512 :
// DB-NEXT:     } else {
// DB-NEXT:       pto.mad_acc %a_l0a_s0, %b_l0b_s0, %c_l0c, %c32, %c32, %c512 :
// DB-NEXT:     }
// DB-NEXT:     pto.set_flag m -> mte1, 0
// DB-NEXT:     %k1 = arith.addi %k, %c512 : index
// DB-NEXT:     pto.wait_flag m -> mte1, 1
// DB-NEXT:     pto.mte_l1_l0a %a_l1[%c0, %k1], %a_l0a_s1, %c32, %c512 :
// DB-NEXT:     pto.mte_l1_l0b %b_l1[%k1, %c0], %b_l0b_s1, %c512, %c32 :
// DB-NEXT:     pto.set_flag mte1 -> m, 0
// DB-NEXT:     %first_1 = arith.cmpi eq, %k1, %c0 : index
// DB-NEXT:     pto.wait_flag mte1 -> m, 0
// DB-NEXT:     pto.pipe_barrier m
// DB-NEXT:     scf.if %first_1 {
// DB-NEXT:       pto.mad %a_l0a_s1, %b_l0b_s1, %c_l0c, %c32, %c32, %c512 :
// DB-NEXT:     } else {
// DB-NEXT:       pto.mad_acc %a_l0a_s1, %b_l0b_s1, %c_l0c, %c32, %c32, %c512 :
// DB-NEXT:     }
// DB-NEXT:     pto.set_flag m -> mte1, 1
// DB-NEXT:   }
// DB-NEXT:   pto.set_flag m -> fix, 0
// DB-NEXT:   pto.wait_flag m -> mte1, 1
// DB-NEXT:   pto.wait_flag m -> mte1, 0
// DB-NEXT:   pto.wait_flag m -> fix, 0
// DB-NEXT:   pto.fixpipe %c_l0c, %c, %c32, %c32 :
// DB-NEXT:   func.return

// -----

// Nested M/N/K loops: the A row panel is reloaded per i after the moves of the previous i have
// read it (mte1 -> mte2, carried by the i loop); L0C is rewritten per j after the previous j's
// fixpipe has read it (fix -> m, carried by the j loop); inside, the K-loop pattern above.
builtin.module attributes {pto.target = "a2"} {
  func.func @nested(%a: memref<64x1024xf16>, %b: memref<1024x64xf16>, %c: memref<64x64xf32>) {
    pto.matmul %a, %b, %c : memref<64x1024xf16>, memref<1024x64xf16>, memref<64x64xf32>
    func.return
  }
}
// CHECK-LABEL: func.func @nested
// CHECK:     %a_l1 = pto.alloc {offset = 131072 : i64} :
// CHECK-NEXT: %b_l1 = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %a_l0a = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %b_l0b = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: %c_l0c = pto.alloc {offset = 0 : i64} :
// CHECK-NEXT: pto.mte_gm_l1 %b, %b_l1, %c1024, %c64 :
// CHECK-NEXT: pto.set_flag mte1 -> mte2, 0
// CHECK-NEXT: scf.for %i = %c0 to %c64 step %c32 {
// CHECK-NEXT:   %a_panel = memref.subview %a[%i, 0] [32, 1024] [1, 1] : memref<64x1024xf16> to memref<32x1024xf16, strided<[1024, 1], offset: ?>>
// CHECK-NEXT:   pto.wait_flag mte1 -> mte2, 0
// CHECK-NEXT:   pto.mte_gm_l1 %a_panel, %a_l1, %c32, %c1024 :
// CHECK-NEXT:   pto.set_flag mte2 -> mte1, 0
// CHECK-NEXT:   pto.wait_flag mte2 -> mte1, 0
// CHECK-NEXT:   pto.set_flag fix -> m, 0
// CHECK-NEXT:   scf.for %j = %c0 to %c64 step %c32 {
// CHECK-NEXT:     pto.set_flag m -> mte1, 0
// CHECK-NEXT:     pto.wait_flag fix -> m, 0
// CHECK-NEXT:     scf.for %k = %c0 to %c1024 step %c512 {
// CHECK-NEXT:       pto.wait_flag m -> mte1, 0
// CHECK-NEXT:       pto.mte_l1_l0a %a_l1[%c0, %k], %a_l0a, %c32, %c512 :
// CHECK-NEXT:       pto.mte_l1_l0b %b_l1[%k, %j], %b_l0b, %c512, %c32 :
// CHECK-NEXT:       pto.set_flag mte1 -> m, 0
// CHECK-NEXT:       %first = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:       pto.wait_flag mte1 -> m, 0
// CHECK-NEXT:       scf.if %first {
// CHECK-NEXT:         pto.mad %a_l0a, %b_l0b, %c_l0c, %c32, %c32, %c512 :
// CHECK-NEXT:       } else {
// CHECK-NEXT:         pto.mad_acc %a_l0a, %b_l0b, %c_l0c, %c32, %c32, %c512 :
// CHECK-NEXT:       }
// CHECK-NEXT:       pto.set_flag m -> mte1, 0
// CHECK-NEXT:     }
// CHECK-NEXT:     pto.set_flag m -> fix, 0
// CHECK-NEXT:     pto.wait_flag m -> mte1, 0
// CHECK-NEXT:     %c_win = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
// CHECK-NEXT:     pto.wait_flag m -> fix, 0
// CHECK-NEXT:     pto.fixpipe %c_l0c, %c_win, %c32, %c32 :
// CHECK-NEXT:     pto.set_flag fix -> m, 0
// CHECK-NEXT:   }
// CHECK-NEXT:   pto.set_flag mte1 -> mte2, 0
// CHECK-NEXT:   pto.wait_flag fix -> m, 0
// CHECK-NEXT: }
// CHECK-NEXT: pto.wait_flag mte1 -> mte2, 0
// CHECK-NEXT: func.return
