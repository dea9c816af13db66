// RUN: mmair-run %s --check-numpy --stats --seed 7 --inputs int | filecheck %s

// A 30x70 @ 70x48 f16 matmul through GM -> L1 -> L0A/L0B -> mad -> fixpipe, compared with numpy
// (with its set_flag / wait_flag: mmair-run checks the pipe synchronization by default).

// CHECK:      check c = numpy reference of the IR: max abs error 0, max rel error 0; pass if {{.*}}: ok
// CHECK-NEXT: target: a2
// CHECK-NEXT: peak bytes:
// CHECK-NEXT:   l0a: 5120 / 65536
// CHECK-NEXT:   l0b: 7680 / 65536
// CHECK-NEXT:   l0c: 6144 / 131072
// CHECK-NEXT:   l1: 12800 / 524288
// CHECK-NEXT: op counts:
// CHECK:        pto.fixpipe: 1
// CHECK-NEXT:   pto.mad: 1
// CHECK-NEXT:   pto.mte_gm_l1: 2

builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<30x70xf16>, %b: memref<70x48xf16>, %c: memref<30x48xf32>) attributes {mmair.reference = "matmul"} {
    %m = arith.constant 30 : index
    %k = arith.constant 70 : index
    %n = arith.constant 48 : index
    %a1 = pto.alloc : !pto.tile<l1, 30x70xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 70x48xf16, zz>
    %a0 = pto.alloc : !pto.tile<l0a, 30x70xf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 70x48xf16, zn>
    %c0 = pto.alloc : !pto.tile<l0c, 30x48xf32, nz>
    pto.mte_gm_l1 %a, %a1, %m, %k : memref<30x70xf16>, !pto.tile<l1, 30x70xf16, nz>
    pto.mte_gm_l1 %b, %b1, %k, %n : memref<70x48xf16>, !pto.tile<l1, 70x48xf16, zz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %a1, %a0, %m, %k : !pto.tile<l1, 30x70xf16, nz>, !pto.tile<l0a, 30x70xf16, zz>
    pto.mte_l1_l0b %b1, %b0, %k, %n : !pto.tile<l1, 70x48xf16, zz>, !pto.tile<l0b, 70x48xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %a0, %b0, %c0, %m, %n, %k : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x48xf16, zn>, !pto.tile<l0c, 30x48xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe %c0, %c, %m, %n : !pto.tile<l0c, 30x48xf32, nz>, memref<30x48xf32>
    func.return
  }
}
