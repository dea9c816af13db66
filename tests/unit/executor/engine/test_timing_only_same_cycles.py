"""`--timing-only` schedules the same events as the numeric run: the same cycles, per-pipe busy
time and report, for every Ascend example kernel and for seeded random lowered matmuls on one
core and on 24 (the timeline of a numeric run with `timing` is the reference)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmair.executor.runner import run_module
from mmair.tools.tune import Config, Job, lower

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"

# (file, pipeline, blocks): the Ascend examples (tcgen05 kernels have no timeline)
ASCEND_EXAMPLES = [
    ("gemm_f16_128.mlir", None, 1),
    ("gemm_kloop_double_buffer.mlir", None, 1),
    ("gather_mask.mlir", None, 1),
    ("multicore_copy.mlir", None, 4),
    ("matmul_f16.mlir", "mmair-lower", 1),
    ("matmul_f16.mlir", "mmair-lower{blocks=4}", 4),
    ("matmul_s4.mlir", "mmair-lower", 1),
]


def _example(name: str, pipeline: str | None):
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    text = (EXAMPLES / name).read_text()
    tool = MmairOptMain(args=["-p", pipeline] if pipeline else [])
    module = tool.parse_and_verify(text, SourceFile(name, text), 0)
    if pipeline:
        tool.pipeline.apply(tool.ctx, module)
    return module


def _same_timeline(module, blocks: int) -> None:
    numeric = run_module(module, timing=True, blocks=blocks).timeline.summary()
    timed = run_module(module, timing_only=True, blocks=blocks).timeline.summary()
    assert timed.total > 0
    assert (timed.total, timed.report()) == (numeric.total, numeric.report())


@pytest.mark.parametrize(("name", "pipeline", "blocks"), ASCEND_EXAMPLES)
def test_every_example_has_the_numeric_runs_cycles(name, pipeline, blocks):
    _same_timeline(_example(name, pipeline), blocks)


def _random_jobs(count: int, blocks: int, seed: int) -> list[Job]:
    rng = np.random.default_rng(seed)
    jobs = []
    for _ in range(count):
        m, n, k = (int(x) for x in rng.integers(1, 9, size=3) * 32)
        if blocks > 1:
            m *= 6  # enough 64 x 64 tiles of C for the cores
        tile = Config(64, 64, 64, int(rng.integers(1, 3)), blocks)
        jobs.append(Job(m, n, k, "f16", "f32", "a2", tile))
    return jobs


@pytest.mark.parametrize("job", _random_jobs(3, 1, seed=30) + _random_jobs(2, 24, seed=31),
                         ids=lambda j: f"{j.m}x{j.n}x{j.k}-mb{j.config.multi_buffer}"
                                       f"-blocks{j.config.blocks}")
def test_random_lowered_matmuls_have_the_numeric_runs_cycles(job):
    _same_timeline(lower(job), job.config.blocks)
