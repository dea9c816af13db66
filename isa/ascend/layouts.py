"""Ascend fractal layouts: index maps, physical shapes, pack/unpack (vectorized numpy).

The cube buffers store a logical matrix X[R, C] in "fractals": small row-blocks of 16 x c0
elements (c0 = 32 bytes / sizeof(T), 16 in L0C), each 512 B in L0A/L0B/L1. A layout name has
two letters (docs/ascend.md, "Fractal layouts"): the first (capital in the Ascend docs) gives the
order of the fractals, the second the order inside one fractal; `z` = row-major, `n` = column-major.

| layout | fractal (rows x cols) | physical shape     | used for                          |
|--------|-----------------------|--------------------|-----------------------------------|
| nd     | -                     | (R, C)             | GM, UB, BT, FB, GEMV vector      |
| dn     | -                     | (C, R)             | column-major GM                  |
| nz     | 16 x c0               | (C1, R1, 16, c0)   | L1 (A), L0C, a5 L0A               |
| zz     | 16 x c0               | (R1, C1, 16, c0)   | a2/a3 L0A, seed-NZ L1 B           |
| zn     | c0 x 16               | (R1, C1, 16, c0)   | L0B (K innermost)                 |
| nn     | c0 x 16               | (C1, R1, 16, c0)   |                                   |

with R1 = ceil(R / fractal rows), C1 = ceil(C / fractal cols). Physical shapes and offsets are in
elements. s4 (and other sub-byte types) are handled one value per numpy element here; their
storage is two per byte (`footprint_bytes`, `pack_nibbles`, `unpack_nibbles`).

`blocked_view` gives a 4-D no-copy view [r1, r0, c1, c0] of a physical array so that
padded-logical element (r, c) is `view[r // fr, r % fr, c // fc, c % fc]`: the executor moves
whole fractals through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import TypeAlias

import numpy as np

from mmair.isa.ascend.targets import M0, c0_elements, element_bits

LAYOUTS: tuple[str, ...] = ("nd", "dn", "nz", "zz", "zn", "nn")
FRACTAL_LAYOUTS: tuple[str, ...] = ("nz", "zz", "zn", "nn")
PLAIN_LAYOUTS: tuple[str, ...] = ("nd", "dn")

# layout -> (fractals column-major, column-major inside a fractal)
_ORDER: dict[str, tuple[bool, bool]] = {
    "nz": (True, False),
    "zz": (False, False),
    "zn": (False, True),
    "nn": (True, True),
}

IntOrArray: TypeAlias = "int | np.ndarray"  # a string: importing this module must not touch numpy


def _check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}, expected one of {', '.join(LAYOUTS)}")


def _logical_2d(layout: str, shape: tuple[int, ...]) -> tuple[int, int]:
    """The logical (rows, cols) of `shape`; a 1-D shape (nd only) is one row."""
    shape = tuple(int(s) for s in shape)
    if len(shape) == 1 and layout == "nd":
        rows, cols = 1, shape[0]
    elif len(shape) == 2:
        rows, cols = shape
    else:
        raise ValueError(
            f"layout {layout!r} requires a 2-D shape (1-D only for nd), got {shape}"
        )
    if rows < 1 or cols < 1:
        raise ValueError(f"shape extents must be positive, got {shape}")
    return rows, cols


def fractal_shape(layout: str, elem: str, space: str) -> tuple[int, int]:
    """Logical rows x cols of one fractal: nz/zz (16, c0), zn/nn (c0, 16), nd/dn (1, 1)."""
    _check_layout(layout)
    if layout in PLAIN_LAYOUTS:
        return (1, 1)
    c0 = c0_elements(elem, space)
    return (M0, c0) if layout in ("nz", "zz") else (c0, M0)


@dataclass(frozen=True)
class LayoutGeometry:
    """Layout of one logical X[rows, cols] with fractals of frac_rows x frac_cols.

    Build it with `geometry(layout, shape, elem, space)`; `from_fractal` takes any fractal size
    (used to check the 2 x 2 toy examples of the Mmad documentation)."""

    layout: str
    shape: tuple[int, ...]  # logical shape as given (1-D allowed for nd)
    rows: int
    cols: int
    frac_rows: int
    frac_cols: int

    @classmethod
    def from_fractal(
        cls, layout: str, shape: tuple[int, ...], fractal: tuple[int, int]
    ) -> LayoutGeometry:
        _check_layout(layout)
        rows, cols = _logical_2d(layout, shape)
        fr, fc = (1, 1) if layout in PLAIN_LAYOUTS else (int(fractal[0]), int(fractal[1]))
        return cls(layout, tuple(int(s) for s in shape), rows, cols, fr, fc)

    @property
    def r1(self) -> int:
        """Fractal rows (ceil(rows / frac_rows))."""
        return -(-self.rows // self.frac_rows)

    @property
    def c1(self) -> int:
        """Fractal columns (ceil(cols / frac_cols))."""
        return -(-self.cols // self.frac_cols)

    @property
    def padded_shape(self) -> tuple[int, int]:
        return (self.r1 * self.frac_rows, self.c1 * self.frac_cols)

    @property
    def physical_shape(self) -> tuple[int, ...]:
        if self.layout == "nd":
            return self.shape
        if self.layout == "dn":
            return (self.cols, self.rows)
        outer_n, inner_n = _ORDER[self.layout]
        outer = (self.c1, self.r1) if outer_n else (self.r1, self.c1)
        inner = (self.frac_cols, self.frac_rows) if inner_n else (self.frac_rows, self.frac_cols)
        return outer + inner

    @property
    def num_elements(self) -> int:
        """Elements in the physical buffer (padding included)."""
        return prod(self.physical_shape)

    @property
    def num_fractals(self) -> int:
        return self.r1 * self.c1

    def offset(self, row: IntOrArray, col: IntOrArray) -> IntOrArray:
        """Element offset of padded-logical (row, col) in the physical buffer (vectorized)."""
        scalar = isinstance(row, int | np.integer) and isinstance(col, int | np.integer)
        r = np.asarray(row, dtype=np.int64)
        c = np.asarray(col, dtype=np.int64)
        pr, pc = self.padded_shape
        if np.any(r < 0) or np.any(r >= pr) or np.any(c < 0) or np.any(c >= pc):
            raise IndexError(
                f"element index out of the padded {pr}x{pc} {self.layout} tile: row {row}, col {col}"
            )
        if self.layout == "nd":
            off = r * self.cols + c
        elif self.layout == "dn":
            off = c * self.rows + r
        else:
            fr, fc = self.frac_rows, self.frac_cols
            r1, r0 = np.divmod(r, fr)
            c1, c0 = np.divmod(c, fc)
            outer_n, inner_n = _ORDER[self.layout]
            outer = c1 * self.r1 + r1 if outer_n else r1 * self.c1 + c1
            inner = c0 * fr + r0 if inner_n else r0 * fc + c0
            off = outer * (fr * fc) + inner
        return int(off) if scalar else off

    def blocked_view(self, physical: np.ndarray) -> np.ndarray:
        """4-D view [r1, r0, c1, c0] of `physical` (see module docstring)."""
        if tuple(physical.shape) != self.physical_shape:
            raise ValueError(
                f"physical array of shape {tuple(physical.shape)} does not match "
                f"{self.layout} shape {self.physical_shape}"
            )
        return blocked_view(physical, self.layout)

    def pack(self, logical: np.ndarray) -> np.ndarray:
        """Physical array (zero padding) holding `logical`."""
        logical = np.asarray(logical)
        if tuple(logical.shape) != self.shape:
            raise ValueError(f"logical array of shape {logical.shape} does not match {self.shape}")
        physical = np.zeros(self.physical_shape, dtype=logical.dtype)
        view = blocked_view(physical, self.layout)
        view[:, :, :, :] = _pad_blocks(logical.reshape(self.rows, self.cols), self)
        return physical

    def unpack(self, physical: np.ndarray) -> np.ndarray:
        """Logical array (a copy) held in `physical`."""
        view = self.blocked_view(np.asarray(physical))
        padded = view.reshape(self.padded_shape)  # copies: the view is not contiguous
        return np.array(padded[: self.rows, : self.cols]).reshape(self.shape)


def _pad_blocks(x: np.ndarray, g: LayoutGeometry) -> np.ndarray:
    pr, pc = g.padded_shape
    if (pr, pc) != x.shape:
        padded = np.zeros((pr, pc), dtype=x.dtype)
        padded[: g.rows, : g.cols] = x
        x = padded
    return x.reshape(g.r1, g.frac_rows, g.c1, g.frac_cols)


def geometry(layout: str, shape: tuple[int, ...], elem: str, space: str) -> LayoutGeometry:
    """The `LayoutGeometry` of a logical `shape` of `elem` stored as `layout` in `space`."""
    return LayoutGeometry.from_fractal(layout, shape, fractal_shape(layout, elem, space))


def padded_shape(layout: str, shape: tuple[int, ...], elem: str, space: str) -> tuple[int, int]:
    """(rows, cols) rounded up to whole fractals; a 1-D nd shape (N,) gives (1, N)."""
    return geometry(layout, shape, elem, space).padded_shape


def fractal_grid(layout: str, shape: tuple[int, ...], elem: str, space: str) -> tuple[int, int]:
    """(R1, C1): number of fractal rows and fractal columns."""
    g = geometry(layout, shape, elem, space)
    return (g.r1, g.c1)


def physical_shape(layout: str, shape: tuple[int, ...], elem: str, space: str) -> tuple[int, ...]:
    """Physical array shape in elements (see the table in the module docstring)."""
    return geometry(layout, shape, elem, space).physical_shape


def footprint_bytes(layout: str, shape: tuple[int, ...], elem: str, space: str) -> int:
    """Bytes the physical buffer occupies (padding included; 4-bit types two per byte)."""
    n = geometry(layout, shape, elem, space).num_elements
    return -(-n * element_bits(elem) // 8)


def element_offset(
    layout: str,
    shape: tuple[int, ...],
    elem: str,
    space: str,
    row: IntOrArray,
    col: IntOrArray,
) -> IntOrArray:
    """Element offset of logical (row, col) in the physical buffer; ints or numpy arrays
    (broadcast). Indices may reach into the fractal padding; beyond it is an IndexError."""
    return geometry(layout, shape, elem, space).offset(row, col)


def pack(logical: np.ndarray, layout: str, elem: str, space: str) -> np.ndarray:
    """Physical array of `layout` holding `logical` (same dtype), padding zero-filled."""
    logical = np.asarray(logical)
    return geometry(layout, tuple(logical.shape), elem, space).pack(logical)


def unpack(
    physical: np.ndarray, layout: str, shape: tuple[int, ...], elem: str, space: str
) -> np.ndarray:
    """Logical array of `shape` read back from a physical array of `layout`."""
    return geometry(layout, shape, elem, space).unpack(physical)


def blocked_view(physical: np.ndarray, layout: str) -> np.ndarray:
    """A 4-D numpy view (no copy) [r1, r0, c1, c0] of `physical`, so that padded-logical element
    (r, c) is `view[r // fr, r % fr, c // fc, c % fc]` with the fractal (fr, fc).

    Fractal layouts take the 4-D physical array; the fractal size is read from its inner dims.
    nd takes (R, C) (or 1-D (N,), seen as 1 x N) and gives shape (R, 1, C, 1);
    dn takes (C, R) and gives (R, 1, C, 1) through a transpose. Writes through the view reach
    `physical`."""
    _check_layout(layout)
    if layout == "nd":
        if physical.ndim == 1:
            return physical[None, None, :, None]
        if physical.ndim != 2:
            raise ValueError(f"nd physical array must be 1-D or 2-D, got shape {physical.shape}")
        return physical[:, None, :, None]
    if layout == "dn":
        if physical.ndim != 2:
            raise ValueError(f"dn physical array must be 2-D, got shape {physical.shape}")
        return physical.T[:, None, :, None]
    if physical.ndim != 4:
        raise ValueError(f"{layout} physical array must be 4-D, got shape {physical.shape}")
    outer_n, inner_n = _ORDER[layout]
    r1_ax, c1_ax = (1, 0) if outer_n else (0, 1)
    r0_ax, c0_ax = (3, 2) if inner_n else (2, 3)
    return physical.transpose(r1_ax, r0_ax, c1_ax, c0_ax)


# --------------------------------------------------------------------------------------------
# 4-bit storage
# --------------------------------------------------------------------------------------------


def pack_nibbles(values: np.ndarray) -> np.ndarray:
    """Pack 4-bit values (any integer-convertible dtype, e.g. ml_dtypes.int4) two per byte,
    element 2i in the low nibble of byte i [open: assumed little-nibble order]. An odd count is
    padded with a zero nibble. Returns a 1-D uint8 array."""
    flat = np.asarray(values).reshape(-1).astype(np.int8).view(np.uint8) & 0x0F
    if flat.size % 2:
        flat = np.concatenate([flat, np.zeros(1, dtype=np.uint8)])
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)


def unpack_nibbles(data: np.ndarray, count: int, signed: bool = True) -> np.ndarray:
    """Inverse of `pack_nibbles`: the first `count` 4-bit values of uint8 `data` as int8
    (sign-extended when `signed`, else 0..15)."""
    b = np.asarray(data, dtype=np.uint8).reshape(-1)
    nib = np.empty(b.size * 2, dtype=np.uint8)
    nib[0::2] = b & 0x0F
    nib[1::2] = b >> 4
    nib = nib[:count].astype(np.int8)
    if signed:
        nib = np.where(nib >= 8, nib - 16, nib).astype(np.int8)
    return nib
