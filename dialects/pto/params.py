"""The cube instructions in their raw Ascend C parameter forms.

The tile-level ops (`mte_gm_l1`, `mte_l1_l0a/l0b`, `mad*`, `fixpipe`) say *what* moves, in the
tile's logical coordinates. These ops take the parameters of the Ascend C structs field by field
(`isa/ascend/params.py`: units, ranges per target), so every documented use of the instructions
can be written, including the ones the tile ops cannot say (several ND matrices, free strides,
re-reads with stride 0, fractal reorders, GEMV with an explicit `disable_gemv`):

    pto.copy_nd2nz      DataCopy(dst, src, Nd2NzParams)                   GM -> L1
    pto.load_2d         LoadData(dst, src, LoadData2DParams)              L1 -> L0A / L0B
    pto.load_2d_gm      LoadData(dst, src, LoadData2DParams) (load_gm_to_cbuf, addrMode)  GM -> L1
    pto.load_2d_v2_gm   LoadData(dst, src, LoadData2DParamsV2) (a5 load_gm_to_cbuf_2dv2)  GM -> L1
    pto.load_2d_transpose LoadDataWithTranspose(dst, src, LoadData2dTransposeParams)
    pto.copy_gm_l1      DataCopy(dst, src, DataCopyParams) (copy_gm_to_cbuf)   GM -> L1
    pto.copy_l1_bt      DataCopy(dst, src, DataCopyParams) (copy_cbuf_to_bt)   L1 -> BT
    pto.mmad            Mmad(dst, fm, filter[, bias], MmadParams)         L0A x L0B (+ BT) -> L0C
    pto.fixpipe_copy    Fixpipe(dst, src, FixpipeParamsV220 / FixpipeParamsArch3510)

Addresses are linear from the operand's start (plus an element offset `[%off]` where Ascend C
passes a sub-tensor `local[off]`), as the hardware sees them: the tile types only give the
buffers (space, element type, size); the layout inside is whatever the parameters make it.
Parameters are `index` operands (registers); static ones are checked against the struct's
ranges on the module's target, runtime ones by the executor. `pto-expand-params` lowers the
tile-level ops to these forms.

Packed 4-bit operands (s4 / int4b_t, e2m1 / fp4x2_e2m1_t; element 2i in the low nibble of byte i)
are moved as bytes: ND2NZ / DN2NZ are the b8 copies with their element fields counting bytes
("参数需要根据b8类型进行设置"), LoadData moves their 512-byte fractals, LoadDataWithTranspose
turns 64 x 64 squares of four 16 x 64 fractals (into L0B only), and Mmad reads the nibbles.
Element offsets `[%off]` of 4-bit tiles are even (byte boundaries).

The ops live in one module per instruction group: `raw_gm_l1` (copy_nd2nz, copy_dn2nz,
copy_gm_l1, load_2d_gm, load_2d_v2_gm), `raw_load2d` (load_2d, load_2d_transpose, load_2d_v2, copy_l1_bt),
`raw_mmad`, `raw_fixpipe`, with the checks they share in `raw_fields` and their exact footprints in
`raw_footprints`. This module is their index: it re-exports them and lists them in `RAW_OPS`.
"""

from __future__ import annotations

from xdsl.irdl import IRDLOperation

from mmair.dialects.pto.raw_fields import operand_map
from mmair.dialects.pto.raw_fixpipe import FixpipeCopyOp
from mmair.dialects.pto.raw_gm_l1 import (
    CopyDn2NzOp,
    CopyGmL1Op,
    CopyNd2NzOp,
    Load2DGmOp,
    Load2DV2GmOp,
)
from mmair.dialects.pto.raw_load2d import CopyL1BtOp, Load2DOp, Load2DTransposeOp, Load2DV2Op
from mmair.dialects.pto.raw_mmad import MmadOp

__all__ = [
    "RAW_OPS", "CopyDn2NzOp", "CopyGmL1Op", "CopyL1BtOp", "CopyNd2NzOp", "FixpipeCopyOp", "Load2DGmOp", "Load2DOp",
    "Load2DTransposeOp", "Load2DV2GmOp", "Load2DV2Op", "MmadOp", "operand_map",
]

# Every raw parameter-form op, in pipeline order (the fuzzer and the docs enumerate them).
RAW_OPS: tuple[type[IRDLOperation], ...] = (
    CopyNd2NzOp, CopyDn2NzOp, CopyGmL1Op, Load2DGmOp, Load2DV2GmOp, Load2DOp, Load2DTransposeOp, Load2DV2Op,
    CopyL1BtOp, MmadOp, FixpipeCopyOp,
)
