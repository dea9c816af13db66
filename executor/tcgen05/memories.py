"""The simulated memories of one CTA: shared memory (one uint8 array of `SMEM_BYTES_PER_CTA`
bytes) and tensor memory (128 lanes x 512 columns of 32-bit cells, with `tcgen05.alloc`-style
column allocation, deallocation, definedness and bounds checks on every access).
"""


from __future__ import annotations

import numpy as np

from mmair.executor.engine.errors import ExecutionError
from mmair.isa.tcgen05 import layouts, tmem_moves
from mmair.isa.tcgen05.layouts import (
    SMEM_BYTES_PER_CTA,
    TMEM_ALLOC_COLUMNS,
    TMEM_COLUMNS,
    TMEM_LANES,
)


class Tcgen05ExecutionError(ExecutionError):
    """A runtime fault of a tcgen05 instruction (bad descriptor word, TMEM misuse, SMEM overflow)."""


class SharedMemory:
    """The shared memory of one CTA: `data` is a `uint8` array of `SMEM_BYTES_PER_CTA` bytes."""

    def __init__(self, data: np.ndarray | None = None) -> None:
        if data is None:
            data = np.zeros(SMEM_BYTES_PER_CTA, dtype=np.uint8)
        if data.dtype != np.uint8 or data.ndim != 1 or data.size != SMEM_BYTES_PER_CTA:
            raise ValueError(f"shared memory must be {SMEM_BYTES_PER_CTA} uint8 bytes")
        self.data = data
        #: [start, end) of the buffers the kernel placed in shared memory (tcgen05.smem_alloc)
        self.buffers: list[tuple[int, int]] = []

    def add_buffer(self, start: int, nbytes: int) -> None:
        """Record a buffer: its start is where the swizzle pattern of an operand in it starts."""
        self.buffers.append((start, start + nbytes))

    def pattern_start(self, address: int) -> int | None:
        """The start of the recorded buffer holding `address` (None: not in a known buffer)."""
        for start, end in reversed(self.buffers):
            if start <= address < end:
                return start
        return None

    def check_range(self, lowest: int, end: int, what: str) -> None:
        """Raise unless bytes [lowest, end) are inside shared memory."""
        if lowest < 0 or end > SMEM_BYTES_PER_CTA:
            raise Tcgen05ExecutionError(
                f"requires {what} inside the {SMEM_BYTES_PER_CTA}-byte shared memory, "
                f"got bytes [{lowest:#x}, {end:#x})"
            )


UNDEFINED_CELL = 0x7FFD7EBD
"""What the executor writes into a TMEM cell the ISA leaves undefined: a NaN read as f32 and as
f16 (its low half), so a memref read of it shows NaN (a simulator convention, not hardware)."""


class TensorMemory:
    """The tensor memory of one CTA: `cells` is a (128, 512) `uint32` array (lane, column).

    Allocation follows `tcgen05.alloc`: a power-of-two number of columns (32..512), all lanes,
    placed first-fit at a column multiple of its size. Every kernel access checks that its columns
    are allocated, and tells a use after `dealloc` from a never-allocated column.
    """

    def __init__(self, cells: np.ndarray | None = None) -> None:
        if cells is None:
            cells = np.zeros((TMEM_LANES, TMEM_COLUMNS), dtype=np.uint32)
        if cells.dtype != np.uint32 or cells.shape != (TMEM_LANES, TMEM_COLUMNS):
            raise ValueError(f"tensor memory must be a ({TMEM_LANES}, {TMEM_COLUMNS}) uint32 array")
        self.cells = cells
        self.undefined = np.zeros((TMEM_LANES, TMEM_COLUMNS), dtype=bool)
        """Cells whose value the PTX ISA leaves undefined (the first row of a down shift, D rows
        computed from such rows); they hold `UNDEFINED_CELL` until written."""
        self.any_undefined = False
        """Has any cell ever been marked undefined? (False: every definedness check is a no-op,
        the common case, which then costs no pass over the cells.)"""
        self.allocations: dict[int, int] = {}  # first column -> column count
        self._allocated = np.zeros(TMEM_COLUMNS, dtype=bool)
        self._freed = np.zeros(TMEM_COLUMNS, dtype=bool)

    # -- allocation ------------------------------------------------------------------------------

    def alloc(self, columns: int) -> int:
        """Allocate `columns` columns; returns the TMEM address (lane 0, first column)."""
        if columns not in TMEM_ALLOC_COLUMNS:
            raise Tcgen05ExecutionError(
                f"requires a TMEM allocation of {', '.join(map(str, TMEM_ALLOC_COLUMNS))} columns, "
                f"got {columns}"
            )
        for first in range(0, TMEM_COLUMNS, columns):
            if not self._allocated[first:first + columns].any():
                self._allocated[first:first + columns] = True
                self._freed[first:first + columns] = False
                self.allocations[first] = columns
                return layouts.tmem_address(0, first)
        used = int(self._allocated.sum())
        raise Tcgen05ExecutionError(
            f"requires {columns} free contiguous TMEM columns, got {TMEM_COLUMNS - used} free of "
            f"{TMEM_COLUMNS} (allocations at columns {sorted(self.allocations)})"
        )

    def dealloc(self, address: int, columns: int | None = None) -> None:
        """Free the allocation that starts at `address` (its column count must match if given)."""
        lane, first = layouts.tmem_lane(address), layouts.tmem_column(address)
        if lane != 0 or first not in self.allocations:
            raise Tcgen05ExecutionError(
                f"requires the address of a live TMEM allocation, got lane {lane} column {first} "
                f"(live allocations at columns {sorted(self.allocations) or 'none'})"
            )
        size = self.allocations[first]
        if columns is not None and columns != size:
            raise Tcgen05ExecutionError(
                f"requires dealloc of the {size} columns allocated at column {first}, got {columns}"
            )
        del self.allocations[first]
        self._allocated[first:first + size] = False
        self._freed[first:first + size] = True

    # -- access ----------------------------------------------------------------------------------

    def check_access(self, lane: int, column: int, lanes: int, columns: int, what: str) -> None:
        """Raise unless lanes [lane, +lanes) x columns [column, +columns) exist and are allocated."""
        if lane < 0 or column < 0 or lane + lanes > TMEM_LANES or column + columns > TMEM_COLUMNS:
            raise Tcgen05ExecutionError(
                f"requires {what} inside tensor memory ({TMEM_LANES} lanes x {TMEM_COLUMNS} "
                f"columns), got lanes [{lane}, {lane + lanes}) columns [{column}, {column + columns})"
            )
        span = slice(column, column + columns)
        missing = ~self._allocated[span]
        if missing.any():
            bad = column + int(np.argmax(missing))
            state = "was deallocated" if self._freed[bad] else "is not allocated"
            raise Tcgen05ExecutionError(
                f"requires {what} in allocated TMEM columns, got column {bad}, which {state} "
                f"(access to columns [{column}, {column + columns}))"
            )

    def mark_undefined(self, lanes: np.ndarray | slice | int, columns: slice) -> None:
        """The ISA leaves these cells undefined: they become `UNDEFINED_CELL` (a NaN as f32 and
        as f16) and reading them with tcgen05.ld or an MMA is reported."""
        self.cells[lanes, columns] = UNDEFINED_CELL
        self.undefined[lanes, columns] = True
        self.any_undefined = True

    def defined(self, lanes: np.ndarray | slice | int, columns: slice | np.ndarray) -> None:
        """Written by a tcgen05 op: these cells hold defined data again."""
        self.undefined[lanes, columns] = False

    def undefined_cells(self, lanes: np.ndarray | slice, columns: np.ndarray | slice) -> np.ndarray:
        """Which of these cells are still undefined (not rewritten since, e.g. by memref.copy)."""
        return self.undefined[lanes, columns] & (self.cells[lanes, columns] == UNDEFINED_CELL)

    def check_defined(self, lanes: np.ndarray, columns: np.ndarray, what: str) -> None:
        """Raise when `what` reads a cell the ISA left undefined (lanes/columns: index arrays
        of any broadcastable shapes, e.g. (L, 1) and (1, C))."""
        if not self.any_undefined:
            return
        bad = self.undefined_cells(lanes, columns)
        if bad.any():
            # `bad` has the broadcast shape: index the broadcast arrays, not the operands.
            lanes, columns = np.broadcast_arrays(lanes, columns)
            at = tuple(int(x[0]) for x in np.nonzero(bad))
            raise Tcgen05ExecutionError(
                f"reads TMEM lane {int(lanes[at])} column {int(columns[at])} with {what}, whose "
                "value the PTX ISA leaves undefined (the first row of a tcgen05.shift or .ashift "
                "down shift receives no data, and D rows computed from it are undefined)")

    def shift_down(self, lane: int, lanes: int, column: int, columns: int, what: str) -> None:
        """Rows [lane, lane + lanes) of columns [column, +columns) move down one lane
        (`tmem_moves.shift_rows`); the first row becomes undefined."""
        self.check_access(lane, column, lanes, columns, what)
        span = slice(column, column + columns)
        destination, source, first = tmem_moves.shift_rows(lane, lanes)
        self.cells[destination, span] = self.cells[source, span]
        self.undefined[destination, span] = self.undefined[source, span]
        self.mark_undefined(first, span)

    def region(self, address: int, lanes: int, columns: int, what: str) -> np.ndarray:
        """A (lanes, columns) uint32 view of the cells at `address`, after `check_access`."""
        lane, column = layouts.tmem_lane(address), layouts.tmem_column(address)
        self.check_access(lane, column, lanes, columns, what)
        return self.cells[lane:lane + lanes, column:column + columns]


def tmem_view_columns(view: np.ndarray) -> int:
    """TMEM cells per row that a 2-D memref view of tensor memory covers."""
    if view.ndim != 2 or view.size == 0:
        return 0
    end = (view.shape[1] - 1) * view.strides[1] + view.itemsize
    return -(-end // 4)
