"""The machinery of mmair's PTOAS VPTO ops (dialects/ptoas/vpto.py, vpto_fixpipe.py): ops whose
operands are named, optional slots filled in text order (PTOAS's clause forms), the reader that
resolves them once the types after `:` are read, and the static checks VPTO.cpp makes on them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.ptoas.types import as_pointer


def static_value(value: SSAValue | None) -> int | None:
    """The integer an `arith.constant` defines, else None (a run-time value). Local rather than
    mmair.dialects.pto's: reading PTOAS text must not import mmair's pto dialect (and numpy)."""
    from xdsl.dialects.arith import ConstantOp

    if value is None or not isinstance(value.owner, ConstantOp):
        return None
    attr = value.owner.value
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def op_error(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {message}")


def ptr_space(value: SSAValue) -> str | None:
    ptr = as_pointer(value.type)
    return None if ptr is None else ptr.space.data


def ptr_element(value: SSAValue) -> Attribute | None:
    ptr = as_pointer(value.type)
    return None if ptr is None else ptr.element_type


class SlotOp(IRDLOperation):
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


def slot_op(name: str, class_name: str, base: type[SlotOp], slots: Sequence[str],
            doc: str, extra: dict | None = None) -> type[SlotOp]:
    constants = {"SLOTS": tuple(slots), **(extra or {})}
    body: dict = {"name": name, "__doc__": doc, **constants,
                  "__annotations__": {key: ClassVar for key in constants}}
    for slot in slots:
        body[slot] = var_operand_def()
    return irdl_op_definition(type(class_name, (base,), body))


class SlotReader:
    """Operands read in text order, resolved once the types after `:` are read in that order."""

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.order: list[tuple[str, UnresolvedOperand]] = []

    def operand(self, slot: str) -> None:
        self.order.append((slot, self.parser.parse_unresolved_operand()))

    def comma(self) -> bool:
        return self.parser.parse_optional_punctuation(",") is not None

    def operands(self, slots: Sequence[str]) -> None:
        """`%a, %b, ...` into `slots`."""
        for i, slot in enumerate(slots):
            if i:
                self.parser.parse_punctuation(",")
            self.operand(slot)

    def keyword_group(self, slots: Sequence[str]) -> None:
        """`(%a, %b, ...)` into `slots`."""
        self.parser.parse_punctuation("(")
        self.operands(slots)
        self.parser.parse_punctuation(")")

    def resolve(self, types: Sequence[Attribute]) -> dict[str, SSAValue]:
        if len(types) != len(self.order):
            self.parser.raise_error(f"expected {len(self.order)} types after ':', got {len(types)}")
        return {slot: self.parser.resolve_operand(u, t)
                for (slot, u), t in zip(self.order, types, strict=True)}

    def types(self) -> list[Attribute]:
        return self.parser.parse_comma_separated_list(self.parser.Delimiter.NONE,
                                                      self.parser.parse_type)


def print_types(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)


def check_nonnegative(op: Operation, value: SSAValue | None, name: str) -> None:
    v = static_value(value)
    if v is not None and v < 0:
        raise op_error(op, f"{name} must be non-negative")


def check_range(op: Operation, value: SSAValue | None, name: str, lo: int, hi: int) -> None:
    """VPTO.cpp verifyStaticControlRange."""
    v = static_value(value)
    if v is None:
        return
    if v < lo:
        raise op_error(op, f"{name} {'must be non-negative' if lo == 0 else 'must be greater than zero'}")
    if v > hi:
        raise op_error(op, f"{name} must be <= {hi} to fit the hardware control field")


def space_is(op: Operation, value: SSAValue, space: str, message: str) -> None:
    if ptr_space(value) != space:
        raise op_error(op, message)


def typed_ptrs(op: Operation, *values: SSAValue) -> None:
    for value in values:
        if as_pointer(value.type) is None:
            raise op_error(op, f"requires typed !pto.ptr operands (or 1-D memrefs in a "
                               f"#pto.address_space), got {value.type}")
