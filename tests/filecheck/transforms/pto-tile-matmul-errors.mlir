// RUN: not mmair-opt %s -p 'pto-tile-matmul{tile-k=1024}' 2>&1 | filecheck %s --check-prefix=L0A
// RUN: not mmair-opt %s -p 'pto-tile-matmul{tile-m=256 tile-n=256}' 2>&1 | filecheck %s --check-prefix=L0C
// RUN: not mmair-opt %s -p 'pto-tile-matmul{tile-m=100}' 2>&1 | filecheck %s --check-prefix=MULTIPLE
// RUN: not mmair-opt %s -p 'pto-tile-matmul{target=a5}' 2>&1 | filecheck %s --check-prefix=TARGET
// Given tiles that cannot fit are errors naming the buffer, the bytes it needs and the capacity.

builtin.module attributes {pto.target = "a2"} {
  func.func @mm(%a: memref<300x2000xf32>, %b: memref<2000x300xf32>, %c: memref<300x300xf32>) {
    pto.matmul %a, %b, %c : memref<300x2000xf32>, memref<2000x300xf32>, memref<300x300xf32>
    func.return
  }
}

// A 128 x 1024 f32 tile is 512 KB; L0A holds 64 KB.
// L0A: pto-tile-matmul-errors.mlir:9:5: error: 'pto.matmul' op tiles tile-m = 128, tile-n = 128, tile-k = 1024 do not fit l0a: the A tile 128x1024xf32 (zz) needs 524288 bytes, l0a capacity 65536 bytes on target a2
// L0A-NEXT: pto.matmul %a, %b, %c

// A 256 x 256 f32 accumulator is 256 KB; L0C holds 128 KB on a2 (whatever tile-k).
// L0C: error: 'pto.matmul' op tiles tile-m = 256, tile-n = 256, tile-k = 16 do not fit l0c: the C tile 256x256xf32 (nz) needs 262144 bytes, l0c capacity 131072 bytes on target a2

// MULTIPLE: error: 'pto.matmul' op requires tile-m to be 0 (automatic) or a multiple of 16 in [16, 4080] for (f32, f32) on target a2, got 100

// TARGET: error: pto-tile-matmul: target=a5 differs from the module's pto.target = "a2"
