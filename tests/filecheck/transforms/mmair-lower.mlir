// RUN: mmair-opt %examples/matmul_f16.mlir -p mmair-lower | filecheck %s --check-prefix=EXAMPLE
// RUN: mmair-run %examples/matmul_f16.mlir -p mmair-lower --check-numpy --stats --inputs int | filecheck %s --check-prefix=EXEC
// RUN: mmair-opt %s -p 'mmair-lower{target=a5}' | filecheck %s
// RUN: mmair-run %s -p 'mmair-lower{target=a5}' --entry plain --check-numpy --seed 3 --inputs int | filecheck %s --check-prefix=EXEC-A5
// mmair-lower makes mmair IR executable: pto.matmul is tiled (pto-tile-matmul), every pto.alloc gets
// a static offset (pto-assign-addresses), the pipes get their flags (pto-insert-sync: the mad
// waits for the MTE1 moves of L0A/L0B and for the previous fixpipe to have read L0C), tcgen05
// descriptor make-ops become words (tcgen05-materialize-descriptors).

// EXAMPLE:      %a_l1_s0 = pto.alloc {pto.multi_buffer = 2 : i64, offset = {{[0-9]+}} : i64} : !pto.tile<l1, 128x112xf16, nz>
// EXAMPLE-NEXT: %a_l1_s1 = pto.alloc {pto.multi_buffer = 2 : i64, offset = {{[0-9]+}} : i64} : !pto.tile<l1, 128x112xf16, nz>
// EXAMPLE-NEXT: %b_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 112x208xf16, zz>
// EXAMPLE-NEXT: %a_l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 128x112xf16, zz>
// EXAMPLE-NEXT: %b_l0b = pto.alloc {offset = 0 : i64} : !pto.tile<l0b, 112x128xf16, zn>
// EXAMPLE-NEXT: %c_l0c_s0 = pto.alloc {pto.multi_buffer = 1 : i64, offset = 0 : i64} : !pto.tile<l0c, 128x128xf32, nz>
// EXAMPLE-NEXT: %c_l0c_s1 = pto.alloc {pto.multi_buffer = 1 : i64, offset = 65536 : i64} : !pto.tile<l0c, 128x128xf32, nz>
// EXAMPLE-NOT:  pto.matmul
// EXAMPLE:      pto.set_flag mte1 -> m, 0
// EXAMPLE-NEXT: pto.wait_flag mte1 -> m, 0
// EXAMPLE-NEXT: pto.wait_flag fix -> m, 0
// EXAMPLE-NEXT: pto.mad %a_l0a, %b_l0b, %c_l0c_s0, %ms, %ns, %c100

// 300x200x100: the cost model's tiles are 128 x 128 x 112 with two slots for the A panel and C
// (passes/matmul_choice.py; mmair-lower's default multi-buffer=2): 3 x 2 output tiles, one K
// tile; B is loaded once, each A panel once per row tile.
// EXEC:      check c = numpy reference of the IR: max abs error 0, max rel error 0; pass if {{.*}}: ok
// EXEC:        pto.fixpipe: 6
// EXEC-NEXT:   pto.mad: 6
// EXEC-NEXT:   pto.mte_gm_l1: 4
// EXEC-NEXT:   pto.mte_l1_l0a: 3
// EXEC-NEXT:   pto.mte_l1_l0b: 6

func.func @mm(%a: memref<33x70xbf16>, %b: memref<20x33xbf16>, %c: memref<70x20xbf16>) {
  pto.matmul %a, %b, %c transpose_a transpose_b : memref<33x70xbf16>, memref<20x33xbf16>, memref<70x20xbf16>
  func.return
}

func.func @plain(%a: memref<70x33xbf16>, %b: memref<33x20xbf16>, %c: memref<70x20xf32>) {
  pto.matmul %a, %b, %c : memref<70x33xbf16>, memref<33x20xbf16>, memref<70x20xf32>
  func.return
}

func.func @descriptor() -> i32 {
  %i = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  func.return %i : i32
}

// CHECK:      builtin.module attributes {pto.target = "a5"} {
// CHECK-LABEL:  func.func @mm
// CHECK:          %a_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 80x48xbf16, nz>
// CHECK:          pto.mte_gm_l1 %a, %a_l1, %c70, %c33 dn2nz : memref<33x70xbf16>, !pto.tile<l1, 80x48xbf16, nz>
// CHECK:          pto.mte_l1_l0b %b_l1, %b_l0b, %c33, %c20 transpose :
// CHECK:          pto.fixpipe %c_l0c, %c, %c70, %c20 {quant = "f322bf16"} :
// CHECK-LABEL:  func.func @plain
// CHECK:          pto.mad
// CHECK-LABEL:  func.func @descriptor
// CHECK-NEXT:     %i = arith.constant 138412048 : i32

// EXEC-A5: check c = numpy reference of the IR: max abs error 0, max rel error 0; pass if {{.*}}: ok
