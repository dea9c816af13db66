"""The tolerance of a reference value: how far the executor's result may lie from the numpy
reference of `mmair-run --check-numpy` (module docstring of `mmair.executor.reference`), shared by
the Ascend and the tcgen05 references."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.ir import Operation

from mmair.executor.engine.errors import ExecutionError
from mmair.isa.dtypes import FLOAT_ELEMENTS

F32_EPS = float(np.finfo(np.float32).eps)


class ReferenceError(ExecutionError):
    """The kernel uses something the reference does not model (`.op` is the op, when known)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message, op)



@dataclass
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0

    def widen(self, rtol: float, atol: float) -> None:
        self.rtol = max(self.rtol, rtol)
        self.atol = max(self.atol, atol)


def output_tolerance(dtype: np.dtype, element_in: str, values: np.ndarray, magnitude: np.ndarray,
                      products: int, quantized: bool, input_error: float = 0.0) -> tuple[float, float]:
    """(rtol, atol) for a block of reference `values` stored as `dtype` (module docstring).

    Float outputs: the executor's result differs from the float64 one by the accumulation error,
    at most K * eps(f32) * sum|a*b| (`magnitude`), and then both are rounded to the output type,
    which can differ by one unit in the last place: rtol = 2 eps(out), atol = the accumulation
    bound plus the smallest subnormal (for results that round to zero). Integer outputs are exact,
    or within 1 after a scaled (quantizing) conversion, which may round a .5 the other way.
    `input_error` adds the accumulator's own bound (operands that went through a Fixpipe into a
    tile, `LogicalTile.error`)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return 0.0, 1.0 if quantized else 0.0
    info = ml_dtypes.finfo(dtype)
    acc_eps = F32_EPS if element_in in FLOAT_ELEMENTS or element_in == "hif8" else 0.0
    bound = float(np.max(magnitude)) if magnitude.size else 0.0
    return 2 * float(info.eps), products * acc_eps * bound + input_error \
        + float(info.smallest_subnormal)
