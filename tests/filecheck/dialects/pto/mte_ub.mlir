// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.mte_gm_ub and pto.mte_ub_gm (1-D and 2-D memrefs into nd UB tiles).
func.func @ub(%x: memref<128xf16>, %y: memref<8x16xf16>) {
  %ub = pto.alloc : !pto.tile<ub, 128xf16, nd>
  // CHECK: %ub = pto.alloc : !pto.tile<ub, 128xf16, nd>
  pto.mte_gm_ub %x, %ub : memref<128xf16>, !pto.tile<ub, 128xf16, nd>
  // CHECK: pto.mte_gm_ub %x, %ub : memref<128xf16>, !pto.tile<ub, 128xf16, nd>
  pto.mte_ub_gm %ub, %y : !pto.tile<ub, 128xf16, nd>, memref<8x16xf16>
  // CHECK: pto.mte_ub_gm %ub, %y : !pto.tile<ub, 128xf16, nd>, memref<8x16xf16>
  func.return
}
