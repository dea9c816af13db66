"""The seam's fast paths against the Event path (`IssueSeam.fast = False`): a pipe op whose
queue is empty runs at once without the scheduler's deferred `run`, and a set_flag is fused with
its wait_flag across scalar arithmetic. Every kernel of the removal property test of
test_pto_insert_sync (each example and lowered kernel, intact and minus one wait_flag or
pipe_barrier) gives the same outputs and op counts, or the same diagnostic, both ways."""

from __future__ import annotations

import pytest
from pto_testing import HAND_WRITTEN, LOWERED, _kernels, _outcome

from mmair.dialects import pto
from mmair.executor.engine import events, seam
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.engine.seam import IssueSeam


@pytest.mark.parametrize("name, index", [*((n, -1) for n in [*HAND_WRITTEN, *LOWERED]),
                                         *_kernels()])
def test_fast_paths_match_the_event_path(monkeypatch, name, index):
    made = []
    real, item = events.op_event, HappensBefore.execute_item
    monkeypatch.setattr(seam, "op_event", lambda *a: made.append(a) or real(*a))
    monkeypatch.setattr(HappensBefore, "execute_item", lambda *a: made.append(a) or item(*a))
    outcomes = {}
    for fast in (True, False):
        monkeypatch.setattr(IssueSeam, "fast", fast)
        made.clear()
        outcomes[fast] = _outcome(name, index)
        assert bool(made) == fast  # the fast path ran (and only when enabled)
    assert outcomes[True] == outcomes[False]


def test_a_set_is_fused_with_its_wait_across_scalar_arithmetic_only():
    from pto_testing import parse

    from mmair.isa.ascend.targets import get_target

    _ctx, module = parse("""builtin.module attributes {pto.target = "a2"} {
  func.func @k(%x: index) {
    pto.set_flag mte1 -> m, 0
    %first = arith.cmpi eq, %x, %x : index
    pto.wait_flag mte1 -> m, 0
    pto.set_flag m -> mte1, 0
    scf.if %first {
    }
    pto.wait_flag m -> mte1, 0
    func.return
  }
}""")
    sets = [op for op in module.walk() if isinstance(op, pto.SetFlagOp)]
    waits = [op for op in module.walk() if isinstance(op, pto.WaitFlagOp)]
    for fast, fused in ((True, waits[0]), (False, None)):
        issue = IssueSeam(get_target("a2"))
        issue.fast = fast
        assert issue._flag_plan(sets[0]).fused is fused
        assert issue._flag_plan(sets[1]).fused is None  # an scf.if between: not fused
