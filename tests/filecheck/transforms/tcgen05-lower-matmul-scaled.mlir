// RUN: mmair-opt %s -p tcgen05-lower-matmul | filecheck %s

// A block-scaled matmul (kind::mxf8f6f4, UE8M0 scales in CUTLASS's atom layout): per stage one
// 512-byte atom of SA and of SB next to the A and B tiles (4-d boxes, no swizzle), tcgen05.cp
// .32x128b.warpx4 of each into its TMEM columns, and 4 MMAs per K block with SF ids 0..3.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @matmul(%a: memref<200x208xf8E4M3FN>, %b: memref<208x80xf8E5M2>, %d: memref<200x80xf32>, %sa: memref<2x2x32x16xf8E8M0FNU>, %sb: memref<1x2x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) : memref<200x208xf8E4M3FN>, memref<208x80xf8E5M2>, memref<200x80xf32>, memref<2x2x32x16xf8E8M0FNU>, memref<1x2x32x16xf8E8M0FNU>
    func.return
  }
}

// CHECK:      %tma_sa = tcgen05.make_tensor_map %sa, #tcgen05.tensor_map<dtype = u8, dims = [16, 32, 2, 2], strides = [16, 512, 1024], box = [16, 32, 1, 1]> : memref<2x2x32x16xf8E8M0FNU>
// CHECK-NEXT: %tma_sb = tcgen05.make_tensor_map %sb, #tcgen05.tensor_map<dtype = u8, dims = [16, 32, 2, 1], strides = [16, 512, 1024], box = [16, 32, 1, 1]> : memref<1x2x32x16xf8E8M0FNU>
// CHECK-NEXT: %idesc0 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e5m2, m = 128, n = 128, transpose_b = true, scale_type = ue8m0>
// CHECK-NEXT: %idesc1 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e5m2, m = 128, n = 128, transpose_b = true, scale_type = ue8m0, sfa_id = 1, sfb_id = 1>
// CHECK:      %sa_desc0 = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 131072, lbo = 16, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
// CHECK-NEXT: %sa_stages = tcgen05.smem_alloc offset(131072) : memref<4x1x1x32x16xf8E8M0FNU, #tcgen05.space<smem>>
// CHECK:      %sb_stages = tcgen05.smem_alloc offset(133120) : memref<4x1x1x32x16xf8E8M0FNU, #tcgen05.space<smem>>
// CHECK:      %sa_t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
// CHECK:      %sb_t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
// The stage's transaction bytes: A 16384 + B 16384 + one atom each of SA and SB.
// CHECK:      tcgen05.mbarrier_arrive %{{.*}} expect_tx(33792)
// CHECK:      tcgen05.tma_load %{{.*}}, %tma_sa[%c0_i32, %c0_i32, %{{.*}}, %{{.*}}], %{{.*}} : memref<1x1x32x16xf8E8M0FNU, strided<[512, 512, 16, 1], offset: ?>, #tcgen05.space<smem>>
// CHECK-NEXT: tcgen05.tma_load %{{.*}}, %tma_sb[
// CHECK:      tcgen05.cp cta_group(1) shape("32x128b") multicast("warpx4") %sa_c0, %{{.*}} : memref<128x4xi32, strided<[32, 1]>, #tcgen05.space<tmem>>
// CHECK:      tcgen05.cp cta_group(1) shape("32x128b") multicast("warpx4") %sb_c0, %{{.*}}
// CHECK:      tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale %acc0, %{{.*}}, %{{.*}}, %idesc0, %{{.*}} scale(%sa_c0, %sb_c0)
// CHECK:      tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale %acc0, %{{.*}}, %{{.*}}, %idesc1, %{{.*}} scale(%sa_c0, %sb_c0)
// CHECK:      tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale %acc0, %{{.*}}, %{{.*}}, %idesc2,
// CHECK:      tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale %acc0, %{{.*}}, %{{.*}}, %idesc3,
// CHECK:      tcgen05.dealloc cta_group(1) %sa_t
// CHECK-NEXT: tcgen05.dealloc cta_group(1) %sb_t
