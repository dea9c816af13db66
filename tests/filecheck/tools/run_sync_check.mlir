// RUN: not mmair-run %s --sync-check=on 2>&1 | filecheck %s
// RUN: mmair-run %s --sync-check=off | filecheck %s --check-prefix=OFF

// GatherMask reads the UB tile that MTE2 loads, with no set_flag mte2 -> v / wait_flag mte2 -> v
// between them: on hardware the vector pipe may read the bytes before the load has written them.

// CHECK:      run_sync_check.mlir:23:5: error: 'pto.gather_mask' op race on ub bytes [0, 256) (%ub_src): 'pto.gather_mask' at {{.*}}run_sync_check.mlir:23:5 (pipe v) reads them, 'pto.mte_gm_ub' at {{.*}}run_sync_check.mlir:22:5 (pipe mte2) writes them; no set_flag/wait_flag chain or pipe_barrier orders them
// CHECK-NEXT: %kept = pto.gather_mask
// CHECK-NEXT: ^
// CHECK-NOT:  error

// With the checker off the kernel runs in program order (functionally):
// OFF: result 0: 64 : index

builtin.module attributes {pto.target = "a2"} {
  func.func @gather(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {offset = 256 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag v -> mte3, 0
    pto.wait_flag v -> mte3, 0
    pto.mte_ub_gm %ub_dst, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    pto.set_flag v -> s, 0
    pto.wait_flag v -> s, 0
    func.return %kept : index
  }
}
