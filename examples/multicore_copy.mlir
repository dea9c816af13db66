// SPMD copy on several AI Cores: block i copies a[16i:16i+16] to c[16i:16i+16] through its own UB,
// then every core waits at the all-core barrier (Ascend C SyncAll) and reads block 0's window.
// Run: mmair-run examples/multicore_copy.mlir --blocks 4 --sync-check=on --check-coverage c
builtin.module attributes {pto.target = "a2"} {
  func.func @copy(%a: memref<64xf16>, %c: memref<64xf16>) {
    %i = pto.block_idx
    %c16 = arith.constant 16 : index
    %o = arith.muli %i, %c16 : index
    %ub = pto.alloc : !pto.tile<ub, 16xf16, nd>
    %src = memref.subview %a[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %dst = memref.subview %c[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    pto.mte_gm_ub %src, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    pto.sync_all
    %z = arith.constant 0 : index
    %first = memref.subview %c[%z] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %ub2 = pto.alloc : !pto.tile<ub, 16xf16, nd>
    pto.mte_gm_ub %first, %ub2 : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    func.return
  }
}
