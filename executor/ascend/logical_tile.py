"""A pto tile as the numpy reference sees it: a LOGICAL matrix in float64 with its element type,
layout and space (no fractal bytes, no address), and the value codec between those matrices and
the stored element types (`mmair.executor.ascend.reference`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mmair.dialects import pto
from mmair.isa.ascend import layouts
from mmair.isa.ascend.hif8 import decode_hif8, encode_hif8_exact
from mmair.isa.dtypes import numpy_dtype

# ---- logical tiles -----------------------------------------------------------------------------



@dataclass(eq=False)
class LogicalTile:
    """A pto tile as a logical matrix: values (float64, or the stored dtype for 64-bit integers
    such as quant words) and, per element, a bound of the sum of |products| that made it.

    `values` and `magnitude` are the logical [rows, cols] corner of `padded_values` /
    `padded_magnitude`, the matrix rounded up to whole fractals: the raw-parameter ops address
    the physical buffer, fractal padding included, and `physical` / `store_physical` map that
    buffer to and from the padded matrix with the layout's index map (`isa.ascend.layouts`)."""

    element: str
    layout: str
    padded_values: np.ndarray
    padded_magnitude: np.ndarray
    shape: tuple[int, int] = (0, 0)
    """Logical (rows, cols)."""
    space: str = "gm"
    logical_shape: tuple[int, ...] = ()
    """The tile type's shape as written (1-D for an nd vector)."""
    products: int = 0
    """Products summed into the accumulator (K, summed over mad_acc)."""
    source: str | None = None
    """Element type of the mad operands that made an accumulator's values."""
    padded_error: np.ndarray | None = None
    """Per element, a bound of |executor's value - reference's value| (`error`, the logical
    corner): 0 for data from GM; a Fixpipe into an L1/UB tile rounds to the tile's type, where
    the executor's f32 sum and the float64 one may round to neighbouring values."""
    alias: list[LogicalTile] = field(default_factory=list)
    """The tiles that are views of the same buffer (pto.reinterpret), this one included."""
    _physical_index: np.ndarray | None = None
    _padded_position: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not self.alias:
            self.alias.append(self)
        if self.shape == (0, 0):
            self.shape = self.padded_values.shape
        rows, cols = self.shape
        if self.padded_error is None:
            self.padded_error = np.zeros(self.padded_magnitude.shape)
        self.values = self.padded_values[:rows, :cols]
        self.magnitude = self.padded_magnitude[:rows, :cols]
        self.error = self.padded_error[:rows, :cols]

    @classmethod
    def of_type(cls, t: pto.TileType, fill: float = 0.0) -> LogicalTile:
        """A tile of type `t` holding `fill` (zero: the reference's fresh buffer)."""
        shape = tuple(int(d) for d in t.logical_shape)
        rows, cols = shape if len(shape) == 2 else (1, int(np.prod(shape)))
        try:
            padded = layouts.padded_shape(t.layout_name, shape, t.element_name, t.space_name)
        except ValueError:  # no fractal geometry (e.g. a vector tile of a type without C0)
            padded = (rows, cols)
        return cls(t.element_name, t.layout_name, np.full(padded, fill, tile_dtype(t.element_name)),
                   np.zeros(padded), (rows, cols), t.space_name, shape)

    @property
    def rows(self) -> int:
        return self.shape[0]

    @property
    def cols(self) -> int:
        return self.shape[1]

    @property
    def geometry_key(self) -> tuple:
        """What the physical index map depends on."""
        return (self.layout, self.logical_shape, self.element, self.space)

    def physical_index(self, role: str) -> np.ndarray:
        """[padded rows, padded cols] -> element offset in the physical buffer (a bijection)."""
        if self._physical_index is None:
            g = layouts.geometry(self.layout, self.logical_shape, self.element, self.space)
            pr, pc = g.padded_shape
            rows = np.arange(pr, dtype=np.int64)[:, None]
            cols = np.arange(pc, dtype=np.int64)[None, :]
            self._physical_index = np.asarray(g.offset(rows, cols))
        return self._physical_index

    def physical(self, role: str) -> tuple[np.ndarray, np.ndarray]:
        """(values, magnitude) as flat arrays in the order of the physical buffer."""
        index = self.physical_index(role)
        values = np.empty(index.size, self.padded_values.dtype)
        magnitude = np.empty(index.size)
        values[index] = self.padded_values
        magnitude[index] = self.padded_magnitude
        return values, magnitude

    def padded_position(self, role: str) -> np.ndarray:
        """Physical element offset -> flat index into `padded_values` (the inverse of
        `physical_index`)."""
        if self._padded_position is None:
            index = self.physical_index(role).reshape(-1)
            position = np.empty(index.size, dtype=np.int64)
            position[index] = np.arange(index.size, dtype=np.int64)
            self._padded_position = position
        return self._padded_position

    def flat_physical(self, padded: np.ndarray) -> np.ndarray:
        """`padded` (a padded array of this tile) in the order of the physical buffer."""
        index = self.physical_index("src")
        flat = np.empty(index.size, padded.dtype)
        flat[index] = padded
        return flat

    def store_physical(self, values: np.ndarray, magnitude: np.ndarray) -> None:
        index = self.physical_index("dst")
        self.padded_values[...] = values[index]
        self.padded_magnitude[...] = magnitude[index]


def bit_cast(source: LogicalTile, view: LogicalTile) -> None:
    """Copy `source`'s values into `view` as the bit patterns of source's element type read as
    view's (elements of the common logical region; both types have the same width)."""
    rows, cols = min(source.rows, view.rows), min(source.cols, view.cols)
    with np.errstate(invalid="ignore", over="ignore"):
        stored = encode_values(source.values[:rows, :cols], source.element)
        values = decode_values(stored.view(numpy_dtype(view.element)), view.element)
    view.values[:rows, :cols] = values
    view.magnitude[:rows, :cols] = np.where(values == source.values[:rows, :cols],
                                            source.magnitude[:rows, :cols],
                                            np.nan_to_num(np.abs(values), nan=0.0, posinf=0.0))
    view.products, view.source = source.products, source.source


def tile_dtype(element: str) -> np.dtype:
    dtype = numpy_dtype(element)
    return dtype if dtype.kind in "iu" and dtype.itemsize == 8 else np.dtype(np.float64)


def decode_values(stored: np.ndarray, element: str) -> np.ndarray:
    """Stored elements (a GM array or bits) -> the reference's values: float64 (HiF8 bytes
    decoded, `isa.ascend.hif8`), or the stored integers for 64-bit integer types."""
    if element == "hif8":
        return decode_hif8(stored)
    dtype = tile_dtype(element)
    return stored if stored.dtype == dtype else stored.astype(dtype)


def encode_values(values: np.ndarray, element: str) -> np.ndarray:
    """The reference's values of `element` -> stored elements (inverse of `decode_values`)."""
    if element == "hif8":
        return encode_hif8_exact(values)
    return values.astype(numpy_dtype(element))


def stored_values(values: np.ndarray, element: str) -> np.ndarray:
    """`values` as a tile of `element` holds them: rounded to the type (a Fixpipe into an L1 or
    UB tile stores the converted values in the tile's type, like a store into GM)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return decode_values(encode_values(values, element), element)


def decoded_gm(gm: np.ndarray, element: str) -> np.ndarray:
    """GM elements read into a tile of `element` (HiF8 GM holds bytes)."""
    return decode_hif8(gm) if element == "hif8" else gm


def bits_as(values: np.ndarray, source: str, target: str) -> np.ndarray:
    """Values of `source` elements seen as `target` elements of the same width (a load between
    tiles of two types moves bits)."""
    if source == target:
        return values
    with np.errstate(invalid="ignore", over="ignore"):
        stored = encode_values(values, source)
        return decode_values(stored.view(numpy_dtype(target)), target)

