// GatherMask kernel on an Atlas A2 vector core (Ascend C GatherMask page, worked vector 1; docs/ascend.md):
// keep the odd-indexed elements (built-in pattern 2, `1010...10`) of 128 u16 values.
//   GM src --mte_gm_ub--> UB src0 --gather_mask (normal mode, 1 repeat of 256 B)--> UB dst --mte_ub_gm--> GM dst
// With src = [1, 2, ..., 128]: dst[0:64] = [2, 4, ..., 128] and the kept count is 64. GatherMask
// writes only the kept elements, so dst[64:128] receives whatever the UB buffer held: read only
// the first `kept` elements.
// Pipes: MTE2 loads UB, V runs GatherMask, MTE3 stores to GM, and the scalar unit (S) reads the
// kept count; each hand-off is a set_flag/wait_flag pair.
// Check: mmair-opt examples/gather_mask.mlir
// Run:   mmair-run examples/gather_mask.mlir --sync-check=on
builtin.module attributes {pto.target = "a2"} {
  func.func @gather(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {offset = 256 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag mte2 -> v, 0
    pto.wait_flag mte2 -> v, 0
    // mask (ignored in normal mode), repeat_times, src0_block_stride, src0_repeat_stride, src1_repeat_stride
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag v -> mte3, 0
    pto.wait_flag v -> mte3, 0
    pto.mte_ub_gm %ub_dst, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    pto.set_flag v -> s, 0            // the scalar unit reads the kept count GatherMask produced
    pto.wait_flag v -> s, 0
    func.return %kept : index
  }
}
