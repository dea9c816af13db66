// A Blackwell matmul on global memrefs: D[200, 72] (f32) = A[200, 104] x B[104, 72] (f16).
// mmair-lower (tcgen05-lower-matmul) turns it into a CUTLASS-style one-CTA kernel: a 4-stage SMEM
// ring filled by TMA, MMAs issued by one elected thread with commits releasing the stages, two
// TMEM accumulators, a tcgen05.ld epilogue that stores only the rows and columns inside D
// (docs/tcgen05-tma.md, "The tcgen05.matmul lowering").
//
//   mmair-run examples/tcgen05_matmul.mlir --check-numpy
//   mmair-opt examples/tcgen05_matmul.mlir -p tcgen05-lower-matmul
//   mmair-translate --target ptx examples/tcgen05_matmul.mlir
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @matmul(%a: memref<200x104xf16>, %b: memref<104x72xf16>, %d: memref<200x72xf32>) {
    tcgen05.matmul %a, %b, %d : memref<200x104xf16>, memref<104x72xf16>, memref<200x72xf32>
    func.return
  }
}
