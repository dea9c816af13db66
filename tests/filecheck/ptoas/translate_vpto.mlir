// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync,pto-expand-params' | mmair-translate --target ptoas - | filecheck %s
// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync,pto-expand-params' | mmair-translate --target ptoas - | mmair-run - --check-numpy | filecheck %s --check-prefix=EXEC
// RUN: sed 's/"a5"/"a2"/' %s | mmair-opt - -p 'pto-tile-matmul,pto-assign-addresses,pto-expand-params' | not mmair-translate --target ptoas - 2>&1 | filecheck %s --check-prefix=A2

// mmair-translate --target ptoas writes the raw parameter forms of an a5 kernel (here the
// pto-expand-params form of a lowered matmul) as PTOAS VPTO cube micro-ops on pointers; mmair
// reads the text back and runs it against numpy. On a2 the raw forms have no PTOAS spelling.

// CHECK:      builtin.module attributes {pto.target_arch = "a5", pto.kernel_kind = #pto.kernel_kind<cube>} {
// CHECK-NEXT:   func.func @mm(%a: !pto.ptr<f16>, %b: !pto.ptr<f16>, %c: !pto.ptr<f32>) attributes {pto.kernel} {
// CHECK:      %b_view = pto.make_tensor_view %b, shape = [%{{.*}}, %{{.*}}], strides = [%{{.*}}, %{{.*}}] : !pto.tensor_view<?x?xf16>
// CHECK:      %a_l1 = pto.alloc_tile addr = %{{.*}} : !pto.tile_buf<loc=mat, dtype=f16, rows=32, cols=48,
// CHECK-NEXT: %a_l1_ptr = pto.tile_buf_addr %a_l1 : !pto.tile_buf<{{.*}}> -> !pto.ptr<f16, l1>
// CHECK:      %[[B:.*]] = pto.tensor_view_addr %b_view : !pto.tensor_view<?x?xf16> -> !pto.ptr<f16>
// CHECK-NEXT: pto.mte_gm_l1_frac %[[B]], %b_l1_ptr, nd2nz, shape(%{{.*}}, %{{.*}}), src_layout(%{{.*}}, %{{.*}}), dst_group(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), ctrl(%c0_i64, %false) : !pto.ptr<f16>, !pto.ptr<f16, l1>, nd2nz, shape i64, i64, src_layout(i64, i64), dst_group i64, i64, i64, i64, ctrl i64, i1
// CHECK:      scf.for %i = %c0 to %c64 step %c32 {
// CHECK:        %a_panel = pto.partition_view %a_view, offsets = [%i, %{{.*}}], sizes = [%{{.*}}, %{{.*}}] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<32x48xf16>
// CHECK:        pto.tensor_view_addr %a_panel : !pto.partition_tensor_view<32x48xf16> -> !pto.ptr<f16>
// CHECK:        pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]
// CHECK:        %[[SRC:.*]] = pto.addptr %a_l1_ptr, %{{.*}} : !pto.ptr<f16, l1> -> !pto.ptr<f16, l1>
// CHECK:        pto.mte_l1_l0a %[[SRC]], %{{.*}}, %c0_i64, %c0_i64, %c1_i64, %{{.*}}, %c1_i64, %c1_i64 : !pto.ptr<f16, l1>, !pto.ptr<f16, l0a>, i64, i64, i64, i64, i64, i64
// CHECK:        pto.mte_l1_l0b %{{.*}}, %{{.*}}, %c0_i64, %c0_i64, %c1_i64, %{{.*}}, %c1_i64, %c1_i64 {transpose = true} : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>
// CHECK:        pto.mad %a_l0a_ptr, %b_l0b_ptr, %c_l0c_ptr, %{{.*}}, %{{.*}}, %{{.*}} : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
// CHECK:        pto.mad_acc %a_l0a_ptr, %b_l0b_ptr, %c_l0c_ptr,
// CHECK:        %[[C:.*]] = pto.tensor_view_addr %c_win : !pto.partition_tensor_view<32x32xf32> -> !pto.ptr<f32>
// CHECK:        pto.mte_l0c_gm %c_l0c_ptr, %[[C]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i64, %c0_i64, nz2nd : !pto.ptr<f32, l0c>, !pto.ptr<f32>, i64, i64, i64, i64, i64, i64
// CHECK-NOT:  pto.load_2d
// CHECK-NOT:  pto.mmad

// EXEC-NOT: error:
// EXEC: check c = numpy reference of the IR: {{.*}}: ok

// A2: {{.*}}:{{[0-9]+}}:{{[0-9]+}}: error: 'pto.copy_nd2nz' op is a raw parameter form on target a2: PTOAS's VPTO cube ops are the Ascend 950 (a5) forms (its load_cbuf_to_ca / mte_l1_l0a take LoadData2DParamsV2, which A2 / A3 do not have) and its tile level has no parameter forms, so it has no PTOAS spelling (docs/ptoas.md, "Writing PTOAS")
builtin.module attributes {pto.target = "a5"} {
  func.func @mm(%a: memref<64x48xf16>, %b: memref<48x64xf16>, %c: memref<64x64xf32>) {
    pto.matmul %a, %b, %c : memref<64x48xf16>, memref<48x64xf16>, memref<64x64xf32>
    func.return
  }
}
