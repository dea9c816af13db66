// A complete K-looped Blackwell GEMM as one CTA (a warpgroup of 4 warps) runs it:
//   D[128, 128] (f32) = A[128, 64] x B[64, 128] (f16), kind::f16, cta_group::1.
// Per K step of 16: copy the A and B slices into one of two SMEM stages, issue tcgen05.mma on
// that stage (accumulating from the second step on), tcgen05.commit to the stage's mbarrier; a
// stage is refilled only after the mbarrier phase of its previous MMA completed. After the loop
// a commit + wait on the last phase makes D final; each warp w loads TMEM lanes 32w..32w+31
// (tcgen05.ld .32x32b.x128), waits (tcgen05.wait_ld) and stores its 32 rows of D to GM.
//
// SMEM layout per stage (PTX canonical K-major, no swizzle, 8x16-byte core matrices):
// A stage = a[2][128][8] f16, 4096 B (LBO 2048 B = next 8 elements of K, SBO 128 B = next 8 rows),
// B stage = b[2][128][8] (B^T, N x K). The GM inputs are given K-blocked: A[m, k] = a[k/8, m, k%8],
// B[k, n] = b[k/8, n, k%8].
//
//   mmair-run examples/tcgen05_gemm_kloop.mlir -p mmair-lower --output d=d.npy
//   mmair-translate --target ptx examples/tcgen05_gemm_kloop.mlir      # PTX for sm_100a
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @gemm(%a: memref<8x128x8xf16>, %b: memref<8x128x8xf16>, %d: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %ksteps = arith.constant 4 : index
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
    // Stage s of A at 4096 s, of B at 8192 + 4096 s: the descriptor start field (bytes >> 4)
    // advances by 256 per stage.
    %a_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 2048, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %b_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 8192, lbo = 2048, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %stage_step = arith.constant 256 : i64
    %a_stages = tcgen05.smem_alloc offset(0) : memref<2x2x128x8xf16, #tcgen05.space<smem>>
    %b_stages = tcgen05.smem_alloc offset(8192) : memref<2x2x128x8xf16, #tcgen05.space<smem>>
    %bars = tcgen05.smem_alloc offset(16384) : memref<2x1xi64, #tcgen05.space<smem>>
    %bar0 = "memref.subview"(%bars) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    %bar1 = "memref.subview"(%bars) <{static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar0 count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar1 count(1) : memref<1xi64, #tcgen05.space<smem>>
    %acc = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
    tcgen05.relinquish_alloc_permit cta_group(1)
    scf.for %k = %c0 to %ksteps step %c1 {
      %stage = arith.remui %k, %c2 : index
      %use = arith.divui %k, %c2 : index
      // Before refilling a stage, wait for the MMA that read it two steps ago (phase use - 1).
      %again = arith.cmpi uge, %k, %c2 : index
      scf.if %again {
        %prev = arith.subi %use, %c1 : index
        %prev_i = arith.index_cast %prev : index to i64
        %one = arith.constant 1 : i64
        %zero = arith.constant 0 : i64
        %pbit = arith.andi %prev_i, %one : i64
        %parity = arith.cmpi ne, %pbit, %zero : i64
        %is0 = arith.cmpi eq, %stage, %c0 : index
        scf.if %is0 {
          tcgen05.mbarrier_wait %bar0, %parity : memref<1xi64, #tcgen05.space<smem>>
        } else {
          tcgen05.mbarrier_wait %bar1, %parity : memref<1xi64, #tcgen05.space<smem>>
        }
      }
      %kb = arith.muli %k, %c2 : index
      %a_src = "memref.subview"(%a, %kb) <{static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 2, 128, 8>, static_strides = array<i64: 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<8x128x8xf16>, index) -> memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>>
      %b_src = "memref.subview"(%b, %kb) <{static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 2, 128, 8>, static_strides = array<i64: 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<8x128x8xf16>, index) -> memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>>
      %a_dst = "memref.subview"(%a_stages, %stage) <{static_offsets = array<i64: -9223372036854775808, 0, 0, 0>, static_sizes = array<i64: 1, 2, 128, 8>, static_strides = array<i64: 1, 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x2x128x8xf16, #tcgen05.space<smem>>, index) -> memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>, #tcgen05.space<smem>>
      %b_dst = "memref.subview"(%b_stages, %stage) <{static_offsets = array<i64: -9223372036854775808, 0, 0, 0>, static_sizes = array<i64: 1, 2, 128, 8>, static_strides = array<i64: 1, 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x2x128x8xf16, #tcgen05.space<smem>>, index) -> memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>, #tcgen05.space<smem>>
      "memref.copy"(%a_src, %a_dst) : (memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>>, memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>, #tcgen05.space<smem>>) -> ()
      "memref.copy"(%b_src, %b_dst) : (memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>>, memref<2x128x8xf16, strided<[1024, 8, 1], offset: ?>, #tcgen05.space<smem>>) -> ()
      tcgen05.fence_after_thread_sync
      %stage_i = arith.index_cast %stage : index to i64
      %advance = arith.muli %stage_i, %stage_step : i64
      %a_desc = arith.addi %a_desc0, %advance : i64
      %b_desc = arith.addi %b_desc0, %advance : i64
      %accumulate = arith.cmpi ne, %k, %c0 : index
      tcgen05.mma kind(f16) cta_group(1) %acc, %a_desc, %b_desc, %idesc, %accumulate : memref<128x128xf32, #tcgen05.space<tmem>>, i64
      %is0 = arith.cmpi eq, %stage, %c0 : index
      scf.if %is0 {
        tcgen05.commit cta_group(1) %bar0 : memref<1xi64, #tcgen05.space<smem>>
      } else {
        tcgen05.commit cta_group(1) %bar1 : memref<1xi64, #tcgen05.space<smem>>
      }
    }
    // The last MMA (step 3, stage 1, its second use: phase 1) completes the accumulator.
    %last = arith.constant true
    tcgen05.mbarrier_wait %bar1, %last : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.fence_after_thread_sync
    %r0 = tcgen05.ld shape("32x32b") num(128) warp(0) lane(0) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    %r1 = tcgen05.ld shape("32x32b") num(128) warp(1) lane(32) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    %r2 = tcgen05.ld shape("32x32b") num(128) warp(2) lane(64) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    %r3 = tcgen05.ld shape("32x32b") num(128) warp(3) lane(96) column(0) %acc : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
    tcgen05.wait_ld
    %d0 = "memref.subview"(%d) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x128xf32>) -> memref<32x128xf32, strided<[128, 1]>>
    %d1 = "memref.subview"(%d) <{static_offsets = array<i64: 32, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x128xf32>) -> memref<32x128xf32, strided<[128, 1], offset: 4096>>
    %d2 = "memref.subview"(%d) <{static_offsets = array<i64: 64, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x128xf32>) -> memref<32x128xf32, strided<[128, 1], offset: 8192>>
    %d3 = "memref.subview"(%d) <{static_offsets = array<i64: 96, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x128xf32>) -> memref<32x128xf32, strided<[128, 1], offset: 12288>>
    "memref.copy"(%r0, %d0) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1]>>) -> ()
    "memref.copy"(%r1, %d1) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: 4096>>) -> ()
    "memref.copy"(%r2, %d2) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: 8192>>) -> ()
    "memref.copy"(%r3, %d3) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1], offset: 12288>>) -> ()
    tcgen05.dealloc cta_group(1) %acc : memref<128x128xf32, #tcgen05.space<tmem>>
    func.return
  }
}
