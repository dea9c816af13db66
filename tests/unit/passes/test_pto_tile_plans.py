"""Automatic tile plans of pto-tile-matmul fit every buffer: a grid over targets a2, a3 and a5,
every Mmad operand pair, both transposes, single / double buffering and a split over blocks, with
M, N, K on fractal boundaries (16, 32, 64 + 1) and where the one-row-panel rule pushes tile-m above
128 (M = 385, 769: every multiple of 32 up to 128 divides M - 1). An impossible request is one
error naming the op, the field and the limits.

The plan is checked independently of the pass's own overflow check: footprints come from
`isa/ascend/layouts.footprint_bytes`, times the slots the lowering allocates, per space, against the
target's capacities.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pto_testing import lower, matmul_combos, matmul_text, parse

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.isa.ascend import layouts as isa_layouts
from mmair.isa.ascend import targets as isa
from mmair.passes.matmul_plan import MAX_TILE, MatmulPlan, plan_matmul
from mmair.passes.pass_errors import PassOpError
from mmair.tools.diagnostics import OpVerifyError

M_VALUES = (1, 2, 33, 129, 385, 769, 1537)
N_VALUES = (65, 1025)
K_VALUES = (1, 257)  # K alternates over the (M, N) grid: the grid stays < 5 s
VARIANTS = ((2, 1), (1, 4), (2, 4))  # (multi-buffer, blocks) besides (1, 1), rotating


def _legal_configs() -> list[tuple[str, str, str, str, bool, bool]]:
    """(target, lhs, rhs, out, transpose_a, transpose_b) the verifier accepts, one output type
    per operand pair (the output type does not change the buffers)."""
    configs = []
    for target in ("a2", "a3", "a5"):
        pairs = {(lhs, rhs): out for _, lhs, rhs, out in matmul_combos(target)}
        for (lhs, rhs), out in sorted(pairs.items()):
            for ta, tb in itertools.product((False, True), repeat=2):
                try:
                    parse(matmul_text(16, 16, 16, lhs, rhs, out, target, ta, tb))
                except OpVerifyError as error:  # a 4-bit operand the target cannot transpose
                    assert "requires a fractal transpose of 4-bit elements" in str(error), error
                    continue
                configs.append((target, lhs, rhs, out, ta, tb))
    return configs


CONFIGS = _legal_configs()


def test_the_grid_covers_every_target_and_transpose():
    assert {c[0] for c in CONFIGS} == {"a2", "a3", "a5"}
    assert {(c[4], c[5]) for c in CONFIGS} == set(itertools.product((False, True), repeat=2))
    assert len(CONFIGS) >= 60


def check_plan(plan: MatmulPlan, target: isa.Target) -> None:
    g = plan.granularity
    limit = MAX_TILE // g * g
    for name, tile, dim in (("tm", plan.tm, plan.m), ("tn", plan.tn, plan.n), ("tk", plan.tk, plan.k)):
        assert tile % g == 0 and g <= tile <= limit, (name, tile, g)
        assert tile <= -(-dim // g) * g, (name, tile, dim)
    used: dict[str, int] = {}
    for buf in plan.buffers():
        nbytes = isa_layouts.footprint_bytes(buf.layout, buf.shape, buf.element, buf.space)
        used[buf.space] = used.get(buf.space, 0) + nbytes * plan.slots(buf)
    for space, nbytes in used.items():
        capacity = target.capacity[space]
        assert capacity is not None and nbytes <= capacity, (space, nbytes, capacity)
    one_row_rule = (plan.transpose_a or plan.blocks > 1) and plan.m > 1 and not target.gemv_disable
    if one_row_rule:
        assert plan.m % plan.tm != 1, (plan.m, plan.tm)
    # tile-m exceeds 128 only when every smaller multiple of g leaves a one-row panel.
    assert plan.tm <= max(128, g) or (
        one_row_rule and all(plan.m % t == 1 for t in range(g, 129, g))), (plan.m, plan.tm)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_automatic_plans_fit_every_buffer(config):
    target_name, lhs, rhs, out, ta, tb = config
    target = isa.get_target(target_name)
    for index, (m, n) in enumerate(itertools.product(M_VALUES, N_VALUES)):
        k = K_VALUES[index % len(K_VALUES)]
        _, module = parse(matmul_text(m, n, k, lhs, rhs, out, target_name, ta, tb))
        op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
        for multi_buffer, blocks in ((1, 1), VARIANTS[index % len(VARIANTS)]):
            check_plan(plan_matmul(op, target, multi_buffer=multi_buffer, blocks=blocks), target)


def test_one_row_rule_takes_a_tile_m_above_128_that_fits_l0c():
    # M = 385 = 3 * 128 + 1: tile-m 32, 64, 96 and 128 all leave a one-row panel of the
    # transposed A; a single 416-row panel needs a 416 x 96 s32 C tile (159744 B > 128 KB of L0C).
    _, module = parse(matmul_text(385, 65, 1, "s8", "s8", "s32", "a2", True, False))
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    plan = plan_matmul(op, isa.get_target("a2"))
    assert (plan.tm, plan.tn, plan.tk) == (160, 96, 32)
    check_plan(plan, isa.get_target("a2"))


def test_one_row_rule_shrinks_an_automatic_tile_n_when_tile_m_needs_it():
    # s4 (g = 64) split over 2 blocks, M = 769: 64, 128, 192 and 256 divide M - 1; tile-m 320 with
    # tile-n 128 needs 160 KB of L0C, so tile-n drops to 64 (80 KB).
    _, module = parse(matmul_text(769, 300, 128, "s4", "s4", "s32", "a2", False, True))
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    plan = plan_matmul(op, isa.get_target("a2"), blocks=2)
    assert plan.tm == 320 and plan.tn < 128 and plan.m % plan.tm != 1
    check_plan(plan, isa.get_target("a2"))


def test_no_tile_m_avoiding_a_one_row_panel_is_one_error():
    _, module = parse(matmul_text(385, 600, 64, "s8", "s8", "s32", "a2", True, False))
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    with pytest.raises(
        PassOpError,
        match=r"^'pto.matmul' op has no tile-m that avoids a one-row panel of the transposed A "
              r"\(M = 385, M mod tile-m != 1, a multiple of 32 in \[32, 4064\]\) and fits the "
              r"buffers of target a2 with tile-n = 256: with the smallest, tile-m = 160, the C "
              r"tile 160x256xs32 \(nz\) needs 163840 bytes, l0c capacity 131072 bytes$",
    ):
        plan_matmul(op, isa.get_target("a2"), tile_n=256)


@pytest.mark.parametrize("pipeline", ["mmair-lower", "mmair-lower{multi-buffer=2}"])
def test_the_once_overflowing_shape_runs_clean_and_equals_numpy(pipeline):
    module = lower(matmul_text(385, 65, 1, "s8", "s8", "s32", "a2", True, False), pipeline)
    rng = np.random.default_rng(385)
    a_t = rng.integers(-128, 128, size=(1, 385)).astype(np.int8)
    b = rng.integers(-128, 128, size=(1, 65)).astype(np.int8)
    result = run_module(module, inputs={"a": a_t, "b": b}, sync_check=True)
    np.testing.assert_array_equal(result.outputs["c"], a_t.T.astype(np.int32) @ b.astype(np.int32))
