"""Arithmetic of the Blackwell tensor core behind `tcgen05.mma`: the published fused dot-product model.

NVIDIA does not document how the tensor core adds. MMA-Sim (P. Xie, Y. Wang, F. Yang, M. Yang,
"MMA-Sim: Bit-Accurate Reference Model of Tensor Cores and Matrix Cores", Microsoft Research,
arXiv:2511.10909, https://arxiv.org/abs/2511.10909) derived it from targeted and randomized tests on
B200 hardware. mmair follows its release 2.1.1 on PyPI (`mmasim==2.1.1`): `mmasim/arithmetic/fdpa.py`
(`frexp_and_normalize`, `t_fdpa`, `st_fdpa`, `gst_fdpa`, `ldexp_and_normalize`) and
`mmasim/nv_ptx/sim.py` (classes `TCGen05MMA`, `TCGen05MMABlockScale`: F, rounding and `e_zero` per
kind and D type). Per output element D[m, n] the tensor core forms ONE fused dot product of the K
products and C:

1. every term gets a significand and an exponent: an input element x of format f is
   `x = s * 2**e` with `1 <= |s| < 2` for normal numbers; a subnormal keeps `e = f.min_exponent`
   (`|s| < 1`). A product term has the significand `s_a * s_b` (times the scale significands,
   block-scaled kinds) and the exponent `e_a + e_b` (plus the scale exponents). C is a term of D's
   format. A term whose significand is zero (a zero product, whatever the other factor, or a zero
   C) takes the architecture's fixed zero exponent `zero_exponent(kind, d_type)`: -133 for an f32 D,
   -21 for an f16 D, -139 under mxf4/mxf4nvf4 (`e_zero` in MMA-Sim);
2. `emax` = the largest term exponent (zero terms included);
3. every term is truncated toward zero to `ACCUMULATOR_FRACTION_BITS[kind]` bits below `2**emax`,
   i.e. to a multiple of `2**(emax - F)`;
4. the truncated terms are summed exactly;
5. the sum is rounded once to D: toward zero for an f32 D, to nearest-even for an f16 D, with
   gradual underflow (subnormal D values are produced); a result beyond D's range is +-inf;
   a zero result is +0 (MMA-Sim adds +0.0 to the rounded value, so a negative sum that rounds to
   zero gives +0, not -0).

kind::mxf4 and kind::mxf4nvf4 (e2m1 with block scales) first sum the products of each group of
`MXF4_GROUP` consecutive K elements exactly; a group's term is that sum times the two scales, and
its alignment exponent is the sum of the two scale exponents only (`gst_fdpa`). A group whose
products are all zero, or whose scale product is zero, takes the zero exponent (a group whose
nonzero products cancel keeps its scale exponent). Block scales are exact exponent additions
(UE8M0; code 0 is 2**-127 with exponent -127) or 4-bit significands (UE4M3; the sign bit is
ignored).

Special values (MMA-Sim `fused_dot_add`): when the float64 sum of the products and C would be NaN
(a NaN input, inf * 0, +inf + -inf) D is the canonical NaN (`CANONICAL_NAN_BITS`); when it would be
+-inf, D is +-inf. For mxf4/mxf4nvf4 a NaN scale of the row or the column, or a NaN C, gives the
canonical NaN (e2m1 has no inf or NaN).

e2m3, e3m2 and e2m1 use their format's own minimum exponent (0, -2, 0; MMA-Sim
`fp6_fp4_subnormal_exponent`), in kind::f8f6f4 and kind::mxf8f6f4 as in the fp4 kinds.

**[inf]** points MMA-Sim does not cover and mmair decides: kind::mxf4 K = 96 keeps 35 fraction
bits and the fp4 zero exponent; scale-input-d shifts a nonzero C's exponent exactly before step 2
(a zero C keeps the zero exponent); a C of +-inf under mxf4* gives +-inf (MMA-Sim raises there);
sparse A's pruned elements and the zero-column mask's columns are zero terms. kind::i8 is exact
integer arithmetic.

Pure Python, no xDSL: the executor (`mmair.executor.tcgen05.exact`) and the docs read these facts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Execution modes of the tcgen05 executor: "default" (float32 BLAS accumulation) or "exact".
NUMERICS_MODES: tuple[str, ...] = ("default", "exact")


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: `mantissa_bits` stored fraction bits, exponent `bias`."""

    name: str
    exponent_bits: int
    mantissa_bits: int
    bias: int
    has_inf: bool
    has_nan: bool
    has_subnormals: bool = True

    @property
    def min_exponent(self) -> int:
        """Exponent a subnormal keeps (MMA-Sim `dtype_subnormal_exponent`): the smallest normal
        number's, 1 - bias; a format without subnormals (UE8M0) reaches down to -bias."""
        return 1 - self.bias if self.has_subnormals else -self.bias


#: Formats of A/B elements, C/D and scale factors (OCP MX v1.0 for the sub-byte and scale types;
#: E4M3 has NaN S.1111.111 and no inf; E2M3, E3M2, E2M1 have neither; tf32 is f32 with 10
#: fraction bits; UE4M3 is an unsigned E4M3; UE8M0 is a bare exponent 2**(e - 127), 0xFF = NaN).
FORMATS: dict[str, FloatFormat] = {
    f.name: f
    for f in (
        FloatFormat("f32", 8, 23, 127, True, True),
        FloatFormat("tf32", 8, 10, 127, True, True),
        FloatFormat("f16", 5, 10, 15, True, True),
        FloatFormat("bf16", 8, 7, 127, True, True),
        FloatFormat("e4m3", 4, 3, 7, False, True),
        FloatFormat("e5m2", 5, 2, 15, True, True),
        FloatFormat("e2m3", 2, 3, 1, False, False),
        FloatFormat("e3m2", 3, 2, 3, False, False),
        FloatFormat("e2m1", 2, 1, 1, False, False),
        FloatFormat("ue4m3", 4, 3, 7, False, True),
        FloatFormat("ue8m0", 8, 0, 127, False, True, has_subnormals=False),
    )
}

#: Fixed exponent of a zero term on Blackwell, per D type (MMA-Sim 2.1.1 `nv_ptx/sim.py`:
#: `TCGen05MMA` `e_zero = -21 if d_type == f16 else -133`; `TCGen05MMABlockScale` with K = 32,
#: i.e. mxf8f6f4: -133).
ZERO_EXPONENT: dict[str, int] = {"f32": -133, "f16": -21}

#: Zero exponent of kind::mxf4 and kind::mxf4nvf4 (`TCGen05MMABlockScale` with K = 64: `MMA_GST_FDPA(
#: G=16, F=35, e_zero=-139)`); mmair uses it for their K = 96 too.
MXF4_ZERO_EXPONENT = -139


def zero_exponent(kind: str, d_type: str) -> int:
    """The exponent of a zero term (zero product, zero group, zero scale product, zero C)."""
    if kind in ("mxf4", "mxf4nvf4"):
        return MXF4_ZERO_EXPONENT
    return ZERO_EXPONENT[d_type]

#: Bits kept below the largest term's exponent before the exact sum (MMA-Sim: 25 for Blackwell
#: `tcgen05mma` and for mxf8f6f4 (K = 32), 35 for the fp4 kinds (`35 if self.k == 64 else 25`)).
ACCUMULATOR_FRACTION_BITS: dict[str, int] = {
    "tf32": 25, "f16": 25, "f8f6f4": 25, "mxf8f6f4": 25, "mxf4": 35, "mxf4nvf4": 35,
}

#: K elements whose products the fp4 kinds sum exactly before scaling and alignment.
MXF4_GROUP = 16

#: Final rounding of the fused sum per D type: (mode, D format).
D_ROUNDING: dict[str, tuple[str, str]] = {
    "f32": ("toward_zero", "f32"),
    "f16": ("nearest_even", "f16"),
}

#: Bit pattern of the NaN every NaN result becomes (MMA-Sim `nv_fused_dot_add`).
CANONICAL_NAN_BITS: dict[str, int] = {"f32": 0x7FFF_FFFF, "f16": 0x7FFF}


def fraction_bits(kind: str) -> int:
    """Bits kept below the largest term for `kind` (ValueError for kind::i8, which is exact)."""
    if kind not in ACCUMULATOR_FRACTION_BITS:
        raise ValueError(f"kind::{kind} has no fused floating-point sum")
    return ACCUMULATOR_FRACTION_BITS[kind]


def default_mode_ulp_bound(terms: int, d_type: str = "f32") -> int:
    """Ulps of the exact-mode result (in D's format) by which the default mode may differ, for
    `terms` addends (K products, or the group terms of mxf4*, plus C) that are normal, finite and
    of one sign, and whose sum is a normal number of D's format.

    Default: products exact, float32 round-to-nearest sums in any order (<= (terms - 1) * 2**-24
    of the sum; block-scaled kinds sum in float64, less). Exact: each term truncated below
    2**(emax - 25) (<= terms * 2**-25 of the sum, since 2**emax <= the largest term) and one
    truncation to f32 (< 1 ulp). An f32 ulp of x exceeds |x| * 2**-24, so the gap stays below
    1.5 * terms + 2 ulps. An f16 D is rounded to nearest from sums that agree to far better than
    an f16 ulp (2**-11 relative) for terms <= 257, so the two differ by at most one f16 ulp.
    """
    if d_type == "f16":
        return 1
    return math.ceil(1.5 * terms + 2)


__all__ = [
    "ACCUMULATOR_FRACTION_BITS",
    "CANONICAL_NAN_BITS",
    "D_ROUNDING",
    "FORMATS",
    "MXF4_GROUP",
    "MXF4_ZERO_EXPONENT",
    "NUMERICS_MODES",
    "ZERO_EXPONENT",
    "FloatFormat",
    "default_mode_ulp_bound",
    "fraction_bits",
    "zero_exponent",
]
