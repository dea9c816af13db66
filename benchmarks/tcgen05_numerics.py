"""tcgen05.mma exact mode (`numerics="exact"`) against the default mode: speed and agreement.

    python benchmarks/tcgen05_numerics.py [--reps N]

Speed: one `tcgen05.mma` per kind through the executor's kernel API (`tcgen05_kernels.mma`: SMEM
descriptors decoded, operands gathered, D read and written in TMEM), the same call in both modes,
timed side by side (median of alternating repetitions). The goal row is the 128x256x16 kind::f16
MMA: exact mode within 20x the default mode (issue 16).

Agreement: on random data (standard-normal inputs rounded to each type, random C, random UE8M0
scales 2^-3..2^3) the share of D elements whose bits are identical in both modes, and the largest
gap in units of the last place of D.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mmair.executor.tcgen05.elements import encode_scale  # noqa: E402
from mmair.executor.tcgen05.kernels import mma  # noqa: E402
from mmair.executor.tcgen05.memories import SharedMemory, TensorMemory  # noqa: E402
from mmair.executor.tcgen05.operands import (  # noqa: E402
    read_d,
    read_smem_operand,
    write_d,
    write_scale_factors,
    write_smem_operand,
)
from mmair.isa.tcgen05 import layouts  # noqa: E402
from mmair.isa.tcgen05.idesc import InstrDesc, encode_idesc  # noqa: E402
from mmair.isa.tcgen05.smem import SmemDesc, encode_smem_desc  # noqa: E402

M, N = 128, 256
#: (label, kind, atype, btype, dtype, K, scale type, scale_vec)
CASES = [
    ("tf32", "tf32", "tf32", "tf32", "f32", 8, None, None),
    ("f16 -> f32", "f16", "f16", "f16", "f32", 16, None, None),
    ("bf16 -> f32", "f16", "bf16", "bf16", "f32", 16, None, None),
    ("f16 -> f16", "f16", "f16", "f16", "f16", 16, None, None),
    ("f8f6f4 e4m3 x e5m2 -> f32", "f8f6f4", "e4m3", "e5m2", "f32", 32, None, None),
    ("f8f6f4 e2m3 x e2m1 -> f32", "f8f6f4", "e2m3", "e2m1", "f32", 32, None, None),
    ("mxf8f6f4 e4m3 x e3m2", "mxf8f6f4", "e4m3", "e3m2", None, 32, "ue8m0", None),
    ("mxf4 (block32, ue8m0)", "mxf4", "e2m1", "e2m1", None, 64, "ue8m0", None),
    ("mxf4nvf4 (block16, ue4m3)", "mxf4nvf4", "e2m1", "e2m1", None, 64, "ue4m3", "block16"),
]


class Mma:
    """One MMA with operands in SMEM (K-major, no swizzle) and D (and scales) in TMEM."""

    def __init__(self, case: tuple, rng: np.random.Generator) -> None:
        _, kind, atype, btype, dtype, k, scale_type, scale_vec = case
        self.kind, self.dtype, self.scale_vec = kind, dtype or "f32", scale_vec
        self.smem, self.tmem = SharedMemory(), TensorMemory()
        self.d = self.tmem.alloc(256)
        a = rng.standard_normal((M, k))
        b = rng.standard_normal((N, k))
        self.a_word = self._place(a, atype, 0)
        self.b_word = self._place(b, btype, 0x10000)
        self.c = rng.standard_normal((M, N))
        self.c_stored = self.c.astype(np.float16 if self.dtype == "f16" else np.float32)
        fields = dict(m=M, n=N, atype=atype, btype=btype, dtype=dtype)
        self.scale_a = self.scale_b = None
        sfa, sfb = np.ones((M, k)), np.ones((N, k))
        if scale_type is not None:
            block = 16 if scale_vec == "block16" else 32
            choices = 2.0 ** np.arange(-3, 4) if scale_type == "ue8m0" else np.array(
                [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3])
            sfa = rng.choice(choices, (M, k // block))
            sfb = rng.choice(choices, (N, k // block))
            self.scale_a, self.scale_b = self.tmem.alloc(32), self.tmem.alloc(32)
            write_scale_factors(self.tmem, self.scale_a, encode_scale(sfa, scale_type), 0)
            write_scale_factors(self.tmem, self.scale_b, encode_scale(sfb, scale_type), 0)
            sfa, sfb = np.repeat(sfa, block, axis=1), np.repeat(sfb, block, axis=1)
            fields["scale_type"] = scale_type
        self.values = (self._read(self.a_word, atype, M, k), self._read(self.b_word, btype, N, k),
                       sfa, sfb)
        self.idesc = encode_idesc(InstrDesc(kind=kind, **fields))

    def _place(self, values: np.ndarray, type_name: str, start: int) -> int:
        bits = layouts.smem_element_bits(self.kind, type_name)
        k_units = -(-values.shape[1] * bits // 128)
        desc = SmemDesc(start=start, lbo=128, sbo=128 * k_units, base_offset=0, swizzle="none")
        write_smem_operand(self.smem, desc, values, major="k", type_name=type_name, kind=self.kind)
        return encode_smem_desc(desc)

    def _read(self, word: int, type_name: str, rows: int, k: int) -> np.ndarray:
        return read_smem_operand(self.smem, word, major="k", type_name=type_name, kind=self.kind,
                                 mn=rows, k=k).astype(np.float64)

    def magnitude(self) -> np.ndarray:
        """Sum of the magnitudes of each D element's terms: |A| x |B| (scaled) + |C|."""
        a = np.abs(self.values[0]) * self.values[2]
        b = np.abs(self.values[1]) * self.values[3]
        return a @ b.T + np.abs(self.c_stored)

    def __call__(self, numerics: str) -> np.ndarray:
        write_d(self.tmem, self.d, self.dtype, self.c)
        mma(self.smem, self.tmem, kind=self.kind, d=self.d, a=self.a_word, b=self.b_word,
            idesc=self.idesc, enable_input_d=True, scale_a=self.scale_a, scale_b=self.scale_b,
            scale_vec=self.scale_vec, numerics=numerics)
        return read_d(self.tmem, self.d, self.dtype, M, N)


def agreement(case: tuple, seed: int = 0) -> tuple[float, int, float]:
    """On random data: (share of bit-identical D elements, largest gap in ulps of D, largest gap
    relative to the sum of the magnitudes of the terms, in units of D's unit roundoff u: 2**-24
    for f32, 2**-11 for f16)."""
    run = Mma(case, np.random.default_rng(seed))
    default, exact = run("default"), run("exact")
    view = (np.float16, np.int16) if run.dtype == "f16" else (np.float32, np.int32)
    sign_bit = 1 << (8 * np.dtype(view[1]).itemsize - 1)

    def ordered(x: np.ndarray) -> np.ndarray:  # ulps on the ordered-integer line
        bits = x.astype(view[0]).view(view[1]).astype(np.int64)
        return np.where(bits < 0, -(bits & ~sign_bit), bits)

    gap = np.abs(ordered(default) - ordered(exact))
    scale = run.magnitude()
    unit = 2.0**-11 if run.dtype == "f16" else 2.0**-24
    relative = float(np.max(np.abs(default.astype(np.float64) - exact) / scale)) / unit
    return float(np.mean(gap == 0)), int(gap.max()), relative


def _alternate(first, second, reps: int) -> tuple[list[float], list[float]]:
    """Wall times of `first` and `second`, run alternately (order flipped every repetition)."""
    import gc
    import time

    first(), second()
    times: tuple[list[float], list[float]] = ([], [])
    for i in range(reps):
        order = ((first, times[0]), (second, times[1]))
        for fn, out in order if i % 2 == 0 else order[::-1]:
            gc.collect()
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return times


def bench_exact(reps: int) -> list:
    """Rows for benchmarks/run.py: exact vs default mode per kind (the f16 row carries the goal).
    The ratio is of medians (as every row); the note adds the ratio of the fastest runs, which
    machine load disturbs least."""
    from common import Row

    rows = []
    for case in CASES:
        run = Mma(case, np.random.default_rng(0))
        t_exact, t_default = _alternate(lambda r=run: r("exact"), lambda r=run: r("default"), reps)
        label, k = case[0], case[5]
        same, gap, relative = agreement(case)
        goal = 20.0 if label == "f16 -> f32" else None
        rows.append(Row("P2x", f"tcgen05.mma {label} M={M} N={N} K={k}: exact vs default mode",
                        f"{2 * M * N * k / 1e6:.1f} MFLOP", float(np.median(t_exact)),
                        float(np.median(t_default)), goal,
                        note=f"fastest runs {min(t_exact) / min(t_default):.1f}x; default = exact "
                             f"on {same:.1%} of D, max gap {gap} ulp = {relative:.2f} u x the "
                             "terms' magnitude"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    from common import fmt_time

    print("| kind | exact | default | exact / default (medians) | notes |")
    print("|---|---|---|---|---|")
    for row, case in zip(bench_exact(args.reps), CASES, strict=True):
        print(f"| {case[0]} | {fmt_time(row.mmair_s)} | {fmt_time(row.base_s)} | "
              f"{row.ratio:.1f}x | {row.note} |")


if __name__ == "__main__":
    main()
