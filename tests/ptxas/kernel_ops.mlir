// Every whole-kernel tcgen05 op once, for tcgen05-to-ptx + ptxas (tests/unit/passes/test_tcgen05_to_ptx.py).
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @ops(%out: memref<32x16xf32>) {
    %bar = tcgen05.smem_alloc offset(0) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(2) : memref<1xi64, #tcgen05.space<smem>>
    %t = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
    %src = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
    tcgen05.cp cta_group(1) shape("128x256b") %t, %src : memref<128x64xf32, #tcgen05.space<tmem>>
    tcgen05.cp cta_group(1) shape("32x128b") multicast("warpx4") decompress("b8x16.b4x16_p64") %t, %src : memref<128x64xf32, #tcgen05.space<tmem>>
    tcgen05.shift cta_group(1) %t : memref<128x64xf32, #tcgen05.space<tmem>>
    tcgen05.commit cta_group(1) %bar : memref<1xi64, #tcgen05.space<smem>>
    %ctas = arith.constant 1 : i16
    tcgen05.commit cta_group(1) %bar multicast(%ctas) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_arrive %bar expect_tx(0) : memref<1xi64, #tcgen05.space<smem>>
    %phase = arith.constant false
    tcgen05.mbarrier_wait %bar, %phase : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.fence_after_thread_sync
    %r = tcgen05.ld shape("16x64b") num(8) warp(2) lane(80) column(0) %t : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
    %s = tcgen05.ld shape("32x32b") num(16) warp(1) lane(32) column(16) %t : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x16xf32>
    %u = tcgen05.ld shape("16x32bx2") num(4) warp(3) lane(96) column(0) split(4) %t : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x4xf32>
    %v = tcgen05.ld shape("32x32b") num(2) warp(0) lane(0) column(0) pack %t : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x2xf32>
    tcgen05.wait_ld
    tcgen05.st shape("16x32bx2") num(4) warp(3) lane(112) column(8) split(4) %t, %u : memref<128x64xf32, #tcgen05.space<tmem>>, memref<32x4xf32>
    tcgen05.st shape("32x32b") num(2) warp(0) lane(0) column(8) unpack %t, %v : memref<128x64xf32, #tcgen05.space<tmem>>, memref<32x2xf32>
    tcgen05.st shape("16x64b") num(8) warp(2) lane(64) column(32) %t, %r : memref<128x64xf32, #tcgen05.space<tmem>>, memref<32x8xf32>
    tcgen05.wait_st
    "memref.copy"(%s, %out) : (memref<32x16xf32>, memref<32x16xf32>) -> ()
    tcgen05.fence_before_thread_sync
    tcgen05.relinquish_alloc_permit cta_group(1)
    tcgen05.dealloc cta_group(1) %t : memref<128x64xf32, #tcgen05.space<tmem>>
    tcgen05.mbarrier_inval %bar : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    func.return
  }
}
