"""The `pto` dialect: the Ascend AI Core cube pipeline and the vector GatherMask instruction.

The cube unit multiplies matrices held in on-chip buffers in "fractal" layouts:

    GM --mte_gm_l1 (ND2NZ)--> L1 --mte_l1_l0a/l0b (LoadData)--> L0A / L0B --mad--> L0C
    L0C --fixpipe (quant, ReLU, NZ2ND/NZ2NZ/NZ2DN)--> GM / L1 / UB

and the vector unit's GatherMask compacts the elements of a UB buffer selected by a bit pattern.
GM data are builtin memrefs (no memory space); every on-chip buffer has the type
`!pto.tile<SPACE, RxCxELT, LAYOUT>`, whose layout (nd, dn, nz, zz, zn, nn) fixes the physical
factorization (docs/design.md, docs/ascend.md "Fractal layouts").

Sizes the hardware reads from registers are `index` operands; a size is *static* when an
`arith.constant` defines it. The verifiers check the static values and everything the types say
against the target named by the enclosing module's `pto.target` attribute (default `a2`); the
executor checks runtime values. Every hardware fact (capacities, alignments, type tables, ranges,
fractal shapes) comes from `mmair.isa.ascend`; this module only applies them.

The dialect is a package with one module per op group: `types` (the tile type and its legal
layouts), `buffers` (alloc, reinterpret), `cube` (GM -> L1 -> L0A/L0B/BT moves and the mad
family), `fixpipe`, `params` (the index of the raw Ascend C parameter forms, which live in `raw_gm_l1`,
`raw_load2d`, `raw_mmad`, `raw_fixpipe` with their shared checks in `raw_fields`), `vector` (GM <-> UB,
GatherMask), `matmul` (the high-level op), `sync`
(set_flag, wait_flag, pipe_barrier between pipes), `_verify` (checks shared by all verifiers) and
`_fastparse` (a faster parse of the declarative custom form).
This module re-exports every public name and builds `PTO`.
"""

from xdsl.ir import Dialect

from mmair.dialects.pto._fastparse import _use_format_parse
from mmair.dialects.pto._verify import Value, static_value, target_of
from mmair.dialects.pto.buffers import AllocOp, ReinterpretOp
from mmair.dialects.pto.cube import (
    MadAccOp,
    MadBiasOp,
    MadOp,
    MteGmL1Op,
    MteL1BtOp,
    MteL1FbOp,
    MteL1L0AOp,
    MteL1L0BOp,
)
from mmair.dialects.pto.fixpipe import FixpipeOp
from mmair.dialects.pto.matmul import (
    MATMUL_QUANT,
    MatmulOp,
    matmul_accumulator,
    matmul_hardware_transposes,
    matmul_output_types,
)
from mmair.dialects.pto.multicore import BlockIdxOp, BlockNumOp, SyncAllOp
from mmair.dialects.pto.params import (
    CopyDn2NzOp,
    CopyGmL1Op,
    CopyL1BtOp,
    CopyNd2NzOp,
    FixpipeCopyOp,
    Load2DGmOp,
    Load2DOp,
    Load2DTransposeOp,
    Load2DV2GmOp,
    Load2DV2Op,
    MmadOp,
    operand_map,
)
from mmair.dialects.pto.sync import PipeBarrierOp, SetFlagOp, WaitFlagOp
from mmair.dialects.pto.types import TARGET_ATTR, TILE_SPACES, TileType, legal_layouts
from mmair.dialects.pto.vector import GatherMaskOp, MteGmUbOp, MteUbGmOp
from mmair.dialects.pto.vector import _motif_kept as _motif_kept
from mmair.dialects.types import HiF8Type

__all__ = [
    "MATMUL_QUANT",
    "PTO",
    "TARGET_ATTR",
    "TILE_SPACES",
    "AllocOp",
    "CopyDn2NzOp",
    "CopyGmL1Op",
    "CopyL1BtOp",
    "CopyNd2NzOp",
    "FixpipeCopyOp",
    "Load2DGmOp",
    "Load2DOp",
    "Load2DTransposeOp",
    "Load2DV2GmOp",
    "Load2DV2Op",
    "MmadOp",
    "operand_map",
    "FixpipeOp",
    "GatherMaskOp",
    "HiF8Type",
    "MadAccOp",
    "MadBiasOp",
    "MadOp",
    "MatmulOp",
    "MteGmL1Op",
    "MteGmUbOp",
    "MteL1BtOp",
    "MteL1FbOp",
    "MteL1L0AOp",
    "MteL1L0BOp",
    "MteUbGmOp",
    "PipeBarrierOp",
    "BlockIdxOp",
    "BlockNumOp",
    "SyncAllOp",
    "ReinterpretOp",
    "SetFlagOp",
    "TileType",
    "Value",
    "WaitFlagOp",
    "legal_layouts",
    "matmul_accumulator",
    "matmul_hardware_transposes",
    "matmul_output_types",
    "static_value",
    "target_of",
]

# Ops with a declarative custom form (parsed by `_fastparse`), then the sync ops (hand-written form).
_FORMAT_OPS = [
    AllocOp,
    ReinterpretOp,
    MteGmL1Op,
    MteL1L0AOp,
    MteL1L0BOp,
    MadOp,
    MadAccOp,
    MadBiasOp,
    MteL1BtOp,
    MteL1FbOp,
    FixpipeOp,
    MatmulOp,
    MteGmUbOp,
    MteUbGmOp,
    GatherMaskOp,
    CopyNd2NzOp,
    CopyDn2NzOp,
    Load2DOp,
    Load2DGmOp,
    Load2DTransposeOp,
    Load2DV2Op,
    Load2DV2GmOp,
    CopyGmL1Op,
    CopyL1BtOp,
    MmadOp,
    FixpipeCopyOp,
]

PTO = Dialect("pto", [*_FORMAT_OPS, SetFlagOp, WaitFlagOp, PipeBarrierOp,
                           BlockIdxOp, BlockNumOp, SyncAllOp], [TileType, HiF8Type])

_use_format_parse(*_FORMAT_OPS)
