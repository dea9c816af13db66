// K-looped, double-buffered f16 GEMM with hand-written synchronization, on an Atlas A2 cube:
// C[64, 64] (f32) = A[64, 256] x B[256, 64]. K runs in 4 tiles of 64; the loop takes two per trip,
// one in each buffer slot, so that loading slot 1 (MTE2: GM -> L1, MTE1: L1 -> L0A/L0B) can
// overlap the mad of slot 0 (pipe M), and the other way round.
//
//   pipe MTE2   load A, B tile k      -> L1 slot s         waits: MTE1 done reading L1 slot s
//   pipe MTE1   move L1 slot s        -> L0A/L0B slot s    waits: MTE2 loaded it, M done with L0 slot s
//   pipe M      mad(_acc) L0 slot s   -> L0C               waits: MTE1 filled L0 slot s
//   pipe FIX    L0C -> C (after the loop)                  waits: the last mad
//
// Flags that protect a slot against being overwritten while a previous iteration still reads it
// (mte1 -> mte2 and m -> mte1, event id = slot) follow the loop pattern: set once before the loop
// (the slot starts free), wait + set inside the loop, a final wait after the loop (every set is
// consumed). The mads of both slots accumulate into one L0C; a 64 x 64 mad (16 output fractals)
// finishes writing before the next mad reaches its bytes, so pipe M needs no pipe_barrier between
// them (one is needed below 10 fractals).
// Buffers: L1 A 2 x 8 KB, B 2 x 8 KB; L0A 2 x 8 KB; L0B 2 x 8 KB; L0C 16 KB.
// Check: mmair-opt examples/gemm_kloop_double_buffer.mlir
// Run:   mmair-run examples/gemm_kloop_double_buffer.mlir --check-numpy --sync-check=on
builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<64x256xf16>, %b: memref<256x64xf16>, %c: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %l1_a0 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 64x64xf16, nz>
    %l1_a1 = pto.alloc {offset = 8192 : i64} : !pto.tile<l1, 64x64xf16, nz>
    %l1_b0 = pto.alloc {offset = 16384 : i64} : !pto.tile<l1, 64x64xf16, zz>
    %l1_b1 = pto.alloc {offset = 24576 : i64} : !pto.tile<l1, 64x64xf16, zz>
    %l0a0 = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 64x64xf16, zz>
    %l0a1 = pto.alloc {offset = 8192 : i64} : !pto.tile<l0a, 64x64xf16, zz>
    %l0b0 = pto.alloc {offset = 0 : i64} : !pto.tile<l0b, 64x64xf16, zn>
    %l0b1 = pto.alloc {offset = 8192 : i64} : !pto.tile<l0b, 64x64xf16, zn>
    %l0c = pto.alloc {offset = 0 : i64} : !pto.tile<l0c, 64x64xf32, nz>
    // Both slots start free.
    pto.set_flag mte1 -> mte2, 0
    pto.set_flag mte1 -> mte2, 1
    pto.set_flag m -> mte1, 0
    pto.set_flag m -> mte1, 1
    scf.for %k = %c0 to %c256 step %c128 {
      // ---- slot 0: K tile [k, k + 64)
      %a0 = memref.subview %a[0, %k] [64, 64] [1, 1] : memref<64x256xf16> to memref<64x64xf16, strided<[256, 1], offset: ?>>
      %b0 = memref.subview %b[%k, 0] [64, 64] [1, 1] : memref<256x64xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>>
      pto.wait_flag mte1 -> mte2, 0
      pto.mte_gm_l1 %a0, %l1_a0, %c64, %c64 : memref<64x64xf16, strided<[256, 1], offset: ?>>, !pto.tile<l1, 64x64xf16, nz>
      pto.mte_gm_l1 %b0, %l1_b0, %c64, %c64 : memref<64x64xf16, strided<[64, 1], offset: ?>>, !pto.tile<l1, 64x64xf16, zz>
      pto.set_flag mte2 -> mte1, 0
      pto.wait_flag mte2 -> mte1, 0
      pto.wait_flag m -> mte1, 0
      pto.mte_l1_l0a %l1_a0, %l0a0, %c64, %c64 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 64x64xf16, zz>
      pto.mte_l1_l0b %l1_b0, %l0b0, %c64, %c64 : !pto.tile<l1, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>
      pto.set_flag mte1 -> mte2, 0
      pto.set_flag mte1 -> m, 0
      pto.wait_flag mte1 -> m, 0
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        pto.mad %l0a0, %l0b0, %l0c, %c64, %c64, %c64 : !pto.tile<l0a, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>, !pto.tile<l0c, 64x64xf32, nz>
      } else {
        pto.mad_acc %l0a0, %l0b0, %l0c, %c64, %c64, %c64 : !pto.tile<l0a, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>, !pto.tile<l0c, 64x64xf32, nz>
      }
      pto.set_flag m -> mte1, 0
      // ---- slot 1: K tile [k + 64, k + 128)
      %k1 = arith.addi %k, %c64 : index
      %a1 = memref.subview %a[0, %k1] [64, 64] [1, 1] : memref<64x256xf16> to memref<64x64xf16, strided<[256, 1], offset: ?>>
      %b1 = memref.subview %b[%k1, 0] [64, 64] [1, 1] : memref<256x64xf16> to memref<64x64xf16, strided<[64, 1], offset: ?>>
      pto.wait_flag mte1 -> mte2, 1
      pto.mte_gm_l1 %a1, %l1_a1, %c64, %c64 : memref<64x64xf16, strided<[256, 1], offset: ?>>, !pto.tile<l1, 64x64xf16, nz>
      pto.mte_gm_l1 %b1, %l1_b1, %c64, %c64 : memref<64x64xf16, strided<[64, 1], offset: ?>>, !pto.tile<l1, 64x64xf16, zz>
      pto.set_flag mte2 -> mte1, 1
      pto.wait_flag mte2 -> mte1, 1
      pto.wait_flag m -> mte1, 1
      pto.mte_l1_l0a %l1_a1, %l0a1, %c64, %c64 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 64x64xf16, zz>
      pto.mte_l1_l0b %l1_b1, %l0b1, %c64, %c64 : !pto.tile<l1, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>
      pto.set_flag mte1 -> mte2, 1
      pto.set_flag mte1 -> m, 1
      pto.wait_flag mte1 -> m, 1
      pto.mad_acc %l0a1, %l0b1, %l0c, %c64, %c64, %c64 : !pto.tile<l0a, 64x64xf16, zz>, !pto.tile<l0b, 64x64xf16, zn>, !pto.tile<l0c, 64x64xf32, nz>
      pto.set_flag m -> mte1, 1
    }
    // Consume the last sets of the loop.
    pto.wait_flag mte1 -> mte2, 0
    pto.wait_flag mte1 -> mte2, 1
    pto.wait_flag m -> mte1, 0
    pto.wait_flag m -> mte1, 1
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe %l0c, %c, %c64, %c64 : !pto.tile<l0c, 64x64xf32, nz>, memref<64x64xf32>
    func.return
  }
}
