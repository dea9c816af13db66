"""pto-expand-params: the tile-level kernels and their raw-form expansion compute the same
results (differential, on random pto-tile-matmul kernels over targets, types, shapes, tiles,
transposes, bias and GEMV rows), and the expansion really uses the raw forms."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.passes import PassPipeline

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.passes import get_all_passes
from mmair.passes.pto_expand_params import _expandable
from tests.unit.test_pto_passes import matmul_text, parse, random_operand

RAW = (pto.CopyNd2NzOp, pto.Load2DOp, pto.Load2DTransposeOp, pto.MmadOp, pto.FixpipeCopyOp)
TILE_LEVEL = (pto.MteL1L0AOp, pto.MteL1L0BOp, pto.MadOp, pto.MadAccOp, pto.MadBiasOp, pto.FixpipeOp)


def lowered(text: str, tiles: str, expand: bool):
    ctx, module = parse(text)
    spec = f"pto-tile-matmul{{{tiles}}}" + (",pto-expand-params" if expand else "") + \
        ",pto-assign-addresses"
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    from mmair.tools.diagnostics import verify_module

    verify_module(module)
    return module


COMBOS = [("a2", "f16", "f16", "f32"), ("a2", "bf16", "bf16", "f16"), ("a2", "f32", "f32", "f32"),
          ("a5", "f16", "f16", "f32"), ("a5", "s8", "s8", "s32"), ("a3", "f16", "f16", "bf16")]


@settings(max_examples=60, deadline=None)
@given(
    combo=st.sampled_from(COMBOS),
    m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 90),
    tm=st.sampled_from([0, 16, 32]), tk=st.sampled_from([0, 32, 64]),
    ta=st.booleans(), tb=st.booleans(), bias=st.booleans(), seed=st.integers(0, 999),
)
def test_expanded_kernels_equal_tile_level(combo, m, n, k, tm, tk, ta, tb, bias, seed):
    target, lhs, rhs, out = combo
    from mmair.isa.ascend import targets as isa

    t = isa.get_target(target)
    acc = pto.matmul_accumulator(t, lhs, rhs)
    if lhs == "s8":
        tm, tk = (tm and 32), (tk and 64)  # the s8 granularity
    if ta and m > 1 and tm and m % tm == 1 and not t.gemv_disable:
        tm = 0  # a given one-row tile of a transposed A is refused (test_gemv_rule)
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None)
    tiles = f"tile-m={tm} tile-n=32 tile-k={tk}"
    rng = np.random.default_rng(seed)
    inputs = {"a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
              "b": random_operand(rng, rhs, (n, k) if tb else (k, n))}
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,))
    base = run_module(lowered(text, tiles, False), inputs=inputs).outputs["c"]
    module = lowered(text, tiles, True)
    raw = run_module(module, inputs=inputs).outputs["c"]
    if raw.dtype.kind in "iu":
        np.testing.assert_array_equal(raw, base)
    else:  # same products; the f32 BLAS may sum the differently strided operands in another order,
        # and an f16/bf16 output rounds that f32 difference to at most one ulp of the output type
        eps = max(float(np.finfo(np.float32).eps) * 100, float(ml_dtypes.finfo(raw.dtype).eps))
        scale = float(np.abs(base.astype(np.float64)).max(initial=1.0))
        np.testing.assert_allclose(raw, base, rtol=eps, atol=eps * scale)
    kinds = {type(op) for op in module.walk()}
    assert pto.CopyNd2NzOp in kinds
    left = [op for op in module.walk() if isinstance(op, TILE_LEVEL)]
    if left:  # only a kernel with an L0 move the raw forms do not cover stays tile-level
        assert any(not _expandable(op, t) for op in left)
    else:
        assert pto.MmadOp in kinds and pto.FixpipeCopyOp in kinds


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_gemv_row_expands_to_a_vector_load(target):
    """M = 1: the row goes GM -> L1 as {nValue 1, dstNzC0Stride 1} and to L0A as whole fractals
    (the Ascend C GEMV sample), and the mmad runs as GEMV (a2) or with disable_gemv (a5)."""
    module = lowered(matmul_text(1, 32, 256, "f16", "f16", "f32", target), "", True)
    copies = [op for op in module.walk() if isinstance(op, pto.CopyNd2NzOp)]
    mmads = [op for op in module.walk() if isinstance(op, pto.MmadOp)]
    if target == "a2":
        row = next(op for op in copies if op.dst.type.layout_name == "nd")
        assert pto.static_value(row.n_value) == 1 and pto.static_value(row.dst_nz_c0_stride) == 1
        assert all(op.disable_gemv is None for op in mmads)
    else:
        assert all(op.disable_gemv is not None for op in mmads)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 256)).astype(np.float16)
    b = rng.standard_normal((256, 32)).astype(np.float16)
    got = run_module(module, inputs={"a": a, "b": b}).outputs["c"]
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4,
                               atol=1e-3)
