"""mbarrier phase aliasing in the tcgen05 checker (issue 28 items 2 and 6): a
`tcgen05.mbarrier_wait` (PTX `try_wait.parity`) after which two phases of its barrier can have
completed before it looks sees the same parity again and waits for a phase that never comes.
The checker reports it at the wait in any legal schedule, naming the barrier and the ops that
complete its phases; a wait between the commits is clean. A property test compares the checker
with every schedule of random commit / arrive / wait sequences (a model that enumerates when
each commit completes)."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sync_testing import line_of, parse

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module

_SMEM = "memref<1xi64, #tcgen05.space<smem>>"


def _kernel(*ops: str) -> str:
    """`ops`: `commit b`, `arrive b` or `wait b p` on mbarriers %b0 / %b1 (count 1)."""
    lines = []
    for op in ops:
        kind, bar, *parity = op.split()
        if kind == "commit":
            lines.append(f"tcgen05.commit cta_group(1) %b{bar} : {_SMEM}")
        elif kind == "arrive":
            lines.append(f"tcgen05.mbarrier_arrive %b{bar} : {_SMEM}")
        else:
            lines.append(f"tcgen05.mbarrier_wait %b{bar}, %p{parity[0]} : {_SMEM}")
    body = "".join(f"    {line} // {i}\n" for i, line in enumerate(lines))
    return f"""builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @bar() {{
    %b0 = tcgen05.smem_alloc offset(0) : {_SMEM}
    %b1 = tcgen05.smem_alloc offset(16) : {_SMEM}
    tcgen05.mbarrier_init %b0 count(1) : {_SMEM}
    tcgen05.mbarrier_init %b1 count(1) : {_SMEM}
    %p0 = arith.constant false
    %p1 = arith.constant true
{body}    func.return
  }}
}}
"""


def test_two_commits_before_the_first_wait_alias_its_phase():
    text = _kernel("commit 0", "commit 0", "wait 0 0", "wait 0 1")
    with pytest.raises(SyncError, match=r"deadlock \(phase aliasing\)") as info:
        run_module(parse(text), sync_check=True)
    assert info.value.kind == "deadlock"
    first, second = (line_of(text, f"// {i}") for i in (0, 1))
    assert info.value.message == (
        "deadlock (phase aliasing): waits on phase parity 0 of the mbarrier at SMEM 0x0 (%b0), "
        f"but 2 phases of it can complete before the wait looks (phase 0 by 'tcgen05.commit' at "
        f"k.mlir:{first}:5 (the tensor core's async unit), phase 1 by 'tcgen05.commit' at "
        f"k.mlir:{second}:5 (the tensor core's async unit); the thread has observed 0): the "
        "barrier's phase parity is then 0 again and try_wait.parity 0 waits for phase 2, which "
        "nothing issued before it completes; wait for each phase before the next one can "
        "complete (e.g. a wait between the commits)")
    assert [ev.op.name for ev in info.value.events] == ["tcgen05.commit"] * 2
    # The run without the checker (every commit completes at issue) hangs at the same wait.
    with pytest.raises(ExecutionError, match="waits on phase parity 0 of the mbarrier at SMEM "
                                             "0x0, which can never complete"):
        run_module(parse(text), sync_check=False)


@pytest.mark.parametrize("ops", [
    ("commit 0", "wait 0 0", "commit 0", "wait 0 1"),  # a wait between the commits
    ("commit 0", "commit 1", "wait 0 0", "wait 1 0"),  # one phase per barrier
    ("commit 0", "wait 0 0", "wait 0 0"),  # waiting an observed phase again
    ("arrive 0", "wait 0 0", "commit 0", "wait 0 1"),  # the thread's arrival, then a commit
])
def test_waits_that_cannot_alias_stay_clean(ops):
    result = run_module(parse(_kernel(*ops)), sync_check=True)
    assert result.op_counts["tcgen05.mbarrier_wait"] == sum(op.startswith("wait") for op in ops)


def test_one_commit_then_parity_1_on_a_fresh_barrier_can_hang():
    # Parity 1 names "the phase before the first": it returns at once while the commit is in
    # flight, and hangs once the commit completed phase 0 (parity 1 is then current).
    with pytest.raises(SyncError, match=r"deadlock \(phase aliasing\): waits on phase parity 1 "
                                        r"of the mbarrier at SMEM 0x0 \(%b0\), but 1 phase of "
                                        r"it can complete before the wait looks \(phase 0 by "):
        run_module(parse(_kernel("commit 0", "wait 0 1")), sync_check=True)


def test_two_thread_arrivals_alias_for_sure():
    with pytest.raises(SyncError, match=r"phase 0 by 'tcgen05.mbarrier_arrive' at k.mlir:\d+:5 "
                                        r"\(the issuing thread\), phase 1 by "):
        run_module(parse(_kernel("commit 1", "wait 1 0", "arrive 0", "arrive 0", "wait 0 0")),
                   sync_check=True)


# --- every schedule ---------------------------------------------------------------------------


def can_hang(ops: tuple[str, ...]) -> bool:
    """Whether some legal schedule hangs at a wait: the thread runs `ops` in order (its own
    arrivals complete at once); commits complete in issue order (the tensor core's unit is in
    order), each at any time after its issue; a wait for parity P passes while its barrier's
    completed phase count is not P mod 2, else it waits for the next commit, and hangs when
    none is pending (PTX ISA mbarrier.try_wait.parity)."""

    @cache
    def hangs(pc: int, phases: tuple[int, int], pending: tuple[int, ...]) -> bool:
        if pending:  # the next commit completes now
            done = list(phases)
            done[pending[0]] += 1
            if hangs(pc, (done[0], done[1]), pending[1:]):
                return True
        if pc == len(ops):
            return False
        kind, bar, *parity = ops[pc].split()
        b = int(bar)
        if kind == "commit":
            return hangs(pc + 1, phases, (*pending, b))
        if kind == "arrive":
            done = list(phases)
            done[b] += 1
            return hangs(pc + 1, (done[0], done[1]), pending)
        if phases[b] % 2 != int(parity[0]):
            return hangs(pc + 1, phases, pending)
        return not pending  # blocked: the next commit must complete (explored above)

    return hangs(0, (0, 0), ())


def _verdict(ops: tuple[str, ...]) -> str:
    """"clean", or the kind of the checker's fault."""
    verdict = "clean"
    try:
        run_module(parse(_kernel(*ops)), sync_check=True)
    except SyncError as err:
        verdict = err.kind
    return verdict


_OPS = st.sampled_from(["commit 0", "commit 1", "arrive 0", "wait 0 0", "wait 0 1",
                        "wait 1 0", "wait 1 1"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_OPS, min_size=1, max_size=7))
def test_the_checker_reports_a_hang_iff_some_schedule_hangs(ops):
    ops = ("commit 1", *ops)  # (a kernel without a commit does not run under the checker)
    verdict = _verdict(tuple(ops))
    assert (verdict == "deadlock") == can_hang(tuple(ops)), verdict
    try:  # the executor's own schedule (every commit completes at issue) is one of them
        run_module(parse(_kernel(*ops)), sync_check=False)
    except ExecutionError as err:
        assert "can never complete" in err.message
        assert verdict == "deadlock"
