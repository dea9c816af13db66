"""Multi-core launches: `blocks` AI Cores run one kernel, each with its own interpreter (scalar
unit), on-chip memories (L1/L0A/L0B/L0C/UB/BT/FB) and pipes, all sharing the GM arrays.

The cores run one at a time in a deterministic hand-off (core 0 first): a core runs until it
reaches `pto.sync_all` or ends, then the next runnable core (in block order) takes over. When the
last core arrives at a `sync_all`, the barrier opens (with the sync checker on, the engine's
happens-before joins the clocks of every lane of every core, `hb.barrier_cores`) and the cores
continue in block order. When no core can run and some wait at a `sync_all`, a core ended (or
faulted) without reaching it: a deadlock report, never a hang. Each core is a Python thread only
to keep its interpreter's call stack while it waits; exactly one thread runs at any time.

Cross-core races: with the sync checker on, one `Scheduler(cores=blocks)` serves every core; GM
accesses are keyed by the shared array, so two cores' overlapping GM accesses (one a write) not
ordered by a `sync_all` are reported by the same race check as intra-core ones.
"""

from __future__ import annotations

import threading
from typing import Any

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SCALAR, Event, SyncError, op_where
from mmair.executor.engine.turns import Abort, TurnTaking
from mmair.isa.ascend.pipes import Pipe

_RUN, _WAIT, _DONE = "run", "wait", "done"


class PeerFault(Exception):
    """A worker of the process pool stops: a block of the launch faulted or deadlocked (the
    launch is re-run in process for the diagnostic)."""


def _check_drained(core: int, op: Any, interp: Any) -> Any:
    """The scheduler of a checked run (None: unchecked); a deadlock if a pipe of `core` is stuck at
    its `sync_all` (SyncAll waits for every pipe of the core, PIPE_ALL, before it syncs)."""
    sched = getattr(getattr(interp, "seam", None), "scheduler", None)
    if sched is not None and any(e.core == core for e in sched.stuck()):
        raise sched._deadlock(  # pyright: ignore[reportPrivateUsage]
            Event(0, core, Pipe.S, op, SCALAR), "the scalar unit waits at")
    return sched


def sync_all_one_core(core: int, op: Any, interp: Any) -> None:
    """`pto.sync_all` in a one-block launch: no other core to meet, but SyncAll still orders every
    later op of the core after every earlier one (its PIPE_ALL barrier)."""
    sched = _check_drained(core, op, interp)
    if sched is not None:
        sched.flush()
        sched.hb.barrier_cores([Event(sched.next_seq(), core, Pipe.S, op, "sync_all", (),
                                      interp.iteration)])


class Launch(TurnTaking):
    """The hand-off between the cores of one launch (module docstring).

    `cores`: the block indices this launch runs (default all `blocks`); a worker process of the
    process pool (`executor/engine/multicore_pool.py`) runs a subset and, when none of them can run,
    meets the other workers through `peers.round(waiting, done)`, which returns "open" (every
    block of the launch waits at the sync_all), "end" (every block ended) or "fault" (a deadlock
    or another worker's fault: this worker stops, the launch is re-run in process)."""

    def __init__(self, blocks: int, scheduler: Any = None, cores: list[int] | None = None,
                 peers: Any = None):
        self.blocks = blocks
        self.cores = list(range(blocks)) if cores is None else cores
        self.index = {core: i for i, core in enumerate(self.cores)}
        self.scheduler = scheduler
        self.peers = peers
        self.cond = threading.Condition()
        self.state = [_RUN] * len(self.cores)
        self.turn = 0
        self.waiting: dict[int, Any] = {}
        """core index (in `cores`) -> the `pto.sync_all` op it waits at."""
        self.passed = [0] * len(self.cores)
        """How many sync_alls each core has passed (for messages)."""
        self.error: BaseException | None = None
        self.aborted = False

    # --- called on a core's thread ------------------------------------------------------------

    def sync_all(self, block: int, op: Any, interp: Any) -> None:
        _check_drained(block, op, interp)
        core = self.index[block]
        with self.cond:
            self.state[core] = _WAIT
            self.waiting[core] = (op, interp.iteration)
            if len(self.waiting) == self.blocks:
                self._open()
                return
            self._hand_off(core)
            if self.turn == core and self.state[core] == _RUN:
                return  # the peers opened the barrier and this core runs first
            self.cond.wait_for(lambda: (self.turn == core and self.state[core] == _RUN)
                               or self.aborted)
            if self.aborted:
                raise Abort

    def _open(self) -> None:
        if self.scheduler is not None:
            events = []
            for core in sorted(self.waiting):
                op, iteration = self.waiting[core]
                events.append(Event(self.scheduler.next_seq(), self.cores[core], Pipe.S, op,
                                    "sync_all", (), iteration))
            self.scheduler.flush()  # the batched happens-before bookkeeping first
            self.scheduler.hb.barrier_cores(events)
            timeline = getattr(self.scheduler, "timeline", None)
            if timeline is not None:  # per-core timing: the cores leave the barrier together
                timeline.barrier(events)
        for core in self.waiting:
            self.state[core] = _RUN
            self.passed[core] += 1
        self.waiting.clear()

    def _hand_off(self, core: int) -> None:
        """Give the turn to the next runnable core after `core`; none: deadlock or the end."""
        n = len(self.cores)
        for step in range(1, n + 1):
            nxt = (core + step) % n
            if self.state[nxt] == _RUN:
                self.turn = nxt
                self.cond.notify_all()
                return
        if self.peers is not None and self.error is None:
            outcome = self.peers.round(len(self.waiting), n - len(self.waiting))
            if outcome == "open":
                self._open()
                self.turn = next(i for i in range(n) if self.state[i] == _RUN)
                self.cond.notify_all()
                return
            if outcome == "fault":
                self.error = PeerFault()
        elif self.waiting and self.error is None:
            self.error = self._deadlock()
        self.aborted = bool(self.waiting)
        self.turn = -1
        self.cond.notify_all()

    def _deadlock(self) -> SyncError:
        first = min(self.waiting)
        op = self.waiting[first][0]
        where = op_where(op)
        waiting = ", ".join(str(self.cores[c]) for c in sorted(self.waiting))
        ended = ", ".join(str(self.cores[c]) for c in range(len(self.cores))
                          if c not in self.waiting)
        return SyncError(
            "deadlock",
            f"deadlock: block{'s' if len(self.waiting) > 1 else ''} {waiting} wait{'' if len(self.waiting) > 1 else 's'} at "
            f"'pto.sync_all'{f' at {where}' if where else ''} (their sync_all number "
            f"{self.passed[first] + 1}), but block{'s' if ',' in ended else ''} {ended} ended without "
            f"reaching it: every core of the launch must reach every sync_all",
            op)

    # --- the launch (executor/engine/turns.py) --------------------------------------------------------

    def _mark_done(self, core: int) -> None:
        self.state[core] = _DONE

    def _fault_label(self, core: int) -> str:
        return f"in block {self.cores[core]} of {self.blocks}"

    def _thread_name(self, core: int) -> str:
        return f"mmair-block{self.cores[core]}"


def check_blocks(blocks: int, target: Any) -> None:
    """ExecutionError unless the launch fits the target's cores (`isa.ascend.pipes`)."""
    from mmair.isa.ascend.pipes import PipeError
    from mmair.isa.ascend.pipes import check_blocks as isa_check

    try:
        isa_check(blocks, target)
    except PipeError as err:
        raise ExecutionError(str(err), None) from None
