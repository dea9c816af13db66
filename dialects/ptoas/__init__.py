"""PTOAS's `pto` dialect as PTOAS writes it (github:hw-native-sys/PTOAS; read at the fork
tonibohnlein/PTOAS e32488c9): its types, enum attributes and the cube subset of its ops.

PTOAS and mmair both use the `pto.` prefix, so a PTOAS file is parsed in a context of its own
(`ptoas_context`); `mmair.dialects.ptoas.detect` says when a text is PTOAS's and which op names
mmair refuses; passes/ptoas_to_mmair.py rewrites the ops into mmair's pto ops.
"""

from xdsl.context import Context
from xdsl.ir import Dialect

from mmair.dialects.ptoas.ops import TILE_OPS
from mmair.dialects.ptoas.sync import SYNC_ATTRS, SYNC_OPS
from mmair.dialects.ptoas.types import (
    ELEMENT_TYPES,
    TEMPLATE_ATTRS,
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
     EventAttr, LayoutAttr, *SYNC_ATTRS, *TEMPLATE_ATTRS, HiF8Type, *ELEMENT_TYPES],
)


def ptoas_context() -> Context:
    """builtin, func, arith, scf and PTOAS's pto: the dialects a PTOAS cube file uses."""
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.scf import Scf

    ctx = Context()
    for dialect in (Builtin, Func, Arith, Scf, PTOAS):
        ctx.load_dialect(dialect)
    return ctx


__all__ = ["PTOAS", "ptoas_context"]
