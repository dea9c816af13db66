"""The shared executor core: one interpreter, one memory model, one concurrency engine.

* `interpreter`: `MmairInterpreter`, the scalar unit; its one dispatch loop counts ops, wraps
  faults and hands every pipe op to the issue seam.
* `memory`: the simulated memories (GM windows, L1, L0A/L0B/L0C, UB, BT, FB, SMEM, TMEM lanes).
* `events`, `hb`, `scheduler`, `seam`, `turns`, `timeline`, `coverage`: the event stream, the
  happens-before checker (races, unbalanced sets, event-id overflow), per-pipe in-order queues,
  the seam that issues pipe ops, deterministic turn-taking, cycle timing from `isa` costs, and
  GM coverage; the tcgen05 asynchronous unit feeds the same stream.
* `multicore`, `multicore_pool`: a launch of N blocks, in turns or on a process pool.
* `errors`, `tolerance`: execution faults; the tolerance of a reference value.

May import: `mmair.isa`, `mmair.dialects`, xDSL, numpy. Never the other executor packages, so
that `pto-insert-sync` (a pass) can use the same engine.
"""
