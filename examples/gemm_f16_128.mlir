// f16 GEMM tile kernel, C[128, 128] (f32) = A[128, 128] x B[128, 128], on an Atlas A2 cube
// (the PTO NZ fractal flow, docs/ascend.md "Fractal layouts"):
//   GM A (nd)  --mte_gm_l1--> L1 A nz (K1 M1 M0 K0) --mte_l1_l0a--> L0A zz (M1 K1 M0 K0)
//   GM B (nd)  --mte_gm_l1--> L1 B zz (K1 N1 K0 N0) --mte_l1_l0b--> L0B zn (K1 N1 N0 K0)
//   L0A x L0B --mad--> L0C nz (N1 M1 M0 N0, f32) --fixpipe nz2nd--> GM C (nd)
// Footprints: L1 2 x 32 KB, L0A 32 KB, L0B 32 KB, L0C 64 KB.
// Each step runs on its own pipe (MTE2, MTE1, M, FIX) and the pipes run concurrently: a
// set_flag/wait_flag pair orders each hand-off (the set fires when every earlier instruction of
// its pipe has completed, the wait holds the next pipe until then).
// Check: mmair-opt examples/gemm_f16_128.mlir
// Run:   mmair-run examples/gemm_f16_128.mlir --check-numpy --sync-check=on
builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
    %n128 = arith.constant 128 : index
    %l1_a = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 128x128xf16, nz, 8x8x16x16>
    %l1_b = pto.alloc {offset = 32768 : i64} : !pto.tile<l1, 128x128xf16, zz>
    %l0a = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 128x128xf16, zn>
    %l0c = pto.alloc : !pto.tile<l0c, 128x128xf32, nz>
    pto.mte_gm_l1 %a, %l1_a, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>
    pto.mte_gm_l1 %b, %l1_b, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, zz>
    pto.set_flag mte2 -> mte1, 0      // both L1 tiles loaded
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %l1_a, %l0a, %n128, %n128 : !pto.tile<l1, 128x128xf16, nz>, !pto.tile<l0a, 128x128xf16, zz>
    pto.mte_l1_l0b %l1_b, %l0b, %n128, %n128 : !pto.tile<l1, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>
    pto.set_flag mte1 -> m, 0         // L0A and L0B filled
    pto.wait_flag mte1 -> m, 0
    pto.mad %l0a, %l0b, %l0c, %n128, %n128, %n128 : !pto.tile<l0a, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>, !pto.tile<l0c, 128x128xf32, nz>
    pto.set_flag m -> fix, 0          // L0C complete
    pto.wait_flag m -> fix, 0
    pto.fixpipe %l0c, %c, %n128, %n128 : !pto.tile<l0c, 128x128xf32, nz>, memref<128x128xf32>
    func.return
  }
}
