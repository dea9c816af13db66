// RUN: mmair-opt %s -p 'tcgen05-lower-matmul{cta-group=2}' | filecheck %s

// The CTA-pair kernel (cta_group::2, CUTLASS's 2-SM schedule): an M = 256 x N = 128 MMA tile;
// each CTA loads its 128 rows of A and its 64 rows of B (m0 + 128 rank, n0 + 64 rank) with
// .cta_group::2 copies whose complete-tx goes to the leader's full barrier; only the leader
// announces the stage (both CTAs' bytes) and issues the MMAs; its commits reach both CTAs
// (multicast 0b11); each CTA's epilogue stores its own TMEM rows. D has 300 rows: in the last
// tile (44 rows) only the leader stores, 12 rows of its second warp; the CTAs meet at the cluster
// barrier after the allocations and after an epilogue that frees an accumulator.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @pair(%a: memref<300x104xf16>, %b: memref<104x72xf16>, %d: memref<300x72xf32>) {
    tcgen05.matmul %a, %b, %d : memref<300x104xf16>, memref<104x72xf16>, memref<300x72xf32>
    func.return
  }
}

// CHECK-LABEL: func.func @pair
// CHECK:      %rank_i32 = tcgen05.cluster_rank : i32
// CHECK-NEXT: %rank = arith.index_cast %rank_i32 : i32 to index
// CHECK-NEXT: %leader = arith.cmpi eq, %rank_i32, %c0_i32 : i32
// CHECK-NEXT: %pair_mask = arith.constant 3 : i16
// CHECK-NEXT: %tma_a = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [104, 300], strides = [208], box = [64, 128], swizzle = sw128> : memref<300x104xf16>
// CHECK-NEXT: %tma_b = tcgen05.make_tensor_map %b, #tcgen05.tensor_map<dtype = f16, dims = [72, 104], strides = [144], box = [64, 64], swizzle = sw128> : memref<104x72xf16>
// CHECK-NEXT: %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 128, transpose_b = true>
// CHECK:      %a_stages = tcgen05.smem_alloc offset(0) : memref<4x128x64xf16, #tcgen05.space<smem>>
// CHECK-NEXT: %b_stages = tcgen05.smem_alloc offset(65536) : memref<4x1x64x64xf16, #tcgen05.space<smem>>
// CHECK:      %acc0 = tcgen05.alloc cta_group(2) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: %acc1 = tcgen05.alloc cta_group(2) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: tcgen05.relinquish_alloc_permit cta_group(2)
// CHECK-NEXT: tcgen05.fence_before_thread_sync
// CHECK-NEXT: tcgen05.cluster_sync
// CHECK-NEXT: tcgen05.fence_after_thread_sync
// the producer: this CTA's rows of A and of B
// CHECK:      %m0 = arith.muli %{{.*}}, %c256 : index
// CHECK-NEXT: %n0 = arith.muli %{{.*}}, %c128 : index
// CHECK-NEXT: %[[AH:.*]] = arith.muli %rank, %c128 : index
// CHECK-NEXT: %[[AROW:.*]] = arith.addi %m0, %[[AH]] : index
// CHECK-NEXT: %[[BH:.*]] = arith.muli %rank, %c64 : index
// CHECK-NEXT: %[[BROW:.*]] = arith.addi %n0, %[[BH]] : index
// CHECK:      scf.if %leader {
// CHECK-NEXT:   tcgen05.mbarrier_arrive %[[FULL:.*]] expect_tx(49152) : memref<1xi64, strided<[1], offset: ?>, #tcgen05.space<smem>>
// CHECK-NEXT: }
// CHECK-NEXT: tcgen05.tma_load %{{.*}}, %tma_a[%{{.*}}, %{{.*}}], %[[FULL]] cluster cta_group(2) : memref<128x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>, memref<1xi64, strided<[1], offset: ?>, #tcgen05.space<smem>>
// CHECK-NEXT: tcgen05.tma_load %{{.*}}, %tma_b[%{{.*}}, %{{.*}}], %[[FULL]] cluster cta_group(2) : memref<64x64xf16, strided<[64, 1], offset: ?>, #tcgen05.space<smem>>, memref<1xi64, strided<[1], offset: ?>, #tcgen05.space<smem>>
// the consumer: the leader waits for both CTAs' bytes, issues, commits to both CTAs
// CHECK:      scf.if %leader {
// CHECK:        tcgen05.mbarrier_wait
// CHECK:        tcgen05.mma kind(f16) cta_group(2) %acc0, %{{.*}}, %{{.*}}, %idesc, %{{.*}} : memref<128x128xf32, #tcgen05.space<tmem>>, i64
// CHECK:        tcgen05.mma kind(f16) cta_group(2) %acc1, %{{.*}}, %{{.*}}, %idesc, %{{.*}} : memref<128x128xf32, #tcgen05.space<tmem>>, i64
// CHECK:        tcgen05.commit cta_group(2) %{{.*}} multicast(%pair_mask) : memref<1xi64, strided<[1], offset: ?>, #tcgen05.space<smem>>
// CHECK-NEXT:   scf.if %{{.*}} {
// CHECK-NEXT:     tcgen05.commit cta_group(2) %{{.*}} multicast(%pair_mask) : memref<1xi64, strided<[1], offset: ?>, #tcgen05.space<smem>>
// the epilogue of tile 0 (a full tile: each CTA its 128 rows), inside the loop
// CHECK:      %[[H:.*]] = arith.muli %rank, %c128 : index
// CHECK-NEXT: %[[M:.*]] = arith.addi %m0_1, %[[H]] : index
// CHECK:      tcgen05.ld shape("32x32b") num(64) warp(3) lane(96) column(0) %acc0
// CHECK:      tcgen05.fence_before_thread_sync
// CHECK-NEXT: tcgen05.cluster_sync
// CHECK-NEXT: tcgen05.fence_after_thread_sync
// the epilogue of tile 1 (44 rows): the leader stores 32 + 12 rows, the peer nothing (the
// leader's branch has no else; the next else is the full-tile case of the row split)
// CHECK:      scf.if %leader {
// CHECK-NOT:    warp(2)
// CHECK:        memref.subview %d[%{{.*}}, %{{.*}}] [12, 64] [1, 1] : memref<300x72xf32> to memref<12x64xf32, strided<[72, 1], offset: ?>>
// CHECK-NOT:    warp(2)
// CHECK:        tcgen05.ld shape("32x32b") num(8) warp(1) lane(32) column(64) %acc1 : memref<128x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK:        memref.subview %d[%{{.*}}, %{{.*}}] [12, 8] [1, 1] : memref<300x72xf32> to memref<12x8xf32, strided<[72, 1], offset: ?>>
// CHECK-NEXT:   memref.subview %{{.*}}[0, 0] [12, 8] [1, 1] : memref<32x8xf32> to memref<12x8xf32, strided<[8, 1]>>
// CHECK-NEXT:   "memref.copy"
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT:   %{{.*}} = arith.muli %rank, %c128 : index
// CHECK:      tcgen05.dealloc cta_group(2) %acc0 : memref<128x128xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: tcgen05.dealloc cta_group(2) %acc1 : memref<128x128xf32, #tcgen05.space<tmem>>
