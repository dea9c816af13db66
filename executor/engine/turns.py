"""Deterministic turn-taking between simulated processors (cores of a multi-core launch, CTAs of a
tcgen05 CTA pair): one Python thread per processor keeps its interpreter's call stack while it
waits, and exactly one of them runs at any time. A processor runs until it waits (at
`pto.sync_all`, a cluster barrier, an mbarrier phase) or ends, then hands the turn to the next
runnable one; a subclass decides which are runnable and reports a deadlock when none is."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError


class Abort(BaseException):
    """Ends a waiting processor's thread after another one faulted (not an error of its own)."""


class TurnTaking:
    """The shared run loop. A subclass sets `cond` (a `threading.Condition`), `turn`, `error`,
    `aborted`, and provides `_hand_off(i)` (give the turn to the next runnable processor after
    `i`, or end the run), `_mark_done(i)`, `_fault_label(i)` and `_thread_name(i)`."""

    cond: threading.Condition
    turn: int
    error: BaseException | None
    aborted: bool

    def _hand_off(self, i: int) -> None:
        raise NotImplementedError

    def _mark_done(self, i: int) -> None:
        raise NotImplementedError

    def _fault_label(self, i: int) -> str:
        raise NotImplementedError

    def _thread_name(self, i: int) -> str:
        raise NotImplementedError

    def run(self, bodies: list[Callable[[], Any]]) -> list[Any]:
        """Run `bodies[i]` as processor i (turn 0 first); returns their results or raises the
        first fault."""
        results: list[Any] = [None] * len(bodies)

        def main(i: int) -> None:
            with self.cond:
                self.cond.wait_for(lambda: self.turn == i or self.aborted)
                if self.aborted:
                    return
            try:
                results[i] = bodies[i]()
            except Abort:
                return
            except BaseException as err:  # reported by the launching thread
                if isinstance(err, ExecutionError) and not isinstance(err, SyncError):
                    # a runtime fault of this processor (a race or deadlock names its processors)
                    err.message += f" ({self._fault_label(i)})"
                with self.cond:
                    if self.error is None:
                        self.error = err
                    self._mark_done(i)
                    self.aborted = True
                    self.cond.notify_all()
                return
            with self.cond:
                self._mark_done(i)
                self._hand_off(i)

        threads = [threading.Thread(target=main, args=(i,), name=self._thread_name(i), daemon=True)
                   for i in range(len(bodies))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if self.error is not None:
            raise self.error
        return results
