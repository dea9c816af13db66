"""The issue seam: how the interpreter (the scalar unit, pipe S) hands pipe ops to the scheduler.

With the sync checker on, `MmairInterpreter._step` passes every op whose class has a handler here
to it: data moves, mads, fixpipes and GatherMasks become `Event`s with exact footprints
(`footprint.Footprint`) on the pipe `isa.ascend.pipes.pipe_of` gives; `set_flag`, `wait_flag` and
`pipe_barrier` become sync events. Results of pipe ops (the GatherMask kept count) are produced on
their pipe: a scalar op that reads one is checked to be ordered after it (a `wait_flag v -> s`
after the producing op), like any other access. A scalar `memref.load` / `store` / `copy` of GM
runs at once on the scalar unit and is an event of pipe S with its exact bytes.

`static_event` builds the same events without running anything, for `pto-insert-sync`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from mmair.dialects import pto
from mmair.dialects.pto.effects import EFFECTS, memory_operands
from mmair.dialects.pto.footprint import Footprint
from mmair.dialects.pto.gm_access import (
    WindowError,
    gm_access,
    gm_element_access,
    root_value,
    scalar_gm_operands,
    static_access,
)
from mmair.dialects.value_names import value_label
from mmair.executor.engine.errors import ExecutionError, op_fault
from mmair.executor.engine.events import (
    BARRIER,
    BARRIER_ALL,
    OP,
    SCALAR,
    SET,
    WAIT,
    Event,
    FlagPlan,
    OpPlan,
    SyncError,
    flag_key,
    format_iteration,
    lane_of,
    op_event,
)
from mmair.executor.engine.scheduler import Scheduler
from mmair.isa.ascend.pipes import ALL_PIPES, Pipe, event_ids, mad_needs_barrier, pipe_of
from mmair.isa.ascend.targets import Target

_SET_FLAG = pto.SetFlagOp
_WAIT_FLAG = pto.WaitFlagOp
_PIPE_BARRIER = pto.PipeBarrierOp


def _space(value: SSAValue) -> str:
    t = value.type
    return t.space_name if isinstance(t, pto.TileType) else "gm"


def op_pipe(op: Operation, target: Target) -> Pipe:
    """The pipe that runs pto op `op` (by its kind and its source / destination spaces)."""
    operands = memory_operands(op)
    reads = [op.operands[i] for i, role in operands if role.read]
    writes = [op.operands[i] for i, role in operands if role.write]
    return pipe_of(EFFECTS[type(op)].kind, _space(reads[0]), _space(writes[0]), target)


_SCALAR_GM = (memref.LoadOp, memref.StoreOp, memref.CopyOp)
"""Scalar-unit accesses of GM (`GlobalTensor::GetValue` / `SetValue`): events on pipe S, ordered
against the pipes only by flags (`wait_flag mte3 -> s` before reading what MTE3 wrote,
`set_flag s -> mte2` before MTE2 reads what the scalar unit stored)."""

_SCALAR_DIALECTS = ("arith.", "scf.", "index.")
_VIEW_OPS = frozenset({
    "func.call", "func.return", "memref.subview", "memref.cast", "memref.dim",
    "memref.reinterpret_cast", "pto.alloc", "pto.reinterpret", "pto.block_idx", "pto.block_num",
})
"""Ops the interpreter runs without touching tile or GM bytes (scalars, control flow, views)."""


class _Pending:
    """A pipe op result not computed yet (its pipe is blocked): reading it is a race."""

    __slots__ = ("event",)

    def __init__(self, event: Event):
        self.event = event


class IssueSeam:
    """The checker-on seam of one core (module docstring)."""

    fast = True
    """Issue a pipe op whose queue is empty without the scheduler's deferred path, and fuse a
    set_flag with its wait_flag across scalar arithmetic (the same clocks and diagnostics;
    False forces `Scheduler.issue` and adjacent-only fusion: the tests compare the two)."""

    def __init__(self, target: Target, gm_names: dict[Hashable, str] | None = None,
                 core: int = 0, scheduler: Scheduler | None = None):
        self.target = target
        self.core = core
        self.scheduler = scheduler if scheduler is not None else \
            Scheduler(gm_names=gm_names, record_preds=False)
        self.event_ids = event_ids(target)
        self.handlers: dict[type[Operation], Callable[[Any, Operation, tuple], Any]] = {
            cls: self._issue_op for cls in EFFECTS
        }
        self.handlers[_SET_FLAG] = self._issue_set
        self.handlers[_WAIT_FLAG] = self._issue_wait
        self.handlers[_PIPE_BARRIER] = self._issue_barrier
        for cls in _SCALAR_GM:
            self.handlers[cls] = self._issue_scalar
        self.produced: dict[int, Event] = {}
        """Results of pipe ops not yet read by the scalar unit in order, by id of the value."""
        # Per-op decodes, keyed by id(op): ops hash in Python (xDSL), ids in C.
        self._decoded: dict[int, tuple[Footprint, Pipe, int, Any, Any, Any]] = {}
        self._flags: dict[int, FlagPlan] = {}
        self._skip: Operation | None = None
        """The wait_flag just issued together with its set_flag (`light_set_wait`)."""
        self._s_lane = lane_of(core, Pipe.S)
        self._scalar: dict[int, tuple] = {}
        """Scalar memref.load / store / copy ops decoded once, by id(op) (`_issue_scalar`)."""
        self._roots: dict[int, tuple[Any, int]] = {}
        self.timing: Any = None
        """`executor.timeline.Timeline` when timing: told each pipe op's runtime operands."""
        self.observer: Callable[[Any], None] | None = None
        """Called with each pipe op's accesses (`executor.coverage.Coverage.record`)."""
        self.numerics = True
        """False (`--timing-only`): pipe ops without results are scheduled and checked but
        their numpy kernels do not run."""
        self.threads: Any = None
        """`scheduler.ThreadedRuns` while pipe kernels run on threads (`start_threads`)."""
        self._scalar_safe: dict[type, bool] = {}
        self.read_only: frozenset[SSAValue] = frozenset()
        """GM buffers (function arguments) that no op of the kernel writes and that no other
        argument aliases (`runner.read_only_gm`, set by `run_module`, which copies every GM
        argument an op may write): a race needs a write, so the checker leaves their reads out of its
        footprints (a timeline or a coverage observer still gets every access)."""

    # --- threads ------------------------------------------------------------------------------

    def start_threads(self, jobs: int) -> None:
        """Run the kernels of independent pipe ops on `jobs` threads (`Scheduler.start_threads`)."""
        self.scheduler.start_threads(jobs)
        self.threads = self.scheduler.threads

    def scalar_op(self, op: Operation) -> None:
        """The interpreter runs `op` itself: unless it only computes scalars or makes views (no
        access to tile or GM bytes), wait for the kernels on the threads first."""
        safe = self._scalar_safe.get(type(op))
        if safe is None:
            name = op.name
            safe = self._scalar_safe[type(op)] = (  # mutation: skip (a cache: without it, None settles, slower)
                name.startswith(_SCALAR_DIALECTS) or name in _VIEW_OPS)
        if not safe and self.threads.outstanding:
            self.scheduler.settle()

    def close(self) -> None:
        """Stop the threads (waiting for the kernels in flight)."""
        self.threads = None
        self.scheduler.close()

    # --- pipe ops ---------------------------------------------------------------------------

    def _decode(self, interp: Any, op: Operation) -> tuple:
        """The per-op part of issuing pipe op `op`, computed once (`_decoded`)."""
        entry = interp._impls._impl_dict.get(type(op))  # pyright: ignore[reportPrivateUsage]
        if entry is None:  # e.g. pto.matmul: lowered, not run
            from mmair.executor.engine.interpreter import _unimplemented

            raise _unimplemented(op)
        from mmair.executor.engine.interpreter import _values_function

        pipe = op_pipe(op, self.target)
        footprint, lane = Footprint(op), lane_of(self.core, pipe)
        checked = footprint
        if self.read_only:
            unread = frozenset(i for i, role in memory_operands(op)
                               if not role.write and root_value(op.operands[i]) in self.read_only)
            if unread:  # reads no op writes: no race can involve them, nothing to record
                checked = Footprint(op, unread)
        decoded = self._decoded[id(op)] = (footprint, pipe, lane, *entry, _mad_sizes(op),
                                           bool(op.results), _values_function(entry[1]),
                                           OpPlan(checked, op, self.core, pipe, lane))
        return decoded

    def _issue_op(self, interp: Any, op: Operation, args: tuple) -> Any:
        decoded = self._decoded.get(id(op))
        if decoded is None:
            decoded = self._decode(interp, op)
        footprint, pipe, lane, ft, fn, mad, results, values_fn, plan = decoded
        sched = self.scheduler
        sequential = mad is not None and not mad_needs_barrier(args[mad[0]], args[mad[1]])
        if self.fast and sched.threads is None and not sched.queues[lane] and \
                self.timing is None and self.observer is None and not sched.record_preds:
            # The op runs now (its queue is empty) on this thread: the same steps as
            # `Scheduler.issue` -> `_execute`, without the deferred `run` closure.
            sched.seq += 1
            if not results:  # nothing reads it later: a batch item instead of an Event
                batch = sched.batch
                batch.append((OP, plan, args, sched.seq, interp.iteration, sequential))
                if self.numerics:
                    try:
                        if values_fn is not None:  # under xDSL's @impl wrapper
                            values_fn(ft, interp, op, args)
                        else:
                            fn(ft, interp, op, args)
                    except RecursionError:
                        raise
                    except Exception as err:  # reported at the op, unless a race before it
                        sched.flush()
                        raise op_fault(op, err) from None
                if len(batch) >= sched.batch_size:
                    sched.flush()
                return (), None
            ev = op_event(sched.seq, self.core, pipe, op, footprint.kind, interp.iteration,
                          lane, sequential)
            ev.lazy = (plan.footprint, args)
            batch = sched.batch
            batch.append(ev)
            if self.numerics or results:
                try:
                    if values_fn is not None:  # under xDSL's @impl wrapper (as the interpreter)
                        ev.value = (values_fn(ft, interp, op, args), None)
                    else:
                        ev.value = fn(ft, interp, op, args)
                except RecursionError:
                    raise
                except Exception as err:  # reported at the op, unless a race before it explains it
                    sched.flush()
                    raise op_fault(op, err) from None
            ev.done = True
            if len(batch) >= sched.batch_size:
                sched.flush()
            if not results:
                return (), None
            for res in op.results:
                self.produced[id(res)] = ev
            return ev.value
        eager = self.timing is not None or self.observer is not None
        try:
            accesses = footprint.accesses(args) if eager else ()
        except WindowError as err:  # an operand the op would refuse (timing-only never runs it)
            sched.flush()
            raise op_fault(op, ExecutionError(str(err))) from None
        ev = Event(sched.next_seq(), self.core, pipe, op, footprint.kind, accesses, interp.iteration,
                   run=partial(fn, ft, interp, op, args)
                   if self.numerics or results else None,
                   sequential=sequential, lane=lane)
        if not eager:
            ev.lazy = (plan.footprint, args)
        if self.timing is not None:
            self.timing.op_issued(ev, args)
        if self.observer is not None:
            self.observer(ev.accesses)
        sched.issue(ev)
        if not op.results:
            return (), None
        for res in op.results:
            self.produced[id(res)] = ev
        if ev.done:
            return ev.value
        return tuple(_Pending(ev) for _ in op.results), None

    # --- sync ops -----------------------------------------------------------------------------

    def _flag_plan(self, op: Any) -> FlagPlan:
        src, dst, event_id = op.src_pipe, op.dst_pipe, op.static_event
        fused = None
        after = op.next_op
        while self.fast and after is not None and after.name.startswith("arith.") and \
                not after.regions:
            after = after.next_op  # scalar arithmetic issues nothing to a pipe: the wait is next
        if isinstance(op, _SET_FLAG) and event_id is not None and isinstance(after, _WAIT_FLAG) \
                and after.static_event == event_id and after.src_pipe == src \
                and after.dst_pipe == dst:
            fused = after
        plan = self._flags[id(op)] = FlagPlan(op, self.core, src, dst, event_id, fused)
        return plan

    def op_step(self, interp: Any, op: Operation) -> Callable[[], Any] | None:
        """The interpreter's call for `op` when it needs no operand values (a set_flag or
        wait_flag with a static event id): the scheduler's light step bound to the op
        (`Scheduler.set_step` & co.), which falls back to the op's handler when it does not
        apply, so the interpreter skips reading operands and binding results. None for any
        other op."""
        if not self.fast:  # mutation: skip (the handler takes the same steps)
            return None
        if not isinstance(op, _SET_FLAG | _WAIT_FLAG) or op.static_event is None or op.operands:
            return None
        plan = self._flags.get(id(op))
        if plan is None:
            plan = self._flag_plan(op)
        sched = self.scheduler
        if isinstance(op, _SET_FLAG):
            fallback = partial(self._issue_set, interp, op, ())
            if not sched.light_steps_apply(plan):
                return fallback
            if plan.fused is not None:
                return sched.set_wait_step(plan, fallback)
            return sched.set_step(plan, interp, fallback)
        fallback = partial(self._issue_wait, interp, op, ())
        if not sched.light_steps_apply(plan):
            return fallback
        return sched.wait_step(plan, fallback)

    def pipe_step(self, interp: Any, op: Operation) -> Callable[[tuple], Any] | None:
        """The interpreter's call for a result-less pipe op: `_issue_op`'s fast path bound to
        the op once (its decode, plan, queue and kernel), called with the operand values; it
        takes `_issue_op` itself when the fast path does not apply (a queued op, threads, a
        timeline or an observer). None for any other op."""
        if not self.fast or type(op) not in EFFECTS or op.results:
            return None
        decoded = self._decoded.get(id(op))
        if decoded is None:
            try:
                decoded = self._decode(interp, op)
            except Exception:  # (no implementation, no pipe): `_issue_op` reports it when the
                return None  # op runs, after the ops before it, as without the bound step
        _, _, lane, ft, fn, mad, _, values_fn, plan = decoded
        sched = self.scheduler
        if sched.record_preds:  # a timeline's scheduler: every op is an Event (the handler)
            return None
        queue = sched.queues[lane]
        issue = self._issue_op
        # values_fn is fn's body under xDSL's @impl wrapper: the same call, one frame less
        kernel = values_fn if values_fn is not None else fn  # mutation: skip (fn wraps it)

        def step(args: tuple) -> Any:
            if queue or sched.threads is not None or self.timing is not None or \
                    self.observer is not None:
                return issue(interp, op, args)
            sequential = mad is not None and not mad_needs_barrier(args[mad[0]], args[mad[1]])
            sched.seq += 1
            batch = sched.batch
            batch.append((OP, plan, args, sched.seq, interp.iteration, sequential))
            if self.numerics:
                try:
                    kernel(ft, interp, op, args)
                except RecursionError:
                    raise
                except Exception as err:  # reported at the op, unless a race before it
                    sched.flush()
                    raise op_fault(op, err) from None
            if len(batch) >= sched.batch_size:
                sched.flush()
            return None
        return step

    def _event_id(self, op: Any, src: Pipe, dst: Pipe, args: tuple) -> int:
        event_id = args[0]
        if not 0 <= event_id < self.event_ids:
            raise SyncError(
                "event-id",
                f"event id {event_id} of {src} -> {dst} is out of range at run time: target "
                f"{self.target.name} has event ids 0..{self.event_ids - 1} per pipe pair",
                op)
        return event_id

    def _issue_set(self, interp: Any, op: Any, args: tuple) -> Any:
        plan = self._flags.get(id(op))
        if plan is None:
            plan = self._flag_plan(op)
        sched = self.scheduler
        event_id = plan.event_id
        if event_id is None:
            event_id = self._event_id(op, plan.src, plan.dst, args)
        elif plan.fused is not None and sched.light_set_wait(plan):
            return (), None
        elif sched.light_set(plan, interp.iteration):
            return (), None
        sched.issue(Event(sched.next_seq(), self.core, plan.src, op, SET, (), interp.iteration,
                          src=plan.src, dst=plan.dst, event_id=event_id))
        return (), None

    def _issue_wait(self, interp: Any, op: Any, args: tuple) -> Any:
        sched = self.scheduler
        if op is sched.skip:  # issued with its set_flag (`light_set_wait`)
            sched.skip = None
            return (), None
        plan = self._flags.get(id(op))
        if plan is None:
            plan = self._flag_plan(op)
        sched = self.scheduler
        event_id = plan.event_id
        if event_id is None:
            event_id = self._event_id(op, plan.src, plan.dst, args)
            key = flag_key(self.core, plan.src, plan.dst, event_id)
            if sched.light_wait(plan.dst_lane, key, (WAIT, plan.dst_lane, key, plan)):
                return (), None
        elif sched.light_wait(plan.dst_lane, plan.key, plan.wait_item):
            return (), None
        sched.issue(Event(sched.next_seq(), self.core, plan.dst, op, WAIT, (), interp.iteration,
                          src=plan.src, dst=plan.dst, event_id=event_id))
        return (), None

    def _issue_barrier(self, interp: Any, op: Any, args: tuple) -> Any:
        pipe = barrier_pipe(op)
        sched = self.scheduler
        iteration = interp.iteration
        if pipe is None:
            ev = Event(sched.next_seq(), self.core, Pipe.S, op, BARRIER_ALL, (), iteration)
        else:
            ev = Event(sched.next_seq(), self.core, pipe, op, BARRIER, (), iteration)
        sched.issue(ev)
        return (), None

    # --- scalar accesses of GM --------------------------------------------------------------

    def _issue_scalar(self, interp: Any, op: Operation, args: tuple) -> Any:
        """A scalar `memref.load` / `store` / `copy` of GM runs on the scalar unit at once, in
        program order (after the kernels on threads it may touch), and is an event on pipe S
        with its exact bytes (one element, or the copy's two views), checked against the pipes'
        accesses like any other: a load of what a pipe writes needs a `wait_flag <pipe> -> s`
        after that op, a store or copy over bytes a pipe still reads or writes the same, a pipe
        op touching stored bytes a flag `s -> <pipe>` after the store. Loads of a buffer no op
        writes (`read_only`) are not recorded."""
        decoded = self._scalar.get(id(op))
        if decoded is None:
            roles = scalar_gm_operands(op)
            # a load of a read-only buffer: nothing to check (an observer still gets it)
            checked = roles is not None and not (isinstance(op, memref.LoadOp) and
                                                 root_value(op.operands[0]) in self.read_only)
            decoded = self._scalar[id(op)] = (
                interp._impls._impl_dict[type(op)],  # pyright: ignore[reportPrivateUsage]
                roles, checked)
        (ft, fn), roles, checked = decoded
        if self.threads is not None:
            self.scalar_op(op)
        result = fn(ft, interp, op, args)  # a bad index fails here, before it is recorded
        if roles is None or (not checked and self.observer is None):
            return result  # not GM (a tcgen05 memref under --timing), or nothing to record
        if isinstance(op, memref.CopyOp):
            accesses = [gm_access(args[0], False, None, self._roots),
                        gm_access(args[1], True, None, self._roots)]
        else:
            at = roles[0][0]
            accesses = [gm_element_access(args[at], args[at + 1:], roles[0][1], self._roots)]
        if self.observer is not None:  # the pool's logs, --check-coverage
            self.observer(accesses)
        if checked:
            sched = self.scheduler
            sched.issue(Event(sched.next_seq(), self.core, Pipe.S, op, SCALAR, accesses,
                              interp.iteration, lane=self._s_lane))
        return result

    # --- scalar reads of pipe results ---------------------------------------------------------

    def scalar_reads(self, interp: Any, op: Operation, args: tuple) -> tuple:
        """`op` runs on the scalar unit: every operand produced by a pipe op must be ordered
        after that op (a wait_flag into S after it); returns `args` with the values filled in."""
        produced = self.produced
        operands = op.operands
        out = None
        for i, value in enumerate(operands):
            ev = produced.get(id(value))
            if ev is None:
                continue
            self.scheduler.flush()
            clock = self.scheduler.hb.clock[self._s_lane]
            if not ev.done or ev.epoch > clock[ev.lane]:
                where = format_iteration(interp.iteration)
                raise SyncError(
                    "race",
                    f"race on a scalar register: the scalar unit (pipe s{', ' + where if where else ''}) "
                    f"reads {_value_label(value)}, the result of {ev.describe()}, before a "
                    f"wait_flag {ev.pipe} -> s orders it after that op",
                    op, (ev,))
            del produced[id(value)]  # mutation: skip (a kept entry is checked again and passes: the clock only grows)
            result = ev.value[0][list(ev.op.results).index(value)]
            interp._env[id(value)] = result  # pyright: ignore[reportPrivateUsage]
            if out is None:
                out = list(args)
            out[i] = result
        return tuple(out) if out is not None else args

    def finish(self) -> None:
        self.scheduler.finish()
        self.close()


def _mad_sizes(op: Operation) -> tuple[int, int] | None:
    """Operand indices of m and n of a mad or a raw mmad (whose size decides whether it is
    `sequential`)."""
    if not isinstance(op, pto.MadOp | pto.MadAccOp | pto.MadBiasOp | pto.MmadOp):
        return None
    operands = list(op.operands)
    return operands.index(op.m), operands.index(op.n)


def _value_label(value: SSAValue) -> str:
    return value_label(value, "a value")


def barrier_pipe(op: Any) -> Pipe | None:
    """The pipe of a `pto.pipe_barrier` (None for `all`)."""
    pipe = op.barrier_pipe
    return None if pipe == ALL_PIPES else Pipe(pipe)


def static_event(op: Operation, target: Target, iteration: tuple = (), core: int = 0,
                 seq: int = 0) -> Event | None:
    """The event of `op` with its static (conservative) footprint, for `analyze`: pipe ops,
    sync ops (a dynamic event id is left None: give the event a concrete id before analysing)
    and the scalar unit's GM loads and stores (pipe S, the whole buffer); None for the other
    ops the scalar unit runs itself."""
    if type(op) in EFFECTS:
        sequential = False
        if _mad_sizes(op) is not None:
            m, n = pto.static_value(op.m), pto.static_value(op.n)  # pyright: ignore
            sequential = m is not None and n is not None and not mad_needs_barrier(m, n)  # mutation: skip (mad_needs_barrier is symmetric in m, n)
        return Event(seq, core, op_pipe(op, target), op, EFFECTS[type(op)].kind,
                     Footprint(op).accesses(None), iteration, sequential=sequential)
    if isinstance(op, _SET_FLAG | _WAIT_FLAG):
        src, dst = op.src_pipe, op.dst_pipe
        kind = SET if isinstance(op, _SET_FLAG) else WAIT
        return Event(seq, core, src if kind == SET else dst, op, kind, (), iteration,
                     src=src, dst=dst, event_id=op.static_event)
    if isinstance(op, _PIPE_BARRIER):
        pipe = barrier_pipe(op)
        return Event(seq, core, Pipe.S if pipe is None else pipe, op,
                     BARRIER_ALL if pipe is None else BARRIER, (), iteration)
    roles = scalar_gm_operands(op)
    if roles is not None:  # a scalar load / store / copy of GM: whole buffers, statically
        return Event(seq, core, Pipe.S, op, SCALAR,
                     [static_access(op.operands[i], write) for i, write in roles], iteration)
    return None
