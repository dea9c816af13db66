"""The cyclic garbage collector while the executor runs."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_NEVER = 1 << 30
"""A third threshold no count reaches: no full collection."""


@contextmanager
def no_full_collection() -> Iterator[None]:
    """No full (oldest-generation) collection while the executor runs; the caller's thresholds
    come back after it. A full collection walks every tracked object of the process: the parsed
    module and, in a timed run, every Event the timeline keeps, so its cost grows with the run
    (one took 50 ms of a 350 ms 24-core `--timing-only` run of the 2048^3 matmul). The young
    generations still run, so short-lived cycles are still freed during the run; the long-lived
    ones wait for the first full collection after it (speed only)."""
    first, second, third = gc.get_threshold()
    gc.set_threshold(first, second, _NEVER)
    try:
        yield
    finally:
        now = gc.get_threshold()
        if now == (first, second, _NEVER):  # unless the caller changed them meanwhile
            gc.set_threshold(first, second, third)
