// RUN: mmair-opt %s --split-input-file -p 'pto-tile-matmul{tiling=rule}' | filecheck %s
// RUN: mmair-opt %s --split-input-file -p 'pto-tile-matmul{tile-m=32 tile-n=64 tile-k=32}' | filecheck %s --check-prefix=TILES
// pto.matmul -> tiled loops of GM -> L1 -> L0A/L0B -> mad/mad_acc -> fixpipe (seed-NZ flow).
// Automatic tiles: tile-m = tile-n = 128 (or the dimension rounded up to the granularity) and the
// largest tile-k whose A and B tiles fit L0A and L0B (64 KB each).

// 256x256x512 f16 -> f32: every tile is whole (no minsi), K takes two tiles accumulated in L0C,
// and both the A row panel (128x512, 128 KB) and all of B (512x256, 256 KB) stay in L1.
builtin.module attributes {pto.target = "a2"} {
  func.func @whole(%a: memref<256x512xf16>, %b: memref<512x256xf16>, %c: memref<256x256xf32>) {
    pto.matmul %a, %b, %c : memref<256x512xf16>, memref<512x256xf16>, memref<256x256xf32>
    func.return
  }
}
// CHECK-LABEL: func.func @whole
// CHECK-NOT:     arith.minsi
// CHECK:         %a_l1 = pto.alloc : !pto.tile<l1, 128x512xf16, nz>
// CHECK-NEXT:    %b_l1 = pto.alloc : !pto.tile<l1, 512x256xf16, zz>
// CHECK-NEXT:    %a_l0a = pto.alloc : !pto.tile<l0a, 128x256xf16, zz>
// CHECK-NEXT:    %b_l0b = pto.alloc : !pto.tile<l0b, 256x128xf16, zn>
// CHECK-NEXT:    %c_l0c = pto.alloc : !pto.tile<l0c, 128x128xf32, nz>
// CHECK-NEXT:    pto.mte_gm_l1 %b, %b_l1, %c512, %c256 : memref<512x256xf16>, !pto.tile<l1, 512x256xf16, zz>
// CHECK-NEXT:    scf.for %i = %c0 to %c256 step %c128 {
// CHECK-NEXT:      %a_panel = memref.subview %a[%i, 0] [128, 512] [1, 1] : memref<256x512xf16> to memref<128x512xf16, strided<[512, 1], offset: ?>>
// CHECK-NEXT:      pto.mte_gm_l1 %a_panel, %a_l1, %c128, %c512 : memref<128x512xf16, strided<[512, 1], offset: ?>>, !pto.tile<l1, 128x512xf16, nz>
// CHECK-NEXT:      scf.for %j = %c0 to %c256 step %c128 {
// CHECK-NEXT:        scf.for %k = %c0 to %c512 step %c256 {
// CHECK-NEXT:          pto.mte_l1_l0a %a_l1[%c0, %k], %a_l0a, %c128, %c256 : !pto.tile<l1, 128x512xf16, nz>, !pto.tile<l0a, 128x256xf16, zz>
// CHECK-NEXT:          pto.mte_l1_l0b %b_l1[%k, %j], %b_l0b, %c256, %c128 : !pto.tile<l1, 512x256xf16, zz>, !pto.tile<l0b, 256x128xf16, zn>
// CHECK-NEXT:          %first = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:          scf.if %first {
// CHECK-NEXT:            pto.mad %a_l0a, %b_l0b, %c_l0c, %c128, %c128, %c256 :
// CHECK-NEXT:          } else {
// CHECK-NEXT:            pto.mad_acc %a_l0a, %b_l0b, %c_l0c, %c128, %c128, %c256 :
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:        %c_win = memref.subview %c[%i, %j] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
// CHECK-NEXT:        pto.fixpipe %c_l0c, %c_win, %c128, %c128 : !pto.tile<l0c, 128x128xf32, nz>, memref<128x128xf32, strided<[256, 1], offset: ?>>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// -----

// 300x200x100 f16 -> f16: remainder tiles in M and N run with arith.minsi sizes; K fits one tile,
// so the A tile moves to L0A once per i, outside the j loop.
builtin.module attributes {pto.target = "a2"} {
  func.func @remainder(%a: memref<300x100xf16>, %b: memref<100x200xf16>, %c: memref<300x200xf16>) {
    pto.matmul %a, %b, %c : memref<300x100xf16>, memref<100x200xf16>, memref<300x200xf16>
    func.return
  }
}
// CHECK-LABEL: func.func @remainder
// CHECK:         %a_l1 = pto.alloc : !pto.tile<l1, 128x112xf16, nz>
// CHECK-NEXT:    %b_l1 = pto.alloc : !pto.tile<l1, 112x208xf16, zz>
// CHECK:         pto.mte_gm_l1 %b, %b_l1, %c100, %c200 : memref<100x200xf16>, !pto.tile<l1, 112x208xf16, zz>
// CHECK-NEXT:    scf.for %i = %c0 to %c300 step %c128 {
// CHECK-NEXT:      %i_rest = arith.subi %c300, %i : index
// CHECK-NEXT:      %ms = arith.minsi %c128, %i_rest : index
// CHECK-NEXT:      %a_panel = memref.subview %a[%i, 0] [%ms, 100] [1, 1] : memref<300x100xf16> to memref<?x100xf16, strided<[100, 1], offset: ?>>
// CHECK-NEXT:      pto.mte_gm_l1 %a_panel, %a_l1, %ms, %c100 :
// CHECK-NEXT:      pto.mte_l1_l0a %a_l1, %a_l0a, %ms, %c100 :
// CHECK-NEXT:      scf.for %j = %c0 to %c200 step %c128 {
// CHECK-NEXT:        %j_rest = arith.subi %c200, %j : index
// CHECK-NEXT:        %ns = arith.minsi %c128, %j_rest : index
// CHECK-NEXT:        pto.mte_l1_l0b %b_l1[%c0, %j], %b_l0b, %c100, %ns :
// CHECK-NEXT:        pto.mad %a_l0a, %b_l0b, %c_l0c, %ms, %ns, %c100 :
// CHECK-NEXT:        %c_win = memref.subview %c[%i, %j] [%ms, %ns] [1, 1] : memref<300x200xf16> to memref<?x?xf16, strided<[200, 1], offset: ?>>
// CHECK-NEXT:        pto.fixpipe %c_l0c, %c_win, %ms, %ns {quant = "f322f16"} : !pto.tile<l0c, 128x128xf32, nz>, memref<?x?xf16, strided<[200, 1], offset: ?>>

// Given tiles: 300 = 9*32 + 12 rows, 200 = 3*64 + 8 columns, 100 = 3*32 + 4 K; all three loops run
// remainder tiles, and K accumulates over four tiles. A panel and B stay in L1.
// TILES-LABEL: func.func @remainder
// TILES:         %a_l1 = pto.alloc : !pto.tile<l1, 32x112xf16, nz>
// TILES-NEXT:    %b_l1 = pto.alloc : !pto.tile<l1, 112x208xf16, zz>
// TILES-NEXT:    %a_l0a = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
// TILES-NEXT:    %b_l0b = pto.alloc : !pto.tile<l0b, 32x64xf16, zn>
// TILES-NEXT:    %c_l0c = pto.alloc : !pto.tile<l0c, 32x64xf32, nz>
// TILES:         scf.for %i = %c0 to %c300 step %c32 {
// TILES:           %ms = arith.minsi %c32, %i_rest : index
// TILES:           scf.for %j = %c0 to %c200 step %c64 {
// TILES:             %ns = arith.minsi %c64, %j_rest : index
// TILES-NEXT:        scf.for %k = %c0 to %c100 step %c32 {
// TILES-NEXT:          %k_rest = arith.subi %c100, %k : index
// TILES-NEXT:          %ks = arith.minsi %c32, %k_rest : index
// TILES-NEXT:          pto.mte_l1_l0a %a_l1[%c0, %k], %a_l0a, %ms, %ks :
// TILES-NEXT:          pto.mte_l1_l0b %b_l1[%k, %j], %b_l0b, %ks, %ns :
// TILES-NEXT:          %first = arith.cmpi eq, %k, %c0 : index
// TILES-NEXT:          scf.if %first {
// TILES-NEXT:            pto.mad %a_l0a, %b_l0b, %c_l0c, %ms, %ns, %ks :
// TILES-NEXT:          } else {
// TILES-NEXT:            pto.mad_acc %a_l0a, %b_l0b, %c_l0c, %ms, %ns, %ks :

// -----

// 200x300x2100: the A panel (128x2112 f16 = 528 KB) and B do not fit L1, so each k step loads
// both tiles from GM windows with dynamic sizes.
builtin.module attributes {pto.target = "a2"} {
  func.func @no_reuse(%a: memref<200x2100xf16>, %b: memref<2100x300xf16>, %c: memref<200x300xbf16>) {
    pto.matmul %a, %b, %c : memref<200x2100xf16>, memref<2100x300xf16>, memref<200x300xbf16>
    func.return
  }
}
// CHECK-LABEL: func.func @no_reuse
// CHECK:         %a_l1 = pto.alloc : !pto.tile<l1, 128x256xf16, nz>
// CHECK-NEXT:    %b_l1 = pto.alloc : !pto.tile<l1, 256x128xf16, zz>
// CHECK:         scf.for %k = %c0 to %c2100 step %c256 {
// CHECK-NEXT:      %k_rest = arith.subi %c2100, %k : index
// CHECK-NEXT:      %ks = arith.minsi %c256, %k_rest : index
// CHECK-NEXT:      %a_win = memref.subview %a[%i, %k] [%ms, %ks] [1, 1] : memref<200x2100xf16> to memref<?x?xf16, strided<[2100, 1], offset: ?>>
// CHECK-NEXT:      pto.mte_gm_l1 %a_win, %a_l1, %ms, %ks :
// CHECK-NEXT:      pto.mte_l1_l0a %a_l1, %a_l0a, %ms, %ks :
// CHECK-NEXT:      %b_win = memref.subview %b[%k, %j] [%ks, %ns] [1, 1] : memref<2100x300xf16> to memref<?x?xf16, strided<[300, 1], offset: ?>>
// CHECK-NEXT:      pto.mte_gm_l1 %b_win, %b_l1, %ks, %ns :
// CHECK-NEXT:      pto.mte_l1_l0b %b_l1, %b_l0b, %ks, %ns :
// CHECK:         pto.fixpipe %c_l0c, %c_win, %ms, %ns {quant = "f322bf16"} :

// -----

// s8 x s8 -> s32 with a bias row: per N tile the bias goes GM -> L1 (nd) -> BT, the first K
// tile uses mad_bias. 8-bit tiles are multiples of 32 (C0 and the b8 transpose block), and B is
// staged Nz (the LoadDataWithTranspose squares of b8 stack two fractals along k).
builtin.module attributes {pto.target = "a2"} {
  func.func @bias(%a: memref<40x300xi8>, %b: memref<300x50xi8>, %c: memref<40x50xi32>, %bias: memref<50xi32>) {
    pto.matmul %a, %b, %c bias %bias : memref<50xi32> : memref<40x300xi8>, memref<300x50xi8>, memref<40x50xi32>
    func.return
  }
}
// CHECK-LABEL: func.func @bias
// CHECK:         %a_l1 = pto.alloc : !pto.tile<l1, 64x320xi8, nz>
// CHECK-NEXT:    %b_l1 = pto.alloc : !pto.tile<l1, 320x64xi8, nz>
// CHECK-NEXT:    %a_l0a = pto.alloc : !pto.tile<l0a, 64x320xi8, zz>
// CHECK-NEXT:    %b_l0b = pto.alloc : !pto.tile<l0b, 320x64xi8, zn>
// CHECK-NEXT:    %c_l0c = pto.alloc : !pto.tile<l0c, 64x64xi32, nz>
// CHECK-NEXT:    %bias_l1 = pto.alloc : !pto.tile<l1, 1x64xi32, nd>
// CHECK-NEXT:    %bias_bt = pto.alloc : !pto.tile<bt, 1x64xi32, nd>
// CHECK-NEXT:    pto.mte_gm_l1 %a, %a_l1, %c40, %c300 : memref<40x300xi8>, !pto.tile<l1, 64x320xi8, nz>
// CHECK-NEXT:    pto.mte_l1_l0a %a_l1, %a_l0a, %c40, %c300 :
// CHECK-NEXT:    pto.mte_gm_l1 %bias, %bias_l1, %c1, %c50 : memref<50xi32>, !pto.tile<l1, 1x64xi32, nd>
// CHECK-NEXT:    pto.mte_l1_bt %bias_l1, %bias_bt, %c50 : !pto.tile<l1, 1x64xi32, nd>, !pto.tile<bt, 1x64xi32, nd>
// CHECK:         pto.mad_bias %a_l0a, %b_l0b, %c_l0c, %bias_bt, %c40, %c50, %c300 :
// CHECK-NEXT:    pto.fixpipe %c_l0c, %c, %c40, %c50 : !pto.tile<l0c, 64x64xi32, nz>, memref<40x50xi32>

// -----

// Transposed operands on a2: A^T moved to L0A with `transpose`, staged Zz for f32 (the
// LoadDataWithTranspose squares of two 16 x 8 fractals side by side); Nz of B^T moved to L0B with
// `transpose` (no fractal transpose needed).
builtin.module attributes {pto.target = "a2"} {
  func.func @transposed(%a: memref<70x30xf32>, %b: memref<40x70xf32>, %c: memref<30x40xf32>) {
    pto.matmul %a, %b, %c transpose_a transpose_b : memref<70x30xf32>, memref<40x70xf32>, memref<30x40xf32>
    func.return
  }
}
// CHECK-LABEL: func.func @transposed
// CHECK:         %a_l1 = pto.alloc : !pto.tile<l1, 80x32xf32, zz>
// CHECK-NEXT:    %b_l1 = pto.alloc : !pto.tile<l1, 48x80xf32, nz>
// CHECK:         pto.mte_gm_l1 %a, %a_l1, %c70, %c30 : memref<70x30xf32>, !pto.tile<l1, 80x32xf32, zz>
// CHECK-NEXT:    pto.mte_l1_l0a %a_l1, %a_l0a, %c30, %c70 transpose : !pto.tile<l1, 80x32xf32, zz>, !pto.tile<l0a, 32x80xf32, zz>
// CHECK-NEXT:    pto.mte_gm_l1 %b, %b_l1, %c40, %c70 : memref<40x70xf32>, !pto.tile<l1, 48x80xf32, nz>
// CHECK-NEXT:    pto.mte_l1_l0b %b_l1, %b_l0b, %c70, %c40 transpose : !pto.tile<l1, 48x80xf32, nz>, !pto.tile<l0b, 80x48xf32, zn>
// CHECK-NEXT:    pto.mad %a_l0a, %b_l0b, %c_l0c, %c30, %c40, %c70 :

// -----

// a5: A^T is loaded with DN2NZ straight into Nz of A; L0A is nz.
builtin.module attributes {pto.target = "a5"} {
  func.func @dn2nz(%a: memref<70x30xbf16>, %b: memref<70x40xbf16>, %c: memref<30x40xbf16>) {
    pto.matmul %a, %b, %c transpose_a : memref<70x30xbf16>, memref<70x40xbf16>, memref<30x40xbf16>
    func.return
  }
}
// CHECK-LABEL: func.func @dn2nz
// CHECK:         %a_l1 = pto.alloc : !pto.tile<l1, 32x80xbf16, nz>
// CHECK:         %a_l0a = pto.alloc : !pto.tile<l0a, 32x80xbf16, nz>
// CHECK:         pto.mte_gm_l1 %a, %a_l1, %c30, %c70 dn2nz : memref<70x30xbf16>, !pto.tile<l1, 32x80xbf16, nz>
// CHECK-NEXT:    pto.mte_l1_l0a %a_l1, %a_l0a, %c30, %c70 : !pto.tile<l1, 32x80xbf16, nz>, !pto.tile<l0a, 32x80xbf16, nz>
// CHECK-NEXT:    pto.mte_gm_l1 %b, %b_l1, %c70, %c40 : memref<70x40xbf16>, !pto.tile<l1, 80x48xbf16, zz>
// CHECK-NEXT:    pto.mte_l1_l0b %b_l1, %b_l0b, %c70, %c40 : !pto.tile<l1, 80x48xbf16, zz>, !pto.tile<l0b, 80x48xbf16, zn>
// CHECK:         pto.fixpipe %c_l0c, %c, %c30, %c40 {quant = "f322bf16"} : !pto.tile<l0c, 32x48xf32, nz>, memref<30x40xbf16>
