"""The pipe scheduler: per-pipe in-order queues per core, drained in an order the hardware could
produce, plus the static entry point `analyze` that `pto-insert-sync` uses.

The scalar unit (the interpreter, pipe S) issues events in program order (`issue`). Each (core,
pipe) has an in-order queue; a `wait_flag` at the head of a queue blocks only that queue, until the
matching `set_flag` has executed on its source pipe, which may be issued later in program order.
The schedule is "as soon as possible": an issued event executes at once unless its queue is
blocked, and a `set_flag` that executes drains the queue it unblocks. That is one legal hardware
order (pipes infinitely fast); a race-free kernel computes the same values in every legal order,
and races are found from happens-before (`executor/engine/hb.py`), not from the order chosen.

* A `wait_flag` on pipe S blocks the scalar unit: since everything that could run has run, a
  flag that is not set then can never be set -> deadlock.
* `pipe_barrier(all)` waits until every queue of the core is empty; a blocked queue -> deadlock.
* At kernel end (`finish`): a non-empty queue is a deadlock (a wait whose set never came, with
  each stuck pipe's position); a flag still set is unbalanced (a set never waited).

`Scheduler.shuffle` (tests only) runs another legal order instead, to check that the verdict
does not depend on the schedule (`tests/unit/executor/engine/test_verdict_schedules.py`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from mmair.dialects.pto.access import overlap
from mmair.executor.engine.errors import op_fault
from mmair.executor.engine.events import (
    BARRIER,
    BARRIER_ALL,
    NUM_PIPES,
    PIPES,
    SET,
    WAIT,
    Event,
    FlagPlan,
    SyncError,
)
from mmair.executor.engine.hb import Conflict, HappensBefore
from mmair.isa.ascend.pipes import Pipe

OFFLOADED = frozenset({"mad", "mad_acc", "mad_bias", "mmad"})
"""Kinds of op whose kernels `ThreadedRuns` runs on its threads: a long sgemm that releases the
GIL. Every other op runs on the scalar unit's thread once the ops in flight that conflict with it
have finished: handing a short copy to a thread costs more (a wake-up and GIL hand-offs) than it
saves."""

BATCH = 256
"""Executed events handed to the happens-before engine at once. Batching is for speed only: the
engine's code and data stay in the CPU caches over a batch instead of being evicted by the numpy
work of every op in between (measured 3-4x per event on the 2048^3 matmul)."""


class Scheduler:
    """Queues and happens-before for `cores` cores (module docstring). With `collect`, faults
    are gathered (`hb.conflicts`, `faults`) instead of raised; `record_preds` fills each event's
    `preds` (a timeline needs them; the race checker alone does not, and keeping every event
    reachable from its successors costs the executor memory and garbage-collector time)."""

    def __init__(self, cores: int = 1, *, collect: bool = False,
                 gm_names: dict[Hashable, str] | None = None, record_preds: bool = True,
                 units: tuple = PIPES):
        self.hb = HappensBefore(cores, collect=collect, gm_names=gm_names,
                                record_preds=record_preds, units=units)
        self.record_preds = record_preds
        self.in_order = self.hb.in_order
        self.queues: list[deque[Event]] = [deque() for _ in range(self.hb.lanes)]
        self.collect = collect
        self.faults: list[SyncError] = []
        """Collect mode: deadlocks and unbalanced / overflowing flags, in the order found."""
        self.seq = 0
        self.flag_bits: dict = {}
        """The hardware bits: key -> True while a set_flag is not yet consumed by a wait."""
        self.batch: list[Event | tuple] = []
        """Executed events whose happens-before bookkeeping is still to do (`flush`)."""
        self.batch_size = BATCH
        self.skip: Any = None
        """The wait_flag op issued together with its set_flag (`light_set_wait`): its own
        issue does nothing."""
        self.threads: ThreadedRuns | None = None
        """`start_threads`: the pool that runs the ops' kernels (None: run at once)."""
        self.shuffle: Any = None
        """Test-only seam: a `random.Random` that picks another legal interleaving than "as
        soon as possible" (`_issue_shuffled`); needs `record_preds` (no light steps)."""
        self.slow: set[int] | None = None
        """Under `shuffle`: the lanes whose data instructions run only when the scheduler must
        drain every queue (before an event of the scalar unit, at kernel end)."""

    def start_threads(self, jobs: int) -> None:
        """Run the numpy kernels of result-less ops on `jobs` threads (`ThreadedRuns`); `close`
        ends them. One core only: the footprints of on-chip spaces carry no core."""
        if jobs > 1 and self.threads is None and self.hb.cores == 1:
            self.threads = ThreadedRuns(jobs)

    def settle(self) -> None:
        """Wait until every op handed to the threads has run; a kernel fault raises here, at the
        earliest failing op (as the sequential run would report it)."""
        threads = self.threads
        if threads is not None and (threads.outstanding or threads.failed):
            failed = threads.wait_all()
            if failed is not None:
                ev, err = failed
                batch = self.batch  # the run stops at `ev`: later events are not checked
                for i, done in enumerate(batch):
                    if done is ev:
                        del batch[i + 1:]
                        break
                self.flush()  # an earlier race explains it
                raise op_fault(ev.op, err) from None

    def close(self) -> None:
        """Stop the threads (after the last op ran); the scheduler runs ops at once again."""
        threads = self.threads
        if threads is not None:
            self.threads = None
            threads.close()

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    # --- issue and drain ------------------------------------------------------------------

    def issue(self, ev: Event) -> None:
        """The scalar unit issues `ev` (program order); it runs now or when its queue frees."""
        if self.shuffle is not None and self._issue_shuffled(ev):
            return
        kind = ev.kind
        if kind == BARRIER_ALL:
            base = ev.core * NUM_PIPES
            if any(self.queues[q] for q in range(base, base + NUM_PIPES)):
                self._fault(self._deadlock(ev, "the scalar unit waits at"))
                return
            self.flush()
            self.hb.barrier_all(ev)
            ev.done = True
            return
        if kind == WAIT and ev.key not in self.flag_bits:
            if ev.pipe is Pipe.S:  # everything that could run has run: the set never comes
                self._fault(self._deadlock(ev, "the scalar unit waits at"))
                return
            self.queues[ev.lane].append(ev)
            return
        queue = self.queues[ev.lane]
        if queue:
            queue.append(ev)
            return
        # Fast path: run it now (and, for a set_flag, what it unblocks).
        self._execute(ev)
        if kind == SET and self.queues[ev.dst_lane]:
            self._drain(ev.dst_lane)

    def _issue_shuffled(self, ev: Event) -> bool:
        """`issue` under `shuffle`: a pipe event joins its queue, then a random number of data
        instructions at the head of a queue (on random pipes) run, each followed by the sync
        instructions it lets run; True when that is all. Sync instructions take no time
        (docs/pipes.md "Legal schedules"): a set_flag or pipe_barrier at a queue head runs at
        once, a wait_flag as soon as its flag is set; data instructions take any time, so which
        runs next is the random choice. Before an event of the scalar unit (it may stall: its
        clocks then order every event still queued) or a `pipe_barrier(all)`, every queue runs
        as far as it can, in random order; then `issue` goes on as usual (False)."""
        assert self.record_preds, "shuffled schedules need the Event path (record_preds)"
        if ev.pipe is not Pipe.S and ev.kind != BARRIER_ALL:
            self.queues[ev.lane].append(ev)
            self._run_ready(self.shuffle.choice((0, 0, 1, 2)))  # (delays: often none)
            return True
        self._run_ready(None)
        return False

    def _run_ready(self, steps: int | None) -> None:
        """Run the sync heads, then `steps` data heads (None: until none is ready), each on a
        random pipe and followed by the sync heads it unblocks."""
        queues, bits, rng = self.queues, self.flag_bits, self.shuffle
        while True:
            moved = True
            while moved:  # the sync instructions that can run, at once
                moved = False
                # a wait whose flag is set passes before the next set runs: both take no time,
                # so a set behind another set of its bit on one queue never fires before an
                # idle pipe's wait consumed the first (the overflow rule's "legal schedule")
                for q in queues:
                    while q and q[0].kind == WAIT and q[0].key in bits:
                        self._execute(q.popleft())
                        moved = True
                if moved:
                    continue
                for q in queues:
                    if q and q[0].kind in (SET, BARRIER):
                        self._execute(q.popleft())
                        moved = True
                        break
            if steps is not None and steps <= 0:
                return
            ready = [i for i, q in enumerate(queues) if q and q[0].kind != WAIT]
            if not ready:
                return
            if self.slow is None:  # pipes this schedule runs late (their data ops take long)
                self.slow = {i for i in range(len(queues)) if rng.random() < 0.5}
            quick = [i for i in ready if i not in self.slow]
            if not quick and steps is not None:
                return  # the slow pipes' data ops wait for the next drain
            self._execute(queues[rng.choice(quick or ready)].popleft())
            if steps is not None:
                steps -= 1

    # --- sync ops without an Event (the seam's fast path) -----------------------------------
    # A set_flag / wait_flag that runs at once needs no Event unless a timeline records
    # predecessors (`record_preds`); a batched tuple drives the same clock updates
    # (`HappensBefore.light`). Each returns False when the op needs `issue` with an Event: its
    # queue is not empty or its pipe is S (in order), a wait's flag is not set (it blocks), a
    # set's flag is set already (overflow, reported by the engine).

    def light_set(self, plan: FlagPlan, iteration: tuple) -> bool:
        """Issue set_flag `plan` (static event id) at loop `iteration`."""
        lane = plan.src_lane
        bits = self.flag_bits
        key = plan.key
        if self.record_preds or key in bits or self.queues[lane] or self.in_order[lane]:
            return False
        bits[key] = True
        self.seq += 1
        batch = self.batch  # `_batch`, inlined: one call less per flag step
        batch.append((SET, plan, self.seq, iteration))
        if len(batch) >= self.batch_size:
            self.flush()
        if self.queues[plan.dst_lane]:
            self._drain(plan.dst_lane)
        return True

    def light_wait(self, lane: int, key: int, item: tuple) -> bool:
        """Issue the wait_flag of flag `key` on `lane` (`item`: its `(WAIT, lane, key, plan)`,
        batched with its issue number appended)."""
        bits = self.flag_bits
        if self.record_preds or key not in bits or self.queues[lane] or self.in_order[lane]:
            return False
        del bits[key]
        self.seq += 1
        batch = self.batch
        batch.append(item + (self.seq,))
        if len(batch) >= self.batch_size:
            self.flush()
        return True

    def light_set_wait(self, plan: FlagPlan) -> bool:
        """Issue set_flag `plan` and the wait_flag that follows it (`plan.fused`):
        the set runs, then the wait consumes it at once."""
        src, dst = plan.src_lane, plan.dst_lane
        queues = self.queues
        if self.record_preds or plan.key in self.flag_bits or queues[src] or queues[dst] or \
                self.in_order[src] or self.in_order[dst]:
            return False
        self.seq += 2
        batch = self.batch
        batch.append(plan.pair_item + (self.seq - 1,))  # (the set's issue number)
        self.skip = plan.fused
        if len(batch) >= self.batch_size:
            self.flush()
        return True

    # The same steps bound to one static set_flag / wait_flag op (`IssueSeam.op_step`): the
    # interpreter calls them without arguments; `fallback` is the op's handler, for when the
    # light step does not apply (it then takes the checks above again and issues an Event).

    def light_steps_apply(self, plan: FlagPlan) -> bool:
        """Whether the light steps can ever apply to `plan` (no timeline, no in-order lane)."""
        return not (self.record_preds or self.in_order[plan.src_lane] or
                    self.in_order[plan.dst_lane])

    def set_step(self, plan: FlagPlan, interp: Any, fallback: Callable[[], Any]) -> Callable[[], Any]:
        """`light_set` of `plan` at `interp.iteration`."""
        key, dst = plan.key, plan.dst_lane
        bits, src_queue, dst_queue = self.flag_bits, self.queues[plan.src_lane], self.queues[dst]

        def step() -> Any:
            if key in bits or src_queue:
                return fallback()
            bits[key] = True
            self.seq += 1
            batch = self.batch
            batch.append((SET, plan, self.seq, interp.iteration))
            if len(batch) >= self.batch_size:
                self.flush()
            if dst_queue:
                self._drain(dst)
        return step

    def set_wait_step(self, plan: FlagPlan, fallback: Callable[[], Any]) -> Callable[[], Any]:
        """`light_set_wait` of `plan` (its wait_flag op becomes `skip`)."""
        key, item, fused = plan.key, plan.pair_item, plan.fused
        bits, src_queue, dst_queue = self.flag_bits, self.queues[plan.src_lane], \
            self.queues[plan.dst_lane]

        def step() -> Any:
            if key in bits or src_queue or dst_queue:
                return fallback()
            self.seq += 2
            batch = self.batch
            batch.append(item + (self.seq - 1,))
            self.skip = fused
            if len(batch) >= self.batch_size:
                self.flush()
        return step

    def wait_step(self, plan: FlagPlan, fallback: Callable[[], Any]) -> Callable[[], Any]:
        """`light_wait` of `plan`, or nothing when its op is `skip`."""
        key, item, op = plan.key, plan.wait_item, plan.op
        bits, queue = self.flag_bits, self.queues[plan.dst_lane]

        def step() -> Any:
            if op is self.skip:  # issued with its set_flag (`light_set_wait`)
                self.skip = None
                return None
            if key not in bits or queue:
                return fallback()
            del bits[key]
            self.seq += 1
            batch = self.batch
            batch.append(item + (self.seq,))
            if len(batch) >= self.batch_size:
                self.flush()
        return step

    def _execute(self, ev: Event) -> None:
        kind = ev.kind
        if kind == SET:
            self.flag_bits[ev.key] = True  # a set of a set bit is lost (hb reports it)
        elif kind == WAIT:
            del self.flag_bits[ev.key]
        batch = self.batch
        batch.append(ev)
        run = ev.run
        threads = self.threads
        if run is not None and threads is not None and (
                kind in OFFLOADED or threads.outstanding):
            if threads.failed:
                self.settle()
            lazy = ev.lazy
            if lazy is not None:  # the threads order ops by their footprints: needed now
                ev.lazy = None
                ev.accesses = lazy[0].accesses(lazy[1])
            if kind in OFFLOADED and not ev.op.results:  # long, GIL-free: run it on a thread
                ev.run = None
                self.threads.submit(ev, run)
                ev.done = True
                if len(batch) >= self.batch_size:
                    self.flush()
                return
            self.threads.wait_for(ev)  # its value is read now: after the ops it depends on
            if self.threads.failed:
                self.settle()
        if run is not None:
            try:
                ev.value = run()
            except RecursionError:
                raise
            except Exception as err:  # a fault of a deferred op is reported at that op,
                if threads is not None:
                    self.settle()  # an op on a thread issued before it failed first
                self.flush()  # unless a race before it explains it
                raise op_fault(ev.op, err) from None
            ev.run = None  # release the operands
        ev.done = True
        if len(batch) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        """Bring the happens-before engine up to date with every executed event."""
        if self.threads is not None and self.threads.failed:
            self.settle()  # a kernel failed: the run ends there, not at a later race
        batch = self.batch
        if batch:
            hb = self.hb
            self.batch = []
            hb.run_batch(batch)
            hb.tick(len(batch))  # `execute` counted its events too: a prune a little early

    def _drain(self, lane: int) -> None:
        """Run the queue of `lane` (and the queues its set_flags unblock) as far as it goes."""
        pending = [lane]
        queues = self.queues
        bits = self.flag_bits
        while pending:
            queue = queues[pending.pop()]
            while queue:
                head = queue[0]
                if head.kind == WAIT and head.key not in bits:
                    break
                queue.popleft()
                self._execute(head)
                if head.kind == SET and queues[head.dst_lane]:
                    pending.append(head.dst_lane)

    # --- faults -------------------------------------------------------------------------------

    def _fault(self, err: SyncError) -> None:
        self.flush()  # an earlier race is the first problem to report
        if not self.collect:
            raise err
        self.faults.append(err)

    def stuck(self) -> list[Event]:
        """The head event of every blocked queue, in issue order."""
        return sorted((q[0] for q in self.queues if q), key=lambda e: e.seq)

    def _deadlock(self, at: Event | None, what: str) -> SyncError:
        parts = []
        if at is not None:
            parts.append(f"{what} {self._waiting(at)}")
        for head in self.stuck():
            queued = len(self.queues[head.lane]) - 1
            more = f" ({queued} more op{'s' if queued != 1 else ''} queued behind it)" if queued else ""
            parts.append(f"pipe {head.pipe} waits at {self._waiting(head)}{more}")
        events = tuple(([at] if at is not None else []) + self.stuck())
        message = "deadlock: " + "; ".join(parts) + \
            ": no set_flag that could release " + ("them" if len(parts) > 1 else "it") + \
            " is issued or can run"
        return SyncError("deadlock", message, events[0].op if events else None, events)

    @staticmethod
    def _waiting(ev: Event) -> str:
        if ev.kind == WAIT:
            return f"{ev.describe()} for flag {ev.src} -> {ev.dst} event {ev.event_id}"
        return f"{ev.describe()} for every pipe to finish"

    def finish(self) -> None:
        """Kernel end: deadlocks (blocked queues), then unbalanced flags."""
        if self.shuffle is not None:
            self._run_ready(None)
        self.settle()
        self.flush()
        if self.stuck():
            self._fault(self._deadlock(None, ""))
        for ev in self.hb.unbalanced():
            self._fault(SyncError(
                "unbalanced",
                f"set_flag {ev.src} -> {ev.dst} event {ev.event_id} ({ev.describe()}) is never "
                f"waited: the kernel ends with the flag set (set_flag and wait_flag must come in "
                f"pairs)",
                ev.op, (ev,)))


# ------------------------------------------------------------------------------------------------
# Independent ops on threads
# ------------------------------------------------------------------------------------------------


class _Task:
    __slots__ = ("ev", "run", "waiting", "after", "done", "skip")

    def __init__(self, ev: Event, run: Callable[[], Any] | None):
        self.ev = ev
        self.run = run
        self.waiting = 0  # unfinished tasks it must start after
        self.after: list[_Task] = []  # tasks waiting for this one
        self.done = False
        self.skip = False  # an op it depends on failed: the run fails there, do not run it


WINDOW = 16
"""Ops in flight per thread at most: the scalar unit runs this far ahead of the pipes' kernels
before it waits (bounds the operands kept alive and the footprint scans)."""


class ThreadedRuns:
    """Runs the numpy kernels of pipe ops on a thread pool, in an order equivalent to the
    scheduler's sequential one: an op starts once every earlier op (in the scheduler's execution
    order) whose footprint overlaps its own, one of the two writing, has finished. The footprints
    are the engine's (`Event.accesses`, `access.overlap`): ops that touch disjoint bytes commute,
    so every byte sees the same writes in the same order as with one thread and the results are
    bit-identical. numpy releases the GIL inside matmul, copies and conversions, so kernels run
    side by side while the scalar unit (the interpreter) issues the next ops.

    Shared state the kernels touch besides their operands (the operand-image caches of
    `executor/engine/memory.py`) is guarded by `MemorySpace.lock`."""

    def __init__(self, jobs: int):
        self.pool = ThreadPoolExecutor(jobs, thread_name_prefix="mmair-op")
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.live: dict[tuple, list[tuple]] = {}
        """(space, memory) -> [(first byte, end of the hull, write, access, task)] of the tasks
        not seen finished, in submit order."""
        self.outstanding = 0
        self.window = WINDOW * jobs
        self.failed: list[tuple[int, Event, BaseException]] = []
        # The GIL switch interval stays Python's (5 ms): lowering it to 0.1 ms measured slower
        # on the 2048^3 run (1.8-2.0 s vs 1.6 s with --jobs 2 at load 4).

    def _deps(self, ev: Event) -> list[_Task]:
        """The unfinished tasks whose footprints conflict with `ev`'s (dropping finished ones)."""
        deps: list[_Task] = []
        live = self.live
        for a in ev.accesses:
            key = (a.space, a.memory)
            entries = live.get(key)
            if not entries:
                continue
            lo, hi, write = a.start, a.end, a.write
            kept = []
            for entry in entries:
                task = entry[4]
                if task.done:
                    continue
                kept.append(entry)
                # the byte hulls first: most tile pairs are disjoint or the same tile
                if (write or entry[2]) and lo < entry[1] and entry[0] < hi and \
                        task not in deps and overlap(a, entry[3]) is not None:
                    deps.append(task)
            live[key] = kept
        return deps

    def submit(self, ev: Event, run: Callable[[], Any]) -> None:
        deps = self._deps(ev)
        task = _Task(ev, run)
        live = self.live
        for a in ev.accesses:
            key = (a.space, a.memory)
            lo, hi = a.start, a.end
            entry = (lo, hi, a.write, a, task)
            entries = live.get(key)
            if entries is None:
                live[key] = [entry]
                continue
            if a.write and (a.rows <= 1 or a.stride <= a.width):
                # A write of one contiguous byte range orders itself after every entry inside
                # it (they conflict with it), so a later op that conflicts with such an entry
                # conflicts with this write too and waits for it: the entries are redundant.
                entries[:] = [e for e in entries if e[0] < lo or e[1] > hi or e[4] is task]
            entries.append(entry)
        with self.lock:
            for dep in deps:
                if not dep.done:
                    dep.after.append(task)
                    task.waiting += 1
                    if dep.skip:
                        task.skip = True
            self.outstanding += 1
            ready = task.waiting == 0
            while self.outstanding > self.window:
                self.changed.wait()
        if ready:
            self.pool.submit(self._run, task)

    def _run(self, task: _Task) -> None:
        error = None
        if not task.skip:
            try:
                task.run()  # type: ignore[misc]
            except BaseException as err:  # reported at the op by `settle`
                error = err
        task.run = None
        ready = []
        with self.lock:
            task.done = True
            if error is not None:
                self.failed.append((task.ev.seq, task.ev, error))
            for t in task.after:
                t.waiting -= 1
                if error is not None or task.skip:
                    t.skip = True
                if t.waiting == 0:
                    ready.append(t)
            task.after = []
            self.outstanding -= 1
            self.changed.notify_all()
        for t in ready:
            self.pool.submit(self._run, t)

    def wait_for(self, ev: Event) -> None:
        """Block until the ops `ev` depends on have finished (it then runs on this thread)."""
        deps = self._deps(ev)
        with self.lock:
            while any(not d.done for d in deps):
                self.changed.wait()

    def wait_all(self) -> tuple[Event, BaseException] | None:
        """Block until every task has finished; the earliest failure, if any."""
        with self.lock:
            while self.outstanding:
                self.changed.wait()
            failed = min(self.failed, key=lambda f: f[0]) if self.failed else None
            self.failed = []
        self.live.clear()
        return (failed[1], failed[2]) if failed is not None else None

    def close(self) -> None:
        with self.lock:
            while self.outstanding:
                self.changed.wait()
        self.pool.shutdown(wait=True)


# ------------------------------------------------------------------------------------------------
# Static entry point
# ------------------------------------------------------------------------------------------------


@dataclass
class Analysis:
    """What the checker finds in a static event stream: `conflicts` (unordered overlapping
    accesses, at least one a write: exactly the races the executor would report, all of them
    rather than the first), and `faults` (deadlocks, unbalanced and overflowing flags)."""

    conflicts: list[Conflict] = field(default_factory=list)
    faults: list[SyncError] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def analyze(events: Iterable[Event], cores: int = 1, shuffle: Any = None) -> Analysis:
    """Run the checker over `events` given in program (issue) order, without executing anything.

    For `pto-insert-sync`: build one `Event` per pipe op and sync op in program order with static
    footprints (`footprint.accesses(op, None)`, or `seam.static_event(op, target, iteration)`), and
    represent each `scf.for` body twice in a row (iteration labels e.g. (("%k", 0),) and
    (("%k", 1),)) so that loop-carried dependencies appear as conflicts between the second copy and
    the first. The events' `seq` is assigned here when it is 0. The result lists every pair the
    executor's checker would report as a race (same hb rules, same footprints), plus
    deadlocks and unbalanced flags. Each `Conflict` names `first` (earlier in the schedule) and
    `second`: a flag `first.pipe -> second.pipe` (set after `first`, wait before `second`), or a
    `pipe_barrier(second.pipe)` when both are on the same barrier-needing pipe, orders them.
    Events whose pipe is blocked forever (a wait without a set) are never checked; they show up
    in `faults` as a deadlock. `shuffle` (tests): a `random.Random` choosing another legal
    schedule (`Scheduler.shuffle`).
    """
    sched = Scheduler(cores, collect=True)
    sched.shuffle = shuffle
    kept: list[Event] = []
    for ev in events:
        if not ev.seq:
            ev.seq = sched.next_seq()
        else:
            sched.seq = max(sched.seq, ev.seq)
        kept.append(ev)
        sched.issue(ev)
    sched.finish()
    return Analysis(sched.hb.conflicts, sched.hb.faults + sched.faults, kept)


__all__ = ["PIPES", "Analysis", "Scheduler", "analyze"]
