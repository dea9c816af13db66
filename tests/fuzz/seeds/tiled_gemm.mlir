// A K-tiled f16 GEMM: subviews of GM with a loop-carried offset, mad then mad_acc, dynamic step.
builtin.module attributes {pto.target = "a2"} {
  func.func @tiled(%a: memref<64x96xf16>, %b: memref<96x64xf16>, %c: memref<64x64xf32>, %kt: index) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c96 = arith.constant 96 : index
    %l1a = pto.alloc : !pto.tile<l1, 64x32xf16, nz>
    %l1b = pto.alloc : !pto.tile<l1, 32x64xf16, zz>
    %l0a = pto.alloc : !pto.tile<l0a, 64x32xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 32x64xf16, zn>
    %l0c = pto.alloc {offset = 0 : i64} : !pto.tile<l0c, 64x64xf32, nz>
    scf.for %k = %c0 to %c96 step %kt {
      %as = memref.subview %a[0, %k] [64, 32] [1, 1] : memref<64x96xf16> to memref<64x32xf16, strided<[96, 1], offset: ?>>
      %bs = memref.subview %b[%k, 0] [32, 64] [1, 1] : memref<96x64xf16> to memref<32x64xf16, strided<[64, 1], offset: ?>>
      pto.mte_gm_l1 %as, %l1a, %c64, %c32 : memref<64x32xf16, strided<[96, 1], offset: ?>>, !pto.tile<l1, 64x32xf16, nz>
      pto.mte_gm_l1 %bs, %l1b, %c32, %c64 : memref<32x64xf16, strided<[64, 1], offset: ?>>, !pto.tile<l1, 32x64xf16, zz>
      pto.mte_l1_l0a %l1a, %l0a, %c64, %c32 : !pto.tile<l1, 64x32xf16, nz>, !pto.tile<l0a, 64x32xf16, zz>
      pto.mte_l1_l0b %l1b, %l0b, %c32, %c64 : !pto.tile<l1, 32x64xf16, zz>, !pto.tile<l0b, 32x64xf16, zn>
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        pto.mad %l0a, %l0b, %l0c, %c64, %c64, %c32 : !pto.tile<l0a, 64x32xf16, zz>, !pto.tile<l0b, 32x64xf16, zn>, !pto.tile<l0c, 64x64xf32, nz>
      } else {
        pto.mad_acc %l0a, %l0b, %l0c, %c64, %c64, %c32 : !pto.tile<l0a, 64x32xf16, zz>, !pto.tile<l0b, 32x64xf16, zn>, !pto.tile<l0c, 64x64xf32, nz>
      }
    }
    pto.fixpipe %l0c, %c, %c64, %c64 : !pto.tile<l0c, 64x64xf32, nz>, memref<64x64xf32>
    func.return
  }
}
