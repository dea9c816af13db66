"""Multi-core (SPMD) kernels: the block index, the launch size and the all-core barrier.

An Ascend kernel is launched on `block_num` AI Cores (Ascend C `<<<blockDim, ...>>>`); every core
runs the same code with its own L1/L0A/L0B/L0C/UB/BT/FB and pipes and shares GM with the others.
A core finds its part of the work with its block index:

    %i = pto.block_idx      // Ascend C GetBlockIdx(): 0 .. block_num - 1
    %n = pto.block_num      // Ascend C GetBlockNum(): the launch size
    pto.sync_all            // Ascend C SyncAll() (hard sync): every core waits until all cores
                            // of the launch reach it; every GM access before it, on any core,
                            // happens before every GM access after it, on any core

`pto.sync_all` follows the hardware form of Ascend C `SyncAll` (the all-core sync instruction,
default trigger and wait pipes PIPE_ALL), documented at
https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0204.html
(SyncAll) and GetBlockIdx at
https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/80RC2alpha002/apiref/opdevgapi/atlasascendc_api_07_0173.html.
Every core of the launch must reach each `sync_all` the same number of times; one that skips it
leaves the others waiting forever (the executor reports a deadlock). The launch size is checked
against the target's core count (`mmair.isa.ascend.pipes.CUBE_CORES`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def


@irdl_op_definition
class BlockIdxOp(IRDLOperation):
    """`%i = pto.block_idx`: this core's block index (0 .. block_num - 1)."""

    name = "pto.block_idx"
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class BlockNumOp(IRDLOperation):
    """`%n = pto.block_num`: the number of blocks (cores) the kernel is launched on."""

    name = "pto.block_num"
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class SyncAllOp(IRDLOperation):
    """`pto.sync_all`: the all-core barrier (Ascend C hard `SyncAll`, module docstring)."""

    name = "pto.sync_all"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()
