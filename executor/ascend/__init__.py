"""The Ascend path of the executor: pto ops on the simulated cube and vector units.

* `functions`: `PtoFunctions` / `PtoParamsFunctions`, the xDSL interpreter functions of `pto`.
* `kernels`: whole-tile numpy kernels (GM <-> L1 <-> L0A/L0B, mad, fixpipe, vector, GatherMask).
* `raw_kernels`: the raw Ascend C parameter forms (Nd2NzParams, LoadData2DParams, Mmad, ...).
* `logical_tile`, `reference`: the `--check-numpy` reference of pto ops on logical matrices.

May import: `mmair.isa`, `mmair.dialects`, `mmair.executor.engine`, `mmair.executor.upstream`.
"""
