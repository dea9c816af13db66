"""Happens-before over pipe events: vector clocks per pipe (x core), races, flag faults.

On an AI Core the only orderings between instructions are (docs/pipes.md):

* program order inside one pipe, for the pipes that execute in order (S); on a pipe that may
  overlap dependent instructions (`pipes.needs_same_pipe_barrier`: every pipe but S) program
  order alone orders nothing, only a `pipe_barrier` of that pipe or a chain of flags through other
  pipes (a set_flag fires after every earlier op of its pipe), except after an op that is
  `sequential` (a mad large enough to finish first, `pipes.mad_needs_barrier`);
* `set_flag(src, dst, id)` -> the `wait_flag(src, dst, id)` that consumes it: the set fires when
  every earlier instruction of `src` has finished, the wait holds `dst` until then;
* `pipe_barrier(p)` (every later instruction of p after every earlier one) and
  `pipe_barrier(all)` (every later instruction of the core after every earlier one).

Each pipe (lane = core x pipe) keeps a vector clock C: C[q] = the number of events of lane q known
to have finished before the lane's next event starts. An event on lane l gets epoch n (its 1-based
position in l); event e happens before event f iff e.epoch <= C_f[e.lane] at f. On in-order lanes
C[l] follows the lane's own events; on barrier lanes it only advances at a barrier, so two vector
ops without a barrier stay unordered. A set_flag snapshots its lane's clock (with all of its own
lane's events) into the flag; the wait joins it.

Race check: every access is compared with the recorded accesses of other lanes (and of its own
lane on barrier lanes) to the same memory that are NOT ordered before it; overlapping bytes with at
least one write are a race. Records are kept per (memory, lane) in epoch order, so the check scans
only the unordered tail. The lists stay small: a new access of a lane replaces that lane's earlier
record of the same byte set (a write also replaces the reads; an earlier record is then redundant,
every later conflict with it is a conflict with the newer one), and `prune` drops the records
ordered before every lane's current clock (a lane that never synchronizes holds that back).

Flag reuse over every legal schedule (docs/pipes.md "Legal schedules": data instructions take
any time, sync instructions none): a set_flag of a bit is an overflow not only when the bit is
still set in the executed schedule, but also when the wait_flag that consumed the bit's
previous set may not have passed when it fires (`consumed`, `_unpassed`). What guarantees that
a wait passed is a few (lane, epoch) pairs, "the events of that lane up to that epoch
finished": its pipe's events up to its last data instruction before it (which implies that
the waits before that one passed), what guarantees the syncs between that one and it passed
(`head`), and what its set fired after (`_done_before`, `_passed`).
"""

from __future__ import annotations

from collections.abc import Hashable

from mmair.dialects.pto.access import Access, overlap
from mmair.executor.engine.errors import op_fault
from mmair.executor.engine.events import (
    BARRIER,
    NUM_PIPES,
    OP,
    PIPES,
    SET,
    WAIT,
    Event,
    SyncError,
    as_event,
    flag_event,
    wait_event,
)
from mmair.isa.ascend.pipes import Pipe, needs_same_pipe_barrier
from mmair.isa.tcgen05.units import Unit, tmem_overlap_text, why_unordered

PRUNE_EVERY = 2048
"""Events between two `prune` passes (checked after each batch of the scheduler)."""
PLACES = 4096
"""On-chip accesses whose records lookups `HappensBefore._places_of` keeps at most."""


def _record(ev: Event, a: Access, groups: dict, lane: int, n: int) -> bool:
    """Record access `a` of `ev` (epoch `n` of `lane`) in `groups`, the records of its memory:
    it replaces the lane's earlier record of the same byte set (a write also its read). A
    record is (epoch, event, access, first byte, end of the byte hull). True when it is the
    lane's first record of the memory (`HappensBefore._groups_made`)."""
    group = groups.get(lane)
    made = group is None
    if made:
        group = groups[lane] = [{}, {}, 0, 0]
    region = _region(a)
    if a.write:
        wd = group[0]
        wd.pop(region, None)
        wd[region] = (n, ev, a, a.start, a.end)
        group[1].pop(region, None)  # mutation: skip (memory only: the read is older than this write of its bytes)
        group[2] = n
    else:
        rd = group[1]
        rd.pop(region, None)
        rd[region] = (n, ev, a, a.start, a.end)
        group[3] = n
    return made


def _region(a: Access) -> tuple:
    """The key of an access's record: (start, width, rows, stride), and the atomic kind of an
    atomic write, which then replaces neither a plain write nor a read of the same bytes (a
    later atomic of that kind races with those, not with it)."""
    return a[1:5] + (a.atomic,) if a.atomic else a[1:5]


def _compact(pairs: tuple) -> tuple:
    """(lane, epoch) pairs with one pair per lane, the largest epoch."""
    top: dict[int, int] = {}
    for q, epoch in pairs:
        if epoch > top.get(q, -1):
            top[q] = epoch
    return tuple(top.items())


def _unpassed(last: tuple, lane: int, n: int, seq: int, clock: list[int]) -> bool:
    """Whether set_flag `n` of `lane` (issue number `seq`, firing once its lane's `clock` and
    its own earlier events finished) may fire before the wait_flag of the previous set of its
    flag (`HappensBefore.consumed` entry `last`, on another lane, not ordered before the set)
    passed: the wait was issued after it, or waits for something the set does not."""
    if last[4] > seq:
        return True
    for q, epoch in last[2]:
        if epoch > (n if q == lane else clock[q]):
            return True
    return False


class Conflict:
    """Two unordered accesses to overlapping bytes, at least one a write: `first` executed
    before `second` in the schedule; `lo`, `hi` is the first overlapping byte range."""

    __slots__ = ("first", "second", "first_access", "second_access", "lo", "hi")

    def __init__(self, first: Event, second: Event, first_access: Access, second_access: Access,
                 lo: int, hi: int):
        self.first = first
        self.second = second
        self.first_access = first_access
        self.second_access = second_access
        self.lo = lo
        self.hi = hi

    def __repr__(self) -> str:
        return f"Conflict({self.first!r}, {self.second!r}, [{self.lo}, {self.hi}))"


def _does(access: Access) -> str:
    """What an access does to the bytes of a race ("them")."""
    if access.atomic:
        return f"updates them atomically ({access.atomic})"
    return "writes them" if access.write else "reads them"


class HappensBefore:
    """The vector-clock engine for `cores` cores. With `collect`, races are appended to
    `conflicts` instead of raised (the static entry point); `gm_names` maps GM memory keys to
    names for messages."""

    def __init__(self, cores: int = 1, *, collect: bool = False,
                 gm_names: dict[Hashable, str] | None = None, record_preds: bool = True,
                 units: tuple = PIPES):
        lanes = cores * NUM_PIPES
        self.cores = cores
        self.lanes = lanes
        self.record_preds = record_preds
        self.collect = collect
        self.gm_names: dict[Hashable, str] = gm_names if gm_names is not None else {}
        self.clock: list[list[int]] = [[0] * lanes for _ in range(lanes)]
        self.count: list[int] = [0] * lanes
        # `units`: the core's lane set (events.LANE_SETS); slots past its end stay unused.
        self.in_order: list[bool] = [i % NUM_PIPES >= len(units) or
                                     not needs_same_pipe_barrier(units[i % NUM_PIPES])
                                     for i in range(lanes)]
        self.last: list[Event | None] = [None] * lanes
        """The lane's last event (S) or last barrier or wait_flag (the other pipes, where these
        are the instructions that hold the queue): `preds` of its next op."""
        self.prev: list[Event | None] = [None] * lanes
        self.mark: list[Event | None] = [None] * lanes
        """Barrier lanes: the last set_flag or barrier, and the events since (`since_mark`): the
        `preds` of the next set_flag or barrier, which fires after all of them."""
        self.since_mark: list[list[Event]] = [[] for _ in range(lanes)]
        self.flags: dict[int, tuple[Event | tuple, list[int], tuple]] = {}
        """Set flags not yet consumed: flag key -> (set_flag event, or the `light` item that
        stands for it, the clock snapshot, and the (lane, epoch) pairs whose events it fired
        after: `_done_before`)."""
        self.consumed: dict[int, tuple] = {}
        """Flag key -> (the wait_flag that consumed its last set, as an Event or the `light`
        item that stands for it; its lane; `passed`, the (lane, epoch) pairs that guarantee it
        passed; that set; the wait's issue number; its epoch): the next set of the key must fire after the
        wait passed (`_unpassed`, `_reset`), or in some legal schedule the set finds the bit
        still set."""
        self.sync_at: list[int] = [0] * lanes
        self.head: list[tuple] = [((i, 0),) for i in range(lanes)]
        """Per lane: the epoch of its last sync event (set, wait, barrier), and the (lane,
        epoch) pairs whose events finishing guarantees that every event of the lane before it
        has finished or passed (`_done_before`; sync instructions take no time, docs/pipes.md
        "Legal schedules")."""
        self.records: dict[Hashable, dict[int, list]] = {}
        self.conflicts: list[Conflict] = []
        self.faults: list[SyncError] = []
        """Collect mode: the non-race faults (overflow), in the order found."""
        self._until_prune = PRUNE_EVERY
        self._lane_range = range(lanes)
        # The lanes a flag join can change, per lane. Ascend pipes: its own core's. A flag, a
        # stall and `barrier_all` stay inside one core and `barrier_cores` sets every clock to
        # the same join, so between two sync_alls every lane of a core holds the same entries
        # for the other cores' lanes and a join there changes nothing: a 24-core join looks at
        # NUM_PIPES entries, not 24 x NUM_PIPES (speed only). The tcgen05 units of a CTA pair
        # join across CTAs (`async_checker`): all lanes.
        self._join_lanes: list[range] = [
            range(i - i % NUM_PIPES, i - i % NUM_PIPES + NUM_PIPES) if units == PIPES
            else self._lane_range for i in range(lanes)]
        self._tile_places: dict[int, tuple] = {}
        """The place of an on-chip Access on a lane (`_places_of`), by id of the Access."""
        self._token = object()
        """Names this engine in the lookups an `OpPlan` keeps (`execute_item`)."""
        self._groups_made = 0
        """How many (memory, lane) record groups exist: a kept `_places_of` entry made before
        the last one was added misses a lane to check."""

    # --- execution ------------------------------------------------------------------------

    def execute(self, ev: Event) -> None:
        """Record that `ev` runs now (the scheduler has checked that it can): advance clocks,
        link predecessors, check its accesses."""
        lazy = ev.lazy
        if lazy is not None and not self.record_preds:
            self._execute_op(ev, lazy)
            self.tick(1)
            return
        lane = ev.lane
        n = self.count[lane] + 1
        self.count[lane] = n
        ev.epoch = n
        clock = self.clock[lane]
        kind = ev.kind
        in_order = self.in_order[lane]
        if self.record_preds:
            self._link(ev, lane, kind, in_order)
        if kind == WAIT:
            held, snapshot, done = self.flags.pop(ev.key)
            self.consumed[ev.key] = (ev, lane, self._passed(lane, n, done), held, ev.seq, n)
            for i in self._join_lanes[lane]:
                if snapshot[i] > clock[i]:
                    clock[i] = snapshot[i]
            if ev.pipe is Pipe.S:
                self._stall(ev.core, snapshot)
        elif kind == SET:
            key = ev.key
            held = self.flags.get(key)
            if held is not None:
                first = flag_event(held[0])
                self._fault(SyncError(
                    "overflow",
                    f"sets flag {ev.src} -> {ev.dst} event {ev.event_id} again while it is still "
                    f"set by {first.describe()} and not yet consumed by a wait_flag (one bit "
                    f"per pipe pair and event id: the second set is lost)",
                    ev.op, (ev, first)))
            snapshot = clock[:]
            snapshot[lane] = n  # fires after every earlier event of its own pipe
            if held is None:
                last = self.consumed.pop(key, None)
                if last is not None and last[1] != lane and last[5] > snapshot[last[1]] and \
                        _unpassed(last, lane, n, ev.seq, snapshot):
                    self._reset(ev, last)
            self.flags[key] = (ev, snapshot, self._done_before(lane, n))
        elif kind == BARRIER:
            clock[lane] = n
            self._done_before(lane, n)
        if in_order:
            clock[lane] = n
        accesses = ev.accesses
        lazy = ev.lazy
        if lazy is not None:  # the seam left the footprint to us (`Event.lazy`)
            ev.lazy = None
            try:
                accesses = ev.accesses = lazy[0].accesses(lazy[1])
            except Exception as err:
                raise op_fault(ev.op, err) from None
        if accesses and not in_order and not self.collect:
            # a pipe op of a run (on a lane that overlaps dependent instructions): the steps of
            # `_execute_op`, with the on-chip places it keeps (the same checks in the same
            # order). The static analysis (`collect`) builds its accesses anew per event, so
            # the kept places would never be found again: the loop below is faster there.
            self._check_record(ev, self._places_of(accesses, lane, ev.core), lane, n)
        elif accesses:
            # Check every access before recording any: an op's own accesses (mad_acc reads and
            # writes C) never conflict with each other.
            # Every other lane first, then the own lane's: when an access conflicts both with
            # another pipe and within its pipe, the cross-pipe race is the one to fix first (a
            # pipe_barrier of its own pipe would not order it).
            check = self._check
            groups = [check(ev, access, clock, lane, in_order) for access in accesses]
            if not in_order:
                for access, group in zip(accesses, groups, strict=True):
                    own = group.get(lane)
                    if own is not None:
                        self._scan(ev, access, own, True, clock[lane])
            for access, group in zip(accesses, groups, strict=True):
                self._groups_made += _record(ev, access, group, lane, n)
        self._until_prune -= 1  # mutation: skip (how often `prune` runs: memory, not verdicts)
        if self._until_prune <= 0:
            self.prune()

    def _execute_op(self, ev: Event, lazy: tuple) -> None:
        """`execute` of a pipe op whose footprint the seam left to the engine (`Event.lazy`),
        without predecessors: the common case, with the steps of a pipe op only."""
        lane = ev.lane
        n = self.count[lane] + 1
        self.count[lane] = n
        ev.epoch = n
        ev.lazy = None
        try:
            accesses = ev.accesses = lazy[0].accesses(lazy[1])
        except Exception as err:
            raise op_fault(ev.op, err) from None
        self._check_record(ev, self._places_of(accesses, lane, ev.core), lane, n)

    def execute_item(self, item: tuple) -> None:
        """`_execute_op` of a pipe op batched without an Event (`events.OP` item): its records
        hold the item, `events.as_event` builds the Event for a message."""
        plan = item[1]
        lane = plan.lane
        n = self.count[lane] + 1
        self.count[lane] = n
        try:
            accesses = plan.footprint.accesses(item[2])
        except Exception as err:
            raise op_fault(plan.op, err) from None
        kept = plan.kept  # the same list: the same tiles again
        if kept is not None and kept[1] is accesses and kept[0] is self._token and \
                kept[2] == self._groups_made:  # mutation: skip (a cache: `_places_of` finds the same places)
            places = kept[3]
        else:
            places = self._places_of(accesses, lane, plan.core)
            if places[2]:
                plan.kept = (self._token, accesses, self._groups_made, places)
        self._check_record(item, places, lane, n)

    def _places_of(self, accesses: list[Access], lane: int, core: int) -> tuple:
        """What checking and recording the accesses of a pipe op on `lane` looks at:
        (checks, records, on chip). `checks`: per access and per lane q with records of its
        memory, in that order, (access, q, q's records there, write, first byte, end of the
        byte hull); `records`: per access, (access, its lane's records, its byte set, write,
        first byte, end). For a list of on-chip accesses (`footprint.Footprint` returns the same
        list for the same tiles) `execute_item` keeps it with the op's plan until some lane
        makes its first record of some memory (`_groups_made`), which adds a lane to check."""
        checks = []
        records = []
        on_chip = True
        tiles = self._tile_places
        for a in accesses:
            mem = a.memory
            place = None
            if mem is None:  # a tile's Access, the same object for the same tile
                hit = tiles.get(id(a))
                if hit is not None and hit[0] is a and hit[1] == lane:  # mutation: skip (a cache: the same place again)
                    place = hit[2]
            else:
                on_chip = False
            if place is None:
                key = (a.space, core if mem is None else mem)  # mutation: skip (only one-core runs take this path: multi-core runs record predecessors, so core is 0)
                groups = self.records.get(key)
                if groups is None:
                    groups = self.records[key] = {}
                group = groups.get(lane)
                if group is None:  # [write records, read records, last write epoch, last read's]
                    group = groups[lane] = [{}, {}, 0, 0]
                    self._groups_made += 1
                place = (groups, (a, group, _region(a), a.write, a.start, a.end))
                if mem is None:
                    if len(tiles) >= PLACES:  # accesses built anew each time (raw forms): bounded
                        tiles.clear()  # mutation: skip (a bound on a cache: a hit needs the same Access object, which the cache holds, so an unbounded cache finds the same places)
                    tiles[id(a)] = (a, lane, place)  # mutation: skip (a cache: the place is rebuilt the same)
            groups, record = place
            write, start, end = record[3], record[4], record[5]
            for q, group in groups.items():
                checks.append((a, q, group, write, start, end))
            records.append(record)
        return tuple(checks), tuple(records), on_chip

    def _check_record(self, owner: Event | tuple, places: tuple, lane: int,
                      n: int) -> None:
        """`_check` of every access of a pipe op (epoch `n` of `lane`; `places`:
        `_places_of`), then `_record` of each, inlined: an op's own accesses (mad_acc reads
        and writes C) never conflict with each other. Pipe ops run on lanes that overlap
        dependent instructions (no op kind maps to pipe S, `pipes.pipe_of`; the tcgen05 units'
        events go through `execute`), so the lane's own clock entry stays and its own unordered
        records are checked, after every other lane's."""
        clock = self.clock[lane]
        checks, records, _ = places
        own = None
        for check in checks:
            a, q, group, write, start, end = check
            bound = clock[q]
            if group[2] <= bound and (not write or group[3] <= bound):
                continue  # every record of lane q is ordered before this access
            if q == lane:  # after every other lane's: a cross-pipe race is reported first
                own = [check] if own is None else own + [check]
                continue
            # `_scan`, inlined up to the byte hulls: most unordered records are another tile of
            # the same memory (%a_l1 and %b_l1)
            for recs in (group[0], group[1]) if write else (group[0],):
                for rec in reversed(recs.values()):
                    if rec[0] <= bound:
                        break
                    if rec[3] >= end or start >= rec[4]:
                        continue
                    self._scan_record(owner, a, rec, False)
        for a, _, group, _, _, _ in own or ():
            self._scan(owner, a, group, True, clock[lane])
        for a, group, region, write, start, end in records:  # `_record`
            if write:
                wd = group[0]
                wd.pop(region, None)
                wd[region] = (n, owner, a, start, end)
                group[1].pop(region, None)  # mutation: skip (memory only: the read is older than this write of its bytes)
                group[2] = n
            else:
                rd = group[1]
                rd.pop(region, None)
                rd[region] = (n, owner, a, start, end)
                group[3] = n
        # no prune countdown here: `Scheduler.flush` counts the whole batch (`tick`)

    # Batched sync steps without an Event (`Scheduler.light_set` & co., when no predecessors are
    # recorded and nothing blocks): the same clock updates as `execute` of the events.

    def light(self, item: tuple) -> None:
        """One batched step without an Event (`run_batch`)."""
        self.run_batch((item,))

    def run_batch(self, batch: list | tuple) -> None:
        """Execute the scheduler's batch in order (`Scheduler.flush`, which counts it toward
        the next prune): Events, `events.OP` items (`execute_item`), and sync steps without an
        Event, inlined here: `(SET, plan, seq, iteration)`, `(WAIT, lane, key)` or
        `(SET_WAIT, src lane, dst lane)` (a set_flag whose wait_flag is issued right after it
        and runs at once: the set's clock goes straight into the waiting lane), `plan` the
        `FlagPlan` of the set_flag op; the same clock updates as `execute` of their events."""
        count, clock, flags, spans = self.count, self.clock, self.flags, self._join_lanes
        consumed, head, sync_at = self.consumed, self.head, self.sync_at
        execute_item = self.execute_item
        direct = not self.record_preds  # `execute` would hand a lazy pipe op to `_execute_op`
        for item in batch:
            if item.__class__ is not tuple:
                if direct and item.lazy is not None:
                    self._execute_op(item, item.lazy)
                else:
                    self.execute(item)
                continue
            tag = item[0]
            if tag is OP:
                execute_item(item)
            elif tag is WAIT:
                lane = item[1]
                m = count[lane] + 1
                count[lane] = m
                c = clock[lane]
                held, snapshot, fired = flags.pop(item[2])
                # `_passed`, inlined
                passed = (head[lane] if sync_at[lane] == m - 1 else ((lane, m - 1),)) + fired
                if len(passed) > 16:
                    passed = _compact(passed)
                head[lane] = passed
                sync_at[lane] = m
                consumed[item[2]] = (item, lane, passed, held, item[4], m)
                for i in spans[lane]:  # the join, in place (3x a list comprehension's speed)
                    if snapshot[i] > c[i]:
                        c[i] = snapshot[i]
            elif tag is SET:
                plan = item[1]
                lane = plan.src_lane
                n = count[lane] + 1
                count[lane] = n
                snapshot = clock[lane][:]
                snapshot[lane] = n  # fires after every earlier event of its own pipe
                last = consumed.pop(plan.key, None)
                if last is not None and last[1] != lane and last[5] > snapshot[last[1]] and \
                        _unpassed(last, lane, n, item[2], snapshot):
                    self._reset(item, last)
                if sync_at[lane] != n - 1:  # `_done_before`, inlined
                    head[lane] = ((lane, n - 1),)
                sync_at[lane] = n
                flags[plan.key] = (item, snapshot, head[lane])
            else:
                src, dst = item[1], item[2]
                n = count[src] + 1
                count[src] = n
                m = count[dst] + 1
                count[dst] = m
                snapshot = clock[src]
                last = consumed.get(item[3])
                if last is not None and last[1] != src and last[5] > snapshot[last[1]] and \
                        _unpassed(last, src, n, item[5], snapshot):
                    self._reset(item, last)
                # `_done_before` of the set, `_passed` of the wait, inlined
                if sync_at[src] != n - 1:
                    head[src] = ((src, n - 1),)
                sync_at[src] = n
                passed = (head[dst] if sync_at[dst] == m - 1 else ((dst, m - 1),)) + head[src]
                if len(passed) > 16:
                    passed = _compact(passed)
                head[dst] = passed
                sync_at[dst] = m
                consumed[item[3]] = (item, dst, passed, item, item[5] + 1, m)
                c = clock[dst]
                for i in spans[dst]:  # the join (as above)
                    if snapshot[i] > c[i]:
                        c[i] = snapshot[i]
                c[src] = n  # the set fired after every earlier event of its pipe

    def tick(self, events: int) -> None:
        """Count `events` executed through `light` or `_execute_op` (which do not count
        themselves: the scheduler counts a whole batch at once) toward the next `prune`."""
        self._until_prune -= events  # mutation: skip (how often `prune` runs: memory, not verdicts)
        if self._until_prune <= 0:
            self.prune()

    def _link(self, ev: Event, lane: int, kind: str, in_order: bool) -> None:
        """Fill `ev.preds` (events.py: which events an event starts after)."""
        preds = ev.preds
        last = self.last[lane]
        if in_order:
            if last is not None:
                preds.append(last)  # mutation: skip (the lane's own last event: a timeline starts each event after the previous event of its lane anyway (`Timeline.slices`))
        elif kind == SET or kind == BARRIER:
            mark = self.mark[lane]
            if mark is not None:
                preds.append(mark)  # mutation: skip (the lane's own last set or barrier: a timeline starts each event after the previous event of its lane anyway (`Timeline.slices`))
            preds.extend(self.since_mark[lane])
            self.since_mark[lane] = []  # mutation: skip (memory: the events before the mark precede it on its lane, `Timeline.slices`)
            self.mark[lane] = ev
        else:
            if last is not None:
                preds.append(last)
            prev = self.prev[lane]
            if prev is not None and prev.sequential and prev is not last:
                preds.append(prev)
            self.since_mark[lane].append(ev)
        if kind == WAIT:
            preds.append(self.flags[ev.key][0])
        if in_order or kind == WAIT or kind == BARRIER:
            self.last[lane] = ev  # on the other pipes a wait or a barrier holds the queue
        self.prev[lane] = ev

    def _stall(self, core: int, snapshot: list[int]) -> None:
        """A `wait_flag X -> s` stalled the scalar unit of `core` until X's matching set fired
        (`snapshot`: what that set knew). The scalar unit issues every later instruction of
        every pipe, so each of them starts after the set: join `snapshot` into every lane of
        the core (not S's own epochs: a scalar store before the wait is still not visible to a
        pipe without an `S -> pipe` flag). Events already queued behind a blocked wait_flag
        run after a set issued later, so they are after the stall too."""
        base = core * NUM_PIPES
        span = self._join_lanes[base]
        for q in range(base, base + NUM_PIPES):
            c = self.clock[q]
            for i in span:
                if snapshot[i] > c[i]:
                    c[i] = snapshot[i]

    def barrier_all(self, ev: Event) -> None:
        """`pipe_barrier(all)` issued on core `ev.core` after every queue of the core drained:
        every later event of the core is ordered after every earlier one."""
        base = ev.core * NUM_PIPES
        lanes = range(base, base + NUM_PIPES)
        joined = [0] * self.lanes
        for q in lanes:
            c = self.clock[q]
            for i, v in enumerate(c):
                if v > joined[i]:
                    joined[i] = v
            joined[q] = self.count[q]
            if not self.record_preds:
                continue
            if self.in_order[q]:
                if self.last[q] is not None:
                    ev.preds.append(self.last[q])  # mutation: skip (the in-order lane is S, the barrier's own lane: a timeline starts each event after the previous event of its lane anyway (`Timeline.slices`))
            else:
                if self.mark[q] is not None:
                    ev.preds.append(self.mark[q])
                ev.preds.extend(self.since_mark[q])
        for q in lanes:
            self.clock[q][:] = joined
            if not self.in_order[q]:
                self.since_mark[q] = []  # mutation: skip (memory: the events before the barrier precede it, `Timeline.slices`)
        self.execute(ev)  # on lane S: its own epoch after the join

    def barrier_cores(self, events: list[Event]) -> None:
        """`pto.sync_all` reached by every core (one event per core, on its lane S, every queue
        of every core drained): every later event of any core is ordered after every earlier
        event of any core (the core dimension of the clocks)."""
        # every event of every lane so far: no clock knows more of a lane than its count
        joined = self.count[:]
        for ev in events if self.record_preds else ():
            base = ev.core * NUM_PIPES
            for q in range(base, base + NUM_PIPES):
                if self.in_order[q]:
                    if self.last[q] is not None:
                        ev.preds.append(self.last[q])  # mutation: skip (the in-order lane is S, the sync_all's own lane: a timeline starts each event after the previous event of its lane anyway (`Timeline.slices`))
                else:
                    if self.mark[q] is not None:
                        ev.preds.append(self.mark[q])
                    ev.preds.extend(self.since_mark[q])
        for q in range(self.lanes):
            self.clock[q][:] = joined
            if not self.in_order[q]:
                self.since_mark[q] = []  # mutation: skip (memory: the events before the barrier precede it, `Timeline.slices`)
        for ev in events:
            self.execute(ev)

    # --- races ------------------------------------------------------------------------------

    def _check(self, ev: Event, a: Access, clock: list[int], lane: int, in_order: bool) -> dict:
        """Races of access `a` of `ev` with the recorded accesses; returns the records of its
        memory."""
        mem = a.memory
        key = (a.space, ev.core if mem is None else mem)
        groups = self.records.get(key)
        if groups is None:
            groups = self.records[key] = {}
        write = a.write
        # group = [write records, read records, epoch of the last write, of the last read]
        for q, group in groups.items():
            if q == lane:
                continue  # in order, or scanned after the other lanes (`execute`)
            bound = clock[q]
            if group[2] <= bound and (not write or group[3] <= bound):
                continue  # every record of lane q is ordered before this access
            self._scan(ev, a, group, False, bound)
        return groups

    def _scan(self, ev: Event | tuple, a: Access, group: list, own: bool, bound: int) -> None:
        """Races of access `a` with the records of one lane (`group`) not ordered before it
        (epoch > `bound`); `own`: the lane of `ev` itself."""
        a_start, a_end = a.start, a.end
        for recs in (group[0], group[1]) if a.write else (group[0],):
            for rec in reversed(recs.values()):
                if rec[0] <= bound:
                    break
                # disjoint byte hulls (`overlap`'s first test, without its calls): most
                # unordered pairs are two different tiles of one memory (%a_l1 and %b_l1)
                if rec[3] >= a_end or a_start >= rec[4]:
                    continue
                self._scan_record(ev, a, rec, own)

    def _scan_record(self, ev: Event | tuple, a: Access, rec: tuple, own: bool) -> None:
        """The race of access `a` of `ev` with record `rec` (not ordered before it, byte hulls
        meeting), if their bytes overlap."""
        first = rec[1]
        if own and (first.sequential if first.__class__ is not tuple else first[5]):
            return  # finished before this op of its pipe reaches the bytes
        if a.atomic and a.atomic == rec[2].atomic:
            return  # two atomic updates of one kind: the hardware serializes them per element
        hit = overlap(a, rec[2])
        if hit is not None:
            self._race(first, rec[2], ev, a, hit, rec[0])

    def _buffer_name(self, a: Access, b: Access) -> str:
        names = [x.buffer or self.gm_names.get(x.memory, "") for x in (a, b)]
        names = [x for i, x in enumerate(names) if x and x not in names[:i]]
        if not names:
            return f"{a.space} buffer"
        return " / ".join(names)

    def _race(self, first: Event | tuple, fa: Access, second: Event | tuple, sa: Access,
              hit: tuple[int, int], epoch: int) -> None:
        """Report (or collect) the race of `second`'s access `sa` with `fa` of `first`, which
        ran as `epoch` of its lane."""
        lo, hi = hit
        if first.__class__ is tuple or second.__class__ is tuple:  # `OP` items: their Events
            first = as_event(first, epoch)
            second = as_event(second, self.count[second[1].lane] if second.__class__ is tuple
                              else second.epoch)
        if self.collect:
            self.conflicts.append(Conflict(first, second, fa, sa, lo, hi))
            return
        if sa.space == "gm":
            where = f"bytes [{lo}, {hi}) of GM buffer {self._buffer_name(fa, sa)}"
        elif sa.space == "tmem":
            where = (f"{tmem_overlap_text((fa.start, fa.width, fa.rows), (sa.start, sa.width, sa.rows))}"
                     f" ({self._buffer_name(sa, fa)})")
        else:
            where = (f"{sa.space} bytes [{lo}, {hi}) ({self._buffer_name(sa, fa)})")
        same = first.lane == second.lane
        if first.core != second.core and isinstance(second.pipe, Unit):  # the CTAs of a pair
            message = (f"race on {where} between CTAs {first.core} and {second.core} of the CTA "
                       f"pair: {second.describe()} {_does(sa)}, {first.describe()} "
                       f"{_does(fa)}; no tcgen05.cluster_sync (or mbarrier phase the "
                       f"thread waited) orders them")
            raise SyncError("race", message, second.op, (second, first))
        if first.core != second.core:  # between two AI Cores of a multi-core launch
            message = (f"race on {where} between blocks {first.core} and {second.core}: block "
                       f"{second.core} {second.describe()} {_does(sa)}, block {first.core} "
                       f"{first.describe()} {_does(fa)}; no pto.sync_all between them "
                       f"(the only order between cores)")
            raise SyncError("race", message, second.op, (second, first))
        if isinstance(first.pipe, Unit):
            why = why_unordered(first.pipe, second.pipe)
        else:
            why = (f"no pipe_barrier({first.pipe}) between them" if same else
                   "no set_flag/wait_flag chain or pipe_barrier orders them")
        message = (f"race on {where}: {second.describe()} {_does(sa)}, "
                   f"{first.describe()} {_does(fa)}; {why}")
        raise SyncError("race", message, second.op, (second, first))

    def _done_before(self, lane: int, n: int) -> tuple:
        """Sync event `n` of `lane` (a set_flag, wait_flag or pipe_barrier): the (lane, epoch)
        pairs whose events finishing guarantees that every earlier event of the lane has
        finished, which is when a set fires or a barrier passes (sync instructions take no
        time: docs/pipes.md "Legal schedules"): the lane's events up to its last data
        instruction (one that finished started, after every earlier wait passed), and what
        guarantees the waits after that one passed (`head`; inlined in `run_batch`)."""
        if self.sync_at[lane] != n - 1:  # a data instruction before it: a new run of syncs
            self.head[lane] = ((lane, n - 1),)
        self.sync_at[lane] = n
        return self.head[lane]

    def _passed(self, lane: int, n: int, fired: tuple) -> tuple:
        """Wait_flag `n` of `lane` consumed a set that fired once `fired` (its `_done_before`)
        finished: the pairs that guarantee the wait passed (its pipe reached it, the bit was
        set), which the later syncs of its run need too (`head`; inlined in `run_batch`)."""
        passed = self._done_before(lane, n) + fired
        if len(passed) > 16:  # (a long run of syncs: one pair per lane)
            passed = _compact(passed)
        self.head[lane] = passed
        return passed

    def _reset(self, second: Event | tuple, last: tuple) -> None:
        """Set `second` of a flag whose previous set was consumed by the wait_flag `last[0]`
        (`consumed`), while the instruction before that wait on its pipe is not known to have
        finished when `second` fires. In a legal schedule (docs/pipes.md: a data instruction
        takes any time, a pipe may run its queue one instruction at a time, a wait_flag passes
        as soon as its set fired and its pipe reached it) that pipe is still busy then, the bit
        is still set and the second set is lost: the overflow of the executed schedule, found
        in any schedule."""
        ev = flag_event(second)
        wait = wait_event(last[0])
        first = flag_event(last[3])
        self._fault(SyncError(
            "overflow",
            f"sets flag {ev.src} -> {ev.dst} event {ev.event_id} again, but nothing orders it "
            f"after {wait.describe()}, which consumes the previous set {first.describe()}: in a "
            f"legal schedule pipe {wait.pipe} is still busy with an instruction before that wait "
            f"when this set fires, the bit is still set and this set is lost (one bit per pipe "
            f"pair and event id; a flag {wait.pipe} -> {ev.src} after the wait and before this "
            f"set, or another event id, orders them)",
            ev.op, (ev, wait, first), schedule=True))

    def _fault(self, err: SyncError) -> None:
        if not self.collect:
            raise err
        self.faults.append(err)

    # --- pruning ------------------------------------------------------------------------------

    def prune(self) -> None:
        """Drop the records ordered before every lane's current clock: no later access of any
        lane can race with them."""
        self._until_prune = PRUNE_EVERY
        floor = list(map(min, zip(*self.clock, strict=True)))  # per lane q: min of c[q]
        for groups in self.records.values():
            for q, group in groups.items():
                bound = floor[q]
                if bound == 0:
                    continue
                for recs in (group[0], group[1]):
                    stale = []
                    for region, rec in recs.items():
                        if rec[0] > bound:
                            break
                        stale.append(region)
                    for region in stale:
                        del recs[region]

    def record_count(self) -> int:
        """How many access records are kept (for tests of the pruning)."""
        return sum(len(group[0]) + len(group[1]) for groups in self.records.values()
                   for group in groups.values())

    # --- end of kernel ------------------------------------------------------------------------

    def unbalanced(self) -> list[Event]:
        """set_flag events never consumed by a wait_flag, in issue order."""
        return sorted((flag_event(held[0]) for held in self.flags.values()), key=lambda e: e.seq)
