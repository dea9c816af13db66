// RUN: mmair-opt %examples/tcgen05_mma_f16.mlir | filecheck %s
// RUN: mmair-opt %examples/tcgen05_mma_f16.mlir -p tcgen05-materialize-descriptors | filecheck %s --check-prefix=WORDS
// The tcgen05 example verifies, and its descriptors materialize to the words hardware sees.

// CHECK: tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// CHECK: tcgen05.mma kind(f16) cta_group(1) %acc, %a_desc, %b_desc, %idesc, %overwrite

// 0x08400010 = 138412048 (PTX instruction-descriptor tables, f16 dense M=128 N=256)
// WORDS: %idesc = arith.constant 138412048 : i32
