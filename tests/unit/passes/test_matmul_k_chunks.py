"""pto-tile-matmul `tile-k-l1`: L1 tiles that hold a K chunk, moved to L0 tile-k at a time
(passes/matmul_plan.py `MatmulPlan.chunked`, passes/matmul_emit.py `chunk_body`)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.isa.ascend import targets as isa
from mmair.passes.matmul_plan import plan_matmul
from mmair.passes.pass_errors import PassOpError
from tests.unit.pto_testing import COMBOS, lower, matmul_text, parse, random_operand


def _plan(text: str, **options):
    _, module = parse(text)
    matmul = next(op for op in module.walk() if isinstance(op, pto.MatmulOp))
    return plan_matmul(matmul, pto.target_of(matmul), **options)


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 200),
    n=st.integers(1, 200),
    k=st.integers(65, 400),
    combo=st.sampled_from([c for c in COMBOS if c[1] != "s4"]),
    ta=st.booleans(),
    tb=st.booleans(),
    bias=st.booleans(),
    ratio=st.integers(2, 3),
    slots=st.sampled_from([1, 2]),
    seed=st.integers(0, 2**16),
)
def test_k_chunks_give_the_same_bits_as_l0_sized_l1_tiles_and_run_clean(
        m, n, k, combo, ta, tb, bias, ratio, slots, seed):
    target, lhs, rhs, out = combo
    acc = pto.matmul_accumulator(isa.get_target(target), lhs, rhs)
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None)
    g = 64  # several trips in every loop, remainders in M, N, K and in the last chunk
    assume(not (ta and m % g == 1))  # a transposed one-row panel is refused (tested elsewhere)
    plan = _plan(text, tile_m=g, tile_n=g, tile_k=g, tile_k_l1=ratio * g, multi_buffer=slots)
    chunk = min(ratio * g, -(-k // g) * g)  # never more than K in whole tile-k steps
    assert plan.chunked == (m % g != 1 and chunk > g)
    assert not plan.chunked or plan.k1 == chunk
    rng = np.random.default_rng(seed)
    inputs = {"a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
              "b": random_operand(rng, rhs, (n, k) if tb else (k, n))}
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,))
    tiles = f"tile-m={g} tile-n={g} tile-k={g} multi-buffer={slots}"
    got = []
    for chunk in ("", f" tile-k-l1={ratio * g}"):
        module = lower(text, f"pto-tile-matmul{{{tiles}{chunk}}},pto-assign-addresses,"
                             "pto-insert-sync")
        got.append(run_module(module, inputs=dict(inputs), sync_check=True).outputs["c"])
    np.testing.assert_array_equal(got[0], got[1])


def test_a_chunk_is_loaded_once_and_moved_in_tile_k_steps():
    text = matmul_text(128, 128, 4096, "f16", "f16", "f32")  # an A panel 128 x 4096 fits no L1
    plan = _plan(text, tile_m=128, tile_n=128, tile_k=64, tile_k_l1=256, multi_buffer=2)
    assert not plan.a_panel and not plan.b_whole
    assert plan.a_l1().shape == (128, 256) and plan.b_l1().shape == (256, 128)
    assert plan.a_l0a().shape == (128, 64)
    module = lower(text, "pto-tile-matmul{tile-m=128 tile-n=128 tile-k=64 tile-k-l1=256 "
                         "multi-buffer=2},pto-assign-addresses,pto-insert-sync")
    # 16 chunks of 256, an A and a B load each; 4 steps of 64 in each chunk
    result = run_module(module, timing_only=True)
    kinds = [s.kind for s in result.timeline.slices()]
    assert kinds.count("mte_gm_l1") == 2 * 16 and kinds.count("mte_l1_l0a") == 64
    assert kinds.count("mad") == 1 and kinds.count("mad_acc") == 63


def test_tile_k_l1_must_be_a_multiple_of_tile_k():
    text = matmul_text(128, 128, 1024, "f16", "f16", "f32")
    with pytest.raises(PassOpError, match=r"requires tile-k-l1 to be a multiple of tile-k = 64 "
                                          r"\(the L1 chunk is moved to L0 in tile-k steps\), got 96"):
        _plan(text, tile_k=64, tile_k_l1=96)
    with pytest.raises(PassOpError, match=r"requires tile-k-l1 to be 0 \(automatic\) or a multiple"
                                          r" of 16 in \[16, 4080\] for \(f16, f16\) on target a2, got 8"):
        _plan(text, tile_k_l1=8)
    auto = _plan(text, tile_k_l1=192, multi_buffer=2)  # automatic tile-k divides the chunk
    assert auto.k1 == 192 and 192 % auto.tk == 0
