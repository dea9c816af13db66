"""Edges of the concurrency checkers' footprints that the engine's own tests leave open
(issue 18): how a strided access is described in a race message."""

from __future__ import annotations

from mmair.dialects.pto.effects import Access


def test_strided_access_is_described_row_by_row() -> None:
    # 4 rows of 8 bytes every 16: the hull is [0, 3*16 + 8) = [0, 56)
    assert Access("gm", 0, 8, 4, 16).describe() == "[0, 56) as 4 rows of 8 bytes every 16 bytes"
    # rows that touch (stride = width) are one contiguous range
    assert Access("gm", 0, 8, 4, 8).describe() == "[0, 32)"
    assert Access("l1", 64, 32).describe() == "[64, 96)"
