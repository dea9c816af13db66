"""pypto's SPMD block arguments, read as the block queries they stand for.

Kernels that pypto exports through PTOAS (the model samples under PTOAS's test/samples, e.g.
DeepseekV4DecodeA5, Qwen3_14BPrefillA3: 374 files at PTOAS e32488c9) do not call
`pto.get_block_idx` / `pto.get_block_num`: they take the block index and the block count as two
trailing scalar arguments, `%__pypto_spmd_block_idx: i32, %__pypto_spmd_block_num: i32`, and
index GM with them. PTOAS's own NPU validation harness says what they are
(test/npu_validation/scripts/generate_testcase.py: "PyPTO model exports pass the SPMD block index
and block count as explicit trailing scalar arguments ... the representative invocation is always
block 0 of 1"): the launch's block index and size, which the host-side wrapper passes from
get_block_idx() / get_block_num().

So the conversion reads every use of such an argument as that query (a `pto.get_block_idx` /
`pto.get_block_num` cast to the argument's type, which the conversion then turns into
`pto.block_idx` / `pto.block_num`): under `mmair-run --blocks N` each core sees its own index and
N, and a tensor sized by the block count takes N like one sized by `get_block_num`. The arguments
stay in the signature (the kernel's ABI is unchanged) but are no longer read, so a run does not
need values for them; one given with `--input` is refused, because the launch decides them.
That the wrapper passes exactly these values is the harness's statement, not read from pypto's
source: an inference, written in docs/ptoas.md.
"""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerType, i64
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from mmair.dialects.ptoas import ops as P
from mmair.dialects.ptoas.spmd import SPMD_BLOCK_COUNT, SPMD_BLOCK_INDEX
from mmair.dialects.ptoas.spmd import is_spmd_block_argument as is_spmd_block_argument

SPMD_BLOCK_ARGUMENTS: dict[str, type[P.GetBlockIdxOp] | type[P.GetBlockNumOp]] = {
    SPMD_BLOCK_INDEX: P.GetBlockIdxOp,
    SPMD_BLOCK_COUNT: P.GetBlockNumOp,
}
"""The query each of pypto's block arguments stands for."""


def bind_spmd_block_arguments(fn: func.FuncOp) -> None:
    """Replace every use of `fn`'s SPMD block arguments with the block query they stand for."""
    from mmair.passes.ptoas_shapes import argument_names

    if not fn.body.blocks:
        return
    block = fn.body.block
    for arg, name in argument_names(block).items():
        query_type = SPMD_BLOCK_ARGUMENTS.get(name)
        if query_type is None or not arg.uses:
            continue
        if not isinstance(arg.type, IntegerType | IndexType):
            continue  # not the scalar pypto passes: left to the usual argument rules
        query = query_type()
        ops: list[Operation] = [query]
        value = query.results[0]
        if isinstance(arg.type, IndexType):
            ops.append(arith.IndexCastOp(value, arg.type))
        elif arg.type.width.data < 64:
            ops.append(arith.TruncIOp(value, arg.type))
        elif arg.type != i64:
            ops.append(arith.ExtSIOp(value, arg.type))
        Rewriter.insert_op(ops, InsertPoint.at_start(block))
        arg.replace_all_uses_with(ops[-1].results[0])
