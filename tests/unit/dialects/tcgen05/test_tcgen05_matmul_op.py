"""tcgen05.matmul built from Python: the builder sets the transposes as unit properties, the op
verifies in a tcgen05.target module, and `problem()` / `plan()` give (M, N, K) and the lowering's
plan (the transposed A is MN-major, the B given transposed K-major)."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, f16, f32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.tcgen05 import TARGET_ATTR, MatmulOp


def _module(a_shape, b_shape, d_shape, **flags) -> tuple[ModuleOp, MatmulOp]:
    block = Block(arg_types=[MemRefType(f16, a_shape), MemRefType(f16, b_shape),
                             MemRefType(f32, d_shape)])
    op = MatmulOp(*block.args, **flags)
    block.add_ops([op, func.ReturnOp()])
    kernel = func.FuncOp("matmul", (block.arg_types, []), Region(block))
    module = ModuleOp([kernel])
    module.attributes[TARGET_ATTR] = StringAttr("sm_100a")
    return module, op


def test_builder_and_plan() -> None:
    module, op = _module((104, 200), (72, 104), (200, 72), transpose_a=True, transpose_b=True)
    module.verify()
    assert op.is_transpose_a and op.is_transpose_b
    assert op.problem() == (200, 72, 104)
    plan = op.plan()
    assert (plan.kind, plan.a.major, plan.b.major, plan.tile_n) == ("f16", "mn", "k", 72)


def test_builder_shapes_are_verified() -> None:
    module, _ = _module((200, 104), (72, 104), (200, 72))
    with pytest.raises(VerifyException, match=r"requires b with K = 104 \(from a\) rows, got "
                                              r"shape 72x104"):
        module.verify()
