// RUN: not mmair-run %s --sync-check=on 2>&1 | filecheck %s
// RUN: not mmair-run %s --sync-check=off 2>&1 | filecheck %s --check-prefix=OFF

// Two commits to one mbarrier, then waits for parity 0 and 1: if both commits completed before the
// first wait looks, the parity is 0 again and the wait hangs (PTX try_wait.parity). Reported in
// any legal schedule; the run without the checker (every commit done at issue) hangs there too.

// CHECK:      run_tcgen05_phase_aliasing.mlir:20:5: error: 'tcgen05.mbarrier_wait' op deadlock (phase aliasing): waits on phase parity 0 of the mbarrier at SMEM 0x0 (%bar), but 2 phases of it can complete before the wait looks (phase 0 by 'tcgen05.commit' at {{.*}}run_tcgen05_phase_aliasing.mlir:16:5 (the tensor core's async unit), phase 1 by 'tcgen05.commit' at {{.*}}run_tcgen05_phase_aliasing.mlir:17:5 (the tensor core's async unit); the thread has observed 0)
// CHECK-NOT:  error
// OFF:        run_tcgen05_phase_aliasing.mlir:20:5: error: 'tcgen05.mbarrier_wait' op waits on phase parity 0 of the mbarrier at SMEM 0x0, which can never complete

builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @k() {
    %bar = tcgen05.smem_alloc offset(0) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.commit cta_group(1) %bar : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.commit cta_group(1) %bar : memref<1xi64, #tcgen05.space<smem>>
    %p0 = arith.constant false
    %p1 = arith.constant true
    tcgen05.mbarrier_wait %bar, %p0 : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_wait %bar, %p1 : memref<1xi64, #tcgen05.space<smem>>
    func.return
  }
}
