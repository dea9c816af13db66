"""Edges of the concurrency checkers that the engine's own tests leave open (issue 18): how a
strided access is described, which memories two cores share, how GM buffers are named."""

from __future__ import annotations

import pytest

from mmair.dialects.pto.effects import Access
from mmair.executor.events import Event, SyncError
from mmair.executor.scheduler import Scheduler
from mmair.isa.ascend.pipes import Pipe


def test_strided_access_is_described_row_by_row() -> None:
    # 4 rows of 8 bytes every 16: the hull is [0, 3*16 + 8) = [0, 56)
    assert Access("gm", 0, 8, 4, 16).describe() == "[0, 56) as 4 rows of 8 bytes every 16 bytes"
    # rows that touch (stride = width) are one contiguous range
    assert Access("gm", 0, 8, 4, 8).describe() == "[0, 32)"
    assert Access("l1", 64, 32).describe() == "[64, 96)"


# ------------------------------------------------------------------------------------------------
# Happens-before: which memories are shared, and how GM buffers are named
# ------------------------------------------------------------------------------------------------


def _write(seq: int, core: int, pipe: Pipe, access: Access) -> Event:
    return Event(seq, core, pipe, None, f"w{seq}", [access], ())


def test_local_memories_are_per_core_gm_is_shared() -> None:
    l1 = Access("l1", 0, 64, write=True, buffer="%t")
    sched = Scheduler(cores=2)
    sched.issue(_write(1, 0, Pipe.MTE2, l1))
    sched.issue(_write(2, 1, Pipe.MTE1, l1))  # core 1's L1 is another memory: no race
    sched.finish()
    gm = Access("gm", 0, 64, write=True, buffer="%g", memory="g")
    sched = Scheduler(cores=2)
    sched.issue(_write(1, 0, Pipe.FIX, gm))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer %g"):
        sched.issue(_write(2, 1, Pipe.MTE3, gm))
        sched.finish()
    sched = Scheduler(cores=1)
    sched.issue(_write(1, 0, Pipe.MTE2, l1))
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 64\) \(%t\): w2 \(pipe mte1\) writes them"):
        sched.issue(_write(2, 0, Pipe.MTE1, l1))
        sched.finish()


def test_gm_buffers_are_named_from_gm_names_or_generically() -> None:
    gm = Access("gm", 0, 64, write=True, memory="a")  # no buffer name of its own
    sched = Scheduler(gm_names={"a": "%A"})
    sched.issue(_write(1, 0, Pipe.FIX, gm))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer %A: "):
        sched.issue(_write(2, 0, Pipe.MTE3, gm))
        sched.finish()
    sched = Scheduler()
    sched.issue(_write(1, 0, Pipe.FIX, gm))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer gm buffer: "):
        sched.issue(_write(2, 0, Pipe.MTE3, gm))
        sched.finish()
