// One Blackwell tensor-core MMA: D[128, 256] (f32, TMEM) = A[128, 16] x B[16, 256] (f16, SMEM),
// kind::f16, cta_group::1, both operands K-major without swizzle.
//
// SMEM layout (PTX canonical K-major, no swizzle: 8-row x 16-byte core matrices): with SBO = 128 B
// (next 8 rows) and LBO = rows x 16 B (next 8 elements of K), an operand is a [K/8][rows][8] array,
// so the GM inputs are given in that form:  A[m, k] = a[k / 8, m, k % 8],  B[k, n] = b[k / 8, n, k % 8].
//
//   mmair-opt examples/tcgen05_mma_f16.mlir                        # verify descriptors against the mma
//   mmair-run examples/tcgen05_mma_f16.mlir -p mmair-lower --output d=d.npy
//   mmair-desc decode idesc 0x08400010 --kind f16                  # the idesc below, as hardware sees it
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @mma(%a: memref<2x128x8xf16>, %b: memref<2x256x8xf16>, %d: memref<128x256xf32>) {
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
    %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 2048, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 4096, lbo = 4096, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %a_smem = tcgen05.smem_alloc offset(0) : memref<2x128x8xf16, #tcgen05.space<smem>>
    %b_smem = tcgen05.smem_alloc offset(4096) : memref<2x256x8xf16, #tcgen05.space<smem>>
    "memref.copy"(%a, %a_smem) : (memref<2x128x8xf16>, memref<2x128x8xf16, #tcgen05.space<smem>>) -> ()
    "memref.copy"(%b, %b_smem) : (memref<2x256x8xf16>, memref<2x256x8xf16, #tcgen05.space<smem>>) -> ()
    %acc = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>
    %overwrite = arith.constant false
    tcgen05.mma kind(f16) cta_group(1) %acc, %a_desc, %b_desc, %idesc, %overwrite : memref<128x256xf32, #tcgen05.space<tmem>>, i64
    "memref.copy"(%acc, %d) : (memref<128x256xf32, #tcgen05.space<tmem>>, memref<128x256xf32>) -> ()
    tcgen05.dealloc cta_group(1) %acc : memref<128x256xf32, #tcgen05.space<tmem>>
    func.return
  }
}
