"""Buffers: `pto.alloc` places a tile in its on-chip space (capacity and alignment from the
target), `pto.reinterpret` views a tile's bytes with another type of the same width and layout."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryAllocEffect, NoMemoryEffect

from mmair.dialects.pto._verify import _check_layout, _error, _fmt_shape, target_of
from mmair.dialects.pto.types import TileType

# ----------------------------------------------------------------------------------------------
# Buffers
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Allocate a tile in its on-chip space, optionally at an explicit byte `offset`."""

    name = "pto.alloc"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    offset = opt_prop_def(IntegerAttr[IntegerType])
    buffer = result_def(TileType)

    traits = traits_def(MemoryAllocEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($buffer)"

    def __init__(self, tile: TileType, offset: int | None = None) -> None:
        super().__init__(
            result_types=[tile],
            properties={"offset": None if offset is None else IntegerAttr(offset, i64)},
        )

    def verify_(self) -> None:
        target = target_of(self)
        tile = self.buffer.type
        assert isinstance(tile, TileType)
        _check_layout(self, "buffer", tile, target)
        space = tile.space_name
        offset = 0 if self.offset is None else self.offset.value.data
        align = target.alignment[space]
        if offset < 0 or offset % align:
            raise _error(
                self, f"requires {space} offset aligned to {align} bytes, got {offset}"
            )
        capacity = target.capacity[space]
        assert capacity is not None
        end = offset + tile.footprint_bytes()
        if end > capacity:
            raise _error(
                self,
                f"requires {space} footprint <= {capacity} bytes on target {target.name}, "
                f"got {end} (offset {offset} + {tile.footprint_bytes()})",
            )


@irdl_op_definition
class ReinterpretOp(IRDLOperation):
    """View a tile's bytes with another type of the same space, physical shape, element width
    and layout (e.g. f16 <-> bf16 or u16); another factorization of an NZ buffer is an error."""

    name = "pto.reinterpret"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    source = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(NoMemoryEffect())  # a view: reads and writes nothing by itself
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue | Operation, result_type: TileType) -> None:
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.space_name != dst.space_name:
            raise _error(
                self, f"requires result in {src.space_name} (the source space), got {dst.space_name}"
            )
        if src.layout_name != dst.layout_name:
            raise _error(
                self,
                f"requires result layout {src.layout_name} (the source factorization), "
                f"got {dst.layout_name}",
            )
        if src.element_bits != dst.element_bits:
            raise _error(
                self,
                f"requires result element width {src.element_bits} bits (the source width), "
                f"got {dst.element_bits}",
            )
        if src.physical_shape() != dst.physical_shape():
            raise _error(
                self,
                f"requires result physical shape {_fmt_shape(src.physical_shape())} "
                f"(the source's), got {_fmt_shape(dst.physical_shape())}",
            )
        _check_layout(self, "result", dst, target_of(self))
