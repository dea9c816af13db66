// A kind::f16 MMA with A and B in shared memory, D in tensor memory, then dealloc.
func.func @dense_f16(%a_gm: memref<128x64xf16>, %b_gm: memref<256x64xf16>, %en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative, swizzle = sw128>
  %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 17408, lbo = 16, sbo = 1024, swizzle = sw128>
  %a = tcgen05.smem_alloc offset(1024) : memref<128x64xf16, #tcgen05.space<smem>>
  %b = tcgen05.smem_alloc offset(17408) : memref<256x64xf16, #tcgen05.space<smem>>
  "memref.copy"(%a_gm, %a) : (memref<128x64xf16>, memref<128x64xf16, #tcgen05.space<smem>>) -> ()
  "memref.copy"(%b_gm, %b) : (memref<256x64xf16>, memref<256x64xf16, #tcgen05.space<smem>>) -> ()
  %d = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>
  tcgen05.mma kind(f16) cta_group(1) %d, %a_desc, %b_desc, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  tcgen05.dealloc cta_group(1) %d : memref<128x256xf32, #tcgen05.space<tmem>>
  func.return
}
