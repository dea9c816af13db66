"""PTOAS's VPTO FIXPIPE stores (FIX): `pto.mte_l0c_gm`, `pto.mte_l0c_l1` and `pto.mte_l0c_ub`,
the L0C accumulator to GM, L1 or a vector core's UB, converted and reordered on the way, with
their clauses in PTOAS's order (unit_flag, pre_quant, pre_relu, the layout, loop3, sat, atomic)
and PTOAS's own checks (VPTO.cpp and the `acc_store*invalid*` lit tests at tonibohnlein/PTOAS
e32488c9). passes/ptoas_vpto.py converts them into mmair's fixpipe."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    opt_prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from mmair.dialects.ptoas.vpto_slots import (
    SlotOp,
    SlotReader,
    check_range,
    op_error,
    print_types,
    ptr_element,
    ptr_space,
    slot_op,
    static_value,
    typed_ptrs,
)

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


class _AccStoreBase(SlotOp):
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
        r = SlotReader(parser)
        heads = ("src", "dst", "m", "n", "src_stride", "dst_stride")
        if cls.GM:
            heads = (*heads, "sid", "l2_cache_ctrl")
        r.operands(heads)
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
            word = parser.parse_identifier(" for an mte_l0c clause")
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
        print_types(printer, values)

    def verify_(self) -> None:
        src, dst = self.require("src"), self.require("dst")
        typed_ptrs(self, src, dst)
        if ptr_space(src) != "l0c" or ptr_space(dst) != self.DST_SPACE:
            raise op_error(self, f"requires ACC source and {self.DST_NAME} destination")
        if self.atomic_type is not None and not self.GM:
            raise op_error(self, "atomic is only supported for mte_l0c_gm")
        if self.GM:
            check_range(self, self.value("sid"), "sid", 0, 3)
            check_range(self, self.value("l2_cache_ctrl"), "l2_cache_ctrl", 0, 15)
        layout = self.layout.data if self.layout is not None else None
        if self.value("split") is not None and layout != "nz2nz":
            raise op_error(self, "split requires nz2nz")
        if self.value("loop0_src_stride") is not None and layout != "nz2dn":
            raise op_error(self, "loop0_src_stride requires nz2dn")
        if layout == "nz2dn" and self.value("loop0_src_stride") is None:
            raise op_error(self, "nz2dn requires loop0_src_stride")
        if layout == "nz2dn" and self.unit_flag is not None and \
                static_value(self.value("loop0_src_stride")) != 1:
            raise op_error(self, "unit_flag must be off when nz2dn loop0_src_stride is not 1")
        if self.value("loop3_count") is not None and layout not in ("nz2nd", "nz2dn"):
            raise op_error(self, "loop3 requires nz2nd or nz2dn")
        if layout == "nz2nz" and str(ptr_element(dst)) != "f32":
            raise op_error(self, "nz2nz requires destination element type to be f32")
        self._verify_quant(str(ptr_element(src)), str(ptr_element(dst)))
        clip = self.value("clip")
        dst_elem = str(ptr_element(dst))
        if clip is not None and dst_elem not in ("f16", "ui8", "i4", "si4", "i8", "si8", "i16",
                                                 "si16"):
            raise op_error(self, f"clip requires destination element type to be f16, ui8, or "
                                 f"signed 4/8/16-bit integer, got {dst_elem}")
        if clip is not None and dst_elem == "ui8" and str(clip.type) not in ("ui16", "i16"):
            raise op_error(self, "clip for ui8 destination requires ui16/signless i16 payload")
        if self.relu_mode is not None:
            mode, payload = self.relu_mode.data, self.value("relu_payload")
            if mode == "pwl":
                raise op_error(self, f"pwl is not supported for target_profile "
                                     f"{self.name.removeprefix('pto.')}")
            if mode == "vector_relu" and payload is not None and (
                    ptr_space(payload) != "fb" or str(ptr_element(payload)) not in _FLOAT_PAYLOADS):
                raise op_error(self, "vector_relu requires scaling pointer element type to be f16, "
                                     "bf16, or f32")
            if mode in ("no_relu", "normal_relu") and payload is not None:
                raise op_error(self, "mode does not accept pre_relu payload")
            if mode == "scalar_relu" and payload is None:
                raise op_error(self, "scalar_relu requires payload")
            if mode == "vector_relu" and payload is None:
                raise op_error(self, "vector_relu requires payload")
        elif self.value("clip") is not None:
            raise op_error(self, "clip requires pre_relu clause")
        if self.UB:
            self._verify_dst_mode()

    def _verify_quant(self, src_elem: str, dst_elem: str) -> None:
        """VPTO.cpp verifyStructuredAccStoreLike, the pre_quant part."""
        if self.quant_mode is None or self.quant_mode.data == "no_convert":
            return
        mode, payload = self.quant_mode.data, self.require("quant_payload")
        if mode.endswith("_vec"):
            if ptr_space(payload) != "fb":
                raise op_error(self, "vector pre_quant mode requires scaling pointer payload")
            if str(ptr_element(payload)) not in _FLOAT_PAYLOADS:
                raise op_error(self, "vector pre_quant mode requires scaling pointer element type "
                                     "to be f16, bf16, or f32")
        elif str(payload.type) not in _FLOAT_PAYLOADS:
            raise op_error(self, "scalar pre_quant mode requires f16/bf16/f32 payload")
        incompatible = op_error(self, f"pre_quant mode {mode} is incompatible with source element "
                                      f"type '{src_elem}' and destination element type "
                                      f"'{dst_elem}'")
        if src_elem not in ("f32", "i32"):
            raise op_error(self, f"pre_quant requires source element type to be f32 or i32, got "
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
                raise op_error(self, "sub_blockid must be 0 or 1")
            return
        if any(self.value(s) is not None for s in _TAIL_ORDER) or self.quant_mode is not None \
                or self.relu_mode is not None:
            raise op_error(self, "dual destination mode cannot be combined with pre_quant, "
                                 "pre_relu, clip, nz2dn, nz2nz, or loop3")
        if self.layout is not None and self.layout.data != "nz2nd":
            raise op_error(self, "dual destination mode requires normal or nz2nd layout")
        m, n = static_value(self.value("m")), static_value(self.value("n"))
        if self.dst_mode.data == "split_m" and m is not None and m % 2:
            raise op_error(self, "split-M dual destination requires m to be even")
        if self.dst_mode.data == "split_n" and n is not None and n % 32:
            raise op_error(self, "split-N dual destination requires n to be a multiple of 32")


def _clause_unit_flag(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    at = parser.pos
    mode = parser.parse_identifier(" for the unit_flag mode")
    if mode not in ACC_UNIT_FLAGS:
        parser.raise_error("expected 'check_only' or 'check_and_clear'", at, parser.pos)
    parser.parse_punctuation(")")
    props["unit_flag"] = StringAttr(mode)


def _keyword_value(parser: Parser, keyword: str, legal: Sequence[str], what: str) -> str:
    """`keyword = value` with value one of `legal` (the error marks the value)."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")
    return _value_in(parser, legal, what)


def _value_in(parser: Parser, legal: Sequence[str], what: str) -> str:
    """An identifier from `legal`; the error marks it and lists the legal set."""
    at = parser.pos
    value = parser.parse_identifier(f" for the {what}")
    if value not in legal:
        parser.raise_error(f"invalid {what} '{value}' (legal: {', '.join(legal)})", at, parser.pos)
    return value


def _mode(parser: Parser, legal: Sequence[str], what: str) -> StringAttr:
    return StringAttr(_keyword_value(parser, "mode", legal, what))


def _clause_pre_quant(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    r.operand("quant_payload")
    parser.parse_punctuation(",")
    props["quant_mode"] = _mode(parser, QUANT_PRE_MODES, "pre_quant mode")
    parser.parse_punctuation(")")


def _clause_pre_relu(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    if parser.parse_optional_keyword("mode") is None:
        r.operand("relu_payload")
        parser.parse_punctuation(",")
    else:
        parser.parse_punctuation("=")
        props["relu_mode"] = StringAttr(_value_in(parser, RELU_PRE_MODES, "pre_relu mode"))
    if "relu_mode" not in props:
        props["relu_mode"] = _mode(parser, RELU_PRE_MODES, "pre_relu mode")
    if r.comma():
        parser.parse_keyword("clip")
        parser.parse_punctuation("=")
        r.operand("clip")
    parser.parse_punctuation(")")


def _clause_layout(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    props["layout"] = StringAttr(word)
    if word in ("nz2dn", "nz2nz") and parser.parse_optional_punctuation("(") is not None:
        r.operand("loop0_src_stride" if word == "nz2dn" else "split")
        parser.parse_punctuation(")")


def _clause_loop3(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    r.keyword_group(("loop3_count", "loop3_src_stride", "loop3_dst_stride"))


def _clause_sat(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    if word == "sat" and parser.parse_optional_punctuation("(") is not None:
        parser.parse_keyword("preserve_nan")
        parser.parse_punctuation(")")
        word = "sat(preserve_nan)"
    props["sat"] = StringAttr(word)


def _clause_atomic(parser: Parser, r: SlotReader, props: dict, word: str, tail: list) -> None:
    parser.parse_punctuation("(")
    kind = _keyword_value(parser, "type", ATOMIC_TYPES, "atomic type")
    parser.parse_punctuation(",")
    op = _keyword_value(parser, "op", ATOMIC_OPS, "atomic op")
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

MteL0cGmOp = slot_op("pto.mte_l0c_gm", "MteL0cGmOp", _AccStoreBase, _ACC_SLOTS,
                     "FIXPIPE: the L0C accumulator to GM, converted and reordered (FIX).",
                     {"GM": True, "DST_SPACE": "gm", "DST_NAME": "GM"})
MteL0cL1Op = slot_op("pto.mte_l0c_l1", "MteL0cL1Op", _AccStoreBase, _ACC_SLOTS,
                     "FIXPIPE: the L0C accumulator to L1 (FIX).",
                     {"DST_SPACE": "l1", "DST_NAME": "MAT"})
MteL0cUbOp = slot_op("pto.mte_l0c_ub", "MteL0cUbOp", _AccStoreBase, _ACC_SLOTS,
                     "FIXPIPE: the L0C accumulator to a vector core's UB, one sub-block or "
                     "split over both (FIX).", {"UB": True, "DST_SPACE": "ub", "DST_NAME": "UB"})
