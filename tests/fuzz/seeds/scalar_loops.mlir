// Scalar code: loops with carried values, while, loads and stores, integer arithmetic, GM temporaries.
builtin.module {
  func.func @scalar(%x: memref<16x8xi32>, %y: memref<16xi32>, %n: index, %s: i32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0 : i32
    %t = memref.alloc(%n) : memref<?xi32>
    %d = memref.dim %t, %c0 : memref<?xi32>
    %sum = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %z) -> (i32) {
      %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%r = %z) -> (i32) {
        %v = memref.load %x[%i, %j] : memref<16x8xi32>
        %m = arith.muli %v, %s : i32
        %q = arith.divsi %m, %s : i32
        %w = arith.remsi %v, %s : i32
        %sh = arith.shli %q, %w : i32
        %r2 = arith.addi %r, %sh : i32
        scf.yield %r2 : i32
      }
      memref.store %row, %y[%i] : memref<16xi32>
      %ii = arith.index_cast %i : index to i32
      %acc2 = arith.addi %acc, %ii : i32
      scf.yield %acc2 : i32
    }
    %w0 = scf.while (%k = %c0) : (index) -> index {
      %go = arith.cmpi slt, %k, %d : index
      scf.condition(%go) %k : index
    } do {
    ^bb0(%k2: index):
      %kk = arith.addi %k2, %c1 : index
      %kv = arith.index_cast %kk : index to i32
      memref.store %kv, %t[%k2] : memref<?xi32>
      scf.yield %kk : index
    }
    %grow = scf.for %g = %c0 to %n step %c1 iter_args(%v = %c8) -> (index) {
      %v2 = arith.addi %v, %v : index
      scf.yield %v2 : index
    }
    %big = arith.cmpi sgt, %sum, %s : i32
    %res = arith.select %big, %sum, %s : i32
    memref.dealloc %t : memref<?xi32>
    func.return %res : i32
  }
}
