// The fixpipe buffer: quant words GM -> L1 (copy_gm_l1) -> FB (mte_l1_fb, FIX) and a
// vector-quant fixpipe reading them (PTOAS's FP forms convert to this). The first kernel runs as
// is with random inputs (its store does not quantize); the second stops at the first quant word
// random bits do not make valid, so mutants of both reach the verifiers and the executor.
builtin.module {
  func.func @fb_load(%q: memref<1x16xui64>, %a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %l1q = pto.alloc {offset = 1024 : i64} : !pto.tile<l1, 1x16xui64, nd>
    %fb = pto.alloc {offset = 0 : i64} : !pto.tile<fb, 16xui64, nd>
    %l1a = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %l1b = pto.alloc {offset = 512 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %l0a = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 16x16xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.copy_gm_l1 %q[%c0], %l1q[%c0] block_count %c1 block_len %c4 src_gap %c0 dst_gap %c0 : memref<1x16xui64>, !pto.tile<l1, 1x16xui64, nd>
    pto.mte_gm_l1 %a, %l1a, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.mte_gm_l1 %b, %l1b, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> fix, 0
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> fix, 0
    pto.mte_l1_fb %l1q, %fb, %c16 : !pto.tile<l1, 1x16xui64, nd>, !pto.tile<fb, 16xui64, nd>
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %l1a, %l0a, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_l1_l0b %l1b, %l0b, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %l0a, %l0b, %acc, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.pipe_barrier fix
    pto.fixpipe %acc, %c, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    func.return
  }
}

// -----
builtin.module {
  func.func @fb_quant(%q: memref<1x16xui64>, %a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %l1q = pto.alloc {offset = 1024 : i64} : !pto.tile<l1, 1x16xui64, nd>
    %fb = pto.alloc {offset = 0 : i64} : !pto.tile<fb, 16xui64, nd>
    %l1a = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %l1b = pto.alloc {offset = 512 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %l0a = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 16x16xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.copy_gm_l1 %q[%c0], %l1q[%c0] block_count %c1 block_len %c4 src_gap %c0 dst_gap %c0 : memref<1x16xui64>, !pto.tile<l1, 1x16xui64, nd>
    pto.mte_gm_l1 %a, %l1a, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.mte_gm_l1 %b, %l1b, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> fix, 0
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> fix, 0
    pto.mte_l1_fb %l1q, %fb, %c16 : !pto.tile<l1, 1x16xui64, nd>, !pto.tile<fb, 16xui64, nd>
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %l1a, %l0a, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_l1_l0b %l1b, %l0b, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %l0a, %l0b, %acc, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.pipe_barrier fix
    pto.fixpipe %acc, %c, %c16, %c16 vector %fb : !pto.tile<fb, 16xui64, nd> {quant = "vqf322b8_pre"} : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xi8>
    func.return
  }
}
