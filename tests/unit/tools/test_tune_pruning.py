"""mmair-tune's grid beyond the L0 tiles (L1 tiles in M and N, slots of L1 and L0C, the tile
order of a split kernel) and its pruning by the closed-form estimate (`estimate_cycles`): only
the best `--keep` are lowered and timed."""

from __future__ import annotations

import pytest

from mmair.passes.matmul_choice import choose_plan
from mmair.tools import tune

SMALL = dict(tiles_m=[64, 128], tiles_n=[64, 128], tiles_k=[64, 128], buffers=[1, 2])


def _timed(shape: tuple[int, int, int], configs: list[tune.Config]) -> dict[tune.Config, int]:
    jobs = [tune.Job(*shape, "f16", "f32", "a2", config) for config in configs]
    return {r.config: r.cycles for r in tune.sweep(jobs, workers=1) if not r.error}


@pytest.mark.parametrize("shape", [(256, 192, 128), (200, 256, 96)])
def test_the_pruned_sweep_finds_the_full_sweeps_best_within_two_percent(shape):
    grid = tune.Grid(tiles_m_l1=(0, 256), tiles_n_l1=(0, 256))
    ranked = tune.ranked_candidates(*shape, "f16", "f32", "a2", **SMALL, grid=grid)
    order = [config for config, _ in ranked]
    estimates = [estimate for _, estimate in ranked]
    assert estimates == sorted(estimates) and len(order) == len(set(order)) > 6
    timed = _timed(shape, order)
    assert len(timed) == len(order)  # every legal configuration lowers and times
    pruned_best = min(timed[config] for config in order[:6])
    assert pruned_best <= 1.02 * min(timed.values())


def test_l1_tiles_and_slots_reach_the_pipeline_that_mmair_lower_builds():
    config = tune.Config(64, 64, 64, 2, tile_m_l1=128, tile_n_l1=128, l1_slots=1, l0c_slots=1)
    assert config.pipeline() == ("mmair-lower{tile-m=64 tile-n=64 tile-k=64 tile-m-l1=128 "
                                 "tile-n-l1=128 l1-slots=1 l0c-slots=1 multi-buffer=2}")
    module = tune.lower(tune.Job(256, 256, 128, "f16", "f32", "a2", config))
    assert any(op.name == "pto.mad" for op in module.walk())
    result = tune.estimate(tune.Job(256, 256, 128, "f16", "f32", "a2", config))
    assert not result.error and result.cycles > 0


def test_configurations_that_give_one_plan_are_tried_once():
    # tile-m-l1 = tile-m is the plain tiling: it is not a second configuration
    once = tune.ranked_candidates(128, 128, 128, "f16", "f32", "a2", [64], [64], [64], [1],
                                  grid=tune.Grid(tiles_m_l1=(0, 64)))
    assert [config.tile_m_l1 for config, _ in once] == [0]


def test_swizzle_is_searched_only_for_split_kernels():
    one = tune.ranked_candidates(512, 512, 128, "f16", "f32", "a2", [128], [128], [128], [1],
                                 grid=tune.Grid(swizzles=(0, 1, 2)))
    split = tune.ranked_candidates(512, 512, 128, "f16", "f32", "a2", [128], [128], [128], [1],
                                   blocks=4, grid=tune.Grid(swizzles=(0, 1, 2)))
    assert {config.swizzle for config, _ in one} == {0}
    assert {config.swizzle for config, _ in split} == {0, 1, 2}


def test_the_estimate_is_of_the_plan_mmair_lower_makes():
    from mmair.dialects import pto
    from mmair.isa.ascend.costs import costs
    from mmair.isa.ascend.targets import get_target
    from mmair.passes.matmul_choice import estimate_cycles
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    ranked = tune.ranked_candidates(256, 256, 256, "f16", "f32", "a2", [128], [128], [128], [2],
                                    grid=tune.Grid(tiles_n_l1=(256,)))
    (config, estimate), = ranked
    text = tune.matmul_source(256, 256, 256)
    module = MmairOptMain(args=[]).parse_and_verify(text, SourceFile("<m>", text), 0)
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    plan = choose_plan(op, get_target("a2"), 128, 128, 128, 2, tile_n_l1=256)
    assert config.tile_n_l1 == plan.n1 == 256
    assert estimate == estimate_cycles(plan, costs("a2"))


@pytest.mark.parametrize("argv, message", [
    (["--l1-slots", "3"], "expected slot counts from 0, 1, 2, got '3'"),
    (["--l0c-slots", "1,x"], "expected comma-separated integers, got '1,x'"),
    (["--keep", "-1"], "expected a non-negative integer, got '-1'"),
    (["--swizzle", ""], "expected non-negative integers, got ''"),
])
def test_bad_grid_options_exit_2_with_one_line(capsys, argv, message):
    assert tune.main(["64", "64", "64", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_the_report_says_how_many_of_the_legal_configurations_were_timed(capsys):
    code = tune.main(["256", "192", "128", "--tiles-m", "64,128", "--tiles-n", "64,128",
                      "--tiles-k", "64,128", "--tiles-k-l1", "0", "--keep", "3", "--workers", "1",
                      "--no-verify", "--progress", "off"])
    first = capsys.readouterr().out.splitlines()[0]
    assert code == 0
    assert first.startswith("3 configurations of 256x192x128 f16->f32 on a2 timed in ")
    assert "(the best 3 of " in first and " legal by the closed-form estimate)" in first
