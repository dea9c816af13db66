"""Event-id overflow over every legal schedule (issue 28 item 3, docs/pipes.md "Legal
schedules"): a set_flag whose previous set's wait_flag may not have passed yet (the wait's pipe
may still run an earlier instruction, nothing orders the set after it) is an overflow, although
the executor's schedule ran that wait at once; a flag back, another event id, a
`pipe_barrier all` or a wait of the scalar unit orders it, and a wait that is the first
instruction of its pipe passes as soon as its set fired."""

from __future__ import annotations

import pytest
from sync_testing import line_of, parse

from mmair.executor.engine.events import SyncError
from mmair.executor.engine.seam import IssueSeam
from mmair.executor.runner import run_module
from mmair.tools.diagnostics import op_location

_L1 = "!pto.tile<l1, 16x16xf16, nz>"
_L0A = "!pto.tile<l0a, 16x16xf16, zz>"


def _kernel(ids=(0, 0, 0), between: str = "", before_third: str = "") -> str:
    """A load per id (three at most), each flagged to its move on MTE1 with its id;
    `between`: lines after the first move; `before_third`: lines before the third load."""
    steps = []
    for x, event in zip("abc", ids, strict=False):
        steps.append(
            (before_third if x == "c" else "")
            + f"    pto.mte_gm_l1 %{x}, %{x}_l1, %n, %n : memref<16x16xf16>, {_L1} // load {x}\n"
            + f"    pto.set_flag mte2 -> mte1, {event} // set {x}\n"
            + f"    pto.wait_flag mte2 -> mte1, {event} // wait {x}\n"
            + f"    pto.mte_l1_l0a %{x}_l1, %{x}_l0a, %n, %n : {_L1}, {_L0A} // move {x}\n"
            + (between if x == "a" else ""))
    allocs = "".join(
        f"    %{x}_l1 = pto.alloc {{offset = {512 * i} : i64}} : {_L1}\n"
        f"    %{x}_l0a = pto.alloc {{offset = {512 * i} : i64}} : {_L0A}\n"
        for i, x in enumerate("abc"))
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf16>) {{
    %n = arith.constant 16 : index
{allocs}{"".join(steps)}    func.return
  }}
}}
"""


def _clean(text: str) -> None:
    """The checker finds `text` clean: it runs with the values of the unchecked run."""
    checked = run_module(parse(text), sync_check=True)
    plain = run_module(parse(text), sync_check=False)
    assert checked.op_counts == plain.op_counts
    assert checked.op_counts["pto.set_flag"] == text.count("pto.set_flag")


@pytest.mark.parametrize("fast", [True, False])
def test_a_set_that_may_find_its_bit_still_set_is_an_overflow(monkeypatch, fast):
    # The third set may fire while MTE1 still moves %a_l1 before the second wait (MTE1 may run
    # one instruction at a time): the bit of the second set is then still set.
    monkeypatch.setattr(IssueSeam, "fast", fast)  # the batched steps and the Event path
    text = _kernel()
    with pytest.raises(SyncError, match="sets flag mte2 -> mte1 event 0 again") as info:
        run_module(parse(text), sync_check=True)
    assert info.value.kind == "overflow" and info.value.schedule
    assert op_location(info.value.op)[1] == line_of(text, "// set c")
    assert info.value.message == (
        "sets flag mte2 -> mte1 event 0 again, but nothing orders it after 'pto.wait_flag' at "
        f"k.mlir:{line_of(text, '// wait b')}:5 (pipe mte1), which consumes the previous set "
        f"'pto.set_flag' at k.mlir:{line_of(text, '// set b')}:5 (pipe mte2): in a legal "
        "schedule pipe mte1 is still busy with an instruction before that wait when this set "
        "fires, the bit is still set and this set is lost (one bit per pipe pair and event id; "
        "a flag mte1 -> mte2 after the wait and before this set, or another event id, orders "
        "them)")


@pytest.mark.parametrize("fix", [
    {"ids": (0, 0, 1)},  # another id for the third flag
    {"ids": (1, 0, 1)},  # id 1 again after the first wait, MTE1's first instruction
    {"between": "    pto.set_flag mte1 -> mte2, 0\n",  # a flag back after the move
     "before_third": "    pto.wait_flag mte1 -> mte2, 0\n"},
    {"before_third": "    pto.pipe_barrier all\n"},  # every pipe drained first
])
def test_an_ordered_or_distinct_set_stays_clean(fix):
    _clean(_kernel(**fix))


def test_a_wait_of_the_scalar_unit_for_another_pipe_does_not_order_it():
    # There is no MTE1 -> S flag; MTE2 -> S before the third load stalls the scalar unit only
    # until MTE2 is done: the third set still may fire before MTE1 finished the move.
    stall = "    pto.set_flag mte2 -> s, 0\n    pto.wait_flag mte2 -> s, 0\n"
    with pytest.raises(SyncError, match="nothing orders it after 'pto.wait_flag'"):
        run_module(parse(_kernel(before_third=stall)), sync_check=True)


def test_the_first_wait_of_a_pipe_passes_once_its_set_fired():
    # Two flags of one id: the first wait is MTE1's first instruction (nothing before it can
    # hold it), so the second set cannot find the bit set.
    _clean(_kernel(ids=(0, 0)))


def _behind_a_wait(w1_fused: bool, m_waits_the_load: bool = False) -> str:
    """MTE1 waits for the load (`wait load`), then at once for M's flag (`wait free 1`); M sets
    that flag's bit again (`set free 2`). `w1_fused`: the load's set_flag right before its
    wait_flag (the executor's fused set/wait step) or before M's set (a set and a wait step);
    `m_waits_the_load`: M waits for the load (a flag MTE2 -> M) before its second set."""
    first = ["    pto.set_flag mte2 -> mte1, 0 // set load\n",
             "    pto.set_flag m -> mte1, 0 // set free 1\n"]
    if w1_fused:
        first.reverse()
    m_wait = ("    pto.set_flag mte2 -> m, 1 // set m\n"
              "    pto.wait_flag mte2 -> m, 1 // wait m\n") if m_waits_the_load else ""
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<16x16xf16>) {{
    %n = arith.constant 16 : index
    %a_l1 = pto.alloc {{offset = 0 : i64}} : {_L1}
    %a_l0a = pto.alloc {{offset = 0 : i64}} : {_L0A}
    pto.mte_gm_l1 %a, %a_l1, %n, %n : memref<16x16xf16>, {_L1} // load
{"".join(first)}    pto.wait_flag mte2 -> mte1, 0 // wait load
    pto.wait_flag m -> mte1, 0 // wait free 1
    pto.mte_l1_l0a %a_l1, %a_l0a, %n, %n : {_L1}, {_L0A} // move
{m_wait}    pto.set_flag m -> mte1, 0 // set free 2
    pto.wait_flag m -> mte1, 0 // wait free 2
    func.return
  }}
}}
"""


_PATHS = ["fast", "not fast", "events"]
"""How the flags run: the checker's batched sync steps (`HappensBefore.run_batch`) with the
seam's fast paths on or off, or one Event per instruction (a timed run records predecessors,
`HappensBefore.execute`)."""


def _run(monkeypatch, text: str, path: str):
    monkeypatch.setattr(IssueSeam, "fast", path == "fast")
    return run_module(parse(text), sync_check=True, timing=path == "events")


@pytest.mark.parametrize("path", _PATHS)
@pytest.mark.parametrize("w1_fused", [False, True])
def test_a_wait_right_after_another_wait_passes_only_after_what_that_wait_waits_for(
        monkeypatch, path, w1_fused):
    # `wait free 1` is reached only once `wait load` passed, i.e. once the load finished: in a
    # legal schedule the load is still running when M, which knows nothing of it, sets the bit
    # again (its first set fired at once), so `set free 2` finds it still set. The steps carry
    # what the first wait waited for into the second (`head`, `sync_at`), whether the load's
    # flag is a set step and a wait step or one fused set/wait step.
    text = _behind_a_wait(w1_fused)
    with pytest.raises(SyncError, match="sets flag m -> mte1 event 0 again") as info:
        _run(monkeypatch, text, path)
    assert info.value.kind == "overflow" and info.value.schedule
    assert op_location(info.value.op)[1] == line_of(text, "// set free 2")
    assert info.value.message == (
        "sets flag m -> mte1 event 0 again, but nothing orders it after 'pto.wait_flag' at "
        f"k.mlir:{line_of(text, '// wait free 1')}:5 (pipe mte1), which consumes the previous "
        f"set 'pto.set_flag' at k.mlir:{line_of(text, '// set free 1')}:5 (pipe m): in a legal "
        "schedule pipe mte1 is still busy with an instruction before that wait when this set "
        "fires, the bit is still set and this set is lost (one bit per pipe pair and event id; "
        "a flag mte1 -> m after the wait and before this set, or another event id, orders "
        "them)")


@pytest.mark.parametrize("path", _PATHS)
@pytest.mark.parametrize("w1_fused", [False, True])
def test_a_set_after_what_both_waits_wait_for_stays_clean(monkeypatch, path, w1_fused):
    # M waits for the load before its second set: `wait load` and then `wait free 1` pass as
    # soon as the load finished (sync instructions take no time), so `set free 2` cannot find
    # the bit set. What guarantees that `wait free 1` passed is the load, not the epoch of
    # `wait load` on MTE1 (which M does not know).
    text = _behind_a_wait(w1_fused, m_waits_the_load=True)
    checked = _run(monkeypatch, text, path)
    assert checked.op_counts == run_module(parse(text), sync_check=False).op_counts
    assert checked.op_counts["pto.set_flag"] == text.count("pto.set_flag") == 4
