"""Pipe events: the one event stream of mmair's concurrency engine.

Every instruction the scalar unit issues to a pipe (a data move, a mad, a fixpipe, a GatherMask, a
`set_flag` / `wait_flag` / `pipe_barrier`), and every scalar access that must be ordered against
the pipes (pipe S), is one `Event`: plain data, no xDSL logic. The executor creates them at run
time with exact footprints (`dialects/pto/effects.py`); `pto-insert-sync` creates them statically
with conservative ones; the scheduler (`executor/engine/scheduler.py`) executes them in an order the
hardware could produce and the happens-before engine (`executor/engine/hb.py`) fills in `epoch` and
`preds`. A timeline (start/end cycles from isa costs) or a multi-core run consumes the same events.
When nothing needs the Event itself (no timeline, no queue, no result read later), the seam's
fast path batches a tuple that stands for it instead: a sync step (`FlagPlan`'s items) or a
result-less pipe op (`OP`, `OpPlan`); the engine builds the Event only for a message.

Happens-before predecessors (`preds`), filled when the event executes: the previous event of the
same in-order pipe (S); on the other pipes, which need `pipe_barrier` between dependent ops
(`pipes.needs_same_pipe_barrier`), the last barrier or wait_flag of that pipe (they hold the
queue) and the previous op when that one is `sequential`; for a `wait_flag`, the `set_flag` it consumed; for a `set_flag` or
`pipe_barrier`, the pipe's previous set/barrier and every event of the pipe since (they must
finish before it fires); for `pipe_barrier(all)`, the last events of every pipe of the core. An
event may start when all its predecessors have finished (and, on its pipe, in issue order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mmair.dialects.locations import op_location
from mmair.dialects.origin import written_name
from mmair.dialects.value_names import value_label
from mmair.executor.engine.errors import ExecutionError
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.tcgen05.units import LABELS as UNIT_LABELS
from mmair.isa.tcgen05.units import UNITS

# Event kinds other than the op kinds of `effects.EFFECTS` ("mte_gm_l1", "mad", ...).
SET = "set_flag"
WAIT = "wait_flag"
BARRIER = "pipe_barrier"
BARRIER_ALL = "pipe_barrier_all"
SCALAR = "scalar"
"""A scalar-unit access (pipe S): a read of a pipe op's result, a scalar load or store."""

PIPES: tuple[Pipe, ...] = tuple(Pipe)
"""The lanes of an Ascend core (the default unit set of the engine)."""
LANE_SETS: tuple[tuple, ...] = (PIPES, UNITS)
"""The unit sets a core can have: Ascend pipes, or the units of a tcgen05 CTA
(`isa.tcgen05.units`). A run uses one set; each set numbers its units from 0 inside a core's
`NUM_PIPES` slots, so the lanes of a core stay `core * NUM_PIPES + index`."""
PIPE_INDEX: dict = {p: i for units in LANE_SETS for i, p in enumerate(units)}
NUM_PIPES = max(len(units) for units in LANE_SETS)


def lane_of(core: int, pipe: Pipe) -> int:
    """Index of (core, pipe) in the engine's per-pipe arrays."""
    return core * NUM_PIPES + PIPE_INDEX[pipe]


def flag_key(core: int, src: Pipe, dst: Pipe, event_id: int | None) -> int:
    """The hardware bit of flag `src -> dst, event_id` on `core` (None: the pair, any id)."""
    pair = (core * NUM_PIPES + PIPE_INDEX[src]) * NUM_PIPES + PIPE_INDEX[dst]
    return pair if event_id is None else pair * 4096 + event_id + 1


class Event:
    """One instruction of one pipe of one core (module docstring)."""

    __slots__ = (
        "seq", "core", "pipe", "op", "kind", "accesses", "iteration", "preds", "epoch", "lane",
        "src", "dst", "event_id", "run", "done", "value", "sequential", "key", "dst_lane",
        "lazy",
    )

    def __init__(
        self,
        seq: int,
        core: int,
        pipe: Pipe,
        op: Any,
        kind: str,
        accesses: list | tuple = (),
        iteration: tuple = (),
        *,
        src: Pipe | None = None,
        dst: Pipe | None = None,
        event_id: int | None = None,
        run: Callable[[], Any] | None = None,
        sequential: bool = False,
        lane: int = -1,
    ):
        self.seq = seq  # issue order (program order of the scalar unit)
        self.core = core
        self.pipe = pipe
        self.op = op  # the operation (None for synthetic events): locations in messages
        self.kind = kind
        self.accesses = accesses  # `access.Access`es: exact at run time, conservative statically
        # (footprint, operand values): `accesses` not computed yet; the happens-before engine
        # computes them when it checks the event (in its batch, with its data in the caches).
        self.lazy: tuple | None = None
        # ((loop, induction value), ...) of the enclosing `scf.for` loops, outermost first; the
        # loop is the `scf.for` op (its induction variable names it) or a label string.
        self.iteration = iteration
        self.preds: list[Event] = []  # filled by the hb engine when it records predecessors
        self.epoch = 0  # position in its pipe (1-based), set when it executes
        # `lane_of(core, pipe)`, unless the caller has it (hashing a Pipe runs Python code)
        self.lane = lane if lane >= 0 else core * NUM_PIPES + PIPE_INDEX[pipe]  # mutation: skip (callers pass lane_of(core, pipe), the same value)
        # set_flag / wait_flag: the pipe pair and event id (`key` names the hardware bit; fixed
        # at construction: build a new Event for another id); pipe_barrier: all None.
        self.src = src
        self.dst = dst
        self.event_id = event_id
        if dst is None:
            self.key: Any = None
            self.dst_lane = -1
        else:
            self.dst_lane = core * NUM_PIPES + PIPE_INDEX[dst]
            self.key = flag_key(core, src, dst, event_id)  # type: ignore[arg-type]
        self.run = run  # executes the op's effect (the executor's numpy kernel); None statically
        # On a pipe that needs `pipe_barrier` between dependent ops: this op finishes before a
        # later op of its pipe reaches its bytes anyway (a large mad, `pipes.mad_needs_barrier`).
        self.sequential = sequential
        self.done = False
        self.value: Any = None  # what `run` returned (the op's result values)

    def __repr__(self) -> str:
        return f"Event({self.seq}, {self.pipe}, {self.kind}, epoch={self.epoch})"

    def describe(self) -> str:
        """`'pto.mad' at f.mlir:3:5 (pipe m, iteration %k = 256)`."""
        # A converted PTOAS op is named as written: 'pto.tmov' (mmair pto.mte_l1_l0a).
        name = written_name(self.op) if self.op is not None else self.kind
        where = op_where(self.op)
        label = UNIT_LABELS.get(self.pipe)  # a tcgen05 unit, else an Ascend pipe
        text = f"{name}{f' at {where}' if where else ''} ({label or f'pipe {self.pipe}'}"
        if self.core:
            text += f", {'CTA' if label else 'core'} {self.core}"
        its = format_iteration(self.iteration)
        return text + (f", {its})" if its else ")")


def op_event(seq: int, core: int, pipe: Pipe, op: Any, kind: str, iteration: tuple, lane: int,
             sequential: bool) -> Event:
    """`Event(seq, core, pipe, op, kind, (), iteration, sequential=sequential, lane=lane)` of a
    pipe op (no flag fields, no `run`), built without the keyword-argument call: the seam's
    fast path makes one per executed pipe op."""
    ev = _new_event(Event)
    ev.seq = seq
    ev.core = core
    ev.pipe = pipe
    ev.op = op
    ev.kind = kind
    ev.accesses = ()
    ev.lazy = None
    ev.iteration = iteration
    ev.preds = []
    ev.epoch = 0
    ev.lane = lane
    ev.src = ev.dst = ev.event_id = ev.key = ev.run = ev.value = None
    ev.dst_lane = -1
    ev.sequential = sequential
    ev.done = False
    return ev


_new_event = object.__new__

OP = "op"
"""Tag of a batched pipe op without an Event (the seam's fast path for a result-less op that runs
at once): `(OP, plan, args, seq, iteration, sequential)` with `plan` an `OpPlan`. The engine
records the tuple itself and builds the Event only for a message (`as_event`)."""


class OpPlan:
    """What an `Event` of one pipe op holds that does not change between its executions: its
    footprint (`footprint.Footprint`), op, core, pipe, kind and lane; `kept`: the engine's
    lookups for its last access list (`HappensBefore.execute_item`)."""

    __slots__ = ("footprint", "op", "core", "pipe", "kind", "lane", "kept")

    def __init__(self, footprint: Any, op: Any, core: int, pipe: Pipe, lane: int):
        self.footprint = footprint
        self.op = op
        self.core = core
        self.pipe = pipe
        self.kind = footprint.kind
        self.lane = lane
        self.kept: tuple | None = None


def as_event(x: Any, epoch: int) -> Event:
    """The Event of a recorded access's owner: an Event, or an `OP` batch item (executed as
    `epoch` of its lane)."""
    if x.__class__ is not tuple:
        return x
    _, plan, _, seq, iteration, sequential = x
    ev = op_event(seq, plan.core, plan.pipe, plan.op, plan.kind, iteration, plan.lane,
                  sequential)
    ev.epoch = epoch
    ev.done = True
    return ev


def format_iteration(iteration: tuple) -> str:
    """`iteration %i = 0, %k = 256` (empty outside loops)."""
    if not iteration:
        return ""
    parts = []
    for loop, value in iteration:
        if isinstance(loop, str):
            parts.append(f"{loop} = {value}")
            continue
        name = ""
        body = getattr(loop, "body", None)
        if body is not None and body.blocks and body.blocks.first.args:
            name = value_label(body.blocks.first.args[0])
        parts.append(f"{name or 'loop'} = {value}")
    return "iteration " + ", ".join(parts)


def op_where(op: Any) -> str:
    """`file:line:col` of an op (or its closest located ancestor), '' when unknown."""
    if op is None:
        return ""
    file, line, col = op_location(op)
    if file is None:
        return ""
    return f"{file}:{line}:{col}" if line is not None else file


SET_WAIT = "set_wait"
"""A `HappensBefore.light` step: a set_flag and the wait_flag issued right after it."""


class FlagPlan:
    """A `set_flag` / `wait_flag` op decoded once (the seam keeps one per op): its pipes, static
    event id (None: an index operand), lanes and flag key, and the prebuilt batch items of
    `HappensBefore.light`. `fused`: for a set_flag, the wait_flag op of the same flag that
    follows it with nothing but scalar arithmetic (`arith`) between (None if there is none)."""

    __slots__ = ("op", "core", "src", "dst", "event_id", "src_lane", "dst_lane", "key",
                 "wait_item", "pair_item", "fused")

    def __init__(self, op: Any, core: int, src: Pipe, dst: Pipe, event_id: int | None,
                 fused: Any = None):
        self.op = op
        self.core = core
        self.src = src
        self.dst = dst
        self.event_id = event_id
        self.src_lane = lane_of(core, src)
        self.dst_lane = lane_of(core, dst)
        self.key = None if event_id is None else flag_key(core, src, dst, event_id)  # mutation: skip (no lookup uses the key of a plan without a static id: the seam builds its flag at run time)
        # (the batched items append their issue number: `Scheduler.light_wait` & co.)
        self.wait_item = (WAIT, self.dst_lane, self.key, self)
        self.pair_item = (SET_WAIT, self.src_lane, self.dst_lane, self.key, self)
        self.fused = fused


def flag_event(held: Any) -> Event:
    """The set_flag Event of a `HappensBefore.flags` entry (built from the `light` item
    `(SET, plan, seq, iteration)` that stood for it when the set ran without one, or from a
    `(SET_WAIT, src lane, dst lane, key, plan, seq)` item: no loop iteration then)."""
    if isinstance(held, Event):
        return held
    if held[0] == SET_WAIT:
        plan = held[4]
        return Event(held[5], plan.core, plan.src, plan.op, SET, (), (), src=plan.src,
                     dst=plan.dst, event_id=plan.event_id)
    _, plan, seq, iteration = held
    return Event(seq, plan.core, plan.src, plan.op, SET, (), iteration, src=plan.src,
                 dst=plan.dst, event_id=plan.event_id)


def wait_event(held: Any) -> Event:
    """The wait_flag Event of a `HappensBefore.consumed` entry: an Event, a `light` item
    `(WAIT, lane, key, plan, seq)` or `(SET_WAIT, src lane, dst lane, key, plan, seq of the
    set)` (whose wait is `plan.fused`); a light item carries no loop iteration."""
    if isinstance(held, Event):
        return held
    if held[0] == SET_WAIT:
        plan, op, seq = held[4], held[4].fused, held[5] + 1
    else:
        plan, seq = held[3], held[4]
        op = plan.op
    return Event(seq, plan.core, plan.dst, op, WAIT, (), (), src=plan.src, dst=plan.dst,
                 event_id=plan.event_id)


class SyncError(ExecutionError):
    """A synchronization fault found by the engine. `kind`: "race", "deadlock", "unbalanced",
    "overflow" or "event-id"; `events`: the events involved (the reported op's event first);
    `schedule`: see below."""

    def __init__(self, kind: str, message: str, op: Any, events: tuple[Event, ...] = (),
                 schedule: bool = False):
        super().__init__(message, op)
        self.kind = kind
        self.events = events
        self.schedule = schedule
        """Found in another legal schedule than the executed one (an overflow whose previous
        wait may not have passed yet: `HappensBefore._reset`)."""
