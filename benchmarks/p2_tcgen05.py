"""P2: a K loop of `tcgen05.mma` kind::f16 (M = 128, N = 256, K = 4096) on the tcgen05 executor.

The loop is the one a Blackwell GEMM mainloop runs for one 128 x 256 output tile: for every K block
of 64 elements (one 128-byte swizzle atom of f16), A[128, 64] and B^T[256, 64] are stored K-major
with the 128B swizzle (what a TMA load with SWIZZLE_128B leaves in shared memory; here
`write_smem_operand` through the same descriptor), then four `tcgen05.mma` of K = 16 read them through
SMEM descriptors whose start advances by 32 bytes inside the atom, accumulating into one TMEM D
(`enable_input_d` false for the very first MMA). 64 blocks x 4 = 256 MMAs.

The executor's kernel API is driven directly (`executor.tcgen05_kernels`): the IR path would add
one interpreted op per MMA (a few µs) but has no TMA op to fill shared memory with swizzled data.
The baseline is numpy's float32 matmul of the same matrices (already converted to f32).
"""

from __future__ import annotations

import numpy as np

from mmair.executor.tcgen05.kernels import mma
from mmair.executor.tcgen05.memories import SharedMemory, TensorMemory
from mmair.executor.tcgen05.operands import read_d, write_smem_operand
from mmair.isa.tcgen05.idesc import InstrDesc, encode_idesc
from mmair.isa.tcgen05.smem import SmemDesc, encode_smem_desc

M, N, K = 128, 256, 4096
K_BLOCK = 64  # f16 elements in one 128-byte swizzle row
K_MMA = 16  # K of one kind::f16 MMA
A_START, B_START = 0, 0x8000  # 1024-byte aligned (the SW128 pattern repeats every 1024 bytes)


def _desc(start: int) -> SmemDesc:
    # K-major, 128B swizzle: 8-row groups of 128-byte rows are 1024 bytes apart (SBO); LBO is
    # unused for a K extent inside one swizzle row (16 by convention).
    return SmemDesc(start=start, lbo=16, sbo=1024, base_offset=0, swizzle="sw128")


def run_loop(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """D = A @ B (f16 inputs, f32 accumulation) computed by 256 tcgen05.mma instructions."""
    smem, tmem = SharedMemory(), TensorMemory()
    d = tmem.alloc(N)
    idesc = encode_idesc(InstrDesc(kind="f16", m=M, n=N, atype="f16", btype="f16", dtype="f32"))
    a_block, b_block = _desc(A_START), _desc(B_START)
    # Descriptor words of the four K = 16 steps inside a block: start + 32 bytes per step.
    steps = [(encode_smem_desc(_desc(A_START + 32 * s)), encode_smem_desc(_desc(B_START + 32 * s)))
             for s in range(K_BLOCK // K_MMA)]
    bt = b.T  # B is read as N x K (K-major)
    first = True
    for k0 in range(0, K, K_BLOCK):
        write_smem_operand(smem, a_block, a[:, k0:k0 + K_BLOCK], major="k", type_name="f16", kind="f16")
        write_smem_operand(smem, b_block, bt[:, k0:k0 + K_BLOCK], major="k", type_name="f16", kind="f16")
        for a_word, b_word in steps:
            mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc,
                enable_input_d=not first)
            first = False
    return read_d(tmem, d, "f32", M, N)


def mma_floor(a32: np.ndarray, b32: np.ndarray) -> np.ndarray:
    """The loop's arithmetic without any simulation: the same 256 MMAs as plain numpy products
    (D += A[:, k:k+16] @ B[k:k+16, :] in f32, one product and one f32 sum per MMA, as the
    executor's default mode rounds), on f32 copies of the operands."""
    d = np.zeros((M, N), np.float32)
    for k0 in range(0, K, K_MMA):
        d += a32[:, k0:k0 + K_MMA] @ b32[k0:k0 + K_MMA, :]
    return d


def run_p2(reps: int) -> list:
    from common import Row, side_by_side  # the harness shared with benchmarks/run.py

    from mmair.executor.engine.blas import one_blas_thread

    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K), dtype=np.float32).astype(np.float16)
    b = rng.standard_normal((K, N), dtype=np.float32).astype(np.float16)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    out = run_loop(a, b)
    ref = a32.astype(np.float64) @ b32.astype(np.float64)
    err = float(np.max(np.abs(out - ref)) / np.max(np.abs(ref)))
    if err > 1e-5:
        raise SystemExit(f"P2: the tcgen05 loop is off by {err:.2e} (relative)")
    t_m, t_b = side_by_side(lambda: run_loop(a, b), lambda: a32 @ b32, reps)
    flops = 2 * M * N * K
    rows = [Row("P2", f"tcgen05.mma kind::f16 loop, M={M} N={N} K={K}, SW128 SMEM descriptors",
                f"{flops / 1e9:.2f} GFLOP", t_m, t_b, None,
                rate=f"{flops / t_m / 1e9:.1f} GFLOP/s",
                note=f"{K // K_MMA} mmas + {K // K_BLOCK} x 2 swizzled SMEM stores; "
                     f"max rel err {err:.1e}; against numpy (the goal is the floor row)")]

    # The floor (issue 30): the executor against the same MMAs as plain numpy products, both
    # with one BLAS thread (the benchmark calls the kernel API directly, outside run_module's
    # one-thread limit, so both sides get it here).
    def executor() -> None:
        with one_blas_thread():
            run_loop(a, b)

    def floor() -> None:
        with one_blas_thread():
            mma_floor(a32, b32)

    t_e, t_f = side_by_side(executor, floor, reps)
    rows.append(Row("P2", f"tcgen05.mma loop vs its floor: the same {K // K_MMA} MMAs as plain "
                          "numpy products (one BLAS thread each)",
                    f"{flops / 1e9:.2f} GFLOP", t_e, t_f, 3.0,
                    rate=f"{flops / t_e / 1e9:.1f} GFLOP/s",
                    note="floor: D += A[:, k:k+16] @ B[k:k+16, :] in f32 per MMA"))
    return rows
