"""`tcgen05-materialize-descriptors`: descriptor make-ops become the integer words hardware reads.

On Blackwell the instruction descriptor of `tcgen05.mma` is a 32-bit register and the shared-memory
matrix descriptors and the zero-column mask are 64-bit registers: PTX (and the NVVM dialect) see
plain integers. This pass lowers the checked, field-level form of the `tcgen05` dialect to that
form:

```mlir
%i = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
// becomes
%i = arith.constant 138412048 : i32          // 0x08400010
```

`make_idesc` gives an `i32`, `make_smem_desc` and `make_zcmask` an `i64` constant (printed signed
by MLIR; the hardware word is its two's-complement bit pattern). The word is encoded by
`mmair.isa.tcgen05` from the attribute's decoded fields, so it is exactly what the encoders of the
isa (and `mmair-desc`) produce. The SSA name and the position of each op are kept, and nothing is
erased besides the make-ops (a dead make-op becomes a dead constant). The `tcgen05.mma` verifier
decodes constant descriptors too, so the result is checked as strictly as the input.
`tcgen05-raise-descriptors` is the inverse.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32, i64
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from mmair.dialects.locations import derive
from mmair.dialects.tcgen05 import MakeIdescOp, MakeSmemDescOp, MakeZcmaskOp
from mmair.isa.tcgen05.idesc import encode_idesc
from mmair.isa.tcgen05.smem import encode_smem_desc
from mmair.isa.tcgen05.zcmask import encode_zcmask


def descriptor_word(op: MakeIdescOp | MakeSmemDescOp | MakeZcmaskOp) -> int:
    """The unsigned descriptor word a make-op stands for, encoded from its decoded fields."""
    if isinstance(op, MakeIdescOp):
        return encode_idesc(op.desc.desc)
    if isinstance(op, MakeSmemDescOp):
        return encode_smem_desc(op.desc.desc)
    return encode_zcmask(op.desc.desc)


class MaterializeDescriptor(RewritePattern):
    """`tcgen05.make_*` -> `arith.constant` of the packed word (i32 idesc, i64 smem desc / zcmask)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: MakeIdescOp | MakeSmemDescOp | MakeZcmaskOp, rewriter: PatternRewriter
    ) -> None:
        width = i32 if isinstance(op, MakeIdescOp) else i64
        # IntegerAttr stores a signless word in signed form; the bit pattern is unchanged.
        constant = arith.ConstantOp(IntegerAttr(descriptor_word(op), width))
        rewriter.replace(op, derive(constant, op))


class Tcgen05MaterializeDescriptorsPass(ModulePass):
    """Replace every `tcgen05.make_idesc/make_smem_desc/make_zcmask` by its integer constant."""

    name = "tcgen05-materialize-descriptors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # A bare walker, not GreedyRewritePatternApplier: that one would also erase unrelated dead
        # Pure ops. One visit per op suffices (the constants it creates never match).
        PatternRewriteWalker(MaterializeDescriptor(), apply_recursively=False).rewrite_module(op)
