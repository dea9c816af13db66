"""PTOAS's VPTO cube micro-ops, as PTOAS writes them (include/PTO/IR/VPTOOps.td, the custom
parsers and verifiers of lib/PTO/IR/VPTO.cpp and docs/isa/micro-isa/16-cube-matmul.md at
tonibohnlein/PTOAS e32488c9).

A VPTO kernel names storage by typed pointers, `!pto.ptr<T, space>`, and moves it with one op per
hardware queue:

    %p = pto.tile_buf_addr %tile : !pto.tile_buf<...> -> !pto.ptr<f16, l1>
    %g = pto.tensor_view_addr %view : !pto.partition_tensor_view<...> -> !pto.ptr<f16>  (GM)
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
    pto.mte_l1_fb %l1, %fb, %len_burst nburst(%count, %src_gap, %dst_gap) : ...   (FIX)
    pto.copy_cbuf_to_fbuf %l1, %fb, %n_burst, %len_burst, %src_gap, %dst_gap : ...   (FIX)

The FIXPIPE stores (`mte_l0c_*`) live in vpto_fixpipe.py and the named-slot machinery all these
ops share in vpto_slots.py. The ops carry PTOAS text and make PTOAS's own checks (their messages, from the `*invalid*` lit
tests and VPTO.cpp); their meaning is passes/ptoas_vpto.py's, which rewrites them into mmair's raw
parameter-form ops so that mmair's field checks, executor and checker apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from mmair.dialects.ptoas.types import PtrType, TileBufType, as_pointer
from mmair.dialects.ptoas.vpto_fixpipe import MteL0cGmOp, MteL0cL1Op, MteL0cUbOp
from mmair.dialects.ptoas.vpto_slots import (
    SlotOp,
    SlotReader,
    check_nonnegative,
    check_range,
    op_error,
    print_types,
    ptr_element,
    ptr_space,
    slot_op,
    space_is,
    static_value,
    typed_ptrs,
)

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
class TensorViewAddrOp(IRDLOperation):
    """The GM address of a tensor view's first element as a typed pointer (PTOAS's
    FoldTileBufIntrinsics folds it to the view's base pointer plus the sum of offset x stride of
    a partition_view)."""

    name = "pto.tensor_view_addr"
    src = operand_def()
    dst = result_def(PtrType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($dst)"

    def verify_(self) -> None:
        from mmair.dialects.ptoas.types import PartitionTensorViewType, TensorViewType

        src, dst = self.src.type, self.dst.type
        if not isinstance(src, TensorViewType | PartitionTensorViewType):
            raise op_error(self, f"requires a !pto.tensor_view or !pto.partition_tensor_view "
                                 f"source, got {src}")
        if dst.space.data != "gm" or dst.element_type != src.element_type:
            raise op_error(self, f"requires a !pto.ptr<{src.element_type}, gm> result, got {dst}")


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
            raise op_error(self, f"requires a !pto.ptr result, got {dst}")
        if isinstance(src, PtrType):
            if src.space != dst.space:
                raise op_error(self, f"requires a pointer cast within one address space, got "
                                     f"{src.space.data} -> {dst.space.data}")
        elif not isinstance(src, IntegerType):
            raise op_error(self, f"requires an integer or !pto.ptr input, got {src}")


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
            raise op_error(self, f"requires the result type {self.ptr.type}, got {self.result.type}")


# ----------------------------------------------------------------------------------------------
# GM -> L1 (MTE2)
# ----------------------------------------------------------------------------------------------


class _FracBase(SlotOp):
    mode = opt_prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser):
        r = SlotReader(parser)
        r.operand("src")
        parser.parse_punctuation(",")
        r.operand("dst")
        parser.parse_punctuation(",")
        at = parser.pos
        mode = parser.parse_identifier(" for nd2nz or dn2nz")
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
        typed_ptrs(self, src, dst)
        space_is(self, src, "gm", "requires a GM source")
        space_is(self, dst, "l1", "requires an L1 (mat) destination")
        for slot in ("group_count", "dst_loop2_stride", "dst_loop3_stride", "dst_loop4_stride",
                     "n_value", "d_value", "src_inner_stride", "src_outer_stride"):
            check_nonnegative(self, self.value(slot), slot)
        if static_value(self.value("group_count")) == 0:
            raise op_error(self, "group_count must be greater than zero")
        small = static_value(self.require("smallc0_en"))
        d = static_value(self.value("d_value"))
        if small not in (None, 0) and d is not None and d > 4:
            raise op_error(self, "smallc0_en requires d_value <= 4")


MteGmL1FracOp = slot_op(
    "pto.mte_gm_l1_frac", "MteGmL1FracOp", _FracBase,
    ("src", "dst", "n_value", "d_value", "src_inner_stride", "src_outer_stride", "group_count",
     "dst_loop2_stride", "dst_loop3_stride", "dst_loop4_stride", "l2_cache_ctrl", "smallc0_en"),
    "GM ND (or DN) matrices to L1 NZ fractals, `group_count` of them (MTE2).")


MAX_BURST_LOOPS = 4
"""`loop(...)` groups mmair reads on one mte_gm_l1 (PTOAS takes any number)."""


class _BurstBase(SlotOp):
    """`%src, %dst, %len_burst nburst(%count, %src_stride, %dst_stride) [loop(...)]*`: bytes,
    start-to-start strides (the micro-ISA page's burst / loop model)."""

    @classmethod
    def parse(cls, parser: Parser):
        r = SlotReader(parser)
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
            if all(parser.parse_optional_keyword(k) is None for k in ("loop", "loop1", "loop2")):
                break  # PTOAS's aliases of a loop group (parseOptionalDmaTripleGroupAlias)
            loops += 1
            if loops > MAX_BURST_LOOPS:
                parser.raise_error(f"mmair reads at most {MAX_BURST_LOOPS} loop(...) groups",
                                   at, parser.pos)
            r.keyword_group((f"loop{loops}_count", f"loop{loops}_src_stride",
                             f"loop{loops}_dst_stride"))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        for _ in range(5):  # dst, len_burst, the nburst triple
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        for _ in range(loops):  # `, loop T, T, T` (VPTO.cpp MteGmL1Op::parse; `loop` optional)
            parser.parse_punctuation(",")
            parser.parse_optional_keyword("loop")
            types += [parser.parse_type() if i == 0 else _comma_type(parser) for i in range(3)]
        return cls.from_slots(r.resolve(types), {}, attrs)

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
        print_types(printer, [v(s) for s in ("src", "dst", "len_burst", "count", "src_stride",
                                             "dst_stride")])
        for loop in self.loops():  # PTOAS prints each loop group's types after `loop`
            printer.print_string(", loop ")
            printer.print_list([x.type for x in loop], printer.print_attribute)

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        typed_ptrs(self, src, dst)
        space_is(self, src, "gm", "requires a GM source")
        space_is(self, dst, "l1", "requires an L1 (mat) destination")
        for slot in self.SLOTS[2:]:
            check_nonnegative(self, self.value(slot), slot)


def _comma_type(parser: Parser) -> Attribute:
    parser.parse_punctuation(",")
    return parser.parse_type()


_LOOP_SLOTS = tuple(f"loop{i}_{s}" for i in range(1, MAX_BURST_LOOPS + 1)
                    for s in ("count", "src_stride", "dst_stride"))
MteGmL1Op = slot_op("pto.mte_gm_l1", "MteGmL1Op", _BurstBase,
                    ("src", "dst", "len_burst", "count", "src_stride", "dst_stride", *_LOOP_SLOTS),
                    "GM bytes to L1 as they are: nburst rows of len_burst bytes (MTE2).")


# ----------------------------------------------------------------------------------------------
# L1 -> L0A / L0B (MTE1)
# ----------------------------------------------------------------------------------------------

FULL_CONTROL = ("m_start", "k_start", "m_step", "k_step", "src_stride", "dst_stride")


class _L1L0Base(SlotOp):
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
        r = SlotReader(parser)
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
        print_types(printer, values)

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        typed_ptrs(self, src, dst)
        space_is(self, src, "l1", "requires MAT source")
        space_is(self, dst, self.DST_SPACE, f"requires {self.DST_NAME} destination")
        if _element_bytes(src) != _element_bytes(dst):
            raise op_error(self, "requires source and destination element byte widths to match")
        shape = [self.value(s) for s in self.SHAPE] if self.SHAPE_FORM else []
        full = [self.value(s) for s in FULL_CONTROL]
        has_shape, has_full = any(shape), any(full)
        if has_shape and has_full:
            raise op_error(self, "cannot mix shape-derived operands with full control operands")
        if not has_shape and not has_full:
            raise op_error(self, "requires either all shape-derived operands or all full control "
                                 "operands")
        if has_shape:
            for value, name in zip(shape, self.SHAPE, strict=True):
                if value is None:
                    raise op_error(self, f"shape-derived form requires {name}")
            check_nonnegative(self, shape[2], "start_row")
            check_nonnegative(self, shape[3], "start_col")
            return
        for value, name in zip(full, FULL_CONTROL, strict=True):
            if value is None:
                raise op_error(self, f"full control form requires {name}")
        u16, u8 = 65535, 255
        for value, name, lo, hi in zip(full, FULL_CONTROL, (0, 0, 1, 1, 1, 1),
                                       (u16, u16, u8, u8, u16, u16), strict=True):
            check_range(self, value, name, lo, hi)


def _element_bytes(value: SSAValue) -> int:
    from mmair.dialects.types import element_name_or_none
    from mmair.isa.ascend.targets import element_bits

    name = element_name_or_none(ptr_element(value))
    return element_bits(name) // 8 if name is not None else 0


_L1L0_DOC = ("L1 NZ fractals to the cube's {side} operand (MTE1): a logical {shape} tile "
             "(start in fractal blocks), or the LoadData2DParamsV2 fields as written.")
MteL1L0aOp = slot_op("pto.mte_l1_l0a", "MteL1L0aOp", _L1L0Base,
                     ("src", "dst", "m", "k", "start_row", "start_col", *FULL_CONTROL),
                     _L1L0_DOC.format(side="left", shape="m x k"),
                     {"SHAPE": ("m", "k", "start_row", "start_col"), "DST_SPACE": "l0a",
                      "DST_NAME": "LEFT"})
MteL1L0bOp = slot_op("pto.mte_l1_l0b", "MteL1L0bOp", _L1L0Base,
                     ("src", "dst", "k", "n", "start_row", "start_col", *FULL_CONTROL),
                     _L1L0_DOC.format(side="right", shape="k x n"),
                     {"SHAPE": ("k", "n", "start_row", "start_col"), "DST_SPACE": "l0b",
                      "DST_NAME": "RIGHT"})
LoadCbufToCaOp = slot_op("pto.load_cbuf_to_ca", "LoadCbufToCaOp", _L1L0Base,
                         ("src", "dst", *FULL_CONTROL),
                         "The expanded `mte_l1_l0a`: the CCE load_cbuf_to_ca fields.",
                         {"SHAPE": (), "SHAPE_FORM": False, "DST_SPACE": "l0a",
                          "DST_NAME": "LEFT"})
LoadCbufToCbOp = slot_op("pto.load_cbuf_to_cb", "LoadCbufToCbOp", _L1L0Base,
                         ("src", "dst", *FULL_CONTROL),
                         "The expanded `mte_l1_l0b`: the CCE load_cbuf_to_cb fields.",
                         {"SHAPE": (), "SHAPE_FORM": False, "DST_SPACE": "l0b",
                          "DST_NAME": "RIGHT"})


# ----------------------------------------------------------------------------------------------
# L1 -> BT (MTE1)
# ----------------------------------------------------------------------------------------------


class _L1BtBase(SlotOp):
    @classmethod
    def parse(cls, parser: Parser):
        r = SlotReader(parser)
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
        print_types(printer, [v(s) for s in self.SLOTS])

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        typed_ptrs(self, src, dst)
        space_is(self, src, "l1", "requires MAT source")
        space_is(self, dst, "bt", "requires BIAS destination")
        pair = (str(ptr_element(src)), str(ptr_element(dst)))
        if pair not in (("f32", "f32"), ("i32", "i32"), ("f16", "f32"), ("bf16", "f32")):
            raise op_error(self, "expects one of f32->f32, i32->i32, f16->f32, or bf16->f32")


MteL1BtOp = slot_op("pto.mte_l1_bt", "MteL1BtOp", _L1BtBase,
                    ("src", "dst", "len_burst", "count", "src_gap", "dst_gap"),
                    "An L1 bias payload to the bias table (MTE1).")


# ----------------------------------------------------------------------------------------------
# L1 -> FB (FIX): FIXPIPE parameters for the fixpipe buffer
# ----------------------------------------------------------------------------------------------


class _L1FbBase(_L1BtBase):
    def verify_(self) -> None:  # VPTO.cpp MteL1FbOp::verify
        src, dst = self.require("src"), self.require("dst")
        typed_ptrs(self, src, dst)
        space_is(self, src, "l1", "requires source in mat address space")
        space_is(self, dst, "fb", "requires destination in scaling address space")


MteL1FbOp = slot_op("pto.mte_l1_fb", "MteL1FbOp", _L1FbBase,
                    ("src", "dst", "len_burst", "count", "src_gap", "dst_gap"),
                    "FIXPIPE parameter payloads from L1 into the fixpipe buffer (FIX): "
                    "`%len_burst` load units per burst, `nburst(%count, %src_gap, %dst_gap)`.")


class _CopyCbufToFbufBase(SlotOp):
    """`pto.copy_cbuf_to_fbuf %src, %dst, %n_burst, %len_burst, %src_gap, %dst_gap : ...`, the
    expanded `mte_l1_fb` (VPTOOps.td CopyCbufToFbufOp, the CCE intrinsic's fields)."""

    @classmethod
    def parse(cls, parser: Parser):
        r = SlotReader(parser)
        r.operands(cls.SLOTS)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.from_slots(r.resolve(r.types()), {}, attrs)

    def print(self, printer: Printer) -> None:
        values = [self.require(s) for s in self.SLOTS]
        printer.print_string(" ")
        printer.print_list(values, printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        print_types(printer, values)

    def verify_(self) -> None:
        typed_ptrs(self, self.require("src"), self.require("dst"))
        space_is(self, self.require("src"), "l1", "requires source in mat address space")
        space_is(self, self.require("dst"), "fb", "requires destination in scaling address space")


CopyCbufToFbufOp = slot_op("pto.copy_cbuf_to_fbuf", "CopyCbufToFbufOp", _CopyCbufToFbufBase,
                           ("src", "dst", "count", "len_burst", "src_gap", "dst_gap"),
                           "L1 -> FB copy_cbuf_to_fbuf: n_burst bursts of len_burst units.")


# ----------------------------------------------------------------------------------------------
# MAD (M)
# ----------------------------------------------------------------------------------------------

MAD_UNIT_FLAGS = ("check_only", "check_and_set")
TF32_MODES = ("round_even", "round_away")


class _MadBase(SlotOp):
    BIAS: ClassVar[bool] = False
    ACCUMULATES: ClassVar[bool] = False

    unit_flag = opt_prop_def(StringAttr)
    disable_gemv = opt_prop_def(UnitAttr)
    sat = opt_prop_def(StringAttr)
    tf32_mode = opt_prop_def(StringAttr)
    n_dir = opt_prop_def(UnitAttr)

    @classmethod
    def parse(cls, parser: Parser):
        r = SlotReader(parser)
        slots = ("lhs", "rhs", "dst", "bias", "m", "n", "k") if cls.BIAS else \
            ("lhs", "rhs", "dst", "m", "n", "k")
        r.operands(slots)
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
        print_types(printer, values)

    def verify_(self) -> None:
        """VPTO.cpp verifyMadSemanticClauses, with its messages."""
        lhs, rhs, dst = self.require("lhs"), self.require("rhs"), self.require("dst")
        if not all(as_pointer(v.type) is not None for v in (lhs, rhs, dst)):
            raise op_error(self, "requires typed !pto.ptr lhs/rhs/dst operands")
        if (ptr_space(lhs), ptr_space(rhs), ptr_space(dst)) != ("l0a", "l0b", "l0c"):
            raise op_error(self, "requires l0a/l0b/l0c-typed lhs/rhs/dst pointers")
        if self.BIAS:
            bias = self.require("bias")
            if as_pointer(bias.type) is None:
                raise op_error(self, "requires typed !pto.ptr bias operand")
            if ptr_space(bias) != "bt":
                raise op_error(self, "requires bias pointer in !pto.ptr<..., bt>")
            if ptr_element(bias) != ptr_element(dst):
                raise op_error(self, "requires bias element type to match dst element type")
        names = [str(ptr_element(v)) for v in (lhs, rhs, dst)]
        if self.tf32_mode is not None and names != ["f32"] * 3:
            raise op_error(self, "requires tf32_mode only for f32 lhs/rhs/dst element types")
        if (names[0] == "!pto.hif8") != (names[1] == "!pto.hif8"):
            raise op_error(self, "requires lhs/rhs to both use hif8 or both use non-hif8 element "
                                 "types")
        if self.sat is not None and not all(_is_float(ptr_element(v)) for v in (lhs, rhs, dst)):
            raise op_error(self, "requires sat/nosat only for floating lhs/rhs/dst element types")


def _is_float(element: Attribute | None) -> bool:
    from xdsl.dialects.builtin import AnyFloat

    return isinstance(element, AnyFloat) or (element is not None and str(element).startswith("!pto."))


_MAD_SLOTS = ("lhs", "rhs", "dst", "bias", "m", "n", "k")
MadOp = slot_op("pto.mad", "MadOp", _MadBase, _MAD_SLOTS,
                "dst = lhs x rhs (a zero-initialised M x N accumulator), on the cube (M).")
MadAccOp = slot_op("pto.mad_acc", "MadAccOp", _MadBase, _MAD_SLOTS,
                   "dst += lhs x rhs.", {"ACCUMULATES": True})
MadBiasOp = slot_op("pto.mad_bias", "MadBiasOp", _MadBase, _MAD_SLOTS,
                    "dst = lhs x rhs + bias[n] (the bias table broadcast over M).",
                    {"BIAS": True})


VPTO_OPS: tuple[type[Operation], ...] = (
    TileBufAddrOp, TensorViewAddrOp, CastPtrOp, AddPtrOp, MteGmL1Op, MteGmL1FracOp, MteL1L0aOp, MteL1L0bOp, LoadCbufToCaOp,
    LoadCbufToCbOp, MteL1BtOp, MteL1FbOp, CopyCbufToFbufOp, MadOp, MadAccOp, MadBiasOp, MteL0cGmOp, MteL0cL1Op, MteL0cUbOp,
)
"""The VPTO ops mmair reads (the cube data path); passes/ptoas_vpto.py converts them."""
