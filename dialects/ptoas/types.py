"""PTOAS's types and attributes, spelled as PTOAS prints them (include/PTO/IR/PTOTypeDefs.td,
PTOAttrs.td at tonibohnlein/PTOAS e32488c9):

    !pto.ptr<f16>  !pto.ptr<f16, l1>                    a typed pointer (space gm when omitted)
    !pto.tensor_view<?x?xf16>                            a GM tensor made by make_tensor_view
    !pto.partition_tensor_view<32x32xf16>                a window of one (partition_view)
    !pto.tile_buf<loc=mat, dtype=f16, rows=32, cols=32, v_row=32, v_col=32,
                  blayout=col_major, slayout=row_major, fractal=512, pad=0>
    #pto.kernel_kind<cube>  #pto.pipe<PIPE_ALL>  #pto.event<EVENT_ID0>  #pto.layout<nd>
    !pto.hif8  !pto.f8E8M0  !pto.hif8x2  !pto.f4E1M2x2  !pto.f4E2M1x2  !pto.bf16x2   element types

`!pto.hif8` is mmair's own HiF8Type (the same type under the same name). `!pto.f8E8M0` (the MX
scale payload) is read as builtin `f8E8M0FNU`. The packed pairs (`PACKED_ELEMENTS`) are read and
printed; ptoas-to-mmair refuses them, as mmair's executor keeps one value per element.

The fields are kept as written (so a file prints back as it was read); `TileBufType.fields` gives
them by key. Their meaning (which mmair tile a tile_buf is) is passes/ptoas_to_mmair.py's.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

# Canonical !pto.ptr spaces and the legacy aliases PTOAS accepts (docs/isa/micro-isa/16-cube-matmul.md).
PTR_SPACES: dict[str, str] = {
    "gm": "gm", "l1": "l1", "mat": "l1", "l0a": "l0a", "left": "l0a", "l0b": "l0b", "right": "l0b",
    "l0c": "l0c", "acc": "l0c", "bt": "bt", "bias": "bt", "fb": "fb", "scaling": "fb",
    "ub": "ub", "vec": "ub",
}

# tile_buf fields in PTOAS's print order; compact forms may omit the trailing ones and write the
# valid region as `valid=RxC` (PTOTypeDefs.cpp, the compact parser; `?` is a run-time size).
TILE_BUF_KEYS: tuple[str, ...] = (
    "loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad",
    "compact",
)
COMPACT_KEYS: tuple[str, ...] = ("valid", "blayout", "slayout", "fractal", "pad", "compact")


def _dims(dims: Sequence[int]) -> str:
    return "x".join("?" if d < 0 else str(d) for d in dims)


class _ShapedView(ParametrizedAttribute, TypeAttribute):
    """A ranked shape (`?` dynamic, stored as -1) and an element type."""

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute) -> None:
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type)

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
        return [ArrayAttr([IntAttr(d) for d in dims]), element]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_dims(self.dims)}x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")


@irdl_attr_definition
class TensorViewType(_ShapedView):
    name = "pto.tensor_view"


@irdl_attr_definition
class PartitionTensorViewType(_ShapedView):
    name = "pto.partition_tensor_view"


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """`!pto.ptr<T[, space]>`; `space` is canonical (aliases are read, canonical names printed)."""

    name = "pto.ptr"

    element_type: Attribute
    space: StringAttr

    def __init__(self, element_type: Attribute, space: str = "gm") -> None:
        super().__init__(element_type, StringAttr(space))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            element = parser.parse_type()
            space = "gm"
            if parser.parse_optional_punctuation(",") is not None:
                at = parser.pos
                written = parser.parse_identifier(" for the address space")
                if written not in PTR_SPACES:
                    parser.raise_error(
                        f"'!pto.ptr' requires space in [{', '.join(sorted(PTR_SPACES))}], got {written}",
                        at, parser.pos)
                space = PTR_SPACES[written]
        return [element, StringAttr(space)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        if self.space.data != "gm":
            printer.print_string(f", {self.space.data}")
        printer.print_string(">")


@irdl_attr_definition
class TileBufType(ParametrizedAttribute, TypeAttribute):
    """`!pto.tile_buf<key=value, ...>`, the fields as written (dtype is a type)."""

    name = "pto.tile_buf"

    keys: ArrayAttr[StringAttr]
    values: ArrayAttr[Attribute]
    compact: IntAttr  # 1: written `<loc, RxCxT, key=value...>` (PTOAS's short form)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        keys: list[StringAttr] = []
        values: list[Attribute] = []
        compact = [0]

        def field() -> None:
            at = parser.pos
            if not keys and parser.lexer.input.content[at:].split(None, 1)[0].rstrip(",").isalpha():
                rest = parser.lexer.input.content[at:].lstrip()
                word = rest.split(",", 1)[0].split(">", 1)[0].strip()
                if "=" not in word:  # `<mat, 32x32xf16, ...>`
                    keys.append(StringAttr("loc"))
                    values.append(StringAttr(parser.parse_identifier(" for the tile_buf loc")))
                    parser.parse_punctuation(",")
                    dims, element = parser.parse_ranked_shape()
                    if len(dims) != 2:
                        parser.raise_error("'!pto.tile_buf' requires a 2-D shape", at, parser.pos)
                    for key, value in (("dtype", element), ("rows", IntAttr(dims[0])),
                                       ("cols", IntAttr(dims[1]))):
                        keys.append(StringAttr(key))
                        values.append(value)
                    compact[0] = 1
                    return
            key = parser.parse_identifier(" for a tile_buf field")
            legal = COMPACT_KEYS if compact[0] else TILE_BUF_KEYS
            if key not in legal:
                parser.raise_error(
                    f"'!pto.tile_buf' requires field in [{', '.join(legal)}], got {key}",
                    at, parser.pos)
            parser.parse_punctuation("=")
            value: Attribute
            if key == "valid":  # `valid=16x?`: two dims, `?` a run-time size
                dims = parser.parse_dimension_list()
                if len(dims) != 2:
                    parser.raise_error("'!pto.tile_buf' requires valid with exactly two dims, got "
                                       f"{len(dims)}", at, parser.pos)
                value = ArrayAttr([IntAttr(-1 if d < 0 else d) for d in dims])
            elif key == "dtype":
                value = parser.parse_type()
            elif (number := parser.parse_optional_integer()) is not None:
                value = IntAttr(number)
            elif parser.parse_optional_punctuation("?") is not None:
                value = IntAttr(-1)
            else:
                value = StringAttr(parser.parse_identifier(f" for the tile_buf {key}"))
            keys.append(StringAttr(key))
            values.append(value)

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, field)
        return [ArrayAttr(keys), ArrayAttr(values), IntAttr(compact[0])]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        pairs = list(zip(self.keys.data, self.values.data, strict=True))
        if self.compact.data:
            fields = self.fields
            printer.print_string(f"{self.get('loc')}, {self.get('rows')}x{self.get('cols')}x")
            printer.print_attribute(fields["dtype"])
            pairs = pairs[4:]
            if pairs:
                printer.print_string(", ")
        for i, (key, value) in enumerate(pairs):
            if i:
                printer.print_string(", ")
            printer.print_string(f"{key.data}=")
            if isinstance(value, IntAttr):
                printer.print_string("?" if value.data < 0 else str(value.data))
            elif isinstance(value, ArrayAttr):  # valid=RxC
                printer.print_string(_dims([d.data for d in value.data]))
            elif isinstance(value, StringAttr):
                printer.print_string(value.data)
            else:
                printer.print_attribute(value)
        printer.print_string(">")

    @property
    def fields(self) -> dict[str, Attribute]:
        return {k.data: v for k, v in zip(self.keys.data, self.values.data, strict=True)}

    @property
    def valid_shape(self) -> tuple[int, int]:
        """The valid region (v_row, v_col), -1 for a run-time size; the whole tile when the
        type does not say (PTOAS's default: docs/isa/tile-op/02-types-and-attributes.md)."""
        valid = self.fields.get("valid")
        if isinstance(valid, ArrayAttr):
            return (valid.data[0].data, valid.data[1].data)
        rows, cols = self.get("v_row"), self.get("v_col")
        return (rows if isinstance(rows, int) else self.get("rows"),  # type: ignore[return-value]
                cols if isinstance(cols, int) else self.get("cols"))

    def get(self, key: str) -> int | str | Attribute | None:
        value = self.fields.get(key)
        if isinstance(value, IntAttr):
            return value.data
        if isinstance(value, StringAttr):
            return value.data
        return value


class _EnumAttr(ParametrizedAttribute):
    """`#pto.<name><VALUE>`; PTOAS's ops print the same value as `<VALUE>`."""

    value: StringAttr

    def __init__(self, value: str) -> None:
        super().__init__(StringAttr(value))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            return [StringAttr(parser.parse_identifier())]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.value.data}>")


@irdl_attr_definition
class KernelKindAttr(_EnumAttr):
    name = "pto.kernel_kind"


@irdl_attr_definition
class PipeAttr(_EnumAttr):
    name = "pto.pipe"


@irdl_attr_definition
class EventAttr(_EnumAttr):
    name = "pto.event"


@irdl_attr_definition
class AddressSpaceAttr(_EnumAttr):
    """`#pto.address_space<gm | mat | left | right | acc | vec | bias | scaling>`: the memory
    space of a `memref` PTOAS passes to VPTO ops in place of a `!pto.ptr` (PTOAttrs.td
    `PTO_AddressSpaceAttr`): `memref<?xT, #pto.address_space<S>>` is the pointer `!pto.ptr<T, S>`
    (`as_pointer`)."""

    name = "pto.address_space"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        at = parser.pos
        (value,) = super().parse_parameters(parser)
        assert isinstance(value, StringAttr)
        if value.data not in ADDRESS_SPACES:
            parser.raise_error(f"'#pto.address_space' requires a space in "
                               f"[{', '.join(ADDRESS_SPACES)}], got {value.data}", at, parser.pos)
        return [value]


ADDRESS_SPACES: tuple[str, ...] = ("gm", "mat", "left", "right", "acc", "vec", "bias", "scaling")
"""The spaces of `#pto.address_space` (PTOAttrs.td's enum without its `zero` default)."""


def as_pointer(type_: Attribute) -> PtrType | None:
    """The `!pto.ptr` a VPTO operand type means: itself, or for a 1-D `memref<?xT,
    #pto.address_space<S>>` the pointer `!pto.ptr<T, S>` (S canonical); None otherwise."""
    from xdsl.dialects.builtin import MemRefType

    if isinstance(type_, PtrType):
        return type_
    if isinstance(type_, MemRefType) and isinstance(type_.memory_space, AddressSpaceAttr) \
            and len(type_.get_shape()) == 1:
        return PtrType(type_.element_type, PTR_SPACES[type_.memory_space.value.data])
    return None


@irdl_attr_definition
class LayoutAttr(_EnumAttr):
    """`#pto.layout<nd | dn | nz>`: the layout PTOAS notes on a view or a tload / tstore
    (`{layout = #pto.layout<nd>}`). The strides of the view say the same for mmair, which reads
    them; the note is kept for printing back."""

    name = "pto.layout"



class _TemplateEnumAttr(_EnumAttr):
    """An op option PTOAS writes `#pto<atomic_type atomic_add>` (or `#pto.atomic_type<...>`)."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        if parser.parse_optional_punctuation("<") is not None:
            value = parser.parse_identifier()
            parser.parse_punctuation(">")
            return [StringAttr(value)]
        return [StringAttr(parser.parse_identifier())]


def _template_enum(name: str, doc: str) -> type[_TemplateEnumAttr]:
    return irdl_attr_definition(type(name.title().replace("_", "") + "Attr", (_TemplateEnumAttr,),
                                     {"name": f"pto.{name}", "__doc__": doc}))


# The TSTORE / TMATMUL template options of PTOAttrs.td (what ptoas-to-mmair does with each: its
# `_OPTIONS`).
TEMPLATE_ATTRS = (
    _template_enum("atomic_type", "TSTORE atomic mode: atomic_none | atomic_add."),
    _template_enum("st_phase", "TSTORE phase: unspecified | partial | final."),
    _template_enum("acc_phase", "TMATMUL accumulation phase: unspecified | partial | final."),
    _template_enum("relu_pre_mode", "TSTORE / TMOV pre-ReLU: no_relu | normal_relu | ..."),
    _template_enum("acc_to_vec_mode", "TMOV acc -> vec mode."),
)

class _ElementType(ParametrizedAttribute, TypeAttribute):
    """A PTOAS element type without parameters (PTOTypeDefs.td)."""


@irdl_attr_definition
class F8E8M0Type(_ElementType):
    """`!pto.f8E8M0`: the A5 MX exponent / scale payload, 1 byte (float8_e8m0_t)."""

    name = "pto.f8E8M0"


@irdl_attr_definition
class HiF8x2Type(_ElementType):
    """`!pto.hif8x2`: a packed pair of HiFloat8 values, 2 bytes (hifloat8x2_t)."""

    name = "pto.hif8x2"


@irdl_attr_definition
class F4E1M2x2Type(_ElementType):
    """`!pto.f4E1M2x2`: a packed pair of FP4 E1M2 values, 1 byte; a tile_buf counts pairs."""

    name = "pto.f4E1M2x2"


@irdl_attr_definition
class F4E2M1x2Type(_ElementType):
    """`!pto.f4E2M1x2`: a packed pair of FP4 E2M1 values, 1 byte; a tile_buf counts pairs."""

    name = "pto.f4E2M1x2"


@irdl_attr_definition
class BF16x2Type(_ElementType):
    """`!pto.bf16x2`: a packed pair of BF16 values, 4 bytes (bf16x2_t)."""

    name = "pto.bf16x2"


PACKED_ELEMENTS: tuple[type[Attribute], ...] = (HiF8x2Type, F4E1M2x2Type, F4E2M1x2Type, BF16x2Type)
"""PTOAS's packed pair types: two values in one element."""

ELEMENT_TYPES: tuple[type[Attribute], ...] = (F8E8M0Type, *PACKED_ELEMENTS)
"""The element types PTOAS's dialect defines beyond mmair's (`!pto.hif8` is mmair's HiF8Type)."""
