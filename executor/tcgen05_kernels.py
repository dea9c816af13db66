"""Whole-tile numpy kernels of the Blackwell `tcgen05` tensor core: SMEM, TMEM and `tcgen05.mma`.

What is simulated (one CTA, `cta_group::1`):

* shared memory: one `uint8` array of `SMEM_BYTES_PER_CTA` bytes (`SharedMemory`);
* tensor memory: 128 lanes x 512 columns of 32-bit cells with `tcgen05.alloc`-style column
  allocation (powers of two, 32..512), deallocation, and checks that every access stays inside
  allocated columns (`TensorMemory`);
* operand access through the 64-bit shared-memory descriptor: the canonical layouts and swizzles of
  `mmair.isa.tcgen05.layouts` turn a descriptor into an index array, and one fancy-indexing gather
  reads a whole operand (`read_smem_operand`); `write_smem_operand` is the inverse scatter;
* `mma`: D = A x B (+ D) for every kind, with the instruction descriptor, matrix descriptors and
  zero-column mask decoded and checked at execution time (runtime-computed descriptors work).

Kernel loops issue the same few descriptor words over and over, so the pure parts are memoized:
decoding and rule checks per (word, context), and per (descriptor, major, bits, mn, k) the address
map with its byte range, injectivity verdict and gather/scatter indices. Failures are never
remembered: a bad word raises the same error on every call.

Numerics (`numerics="default"`): operands are decoded exactly (tf32: the low 13 mantissa bits of
the f32 container are ignored), multiplied in float32 (products of the tcgen05 input types are
exact in float32) and accumulated in float32; block-scaled kinds apply their scales and sum in
float64 (no scale value overflows or underflows), rounded once to f32; NaN results are the
canonical NaN. Integer MMAs are exact (float32 sums stay below 2^22, D is added in int64) and
wrapped (or, with the saturate bit, clamped) to s32. `numerics="exact"` computes the tensor core's
fused dot product instead (`mmair.executor.tcgen05_exact`, docs/tcgen05-numerics.md).

Layout assumptions are documented in `docs/executor-tcgen05.md`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import ml_dtypes
import numpy as np

from mmair.executor.errors import ExecutionError
from mmair.executor.tcgen05_exact import fused_mma
from mmair.isa.tcgen05 import layouts, rules, tmem_moves
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS, InstrDesc, decode_idesc
from mmair.isa.tcgen05.layouts import (
    SMEM_BYTES_PER_CTA,
    TMEM_ALLOC_COLUMNS,
    TMEM_COLUMNS,
    TMEM_LANES,
    TMEM_LANES_PER_WARP,
)
from mmair.isa.tcgen05.numerics import CANONICAL_NAN_BITS, NUMERICS_MODES
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc
from mmair.isa.tcgen05.zcmask import ZeroColumnMask, decode_zcmask, zcmask_columns


class Tcgen05ExecutionError(ExecutionError):
    """A runtime fault of a tcgen05 instruction (bad descriptor word, TMEM misuse, SMEM overflow)."""


# ----------------------------------------------------------------------------------------------
# Memories


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

    def defined(self, lanes: np.ndarray | slice | int, columns: slice | np.ndarray) -> None:
        """Written by a tcgen05 op: these cells hold defined data again."""
        self.undefined[lanes, columns] = False

    def undefined_cells(self, lanes: np.ndarray | slice, columns: np.ndarray | slice) -> np.ndarray:
        """Which of these cells are still undefined (not rewritten since, e.g. by memref.copy)."""
        return self.undefined[lanes, columns] & (self.cells[lanes, columns] == UNDEFINED_CELL)

    def check_defined(self, lanes: np.ndarray, columns: np.ndarray, what: str) -> None:
        """Raise when `what` reads a cell the ISA left undefined (lanes/columns: index arrays
        of any broadcastable shapes, e.g. (L, 1) and (1, C))."""
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


# ----------------------------------------------------------------------------------------------
# Element conversion (container integers <-> values)

_FLOAT_TYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "e2m3": np.dtype(ml_dtypes.float6_e2m3fn),
    "e3m2": np.dtype(ml_dtypes.float6_e3m2fn),
    "e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
}
_RAW_DTYPES: dict[int, np.dtype] = {
    4: np.dtype(np.uint8), 8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
}
_TF32_MASK = np.uint32(0xFFFFE000)  # tf32 keeps 10 of the 23 f32 mantissa bits


def decode_elements(raw: np.ndarray, type_name: str) -> np.ndarray:
    """Container integers -> values (float32 for float types, int64 for u8/s8)."""
    if type_name == "tf32":
        return (raw.astype(np.uint32) & _TF32_MASK).view(np.float32)
    if type_name == "u8":
        return raw.astype(np.int64)
    if type_name == "s8":
        return raw.astype(np.uint8).view(np.int8).astype(np.int64)
    dtype = _FLOAT_TYPES[type_name]
    if dtype.itemsize == 1:
        value_mask = (1 << layouts.container_value_bits(type_name)) - 1
        return (raw.astype(np.uint8) & value_mask).view(dtype).astype(np.float32)
    return raw.astype(np.uint16, copy=False).view(dtype).astype(np.float32)


def encode_elements(values: np.ndarray, type_name: str) -> np.ndarray:
    """Values -> container integers (rounding to the type; tf32 stored as its f32 bits)."""
    values = np.asarray(values)
    if type_name == "tf32":
        return values.astype(np.float32).view(np.uint32)
    if type_name in ("u8", "s8"):
        # The low byte of the integer: two's complement for s8 (-1 -> 0xFF), as for u8.
        return values.astype(np.int64).astype(np.uint8)
    dtype = _FLOAT_TYPES[type_name]
    converted = values.astype(np.float32, copy=False).astype(dtype)
    return converted.view(np.uint8 if dtype.itemsize == 1 else np.uint16)


def decode_ue8m0(codes: np.ndarray) -> np.ndarray:
    """UE8M0 scale bytes -> float32: 2^(e - 127); 255 is NaN."""
    return codes.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float32)


def decode_ue4m3(codes: np.ndarray) -> np.ndarray:
    """UE4M3 scale bytes (unsigned e4m3, bias 7; bit 7 ignored) -> float32; 0x7F is NaN."""
    codes = codes.astype(np.int64) & 0x7F
    exponent, mantissa = codes >> 3, codes & 7
    normal = np.ldexp(1.0 + mantissa / 8.0, exponent - 7)
    subnormal = np.ldexp(mantissa / 8.0, -6)
    values = np.where(exponent == 0, subnormal, normal)
    return np.where(codes == 0x7F, np.nan, values).astype(np.float32)


def encode_scale(values: np.ndarray, scale_type: str) -> np.ndarray:
    """Exact scale values -> scale bytes (for tests and benchmarks; values must be representable)."""
    values = np.asarray(values, dtype=np.float64)
    if scale_type == "ue8m0":
        codes = values.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
        decoded = decode_ue8m0(codes)
    else:
        codes = np.abs(values).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)  # sign bit clear
        decoded = decode_ue4m3(codes)
    if not np.array_equal(decoded, values):
        raise ValueError(f"scale values are not exactly representable as {scale_type}")
    return codes


# ----------------------------------------------------------------------------------------------
# Memoized pure functions
#
# A kernel loop issues the same few descriptor words over and over; decoding and checking them is
# a pure function of the words, so results are remembered. Keys carry each argument's type (True,
# 1 and np.uint64(1) stay apart, as the checks may tell them apart); failures are not remembered,
# so a bad word raises the same error on every call.

_MEMO_LIMIT = 4096
_memo_table: dict[tuple[object, ...], object] = {}


def _memo(function, *args):  # type: ignore[no-untyped-def]
    """`function(*args)`, remembered by (function, args and their types)."""
    key = (function, *args, *map(type, args))
    try:
        return _memo_table[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable argument: nothing to remember
        return function(*args)
    value = function(*args)
    if len(_memo_table) >= _MEMO_LIMIT:
        _memo_table.clear()
    _memo_table[key] = value
    return value


# ----------------------------------------------------------------------------------------------
# Operands in shared memory


def _smem_desc(desc: SmemDesc | int) -> SmemDesc:
    return desc if isinstance(desc, SmemDesc) else _memo(decode_smem_desc, desc)


class _OperandMap:
    """The cached map of one (descriptor, major, bits, mn, k): read-only index arrays, the byte
    range it touches, and (computed on first store) whether no two elements share an address."""

    __slots__ = ("addresses", "index", "shift", "lowest", "end", "_injective", "_index_kn",
                 "_dense")

    def __init__(self, addresses: np.ndarray, bits: int) -> None:
        self.addresses = addresses
        byte = addresses >> 3
        # The gather/scatter index into `data` viewed as the container type (bytes for 4 and 8 bits).
        self.index = byte if bits <= 8 else byte // (bits // 8)
        self.shift = (addresses & 7).astype(np.uint8) if bits in (4, 6) else None
        for array in (self.addresses, self.index, self.shift):
            if array is not None:
                array.setflags(write=False)
        self.lowest = int(addresses.min()) >> 3
        self.end = (int(addresses.max()) + bits + 7) >> 3
        self._injective: bool | None = None
        self._index_kn: np.ndarray | None = None
        self._dense: tuple[int, np.ndarray] | None | bool = False  # False: not computed yet

    @property
    def dense(self) -> tuple[int, np.ndarray] | None:
        """(first, inverse) when the elements fill container slots [first, first + size) exactly
        once (a swizzled tile): a store is then `slots[first:][:size] = raw.flat[inverse]`, a
        gather, which numpy does several times faster than the equivalent scatter."""
        if self._dense is False:
            flat = self.index.reshape(-1)
            first = int(flat.min())
            self._dense = None
            if self.shift is None and int(flat.max()) - first + 1 == flat.size and self.injective:
                inverse = np.empty(flat.size, dtype=np.intp)
                inverse[flat - first] = np.arange(flat.size)
                inverse.setflags(write=False)
                self._dense = (first, inverse)
        return self._dense  # type: ignore[return-value]

    @property
    def index_kn(self) -> np.ndarray:
        """`index` transposed to (k, mn), contiguous: gathers B straight into the matmul's layout."""
        if self._index_kn is None:
            self._index_kn = np.ascontiguousarray(self.index.T)
            self._index_kn.setflags(write=False)
        return self._index_kn

    @property
    def injective(self) -> bool:
        if self._injective is None:
            self._injective = bool(np.unique(self.addresses).size == self.addresses.size)
        return self._injective


@lru_cache(maxsize=128)  # up to ~0.75 MiB per map for the largest operands
def _operand_map(desc: SmemDesc, major: str, bits: int, mn: int, k: int,
                 width: int) -> _OperandMap:
    """`bits`: element width of the canonical layout; `width`: bits of data per element (smaller
    for e2m1/e2m3/e3m2 packed with padding inside each 16-byte unit, f8f6f4/mxf8f6f4)."""
    addresses = layouts.operand_bit_addresses(desc, major, bits, mn, k)
    if width != bits:
        addresses = layouts.padded_sub_byte_bit_addresses(addresses, width)
    return _OperandMap(addresses, width)


def _storage(kind: str, type_name: str) -> tuple[int, int]:
    """(layout bits, data bits) of an A/B element of `kind` in SMEM."""
    return layouts.smem_element_bits(kind, type_name), layouts.smem_value_bits(kind, type_name)


def _checked_operand_map(
    desc: SmemDesc | int, major: str, bits: int, mn: int, k: int, what: str, width: int,
) -> _OperandMap:
    d = _smem_desc(desc)
    try:
        operand = _operand_map(d, major, bits, mn, k, width)
    except DescriptorError as err:
        raise Tcgen05ExecutionError(f"requires a modelled layout for {what}: {err}") from None
    if operand.lowest < 0 or operand.end > SMEM_BYTES_PER_CTA:
        raise Tcgen05ExecutionError(
            f"requires {what} inside the {SMEM_BYTES_PER_CTA}-byte shared memory, got bytes "
            f"[{operand.lowest:#x}, {operand.end:#x}) (descriptor start {d.start:#x}, lbo {d.lbo}, "
            f"sbo {d.sbo}, swizzle {d.swizzle})"
        )
    return operand


def _gather_raw(data: np.ndarray, operand: _OperandMap, bits: int) -> np.ndarray:
    if bits == 4:
        return (data[operand.index] >> operand.shift) & 0xF  # mutation: skip (decode_elements masks)
    if bits == 6:  # may straddle two bytes: read a little-endian 16-bit window
        index = operand.index
        window = data[index].astype(np.uint16) | (data[index + 1].astype(np.uint16) << 8)
        return ((window >> operand.shift) & 0x3F).astype(np.uint8)  # mutation: skip (decode masks)
    if bits == 8:
        return data[operand.index]
    return data.view(_RAW_DTYPES[bits])[operand.index]


def _scatter_raw(data: np.ndarray, operand: _OperandMap, bits: int, raw: np.ndarray) -> None:
    if bits == 4:
        byte, shift = operand.index, operand.shift
        # ufunc.at is unbuffered: two nibbles of one byte in the same call both land.
        np.bitwise_and.at(data, byte, ~(np.uint8(0xF) << shift))
        np.bitwise_or.at(data, byte, (raw.astype(np.uint8) & 0xF) << shift)  # mutation: skip (no high bits)
    elif bits == 6:  # read-modify-write of the two bytes an element may touch
        byte, shift = operand.index, operand.shift.astype(np.uint16)
        mask = np.uint16(0x3F) << shift
        value = (raw.astype(np.uint16) & 0x3F) << shift  # mutation: skip (no high bits)
        for offset, part in ((0, 0), (1, 8)):
            np.bitwise_and.at(data, byte + offset, (~(mask >> part) & 0xFF).astype(np.uint8))  # mutation: skip (astype)
            np.bitwise_or.at(data, byte + offset, ((value >> part) & 0xFF).astype(np.uint8))  # mutation: skip (astype)
    else:
        slots = data.view(_RAW_DTYPES[bits])
        dense = operand.dense
        if dense is None:
            slots[operand.index] = raw
        else:
            first, inverse = dense
            slots[first:first + inverse.size] = np.take(raw.reshape(-1), inverse)


def read_smem_operand(
    smem: SharedMemory, desc: SmemDesc | int, *, major: str, type_name: str, kind: str,
    mn: int, k: int, what: str = "the operand",
) -> np.ndarray:
    """Values of an (mn, k) operand (A: M x K; B: N x K, i.e. B transposed) read via `desc`."""
    bits, width = _storage(kind, type_name)
    operand = _checked_operand_map(desc, major, bits, mn, k, what, width)
    return decode_elements(_gather_raw(smem.data, operand, width), type_name)


def _read_smem_operand_kn(
    smem: SharedMemory, desc: SmemDesc, *, major: str, type_name: str, kind: str,
    mn: int, k: int, what: str,
) -> np.ndarray:
    """`read_smem_operand` as a transposed view of a contiguous (k, mn) array (B of the MMA)."""
    bits, width = _storage(kind, type_name)
    operand = _checked_operand_map(desc, major, bits, mn, k, what, width)
    if width in (4, 6):  # (per-element shifts: gather (mn, k), then copy)
        values = decode_elements(_gather_raw(smem.data, operand, width), type_name)
        return np.ascontiguousarray(values.T).T
    raw = smem.data.view(_RAW_DTYPES[bits])[operand.index_kn]
    return decode_elements(raw, type_name).T


def write_smem_operand(
    smem: SharedMemory, desc: SmemDesc | int, values: np.ndarray, *, major: str, type_name: str,
    kind: str, what: str = "the operand",
) -> None:
    """Store an (mn, k) matrix (A as M x K, B as N x K) where `desc` makes the MMA read it."""
    values = np.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"an operand is a 2-D (mn, k) matrix, got shape {values.shape}")
    mn, k = values.shape
    bits, width = _storage(kind, type_name)
    operand = _checked_operand_map(desc, major, bits, mn, k, what, width)
    if not operand.injective:
        raise Tcgen05ExecutionError(
            f"requires {what}'s descriptor to map every element to its own SMEM location, "
            "got overlapping elements"
        )
    if type_name == "f16" and values.dtype == np.float16:
        # f16 -> f32 -> f16 (encode_elements) is the identity on all 65536 bit patterns.
        raw = values.view(np.uint16)
    else:
        raw = encode_elements(values, type_name)  # (no bits above the 4/6-bit value)
    _scatter_raw(smem.data, operand, width, raw)


# ----------------------------------------------------------------------------------------------
# Operands in tensor memory (A of the `.ts` form, sparse metadata, scale factors)


def _tmem_row_bytes(tmem: TensorMemory, address: int, rows: int, nbytes: int, what: str) -> np.ndarray:
    columns = -(-nbytes // 4)
    region = tmem.region(address, rows, columns, what)
    return np.ascontiguousarray(region).view(np.uint8)[:, :nbytes]


def read_tmem_operand(
    tmem: TensorMemory, address: int, *, type_name: str, kind: str, rows: int, k: int,
    what: str = "A in tensor memory",
) -> np.ndarray:
    """A (rows x k) from TMEM: row i in lane + i, elements packed little-endian along the columns."""
    bits = layouts.smem_element_bits(kind, type_name)
    data = _tmem_row_bytes(tmem, address, rows, -(-k * bits // 8), what)
    if bits == 4:
        raw = np.stack([data & 0xF, data >> 4], axis=-1).reshape(rows, -1)[:, :k]  # mutation: skip (decode masks)
    else:
        raw = np.ascontiguousarray(data).view(_RAW_DTYPES[bits])
    return decode_elements(raw, type_name)


def write_tmem_operand(
    tmem: TensorMemory, address: int, values: np.ndarray, *, type_name: str, kind: str,
    what: str = "A in tensor memory",
) -> None:
    """Inverse of `read_tmem_operand` (the layout `tcgen05.st`/`tcgen05.cp` would produce)."""
    values = np.asarray(values)
    rows, k = values.shape
    bits = layouts.smem_element_bits(kind, type_name)
    raw = encode_elements(values, type_name)
    if bits == 4:  # (encode_elements sets no bits above the 4-bit value)
        if k % 2:
            raw = np.concatenate([raw, np.zeros((rows, 1), np.uint8)], axis=1)
        raw = (raw[:, 0::2] | (raw[:, 1::2] << 4)).astype(np.uint8)
    data = np.ascontiguousarray(raw).view(np.uint8)
    columns = -(-data.shape[1] // 4)
    padded = np.zeros((rows, columns * 4), np.uint8)
    region = tmem.region(address, rows, columns, what)
    padded[:] = np.ascontiguousarray(region).view(np.uint8)
    padded[:, :data.shape[1]] = data
    region[:] = padded.view(np.uint32)


def read_sparse_metadata(
    tmem: TensorMemory, address: int, *, kind: str, rows: int, k: int
) -> np.ndarray:
    """Metadata nibbles (rows, groups): row i in lane + i, nibble g at bits [4g, 4g+4) of the row."""
    count = layouts.sparse_metadata_nibbles(kind, k)
    data = _tmem_row_bytes(tmem, address, rows, -(-count // 2), "the sparse metadata")
    return np.stack([data & 0xF, data >> 4], axis=-1).reshape(rows, -1)[:, :count]


def write_sparse_metadata(tmem: TensorMemory, address: int, nibbles: np.ndarray) -> None:
    """Inverse of `read_sparse_metadata`."""
    nibbles = np.asarray(nibbles, dtype=np.uint8)
    rows, count = nibbles.shape
    if count % 2:
        nibbles = np.concatenate([nibbles, np.zeros((rows, 1), np.uint8)], axis=1)
    data = (nibbles[:, 0::2] & 0xF) | (nibbles[:, 1::2] << 4)  # mutation: skip (4-bit input)
    columns = -(-data.shape[1] // 4)
    region = tmem.region(address, rows, columns, "the sparse metadata")
    padded = np.ascontiguousarray(region).view(np.uint8).copy()
    padded[:, :data.shape[1]] = data
    region[:] = padded.view(np.uint32)


def densify_sparse_a(kind: str, stored: np.ndarray, nibbles: np.ndarray, k: int) -> np.ndarray:
    """Expand sparse A (rows x k/2 stored values) to rows x k with zeros, following the metadata."""
    rows = stored.shape[0]
    group, kept = layouts.SPARSE_GROUPS[kind]
    positions, valid = layouts.sparse_dense_positions(kind, nibbles)
    if not valid.all():
        row, g = (int(x[0]) for x in np.nonzero(~valid))
        legal = layouts.SPARSE_TF32_NIBBLES if kind == "tf32" else layouts.SPARSE_2OF4_NIBBLES
        raise Tcgen05ExecutionError(
            f"requires defined sparse metadata for kind::{kind}, got nibble "
            f"0b{int(nibbles[row, g]):04b} at row {row} group {g}; legal: "
            + ", ".join(f"0b{n:04b}" for n in legal)
        )
    columns = (np.arange(nibbles.shape[1])[None, :, None] * group + positions).reshape(rows, -1)
    dense = np.zeros((rows, k), dtype=stored.dtype)
    dense[np.arange(rows)[:, None], columns] = stored.reshape(rows, -1)[:, :columns.shape[1]]
    assert kept * nibbles.shape[1] == columns.shape[1]
    return dense


def _scale_cells(tmem: TensorMemory, address: int, rows: np.ndarray, lanes: np.ndarray,
                 count: int, sf_id: int, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TMEM (lane, column, byte) index arrays of `count` scale bytes for each operand row."""
    if layouts.tmem_lane(address) != 0:
        raise Tcgen05ExecutionError(
            f"requires {what} at TMEM lane 0 (scale factors fill all four 32-lane quadrants), "
            f"got lane {layouts.tmem_lane(address)}"
        )
    column = layouts.tmem_column(address)
    _, column_offsets = layouts.scale_factor_cells(rows)
    tmem.check_access(0, column, TMEM_LANES, int(column_offsets.max()) + 1, what)
    if sf_id + count > 4:
        raise Tcgen05ExecutionError(
            f"requires {what}'s {count} scale bytes from byte {sf_id} to fit a 32-bit cell"
        )
    byte = sf_id + np.arange(count)
    return lanes[:, None], (column + column_offsets)[:, None], byte[None, :]


def read_scale_factors(
    tmem: TensorMemory, address: int, *, operand: str, rows: int, count: int, sf_id: int
) -> np.ndarray:
    """Scale bytes (rows, count) of operand "a" (rows = M) or "b" (rows = N); see `layouts`."""
    index = np.arange(rows)
    lanes = index if operand == "a" else index % TMEM_LANES_PER_WARP
    lane, column, byte = _scale_cells(tmem, address, index, lanes, count, sf_id,
                                      f"scale_{operand.upper()}")
    return tmem.cells.view(np.uint8).reshape(TMEM_LANES, TMEM_COLUMNS, 4)[lane, column, byte]


def write_scale_factors(tmem: TensorMemory, address: int, codes: np.ndarray, sf_id: int) -> None:
    """Store scale bytes (rows, count) duplicated into all four lane quadrants (`tcgen05.cp .warpx4`)."""
    codes = np.asarray(codes, dtype=np.uint8)
    rows, count = codes.shape
    index = np.arange(rows)
    base_lanes, _ = layouts.scale_factor_cells(index)
    cells = tmem.cells.view(np.uint8).reshape(TMEM_LANES, TMEM_COLUMNS, 4)
    for quadrant in range(TMEM_LANES // TMEM_LANES_PER_WARP):
        lane, column, byte = _scale_cells(tmem, address, index,
                                          base_lanes + quadrant * TMEM_LANES_PER_WARP,
                                          count, sf_id, "the scale factors")
        cells[lane, column, byte] = codes


# ----------------------------------------------------------------------------------------------
# D in tensor memory

_D_CELL_VIEW = {"f32": np.float32, "s32": np.int32}


def read_d(tmem: TensorMemory, address: int, dtype: str, m: int, n: int) -> np.ndarray:
    """D (m x n) from TMEM: row i in lane + i, column j in column + j; f16 in the low 16 bits."""
    region = tmem.region(address, m, n, "D")
    if dtype == "f16":
        return (region & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float32)  # mutation: skip (astype)
    return region.view(_D_CELL_VIEW[dtype]).copy()


def write_d(
    tmem: TensorMemory, address: int, dtype: str, values: np.ndarray,
    lane_enabled: np.ndarray | None = None,
) -> None:
    """Store D; rows whose `lane_enabled` entry is False keep their old cells."""
    m, n = values.shape
    region = tmem.region(address, m, n, "D")
    if dtype == "f16":
        cells = values.astype(np.float16).view(np.uint16).astype(np.uint32)
    else:
        cells = values.astype(_D_CELL_VIEW[dtype]).view(np.uint32)
    lane, column = layouts.tmem_lane(address), layouts.tmem_column(address)
    rows = np.arange(lane, lane + m) if lane_enabled is None else lane + np.nonzero(lane_enabled)[0]
    if lane_enabled is None:
        region[:] = cells
    else:
        region[lane_enabled] = cells[lane_enabled]
    tmem.defined(rows[:, None], slice(column, column + n))


# ----------------------------------------------------------------------------------------------
# The MMA


_F32_CANONICAL_NAN = np.array(CANONICAL_NAN_BITS["f32"], dtype=np.uint32).view(np.float32)


def _canonical_nan(values: np.ndarray) -> np.ndarray:
    """Make every NaN of a float32 array the canonical NaN in place (0x7FFFFFFF; it converts to
    the canonical f16 NaN 0x7FFF), as the tensor core writes them."""
    nan = np.isnan(values)
    if nan.any():
        values[nan] = _F32_CANONICAL_NAN
    return values


def _decode(what: str, word: int, decode, *args):  # type: ignore[no-untyped-def]
    try:
        return decode(word, *args)
    except DescriptorError as err:
        width = 8 if what == "instruction descriptor" else 16
        shown = f"{word:#0{width + 2}x}" if isinstance(word, int) and word >= 0 else repr(word)
        raise Tcgen05ExecutionError(f"requires a valid {what}, got {shown}: {err}") from None


def _check(what: str, check, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    try:
        check(*args, **kwargs)
    except DescriptorError as err:
        raise Tcgen05ExecutionError(f"requires a legal {what}: {err}") from None


def _check_mma_form(idesc: int, kind: str, *context: object) -> None:
    """`rules.check_mma` of the decoded `idesc` (positional context, so that it can be memoized)."""
    (cta_group, ws, a_in_tmem, scale_vec, block_scale, target, ashift, collector,
     disable_output_lanes, scale_input_d, zcm) = context
    desc = _memo(_decode, "instruction descriptor", idesc, decode_idesc, kind)
    _check("tcgen05.mma form", rules.check_mma, desc, cta_group=cta_group, ws=ws,
           a_in_tmem=a_in_tmem, scale_vec=scale_vec, block_scale=block_scale, target=target,
           ashift=ashift, collector=collector, disable_output_lane=disable_output_lanes,
           scale_input_d=scale_input_d, zcmask=zcm)


def _checked_smem_operand_desc(what: str, word: int, kind: str, major: str, target: str,
                               pattern_start: int | None) -> SmemDesc:
    """Decode an operand's SMEM descriptor word and apply R17-R22 for this MMA (R21 against the
    buffer the start address lies in, when the kernel allocated one there)."""
    d = _decode(what, word, decode_smem_desc)
    _check(what, rules.check_smem_desc, d, kind=kind, major=major, target=target,
           pattern_start=pattern_start)
    return d


def _operand_desc(smem: SharedMemory, what: str, word: int, kind: str, major: str,
                  target: str) -> SmemDesc:
    start = (word & 0x3FFF) << 4  # bits 0-13: start address >> 4
    return _memo(_checked_smem_operand_desc, what, word, kind, major, target,
                 smem.pattern_start(start))


def _not_modelled(feature: str) -> Tcgen05ExecutionError:
    return Tcgen05ExecutionError(f"uses {feature}, which the executor does not model")


def _lane_enable_mask(words: Sequence[int], lane: int, m: int) -> np.ndarray:
    """disable-output-lane words -> per-row 'update' flags (a set bit = lane not updated)."""
    packed = np.array([int(w) & 0xFFFFFFFF for w in words], dtype="<u4").view(np.uint8)
    bits = np.unpackbits(packed, bitorder="little").astype(bool)  # bit i = lane i
    return ~bits[lane:lane + m]


def mma(
    smem: SharedMemory,
    tmem: TensorMemory,
    *,
    kind: str,
    d: int,
    a: int,
    b: int,
    idesc: int,
    enable_input_d: bool,
    a_in_tmem: bool = False,
    a_raw: np.ndarray | None = None,
    cta_group: int = 1,
    ws: bool = False,
    sparse: bool = False,
    sparse_metadata: int | None = None,
    scale_a: int | None = None,
    scale_b: int | None = None,
    scale_vec: str | None = None,
    disable_output_lane: Sequence[int] | None = None,
    zero_column_mask: int | None = None,
    scale_input_d: int | None = None,
    ashift: bool = False,
    collector: str | None = None,
    target: str = "sm_100a",
    numerics: str = "default",
    a_columns: int | None = None,
) -> InstrDesc:
    """Execute one `tcgen05.mma{.ws}{.sp}{.block_scale}` and return its decoded descriptor.

    `d`, and `a` when `a_in_tmem`, `sparse_metadata`, `scale_a`, `scale_b` are TMEM addresses
    (`lane << 16 | column`); `a` (otherwise) and `b` are 64-bit SMEM descriptor words; `idesc` is
    the 32-bit instruction descriptor; `zero_column_mask` the 64-bit mask word of `.ws`. Every word
    is decoded and checked against the isa rules here, so runtime-computed values are validated.
    `a_raw` (with `a_in_tmem`) gives A in TMEM as container integers (rows >= M, columns >= the
    stored K) instead of reading the packed TMEM layout at `a`: the interpreter passes the memref.
    `numerics` is "default" (float32 accumulation, see the module docstring) or "exact" (the
    tensor core's fused dot product, `mmair.executor.tcgen05_exact`).
    `a_columns`: the TMEM cells per row A occupies (default: its packed layout); `.ashift` shifts
    those cells of A's M lanes down one lane before the MMA reads them.
    """
    if numerics not in NUMERICS_MODES:
        raise Tcgen05ExecutionError(
            f"requires numerics in {', '.join(NUMERICS_MODES)}, got {numerics!r}")
    # Decoding and rule checks are pure functions of the words: memoized (failures raise each time).
    desc = _memo(_decode, "instruction descriptor", idesc, decode_idesc, kind)
    block_scale = kind in BLOCK_SCALED_KINDS
    if desc.sparse != sparse:
        raise Tcgen05ExecutionError(
            f"requires the idesc sparsity bit to match the instruction, got sparse = "
            f"{str(desc.sparse).lower()} for a {'sparse (.sp)' if sparse else 'dense'} tcgen05.mma"
        )
    zcm: ZeroColumnMask | None = None
    if zero_column_mask is not None:
        zcm = _memo(_decode, "zero-column mask", zero_column_mask, decode_zcmask)
    vec = scale_vec
    if vec in ("block32", "block16"):
        vec = {"block16": "4X", "block32": "1X" if kind == "mxf8f6f4" else "2X"}[vec]  # mutation: skip (1X, 2X: both 32-K blocks)
    _memo(_check_mma_form, idesc, kind, cta_group, ws, a_in_tmem, scale_vec, block_scale, target,
          ashift, collector, None if disable_output_lane is None else len(disable_output_lane),
          scale_input_d, zcm)
    if cta_group != 1:
        raise _not_modelled("cta_group::2 (a CTA pair)")
    if sparse and block_scale:
        raise _not_modelled(f"a sparse kind::{kind} MMA")
    if desc.sparsity_selector:
        raise _not_modelled(f"sparsity selector {desc.sparsity_selector} (only 0 is modelled)")
    if sparse and sparse_metadata is None:
        raise Tcgen05ExecutionError("requires a sparse-metadata TMEM address for a sparse MMA")
    if block_scale and (scale_a is None or scale_b is None):
        raise Tcgen05ExecutionError(f"requires scale_A and scale_B TMEM addresses for kind::{kind}")

    m, n, k = _memo(rules.mma_shape, desc)
    k_stored = k // 2 if sparse else k
    shift = zcm.shift if zcm is not None else 0

    # A in TMEM: `.ashift` first moves its rows down one lane (the first row becomes undefined);
    # D rows computed from an undefined A row are undefined (`TensorMemory.undefined`).
    undefined_rows = None
    if a_in_tmem:
        a_lane, a_column = layouts.tmem_lane(a), layouts.tmem_column(a)
        if a_columns is None:
            a_columns = -(-k_stored * layouts.smem_element_bits(kind, desc.atype) // 32)
        if ashift:
            tmem.shift_down(a_lane, m, a_column, a_columns, "A in tensor memory (.ashift)")
        undefined_rows = tmem.undefined_cells(
            slice(a_lane, a_lane + m), slice(a_column, a_column + a_columns)).any(axis=1)

    # A (M x K_stored) and B (N + shift x K, the transpose of the K x N operand).
    if a_in_tmem and a_raw is not None:
        if a_raw.ndim != 2 or a_raw.shape[0] < m or a_raw.shape[1] < k_stored:
            raise Tcgen05ExecutionError(
                f"requires A in tensor memory to hold {m}x{k_stored} elements, got shape "
                f"{'x'.join(map(str, a_raw.shape))}"
            )
        a_values = decode_elements(a_raw[:m, :k_stored], desc.atype)
    elif a_in_tmem:
        a_values = read_tmem_operand(tmem, a, type_name=desc.atype, kind=kind, rows=m, k=k_stored)
    else:
        a_desc = _operand_desc(smem, "A shared-memory descriptor", a, kind,
                               "mn" if desc.transpose_a else "k", target)
        a_values = read_smem_operand(smem, a_desc, major="mn" if desc.transpose_a else "k",
                                     type_name=desc.atype, kind=kind, mn=m, k=k_stored,
                                     what="operand A")
    b_desc = _operand_desc(smem, "B shared-memory descriptor", b, kind,
                           "mn" if desc.transpose_b else "k", target)
    # Gathered as (K, N + shift): the matmul below wants B as a contiguous K x N.
    b_values = _read_smem_operand_kn(smem, b_desc, major="mn" if desc.transpose_b else "k",
                                     type_name=desc.btype, kind=kind, mn=n + shift, k=k,
                                     what="operand B")

    if sparse:
        assert sparse_metadata is not None
        nibbles = read_sparse_metadata(tmem, sparse_metadata, kind=kind, rows=m, k=k)
        a_values = densify_sparse_a(kind, a_values, nibbles, k)

    sfa = sfb = None
    block = None
    if block_scale:
        assert scale_a is not None and scale_b is not None and desc.scale_type is not None
        block = layouts.SCALE_BLOCK_K[vec or ("1X" if kind == "mxf8f6f4" else "2X")]  # mutation: skip (1X, 2X: both 32)
        count = k // block
        decode_scale = decode_ue8m0 if desc.scale_type == "ue8m0" else decode_ue4m3
        sfa = decode_scale(read_scale_factors(tmem, scale_a, operand="a", rows=m, count=count,
                                              sf_id=desc.sfa_id))
        sfb = decode_scale(read_scale_factors(tmem, scale_b, operand="b", rows=n + shift,
                                              count=count, sf_id=desc.sfb_id))[shift:shift + n]

    # B' (N x K): output column j reads B column j + shift, masked columns read zero.
    b_used = b_values[shift:shift + n]
    if zcm is not None:
        b_used = np.where(zcmask_columns(zcm, m, n)[:, None], 0, b_used)
    dtype = desc.dtype or "f32"

    if kind == "i8":
        # Exact in float32: |products| <= 255 * 255 < 2^16 and K <= 64, so |sums| < 2^22.
        b_kn = np.ascontiguousarray(b_used.T, dtype=np.float32)  # mutation: skip (exact)
        product = (a_values.astype(np.float32) @ b_kn).astype(np.int64)  # mutation: skip (exact)
        if enable_input_d:
            product = product + read_d(tmem, d, "s32", m, n).astype(np.int64)
        if desc.saturate:
            result = np.clip(product, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
        else:
            result = product.astype(np.uint64).astype(np.uint32).view(np.int32)  # wrap mod 2^32
    else:
        a32 = -a_values if desc.negate_a else a_values
        b32 = -b_used if desc.negate_b else b_used
        if numerics == "exact":
            # The tensor core's fused dot product (mmair.isa.tcgen05.numerics).
            result = fused_mma(
                kind, a32, b32, read_d(tmem, d, dtype, m, n) if enable_input_d else None,
                atype=desc.atype, btype=desc.btype, d_type=dtype,
                c_shift=scale_input_d or 0, scale_a=sfa, scale_b=sfb,
                scale_type=desc.scale_type, block=block)
        elif block_scale:
            assert sfa is not None and sfb is not None and block is not None
            # Scales applied in float64 (exact; no overflow or underflow for any UE8M0/UE4M3
            # value) and the blocks summed in float64, rounded once to f32.
            a64 = np.asarray(a32, dtype=np.float64) * np.repeat(sfa, block, axis=1)
            b64 = np.asarray(b32, dtype=np.float64) * np.repeat(sfb, block, axis=1)
            wide = a64 @ np.ascontiguousarray(b64.T)
            if enable_input_d:
                wide += read_d(tmem, d, "f32", m, n)
            with np.errstate(over="ignore"):
                result = _canonical_nan(wide.astype(np.float32))
        else:
            # (K, N) contiguous: OpenBLAS is ~500x slower on a transposed view with a small K.
            b_kn = np.ascontiguousarray(np.asarray(b32, dtype=np.float32).T)
            with np.errstate(invalid="ignore", over="ignore"):  # inf * 0, inf - inf: NaN
                result = np.asarray(a32, dtype=np.float32) @ b_kn
                if dtype == "f32" and disable_output_lane is None and not scale_input_d:
                    # The common case, in place: D's f32 cells += A x B (the float32 sum below).
                    old_undefined = _undefined_d_rows(tmem, d, m, n) if enable_input_d \
                        else None
                    cells = tmem.region(d, m, n, "D").view(np.float32)
                    if enable_input_d:
                        np.add(result, cells, out=cells)
                    else:
                        cells[...] = result
                    _canonical_nan(cells)
                    _d_definedness(tmem, d, m, n, undefined_rows, old_undefined, None)
                    return desc
                if enable_input_d:
                    old = read_d(tmem, d, dtype, m, n).astype(np.float32)
                    if scale_input_d:
                        old = np.ldexp(old, -scale_input_d).astype(np.float32)
                    result = result + old
            result = _canonical_nan(result)

    lane_enabled = None
    if disable_output_lane is not None:
        lane_enabled = _lane_enable_mask(disable_output_lane, layouts.tmem_lane(d), m)
    old_undefined = _undefined_d_rows(tmem, d, m, n) if enable_input_d else None
    write_d(tmem, d, dtype, result, lane_enabled)
    _d_definedness(tmem, d, m, n, undefined_rows, old_undefined, lane_enabled)
    return desc


def _undefined_d_rows(tmem: TensorMemory, d: int, m: int, n: int) -> np.ndarray:
    lane, column = layouts.tmem_lane(d), layouts.tmem_column(d)
    return tmem.undefined_cells(slice(lane, lane + m), slice(column, column + n)).any(axis=1)


def _d_definedness(tmem: TensorMemory, d: int, m: int, n: int, a_undefined: np.ndarray | None,
                   old_undefined: np.ndarray | None, lane_enabled: np.ndarray | None) -> None:
    """D rows written from an undefined A row (or accumulated onto an undefined D row) are
    undefined: marked after `write_d` made the written rows defined."""
    rows = np.zeros(m, dtype=bool)
    for undefined in (a_undefined, old_undefined):
        if undefined is not None:
            rows |= undefined
    if lane_enabled is not None:
        rows &= lane_enabled
    if rows.any():
        lane, column = layouts.tmem_lane(d), layouts.tmem_column(d)
        tmem.mark_undefined(lane + np.nonzero(rows)[0][:, None], slice(column, column + n))


PAIR_ROWS = TMEM_LANES
"""D rows each CTA of a pair holds for M = 256 (Layout A: CTA c of the pair, c = rank & 1, holds
rows [128 c, 128 c + 128) in its own TMEM at the D address)."""


def mma_pair(
    ctas: Sequence[tuple[SharedMemory, TensorMemory]],
    *,
    kind: str,
    d: int,
    a: int,
    b: int,
    idesc: int,
    enable_input_d: bool,
    a_in_tmem: bool = False,
    sparse: bool = False,
    scale_vec: str | None = None,
    disable_output_lane: Sequence[int] | None = None,
    scale_input_d: int | None = None,
    ashift: bool = False,
    collector: str | None = None,
    target: str = "sm_100a",
    numerics: str = "default",
) -> InstrDesc:
    """`tcgen05.mma.cta_group::2` with M = 256 on a CTA pair (`ctas[c]` = the SMEM and TMEM of
    the CTA with rank & 1 == c). Layout A [inf: PTX ISA "Data Path Layout Organization" names it;
    CUTLASS 2-SM MMAs split this way]: CTA c's tensor core computes D rows [128 c, 128 c + 128)
    from the A rows its own SMEM holds at the A descriptor (a 128-row operand), times all N
    columns of B, whose columns [N/2 c, N/2 (c + 1)) are CTA c's SMEM at the B descriptor (an
    N/2-column operand), into its own TMEM at `d`. disable-output-lane bit 128 c + i is lane i of
    CTA c. Dense kinds tf32, f16, f8f6f4, i8 with A in SMEM; the rest is refused."""
    desc = _memo(_decode, "instruction descriptor", idesc, decode_idesc, kind)
    block_scale = kind in BLOCK_SCALED_KINDS
    _memo(_check_mma_form, idesc, kind, 2, False, a_in_tmem, scale_vec, block_scale, target,
          ashift, collector, None if disable_output_lane is None else len(disable_output_lane),
          scale_input_d, None)
    m, n, k = _memo(rules.mma_shape, desc)
    for present, feature in ((m != 2 * PAIR_ROWS, f"M = {m} (Layout B/C; only M = 256, Layout A, "
                              "is modelled)"), (block_scale, f"kind::{kind}"),
                             (sparse, "a sparse A"), (a_in_tmem, "A in tensor memory"),
                             (ashift, ".ashift"), (numerics != "default", f"{numerics} numerics")):
        if present:
            raise _not_modelled(f"cta_group::2 with {feature}")
    a_major = "mn" if desc.transpose_a else "k"
    b_major = "mn" if desc.transpose_b else "k"
    halves = []
    for c, (smem, _) in enumerate(ctas):
        where = f" of CTA {c} of the pair"
        a_desc = _operand_desc(smem, "A shared-memory descriptor", a, kind, a_major, target)
        b_desc = _operand_desc(smem, "B shared-memory descriptor", b, kind, b_major, target)
        a_c = read_smem_operand(smem, a_desc, major=a_major, type_name=desc.atype, kind=kind,
                                mn=PAIR_ROWS, k=k, what="operand A" + where)
        b_c = _read_smem_operand_kn(smem, b_desc, major=b_major, type_name=desc.btype,
                                    kind=kind, mn=n // 2, k=k, what="operand B" + where)
        halves.append((a_c, b_c))
    b_kn = np.ascontiguousarray(  # each half is (N/2, K)
        np.concatenate([half[1] for half in halves], axis=0).T, dtype=np.float32)
    if desc.negate_b:
        b_kn = -b_kn
    dtype = desc.dtype or "f32"
    for c, ((a_c, _), (_, tmem)) in enumerate(zip(halves, ctas, strict=True)):
        try:
            tmem.check_access(layouts.tmem_lane(d), layouts.tmem_column(d), PAIR_ROWS, n, "D")
        except Tcgen05ExecutionError as err:
            raise Tcgen05ExecutionError(f"{err} (D rows {c * PAIR_ROWS}..{c * PAIR_ROWS + 127}"
                                        f" in the tensor memory of CTA {c} of the pair)") from None
        a32 = np.asarray(a_c, dtype=np.float32)
        with np.errstate(invalid="ignore", over="ignore"):
            product = (-a32 if desc.negate_a else a32) @ b_kn
        if kind == "i8":  # exact in float32 (see mma)
            wide = product.astype(np.int64)
            if enable_input_d:
                wide += read_d(tmem, d, "s32", PAIR_ROWS, n).astype(np.int64)
            result = np.clip(wide, np.iinfo(np.int32).min, np.iinfo(np.int32).max) \
                if desc.saturate else wide.astype(np.uint64).astype(np.uint32).view(np.int32)
        else:
            if enable_input_d:
                old = read_d(tmem, d, dtype, PAIR_ROWS, n).astype(np.float32)
                if scale_input_d:
                    old = np.ldexp(old, -scale_input_d).astype(np.float32)
                with np.errstate(invalid="ignore", over="ignore"):
                    product = product + old
            result = _canonical_nan(product)
        lane_enabled = None
        if disable_output_lane is not None:
            lane_enabled = _lane_enable_mask(disable_output_lane,
                                             c * PAIR_ROWS + layouts.tmem_lane(d), PAIR_ROWS)
        write_d(tmem, d, dtype, result, lane_enabled)
    return desc


def pair_smem_spans(kind: str, idesc: int, a: int | None, b: int) -> tuple[tuple[int, int], ...]:
    """The SMEM byte ranges [lo, end) a `cta_group::2` M = 256 MMA that `mma_pair` ran reads in
    EACH CTA of the pair: its 128-row A half and its N/2-column B half (each operand's hull).
    `a` is A's SMEM descriptor word, None when A is in TMEM (no SMEM span; `mma_pair` refuses
    A in TMEM today, so callers never reach here with it, but a TMEM address is no descriptor)."""
    desc = _memo(_decode, "instruction descriptor", idesc, decode_idesc, kind)
    _, n, k = _memo(rules.mma_shape, desc)
    spans = []
    operands = [(b, desc.btype, desc.transpose_b, n // 2)]
    if a is not None:
        operands.insert(0, (a, desc.atype, desc.transpose_a, PAIR_ROWS))
    for word, type_name, transposed, mn in operands:
        bits, width = _storage(kind, type_name)
        operand = _checked_operand_map(_smem_desc(word), "mn" if transposed else "k", bits, mn,
                                       k, "operand", width)
        spans.append((operand.lowest, operand.end))
    return tuple(spans)


class CpFootprint(NamedTuple):
    """What one tcgen05.cp touches: the SMEM bytes [lo, end) of its source and the TMEM lanes
    [lane, lane_end) x columns [column, column_end) it writes (their hull)."""

    smem: tuple[int, int]
    lane: int
    lane_end: int
    column: int
    column_end: int


def cp(smem: SharedMemory, tmem: TensorMemory, *, taddr: int, desc: int, shape: str,
       multicast: str | None = None, decompress: str | None = None) -> CpFootprint:
    """`tcgen05.cp.<shape>{.multicast} [taddr], s-desc`: copy a rows x bits matrix from SMEM
    (read through the matrix descriptor as a K-major canonical layout of bytes, the layout of
    the MMA operands) into TMEM, row r to the lanes `tmem_moves.cp_lane_offsets` gives, the
    row's bytes little-endian into consecutive 32-bit cells from the address column."""
    lanes = np.array(tmem_moves.cp_lane_offsets(shape, multicast))
    rows, bits = tmem_moves.CP_ROWS_BITS[shape]
    d = _decode("tcgen05.cp source descriptor", desc, decode_smem_desc)
    operand = _checked_operand_map(d, "k", 8, rows, bits // 8, "the tcgen05.cp source", 8)
    raw = np.ascontiguousarray(smem.data[operand.index])  # (rows, bytes)
    if decompress is not None:  # 16 packed 4/6-bit elements per 16-byte unit -> 16 bytes
        raw = tmem_moves.cp_decompress(raw, decompress)
    data = raw.view("<u4")  # (rows, columns)
    lane0, column0 = layouts.tmem_lane(taddr), layouts.tmem_column(taddr)
    columns = bits // 32
    top = int(lanes.max()) + 1
    tmem.check_access(lane0, column0, top, columns, "the tcgen05.cp destination")
    cells = tmem.cells[:, column0:column0 + columns]
    for copy in range(lanes.shape[1]):
        cells[lane0 + lanes[:, copy]] = data
        tmem.defined(lane0 + lanes[:, copy], slice(column0, column0 + columns))
    return CpFootprint((operand.lowest, operand.end), lane0 + int(lanes.min()), lane0 + top,
                       column0, column0 + columns)


def shift(tmem: TensorMemory, taddr: int) -> tuple[int, int, int, int]:
    """`tcgen05.shift.cta_group.down [taddr]`: the 32-byte elements at the address column of the
    32 lanes from the address lane move down one lane (".31x256b"); the address lane becomes
    undefined (`tmem_moves.shift_rows`). Returns (lane, lanes, column, columns) moved."""
    lane, column = layouts.tmem_lane(taddr), layouts.tmem_column(taddr)
    if lane % tmem_moves.SHIFT_LANE_ALIGNMENT:
        raise Tcgen05ExecutionError(
            f"requires the tcgen05.shift address lane to be a multiple of "
            f"{tmem_moves.SHIFT_LANE_ALIGNMENT}, got lane {lane}")
    lanes = tmem_moves.SHIFT_LANES
    tmem.shift_down(lane, lanes, column, tmem_moves.SHIFT_COLUMNS, "the tcgen05.shift rows")
    return lane, lanes, column, tmem_moves.SHIFT_COLUMNS


def tmem_view_columns(view: np.ndarray) -> int:
    """TMEM cells per row that a 2-D memref view of tensor memory covers."""
    if view.ndim != 2 or view.size == 0:
        return 0
    end = (view.shape[1] - 1) * view.strides[1] + view.itemsize
    return -(-end // 4)


class MmaFootprint(NamedTuple):
    """What one MMA touches: D's m lanes x n columns, the SMEM byte ranges [lo, end) of its
    descriptor operands (each operand's hull), and the TMEM columns of A when A is in TMEM."""

    m: int
    n: int
    smem: tuple[tuple[int, int], ...]
    a_columns: int
    tmem_reads: tuple[tuple[int, int, int, int], ...] = ()
    """(lane, lanes, column, columns) rectangles of scale factors and sparse metadata."""


def mma_footprint(smem: SharedMemory, *, kind: str, idesc: int, a: int | None, b: int,
                  ws: bool = False, sparse: bool = False,
                  zero_column_mask: int | None = None, sparse_metadata: int | None = None,
                  scale_a: int | None = None, scale_b: int | None = None) -> MmaFootprint:
    """The footprint of an MMA that `mma` has already run and checked (same memoized decodes):
    `a` is A's SMEM descriptor word, None when A is in TMEM; the TMEM addresses of the sparse
    metadata and scale factors give their cells (scale factors: the columns of every lane
    quadrant they occupy, a hull)."""
    desc = _memo(_decode, "instruction descriptor", idesc, decode_idesc, kind)
    m, n, k = _memo(rules.mma_shape, desc)
    k_stored = k // 2 if sparse else k
    shift = 0
    if ws and zero_column_mask is not None:
        shift = _memo(_decode, "zero-column mask", zero_column_mask, decode_zcmask).shift
    spans = []
    operands = [("B", b, desc.btype, "mn" if desc.transpose_b else "k", n + shift, k)]
    if a is not None:
        operands.insert(0, ("A", a, desc.atype, "mn" if desc.transpose_a else "k", m, k_stored))
    for _, word, type_name, major, mn, kk in operands:
        bits, width = _storage(kind, type_name)
        operand = _checked_operand_map(_smem_desc(word), major, bits, mn, kk, "operand", width)
        spans.append((operand.lowest, operand.end))
    a_bits = layouts.smem_element_bits(kind, desc.atype)
    reads = []
    if sparse_metadata is not None:
        columns = -(-layouts.sparse_metadata_nibbles(kind, k) // 8)  # 8 nibbles per cell
        reads.append((layouts.tmem_lane(sparse_metadata), m,
                      layouts.tmem_column(sparse_metadata), columns))
    for address, rows in ((scale_a, m), (scale_b, n + shift)):
        if address is not None:
            _, offsets = layouts.scale_factor_cells(np.arange(rows))
            reads.append((0, TMEM_LANES, layouts.tmem_column(address), int(offsets.max()) + 1))
    return MmaFootprint(m, n, tuple(spans), -(-k_stored * a_bits // 32), tuple(reads))


__all__ = [
    "CpFootprint",
    "MmaFootprint",
    "SharedMemory",
    "Tcgen05ExecutionError",
    "TensorMemory",
    "UNDEFINED_CELL",
    "decode_elements",
    "decode_ue4m3",
    "decode_ue8m0",
    "densify_sparse_a",
    "encode_elements",
    "cp",
    "encode_scale",
    "mma",
    "mma_pair",
    "pair_smem_spans",
    "mma_footprint",
    "read_d",
    "read_scale_factors",
    "read_smem_operand",
    "read_sparse_metadata",
    "read_tmem_operand",
    "shift",
    "tmem_view_columns",
    "write_d",
    "write_scale_factors",
    "write_smem_operand",
    "write_sparse_metadata",
    "write_tmem_operand",
]
