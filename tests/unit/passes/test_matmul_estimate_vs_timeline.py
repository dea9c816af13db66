"""passes/matmul_choice.py `estimate_cycles` follows the timeline (`mmair-run --timing-only`)
within 10 % on a small grid of tilings, split kernels whose L1 tiles the tile loop reloads
included (a K chunk as long as K: one L1 slot in the lowered kernel, whatever the plan says),
and `MatmulPlan.lowered_slots` is the slot count the lowering really allocates."""

import pytest

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.isa.ascend.costs import costs
from mmair.passes.matmul_choice import choose_plan, estimate_cycles
from mmair.tools import tune
from tests.unit.pto_testing import matmul_text, parse

# (M, N, K, blocks, tile-m, tile-n, tile-k, tile-k-l1, multi-buffer, l1-slots, l0c-slots)
GRID = [
    # the chunk is all of K: the block-strided tile loop reloads L1, which keeps one slot
    # (4096 x 4096 x 512 on 24 blocks was estimated 142,819 against 208,135 on the timeline)
    (1024, 1024, 512, 8, 128, 128, 64, 512, 2, 0, 0),
    (512, 1024, 512, 4, 128, 128, 64, 512, 2, 0, 0),
    # two chunks: the chunk loop has constant bounds, L1 ping-pongs
    (1024, 1024, 512, 8, 128, 128, 64, 256, 2, 0, 0),
    # one tile-k step per tile: L0A / L0B and L1 keep one slot in a split kernel
    (1024, 1024, 128, 8, 128, 128, 128, 0, 2, 0, 0),
    # one core: the slots of L1 and L0C by hand
    (512, 512, 512, 1, 128, 128, 64, 256, 2, 2, 2),
    (512, 512, 512, 1, 128, 128, 64, 256, 2, 2, 1),
    (512, 512, 512, 1, 128, 128, 64, 256, 2, 1, 1),
]


def _plan(m, n, k, blocks, tm, tn, tk, k1, mb, l1s, l0cs):
    _, module = parse(matmul_text(m, n, k, "f16", "f16", "f32", "a2"))
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    return choose_plan(op, pto.target_of(op), tm, tn, tk, mb, blocks, k1, l1_slots=l1s,
                       l0c_slots=l0cs)


def _config(m, n, k, blocks, tm, tn, tk, k1, mb, l1s, l0cs) -> tune.Job:
    return tune.Job(m, n, k, "f16", "f32", "a2",
                    tune.Config(tm, tn, tk, mb, blocks, k1, l1_slots=l1s, l0c_slots=l0cs))


@pytest.mark.parametrize("case", GRID, ids=lambda c: "x".join(map(str, c[:3])) + f"@{c[3]}-"
                         + "x".join(map(str, c[4:7])) + f"-k1{c[7]}-s{c[9]}{c[10]}")
def test_the_estimate_is_within_10_percent_of_the_timeline(case):
    estimate = estimate_cycles(_plan(*case), costs("a2"))
    module = tune.lower(_config(*case))
    timeline = run_module(module, timing_only=True, blocks=case[3]).timeline.summary().total
    assert 0.9 <= estimate / timeline <= 1.1, f"{case}: estimate {estimate:.0f}, timeline {timeline}"


@pytest.mark.parametrize("case", GRID[:4], ids=lambda c: "x".join(map(str, c[:3])) + f"@{c[3]}")
def test_lowered_slots_are_the_slots_the_split_kernel_allocates(case):
    plan = _plan(*case)
    module = tune.lower(_config(*case))
    allocs = [op.results[0].type for op in module.walk() if isinstance(op, pto.AllocOp)]
    for buf in (plan.a_l1(), plan.b_l1(), plan.a_l0a(), plan.b_l0b()):
        found = sum(1 for t in allocs if isinstance(t, pto.TileType) and t.space.data == buf.space
                    and t.layout.data == buf.layout
                    and tuple(x.data for x in t.shape.data) == buf.shape)
        assert found == plan.lowered_slots(buf), f"{case}: {buf.describe()}"
