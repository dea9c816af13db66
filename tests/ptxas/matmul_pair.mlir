// tcgen05.matmul through its CTA-pair lowering (`mmair-translate --target ptx --cta-group 2`, for
// ptxas: tests/unit/passes/test_tcgen05_to_ptx.py): a `.reqnctapercluster 2, 1, 1` kernel whose
// TMA copies are `.shared::cluster ... .cta_group::2` with the barrier mapped to the even CTA
// (`mapa`), whose leader issues `tcgen05.mma.cta_group::2` and multicasts its commits to both
// CTAs, and whose CTAs meet at `barrier.cluster` before the first MMA and before a tile reuses an
// accumulator; remainder rows (CTA 1's part of the last tile partly outside D) and columns. The
// block-scaled pairs: each CTA copies its SFA atoms and the tile's SFB atoms onto the leader's
// barrier, and the leader's `tcgen05.cp.cta_group::2.32x128b.warpx4` moves each CTA's atoms into
// its own tensor memory before the `.block_scale` `cta_group::2` MMAs.
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
  func.func @mxf8f6f4_pair(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
  func.func @mxf4_pair(%a: memref<200x320xf4E2M1FN>, %b: memref<80x320xf4E2M1FN>, %d: memref<200x80xf32>, %sa: memref<2x3x32x16xf8E8M0FNU>, %sb: memref<1x3x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) transpose_b : memref<200x320xf4E2M1FN>, memref<80x320xf4E2M1FN>, memref<200x80xf32>, memref<2x3x32x16xf8E8M0FNU>, memref<1x3x32x16xf8E8M0FNU>
    func.return
  }
  func.func @mxf4nvf4_pair(%a: memref<200x320xf4E2M1FN>, %b: memref<80x320xf4E2M1FN>, %d: memref<200x80xf32>, %sa: memref<2x5x32x16xf8E4M3FN>, %sb: memref<1x5x32x16xf8E4M3FN>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) transpose_b : memref<200x320xf4E2M1FN>, memref<80x320xf4E2M1FN>, memref<200x80xf32>, memref<2x5x32x16xf8E4M3FN>, memref<1x5x32x16xf8E4M3FN>
    func.return
  }
}
