"""The `!pto.tile` type: an on-chip buffer of the AI Core (L1, L0A, L0B, L0C, UB, BT, FB).

A tile's layout (nd, dn, nz, zz, zn, nn) fixes the physical fractal factorization of its logical
shape; which layouts a space may hold depends on the space (and for L0A on the target). The
factorizations and element widths come from `mmair.isa.ascend`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import prod

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend import layouts as isa_layouts
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target

TARGET_ATTR = "pto.target"

TILE_SPACES: tuple[str, ...] = tuple(s for s in isa.SPACES if s != "gm")

# Layouts a buffer may hold, per space (docs/design.md, "Ascend: memory spaces and tiles"). L0A is
# target-dependent (`Target.l0a_layout`, plus nd for a GEMV vector): `legal_layouts` fills it in.
_SPACE_LAYOUTS: dict[str, tuple[str, ...]] = {
    "l1": ("nz", "zz", "nd"),
    "l0b": ("zn",),
    "l0c": ("nz",),
    "ub": ("nd",),
    "bt": ("nd",),
    "fb": ("nd",),
}


def legal_layouts(space: str, target: Target) -> tuple[str, ...]:
    """The layouts a tile in `space` may have on `target`."""
    if space == "l0a":
        return (target.l0a_layout, "nd")
    return _SPACE_LAYOUTS[space]


def _fmt_shape(shape: Iterable[int]) -> str:
    return "x".join("?" if d < 0 else str(d) for d in shape)  # negative = dynamic extent


def _fmt_set(items: Iterable[object]) -> str:
    return "[" + ", ".join(str(i) for i in sorted(items, key=str)) + "]"



# ----------------------------------------------------------------------------------------------
# Tile type
# ----------------------------------------------------------------------------------------------


def _tile_problem(space: str, shape: Sequence[int], element: Attribute, layout: str) -> str | None:
    """Why (space, shape, element, layout) is not a tile type, or None if it is one."""
    if space not in TILE_SPACES:
        return f"requires space in {_fmt_set(TILE_SPACES)}, got {space}"
    if layout not in isa_layouts.LAYOUTS:
        return f"requires layout in {_fmt_set(isa_layouts.LAYOUTS)}, got {layout}"
    if len(shape) not in (1, 2) or (len(shape) == 1 and layout != "nd"):
        return f"requires a 2-D shape (1-D only with layout nd), got {_fmt_shape(shape)} with {layout}"
    if any(d <= 0 for d in shape):
        return f"requires static positive extents, got {_fmt_shape(shape)}"
    elem = element_name_or_none(element)
    if elem is None or elem not in isa.ELEMENT_TYPES:
        return f"requires an element type with an isa name, got {element}"
    try:
        isa_layouts.physical_shape(layout, tuple(shape), elem, space)
    except ValueError as err:
        return f"requires an element type that tiles layout {layout}: {err}"
    return None


@irdl_attr_definition
class TileType(ParametrizedAttribute, TypeAttribute):
    """An on-chip buffer: `!pto.tile<SPACE, RxCxELT, LAYOUT>` (optionally `, P0xP1xP2xP3`).

    The logical shape is what the data mean (A is M x K); the physical factorization is derived
    from layout, element type and space. A written factorization is checked against the derived
    one when parsing and then dropped, so equal tiles compare equal.
    """

    name = "pto.tile"

    space: StringAttr
    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    layout: StringAttr

    def __init__(
        self,
        space: str | StringAttr,
        shape: Sequence[int] | ArrayAttr[IntAttr],
        element_type: Attribute,
        layout: str | StringAttr,
    ) -> None:
        if isinstance(space, str):
            space = StringAttr(space)
        if not isinstance(shape, ArrayAttr):
            shape = ArrayAttr([IntAttr(d) for d in shape])
        if isinstance(layout, str):
            layout = StringAttr(layout)
        super().__init__(space, shape, element_type, layout)

    # -- convenience ------------------------------------------------------------------------

    @property
    def space_name(self) -> str:
        return self.space.data

    @property
    def logical_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def layout_name(self) -> str:
        return self.layout.data

    @property
    def element_name(self) -> str:
        """The isa name of the element type (`f16`, `s8`, `u16`, `hif8`, ...)."""
        name = element_name_or_none(self.element_type)
        assert name is not None, "verified tile types have an isa element name"
        return name

    @property
    def element_bits(self) -> int:
        return isa.element_bits(self.element_name)

    @property
    def matrix_shape(self) -> tuple[int, int]:
        """Logical (rows, cols); a 1-D tile (N) is one row (1, N)."""
        shape = self.logical_shape
        return (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])

    def physical_shape(self) -> tuple[int, ...]:
        return isa_layouts.physical_shape(
            self.layout_name, self.logical_shape, self.element_name, self.space_name
        )

    def padded_shape(self) -> tuple[int, int]:
        """(rows, cols) rounded up to whole fractals."""
        return isa_layouts.padded_shape(
            self.layout_name, self.logical_shape, self.element_name, self.space_name
        )

    def fractal_shape(self) -> tuple[int, int]:
        """Logical rows x cols of one fractal ((1, 1) for nd/dn)."""
        return isa_layouts.fractal_shape(self.layout_name, self.element_name, self.space_name)

    def footprint_bytes(self) -> int:
        return isa_layouts.footprint_bytes(
            self.layout_name, self.logical_shape, self.element_name, self.space_name
        )

    def num_elements(self) -> int:
        return prod(self.logical_shape)

    # -- verification and syntax --------------------------------------------------------------

    def verify(self) -> None:
        problem = _tile_problem(
            self.space_name, self.logical_shape, self.element_type, self.layout_name
        )
        if problem is not None:
            raise VerifyException(f"'!pto.tile' {problem}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            space = parser.parse_identifier(" for the space name")
            parser.parse_punctuation(",")
            dims, element = parser.parse_ranked_shape()
            parser.parse_punctuation(",")
            layout = parser.parse_identifier(" for the layout name")
            problem = _tile_problem(space, dims, element, layout)
            if problem is not None:
                parser.raise_error(f"'!pto.tile' {problem}", start, parser.pos)
            if parser.parse_optional_punctuation(",") is not None:
                at = parser.pos
                written = tuple(parser.parse_dimension_list())
                elem = element_name_or_none(element)
                assert elem is not None
                derived = isa_layouts.physical_shape(layout, tuple(dims), elem, space)
                if written != derived:
                    parser.raise_error(
                        f"'!pto.tile' requires physical factorization {_fmt_shape(derived)} "
                        f"({layout} of {_fmt_shape(dims)}x{element} in {space}), "
                        f"got {_fmt_shape(written)}",
                        at,
                        parser.pos,
                    )
        return [
            StringAttr(space),
            ArrayAttr([IntAttr(d) for d in dims]),
            element,
            StringAttr(layout),
        ]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.space_name}, {_fmt_shape(self.logical_shape)}x")
            printer.print_attribute(self.element_type)
            printer.print_string(f", {self.layout_name}")
