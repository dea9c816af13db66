// RUN: not mmair-run %s --sync-check=on --input x_1=1 2>&1 | filecheck %s
// RUN: not mmair-run %s 2>&1 | filecheck %s --check-prefix=SCALAR
// RUN: mmair-run %s --sync-check=off --input x_1=1 --json | filecheck %s --check-prefix=NAMES
// RUN: mmair-opt %s > %t.mlir && mmair-opt %t.mlir | diff %t.mlir -

// Messages name values as the source writes them, though xDSL's parser gives `%ub_0` and `%ub_1`
// the same name_hint `ub` (and `%x_1` the hint `x`): the GatherMask reads `%ub_1`, which shares
// its bytes with `%ub_0` that MTE2 loads with no set_flag mte2 -> v / wait_flag mte2 -> v.

// CHECK:      run_value_names.mlir:28:5: error: 'pto.gather_mask' op race on ub bytes [0, 256) (%ub_1 / %ub_0): 'pto.gather_mask' at {{.*}}run_value_names.mlir:28:5 (pipe v) reads them, 'pto.mte_gm_ub' at {{.*}}run_value_names.mlir:27:5 (pipe mte2) writes them; no set_flag/wait_flag chain or pipe_barrier orders them
// CHECK-NOT:  error

// mmair-run's arguments are named as written (`x`, `x_1`, `out_2`):
// SCALAR:     error: argument 'x_1' (index) needs a value: give it with --input x_1=VALUE
// NAMES:      "outputs": {
// NAMES-NEXT:   "x": {
// NAMES:        "out_2": {

builtin.module attributes {pto.target = "a2"} {
  func.func @gather(%x: memref<128xui16>, %x_1: index, %out_2: memref<128xui16>) -> index {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_0 = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_1 = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {offset = 256 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %x, %ub_0 : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    %kept = pto.gather_mask %ub_dst, %ub_1, %zero, %one, %x_1, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag v -> mte3, 0
    pto.wait_flag v -> mte3, 0
    pto.mte_ub_gm %ub_dst, %out_2 : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    pto.set_flag v -> s, 0
    pto.wait_flag v -> s, 0
    func.return %kept : index
  }
}
