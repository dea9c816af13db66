"""`no_full_collection`: no full collection while the executor runs, the caller's thresholds
after it (also when the run raises)."""

from __future__ import annotations

import gc

import pytest

from mmair.executor.engine.gc_scope import no_full_collection


def _full_collections_while_allocating() -> int:
    full = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.callbacks.append(seen)
    try:
        kept = [[i] for i in range(300_000)]  # long-lived containers: a full collection is due
        del kept
    finally:
        gc.callbacks.remove(seen)
    return len(full)


def test_allocations_trigger_no_full_collection_inside_the_scope():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        assert _full_collections_while_allocating() > 0  # the reference: they do outside it
        with no_full_collection():
            assert _full_collections_while_allocating() == 0
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_the_thresholds_come_back_when_the_run_raises():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError, match="a fault in the run"), no_full_collection():
        raise RuntimeError("a fault in the run")
    assert gc.get_threshold() == before
