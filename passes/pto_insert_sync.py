"""`pto-insert-sync`: insert the `set_flag` / `wait_flag` / `pipe_barrier` a pto kernel needs.

An AI Core runs each pipe's queue (MTE2, MTE1, M, FIX, V, MTE3, and S for scalar code) in order
and the pipes concurrently: a kernel is correct only when every dependency between instructions
of different pipes is ordered by `set_flag(src, dst, id)` / `wait_flag(src, dst, id)`, and every
dependency inside one pipe that may overlap dependent instructions by `pipe_barrier(pipe)`
(`mmair.isa.ascend.pipes`). This pass adds exactly the ordering the kernel lacks.

Which pairs of ops need ordering is not decided here: the pass builds the kernel's static event
stream (`executor.seam.static_event`: each pipe op with its conservative footprint, the whole
tile and the whole GM buffer; each `scf.for` body twice, so that a dependency of one iteration on
the previous shows up between the copies; both branches of an `scf.if`) and asks the executor's
checker (`executor.scheduler.analyze`) which accesses conflict without a happens-before order,
the same rules the executor's race checker applies at run time. It orders one conflict, asks
again, and stops when none is left; a conflict that an earlier insertion already orders (by a
flag to the same pipe, a chain of flags, a barrier) is not reported again. Pairs between the
`then` and `else` branches of one `scf.if` in one iteration never both run and are skipped.

How a conflict `first` (pipe p) -> `second` (pipe q) is ordered, at the ops P and C that contain
`first` and `second` in their closest common block:

* q == p: `pipe_barrier(p)` right before C (before C's loop body op when the dependency is
  carried by a loop: it runs between the two iterations).
* the same iteration of every enclosing loop: `set_flag p -> q` right after P, `wait_flag p -> q`
  right before C. If a flag p -> q of the same block already waits between P and C and its set
  comes before P with no q instruction in between, that set moves after P instead (one flag for
  both, as a hand-written kernel has it: loads of A and B, one set, one wait, the moves).
* carried by a loop L (first in one iteration, second in the next): the usual pattern, a set
  before L, then in L's body `wait_flag` before C and `set_flag` after P, and a wait after L that
  consumes the last iteration's set. Several such dependencies with one pipe pair share a flag in
  the same way as above. Each slot of a multi-buffered tile is a separate alloc with separate
  accesses, so each slot gets its own flag and the slots keep overlapping.
* a pipe pair that has no hardware event (e.g. fix -> mte1): `pipe_barrier(all)` before C.

Event ids are allocated at the end, per pipe pair: flags whose lifetimes overlap (set to wait
in program order; a loop-carried flag lives from its pre-loop set to its post-loop wait) get
different ids, and the ids of flags already in the kernel are not reused. Two flags that do not
overlap may still need different ids: when nothing orders the second's set after the first's
wait (its pipe may still be busy before that wait), the set may find the bit still set in some
legal schedule (docs/pipes.md "Legal schedules"); the ids are then assigned again with that pair
apart, until the checker finds none. Ids are judged on three copies of each loop body, not two:
the wait of a flag in iteration i can be held up by a flag set in iteration i - 1 (its pipe waits
for a slow pipe there), and then the set of another flag with the same id in iteration i + 1
finds the bit still set (a double-buffered loop whose second slot sits in an `scf.if`). (The same flag op in the next loop iteration needs no such
care: the consumer it waits for reads what the next iteration's producer writes again, so the
flag back that orders that write orders the next set too.) More than the target
has (`pipes.event_ids`) does not end the pass at once: the pair's flags are inserted again,
shared (a new dependency takes an existing flag whose wait lies between its producer and its
consumer even when moving the set delays an instruction of the waiting pipe: less overlap, fewer
ids; a set only ever moves later and stays before its wait in program order, so the kernel's
program order stays a legal schedule and no deadlock can appear). Only when the shared flags
still need too many ids is it an error naming the pipe pair. The result is checked once more with
the final ids: clean, balanced, no deadlock.

`mmair-lower` runs this pass last (tile -> multi-buffer -> assign addresses -> insert sync), so
that bytes reused by address assignment are seen as dependencies too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from mmair.dialects import pto
from mmair.dialects.locations import derive
from mmair.dialects.pto.access import Access
from mmair.dialects.value_names import value_label
from mmair.executor.engine.events import SCALAR, Event, SyncError
from mmair.executor.engine.hb import Conflict
from mmair.executor.engine.scheduler import analyze
from mmair.executor.engine.seam import static_event
from mmair.isa.ascend.pipes import ALL_PIPES, Pipe, event_ids, flag_pairs
from mmair.isa.ascend.targets import Target
from mmair.passes.multi_buffer import constant_index
from mmair.passes.pass_errors import PassOpError, resolve_target

MAX_ROUNDS = 10_000
"""Bound on insertions per function (each orders at least one conflict for good)."""

_PROVISIONAL = 1 << 20
"""Event ids while the pass runs: unique per inserted flag, replaced by `_assign_event_ids`."""


@dataclass
class _Flag:
    """One inserted flag: its set_flag / wait_flag, and for a loop-carried flag the set before
    and the wait after the loop."""

    src: Pipe
    dst: Pipe
    set_op: pto.SetFlagOp
    wait_op: pto.WaitFlagOp
    loop: scf.ForOp | None = None
    pre_set: pto.SetFlagOp | None = None
    post_wait: pto.WaitFlagOp | None = None

    def ops(self) -> list[pto.SetFlagOp | pto.WaitFlagOp]:
        found: list[pto.SetFlagOp | pto.WaitFlagOp] = [self.set_op, self.wait_op]
        if self.pre_set is not None and self.post_wait is not None:
            found += [self.pre_set, self.post_wait]
        return found


@dataclass
class _Stats:
    """What the pass inserted into one function (for tests and reports)."""

    flags: int = 0
    barriers: int = 0
    by_pair: dict[tuple[str, str], int] = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------
# The static event stream
# ----------------------------------------------------------------------------------------------


def _trips(loop: scf.ForOp) -> int | None:
    bounds = [constant_index(v) for v in (loop.lb, loop.ub, loop.step)]
    if any(b is None for b in bounds):
        return None
    lb, ub, step = bounds
    assert lb is not None and ub is not None and step is not None
    return max(0, -(-(ub - lb) // step)) if step > 0 else None


def _register(value: SSAValue, write: bool) -> Access:
    """A pipe op's scalar result as a one-byte memory of its own: the producing op writes it,
    the scalar unit's first read of it reads it (a `wait_flag p -> s` must order the two)."""
    return Access("reg", 0, 1, write=write, buffer=value_label(value, "a result"), memory=value)


class Templates:
    """The static event of each pipe op (`seam.static_event`), computed once: its pipe and footprint do not change while
    the pass inserts sync ops (sync ops are rebuilt each time: their event ids change)."""

    def __init__(self, target: Target):
        self.target = target
        self.cache: dict[Operation, Event | None] = {}
        self.exclusive: dict[tuple[Operation, Operation], bool] = {}

    def event(self, op: Operation, iteration: tuple) -> Event | None:
        if isinstance(op, pto.SetFlagOp | pto.WaitFlagOp | pto.PipeBarrierOp):
            return static_event(op, self.target, iteration)
        if op not in self.cache:
            ev = static_event(op, self.target)
            if ev is not None and op.results and ev.pipe is not Pipe.S:  # (a scalar load's
                # value is the scalar unit's own register)
                ev.accesses = list(ev.accesses) + [_register(r, True) for r in op.results]
            self.cache[op] = ev
        template = self.cache[op]
        if template is None:
            return None
        ev = Event(0, template.core, template.pipe, op, template.kind, template.accesses,
                   iteration)
        ev.sequential = template.sequential
        return ev

    def pipe(self, op: Operation) -> Pipe | None:
        ev = self.event(op, ())
        return None if ev is None else ev.pipe


RACE_COPIES = 2
"""Copies of each `scf.for` body in the stream that finds races: a dependency carried by a loop
lies between two consecutive iterations."""

ID_COPIES = 3
"""Copies when event ids are judged: a set can be lost in iteration i + 1 when the wait of the
same id in iteration i is held up by a flag from iteration i - 1 (module docstring)."""


def event_stream(
    function: func.FuncOp, target: Target, templates: Templates | None = None,
    copies: int = RACE_COPIES,
) -> list[Event]:
    """The static events of `function` in program order, each loop body `copies` times (or
    its trip count when smaller; module docstring)."""
    templates = templates or Templates(target)
    events: list[Event] = []
    produced: set[SSAValue] = set()

    def walk(block: Block, iteration: tuple) -> None:
        for op in block.ops:
            if isinstance(op, scf.ForOp):
                trips = _trips(op)
                for copy in range(copies if trips is None else min(trips, copies)):
                    walk(op.body.block, iteration + ((op, copy),))
                continue
            reads = [v for v in op.operands if v in produced]
            if reads:  # the scalar unit reads a pipe op's result
                events.append(Event(0, 0, Pipe.S, op, SCALAR,
                                    [_register(v, False) for v in reads], iteration))
                produced.difference_update(reads)
            if op.regions:
                for region in op.regions:
                    for inner in region.blocks:
                        walk(inner, iteration)
                continue
            ev = templates.event(op, iteration)
            if ev is None:
                continue
            if isinstance(op, pto.SetFlagOp | pto.WaitFlagOp) and ev.event_id is None:
                raise PassOpError(op, "has a runtime event id: pto-insert-sync needs static ids")
            if ev.pipe is not Pipe.S:
                produced.update(op.results)
            events.append(ev)

    walk(function.body.block, ())
    return events


# ----------------------------------------------------------------------------------------------
# Placement
# ----------------------------------------------------------------------------------------------


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    """`op` or its ancestor whose parent block is `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _blocks(op: Operation) -> list[Block]:
    """The blocks enclosing `op`, innermost first."""
    found = []
    block = op.parent_block()
    while block is not None:
        found.append(block)
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return found


def _common_block(a: Operation, b: Operation) -> Block | None:
    inner = set(_blocks(b))
    return next((blk for blk in _blocks(a) if blk in inner), None)


def _index(op: Operation) -> int:
    block = op.parent_block()
    assert block is not None
    return block.get_operation_index(op)


def _carrier(conflict: Conflict) -> scf.ForOp | None:
    """The loop whose consecutive iterations the two events are in (None: same iteration)."""
    for (loop_a, copy_a), (loop_b, copy_b) in zip(
        conflict.first.iteration, conflict.second.iteration, strict=False
    ):
        if loop_a is not loop_b:
            return None
        if copy_a != copy_b:
            return loop_a
    return None


def _exclusive(conflict: Conflict, cache: dict[tuple[Operation, Operation], bool]) -> bool:
    """True for events in the two branches of one `scf.if` in the same iteration."""
    if _carrier(conflict) is not None:
        return False
    a, b = conflict.first.op, conflict.second.op
    found = cache.get((a, b))
    if found is None:
        block = _common_block(a, b)
        pa = pb = None
        if block is not None:
            pa, pb = _ancestor_in(a, block), _ancestor_in(b, block)
        found = cache[(a, b)] = pa is pb and isinstance(pa, scf.IfOp)
    return found


def _pipe_ops(op: Operation, pipe: Pipe, templates: Templates) -> bool:
    """True if `op` (or an op nested in it) issues an instruction to `pipe`."""
    return any(not inner.regions and templates.pipe(inner) is pipe for inner in op.walk())


class _OutOfIds(Exception):
    """More flags of one pipe pair live at once than the target has event ids."""

    def __init__(self, pair: tuple[Pipe, Pipe], error: PassOpError):
        super().__init__(str(error))
        self.pair, self.error = pair, error


class _Inserter:
    """The flags and barriers inserted into one function (module docstring). `shared`: pipe
    pairs whose flags merge whenever one's wait lies between the producer and the consumer,
    even when that delays an instruction of the waiting pipe (fewer ids, less overlap)."""

    def __init__(self, function: func.FuncOp, target: Target, templates: Templates,
                 shared: frozenset[tuple[Pipe, Pipe]] = frozenset()):
        self.function = function
        self.target = target
        self.templates = templates
        self.shared = shared
        self.flags: list[_Flag] = []
        self.barriers: list[pto.PipeBarrierOp] = []
        self.pairs = flag_pairs(target)

    def remove_all(self) -> None:
        """Take out every op this inserter put in (the function is as it was given)."""
        for op in [op for flag in self.flags for op in flag.ops()] + list(self.barriers):
            op.detach()
            op.erase()
        self.flags, self.barriers = [], []

    def _provisional(self) -> int:
        return _PROVISIONAL + len(self.flags)

    def order(self, conflict: Conflict) -> None:
        first, second = conflict.first, conflict.second
        p, q = first.pipe, second.pipe
        loop = _carrier(conflict)
        if loop is not None:
            block = loop.body.block
        else:
            found = _common_block(first.op, second.op)
            assert found is not None, "ops of one function"
            block = found
        pa, pc = _ancestor_in(first.op, block), _ancestor_in(second.op, block)
        assert pa is not None and pc is not None
        # New ops take the location of the op whose dependency they protect (sets: the
        # producer's, waits and barriers: the consumer's), so messages name the kernel's line.
        ends = (first.op, second.op)
        if p is q:
            self._barrier(p, pc, second.op)
        elif (p, q) not in self.pairs:
            self._barrier(ALL_PIPES, pc, second.op)
        elif loop is not None and _index(pa) >= _index(pc):
            self._carried(p, q, loop, pa, pc, ends)
        else:
            self._straight(p, q, block, pa, pc, ends)

    def _barrier(self, pipe: Pipe | str, before: Operation, consumer: Operation) -> None:
        op = derive(pto.PipeBarrierOp(pipe), consumer)
        block = before.parent_block()
        assert block is not None
        block.insert_op_before(op, before)
        self.barriers.append(op)

    def _mergeable(self, flag: _Flag, block: Block, pa: Operation, pc: Operation) -> bool:
        """`flag`'s wait is between P and C and its set can move after P: nothing issued to the
        waiting pipe lies between the set and P (the move delays no instruction of it that could
        otherwise run: the kernel keeps its overlap, e.g. one flag per multi-buffer slot)."""
        wait, setf = flag.wait_op, flag.set_op
        if wait.parent_block() is not block or setf.parent_block() is not block:
            return False
        iw, ia, ic, iset = _index(wait), _index(pa), _index(pc), _index(setf)
        if not (ia < iw < ic or (flag.loop is not None and iw < ic and ia > ic)):
            return False
        if iset > ia or (flag.src, flag.dst) in self.shared:
            return True  # already after P, or the set may move past the waiting pipe's work
        between = list(block.ops)[iset + 1: ia + 1]
        return not any(_pipe_ops(op, flag.dst, self.templates) for op in between)

    def _move_set(self, flag: _Flag, pa: Operation) -> None:
        if _index(flag.set_op) > _index(pa):
            return
        flag.set_op.detach()
        block = pa.parent_block()
        assert block is not None
        block.insert_op_after(flag.set_op, pa)

    def _straight(self, p: Pipe, q: Pipe, block: Block, pa: Operation, pc: Operation,
                  ends: tuple[Operation, Operation]) -> None:
        for flag in self.flags:
            if flag.loop is None and (flag.src, flag.dst) == (p, q) and \
                    self._mergeable(flag, block, pa, pc):
                self._move_set(flag, pa)
                return
        event = self._provisional()
        setf = derive(pto.SetFlagOp(p, q, event), ends[0])
        wait = derive(pto.WaitFlagOp(p, q, event), ends[1])
        block.insert_op_after(setf, pa)
        block.insert_op_before(wait, pc)
        self.flags.append(_Flag(p, q, setf, wait))

    def _carried(self, p: Pipe, q: Pipe, loop: scf.ForOp, pa: Operation, pc: Operation,
                 ends: tuple[Operation, Operation]) -> None:
        block = loop.body.block
        for flag in self.flags:
            if flag.loop is loop and (flag.src, flag.dst) == (p, q) and \
                    self._mergeable(flag, block, pa, pc):
                self._move_set(flag, pa)
                return
        event = self._provisional()
        setf, pre = (derive(pto.SetFlagOp(p, q, event), ends[0]) for _ in range(2))
        wait, post = (derive(pto.WaitFlagOp(p, q, event), ends[1]) for _ in range(2))
        block.insert_op_after(setf, pa)
        block.insert_op_before(wait, pc)
        outer = loop.parent_block()
        assert outer is not None
        outer.insert_op_before(pre, loop)
        outer.insert_op_after(post, loop)
        self.flags.append(_Flag(p, q, setf, wait, loop, pre, post))

    # -- event ids -------------------------------------------------------------------------

    def assign_event_ids(self, apart: frozenset[tuple[int, int]] = frozenset()) -> None:
        """Interval colouring per pipe pair (module docstring); `apart`: pairs of flags (indices
        into `self.flags`) that must not share an id although their lifetimes do not overlap
        (the second's set may fire before the first's wait passed: `HappensBefore._reset`)."""
        numbering = {op: i for i, op in enumerate(self.function.walk())}
        own = {id(op) for flag in self.flags for op in flag.ops()}
        taken: dict[tuple[Pipe, Pipe], set[int]] = {}
        for op in self.function.walk():
            if isinstance(op, pto.SetFlagOp | pto.WaitFlagOp) and id(op) not in own:
                event = op.static_event
                if event is not None:
                    taken.setdefault((op.src_pipe, op.dst_pipe), set()).add(event)
        limit = event_ids(self.target)

        def span(flag: _Flag) -> tuple[int, int]:
            if flag.pre_set is not None and flag.post_wait is not None:
                return numbering[flag.pre_set], numbering[flag.post_wait]
            a, b = numbering[flag.set_op], numbering[flag.wait_op]
            return min(a, b), max(a, b)

        live: dict[tuple[Pipe, Pipe], list[tuple[int, int, int]]] = {}
        order = sorted(range(len(self.flags)), key=lambda i: span(self.flags[i]))
        for index in order:
            flag = self.flags[index]
            start, end = span(flag)
            pair = (flag.src, flag.dst)
            busy = {event for event, last, other in live.get(pair, [])
                    if last >= start or (min(index, other), max(index, other)) in apart}
            busy |= taken.get(pair, set())
            event = next((e for e in range(limit) if e not in busy), None)
            if event is None:
                raise _OutOfIds(pair, PassOpError(
                    flag.set_op,
                    f"needs more than {limit} event ids for pipe pair {flag.src} -> {flag.dst} "
                    f"on target {self.target.name} (ids 0..{limit - 1}; flags of this pair live "
                    f"at the same time: {len(busy) + 1})",
                ))
            live.setdefault(pair, []).append((event, end, index))
            for op in flag.ops():
                op.properties["event_id"] = IntegerAttr(event, i64)


def static_conflicts(
    function: func.FuncOp, templates: Templates, copies: int = RACE_COPIES
) -> tuple[list[Conflict], list[SyncError]]:
    """The unordered conflicts of `function`'s static event stream (pairs that never both run
    left out) and the flag faults, from the executor's checker (`scheduler.analyze`)."""
    analysis = analyze(event_stream(function, templates.target, templates, copies))
    # An op that reads and writes the same bytes (mad_acc's L0C) does not conflict with itself.
    found = [c for c in analysis.conflicts
             if c.first is not c.second and not _exclusive(c, templates.exclusive)]
    return found, analysis.faults


def _flags_of(inserter: _Inserter, fault: SyncError) -> tuple[int, int] | None:
    """The two inserted flags (indices, in order) of an overflow of another schedule between
    different flags sharing an event id; None when it is not one."""
    index = {id(op): i for i, flag in enumerate(inserter.flags) for op in flag.ops()}
    a, b = index.get(id(fault.events[0].op)), index.get(id(fault.events[1].op))
    if a is None or b is None or a == b:
        return None
    return min(a, b), max(a, b)


def _key(conflict: Conflict) -> tuple[int, int]:
    """Order conflicts by their second event, then the latest first event: one flag after the
    latest producer covers the earlier producers on its pipe."""
    return conflict.second.seq, -conflict.first.seq


def insert_sync(function: func.FuncOp, target: Target) -> _Stats:
    """Insert the synchronization `function` needs (module docstring); returns what was added.
    A pipe pair that runs out of event ids is done again with its flags shared."""
    templates = Templates(target)
    conflicts, faults = static_conflicts(function, templates)
    if faults:
        err = faults[0]
        raise PassOpError(err.op, f"has a synchronization fault before pto-insert-sync: {err}") \
            if err.op is not None else PassFailedException(str(err))
    shared: frozenset[tuple[Pipe, Pipe]] = frozenset()
    while True:
        inserter = _Inserter(function, target, templates, shared)
        try:
            _insert(inserter, conflicts)
            break
        except _OutOfIds as out:
            if out.pair in shared:
                raise out.error from None
            inserter.remove_all()
            shared |= {out.pair}
    stats = _Stats(len(inserter.flags), len(inserter.barriers))
    for flag in inserter.flags:
        pair = (flag.src.value, flag.dst.value)
        stats.by_pair[pair] = stats.by_pair.get(pair, 0) + 1
    return stats


def _insert(inserter: _Inserter, conflicts: list[Conflict]) -> None:
    """Order every conflict, then assign the event ids (module docstring)."""
    function, templates = inserter.function, inserter.templates
    seen: set[tuple[int, int, int, int]] = set()
    for _ in range(MAX_ROUNDS):
        if not conflicts:
            break
        conflict = min(conflicts, key=_key)
        key = (id(conflict.first.op), id(conflict.second.op),
               hash(conflict.first.iteration), hash(conflict.second.iteration))
        assert key not in seen, f"pto-insert-sync did not order {conflict!r}"
        seen.add(key)
        inserter.order(conflict)
        conflicts, faults = static_conflicts(function, templates)
        # An overflow of another schedule may be left while a race is: the flag of the same
        # op in the next iteration fires before the wait of this one passed, until the flag
        # back that orders the race (a consumer's next producer writes what it read) is in.
        assert all(f.schedule for f in faults), f"pto-insert-sync made a faulty kernel: {faults[0]}"
    apart: set[tuple[int, int]] = set()
    while True:
        inserter.assign_event_ids(frozenset(apart))
        conflicts, faults = static_conflicts(function, templates, ID_COPIES)
        # Two flags of one pipe pair given one id, the second's set unordered after the first's
        # wait: give them different ids.
        pairs = {_flags_of(inserter, f) for f in faults if f.schedule} - {None}
        if not pairs or pairs <= apart:
            break
        apart |= pairs  # type: ignore[arg-type]
    assert not conflicts and not faults, "pto-insert-sync output is not clean"


def _functions(module: ModuleOp) -> Iterator[func.FuncOp]:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.body.blocks:
            yield op


@dataclass(frozen=True)
class PtoInsertSyncPass(ModulePass):
    """Insert the set_flag / wait_flag / pipe_barrier ops a pto kernel lacks, so that every
    dependency between its pipes is ordered.

    The module docstring has the details."""

    name = "pto-insert-sync"

    target: str | None = None
    """Ascend target; sets the module's `pto.target` when it has none (default: the module's)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        resolve_target(op, self.target, self.name)
        insert_sync_functions(op)


def insert_sync_functions(module: ModuleOp, names: frozenset[str] | None = None) -> None:
    """Run `insert_sync` on every function of `module` (or on those named in `names`) that holds
    no `pto.matmul` (not lowered yet: nothing of it runs on a pipe)."""
    for function in list(_functions(module)):
        if names is not None and function.sym_name.data not in names:
            continue
        if any(isinstance(o, pto.MatmulOp) for o in function.walk()):
            continue
        insert_sync(function, pto.target_of(function))
