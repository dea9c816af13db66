"""The `tcgen05` dialect: NVIDIA Blackwell fifth-generation tensor-core MMA (PTX `tcgen05.*`).

Blackwell's `tcgen05.mma` multiplies an A tile (shared memory through a 64-bit matrix descriptor, or
tensor memory) by a B tile (shared memory through a descriptor) into an accumulator D that lives in
tensor memory (TMEM, 128 lanes x 512 columns of 32-bit cells per CTA). What the MMA does — kind,
M, N, types, transposes, negates, sparsity, block-scale factor ids — is read from a 32-bit
*instruction descriptor* register; the B columns it skips from a 64-bit *zero-column mask*. These
are plain integers in PTX, so nothing checks them: a wrong bit gives a silently wrong result.

This dialect makes the descriptors first-class and checks them:

* attributes `#tcgen05.idesc<...>`, `#tcgen05.smem_desc<...>`, `#tcgen05.zcmask<...>` hold the
  packed word (the single source of truth; equality is word equality) and print/parse its fields in
  the `key = value` form of `mmair-desc --json`;
* `#tcgen05.space<smem|tmem>` is the memory space of the `memref`s that name SMEM and TMEM buffers;
* ops `make_idesc`, `make_smem_desc`, `make_zcmask` (descriptor values), `smem_alloc`, `alloc`,
  `dealloc` (buffers) and `mma`;
* the `mma` verifier decodes every descriptor known at compile time (a `make_*` op or an
  `arith.constant`) and checks it against the instruction's kind, cta_group, `.ws`, sparsity and
  block scaling.

Every bit layout and rule lives in `mmair.isa.tcgen05`; this module only converts between xDSL and
the isa dataclasses and turns `DescriptorError`s into diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    I16,
    I32,
    I64,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    MemoryAllocEffect,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from mmair.dialects.types import element_name_or_none
from mmair.isa.tcgen05 import rules, tmem_moves
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.forms import MmaForm, block_scale_spelling
from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS, KINDS, InstrDesc, decode_idesc, encode_idesc
from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA, TMEM_ALLOC_COLUMNS
from mmair.isa.tcgen05.smem import ADDRESS_LIMIT, SmemDesc, decode_smem_desc, encode_smem_desc
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


def _error(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {message}")


def _int_prop(attr: IntegerAttr | None) -> int | None:
    return None if attr is None else attr.value.data


def _kernel_of(op: Operation) -> Operation:
    """The enclosing `func.func` (a kernel), else the outermost op."""
    current = op
    while (parent := current.parent_op()) is not None:
        if isinstance(parent, func.FuncOp):
            return parent
        current = parent
    return current


def _tcgen05_cta_group(op: Operation) -> int | None:
    cta_group = op.properties.get("cta_group") if op.name.startswith("tcgen05.") else None
    return cta_group.value.data if isinstance(cta_group, IntegerAttr) else None


def _check_kernel_cta_group(op: Operation, cta_group: int) -> None:
    """R31: the first tcgen05 op of the kernel fixes the cta_group of all the others."""
    kernel = _kernel_of(op)
    for other in kernel.walk():
        first = _tcgen05_cta_group(other)
        if first is None:
            continue
        try:
            rules.check_cta_groups([first, cta_group])
        except DescriptorError as err:
            raise _error(op, f"{err} (the kernel's first tcgen05 op '{other.name}' uses "
                             f"cta_group {first})") from err
        return


def _check_cta_group(op: Operation, cta_group: int) -> None:
    if cta_group not in CTA_GROUPS:
        raise _error(op, f"requires cta_group in 1, 2, got {cta_group}")
    _check_kernel_cta_group(op, cta_group)


def _buffer_start(op: Operation, address: int) -> int | None:
    """The offset of the kernel's `tcgen05.smem_alloc` buffer holding `address` (R21 needs where
    the operand's swizzle pattern starts); None when no static buffer holds it."""
    for other in _kernel_of(op).walk():
        if isinstance(other, SmemAllocOp):
            offset = other.offset.value.data
            size = _memref_bytes(other.buffer.type) if isinstance(other.buffer.type, MemRefType) \
                else None
            if size is not None and offset <= address < offset + size:
                return offset
    return None


def _target_of(op: Operation) -> str | None:
    """The `tcgen05.target` string of the enclosing module (None when not given)."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp) and TARGET_ATTR in current.attributes:
            target = current.attributes[TARGET_ATTR]
            if not isinstance(target, StringAttr):
                raise _error(op, f"requires the module attribute {TARGET_ATTR} to be a string, "
                                 f"got {target}")
            try:
                return rules.check_target(target.data)
            except DescriptorError as err:
                raise _error(op, f"module attribute {TARGET_ATTR}: {err}") from err
        current = current.parent_op()
    return None


def _constant_word(value: SSAValue, bits: int) -> int | None:
    """The unsigned value of an integer `arith.constant` (the printer shows it signed)."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data & ((1 << bits) - 1)
    return None


def _static_idesc(op: Operation, value: SSAValue, kind: str) -> InstrDesc | None:
    """The instruction descriptor of `value` if it is known at compile time."""
    owner = value.owner
    if isinstance(owner, MakeIdescOp):
        attr = owner.desc
        if attr.kind.data != kind:
            raise _error(op, f"requires an idesc of kind {kind} (the mma kind), "
                             f"got kind {attr.kind.data}")
        return attr.desc
    word = _constant_word(value, 32)
    if word is None:
        return None
    try:
        return decode_idesc(word, kind)
    except DescriptorError as err:
        raise _error(op, f"idesc 0x{word:08x}: {err}") from err


def _static_smem_desc(op: Operation, value: SSAValue, operand: str) -> SmemDesc | None:
    owner = value.owner
    if isinstance(owner, MakeSmemDescOp):
        return owner.desc.desc
    word = _constant_word(value, 64)
    if word is None:
        return None
    try:
        return decode_smem_desc(word)
    except DescriptorError as err:
        raise _error(op, f"{operand} descriptor 0x{word:016x}: {err}") from err


def _static_zcmask(op: Operation, value: SSAValue) -> ZeroColumnMask | None:
    owner = value.owner
    if isinstance(owner, MakeZcmaskOp):
        return owner.desc.desc
    word = _constant_word(value, 64)
    if word is None:
        return None
    try:
        return decode_zcmask(word)
    except DescriptorError as err:
        raise _error(op, f"zero_column_mask 0x{word:016x}: {err}") from err


# ----------------------------------------------------------------------------------------------
# Descriptor value ops


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


def _memref_bytes(type_: MemRefType) -> int | None:
    """Bytes of a statically shaped memref (sub-byte elements packed), None if unknown."""
    bits = getattr(type_.element_type, "bitwidth", None)
    shape = type_.get_shape()
    if not isinstance(bits, int) or any(dim < 0 for dim in shape):
        return None
    count = 1
    for dim in shape:
        count *= dim
    return -(-count * bits // 8)


def _check_not_empty(op: Operation, type_: MemRefType) -> None:
    """An allocation of an empty matrix (a zero dimension) holds nothing: refuse it."""
    shape = type_.get_shape()
    if 0 in shape:
        raise _error(op, f"requires a result memref whose dimensions are each at least 1, "
                         f"got shape {'x'.join(map(str, shape))} ({type_})")


@irdl_op_definition
class SmemAllocOp(IRDLOperation):
    """`%s = tcgen05.smem_alloc offset(1024) : memref<128x64xf16, #tcgen05.space<smem>>`.

    An SMEM buffer: the bytes [offset, offset + size) of the CTA's shared memory, viewed as the
    memref's elements in row-major order. The descriptors address shared memory by byte address
    (their `start` field), so a buffer needs a fixed offset to be reachable through one.
    """

    name = "tcgen05.smem_alloc"

    offset = prop_def(IntegerAttr[I64])
    buffer = result_def(MemRefType)

    traits = traits_def(MemoryAllocEffect())
    assembly_format = "`offset` `(` $offset `)` attr-dict `:` type($buffer)"

    def __init__(self, offset: int, buffer_type: MemRefType) -> None:
        super().__init__(properties={"offset": IntegerAttr(offset, i64)}, result_types=[buffer_type])

    def verify_(self) -> None:
        type_ = self.buffer.type
        if not _in_space(type_, SMEM):
            raise _error(self, f"requires a result in shared memory (a memref in "
                               f"#tcgen05.space<smem>), got {type_}")
        assert isinstance(type_, MemRefType)
        offset = self.offset.value.data
        if offset < 0 or offset % 16:
            raise _error(self, f"requires offset 16-byte aligned and >= 0, got {offset}")
        size = _memref_bytes(type_)
        if size is None:
            raise _error(self, f"requires a static shape and a sized element type, got {type_}")
        _check_not_empty(self, type_)
        # The CTA's shared memory (228 KB) is smaller than the descriptor address range (2^18).
        limit = min(ADDRESS_LIMIT, SMEM_BYTES_PER_CTA)
        if offset + size > limit:
            raise _error(self, f"requires offset + size <= {limit} (shared memory per CTA), "
                               f"got {offset} + {size}")


@irdl_op_definition
class AllocOp(IRDLOperation):
    """`%t = tcgen05.alloc cta_group(1) columns(256) : memref<128x256xf32, #tcgen05.space<tmem>>`.

    Allocates `columns` TMEM columns (all 128 lanes); the memref is the logical matrix kept there
    (D is M x N, one element per 32-bit cell for 32-bit types).
    """

    name = "tcgen05.alloc"

    cta_group = prop_def(IntegerAttr[I32])
    columns = prop_def(IntegerAttr[I32])
    tmem = result_def(MemRefType)

    traits = traits_def(MemoryAllocEffect())
    assembly_format = (
        "`cta_group` `(` $cta_group `)` `columns` `(` $columns `)` attr-dict `:` type($tmem)"
    )

    def __init__(self, columns: int, tmem: MemRefType, cta_group: int = 1) -> None:
        super().__init__(
            properties={"cta_group": IntegerAttr(cta_group, i32), "columns": IntegerAttr(columns, i32)},
            result_types=[tmem],
        )

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        for other in _kernel_of(self).walk():
            if other is self:
                break
            if isinstance(other, RelinquishAllocPermitOp):
                raise _error(self, "requires no tcgen05.alloc after tcgen05.relinquish_alloc_permit "
                                   "(the CTA gave up its permit to allocate tensor memory)")
        columns = self.columns.value.data
        if columns not in TMEM_ALLOC_COLUMNS:
            raise _error(self, f"requires columns in {', '.join(map(str, TMEM_ALLOC_COLUMNS))}, "
                               f"got {columns}")
        type_ = self.tmem.type
        if not _in_space(type_, TMEM):
            raise _error(self, f"requires a result in tensor memory (a memref in "
                               f"#tcgen05.space<tmem>), got {type_}")
        assert isinstance(type_, MemRefType)
        shape = type_.get_shape()
        bits = getattr(type_.element_type, "bitwidth", None)
        if len(shape) != 2 or any(dim < 0 for dim in shape) or not isinstance(bits, int):
            raise _error(self, f"requires a static 2-D memref of a sized element type, got {type_}")
        _check_not_empty(self, type_)
        # A lower bound: 16-bit A operands pack two per cell; 32-bit data need one column each.
        needed = -(-shape[1] * bits // 32)
        if needed > columns:
            raise _error(self, f"requires the {shape[1]} columns of {type_.element_type} to fit in "
                               f"{columns} TMEM columns, got {needed} 32-bit columns")


@irdl_op_definition
class DeallocOp(IRDLOperation):
    """`tcgen05.dealloc cta_group(1) %t : memref<..., #tcgen05.space<tmem>>`: frees a TMEM allocation."""

    name = "tcgen05.dealloc"

    cta_group = prop_def(IntegerAttr[I32])
    tmem = operand_def(MemRefType)

    traits = traits_def(MemoryFreeEffect())
    assembly_format = "`cta_group` `(` $cta_group `)` $tmem attr-dict `:` type($tmem)"

    def __init__(self, tmem: SSAValue | Operation, cta_group: int = 1) -> None:
        super().__init__(operands=[tmem], properties={"cta_group": IntegerAttr(cta_group, i32)})

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        if not _in_space(self.tmem.type, TMEM):
            raise _error(self, f"requires an operand in tensor memory (a memref in "
                               f"#tcgen05.space<tmem>), got {self.tmem.type}")
        owner = self.tmem.owner
        if isinstance(owner, Operation) and not isinstance(owner, AllocOp):
            raise _error(self, f"requires the result of a tcgen05.alloc (a whole allocation), "
                               f"got the result of '{owner.name}'")


# ----------------------------------------------------------------------------------------------
# The MMA


def normalise_scale_vec(kind: str, scale_vec: str | None) -> str | None:
    """The stored spelling of a block-scale vector size: `1X`/`2X`/`4X` (`.scale_vec::NX`) or
    `block16`/`block32`. Both spellings are kept: they are different PTX (`.scale_vec::NX` needs
    an sm_1xxa target, R32)."""
    if scale_vec is None:
        return None
    upper = scale_vec.upper()
    if upper in ("1X", "2X", "4X"):
        return upper
    return scale_vec.lower() if scale_vec.lower() in ("block16", "block32") else scale_vec


_MODIFIER_FLAGS = ("ws", "sparse", "ashift")


@irdl_op_definition
class MmaOp(IRDLOperation):
    """`tcgen05.mma`: D (TMEM) = A x B (+ D), the PTX `tcgen05.mma{.ws}{.sp}` family.

    ```
    tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %enable_input_d
        : memref<128x256xf32, #tcgen05.space<tmem>>, i64
    tcgen05.mma kind(mxf4nvf4) cta_group(2) block_scale(4X) %d, %a, %b, %idesc, %en
        scale(%sfa, %sfb) : <d type>, i64, <scale_a type>, <scale_b type>
    ```
    Modifiers (before the operands): `ws`, `sparse`, `block_scale` / `block_scale(1X|2X|4X|block16|
    block32)` (stored as 1X/2X/4X), `ashift`, `collector(a|b0..b3, fill|use|lastuse|discard)`.
    Optional operand groups (after them): `metadata(%m)` (sparse), `scale(%sfa, %sfb)`
    (block_scale), `disable_output_lane(%w0, ...)` (4 or 8 i32), `zero_column_mask(%z)` (.ws),
    `scale_input_d(N)`. `a` is an i64 SMEM descriptor or a TMEM memref; the types after `:` are
    those of d, a, and the TMEM operands metadata, scale_a, scale_b when present.
    """

    name = "tcgen05.mma"

    d = operand_def(MemRefType)
    a = operand_def()
    b = operand_def(i64)
    idesc = operand_def(i32)
    enable_input_d = operand_def(i1)
    sparse_metadata = opt_operand_def(MemRefType)
    scale_a = opt_operand_def(MemRefType)
    scale_b = opt_operand_def(MemRefType)
    disable_output_lane = var_operand_def(i32)
    zero_column_mask = opt_operand_def(i64)

    kind = prop_def(StringAttr)
    cta_group = prop_def(IntegerAttr[I32])
    ws = opt_prop_def(UnitAttr)
    sparse = opt_prop_def(UnitAttr)
    block_scale = opt_prop_def(UnitAttr)
    scale_vec = opt_prop_def(StringAttr)
    collector_usage = opt_prop_def(StringAttr)
    ashift = opt_prop_def(UnitAttr)
    scale_input_d = opt_prop_def(IntegerAttr[I32])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        d: SSAValue | Operation,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        idesc: SSAValue | Operation,
        enable_input_d: SSAValue | Operation,
        *,
        kind: str,
        cta_group: int = 1,
        ws: bool = False,
        sparse_metadata: SSAValue | Operation | None = None,
        scales: tuple[SSAValue | Operation, SSAValue | Operation] | None = None,
        scale_vec: str | None = None,
        disable_output_lane: Sequence[SSAValue | Operation] = (),
        zero_column_mask: SSAValue | Operation | None = None,
        collector_usage: str | None = None,
        ashift: bool = False,
        scale_input_d: int | None = None,
    ) -> None:
        vec = normalise_scale_vec(kind, scale_vec)
        properties: dict[str, Attribute | None] = {
            "kind": StringAttr(kind),
            "cta_group": IntegerAttr(cta_group, i32),
            "ws": UnitAttr() if ws else None,
            "sparse": UnitAttr() if sparse_metadata is not None else None,
            "block_scale": UnitAttr() if scales is not None else None,
            "scale_vec": StringAttr(vec) if vec is not None else None,
            "collector_usage": StringAttr(collector_usage) if collector_usage else None,
            "ashift": UnitAttr() if ashift else None,
            "scale_input_d": IntegerAttr(scale_input_d, i32) if scale_input_d is not None else None,
        }
        super().__init__(
            operands=[
                d, a, b, idesc, enable_input_d,
                [] if sparse_metadata is None else [sparse_metadata],
                [] if scales is None else [scales[0]],
                [] if scales is None else [scales[1]],
                list(disable_output_lane),
                [] if zero_column_mask is None else [zero_column_mask],
            ],
            properties={k: v for k, v in properties.items() if v is not None},
        )

    # -- syntax ---------------------------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> MmaOp:
        props: dict[str, Attribute] = {}
        parser.parse_keyword("kind")
        with parser.in_parens():
            kind = parser.parse_identifier(" (an mma kind)")
        parser.parse_keyword("cta_group")
        with parser.in_parens():
            cta_group = parser.parse_integer(allow_boolean=False)
        props["kind"] = StringAttr(kind)
        props["cta_group"] = IntegerAttr(cta_group, i32)
        while True:
            flag = parser.parse_optional_keyword_in(
                (*_MODIFIER_FLAGS, "block_scale", "collector")
            )
            if flag is None:
                break
            if flag in _MODIFIER_FLAGS:
                props[flag] = UnitAttr()
            elif flag == "block_scale":
                props["block_scale"] = UnitAttr()
                if parser.parse_optional_punctuation("(") is not None:
                    number = parser.parse_optional_integer(allow_boolean=False)
                    if number is not None:
                        suffix = parser.parse_identifier(" ('x' of a scale vector size)")
                        spelled = f"{number}{suffix}"
                    else:
                        spelled = parser.parse_identifier(" (a block-scale vector size)")
                    parser.parse_punctuation(")")
                    props["scale_vec"] = StringAttr(normalise_scale_vec(kind, spelled) or spelled)
            else:
                with parser.in_parens():
                    buffer = parser.parse_identifier(" (a collector buffer: a, b0..b3)")
                    parser.parse_punctuation(",")
                    usage = parser.parse_identifier(" (a collector usage)")
                props["collector_usage"] = StringAttr(f"{buffer}::{usage}")

        def operand() -> UnresolvedOperand:
            return parser.parse_unresolved_operand()

        main = [operand()]
        for _ in range(4):
            parser.parse_punctuation(",")
            main.append(operand())
        groups: dict[str, list[UnresolvedOperand]] = {}
        while True:
            group = parser.parse_optional_keyword_in(
                ("metadata", "scale", "disable_output_lane", "zero_column_mask", "scale_input_d")
            )
            if group is None:
                break
            if group in groups or (group == "scale_input_d" and "scale_input_d" in props):
                parser.raise_error(f"'{group}' is given twice")
            if group == "scale_input_d":
                with parser.in_parens():
                    props["scale_input_d"] = IntegerAttr(
                        parser.parse_integer(allow_boolean=False), i32
                    )
            else:
                groups[group] = parser.parse_comma_separated_list(
                    parser.Delimiter.PAREN, operand
                )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        d_type = parser.parse_type()
        parser.parse_punctuation(",")
        a_type = parser.parse_type()

        def tmem_operands(group: str, count: int) -> list[SSAValue]:
            values = groups.get(group, [])
            if values and len(values) != count:
                parser.raise_error(f"'{group}' takes {count} operand(s), got {len(values)}")
            resolved = []
            for value in values:
                parser.parse_punctuation(",")
                resolved.append(parser.resolve_operand(value, parser.parse_type()))
            return resolved

        metadata = tmem_operands("metadata", 1)
        scales = tmem_operands("scale", 2)
        op = cls.build(
            operands=[
                parser.resolve_operand(main[0], d_type),
                parser.resolve_operand(main[1], a_type),
                parser.resolve_operand(main[2], i64),
                parser.resolve_operand(main[3], i32),
                parser.resolve_operand(main[4], i1),
                metadata,
                scales[:1],
                scales[1:],
                [parser.resolve_operand(v, i32) for v in groups.get("disable_output_lane", [])],
                [parser.resolve_operand(v, i64) for v in groups.get("zero_column_mask", [])],
            ],
            properties=props,
            attributes=attrs,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" kind({self.kind.data}) cta_group({self.cta_group.value.data})")
        if self.ws is not None:
            printer.print_string(" ws")
        if self.sparse is not None:
            printer.print_string(" sparse")
        if self.block_scale is not None:
            printer.print_string(" block_scale")
            if self.scale_vec is not None:
                printer.print_string(f"({self.scale_vec.data})")
        if self.ashift is not None:
            printer.print_string(" ashift")
        if self.collector_usage is not None:
            buffer, _, usage = self.collector_usage.data.partition("::")
            printer.print_string(f" collector({buffer}, {usage})")
        printer.print_string(" ")
        printer.print_list(
            (self.d, self.a, self.b, self.idesc, self.enable_input_d), printer.print_operand
        )
        groups = (
            ("metadata", [self.sparse_metadata] if self.sparse_metadata else []),
            ("scale", [v for v in (self.scale_a, self.scale_b) if v is not None]),
            ("disable_output_lane", list(self.disable_output_lane)),
            ("zero_column_mask", [self.zero_column_mask] if self.zero_column_mask else []),
        )
        for keyword, values in groups:
            if values:
                printer.print_string(f" {keyword}(")
                printer.print_list(values, printer.print_operand)
                printer.print_string(")")
        if self.scale_input_d is not None:
            printer.print_string(f" scale_input_d({self.scale_input_d.value.data})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        types = [self.d.type, self.a.type]
        types += [v.type for v in (self.sparse_metadata, self.scale_a, self.scale_b) if v is not None]
        printer.print_list(types, printer.print_attribute)

    # -- verification ---------------------------------------------------------------------------

    @property
    def a_in_tmem(self) -> bool:
        return isinstance(self.a.type, MemRefType)

    def form(self) -> MmaForm:
        """The PTX instruction form of this op (modifiers and operand presence)."""
        return MmaForm(
            cta_group=self.cta_group.value.data,
            kind=self.kind.data,
            ws=self.ws is not None,
            sparse=self.sparse is not None,
            block_scale=block_scale_spelling(
                None if self.scale_vec is None else self.scale_vec.data,
                self.block_scale is not None,
            ),
            ashift=self.ashift is not None,
            collector=self.collector,
            a_tmem=self.a_in_tmem,
            disable_output_lane=len(self.disable_output_lane) or None,
            scale_input_d=_int_prop(self.scale_input_d),
            zero_column_mask=self.zero_column_mask is not None,
        )

    @property
    def collector(self) -> str | None:
        return None if self.collector_usage is None else self.collector_usage.data

    def _rule(self, check: Callable[[], object], what: str = "") -> None:
        """Run an isa check; its DescriptorError becomes this op's verifier error."""
        try:
            check()
        except DescriptorError as err:
            raise _error(self, f"{what}{err}") from err

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in KINDS:
            raise _error(self, f"requires kind in {', '.join(KINDS)}, got {kind}")
        cta_group = self.cta_group.value.data
        _check_cta_group(self, cta_group)
        ws = self.ws is not None
        sparse = self.sparse is not None
        block_scale = self.block_scale is not None
        self._verify_operand_types()
        if sparse != (self.sparse_metadata is not None):
            raise _error(self, "requires a metadata operand exactly when the mma is sparse, got "
                               f"sparse = {str(sparse).lower()} with "
                               f"{'a' if self.sparse_metadata else 'no'} metadata operand")
        scales = [name for name, operand in (("scale_a", self.scale_a), ("scale_b", self.scale_b))
                  if operand is not None]
        if block_scale != (len(scales) == 2):
            given = {0: "no scale operands", 2: "both scale operands"}.get(
                len(scales), f"only the {''.join(scales)} operand")
            raise _error(self, "requires scale_a and scale_b operands exactly with block_scale, got "
                               f"block_scale = {str(block_scale).lower()} with {given}")
        if block_scale and kind not in BLOCK_SCALED_KINDS:
            raise _error(self, f"requires kind in {', '.join(BLOCK_SCALED_KINDS)} with block_scale, "
                               f"got {kind}")
        scale_vec = None if self.scale_vec is None else self.scale_vec.data
        if scale_vec is not None and not block_scale:
            raise _error(self, f"requires block_scale with scale_vec, got scale_vec = {scale_vec}")
        if scale_vec is not None and scale_vec not in rules.SCALE_VECS:
            raise _error(self, f"requires scale_vec in {', '.join(rules.SCALE_VECS)}, "
                               f"got {scale_vec}")
        target = _target_of(self)
        form = self.form()
        errors = rules.mma_form_errors(form, target or rules.DEFAULT_TARGET)
        if errors and target is None and any(
            rules.mma_form_legal(form, t) for t in rules.TCGEN05_TARGETS
        ):
            errors = []  # legal on some target; the module names none
        if errors:
            raise _error(self, str(errors[0]))

        idesc = _static_idesc(self, self.idesc, kind)
        if idesc is not None:
            self._verify_idesc(idesc, cta_group, ws, sparse, scale_vec, target)
        # M is only known with a static idesc; 128 passes the M-dependent parts of R25/R28
        # (the executor checks them on the run-time descriptor).
        m = idesc.m if idesc is not None else 128
        collector_a = self.collector if self.collector and self.collector.startswith("a::") else None
        self._rule(lambda: rules.check_ashift(self.ashift is not None, a_in_tmem=self.a_in_tmem,
                                              m=m, collector_a=collector_a))
        if self.zero_column_mask is not None:
            zcm = _static_zcmask(self, self.zero_column_mask)
            # An unknown mask still has to sit on a .ws mma (R23); an all-zero mask checks only that.
            self._rule(lambda: rules.check_zcmask(zcm or ZeroColumnMask(), m=m, ws=ws,
                                                  cta_group=cta_group),
                       "zero_column_mask: " if zcm is not None else "")
        operands = [("b", self.b)] if self.a_in_tmem else [("a", self.a), ("b", self.b)]
        for operand, value in operands:
            desc = _static_smem_desc(self, value, operand)
            if desc is None:
                continue
            major = None
            if idesc is not None:
                transposed = idesc.transpose_a if operand == "a" else idesc.transpose_b
                major = "mn" if transposed else "k"
            start = _buffer_start(self, desc.start)
            self._rule(lambda desc=desc, major=major, start=start: rules.check_smem_desc(
                desc, kind=kind, major=major, pattern_start=start, target=target),
                f"{operand} descriptor: ")

    def _verify_operand_types(self) -> None:
        if not _in_space(self.d.type, TMEM):
            raise _error(self, f"requires d in tensor memory (a memref in #tcgen05.space<tmem>), "
                               f"got {self.d.type}")
        if self.a.type != i64 and not _in_space(self.a.type, TMEM):
            raise _error(self, f"requires a to be an i64 shared-memory descriptor or a memref in "
                               f"#tcgen05.space<tmem>, got {self.a.type}")
        for name in ("sparse_metadata", "scale_a", "scale_b"):
            value = getattr(self, name)
            if value is not None and not _in_space(value.type, TMEM):
                raise _error(self, f"requires {name} in tensor memory (a memref in "
                                   f"#tcgen05.space<tmem>), got {value.type}")

    def _verify_idesc(self, idesc: InstrDesc, cta_group: int, ws: bool, sparse: bool,
                      scale_vec: str | None, target: str | None) -> None:
        self._rule(lambda: rules.check_idesc(idesc, cta_group=cta_group, ws=ws,
                                             a_in_tmem=self.a_in_tmem, scale_vec=scale_vec,
                                             target=target), "idesc: ")
        if idesc.sparse != sparse:
            raise _error(self, f"requires idesc sparse = {str(sparse).lower()} (the mma is "
                               f"{'sparse' if sparse else 'dense'}), got "
                               f"{str(idesc.sparse).lower()}")
        d_type = self.d.type
        assert isinstance(d_type, MemRefType)
        dtype = idesc.dtype if idesc.dtype is not None else "f32"
        found = element_name_or_none(d_type.element_type)
        if found != dtype:
            raise _error(self, f"requires d element type {dtype} (the idesc dtype), got "
                               f"{d_type.element_type}")
        shape = d_type.get_shape()
        # cta_group::2: each CTA of the pair holds its half of D's rows in its own TMEM.
        rows = idesc.m // self.cta_group.value.data
        if len(shape) != 2 or (shape[0] >= 0 and shape[0] < rows) or (
            shape[1] >= 0 and shape[1] < idesc.n
        ):
            share = "" if rows == idesc.m else f"this CTA's {rows}x{idesc.n} share of "
            raise _error(self, f"requires d to hold {share}the {idesc.m}x{idesc.n} tile of the "
                               f"idesc, got {d_type}")
        if self.a_in_tmem:
            a_type = self.a.type
            assert isinstance(a_type, MemRefType)
            found = element_name_or_none(a_type.element_type)
            if found != idesc.atype:
                raise _error(self, f"requires a element type {idesc.atype} (the idesc atype), "
                                   f"got {a_type.element_type}")


# ----------------------------------------------------------------------------------------------
# Whole-kernel ops: TMEM <-> registers, SMEM -> TMEM, completion tracking (commit, mbarrier)


def _static_2d(op: Operation, name: str, type_: Attribute) -> tuple[int, int]:
    if not isinstance(type_, MemRefType) or len(type_.get_shape()) != 2 or any(
        d < 0 for d in type_.get_shape()
    ):
        raise _error(op, f"requires {name} to be a static 2-D memref, got {type_}")
    rows, cols = type_.get_shape()
    return rows, cols


def _check_b32(op: Operation, name: str, type_: MemRefType) -> None:
    bits = getattr(type_.element_type, "bitwidth", None)
    if bits != 32:
        raise _error(op, f"requires {name} of 32-bit elements (b32 registers / TMEM cells), "
                         f"got {type_.element_type}")


def _verify_ld_st(op: LdOp | StOp, tmem_type: Attribute, regs_type: Attribute) -> int:
    """Shape, repetition count, warp, lane and column of a tcgen05.ld/st (R33)."""
    shape, num = op.shape.data, op.num.value.data
    try:
        regs = rules.check_ld_st(shape, num, lane=op.lane.value.data, warp=op.warp.value.data)
    except DescriptorError as err:
        raise _error(op, str(err)) from err
    if not _in_space(tmem_type, TMEM):
        raise _error(op, f"requires a tensor-memory operand (a memref in "
                         f"#tcgen05.space<tmem>), got {tmem_type}")
    rows, cols = _static_2d(op, "the TMEM operand", tmem_type)
    split = 0 if op.split is None else op.split.value.data
    if op.split is not None and shape != "16x32bx2":
        raise _error(op, f"requires .16x32bx2 for split (immHalfSplitoff), got .{shape}")
    if split < 0:
        raise _error(op, f"requires split (immHalfSplitoff) >= 0, got {split}")
    packed = (op.pack if isinstance(op, LdOp) else op.unpack) is not None
    lanes = tmem_moves.LD_ST_SHAPES[shape][0]
    columns = max(tmem_moves.ld_st_columns(shape, num) * (2 if packed else 1),
                  tmem_moves.ld_st_extent(shape, num, split, packed)[1])
    lane, column = op.lane.value.data, op.column.value.data
    if lane + lanes > rows or column < 0 or column + columns > cols:
        raise _error(op, f"requires lanes {lane}..{lane + lanes - 1} and columns {column}.."
                         f"{column + columns - 1} inside the TMEM operand {rows}x{cols}")
    assert isinstance(regs_type, MemRefType)
    _check_b32(op, "the TMEM operand", tmem_type)  # type: ignore[arg-type]
    _check_b32(op, "the registers", regs_type)
    if tuple(regs_type.get_shape()) != (tmem_moves.LANES_PER_WARP, regs):
        raise _error(op, f"requires registers memref<32x{regs}x...> (32 threads x {regs} "
                         f"registers of .{shape}.x{num}), got {regs_type}")
    return regs


@irdl_op_definition
class LdOp(IRDLOperation):
    """`%r = tcgen05.ld shape(32x32b) num(8) warp(0) lane(0) column(0) %t : <tmem> -> memref<32x8xf32>`.

    PTX `tcgen05.ld.sync.aligned.<shape>.x<num>{.pack::16b}.b32`: one warp (number `warp` in
    its warpgroup) loads TMEM lanes/columns at (`lane`, `column`) of `%t` into its registers: the
    result is the warp's registers, 32 threads x registers. The values are usable after
    `tcgen05.wait_ld`.
    """

    name = "tcgen05.ld"
    shape = prop_def(StringAttr)
    num = prop_def(IntegerAttr[I32])
    warp = prop_def(IntegerAttr[I32])
    lane = prop_def(IntegerAttr[I32])
    column = prop_def(IntegerAttr[I32])
    split = opt_prop_def(IntegerAttr[I32])
    """`.16x32bx2`'s immHalfSplitoff: the column offset of the second half-warp (default 0)."""
    pack = opt_prop_def(UnitAttr)
    tmem = operand_def(MemRefType)
    regs = result_def(MemRefType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "`shape` `(` $shape `)` `num` `(` $num `)` `warp` `(` $warp `)` `lane` `(` $lane `)` "
        "`column` `(` $column `)` (`split` `(` $split^ `)`)? (`pack` $pack^)? $tmem attr-dict "
        "`:` type($tmem) `->` type($regs)"
    )

    def verify_(self) -> None:
        _verify_ld_st(self, self.tmem.type, self.regs.type)


@irdl_op_definition
class StOp(IRDLOperation):
    """`tcgen05.st shape(32x32b) num(8) warp(0) lane(0) column(0) %t, %r : <tmem>, memref<32x8xf32>`.

    PTX `tcgen05.st.sync.aligned.<shape>.x<num>{.unpack::16b}.b32`: a warp's registers to TMEM;
    complete for the issuing thread after `tcgen05.wait_st`.
    """

    name = "tcgen05.st"
    shape = prop_def(StringAttr)
    num = prop_def(IntegerAttr[I32])
    warp = prop_def(IntegerAttr[I32])
    lane = prop_def(IntegerAttr[I32])
    column = prop_def(IntegerAttr[I32])
    split = opt_prop_def(IntegerAttr[I32])
    """`.16x32bx2`'s immHalfSplitoff: the column offset of the second half-warp (default 0)."""
    unpack = opt_prop_def(UnitAttr)
    tmem = operand_def(MemRefType)
    regs = operand_def(MemRefType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "`shape` `(` $shape `)` `num` `(` $num `)` `warp` `(` $warp `)` `lane` `(` $lane `)` "
        "`column` `(` $column `)` (`split` `(` $split^ `)`)? (`unpack` $unpack^)? $tmem `,` $regs "
        "attr-dict `:` type($tmem) `,` type($regs)"
    )

    def verify_(self) -> None:
        _verify_ld_st(self, self.tmem.type, self.regs.type)


@irdl_op_definition
class WaitLdOp(IRDLOperation):
    """`tcgen05.wait_ld`: PTX `tcgen05.wait::ld.sync.aligned` (prior tcgen05.ld complete)."""

    name = "tcgen05.wait_ld"
    assembly_format = "attr-dict"


@irdl_op_definition
class WaitStOp(IRDLOperation):
    """`tcgen05.wait_st`: PTX `tcgen05.wait::st.sync.aligned` (prior tcgen05.st complete)."""

    name = "tcgen05.wait_st"
    assembly_format = "attr-dict"


@irdl_op_definition
class FenceBeforeThreadSyncOp(IRDLOperation):
    """`tcgen05.fence_before_thread_sync`: orders prior async tcgen05 ops before a barrier."""

    name = "tcgen05.fence_before_thread_sync"
    assembly_format = "attr-dict"


@irdl_op_definition
class FenceAfterThreadSyncOp(IRDLOperation):
    """`tcgen05.fence_after_thread_sync`: orders later async tcgen05 ops after a barrier."""

    name = "tcgen05.fence_after_thread_sync"
    assembly_format = "attr-dict"


@irdl_op_definition
class RelinquishAllocPermitOp(IRDLOperation):
    """`tcgen05.relinquish_alloc_permit cta_group(1)`: the CTA allocates no more TMEM."""

    name = "tcgen05.relinquish_alloc_permit"
    cta_group = prop_def(IntegerAttr[I32])
    assembly_format = "`cta_group` `(` $cta_group `)` attr-dict"

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)


def _check_mbarrier(op: Operation, value: SSAValue) -> None:
    t = value.type
    if not (_in_space(t, SMEM) and isinstance(t, MemRefType) and t.get_shape() == (1,)
            and t.element_type == i64):
        raise _error(op, f"requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got {t}")


@irdl_op_definition
class CommitOp(IRDLOperation):
    """`tcgen05.commit cta_group(1) %mbar {multicast(%mask)} : memref<1xi64, smem>`.

    PTX `tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster{.multicast::cluster}.b64
    [mbar]{, ctaMask}`: one arrive on the mbarrier once every prior async tcgen05 op of the thread
    (mma, cp, shift) has completed.
    """

    name = "tcgen05.commit"
    cta_group = prop_def(IntegerAttr[I32])
    mbarrier = operand_def(MemRefType)
    cta_mask = opt_operand_def(I16)
    assembly_format = (
        "`cta_group` `(` $cta_group `)` $mbarrier (`multicast` `(` $cta_mask^ `)`)? attr-dict "
        "`:` type($mbarrier)"
    )

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        _check_mbarrier(self, self.mbarrier)


@irdl_op_definition
class MbarrierInitOp(IRDLOperation):
    """`tcgen05.mbarrier_init %mbar count(1)`: PTX `mbarrier.init.shared::cta.b64 [mbar], count`."""

    name = "tcgen05.mbarrier_init"
    mbarrier = operand_def(MemRefType)
    count = prop_def(IntegerAttr[I32])
    assembly_format = "$mbarrier `count` `(` $count `)` attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)
        count = self.count.value.data
        if not 1 <= count < (1 << 20):
            raise _error(self, f"requires count in 1..{(1 << 20) - 1}, got {count}")


@irdl_op_definition
class MbarrierArriveOp(IRDLOperation):
    """`tcgen05.mbarrier_arrive %mbar {expect_tx(N)}`: PTX `mbarrier.arrive{.expect_tx}
    .shared::cta.b64 _, [mbar]{, N}` (one arrive; expect_tx adds N bytes of pending transactions)."""

    name = "tcgen05.mbarrier_arrive"
    mbarrier = operand_def(MemRefType)
    expect_tx = opt_prop_def(IntegerAttr[I32])
    assembly_format = "$mbarrier (`expect_tx` `(` $expect_tx^ `)`)? attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)
        if self.expect_tx is not None and not 0 <= self.expect_tx.value.data < (1 << 20):
            raise _error(self, f"requires expect_tx in 0..{(1 << 20) - 1}, got "
                               f"{self.expect_tx.value.data}")


@irdl_op_definition
class MbarrierWaitOp(IRDLOperation):
    """`tcgen05.mbarrier_wait %mbar, %parity`: loop on PTX `mbarrier.try_wait.parity.shared::cta
    .b64` until the phase with that parity has completed."""

    name = "tcgen05.mbarrier_wait"
    mbarrier = operand_def(MemRefType)
    parity = operand_def(i1)
    assembly_format = "$mbarrier `,` $parity attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)


@irdl_op_definition
class CpOp(IRDLOperation):
    """`tcgen05.cp cta_group(1) shape(128x256b) {multicast(warpx4)} {decompress(...)} %t, %desc`.

    PTX `tcgen05.cp.cta_group::N.<shape>{.<multicast>}{.<decompress>} [taddr], s-desc`: an
    asynchronous copy from SMEM (matrix descriptor) to TMEM, tracked by `tcgen05.commit`.
    """

    name = "tcgen05.cp"
    cta_group = prop_def(IntegerAttr[I32])
    shape = prop_def(StringAttr)
    multicast = opt_prop_def(StringAttr)
    decompress = opt_prop_def(StringAttr)
    tmem = operand_def(MemRefType)
    src = operand_def(i64)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "`cta_group` `(` $cta_group `)` `shape` `(` $shape `)` "
        "(`multicast` `(` $multicast^ `)`)? (`decompress` `(` $decompress^ `)`)? "
        "$tmem `,` $src attr-dict `:` type($tmem)"
    )

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        try:
            tmem_moves.check_cp(self.shape.data,
                                None if self.multicast is None else self.multicast.data,
                                None if self.decompress is None else self.decompress.data)
        except DescriptorError as err:
            raise _error(self, str(err)) from err
        if not _in_space(self.tmem.type, TMEM):
            raise _error(self, f"requires a tensor-memory destination, got {self.tmem.type}")


@irdl_op_definition
class ShiftOp(IRDLOperation):
    """`tcgen05.shift cta_group(1) %t`: PTX `tcgen05.shift.cta_group::N.down [taddr]` (rows of
    32-byte cells move down one lane; asynchronous, tracked by `tcgen05.commit`)."""

    name = "tcgen05.shift"
    cta_group = prop_def(IntegerAttr[I32])
    tmem = operand_def(MemRefType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "`cta_group` `(` $cta_group `)` $tmem attr-dict `:` type($tmem)"

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        if not _in_space(self.tmem.type, TMEM):
            raise _error(self, f"requires a tensor-memory operand, got {self.tmem.type}")
        target = _target_of(self)
        if target is not None:
            try:
                rules.check_shift_target(target)
            except DescriptorError as err:
                raise _error(self, str(err)) from err



@irdl_op_definition
class ClusterRankOp(IRDLOperation):
    """`%r = tcgen05.cluster_rank : i32`: the CTA's rank in its cluster (PTX `%cluster_ctarank`).
    A `cta_group::2` kernel runs on a CTA pair: ranks 0 and 1 (the peer of rank r is r ^ 1)."""

    name = "tcgen05.cluster_rank"
    rank = result_def(i32)
    assembly_format = "attr-dict `:` type($rank)"


@irdl_op_definition
class ClusterSyncOp(IRDLOperation):
    """`tcgen05.cluster_sync`: every thread of every CTA of the cluster arrives and waits (PTX
    `barrier.cluster.arrive` + `barrier.cluster.wait`, release / acquire). A CTA pair uses it so
    that the peer's shared memory is filled before the leader issues a `cta_group::2` MMA."""

    name = "tcgen05.cluster_sync"
    assembly_format = "attr-dict"


TCGEN05 = Dialect(
    "tcgen05",
    [
        MakeIdescOp, MakeSmemDescOp, MakeZcmaskOp, SmemAllocOp, AllocOp, DeallocOp, MmaOp,
        LdOp, StOp, WaitLdOp, WaitStOp, FenceBeforeThreadSyncOp, FenceAfterThreadSyncOp,
        RelinquishAllocPermitOp, CommitOp, MbarrierInitOp, MbarrierArriveOp, MbarrierWaitOp,
        CpOp, ShiftOp, ClusterRankOp, ClusterSyncOp,
    ],
    [SpaceAttr, IdescAttr, SmemDescAttr, ZcmaskAttr],
)
