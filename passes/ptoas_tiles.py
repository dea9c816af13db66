"""The PTOAS tile types and names as mmair's: a `!pto.tile_buf` as a `!pto.tile` (space from loc,
layout from blayout / slayout, one-row tiles as rows), PTOAS element types, target_arch and pipe
names, and the conversion's error (shared by `ptoas-to-mmair` and its VPTO, FP and shape parts)."""

from __future__ import annotations

from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException

from mmair.dialects import pto
from mmair.dialects.ptoas.types import PACKED_ELEMENTS, F8E8M0Type, TileBufType
from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend.targets import ELEMENT_TYPES, get_target

# tile_buf loc -> mmair space (PTOAS's TileBufType; legacy `ub` still read as vec).
LOC_SPACE = {"mat": "l1", "left": "l0a", "right": "l0b", "acc": "l0c", "bias": "bt",
             "scaling": "fb", "vec": "ub", "ub": "ub"}

# (blayout, slayout) -> mmair layout: the outer block order and the order inside a 512 B fractal.
BOX_LAYOUT = {("col_major", "row_major"): "nz", ("row_major", "row_major"): "zz",
              ("row_major", "col_major"): "zn", ("col_major", "col_major"): "nn",
              ("row_major", "none_box"): "nd", ("col_major", "none_box"): "dn"}

# target_arch -> mmair target: A3 (Atlas A3 / 910C) has the A2 cube (mmair.isa.ascend.targets).
TARGET_ARCH = {"a2": "a2", "a3": "a2", "a2a3": "a2", "a5": "a5"}  # a2a3: one build for both

PIPES = {"PIPE_S": "s", "PIPE_V": "v", "PIPE_M": "m", "PIPE_MTE1": "mte1", "PIPE_MTE2": "mte2",
         "PIPE_MTE3": "mte3", "PIPE_FIX": "fix", "PIPE_ALL": "all"}


class ConversionError(DiagnosticException):
    """A PTOAS construct mmair cannot express; `op` is the PTOAS op (for its location)."""

    def __init__(self, op: Operation, message: str):
        super().__init__(f"'{op.name}' op {message}")
        self.op = op


def tile_of(op: Operation, tile: TileBufType, target: str = "a2") -> pto.TileType:
    """The mmair tile a tile_buf is: space from loc, layout from blayout/slayout, valid shape
    (v_row x v_col, PTOAS's valid region) when given, else rows x cols."""
    loc = tile.get("loc")
    if loc not in LOC_SPACE:
        raise ConversionError(op, f"requires tile_buf loc in [{', '.join(LOC_SPACE)}], got {loc}")
    rows, cols = tile.get("rows"), tile.get("cols")
    if not isinstance(rows, int) or not isinstance(cols, int) or rows < 0 or cols < 0:
        raise ConversionError(op, f"requires static tile_buf rows and cols, got {rows}x{cols}")
    dtype = tile.get("dtype")
    if not isinstance(dtype, Attribute):
        raise ConversionError(op, "requires a tile_buf dtype")
    dtype = element_of(op, dtype)
    # compact (PTOAttrs.td CompactMode: 0 null, 1 normal, 2 row_plus_one) is how pto-isa packs a
    # partial L0 tile's bytes; mmair's moves and mads agree on the values of the valid region
    # either way (inferred, docs/ptoas.md), the row-plus-one padding is not modelled
    compact = tile.get("compact")
    if compact not in (None, 0, 1):
        raise ConversionError(op, f"requires tile_buf compact in [0, 1] (null, normal), got "
                                  f"{compact}")
    defaults = {"mat": ("col_major", "row_major"), "left": ("row_major", "row_major"),
                "right": ("row_major", "col_major"), "acc": ("col_major", "row_major")}
    blayout, slayout = defaults.get(loc, ("row_major", "none_box"))
    blayout = tile.get("blayout") or blayout
    slayout = tile.get("slayout") or slayout
    layout = BOX_LAYOUT.get((blayout, slayout))
    if layout is None:
        raise ConversionError(
            op, f"requires (blayout, slayout) in [{', '.join(f'{b}/{s}' for b, s in BOX_LAYOUT)}], "
                f"got {blayout}/{slayout}")
    if loc == "left" and slayout != "none_box":
        # PTOAS writes one left tile for every arch; its fractal order is the arch's
        # (NZ on A5, ZZ before: the NZ-fractal page, docs/isa/micro-isa/16-cube-matmul.md).
        # A none_box left tile is a GEMV row (mmair's nd L0A vector; inferred, docs/ptoas.md).
        layout = get_target(target).l0a_layout
    if LOC_SPACE[loc] in ("bt", "fb", "ub") and rows == 1:
        return pto.TileType(LOC_SPACE[loc], [cols], dtype, "nd")
    if loc in ("mat", "left") and rows == 1 and slayout != "none_box":
        # A one-row fractal tile is its row, contiguous: pto-isa's Tile exempts Rows == 1 from
        # "rows must be divisible by inner box rows" and sizes it Rows x Cols (pto_tile.hpp),
        # and TLOAD's ND2NZ writes it with dstNzC0Stride = Rows = 1 (PTOAS's tgemv ST places
        # a 1x256 f16 mat tile in the 512 bytes before the next one). That row is what a GEMV
        # mad reads from L0A (Ascend C Mmad: "reads data from the L0A Buffer in ND format"), so
        # it is mmair's nd vector (an L1 1 x cols nd tile, the L0A GEMV row).
        return pto.TileType(LOC_SPACE[loc], [cols] if loc == "left" else [1, cols], dtype, "nd")
    return pto.TileType(LOC_SPACE[loc], [rows, cols], dtype, layout)


def element_of(op: Operation, element: Attribute) -> Attribute:
    """The mmair element type of a PTOAS one: `!pto.f8E8M0` is builtin f8E8M0FNU, the packed
    pairs are refused (mmair keeps one value per element), the rest are mmair's already."""
    if isinstance(element, F8E8M0Type):
        from xdsl.dialects.builtin import Float8E8M0FNUType

        return Float8E8M0FNUType()
    if isinstance(element, PACKED_ELEMENTS):
        raise ConversionError(
            op, f"requires an unpacked element type in [{', '.join(ELEMENT_TYPES)}], got "
                f"{element} (a packed pair of two values in one element, which mmair does not "
                f"model)")
    if element_name_or_none(element) is None:
        raise ConversionError(op, f"requires an element type in [{', '.join(ELEMENT_TYPES)}], "
                                  f"got {element}")
    return element
