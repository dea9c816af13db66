// A CTA pair (cta_group::2) computes D[256, 128] (f32) = A[256, 16] x B[16, 128] (f16), kind::f16.
// Each CTA of the pair (cluster ranks 0 and 1) stages its half of A (rows 128 r .. 128 r + 127)
// and its half of B (columns 64 r .. 64 r + 63) in its own SMEM, at the same offsets. After a
// cluster barrier, rank 0 issues one tcgen05.mma.cta_group::2 (M = 256): each CTA's tensor core
// writes its 128 rows of D into its own TMEM, reading B from both CTAs' SMEM. rank 0 commits with
// the multicast mask 0b11, which arrives on the mbarrier of both CTAs; each CTA waits on its own,
// loads its 128 rows (4 warps x tcgen05.ld .32x32b.x128) and stores them to GM.
//
// SMEM per CTA (PTX canonical K-major, no swizzle): A half = a[r][2][128][8] (LBO 2048 B, SBO 128 B),
// B half = b[r][2][64][8] (B^T rows, LBO 1024 B, SBO 128 B). The GM inputs are K-blocked:
// A[128 r + m, k] = a[r, k / 8, m, k % 8],  B[k, 64 r + n] = b[r, k / 8, n, k % 8].
//
//   mmair-run examples/tcgen05_gemm_pair.mlir -p mmair-lower --output d=d.npy
//   mmair-translate --target ptx examples/tcgen05_gemm_pair.mlir      # PTX for sm_100a
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @gemm_pair(%a: memref<2x2x128x8xf16>, %b: memref<2x2x64x8xf16>, %d: memref<256x128xf32>) {
    %rank_i32 = tcgen05.cluster_rank : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 128>
    %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 2048, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 4096, lbo = 1024, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %a_smem = tcgen05.smem_alloc offset(0) : memref<2x128x8xf16, #tcgen05.space<smem>>
    %b_smem = tcgen05.smem_alloc offset(4096) : memref<2x64x8xf16, #tcgen05.space<smem>>
    %bar = tcgen05.smem_alloc offset(6144) : memref<1xi64, #tcgen05.space<smem>>
    %a_half = "memref.subview"(%a, %rank) <{static_offsets = array<i64: -9223372036854775808, 0, 0, 0>, static_sizes = array<i64: 1, 2, 128, 8>, static_strides = array<i64: 1, 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x2x128x8xf16>, index) -> memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>>
    %b_half = "memref.subview"(%b, %rank) <{static_offsets = array<i64: -9223372036854775808, 0, 0, 0>, static_sizes = array<i64: 1, 2, 64, 8>, static_strides = array<i64: 1, 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x2x64x8xf16>, index) -> memref<2x64x8xf16, strided<[512, 8, 1], offset: ?>>
    "memref.copy"(%a_half, %a_smem) : (memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>>, memref<2x128x8xf16, #tcgen05.space<smem>>) -> ()
    "memref.copy"(%b_half, %b_smem) : (memref<2x64x8xf16, strided<[512, 8, 1], offset: ?>>, memref<2x64x8xf16, #tcgen05.space<smem>>) -> ()
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    %acc = tcgen05.alloc cta_group(2) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
    // Both CTAs' SMEM halves and mbarriers are ready before rank 0 issues the pair's MMA.
    tcgen05.fence_before_thread_sync
    tcgen05.cluster_sync
    tcgen05.fence_after_thread_sync
    %leader = arith.cmpi eq, %rank_i32, %c0_i32 : i32
    scf.if %leader {
      %overwrite = arith.constant false
      tcgen05.mma kind(f16) cta_group(2) %acc, %a_desc, %b_desc, %idesc, %overwrite : memref<128x128xf32, #tcgen05.space<tmem>>, i64
      %both = arith.constant 3 : i16
      tcgen05.commit cta_group(2) %bar multicast(%both) : memref<1xi64, #tcgen05.space<smem>>
    }
    %phase0 = arith.constant false
    tcgen05.mbarrier_wait %bar, %phase0 : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.fence_after_thread_sync
    %r0 = tcgen05.ld shape("32x32b") num(128) warp(0) lane(0) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    %r1 = tcgen05.ld shape("32x32b") num(128) warp(1) lane(32) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    %r2 = tcgen05.ld shape("32x32b") num(128) warp(2) lane(64) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    %r3 = tcgen05.ld shape("32x32b") num(128) warp(3) lane(96) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    tcgen05.wait_ld
    %c128 = arith.constant 128 : index
    %row0 = arith.muli %rank, %c128 : index
    %c32 = arith.constant 32 : index
    %row1 = arith.addi %row0, %c32 : index
    %row2 = arith.addi %row1, %c32 : index
    %row3 = arith.addi %row2, %c32 : index
    %d0 = "memref.subview"(%d, %row0) <{static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<256x128xf32>, index) -> memref<32x128xf32, strided<[128, 1], offset: ?>>
    %d1 = "memref.subview"(%d, %row1) <{static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<256x128xf32>, index) -> memref<32x128xf32, strided<[128, 1], offset: ?>>
    %d2 = "memref.subview"(%d, %row2) <{static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<256x128xf32>, index) -> memref<32x128xf32, strided<[128, 1], offset: ?>>
    %d3 = "memref.subview"(%d, %row3) <{static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<256x128xf32>, index) -> memref<32x128xf32, strided<[128, 1], offset: ?>>
    "memref.copy"(%r0, %d0) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: ?>>) -> ()
    "memref.copy"(%r1, %d1) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: ?>>) -> ()
    "memref.copy"(%r2, %d2) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: ?>>) -> ()
    "memref.copy"(%r3, %d3) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: ?>>) -> ()
    tcgen05.dealloc cta_group(2) %acc : memref<128x128xf32, #tcgen05.space<tmem>>
    func.return
  }
}
