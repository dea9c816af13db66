// RUN: mmair-opt %s --split-input-file --print-op-generic | mmair-opt --split-input-file | filecheck %s
// RUN: mmair-opt %s --split-input-file | filecheck %s

// Descriptor values, buffers and the plain kind::f16 MMA (A and B in shared memory).
func.func @dense_f16(%en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
  %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 17408, lbo = 16, sbo = 1024, swizzle = sw128>
  %a = tcgen05.smem_alloc offset(1024) : memref<128x64xf16, #tcgen05.space<smem>>
  %b = tcgen05.smem_alloc offset(17408) : memref<256x64xf16, #tcgen05.space<smem>>
  %d = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) %d, %a_desc, %b_desc, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  tcgen05.dealloc cta_group(1) %d : memref<128x256xf32, #tcgen05.space<tmem>>
  func.return
}

// CHECK-LABEL: func.func @dense_f16
// CHECK-NEXT:    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// CHECK-NEXT:    %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT:    %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 17408, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
// CHECK-NEXT:    %a = tcgen05.smem_alloc offset(1024) : memref<128x64xf16, #tcgen05.space<smem>>
// CHECK-NEXT:    %b = tcgen05.smem_alloc offset(17408) : memref<256x64xf16, #tcgen05.space<smem>>
// CHECK-NEXT:    %d = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) %d, %a_desc, %b_desc, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
// CHECK-NEXT:    tcgen05.dealloc cta_group(1) %d : memref<128x256xf32, #tcgen05.space<tmem>>

// -----

// Descriptors from arith.constant words (checked like the make_* forms), A in tensor memory,
// .ashift with a permitted collector, disable-output-lane and scale-input-d.
func.func @a_in_tmem(%en: i1, %lane_mask: i32) {
  %d = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>
  %a = tcgen05.alloc cta_group(1) columns(64) : memref<128x128xf16, #tcgen05.space<tmem>>
  %idesc = arith.constant 0x08400010 : i32
  %b_desc = arith.constant 0x4000404000010040 : i64
  tcgen05.mma kind(f16) cta_group(1) ashift collector(a, lastuse) %d, %a, %b_desc, %idesc, %en disable_output_lane(%lane_mask, %lane_mask, %lane_mask, %lane_mask) scale_input_d(3) : memref<128x256xf32, #tcgen05.space<tmem>>, memref<128x128xf16, #tcgen05.space<tmem>>
  func.return
}

// CHECK-LABEL: func.func @a_in_tmem
// CHECK:         tcgen05.mma kind(f16) cta_group(1) ashift collector(a, lastuse) %d, %a, %b_desc, %idesc, %en disable_output_lane(%lane_mask, %lane_mask, %lane_mask, %lane_mask) scale_input_d(3) : memref<128x256xf32, #tcgen05.space<tmem>>, memref<128x128xf16, #tcgen05.space<tmem>>

// -----

// tcgen05.mma.ws with a B collector buffer, a zero-column mask and a B-reuse max shift.
func.func @weight_stationary(%en: i1, %a_desc: i64, %b_desc: i64) {
  %d = tcgen05.alloc cta_group(1) columns(128) : memref<32x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 32, n = 64, max_shift = 32>
  %zcm = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>
  tcgen05.mma kind(f16) cta_group(1) ws collector(b1, fill) %d, %a_desc, %b_desc, %idesc, %en zero_column_mask(%zcm) : memref<32x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @weight_stationary
// CHECK:         %zcm = tcgen05.make_zcmask #tcgen05.zcmask<start = [0, 1, 2, 1], first = [1, 1, 0, 0], nonzero = true, skip = 2, use = 3, shift = 2>
// CHECK-NEXT:    tcgen05.mma kind(f16) cta_group(1) ws collector(b1, fill) %d, %a_desc, %b_desc, %idesc, %en zero_column_mask(%zcm) : memref<32x128xf32, #tcgen05.space<tmem>>, i64

// -----

// Sparse A with its metadata in tensor memory.
func.func @sparse(%en: i1, %a_desc: i64, %b_desc: i64) {
  %d = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
  %meta = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = bf16, btype = bf16, m = 128, n = 128, sparse = true, sparsity_selector = 2>
  tcgen05.mma kind(f16) cta_group(1) sparse %d, %a_desc, %b_desc, %idesc, %en metadata(%meta) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x32xi32, #tcgen05.space<tmem>>
  func.return
}

// CHECK-LABEL: func.func @sparse
// CHECK:         tcgen05.mma kind(f16) cta_group(1) sparse %d, %a_desc, %b_desc, %idesc, %en metadata(%meta) : memref<128x128xf32, #tcgen05.space<tmem>>, i64, memref<128x32xi32, #tcgen05.space<tmem>>

// -----

// Block scaling: block16 is normalised to 4X, block32 to 1X (mxf8f6f4) or 2X (mxf4*);
// mxf8f6f4 and mxf4 may leave the vector size implicit.
func.func @block_scaled(%en: i1, %a_desc: i64, %b_desc: i64, %runtime_idesc: i32) {
  %d = tcgen05.alloc cta_group(2) columns(128) : memref<256x128xf32, #tcgen05.space<tmem>>
  %sf = tcgen05.alloc cta_group(2) columns(32) : memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %nv = tcgen05.make_idesc #tcgen05.idesc<kind = mxf4nvf4, atype = e2m1, btype = e2m1, m = 256, n = 128, scale_type = ue4m3>
  tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(block16) %d, %a_desc, %b_desc, %nv, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(2x) %d, %a_desc, %b_desc, %runtime_idesc, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  %mx8 = tcgen05.make_idesc #tcgen05.idesc<kind = mxf8f6f4, atype = e4m3, btype = e4m3, m = 256, n = 128, scale_type = ue8m0>
  tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale(block32) %d, %a_desc, %b_desc, %mx8, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale %d, %a_desc, %b_desc, %mx8, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
  func.return
}

// CHECK-LABEL: func.func @block_scaled
// CHECK:         tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(block16) %d, %a_desc, %b_desc, %nv, %en scale(%sf, %sf) : memref<256x128xf32, #tcgen05.space<tmem>>, i64, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>, memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>
// CHECK-NEXT:    tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(2X) %d, %a_desc, %b_desc, %runtime_idesc, %en scale(%sf, %sf)
// CHECK:         tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale(block32) %d, %a_desc, %b_desc, %mx8, %en scale(%sf, %sf)
// CHECK-NEXT:    tcgen05.mma kind(mxf8f6f4) cta_group(2) block_scale %d, %a_desc, %b_desc, %mx8, %en scale(%sf, %sf)

// -----

// kind::i8 with saturation on an explicit arch-specific target.
builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @i8(%en: i1, %a_desc: i64, %b_desc: i64) {
    %d = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xi32, #tcgen05.space<tmem>>
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 256, saturate = true>
    tcgen05.mma kind(i8) cta_group(1) %d, %a_desc, %b_desc, %idesc, %en : memref<128x256xi32, #tcgen05.space<tmem>>, i64
    func.return
  }
}

// CHECK:       builtin.module attributes {tcgen05.target = "sm_100a"}
// CHECK:         %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = i8, dtype = s32, atype = s8, btype = u8, m = 128, n = 256, saturate = true>
// CHECK-NEXT:    tcgen05.mma kind(i8) cta_group(1) %d, %a_desc, %b_desc, %idesc, %en : memref<128x256xi32, #tcgen05.space<tmem>>, i64

// -----

// A CTA pair: the cluster rank, the cluster barrier, and a cta_group::2 MMA whose D is this
// CTA's 128-row share of the 256 x 128 tile.
func.func @pair(%en: i1, %a_desc: i64, %b_desc: i64) {
  %rank = tcgen05.cluster_rank : i32
  tcgen05.cluster_sync
  %d = tcgen05.alloc cta_group(2) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 256, n = 128>
  tcgen05.mma kind(f16) cta_group(2) %d, %a_desc, %b_desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64
  func.return
}

// CHECK-LABEL: func.func @pair
// CHECK:         %rank = tcgen05.cluster_rank : i32
// CHECK-NEXT:    tcgen05.cluster_sync
// CHECK:         tcgen05.mma kind(f16) cta_group(2) %d, %a_desc, %b_desc, %idesc, %en : memref<128x128xf32, #tcgen05.space<tmem>>, i64

// -----

// Kernel ops at the edges of their ranges: an mbarrier count and expect_tx of 2^20 - 1, an
// arrive without expect_tx, the barrier invalidated, a .32x32b load of warp 3 ending on the
// operand's last lane (127) and column (135), and .16x256b.x32, which uses all 128 registers of a
// thread.
func.func @edges(%bar: memref<1xi64, #tcgen05.space<smem>>, %t: memref<128x136xf32, #tcgen05.space<tmem>>, %w: memref<128x256xf32, #tcgen05.space<tmem>>) {
  tcgen05.mbarrier_init %bar count(1048575) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.mbarrier_arrive %bar : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.mbarrier_arrive %bar expect_tx(1048575) : memref<1xi64, #tcgen05.space<smem>>
  tcgen05.mbarrier_inval %bar : memref<1xi64, #tcgen05.space<smem>>
  %r = tcgen05.ld shape("32x32b") num(8) warp(3) lane(96) column(128) %t : memref<128x136xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
  %wide = tcgen05.ld shape("16x256b") num(32) warp(3) lane(112) column(0) %w : memref<128x256xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>
  func.return
}

// CHECK-LABEL: func.func @edges
// CHECK:         tcgen05.mbarrier_init %bar count(1048575) : memref<1xi64, #tcgen05.space<smem>>
// CHECK-NEXT:    tcgen05.mbarrier_arrive %bar : memref<1xi64, #tcgen05.space<smem>>
// CHECK-NEXT:    tcgen05.mbarrier_arrive %bar expect_tx(1048575) : memref<1xi64, #tcgen05.space<smem>>
// CHECK-NEXT:    tcgen05.mbarrier_inval %bar : memref<1xi64, #tcgen05.space<smem>>
// CHECK-NEXT:    %r = tcgen05.ld shape("32x32b") num(8) warp(3) lane(96) column(128) %t : memref<128x136xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
// CHECK-NEXT:    %wide = tcgen05.ld shape("16x256b") num(32) warp(3) lane(112) column(0) %w : memref<128x256xf32, #tcgen05.space<tmem>> -> memref<32x128xf32>

// -----

// An f16 D (one value in the low half of each TMEM cell) loaded .pack::16b: the registers as
// their 16-bit halves, 32 x (2 x 64), covering 128 columns; stored back .unpack::16b.
func.func @packed_f16(%t: memref<128x128xf16, #tcgen05.space<tmem>>) {
  %h = tcgen05.ld shape("32x32b") num(64) warp(0) lane(0) column(0) pack %t : memref<128x128xf16, #tcgen05.space<tmem>> -> memref<32x128xf16>
  tcgen05.st shape("32x32b") num(64) warp(1) lane(32) column(0) unpack %t, %h : memref<128x128xf16, #tcgen05.space<tmem>>, memref<32x128xf16>
  func.return
}

// CHECK-LABEL: func.func @packed_f16
// CHECK:         %h = tcgen05.ld shape("32x32b") num(64) warp(0) lane(0) column(0) pack %t : memref<128x128xf16, #tcgen05.space<tmem>> -> memref<32x128xf16>
// CHECK-NEXT:    tcgen05.st shape("32x32b") num(64) warp(1) lane(32) column(0) unpack %t, %h : memref<128x128xf16, #tcgen05.space<tmem>>, memref<32x128xf16>

// -----

// TMA: a tensor map (defaults left out when printing), cp.async.bulk.tensor to shared::cta and to
// shared::cluster with multicast and cta_group::2, elect.sync, fence.proxy.async.
func.func @tma(%a: memref<128x64xf16>, %x: i32, %mask: i16) {
  %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], element_strides = [1, 1], interleave = none, swizzle = sw128, oob_fill = nan> : memref<128x64xf16>
  %s = tcgen05.smem_alloc offset(0) : memref<128x64xf16, #tcgen05.space<smem>>
  %bar = tcgen05.smem_alloc offset(16384) : memref<1xi64, #tcgen05.space<smem>>
  %p = tcgen05.elect_sync : i1
  tcgen05.fence_proxy_async
  tcgen05.tma_load %s, %tm[%x, %x], %bar : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
  tcgen05.tma_load %s, %tm[%x, %x], %bar cluster multicast(%mask) cta_group(2) : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
  func.return
}
// CHECK:      %tm = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [64, 128], strides = [128], box = [64, 128], swizzle = sw128, oob_fill = nan> : memref<128x64xf16>
// CHECK:      %p = tcgen05.elect_sync : i1
// CHECK-NEXT: tcgen05.fence_proxy_async
// CHECK-NEXT: tcgen05.tma_load %s, %tm[%x, %x], %bar : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
// CHECK-NEXT: tcgen05.tma_load %s, %tm[%x, %x], %bar cluster multicast(%mask) cta_group(2) : memref<128x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
