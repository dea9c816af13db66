// C[70, 90] (s32) = A[70, 130] x B[130, 90] (s4, int4b_t) on an Atlas A2 cube. The 4-bit operands
// stay packed two per byte in L1/L0; B goes Nz into L1 and reaches L0B through the int4b_t
// squares of LoadDataWithTranspose (four 16 x 64 fractals, transposed as 64 x 64).
//
// Lower, then expand to the raw Ascend C parameter forms (copy_nd2nz with the b8 byte fields,
// load_2d, load_2d_transpose, mmad, fixpipe_copy) and compare with numpy:
//   mmair-run examples/matmul_s4.mlir -p mmair-lower,pto-expand-params --check-numpy
builtin.module attributes {pto.target = "a2"} {
  func.func @matmul(%a: memref<70x130xi4>, %b: memref<130x90xi4>, %c: memref<70x90xi32>) {
    pto.matmul %a, %b, %c : memref<70x130xi4>, memref<130x90xi4>, memref<70x90xi32>
    func.return
  }
}
