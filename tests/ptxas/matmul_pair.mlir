// tcgen05.matmul through its CTA-pair lowering (`mmair-translate --target ptx --cta-group 2`, for
// ptxas: tests/unit/passes/test_tcgen05_to_ptx.py): a `.reqnctapercluster 2, 1, 1` kernel whose
// TMA copies are `.shared::cluster ... .cta_group::2` with the barrier mapped to the even CTA
// (`mapa`), whose leader issues `tcgen05.mma.cta_group::2` and multicasts its commits to both
// CTAs, and whose CTAs meet at `barrier.cluster` before the first MMA and before a tile reuses an
// accumulator; remainder rows (CTA 1's part of the last tile partly outside D) and columns.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f16_pair(%a: memref<520x104xf16>, %b: memref<104x72xf16>, %d: memref<520x72xf32>) {
    tcgen05.matmul %a, %b, %d : memref<520x104xf16>, memref<104x72xf16>, memref<520x72xf32>
    func.return
  }
  func.func @tf32_pair_transposed(%a: memref<100x300xf32>, %b: memref<200x100xf32>, %d: memref<300x200xf32>) {
    tcgen05.matmul %a, %b, %d transpose_a transpose_b : memref<100x300xf32>, memref<200x100xf32>, memref<300x200xf32>
    func.return
  }
  func.func @i8_pair(%a: memref<200x112xi8>, %b: memref<80x112xui8>, %d: memref<200x80xi32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<200x112xi8>, memref<80x112xui8>, memref<200x80xi32>
    func.return
  }
}
