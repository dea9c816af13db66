"""Synchronisation: `commit`, `mbarrier_init/arrive/wait`, the thread-sync fences."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I16,
    I32,
    IntegerAttr,
    MemRefType,
    i1,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)

from mmair.dialects.tcgen05._verify import (
    _check_cta_group,
    _error,
)
from mmair.dialects.tcgen05.types import (
    SMEM,
    _in_space,
)


@irdl_op_definition
class FenceBeforeThreadSyncOp(IRDLOperation):
    """`tcgen05.fence_before_thread_sync`: orders prior async tcgen05 ops before a barrier."""

    name = "tcgen05.fence_before_thread_sync"
    assembly_format = "attr-dict"


@irdl_op_definition
class FenceAfterThreadSyncOp(IRDLOperation):
    """`tcgen05.fence_after_thread_sync`: orders later async tcgen05 ops after a barrier."""

    name = "tcgen05.fence_after_thread_sync"
    assembly_format = "attr-dict"


def _check_mbarrier(op: Operation, value: SSAValue) -> None:
    t = value.type
    if not (_in_space(t, SMEM) and isinstance(t, MemRefType) and t.get_shape() == (1,)
            and t.element_type == i64):
        raise _error(op, f"requires an mbarrier: memref<1xi64, #tcgen05.space<smem>>, got {t}")


@irdl_op_definition
class CommitOp(IRDLOperation):
    """`tcgen05.commit cta_group(1) %mbar {multicast(%mask)} : memref<1xi64, smem>`.

    PTX `tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster{.multicast::cluster}.b64
    [mbar]{, ctaMask}`: one arrive on the mbarrier once every prior async tcgen05 op of the thread
    (mma, cp, shift) has completed.
    """

    name = "tcgen05.commit"
    cta_group = prop_def(IntegerAttr[I32])
    mbarrier = operand_def(MemRefType)
    cta_mask = opt_operand_def(I16)
    assembly_format = (
        "`cta_group` `(` $cta_group `)` $mbarrier (`multicast` `(` $cta_mask^ `)`)? attr-dict "
        "`:` type($mbarrier)"
    )

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        _check_mbarrier(self, self.mbarrier)


@irdl_op_definition
class MbarrierInitOp(IRDLOperation):
    """`tcgen05.mbarrier_init %mbar count(1)`: PTX `mbarrier.init.shared::cta.b64 [mbar], count`."""

    name = "tcgen05.mbarrier_init"
    mbarrier = operand_def(MemRefType)
    count = prop_def(IntegerAttr[I32])
    assembly_format = "$mbarrier `count` `(` $count `)` attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)
        count = self.count.value.data
        if not 1 <= count < (1 << 20):
            raise _error(self, f"requires count in 1..{(1 << 20) - 1}, got {count}")


@irdl_op_definition
class MbarrierInvalOp(IRDLOperation):
    """`tcgen05.mbarrier_inval %mbar`: PTX `mbarrier.inval.shared::cta.b64 [mbar]`. Ends the
    barrier's life: PTX allows only `mbarrier.init` on an invalidated mbarrier, and an
    `mbarrier.init` of a barrier that was not invalidated is undefined behaviour."""

    name = "tcgen05.mbarrier_inval"
    mbarrier = operand_def(MemRefType)
    assembly_format = "$mbarrier attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)


@irdl_op_definition
class MbarrierArriveOp(IRDLOperation):
    """`tcgen05.mbarrier_arrive %mbar {expect_tx(N)}`: PTX `mbarrier.arrive{.expect_tx}
    .shared::cta.b64 _, [mbar]{, N}` (one arrive; expect_tx adds N bytes of pending transactions)."""

    name = "tcgen05.mbarrier_arrive"
    mbarrier = operand_def(MemRefType)
    expect_tx = opt_prop_def(IntegerAttr[I32])
    assembly_format = "$mbarrier (`expect_tx` `(` $expect_tx^ `)`)? attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)
        if self.expect_tx is not None and not 0 <= self.expect_tx.value.data < (1 << 20):
            raise _error(self, f"requires expect_tx in 0..{(1 << 20) - 1}, got "
                               f"{self.expect_tx.value.data}")


@irdl_op_definition
class MbarrierWaitOp(IRDLOperation):
    """`tcgen05.mbarrier_wait %mbar, %parity`: loop on PTX `mbarrier.try_wait.parity.shared::cta
    .b64` until the phase with that parity has completed."""

    name = "tcgen05.mbarrier_wait"
    mbarrier = operand_def(MemRefType)
    parity = operand_def(i1)
    assembly_format = "$mbarrier `,` $parity attr-dict `:` type($mbarrier)"

    def verify_(self) -> None:
        _check_mbarrier(self, self.mbarrier)
