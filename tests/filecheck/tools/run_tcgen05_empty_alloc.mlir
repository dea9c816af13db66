// RUN: not mmair-run %s 2>&1 | filecheck %s

// A zero-extent TMEM allocation is refused by the verifier: one diagnostic at the op, exit 1.
// CHECK:      run_tcgen05_empty_alloc.mlir:[[# @LINE + 6]]:5: error: 'tcgen05.alloc' op requires a result memref whose dimensions are each at least 1, got shape 0x32 (memref<0x32xf32, #tcgen05.space<tmem>>)
// CHECK-NEXT: %t = tcgen05.alloc cta_group(1) columns(32)
// CHECK-NEXT: ^
// CHECK-NOT: {{.}}

func.func @k() {
    %t = tcgen05.alloc cta_group(1) columns(32) : memref<0x32xf32, #tcgen05.space<tmem>>
    func.return
}
