"""Today's timeline schedule, kept as the oracle of the fast one: the depth-first schedule over
event ids, the L2 model with a numpy line set per access, and the two-pass L2 pricing, as
`executor/engine/timeline.py` and `executor/engine/l2.py` computed them before the index-based
schedule (issue 30 item 2). `reference_schedule(timeline)` returns what the fast
`Timeline.slices` must reproduce: (pipe, core, start, end) per executed event, the L2 lines
and the sync_all waits."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from math import ceil

import numpy as np

from mmair.dialects.pto.access import Access
from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT, Event
from mmair.executor.engine.l2 import concurrent_readers
from mmair.executor.engine.timeline import PIPE_ORDER, ROOFLINES, CoreStats, PipeStats, Summary
from mmair.isa.ascend import costs as isa_costs
from mmair.isa.ascend.pipes import Pipe


class _Fenwick:
    """Prefix sums over access steps (the marks of `L2Model`)."""

    def __init__(self, size: int):
        self.tree = [0] * (size + 1)

    def add(self, index: int, delta: int) -> None:
        i = index + 1
        tree = self.tree
        n = len(tree)
        while i < n:
            tree[i] += delta
            i += i & -i

    def prefix(self, index: int) -> int:
        """Sum of steps [0, index)."""
        total, i, tree = 0, index, self.tree
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total


def access_lines(access: Access, line_bytes: int) -> np.ndarray:
    """The distinct line indices (of its memory) the bytes of `access` touch, ascending."""
    if access.width <= 0 or access.rows <= 0:
        return np.empty(0, np.int64)
    if access.rows == 1 or access.stride <= access.width:
        return np.arange(access.start // line_bytes, (access.end - 1) // line_bytes + 1,
                         dtype=np.int64)
    starts = access.start + access.stride * np.arange(access.rows, dtype=np.int64)
    first = starts // line_bytes
    count = (starts + access.width - 1) // line_bytes - first + 1
    if int(count.max()) == int(count.min()):
        lines = (first[:, None] + np.arange(int(count[0]), dtype=np.int64)).ravel()
    else:
        offsets = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count,
                                                                         count)
        lines = np.repeat(first, count) + offsets
    return np.unique(lines)


class L2Model:
    """LRU L2 of `capacity_bytes` in lines of `line_bytes`, for at most `steps` accesses."""

    def __init__(self, capacity_bytes: int, line_bytes: int, steps: int):
        self.capacity_lines = capacity_bytes // line_bytes
        self.line_bytes = line_bytes
        self.marks = _Fenwick(steps)
        self.step = 0
        self.last: dict[object, np.ndarray] = {}
        """Per memory: the step of each line's last use (-1: never touched)."""
        self.filled: dict[object, np.ndarray] = {}
        """Per memory: the cycle each line's fill from DDR ends (of the miss that brought it)."""

    def _state(self, memory: object, top: int) -> tuple[np.ndarray, np.ndarray]:
        """(last-use step, fill end) arrays of `memory`'s lines, grown to hold line `top`."""
        last = self.last.get(memory)
        if last is None or len(last) <= top:
            size = max(top + 1, 2 * len(last) if last is not None else 0)
            grown = np.full(size, -1, np.int64)
            fill = np.zeros(size, np.float64)
            if last is not None:
                grown[:len(last)] = last
                fill[:len(last)] = self.filled[memory]
            last = self.last[memory] = grown
            self.filled[memory] = fill
        return last, self.filled[memory]

    def touch(self, accesses: Iterable[Access], start: float = 0.0, end: float = 0.0
              ) -> tuple[int, int, int]:
        """One access step, running from `start` to `end` (cycles of a first schedule): the lines
        of `accesses` (GM accesses, any memories) are used now. Returns (lines found in L2 and
        filled, lines found in L2 while another access still fills them from DDR, lines
        touched): a line that one core's miss is bringing in reaches a second core no sooner
        than it arrives, so that core waits for DDR too (without reading DDR again)."""
        step = self.step
        self.step += 1
        per_memory: dict[object, list[np.ndarray]] = {}
        for acc in accesses:
            lines = access_lines(acc, self.line_bytes)
            if len(lines):
                per_memory.setdefault(acc.memory, []).append(lines)
        marks = self.marks
        now = marks.prefix(step)  # every mark (all are at earlier steps)
        hits = pending = total = 0
        moves: list[tuple[int, int]] = []  # (step, lines) whose marks move to this step
        for memory, parts in per_memory.items():
            lines = parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
            last, filled = self._state(memory, int(lines[-1]))
            prev = last[lines]
            total += len(lines)
            resident = np.zeros(len(lines), bool)
            seen = prev >= 0
            if seen.any():
                steps, counts = np.unique(prev[seen], return_counts=True)
                kept = []
                for p, c in zip(steps.tolist(), counts.tolist(), strict=True):
                    # distinct lines used after step p: the marks after it (queried before any
                    # mark of this step moves)
                    if now - marks.prefix(p + 1) < self.capacity_lines:
                        kept.append(p)
                    moves.append((p, c))
                if kept:
                    resident = np.isin(prev, np.array(kept, dtype=np.int64)) & seen
            late = resident & (filled[lines] > start)
            hits += int(np.count_nonzero(resident & ~late))
            pending += int(np.count_nonzero(late))
            fresh = lines[~resident]
            filled[fresh] = end  # a miss fills its lines when its transfer ends
            last[lines] = step
        for p, c in moves:
            marks.add(p, -c)
        if total:
            marks.add(step, total)
        return hits, pending, total


class ReferenceTimeline:
    """The schedule of `tl`'s events as it was computed before (module docstring)."""

    def __init__(self, tl):
        self.tl = tl
        self.l2_cycles: dict[int, int] = {}
        self.l2_lines = (0, 0)
        self.waits: dict[int, int] = {}

    def duration(self, ev: Event) -> int:
        kind = ev.kind
        if kind in (SET, WAIT):
            return isa_costs.sync_cycles(self.tl.costs, kind)
        if kind in (BARRIER, BARRIER_ALL):
            return isa_costs.sync_cycles(self.tl.costs, "pipe_barrier")
        priced = self.l2_cycles.get(id(ev))
        if priced is not None:
            return priced
        known = self.tl.shapes.get(id(ev))
        return known[0] if known is not None else self.tl.costs.issue_cycles

    # --- schedule -------------------------------------------------------------------------------

    def _schedule(self, events: list[Event], deps: dict[int, list[Event]]
                  ) -> tuple[dict[int, int], dict[int, int]]:
        """(start, end) cycles by id(event): each event starts when all its deps have ended."""
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
        return start, end

    def _price_gm_reads(self, events: list[Event], start: dict[int, int],
                        end: dict[int, int]) -> bool:
        """The L2 model (`executor/engine/l2.py`) on a first schedule: in the order the GM
        accesses start, each read's lines hit or miss L2; a read then costs its hit bytes at the
        L2 rate and its miss bytes at this core's share of DDR while other cores' misses run at
        the same time. Fills `l2_cycles`; False when nothing changed (no GM reads)."""
        import numpy as np


        c = self.tl.costs
        gm = [ev for ev in events if ev.accesses and id(ev) in self.tl.shapes and
              self.tl.shapes[id(ev)].level in ("gm_l1", "gm_ub", "l0c_gm", "ub_gm")]
        if not gm:
            return False
        gm.sort(key=lambda ev: (start[id(ev)], ev.seq))
        model = L2Model(c.l2_bytes, c.l2_line_bytes, len(gm)) if c.l2_bytes else None
        reads: list[tuple[Event, int, int, bool]] = []  # (event, hit, miss bytes, reads DDR)
        hit_lines = read_lines = 0
        for ev in gm:
            cost = self.tl.shapes[id(ev)]
            reading = cost.level in ("gm_l1", "gm_ub")
            accesses = [a for a in ev.accesses if a.space == "gm" and a.write != reading]
            hits, pending, total = model.touch(accesses, start[id(ev)], end[id(ev)]) \
                if model is not None else (0, 0, 0)
            if not reading:
                continue
            hit_lines += hits + pending
            read_lines += total
            # a hit reads its share of the bytes from L2; a miss brings whole lines from DDR,
            # and a line another core is still bringing in arrives as fast as that miss
            hit_bytes = cost.nbytes * hits // total if total else 0
            miss_bytes = (total - hits) * c.l2_line_bytes if model is not None else cost.nbytes
            reads.append((ev, hit_bytes, miss_bytes, model is None or hits + pending < total))
        self.l2_lines = (hit_lines, read_lines)
        ddr = [ev for ev, _, _, reads_ddr in reads if reads_ddr]
        waiting = [ev for ev, _, miss, _ in reads if miss]
        readers = concurrent_readers(
            np.array([start[id(ev)] for ev in ddr], dtype=np.float64),
            np.array([end[id(ev)] for ev in ddr], dtype=np.float64),
            np.array([ev.core for ev in ddr], dtype=np.int64),
            np.array([(start[id(ev)] + end[id(ev)]) / 2 for ev in waiting], dtype=np.float64))
        share = dict(zip((id(ev) for ev in waiting), readers.tolist(), strict=True))
        l2_rate = (c.l2_read or c.gm_read).bytes_per_cycle
        for ev, hit_bytes, miss_bytes, _ in reads:
            transfer = hit_bytes / l2_rate
            if miss_bytes:
                transfer += miss_bytes / c.ddr_read_share(share[id(ev)])
            self.l2_cycles[id(ev)] = c.gm_read.latency + ceil(transfer)
        return True

    def schedule(self) -> tuple[list[tuple], tuple[int, int], dict[int, int]]:
        """((pipe, core, start, end) per executed event in issue order, L2 lines, waits)."""
        events = [ev for ev in self.tl.events if ev.done]
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
        for group in self.tl.barriers:  # a sync_all starts when the last core reaches it
            joined = [d for ev in group for d in deps[id(ev)]]
            for ev in group:
                own[id(ev)] = deps[id(ev)]
                deps[id(ev)] = joined
        self.l2_cycles = {}
        start, end = self._schedule(events, deps)
        if self._price_gm_reads(events, start, end):  # the L2 model re-prices the GM reads
            start, end = self._schedule(events, deps)
        self.waits = {}
        for ev in events:
            mine = own.get(id(ev))
            if mine is not None:  # waited from its own core's readiness to the joint start
                ready = max((end[id(d)] for d in mine if id(d) in end), default=0)
                self.waits[ev.core] = self.waits.get(ev.core, 0) + start[id(ev)] - ready
        return ([(str(ev.pipe), ev.core, start[id(ev)], end[id(ev)]) for ev in events],
                self.l2_lines, self.waits)


def reference_schedule(tl) -> tuple[list[tuple], tuple[int, int], dict[int, int]]:
    """Today's schedule of timeline `tl` (module docstring)."""
    return ReferenceTimeline(tl).schedule()


def reference_summary(self) -> Summary:
    """Today's `Timeline.summary`, from the slices of timeline `self`."""
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
    per_core: dict[tuple[int, str], int] = defaultdict(int)
    for s in slices:
        ends[s.core] = max(ends.get(s.core, 0), s.end)
        per_core[(s.core, s.pipe)] += s.cycles
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
