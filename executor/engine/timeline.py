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
from typing import Any

from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT, Event, op_where
from mmair.executor.engine.scheduler import Scheduler
from mmair.isa.ascend import costs as isa_costs
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.ascend.targets import FRACTAL_BYTES, get_target

PIPE_ORDER: tuple[Pipe, ...] = (Pipe.S, Pipe.MTE2, Pipe.MTE1, Pipe.M, Pipe.FIX, Pipe.V, Pipe.MTE3)
"""Rows of the timeline, in data-flow order."""

_MOVES = ("mte_gm_l1", "mte_gm_ub", "mte_ub_gm", "mte_l1_l0a", "mte_l1_l0b", "mte_l1_bt")
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

    @property
    def bottleneck(self) -> PipeStats | None:
        busy = [p for p in self.pipes if p.pipe != Pipe.S]
        return max(busy, key=lambda p: p.busy) if busy else None

    def format(self) -> str:
        lines = [f"timing ({self.target}, {self.clock_mhz} MHz): {self.total} cycles, "
                 f"{_fmt_time(self.seconds)}"]
        for p in self.pipes:
            lines.append(f"  pipe {p.pipe:<4} busy {p.busy:>12} cycles  {100 * p.utilisation:5.1f} %  "
                         f"{p.ops:>7} ops  bound by {p.bound_by} ({p.bound_cycles} cycles)")
        b = self.bottleneck
        if b is not None:
            lines.append(f"  busiest pipe: {b.pipe}")
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

    def __init__(self, target: str):
        self.target = target
        self.costs = isa_costs.costs(target)
        self.events: list[Event] = []
        self.shapes: dict[int, tuple[int, str]] = {}
        """id(event) -> (cycles, shape text) of pipe ops, from their runtime operands."""
        self._slices: list[Slice] | None = None
        self.barriers: list[list[Event]] = []
        """The `pto.sync_all` events of each all-core barrier of a multi-core launch."""
        self.waits: dict[int, int] = {}
        """Per core: cycles its sync_alls waited for the other cores (after `slices`)."""

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
        """`IssueSeam` hook: the cost of pipe op `ev` from its runtime operands `args`."""
        self.shapes[id(ev)] = op_cost(self.target, ev.op, ev.kind, args)

    def set_cost(self, ev: Event, cycles: int, shape: str = "") -> None:
        """Give event `ev` a duration directly (events built without an executor)."""
        self.shapes[id(ev)] = (cycles, shape)

    def duration(self, ev: Event) -> int:
        kind = ev.kind
        if kind in (SET, WAIT):
            return isa_costs.sync_cycles(self.target, kind)
        if kind in (BARRIER, BARRIER_ALL):
            return isa_costs.sync_cycles(self.target, "pipe_barrier")
        known = self.shapes.get(id(ev))
        return known[0] if known is not None else self.costs.issue_cycles

    # --- schedule -------------------------------------------------------------------------------

    def slices(self) -> list[Slice]:
        """Start and end of every executed event (module docstring), in issue order."""
        if self._slices is not None:
            return self._slices
        events = [ev for ev in self.events if ev.done]
        lane_prev: dict[int, Event] = {}
        deps: dict[int, list[Event]] = {}
        last_s: dict[int, Event] = {}  # per core: its scalar unit issues in order
        for ev in events:
            d = list(ev.preds)
            prev = lane_prev.get(ev.lane)
            if prev is not None:
                d.append(prev)
            s_prev = last_s.get(ev.core)
            if s_prev is not None and ev.lane != s_prev.lane:
                d.append(s_prev)
            deps[id(ev)] = d
            lane_prev[ev.lane] = ev
            if ev.pipe is Pipe.S:
                last_s[ev.core] = ev
        own: dict[int, list[Event]] = {}
        for group in self.barriers:  # a sync_all starts when the last core reaches it
            joined = [d for ev in group for d in deps[id(ev)]]
            for ev in group:
                own[id(ev)] = deps[id(ev)]
                deps[id(ev)] = joined
        end: dict[int, int] = {}
        start: dict[int, int] = {}
        for root in events:  # iterative depth-first: deps before the event
            if id(root) in end:
                continue
            stack = [root]
            while stack:
                ev = stack[-1]
                if id(ev) in end:
                    stack.pop()
                    continue
                todo = [d for d in deps.get(id(ev), ()) if id(d) not in end and id(d) in deps]
                if todo:
                    stack.extend(todo)
                    continue
                stack.pop()
                s = max((end[id(d)] for d in deps[id(ev)] if id(d) in end), default=0)
                start[id(ev)] = s
                end[id(ev)] = s + self.duration(ev)
        self.waits = {}
        for ev in events:
            mine = own.get(id(ev))
            if mine is not None:  # waited from its own core's readiness to the joint start
                ready = max((end[id(d)] for d in mine if id(d) in end), default=0)
                self.waits[ev.core] = self.waits.get(ev.core, 0) + start[id(ev)] - ready
        out = []
        where: dict[int, str] = {}  # id(op) -> its location, computed once per op
        for ev in events:
            shape = self.shapes.get(id(ev), (0, ""))[1]
            name = ev.op.name if ev.op is not None else ev.kind
            if ev.kind in (SET, WAIT):
                shape = f"{ev.src} -> {ev.dst} event {ev.event_id}"
            location = where.get(id(ev.op))
            if location is None:
                location = where[id(ev.op)] = op_where(ev.op)
            out.append(Slice(str(ev.pipe), ev.core, start[id(ev)], end[id(ev)], ev.kind, name,
                             location, shape, tuple(ev.iteration)))
        self._slices = out
        return out

    def summary(self) -> Summary:
        slices = self.slices()
        total = max((s.end for s in slices), default=0)
        busy: dict[str, int] = defaultdict(int)
        count: dict[str, int] = defaultdict(int)
        per_op: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for s in slices:
            busy[s.pipe] += s.cycles
            count[s.pipe] += 1
            per_op[s.pipe][f"'{s.name}'" + (f" at {s.location}" if s.location else "")] += s.cycles
        n_cores = len({s.core for s in slices}) or 1  # utilisation of the pipes of every core
        pipes = []
        for pipe in PIPE_ORDER:
            p = str(pipe)
            if p not in busy:
                continue
            op, cycles = max(per_op[p].items(), key=lambda kv: kv[1])
            pipes.append(PipeStats(p, busy[p], count[p],
                                   busy[p] / (total * n_cores) if total else 0.0, op, cycles))
        cores = []
        ends: dict[int, int] = {}
        for s in slices:
            ends[s.core] = max(ends.get(s.core, 0), s.end)
        if len(ends) > 1:
            for core in sorted(ends):
                cores.append(CoreStats(core, ends[core], self.waits.get(core, 0)))
        return Summary(self.target, total, isa_costs.seconds(self.target, total),
                       self.costs.clock_mhz, pipes, cores)

    # --- exports --------------------------------------------------------------------------------

    def write_json(self, path: str) -> None:
        write_trace_json(self.slices(), path, self.costs.clock_mhz)

    def write_png(self, path: str) -> None:
        write_gantt_png(self.slices(), path, title=f"{self.target}: {self.summary().total} cycles")


def _sizes(op: Any, args: Sequence[Any], *names: str) -> list[int]:
    operands = list(op.operands)
    return [int(args[operands.index(getattr(op, n))]) for n in names]


def op_cost(target: str, op: Any, kind: str, args: Sequence[Any]) -> tuple[int, str]:
    """(cycles, shape text) of pipe op `op` of effect kind `kind` with runtime operands `args`."""
    if kind in _MADS:
        m, n, k = _sizes(op, args, "m", "n", "k")
        elem = op.lhs.type.element_name
        return isa_costs.mad_cycles(target, m, n, k, elem), f"{m}x{k}x{n} {elem}"
    if kind == "fixpipe":
        m, n = _sizes(op, args, "m", "n")
        dst_t = op.dst.type
        if hasattr(dst_t, "space_name"):
            space, bits = dst_t.space_name, dst_t.element_bits
        else:  # a GM memref
            from mmair.dialects.types import memref_dtype

            space, bits = "gm", memref_dtype(dst_t).itemsize * 8
        nbytes = m * n * bits // 8
        quant = op.quant.data != "none"
        return (isa_costs.fixpipe_cycles(target, nbytes, space, quant),
                f"{m}x{n} -> {space}{' ' + op.quant.data if quant else ''}")
    if kind in ("mte_l1_l0a", "mte_l1_l0b"):
        dims = ("m", "k") if kind == "mte_l1_l0a" else ("k", "n")
        a, b = _sizes(op, args, *dims)
        nbytes = a * b * op.dst.type.element_bits // 8
        return isa_costs.move_cycles(target, kind, nbytes), f"{a}x{b}"
    if kind == "mte_l1_bt":
        (n,) = _sizes(op, args, "n")
        nbytes = n * op.dst.type.element_bits // 8
        return isa_costs.move_cycles(target, kind, nbytes), f"{n}"
    if kind == "mte_gm_l1":
        rows, cols = _sizes(op, args, "rows", "cols")
        nbytes = rows * cols * op.dst.type.element_bits // 8
        return isa_costs.move_cycles(target, kind, nbytes), f"{rows}x{cols}"
    if kind in ("mte_gm_ub", "mte_ub_gm"):
        tile = args[list(op.operands).index(op.dst if kind == "mte_gm_ub" else op.src)]
        nbytes = int(getattr(tile, "nbytes", 0))
        return isa_costs.move_cycles(target, kind, nbytes), f"{nbytes} B"
    if kind == "gather_mask":
        tile = args[list(op.operands).index(op.src0)]
        nbytes = int(getattr(tile, "nbytes", 0))
        return isa_costs.gather_mask_cycles(target, nbytes), f"{nbytes} B"
    if kind in _RAW_COSTS:
        return _RAW_COSTS[kind](target, op, args)
    return isa_costs.costs(target).issue_cycles, ""


# The raw Ascend C parameter forms (dialects/pto/params.py): the tile-level cost model of the same
# data path (`isa_costs.RAW_MOVE_PATHS`, `mad_cycles`, `fixpipe_cycles`) applied to the bytes or
# the m x k x n their parameters give. A copy counts the data bytes it reads (as the tile-level
# rows x cols); a LoadData counts whole 512-byte fractals, which is what it moves.


def _unit_bytes(elem_bits: int) -> int:
    """Bytes of one field unit: an element, or a byte for 4-bit data (the b8 copy)."""
    return max(elem_bits, 8) // 8


def _cost_nz_copy(target: str, op: Any, args: Sequence[Any]) -> tuple[int, str]:
    count, n, d = _sizes(op, args, *list(op.FIELDS)[:3])
    nbytes = count * n * d * _unit_bytes(op.dst.type.element_bits)
    return isa_costs.move_cycles(target, op.name.removeprefix("pto."), nbytes), f"{count}x{n}x{d}"


def _cost_fractals(*count_fields: str, squares: bool = False):
    def cost(target: str, op: Any, args: Sequence[Any]) -> tuple[int, str]:
        counts = _sizes(op, args, *count_fields)
        fractals = 1
        for c in counts:
            fractals *= c
        if squares:  # LoadDataWithTranspose: repeatTimes square blocks of 1, 2 or 4 fractals
            fractals *= isa_params.transpose_square(op.src.type.element_name)[0]
        nbytes = fractals * FRACTAL_BYTES
        return (isa_costs.move_cycles(target, op.name.removeprefix("pto."), nbytes,
                                      op.dst.type.space_name), f"{fractals} fractals")
    return cost


def _cost_copy_gm_l1(target: str, op: Any, args: Sequence[Any]) -> tuple[int, str]:
    count, length = _sizes(op, args, "block_count", "block_len")
    nbytes = count * length * isa_params.GM_L1_UNIT_BYTES
    return isa_costs.move_cycles(target, "copy_gm_l1", nbytes), f"{nbytes} B"


def _cost_copy_l1_bt(target: str, op: Any, args: Sequence[Any]) -> tuple[int, str]:
    count, length = _sizes(op, args, "block_count", "block_len")
    nbytes = count * length * isa_params.l1_bt_unit_bytes(get_target(target))
    return isa_costs.move_cycles(target, "copy_l1_bt", nbytes), f"{nbytes} B"


def _cost_mmad(target: str, op: Any, args: Sequence[Any]) -> tuple[int, str]:
    m, n, k = _sizes(op, args, "m", "n", "k")
    elem = op.lhs.type.element_name
    return isa_costs.mad_cycles(target, m, n, k, elem), f"{m}x{k}x{n} {elem}"


def _cost_fixpipe_copy(target: str, op: Any, args: Sequence[Any]) -> tuple[int, str]:
    n, m, count = _sizes(op, args, "n_size", "m_size", "nd_num")
    dst_t = op.dst.type
    if hasattr(dst_t, "space_name"):
        space, bits = dst_t.space_name, dst_t.element_bits
    else:  # a GM memref
        from mmair.dialects.types import memref_dtype

        space, bits = "gm", memref_dtype(dst_t).itemsize * 8
    quant = op.quant.data != "none"
    return (isa_costs.fixpipe_cycles(target, count * m * n * bits // 8, space, quant),
            f"{count}x{m}x{n} -> {space}{' ' + op.quant.data if quant else ''}")


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

COSTED_KINDS: frozenset[str] = frozenset(
    (*_MADS, "fixpipe", "mte_l1_l0a", "mte_l1_l0b", "mte_l1_bt", "mte_gm_l1", "mte_gm_ub",
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


_KIND_COLOURS = {
    "mte_gm_l1": "tab:blue", "mte_gm_ub": "tab:blue", "mte_ub_gm": "tab:cyan",
    "mte_l1_l0a": "tab:green", "mte_l1_l0b": "tab:olive", "mte_l1_bt": "tab:olive",
    "mad": "tab:red", "mad_acc": "tab:red", "mad_bias": "tab:red", "fixpipe": "tab:purple",
    "gather_mask": "tab:orange", SET: "black", WAIT: "dimgray", BARRIER: "tab:brown",
    BARRIER_ALL: "tab:brown",
}


def write_gantt_png(slices: Sequence[Slice], path: str, title: str = "") -> None:
    """A Gantt chart: one row per pipe (data-flow order), one bar per op coloured by its kind."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = [str(p) for p in PIPE_ORDER if any(s.pipe == str(p) for s in slices)]
    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.45 * max(len(rows), 1)), dpi=110)
    bars: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
    for s in slices:
        bars[(rows.index(s.pipe), s.kind)].append((s.start, max(s.cycles, 1)))
    for (row, kind), spans in bars.items():
        ax.broken_barh(spans, (row - 0.38, 0.76), facecolors=_KIND_COLOURS.get(kind, "gray"),
                       edgecolor="white", linewidth=0.3)
    ax.set_yticks(range(len(rows)), [f"pipe {r}" for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("cycles")
    ax.set_xlim(0, max((s.end for s in slices), default=1))
    kinds = sorted({s.kind for s in slices})
    ax.legend(handles=[Patch(color=_KIND_COLOURS.get(k, "gray"), label=k) for k in kinds],
              loc="center left", bbox_to_anchor=(1.005, 0.5), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


__all__ = ["COSTED_KINDS", "PIPE_ORDER", "Slice", "Summary", "TimedScheduler", "Timeline", "op_cost",
           "trace_events", "write_gantt_png", "write_trace_json"]
