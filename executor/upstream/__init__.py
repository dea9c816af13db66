"""Interpreter functions of the upstream dialects the kernels use: `arith`, `scf`, `memref`
(GM buffers, subviews, scalar loads and stores) and `func` (calls and returns).

May import: `mmair.isa`, `mmair.dialects`, `mmair.executor.engine`.
"""
