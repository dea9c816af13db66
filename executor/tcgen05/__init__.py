"""The Blackwell tcgen05 path of the executor: one CTA (or a CTA pair) with SMEM and TMEM.

* `functions`: `Tcgen05Functions`, the xDSL interpreter functions of `tcgen05`.
* `memories`, `elements`, `operands`: SMEM and TMEM, element and scale codecs, operands read
  through the matrix descriptors.
* `kernels`: `mma` (every kind), `mma_pair`, `cp`, `shift` and their footprints.
* `exact`: the tensor core's fused dot product (`numerics="exact"`).
* `async_checker`: the asynchronous checker (MMA, commit, mbarrier) on the shared engine.
* `cta_pair`: `cta_group::2` on two CTAs in turns.
* `reference`: the `--check-numpy` reference of `tcgen05.mma`.

May import: `mmair.isa`, `mmair.dialects`, `mmair.executor.engine`, `mmair.executor.upstream`.
"""
