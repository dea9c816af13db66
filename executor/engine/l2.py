"""The L2 cache of a timed launch: which GM bytes a read finds in L2, and the DDR share of a miss.

Every AI Core of an Ascend chip reads GM through one L2 shared by all cores (192 MB on 910B,
`isa/ascend/costs.py`). The timeline (`executor/engine/timeline.py`) hands this model the GM
accesses of its reads and writes in the order they start; the model keeps L2 as lines of
`l2_line_bytes` with least-recently-used replacement, exactly: a line hits when fewer than
`l2_bytes / l2_line_bytes` distinct other lines were touched since its last use (its LRU stack
distance). Writes allocate their lines (write-back L2); reads allocate theirs on a miss. A line
found in L2 while the miss that brings it is still under way (another core asked first) is
waited for at the DDR rate, as the core that missed: cores that read the same panel at the same
time all wait for its one fill.

Stack distances at the granularity of one access (all lines of one move count as touched at
once) are counted with a Fenwick tree over access steps: each line's last use is one mark, the
distance of a line last used at step p is the number of marks after p.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from mmair.dialects.pto.access import Access


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
    if (first[1:] > first[:-1] + count[:-1] - 1).all():
        return lines  # each row starts on a line after the previous row's last: ascending, distinct
    return np.unique(lines)


LINE_SETS = 4096
"""Line sets `L2Model` keeps by access shape (the same GM window is read again and again: an A
tile for every column of tiles of C)."""


class L2Model:
    """LRU L2 of `capacity_bytes` in lines of `line_bytes`, for at most `steps` accesses."""

    def __init__(self, capacity_bytes: int, line_bytes: int, steps: int,
                 lines_bound: int | None = None):
        self.capacity_lines = capacity_bytes // line_bytes
        self.fits = lines_bound is not None and lines_bound <= self.capacity_lines
        """`lines_bound` (at least the distinct lines the run touches) fits in L2: nothing is
        ever evicted (the lines used after a line's last use are fewer than the capacity), so a
        line touched before is resident and no stack distance is counted (speed only)."""
        self.line_bytes = line_bytes
        self.marks = _Fenwick(steps)
        self.step = 0
        self.last: dict[object, np.ndarray] = {}
        """Per memory: the step of each line's last use (-1: never touched)."""
        self.filled: dict[object, np.ndarray] = {}
        """Per memory: the cycle each line's fill from DDR ends (of the miss that brought it)."""
        self._line_sets: dict[tuple, np.ndarray] = {}
        """`access_lines` by (start, width, rows, stride) of the access (read-only arrays)."""

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
        known = self._line_sets
        for acc in accesses:
            shape = acc[1:5]
            lines = known.get(shape)
            if lines is None:
                if len(known) >= LINE_SETS:
                    known.clear()
                lines = known[shape] = access_lines(acc, self.line_bytes)
            if len(lines):
                per_memory.setdefault(acc.memory, []).append(lines)
        if self.fits:
            return self._touch_resident(per_memory, start, end, step)
        marks = self.marks
        now = marks.prefix(step)  # every mark (all are at earlier steps)
        capacity = self.capacity_lines
        hits = pending = total = 0
        moves: list[tuple[int, int]] = []  # (step, lines) whose marks move to this step
        for memory, parts in per_memory.items():
            lines = parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
            last, filled = self._state(memory, int(lines[-1]))
            prev = last[lines]
            n = len(lines)
            total += n
            seen = prev >= 0
            n_seen = int(np.count_nonzero(seen))
            resident = None
            if n_seen:
                used = prev if n_seen == n else prev[seen]
                first_use = int(used.min())
                if first_use == int(used.max()):  # every line last used by one access
                    steps_list, counts_list, inverse = [first_use], [n_seen], None
                else:
                    steps, inverse, counts = np.unique(used, return_inverse=True,
                                                       return_counts=True)
                    steps_list, counts_list = steps.tolist(), counts.tolist()
                # distinct lines used after step p: the marks after it (queried before any
                # mark of this step moves)
                kept = [now - marks.prefix(p + 1) < capacity for p in steps_list]
                moves.extend(zip(steps_list, counts_list, strict=True))
                if any(kept):
                    in_l2 = np.ones(n_seen, bool) if inverse is None else \
                        np.array(kept, dtype=bool)[inverse.ravel()]
                    if n_seen == n:
                        resident = in_l2
                    else:
                        resident = np.zeros(n, bool)
                        resident[seen] = in_l2
            if resident is None:  # every line misses
                filled[lines] = end  # a miss fills its lines when its transfer ends
            else:
                late = resident & (filled[lines] > start)
                n_late = int(np.count_nonzero(late))
                hits += int(np.count_nonzero(resident)) - n_late
                pending += n_late
                filled[lines[~resident]] = end
            last[lines] = step
        for p, c in moves:
            marks.add(p, -c)
        if total:
            marks.add(step, total)
        return hits, pending, total

    def _touch_resident(self, per_memory: dict[object, list[np.ndarray]], start: float,
                        end: float, step: int) -> tuple[int, int, int]:
        """`touch` when nothing is evicted (`fits`): every line touched before is in L2."""
        hits = pending = total = 0
        for memory, parts in per_memory.items():
            lines = parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
            last, filled = self._state(memory, int(lines[-1]))
            n = len(lines)
            total += n
            resident = last[lines] >= 0
            late = resident & (filled[lines] > start)
            n_late = int(np.count_nonzero(late))
            hits += int(np.count_nonzero(resident)) - n_late
            pending += n_late
            filled[lines[~resident]] = end
            last[lines] = step
        return hits, pending, total

    @staticmethod
    def lines_bound(accesses: Iterable[Access], line_bytes: int) -> int:
        """At least the distinct lines `accesses` touch: per memory, the lines of the hull of
        its accesses' bytes."""
        hulls: dict[object, list[int]] = {}
        for a in accesses:
            if a.width <= 0 or a.rows <= 0:
                continue
            first, last = a.start // line_bytes, (a.end - 1) // line_bytes
            hull = hulls.get(a.memory)
            if hull is None:
                hulls[a.memory] = [first, last]
            else:
                if first < hull[0]:
                    hull[0] = first
                if last > hull[1]:
                    hull[1] = last
        return sum(hi - lo + 1 for lo, hi in hulls.values())


def concurrent_readers(starts: np.ndarray, ends: np.ndarray, cores: np.ndarray,
                       at: np.ndarray | None = None) -> np.ndarray:
    """How many cores' DDR reads (intervals [starts[i], ends[i]) on core cores[i]) are under way
    at each time of `at` (default: each interval's own midpoint); at least 1."""
    if at is None:
        at = (starts + ends) / 2
    if not len(starts):
        return np.ones(len(at), np.int64)
    order_s, order_e = np.sort(starts), np.sort(ends)
    active = np.searchsorted(order_s, at, side="right") - np.searchsorted(order_e, at, side="right")
    # one core's MTE2 runs one move at a time: more active intervals than cores cannot happen
    return np.clip(active, 1, max(len(np.unique(cores)), 1))


__all__ = ["L2Model", "access_lines", "concurrent_readers"]
