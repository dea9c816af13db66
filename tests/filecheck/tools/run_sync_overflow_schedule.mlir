// RUN: not mmair-run %s --sync-check=on 2>&1 | filecheck %s

// Three loads, each flagged to its move with event 0. The executor's schedule runs every wait at
// once, but MTE1 may still move %a_l1 before the second wait when the third set fires: in that
// legal schedule the bit is still set and the third set is lost (docs/pipes.md "Legal schedules").

// CHECK:      run_sync_overflow_schedule.mlir:30:5: error: 'pto.set_flag' op sets flag mte2 -> mte1 event 0 again, but nothing orders it after 'pto.wait_flag' at {{.*}}run_sync_overflow_schedule.mlir:27:5 (pipe mte1), which consumes the previous set 'pto.set_flag' at {{.*}}run_sync_overflow_schedule.mlir:26:5 (pipe mte2): in a legal schedule pipe mte1 is still busy with an instruction before that wait when this set fires
// CHECK-NEXT: pto.set_flag mte2 -> mte1, 0
// CHECK-NEXT: ^
// CHECK-NOT:  error

builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf16>) {
    %n = arith.constant 16 : index
    %a_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %b_l1 = pto.alloc {offset = 512 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %c_l1 = pto.alloc {offset = 1024 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %a_l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    %b_l0a = pto.alloc {offset = 512 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    %c_l0a = pto.alloc {offset = 1024 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_gm_l1 %a, %a_l1, %n, %n : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %a_l1, %a_l0a, %n, %n : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_gm_l1 %b, %b_l1, %n, %n : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %b_l1, %b_l0a, %n, %n : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_gm_l1 %c, %c_l1, %n, %n : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %c_l1, %c_l0a, %n, %n : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    func.return
  }
}
