// RUN: not mmair-opt %s 2>&1 | filecheck %s
// A file whose only PTOAS construct is a VPTO memref operand (`#pto.address_space<...>`, the
// spelling of PTOAS's lit/vpto tests) is PTOAS text: a bad space is PTOAS's attribute error at
// the space, not "'pto.address_space' is not registered". Any file name, no other marker.
// CHECK: address_space_marker.mlir:8:50: error: '#pto.address_space' requires a space in [gm, mat, left, right, acc, vec, bias, scaling], got gmm
// CHECK-NEXT: func.func @k(%a: memref<?xf16, #pto.address_space<gmm>>) {
// CHECK-NOT: not registered
func.func @k(%a: memref<?xf16, #pto.address_space<gmm>>) {
  func.return
}
