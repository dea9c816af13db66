"""HiFloat8 (`hif8`, Ascend 950 cube operand type): the value of each of the 256 bit patterns.

HiF8 is an 8-bit float with tapered precision: after the sign bit a prefix-coded "dot" field says
how many exponent bits follow (0 to 4), and the rest of the byte is mantissa:

| dot (bits 6..)  | exponent bits | mantissa bits | exponents E            |
|-----------------|---------------|---------------|------------------------|
| `11`            | 4             | 1             | +-8 .. +-15            |
| `10`            | 3             | 2             | +-4 .. +-7             |
| `01`            | 2             | 3             | +-2, +-3               |
| `001`           | 1             | 3             | +-1                    |
| `0001`          | 0             | 3             | 0                      |
| `0000`          | denormal      | 3 (M)         | value 2^(M - 23), M > 0 |

The exponent is sign-magnitude: its first stored bit is the sign (1 = negative), and the
magnitude's leading 1 is implicit (with D exponent bits the magnitude is 2^(D-1) + the D-1 stored
bits). A normal value is (-1)^S * 2^E * 1.M. Specials: 0x00 is zero, 0x80 NaN, 0x6F / 0xEF
(+-2^15 * 1.5) are +-infinity, so the largest finite magnitude is 2^15 and the smallest 2^-22.

Sources: Y. Luo et al., "Ascend HiFloat8 Format for Deep Learning", arXiv:2409.16626 (2024),
§2 and Table 4; MindSpore `mindspore/core/base/hifloat8.h` (`HiFloat8::ToFloat32`, Apache-2.0),
whose decoder this table reproduces bit for bit (tests/unit/isa/ascend/test_hif8.py).
"""

from __future__ import annotations

import math

import numpy as np

HIF8_NAN = 0x80
HIF8_INF = 0x6F
HIF8_MAX = 2.0**15
HIF8_MIN_SUBNORMAL = 2.0**-22

# dot prefix -> (prefix length, exponent bits, mantissa bits), in decoding order
_DOTS: tuple[tuple[int, int, int, int], ...] = (
    # (prefix value, prefix bits, exponent bits, mantissa bits)
    (0b11, 2, 4, 1),
    (0b10, 2, 3, 2),
    (0b01, 2, 2, 3),
    (0b001, 3, 1, 3),
    (0b0001, 4, 0, 3),
)


def hif8_value(code: int) -> float:
    """The value of the HiF8 byte `code` (module docstring)."""
    if not 0 <= code <= 0xFF:
        raise ValueError(f"a HiF8 code is a byte, got {code}")
    sign = -1.0 if code & 0x80 else 1.0
    body = code & 0x7F
    if code == HIF8_NAN:
        return math.nan
    if body == HIF8_INF:
        return sign * math.inf
    for prefix, prefix_bits, exp_bits, man_bits in _DOTS:
        if body >> (7 - prefix_bits) == prefix:
            rest = body & ((1 << (7 - prefix_bits)) - 1)
            mantissa = rest & ((1 << man_bits) - 1)
            exponent = 0
            if exp_bits:
                field = rest >> man_bits
                negative = field >> (exp_bits - 1)
                magnitude = (1 << (exp_bits - 1)) + (field & ((1 << (exp_bits - 1)) - 1))
                exponent = -magnitude if negative else magnitude
            return sign * math.ldexp(1.0 + mantissa / (1 << man_bits), exponent)
    mantissa = body  # dot 0000 (no prefix matched: body < 8): denormal 2^(M - 23); M = 0 is zero
    return 0.0 if mantissa == 0 else sign * math.ldexp(1.0, mantissa - 23)


HIF8_VALUES: np.ndarray = np.array([hif8_value(c) for c in range(256)], dtype=np.float64)
HIF8_VALUES.flags.writeable = False


def decode_hif8(codes: np.ndarray) -> np.ndarray:
    """float64 values of an array of HiF8 bytes (any integer dtype)."""
    return HIF8_VALUES[np.asarray(codes).astype(np.uint8)]


def encode_hif8_exact(values: np.ndarray) -> np.ndarray:
    """The HiF8 bytes of `values`, every one of which must be a HiF8 value (or NaN); raises
    ValueError naming the first one that is not (no rounding mode is modelled here)."""
    values = np.asarray(values, dtype=np.float64)
    codes = np.full(values.shape, HIF8_NAN, dtype=np.uint8)
    finite = ~np.isnan(values)
    order = np.argsort(HIF8_VALUES[:0x80])  # the non-negative codes, by value
    positive = HIF8_VALUES[:0x80][order]
    magnitude = np.abs(values[finite])
    # `positive` ends with +inf (0x6F), so no non-NaN magnitude sorts past its last index
    where = np.searchsorted(positive, magnitude)
    exact = positive[where] == magnitude
    if not exact.all():
        bad = float(values[finite][~exact][0])
        raise ValueError(f"{bad!r} is not a HiF8 value")
    found = order[where].astype(np.uint8)
    # -0.0 is not < 0: it stays code 0x00 (0x80 is NaN, not -0)
    found = np.where(values[finite] < 0, found | 0x80, found)
    codes[finite] = found
    return codes
