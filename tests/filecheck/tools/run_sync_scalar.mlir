// RUN: not mmair-run %s --sync-check=on 2>&1 | filecheck %s
// RUN: mmair-run %s --sync-check=off | filecheck %s --check-prefix=OFF
// RUN: mmair-opt %s -p pto-insert-sync | mmair-run - --sync-check=on | filecheck %s --check-prefix=SYNCED

// The scalar unit reads an element of %dst (a GetValue of the result) right after issuing the
// MTE3 copy that writes it, with no wait_flag mte3 -> s: on hardware the read may see the old
// value. A scalar memref.load / memref.store of GM is an access of pipe S (one element).

// CHECK:      run_sync_scalar.mlir:25:5: error: 'memref.load' op race on bytes [12, 16) of GM buffer %dst: 'memref.load' at {{.*}}run_sync_scalar.mlir:25:5 (pipe s) reads them, 'pto.mte_ub_gm' at {{.*}}run_sync_scalar.mlir:24:5 (pipe mte3) writes them; no set_flag/wait_flag chain or pipe_barrier orders them
// CHECK-NEXT: %r = memref.load %dst[%c3] : memref<128xi32>
// CHECK-NEXT: ^
// CHECK-NOT:  error

// OFF: result 0: {{-?[0-9]+}} : i32
// SYNCED: result 0: {{-?[0-9]+}} : i32

builtin.module attributes {pto.target = "a2"} {
  func.func @k(%src: memref<128xi32>, %dst: memref<128xi32>) -> i32 {
    %c3 = arith.constant 3 : index
    %ub = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xi32, nd>
    pto.mte_gm_ub %src, %ub : memref<128xi32>, !pto.tile<ub, 128xi32, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 128xi32, nd>, memref<128xi32>
    %r = memref.load %dst[%c3] : memref<128xi32>
    func.return %r : i32
  }
}
