"""MMA operands in the simulated memories: the canonical SMEM layouts and swizzles of
`mmair.isa.tcgen05.layouts` turn a matrix descriptor into an index array, and one fancy-indexing
gather reads a whole operand (`read_smem_operand`; `write_smem_operand` is the inverse scatter);
TMEM operands, sparse metadata, scale factors and D. The address maps are memoized per
(descriptor, major, bits, mn, k); failures are never remembered.
"""


from __future__ import annotations

from functools import lru_cache

import numpy as np

from mmair.executor.tcgen05.elements import RAW_DTYPES, decode_elements, encode_elements
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.isa.tcgen05 import layouts
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.layouts import (
    SMEM_BYTES_PER_CTA,
    TMEM_COLUMNS,
    TMEM_LANES,
    TMEM_LANES_PER_WARP,
)
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc

_MEMO_LIMIT = 4096


_memo_table: dict[tuple[object, ...], object] = {}


def memo(function, *args):  # type: ignore[no-untyped-def]
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


def smem_desc(desc: SmemDesc | int) -> SmemDesc:
    return desc if isinstance(desc, SmemDesc) else memo(decode_smem_desc, desc)


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


def storage(kind: str, type_name: str) -> tuple[int, int]:
    """(layout bits, data bits) of an A/B element of `kind` in SMEM."""
    return layouts.smem_element_bits(kind, type_name), layouts.smem_value_bits(kind, type_name)


_CHECKED_MAPS: dict[tuple, _OperandMap] = {}
"""Checked operand maps by (descriptor word or SmemDesc, major, bits, mn, k, width): one dict
look-up per operand of an MMA instead of decoding the word and hashing the descriptor again.
Only maps that passed the checks are kept (a failing one raises every time)."""


def checked_operand_map(
    desc: SmemDesc | int, major: str, bits: int, mn: int, k: int, what: str, width: int,
) -> _OperandMap:
    key = (desc, type(desc), major, bits, mn, k, width)
    found = _CHECKED_MAPS.get(key)
    if found is not None:
        return found
    operand = _checked_operand_map(desc, major, bits, mn, k, what, width)
    if len(_CHECKED_MAPS) >= 128:  # bounded like `_operand_map`'s cache (maps can be large)
        _CHECKED_MAPS.clear()
    _CHECKED_MAPS[key] = operand
    return operand


def _checked_operand_map(
    desc: SmemDesc | int, major: str, bits: int, mn: int, k: int, what: str, width: int,
) -> _OperandMap:
    d = smem_desc(desc)
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
    return data.view(RAW_DTYPES[bits])[operand.index]


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
        slots = data.view(RAW_DTYPES[bits])
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
    bits, width = storage(kind, type_name)
    operand = checked_operand_map(desc, major, bits, mn, k, what, width)
    return decode_elements(_gather_raw(smem.data, operand, width), type_name)


def read_smem_operand_kn(
    smem: SharedMemory, desc: SmemDesc, *, major: str, type_name: str, kind: str,
    mn: int, k: int, what: str,
) -> np.ndarray:
    """`read_smem_operand` as a transposed view of a contiguous (k, mn) array (B of the MMA)."""
    bits, width = storage(kind, type_name)
    operand = checked_operand_map(desc, major, bits, mn, k, what, width)
    if width in (4, 6):  # (per-element shifts: gather (mn, k), then copy)
        values = decode_elements(_gather_raw(smem.data, operand, width), type_name)
        return np.ascontiguousarray(values.T).T
    raw = smem.data.view(RAW_DTYPES[bits])[operand.index_kn]
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
    bits, width = storage(kind, type_name)
    operand = checked_operand_map(desc, major, bits, mn, k, what, width)
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
        raw = np.ascontiguousarray(data).view(RAW_DTYPES[bits])
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


def decode(what: str, word: int, decode, *args):  # type: ignore[no-untyped-def]
    try:
        return decode(word, *args)
    except DescriptorError as err:
        width = 8 if what == "instruction descriptor" else 16
        shown = f"{word:#0{width + 2}x}" if isinstance(word, int) and word >= 0 else repr(word)
        raise Tcgen05ExecutionError(f"requires a valid {what}, got {shown}: {err}") from None


def check(what: str, check, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
    try:
        check(*args, **kwargs)
    except DescriptorError as err:
        raise Tcgen05ExecutionError(f"requires a legal {what}: {err}") from None
