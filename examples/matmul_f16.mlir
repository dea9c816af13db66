// C[300, 200] (f32) = A[300, 100] x B[100, 200] (f16) on an Atlas A2 cube, written as one
// high-level pto.matmul. No dimension is a multiple of 16 (or of the 128-row tiles).
//
// Lower to the tiled cube pipeline (GM -> L1 -> L0A/L0B -> mad -> fixpipe) with static addresses:
//   mmair-opt examples/matmul_f16.mlir -p mmair-lower
// Run it on the simulated core and compare with numpy:
//   mmair-run examples/matmul_f16.mlir -p mmair-lower --check-numpy
// Other targets / tiles: -p 'mmair-lower{target=a5}' (with the pto.target attribute removed), or
//   -p 'pto-tile-matmul{tile-m=64 tile-n=64 tile-k=64},pto-assign-addresses'
builtin.module attributes {pto.target = "a2"} {
  func.func @matmul(%a: memref<300x100xf16>, %b: memref<100x200xf16>, %c: memref<300x200xf32>) {
    pto.matmul %a, %b, %c : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf32>
    func.return
  }
}
