"""Buffers: `smem_alloc`, `alloc`, `dealloc`, `relinquish_alloc_permit`."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I32,
    I64,
    IntegerAttr,
    MemRefType,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    MemoryAllocEffect,
    MemoryFreeEffect,
)

from mmair.dialects.tcgen05._verify import (
    _check_cta_group,
    _check_not_empty,
    _error,
    _kernel_of,
    _memref_bytes,
)
from mmair.dialects.tcgen05.types import (
    SMEM,
    TMEM,
    _in_space,
)
from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA, TMEM_ALLOC_COLUMNS
from mmair.isa.tcgen05.smem import ADDRESS_LIMIT


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


@irdl_op_definition
class RelinquishAllocPermitOp(IRDLOperation):
    """`tcgen05.relinquish_alloc_permit cta_group(1)`: the CTA allocates no more TMEM."""

    name = "tcgen05.relinquish_alloc_permit"
    cta_group = prop_def(IntegerAttr[I32])
    assembly_format = "`cta_group` `(` $cta_group `)` attr-dict"

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)


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
