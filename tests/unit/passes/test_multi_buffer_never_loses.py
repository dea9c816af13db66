"""Double buffering never loses (issue: "multi-buffer=2 gives modelled cycles <= single
buffering"): over a grid of shapes from 16 to 4096 (odd sizes included), element types and
targets, `mmair-lower{multi-buffer=2}` is never slower on the timeline than
`mmair-lower{multi-buffer=1}` (passes/matmul_choice.py takes slots only where they win)."""

import functools
import itertools

import pytest

from mmair.executor.runner import run_module
from mmair.tools.diagnostics import SourceFile
from mmair.tools.opt import MmairOptMain
from mmair.tools.tune import matmul_source

DIMS = (16, 17, 48, 100, 129, 256, 333, 512, 1000, 2048, 4096)
TYPES = (("f16", "f32"), ("s8", "s32"), ("f32", "f32"), ("bf16", "f32"))
TARGETS = ("a2", "a5")
VOLUME = 2**26
"""Largest M x N x K of the grid: every dimension reaches 4096, the run stays a few minutes."""


def _grid(count: int = 210) -> list[tuple[int, int, int, str, str, str]]:
    shapes = [s for s in itertools.product(DIMS, repeat=3) if s[0] * s[1] * s[2] <= VOLUME]
    step = len(shapes) / count
    cases = []
    for i in range(count):
        m, n, k = shapes[int(i * step)]
        ab, c = TYPES[i % len(TYPES)]
        cases.append((m, n, k, ab, c, TARGETS[(i // len(TYPES)) % len(TARGETS)]))
    return cases


@functools.cache
def _tool(slots: int) -> MmairOptMain:
    """One mmair-opt per slot count, reused by every case (its set-up, not the lowering, is
    what a fresh tool per case repeated: the pipeline still verifies after every pass)."""
    return MmairOptMain(args=["-p", f"mmair-lower{{multi-buffer={slots}}}"])


def _cycles(m: int, n: int, k: int, ab: str, c: str, target: str, slots: int) -> int:
    text = matmul_source(m, n, k, ab, c, target)
    tool = _tool(slots)
    module = tool.parse_and_verify(text, SourceFile("<grid>", text), 0)
    tool.pipeline.apply(tool.ctx, module)
    return run_module(module, timing_only=True).timeline.summary().total


def test_the_grid_has_over_200_cases_reaching_every_dimension():
    cases = _grid()
    assert len(cases) >= 200
    for axis in range(3):
        assert {16, 4096} <= {case[axis] for case in cases}
    assert {case[3] for case in cases} == {ab for ab, _ in TYPES}
    assert {case[5] for case in cases} == set(TARGETS)


@pytest.mark.parametrize("case", _grid(), ids=lambda c: "x".join(map(str, c[:3])) + f"-{c[3]}-{c[5]}")
def test_double_buffering_is_never_slower_than_single(case):
    single, double = _cycles(*case, 1), _cycles(*case, 2)
    assert double <= single, f"{case}: multi-buffer=2 {double} cycles > multi-buffer=1 {single}"
