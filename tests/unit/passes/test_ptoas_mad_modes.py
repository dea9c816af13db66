"""VPTO mad's `sat` / `nosat` and `tf32_mode` clauses: converted onto pto.mmad and run with the
arithmetic pto-isa's mad.md gives (held against numpy written out here, not the IR's reference)."""

from __future__ import annotations

import numpy as np
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import run_module
from mmair.passes.ptoas_to_mmair import convert_module
from mmair.tools.diagnostics import verify_module

KERNEL = "tests/filecheck/ptoas/vpto/mad_modes.pto"
F32_MAX = float(np.finfo(np.float32).max)


def _module():
    with open(KERNEL) as f:
        module = Parser(ptoas_context(), f.read()).parse_module()
    module.verify()
    convert_module(module)
    verify_module(module)
    return module


def _tf32(x: np.ndarray, away: bool) -> np.ndarray:
    """TF32 by integer arithmetic on the bits: nearest, ties to even or away from zero."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.int64)
    low, keep = bits & 0x1FFF, bits >> 13
    tie_up = (keep & 1) == 1 if not away else np.ones_like(keep, dtype=bool)
    keep = keep + ((low > 0x1000) | ((low == 0x1000) & tie_up))
    return (keep << 13).astype(np.uint32).view(np.float32)


def _run(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    with np.errstate(over="ignore", invalid="ignore"):
        result = run_module(_module(), inputs={"a": a.ravel(), "b": b.ravel()}, sync_check=True)
    return {k: v.reshape(16, 16) for k, v in result.outputs.items()}


def test_the_clauses_ride_on_the_converted_mmad() -> None:
    mmads = [op for op in _module().walk() if isinstance(op, pto.MmadOp)]
    modes = [(op.sat and op.sat.data, op.tf32_mode and op.tf32_mode.data) for op in mmads]
    assert modes == [("sat", None), ("nosat", None), (None, "round_even"), (None, "round_away")]


def test_sat_normalises_inf_nan_and_saturates_overflow_nosat_propagates() -> None:
    rng = np.random.default_rng(11)
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    a[0, 0], b[0, 0] = np.inf, 0.5  # row 0: inf in
    a[1, 1] = np.nan  # row 1: nan in
    a[2, :], b[:, 2] = 0, 0
    a[2, 2], b[2, 2] = 3e38, 4.0  # [2, 2]: a finite overflow
    out = _run(a, b)
    sa = np.nan_to_num(a, nan=0, posinf=F32_MAX, neginf=-F32_MAX).astype(np.float64)
    expected_sat = np.clip(sa @ b.astype(np.float64), -F32_MAX, F32_MAX).astype(np.float32)
    np.testing.assert_allclose(out["c_sat"], expected_sat, rtol=1e-6, atol=1e-6)
    assert np.all(np.isfinite(out["c_sat"]))
    assert out["c_sat"][2, 2] == np.float32(F32_MAX)
    nosat = out["c_nosat"]
    assert np.isinf(nosat[0, 0]) and np.all(np.isnan(nosat[1, :])) and nosat[2, 2] == np.inf
    with np.errstate(over="ignore", invalid="ignore"):
        plain = a.astype(np.float64) @ b.astype(np.float64)
    finite = np.isfinite(plain) & (np.abs(plain) < F32_MAX)
    np.testing.assert_allclose(nosat[finite], plain[finite], rtol=1e-5, atol=1e-5)


def test_tf32_modes_round_the_f32_inputs_ties_even_or_away() -> None:
    rng = np.random.default_rng(5)
    # values whose dropped 13 bits are exactly half a TF32 unit: the two modes differ on each
    kept = rng.integers(0, 1 << 10, (2, 16, 16), dtype=np.uint32) << np.uint32(13)
    sign = rng.integers(0, 2, (2, 16, 16), dtype=np.uint32) << np.uint32(31)
    bits = sign | np.uint32(0x3F800000) | kept | np.uint32(0x1000)
    a, b = bits.view(np.float32)
    out = _run(a, b)
    for name, away in (("c_even", False), ("c_away", True)):
        expected = _tf32(a, away).astype(np.float64) @ _tf32(b, away).astype(np.float64)
        np.testing.assert_allclose(out[name], expected, rtol=1e-6, atol=1e-6)
    assert not np.allclose(out["c_even"], out["c_away"], rtol=1e-7, atol=0)
    assert not np.allclose(out["c_even"], a.astype(np.float64) @ b, rtol=1e-7, atol=0)
