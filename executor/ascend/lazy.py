"""Lazy fractal layouts: cube tiles that keep their logical matrix and write their physical bytes
only when something observes them (speed, not semantics).

A GEMM step moves A and B GM -> L1 (ND -> Nz/Zz) -> L0A/L0B (Zz/Zn) and accumulates into L0C
(Nz), yet the only thing that reads those fractal bytes is the next move or the mad, and the
tiles already carry their values as operand images (`Tile.image`, the logical matrix in the Mmad
compute dtype). Here the data moves and the mad record the image and a *pending write*
(`memory.Pending`): the exact byte writes the eager kernel would have made, deferred. The
space makes them (`MemorySpace.flush`) when anything touches those bytes through `Tile.physical`,
`Tile.blocked()`, `Tile.values()`, `MemorySpace.data` or `Tile.will_write()`: a reinterpret, a
raw-form op, a vector op, an L1 `--output`, a byte-level check, any kernel without a lazy path.
A later lazy write of the same tile that covers a pending one drops it (its bytes are all
overwritten), so a GEMM's L1/L0 tiles are never laid out at all and L0C is one f32 array
updated in place.

A write is deferred only when its bytes can be rebuilt exactly from the image: the padded
region it writes is the image's region (whole fractals, or the zero-filled C0 tail of a load),
and converting the image back to the tile's storage type restores every bit pattern of that
type (`exact_roundtrip`, checked on all of them once per type: f16, f32, s8, u8, e4m3 pass;
bf16, e5m2 and the 6-bit floats do not, because NaN payloads change, so they stay eager).
Results are bit-identical to the eager path (`ENABLED = False`), which the tests compare on
outputs and on every byte of every on-chip space after the run.
"""

from __future__ import annotations

import numpy as np

from mmair.executor.engine.memory import Pending, Tile

ENABLED = True
"""Defer the byte writes of the cube data path (False: every kernel writes its bytes at once;
the tests compare both)."""

_ROUNDTRIP: dict[tuple[np.dtype, np.dtype], bool] = {}


def exact_roundtrip(storage: np.dtype, ctype: np.dtype) -> bool:
    """Does image -> `storage` give back the stored bits of every value of `storage` that
    `kernels._convert` turns into `ctype`? (Checked on all bit patterns of 8- and 16-bit
    types once; a same-dtype image is the bytes themselves.)"""
    key = (storage, ctype)
    found = _ROUNDTRIP.get(key)
    if found is None:
        found = _ROUNDTRIP[key] = _check_roundtrip(storage, ctype)
    return found


def _check_roundtrip(storage: np.dtype, ctype: np.dtype) -> bool:
    from mmair.executor.ascend.kernels import _convert

    if storage == ctype:
        return True
    if storage.itemsize > 2:
        return False
    unsigned = np.dtype(f"u{storage.itemsize}")
    patterns = np.arange(1 << (8 * storage.itemsize), dtype=np.uint32).astype(unsigned).view(storage)
    with np.errstate(all="ignore"):
        back = _convert(patterns, ctype).astype(storage)
    return bool(np.array_equal(back.view(unsigned), patterns.view(unsigned)))


def usable(tile: Tile, image: np.ndarray | None) -> bool:
    """May writes of `tile` be deferred, rebuilt from `image` (its compute-dtype values)?"""
    return (ENABLED and image is not None and tile.mem is not None and not tile.packed
            and exact_roundtrip(tile.store.dtype, image.dtype))


def pend_region(tile: Tile, image: np.ndarray, rows: int, cols: int, fill: int | None = None,
                acc: bool = False) -> None:
    """Defer the write of `image` (rows x cols, compute dtype) to padded-logical [0:rows,
    0:cols] of `tile` (columns cols .. fill zero-filled, as a GM -> L1 load writes them), and
    record `image` as the tile's operand image. `acc`: `image` is the tile's own accumulator
    (an L0C sum no one else holds), which the mads that follow may update in place."""
    store = tile.store
    blocked = tile.stored_blocked()
    width = cols if fill is None else fill

    def write() -> None:
        # imported here, when a write is made (rarely): an import per pend cost ~1 us
        from mmair.executor.ascend.kernels import write_region

        if width > cols:
            data = np.zeros((rows, width), dtype=store.dtype)
            data[:, :cols] = image
        else:
            data = image if image.dtype == store.dtype else image.astype(store.dtype)
        write_region(blocked, data)

    mem = tile.mem
    assert mem is not None
    mem.pend(Pending(tile.offset, tile.offset + tile.nbytes, tile.key, rows, width, write,
                     image if acc else None))
    if mem.imaged:
        mem.invalidate(tile.offset, tile.nbytes)
    tile.set_image(image)


def accumulator(tile: Tile, rows: int, cols: int) -> np.ndarray | None:
    """The pending in-place accumulator of exactly [0:rows, 0:cols] of `tile`, or None."""
    mem = tile.mem
    if mem is None or not mem.pending:
        return None
    key = tile.key
    with mem.lock:
        for p in mem.pending:
            if p.key == key and p.acc is not None and p.rows == rows and p.cols == cols \
                    and tile.image is p.acc:
                return p.acc
    return None
