// Every TMA form tcgen05-to-ptx prints, for ptxas (tests/unit/passes/test_tcgen05_to_ptx.py):
// cp.async.bulk.tensor 1d..5d to shared::cta, to shared::cluster with .multicast::cluster and
// .cta_group::2 (a CTA-pair kernel), elect.sync, fence.proxy.async; the tensors are
// `.param .align 64 .b8 [128]` tensor maps, and %v, also used as a pointer, a .u64 parameter too.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @tma(%v: memref<256xf16>, %m: memref<64x64xf16>, %t3: memref<4x4x8xf16>, %t4: memref<2x2x2x8xf16>, %t5: memref<2x2x2x2x8xf16>, %out: memref<8xf16>) {
    %tv = tcgen05.make_tensor_map %v, #tcgen05.tensor_map<dtype = f16, dims = [256], strides = [], box = [64]> : memref<256xf16>
    %tm = tcgen05.make_tensor_map %m, #tcgen05.tensor_map<dtype = f16, dims = [64, 64], strides = [128], box = [64, 32], swizzle = sw128, oob_fill = nan> : memref<64x64xf16>
    %tm3 = tcgen05.make_tensor_map %t3, #tcgen05.tensor_map<dtype = f16, dims = [8, 4, 4], strides = [16, 64], box = [8, 4, 4]> : memref<4x4x8xf16>
    %tm4 = tcgen05.make_tensor_map %t4, #tcgen05.tensor_map<dtype = f16, dims = [8, 2, 2, 2], strides = [16, 32, 64], box = [8, 2, 2, 2]> : memref<2x2x2x8xf16>
    %tm5 = tcgen05.make_tensor_map %t5, #tcgen05.tensor_map<dtype = f16, dims = [8, 2, 2, 2, 2], strides = [16, 32, 64, 128], box = [8, 2, 2, 2, 2], element_strides = [1, 1, 1, 1, 2]> : memref<2x2x2x2x8xf16>
    %bar = tcgen05.smem_alloc offset(0) : memref<1xi64, #tcgen05.space<smem>>
    %s1 = tcgen05.smem_alloc offset(1024) : memref<64xf16, #tcgen05.space<smem>>
    %s2 = tcgen05.smem_alloc offset(2048) : memref<32x64xf16, #tcgen05.space<smem>>
    %s3 = tcgen05.smem_alloc offset(8192) : memref<4x4x8xf16, #tcgen05.space<smem>>
    %s4 = tcgen05.smem_alloc offset(8448) : memref<2x2x2x8xf16, #tcgen05.space<smem>>
    %s5 = tcgen05.smem_alloc offset(8704) : memref<1x2x2x2x8xf16, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.fence_proxy_async
    %x = arith.constant 0 : i32
    %mask = arith.constant 3 : i16
    %p = tcgen05.elect_sync : i1
    scf.if %p {
      tcgen05.mbarrier_arrive %bar expect_tx(4736) : memref<1xi64, #tcgen05.space<smem>>
      tcgen05.tma_load %s1, %tv[%x], %bar : memref<64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
      tcgen05.tma_load %s2, %tm[%x, %x], %bar cluster multicast(%mask) cta_group(2) : memref<32x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
      tcgen05.tma_load %s3, %tm3[%x, %x, %x], %bar : memref<4x4x8xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
      tcgen05.tma_load %s4, %tm4[%x, %x, %x, %x], %bar cluster : memref<2x2x2x8xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
      tcgen05.tma_load %s5, %tm5[%x, %x, %x, %x, %x], %bar cta_group(2) : memref<1x2x2x2x8xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
    }
    %phase = arith.constant false
    tcgen05.mbarrier_wait %bar, %phase : memref<1xi64, #tcgen05.space<smem>>
    %head = "memref.subview"(%v) <{static_offsets = array<i64: 0>, static_sizes = array<i64: 8>, static_strides = array<i64: 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<256xf16>) -> memref<8xf16, strided<[1]>>
    "memref.copy"(%head, %out) : (memref<8xf16, strided<[1]>>, memref<8xf16>) -> ()
    func.return
  }
}
