"""executor/engine/l2.py: the LRU L2 shared by the cores of a timed launch, and the DDR share."""

from collections import OrderedDict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.dialects.pto.access import Access
from mmair.executor.engine.l2 import L2Model, access_lines, concurrent_readers


def _gm(start: int, width: int, rows: int = 1, stride: int = 0, memory: object = 1) -> Access:
    return Access("gm", start, width, rows, stride, False, "", memory)


def test_lines_of_a_strided_window_are_those_its_rows_touch():
    # rows [100, 700), [2148, 2748), [4196, 4796) of 512-byte lines
    assert access_lines(_gm(100, 600, 3, 2048), 512).tolist() == [0, 1, 4, 5, 8, 9]
    assert access_lines(_gm(0, 1024), 512).tolist() == [0, 1]
    assert access_lines(_gm(0, 256, 4, 256), 512).tolist() == [0, 1]  # touching rows: one run


def test_a_line_hits_until_capacity_distinct_lines_were_used_since():
    l2 = L2Model(4 * 512, 512, 16)  # four lines
    assert l2.touch([_gm(0, 1024)])[::2] == (0, 2)  # lines 0, 1: cold
    assert l2.touch([_gm(1024, 1024)])[::2] == (0, 2)  # lines 2, 3
    assert l2.touch([_gm(0, 1024)])[::2] == (2, 2)  # two lines used since: still in L2
    assert l2.touch([_gm(2048, 2048)])[::2] == (0, 4)  # lines 4..7 evict the LRU ones
    assert l2.touch([_gm(1024, 1024)])[::2] == (0, 2)  # 6 distinct lines since lines 2, 3: evicted
    assert l2.touch([_gm(0, 512, memory=2)])[::2] == (0, 1)  # another buffer: other lines


def test_a_line_still_being_filled_is_waited_for_not_hit():
    l2 = L2Model(64 * 512, 512, 8)
    assert l2.touch([_gm(0, 1024)], start=0, end=100) == (0, 0, 2)  # core 0 misses
    assert l2.touch([_gm(0, 1024, memory=1)], start=50, end=60) == (0, 2, 2)  # core 1: waits
    assert l2.touch([_gm(0, 1024)], start=200, end=210) == (2, 0, 2)  # filled by then: hits


def _reference_lru(capacity: int, lines: list[int]) -> list[int]:
    """An LRU cache of `capacity` lines touched one at a time: 1 for a hit, 0 for a miss."""
    cache: OrderedDict[int, None] = OrderedDict()
    hits = []
    for line in lines:
        hits.append(int(line in cache))
        cache.pop(line, None)
        cache[line] = None
        if len(cache) > capacity:
            cache.popitem(last=False)
    return hits


def _reference_batched(capacity: int, steps: list[list[int]]) -> list[int]:
    """Hits of LRU at move granularity by brute force: a line hits when fewer than `capacity`
    distinct lines were touched by the moves after the last move that touched it."""
    hits = []
    for now, lines in enumerate(steps):
        found = 0
        for line in lines:
            last = max((p for p in range(now) if line in steps[p]), default=None)
            if last is not None:
                between = set().union(*steps[last + 1:now]) - {line}
                found += len(between) < capacity
        hits.append(found)
    return hits


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.lists(st.integers(0, 24), min_size=1, max_size=40))
def test_one_line_moves_hit_exactly_as_an_lru_cache(capacity, lines):
    l2 = L2Model(capacity * 512, 512, len(lines))
    got = [l2.touch([_gm(line * 512, 512)])[0] for line in lines]
    assert got == _reference_lru(capacity, lines)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.lists(st.lists(st.integers(0, 24), min_size=1, max_size=6,
                                            unique=True), min_size=1, max_size=25))
def test_moves_of_many_lines_hit_as_lru_at_move_granularity(capacity, steps):
    l2 = L2Model(capacity * 512, 512, len(steps))
    got = [l2.touch([_gm(line * 512, 512) for line in lines])[0] for lines in steps]
    assert got == _reference_batched(capacity, steps)


def test_concurrent_readers_count_the_cores_reading_at_a_reads_midpoint():
    starts = np.array([0.0, 10.0, 200.0])
    ends = np.array([100.0, 110.0, 300.0])
    assert concurrent_readers(starts, ends, np.array([0, 1, 0])).tolist() == [2, 2, 1]
