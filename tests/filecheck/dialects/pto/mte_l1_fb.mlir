// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.mte_l1_fb: a row of quant words L1 -> FB (whole FB units: 128 B on a2, 64 B on a5), then
// read by a vector-quant fixpipe from FB.
func.func @fb(%out: memref<32x32xi8>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
  %l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32xui64, nd>
  %fb = pto.alloc {offset = 0 : i64} : !pto.tile<fb, 32xui64, nd>
  pto.mte_l1_fb %l1, %fb, %c32 : !pto.tile<l1, 32xui64, nd>, !pto.tile<fb, 32xui64, nd>
  // CHECK: pto.mte_l1_fb %l1, %fb, %c32 : !pto.tile<l1, 32xui64, nd>, !pto.tile<fb, 32xui64, nd>
  pto.mte_l1_fb %l1, %fb, %c16 : !pto.tile<l1, 32xui64, nd>, !pto.tile<fb, 32xui64, nd>
  // CHECK: pto.mte_l1_fb %l1, %fb, %c16 : !pto.tile<l1, 32xui64, nd>, !pto.tile<fb, 32xui64, nd>
  pto.fixpipe %acc, %out, %c32, %c32 vector %fb : !pto.tile<fb, 32xui64, nd> {quant = "vqf322b8_pre"} : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xi8>
  // CHECK: pto.fixpipe %acc, %out, %c32, %c32 vector %fb : !pto.tile<fb, 32xui64, nd> {quant = "vqf322b8_pre"} : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xi8>
  return
}

// -----
// a5 moves FB bursts of 64 bytes: 8 u64 words.
builtin.module attributes {pto.target = "a5"} {
  %c8 = arith.constant 8 : index
  %l1, %fb = "test.op"() : () -> (!pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>)
  pto.mte_l1_fb %l1, %fb, %c8 : !pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>
  // CHECK: pto.mte_l1_fb %l1, %fb, %c8 : !pto.tile<l1, 16xui64, nd>, !pto.tile<fb, 16xui64, nd>
}
