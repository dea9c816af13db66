"""PTOAS's VPTO cube micro-ops, as PTOAS writes them (include/PTO/IR/VPTOOps.td, the custom
parsers and verifiers of lib/PTO/IR/VPTO.cpp and docs/isa/micro-isa/16-cube-matmul.md at
tonibohnlein/PTOAS e32488c9).

A VPTO kernel names storage by typed pointers, `!pto.ptr<T, space>`, and moves it with one op per
hardware queue:

    %p = pto.tile_buf_addr %tile : !pto.tile_buf<...> -> !pto.ptr<f16, l1>
    %q = pto.castptr %addr : i64 -> !pto.ptr<f16, l0a>      (a byte address in the space)
    %r = pto.addptr %p, %off : !pto.ptr<f16, l1> -> !pto.ptr<f16, l1>   (an element offset)
    pto.mte_gm_l1 %gm, %l1, %len_burst nburst(%count, %src_stride, %dst_stride) [loop(..)]*  (MTE2)
    pto.mte_gm_l1_frac %gm, %l1, nd2nz, shape(%n, %d), src_layout(%row_bytes[, %matrix_bytes]),
        dst_group(%count, %loop2, %loop3, %loop4), ctrl(%l2_cache, %small_c0) : ...   (MTE2)
    pto.mte_l1_l0a %l1, %l0a, %m, %k, %start_row, %start_col [{transpose = true}] : ...  (MTE1)
    pto.mte_l1_l0a %l1, %l0a, %m_start, %k_start, %m_step, %k_step, %src_stride, %dst_stride
    pto.mte_l1_l0b ...                      (the same two forms, and `name(%v)` keyword fields)
    pto.load_cbuf_to_ca / _cb %l1, %l0, %m_start, ..., %dst_stride : ...   (the expanded form)
    pto.mad / mad_acc %lhs, %rhs, %dst, %m, %n, %k [unit_flag(..)] [disable_gemv] [sat|nosat]
        [tf32_mode(..)] [n_dir] : ...       pto.mad_bias %lhs, %rhs, %dst, %bias, %m, %n, %k  (M)
    pto.mte_l0c_gm %l0c, %gm, %m, %n, %src_stride, %dst_stride, %sid, %l2_cache [, clause]*
    pto.mte_l0c_l1 %l0c, %l1, %m, %n, %src_stride, %dst_stride [, clause]*   (FIX)
    pto.mte_l0c_ub %l0c, %ub, %m, %n, %src_stride, %dst_stride, dst_mode(%sub | split_m | split_n)
        [, clause]*
        clauses, in this order: unit_flag(..), pre_quant(%p, mode = ..), pre_relu(..),
        nz2nd | nz2dn(%s) | nz2nz[(%split)], loop3(%count, %src, %dst), sat | nosat, atomic(..)
    pto.mte_l1_bt %l1, %bt, %len_burst nburst(%count, %src_gap, %dst_gap) : ...   (MTE1)

The ops carry PTOAS text and make PTOAS's own checks (their messages, from the `*invalid*` lit
tests and VPTO.cpp); their meaning is passes/ptoas_vpto.py's, which rewrites them into mmair's raw
parameter-form ops so that mmair's field checks, executor and checker apply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.ptoas.types import PtrType, TileBufType


def static_value(value: SSAValue | None) -> int | None:
    """The integer an `arith.constant` defines, else None (a run-time value). Local rather than
    mmair.dialects.pto's: reading PTOAS text must not import mmair's pto dialect (and numpy)."""
    from xdsl.dialects.arith import ConstantOp

    if value is None or not isinstance(value.owner, ConstantOp):
        return None
    attr = value.owner.value
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _error(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {message}")


def ptr_space(value: SSAValue) -> str | None:
    return value.type.space.data if isinstance(value.type, PtrType) else None


def ptr_element(value: SSAValue) -> Attribute | None:
    return value.type.element_type if isinstance(value.type, PtrType) else None


# ----------------------------------------------------------------------------------------------
# Pointers
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class TileBufAddrOp(IRDLOperation):
    """The address of a tile_buf's data as a typed pointer of the tile's space."""

    name = "pto.tile_buf_addr"
    src = operand_def(TileBufType)
    dst = result_def(PtrType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($dst)"


@irdl_op_definition
class CastPtrOp(IRDLOperation):
    """`integer -> !pto.ptr<T, space>` (a byte address in the space) or a pointer-to-pointer cast
    within one space (PTOOps.td CastPtrOp)."""

    name = "pto.castptr"
    input = operand_def()
    result = result_def()
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        if not isinstance(dst, PtrType):
            raise _error(self, f"requires a !pto.ptr result, got {dst}")
        if isinstance(src, PtrType):
            if src.space != dst.space:
                raise _error(self, f"requires a pointer cast within one address space, got "
                                   f"{src.space.data} -> {dst.space.data}")
        elif not isinstance(src, IntegerType):
            raise _error(self, f"requires an integer or !pto.ptr input, got {src}")


@irdl_op_definition
class AddPtrOp(IRDLOperation):
    """A pointer advanced by an element offset (not bytes)."""

    name = "pto.addptr"
    ptr = operand_def(PtrType)
    offset = operand_def(IndexType)
    result = result_def(PtrType)
    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `->` type($result)"

    def verify_(self) -> None:
        if self.ptr.type != self.result.type:
            raise _error(self, f"requires the result type {self.ptr.type}, got {self.result.type}")


# ----------------------------------------------------------------------------------------------
# The clause-form ops: named operand slots, filled in text order
# ----------------------------------------------------------------------------------------------


class _SlotOp(IRDLOperation):
    """An op whose operands are named slots, each optional (`var_operand_def` with segment
    sizes), in the order of `SLOTS`; keyword clauses are properties."""

    SLOTS: ClassVar[tuple[str, ...]]

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def value(self, slot: str) -> SSAValue | None:
        values = getattr(self, slot)
        return values[0] if values else None

    def require(self, slot: str) -> SSAValue:
        value = self.value(slot)
        assert value is not None, slot
        return value

    @classmethod
    def from_slots(cls, values: dict[str, SSAValue], properties: dict[str, Attribute],
                   attributes: dict[str, Attribute] | None = None):
        op = cls.build(operands=[[values[s]] if s in values else [] for s in cls.SLOTS],
                       properties=properties)
        op.attributes.update(attributes or {})
        return op


def _slot_op(name: str, class_name: str, base: type[_SlotOp], slots: Sequence[str],
             doc: str, extra: dict | None = None) -> type[_SlotOp]:
    constants = {"SLOTS": tuple(slots), **(extra or {})}
    body: dict = {"name": name, "__doc__": doc, **constants,
                  "__annotations__": {key: ClassVar for key in constants}}
    for slot in slots:
        body[slot] = var_operand_def()
    return irdl_op_definition(type(class_name, (base,), body))


class _Reader:
    """Operands read in text order, resolved once the types after `:` are read in that order."""

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.order: list[tuple[str, UnresolvedOperand]] = []

    def operand(self, slot: str) -> None:
        self.order.append((slot, self.parser.parse_unresolved_operand()))

    def comma(self) -> bool:
        return self.parser.parse_optional_punctuation(",") is not None

    def keyword_group(self, slots: Sequence[str]) -> None:
        """`(%a, %b, ...)` into `slots`."""
        self.parser.parse_punctuation("(")
        for i, slot in enumerate(slots):
            if i:
                self.parser.parse_punctuation(",")
            self.operand(slot)
        self.parser.parse_punctuation(")")

    def resolve(self, types: Sequence[Attribute]) -> dict[str, SSAValue]:
        if len(types) != len(self.order):
            self.parser.raise_error(f"expected {len(self.order)} types after ':', got {len(types)}")
        return {slot: self.parser.resolve_operand(u, t)
                for (slot, u), t in zip(self.order, types, strict=True)}

    def types(self) -> list[Attribute]:
        return self.parser.parse_comma_separated_list(self.parser.Delimiter.NONE,
                                                      self.parser.parse_type)


def _print_types(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)


def _check_nonnegative(op: Operation, value: SSAValue | None, name: str) -> None:
    v = static_value(value)
    if v is not None and v < 0:
        raise _error(op, f"{name} must be non-negative")


def _check_range(op: Operation, value: SSAValue | None, name: str, lo: int, hi: int) -> None:
    """VPTO.cpp verifyStaticControlRange."""
    v = static_value(value)
    if v is None:
        return
    if v < lo:
        raise _error(op, f"{name} {'must be non-negative' if lo == 0 else 'must be greater than zero'}")
    if v > hi:
        raise _error(op, f"{name} must be <= {hi} to fit the hardware control field")


def _space_is(op: Operation, value: SSAValue, space: str, message: str) -> None:
    if ptr_space(value) != space:
        raise _error(op, message)


def _typed_ptrs(op: Operation, *values: SSAValue) -> None:
    for value in values:
        if not isinstance(value.type, PtrType):
            raise _error(op, f"requires typed !pto.ptr operands (mmair reads the pointer form; "
                             f"memref operands are not modelled), got {value.type}")


# ----------------------------------------------------------------------------------------------
# GM -> L1 (MTE2)
# ----------------------------------------------------------------------------------------------


class _FracBase(_SlotOp):
    mode = opt_prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser):
        r = _Reader(parser)
        r.operand("src")
        parser.parse_punctuation(",")
        r.operand("dst")
        parser.parse_punctuation(",")
        at = parser.pos
        mode = parser.parse_identifier("nd2nz or dn2nz")
        if mode not in ("nd2nz", "dn2nz"):
            parser.raise_error(f"expected nd2nz or dn2nz, got {mode}", at, parser.pos)
        parser.parse_punctuation(",")
        parser.parse_keyword("shape")
        r.keyword_group(("n_value", "d_value"))
        parser.parse_punctuation(",")
        parser.parse_keyword("src_layout")
        parser.parse_punctuation("(")
        r.operand("src_inner_stride")
        if r.comma():
            r.operand("src_outer_stride")
        parser.parse_punctuation(")")
        parser.parse_punctuation(",")
        parser.parse_keyword("dst_group")
        r.keyword_group(("group_count", "dst_loop2_stride", "dst_loop3_stride",
                         "dst_loop4_stride"))
        parser.parse_punctuation(",")
        parser.parse_keyword("ctrl")
        r.keyword_group(("l2_cache_ctrl", "smallc0_en"))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
        parser.parse_punctuation(",")
        parser.parse_keyword(mode)
        parser.parse_punctuation(",")

        def fixed(keyword: str, count: int, parens: bool = False) -> None:
            parser.parse_keyword(keyword)
            if parens:
                parser.parse_punctuation("(")
            for i in range(count):
                if i:
                    parser.parse_punctuation(",")
                types.append(parser.parse_type())
            if parens:
                if parser.parse_optional_punctuation(",") is not None:
                    types.append(parser.parse_type())
                parser.parse_punctuation(")")

        fixed("shape", 2)
        parser.parse_punctuation(",")
        fixed("src_layout", 1, parens=True)
        parser.parse_punctuation(",")
        fixed("dst_group", 4)
        parser.parse_punctuation(",")
        fixed("ctrl", 2)
        return cls.from_slots(r.resolve(types), {"mode": StringAttr(mode)}, attrs)

    def print(self, printer: Printer) -> None:
        v = self.require
        printer.print_string(" ")
        printer.print_list([v("src"), v("dst")], printer.print_ssa_value)
        printer.print_string(f", {self.mode.data}, shape(")
        printer.print_list([v("n_value"), v("d_value")], printer.print_ssa_value)
        printer.print_string("), src_layout(")
        layout = [x for x in (v("src_inner_stride"), self.value("src_outer_stride")) if x]
        printer.print_list(layout, printer.print_ssa_value)
        printer.print_string("), dst_group(")
        group = [v(s) for s in ("group_count", "dst_loop2_stride", "dst_loop3_stride",
                                "dst_loop4_stride")]
        printer.print_list(group, printer.print_ssa_value)
        printer.print_string("), ctrl(")
        printer.print_list([v("l2_cache_ctrl"), v("smallc0_en")], printer.print_ssa_value)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v("src").type, v("dst").type], printer.print_attribute)
        printer.print_string(f", {self.mode.data}, shape ")
        printer.print_list([v("n_value").type, v("d_value").type], printer.print_attribute)
        printer.print_string(", src_layout(")
        printer.print_list([x.type for x in layout], printer.print_attribute)
        printer.print_string("), dst_group ")
        printer.print_list([x.type for x in group], printer.print_attribute)
        printer.print_string(", ctrl ")
        printer.print_list([v("l2_cache_ctrl").type, v("smallc0_en").type],
                           printer.print_attribute)

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        _typed_ptrs(self, src, dst)
        _space_is(self, src, "gm", "requires a GM source")
        _space_is(self, dst, "l1", "requires an L1 (mat) destination")
        for slot in ("group_count", "dst_loop2_stride", "dst_loop3_stride", "dst_loop4_stride",
                     "n_value", "d_value", "src_inner_stride", "src_outer_stride"):
            _check_nonnegative(self, self.value(slot), slot)
        if static_value(self.value("group_count")) == 0:
            raise _error(self, "group_count must be greater than zero")
        small = static_value(self.require("smallc0_en"))
        d = static_value(self.value("d_value"))
        if small not in (None, 0) and d is not None and d > 4:
            raise _error(self, "smallc0_en requires d_value <= 4")


MteGmL1FracOp = _slot_op(
    "pto.mte_gm_l1_frac", "MteGmL1FracOp", _FracBase,
    ("src", "dst", "n_value", "d_value", "src_inner_stride", "src_outer_stride", "group_count",
     "dst_loop2_stride", "dst_loop3_stride", "dst_loop4_stride", "l2_cache_ctrl", "smallc0_en"),
    "GM ND (or DN) matrices to L1 NZ fractals, `group_count` of them (MTE2).")


MAX_BURST_LOOPS = 4
"""`loop(...)` groups mmair reads on one mte_gm_l1 (PTOAS takes any number)."""


class _BurstBase(_SlotOp):
    """`%src, %dst, %len_burst nburst(%count, %src_stride, %dst_stride) [loop(...)]*`: bytes,
    start-to-start strides (the micro-ISA page's burst / loop model)."""

    @classmethod
    def parse(cls, parser: Parser):
        r = _Reader(parser)
        r.operand("src")
        parser.parse_punctuation(",")
        r.operand("dst")
        parser.parse_punctuation(",")
        r.operand("len_burst")
        parser.parse_keyword("nburst")
        r.keyword_group(("count", "src_stride", "dst_stride"))
        loops = 0
        while True:
            at = parser.pos
            if parser.parse_optional_keyword("loop") is None:
                break
            loops += 1
            if loops > MAX_BURST_LOOPS:
                parser.raise_error(f"mmair reads at most {MAX_BURST_LOOPS} loop(...) groups",
                                   at, parser.pos)
            r.keyword_group((f"loop{loops}_count", f"loop{loops}_src_stride",
                             f"loop{loops}_dst_stride"))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.from_slots(r.resolve(r.types()), {}, attrs)

    def loops(self) -> list[tuple[SSAValue, SSAValue, SSAValue]]:
        out = []
        for i in range(1, MAX_BURST_LOOPS + 1):
            if self.value(f"loop{i}_count") is not None:
                out.append(tuple(self.require(f"loop{i}_{s}")
                                 for s in ("count", "src_stride", "dst_stride")))
        return out

    def print(self, printer: Printer) -> None:
        v = self.require
        printer.print_string(" ")
        printer.print_list([v("src"), v("dst"), v("len_burst")], printer.print_ssa_value)
        printer.print_string(" nburst(")
        printer.print_list([v("count"), v("src_stride"), v("dst_stride")], printer.print_ssa_value)
        printer.print_string(")")
        for loop in self.loops():
            printer.print_string(" loop(")
            printer.print_list(loop, printer.print_ssa_value)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        _print_types(printer, [self.value(s) for s in self.SLOTS if self.value(s) is not None])

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        _typed_ptrs(self, src, dst)
        _space_is(self, src, "gm", "requires a GM source")
        _space_is(self, dst, "l1", "requires an L1 (mat) destination")
        for slot in self.SLOTS[2:]:
            _check_nonnegative(self, self.value(slot), slot)


_LOOP_SLOTS = tuple(f"loop{i}_{s}" for i in range(1, MAX_BURST_LOOPS + 1)
                    for s in ("count", "src_stride", "dst_stride"))
MteGmL1Op = _slot_op("pto.mte_gm_l1", "MteGmL1Op", _BurstBase,
                     ("src", "dst", "len_burst", "count", "src_stride", "dst_stride", *_LOOP_SLOTS),
                     "GM bytes to L1 as they are: nburst rows of len_burst bytes (MTE2).")


# ----------------------------------------------------------------------------------------------
# L1 -> L0A / L0B (MTE1)
# ----------------------------------------------------------------------------------------------

FULL_CONTROL = ("m_start", "k_start", "m_step", "k_step", "src_stride", "dst_stride")


class _L1L0Base(_SlotOp):
    SHAPE: ClassVar[tuple[str, ...]]
    DST_SPACE: ClassVar[str]
    DST_NAME: ClassVar[str]
    SHAPE_FORM: ClassVar[bool] = True

    @property
    def transpose(self) -> bool:
        attr = self.attributes.get("transpose")
        return isinstance(attr, IntegerAttr) and bool(attr.value.data)

    @property
    def full_control(self) -> bool:
        return self.value("m_start") is not None

    @classmethod
    def parse(cls, parser: Parser):
        r = _Reader(parser)
        r.operand("src")
        parser.parse_punctuation(",")
        r.operand("dst")
        names = (*cls.SHAPE, *FULL_CONTROL) if cls.SHAPE_FORM else FULL_CONTROL
        positional: list[UnresolvedOperand] = []
        while r.comma():
            at = parser.pos
            keyword = parser.parse_optional_identifier()
            if keyword is None:
                positional.append(parser.parse_unresolved_operand())
                continue
            if keyword not in names:
                parser.raise_error(f"unknown field '{keyword}', expected one of "
                                   f"[{', '.join(names)}]", at, parser.pos)
            r.keyword_group((keyword,))
        if positional:
            if r.order[2:]:
                parser.raise_error("cannot mix positional and named operands")
            if len(positional) == 6:
                slots = FULL_CONTROL
            elif len(positional) == 4 and cls.SHAPE_FORM:
                slots = cls.SHAPE
            else:
                parser.raise_error("expects either four shape-derived or six full positional "
                                   "operands" if cls.SHAPE_FORM else "expects six operands")
            r.order.extend(zip(slots, positional, strict=True))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.from_slots(r.resolve(r.types()), {}, attrs)

    def print(self, printer: Printer) -> None:
        shape = [self.value(s) for s in self.SHAPE] if self.SHAPE_FORM else []
        full = [self.value(s) for s in FULL_CONTROL]
        printer.print_string(" ")
        values = [self.require("src"), self.require("dst")]
        printer.print_list(values, printer.print_ssa_value)
        for group, names in ((shape, self.SHAPE), (full, FULL_CONTROL)):
            present = [v for v in group if v is not None]
            if not present:
                continue
            if len(present) == len(group):
                printer.print_string(", ")
                printer.print_list(present, printer.print_ssa_value)
            else:  # a partial group prints its names (PTOAS's diagnostic spelling)
                for value, name in zip(group, names, strict=True):
                    if value is not None:
                        printer.print_string(f", {name}(")
                        printer.print_ssa_value(value)
                        printer.print_string(")")
            values.extend(present)
        printer.print_op_attributes(self.attributes)
        _print_types(printer, values)

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        _typed_ptrs(self, src, dst)
        _space_is(self, src, "l1", "requires MAT source")
        _space_is(self, dst, self.DST_SPACE, f"requires {self.DST_NAME} destination")
        if _element_bytes(src) != _element_bytes(dst):
            raise _error(self, "requires source and destination element byte widths to match")
        shape = [self.value(s) for s in self.SHAPE] if self.SHAPE_FORM else []
        full = [self.value(s) for s in FULL_CONTROL]
        has_shape, has_full = any(shape), any(full)
        if has_shape and has_full:
            raise _error(self, "cannot mix shape-derived operands with full control operands")
        if not has_shape and not has_full:
            raise _error(self, "requires either all shape-derived operands or all full control "
                               "operands")
        if has_shape:
            for value, name in zip(shape, self.SHAPE, strict=True):
                if value is None:
                    raise _error(self, f"shape-derived form requires {name}")
            _check_nonnegative(self, shape[2], "start_row")
            _check_nonnegative(self, shape[3], "start_col")
            return
        for value, name in zip(full, FULL_CONTROL, strict=True):
            if value is None:
                raise _error(self, f"full control form requires {name}")
        u16, u8 = 65535, 255
        for value, name, lo, hi in zip(full, FULL_CONTROL, (0, 0, 1, 1, 1, 1),
                                       (u16, u16, u8, u8, u16, u16), strict=True):
            _check_range(self, value, name, lo, hi)


def _element_bytes(value: SSAValue) -> int:
    from mmair.dialects.types import element_name_or_none
    from mmair.isa.ascend.targets import element_bits

    name = element_name_or_none(ptr_element(value))
    return element_bits(name) // 8 if name is not None else 0


_L1L0_DOC = ("L1 NZ fractals to the cube's {side} operand (MTE1): a logical {shape} tile "
             "(start in fractal blocks), or the LoadData2DParamsV2 fields as written.")
MteL1L0aOp = _slot_op("pto.mte_l1_l0a", "MteL1L0aOp", _L1L0Base,
                      ("src", "dst", "m", "k", "start_row", "start_col", *FULL_CONTROL),
                      _L1L0_DOC.format(side="left", shape="m x k"),
                      {"SHAPE": ("m", "k", "start_row", "start_col"), "DST_SPACE": "l0a",
                       "DST_NAME": "LEFT"})
MteL1L0bOp = _slot_op("pto.mte_l1_l0b", "MteL1L0bOp", _L1L0Base,
                      ("src", "dst", "k", "n", "start_row", "start_col", *FULL_CONTROL),
                      _L1L0_DOC.format(side="right", shape="k x n"),
                      {"SHAPE": ("k", "n", "start_row", "start_col"), "DST_SPACE": "l0b",
                       "DST_NAME": "RIGHT"})
LoadCbufToCaOp = _slot_op("pto.load_cbuf_to_ca", "LoadCbufToCaOp", _L1L0Base,
                          ("src", "dst", *FULL_CONTROL),
                          "The expanded `mte_l1_l0a`: the CCE load_cbuf_to_ca fields.",
                          {"SHAPE": (), "SHAPE_FORM": False, "DST_SPACE": "l0a",
                           "DST_NAME": "LEFT"})
LoadCbufToCbOp = _slot_op("pto.load_cbuf_to_cb", "LoadCbufToCbOp", _L1L0Base,
                          ("src", "dst", *FULL_CONTROL),
                          "The expanded `mte_l1_l0b`: the CCE load_cbuf_to_cb fields.",
                          {"SHAPE": (), "SHAPE_FORM": False, "DST_SPACE": "l0b",
                           "DST_NAME": "RIGHT"})


# ----------------------------------------------------------------------------------------------
# L1 -> BT (MTE1)
# ----------------------------------------------------------------------------------------------


class _L1BtBase(_SlotOp):
    @classmethod
    def parse(cls, parser: Parser):
        r = _Reader(parser)
        r.operand("src")
        parser.parse_punctuation(",")
        r.operand("dst")
        parser.parse_punctuation(",")
        r.operand("len_burst")
        parser.parse_keyword("nburst")
        r.keyword_group(("count", "src_gap", "dst_gap"))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.from_slots(r.resolve(r.types()), {}, attrs)

    def print(self, printer: Printer) -> None:
        v = self.require
        printer.print_string(" ")
        printer.print_list([v("src"), v("dst"), v("len_burst")], printer.print_ssa_value)
        printer.print_string(" nburst(")
        printer.print_list([v("count"), v("src_gap"), v("dst_gap")], printer.print_ssa_value)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        _print_types(printer, [v(s) for s in self.SLOTS])

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        _typed_ptrs(self, src, dst)
        _space_is(self, src, "l1", "requires MAT source")
        _space_is(self, dst, "bt", "requires BIAS destination")
        pair = (str(ptr_element(src)), str(ptr_element(dst)))
        if pair not in (("f32", "f32"), ("i32", "i32"), ("f16", "f32"), ("bf16", "f32")):
            raise _error(self, "expects one of f32->f32, i32->i32, f16->f32, or bf16->f32")


MteL1BtOp = _slot_op("pto.mte_l1_bt", "MteL1BtOp", _L1BtBase,
                     ("src", "dst", "len_burst", "count", "src_gap", "dst_gap"),
                     "An L1 bias payload to the bias table (MTE1).")


# ----------------------------------------------------------------------------------------------
# MAD (M)
# ----------------------------------------------------------------------------------------------

MAD_UNIT_FLAGS = ("check_only", "check_and_set")
TF32_MODES = ("round_even", "round_away")


class _MadBase(_SlotOp):
    BIAS: ClassVar[bool] = False
    ACCUMULATES: ClassVar[bool] = False

    unit_flag = opt_prop_def(StringAttr)
    disable_gemv = opt_prop_def(UnitAttr)
    sat = opt_prop_def(StringAttr)
    tf32_mode = opt_prop_def(StringAttr)
    n_dir = opt_prop_def(UnitAttr)

    @classmethod
    def parse(cls, parser: Parser):
        r = _Reader(parser)
        slots = ("lhs", "rhs", "dst", "bias", "m", "n", "k") if cls.BIAS else \
            ("lhs", "rhs", "dst", "m", "n", "k")
        for i, slot in enumerate(slots):
            if i:
                parser.parse_punctuation(",")
            r.operand(slot)
        props: dict[str, Attribute] = {}

        def choice(options: Sequence[str], what: str) -> StringAttr:
            parser.parse_punctuation("(")
            at = parser.pos
            word = parser.parse_identifier(what)
            if word not in options:
                parser.raise_error(f"expected {what}({'|'.join(options)})", at, parser.pos)
            parser.parse_punctuation(")")
            return StringAttr(word)

        while True:
            if parser.parse_optional_keyword("unit_flag"):
                props["unit_flag"] = choice(MAD_UNIT_FLAGS, "unit_flag")
            elif parser.parse_optional_keyword("disable_gemv"):
                props["disable_gemv"] = UnitAttr()
            elif parser.parse_optional_keyword("sat"):
                props["sat"] = StringAttr("sat")
            elif parser.parse_optional_keyword("nosat"):
                props["sat"] = StringAttr("nosat")
            elif parser.parse_optional_keyword("tf32_mode"):
                props["tf32_mode"] = choice(TF32_MODES, "tf32_mode")
            elif parser.parse_optional_keyword("n_dir"):
                props["n_dir"] = UnitAttr()
            else:
                break
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.from_slots(r.resolve(r.types()), props, attrs)

    def print(self, printer: Printer) -> None:
        values = [self.value(s) for s in self.SLOTS if self.value(s) is not None]
        printer.print_string(" ")
        printer.print_list(values, printer.print_ssa_value)
        if self.unit_flag is not None:
            printer.print_string(f" unit_flag({self.unit_flag.data})")
        if self.disable_gemv is not None:
            printer.print_string(" disable_gemv")
        if self.sat is not None:
            printer.print_string(f" {self.sat.data}")
        if self.tf32_mode is not None:
            printer.print_string(f" tf32_mode({self.tf32_mode.data})")
        if self.n_dir is not None:
            printer.print_string(" n_dir")
        printer.print_op_attributes(self.attributes)
        _print_types(printer, values)

    def verify_(self) -> None:
        """VPTO.cpp verifyMadSemanticClauses, with its messages."""
        lhs, rhs, dst = self.require("lhs"), self.require("rhs"), self.require("dst")
        if not all(isinstance(v.type, PtrType) for v in (lhs, rhs, dst)):
            raise _error(self, "requires typed !pto.ptr lhs/rhs/dst operands")
        if (ptr_space(lhs), ptr_space(rhs), ptr_space(dst)) != ("l0a", "l0b", "l0c"):
            raise _error(self, "requires l0a/l0b/l0c-typed lhs/rhs/dst pointers")
        if self.BIAS:
            bias = self.require("bias")
            if not isinstance(bias.type, PtrType):
                raise _error(self, "requires typed !pto.ptr bias operand")
            if ptr_space(bias) != "bt":
                raise _error(self, "requires bias pointer in !pto.ptr<..., bt>")
            if ptr_element(bias) != ptr_element(dst):
                raise _error(self, "requires bias element type to match dst element type")
        names = [str(ptr_element(v)) for v in (lhs, rhs, dst)]
        if self.tf32_mode is not None and names != ["f32"] * 3:
            raise _error(self, "requires tf32_mode only for f32 lhs/rhs/dst element types")
        if (names[0] == "!pto.hif8") != (names[1] == "!pto.hif8"):
            raise _error(self, "requires lhs/rhs to both use hif8 or both use non-hif8 element "
                               "types")
        if self.sat is not None and not all(_is_float(ptr_element(v)) for v in (lhs, rhs, dst)):
            raise _error(self, "requires sat/nosat only for floating lhs/rhs/dst element types")


def _is_float(element: Attribute | None) -> bool:
    from xdsl.dialects.builtin import AnyFloat

    return isinstance(element, AnyFloat) or (element is not None and str(element).startswith("!pto."))


_MAD_SLOTS = ("lhs", "rhs", "dst", "bias", "m", "n", "k")
MadOp = _slot_op("pto.mad", "MadOp", _MadBase, _MAD_SLOTS,
                 "dst = lhs x rhs (a zero-initialised M x N accumulator), on the cube (M).")
MadAccOp = _slot_op("pto.mad_acc", "MadAccOp", _MadBase, _MAD_SLOTS,
                    "dst += lhs x rhs.", {"ACCUMULATES": True})
MadBiasOp = _slot_op("pto.mad_bias", "MadBiasOp", _MadBase, _MAD_SLOTS,
                     "dst = lhs x rhs + bias[n] (the bias table broadcast over M).",
                     {"BIAS": True})


# ----------------------------------------------------------------------------------------------
# L0C -> GM / L1 (FIX)
# ----------------------------------------------------------------------------------------------

ACC_UNIT_FLAGS = ("check_only", "check_and_clear")
QUANT_PRE_MODES = (
    "no_convert", "f32_f16", "qf322hif8_pre_vec", "qf322hif8_pre_scalar", "qf322hif8_pre_hybrid_vec",
    "qf322hif8_pre_hybrid_scalar", "deqs32_int_vec", "deqs32_int_scalar", "req8_vec",
    "req8_scalar", "deqf16_vec", "deqf16_scalar", "qf322fp8_pre_vec", "qf322fp8_pre_scalar",
    "qf322f32_pre_vec", "qf322f32_pre_scalar", "f32_bf16", "qf162b8_pre_vec",
    "qf162b8_pre_scalar", "qf162s4_pre_vec", "qf162s4_pre_scalar", "req4_vec", "req4_scalar",
    "qf322b8_pre_vec", "qf322b8_pre_scalar", "qf322s4_pre_vec", "qf322s4_pre_scalar",
    "deqs16_vec", "deqs16_scalar", "qf162s16_pre_vec", "qf162s16_pre_scalar", "qf322f16_pre_vec",
    "qf322f16_pre_scalar", "qf322bf16_pre_vec", "qf322bf16_pre_scalar", "qs322bf16_pre_vec",
    "qs322bf16_pre_scalar",
)
RELU_PRE_MODES = ("no_relu", "normal_relu", "scalar_relu", "vector_relu", "pwl")
_I32_QUANT = ("deqs32_int", "deqs16", "req8", "req4", "deqf16", "qf162s16", "qs322bf16")
# pre_quant mode family -> the destination element types it writes (the micro-ISA page's table)
_QUANT_DESTINATIONS = (
    ("f32_f16", ("f16",)), ("f32_bf16", ("bf16",)), ("qf322hif8", ("!pto.hif8",)),
    ("qf322fp8", ("f8E4M3FN", "f8E5M2")), ("qf322f32", ("f32",)), ("qf322f16", ("f16",)),
    ("qf322bf16", ("bf16",)), ("qf322b8", ("i8", "ui8", "si8")), ("qf322s4", ("i4", "si4")),
    ("qf162b8", ("i8", "ui8", "si8")), ("qf162s4", ("i4", "si4")), ("qf162s16", ("i16", "si16")),
    ("deqs32_int", ("i32", "si32")), ("deqs16", ("i16", "si16")), ("req8", ("i8", "ui8", "si8")),
    ("req4", ("i4", "si4")), ("deqf16", ("f16",)), ("qs322bf16", ("bf16",)),
)
_FLOAT_PAYLOADS = ("f16", "bf16", "f32")
ATOMIC_TYPES = ("f32", "f16", "bf16", "s32", "s16", "s8")
ATOMIC_OPS = ("add", "max", "min")
_CLAUSE_ORDER = ("unit_flag", "pre_quant", "pre_relu", "layout", "loop3", "sat", "atomic")


class _AccStoreBase(_SlotOp):
    GM: ClassVar[bool] = False
    UB: ClassVar[bool] = False
    DST_SPACE: ClassVar[str]
    DST_NAME: ClassVar[str]

    unit_flag = opt_prop_def(StringAttr)
    quant_mode = opt_prop_def(StringAttr)
    relu_mode = opt_prop_def(StringAttr)
    layout = opt_prop_def(StringAttr)
    sat = opt_prop_def(StringAttr)
    atomic_type = opt_prop_def(StringAttr)
    atomic_op = opt_prop_def(StringAttr)
    dst_mode = opt_prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser):
        r = _Reader(parser)
        heads = ("src", "dst", "m", "n", "src_stride", "dst_stride")
        if cls.GM:
            heads = (*heads, "sid", "l2_cache_ctrl")
        for i, slot in enumerate(heads):
            if i:
                parser.parse_punctuation(",")
            r.operand(slot)
        props: dict[str, Attribute] = {}
        if cls.UB:  # dst_mode(%sub_blockid | split_m | split_n)
            parser.parse_punctuation(",")
            parser.parse_keyword("dst_mode")
            parser.parse_punctuation("(")
            at = parser.pos
            mode = parser.parse_optional_identifier()
            if mode is None:
                r.operand("sub_blockid")
                heads = (*heads, "sub_blockid")
            elif mode in ("split_m", "split_n"):
                props["dst_mode"] = StringAttr(mode)
            else:
                parser.raise_error("expected dst_mode(%sub_blockid), dst_mode(split_m), or "
                                   "dst_mode(split_n)", at, parser.pos)
            parser.parse_punctuation(")")
        tail: list[str] = []  # slots whose types follow the heads' types, in PTOAS's order
        last = -1
        while r.comma():
            at = parser.pos
            word = parser.parse_identifier("an mte_l0c clause")
            kind = "layout" if word in ("nz2nd", "nz2dn", "nz2nz") else \
                "sat" if word == "nosat" else word
            if kind not in _CLAUSE_ORDER:
                parser.raise_error("unknown mte_l0c clause", at, parser.pos)
            if _CLAUSE_ORDER.index(kind) == last:
                what = {"sat": "sat/nosat", "layout": "layout"}.get(kind, kind)
                parser.raise_error(f"duplicate {what} clause", at, parser.pos)
            if _CLAUSE_ORDER.index(kind) < last:
                parser.raise_error("mte_l0c clauses must follow canonical order", at, parser.pos)
            last = _CLAUSE_ORDER.index(kind)
            _ACC_CLAUSE[kind](parser, r, props, word, tail)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = r.types()
        order = {slot: u for slot, u in r.order}
        r.order = [(s, order[s]) for s in (*heads, *_TAIL_ORDER) if s in order]
        return cls.from_slots(r.resolve(types), props, attrs)

    def print(self, printer: Printer) -> None:
        heads = ["src", "dst", "m", "n", "src_stride", "dst_stride"]
        if self.GM:
            heads += ["sid", "l2_cache_ctrl"]
        printer.print_string(" ")
        printer.print_list([self.require(s) for s in heads], printer.print_ssa_value)
        if self.UB:
            printer.print_string(", dst_mode(")
            if self.dst_mode is not None:
                printer.print_string(self.dst_mode.data)
            else:
                printer.print_ssa_value(self.require("sub_blockid"))
            printer.print_string(")")
            if self.value("sub_blockid") is not None:
                heads = [*heads, "sub_blockid"]

        def operand(slot: str) -> None:
            printer.print_ssa_value(self.require(slot))

        if self.unit_flag is not None:
            printer.print_string(f", unit_flag({self.unit_flag.data})")
        if self.quant_mode is not None:
            printer.print_string(", pre_quant(")
            operand("quant_payload")
            printer.print_string(f", mode = {self.quant_mode.data})")
        if self.relu_mode is not None:
            printer.print_string(", pre_relu(")
            if self.value("relu_payload") is not None:
                operand("relu_payload")
                printer.print_string(", ")
            printer.print_string(f"mode = {self.relu_mode.data}")
            if self.value("clip") is not None:
                printer.print_string(", clip = ")
                operand("clip")
            printer.print_string(")")
        if self.layout is not None:
            printer.print_string(f", {self.layout.data}")
            for slot in ("loop0_src_stride", "split"):
                if self.value(slot) is not None:
                    printer.print_string("(")
                    operand(slot)
                    printer.print_string(")")
        if self.value("loop3_count") is not None:
            printer.print_string(", loop3(")
            printer.print_list([self.require(s) for s in ("loop3_count", "loop3_src_stride",
                                                          "loop3_dst_stride")],
                               printer.print_ssa_value)
            printer.print_string(")")
        if self.sat is not None:
            printer.print_string(f", {self.sat.data}")
        if self.atomic_type is not None and self.atomic_op is not None:
            printer.print_string(f", atomic(type = {self.atomic_type.data}, "
                                 f"op = {self.atomic_op.data})")
        printer.print_op_attributes(self.attributes)
        values = [self.require(s) for s in heads]
        values += [self.require(s) for s in _TAIL_ORDER if self.value(s) is not None]
        _print_types(printer, values)

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        _typed_ptrs(self, src, dst)
        if ptr_space(src) != "l0c" or ptr_space(dst) != self.DST_SPACE:
            raise _error(self, f"requires ACC source and {self.DST_NAME} destination")
        if self.atomic_type is not None and not self.GM:
            raise _error(self, "atomic is only supported for mte_l0c_gm")
        if self.GM:
            _check_range(self, self.value("sid"), "sid", 0, 3)
            _check_range(self, self.value("l2_cache_ctrl"), "l2_cache_ctrl", 0, 15)
        layout = self.layout.data if self.layout is not None else None
        if self.value("split") is not None and layout != "nz2nz":
            raise _error(self, "split requires nz2nz")
        if self.value("loop0_src_stride") is not None and layout != "nz2dn":
            raise _error(self, "loop0_src_stride requires nz2dn")
        if layout == "nz2dn" and self.value("loop0_src_stride") is None:
            raise _error(self, "nz2dn requires loop0_src_stride")
        if layout == "nz2dn" and self.unit_flag is not None and \
                static_value(self.value("loop0_src_stride")) != 1:
            raise _error(self, "unit_flag must be off when nz2dn loop0_src_stride is not 1")
        if self.value("loop3_count") is not None and layout not in ("nz2nd", "nz2dn"):
            raise _error(self, "loop3 requires nz2nd or nz2dn")
        if layout == "nz2nz" and str(ptr_element(dst)) != "f32":
            raise _error(self, "nz2nz requires destination element type to be f32")
        self._verify_quant(str(ptr_element(src)), str(ptr_element(dst)))
        clip = self.value("clip")
        dst_elem = str(ptr_element(dst))
        if clip is not None and dst_elem not in ("f16", "ui8", "i4", "si4", "i8", "si8", "i16",
                                                 "si16"):
            raise _error(self, f"clip requires destination element type to be f16, ui8, or "
                               f"signed 4/8/16-bit integer, got {dst_elem}")
        if clip is not None and dst_elem == "ui8" and str(clip.type) not in ("ui16", "i16"):
            raise _error(self, "clip for ui8 destination requires ui16/signless i16 payload")
        if self.relu_mode is not None:
            mode, payload = self.relu_mode.data, self.value("relu_payload")
            if mode == "pwl":
                raise _error(self, f"pwl is not supported for target_profile "
                                   f"{self.name.removeprefix('pto.')}")
            if mode == "vector_relu" and payload is not None and (
                    ptr_space(payload) != "fb" or str(ptr_element(payload)) not in _FLOAT_PAYLOADS):
                raise _error(self, "vector_relu requires scaling pointer element type to be f16, "
                                   "bf16, or f32")
            if mode in ("no_relu", "normal_relu") and payload is not None:
                raise _error(self, "mode does not accept pre_relu payload")
            if mode == "scalar_relu" and payload is None:
                raise _error(self, "scalar_relu requires payload")
            if mode == "vector_relu" and payload is None:
                raise _error(self, "vector_relu requires payload")
        elif self.value("clip") is not None:
            raise _error(self, "clip requires pre_relu clause")
        if self.UB:
            self._verify_dst_mode()

    def _verify_quant(self, src_elem: str, dst_elem: str) -> None:
        """VPTO.cpp verifyStructuredAccStoreLike, the pre_quant part."""
        if self.quant_mode is None or self.quant_mode.data == "no_convert":
            return
        mode, payload = self.quant_mode.data, self.require("quant_payload")
        if mode.endswith("_vec"):
            if ptr_space(payload) != "fb":
                raise _error(self, "vector pre_quant mode requires scaling pointer payload")
            if str(ptr_element(payload)) not in _FLOAT_PAYLOADS:
                raise _error(self, "vector pre_quant mode requires scaling pointer element type "
                                   "to be f16, bf16, or f32")
        elif str(payload.type) not in _FLOAT_PAYLOADS:
            raise _error(self, "scalar pre_quant mode requires f16/bf16/f32 payload")
        incompatible = _error(self, f"pre_quant mode {mode} is incompatible with source element "
                                    f"type '{src_elem}' and destination element type "
                                    f"'{dst_elem}'")
        if src_elem not in ("f32", "i32"):
            raise _error(self, f"pre_quant requires source element type to be f32 or i32, got "
                               f"{src_elem}")
        if (src_elem == "i32") != mode.startswith(_I32_QUANT):
            raise incompatible
        family = next(d for prefix, d in _QUANT_DESTINATIONS if mode.startswith(prefix))
        if dst_elem not in family:
            raise incompatible

    def _verify_dst_mode(self) -> None:
        """VPTO.cpp MteL0cUbOp::verify."""
        sub = self.value("sub_blockid")
        if self.dst_mode is None:
            if static_value(sub) not in (None, 0, 1):
                raise _error(self, "sub_blockid must be 0 or 1")
            return
        if any(self.value(s) is not None for s in _TAIL_ORDER) or self.quant_mode is not None \
                or self.relu_mode is not None:
            raise _error(self, "dual destination mode cannot be combined with pre_quant, "
                               "pre_relu, clip, nz2dn, nz2nz, or loop3")
        if self.layout is not None and self.layout.data != "nz2nd":
            raise _error(self, "dual destination mode requires normal or nz2nd layout")
        m, n = static_value(self.value("m")), static_value(self.value("n"))
        if self.dst_mode.data == "split_m" and m is not None and m % 2:
            raise _error(self, "split-M dual destination requires m to be even")
        if self.dst_mode.data == "split_n" and n is not None and n % 32:
            raise _error(self, "split-N dual destination requires n to be a multiple of 32")


def _clause_unit_flag(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    at = parser.pos
    mode = parser.parse_identifier("unit_flag mode")
    if mode not in ACC_UNIT_FLAGS:
        parser.raise_error("expected 'check_only' or 'check_and_clear'", at, parser.pos)
    parser.parse_punctuation(")")
    props["unit_flag"] = StringAttr(mode)


def _mode(parser: Parser, legal: Sequence[str], what: str) -> StringAttr:
    parser.parse_keyword("mode")
    parser.parse_punctuation("=")
    at = parser.pos
    mode = parser.parse_identifier(what)
    if mode not in legal:
        parser.raise_error(f"invalid {what}", at, parser.pos)
    return StringAttr(mode)


def _clause_pre_quant(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    r.operand("quant_payload")
    parser.parse_punctuation(",")
    props["quant_mode"] = _mode(parser, QUANT_PRE_MODES, "pre_quant mode")
    parser.parse_punctuation(")")


def _clause_pre_relu(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    if parser.parse_optional_keyword("mode") is None:
        r.operand("relu_payload")
        parser.parse_punctuation(",")
    else:
        parser.parse_punctuation("=")
        at = parser.pos
        mode = parser.parse_identifier("pre_relu mode")
        if mode not in RELU_PRE_MODES:
            parser.raise_error("invalid pre_relu mode", at, parser.pos)
        props["relu_mode"] = StringAttr(mode)
    if "relu_mode" not in props:
        props["relu_mode"] = _mode(parser, RELU_PRE_MODES, "pre_relu mode")
    if r.comma():
        parser.parse_keyword("clip")
        parser.parse_punctuation("=")
        r.operand("clip")
    parser.parse_punctuation(")")


def _clause_layout(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    props["layout"] = StringAttr(word)
    if word in ("nz2dn", "nz2nz") and parser.parse_optional_punctuation("(") is not None:
        r.operand("loop0_src_stride" if word == "nz2dn" else "split")
        parser.parse_punctuation(")")


def _clause_loop3(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    r.keyword_group(("loop3_count", "loop3_src_stride", "loop3_dst_stride"))


def _clause_sat(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    if word == "sat" and parser.parse_optional_punctuation("(") is not None:
        parser.parse_keyword("preserve_nan")
        parser.parse_punctuation(")")
        word = "sat(preserve_nan)"
    props["sat"] = StringAttr(word)


def _clause_atomic(parser: Parser, r: _Reader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    parser.parse_keyword("type")
    parser.parse_punctuation("=")
    at = parser.pos
    kind = parser.parse_identifier("atomic type")
    if kind not in ATOMIC_TYPES:
        parser.raise_error("invalid atomic type", at, parser.pos)
    parser.parse_punctuation(",")
    parser.parse_keyword("op")
    parser.parse_punctuation("=")
    at = parser.pos
    op = parser.parse_identifier("atomic op")
    if op not in ATOMIC_OPS:
        parser.raise_error("invalid atomic op", at, parser.pos)
    parser.parse_punctuation(")")
    props["atomic_type"], props["atomic_op"] = StringAttr(kind), StringAttr(op)


_ACC_CLAUSE: dict[str, Callable[..., None]] = {
    "unit_flag": _clause_unit_flag, "pre_quant": _clause_pre_quant, "pre_relu": _clause_pre_relu,
    "layout": _clause_layout, "loop3": _clause_loop3, "sat": _clause_sat, "atomic": _clause_atomic,
}
# The order of the optional operands' types after the heads' (parseStructuredAccStoreTailTypes).
_TAIL_ORDER = ("quant_payload", "relu_payload", "clip", "split", "loop0_src_stride", "loop3_count",
               "loop3_src_stride", "loop3_dst_stride")
_ACC_SLOTS = ("src", "dst", "m", "n", "src_stride", "dst_stride", "sid", "l2_cache_ctrl",
              "sub_blockid", *_TAIL_ORDER)

MteL0cGmOp = _slot_op("pto.mte_l0c_gm", "MteL0cGmOp", _AccStoreBase, _ACC_SLOTS,
                      "FIXPIPE: the L0C accumulator to GM, converted and reordered (FIX).",
                      {"GM": True, "DST_SPACE": "gm", "DST_NAME": "GM"})
MteL0cL1Op = _slot_op("pto.mte_l0c_l1", "MteL0cL1Op", _AccStoreBase, _ACC_SLOTS,
                      "FIXPIPE: the L0C accumulator to L1 (FIX).",
                      {"DST_SPACE": "l1", "DST_NAME": "MAT"})
MteL0cUbOp = _slot_op("pto.mte_l0c_ub", "MteL0cUbOp", _AccStoreBase, _ACC_SLOTS,
                      "FIXPIPE: the L0C accumulator to a vector core's UB, one sub-block or "
                      "split over both (FIX).", {"UB": True, "DST_SPACE": "ub", "DST_NAME": "UB"})


VPTO_OPS: tuple[type[Operation], ...] = (
    TileBufAddrOp, CastPtrOp, AddPtrOp, MteGmL1Op, MteGmL1FracOp, MteL1L0aOp, MteL1L0bOp, LoadCbufToCaOp,
    LoadCbufToCbOp, MteL1BtOp, MadOp, MadAccOp, MadBiasOp, MteL0cGmOp, MteL0cL1Op, MteL0cUbOp,
)
"""The VPTO ops mmair reads (the cube data path); passes/ptoas_vpto.py converts them."""
