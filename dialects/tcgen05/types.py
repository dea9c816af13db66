"""Memory spaces, descriptor attributes (`idesc`, `smem_desc`, `zcmask`) and the `make_*` ops."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    IntAttr,
    MemRefType,
    StringAttr,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    Pure,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from mmair.isa.tcgen05 import rules
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import InstrDesc, decode_idesc, encode_idesc
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc, encode_smem_desc
from mmair.isa.tcgen05.text import (
    descriptor_from_items,
    descriptor_from_word,
    format_descriptor_body,
)
from mmair.isa.tcgen05.zcmask import ZeroColumnMask, decode_zcmask, encode_zcmask

#: Module attribute naming the tcgen05 target (`sm_100a`, `sm_103a`, `sm_100f`, ...). When absent,
#: target-dependent rules (R16 K = 96, R20 absolute LBO mode, R32 kind::i8) accept any tcgen05 target.
TARGET_ATTR = "tcgen05.target"

CTA_GROUPS: tuple[int, ...] = (1, 2)

_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1


# ----------------------------------------------------------------------------------------------
# Memory spaces


class Space(StrEnum):
    SMEM = "smem"
    TMEM = "tmem"


@irdl_attr_definition
class SpaceAttr(EnumAttribute[Space]):
    """`#tcgen05.space<smem|tmem>`: the memory space of a `memref` naming an SMEM or TMEM buffer."""

    name = "tcgen05.space"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Space:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(Space)


SMEM = SpaceAttr(Space.SMEM)
TMEM = SpaceAttr(Space.TMEM)


def tmem_type(shape: Sequence[int], element_type: Attribute) -> MemRefType:
    """`memref<shape x element_type, #tcgen05.space<tmem>>`."""
    return MemRefType(element_type, shape, memory_space=TMEM)


def smem_type(shape: Sequence[int], element_type: Attribute) -> MemRefType:
    """`memref<shape x element_type, #tcgen05.space<smem>>`."""
    return MemRefType(element_type, shape, memory_space=SMEM)


def _in_space(type_: Attribute, space: SpaceAttr) -> bool:
    return isinstance(type_, MemRefType) and type_.memory_space == space


# ----------------------------------------------------------------------------------------------
# Descriptor attributes


_Descriptor = InstrDesc | SmemDesc | ZeroColumnMask
_ItemValue = int | bool | str | list[int]


def _parse_descriptor_items(
    parser: AttrParser, mnemonic: str
) -> tuple[_Descriptor, Callable[[DescriptorError], tuple[int, int]]]:
    """Parse `<key = value, ...>` and build the isa descriptor (a parse error names the key)."""
    items: dict[str, _ItemValue] = {}
    spans: dict[str, tuple[int, int]] = {}
    key_spans: dict[str, tuple[int, int]] = {}
    body_start = parser.pos

    def parse_scalar() -> int | bool | str:
        if (boolean := parser.parse_optional_boolean()) is not None:
            return boolean
        if (number := parser.parse_optional_integer(allow_boolean=False)) is not None:
            return number
        return parser.parse_identifier(" for a descriptor field value")

    def parse_item() -> None:
        key_start = parser.pos
        key = parser.parse_identifier(" (a descriptor key)")
        key_end = parser.pos
        parser.parse_punctuation("=")
        value_start = parser.pos
        value: _ItemValue
        if parser.parse_optional_punctuation("[") is not None:
            value = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, lambda: parser.parse_integer(allow_boolean=False)
            )
            parser.parse_punctuation("]")
        else:
            value = parse_scalar()
        if key in items:
            parser.raise_error(f"descriptor key '{key}' is given twice", key_start, parser.pos)
        items[key] = value
        spans[key] = (value_start, parser.pos)
        key_spans[key] = (key_start, key_end)

    parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_item)
    body_span = (body_start, parser.pos)

    def error_span(err: DescriptorError) -> tuple[int, int]:
        if err.field == "key" and isinstance(err.value, str):
            return key_spans.get(err.value, body_span)
        return spans.get(err.field.split("[")[0], body_span)

    try:
        if "word" in items:
            desc = _descriptor_from_word(mnemonic, items)
        else:
            desc = descriptor_from_items(mnemonic, items)
    except DescriptorError as err:
        parser.raise_error(str(err), *error_span(err))
    return desc, error_span


_descriptor_from_word = descriptor_from_word


@irdl_attr_definition
class IdescAttr(ParametrizedAttribute):
    """`#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>`.

    Stores the kind (the word's layout depends on it) and the 32-bit word. Fields that keep their
    default value (false / 0) may be left out and are not printed.
    """

    name = "tcgen05.idesc"

    kind: StringAttr
    word: IntAttr

    def __init__(self, desc: InstrDesc | int, kind: str | None = None) -> None:
        if isinstance(desc, InstrDesc):
            word, kind = encode_idesc(desc), desc.kind
        else:
            if kind is None:
                raise ValueError("an idesc word needs its kind")
            word = desc
        super().__init__(StringAttr(kind), IntAttr(word))

    @property
    def desc(self) -> InstrDesc:
        return decode_idesc(self.word.data, self.kind.data)

    def verify(self) -> None:
        try:
            rules.check_idesc(self.desc, cta_group=None, ws=None, target=None)
        except DescriptorError as err:
            raise VerifyException(f"#tcgen05.idesc: {err}") from err

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        desc, span_of = _parse_descriptor_items(parser, "idesc")
        assert isinstance(desc, InstrDesc)
        try:
            word = encode_idesc(desc)
            rules.check_idesc(desc, cta_group=None, ws=None, target=None)
        except DescriptorError as err:
            parser.raise_error(str(err), *span_of(err))
        return (StringAttr(desc.kind), IntAttr(word))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(format_descriptor_body(self.desc))


@irdl_attr_definition
class SmemDescAttr(ParametrizedAttribute):
    """`#tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, base_offset = 0, lbo_mode = relative,
    swizzle = sw128>` (byte values); stores the 64-bit word."""

    name = "tcgen05.smem_desc"

    word: IntAttr

    def __init__(self, desc: SmemDesc | int) -> None:
        word = encode_smem_desc(desc) if isinstance(desc, SmemDesc) else desc
        super().__init__(IntAttr(word))

    @property
    def desc(self) -> SmemDesc:
        return decode_smem_desc(self.word.data)

    def verify(self) -> None:
        try:
            rules.check_smem_desc(self.desc)
        except DescriptorError as err:
            raise VerifyException(f"#tcgen05.smem_desc: {err}") from err

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        desc, span_of = _parse_descriptor_items(parser, "smem_desc")
        assert isinstance(desc, SmemDesc)
        try:
            word = encode_smem_desc(desc)
            rules.check_smem_desc(desc)
        except DescriptorError as err:
            parser.raise_error(str(err), *span_of(err))
        return (IntAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(format_descriptor_body(self.desc))


# An M with the loosest column-shift limit (32; only M = 32 has 16): the context-free R25 check.
_ANY_WS_M = 128


@irdl_attr_definition
class ZcmaskAttr(ParametrizedAttribute):
    """`#tcgen05.zcmask<start = [0, 0, 0, 0], first = [0, 0, 0, 0], nonzero = true, skip = 2,
    use = 3, shift = 0>`; stores the 64-bit word."""

    name = "tcgen05.zcmask"

    word: IntAttr

    def __init__(self, desc: ZeroColumnMask | int) -> None:
        word = encode_zcmask(desc) if isinstance(desc, ZeroColumnMask) else desc
        super().__init__(IntAttr(word))

    @property
    def desc(self) -> ZeroColumnMask:
        return decode_zcmask(self.word.data)

    def verify(self) -> None:
        try:
            rules.check_zcmask(self.desc, m=_ANY_WS_M)
        except DescriptorError as err:
            raise VerifyException(f"#tcgen05.zcmask: {err}") from err

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        desc, span_of = _parse_descriptor_items(parser, "zcmask")
        assert isinstance(desc, ZeroColumnMask)
        try:
            word = encode_zcmask(desc)
            rules.check_zcmask(desc, m=_ANY_WS_M)
        except DescriptorError as err:
            parser.raise_error(str(err), *span_of(err))
        return (IntAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(format_descriptor_body(self.desc))


# ----------------------------------------------------------------------------------------------
# Helpers shared by the verifiers


@irdl_op_definition
class MakeIdescOp(IRDLOperation):
    """`%i = tcgen05.make_idesc #tcgen05.idesc<...>`: the 32-bit instruction descriptor as an i32."""

    name = "tcgen05.make_idesc"

    desc = prop_def(IdescAttr)
    result = result_def(i32)

    traits = traits_def(Pure())
    assembly_format = "qualified($desc) attr-dict"

    def __init__(self, desc: IdescAttr | InstrDesc) -> None:
        attr = desc if isinstance(desc, IdescAttr) else IdescAttr(desc)
        super().__init__(properties={"desc": attr}, result_types=[i32])


@irdl_op_definition
class MakeSmemDescOp(IRDLOperation):
    """`%d = tcgen05.make_smem_desc #tcgen05.smem_desc<...>`: a shared-memory matrix descriptor (i64)."""

    name = "tcgen05.make_smem_desc"

    desc = prop_def(SmemDescAttr)
    result = result_def(i64)

    traits = traits_def(Pure())
    assembly_format = "qualified($desc) attr-dict"

    def __init__(self, desc: SmemDescAttr | SmemDesc) -> None:
        attr = desc if isinstance(desc, SmemDescAttr) else SmemDescAttr(desc)
        super().__init__(properties={"desc": attr}, result_types=[i64])


@irdl_op_definition
class MakeZcmaskOp(IRDLOperation):
    """`%z = tcgen05.make_zcmask #tcgen05.zcmask<...>`: a zero-column mask descriptor (i64)."""

    name = "tcgen05.make_zcmask"

    desc = prop_def(ZcmaskAttr)
    result = result_def(i64)

    traits = traits_def(Pure())
    assembly_format = "qualified($desc) attr-dict"

    def __init__(self, desc: ZcmaskAttr | ZeroColumnMask) -> None:
        attr = desc if isinstance(desc, ZcmaskAttr) else ZcmaskAttr(desc)
        super().__init__(properties={"desc": attr}, result_types=[i64])


# ----------------------------------------------------------------------------------------------
# Buffers
