"""`tcgen05-raise-descriptors`: constant descriptor words fed to `tcgen05.mma` become make-ops.

Code from other compilers (a CUTLASS/Triton kernel lowered to NVVM, a hand-written PTX port) passes
the Blackwell descriptors to `tcgen05.mma` as bare integers: a 32-bit instruction descriptor, 64-bit
shared-memory matrix descriptors for A and B, and a 64-bit zero-column mask for `.ws`. This pass reads
such a dump back into the field-level form of the `tcgen05` dialect, so it prints readably and the
verifier checks every field against the instruction:

```mlir
%i = arith.constant 138412048 : i32       // 0x08400010
tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %i, %en : ...
// becomes
%i = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
```

What a word means depends on where it is used, so the pass starts from each integer
`arith.constant` and looks at its uses:

* the `idesc` operand of a `tcgen05.mma`: an instruction descriptor, decoded with that mma's kind
  (the idesc layout differs between the dense and the block-scaled kinds);
* the `a` operand (when it is an i64, not a TMEM memref) or the `b` operand: a shared-memory
  descriptor;
* the `zero_column_mask` operand: a zero-column mask.

Other uses (arithmetic on the word, lane masks, ...) keep the constant. When every use is raised
into one make-op, that op replaces the constant in place and keeps its SSA name, which makes
`tcgen05-materialize-descriptors` followed by this pass the identity. A constant with several
descriptor roles (two mma kinds, or an i64 used both as an SMEM descriptor and as a zero-column
mask) gets one make-op per role, named `<name>_<role>`, inserted where the constant was.

A word that does not decode in its role (reserved bits, an unknown swizzle code, an mma kind that
does not exist) or breaks a rule that holds for every instruction (e.g. dtype f16 with kind::f8f6f4)
cannot be held by a descriptor attribute, so it is left as the constant: the `tcgen05.mma` verifier
decodes constant descriptors too and reports it with the raw word, e.g.
`'tcgen05.mma' op idesc 0x08400050: reserved bits = 0x00000040 are set ... [R1]`. The pass itself
never fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.locations import derive
from mmair.dialects.tcgen05 import (
    IdescAttr,
    MakeIdescOp,
    MakeSmemDescOp,
    MakeZcmaskOp,
    MmaOp,
    SmemDescAttr,
    ZcmaskAttr,
)
from mmair.dialects.value_names import name_derived
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import decode_idesc
from mmair.isa.tcgen05.smem import decode_smem_desc
from mmair.isa.tcgen05.zcmask import decode_zcmask

_MakeOp = MakeIdescOp | MakeSmemDescOp | MakeZcmaskOp

# Operand positions of tcgen05.mma: d, a, b, idesc, enable_input_d come first, one value each;
# zero_column_mask, when present, is the last operand.
_MMA_A, _MMA_B, _MMA_IDESC = 1, 2, 3


@dataclass(frozen=True)
class DescriptorRole:
    """How a tcgen05 op reads a word: `idesc` (with the mma kind), `smem_desc` or `zcmask`."""

    mnemonic: str
    kind: str | None = None

    @property
    def suffix(self) -> str:
        return self.mnemonic if self.kind is None else f"{self.mnemonic}_{self.kind}"


def descriptor_role(use: Use) -> DescriptorRole | None:
    """The descriptor role of one use of a value, None when the user does not read a descriptor."""
    op = use.operation
    if not isinstance(op, MmaOp):
        return None
    if use.index == _MMA_IDESC:
        return DescriptorRole("idesc", op.kind.data)
    if use.index == _MMA_B or (use.index == _MMA_A and not op.a_in_tmem):
        return DescriptorRole("smem_desc")
    if op.zero_column_mask is not None and use.index == len(op.operands) - 1:
        return DescriptorRole("zcmask")
    return None


def make_descriptor_op(word: int, role: DescriptorRole) -> _MakeOp | None:
    """The make-op holding `word` in `role`, None when the word cannot be such a descriptor."""
    try:
        attr: IdescAttr | SmemDescAttr | ZcmaskAttr
        if role.mnemonic == "idesc":
            assert role.kind is not None
            attr = IdescAttr(decode_idesc(word, role.kind))
        elif role.mnemonic == "smem_desc":
            attr = SmemDescAttr(decode_smem_desc(word))
        else:
            attr = ZcmaskAttr(decode_zcmask(word))
        # Explicitly: `--disable-verify` turns off the verification at attribute construction.
        attr.verify()
    except (DescriptorError, VerifyException):
        # Undecodable, or a context-free rule fails: no attribute can hold it, so the constant
        # stays and the mma verifier reports it with the raw word.
        return None
    if isinstance(attr, IdescAttr):
        return MakeIdescOp(attr)
    if isinstance(attr, SmemDescAttr):
        return MakeSmemDescOp(attr)
    return MakeZcmaskOp(attr)


class RaiseDescriptorConstant(RewritePattern):
    """An integer `arith.constant` read as a descriptor by tcgen05 ops -> make-op(s)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        value = op.value
        if not isinstance(value, IntegerAttr) or not isinstance(value.type, IntegerType):
            return
        # The constant prints signed; the descriptor is its unsigned bit pattern.
        word = value.value.data & ((1 << value.type.width.data) - 1)
        result = op.result
        roles: dict[DescriptorRole, list[Use]] = {}
        for use in list(result.uses):
            if (role := descriptor_role(use)) is not None:
                roles.setdefault(role, []).append(use)
        made: dict[DescriptorRole, _MakeOp] = {}
        # A fixed order (not the order of the use list) for the make-ops of a multi-role word.
        for role in sorted(roles, key=lambda role: (role.mnemonic, role.kind or "")):
            if (make_op := make_descriptor_op(word, role)) is not None:
                made[role] = derive(make_op, op)
        if not made:
            return
        raised_uses = sum(len(roles[role]) for role in made)
        if len(made) == 1 and raised_uses == result.uses.get_length():
            # Sole meaning of the constant: replace it in place, keeping its name.
            make_op = next(iter(made.values()))
            rewriter.replace(op, make_op)
            name_derived(make_op.result, result, "")
            return
        for role, make_op in made.items():
            if result.name_hint is not None:
                name_derived(make_op.result, result, f"_{role.suffix}")
            rewriter.insert(make_op)
            users = {(use.operation, use.index) for use in roles[role]}
            rewriter.replace_uses_with_if(
                result, make_op.result, lambda use, users=users: (use.operation, use.index) in users
            )
        if not result.uses:
            rewriter.erase(op)


class Tcgen05RaiseDescriptorsPass(ModulePass):
    """Turn constant descriptor words read by `tcgen05.mma` into `tcgen05.make_*` ops."""

    name = "tcgen05-raise-descriptors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # A bare walker (no GreedyRewritePatternApplier, which would erase unrelated dead Pure
        # ops); one visit per constant suffices, the make-ops it creates never match.
        PatternRewriteWalker(RaiseDescriptorConstant(), apply_recursively=False).rewrite_module(op)
