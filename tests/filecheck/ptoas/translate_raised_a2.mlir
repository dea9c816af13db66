// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync,pto-expand-params' | mmair-translate --target ptoas - | filecheck %s
// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync,pto-expand-params' | mmair-translate --target ptoas - | mmair-run - --check-numpy | filecheck %s --check-prefix=EXEC
// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync,pto-expand-params,pto-raise-params' | filecheck %s --check-prefix=RAISED

// On a2 PTOAS has no parameter forms, so mmair-translate --target ptoas raises the raw forms of
// pto-expand-params (copy_nd2nz, the load_2d loops, mmad, fixpipe_copy) back to the tile-level
// ops they expand (pto-raise-params, decided by re-expanding) and writes PTOAS tile-level text,
// which mmair reads back and runs against numpy.

// CHECK:      builtin.module attributes {pto.target_arch = "a2", pto.kernel_kind = #pto.kernel_kind<cube>} {
// CHECK:      %a_l1 = pto.alloc_tile addr = %{{.*}} : !pto.tile_buf<loc=mat, dtype=f16, rows=32, cols=48,
// CHECK:      pto.tload ins(%{{.*}} : !pto.partition_tensor_view<48x64xf16>) outs(%b_l1 : !pto.tile_buf<loc=mat,
// CHECK:      scf.for %i = %c0 to %c64 step %c32 {
// CHECK:        pto.tload ins(%a_panel : !pto.partition_tensor_view<32x48xf16>) outs(%a_l1 : !pto.tile_buf<loc=mat,
// CHECK:            pto.textract ins(%a_l1, %{{.*}}, %k : {{.*}}) outs(%a_l0a : !pto.tile_buf<loc=left,
// CHECK:            pto.textract ins(%b_l1, %k, %j : {{.*}}) outs(%b_l0b : !pto.tile_buf<loc=right,
// CHECK:              pto.tmatmul ins(%a_l0a, %b_l0b : {{.*}}) outs(%c_l0c : !pto.tile_buf<loc=acc,
// CHECK:              pto.tmatmul.acc ins(%c_l0c, %a_l0a, %b_l0b : {{.*}}) outs(%c_l0c :
// CHECK:          pto.tstore ins(%c_l0c : {{.*}}) outs(%c_win : !pto.partition_tensor_view<32x32xf32>)
// CHECK-NOT:  pto.load_2d
// CHECK-NOT:  pto.mmad
// CHECK-NOT:  pto.mte_gm_l1_frac

// EXEC-NOT: error:
// EXEC: check c = numpy reference of the IR: {{.*}}: ok

// RAISED:     pto.mte_gm_l1 %b, %b_l1,
// RAISED:     pto.mte_gm_l1 %a_panel, %a_l1,
// RAISED:     pto.mte_l1_l0a %a_l1[%{{.*}}, %k], %a_l0a,
// RAISED:     pto.mte_l1_l0b %b_l1[%k, %j], %b_l0b,
// RAISED:     pto.mad %a_l0a, %b_l0b, %c_l0c,
// RAISED:     pto.fixpipe %c_l0c, %c_win,
// RAISED-NOT: pto.copy_nd2nz
// RAISED-NOT: pto.load_2d
// RAISED-NOT: pto.mmad
// RAISED-NOT: pto.fixpipe_copy
builtin.module attributes {pto.target = "a2"} {
  func.func @mm(%a: memref<64x48xf16>, %b: memref<48x64xf16>, %c: memref<64x64xf32>) {
    pto.matmul %a, %b, %c : memref<64x48xf16>, memref<48x64xf16>, memref<64x64xf32>
    func.return
  }
}
