// tcgen05.matmul through its lowering, for ptxas (tests/unit/passes/test_tcgen05_to_ptx.py):
// mmair-translate --target ptx lowers each matmul (tcgen05-lower-matmul) into a kernel with the
// operands' tensor maps as `.param .align 64 .b8 [128]` parameters, the TMA ring, elected-thread
// MMAs, commits, and a tcgen05.ld epilogue whose last tile stores clipped rows and columns; the
// block-scaled ones add 4-d scale-atom boxes, tcgen05.cp .32x128b.warpx4 and .block_scale MMAs;
// f8f6f4_sub_byte and mxf8f6f4_sub_byte copy packed e2m1 / e2m3 / e3m2 rows into padded 16-byte
// units; kind::i8 (s8 x u8 -> s32) moves bytes (i8_saturate: with the descriptor's saturate bit);
// an f16 D is loaded .pack::16b and stored as b16 halves.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @f16_remainder(%a: memref<200x104xf16>, %b: memref<104x72xf16>, %d: memref<200x72xf32>) {
    tcgen05.matmul %a, %b, %d : memref<200x104xf16>, memref<104x72xf16>, memref<200x72xf32>
    func.return
  }
  func.func @tf32_transposed(%a: memref<100x300xf32>, %b: memref<200x100xf32>, %d: memref<300x200xf32>) {
    tcgen05.matmul %a, %b, %d transpose_a transpose_b : memref<100x300xf32>, memref<200x100xf32>, memref<300x200xf32>
    func.return
  }
  func.func @f8f6f4(%a: memref<200x112xf8E4M3FN>, %b: memref<72x112xf8E5M2>, %d: memref<200x72xf32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<200x112xf8E4M3FN>, memref<72x112xf8E5M2>, memref<200x72xf32>
    func.return
  }
  func.func @i8_mixed(%a: memref<200x112xi8>, %b: memref<112x80xui8>, %d: memref<200x80xi32>) {
    tcgen05.matmul %a, %b, %d : memref<200x112xi8>, memref<112x80xui8>, memref<200x80xi32>
    func.return
  }
  func.func @i8_saturate(%a: memref<130x112xui8>, %b: memref<24x112xi8>, %d: memref<130x24xi32>) {
    tcgen05.matmul %a, %b, %d transpose_b saturate : memref<130x112xui8>, memref<24x112xi8>, memref<130x24xi32>
    func.return
  }
  func.func @f8f6f4_sub_byte(%a: memref<200x256xf4E2M1FN>, %b: memref<72x256xf6E3M2FN>, %d: memref<200x72xf32>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<200x256xf4E2M1FN>, memref<72x256xf6E3M2FN>, memref<200x72xf32>
    func.return
  }
  func.func @f16_acc(%a: memref<200x104xf16>, %b: memref<13x104xf16>, %d: memref<200x13xf16>) {
    tcgen05.matmul %a, %b, %d transpose_b : memref<200x104xf16>, memref<13x104xf16>, memref<200x13xf16>
    func.return
  }
  func.func @f16_acc_wide(%a: memref<136x128xf16>, %b: memref<128x264xf16>, %d: memref<136x264xf16>) {
    tcgen05.matmul %a, %b, %d : memref<136x128xf16>, memref<128x264xf16>, memref<136x264xf16>
    func.return
  }
  func.func @mxf8f6f4(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
  func.func @mxf8f6f4_sub_byte(%a: memref<200x256xf6E2M3FN>, %b: memref<80x256xf4E2M1FN>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) transpose_b : memref<200x256xf6E2M3FN>, memref<80x256xf4E2M1FN>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
  func.func @mxf4nvf4(%a: memref<200x320xf4E2M1FN>, %b: memref<80x320xf4E2M1FN>, %d: memref<200x80xf32>, %sa: memref<2x5x32x16xf8E4M3FN>, %sb: memref<1x5x32x16xf8E4M3FN>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) transpose_b : memref<200x320xf4E2M1FN>, memref<80x320xf4E2M1FN>, memref<200x80xf32>, memref<2x5x32x16xf8E4M3FN>, memref<1x5x32x16xf8E4M3FN>
    func.return
  }
}
