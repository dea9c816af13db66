// RUN: mmair-translate --target ptoas %examples/gemm_f16_128.mlir | filecheck %s
// RUN: mmair-translate --target ptoas %examples/gemm_f16_128.mlir | mmair-run - --check-numpy | filecheck %s --check-prefix=EXEC
// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync' | mmair-translate --target ptoas - | filecheck %s --check-prefix=LOWERED
// RUN: not mmair-translate --target ptoas %s 2>&1 | filecheck %s --check-prefix=UNLOWERED
// RUN: not mmair-translate --target ptoas %examples/tcgen05_mma_f16.mlir 2>&1 | filecheck %s --check-prefix=TCGEN05

// mmair-translate --target ptoas writes an mmair cube kernel as PTOAS tile-level IR; mmair reads the
// text back (any file name, stdin too) and runs it against numpy.

// CHECK:      builtin.module attributes {pto.target_arch = "a2", pto.kernel_kind = #pto.kernel_kind<cube>} {
// CHECK-NEXT:   func.func @gemm(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f32>) attributes {pto.kernel} {
// CHECK:      %a_view = pto.make_tensor_view %a, shape = [%n128, %n128], strides = [%n128, %c1] : !pto.tensor_view<?x?xf16>
// CHECK:      %l1_a = pto.alloc_tile addr = %c0_i64 : !pto.tile_buf<loc=mat, dtype=f16, rows=128, cols=128, v_row=128, v_col=128, blayout=col_major, slayout=row_major, fractal=512, pad=0>
// CHECK:      pto.tload ins(%{{.*}} : !pto.partition_tensor_view<128x128xf16>) outs(%l1_a : !pto.tile_buf<loc=mat,
// CHECK:      pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]
// CHECK:      pto.tmov ins(%l1_a : {{.*}}) outs(%l0a : !pto.tile_buf<loc=left,
// CHECK:      pto.tmatmul ins(%l0a, %l0b : {{.*}}) outs(%l0c : !pto.tile_buf<loc=acc, dtype=f32,
// CHECK:      pto.tstore ins(%l0c : {{.*}}) outs(%{{.*}} : !pto.partition_tensor_view<128x128xf32>)

// EXEC-NOT: error:
// EXEC: check c = numpy reference of the IR: {{.*}}: ok

// LOWERED:      func.func @mm(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f32>) attributes {pto.kernel} {
// LOWERED:      scf.for %i = %c0 to %c64 step %c32 {
// LOWERED:        %a_panel = pto.partition_view %a_view, offsets = [%i, %c0{{.*}}], sizes = [%c32{{.*}}, %c96{{.*}}] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<32x96xf16>
// LOWERED:        pto.textract ins(%a_l1, %c0{{.*}}, %k : {{.*}}) outs(%a_l0a : !pto.tile_buf<loc=left,
// LOWERED:        pto.tmatmul.acc ins(%c_l0c, %a_l0a, %b_l0b : {{.*}}) outs(%c_l0c : {{.*}})

// UNLOWERED: translate_ptoas.mlir:[[# @LINE + 5]]:5: error: 'pto.matmul' op is mmair's high-level matmul: lower it first (mmair-opt -p mmair-lower K.mlir | mmair-translate --target ptoas -)
// TCGEN05: tcgen05_mma_f16.mlir: error: holds no cube kernel (no pto.mte_gm_l1, pto.mad* or raw cube form): nothing to write as PTOAS

builtin.module attributes {pto.target = "a2"} {
  func.func @mm(%a: memref<64x96xf16>, %b: memref<96x64xf16>, %c: memref<64x64xf32>) {
    pto.matmul %a, %b, %c : memref<64x96xf16>, memref<96x64xf16>, memref<64x64xf32>
    func.return
  }
}
