"""The index-based timeline schedule (`Timeline.slices`, the L2 model's cached line sets) gives
exactly today's figures: every slice's start and end, the L2 lines and the sync_all waits equal
the depth-first schedule kept in `timeline_reference.py`, and `--timing-only` reports the same
cycles, per-pipe figures and report as the numeric run's timeline, on lowered matmuls (one and
two slots, blocks 1 / 2 / 24, remainders, bias, transposes, a5) and the hand-written examples
with flags (issue 30 item 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mmair.executor.runner import run_module
from mmair.tools.diagnostics import SourceFile
from mmair.tools.opt import MmairOptMain

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timeline_reference import reference_schedule, reference_summary  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
COSTS = [None, None, "ptoisa", {"l2_bytes": 0}, {"l2_bytes": 32768}, {"l2_bytes": 262144}]
"""The target's table, pto-isa's (no L2), no L2, and L2s small enough that lines are evicted
(the stack-distance path of the L2 model, not only the path where everything fits)."""
_ELT = {"f16": "f16", "f32": "f32", "s8": "i8", "s32": "i32"}


def _module(text: str, pipeline: str | None):
    tool = MmairOptMain(args=["-p", pipeline] if pipeline else [])
    module = tool.parse_and_verify(text, SourceFile("k.mlir", text), 0)
    if pipeline:
        tool.pipeline.apply(tool.ctx, module)
    return module


def _matmul(m: int, n: int, k: int, ab: str, c: str, target: str, trans_a: bool,
            trans_b: bool, bias: bool) -> str:
    e, o = _ELT[ab], _ELT[c]
    ta = f"memref<{k}x{m}x{e}>" if trans_a else f"memref<{m}x{k}x{e}>"
    tb = f"memref<{n}x{k}x{e}>" if trans_b else f"memref<{k}x{n}x{e}>"
    tc = f"memref<{m}x{n}x{o}>"
    args = f"%a: {ta}, %b: {tb}, %c: {tc}" + (f", %bias: memref<{n}x{o}>" if bias else "")
    flags = (" transpose_a" if trans_a else "") + (" transpose_b" if trans_b else "")
    with_bias = f" bias %bias : memref<{n}x{o}>" if bias else ""
    return (f'builtin.module attributes {{pto.target = "{target}"}} {{\n'
            f"  func.func @matmul({args}) {{\n"
            f"    pto.matmul %a, %b, %c{flags}{with_bias} : {ta}, {tb}, {tc}\n"
            "    func.return\n  }\n}\n")


def _same_as_today(module, blocks: int, costs=None) -> None:
    """The fast schedule of a timing-only run against the reference schedule of the same events,
    and its summary against the numeric run's."""
    timeline = run_module(module, timing_only=True, blocks=blocks, costs=costs).timeline
    slices, l2_lines, waits = reference_schedule(timeline)
    assert [(s.pipe, s.core, s.start, s.end) for s in timeline.slices()] == slices
    assert timeline.l2_lines == l2_lines
    assert timeline.waits == waits
    timed = timeline.summary()
    assert timed == reference_summary(timeline)
    numeric = run_module(module, timing=True, blocks=blocks, costs=costs).timeline.summary()
    assert timed.total > 0
    assert (timed.total, timed.pipes, timed.cores, timed.report()) == \
        (numeric.total, numeric.pipes, numeric.cores, numeric.report())


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 12), n=st.integers(1, 12), k=st.integers(1, 12),
       rem=st.sampled_from([0, 0, 7, 16]), slots=st.sampled_from([1, 2]),
       blocks=st.sampled_from([1, 2, 24]), types=st.sampled_from([("f16", "f32"), ("s8", "s32")]),
       target=st.sampled_from(["a2", "a2", "a5"]), trans=st.sampled_from([(0, 0), (1, 0), (0, 1)]),
       bias=st.booleans(), costs=st.sampled_from(COSTS))
def test_lowered_matmuls_keep_todays_schedule(m, n, k, rem, slots, blocks, types, target,
                                               trans, bias, costs):
    m_, n_, k_ = m * 32 - rem, n * 32, k * 32 + rem
    if blocks == 24:
        m_ *= 6  # tiles of C for the cores
    text = _matmul(m_, n_, k_, *types, target, bool(trans[0]), bool(trans[1]),
                   bias and types[0] == "f16")
    split = f" blocks={blocks}" if blocks > 1 else ""
    _same_as_today(_module(text, f"mmair-lower{{tile-m=64 tile-n=64 tile-k=64 "
                                 f"multi-buffer={slots}{split}}}"), blocks, costs)


@pytest.mark.parametrize(("name", "pipeline", "blocks"), [
    ("gemm_f16_128.mlir", None, 1),
    ("gemm_kloop_double_buffer.mlir", None, 1),
    ("gather_mask.mlir", None, 1),
    ("multicore_copy.mlir", None, 4),
    ("raw_gemm_bias_a5.mlir", None, 1),
    ("matmul_f16.mlir", "mmair-lower{blocks=4}", 4),
])
def test_hand_written_kernels_with_flags_keep_todays_schedule(name, pipeline, blocks):
    _same_as_today(_module((EXAMPLES / name).read_text(), pipeline), blocks)


def test_a_wait_issued_before_its_set_is_scheduled_after_it():
    """The schedule's order reaches a set_flag issued after its wait_flag (the wait blocks its
    pipe) by the depth-first fallback: the wait starts when the set has ended."""
    from mmair.executor.engine.events import SET, WAIT, Event
    from mmair.executor.engine.timeline import TimedScheduler, Timeline
    from mmair.isa.ascend.pipes import Pipe

    tl = Timeline("a2")
    sched = TimedScheduler(tl)
    load = Event(sched.next_seq(), 0, Pipe.MTE2, None, "mte_gm_l1")
    tl.set_cost(load, 500)
    wait = Event(sched.next_seq(), 0, Pipe.M, None, WAIT, src=Pipe.MTE2, dst=Pipe.M, event_id=0)
    mad = Event(sched.next_seq(), 0, Pipe.M, None, "mad")
    tl.set_cost(mad, 100)
    sched.issue(wait)
    sched.issue(mad)
    sched.issue(load)
    sched.issue(Event(sched.next_seq(), 0, Pipe.MTE2, None, SET, src=Pipe.MTE2, dst=Pipe.M,
                      event_id=0))
    sched.finish()
    slices, _, _ = reference_schedule(tl)
    assert tl.summary() == reference_summary(tl)
    assert [(s.pipe, s.core, s.start, s.end) for s in tl.slices()] == slices
    by_kind = {s.kind: s for s in tl.slices()}
    assert by_kind[WAIT].start >= by_kind[SET].end >= 500
    assert by_kind["mad"].start >= by_kind[WAIT].end


@pytest.mark.parametrize("l2_bytes", [262144, 1 << 20])
@pytest.mark.parametrize("blocks", [1, 2])
def test_an_l2_that_evicts_keeps_todays_hits(l2_bytes, blocks):
    """512^3 with the fixed tile rule re-reads its A and B panels: an L2 of 256 KiB or 1 MiB
    keeps some of them and evicts others (hit rates strictly between 0 and 1), through the
    stack distances of the L2 model."""
    text = _matmul(512, 512, 512, "f16", "f32", "a2", False, False, False)
    split = f" blocks={blocks}" if blocks > 1 else ""
    module = _module(text, f"mmair-lower{{tiling=rule multi-buffer=1{split}}}")
    costs = {"l2_bytes": l2_bytes}
    _same_as_today(module, blocks, costs)
    rate = run_module(module, timing_only=True, blocks=blocks, costs=costs).timeline.summary() \
        .l2_hit_rate
    assert rate is not None and 0 < rate < 1
