"""tcgen05.mma exact mode against MMA-Sim 2.1.1, run side by side on data with many zeros.

    pip install mmasim==2.1.1 torch        # not a dependency of mmair: an outside check
    python benchmarks/tcgen05_mmasim.py [--zeros 0.5] [--seed 0] [--m 64] [--n 64]

For each of 17 kinds (dense kind::tf32 / f16 / f8f6f4, block-scaled mxf8f6f4 / mxf4 / mxf4nvf4,
with f32 and f16 D) the same random operands, C and scales go to MMA-Sim's `TCGen05MMA` /
`TCGen05MMABlockScale` (arch "Blackwell") and to mmair's exact mode (`fused_mma`, the arithmetic
`tcgen05_kernels.mma` calls with `numerics="exact"`). Inputs are random codes of each format with
about `--zeros` of A, B and C set to +-0 and some whole fp4 groups zero (where the zero-exponent
rules decide), and random scales (UE8M0 code 0 included). The table gives, per kind, the share of D
elements whose bits agree. MMA-Sim itself is not vendored or imported by mmair.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mmair.executor.tcgen05.elements import decode_ue4m3, decode_ue8m0  # noqa: E402
from mmair.executor.tcgen05.exact import fused_mma  # noqa: E402

#: (kind, atype, btype, D type, K, scale type, block): 17 kinds of MMA-Sim's Blackwell tables.
KINDS = [
    ("tf32", "tf32", "tf32", "f32", 8, None, None),
    ("f16", "f16", "f16", "f32", 16, None, None),
    ("f16", "bf16", "bf16", "f32", 16, None, None),
    ("f16", "f16", "f16", "f16", 16, None, None),
    ("f8f6f4", "e4m3", "e4m3", "f32", 32, None, None),
    ("f8f6f4", "e5m2", "e5m2", "f32", 32, None, None),
    ("f8f6f4", "e3m2", "e2m3", "f32", 32, None, None),
    ("f8f6f4", "e2m1", "e2m1", "f32", 32, None, None),
    ("f8f6f4", "e4m3", "e2m1", "f16", 32, None, None),
    ("f8f6f4", "e5m2", "e3m2", "f16", 32, None, None),
    ("mxf8f6f4", "e4m3", "e4m3", "f32", 32, "ue8m0", 32),
    ("mxf8f6f4", "e5m2", "e2m1", "f32", 32, "ue8m0", 32),
    ("mxf8f6f4", "e2m3", "e3m2", "f32", 32, "ue8m0", 32),
    ("mxf4", "e2m1", "e2m1", "f32", 64, "ue8m0", 32),
    ("mxf4nvf4", "e2m1", "e2m1", "f32", 64, "ue8m0", 32),
    ("mxf4nvf4", "e2m1", "e2m1", "f32", 64, "ue8m0", 16),
    ("mxf4nvf4", "e2m1", "e2m1", "f32", 64, "ue4m3", 16),
]

_ML = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
       "e5m2": ml_dtypes.float8_e5m2, "e3m2": ml_dtypes.float6_e3m2fn,
       "e2m3": ml_dtypes.float6_e2m3fn, "e2m1": ml_dtypes.float4_e2m1fn}


def random_values(rng: np.random.Generator, fmt: str, shape: tuple[int, int], zeros: float,
                  ) -> np.ndarray:
    """Random finite codes of `fmt` as float32 values, about `zeros` of them +-0."""
    if fmt == "tf32":
        bits = rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32) & ~np.uint32(0x1FFF)
        values = bits.view(np.float32).astype(np.float64)
        exponent_field = (bits >> 23) & 0xFF
        values = np.where((exponent_field > 87) & (exponent_field < 167), values, 1.0)  # |x| < 2^40
    else:
        dtype = _ML[fmt]
        width = 8 * np.dtype(dtype).itemsize
        raw = rng.integers(0, 2**width, shape, dtype=np.uint64)
        if width == 8 and fmt in ("e3m2", "e2m3", "e2m1"):
            raw &= 0x3F if fmt != "e2m1" else 0x0F
        codes = raw.astype(np.uint16 if width == 16 else np.uint8)
        values = codes.view(dtype).astype(np.float64)
        if fmt == "bf16":
            values = np.where(np.abs(values) < 2.0**40, values, 1.0)
    values = np.where(np.isfinite(values), values, 1.0)
    zero = rng.random(shape) < zeros
    return np.where(zero, np.where(rng.random(shape) < 0.5, 0.0, -0.0), values).astype(np.float32)


def mmasim_d(kind, atype, btype, dtype, k, scale_type, block, a, b, c, sa, sb, sa_codes, sb_codes):
    import torch
    from mmasim.nv_ptx import TCGen05MMA, TCGen05MMABlockScale

    m, n = c.shape
    torch_type = {"f32": torch.float32, "f16": torch.float16}[dtype]
    cc = torch.tensor(c.astype(np.float32)).to(torch_type)
    if scale_type is None:
        op = TCGen05MMA("Blackwell", f"m{128 if m > 64 else 64}n{n}k{k}.kind::{kind}.{dtype}."
                        f"{atype}.{btype}")
        to = {"tf32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
              "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
        # fp6/fp4 values are exact in float16; MMA-Sim takes their subnormal exponent from the type
        ta = torch.tensor(a.astype(np.float32)).to(to.get(atype, torch.float16))
        tb = torch.tensor(b.astype(np.float32)).to(to.get(btype, torch.float16))
        d = op(ta, tb.T.contiguous(), cc)
    else:
        shape = (f"m128n{n}k{k}.kind::{kind}.block{block}.{dtype}.{atype}.{btype}.{scale_type}")
        op = TCGen05MMABlockScale("Blackwell", shape)
        to = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
        ta = torch.tensor(a.astype(np.float32)).to(to.get(atype, torch.float16))
        tb = torch.tensor(b.astype(np.float32)).to(to.get(btype, torch.float16))
        if scale_type == "ue8m0":
            alpha = torch.tensor(sa_codes.astype(np.uint8)).view(torch.float8_e8m0fnu)
            beta = torch.tensor(sb_codes.astype(np.uint8)).view(torch.float8_e8m0fnu)
        else:
            alpha = torch.tensor(sa_codes.astype(np.uint8)).view(torch.float8_e4m3fn)
            beta = torch.tensor(sb_codes.astype(np.uint8)).view(torch.float8_e4m3fn)
        d = op(ta, tb.T.contiguous(), cc, alpha, beta.T.contiguous())
    bits = np.uint16 if dtype == "f16" else np.uint32
    return d.numpy().view(bits)


def compare(case, rng: np.random.Generator, m: int, n: int, zeros: float) -> tuple[int, int]:
    kind, atype, btype, dtype, k, scale_type, block = case
    a = random_values(rng, atype, (m, k), zeros)
    b = random_values(rng, btype, (n, k), zeros)
    if kind in ("mxf4", "mxf4nvf4"):  # whole zero groups of 16 in some rows
        a.reshape(m, k // 16, 16)[rng.random((m, k // 16)) < 0.25] = 0.0
    c = random_values(rng, "f16" if dtype == "f16" else "tf32", (m, n), zeros)
    if dtype == "f32":
        c = c * np.float32(2.0**-20)
    sa = sb = sa_codes = sb_codes = None
    if scale_type is not None:
        groups = k // block
        if scale_type == "ue8m0":
            sa_codes = np.where(rng.random((m, groups)) < 0.1, 0, rng.integers(100, 154, (m, groups)))
            sb_codes = rng.integers(100, 154, (n, groups))
            sa, sb = decode_ue8m0(sa_codes), decode_ue8m0(sb_codes)
        else:
            sa_codes = rng.integers(0, 0x7F, (m, groups))
            sb_codes = rng.integers(0, 0x7F, (n, groups))
            sa, sb = decode_ue4m3(sa_codes), decode_ue4m3(sb_codes)
    ours = fused_mma(kind, a, b, c, atype=atype, btype=btype, d_type=dtype, scale_a=sa,
                     scale_b=sb, scale_type=scale_type, block=block)
    bits = np.uint16 if dtype == "f16" else np.uint32
    theirs = mmasim_d(kind, atype, btype, dtype, k, scale_type, block, a, b, c, sa, sb,
                      sa_codes, sb_codes)
    return int((np.asarray(ours).view(bits) == theirs).sum()), ours.size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zeros", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--m", type=int, default=128)
    parser.add_argument("--n", type=int, default=64)
    args = parser.parse_args(argv)
    try:
        import mmasim  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        print("needs MMA-Sim 2.1.1 and PyTorch: pip install mmasim==2.1.1 torch", file=sys.stderr)
        return 1
    np.seterr(invalid="ignore")  # NaN codes are drawn and replaced by 1.0
    rng = np.random.default_rng(args.seed)
    print(f"| kind | A x B -> D | scales | agree (of {args.m * args.n}) |")
    print("|---|---|---|---|")
    all_agree = True
    for case in KINDS:
        kind, atype, btype, dtype, k, scale_type, block = case
        same, total = compare(case, rng, args.m, args.n, args.zeros)
        all_agree &= same == total
        scales = f"{scale_type} block{block}" if scale_type else "-"
        print(f"| {kind} | {atype} x {btype} -> {dtype} | {scales} | {same} ({100 * same / total:.2f} %) |")
    return 0 if all_agree else 2


if __name__ == "__main__":
    sys.exit(main())
