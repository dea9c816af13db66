// RUN: mmair-opt %s --split-input-file | filecheck %s
// RUN: MMAIR_ROUNDTRIP
// pto.set_flag / pto.wait_flag (static event id or an index value) and pto.pipe_barrier.
func.func @flags(%ev: index) {
  pto.set_flag mte2 -> mte1, 0
  // CHECK: pto.set_flag mte2 -> mte1, 0
  pto.wait_flag mte2 -> mte1, 0
  // CHECK-NEXT: pto.wait_flag mte2 -> mte1, 0
  pto.set_flag m -> fix, %ev
  // CHECK-NEXT: pto.set_flag m -> fix, %ev
  pto.wait_flag m -> fix, %ev
  // CHECK-NEXT: pto.wait_flag m -> fix, %ev
  pto.set_flag v -> s, 7 {note = "last id"}
  // CHECK-NEXT: pto.set_flag v -> s, 7 {note = "last id"}
  pto.wait_flag v -> s, 7
  // CHECK-NEXT: pto.wait_flag v -> s, 7
  pto.set_flag v -> v, 1
  // CHECK-NEXT: pto.set_flag v -> v, 1
  pto.wait_flag v -> v, 1
  // CHECK-NEXT: pto.wait_flag v -> v, 1
  func.return
}

// -----
// Every pipe but S in a barrier, and `all`.
func.func @barriers() {
  pto.pipe_barrier v
  // CHECK: pto.pipe_barrier v
  pto.pipe_barrier m
  // CHECK-NEXT: pto.pipe_barrier m
  pto.pipe_barrier mte1
  // CHECK-NEXT: pto.pipe_barrier mte1
  pto.pipe_barrier mte2
  // CHECK-NEXT: pto.pipe_barrier mte2
  pto.pipe_barrier mte3
  // CHECK-NEXT: pto.pipe_barrier mte3
  pto.pipe_barrier fix
  // CHECK-NEXT: pto.pipe_barrier fix
  pto.pipe_barrier all
  // CHECK-NEXT: pto.pipe_barrier all
  func.return
}

// -----
// 910 (Atlas training series): event ids 0-3, no FIX pipe.
builtin.module attributes {pto.target = "910"} {
  func.func @k() {
    pto.set_flag mte1 -> m, 3
    // CHECK: pto.set_flag mte1 -> m, 3
    pto.wait_flag mte1 -> m, 3
    // CHECK-NEXT: pto.wait_flag mte1 -> m, 3
    func.return
  }
}

// -----
// A flag pair that no other op of the kernel uses verifies without a diagnostic.
func.func @unused_pair() {
  pto.set_flag mte3 -> mte1, 2
  // CHECK: pto.set_flag mte3 -> mte1, 2
  pto.wait_flag mte3 -> mte1, 2
  // CHECK-NEXT: pto.wait_flag mte3 -> mte1, 2
  func.return
}
