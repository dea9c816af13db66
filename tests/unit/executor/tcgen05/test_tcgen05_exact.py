"""Exact mode of tcgen05.mma (`numerics="exact"`): the tensor core's fused dot product.

Expected values come from two independent sources: hand-computed cases (the arithmetic is spelled
out next to each), and a scalar `fractions.Fraction` evaluation of the documented model (exact
rational terms, truncation to F bits below the largest term exponent, exact sum, one rounding)
that shares no code with the vectorised executor. The default mode is checked against its
documented bound (`default_mode_ulp_bound`) of the exact mode. `fused_mma` is also checked on
single rows worked by hand (subnormals, scale_input_d, fp4 groups, special values, NaN scales).
"""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from tcgen05_testing import E2M1_VALUES, Setup, run

from mmair.executor.tcgen05.elements import (
    decode_elements,
    decode_ue4m3,
    decode_ue8m0,
    encode_scale,
)
from mmair.executor.tcgen05.exact import fused_mma, term_exponents
from mmair.executor.tcgen05.memories import Tcgen05ExecutionError
from mmair.executor.tcgen05.operands import write_d, write_scale_factors
from mmair.isa.tcgen05 import numerics
from mmair.isa.tcgen05.numerics import default_mode_ulp_bound

RNG = np.random.default_rng(20251114)
F32_NAN, F16_NAN = 0x7FFFFFFF, 0x7FFF

# ----------------------------------------------------------------------------------------------
# The model, scalar and rational (independent of mmair.executor.tcgen05.exact)

#: (minimum normal exponent) of each format: 1 - bias.
MIN_EXP = {"f32": -126, "tf32": -126, "bf16": -126, "f16": -14, "e4m3": -6, "e5m2": -14,
           "e2m3": 0, "e3m2": -2, "e2m1": 0, "ue8m0": -127, "ue4m3": -6}
FRACTION_BITS = {"tf32": 25, "f16": 25, "f8f6f4": 25, "mxf8f6f4": 25, "mxf4": 35, "mxf4nvf4": 35}
#: MMA-Sim 2.1.1 `e_zero` (nv_ptx/sim.py): the exponent of a zero term, per D type; fp4 kinds -139.
E_ZERO = {"f32": -133, "f16": -21}
E_ZERO_FP4 = -139


def floor_log2(x: Fraction) -> int:
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return e if Fraction(2) ** e <= x else e - 1


def exponent(x: Fraction, fmt: str) -> int:
    """MMA-Sim `frexp_and_normalize` of a nonzero value: max(floor(log2|x|), the format's min exp)."""
    assert x != 0
    return max(floor_log2(x), MIN_EXP[fmt])


def round_to_d(total: Fraction, d_type: str) -> float:
    if total == 0:
        return 0.0
    sign = 1 if total > 0 else -1  # a result that rounds to zero is +0 (below: `+ 0.0`)
    if d_type == "f32":  # toward zero, 23 fraction bits, subnormals below 2**-126
        quantum = Fraction(2) ** (max(floor_log2(total), -126) - 23)
        kept = math.trunc(abs(total) / quantum) * quantum
        return sign * (math.inf if kept >= 2**128 else float(kept)) + 0.0
    quantum = Fraction(2) ** (max(floor_log2(total), -14) - 10)
    kept = round(abs(total) / quantum) * quantum  # Fraction rounds half to even
    return sign * (math.inf if kept >= 2**16 else float(kept)) + 0.0


def fused_reference(terms: list[tuple[Fraction, int]], frac: int, d_type: str) -> float:
    emax = max(e for _, e in terms)
    quantum = Fraction(2) ** (emax - frac)
    total = sum((math.trunc(v / quantum) for v, _ in terms), 0) * quantum
    return round_to_d(total, d_type)


def reference_dense(kind, a, b, c, atype, btype, d_type, sa=None, sb=None, scale_type=None):
    """D[m, n] per the model for dense kinds and mxf8f6f4 (a: M x K, b: N x K values)."""
    m, n = a.shape[0], b.shape[0]
    out = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            cv = Fraction(float(c[i, j]))
            terms = [(cv, E_ZERO[d_type] if cv == 0 else exponent(cv, d_type))]
            for k in range(a.shape[1]):
                x, y = Fraction(float(a[i, k])), Fraction(float(b[j, k]))
                v = x * y
                if v == 0:  # a zero product: the fixed zero exponent, whatever the other factor
                    terms.append((v, E_ZERO[d_type]))
                    continue
                e = exponent(x, atype) + exponent(y, btype)
                if sa is not None:
                    s, t = Fraction(float(sa[i, 0])), Fraction(float(sb[j, 0]))
                    e += exponent(s, scale_type) + exponent(t, scale_type)
                    v *= s * t
                terms.append((v, e))
            out[i, j] = fused_reference(terms, FRACTION_BITS[kind], d_type)
    return out


def reference_mxf4(kind, a, b, c, sa, sb, scale_type, block):
    """D[m, n] for mxf4/mxf4nvf4: exact group-of-16 sums, terms aligned by the scale exponents."""
    m, n, k = a.shape[0], b.shape[0], a.shape[1]
    out = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            cv = Fraction(float(c[i, j]))
            terms = [(cv, E_ZERO_FP4 if cv == 0 else exponent(cv, "f32"))]
            for g in range(k // 16):
                products = [Fraction(float(a[i, x])) * Fraction(float(b[j, x]))
                            for x in range(16 * g, 16 * g + 16)]
                s = Fraction(float(sa[i, 16 * g // block]))
                t = Fraction(float(sb[j, 16 * g // block]))
                if all(p == 0 for p in products) or s * t == 0:  # not a group that cancels
                    e = E_ZERO_FP4
                else:
                    e = exponent(s, scale_type) + exponent(t, scale_type)
                terms.append((sum(products, Fraction(0)) * s * t, e))
            out[i, j] = fused_reference(terms, FRACTION_BITS[kind], "f32")
    return out


# ----------------------------------------------------------------------------------------------
# Random data: every finite code of a format (so exponents spread and terms get truncated)

FORMAT_DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
                 "e5m2": ml_dtypes.float8_e5m2, "e2m3": ml_dtypes.float6_e2m3fn,
                 "e3m2": ml_dtypes.float6_e3m2fn, "e2m1": ml_dtypes.float4_e2m1fn}


def random_codes(fmt: str, shape: tuple[int, int], span: int | None = None) -> np.ndarray:
    """Random finite values of `fmt` (float32); `span` limits |exponent| for the wide formats."""
    if fmt == "tf32":
        bits = RNG.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
        values = decode_elements(bits, "tf32")
    else:
        width = 8 * np.dtype(FORMAT_DTYPES[fmt]).itemsize
        raw = RNG.integers(0, 2**width, shape, dtype=np.uint64)
        values = decode_elements(raw.astype(np.uint8 if width == 8 else np.uint16), fmt)
    values = np.where(np.isfinite(values), values, 1.0).astype(np.float32)
    if span is not None:
        values = np.where(np.abs(values) > 2.0**span, 2.0**span, values)
        values = np.where((values != 0) & (np.abs(values) < 2.0**-span), 2.0**-span, values)
    return values


DENSE_CASES = [  # kind, atype, btype, d_type, K
    ("tf32", "tf32", "tf32", "f32", 8),
    ("f16", "f16", "f16", "f32", 16),
    ("f16", "bf16", "bf16", "f32", 16),
    ("f16", "f16", "f16", "f16", 16),
    ("f8f6f4", "e4m3", "e5m2", "f32", 32),
    ("f8f6f4", "e2m3", "e3m2", "f32", 32),
    ("f8f6f4", "e2m1", "e4m3", "f16", 32),
]


def with_zeros(values: np.ndarray, fraction: float) -> np.ndarray:
    """`values` with about `fraction` of its entries replaced by +0 or -0 (zero terms of every kind:
    zero products with large other factors, zero C, whole zero fp4 groups when dense enough)."""
    zero = RNG.random(values.shape) < fraction
    signed_zero = np.where(RNG.random(values.shape) < 0.5, 0.0, -0.0).astype(values.dtype)
    return np.where(zero, signed_zero, values)


#: Zero density of the random data: none, and the "many zeros" of sparse or padded operands.
ZERO_FRACTIONS = (0.0, 0.6)


@pytest.mark.parametrize("zeros", ZERO_FRACTIONS)
@pytest.mark.parametrize(("kind", "atype", "btype", "d_type", "k"), DENSE_CASES)
def test_exact_equals_rational_model_dense(kind, atype, btype, d_type, k, zeros) -> None:
    m, n = 6, 8
    span = 40 if atype in ("tf32", "bf16") else None  # keep tf32/bf16 sums inside f32's range
    a, b = random_codes(atype, (m, k), span), random_codes(btype, (n, k), span)
    c = random_codes("f16", (m, n)) if d_type == "f16" else RNG.standard_normal((m, n)).astype(
        np.float32) * np.float32(2.0) ** RNG.integers(-20, 20, (m, n)).astype(np.float32)
    a, b, c = with_zeros(a, zeros), with_zeros(b, zeros), with_zeros(c, zeros)
    got = fused_mma(kind, a, b, c, atype=atype, btype=btype, d_type=d_type)
    want = reference_dense(kind, a, b, c, atype, btype, d_type)
    np.testing.assert_array_equal(got.astype(np.float64), want)


@pytest.mark.parametrize("zeros", ZERO_FRACTIONS)
@pytest.mark.parametrize(("atype", "btype"), [("e4m3", "e2m1"), ("e5m2", "e3m2")])
def test_exact_equals_rational_model_mxf8f6f4(atype, btype, zeros) -> None:
    m, n, k = 4, 5, 32
    a, b = random_codes(atype, (m, k)), random_codes(btype, (n, k))
    sa = decode_ue8m0(np.concatenate([[0], RNG.integers(0, 255, m - 1)])[:, None])  # code 0 too
    sb = decode_ue8m0(RNG.integers(0, 255, (n, 1)))
    c = RNG.standard_normal((m, n)).astype(np.float32)
    a, b, c = with_zeros(a, zeros), with_zeros(b, zeros), with_zeros(c, zeros)
    got = fused_mma("mxf8f6f4", a, b, c, atype=atype, btype=btype, d_type="f32", scale_a=sa,
                    scale_b=sb, scale_type="ue8m0", block=32)
    want = reference_dense("mxf8f6f4", a, b, c, atype, btype, "f32", sa, sb, "ue8m0")
    np.testing.assert_array_equal(got.astype(np.float64), want)


@pytest.mark.parametrize(("kind", "scale_type", "block", "k"),
                         [("mxf4", "ue8m0", 32, 64), ("mxf4nvf4", "ue4m3", 16, 64),
                          ("mxf4nvf4", "ue8m0", 16, 96)])
@pytest.mark.parametrize("zeros", ZERO_FRACTIONS)
def test_exact_equals_rational_model_mxf4(kind, scale_type, block, k, zeros) -> None:
    m, n = 8, 8
    a, b = RNG.choice(E2M1_VALUES, (m, k)), RNG.choice(E2M1_VALUES, (n, k))
    a, b = with_zeros(a, zeros), with_zeros(b, zeros)
    if zeros:  # whole groups of 16 zero in some rows of A: the group's zero exponent
        a.reshape(m, k // 16, 16)[RNG.random((m, k // 16)) < 0.3] = 0.0
    if scale_type == "ue8m0":  # exponents far apart, so group terms get truncated
        sa = decode_ue8m0(RNG.integers(80, 175, (m, k // block)))
        sb = decode_ue8m0(RNG.integers(80, 175, (n, k // block)))
    else:
        sa = decode_ue4m3(RNG.integers(0, 0x7F, (m, k // block)))
        sb = decode_ue4m3(RNG.integers(0, 0x7F, (n, k // block)))
    c = with_zeros(RNG.standard_normal((m, n)).astype(np.float32), zeros)
    got = fused_mma(kind, a, b, c, atype="e2m1", btype="e2m1", d_type="f32", scale_a=sa,
                    scale_b=sb, scale_type=scale_type, block=block)
    np.testing.assert_array_equal(got.astype(np.float64),
                                  reference_mxf4(kind, a, b, c, sa, sb, scale_type, block))


# ----------------------------------------------------------------------------------------------
# Hand-computed cases (through the whole executor: SMEM descriptors, TMEM D)


def exact_row(kind, a_row, b_row, *, atype, btype, dtype="f32", c=None, n=8, m=128, **kw):
    """D[0, 0] of an MMA whose A row 0 is `a_row`, B column 0 is `b_row` (the rest zero)."""
    k = len(a_row)
    a, b = np.zeros((m, k)), np.zeros((k, n))
    a[0], b[:, 0] = a_row, b_row
    s = kw.pop("setup", None) or Setup()
    if c is not None:
        old = np.zeros((m, n))
        old[0, 0] = c
        write_d(s.tmem, s.d, dtype, old)
    d, s = run(kind, a, b, atype=atype, btype=btype, dtype=dtype, setup=s,
               enable_input_d=c is not None, numerics=kw.pop("numerics", "exact"), **kw)
    cells = s.tmem.region(s.d, m, n, "D")
    return d[0, 0], int(cells[0, 0]) & (0xFFFF if dtype == "f16" else 0xFFFFFFFF)


def test_small_terms_are_truncated_below_the_largest() -> None:
    # 1*1 plus fifteen products 2^-13 * 2^-13 = 2^-26. emax = 0, so terms keep multiples of
    # 2^-25: each 2^-26 truncates to 0 and D = 1. (The exact sum 1 + 15 * 2^-26 would give
    # 1 + 2^-23 after truncation to f32.)
    a = [1.0] + [2.0**-13] * 15
    value, _ = exact_row("f16", a, a, atype="f16", btype="f16")
    assert value == 1.0


def test_cancellation_loses_the_truncated_term() -> None:
    # 1024 - 1024 + 2^-10 * 2^-10: emax = 10, quantum 2^-15, so 2^-20 truncates to 0: D = +0.
    a, b = [1024.0, -1024.0, 2.0**-10] + [0.0] * 13, [1.0, 1.0, 2.0**-10] + [0.0] * 13
    value, bits = exact_row("f16", a, b, atype="f16", btype="f16")
    assert value == 0.0 and bits == 0  # +0
    default, _ = exact_row("f16", a, b, atype="f16", btype="f16", numerics="default")
    assert default in (0.0, 2.0**-20)  # float32 order-dependent


def test_f16_subnormal_inputs_are_exact() -> None:
    # 2^-24 (the smallest f16 subnormal) squared: exponent -14 + -14 = -28 by the subnormal rule,
    # emax = -28 (C = 0 has -126), quantum 2^-53: D = 2^-48 exactly.
    value, _ = exact_row("f16", [2.0**-24] + [0.0] * 15, [2.0**-24] + [0.0] * 15,
                         atype="f16", btype="f16")
    assert value == 2.0**-48


def test_f32_subnormal_result_rounds_toward_zero() -> None:
    # tf32: 1.5 * 2^-100 * 2^-49 = 1.5 * 2^-149. emax = -126 (C = 0), quantum 2^-151 keeps it;
    # truncation to f32 gives the smallest subnormal 2^-149 (float32 rounding gives 2^-148).
    value, bits = exact_row("tf32", [1.5 * 2.0**-100] + [0.0] * 7, [2.0**-49] + [0.0] * 7,
                            atype="tf32", btype="tf32")
    assert bits == 1 and value == 2.0**-149
    _, default_bits = exact_row("tf32", [1.5 * 2.0**-100] + [0.0] * 7, [2.0**-49] + [0.0] * 7,
                                atype="tf32", btype="tf32", numerics="default")
    assert default_bits == 2


def test_bf16_wide_range_and_f32_truncation() -> None:
    # bf16: 2^100 * 2^20 = 2^120 sets emax = 120 (quantum 2^95); 1 * 2^-10 truncates to 0;
    # C = 3 * 2^96 is kept. The exact sum 2^120 + 3 * 2^96 is 1.5 f32 ulps (2^97) above 2^120 and
    # truncates to 2^120 + 2^97.
    value, _ = exact_row("f16", [2.0**100, 1.0] + [0.0] * 14, [2.0**20, 2.0**-10] + [0.0] * 14,
                         atype="bf16", btype="bf16", c=3 * 2.0**96)
    assert value == 2.0**120 + 2.0**97


def test_a_zero_product_takes_the_fixed_zero_exponent_whatever_its_other_factor() -> None:
    # tf32, A = [0x00000000, 0x3F800000], B = [0x5D800000 (2^60), 0x0D800000 (2^-100)], C = 0:
    # 0 * 2^60 is a zero term of exponent -133 (not -126 + 60 = -66), 1 * 2^-100 has exponent
    # -100 and is the largest, so nothing truncates: D = 2^-100 = 0x0D800000 (MMA-Sim 2.1.1).
    a = np.array([0x00000000, 0x3F800000], np.uint32).view(np.float32).tolist()
    b = np.array([0x5D800000, 0x0D800000], np.uint32).view(np.float32).tolist()
    value, bits = exact_row("tf32", a + [0.0] * 6, b + [0.0] * 6, atype="tf32", btype="tf32")
    assert bits == 0x0D800000 and value == 2.0**-100


def test_zero_terms_raise_the_largest_exponent_to_minus_133_for_an_f32_d() -> None:
    # tf32: 2^-75 * 2^-75 = 2^-150 (exponent -150) and -2^-80 * 2^-80 = -2^-160; the six zero
    # products and the zero C have exponent -133, so emax = -133, the quantum is 2^-158 and
    # -2^-160 truncates to 0: D = 2^-150 toward zero in f32 (subnormal quantum 2^-149) = +0, bits 0.
    a, b = one_row([2.0**-75, -(2.0**-80)], [2.0**-75, 2.0**-80], 8)
    got = fused_mma("tf32", a, b, None, atype="tf32", btype="tf32", d_type="f32")
    assert f32_bits(got) == [0]


def test_zero_terms_have_exponent_minus_21_for_an_f16_d() -> None:
    # kind::f16, f16 D: 2^-14 * 2^-11 = 2^-25 (exponent -25) and 2^-24 * 2^-24 = 2^-48 (two f16
    # subnormals: exponent -14 - 14 = -28); the 14 zero products and the zero C have exponent -21,
    # so emax = -21, the quantum is 2^-46 and 2^-48 truncates. The sum 2^-25 is half of the f16
    # subnormal quantum 2^-24: to nearest-even it is +0 (bits 0x0000). With the zero terms at
    # -126, emax = -25 would keep 2^-48 and D = 2^-24 (bits 0x0001).
    a, b = one_row([2.0**-14, 2.0**-24], [2.0**-11, 2.0**-24], 16)
    got = fused_mma("f16", a, b, None, atype="f16", btype="f16", d_type="f16")
    assert np.asarray(got, np.float16).view(np.uint16).ravel().tolist() == [0x0000]


def test_a_negative_sum_that_rounds_to_zero_is_plus_zero() -> None:
    # tf32: -2^-75 * 2^-75 = -2^-150, kept by the quantum 2^-158 (emax = -133, the zero terms);
    # toward zero in f32 it is -0, and MMA-Sim adds +0.0 after rounding: D = +0 (bits 0, not
    # 0x80000000). The f16 D: -2^-14 * 2^-12 = -2^-26 rounds to nearest-even -0 -> +0 (0x0000).
    a, b = one_row([-(2.0**-75)], [2.0**-75], 8)
    got = fused_mma("tf32", a, b, None, atype="tf32", btype="tf32", d_type="f32")
    assert f32_bits(got) == [0]
    a, b = one_row([-(2.0**-14)], [2.0**-12], 16)
    got = fused_mma("f16", a, b, None, atype="f16", btype="f16", d_type="f16")
    assert np.asarray(got, np.float16).view(np.uint16).ravel().tolist() == [0x0000]


def test_an_all_zero_fp4_group_takes_the_zero_exponent_minus_139() -> None:
    # mxf4 (K = 64, block32, UE8M0): row scales [1, 2^40], column scales [1, 1]. Group 0:
    # 1 * 1 + 0.5 * 0.5 = 1.25 at exponent 0 + 0; groups 1-3 are all zero (group 1 at scale 1,
    # groups 2 and 3 at scale 2^40) and so is C: exponent -139, emax = 0, nothing truncates:
    # D = 1.25 (0x3FA00000). Were the zero groups at their scale exponent 40, the quantum 2^5
    # would truncate 1.25 to 0.
    a, b = np.zeros((1, 64), np.float32), np.zeros((1, 64), np.float32)
    a[0, :2], b[0, :2] = [1.0, 0.5], [1.0, 0.5]
    sa, sb = np.array([[1.0, 2.0**40]]), np.array([[1.0, 1.0]])
    got = fused_mma("mxf4", a, b, None, atype="e2m1", btype="e2m1", d_type="f32", scale_a=sa,
                    scale_b=sb, scale_type="ue8m0", block=32)
    assert f32_bits(got) == [0x3FA00000]
    # A group whose products cancel (1 * 1 + 1 * -1 = 0 in group 2) is not a zero group: it keeps
    # exponent 40, the quantum 2^5 truncates group 0's 1.25, D = +0.
    a[0, 32:34], b[0, 32:34] = [1.0, 1.0], [1.0, -1.0]
    got = fused_mma("mxf4", a, b, None, atype="e2m1", btype="e2m1", d_type="f32", scale_a=sa,
                    scale_b=sb, scale_type="ue8m0", block=32)
    assert f32_bits(got) == [0]


def test_ue8m0_code_0_is_two_to_the_minus_127() -> None:
    # mxf8f6f4, e4m3 x e5m2, scale A = code 0 = 2^-127 (exponent -127), scale B = code 227 = 2^100.
    # 1 * 1 and -1 * 1 give +-2^-27 at exponent -127 + 100 = -27; 2^-9 * 2^-16 (the two formats'
    # smallest subnormals, exponents -6 and -14) gives 2^-52 at exponent -47. emax = -27, quantum
    # 2^-52: it is kept and D = 2^-52 (0x25800000). With code 0 read at exponent -126 the quantum
    # would be 2^-51 and D = +0.
    assert decode_ue8m0(np.array([0])).tolist() == [2.0**-127]
    a, b = one_row([1.0, -1.0, 2.0**-9], [1.0, 1.0, 2.0**-16], 32)
    got = fused_mma("mxf8f6f4", a, b, None, atype="e4m3", btype="e5m2", d_type="f32",
                    scale_a=decode_ue8m0(np.array([[0]])), scale_b=decode_ue8m0(np.array([[227]])),
                    scale_type="ue8m0", block=32)
    assert f32_bits(got) == [0x25800000]


def test_f16_accumulator_rounds_to_nearest_even() -> None:
    # C = 1 (f16) + 2^-11: halfway between 1 and 1 + 2^-10 -> even: 1.
    # C = 1 + 3 * 2^-11: halfway between 1 + 2^-10 and 1 + 2^-9 -> even: 1 + 2^-9.
    one, _ = exact_row("f16", [2.0**-11] + [0.0] * 15, [1.0] + [0.0] * 15, atype="f16",
                       btype="f16", dtype="f16", c=1.0)
    assert one == 1.0
    up, _ = exact_row("f16", [3 * 2.0**-11] + [0.0] * 15, [1.0] + [0.0] * 15, atype="f16",
                      btype="f16", dtype="f16", c=1.0)
    assert up == 1.0 + 2.0**-9


def test_f8f6f4_with_f16_accumulator_in_the_model() -> None:
    """MMA-Sim models an f16 D of kind::f8f6f4 (a newer PTX revision's form); an MMA with it is
    refused (R2, the seed tables: f32 only), so only the arithmetic function reaches it."""
    # e4m3 448 * e5m2 57344 = 25690112 > 65504: f16 D overflows to +inf.
    got = fused_mma("f8f6f4", np.array([[448.0] + [0.0] * 31]), np.array([[57344.0] + [0.0] * 31]),
                    None, atype="e4m3", btype="e5m2", d_type="f16")
    assert got[0, 0] == np.inf
    # e3m2 28 * e2m3 7.5 = 210, plus C = 0.25: at 2^7 an f16 keeps multiples of 2^-3, so
    # 210.25 is exact.
    got = fused_mma("f8f6f4", np.array([[28.0] + [0.0] * 31]), np.array([[7.5] + [0.0] * 31]),
                    np.array([[0.25]], dtype=np.float16), atype="e3m2", btype="e2m3",
                    d_type="f16")
    assert got[0, 0] == 210.25


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_nan_results_are_canonical(dtype: str) -> None:
    nan_bits = F32_NAN if dtype == "f32" else F16_NAN
    zeros = [0.0] * 15
    # inf * 0
    _, bits = exact_row("f16", [np.inf] + zeros, [0.0] + zeros, atype="f16", btype="f16",
                        dtype=dtype)
    assert bits == nan_bits
    # +inf + -inf
    _, bits = exact_row("f16", [np.inf, -np.inf] + zeros[1:], [1.0, 1.0] + zeros[1:],
                        atype="f16", btype="f16", dtype=dtype)
    assert bits == nan_bits
    # a NaN C with a payload
    s = Setup()
    cells = s.tmem.region(s.d, 128, 8, "D")
    write_d(s.tmem, s.d, dtype, np.zeros((128, 8)))
    cells[0, 0] = 0xFFC00123 if dtype == "f32" else 0xFE01
    a, b = np.zeros((128, 16)), np.zeros((16, 8))
    run("f16", a, b, atype="f16", btype="f16", dtype=dtype, setup=s, enable_input_d=True,
        numerics="exact")
    assert int(cells[0, 0]) == nan_bits
    # the default mode writes the same canonical NaN
    _, bits = exact_row("f16", [np.inf] + zeros, [0.0] + zeros, atype="f16", btype="f16",
                        dtype=dtype, numerics="default")
    assert bits == nan_bits


def test_inf_and_e4m3_nan_inputs() -> None:
    value, _ = exact_row("f16", [np.inf, 1.0] + [0.0] * 14, [1.0, 1.0] + [0.0] * 14,
                         atype="f16", btype="f16")
    assert value == np.inf
    value, _ = exact_row("f16", [-np.inf] + [0.0] * 15, [2.0] + [0.0] * 15, atype="f16",
                         btype="f16")
    assert value == -np.inf
    _, bits = exact_row("f8f6f4", [np.nan] + [0.0] * 31, [0.0] * 32, atype="e4m3", btype="e4m3")
    assert bits == F32_NAN


def scaled_row(kind, a_row, b_row, sfa_row, sfb_row, *, scale_type="ue8m0", scale_vec=None,
               numerics="exact", c=None):
    """D[0, 0] of a block-scaled MMA (M = 128, N = 8) with A row 0, B column 0 and their scales."""
    m, n, k = 128, 8, len(a_row)
    a, b = np.zeros((m, k)), np.zeros((k, n))
    a[0], b[:, 0] = a_row, b_row
    sfa, sfb = np.ones((m, len(sfa_row))), np.ones((n, len(sfb_row)))
    sfa[0], sfb[0] = sfa_row, sfb_row
    s = Setup()
    sfa_at, sfb_at = s.tmem.alloc(32), s.tmem.alloc(32)
    codes_a, codes_b = encode_scale(sfa, scale_type), encode_scale(sfb, scale_type)
    write_scale_factors(s.tmem, sfa_at, codes_a, 0)
    write_scale_factors(s.tmem, sfb_at, codes_b, 0)
    if c is not None:
        old = np.zeros((m, n))
        old[0, 0] = c
        write_d(s.tmem, s.d, "f32", old)
    atype = "e4m3" if kind == "mxf8f6f4" else "e2m1"
    d, s = run(kind, a, b, atype=atype, btype=atype, dtype=None, setup=s, scale_a=sfa_at,
               scale_b=sfb_at, scale_vec=scale_vec, enable_input_d=c is not None,
               idesc_extra={"scale_type": scale_type}, numerics=numerics)
    return d[0, 0], int(s.tmem.region(s.d, m, n, "D")[0, 0])


@pytest.mark.parametrize("numerics", ["exact", "default"])
def test_extreme_scales_do_not_overflow(numerics: str) -> None:
    # e4m3 448 with scale 2^127 times 1 with scale 2^-127: exactly 448 (in float32 the scaled
    # operand 448 * 2^127 overflows).
    value, _ = scaled_row("mxf8f6f4", [448.0] + [0.0] * 31, [1.0] + [0.0] * 31, [2.0**127],
                          [2.0**-127], numerics=numerics)
    assert value == 448.0
    # 0.5 * 2^-127 times 0.5 * 2^-20: 2^-149, the smallest f32 subnormal, in both modes.
    value, bits = scaled_row("mxf8f6f4", [0.5] + [0.0] * 31, [0.5] + [0.0] * 31, [2.0**-127],
                             [2.0**-20], numerics=numerics)
    assert bits == 1


def test_mxf4_groups_are_aligned_by_scale_exponents() -> None:
    # mxf4nvf4 block16, UE8M0. Group 0: 6 * 6 = 36 with scales 2^10 * 2^10; group 1: 0.5 * 0.5
    # with scales 2^-10 * 2^-10; groups 2, 3 zero with scales 1. emax = 20 (scale exponents),
    # quantum 2^(20 - 35) = 2^-15: group 1's 2^-22 truncates and D = 36 * 2^20.
    a = [6.0] + [0.0] * 15 + [0.5] + [0.0] * 47
    sfa = [2.0**10, 2.0**-10, 1.0, 1.0]
    value, _ = scaled_row("mxf4nvf4", a, a, sfa, sfa, scale_vec="block16")
    assert value == 36 * 2.0**20
    # The same with C = 2^-15 (kept: exactly one quantum): D = 36 * 2^20 + 2^-15 truncated to
    # f32 (ulp 2^2 at 2^25) = 36 * 2^20.
    value, _ = scaled_row("mxf4nvf4", a, a, sfa, sfa, scale_vec="block16", c=2.0**-15)
    assert value == 36 * 2.0**20


def test_mxf4_group_sums_are_exact_and_scales_can_overflow_d() -> None:
    # mxf4 (block32, UE8M0): sixteen 6 * 6 = 576 in group 0 and scales 2^127 * 2^127:
    # 576 * 2^254 is beyond f32: +inf. A NaN scale (0xFF) gives the canonical NaN.
    a = [6.0] * 16 + [0.0] * 48
    value, _ = scaled_row("mxf4", a, a, [2.0**127, 1.0], [2.0**127, 1.0])
    assert value == np.inf
    value, _ = scaled_row("mxf4", a, a, [1.0, 1.0], [2.0**-4, 1.0])
    assert value == 36.0


def test_nan_scale_gives_canonical_nan() -> None:
    m, n, k = 4, 3, 64
    a, b = np.zeros((m, k)), np.zeros((n, k))
    sa, sb = np.ones((m, 2), np.float32), np.ones((n, 2), np.float32)
    sa[1, 1] = np.nan
    got = fused_mma("mxf4", a, b, None, atype="e2m1", btype="e2m1", d_type="f32", scale_a=sa,
                    scale_b=sb, scale_type="ue8m0", block=32)
    bits = got.view(np.uint32)
    assert (bits[1] == F32_NAN).all() and (bits[[0, 2, 3]] == 0).all()


def test_scale_input_d_is_an_exact_exponent_shift() -> None:
    # D = A x B + C * 2^-4 with C = 3: 0.1875 + 1 * 1.
    value, _ = exact_row("f16", [1.0] + [0.0] * 15, [1.0] + [0.0] * 15, atype="f16", btype="f16",
                         c=3.0, scale_input_d=4)
    assert value == 1.1875


def test_unknown_numerics_mode_is_an_error() -> None:
    with pytest.raises(Tcgen05ExecutionError, match="requires numerics in default, exact, got 'fast'"):
        exact_row("f16", [1.0] * 16, [1.0] * 16, atype="f16", btype="f16", numerics="fast")


# ----------------------------------------------------------------------------------------------
# Default mode within its documented bound of exact mode (one-signed, normal data)

BOUND_CASES = [  # kind, atype, btype, dtype, K, terms
    ("tf32", "tf32", "tf32", "f32", 8, 9),
    ("f16", "f16", "f16", "f32", 16, 17),
    ("f16", "bf16", "bf16", "f32", 16, 17),
    ("f16", "f16", "f16", "f16", 16, 17),
    ("f8f6f4", "e4m3", "e5m2", "f32", 32, 33),
    ("f8f6f4", "e3m2", "e2m3", "f32", 32, 33),
]


def ulps(x: np.ndarray, y: np.ndarray, dtype: str) -> np.ndarray:
    """Distance in units of the last place of y (same sign, finite)."""
    int_type = np.int64
    view = np.float32 if dtype == "f32" else np.float16
    xi = x.astype(view).view(np.uint32 if dtype == "f32" else np.uint16).astype(int_type)
    yi = y.astype(view).view(np.uint32 if dtype == "f32" else np.uint16).astype(int_type)
    return np.abs(xi - yi)


@pytest.mark.parametrize(("kind", "atype", "btype", "dtype", "k", "terms"), BOUND_CASES)
def test_default_mode_within_documented_bound(kind, atype, btype, dtype, k, terms) -> None:
    m, n = 128, 64
    fmt = FORMAT_DTYPES.get(atype, np.float32)
    span = 3 if atype in ("e2m1", "e2m3", "e3m2") else 6
    a = np.abs(RNG.standard_normal((m, k)) * 2.0 ** RNG.integers(-span, span, (m, k)))
    b = np.abs(RNG.standard_normal((k, n)) * 2.0 ** RNG.integers(-span, span, (k, n)))
    a = np.maximum(a.astype(fmt).astype(np.float64), 0.5)  # normal and nonzero
    b = np.maximum(b.astype(FORMAT_DTYPES.get(btype, np.float32)).astype(np.float64), 0.5)
    c = np.abs(RNG.standard_normal((m, n))) + 1.0
    results = {}
    for mode in ("default", "exact"):
        s = Setup()
        write_d(s.tmem, s.d, dtype, c)
        results[mode], _ = run(kind, a, b, atype=atype, btype=btype, dtype=dtype, setup=s,
                               enable_input_d=True, numerics=mode)
    gap = ulps(results["default"], results["exact"], dtype)
    assert gap.max() <= default_mode_ulp_bound(terms, dtype)


# The fused dot product (executor/tcgen05/exact.py, fused_mma) on one row, against values worked
# by hand from the documented model: subnormals, scale_input_d, fp4 groups, specials


def test_kind_i8_has_no_fraction_bits():
    assert numerics.fraction_bits("mxf4") == 35 and numerics.fraction_bits("f16") == 25
    with pytest.raises(ValueError, match="kind::i8 has no fused floating-point sum"):
        numerics.fraction_bits("i8")


def f32_bits(values: np.ndarray) -> list[int]:
    return np.asarray(values, np.float32).view(np.uint32).ravel().tolist()


def one_row(a_row: list[float], b_row: list[float], k: int) -> tuple[np.ndarray, np.ndarray]:
    """A (1, K) and B (1, K) float32 operands: the given leading values, zeros after."""
    a, b = np.zeros((1, k), np.float32), np.zeros((1, k), np.float32)
    a[0, :len(a_row)], b[0, :len(b_row)] = a_row, b_row
    return a, b


def test_term_exponents_clamp_subnormals_to_the_formats_minimum():
    # floor(log2|x|), at least 1 - bias (f16: -14; e2m3: 0; UE8M0, no subnormals: -127), and the
    # given zero exponent for zero.
    f16 = np.array([2.0**-24, 2.0**-15, 0.0, 1.5, -3.0, 65504.0], np.float32)
    assert term_exponents(f16, "f16", -21).tolist() == [-14, -14, -21, 0, 1, 15]
    e2m3 = np.array([0.125, 0.875, 1.0, -7.5], np.float32)
    assert term_exponents(e2m3, "e2m3", -133).tolist() == [0, 0, 0, 2]
    assert term_exponents(decode_ue8m0(np.array([0, 1, 127])), "ue8m0", -133).tolist() == [
        -127, -126, 0]


def test_zero_exponents_follow_mma_sim_per_kind_and_d_type():
    assert numerics.zero_exponent("tf32", "f32") == -133
    assert numerics.zero_exponent("f16", "f16") == -21
    assert numerics.zero_exponent("f8f6f4", "f16") == -21
    assert numerics.zero_exponent("mxf8f6f4", "f32") == -133
    assert numerics.zero_exponent("mxf4", "f32") == numerics.zero_exponent("mxf4nvf4", "f32") == -139


def test_a_subnormal_factor_raises_the_largest_exponent():
    # f16: 2^-24 (subnormal, exponent -14) * 2^15 = 2^-9 has term exponent -14 + 15 = 1, so the
    # quantum is 2^(1 - 25) = 2^-24 and 2^-10 * 2^-20 = 2^-30 truncates: D = 2^-9. (With the
    # subnormal's own exponent -24, emax = -9, the quantum 2^-34 keeps 2^-30: D = 2^-9 + 2^-30.)
    a, b = one_row([2.0**-24, 2.0**-10], [2.0**15, 2.0**-20], 16)
    got = fused_mma("f16", a, b, None, atype="f16", btype="f16", d_type="f32")
    assert got.tolist() == [[2.0**-9]]


def test_negative_f32_subnormal_result_rounds_toward_zero():
    # tf32: -1.5 * 2^-100 * 2^-49 = -1.5 * 2^-149 is kept by the quantum 2^-151 (emax = -126, the
    # zero C); toward zero it is -2^-149 (bits 0x80000001); to nearest-even -2^-148 (0x80000002).
    a, b = one_row([-1.5 * 2.0**-100], [2.0**-49], 8)
    got = fused_mma("tf32", a, b, None, atype="tf32", btype="tf32", d_type="f32")
    assert f32_bits(got) == [0x80000001]
    # A normal negative sum: -(1 + 2^-23 + 2^-24) truncates toward zero to -(1 + 2^-23).
    a, b = one_row([-1.0, -(2.0**-23), -(2.0**-24)], [1.0, 1.0, 1.0], 8)
    got = fused_mma("tf32", a, b, None, atype="tf32", btype="tf32", d_type="f32")
    assert got.tolist() == [[-(1.0 + 2.0**-23)]]


def test_scale_input_d_shifts_a_tiny_c_exactly():
    # tf32: 2^-65 * 2^-65 = 2^-130 plus C * 2^-15 with C = -3 * 2^-140 (an f32 subnormal, term
    # exponent -126 - 15 = -141): C * 2^-15 = -3 * 2^-155, below f32's range but exact in the
    # fused sum (quantum 2^(-130 - 25) = 2^-155). 2^-130 - 3 * 2^-155 truncated toward zero to f32
    # (subnormal quantum 2^-149) is 2^-130 - 2^-149: bits 0x00080000 - 1.
    a, b = one_row([2.0**-65], [2.0**-65], 8)
    c = np.array([[-3 * 2.0**-140]], np.float32)
    got = fused_mma("tf32", a, b, c, atype="tf32", btype="tf32", d_type="f32", c_shift=15)
    assert f32_bits(got) == [0x0007FFFF]


def test_scale_input_d_leaves_a_zero_cs_exponent_at_the_zero_exponent():
    # tf32, every product nonzero: 2^-75 * 2^-74 = 2^-149, -2^-80 * 2^-80 = -2^-160 and three
    # pairs +-2^-180; C = 0 with scale-input-d 15. The zero C keeps exponent -133 (a zero has no
    # exponent to shift), so emax = -133, the quantum is 2^-158 and -2^-160 truncates to 0:
    # D = 2^-149 (bits 0x00000001). (Shifted to -148, emax would be -148 and -2^-160 would be
    # kept: 2^-149 - 2^-160 toward zero = +0.)
    tiny = [2.0**-90, -(2.0**-90)] * 3
    a, b = one_row([2.0**-75, -(2.0**-80)] + tiny, [2.0**-74, 2.0**-80] + [2.0**-90] * 6, 8)
    got = fused_mma("tf32", a, b, np.zeros((1, 1), np.float32), atype="tf32", btype="tf32",
                    d_type="f32", c_shift=15)
    assert f32_bits(got) == [0x00000001]


def test_fp4_kinds_keep_an_infinite_c():
    # mxf4: zero products, C = +inf / -inf / 1 / 0: D = C (mmair's decision where MMA-Sim raises,
    # isa/tcgen05/numerics.py [inf]).
    a, b = np.zeros((2, 64), np.float32), np.zeros((2, 64), np.float32)
    ones_a, ones_b = np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)
    c = np.array([[np.inf, 1.0], [-np.inf, 0.0]], np.float32)
    got = fused_mma("mxf4", a, b, c, atype="e2m1", btype="e2m1", d_type="f32", scale_a=ones_a,
                    scale_b=ones_b, scale_type="ue8m0", block=32)
    assert got.tolist() == [[np.inf, 1.0], [-np.inf, 0.0]]


def test_fp4_kinds_align_group_terms_to_c_when_c_is_largest():
    # mxf4 (block 32, UE8M0 scales 2^-10 everywhere): group 0 sums 1 * -1 = -1, its term is
    # -1 * 2^-20 with alignment exponent -10 - 10 = -20; C = 2^30 has exponent 30 and is the
    # largest, so the quantum is 2^(30 - 35) = 2^-5 and the group term truncates to 0: D = 2^30.
    # (Aligned without C, at emax = -20, it would be kept: 2^30 - 2^-20 toward zero = 2^30 - 64.)
    a, b = one_row([1.0], [-1.0], 64)
    scales = np.full((1, 2), 2.0**-10, np.float32)
    got = fused_mma("mxf4", a, b, np.array([[2.0**30]], np.float32), atype="e2m1", btype="e2m1",
                    d_type="f32", scale_a=scales, scale_b=scales, scale_type="ue8m0", block=32)
    assert got.tolist() == [[2.0**30]]


def test_narrow_products_with_a_tiny_c_scale_by_a_finite_power_of_two():
    # f16 x f16, all products zero (term exponents -252) and C = 2^-103: emax = -103, so the
    # scale 2^(25 + 103) = 2^128 is beyond float32; the float32 path clips it (zeros times any
    # finite power of two are zero) and D = C exactly.
    a, b = np.zeros((2, 16), np.float32), np.zeros((3, 16), np.float32)
    c = np.full((2, 3), 2.0**-103, np.float32)
    got = fused_mma("f16", a, b, c, atype="f16", btype="f16", d_type="f32")
    assert got.tolist() == [[2.0**-103] * 3] * 2


def test_extreme_scale_on_b_does_not_overflow():
    # mxf8f6f4: A = 1 with scale 2^-127, B = e4m3 448 with scale 2^127 (the mirror of
    # test_tcgen05_exact's A-side case): the scaled B operand 448 * 2^127 overflows float32, the
    # exact product is 448.
    a, b = one_row([1.0], [448.0], 32)
    got = fused_mma("mxf8f6f4", a, b, None, atype="e4m3", btype="e4m3", d_type="f32",
                    scale_a=np.array([[2.0**-127]], np.float32),
                    scale_b=np.array([[2.0**127]], np.float32), scale_type="ue8m0", block=32)
    assert got.tolist() == [[448.0]]


def test_special_values_follow_ieee_sums_of_the_products():
    # Every sign of inf times a positive, negative and zero factor, on either side, and a +inf and
    # a -inf product together: D is NaN, +inf or -inf exactly as the float64 (IEEE) sum of the
    # products says (isa/tcgen05/numerics.py "Special values"), NaN as the canonical f32 NaN.
    specials = [np.inf, -np.inf, 2.0, -2.0, 0.0]
    a = np.zeros((len(specials) + 1, 16), np.float32)
    b = np.zeros((len(specials) + 1, 16), np.float32)
    for i, value in enumerate(specials):
        a[i, 0] = b[i, 0] = value
    a[-1, :2], b[-1, :2] = [np.inf, np.inf], [1.0, -1.0]  # +inf + -inf in one dot product
    with np.errstate(invalid="ignore"):
        ieee = a.astype(np.float64) @ b.T.astype(np.float64)
    got = fused_mma("f16", a, b, None, atype="f16", btype="f16", d_type="f32")
    special = ~np.isfinite(ieee)
    # NaN: +-inf * 0 either way (4 cells), and all of row 5: its second inf meets a zero in
    # columns 0-4, and +inf - inf in column 5. The other 14 cells with an inf factor are +-inf.
    assert np.isnan(ieee).sum() == 10 and np.isinf(ieee).sum() == 14
    assert (got.view(np.uint32)[np.isnan(ieee)] == 0x7FFFFFFF).all()
    np.testing.assert_array_equal(got[np.isinf(ieee)], ieee[np.isinf(ieee)])
    np.testing.assert_array_equal(got[~special], ieee[~special])


def test_a_nan_scale_of_mxf8f6f4_makes_its_row_the_canonical_nan():
    # mxf8f6f4 (block 32): row 1's scale is NaN (UE8M0 0xFF), inputs are finite: D's row 1 is
    # the canonical NaN, the other rows are the plain products 1 * 1.
    a, b = np.ones((3, 32), np.float32), np.ones((2, 32), np.float32)
    scale_a, scale_b = np.ones((3, 1), np.float32), np.ones((2, 1), np.float32)
    scale_a[1, 0] = np.nan
    got = fused_mma("mxf8f6f4", a, b, None, atype="e4m3", btype="e4m3", d_type="f32",
                    scale_a=scale_a, scale_b=scale_b, scale_type="ue8m0", block=32)
    assert (got.view(np.uint32)[1] == 0x7FFFFFFF).all()
    assert got[[0, 2]].tolist() == [[32.0, 32.0], [32.0, 32.0]]
