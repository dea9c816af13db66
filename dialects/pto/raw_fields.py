"""Checks and helpers shared by the raw Ascend C parameter-form ops.

A raw op carries its struct's fields as `index` operands (registers); `check_fields` checks the
static ones against the field table of `isa/ascend/params.py` on the module's target, the other
helpers check the byte offsets, the `sid` attribute and the GM -> L1 operand pair every raw load
shares, and `operand_map` / `ordered` turn operands into the executor's name -> value view and back.
"""

from __future__ import annotations

from collections.abc import Collection

from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from mmair.dialects.pto._verify import (
    Value,
    _error,
    _fmt_set,
    _gm_memref,
    _memref_element,
    _tile_in,
    static_value,
)
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import Target


def check_fields(op: Operation, fields: dict[str, isa_params.Field]) -> dict[str, int | None]:
    """Static values of the op's parameter operands named in `fields`, range-checked: a size
    field (0 = "not executed") rejects a static 0 (decision "zero sizes")."""
    found: dict[str, int | None] = {}
    for name, f in fields.items():
        value = getattr(op, name, None)
        v = static_value(value) if isinstance(value, SSAValue) else None
        found[name] = v
        if v is None:
            continue
        lo, hi = f.range
        if f.size and v == 0:
            raise _error(op, f"requires {name} ({f.c_name}) to be positive, got 0")
        if not lo <= v <= hi:
            raise _error(op, f"requires {name} ({f.c_name}) in [{lo}, {hi}], got {v}")
    return found


def offset_bytes(op: Operation, role: str, value: SSAValue, tile: TileType, align: int) -> None:
    """A static element offset keeps the operand aligned (`align` bytes) and inside the tile."""
    v = static_value(value)
    if v is None:
        return
    if v < 0:
        raise _error(op, f"requires {role} offset >= 0, got {v}")
    nbytes = v * tile.element_bits // 8
    if (v * tile.element_bits) % 8 or nbytes % align:
        raise _error(op, f"requires {role} offset aligned to {align} bytes, got {v} elements")
    if nbytes >= tile.footprint_bytes():
        raise _error(
            op, f"requires {role} offset inside the {tile.footprint_bytes()}-byte tile, got {v}"
        )


def check_sid(op: Operation, sid: IntegerAttr | None) -> None:
    """The optional `sid` property (the stream id of a load) is in the field's range."""
    if sid is not None and not 0 <= sid.value.data <= isa_params.SID_RANGE[1]:
        raise _error(op, f"requires sid in [0, {isa_params.SID_RANGE[1]}], got {sid.value.data}")


def check_src_offset(op: Operation, offset: SSAValue) -> None:
    """A static GM source offset is not negative."""
    soff = static_value(offset)
    if soff is not None and soff < 0:
        raise _error(op, f"requires src offset >= 0, got {soff}")


def gm_l1_load_operands(op: Operation, src_value: SSAValue, dst_value: SSAValue, target: Target,
                         legal: Collection[str]) -> tuple[MemRefType, TileType]:
    """The GM source and L1 destination of a GM -> L1 LoadData: the element type is one the target
    loads, and the same on both sides (LoadData copies fractals bit for bit)."""
    src = _gm_memref(op, "src", src_value)
    dst = _tile_in(op, "dst", dst_value, ("l1",))
    elem = _memref_element(op, "src", src)
    if dst.element_name not in legal:
        raise _error(op, f"requires element type in {_fmt_set(legal)} on target "
                         f"{target.name}, got {dst.element_name}")
    if elem != dst.element_name:
        raise _error(op, f"requires src element type {dst.element_name} (the dst type: "
                         f"LoadData copies fractals bit for bit), got {elem}")
    return src, dst


PARAM_TRAITS = traits_def(MemoryReadEffect(), MemoryWriteEffect())


def operand_map(op: IRDLOperation, values) -> dict[str, object]:
    """The op's operands (or the interpreter's values of them) by their definition names: the
    raw-form ops share operand blocks through base classes, which puts a subclass's own operands
    first, so positions differ between ops while the struct field names do not."""
    return dict(zip((name for name, _ in type(op).get_irdl_definition().operands), values,
                    strict=True))


def ordered(cls: type[IRDLOperation], values: dict[str, Value]) -> list[Value]:
    return [values[name] for name, _ in cls.get_irdl_definition().operands]

