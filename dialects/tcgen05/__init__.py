"""The `tcgen05` dialect: NVIDIA Blackwell fifth-generation tensor-core MMA (PTX `tcgen05.*`).

Blackwell's `tcgen05.mma` multiplies an A tile (shared memory through a 64-bit matrix descriptor, or
tensor memory) by a B tile (shared memory through a descriptor) into an accumulator D that lives in
tensor memory (TMEM, 128 lanes x 512 columns of 32-bit cells per CTA). What the MMA does — kind,
M, N, types, transposes, negates, sparsity, block-scale factor ids — is read from a 32-bit
*instruction descriptor* register; the B columns it skips from a 64-bit *zero-column mask*. These
are plain integers in PTX, so nothing checks them: a wrong bit gives a silently wrong result.

This dialect makes the descriptors first-class and checks them:

* attributes `#tcgen05.idesc<...>`, `#tcgen05.smem_desc<...>`, `#tcgen05.zcmask<...>` hold the
  packed word (the single source of truth; equality is word equality) and print/parse its fields in
  the `key = value` form of `mmair-desc --json`;
* `#tcgen05.space<smem|tmem>` is the memory space of the `memref`s that name SMEM and TMEM buffers;
* ops `make_idesc`, `make_smem_desc`, `make_zcmask` (descriptor values), `smem_alloc`, `alloc`,
  `dealloc` (buffers) and `mma`;
* the `mma` verifier decodes every descriptor known at compile time (a `make_*` op or an
  `arith.constant`) and checks it against the instruction's kind, cta_group, `.ws`, sparsity and
  block scaling.

Every bit layout and rule lives in `mmair.isa.tcgen05`; this module only converts between xDSL and
the isa dataclasses and turns `DescriptorError`s into diagnostics.

Modules: `types` (spaces, descriptor attributes, `make_*` ops), `_verify` (shared verifier helpers),
`memory` (`smem_alloc`, `alloc`, `dealloc`, `relinquish_alloc_permit`), `mma` (`tcgen05.mma`),
`moves` (`ld`, `st`, `wait_ld`, `wait_st`, `cp`, `shift`), `sync` (`commit`, mbarriers, fences),
`cluster` (`cluster_rank`, `cluster_sync`), `tma` (the tensor map, `tma_load`, `elect_sync`,
`fence_proxy_async`: docs/tcgen05-tma.md), `matmul` (`tcgen05.matmul`, lowered by `mmair-lower`); the `TCGEN05` dialect is assembled here.
"""

from xdsl.ir import Dialect

from mmair.dialects.tcgen05._verify import (
    _check_cta_group as _check_cta_group,
)
from mmair.dialects.tcgen05._verify import (
    _check_kernel_cta_group as _check_kernel_cta_group,
)
from mmair.dialects.tcgen05._verify import (
    _check_not_empty as _check_not_empty,
)
from mmair.dialects.tcgen05._verify import (
    _constant_word as _constant_word,
)
from mmair.dialects.tcgen05._verify import (
    _error as _error,
)
from mmair.dialects.tcgen05._verify import (
    _int_prop as _int_prop,
)
from mmair.dialects.tcgen05._verify import (
    _kernel_of as _kernel_of,
)
from mmair.dialects.tcgen05._verify import (
    _memref_bytes as _memref_bytes,
)
from mmair.dialects.tcgen05._verify import (
    _static_idesc as _static_idesc,
)
from mmair.dialects.tcgen05._verify import (
    _static_smem_desc as _static_smem_desc,
)
from mmair.dialects.tcgen05._verify import (
    _static_zcmask as _static_zcmask,
)
from mmair.dialects.tcgen05._verify import (
    _target_of as _target_of,
)
from mmair.dialects.tcgen05._verify import (
    _tcgen05_cta_group as _tcgen05_cta_group,
)
from mmair.dialects.tcgen05.cluster import (
    ClusterRankOp as ClusterRankOp,
)
from mmair.dialects.tcgen05.cluster import (
    ClusterSyncOp as ClusterSyncOp,
)
from mmair.dialects.tcgen05.matmul import (
    MatmulOp as MatmulOp,
)
from mmair.dialects.tcgen05.memory import (
    AllocOp as AllocOp,
)
from mmair.dialects.tcgen05.memory import (
    DeallocOp as DeallocOp,
)
from mmair.dialects.tcgen05.memory import (
    RelinquishAllocPermitOp as RelinquishAllocPermitOp,
)
from mmair.dialects.tcgen05.memory import (
    SmemAllocOp as SmemAllocOp,
)
from mmair.dialects.tcgen05.memory import (
    _buffer_start as _buffer_start,
)
from mmair.dialects.tcgen05.mma import (
    _MODIFIER_FLAGS as _MODIFIER_FLAGS,
)
from mmair.dialects.tcgen05.mma import (
    MmaOp as MmaOp,
)
from mmair.dialects.tcgen05.mma import (
    normalise_scale_vec as normalise_scale_vec,
)
from mmair.dialects.tcgen05.moves import (
    CpOp as CpOp,
)
from mmair.dialects.tcgen05.moves import (
    LdOp as LdOp,
)
from mmair.dialects.tcgen05.moves import (
    ShiftOp as ShiftOp,
)
from mmair.dialects.tcgen05.moves import (
    StOp as StOp,
)
from mmair.dialects.tcgen05.moves import (
    WaitLdOp as WaitLdOp,
)
from mmair.dialects.tcgen05.moves import (
    WaitStOp as WaitStOp,
)
from mmair.dialects.tcgen05.moves import (
    _check_b32 as _check_b32,
)
from mmair.dialects.tcgen05.moves import (
    _static_2d as _static_2d,
)
from mmair.dialects.tcgen05.moves import (
    _verify_ld_st as _verify_ld_st,
)
from mmair.dialects.tcgen05.sync import (
    CommitOp as CommitOp,
)
from mmair.dialects.tcgen05.sync import (
    FenceAfterThreadSyncOp as FenceAfterThreadSyncOp,
)
from mmair.dialects.tcgen05.sync import (
    FenceBeforeThreadSyncOp as FenceBeforeThreadSyncOp,
)
from mmair.dialects.tcgen05.sync import (
    MbarrierArriveOp as MbarrierArriveOp,
)
from mmair.dialects.tcgen05.sync import (
    MbarrierInitOp as MbarrierInitOp,
)
from mmair.dialects.tcgen05.sync import (
    MbarrierInvalOp as MbarrierInvalOp,
)
from mmair.dialects.tcgen05.sync import (
    MbarrierWaitOp as MbarrierWaitOp,
)
from mmair.dialects.tcgen05.sync import (
    _check_mbarrier as _check_mbarrier,
)
from mmair.dialects.tcgen05.tma import (
    ElectSyncOp as ElectSyncOp,
)
from mmair.dialects.tcgen05.tma import (
    FenceProxyAsyncOp as FenceProxyAsyncOp,
)
from mmair.dialects.tcgen05.tma import (
    MakeTensorMapOp as MakeTensorMapOp,
)
from mmair.dialects.tcgen05.tma import (
    TensorMapAttr as TensorMapAttr,
)
from mmair.dialects.tcgen05.tma import (
    TmaLoadOp as TmaLoadOp,
)
from mmair.dialects.tcgen05.types import (
    _ANY_WS_M as _ANY_WS_M,
)
from mmair.dialects.tcgen05.types import (
    _MASK32 as _MASK32,
)
from mmair.dialects.tcgen05.types import (
    _MASK64 as _MASK64,
)
from mmair.dialects.tcgen05.types import (
    CTA_GROUPS as CTA_GROUPS,
)
from mmair.dialects.tcgen05.types import (
    SMEM as SMEM,
)
from mmair.dialects.tcgen05.types import (
    TARGET_ATTR as TARGET_ATTR,
)
from mmair.dialects.tcgen05.types import (
    TMEM as TMEM,
)
from mmair.dialects.tcgen05.types import (
    IdescAttr as IdescAttr,
)
from mmair.dialects.tcgen05.types import (
    MakeIdescOp as MakeIdescOp,
)
from mmair.dialects.tcgen05.types import (
    MakeSmemDescOp as MakeSmemDescOp,
)
from mmair.dialects.tcgen05.types import (
    MakeZcmaskOp as MakeZcmaskOp,
)
from mmair.dialects.tcgen05.types import (
    SmemDescAttr as SmemDescAttr,
)
from mmair.dialects.tcgen05.types import (
    Space as Space,
)
from mmair.dialects.tcgen05.types import (
    SpaceAttr as SpaceAttr,
)
from mmair.dialects.tcgen05.types import (
    ZcmaskAttr as ZcmaskAttr,
)
from mmair.dialects.tcgen05.types import (
    _Descriptor as _Descriptor,
)
from mmair.dialects.tcgen05.types import (
    _descriptor_from_word as _descriptor_from_word,
)
from mmair.dialects.tcgen05.types import (
    _in_space as _in_space,
)
from mmair.dialects.tcgen05.types import (
    _ItemValue as _ItemValue,
)
from mmair.dialects.tcgen05.types import (
    _parse_descriptor_items as _parse_descriptor_items,
)
from mmair.dialects.tcgen05.types import (
    smem_type as smem_type,
)
from mmair.dialects.tcgen05.types import (
    tmem_type as tmem_type,
)

TCGEN05 = Dialect(
    "tcgen05",
    [
        MakeIdescOp, MakeSmemDescOp, MakeZcmaskOp, SmemAllocOp, AllocOp, DeallocOp, MmaOp,
        LdOp, StOp, WaitLdOp, WaitStOp, FenceBeforeThreadSyncOp, FenceAfterThreadSyncOp,
        RelinquishAllocPermitOp, CommitOp, MbarrierInitOp, MbarrierInvalOp, MbarrierArriveOp,
        MbarrierWaitOp,
        CpOp, ShiftOp, ClusterRankOp, ClusterSyncOp, MakeTensorMapOp, TmaLoadOp, ElectSyncOp,
        FenceProxyAsyncOp, MatmulOp,
    ],
    [SpaceAttr, IdescAttr, SmemDescAttr, ZcmaskAttr, TensorMapAttr],
)

__all__ = [
    "MatmulOp",
    "TmaLoadOp",
    "TensorMapAttr",
    "MakeTensorMapOp",
    "FenceProxyAsyncOp",
    "ElectSyncOp",
    "AllocOp",
    "CTA_GROUPS",
    "ClusterRankOp",
    "ClusterSyncOp",
    "CommitOp",
    "CpOp",
    "DeallocOp",
    "FenceAfterThreadSyncOp",
    "FenceBeforeThreadSyncOp",
    "IdescAttr",
    "LdOp",
    "MakeIdescOp",
    "MakeSmemDescOp",
    "MakeZcmaskOp",
    "MbarrierArriveOp",
    "MbarrierInitOp",
    "MbarrierInvalOp",
    "MbarrierWaitOp",
    "MmaOp",
    "RelinquishAllocPermitOp",
    "SMEM",
    "ShiftOp",
    "SmemAllocOp",
    "SmemDescAttr",
    "Space",
    "SpaceAttr",
    "StOp",
    "TARGET_ATTR",
    "TCGEN05",
    "TMEM",
    "WaitLdOp",
    "WaitStOp",
    "ZcmaskAttr",
    "normalise_scale_vec",
    "smem_type",
    "tmem_type",
]
