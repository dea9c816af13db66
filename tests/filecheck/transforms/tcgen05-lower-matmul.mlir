// RUN: mmair-opt %s -p tcgen05-lower-matmul | filecheck %s
// RUN: mmair-opt %s -p mmair-lower | filecheck %s --check-prefix=LOWER

// D[200, 72] = A[200, 104] x B[104, 72] (f16): 2 row tiles of 128 (the second 72 rows), one N
// tile of 128 (B is MN-major: two 64-column boxes of the 128-byte atom), 2 K blocks of 64
// (the second half out of bounds: TMA fills zeros), a ring of 4 stages (one per K block of
// the kernel), two TMEM accumulators, an epilogue with the clipped windows of the last tile.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @matmul(%a: memref<200x104xf16>, %b: memref<104x72xf16>, %d: memref<200x72xf32>) {
    tcgen05.matmul %a, %b, %d : memref<200x104xf16>, memref<104x72xf16>, memref<200x72xf32>
    func.return
  }
}

// CHECK:      %tma_a = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [104, 200], strides = [208], box = [64, 128], swizzle = sw128> : memref<200x104xf16>
// CHECK-NEXT: %tma_b = tcgen05.make_tensor_map %b, #tcgen05.tensor_map<dtype = f16, dims = [72, 104], strides = [144], box = [64, 64], swizzle = sw128> : memref<104x72xf16>
// CHECK-NEXT: %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128, transpose_b = true>
// CHECK-NEXT: %a_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT: %b_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 65536, lbo = 8192, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT: %a_stages = tcgen05.smem_alloc offset(0) : memref<4x128x64xf16, #tcgen05.space<smem>>
// CHECK-NEXT: %b_stages = tcgen05.smem_alloc offset(65536) : memref<4x2x64x64xf16, #tcgen05.space<smem>>
// CHECK-NEXT: %bars = tcgen05.smem_alloc offset(131072) : memref<10xi64, #tcgen05.space<smem>>
// CHECK:      tcgen05.mbarrier_init %{{.*}} count(1)
// CHECK:      %acc0 = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: %acc1 = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: tcgen05.relinquish_alloc_permit cta_group(1)
// The flat loop: 4 blocks (2 tiles x 2 K blocks) + 3 (the ring's lag).
// CHECK-NEXT: scf.for %g = %c0 to %c7 step %c1 {
// CHECK:        tcgen05.mbarrier_wait %{{.*}}, %parity{{[0-9]+}}
// CHECK:        tcgen05.elect_sync : i1
// CHECK:        tcgen05.mbarrier_arrive %{{.*}} expect_tx(32768)
// CHECK-NEXT:   tcgen05.tma_load %a_dst{{[0-9]+}}, %tma_a[%{{.*}}, %{{.*}}], %bar{{[0-9]+}}
// CHECK-NEXT:   tcgen05.tma_load %b_dst{{[0-9]+}}, %tma_b[%{{.*}}, %{{.*}}], %bar{{[0-9]+}}
// CHECK-NEXT:   tcgen05.tma_load %b_dst{{[0-9]+}}, %tma_b[%{{.*}}, %{{.*}}], %bar{{[0-9]+}}
// CHECK:        %consume{{[0-9]+}} = arith.cmpi uge, %g, %c3 : index
// CHECK:        tcgen05.mbarrier_wait
// CHECK-NEXT:   tcgen05.fence_after_thread_sync
// CHECK:        tcgen05.mma kind(f16) cta_group(1) %acc0, %a_desc{{[0-9]+}}, %b_desc{{[0-9]+}}, %idesc, %accumulate{{[0-9]+}}
// CHECK:        tcgen05.mma kind(f16) cta_group(1) %acc1,
// CHECK:        tcgen05.commit cta_group(1) %bar{{[0-9]+}}
// CHECK:        tcgen05.commit cta_group(1) %bar{{[0-9]+}}
// The previous tile's epilogue, inside the loop: its last rows (72 = 2 warps of 32 + 8 rows),
// N = 72 columns as tcgen05.ld .num 64 + 8, one column chunk at a time.
// CHECK:        tcgen05.ld shape("32x32b") num(64) warp(0) lane(0) column(0) %acc0
// CHECK-NEXT:   tcgen05.ld shape("32x32b") num(64) warp(1) lane(32) column(0) %acc0
// CHECK-NEXT:   tcgen05.ld shape("32x32b") num(64) warp(2) lane(64) column(0) %acc0
// CHECK-NEXT:   tcgen05.wait_ld
// CHECK:        memref.subview %r{{[0-9]+}}[0, 0] [8, 64] [1, 1] : memref<32x64xf32> to memref<8x64xf32, strided<[64, 1]>>
// CHECK:        tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(64) %acc0
// CHECK:      tcgen05.dealloc cta_group(1) %acc0
// CHECK-NEXT: tcgen05.dealloc cta_group(1) %acc1
// CHECK-NEXT: func.return

// mmair-lower also materializes the descriptors.
// LOWER:     %a_desc0 = arith.constant {{-?[0-9]+}} : i64
// LOWER-NOT: tcgen05.matmul
// LOWER-NOT: tcgen05.make_smem_desc
