"""Executor: runs pto and tcgen05 IR on simulated memories.

Four packages, mirroring `mmair.isa`, and two composition modules on top of them:

* `engine/`: what every path shares: the scalar-unit interpreter and its one dispatch seam
  (`interpreter`), the simulated memories (`memory`), the concurrency engine (`events`,
  happens-before `hb`, `scheduler`, the pipe issue seam `seam`, `turns`, `timeline`, `coverage`,
  multi-core `multicore` and its process pool `multicore_pool`), faults (`errors`) and the
  tolerance of a reference value (`tolerance`).
* `ascend/`: the Ascend cube and vector path: pto interpreter functions (`functions`), whole-tile
  kernels (`kernels`), the raw Ascend C parameter forms (`raw_kernels`) and the numpy reference
  (`logical_tile`, `reference`).
* `tcgen05/`: the Blackwell tensor core: interpreter functions (`functions`), memories, operands,
  element codecs, the MMA and TMEM-move kernels, the exact fused dot product (`exact`), the
  asynchronous checker (`async_checker`), the CTA pair (`cta_pair`) and the numpy reference.
* `upstream/`: interpreter functions of the upstream dialects (arith, scf, memref, func).
* `runner` (`run_module`) and `reference` (`reference_outputs`, the `--check-numpy` reference):
  the composition roots, the only modules that assemble all four packages.

Imports go downward only: `engine` <- `upstream` <- `ascend` / `tcgen05` <- `runner` /
`reference` (tests/unit/project/test_layering.py).
"""
