"""The `pto` dialect: the Ascend AI Core cube pipeline and the vector GatherMask instruction.

The cube unit multiplies matrices held in on-chip buffers in "fractal" layouts:

    GM --mte_gm_l1 (ND2NZ)--> L1 --mte_l1_l0a/l0b (LoadData)--> L0A / L0B --mad--> L0C
    L0C --fixpipe (quant, ReLU, NZ2ND/NZ2NZ/NZ2DN)--> GM / L1 / UB

and the vector unit's GatherMask compacts the elements of a UB buffer selected by a bit pattern.
GM data are builtin memrefs (no memory space); every on-chip buffer has the type
`!pto.tile<SPACE, RxCxELT, LAYOUT>`, whose layout (nd, dn, nz, zz, zn, nn) fixes the physical
factorization (docs/design.md, reference ascend-cube.md §3-§4).

Sizes the hardware reads from registers are `index` operands; a size is *static* when an
`arith.constant` defines it. The verifiers check the static values and everything the types say
against the target named by the enclosing module's `pto.target` attribute (default `a2`); the
executor checks runtime values. Every hardware fact (capacities, alignments, type tables, ranges,
fractal shapes) comes from `mmair.isa.ascend`; this module only applies them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    eq,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.types import HiF8Type, element_name_or_none
from mmair.isa.ascend import gather
from mmair.isa.ascend import layouts as isa_layouts
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target

TARGET_ATTR = "pto.target"
Value = SSAValue | Operation  # what op constructors take for an operand
TILE_SPACES: tuple[str, ...] = tuple(s for s in isa.SPACES if s != "gm")

# Layouts a buffer may hold, per space (reference §4, docs/design.md). L0A is target-dependent
# (`Target.l0a_layout`, plus nd for a GEMV vector) and is filled in by `legal_layouts`.
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
            space = parser.parse_identifier("space name")
            parser.parse_punctuation(",")
            dims, element = parser.parse_ranked_shape()
            parser.parse_punctuation(",")
            layout = parser.parse_identifier("layout name")
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


# ----------------------------------------------------------------------------------------------
# Shared verifier helpers
# ----------------------------------------------------------------------------------------------


def _error(op: Operation, text: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {text}")


def target_of(op: Operation) -> Target:
    """The target named by the nearest enclosing `builtin.module` with a `pto.target` attribute
    (default `a2`); an unknown name is a `VerifyException` listing the legal targets."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp) and TARGET_ATTR in current.attributes:
            attr = current.attributes[TARGET_ATTR]
            name = attr.data if isinstance(attr, StringAttr) else str(attr)
            try:
                return isa.get_target(name)
            except isa.UnknownTargetError:
                raise _error(
                    op, f"requires {TARGET_ATTR} in {_fmt_set(isa.TARGET_NAMES)}, got {attr}"
                ) from None
        current = current.parent_op()
    return isa.get_target(isa.DEFAULT_TARGET)


def static_value(value: SSAValue | None) -> int | None:
    """The integer defined by an `arith.constant` with an IntegerAttr, else None (runtime value)."""
    if value is None:
        return None
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _static_in_range(
    op: Operation, field: str, value: SSAValue | None, bounds: tuple[int, int]
) -> int | None:
    """The static value of `field`, after checking it is positive (G3) and in range (G4)."""
    v = static_value(value)
    if v is None:
        return None
    lo, hi = bounds
    if lo >= 1 and v <= 0:
        raise _error(op, f"requires {field} to be positive, got {v}")
    if not lo <= v <= hi:
        raise _error(op, f"requires {field} in [{lo}, {hi}], got {v}")
    return v


def _check_space_exists(op: Operation, space: str, target: Target) -> None:
    if not target.has_space(space):
        raise _error(op, f"{space} buffer is not supported on target {target.name}")


def _check_layout(op: Operation, role: str, tile: TileType, target: Target) -> None:
    """The tile's space exists on the target and its layout is legal there (L0A zz/nz, ...)."""
    space = tile.space_name
    _check_space_exists(op, space, target)
    legal = legal_layouts(space, target)
    if tile.layout_name not in legal:
        raise _error(
            op,
            f"requires {role} layout in {_fmt_set(legal)} for {space} on target {target.name}, "
            f"got {tile.layout_name}",
        )
    if space == "l0a" and tile.layout_name == "nd" and tile.matrix_shape[0] != 1:
        raise _error(
            op,
            f"requires {role} nd layout in l0a only for a 1-row GEMV vector, "
            f"got {_fmt_shape(tile.logical_shape)}",
        )


def _tile_in(op: Operation, role: str, value: SSAValue, spaces: Sequence[str]) -> TileType:
    """The tile type of `value`, checked to live in one of `spaces` (G1)."""
    t = value.type
    if not isinstance(t, TileType):
        raise _error(op, f"requires {role} to be a !pto.tile in {'/'.join(spaces)}, got {t}")
    if t.space_name not in spaces:
        raise _error(op, f"requires {role} in {'/'.join(spaces)}, got {t.space_name}")
    return t


def _gm_memref(op: Operation, role: str, value: SSAValue) -> MemRefType:
    """The memref type of a GM operand (a memref without memory space) (G1)."""
    t = value.type
    if not isinstance(t, MemRefType):
        raise _error(op, f"requires {role} in gm (a memref), got {t}")
    if not isinstance(t.memory_space, NoneAttr):
        raise _error(op, f"requires {role} in gm (a memref without memory space), got {t.memory_space}")
    return t


def _memref_element(op: Operation, role: str, t: MemRefType) -> str:
    elem = element_name_or_none(t.element_type)
    if elem is None:
        raise _error(op, f"requires {role} element type with an isa name, got {t.element_type}")
    return elem


def _check_widths(op: Operation, src: str, dst: str) -> None:
    """G7: moves copy bytes, so both sides need the same element width."""
    sb, db = isa.element_bits(src), isa.element_bits(dst)
    if sb != db:
        raise _error(
            op,
            "requires source and destination element byte widths to match, "
            f"got {src} ({sb} bits) and {dst} ({db} bits)",
        )


def _check_covers(
    op: Operation, role: str, tile: TileType, need: tuple[int | None, int | None], names: str
) -> None:
    """M4: the tile's logical (rows, cols) hold the static extents `need` (None = runtime)."""
    have = tile.matrix_shape
    if any(n is not None and n > h for n, h in zip(need, have, strict=True)):
        shown = "x".join("?" if n is None else str(n) for n in need)
        raise _error(
            op, f"requires {role} tile of at least {shown} ({names}), got {_fmt_shape(have)}"
        )


def _memref_dims(t: MemRefType) -> tuple[int | None, ...]:
    return tuple(None if d < 0 else d for d in t.get_shape())


def _check_memref_covers(
    op: Operation, role: str, t: MemRefType, need: tuple[int | None, int | None], names: str
) -> None:
    """A 2-D GM memref holds `need` rows x cols, and its row pitch is at least `need` cols."""
    if t.get_num_dims() != 2:
        raise _error(op, f"requires {role} memref of rank 2, got rank {t.get_num_dims()}")
    rows, cols = _memref_dims(t)
    strides = t.get_strides()
    pitch = strides[0] if strides is not None else None
    if pitch is not None and pitch < 0:  # derived from a dynamic extent
        pitch = None
    if need[0] is not None and rows is not None and need[0] > rows:
        raise _error(op, f"requires {role} of at least {need[0]} rows ({names}), got {rows}")
    if need[1] is not None and cols is not None and need[1] > cols:
        raise _error(op, f"requires {role} of at least {need[1]} columns ({names}), got {cols}")
    if need[1] is not None and pitch is not None and pitch < need[1]:
        raise _error(op, f"requires {role} row pitch >= {need[1]} ({names}), got {pitch}")


def _check_op_alignment(op: Operation, role: str, value: SSAValue, align: int) -> None:
    """G5 for op-level alignments stricter than the space's: a tile placed by `pto.alloc` at a
    static offset must start on a multiple of `align` bytes."""
    owner = value.owner
    if isinstance(owner, AllocOp) and owner.offset is not None:
        offset = owner.offset.value.data
        if offset % align:
            raise _error(op, f"requires {role} offset aligned to {align} bytes, got {offset}")


# ----------------------------------------------------------------------------------------------
# Buffers
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Allocate a tile in its on-chip space, optionally at an explicit byte `offset`."""

    name = "pto.alloc"

    offset = opt_prop_def(IntegerAttr[IntegerType])
    buffer = result_def(TileType)

    traits = traits_def(MemoryAllocEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($buffer)"

    def __init__(self, tile: TileType, offset: int | None = None) -> None:
        super().__init__(
            result_types=[tile],
            properties={"offset": None if offset is None else IntegerAttr(offset, i64)},
        )

    def verify_(self) -> None:
        target = target_of(self)
        tile = self.buffer.type
        assert isinstance(tile, TileType)
        _check_layout(self, "buffer", tile, target)
        space = tile.space_name
        offset = 0 if self.offset is None else self.offset.value.data
        align = target.alignment[space]
        if offset < 0 or offset % align:
            raise _error(
                self, f"requires {space} offset aligned to {align} bytes, got {offset}"
            )
        capacity = target.capacity[space]
        assert capacity is not None
        end = offset + tile.footprint_bytes()
        if end > capacity:
            raise _error(
                self,
                f"requires {space} footprint <= {capacity} bytes on target {target.name}, "
                f"got {end} (offset {offset} + {tile.footprint_bytes()})",
            )


@irdl_op_definition
class ReinterpretOp(IRDLOperation):
    """View a tile's bytes with another type of the same space, physical shape, element width
    and layout (e.g. f16 <-> bf16 or u16); another factorization of an NZ buffer is an error."""

    name = "pto.reinterpret"

    source = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(NoMemoryEffect())  # a view: reads and writes nothing by itself
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue | Operation, result_type: TileType) -> None:
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.space_name != dst.space_name:
            raise _error(
                self, f"requires result in {src.space_name} (the source space), got {dst.space_name}"
            )
        if src.layout_name != dst.layout_name:
            raise _error(
                self,
                f"requires result layout {src.layout_name} (the source factorization), "
                f"got {dst.layout_name}",
            )
        if src.element_bits != dst.element_bits:
            raise _error(
                self,
                f"requires result element width {src.element_bits} bits (the source width), "
                f"got {dst.element_bits}",
            )
        if src.physical_shape() != dst.physical_shape():
            raise _error(
                self,
                f"requires result physical shape {_fmt_shape(src.physical_shape())} "
                f"(the source's), got {_fmt_shape(dst.physical_shape())}",
            )
        _check_layout(self, "result", dst, target_of(self))


# ----------------------------------------------------------------------------------------------
# Cube data movement
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class MteGmL1Op(IRDLOperation):
    """GM -> L1 with ND2NZ (or, `dn2nz`, DN2NZ: GM holds the transpose): dst[0:rows, 0:cols].

    A 1-D src memref (a GEMV vector or a bias row) is one row: it needs an nd dst and rows = 1."""

    name = "pto.mte_gm_l1"

    src = operand_def(MemRefType)
    dst = operand_def(TileType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    dn2nz = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $dst `,` $rows `,` $cols (`dn2nz` $dn2nz^)? attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        rows: SSAValue | Operation,
        cols: SSAValue | Operation,
        dn2nz: bool = False,
    ) -> None:
        super().__init__(
            operands=[src, dst, rows, cols],
            properties={"dn2nz": UnitAttr() if dn2nz else None},
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.nd2nz:
            raise _error(self, f"mte_gm_l1 (nd2nz) is not supported on target {target.name}")
        dn = self.dn2nz is not None
        if dn and not target.dn2nz:
            raise _error(self, f"dn2nz is not supported on target {target.name}")
        src = _gm_memref(self, "src", self.src)
        dst = _tile_in(self, "dst", self.dst, ("l1",))
        _check_layout(self, "dst", dst, target)
        src_elem = _memref_element(self, "src", src)
        if dst.element_name not in target.nd2nz_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(target.nd2nz_types)} on target "
                f"{target.name}, got {dst.element_name}",
            )
        _check_widths(self, src_elem, dst.element_name)
        ranges = target.nd2nz_ranges(dn)
        rows = _static_in_range(self, "rows", self.rows, ranges["n_value"])
        cols = _static_in_range(self, "cols", self.cols, ranges["d_value"])
        _check_covers(self, "dst", dst, (rows, cols), "rows x cols")
        if src.get_num_dims() == 1 and not dn and dst.layout_name == "nd":
            # A 1-D vector (GEMV operand, bias) is one row of an nd tile.
            if rows is not None and rows != 1:
                raise _error(self, f"requires rows = 1 for a 1-D src memref, got {rows}")
            (length,) = _memref_dims(src)
            if cols is not None and length is not None and cols > length:
                raise _error(
                    self, f"requires src of at least {cols} elements (cols), got {length}"
                )
        elif dn:
            _check_memref_covers(self, "src", src, (cols, rows), "dn2nz: cols x rows")
        else:
            _check_memref_covers(self, "src", src, (rows, cols), "rows x cols")


class _MteL1L0Base(IRDLOperation):
    """Shared verifier of `mte_l1_l0a` / `mte_l1_l0b` (LoadData of whole fractals)."""

    DST_SPACE: ClassVar[str]
    SIZE_NAMES: ClassVar[tuple[str, str]]  # the dst's (rows, cols) operands

    # Operands (src, src_row, src_col, dst, two sizes) and `transpose` are declared in each
    # subclass: xDSL puts a subclass's own fields before inherited ones.

    def _sizes(self) -> tuple[SSAValue, SSAValue]:
        raise NotImplementedError

    def _hardware_transposes(self) -> bool:
        raise NotImplementedError

    def verify_(self) -> None:
        target = target_of(self)
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, (self.DST_SPACE,))
        _check_layout(self, "src", src, target)
        _check_layout(self, "dst", dst, target)
        _check_widths(self, src.element_name, dst.element_name)
        if dst.element_name not in target.load2d_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(target.load2d_types)} on target "
                f"{target.name}, got {dst.element_name}",
            )
        transpose = self.transpose is not None
        gemv = dst.layout_name == "nd"
        if gemv and (src.layout_name != "nd" or transpose):
            raise _error(
                self,
                f"requires an nd src without transpose for an nd (GEMV) dst, "
                f"got {src.layout_name}{' with transpose' if transpose else ''}",
            )
        if not gemv and src.layout_name not in ("nz", "zz"):
            raise _error(
                self,
                f"requires src layout in [nz, zz] for a {dst.layout_name} dst, got {src.layout_name}",
            )
        if (self.src_row is None) != (self.src_col is None):
            raise _error(self, "requires both src_row and src_col, or neither")
        rname, cname = self.SIZE_NAMES
        rows_v, cols_v = self._sizes()
        rows = _static_in_range(self, rname, rows_v, isa.MMAD_MNK_RANGE)
        cols = _static_in_range(self, cname, cols_v, isa.MMAD_MNK_RANGE)
        if gemv and rows is not None and rows != 1:
            raise _error(self, f"requires {rname} = 1 for an nd (GEMV) dst, got {rows}")
        _check_covers(self, "dst", dst, (rows, cols), f"{rname} x {cname}")
        # Whole fractals move, so a source start lies on a fractal boundary.
        fr, fc = src.fractal_shape()
        start: list[int | None] = []
        for field, value, unit in (("src_row", self.src_row, fr), ("src_col", self.src_col, fc)):
            v = static_value(value)
            if v is not None and (v < 0 or v % unit):
                raise _error(
                    self, f"requires {field} to be a non-negative multiple of {unit}, got {v}"
                )
            start.append(0 if value is None else v)
        # The source holds the operand, or with `transpose` its transpose.
        extent = (cols, rows) if transpose else (rows, cols)
        need = tuple(
            None if e is None or s is None else s + e for s, e in zip(start, extent, strict=True)
        )
        names = f"{cname} x {rname}" if transpose else f"{rname} x {cname}"
        _check_covers(self, "src", src, (need[0], need[1]), f"start + {names}")
        if self._hardware_transposes():
            self._check_transpose(src, dst, target)

    def _check_transpose(self, src: TileType, dst: TileType, target: Target) -> None:
        """L2: the target can transpose this element width, in whole transpose blocks."""
        bits = src.element_bits
        if bits not in target.transpose_bits:
            raise _error(
                self,
                f"requires a fractal transpose of {bits}-bit elements ({src.element_name}) "
                f"for this {src.layout_name} -> {dst.layout_name} move, which is not supported "
                f"on target {target.name} (transposable widths {_fmt_set(target.transpose_bits)})",
            )
        block = isa.TRANSPOSE_BLOCK_ELEMENTS[bits]
        for role, tile in (("src", src), ("dst", dst)):
            padded = tile.padded_shape()
            if any(d % block for d in padded):
                raise _error(
                    self,
                    f"transpose requires {role} padded extents to be multiples of {block} "
                    f"for {tile.element_name}, got {_fmt_shape(padded)}",
                )


@irdl_op_definition
class MteL1L0AOp(_MteL1L0Base):
    """L1 -> L0A: dst[0:m, 0:k] = src[row + i, col + j] (`transpose`: src holds A^T)."""

    name = "pto.mte_l1_l0a"
    DST_SPACE: ClassVar[str] = "l0a"
    SIZE_NAMES: ClassVar[tuple[str, str]] = ("m", "k")

    src = operand_def(TileType)
    src_row = opt_operand_def(IndexType)
    src_col = opt_operand_def(IndexType)
    dst = operand_def(TileType)
    m = operand_def(IndexType)
    k = operand_def(IndexType)
    transpose = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src (`[` $src_row^ `,` $src_col `]`)? `,` $dst `,` $m `,` $k "
        "(`transpose` $transpose^)? attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        m: SSAValue | Operation,
        k: SSAValue | Operation,
        start: tuple[SSAValue | Operation, SSAValue | Operation] | None = None,
        transpose: bool = False,
    ) -> None:
        row, col = ([start[0]], [start[1]]) if start is not None else ([], [])
        super().__init__(
            operands=[src, row, col, dst, m, k],
            properties={"transpose": UnitAttr() if transpose else None},
        )

    def _sizes(self) -> tuple[SSAValue, SSAValue]:
        return self.m, self.k

    def _hardware_transposes(self) -> bool:
        return self.transpose is not None


@irdl_op_definition
class MteL1L0BOp(_MteL1L0Base):
    """L1 -> L0B (zn): dst[0:k, 0:n] = src[row + i, col + j] (`transpose`: src holds B^T).

    Without `transpose` each fractal is transposed on the way (B in L1 zz or nz -> zn)."""

    name = "pto.mte_l1_l0b"
    DST_SPACE: ClassVar[str] = "l0b"
    SIZE_NAMES: ClassVar[tuple[str, str]] = ("k", "n")

    src = operand_def(TileType)
    src_row = opt_operand_def(IndexType)
    src_col = opt_operand_def(IndexType)
    dst = operand_def(TileType)
    k = operand_def(IndexType)
    n = operand_def(IndexType)
    transpose = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src (`[` $src_row^ `,` $src_col `]`)? `,` $dst `,` $k `,` $n "
        "(`transpose` $transpose^)? attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        k: SSAValue | Operation,
        n: SSAValue | Operation,
        start: tuple[SSAValue | Operation, SSAValue | Operation] | None = None,
        transpose: bool = False,
    ) -> None:
        row, col = ([start[0]], [start[1]]) if start is not None else ([], [])
        super().__init__(
            operands=[src, row, col, dst, k, n],
            properties={"transpose": UnitAttr() if transpose else None},
        )

    def _sizes(self) -> tuple[SSAValue, SSAValue]:
        return self.k, self.n

    def _hardware_transposes(self) -> bool:
        # B in L1 (zz / nz, fractals 16 x c0) becomes zn (c0 x 16): a per-fractal transpose.
        # A transposed B (Nz of B^T) is already zn inside each fractal.
        return self.transpose is None


@irdl_op_definition
class MteL1BtOp(IRDLOperation):
    """L1 -> BT (bias table): dst[0, 0:n] = src[0, 0:n], the bias row `mad_bias` reads.

    Ascend C stages a bias GM -> L1 (DataCopy into the C1 position) -> BT (DataCopy into C2);
    mmair keeps the element type, which is the Mmad bias type (f32, or s32 for integer inputs)."""

    name = "pto.mte_l1_bt"

    src = operand_def(TileType)
    dst = operand_def(TileType)
    n = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$src `,` $dst `,` $n attr-dict `:` type($src) `,` type($dst)"

    def __init__(self, src: Value, dst: Value, n: Value) -> None:
        super().__init__(operands=[src, dst, n])

    def verify_(self) -> None:
        target = target_of(self)
        if not target.mmad_bias:
            raise _error(self, f"mte_l1_bt is not supported on target {target.name}")
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, ("bt",))
        _check_layout(self, "src", src, target)
        _check_layout(self, "dst", dst, target)
        if src.layout_name != "nd":
            raise _error(self, f"requires src layout nd (a bias row), got {src.layout_name}")
        if dst.element_name != src.element_name:
            raise _error(
                self,
                f"requires dst element type {src.element_name} (the src type), "
                f"got {dst.element_name}",
            )
        bias_types = {d for _a, _b, d in target.mmad_bias_types}
        if src.element_name not in bias_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(bias_types)} (the bias types) on target "
                f"{target.name}, got {src.element_name}",
            )
        n = _static_in_range(self, "n", self.n, isa.MMAD_MNK_RANGE)
        _check_covers(self, "src", src, (1, n), "1 x n")
        _check_covers(self, "dst", dst, (1, n), "1 x n")


# ----------------------------------------------------------------------------------------------
# Mmad
# ----------------------------------------------------------------------------------------------


class _MadBase(IRDLOperation):
    """Shared verifier of `mad`, `mad_acc` and `mad_bias`."""

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    dst = operand_def(TileType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def _bias(self) -> SSAValue | None:
        return None

    def verify_(self) -> None:
        target = target_of(self)
        lhs = _tile_in(self, "lhs", self.lhs, ("l0a",))
        rhs = _tile_in(self, "rhs", self.rhs, ("l0b",))
        dst = _tile_in(self, "dst", self.dst, ("l0c",))
        for role, tile in (("lhs", lhs), ("rhs", rhs), ("dst", dst)):
            _check_layout(self, role, tile, target)
        combo = (lhs.element_name, rhs.element_name, dst.element_name)
        if combo not in target.mmad_types:
            legal = ", ".join(f"({a}, {b}) -> {c}" for a, b, c in sorted(target.mmad_types))
            raise _error(
                self,
                f"requires (lhs, rhs) -> dst element types in [{legal}] on target "
                f"{target.name}, got ({combo[0]}, {combo[1]}) -> {combo[2]}",
            )
        m = _static_in_range(self, "m", self.m, isa.MMAD_MNK_RANGE)
        n = _static_in_range(self, "n", self.n, isa.MMAD_MNK_RANGE)
        k = _static_in_range(self, "k", self.k, isa.MMAD_MNK_RANGE)
        if lhs.layout_name == "nd" and m is not None and m != 1:
            raise _error(self, f"requires m = 1 for an nd (GEMV) lhs, got {m}")
        _check_covers(self, "lhs", lhs, (m, k), "m x k")
        _check_covers(self, "rhs", rhs, (k, n), "k x n")
        _check_covers(self, "dst", dst, (m, n), "m x n")
        _check_op_alignment(self, "dst", self.dst, isa.MMAD_DST_ALIGN)
        bias_value = self._bias()
        if bias_value is not None:
            if not target.mmad_bias:
                raise _error(self, f"mad_bias is not supported on target {target.name}")
            if combo not in target.mmad_bias_types:
                raise _error(
                    self,
                    f"requires an element type combination with a bias form on target "
                    f"{target.name}, got ({combo[0]}, {combo[1]}) -> {combo[2]}",
                )
            bias = _tile_in(self, "bias", bias_value, ("bt",))
            _check_layout(self, "bias", bias, target)
            if bias.element_name != dst.element_name:
                raise _error(
                    self,
                    f"requires bias element type to match dst element type {dst.element_name}, "
                    f"got {bias.element_name}",
                )
            _check_covers(self, "bias", bias, (1, n), "1 x n")


@irdl_op_definition
class MadOp(_MadBase):
    """C[0:m, 0:n] = A[0:m, 0:k] x B[0:k, 0:n] (Mmad with cmatrixInitVal)."""

    name = "pto.mad"
    assembly_format = (
        "$lhs `,` $rhs `,` $dst `,` $m `,` $n `,` $k attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst)"
    )

    def __init__(
        self, lhs: Value, rhs: Value, dst: Value, m: Value, n: Value, k: Value
    ) -> None:
        super().__init__(operands=[lhs, rhs, dst, m, n, k])


@irdl_op_definition
class MadAccOp(_MadBase):
    """C[0:m, 0:n] += A[0:m, 0:k] x B[0:k, 0:n]."""

    name = "pto.mad_acc"
    assembly_format = (
        "$lhs `,` $rhs `,` $dst `,` $m `,` $n `,` $k attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst)"
    )

    def __init__(
        self, lhs: Value, rhs: Value, dst: Value, m: Value, n: Value, k: Value
    ) -> None:
        super().__init__(operands=[lhs, rhs, dst, m, n, k])


@irdl_op_definition
class MadBiasOp(_MadBase):
    """C[0:m, 0:n] = A[0:m, 0:k] x B[0:k, 0:n] + bias[0, 0:n] (bias in BT)."""

    name = "pto.mad_bias"

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    dst = operand_def(TileType)
    bias = operand_def(TileType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)

    assembly_format = (
        "$lhs `,` $rhs `,` $dst `,` $bias `,` $m `,` $n `,` $k attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst) `,` type($bias)"
    )

    def __init__(
        self, lhs: Value, rhs: Value, dst: Value, bias: Value, m: Value, n: Value, k: Value
    ) -> None:
        super().__init__(operands=[lhs, rhs, dst, bias, m, n, k])

    def _bias(self) -> SSAValue | None:
        return self.bias


# ----------------------------------------------------------------------------------------------
# Fixpipe
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class FixpipeOp(IRDLOperation):
    """L0C (nz) -> GM / L1 / UB with quantization, ReLU and a layout transform."""

    name = "pto.fixpipe"

    src = operand_def(TileType)
    dst = operand_def(base(MemRefType) | base(TileType))
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    scalar = opt_operand_def(eq(i64))
    vector = opt_operand_def(TileType)

    layout = prop_def(StringAttr, default_value=StringAttr("nz2nd"))
    quant = prop_def(StringAttr, default_value=StringAttr("none"))
    relu = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `,` $dst `,` $m `,` $n (`scalar` $scalar^)? "
        "(`vector` $vector^ `:` type($vector))? attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        m: SSAValue | Operation,
        n: SSAValue | Operation,
        *,
        layout: str = "nz2nd",
        quant: str = "none",
        relu: bool = False,
        scalar: SSAValue | Operation | None = None,
        vector: SSAValue | Operation | None = None,
    ) -> None:
        super().__init__(
            operands=[src, dst, m, n, [] if scalar is None else [scalar], [] if vector is None else [vector]],
            properties={
                "layout": StringAttr(layout),
                "quant": StringAttr(quant),
                "relu": UnitAttr() if relu else None,
            },
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.has_fixpipe:
            raise _error(self, f"fixpipe is not supported on target {target.name}")
        src = _tile_in(self, "src", self.src, ("l0c",))
        _check_layout(self, "src", src, target)
        if src.element_name not in isa.FIXPIPE_SRC_TYPES:
            raise _error(
                self,
                f"requires src element type in {_fmt_set(isa.FIXPIPE_SRC_TYPES)}, "
                f"got {src.element_name}",
            )
        layout = self.layout.data
        if layout not in isa.FIXPIPE_LAYOUTS:
            raise _error(self, f"requires layout in {_fmt_set(isa.FIXPIPE_LAYOUTS)}, got {layout}")
        if layout == "nz2dn" and not target.nz2dn:
            raise _error(self, f"nz2dn is not supported on target {target.name}")

        dst_type = self.dst.type
        if isinstance(dst_type, MemRefType):
            _gm_memref(self, "dst", self.dst)
            dst_space = "gm"
            dst_elem = _memref_element(self, "dst", dst_type)
        else:
            dst_tile = _tile_in(self, "dst", self.dst, ("l1", "ub"))
            dst_space = dst_tile.space_name
            dst_elem = dst_tile.element_name
        if dst_space not in target.fixpipe_destinations:
            raise _error(self, f"fixpipe to {dst_space} is not supported on target {target.name}")

        pairs = target.fixpipe_types.get(dst_space, frozenset())
        if (src.element_name, dst_elem) not in pairs:
            raise _error(
                self,
                f"requires (src, dst) element types in "
                f"{_fmt_set(f'({a}, {b})' for a, b in pairs)} for fixpipe to {dst_space} on "
                f"target {target.name}, got ({src.element_name}, {dst_elem})",
            )
        self._verify_quant(target, dst_space, src.element_name, dst_elem)

        m = _static_in_range(self, "m", self.m, isa.FIXPIPE_M_SIZE_RANGE[layout])
        n = _static_in_range(self, "n", self.n, isa.FIXPIPE_N_SIZE_RANGE)
        # NZ output moves whole 16-column fractals; NZ2ND/NZ2DN convert per column (CCE Fixpipe:
        # the ND loop stops at j*16 + c < nSize), so any n is legal there.
        if layout == "nz2nz" and n is not None and n % isa.FIXPIPE_N_SIZE_MULTIPLE:
            raise _error(
                self,
                f"requires n to be a multiple of {isa.FIXPIPE_N_SIZE_MULTIPLE} for nz2nz, got {n}",
            )
        _check_covers(self, "src", src, (m, n), "m x n")
        self._verify_dst_shape(target, layout, m, n)
        if self.vector is not None:
            vec = _tile_in(self, "vector", self.vector, ("l1", "fb"))
            _check_layout(self, "vector", vec, target)
            if vec.element_name != "u64":
                raise _error(
                    self, f"requires vector element type ui64, got {vec.element_type}"
                )
            _check_covers(self, "vector", vec, (1, n), "1 x n")

    def _verify_quant(self, target: Target, dst_space: str, src: str, dst: str) -> None:
        quant = self.quant.data
        if quant not in isa.QUANT_MODES:
            raise _error(self, f"requires quant in {_fmt_set(isa.QUANT_MODES)}, got {quant}")
        if quant not in target.quant_modes:
            raise _error(self, f"quant mode {quant} is not supported on target {target.name}")
        mode = isa.get_quant_mode(quant)
        if (src, dst) not in mode.pairs:
            raise _error(
                self,
                f"requires quant mode for source element type {src} and destination element "
                f"type {dst} in {_fmt_set(target.fixpipe_quant_modes_for(dst_space, src, dst))}, "
                f"got {quant}",
            )
        if not target.fixpipe_quant_ok(dst_space, quant, src, dst):
            raise _error(
                self, f"quant mode {quant} to {dst_space} is not supported on target {target.name}"
            )
        for kind, value in (("scalar", self.scalar), ("vector", self.vector)):
            if mode.operand == kind and value is None:
                raise _error(self, f"requires a {kind} operand for quant mode {quant}")
            if mode.operand != kind and value is not None:
                raise _error(
                    self, f"requires no {kind} operand for quant mode {quant}, got one"
                )

    def _verify_dst_shape(self, target: Target, layout: str, m: int | None, n: int | None) -> None:
        dst_type = self.dst.type
        if isinstance(dst_type, MemRefType):
            if layout == "nz2nz":
                dims = _memref_dims(dst_type)
                if len(dims) != 4:
                    raise _error(
                        self,
                        f"requires an nz2nz dst memref of rank 4 (N1, M1, 16, c0), "
                        f"got rank {len(dims)}",
                    )
                return
            need = (n, m) if layout == "nz2dn" else (m, n)
            names = "n x m" if layout == "nz2dn" else "m x n"
            _check_memref_covers(self, "dst", dst_type, need, names)
            return
        assert isinstance(dst_type, TileType)
        _check_layout(self, "dst", dst_type, target)
        want = "nz" if layout == "nz2nz" else "nd"
        if dst_type.layout_name != want:
            raise _error(
                self, f"requires dst layout {want} for {layout}, got {dst_type.layout_name}"
            )
        if layout == "nz2dn":
            _check_covers(self, "dst", dst_type, (n, m), "n x m")
        else:
            _check_covers(self, "dst", dst_type, (m, n), "m x n")


# ----------------------------------------------------------------------------------------------
# High level: matmul on GM operands (lowered to the cube pipeline by `pto-tile-matmul`)
# ----------------------------------------------------------------------------------------------

# Output element type -> Fixpipe quant mode, per accumulator type: the conversions a matmul makes
# without scale parameters (the deq/quant modes need scale words and are not offered).
MATMUL_QUANT: dict[str, dict[str, str]] = {
    "f32": {"f32": "none", "f16": "f322f16", "bf16": "f322bf16"},
    "s32": {"s32": "none"},
}


def matmul_accumulator(target: Target, lhs: str, rhs: str) -> str | None:
    """The L0C element type of an `lhs` x `rhs` matmul: the Mmad dst type Fixpipe reads (f32 or
    s32), or None if the target has no such Mmad."""
    dsts = target.mmad_dst_types(lhs, rhs) & isa.FIXPIPE_SRC_TYPES
    return min(dsts) if dsts else None  # at most one on every target


def matmul_output_types(target: Target, acc: str) -> dict[str, str]:
    """Output element type -> quant mode of the matmul outputs Fixpipe can write to GM."""
    return {
        out: quant
        for out, quant in MATMUL_QUANT.get(acc, {}).items()
        if target.fixpipe_quant_ok("gm", quant, acc, out)
    }


def matmul_hardware_transposes(
    target: Target, transpose_a: bool, transpose_b: bool
) -> tuple[bool, bool]:
    """Whether the lowered matmul's L1 -> L0A and L1 -> L0B moves transpose inside fractals.

    A given transposed is loaded with DN2NZ where the target has it (a5), else staged as Nz of
    A^T and transposed on the way to L0A. B is staged as Zz of B (seed-NZ) and transposed on the
    way to L0B, unless B is given transposed (Nz of B^T is already Zn inside each fractal)."""
    return transpose_a and not target.dn2nz, not transpose_b


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """C[M, N] = A[M, K] x B[K, N] (+ bias[N]) on GM memrefs of any static M, N, K.

    `transpose_a` / `transpose_b`: the GM memref holds the operand's transpose (A^T[K, M],
    B^T[N, K]). The accumulator is the Mmad dst type of (A, B) on the target (f32, or s32 for
    integer inputs); C's element type selects the Fixpipe conversion (`MATMUL_QUANT`: f32 -> f32,
    f16, bf16; s32 -> s32). The bias (`[N]` or `[1, N]`, accumulator type) is added to every
    row. There is no executor implementation: `pto-tile-matmul` lowers it to tiled cube ops."""

    name = "pto.matmul"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    bias = opt_operand_def(MemRefType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$a `,` $b `,` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? "
        "(`bias` $bias^ `:` type($bias))? attr-dict `:` type($a) `,` type($b) `,` type($c)"
    )

    def __init__(
        self,
        a: Value,
        b: Value,
        c: Value,
        bias: Value | None = None,
        *,
        transpose_a: bool = False,
        transpose_b: bool = False,
    ) -> None:
        super().__init__(
            operands=[a, b, c, [] if bias is None else [bias]],
            properties={
                "transpose_a": UnitAttr() if transpose_a else None,
                "transpose_b": UnitAttr() if transpose_b else None,
            },
        )

    @property
    def is_transpose_a(self) -> bool:
        return self.transpose_a is not None

    @property
    def is_transpose_b(self) -> bool:
        return self.transpose_b is not None

    def problem(self) -> tuple[int, int, int]:
        """(M, N, K) of a verified matmul."""
        a, b = self.a.type, self.b.type
        assert isinstance(a, MemRefType) and isinstance(b, MemRefType)
        m, k = a.get_shape()[::-1] if self.is_transpose_a else a.get_shape()
        n = b.get_shape()[0] if self.is_transpose_b else b.get_shape()[1]
        return m, n, k

    def element_names(self) -> tuple[str, str, str]:
        """isa names of the (A, B, C) element types of a verified matmul."""
        names = []
        for v in (self.a, self.b, self.c):
            t = v.type
            assert isinstance(t, MemRefType)
            name = element_name_or_none(t.element_type)
            assert name is not None
            names.append(name)
        return names[0], names[1], names[2]

    def _static_dims(self, role: str, value: SSAValue, ranks: tuple[int, ...]) -> tuple[int, ...]:
        t = _gm_memref(self, role, value)
        if t.get_num_dims() not in ranks:
            legal = " or ".join(str(r) for r in ranks)
            raise _error(self, f"requires {role} memref of rank {legal}, got rank {t.get_num_dims()}")
        dims = t.get_shape()
        if any(d < 0 for d in dims):
            raise _error(self, f"requires a static {role} shape, got {_fmt_shape(dims)}")
        if any(d == 0 for d in dims):
            raise _error(self, f"requires a non-empty {role}, got shape {_fmt_shape(dims)}")
        return tuple(dims)

    def verify_(self) -> None:
        target = target_of(self)
        missing = [
            feature
            for feature, present in (
                ("nd2nz", target.nd2nz),
                ("fixpipe to gm", "gm" in target.fixpipe_destinations),
            )
            if not present
        ]
        if missing:
            raise _error(
                self, f"matmul is not supported on target {target.name} (no {', '.join(missing)})"
            )
        ta, tb = self.is_transpose_a, self.is_transpose_b
        a_dims = self._static_dims("a", self.a, (2,))
        b_dims = self._static_dims("b", self.b, (2,))
        c_dims = self._static_dims("c", self.c, (2,))
        m, k = a_dims[::-1] if ta else a_dims
        kb, n = b_dims[::-1] if tb else b_dims
        if kb != k:
            raise _error(
                self,
                f"requires b with K = {k} (from a) {'columns' if tb else 'rows'}, "
                f"got shape {_fmt_shape(b_dims)}",
            )
        if c_dims != (m, n):
            raise _error(self, f"requires c shape {m}x{n}, got {_fmt_shape(c_dims)}")

        ea, eb, ec = (
            _memref_element(self, role, v.type)  # type: ignore[arg-type]
            for role, v in (("a", self.a), ("b", self.b), ("c", self.c))
        )
        acc = matmul_accumulator(target, ea, eb)
        if acc is None:
            pairs = sorted(
                {f"({x}, {y})" for x, y, d in target.mmad_types if d in isa.FIXPIPE_SRC_TYPES}
            )
            raise _error(
                self,
                f"requires (a, b) element types in [{', '.join(pairs)}] on target {target.name}, "
                f"got ({ea}, {eb})",
            )
        for role, elem in (("a", ea), ("b", eb)):
            legal = target.nd2nz_types & target.load2d_types
            if elem not in legal:
                raise _error(
                    self,
                    f"requires {role} element type in {_fmt_set(legal)} (nd2nz and load2d) on "
                    f"target {target.name}, got {elem}",
                )
        outputs = matmul_output_types(target, acc)
        if ec not in outputs:
            raise _error(
                self,
                f"requires c element type in {_fmt_set(outputs)} for a {acc} accumulator on "
                f"target {target.name}, got {ec}",
            )
        for role, needed, elem, hint in zip(
            ("a", "b"),
            matmul_hardware_transposes(target, ta, tb),
            (ea, eb),
            ("", "; give b transposed (transpose_b)"),
            strict=True,
        ):
            bits = isa.element_bits(elem)
            if needed and bits not in target.transpose_bits:
                raise _error(
                    self,
                    f"requires a fractal transpose of {bits}-bit elements ({elem}) to load {role}, "
                    f"which is not supported on target {target.name} (transposable widths "
                    f"{_fmt_set(target.transpose_bits)}){hint}",
                )
        if self.bias is not None:
            if (ea, eb, acc) not in target.mmad_bias_types:
                raise _error(
                    self,
                    f"matmul with bias is not supported for ({ea}, {eb}) -> {acc} on target "
                    f"{target.name}",
                )
            bias_dims = self._static_dims("bias", self.bias, (1, 2))
            if bias_dims not in ((n,), (1, n)):
                raise _error(self, f"requires bias shape {n} or 1x{n}, got {_fmt_shape(bias_dims)}")
            eb_bias = _memref_element(self, "bias", self.bias.type)  # type: ignore[arg-type]
            if eb_bias != acc:
                raise _error(
                    self,
                    f"requires bias element type {acc} (the accumulator type), got {eb_bias}",
                )


# ----------------------------------------------------------------------------------------------
# Vector side: GM <-> UB and GatherMask
# ----------------------------------------------------------------------------------------------


def _verify_gm_ub(
    op: Operation, gm_value: SSAValue, ub_value: SSAValue, gm_role: str, ub_role: str
) -> None:
    """GM <-> UB moves: a GM memref, an nd UB tile of the same element width that holds it all."""
    target = target_of(op)
    gm = _gm_memref(op, gm_role, gm_value)
    ub = _tile_in(op, ub_role, ub_value, ("ub",))
    _check_layout(op, ub_role, ub, target)
    elem = _memref_element(op, gm_role, gm)
    if gm_role == "src":
        _check_widths(op, elem, ub.element_name)
    else:
        _check_widths(op, ub.element_name, elem)
    dims = _memref_dims(gm)
    if all(d is not None for d in dims):
        count = prod(d for d in dims if d is not None)
        if count > ub.num_elements():
            raise _error(
                op,
                f"requires {ub_role} tile of at least {count} elements (the {gm_role} memref), "
                f"got {ub.num_elements()}",
            )


@irdl_op_definition
class MteGmUbOp(IRDLOperation):
    """GM -> UB: the memref's elements, row-major, to the start of the (nd) UB tile."""

    name = "pto.mte_gm_ub"

    src = operand_def(MemRefType)
    dst = operand_def(TileType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)"

    def __init__(self, src: SSAValue | Operation, dst: SSAValue | Operation) -> None:
        super().__init__(operands=[src, dst])

    def verify_(self) -> None:
        _verify_gm_ub(self, self.src, self.dst, "src", "dst")


@irdl_op_definition
class MteUbGmOp(IRDLOperation):
    """UB -> GM: the first elements of the (nd) UB tile fill the memref, row-major."""

    name = "pto.mte_ub_gm"

    src = operand_def(TileType)
    dst = operand_def(MemRefType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)"

    def __init__(self, src: SSAValue | Operation, dst: SSAValue | Operation) -> None:
        super().__init__(operands=[src, dst])

    def verify_(self) -> None:
        _verify_gm_ub(self, self.dst, self.src, "dst", "src")


@irdl_op_definition
class GatherMaskOp(IRDLOperation):
    """GatherMask (vreducev2): pack the src0 elements a bit pattern keeps into dst; the result is
    the kept count. `pattern` = built-in pattern 1..7, or `src1` = a UB tile of pattern words."""

    name = "pto.gather_mask"

    dst = operand_def(TileType)
    src0 = operand_def(TileType)
    src1 = opt_operand_def(TileType)
    mask = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src0_block_stride = operand_def(IndexType)
    src0_repeat_stride = operand_def(IndexType)
    src1_repeat_stride = operand_def(IndexType)

    pattern = opt_prop_def(IntegerAttr[IntegerType])
    counter = opt_prop_def(UnitAttr)

    count = result_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$dst `,` $src0 `,` (`pattern` $src1^ `:` type($src1) `,`)? $mask `,` $repeat_times "
        "`,` $src0_block_stride `,` $src0_repeat_stride `,` $src1_repeat_stride attr-dict "
        "`:` type($dst) `,` type($src0)"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        src0: SSAValue | Operation,
        mask: SSAValue | Operation,
        repeat_times: SSAValue | Operation,
        src0_block_stride: SSAValue | Operation,
        src0_repeat_stride: SSAValue | Operation,
        src1_repeat_stride: SSAValue | Operation,
        *,
        pattern: int | None = None,
        src1: SSAValue | Operation | None = None,
        counter: bool = False,
    ) -> None:
        super().__init__(
            operands=[
                dst,
                src0,
                [] if src1 is None else [src1],
                mask,
                repeat_times,
                src0_block_stride,
                src0_repeat_stride,
                src1_repeat_stride,
            ],
            result_types=[IndexType()],
            properties={
                "pattern": None if pattern is None else IntegerAttr(pattern, i64),
                "counter": UnitAttr() if counter else None,
            },
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.has_gather_mask:
            raise _error(self, f"gather_mask is not supported on target {target.name}")
        dst = _tile_in(self, "dst", self.dst, ("ub",))
        src0 = _tile_in(self, "src0", self.src0, ("ub",))
        for role, tile in (("dst", dst), ("src0", src0)):
            _check_layout(self, role, tile, target)
        elem = src0.element_name
        if dst.element_name != elem:
            raise _error(
                self, f"requires dst element type {elem} (the src0 type), got {dst.element_name}"
            )
        types = target.gather_mask_types
        if elem not in types:
            raise _error(
                self,
                f"requires src0 element type in {_fmt_set(types)} on target {target.name}, "
                f"got {elem}",
            )
        if (self.pattern is None) == (self.src1 is None):
            raise _error(self, "requires exactly one of a built-in pattern or a src1 pattern tile")
        src1: TileType | None = None
        if self.pattern is not None:
            p = self.pattern.value.data
            if p not in target.gather_mask_patterns:
                lo, hi = min(target.gather_mask_patterns), max(target.gather_mask_patterns)
                raise _error(
                    self, f"requires pattern in [{lo}, {hi}] on target {target.name}, got {p}"
                )
        else:
            assert self.src1 is not None
            src1 = _tile_in(self, "src1", self.src1, ("ub",))
            _check_layout(self, "src1", src1, target)
            if src1.element_name != types[elem]:
                raise _error(
                    self,
                    f"requires src1 pattern word type {types[elem]} for {elem} on target "
                    f"{target.name}, got {src1.element_name}",
                )
        counter = self.counter is not None
        mask = static_value(self.mask)
        if counter and mask is not None:
            lo, hi = isa.GATHER_COUNTER_MASK_RANGE
            if mask < lo:
                raise _error(self, f"counter mode requires mask >= {lo}, got {mask}")
            if mask > hi:
                raise _error(self, f"requires mask in [{lo}, {hi}], got {mask}")
        # Counter method 2 (310p) ignores repeat_times: mask is the total element count.
        repeat = None
        if not (counter and target.gather_counter_method == 2):
            repeat = _static_in_range(
                self, "repeat_times", self.repeat_times, isa.GATHER_REPEAT_TIMES_RANGE
            )
        blk = _static_in_range(
            self, "src0_block_stride", self.src0_block_stride, isa.GATHER_BLOCK_STRIDE_RANGE
        )
        rep0 = _static_in_range(
            self, "src0_repeat_stride", self.src0_repeat_stride, isa.GATHER_SRC0_REPEAT_STRIDE_RANGE
        )
        rep1 = _static_in_range(
            self, "src1_repeat_stride", self.src1_repeat_stride, isa.GATHER_SRC1_REPEAT_STRIDE_RANGE
        )
        self._verify_footprints(target, src0, dst, src1, counter, mask, repeat, blk, rep0, rep1)

    def _verify_footprints(
        self,
        target: Target,
        src0: TileType,
        dst: TileType,
        src1: TileType | None,
        counter: bool,
        mask: int | None,
        repeat: int | None,
        blk: int | None,
        rep0: int | None,
        rep1: int | None,
    ) -> None:
        """X3: with static parameters, the repeats stay inside src0 (and src1) and dst can hold
        every element the repeats cover."""
        runs = self._repeat_runs(target, src0.element_name, counter, mask, repeat)
        if not runs:
            return
        # Repeats of one run have the same length, so the last repeat of each run reaches
        # furthest into src0 and src1.
        last_of: list[tuple[int, int]] = []  # (elements, index of the run's last repeat)
        first = 0
        for length, times in runs:
            first += times
            last_of.append((length, first - 1))
        if blk is not None and rep0 is not None:
            need = max(
                gather.src0_footprint_bytes(src0.element_name, r + 1, c, blk, rep0)
                for c, r in last_of
            )
            have = src0.footprint_bytes()
            if need > have:
                raise _error(self, f"requires src0 of at least {need} bytes, got {have}")
        if src1 is not None and rep1 is not None:
            word_bits = src1.element_bits
            bits = max(r * rep1 * isa.GATHER_BLOCK_BYTES * 8 + c for c, r in last_of)
            need = -(-bits // word_bits) * word_bits // 8
            have = src1.footprint_bytes()
            if need > have:
                raise _error(
                    self, f"requires src1 pattern of at least {need} bytes for all repeats, got {have}"
                )
        if self.pattern is not None:
            motif = gather.BUILTIN_PATTERN_MOTIFS[self.pattern.value.data]
            kept = sum(times * _motif_kept(motif, length) for length, times in runs)
        else:
            kept = sum(times * length for length, times in runs)
        if kept > dst.num_elements():
            raise _error(
                self,
                f"requires dst of at least {kept} elements (the most the pattern can keep), "
                f"got {dst.num_elements()}",
            )

    @staticmethod
    def _repeat_runs(
        target: Target, elem: str, counter: bool, mask: int | None, repeat: int | None
    ) -> list[tuple[int, int]] | None:
        """The repeats as (elements per repeat, number of repeats) runs, the compressed form of
        `gather.repeat_counts` (a counter-mode mask may cover 2^32 elements), or None when the
        values that decide them are not static."""
        method = target.gather_counter_method
        if counter and method == 2:
            if mask is None:
                return None
            full, tail = divmod(mask, gather.elements_per_repeat(elem))
            runs = [(gather.elements_per_repeat(elem), full)] if full else []
            return runs + ([(tail, 1)] if tail else [])
        if repeat is None:
            return None
        if not counter:
            return [(gather.elements_per_repeat(elem), repeat)]
        return None if mask is None else [(mask, repeat)]


def _motif_kept(motif: int, count: int) -> int:
    """Elements a built-in pattern keeps among the first `count` of a repeat: its 4-bit motif
    repeats, bit i keeping element e with e % 4 == i."""
    whole, rest = divmod(count, 4)
    return whole * motif.bit_count() + (motif & ((1 << rest) - 1)).bit_count()

PTO = Dialect(
    "pto",
    [
        AllocOp,
        ReinterpretOp,
        MteGmL1Op,
        MteL1L0AOp,
        MteL1L0BOp,
        MadOp,
        MadAccOp,
        MadBiasOp,
        MteL1BtOp,
        FixpipeOp,
        MatmulOp,
        MteGmUbOp,
        MteUbGmOp,
        GatherMaskOp,
    ],
    [TileType, HiF8Type],
)


# ------------------------------------------------------------------------------------------------
# Parsing the custom form faster
# ------------------------------------------------------------------------------------------------

# Generated kernels repeat a few pto ops with the same types thousands of times. xDSL's declarative
# format parse checks the parsed types and attributes against the op's constraints, infers the
# operand and result types it does not spell, and rebuilds the op through `build` (argument-list
# checks, a new `operandSegmentSizes` array) for every op. All of that is a function of the op class,
# the number of operands in each group, the parsed types and the parsed properties and attributes:
# the first op of each kind runs the stock path; an equal one reuses its inferred types and segment
# array (attributes are immutable values, so sharing one instance is exact) and is created directly.
# Parse errors are never memoized: they keep coming from the stock path.
_FORMAT_MEMO: dict[tuple, tuple] = {}
_FORMAT_MEMO_LIMIT = 4096
_SEGMENTS = AttrSizedOperandSegments.attribute_name


def _format_parse(cls: type[IRDLOperation], parser) -> IRDLOperation:
    from xdsl.irdl.declarative_assembly_format import ParsingState

    program = cls._format_program
    op_def = cls.get_irdl_definition()
    state = ParsingState(cls)
    for stmt in program.stmts:
        stmt.parse(parser, state)
    key: tuple | None = (
        cls,
        tuple(map(len, state.operands)),
        tuple(None if types is None else tuple(types) for types in state.operand_types),
        tuple(None if types is None else tuple(types) for types in state.result_types),
        tuple(state.properties.items()),
        tuple(state.attributes.items()),
    )
    try:
        memo = _FORMAT_MEMO.get(key)
    except TypeError:  # an attribute that is not hashable: no memo for this op
        key = memo = None
    if memo is None:
        program.resolve_constraint_variables(state, op_def)
        inferred_operands = program.resolve_operand_types(state, op_def)
        inferred_results = program.resolve_result_types(state, op_def)
    else:
        inferred_operands, result_types, segments = memo
    pos = parser.pos
    operands = [
        parser.resolve_operands(unresolved, types, pos)
        for unresolved, types in zip(state.operands, inferred_operands, strict=True)
    ]
    if memo is None:
        op = cls.build(
            result_types=inferred_results,
            operands=operands,
            attributes=state.attributes,
            properties=state.properties,
            regions=state.regions,
            successors=state.successors,
        )
        if key is not None:
            if len(_FORMAT_MEMO) >= _FORMAT_MEMO_LIMIT:
                _FORMAT_MEMO.clear()
            _FORMAT_MEMO[key] = (inferred_operands, op.result_types, op.properties.get(_SEGMENTS))
        return op
    # What `build` makes of the same arguments: its checks passed for this key already.
    properties = state.properties
    if segments is not None:
        properties[_SEGMENTS] = segments
    op = cls.__new__(cls)
    Operation.__init__(
        op,
        operands=[value for group in operands for value in group],
        result_types=result_types,
        properties=properties,
        attributes=state.attributes,
    )
    return op


def _use_format_parse(*classes: type[IRDLOperation]) -> None:
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    for cls in classes:
        op_def = cls.get_irdl_definition()
        assert op_def.assembly_format is not None and not op_def.regions and not op_def.successors
        # The program `irdl_op_definition` compiled for the stock `parse` (held by its closure);
        # compiled again only if xDSL ever stores it elsewhere.
        cells = getattr(cls.parse.__func__, "__closure__", None) or ()
        programs = [c.cell_contents for c in cells if isinstance(c.cell_contents, FormatProgram)]
        cls._format_program = (
            programs[0] if programs else FormatProgram.from_str(op_def.assembly_format, op_def)
        )
        cls.parse = classmethod(_format_parse)


_use_format_parse(
    AllocOp, ReinterpretOp, MteGmL1Op, MteL1L0AOp, MteL1L0BOp, MadOp, MadAccOp, MadBiasOp,
    MteL1BtOp, FixpipeOp, MatmulOp, MteGmUbOp, MteUbGmOp, GatherMaskOp,
)
