// RUN: not mmair-run %s --input rows=48 --input cols=16 2>&1 | filecheck %s
// RUN: not mmair-run %s --input rows=16 --input cols=16 --input a=%s 2>&1 | filecheck %s --check-prefix=NPY
// RUN: not mmair-run %s --bogus 2>&1 | filecheck %s --check-prefix=ARGS
// RUN: not mmair-run %s --input rows=16 --input cols=36028797018963976 --timing-only 2>&1 | filecheck %s --check-prefix=TIMING

// A runtime size beyond the destination tile is a fault at the op's location.
// CHECK:      run_fault.mlir:[[# @LINE + 13]]:5: error: 'pto.mte_gm_l1' op requires rows in [0, 32] (rows of the destination tile %t), got 48
// CHECK-NEXT: pto.mte_gm_l1 %a, %t, %rows, %cols
// CHECK-NEXT: ^

// NPY: error: '{{.*}}run_fault.mlir' for 'a' is not a .npy file
// ARGS: mmair-run: error: unrecognized arguments: --bogus

// --timing-only never runs the op, so its footprint refuses the window (it was a 1 PiB array).
// TIMING:      run_fault.mlir:[[# @LINE + 5]]:5: error: 'pto.mte_gm_l1' op requires a window of [0, 64] rows and [0, 64] columns of its 64x64 GM view, got 16x36028797018963976

builtin.module {
  func.func @load(%a: memref<64x64xf16>, %rows: index, %cols: index) {
    %t = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    pto.mte_gm_l1 %a, %t, %rows, %cols : memref<64x64xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}
