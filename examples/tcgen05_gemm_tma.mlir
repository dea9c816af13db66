// A Blackwell GEMM fed by TMA, as CUTLASS writes it, on one CTA (a warpgroup of 4 warps):
//   D[128, 128] (f32) = A[128, 256] x B[256, 128] (f16), kind::f16, cta_group::1,
// with A row-major (M x K) and B given as B^T, row-major N x K (both K-major).
// Two tensor maps (cuTensorMapEncodeTiled: f16, dims [256, 128] innermost first, 512-byte row
// stride, box [64, 128] = one 128-byte swizzle row of K by 128 rows, 128B swizzle) move one
// K block of 64 of A and of B per copy. A ring of 2 stages (A at 0 / 16384, B at 32768 / 49152):
// per K block kb, stage s = kb % 2, use u = kb / 2:
//   * wait empty[s] (phase u - 1: the MMAs that read the stage last time completed), from kb = 2;
//   * the elected thread arrives on full[s] with expect_tx(32768) (two 16384-byte boxes) and
//     issues both copies, which complete their bytes on full[s];
//   * wait full[s] (phase u), issue 4 MMAs (K = 16 each: the descriptors' start advances 32 bytes
//     inside the 128-byte swizzle row, base offset 0: TMA swizzles on absolute address bits) and
//     commit to empty[s].
// The last commit (kb = 3: empty[1], phase 1) makes D final; each warp loads its 32 TMEM lanes.
//
//   mmair-run examples/tcgen05_gemm_tma.mlir -p mmair-lower --output d=d.npy
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @gemm(%a: memref<128x256xf16>, %b: memref<128x256xf16>, %d: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %kblocks = arith.constant 4 : index
    %zero32 = arith.constant 0 : i32
    %one = arith.constant 1 : i64
    %zero = arith.constant 0 : i64
    %tma_a = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [256, 128], strides = [512], box = [64, 128], swizzle = sw128> : memref<128x256xf16>
    %tma_b = tcgen05.make_tensor_map %b, #tcgen05.tensor_map<dtype = f16, dims = [256, 128], strides = [512], box = [64, 128], swizzle = sw128> : memref<128x256xf16>
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
    %a_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
    %b_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 32768, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
    // Descriptor start field (bytes >> 4): +1024 per stage (16384 B), +2 per K step (32 B).
    %stage_step = arith.constant 1024 : i64
    %k_step = arith.constant 2 : i64
    %a_stages = tcgen05.smem_alloc offset(0) : memref<2x128x64xf16, #tcgen05.space<smem>>
    %b_stages = tcgen05.smem_alloc offset(32768) : memref<2x128x64xf16, #tcgen05.space<smem>>
    %full = tcgen05.smem_alloc offset(65536) : memref<2x1xi64, #tcgen05.space<smem>>
    %empty = tcgen05.smem_alloc offset(65552) : memref<2x1xi64, #tcgen05.space<smem>>
    %full0 = "memref.subview"(%full) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    %full1 = "memref.subview"(%full) <{static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    %empty0 = "memref.subview"(%empty) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    %empty1 = "memref.subview"(%empty) <{static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %full0 count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %full1 count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %empty0 count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %empty1 count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.fence_proxy_async
    %acc = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
    tcgen05.relinquish_alloc_permit cta_group(1)
    scf.for %kb = %c0 to %kblocks step %c1 {
      %stage = arith.remui %kb, %c2 : index
      %use = arith.divui %kb, %c2 : index
      %is0 = arith.cmpi eq, %stage, %c0 : index
      %use_i = arith.index_cast %use : index to i64
      %ubit = arith.andi %use_i, %one : i64
      %full_parity = arith.cmpi ne, %ubit, %zero : i64
      // Before refilling a stage, wait for the MMAs that read it (phase use - 1 of empty[s]).
      %again = arith.cmpi uge, %kb, %c2 : index
      scf.if %again {
        %prev = arith.subi %use, %c1 : index
        %prev_i = arith.index_cast %prev : index to i64
        %pbit = arith.andi %prev_i, %one : i64
        %empty_parity = arith.cmpi ne, %pbit, %zero : i64
        scf.if %is0 {
          tcgen05.mbarrier_wait %empty0, %empty_parity : memref<1xi64, #tcgen05.space<smem>>
        } else {
          tcgen05.mbarrier_wait %empty1, %empty_parity : memref<1xi64, #tcgen05.space<smem>>
        }
      }
      %a_dst = "memref.subview"(%a_stages, %stage) <{static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, 128, 64>, static_strides = array<i64: 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x128x64xf16, #tcgen05.space<smem>>, index) -> memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>
      %b_dst = "memref.subview"(%b_stages, %stage) <{static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, 128, 64>, static_strides = array<i64: 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x128x64xf16, #tcgen05.space<smem>>, index) -> memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>
      %k0 = arith.muli %kb, %c64 : index
      %k0_i = arith.index_cast %k0 : index to i32
      %elected = tcgen05.elect_sync : i1
      scf.if %elected {
        scf.if %is0 {
          tcgen05.mbarrier_arrive %full0 expect_tx(32768) : memref<1xi64, #tcgen05.space<smem>>
          tcgen05.tma_load %a_dst, %tma_a[%k0_i, %zero32], %full0 : memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
          tcgen05.tma_load %b_dst, %tma_b[%k0_i, %zero32], %full0 : memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
        } else {
          tcgen05.mbarrier_arrive %full1 expect_tx(32768) : memref<1xi64, #tcgen05.space<smem>>
          tcgen05.tma_load %a_dst, %tma_a[%k0_i, %zero32], %full1 : memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
          tcgen05.tma_load %b_dst, %tma_b[%k0_i, %zero32], %full1 : memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
        }
      }
      scf.if %is0 {
        tcgen05.mbarrier_wait %full0, %full_parity : memref<1xi64, #tcgen05.space<smem>>
      } else {
        tcgen05.mbarrier_wait %full1, %full_parity : memref<1xi64, #tcgen05.space<smem>>
      }
      tcgen05.fence_after_thread_sync
      %stage_i = arith.index_cast %stage : index to i64
      %stage_advance = arith.muli %stage_i, %stage_step : i64
      scf.for %kk = %c0 to %c4 step %c1 {
        %kk_i = arith.index_cast %kk : index to i64
        %k_advance = arith.muli %kk_i, %k_step : i64
        %advance = arith.addi %stage_advance, %k_advance : i64
        %a_desc = arith.addi %a_desc0, %advance : i64
        %b_desc = arith.addi %b_desc0, %advance : i64
        // Accumulate from the second MMA on (MMA number kb * 4 + kk).
        %kb4 = arith.muli %kb, %c4 : index
        %mma_no = arith.addi %kb4, %kk : index
        %accumulate = arith.cmpi ne, %mma_no, %c0 : index
        tcgen05.mma kind(f16) cta_group(1) %acc, %a_desc, %b_desc, %idesc, %accumulate : memref<128x128xf32, #tcgen05.space<tmem>>, i64
      }
      scf.if %is0 {
        tcgen05.commit cta_group(1) %empty0 : memref<1xi64, #tcgen05.space<smem>>
      } else {
        tcgen05.commit cta_group(1) %empty1 : memref<1xi64, #tcgen05.space<smem>>
      }
    }
    // The last MMAs (kb = 3, stage 1, its second use: phase 1 of empty[1]) complete D.
    %last = arith.constant true
    tcgen05.mbarrier_wait %empty1, %last : memref<1xi64, #tcgen05.space<smem>>
    // (empty[0] phase 1, kb = 2, completed before it: the commits of one thread are in order.)
    tcgen05.mbarrier_wait %empty0, %last : memref<1xi64, #tcgen05.space<smem>>
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
