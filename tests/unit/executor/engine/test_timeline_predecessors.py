"""The predecessors the happens-before engine records for a timeline (`HappensBefore._link`,
`barrier_all`, `barrier_cores`): the timeline starts each event when its predecessors, the
previous event of its pipe and the scalar unit's last event have ended (`Timeline.slices`), so
a wait_flag starts when its set_flag has fired, a `pipe_barrier all` when every pipe of its core
is done, a `pto.sync_all` when every pipe of every core is done. Each start is compared with the
end of the event it must follow, both read from the timeline (no cycle count assumed)."""

from __future__ import annotations

import pytest
from sync_testing import parse

from mmair.executor.runner import run_module

_L1 = "!pto.tile<l1, 16x16xf16, nz>"
_L0A = "!pto.tile<l0a, 16x16xf16, zz>"
LOAD = f"    pto.mte_gm_l1 %a, %a_l1, %n, %n : memref<16x16xf16>, {_L1}\n"
MOVE = f"    pto.mte_l1_l0a %a_l1, %a_l0a, %n, %n : {_L1}, {_L0A}\n"
SET = "    pto.set_flag mte2 -> mte1, 0\n"
WAIT = "    pto.wait_flag mte2 -> mte1, 0\n"


def _slices(body: str, blocks: int = 1) -> dict[tuple[str, int], list]:
    """The timeline of a kernel that loads %a into L1 and moves it to L0A with `body` as its
    instructions: slices by (op kind, core), in issue order."""
    text = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<16x16xf16>) {{
    %n = arith.constant 16 : index
    %a_l1 = pto.alloc {{offset = 0 : i64}} : {_L1}
    %a_l0a = pto.alloc {{offset = 0 : i64}} : {_L0A}
{body}    func.return
  }}
}}
"""
    timeline = run_module(parse(text), timing=True, blocks=blocks).timeline
    out: dict[tuple[str, int], list] = {}
    for s in timeline.slices():
        out.setdefault((s.kind, s.core), []).append(s)
    return out


def test_a_wait_flag_starts_when_its_set_flag_fired() -> None:
    t = _slices(LOAD + SET + WAIT + MOVE)
    (load,), (set_,), (wait,) = t["mte_gm_l1", 0], t["set_flag", 0], t["wait_flag", 0]
    assert set_.start == load.end > 0  # the set fires after its pipe's load
    assert wait.start == set_.end  # MTE1 has nothing before the wait: only the set holds it
    assert t["mte_l1_l0a", 0][0].start == wait.end


@pytest.mark.parametrize("last", ["set_flag", "mte_gm_l1"])
def test_pipe_barrier_all_starts_when_every_pipe_of_its_core_is_done(last: str) -> None:
    # MTE2's last instruction before the barrier is a set_flag (whose wait comes after the
    # barrier) or the load itself: either way the barrier waits for it.
    body = LOAD + (SET if last == "set_flag" else "") + "    pto.pipe_barrier all\n" + \
        (WAIT if last == "set_flag" else "") + MOVE
    t = _slices(body)
    (barrier,) = t["pipe_barrier_all", 0]
    assert barrier.start == t[last, 0][-1].end > 0
    assert t["mte_l1_l0a", 0][0].start >= barrier.end


@pytest.mark.parametrize("last", ["set_flag", "mte_gm_l1"])
def test_sync_all_starts_when_every_pipe_of_every_core_is_done(last: str) -> None:
    body = LOAD + (SET if last == "set_flag" else "") + "    pto.sync_all\n" + \
        (WAIT if last == "set_flag" else "") + MOVE
    t = _slices(body, blocks=2)
    done = max(t[last, core][-1].end for core in (0, 1))
    assert done > 0
    for core in (0, 1):
        (sync,) = t["sync_all", core]
        assert sync.start == done
        assert t["mte_l1_l0a", core][0].start >= sync.end
