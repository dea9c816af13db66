// RUN: mmair-opt %s -p 'pto-tile-matmul{tile-k=32 multi-buffer=2 tiling=rule},pto-assign-addresses' | filecheck %s
// Double buffering: the tiles reloaded in the k loop (L0A, L0B) get two slots at distinct
// offsets (kept live together through `pto.multi_buffer`), the loop is unrolled by two with
// slot 0 then slot 1; 5 k tiles take 3 rounds, so slot 1 is guarded off in the last one. The A panel and
// all of B are loaded once into L1 (single slots), L0C holds the only C tile (single slot).
builtin.module attributes {pto.target = "a2"} {
  func.func @kloop(%a: memref<32x160xf16>, %b: memref<160x32xf16>, %c: memref<32x32xf32>) {
    pto.matmul %a, %b, %c : memref<32x160xf16>, memref<160x32xf16>, memref<32x32xf32>
    func.return
  }
}
// CHECK-LABEL: func.func @kloop
// CHECK:         %a_l1 = pto.alloc {offset = 10240 : i64} : !pto.tile<l1, 32x160xf16, nz>
// CHECK-NEXT:    %b_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 160x32xf16, zz>
// CHECK-NEXT:    %a_l0a_s0 = pto.alloc {pto.multi_buffer = 1 : i64, offset = 0 : i64} : !pto.tile<l0a, 32x32xf16, zz>
// CHECK-NEXT:    %a_l0a_s1 = pto.alloc {pto.multi_buffer = 1 : i64, offset = 2048 : i64} : !pto.tile<l0a, 32x32xf16, zz>
// CHECK-NEXT:    %b_l0b_s0 = pto.alloc {pto.multi_buffer = 2 : i64, offset = 0 : i64} : !pto.tile<l0b, 32x32xf16, zn>
// CHECK-NEXT:    %b_l0b_s1 = pto.alloc {pto.multi_buffer = 2 : i64, offset = 2048 : i64} : !pto.tile<l0b, 32x32xf16, zn>
// CHECK-NEXT:    %c_l0c = pto.alloc {offset = 0 : i64} : !pto.tile<l0c, 32x32xf32, nz>
// CHECK:         scf.for %k = %c0 to %c192 step %c64 {
// CHECK-NEXT:      pto.mte_l1_l0a %a_l1[%c0, %k], %a_l0a_s0, %c32, %c32 :
// CHECK-NEXT:      pto.mte_l1_l0b %b_l1[%k, %c0], %b_l0b_s0, %c32, %c32 :
// CHECK-NEXT:      %first = arith.cmpi eq, %k, %c0 : index
// CHECK-NEXT:      scf.if %first {
// CHECK-NEXT:        pto.mad %a_l0a_s0, %b_l0b_s0, %c_l0c, %c32, %c32, %c32 :
// CHECK-NEXT:      } else {
// CHECK-NEXT:        pto.mad_acc %a_l0a_s0, %b_l0b_s0, %c_l0c, %c32, %c32, %c32 :
// CHECK-NEXT:      }
// CHECK-NEXT:      %k1 = arith.addi %k, %c32 : index
// CHECK-NEXT:      %k1_in = arith.cmpi slt, %k1, %c160 : index
// CHECK-NEXT:      scf.if %k1_in {
// CHECK-NEXT:        pto.mte_l1_l0a %a_l1[%c0, %k1], %a_l0a_s1, %c32, %c32 :
// CHECK-NEXT:        pto.mte_l1_l0b %b_l1[%k1, %c0], %b_l0b_s1, %c32, %c32 :
// CHECK-NEXT:        %first_1 = arith.cmpi eq, %k1, %c0 : index
// CHECK-NEXT:        scf.if %first_1 {
// CHECK-NEXT:          pto.mad %a_l0a_s1, %b_l0b_s1, %c_l0c, %c32, %c32, %c32 :
// CHECK-NEXT:        } else {
// CHECK-NEXT:          pto.mad_acc %a_l0a_s1, %b_l0b_s1, %c_l0c, %c32, %c32, %c32 :
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    pto.fixpipe %c_l0c, %c, %c32, %c32 :
// CHECK-NEXT:    func.return
