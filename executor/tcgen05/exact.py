"""Exact mode of the tcgen05 executor: the tensor core's fused dot product, vectorised with numpy.

The model and its sources are in `mmair.isa.tcgen05.numerics` (MMA-Sim, arXiv:2511.10909). This
module evaluates it for whole tiles without per-element Python loops:

* term exponents come from `np.frexp` of the exactly decoded inputs, clamped to each format's
  minimum exponent (subnormals); a zero term (a product with a zero factor, an all-zero fp4 group,
  a zero C) has the kind's fixed zero exponent (`zero_exponent`);
* `emax[m, n]` is a max-plus product of the exponent matrices, taken over (rows, N, K) int16 blocks,
  raised to the zero exponent where some product is zero (a 0/1 matmul counts the nonzero ones);
* a product of two tcgen05 inputs (and its power-of-two or 4-bit scale significands) is exact in
  float64, and so is its scaling by `2**(F - emax)`: `trunc` of that is the term truncated to F bits
  below `2**emax`, an integer below 2**(F + 2 + log2 K), so the float64 sums of the terms are exact
  (< 2**53) in any order;
* the exact sum times `2**(emax - F)` is an exact float64, rounded once to D: toward zero for f32
  (the float64 fraction bits below f32's precision cleared), to nearest-even for f16 (numpy's
  float64 -> float16 conversion rounds the double directly); a zero result is then made +0;
* NaN and inf follow the float64 sum of the products and C, computed from indicator matrices only
  when some input is not finite.
"""

from __future__ import annotations

import numpy as np

from mmair.isa.tcgen05.numerics import (
    CANONICAL_NAN_BITS,
    FORMATS,
    MXF4_GROUP,
    fraction_bits,
    zero_exponent,
)

#: Output rows per block of the (K, rows, N) temporaries: 1 MiB of float64 for N = 256, K = 32.
_ROW_BLOCK = 16

_CANONICAL_NAN = {
    "f32": np.array(CANONICAL_NAN_BITS["f32"], dtype=np.uint32).view(np.float32),
    "f16": np.array(CANONICAL_NAN_BITS["f16"], dtype=np.uint16).view(np.float16),
}


def _pow2(exponents: np.ndarray) -> np.ndarray:
    """2.0**e for integer arrays with -1022 <= e <= 1023, built from the float64 bit pattern
    (exact, and far faster than `np.ldexp` with an int64 exponent array)."""
    return ((exponents.astype(np.int64) + 1023) << 52).view(np.float64)


#: Exponent given to a zero factor: a product with one stays far below every real term exponent
#: (|e| < 700) and the sum of two still fits int16; `emax` adds the zero exponent separately.
_NO_TERM = np.int16(-16000)


def term_exponents(values: np.ndarray, format_name: str, zero: int) -> np.ndarray:
    """MMA-Sim exponents (int16) of finite values of a format: floor(log2|x|), at least the format's
    minimum exponent (subnormals), and `zero` for zeros."""
    _, e = np.frexp(values)
    e = e.astype(np.int16)
    e -= 1
    np.maximum(e, FORMATS[format_name].min_exponent, out=e)
    e[values == 0] = zero
    return e


def _finite(values: np.ndarray) -> np.ndarray:
    """A copy with non-finite entries replaced by 0 (their effect is applied separately)."""
    out = np.array(values)
    out[~np.isfinite(out)] = 0.0
    return out


def _special_dense(a: np.ndarray, b: np.ndarray, c: np.ndarray,
                   nan_rows: np.ndarray, nan_cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nan, inf_sign) of the float64 sum of products a[m] . b[n] + c[m, n] (IEEE rules).

    a (M, K), b (N, K), c (M, N) may hold inf/NaN; nan_rows/nan_cols add NaN scale factors. The
    decisions are boolean matmuls: NaN from a NaN input, inf * 0, or +inf and -inf terms together.
    """
    f = np.float32  # mutation: skip (0/1 indicator sums <= K: exact in f32 and f64)

    def ind(x: np.ndarray) -> np.ndarray:
        return x.astype(f)

    a_nan, b_nan = np.isnan(a).any(axis=1) | nan_rows, np.isnan(b).any(axis=1) | nan_cols
    a_pinf, a_ninf = ind(a == np.inf), ind(a == -np.inf)
    b_pinf, b_ninf = ind(b == np.inf), ind(b == -np.inf)
    a_pos, a_neg, a_zero = ind(a > 0), ind(a < 0), ind(a == 0)
    b_pos, b_neg, b_zero = ind(b > 0), ind(b < 0), ind(b == 0)
    inf_times_zero = (a_pinf + a_ninf) @ b_zero.T + a_zero @ (b_pinf + b_ninf).T
    pos = a_pinf @ b_pos.T + a_ninf @ b_neg.T + a_pos @ b_pinf.T + a_neg @ b_ninf.T
    neg = a_pinf @ b_neg.T + a_ninf @ b_pos.T + a_pos @ b_ninf.T + a_neg @ b_pinf.T
    pos = (pos > 0) | (c == np.inf)
    neg = (neg > 0) | (c == -np.inf)
    nan = a_nan[:, None] | b_nan[None, :] | np.isnan(c) | (inf_times_zero > 0) | (pos & neg)
    return nan, np.where(pos, 1, np.where(neg, -1, 0))


def _round_to_d(value: np.ndarray, d_type: str) -> np.ndarray:
    """Round exact float64 results once to D (toward zero for f32, to nearest-even for f16); a zero
    result is +0 (MMA-Sim adds +0.0 after rounding: a negative sum that rounds to zero gives +0)."""
    with np.errstate(over="ignore"):  # beyond D's range: +-inf, as MMA-Sim's final conversion
        if d_type == "f16":
            rounded = value.astype(np.float16)  # round to nearest-even
            rounded += np.float16(0.0)
            return rounded
        # Toward zero: clear the float64 fraction bits below f32's precision (29 bits for a normal
        # f32, more below 2**-126 where f32 keeps multiples of 2**-149); the rest converts exactly.
        bits = value.view(np.uint64)
        biased = (bits >> np.uint64(52)) & np.uint64(0x7FF)
        gap = np.int64(1023 - 126) - biased.astype(np.int64)  # mutation: skip (ints < 2**12)
        below = np.clip(gap, 0, 34)
        shift = (below + 29).astype(np.uint64)
        kept = bits & ~((np.uint64(1) << shift) - np.uint64(1))
        rounded = kept.view(np.float64).astype(np.float32)
        rounded += np.float32(0.0)
        return rounded


def _apply_special(result: np.ndarray, nan: np.ndarray | None, inf_sign: np.ndarray | None,
                   d_type: str) -> np.ndarray:
    if inf_sign is not None:
        result[inf_sign > 0] = np.inf
        result[inf_sign < 0] = -np.inf
    if nan is not None:
        result[nan] = _CANONICAL_NAN[d_type]
    return result


def fused_mma(
    kind: str,
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray | None,
    *,
    atype: str,
    btype: str,
    d_type: str,
    c_shift: int = 0,
    scale_a: np.ndarray | None = None,
    scale_b: np.ndarray | None = None,
    scale_type: str | None = None,
    block: int | None = None,
) -> np.ndarray:
    """D = A x B + C of one tcgen05.mma in the fused dot-product model.

    a: (M, K) and b: (N, K) exactly decoded element values (negation and masks applied); c: (M, N)
    values of D's type or None (+0); `c_shift` is scale-input-d (C * 2**-c_shift, exact). Block-
    scaled kinds pass decoded scales (M, K // block) and (N, K // block) of `scale_type`. Returns
    float32 (f32 D) or float16 (f16 D) with canonical NaNs.
    """
    frac = fraction_bits(kind)
    e_zero = zero_exponent(kind, d_type)
    m, n = a.shape[0], b.shape[0]
    c_values = np.zeros((m, n)) if c is None else np.asarray(c, dtype=np.float64)
    finite = bool(np.isfinite(a).all() and np.isfinite(b).all() and np.isfinite(c_values).all())
    a64, b64, c64 = (_finite(a), _finite(b), _finite(c_values)) if not finite else (
        np.asarray(a), np.asarray(b), c_values)  # (exact in their own float32/float64 dtype)
    ec = term_exponents(c64, d_type, e_zero)  # C's own format decides its subnormal exponent
    if c_shift:  # scale-input-d: C * 2**-shift, an exact exponent shift of a nonzero C
        ec = np.where(c64 == 0, ec, ec - c_shift).astype(np.int16)
        c64 = np.ldexp(c64, -c_shift)
    nan: np.ndarray | None = None
    inf_sign: np.ndarray | None = None
    if scale_a is None or scale_b is None:
        if not finite:
            nan, inf_sign = _special_dense(np.asarray(a), np.asarray(b), c_values,
                                           np.zeros(m, bool), np.zeros(n, bool))
        value = _fused_products(a64, b64, c64, term_exponents(a64, atype, _NO_TERM),
                                term_exponents(b64, btype, _NO_TERM), ec, frac, e_zero,
                                narrow=atype in _NARROW and btype in _NARROW)
    else:
        assert scale_type is not None and block is not None
        sa_nan, sb_nan = np.isnan(scale_a).any(axis=1), np.isnan(scale_b).any(axis=1)
        # A NaN scale's whole row (column) of D becomes the canonical NaN (sa_nan, sb_nan), so
        # what its products compute is overwritten: 1.0 only keeps NaN out of the arithmetic.
        sa = np.where(np.isnan(scale_a), 1.0, scale_a)  # mutation: skip (overwritten by NaN)
        sb = np.where(np.isnan(scale_b), 1.0, scale_b)  # mutation: skip (overwritten by NaN)
        sa, sb = sa.astype(np.float64), sb.astype(np.float64)
        esa, esb = term_exponents(sa, scale_type, _NO_TERM), term_exponents(sb, scale_type, _NO_TERM)
        if kind == "mxf8f6f4":
            if not finite or sa_nan.any() or sb_nan.any():
                nan, inf_sign = _special_dense(np.asarray(a), np.asarray(b), c_values,
                                               sa_nan, sb_nan)
            ea = term_exponents(a64, atype, 0) + np.repeat(esa, block, axis=1)
            eb = term_exponents(b64, btype, 0) + np.repeat(esb, block, axis=1)
            a_scaled = a64 * np.repeat(sa, block, axis=1)  # exact: power-of-two scales, never 0
            b_scaled = b64 * np.repeat(sb, block, axis=1)
            value = _fused_products(a_scaled, b_scaled, c64, ea, eb, ec, frac, e_zero)
        else:  # mxf4, mxf4nvf4: exact sums of groups of 16 products, then scaled terms
            nan = sa_nan[:, None] | sb_nan[None, :] | np.isnan(c_values)
            inf_sign = np.where(c_values == np.inf, 1, np.where(c_values == -np.inf, -1, 0))
            value = _fused_groups(a64, b64, c64, sa, sb, esa, esb, ec, block, frac, e_zero)
    return _apply_special(_round_to_d(value, d_type), nan, inf_sign, d_type)


#: Formats whose products are exact in float32 with exponents in [-32, 32]: the product terms of
#: two of them can be scaled and truncated in float32 (half the memory traffic of float64).
_NARROW = frozenset({"f16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1"})


def _fused_products(a: np.ndarray, b: np.ndarray, c: np.ndarray, ea: np.ndarray, eb: np.ndarray,
                    ec: np.ndarray, frac: int, e_zero: int, narrow: bool = False) -> np.ndarray:
    """The exact fused sums (float64) of the truncated product terms and C.

    ea / eb are the exponents of the nonzero elements (zero elements are masked here); a zero
    product is a term of exponent `e_zero`, and `ec` already gives a zero C that exponent.

    Temporaries are (K, rows, N): reductions over the leading axis are elementwise maxima and sums
    of whole (rows, N) planes, which numpy vectorises far better than a short last axis; the 2-D
    work (scales, C, the final division) is done once for the whole tile.

    `narrow` (both operands in `_NARROW`, no block scales): a nonzero product is below 2**33 and its
    MMA-Sim exponent is at least -28, so emax >= -28 whenever one exists and 2**(F - emax) <= 2**53
    is a float32 (the f16 zero exponent -21 only raises emax); product * scale is then exact in
    float32 unless it falls below 2**-126, where it truncates to 0 anyway, and a truncated term is
    an integer below 2**(F + 2) = 2**27, so the float32 -> int32 conversion (which truncates toward
    zero) is the truncation. Where every product is zero the clipped scale only multiplies zeros.
    C uses the exact float64 scale.
    """
    m, n = c.shape
    k = a.shape[1]
    # (mutation: narrow is a speed path: the float64 products and scaling are exact too)
    work_dtype = np.float32 if narrow else np.float64  # mutation: skip (see above)
    a_t = np.ascontiguousarray(a.T, dtype=work_dtype)  # (K, M)
    b_t = np.ascontiguousarray(b.T, dtype=a_t.dtype)  # (K, N)
    ea_t = np.where(a_t == 0, _NO_TERM, ea.T).astype(np.int16)
    eb_t = np.where(b_t == 0, _NO_TERM, eb.T).astype(np.int16)
    emax = np.maximum.reduce(ea_t[:, :, None] + eb_t[:, None, :], axis=0)  # (M, N) int16
    nonzero_products = (a_t != 0).T.astype(np.float32) @ (b_t != 0).astype(np.float32)
    emax = np.where(nonzero_products < k, np.maximum(emax, np.int16(e_zero)), emax)
    np.maximum(emax, ec, out=emax)
    shift = frac - emax.astype(np.int64)
    scale = _pow2(shift)  # 2**(F - emax), float64
    if narrow:
        scale_work = ((np.minimum(shift, 127) + 127) << 23).astype(np.int32).view(np.float32)
        integers = np.empty((k, _ROW_BLOCK, n), dtype=np.int32)  # mutation: skip (the int64 reduction truncates floats as int32 does)
    else:
        scale_work = scale
    terms = np.empty((k, _ROW_BLOCK, n), dtype=a_t.dtype)
    total = np.empty((m, n), dtype=np.float64)  # exact: integers below 2**53
    for r0 in range(0, m, _ROW_BLOCK):
        r1 = min(r0 + _ROW_BLOCK, m)
        block = terms[:, :r1 - r0]
        np.multiply(a_t[:, r0:r1, None], b_t[:, None, :], out=block)  # exact products
        block *= scale_work[r0:r1]  # exact: a power of two
        if narrow:
            whole = integers[:, :r1 - r0]
            whole[...] = block  # float32 -> int32 truncates toward zero
            np.add.reduce(whole, axis=0, dtype=np.int64, out=total[r0:r1])
        else:
            np.trunc(block, out=block)  # truncate toward zero, F bits below 2**emax
            np.add.reduce(block, axis=0, out=total[r0:r1])  # exact: integers below 2**53
    return (total + np.trunc(c * scale)) / scale  # exact, in units of 2**(emax - F)


def _fused_groups(a: np.ndarray, b: np.ndarray, c: np.ndarray, sa: np.ndarray, sb: np.ndarray,
                  esa: np.ndarray, esb: np.ndarray, ec: np.ndarray, block: int,
                  frac: int, e_zero: int) -> np.ndarray:
    """mxf4/mxf4nvf4: groups of MXF4_GROUP products summed exactly, scaled, aligned by the scale
    exponents (`e_zero` for a group whose products are all zero or whose scale product is zero),
    truncated and summed exactly with C."""
    m, k = a.shape
    groups = k // MXF4_GROUP
    per_scale = block // MXF4_GROUP
    # (groups, M, N) exact group sums: e2m1 products are multiples of 1/4 below 36.
    sums = np.einsum("mgk,ngk->gmn", a.reshape(m, groups, MXF4_GROUP),
                     b.reshape(b.shape[0], groups, MXF4_GROUP))
    sa_g, sb_g = np.repeat(sa, per_scale, axis=1), np.repeat(sb, per_scale, axis=1)
    e_groups = (np.repeat(esa, per_scale, axis=1).T[:, :, None]
                + np.repeat(esb, per_scale, axis=1).T[:, None, :])  # (groups, M, N)
    nonzero_products = np.einsum("mgk,ngk->gmn", (a != 0).reshape(m, groups, MXF4_GROUP),
                                 (b != 0).reshape(b.shape[0], groups, MXF4_GROUP), dtype=np.int32)
    scale_products = sa_g.T[:, :, None] * sb_g.T[:, None, :]  # exact: 4-bit scale significands
    e_groups = np.where((nonzero_products == 0) | (scale_products == 0), np.int16(e_zero), e_groups)
    emax = np.maximum(np.maximum.reduce(e_groups, axis=0), ec)
    scale = _pow2(frac - emax)  # int16 exponents (|frac - emax| <= 219): _pow2 widens them
    terms = sums * scale_products
    terms *= scale[None]
    np.trunc(terms, out=terms)
    return (np.add.reduce(terms, axis=0) + np.trunc(c * scale)) / scale


__all__ = ["fused_mma", "term_exponents"]
