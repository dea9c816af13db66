"""PTOAS's tile-level cube ops with PTOAS's own syntax (include/PTO/IR/PTOOps.td at
tonibohnlein/PTOAS e32488c9; the assembly formats are copied as custom parsers because xDSL's
declarative format cannot say `[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]` or `ins(... : ...)`):

    %tv = pto.make_tensor_view %ptr, shape = [%m, %k], strides = [%k, %c1] : !pto.tensor_view<?x?xf16>
    %pv = pto.partition_view %tv, offsets = [%i, %c0], sizes = [%c32, %c32]
            : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<32x32xf16>
    %t  = pto.alloc_tile [addr = %a] : !pto.tile_buf<...>
    pto.tload ins(%pv : ...) outs(%t : ...)          (tstore, tmov, textract, tmatmul{,.acc,.bias},
                                                      tgemv{,.acc,.bias}: the same ins/outs form)
    pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]   pto.wait_flag[...]   pto.barrier <PIPE_ALL>
    %b  = pto.get_block_idx   %n = pto.get_block_num      pto.section.cube { ... }

These ops only carry PTOAS text; their meaning is given by passes/ptoas_to_mmair.py, which rewrites
them into mmair's pto ops so that mmair's verifiers, checker and executor apply unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, StringAttr, UnitAttr, i32, i64
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.ptoas import fp_rules
from mmair.dialects.ptoas.types import (
    PartitionTensorViewType,
    TensorViewType,
    TileBufType,
)


def _parse_operand_list(parser: Parser) -> list:
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand)


def _print_values(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_ssa_value)


@irdl_op_definition
class MakeTensorViewOp(IRDLOperation):
    name = "pto.make_tensor_view"
    ptr = var_operand_def()  # exactly one; var so the segments attribute stays PTOAS's
    shape = var_operand_def()
    strides = var_operand_def()
    result = result_def(TensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorViewOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("shape")
        parser.parse_punctuation("=")
        shape = _parse_operand_list(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("strides")
        parser.parse_punctuation("=")
        strides = _parse_operand_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result = parser.parse_type()
        # The pointer's type is not written: it is whatever defines it.
        ptr_value = parser.resolve_operand(ptr, _defined_type(parser, ptr))
        op = cls.build(
            operands=[[ptr_value], [parser.resolve_operand(s, IndexType()) for s in shape],
                      [parser.resolve_operand(s, IndexType()) for s in strides]],
            result_types=[result])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.ptr[0])
        printer.print_string(", shape = [")
        _print_values(printer, self.shape)
        printer.print_string("], strides = [")
        _print_values(printer, self.strides)
        printer.print_string("] : ")
        printer.print_attribute(self.result.type)


def _defined_type(parser: Parser, operand) -> Attribute:
    """The type of an already-defined SSA value (PTOAS leaves it unwritten)."""
    name = operand.operand_name
    values = parser.ssa_values.get(name)
    if not values:
        parser.raise_error(f"use of undefined value '%{name}'", operand.span)
    return values[operand.index].type


@irdl_op_definition
class PartitionViewOp(IRDLOperation):
    name = "pto.partition_view"
    source = var_operand_def()
    offsets = var_operand_def()
    sizes = var_operand_def()
    result = result_def(PartitionTensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> PartitionViewOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("offsets")
        parser.parse_punctuation("=")
        offsets = _parse_operand_list(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("sizes")
        parser.parse_punctuation("=")
        sizes = _parse_operand_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result = parser.parse_type()
        op = cls.build(
            operands=[[parser.resolve_operand(source, source_type)],
                      [parser.resolve_operand(o, IndexType()) for o in offsets],
                      [parser.resolve_operand(s, IndexType()) for s in sizes]],
            result_types=[result])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source[0])
        printer.print_string(", offsets = [")
        _print_values(printer, self.offsets)
        printer.print_string("], sizes = [")
        _print_values(printer, self.sizes)
        printer.print_string("] : ")
        printer.print_attribute(self.source[0].type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AllocTileOp(IRDLOperation):
    name = "pto.alloc_tile"
    addr = opt_operand_def()
    valid_row = opt_operand_def(IndexType)
    valid_col = opt_operand_def(IndexType)
    result = result_def(TileBufType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> AllocTileOp:
        parts: dict[str, object] = {}
        for key in ("addr", "valid_row", "valid_col"):
            if parser.parse_optional_keyword(key) is not None:
                parser.parse_punctuation("=")
                parts[key] = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result = parser.parse_type()
        addr = ([parser.resolve_operand(parts["addr"], i64)] if "addr" in parts else [])
        rows = ([parser.resolve_operand(parts["valid_row"], IndexType())]
                if "valid_row" in parts else [])
        cols = ([parser.resolve_operand(parts["valid_col"], IndexType())]
                if "valid_col" in parts else [])
        op = cls.build(operands=[addr, rows, cols], result_types=[result])
        op.attributes.update(attrs)
        return op

    def verify_(self) -> None:
        """PTOAS's AllocTileOp::verify: a `?` valid size needs its operand, a static one none."""
        from xdsl.utils.exceptions import VerifyException

        tile = self.result.type
        if not isinstance(tile, TileBufType):
            return
        for key, operand, size in (("row", self.valid_row, tile.valid_shape[0]),
                                   ("col", self.valid_col, tile.valid_shape[1])):
            if (operand is not None) != (size < 0):
                raise VerifyException(
                    f"valid_{key} operand {'is required' if size < 0 else 'must be absent'} "
                    f"because result type v_{key} is {'?' if size < 0 else size}")

    def print(self, printer: Printer) -> None:
        for key, value in (("addr", self.addr), ("valid_row", self.valid_row),
                           ("valid_col", self.valid_col)):
            if value is not None:
                printer.print_string(f" {key} = ")
                printer.print_ssa_value(value)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class SetValidShapeOp(IRDLOperation):
    """`pto.set_validshape %tile, %rows, %cols : !pto.tile_buf<..., v_row=?, v_col=?>`: the valid
    region of a tile from here on (PTOOps.td SetValidShapeOp; ptoas-to-mmair gives it to the ops
    that read the tile after it)."""

    name = "pto.set_validshape"
    source = var_operand_def()  # exactly one (its type is written after the colon)
    valid_row = var_operand_def(IndexType)
    valid_col = var_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> SetValidShapeOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rows = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        cols = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        op = cls.build(operands=[[parser.resolve_operand(source, source_type)],
                                 [parser.resolve_operand(rows, IndexType())],
                                 [parser.resolve_operand(cols, IndexType())]])
        op.attributes.update(attrs)
        return op

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        source = self.source[0].type
        if not isinstance(source, TileBufType) or len(self.valid_row) != 1 or len(
                self.valid_col) != 1:
            raise VerifyException("'pto.set_validshape' requires %tile, %rows, %cols with a "
                                  "!pto.tile_buf tile")
        if source.valid_shape != (-1, -1):  # PTO.cpp SetValidShapeOp::verify
            raise VerifyException("expects source tile_buf to have dynamic validShape (?, ?)")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_values(printer, [self.source[0], self.valid_row[0], self.valid_col[0]])
        printer.print_string(" : ")
        printer.print_attribute(self.source[0].type)


class _InsOutsOp(IRDLOperation):
    """`pto.<op> ins(%a, %b : T, U) outs(%c : V)`, PTOAS's destination-passing tile form.

    The FP forms carry a scaling tile (`fp`, PTOOps.td `Optional<PTODpsType>:$fp`); it is held
    as the last `ins` value with `has_fp` set and printed where PTOAS writes it (FP_STYLE):
    `ins(%src : T fp %fp : F)` (tstore), `ins(%src : T, %fp : F)` (tmov),
    `ins(%src, %r, %c : T, index, index fp %fp : F)` (textract). A pre-quant scalar written
    as a `, %q : i64` pair (tmov, tstore) stays an ordinary `ins` value."""

    ins = var_operand_def()
    outs = var_operand_def()
    has_fp = opt_prop_def(UnitAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FP_STYLE: ClassVar[str] = "end"  # where the fp tile is printed: end / keyword / comma
    # PTOOps.td's operand list, each named by the group it joins here (ins / outs / fp / q, the
    # pre-quant scalar): the generic spelling `"pto.tmov"(...) <{operandSegmentSizes = ...}>`
    PTOAS_OPERANDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def create(cls, *, operands: Sequence[SSAValue] = (), properties=None, attributes=None,
               **kwargs):
        """The generic form with PTOAS's own operandSegmentSizes (one entry per PTOOps.td
        operand) regrouped into ins / outs; PTOAS's properties (`reluPreMode`, ...) become the
        template-option attributes the custom form carries."""
        properties, attributes = dict(properties or {}), dict(attributes or {})
        sizes = properties.get("operandSegmentSizes")
        if sizes is None or not cls.PTOAS_OPERANDS or len(sizes) != len(cls.PTOAS_OPERANDS):
            return super().create(operands=operands, properties=properties,
                                  attributes=attributes, **kwargs)
        counts = [int(x) for x in sizes.get_values()]
        groups: dict[str, list[SSAValue]] = {"ins": [], "outs": [], "fp": [], "q": []}
        at = 0
        for role, count in zip(cls.PTOAS_OPERANDS, counts, strict=True):
            groups[role].extend(operands[at:at + count])
            at += count
        if at != len(operands) or len(groups["fp"]) > 1:
            raise VerifyException(f"'{cls.name}' operandSegmentSizes {counts} does not fit "
                                  f"{len(operands)} operands ({', '.join(cls.PTOAS_OPERANDS)})")
        ins = groups["ins"] + groups["q"] + groups["fp"]  # the custom form's order: fp last
        del properties["operandSegmentSizes"]
        attributes.update(properties)
        return super().create(
            operands=[*ins, *groups["outs"]],
            properties={"operandSegmentSizes": DenseArrayBase.from_list(
                i32, [len(ins), len(groups["outs"])]),
                **({"has_fp": UnitAttr()} if groups["fp"] else {})},
            attributes=attributes, **kwargs)

    @property
    def fp(self) -> SSAValue | None:
        """The scaling tile of an FP form, or None."""
        return self.ins[-1] if self.has_fp is not None else None

    @property
    def plain_ins(self) -> Sequence[SSAValue]:
        """`ins` without the scaling tile."""
        return self.ins[:-1] if self.has_fp is not None else self.ins

    @classmethod
    def parse(cls, parser: Parser) -> _InsOutsOp:
        groups = []
        fp = None
        for key in ("ins", "outs"):
            parser.parse_keyword(key)
            parser.parse_punctuation("(")
            names = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = [_ins_outs_type(parser)]
            pairs = []
            while True:
                if key == "ins" and parser.parse_optional_keyword("fp") is not None:
                    if fp is not None:
                        parser.raise_error(f"'{cls.name}' has two fp tiles")
                    fp = _name_type(parser)
                elif parser.parse_optional_punctuation(",") is not None:
                    if _next_is(parser, "%"):  # `, %v : T` (tmov's fp, a pre-quant scalar)
                        pairs.append(_name_type(parser))
                    elif pairs or fp is not None:
                        parser.raise_error("expected `%value : type` after a `%value : type` pair")
                    else:
                        types.append(_ins_outs_type(parser))
                else:
                    break
            parser.parse_punctuation(")")
            if len(names) != len(types):
                parser.raise_error(f"'{cls.name}' {key} has {len(names)} values and {len(types)} types")
            values = [parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True)]
            for name, t in pairs:
                value = parser.resolve_operand(name, t)
                # tmov writes its scaling tile as a pair (`, %fp : !pto.tile_buf<...>`)
                if key == "ins" and fp is None and isinstance(t, TileBufType):
                    fp = (name, t)
                    continue
                values.append(value)
            groups.append(values)
        if fp is not None:
            groups[0].append(parser.resolve_operand(*fp))
        attrs = parser.parse_optional_attr_dict()
        op = cls.build(operands=groups,
                       properties={"has_fp": UnitAttr()} if fp is not None else {})
        op.attributes.update(attrs)
        return op

    def verify_(self) -> None:
        if self.has_fp is not None:
            fp_rules.verify(self)

    def print(self, printer: Printer) -> None:
        ins, fp = list(self.plain_ins), self.fp
        pairs = self.FP_STYLE != "end" and (fp is not None or len(ins) > 1)
        printer.print_string(" ins(")
        if pairs:  # `%src : T` then the fp tile where PTOAS puts it, then `, %q : i64`
            _print_pair(printer, ins[0])
            if fp is not None:
                printer.print_string(" fp " if self.FP_STYLE == "keyword" else ", ")
                _print_pair(printer, fp)
            for value in ins[1:]:
                printer.print_string(", ")
                _print_pair(printer, value)
        else:
            _print_values(printer, ins)
            printer.print_string(" : ")
            printer.print_list([v.type for v in ins], printer.print_attribute)
            if fp is not None:
                printer.print_string(" fp ")
                _print_pair(printer, fp)
        printer.print_string(") outs(")
        _print_values(printer, self.outs)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.outs], printer.print_attribute)
        printer.print_string(")")
        if self.attributes:  # the template options (`{atomicType = ...}`), as written
            printer.print_op_attributes(self.attributes)


def _print_pair(printer: Printer, value: SSAValue) -> None:
    printer.print_ssa_value(value)
    printer.print_string(" : ")
    printer.print_attribute(value.type)


def _next_is(parser: Parser, text: str) -> bool:
    return parser.lexer.input.content[parser.pos:].lstrip().startswith(text)


def _name_type(parser: Parser):
    name = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    return name, _ins_outs_type(parser)


def _ins_outs_type(parser: Parser) -> Attribute:
    """A type of an ins / outs list. PTOAS also prints a tile_buf there without its
    `!pto.tile_buf` prefix (`ins(%a, %b, %bias : <loc=left, dtype=f32, ...>, ...)`, the
    tmatmul.bias of its MatMul samples), as MLIR does for a type its op format names."""
    if _next_is(parser, "<"):
        return TileBufType.new(TileBufType.parse_parameters(parser))
    return parser.parse_type()


def _ins_outs(op_name: str, class_name: str) -> type[_InsOutsOp]:
    cls = type(class_name, (_InsOutsOp,), {"name": op_name, "__doc__": f"PTOAS `{op_name}`."})
    return irdl_op_definition(cls)


TLoadOp = _ins_outs("pto.tload", "TLoadOp")
TStoreOp = _ins_outs("pto.tstore", "TStoreOp")
TStoreOp.FP_STYLE = "keyword"  # ins(%src : T fp %fp : F, %q : i64)
TMovOp = _ins_outs("pto.tmov", "TMovOp")
TMovOp.FP_STYLE = "comma"  # ins(%src : T, %fp : F, %q : i64)
TMovOp.PTOAS_OPERANDS = TStoreOp.PTOAS_OPERANDS = ("ins", "outs", "fp", "q")
TExtractOp = _ins_outs("pto.textract", "TExtractOp")
TExtractOp.PTOAS_OPERANDS = ("ins", "ins", "ins", "outs", "fp", "q")
TMatmulOp = _ins_outs("pto.tmatmul", "TMatmulOp")
TMatmulAccOp = _ins_outs("pto.tmatmul.acc", "TMatmulAccOp")
TMatmulBiasOp = _ins_outs("pto.tmatmul.bias", "TMatmulBiasOp")
TGemvOp = _ins_outs("pto.tgemv", "TGemvOp")
TGemvAccOp = _ins_outs("pto.tgemv.acc", "TGemvAccOp")
TGemvBiasOp = _ins_outs("pto.tgemv.bias", "TGemvBiasOp")


def _parse_enum(parser: Parser) -> str:
    """`<VALUE>`, `#pto.pipe<VALUE>` / `#pto.event<VALUE>`, or `"VALUE"` (the string form
    PTOAS's VPTO tests write: `pto.set_flag["PIPE_MTE2", "PIPE_MTE1", "EVENT_ID0"]`)."""
    if parser.parse_optional_punctuation("<") is None:
        text = parser.parse_optional_str_literal()
        if text is not None:
            return text
        attr = parser.parse_attribute()
        value = getattr(attr, "value", None)
        if not isinstance(value, StringAttr):
            parser.raise_error("expected a PTOAS enum such as <PIPE_MTE2> or <EVENT_ID0>")
        return value.data
    value = parser.parse_identifier(" for an enum value")
    parser.parse_punctuation(">")
    return value


class _FlagOp(IRDLOperation):
    src_pipe = prop_def(StringAttr)
    dst_pipe = prop_def(StringAttr)
    event_id = prop_def(StringAttr)

    def __init__(self, src_pipe: str, dst_pipe: str, event_id: str) -> None:
        super().__init__(properties={"src_pipe": StringAttr(src_pipe),
                                     "dst_pipe": StringAttr(dst_pipe),
                                     "event_id": StringAttr(event_id)})

    @classmethod
    def parse(cls, parser: Parser) -> _FlagOp:
        parser.parse_punctuation("[")
        src = _parse_enum(parser)
        parser.parse_punctuation(",")
        dst = _parse_enum(parser)
        parser.parse_punctuation(",")
        event = _parse_enum(parser)
        parser.parse_punctuation("]")
        op = cls(src, dst, event)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(
            f"[<{self.src_pipe.data}>, <{self.dst_pipe.data}>, <{self.event_id.data}>]")


@irdl_op_definition
class SetFlagOp(_FlagOp):
    name = "pto.set_flag"


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    name = "pto.wait_flag"


@irdl_op_definition
class BarrierOp(IRDLOperation):
    name = "pto.barrier"
    pipe = prop_def(StringAttr)

    def __init__(self, pipe: str) -> None:
        super().__init__(properties={"pipe": StringAttr(pipe)})

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        op = cls(_parse_enum(parser))
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.pipe.data}>")


class _BlockQuery(IRDLOperation):
    result = result_def(i64)

    def __init__(self) -> None:
        super().__init__(result_types=[i64])

    @classmethod
    def parse(cls, parser: Parser) -> _BlockQuery:
        op = cls()
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        pass


@irdl_op_definition
class GetBlockIdxOp(_BlockQuery):
    name = "pto.get_block_idx"


@irdl_op_definition
class GetBlockNumOp(_BlockQuery):
    name = "pto.get_block_num"


@irdl_op_definition
class SectionCubeOp(IRDLOperation):
    """`pto.section.cube { ... }`: the cube part of a mixed kernel (mmair runs cube code only)."""

    name = "pto.section.cube"
    body = region_def("single_block")
    traits = traits_def(NoTerminator())  # PTOAS writes the body without a terminator

    def __init__(self, body: Region) -> None:
        super().__init__(regions=[body])

    @classmethod
    def parse(cls, parser: Parser) -> SectionCubeOp:
        region = parser.parse_region()
        return cls(region)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


TILE_OPS: tuple[type[Operation], ...] = (
    MakeTensorViewOp, PartitionViewOp, AllocTileOp, TLoadOp, TStoreOp, TMovOp, TExtractOp,
    TMatmulOp, TMatmulAccOp, TMatmulBiasOp, TGemvOp, TGemvAccOp, TGemvBiasOp, SetFlagOp,
    WaitFlagOp, BarrierOp, GetBlockIdxOp, GetBlockNumOp, SectionCubeOp, SetValidShapeOp,
)
