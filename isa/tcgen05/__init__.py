"""NVIDIA Blackwell tcgen05: instruction, shared-memory and zero-column mask descriptors, shapes and rules.

Modules: `errors` (DescriptorError), `types` (type names), `idesc` (32-bit instruction descriptor),
`smem` (64-bit shared-memory matrix descriptor), `tma` (tensor maps, TMA boxes), `zcmask` (64-bit zero-column mask descriptor and
its mask generation), `shapes` (valid M/N/K), `rules` (validity rules R1-R33), `text` (the
`#tcgen05.idesc<...>` attribute text shared with the xDSL dialect). Pure Python + numpy, no xDSL.
"""

from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import (
    BLOCK_SCALED_KINDS,
    DENSE_KINDS,
    KINDS,
    InstrDesc,
    decode_idesc,
    encode_idesc,
    kinds_for_idesc,
)
from mmair.isa.tcgen05.smem import SWIZZLES, SmemDesc, decode_smem_desc, encode_smem_desc
from mmair.isa.tcgen05.zcmask import (
    ZeroColumnMask,
    decode_zcmask,
    encode_zcmask,
    zcmask_bits,
    zcmask_columns,
    zcmask_submasks,
)

__all__ = [
    "BLOCK_SCALED_KINDS",
    "DENSE_KINDS",
    "KINDS",
    "SWIZZLES",
    "DescriptorError",
    "InstrDesc",
    "SmemDesc",
    "ZeroColumnMask",
    "decode_idesc",
    "decode_smem_desc",
    "decode_zcmask",
    "encode_idesc",
    "encode_smem_desc",
    "encode_zcmask",
    "kinds_for_idesc",
    "zcmask_bits",
    "zcmask_columns",
    "zcmask_submasks",
]
