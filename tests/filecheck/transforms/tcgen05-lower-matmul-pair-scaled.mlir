// RUN: mmair-opt %s -p 'tcgen05-lower-matmul{cta-group=2}' | filecheck %s

// The block-scaled CTA pair (CUTLASS's 2-SM block-scaled kernel): an M = 256 x N = 80 MMA tile;
// each CTA copies its 128 A rows, its 40 B rows, the SFA atom of its 128 rows (row atom
// 2 tm + rank) and the SFB atom of all 80 columns, every copy .cta_group::2 onto the leader's
// full barrier, whose expect_tx counts both CTAs' bytes: 2 x (16384 + 5120 + 512 + 512); the
// leader's tcgen05.cp .cta_group::2 moves each CTA's atoms into its own TMEM before the four
// block_scale cta_group::2 MMAs (SF ids 0..3); every TMEM allocation is cta_group(2).
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @scaled_pair(%a: memref<200x128xf8E4M3FN>, %b: memref<80x128xf8E4M3FN>, %d: memref<200x80xf32>, %sa: memref<2x1x32x16xf8E8M0FNU>, %sb: memref<1x1x32x16xf8E8M0FNU>) {
    tcgen05.matmul %a, %b, %d scale(%sa, %sb) transpose_b : memref<200x128xf8E4M3FN>, memref<80x128xf8E4M3FN>, memref<200x80xf32>, memref<2x1x32x16xf8E8M0FNU>, memref<1x1x32x16xf8E8M0FNU>
    func.return
  }
}

// CHECK-LABEL: func.func @scaled_pair
// CHECK:      %rank = arith.index_cast %rank_i32 : i32 to index
// CHECK:      %tma_sa = tcgen05.make_tensor_map %sa, #tcgen05.tensor_map<dtype = u8, dims = [16, 32, 1, 2], strides = [16, 512, 512], box = [16, 32, 1, 1]> : memref<2x1x32x16xf8E8M0FNU>
// CHECK-NEXT: %tma_sb = tcgen05.make_tensor_map %sb, #tcgen05.tensor_map<dtype = u8, dims = [16, 32, 1, 1], strides = [16, 512, 512], box = [16, 32, 1, 1]> : memref<1x1x32x16xf8E8M0FNU>
// CHECK-NEXT: %idesc0 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e4m3, m = 256, n = 80, scale_type = ue8m0>
// CHECK:      %acc0 = tcgen05.alloc cta_group(2) columns(128) : memref<128x80xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: %acc1 = tcgen05.alloc cta_group(2) columns(128) : memref<128x80xf32, #tcgen05.space<tmem>>
// CHECK-NEXT: %sa_t = tcgen05.alloc cta_group(2) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
// CHECK:      %sb_t = tcgen05.alloc cta_group(2) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
// CHECK:      tcgen05.relinquish_alloc_permit cta_group(2)
// CHECK:      %tm2 = arith.muli %{{.*}}, %c2 : index
// CHECK-NEXT: %[[ROW:tm_cta[0-9]+]] = arith.addi %tm2, %rank : index
// CHECK:      arith.muli %[[ROW]], %c1 : index
// CHECK:      scf.if %leader {
// CHECK-NEXT:   tcgen05.mbarrier_arrive %[[FULL:bar[0-9]+]] expect_tx(45056)
// CHECK:      tcgen05.tma_load %a_dst{{[0-9]+}}, %tma_a[{{.*}}], %[[FULL]] cluster cta_group(2)
// CHECK-NEXT: tcgen05.tma_load %b_dst{{[0-9]+}}, %tma_b[{{.*}}], %[[FULL]] cluster cta_group(2)
// CHECK-NEXT: tcgen05.tma_load %sa_dst{{[0-9]+}}, %tma_sa[{{.*}}], %[[FULL]] cluster cta_group(2)
// CHECK-NEXT: tcgen05.tma_load %sb_dst{{[0-9]+}}, %tma_sb[{{.*}}], %[[FULL]] cluster cta_group(2)
// CHECK:      tcgen05.cp cta_group(2) shape("32x128b") multicast("warpx4") %sa_c0, %sa_desc{{[0-9]+}}
// CHECK:      tcgen05.cp cta_group(2) shape("32x128b") multicast("warpx4") %sb_c0, %sb_desc{{[0-9]+}}
// CHECK:      tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale %acc0, %a_desc{{[0-9]+}}, %b_desc{{[0-9]+}}, %idesc0, %accumulate{{[0-9]+}} scale(%sa_c0, %sb_c0)
// CHECK:      tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale %acc0, %a_desc{{[0-9]+}}, %b_desc{{[0-9]+}}, %idesc3, %accumulate{{[0-9]+}} scale(%sa_c0, %sb_c0)
// CHECK:      tcgen05.commit cta_group(2) %{{.*}} multicast(%pair_mask)
// CHECK:      tcgen05.dealloc cta_group(2) %sa_t
// CHECK-NEXT: tcgen05.dealloc cta_group(2) %sb_t
// CHECK-NOT:  cta_group(1)
