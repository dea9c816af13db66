"""The L2 cache of a timed launch: which GM bytes a read finds in L2, and the DDR share of a miss.

Every AI Core of an Ascend chip reads GM through one L2 shared by all cores (192 MB on 910B,
`isa/ascend/costs.py`). The timeline (`executor/engine/timeline.py`) hands this model the GM
accesses of its reads and writes in the order they start; the model keeps L2 as lines of
`l2_line_bytes` with least-recently-used replacement, exactly: a line hits when fewer than
`l2_bytes / l2_line_bytes` distinct other lines were touched since its last use (its LRU stack
distance). Writes allocate their lines (write-back L2); reads allocate theirs on a miss.

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

    def _last_of(self, memory: object, top: int) -> np.ndarray:
        last = self.last.get(memory)
        if last is None or len(last) <= top:
            grown = np.full(max(top + 1, 2 * len(last) if last is not None else 0), -1, np.int64)
            if last is not None:
                grown[:len(last)] = last
            last = self.last[memory] = grown
        return last

    def touch(self, accesses: Iterable[Access]) -> tuple[int, int]:
        """One access step: the lines of `accesses` (GM accesses, any memories) are used now.
        Returns (lines that were in L2, lines touched)."""
        step = self.step
        self.step += 1
        per_memory: dict[object, list[np.ndarray]] = {}
        for acc in accesses:
            lines = access_lines(acc, self.line_bytes)
            if len(lines):
                per_memory.setdefault(acc.memory, []).append(lines)
        marks = self.marks
        now = marks.prefix(step)  # every mark (all are at earlier steps)
        hits = total = 0
        moves: list[tuple[int, int]] = []  # (step, lines) whose marks move to this step
        for memory, parts in per_memory.items():
            lines = parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts))
            last = self._last_of(memory, int(lines[-1]))
            prev = last[lines]
            total += len(lines)
            seen = prev[prev >= 0]
            if len(seen):
                steps, counts = np.unique(seen, return_counts=True)
                for p, c in zip(steps.tolist(), counts.tolist(), strict=True):
                    # distinct lines used after step p: the marks after it (queried before any
                    # mark of this step moves)
                    if now - marks.prefix(p + 1) < self.capacity_lines:
                        hits += c
                    moves.append((p, c))
            last[lines] = step
        for p, c in moves:
            marks.add(p, -c)
        if total:
            marks.add(step, total)
        return hits, total


def concurrent_readers(starts: np.ndarray, ends: np.ndarray, cores: np.ndarray) -> np.ndarray:
    """For each interval i ([starts[i], ends[i]) of a DDR read on core cores[i]): how many cores'
    DDR reads are under way at its midpoint (itself included; at least 1)."""
    if not len(starts):
        return np.empty(0, np.int64)
    mid = (starts + ends) / 2
    order_s, order_e = np.sort(starts), np.sort(ends)
    active = np.searchsorted(order_s, mid, side="right") - np.searchsorted(order_e, mid, side="right")
    # one core's MTE2 runs one move at a time: more active intervals than cores cannot happen
    return np.clip(active, 1, max(len(np.unique(cores)), 1))


__all__ = ["L2Model", "access_lines", "concurrent_readers"]
