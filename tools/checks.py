"""`mmair-run --check` / `--check-numpy`: an output against its expected values, elementwise.

An element passes when |got - ref| <= atol + rtol * |ref| (NaN matches NaN). A `Check` says the
rule, the tolerances, the max abs and rel errors and how many elements failed; a failed one also
names the first differing elements in row-major order (`FIRST_SHOWN` of them: their indices, the
value got and the value expected), in the text line and in `--json` (`"first"`). The relative
error is undefined where the reference is 0 or not finite; when no element has a finite nonzero
reference the line says which case it is (all zero, all NaN, or zero / NaN / inf) instead of a
number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

FIRST_SHOWN = 3
"""Differing elements a failed check lists."""


@dataclass
class Difference:
    """One element outside the tolerance."""

    index: list[int]
    got: float
    expected: float

    def text(self) -> str:
        return f"[{', '.join(map(str, self.index))}] got {self.got:.6g}, expected {self.expected:.6g}"


@dataclass
class Check:
    """One comparison of an output with its expected values."""

    label: str
    ok: bool
    rtol: float
    atol: float
    max_abs: float | None = None
    max_rel: float | None = None
    """None when no reference element is finite and nonzero (the relative error is undefined)."""
    failed: int = 0
    elements: int = 0
    note: str = ""
    no_rel: str = "reference all zero"
    """Why `max_rel` is None: "reference all zero", "reference all NaN", ..."""
    first: list[Difference] = field(default_factory=list)
    """The first differing elements (row-major), at most `FIRST_SHOWN`."""

    def line(self) -> str:
        if self.max_abs is None:
            return f"check {self.label}: {self.note}: FAILED"
        rel = f"n/a ({self.no_rel})" if self.max_rel is None else f"{self.max_rel:.6g}"
        verdict = "ok" if self.ok else f"FAILED ({self.failed} of {self.elements} elements)"
        text = (f"check {self.label}: max abs error {self.max_abs:.6g}, max rel error {rel}; "
                f"pass if |got - ref| <= atol + rtol * |ref| with rtol {self.rtol:g}, "
                f"atol {self.atol:g}: {verdict}")
        if self.first:
            more = ", ..." if self.failed > len(self.first) else ""
            text += (f"; first difference{'s' if len(self.first) > 1 else ''} at "
                     f"{'; '.join(d.text() for d in self.first)}{more}")
        return text


def default_tolerances(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) of --check for an output type: two units in the last place of a float type
    (its rounding after an f32 accumulation; f32/f64 at least 1e-5 / 1e-12 for the summation
    order), one unit for integers (a different rounding at a .5 boundary)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        return 0.0, 1.0 if dtype.kind != "b" else 0.0
    try:
        eps = float(ml_dtypes.finfo(dtype).eps)
    except ValueError:  # raw-bit containers (hif8)
        return 0.0, 0.0
    floor = {4: 1e-5, 8: 1e-12}.get(dtype.itemsize, 0.0)
    tol = max(2 * eps, floor)
    return tol, tol


def _no_rel(y: np.ndarray) -> str:
    """Why no element gives a relative error (no finite nonzero reference)."""
    if y.size == 0:
        return "no elements"
    if np.all(np.isnan(y)):
        return "reference all NaN"
    if np.all(y == 0):
        return "reference all zero"
    return "reference only zero, NaN or inf"


def compare(label: str, got: np.ndarray, expected: np.ndarray, rtol: float | None,
            atol: float | None) -> Check:
    """Check `got` against `expected` elementwise: |got - ref| <= atol + rtol * |ref|."""
    d_rtol, d_atol = default_tolerances(got.dtype)
    r = d_rtol if rtol is None else rtol
    a = d_atol if atol is None else atol
    if got.shape != expected.shape:
        return Check(label, False, r, a, note=(
            f"shape {'x'.join(map(str, got.shape)) or 'scalar'} differs from the expected "
            f"{'x'.join(map(str, expected.shape)) or 'scalar'}"))
    diff, bad = differences(got, expected, r, a)
    max_abs = float(np.max(diff)) if diff.size else 0.0
    y = expected.astype(np.float64)
    usable = np.isfinite(y) & (y != 0)
    max_rel = float(np.max(diff[usable] / np.abs(y[usable]))) if np.any(usable) else None
    failed = int(bad.sum())
    x = got.astype(np.float64)
    first = [Difference([int(i) for i in index], float(x[index]), float(y[index]))
             for index in (tuple(ix) for ix in np.argwhere(bad)[:FIRST_SHOWN])]
    return Check(label, failed == 0, r, a, max_abs, max_rel, failed, int(bad.size),
                 no_rel=_no_rel(y) if max_rel is None else "", first=first)


def differences(got: np.ndarray, expected: np.ndarray, rtol: float,
                atol: float) -> tuple[np.ndarray, np.ndarray]:
    """(|got - expected|, 0 where both are NaN or the same inf, the elements outside atol + rtol * |expected|)."""
    x = got.astype(np.float64)
    y = expected.astype(np.float64)
    same = (np.isnan(x) & np.isnan(y)) | (x == y)  # NaN matches NaN, inf matches inf
    with np.errstate(invalid="ignore"):
        diff = np.where(same, 0.0, np.abs(x - y))
        diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number, inf - inf
    return diff, ~(diff <= atol + rtol * np.abs(np.nan_to_num(y)))
