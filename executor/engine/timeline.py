"""Timing on the engine's events: start and end cycles per pipe op, a summary, trace exports.

The sync checker's scheduler (`executor/engine/scheduler.py`) sees every pipe event of a run, and its
happens-before engine (`executor/engine/hb.py`) fills each event's `preds`: the flags, barriers and pipe
order that must have completed before it may start. The timeline consumes exactly those events
(no second dependency analysis): each event lasts the cycles `isa.ascend.costs` gives for its
kind and shape, and starts at the latest of

* the end of the previous event of its pipe (a pipe runs one instruction at a time, in order),
* the end of each happens-before predecessor (a wait_flag after its set_flag, ...),
* the end of the last scalar-unit event issued before it (a wait_flag into S or
  pipe_barrier(all) stops the scalar unit, so nothing after it is issued earlier).

Multi-core launches: the scalar-unit order is per core, and the `pto.sync_all` events of one
all-core barrier (`Timeline.barrier`) start together when the last core arrives; the kernel's
time is the slowest core's end (`Summary.cores`: each core's end and sync_all waits).

`TimedScheduler` is the scheduler with a recorder; `IssueSeam.timing` hands it each pipe op's
runtime operands (its m / n / k). `Timeline.summary()` gives total cycles, busy cycles and
utilisation per pipe and the op that bounds each pipe; `write_json` a Chrome trace-event file
(Perfetto, chrome://tracing) and `write_png` a Gantt chart.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from math import ceil
from typing import Any, NamedTuple

from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT, Event, op_where
from mmair.executor.engine.scheduler import Scheduler
from mmair.isa.ascend import costs as isa_costs
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.ascend.targets import FRACTAL_BYTES, get_target

PIPE_ORDER: tuple[Pipe, ...] = (Pipe.S, Pipe.MTE2, Pipe.MTE1, Pipe.M, Pipe.FIX, Pipe.V, Pipe.MTE3)
"""Rows of the timeline, in data-flow order."""

class Cost(NamedTuple):
    """What one pipe op costs: its cycles, the shape text of the timeline, and the bytes it moves
    between two levels (`LEVELS`; "" for a mad, a flag, ...)."""

    cycles: int
    shape: str = ""
    level: str = ""
    nbytes: int = 0


LEVELS: dict[str, str] = {
    "gm_l1": "GM -> L1", "gm_ub": "GM -> UB", "l1_l0": "L1 -> L0A/L0B/BT",
    "l0c_gm": "L0C -> GM", "l0c_l1": "L0C -> L1/UB", "ub_gm": "UB -> GM",
}
"""The data paths whose bytes `--timing` reports, in data-flow order."""
ROOFLINES: tuple[tuple[str, str], ...] = (("cube", "m"), ("mte2", "mte2"), ("mte1", "mte1"),
                                          ("fix", "fix"))
"""(name, pipe) of the rooflines a cube kernel can be bound by."""

_MOVES = ("mte_gm_l1", "mte_gm_ub", "mte_ub_gm", "mte_l1_l0a", "mte_l1_l0b", "mte_l1_bt",
          "mte_l1_fb")
_MADS = ("mad", "mad_acc", "mad_bias")


@dataclass
class Slice:
    """One event on the timeline (cycles, from 0 at the kernel's first issue)."""

    pipe: str
    core: int
    start: int
    end: int
    kind: str
    name: str
    location: str
    shape: str = ""
    loop_position: tuple = ()
    """The event's loop position (`Event.iteration`); `iteration` words it on demand: naming the
    loop variables costs more than scheduling, and the summary never reads it."""

    @property
    def cycles(self) -> int:
        return self.end - self.start

    @property
    def iteration(self) -> str:
        """`iteration %i = 0, %k = 256` (empty outside loops)."""
        from mmair.executor.engine.events import format_iteration

        return format_iteration(self.loop_position)


@dataclass
class PipeStats:
    pipe: str
    busy: int
    ops: int
    utilisation: float
    bound_by: str
    """The op (name at location) with the most busy cycles on this pipe."""
    bound_cycles: int


@dataclass
class CoreStats:
    """One core of a multi-core launch: when its last op ends and how long its `pto.sync_all`s
    waited for the other cores."""

    core: int
    end: int
    sync_wait: int


@dataclass
class Summary:
    target: str
    total: int
    seconds: float
    clock_mhz: int
    pipes: list[PipeStats] = field(default_factory=list)
    cores: list[CoreStats] = field(default_factory=list)
    """Per core of a multi-core launch (empty for one core); `total` is the slowest core's end."""
    bytes_moved: dict[str, int] = field(default_factory=dict)
    """Bytes per data path (`LEVELS` keys), summed over the cores."""
    l2_hit_rate: float | None = None
    """Fraction of the GM read lines found in L2 (None: no GM reads or no L2)."""
    rooflines: dict[str, int] = field(default_factory=dict)
    """Per `ROOFLINES` name: the busy cycles of that pipe on its busiest core (a lower bound of
    the kernel's cycles if nothing else limited it)."""
    n_cores: int = 1

    @property
    def cube_utilization(self) -> float:
        """Cycles the cube (pipe M) computes over the kernel's cycles, averaged over the cores."""
        busy = sum(p.busy for p in self.pipes if p.pipe == str(Pipe.M))
        return busy / (self.total * self.n_cores) if self.total else 0.0

    @property
    def bound(self) -> tuple[str, float] | None:
        """(roofline, its busy fraction of the kernel's cycles) of the roofline that bounds the
        kernel: the one whose busiest core is busy longest."""
        if not self.rooflines or not self.total:
            return None
        name = max(self.rooflines, key=lambda r: self.rooflines[r])
        return name, self.rooflines[name] / self.total

    def report(self) -> dict[str, Any]:
        """The derived figures of `--timing` as JSON-ready values."""
        bound = self.bound
        return {
            "cube_utilization": self.cube_utilization,
            "bytes_moved": dict(self.bytes_moved),
            "l2_hit_rate": self.l2_hit_rate,
            "rooflines": {name: {"busy_cycles": busy,
                                 "fraction": busy / self.total if self.total else 0.0}
                          for name, busy in self.rooflines.items()},
            "bound": None if bound is None else {"roofline": bound[0], "fraction": bound[1]},
        }

    @property
    def bottleneck(self) -> PipeStats | None:
        busy = [p for p in self.pipes if p.pipe != Pipe.S]
        return max(busy, key=lambda p: p.busy) if busy else None

    def format(self) -> str:
        lines = [f"timing ({self.target}, {self.clock_mhz:g} MHz): {self.total} cycles, "
                 f"{_fmt_time(self.seconds)}"]
        for p in self.pipes:
            lines.append(f"  pipe {p.pipe:<4} busy {p.busy:>12} cycles  {100 * p.utilisation:5.1f} %  "
                         f"{p.ops:>7} ops  bound by {p.bound_by} ({p.bound_cycles} cycles)")
        b = self.bottleneck
        if b is not None:
            lines.append(f"  busiest pipe: {b.pipe}")
        lines.append(f"  cube utilization {100 * self.cube_utilization:.1f} % (mad busy / cycles"
                     f"{f', averaged over {self.n_cores} cores' if self.n_cores > 1 else ''})")
        if self.bytes_moved:
            lines.append("  bytes moved: " + ", ".join(
                f"{LEVELS[lv]} {self.bytes_moved[lv]:,}" for lv in LEVELS if lv in self.bytes_moved))
        if self.l2_hit_rate is not None:
            lines.append(f"  L2 hit rate {100 * self.l2_hit_rate:.1f} % of the GM lines read")
        bound = self.bound
        if bound is not None:
            others = ", ".join(f"{name} {100 * busy / self.total:.1f} %"
                               for name, busy in self.rooflines.items() if name != bound[0])
            lines.append(f"  bound by {bound[0]}: its busiest core is busy {100 * bound[1]:.1f} % "
                         f"of the cycles ({others})")
        if self.cores:
            slowest = max(self.cores, key=lambda c: c.end)
            lines.append(f"  per block (busy cycles above are summed over the {len(self.cores)} "
                         f"blocks; the kernel ends with the slowest, block {slowest.core}):")
            for c in self.cores:
                lines.append(f"    block {c.core}: ends at {c.end} cycles, waits at sync_all "
                             f"{c.sync_wait} cycles")
        return "\n".join(lines)


def _fmt_time(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.3f} us"


class TimedScheduler(Scheduler):
    """The engine's scheduler recording every issued event for the timeline (preds on)."""

    def __init__(self, timeline: Timeline, cores: int = 1,
                 gm_names: dict[Hashable, str] | None = None):
        try:
            super().__init__(cores, gm_names=gm_names, record_preds=True)  # type: ignore[call-arg]
        except TypeError:  # an engine without the option always records them
            super().__init__(cores, gm_names=gm_names)
        self.timeline = timeline

    def issue(self, ev: Event) -> None:
        self.timeline.events.append(ev)
        super().issue(ev)


class Timeline:
    """Costs and times of the events of one run on `target` (module docstring)."""

    def __init__(self, target: str, costs: isa_costs.Costs | None = None):
        self.target = target
        self.costs = costs if costs is not None else isa_costs.costs(target)
        """The cost table (the target's, or one calibrated with `isa.ascend.calibration`)."""
        self.events: list[Event] = []
        self.shapes: dict[int, Cost] = {}
        """id(event) -> `Cost` of pipe ops, from their runtime operands."""
        self.l2_cycles: dict[int, int] = {}
        """id(event) -> cycles of a GM read priced by the L2 model (after `slices`)."""
        self.l2_lines: tuple[int, int] = (0, 0)
        """(lines found in L2, lines read) over the GM reads of the run (after `slices`)."""
        self._slices: list[Slice] | None = None
        self._times: tuple[list[Event], list[int], list[int]] | None = None
        """(executed events, start, end cycles) of the schedule (`_scheduled`)."""
        self.barriers: list[list[Event]] = []
        """The `pto.sync_all` events of each all-core barrier of a multi-core launch."""
        self.waits: dict[int, int] = {}
        """Per core: cycles its sync_alls waited for the other cores (after `slices`)."""
        self._costs_by_key: dict[tuple, Cost] = {}
        """`op_issued`'s cache: (id(op), its integer operands...) -> `Cost`."""
        self._cost_ops: list[Any] = []

    def barrier(self, events: list[Event]) -> None:
        """`executor.multicore.Launch`: every core reached a `pto.sync_all` (one event per core,
        their preds from the core's own pipes): they all end together, when the last core
        arrives."""
        for ev in events:
            ev.done = True
        self.events.extend(events)
        self.barriers.append(events)

    # --- costs --------------------------------------------------------------------------------

    def op_issued(self, ev: Event, args: Sequence[Any]) -> None:
        """`IssueSeam` hook: the cost of pipe op `ev` from its runtime operands `args`, computed
        once per op and tuple of integer operands (`_cost_key`): a loop body's ops repeat the
        same few sizes, and `op_cost` reads xDSL properties per call (speed only)."""
        op = ev.op
        kind = ev.kind
        if kind in _INT_COSTED:
            key = (id(op), *[a if type(a) is int else _int_or_none(a) for a in args])
            cost = self._costs_by_key.get(key)
            if cost is None:
                cost = self._costs_by_key[key] = op_cost(self.costs, op, kind, args)
                self._cost_ops.append(op)  # keeps id(op) unique while the cache lives
        else:
            cost = op_cost(self.costs, op, kind, args)
        self.shapes[id(ev)] = cost

    def set_cost(self, ev: Event, cycles: int, shape: str = "", level: str = "",
                 nbytes: int = 0) -> None:
        """Give event `ev` a duration directly (events built without an executor)."""
        self.shapes[id(ev)] = Cost(cycles, shape, level, nbytes)

    def duration(self, ev: Event) -> int:
        kind = ev.kind
        if kind in (SET, WAIT):
            return isa_costs.sync_cycles(self.costs, kind)
        if kind in (BARRIER, BARRIER_ALL):
            return isa_costs.sync_cycles(self.costs, "pipe_barrier")
        priced = self.l2_cycles.get(id(ev))
        if priced is not None:
            return priced
        known = self.shapes.get(id(ev))
        return known[0] if known is not None else self.costs.issue_cycles

    # --- schedule -------------------------------------------------------------------------------

    def _durations(self, events: list[Event]) -> list[int]:
        """`duration` of each event of `events` (the sync kinds' figures looked up once)."""
        sync = {SET: isa_costs.sync_cycles(self.costs, SET),
                WAIT: isa_costs.sync_cycles(self.costs, WAIT)}
        sync[BARRIER] = sync[BARRIER_ALL] = isa_costs.sync_cycles(self.costs, "pipe_barrier")
        priced, shapes, issue = self.l2_cycles, self.shapes, self.costs.issue_cycles
        out = []
        for ev in events:
            cycles = sync.get(ev.kind)
            if cycles is None:
                cycles = priced.get(id(ev))
                if cycles is None:
                    known = shapes.get(id(ev))
                    cycles = known[0] if known is not None else issue
            out.append(cycles)
        return out

    @staticmethod
    def _order(deps: list[tuple[int, ...]]) -> list[int]:
        """The events (indices) in an order where each comes after all its deps. Almost every
        dep is an earlier event (the previous event of a lane, a set_flag issued before its
        wait); a wait_flag issued before its set_flag is reached by an iterative depth-first
        search from it."""
        n = len(deps)
        placed = [False] * n
        order: list[int] = []
        for i in range(n):
            if placed[i]:
                continue
            if all(placed[d] for d in deps[i]):
                placed[i] = True
                order.append(i)
                continue
            stack = [i]
            while stack:
                j = stack[-1]
                if placed[j]:
                    stack.pop()
                    continue
                todo = [d for d in deps[j] if not placed[d]]
                if todo:
                    stack.extend(todo)
                    continue
                stack.pop()
                placed[j] = True
                order.append(j)
        return order

    @staticmethod
    def _schedule(order: list[int], deps: list[tuple[int, ...]], durations: list[int]
                  ) -> tuple[list[int], list[int]]:
        """(start, end) cycles by event index: each event starts when all its deps have ended
        (max-plus over `order`)."""
        n = len(deps)
        start = [0] * n
        end = [0] * n
        get = end.__getitem__
        for i in order:
            d = deps[i]
            s = max(map(get, d)) if d else 0
            start[i] = s
            end[i] = s + durations[i]
        return start, end

    def _price_gm_reads(self, events: list[Event], start: list[int], end: list[int]) -> bool:
        """The L2 model (`executor/engine/l2.py`) on a first schedule (`start`, `end` by index
        of `events`): in the order the GM accesses start, each read's lines hit or miss L2; a
        read then costs its hit bytes at the L2 rate and its miss bytes at this core's share of
        DDR while other cores' misses run at the same time. Fills `l2_cycles`; False when
        nothing changed (no GM reads)."""
        import numpy as np

        from mmair.executor.engine.l2 import L2Model, concurrent_readers

        c = self.costs
        shapes = self.shapes
        gm = [i for i, ev in enumerate(events) if ev.accesses and id(ev) in shapes and
              shapes[id(ev)].level in ("gm_l1", "gm_ub", "l0c_gm", "ub_gm")]
        if not gm:
            return False
        gm.sort(key=lambda i: (start[i], events[i].seq))
        touched = []  # per GM op: (index, its cost, reads, its GM accesses of that direction)
        for i in gm:
            ev = events[i]
            cost = shapes[id(ev)]
            reading = cost.level in ("gm_l1", "gm_ub")
            touched.append((i, cost, reading, [a for a in ev.accesses
                                               if a.space == "gm" and a.write != reading]))
        model = L2Model(c.l2_bytes, c.l2_line_bytes, len(gm), L2Model.lines_bound(
            (a for *_, accesses in touched for a in accesses), c.l2_line_bytes)) \
            if c.l2_bytes else None
        reads: list[tuple[int, int, int, bool]] = []  # (index, hit, miss bytes, reads DDR)
        hit_lines = read_lines = 0
        for i, cost, reading, accesses in touched:
            hits, pending, total = model.touch(accesses, start[i], end[i]) \
                if model is not None else (0, 0, 0)
            if not reading:
                continue
            hit_lines += hits + pending
            read_lines += total
            # a hit reads its share of the bytes from L2; a miss brings whole lines from DDR,
            # and a line another core is still bringing in arrives as fast as that miss
            hit_bytes = cost.nbytes * hits // total if total else 0
            miss_bytes = (total - hits) * c.l2_line_bytes if model is not None else cost.nbytes
            reads.append((i, hit_bytes, miss_bytes, model is None or hits + pending < total))
        self.l2_lines = (hit_lines, read_lines)
        ddr = [i for i, _, _, reads_ddr in reads if reads_ddr]
        waiting = [i for i, _, miss, _ in reads if miss]
        readers = concurrent_readers(
            np.array([start[i] for i in ddr], dtype=np.float64),
            np.array([end[i] for i in ddr], dtype=np.float64),
            np.array([events[i].core for i in ddr], dtype=np.int64),
            np.array([(start[i] + end[i]) / 2 for i in waiting], dtype=np.float64))
        share = dict(zip(waiting, readers.tolist(), strict=True))
        l2_rate = (c.l2_read or c.gm_read).bytes_per_cycle
        for i, hit_bytes, miss_bytes, _ in reads:
            transfer = hit_bytes / l2_rate
            if miss_bytes:
                transfer += miss_bytes / c.ddr_read_share(share[i])
            self.l2_cycles[id(events[i])] = c.gm_read.latency + ceil(transfer)
        return True

    def slices(self) -> list[Slice]:
        """Start and end of every executed event (module docstring), in issue order."""
        if self._slices is None:
            from mmair.executor.engine.gc_scope import no_full_collection

            events, start, end = self._scheduled()
            with no_full_collection():  # a full pass would walk every Event (speed only)
                self._slices = self._make_slices(events, start, end)
        return self._slices

    def _make_slices(self, events: list[Event], start: list[int], end: list[int]
                     ) -> list[Slice]:
        out = []
        # per op: (name, location), per flag: its shape text, per pipe: its name, made once
        named: dict[int, tuple[str, str]] = {}
        flag_shapes: dict[Any, str] = {}
        pipe_names: dict[Any, str] = {}
        shapes = self.shapes
        no_cost = (0, "")
        for i, ev in enumerate(events):
            op = ev.op
            kind = ev.kind
            known = named.get(id(op))
            if known is None:
                known = named[id(op)] = (op.name if op is not None else kind, op_where(op))
            name, location = known
            if op is None:
                name = kind
            if kind == SET or kind == WAIT:
                shape = flag_shapes.get(ev.key)
                if shape is None:
                    shape = flag_shapes[ev.key] = f"{ev.src} -> {ev.dst} event {ev.event_id}"
            else:
                shape = shapes.get(id(ev), no_cost)[1]
            pipe = pipe_names.get(ev.pipe)
            if pipe is None:
                pipe = pipe_names[ev.pipe] = str(ev.pipe)
            out.append(Slice(pipe, ev.core, start[i], end[i], kind, name, location, shape,
                             tuple(ev.iteration)))
        return out

    def _scheduled(self) -> tuple[list[Event], list[int], list[int]]:
        """(executed events in issue order, their start and end cycles), computed once."""
        if self._times is None:
            from mmair.executor.engine.gc_scope import no_full_collection

            with no_full_collection():  # a full pass would walk every Event (speed only)
                self._times = self._schedule_events()
        return self._times

    def _schedule_events(self) -> tuple[list[Event], list[int], list[int]]:
        events = [ev for ev in self.events if ev.done]
        index = {id(ev): i for i, ev in enumerate(events)}
        find = index.get
        lane_prev: dict[int, int] = {}
        deps: list[tuple[int, ...]] = []
        last_s: dict[int, int] = {}  # per core: its scalar unit issues in order
        scalar = Pipe.S
        for i, ev in enumerate(events):
            # predecessors that did not execute (a run stopped early) are not scheduled
            d = [j for j in map(find, map(id, ev.preds)) if j is not None] if ev.preds else []
            lane = ev.lane
            prev = lane_prev.get(lane)
            if prev is not None:
                d.append(prev)
            core = ev.core
            s_prev = last_s.get(core)
            if s_prev is not None and lane != events[s_prev].lane:
                d.append(s_prev)
            deps.append(tuple(d))
            lane_prev[lane] = i
            if ev.pipe is scalar:
                last_s[core] = i
        own: dict[int, tuple[int, ...]] = {}
        for group in self.barriers:  # a sync_all starts when the last core reaches it
            members = [index[id(ev)] for ev in group]
            joined = tuple(d for i in members for d in deps[i])
            for i in members:
                own[i] = deps[i]
                deps[i] = joined
        self.l2_cycles = {}
        order = self._order(deps)
        start, end = self._schedule(order, deps, self._durations(events))
        if self._price_gm_reads(events, start, end):  # the L2 model re-prices the GM reads
            start, end = self._schedule(order, deps, self._durations(events))
        self.waits = {}
        for i, mine in own.items():  # waited from its own core's readiness to the joint start
            ready = max((end[d] for d in mine), default=0)
            core = events[i].core
            self.waits[core] = self.waits.get(core, 0) + start[i] - ready
        return events, start, end

    def summary(self) -> Summary:
        from mmair.executor.engine.gc_scope import no_full_collection

        events, start, end = self._scheduled()
        with no_full_collection():  # a full pass would walk every Event (speed only)
            return self._summary(events, start, end)

    def _summary(self, events: list[Event], start: list[int], end: list[int]) -> Summary:
        """The summary of the schedule, from the start and end lists (the figures of the
        slices, without making them)."""
        total = max(end, default=0)
        busy: dict[str, int] = defaultdict(int)
        count: dict[str, int] = defaultdict(int)
        by_op: dict[tuple[Any, int, str], int] = defaultdict(int)
        by_lane: dict[int, int] = defaultdict(int)  # busy cycles per lane (core x pipe)
        ops: dict[int, Any] = {}
        for i, ev in enumerate(events):
            cycles = end[i] - start[i]
            op = ev.op
            by_op[(ev.pipe, id(op), ev.kind if op is None else "")] += cycles
            ops[id(op)] = op
            by_lane[ev.lane] += cycles
            count[ev.pipe] += 1
        lane_of_pipe: dict[int, tuple[int, str]] = {}
        for ev in events:
            if ev.lane not in lane_of_pipe:
                lane_of_pipe[ev.lane] = (ev.core, str(ev.pipe))
        named: dict[int, tuple[str, str]] = {}
        per_op: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for (pipe, op_id, kind), cycles in by_op.items():  # in order of first appearance
            p = str(pipe)
            busy[p] += cycles
            known = named.get(op_id)
            if known is None:
                op = ops[op_id]
                known = named[op_id] = (op.name if op is not None else "", op_where(op))
            name, location = known
            per_op[p][f"'{name or kind}'" + (f" at {location}" if location else "")] += cycles
        count = {str(pipe): n for pipe, n in count.items()}
        n_cores = len({ev.core for ev in events}) or 1  # utilisation of the pipes of every core
        pipes = []
        for pipe in PIPE_ORDER:
            p = str(pipe)
            if p not in busy:
                continue
            op_text, cycles = max(per_op[p].items(), key=lambda kv: kv[1])
            pipes.append(PipeStats(p, busy[p], count[p],
                                   busy[p] / (total * n_cores) if total else 0.0, op_text,
                                   cycles))
        cores = []
        ends: dict[int, int] = {}
        for i, ev in enumerate(events):
            core = ev.core
            if end[i] > ends.get(core, 0):
                ends[core] = end[i]
            elif core not in ends:
                ends[core] = 0
        per_core: dict[tuple[int, str], int] = defaultdict(int)
        for lane, cycles in by_lane.items():
            per_core[lane_of_pipe[lane]] += cycles
        if len(ends) > 1:
            for core in sorted(ends):
                cores.append(CoreStats(core, ends[core], self.waits.get(core, 0)))
        moved: dict[str, int] = defaultdict(int)
        for ev in self.events:
            cost = self.shapes.get(id(ev))
            if ev.done and cost is not None and cost.level:
                moved[cost.level] += cost.nbytes
        rooflines = {name: max((busy for (_, p), busy in per_core.items() if p == pipe),
                               default=0) for name, pipe in ROOFLINES}
        hits, lines = self.l2_lines
        return Summary(self.target, total, isa_costs.seconds(self.costs, total),
                       self.costs.clock_mhz, pipes, cores, dict(moved),
                       hits / lines if lines and self.costs.l2_bytes else None, rooflines,
                       n_cores)

    # --- exports --------------------------------------------------------------------------------

    def write_json(self, path: str) -> None:
        write_trace_json(self.slices(), path, self.costs.clock_mhz)

    def write_png(self, path: str) -> None:
        write_gantt_png(self.slices(), path, title=f"{self.target}: {self.summary().total} cycles")


def _sizes(op: Any, args: Sequence[Any], *names: str) -> list[int]:
    operands = list(op.operands)
    return [int(args[operands.index(getattr(op, n))]) for n in names]


def _out_space(dst_t: Any) -> tuple[str, int]:
    """(space, element bits) of a fixpipe destination: an on-chip tile or a GM memref."""
    if hasattr(dst_t, "space_name"):
        return dst_t.space_name, dst_t.element_bits
    from mmair.dialects.types import memref_dtype

    return "gm", memref_dtype(dst_t).itemsize * 8


def _fix_level(space: str) -> str:
    return "l0c_gm" if space == "gm" else "l0c_l1"


def op_cost(target: str | isa_costs.Costs, op: Any, kind: str, args: Sequence[Any]) -> Cost:
    """The `Cost` of pipe op `op` of effect kind `kind` with runtime operands `args` on `target`
    (a target name or a calibrated table)."""
    if kind in _MADS:
        m, n, k = _sizes(op, args, "m", "n", "k")
        elem = op.lhs.type.element_name
        return Cost(isa_costs.mad_cycles(target, m, n, k, elem), f"{m}x{k}x{n} {elem}")
    if kind == "fixpipe":
        m, n = _sizes(op, args, "m", "n")
        space, bits = _out_space(op.dst.type)
        nbytes = m * n * bits // 8
        quant = op.quant.data != "none"
        return Cost(isa_costs.fixpipe_cycles(target, nbytes, space, quant),
                    f"{m}x{n} -> {space}{' ' + op.quant.data if quant else ''}",
                    _fix_level(space), nbytes)
    if kind in ("mte_l1_l0a", "mte_l1_l0b"):
        dims = ("m", "k") if kind == "mte_l1_l0a" else ("k", "n")
        a, b = _sizes(op, args, *dims)
        nbytes = a * b * op.dst.type.element_bits // 8
        return Cost(isa_costs.move_cycles(target, kind, nbytes), f"{a}x{b}", "l1_l0", nbytes)
    if kind in ("mte_l1_bt", "mte_l1_fb"):
        (n,) = _sizes(op, args, "n")
        nbytes = n * op.dst.type.element_bits // 8
        return Cost(isa_costs.move_cycles(target, kind, nbytes), f"{n}", "l1_l0", nbytes)
    if kind == "mte_gm_l1":
        rows, cols = _sizes(op, args, "rows", "cols")
        nbytes = rows * cols * op.dst.type.element_bits // 8
        return Cost(isa_costs.move_cycles(target, kind, nbytes), f"{rows}x{cols}", "gm_l1",
                    nbytes)
    if kind in ("mte_gm_ub", "mte_ub_gm"):
        tile = args[list(op.operands).index(op.dst if kind == "mte_gm_ub" else op.src)]
        nbytes = int(getattr(tile, "nbytes", 0))
        return Cost(isa_costs.move_cycles(target, kind, nbytes), f"{nbytes} B",
                    "gm_ub" if kind == "mte_gm_ub" else "ub_gm", nbytes)
    if kind == "gather_mask":
        tile = args[list(op.operands).index(op.src0)]
        nbytes = int(getattr(tile, "nbytes", 0))
        return Cost(isa_costs.gather_mask_cycles(target, nbytes), f"{nbytes} B")
    if kind in _RAW_COSTS:
        return _RAW_COSTS[kind](target, op, args)
    return Cost(isa_costs.costs(target).issue_cycles)


# The raw Ascend C parameter forms (dialects/pto/params.py): the tile-level cost model of the same
# data path (`isa_costs.RAW_MOVE_PATHS`, `mad_cycles`, `fixpipe_cycles`) applied to the bytes or
# the m x k x n their parameters give. A copy counts the data bytes it reads (as the tile-level
# rows x cols); a LoadData counts whole 512-byte fractals, which is what it moves.


def _unit_bytes(elem_bits: int) -> int:
    """Bytes of one field unit: an element, or a byte for 4-bit data (the b8 copy)."""
    return max(elem_bits, 8) // 8


def _raw_level(kind: str) -> str:
    path = isa_costs.RAW_MOVE_PATHS.get(kind)
    return "gm_l1" if path == "mte_gm_l1" else "l1_l0"


def _cost_nz_copy(target: Any, op: Any, args: Sequence[Any]) -> Cost:
    count, n, d = _sizes(op, args, *list(op.FIELDS)[:3])
    nbytes = count * n * d * _unit_bytes(op.dst.type.element_bits)
    kind = op.name.removeprefix("pto.")
    return Cost(isa_costs.move_cycles(target, kind, nbytes), f"{count}x{n}x{d}", "gm_l1", nbytes)


def _cost_fractals(*count_fields: str, squares: bool = False):
    def cost(target: Any, op: Any, args: Sequence[Any]) -> Cost:
        counts = _sizes(op, args, *count_fields)
        fractals = 1
        for c in counts:
            fractals *= c
        if squares:  # LoadDataWithTranspose: repeatTimes square blocks of 1, 2 or 4 fractals
            fractals *= isa_params.transpose_square(op.src.type.element_name)[0]
        nbytes = fractals * FRACTAL_BYTES
        kind = op.name.removeprefix("pto.")
        return Cost(isa_costs.move_cycles(target, kind, nbytes, op.dst.type.space_name),
                    f"{fractals} fractals", _raw_level(kind), nbytes)
    return cost


def _cost_copy_gm_l1(target: Any, op: Any, args: Sequence[Any]) -> Cost:
    count, length = _sizes(op, args, "block_count", "block_len")
    nbytes = count * length * isa_params.GM_L1_UNIT_BYTES
    return Cost(isa_costs.move_cycles(target, "copy_gm_l1", nbytes), f"{nbytes} B", "gm_l1",
                nbytes)


def _cost_copy_l1_bt(target: Any, op: Any, args: Sequence[Any]) -> Cost:
    count, length = _sizes(op, args, "block_count", "block_len")
    name = target.target if isinstance(target, isa_costs.Costs) else target
    nbytes = count * length * isa_params.l1_bt_unit_bytes(get_target(name))
    return Cost(isa_costs.move_cycles(target, "copy_l1_bt", nbytes), f"{nbytes} B", "l1_l0",
                nbytes)


def _cost_mmad(target: Any, op: Any, args: Sequence[Any]) -> Cost:
    m, n, k = _sizes(op, args, "m", "n", "k")
    elem = op.lhs.type.element_name
    return Cost(isa_costs.mad_cycles(target, m, n, k, elem), f"{m}x{k}x{n} {elem}")


def _cost_fixpipe_copy(target: Any, op: Any, args: Sequence[Any]) -> Cost:
    n, m, count = _sizes(op, args, "n_size", "m_size", "nd_num")
    space, bits = _out_space(op.dst.type)
    quant = op.quant.data != "none"
    nbytes = count * m * n * bits // 8
    return Cost(isa_costs.fixpipe_cycles(target, nbytes, space, quant),
                f"{count}x{m}x{n} -> {space}{' ' + op.quant.data if quant else ''}",
                _fix_level(space), nbytes)


_RAW_COSTS = {
    "copy_nd2nz": _cost_nz_copy,
    "copy_dn2nz": _cost_nz_copy,
    "load_2d": _cost_fractals("repeat_times"),
    "load_2d_gm": _cost_fractals("repeat_times"),
    "load_2d_transpose": _cost_fractals("repeat_times", squares=True),
    "load_2d_v2": _cost_fractals("m_step", "k_step"),
    "load_2d_v2_gm": _cost_fractals("m_step", "k_step"),
    "copy_gm_l1": _cost_copy_gm_l1,
    "copy_l1_bt": _cost_copy_l1_bt,
    "mmad": _cost_mmad,
    "fixpipe_copy": _cost_fixpipe_copy,
}

_INT_COSTED: frozenset[str] = frozenset(
    (*_MADS, "fixpipe", "mte_l1_l0a", "mte_l1_l0b", "mte_l1_bt", "mte_l1_fb", "mte_gm_l1",
     *_RAW_COSTS))
"""Kinds whose `op_cost` depends on the op and its integer operands only (`_sizes`), not on the
tiles or views it is given (`mte_gm_ub` reads a tile's bytes): `Timeline.op_issued` caches them."""


def _int_or_none(value: Any) -> int | None:
    """A numpy integer operand as an int (a cost key); None for a tile, a view, anything else."""
    import numpy as np

    return int(value) if isinstance(value, np.integer) else None


COSTED_KINDS: frozenset[str] = frozenset(
    (*_MADS, "fixpipe", "mte_l1_l0a", "mte_l1_l0b", "mte_l1_bt", "mte_l1_fb", "mte_gm_l1", "mte_gm_ub",
     "mte_ub_gm", "gather_mask", *_RAW_COSTS)
)
"""The op kinds `op_cost` charges from their sizes (any other pipe op: its issue cycles only)."""


# ------------------------------------------------------------------------------------------------
# Exports (from plain slices, so that any event source can be drawn)
# ------------------------------------------------------------------------------------------------


def trace_events(slices: Iterable[Slice], clock_mhz: int) -> dict[str, Any]:
    """A Chrome trace-event document: one process per core, one thread (track) per pipe, one
    complete ("X") event per slice; ts and dur in microseconds at `clock_mhz`, the cycles in
    args."""
    tid = {str(p): i for i, p in enumerate(PIPE_ORDER)}
    out: list[dict[str, Any]] = []
    seen: set[tuple[int, str]] = set()
    for s in slices:
        if (s.core, s.pipe) not in seen:
            seen.add((s.core, s.pipe))
            out.append({"name": "thread_name", "ph": "M", "pid": s.core, "tid": tid[s.pipe],
                        "args": {"name": f"pipe {s.pipe}"}})
            out.append({"name": "thread_sort_index", "ph": "M", "pid": s.core,
                        "tid": tid[s.pipe], "args": {"sort_index": tid[s.pipe]}})
        args: dict[str, Any] = {"cycles": s.cycles, "start_cycle": s.start}
        if s.location:
            args["location"] = s.location
        if s.shape:
            args["shape"] = s.shape
        if s.iteration:
            args["iteration"] = s.iteration
        out.append({"name": s.name, "cat": s.kind, "ph": "X", "pid": s.core, "tid": tid[s.pipe],
                    "ts": s.start / clock_mhz, "dur": s.cycles / clock_mhz, "args": args})
    return {"traceEvents": out, "displayTimeUnit": "ns",
            "otherData": {"clock_mhz": clock_mhz, "unit": "ts/dur in us at the core clock"}}


def write_trace_json(slices: Iterable[Slice], path: str, clock_mhz: int) -> None:
    with open(path, "w") as f:
        json.dump(trace_events(slices, clock_mhz), f)


def write_gantt_png(slices: Sequence[Slice], path: str, title: str = "") -> None:
    """The timeline picture (`executor/engine/gantt.py`): one row per pipe, per block."""
    from mmair.executor.engine.gantt import write_gantt_png as write

    write(slices, path, title)


__all__ = ["COSTED_KINDS", "LEVELS", "PIPE_ORDER", "ROOFLINES", "Cost", "Slice", "Summary", "TimedScheduler", "Timeline", "op_cost",
           "trace_events", "write_gantt_png", "write_trace_json"]
