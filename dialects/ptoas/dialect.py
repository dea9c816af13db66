"""The `pto` dialect object of PTOAS's ops, types and attributes (`mmair.dialects.ptoas`)."""

from xdsl.ir import Dialect

from mmair.dialects.ptoas.ops import TILE_OPS
from mmair.dialects.ptoas.sync import SYNC_ATTRS, SYNC_OPS
from mmair.dialects.ptoas.types import (
    ELEMENT_TYPES,
    TEMPLATE_ATTRS,
    AddressSpaceAttr,
    EventAttr,
    KernelKindAttr,
    LayoutAttr,
    PartitionTensorViewType,
    PipeAttr,
    PtrType,
    TensorViewType,
    TileBufType,
)
from mmair.dialects.ptoas.vpto import VPTO_OPS
from mmair.dialects.types import HiF8Type

PTOAS = Dialect(
    "pto",
    [*TILE_OPS, *SYNC_OPS, *VPTO_OPS],
    [PtrType, TensorViewType, PartitionTensorViewType, TileBufType, KernelKindAttr, PipeAttr,
     EventAttr, LayoutAttr, AddressSpaceAttr, *SYNC_ATTRS, *TEMPLATE_ATTRS, HiF8Type, *ELEMENT_TYPES],
)

__all__ = ["PTOAS"]
