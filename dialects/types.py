"""Element types shared by the mmair dialects: xDSL type <-> isa element name.

The hardware tables in `mmair.isa` name element types with short strings (`f16`, `s8`, `u16`, `e4m3`,
`hif8`, ...). This module is the one place that maps the xDSL types written in the IR to those
names and back (table in docs/design.md). Signless integers count as signed (`i8` is `s8`), as on
the Ascend and Blackwell matrix units, which only distinguish signed from unsigned.

`!pto.hif8` (Ascend HiFloat8, an 8-bit float with a tapered exponent, a5 only) has no builtin xDSL
type, so it is defined here as a parameterless type; the `pto` dialect registers it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    FloatTF32Type,
    IntegerType,
    MemRefType,
    Signedness,
    bf16,
    f4E2M1FN,
    f6E2M3FN,
    f6E3M2FN,
    f8E4M3FN,
    f8E5M2,
    f8E8M0FNU,
    f16,
    f32,
    tf32,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

if TYPE_CHECKING:
    import numpy as np


@irdl_attr_definition
class HiF8Type(ParametrizedAttribute, TypeAttribute):
    """Ascend HiFloat8 (`!pto.hif8`): 8-bit float of the a5 cube; the executor keeps it as uint8."""

    name = "pto.hif8"


hif8 = HiF8Type()


class UnknownElementTypeError(ValueError):
    """An xDSL type or isa name with no entry in the element type table."""


# Float types: class -> isa name; each class has exactly one instance.
_FLOATS: dict[type[Attribute], str] = {
    Float16Type: "f16",
    BFloat16Type: "bf16",
    Float32Type: "f32",
    FloatTF32Type: "tf32",
    Float8E4M3FNType: "e4m3",
    Float8E5M2Type: "e5m2",
    Float6E2M3FNType: "e2m3",
    Float6E3M2FNType: "e3m2",
    Float4E2M1FNType: "e2m1",
    Float8E8M0FNUType: "ue8m0",
    HiF8Type: "hif8",
}

_INT_WIDTHS = (4, 8, 16, 32, 64)

# isa name -> canonical xDSL type (signed integers print signless, as MLIR code usually writes them).
_FROM_NAME: dict[str, Attribute] = {
    "f16": f16,
    "bf16": bf16,
    "f32": f32,
    "tf32": tf32,
    "e4m3": f8E4M3FN,
    "e5m2": f8E5M2,
    "e2m3": f6E2M3FN,
    "e3m2": f6E3M2FN,
    "e2m1": f4E2M1FN,
    "ue8m0": f8E8M0FNU,
    "hif8": hif8,
    **{f"s{w}": IntegerType(w) for w in _INT_WIDTHS},
    **{f"u{w}": IntegerType(w, Signedness.UNSIGNED) for w in _INT_WIDTHS},
}

ELEMENT_NAMES: tuple[str, ...] = tuple(_FROM_NAME)
"""Every isa element name this module knows."""


def element_name_or_none(type_: Attribute) -> str | None:
    """The isa name of an xDSL element type, or None if it has none."""
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width not in _INT_WIDTHS:
            return None
        unsigned = type_.signedness.data == Signedness.UNSIGNED
        return f"{'u' if unsigned else 's'}{width}"
    return _FLOATS.get(type(type_))


def element_name(type_: Attribute) -> str:
    """The isa name of an xDSL element type (`ui16` -> `u16`, `i8`/`si8` -> `s8`, `f8E4M3FN` -> `e4m3`)."""
    name = element_name_or_none(type_)
    if name is None:
        raise UnknownElementTypeError(
            f"element type {type_} has no isa name; known: {', '.join(ELEMENT_NAMES)}"
        )
    return name


def element_type(name: str) -> Attribute:
    """The canonical xDSL type of an isa element name (`s8` -> `i8`, `u16` -> `ui16`)."""
    try:
        return _FROM_NAME[name]
    except KeyError:
        raise UnknownElementTypeError(
            f"unknown element name '{name}'; known: {', '.join(ELEMENT_NAMES)}"
        ) from None


def memref_dtype(t: MemRefType) -> np.dtype:
    """The numpy dtype the executor stores a memref's elements in (`mmair.isa.dtypes`; imported
    here so that parsing and verifying never load numpy)."""
    from mmair.isa.dtypes import numpy_dtype

    return numpy_dtype(element_name(t.element_type))
