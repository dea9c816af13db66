"""Byte sets of one memory and their overlap: the `Access` records every footprint is made of.

An `Access` is a set of bytes of one memory: `rows` segments of `width` bytes, `stride` bytes
apart, starting at byte `start`. On-chip tiles are one segment (the tile's bytes in its space,
`[offset, offset + nbytes)`); a GM window is the exact set of its rows, so two column windows of
one matrix (a strided subview [128 x 128] at column 0 and another at column 128) do not overlap,
while their bounding boxes would. `overlap` is the one overlap test of the race checker and
`pto-insert-sync`.
"""


from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple


class Access(NamedTuple):
    """`rows` segments of `width` bytes, `stride` apart, from byte `start` of a memory."""

    space: str
    start: int
    width: int
    rows: int = 1
    stride: int = 0
    write: bool = False
    buffer: str = ""
    """Name for messages (`%a_l1`); GM accesses at run time leave it to the caller (the
    executor knows the argument names)."""
    memory: Hashable = None
    """Identity of the memory inside `space` (module docstring)."""
    atomic: str = ""
    """A GM write of a store in atomic mode: its kind (`"add f32"`, `_verify.atomic_kind`). Two
    writes of one kind to the same bytes do not race (the hardware updates each element
    atomically); any other pair with a write does (docs/ptoas.md "GM atomic stores")."""

    @property
    def end(self) -> int:
        """One past the last byte (the end of the last segment)."""
        return self.start + (self.rows - 1) * self.stride + self.width if self.rows > 1 \
            else self.start + self.width

    def describe(self) -> str:
        if self.rows > 1 and self.stride > self.width:
            return (f"[{self.start}, {self.end}) as {self.rows} rows of {self.width} bytes "
                    f"every {self.stride} bytes")
        return f"[{self.start}, {self.end})"


def _segments(a: Access) -> tuple[int, int, int, int]:
    """(start, width, rows, stride) with touching or overlapping rows merged into one segment."""
    if a.rows <= 1 or a.stride <= a.width:
        return a.start, a.end - a.start, 1, 0
    return a.start, a.width, a.rows, a.stride


def _first_hit(x: int, w: int, b0: int, bw: int, br: int, bs: int) -> tuple[int, int] | None:
    """First overlap of the segment [x, x + w) with the strided set (b0, bw, br, bs)."""
    # Segments j with b0 + j*bs + bw > x, i.e. j > (x - b0 - bw) / bs.
    j = max(0, (x - b0 - bw) // bs + 1)
    if j >= br:
        return None
    lo = b0 + j * bs
    if lo >= x + w:
        return None
    return max(x, lo), min(x + w, lo + bw)


def overlap(a: Access, b: Access) -> tuple[int, int] | None:
    """The first byte range [lo, hi) both accesses touch (lowest address), or None. The caller
    has checked that they are in the same memory."""
    a0, aw, ar, as_ = _segments(a)
    b0, bw, br, bs = _segments(b)
    if a0 >= b0 + (br - 1) * bs + bw or b0 >= a0 + (ar - 1) * as_ + aw:
        return None  # disjoint hulls
    if ar == 1 and br == 1:
        return max(a0, b0), min(a0 + aw, b0 + bw)
    if ar == 1:
        return _first_hit(a0, aw, b0, bw, br, bs)
    if br == 1:
        return _first_hit(b0, bw, a0, aw, ar, as_)
    if as_ == bs:
        # Rows i of a and j of b meet iff -aw < (a0 - b0) + (i - j) * s < bw: solve for k = i - j.
        # The lowest common byte is at the k closest to 0 (smallest rows i = max(0, k), j = i - k).
        s, d = as_, a0 - b0
        k_lo = max(-(br - 1), (-aw - d) // s + 1)
        k_hi = min(ar - 1, -((d - bw) // s) - 1)
        if k_lo > k_hi:
            return None
        k = min(max(0, k_lo), k_hi)
        lo_a, lo_b = a0 + max(0, k) * s, b0 + max(0, -k) * s
        return max(lo_a, lo_b), min(lo_a + aw, lo_b + bw)
    # Different strides (rare: two views of one buffer with different row pitches): row by row
    # over the access with fewer rows.
    if ar > br:
        a0, aw, ar, as_, b0, bw, br, bs = b0, bw, br, bs, a0, aw, ar, as_
    for i in range(ar):
        hit = _first_hit(a0 + i * as_, aw, b0, bw, br, bs)
        if hit is not None:
            return hit
    return None


def tile_access(tile: Any, write: bool) -> Access:
    """The bytes of an executor `Tile` (exact: its offset and size in its space)."""
    return Access(tile.space, tile.offset, tile.nbytes, 1, 0, write, tile.name, None)
