"""The Mmad's numeric modes from the CTRL register: TF32 input rounding and float saturation.

PTOAS's VPTO `mad` family spells them as clauses (`tf32_mode(round_even | round_away)`,
`sat` / `nosat`); its semantic-to-raw expansion sets CTRL bits 46/47 (TF32 enable / round away)
and 48 (saturation off) around the raw Mmad (PTOAS docs/designs/mad-semantic-op-design.md).
pto-isa docs/isa/cube/ops/mad/mad.md gives the arithmetic:

* `tf32_mode`: only f32 x f32 -> f32. The f32 inputs are rounded to TF32 precision (10 stored
  mantissa bits, f32's exponent) before the multiply; accumulation and output stay f32.
  `round_even` rounds to nearest, ties to even; `round_away` to nearest, ties away from zero
  (PTOAS's goldens spell both out on the f32 bits: test/vpto/cases/micro-op/cube-matmul/
  mad_tf32_round_away/golden.py, `bits + 0xFFF + lsb` and `bits + 0x1000`, then the low 13 bits
  cleared).
* `sat` (float combinations only): exceptional inputs are normalised before the arithmetic
  (+-inf -> the input type's finite extremes, nan -> 0) and a finite overflow of the result
  saturates to the f32 range (PTOAS's golden for `sat`, cube-matmul/mad_f32f32f32/golden.py:
  nan_to_num on the inputs, the f64 product clipped to +-f32 max). `nosat` keeps IEEE propagation (inf / nan in, inf / nan out), which
  is also what mmair does when neither clause is given (the mode "selected outside this op":
  mmair does not model a CTRL register carried between ops).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported by the functions: the verifiers import this module's names
    import numpy as np  # at parse time, which must not load numpy (tests/unit/executor/test_perf_caches.py)

TF32_MODES: tuple[str, ...] = ("round_even", "round_away")
SAT_MODES: tuple[str, ...] = ("sat", "nosat")
TF32_DROPPED_MANTISSA_BITS = 13  # f32 keeps 23 mantissa bits, TF32 10
TF32_ELEMENTS: tuple[str, str, str] = ("f32", "f32", "f32")

_LOW = (1 << TF32_DROPPED_MANTISSA_BITS) - 1
_HALF = 1 << (TF32_DROPPED_MANTISSA_BITS - 1)
_KEEP = 0xFFFFFFFF & ~_LOW


def round_tf32(x: np.ndarray, mode: str) -> np.ndarray:
    """f32 values rounded to TF32 precision (still f32): to nearest, ties to even (`round_even`)
    or away from zero (`round_away`). inf and nan pass unchanged; a value that rounds past the
    largest finite TF32 value becomes inf, as any round-to-nearest does."""
    if mode not in TF32_MODES:
        raise ValueError(f"tf32 mode {mode!r} not in {TF32_MODES}")
    import numpy as np

    shape = np.shape(x)
    f = np.array(x, dtype=np.float32).reshape(-1)  # 1-d: uint32 array arithmetic wraps silently
    bits = f.view(np.uint32)
    low = bits & np.uint32(_LOW)
    if mode == "round_even":
        odd = (bits >> np.uint32(TF32_DROPPED_MANTISSA_BITS)) & np.uint32(1)
        up = (low > np.uint32(_HALF)) | ((low == np.uint32(_HALF)) & (odd == 1))
    else:
        up = low >= np.uint32(_HALF)
    # adding one unit of the kept mantissa carries into the exponent when it must (sign-magnitude)
    rounded = (bits & np.uint32(_KEEP)) + np.where(up, np.uint32(1 << TF32_DROPPED_MANTISSA_BITS),
                                        np.uint32(0)).astype(np.uint32)
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isfinite(f), out, f).reshape(shape)


def finite_max(element: str) -> float:
    """The largest finite value of an Mmad input element type (`sat` maps +-inf to it)."""
    import ml_dtypes
    import numpy as np

    from mmair.isa.dtypes import numpy_dtype

    if element == "hif8":
        from mmair.isa.ascend.hif8 import decode_hif8

        values = decode_hif8(np.arange(256, dtype=np.uint8)).astype(np.float64)
        return float(np.max(values[np.isfinite(values)]))
    return float(ml_dtypes.finfo(numpy_dtype(element)).max)


def saturate_inputs(x: np.ndarray, finite_max: float) -> np.ndarray:
    """`sat`'s input normalisation: +-inf -> +-finite_max (the input type's extremes), nan -> 0."""
    import numpy as np

    return np.nan_to_num(x, nan=0.0, posinf=finite_max, neginf=-finite_max)


def saturate_result(x: np.ndarray) -> np.ndarray:
    """`sat`'s result: a finite overflow saturates to the f32 range (no inf, no nan)."""
    import numpy as np

    big = float(np.finfo(np.float32).max)
    return np.clip(np.nan_to_num(x, nan=0.0, posinf=big, neginf=-big), -big, big)


def mmad_inputs(a: np.ndarray, b: np.ndarray, tf32_mode: str | None,
                sat_max: tuple[float, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """The Mmad's operands as the multiply sees them: `sat` normalisation (sat_max = the lhs /
    rhs types' finite maxima), then TF32 rounding. Unchanged when neither mode is set."""
    if sat_max is not None:
        a, b = saturate_inputs(a, sat_max[0]), saturate_inputs(b, sat_max[1])
    if tf32_mode is not None:
        a, b = round_tf32(a, tf32_mode), round_tf32(b, tf32_mode)
    return a, b


def sat_maxima(sat: str | None, lhs: str, rhs: str) -> tuple[float, float] | None:
    """The `sat_max` of `mmad_inputs` for an op's sat clause (None unless it is `sat`)."""
    return (finite_max(lhs), finite_max(rhs)) if sat == "sat" else None


__all__ = [
    "SAT_MODES",
    "TF32_DROPPED_MANTISSA_BITS",
    "TF32_ELEMENTS",
    "TF32_MODES",
    "finite_max",
    "mmad_inputs",
    "sat_maxima",
    "round_tf32",
    "saturate_inputs",
    "saturate_result",
]
